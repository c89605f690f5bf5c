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

use super::tap::{Dir, Tap};

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
        let idx = self.tap.record_http(Dir::In, text, status);
        match serde_json::from_str::<Value>(text) {
            Err(_) => self.tap.problem(
                idx,
                format!(
                    "the server sent text that is not JSON-RPC: {}",
                    mcpcheck_core::truncate(text, 200)
                ),
            ),
            Ok(Value::Array(items)) => {
                for item in items {
                    self.decode(idx, item, to);
                }
            }
            Ok(v) => self.decode(idx, v, to),
        }
    }

    /// `initialize` negotiates only handshake revisions. An answer naming a
    /// stateless one (2026-07-28) would make rmcp carry that revision's
    /// `_meta` on every later request: the session would leave the era it
    /// opened. rmcp is given the version the client asked for instead; the
    /// tap has already recorded what the server sent, for the invariants to
    /// judge (INV-019).
    fn keep_handshake_era(&self, id: &Value, v: &mut Value) {
        let asked = self.initialize.lock().ok().and_then(|slot| {
            slot.as_ref()
                .filter(|(key, _)| *key == id_key(id))
                .map(|(_, asked)| asked.clone())
        });
        let Some(asked) = asked else {
            return;
        };
        if let Some(version) = v.pointer_mut("/result/protocolVersion")
            && version
                .as_str()
                .is_some_and(mcpcheck_core::suite::is_stateless)
            && !mcpcheck_core::suite::is_stateless(&asked)
        {
            *version = Value::String(asked);
        }
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

    fn decode(&self, idx: usize, mut v: Value, to: Option<&str>) {
        let id = v.get("id").filter(|i| !i.is_null()).cloned();
        let is_answer =
            v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some());
        if let (true, Some(id)) = (is_answer, id.as_ref()) {
            self.keep_handshake_era(id, &mut v);
        }
        match <ServerJsonRpcMessage as serde::Deserialize>::deserialize(&v) {
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
