//! Lifecycle rules: the handshake comes first and completes (INV-001, INV-002), and
//! the version the session runs on is one the specification defines, of the era
//! that negotiated it (INV-019).
//!
//! The handshake rules apply to handshake revisions only: from 2026-07-28 MCP is
//! stateless, has no `initialize`, and every request carries its version in `_meta`
//! (2026-07-28 changelog, major change 2).

use super::Sink;
use super::json;
use super::rules::Rule;
use super::session::{META_PROTOCOL_VERSION, Revision, SessionCtx, meta};

/// INV-001: initialize is the first request the client sends.
///
/// "First" counts every client message, notifications included: the initialization
/// phase must be the first interaction (2025-11-25 basic/lifecycle §Initialization),
/// and this is how mcptest reads it too. A session with no client message at all
/// never sent initialize.
pub(crate) fn initialize_first(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    if ctx.stateless {
        return;
    }
    let first = ctx
        .session
        .exchanges
        .iter()
        .enumerate()
        .find(|(_, e)| e.request.has_method());
    match first {
        None => out.push(
            Rule::InitializeFirst,
            None,
            "the session holds no client message, so initialize was never sent".to_string(),
        ),
        Some((index, exchange)) if !exchange.request.method_is("initialize") => {
            let request = &exchange.request;
            let what = match request.id() {
                Some(id) => format!("a request, id {id}"),
                None => "a notification".to_string(),
            };
            out.push(
                Rule::InitializeFirst,
                Some(index),
                format!(
                    "the first client message is {} ({what}), not initialize",
                    request.method_str()
                ),
            );
        }
        Some(_) => {}
    }
}

/// INV-002: notifications/initialized follows the initialize response.
///
/// It must come after a successful initialize response, and (stricter than mcptest,
/// which accepts a session without it) it must come at all: "after successful
/// initialization, the client MUST send an initialized notification"
/// (2025-11-25 basic/lifecycle §Initialization).
pub(crate) fn initialized_follows(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    if ctx.stateless {
        return;
    }
    let exchanges = &ctx.session.exchanges;
    let is_initialized =
        |e: &crate::capture::Exchange<'_>| e.request.method_is("notifications/initialized");
    let succeeded = ctx
        .initialize
        .and_then(|i| exchanges.get(i))
        .and_then(|e| e.response.as_ref())
        .is_some_and(|r| r.result().is_some() && r.error().is_none());
    for (index, exchange) in exchanges.iter().enumerate() {
        if !is_initialized(exchange) {
            continue;
        }
        let problem = match ctx.initialize {
            None => "notifications/initialized was sent, but initialize never was",
            Some(init) if index < init => {
                "notifications/initialized was sent before the initialize request"
            }
            Some(_) if !succeeded => {
                "notifications/initialized was sent without a successful initialize response"
            }
            Some(_) => continue,
        };
        out.push(Rule::InitializedFollows, Some(index), problem.to_string());
    }
    if let (Some(init), true) = (ctx.initialize, succeeded)
        && !exchanges.iter().skip(init + 1).any(is_initialized)
    {
        out.push(
            Rule::InitializedFollows,
            Some(init),
            "the initialize response is never followed by notifications/initialized".to_string(),
        );
    }
}

/// INV-019: the negotiated protocolVersion is a revision the specification defines.
pub(crate) fn known_protocol_version(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let known = |v: &str| Revision::parse(v).is_some();
    let mut reported: Vec<String> = Vec::new();
    let mut report = |out: &mut Sink, exchange: Option<usize>, version: &str, source: &str| {
        if known(version) || reported.iter().any(|r| r == version) {
            return;
        }
        reported.push(version.to_string());
        let known_list: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
        out.push(
            Rule::KnownProtocolVersion,
            exchange,
            format!(
                "{source} negotiated protocol version {version:?}, which is not a revision the specification defines ({})",
                known_list.join(", ")
            ),
        );
    };

    let session = ctx.session;
    // The initialize result is where a handshake session negotiates; report there
    // first so the finding points at the exchange.
    if let Some(init) = ctx.initialize
        && let Some(result) = session
            .exchanges
            .get(init)
            .and_then(|e| e.response.as_ref())
            .and_then(|r| r.result())
        && let Some(version) = json::member(result, "protocolVersion").and_then(json::as_str)
    {
        report(out, Some(init), &version, "the initialize result");
        // initialize belongs to the handshake era: a revision without it cannot be
        // what it negotiates, and the session stays in the era it opened.
        if let Some(revision) = Revision::parse(&version).filter(|r| r.is_stateless()) {
            out.push(
                Rule::KnownProtocolVersion,
                Some(init),
                format!(
                    "the initialize result negotiated protocol version {:?}, a revision without initialize; initialize negotiates only a handshake revision (up to 2025-11-25)",
                    revision.as_str()
                ),
            );
        }
    }
    if let Some(version) = &session.protocol_version {
        report(out, None, version, "the capture's protocol_version");
    }
    // Stateless revisions: each request names its version; one the server accepted
    // (answered with a result) was negotiated for that request.
    if !ctx.stateless {
        return;
    }
    for (index, exchange) in session.exchanges.iter().enumerate() {
        let accepted = exchange
            .response
            .as_ref()
            .is_some_and(|r| r.result().is_some());
        if !accepted {
            continue;
        }
        if let Some(version) = meta(&exchange.request, META_PROTOCOL_VERSION).and_then(json::as_str)
        {
            report(out, Some(index), &version, "a request the server answered");
        }
    }
}
