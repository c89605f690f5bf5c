//! `mcpcheck invariants`: check a captured session offline.
//!
//! Reads the capture file, hands the text to `mcpcheck_core::invariants`, prints the
//! rendered report. Exit codes: 0 every invariant holds and no hazard was found,
//! 1 something does not hold, 2 the capture could not be read or is not a capture
//! (diagnostics on stderr, each with the file and a JSON pointer).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use mcpcheck_core::findings::Family;
use mcpcheck_core::invariants;
use serde_json::json;

use crate::error::{Error, Result};
use crate::output::out;
use crate::verdict::{FindingsArgs, FindingsFormat, finish};

/// Subcommands of `mcpcheck compliance`, the spelling mcptest users know.
#[derive(Debug, Subcommand)]
pub enum ComplianceCommand {
    /// Check the conformance invariants of a captured session (same as `mcpcheck invariants`).
    Invariants(InvariantsArgs),
}

/// Options of `mcpcheck invariants` (and `mcpcheck compliance invariants`).
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Exit status: 0 every invariant holds and no composition hazard is found; \
1 a finding or hazard; 2 the capture cannot be read or is not a capture.\n\n\
The capture format: ",
    crate::help::doc_url!("capture"),
    "\n",
    crate::help::rules_lines!("invariants", "INV-001", "their categories and sources")
))]
pub struct InvariantsArgs {
    /// The capture to check: a session object or an array of them (the
    /// format is linked below).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    capture: Option<PathBuf>,

    /// List the invariants and composition hazards that are checked, and exit.
    #[arg(long, conflicts_with = "capture")]
    list: bool,

    /// Output format (--list: text or json).
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    format: FindingsFormat,

    #[command(flatten)]
    findings: FindingsArgs,
}

/// Runs the command.
pub fn main(args: &InvariantsArgs) -> Result<ExitCode> {
    if args.list {
        out(&list(args.format)?);
        return Ok(ExitCode::SUCCESS);
    }
    args.findings.selection()?;
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
    let shown = crate::files::display(path);
    let mut findings = invariants::report(&report, &exercised, &shown);
    findings.artifact = Some(shown);
    finish(findings, args.format, &args.findings, &[Family::Invariants])
}

/// `--list`: every invariant with its category, property and source, and the
/// composition hazards, from the rule registry (`mcpcheck rules --family
/// invariants` lists them with how to fix each).
fn list(format: FindingsFormat) -> Result<String> {
    let rules = invariants::rules();
    match format {
        FindingsFormat::Text => {
            let mut out = String::new();
            for r in rules {
                out.push_str(&format!("{}  {:<15} {}\n", r.code, r.category, r.title));
                out.push_str(&format!("{:24}{}\n", "", r.source));
            }
            out.push_str("\ncomposition hazards (captures of several sessions):\n");
            for h in invariants::HAZARDS {
                let info = h.info();
                out.push_str(&format!("{}  {}\n", info.kind, info.property));
                out.push_str(&format!("{:24}{}\n", "", info.citation));
            }
            Ok(out)
        }
        FindingsFormat::Json => {
            let doc = json!({
                "version": 1,
                "rules": rules.map(|r| json!({
                    "id": r.code, "category": r.category, "property": r.title,
                    "citation": r.source, "fix": r.fix,
                })).collect::<Vec<_>>(),
                "hazards": invariants::HAZARDS.iter().map(|h| {
                    let info = h.info();
                    json!({"kind": info.kind, "property": info.property,
                           "citation": info.citation, "code": h.rule().code})
                }).collect::<Vec<_>>(),
            });
            Ok(format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            ))
        }
        other => Err(Error::Usage(format!(
            "--list prints text or json, not {}; `mcpcheck rules --family invariants --format {}` lists the rules in any format",
            other.format().as_str(),
            other.format().as_str()
        ))),
    }
}
