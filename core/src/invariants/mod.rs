//! Conformance invariants over captured MCP sessions.
//!
//! An invariant is a property of a whole captured session, not of one message: the
//! handshake comes first, a server answers only for capabilities it advertised, every
//! response answers exactly one request, and every message matches the official
//! schema of the session's revision. [`check`] runs every rule of [`rules`] over each
//! session of a [`Capture`], then, for a capture of several sessions, looks for
//! composition hazards. It is a pure function of the capture: the same capture always
//! gives the same [`Report`], findings in a stable order (by exchange index, then rule
//! ID; session-level findings first).
//!
//! [`render_json`] turns a report into the documented JSON contract, [`report`] into
//! a findings report for the one set of renderers; the
//! JSON form is versioned (`"version": 1`, see `docs/capture.md`).

/// MCP Apps: the checks of one tool or `ui://` resource, shared with lint
/// and the runner.
pub mod apps;
mod capability;
mod composition;
mod conformance;
mod coverage;
mod envelope;
mod fast;
mod headers;
mod json;
mod lifecycle;
mod modern;
mod pagination;
mod progress;
mod render;
pub(crate) mod rules;
mod schema;
mod schema_patch;
mod session;
pub(crate) mod skills;
#[cfg(not(target_family = "wasm"))]
mod tape;
mod tasks;
pub(crate) mod tools;

pub use crate::findings::RuleInfo;
pub use conformance::{
    GaveUp, RevisionOutcome, Verdict, conformance_passed, conformance_passed_with,
    conformance_report, conformance_report_gated, judge_revision, unjudged_revision,
};
pub use coverage::exercised;
pub use headers::param_headers;
pub use modern::{PROBE_PROMPT, PROBE_RESOURCE};
pub use render::{render_json, report};
pub use rules::{HAZARDS, HazardInfo, HazardKind, Rule};
pub use schema::embedded_schema_bytes;

use crate::capture::{self, Capture, CaptureDiagnostic};
use session::SessionCtx;

/// The version of the JSON report format.
pub const REPORT_VERSION: u32 = 1;

/// Every invariant, in ID order.
pub fn rules() -> impl ExactSizeIterator<Item = &'static RuleInfo> {
    rules::ALL.iter().map(|r| r.info())
}

/// One violated invariant: the rule, the offending exchange (for unmatched
/// messages, the exchange they followed; none for a finding about the session
/// as a whole) with the method it was about, and what happened.
pub use crate::findings::Finding;
use crate::findings::{ItemKind, Location};

/// The findings of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionReport {
    /// The session's `server_label`.
    pub server_label: Option<String>,
    /// Violations only, in report order.
    pub findings: Vec<Finding>,
}

/// One composition hazard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// What kind of hazard.
    pub kind: HazardKind,
    /// The servers involved, by label (`#<index>` for a session without one).
    pub servers: Vec<String>,
    /// What happened, in one line.
    pub message: String,
}

/// The outcome of checking a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// One entry per session, in capture order.
    pub sessions: Vec<SessionReport>,
    /// Composition hazards (only for captures of two or more sessions).
    pub hazards: Vec<Hazard>,
}

impl Report {
    /// Whether every invariant holds and no hazard was found: no finding of a
    /// requirement (a recommendation not met, `Level::Warning`, and a note do not
    /// count; see [`Report::passed_with`]).
    pub fn passed(&self) -> bool {
        self.passed_with(crate::findings::Gate::ERRORS)
    }

    /// Whether no finding fails `gate` and no hazard was found.
    pub fn passed_with(&self, gate: crate::findings::Gate) -> bool {
        self.hazards.is_empty() && self.sessions.iter().all(|s| gate.passes(&s.findings))
    }

    /// The number of findings over all sessions.
    pub fn finding_count(&self) -> usize {
        self.sessions.iter().map(|s| s.findings.len()).sum()
    }
}

/// Where rules put their findings.
pub(crate) struct Sink {
    findings: Vec<Finding>,
}

impl Sink {
    /// An empty sink, for a check run outside a session (lint's).
    pub(crate) fn new() -> Sink {
        Sink {
            findings: Vec::new(),
        }
    }

    /// What the rules found.
    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }

    pub(crate) fn push(&mut self, rule: Rule, exchange: Option<usize>, message: String) {
        let location = Location {
            exchange,
            ..Location::default()
        };
        self.findings
            .push(Finding::new(rule.info(), location, message));
    }
}

/// Checks a parsed capture.
pub fn check(capture: &Capture<'_>) -> Report {
    Checker::default().check(capture)
}

/// Parses capture text and checks it; the diagnostics when it is not a capture.
pub fn check_text(text: &str) -> Result<Report, Vec<CaptureDiagnostic>> {
    capture::parse(text).map(|capture| check(&capture))
}

/// [`check_text`], with the rules each session gave something to judge
/// ([`exercised`]), for [`render_text`] to tell what holds from what was
/// never verified.
pub fn check_text_exercised(
    text: &str,
) -> Result<(Report, Vec<Vec<Rule>>), Vec<CaptureDiagnostic>> {
    capture::parse(text).map(|capture| {
        let judged = capture.sessions.iter().map(exercised).collect();
        (check(&capture), judged)
    })
}

/// A checker that keeps its compiled schemas between captures, for callers that
/// check many (the playground on every edit, test suites). Its reports are the same
/// as [`check`]'s.
#[derive(Default)]
pub struct Checker {
    schemas: schema::SchemaCache,
}

impl std::fmt::Debug for Checker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checker").finish_non_exhaustive()
    }
}

impl Checker {
    /// Checks a parsed capture.
    pub fn check(&mut self, capture: &Capture<'_>) -> Report {
        check_with(capture, &mut self.schemas)
    }

    /// Parses capture text and checks it.
    pub fn check_text(&mut self, text: &str) -> Result<Report, Vec<CaptureDiagnostic>> {
        capture::parse(text).map(|capture| self.check(&capture))
    }
}

fn check_with(capture: &Capture<'_>, schemas: &mut schema::SchemaCache) -> Report {
    let mut sessions = Vec::with_capacity(capture.sessions.len());
    let mut tool_lists = Vec::with_capacity(capture.sessions.len());
    for session in &capture.sessions {
        let ctx = SessionCtx::new(session);
        let lists = tools::tool_lists(&session.exchanges);
        let mut sink = Sink {
            findings: Vec::new(),
        };
        let out = &mut sink;
        lifecycle::initialize_first(&ctx, out);
        lifecycle::initialized_follows(&ctx, out);
        capability::list_needs_capability(&ctx, out);
        capability::capability_not_all_errors(&ctx, out);
        tools::tool_calls(&ctx, &lists, out);
        envelope::error_envelope(&ctx, out);
        envelope::method_not_found_code(&ctx, out);
        envelope::response_pairing(&ctx, out);
        envelope::result_xor_error(&ctx, out);
        envelope::notification_no_id(&ctx, out);
        progress::progress(&ctx, out);
        tools::tool_names(&ctx, &lists, out);
        capability::notification_capabilities(&ctx, out);
        capability::client_capabilities(&ctx, out);
        lifecycle::known_protocol_version(&ctx, out);
        pagination::cursor_loop(&ctx, out);
        envelope::server_writes_json(&ctx, out);
        envelope::request_answered(&ctx, out);
        schema::schema_family(&ctx, schemas, out);
        modern::stateless_requests(&ctx, out);
        // The extensions: tasks, skills, MCP Apps.
        tasks::tasks(&ctx, out);
        skills::skills(&ctx, out);
        apps::apps(&ctx, out);
        let mut findings = sink.findings;
        // Stable: findings of one rule at one exchange keep the order the rule found
        // them in.
        findings.sort_by_key(|f| (f.location.exchange, f.code()));
        for f in &mut findings {
            f.location.server = session.server_label.as_deref().map(str::to_string);
            let method = f
                .location
                .exchange
                .and_then(|i| session.exchanges.get(i))
                .and_then(|e| e.request.method());
            if let Some(method) = method {
                f.location.item = Some((ItemKind::Method, method.into_owned()));
            }
        }
        sessions.push(SessionReport {
            server_label: session.server_label.as_deref().map(str::to_string),
            findings,
        });
        tool_lists.push(lists);
    }
    let hazards = composition::hazards(capture, &tool_lists);
    Report { sessions, hazards }
}
