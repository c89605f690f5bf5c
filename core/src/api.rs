//! The small surface every front end calls: check one response against an
//! expectation document, check a trace against trajectory assertions,
//! validate a suite file. The CLI's `check`/`validate`, the npm package and
//! the playground all go through these functions, so their verdicts and
//! messages are the same.

use serde::Serialize;
use serde_json::Value;

use crate::check::Facts;
use crate::diag::{Diagnostic, Span};
use crate::error::DocError;
use crate::expect::{self, Block, Expectations};
use crate::observation::{self, Method};
use crate::read::LoadCx;
use crate::results::TestResult;
use crate::score;
use crate::trajectory::{self, TraceEntry};
use crate::yaml::{self, Node};

/// An expectation document: `expect` (either form) with optional
/// `threshold`, `derivedMetrics`, and `method` (which MCP method produced the
/// response; it picks the text view, default `tools/call`). A document
/// without an `expect` key is read as the `expect` itself.
#[derive(Clone, Debug)]
pub struct ExpectDoc {
    pub name: String,
    pub expect: Expectations,
    pub method: Method,
}

/// Parse an expectation document from YAML or JSON text.
pub fn load_expect(file: &str, text: &str) -> Result<ExpectDoc, Vec<Diagnostic>> {
    let root = yaml::parse(file, text)?;
    load_expect_node(file, &root)
}

/// Parse an expectation document from a node (e.g. built from a JS object).
pub fn load_expect_node(file: &str, root: &Node) -> Result<ExpectDoc, Vec<Diagnostic>> {
    let mut cx = LoadCx::new(file);
    let wrapped = root
        .as_map()
        .is_some_and(|m| m.iter().any(|(k, _)| k.key_str() == Some("expect")));
    let mut doc = ExpectDoc {
        name: crate::suite::file_stem(file),
        expect: Expectations::default(),
        method: Method::ToolsCall,
    };
    let block_of = |m: &Method| match m.name() {
        "tools/call" => Block::Tool,
        _ => Block::Other,
    };
    if wrapped {
        let entries = cx.entries(
            root,
            "expectation document",
            &["name", "method", "expect", "threshold", "derivedMetrics"],
        );
        for (k, _, v) in &entries {
            match *k {
                "name" => {
                    if let Some(n) = cx.name(v, "name") {
                        doc.name = n;
                    }
                }
                "method" => {
                    if let Some(m) = cx.name(v, "method") {
                        doc.method = Method::from_name(&m);
                    }
                }
                _ => {}
            }
        }
        let block = block_of(&doc.method);
        for (k, _, v) in &entries {
            match *k {
                "expect" => doc.expect.items = expect::compile(&mut cx, v, block, true),
                "threshold" => doc.expect.threshold = cx.fraction(v, "threshold"),
                _ => {}
            }
        }
        if let Some((_, _, d)) = entries.iter().find(|(k, _, _)| *k == "derivedMetrics") {
            doc.expect.derived = expect::compile_derived(&mut cx, d, &doc.expect.items);
        }
    } else if root.is_null() {
        cx.error_hint(
            root.span,
            "the expectation document is empty",
            "write `expect:` followed by checks, e.g. `contains: [\"hello\"]`",
        );
    } else {
        doc.expect.items = expect::compile(&mut cx, root, Block::Tool, true);
    }
    if cx.has_errors() {
        Err(cx.diags)
    } else {
        Ok(doc)
    }
}

/// Check one response (a raw MCP result, a JSON-RPC envelope or an
/// Observation) against an expectation document. A response that holds no
/// answer the document's method could have given (`{}`, a tools/call
/// result whose `content` is text, a listing checked as a tool result, an
/// MCP Inspector history entry) is refused with what was given and what was
/// expected ([`observation::response_shape_error`]): checking it would give
/// a verdict about nothing.
pub fn check_response(
    doc: &ExpectDoc,
    response: Value,
    facts: &Facts,
    // A String error: the reason is the text the wasm module hands to JavaScript.
) -> Result<TestResult, String> {
    if let Some(why) = observation::response_shape_error(&doc.method, &response) {
        return Err(why);
    }
    let (obs, _) = observation::from_response(&doc.method, response);
    let duration = obs.get("duration_ms").and_then(Value::as_u64).unwrap_or(0);
    let scored = score::score(&doc.expect, &obs, facts);
    let mut result = TestResult::scored(&doc.name, "", None, &scored, duration);
    if doc.expect.checks().all(|c| c.key == "no_rpc_error") {
        result.warnings.push(NO_CHECKS.to_string());
    }
    Ok(result)
}

/// The warning of an expectation document that checks nothing (at most
/// mcp-assert's implicit "no JSON-RPC error"): it passes whatever the answer.
/// Every warning that nothing was checked starts with `no checks:`.
pub const NO_CHECKS: &str = "no checks: the expectations check nothing (beyond the answer not being a JSON-RPC error), so any answer passes";

/// The warning of trajectory assertions that assert nothing: any trace passes.
pub const NO_ASSERTIONS: &str =
    "no checks: there are no trajectory assertions, so any trace passes";

/// The warning of a trajectory check on an empty trace: no call was made,
/// so every `absence` holds and nothing else was looked at.
pub const EMPTY_TRACE: &str =
    "no checks: the trace is empty (no tool was called), so there was no call to check";

/// Read a trace: a YAML/JSON list of `{tool, args}` entries, an object with a
/// `trace` list, or a JSONL audit log.
pub fn load_trace(file: &str, text: &str) -> Result<Vec<TraceEntry>, Vec<Diagnostic>> {
    // A JSONL log's first non-empty line is a complete JSON object; a YAML or
    // JSON document is read whole.
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let jsonl = first.starts_with('{')
        && serde_json::from_str::<Value>(first).is_ok()
        && text.lines().filter(|l| !l.trim().is_empty()).count() > 1;
    if jsonl {
        return trajectory::parse_audit_log(file, text).map_err(|d| vec![d]);
    }
    let root = yaml::parse(file, text)?;
    load_trace_node(file, &root)
}

/// Read a trace from a node (e.g. built from a JS array or object).
pub fn load_trace_node(file: &str, root: &Node) -> Result<Vec<TraceEntry>, Vec<Diagnostic>> {
    let mut cx = LoadCx::new(file);
    let list = root.get("trace").unwrap_or(root);
    let entries = trajectory::read_trace(&mut cx, list);
    if cx.has_errors() {
        Err(cx.diags)
    } else {
        Ok(entries)
    }
}

/// Read trajectory assertions: a list, or an object with a `trajectory` list
/// (optionally with `name` and `threshold`).
pub fn load_trajectory(file: &str, text: &str) -> Result<ExpectDoc, Vec<Diagnostic>> {
    let root = yaml::parse(file, text)?;
    load_trajectory_node(file, &root)
}

/// Read trajectory assertions from a node (e.g. built from a JS value).
pub fn load_trajectory_node(file: &str, root: &Node) -> Result<ExpectDoc, Vec<Diagnostic>> {
    let mut cx = LoadCx::new(file);
    let mut doc = ExpectDoc {
        name: crate::suite::file_stem(file),
        expect: Expectations::default(),
        method: Method::Other("trajectory".into()),
    };
    if root.as_map().is_some() {
        for (k, _, v) in cx.entries(
            root,
            "trajectory document",
            &["name", "trajectory", "threshold"],
        ) {
            match k {
                "name" => {
                    if let Some(n) = cx.name(v, "name") {
                        doc.name = n;
                    }
                }
                "threshold" => doc.expect.threshold = cx.fraction(v, "threshold"),
                _ => doc.expect.items = crate::expect::compile_trajectory(&mut cx, v),
            }
        }
        if root.get("trajectory").is_none() {
            cx.error_hint(
                root.span,
                "no `trajectory` list in this document",
                "write `trajectory:` followed by `- type: order` items",
            );
        }
    } else {
        doc.expect.items = crate::expect::compile_trajectory(&mut cx, root);
    }
    if cx.has_errors() {
        Err(cx.diags)
    } else {
        Ok(doc)
    }
}

/// Check a trace against trajectory assertions. An empty trace, or no
/// assertions, is checked with the warning that nothing was
/// ([`EMPTY_TRACE`], [`NO_ASSERTIONS`]).
pub fn check_trajectory(doc: &ExpectDoc, trace: Vec<TraceEntry>) -> TestResult {
    let empty = trace.is_empty();
    let obs = trajectory::observation(trace);
    let scored = score::score(&doc.expect, &obs, &Facts::default());
    let mut result = TestResult::scored(&doc.name, "", None, &scored, 0);
    if doc.expect.checks().next().is_none() {
        result.warnings.push(NO_ASSERTIONS.to_string());
    } else if empty {
        result.warnings.push(EMPTY_TRACE.to_string());
    }
    result
}

/// Read check inputs given as JSON (`{"today": "2026-01-31", "files":
/// {path: text|null}, "files_before": {…}, "progress_token": …}`), as the npm
/// package and the shared test vectors pass them. Every key is optional.
/// Files' contents as JS gives them: `{path: text or null}` (`null`: the
/// file does not exist); `what` names the value in errors.
pub fn files_from_json(
    v: &Value,
    what: &str,
) -> Result<std::collections::BTreeMap<String, Option<String>>, FilesError> {
    let m = v
        .as_object()
        .ok_or_else(|| FilesError::NotAMap(what.to_string()))?;
    m.iter()
        .map(|(p, c)| match c {
            Value::Null => Ok((p.clone(), None)),
            Value::String(s) => Ok((p.clone(), Some(s.clone()))),
            _ => Err(FilesError::NotText {
                what: what.to_string(),
                path: p.clone(),
            }),
        })
        .collect()
}

/// Why files given as JSON are not `{path: text or null}`; `what` names the
/// value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilesError {
    #[error("`{0}` must map paths to contents (or null)")]
    NotAMap(String),
    #[error("`{what}.{path}` must be a string or null")]
    NotText { what: String, path: String },
}

pub fn facts_from_json(v: &Value) -> Result<Facts, DocError> {
    let mut facts = Facts::default();
    let Some(o) = v.as_object() else {
        if v.is_null() {
            return Ok(facts);
        }
        return Err("options must be an object".into());
    };
    for (k, val) in o {
        match k.as_str() {
            "today" => {
                let s = val
                    .as_str()
                    .ok_or("`today` must be a date string like 2026-01-31")?;
                let d = crate::check::parse_date(s)
                    .ok_or_else(|| format!("`today` is not a date: {s:?}"))?;
                facts.today = Some(d.date());
            }
            "files" | "files_before" => {
                let out = files_from_json(val, k)?;
                if k == "files" {
                    facts.files = out;
                } else {
                    facts.files_before = out;
                }
            }
            "progress_token" => facts.progress_token = Some(val.clone()),
            other => {
                return Err(format!(
                    "unknown option `{other}` (expected today, files, files_before, progress_token)"
                )
                .into());
            }
        }
    }
    Ok(facts)
}

/// An expectation document given as YAML/JSON text or as a JSON value.
pub fn load_expect_value(file: &str, v: &Value) -> Result<ExpectDoc, Vec<Diagnostic>> {
    match v {
        Value::String(text) => load_expect(file, text),
        other => load_expect_node(file, &Node::from_json(other)),
    }
}

/// A trace given as text (YAML, JSON or a JSONL audit log) or as a JSON value.
pub fn load_trace_value(file: &str, v: &Value) -> Result<Vec<TraceEntry>, Vec<Diagnostic>> {
    match v {
        Value::String(text) => load_trace(file, text),
        other => load_trace_node(file, &Node::from_json(other)),
    }
}

/// Trajectory assertions given as YAML/JSON text or as a JSON value.
pub fn load_trajectory_value(file: &str, v: &Value) -> Result<ExpectDoc, Vec<Diagnostic>> {
    match v {
        Value::String(text) => load_trajectory(file, text),
        other => load_trajectory_node(file, &Node::from_json(other)),
    }
}

/// What a response document may be, for messages.
const RESPONSE_KINDS: &str =
    "a raw MCP result ({\"content\": [...]}), a JSON-RPC response envelope, or an Observation";

/// The hint of a response that holds no answer to check.
pub const RESPONSE_HINT: &str = "give the answer to the request the expectations check: a raw MCP result ({\"content\": [...]} for tools/call), a JSON-RPC response envelope, or an Observation";

/// Read a response document (a raw MCP result, a JSON-RPC envelope or an
/// Observation) from JSON text, or from the one Server-Sent Event that
/// carries it (`data: {...}`, as devtools and curl show a Streamable HTTP
/// answer). A syntax error becomes a diagnostic at its line and column;
/// anything that is not a response (a request, a batch, a scalar) is an
/// error saying what was given ([`response_kind_error`]).
pub fn load_response(file: &str, text: &str) -> Result<Value, Diagnostic> {
    let (json, offset) = match sse_data(text) {
        Some(Ok((data, line))) => (data, line),
        Some(Err(why)) => {
            return Err(
                Diagnostic::error(file, Span::new(1, 1, 1, 2), why.to_string())
                    .with_hint("paste the data of the event that answers the request"),
            );
        }
        None => (text.to_string(), 0),
    };
    let value: Value = serde_json::from_str(&json).map_err(|e| {
        let (line, col) = (e.line() as u32 + offset, e.column() as u32);
        Diagnostic::error(
            file,
            Span::new(line, col, line, col + 1),
            format!("the response is not valid JSON: {e}"),
        )
        .with_hint(format!("give {RESPONSE_KINDS}"))
    })?;
    match response_kind_error(&value) {
        Some(message) => {
            Err(
                Diagnostic::error(file, Span::new(1 + offset, 1, 1 + offset, 2), message)
                    .with_hint(format!("give {RESPONSE_KINDS}")),
            )
        }
        None => Ok(value),
    }
}

/// Why `value` cannot be a response, if it cannot: a JSON-RPC request or
/// notification, a batch, `null`, a boolean, a number or a string. Checking
/// such an input would give a verdict about nothing.
pub fn response_kind_error(value: &Value) -> Option<String> {
    let given = match value {
        Value::Array(items) => format!(
            "a JSON-RPC batch (a list of {}) was given",
            crate::report::plural(items.len(), "message", "messages")
        ),
        Value::Null => "`null` was given".to_string(),
        Value::Bool(b) => format!("a boolean (`{b}`) was given"),
        Value::Number(n) => format!("a number (`{n}`) was given"),
        Value::String(_) => "a JSON string was given".to_string(),
        Value::Object(o) => {
            let method = o.get("method").and_then(Value::as_str)?;
            if o.contains_key("result") || o.contains_key("error") {
                return None;
            }
            if o.get("id").is_some_and(|id| !id.is_null()) {
                format!("a JSON-RPC request (`{method}`) was given, not its response")
            } else {
                format!("a JSON-RPC notification (`{method}`) was given, not a response")
            }
        }
    };
    Some(format!("{given}; expected {RESPONSE_KINDS}"))
}

/// Why an event stream holds no one response to check.
#[derive(Debug, thiserror::Error)]
enum SseError {
    #[error("this event stream has no `data:` line")]
    NoData,
    #[error("none of the {n} events of this stream is a JSON-RPC response")]
    NoResponse { n: usize },
    #[error("{k} of the {n} events of this stream are JSON-RPC responses")]
    Responses { k: usize, n: usize },
}

/// The data of the Server-Sent Event that carries a response, when `text`
/// is an event stream (its first line is an SSE field): `Ok((data, lines
/// before it))`. Of several events with data, the one holding a JSON-RPC
/// response is taken; none or more than one is an error.
fn sse_data(text: &str) -> Option<Result<(String, u32), SseError>> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    let field = first.split(':').next().unwrap_or_default();
    if !matches!(field, "data" | "event" | "id" | "retry") {
        return None;
    }
    // Each event: its data lines joined by newlines, and the line its data starts on.
    let mut events: Vec<(String, u32)> = Vec::new();
    let mut current: Option<(String, u32)> = None;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            events.extend(current.take());
            continue;
        }
        if let Some(data) = line.strip_prefix("data:") {
            let data = data.strip_prefix(' ').unwrap_or(data);
            match &mut current {
                Some((d, _)) => {
                    d.push('\n');
                    d.push_str(data);
                }
                None => current = Some((data.to_string(), n as u32)),
            }
        }
    }
    events.extend(current.take());
    let is_response = |d: &str| {
        serde_json::from_str::<Value>(d).is_ok_and(|v| {
            v.get("id").is_some() && (v.get("result").is_some() || v.get("error").is_some())
        })
    };
    Some(match events.len() {
        0 => Err(SseError::NoData),
        1 => Ok(events.remove(0)),
        n => {
            let mut responses: Vec<(String, u32)> =
                events.into_iter().filter(|(d, _)| is_response(d)).collect();
            match responses.len() {
                1 => Ok(responses.remove(0)),
                0 => Err(SseError::NoResponse { n }),
                k => Err(SseError::Responses { k, n }),
            }
        }
    })
}

/// A problem in an input, with its position (1-based lines and columns,
/// counted in characters; `null` for input given as an object), as the
/// front ends hand it to JavaScript.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct DiagnosticDoc {
    #[cfg_attr(feature = "ts", tsify(type = "\"error\" | \"warning\""))]
    pub severity: &'static str,
    pub file: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub end_line: Option<u32>,
    pub end_column: Option<u32>,
    pub message: String,
    /// What to do about it, e.g. "did you mean `not_error`?".
    pub hint: Option<String>,
}

impl From<&Diagnostic> for DiagnosticDoc {
    fn from(d: &Diagnostic) -> Self {
        let pos = |n: u32| (!d.span.is_none()).then_some(n);
        DiagnosticDoc {
            severity: d.severity.as_str(),
            file: d.file.clone(),
            line: pos(d.span.line),
            column: pos(d.span.col),
            end_line: pos(d.span.end_line),
            end_column: pos(d.span.end_col),
            message: d.message.clone(),
            hint: d.hint.clone(),
        }
    }
}

/// A diagnostic as JSON ([`DiagnosticDoc`]).
pub fn diagnostic_json(d: &Diagnostic) -> Value {
    serde_json::to_value(DiagnosticDoc::from(d)).unwrap_or(Value::Null)
}

/// A test a suite file defines.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SuiteTest {
    pub name: String,
    pub line: u32,
}

/// What validating one suite file found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SuiteValidation {
    pub file: String,
    /// No diagnostic is an error.
    pub ok: bool,
    /// The tests the file defines.
    pub tests: Vec<SuiteTest>,
    pub diagnostics: Vec<DiagnosticDoc>,
    /// The diagnostics as `mcpcheck validate` prints them (source excerpt,
    /// caret, hint), without colour.
    pub rendered: String,
}

impl SuiteValidation {
    /// What loading `file` (whose text is `text`) found.
    pub fn of(file: &str, text: &str, loaded: &crate::suite::Loaded) -> SuiteValidation {
        SuiteValidation {
            file: file.to_string(),
            ok: !loaded.has_errors(),
            tests: loaded
                .suite
                .tests
                .iter()
                .map(|t| SuiteTest {
                    name: t.name.clone(),
                    line: t.line,
                })
                .collect(),
            diagnostics: loaded.diagnostics.iter().map(DiagnosticDoc::from).collect(),
            rendered: crate::diag::render(
                &loaded.diagnostics,
                &|_| Some(text),
                crate::diag::Paint::Plain,
            ),
        }
    }
}

/// Load a suite file (either form) and report every problem in it, as
/// `mcpcheck validate` does. A bad suite is not an error: its problems are
/// the result. `for_client`: the suite runs on a client it is given (the
/// npm package's `runSuite`), so a test needs no `server`
/// ([`crate::suite::load_for_client`]).
pub fn validate_suite(file: &str, text: &str, for_client: bool) -> SuiteValidation {
    let loaded = if for_client {
        crate::suite::load_for_client(file, text)
    } else {
        crate::suite::load(file, text)
    };
    SuiteValidation::of(file, text, &loaded)
}

/// Check a capture (its JSON text) against the conformance invariants: the
/// per-session report (`invariants::render_json`, see docs/capture.md) as
/// text, whose members have the values of the `version`, `passed`,
/// `sessions` and `hazards` of the findings document `mcpcheck invariants
/// --format json` prints, so a caller that parses it keeps the documented
/// key order and can write it back;
/// or, when the text is not a usable capture, its problems as diagnostics of
/// `file` (the JSON pointer of each in its hint).
pub fn check_capture(file: &str, text: &str) -> Result<String, Vec<Diagnostic>> {
    let report = crate::invariants::check_text(text).map_err(|p| capture_diagnostics(file, &p))?;
    Ok(crate::invariants::render_json(&report))
}

/// A capture's sessions as a timeline (each exchange summed up, its
/// messages as written; see [`crate::capture::timeline`]) as JSON text, for
/// a page that shows the capture next to its report; the capture's problems
/// as diagnostics of `file` when it is not one. `verbatim` gives each
/// message as a string holding its text as written, not as JSON.
pub fn capture_timeline(file: &str, text: &str, verbatim: bool) -> Result<String, Vec<Diagnostic>> {
    use crate::capture::timeline;
    let capture = crate::capture::parse(text).map_err(|p| capture_diagnostics(file, &p))?;
    let sessions = if verbatim {
        timeline::timeline_verbatim(&capture)
    } else {
        timeline::timeline(&capture)
    };
    Ok(serde_json::to_string(&sessions).unwrap_or_else(|_| "[]".into()))
}

/// What is wrong with a capture, as diagnostics of `file` with the JSON
/// pointer of each problem in its hint.
fn capture_diagnostics(
    file: &str,
    problems: &[crate::capture::CaptureDiagnostic],
) -> Vec<Diagnostic> {
    problems
        .iter()
        .map(|p| {
            let span = match (p.line, p.column) {
                (Some(line), column) => {
                    let (line, col) = (line as u32, column.unwrap_or(1) as u32);
                    Span::new(line, col, line, col + 1)
                }
                (None, _) => Span::none(),
            };
            let pointer = if p.pointer.is_empty() {
                "the whole document".to_string()
            } else {
                format!("at {}", p.pointer)
            };
            Diagnostic::error(file, span, p.message.clone()).with_hint(pointer)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_is_not_a_response_is_an_input_error_not_a_verdict() {
        for (text, says) in [
            (
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}",
                "a JSON-RPC request (`tools/call`)",
            ),
            (
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}",
                "a JSON-RPC notification",
            ),
            (
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]",
                "a JSON-RPC batch (a list of 1 message)",
            ),
            ("null", "`null` was given"),
            ("42", "a number (`42`)"),
            ("\"hi\"", "a JSON string"),
            ("true", "a boolean"),
        ] {
            let d = load_response("r.json", text)
                .err()
                .unwrap_or_else(|| panic!("{text} was accepted"));
            assert!(d.message.starts_with(says), "{text}: {}", d.message);
            assert!(
                d.message.contains("expected a raw MCP result"),
                "{}",
                d.message
            );
        }
        // Responses of every accepted kind still load.
        for text in [
            "{\"content\": []}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"x\"}}",
            "{\"result\": {}, \"text\": \"\"}",
        ] {
            assert!(load_response("r.json", text).is_ok(), "{text}");
        }
    }

    #[test]
    fn an_sse_event_is_read_as_the_response_it_carries() {
        let one =
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n";
        assert_eq!(
            load_response("r", one).ok().map(|v| v["id"].clone()),
            Some(json!(1))
        );
        // Of a stream, the event that is a response; its data may span lines.
        let stream = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":2,\"result\":{}}\n\n";
        assert_eq!(
            load_response("r", stream).ok().map(|v| v["id"].clone()),
            Some(json!(2))
        );
        let none = "data: {\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n\n";
        let d = load_response("r", none)
            .err()
            .map(|d| d.message)
            .unwrap_or_default();
        assert_eq!(
            d,
            "none of the 2 events of this stream is a JSON-RPC response"
        );
        let two = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n";
        assert_eq!(
            load_response("r", two).err().map(|d| d.message),
            Some("2 of the 2 events of this stream are JSON-RPC responses".to_string())
        );
        assert_eq!(
            load_response("r", "event: message\n\n")
                .err()
                .map(|d| d.message),
            Some("this event stream has no `data:` line".to_string())
        );
        // A syntax error inside the data is placed on its line of the stream.
        let bad = "event: message\ndata: {oops}\n\n";
        assert_eq!(load_response("r", bad).err().map(|d| d.span.line), Some(2));
    }

    #[test]
    fn files_that_are_not_text_or_null_are_named() {
        assert_eq!(
            files_from_json(&json!({"a": "x", "b": null}), "files").map(|f| f.len()),
            Ok(2)
        );
        let not_text = files_from_json(&json!({"a": 1}), "files").unwrap_err();
        assert_eq!(not_text.to_string(), "`files.a` must be a string or null");
        let options = facts_from_json(&json!({"files_before": []})).unwrap_err();
        assert_eq!(
            options.to_string(),
            "`files_before` must map paths to contents (or null)"
        );
    }

    #[test]
    fn expectations_that_check_nothing_warn() {
        let facts = Facts::default();
        let empty = load_expect("e.yaml", "expect: {}").unwrap_or_else(|d| panic!("{d:?}"));
        let r = check_response(&empty, json!({"content": []}), &facts).expect("a response");
        assert_eq!(r.warnings, vec![NO_CHECKS.to_string()]);
        let some =
            load_expect("e.yaml", "expect: {not_error: true}").unwrap_or_else(|d| panic!("{d:?}"));
        assert!(
            check_response(&some, json!({"content": []}), &facts)
                .expect("a response")
                .warnings
                .is_empty()
        );
    }

    #[test]
    fn an_empty_trace_is_checked_with_the_warning_that_nothing_was() {
        let doc = load_trajectory("t.yaml", "- {type: absence, tools: [rm]}\n")
            .unwrap_or_else(|d| panic!("{d:?}"));
        let r = check_trajectory(&doc, Vec::new());
        assert_eq!(r.status.as_str(), "pass");
        assert_eq!(r.warnings, vec![EMPTY_TRACE.to_string()]);
        let calls = load_trace("t.yaml", "- {tool: ls}\n").unwrap_or_else(|d| panic!("{d:?}"));
        assert!(check_trajectory(&doc, calls).warnings.is_empty());
        // No assertions: any trace passes, with the warning.
        let none = load_trajectory("t.yaml", "trajectory: []").unwrap_or_else(|d| panic!("{d:?}"));
        let calls = load_trace("t.yaml", "- {tool: ls}\n").unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(
            check_trajectory(&none, calls).warnings,
            vec![NO_ASSERTIONS.to_string()]
        );
    }

    #[test]
    fn validate_suite_lists_tests_and_diagnostics_with_positions() {
        let text = "name: demo\nserver:\n  command: srv\ntests:\n  - name: a\n    assert:\n      tool: t\n      expect:\n        not_eror: true\n";
        let v = validate_suite("demo.yaml", text, false);
        assert!(!v.ok);
        assert_eq!(v.file, "demo.yaml");
        assert_eq!(
            v.tests,
            vec![SuiteTest {
                name: "a".into(),
                line: 5
            }]
        );
        let d = &v.diagnostics[0];
        assert_eq!((d.severity, d.line), ("error", Some(9)));
        assert!(d.message.contains("not_eror"), "{}", d.message);
        assert!(v.rendered.contains("demo.yaml:9"), "{}", v.rendered);
        // For a given client, a test needs no server; without, it does.
        let serverless = "name: t\nassert: {tool: x, expect: {not_error: true}}\n";
        assert!(validate_suite("t.yaml", serverless, true).ok);
        let v = validate_suite("t.yaml", serverless, false);
        assert!(
            !v.ok && v.diagnostics[0].message.contains("has no `server`"),
            "{v:?}"
        );
        // The JSON form is the same document, key for key.
        let json = diagnostic_json(&crate::suite::load("demo.yaml", text).diagnostics[0]);
        assert_eq!(json["line"], 9);
        assert_eq!(json["severity"], "error");
    }

    #[test]
    fn a_diagnostic_without_a_position_has_null_positions() {
        let d = Diagnostic::error("<expect>", Span::none(), "bad");
        let doc = DiagnosticDoc::from(&d);
        assert_eq!((doc.line, doc.column, doc.hint), (None, None, None));
        assert_eq!(diagnostic_json(&d)["end_column"], Value::Null);
    }
}

#[cfg(test)]
mod assert_on_tests {
    use super::*;
    use serde_json::json;

    fn checks(expect: &str, response: Value) -> Vec<crate::results::CheckResult> {
        let doc = load_expect("e.yaml", expect).expect("expectations load");
        let response = json!({"jsonrpc": "2.0", "id": 1, "result": response});
        check_response(&doc, response, &Facts::default())
            .expect("a response")
            .checks
    }

    #[test]
    fn every_check_carries_its_code_path_and_values() {
        let response = json!({"content": [{"type": "text", "text": "{\"results\": [{\"id\": 1}, {\"id\": 2}]}"}]});
        let mut cs = checks(
            "expect:\n  contains: [\"results\"]\n  has_fields: [\"results\"]\n  results_min: 3\n",
            response.clone(),
        );
        cs.extend(checks(
            "expect:\n  - target: json.results[*].id\n    matcher: {exact: 1}\n",
            response,
        ));
        let by_code = |code: &str| {
            cs.iter()
                .find(|c| c.code == code)
                .unwrap_or_else(|| panic!("no {code} in {cs:?}"))
        };
        let contains = by_code("contains");
        assert_eq!(contains.path, Some(vec![json!("text")]));
        assert_eq!(contains.expected_value, json!("results"));
        assert!(
            contains
                .actual_value
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains("\"id\""))
        );
        // A key whose matcher has another name keeps the key as its code.
        let fields = by_code("has_fields");
        assert_eq!(fields.matcher, "exists");
        assert_eq!(fields.expected_value, Value::Null);
        let min = by_code("results_min");
        assert_eq!(min.expected_value, json!({"min": 3}));
        assert_eq!(min.actual_value, Some(json!([{"id": 1}, {"id": 2}])));
        // A list-form check is coded by its matcher; a wildcard path gives
        // every value it selected.
        let exact = by_code("exact");
        assert_eq!(
            exact.path,
            Some(vec![
                json!("json"),
                json!("results"),
                json!("*"),
                json!("id")
            ])
        );
        assert_eq!(exact.expected_value, json!(1));
        assert_eq!(exact.actual_value, Some(json!([1, 2])));
        assert_eq!(exact.status, crate::results::CheckStatus::Fail);
    }

    #[test]
    fn a_large_actual_value_is_left_out_and_its_display_string_kept() {
        let contains = |text: &str| {
            checks(
                "expect:\n  contains: [\"y\"]\n",
                json!({"content": [{"type": "text", "text": text}]}),
            )
            .into_iter()
            .find(|c| c.code == "contains")
            .expect("the contains check")
        };
        let big = contains(&"x".repeat(crate::check::ACTUAL_VALUE_BYTES + 1));
        assert_eq!(big.actual_value, None);
        assert!(!big.actual.is_empty());
        assert_eq!(contains("small").actual_value, Some(json!("small")));
    }
}
