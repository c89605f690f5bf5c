//! The one set of renderers of a findings [`Report`]: each is a pure function
//! of the report, whatever analysis made it. The CLI prints what they return
//! (`--format`) or writes it to files (`--report FORMAT=PATH`); the npm
//! package and the playground parse the JSON.
//!
//! - [`text`]: for terminals and logs, painted plain or ANSI;
//! - [`json`]: the versioned document, with the command's own contract
//!   fields merged in;
//! - [`sarif`]: SARIF 2.1.0 for code-scanning views;
//! - [`junit`]: JUnit XML for CI test views, a test case per item or rule;
//! - [`markdown`]: for job summaries and pull requests;
//! - [`github`]: GitHub Actions workflow commands (annotations);
//! - [`tap`]: the Test Anything Protocol, version 14.
//!
//! A run of tests (a [`Results`](crate::results::Results) document) has its
//! renderers in [`crate::report`]; [`Format`] names the formats of both.

pub mod github;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod rules;
pub mod sarif;
pub mod tap;
pub mod text;

use super::{Finding, Level, Report, Severity};
use crate::diag::Paint;

/// A report format, as `--format` and `--report FORMAT=PATH` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// For people: terminals and logs.
    Text,
    /// The versioned JSON document.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// JUnit XML.
    Junit,
    /// Markdown.
    Markdown,
    /// GitHub Actions annotations.
    Github,
    /// TAP version 14.
    Tap,
    /// A self-contained HTML report (a folder, for runs of tests).
    Html,
    /// A shields.io endpoint badge (runs of tests).
    Badge,
}

impl Format {
    /// The formats every findings report renders to.
    pub const FINDINGS: [Format; 7] = [
        Format::Text,
        Format::Json,
        Format::Sarif,
        Format::Junit,
        Format::Markdown,
        Format::Github,
        Format::Tap,
    ];

    /// `text`, `json`, `sarif`, `junit`, `markdown`, `github`, `tap`,
    /// `html` or `badge`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Junit => "junit",
            Format::Markdown => "markdown",
            Format::Github => "github",
            Format::Tap => "tap",
            Format::Html => "html",
            Format::Badge => "badge",
        }
    }

    /// The format named `s` (`md` for Markdown, `xml` for JUnit too).
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "text" | "txt" => Format::Text,
            "json" => Format::Json,
            "sarif" => Format::Sarif,
            "junit" | "xml" => Format::Junit,
            "markdown" | "md" => Format::Markdown,
            "github" => Format::Github,
            "tap" => Format::Tap,
            "html" => Format::Html,
            "badge" => Format::Badge,
            _ => return None,
        })
    }
}

/// The report in `format`; `paint` decorates text (the other formats ignore
/// it). `None` for a format findings have no renderer for (`html`, `badge`).
pub fn render(report: &Report, format: Format, paint: Paint) -> Option<String> {
    Some(match format {
        Format::Text => text::render(report, paint),
        Format::Json => json::render(report),
        Format::Sarif => sarif::render(report),
        Format::Junit => junit::render(report),
        Format::Markdown => markdown::render(report),
        Format::Github => github::render(report),
        Format::Tap => tap::render(report),
        Format::Html | Format::Badge => return None,
    })
}

/// Where a finding is, in one short phrase: its pointer, else its exchange,
/// else the empty string.
pub(crate) fn place(f: &Finding) -> String {
    if let Some(p) = f.location.pointer.as_deref().filter(|p| !p.is_empty()) {
        return p.to_string();
    }
    match f.location.exchange {
        Some(i) => format!("exchange {i}"),
        None => String::new(),
    }
}

/// Whether the report's findings are all of the families that rank by
/// severity (scan, the HTTP probes), whose reports word them `high` … `info`.
fn worded_by_severity(report: &Report) -> bool {
    !report.findings.is_empty()
        && report
            .findings
            .iter()
            .all(|f| matches!(f.family(), super::Family::Scan | super::Family::Http))
}

/// The totals line's words: `1 error, 2 warnings, 0 info`, or, for the
/// families that rank by severity, `1 high, 0 medium, 2 low, 0 info`.
pub(crate) fn totals(report: &Report) -> String {
    if worded_by_severity(report) {
        let mut count = [0usize; 4];
        for f in &report.findings {
            count[f.severity() as usize] += 1;
        }
        return format!(
            "{} high, {} medium, {} low, {} info",
            count[Severity::High as usize],
            count[Severity::Medium as usize],
            count[Severity::Low as usize],
            count[Severity::Info as usize]
        );
    }
    format!(
        "{}, {}, {} info",
        crate::report::plural(report.count(Level::Error), "error", "errors"),
        crate::report::plural(report.count(Level::Warning), "warning", "warnings"),
        report.count(Level::Note)
    )
}

/// What the suppressions and the baseline left out, as a phrase (`2
/// suppressed, 3 known from the baseline`), or empty.
pub(crate) fn left_out(report: &Report) -> String {
    let mut parts = Vec::new();
    if !report.suppressed.is_empty() {
        parts.push(format!("{} suppressed", report.suppressed.len()));
    }
    if report.baselined > 0 {
        parts.push(format!("{} known from the baseline", report.baselined));
    }
    parts.join(", ")
}

/// The word in a case's status column: its label, else its status.
pub(crate) fn case_word(c: &super::Case) -> &str {
    if c.label.is_empty() {
        c.status.as_str()
    } else {
        &c.label
    }
}

/// The same text on one line: newlines, carriage returns and tabs shown
/// escaped.
pub(crate) fn one_line(s: &str) -> String {
    s.replace('\r', "\\r")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}
