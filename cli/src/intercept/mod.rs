//! `mcpcheck intercept` (`commands/intercept.rs` has its flags): a
//! transparent proxy between an MCP client and a server, on stdio or
//! Streamable HTTP, that records what crosses it.
//!
//! Both transports hand every message to one [`Recorder`] at the moment its
//! bytes are read, before they are passed on, so the recorded order is the
//! order each side's bytes were seen. When the session ends the recorder is
//! closed (later messages are not recorded), and [`finish`] writes the
//! capture and the trace once and has core judge them.

pub mod http;
pub mod stdio;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use mcpcheck_core::api::{self, ExpectDoc};
use mcpcheck_core::invariants;
use mcpcheck_core::redact::Redactor;
use mcpcheck_core::report::text::{TextOptions, test_block};
use mcpcheck_core::results::TestResult;
use serde_json::{Value, json};

use crate::client::tap::{Dir, Event};
use crate::output::{Format, err, paint_for_stderr};

/// How many bytes of messages a session records; what follows is still
/// passed on, only not recorded (the report says how many were left out).
pub const MAX_RECORDED_BYTES: usize = 256 * 1024 * 1024;

/// How many messages a session records (a flood of small ones costs more
/// than its bytes); what follows is passed on, not recorded.
pub const MAX_RECORDED_MESSAGES: usize = 100_000;

/// One recorded message, as its text only (what places it in the capture
/// is read from the text when the session ends): the session it belongs to
/// (HTTP's `Mcp-Session-Id`; `None` on stdio or before a session was given
/// one), when it was read, which way it went.
struct Recorded {
    session: Option<String>,
    at: Instant,
    time: String,
    dir: Dir,
    raw: String,
}

struct Inner {
    messages: Vec<Recorded>,
    bytes: usize,
    closed: bool,
    left_out: usize,
    /// What went wrong while the session was proxied (an answer too long
    /// to pass on), in words, for the report.
    notes: Vec<String>,
    /// The secrets the trace masks (the values of secret-looking keys in
    /// what the client sent), the server's command-line secrets, and the
    /// `Authorization` values and bearer tokens every redactor hides: what
    /// the capture, the trace, the report and the server's stderr show as
    /// `***`.
    redactor: Redactor,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            messages: Vec::new(),
            bytes: 0,
            closed: false,
            left_out: 0,
            notes: Vec::new(),
            redactor: Redactor::new(),
        }
    }
}

/// The messages of a session, in the order they were read.
#[derive(Default)]
pub struct Recorder {
    inner: Mutex<Inner>,
}

impl Recorder {
    /// A recorder that also hides what `redactor` knows (the server's
    /// command-line secrets).
    pub fn hiding(redactor: Redactor) -> Self {
        Recorder {
            inner: Mutex::new(Inner {
                redactor,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records one message (a line, an HTTP body, an SSE event's data) as
    /// it was read; blank text is not a message. Returns its index, or
    /// `None` when it was not recorded. Secrets the client sends under a
    /// secret-looking key are learnt here, so what follows is hidden too.
    pub fn record(&self, dir: Dir, text: &str, session: Option<&str>) -> Option<usize> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let learnt = if dir == Dir::Out {
            secrets_sent(text)
        } else {
            Vec::new()
        };
        let mut inner = self.lock();
        for secret in &learnt {
            inner.redactor.secret(secret);
        }
        if inner.closed {
            return None;
        }
        if inner.bytes + text.len() > MAX_RECORDED_BYTES
            || inner.messages.len() >= MAX_RECORDED_MESSAGES
        {
            inner.left_out += 1;
            return None;
        }
        inner.bytes += text.len();
        inner.messages.push(Recorded {
            session: session.map(str::to_string),
            at: Instant::now(),
            time: crate::client::tap::now_rfc3339(),
            dir,
            raw: text.to_string(),
        });
        Some(inner.messages.len() - 1)
    }

    /// Gives a message recorded before its session was known (the HTTP
    /// `initialize` request) the session the answer named.
    pub fn assign(&self, index: usize, session: &str) {
        if let Some(m) = self.lock().messages.get_mut(index)
            && m.session.is_none()
        {
            m.session = Some(session.to_string());
        }
    }

    /// Notes what went wrong while proxying, for the report.
    pub fn note(&self, what: String) {
        let mut inner = self.lock();
        if inner.notes.len() < 100 && !inner.notes.contains(&what) {
            inner.notes.push(what);
        }
    }

    /// `text` with every secret known so far as `***`.
    pub fn redact(&self, text: &str) -> String {
        self.lock().redactor.redact_str(text)
    }

    /// Ends the recording: what arrives from now on is not recorded. The
    /// redactor stays, for what is still printed.
    fn close(&self) -> Closed {
        let mut inner = self.lock();
        inner.closed = true;
        Closed {
            messages: std::mem::take(&mut inner.messages),
            left_out: inner.left_out,
            notes: inner.notes.clone(),
            redactor: inner.redactor.clone(),
        }
    }
}

/// What a closed recording hands over.
struct Closed {
    messages: Vec<Recorded>,
    left_out: usize,
    notes: Vec<String>,
    redactor: Redactor,
}

/// The values the client sent under a key whose name looks secret (as the
/// trace masks them, `serve --audit-log`'s list), at any depth of a JSON
/// message: every string of at least 4 characters there (shorter ones
/// would hide every `1` and `true` of the capture).
fn secrets_sent(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    if !crate::serve::audit::SECRET_KEY_MARKERS
        .iter()
        .any(|m| lower.contains(m))
    {
        return Vec::new();
    }
    let Ok((value, _)) = crate::client::wire::parse_lossy(text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    collect_secrets(&value, false, &mut found);
    found
}

fn collect_secrets(v: &Value, under_secret: bool, out: &mut Vec<String>) {
    match v {
        Value::String(s) if under_secret && s.chars().count() >= 4 => out.push(s.clone()),
        Value::Object(map) => {
            for (key, value) in map {
                let secret = under_secret || crate::serve::audit::looks_secret(key);
                collect_secrets(value, secret, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_secrets(item, under_secret, out);
            }
        }
        _ => {}
    }
}

/// The secrets on a server's command line (or in its URL's query): the
/// value after a flag whose name looks secret (`--api-key K`, `--token=T`,
/// `-p` is not one), of a `NAME=value` argument (`API_KEY=…`), or of a
/// query parameter (`?key=…`), at least 4 characters long.
pub fn command_line_secrets(argv: &[String]) -> Redactor {
    let mut r = Redactor::new();
    let secret_name = |name: &str| {
        let name = name.trim_start_matches('-');
        crate::serve::audit::looks_secret(name)
            || name.split(['-', '_', '.']).any(|part| {
                matches!(
                    part.to_ascii_lowercase().as_str(),
                    "key" | "pass" | "pat" | "auth"
                )
            })
    };
    let mut keep = |value: &str| {
        if value.chars().count() >= 4 {
            r.secret(value);
        }
    };
    let mut args = argv.iter().peekable();
    while let Some(arg) = args.next() {
        if let Some((_, query)) = arg.split_once('?') {
            for pair in query.split(['&', '#']) {
                if let Some((name, value)) = pair.split_once('=')
                    && secret_name(name)
                {
                    keep(value);
                }
            }
        }
        match arg.split_once('=') {
            Some((name, value)) if secret_name(name) && !name.contains(['/', ':', '?']) => {
                keep(value);
            }
            Some(_) => {}
            None if arg.starts_with('-') && secret_name(arg) => {
                if let Some(next) = args.next_if(|n| !n.starts_with('-')) {
                    keep(next);
                }
            }
            None => {}
        }
    }
    r
}

/// A message's JSON reduced to what places it in the capture and the
/// trace: `jsonrpc`, `id`, `method`; of `params`, `name`, `protocolVersion`,
/// `capabilities`, `progressToken`, the `_meta` members that carry a
/// progress token, client capabilities or a protocol version, and a
/// `tools/call`'s `arguments`; of `result`, `protocolVersion`,
/// `capabilities` and `isError`; of `error`, `code`. The capture keeps
/// each message's text, so nothing else of its JSON is needed.
fn skeleton(v: Value) -> Value {
    let Value::Object(mut message) = v else {
        return match v {
            Value::Array(items) => Value::Array(items.into_iter().map(skeleton).collect()),
            other => other,
        };
    };
    let mut out = serde_json::Map::new();
    for key in ["jsonrpc", "id", "method"] {
        if let Some(x) = message.remove(key) {
            out.insert(key.into(), x);
        }
    }
    let call = out.get("method").and_then(Value::as_str) == Some("tools/call");
    let keep = |v: Value, keys: &[&str]| match v {
        Value::Object(mut m) => Value::Object(
            keys.iter()
                .filter_map(|k| m.remove(*k).map(|x| ((*k).to_string(), x)))
                .collect(),
        ),
        Value::Array(_) => Value::Null,
        scalar => scalar,
    };
    if let Some(params) = message.remove("params") {
        let mut kept = keep(
            params.clone(),
            &["name", "protocolVersion", "capabilities", "progressToken"],
        );
        if let (Value::Object(kept), Value::Object(mut params)) = (&mut kept, params) {
            if call && let Some(arguments) = params.remove("arguments") {
                kept.insert("arguments".into(), arguments);
            }
            if let Some(meta) = params.remove("_meta") {
                kept.insert(
                    "_meta".into(),
                    keep(
                        meta,
                        &[
                            "progressToken",
                            "io.modelcontextprotocol/clientCapabilities",
                            "io.modelcontextprotocol/protocolVersion",
                        ],
                    ),
                );
            }
        }
        out.insert("params".into(), kept);
    }
    if let Some(result) = message.remove("result") {
        out.insert(
            "result".into(),
            keep(result, &["protocolVersion", "capabilities", "isError"]),
        );
    }
    if let Some(error) = message.remove("error") {
        out.insert("error".into(), keep(error, &["code"]));
    }
    Value::Object(out)
}

impl Recorded {
    /// The event the capture and the trace are made from: the text as it
    /// was read (secrets hidden), and the [`skeleton`] of its JSON.
    fn into_event(self, redactor: &Redactor) -> Event {
        let raw = if needs_redaction(&self.raw, redactor) {
            crate::capture::redact(&self.raw, redactor)
        } else {
            self.raw
        };
        let json = crate::client::wire::parse_lossy(&raw)
            .ok()
            .map(|(v, _)| skeleton(v));
        Event::from_parts(self.dir, self.time, &raw, json)
    }
}

/// Whether `text` may hold something `redactor` hides: a secret it knows
/// (or its JSON-escaped form), or what every redactor hides (an
/// `Authorization` value, a bearer token, a cookie).
fn needs_redaction(text: &str, redactor: &Redactor) -> bool {
    let found = |needle: &str| {
        let needle = needle.as_bytes();
        text.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    !redactor.secrets().is_empty() || found("authorization") || found("bearer") || found("cookie")
}

/// What the session is checked against and where its record goes.
pub struct Outputs {
    pub capture: PathBuf,
    pub trace: Option<PathBuf>,
    pub trajectory: Option<(PathBuf, ExpectDoc)>,
    pub format: Format,
    /// Names the server in the capture (`server_label`).
    pub label: String,
    pub transport: &'static str,
}

/// Reads the trajectory assertions of `--trajectory FILE`, before anything
/// starts: a file that cannot be used is a usage error.
pub fn load_trajectory(path: &Path) -> crate::error::Result<ExpectDoc> {
    let name = crate::files::display(path);
    let text = crate::files::read_text(path)?;
    api::load_trajectory(&name, &text).map_err(|diags| {
        let lookup = |f: &str| (f == name).then_some(text.as_str());
        crate::error::Error::Diagnostics(mcpcheck_core::diag::render(
            &diags,
            &lookup,
            paint_for_stderr(),
        ))
    })
}

/// The sessions of a recording, each with its messages in order: one per
/// `Mcp-Session-Id`, in the order each was first seen; messages without a
/// session go with the first.
fn sessions(messages: Vec<Recorded>) -> Vec<Vec<Recorded>> {
    let mut keys: Vec<Option<String>> = Vec::new();
    for m in &messages {
        if m.session.is_some() && !keys.contains(&m.session) {
            keys.push(m.session.clone());
        }
    }
    if keys.is_empty() {
        return vec![messages];
    }
    let mut out: Vec<Vec<Recorded>> = keys.iter().map(|_| Vec::new()).collect();
    for m in messages {
        let i = keys.iter().position(|k| *k == m.session).unwrap_or(0);
        out[i].push(m);
    }
    out
}

/// The protocol revision a session ran on, as the messages say: the
/// `initialize` result's, else the request's, else the first request's
/// `_meta` (a stateless revision); empty when none says.
fn protocol_version(events: &[Event]) -> String {
    let pick = |dir: Dir, pointer: &str| {
        events.iter().filter(|e| e.dir == dir).find_map(|e| {
            e.json
                .as_ref()?
                .pointer(pointer)?
                .as_str()
                .map(str::to_string)
        })
    };
    pick(Dir::In, "/result/protocolVersion")
        .or_else(|| pick(Dir::Out, "/params/protocolVersion"))
        .or_else(|| {
            pick(
                Dir::Out,
                "/params/_meta/io.modelcontextprotocol~1protocolVersion",
            )
        })
        .unwrap_or_default()
}

/// The audit-log line of every `tools/call` the client sent in one session,
/// in order: `{"time", "tool", "args", "duration_ms", "is_error"}` (the
/// last two once it was answered), secret-looking arguments hidden as in
/// `serve --audit-log`. `at` is when each event was read.
fn tool_calls(events: &[Event], at: &[Instant]) -> Vec<Value> {
    let mut calls = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.dir != Dir::Out || e.method() != Some("tools/call") {
            continue;
        }
        let Some(json) = &e.json else { continue };
        let Some(tool) = json.pointer("/params/name").and_then(Value::as_str) else {
            continue;
        };
        let args = match json.pointer("/params/arguments") {
            Some(a @ Value::Object(_)) => crate::serve::audit::redact(a),
            _ => json!({}),
        };
        let mut line = json!({"time": e.time, "tool": tool, "args": args});
        let answer = e.id().and_then(|id| {
            events
                .iter()
                .enumerate()
                .skip(i + 1)
                .find(|(_, r)| r.dir == Dir::In && r.is_response() && r.id() == Some(id))
        });
        if let Some((j, r)) = answer {
            let response = r.json.as_deref().unwrap_or(&Value::Null);
            let is_error = response.get("error").is_some()
                || response.pointer("/result/isError") == Some(&Value::Bool(true));
            let took = at[j].saturating_duration_since(at[i]);
            line["duration_ms"] = json!(took.as_millis() as u64);
            line["is_error"] = json!(is_error);
        }
        calls.push(line);
    }
    calls
}

/// The capture document of the sessions' texts: one session object, or an
/// array of them when the client opened several.
fn capture_document(texts: Vec<String>) -> String {
    match texts.len() {
        1 => texts.into_iter().next().unwrap_or_default(),
        _ => format!("[\n{}\n]", texts.join(",\n")),
    }
}

/// Ends the recording, writes the capture (always) and the trace, checks
/// the invariants and the trajectory, and prints the report on stderr.
/// `ended` says how the session ended. Returns whether everything held.
/// Every secret the recording learnt is `***` in all of it.
pub fn finish(recorder: &Recorder, outputs: &Outputs, ended: &str) -> crate::error::Result<bool> {
    let Closed {
        messages,
        left_out,
        notes,
        redactor,
    } = recorder.close();
    let from_client = messages.iter().filter(|m| m.dir == Dir::Out).count();
    let from_server = messages.len() - from_client;
    let sessions = sessions(messages);
    let session_count = sessions.len();
    // One session at a time: its messages become events (their JSON reduced
    // to what places them), then its capture text, and are let go of.
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    for messages in sessions {
        let at: Vec<Instant> = messages.iter().map(|m| m.at).collect();
        let events: Vec<Event> = messages
            .into_iter()
            .map(|m| m.into_event(&redactor))
            .collect();
        calls.extend(tool_calls(&events, &at));
        let label = redactor.redact_str(&outputs.label);
        texts.push(crate::capture::render(&crate::capture::Recording {
            label: &label,
            transport: outputs.transport,
            protocol_version: &protocol_version(&events),
            events: &events,
        }));
    }
    let capture = capture_document(texts);
    let written = std::fs::write(&outputs.capture, format!("{capture}\n"));
    if let Some(path) = &outputs.trace {
        let mut text = String::new();
        for call in &calls {
            text.push_str(&redactor.redact_str(&call.to_string()));
            text.push('\n');
        }
        std::fs::write(path, text)
            .map_err(|e| format!("cannot write the trace {}: {e}", path.display()))?;
    }
    written.map_err(|e| {
        format!(
            "cannot write the capture {}: {e}",
            outputs.capture.display()
        )
    })?;
    let (report, exercised) = invariants::check_text_exercised(&capture).map_err(|diags| {
        let shown: Vec<String> = diags.iter().map(ToString::to_string).collect();
        format!(
            "the recorded capture cannot be read back: {}",
            shown.join("; ")
        )
    })?;
    drop(capture);
    let trajectory = outputs.trajectory.as_ref().map(|(_, doc)| {
        let trace = calls
            .iter()
            .map(|c| mcpcheck_core::trajectory::TraceEntry {
                tool: c["tool"].as_str().unwrap_or_default().to_string(),
                args: c["args"].clone(),
            })
            .collect();
        api::check_trajectory(doc, trace)
    });
    let passed = report.passed() && trajectory.as_ref().is_none_or(|t| t.status.is_success());
    let summary = Summary {
        ended,
        from_client,
        from_server,
        left_out,
        notes: &notes,
        tool_calls: calls.len(),
        sessions: session_count,
        exercised,
    };
    err(&redactor.redact_str(&render_report(
        outputs,
        &summary,
        &report,
        trajectory.as_ref(),
        passed,
    )));
    Ok(passed)
}

/// The report of `--format json` (keys in this order).
#[derive(serde::Serialize)]
struct JsonReport<'a> {
    version: u32,
    passed: bool,
    ended: &'a str,
    sessions: usize,
    messages: Value,
    /// What went wrong while proxying (an answer too long to pass on).
    notes: &'a [String],
    tool_calls: usize,
    capture: String,
    trace: Option<String>,
    invariants: Value,
    trajectory: Option<&'a TestResult>,
}

struct Summary<'a> {
    ended: &'a str,
    from_client: usize,
    from_server: usize,
    left_out: usize,
    /// What went wrong while proxying.
    notes: &'a [String],
    tool_calls: usize,
    sessions: usize,
    /// Per session, the rules it gave something to judge.
    exercised: Vec<Vec<invariants::Rule>>,
}

fn render_report(
    outputs: &Outputs,
    s: &Summary<'_>,
    report: &invariants::Report,
    trajectory: Option<&TestResult>,
    passed: bool,
) -> String {
    let path = |p: &Path| crate::files::display(p);
    match outputs.format {
        Format::Json => {
            let invariants: Value =
                serde_json::from_str(&invariants::render_json(report)).unwrap_or(Value::Null);
            let doc = JsonReport {
                version: 1,
                passed,
                ended: s.ended,
                sessions: s.sessions,
                messages: json!({"client": s.from_client, "server": s.from_server, "not_recorded": s.left_out}),
                notes: s.notes,
                tool_calls: s.tool_calls,
                capture: path(&outputs.capture),
                trace: outputs.trace.as_deref().map(path),
                invariants,
                trajectory,
            };
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            )
        }
        Format::Text => {
            let mut out = format!(
                "mcpcheck intercept: {}\n  recorded {} from the client and {} from the server",
                s.ended,
                mcpcheck_core::report::plural(s.from_client, "message", "messages"),
                s.from_server
            );
            if s.left_out > 0 {
                out.push_str(&format!(
                    " ({} more not recorded: the recording passed {} MiB or {} messages)",
                    s.left_out,
                    MAX_RECORDED_BYTES >> 20,
                    MAX_RECORDED_MESSAGES
                ));
            }
            for note in s.notes {
                out.push_str(&format!("\n  note: {note}"));
            }
            out.push_str(&format!("\n  capture: {}\n", path(&outputs.capture)));
            if let Some(trace) = &outputs.trace {
                out.push_str(&format!(
                    "  trace: {} ({})\n",
                    path(trace),
                    mcpcheck_core::report::plural(s.tool_calls, "tool call", "tool calls")
                ));
            }
            let findings = invariants::report(report, &s.exercised, &path(&outputs.capture));
            let text = mcpcheck_core::findings::render::text::render(
                &findings,
                mcpcheck_core::diag::Paint::Plain,
            );
            out.push_str(&format!("invariants:\n{}\n", text.trim_end()));
            if let (Some(t), Some((file, _))) = (trajectory, &outputs.trajectory) {
                let opts = TextOptions {
                    paint: paint_for_stderr(),
                    all_checks: true,
                };
                out.push_str(&format!(
                    "trajectory ({}):\n{}\n",
                    path(file),
                    test_block(t, opts).trim_end()
                ));
            }
            out.push_str(if passed { "PASS\n" } else { "FAIL\n" });
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_keeps_only_what_places_it() {
        let big: Vec<Value> = (0..1000).map(|i| json!({"row": i})).collect();
        let reduced = skeleton(json!({
            "jsonrpc": "2.0", "id": 7,
            "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "isError": false, "structuredContent": {"rows": big}, "content": []}
        }));
        assert_eq!(
            reduced,
            json!({"jsonrpc": "2.0", "id": 7, "result": {"protocolVersion": "2025-11-25",
                   "capabilities": {"tools": {}}, "isError": false}})
        );
        let call = skeleton(json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": {"a": 1}, "task": {"x": 1},
                       "_meta": {"progressToken": 3, "other": [1, 2]}}
        }));
        assert_eq!(
            call["params"],
            json!({"name": "t", "arguments": {"a": 1}, "_meta": {"progressToken": 3}})
        );
        let other = skeleton(json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
            "params": {"name": "p", "arguments": {"big": "x"}}}));
        assert_eq!(
            other["params"],
            json!({"name": "p"}),
            "arguments only of a tools/call"
        );
        let error = skeleton(json!({"jsonrpc": "2.0", "id": 3,
            "error": {"code": -32601, "message": "no", "data": [1, 2, 3]}}));
        assert_eq!(error["error"], json!({"code": -32601}));
    }

    #[test]
    fn secrets_are_found_on_a_command_line_and_in_what_the_client_sends() {
        let argv: Vec<String> = [
            "node",
            "server.js",
            "--api-key",
            "sk-first-secret",
            "--token=tok-second",
            "GITHUB_PAT=ghp-third",
            "--keyboard",
            "us-layout",
            "--verbose",
            "http://h/mcp?key=url-fourth&x=1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let r = command_line_secrets(&argv);
        let shown = r.redact_str(&argv.join(" "));
        for secret in ["sk-first-secret", "tok-second", "ghp-third", "url-fourth"] {
            assert!(!shown.contains(secret), "{secret}: {shown}");
        }
        assert!(shown.contains("--keyboard us-layout"), "{shown}");
        let sent = secrets_sent(
            r#"{"params":{"arguments":{"user":"me","Password":"hunter22","auth":{"apiKey":"k-12345"},"pin":"1"}}}"#,
        );
        assert_eq!(sent, ["hunter22", "k-12345"]);
    }
}
