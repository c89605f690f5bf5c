//! `mcpcheck scan`: the offline tool-surface security scan of
//! `mcpcheck_core::scan` over one or several servers: live ones (`--server`,
//! `--url`, or a client's `mcpServers` config), or saved listings. Listing
//! is all this command does with a server: no tool is called.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use mcpcheck_core::scan::{self, ScanOptions, Severity};
use serde_json::{Value, json};

use crate::error::{Error, Result, verdict};
use crate::files::{display, read_text};
use crate::output::{err, out, paint_for_stdout};
use crate::probe::{ProbeArgs, Prober, ReportFormat};
use crate::target::{HttpTransport, TargetArgs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ScanFormat {
    Text,
    Json,
    Sarif,
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FailOn {
    High,
    Medium,
    Low,
    Info,
}

/// Scan what servers list for tool poisoning, hidden instructions,
/// exfiltration targets, secrets, side channels and shadowing — offline,
/// deterministic, without calling any tool.
#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("source").required(true).multiple(true).args(["servers", "urls", "listings", "config"])),
    after_help = "Rules, the attack each catches and its source: docs/scan.md.\n\nExit status: 0 no \
finding at --fail-on or above; 1 one at least, or a server could not be reached; 2 a usage \
error (an unreadable listing or config, an unknown rule)."
)]
pub struct ScanArgs {
    /// A server to start on stdio (repeatable: several servers are also
    /// checked against each other for shadowing).
    #[arg(long = "server", value_name = "CMD")]
    servers: Vec<String>,

    /// A server's URL (repeatable).
    #[arg(long = "url", value_name = "URL")]
    urls: Vec<String>,

    /// The HTTP transport for --url.
    #[arg(long, value_enum, default_value_t = HttpTransport::Http)]
    transport: HttpTransport,

    /// An HTTP header for every --url, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "HEADER")]
    headers: Vec<String>,

    /// A saved listing (repeatable): a tools/list result, an object with
    /// tools, prompts, resources and resourceTemplates, a JSON-RPC response
    /// wrapping one, or a list of those for several servers.
    #[arg(long = "listing", value_name = "FILE")]
    listings: Vec<PathBuf>,

    /// A client config in the usual shape, `{"mcpServers": {NAME: {"command",
    /// "args", "env"} | {"url", "headers"}}}`: every server in it is started
    /// (or reached) and listed.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// The least severe finding that fails the scan.
    #[arg(long, value_enum, default_value_t = FailOn::High)]
    fail_on: FailOn,

    /// Rules not to run, by code (comma-separated or repeated).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    skip_rules: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ScanFormat::Text)]
    format: ScanFormat,

    /// How long connecting and each list may take.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    timeout: Duration,
}

pub fn main(args: &ScanArgs) -> Result<ExitCode> {
    let fail_on = match args.fail_on {
        FailOn::High => Severity::High,
        FailOn::Medium => Severity::Medium,
        FailOn::Low => Severity::Low,
        FailOn::Info => Severity::Info,
    };
    let options = ScanOptions {
        skip_rules: args.skip_rules.clone(),
        fail_on,
    };
    // An unknown rule is a usage error before any server starts.
    scan::scan_listings(&[], &options).map_err(|e| Error::Usage(e.to_string()))?;
    let mut servers: Vec<(String, Value)> = Vec::new();
    for path in &args.listings {
        servers.extend(read_listings(path)?);
    }
    let endpoints = endpoints(args)?;
    if !endpoints.is_empty() {
        match list_live(endpoints, args.timeout)? {
            Ok(listed) => servers.extend(listed),
            Err(message) => {
                err(&format!("mcpcheck scan: {message}\n"));
                return Ok(verdict(false));
            }
        }
    }
    let findings =
        scan::scan_listings(&servers, &options).map_err(|e| Error::Usage(e.to_string()))?;
    let artifact = args.listings.first().map(|p| display(p));
    out(&match args.format {
        ScanFormat::Text => scan::report::text(&findings, paint_for_stdout()),
        ScanFormat::Json => scan::report::json(&findings),
        ScanFormat::Sarif => scan::report::sarif(&findings, artifact.as_deref()),
        ScanFormat::Markdown => scan::report::markdown(&findings),
    });
    Ok(verdict(scan::passed(&findings, fail_on)))
}

/// A listing file: one listing, or a list of them (labelled `FILE#N`).
fn read_listings(path: &std::path::Path) -> Result<Vec<(String, Value)>> {
    let name = display(path);
    let text = read_text(path).map_err(Error::Usage)?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{name}:{}:{}: the listing is not JSON: {e}",
            e.line(),
            e.column()
        ))
    })?;
    Ok(match value {
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("{name}#{}", i + 1), v))
            .collect(),
        v => vec![(name, v)],
    })
}

/// Every server to reach, with the label findings name it by.
fn endpoints(args: &ScanArgs) -> Result<Vec<(String, TargetArgs)>> {
    let mut out = Vec::new();
    for server in &args.servers {
        out.push((
            server.clone(),
            target(Some(server.clone()), None, args.transport, &args.headers),
        ));
    }
    for url in &args.urls {
        out.push((
            url.clone(),
            target(None, Some(url.clone()), args.transport, &args.headers),
        ));
    }
    if let Some(path) = &args.config {
        out.extend(from_config(path)?);
    }
    Ok(out)
}

fn target(
    server: Option<String>,
    url: Option<String>,
    transport: HttpTransport,
    headers: &[String],
) -> TargetArgs {
    TargetArgs {
        server,
        url,
        transport,
        headers: headers.to_vec(),
    }
}

/// The servers of a client's `mcpServers` config.
fn from_config(path: &std::path::Path) -> Result<Vec<(String, TargetArgs)>> {
    let name = display(path);
    let text = read_text(path).map_err(Error::Usage)?;
    let config: Value = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "{name}:{}:{}: the config is not JSON: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let Some(servers) = config.get("mcpServers").and_then(Value::as_object) else {
        return Err(Error::Usage(format!(
            "{name}: no `mcpServers` object (expected {{\"mcpServers\": {{\"name\": {{\"command\": …}}}}}})"
        )));
    };
    let mut out = Vec::new();
    for (label, entry) in servers {
        if let Some(command) = entry.get("command").and_then(Value::as_str) {
            let mut argv = vec![command.to_string()];
            argv.extend(
                entry
                    .get("args")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string),
            );
            let joined = shlex::try_join(argv.iter().map(String::as_str))
                .map_err(|e| Error::Usage(format!("{name}: server `{label}`: {e}")))?;
            out.push((
                label.clone(),
                target(Some(joined), None, HttpTransport::Http, &[]),
            ));
        } else if let Some(url) = entry.get("url").and_then(Value::as_str) {
            let transport = match entry.get("type").and_then(Value::as_str) {
                Some("sse") => HttpTransport::Sse,
                _ => HttpTransport::Http,
            };
            let headers: Vec<String> = entry
                .get("headers")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| v.as_str().map(|v| format!("{k}: {v}")))
                .collect();
            out.push((
                label.clone(),
                target(None, Some(url.to_string()), transport, &headers),
            ));
        } else {
            return Err(Error::Usage(format!(
                "{name}: server `{label}` has neither `command` nor `url`"
            )));
        }
    }
    Ok(out)
}

/// List every server; the inner error names one that could not be reached.
fn list_live(
    endpoints: Vec<(String, TargetArgs)>,
    timeout: Duration,
) -> Result<std::result::Result<Vec<(String, Value)>, String>> {
    let mut probers = Vec::new();
    for (label, target) in endpoints {
        let args = ProbeArgs {
            target,
            fixture: None,
            include_writes: false,
            timeout: Some(timeout),
            format: ReportFormat::Text,
            protocol_version: "2025-11-25".into(),
        };
        probers.push((label, Prober::new(&args, timeout)?));
    }
    let runtime = crate::error::runtime()?;
    Ok(runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let mut listed = Vec::new();
        let mut failure = None;
        for (label, prober) in &mut probers {
            match prober.list().await {
                Ok(l) => listed.push((
                    label.clone(),
                    json!({"tools": l.tools, "prompts": l.prompts, "resources": l.resources,
                           "resourceTemplates": l.templates}),
                )),
                Err(e) => failure = failure.or(Some(format!("{label}: {e}"))),
            }
            prober.close().await;
        }
        match failure {
            Some(message) => Err(message),
            None => Ok(listed),
        }
    }))
}
