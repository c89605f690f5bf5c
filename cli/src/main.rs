//! `mcpcheck`: the command-line front end. Every kind of I/O lives here; every
//! verdict is decided by `mcpcheck-core`.
//!
//! `commands/` has one thin file per subcommand: its flags, then a `main`
//! that reads inputs, calls core or a service below, and prints. The
//! services are `client/` (talking to servers), `run/` (running suites),
//! `serve/` (the reference server), and the report, capture and file
//! helpers. [`run`] is where an error becomes exit status 2, once.

use std::process::ExitCode;

use clap::Parser;

mod capture;
mod client;
mod commands;
mod error;
mod files;
mod help;
mod intercept;
mod output;
mod probe;
mod replay;
mod reports;
mod run;
mod serve;
mod signals;
mod target;

use commands::Command;
use error::Result;

/// Deterministic tests for MCP servers.
#[derive(Debug, Parser)]
#[command(name = "mcpcheck", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let name = cli.command.name();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            output::err(&e.report(name));
            ExitCode::from(2)
        }
    }
}

/// The command's verdict (0 or 1), or why it could not reach one.
fn run(cli: Cli) -> Result<ExitCode> {
    cli.command.run()
}
