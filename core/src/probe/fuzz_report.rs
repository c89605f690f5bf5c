//! The fuzz report: per tool, how many inputs were sent, how many were
//! handled, and every failure with its input; and the findings report the one
//! set of renderers draws ([`fuzz_findings`]).
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

use serde::{Deserialize, Serialize};

use super::Arguments;
use super::classify::{Classification, Status};
use super::fuzz::{Category, FuzzCase};
use super::render::{Transport, breakdown, shown};
use super::rules::fuzz_rule;
use crate::findings::{
    Case, CaseStatus, CaseView, Finding, ItemKind as FindingKind, Location, Report,
};
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

/// The fuzz run as a findings report: a case per tool (`20/20 inputs
/// handled`, and the failures by class), a finding per input that did not
/// pass ([`super::rules::fuzz_rule`]) with its label, input and stderr, the
/// totals and the seed as the summary, and the run's own JSON contract
/// beside them (`seed`, `server`, `transport`, `tools`, `summary`).
pub fn fuzz_findings(report: &FuzzReport) -> Report {
    let mut out = Report::new("fuzz", report.server.clone());
    out.facts
        .push((String::new(), report.transport.as_str().into()));
    out.facts.push(("seed".into(), report.seed.to_string()));
    out.case_view = CaseView::Table;
    for t in &report.tools {
        let mut findings = Vec::new();
        for f in &t.failures {
            let Some(rule) = fuzz_rule(f.status) else {
                continue;
            };
            let mut finding = Finding::new(
                rule,
                Location::item(FindingKind::Tool, t.tool.clone()),
                format!("{}: {}", f.label, f.detail),
            )
            .with_detail("input", input_line(f));
            if let Some(stderr) = &f.stderr {
                finding = finding.with_detail("stderr", stderr.clone());
            }
            findings.push(out.findings.len());
            out.findings.push(finding);
        }
        let worst = t.failures.iter().map(|f| f.status).max();
        let label = match (&t.skipped, worst) {
            (Some(_), _) => "skipped".to_string(),
            (None, Some(worst)) => worst.as_str().to_string(),
            (None, None) => "passed".to_string(),
        };
        let (status, detail) = match &t.skipped {
            Some(why) => (CaseStatus::Skipped, format!("skipped: {why}")),
            None => {
                let statuses: Vec<Status> = t.failures.iter().map(|f| f.status).collect();
                let mut detail = format!("{}/{} inputs handled", t.passed, t.runs);
                if !statuses.is_empty() {
                    let _ = write!(detail, ": {}", breakdown(&statuses));
                }
                let status = if statuses.iter().any(|s| s.is_serious()) {
                    CaseStatus::Failed
                } else if statuses.is_empty() {
                    CaseStatus::Passed
                } else {
                    CaseStatus::Noted
                };
                (status, detail)
            }
        };
        out.cases.push(Case {
            suite: String::new(),
            class: "tool".into(),
            name: t.tool.clone(),
            status,
            label,
            detail,
            duration_ms: None,
            findings,
        });
    }
    let s = &report.summary;
    let mut line = format!(
        "{}: {}, {} passed",
        plural(s.tools, "tool", "tools"),
        plural(s.runs, "input", "inputs"),
        s.passed
    );
    let all: Vec<Status> = report
        .tools
        .iter()
        .flat_map(|t| t.failures.iter().map(|f| f.status))
        .collect();
    if !all.is_empty() {
        let _ = write!(line, " · {}", breakdown(&all));
    }
    if s.tools_skipped > 0 {
        let _ = write!(
            line,
            " · {} skipped",
            plural(s.tools_skipped, "tool", "tools")
        );
    }
    out.summary.push(line);
    out.summary.push(format!(
        "The same seed ({}) sends the same inputs in the same order.",
        report.seed
    ));
    let value = |v: serde_json::Result<serde_json::Value>| v.unwrap_or(serde_json::Value::Null);
    out.set_extra("seed", serde_json::json!(report.seed));
    out.set_extra("server", serde_json::json!(report.server));
    out.set_extra("transport", serde_json::json!(report.transport));
    out.set_extra("tools", value(serde_json::to_value(&report.tools)));
    out.set_extra("summary", value(serde_json::to_value(&report.summary)));
    out
}
