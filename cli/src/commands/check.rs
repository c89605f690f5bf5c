//! `mcpcheck check`: verdicts for one saved response (or one trace) without a
//! server. Reads the files, asks core, prints.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use mcpcheck_core::Facts;
use mcpcheck_core::api;
use mcpcheck_core::diag;
use mcpcheck_core::report::text::{TextOptions, test_block};
use mcpcheck_core::results::TestResult;

use crate::error::{Error, Result, verdict};
use crate::files::{display, read_text};
use crate::output::{out, paint_for_stderr, paint_for_stdout};

/// Check a saved response against expectations, or a trace against
/// trajectory assertions.
#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("mode").required(true).args(["expect", "trace"])),
    after_help = crate::help::docs_line!("suites")
)]
pub struct CheckArgs {
    /// An expectation document: `expect:` (map or list form), optionally
    /// `threshold`, `derivedMetrics` and `method` (default tools/call).
    #[arg(long, value_name = "FILE", requires = "response")]
    expect: Option<PathBuf>,

    /// The response: a raw MCP result (`{"content": […]}`), a JSON-RPC
    /// response envelope, or an Observation.
    #[arg(long, value_name = "FILE")]
    response: Option<PathBuf>,

    /// A trace: a YAML/JSON list of `{tool, args}` calls, or a JSONL audit log.
    #[arg(long, value_name = "FILE", requires = "trajectory")]
    trace: Option<PathBuf>,

    /// Trajectory assertions (`order`, `presence`, `absence`, `args_contain`).
    #[arg(long, value_name = "FILE")]
    trajectory: Option<PathBuf>,

    /// Print the test outcome as JSON (one element of the results document).
    #[arg(long)]
    json: bool,

    /// Today's date for `dates_within_days` (default: today, UTC).
    #[arg(long, value_name = "YYYY-MM-DD")]
    today: Option<chrono::NaiveDate>,
}

/// An input file's diagnostics, rendered against its text.
fn bad_input(diags: &[diag::Diagnostic], name: &str, text: &str) -> Error {
    let lookup = |f: &str| (f == name).then_some(text);
    Error::Diagnostics(diag::render(diags, &lookup, paint_for_stderr()))
}

pub fn main(args: &CheckArgs) -> Result<ExitCode> {
    let result = if let (Some(expect), Some(response)) = (&args.expect, &args.response) {
        check_response(expect, response, args.today)?
    } else if let (Some(trace), Some(traj)) = (&args.trace, &args.trajectory) {
        check_trace(trace, traj)?
    } else {
        return Err("give --expect FILE --response FILE, or --trace FILE --trajectory FILE".into());
    };
    if args.json {
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&result).unwrap_or_default()
        ));
    } else {
        let opts = TextOptions {
            paint: paint_for_stdout(),
            all_checks: true,
        };
        out(&test_block(&result, opts));
    }
    Ok(verdict(result.status.is_success()))
}

fn check_response(
    expect: &Path,
    response: &Path,
    today: Option<chrono::NaiveDate>,
) -> Result<TestResult> {
    let (ename, rname) = (display(expect), display(response));
    let etext = read_text(expect)?;
    let rtext = read_text(response)?;
    let doc = api::load_expect(&ename, &etext).map_err(|d| bad_input(&d, &ename, &etext))?;
    let value = api::load_response(&rname, &rtext).map_err(|d| bad_input(&[d], &rname, &rtext))?;
    let facts = Facts {
        today: Some(today.unwrap_or_else(|| chrono::Utc::now().date_naive())),
        ..Facts::default()
    };
    api::check_response(&doc, value, &facts).map_err(|why| {
        let d = diag::Diagnostic::error(&rname, diag::Span::new(1, 1, 1, 2), why)
            .with_hint(api::RESPONSE_HINT);
        bad_input(&[d], &rname, &rtext)
    })
}

fn check_trace(trace: &Path, traj: &Path) -> Result<TestResult> {
    let (tname, aname) = (display(trace), display(traj));
    let ttext = read_text(trace)?;
    let atext = read_text(traj)?;
    let entries = api::load_trace(&tname, &ttext).map_err(|d| bad_input(&d, &tname, &ttext))?;
    let doc = api::load_trajectory(&aname, &atext).map_err(|d| bad_input(&d, &aname, &atext))?;
    Ok(api::check_trajectory(&doc, entries))
}
