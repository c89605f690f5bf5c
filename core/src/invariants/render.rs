//! The two forms of an invariants report, and of the rule list.
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

use crate::report::plural;
use std::fmt::Write as _;

use serde::Serialize;

use super::rules::{ALL, HAZARDS};
use super::{REPORT_VERSION, Report};

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

#[derive(Serialize)]
struct RulesOut {
    version: u32,
    rules: Vec<RuleOut>,
    hazards: Vec<HazardRuleOut>,
}

#[derive(Serialize)]
struct RuleOut {
    id: &'static str,
    category: &'static str,
    property: &'static str,
    citation: &'static str,
}

#[derive(Serialize)]
struct HazardRuleOut {
    kind: &'static str,
    property: &'static str,
    citation: &'static str,
}

fn pretty<T: Serialize>(value: &T) -> String {
    // Serializing these plain structs to a String cannot fail (no maps with
    // non-string keys, no foreign Serialize impls).
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The report as the documented JSON document (pretty-printed, no trailing newline).
pub fn render_json(report: &Report) -> String {
    let out = InvariantsReport {
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
                        id: f.rule.id(),
                        category: f.rule.category(),
                        message: &f.message,
                        exchange: f.exchange,
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
    };
    pretty(&out)
}

/// The report for people: one block per session, then hazards, then a verdict
/// line. `exercised` holds, per session, the rules it gave something to judge
/// ([`super::check_text_exercised`]); a clean session counts those as
/// holding and names the others as not verified.
pub fn render_text(report: &Report, exercised: &[Vec<super::rules::Rule>]) -> String {
    let mut out = String::new();
    let rule_count = ALL.len();
    for (index, session) in report.sessions.iter().enumerate() {
        let label = session
            .server_label
            .clone()
            .unwrap_or_else(|| format!("#{index}"));
        // A rule the capture gave nothing to judge holds only vacuously.
        let judged = exercised.get(index).map_or(&[][..], Vec::as_slice);
        let unjudged: Vec<&str> = ALL
            .iter()
            .filter(|r| !judged.contains(r))
            .map(|r| r.id())
            .collect();
        if session.findings.is_empty() {
            let held = rule_count - unjudged.len();
            let _ = write!(
                out,
                "PASS {label}: {} hold",
                plural(held, "invariant", "invariants")
            );
            if unjudged.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(
                    out,
                    ", {} not verified (the capture has nothing for them to judge: {})",
                    unjudged.len(),
                    unjudged.join(", ")
                );
            }
            continue;
        }
        let _ = writeln!(
            out,
            "FAIL {label}: {}",
            plural(session.findings.len(), "finding", "findings")
        );
        for finding in &session.findings {
            let at = finding
                .exchange
                .map_or_else(|| "session".to_string(), |i| format!("exchange {i}"));
            let _ = writeln!(
                out,
                "  {at}: {} [{}] {}",
                finding.rule.id(),
                finding.rule.category(),
                finding.message
            );
        }
    }
    if !report.hazards.is_empty() {
        let _ = writeln!(out, "HAZARDS {}", report.hazards.len());
        for hazard in &report.hazards {
            let _ = writeln!(
                out,
                "  {} ({}): {}",
                hazard.kind.info().kind,
                hazard.servers.join(", "),
                hazard.message
            );
        }
    }
    let sessions = plural(report.sessions.len(), "session", "sessions");
    if report.passed() {
        let _ = write!(out, "passed: no invariant is violated in {sessions}");
        if report.sessions.len() > 1 {
            out.push_str("; no composition hazards");
        }
    } else {
        let failing = report
            .sessions
            .iter()
            .filter(|s| !s.findings.is_empty())
            .count();
        let _ = write!(
            out,
            "failed: {} in {failing} of {sessions}, {}",
            plural(report.finding_count(), "finding", "findings"),
            plural(
                report.hazards.len(),
                "composition hazard",
                "composition hazards"
            )
        );
    }
    out
}

/// The rule list as JSON: `{"version": 1, "rules": [{id, category, property,
/// citation}], "hazards": [{kind, property, citation}]}`.
pub fn render_rules_json() -> String {
    let out = RulesOut {
        version: REPORT_VERSION,
        rules: ALL
            .iter()
            .map(|r| {
                let info = r.info();
                RuleOut {
                    id: info.id,
                    category: info.category,
                    property: info.property,
                    citation: info.citation,
                }
            })
            .collect(),
        hazards: HAZARDS
            .iter()
            .map(|h| {
                let info = h.info();
                HazardRuleOut {
                    kind: info.kind,
                    property: info.property,
                    citation: info.citation,
                }
            })
            .collect(),
    };
    pretty(&out)
}

/// The rule list for people.
pub fn render_rules_text() -> String {
    let mut out = String::new();
    for rule in ALL {
        let info = rule.info();
        let _ = writeln!(out, "{}  {:<15} {}", info.id, info.category, info.property);
        let _ = writeln!(out, "{:24}{}", "", info.citation);
    }
    out.push_str("\ncomposition hazards (captures of several sessions):\n");
    for hazard in HAZARDS {
        let info = hazard.info();
        let _ = writeln!(out, "{}  {}", info.kind, info.property);
        let _ = writeln!(out, "{:24}{}", "", info.citation);
    }
    out.pop();
    out
}
