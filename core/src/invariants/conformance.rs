//! The verdict of `mcpcheck conformance`: one probe session per protocol revision,
//! each judged by the invariants that apply to its revision, every rule counted as
//! passed (exercised, no finding), failed (a finding) or not verified (the session
//! never contained what the rule judges). Rendered as text, JSON, JUnit XML and SARIF.

use quick_junit::{NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestSuite};
use serde_json::{Value, json};

use super::rules::{ALL, Rule};
use super::{Finding, check, exercised};
use crate::capture::{self, CaptureDiagnostic};

/// What happened to one rule in one revision's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Exercised, and no finding.
    Passed,
    /// At least one finding.
    Failed,
    /// The session never contained anything the rule judges.
    NotVerified,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::NotVerified => "not-verified",
        }
    }
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
    let stateless = crate::suite::is_stateless(protocol_version);
    let verdicts = ALL
        .iter()
        .copied()
        .filter(|r| applies(*r, stateless))
        .map(|rule| {
            let verdict = if findings.iter().any(|f| f.rule == rule) {
                Verdict::Failed
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
        | Rule::ListenStream => stateless,
        _ => true,
    }
}

/// Whether every revision was probed to the end without a finding.
pub fn conformance_passed(outcomes: &[RevisionOutcome]) -> bool {
    !outcomes.is_empty()
        && outcomes
            .iter()
            .all(|o| o.failure.is_none() && o.findings.is_empty())
}

fn place(f: &Finding) -> String {
    f.exchange
        .map_or_else(String::new, |i| format!(" (exchange {i})"))
}

/// The text report: per revision its counts, its findings, and the rules not
/// verified.
pub fn render_conformance_text(server: &str, outcomes: &[RevisionOutcome]) -> String {
    let mut s = format!("mcpcheck conformance: {server}\n");
    for o in outcomes {
        s.push_str(&format!(
            "{}: {} passed, {} failed, {} not verified\n",
            o.protocol_version,
            o.count(Verdict::Passed),
            o.count(Verdict::Failed),
            o.count(Verdict::NotVerified)
        ));
        if let Some(why) = &o.failure {
            s.push_str(&format!("  the probe did not finish: {why}\n"));
        }
        for f in &o.findings {
            s.push_str(&format!(
                "  FAIL {}{}: {}\n",
                f.rule.id(),
                place(f),
                f.message
            ));
        }
        let unverified: Vec<&str> = o
            .verdicts
            .iter()
            .filter(|(_, v)| *v == Verdict::NotVerified)
            .map(|(r, _)| r.id())
            .collect();
        if !unverified.is_empty() {
            s.push_str(&format!("  not verified: {}\n", unverified.join(", ")));
        }
    }
    s
}

/// The JSON report (`"version": 1`).
pub fn render_conformance_json(server: &str, outcomes: &[RevisionOutcome]) -> String {
    let revisions: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            json!({
                "protocol_version": o.protocol_version,
                "failure": o.failure,
                "passed": o.count(Verdict::Passed),
                "failed": o.count(Verdict::Failed),
                "not_verified": o.count(Verdict::NotVerified),
                "rules": o.verdicts.iter().map(|(r, v)| json!({"id": r.id(), "verdict": v.as_str()})).collect::<Vec<_>>(),
                "findings": o.findings.iter().map(|f| json!({"rule": f.rule.id(), "exchange": f.exchange, "message": f.message})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "version": super::REPORT_VERSION,
        "server": server,
        "passed": conformance_passed(outcomes),
        "revisions": revisions,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// JUnit XML: one test suite per revision, one test case per rule; a rule not
/// verified is skipped, and a probe that did not finish is an error case.
pub fn render_conformance_junit(server: &str, outcomes: &[RevisionOutcome]) -> String {
    let mut report = Junit::new("mcpcheck conformance");
    for o in outcomes {
        let mut suite = TestSuite::new(format!("{server} {}", o.protocol_version));
        if let Some(why) = &o.failure {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(why.as_str());
            suite.add_test_case(TestCase::new("probe", status));
        }
        for (rule, verdict) in &o.verdicts {
            let status = match verdict {
                Verdict::Passed => TestCaseStatus::success(),
                Verdict::NotVerified => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message("not verified: the probe session never exercised this rule");
                    s
                }
                Verdict::Failed => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    let messages: Vec<String> = o
                        .findings
                        .iter()
                        .filter(|f| f.rule == *rule)
                        .map(|f| format!("{}{}", f.message, place(f)))
                        .collect();
                    s.set_message(messages.first().map_or("", String::as_str));
                    s.set_description(messages.join("\n"));
                    s
                }
            };
            let mut case = TestCase::new(format!("{} {}", rule.id(), rule.info().property), status);
            case.set_classname(o.protocol_version.as_str());
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string().unwrap_or_else(|e| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- mcpcheck could not serialize the JUnit report: {} -->\n<testsuites name=\"mcpcheck conformance\"/>\n",
            e.to_string().replace("--", "- -")
        )
    })
}

/// SARIF 2.1.0: the rules are the invariants, every finding a result located at the
/// server (there is no source line to point at).
pub fn render_conformance_sarif(server: &str, outcomes: &[RevisionOutcome]) -> String {
    let rules: Vec<Value> = ALL
        .iter()
        .map(|r| {
            let info = r.info();
            json!({
                "id": info.id,
                "shortDescription": {"text": info.property},
                "fullDescription": {"text": format!("{} ({})", info.property, info.citation)},
                "properties": {"category": info.category},
            })
        })
        .collect();
    let mut results = Vec::new();
    for o in outcomes {
        for f in &o.findings {
            results.push(json!({
                "ruleId": f.rule.id(),
                "ruleIndex": ALL.iter().position(|r| *r == f.rule).unwrap_or(0),
                "level": "error",
                "message": {"text": format!("{}{}: {}", o.protocol_version, place(f), f.message)},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": server}}}],
                "properties": {"protocolVersion": o.protocol_version},
            }));
        }
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mcpcheck", "rules": rules}},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
