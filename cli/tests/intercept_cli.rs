//! `mcpcheck intercept` with a real client as the agent: the official
//! TypeScript SDK client (installed with the node servers under
//! `tests/node-servers/node_modules`, never downloaded at test time) talks
//! to `mcpcheck serve` directly and through `intercept`, on stdio and on
//! Streamable HTTP. It must get the same results both ways, and the
//! capture `intercept` writes must give the same invariant findings as a
//! capture `mcpcheck run --capture` writes of the same calls.

mod cli_support;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{BIN, http_serve, mcpcheck, outcome, run_mcpcheck, scratch, write};
use serde_json::Value;

/// The SDK's directory, or `None` (said on stderr) when it is not installed
/// and the project's test script does not require it.
fn sdk() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/node-servers/node_modules/@modelcontextprotocol/sdk");
    if dir.join("dist/esm/client/index.js").exists() {
        return Some(dir.canonicalize().unwrap());
    }
    assert!(
        std::env::var("MCPCHECK_REQUIRE_NODE_SERVERS").is_err(),
        "the TypeScript SDK is not installed: run `npm ci --prefix tests/node-servers`"
    );
    eprintln!(
        "@modelcontextprotocol/sdk not installed (npm ci --prefix tests/node-servers); not run"
    );
    None
}

/// A client session of the SDK. `full`: tools, progress, sampling, roots,
/// a resource, a prompt and ping; otherwise one `echo` call (with a short
/// timeout, for a faulty server). Prints the results as JSON.
const CLIENT: &str = r#"
import { pathToFileURL } from "node:url";
const [sdk, mode, transportKind, target, ...rest] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(`${sdk}/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { CreateMessageRequestSchema, ListRootsRequestSchema } = await load("types.js");

const client = new Client({ name: "sdk-agent", version: "1.0.0" },
  { capabilities: { sampling: {}, roots: { listChanged: false } } });
client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
  role: "assistant", model: "fixed",
  content: { type: "text", text: `sampled: ${req.params.messages[0].content.text}` },
}));
client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: "file:///tmp/agent-root", name: "agent-root" }],
}));
const transport = transportKind === "stdio"
  ? new StdioClientTransport({ command: target, args: rest, stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);
const out = {};
if (mode === "full") {
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  out.echo = await client.callTool({ name: "echo", arguments: { message: "through" } });
  const progress = [];
  out.progress = await client.callTool({ name: "progress", arguments: { steps: 3, delay_ms: 5 } },
    undefined, { onprogress: (p) => progress.push(p.progress) });
  out.progress_seen = progress;
  out.sample = await client.callTool({ name: "sample", arguments: { prompt: "hi" } });
  out.roots = await client.callTool({ name: "roots", arguments: {} });
  out.resource = await client.readResource({ uri: "mcpcheck://static/text" });
  out.prompt = await client.getPrompt({ name: "greeting", arguments: { name: "Ada" } });
  out.ping = await client.ping();
} else {
  try {
    out.echo = await client.callTool({ name: "echo", arguments: { message: "through" } },
      undefined, { timeout: 1500 });
  } catch (e) {
    out.echo_error = String(e.message).replace(/\d+ms/, "N ms");
  }
}
await client.close();
console.log(JSON.stringify(out));
"#;

/// Runs the client script; returns its stdout as JSON and its stderr.
fn client(dir: &Path, sdk: &Path, mode: &str, transport: &str, target: &[&str]) -> (Value, String) {
    let script = write(dir, "client.mjs", CLIENT);
    let o = Command::new("node")
        .arg(&script)
        .arg(sdk)
        .args([mode, transport])
        .args(target)
        .env("NO_COLOR", "1")
        .output()
        .expect("start node");
    let (code, stdout, stderr) = outcome(&o);
    assert_eq!(code, Some(0), "the client failed:\n{stdout}\n{stderr}");
    let v =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    (v, stderr)
}

/// Holds that the client got the same results through the proxy as
/// without it. The progress it saw is compared apart: the SDK client
/// settles a request before it handles a progress notification that
/// arrived in the same read, so the last one can be lost with or without
/// a proxy; the ones it saw must be among the server's three.
fn assert_same_results(mut proxied: Value, mut direct: Value, context: &str) {
    for v in [&mut proxied, &mut direct] {
        if let Some(seen) = v.as_object_mut().and_then(|o| o.remove("progress_seen")) {
            let seen: Vec<u64> = serde_json::from_value(seen).unwrap();
            assert!(
                !seen.is_empty() && seen.iter().all(|p| (1..=3).contains(p)),
                "{seen:?}"
            );
        }
    }
    assert_eq!(proxied, direct, "{context}");
}

/// The INV codes of `mcpcheck invariants` on a capture file.
fn findings(capture: &Path) -> BTreeSet<String> {
    let (_, out, err) = run_mcpcheck(&[
        "invariants",
        "--capture",
        capture.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["findings"].as_array().unwrap().iter())
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

/// The INV codes of the capture `mcpcheck run --capture` writes of one
/// `echo` call to `mcpcheck serve SERVE_ARGS`.
fn run_findings(dir: &Path, serve_args: &str) -> BTreeSet<String> {
    let args: Vec<String> = std::iter::once("serve".to_string())
        .chain(serve_args.split_whitespace().map(str::to_string))
        .collect();
    let server = format!("{{command: {BIN:?}, args: {args:?}}}");
    run_capture_findings(dir, &server)
}

/// The INV codes of the capture `mcpcheck run --capture` writes of one
/// `echo` call to the suite server `server` (YAML flow mapping).
fn run_capture_findings(dir: &Path, server: &str) -> BTreeSet<String> {
    let suite = write(
        dir,
        "suite/echo.yaml",
        &format!(
            "name: echo\nserver: {server}\nassert:\n  tool: echo\n  args: {{message: through}}\n  expect:\n    contains: [through]\n"
        ),
    );
    let captures = dir.join("run-captures");
    let (_, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--capture",
        captures.to_str().unwrap(),
        "--timeout",
        "3s",
    ]);
    let file = captures.join("echo.json");
    assert!(file.exists(), "run wrote no capture:\n{out}\n{err}");
    findings(&file)
}

/// The report `intercept --format json` printed on stderr (after any lines
/// the server or the client wrote there).
fn report_in(stderr: &str) -> Value {
    let start = stderr
        .find("{\n  \"version\": 1,\n  \"passed\"")
        .unwrap_or_else(|| panic!("no report in:\n{stderr}"));
    let mut de = serde_json::Deserializer::from_str(&stderr[start..]).into_iter::<Value>();
    de.next().unwrap().unwrap()
}

#[test]
fn the_sdk_client_gets_the_same_results_through_intercept_on_stdio() {
    let Some(sdk) = sdk() else { return };
    let dir = scratch("intercept-stdio");
    let capture = dir.join("c.json");
    let trace = dir.join("t.jsonl");
    let trajectory = write(
        &dir,
        "trajectory.yaml",
        "trajectory:\n  - type: order\n    tools: [echo, progress, sample]\n  - type: args_contain\n    tool: echo\n    args: {message: through}\n  - type: absence\n    tools: [fail]\n",
    );
    let (direct, _) = client(&dir, &sdk, "full", "stdio", &[BIN, "serve"]);
    let (proxied, stderr) = client(
        &dir,
        &sdk,
        "full",
        "stdio",
        &[
            BIN,
            "intercept",
            "--capture",
            capture.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
            "--trajectory",
            trajectory.to_str().unwrap(),
            "--format",
            "json",
            "--",
            BIN,
            "serve",
        ],
    );
    assert_same_results(proxied, direct.clone(), &stderr);
    assert_eq!(
        direct["sample"]["content"][0]["text"], "sampled: hi",
        "the server's request reached the client and its answer came back"
    );

    let report = report_in(&stderr);
    assert_eq!(report["passed"], true, "{stderr}");
    assert_eq!(report["trajectory"]["status"], "pass", "{stderr}");
    assert_eq!(report["tool_calls"], 4);
    let ended = report["ended"].as_str().unwrap();
    assert!(
        ended.starts_with("the client closed the connection"),
        "{ended}"
    );

    // The capture holds every message in place: the server's requests in
    // the exchange that caused them, progress with its request.
    let text = std::fs::read_to_string(&capture).unwrap();
    let c: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(c["transport"], "stdio");
    let methods = cli_support::request_methods(&c);
    assert_eq!(methods[..2], ["initialize", "notifications/initialized"]);
    let exchanges = c["exchanges"].as_array().unwrap();
    let call = |tool: &str| {
        exchanges
            .iter()
            .find(|x| x["request"]["params"]["name"] == tool)
            .unwrap_or_else(|| panic!("no {tool} call in {text}"))
    };
    assert_eq!(
        call("progress")["notifications"].as_array().unwrap().len(),
        3
    );
    assert_eq!(
        call("sample")["server_requests"][0]["request"]["method"],
        "sampling/createMessage"
    );
    assert_eq!(
        call("sample")["server_requests"][0]["response"]["result"]["content"]["text"],
        "sampled: hi"
    );
    assert_eq!(
        call("roots")["server_requests"][0]["request"]["method"],
        "roots/list"
    );
    assert!(findings(&capture).is_empty());

    let lines: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tools: Vec<&str> = lines.iter().map(|l| l["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["echo", "progress", "sample", "roots"]);
    assert_eq!(lines[0]["args"]["message"], "through");
    assert_eq!(lines[0]["is_error"], false);
    // The trace is what `check --trace` reads, with the same verdict.
    let (code, out, _) = run_mcpcheck(&[
        "check",
        "--trace",
        trace.to_str().unwrap(),
        "--trajectory",
        trajectory.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
}

/// `intercept` run by hand on stdio, the client's lines given at once.
fn intercept_stdio(args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut child = mcpcheck()
        .arg("intercept")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
    drop(stdin);
    outcome(&child.wait_with_output().unwrap())
}

/// The rule each fault of `mcpcheck serve` breaks.
const FAULTS: [(&str, &str); 2] = [("wrong-id", "INV-009"), ("garbage-stdout", "INV-021")];

#[test]
fn a_faulty_server_gets_its_findings_through_intercept() {
    let Some(sdk) = sdk() else { return };
    for (fault, rule) in FAULTS {
        let dir = scratch(&format!("intercept-sdk-{fault}"));
        let capture = dir.join("c.json");
        let (direct, _) = client(
            &dir,
            &sdk,
            "one",
            "stdio",
            &[BIN, "serve", "--fault", fault],
        );
        let (proxied, stderr) = client(
            &dir,
            &sdk,
            "one",
            "stdio",
            &[
                BIN,
                "intercept",
                "--capture",
                capture.to_str().unwrap(),
                "--",
                BIN,
                "serve",
                "--fault",
                fault,
            ],
        );
        assert_eq!(proxied, direct, "{fault}: {stderr}");
        assert!(stderr.contains("\nFAIL\n"), "{fault}: {stderr}");
        assert!(findings(&capture).contains(rule), "{fault}: {stderr}");
    }
}

/// The messages a client sent in a capture, one per line, in order.
fn client_messages(capture: &Path) -> Vec<Value> {
    let c: Value = serde_json::from_str(&std::fs::read_to_string(capture).unwrap()).unwrap();
    c["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["request"].clone())
        .collect()
}

/// Sends `messages` through `intercept` to `mcpcheck serve SERVE_ARGS` as a
/// client would: each request waits for its answer (at most a second).
fn drive(capture: &Path, messages: &[Value], serve_args: &[&str]) -> String {
    let mut child = mcpcheck()
        .arg("intercept")
        .arg("--capture")
        .arg(capture)
        .args(["--", BIN, "serve"])
        .args(serve_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line)
                && tx.send(v).is_err()
            {
                return;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    for m in messages {
        std::io::Write::write_all(&mut stdin, format!("{m}\n").as_bytes()).unwrap();
        let Some(id) = m.get("id") else { continue };
        let deadline = Instant::now() + Duration::from_secs(1);
        while let Ok(answer) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            if answer.get("id") == Some(id) {
                break;
            }
        }
    }
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    err
}

#[test]
fn the_same_calls_give_the_findings_run_gets() {
    for (fault, rule) in [("", ""), FAULTS[0], FAULTS[1]] {
        let dir = scratch(&format!("intercept-same-{fault}"));
        let serve_args: Vec<&str> = if fault.is_empty() {
            vec![]
        } else {
            vec!["--fault", fault]
        };
        let from_run = run_findings(&dir, &serve_args.join(" "));
        let run_capture = dir.join("run-captures/echo.json");
        let capture = dir.join("c.json");
        let stderr = drive(&capture, &client_messages(&run_capture), &serve_args);
        let got = findings(&capture);
        assert_eq!(got, from_run, "{fault}: {stderr}");
        if fault.is_empty() {
            assert!(got.is_empty(), "{stderr}");
        } else {
            assert!(got.contains(rule), "{fault}: {stderr}");
        }
    }
}

#[test]
fn lines_pass_byte_for_byte_and_nothing_else_reaches_stdout() {
    let dir = scratch("intercept-bytes");
    let capture = dir.join("c.json");
    // A client that writes CRLF, a blank line and a line that is not JSON;
    // the server (`cat`) echoes every byte back.
    let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\nnot json\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}";
    let (code, stdout, stderr) = intercept_stdio(
        &["--capture", capture.to_str().unwrap(), "--", "cat"],
        input,
    );
    assert_eq!(stdout, input, "{stderr}");
    assert_eq!(code, Some(1), "the capture has findings: {stderr}");
    assert!(
        stderr.contains("the client closed the connection; the server exited with status 0"),
        "{stderr}"
    );
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&capture).unwrap()).unwrap();
    assert_eq!(c["exchanges"][0]["request"]["method"], "ping");
    assert_eq!(c["exchanges"][0]["response"]["method"], Value::Null);

    // Without `--` (the MCP Inspector CLI drops it), the server's own
    // options stay its own.
    let (_, stdout, stderr) = intercept_stdio(
        &[
            "--capture",
            capture.to_str().unwrap(),
            "sh",
            "-c",
            "cat",
            "--format",
        ],
        "line\n",
    );
    assert_eq!(stdout, "line\n", "{stderr}");
}

#[test]
fn the_capture_is_written_when_the_server_dies_and_usage_errors_are_2() {
    let dir = scratch("intercept-crash");
    let capture = dir.join("c.json");
    let input = concat!(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"x\"}}}\n",
    );
    let (code, _, stderr) = intercept_stdio(
        &[
            "--capture",
            capture.to_str().unwrap(),
            "--",
            BIN,
            "serve",
            "--fault",
            "crash-on-call",
        ],
        input,
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("exited with status 70"), "{stderr}");
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&capture).unwrap()).unwrap();
    assert_eq!(cli_support::request_methods(&c).len(), 3);
    assert!(c["exchanges"][2]["response"].is_null());

    let bad = write(&dir, "bad.yaml", "trajectory:\n  - type: sometimes\n");
    for args in [
        vec!["--capture", "c.json"],
        vec![
            "--capture",
            "c.json",
            "--trajectory",
            bad.to_str().unwrap(),
            "--",
            "cat",
        ],
        vec![
            "--capture",
            "c.json",
            "--http",
            "0.0.0.0:0",
            "--url",
            "http://127.0.0.1:9/mcp",
        ],
        vec!["--capture", "c.json", "--", "no-such-command-for-intercept"],
    ] {
        let (code, stdout, stderr) = intercept_stdio(&args, "");
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(
            stderr.starts_with("mcpcheck intercept: ") || stderr.contains("error"),
            "{args:?}: {stderr}"
        );
    }
}

/// `intercept --http` in front of `url`; its own URL from its first line.
struct HttpIntercept {
    child: std::process::Child,
    url: String,
}

impl HttpIntercept {
    fn start(url: &str, capture: &Path, extra: &[&str]) -> Self {
        let mut child = mcpcheck()
            .args([
                "intercept",
                "--http",
                "127.0.0.1:0",
                "--url",
                url,
                "--format",
                "json",
            ])
            .arg("--capture")
            .arg(capture)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split("listening on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .to_string();
        HttpIntercept { child, url }
    }

    /// SIGTERM, then the exit code, stdout and the rest of stderr.
    #[cfg(unix)]
    fn stop(mut self) -> (Option<i32>, String, String) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() {
            assert!(
                Instant::now() < deadline,
                "intercept did not stop on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let (mut out, mut err) = (String::new(), String::new());
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        (self.child.wait().unwrap().code(), out, err)
    }
}

#[cfg(unix)]
#[test]
fn the_sdk_client_gets_the_same_results_through_intercept_over_http() {
    let Some(sdk) = sdk() else { return };
    let dir = scratch("intercept-http");
    let capture = dir.join("c.json");
    let trace = dir.join("t.jsonl");
    let server = http_serve(&[]);
    let (direct, _) = client(&dir, &sdk, "full", "http", &[&server.url]);
    let proxy = HttpIntercept::start(&server.url, &capture, &["--trace", trace.to_str().unwrap()]);
    let (proxied, client_err) = client(&dir, &sdk, "full", "http", &[&proxy.url]);
    let (code, stdout, stderr) = proxy.stop();
    assert_same_results(proxied, direct.clone(), &format!("{client_err}\n{stderr}"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.is_empty());
    let report = report_in(&stderr);
    assert_eq!(report["passed"], true);
    assert_eq!(report["tool_calls"], 4);
    assert_eq!(report["sessions"], 1);

    let text = std::fs::read_to_string(&capture).unwrap();
    let c: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(c["transport"], "http");
    let methods = cli_support::request_methods(&c);
    assert_eq!(
        methods[..2],
        ["initialize", "notifications/initialized"],
        "{text}"
    );
    let exchanges = c["exchanges"].as_array().unwrap();
    let progress = exchanges
        .iter()
        .find(|x| x["request"]["params"]["name"] == "progress")
        .unwrap();
    assert_eq!(
        progress["notifications"].as_array().unwrap().len(),
        3,
        "{text}"
    );
    let sample = exchanges
        .iter()
        .find(|x| x["request"]["params"]["name"] == "sample")
        .unwrap();
    assert_eq!(
        sample["server_requests"][0]["response"]["result"]["content"]["text"], "sampled: hi",
        "{text}"
    );
    assert!(findings(&capture).is_empty());
    assert_eq!(std::fs::read_to_string(&trace).unwrap().lines().count(), 4);
}

#[test]
fn http_findings_match_run_and_the_duration_ends_the_session() {
    let Some(sdk) = sdk() else { return };
    let dir = scratch("intercept-http-fault");
    let capture = dir.join("c.json");
    let server = http_serve(&["--fault", "wrong-id"]);
    let proxy = HttpIntercept::start(&server.url, &capture, &["--duration", "4s"]);
    let (_, client_err) = client(&dir, &sdk, "one", "http", &[&proxy.url]);
    let HttpIntercept { mut child, .. } = proxy;
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "--duration did not end the session"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{client_err}\n{stderr}");
    assert!(stderr.contains("the --duration of 4s passed"), "{stderr}");
    let got = findings(&capture);
    assert!(!got.is_empty());
    // `run` over HTTP against the same faulty server.
    let server = format!("{{transport: http, url: {:?}}}", server.url);
    assert_eq!(got, run_capture_findings(&dir, &server));
}

#[cfg(unix)]
#[test]
fn a_signal_ends_a_stdio_session_and_the_capture_is_still_written() {
    let dir = scratch("intercept-signal");
    let capture = dir.join("c.json");
    let mut child = mcpcheck()
        .arg("intercept")
        .arg("--capture")
        .arg(&capture)
        .args(["--", BIN, "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(
        &mut stdin,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n",
    )
    .unwrap();
    let mut answer = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut answer)
        .unwrap();
    assert!(answer.contains("\"protocolVersion\""), "{answer}");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    drop(stdin);
    // Cut off after the handshake's first half: the capture says so.
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("terminated (SIGTERM)"), "{err}");
    assert!(err.contains("INV-002"), "{err}");
    let c: Value = serde_json::from_str(&std::fs::read_to_string(&capture).unwrap()).unwrap();
    assert_eq!(c["protocol_version"], "2025-06-18");
    assert_eq!(c["exchanges"][0]["response"]["id"], 1);
}

#[test]
fn a_server_that_outlives_its_input_is_stopped_after_the_grace() {
    let dir = scratch("intercept-grace");
    let capture = dir.join("c.json");
    let started = Instant::now();
    let (code, stdout, stderr) = intercept_stdio(
        &[
            "--capture",
            capture.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "sleep 60; echo late",
        ],
        "",
    );
    assert!(started.elapsed() < Duration::from_secs(15), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("the server did not exit within 5 s and was stopped"),
        "{stderr}"
    );
    // An empty session: initialize was never sent.
    assert_eq!(code, Some(1), "{stderr}");
    assert!(capture.exists());
}
