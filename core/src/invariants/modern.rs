//! The 2026-07-28 server requirements (INV-040 … INV-057): what a server does with
//! a request of the stateless revision, judged per request in 2026-07-28 sessions.
//!
//! A request is checked in the order the revision's errors imply: its `_meta` first
//! (INV-040), then, over HTTP, that it agrees with the MCP-Protocol-Version header
//! (INV-042) and the headers mirroring its body (INV-047, INV-048), then the version
//! it names (INV-041), then whether the method is still served (INV-043; on stdio a
//! refused initialize may carry any code). A request past those checks must be answered with a result that
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
use super::headers;
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

/// The refusal the revision prescribes for one request: the rule that judges
/// it, the code (none: any error will do), the HTTP status and the section
/// that says so, and why the request must be refused.
#[derive(Debug, Clone)]
pub(crate) struct Expected {
    pub(crate) rule: Rule,
    pub(crate) code: Option<i128>,
    status: u16,
    section: &'static str,
    why: String,
}

const META_SECTION: &str = "basic/index §_meta";
const HEADER_SECTION: &str = "basic/transports §Protocol Version Header";
const VALIDATION_SECTION: &str = "basic/transports/streamable-http §Server Validation";

/// What the session says about its 2026-07-28 requests, read once: the versions
/// `server/discover` listed, the session's version, whether it is over HTTP, and
/// the `x-mcp-header` annotations of each listed tool.
pub(crate) struct Modern {
    supported: Option<Vec<String>>,
    session_version: Option<&'static str>,
    http: bool,
    mirrored: Vec<(String, Vec<headers::Mirrored>)>,
    /// The refusal each exchange's request must get, when it must get one.
    pub(crate) expected: Vec<Option<Expected>>,
}

impl Modern {
    /// The session's 2026-07-28 view; `None` for a handshake session.
    pub(crate) fn of(ctx: &SessionCtx<'_, '_>) -> Option<Modern> {
        if !ctx.stateless {
            return None;
        }
        let mut modern = Modern {
            supported: supported_versions(ctx),
            session_version: ctx.schema_revision.map(|r| r.as_str()),
            http: ctx.session.transport.as_deref() == Some("http"),
            mirrored: mirrored_tools(ctx),
            expected: Vec::new(),
        };
        modern.expected = ctx
            .session
            .exchanges
            .iter()
            .map(|e| modern.expect(e))
            .collect();
        Some(modern)
    }

    /// The annotations of tool `name` (from the latest tools/list naming it).
    fn mirrored(&self, name: &str) -> &[headers::Mirrored] {
        self.mirrored
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or(&[], |(_, m)| m.as_slice())
    }

    /// The refusal `exchange`'s request must get, in the order the revision's
    /// errors imply: `_meta` (INV-040), then over HTTP the headers mirroring the
    /// body (INV-042, INV-047, INV-048), then the version (INV-041), then the
    /// method (INV-043).
    fn expect(&self, exchange: &Exchange<'_>) -> Option<Expected> {
        let request = &exchange.request;
        if !request.is_request() {
            return None;
        }
        let method = request.method_str();
        let version = meta(request, META_PROTOCOL_VERSION).and_then(json::as_str);
        let caps_ok = meta(request, META_CLIENT_CAPABILITIES).is_some_and(json::is_object);
        let Some(version) = version.filter(|_| caps_ok) else {
            // initialize without `_meta` opens a handshake session.
            return (!request.method_is("initialize")).then(|| Expected {
                rule: Rule::MetaRequired,
                code: Some(-32602),
                status: 400,
                section: META_SECTION,
                why: "lacks `_meta` protocolVersion or clientCapabilities".to_string(),
            });
        };
        let mismatch = |rule: Rule, why: String, section: &'static str| Expected {
            rule,
            code: Some(-32020),
            status: 400,
            section,
            why,
        };
        // The MCP-Protocol-Version header the request carried: as recorded, else
        // over HTTP the session's version, which mcpcheck's client sends.
        let header = exchange
            .protocol_version_header()
            .or(self.session_version.filter(|_| self.http));
        if let Some(header) = header
            && header != version
        {
            let why = format!(
                "names protocol version {version:?} in `_meta` but {header:?} in its MCP-Protocol-Version header"
            );
            return Some(mismatch(Rule::HeaderMismatch, why, HEADER_SECTION));
        }
        if self.http && exchange.request_headers().is_some() {
            let params = request.params().and_then(json::to_value);
            if let Some(why) =
                headers::routing_mismatch(&method, params.as_ref(), |n| exchange.request_header(n))
            {
                return Some(mismatch(Rule::RoutingHeaders, why, VALIDATION_SECTION));
            }
            if request.method_is("tools/call") {
                let tool = params
                    .as_ref()
                    .and_then(|p| p.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let arguments = params.as_ref().and_then(|p| p.get("arguments"));
                if let Some(why) = headers::param_mismatch(self.mirrored(tool), arguments, |n| {
                    exchange.request_header(n)
                }) {
                    return Some(mismatch(Rule::ParamHeaders, why, VALIDATION_SECTION));
                }
            }
        }
        let is_supported = match &self.supported {
            Some(list) => list.iter().any(|v| *v == version),
            None => Some(version.as_ref()) == self.session_version,
        };
        // server/discover answers with the versions it lists; a result that does
        // not list the version asked with is INV-044's finding.
        if !is_supported && !request.method_is("server/discover") {
            return Some(Expected {
                rule: Rule::UnsupportedVersion,
                code: Some(-32022),
                status: 400,
                section: HEADER_SECTION,
                why: format!("names protocol version {version:?}, which the server does not list"),
            });
        }
        if REMOVED.contains(&method.as_ref()) || method.starts_with(PROBE_NAMESPACE) {
            // On stdio the versioning page leaves the code of a refused initialize
            // to the implementation; over HTTP, 404 and -32601 it is.
            let lenient = !self.http && request.method_is("initialize");
            return Some(Expected {
                rule: Rule::RemovedMethod,
                code: (!lenient).then_some(-32601),
                status: 404,
                section: HEADER_SECTION,
                why: "is not a 2026-07-28 method".to_string(),
            });
        }
        None
    }
}

/// The tools of each answered tools/list of the session (their raw JSON),
/// with the exchange's index.
fn listed_tools<'a>(ctx: &'a SessionCtx<'_, '_>) -> Vec<(usize, Vec<&'a str>)> {
    let mut out = Vec::new();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        if !exchange.request.method_is("tools/list") {
            continue;
        }
        if let Some(tools) = exchange
            .response
            .as_ref()
            .and_then(Message::result)
            .and_then(|r| json::member(r, "tools"))
            .and_then(json::elements)
        {
            out.push((index, tools));
        }
    }
    out
}

/// The `x-mcp-header` annotations of every tool the session's tools/list
/// results named, in order.
fn mirrored_tools(ctx: &SessionCtx<'_, '_>) -> Vec<(String, Vec<headers::Mirrored>)> {
    let mut out = Vec::new();
    for (_, tools) in listed_tools(ctx) {
        for tool in tools {
            let name = json::member(tool, "name").and_then(json::as_str);
            let schema = json::member(tool, "inputSchema").and_then(json::to_value);
            if let (Some(name), Some(schema)) = (name, schema) {
                out.push((name.into_owned(), headers::annotations(&schema).0));
            }
        }
    }
    out
}

/// Whether a request of a 2026-07-28 session is one a server must refuse: its
/// `_meta` lacks a required key or names another version, its headers do not
/// mirror its body, or its method is removed or in mcpcheck's probe namespace.
/// Such requests are sent on purpose, to see the refusal; rules about the client's
/// own messages, and the rules a refusal would contradict, leave them alone.
pub(crate) fn refusal_expected<'c>(
    ctx: &'c SessionCtx<'_, '_>,
    index: usize,
) -> Option<&'c Expected> {
    ctx.modern()?.expected.get(index)?.as_ref()
}

/// The code of an error response, when it is an integer.
pub(crate) fn error_code(response: &Message<'_>) -> Option<i128> {
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

/// Pushes a finding unless the exchange was refused as `expected` says: with its
/// code (any error, when it names none) and, when the capture recorded the HTTP
/// status of the answer, its status.
fn expect_refusal(out: &mut Sink, index: usize, exchange: &Exchange<'_>, expected: &Expected) {
    let Some(response) = &exchange.response else {
        return;
    };
    let method = exchange.request.method_str();
    let Expected {
        rule,
        code,
        status,
        section,
        ref why,
    } = *expected;
    let refused = match code {
        Some(code) => error_code(response) == Some(code),
        None => response.error().is_some(),
    };
    if !refused {
        let over_http = exchange
            .http_status
            .map(|s| format!(" (HTTP {s})"))
            .unwrap_or_default();
        let must = code.map_or_else(|| "an error".to_string(), |c| c.to_string());
        out.push(
            rule,
            Some(index),
            format!(
                "{method} {why}, so it must be refused with {must}, but the server answered with {}{over_http}",
                answer(response)
            ),
        );
    } else if let Some(got) = exchange.http_status.filter(|s| *s != status) {
        let with = code.map_or_else(|| "an error".to_string(), |c| c.to_string());
        out.push(
            rule,
            Some(index),
            format!(
                "{method} {why}: the server refused it with {with}, but over HTTP with status {got}, not {status} (MCP 2026-07-28 {section})"
            ),
        );
    }
}

/// INV-040 … INV-057 over a 2026-07-28 session (INV-055 and INV-057 over any).
pub(crate) fn stateless_requests(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    deprecated_features(ctx, out);
    not_found_codes(ctx, out);
    let Some(modern) = ctx.modern() else {
        return;
    };
    // The results without serverInfo: one finding, at the first, counting
    // the rest (a server that leaves it out leaves it out everywhere).
    let mut unnamed: Vec<(usize, std::borrow::Cow<'_, str>)> = Vec::new();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        if !request.is_request() {
            continue;
        }
        if let Some(expected) = modern.expected.get(index).and_then(Option::as_ref) {
            expect_refusal(out, index, exchange, expected);
            continue;
        }
        let method = request.method_str();
        let Some(response) = exchange.response.as_ref() else {
            continue;
        };
        if error_code(response) == Some(-32021) {
            missing_capability(ctx, index, exchange, response, out);
        }
        let Some(result) = response.result() else {
            continue;
        };
        if json::member(result, "resultType").is_none_or(|t| json::as_str(t).is_none()) {
            out.push(
                Rule::ResultType,
                Some(index),
                format!("the result of {method} has no string resultType"),
            );
        }
        if !has_server_info(result) {
            unnamed.push((index, method.clone()));
        }
        if request.method_is("server/discover")
            && let Some(version) = meta(request, META_PROTOCOL_VERSION).and_then(json::as_str)
        {
            discover_result(index, result, &version, out);
        }
    }
    if let Some((index, method)) = unnamed.first() {
        let more = match unnamed.len() - 1 {
            0 => String::new(),
            1 => "; neither does 1 more result".to_string(),
            n => format!("; neither do {n} more results"),
        };
        out.push(
            Rule::ServerInfo,
            Some(*index),
            format!(
                "the result of {method} does not name the server in _meta (io.modelcontextprotocol/serverInfo with a name and a version){more}"
            ),
        );
    }
    param_annotations(ctx, out);
    listen_streams(ctx, out);
    listen_filters(ctx, out);
    discover_stable(ctx, out);
    caching_hints(ctx, out);
    trace_context(ctx, out);
    resource_not_found(ctx, out);
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
    // Over HTTP each stream is a response of its own; elsewhere the streams
    // share one channel, and a message is filed with the request open last:
    // a notification tagged with another listen request's id belongs to that
    // stream, not to the one it was filed with.
    let shared_channel = ctx.session.transport.as_deref() != Some("http");
    let listens: Vec<Value> = ctx
        .session
        .exchanges
        .iter()
        .filter(|x| x.request.method_is("subscriptions/listen"))
        .filter_map(|x| {
            x.request
                .id()
                .and_then(|id| json::to_value(&id.to_string()))
        })
        .collect();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        if !exchange.request.method_is("subscriptions/listen") {
            continue;
        }
        let Some(id) = exchange.request.id().map(|id| id.to_string()) else {
            continue;
        };
        let expected = json::to_value(&id);
        let tag_of = |note: &Message<'_>| {
            json::path(note.text(), &["params", "_meta", META_SUBSCRIPTION_ID])
                .and_then(json::to_value)
        };
        let notes: Vec<&Message<'_>> = exchange
            .notifications()
            .iter()
            .filter(|note| {
                !shared_channel
                    || tag_of(note)
                        .is_none_or(|t| Some(&t) == expected.as_ref() || !listens.contains(&t))
            })
            .collect();
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
            let tag = tag_of(note);
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

/// The prefix of the prompt names mcpcheck's probes ask for: no server serves them.
pub const PROBE_PROMPT: &str = "mcpcheck.probe.no-such-prompt";
/// The URI of the resource mcpcheck's probes read: its scheme is mcpcheck's own,
/// and no server serves it.
pub const PROBE_RESOURCE: &str = "mcpcheck-probe:///no-such-resource";
/// The scheme of [`PROBE_RESOURCE`].
const PROBE_SCHEME: &str = "mcpcheck-probe:";
/// The prefix of the names mcpcheck's probes use for tools and prompts.
const PROBE_NAME_PREFIX: &str = "mcpcheck.probe.";

/// The `_meta` key a server names itself under in every 2026-07-28 result.
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Whether a result's `_meta` names the server (an object with a string name
/// and a string version).
fn has_server_info(result: &str) -> bool {
    json::path(result, &["_meta", META_SERVER_INFO]).is_some_and(|info| {
        ["name", "version"]
            .iter()
            .all(|k| json::member(info, k).and_then(json::as_str).is_some())
    })
}

/// INV-049: a -32021 refusal carries data.requiredCapabilities, naming only
/// capabilities the request left out, over HTTP with status 400.
fn missing_capability(
    ctx: &SessionCtx<'_, '_>,
    index: usize,
    exchange: &Exchange<'_>,
    response: &Message<'_>,
    out: &mut Sink,
) {
    let method = exchange.request.method_str();
    let required = response
        .error()
        .and_then(|e| json::path(e, &["data", "requiredCapabilities"]));
    let Some(required) = required.and_then(json::Object::new) else {
        out.push(
            Rule::MissingClientCapability,
            Some(index),
            format!(
                "{method} was refused with -32021 (a client capability is missing), but the error has no data.requiredCapabilities object naming it"
            ),
        );
        return;
    };
    let declared = ctx.client_caps_for(Some(index));
    let names: Vec<&str> = required.entries().map(|(k, _)| k).collect();
    if names.is_empty() {
        out.push(
            Rule::MissingClientCapability,
            Some(index),
            format!("{method} was refused with -32021, but data.requiredCapabilities names no capability"),
        );
    }
    let declared_anyway: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| super::session::has_capability(&declared, n))
        .collect();
    if !declared_anyway.is_empty() {
        out.push(
            Rule::MissingClientCapability,
            Some(index),
            format!(
                "{method} was refused with -32021 for {}, which the request's clientCapabilities declares",
                declared_anyway.join(", ")
            ),
        );
    }
    if let Some(got) = exchange.http_status.filter(|s| *s != 400) {
        out.push(
            Rule::MissingClientCapability,
            Some(index),
            format!(
                "{method} was refused with -32021, but over HTTP with status {got}, not 400 (MCP 2026-07-28 basic/index §_meta)"
            ),
        );
    }
}

/// INV-048 (the schema part): every `x-mcp-header` annotation of a listed tool holds.
fn param_annotations(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    for (index, tools) in listed_tools(ctx) {
        for tool in tools {
            let Some(schema) = json::member(tool, "inputSchema").and_then(json::to_value) else {
                continue;
            };
            let name = json::member(tool, "name")
                .and_then(json::as_str)
                .unwrap_or_default();
            for problem in headers::annotations(&schema).1 {
                out.push(
                    Rule::ParamHeaders,
                    Some(index),
                    format!("tool {name:?}: its inputSchema's {problem}, so the tool definition is invalid"),
                );
            }
        }
    }
}

/// The notification a `subscriptions/listen` filter key asks for.
const FILTER: [(&str, &str); 3] = [
    ("toolsListChanged", "notifications/tools/list_changed"),
    ("promptsListChanged", "notifications/prompts/list_changed"),
    (
        "resourcesListChanged",
        "notifications/resources/list_changed",
    ),
];

/// INV-052: a listen stream carries only what its filter asked for, and a result
/// that ends it is complete and tagged.
fn listen_filters(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let http = ctx.session.transport.as_deref() == Some("http");
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        if !request.is_request() || !request.method_is("subscriptions/listen") {
            continue;
        }
        let Some(id) = request.id().map(|id| id.to_string()) else {
            continue;
        };
        let asked = request
            .params()
            .and_then(|p| json::member(p, "notifications"))
            .and_then(json::to_value)
            .unwrap_or(Value::Null);
        let wants = |key: &str| asked.get(key) == Some(&Value::Bool(true));
        let uris: Vec<&str> = asked
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // The tasks extension's filter: `notifications/tasks` of these tasks.
        let task_ids: Vec<&str> = asked
            .get("taskIds")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let tag = |note: &Message<'_>| {
            json::path(note.text(), &["params", "_meta", META_SUBSCRIPTION_ID])
                .and_then(json::to_value)
        };
        let ours = json::to_value(&id);
        for note in exchange.notifications() {
            let method = note.method_str();
            if method == "notifications/subscriptions/acknowledged" {
                if tag(note) != ours {
                    continue;
                }
                let agreed = json::path(note.text(), &["params", "notifications"])
                    .and_then(json::to_value)
                    .unwrap_or(Value::Null);
                let mut more: Vec<String> = Vec::new();
                for (key, _) in FILTER {
                    if agreed.get(key) == Some(&Value::Bool(true)) && !wants(key) {
                        more.push(key.to_string());
                    }
                }
                for (key, asked_for) in [("resourceSubscriptions", &uris), ("taskIds", &task_ids)] {
                    let agreed_to = agreed.get(key).and_then(Value::as_array);
                    for item in agreed_to.into_iter().flatten().filter_map(Value::as_str) {
                        if !asked_for.contains(&item) {
                            more.push(format!("{key} {item:?}"));
                        }
                    }
                }
                if !more.is_empty() {
                    out.push(
                        Rule::ListenFilter,
                        Some(index),
                        format!(
                            "the acknowledgment of subscriptions/listen {id} agrees to {}, which its filter did not ask for",
                            more.join(", ")
                        ),
                    );
                }
                continue;
            }
            // On stdio every message shares one channel: only the notifications
            // tagged with this subscription are known to be on its stream.
            if !http && tag(note) != ours {
                continue;
            }
            let allowed = match method.as_ref() {
                "notifications/resources/updated" => json::path(note.text(), &["params", "uri"])
                    .and_then(json::as_str)
                    .is_some_and(|u| uris.contains(&u.as_ref())),
                "notifications/tasks" => json::path(note.text(), &["params", "taskId"])
                    .and_then(json::as_str)
                    .is_some_and(|t| task_ids.contains(&t.as_ref())),
                // On a stream for tasks these are INV-104's to judge.
                "notifications/progress" | "notifications/message" if !task_ids.is_empty() => true,
                m => match FILTER.iter().find(|(_, n)| *n == m) {
                    Some((key, _)) => wants(key),
                    // Request-scoped notifications (progress, log messages) never
                    // travel on a listen stream.
                    None => false,
                },
            };
            if !allowed {
                out.push(
                    Rule::ListenFilter,
                    Some(index),
                    format!(
                        "{method} arrived on subscriptions/listen stream {id}, whose filter did not ask for it{}",
                        if asked.as_object().is_some_and(serde_json::Map::is_empty) {
                            " (the filter was empty)"
                        } else {
                            ""
                        }
                    ),
                );
            }
        }
        let Some(result) = exchange.response.as_ref().and_then(Message::result) else {
            continue;
        };
        let complete = json::member(result, "resultType").and_then(json::as_str);
        let tagged = json::path(result, &["_meta", META_SUBSCRIPTION_ID]).and_then(json::to_value);
        if complete.as_deref() != Some("complete") || tagged != ours {
            out.push(
                Rule::ListenFilter,
                Some(index),
                format!(
                    "the result ending subscriptions/listen stream {id} must be complete and carry subscriptionId {id} in _meta; it has resultType {} and subscriptionId {}",
                    complete.map_or_else(|| "none".to_string(), |c| format!("{c:?}")),
                    tagged.map_or_else(|| "none".to_string(), |t| t.to_string())
                ),
            );
        }
    }
}

/// Milliseconds since the epoch of an RFC 3339 timestamp.
fn millis(time: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(time)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// A server/discover answer: its exchange and its result.
type Answer<'a> = (usize, &'a str);

/// The server/discover answers of a session, and for each the first later one
/// asked while it was fresh (within its ttlMs, by the recorded times).
fn discover_pairs<'s, 'a>(ctx: &SessionCtx<'s, 'a>) -> Vec<(Answer<'a>, Answer<'a>, i64)> {
    let answers: Vec<(usize, &Exchange<'a>, &'a str)> = ctx
        .session
        .exchanges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.request.method_is("server/discover"))
        .filter_map(|(i, e)| Some((i, e, e.response.as_ref()?.result()?)))
        .collect();
    let mut pairs = Vec::new();
    for (n, (first, earlier, result)) in answers.iter().enumerate() {
        let (Some(received), Some(ttl)) = (
            earlier.response_time.and_then(millis),
            json::member(result, "ttlMs")
                .and_then(json::as_f64)
                .filter(|t| *t > 0.0),
        ) else {
            continue;
        };
        let ttl = ttl as i64;
        let fresh_until = received.saturating_add(ttl);
        if let Some((later, _, again)) = answers.iter().skip(n + 1).find(|(_, e, _)| {
            e.request_time
                .and_then(millis)
                .is_some_and(|t| t < fresh_until)
        }) {
            pairs.push(((*first, *result), (*later, *again), ttl));
        }
    }
    pairs
}

/// Whether the session asked server/discover again while an earlier answer was
/// fresh (what INV-051 judges).
pub(crate) fn discover_compared(ctx: &SessionCtx<'_, '_>) -> bool {
    !discover_pairs(ctx).is_empty()
}

/// INV-051: a server/discover answered within an earlier one's ttlMs lists the
/// same supportedVersions and capabilities.
fn discover_stable(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let facts = |result: &str| {
        (
            json::member(result, "supportedVersions").and_then(json::to_value),
            json::member(result, "capabilities").and_then(json::to_value),
        )
    };
    for ((first, result), (later, again), ttl) in discover_pairs(ctx) {
        let (versions, caps) = facts(result);
        let (versions2, caps2) = facts(again);
        let mut changed = Vec::new();
        if versions != versions2 {
            changed.push("supportedVersions");
        }
        if caps != caps2 {
            changed.push("capabilities");
        }
        if !changed.is_empty() {
            out.push(
                Rule::DiscoverStable,
                Some(later),
                format!(
                    "server/discover answered with other {} than exchange {first}'s answer, within the {ttl} ms it said to keep that answer",
                    changed.join(" and ")
                ),
            );
        }
    }
}

/// The methods whose complete results carry caching hints.
const CACHEABLE: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// INV-053: caching hints on cacheable complete results, none on interim ones,
/// one cacheScope per listing.
fn caching_hints(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    // The cacheScope of the first page of the listing in progress, per method.
    let mut listing: Vec<(String, Option<String>, usize)> = Vec::new();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        if !request.is_request() || refusal_expected(ctx, index).is_some() {
            continue;
        }
        let Some(result) = exchange.response.as_ref().and_then(Message::result) else {
            continue;
        };
        let method = request.method_str();
        let result_type = json::member(result, "resultType").and_then(json::as_str);
        let ttl = json::member(result, "ttlMs");
        let scope = json::member(result, "cacheScope");
        if result_type.as_deref() == Some("input_required") {
            let present: Vec<&str> = [("ttlMs", ttl), ("cacheScope", scope)]
                .iter()
                .filter(|(_, v)| v.is_some())
                .map(|(k, _)| *k)
                .collect();
            if !present.is_empty() {
                out.push(
                    Rule::CachingHints,
                    Some(index),
                    format!(
                        "the input_required result of {method} carries {}; interim results are not cacheable and carry no caching hints",
                        present.join(" and ")
                    ),
                );
            }
            continue;
        }
        if !CACHEABLE.contains(&method.as_ref()) {
            continue;
        }
        let mut problems = Vec::new();
        match ttl {
            None => problems.push("no ttlMs".to_string()),
            Some(t) if !json::is_integer(t) || json::as_f64(t).is_some_and(|v| v < 0.0) => {
                problems.push(format!(
                    "ttlMs {}, not an integer of 0 or more",
                    json::snippet(t, 40)
                ));
            }
            Some(_) => {}
        }
        let scope = scope.and_then(json::as_str).map(|s| s.into_owned());
        match scope.as_deref() {
            Some("public" | "private") => {}
            Some(other) => problems.push(format!(
                "cacheScope {other:?}, not \"public\" or \"private\""
            )),
            None => problems.push("no cacheScope (\"public\" or \"private\")".to_string()),
        }
        if !problems.is_empty() {
            out.push(
                Rule::CachingHints,
                Some(index),
                format!(
                    "the complete result of {method} has {}",
                    problems.join(" and ")
                ),
            );
        }
        if method.ends_with("/list") {
            let continues = request
                .params()
                .and_then(|p| json::member(p, "cursor"))
                .is_some_and(|c| !json::is_null(c));
            let at = listing.iter().position(|(m, _, _)| *m == method);
            match (continues, at) {
                (true, Some(at)) => {
                    let (_, first_scope, first) = &listing[at];
                    if scope.is_some() && first_scope.is_some() && *first_scope != scope {
                        out.push(
                            Rule::CachingHints,
                            Some(index),
                            format!(
                                "a later page of {method} has cacheScope {:?}, but the listing's first page (exchange {first}) had {:?}; every page of a listing shares one cacheScope",
                                scope.unwrap_or_default(),
                                first_scope.clone().unwrap_or_default()
                            ),
                        );
                    }
                }
                (false, Some(at)) => listing[at] = (method.into_owned(), scope, index),
                (false, None) => listing.push((method.into_owned(), scope, index)),
                (true, None) => {}
            }
        }
    }
}

/// Why a `traceparent` value is not W3C Trace Context, if it is not.
fn traceparent_problem(value: &str) -> Option<String> {
    let parts: Vec<&str> = value.split('-').collect();
    let hex = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let shaped = parts.len() >= 4
        && hex(parts[0], 2)
        && hex(parts[1], 32)
        && hex(parts[2], 16)
        && hex(parts[3], 2)
        && (parts.len() == 4 || parts[0] != "00");
    if !shaped {
        return Some(
            "is not version-traceid-parentid-flags in lowercase hex (2, 32, 16 and 2 digits)"
                .to_string(),
        );
    }
    if parts[0] == "ff" {
        return Some("has version ff, which W3C Trace Context forbids".to_string());
    }
    if parts[1].bytes().all(|b| b == b'0') {
        return Some("has an all-zero trace id".to_string());
    }
    if parts[2].bytes().all(|b| b == b'0') {
        return Some("has an all-zero parent id".to_string());
    }
    None
}

/// INV-054: trace context in `_meta` follows W3C Trace Context.
fn trace_context(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    ctx.for_each_message(|located| {
        let message = located.message;
        let Some(meta) = message
            .params()
            .or_else(|| message.result())
            .and_then(|p| json::member(p, "_meta"))
        else {
            return;
        };
        let place = located.place();
        if let Some(tp) = json::member(meta, "traceparent") {
            let problem = match json::as_str(tp) {
                Some(text) => traceparent_problem(&text),
                None => Some("is not a string".to_string()),
            };
            if let Some(problem) = problem {
                out.push(
                    Rule::TraceContext,
                    located.exchange,
                    format!(
                        "the traceparent {} in {place} {problem}",
                        json::snippet(tp, 80)
                    ),
                );
            }
        }
        for key in ["tracestate", "baggage"] {
            if let Some(v) = json::member(meta, key).filter(|v| json::as_str(v).is_none()) {
                out.push(
                    Rule::TraceContext,
                    located.exchange,
                    format!(
                        "the {key} {} in {place} is not a string",
                        json::snippet(v, 80)
                    ),
                );
            }
        }
    });
}

/// The retired error codes 2026-07-28 implementations must not send.
const RETIRED: [(i128, &str); 2] = [
    (-32002, "resource not found up to 2025-11-25"),
    (-32042, "URL elicitation required in 2025-11-25"),
];

/// Whether a resources/read asks for mcpcheck's probe resource.
pub(crate) fn reads_probe_resource(request: &Message<'_>) -> bool {
    request.method_is("resources/read")
        && request
            .params()
            .and_then(|p| json::member(p, "uri"))
            .and_then(json::as_str)
            .is_some_and(|u| u.starts_with(PROBE_SCHEME))
}

/// Whether a prompts/get asks for mcpcheck's probe prompt.
pub(crate) fn gets_probe_prompt(request: &Message<'_>) -> bool {
    request.method_is("prompts/get")
        && request
            .params()
            .and_then(|p| json::member(p, "name"))
            .and_then(json::as_str)
            .is_some_and(|n| n.starts_with(PROBE_NAME_PREFIX))
}

/// Whether the server advertised `capability` (or its capabilities are not
/// known): a probe of a prompt or resource is judged only where the server
/// offers prompts or resources at all (elsewhere -32601 is the answer).
pub(crate) fn offers(ctx: &SessionCtx<'_, '_>, capability: &str) -> bool {
    ctx.server_caps
        .as_ref()
        .is_none_or(|c| super::session::has_capability(c, capability))
}

/// INV-056: the probe resource is refused with -32602; no retired code is used.
fn resource_not_found(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        let Some(response) = exchange.response.as_ref().filter(|_| request.is_request()) else {
            continue;
        };
        let code = error_code(response);
        if reads_probe_resource(request)
            && offers(ctx, "resources")
            && refusal_expected(ctx, index).is_none()
            && code != Some(-32602)
        {
            let answered = match response.result() {
                Some(result) => match json::member(result, "contents").and_then(json::elements) {
                    Some(list) if list.is_empty() => "an empty contents array".to_string(),
                    _ => "contents".to_string(),
                },
                None => answer(response),
            };
            out.push(
                Rule::ResourceNotFound,
                Some(index),
                format!(
                    "resources/read of {PROBE_RESOURCE}, a resource no server has, must be refused with -32602 in 2026-07-28, but the server answered with {answered}"
                ),
            );
            continue;
        }
        if let Some((code, meaning)) = RETIRED.iter().find(|(c, _)| Some(*c) == code) {
            out.push(
                Rule::ResourceNotFound,
                Some(index),
                format!(
                    "{} was answered with code {code} ({meaning}), which 2026-07-28 implementations must not send",
                    request.method_str()
                ),
            );
        }
    }
}

/// INV-057: the recommended codes for mcpcheck's unknown prompt, and in handshake
/// revisions for its unknown resource.
fn not_found_codes(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        let Some(response) = exchange.response.as_ref().filter(|_| request.is_request()) else {
            continue;
        };
        if refusal_expected(ctx, index).is_some() {
            continue;
        }
        let (want, what) = if gets_probe_prompt(request) && offers(ctx, "prompts") {
            (-32602, "prompts/get of a prompt no server has")
        } else if reads_probe_resource(request) && !ctx.stateless && offers(ctx, "resources") {
            (-32002, "resources/read of a resource no server has")
        } else {
            continue;
        };
        if error_code(response) != Some(want) {
            out.push(
                Rule::NotFoundCodes,
                Some(index),
                format!(
                    "{what} should be refused with {want}, but the server answered with {}",
                    answer(response)
                ),
            );
        }
    }
}

/// INV-055: the deprecated features a session shows, each named once.
fn deprecated_features(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let mut named: Vec<&str> = Vec::new();
    let mut note = |out: &mut Sink, feature: &'static str, at: Option<usize>, what: String| {
        if !named.contains(&feature) {
            named.push(feature);
            out.push(Rule::Deprecated, at, what);
        }
    };
    if ctx.session.transport.as_deref() == Some("sse") {
        note(
            out,
            "sse",
            None,
            "the session runs on the HTTP+SSE transport, deprecated since 2025-03-26 (SEP-2596): serve Streamable HTTP".to_string(),
        );
    }
    if !ctx.stateless {
        return;
    }
    if ctx
        .server_caps
        .as_ref()
        .is_some_and(|c| super::session::has_capability(c, "logging"))
    {
        let at = ctx
            .session
            .exchanges
            .iter()
            .position(|e| e.request.method_is("server/discover"));
        note(
            out,
            "logging",
            at,
            "the server advertises the logging capability; Logging is deprecated in 2026-07-28 (SEP-2577): log to stderr or OpenTelemetry".to_string(),
        );
    }
    ctx.for_each_message(|located| {
        let message = located.message;
        if located.slot.is_from_server() && message.method_is("notifications/message") {
            note(
                out,
                "logging",
                located.exchange,
                "the server sends notifications/message; Logging is deprecated in 2026-07-28 (SEP-2577): log to stderr or OpenTelemetry".to_string(),
            );
        }
        let Some(requests) = message
            .result()
            .and_then(|r| json::member(r, "inputRequests"))
            .and_then(json::Object::new)
        else {
            return;
        };
        for (_, request) in requests.entries() {
            match json::member(request, "method").and_then(json::as_str).as_deref() {
                Some("sampling/createMessage") => note(
                    out,
                    "sampling",
                    located.exchange,
                    "the server asks the client for sampling/createMessage; Sampling is deprecated in 2026-07-28 (SEP-2577): call an LLM API directly".to_string(),
                ),
                Some("roots/list") => note(
                    out,
                    "roots",
                    located.exchange,
                    "the server asks the client for roots/list; Roots is deprecated in 2026-07-28 (SEP-2577): take directories as tool parameters or configuration".to_string(),
                ),
                _ => {}
            }
        }
    });
}
