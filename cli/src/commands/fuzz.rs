//! `mcpcheck fuzz`: adversarial inputs derived from each tool's schema
//! (`mcpcheck_core::probe::fuzz_cases`), the same ones in the same order for
//! the same seed. A serious failure is shrunk to a smallest input that still
//! fails the same way, and `--output DIR` writes it as a ready-to-run test.
//! A crashed or hung server is started again before the next case.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use mcpcheck_core::findings::Family;
use mcpcheck_core::generate::Server;
use mcpcheck_core::probe::{
    self, Arguments, Classification, ClassifyCx, Finding, FuzzCase, FuzzReport, FuzzToolReport,
    ItemKind, Request,
};
use serde_json::{Value, json};

use crate::error::{Result, verdict};
use crate::output::err;
use crate::probe::{ProbeArgs, Prober, server_of, tool_params};
use crate::verdict::finish;

/// How long one call may go without an answer, unless --timeout or the
/// tool itself says otherwise: audit's default.
const FUZZ_TIMEOUT: std::time::Duration =
    std::time::Duration::from_millis(probe::DEFAULT_CALL_TIMEOUT_MS);

/// The most calls spent shrinking one failure.
const SHRINK_CALLS: usize = 100;

/// Throw schema-derived adversarial inputs at every tool and report the
/// crashes, hangs and protocol errors, each shrunk to a smallest input.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("A server that rejects bad input with a proper error (a tool error, or \
-32602 for input its schema forbids) is healthy. Findings: crash, timeout, protocol_error \
(e.g. -32603), non_json_output, invalid_result, schema_mismatch; accepted_invalid (input the \
schema forbids answered as a success) is a warning. Same --seed, same inputs in the same \
order, same report.\n\nExit status: 0 nothing serious; 1 a serious finding, or the server \
could not be reached; 2 a usage error.\n\n",
    crate::help::docs_line!("probe")
))]
pub struct FuzzArgs {
    #[command(flatten)]
    pub(crate) probe: ProbeArgs,

    /// Cases per tool: the systematic ones first, then seeded random ones.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub(crate) runs: usize,

    /// The seed of the random cases.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub(crate) seed: u64,

    /// Fuzz only this tool (repeatable).
    #[arg(long = "tool", value_name = "NAME")]
    pub(crate) tools: Vec<String>,

    /// Write a regression test (our suite format) for every serious finding
    /// to DIR; an existing file is never overwritten without --force.
    #[arg(long, value_name = "DIR")]
    pub(crate) output: Option<PathBuf>,

    /// Overwrite files in --output.
    #[arg(long, requires = "output")]
    pub(crate) force: bool,

    /// Report failures as found, without shrinking them.
    #[arg(long)]
    pub(crate) no_shrink: bool,

    #[command(flatten)]
    pub(crate) progress: crate::progress::ProgressArgs,
}

pub fn main(args: &FuzzArgs) -> Result<ExitCode> {
    let server = server_of(&args.probe.target.endpoint()?)?;
    let mut prober = Prober::new(&args.probe, FUZZ_TIMEOUT)?;
    let runtime = crate::error::runtime()?;
    let progress = crate::progress::Progress::new(
        crate::progress::Mode::of(args.progress.quiet),
        "mcpcheck fuzz: ",
        0,
    );
    let report = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let report = fuzz(&mut prober, args, &progress).await;
        prober.close().await;
        report
    });
    progress.finish();
    let (report, findings) = match report {
        Ok(done) => done,
        Err(e) => {
            err(&format!("mcpcheck fuzz: {}: {e}\n", prober.label()));
            return Ok(verdict(false));
        }
    };
    let code = finish(
        probe::fuzz_findings(&report),
        args.probe.format,
        &args.probe.findings,
        &[Family::Fuzz],
    )?;
    if let Some(dir) = &args.output {
        write_regressions(dir, args.force, &server, &findings, &args.probe)?;
    }
    Ok(code)
}

/// A serious finding, kept to write its regression test.
pub(crate) struct Kept {
    tool: String,
    arguments: Arguments,
    outcome: Classification,
    label: String,
    category: probe::Category,
    schema_valid: bool,
    output_schema: Option<Value>,
    /// How long the tool's calls were waited for.
    wait_ms: u64,
}

/// What the progress says of a tool's fuzzing: how many inputs were sent,
/// how many were handled, or why it was skipped.
fn said(report: &FuzzToolReport) -> String {
    if let Some(why) = &report.skipped {
        return format!("skipped: {why}");
    }
    format!("{}/{} inputs handled", report.passed, report.runs)
}

/// Fuzz the server's tools; each tool is an item of `progress`, its cases
/// the item's detail.
pub(crate) async fn fuzz(
    prober: &mut Prober,
    args: &FuzzArgs,
    progress: &crate::progress::Progress,
) -> std::result::Result<(FuzzReport, Vec<Kept>), String> {
    progress.start("listing what the server offers");
    let listings = prober.list().await;
    progress.finish_item(
        "listing what the server offers",
        if listings.is_ok() { "listed" } else { "failed" },
    );
    let listings = listings?;
    progress.suspend(|| listings.print_notes("fuzz", &prober.label()));
    let unknown: Vec<&String> = args
        .tools
        .iter()
        .filter(|t| !listings.tools.iter().any(|l| l["name"] == t.as_str()))
        .collect();
    if !unknown.is_empty() {
        return Err(format!("--tool {unknown:?}: the server lists no such tool"));
    }
    let mut tools: Vec<FuzzToolReport> = Vec::new();
    let mut kept = Vec::new();
    let risks = probe::WriteRisks::new(&listings.tools);
    let chosen = |name: &str| args.tools.is_empty() || args.tools.iter().any(|t| t == name);
    progress.restart(
        listings
            .tools
            .iter()
            .filter(|t| chosen(t["name"].as_str().unwrap_or_default()))
            .count(),
        "",
    );
    let done = |tools: &[FuzzToolReport], name: &str| {
        if let Some(r) = tools.last() {
            progress.finish_item(name, &said(r));
        }
    };
    for tool in &listings.tools {
        let name = tool["name"].as_str().unwrap_or_default();
        if !chosen(name) {
            continue;
        }
        progress.start(name);
        if let Some(reason) = risks.of(tool).filter(|_| !args.probe.include_writes) {
            tools.push(FuzzToolReport::skipped(
                name,
                &format!("{reason}; --include-writes fuzzes it"),
            ));
            done(&tools, name);
            continue;
        }
        let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
        if let Err(why) = probe::arguments_within_bounds(&schema) {
            tools.push(FuzzToolReport::skipped(
                name,
                &format!("no valid arguments within mcpcheck's bounds: {why}"),
            ));
            done(&tools, name);
            continue;
        }
        let mut report = FuzzToolReport::new(name);
        // One case at a time: a tool of thousands of properties never has
        // all its cases in memory.
        for (i, case) in probe::fuzz_iter(tool, args.seed, args.runs).enumerate() {
            progress.detail(name, &format!("input {} of {}", i + 1, args.runs));
            let outcome = attempt(prober, tool, &case.arguments, Some(case.schema_valid)).await;
            if !outcome.status.is_serious() {
                report.record(&case, &outcome, None, None);
                continue;
            }
            let (shrunk, outcome) = if args.no_shrink {
                (None, outcome)
            } else {
                progress.detail(name, &format!("shrinking a {}", outcome.status.as_str()));
                shrink(prober, tool, &case, outcome).await
            };
            let arguments = shrunk.clone().unwrap_or_else(|| case.arguments.clone());
            kept.push(Kept {
                tool: name.to_string(),
                schema_valid: probe::input_valid(
                    tool.get("inputSchema").unwrap_or(&json!({})),
                    &arguments,
                )
                .unwrap_or(case.schema_valid),
                arguments,
                outcome: outcome.clone(),
                label: case.label.clone(),
                category: case.category,
                output_schema: tool.get("outputSchema").cloned(),
                wait_ms: probe::call_wait(tool, prober.timeout_ms()).idle_ms,
            });
            report.record(&case, &outcome, shrunk, None);
        }
        tools.push(report);
        done(&tools, name);
    }
    let report = FuzzReport::new(args.seed, &prober.label(), prober.transport(), tools);
    Ok((report, kept))
}

/// Send one input and classify the answer.
async fn attempt(
    prober: &mut Prober,
    tool: &Value,
    arguments: &Arguments,
    input_valid: Option<bool>,
) -> Classification {
    let name = tool["name"].as_str().unwrap_or_default();
    let (observed, wait) = prober.call_tool(tool, tool_params(name, arguments)).await;
    let negotiated = prober.negotiated();
    let cx = ClassifyCx {
        output_schema: tool.get("outputSchema"),
        protocol_version: negotiated.as_deref(),
        input_valid,
        // The limit, not the time measured: the report stays the same.
        timeout_ms: Some(wait.idle_ms),
        ..ClassifyCx::new(Request::ToolsCall)
    };
    probe::classify(&observed, &cx)
}

/// Smaller inputs that fail with the same status, tried in the core's
/// order; the first that does is kept and shrunk further, within
/// [`SHRINK_CALLS`] calls. Returns the smallest (if smaller) and its outcome.
async fn shrink(
    prober: &mut Prober,
    tool: &Value,
    case: &FuzzCase,
    outcome: Classification,
) -> (Option<Arguments>, Classification) {
    let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
    let mut current = case.arguments.clone();
    let mut kept = outcome;
    let mut calls = 0usize;
    'smaller: loop {
        let candidates: Vec<Arguments> = probe::shrink_iter(&current).collect();
        for candidate in candidates {
            if calls >= SHRINK_CALLS {
                break 'smaller;
            }
            calls += 1;
            let valid = probe::input_valid(&schema, &candidate);
            let again = attempt(prober, tool, &candidate, valid).await;
            if again.status == kept.status {
                current = candidate;
                kept = again;
                continue 'smaller;
            }
        }
        break;
    }
    let shrunk = (current != case.arguments).then_some(current);
    (shrunk, kept)
}

fn write_regressions(
    dir: &std::path::Path,
    force: bool,
    server: &Server,
    kept: &[Kept],
    probe_args: &ProbeArgs,
) -> Result<()> {
    let findings: Vec<Finding<'_>> = kept
        .iter()
        .map(|k| Finding {
            kind: ItemKind::Tool,
            item: &k.tool,
            arguments: &k.arguments,
            status: k.outcome.status,
            detail: &k.outcome.detail,
            label: &k.label,
            schema_valid: k.schema_valid,
            output_schema: k.output_schema.as_ref(),
            category: Some(k.category),
        })
        .collect();
    // The longest wait any of these tools got (a tool documented to take
    // long gets as long in its test).
    let base = probe_args.timeout.unwrap_or(FUZZ_TIMEOUT);
    let longest = kept
        .iter()
        .map(|k| std::time::Duration::from_millis(k.wait_ms))
        .fold(base, std::cmp::max);
    let written = probe::regressions(server, &findings, &crate::output::duration_text(longest));
    crate::probe::write_files(dir, &written.files, force)?;
    err(&regressions_said(dir, &written, findings.len()));
    Ok(())
}

/// What `--output` did, cause by cause: the file written, or why none is.
fn regressions_said(dir: &std::path::Path, r: &probe::Regressions, findings: usize) -> String {
    use mcpcheck_core::report::plural;
    let mut text = format!(
        "mcpcheck fuzz: {} in {}; wrote {} to {}\n",
        plural(r.causes.len(), "cause", "causes"),
        plural(findings, "serious finding", "serious findings"),
        plural(r.files.len(), "regression test", "regression tests"),
        dir.display()
    );
    for c in &r.causes {
        match &c.written {
            Ok(file) => text.push_str(&format!("  wrote {file}: {}\n", c.summary)),
            Err(why) => text.push_str(&format!("  not written: {}: {}\n", c.summary, why.0)),
        }
    }
    text
}
