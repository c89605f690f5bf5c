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

use crate::client::Endpoint;
use crate::client::listing::read_saved;
use crate::error::{Error, Result, verdict};
use crate::files::{display, read_text};
use crate::output::{err, out, paint_for_stdout};
use crate::probe::Prober;
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
    let mut failures = Vec::new();
    if !endpoints.is_empty() {
        let (listed, failed) = list_live(endpoints, args.timeout)?;
        servers.extend(listed);
        failures = failed;
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
    // What could not be listed was not scanned: never a clean pass.
    for failure in &failures {
        err(&format!(
            "mcpcheck scan: {failure}; what it offers was not scanned\n"
        ));
    }
    Ok(verdict(
        failures.is_empty() && scan::passed(&findings, fail_on),
    ))
}

/// A listing file: one listing, or a list of them (labelled `FILE#N`).
fn read_listings(path: &std::path::Path) -> Result<Vec<(String, Value)>> {
    let name = display(path);
    let text = read_text(path).map_err(Error::Usage)?;
    let value = read_saved("scan", &name, &text).map_err(Error::Usage)?;
    scan::servers_in(&name, value).map_err(|e| Error::Usage(e.to_string()))
}

/// Every server to reach, with the label findings name it by.
fn endpoints(args: &ScanArgs) -> Result<Vec<(String, Endpoint)>> {
    let mut out = Vec::new();
    for server in &args.servers {
        out.push((
            server.clone(),
            target(Some(server.clone()), None, args.transport, &args.headers)?,
        ));
    }
    for url in &args.urls {
        out.push((
            url.clone(),
            target(None, Some(url.clone()), args.transport, &args.headers)?,
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
) -> Result<Endpoint> {
    TargetArgs {
        server,
        url,
        transport,
        headers: headers.to_vec(),
        docker: None,
        auth: Default::default(),
    }
    .endpoint()
    .map_err(Error::Usage)
}

/// The keys a server entry of a client config may have. `disabled: true`
/// leaves the server out, as the client does; `autoApprove`, `alwaysAllow`
/// and `timeout` only steer the client's own prompts and waits.
const CONFIG_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "type",
    "url",
    "headers",
    "disabled",
    "autoApprove",
    "alwaysAllow",
    "timeout",
];

/// The servers of a client's `mcpServers` config: each with its own `env`
/// (on top of mcpcheck's environment) and headers, `${VAR}` and
/// `${VAR:-default}` expanded in every string as clients do.
fn from_config(path: &std::path::Path) -> Result<Vec<(String, Endpoint)>> {
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
        let problem = |what: String| Error::Usage(format!("{name}: server `{label}`: {what}"));
        let Some(fields) = entry.as_object() else {
            return Err(problem("is not an object".into()));
        };
        if let Some(key) = fields.keys().find(|k| !CONFIG_KEYS.contains(&k.as_str())) {
            return Err(problem(format!(
                "unknown key `{key}` (a server entry has {})",
                CONFIG_KEYS.join(", ")
            )));
        }
        match fields.get("disabled") {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                err(&format!(
                    "mcpcheck scan: {name}: server `{label}` is disabled; not scanned\n"
                ));
                continue;
            }
            Some(_) => return Err(problem("`disabled` must be true or false".into())),
        }
        let string = |key: &str, v: &Value| -> Result<String> {
            let s = v
                .as_str()
                .ok_or_else(|| problem(format!("`{key}` must be a string")))?;
            expand(s).map_err(problem)
        };
        let pairs = |key: &str| -> Result<Vec<(String, String)>> {
            match fields.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Object(map)) => map
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), string(&format!("{key}.{k}"), v)?)))
                    .collect(),
                Some(_) => Err(problem(format!("`{key}` must be an object of strings"))),
            }
        };
        let endpoint = match (fields.get("command"), fields.get("url")) {
            (Some(command), None) => {
                let args = match fields.get("args") {
                    None => Vec::new(),
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|a| string("args", a))
                        .collect::<Result<_>>()?,
                    Some(_) => return Err(problem("`args` must be a list of strings".into())),
                };
                if fields.contains_key("headers") {
                    return Err(problem("`headers` applies to `url` servers only".into()));
                }
                Endpoint::Stdio {
                    command: string("command", command)?,
                    args,
                    env: pairs("env")?,
                }
            }
            (None, Some(url)) => {
                if fields.contains_key("args") || fields.contains_key("env") {
                    return Err(problem(
                        "`args` and `env` apply to `command` servers only".into(),
                    ));
                }
                let url = string("url", url)?;
                let headers = pairs("headers")?;
                match fields.get("type").and_then(Value::as_str) {
                    Some("sse") => Endpoint::Sse {
                        url,
                        headers,
                        auth: None,
                    },
                    _ => Endpoint::Http {
                        url,
                        headers,
                        auth: None,
                    },
                }
            }
            (Some(_), Some(_)) => return Err(problem("has both `command` and `url`".into())),
            (None, None) => return Err(problem("has neither `command` nor `url`".into())),
        };
        out.push((label.clone(), endpoint));
    }
    Ok(out)
}

/// `${VAR}` and `${VAR:-default}` replaced from the environment; an unset
/// variable without a default is an error naming it.
fn expand(text: &str) -> std::result::Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(close) = after.find('}') else {
            return Err(format!("`${{` without a closing `}}` in {text:?}"));
        };
        let inner = &after[..close];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        match (std::env::var(var), default) {
            (Ok(value), _) => out.push_str(&value),
            (Err(_), Some(d)) => out.push_str(d),
            (Err(_), None) => {
                return Err(format!(
                    "${{{var}}} is not set (set it, or write ${{{var}:-default}})"
                ));
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The listings of the servers that could be listed (by label), and a
/// message for each that could not (reached, or read).
type Listed = (Vec<(String, Value)>, Vec<String>);

/// List every server.
fn list_live(endpoints: Vec<(String, Endpoint)>, timeout: Duration) -> Result<Listed> {
    let mut probers: Vec<_> = endpoints
        .into_iter()
        .map(|(label, endpoint)| (label, Prober::for_endpoint(endpoint, "2025-11-25", timeout)))
        .collect();
    let runtime = crate::error::runtime()?;
    Ok(runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let mut listed = Vec::new();
        let mut failures = Vec::new();
        for (label, prober) in &mut probers {
            match prober.list().await {
                Ok(l) => {
                    l.print_notes("scan", label);
                    listed.push((
                        label.clone(),
                        json!({"tools": l.tools, "prompts": l.prompts, "resources": l.resources,
                               "resourceTemplates": l.templates}),
                    ));
                }
                Err(e) => failures.push(format!("{label}: {e}")),
            }
            prober.close().await;
        }
        (listed, failures)
    }))
}
