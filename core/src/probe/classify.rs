//! What one call's outcome means: [`classify`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schema::Checker;
use crate::truncate;

/// How one call went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A proper answer: a result, or a proper rejection of an invalid input.
    Healthy,
    /// A proper error answer: a tool result with `isError: true`; for
    /// `prompts/get` and `resources/read` (which have no `isError`), a
    /// JSON-RPC error other than those in [`classify`]'s table.
    ToolError,
    /// Fuzz: an input that does not satisfy the input schema was accepted
    /// as a success. A warning, not a failure.
    AcceptedInvalid,
    /// Not called (a tool that may write, without `--include-writes`).
    Skipped,
    /// `structuredContent` does not satisfy the tool's `outputSchema`, or
    /// is missing from a success although an `outputSchema` is declared.
    SchemaMismatch,
    /// The result does not have the shape of its method's result.
    InvalidResult,
    /// The server wrote lines on stdout that are not JSON-RPC messages.
    NonJsonOutput,
    /// A JSON-RPC error where a tool error belongs, or an internal error.
    ProtocolError,
    /// The server sent more than [`FLOOD_MESSAGES`] messages or
    /// [`FLOOD_BYTES`] bytes while the call was open (an unbounded stream of
    /// notifications or output), as `run` ends a session for.
    Flood,
    /// No answer in time.
    Timeout,
    /// The server exited, or the connection closed without an answer.
    Crash,
}

/// How much a status matters in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Nothing to report.
    Pass,
    /// Worth knowing, not wrong (a tool error, a skipped tool).
    Note,
    /// Probably wrong, does not fail a run (`accepted_invalid`).
    Warning,
    /// A serious finding: fails `audit_passed`/`fuzz_passed`.
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Pass => "pass",
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

impl Status {
    /// Every status, from the mildest to the most serious.
    pub const ALL: [Status; 11] = [
        Status::Healthy,
        Status::ToolError,
        Status::AcceptedInvalid,
        Status::Skipped,
        Status::SchemaMismatch,
        Status::InvalidResult,
        Status::NonJsonOutput,
        Status::ProtocolError,
        Status::Flood,
        Status::Timeout,
        Status::Crash,
    ];

    /// The name as serialized (`tool_error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Healthy => "healthy",
            Status::ToolError => "tool_error",
            Status::AcceptedInvalid => "accepted_invalid",
            Status::Skipped => "skipped",
            Status::SchemaMismatch => "schema_mismatch",
            Status::InvalidResult => "invalid_result",
            Status::NonJsonOutput => "non_json_output",
            Status::ProtocolError => "protocol_error",
            Status::Flood => "flood",
            Status::Timeout => "timeout",
            Status::Crash => "crash",
        }
    }

    /// Crash, timeout, flood, protocol error, non-JSON output, invalid
    /// result and schema mismatch are serious: they fail a run. Healthy, tool error,
    /// skipped and accepted-invalid are not.
    pub fn is_serious(self) -> bool {
        self.level() == Level::Error
    }

    pub fn level(self) -> Level {
        match self {
            Status::Healthy => Level::Pass,
            Status::ToolError | Status::Skipped => Level::Note,
            Status::AcceptedInvalid => Level::Warning,
            _ => Level::Error,
        }
    }

    /// Whether a fuzz run counts the call as passed (healthy or a tool
    /// error); anything else is listed as a failure in the fuzz report.
    pub fn fuzz_passed(self) -> bool {
        matches!(self, Status::Healthy | Status::ToolError)
    }
}

/// The request a call made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Request {
    #[serde(rename = "tools/call")]
    ToolsCall,
    #[serde(rename = "prompts/get")]
    PromptsGet,
    #[serde(rename = "resources/read")]
    ResourcesRead,
    /// A skill fetched (the Skills extension, SEP-2640).
    #[serde(rename = "skills/get")]
    SkillsGet,
}

impl Request {
    pub fn as_str(self) -> &'static str {
        match self {
            Request::ToolsCall => "tools/call",
            Request::PromptsGet => "prompts/get",
            Request::ResourcesRead => "resources/read",
            Request::SkillsGet => "skills/get",
        }
    }
}

/// What the caller saw for one call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    /// The JSON-RPC response message to the request (`result` or `error`),
    /// when one arrived.
    pub response: Option<Value>,
    /// Lines the server wrote on stdout during the call that are not JSON
    /// (stdio only).
    #[serde(default)]
    pub non_json_lines: Vec<String>,
    /// When the server process exited during the call (or had exited):
    /// how, as text (`exit status 1`, `signal 11 (SIGSEGV)`).
    #[serde(default)]
    pub exited: Option<String>,
    /// The call's time ran out without an answer.
    #[serde(default)]
    pub timed_out: bool,
    /// The last lines the server wrote on stderr.
    #[serde(default)]
    pub stderr_tail: String,
    /// The server sent a flood while the call was open ([`flood`]): why.
    #[serde(default)]
    pub flood: Option<String>,
    #[serde(default)]
    pub duration_ms: u64,
}

/// What classification needs to know besides the outcome.
#[derive(Clone, Copy, Debug)]
pub struct ClassifyCx<'a> {
    pub request: Request,
    /// The tool's `outputSchema`, if it declares one.
    pub output_schema: Option<&'a Value>,
    /// The negotiated protocol version (`2025-11-25`), if known.
    pub protocol_version: Option<&'a str>,
    /// Whether the arguments satisfy the input schema
    /// ([`input_valid`](super::input_valid), or [`FuzzCase::schema_valid`](super::FuzzCase));
    /// `None` (unknown) is read as valid.
    pub input_valid: Option<bool>,
    /// The arguments are mcpcheck's guesses, with no schema to satisfy (an
    /// audit's values for a prompt's arguments): the server may refuse them,
    /// so a refusal is not blamed on it, even one sent as an internal error.
    pub guessed: bool,
    /// The call's time limit, named in a timeout's detail.
    pub timeout_ms: Option<u64>,
}

impl<'a> ClassifyCx<'a> {
    /// A context for `request` with nothing else known.
    pub fn new(request: Request) -> Self {
        ClassifyCx {
            request,
            output_schema: None,
            protocol_version: None,
            input_valid: None,
            guessed: false,
            timeout_ms: None,
        }
    }
}

/// A status and why, in one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    pub status: Status,
    pub detail: String,
}

impl Classification {
    pub fn new(status: Status, detail: impl Into<String>) -> Self {
        Classification {
            status,
            detail: detail.into(),
        }
    }

    /// A call not made, and why.
    pub fn skipped(reason: impl Into<String>) -> Self {
        Classification::new(Status::Skipped, reason)
    }
}

/// The most messages a server may send in one session (`run`), or while
/// one call is open (`audit`, `fuzz`): past it, the stream is a flood.
pub const FLOOD_MESSAGES: usize = 10_000;
/// The most bytes a server may send in one session, or while one call is
/// open, over all its messages.
pub const FLOOD_BYTES: usize = 160 * 1024 * 1024;

/// Why a server that sent `messages` messages of `bytes` bytes in all is
/// flooding its client, if it is: the one decision `run` (which then ends
/// the session) and `audit`/`fuzz` (which classify the call as
/// [`Status::Flood`]) share.
pub fn flood(messages: usize, bytes: usize) -> Option<String> {
    if messages > FLOOD_MESSAGES {
        Some(format!(
            "the server sent more than {FLOOD_MESSAGES} messages in one session (a notification or request flood)"
        ))
    } else if bytes > FLOOD_BYTES {
        Some(format!(
            "the server sent more than {} MiB in one session",
            FLOOD_BYTES >> 20
        ))
    } else {
        None
    }
}

/// The JSON-RPC errors that are a protocol failure for every request: parse
/// error, invalid request, method not found, internal error.
const ALWAYS_PROTOCOL: [i64; 4] = [-32700, -32600, -32601, -32603];

/// The longest piece of server text quoted in a detail.
const QUOTE: usize = 200;

/// Classify one call. The first rule that applies decides:
///
/// | what was seen | status |
/// |---|---|
/// | a flood while the call was open (`flood`: more than [`FLOOD_MESSAGES`] messages or [`FLOOD_BYTES`] bytes), answer or not | `flood` |
/// | the process exited (`exited`), answer or not | `crash` |
/// | `timed_out` | `timeout` |
/// | non-JSON lines on stdout | `non_json_output` |
/// | no response (connection closed) | `crash` |
/// | a response that is not an object, or has neither `result` nor `error` | `invalid_result` |
/// | error without an integer `code` | `invalid_result` |
/// | prompts/get with arguments mcpcheck guessed (`guessed`): error -32603 | `tool_error` (the prompt may refuse a guess; -32602 is the code for arguments it refuses) |
/// | error -32700, -32600, -32601, -32603 (any request) | `protocol_error` |
/// | tools/call: error -32602 for a schema-invalid input | `healthy` (a proper rejection) |
/// | tools/call: error -32042 (URL elicitation required) | `tool_error` |
/// | tools/call: any other error | `protocol_error` (a tool's failure belongs in a result with `isError: true`; MCP 2025-11-25 server/tools §Error Handling) |
/// | prompts/get, resources/read: any other error (-32602, -32002, …) | `tool_error` (those methods report errors as JSON-RPC errors) |
/// | skills/get: any other error (-32602 for an unknown URI, …) | `tool_error` |
/// | result not an object; tools/call without a `content` array, an item without a known `type` (text, image, audio, resource, resource_link) or its fields, `isError` not a boolean, `structuredContent` not an object; prompts/get without a `messages` array of `{role: user/assistant, content}`; resources/read without a `contents` array of `{uri, text or blob}`; skills/get without a `skill` object with a `uri` (and, when present, a `resources` array of `{uri}`) | `invalid_result` |
/// | tools/call `isError: true` | `tool_error` |
/// | tools/call success, `outputSchema` declared (protocol 2025-06-18 or later, or unknown): `structuredContent` missing or not valid against it | `schema_mismatch` |
/// | a success for a schema-invalid input | `accepted_invalid` |
/// | otherwise | `healthy` |
///
/// A -32602 for a schema-valid input (audit, or a valid fuzz case) is a
/// protocol error: the input satisfied the schema, so "invalid params" is
/// a tool failure reported on the wrong channel. The detail says what was
/// seen, quoting at most 200 characters of the server's text.
pub fn classify(observed: &Observed, cx: &ClassifyCx<'_>) -> Classification {
    if let Some(why) = &observed.flood {
        return Classification::new(Status::Flood, why.clone());
    }
    if let Some(how) = &observed.exited {
        let when = if observed.response.is_some() {
            "after answering"
        } else {
            "before answering"
        };
        return Classification::new(Status::Crash, format!("the server exited ({how}) {when}"));
    }
    if observed.timed_out {
        let ms = cx.timeout_ms.unwrap_or(observed.duration_ms);
        return Classification::new(Status::Timeout, format!("no answer within {ms} ms"));
    }
    if let Some(first) = observed.non_json_lines.first() {
        let n = observed.non_json_lines.len();
        let detail = format!(
            "the server wrote {} on stdout that {} not JSON-RPC, first: {:?}",
            crate::report::plural(n, "line", "lines"),
            if n == 1 { "is" } else { "are" },
            truncate(first, QUOTE)
        );
        return Classification::new(Status::NonJsonOutput, detail);
    }
    let Some(response) = &observed.response else {
        return Classification::new(Status::Crash, "the connection closed without an answer");
    };
    let Some(message) = response.as_object() else {
        return Classification::new(Status::InvalidResult, "the answer is not a JSON object");
    };
    match (
        message.get("error").filter(|e| !e.is_null()),
        message.get("result"),
    ) {
        (Some(error), _) => error_status(error, cx),
        (None, Some(result)) => result_status(result, cx),
        (None, None) => Classification::new(
            Status::InvalidResult,
            "the answer has neither `result` nor `error`",
        ),
    }
}

fn error_name(code: i64) -> &'static str {
    match code {
        -32700 => "parse error",
        -32600 => "invalid request",
        -32601 => "method not found",
        -32602 => "invalid params",
        -32603 => "internal error",
        -32002 => "resource not found",
        -32042 => "URL elicitation required",
        _ => "server error",
    }
}

fn error_status(error: &Value, cx: &ClassifyCx<'_>) -> Classification {
    let Some(code) = error.get("code").and_then(Value::as_i64) else {
        return Classification::new(
            Status::InvalidResult,
            "the JSON-RPC error has no integer `code`",
        );
    };
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let seen = format!(
        "JSON-RPC error {code} ({}): {}",
        error_name(code),
        truncate(message, QUOTE)
    );
    let invalid_input = cx.input_valid == Some(false);
    if code == -32603 && cx.guessed && cx.request == Request::PromptsGet {
        return Classification::new(
            Status::ToolError,
            format!(
                "{seen} (the arguments were mcpcheck's guesses, which a prompt may refuse; -32602 is the code for arguments it refuses)"
            ),
        );
    }
    if ALWAYS_PROTOCOL.contains(&code) {
        return Classification::new(Status::ProtocolError, seen);
    }
    if cx.request != Request::ToolsCall {
        return Classification::new(Status::ToolError, seen);
    }
    if code == -32602 && invalid_input {
        let mut detail = format!("rejected: {seen}");
        if cx.protocol_version.is_some_and(|v| v >= "2025-11-25") {
            detail.push_str(" (2025-11-25 prefers a result with isError: true for input errors)");
        }
        return Classification::new(Status::Healthy, detail);
    }
    if code == -32042 {
        return Classification::new(Status::ToolError, seen);
    }
    let why = if code == -32602 {
        "for a schema-valid input; a tool's failure belongs in a result with isError: true"
    } else {
        "where a tool's failure belongs in a result with isError: true"
    };
    Classification::new(Status::ProtocolError, format!("{seen} — {why}"))
}

fn result_status(result: &Value, cx: &ClassifyCx<'_>) -> Classification {
    let Some(r) = result.as_object() else {
        return Classification::new(Status::InvalidResult, "`result` is not an object");
    };
    let shape = match cx.request {
        Request::ToolsCall => tool_result_problem(r),
        Request::PromptsGet => prompt_result_problem(r),
        Request::ResourcesRead => resource_result_problem(r),
        Request::SkillsGet => skill_result_problem(r),
    };
    if let Err(problem) = shape {
        return Classification::new(Status::InvalidResult, problem.to_string());
    }
    let count = shape.unwrap_or(0);
    if cx.request == Request::ToolsCall {
        if r.get("isError").and_then(Value::as_bool) == Some(true) {
            return Classification::new(Status::ToolError, tool_error_detail(r));
        }
        if let Some(mismatch) = output_mismatch(r, cx) {
            return Classification::new(Status::SchemaMismatch, mismatch);
        }
    }
    if cx.input_valid == Some(false) {
        return Classification::new(
            Status::AcceptedInvalid,
            "a schema-invalid input was accepted: a success, not a tool error or -32602",
        );
    }
    let (one, many) = match cx.request {
        Request::ToolsCall => ("content item", "content items"),
        Request::PromptsGet => ("message", "messages"),
        Request::ResourcesRead => ("content", "contents"),
        Request::SkillsGet => ("skill file", "skill files"),
    };
    Classification::new(
        Status::Healthy,
        format!("returned {}", crate::report::plural(count, one, many)),
    )
}

/// The detail of a tool error: its text, and whether it shows a stack trace
/// (an error the tool did not handle, though reported on the right channel).
fn tool_error_detail(r: &serde_json::Map<String, Value>) -> String {
    let text: Vec<&str> = r
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    let text = text.join("\n");
    let trace = [
        "Traceback (most recent call last)",
        "panic:",
        "panicked at",
        "goroutine ",
        "Exception in thread",
        "NullPointerException",
        "Segmentation fault",
        "\n    at ",
    ]
    .iter()
    .any(|m| text.contains(m));
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut detail = format!("isError: true: {}", truncate(first.trim(), QUOTE));
    if trace {
        detail.push_str(" (the text holds a stack trace: an unhandled error)");
    }
    detail
}

const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];

/// A content block's problem, if any (`at` names it).
fn content_problem(c: &Value, at: &str) -> Option<String> {
    let Some(o) = c.as_object() else {
        return Some(format!("{at} is not an object"));
    };
    let Some(ty) = o.get("type").and_then(Value::as_str) else {
        return Some(format!("{at} has no `type`"));
    };
    let string = |k: &str| o.get(k).is_some_and(Value::is_string);
    let missing = match ty {
        "text" => (!string("text")).then_some("`text`"),
        "image" | "audio" => {
            (!(string("data") && string("mimeType"))).then_some("`data` and `mimeType`")
        }
        "resource" => (!o
            .get("resource")
            .is_some_and(|r| r.get("uri").is_some_and(Value::is_string)))
        .then_some("`resource.uri`"),
        "resource_link" => (!(string("uri") && string("name"))).then_some("`uri` and `name`"),
        other => {
            return Some(format!(
                "{at} has an unknown type {other:?} (known: {})",
                CONTENT_TYPES.join(", ")
            ));
        }
    };
    missing.map(|m| format!("{at} (type {ty:?}) lacks {m}"))
}

/// What is wrong with the shape of a result; the classification's detail.
#[derive(Debug, thiserror::Error)]
enum ShapeError {
    /// `member` is the one missing, as quoted ("`content`").
    #[error("the {method} result has no {member}")]
    Missing {
        method: &'static str,
        member: &'static str,
    },
    #[error("`result.{member}` is not {expected}")]
    NotA {
        member: &'static str,
        expected: &'static str,
    },
    /// A member of an item (`at`) that is missing or wrong, as `has …`.
    #[error("{at} has {lacks}")]
    Item { at: String, lacks: &'static str },
    /// A content block's problem, in [`content_problem`]'s words.
    #[error("{0}")]
    Content(String),
}

fn tool_result_problem(r: &serde_json::Map<String, Value>) -> Result<usize, ShapeError> {
    let Some(content) = r.get("content") else {
        return Err(ShapeError::Missing {
            method: "tools/call",
            member: "`content`",
        });
    };
    let Some(items) = content.as_array() else {
        return Err(ShapeError::NotA {
            member: "content",
            expected: "an array",
        });
    };
    for (i, c) in items.iter().enumerate() {
        if let Some(p) = content_problem(c, &format!("`result.content[{i}]`")) {
            return Err(ShapeError::Content(p));
        }
    }
    if r.get("isError")
        .is_some_and(|e| !e.is_boolean() && !e.is_null())
    {
        return Err(ShapeError::NotA {
            member: "isError",
            expected: "a boolean",
        });
    }
    if r.get("structuredContent")
        .is_some_and(|s| !s.is_object() && !s.is_null())
    {
        return Err(ShapeError::NotA {
            member: "structuredContent",
            expected: "an object",
        });
    }
    Ok(items.len())
}

fn prompt_result_problem(r: &serde_json::Map<String, Value>) -> Result<usize, ShapeError> {
    let Some(messages) = r.get("messages").and_then(Value::as_array) else {
        return Err(ShapeError::Missing {
            method: "prompts/get",
            member: "`messages` array",
        });
    };
    for (i, m) in messages.iter().enumerate() {
        let at = format!("`result.messages[{i}]`");
        let role = m.get("role").and_then(Value::as_str);
        if !matches!(role, Some("user" | "assistant")) {
            return Err(ShapeError::Item {
                at,
                lacks: "no role `user` or `assistant`",
            });
        }
        match m.get("content") {
            Some(c) => {
                if let Some(p) = content_problem(c, &format!("{at}.content")) {
                    return Err(ShapeError::Content(p));
                }
            }
            None => {
                return Err(ShapeError::Item {
                    at,
                    lacks: "no `content`",
                });
            }
        }
    }
    Ok(messages.len())
}

fn resource_result_problem(r: &serde_json::Map<String, Value>) -> Result<usize, ShapeError> {
    let Some(contents) = r.get("contents").and_then(Value::as_array) else {
        return Err(ShapeError::Missing {
            method: "resources/read",
            member: "`contents` array",
        });
    };
    for (i, c) in contents.iter().enumerate() {
        let at = format!("`result.contents[{i}]`");
        if !c.get("uri").is_some_and(Value::is_string) {
            return Err(ShapeError::Item {
                at,
                lacks: "no `uri`",
            });
        }
        let text = c.get("text").is_some_and(Value::is_string);
        let blob = c.get("blob").is_some_and(Value::is_string);
        if !text && !blob {
            return Err(ShapeError::Item {
                at,
                lacks: "neither `text` nor `blob`",
            });
        }
    }
    Ok(contents.len())
}

/// A skills/get result: a `skill` object with a string `uri` and, when it
/// has one, a `resources` array of `{uri}` entries (the manifest); counts
/// the manifest's files.
fn skill_result_problem(r: &serde_json::Map<String, Value>) -> Result<usize, ShapeError> {
    let Some(skill) = r.get("skill").and_then(Value::as_object) else {
        return Err(ShapeError::Missing {
            method: "skills/get",
            member: "`skill` object",
        });
    };
    if !skill.get("uri").is_some_and(Value::is_string) {
        return Err(ShapeError::Item {
            at: "`result.skill`".into(),
            lacks: "no `uri`",
        });
    }
    let Some(files) = skill.get("resources") else {
        return Ok(0);
    };
    let Some(files) = files.as_array() else {
        return Err(ShapeError::NotA {
            member: "skill.resources",
            expected: "an array",
        });
    };
    match files
        .iter()
        .position(|f| !f.get("uri").is_some_and(Value::is_string))
    {
        Some(i) => Err(ShapeError::Item {
            at: format!("`result.skill.resources[{i}]`"),
            lacks: "no `uri`",
        }),
        None => Ok(files.len()),
    }
}

/// Why a successful tools/call result does not meet the declared
/// `outputSchema`, if it does not.
fn output_mismatch(r: &serde_json::Map<String, Value>, cx: &ClassifyCx<'_>) -> Option<String> {
    let schema = cx.output_schema?;
    if cx.protocol_version.is_some_and(|v| v < "2025-06-18") {
        return None;
    }
    let Some(structured) = r.get("structuredContent").filter(|s| !s.is_null()) else {
        return Some(
            "the tool declares an outputSchema but the result has no structuredContent".into(),
        );
    };
    let checker = Checker::for_output(schema);
    checker
        .first_error(structured)
        .map(|e| format!("structuredContent does not match the outputSchema {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_follow_seriousness() {
        for s in Status::ALL {
            assert_eq!(s.is_serious(), s.level() == Level::Error, "{s:?}");
        }
        assert_eq!(Status::Skipped.level(), Level::Note);
        assert!(Level::Error > Level::Warning && Level::Warning > Level::Note);
        assert_eq!(
            serde_json::to_value(Request::PromptsGet).ok(),
            Some(json!("prompts/get"))
        );
    }

    #[test]
    fn a_flood_is_named_before_what_it_caused() {
        assert_eq!(flood(FLOOD_MESSAGES, FLOOD_BYTES), None);
        let why = flood(FLOOD_MESSAGES + 1, 10).expect("a flood");
        assert!(why.contains("more than 10000 messages"), "{why}");
        assert!(flood(1, FLOOD_BYTES + 1).is_some_and(|w| w.contains("MiB")));
        // The session was ended by the flood: no answer, the process killed.
        let observed = Observed {
            flood: Some(why.clone()),
            exited: Some("signal 9 (SIGKILL)".into()),
            ..Observed::default()
        };
        let got = classify(&observed, &ClassifyCx::new(Request::ToolsCall));
        assert_eq!(got, Classification::new(Status::Flood, why));
        assert!(Status::Flood.is_serious() && !Status::Flood.fuzz_passed());
    }

    #[test]
    fn content_blocks() {
        let ok = [
            json!({"type": "image", "data": "AA==", "mimeType": "image/png"}),
            json!({"type": "resource", "resource": {"uri": "mem://a", "text": "x"}}),
            json!({"type": "resource_link", "uri": "mem://a", "name": "a"}),
        ];
        for c in ok {
            assert_eq!(content_problem(&c, "c"), None, "{c}");
        }
        assert_eq!(
            content_problem(&json!({"type": "audio", "data": "AA=="}), "c").as_deref(),
            Some("c (type \"audio\") lacks `data` and `mimeType`")
        );
        assert_eq!(
            content_problem(&json!("text"), "c").as_deref(),
            Some("c is not an object")
        );
    }

    #[test]
    fn a_stack_trace_in_a_tool_error_is_named() {
        let r = json!({"content": [{"type": "text", "text": "Error: boom\n    at Object.<anonymous> (x.js:1:1)"}]});
        let detail = tool_error_detail(r.as_object().unwrap_or(&serde_json::Map::new()));
        assert!(
            detail.ends_with("(the text holds a stack trace: an unhandled error)"),
            "{detail}"
        );
    }

    #[test]
    fn a_prompt_may_refuse_guessed_arguments_with_an_internal_error() {
        let refused = Observed {
            response: Some(json!({"error": {"code": -32603,
                "message": "Invalid resourceType: example. Must be Text or Blob."}})),
            ..Observed::default()
        };
        let guessed = ClassifyCx {
            guessed: true,
            ..ClassifyCx::new(Request::PromptsGet)
        };
        let got = classify(&refused, &guessed);
        assert_eq!(got.status, Status::ToolError);
        assert!(
            got.detail
                .starts_with("JSON-RPC error -32603 (internal error): Invalid resourceType")
                && got.detail.contains("mcpcheck's guesses"),
            "{}",
            got.detail
        );
        // Without guesses (a prompt that takes no arguments) an internal
        // error is the server's failure.
        let own = classify(&refused, &ClassifyCx::new(Request::PromptsGet));
        assert_eq!(own.status, Status::ProtocolError);
        // A guess does not excuse a method the server listed but cannot
        // route, nor an internal error for a tool (whose input satisfied
        // its schema).
        let unrouted = Observed {
            response: Some(json!({"error": {"code": -32601, "message": "no"}})),
            ..Observed::default()
        };
        assert_eq!(classify(&unrouted, &guessed).status, Status::ProtocolError);
        let tool = ClassifyCx {
            guessed: true,
            ..ClassifyCx::new(Request::ToolsCall)
        };
        assert_eq!(classify(&refused, &tool).status, Status::ProtocolError);
    }

    #[test]
    fn a_skill_fetched_is_judged_by_its_shape() {
        let cx = ClassifyCx::new(Request::SkillsGet);
        let answer = |response: Value| {
            classify(
                &Observed {
                    response: Some(response),
                    ..Observed::default()
                },
                &cx,
            )
        };
        let ok = answer(json!({"result": {"skill": {"uri": "skill://a/SKILL.md",
            "resources": [{"uri": "skill://a/SKILL.md"}, {"uri": "skill://a/b.md"}]}}}));
        assert_eq!(
            ok,
            Classification::new(Status::Healthy, "returned 2 skill files")
        );
        let bare = answer(json!({"result": {"contents": []}}));
        assert_eq!(bare.status, Status::InvalidResult);
        assert!(bare.detail.contains("no `skill` object"), "{}", bare.detail);
        let entry = answer(json!({"result": {"skill": {"uri": "skill://a/SKILL.md",
            "resources": [{"digest": "sha256:00"}]}}}));
        assert_eq!(entry.detail, "`result.skill.resources[0]` has no `uri`");
        let unknown = answer(json!({"error": {"code": -32602, "message": "no skill"}}));
        assert_eq!(unknown.status, Status::ToolError);
        assert_eq!(
            serde_json::to_value(Request::SkillsGet).ok(),
            Some(json!("skills/get"))
        );
    }
}
