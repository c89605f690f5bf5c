//! `mcpcheck replay`: serve recorded captures as a deterministic mock MCP
//! server. Which recorded answer a request gets is decided by
//! `mcpcheck_core::replay`; `replay/` moves the bytes over stdio or
//! Streamable HTTP.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::replay::{Library, Matching};

use crate::error::Result;
use crate::files::{display, read_text};

/// Serve recorded sessions (capture files, or directories of them as `run
/// --capture DIR` writes) as a mock MCP server that answers every recorded
/// request with its recorded answer.
#[derive(Debug, Args)]
#[command(after_help = crate::help::docs_line!("replay"))]
pub struct ReplayArgs {
    /// Capture files, or directories of them (their `.json` files).
    #[arg(required = true, value_name = "CAPTURE")]
    pub captures: Vec<PathBuf>,

    /// Serve one session on stdin/stdout (the default); --path and
    /// --request-timeout are for --http.
    #[arg(long, conflicts_with_all = ["http", "path", "request_timeout"])]
    pub stdio: bool,

    /// Serve Streamable HTTP at http://ADDR + --path (port 0 picks a free
    /// port, printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,

    /// Path of the Streamable HTTP endpoint.
    #[arg(long, value_name = "P", default_value = "/mcp", requires = "http")]
    pub path: String,

    /// How a request is compared with the recorded ones: `exact` (method and
    /// params), `ignore-ids` (also ignores `_meta` and members named `id`,
    /// `*Id`, `*_id`) or `name` (method and the tool, prompt or resource;
    /// of those, the closest arguments answer). JSON-RPC ids, progress
    /// tokens and temporary fixture copies never matter.
    #[arg(long = "match", value_name = "MODE", default_value = "exact", value_parser = parse_matching)]
    pub matching: Matching,

    /// How long a client may take to send a request body (HTTP only).
    #[arg(long, value_name = "DURATION", default_value = "30s", requires = "http", value_parser = crate::output::parse_duration)]
    pub request_timeout: Duration,
}

fn parse_matching(s: &str) -> std::result::Result<Matching, crate::error::ValueError> {
    Matching::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Matching::ALL.iter().map(|(_, n, _)| *n).collect();
        crate::error::ValueError::Expected {
            known: names.join(", "),
        }
    })
}

pub fn main(args: &ReplayArgs) -> Result<ExitCode> {
    let library = load(&args.captures, args.matching)?;
    // The library lives as long as the server: every session borrows it.
    let library: &'static Library = Box::leak(Box::new(library));
    let runtime = crate::error::runtime()?;
    match &args.http {
        None => Ok(runtime.block_on(crate::replay::stdio::serve(library))),
        Some(addr) => runtime.block_on(crate::replay::http::serve(
            library,
            crate::replay::http::Options {
                addr: addr.clone(),
                path: args.path.clone(),
                request_timeout: args.request_timeout,
            },
        )),
    }
}

/// The capture files `paths` name: files as given, directories' `.json`
/// files in name order.
fn capture_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        if !meta.is_dir() {
            files.push(p.clone());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| format!("cannot read the directory {}: {e}", p.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "json"))
            .collect();
        if found.is_empty() {
            return Err(format!(
                "{}: no .json capture files in this directory (`mcpcheck run --capture {}` writes them)",
                p.display(),
                p.display()
            )
            .into());
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// Read and parse every capture; every problem of every file is reported.
fn load(paths: &[PathBuf], matching: Matching) -> Result<Library> {
    let mut texts = Vec::new();
    for f in capture_files(paths)? {
        let text = read_text(&f)?;
        texts.push((display(Path::new(&f)), text));
    }
    Library::load(&texts, matching).map_err(|errors| {
        let mut shown = String::new();
        for e in &errors {
            for p in &e.problems {
                shown.push_str(&format!("error: {}: {p}\n", e.source));
            }
        }
        shown.push_str(
            concat!(
                "mcpcheck replay: these files cannot be served: each must be a capture as `mcpcheck run --capture DIR` writes it (",
                crate::help::doc_url!("capture"),
                ")\n"
            ),
        );
        crate::error::Error::Diagnostics(shown)
    })
}
