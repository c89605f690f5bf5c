//! `mcpcheck`: the command-line front end. Every kind of I/O lives here; every
//! verdict is decided by `mcpcheck-core`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod capture;
mod check_cmd;
mod client;
mod conformance;
mod coverage;
mod files;
mod generate;
mod invariants;
mod output;
mod report_cmd;
mod reports;
mod run;
mod serve;
mod target;
mod validate;

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
    Run(run::RunArgs),
    Ci(run::CiArgs),
    Check(check_cmd::CheckArgs),
    Validate(validate::ValidateArgs),
    Report(report_cmd::ReportArgs),
    /// Check the conformance invariants of a captured session, offline.
    Invariants(invariants::InvariantsArgs),
    Conformance(conformance::ConformanceArgs),
    Coverage(coverage::CoverageArgs),
    Generate(generate::GenerateArgs),
    /// mcptest-compatible spelling: `mcpcheck compliance invariants ...`.
    #[command(subcommand)]
    Compliance(invariants::ComplianceCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::main(args),
        Command::Run(args) => run::main(args),
        Command::Ci(args) => run::ci_main(args),
        Command::Check(args) => check_cmd::main(args),
        Command::Validate(args) => validate::main(args),
        Command::Report(args) => report_cmd::main(args),
        Command::Conformance(args) => conformance::main(args),
        Command::Coverage(args) => coverage::main(args),
        Command::Generate(args) => generate::main(args),
        Command::Invariants(args)
        | Command::Compliance(invariants::ComplianceCommand::Invariants(args)) => {
            invariants::run(&args)
        }
    }
}
