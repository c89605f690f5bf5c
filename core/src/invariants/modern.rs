//! The 2026-07-28 server requirements (INV-040 … INV-046): what a server does with
//! a request of the stateless revision, judged per request in 2026-07-28 sessions.
//!
//! A request is checked in the order the revision's errors imply: its `_meta` first
//! (INV-040), then, over HTTP, that it agrees with the MCP-Protocol-Version header
//! (INV-042), then the version it names (INV-041), then whether the method is still
//! served (INV-043). A request past those checks must be answered with a result that
//! carries `resultType` (INV-045); `server/discover` must describe the server
//! (INV-044); a `subscriptions/listen` stream starts with its acknowledgment and tags
//! every notification with the subscription (INV-046). `initialize` without `_meta`
//! opens a handshake session and is left to the handshake rules. Over HTTP a
//! refusal's status is judged too, when the capture recorded it (400, or 404 for
//! a method that is not served); the header a request carried is the recorded one,
//! else the session's version, which mcpcheck's client sends.

use serde_json::Value;

use super::Sink;
use super::envelope::PROBE_NAMESPACE;
use super::json;
use super::rules::Rule;
use super::session::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, SessionCtx, meta};
use crate::capture::{Exchange, Id, Message};

/// The `_meta` key of the subscription a notification belongs to.
const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Methods the handshake revisions served and 2026-07-28 no longer does.
const REMOVED: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Whether a request of a 2026-07-28 session is one a server must refuse: its
/// `_meta` lacks a required key or names another version, or its method is removed
/// or in mcpcheck's probe namespace. Such requests are sent on purpose, to see the
/// refusal; rules about the client's own messages leave them alone.
pub(crate) fn is_refusal_probe(ctx: &SessionCtx<'_, '_>, request: &Message<'_>) -> bool {
    if !ctx.stateless || !request.is_request() {
        return false;
    }
    let version = meta(request, META_PROTOCOL_VERSION).and_then(json::as_str);
    let caps_ok = meta(request, META_CLIENT_CAPABILITIES).is_some_and(json::is_object);
    let method = request.method_str();
    match version {
        _ if !caps_ok => true,
        None => true,
        Some(v) => {
            Some(v.as_ref()) != ctx.schema_revision.map(|r| r.as_str())
                || REMOVED.contains(&method.as_ref())
                || method.starts_with(PROBE_NAMESPACE)
        }
    }
}

/// The code of an error response, when it is an integer.
fn error_code(response: &Message<'_>) -> Option<i128> {
    match Id::from_json(json::member(response.error()?, "code")?) {
        Id::Int(code) => Some(code),
        _ => None,
    }
}

/// What the answer was, for findings: `code -32602` or `a result`.
fn answer(response: &Message<'_>) -> String {
    match response.error() {
        Some(error) => match json::member(error, "code") {
            Some(code) => format!("an error with code {}", code.trim()),
            None => "an error without a code".to_string(),
        },
        None => "a result".to_string(),
    }
}

/// The versions the server listed in its `server/discover` result.
fn supported_versions(ctx: &SessionCtx<'_, '_>) -> Option<Vec<String>> {
    ctx.session.exchanges.iter().find_map(|e| {
        if !e.request.method_is("server/discover") {
            return None;
        }
        let result = e.response.as_ref()?.result()?;
        let list = json::elements(json::member(result, "supportedVersions")?)?;
        Some(
            list.into_iter()
                .filter_map(|v| json::as_str(v).map(|s| s.into_owned()))
                .collect(),
        )
    })
}

/// A refusal the revision prescribes: its JSON-RPC code, and over HTTP its
/// status and the section that says so.
struct Refusal {
    code: i128,
    status: u16,
    section: &'static str,
}

const META_REFUSAL: Refusal = Refusal {
    code: -32602,
    status: 400,
    section: "basic/index §_meta",
};
const MISMATCH_REFUSAL: Refusal = Refusal {
    code: -32020,
    status: 400,
    section: "basic/transports §Protocol Version Header",
};
const UNSUPPORTED_REFUSAL: Refusal = Refusal {
    code: -32022,
    status: 400,
    section: "basic/transports §Protocol Version Header",
};
const REMOVED_REFUSAL: Refusal = Refusal {
    code: -32601,
    status: 404,
    section: "basic/transports §Protocol Version Header",
};

/// Pushes a finding unless the exchange was refused with the refusal's code
/// and, when the capture recorded the HTTP status of the answer, its status.
fn expect_refusal(
    out: &mut Sink,
    rule: Rule,
    index: usize,
    exchange: &Exchange<'_>,
    refusal: &Refusal,
    why: &str,
) {
    let Some(response) = &exchange.response else {
        return;
    };
    let method = exchange.request.method_str();
    let Refusal {
        code,
        status,
        section,
    } = *refusal;
    if error_code(response) != Some(code) {
        let over_http = exchange
            .http_status
            .map(|s| format!(" (HTTP {s})"))
            .unwrap_or_default();
        out.push(
            rule,
            Some(index),
            format!(
                "{method} {why}, so it must be refused with {code}, but the server answered with {}{over_http}",
                answer(response)
            ),
        );
    } else if let Some(got) = exchange.http_status.filter(|s| *s != status) {
        out.push(
            rule,
            Some(index),
            format!(
                "{method} {why}: the server refused it with {code}, but over HTTP with status {got}, not {status} (MCP 2026-07-28 {section})"
            ),
        );
    }
}

/// INV-040 … INV-046 over every request of a 2026-07-28 session.
pub(crate) fn stateless_requests(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    if !ctx.stateless {
        return;
    }
    let supported = supported_versions(ctx);
    let session_version = ctx.schema_revision.map(|r| r.as_str());
    let http = ctx.session.transport.as_deref() == Some("http");
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        if !request.is_request() {
            continue;
        }
        let version = meta(request, META_PROTOCOL_VERSION).and_then(json::as_str);
        let caps_ok = meta(request, META_CLIENT_CAPABILITIES).is_some_and(json::is_object);
        let Some(version) = version.filter(|_| caps_ok) else {
            if !request.method_is("initialize") {
                expect_refusal(
                    out,
                    Rule::MetaRequired,
                    index,
                    exchange,
                    &META_REFUSAL,
                    "lacks `_meta` protocolVersion or clientCapabilities",
                );
            }
            continue;
        };
        // The MCP-Protocol-Version header the request carried: as recorded, else
        // over HTTP the session's version, which mcpcheck's client sends.
        let header = exchange
            .protocol_version_header()
            .or(session_version.filter(|_| http));
        if let Some(header) = header
            && header != version
        {
            let why = format!(
                "names protocol version {version:?} in `_meta` but {header:?} in its MCP-Protocol-Version header"
            );
            expect_refusal(
                out,
                Rule::HeaderMismatch,
                index,
                exchange,
                &MISMATCH_REFUSAL,
                &why,
            );
            continue;
        }
        let is_supported = match &supported {
            Some(list) => list.iter().any(|v| *v == version),
            None => Some(version.as_ref()) == session_version,
        };
        // server/discover answers with the versions it lists; a result that does
        // not list the version asked with is INV-044's finding.
        if !is_supported && !request.method_is("server/discover") {
            let why = format!("names protocol version {version:?}, which the server does not list");
            expect_refusal(
                out,
                Rule::UnsupportedVersion,
                index,
                exchange,
                &UNSUPPORTED_REFUSAL,
                &why,
            );
            continue;
        }
        let method = request.method_str();
        if REMOVED.contains(&method.as_ref()) || method.starts_with(PROBE_NAMESPACE) {
            expect_refusal(
                out,
                Rule::RemovedMethod,
                index,
                exchange,
                &REMOVED_REFUSAL,
                "is not a 2026-07-28 method",
            );
            continue;
        }
        let Some(result) = exchange.response.as_ref().and_then(Message::result) else {
            continue;
        };
        if json::member(result, "resultType").is_none_or(|t| json::as_str(t).is_none()) {
            out.push(
                Rule::ResultType,
                Some(index),
                format!("the result of {method} has no string resultType"),
            );
        }
        if request.method_is("server/discover") {
            discover_result(index, result, &version, out);
        }
    }
    listen_streams(ctx, out);
}

/// INV-044: the discover result names the versions and the capabilities, and lists the version it was asked with.
fn discover_result(index: usize, result: &str, version: &str, out: &mut Sink) {
    let mut missing = Vec::new();
    let versions = json::member(result, "supportedVersions").and_then(json::elements);
    match &versions {
        Some(list) if !list.is_empty() && list.iter().all(|v| json::as_str(v).is_some()) => {}
        _ => missing.push("supportedVersions (a non-empty array of strings)"),
    }
    if !json::member(result, "capabilities").is_some_and(json::is_object) {
        missing.push("capabilities (an object)");
    }
    if !missing.is_empty() {
        out.push(
            Rule::DiscoverResult,
            Some(index),
            format!("the server/discover result lacks {}", missing.join(", ")),
        );
    } else if let Some(list) = versions
        && !list
            .iter()
            .any(|v| json::as_str(v).as_deref() == Some(version))
    {
        out.push(
            Rule::DiscoverResult,
            Some(index),
            format!("server/discover answered a {version} request, but its supportedVersions does not list {version}"),
        );
    }
}

/// INV-046: a `subscriptions/listen` stream opens with
/// `notifications/subscriptions/acknowledged`, and every notification on it carries
/// the subscription's id (the request's id) in `_meta`.
fn listen_streams(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        if !exchange.request.method_is("subscriptions/listen") {
            continue;
        }
        let Some(id) = exchange.request.id().map(|id| id.to_string()) else {
            continue;
        };
        let notes = exchange.notifications();
        if let Some(first) = notes.first()
            && !first.method_is("notifications/subscriptions/acknowledged")
        {
            out.push(
                Rule::ListenStream,
                Some(index),
                format!(
                    "the first message on the subscriptions/listen stream is {}, not notifications/subscriptions/acknowledged",
                    first.method_str()
                ),
            );
        }
        for note in notes {
            let tag = json::path(note.text(), &["params", "_meta", META_SUBSCRIPTION_ID])
                .and_then(json::to_value);
            let expected = json::to_value(&id);
            if tag.is_none() || tag != expected {
                let shown = tag.map_or_else(|| "none".to_string(), |t: Value| t.to_string());
                out.push(
                    Rule::ListenStream,
                    Some(index),
                    format!(
                        "{} on the subscriptions/listen stream {id} carries subscriptionId {shown}, not {id}",
                        note.method_str()
                    ),
                );
            }
        }
    }
}
