//! The transport handed to rmcp: raw text in and out, recorded by the tap.
//!
//! Every transport (stdio, Streamable HTTP, legacy SSE) moves text; this type
//! turns rmcp's messages into text for the transport's writer, and the
//! transport's incoming text into rmcp's messages through [`Inbound`]. A
//! message rmcp could not read (a string error code, a missing `jsonrpc`) is
//! recorded as a wire problem; if it answers a pending request, rmcp gets a
//! JSON-RPC error in its place so the request fails fast instead of hanging.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientJsonRpcMessage, ErrorCode, ErrorData, JsonRpcError, JsonRpcVersion2_0, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::sync::mpsc;

use super::tap::{Dir, Event, Tap};

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the connection to the server is closed")]
    Closed,
    #[error("cannot encode a message: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Ids of requests sent and not yet answered, as their JSON text.
pub type Pending = Arc<Mutex<HashSet<String>>>;

/// The `initialize` request sent, if any: its id (as JSON text) and the
/// protocol version it asked for.
type Initialize = Arc<Mutex<Option<(String, String)>>>;

/// Answers longer than this reach rmcp as an empty result (see
/// `Inbound::decode`).
const STUB_BYTES: usize = 256 * 1024;

/// The rmcp side of a transport.
pub struct WireTransport {
    out: mpsc::UnboundedSender<String>,
    inbox: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    tap: Arc<Tap>,
    pending: Pending,
    initialize: Initialize,
}

/// The transport side: where incoming text is delivered.
#[derive(Clone)]
pub struct Inbound {
    tx: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    tap: Arc<Tap>,
    pending: Pending,
    initialize: Initialize,
}

/// A new pair: the rmcp transport, the receiver of outgoing text (for the
/// transport's writer) and the [`Inbound`] for its reader.
pub fn pair(tap: Arc<Tap>) -> (WireTransport, mpsc::UnboundedReceiver<String>, Inbound) {
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let pending: Pending = Arc::default();
    let initialize: Initialize = Arc::default();
    (
        WireTransport {
            out: out_tx,
            inbox: in_rx,
            tap: tap.clone(),
            pending: pending.clone(),
            initialize: initialize.clone(),
        },
        out_rx,
        Inbound {
            tx: in_tx,
            tap,
            pending,
            initialize,
        },
    )
}

fn id_key(v: &Value) -> String {
    v.to_string()
}

/// JSON text as a value, the way lenient clients read it: a lone surrogate
/// escape in a string (`\udfff`, or a high surrogate not followed by a low
/// one), which the TypeScript and Python SDKs accept and strict parsers
/// refuse, is read as U+FFFD instead of failing the whole message. Returns
/// the value and how many such escapes were replaced; the error is
/// serde_json's, for text that is not JSON for another reason.
pub fn parse_lossy(text: &str) -> Result<(Value, usize), serde_json::Error> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok((v, 0)),
        Err(e) => match replace_lone_surrogates(text) {
            Some((fixed, n)) => serde_json::from_str::<Value>(&fixed).map(|v| (v, n)),
            None => Err(e),
        },
    }
}

/// `text` with every lone surrogate escape inside a JSON string replaced
/// by `\ufffd`, and how many were; `None` when there is none. Only escapes
/// are rewritten: every other byte is copied as it is.
pub fn replace_lone_surrogates(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        let digits = std::str::from_utf8(digits).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u32> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
            .then(|| hex(at + 2))
            .flatten()
    };
    let mut out = String::new();
    let mut copied = 0;
    let mut replaced = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => match escape_at(i) {
                Some(0xD800..=0xDBFF) => {
                    if matches!(escape_at(i + 6), Some(0xDC00..=0xDFFF)) {
                        i += 12;
                    } else {
                        out.push_str(&text[copied..i]);
                        out.push_str("\\ufffd");
                        replaced += 1;
                        i += 6;
                        copied = i;
                    }
                }
                Some(0xDC00..=0xDFFF) => {
                    out.push_str(&text[copied..i]);
                    out.push_str("\\ufffd");
                    replaced += 1;
                    i += 6;
                    copied = i;
                }
                Some(_) => i += 6,
                None => i += 2,
            },
            _ => i += 1,
        }
    }
    if replaced == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some((out, replaced))
}

impl Transport<RoleClient> for WireTransport {
    type Error = WireError;

    fn name() -> Cow<'static, str> {
        "mcpcheck-wire".into()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let encoded = serde_json::to_string(&item);
        let tap = self.tap.clone();
        let out = self.out.clone();
        let pending = self.pending.clone();
        let initialize = self.initialize.clone();
        async move {
            let text = encoded?;
            if let ClientJsonRpcMessage::Request(r) = &item
                && let Ok(id) = serde_json::to_value(&r.id)
                && let Ok(mut p) = pending.lock()
            {
                p.insert(id_key(&id));
                if let Ok(v) = serde_json::from_str::<Value>(&text)
                    && v.get("method").and_then(Value::as_str) == Some("initialize")
                    && let Some(asked) =
                        v.pointer("/params/protocolVersion").and_then(Value::as_str)
                    && let Ok(mut slot) = initialize.lock()
                {
                    *slot = Some((id_key(&id), asked.to_string()));
                }
            }
            tap.record(Dir::Out, &text);
            out.send(text).map_err(|_| WireError::Closed)
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.inbox.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inbox.close();
        Ok(())
    }
}

impl Inbound {
    pub fn tap(&self) -> &Arc<Tap> {
        &self.tap
    }

    /// Deliver one piece of incoming text (a stdio line, an SSE event's
    /// data, an HTTP JSON body).
    pub fn deliver(&self, raw: &str) {
        self.deliver_in_answer_to(raw, None);
    }

    /// Deliver text that came in the HTTP answer to the client message
    /// `to` (its method), so a problem with it names that message.
    pub fn deliver_in_answer_to(&self, raw: &str, to: Option<&str>) {
        self.deliver_http(raw, to, None);
    }

    /// Deliver text that came in an HTTP answer with `status` (to the client
    /// message `to`, when known): the status is recorded with it.
    pub fn deliver_http(&self, raw: &str, to: Option<&str>, status: Option<u16>) {
        let text = raw.trim();
        if text.is_empty() {
            return;
        }
        if let Err(why) = self.tap.admit(text.len()) {
            if let Some(why) = why {
                self.fail_pending(&why);
            }
            return;
        }
        let held = self.tap.hold(text);
        let event = Event::parsed_if(Dir::In, text, status, held.is_ok())
            .holding(held.as_ref().copied().unwrap_or(0));
        if event.json.is_none()
            && let Ok(counted) = held
        {
            self.tap.release(counted);
        }
        let (idx, event) = self.tap.record_event(event);
        if event.lone_surrogates > 0 {
            self.tap.problem(
                idx,
                format!(
                    "the server sent {} (such as \\udfff) in a JSON string: not a character; it was read as U+FFFD, as lenient clients show it",
                    mcpcheck_core::report::plural(
                        event.lone_surrogates,
                        "lone surrogate escape",
                        "lone surrogate escapes"
                    )
                ),
            );
        }
        // Parsed once, by the tap; shared here, not copied.
        match &event.json {
            None if event.is_too_large() => {
                self.too_large(
                    idx,
                    &event,
                    held.err().map(|e| e.to_string()).unwrap_or_default(),
                );
            }
            None => self.tap.problem(
                idx,
                format!(
                    "the server sent text that is not JSON-RPC: {}",
                    mcpcheck_core::truncate(text, 200)
                ),
            ),
            Some(json) => match json.as_ref() {
                Value::Array(items) => {
                    for item in items {
                        self.decode(idx, item, text.len(), to);
                    }
                }
                v => self.decode(idx, v, text.len(), to),
            },
        }
    }

    /// A message too large to hold as values: recorded as text; the request
    /// it answers fails with the reason, so its test ends as `error`.
    fn too_large(&self, idx: usize, event: &Event, why: String) {
        self.tap.problem(idx, why.clone());
        match event.id() {
            Some(id) if event.is_response() => self.answer_with_error(id, why),
            _ => {}
        }
    }

    /// Deliver one message as it came, in bytes: MCP messages are UTF-8
    /// JSON, so bytes that are not UTF-8 are a protocol error (the Python
    /// SDK fails on them), not text to repair. Such a message is recorded
    /// as not JSON-RPC, with a problem naming the first bad byte, and the
    /// request it answers fails with that reason.
    pub fn deliver_bytes(&self, bytes: &[u8], to: Option<&str>, status: Option<u16>) {
        let e = match std::str::from_utf8(bytes) {
            Ok(text) => return self.deliver_http(text, to, status),
            Err(e) => e,
        };
        let lossy = String::from_utf8_lossy(bytes);
        let text = lossy.trim();
        if text.is_empty() {
            return;
        }
        if let Err(why) = self.tap.admit(text.len()) {
            if let Some(why) = why {
                self.fail_pending(&why);
            }
            return;
        }
        let (idx, _) = self
            .tap
            .record_event(Event::not_json(Dir::In, text, status));
        let context = to
            .map(|m| format!(" in the HTTP answer to {m}"))
            .unwrap_or_default();
        let why = format!(
            "the server sent a message that is not UTF-8 text{context} (an invalid byte at offset {}); MCP messages are UTF-8 JSON: {}",
            e.valid_up_to(),
            mcpcheck_core::truncate(text, 200)
        );
        self.tap.problem(idx, why.clone());
        // The request it answers, when its id can still be read.
        if let Ok(v) = serde_json::from_str::<Value>(text)
            && v.get("method").is_none()
            && let Some(id) = v.get("id").filter(|i| !i.is_null())
        {
            self.answer_with_error(id, why);
        }
    }

    /// `initialize` negotiates only handshake revisions. An answer naming a
    /// stateless one (2026-07-28) would make rmcp carry that revision's
    /// `_meta` on every later request: the session would leave the era it
    /// opened. rmcp is given the version the client asked for instead; the
    /// tap has already recorded what the server sent, for the invariants to
    /// judge (INV-019).
    fn keep_handshake_era(&self, id: &Value, v: &Value) -> Option<Value> {
        let asked = self.initialize.lock().ok().and_then(|slot| {
            slot.as_ref()
                .filter(|(key, _)| *key == id_key(id))
                .map(|(_, asked)| asked.clone())
        })?;
        let stateless = v
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .is_some_and(mcpcheck_core::suite::is_stateless);
        if !stateless || mcpcheck_core::suite::is_stateless(&asked) {
            return None;
        }
        let mut changed = v.clone();
        if let Some(version) = changed.pointer_mut("/result/protocolVersion") {
            *version = Value::String(asked);
        }
        Some(changed)
    }

    /// Stop taking messages from the server: a limit was passed (a message
    /// too long, a flood). Every open request fails now with `why`, instead
    /// of waiting for its deadline while the server keeps writing.
    pub fn exceed(&self, why: String) {
        if self.tap.exceeded().is_none() {
            self.tap.exceed(why.clone());
            self.fail_pending(&why);
        }
    }

    /// Whether request `id` is still waiting for its answer.
    pub fn is_pending(&self, id: &Value) -> bool {
        self.pending
            .lock()
            .map(|p| p.contains(&id_key(id)))
            .unwrap_or(false)
    }

    /// Whether a limit was passed and the reader should stop.
    pub fn is_exceeded(&self) -> bool {
        self.tap.exceeded().is_some()
    }

    fn fail_pending(&self, why: &str) {
        let ids: Vec<String> = self
            .pending
            .lock()
            .map(|p| p.iter().cloned().collect())
            .unwrap_or_default();
        for id in ids {
            if let Ok(id) = serde_json::from_str::<Value>(&id) {
                self.answer_with_error(&id, why.to_string());
            }
        }
    }

    /// Answer a pending request with an error made here (the transport could
    /// not get the server's answer, e.g. an HTTP 401).
    pub fn fail_request(&self, id: &Value, message: String) {
        self.answer_with_error(id, message);
    }

    fn answer_with_error(&self, id: &Value, message: String) {
        let was_pending = self
            .pending
            .lock()
            .map(|mut p| p.remove(&id_key(id)))
            .unwrap_or(false);
        if !was_pending {
            return;
        }
        let Ok(request_id) = serde_json::from_value::<RequestId>(id.clone()) else {
            return;
        };
        let err = ServerJsonRpcMessage::Error(JsonRpcError {
            jsonrpc: JsonRpcVersion2_0,
            id: Some(request_id),
            error: ErrorData::new(ErrorCode::INTERNAL_ERROR, message, None),
        });
        let _ = self.tx.send(err);
    }

    fn decode(&self, idx: usize, v: &Value, len: usize, to: Option<&str>) {
        let id = v.get("id").filter(|i| !i.is_null()).cloned();
        let is_answer =
            v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some());
        let kept;
        let v = match (is_answer, &id) {
            (true, Some(id)) => match self.keep_handshake_era(id, v) {
                Some(changed) => {
                    kept = changed;
                    &kept
                }
                None => v,
            },
            _ => v,
        };
        // rmcp needs an answer only to end the request: what the server said
        // is read from the tap. A large result goes to rmcp as an empty one
        // (its envelope checked here), instead of as a second copy.
        let stub;
        let v = match (is_answer, &id) {
            (true, Some(id)) if len > STUB_BYTES && v.get("error").is_none() => {
                let envelope_ok = v.get("jsonrpc") == Some(&Value::from("2.0"))
                    && (id.is_string() || id.is_i64() || id.is_u64());
                if envelope_ok {
                    stub = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}});
                    &stub
                } else {
                    v
                }
            }
            _ => v,
        };
        match <ServerJsonRpcMessage as serde::Deserialize>::deserialize(v) {
            Ok(msg) => {
                if let (true, Some(id)) = (is_answer, id.as_ref()) {
                    let known = self
                        .pending
                        .lock()
                        .map(|mut p| p.remove(&id_key(id)))
                        .unwrap_or(false);
                    if !known {
                        self.tap.problem(
                            idx,
                            format!("the server sent a response with id {id}, which matches no open request"),
                        );
                    }
                }
                let _ = self.tx.send(msg);
            }
            Err(e) => {
                // Quote it, and say what it came in answer to when known:
                // `while answering tools/call` would blame the wrong request.
                let context = to
                    .map(|m| format!(" in the HTTP answer to {m}"))
                    .unwrap_or_default();
                let message = format!(
                    "the server sent a message that is not valid JSON-RPC{context} ({e}): {}",
                    mcpcheck_core::truncate(&v.to_string(), 200)
                );
                self.tap.problem(idx, message.clone());
                if let (true, Some(id)) = (is_answer, id) {
                    self.answer_with_error(&id, message);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_initialize_answer_naming_a_stateless_revision_keeps_the_handshake_era() {
        use rmcp::model::{ClientRequest, CustomRequest, ServerResult};
        let tap = Arc::new(Tap::default());
        let (mut transport, _out, inbound) = pair(tap.clone());
        let request = ClientJsonRpcMessage::request(
            ClientRequest::CustomRequest(CustomRequest::new(
                "initialize",
                Some(serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {}})),
            )),
            RequestId::Number(0),
        );
        transport.send(request).await.expect("sent");
        let answer = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2026-07-28","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
        inbound.deliver(answer);
        // The tap keeps what the server sent; rmcp is given the version asked for.
        assert!(tap.all()[1].raw.contains("2026-07-28"));
        let Some(rmcp::model::JsonRpcMessage::Response(r)) = transport.receive().await else {
            panic!("a response");
        };
        let ServerResult::InitializeResult(result) = r.result else {
            panic!("an initialize result: {:?}", r.result);
        };
        assert_eq!(result.protocol_version.as_str(), "2025-11-25");
    }

    #[test]
    fn a_lone_surrogate_escape_is_read_as_a_replacement_character() {
        let (v, n) = parse_lossy(r#"{"d": "a\udfffb", "k\ud800": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(n, 2);
        assert_eq!(v["d"], "a\u{fffd}b");
        assert_eq!(v["k\u{fffd}"], "\u{1f600}", "a pair is kept");
        // An escaped backslash before `u` is not an escape; valid text is
        // not rewritten at all.
        assert_eq!(replace_lone_surrogates(r#"{"a": "\\udfff"}"#), None);
        assert_eq!(parse_lossy(r#"{"a": "\\udfff"}"#).unwrap().1, 0);
        // Text that is not JSON for another reason is still an error.
        assert!(parse_lossy(r#"{"a": "\udfff", }"#).is_err());
        assert!(parse_lossy("not json").is_err());
    }

    #[test]
    fn an_answer_with_a_lone_surrogate_reaches_its_request_and_is_noted() {
        let tap = Arc::new(Tap::default());
        let (_transport, _out, inbound) = pair(tap.clone());
        inbound.deliver(
            r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t","description":"x\udfff"}]}}"#,
        );
        let events = tap.all();
        let json = events[0].json.as_ref().expect("read, not refused");
        assert_eq!(json["result"]["tools"][0]["description"], "x\u{fffd}");
        let problems = tap.problems_since(0);
        assert!(
            problems[0].message.contains("1 lone surrogate escape"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_message_that_is_not_json_rpc_is_quoted_and_named_by_what_it_answered() {
        let tap = Arc::new(Tap::default());
        let (_transport, _out, inbound) = pair(tap.clone());
        inbound.deliver_in_answer_to(
            r#"{"jsonrpc": "2.0", "oops": true}"#,
            Some("notifications/initialized"),
        );
        inbound.deliver(r#"{"jsonrpc": "2.0", "what": 1}"#);
        let problems = tap.problems_since(0);
        assert_eq!(problems.len(), 2, "{problems:?}");
        let first = &problems[0].message;
        assert!(
            first.starts_with(
                "the server sent a message that is not valid JSON-RPC in the HTTP answer to notifications/initialized ("
            ),
            "{first}"
        );
        assert!(
            first.ends_with(r#"): {"jsonrpc":"2.0","oops":true}"#),
            "{first}"
        );
        let second = &problems[1].message;
        assert!(!second.contains("in the HTTP answer"), "{second}");
        assert!(
            second.ends_with(r#"{"jsonrpc":"2.0","what":1}"#),
            "{second}"
        );
    }
}
