//! `mcpcheck conformance` against `mcpcheck serve` and a real server: the
//! same verdicts on every run, over HTTP and stdio; each fault of serve
//! caught by the rule it breaks; serve's resource-not-found code per
//! revision; no stall after hung calls over HTTP; and server-everything's
//! ten-second operation never blamed on the server.

mod cli_support;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use cli_support::{BIN, http_serve, run_mcpcheck, scratch};
use serde_json::{Value, json};

/// `mcpcheck conformance TARGET --format json EXTRA`: (exit code, report).
fn conformance(target: &[&str], extra: &[&str]) -> (Option<i32>, Value) {
    let (code, out, err) =
        run_mcpcheck(&[&["conformance", "--format", "json"][..], target, extra].concat());
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v)
}

/// Per revision: its version, its counts and every rule's verdict.
fn verdicts(v: &Value) -> Vec<Value> {
    v["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            json!([
                r["protocol_version"],
                r["passed"],
                r["failed"],
                r["not_met"],
                r["noted"],
                r["not_verified"],
                r["rules"]
            ])
        })
        .collect()
}

#[test]
fn the_same_server_gets_the_same_verdicts_on_every_run_over_http_and_stdio() {
    let http = http_serve(&[]);
    let server = format!("{BIN} serve");
    for target in [
        vec!["--url", http.url.as_str()],
        vec!["--server", server.as_str()],
    ] {
        let runs: Vec<Vec<Value>> = (0..3)
            .map(|_| {
                let (code, v) = conformance(&target, &[]);
                assert_eq!(code, Some(0), "{v:#}");
                verdicts(&v)
            })
            .collect();
        assert_eq!(runs[0].len(), 2, "both eras: {:#?}", runs[0]);
        assert_eq!(runs[0], runs[1], "{target:?}");
        assert_eq!(runs[1], runs[2], "{target:?}");
    }
}

/// The rules with failing findings (level error) in every revision.
fn failing(v: &Value) -> Vec<String> {
    let mut ids: Vec<String> = v["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["findings"].as_array().unwrap().iter())
        .filter(|f| f["level"] == "error")
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The rules with findings of any level in every revision.
fn found(v: &Value) -> Vec<String> {
    let mut ids: Vec<String> = v["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["findings"].as_array().unwrap().iter())
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[test]
fn each_serve_fault_breaks_the_rule_it_is_for() {
    // (fault, over HTTP, revision, the rules with findings). Plain serve
    // advertises logging, deprecated in 2026-07-28: INV-055's note is there
    // in every 2026-07-28 row. The schema family also requires the caching
    // hints (INV-031).
    let cases: &[(&str, bool, &str, &[&str])] = &[
        (
            "initialize-modern-version",
            false,
            "2025-11-25",
            &["INV-019"],
        ),
        (
            "accept-removed-methods",
            false,
            "2026-07-28",
            &["INV-043", "INV-055"],
        ),
        (
            "ignore-header-mismatch",
            true,
            "2026-07-28",
            &["INV-042", "INV-047", "INV-048", "INV-055"],
        ),
        (
            "bad-x-mcp-header",
            false,
            "2026-07-28",
            &["INV-048", "INV-055"],
        ),
        (
            "missing-capability-without-data",
            false,
            "2026-07-28",
            &["INV-049", "INV-055"],
        ),
        (
            "no-server-info",
            false,
            "2026-07-28",
            &["INV-050", "INV-055"],
        ),
        (
            "unstable-discover",
            false,
            "2026-07-28",
            &["INV-051", "INV-055"],
        ),
        (
            "listen-ignores-filter",
            false,
            "2026-07-28",
            &["INV-052", "INV-055"],
        ),
        (
            "no-cache-hints",
            false,
            "2026-07-28",
            &["INV-031", "INV-053", "INV-055"],
        ),
        (
            "bad-traceparent",
            false,
            "2026-07-28",
            &["INV-054", "INV-055"],
        ),
        (
            "resource-not-found-32002",
            false,
            "2026-07-28",
            &["INV-055", "INV-056"],
        ),
        (
            "prompt-not-found-internal",
            false,
            "2025-11-25",
            &["INV-057"],
        ),
    ];
    for (fault, over_http, version, expected) in cases {
        let http = over_http.then(|| http_serve(&["--fault", fault]));
        let server = format!("{BIN} serve --fault {fault}");
        let target: Vec<&str> = match &http {
            Some(h) => vec!["--url", &h.url],
            None => vec!["--server", &server],
        };
        let (code, v) = conformance(&target, &["--protocol-version", version]);
        assert_eq!(found(&v), *expected, "{fault}: {v:#}");
        // Recommendations (INV-050, INV-051, INV-057) and notes (INV-055)
        // do not fail the run.
        let want = if failing(&v).is_empty() { 0 } else { 1 };
        assert_eq!(code, Some(want), "{fault}: {v:#}");
    }
}

/// The answer to a resources/read of a missing resource from `mcpcheck
/// serve` on stdio, after `opening` (messages sent first, their answers
/// skipped).
fn stdio_answer(opening: &[Value], read: &Value) -> Value {
    let mut child = Command::new(BIN)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for m in opening {
        writeln!(stdin, "{m}").unwrap();
        if m.get("id").is_some() {
            let _ = lines.next();
        }
    }
    writeln!(stdin, "{read}").unwrap();
    let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answer
}

#[test]
fn serve_answers_a_missing_resource_with_the_code_of_each_revision() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let read_2026 = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": {"uri": "mcpcheck://no-such-thing", "_meta": meta}});
    // 2026-07-28: -32602 (server/resources §Error Handling), on stdio...
    let answer = stdio_answer(&[], &read_2026);
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["error"]["data"]["uri"], "mcpcheck://no-such-thing");
    // ...and over HTTP, with status 200 (an invalid-params answer).
    let http = http_serve(&[]);
    let o = Command::new("curl")
        .args(["-s", "-w", "\n%{http_code}", "-X", "POST", &http.url])
        .args(["-H", "content-type: application/json"])
        .args(["-H", "accept: application/json, text/event-stream"])
        .args(["-H", "mcp-protocol-version: 2026-07-28"])
        .args(["-H", "mcp-method: resources/read"])
        .args(["-H", "mcp-name: mcpcheck://no-such-thing"])
        .args(["-d", &read_2026.to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let body = text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("data: ")
                .or(Some(l).filter(|l| l.starts_with('{')))
        })
        .next()
        .unwrap_or_else(|| panic!("{text}"));
    let answer: Value = serde_json::from_str(body).unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{text}");
    // 2025-11-25: -32002, the code of the handshake revisions.
    let opening = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": {"uri": "mcpcheck://no-such-thing"}});
    let answer = stdio_answer(&opening, &read);
    assert_eq!(answer["error"]["code"], -32002, "{answer}");
    // The conformance probe holds both: no INV-056, no INV-057.
    let server = format!("{BIN} serve");
    let (_, v) = conformance(&["--server", &server], &[]);
    let rules = found(&v);
    assert!(!rules.contains(&"INV-056".to_string()), "{v:#}");
    assert!(!rules.contains(&"INV-057".to_string()), "{v:#}");
}

#[test]
fn requests_after_hung_calls_over_http_are_answered() {
    // Every tools/call hangs; the requests after them must still be answered
    // (the client once waited 30 s for a hung call's answer headers before
    // sending anything else).
    let http = http_serve(&["--fault", "hang-on-call"]);
    let dir = scratch("hung-http");
    let cap = dir.join("capture.json");
    let (code, v) = conformance(
        &["--url", &http.url],
        &[
            "--protocol-version",
            "2025-11-25",
            "--timeout",
            "1s",
            "--capture-out",
            cap.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1), "{v:#}");
    let capture: Value = serde_json::from_str(&std::fs::read_to_string(&cap).unwrap()).unwrap();
    let unanswered: Vec<&Value> = capture["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["request"]["id"].is_number() && x.get("response").is_none())
        .collect();
    assert!(!unanswered.is_empty());
    for x in &unanswered {
        assert_eq!(x["request"]["method"], "tools/call", "{x:#}");
    }
    let after: Vec<&str> = capture["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .skip_while(|x| x["request"]["method"] != "tools/call")
        .filter(|x| x["request"]["method"] != "tools/call" && x["request"]["id"].is_number())
        .map(|x| x["request"]["method"].as_str().unwrap_or_default())
        .collect();
    assert!(after.contains(&"mcpcheck/no-such-method"), "{after:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn server_everything() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../tests/node-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    )
}

#[test]
fn server_everything_over_http_is_never_blamed_for_its_long_operation() {
    let script = server_everything();
    if !script.exists() {
        assert!(
            std::env::var("MCPCHECK_REQUIRE_NODE_SERVERS").is_err(),
            "server-everything is not installed: run scripts/setup"
        );
        eprintln!("server-everything is not installed (scripts/setup); not run");
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap();
    let mut child = Command::new("node")
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Listening once the port takes a connection (at most 30 s).
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "server-everything did not listen on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    // Its read-only trigger-long-running-operation takes 10 s by its schema's
    // defaults, sending progress every 2 s: progress renews each 10 s step,
    // so the answer is waited for, run after run.
    for run in 0..3 {
        let (_, v) = conformance(&["--url", &url], &["--protocol-version", "2025-11-25"]);
        let blamed: Vec<&Value> = v["revisions"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "INV-022")
            .collect();
        assert!(blamed.is_empty(), "run {run}: {v:#}");
        assert!(
            v["revisions"][0]["gave_up"].as_array().unwrap().is_empty(),
            "run {run}: {v:#}"
        );
        assert_eq!(v["revisions"][0]["failed"], 0, "run {run}: {v:#}");
    }
    let _ = child.kill();
    let _ = child.wait();
}
