//! `mcpcheck intercept --fault`: an agent-style client talks to `mcpcheck
//! serve` through the proxy and sees exactly the faults asked for (an
//! error, a tool error, a line that is not JSON, a wrong shape, a duplicate,
//! a lost answer, reordered notifications, latency, a cut connection), on
//! stdio and on Streamable HTTP; the capture records each injection, and the
//! report tells the findings they caused from the server's own.

mod cli_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use cli_support::{BIN, mcpcheck, scratch};
use serde_json::{Value, json};

/// A client on the proxy's stdio: what it sends, and the lines it reads.
struct Agent {
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Agent {
    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next line within `wait`, `None` when none comes, `Some("")` when
    /// the proxy closed its output.
    fn line(&self, wait: Duration) -> Option<String> {
        match self.lines.recv_timeout(wait) {
            Ok(l) => Some(l),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(String::new()),
        }
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": {"progressToken": id}}}));
    }
}

/// `mcpcheck intercept --format json --capture DIR/c.json FAULTS -- mcpcheck
/// serve`, initialized.
fn start(dir: &std::path::Path, faults: &[&str]) -> (std::process::Child, Agent) {
    let capture = dir.join("c.json");
    let mut args: Vec<String> = vec![
        "intercept".into(),
        "--format".into(),
        "json".into(),
        "--capture".into(),
        capture.display().to_string(),
    ];
    for f in faults {
        args.push("--fault".into());
        args.push((*f).into());
    }
    args.extend(["--".into(), BIN.into(), "serve".into()]);
    let mut child = mcpcheck()
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start intercept");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut agent = Agent {
        stdin: child.stdin.take(),
        lines: rx,
    };
    agent.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "agent", "version": "1"}}}));
    let init = agent
        .line(Duration::from_secs(20))
        .expect("initialize answered");
    assert!(init.contains("\"id\":0"), "{init}");
    agent.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    (child, agent)
}

fn json_of(line: &str) -> Option<Value> {
    serde_json::from_str(line).ok()
}

/// What the agent sees for the call with `id`: every line until its answer
/// (and what follows within `after`), or until `wait` passes.
fn seen(agent: &Agent, id: u64, wait: Duration, after: Duration) -> Vec<String> {
    let mut out = Vec::new();
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(line) = agent.line(left) else {
            return out;
        };
        if line.is_empty() {
            out.push("<closed>".into());
            return out;
        }
        let answered =
            json_of(&line).is_some_and(|v| v["id"] == json!(id) && v.get("method").is_none());
        out.push(line);
        if answered {
            while let Some(more) = agent.line(after) {
                if more.is_empty() {
                    break;
                }
                out.push(more);
            }
            return out;
        }
    }
}

#[test]
fn an_agent_sees_exactly_the_injected_faults_and_the_report_attributes_them() {
    let dir = scratch("intercept-faults");
    let (child, mut agent) = start(
        &dir,
        &[
            "error:nth=1",
            "is-error:nth=2",
            "invalid-json:nth=3",
            "schema:nth=4",
            "duplicate:nth=5",
            "drop:nth=6",
            "reorder:tool=progress",
            "latency:ms=800,tool=lorem",
        ],
    );
    let quick = Duration::from_millis(300);
    // 1: a JSON-RPC error instead of the answer.
    agent.call(1, "echo", json!({"message": "a"}));
    let s = seen(&agent, 1, Duration::from_secs(10), quick);
    let v = json_of(&s[0]).expect("json");
    assert_eq!(v["error"]["code"], -32603, "{s:?}");
    // 2: a tool error.
    agent.call(2, "echo", json!({"message": "b"}));
    let s = seen(&agent, 2, Duration::from_secs(10), quick);
    assert_eq!(
        json_of(&s[0]).expect("json")["result"]["isError"],
        true,
        "{s:?}"
    );
    // 3: half a message, never an answer.
    agent.call(3, "echo", json!({"message": "c"}));
    let s = seen(&agent, 3, Duration::from_millis(1500), quick);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(json_of(&s[0]).is_none(), "{s:?}");
    // 4: a result of the wrong shape.
    agent.call(4, "echo", json!({"message": "d"}));
    let s = seen(&agent, 4, Duration::from_secs(10), quick);
    assert!(
        json_of(&s[0]).expect("json")["result"]["content"].is_string(),
        "{s:?}"
    );
    // 5: the answer twice.
    agent.call(5, "echo", json!({"message": "e"}));
    let s = seen(
        &agent,
        5,
        Duration::from_secs(10),
        Duration::from_millis(800),
    );
    assert_eq!(s.len(), 2, "{s:?}");
    assert_eq!(s[0], s[1]);
    // 6: no answer at all.
    agent.call(6, "echo", json!({"message": "f"}));
    assert!(seen(&agent, 6, Duration::from_millis(1500), quick).is_empty());
    // 7: no fault: the answer as the server gave it.
    agent.call(7, "echo", json!({"message": "g"}));
    let s = seen(&agent, 7, Duration::from_secs(10), quick);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(
        json_of(&s[0]).expect("json")["result"]["content"][0]["text"],
        "g"
    );
    // 8: progress after the answer, last first.
    agent.call(8, "progress", json!({"steps": 3, "delay_ms": 1}));
    let s = seen(
        &agent,
        8,
        Duration::from_secs(10),
        Duration::from_millis(800),
    );
    let kinds: Vec<Value> = s
        .iter()
        .filter_map(|l| json_of(l))
        .map(|v| {
            v.get("id")
                .cloned()
                .unwrap_or_else(|| v["params"]["progress"].clone())
        })
        .collect();
    assert_eq!(
        kinds,
        [json!(8), json!(3.0), json!(2.0), json!(1.0)],
        "{s:?}"
    );
    // 9: 800 ms late.
    let started = Instant::now();
    agent.call(9, "lorem", json!({"words": 2}));
    let s = seen(&agent, 9, Duration::from_secs(10), quick);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(started.elapsed() >= Duration::from_millis(800));
    drop(agent.stdin.take());
    let output = child.wait_with_output().expect("intercept ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value =
        serde_json::from_str(stderr.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stderr}"));
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert_eq!(report["passed"], true);
    let injected: Vec<&str> = report["injected"]
        .as_array()
        .expect("injected")
        .iter()
        .filter_map(|i| i["fault"].as_str())
        .collect();
    assert_eq!(
        injected,
        [
            "error",
            "is-error",
            "invalid-json",
            "schema",
            "duplicate",
            "drop",
            "reorder",
            "latency"
        ]
    );
    // What the faults broke is theirs: each attributed finding names one.
    let attributed = report["attributed"].as_array().expect("attributed");
    assert!(!attributed.is_empty(), "{report}");
    assert!(
        attributed.iter().all(|f| f["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("injected by --fault"))),
        "{report}"
    );
    for code in ["INV-008", "INV-022"] {
        assert!(
            attributed.iter().any(|f| f["code"] == code),
            "{code}: {report}"
        );
    }
    assert!(report["invariants"].is_object());
    // The capture says what was injected, at which exchange.
    let capture: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("c.json")).expect("capture"))
            .expect("json");
    let recorded = capture["injected"].as_array().expect("the injected member");
    assert_eq!(recorded.len(), 8);
    assert!(recorded.iter().all(|i| i["exchange"].is_u64()), "{capture}");
    // `mcpcheck invariants` reads the same attribution from the capture.
    let (code, out, err) = cli_support::run_mcpcheck(&[
        "invariants",
        "--capture",
        dir.join("c.json").to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("caused by injected faults"), "{out}");
}

#[test]
fn a_disconnect_cuts_the_session_and_the_same_seed_chooses_the_same_calls() {
    let dir = scratch("intercept-disconnect");
    let (child, mut agent) = start(&dir, &["disconnect:tool=add"]);
    agent.call(1, "echo", json!({"message": "x"}));
    assert_eq!(
        seen(&agent, 1, Duration::from_secs(10), Duration::ZERO).len(),
        1
    );
    agent.call(2, "add", json!({"a": 1, "b": 2}));
    assert_eq!(
        seen(&agent, 2, Duration::from_secs(10), Duration::ZERO),
        ["<closed>"]
    );
    let output = child.wait_with_output().expect("ends");
    let report: Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stderr).trim()).expect("json");
    assert!(
        report["ended"]
            .as_str()
            .is_some_and(|e| e.contains("disconnect")),
        "{report}"
    );
    // p=0.5 over eight calls: two runs with one seed fault the same calls.
    let run = |seed: &str| -> Vec<u64> {
        let dir = scratch(&format!("intercept-seed-{seed}"));
        let (mut child, mut agent) = {
            let capture = dir.join("c.json");
            let mut child = mcpcheck()
                .args(["intercept", "--format", "json", "--capture"])
                .arg(&capture)
                .args(["--fault", "error:p=0.5", "--seed", seed, "--", BIN, "serve"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start");
            let stdout = child.stdout.take().expect("stdout");
            let (tx, rx) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            let agent = Agent {
                stdin: child.stdin.take(),
                lines: rx,
            };
            (child, agent)
        };
        agent.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}}));
        agent.line(Duration::from_secs(20)).expect("init");
        let mut faulted = Vec::new();
        for id in 1..=8 {
            agent.call(id, "echo", json!({"message": "m"}));
            let s = seen(&agent, id, Duration::from_secs(10), Duration::ZERO);
            if json_of(&s[0]).is_some_and(|v| v.get("error").is_some()) {
                faulted.push(id);
            }
        }
        drop(agent.stdin.take());
        let _ = child.wait();
        faulted
    };
    let a = run("7");
    assert_eq!(a, run("7"));
    assert!(!a.is_empty() && a.len() < 8, "{a:?}");
}

#[test]
fn faults_are_injected_over_streamable_http_too() {
    let server = cli_support::http_serve(&[]);
    let dir = scratch("intercept-faults-http");
    let mut proxy = mcpcheck()
        .args([
            "intercept",
            "--http",
            "127.0.0.1:0",
            "--url",
            &server.url,
            "--duration",
            "8s",
        ])
        .args(["--format", "json", "--capture"])
        .arg(dir.join("h.json"))
        .args([
            "--fault",
            "error:nth=1",
            "--fault",
            "duplicate:nth=2",
            "--fault",
            "drop:nth=3",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let mut stderr = BufReader::new(proxy.stderr.take().expect("stderr"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("the address");
    let url = first
        .split("listening on ")
        .nth(1)
        .map(str::trim)
        .unwrap_or_else(|| panic!("{first}"))
        .to_string();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let bodies = runtime.block_on(async {
        let http = reqwest::Client::new();
        let post = |body: Value, session: Option<String>| {
            let mut r = http
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(body.to_string());
            if let Some(s) = session {
                r = r.header("mcp-session-id", s);
            }
            r.send()
        };
        let init = post(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}}),
            None,
        )
        .await
        .expect("initialize");
        let session = init
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let _ = init.text().await;
        let _ = post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), session.clone())
            .await
            .expect("initialized");
        let mut bodies = Vec::new();
        for id in 1..=3 {
            let answer = post(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"message": "h"}}}),
                session.clone(),
            )
            .await
            .expect("answer");
            bodies.push(answer.text().await.expect("body"));
        }
        bodies
    });
    assert!(bodies[0].contains("-32603"), "{bodies:?}");
    assert_eq!(bodies[1].matches("\"id\":2").count(), 2, "{bodies:?}");
    assert!(!bodies[2].contains("\"id\":3"), "{bodies:?}");
    let output = proxy.wait_with_output().expect("ends");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("report");
    let _ = output;
    let report: Value = serde_json::from_str(rest.trim()).unwrap_or_else(|e| panic!("{e}: {rest}"));
    let injected: Vec<&str> = report["injected"]
        .as_array()
        .expect("injected")
        .iter()
        .filter_map(|i| i["fault"].as_str())
        .collect();
    assert_eq!(injected, ["error", "duplicate", "drop"], "{report}");
    assert_eq!(report["passed"], true, "{report}");
}
