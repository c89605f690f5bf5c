//! An invariants report: its JSON contract, and the report for the one set of
//! renderers.
//!
//! The JSON form is the contract shared by the CLI, the npm package and the
//! playground; its shape is defined here and nowhere else:
//!
//! ```text
//! { "version": 1,
//!   "passed": bool,
//!   "sessions": [ { "server_label": string | null,
//!                   "findings": [ { "id": "INV-NNN", "category": string,
//!                                   "message": string, "exchange": integer | null } ] } ],
//!   "hazards": [ { "kind": string, "servers": [string], "message": string } ] }
//! ```
//!
//! `findings` and `hazards` hold violations only. Keys appear in the order above.

use serde::Serialize;

use serde_json::Value;

use super::rules::ALL;
use super::{REPORT_VERSION, Report};
use crate::findings::{
    Case, CaseStatus, CaseView, Finding, ItemKind, Location, Report as FindingsReport,
};

/// The invariants report (`mcpcheck invariants --format json`).
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
struct InvariantsReport<'r> {
    #[cfg_attr(feature = "ts", tsify(type = "1"))]
    version: u32,
    /// Every invariant holds and no hazard was found.
    passed: bool,
    /// One entry per session, in capture order; findings are violations only.
    sessions: Vec<InvariantsSession<'r>>,
    /// Composition hazards (captures of two or more sessions).
    hazards: Vec<CompositionHazard<'r>>,
}

/// One session's findings.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
struct InvariantsSession<'r> {
    server_label: Option<&'r str>,
    findings: Vec<InvariantFinding<'r>>,
}

/// One violated invariant.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
struct InvariantFinding<'r> {
    /// The rule, `INV-NNN`.
    id: &'static str,
    /// The rule's family, e.g. `lifecycle`, `capability`, `error-envelope`.
    category: &'static str,
    message: &'r str,
    /// The index of the offending exchange in its session; `null` for a
    /// finding about the session as a whole.
    exchange: Option<usize>,
}

/// A composition hazard between the servers of a multi-session capture.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
struct CompositionHazard<'r> {
    kind: &'static str,
    servers: &'r [String],
    message: &'r str,
}

fn pretty<T: Serialize>(value: &T) -> String {
    // Serializing these plain structs to a String cannot fail (no maps with
    // non-string keys, no foreign Serialize impls).
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The report as the documented JSON document (pretty-printed, no trailing newline).
pub fn render_json(report: &Report) -> String {
    pretty(&contract(report))
}

/// The documented JSON document of a report.
fn contract(report: &Report) -> InvariantsReport<'_> {
    InvariantsReport {
        version: REPORT_VERSION,
        passed: report.passed(),
        sessions: report
            .sessions
            .iter()
            .map(|s| InvariantsSession {
                server_label: s.server_label.as_deref(),
                findings: s
                    .findings
                    .iter()
                    .map(|f| InvariantFinding {
                        id: f.code(),
                        category: f.rule.category,
                        message: &f.message,
                        exchange: f.location.exchange,
                    })
                    .collect(),
            })
            .collect(),
        hazards: report
            .hazards
            .iter()
            .map(|h| CompositionHazard {
                kind: h.kind.info().kind,
                servers: &h.servers,
                message: &h.message,
            })
            .collect(),
    }
}

/// The report as a findings report about `subject` (the capture's file), for
/// the one set of renderers: per session (its label, or `#N`), a case per rule
/// (passed when the session gave it something to judge and it held, failed,
/// or not verified, from `exercised`, [`super::check_text_exercised`]), the
/// findings located at their session and exchange, and the composition
/// hazards as findings of their rules (`INV-090`, `INV-091`). The JSON keeps
/// the documented contract beside them ([`render_json`]'s `sessions` and
/// `hazards`).
pub fn report(
    report: &Report,
    exercised: &[Vec<super::rules::Rule>],
    subject: &str,
) -> FindingsReport {
    let mut out = FindingsReport::new("invariants", subject);
    out.case_view = CaseView::Counts;
    for (index, session) in report.sessions.iter().enumerate() {
        let label = session
            .server_label
            .clone()
            .unwrap_or_else(|| format!("#{index}"));
        let judged = exercised.get(index).map_or(&[][..], Vec::as_slice);
        let first = out.findings.len();
        for f in &session.findings {
            let mut f = f.clone();
            f.location.context = Some(label.clone());
            out.findings.push(f);
        }
        for rule in ALL {
            let findings: Vec<usize> = (first..out.findings.len())
                .filter(|&i| out.findings[i].code() == rule.id())
                .collect();
            let (status, detail) = if !findings.is_empty() {
                (CaseStatus::Failed, String::new())
            } else if judged.contains(&rule) {
                (CaseStatus::Passed, String::new())
            } else {
                (
                    CaseStatus::NotVerified,
                    "not verified: the capture has nothing for it to judge".to_string(),
                )
            };
            out.cases.push(Case {
                suite: label.clone(),
                class: label.clone(),
                name: format!("{} {}", rule.id(), rule.info().title),
                status,
                label: String::new(),
                detail,
                duration_ms: None,
                findings,
            });
        }
    }
    for h in &report.hazards {
        let location = Location::item(ItemKind::Server, h.servers.join(", "));
        out.findings
            .push(Finding::new(h.kind.rule(), location, h.message.clone()));
    }
    let sessions = crate::report::plural(report.sessions.len(), "session", "sessions");
    if report.passed() {
        let mut line = format!("passed: no invariant is violated in {sessions}");
        if report.sessions.len() > 1 {
            line.push_str("; no composition hazards");
        }
        out.summary.push(line);
    } else {
        let failing = report
            .sessions
            .iter()
            .filter(|s| !s.findings.is_empty())
            .count();
        out.summary.push(format!(
            "failed: {} in {failing} of {sessions}, {}",
            crate::report::plural(report.finding_count(), "finding", "findings"),
            crate::report::plural(
                report.hazards.len(),
                "composition hazard",
                "composition hazards"
            )
        ));
    }
    let c = contract(report);
    out.set_extra(
        "sessions",
        serde_json::to_value(&c.sessions).unwrap_or(Value::Null),
    );
    out.set_extra(
        "hazards",
        serde_json::to_value(&c.hazards).unwrap_or(Value::Null),
    );
    out
}
