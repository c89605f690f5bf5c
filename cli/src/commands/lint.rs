//! `mcpcheck lint`: rules over what a server lists (`mcpcheck_core::lint`),
//! from a live server or from a saved listing, offline. With
//! `--call-tools`, each tool's answer is measured against the response
//! budget; with `--detect-nondeterminism`, the listing is taken twice.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::findings::Family;
use mcpcheck_core::lint::{self, Finding, LintOptions, Response};
use mcpcheck_core::probe::{self, Arguments};
use serde_json::{Value, json};

use crate::client::listing::{Listings, read_saved};
use crate::error::{Error, Result, verdict};
use crate::files::{display, read_text};
use crate::output::err;
use crate::probe::{ProbeArgs, Prober, tool_params};
use crate::target::{HttpTransport, TargetArgs};
use crate::verdict::{FindingsArgs, FindingsFormat, finish};

/// Check what a server lists (tools, prompts, resources, templates) against
/// rules that clients and models depend on.
#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("source").required(true).args(["server", "url", "listing"])),
    after_help = concat!("Exit status: 0 no errors (with --strict, no warnings either); 1 a \
finding that fails, or the server could not be reached; 2 a usage error (an unreadable listing, an \
unknown rule).\n\n",
    crate::help::rules_lines!("lint", "W601", "their codes and the attack or failure each catches")
))]
pub struct LintArgs {
    /// The server to start on stdio (split like a shell would).
    #[arg(long, value_name = "CMD")]
    server: Option<String>,

    /// The server's URL (Streamable HTTP, or legacy SSE with --transport sse).
    #[arg(long, value_name = "URL")]
    url: Option<String>,

    /// The HTTP transport for --url.
    #[arg(long, value_enum, default_value_t = HttpTransport::Http, requires = "url")]
    transport: HttpTransport,

    /// An HTTP header for --url, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "HEADER", requires = "url")]
    headers: Vec<String>,

    /// Lint a saved listing instead: a tools/list result, an object with
    /// tools, prompts, resources and resourceTemplates, or a JSON-RPC
    /// response wrapping one.
    #[arg(long, value_name = "FILE")]
    listing: Option<PathBuf>,

    /// Rules not to run, by code (comma-separated or repeated).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    skip_rules: Vec<String>,

    /// Warnings fail too.
    #[arg(long)]
    strict: bool,

    /// Call each tool once (valid arguments) and check its answer's size.
    #[arg(long, conflicts_with = "listing")]
    call_tools: bool,

    /// The response budget of --call-tools, in KiB.
    #[arg(
        long,
        value_name = "KIB",
        default_value_t = 100,
        requires = "call_tools"
    )]
    max_response_kb: usize,

    /// List twice in one session and report differences in order or content.
    #[arg(long, conflicts_with = "listing")]
    detect_nondeterminism: bool,

    /// With --call-tools, also call tools that may write.
    #[arg(long, requires = "call_tools")]
    include_writes: bool,

    /// Copy DIR and point the server at the copy (see `mcpcheck audit`).
    #[arg(long, value_name = "DIR", conflicts_with = "listing")]
    fixture: Option<PathBuf>,

    /// How long each request may take (a live server only).
    #[arg(long, value_name = "DURATION", default_value = "10s", conflicts_with = "listing", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    format: FindingsFormat,

    #[command(flatten)]
    findings: FindingsArgs,

    /// The protocol version to ask for at initialize (a live server only).
    #[arg(
        long,
        value_name = "VERSION",
        default_value = "2025-11-25",
        conflicts_with = "listing"
    )]
    protocol_version: String,
}

pub fn main(args: &LintArgs) -> Result<ExitCode> {
    let options = LintOptions {
        skip_rules: args.skip_rules.clone(),
        strict: args.strict,
    };
    args.findings.selection()?;
    let (findings, subject, artifact) = match &args.listing {
        Some(path) => (offline(path, &options)?, display(path), Some(display(path))),
        None => match live(args, &options)? {
            Ok((findings, label)) => (findings, label, None),
            Err(message) => {
                err(&format!("mcpcheck lint: {message}\n"));
                return Ok(verdict(false));
            }
        },
    };
    let mut report = lint::report(findings, args.strict, &subject);
    report.artifact = artifact;
    finish(report, args.format, &args.findings, &[Family::Lint])
}

fn offline(path: &std::path::Path, options: &LintOptions) -> Result<Vec<Finding>> {
    let name = display(path);
    let text = read_text(path)?;
    let doc = read_saved("lint", &name, &text)?;
    lint::lint_listing(&doc, options).map_err(|e| Error::Usage(format!("{name}: {e}")))
}

/// Lint a live server, with its label; the outer error is a usage error,
/// the inner one means the server could not be reached.
fn live(
    args: &LintArgs,
    options: &LintOptions,
) -> Result<std::result::Result<(Vec<Finding>, String), LiveError>> {
    // An unknown rule is a usage error before any server is started.
    lint::lint_listing(&json!({"tools": []}), options).map_err(|e| Error::Usage(e.to_string()))?;
    let probe_args = ProbeArgs {
        target: TargetArgs {
            server: args.server.clone(),
            url: args.url.clone(),
            transport: args.transport,
            headers: args.headers.clone(),
            docker: None,
            auth: Default::default(),
        },
        fixture: args.fixture.clone(),
        include_writes: args.include_writes,
        timeout: Some(args.timeout),
        format: args.format,
        findings: FindingsArgs::default(),
        protocol_version: args.protocol_version.clone(),
    };
    let mut prober = Prober::new(&probe_args, args.timeout)?;
    let runtime = crate::error::runtime()?;
    Ok(runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let findings = lint_live(&mut prober, args, options).await;
        prober.close().await;
        let label = prober.label();
        match findings {
            Ok(f) => Ok((f, label)),
            Err(source) => Err(LiveError { label, source }),
        }
    }))
}

/// Why a live server could not be linted, after its label.
#[derive(Debug, thiserror::Error)]
#[error("{label}: {source}")]
struct LiveError {
    label: String,
    #[source]
    source: LintError,
}

/// Why linting a live server stopped.
#[derive(Debug, thiserror::Error)]
enum LintError {
    /// It could not be reached or listed.
    #[error(transparent)]
    Probe(#[from] crate::probe::ProberError),
    /// What it listed could not be linted.
    #[error(transparent)]
    Input(#[from] lint::LintInputError),
}

fn document(l: &Listings) -> Value {
    json!({
        "tools": l.tools,
        "prompts": l.prompts,
        "resources": l.resources,
        "resourceTemplates": l.templates,
    })
}

async fn lint_live(
    prober: &mut Prober,
    args: &LintArgs,
    options: &LintOptions,
) -> std::result::Result<Vec<Finding>, LintError> {
    let listings = prober.list().await?;
    listings.print_notes("lint", &prober.label());
    let mut doc = document(&listings);
    // The skills a server declares are judged beside its lists.
    let skills = crate::extensions::lint_skills(prober).await;
    if !skills.is_empty() {
        doc["skills"] = Value::Array(skills);
    }
    let mut findings = lint::lint_listing(&doc, options)?;
    if args.detect_nondeterminism {
        let again = document(&prober.list().await?);
        findings.extend(lint::lint_nondeterminism(&doc, &again, options)?);
    }
    if args.call_tools {
        let risks = probe::WriteRisks::new(&listings.tools);
        for tool in &listings.tools {
            let name = tool["name"].as_str().unwrap_or_default();
            if risks.of(tool).is_some() && !args.include_writes {
                continue;
            }
            let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
            let arguments = match probe::arguments_within_bounds(&schema) {
                Ok(v) => Arguments::Value(v),
                Err(why) => {
                    crate::output::err(&format!(
                        "mcpcheck lint: not calling {}: no arguments within mcpcheck's bounds: {why}\n",
                        serde_json::Value::from(name)
                    ));
                    continue;
                }
            };
            let (observed, _) = prober.call_tool(tool, tool_params(name, &arguments)).await;
            let Some(result) = observed.response.as_ref().and_then(|r| r.get("result")) else {
                continue;
            };
            let max = args.max_response_kb.saturating_mul(1024);
            if let Ok(more) = lint::lint_response(name, Response::Result(result), max, options) {
                findings.extend(more);
            }
        }
    }
    Ok(findings)
}
