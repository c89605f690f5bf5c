//! `mcpcheck audit`: zero configuration. List what a server offers, call
//! each tool once with schema-valid arguments, get each prompt, read each
//! resource, get each skill and read each app view its tools name (the
//! extensions, `crate::extensions::audit_calls`), and classify every
//! answer (`mcpcheck_core::probe`). A crashed
//! or hung server is started again, so one bad tool never hides the rest.

use std::process::ExitCode;

use clap::Args;
use mcpcheck_core::findings::{Family, Finding, Note};
use mcpcheck_core::probe::{
    self, Arguments, AuditReport, AuditResult, ClassifyCx, ItemKind, Request,
};
use mcpcheck_core::scan;
use serde_json::{Value, json};

use crate::client::listing::Listings;
use crate::error::{Result, verdict};
use crate::output::err;
use crate::probe::{ProbeArgs, Prober, tool_params};
use crate::verdict::finish;

/// How long one call may take, unless --timeout says otherwise.
const AUDIT_TIMEOUT: std::time::Duration =
    std::time::Duration::from_millis(probe::DEFAULT_CALL_TIMEOUT_MS);

/// The most prompts and the most resources that are fetched.
const MAX_ITEMS: usize = 50;

/// Call every tool once with valid arguments, get every prompt, read every
/// resource, and report what is broken.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Statuses: healthy, tool_error (isError: true — a fine answer), \
protocol_error (a JSON-RPC error where a result or a tool error belongs, e.g. -32603), \
non_json_output, crash, timeout, schema_mismatch (structuredContent against outputSchema), \
invalid_result (a result of the wrong shape), skipped (a tool that may write, without \
--include-writes). What the server answers (and its instructions) is also read by the \
scan's text rules: O codes, `--ignore output` turns them off.\n\nExit status: 0 nothing serious; 1 a crash, hang, flood, protocol error, \
non-JSON output, invalid result or schema mismatch, or the server could not be reached; 2 a \
usage error.\n\n",
    crate::help::docs_line!("probe")
))]
pub struct AuditArgs {
    #[command(flatten)]
    probe: ProbeArgs,

    /// Write a starter test (as `mcpcheck generate` does) for every tool,
    /// prompt and resource whose call was healthy, to DIR.
    #[arg(long, value_name = "DIR")]
    output: Option<std::path::PathBuf>,

    /// Overwrite files in --output.
    #[arg(long, requires = "output")]
    force: bool,

    #[command(flatten)]
    progress: crate::progress::ProgressArgs,
}

pub fn main(args: &AuditArgs) -> Result<ExitCode> {
    // A healthy tool may take a while with its default arguments (a long
    // operation): 30 s by default, longer for a tool that says so.
    let mut prober = Prober::new(&args.probe, AUDIT_TIMEOUT)?;
    let runtime = crate::error::runtime()?;
    let progress = crate::progress::Progress::new(
        crate::progress::Mode::of(args.progress.quiet),
        "mcpcheck audit: ",
        0,
    );
    let report = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let report = audit(&mut prober, args.probe.include_writes, &progress).await;
        prober.close().await;
        report
    });
    progress.finish();
    let (report, listings, answers) = match report {
        Ok(done) => done,
        Err(e) => {
            err(&format!(
                "mcpcheck audit: {}: cannot list what it offers: {e}\n",
                prober.label()
            ));
            return Ok(verdict(false));
        }
    };
    let mut findings = probe::audit_findings(&report);
    findings.findings.extend(answers);
    if prober.restarts > 0 {
        findings.notes.push(Note::info(format!(
            "the server was started again {} after a crash or a hang",
            mcpcheck_core::report::plural(prober.restarts, "time", "times")
        )));
    }
    let code = finish(
        findings,
        args.probe.format,
        &args.probe.findings,
        &[Family::Audit, Family::Output],
    )?;
    if let Some(dir) = &args.output {
        let server = crate::probe::server_of(&args.probe.target.endpoint()?)?;
        let plan = mcpcheck_core::generate::plan(
            &server,
            &report.healthy_items(ItemKind::Tool, &listings.tools),
            &report.healthy_items(ItemKind::Prompt, &listings.prompts),
            &report.healthy_items(ItemKind::Resource, &listings.resources),
            &crate::output::duration_text(prober.timeout()),
        );
        crate::probe::write_files(dir, &plan.files, args.force)?;
        err(&format!(
            "mcpcheck audit: wrote {} for the healthy calls to {}\n",
            mcpcheck_core::report::plural(plan.files.len(), "starter test", "starter tests"),
            dir.display()
        ));
    }
    Ok(code)
}

/// What the progress says of one call's result: its status and the first
/// line of the answer.
fn said(r: &AuditResult) -> String {
    match &r.answer {
        Some(a) if !a.is_empty() => {
            format!("{} · {}", r.status.as_str(), mcpcheck_core::truncate(a, 80))
        }
        _ => r.status.as_str().to_string(),
    }
}

/// Lists what the server offers and calls each item once (tools that may
/// write only with `include_writes`): the audit, and the listings. Each
/// call is an item of `progress`.
pub(crate) async fn audit(
    prober: &mut Prober,
    include_writes: bool,
    progress: &crate::progress::Progress,
) -> std::result::Result<(AuditReport, Listings, Vec<Finding>), crate::probe::ProberError> {
    progress.start("listing what the server offers");
    let listings = prober.list().await;
    progress.finish_item(
        "listing what the server offers",
        if listings.is_ok() { "listed" } else { "failed" },
    );
    let listings = listings?;
    progress.suspend(|| listings.print_notes("audit", &prober.label()));
    let label = prober.label();
    // What the server answers, judged by scan's text rules (O codes).
    let mut answers = Vec::new();
    if let Some(instructions) = prober.instructions() {
        answers.extend(scan::output::scan_instructions(&label, &instructions));
    }
    let mut judge = |what: scan::output::Answered<'_>, observed: &probe::Observed| {
        if let Some(result) = observed.response.as_ref().and_then(|r| r.get("result")) {
            answers.extend(scan::output::scan_result(&label, what, result));
        }
    };
    let timeout_ms = Some(prober.timeout_ms());
    let mut results: Vec<AuditResult> = Vec::new();
    let risks = probe::WriteRisks::new(&listings.tools);
    progress.restart(
        listings.tools.len()
            + listings.prompts.len().min(MAX_ITEMS)
            + listings.resources.len().min(MAX_ITEMS),
        "",
    );
    let report = |results: &[AuditResult], item: &str| {
        if let Some(r) = results.last() {
            progress.finish_item(item, &said(r));
        }
    };
    for tool in &listings.tools {
        let name = tool["name"].as_str().unwrap_or_default();
        let item = format!("tool {name}");
        progress.start(&item);
        if let Some(reason) = risks.of(tool).filter(|_| !include_writes) {
            results.push(AuditResult::skipped(
                ItemKind::Tool,
                name,
                &format!("{reason}; --include-writes calls it"),
            ));
            report(&results, &item);
            continue;
        }
        let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
        let arguments = match probe::arguments_within_bounds(&schema) {
            Ok(v) => Arguments::Value(v),
            Err(why) => {
                results.push(AuditResult::skipped(
                    ItemKind::Tool,
                    name,
                    &format!("no arguments within mcpcheck's bounds: {why}"),
                ));
                report(&results, &item);
                continue;
            }
        };
        let (observed, wait) = prober.call_tool(tool, tool_params(name, &arguments)).await;
        let negotiated = prober.negotiated();
        let cx = ClassifyCx {
            output_schema: tool.get("outputSchema"),
            protocol_version: negotiated.as_deref(),
            input_valid: probe::input_valid(&schema, &arguments),
            timeout_ms: Some(wait.idle_ms),
            ..ClassifyCx::new(Request::ToolsCall)
        };
        let outcome = probe::classify(&observed, &cx);
        judge(scan::output::Answered::Tool(name), &observed);
        results.push(AuditResult::from_call(
            ItemKind::Tool,
            name,
            &arguments,
            &outcome,
            &observed,
        ));
        report(&results, &item);
    }
    for prompt in listings.prompts.iter().take(MAX_ITEMS) {
        let name = prompt["name"].as_str().unwrap_or_default();
        let item = format!("prompt {name}");
        progress.start(&item);
        let arguments = Value::Object(mcpcheck_core::generate::prompt_arguments(prompt));
        let observed = prober
            .call(
                "prompts/get",
                json!({"name": name, "arguments": arguments.clone()}),
            )
            .await;
        let cx = ClassifyCx {
            timeout_ms,
            guessed: arguments.as_object().is_some_and(|a| !a.is_empty()),
            ..ClassifyCx::new(Request::PromptsGet)
        };
        let outcome = probe::classify(&observed, &cx);
        judge(scan::output::Answered::Prompt(name), &observed);
        results.push(AuditResult::from_call(
            ItemKind::Prompt,
            name,
            &Arguments::Value(arguments),
            &outcome,
            &observed,
        ));
        report(&results, &item);
    }
    for resource in listings.resources.iter().take(MAX_ITEMS) {
        let uri = resource["uri"].as_str().unwrap_or_default();
        let item = format!("resource {uri}");
        progress.start(&item);
        let observed = prober.call("resources/read", json!({"uri": uri})).await;
        let cx = ClassifyCx {
            timeout_ms,
            ..ClassifyCx::new(Request::ResourcesRead)
        };
        let outcome = probe::classify(&observed, &cx);
        judge(scan::output::Answered::Resource(uri), &observed);
        results.push(AuditResult::from_call(
            ItemKind::Resource,
            uri,
            &Arguments::Omitted,
            &outcome,
            &observed,
        ));
        report(&results, &item);
    }
    crate::extensions::audit_calls(prober, &listings, &mut results).await;
    Ok((
        AuditReport::new(&prober.label(), prober.transport(), results),
        listings,
        scan::output::dedupe(answers),
    ))
}
