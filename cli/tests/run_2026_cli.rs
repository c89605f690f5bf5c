//! `mcpcheck run` speaking protocol 2026-07-28: no `initialize`, the session
//! opens with `server/discover`, every request carries its `_meta` (and over
//! HTTP the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers),
//! and input-required results are answered from the suite's client mocks
//! and sent again until a final result.
//!
//! The servers are small fakes kept in this file: an HTTP one written here
//! on `std::net` that records every request it gets, and a stdio one in
//! Node. Both answer 2026-07-28 envelopes only: an `initialize` is an error.

mod cli_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use cli_support::{request_methods, run_mcpcheck, run_suite, scratch, write};
use serde_json::{Value, json};

const VERSION: &str = "2026-07-28";

/// One request the fake HTTP server received: its headers (names lower
/// case) and its JSON body.
#[derive(Clone, Debug)]
struct Seen {
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn method(&self) -> &str {
        self.body["method"].as_str().unwrap_or("")
    }

    fn meta(&self, key: &str) -> &Value {
        &self.body["params"]["_meta"][format!("io.modelcontextprotocol/{key}")]
    }
}

/// A 2026-07-28 Streamable HTTP server on a port of 18110–18119, answering
/// each POST with one JSON body, and recording what it got. `/old` answers
/// every request as a 2026-07-28 server that supports only 2025-11-25
/// would; `/legacy` as a server of the `initialize` era would (a request
/// without a session is refused).
struct FakeHttp {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeHttp {
    fn start() -> FakeHttp {
        let listener = (18110..=18119)
            .find_map(|p| TcpListener::bind(("127.0.0.1", p)).ok())
            .expect("a free port in 18110-18119");
        let port = listener.local_addr().expect("an address").port();
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = log.clone();
                std::thread::spawn(move || serve_connection(stream, &log));
            }
        });
        FakeHttp { port, seen }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("the log").clone()
    }
}

/// Answer the requests of one keep-alive connection until it closes.
fn serve_connection(stream: TcpStream, log: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
        let mut headers = Vec::new();
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
                if k == "content-length" {
                    length = v.parse().unwrap_or(0);
                }
                headers.push((k, v));
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        log.lock().expect("the log").push(Seen {
            headers,
            body: body.clone(),
        });
        if path == "/legacy" {
            let text = "Bad Request: No valid session ID provided";
            let head = format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
                text.len()
            );
            if out.write_all(head.as_bytes()).is_err() || out.write_all(text.as_bytes()).is_err() {
                return;
            }
            continue;
        }
        if body["method"] == "subscriptions/listen" {
            listen(out, &body, log);
            return;
        }
        let (status, answer) = if path == "/old" {
            (
                "400 Bad Request",
                json!({"jsonrpc": "2.0", "id": body["id"], "error": {
                    "code": -32022, "message": "Unsupported protocol version",
                    "data": {"supported": ["2025-11-25"], "requested": VERSION}}}),
            )
        } else {
            ("200 OK", answer(&body))
        };
        let text = answer.to_string();
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            text.len()
        );
        if out.write_all(head.as_bytes()).is_err() || out.write_all(text.as_bytes()).is_err() {
            return;
        }
    }
}

/// A `subscriptions/listen` stream: the acknowledgment, then (after
/// 100 ms) an update of each subscribed resource, then a comment every
/// 50 ms until the client closes the stream, which the log records as a
/// request of method `(stream closed)`.
fn listen(mut out: TcpStream, req: &Value, log: &Mutex<Vec<Seen>>) {
    let id = &req["id"];
    let filter = &req["params"]["notifications"];
    let meta = json!({"io.modelcontextprotocol/subscriptionId": id});
    let event = |m: Value| format!("event: message\ndata: {m}\n\n");
    let ack = event(
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": meta, "notifications": filter}}),
    );
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    if out.write_all(head.as_bytes()).is_err() || out.write_all(ack.as_bytes()).is_err() {
        return;
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    for uri in filter["resourceSubscriptions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let update = event(
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"_meta": meta, "uri": uri}}),
        );
        if out.write_all(update.as_bytes()).is_err() {
            return;
        }
    }
    // Up to 10 s: a client that never closes the stream leaves no mark.
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        if out
            .write_all(b": still here\n\n")
            .and_then(|()| out.flush())
            .is_err()
        {
            log.lock().expect("the log").push(Seen {
                headers: Vec::new(),
                body: json!({"method": "(stream closed)", "params": {}}),
            });
            return;
        }
    }
}

/// What the fake server answers to one request.
///
/// `tools/call` of `echo` returns its `message`; `level` returns the
/// request's log level; `ask` needs two rounds of input (an elicitation and
/// a sampling, then the roots) before it answers with what it was given;
/// `forever` never stops asking.
fn answer(req: &Value) -> Value {
    let id = req["id"].clone();
    let p = &req["params"];
    let complete = |text: String| {
        json!({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "complete", "content": [{"type": "text", "text": text}]}})
    };
    match req["method"].as_str().unwrap_or("") {
        "server/discover" => json!({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "complete", "supportedVersions": [VERSION],
            "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake", "version": "1"}}}}),
        "resources/read" => json!({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "complete",
            "contents": [{"uri": p["uri"], "mimeType": "text/plain", "text": "watched"}]}}),
        "tools/call" => match p["name"].as_str().unwrap_or("") {
            "echo" => complete(p["arguments"]["message"].as_str().unwrap_or("").into()),
            "level" => complete(
                p["_meta"]["io.modelcontextprotocol/logLevel"]
                    .as_str()
                    .unwrap_or("none")
                    .into(),
            ),
            "ask" => ask(&id, p),
            "forever" => json!({"jsonrpc": "2.0", "id": id, "result": {
                "resultType": "input_required", "requestState": "again"}}),
            other => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32602, "message": format!("unknown tool {other}")}}),
        },
        other => json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": format!("no method {other}")}}),
    }
}

fn ask(id: &Value, p: &Value) -> Value {
    let state = p["requestState"].as_str();
    let inputs = &p["inputResponses"];
    let greeting = p["arguments"]["greeting"].as_str().unwrap_or("");
    let result = match state {
        None => json!({"resultType": "input_required", "requestState": "round-1",
            "inputRequests": {
                "who": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "Your name?",
                    "requestedSchema": {"type": "object",
                        "properties": {"name": {"type": "string", "default": "Grace"}}}}},
                "city": {"method": "sampling/createMessage", "params": {
                    "messages": [{"role": "user",
                        "content": {"type": "text", "text": "Capital of France?"}}],
                    "maxTokens": 10}}}}),
        Some("round-1") => json!({"resultType": "input_required",
            "requestState": format!("round-2:{}:{}",
                inputs["who"]["content"]["name"].as_str().unwrap_or("?"),
                inputs["city"]["content"]["text"].as_str().unwrap_or("?")),
            "inputRequests": {"where": {"method": "roots/list", "params": {}}}}),
        Some(s) => {
            let mut parts = s.split(':').skip(1);
            let root = inputs["where"]["roots"][0]["uri"].as_str().unwrap_or("?");
            json!({"resultType": "complete", "content": [{"type": "text", "text": format!(
                "{greeting} name={} city={} root={root}",
                parts.next().unwrap_or("?"), parts.next().unwrap_or("?"))}]})
        }
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The one capture file `dir` holds.
fn only_capture(dir: &Path) -> Value {
    let entries: Vec<_> = std::fs::read_dir(dir)
        .expect("the capture directory")
        .flatten()
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let text = std::fs::read_to_string(entries[0].path()).expect("a capture");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn a_2026_http_session_discovers_carries_meta_and_answers_input_rounds() {
    let server = FakeHttp::start();
    let dir = scratch("run-2026-http");
    let suite = write(
        &dir,
        "ask.yaml",
        &format!(
            r#"name: input rounds are answered from the mocks
server:
  transport: http
  url: "{}"
  protocol_version: 2026-07-28
  client_capabilities:
    roots: ["/srv/project"]
    sampling: {{text: "Paris", model: m1}}
    elicitation: {{action: accept, content: {{name: Ada}}}}
setup:
  - tool: echo
    args: {{message: '{{"who": "you"}}'}}
    capture:
      who: "$.who"
assert:
  tool: ask
  args: {{greeting: "hi {{{{who}}}}"}}
  expect:
    equals: "hi you name=Ada city=Paris root=file:///srv/project"
"#,
            server.url("/mcp")
        ),
    );
    let captures = dir.join("captures");
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--capture",
        captures.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");

    let seen = server.seen();
    let methods: Vec<&str> = seen.iter().map(Seen::method).collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "tools/call",
            "tools/call",
            "tools/call",
            "tools/call"
        ]
    );
    for s in &seen {
        assert_eq!(s.header("mcp-protocol-version"), Some(VERSION), "{s:?}");
        assert_eq!(s.header("mcp-method"), Some(s.method()), "{s:?}");
        assert_eq!(s.header("mcp-session-id"), None, "{s:?}");
        assert_eq!(s.meta("protocolVersion"), VERSION, "{s:?}");
        assert_eq!(s.meta("clientInfo")["name"], "mcpcheck", "{s:?}");
        let caps = s.meta("clientCapabilities");
        for cap in ["roots", "sampling", "elicitation"] {
            assert!(caps[cap].is_object(), "{cap} in {s:?}");
        }
    }
    assert_eq!(seen[1].header("mcp-name"), Some("echo"));
    assert_eq!(seen[2].header("mcp-name"), Some("ask"));

    // The rounds of `ask`: each a new id, the first with no state, each
    // next one with the state as sent and the answers to its requests.
    let rounds: Vec<&Value> = seen[2..].iter().map(|s| &s.body["params"]).collect();
    let ids: Vec<&Value> = seen[2..].iter().map(|s| &s.body["id"]).collect();
    assert!(ids[0] != ids[1] && ids[1] != ids[2], "{ids:?}");
    assert!(rounds[0].get("requestState").is_none(), "{:?}", rounds[0]);
    assert!(rounds[0].get("inputResponses").is_none(), "{:?}", rounds[0]);
    assert_eq!(rounds[1]["requestState"], "round-1");
    assert_eq!(
        rounds[1]["inputResponses"]["who"],
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    assert_eq!(rounds[1]["inputResponses"]["city"]["model"], "m1");
    assert_eq!(rounds[2]["requestState"], "round-2:Ada:Paris");
    assert_eq!(
        rounds[2]["inputResponses"].as_object().map(|m| m.len()),
        Some(1)
    );
    for r in &rounds {
        assert_eq!(r["arguments"]["greeting"], "hi you", "{r:?}");
    }

    // The capture holds discover as the session's opening.
    let capture = only_capture(&captures);
    assert_eq!(capture["protocol_version"], VERSION);
    assert_eq!(request_methods(&capture)[0], "server/discover");
    assert!(!request_methods(&capture).contains(&"initialize"));
    assert_eq!(capture["server_capabilities"], json!({"tools": {}}));
    assert!(
        capture["client_capabilities"]["sampling"].is_object(),
        "{capture}"
    );
}

#[test]
fn an_input_request_without_a_mock_fails_the_test_and_names_the_missing_mock() {
    let server = FakeHttp::start();
    let dir = scratch("run-2026-missing-mock");
    let (code, out, err) = run_suite(
        &dir,
        "ask.yaml",
        &format!(
            "name: no sampling mock\nserver:\n  transport: http\n  url: \"{}\"\n  protocol_version: 2026-07-28\n  client_capabilities:\n    elicitation: {{name: Ada}}\nassert:\n  tool: ask\n  expect: {{contains: [name]}}\n",
            server.url("/mcp")
        ),
        &[],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("input request `city`")
            && all.contains("configured no sampling answer")
            && all.contains("client_capabilities.sampling"),
        "{all}"
    );
    // It gave up after the first round: one `ask`, no retry without input.
    let asks = server
        .seen()
        .iter()
        .filter(|s| s.method() == "tools/call")
        .count();
    assert_eq!(asks, 1);
}

#[test]
fn a_server_without_2026_says_which_versions_it_supports() {
    let server = FakeHttp::start();
    let dir = scratch("run-2026-old-server");
    let suite = write(
        &dir,
        "old.yaml",
        &format!(
            "name: old server\nserver: {{transport: http, url: \"{}\"}}\nassert: {{tool: echo}}\n",
            server.url("/old")
        ),
    );
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--protocol-version",
        VERSION,
        "--suite",
        suite.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("server/discover failed") && all.contains("the server supports 2025-11-25"),
        "{all}"
    );
    // Asked once: the version it refused is not one it lists.
    assert_eq!(server.seen().len(), 1);

    let legacy = write(
        &dir,
        "legacy.yaml",
        &format!(
            "name: legacy server\nserver: {{transport: http, url: \"{}\", protocol_version: 2026-07-28}}\nassert: {{tool: echo}}\n",
            server.url("/legacy")
        ),
    );
    let (code, out, err) = run_mcpcheck(&["run", "--suite", legacy.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let all = format!("{out}{err}");
    assert!(
        all.contains("HTTP 400") && all.contains("does not know server/discover"),
        "{all}"
    );
}

/// A 2026-07-28 stdio server in Node: `server/discover`, `tools/call` of
/// `level` (the request's log level), `greet` (one round of elicitation)
/// and `echo`, and `subscriptions/listen` (acknowledged, then an update of
/// each subscribed resource after 50 ms); anything else, `initialize`
/// included, is an error.
const STDIO_SERVER: &str = r#"
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const text = (id, t) => send({ jsonrpc: '2.0', id, result: { resultType: 'complete', content: [{ type: 'text', text: t }] } });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'subscriptions/listen') {
    const meta = { 'io.modelcontextprotocol/subscriptionId': m.id };
    const filter = m.params.notifications;
    send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: meta, notifications: filter } });
    for (const uri of filter.resourceSubscriptions || []) {
      setTimeout(() => send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { _meta: meta, uri } }), 50);
    }
    return;
  }
  const meta = (m.params && m.params._meta) || {};
  if (meta['io.modelcontextprotocol/protocolVersion'] !== '2026-07-28') {
    return send({ jsonrpc: '2.0', id: m.id, error: { code: -32600, message: 'no protocol version in _meta' } });
  }
  if (m.method === 'server/discover') {
    return send({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {}, logging: {} } } });
  }
  if (m.method !== 'tools/call') {
    return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no method ' + m.method } });
  }
  const p = m.params;
  if (p.name === 'level') return text(m.id, String(meta['io.modelcontextprotocol/logLevel']));
  if (p.name === 'echo') return text(m.id, p.arguments.message);
  if (p.name === 'greet') {
    if (!p.inputResponses) {
      return send({ jsonrpc: '2.0', id: m.id, result: { resultType: 'input_required', inputRequests: { form: { method: 'elicitation/create', params: { mode: 'form', message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Grace' }, age: { type: 'integer', default: 36 }, nick: { type: 'string' } } } } } } } });
    }
    const a = p.inputResponses.form;
    return text(m.id, a.action + ' ' + JSON.stringify(a.content) + ' state=' + (p.requestState === undefined ? 'none' : p.requestState));
  }
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'unknown tool' } });
});
"#;

#[test]
fn the_flag_makes_a_stdio_session_speak_2026_in_a_composed_suite() {
    let dir = scratch("run-2026-stdio");
    let script = write(&dir, "server.js", STDIO_SERVER);
    let suite = write(
        &dir,
        "suite.yaml",
        &format!(
            r#"servers:
  fake:
    command: node
    args: ["{}"]
    client_capabilities:
      elicitation: defaults
tests:
  - name: the log level travels in _meta
    server: fake
    assert_logging:
      set_level: debug
      tool: level
      expect: {{equals: debug}}
  - name: an elicitation is accepted with the schema's defaults
    server: fake
    assert:
      tool: greet
      expect:
        equals: 'accept {{"age":36,"name":"Grace"}} state=none'
  - name: a plain call
    server: fake
    assert:
      tool: echo
      args: {{message: hello}}
      expect: {{equals: hello}}
"#,
            script.display()
        ),
    );
    let captures = dir.join("captures");
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--protocol-version",
        VERSION,
        "--suite",
        suite.to_str().unwrap(),
        "--capture",
        captures.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("3 passed"), "{out}");
    let files: Vec<_> = std::fs::read_dir(&captures)
        .expect("the capture directory")
        .flatten()
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(f.path()).expect("a capture");
        let capture: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(request_methods(&capture)[0], "server/discover", "{capture}");
        assert_eq!(capture["transport"], "stdio");
    }
}

#[test]
fn assert_logging_without_a_tool_has_nothing_to_check_in_2026() {
    let dir = scratch("run-2026-setlevel");
    let script = write(&dir, "server.js", STDIO_SERVER);
    let (code, out, err) = run_suite(
        &dir,
        "level.yaml",
        &format!(
            "name: setLevel alone\nserver:\n  command: node\n  args: [\"{}\"]\n  protocol_version: 2026-07-28\nassert_logging:\n  set_level: info\n",
            script.display()
        ),
        &[],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("which protocol 2026-07-28 does not have"),
        "{out}\n{err}"
    );
}

#[test]
fn an_unknown_protocol_version_is_refused_with_the_known_ones() {
    let dir = scratch("run-2026-bad-version");
    let (code, out, err) = run_suite(
        &dir,
        "bad.yaml",
        "name: t\nserver:\n  command: x\n  protocol_version: 2026-02-30\nassert: {tool: t}\n",
        &[],
    );
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(
        err.contains("bad.yaml:4")
            && err.contains("unknown protocol version `2026-02-30`")
            && err.contains("2025-11-25, 2026-07-28"),
        "{err}"
    );

    let good = write(
        &dir,
        "good.yaml",
        "name: t\nserver: {command: x}\nassert: {tool: t}\n",
    );
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--protocol-version",
        "2027-01-01",
        "--suite",
        good.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(
        err.contains("unknown protocol version `2027-01-01`") && err.contains("2026-07-28"),
        "{err}"
    );
}

/// The tests of [`a_suite_runs_against_mcpcheck_serve_in_2026_over_stdio_and_http`],
/// on the server named by `{server}`.
const SERVE_SUITE: &str = r#"servers:
  stdio:
    command: "{bin}"
    args: [serve]
    protocol_version: 2026-07-28
    client_capabilities: &mocks
      roots: ["/srv/project"]
      sampling: {text: "Lisbon", model: m1}
      elicitation: {answer: "42"}
  http:
    transport: http
    url: "{url}"
    protocol_version: 2026-07-28
    client_capabilities: *mocks
defaultTest:
  server: {server}
tests:
  - name: a setup capture feeds the request
    setup:
      - tool: structured
        args: {city: Porto}
        capture: {city: "$.city"}
    assert: {tool: echo, args: {message: "in {{city}}"}, expect: {equals: "in Porto"}}
  - name: sampling is answered as input
    assert: {tool: sample, args: {prompt: "Capital?"}, expect: {equals: Lisbon}}
  - name: elicitation is answered as input
    assert: {tool: elicit, expect: {json_path: {"$.content.answer": "42"}}}
  - name: roots are answered as input
    assert: {tool: roots, expect: {json_path: {"$[0].uri": "file:///srv/project"}}}
  - name: several rounds of input
    assert: {tool: test_input_required_result_multi_round, expect: {not_error: true}}
  - name: the log level goes with the call
    assert_logging: {set_level: error, tool: log, args: {level: info}, expect: {contains: [suppressed]}}
  - name: a prompt
    assert_prompts: {get: {name: greeting, arguments: {name: Ada}}, expect: {contains: [Ada]}}
"#;

/// `mcpcheck serve --http` on a free port of 18110–18119, killed when
/// dropped; `url` is its Streamable HTTP endpoint.
struct Serve {
    child: std::process::Child,
    url: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_http() -> Serve {
    // From the top of the range: the fake servers of the other tests,
    // running at the same time, take theirs from the bottom.
    let port = (18110..=18119)
        .rev()
        .find(|p| TcpListener::bind(("127.0.0.1", *p)).is_ok())
        .expect("a free port in 18110-18119");
    let mut child = cli_support::mcpcheck()
        .args(["serve", "--http", &format!("127.0.0.1:{port}")])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start mcpcheck serve");
    let mut line = String::new();
    BufReader::new(child.stderr.take().expect("stderr"))
        .read_line(&mut line)
        .expect("its first line");
    assert!(line.contains("listening on"), "{line}");
    Serve {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

#[test]
fn a_suite_runs_against_mcpcheck_serve_in_2026_over_stdio_and_http() {
    let serve = serve_http();
    let dir = scratch("run-2026-serve");
    for server in ["stdio", "http"] {
        let text = SERVE_SUITE
            .replace("{bin}", cli_support::BIN)
            .replace("{url}", &serve.url)
            .replace("{server}", server);
        let suite = write(&dir, &format!("{server}.yaml"), &text);
        let captures = dir.join(format!("captures-{server}"));
        let (code, out, err) = run_mcpcheck(&[
            "run",
            "--suite",
            suite.to_str().unwrap(),
            "--capture",
            captures.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{server}: {out}\n{err}");
        assert!(out.contains("7 passed"), "{server}: {out}");
        for f in std::fs::read_dir(&captures).expect("captures").flatten() {
            let text = std::fs::read_to_string(f.path()).expect("a capture");
            let capture: Value = serde_json::from_str(&text).expect("JSON");
            let methods = request_methods(&capture);
            assert_eq!(methods[0], "server/discover", "{server}: {capture}");
            assert!(!methods.contains(&"initialize"), "{server}: {capture}");
            assert!(
                !methods.contains(&"logging/setLevel"),
                "{server}: {capture}"
            );
        }
    }
}

#[test]
fn a_subscription_is_a_listen_stream_acknowledged_watched_and_closed() {
    let server = FakeHttp::start();
    let dir = scratch("run-2026-listen");
    let (code, out, err) = run_suite(
        &dir,
        "watch.yaml",
        &format!(
            r#"name: an update of a watched resource arrives
server:
  transport: http
  url: "{}"
  protocol_version: 2026-07-28
assert_resources:
  subscribe: "file:///watched"
  read: "file:///watched"
  unsubscribe: "file:///watched"
  expect_notification: true
  expect:
    equals: watched
"#,
            server.url("/mcp")
        ),
        &[],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");

    // The stream was closed by the client once the test was done with it.
    let mut seen = Vec::new();
    for _ in 0..40 {
        seen = server.seen();
        if seen.iter().any(|s| s.method() == "(stream closed)") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let methods: Vec<&str> = seen.iter().map(Seen::method).collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "subscriptions/listen",
            "resources/read",
            "(stream closed)"
        ]
    );
    let listen = &seen[1];
    assert_eq!(
        listen.body["params"]["notifications"],
        json!({"resourceSubscriptions": ["file:///watched"]})
    );
    assert_eq!(listen.meta("protocolVersion"), VERSION);
    assert_eq!(seen[2].header("mcp-name"), Some("file:///watched"));
}

#[test]
fn a_subscription_alone_is_checked_by_its_acknowledgment_on_stdio() {
    let dir = scratch("run-2026-listen-stdio");
    let script = write(&dir, "server.js", STDIO_SERVER);
    let suite = write(
        &dir,
        "watch.yaml",
        &format!(
            r#"name: the acknowledgment names what was subscribed
server:
  command: node
  args: ["{}"]
  protocol_version: 2026-07-28
assert_resources:
  subscribe: "file:///watched"
  unsubscribe: "file:///watched"
  expect_notification: true
  expect:
    json_path:
      "$.notifications.resourceSubscriptions[0]": "file:///watched"
"#,
            script.display()
        ),
    );
    let captures = dir.join("captures");
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--capture",
        captures.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let capture = only_capture(&captures);
    let methods = request_methods(&capture);
    assert_eq!(
        methods,
        [
            "server/discover",
            "subscriptions/listen",
            "notifications/cancelled"
        ],
        "{capture}"
    );
}

#[test]
fn elicitation_defaults_answers_with_the_schema_defaults_in_both_revisions() {
    let dir = scratch("run-2026-elicitation-defaults");
    let (code, out, err) = run_suite(
        &dir,
        "defaults.yaml",
        &format!(
            r#"servers:
  handshake:
    command: "{bin}"
    args: [serve]
    client_capabilities: {{elicitation: defaults}}
  stateless:
    command: "{bin}"
    args: [serve]
    protocol_version: 2026-07-28
    client_capabilities: {{elicitation: defaults}}
defaultTest:
  expect:
    equals: 'Elicitation completed: action=accept, content={{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}}'
tests:
  - name: answered as a server request
    server: handshake
    assert: {{tool: test_elicitation_sep1034_defaults}}
  - name: answered as an input request
    server: stateless
    assert: {{tool: test_elicitation_sep1034_defaults}}
"#,
            bin = cli_support::BIN
        ),
        &[],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("2 passed"), "{out}");
}

#[test]
fn the_legacy_sse_transport_has_no_2026_form() {
    let dir = scratch("run-2026-sse");
    let (code, out, err) = run_suite(
        &dir,
        "sse.yaml",
        "name: t\nserver: {transport: sse, url: \"http://127.0.0.1:9/sse\", protocol_version: 2026-07-28}\nassert: {tool: echo}\n",
        &[],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("protocol 2026-07-28 has no legacy SSE transport"),
        "{out}\n{err}"
    );
}

#[test]
fn a_server_that_never_stops_asking_is_given_up_on_after_the_bounded_rounds() {
    let server = FakeHttp::start();
    let dir = scratch("run-2026-forever");
    let (code, out, err) = run_suite(
        &dir,
        "forever.yaml",
        &format!(
            "name: endless input\nserver:\n  transport: http\n  url: \"{}\"\n  protocol_version: 2026-07-28\nassert: {{tool: forever}}\n",
            server.url("/mcp")
        ),
        &[],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        format!("{out}{err}").contains("still asked for input after 10 rounds of tools/call"),
        "{out}\n{err}"
    );
    let calls: Vec<Seen> = server
        .seen()
        .into_iter()
        .filter(|s| s.method() == "tools/call")
        .collect();
    // The first request and 10 retries, each echoing the state.
    assert_eq!(calls.len(), 11);
    assert!(
        calls[1..]
            .iter()
            .all(|c| c.body["params"]["requestState"] == "again")
    );
}
