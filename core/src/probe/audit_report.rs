//! The audit report: one result per tool, prompt and resource, a score, and
//! the findings report the one set of renderers draws ([`audit_findings`]).
//!
//! ```json
//! {"version": 1, "server": "everything", "transport": "stdio", "score": 66,
//!  "results": [{"kind": "tool", "tool": "echo", "status": "healthy",
//!               "detail": "returned 1 content item", "duration_ms": 3,
//!               "input": {"message": "example"}},
//!              {"kind": "tool", "tool": "boom", "status": "crash",
//!               "detail": "the server exited (exit status 1) before answering",
//!               "duration_ms": 12, "input": {}, "stderr": "Traceback …"}]}
//! ```
//!
//! `tool` holds the tool or prompt name or the resource URI (mcp-assert's
//! field name); `input` the arguments sent (`null` for a resource or when
//! none were sent); `stderr` the server's last stderr lines, for results that
//! are not healthy, when there were any; `answer` the first line of the
//! answer's text, when it had text.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Arguments;
use super::classify::{Classification, Observed, Status};
use super::render::{ItemKind, Transport, breakdown, shown};
use super::rules::{AUDIT, audit_rule};
use crate::findings::{
    Case, CaseStatus, CaseView, Finding, ItemKind as FindingKind, Location, Report,
};

/// The version of the audit report's JSON shape.
pub const AUDIT_REPORT_VERSION: u32 = 1;

/// One audited item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditResult {
    pub kind: ItemKind,
    /// The tool or prompt name, or the resource URI.
    pub tool: String,
    pub status: Status,
    pub detail: String,
    pub duration_ms: u64,
    /// The arguments sent; `null` when none were.
    pub input: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The first line of the answer's text, when it had text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

impl AuditResult {
    /// The result of one call: its classification, the arguments sent, and
    /// (unless healthy) the server's stderr tail when it wrote any.
    pub fn from_call(
        kind: ItemKind,
        item: &str,
        input: &Arguments,
        outcome: &Classification,
        observed: &Observed,
    ) -> Self {
        let tail = observed.stderr_tail.trim_end();
        AuditResult {
            kind,
            tool: item.to_string(),
            status: outcome.status,
            detail: outcome.detail.clone(),
            duration_ms: observed.duration_ms,
            input: input.to_json(),
            stderr: (outcome.status != Status::Healthy && !tail.is_empty())
                .then(|| tail.to_string()),
            answer: first_line(observed.response.as_ref()),
        }
    }

    /// An item not called, and why.
    pub fn skipped(kind: ItemKind, item: &str, reason: &str) -> Self {
        AuditResult {
            kind,
            tool: item.to_string(),
            status: Status::Skipped,
            detail: reason.to_string(),
            duration_ms: 0,
            input: Value::Null,
            stderr: None,
            answer: None,
        }
    }
}

/// The audit of one server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// [`AUDIT_REPORT_VERSION`].
    pub version: u32,
    /// The server's name (`serverInfo.name`, else how it was started).
    pub server: String,
    pub transport: Transport,
    /// [`audit_score`] of the results.
    pub score: u32,
    /// In the order the items were listed: tools, then prompts, then resources.
    pub results: Vec<AuditResult>,
}

impl AuditReport {
    pub fn new(server: &str, transport: Transport, results: Vec<AuditResult>) -> Self {
        AuditReport {
            version: AUDIT_REPORT_VERSION,
            server: server.to_string(),
            transport,
            score: audit_score(&results),
            results,
        }
    }

    /// The listed items of `kind` whose call was healthy, in listing
    /// order: what `audit --output` writes starter tests for. `items` are
    /// the listing's definitions; an item is named by `name` (a resource
    /// by `uri`).
    pub fn healthy_items(&self, kind: ItemKind, items: &[Value]) -> Vec<Value> {
        let key = if kind == ItemKind::Resource {
            "uri"
        } else {
            "name"
        };
        items
            .iter()
            .filter(|item| {
                let name = item[key].as_str().unwrap_or_default();
                self.results
                    .iter()
                    .any(|r| r.kind == kind && r.tool == name && r.status == Status::Healthy)
            })
            .cloned()
            .collect()
    }
}

/// The score, 0 to 100: of the items called (skipped ones left out), the
/// share whose status is not serious (healthy, tool error, accepted
/// invalid), rounded down; 100 when nothing was called. mcp-assert counts
/// only `healthy` as fine; a tool error is a tool reporting a failure the
/// way MCP asks, so it counts as fine here.
pub fn audit_score(results: &[AuditResult]) -> u32 {
    let called: Vec<&AuditResult> = results
        .iter()
        .filter(|r| r.status != Status::Skipped)
        .collect();
    if called.is_empty() {
        return 100;
    }
    let fine = called.iter().filter(|r| !r.status.is_serious()).count();
    (fine * 100 / called.len()) as u32
}

/// Whether the audit passes: no result has a serious status.
pub fn audit_passed(report: &AuditReport) -> bool {
    !report.results.iter().any(|r| r.status.is_serious())
}

/// The counts line: `3 called: 2 fine, 1 serious (1 crash) · 1 skipped`.
fn counts(report: &AuditReport) -> String {
    let called: Vec<&AuditResult> = report
        .results
        .iter()
        .filter(|r| r.status != Status::Skipped)
        .collect();
    let skipped = report.results.len() - called.len();
    let serious: Vec<Status> = called
        .iter()
        .map(|r| r.status)
        .filter(|s| s.is_serious())
        .collect();
    let mut line = format!(
        "{} called: {} fine",
        called.len(),
        called.len() - serious.len()
    );
    if !serious.is_empty() {
        let _ = write!(
            line,
            ", {} serious ({})",
            serious.len(),
            breakdown(&serious)
        );
    }
    if skipped > 0 {
        let _ = write!(line, " · {skipped} skipped");
    }
    line
}

/// Whether the first line of an answer reads as an error message (`Error:
/// Only SELECT queries are allowed`, `Traceback …`, `permission denied`):
/// what [`A302`](super::rules::AUDIT) flags on a result that does not say
/// `isError: true`.
pub fn reads_as_error(first_line: &str) -> bool {
    let line = first_line
        .trim_start()
        .trim_start_matches(['[', '(', '*', '#', '!', ' '])
        .to_ascii_lowercase();
    const WORDS: [&str; 9] = [
        "error",
        "err",
        "exception",
        "traceback",
        "fatal",
        "failed",
        "failure",
        "unauthorized",
        "forbidden",
    ];
    const PHRASES: [&str; 6] = [
        "permission denied",
        "access denied",
        "not allowed",
        "could not ",
        "unable to ",
        "invalid ",
    ];
    let word_ends = |rest: &str| {
        rest.chars()
            .next()
            .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_')
    };
    WORDS
        .iter()
        .any(|w| line.strip_prefix(w).is_some_and(word_ends))
        || PHRASES.iter().any(|p| line.starts_with(p))
}

/// The first line of a tool result's text (at most 200 characters), when it
/// has text.
pub fn first_line(response: Option<&Value>) -> Option<String> {
    let content = response?.get("result")?.get("content")?.as_array()?;
    let text = content
        .iter()
        .find_map(|c| c.get("text").and_then(Value::as_str))?;
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    Some(crate::truncate(line.trim(), 200))
}

/// The audit as a findings report: a case per item (its class in the table),
/// a finding per item whose class is worth one ([`super::rules::audit_rule`])
/// with the input sent and the stderr tail, `A302` for a success whose text
/// reads as an error, the score and counts as the summary, and the audit's own
/// JSON contract beside them (`server`, `transport`, `score`, `results`).
pub fn audit_findings(report: &AuditReport) -> Report {
    let mut out = Report::new("audit", report.server.clone());
    out.facts
        .push((String::new(), report.transport.as_str().into()));
    out.case_view = CaseView::Table;
    out.score = Some(report.score);
    for r in &report.results {
        let kind = match r.kind {
            ItemKind::Tool => FindingKind::Tool,
            ItemKind::Prompt => FindingKind::Prompt,
            ItemKind::Resource => FindingKind::Resource,
        };
        let mut findings = Vec::new();
        let mut push = |f: Finding, out: &mut Report| {
            findings.push(out.findings.len());
            out.findings.push(f);
        };
        if let Some(rule) = audit_rule(r.status) {
            let mut f = Finding::new(rule, Location::item(kind, r.tool.clone()), r.detail.clone())
                .with_detail("input", shown(&r.input));
            if let Some(stderr) = &r.stderr {
                f = f.with_detail("stderr", stderr.clone());
            }
            push(f, &mut out);
        }
        let error_text = r
            .answer
            .as_deref()
            .filter(|a| r.status == Status::Healthy && reads_as_error(a));
        if let Some(answer) = error_text
            && let Some(rule) = AUDIT.iter().find(|x| x.code == "A302")
        {
            let f = Finding::new(
                rule,
                Location::item(kind, r.tool.clone()),
                "the result does not set isError, but its text reads as an error",
            )
            .with_evidence(crate::diag::terminal_safe(answer).into_owned())
            .with_detail("input", shown(&r.input));
            push(f, &mut out);
        }
        let status = match r.status {
            Status::Skipped => CaseStatus::Skipped,
            Status::Healthy if findings.is_empty() => CaseStatus::Passed,
            s if s.is_serious() => CaseStatus::Failed,
            _ => CaseStatus::Noted,
        };
        let mut detail = r.detail.clone();
        if let Some(answer) = &r.answer
            && r.status != Status::Skipped
            && !detail.contains(answer.as_str())
        {
            detail = format!("{detail}: {answer}");
        }
        let label = r.status.as_str().to_string();
        out.cases.push(Case {
            suite: String::new(),
            class: r.kind.as_str().into(),
            name: r.tool.clone(),
            status,
            label,
            detail,
            duration_ms: (r.status != Status::Skipped).then_some(r.duration_ms),
            findings,
        });
    }
    out.summary
        .push(format!("Score {}/100 · {}", report.score, counts(report)));
    out.set_extra("server", Value::String(report.server.clone()));
    out.set_extra("transport", serde_json::json!(report.transport));
    out.set_extra(
        "results",
        serde_json::to_value(&report.results).unwrap_or(Value::Null),
    );
    out
}

#[cfg(test)]
mod healthy_items_tests {
    use super::*;
    use serde_json::json;

    fn result(kind: ItemKind, item: &str, status: Status) -> AuditResult {
        AuditResult {
            status,
            ..AuditResult::skipped(kind, item, "")
        }
    }

    #[test]
    fn only_healthy_items_of_the_kind_in_listing_order() {
        let report = AuditReport::new(
            "s",
            Transport::Stdio,
            vec![
                result(ItemKind::Tool, "b", Status::Healthy),
                result(ItemKind::Tool, "a", Status::Healthy),
                result(ItemKind::Tool, "c", Status::Skipped),
                result(ItemKind::Prompt, "a", Status::Skipped),
                result(ItemKind::Resource, "file:///x", Status::Healthy),
            ],
        );
        let tools = [
            json!({"name": "a"}),
            json!({"name": "b"}),
            json!({"name": "c"}),
        ];
        assert_eq!(
            report.healthy_items(ItemKind::Tool, &tools),
            vec![json!({"name": "a"}), json!({"name": "b"})]
        );
        assert!(
            report
                .healthy_items(ItemKind::Prompt, &[json!({"name": "a"})])
                .is_empty()
        );
        let resources = [
            json!({"uri": "file:///x", "name": "x"}),
            json!({"uri": "file:///y"}),
        ];
        assert_eq!(
            report.healthy_items(ItemKind::Resource, &resources),
            vec![json!({"uri": "file:///x", "name": "x"})]
        );
    }
}

#[cfg(test)]
mod findings_tests {
    use super::*;

    #[test]
    fn error_text_reads_as_an_error() {
        for yes in [
            "Error: Only SELECT queries are allowed",
            "error",
            "[ERROR] no such table",
            "Traceback (most recent call last):",
            "Permission denied: /etc",
            "Invalid timezone: 'x'",
        ] {
            assert!(reads_as_error(yes), "{yes}");
        }
        for no in [
            "Errors found: 0",
            "Found 3 files",
            "errand booked",
            "The error rate is 2%",
            "",
        ] {
            assert!(!reads_as_error(no), "{no}");
        }
    }

    #[test]
    fn a_success_with_error_text_is_a302_and_does_not_fail() {
        let mut ok = AuditResult::skipped(ItemKind::Tool, "query", "");
        ok.status = Status::Healthy;
        ok.detail = "returned 1 content item".into();
        ok.answer = Some("Error: Only SELECT queries are allowed".into());
        let mut crash = AuditResult::skipped(ItemKind::Tool, "boom", "");
        crash.status = Status::Crash;
        crash.detail = "the server exited".into();
        let report = AuditReport::new("s", Transport::Stdio, vec![ok, crash]);
        let r = audit_findings(&report);
        let codes: Vec<&str> = r.findings.iter().map(Finding::code).collect();
        assert_eq!(codes, ["A302", "A101"]);
        assert_eq!(r.cases[0].status, CaseStatus::Noted);
        assert_eq!(r.cases[1].status, CaseStatus::Failed);
        assert!(!r.passed());
        assert_eq!(r.score, Some(50));
        assert!(
            r.extra("results")
                .is_some_and(|v| v.as_array().map(Vec::len) == Some(2))
        );
        assert!(
            r.cases[0]
                .detail
                .ends_with(": Error: Only SELECT queries are allowed")
        );
    }
}
