//! Which invariants a session actually exercised: a rule holds vacuously over a
//! session that never contains what it judges (no tools/call, no error, no
//! notification), and a report must not count that as "holds". [`exercised`] names
//! the rules that had something to judge; the rest are "not verified".

use super::json;
use super::rules::Rule;
use super::session::{META_PROTOCOL_VERSION, SessionCtx, meta};
use crate::capture::{Message, Session};

/// The rules that had something to judge in `session`, in ID order.
pub fn exercised(session: &Session<'_>) -> Vec<Rule> {
    let ctx = SessionCtx::new(session);
    let http = session.transport.as_deref() == Some("http");
    let mut seen = Seen::default();
    for exchange in &session.exchanges {
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
        if ctx.stateless && !request.method_is("initialize") {
            let session_version = ctx.schema_revision.map(|r| r.as_str());
            // The MCP-Protocol-Version header, as in the rules: recorded, else
            // over HTTP the session's version.
            let header = exchange
                .protocol_version_header()
                .or(session_version.filter(|_| http));
            match meta(request, META_PROTOCOL_VERSION).and_then(json::as_str) {
                None => seen.meta_missing = true,
                Some(v) if header.is_some_and(|h| h != v) => seen.mismatch = true,
                Some(v) if session_version != Some(v.as_ref()) => seen.bad_version = true,
                Some(_) => {}
            }
        }
        let method = request.method_str();
        if matches!(
            method.as_ref(),
            "ping"
                | "logging/setLevel"
                | "initialize"
                | "resources/subscribe"
                | "resources/unsubscribe"
        ) && ctx.stateless
        {
            seen.removed = true;
        }
        if method.starts_with(super::envelope::PROBE_NAMESPACE) {
            seen.unknown = true;
            seen.removed |= ctx.stateless;
        }
        if method == "subscriptions/listen" && !exchange.notifications().is_empty() {
            seen.listen = true;
        }
        for note in exchange.notifications() {
            seen.server_notification = true;
            let method = note.method_str();
            seen.list_changed |= method.ends_with("/list_changed");
            seen.resource_updated |= method == "notifications/resources/updated";
            seen.log_message |= method == "notifications/message";
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
            continue;
        }
        let Some(result) = response.result() else {
            continue;
        };
        seen.result = true;
        seen.judge_result(request, result);
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
    meta_missing: bool,
    /// A request naming another version than the session's, its header agreeing.
    bad_version: bool,
    /// A request whose `_meta` version differs from its MCP-Protocol-Version header.
    mismatch: bool,
    removed: bool,
    unknown: bool,
    discover: bool,
    listen: bool,
}

impl Seen {
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
        if json::member(result, "nextCursor").is_some_and(|c| json::as_str(c).is_some()) {
            self.next_cursor = true;
        }
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
            (Rule::MetaRequired, stateless && self.meta_missing),
            (Rule::UnsupportedVersion, stateless && self.bad_version),
            (Rule::HeaderMismatch, stateless && self.mismatch),
            (Rule::RemovedMethod, stateless && self.removed),
            (Rule::DiscoverResult, stateless && self.discover),
            (Rule::ResultType, stateless && self.result),
            (Rule::ListenStream, stateless && self.listen),
        ];
        table
            .into_iter()
            .filter(|(_, on)| *on)
            .map(|(rule, _)| rule)
            .collect()
    }
}
