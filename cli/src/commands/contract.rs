//! `mcpcheck contract`: consumer contracts. `record` turns captures and
//! intercept traces into a contract file (what a consumer used: tools,
//! arguments, result fields, with their types); `verify` checks a server
//! against one or several contracts and names each broken expectation. The
//! contract, its checks and its rules are `mcpcheck_core::contract`'s.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use mcpcheck_core::contract::{self, Contract, Recorder};
use mcpcheck_core::findings::{Family, Report};
use mcpcheck_core::probe::{self, Arguments};
use serde_json::{Value, json};

use crate::error::{Error, Result, verdict};
use crate::files::{display, read_text};
use crate::output::err;
use crate::probe::{ProbeArgs, Prober, tool_params};
use crate::verdict::finish;

/// Record what a consumer uses of a server, and check a server against it.
#[derive(Debug, Args)]
#[command(after_help = crate::help::docs_line!("contract"))]
pub struct ContractArgs {
    #[command(subcommand)]
    command: ContractCommand,
}

// Parsed once per run: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum ContractCommand {
    /// Turn captures or intercept traces into a contract file: the tools,
    /// arguments and result fields a consumer used, with their types.
    Record(RecordArgs),
    /// Check a server against one or several contracts and name each broken
    /// expectation (K codes).
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Exit status: 0 written; 2 a capture or trace that cannot be read, or one that records nothing.\n\n",
    crate::help::docs_line!("contract")
))]
struct RecordArgs {
    /// A capture (`run --capture`, `intercept --capture`); repeatable.
    #[arg(long = "capture", value_name = "FILE")]
    captures: Vec<PathBuf>,

    /// An intercept trace (JSONL, one `{"tool", "args"}` per call): tools and
    /// arguments, no answers; repeatable.
    #[arg(long = "trace", value_name = "FILE")]
    traces: Vec<PathBuf>,

    /// Who relies on it (default: --output's name without its extensions,
    /// else `consumer`).
    #[arg(long, value_name = "NAME")]
    consumer: Option<String>,

    /// Where to write the contract (default: stdout); an existing file is
    /// replaced.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "A server is listed once and each contract judged against the listing (K101-K104); then the \
consumer's first recorded call of each tool whose answers it read and whose listing cannot say \
(no outputSchema) is sent again and its answer judged (K104, K105), unless --no-replay. A tool \
that may write is not called without --include-writes (K301 notes what stayed unchecked).\n\n\
Exit status: 0 no contract is broken; 1 one is, or the server could not be reached; 2 a usage \
error (a contract that cannot be read).\n\n",
    crate::help::rules_lines!("contract", "K104", "what each names")
))]
struct VerifyArgs {
    #[command(flatten)]
    probe: ProbeArgs,

    /// A contract file (`contract record`); repeatable.
    #[arg(long = "contract", value_name = "FILE", required = true)]
    contracts: Vec<PathBuf>,

    /// Judge the listing only: send no recorded call again.
    #[arg(long)]
    no_replay: bool,
}

pub fn main(args: &ContractArgs) -> Result<ExitCode> {
    match &args.command {
        ContractCommand::Record(a) => record(a),
        ContractCommand::Verify(a) => verify(a),
    }
}

fn record(args: &RecordArgs) -> Result<ExitCode> {
    if args.captures.is_empty() && args.traces.is_empty() {
        return Err(Error::Usage(
            "give --capture FILE or --trace FILE (repeatable): what the consumer's session recorded"
                .into(),
        ));
    }
    let consumer = args.consumer.clone().unwrap_or_else(|| {
        args.output
            .as_deref()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str())
            .and_then(|n| n.split('.').next())
            .filter(|n| !n.is_empty())
            .unwrap_or("consumer")
            .to_string()
    });
    let mut recorder = Recorder::new(&consumer);
    for path in &args.captures {
        let name = display(path);
        let text = read_text(path)?;
        recorder
            .capture(&name, &text)
            .map_err(|e| Error::Usage(format!("{name}: not a capture: {e}")))?;
    }
    for path in &args.traces {
        let name = display(path);
        let text = read_text(path)?;
        recorder
            .trace(&name, &text)
            .map_err(|e| Error::Usage(format!("{name}: {e}")))?;
    }
    let contract = recorder.finish();
    if contract.is_empty() {
        return Err(Error::Usage(format!(
            "{} recorded no tools/call, prompts/get or resources/read: a contract of nothing checks nothing",
            contract.sources.join(", ")
        )));
    }
    let text = contract.to_json();
    match &args.output {
        Some(path) => {
            std::fs::write(path, &text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            err(&format!(
                "mcpcheck contract: recorded {}, {} and {} used by `{consumer}` in {}\n",
                mcpcheck_core::report::plural(contract.tools.len(), "tool", "tools"),
                mcpcheck_core::report::plural(contract.prompts.len(), "prompt", "prompts"),
                mcpcheck_core::report::plural(contract.resources.len(), "resource", "resources"),
                path.display()
            ));
        }
        None => crate::output::out(&text),
    }
    Ok(verdict(true))
}

/// Reads contract files; a file that cannot be read is a usage error naming
/// it, its line and its column.
pub(crate) fn read_contracts(paths: &[PathBuf]) -> Result<Vec<(String, Contract)>> {
    paths
        .iter()
        .map(|path| {
            let name = display(path);
            let text = read_text(path)?;
            Contract::from_json(&text)
                .map(|c| (name.clone(), c))
                .map_err(|e| Error::Usage(format!("{name}:{e}")))
        })
        .collect()
}

/// The findings of `contracts` against a listing (`{"tools", "prompts",
/// "resources", "resourceTemplates"}`) of the server `label`, each located
/// at its contract file.
pub(crate) fn surface_findings(
    label: &str,
    contracts: &[(String, Contract)],
    listing: &Value,
) -> Vec<mcpcheck_core::findings::Finding> {
    let mut out = Vec::new();
    for (file, c) in contracts {
        for mut f in contract::check_surface(label, c, listing) {
            f.location.file = Some(file.clone());
            out.push(f);
        }
    }
    out
}

fn verify(args: &VerifyArgs) -> Result<ExitCode> {
    args.probe.findings.selection()?;
    let contracts = read_contracts(&args.contracts)?;
    let mut prober = Prober::new(&args.probe, std::time::Duration::from_secs(30))?;
    let label = prober.label();
    let runtime = crate::error::runtime()?;
    let found = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let found = judge(&mut prober, &contracts, args).await;
        prober.close().await;
        found
    });
    let findings = match found {
        Ok(f) => f,
        Err(e) => {
            err(&format!("mcpcheck contract: {label}: {e}\n"));
            return Ok(verdict(false));
        }
    };
    let mut report = Report::new("contract", label);
    report.facts.push((
        String::new(),
        mcpcheck_core::report::plural(contracts.len(), "contract", "contracts"),
    ));
    report.artifact = contracts.first().map(|(f, _)| f.clone());
    report.findings = findings;
    let consumers: Vec<&str> = contracts.iter().map(|(_, c)| c.consumer.as_str()).collect();
    report.set_extra("consumers", json!(consumers));
    finish(
        report,
        args.probe.format,
        &args.probe.findings,
        &[Family::Contract],
    )
}

async fn judge(
    prober: &mut Prober,
    contracts: &[(String, Contract)],
    args: &VerifyArgs,
) -> std::result::Result<Vec<mcpcheck_core::findings::Finding>, crate::probe::ProberError> {
    let listings = prober.list().await?;
    listings.print_notes("contract", &prober.label());
    let label = prober.label();
    let listing = json!({"tools": listings.tools, "prompts": listings.prompts,
        "resources": listings.resources, "resourceTemplates": listings.templates});
    let mut findings = surface_findings(&label, contracts, &listing);
    let risks = probe::WriteRisks::new(&listings.tools);
    for (file, c) in contracts {
        for tool in contract::unverified(c, &listing) {
            let listed = listings.tools.iter().find(|t| t["name"] == tool);
            let mut found = Vec::new();
            let write_risk = listed.and_then(|t| risks.of(t));
            match (args.no_replay, write_risk) {
                (true, _) => found.push(contract::not_verified(
                    &label,
                    c,
                    tool,
                    "it declares no outputSchema, and --no-replay sends no call",
                )),
                (false, Some(why)) if !args.probe.include_writes => {
                    found.push(contract::not_verified(
                        &label,
                        c,
                        tool,
                        &format!("it declares no outputSchema, and it may write ({why}): --include-writes replays it"),
                    ));
                }
                _ => {
                    let Some(listed) = listed else { continue };
                    let arguments =
                        Arguments::Value(Value::Object(contract::replay_arguments(c, tool)));
                    let (observed, _) = prober
                        .call_tool(listed, tool_params(tool, &arguments))
                        .await;
                    let response = observed.response.clone().unwrap_or_else(|| {
                        let why = observed
                            .exited
                            .clone()
                            .or_else(|| observed.timed_out.then(|| "no answer in time".to_string()))
                            .unwrap_or_else(|| "no answer".to_string());
                        json!({"error": {"code": null, "message": why}})
                    });
                    found.extend(contract::check_answer(&label, c, tool, &response));
                }
            }
            for mut f in found {
                f.location.file = Some(file.clone());
                findings.push(f);
            }
        }
    }
    Ok(findings)
}
