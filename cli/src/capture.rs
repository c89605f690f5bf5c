//! Captures: a session's wire log written in the capture format of
//! `docs/capture.md`, so `mcpcheck invariants` and the playground can judge it.
//!
//! Messages are written exactly as they crossed the wire (as raw JSON text),
//! and placed as the format says: client requests pair with responses by id;
//! client notifications are exchanges without a response; progress
//! notifications join the exchange whose request carried their token, other
//! server notifications and server→client requests the most recent exchange
//! still open; what matches nothing goes to `unmatched`; lines that were not
//! JSON go to `raw`.

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::client::tap::{Dir, Event};

#[derive(Serialize)]
struct Session {
    server_label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_capabilities: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_capabilities: Option<Value>,
    /// Left out when the session never said (a recorder that saw no
    /// handshake); readers then take the default.
    #[serde(skip_serializing_if = "String::is_empty")]
    protocol_version: String,
    transport: &'static str,
    exchanges: Vec<Exchange>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unmatched: Vec<Unmatched>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    raw: Vec<RawLine>,
}

#[derive(Serialize)]
struct Exchange {
    request: Box<RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<Box<RawValue>>,
    request_time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_time: Option<String>,
    /// Over HTTP, the status of the answer that carried the response.
    #[serde(skip_serializing_if = "Option::is_none")]
    http_status: Option<u16>,
    /// Over HTTP, the `MCP-Protocol-Version` header the request carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol_version_header: Option<String>,
    /// Over HTTP in 2026-07-28, the other MCP headers the request carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    request_headers: Option<serde_json::Map<String, Value>>,
    /// Why the client stopped waiting for the answer by a limit of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    client_gave_up: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notifications: Vec<Box<RawValue>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notification_times: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    server_requests: Vec<ServerRequest>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    raw: Vec<RawLine>,
    /// The request's id, method and progress token, to place what follows.
    #[serde(skip)]
    id: Option<Value>,
    #[serde(skip)]
    method: Option<String>,
    #[serde(skip)]
    progress_token: Option<Value>,
}

#[derive(Serialize)]
struct ServerRequest {
    request: Box<RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<Box<RawValue>>,
    request_time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_time: Option<String>,
    #[serde(skip)]
    id: Option<Value>,
}

impl Unmatched {
    /// A message that belongs to no exchange, after exchange `after` (if any).
    fn lone(e: &Event, after: Option<usize>, id: Option<Value>) -> Self {
        Unmatched {
            message: raw(e),
            time: e.time.clone(),
            after_exchange: after,
            response: None,
            response_time: None,
            id,
        }
    }
}

#[derive(Serialize)]
struct Unmatched {
    message: Box<RawValue>,
    time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    after_exchange: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_time: Option<String>,
    #[serde(skip)]
    id: Option<Value>,
}

#[derive(Serialize)]
struct RawLine {
    text: String,
    from: &'static str,
    time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    after_exchange: Option<usize>,
}

/// What a capture is made from.
pub struct Recording<'a> {
    pub label: &'a str,
    pub transport: &'static str,
    pub protocol_version: &'a str,
    pub events: &'a [Event],
}

fn raw(e: &Event) -> Box<RawValue> {
    // The tap kept the text and parsed it; only JSON events come here.
    RawValue::from_string(e.raw.trim().to_string()).unwrap_or_else(|_| {
        RawValue::from_string(
            e.json
                .as_deref()
                .map(Value::to_string)
                .unwrap_or_else(|| "null".into()),
        )
        .unwrap_or_else(|_| Box::<RawValue>::default())
    })
}

/// Build the capture document (pretty JSON text) of one session.
pub fn render(rec: &Recording<'_>) -> String {
    let mut s = Session {
        server_label: rec.label.to_string(),
        server_capabilities: None,
        client_capabilities: None,
        protocol_version: rec.protocol_version.to_string(),
        transport: rec.transport,
        exchanges: Vec::new(),
        unmatched: Vec::new(),
        raw: Vec::new(),
    };
    for e in rec.events {
        let last_sent = s.exchanges.len().checked_sub(1);
        let open = s
            .exchanges
            .iter()
            .rposition(|x| x.id.is_some() && x.response.is_none());
        // A message too large to hold as values is still JSON: it goes
        // where its id says, as its text.
        let Some(json) = e.json.as_deref().or(e.is_json().then_some(&Value::Null)) else {
            let line = RawLine {
                text: e.raw.to_string(),
                from: if e.dir == Dir::In { "server" } else { "client" },
                time: e.time.clone(),
                after_exchange: None,
            };
            match open {
                Some(i) => s.exchanges[i].raw.push(line),
                None => s.raw.push(RawLine {
                    after_exchange: last_sent,
                    ..line
                }),
            }
            continue;
        };
        match e.dir {
            Dir::Out if e.method().is_some() => {
                if e.method() == Some("initialize")
                    && let Some(caps) = json.pointer("/params/capabilities")
                {
                    s.client_capabilities = Some(caps.clone());
                } else if e.method() == Some("server/discover") && s.client_capabilities.is_none() {
                    // 2026-07-28: no initialize; the first request's `_meta`.
                    s.client_capabilities = json
                        .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
                        .cloned();
                }
                s.exchanges.push(Exchange {
                    request: raw(e),
                    response: None,
                    request_time: e.time.clone(),
                    response_time: None,
                    http_status: None,
                    protocol_version_header: e.version_header.clone(),
                    request_headers: e.request_headers.as_ref().map(|h| {
                        h.iter()
                            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                            .collect()
                    }),
                    client_gave_up: e.gave_up.clone(),
                    notifications: Vec::new(),
                    notification_times: Vec::new(),
                    server_requests: Vec::new(),
                    raw: Vec::new(),
                    id: e.id().cloned(),
                    method: e.method().map(str::to_string),
                    progress_token: json.pointer("/params/_meta/progressToken").cloned(),
                });
            }
            Dir::Out => {
                // Our answer to a server→client request.
                let id = e.id().cloned();
                let in_exchange = s.exchanges.iter_mut().rev().find_map(|x| {
                    x.server_requests
                        .iter_mut()
                        .find(|r| r.id == id && r.response.is_none())
                });
                if let Some(r) = in_exchange {
                    r.response = Some(raw(e));
                    r.response_time = Some(e.time.clone());
                } else if let Some(u) = s
                    .unmatched
                    .iter_mut()
                    .rev()
                    .find(|u| u.id == id && u.response.is_none())
                {
                    u.response = Some(raw(e));
                    u.response_time = Some(e.time.clone());
                } else {
                    s.unmatched.push(Unmatched::lone(e, last_sent, None));
                }
            }
            Dir::In if e.is_response() => {
                let id = e.id();
                let target = s
                    .exchanges
                    .iter()
                    .position(|x| x.id.as_ref() == id && id.is_some() && x.response.is_none());
                match target {
                    Some(i) => {
                        let x = &mut s.exchanges[i];
                        if matches!(x.method.as_deref(), Some("initialize" | "server/discover"))
                            && s.server_capabilities.is_none()
                        {
                            s.server_capabilities = json.pointer("/result/capabilities").cloned();
                        }
                        x.response = Some(raw(e));
                        x.response_time = Some(e.time.clone());
                        x.http_status = e.http_status;
                    }
                    None => s.unmatched.push(Unmatched::lone(e, last_sent, None)),
                }
            }
            Dir::In if e.is_request() => match open {
                Some(i) => s.exchanges[i].server_requests.push(ServerRequest {
                    request: raw(e),
                    response: None,
                    request_time: e.time.clone(),
                    response_time: None,
                    id: e.id().cloned(),
                }),
                None => s
                    .unmatched
                    .push(Unmatched::lone(e, last_sent, e.id().cloned())),
            },
            Dir::In => {
                // A notification (or a message that is neither): progress goes
                // with the request that carried its token.
                let token = (e.method() == Some("notifications/progress"))
                    .then(|| json.pointer("/params/progressToken").cloned())
                    .flatten();
                let target = match &token {
                    Some(t) => s
                        .exchanges
                        .iter()
                        .rposition(|x| x.progress_token.as_ref() == Some(t))
                        .or(open),
                    None => open,
                };
                match target {
                    Some(i) => {
                        s.exchanges[i].notifications.push(raw(e));
                        s.exchanges[i].notification_times.push(e.time.clone());
                    }
                    None => s.unmatched.push(Unmatched::lone(e, last_sent, None)),
                }
            }
        }
    }
    serde_json::to_string_pretty(&s).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Hide secrets in a capture's text: each secret as written and as it reads
/// inside a JSON string (where quotes and backslashes are escaped).
pub fn redact(text: &str, redactor: &mcpcheck_core::redact::Redactor) -> String {
    let mut r = redactor.clone();
    for secret in redactor.secrets() {
        let quoted = serde_json::to_string(secret).unwrap_or_default();
        let inner = quoted.trim_start_matches('"').trim_end_matches('"');
        if inner != secret {
            r.secret(inner);
        }
    }
    let out = r.redact_str(text);
    // A secret the server wrote with JSON escapes of its own (`\u0073k-…`
    // for `sk-…`) survives a search of the text: look in the decoded
    // document too, and where one is still there, give up the messages'
    // exact text for a re-serialized document that hides it.
    if let Ok(v) = serde_json::from_str::<Value>(&out) {
        let hidden = r.redact_json(&v);
        if hidden != v {
            return serde_json::to_string_pretty(&hidden).unwrap_or(out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exchange_keeps_its_http_status_and_version_header_when_there_are_some() {
        let tap = crate::client::tap::Tap::default();
        tap.record(Dir::Out, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        tap.note_version_header(&serde_json::json!(1), "2026-07-28");
        tap.record_http(
            Dir::In,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#,
            Some(404),
        );
        tap.record(Dir::Out, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        tap.record(Dir::In, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
        let events = tap.all();
        let text = render(&Recording {
            label: "test",
            transport: "http",
            protocol_version: "2026-07-28",
            events: &events,
        });
        let capture: Value = serde_json::from_str(&text).expect("JSON");
        let first = &capture["exchanges"][0];
        assert_eq!(first["http_status"], 404, "{text}");
        assert_eq!(first["protocol_version_header"], "2026-07-28", "{text}");
        let second = capture["exchanges"][1].as_object().expect("an exchange");
        assert!(!second.contains_key("http_status"), "{text}");
        assert!(!second.contains_key("protocol_version_header"), "{text}");
        assert!(!second.contains_key("request_headers"), "{text}");
        assert!(!second.contains_key("client_gave_up"), "{text}");
    }

    #[test]
    fn an_exchange_keeps_its_request_headers_and_why_the_client_gave_up() {
        let tap = crate::client::tap::Tap::default();
        tap.record(
            Dir::Out,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}"#,
        );
        let id = serde_json::json!(1);
        tap.note_request_headers(
            &id,
            vec![
                ("mcp-method".into(), "tools/call".into()),
                ("mcp-name".into(), "slow".into()),
            ],
        );
        tap.note_gave_up(&id, "the client stopped waiting after 10 s");
        let events = tap.all();
        let text = render(&Recording {
            label: "test",
            transport: "http",
            protocol_version: "2026-07-28",
            events: &events,
        });
        let capture: Value = serde_json::from_str(&text).expect("JSON");
        let first = &capture["exchanges"][0];
        assert_eq!(
            first["request_headers"],
            serde_json::json!({"mcp-method": "tools/call", "mcp-name": "slow"}),
            "{text}"
        );
        assert_eq!(
            first["client_gave_up"], "the client stopped waiting after 10 s",
            "{text}"
        );
        assert_eq!(tap.unanswered_since(0), vec![id]);
    }

    #[test]
    fn a_secret_the_server_escaped_its_own_way_is_hidden_too() {
        let mut r = mcpcheck_core::redact::Redactor::new();
        r.secret("sk-live-1234567890");
        // As written, the capture text holds the secret only escaped.
        let text = "{\n  \"exchanges\": [{\"response\": {\"text\": \"key: \\u0073k-live-12345678\\u0039\\u0030\"}}]\n}";
        let out = redact(text, &r);
        let decoded: Value = serde_json::from_str(&out).expect("still JSON");
        assert!(!decoded.to_string().contains("sk-live-1234567890"), "{out}");
        assert!(out.contains("***"), "{out}");
        // Text without hidden secrets keeps its exact form.
        let plain = "{\n  \"exchanges\": [{\"response\": {\"text\": \"caf\\u00e9\"}}]\n}";
        assert_eq!(redact(plain, &r), plain);
    }
}
