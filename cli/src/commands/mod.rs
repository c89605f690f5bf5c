//! One file per subcommand: its flags and a thin `main` over core and the
//! services (`client`, `run`, `serve`, `reports`). Each returns its verdict
//! or an [`Error`](crate::error::Error).

use std::process::ExitCode;

use clap::Subcommand;

use crate::error::Result;

pub mod audit;
pub mod check;
pub mod conformance;
pub mod contract;
pub mod coverage;
pub mod doctor;
pub mod fuzz;
pub mod generate;
pub mod http_probe;
pub mod init;
pub mod intercept;
pub mod invariants;
pub mod lint;
pub mod load;
pub mod lock;
pub mod matrix;
pub mod mcp;
pub mod replay;
pub mod report;
pub mod rules;
pub mod run;
pub mod scan;
pub mod serve;
pub mod show_report;
pub mod snapshot;
pub mod validate;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One report on a server: lint, scan, audit, conformance (each era),
    /// the HTTP probes for a URL, the lock check and fuzzing when asked.
    Doctor(doctor::DoctorArgs),
    /// Explain a rule: what it catches, why, its source, an example, the fix.
    Rule(rules::RuleArgs),
    /// List the rules of every analysis (or one family).
    Rules(rules::RulesArgs),
    /// Serve mcpcheck's checks to an agent over MCP (stdio, or Streamable
    /// HTTP with --http): doctor, run_suite, the check, lint and scan tools,
    /// every rule as a resource.
    Mcp(mcp::McpArgs),
    /// Run the built-in reference MCP server (stdio, Streamable HTTP, legacy SSE).
    Serve(serve::ServeArgs),
    #[command(after_help = concat!(
        crate::help::docs_line!("suites"),
        "\nReports, baselines and CI: ",
        crate::help::doc_url!("reports"),
        "\nSnapshots (--snapshots, --update-snapshots): ",
        crate::help::doc_url!("snapshot"),
        "\nShards (--shard): ",
        crate::help::doc_url!("shard"),
        "\nCaptures (--capture): ",
        crate::help::doc_url!("capture")
    ))]
    Run(run::RunArgs),
    #[command(after_help = concat!(
        crate::help::docs_line!("reports"),
        "\nSuites: ",
        crate::help::doc_url!("suites")
    ))]
    Ci(run::CiArgs),
    Check(check::CheckArgs),
    Validate(validate::ValidateArgs),
    Report(report::ReportArgs),
    /// Check the conformance invariants of a captured session, offline.
    Invariants(invariants::InvariantsArgs),
    Conformance(conformance::ConformanceArgs),
    Coverage(coverage::CoverageArgs),
    Generate(generate::GenerateArgs),
    Init(init::InitArgs),
    Audit(audit::AuditArgs),
    Fuzz(fuzz::FuzzArgs),
    Lint(lint::LintArgs),
    Lock(lock::LockArgs),
    /// Consumer contracts: record what a client uses of a server, verify a
    /// server against it.
    Contract(contract::ContractArgs),
    Load(load::LoadArgs),
    Scan(scan::ScanArgs),
    Probe(http_probe::ProbeArgs),
    Snapshot(snapshot::SnapshotArgs),
    Matrix(matrix::MatrixArgs),
    Replay(replay::ReplayArgs),
    Intercept(intercept::InterceptArgs),
    /// Serve an HTML report (written with --html DIR) on 127.0.0.1 and print its URL.
    ShowReport(show_report::ShowReportArgs),
    /// mcptest-compatible spelling: `mcpcheck compliance invariants ...`.
    #[command(subcommand)]
    Compliance(invariants::ComplianceCommand),
}

impl Command {
    /// The subcommand's name, for error messages.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Doctor(_) => "doctor",
            Self::Rule(_) => "rule",
            Self::Rules(_) => "rules",
            Self::Mcp(_) => "mcp",
            Self::Serve(_) => "serve",
            Self::Run(_) => "run",
            Self::Ci(_) => "ci",
            Self::Check(_) => "check",
            Self::Validate(_) => "validate",
            Self::Report(_) => "report",
            Self::Invariants(_) => "invariants",
            Self::Conformance(_) => "conformance",
            Self::Coverage(_) => "coverage",
            Self::Generate(_) => "generate",
            Self::Init(_) => "init",
            Self::Audit(_) => "audit",
            Self::Fuzz(_) => "fuzz",
            Self::Lint(_) => "lint",
            Self::Lock(_) => "lock",
            Self::Contract(_) => "contract",
            Self::Load(_) => "load",
            Self::Scan(_) => "scan",
            Self::Probe(_) => "probe",
            Self::Snapshot(_) => "snapshot",
            Self::Matrix(_) => "matrix",
            Self::Replay(_) => "replay",
            Self::Intercept(_) => "intercept",
            Self::ShowReport(_) => "show-report",
            Self::Compliance(_) => "compliance invariants",
        }
    }

    /// Runs it.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            Self::Doctor(args) => doctor::main(&args),
            Self::Rule(args) => rules::rule_main(&args),
            Self::Rules(args) => rules::rules_main(&args),
            Self::Mcp(args) => mcp::main(&args),
            Self::Serve(args) => serve::main(args),
            Self::Run(args) => run::main(&args),
            Self::Ci(args) => run::ci_main(&args),
            Self::Check(args) => check::main(&args),
            Self::Validate(args) => validate::main(&args),
            Self::Report(args) => report::main(&args),
            Self::Conformance(args) => conformance::main(&args),
            Self::Coverage(args) => coverage::main(args),
            Self::Generate(args) => generate::main(&args),
            Self::Init(args) => init::main(&args),
            Self::Audit(args) => audit::main(&args),
            Self::Fuzz(args) => fuzz::main(&args),
            Self::Lint(args) => lint::main(&args),
            Self::Lock(args) => lock::main(&args),
            Self::Contract(args) => contract::main(&args),
            Self::Load(args) => load::main(&args),
            Self::Scan(args) => scan::main(&args),
            Self::Probe(args) => http_probe::main(&args),
            Self::Snapshot(args) => snapshot::main(&args),
            Self::Matrix(args) => matrix::main(&args),
            Self::Replay(args) => replay::main(&args),
            Self::Intercept(args) => intercept::main(&args),
            Self::ShowReport(args) => show_report::main(&args),
            Self::Invariants(args)
            | Self::Compliance(invariants::ComplianceCommand::Invariants(args)) => {
                invariants::main(&args)
            }
        }
    }
}
