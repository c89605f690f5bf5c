//! `mcpcheck doctor`: one command, one report, one exit code, for everything
//! that needs no test file. For one server it lists what it offers, then
//! runs, each in its own time bound:
//!
//! 1. `lint` and `scan` over the listing (offline rules, no call), and
//!    over what it serves of the extensions: its skills (`skills/list`,
//!    `skills/get`, their files) and the `ui://` views its tools name
//!    (`crate::extensions::read_server`);
//! 2. `audit`: every tool, prompt and resource called once with valid
//!    input — never a tool that may write;
//! 3. `conformance` in each protocol era the server offers;
//! 4. for a URL, the HTTP probes (and with `--auth`, the OAuth checks);
//! 5. with `--lock FILE`, the surface against the lockfile;
//! 6. with `--fuzz`, fuzzing (`--runs` cases per tool, tools that may write
//!    skipped).
//!
//! Every finding goes into one findings report (`mcpcheck_core::findings`):
//! worst first in the terminal, grouped by item, each with how to fix it;
//! the same report in every format of the output contract. A part that runs
//! out of its time says so and is not verified: the checker's limit is never
//! the server's fault. Nothing here decides a verdict; the rules are core's.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use mcpcheck_core::findings::{
    Case, CaseStatus, CaseView, Family, Finding, Layout, Level, Note, Report, Severity,
};
use mcpcheck_core::lock::{self, Lock};
use mcpcheck_core::{lint, probe, scan};
use serde_json::json;

use crate::client::Endpoint;
use crate::error::{Error, Result};
use crate::probe::{ProbeArgs, Prober};
use crate::target::TargetArgs;
use crate::verdict::{FindingsArgs, FindingsFormat, finish_redacted};

/// One report on a server: lint, scan, audit, conformance in every era it
/// offers, the HTTP probes for a URL, and (when asked) the lock check and
/// fuzzing — worst first, each finding with its fix.
#[derive(Debug, Args)]
#[command(
    mut_arg("server", |a| a.required_unless_present_any(["url", "config"])),
    after_help = concat!("Parts: lint, scan, audit (no tool that may write is called, every \
answer read by the scan's text rules), conformance (each era the server offers), probe (--url \
only), lock (--lock FILE), fuzz (--fuzz: single calls, then read-only sequences), config \
(--config FILE: the config's hygiene and text, offline; --start-servers examines each of \
its servers too). Each part is bounded by --part-timeout and says so when it stops early; a part \
that stopped is not verified, never blamed on the server.\n\nScore: 100, minus 10 per error \
and 2 per warning (notes cost nothing), at least 0.\n\nRules: `mcpcheck rules`, `mcpcheck \
rule CODE`. Suppress one finding with a [[suppress]] entry of mcpcheck.toml.\n\nExit status: 0 \
no finding that fails (errors; with --strict, warnings too); 1 a failing finding, an expired \
suppression, or the server could not be reached; 2 a usage error.\n\n",
    crate::help::docs_line!("doctor")
))]
pub struct DoctorArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,

    /// Copy DIR and point the server at the copy (as `mcpcheck audit`
    /// does); the original is never written.
    #[arg(long, value_name = "DIR")]
    pub(crate) fixture: Option<PathBuf>,

    /// Also compare what the server offers with this lockfile
    /// (`mcpcheck lock --write`).
    #[arg(long, value_name = "FILE")]
    pub(crate) lock: Option<PathBuf>,

    /// Also fuzz every tool (tools that may write are skipped), then run
    /// the read-only stateful sequences (a repeated read, a lookup of a key
    /// that does not exist).
    #[arg(long)]
    pub(crate) fuzz: bool,

    /// Also judge a client's config file (`mcpServers`, or VS Code's
    /// `servers`) offline: its hygiene (C codes) and its text (S codes).
    /// Nothing in it runs without --start-servers; with --config alone no
    /// --server is needed.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

    /// With --config, also start (or reach) every server of the config and
    /// examine each: its commands run with your rights, so only for a
    /// config you trust.
    #[arg(long, requires = "config")]
    pub(crate) start_servers: bool,

    /// Fuzz cases per tool, with --fuzz.
    #[arg(long, value_name = "N", default_value_t = 20, requires = "fuzz")]
    pub(crate) runs: usize,

    /// The seed of the random fuzz cases, with --fuzz.
    #[arg(long, value_name = "S", default_value_t = 1, requires = "fuzz")]
    pub(crate) seed: u64,

    /// With --url, also run the OAuth checks of `mcpcheck probe --auth`.
    #[arg(long, requires = "url")]
    pub(crate) auth: bool,

    /// Probe conformance in this protocol revision only (default: each era
    /// the server offers).
    #[arg(long, value_name = "VERSION", value_parser = crate::commands::run::known_protocol_version)]
    pub(crate) protocol_version: Option<String>,

    /// How long each request may take.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    pub(crate) timeout: Duration,

    /// How long each part may take in all; a part past it stops and is
    /// reported not verified.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::output::parse_duration)]
    pub(crate) part_timeout: Duration,

    /// Warnings (recommendations not met) fail too.
    #[arg(long)]
    pub(crate) strict: bool,

    /// Every finding at this severity or more severe fails, whatever its
    /// level.
    #[arg(long, value_name = "SEVERITY", value_parser = severity)]
    pub(crate) fail_on: Option<Severity>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    pub(crate) format: FindingsFormat,

    #[command(flatten)]
    pub(crate) findings: FindingsArgs,

    #[command(flatten)]
    pub(crate) progress: crate::progress::ProgressArgs,
}

fn severity(s: &str) -> std::result::Result<Severity, crate::error::ValueError> {
    Severity::parse(s).ok_or_else(|| crate::error::ValueError::Severity(s.to_string()))
}

/// How many stateful sequences `--fuzz` runs (read-only ones: doctor never
/// writes).
const STATEFUL_SEQUENCES: usize = 10;

pub fn main(args: &DoctorArgs) -> Result<ExitCode> {
    args.findings.selection()?;
    let config = args
        .config
        .as_deref()
        .map(crate::commands::scan::Config::read)
        .transpose()?;
    if args.target.server.is_none() && args.target.url.is_none() {
        let Some(config) = config else {
            return Err(Error::Usage(
                "give --server CMD, --url URL or --config FILE".into(),
            ));
        };
        return config_only(args, &config);
    }
    let runtime = crate::error::runtime()?;
    let live = crate::progress::Progress::new(
        crate::progress::Mode::of(args.progress.quiet),
        "mcpcheck doctor: ",
        parts(args).len(),
    );
    let done = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        report(args, &|_| {}, &live).await
    });
    live.finish();
    let (report, judged, redactor) = done?;
    finish_redacted(report, args.format, &args.findings, &judged, &redactor)
}

/// The report on the server `args` names (and, with `--config`, on the
/// config), with its score, before the policy (selection, suppressions,
/// baseline) applies; the families it judged, so a suppression of another
/// family is not called unused; and what hides the secrets the config
/// expanded. `tell` hears the name of each part as it starts; `live` shows
/// each part and what it is at on stderr ([`crate::progress`]). What
/// `doctor` prints, and what `mcpcheck mcp`'s `doctor` tool returns.
pub(crate) async fn report(
    args: &DoctorArgs,
    tell: &(dyn Fn(&str) + Sync),
    live: &crate::progress::Progress,
) -> Result<(Report, Vec<Family>, mcpcheck_core::redact::Redactor)> {
    let config = args
        .config
        .as_deref()
        .map(crate::commands::scan::Config::read)
        .transpose()?;
    let probe_args = probe_args_of(args);
    let pinned = match &args.lock {
        Some(path) => {
            let text = crate::files::read_text(path)?;
            Some(
                Lock::from_json(&text)
                    .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?,
            )
        }
        None => None,
    };
    let mut prober = Prober::new(&probe_args, args.timeout)?;
    let label = prober.label();
    let mut report = examine(args, &probe_args, &mut prober, pinned.as_ref(), tell, live).await;
    prober.close().await;
    crate::client::stdio::reap_all().await;
    report.subject = label;
    let mut redactor = mcpcheck_core::redact::Redactor::new();
    if let Some(config) = &config {
        merge(&mut report, config_report(args, config, &mut redactor)?);
    }
    report.summary.clear();
    summarize(&mut report);
    report.score = report.health_score();
    // For whoever reads the JSON (an agent, a script): what each rule with a
    // finding means and how to fix it.
    let rules = mcpcheck_core::findings::render::json::rules_member(&report);
    report.set_extra("rules", rules);
    Ok((report, judged(args), redactor))
}

/// The parts the report on `args` runs, in the order they run (and are
/// told to `progress`).
pub(crate) fn parts(args: &DoctorArgs) -> Vec<&'static str> {
    let mut parts = vec!["listing", "lint", "scan", "audit", "conformance"];
    if args.target.url.is_some() {
        parts.push("probe");
    }
    if args.lock.is_some() {
        parts.push("lock");
    }
    if args.fuzz {
        parts.push("fuzz");
    }
    parts
}

/// The families of the findings the run judges.
fn judged(args: &DoctorArgs) -> Vec<Family> {
    let mut judged = vec![
        Family::Lint,
        Family::Scan,
        Family::Audit,
        Family::Invariants,
    ];
    if args.target.url.is_some() {
        judged.push(Family::Http);
    }
    if args.lock.is_some() {
        judged.push(Family::Lock);
    }
    if args.fuzz {
        judged.push(Family::Fuzz);
    }
    judged.push(Family::Output);
    if args.config.is_some() {
        judged.push(Family::Config);
    }
    judged
}

/// `doctor --config FILE` without a server: the config judged offline,
/// and with --start-servers each of its servers examined.
fn config_only(args: &DoctorArgs, config: &crate::commands::scan::Config) -> Result<ExitCode> {
    let mut report = Report::new("doctor", config.name.clone());
    report.layout = Layout::Triage;
    report.case_view = CaseView::Table;
    report.gate.strict = args.strict;
    report.gate.fail_on = args.fail_on;
    report.artifact = Some(config.name.clone());
    let mut redactor = mcpcheck_core::redact::Redactor::new();
    merge(&mut report, config_report(args, config, &mut redactor)?);
    summarize(&mut report);
    report.score = report.health_score();
    let rules = mcpcheck_core::findings::render::json::rules_member(&report);
    report.set_extra("rules", rules);
    let mut judged = vec![Family::Scan, Family::Config];
    if args.start_servers {
        judged.extend([
            Family::Lint,
            Family::Audit,
            Family::Invariants,
            Family::Output,
        ]);
        if args.fuzz {
            judged.push(Family::Fuzz);
        }
    }
    finish_redacted(report, args.format, &args.findings, &judged, &redactor)
}

/// The config part (its text and its hygiene, offline), and with
/// --start-servers every one of its servers examined as a server of its
/// own (each finding located at it, each part named after it).
fn config_report(
    args: &DoctorArgs,
    config: &crate::commands::scan::Config,
    redactor: &mut mcpcheck_core::redact::Redactor,
) -> Result<Report> {
    let started = Instant::now();
    let mut parts = Parts {
        report: Report::new("doctor", config.name.clone()),
        progress: crate::progress::Progress::off(),
    };
    let mut findings = scan::scan_config(&config.name, &config.doc, &scan::ScanOptions::default())
        .map_err(|e| Error::Usage(e.to_string()))?;
    findings.extend(scan::hygiene::check_config(&config.name, &config.doc));
    for f in &mut findings {
        f.location.file = Some(config.name.clone());
    }
    let servers = config.servers();
    let detail = format!(
        "{} · {}{}",
        mcpcheck_core::report::plural(servers, "server", "servers"),
        counted(findings.len()),
        if args.start_servers {
            ""
        } else {
            " · nothing started (--start-servers examines each server)"
        }
    );
    parts.add(
        "config",
        Outcome::Done {
            findings,
            detail,
            unverified: false,
        },
        started,
    );
    if !args.start_servers {
        return Ok(parts.report);
    }
    let endpoints = config.endpoints(redactor)?;
    crate::output::err(&format!(
        "mcpcheck doctor: --start-servers: starting (or reaching) {} of {}\n",
        mcpcheck_core::report::plural(endpoints.len(), "server", "servers"),
        config.name
    ));
    let probe_args = probe_args_of(args);
    let runtime = crate::error::runtime()?;
    for (label, endpoint) in endpoints {
        let mut prober = Prober::for_endpoint(endpoint, "2025-11-25", args.timeout);
        let mut examined = runtime.block_on(async {
            crate::signals::clean_up_on_interrupt();
            let report = examine(
                args,
                &probe_args,
                &mut prober,
                None,
                &|_| {},
                &crate::progress::Progress::off(),
            )
            .await;
            prober.close().await;
            crate::client::stdio::reap_all().await;
            report
        });
        for f in &mut examined.findings {
            f.location.server = Some(label.clone());
        }
        for c in &mut examined.cases {
            c.name = format!("{label}: {}", c.name);
        }
        for n in &mut examined.notes {
            n.text = format!("{label}: {}", n.text);
        }
        merge(&mut parts.report, examined);
    }
    Ok(parts.report)
}

/// `from`'s findings, cases (their finding indices moved along) and notes
/// added to `into`.
fn merge(into: &mut Report, from: Report) {
    let offset = into.findings.len();
    into.findings.extend(from.findings);
    for mut c in from.cases {
        for i in &mut c.findings {
            *i += offset;
        }
        into.cases.push(c);
    }
    into.notes.extend(from.notes);
}

/// The probe flags of the server doctor examines.
fn probe_args_of(args: &DoctorArgs) -> ProbeArgs {
    ProbeArgs {
        target: TargetArgs {
            server: args.target.server.clone(),
            url: args.target.url.clone(),
            transport: args.target.transport,
            headers: args.target.headers.clone(),
            docker: args.target.docker.clone(),
            auth: args.target.auth.clone(),
        },
        fixture: args.fixture.clone(),
        include_writes: false,
        timeout: Some(args.timeout),
        format: args.format,
        findings: FindingsArgs::default(),
        protocol_version: "2025-11-25".into(),
    }
}

/// The parts' outcomes so far.
struct Parts {
    report: Report,
    /// Each part is an item of it.
    progress: crate::progress::Progress,
}

impl Parts {
    /// Adds one part: its findings (located at the server and the part),
    /// its case and its notes.
    fn add(&mut self, part: &str, outcome: Outcome, started: Instant) {
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (findings, detail, status) = match outcome {
            Outcome::Done {
                findings,
                detail,
                unverified,
            } => {
                let status = if unverified {
                    CaseStatus::NotVerified
                } else if findings.iter().any(|f| self.report.gate.fails(f)) {
                    CaseStatus::Failed
                } else if findings.is_empty() {
                    CaseStatus::Passed
                } else {
                    CaseStatus::Noted
                };
                (findings, detail, status)
            }
            Outcome::Stopped(limit) => {
                let text = format!(
                    "{part} stopped after {} (--part-timeout): not verified; raise it to let it finish",
                    crate::output::duration_text(limit)
                );
                self.report.notes.push(Note::info(text.clone()));
                (Vec::new(), text, CaseStatus::NotVerified)
            }
            Outcome::Failed(why) => {
                self.report
                    .notes
                    .push(Note::failing(format!("{part}: {why}")));
                (Vec::new(), why, CaseStatus::Error)
            }
        };
        let mut indices = Vec::new();
        for mut f in findings {
            let context = match f.location.context.take() {
                Some(c) if c != part => format!("{part} {c}"),
                _ => part.to_string(),
            };
            f.location.context = Some(context);
            indices.push(self.report.findings.len());
            self.report.findings.push(f);
        }
        let detail = if detail.is_empty() {
            counted(indices.len())
        } else {
            detail
        };
        self.progress
            .finish_item(part, &format!("{} · {detail}", status.as_str()));
        self.report.cases.push(Case {
            suite: String::new(),
            class: String::new(),
            name: part.to_string(),
            status,
            label: String::new(),
            detail,
            duration_ms: Some(ms),
            findings: indices,
        });
    }
}

/// How one part ended.
enum Outcome {
    /// It ran: its findings, a one-line summary (empty: counted), and
    /// whether it could verify nothing.
    Done {
        findings: Vec<Finding>,
        detail: String,
        unverified: bool,
    },
    /// It ran out of its time.
    Stopped(Duration),
    /// It could not run (the server could not be reached).
    Failed(String),
}

impl Outcome {
    fn of(findings: Vec<Finding>) -> Outcome {
        Outcome::Done {
            findings,
            detail: String::new(),
            unverified: false,
        }
    }
}

/// Runs `part` within the part timeout.
async fn bounded<F: std::future::Future<Output = Outcome>>(limit: Duration, part: F) -> Outcome {
    tokio::time::timeout(limit, part)
        .await
        .unwrap_or(Outcome::Stopped(limit))
}

/// What lint and scan read: the lists, and the skills the server declares
/// beside them.
fn listing_document(
    listings: &crate::client::listing::Listings,
    surface: &crate::extensions::Surface,
) -> serde_json::Value {
    let mut document = json!({
        "tools": listings.tools,
        "prompts": listings.prompts,
        "resources": listings.resources,
        "resourceTemplates": listings.templates,
    });
    if !surface.skills.is_empty() {
        document["skills"] = serde_json::Value::Array(surface.skills.clone());
    }
    document
}

async fn examine(
    args: &DoctorArgs,
    probe_args: &ProbeArgs,
    prober: &mut Prober,
    pinned: Option<&Lock>,
    tell: &(dyn Fn(&str) + Sync),
    progress: &crate::progress::Progress,
) -> Report {
    let mut parts = Parts {
        report: Report::new("doctor", prober.label()),
        progress: progress.clone(),
    };
    parts.report.layout = Layout::Triage;
    parts.report.case_view = CaseView::Table;
    parts.report.gate.strict = args.strict;
    parts.report.gate.fail_on = args.fail_on;
    let label = prober.label();
    parts
        .report
        .facts
        .push((String::new(), prober.transport().as_str().to_string()));
    if let Some(loaded) = crate::config::loaded() {
        parts
            .report
            .facts
            .push(("config".into(), loaded.path.display().to_string()));
    }
    let limit = args.part_timeout;

    // The listing every offline rule reads.
    tell("listing");
    let started = Instant::now();
    progress.start("listing");
    let listings = match tokio::time::timeout(limit, prober.list()).await {
        Ok(Ok(listings)) => listings,
        Ok(Err(e)) => {
            let why = format!("cannot list what {label} offers: {e}");
            parts.add("listing", Outcome::Failed(why), started);
            return parts.report;
        }
        Err(_) => {
            parts.add("listing", Outcome::Stopped(limit), started);
            return parts.report;
        }
    };
    progress.finish_item("listing", "listed");
    let surface = extensions_part(prober, &listings, limit, &mut parts).await;
    let document = listing_document(&listings, &surface);

    tell("lint");
    let started = Instant::now();
    progress.start("lint");
    let linted = match lint::lint_listing(&document, &lint::LintOptions::default()) {
        Ok(findings) => Outcome::of(at_server(findings, &label)),
        Err(e) => Outcome::Failed(e.to_string()),
    };
    parts.add("lint", linted, started);

    tell("scan");
    let started = Instant::now();
    progress.start("scan");
    let servers = [(label.clone(), document.clone())];
    let scanned = match scan_all(&servers, &surface) {
        Ok(findings) => Outcome::of(findings),
        Err(e) => Outcome::Failed(e.to_string()),
    };
    parts.add("scan", scanned, started);

    tell("audit");
    let started = Instant::now();
    progress.start("audit");
    let audited = bounded(limit, audit_part(prober, &label, &progress.within("audit"))).await;
    parts.add("audit", audited, started);

    tell("conformance");
    let started = Instant::now();
    let plan = crate::commands::conformance::Plan {
        protocol_version: args.protocol_version.clone(),
        timeout: args.timeout.min(Duration::from_secs(30)),
        max_wait: Duration::from_secs(60).max(args.timeout.min(Duration::from_secs(30))),
        capture_out: None,
        strict: false,
    };
    let endpoint: Endpoint = prober.endpoint().clone();
    progress.start("conformance");
    let conformed = bounded(
        limit,
        conformance_part(&plan, &endpoint, &label, &progress.within("conformance")),
    )
    .await;
    parts.add("conformance", conformed, started);

    if let Some(url) = &args.target.url {
        tell("probe");
        let started = Instant::now();
        progress.start("probe");
        let probed = bounded(limit, probe_part(args, url, &label)).await;
        parts.add("probe", probed, started);
    }

    if let Some(pinned) = pinned {
        tell("lock");
        let started = Instant::now();
        progress.start("lock");
        let locked = match listings.to_lock(&label) {
            Ok(now) => {
                let changes = lock::diff(pinned, &now);
                let mut findings = at_server(lock::report(&changes, "lock").findings, &label);
                for f in &mut findings {
                    f.location.file = args.lock.as_ref().map(|p| p.display().to_string());
                }
                Outcome::of(findings)
            }
            Err(e) => Outcome::Failed(e.to_string()),
        };
        parts.add("lock", locked, started);
    }

    if args.fuzz {
        tell("fuzz");
        let started = Instant::now();
        let fuzz_args = crate::commands::fuzz::FuzzArgs {
            probe: ProbeArgs {
                target: TargetArgs {
                    server: probe_args.target.server.clone(),
                    url: probe_args.target.url.clone(),
                    transport: probe_args.target.transport,
                    headers: probe_args.target.headers.clone(),
                    docker: probe_args.target.docker.clone(),
                    auth: probe_args.target.auth.clone(),
                },
                fixture: None,
                include_writes: false,
                timeout: Some(args.timeout),
                format: args.format,
                findings: FindingsArgs::default(),
                protocol_version: probe_args.protocol_version.clone(),
            },
            runs: args.runs,
            seed: args.seed,
            tools: Vec::new(),
            output: None,
            force: false,
            no_shrink: false,
            stateful: false,
            sequences: STATEFUL_SEQUENCES,
            progress: crate::progress::ProgressArgs::default(),
        };
        progress.start("fuzz");
        let fuzzed = bounded(
            limit,
            fuzz_part(prober, &fuzz_args, &label, &progress.within("fuzz")),
        )
        .await;
        parts.add("fuzz", fuzzed, started);
    }
    summarize(&mut parts.report);
    parts.report
}

/// What the server serves of the extensions (its skills with their files,
/// the app views its tools name), read within `limit` for lint and scan;
/// what could not be read is a failing note, never a clean pass.
async fn extensions_part(
    prober: &mut Prober,
    listings: &crate::client::listing::Listings,
    limit: Duration,
    parts: &mut Parts,
) -> crate::extensions::Surface {
    let read = crate::extensions::read_server(prober, listings);
    let surface = match tokio::time::timeout(limit, read).await {
        Ok(surface) => surface,
        Err(_) => crate::extensions::Surface {
            notes: vec![format!(
                "the skills and app views were not read within {}",
                crate::output::duration_text(limit)
            )],
            ..crate::extensions::Surface::default()
        },
    };
    for note in &surface.notes {
        parts
            .report
            .notes
            .push(Note::failing(format!("{note}; it was not scanned")));
    }
    surface
}

/// The scan part: the listing, the skill files and the app views.
fn scan_all(
    servers: &[(String, serde_json::Value)],
    surface: &crate::extensions::Surface,
) -> std::result::Result<Vec<Finding>, scan::ScanInputError> {
    let options = scan::ScanOptions::default();
    let mut findings = scan::scan_listings(servers, &options)?;
    let label = servers.first().map_or("", |(l, _)| l.as_str());
    findings.extend(scan::scan_skill_files(label, &surface.files, &options)?);
    for (uri, html) in &surface.views {
        findings.extend(scan::scan_app_html(label, uri, html, &options)?);
    }
    Ok(findings)
}

/// `findings` located at the server `label`.
fn at_server(mut findings: Vec<Finding>, label: &str) -> Vec<Finding> {
    for f in &mut findings {
        f.location.server = Some(label.to_string());
    }
    findings
}

/// `n finding(s)`.
fn counted(n: usize) -> String {
    format!("{n} finding{}", if n == 1 { "" } else { "s" })
}

/// The audit part: every item called once, never a tool that may write.
async fn audit_part(
    prober: &mut Prober,
    label: &str,
    progress: &crate::progress::Progress,
) -> Outcome {
    match crate::commands::audit::audit(prober, false, progress).await {
        Ok((audit, _, answers)) => {
            let skipped = audit
                .results
                .iter()
                .filter(|r| r.status == probe::Status::Skipped)
                .count();
            let called = audit.results.len() - skipped;
            let mut findings = at_server(probe::audit_findings(&audit).findings, label);
            findings.extend(answers);
            Outcome::Done {
                detail: format!(
                    "{called} called, {skipped} may write · {}",
                    counted(findings.len())
                ),
                findings,
                unverified: false,
            }
        }
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// The conformance part: a probe session in each era the server offers,
/// judged by the invariants.
async fn conformance_part(
    plan: &crate::commands::conformance::Plan,
    endpoint: &Endpoint,
    label: &str,
    progress: &crate::progress::Progress,
) -> Outcome {
    let report = match crate::commands::conformance::judge(plan, endpoint, progress).await {
        Ok(report) => report,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let mut revisions: Vec<&str> = Vec::new();
    for c in &report.cases {
        if !revisions.contains(&c.suite.as_str()) {
            revisions.push(&c.suite);
        }
    }
    let count = |status: CaseStatus| report.cases.iter().filter(|c| c.status == status).count();
    let errored: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.status == CaseStatus::Error)
        .map(|c| format!("{}: {}", c.suite, c.detail))
        .collect();
    if !errored.is_empty() {
        return Outcome::Failed(errored.join("; "));
    }
    let detail = format!(
        "{} · {} held, {} failed, {} unverified",
        revisions.join(", "),
        count(CaseStatus::Passed),
        count(CaseStatus::Failed),
        count(CaseStatus::NotVerified)
    );
    Outcome::Done {
        detail,
        findings: at_server(report.findings, label),
        unverified: false,
    }
}

/// The HTTP probes of `url`, with the OAuth checks when asked.
async fn probe_part(args: &DoctorArgs, url: &str, label: &str) -> Outcome {
    let client = args.target.auth.client();
    let found = crate::commands::http_probe::findings(
        url,
        &args.target.headers,
        args.timeout,
        args.auth,
        client,
    )
    .await;
    match found {
        Ok(findings) => Outcome::of(at_server(findings, label)),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// The fuzz part: seeded inputs to every tool that does not write, then
/// the read-only stateful sequences (a repeated read, a lookup of a
/// missing key), each on a fresh server.
async fn fuzz_part(
    prober: &mut Prober,
    fuzz_args: &crate::commands::fuzz::FuzzArgs,
    label: &str,
    progress: &crate::progress::Progress,
) -> Outcome {
    let report = match crate::commands::fuzz::fuzz(prober, fuzz_args, progress).await {
        Ok((report, _)) => report,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let mut findings = at_server(probe::fuzz_findings(&report).findings, label);
    let options = crate::commands::fuzz::StatefulOptions {
        seed: fuzz_args.seed,
        sequences: fuzz_args.sequences,
        allow_writes: false,
        shrink: true,
    };
    let stateful = match crate::commands::fuzz::stateful(prober, &options).await {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(format!("stateful sequences: {e}")),
    };
    findings.extend(at_server(
        probe::stateful_report::stateful_findings(&stateful),
        label,
    ));
    Outcome::Done {
        detail: format!(
            "{} inputs to {} tools, {} read-only sequences, seed {}",
            report.summary.runs, report.summary.tools, stateful.sequences, report.seed
        ),
        findings,
        unverified: false,
    }
}

/// The summary line: the score, the counts, a mark per part.
fn summarize(report: &mut Report) {
    let scored = match report.health_score() {
        Some(s) => format!("Score {s}/100"),
        None => format!("No score ({} could not run)", report.unrun().join(", ")),
    };
    let marks: Vec<String> = report
        .cases
        .iter()
        .map(|c| {
            let mark = match c.status {
                CaseStatus::Passed | CaseStatus::Noted => "✓",
                CaseStatus::Failed | CaseStatus::Error => "✗",
                CaseStatus::Skipped | CaseStatus::NotVerified => "?",
            };
            format!("{} {mark}", c.name)
        })
        .collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    report.summary.push(format!(
        "{scored} · {}, {}, {} · {}",
        plural(report.count(Level::Error), "error"),
        plural(report.count(Level::Warning), "warning"),
        plural(report.count(Level::Note), "note"),
        marks.join(" · ")
    ));
}
