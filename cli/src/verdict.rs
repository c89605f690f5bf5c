//! The end of every analysis (lint, scan, probe, audit, fuzz, conformance,
//! invariants, lock --check, doctor): one output contract and one policy.
//!
//! - `--format FORMAT` for stdout and a repeatable `--report FORMAT=PATH`
//!   for files, in every format of [`Format::FINDINGS`]; the JSON, Markdown
//!   and other renderers are core's (`mcpcheck_core::findings::render`).
//! - `--select` / `--ignore` (and `select`/`ignore` of `mcpcheck.toml`) pick
//!   the rules that count.
//! - The suppressions of `mcpcheck.toml` silence findings one by one; an
//!   expired one fails the run, an unused one is named.
//! - `--baseline FILE` reports and fails only on findings new since FILE;
//!   `--write-baseline FILE` writes one (after comparing, so both may name
//!   the same file).
//!
//! The exit status is the report's verdict: 0 passed, 1 not; a report file
//! that cannot be written is named on stderr and does not change it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use mcpcheck_core::findings::render::{self, Format};
use mcpcheck_core::findings::{Family, Report, Selection, baseline};
use mcpcheck_core::redact::Redactor;

use crate::error::{Error, Result, ValueError, verdict};
use crate::output::{err, out, paint_for_stdout};

/// A findings format, as `--format` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FindingsFormat {
    /// For people: terminals and logs.
    Text,
    /// The versioned JSON document.
    Json,
    /// SARIF 2.1.0 for code-scanning views.
    Sarif,
    /// JUnit XML for CI test views.
    Junit,
    /// Markdown for job summaries and pull requests.
    Markdown,
    /// GitHub Actions annotations.
    Github,
    /// TAP version 14.
    Tap,
}

impl FindingsFormat {
    /// The core's format.
    pub fn format(self) -> Format {
        match self {
            Self::Text => Format::Text,
            Self::Json => Format::Json,
            Self::Sarif => Format::Sarif,
            Self::Junit => Format::Junit,
            Self::Markdown => Format::Markdown,
            Self::Github => Format::Github,
            Self::Tap => Format::Tap,
        }
    }
}

/// `FORMAT=PATH` of `--report`.
pub fn report_target(s: &str) -> std::result::Result<(Format, PathBuf), ValueError> {
    let (format, path) = s.split_once('=').ok_or_else(|| ValueError::ReportTarget {
        given: s.to_string(),
        example: "sarif=mcpcheck.sarif",
    })?;
    let format = Format::parse(format)
        .filter(|f| Format::FINDINGS.contains(f) || *f == Format::Html)
        .ok_or_else(|| {
            let names: Vec<&str> = Format::FINDINGS.iter().map(|f| f.as_str()).collect();
            ValueError::NotOneOf {
                given: format.to_string(),
                what: "format",
                known: format!("{}, html (PATH a folder)", names.join(", ")),
            }
        })?;
    if path.is_empty() {
        return Err(ValueError::EmptyPath);
    }
    Ok((format, PathBuf::from(path)))
}

/// The flags every analysis shares: which rules count, report files,
/// baselines.
#[derive(Debug, Clone, Default, Args)]
pub struct FindingsArgs {
    /// Write the report in FORMAT to PATH, besides stdout (repeatable):
    /// text, json, sarif, junit, markdown, github, tap, or html (PATH a
    /// folder).
    #[arg(long = "report", value_name = "FORMAT=PATH", value_parser = report_target)]
    pub reports: Vec<(Format, PathBuf)>,

    /// Write the HTML report into the folder DIR: every finding grouped by
    /// item with its rule's explanation and fix, filters and search. It
    /// opens from file:// and makes no request; `mcpcheck show-report DIR`
    /// serves it. The same as `--report html=DIR`.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,

    /// Only rules matching these count: codes (E103), code prefixes (S5) or
    /// families (lint); comma-separated or repeated. Adds to the config
    /// file's `select`.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub select: Vec<String>,

    /// Rules that never count, as --select names them; adds to the config
    /// file's `ignore`.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub ignore: Vec<String>,

    /// Report and fail only on findings that are not in this baseline
    /// (written earlier with --write-baseline); findings are keyed by rule,
    /// server, item and place, not by message.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Write this run's findings as a baseline to FILE (after comparing
    /// with --baseline, so both may name the same file).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
}

impl FindingsArgs {
    /// The selection: the config file's, then the command line's.
    ///
    /// # Errors
    ///
    /// A usage error for an entry that names no rule.
    pub fn selection(&self) -> Result<Selection> {
        let cli = Selection {
            select: self.select.clone(),
            ignore: self.ignore.clone(),
        };
        cli.validate().map_err(|e| Error::Usage(e.to_string()))?;
        Ok(match crate::config::loaded() {
            Some(c) => c.config.selection.and(&cli),
            None => cli,
        })
    }
}

/// Today, `YYYY-MM-DD` (what suppressions' `until` is compared with).
pub fn today() -> String {
    chrono::Local::now().format("%Y-%m-%d").to_string()
}

/// Applies the policy to `report` (selection, suppressions, baseline), writes
/// it to stdout in `format` and to every `--report` file, and returns its
/// verdict. `judged` are the families the run judged, so a suppression of
/// another family is not called unused.
///
/// # Errors
///
/// A usage error for a `--select`/`--ignore` entry that names no rule.
pub fn finish(
    report: Report,
    format: FindingsFormat,
    args: &FindingsArgs,
    judged: &[Family],
) -> Result<ExitCode> {
    finish_with(report, format, args, judged, None)
}

/// [`finish`], with `redactor` hiding secrets in every rendering (what
/// `scan --config` expanded from `${VAR}`s).
///
/// # Errors
///
/// As [`finish`].
pub fn finish_redacted(
    report: Report,
    format: FindingsFormat,
    args: &FindingsArgs,
    judged: &[Family],
    redactor: &Redactor,
) -> Result<ExitCode> {
    finish_with(report, format, args, judged, Some(redactor))
}

fn finish_with(
    mut report: Report,
    format: FindingsFormat,
    args: &FindingsArgs,
    judged: &[Family],
    redactor: Option<&Redactor>,
) -> Result<ExitCode> {
    let hide = |text: String| match redactor {
        Some(r) => r.redact_str(&text),
        None => text,
    };
    let selection = args.selection()?;
    report.retain(|f| selection.runs(f.rule));
    if let Some(loaded) = crate::config::loaded() {
        report.suppress(&loaded.config.suppressions, &today(), judged);
    }
    if let Some(path) = &args.baseline {
        match crate::files::read_text(path)
            .map_err(|e| e.to_string())
            .and_then(|t| baseline::read(&t).map_err(|e| e.to_string()))
        {
            Ok(known) => {
                let mut left = baseline::Remaining::new(&known);
                let before = report.findings.len();
                report.retain(|f| !left.take(f));
                report.baselined = before - report.findings.len();
            }
            Err(e) => err(&format!(
                "mcpcheck: --baseline {}: {e}; every finding counts as new\n",
                path.display()
            )),
        }
    }
    if let Some(path) = &args.write_baseline {
        let all: Vec<_> = report.findings.to_vec();
        if let Err(e) = write(path, &baseline::write(&all)) {
            err(&format!("mcpcheck: {e}\n"));
        }
    }
    let shown = render::render(&report, format.format(), paint_for_stdout()).unwrap_or_default();
    out(&hide(shown));
    let html = args.html.iter().chain(
        args.reports
            .iter()
            .filter(|(f, _)| *f == Format::Html)
            .map(|(_, p)| p),
    );
    for dir in html {
        let title = format!("mcpcheck {}: {}", report.command, report.subject);
        if let Err(e) = crate::html::write_findings(dir, &report, &title, redactor) {
            err(&format!("mcpcheck: HTML report not written: {e}\n"));
        }
    }
    for (format, path) in args.reports.iter().filter(|(f, _)| *f != Format::Html) {
        let text =
            render::render(&report, *format, mcpcheck_core::diag::Paint::Plain).unwrap_or_default();
        let text = hide(text);
        if let Err(e) = write(path, &text) {
            err(&format!("mcpcheck: {e}\n"));
        }
    }
    Ok(verdict(report.passed()))
}

/// Writes a report file, creating its folder.
fn write(path: &Path, text: &str) -> std::result::Result<(), crate::files::WriteError> {
    crate::files::write_creating(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_targets() {
        let (f, p) = report_target("sarif=out/x.sarif").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(f, Format::Sarif);
        assert_eq!(p, PathBuf::from("out/x.sarif"));
        assert!(report_target("sarif").is_err());
        assert!(report_target("pdf=x").is_err_and(|e| e.to_string().contains("text, json, sarif")));
        assert_eq!(report_target("html=out").map(|t| t.0), Ok(Format::Html));
        assert!(report_target("json=").is_err());
    }
}
