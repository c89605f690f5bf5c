//! Which invariants a session actually exercised: a rule holds vacuously over a
//! session that never contains what it judges (no tools/call, no error, no
//! notification), and a report must not count that as "holds". [`exercised`] names
//! the rules that had something to judge; the rest are "not verified".

use super::json;
use super::rules::Rule;
use super::session::SessionCtx;
use crate::capture::{Message, Session};

/// The rules that had something to judge in `session`, in ID order.
pub fn exercised(session: &Session<'_>) -> Vec<Rule> {
    let ctx = SessionCtx::new(session);
    let mut seen = Seen::default();
    for (index, exchange) in session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        if request.is_notification() {
            seen.notification = true;
        }
        if !request.is_request() {
            continue;
        }
        seen.request = true;
        if request
            .params()
            .is_some_and(|p| json::path(p, &["_meta", "progressToken"]).is_some())
        {
            seen.progress = true;
        }
        if let Some(expected) = ctx
            .modern()
            .and_then(|m| m.expected.get(index))
            .and_then(Option::as_ref)
        {
            seen.refusals.push(expected.rule);
        }
        let method = request.method_str();
        if ctx.stateless && method == "tools/list" {
            seen.param_annotation |= exchange
                .response
                .as_ref()
                .and_then(Message::result)
                .is_some_and(|r| r.contains("\"x-mcp-header\""));
        }
        let resource = super::modern::reads_probe_resource(request)
            && super::modern::offers(&ctx, "resources");
        if (super::modern::gets_probe_prompt(request) && super::modern::offers(&ctx, "prompts"))
            || (!ctx.stateless && resource)
        {
            seen.probe_not_found = true;
        }
        seen.probe_resource |= ctx.stateless && resource;
        if method.starts_with(super::envelope::PROBE_NAMESPACE) {
            seen.unknown = true;
        }
        if method == "subscriptions/listen" && !exchange.notifications().is_empty() {
            seen.listen = true;
        }
        for note in exchange.notifications() {
            seen.note(note);
        }
        if !exchange.server_requests().is_empty() {
            seen.server_request = true;
        }
        let Some(response) = &exchange.response else {
            continue;
        };
        seen.response = true;
        if super::capability::capability_of(request.kind()).is_some() {
            seen.capability_call = true;
        }
        if response.error().is_some() {
            seen.error = true;
            seen.missing_capability |=
                ctx.stateless && super::modern::error_code(response) == Some(-32021);
            continue;
        }
        let Some(result) = response.result() else {
            continue;
        };
        seen.result = true;
        seen.judge_result(request, result);
    }
    // Server notifications that arrived with no request open (over HTTP, on a
    // stream of their own) are judged too, so they count wherever they landed.
    for entry in &session.unmatched {
        if entry.message.is_notification() {
            seen.note(&entry.message);
        }
    }
    if ctx.stateless {
        ctx.for_each_message(|located| {
            let carries = located.slot.is_from_server()
                && located
                    .message
                    .params()
                    .or_else(|| located.message.result())
                    .and_then(|p| json::member(p, "_meta"))
                    .is_some_and(|m| {
                        ["traceparent", "tracestate", "baggage"]
                            .iter()
                            .any(|k| json::member(m, k).is_some())
                    });
            seen.trace_context |= carries;
        });
        seen.discover_compared = super::modern::discover_compared(&ctx);
    }
    let mut rules = seen.rules(&ctx);
    super::tasks::exercised(&ctx, &mut rules);
    super::skills::exercised(&ctx, &mut rules);
    super::apps::exercised(&ctx, &mut rules);
    rules
}

/// What a session contained, as far as the rules care.
#[derive(Default)]
struct Seen {
    request: bool,
    notification: bool,
    server_notification: bool,
    list_changed: bool,
    resource_updated: bool,
    log_message: bool,
    server_request: bool,
    response: bool,
    result: bool,
    error: bool,
    progress: bool,
    lists: bool,
    tool_list: bool,
    tool_result: bool,
    structured: bool,
    next_cursor: bool,
    capability_call: bool,
    /// The rules of the refusals the session's requests had to get.
    refusals: Vec<Rule>,
    unknown: bool,
    discover: bool,
    listen: bool,
    param_annotation: bool,
    missing_capability: bool,
    discover_compared: bool,
    cacheable: bool,
    trace_context: bool,
    probe_resource: bool,
    probe_not_found: bool,
}

impl Seen {
    fn note(&mut self, note: &Message<'_>) {
        self.server_notification = true;
        let method = note.method_str();
        self.list_changed |= method.ends_with("/list_changed");
        self.resource_updated |= method == "notifications/resources/updated";
        self.log_message |= method == "notifications/message";
    }

    fn judge_result(&mut self, request: &Message<'_>, result: &str) {
        let method = request.method_str();
        if matches!(
            method.as_ref(),
            "tools/list" | "resources/list" | "prompts/list"
        ) {
            self.lists = true;
        }
        if method == "tools/list" {
            self.tool_list = true;
        }
        if method == "tools/call" {
            self.tool_result = true;
            self.structured |= json::member(result, "structuredContent").is_some();
        }
        if method == "server/discover" {
            self.discover = true;
        }
        let interim = json::member(result, "resultType")
            .and_then(json::as_str)
            .is_some_and(|t| t == "input_required");
        self.cacheable |= interim
            || matches!(
                method.as_ref(),
                "server/discover"
                    | "tools/list"
                    | "prompts/list"
                    | "resources/list"
                    | "resources/templates/list"
                    | "resources/read"
            );
        if json::member(result, "nextCursor").is_some_and(|c| json::as_str(c).is_some()) {
            self.next_cursor = true;
        }
    }

    fn refused(&self, rule: Rule) -> bool {
        self.refusals.contains(&rule)
    }

    fn rules(&self, ctx: &SessionCtx<'_, '_>) -> Vec<Rule> {
        let handshake = ctx.initialize.is_some();
        let stateless = ctx.stateless;
        let table = [
            (Rule::InitializeFirst, handshake && !stateless),
            (Rule::InitializedFollows, handshake && !stateless),
            (Rule::ListNeedsCapability, self.lists),
            (Rule::CapabilityNotAllErrors, self.capability_call),
            (Rule::ToolResultShape, self.tool_result),
            (Rule::ErrorEnvelope, self.error),
            (Rule::MethodNotFoundCode, self.unknown),
            (Rule::ResponseAnswersOne, self.response),
            (Rule::NoResponseWithoutRequest, self.response),
            (Rule::ResultXorError, self.response),
            (
                Rule::NotificationNoId,
                self.notification || self.server_notification,
            ),
            (Rule::Progress, self.progress),
            (Rule::OutputSchema, self.structured),
            (Rule::ToolNames, self.tool_list),
            (Rule::ListChangedCapability, self.list_changed),
            (Rule::ResourceUpdatedCapability, self.resource_updated),
            (Rule::LoggingCapability, self.log_message),
            (Rule::ClientCapability, self.server_request),
            (Rule::KnownProtocolVersion, handshake || self.discover),
            (Rule::CursorLoop, self.next_cursor),
            (Rule::ServerWritesJson, self.response),
            (Rule::RequestAnswered, self.request),
            (Rule::SchemaRequest, self.request),
            (Rule::SchemaResult, self.result),
            (
                Rule::SchemaNotification,
                self.notification || self.server_notification,
            ),
            (Rule::SchemaError, self.error),
            (Rule::MetaRequired, self.refused(Rule::MetaRequired)),
            (
                Rule::UnsupportedVersion,
                self.refused(Rule::UnsupportedVersion),
            ),
            (Rule::HeaderMismatch, self.refused(Rule::HeaderMismatch)),
            (Rule::RemovedMethod, self.refused(Rule::RemovedMethod)),
            (Rule::DiscoverResult, stateless && self.discover),
            (Rule::ResultType, stateless && self.result),
            (Rule::ListenStream, stateless && self.listen),
            (Rule::RoutingHeaders, self.refused(Rule::RoutingHeaders)),
            (
                Rule::ParamHeaders,
                self.refused(Rule::ParamHeaders) || (stateless && self.param_annotation),
            ),
            (
                Rule::MissingClientCapability,
                stateless && self.missing_capability,
            ),
            (Rule::ServerInfo, stateless && self.result),
            (Rule::DiscoverStable, stateless && self.discover_compared),
            (Rule::ListenFilter, stateless && self.listen),
            (Rule::CachingHints, stateless && self.cacheable),
            (Rule::TraceContext, stateless && self.trace_context),
            (
                Rule::Deprecated,
                (stateless && self.discover) || ctx.session.transport.as_deref() == Some("sse"),
            ),
            (
                Rule::ResourceNotFound,
                stateless && (self.probe_resource || self.error),
            ),
            (Rule::NotFoundCodes, self.probe_not_found),
        ];
        table
            .into_iter()
            .filter(|(_, on)| *on)
            .map(|(rule, _)| rule)
            .collect()
    }
}
