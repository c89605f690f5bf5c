//! Capability rules: what a server does matches what it advertised (INV-003, INV-004,
//! INV-015, INV-016, INV-017), and what it asks of the client matches what the client
//! declared (INV-018).

use serde_json::Value;

use super::Sink;
use super::json;
use super::rules::Rule;
use super::session::{META_LOG_LEVEL, SessionCtx, Slot, has_capability, has_flag, meta};
use crate::capture::{Id, Message, MethodKind};

/// The server capability a client method is gated behind.
pub(crate) fn capability_of(kind: MethodKind) -> Option<&'static str> {
    match kind {
        MethodKind::ToolsList | MethodKind::ToolsCall => Some("tools"),
        MethodKind::ResourcesList
        | MethodKind::ResourcesRead
        | MethodKind::ResourcesTemplatesList
        | MethodKind::ResourcesSubscribe
        | MethodKind::ResourcesUnsubscribe => Some("resources"),
        MethodKind::PromptsList | MethodKind::PromptsGet => Some("prompts"),
        MethodKind::CompletionComplete => Some("completions"),
        MethodKind::LoggingSetLevel => Some("logging"),
        _ => None,
    }
}

/// INV-003: a server that answers tools/list, resources/list or prompts/list
/// advertised the matching capability.
pub(crate) fn list_needs_capability(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let Some(caps) = ctx.server_caps_for_rules() else {
        return;
    };
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let (method, capability) = match exchange.request.kind() {
            MethodKind::ToolsList => ("tools/list", "tools"),
            MethodKind::ResourcesList => ("resources/list", "resources"),
            MethodKind::PromptsList => ("prompts/list", "prompts"),
            _ => continue,
        };
        let answered = exchange
            .response
            .as_ref()
            .is_some_and(|r| r.result().is_some() && r.error().is_none());
        if answered && !has_capability(caps, capability) {
            out.push(
                Rule::ListNeedsCapability,
                Some(index),
                format!("the server answered {method} but did not advertise the `{capability}` capability"),
            );
        }
    }
}

/// JSON-RPC invalid params.
const INVALID_PARAMS: i128 = -32602;
/// 2026-07-28 MissingRequiredClientCapabilityError.
const MISSING_CAPABILITY: i128 = -32021;

/// INV-004: a server that advertised a capability does not error on every call to it.
/// Calls refused for invalid parameters (-32602) or, in 2026-07-28, for a client
/// capability the request did not declare (-32021) are not counted.
pub(crate) fn capability_not_all_errors(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let Some(caps) = ctx.server_caps_for_rules() else {
        return;
    };
    for capability in ["tools", "resources", "prompts", "completions", "logging"] {
        if !has_capability(caps, capability) {
            continue;
        }
        let mut first = None;
        let mut calls = 0usize;
        let mut all_errors = true;
        for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
            if !exchange.request.is_request()
                || capability_of(exchange.request.kind()) != Some(capability)
            {
                continue;
            }
            let Some(response) = &exchange.response else {
                continue;
            };
            // A 2026-07-28 request the server must refuse (logging/setLevel is
            // removed there) is judged by INV-040 … INV-043, not here.
            if super::modern::refusal_expected(ctx, index).is_some() {
                continue;
            }
            // mcpcheck's unknown prompt and unknown resource are negative tests:
            // their errors say nothing about whether the capability works.
            if super::modern::gets_probe_prompt(&exchange.request)
                || super::modern::reads_probe_resource(&exchange.request)
            {
                continue;
            }
            // Invalid parameters (-32602) are the client's mistake, often a
            // deliberate negative test (an unknown tool): they say nothing about
            // whether the capability works.
            // So is a 2026-07-28 refusal for a client capability the request did
            // not declare (-32021): the client's to fix.
            if response
                .error()
                .and_then(|e| json::member(e, "code"))
                .is_some_and(|c| {
                    let code = Id::from_json(c);
                    code == Id::Int(INVALID_PARAMS)
                        || (ctx.stateless && code == Id::Int(MISSING_CAPABILITY))
                })
            {
                continue;
            }
            calls += 1;
            if response.error().is_some() {
                first.get_or_insert((index, response));
            } else {
                all_errors = false;
                break;
            }
        }
        if let (true, Some((index, response))) = (all_errors && calls > 0, first) {
            let what = if calls == 1 {
                "its only call".to_string()
            } else {
                format!("all {calls} calls")
            };
            out.push(
                Rule::CapabilityNotAllErrors,
                Some(index),
                format!(
                    "the server advertised `{capability}` but answered {what} to it with an error (first: {})",
                    error_summary(response)
                ),
            );
        }
    }
}

/// `code message` of an error response, for findings.
pub(crate) fn error_summary(response: &Message<'_>) -> String {
    let Some(error) = response.error() else {
        return "no error".to_string();
    };
    let code = json::member(error, "code").map(|c| c.trim().to_string());
    let message = json::member(error, "message").and_then(json::as_str);
    match (code, message) {
        (Some(code), Some(message)) => format!("{code} {}", json::snippet(&message, 80)),
        (Some(code), None) => code,
        _ => json::snippet(error, 80),
    }
}

/// INV-015, INV-016, INV-017: server notifications that need a capability.
pub(crate) fn notification_capabilities(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let caps = ctx.server_caps_for_rules();
    ctx.for_each_message(|located| {
        if !located.slot.is_from_server() || !located.message.is_notification() {
            return;
        }
        let needed = match located.message.kind() {
            MethodKind::ToolsListChanged => {
                Some((Rule::ListChangedCapability, "tools", Some("listChanged")))
            }
            MethodKind::PromptsListChanged => {
                Some((Rule::ListChangedCapability, "prompts", Some("listChanged")))
            }
            MethodKind::ResourcesListChanged => Some((
                Rule::ListChangedCapability,
                "resources",
                Some("listChanged"),
            )),
            MethodKind::ResourcesUpdated => Some((
                Rule::ResourceUpdatedCapability,
                "resources",
                Some("subscribe"),
            )),
            MethodKind::LogMessage => Some((Rule::LoggingCapability, "logging", None)),
            _ => None,
        };
        let Some((rule, capability, flag)) = needed else {
            return;
        };
        if let Some(caps) = caps {
            let advertised = match flag {
                Some(flag) => has_flag(caps, capability, flag),
                None => has_capability(caps, capability),
            };
            if !advertised {
                let wanted = match flag {
                    Some(flag) => format!("`{capability}.{flag}: true`"),
                    None => format!("the `{capability}` capability"),
                };
                out.push(
                    rule,
                    located.exchange,
                    format!(
                        "the server sent {} without advertising {wanted}",
                        located.place()
                    ),
                );
                return;
            }
        }
        // From 2026-07-28 the client asks for log messages per request; a log message
        // for a request that set no level is one the server must not send.
        if ctx.stateless
            && rule == Rule::LoggingCapability
            && let Slot::Notification(_) = located.slot
        {
            let request = located
                .exchange
                .and_then(|i| ctx.session.exchanges.get(i))
                .map(|e| &e.request);
            if let Some(request) = request
                && meta(request, META_LOG_LEVEL).is_none()
            {
                out.push(
                    rule,
                    located.exchange,
                    format!(
                        "the server sent {} for a request whose _meta sets no {META_LOG_LEVEL}",
                        located.place()
                    ),
                );
            }
        }
    });
}

/// INV-018: server→client requests only for capabilities the client declared.
pub(crate) fn client_capabilities(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    ctx.for_each_message(|located| {
        let message = located.message;
        match located.slot {
            Slot::ServerRequest(_) => {}
            Slot::Unmatched(_) if message.is_request() => {}
            Slot::Response if ctx.stateless => {
                // Multi round-trip requests: the server's requests travel inside an
                // InputRequiredResult as `inputRequests`.
                let Some(requests) = message.result().and_then(|r| json::member(r, "inputRequests")) else {
                    return;
                };
                let Some(entries) = json::Object::new(requests) else {
                    return;
                };
                let caps = ctx.client_caps_for(located.exchange);
                for (key, request) in entries.entries() {
                    let method = json::member(request, "method").and_then(json::as_str);
                    let params = json::member(request, "params");
                    if let Some(method) = method
                        && let Some(problem) = missing_client_capability(&caps, &method, params)
                    {
                        out.push(
                            Rule::ClientCapability,
                            located.exchange,
                            format!("the result's inputRequests[{key:?}] asks for {method}, but {problem}"),
                        );
                    }
                }
                return;
            }
            _ => return,
        }
        let caps = ctx.client_caps_for(located.exchange);
        if let Some(problem) = missing_client_capability(&caps, &message.method_str(), message.params()) {
            out.push(
                Rule::ClientCapability,
                located.exchange,
                format!("the server sent {}, but {problem}", located.place()),
            );
        }
    });
}

/// Why a server request needs a client capability the client did not declare.
fn missing_client_capability(caps: &Value, method: &str, params: Option<&str>) -> Option<String> {
    match method {
        "sampling/createMessage" => {
            if !has_capability(caps, "sampling") {
                return Some("the client did not declare the `sampling` capability".to_string());
            }
            let uses_tools = params
                .and_then(|p| json::member(p, "tools"))
                .is_some_and(|t| !json::is_null(t));
            let tools_declared = caps
                .get("sampling")
                .is_some_and(|s| has_capability(s, "tools"));
            (uses_tools && !tools_declared).then(|| {
                "it uses tools and the client did not declare `sampling.tools`".to_string()
            })
        }
        "elicitation/create" => {
            let Some(elicitation) = caps.get("elicitation").filter(|e| !e.is_null()) else {
                return Some("the client did not declare the `elicitation` capability".to_string());
            };
            let mode = params
                .and_then(|p| json::member(p, "mode"))
                .and_then(json::as_str)
                .map_or_else(|| "form".to_string(), |m| m.into_owned());
            // An elicitation capability that names no mode supports form mode only
            // (2025-11-25 client/elicitation §Capabilities).
            let names_modes =
                has_capability(elicitation, "form") || has_capability(elicitation, "url");
            let supported = if names_modes {
                has_capability(elicitation, &mode)
            } else {
                mode == "form"
            };
            (!supported).then(|| format!("the client did not declare elicitation mode `{mode}`"))
        }
        "roots/list" => (!has_capability(caps, "roots"))
            .then(|| "the client did not declare the `roots` capability".to_string()),
        _ => None,
    }
}
