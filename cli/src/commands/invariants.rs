//! `mcpcheck invariants`: check a captured session offline.
//!
//! Reads the capture file, hands the text to `mcpcheck_core::invariants`, prints the
//! rendered report. Exit codes: 0 every invariant holds and no hazard was found,
//! 1 something does not hold, 2 the capture could not be read or is not a capture
//! (diagnostics on stderr, each with the file and a JSON pointer).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use mcpcheck_core::invariants;

use crate::error::{Error, Result, verdict};
use crate::output::{Format, out};

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
pub fn main(args: &InvariantsArgs) -> Result<ExitCode> {
    if args.list {
        out(&format!(
            "{}\n",
            match args.format {
                Format::Text => invariants::render_rules_text(),
                Format::Json => invariants::render_rules_json(),
            }
        ));
        return Ok(ExitCode::SUCCESS);
    }
    // clap requires --capture unless --list is given.
    let path = args
        .capture
        .as_ref()
        .ok_or("give --capture FILE (or --list)")?;
    let text = crate::files::read_text(path)?;
    let (report, exercised) = invariants::check_text_exercised(&text).map_err(|diagnostics| {
        let mut message = format!("{} is not a usable capture:", path.display());
        for diagnostic in &diagnostics {
            message.push_str(&format!("\n  {}: {diagnostic}", path.display()));
        }
        Error::Usage(message)
    })?;
    out(&format!(
        "{}\n",
        match args.format {
            Format::Text => invariants::render_text(&report, &exercised),
            Format::Json => invariants::render_json(&report),
        }
    ));
    Ok(verdict(report.passed()))
}
