//! The fuzz report: per tool, how many inputs were sent, how many were
//! handled, and every failure with its input; and its renderers.
//!
//! ```json
//! {"version": 1, "seed": 42, "server": "everything", "transport": "stdio",
//!  "tools": [{"tool": "add", "runs": 50, "passed": 49,
//!             "failures": [{"label": "`a` = 1e+308 (huge)", "category": "boundary",
//!                           "status": "crash", "input": {"a": 1e308, "b": 1},
//!                           "detail": "the server exited (exit status 1) before answering",
//!                           "shrunk_from": {"a": 1e308, "b": 1, "c": "example"}}]}],
//!  "summary": {"tools": 1, "tools_skipped": 0, "runs": 50, "passed": 49, "failures": 1,
//!              "crashes": 1, "timeouts": 0, "protocol_errors": 0, "non_json_outputs": 0,
//!              "invalid_results": 0, "schema_mismatches": 0, "accepted_invalid": 0}}
//! ```
//!
//! A failure's `input` is left out when the case sent no `arguments` key
//! (`null` means `"arguments": null`); `shrunk_from` is the case's original
//! input when the failure was shrunk; `stderr` appears only when the caller
//! put it in. The report holds no durations and no times: the same server
//! answering the same way to the same seed gives the same bytes, in every
//! rendering.

use std::fmt::Write as _;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::Arguments;
use super::classify::{Classification, Level, Status};
use super::fuzz::{Category, FuzzCase};
use super::render::{
    self, ItemKind, SarifFinding, Transport, breakdown, icon, shown, style, words,
};
use crate::diag::{Paint, Style};
use crate::report::markdown::escape;
use crate::report::plural;

/// The version of the fuzz report's JSON shape.
pub const FUZZ_REPORT_VERSION: u32 = 1;

/// One input that did not pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FuzzFailure {
    pub label: String,
    pub category: Category,
    pub status: Status,
    /// The input (after shrinking, when shrunk).
    #[serde(default, skip_serializing_if = "Arguments::is_omitted")]
    pub input: Arguments,
    pub detail: String,
    /// The case's input before shrinking, when shrinking made it smaller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrunk_from: Option<Arguments>,
    /// The server's stderr tail, when the caller chose to keep it (it may
    /// differ from run to run: times, process ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
}

/// One tool's fuzz run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FuzzToolReport {
    pub tool: String,
    /// Inputs sent.
    pub runs: usize,
    /// Inputs whose status was healthy or a tool error.
    pub passed: usize,
    /// Why the tool was not fuzzed (a tool that may write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The other inputs, in the order they were sent.
    pub failures: Vec<FuzzFailure>,
}

impl FuzzToolReport {
    pub fn new(tool: &str) -> Self {
        FuzzToolReport {
            tool: tool.to_string(),
            runs: 0,
            passed: 0,
            skipped: None,
            failures: Vec::new(),
        }
    }

    /// A tool not fuzzed, and why.
    pub fn skipped(tool: &str, reason: &str) -> Self {
        FuzzToolReport {
            skipped: Some(reason.to_string()),
            ..FuzzToolReport::new(tool)
        }
    }

    /// Count one case. `outcome` is the classification of the input kept:
    /// the case's own, or, when `shrunk` is given, the shrunk input's (whose
    /// status is the same). A `shrunk` equal to the case's input is no
    /// shrink. `stderr`: `None` keeps the report the same from run to run.
    pub fn record(
        &mut self,
        case: &FuzzCase,
        outcome: &Classification,
        shrunk: Option<Arguments>,
        stderr: Option<String>,
    ) {
        self.runs += 1;
        if outcome.status.fuzz_passed() {
            self.passed += 1;
            return;
        }
        let (input, shrunk_from) = match shrunk {
            Some(s) if s != case.arguments => (s, Some(case.arguments.clone())),
            _ => (case.arguments.clone(), None),
        };
        self.failures.push(FuzzFailure {
            label: case.label.clone(),
            category: case.category,
            status: outcome.status,
            input,
            detail: outcome.detail.clone(),
            shrunk_from,
            stderr: stderr.filter(|s| !s.trim().is_empty()),
        });
    }
}

/// Counts over every tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuzzSummary {
    /// Tools fuzzed.
    pub tools: usize,
    pub tools_skipped: usize,
    pub runs: usize,
    pub passed: usize,
    pub failures: usize,
    pub crashes: usize,
    pub timeouts: usize,
    /// Unbounded streams of notifications or output while a call was open.
    #[serde(default)]
    pub floods: usize,
    pub protocol_errors: usize,
    pub non_json_outputs: usize,
    pub invalid_results: usize,
    pub schema_mismatches: usize,
    /// Warnings, not failures of the run.
    pub accepted_invalid: usize,
}

/// A fuzz run over a server's tools.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FuzzReport {
    /// [`FUZZ_REPORT_VERSION`].
    pub version: u32,
    pub seed: u64,
    pub server: String,
    pub transport: Transport,
    /// In the order the tools were listed.
    pub tools: Vec<FuzzToolReport>,
    pub summary: FuzzSummary,
}

impl FuzzReport {
    /// The report, with its summary counted from `tools`.
    pub fn new(seed: u64, server: &str, transport: Transport, tools: Vec<FuzzToolReport>) -> Self {
        let mut s = FuzzSummary::default();
        for t in &tools {
            if t.skipped.is_some() {
                s.tools_skipped += 1;
                continue;
            }
            s.tools += 1;
            s.runs += t.runs;
            s.passed += t.passed;
            s.failures += t.failures.len();
            for f in &t.failures {
                match f.status {
                    Status::Crash => s.crashes += 1,
                    Status::Timeout => s.timeouts += 1,
                    Status::Flood => s.floods += 1,
                    Status::ProtocolError => s.protocol_errors += 1,
                    Status::NonJsonOutput => s.non_json_outputs += 1,
                    Status::InvalidResult => s.invalid_results += 1,
                    Status::SchemaMismatch => s.schema_mismatches += 1,
                    Status::AcceptedInvalid => s.accepted_invalid += 1,
                    Status::Healthy | Status::ToolError | Status::Skipped => {}
                }
            }
        }
        FuzzReport {
            version: FUZZ_REPORT_VERSION,
            seed,
            server: server.to_string(),
            transport,
            tools,
            summary: s,
        }
    }
}

/// Whether the fuzz run passes: no failure has a serious status
/// (`accepted_invalid` is a warning and does not fail it).
pub fn fuzz_passed(report: &FuzzReport) -> bool {
    !report
        .tools
        .iter()
        .flat_map(|t| &t.failures)
        .any(|f| f.status.is_serious())
}

/// The report as pretty JSON (the contract in the module docs), with a final
/// newline.
pub fn fuzz_json(report: &FuzzReport) -> String {
    render::json_text(report)
}

fn input_line(f: &FuzzFailure) -> String {
    let input = match &f.input {
        Arguments::Omitted => "(no arguments key)".to_string(),
        a => shown(&a.to_json()),
    };
    match &f.shrunk_from {
        Some(from) => format!("{input}   (shrunk from {})", shown(&from.to_json())),
        None => input,
    }
}

/// The terminal rendering: a line per tool (inputs handled out of sent,
/// the failures by status), under it each failure (status, label, detail,
/// input), then the totals.
pub fn fuzz_text(report: &FuzzReport, paint: Paint) -> String {
    let p = paint;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} ({}) · seed {}\n",
        p.paint(Style::Bold, "mcpcheck fuzz:"),
        p.text(&report.server),
        report.transport.as_str(),
        report.seed
    );
    let width = report
        .tools
        .iter()
        .map(|t| t.tool.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 40);
    for t in &report.tools {
        let name = crate::truncate(&t.tool, width);
        let pad = " ".repeat(width.saturating_sub(name.chars().count()));
        if let Some(why) = &t.skipped {
            let _ = writeln!(
                out,
                "{} {}{pad}  skipped: {}",
                p.paint(Style::Skip, "-"),
                p.text(&name),
                p.text(why)
            );
            continue;
        }
        let serious = t.failures.iter().any(|f| f.status.is_serious());
        let mark = if serious {
            p.paint(Style::Error, "✗")
        } else if t.failures.is_empty() {
            p.paint(Style::Pass, "✓")
        } else {
            p.paint(Style::Warning, "!")
        };
        let statuses: Vec<Status> = t.failures.iter().map(|f| f.status).collect();
        let mut line = format!(
            "{mark} {}{pad}  {}/{} inputs handled",
            p.text(&name),
            t.passed,
            t.runs
        );
        if !statuses.is_empty() {
            let _ = write!(line, ": {}", breakdown(&statuses));
        }
        let _ = writeln!(out, "{line}");
        for f in &t.failures {
            let _ = writeln!(
                out,
                "    {} {}",
                p.paint(style(f.status), &format!("{:<16}", f.status.as_str())),
                p.text(&f.label)
            );
            let _ = writeln!(out, "    {:<16} {}", "", p.text(&one_line(&f.detail)));
            let _ = writeln!(out, "    {:<16} input: {}", "", p.text(&input_line(f)));
            if let Some(stderr) = &f.stderr {
                for l in stderr.lines() {
                    let _ = writeln!(
                        out,
                        "    {:<16} {} {}",
                        "",
                        p.paint(Style::Dim, "|"),
                        p.text(l)
                    );
                }
            }
        }
    }
    let s = &report.summary;
    let verdict = if fuzz_passed(report) {
        Style::Pass
    } else {
        Style::Error
    };
    let _ = write!(
        out,
        "\n{}: {}, {} passed",
        p.paint(verdict, &plural(s.tools, "tool", "tools")),
        plural(s.runs, "input", "inputs"),
        s.passed
    );
    let all: Vec<Status> = report
        .tools
        .iter()
        .flat_map(|t| t.failures.iter().map(|f| f.status))
        .collect();
    if !all.is_empty() {
        let _ = write!(out, " · {}", breakdown(&all));
    }
    if s.tools_skipped > 0 {
        let _ = write!(
            out,
            " · {} skipped",
            plural(s.tools_skipped, "tool", "tools")
        );
    }
    let _ = writeln!(
        out,
        "\nThe same seed ({}) sends the same inputs in the same order.",
        report.seed
    );
    out
}

fn one_line(s: &str) -> String {
    s.replace('\r', "\\r")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

/// Markdown for a job summary: a heading with the verdict, one row per tool,
/// each failure folded into a `<details>` with its input in a code block.
pub fn fuzz_markdown(report: &FuzzReport) -> String {
    let s = &report.summary;
    let mark = if fuzz_passed(report) { "✅" } else { "❌" };
    let mut out = format!(
        "## {mark} mcpcheck fuzz: {} of {} inputs handled\n\nServer {} over {}, seed {}.\n\n",
        s.passed,
        s.runs,
        escape(&report.server),
        report.transport.as_str(),
        report.seed
    );
    let _ = writeln!(
        out,
        "| | Tool | Inputs | Handled | Failures |\n|:-:|:--|--:|--:|:--|"
    );
    for t in &report.tools {
        let statuses: Vec<Status> = t.failures.iter().map(|f| f.status).collect();
        let worst = statuses.iter().max_by_key(|s| s.level()).copied();
        let (mark, failures) = match (&t.skipped, worst) {
            (Some(why), _) => ("⏭️", format!("skipped: {}", escape(why))),
            (None, Some(w)) => (icon(w), escape(&breakdown(&statuses))),
            (None, None) => ("✅", String::new()),
        };
        let _ = writeln!(
            out,
            "| {mark} | {} | {} | {} | {failures} |",
            escape(&t.tool),
            t.runs,
            t.passed
        );
    }
    let failures: Vec<(&FuzzToolReport, &FuzzFailure)> = report
        .tools
        .iter()
        .flat_map(|t| t.failures.iter().map(move |f| (t, f)))
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "\n### Failures\n");
    }
    for (t, f) in failures {
        let _ = writeln!(
            out,
            "<details><summary>{} <b>{}</b> · {} · {}</summary>\n\n{}\n\nInput:\n\n{}",
            icon(f.status),
            words(f.status),
            crate::diag::html_escape(&t.tool),
            crate::diag::html_escape(&crate::truncate(&f.label, 200)),
            escape(&f.detail),
            render::fenced("json", &input_line(f))
        );
        if let Some(stderr) = &f.stderr {
            let _ = writeln!(out, "stderr:\n\n{}", render::fenced("text", stderr));
        }
        let _ = writeln!(out, "</details>\n");
    }
    let _ = writeln!(
        out,
        "_The same seed ({}) sends the same inputs in the same order._",
        report.seed
    );
    out
}

/// SARIF 2.1.0: one result per failure of a serious or warning status, at
/// the tool (a logical location) and, with `artifact`, at that file.
pub fn fuzz_sarif(report: &FuzzReport, artifact: Option<&str>) -> String {
    let findings: Vec<SarifFinding<'_>> = report
        .tools
        .iter()
        .flat_map(|t| {
            t.failures.iter().map(move |f| SarifFinding {
                kind: ItemKind::Tool,
                item: &t.tool,
                status: f.status,
                text: format!(
                    "tool {}: {}: {} — {}\ninput: {}",
                    t.tool,
                    words(f.status),
                    f.label,
                    f.detail,
                    input_line(f)
                ),
                key: &f.label,
                properties: json!({
                    "tool": t.tool, "label": f.label, "category": f.category,
                    "status": f.status, "input": f.input.to_json(), "seed": report.seed,
                }),
            })
        })
        .collect();
    render::sarif(&report.server, &findings, artifact)
}

/// JUnit XML without times: a test suite per tool, with one passing case
/// for the inputs it handled and one case per failure (a serious status is
/// a failure; `accepted_invalid` passes with a warning as output); a
/// skipped tool is one skipped case.
pub fn fuzz_junit(report: &FuzzReport) -> String {
    let mut out = Report::new("mcpcheck fuzz");
    for t in &report.tools {
        let mut suite = TestSuite::new(t.tool.as_str());
        suite.add_property(Property::new("seed", report.seed.to_string()));
        if let Some(why) = &t.skipped {
            let mut s = TestCaseStatus::skipped();
            s.set_message(why.as_str());
            suite.add_test_case(TestCase::new(format!("{}: fuzz", t.tool), s));
            out.add_test_suite(suite);
            continue;
        }
        let mut handled = TestCase::new(
            format!("{}: {} of {} inputs handled", t.tool, t.passed, t.runs),
            TestCaseStatus::success(),
        );
        handled.set_classname(t.tool.as_str());
        suite.add_test_case(handled);
        for f in &t.failures {
            let status = if f.status.level() == Level::Error {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(format!("[{}] {}", f.status.as_str(), one_line(&f.detail)));
                s.set_type(f.status.as_str());
                s.set_description(format!("{}\ninput: {}", f.detail, input_line(f)));
                s
            } else {
                TestCaseStatus::success()
            };
            let mut case = TestCase::new(format!("{}: {}", t.tool, f.label), status);
            case.set_classname(t.tool.as_str());
            case.add_property(Property::new("status", f.status.as_str()));
            case.add_property(Property::new("category", f.category.as_str()));
            if f.status.level() != Level::Error {
                case.set_system_out(format!("warning: {}: {}", words(f.status), f.detail));
            }
            suite.add_test_case(case);
        }
        out.add_test_suite(suite);
    }
    render::junit_text(&out)
}
