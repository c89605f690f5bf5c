//! The capture model: a recorded MCP session (or several), as the invariants read it.
//!
//! A capture is JSON text. [`parse`] turns it into a [`Capture`] that borrows from the
//! text: every message is kept as the verbatim slice it was written as
//! ([`RawValue`]), with the byte ranges of the envelope fields the invariants look
//! at (`id`, `method`, `params`, `result`, `error`). Nothing is materialized
//! as a `serde_json::Value` tree up front, so a capture costs little more memory than
//! its own text; a rule that needs the inside of a message parses that slice when it
//! gets there.
//!
//! # The format
//!
//! This is the exact shape. `docs/capture.md` says the same in prose, and recorders
//! emit exactly it. Every field marked `?` is optional, and `null` means the same as
//! absent. Fields not listed here are preserved ([`Session::extra`],
//! [`Exchange::extra`], …) and otherwise ignored.
//!
//! ```text
//! capture   = session | [session, ...]
//! session   = {
//!   "server_label":        string?,        // names the server in reports
//!   "server_capabilities": object?,        // the capabilities the server advertised
//!   "client_capabilities": object?,        // the capabilities the client declared
//!   "protocol_version":    string?,        // the negotiated protocol revision
//!   "transport":           string?,        // "stdio" | "http" | "sse" | another name
//!   "shared_transport":    string?,        // sessions with the same value shared one client channel
//!   "exchanges":           [exchange, ...],            // required
//!   "unmatched":           [unmatched, ...]?,
//!   "raw":                 [raw_line, ...]?            // non-JSON lines outside any request
//! }
//! exchange  = {
//!   "request":            message,          // required: what the client sent
//!   "response":           message?,         // absent for a client notification
//!   "request_time":       timestamp?,
//!   "response_time":      timestamp?,
//!   "http_status":        integer?,         // HTTP status of the answer that carried the response (HTTP only)
//!   "protocol_version_header": string?,     // the MCP-Protocol-Version header the request was sent with (HTTP only)
//!   "request_headers":    object?,          // the other MCP headers it was sent with: lowercase name → value (HTTP only)
//!   "client_gave_up":     string?,          // why the client stopped waiting for the response by a limit of its own
//!   "notifications":      [message, ...]?,  // server notifications while the request was open, in order
//!   "notification_times": [timestamp, ...]?,// one per notification, same order
//!   "server_requests":    [server_request, ...]?,
//!   "raw":                [raw_line, ...]?  // non-JSON lines while the request was open
//! }
//! server_request = {                        // a server→client request while the exchange was open
//!   "request":       message,               // required: what the server sent
//!   "response":      message?,              // what the client answered
//!   "request_time":  timestamp?,
//!   "response_time": timestamp?
//! }
//! unmatched = {                             // a server message no open request could take
//!   "message":        message,              // required
//!   "time":           timestamp?,
//!   "after_exchange": integer?,             // index of the last exchange sent before it arrived
//!   "response":       message?,             // the client's answer, when `message` is a request
//!   "response_time":  timestamp?
//! }
//! raw_line  = {
//!   "text":           string,               // required: the line as received, without the newline
//!   "from":           "server" | "client",  // required
//!   "time":           timestamp?,
//!   "after_exchange": integer?              // session-level entries only, as in `unmatched`
//! }
//! message   = any JSON value, normally a JSON-RPC 2.0 object, exactly as it was on the wire
//! timestamp = an RFC 3339 date-time string, e.g. "2026-01-02T03:04:05.678Z"
//! ```
//!
//! What goes where, for a recorder: a client message with an `id` starts an exchange
//! (its `request`); a client notification is an exchange with no `response`. A server
//! response goes to the exchange whose request has the same `id`; if no open request
//! has that id (unknown id, or already answered) it goes to `unmatched`. A server
//! `notifications/progress` goes to the exchange whose request carried its
//! `progressToken`; any other server notification or request goes to the most recently
//! sent exchange that is still open, and to `unmatched` when none is open. A line that
//! is not valid JSON goes to the `raw` list of the exchange that was open, else to the
//! session's `raw`.

mod parse;
mod pointer;
pub mod timeline;

use std::borrow::Cow;
use std::fmt;

use serde_json::value::RawValue;

pub(crate) use parse::{Str, borrowed_str, first_byte, is_null, json_type, raw_members};
pub use pointer::pointer_at_offset;

/// A parsed capture: one session, or several recorded side by side.
#[derive(Debug)]
pub struct Capture<'a> {
    /// The sessions, in the order the capture lists them.
    pub sessions: Vec<Session<'a>>,
    /// Whether the capture was written as an array of sessions (the composition mode).
    pub is_array: bool,
}

/// One recorded session with one server.
#[derive(Debug, Default)]
pub struct Session<'a> {
    /// `server_label`, naming the server in reports.
    pub server_label: Option<Cow<'a, str>>,
    /// `server_capabilities` as written, when it is an object.
    pub server_capabilities: Option<&'a RawValue>,
    /// `client_capabilities` as written, when it is an object.
    pub client_capabilities: Option<&'a RawValue>,
    /// `protocol_version`, the negotiated revision as the recorder saw it.
    pub protocol_version: Option<Cow<'a, str>>,
    /// `transport`: `stdio`, `http`, `sse` or another name.
    pub transport: Option<Cow<'a, str>>,
    /// `shared_transport`: sessions with equal values were multiplexed over one channel.
    pub shared_transport: Option<Cow<'a, str>>,
    /// The client's messages in the order it sent them, each with what answered it.
    pub exchanges: Vec<Exchange<'a>>,
    /// Server messages that no open request could take.
    pub unmatched: Vec<Unmatched<'a>>,
    /// Lines that were not JSON and arrived while no request was open.
    pub raw: Vec<RawLine<'a>>,
    /// Fields this model does not know, kept verbatim.
    pub extra: Fields<'a>,
}

/// One client message and everything that happened while it was open.
#[derive(Debug)]
pub struct Exchange<'a> {
    /// What the client sent.
    pub request: Message<'a>,
    /// The server's answer; `None` for a client notification or an unanswered request.
    pub response: Option<Message<'a>>,
    /// When the request was sent (RFC 3339, checked at parse time).
    pub request_time: Option<&'a str>,
    /// When the response arrived (RFC 3339, checked at parse time).
    pub response_time: Option<&'a str>,
    /// The HTTP status of the answer that carried the response (100 to 599);
    /// `None` on stdio, and when the recorder did not say.
    pub http_status: Option<u16>,
    /// The rarely present parts, boxed so that a plain request/response pair stays small.
    pub more: Option<Box<ExchangeMore<'a>>>,
}

/// The optional lists of an exchange.
#[derive(Debug, Default)]
pub struct ExchangeMore<'a> {
    /// Server notifications that arrived while the request was open, in order.
    pub notifications: Vec<Message<'a>>,
    /// One timestamp per notification, when the recorder wrote them.
    pub notification_times: Vec<&'a str>,
    /// Server→client requests made while the request was open.
    pub server_requests: Vec<ServerRequest<'a>>,
    /// Lines that were not JSON and arrived while the request was open.
    pub raw: Vec<RawLine<'a>>,
    /// The `MCP-Protocol-Version` header the request was sent with, over HTTP.
    pub protocol_version_header: Option<Cow<'a, str>>,
    /// The other MCP headers the request was sent with, over HTTP (`mcp-method`,
    /// `mcp-name`, `mcp-param-…`): lowercase names and their values as sent.
    pub request_headers: Option<Vec<(Cow<'a, str>, Cow<'a, str>)>>,
    /// Why the client stopped waiting for the response by a limit of its own
    /// (its per-step time while the server was still working, its session budget),
    /// as the recorder said it.
    pub client_gave_up: Option<Cow<'a, str>>,
    /// Fields this model does not know, kept verbatim.
    pub extra: Fields<'a>,
}

/// A server→client request made while an exchange was open.
#[derive(Debug)]
pub struct ServerRequest<'a> {
    /// What the server sent.
    pub request: Message<'a>,
    /// What the client answered.
    pub response: Option<Message<'a>>,
    /// When the server's request arrived.
    pub request_time: Option<&'a str>,
    /// When the client answered.
    pub response_time: Option<&'a str>,
    /// Fields this model does not know, kept verbatim.
    pub extra: Fields<'a>,
}

/// A server message that no open request could take.
#[derive(Debug)]
pub struct Unmatched<'a> {
    /// The message as received.
    pub message: Message<'a>,
    /// When it arrived.
    pub time: Option<&'a str>,
    /// The index of the last exchange sent before it arrived; `None` if none had been.
    pub after_exchange: Option<usize>,
    /// The client's answer, when the message is a server→client request.
    pub response: Option<Message<'a>>,
    /// When the client answered.
    pub response_time: Option<&'a str>,
    /// Fields this model does not know, kept verbatim.
    pub extra: Fields<'a>,
}

/// Which side wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The server (its stdout, or a response body).
    Server,
    /// The client.
    Client,
}

/// A line that was not valid JSON.
#[derive(Debug)]
pub struct RawLine<'a> {
    /// The line as received, without its newline.
    pub text: Cow<'a, str>,
    /// Who wrote it.
    pub from: Side,
    /// When it arrived.
    pub time: Option<&'a str>,
    /// For session-level lines: the last exchange sent before it arrived.
    pub after_exchange: Option<usize>,
    /// Fields this model does not know, kept verbatim.
    pub extra: Fields<'a>,
}

/// Unknown fields, in the order they were written, values verbatim.
pub type Fields<'a> = Vec<(Cow<'a, str>, &'a RawValue)>;

/// A JSON-RPC request id, normalized so that equal ids compare equal.
///
/// Integers compare by value (`1` equals `1`, whatever the spelling), strings by their
/// decoded text; `1` and `"1"` differ, as JSON-RPC says.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id<'a> {
    /// An integer id.
    Int(i128),
    /// A string id.
    Str(Cow<'a, str>),
    /// `null`.
    Null,
    /// Anything else (a fraction, an object…), by its JSON text.
    Other(&'a str),
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(n) => write!(f, "{n}"),
            Id::Str(s) => write!(f, "{}", serde_json::Value::String(s.to_string())),
            Id::Null => f.write_str("null"),
            Id::Other(text) => f.write_str(text),
        }
    }
}

impl<'a> Id<'a> {
    /// Classifies the JSON text of an id.
    pub fn from_json(text: &'a str) -> Id<'a> {
        let text = text.trim();
        if text.starts_with('"') {
            match parse::borrowed_str(text) {
                Some(s) => Id::Str(s),
                None => Id::Other(text),
            }
        } else if text == "null" {
            Id::Null
        } else if let Ok(n) = text.parse::<i128>() {
            Id::Int(n)
        } else {
            Id::Other(text)
        }
    }
}

/// The methods the invariants look for, recognised once when the capture is parsed.
///
/// Rules ask every message "is this tools/call?" many times over; answering from a
/// byte in the message, instead of reading its text again, keeps those passes out of
/// main memory on large captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MethodKind {
    /// No `method`, or one that is not a string.
    Absent,
    /// A method not in this list.
    Other,
    Initialize,
    Initialized,
    Ping,
    ServerDiscover,
    ToolsList,
    ToolsCall,
    ResourcesList,
    ResourcesRead,
    ResourcesTemplatesList,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    PromptsList,
    PromptsGet,
    CompletionComplete,
    LoggingSetLevel,
    Progress,
    LogMessage,
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourcesUpdated,
    SamplingCreateMessage,
    ElicitationCreate,
    RootsList,
}

impl MethodKind {
    /// The kind of a method name; `None` for names not in the list.
    pub(crate) fn of(name: &str) -> Option<MethodKind> {
        Some(match name {
            "initialize" => MethodKind::Initialize,
            "notifications/initialized" => MethodKind::Initialized,
            "ping" => MethodKind::Ping,
            "server/discover" => MethodKind::ServerDiscover,
            "tools/list" => MethodKind::ToolsList,
            "tools/call" => MethodKind::ToolsCall,
            "resources/list" => MethodKind::ResourcesList,
            "resources/read" => MethodKind::ResourcesRead,
            "resources/templates/list" => MethodKind::ResourcesTemplatesList,
            "resources/subscribe" => MethodKind::ResourcesSubscribe,
            "resources/unsubscribe" => MethodKind::ResourcesUnsubscribe,
            "prompts/list" => MethodKind::PromptsList,
            "prompts/get" => MethodKind::PromptsGet,
            "completion/complete" => MethodKind::CompletionComplete,
            "logging/setLevel" => MethodKind::LoggingSetLevel,
            "notifications/progress" => MethodKind::Progress,
            "notifications/message" => MethodKind::LogMessage,
            "notifications/tools/list_changed" => MethodKind::ToolsListChanged,
            "notifications/prompts/list_changed" => MethodKind::PromptsListChanged,
            "notifications/resources/list_changed" => MethodKind::ResourcesListChanged,
            "notifications/resources/updated" => MethodKind::ResourcesUpdated,
            "sampling/createMessage" => MethodKind::SamplingCreateMessage,
            "elicitation/create" => MethodKind::ElicitationCreate,
            "roots/list" => MethodKind::RootsList,
            _ => return None,
        })
    }
}

/// Where a member's value sits in a message's text: a byte range, `len == 0` when the
/// member is absent (a JSON value is never empty). Two `u32`s instead of a slice keep
/// a message at 64 bytes, which is what lets a large capture stay near its own size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// One message as it was on the wire, with its envelope fields located.
///
/// The message is kept verbatim; `id`, `method`, `params`, `result` and `error` are
/// found once, when the capture is parsed, and read from the text when asked for.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    raw: &'a RawValue,
    pub(crate) id: Span,
    pub(crate) method: Span,
    pub(crate) params: Span,
    pub(crate) result: Span,
    pub(crate) error: Span,
    pub(crate) is_object: bool,
    pub(crate) kind: MethodKind,
}

impl<'a> Message<'a> {
    /// Picks the envelope fields out of one message. Any JSON value is accepted: a
    /// message that is not an object is kept with [`Message::is_object`] false, because
    /// what a peer sent is evidence, not a malformed capture.
    pub fn from_raw(raw: &'a RawValue) -> Message<'a> {
        parse::message_from_raw(raw)
    }

    /// The message exactly as written in the capture.
    pub fn raw(&self) -> &'a RawValue {
        self.raw
    }

    /// The message's JSON text.
    pub fn text(&self) -> &'a str {
        self.raw.get()
    }

    fn slice(&self, span: Span) -> Option<&'a str> {
        if span.len == 0 {
            return None;
        }
        let start = usize::try_from(span.start).ok()?;
        let len = usize::try_from(span.len).ok()?;
        self.raw.get().get(start..start.checked_add(len)?)
    }

    /// Whether the message is a JSON object at all.
    pub fn is_object(&self) -> bool {
        self.is_object
    }

    /// `id`, when present (even when `null`).
    pub fn id(&self) -> Option<Id<'a>> {
        self.slice(self.id).map(Id::from_json)
    }

    /// Whether an `id` key is present.
    pub fn has_id(&self) -> bool {
        self.id.len > 0
    }

    /// Whether a `method` key is present, whatever its value.
    pub fn has_method(&self) -> bool {
        self.method.len > 0
    }

    /// `method`, when it is a string.
    pub fn method(&self) -> Option<Cow<'a, str>> {
        self.slice(self.method).and_then(parse::borrowed_str)
    }

    /// The method name, or `""` when there is none.
    pub fn method_str(&self) -> Cow<'a, str> {
        self.method().unwrap_or(Cow::Borrowed(""))
    }

    /// Whether the method is `name`.
    pub fn method_is(&self, name: &str) -> bool {
        match MethodKind::of(name) {
            Some(kind) => self.kind == kind,
            None => self.kind == MethodKind::Other && self.method().as_deref() == Some(name),
        }
    }

    /// The recognised kind of the method.
    pub(crate) fn kind(&self) -> MethodKind {
        self.kind
    }

    /// `params`, as JSON text.
    pub fn params(&self) -> Option<&'a str> {
        self.slice(self.params)
    }

    /// `result`, as JSON text.
    pub fn result(&self) -> Option<&'a str> {
        self.slice(self.result)
    }

    /// `error`, as JSON text.
    pub fn error(&self) -> Option<&'a str> {
        self.slice(self.error)
    }

    /// Whether this is a request: a method and an id.
    pub fn is_request(&self) -> bool {
        self.has_method() && self.has_id()
    }

    /// Whether this is a notification: a method and no id.
    pub fn is_notification(&self) -> bool {
        self.has_method() && !self.has_id()
    }

    /// Whether this is a response: an object with no method.
    pub fn is_response(&self) -> bool {
        self.is_object && !self.has_method()
    }

    /// A short description for messages: `tools/call, id 7`, `id 7`.
    pub fn describe(&self) -> String {
        match (self.method(), self.id()) {
            (Some(m), Some(id)) => format!("{m}, id {id}"),
            (Some(m), None) => m.to_string(),
            (None, Some(id)) => format!("id {id}"),
            (None, None) if self.is_object => "no method, no id".to_string(),
            (None, None) => "not an object".to_string(),
        }
    }
}

impl<'a> Exchange<'a> {
    /// Server notifications that arrived while the request was open.
    pub fn notifications(&self) -> &[Message<'a>] {
        self.more.as_ref().map_or(&[], |m| &m.notifications)
    }

    /// Server→client requests made while the request was open.
    pub fn server_requests(&self) -> &[ServerRequest<'a>] {
        self.more.as_ref().map_or(&[], |m| &m.server_requests)
    }

    /// Non-JSON lines received while the request was open.
    pub fn raw_lines(&self) -> &[RawLine<'a>] {
        self.more.as_ref().map_or(&[], |m| &m.raw)
    }

    /// The `MCP-Protocol-Version` header the request was sent with, when recorded.
    pub fn protocol_version_header(&self) -> Option<&str> {
        self.more.as_ref()?.protocol_version_header.as_deref()
    }

    /// The MCP headers other than `MCP-Protocol-Version` the request was sent
    /// with, when recorded (lowercase names).
    pub fn request_headers(&self) -> Option<&[(Cow<'a, str>, Cow<'a, str>)]> {
        self.more.as_ref()?.request_headers.as_deref()
    }

    /// The value of the recorded request header `name` (lowercase), when the
    /// capture recorded the request's headers and that one was among them.
    pub fn request_header(&self, name: &str) -> Option<&str> {
        self.request_headers()?
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_ref())
    }

    /// Why the client stopped waiting for the response by a limit of its own, when
    /// the recorder says so.
    pub fn client_gave_up(&self) -> Option<&str> {
        self.more.as_ref()?.client_gave_up.as_deref()
    }

    /// Unknown fields of the exchange.
    pub fn extra(&self) -> &[(Cow<'a, str>, &'a RawValue)] {
        self.more.as_ref().map_or(&[], |m| &m.extra)
    }
}

/// A problem that makes a capture unusable: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureDiagnostic {
    /// RFC 6901 JSON pointer to the offending value (`""` is the whole document).
    pub pointer: String,
    /// 1-based line of the offending text, when known.
    pub line: Option<usize>,
    /// 1-based column (in bytes) of the offending text, when known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CaptureDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(document)"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {}", self.message)?;
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

/// Parses capture text. Never panics; on any problem returns every diagnostic found
/// (up to a cap), each with a JSON pointer.
pub fn parse(text: &str) -> Result<Capture<'_>, Vec<CaptureDiagnostic>> {
    parse::parse(text)
}
