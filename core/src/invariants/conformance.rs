//! The verdict of `mcpcheck conformance`: one probe session per protocol revision,
//! each judged by the invariants that apply to its revision, every rule counted as
//! passed (exercised, no finding), failed (a finding of a requirement), not met (a
//! finding of a recommendation: a SHOULD, which fails a run only under `--strict`),
//! noted (a finding of a note) or not verified (the session never contained what
//! the rule judges), made a findings report for the one set of renderers
//! ([`conformance_report`]). Requests the client stopped waiting for by a limit of
//! its own are named as not verified, never blamed on the server.

use serde_json::{Value, json};

use super::rules::{ALL, Rule};
use super::{Finding, check, exercised};
use crate::capture::{self, CaptureDiagnostic};
use crate::findings::{Case, CaseStatus, CaseView, Gate, Level, Note, Report};

/// What happened to one rule in one revision's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Exercised, and no finding.
    Passed,
    /// At least one finding, and the rule is a requirement (`Level::Error`).
    Failed,
    /// At least one finding of a recommendation (`Level::Warning`): recommended,
    /// not met. Fails a run only under `--strict`.
    NotMet,
    /// At least one finding of a note (`Level::Note`); never fails a run.
    Noted,
    /// The session never contained anything the rule judges.
    NotVerified,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::NotMet => "not-met",
            Verdict::Noted => "noted",
            Verdict::NotVerified => "not-verified",
        }
    }

    /// The verdict of a rule of `level` with findings.
    fn of_findings(level: Level) -> Verdict {
        match level {
            Level::Error => Verdict::Failed,
            Level::Warning => Verdict::NotMet,
            Level::Note => Verdict::Noted,
        }
    }
}

/// A request the client stopped waiting for by a limit of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GaveUp {
    /// The exchange, in the revision's session.
    pub exchange: usize,
    /// Its method (and the tool, prompt or resource it named).
    pub what: String,
    /// Why, as the recorder said it: how long the client waited, and the flag
    /// that makes it wait longer.
    pub why: String,
}

/// The outcome of one revision's probe session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionOutcome {
    /// The protocol revision the session spoke.
    pub protocol_version: String,
    /// Why the probe could not finish (the server could not be reached, refused the
    /// session), when it could not.
    pub failure: Option<String>,
    /// Every rule that applies to the revision, with its verdict, in ID order.
    pub verdicts: Vec<(Rule, Verdict)>,
    /// The findings, in report order.
    pub findings: Vec<Finding>,
    /// The requests the client stopped waiting for by a limit of its own.
    pub gave_up: Vec<GaveUp>,
}

impl RevisionOutcome {
    /// How many rules have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.verdicts.iter().filter(|(_, v)| *v == verdict).count()
    }
}

/// Judges the capture of one revision's probe session (a capture of one session).
pub fn judge_revision(
    protocol_version: &str,
    capture_text: &str,
    failure: Option<String>,
) -> Result<RevisionOutcome, Vec<CaptureDiagnostic>> {
    let capture = capture::parse(capture_text)?;
    let report = check(&capture);
    let findings: Vec<Finding> = report
        .sessions
        .into_iter()
        .flat_map(|s| s.findings)
        .collect();
    let seen: Vec<Rule> = capture.sessions.iter().flat_map(|s| exercised(s)).collect();
    let gave_up = capture
        .sessions
        .iter()
        .flat_map(|s| s.exchanges.iter().enumerate())
        .filter_map(|(exchange, e)| {
            let why = e.client_gave_up()?;
            let request = &e.request;
            let named = request.params().and_then(|p| {
                ["name", "uri"]
                    .iter()
                    .find_map(|k| super::json::member(p, k).and_then(super::json::as_str))
            });
            let what = match named {
                Some(n) => format!("{} {n}", request.method_str()),
                None => request.method_str().into_owned(),
            };
            Some(GaveUp {
                exchange,
                what,
                why: why.to_string(),
            })
        })
        .collect();
    let stateless = crate::suite::is_stateless(protocol_version);
    let verdicts = ALL
        .iter()
        .copied()
        .filter(|r| applies(*r, stateless))
        .map(|rule| {
            let verdict = if findings.iter().any(|f| f.code() == rule.id()) {
                Verdict::of_findings(rule.info().level)
            } else if seen.contains(&rule) {
                Verdict::Passed
            } else {
                Verdict::NotVerified
            };
            (rule, verdict)
        })
        .collect();
    Ok(RevisionOutcome {
        protocol_version: protocol_version.to_string(),
        failure,
        verdicts,
        findings,
        gave_up,
    })
}

/// The outcome of a revision whose session never opened because the transport
/// refused it (an HTTP 401, say): nothing the server said is JSON-RPC, so no rule
/// is judged, and `failure` says why.
pub fn unjudged_revision(protocol_version: &str, failure: String) -> RevisionOutcome {
    let stateless = crate::suite::is_stateless(protocol_version);
    RevisionOutcome {
        protocol_version: protocol_version.to_string(),
        failure: Some(failure),
        verdicts: ALL
            .iter()
            .copied()
            .filter(|r| applies(*r, stateless))
            .map(|r| (r, Verdict::NotVerified))
            .collect(),
        findings: Vec::new(),
        gave_up: Vec::new(),
    }
}

/// Whether a rule applies to a revision: the handshake rules to handshake revisions,
/// the 2026-07-28 server requirements to stateless ones.
fn applies(rule: Rule, stateless: bool) -> bool {
    match rule {
        Rule::InitializeFirst | Rule::InitializedFollows => !stateless,
        Rule::MetaRequired
        | Rule::UnsupportedVersion
        | Rule::HeaderMismatch
        | Rule::RemovedMethod
        | Rule::DiscoverResult
        | Rule::ResultType
        | Rule::ListenStream
        | Rule::RoutingHeaders
        | Rule::ParamHeaders
        | Rule::MissingClientCapability
        | Rule::ServerInfo
        | Rule::DiscoverStable
        | Rule::ListenFilter
        | Rule::CachingHints
        | Rule::TraceContext
        | Rule::ResourceNotFound => stateless,
        // The tasks extension is negotiated per request, from 2026-07-28.
        r if (Rule::TaskUndeclared..=Rule::TaskPollInterval).contains(&r) => stateless,
        _ => true,
    }
}

/// Whether every revision was probed to the end without a finding of a
/// requirement (recommendations not met and notes do not fail; see
/// [`conformance_passed_with`]).
pub fn conformance_passed(outcomes: &[RevisionOutcome]) -> bool {
    conformance_passed_with(outcomes, Gate::ERRORS)
}

/// Whether every revision was probed to the end without a finding that fails
/// `gate` (`strict`: recommendations not met fail too).
pub fn conformance_passed_with(outcomes: &[RevisionOutcome], gate: Gate) -> bool {
    !outcomes.is_empty()
        && outcomes
            .iter()
            .all(|o| o.failure.is_none() && gate.passes(&o.findings))
}

/// The outcomes as a findings report about `server`: per revision, a case per
/// rule (passed, failed or not verified) and an error case when the probe did
/// not finish; the findings located at their revision. The JSON keeps the
/// command's contract beside them: `server` and `revisions`, each with its
/// counts, every rule's verdict and its findings.
pub fn conformance_report(server: &str, outcomes: &[RevisionOutcome]) -> Report {
    conformance_report_gated(server, outcomes, Gate::ERRORS)
}

/// [`conformance_report`] under `gate`: with `strict`, a recommendation not met
/// is a failing case and fails the run.
pub fn conformance_report_gated(server: &str, outcomes: &[RevisionOutcome], gate: Gate) -> Report {
    let mut r = Report::new("conformance", server);
    r.case_view = CaseView::Counts;
    r.gate = gate;
    for o in outcomes {
        if let Some(why) = &o.failure {
            r.cases.push(Case {
                suite: o.protocol_version.clone(),
                class: o.protocol_version.clone(),
                name: "probe".into(),
                status: CaseStatus::Error,
                label: String::new(),
                detail: why.clone(),
                duration_ms: None,
                findings: Vec::new(),
            });
        }
        let first = r.findings.len();
        for f in &o.findings {
            let mut f = f.clone();
            f.location.context = Some(o.protocol_version.clone());
            r.findings.push(f);
        }
        for (rule, verdict) in &o.verdicts {
            let findings: Vec<usize> = (first..r.findings.len())
                .filter(|&i| r.findings[i].code() == rule.id())
                .collect();
            let (status, detail) = match verdict {
                Verdict::Passed => (CaseStatus::Passed, String::new()),
                Verdict::Failed => (CaseStatus::Failed, String::new()),
                Verdict::NotMet if gate.strict => (
                    CaseStatus::Failed,
                    "recommended, not met (failing under --strict)".to_string(),
                ),
                Verdict::NotMet => (
                    CaseStatus::Noted,
                    "recommended, not met (fails only under --strict)".to_string(),
                ),
                Verdict::Noted => (CaseStatus::Noted, "noted".to_string()),
                Verdict::NotVerified => (
                    CaseStatus::NotVerified,
                    "not verified: the probe session never exercised this rule".to_string(),
                ),
            };
            r.cases.push(Case {
                suite: o.protocol_version.clone(),
                class: o.protocol_version.clone(),
                name: format!("{} {}", rule.id(), rule.info().title),
                status,
                label: String::new(),
                detail,
                duration_ms: None,
                findings,
            });
        }
    }
    for o in outcomes {
        for g in &o.gave_up {
            r.notes.push(Note::info(format!(
                "{}: INV-022 not verified for {} (exchange {}): {}",
                o.protocol_version, g.what, g.exchange, g.why
            )));
        }
        let not_met: Vec<&str> = o
            .verdicts
            .iter()
            .filter(|(_, v)| *v == Verdict::NotMet)
            .map(|(rule, _)| rule.id())
            .collect();
        if !not_met.is_empty() {
            r.summary.push(format!(
                "{}: {} recommended, not met: {}{}",
                o.protocol_version,
                crate::report::plural(not_met.len(), "rule", "rules"),
                not_met.join(", "),
                if gate.strict {
                    " (failing: --strict)"
                } else {
                    " (SHOULD-level; they fail the run only with --strict)"
                }
            ));
        }
    }
    if outcomes.is_empty() {
        r.notes
            .push(Note::failing("no protocol revision was probed"));
    }
    let revisions: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            json!({
                "protocol_version": o.protocol_version,
                "failure": o.failure,
                "passed": o.count(Verdict::Passed),
                "failed": o.count(Verdict::Failed),
                "not_met": o.count(Verdict::NotMet),
                "noted": o.count(Verdict::Noted),
                "not_verified": o.count(Verdict::NotVerified),
                "gave_up": o.gave_up.iter().map(|g| json!({"exchange": g.exchange, "request": g.what, "why": g.why})).collect::<Vec<_>>(),
                "rules": o.verdicts.iter().map(|(r, v)| json!({"id": r.id(), "verdict": v.as_str()})).collect::<Vec<_>>(),
                "findings": o.findings.iter().map(|f| json!({"rule": f.code(), "level": f.level().as_str(), "exchange": f.location.exchange, "message": f.message})).collect::<Vec<_>>(),
            })
        })
        .collect();
    r.set_extra("server", json!(server));
    r.set_extra("revisions", Value::Array(revisions));
    r
}
