//! `mcpcheck`: the command-line front end. Every kind of I/O lives here; every
//! verdict is decided by `mcpcheck-core`.

mod invariants;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Deterministic tests for MCP servers.
#[derive(Debug, Parser)]
#[command(name = "mcpcheck", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check the conformance invariants of a captured session, offline.
    Invariants(invariants::InvariantsArgs),
    /// mcptest-compatible spelling: `mcpcheck compliance invariants ...`.
    #[command(subcommand)]
    Compliance(invariants::ComplianceCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Invariants(args)
        | Command::Compliance(invariants::ComplianceCommand::Invariants(args)) => {
            invariants::run(&args)
        }
    }
}
