//! Servers that attack the runner: a notification flood, a request flood,
//! an endless line. Each test must end as `error` naming the limit, well
//! before its deadline, and the run must go on to report every test.

mod cli_support;

use std::time::{Duration, Instant};

use cli_support::{run_mcpcheck, scratch, write};

/// A shell server that answers `initialize` (echoing its id), reads the
/// `initialized` notification and the next request, then runs `then`.
fn server(then: &str) -> String {
    format!(
        r#"read line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"hostile","version":"1"}}}}}}\n' "$id"
read line
read line
{then}
"#
    )
}

/// Runs one test against the shell server `script` with a 20 s timeout,
/// and a second, well-behaved test after it: (elapsed, JSON results, stderr).
fn run_against(name: &str, script: &str) -> (Duration, serde_json::Value, String) {
    let d = scratch(name);
    write(&d, "server.sh", script);
    write(
        &d,
        "suite/a_hostile.yaml",
        &format!(
            "name: hostile\ntimeout: 20s\nserver:\n  command: sh\n  args: [{}]\nassert:\n  tool: anything\n  expect: {{not_error: true}}\n",
            d.join("server.sh").display()
        ),
    );
    write(
        &d,
        "suite/b_fine.yaml",
        &format!(
            "name: fine\nserver:\n  command: {}\n  args: [serve]\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect: {{equals: hi}}\n",
            cli_support::BIN
        ),
    );
    let started = Instant::now();
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        d.join("suite").to_str().unwrap(),
        "--json",
        "--jobs",
        "1",
    ]);
    let elapsed = started.elapsed();
    assert_eq!(code, Some(1), "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("a results document");
    (elapsed, v, err)
}

fn status_and_message(v: &serde_json::Value, name: &str) -> (String, String) {
    let t = v["tests"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no test {name} in {v}"));
    (
        t["status"].as_str().unwrap_or_default().to_string(),
        t["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_notification_flood_ends_the_test_as_an_error_long_before_its_deadline() {
    let flood = r#"yes '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}'"#;
    let (elapsed, v, err) = run_against("flood", &server(flood));
    let (status, message) = status_and_message(&v, "hostile");
    assert_eq!(status, "error", "{message}\n{err}");
    assert!(
        message.contains("more than 10000 messages in one session"),
        "{message}"
    );
    assert_eq!(status_and_message(&v, "fine").0, "pass", "the run went on");
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
}

#[test]
fn a_ping_flood_is_bounded_too() {
    let flood = r#"i=100; while :; do i=$((i+1)); printf '{"jsonrpc":"2.0","id":%s,"method":"ping"}\n' "$i"; done"#;
    let (elapsed, v, _) = run_against("pings", &server(flood));
    let (status, message) = status_and_message(&v, "hostile");
    assert_eq!(status, "error", "{message}");
    assert!(message.contains("more than 10000 messages"), "{message}");
    assert!(elapsed < Duration::from_secs(18), "took {elapsed:?}");
}

#[test]
fn an_endless_line_ends_the_test_at_the_message_size_limit() {
    let (elapsed, v, _) = run_against("endless-line", &server("yes | tr -d '\\n'"));
    let (status, message) = status_and_message(&v, "hostile");
    assert_eq!(status, "error", "{message}");
    assert!(message.contains("a line longer than 80 MiB"), "{message}");
    assert_eq!(status_and_message(&v, "fine").0, "pass");
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");
}

/// A Streamable HTTP server in Node that answers `initialize` and the
/// `initialized` notification, refuses the GET stream, and answers
/// `tools/call` the way `mode` says: `flood` (an SSE stream of endless
/// notifications), `body` (an endless JSON body) or `event` (one SSE event
/// that never ends). Prints its port.
const HTTP_SERVER: &str = r#"
const http = require('http');
const mode = process.argv[2];
const chunk = 'x'.repeat(65536);
const server = http.createServer((req, res) => {
  if (req.method !== 'POST') { res.writeHead(405); res.end(); return; }
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    const msg = JSON.parse(body);
    if (msg.method === 'initialize') {
      res.writeHead(200, {'content-type': 'application/json', 'mcp-session-id': 's1'});
      res.end(JSON.stringify({jsonrpc: '2.0', id: msg.id, result: {protocolVersion: '2025-11-25',
        capabilities: {tools: {}}, serverInfo: {name: 'hostile', version: '1'}}}));
      return;
    }
    if (msg.id === undefined) { res.writeHead(202); res.end(); return; }
    const sse = mode !== 'body';
    res.writeHead(200, {'content-type': sse ? 'text/event-stream' : 'application/json'});
    let alive = true;
    res.on('close', () => { alive = false; });
    const note = 'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}\n\n';
    if (mode === 'event') res.write('data: ');
    if (mode === 'body') res.write('{"jsonrpc":"2.0","id":' + msg.id + ',"result":{"content":[{"type":"text","text":"');
    const pump = () => {
      while (alive && res.write(mode === 'flood' ? note.repeat(64) : chunk)) {}
      if (alive) res.once('drain', pump);
    };
    pump();
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
"#;

/// A Node script started from `dir/server.js` with `args`, killed when
/// dropped (also when an assertion fails); `port` is the first line it prints.
struct NodeServer {
    child: std::process::Child,
    port: String,
}

impl NodeServer {
    fn start(dir: &std::path::Path, script: &str, args: &[&str]) -> NodeServer {
        use std::io::{BufRead, BufReader};
        write(dir, "server.js", script);
        let mut child = std::process::Command::new("node")
            .arg(dir.join("server.js"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start node");
        let mut port = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut port)
            .expect("the port");
        NodeServer {
            child,
            port: port.trim().to_string(),
        }
    }
}

impl Drop for NodeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_against_http(mode: &str) -> (Duration, serde_json::Value, String) {
    let d = scratch(&format!("http-{mode}"));
    let server = NodeServer::start(&d, HTTP_SERVER, &[mode]);
    write(
        &d,
        "suite/hostile.yaml",
        &format!(
            "name: hostile\ntimeout: 20s\nserver:\n  transport: http\n  url: http://127.0.0.1:{}/mcp\nassert:\n  tool: anything\n  expect: {{not_error: true}}\n",
            server.port
        ),
    );
    let started = Instant::now();
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        d.join("suite").to_str().unwrap(),
        "--json",
    ]);
    let elapsed = started.elapsed();
    drop(server);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("a results document");
    (elapsed, v, err)
}

#[test]
fn http_floods_and_endless_bodies_end_the_test_at_their_limits() {
    for (mode, said) in [
        ("flood", "more than 10000 messages in one session"),
        ("body", "longer than 80 MiB"),
        ("event", "passed 160 MiB"),
    ] {
        let (elapsed, v, err) = run_against_http(mode);
        let (status, message) = status_and_message(&v, "hostile");
        assert_eq!(status, "error", "{mode}: {message}\n{err}");
        assert!(message.contains(said), "{mode}: {message}");
        assert!(
            elapsed < Duration::from_secs(18),
            "{mode}: took {elapsed:?}"
        );
    }
}

/// Two listeners: the first redirects every request (307) to the second,
/// another origin, which writes the headers it received to `seen.txt`.
const REDIRECTING_SERVER: &str = r#"
const http = require('http');
const fs = require('fs');
const path = require('path');
const seen = path.join(__dirname, 'seen.txt');
const other = http.createServer((req, res) => {
  fs.appendFileSync(seen, JSON.stringify(req.headers) + '\n');
  res.writeHead(500); res.end();
});
other.listen(0, '127.0.0.1', () => {
  const to = 'http://127.0.0.1:' + other.address().port + '/mcp';
  const first = http.createServer((req, res) => { res.writeHead(307, {location: to}); res.end(); });
  first.listen(0, '127.0.0.1', () => console.log(first.address().port));
});
"#;

#[test]
fn credentials_never_follow_a_redirect_to_another_origin() {
    let d = scratch("redirect");
    let server = NodeServer::start(&d, REDIRECTING_SERVER, &[]);
    write(
        &d,
        "suite/t.yaml",
        &format!(
            "name: redirected\nserver:\n  transport: http\n  url: http://127.0.0.1:{}/mcp\n  headers:\n    X-API-Key: sk-do-not-leak\n    Authorization: Bearer do-not-leak\nassert:\n  tool: echo\n  expect: {{not_error: true}}\n",
            server.port
        ),
    );
    let (code, out, err) = run_mcpcheck(&["run", "--suite", d.join("suite").to_str().unwrap()]);
    drop(server);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(out.contains("redirected to another origin"), "{out}");
    let seen = std::fs::read_to_string(d.join("seen.txt")).unwrap_or_default();
    assert!(
        !seen.contains("do-not-leak"),
        "the other origin got: {seen}"
    );
}

#[test]
fn docker_gets_secrets_through_its_environment_not_its_command_line() {
    let d = scratch("docker");
    // A stand-in `docker` first on PATH: it records its arguments and
    // environment, then fails like a missing image would.
    let bin = d.join("bin");
    write(
        &bin,
        "docker",
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/../args.txt\"\nenv > \"$(dirname \"$0\")/../env.txt\"\nexit 1\n",
    );
    std::process::Command::new("chmod")
        .args(["+x", bin.join("docker").to_str().unwrap()])
        .status()
        .expect("chmod");
    write(
        &d,
        "suite/t.yaml",
        "name: in docker\nserver:\n  docker: example/server:1\n  command: server\n  env:\n    API_TOKEN: sk-in-env-only\nassert:\n  tool: echo\n  expect: {not_error: true}\n",
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = cli_support::mcpcheck()
        .args(["run", "--suite", d.join("suite").to_str().unwrap()])
        .env("PATH", path)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let args = std::fs::read_to_string(d.join("args.txt")).expect("docker ran");
    assert!(args.contains("-e\nAPI_TOKEN\n"), "{args}");
    assert!(
        !args.contains("sk-in-env-only"),
        "on the command line: {args}"
    );
    let env = std::fs::read_to_string(d.join("env.txt")).expect("docker's environment");
    assert!(env.contains("API_TOKEN=sk-in-env-only"), "{env}");
}

#[test]
fn pipes_and_devices_named_by_file_checks_or_audit_logs_are_errors_not_hangs() {
    let d = scratch("special-files");
    let fifo = d.join("pipe");
    std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    let server = format!(
        "server:\n  command: {}\n  args: [serve]\n",
        cli_support::BIN
    );
    for (name, path) in [("fifo", fifo.to_str().unwrap()), ("zero", "/dev/zero")] {
        write(
            &d,
            &format!("suite/{name}.yaml"),
            &format!(
                "name: file {name}\ntimeout: 20s\n{server}assert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    file_contains: {{\"{path}\": hi}}\n"
            ),
        );
        write(
            &d,
            &format!("suite/trace_{name}.yaml"),
            &format!(
                "name: trace {name}\ntimeout: 20s\ntrajectory:\n  - type: presence\n    tools: [echo]\naudit_log: \"{path}\"\n"
            ),
        );
    }
    let started = Instant::now();
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        d.join("suite").to_str().unwrap(),
        "--json",
    ]);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("results");
    for name in ["file fifo", "file zero", "trace fifo", "trace zero"] {
        let (status, message) = status_and_message(&v, name);
        assert_eq!(status, "error", "{name}: {message}");
        assert!(
            message.contains("is not a regular file"),
            "{name}: {message}"
        );
    }
}

#[test]
fn sigterm_and_sighup_leave_no_server_and_no_fixture_copy_behind() {
    for (signal, code) in [("TERM", 143), ("HUP", 129), ("INT", 130)] {
        let d = scratch(&format!("signal-{signal}"));
        let tmp = d.join("tmp");
        std::fs::create_dir_all(&tmp).expect("tmp");
        write(&d, "fixture/data.txt", "original\n");
        // The audit log's path marks this test's server processes.
        let marker = d.join("audit.jsonl");
        write(
            &d,
            "suite/slow.yaml",
            &format!(
                "name: slow\ntimeout: 60s\nserver:\n  command: {}\n  args: [serve, --audit-log, \"{}\"]\nassert:\n  tool: slow\n  args: {{ms: 30000}}\n  expect: {{not_error: true}}\n",
                cli_support::BIN,
                marker.display()
            ),
        );
        let child = cli_support::mcpcheck()
            .args([
                "run",
                "--suite",
                d.join("suite").to_str().unwrap(),
                "--fixture",
                d.join("fixture").to_str().unwrap(),
            ])
            .env("TMPDIR", &tmp)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start mcpcheck");
        let alive = |pattern: &str| {
            std::process::Command::new("pgrep")
                .args(["-f", pattern])
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let marker_text = marker.display().to_string();
        let started = Instant::now();
        while !alive(&marker_text) && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(alive(&marker_text), "{signal}: the server did not start");
        std::thread::sleep(Duration::from_millis(300));
        std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill");
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(code), "{signal}");
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !alive(&marker_text),
            "{signal}: the server outlived the run"
        );
        let left: Vec<_> = std::fs::read_dir(&tmp)
            .expect("tmp")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "{signal}: left in TMPDIR: {left:?}");
        assert_eq!(
            std::fs::read_to_string(d.join("fixture/data.txt")).unwrap_or_default(),
            "original\n"
        );
    }
}

/// A server that detaches a helper into a session of its own (`setsid`)
/// does not leave it behind: the helper carries the server's tag in its
/// environment and is killed with the server, at the end of the test and on
/// SIGTERM alike.
#[test]
fn a_server_that_daemonizes_a_helper_leaves_nothing_behind() {
    for (case, signal) in [("ends", None), ("sigterm", Some("TERM"))] {
        let d = scratch(&format!("daemon-{case}"));
        let seconds = 3000 + std::process::id() % 997 + u32::from(signal.is_some());
        let marker = format!("sleep {seconds}");
        write(
            &d,
            "server.sh",
            &format!(
                "setsid sh -c '{marker}' </dev/null >/dev/null 2>&1 &\nexec {} serve\n",
                cli_support::BIN
            ),
        );
        let (tool, args) = if signal.is_some() {
            ("slow", "{ms: 30000}")
        } else {
            ("echo", "{message: hi}")
        };
        write(
            &d,
            "suite/daemon.yaml",
            &format!(
                "name: daemon\ntimeout: 60s\nserver:\n  command: sh\n  args: [{}]\nassert:\n  tool: {tool}\n  args: {args}\n  expect: {{not_error: true}}\n",
                d.join("server.sh").display()
            ),
        );
        let alive = || {
            std::process::Command::new("pgrep")
                .args(["-f", &format!("^{marker}$")])
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let child = cli_support::mcpcheck()
            .args(["run", "--suite", d.join("suite").to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start mcpcheck");
        if let Some(signal) = signal {
            let started = Instant::now();
            while !alive() && started.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(alive(), "{case}: the helper did not start");
            std::thread::sleep(Duration::from_millis(300));
            std::process::Command::new("kill")
                .args([&format!("-{signal}"), &child.id().to_string()])
                .status()
                .expect("kill");
        }
        let out = child.wait_with_output().expect("wait");
        if signal.is_none() {
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        std::thread::sleep(Duration::from_millis(200));
        let left = alive();
        if left {
            let _ = std::process::Command::new("pkill")
                .args(["-f", &format!("^{marker}$")])
                .status();
        }
        assert!(!left, "{case}: the detached helper outlived the run");
    }
}

/// Many lines of garbage do not make the failure message grow with them:
/// the first few are quoted and the rest counted.
#[test]
fn garbage_lines_are_quoted_a_few_at_a_time() {
    let garbage =
        r#"i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo "garbage line $i"; done; exit 3"#;
    let (_, v, _) = run_against("garbage-lines", &server(garbage));
    let (status, message) = status_and_message(&v, "hostile");
    assert_eq!(status, "error", "{message}");
    assert!(message.contains("garbage line 1"), "{message}");
    assert!(!message.contains("garbage line 6"), "{message}");
    assert!(message.contains("… and 295 more problems"), "{message}");
    assert!(message.contains("exited with status 3"), "{message}");
    assert!(message.len() < 2_000, "{} bytes: {message}", message.len());
}
