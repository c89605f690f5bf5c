//! `mcpcheck replay`: a suite run against `mcpcheck serve` with `--capture`,
//! then against `replay` of those captures, over stdio and over Streamable
//! HTTP, gives the same verdicts — for a healthy server and for one with a
//! fault. A request nothing recorded matches gets an error naming the
//! closest recorded one; unusable captures are named.

mod cli_support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};

use cli_support::{BIN, mcpcheck, run_mcpcheck, scratch, write};
use serde_json::{Value, json};

fn examples() -> String {
    format!("{}/../examples/serve", env!("CARGO_MANIFEST_DIR"))
}

/// (name, status, the status of each check) of every test of a results
/// document.
fn verdicts(results: &str) -> Vec<(String, String, Vec<String>)> {
    let doc: Value = serde_json::from_str(results).unwrap_or_else(|e| panic!("{e}: {results}"));
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let checks = t["checks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| format!("{}: {}", c["name"], c["status"]))
                .collect();
            (
                t["name"].as_str().unwrap().to_string(),
                t["status"].as_str().unwrap().to_string(),
                checks,
            )
        })
        .collect()
}

/// `mcpcheck replay ARGS --http 127.0.0.1:0`, killed when dropped.
struct HttpReplay {
    child: Child,
    url: String,
}

impl Drop for HttpReplay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_replay(args: &[&str]) -> HttpReplay {
    let mut child = mcpcheck()
        .arg("replay")
        .args(args)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    HttpReplay { child, url }
}

/// Records the example suite against `serve ARGS`, then replays it over
/// stdio and HTTP; the three runs must agree test for test.
fn record_then_replay(name: &str, serve_args: &str) {
    let captures = scratch(name);
    let dir = captures.to_str().unwrap();
    let suite = examples();
    let server = format!("{BIN} serve {serve_args}");
    let (_, recorded, err) = run_mcpcheck(&[
        "run",
        "--suite",
        &suite,
        "--server",
        &server,
        "--capture",
        dir,
        "--json",
    ]);
    let recorded = verdicts(&recorded);
    assert!(!recorded.is_empty(), "{err}");

    let replay = format!("{BIN} replay {dir} --stdio");
    let (_, replayed, err) =
        run_mcpcheck(&["run", "--suite", &suite, "--server", &replay, "--json"]);
    assert_eq!(verdicts(&replayed), recorded, "over stdio: {err}");

    // Over HTTP, every server of the suite replaced by the replay's URL.
    let http = http_replay(&[dir]);
    let (_, table, err) = run_mcpcheck(&[
        "matrix",
        "--suite",
        &suite,
        "--url",
        &format!("replay={}", http.url),
        "--format",
        "json",
    ]);
    let table: Value = serde_json::from_str(&table).unwrap_or_else(|e| panic!("{e}: {table}{err}"));
    let over_http: Vec<(String, String)> = table["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["results"][0]["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = recorded.into_iter().map(|(n, s, _)| (n, s)).collect();
    assert_eq!(over_http, expected, "over HTTP");
}

#[test]
fn a_healthy_server_replays_with_the_same_verdicts() {
    record_then_replay("replay-healthy", "");
}

#[test]
fn a_faulty_server_replays_with_the_same_verdicts() {
    // Every tools/call answer is preceded by a line that is not JSON-RPC: the
    // tool tests end as errors, the others pass, in the replay as well.
    record_then_replay("replay-garbage", "--fault garbage-stdout");
}

/// Starts `mcpcheck replay DIR` on stdio and returns it with its stdout.
fn stdio_replay(dir: &Path, extra: &[&str]) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = mcpcheck()
        .arg("replay")
        .arg(dir)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

fn exchange(
    child: &mut Child,
    out: &mut BufReader<std::process::ChildStdout>,
    message: &Value,
) -> Value {
    let stdin = child.stdin.as_mut().unwrap();
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

#[test]
fn an_unknown_request_gets_an_error_naming_the_closest_recorded_one() {
    let captures = scratch("replay-unknown");
    let suite = examples();
    let (code, _, err) = run_mcpcheck(&[
        "run",
        "--suite",
        &format!("{suite}/echo.yaml"),
        "--server",
        &format!("{BIN} serve"),
        "--capture",
        captures.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (mut child, mut out) = stdio_replay(&captures, &[]);
    let hello = exchange(
        &mut child,
        &mut out,
        &json!({"jsonrpc": "2.0", "id": "a", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "another client", "version": "9"}}}),
    );
    assert_eq!(hello["id"], "a");
    assert_eq!(hello["result"]["serverInfo"]["name"], "mcpcheck-serve");

    let known = exchange(
        &mut child,
        &mut out,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"message": "hello, mcpcheck"}}}),
    );
    assert_eq!(known["id"], 2);
    assert_eq!(known["result"]["content"][0]["text"], "hello, mcpcheck");

    let unknown = exchange(
        &mut child,
        &mut out,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"message": "something else"}}}),
    );
    assert_eq!(unknown["id"], 3);
    assert_eq!(unknown["error"]["code"], -32602);
    let message = unknown["error"]["message"].as_str().unwrap();
    assert!(message.starts_with(r#"no recorded request matches {"method":"tools/call","params":{"arguments":{"message":"something else"},"name":"echo"}} (matching: exact); the closest recorded request is {"method":"tools/call","params":{"_meta":{"progressToken":0},"arguments":{"message":"hello, mcpcheck"},"name":"echo"}} in "#), "{message}");
    assert!(
        message.ends_with(
            "echo_returns_its_message.json, exchange 2, which differs at /params/arguments/message"
        ),
        "{message}"
    );
    assert_eq!(unknown["error"]["data"]["closest"]["exchange"], 2);

    drop(child.stdin.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("mcpcheck replay: no recorded request matches"),
        "{stderr}"
    );

    // With --match name, the arguments do not matter.
    let (mut child, mut out) = stdio_replay(&captures, &["--match", "name"]);
    let answer = exchange(
        &mut child,
        &mut out,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"message": "something else"}}}),
    );
    assert_eq!(answer["result"]["content"][0]["text"], "hello, mcpcheck");
    drop(child.stdin.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn unusable_captures_are_named_with_what_to_do() {
    let d = scratch("replay-bad");
    let not_capture = write(&d, "package.json", r#"{"name": "x", "version": "1"}"#);
    let (code, _, err) = run_mcpcheck(&["replay", not_capture.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("package.json: (document)"), "{err}");
    assert!(err.contains("`mcpcheck run --capture DIR`"), "{err}");

    let broken = write(&d, "broken.json", "{\"exchanges\": [");
    let (code, _, err) = run_mcpcheck(&["replay", broken.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("broken.json:"), "{err}");

    let (code, _, err) = run_mcpcheck(&["replay", d.join("missing.json").to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot read") && err.contains("missing.json"),
        "{err}"
    );

    let empty = scratch("replay-empty");
    let (code, _, err) = run_mcpcheck(&["replay", empty.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no .json capture files"), "{err}");

    let (code, _, err) =
        run_mcpcheck(&["replay", not_capture.to_str().unwrap(), "--match", "fuzzy"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("exact, ignore-ids, name"), "{err}");
}

#[tokio::test]
async fn http_sessions_follow_streamable_http() {
    let captures = scratch("replay-http-sessions");
    let suite = examples();
    let (code, _, err) = run_mcpcheck(&[
        "run",
        "--suite",
        &format!("{suite}/progress.yaml"),
        "--server",
        &format!("{BIN} serve"),
        "--capture",
        captures.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let replay = http_replay(&[captures.to_str().unwrap()]);
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<&str>| {
        let mut r = http
            .post(&replay.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r.send()
    };
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "progress", "arguments": {"delay_ms": 5, "steps": 4}, "_meta": {"progressToken": "live"}}});
    let without = post(call.clone(), None).await.unwrap();
    assert_eq!(without.status(), 400, "a request outside a session");
    let unknown = post(call.clone(), Some("nope")).await.unwrap();
    assert_eq!(unknown.status(), 404);

    let hello = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "mcpcheck", "version": "0.1.0"}}}),
        None,
    )
    .await
    .unwrap();
    assert_eq!(hello.status(), 200);
    let session = hello.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    let body: Value = hello.json().await.unwrap();
    assert_eq!(body["result"]["serverInfo"]["name"], "mcpcheck-serve");
    let note = post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(&session),
    )
    .await
    .unwrap();
    assert_eq!(note.status(), 202);

    // Progress first, then the response, as one SSE stream with the
    // client's token.
    let streamed = post(call, Some(&session)).await.unwrap();
    assert_eq!(streamed.headers()["content-type"], "text/event-stream");
    let text = streamed.text().await.unwrap();
    let messages: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect();
    assert_eq!(messages.len(), 5, "{text}");
    assert!(
        messages[..4]
            .iter()
            .all(|m| m["params"]["progressToken"] == "live"),
        "{text}"
    );
    assert_eq!(messages[4]["id"], 2);
    assert_eq!(
        messages[4]["result"]["content"][0]["text"],
        "completed 4 steps"
    );

    let deleted = http
        .delete(&replay.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let again = http
        .delete(&replay.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404);
}

#[test]
fn captures_recorded_by_mcp_assert_answer_a_client_with_other_fixture_copies() {
    let captures = format!(
        "{}/tests/data/mcp-assert-captures",
        env!("CARGO_MANIFEST_DIR")
    );
    let d = scratch("replay-mcp-assert");
    let fixture = d.join("fixture");
    write(&fixture, "hello.txt", "Hello, world\n");
    let server =
        "server:\n  command: node\n  args: [server-filesystem/dist/index.js, \"{{fixture}}\"]\n";
    for (file, test) in [
        (
            "read.yaml",
            "name: read file\nassert:\n  tool: read_text_file\n  args: {path: '{{fixture}}/hello.txt'}\n  expect:\n    not_error: true\n    equals: Hello, world\n",
        ),
        (
            "list.yaml",
            "name: list directory\nassert:\n  tool: list_directory\n  args: {path: '{{fixture}}'}\n  expect:\n    contains: ['[FILE] hello.txt', '[DIR] docs']\n",
        ),
        (
            "outside.yaml",
            "name: outside is denied\nassert:\n  tool: read_text_file\n  args: {path: /etc/hostname}\n  expect:\n    is_error: true\n    contains: [Access denied]\n",
        ),
    ] {
        write(&d.join("suite"), file, &format!("{server}{test}"));
    }
    let (code, json, err) = run_mcpcheck(&[
        "run",
        "--suite",
        d.join("suite").to_str().unwrap(),
        "--server",
        &format!("{BIN} replay {captures}"),
        "--fixture",
        fixture.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    let passed: Vec<String> = verdicts(&json)
        .into_iter()
        .filter(|(_, status, _)| status == "pass")
        .map(|(name, _, _)| name)
        .collect();
    assert_eq!(
        passed,
        ["list directory", "outside is denied", "read file"],
        "{json}"
    );

    // Only the suite's server used `{{fixture}}`, and --server replaced it:
    // no fixture is needed.
    let (code, json, err) = run_mcpcheck(&[
        "run",
        "--suite",
        d.join("suite/outside.yaml").to_str().unwrap(),
        "--server",
        &format!("{BIN} replay {captures}"),
        "--json",
    ]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert_eq!(verdicts(&json)[0].1, "pass", "{json}");
}

/// A stdio server in sh whose one tool answers with two of its environment
/// values, a marker and a token.
const ENV_SERVER: &str = r#"while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue ;; esac
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"env","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"{\\"marker\\": \\"%s\\", \\"token\\": \\"%s\\"}"}]}}\n' "$id" "$ACCEPTANCE_MARKER" "$API_TOKEN" ;;
    *)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id" ;;
  esac
done
"#;

#[test]
fn a_capture_hides_secrets_but_not_a_marker_so_the_replay_gives_the_live_verdict() {
    let d = scratch("replay-marker");
    write(&d, "server.sh", ENV_SERVER);
    let suite = write(
        &d,
        "marker.yaml",
        &format!(
            "name: the marker comes back\nserver:\n  command: sh\n  args: [{}]\n  env:\n    ACCEPTANCE_MARKER: mcpcheck-42\n    API_TOKEN: tok-secret-1\nassert:\n  tool: env\n  expect:\n    json_path:\n      $.marker: mcpcheck-42\n",
            d.join("server.sh").display()
        ),
    );
    let suite = suite.to_str().unwrap();
    let recorded = d.join("recorded");
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        suite,
        "--capture",
        recorded.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let capture = std::fs::read_to_string(recorded.join("the_marker_comes_back.json")).unwrap();
    assert!(
        capture.contains("mcpcheck-42"),
        "a marker is not a secret: {capture}"
    );
    assert!(!capture.contains("tok-secret-1"), "{capture}");
    assert!(capture.contains(r#"\"token\": \"***\""#), "{capture}");
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        suite,
        "--server",
        &format!("{BIN} replay {}", recorded.display()),
    ]);
    assert_eq!(
        code,
        Some(0),
        "the replay gives the live verdict: {out}\n{err}"
    );
}
