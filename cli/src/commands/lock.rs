//! `mcpcheck lock`: pin what a server offers (`--write`), or compare what it
//! offers now with the pinned surface (`--check`). The lock and the diff
//! are `mcpcheck_core::lock`'s; this command lists and reads files.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::findings::Family;
use mcpcheck_core::lock::{self, Lock};

use crate::error::{Error, Result, verdict};
use crate::files::{display, read_text};
use crate::output::err;
use crate::probe::{ProbeArgs, Prober};
use crate::target::{HttpTransport, TargetArgs};
use crate::verdict::{FindingsArgs, FindingsFormat, finish};

/// Pin every tool, prompt, resource and template definition a server
/// offers, or check that it still offers the same.
#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("source").required(true).args(["server", "url", "listing"])),
    group(clap::ArgGroup::new("mode").required(true).args(["write", "check"])),
    after_help = concat!("A change is breaking (an item removed, a new required parameter, a changed type, \
a narrowed enum, a changed outputSchema, a changed mimeType), suspicious (a description, title, \
annotation or parameter description changed while the name stayed: what a rug pull looks \
like) or compatible (a new item, a new optional parameter): rules L101, L201 and L301 \
(`mcpcheck rule L201`).\n\n\
Exit status: 0 written, or no breaking or suspicious change; 1 a breaking or suspicious change, \
or the server could not be reached; 2 a usage error (an unreadable lockfile or listing).\n\n",
    crate::help::docs_line!("lock")
))]
pub struct LockArgs {
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

    /// A saved listing instead of a server (a tools/list result, an object
    /// with tools, prompts, resources and resourceTemplates, or a JSON-RPC
    /// response wrapping one).
    #[arg(long, value_name = "FILE")]
    listing: Option<PathBuf>,

    /// Write the lockfile (an existing one is replaced: that is how a
    /// reviewed change is accepted).
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,

    /// Compare with the lockfile.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,

    /// With --check, also judge this consumer contract (`mcpcheck contract
    /// record`) against the surface as it is now: which recorded consumer
    /// a change breaks (repeatable).
    #[arg(long = "contract", value_name = "FILE", requires = "check")]
    contracts: Vec<PathBuf>,

    /// How the changes are printed (with --check).
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    format: FindingsFormat,

    #[command(flatten)]
    findings: FindingsArgs,

    /// How long connecting and each list may take (a live server only).
    #[arg(long, value_name = "DURATION", default_value = "30s", conflicts_with = "listing", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// The protocol version to ask for at initialize (a live server only).
    #[arg(
        long,
        value_name = "VERSION",
        default_value = "2025-11-25",
        conflicts_with = "listing"
    )]
    protocol_version: String,
}

pub fn main(args: &LockArgs) -> Result<ExitCode> {
    let now = match &args.listing {
        Some(path) => {
            let name = display(path);
            let text = read_text(path)?;
            let listing = crate::client::listing::read_saved("lock", &name, &text)?;
            Lock::from_listing(&name, &listing).map_err(|e| Error::Usage(e.to_string()))?
        }
        None => match live(args)? {
            Ok(found) => found,
            Err(message) => {
                err(&format!("mcpcheck lock: {message}\n"));
                return Ok(verdict(false));
            }
        },
    };
    let label = now.server.clone();
    if let Some(path) = &args.write {
        std::fs::write(path, now.to_json())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        err(&format!(
            "mcpcheck lock: pinned {} of {} in {}\n",
            mcpcheck_core::report::plural(now.items.len(), "definition", "definitions"),
            label,
            path.display()
        ));
        return Ok(verdict(true));
    }
    let Some(path) = &args.check else {
        return Err(Error::Usage("give --write FILE or --check FILE".into()));
    };
    let text = read_text(path)?;
    let pinned =
        Lock::from_json(&text).map_err(|e| Error::Usage(format!("{}: {e}", display(path))))?;
    let contracts = crate::commands::contract::read_contracts(&args.contracts)?;
    let changes = lock::diff(&pinned, &now);
    let mut report = lock::report(&changes, &display(path));
    if contracts.is_empty() {
        return finish(report, args.format, &args.findings, &[Family::Lock]);
    }
    // The surface as it is now, as a listing, for the contracts.
    let mut listing =
        serde_json::json!({"tools": [], "prompts": [], "resources": [], "resourceTemplates": []});
    for item in &now.items {
        let key = match item.kind.as_str() {
            "tool" => "tools",
            "prompt" => "prompts",
            "resource" => "resources",
            "template" => "resourceTemplates",
            _ => continue,
        };
        if let Some(list) = listing[key].as_array_mut() {
            list.push(item.definition.clone());
        }
    }
    let broken = crate::commands::contract::surface_findings(&label, &contracts, &listing);
    report.summary.push(format!(
        "{}: {}",
        mcpcheck_core::report::plural(contracts.len(), "consumer contract", "consumer contracts"),
        if broken.is_empty() {
            "every recorded expectation still holds".to_string()
        } else {
            format!(
                "{} broken",
                mcpcheck_core::report::plural(broken.len(), "expectation", "expectations")
            )
        }
    ));
    report.findings.extend(broken);
    finish(
        report,
        args.format,
        &args.findings,
        &[Family::Lock, Family::Contract],
    )
}

/// List a live server and lock what it offers (with its `server/discover`
/// answer when it speaks 2026-07-28); the inner error means it could not be
/// reached or listed.
fn live(args: &LockArgs) -> Result<std::result::Result<Lock, LiveError>> {
    let probe_args = ProbeArgs {
        target: TargetArgs {
            server: args.server.clone(),
            url: args.url.clone(),
            transport: args.transport,
            headers: args.headers.clone(),
            docker: None,
            auth: Default::default(),
        },
        fixture: None,
        include_writes: false,
        timeout: Some(args.timeout),
        format: FindingsFormat::Text,
        findings: FindingsArgs::default(),
        protocol_version: args.protocol_version.clone(),
    };
    let mut prober = Prober::new(&probe_args, args.timeout)?;
    let runtime = crate::error::runtime()?;
    Ok(runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let listed = prober.list().await;
        prober.close().await;
        let label = prober.label();
        if let Ok(l) = &listed {
            l.print_notes("lock", &label);
        }
        match listed {
            Ok(l) => l
                .to_lock(&label)
                .map_err(|source| LiveError::Lock { label, source }),
            Err(source) => Err(LiveError::Listing { label, source }),
        }
    }))
}

/// Why a live server could not be locked: its label, and why.
#[derive(Debug, thiserror::Error)]
enum LiveError {
    /// It could not be reached or listed.
    #[error("{label}: {source}")]
    Listing {
        label: String,
        #[source]
        source: crate::probe::ProberError,
    },
    /// What it listed is not a listing.
    #[error("{label}: {source}")]
    Lock {
        label: String,
        #[source]
        source: mcpcheck_core::error::DocError,
    },
}
