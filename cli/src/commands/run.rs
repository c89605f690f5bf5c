//! `mcpcheck run` and `mcpcheck ci`: their flags, `--watch`, and the call
//! into the runner (`run/`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::report::plural;

use crate::error::Result;
use crate::files::suite_files;
use crate::output::{err, out};
use crate::run::{SuiteSource, run};

/// Run suites against real MCP servers.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub source: SuiteSource,

    #[command(flatten)]
    pub auth: crate::target::AuthArgs,

    /// How many server sessions are open at once (default: chosen from the
    /// number of cores and what each server took to start on earlier runs).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// The timeout of a test without its own `timeout:` (e.g. 30s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    pub timeout: Duration,

    /// Run only tests whose name (or `file:name`) matches this glob; may be
    /// repeated.
    #[arg(long, value_name = "GLOB")]
    pub filter: Vec<String>,

    /// Print the results document (JSON) on stdout instead of the report:
    /// the same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// What stdout carries: the text report (default), or the run's report
    /// in another format (json, junit, markdown, sarif, github, tap, badge);
    /// `--report FORMAT=PATH` writes files.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<crate::reports::ResultsFormat>,

    /// List the tests that would run (after --filter and --shard) without
    /// starting a server: `FILE:LINE  NAME` per line, or with --json a
    /// document `{"version": 1, "tests": [{"name", "file", "line"}]}`.
    #[arg(long, conflicts_with_all = ["watch", "update_snapshots", "capture", "lock"])]
    pub list: bool,

    /// Write each test's wire exchange as a capture file into DIR.
    #[arg(long, value_name = "DIR")]
    pub capture: Option<PathBuf>,

    /// The MCP protocol version to speak: up to 2025-11-25 it is asked for
    /// at `initialize`; with 2026-07-28 there is no `initialize`, and every
    /// request carries it. A server's `protocol_version:` in the suite wins.
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25", value_parser = known_protocol_version)]
    pub protocol_version: String,

    /// How long to keep collecting notifications after an answer, for tests
    /// that check notifications and set no `settle:`.
    #[arg(long, value_name = "DURATION", default_value = "100ms", value_parser = crate::output::parse_duration)]
    pub settle: Duration,

    /// Run every test N times and report pass@k (passed at least once) and
    /// pass^k (passed every time).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub trials: u32,

    /// Run a test that failed or errored again, up to N more times; one that
    /// passes on a later attempt is reported `flaky` (it passes, unless
    /// --fail-on-flaky), distinct from pass and fail in every format.
    #[arg(long, value_name = "N", default_value_t = 0, conflicts_with = "trials", value_parser = clap::value_parser!(u32).range(0..=100))]
    pub retries: u32,

    /// Run only the tests (of those selected) that failed or errored in the
    /// last run, which every run saves in .mcpcheck/last-run.json.
    #[arg(long)]
    pub last_failed: bool,

    /// Compare each tool test's answer (its text and `isError`) with the one
    /// recorded in `.snapshots.json` next to its file (mcp-assert's snapshot
    /// file): a different answer, or none recorded, fails the test.
    #[arg(long, conflicts_with = "update_snapshots")]
    pub snapshots: bool,

    /// Record each tool test's answer in `.snapshots.json` next to its file,
    /// adding new ones and replacing changed ones.
    #[arg(long)]
    pub update_snapshots: bool,

    /// Not a flag: `init`'s recording run fails a tool test whose answer is a
    /// tool error (the answer is still recorded, and named as one).
    #[arg(skip)]
    pub fail_tool_errors: bool,

    /// After the run, watch the suite files and the fixture, and run again
    /// whenever one changes, until interrupted (Ctrl-C).
    #[arg(long)]
    pub watch: bool,

    /// How often `--watch` looks for changes.
    #[arg(long, value_name = "DURATION", default_value = "500ms", requires = "watch", value_parser = crate::output::parse_duration)]
    pub watch_interval: Duration,

    /// Run only this machine's part of the suite: shard I of N (e.g. 2/4),
    /// split by file (by test in a `tests:` file) with a fixed hash; merge the
    /// parts' --json documents with `mcpcheck report --merge`.
    #[arg(long, value_name = "I/N", value_parser = crate::run::shard::parse_shard)]
    pub shard: Option<mcpcheck_core::shard::Shard>,

    /// Balance the shards by the test durations in FILE, the results document
    /// of an earlier whole run (every shard must be given the same FILE).
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub shard_timings: Option<PathBuf>,

    /// The default, accepted for mcp-assert's command lines: tests with the
    /// same server and client mocks share server sessions, the --fixture
    /// copy restored before each test. A test that does not pass on a
    /// shared session is run again on a fresh server and copy, and that
    /// verdict is reported (marked re-run). The run names the tests it
    /// does not apply to.
    #[arg(long, conflicts_with = "isolate")]
    pub reuse_server: bool,

    /// Give every test a server and fixture copy of its own (files that
    /// set `share_server: true` still share theirs).
    #[arg(long)]
    pub isolate: bool,

    /// After the tests, list the suite's server and compare what it offers
    /// with this lockfile (`mcpcheck lock --write`): a breaking or suspicious
    /// change (a rug pull) fails the run.
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,

    /// Do not read what servers answer with the scan's text rules (O codes:
    /// an injection, hidden characters or a credential in a tool result, a
    /// prompt or a resource is otherwise a warning on the test).
    #[arg(long)]
    pub no_output_scan: bool,

    #[command(flatten)]
    pub reports: crate::reports::ReportFlags,

    #[command(flatten)]
    pub progress: crate::progress::ProgressArgs,
}

impl RunArgs {
    /// The document stdout carries instead of the text report, if any.
    pub fn document(&self) -> Option<crate::reports::ResultsFormat> {
        use crate::reports::ResultsFormat;
        if self.json {
            return Some(ResultsFormat::Json);
        }
        self.format.filter(|f| *f != ResultsFormat::Text)
    }
}

pub fn main(args: &RunArgs) -> Result<ExitCode> {
    let runtime = crate::error::runtime()?;
    if args.watch {
        return runtime.block_on(watch(args));
    }
    runtime.block_on(run(args, false))
}

/// `run --watch`: run, then run again each time a suite file or a fixture
/// file changes (appears, disappears, or gets another size or time). A
/// suite with errors is reported and waited on like any other.
async fn watch(args: &RunArgs) -> Result<ExitCode> {
    loop {
        if let Err(e) = run(args, false).await {
            err(&e.report("run"));
        }
        let seen = watched(args);
        out(&format!(
            "\nwatching {} for changes (Ctrl-C to stop)\n",
            plural(seen.len(), "file", "files")
        ));
        loop {
            tokio::time::sleep(args.watch_interval).await;
            if watched(args) != seen {
                break;
            }
        }
        out("\nchanged: running again\n\n");
    }
}

/// Each watched file with its size and modification time: the suite files
/// and every file below the fixture directory (the first 10,000).
fn watched(args: &RunArgs) -> Vec<(PathBuf, Option<(u64, std::time::SystemTime)>)> {
    let stamp = |p: &std::path::Path| {
        std::fs::metadata(p)
            .ok()
            .and_then(|m| m.modified().ok().map(|t| (m.len(), t)))
    };
    let mut files: Vec<PathBuf> = suite_files(&args.source.suites).unwrap_or_default();
    if let Some(fixture) = &args.source.fixture {
        let mut dirs = vec![fixture.clone()];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(path);
                } else if files.len() < 10_000 {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let s = stamp(&f);
            (f, s)
        })
        .collect()
}

/// `run` with CI defaults: the Markdown summary is appended to
/// `$GITHUB_STEP_SUMMARY` when it is set, and the run fails unless every test
/// that ran passed (or `--threshold` percent did).
#[derive(Debug, Args)]
pub struct CiArgs {
    #[command(flatten)]
    run: RunArgs,
}

pub fn ci_main(args: &CiArgs) -> Result<ExitCode> {
    if args.run.watch {
        return Err("--watch is for `mcpcheck run`; a CI job runs once".into());
    }
    crate::error::runtime()?.block_on(run(&args.run, true))
}

/// `--protocol-version`: one of the revisions mcpcheck knows.
pub(crate) fn known_protocol_version(
    s: &str,
) -> Result<String, mcpcheck_core::suite::UnknownVersion> {
    mcpcheck_core::suite::check_protocol_version(s).map(|()| s.to_string())
}
