//! `mcpcheck`: the command-line front end. Every kind of I/O lives here; every
//! verdict is decided by `mcpcheck-core`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod serve;

/// Deterministic tests for MCP servers.
#[derive(Debug, Parser)]
#[command(name = "mcpcheck", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the built-in reference MCP server (stdio, Streamable HTTP, legacy SSE).
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::main(args),
    }
}
