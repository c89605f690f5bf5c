//! `mcpcheck report`: re-render a saved run (`mcpcheck run --json`) without
//! running it again, in any format, and optionally write every report file a
//! run would have written and compare it with a baseline.
//!
//! Authorization values and bearer tokens are redacted on the way in (the
//! run that saved the document has already hidden the suite's own secrets).
//!
//! `--merge` reads the results of the shards of a split run (`run --shard
//! i/n --json`) and renders the one document they make together (the merge
//! is core's, [`mcpcheck_core::shard::merge`]), as a single run would have
//! given it; the baseline and the gate apply to the merged run.
//!
//! Exit codes: 0 rendered; 2 the results (or an `--output`) could not be read
//! or written, or the shards do not fit together. With `--threshold` or
//! `--fail-on-regression` the saved run is judged like `ci` judges a live
//! one: 1 when it does not pass.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use mcpcheck_core::diag::Paint;
use mcpcheck_core::redact::Redactor;
use mcpcheck_core::results::Results;
use mcpcheck_core::shard::merge;

use crate::error::Result;
use crate::files::read_text;
use crate::output::{out, paint_for_stdout};
use crate::reports::{
    Conclude, Print, ReportFlags, ResultsFormat as Format, conclude, render, write_file,
};

/// Re-render a saved run without re-running it.
#[derive(Debug, Args)]
#[command(after_help = crate::help::docs_line!("reports"))]
pub struct ReportArgs {
    /// The results document to render (`mcpcheck run --json` output; `-` reads
    /// standard input).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "merge",
        conflicts_with = "merge"
    )]
    from: Option<PathBuf>,

    /// Merge the results documents of the shards of a split run (`run --shard
    /// i/n --json`, one FILE each, in any order) and render the whole run.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    merge: Vec<PathBuf>,

    /// The format printed (or written to --output).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// Print the results document (JSON), as `run --json` does: the same as
    /// `--format json`.
    #[arg(long, conflicts_with = "format")]
    json: bool,

    /// Write the --format rendering to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,

    #[command(flatten)]
    reports: ReportFlags,
}

fn read_results(path: &Path) -> Result<Results> {
    let text = if path.as_os_str() == "-" {
        crate::files::read_stdin()?
    } else {
        read_text(path)?
    };
    let name = if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    let results = Results::from_json(&text).map_err(|e| format!("{name}: {e}"))?;
    // A saved run may come from anywhere: whatever its writer did, no
    // Authorization value or bearer token leaves through a report.
    Ok(Redactor::new().redact_results(&results))
}

/// `--merge`: every shard's document, read and merged.
fn merge_results(paths: &[PathBuf]) -> Result<Results> {
    let mut docs = Vec::with_capacity(paths.len());
    for p in paths {
        if p.as_os_str() == "-" {
            return Err("--merge reads files: name each shard's results document".into());
        }
        docs.push((p.display().to_string(), read_results(p)?));
    }
    merge(&docs).map_err(|e| format!("--merge: {e}").into())
}

pub fn main(args: &ReportArgs) -> Result<ExitCode> {
    let results = match &args.from {
        Some(from) => read_results(from)?,
        None => merge_results(&args.merge)?,
    };
    let how = |comparison| Conclude {
        step_summary: false,
        gate: args.reports.gates(),
        comparison,
    };
    let format = if args.json { Format::Json } else { args.format };
    match (&args.output, format) {
        // As a run shows it: the tests, then what changed against the baseline.
        (None, Format::Text) => {
            out(&render(&results, Format::Text, paint_for_stdout(), None));
            Ok(conclude(&results, &args.reports, how(Print::Stdout)).exit_code())
        }
        // Standard output carries a document: the comparison goes to stderr.
        (None, format) => {
            let done = conclude(&results, &args.reports, how(Print::Stderr));
            let comparison = done.outcome.comparison.as_ref();
            out(&render(&results, format, Paint::Plain, comparison));
            Ok(done.exit_code())
        }
        (Some(path), format) => {
            let done = conclude(&results, &args.reports, how(Print::Nowhere));
            let comparison = done.outcome.comparison.as_ref();
            write_file(path, &render(&results, format, Paint::Plain, comparison))?;
            Ok(done.exit_code())
        }
    }
}
