//! The audit report: one result per tool, prompt and resource, a score, and
//! its renderers (JSON, text, Markdown, SARIF, JUnit).
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
//! are not healthy, when there were any.

use std::fmt::Write as _;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Arguments;
use super::classify::{Classification, Level, Observed, Status};
use super::render::{
    self, ItemKind, SarifFinding, Transport, breakdown, icon, shown, style, words,
};
use crate::diag::{Paint, Style};
use crate::report::markdown::escape;

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

/// The report as pretty JSON (the contract in the module docs), with a final
/// newline.
pub fn audit_json(report: &AuditReport) -> String {
    render::json_text(report)
}

fn item(r: &AuditResult) -> String {
    format!("{} {}", r.kind.as_str(), r.tool)
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

/// The terminal rendering: a table (status, item, time, detail), the score
/// and counts, and a findings section with, for every result that is
/// neither healthy nor skipped, its detail, the input as JSON and the stderr
/// tail.
pub fn audit_text(report: &AuditReport, paint: Paint) -> String {
    let p = paint;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} ({})\n",
        p.paint(Style::Bold, "mcpcheck audit:"),
        p.text(&report.server),
        report.transport.as_str()
    );
    let items: Vec<String> = report.results.iter().map(item).collect();
    let width = items
        .iter()
        .map(|i| i.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    let _ = writeln!(
        out,
        "{}",
        p.paint(
            Style::Dim,
            &format!("{:<16} {:<width$} {:>8}  DETAIL", "STATUS", "ITEM", "TIME")
        )
    );
    for (r, name) in report.results.iter().zip(&items) {
        let name = if name.chars().count() > width {
            crate::truncate(name, width - 1)
        } else {
            name.clone()
        };
        let time = if r.status == Status::Skipped {
            "-".to_string()
        } else {
            format!("{} ms", r.duration_ms)
        };
        let _ = writeln!(
            out,
            "{} {}{} {:>8}  {}",
            p.paint(style(r.status), &format!("{:<16}", r.status.as_str())),
            p.text(&name),
            " ".repeat(width.saturating_sub(name.chars().count())),
            time,
            p.text(&one_line(&crate::truncate(&r.detail, 100)))
        );
    }
    let score_style = if audit_passed(report) {
        Style::Pass
    } else {
        Style::Error
    };
    let _ = writeln!(
        out,
        "\n{} · {}",
        p.paint(score_style, &format!("Score {}/100", report.score)),
        counts(report)
    );
    let findings: Vec<&AuditResult> = report
        .results
        .iter()
        .filter(|r| !matches!(r.status, Status::Healthy | Status::Skipped))
        .collect();
    if !findings.is_empty() {
        let _ = writeln!(out, "\n{}", p.paint(Style::Bold, "Findings"));
    }
    for r in findings {
        let _ = writeln!(
            out,
            "\n{} · {} ({} ms)",
            p.paint(style(r.status), &words(r.status)),
            p.text(&item(r)),
            r.duration_ms
        );
        let _ = writeln!(out, "    {}", p.text(&one_line(&r.detail)));
        let _ = writeln!(out, "    input:  {}", p.text(&shown(&r.input)));
        if let Some(stderr) = &r.stderr {
            let _ = writeln!(out, "    stderr:");
            for line in stderr.lines() {
                let _ = writeln!(out, "      {} {}", p.paint(Style::Dim, "|"), p.text(line));
            }
        }
    }
    out
}

fn one_line(s: &str) -> String {
    s.replace('\r', "\\r")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

/// Markdown for a job summary: a heading with the score, one table row per
/// item, each finding folded into a `<details>` with the input and the
/// stderr tail in code blocks. Everything from the server is escaped.
pub fn audit_markdown(report: &AuditReport) -> String {
    let mut out = String::new();
    let mark = if audit_passed(report) { "✅" } else { "❌" };
    let _ = writeln!(
        out,
        "## {mark} mcpcheck audit: score {}/100\n\nServer {} over {}: {}.\n",
        report.score,
        escape(&report.server),
        report.transport.as_str(),
        counts(report)
    );
    let _ = writeln!(
        out,
        "| | Status | Item | Time | Detail |\n|:-:|:--|:--|--:|:--|"
    );
    for r in &report.results {
        let time = if r.status == Status::Skipped {
            String::new()
        } else {
            format!("{} ms", r.duration_ms)
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {time} | {} |",
            icon(r.status),
            r.status.as_str().replace('_', "\\_"),
            escape(&item(r)),
            escape(&crate::truncate(&r.detail, 200))
        );
    }
    let findings: Vec<&AuditResult> = report
        .results
        .iter()
        .filter(|r| !matches!(r.status, Status::Healthy | Status::Skipped))
        .collect();
    if !findings.is_empty() {
        let _ = writeln!(out, "\n### Findings\n");
    }
    for r in findings {
        let _ = writeln!(
            out,
            "<details><summary>{} <b>{}</b> · {}</summary>\n\n{}\n\nInput:\n\n{}",
            icon(r.status),
            words(r.status),
            crate::diag::html_escape(&item(r)),
            escape(&r.detail),
            render::fenced("json", &shown(&r.input))
        );
        if let Some(stderr) = &r.stderr {
            let _ = writeln!(out, "stderr:\n\n{}", render::fenced("text", stderr));
        }
        let _ = writeln!(out, "</details>\n");
    }
    out
}

/// SARIF 2.1.0: one result per result of a serious or warning status (rules
/// `crash`, `timeout`, `protocol-error`, `non-json-output`, `invalid-result`,
/// `schema-mismatch`, `accepted-invalid`), located at the item (a logical
/// location) and, with `artifact`, at that file.
pub fn audit_sarif(report: &AuditReport, artifact: Option<&str>) -> String {
    let findings: Vec<SarifFinding<'_>> = report
        .results
        .iter()
        .map(|r| SarifFinding {
            kind: r.kind,
            item: &r.tool,
            status: r.status,
            text: format!("{} {}: {}: {}\ninput: {}", r.kind.as_str(), r.tool, words(r.status), r.detail, shown(&r.input)),
            key: "",
            properties: json!({"kind": r.kind, "item": r.tool, "status": r.status, "input": r.input, "server": report.server}),
        })
        .collect();
    render::sarif(&report.server, &findings, artifact)
}

/// JUnit XML: one test case per item (classname its kind); a serious status
/// is a failure, a skipped item is skipped, a warning or a tool error passes
/// with its detail as output.
pub fn audit_junit(report: &AuditReport) -> String {
    let mut suite = TestSuite::new("mcpcheck audit");
    suite.add_property(Property::new("server", report.server.as_str()));
    suite.add_property(Property::new("transport", report.transport.as_str()));
    suite.add_property(Property::new("score", report.score.to_string()));
    for r in &report.results {
        let status = match r.status.level() {
            _ if r.status == Status::Skipped => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(r.detail.as_str());
                s
            }
            Level::Error => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(one_line(&r.detail));
                s.set_type(r.status.as_str());
                s.set_description(format!("{}\ninput: {}", r.detail, shown(&r.input)));
                s
            }
            _ => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(item(r), status);
        case.set_classname(r.kind.as_str());
        if r.status != Status::Skipped {
            case.set_time(Duration::from_millis(r.duration_ms));
        }
        case.add_property(Property::new("status", r.status.as_str()));
        if matches!(r.status.level(), Level::Note | Level::Warning) && r.status != Status::Skipped {
            case.set_system_out(format!("{}: {}", r.status.level().as_str(), r.detail));
        }
        if let Some(stderr) = &r.stderr {
            case.set_system_err(stderr.as_str());
        }
        suite.add_test_case(case);
    }
    let mut out = Report::new("mcpcheck");
    out.add_test_suite(suite);
    render::junit_text(&out)
}

#[cfg(test)]
mod healthy_items_tests {
    use super::*;

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
