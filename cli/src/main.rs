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
mod config;
mod error;
mod extensions;
mod files;
mod help;
mod html;
mod intercept;
mod mcp;
mod output;
mod probe;
mod proctree;
mod progress;
mod replay;
mod reports;
mod run;
mod serve;
mod signals;
mod target;
mod verdict;

use commands::Command;
use error::Result;

/// Deterministic tests for MCP servers.
#[derive(Debug, Parser)]
#[command(
    name = "mcpcheck",
    version,
    about,
    long_about = None,
    after_help = "Start with `mcpcheck doctor --server CMD` (or --url URL): one report of \
everything that needs no test file. Documentation: https://github.com/mcpcheck/mcpcheck/tree/main/docs"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,

    /// The mcpcheck.toml to use (default: the first one found walking up
    /// from the working directory).
    #[arg(long, global = true, value_name = "FILE", conflicts_with = "no_config")]
    config_file: Option<std::path::PathBuf>,

    /// Use no mcpcheck.toml, even when one is found.
    #[arg(long, global = true)]
    no_config: bool,
}

fn main() -> ExitCode {
    let argv = match config::prepare(std::env::args_os().collect()) {
        Ok(argv) => argv,
        Err(e) => {
            output::err(&e.report("config"));
            return ExitCode::from(2);
        }
    };
    let cli = Cli::parse_from(argv);
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
