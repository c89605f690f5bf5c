//! `mcpcheck coverage`: which tools, prompts, resources and resource templates
//! of each server the suites use, and which names they use that the server
//! does not offer. Each server is started (or connected to) once and listed;
//! no tool is called. What counts as used is decided by
//! `mcpcheck_core::coverage`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::coverage::{self, Coverage, Offered};
use mcpcheck_core::results::Results;
use mcpcheck_core::suite::Test;

use crate::client::Endpoint;
use crate::client::listing::list_everything;
use crate::error::{Result, verdict};
use crate::output::{Format, err, out};
use crate::run::exec::{self, RunSettings};
use crate::run::{Sources, SuiteSource, fixture};

/// Show which tools, prompts and resources of each server the suites use, and
/// which names they use that the server does not offer.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Each server the suites name is started (or connected to) once and listed; no \
tool is called. A test uses what its block calls (`assert` and the other tool blocks their \
`tool`, `assert_prompts.get` its prompt, `assert_resources.read`/`subscribe` their URI and any \
template that expands to it, `assert_completion` its `ref`); tools called only in `setup` are shown but \
not counted; tests with `skip:` are left out. Tests whose servers differ only in environment \
or headers share one listing.\n\nWith --results (the `mcpcheck run --json` output of the same \
suites), each item is also marked passing when a test that uses it passed.\n\nExit status: 0 done \
(and at least --min percent used, --min-passing percent passing); 1 below either, or a server could \
not be listed; 2 a usage or configuration error.\n\n",
    crate::help::docs_line!("suites")
))]
pub struct CoverageArgs {
    #[command(flatten)]
    source: SuiteSource,

    /// Exit 1 when less than PCT percent of the offered items are used (all
    /// servers together).
    #[arg(long, value_name = "PCT", value_parser = crate::reports::parse_percent)]
    min: Option<f64>,

    /// The results of a run of the same suites (`mcpcheck run --json`
    /// output): adds which items a passing test uses.
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,

    /// Exit 1 when less than PCT percent of the offered items are used by a
    /// passing test (needs --results).
    #[arg(long, value_name = "PCT", value_parser = crate::reports::parse_percent, requires = "results")]
    min_passing: Option<f64>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// How long starting and listing one server may take.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// The MCP protocol version to ask for at initialize.
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25")]
    protocol_version: String,
}

pub fn main(args: CoverageArgs) -> Result<ExitCode> {
    crate::error::runtime()?.block_on(coverage(args))
}

/// One server and the tests that use it.
struct Group<'a> {
    endpoint: Endpoint,
    tests: Vec<&'a Test>,
}

async fn coverage(args: CoverageArgs) -> Result<ExitCode> {
    crate::signals::clean_up_on_interrupt();
    let Sources {
        suites,
        server_override,
    } = args.source.load()?;
    let results = args.results.as_deref().map(read_results).transpose()?;
    let copy = match &args.source.fixture {
        Some(f) => Some(fixture::copy(f)?),
        None => None,
    };
    let settings = RunSettings {
        fixture: args.source.fixture.clone(),
        server_override,
        default_timeout: args.timeout,
        protocol_version: args.protocol_version.clone(),
        today: chrono::Utc::now().date_naive(),
        default_settle: Duration::ZERO,
        keep_answers: false,
        docker: args.source.docker.clone(),
        reuse_server: false,
        auth: None,
        output_scan: false,
    };

    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut problems = false;
    for s in &suites {
        let env = exec::TestEnv::for_file(&s.env);
        for t in s.tests.iter().filter(|t| t.skip.is_none()) {
            let endpoint = match exec::endpoint_of(
                t,
                &settings,
                &env,
                copy.as_ref().map(|c| c.path.as_path()),
            ) {
                Ok(Some(e)) => e,
                Ok(None) => continue,
                Err(e) => {
                    err(&format!(
                        "{}:{}: test \"{}\": {e}\n",
                        t.file, t.line, t.name
                    ));
                    problems = true;
                    continue;
                }
            };
            // One listing per command line or URL: tests that differ only in
            // environment or headers share it (the first one's is used).
            let key = endpoint.label();
            match groups.iter_mut().find(|g| g.endpoint.label() == key) {
                Some(g) => g.tests.push(t),
                None => groups.push(Group {
                    endpoint,
                    tests: vec![t],
                }),
            }
        }
    }
    if problems {
        return Err("fix the server settings above and run again".into());
    }
    if groups.is_empty() {
        return Err("no test of these suites uses a server".into());
    }

    let mut all: Vec<Coverage> = Vec::new();
    let mut unlisted = false;
    for g in &groups {
        match list(&g.endpoint, &args).await {
            Ok(offered) => all.push(coverage::compute(&g.endpoint.label(), &offered, &g.tests)),
            Err(e) => {
                err(&format!(
                    "mcpcheck coverage: {}: cannot list what it offers: {e}\n",
                    g.endpoint.label()
                ));
                unlisted = true;
            }
        }
    }
    crate::client::stdio::reap_all().await;
    drop(copy);

    if let Some(results) = &results {
        for t in &coverage::apply_results(&mut all, results) {
            err(&format!(
                "mcpcheck coverage: warning: {}:{}: test \"{}\" is not in {}; counted as not passing\n",
                t.file,
                t.line,
                t.name,
                args.results
                    .as_deref()
                    .map_or(String::new(), |p| p.display().to_string())
            ));
        }
    }

    match args.format {
        Format::Text => out(&coverage::render_text(&all)),
        Format::Json => out(&format!("{:#}\n", coverage::render_json(&all))),
    }
    let below = args.min.and_then(|min| coverage::below_min(&all, min));
    if let Some(why) = &below {
        err(&format!("mcpcheck coverage: {why}\n"));
    }
    let below_passing = args
        .min_passing
        .and_then(|min| coverage::below_min_passing(&all, min));
    if let Some(why) = &below_passing {
        err(&format!("mcpcheck coverage: {why}\n"));
    }
    Ok(verdict(
        !unlisted && below.is_none() && below_passing.is_none(),
    ))
}

/// The results document `--results` names.
fn read_results(path: &Path) -> Result<Results> {
    let text = crate::files::read_text(path).map_err(|e| format!("{e} (the results document)"))?;
    Ok(Results::from_json(&text).map_err(|e| {
        format!(
            "{}: {e} (write one with `mcpcheck run --json > FILE`)",
            path.display()
        )
    })?)
}

/// Start (or connect to) the server once and list everything it offers.
async fn list(
    endpoint: &Endpoint,
    args: &CoverageArgs,
) -> Result<Offered, crate::client::listing::ListingError> {
    let l = list_everything(endpoint, &args.protocol_version, args.timeout).await?;
    l.print_notes("coverage", &endpoint.label());
    Ok(Offered::from_lists(
        &l.tools,
        &l.prompts,
        &l.resources,
        &l.templates,
    ))
}
