//! `mcpcheck scan`: the offline tool-surface security scan of
//! `mcpcheck_core::scan` over one or several servers: live ones (`--server`,
//! `--url`, or a client's `mcpServers` config), or saved listings. Listing
//! is all this command does with a server: no tool is called. A live
//! server's skills and app views are read too (`skills/list`,
//! `resources/read`), and skills kept as folders are read with `--skill`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use mcpcheck_core::findings::{Family, Note};
use mcpcheck_core::redact::Redactor;
use mcpcheck_core::report::plural;
use mcpcheck_core::scan::{self, ScanOptions, Severity};
use serde_json::{Value, json};

use crate::client::Endpoint;
use crate::client::listing::read_saved;
use crate::error::{Error, Result, verdict};
use crate::files::{display, read_text};
use crate::output::err;
use crate::probe::Prober;
use crate::target::{HttpTransport, TargetArgs};
use crate::verdict::{FindingsArgs, FindingsFormat, finish_redacted};

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
    group(clap::ArgGroup::new("source").required(true).multiple(true).args(["servers", "urls", "listings", "config", "skills"])),
    group(clap::ArgGroup::new("live").multiple(true).args(["servers", "urls", "config"])),
    after_help = concat!("Exit status: 0 no finding at --fail-on or above; 1 one at least, or a \
server could not be reached; 2 a usage error (an unreadable listing or config, an unknown \
rule).\n\n",
    crate::help::rules_lines!("scan", "S502", "the attack each catches and its source")
))]
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

    /// A skill to scan (repeatable): a SKILL.md or any file of a skill, or
    /// a folder, whose skills (folders with a SKILL.md, at any depth) are
    /// read with every text file beside and below their SKILL.md.
    #[arg(long = "skill", value_name = "DIR_OR_FILE")]
    skills: Vec<PathBuf>,

    /// A client config in the usual shape, `{"mcpServers": {NAME: {"command",
    /// "args", "env"} | {"url", "headers"}}}`: its own text (commands, args,
    /// env names, URLs) is judged offline; nothing in it is run or reached
    /// unless --start-servers is given.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Also start (or reach) every server of --config and scan what it
    /// lists. Its commands run with your rights: only for a config you
    /// trust.
    #[arg(long, requires = "config")]
    start_servers: bool,

    /// The least severe finding that fails the scan.
    #[arg(long, value_enum, default_value_t = FailOn::High)]
    fail_on: FailOn,

    /// Rules not to run, by code (comma-separated or repeated).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    skip_rules: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    format: FindingsFormat,

    #[command(flatten)]
    findings: FindingsArgs,

    /// How long connecting and each list may take (live servers: --server,
    /// --url, --config).
    #[arg(long, value_name = "DURATION", default_value = "30s", requires = "live", value_parser = crate::output::parse_duration)]
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
    args.findings.selection()?;
    let mut servers: Vec<(String, Value)> = Vec::new();
    for path in &args.listings {
        servers.extend(read_listings(path)?);
    }
    let mut skills_read: Vec<String> = Vec::new();
    let mut extension_findings = Vec::new();
    for path in &args.skills {
        let label = display(path);
        let files =
            crate::extensions::read_folder(path).map_err(|e| Error::Usage(e.to_string()))?;
        extension_findings.extend(
            scan::scan_skill_files(&label, &files, &options)
                .map_err(|e| Error::Usage(e.to_string()))?,
        );
        skills_read.push(label);
    }
    let mut endpoints = endpoints(args)?;
    let mut findings = Vec::new();
    // Hides what `${VAR}` expanded to, in every line printed.
    let mut redactor = Redactor::new();
    if let Some(path) = &args.config {
        let config = Config::read(path)?;
        findings.extend(
            scan::scan_config(&config.name, &config.doc, &options)
                .map_err(|e| Error::Usage(e.to_string()))?,
        );
        findings.extend(scan::hygiene::check_config(&config.name, &config.doc));
        if args.start_servers {
            let started = config.endpoints(&mut redactor)?;
            let labels: Vec<&str> = started.iter().map(|(l, _)| l.as_str()).collect();
            err(&format!(
                "mcpcheck scan: --start-servers: starting (or reaching) {} of {} to list {}: {}\n",
                plural(started.len(), "server", "servers"),
                config.name,
                if started.len() == 1 { "it" } else { "them" },
                labels.join(", ")
            ));
            endpoints.extend(started);
        } else {
            err(&format!(
                "mcpcheck scan: {}: judged the config's own text; none of its {} was started or reached (--start-servers lists them, running their commands)\n",
                config.name,
                plural(config.servers(), "server", "servers")
            ));
        }
    }
    let mut failures = Vec::new();
    let mut surfaces = Vec::new();
    if !endpoints.is_empty() {
        let (listed, failed, read) = list_live(endpoints, args.timeout, &redactor)?;
        servers.extend(listed);
        failures = failed;
        surfaces = read;
    }
    findings
        .extend(scan::scan_listings(&servers, &options).map_err(|e| Error::Usage(e.to_string()))?);
    for (label, surface) in &surfaces {
        extension_findings.extend(
            scan::scan_skill_files(label, &surface.files, &options)
                .map_err(|e| Error::Usage(e.to_string()))?,
        );
        for (uri, html) in &surface.views {
            extension_findings.extend(
                scan::scan_app_html(label, uri, html, &options)
                    .map_err(|e| Error::Usage(e.to_string()))?,
            );
        }
    }
    findings.extend(extension_findings);
    // A report of nothing judged would read as a clean scan: when no
    // listing could be read (and no config was given), only the failures
    // are said.
    if servers.is_empty() && args.config.is_none() && skills_read.is_empty() && !failures.is_empty()
    {
        for failure in &failures {
            err(&redactor.redact_str(&format!(
                "mcpcheck scan: {failure}; what it offers was not scanned\n"
            )));
        }
        return Ok(verdict(false));
    }
    let mut report = scan::report(findings, fail_on, &servers);
    if !skills_read.is_empty() {
        let mut subject: Vec<String> = servers.iter().map(|(l, _)| l.clone()).collect();
        subject.extend(skills_read);
        report.subject = subject.join(", ");
    }
    report.artifact = args
        .listings
        .first()
        .or(args.config.as_ref())
        .or(args.skills.first())
        .map(|p| display(p));
    for (label, surface) in &surfaces {
        for note in &surface.notes {
            report.notes.push(Note::failing(format!(
                "{label}: {note}; it was not scanned"
            )));
        }
    }
    // What could not be listed was not scanned: never a clean pass. The
    // reasons go to stderr (with what `${VAR}` expanded to hidden); the
    // report says how many.
    for failure in &failures {
        err(&redactor.redact_str(&format!(
            "mcpcheck scan: {failure}; what it offers was not scanned\n"
        )));
    }
    if !failures.is_empty() {
        report.notes.push(Note::failing(format!(
            "{} could not be listed, so what {} offer was not scanned (the reasons are on stderr)",
            plural(failures.len(), "server", "servers"),
            if failures.len() == 1 { "it" } else { "they" }
        )));
    }
    let judged: &[Family] = if args.config.is_some() {
        &[Family::Scan, Family::Config]
    } else {
        &[Family::Scan]
    };
    finish_redacted(report, args.format, &args.findings, judged, &redactor)
}

/// A listing file: one listing, or a list of them (labelled `FILE#N`).
fn read_listings(path: &std::path::Path) -> Result<Vec<(String, Value)>> {
    let name = display(path);
    let text = read_text(path)?;
    let value = read_saved("scan", &name, &text)?;
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
    "cwd",
    "envFile",
    "serverUrl",
];

/// A client's config (`mcpServers`, or VS Code's `servers`): its name, as
/// messages and findings give it, and the document.
pub(crate) struct Config {
    pub(crate) name: String,
    pub(crate) doc: Value,
}

impl Config {
    /// Read the config and check the shape of every server entry; nothing
    /// in it is expanded, started or reached.
    pub(crate) fn read(path: &std::path::Path) -> Result<Config> {
        let name = display(path);
        let text = read_text(path)?;
        // VS Code's files may hold comments and trailing commas (JSONC).
        let doc: Value = serde_json::from_str(&text)
            .or_else(|e| match scan::hygiene::strip_jsonc(&text) {
                Some(plain) => serde_json::from_str(&plain).map_err(|_| e),
                None => Err(e),
            })
            .map_err(|e| {
                Error::Usage(format!(
                    "{name}:{}:{}: the config is not JSON: {e}",
                    e.line(),
                    e.column()
                ))
            })?;
        let Some((_, servers)) = scan::hygiene::config_servers(&doc) else {
            return Err(Error::Usage(format!(
                "{name}: no `mcpServers` object (expected {{\"mcpServers\": {{\"name\": {{\"command\": …}}}}}}, or VS Code's {{\"servers\": {{…}}}})"
            )));
        };
        for (label, entry) in servers {
            check_entry(&name, label, entry)?;
        }
        Ok(Config { name, doc })
    }

    /// The server entries, with whether each is disabled.
    fn entries(&self) -> impl Iterator<Item = (&String, &serde_json::Map<String, Value>, bool)> {
        scan::hygiene::config_servers(&self.doc)
            .map(|(_, servers)| servers)
            .into_iter()
            .flatten()
            .filter_map(|(label, entry)| {
                let fields = entry.as_object()?;
                let disabled = fields.get("disabled") == Some(&Value::Bool(true));
                Some((label, fields, disabled))
            })
    }

    /// How many servers the config has.
    pub(crate) fn servers(&self) -> usize {
        self.entries().count()
    }

    /// The endpoints of its servers (a disabled one is left out, as the
    /// client does), each with its own `env` on top of mcpcheck's
    /// environment and its headers, `${VAR}` and `${VAR:-default}` expanded
    /// in every string as clients do. Every value an expansion, an `env`
    /// entry or a header brought in is added to `redactor`.
    pub(crate) fn endpoints(&self, redactor: &mut Redactor) -> Result<Vec<(String, Endpoint)>> {
        let mut out = Vec::new();
        for (label, fields, disabled) in self.entries() {
            let name = &self.name;
            if disabled {
                err(&format!(
                    "mcpcheck scan: {name}: server `{label}` is disabled; not started\n"
                ));
                continue;
            }
            let problem = |what: String| Error::Usage(format!("{name}: server `{label}`: {what}"));
            let mut string = |key: &str, v: &Value| -> Result<String> {
                expand(v.as_str().unwrap_or_default(), redactor)
                    .map_err(|why| problem(format!("`{key}`: {why}")))
            };
            let pairs = |key: &str, redactor: &mut Redactor| -> Result<Vec<(String, String)>> {
                let Some(Value::Object(map)) = fields.get(key) else {
                    return Ok(Vec::new());
                };
                let mut out = Vec::new();
                for (k, v) in map {
                    let value = expand(v.as_str().unwrap_or_default(), redactor)
                        .map_err(|why| problem(format!("`{key}.{k}`: {why}")))?;
                    if key == "env" {
                        redactor.env(k, &value);
                    } else {
                        redactor.header(k, &value);
                    }
                    out.push((k.clone(), value));
                }
                Ok(out)
            };
            if let Some(key) = ["cwd", "envFile"].iter().find(|k| fields.contains_key(**k)) {
                return Err(problem(format!(
                    "`{key}` is not read when mcpcheck starts a server; judge the config without --start-servers, or start the server with --server"
                )));
            }
            let url = fields.get("url").or_else(|| fields.get("serverUrl"));
            let endpoint = match (fields.get("command"), url) {
                (Some(command), _) => {
                    let command = string("command", command)?;
                    let args = match fields.get("args") {
                        Some(Value::Array(items)) => items
                            .iter()
                            .map(|a| string("args", a))
                            .collect::<Result<_>>()?,
                        _ => Vec::new(),
                    };
                    Endpoint::Stdio {
                        command,
                        args,
                        env: pairs("env", redactor)?,
                    }
                }
                (None, Some(url)) => {
                    let url = string("url", url)?;
                    let headers = pairs("headers", redactor)?;
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
                (None, None) => continue,
            };
            out.push((label.clone(), endpoint));
        }
        Ok(out)
    }
}

/// What is wrong with a server entry of the config `name`, if anything: an
/// unknown key, a value of the wrong type, both or neither of `command` and
/// `url`. Values are never quoted (they may hold secrets).
fn check_entry(name: &str, label: &str, entry: &Value) -> Result<()> {
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
        None | Some(Value::Bool(_)) => {}
        Some(_) => return Err(problem("`disabled` must be true or false".into())),
    }
    for key in ["command", "url", "serverUrl", "type", "cwd", "envFile"] {
        if fields.get(key).is_some_and(|v| !v.is_string()) {
            return Err(problem(format!("`{key}` must be a string")));
        }
    }
    match fields.get("args") {
        None => {}
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
        Some(_) => return Err(problem("`args` must be a list of strings".into())),
    }
    for key in ["env", "headers"] {
        match fields.get(key) {
            None => {}
            Some(Value::Object(map)) if map.values().all(Value::is_string) => {}
            Some(_) => return Err(problem(format!("`{key}` must be an object of strings"))),
        }
    }
    if fields.contains_key("url") && fields.contains_key("serverUrl") {
        return Err(problem("has both `url` and `serverUrl`".into()));
    }
    let remote = fields.contains_key("url") || fields.contains_key("serverUrl");
    match (fields.contains_key("command"), remote) {
        (true, false) if fields.contains_key("headers") => {
            Err(problem("`headers` applies to `url` servers only".into()))
        }
        (false, true)
            if ["args", "env", "cwd", "envFile"]
                .iter()
                .any(|k| fields.contains_key(*k)) =>
        {
            Err(problem(
                "`args`, `env`, `cwd` and `envFile` apply to `command` servers only".into(),
            ))
        }
        (true, true) => Err(problem("has both `command` and `url`".into())),
        (false, false) => Err(problem("has neither `command` nor `url`".into())),
        _ => Ok(()),
    }
}

/// `${VAR}` and `${VAR:-default}` replaced from the environment, each value
/// an expansion brought in added to `redactor`; an unset variable without a
/// default is an error naming it (never a value).
fn expand(text: &str, redactor: &mut Redactor) -> std::result::Result<String, ExpandError> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(close) = after.find('}') else {
            return Err(ExpandError::Unclosed);
        };
        let inner = &after[..close];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        match (std::env::var(var), default) {
            (Ok(value), _) => {
                redactor.env(var, &value);
                out.push_str(&value);
            }
            (Err(_), Some(d)) => out.push_str(d),
            (Err(_), None) => {
                return Err(ExpandError::Unset(var.to_string()));
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Why a config's string could not be expanded; said after the server and
/// key it is in.
#[derive(Debug, thiserror::Error)]
enum ExpandError {
    #[error("a `${{` without a closing `}}`")]
    Unclosed,
    /// A variable (by name) that is not set and has no default.
    #[error("${{{0}}} is not set (set it, or write ${{{0}:-default}})")]
    Unset(String),
}

/// The listings of the servers that could be listed (by label), a message
/// for each that could not (reached, or read), and what each listed server
/// serves of the extensions (its skills' files, its app views).
type Listed = (
    Vec<(String, Value)>,
    Vec<String>,
    Vec<(String, crate::extensions::Surface)>,
);

/// List every server; what is said of each (its failure, its notes) is
/// passed through `redactor` first.
fn list_live(
    endpoints: Vec<(String, Endpoint)>,
    timeout: Duration,
    redactor: &Redactor,
) -> Result<Listed> {
    let mut probers: Vec<_> = endpoints
        .into_iter()
        .map(|(label, endpoint)| (label, Prober::for_endpoint(endpoint, "2025-11-25", timeout)))
        .collect();
    let runtime = crate::error::runtime()?;
    Ok(runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let mut listed = Vec::new();
        let mut failures = Vec::new();
        let mut surfaces = Vec::new();
        for (label, prober) in &mut probers {
            match prober.list().await {
                Ok(l) => {
                    for note in &l.notes {
                        err(&redactor
                            .redact_str(&format!("mcpcheck scan: {label}: note: {note}\n")));
                    }
                    surfaces.push((
                        label.clone(),
                        crate::extensions::read_server(prober, &l).await,
                    ));
                    listed.push((
                        label.clone(),
                        json!({"tools": l.tools, "prompts": l.prompts, "resources": l.resources,
                               "resourceTemplates": l.templates}),
                    ));
                }
                Err(e) => failures.push(redactor.redact_str(&format!("{label}: {e}"))),
            }
            prober.close().await;
        }
        (listed, failures, surfaces)
    }))
}

#[cfg(test)]
mod expand_tests {
    use super::*;

    #[test]
    fn an_expansion_that_cannot_be_made_says_why() {
        let mut redactor = Redactor::new();
        assert_eq!(
            expand("a ${MCPCHECK_SURELY_UNSET:-b} c", &mut redactor).ok(),
            Some("a b c".to_string())
        );
        let unset = expand("${MCPCHECK_SURELY_UNSET}", &mut redactor).expect_err("unset");
        assert_eq!(
            unset.to_string(),
            "${MCPCHECK_SURELY_UNSET} is not set (set it, or write ${MCPCHECK_SURELY_UNSET:-default})"
        );
        let open = expand("x ${HOME", &mut redactor).expect_err("no closing brace");
        assert_eq!(open.to_string(), "a `${` without a closing `}`");
    }
}
