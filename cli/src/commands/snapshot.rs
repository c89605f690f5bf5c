//! `mcpcheck snapshot`: mcp-assert's snapshot command, on the snapshot
//! machinery `run --snapshots` / `--update-snapshots` use
//! (`run/snapshots.rs`, `mcpcheck_core::snapshot`).
//!
//! Only the tool tests of the suites run, with their setup; their own
//! expectations are not checked (`run --snapshots` checks both). Without
//! `--update` each answer is compared with the one recorded in the
//! directory's `.snapshots.json`; with it, the answers are recorded.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::expect::Expectations;
use mcpcheck_core::report::text::{TextOptions, test_block};
use mcpcheck_core::results::TestStatus;
use mcpcheck_core::snapshot;

use crate::error::{Result, verdict};
use crate::output::{out, paint_for_stdout};
use crate::run::exec::RunSettings;
use crate::run::snapshots::{Recorded, Stores, is_tool_test};
use crate::run::{Sources, SuiteSource, jobs_or_cores, run_tests};

/// Compare each tool test's answer with its recorded snapshot, or record it
/// (`--update`).
#[derive(Debug, Args)]
#[command(after_help = crate::help::docs_line!("snapshot"))]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub source: SuiteSource,

    /// Record the answers in `.snapshots.json` next to each test file
    /// (adding new ones and replacing changed ones) instead of comparing.
    #[arg(long)]
    pub update: bool,

    /// The timeout of a test without its own `timeout:` (e.g. 30s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    pub timeout: Duration,

    /// How many tests run at once (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

pub fn main(args: &SnapshotArgs) -> Result<ExitCode> {
    crate::error::runtime()?.block_on(snapshot(args))
}

/// The suites' tool tests (with the index of their file), and how many
/// other tests there are.
fn tool_tests(
    suites: &[mcpcheck_core::suite::SuiteFile],
) -> (Vec<(usize, mcpcheck_core::suite::Test)>, usize) {
    let mut tests = Vec::new();
    let mut others = 0;
    for (fi, s) in suites.iter().enumerate() {
        for t in &s.tests {
            if is_tool_test(t) {
                tests.push((fi, t.clone()));
            } else {
                others += 1;
            }
        }
    }
    (tests, others)
}

async fn snapshot(args: &SnapshotArgs) -> Result<ExitCode> {
    let Sources {
        suites,
        server_override,
    } = args.source.load()?;
    let (mut tests, others) = tool_tests(&suites);
    if tests.is_empty() {
        return Err(
            "no tool tests in these suites: snapshots record the answers of tests with an `assert:` block (tools/call)"
                .into(),
        );
    }
    let mut stores = Stores::load(tests.iter().map(|(_, t)| t))?;
    // Whether each test had a snapshot before this run.
    // A test with a `snapshot:` of its own keeps it in its suite file.
    let had: Vec<bool> = tests
        .iter()
        .map(|(_, t)| match &t.snapshot {
            Some(inline) => inline.recorded.is_some(),
            None => stores.recorded(t).is_some(),
        })
        .collect();
    for (_, t) in &mut tests {
        let items = match (&t.snapshot, args.update) {
            (_, true) => Vec::new(),
            (Some(inline), false) => snapshot::inline_checks(inline),
            (None, false) => snapshot::checks(stores.recorded(t)),
        };
        t.expect = Expectations {
            items,
            ..Expectations::default()
        };
    }

    let settings = RunSettings {
        fixture: args.source.fixture.clone(),
        server_override,
        default_timeout: args.timeout,
        protocol_version: "2025-11-25".into(),
        today: chrono::Utc::now().date_naive(),
        default_settle: Duration::from_millis(100),
        keep_answers: args.update,
        docker: args.source.docker.clone(),
        reuse_server: false,
        auth: None,
        output_scan: false,
    };
    crate::signals::clean_up_on_interrupt();
    let ran = run_tests(tests.clone(), &suites, &settings, jobs_or_cores(args.jobs)).await;
    let redactor = mcpcheck_core::redact::Redactor::for_suite(&suites, &|n| std::env::var(n).ok());
    let redactor = crate::run::hooks::with_hook_secrets(&redactor);
    let paint = paint_for_stdout();
    let details = |r: &mcpcheck_core::results::TestResult| {
        let block = test_block(
            &redactor.redact_test(r),
            TextOptions {
                paint,
                all_checks: false,
            },
        );
        block
            .split_once('\n')
            .map(|(_, rest)| rest.to_string())
            .unwrap_or_default()
    };
    let line = |label: &str, name: &str, note: &str| format!("{label:<7}{name}{note}\n");

    let mut report = String::new();
    let passed = if args.update {
        let mut unanswered = 0;
        let mut total = Recorded::default();
        let mut in_suites: Vec<std::path::PathBuf> = Vec::new();
        for (((_, t), r), answer) in tests.iter().zip(&ran.results).zip(&ran.answers) {
            if r.status == TestStatus::Skip {
                report.push_str(&line("SKIP", &t.name, &format!(" ({})", r.message)));
                continue;
            }
            let counts = record(&mut stores, t, answer, &mut in_suites);
            let note = counts.tool_error_note();
            let (new, changed, missing) = (counts.new, counts.changed, counts.missing);
            total.add(counts);
            if new > 0 {
                report.push_str(&line("NEW", &t.name, &note));
            } else if changed > 0 {
                report.push_str(&line("UPDATE", &t.name, &note));
            } else if missing > 0 {
                unanswered += 1;
                report.push_str(&line("ERROR", &t.name, " (no answer to record)"));
                report.push_str(&details(r));
            }
        }
        let mut written = stores.write()?;
        written.extend(in_suites);
        report.push('\n');
        report.push_str(&total.summary(&written));
        unanswered == 0
    } else {
        let (mut matched, mut changed, mut missing, mut errors) = (0, 0, 0, 0);
        for (((_, t), r), had) in tests.iter().zip(&ran.results).zip(&had) {
            match r.status {
                TestStatus::Pass => {
                    matched += 1;
                    report.push_str(&line("MATCH", &t.name, ""));
                }
                TestStatus::Skip => {
                    report.push_str(&line("SKIP", &t.name, &format!(" ({})", r.message)));
                }
                TestStatus::Fail if !had => {
                    missing += 1;
                    report.push_str(&line(
                        "MISS",
                        &t.name,
                        " (no snapshot: record one with `mcpcheck snapshot --update`)",
                    ));
                }
                TestStatus::Fail => {
                    changed += 1;
                    report.push_str(&line("DIFF", &t.name, ""));
                    report.push_str(&details(r));
                }
                TestStatus::Error => {
                    errors += 1;
                    report.push_str(&line("ERROR", &t.name, ""));
                    report.push_str(&details(r));
                }
            }
        }
        report.push_str(&format!(
            "\nsnapshots: {matched} matched, {changed} changed, {missing} missing, {errors} without an answer"
        ));
        if changed + missing > 0 {
            report.push_str(" (run with --update to accept the answers)");
        }
        report.push('\n');
        changed + missing + errors == 0
    };
    if others > 0 {
        report.push_str(&format!(
            "{} not a tool test: no snapshot\n",
            mcpcheck_core::report::plural(others, "test is", "tests are")
        ));
    }
    out(&report);
    Ok(verdict(passed))
}

/// Record one test's answer: in its suite file when it has a `snapshot:` of
/// its own (the file joins `in_suites`), else in `.snapshots.json`.
fn record(
    stores: &mut Stores,
    t: &mcpcheck_core::suite::Test,
    answer: &Option<crate::run::exec::Answer>,
    in_suites: &mut Vec<std::path::PathBuf>,
) -> Recorded {
    if t.snapshot.is_none() {
        return stores.record(std::iter::once(t), std::slice::from_ref(answer));
    }
    let (counts, written, errors) =
        crate::run::snapshots::record_inline(std::iter::once(t), std::slice::from_ref(answer));
    for e in errors {
        crate::output::err(&format!("mcpcheck snapshot: not written: {e}\n"));
    }
    for w in written {
        if !in_suites.contains(&w) {
            in_suites.push(w);
        }
    }
    counts
}
