//! `mcpcheck invariants`: check a captured session offline.
//!
//! Reads the capture file, hands the text to `mcpcheck_core::invariants`, prints the
//! rendered report. Exit codes: 0 every invariant holds and no hazard was found,
//! 1 something does not hold, 2 the capture could not be read or is not a capture
//! (diagnostics on stderr, each with the file and a JSON pointer).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use mcpcheck_core::invariants;

use crate::output::Format;

/// Subcommands of `mcpcheck compliance`, the spelling mcptest users know.
#[derive(Debug, Subcommand)]
pub enum ComplianceCommand {
    /// Check the conformance invariants of a captured session (same as `mcpcheck invariants`).
    Invariants(InvariantsArgs),
}

/// Options of `mcpcheck invariants` (and `mcpcheck compliance invariants`).
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 every invariant holds and no composition hazard is found; \
1 a finding or hazard; 2 the capture cannot be read or is not a capture."
)]
pub struct InvariantsArgs {
    /// The capture to check: a session object or an array of them (see docs/capture.md).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    capture: Option<PathBuf>,

    /// List the invariants and composition hazards that are checked, and exit.
    #[arg(long, conflicts_with = "capture")]
    list: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Runs the command.
pub fn run(args: &InvariantsArgs) -> ExitCode {
    if args.list {
        let text = match args.format {
            Format::Text => invariants::render_rules_text(),
            Format::Json => invariants::render_rules_json(),
        };
        return print(&text, ExitCode::SUCCESS);
    }
    let Some(path) = &args.capture else {
        // clap requires --capture unless --list is given.
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("error: cannot read {}: {error}", path.display());
            return ExitCode::from(2);
        }
    };
    let report = match invariants::check_text(&text) {
        Ok(report) => report,
        Err(diagnostics) => {
            for diagnostic in &diagnostics {
                eprintln!("error: {}: {diagnostic}", path.display());
            }
            eprintln!("error: {} is not a usable capture", path.display());
            return ExitCode::from(2);
        }
    };
    let rendered = match args.format {
        Format::Text => invariants::render_text(&report),
        Format::Json => invariants::render_json(&report),
    };
    let code = if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    print(&rendered, code)
}

/// Writes the output; a closed pipe (`| head`) is not an error.
fn print(text: &str, code: ExitCode) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => code,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(error) => {
            eprintln!("error: cannot write the report: {error}");
            ExitCode::from(2)
        }
    }
}
