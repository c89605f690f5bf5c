//! `mcpcheck matrix`: one suite against several servers, one column each. The
//! suite runs once per server with the runner `run` uses; the table, its
//! verdict and its renderings are `mcpcheck_core::report::matrix`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use mcpcheck_core::report::matrix::Matrix;
use mcpcheck_core::results::Results;
use mcpcheck_core::suite::Transport;

use crate::error::{Result, verdict};
use crate::output::{out, paint_for_stdout};
use crate::run::exec::RunSettings;
use crate::run::{Sources, SuiteSource, jobs_or_cores, run_tests};

/// Run one suite against several servers and show a table of verdicts, one
/// column per server, with the tests on which they disagree marked.
#[derive(Debug, Args)]
#[command(after_help = crate::help::docs_line!("matrix"))]
pub struct MatrixArgs {
    /// Suite files or directories (as for `run`).
    #[arg(long = "suite", required = true, num_args = 1.., value_name = "PATH")]
    pub suites: Vec<PathBuf>,

    /// A column: every server of the suite replaced by the stdio server CMD
    /// (split like a shell would), named NAME. Repeatable.
    #[arg(long = "server", value_name = "NAME=CMD")]
    pub servers: Vec<String>,

    /// A column: every server of the suite replaced by the Streamable HTTP
    /// server at URL, named NAME. Repeatable; these columns follow the
    /// `--server` ones.
    #[arg(long = "url", value_name = "NAME=URL")]
    pub urls: Vec<String>,

    /// A fixture directory, substituted for `{{fixture}}` as a fresh copy.
    #[arg(long, value_name = "DIR")]
    pub fixture: Option<PathBuf>,

    /// The timeout of a test without its own `timeout:` (e.g. 30s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    pub timeout: Duration,

    /// How many tests run at once on each server (default: the number of
    /// cores). The servers take their turn one after another.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// The MCP protocol version to speak, as `mcpcheck run --protocol-version`
    /// (a server's `protocol_version:` in the suite wins).
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25", value_parser = super::run::known_protocol_version)]
    pub protocol_version: String,

    /// How the table is printed.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Markdown,
    Json,
}

/// What replaces every server of the suite in one column.
#[derive(Clone, Debug)]
enum Replacement {
    Stdio(Vec<String>),
    Http(String),
}

pub fn main(args: &MatrixArgs) -> Result<ExitCode> {
    crate::error::runtime()?.block_on(matrix(args))
}

/// `NAME=VALUE`, split at the first `=`, both sides non-empty.
fn name_and_value<'a>(flag: &str, spec: &'a str, what: &str) -> Result<(&'a str, &'a str)> {
    match spec.split_once('=') {
        Some((name, value))
            if !name.trim().is_empty()
                && !name.trim().contains(char::is_whitespace)
                && !value.trim().is_empty() =>
        {
            Ok((name.trim(), value.trim()))
        }
        _ => Err(format!(
            "{flag} {spec:?}: expected NAME={what}, e.g. {flag} \"main={}\"",
            if what == "URL" {
                "http://127.0.0.1:8080/mcp"
            } else {
                "node server.js"
            }
        )
        .into()),
    }
}

/// The columns the flags name, in order: `--server`s, then `--url`s.
fn columns(args: &MatrixArgs) -> Result<Vec<(String, Replacement)>> {
    let mut columns = Vec::new();
    for spec in &args.servers {
        let (name, cmd) = name_and_value("--server", spec, "CMD")?;
        let argv = match shlex::split(cmd) {
            Some(argv) if !argv.is_empty() => argv,
            _ => return Err(format!("cannot split --server {spec:?}: check its quotes").into()),
        };
        columns.push((name.to_string(), Replacement::Stdio(argv)));
    }
    for spec in &args.urls {
        let (name, url) = name_and_value("--url", spec, "URL")?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(
                format!("--url {spec:?}: the URL must start with http:// or https://").into(),
            );
        }
        columns.push((name.to_string(), Replacement::Http(url.to_string())));
    }
    if columns.is_empty() {
        return Err("name at least one server: --server NAME=CMD or --url NAME=URL".into());
    }
    let mut seen = BTreeSet::new();
    for (name, _) in &columns {
        if !seen.insert(name.as_str()) {
            return Err(
                format!("two columns are named {name:?}: give each server its own name").into(),
            );
        }
    }
    Ok(columns)
}

async fn matrix(args: &MatrixArgs) -> Result<ExitCode> {
    let columns = columns(args)?;
    let Sources { suites, .. } = SuiteSource {
        suites: args.suites.clone(),
        server: None,
        fixture: args.fixture.clone(),
        docker: None,
    }
    .load()?;
    let tests: Vec<(usize, mcpcheck_core::suite::Test)> = suites
        .iter()
        .enumerate()
        .flat_map(|(fi, s)| s.tests.iter().map(move |t| (fi, t.clone())))
        .collect();
    if tests.is_empty() {
        return Err("the suites have no tests".into());
    }
    let settings = RunSettings {
        fixture: args.fixture.clone(),
        server_override: None,
        default_timeout: args.timeout,
        protocol_version: args.protocol_version.clone(),
        today: chrono::Utc::now().date_naive(),
        default_settle: Duration::from_millis(100),
        keep_answers: false,
        docker: None,
        reuse_server: false,
        auth: None,
    };
    let redactor = mcpcheck_core::redact::Redactor::for_suite(&suites, &|n| std::env::var(n).ok());
    crate::signals::clean_up_on_interrupt();
    let jobs = jobs_or_cores(args.jobs);
    let mut docs: Vec<(String, Results)> = Vec::new();
    for (name, replacement) in &columns {
        let started = std::time::Instant::now();
        let column_tests = tests
            .iter()
            .map(|(fi, t)| {
                let mut t = t.clone();
                replace_server(&mut t, replacement);
                (*fi, t)
            })
            .collect();
        let ran = run_tests(column_tests, &suites, &settings, jobs).await;
        let doc = Results::from_trials(vec![ran.results], started.elapsed().as_millis() as u64);
        let redactor = crate::run::hooks::with_hook_secrets(&redactor);
        docs.push((name.clone(), redactor.redact_results(&doc)));
    }
    let table = Matrix::build(&docs);
    let text = match args.format {
        Format::Text => table.render_text(paint_for_stdout()),
        Format::Markdown => table.render_markdown(),
        Format::Json => table.to_json() + "\n",
    };
    out(&text);
    Ok(verdict(table.passed))
}

/// Point `test` at the column's server, whatever server it names (a
/// trajectory test, which has none, is left as it is). The rest of the
/// server entry (its `env`, `headers`, client mocks) stays.
fn replace_server(test: &mut mcpcheck_core::suite::Test, replacement: &Replacement) {
    let Some(server) = test.server.as_mut() else {
        return;
    };
    match replacement {
        Replacement::Stdio(argv) => {
            server.transport = Transport::Stdio;
            server.command = argv.first().cloned();
            server.args = argv.iter().skip(1).cloned().collect();
            server.url = None;
        }
        Replacement::Http(url) => {
            server.transport = Transport::Http;
            server.url = Some(url.clone());
            server.command = None;
            server.args = Vec::new();
            server.docker = None;
        }
    }
}
