//! `mcpcheck validate`: load suites and print every diagnostic.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use mcpcheck_core::diag;
use mcpcheck_core::suite;

use mcpcheck_core::report::plural;

use crate::error::Result;
use crate::files::{display, read_text, suite_files};
use crate::output::{err, out, paint_for_stderr};

/// Load suites and report every problem (file, line, column, hint).
#[derive(Debug, Args)]
#[command(after_help = crate::help::docs_line!("suites"))]
pub struct ValidateArgs {
    /// Suite files or directories (a directory's .yaml/.yml files and those of
    /// its subdirectories).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

pub fn main(args: &ValidateArgs) -> Result<ExitCode> {
    let files = suite_files(&args.paths)?;
    let paint = paint_for_stderr();
    let (mut errors, mut warnings, mut tests) = (0usize, 0usize, 0usize);
    let mut budget = suite::LoadBudget::default();
    for f in &files {
        let name = display(f);
        let text = match read_text(f) {
            Ok(t) => t,
            Err(e) => {
                err(&format!("error: {e}\n"));
                errors += 1;
                continue;
            }
        };
        let loaded = suite::load_in(&name, &text, &mut budget);
        tests += loaded.suite.tests.len();
        for d in &loaded.diagnostics {
            if d.is_error() {
                errors += 1;
            } else {
                warnings += 1;
            }
        }
        if !loaded.diagnostics.is_empty() {
            let lookup = |n: &str| (n == name).then_some(text.as_str());
            err(&diag::render(&loaded.diagnostics, &lookup, paint));
        }
    }
    out(&format!(
        "{}, {}: {}, {}\n",
        plural(files.len(), "file", "files"),
        plural(tests, "test", "tests"),
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings")
    ));
    if errors > 0 {
        return Err(format!(
            "{} above: the suites cannot run until {} fixed",
            plural(errors, "error", "errors"),
            if errors == 1 { "it is" } else { "they are" }
        )
        .into());
    }
    Ok(ExitCode::SUCCESS)
}
