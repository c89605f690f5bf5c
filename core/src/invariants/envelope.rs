//! JSON-RPC envelope rules: error objects (INV-006, INV-007), how responses pair with
//! requests (INV-008, INV-009, INV-010), notifications (INV-011) and lines that are
//! not JSON at all (INV-021).

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

use super::Sink;
use super::capability::capability_of;
use super::json;
use super::rules::Rule;
use super::session::{SessionCtx, Slot, has_capability};
use crate::capture::{Id, Message, MethodKind, Side};

/// INV-006: every error envelope carries an integer code and a string message.
pub(crate) fn error_envelope(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    ctx.for_each_message(|located| {
        let Some(error) = located.message.error() else {
            return;
        };
        let what = format!("the error of {}", located.place());
        let Some(object) = json::Object::new(error) else {
            out.push(
                Rule::ErrorEnvelope,
                located.exchange,
                format!(
                    "{what} is {}, not an object with code and message",
                    json::type_name(error)
                ),
            );
            return;
        };
        let mut problems = Vec::new();
        match object.get("code") {
            None => problems.push("has no code".to_string()),
            Some(code) if !json::is_integer(code) => {
                problems.push(format!(
                    "has code {}, which is not an integer",
                    json::snippet(code, 40)
                ));
            }
            Some(_) => {}
        }
        match object.get("message") {
            None => problems.push("has no message".to_string()),
            Some(message) if json::as_str(message).is_none() => {
                problems.push(format!(
                    "has message {}, which is not a string",
                    json::snippet(message, 40)
                ));
            }
            Some(_) => {}
        }
        if !problems.is_empty() {
            out.push(
                Rule::ErrorEnvelope,
                located.exchange,
                format!("{what} {}", problems.join(" and ")),
            );
        }
    });
}

fn not_found_pattern() -> Option<&'static Regex> {
    static PATTERN: OnceLock<Option<Regex>> = OnceLock::new();
    PATTERN
        .get_or_init(|| {
            Regex::new(
                r#"(?i)\b(?:method\s+not\s+found|unknown\s+method|no\s+such\s+method|unsupported\s+method|method\s+(?:['"`]?[\w/.\-]+['"`]?\s+)?(?:is\s+)?not\s+(?:found|supported|implemented|available))\b"#,
            )
            .ok()
        })
        .as_ref()
}

const METHOD_NOT_FOUND: i128 = -32601;

/// Methods in this namespace are never served: mcpcheck's probes use it for unknown
/// methods.
pub(crate) const PROBE_NAMESPACE: &str = "mcpcheck/";

/// INV-007: a method-not-found error uses -32601. An error is a method-not-found error
/// when its message says so, or when it answers a method gated behind a server
/// capability the server did not advertise (2026-07-28 schema, MethodNotFoundError),
/// or answers a method in the `mcpcheck/` namespace, which no server serves.
pub(crate) fn method_not_found_code(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    ctx.for_each_message(|located| {
        let Some(error) = located.message.error() else {
            return;
        };
        let code = json::member(error, "code");
        let Some(code) = code else {
            return;
        };
        if Id::from_json(code) == Id::Int(METHOD_NOT_FOUND) {
            return;
        }
        // A 2026-07-28 request the server must refuse is judged by INV-040 … INV-048,
        // which say which code: a malformed probe of a method the server does not
        // offer must get -32602, -32020 or -32022, never INV-007's -32601.
        if let (Slot::Response, Some(index)) = (located.slot, located.exchange)
            && super::modern::refusal_expected(ctx, index).is_some()
        {
            return;
        }
        let code = code.trim();
        if let Some(message) = json::member(error, "message").and_then(json::as_str)
            && not_found_pattern().is_some_and(|p| p.is_match(&message))
        {
            out.push(
                Rule::MethodNotFoundCode,
                located.exchange,
                format!(
                    "the error of {} says {:?} but has code {code}, not -32601",
                    located.place(),
                    json::snippet(&message, 80)
                ),
            );
            return;
        }
        // The `mcpcheck/` namespace is mcpcheck's own and no server serves it: the
        // conformance probe sends `mcpcheck/no-such-method` to see the error for an
        // unknown method, so any other code there is a finding.
        if let (Slot::Response, Some(index)) = (located.slot, located.exchange)
            && let Some(exchange) = ctx.session.exchanges.get(index)
            && exchange.request.method_str().starts_with(PROBE_NAMESPACE)
        {
            out.push(
                Rule::MethodNotFoundCode,
                located.exchange,
                format!(
                    "{} is a method no server offers, but the server answered it with code {code}, not -32601",
                    exchange.request.method_str()
                ),
            );
            return;
        }
        // Only when the server's capabilities were actually recorded: a capture that
        // lacks them says nothing about what the server left out.
        let (Slot::Response, Some(caps), Some(index)) = (located.slot, &ctx.server_caps, located.exchange) else {
            return;
        };
        let Some(exchange) = ctx.session.exchanges.get(index) else {
            return;
        };
        let method = exchange.request.method_str();
        if let Some(capability) = capability_of(exchange.request.kind())
            && !has_capability(caps, capability)
        {
            out.push(
                Rule::MethodNotFoundCode,
                located.exchange,
                format!(
                    "the server did not advertise `{capability}`, so {method} is a method it does not offer, but it answered with code {code}, not -32601"
                ),
            );
        }
    });
}

/// An error response that may lack an id: the request could not be read (JSON-RPC
/// parse error or invalid request), the one case where the spec lets the id go.
fn is_unreadable_request_error(message: &Message<'_>) -> bool {
    let id_missing = matches!(message.id(), None | Some(Id::Null));
    let code = message
        .error()
        .and_then(|e| json::member(e, "code"))
        .map(Id::from_json);
    id_missing && matches!(code, Some(Id::Int(-32700 | -32600)))
}

/// Whether an id is one JSON-RPC allows on a request (MCP: string or integer).
fn is_valid_request_id(id: &Id<'_>) -> bool {
    matches!(id, Id::Int(_) | Id::Str(_))
}

/// INV-008 and INV-009: every response answers exactly one earlier request, and no
/// response comes without one.
pub(crate) fn response_pairing(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let exchanges = &ctx.session.exchanges;
    // Client request ids, first use wins.
    let mut client_ids: HashMap<Id<'_>, usize> = HashMap::with_capacity(exchanges.len());
    for (index, exchange) in exchanges.iter().enumerate() {
        let request = &exchange.request;
        if let (true, Some(id)) = (request.is_request(), request.id()) {
            if let Some(&first) = client_ids.get(&id) {
                out.push(
                    Rule::ResponseAnswersOne,
                    Some(index),
                    format!(
                        "request id {id} of {} was already used by exchange {first}, so a response to it cannot answer exactly one request",
                        request.method_str()
                    ),
                );
            } else {
                client_ids.insert(id, index);
            }
        }
        let Some(response) = &exchange.response else {
            continue;
        };
        if !request.is_request() {
            if request.is_notification() {
                out.push(
                    Rule::NoResponseWithoutRequest,
                    Some(index),
                    format!(
                        "the notification {} was answered; notifications take no response",
                        request.method_str()
                    ),
                );
            }
            continue;
        }
        check_reply_id(request, response, Some(index), "response", out);
    }

    // Server→client requests: the server's own id space.
    let mut server_ids: HashMap<Id<'_>, (Option<usize>, String)> = HashMap::new();
    ctx.for_each_message(|located| {
        let message = located.message;
        let server_request = match located.slot {
            Slot::ServerRequest(_) => true,
            Slot::Unmatched(_) => message.is_request(),
            _ => false,
        };
        if server_request && let Some(id) = &message.id() {
            let place = located.place();
            if let Some((first_exchange, first_place)) = server_ids.get(id) {
                let at = first_exchange.map_or_else(|| "the session".to_string(), |i| format!("exchange {i}"));
                out.push(
                    Rule::ResponseAnswersOne,
                    located.exchange,
                    format!("the server reuses request id {id} in {place}; {first_place} in {at} already used it"),
                );
            } else {
                server_ids.insert(id.clone(), (located.exchange, place));
            }
        }
    });
    for (index, exchange) in exchanges.iter().enumerate() {
        for (n, entry) in exchange.server_requests().iter().enumerate() {
            if let Some(reply) = &entry.response {
                let place = format!("reply to server request {n}");
                check_reply_id(&entry.request, reply, Some(index), &place, out);
            }
        }
    }

    for (n, entry) in ctx.session.unmatched.iter().enumerate() {
        if let (true, Some(reply)) = (entry.message.is_request(), &entry.response) {
            let place = format!("reply to unmatched message {n}");
            check_reply_id(&entry.message, reply, entry.after_exchange, &place, out);
        }
    }

    // Unmatched server messages that look like responses.
    for entry in &ctx.session.unmatched {
        let message = &entry.message;
        if !message.is_response() || is_unreadable_request_error(message) {
            continue;
        }
        let at = entry.after_exchange;
        let Some(id) = &message.id() else {
            out.push(
                Rule::NoResponseWithoutRequest,
                at,
                "an unmatched response carries no id, so it answers no request".to_string(),
            );
            continue;
        };
        match client_ids.get(id) {
            None => out.push(
                Rule::NoResponseWithoutRequest,
                at,
                format!("a response with id {id} arrived, but the client sent no request with that id"),
            ),
            Some(&request_index) if at.is_none_or(|after| request_index > after) => out.push(
                Rule::ResponseAnswersOne,
                at,
                format!("a response with id {id} arrived before the request it names (exchange {request_index}) was sent"),
            ),
            Some(&request_index) => {
                let answered = exchanges.get(request_index).is_some_and(|e| e.response.is_some());
                if answered {
                    out.push(
                        Rule::ResponseAnswersOne,
                        at,
                        format!("a second response with id {id} arrived; exchange {request_index} was already answered"),
                    );
                }
            }
        }
    }
}

fn check_reply_id(
    request: &Message<'_>,
    reply: &Message<'_>,
    at: Option<usize>,
    place: &str,
    out: &mut Sink,
) {
    let (Some(expected), true) = (&request.id(), reply.is_response()) else {
        return;
    };
    if reply.id().as_ref() == Some(expected) {
        return;
    }
    // Only a request whose id could not be read may be answered without one.
    if !is_valid_request_id(expected)
        && matches!(reply.id(), None | Some(Id::Null))
        && reply.error().is_some()
    {
        return;
    }
    let got = reply
        .id()
        .as_ref()
        .map_or_else(|| "no id".to_string(), |id| format!("id {id}"));
    out.push(
        Rule::ResponseAnswersOne,
        at,
        format!(
            "the {place} carries {got}, but answers {} with id {expected}",
            request.method_str()
        ),
    );
}

/// INV-010: a response carries exactly one of result and error.
pub(crate) fn result_xor_error(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    ctx.for_each_message(|located| {
        let message = located.message;
        let is_response_slot = matches!(
            located.slot,
            Slot::Response | Slot::ServerReply(_) | Slot::UnmatchedReply(_) | Slot::Unmatched(_)
        );
        if !is_response_slot || !message.is_response() {
            return;
        }
        let problem = match (message.result().is_some(), message.error().is_some()) {
            (true, true) => "carries both result and error",
            (false, false) => "carries neither result nor error",
            _ => return,
        };
        out.push(
            Rule::ResultXorError,
            located.exchange,
            format!("{} {problem}", located.place()),
        );
    });
}

/// INV-011: notifications carry no id.
pub(crate) fn notification_no_id(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    ctx.for_each_message(|located| {
        let message = located.message;
        if !message.has_id() {
            return;
        }
        let listed_as_notification = matches!(located.slot, Slot::Notification(_));
        if listed_as_notification || is_notification_method(message) {
            out.push(
                Rule::NotificationNoId,
                located.exchange,
                format!(
                    "{} is a notification, and notifications carry no id",
                    located.place()
                ),
            );
        }
    });
}

/// Whether a message's method is a notification method (`notifications/…`).
fn is_notification_method(message: &Message<'_>) -> bool {
    match message.kind() {
        MethodKind::Initialized
        | MethodKind::Progress
        | MethodKind::LogMessage
        | MethodKind::ToolsListChanged
        | MethodKind::PromptsListChanged
        | MethodKind::ResourcesListChanged
        | MethodKind::ResourcesUpdated => true,
        MethodKind::Other => message.method_str().starts_with("notifications/"),
        _ => false,
    }
}

/// INV-021: everything the server writes is JSON.
pub(crate) fn server_writes_json(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let transport = ctx.session.transport.as_deref().unwrap_or("the transport");
    let mut report = |at: Option<usize>, text: &str| {
        out.push(
            Rule::ServerWritesJson,
            at,
            format!(
                "the server wrote a line that is not JSON on {transport}: {:?}",
                json::snippet(text, 80)
            ),
        );
    };
    let mut session_lines: Vec<_> = ctx
        .session
        .raw
        .iter()
        .filter(|l| l.from == Side::Server)
        .collect();
    session_lines.sort_by_key(|l| l.after_exchange);
    let mut session_lines = session_lines.into_iter().peekable();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        while let Some(line) = session_lines.next_if(|l| l.after_exchange.is_none_or(|a| a < index))
        {
            report(line.after_exchange, &line.text);
        }
        for line in exchange
            .raw_lines()
            .iter()
            .filter(|l| l.from == Side::Server)
        {
            report(Some(index), &line.text);
        }
    }
    for line in session_lines {
        report(line.after_exchange, &line.text);
    }
}

/// INV-022: every request the client sent gets a response (or an error),
/// unless the client cancelled it with `notifications/cancelled` or stopped
/// waiting by a limit of its own (`client_gave_up`). A server that crashed or
/// hung leaves its request unanswered.
pub(crate) fn request_answered(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let exchanges = &ctx.session.exchanges;
    // Ids the client cancelled, as their JSON text.
    let cancelled: Vec<String> = exchanges
        .iter()
        .filter(|x| x.request.method_is("notifications/cancelled"))
        .filter_map(|x| x.request.params())
        .filter_map(|p| serde_json::from_str::<serde_json::Value>(p).ok())
        .filter_map(|p| p.get("requestId").map(serde_json::Value::to_string))
        .collect();
    // A response that arrived out of place (in `unmatched`) still answers.
    let answered_elsewhere: Vec<String> = ctx
        .session
        .unmatched
        .iter()
        .filter(|u| u.message.is_response())
        .filter_map(|u| u.message.id())
        .map(|id| id.to_string())
        .collect();
    for (index, exchange) in exchanges.iter().enumerate() {
        let request = &exchange.request;
        if !request.is_request() || exchange.response.is_some() {
            continue;
        }
        let Some(id) = request.id() else { continue };
        let id_text = id.to_string();
        if cancelled.contains(&id_text) || answered_elsewhere.contains(&id_text) {
            continue;
        }
        // The client stopped waiting by a limit of its own (its time ran out while
        // the server was still working, its session budget ended the session):
        // that says nothing about the server.
        if exchange.client_gave_up().is_some() {
            continue;
        }
        // A 2026-07-28 subscriptions/listen stream has no result: it runs until the
        // client closes it (over HTTP by closing the stream, which a capture does
        // not show), and its acknowledgment is its answer.
        if request.method_is("subscriptions/listen")
            && exchange
                .notifications()
                .iter()
                .any(|n| n.method_is("notifications/subscriptions/acknowledged"))
        {
            continue;
        }
        out.push(
            Rule::RequestAnswered,
            Some(index),
            format!(
                "request {} (id {id}) was never answered",
                request.method_str()
            ),
        );
    }
}
