//! After a run: the report files, the baseline, the job summary and the CI
//! verdict. `mcpcheck run`, `mcpcheck ci` and `mcpcheck report` all end here,
//! so a saved run re-rendered with `report` gives the files the run gave.
//!
//! Reports never fail a run by themselves: a file that cannot be written, or
//! a `--baseline` that cannot be read, is named on stderr and the run goes
//! on (a missing baseline on the first CI run is normal). Only the verdict
//! from [`gate::decide`] sets the exit code.
//!
//! The results handed in must already be redacted
//! ([`mcpcheck_core::redact::Redactor::redact_results`]): these functions
//! write what they are given.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use mcpcheck_core::baseline::{self, Baseline, Comparison};
use mcpcheck_core::diag::Paint;
use mcpcheck_core::gate::{self, GateOptions, GateVerdict};
use mcpcheck_core::report::{badge, github, junit, markdown, sarif, tap, text};
use mcpcheck_core::results::Results;

use crate::error::ValueError;
use crate::files::WriteError;
use crate::output::{err, out, paint_for_stderr, paint_for_stdout};

/// GitHub refuses a job summary larger than 1 MiB; stay under it.
const STEP_SUMMARY_LIMIT: usize = 1000 * 1024;

/// A format of a run's report, as `--format` and `--report FORMAT=PATH` name
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResultsFormat {
    /// What the terminal shows.
    Text,
    /// The results document itself (what `run --json` prints).
    Json,
    /// JUnit XML.
    Junit,
    /// A Markdown summary.
    Markdown,
    /// A SARIF 2.1.0 log.
    Sarif,
    /// GitHub Actions annotations at each failing check's YAML line.
    Github,
    /// TAP version 14.
    Tap,
    /// A shields.io endpoint badge (JSON).
    Badge,
    /// The HTML report: a folder, so only `--report html=DIR` (or `--html
    /// DIR`) names it, never `--format`.
    #[value(skip)]
    Html,
}

/// A run's results in `format`; the text and the Markdown include the
/// comparison with the baseline when there is one.
pub fn render(
    r: &Results,
    format: ResultsFormat,
    paint: Paint,
    comparison: Option<&Comparison>,
) -> String {
    match format {
        ResultsFormat::Text => {
            let mut s = text::render(
                r,
                text::TextOptions {
                    paint,
                    all_checks: false,
                },
            );
            if let Some(c) = comparison {
                let cmp = text::comparison(c, paint);
                if !cmp.is_empty() {
                    s.push('\n');
                    s.push_str(&cmp);
                }
            }
            s
        }
        ResultsFormat::Json => format!("{}\n", r.to_json()),
        ResultsFormat::Junit => junit::render(r),
        ResultsFormat::Markdown => markdown::render_with(r, comparison),
        ResultsFormat::Sarif => sarif::render(r),
        ResultsFormat::Github => github::render(r),
        ResultsFormat::Tap => tap::render(r),
        ResultsFormat::Badge => badge::render(r),
        // The folder's data, as its `data/index.js` holds it.
        ResultsFormat::Html => format!(
            "{}\n",
            mcpcheck_core::report::html::run_index(r, &[], "mcpcheck run")
        ),
    }
}

/// `FORMAT=PATH` of a run's `--report`.
pub fn results_report_target(s: &str) -> Result<(ResultsFormat, PathBuf), ValueError> {
    let (format, path) = s.split_once('=').ok_or_else(|| ValueError::ReportTarget {
        given: s.to_string(),
        example: "junit=junit.xml",
    })?;
    let format = if format.eq_ignore_ascii_case("html") {
        ResultsFormat::Html
    } else {
        ResultsFormat::from_str(format, true).map_err(|_| ValueError::NotOneOf {
            given: format.to_string(),
            what: "format",
            known: "text, json, junit, markdown, sarif, github, tap, badge, html".to_string(),
        })?
    };
    if path.is_empty() {
        return Err(ValueError::EmptyPath);
    }
    Ok((format, PathBuf::from(path)))
}

/// The report and baseline flags shared by `run`, `ci` and `report`.
#[derive(Clone, Debug, Default, Args)]
pub struct ReportFlags {
    /// Write the run's report in FORMAT to PATH (repeatable): text, json,
    /// junit, markdown, sarif, github, tap, badge, or html (PATH a folder).
    /// `--junit FILE` and the other flags below are the same as `--report
    /// junit=FILE`.
    #[arg(long = "report", value_name = "FORMAT=PATH", value_parser = results_report_target)]
    pub reports: Vec<(ResultsFormat, PathBuf)>,

    /// Write a JUnit XML report to FILE (pass@k/pass^k, scores and metrics
    /// as <properties>).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,

    /// Write a Markdown summary to FILE (a table, failures in <details>,
    /// reliability and metric rollups).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Write a shields.io endpoint badge (JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub badge: Option<PathBuf>,

    /// Write the HTML report into the folder DIR: the summary, filters and
    /// search, every check's expected and actual side by side, and each
    /// test's session as a timeline (`run` and `ci` record them). It opens
    /// from file:// and makes no request; `mcpcheck show-report DIR` serves
    /// it.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,

    /// Write a SARIF 2.1.0 log to FILE: each failing check located at its
    /// YAML file and line, for code-scanning views.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,

    /// Save this run's statuses as a baseline to FILE (after comparing with
    /// --baseline, so both may name the same file).
    #[arg(long, value_name = "FILE")]
    pub save_baseline: Option<PathBuf>,

    /// Compare with a baseline FILE (saved with --save-baseline, or the
    /// --json output of an earlier run): report regressions (passed then,
    /// not now), stale expected failures, new and gone tests.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Fail (exit 1) when a test that passed in the --baseline does not pass
    /// now, even within --threshold.
    #[arg(long, requires = "baseline")]
    pub fail_on_regression: bool,

    /// Fail (exit 1) when a test passed only on a retry (`run --retries`):
    /// without it a flaky test counts as the pass it finally was.
    #[arg(long)]
    pub fail_on_flaky: bool,

    /// Pass when at least PCT percent of the tests that ran passed (skipped
    /// tests are left out). Without it every test that ran must pass.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    pub threshold: Option<f64>,
}

/// A percentage from 0 to 100 (a trailing `%` is allowed).
pub fn parse_percent(s: &str) -> Result<f64, ValueError> {
    let n: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| ValueError::Percent(s.to_string()))?;
    if !(0.0..=100.0).contains(&n) {
        return Err(ValueError::PercentRange(s.to_string()));
    }
    Ok(n)
}

impl ReportFlags {
    /// The files to write; `step_summary` also appends the Markdown to
    /// `$GITHUB_STEP_SUMMARY` when that is set (what `ci` does).
    pub fn options(&self, step_summary: bool) -> ReportOptions {
        ReportOptions {
            junit: self.junit.clone(),
            markdown: self.markdown.clone(),
            badge: self.badge.clone(),
            sarif: self.sarif.clone(),
            save_baseline: self.save_baseline.clone(),
            baseline: self.baseline.clone(),
            step_summary,
            reports: self.reports.clone(),
            html: self
                .html
                .iter()
                .cloned()
                .chain(
                    self.reports
                        .iter()
                        .filter(|(f, _)| *f == ResultsFormat::Html)
                        .map(|(_, p)| p.clone()),
                )
                .collect(),
            sessions: Vec::new(),
            redactor: None,
        }
    }

    /// The folders of the HTML report (`--html` and `--report html=DIR`).
    pub fn html_dirs(&self) -> Vec<PathBuf> {
        self.options(false).html
    }

    /// The verdict's options.
    pub fn gate(&self) -> GateOptions {
        GateOptions {
            threshold: self.threshold,
            fail_on_regression: self.fail_on_regression,
            fail_on_flaky: self.fail_on_flaky,
        }
    }

    /// Whether any flag asks for a verdict beyond "every test passed".
    pub fn gates(&self) -> bool {
        self.threshold.is_some() || self.fail_on_regression || self.fail_on_flaky
    }
}

/// Where the report files go.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    pub junit: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub badge: Option<PathBuf>,
    pub sarif: Option<PathBuf>,
    pub save_baseline: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
    /// Append the Markdown summary to `$GITHUB_STEP_SUMMARY` (when set).
    pub step_summary: bool,
    /// `--report FORMAT=PATH` (html ones are in `html`).
    pub reports: Vec<(ResultsFormat, PathBuf)>,
    /// The folders of the HTML report.
    pub html: Vec<PathBuf>,
    /// Each test's recorded session, in the results' order, for the HTML
    /// report (empty: none was recorded).
    pub sessions: Vec<Option<crate::html::SessionFile>>,
    /// What hides the secrets of the servers' stderr in the HTML report.
    pub redactor: Option<mcpcheck_core::redact::Redactor>,
}

/// What writing the reports found out.
#[derive(Clone, Debug, Default)]
pub struct ReportOutcome {
    /// The comparison with `--baseline`, when it could be read.
    pub comparison: Option<Comparison>,
    /// Why `--baseline` could not be used (already printed on stderr).
    pub baseline_error: Option<String>,
    /// The files that could not be written (already printed on stderr).
    pub write_errors: Vec<String>,
}

/// Read a baseline file.
pub fn load_baseline(path: &Path) -> Result<Baseline, BaselineError> {
    let text = crate::files::read_bounded(path, crate::files::MAX_INPUT_BYTES).map_err(|why| {
        BaselineError::Read {
            path: path.to_path_buf(),
            why,
        }
    })?;
    Baseline::from_json(&text).map_err(|source| BaselineError::Invalid {
        path: path.to_path_buf(),
        source,
    })
}

/// Why `--baseline` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read the baseline {}: {why}", .path.display())]
    Read {
        path: PathBuf,
        why: crate::files::Why,
    },
    #[error("{}: {source}", .path.display())]
    Invalid {
        path: PathBuf,
        #[source]
        source: mcpcheck_core::error::DocError,
    },
}

/// Write `text` to `path`, creating its directory.
pub fn write_file(path: &Path, text: &str) -> Result<(), WriteError> {
    crate::files::write_creating(path, text)
}

fn append_file(path: &Path, text: &str) -> Result<(), WriteError> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(WriteError::open(path))?;
    f.write_all(text.as_bytes())
        .map_err(WriteError::write(path))
}

/// The Markdown cut to GitHub's job-summary limit, at a section or failure
/// boundary, with a note saying where the rest is.
pub fn fit_step_summary(md: &str) -> String {
    if md.len() <= STEP_SUMMARY_LIMIT {
        return md.to_string();
    }
    let mut cut = STEP_SUMMARY_LIMIT - 200;
    while !md.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &md[..cut];
    let at = [head.rfind("\n\n<details>"), head.rfind("\n\n### ")]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(cut);
    format!(
        "{}\n\n_The summary was cut at GitHub's size limit: the JUnit and Markdown reports have the rest._\n",
        &md[..at]
    )
}

/// Write every report the options ask for. Never fails: problems are
/// printed on stderr and listed in the outcome.
pub fn write_reports(results: &Results, opts: &ReportOptions) -> ReportOutcome {
    let summary = opts
        .step_summary
        .then(|| std::env::var_os("GITHUB_STEP_SUMMARY"))
        .flatten()
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    write_reports_to(results, opts, summary.as_deref())
}

/// [`write_reports`] with the job-summary file given (`None`: no summary).
fn write_reports_to(
    results: &Results,
    opts: &ReportOptions,
    step_summary: Option<&Path>,
) -> ReportOutcome {
    let mut outcome = ReportOutcome::default();
    // Compare before saving, so --baseline and --save-baseline may be one file.
    if let Some(path) = &opts.baseline {
        match load_baseline(path) {
            Ok(b) => outcome.comparison = Some(baseline::compare(&b, results)),
            Err(e) => {
                err(&format!(
                    "mcpcheck: {e} (continuing without a baseline comparison)\n"
                ));
                outcome.baseline_error = Some(e.to_string());
            }
        }
    }
    let comparison = outcome.comparison.as_ref();
    let mut files: Vec<(&Path, &str, String)> = Vec::new();
    if let Some(p) = &opts.junit {
        files.push((p, "JUnit report", junit::render(results)));
    }
    if let Some(p) = &opts.sarif {
        files.push((p, "SARIF log", sarif::render(results)));
    }
    if let Some(p) = &opts.badge {
        files.push((p, "badge", badge::render(results)));
    }
    let md = (opts.markdown.is_some() || step_summary.is_some())
        .then(|| markdown::render_with(results, comparison));
    if let (Some(p), Some(md)) = (&opts.markdown, &md) {
        files.push((p, "Markdown summary", md.clone()));
    }
    if let Some(p) = &opts.save_baseline {
        let mut text = Baseline::of(results).to_json();
        text.push('\n');
        files.push((p, "baseline", text));
    }
    for (format, p) in opts
        .reports
        .iter()
        .filter(|(f, _)| *f != ResultsFormat::Html)
    {
        let text = render(results, *format, Paint::Plain, comparison);
        files.push((p, "report", text));
    }
    let redactor = opts.redactor.clone().unwrap_or_default();
    for dir in &opts.html {
        if let Err(e) =
            crate::html::write_run(dir, results, &opts.sessions, "mcpcheck run", &redactor)
        {
            err(&format!("mcpcheck: HTML report not written: {e}\n"));
            outcome.write_errors.push(e.to_string());
        }
    }
    for (path, what, text) in files {
        if let Err(e) = write_file(path, &text) {
            err(&format!("mcpcheck: {what} not written: {e}\n"));
            outcome.write_errors.push(e.to_string());
        }
    }
    if let (Some(md), Some(path)) = (&md, step_summary)
        && let Err(e) = append_file(path, &format!("{}\n", fit_step_summary(md)))
    {
        err(&format!("mcpcheck: job summary not written: {e}\n"));
        outcome.write_errors.push(e.to_string());
    }
    outcome
}

/// Where the baseline comparison is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Print {
    Stdout,
    /// When stdout carries a document (`--json`, `report --format junit`).
    Stderr,
    /// The caller renders it itself.
    Nowhere,
}

/// How a command ends.
#[derive(Clone, Copy, Debug)]
pub struct Conclude {
    /// Append the Markdown to `$GITHUB_STEP_SUMMARY` (`ci`).
    pub step_summary: bool,
    /// Decide pass/fail ([`gate::decide`]); without it the command exits 0.
    pub gate: bool,
    pub comparison: Print,
}

/// What [`conclude`] did.
#[derive(Clone, Debug)]
pub struct Concluded {
    pub outcome: ReportOutcome,
    pub verdict: Option<GateVerdict>,
}

impl Concluded {
    /// 0 when the verdict passed (or none was asked for), else 1.
    pub fn exit_code(&self) -> ExitCode {
        match &self.verdict {
            Some(v) => ExitCode::from(v.exit_code()),
            None => ExitCode::SUCCESS,
        }
    }
}

/// The end of a run: write the reports, print what changed against the
/// baseline, decide the verdict and print why it failed. The text report of
/// the tests themselves is the caller's to print, before this.
pub fn conclude(results: &Results, flags: &ReportFlags, how: Conclude) -> Concluded {
    conclude_with(results, flags, how, Vec::new(), None)
}

/// [`conclude`], with each test's recorded session (in the results' order)
/// for the HTML report, and what hides the secrets of the servers' stderr.
pub fn conclude_with(
    results: &Results,
    flags: &ReportFlags,
    how: Conclude,
    sessions: Vec<Option<crate::html::SessionFile>>,
    redactor: Option<mcpcheck_core::redact::Redactor>,
) -> Concluded {
    let mut opts = flags.options(how.step_summary);
    opts.sessions = sessions;
    opts.redactor = redactor;
    let outcome = write_reports(results, &opts);
    if let Some(c) = &outcome.comparison {
        match how.comparison {
            Print::Stdout => out(&with_gap(text::comparison(c, paint_for_stdout()))),
            Print::Stderr => err(&with_gap(text::comparison(c, paint_for_stderr()))),
            Print::Nowhere => {}
        }
    }
    let verdict = how.gate.then(|| {
        let v = gate::decide(results, outcome.comparison.as_ref(), &flags.gate());
        for reason in &v.reasons {
            err(&format!("mcpcheck: failed: {reason}\n"));
        }
        v
    });
    Concluded { outcome, verdict }
}

fn with_gap(s: String) -> String {
    if s.is_empty() { s } else { format!("\n{s}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages() {
        assert_eq!(parse_percent("90"), Ok(90.0));
        assert_eq!(parse_percent("87.5%"), Ok(87.5));
        assert!(parse_percent("101").is_err());
        assert!(parse_percent("-1").is_err());
        assert!(parse_percent("most").is_err());
    }

    #[test]
    fn step_summary_is_appended_and_baseline_compared_before_saving() {
        use mcpcheck_core::results::{TestResult, TestStatus};
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join("summary.md");
        std::fs::write(&summary, "earlier step\n").unwrap();
        let baseline = dir.path().join("baseline.json");
        let mut pass = TestResult::error("t", "a.yaml", Some(1), "", 1);
        pass.status = TestStatus::Pass;
        let first = Results::new(vec![pass], 1);
        let failing = Results::new(vec![TestResult::fail("t", "a.yaml", Some(1), "no", 1)], 1);
        let opts = ReportOptions {
            baseline: Some(baseline.clone()),
            save_baseline: Some(baseline.clone()),
            step_summary: true,
            ..ReportOptions::default()
        };
        // First run: no baseline yet (a warning, not a failure), one is saved.
        let o = write_reports_to(&first, &opts, Some(&summary));
        assert!(o.comparison.is_none() && o.baseline_error.is_some());
        assert!(o.write_errors.is_empty());
        // Second run compares with it, then overwrites it.
        let o = write_reports_to(&failing, &opts, Some(&summary));
        assert_eq!(o.comparison.unwrap().regressions.len(), 1);
        let saved = load_baseline(&baseline).unwrap();
        assert_eq!(saved.tests[0].status, TestStatus::Fail);
        let md = std::fs::read_to_string(&summary).unwrap();
        assert!(md.starts_with("earlier step\n## ✅ mcpcheck"), "{md}");
        assert!(md.contains("## ❌ mcpcheck: 0 of 1 tests passed"), "{md}");
        assert!(md.contains("**1 regression**"), "{md}");
    }

    #[test]
    fn unwritable_reports_are_listed_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let opts = ReportOptions {
            // A directory cannot be written as a file.
            junit: Some(dir.path().to_path_buf()),
            badge: Some(dir.path().join("nested/dir/badge.json")),
            ..ReportOptions::default()
        };
        let o = write_reports_to(&Results::new(Vec::new(), 0), &opts, None);
        assert_eq!(o.write_errors.len(), 1, "{:?}", o.write_errors);
        assert!(dir.path().join("nested/dir/badge.json").is_file());
    }

    #[test]
    fn step_summary_is_cut_at_a_boundary_under_the_limit() {
        let small = "## ok\n";
        assert_eq!(fit_step_summary(small), small);
        let mut big = String::from("## head\n\n### Failures\n");
        while big.len() < STEP_SUMMARY_LIMIT + 5000 {
            big.push_str("\n\n<details><summary>x</summary>\n\n- é detail\n\n</details>");
        }
        let cut = fit_step_summary(&big);
        assert!(cut.len() < STEP_SUMMARY_LIMIT, "{}", cut.len());
        assert!(
            cut.contains("</details>\n\n_The summary was cut"),
            "{}",
            &cut[cut.len() - 300..]
        );
    }
}
