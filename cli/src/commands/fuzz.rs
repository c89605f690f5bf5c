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

use crate::error::{Error, Result, verdict};
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

    /// Fuzz sequences of calls instead of single calls: links inferred from
    /// outputs to later inputs, oracles (read after delete, list after
    /// create, get after update, a repeated read, errors for missing keys),
    /// each sequence on a fresh server. Sequences that write need
    /// --allow-writes (and --fixture DIR for a stdio server).
    #[arg(long)]
    pub(crate) stateful: bool,

    /// With --stateful: how many sequences to run.
    #[arg(long, value_name = "N", default_value_t = 30, requires = "stateful")]
    pub(crate) sequences: usize,
    #[command(flatten)]
    pub(crate) progress: crate::progress::ProgressArgs,
}

pub fn main(args: &FuzzArgs) -> Result<ExitCode> {
    if args.stateful {
        return main_stateful(args);
    }
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

/// Why fuzzing could not go on; said after the server's label.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FuzzError {
    /// The server could not be reached, listed or started again.
    #[error(transparent)]
    Probe(#[from] crate::probe::ProberError),
    /// `--tool` names (as given) the server does not list.
    #[error("--tool {0:?}: the server lists no such tool")]
    UnknownTools(Vec<String>),
    /// A tool a sequence calls is gone from a fresh server's listing.
    #[error("the server no longer lists `{0}`")]
    Unlisted(String),
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
) -> std::result::Result<(FuzzReport, Vec<Kept>), FuzzError> {
    progress.start("listing what the server offers");
    let listings = prober.list().await;
    progress.finish_item(
        "listing what the server offers",
        if listings.is_ok() { "listed" } else { "failed" },
    );
    let listings = listings?;
    progress.suspend(|| listings.print_notes("fuzz", &prober.label()));
    let unknown: Vec<String> = args
        .tools
        .iter()
        .filter(|t| !listings.tools.iter().any(|l| l["name"] == t.as_str()))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(FuzzError::UnknownTools(unknown));
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

/// `fuzz --stateful`: sequences of calls, each on a fresh server, judged by
/// core's oracles; a broken one shrunk to its shortest form and, with
/// `--output DIR`, written as a composed regression test.
fn main_stateful(args: &FuzzArgs) -> Result<ExitCode> {
    let writes = args.probe.include_writes;
    if writes && args.probe.target.server.is_some() && args.probe.fixture.is_none() {
        return Err(Error::Usage(
            "--stateful --allow-writes runs sequences that create, change and delete: give --fixture DIR, so each sequence runs on a fresh copy of it and on a fresh server (an empty directory will do for a server that keeps its state in memory), or leave --allow-writes out to run the read-only sequences"
                .into(),
        ));
    }
    if !args.tools.is_empty() {
        return Err(Error::Usage(
            "--tool chooses tools for single-call fuzzing; --stateful builds its sequences from every tool the server lists".into(),
        ));
    }
    let server = server_of(&args.probe.target.endpoint()?)?;
    let mut prober = Prober::new(&args.probe, FUZZ_TIMEOUT)?;
    let runtime = crate::error::runtime()?;
    let options = StatefulOptions {
        seed: args.seed,
        sequences: args.sequences,
        allow_writes: writes,
        shrink: !args.no_shrink,
    };
    let summary = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let summary = stateful(&mut prober, &options).await;
        prober.close().await;
        summary
    });
    let summary = match summary {
        Ok(s) => s,
        Err(e) => {
            err(&format!("mcpcheck fuzz: {}: {e}\n", prober.label()));
            return Ok(verdict(false));
        }
    };
    if writes && !prober.has_fixture() && args.probe.target.url.is_some() {
        err(&format!(
            "mcpcheck fuzz: sequences that write went to {} itself: a server reached by URL has no fixture copy\n",
            prober.label()
        ));
    }
    let report = probe::stateful_report::stateful_report(
        &summary,
        &prober.label(),
        prober.transport().as_str(),
    );
    let code = finish(
        report,
        args.probe.format,
        &args.probe.findings,
        &[Family::Fuzz],
    )?;
    if let Some(dir) = &args.output {
        let timeout = crate::output::duration_text(args.probe.timeout.unwrap_or(FUZZ_TIMEOUT));
        let mut files = Vec::new();
        let mut said = format!(
            "mcpcheck fuzz: {} broken\n",
            mcpcheck_core::report::plural(summary.broken.len(), "sequence", "sequences")
        );
        for b in &summary.broken {
            match probe::stateful_report::stateful_regression(&server, b, &timeout) {
                Ok(file) => {
                    said.push_str(&format!(
                        "  wrote {}: {} ({})\n",
                        file.name,
                        b.violation.rule.code,
                        b.sequence.summary()
                    ));
                    files.push(file);
                }
                Err(why) => said.push_str(&format!(
                    "  not written: {} ({}): {}\n",
                    b.violation.rule.code,
                    b.sequence.summary(),
                    why.0
                )),
            }
        }
        crate::probe::write_files(dir, &files, args.force)?;
        err(&said);
    }
    Ok(code)
}

/// What a stateful run is asked to do.
pub(crate) struct StatefulOptions {
    pub seed: u64,
    pub sequences: usize,
    pub allow_writes: bool,
    pub shrink: bool,
}

/// How many "could not judge" reasons are kept for the report.
const INCONCLUSIVE_SHOWN: usize = 5;

/// The most calls spent shrinking one broken sequence.
const SHRINK_SEQUENCE_CALLS: usize = 60;

/// Runs core's sequences for the server's tools, each on a fresh server.
pub(crate) async fn stateful(
    prober: &mut Prober,
    options: &StatefulOptions,
) -> std::result::Result<probe::stateful_report::StatefulSummary, FuzzError> {
    use probe::stateful::{self, Source};
    use probe::stateful_report::{Broken, StatefulSummary};
    let listings = prober.list().await?;
    listings.print_notes("fuzz", &prober.label());
    let plan = stateful::sequences(
        &listings.tools,
        options.seed,
        options.sequences,
        options.allow_writes,
    );
    let mut summary = StatefulSummary {
        seed: options.seed,
        skipped_writes: plan.skipped_writes,
        links: plan
            .model
            .links
            .iter()
            .map(|l| {
                let from = match &l.source {
                    Source::Output(f) => format!("answer.{f}"),
                    Source::Input(p) => format!("arguments.{p}"),
                };
                format!("{}.{from} → {}.{}", l.producer, l.consumer, l.prop)
            })
            .collect(),
        ..StatefulSummary::default()
    };
    let tools = &listings.tools;
    for seq in &plan.sequences {
        summary.sequences += 1;
        let (verdict, sent, answers) = run_sequence(prober, tools, seq).await?;
        match verdict {
            Ok(None) => summary.held += 1,
            Err(why) => {
                summary.inconclusive_count += 1;
                if summary.inconclusive.len() < INCONCLUSIVE_SHOWN {
                    summary.inconclusive.push(format!(
                        "sequence {} ({}): {}",
                        seq.number,
                        seq.summary(),
                        why.0
                    ));
                }
            }
            Ok(Some(violation)) => {
                let judged = seq.steps.get(violation.step).map(|s| s.tool.clone());
                let known = summary.broken.iter().any(|b| {
                    b.violation.rule.code == violation.rule.code
                        && b.sequence.oracle.as_str() == seq.oracle.as_str()
                        && b.sequence.steps.get(b.violation.step).map(|s| &s.tool)
                            == judged.as_ref()
                });
                if known {
                    continue;
                }
                let mut current = (seq.clone(), violation, sent, answers);
                if options.shrink {
                    current = shrink_sequence(prober, tools, current).await?;
                }
                let (sequence, violation, sent, answers) = current;
                // Once more on a fresh server: do the same keys come back?
                let (again, sent_again, _) = run_sequence(prober, tools, &sequence).await?;
                let stable = matches!(&again, Ok(Some(v)) if v.rule.code == violation.rule.code)
                    && sent_again == sent;
                summary.broken.push(Broken {
                    original_steps: seq.steps.len(),
                    sequence,
                    sent,
                    answers,
                    violation,
                    stable,
                });
            }
        }
    }
    Ok(summary)
}

type SequenceOutcome = (
    std::result::Result<Option<probe::stateful::Violation>, probe::stateful::Inconclusive>,
    Vec<Value>,
    Vec<probe::stateful::StepAnswer>,
);

/// One sequence on a fresh server.
async fn run_sequence(
    prober: &mut Prober,
    tools: &[Value],
    seq: &probe::stateful::Sequence,
) -> std::result::Result<SequenceOutcome, FuzzError> {
    use probe::stateful::{Next, SequenceRun, StepAnswer};
    prober.fresh().await?;
    let mut run = SequenceRun::new(seq);
    while let Next::Call { tool, arguments } = run.next_call() {
        let Some(listed) = tools.iter().find(|t| t["name"] == tool.as_str()) else {
            return Err(FuzzError::Unlisted(tool));
        };
        let arguments = Arguments::Value(arguments);
        let valid = probe::input_valid(listed.get("inputSchema").unwrap_or(&json!({})), &arguments);
        let (observed, wait) = prober
            .call_tool(listed, tool_params(&tool, &arguments))
            .await;
        let negotiated = prober.negotiated();
        let cx = ClassifyCx {
            output_schema: listed.get("outputSchema"),
            protocol_version: negotiated.as_deref(),
            input_valid: valid,
            timeout_ms: Some(wait.idle_ms),
            ..ClassifyCx::new(Request::ToolsCall)
        };
        let outcome = probe::classify(&observed, &cx);
        run.record(StepAnswer {
            status: outcome.status,
            response: observed.response,
            detail: outcome.detail,
        });
    }
    let verdict = run.verdict();
    Ok((verdict, run.sent, run.answers))
}

/// The shortest form of a broken sequence: one call the oracle does not
/// need left out at a time (core's order), kept when the sequence still
/// breaks the same rule on a fresh server, within a call budget.
async fn shrink_sequence(
    prober: &mut Prober,
    tools: &[Value],
    found: (
        probe::stateful::Sequence,
        probe::stateful::Violation,
        Vec<Value>,
        Vec<probe::stateful::StepAnswer>,
    ),
) -> std::result::Result<
    (
        probe::stateful::Sequence,
        probe::stateful::Violation,
        Vec<Value>,
        Vec<probe::stateful::StepAnswer>,
    ),
    FuzzError,
> {
    let mut current = found;
    let mut calls = 0usize;
    'smaller: loop {
        for candidate in probe::stateful::shrink_sequence(&current.0) {
            if calls + candidate.steps.len() > SHRINK_SEQUENCE_CALLS {
                break 'smaller;
            }
            calls += candidate.steps.len();
            let (verdict, sent, answers) = run_sequence(prober, tools, &candidate).await?;
            if let Ok(Some(v)) = verdict
                && v.rule.code == current.1.rule.code
            {
                current = (candidate, v, sent, answers);
                continue 'smaller;
            }
        }
        break;
    }
    Ok(current)
}
