//! Running suites (`mcpcheck run` and `ci`, whose flags are in
//! `commands/run.rs`): load them, run every test against its server, check
//! every answer in core, report.
//!
//! Tests run in parallel and are reported in suite order whatever finishes
//! first. Tests with the same server share a session unless the run says
//! `--isolate` (a test that does not pass on a shared session is run again
//! on a fresh one); how many sessions are open at once is `--jobs`, or is
//! chosen from the cores and what each server costs to start ([`lanes`],
//! [`schedule`]). A file with per-test hooks runs its tests one at a time so
//! each test sits inside its `beforeEach`/`afterEach` bracket.

pub mod exec;
pub mod fixture;
pub mod hooks;
pub mod lanes;
pub mod last_run;
pub mod list;
pub mod lockgate;
pub mod restore;
mod retry;
pub mod schedule;
pub mod shard;
pub mod snapshots;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use mcpcheck_core::diag::{self, Paint};
use mcpcheck_core::report::text::{TextOptions, summary_line, test_block};
use mcpcheck_core::results::{Results, TestResult, TestStatus};
use mcpcheck_core::suite::{self, SuiteFile, Test};
use tokio::sync::Mutex;

use crate::commands::run::RunArgs;
use crate::error::Result;
use crate::files::{display, read_text, suite_files};
use crate::output::{err, out, paint_for_stderr, paint_for_stdout};

use exec::{RunSettings, TestEnv};

/// Where a command's tests are, and the server and fixture they get:
/// `--suite`, `--server`, `--fixture` (shared by `run`, `ci` and `coverage`).
#[derive(Debug, Args)]
pub struct SuiteSource {
    /// Suite files or directories (a directory's .yaml/.yml files and those of
    /// its subdirectories).
    #[arg(long = "suite", required = true, num_args = 1.., value_name = "PATH")]
    pub suites: Vec<PathBuf>,

    /// Override every stdio server's command and arguments (split like a
    /// shell would: quotes group words); `{{fixture}}` in it is the fixture
    /// copy. What the suite's own command line needed is no longer asked for.
    #[arg(long, value_name = "CMD")]
    pub server: Option<String>,

    /// A fixture directory, substituted for `{{fixture}}` as a fresh copy (the
    /// original is never changed).
    #[arg(long, value_name = "DIR")]
    pub fixture: Option<PathBuf>,

    /// Run every stdio server (that sets no `docker:` itself) in this
    /// container image: `docker run --rm -i -v FIXTURE:FIXTURE -e NAME… IMAGE
    /// CMD` (podman when docker is not installed).
    #[arg(long, value_name = "IMAGE")]
    pub docker: Option<String>,
}

/// The suites a [`SuiteSource`] names, loaded, and its `--server` split.
pub(crate) struct Sources {
    pub suites: Vec<SuiteFile>,
    pub server_override: Option<Vec<String>>,
}

impl SuiteSource {
    /// Load the suites (printing each file's diagnostics) and check
    /// `--server` and `--fixture`.
    pub(crate) fn load(&self) -> Result<Sources> {
        let mut suites = load_suites(&self.suites)?;
        let server_override = split_server(self.server.as_deref())?;
        fixture_is_dir(self.fixture.as_deref())?;
        if let Some(argv) = &server_override {
            replace_stdio_servers(&mut suites, argv);
        }
        let any_stdio = suites.iter().flat_map(|s| &s.tests).any(|t| {
            t.server
                .as_ref()
                .is_some_and(|s| s.transport == suite::Transport::Stdio)
        });
        for (flag, given) in [
            ("--server", self.server.is_some()),
            ("--docker", self.docker.is_some()),
        ] {
            if given && !any_stdio {
                err(&format!(
                    "mcpcheck: warning: {flag} applies to stdio servers, and no test of these suites has one: it is not used\n"
                ));
            }
        }
        Ok(Sources {
            suites,
            server_override,
        })
    }
}

/// `--server CMD`: every stdio server's command and arguments become CMD's,
/// so what the suite's own command line needed (`{{fixture}}`, a hook's
/// variable) is no longer asked for, and what CMD names is.
fn replace_stdio_servers(suites: &mut [SuiteFile], argv: &[String]) {
    let Some((command, args)) = argv.split_first() else {
        return;
    };
    for t in suites.iter_mut().flat_map(|s| s.tests.iter_mut()) {
        if let Some(server) = t.server.as_mut()
            && server.transport == suite::Transport::Stdio
        {
            server.command = Some(command.clone());
            server.args = args.to_vec();
        }
    }
}

/// A hook's failure as a result's reason.
fn why(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// One test to run, with where its result goes.
struct Planned {
    index: usize,
    file: usize,
    test: Test,
}

/// Load every suite file under `paths`, printing each file's diagnostics
/// (warnings too); an error when a path cannot be read or a file has errors.
fn load_suites(paths: &[PathBuf]) -> Result<Vec<SuiteFile>> {
    let paint_err = paint_for_stderr();
    let files = suite_files(paths)?;
    let mut suites: Vec<SuiteFile> = Vec::new();
    let mut load_errors = false;
    let mut budget = suite::LoadBudget::default();
    for f in &files {
        let name = display(f);
        let text = match read_text(f) {
            Ok(t) => t,
            Err(e) => {
                err(&format!("error: {e}\n"));
                load_errors = true;
                continue;
            }
        };
        let loaded = suite::load_in(&name, &text, &mut budget);
        if !loaded.diagnostics.is_empty() {
            let lookup = |n: &str| (n == name).then_some(text.as_str());
            err(&diag::render(&loaded.diagnostics, &lookup, paint_err));
        }
        load_errors |= loaded.has_errors();
        suites.push(loaded.suite);
    }
    if load_errors {
        return Err("fix the errors above (`mcpcheck validate` lists them) and run again".into());
    }
    Ok(suites)
}

/// `--server CMD` split like a shell would; `None` without it.
fn split_server(server: Option<&str>) -> Result<Option<Vec<String>>> {
    match server {
        None => Ok(None),
        Some(s) => match shlex::split(s) {
            Some(argv) if !argv.is_empty() => Ok(Some(argv)),
            _ => Err(format!("cannot split --server {s:?}: check its quotes").into()),
        },
    }
}

/// `--fixture`, when given, must be a directory.
fn fixture_is_dir(fixture: Option<&std::path::Path>) -> Result<()> {
    match fixture {
        Some(f) if !f.is_dir() => Err(format!("--fixture {}: not a directory", f.display()).into()),
        _ => Ok(()),
    }
}

/// One run of the suites `args` name: the verdict of the gate, or why the
/// run could not start.
pub async fn run(args: &RunArgs, is_ci: bool) -> Result<ExitCode> {
    let started = Instant::now();
    let mut chosen = choose(args)?;
    if args.last_failed && !last_run::select(&mut chosen.plan)? {
        return Ok(ExitCode::SUCCESS);
    }
    if args.list {
        let json = args.document() == Some(crate::reports::ResultsFormat::Json);
        out(&list::render(chosen.plan.iter().map(|p| &p.test), json));
        return Ok(ExitCode::SUCCESS);
    }
    let settings = chosen.settings(args)?;
    // Ctrl-C, SIGTERM, SIGHUP: kill every server and hook process group,
    // remove the fixture copies, then leave.
    crate::signals::clean_up_on_interrupt();
    let Executed {
        doc,
        recorded,
        sessions,
        redactor,
    } = execute(args, &mut chosen, &settings, started, None).await?;
    last_run::save(&doc);
    let document = args.document();
    print_outcome(&doc, args, document, recorded);
    // The surface after the tests: what the tests saw is what is compared.
    let lock_passed = match &chosen.lock_gate {
        None => true,
        Some(gate) => {
            let tests = chosen.plan.iter().map(|p| (p.file, &p.test));
            gate.report(tests, &chosen.suites, &settings, document.is_some())
                .await
        }
    };
    let how = crate::reports::Conclude {
        step_summary: is_ci,
        gate: true,
        comparison: if document.is_some() {
            crate::reports::Print::Stderr
        } else {
            crate::reports::Print::Stdout
        },
    };
    let concluded =
        crate::reports::conclude_with(&doc, &args.reports, how, sessions, Some(redactor));
    if !lock_passed {
        err(
            "mcpcheck: failed: the server's surface differs from the lockfile (breaking or suspicious changes above)\n",
        );
        return Ok(ExitCode::from(1));
    }
    Ok(concluded.exit_code())
}

/// The tests a run of `args` runs: the suites loaded (their diagnostics
/// printed on stderr), the tests `--filter` and `--shard` leave, in suite
/// order, and the lockfile to compare with afterwards.
pub(crate) struct Chosen {
    pub suites: Vec<SuiteFile>,
    plan: Vec<Planned>,
    server_override: Option<Vec<String>>,
    shard_record: Option<mcpcheck_core::shard::ShardRecord>,
    lock_gate: Option<lockgate::LockGate>,
}

impl Chosen {
    /// Each test, with the index of its file in `suites`.
    pub(crate) fn tests(&self) -> impl Iterator<Item = (usize, &Test)> {
        self.plan.iter().map(|p| (p.file, &p.test))
    }

    /// The runner's settings from `run`'s flags.
    pub(crate) fn settings(&self, args: &RunArgs) -> Result<RunSettings> {
        settings_of(args, self.server_override.clone())
    }
}

/// Load the suites `args` name and choose the tests to run.
pub(crate) fn choose(args: &RunArgs) -> Result<Chosen> {
    let Sources {
        suites,
        server_override,
    } = args.source.load()?;
    let filters = build_filter(&args.filter)?;
    let lock_gate = args
        .lock
        .as_deref()
        .map(lockgate::LockGate::read)
        .transpose()?;

    let mut plan: Vec<Planned> = Vec::new();
    for (fi, s) in suites.iter().enumerate() {
        for t in &s.tests {
            let qualified = format!("{}:{}", t.file, t.name);
            if filters
                .as_ref()
                .is_none_or(|g| g.is_match(&t.name) || g.is_match(&qualified))
            {
                plan.push(Planned {
                    index: plan.len(),
                    file: fi,
                    test: t.clone(),
                });
            }
        }
    }
    if plan.is_empty() {
        return Err("no tests to run (check --filter)".into());
    }
    // A shard may get no test at all (more machines than tests): it still
    // writes its (empty) part for the merge.
    let shard_record = match args.shard {
        Some(sh) => Some(shard::apply(
            sh,
            args.shard_timings.as_deref(),
            &suites,
            &mut plan,
        )?),
        None => None,
    };
    Ok(Chosen {
        suites,
        plan,
        server_override,
        shard_record,
        lock_gate,
    })
}

/// Told of each test as it finishes: how many have, of how many, and its
/// result (redacted).
pub(crate) type Tell = Arc<dyn Fn(usize, usize, &TestResult) + Send + Sync>;

/// What a run gave: its results document (redacted, as `--json` prints
/// it), the line that says which snapshots were recorded, each test's
/// recorded session for the HTML report (none unless it asks for one), and
/// what hides the run's secrets.
pub(crate) struct Executed {
    pub doc: Results,
    recorded: Option<String>,
    sessions: Vec<Option<crate::html::SessionFile>>,
    redactor: mcpcheck_core::redact::Redactor,
}

/// Run the chosen tests (every trial; snapshots compared or recorded;
/// captures written) and build the results document, timed from `started`.
/// Nothing is printed on stdout unless `args` asks for the text report;
/// with `tell`, each finished test is told to it instead of the live
/// `[i/N]` line. No server outlives the call; the caller sets up
/// [`crate::signals::clean_up_on_interrupt`] once.
pub(crate) async fn execute(
    args: &RunArgs,
    chosen: &mut Chosen,
    settings: &RunSettings,
    started: Instant,
    tell: Option<Tell>,
) -> Result<Executed> {
    let suites = &chosen.suites;
    let plan = &mut chosen.plan;
    let mut stores = prepare_snapshots(args, plan)?;
    let jobs = match args.jobs {
        Some(n) => lanes::Jobs::Given(n.max(1)),
        None => lanes::Jobs::Auto,
    };
    if args.reuse_server {
        say_what_does_not_share(suites);
    }
    if args.isolate {
        say_what_shares_anyway(suites);
    }
    let per_trial = plan.len();
    let redactor = mcpcheck_core::redact::Redactor::for_suite(suites, &|n| std::env::var(n).ok());
    // With trials or retries, tests are reported once, folded, at the end.
    let print_tests = args.document().is_none() && args.trials == 1 && args.retries == 0;
    // A caller told of each test (`mcpcheck mcp`) says the progress itself.
    let mode = if tell.is_some() {
        crate::progress::Mode::Off
    } else {
        crate::progress::Mode::of(args.progress.quiet)
    };
    let progress = crate::progress::Progress::new(mode, "", per_trial);
    let mut printer = Printer::new(
        per_trial,
        args.trials as usize,
        print_tests,
        redactor.clone(),
        progress,
    );
    printer.tell = tell;
    let printer = Arc::new(Mutex::new(printer));
    let html = !args.reports.html_dirs().is_empty();
    let record = args.capture.is_some() || html;
    let retry::Trials {
        runs,
        logs,
        answers,
        earlier,
    } = retry::run_trials(
        plan,
        suites,
        settings,
        jobs,
        record,
        &printer,
        (args.trials, args.retries),
    )
    .await;
    let recorded = match (&mut stores, args.update_snapshots) {
        (Some(stores), true) => record_snapshots(stores, plan, &answers),
        _ => None,
    };
    let doc = Results::from_trials(runs, started.elapsed().as_millis() as u64);
    // With what context hooks handed the servers, now all known.
    let redactor = hooks::with_hook_secrets(&redactor);
    let mut doc = redactor.redact_results(&doc);
    doc.shard = chosen.shard_record.clone();
    annotate(&mut doc, plan, &redactor);
    printer.lock().await.finish();
    // No server outlives the run.
    crate::client::stdio::reap_all().await;
    schedule::save();

    let sessions = if html {
        session_files(plan, &logs, &earlier, &redactor)
    } else {
        Vec::new()
    };
    if let Some(dir) = &args.capture {
        write_captures(dir, &doc, logs, &redactor);
    }
    Ok(Executed {
        doc,
        recorded,
        sessions,
        redactor,
    })
}

/// What stdout shows after the tests: the document asked for, the folded
/// trials, or the summary line; and what recording snapshots changed (on
/// stderr when stdout carries a document).
fn print_outcome(
    doc: &Results,
    args: &RunArgs,
    document: Option<crate::reports::ResultsFormat>,
    recorded: Option<String>,
) {
    let paint = paint_for_stdout();
    if let Some(format) = document {
        // As `report` would render the saved document (the comparison with a
        // baseline goes to stderr).
        out(&crate::reports::render(
            doc,
            format,
            mcpcheck_core::diag::Paint::Plain,
            None,
        ));
    } else if args.trials > 1 || args.retries > 0 {
        let opts = TextOptions {
            paint,
            all_checks: false,
        };
        out(&mcpcheck_core::report::text::render(doc, opts));
    } else {
        out(&format!("\n{}", summary_line(doc, paint)));
    }
    let rerun = rerun_line(doc);
    for line in [rerun, recorded].into_iter().flatten() {
        if document.is_some() {
            err(&line);
        } else {
            out(&line);
        }
    }
}

/// The line that says how many tests did not pass on a shared server and
/// were run again fresh, when any was.
fn rerun_line(doc: &Results) -> Option<String> {
    let n = lanes::reruns(&doc.tests);
    (n > 0).then(|| {
        format!(
            "{} not pass on a shared server and {} run again on a fresh one; the fresh verdict is reported (--isolate runs every test on its own)\n",
            mcpcheck_core::report::plural(n, "test did", "tests did"),
            if n == 1 { "was" } else { "were" }
        )
    })
}

/// `--isolate` given: say which files share their server all the same
/// (they say `share_server: true`).
fn say_what_shares_anyway(suites: &[SuiteFile]) {
    for s in suites
        .iter()
        .filter(|s| s.share_server && !s.tests.is_empty())
    {
        err(&format!(
            "mcpcheck: note: --isolate does not apply to the tests of {}: it says `share_server: true`\n",
            s.file
        ));
    }
}

/// `--reuse-server` given: say which tests it does not apply to (reuse is
/// the default; the flag is there for mcp-assert's command lines).
fn say_what_does_not_share(suites: &[SuiteFile]) {
    for s in suites.iter().filter(|s| !s.tests.is_empty()) {
        let why = if s.isolate {
            "it says `share_server: false`"
        } else if s.hooks.has_per_test() && !s.share_server {
            "each test runs inside its beforeEach/afterEach hooks"
        } else {
            continue;
        };
        err(&format!(
            "mcpcheck: note: --reuse-server does not apply to the tests of {}: {why}, so each gets a server of its own\n",
            s.file
        ));
    }
}

/// The snapshot files `--snapshots` and `--update-snapshots` read, with the
/// checks they add to the plan's tests (a recording run checks no inline
/// snapshot: it writes them).
fn prepare_snapshots(args: &RunArgs, plan: &mut [Planned]) -> Result<Option<snapshots::Stores>> {
    let stores = if args.snapshots || args.update_snapshots {
        Some(snapshots::Stores::load(plan.iter().map(|p| &p.test))?)
    } else {
        None
    };
    if let (true, Some(stores)) = (args.snapshots, &stores) {
        for p in plan.iter_mut() {
            stores.add_checks(&mut p.test);
        }
    }
    if args.update_snapshots {
        for p in plan.iter_mut() {
            snapshots::drop_inline_checks(&mut p.test);
        }
    }
    if args.update_snapshots && args.fail_tool_errors {
        for p in plan.iter_mut().filter(|p| snapshots::is_tool_test(&p.test)) {
            p.test
                .expect
                .items
                .push(mcpcheck_core::snapshot::no_tool_error_check());
        }
    }
    Ok(stores)
}

/// `--update-snapshots`: the last trial's answers recorded and written
/// (in `.snapshots.json`, and in the suite files for the tests with a
/// `snapshot:` of their own); the line that says what changed.
fn record_snapshots(
    stores: &mut snapshots::Stores,
    plan: &[Planned],
    answers: &[Option<exec::Answer>],
) -> Option<String> {
    let mut counts = stores.record(plan.iter().map(|p| &p.test), answers);
    let (inline, mut written_inline, errors) =
        snapshots::record_inline(plan.iter().map(|p| &p.test), answers);
    counts.add(inline);
    for e in errors {
        err(&format!("mcpcheck run: snapshot not written: {e}\n"));
    }
    match stores.write() {
        Ok(mut written) => {
            written.append(&mut written_inline);
            Some(counts.summary(&written))
        }
        Err(e) => {
            err(&format!("mcpcheck run: {e}\n"));
            None
        }
    }
}

/// The runner's settings from `run`'s flags.
fn settings_of(args: &RunArgs, server_override: Option<Vec<String>>) -> Result<RunSettings> {
    Ok(RunSettings {
        fixture: args.source.fixture.clone(),
        server_override,
        default_timeout: args.timeout,
        protocol_version: args.protocol_version.clone(),
        today: chrono::Utc::now().date_naive(),
        default_settle: args.settle,
        keep_answers: args.update_snapshots,
        docker: args.source.docker.clone(),
        reuse_server: !args.isolate,
        auth: args.auth.block()?,
        output_scan: !args.no_output_scan,
    })
}

/// What running a list of tests gave, in the list's order.
pub(crate) struct Ran {
    pub results: Vec<TestResult>,
    pub answers: Vec<Option<exec::Answer>>,
}

/// Run `tests` (each with the index of its file in `suites`) once, as `run`
/// does (hooks, `share_server`, `jobs` at a time), for commands that report
/// the results their own way: nothing is printed but the live `[i/N]` line
/// on a terminal. No server outlives the call; the caller sets up
/// [`crate::signals::clean_up_on_interrupt`] once.
pub(crate) async fn run_tests(
    tests: Vec<(usize, Test)>,
    suites: &[SuiteFile],
    settings: &RunSettings,
    jobs: usize,
) -> Ran {
    let plan: Vec<Planned> = tests
        .into_iter()
        .enumerate()
        .map(|(index, (file, test))| Planned { index, file, test })
        .collect();
    let redactor = mcpcheck_core::redact::Redactor::for_suite(suites, &|n| std::env::var(n).ok());
    // As before: a live line on a terminal, nothing elsewhere.
    let mode = match crate::progress::Mode::of(false) {
        crate::progress::Mode::Live => crate::progress::Mode::Live,
        _ => crate::progress::Mode::Off,
    };
    let progress = crate::progress::Progress::new(mode, "", plan.len());
    let printer = Arc::new(Mutex::new(Printer::new(
        plan.len(),
        1,
        false,
        redactor,
        progress,
    )));
    let (results, _, answers) = run_plan(
        &plan,
        suites,
        settings,
        lanes::Jobs::Given(jobs),
        false,
        printer.clone(),
        0,
    )
    .await;
    printer.lock().await.finish();
    crate::client::stdio::reap_all().await;
    schedule::save();
    Ran { results, answers }
}

/// `--jobs`, or the number of cores.
pub(crate) fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from))
        .max(1)
}

/// Run every planned test once; results in plan order. `offset` counts the
/// tests of earlier trials, for the progress line.
async fn run_plan(
    plan: &[Planned],
    suites: &[SuiteFile],
    settings: &RunSettings,
    jobs: lanes::Jobs,
    record: bool,
    printer: Arc<Mutex<Printer>>,
    offset: usize,
) -> (
    Vec<TestResult>,
    Vec<Option<exec::SessionLog>>,
    Vec<Option<exec::Answer>>,
) {
    let total = plan.len();
    printer.lock().await.next_trial(offset);
    let mut results: Vec<Option<TestResult>> = vec![None; total];
    let mut logs: Vec<Option<exec::SessionLog>> = (0..total).map(|_| None).collect();
    let mut answers: Vec<Option<exec::Answer>> = vec![None; total];
    // Consecutive files without hooks share one parallel batch; a file with
    // hooks is its own batch, bracketed by beforeAll/afterAll.
    let mut batches: Vec<(Option<usize>, Vec<Planned>)> = Vec::new();
    for p in plan {
        let p = Planned {
            index: p.index,
            file: p.file,
            test: p.test.clone(),
        };
        let hooked = !suites[p.file].hooks.is_empty();
        match batches.last_mut() {
            Some((Some(f), items)) if hooked && *f == p.file => items.push(p),
            Some((None, items)) if !hooked => items.push(p),
            _ => batches.push((hooked.then_some(p.file), vec![p])),
        }
    }
    for (hook_file, items) in batches {
        let done: Vec<(usize, exec::Finished)> = match hook_file {
            None => {
                let work = items
                    .into_iter()
                    .map(|p| {
                        let env = TestEnv::for_file(&suites[p.file].env);
                        (p, env)
                    })
                    .collect();
                let sharing = Sharing::of(suites);
                lanes::run_parallel(work, &sharing, settings, jobs, record, printer.clone()).await
            }
            Some(fi) => {
                run_hooked(items, settings, &suites[fi], jobs, record, printer.clone()).await
            }
        };
        for (i, f) in done {
            results[i] = Some(f.result);
            logs[i] = f.session;
            answers[i] = f.answer;
        }
    }
    (results.into_iter().flatten().collect(), logs, answers)
}

fn build_filter(globs: &[String]) -> Result<Option<globset::GlobSet>, FilterError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(globset::Glob::new(g).map_err(|source| FilterError::Glob {
            glob: g.clone(),
            source,
        })?);
    }
    b.build().map(Some).map_err(FilterError::Set)
}

/// Why the `--filter` globs were refused.
#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    #[error("--filter {glob:?}: {source}")]
    Glob {
        glob: String,
        #[source]
        source: globset::Error,
    },
    #[error("--filter: {0}")]
    Set(#[source] globset::Error),
}

/// Which files share servers: composed files with `share_server` (their
/// tests together, in order), and test files with `share_server`, by
/// directory; and which never do (`share_server: false`).
struct Sharing {
    composed: BTreeSet<usize>,
    by_directory: BTreeMap<usize, String>,
    isolated: BTreeSet<usize>,
}

impl Sharing {
    fn of(suites: &[SuiteFile]) -> Self {
        let mut sharing = Sharing {
            composed: BTreeSet::new(),
            by_directory: BTreeMap::new(),
            isolated: suites
                .iter()
                .enumerate()
                .filter(|(_, s)| s.isolate)
                .map(|(i, _)| i)
                .collect(),
        };
        for (i, s) in suites.iter().enumerate().filter(|(_, s)| s.share_server) {
            if s.composed {
                sharing.composed.insert(i);
            } else {
                let dir = std::path::Path::new(&s.file)
                    .parent()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                sharing.by_directory.insert(i, dir);
            }
        }
        sharing
    }
}

async fn run_hooked(
    items: Vec<Planned>,
    settings: &RunSettings,
    suite: &SuiteFile,
    jobs: lanes::Jobs,
    record: bool,
    printer: Arc<Mutex<Printer>>,
) -> Vec<(usize, exec::Finished)> {
    let suite_name = suite.name.clone().unwrap_or_else(|| suite.file.clone());
    // Hooks see the file's `env` expanded, and what they set replaces it.
    let file_env = TestEnv::for_file(&suite.env);
    let mut env = file_env.env.clone();
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    let mut done = Vec::new();

    if let Err(e) = hooks::run_phase(
        &suite.hooks.before_all,
        "beforeAll",
        &suite_name,
        None,
        &mut env,
        &mut vars,
        None,
    )
    .await
    {
        // No test can run against the setup it needed.
        for p in items {
            let r = TestResult::fail(&p.test.name, &p.test.file, Some(p.test.line), &why(&e), 0);
            printer.lock().await.finished(p.index, &r);
            done.push((p.index, exec::Finished::without_session(r)));
        }
        return done;
    }

    let items_file = items.first().map(|p| p.file);
    if suite.hooks.has_per_test() {
        let mut shared = suite.share_server.then(exec::Shared::default);
        for p in items {
            printer.lock().await.started(&p.test.name);
            let mut test_vars = vars.clone();
            let mut test_env = env.clone();
            let before = hooks::run_phase(
                &suite.hooks.before_each,
                "beforeEach",
                &suite_name,
                Some(&p.test.name),
                &mut test_env,
                &mut test_vars,
                None,
            )
            .await;
            let mut finished = match before {
                Err(e) => exec::Finished::without_session(TestResult::fail(
                    &p.test.name,
                    &p.test.file,
                    Some(p.test.line),
                    &why(e),
                    0,
                )),
                Ok(Some(reason)) => exec::Finished::without_session(TestResult::skip(
                    &p.test.name,
                    &p.test.file,
                    Some(p.test.line),
                    &reason,
                )),
                Ok(None) => {
                    exec::run_test(
                        &p.test,
                        settings,
                        &TestEnv {
                            env: test_env.clone(),
                            vars: test_vars.clone(),
                            file_env: file_env.file_env.clone(),
                        },
                        record,
                        shared.as_mut(),
                    )
                    .await
                }
            };
            let verdict = serde_json::json!({
                "verdict": finished.result.status.as_str(),
                "message": finished.result.message,
            });
            if let Err(e) = hooks::run_phase(
                &suite.hooks.after_each,
                "afterEach",
                &suite_name,
                Some(&p.test.name),
                &mut test_env,
                &mut test_vars,
                Some(verdict),
            )
            .await
            {
                // Reported, not fatal: the test already ran.
                finished.result.warnings.push(e.to_string());
            }
            printer.lock().await.finished(p.index, &finished.result);
            done.push((p.index, finished));
        }
        if let Some(sh) = shared.as_mut() {
            sh.close().await;
        }
    } else {
        let work = items
            .into_iter()
            .map(|p| {
                let tenv = TestEnv {
                    env: env.clone(),
                    vars: vars.clone(),
                    file_env: file_env.file_env.clone(),
                };
                (p, tenv)
            })
            .collect();
        // A file with hooks is a composed file.
        let sharing = Sharing {
            composed: items_file
                .filter(|_| suite.share_server)
                .into_iter()
                .collect(),
            by_directory: BTreeMap::new(),
            isolated: items_file.filter(|_| suite.isolate).into_iter().collect(),
        };
        done = lanes::run_parallel(work, &sharing, settings, jobs, record, printer.clone()).await;
    }

    let summary = serde_json::json!({
        "verdict": TestStatus::batch_verdict(done.iter().map(|(_, f)| f.result.status)),
    });
    if let Err(e) = hooks::run_phase(
        &suite.hooks.after_all,
        "afterAll",
        &suite_name,
        None,
        &mut env,
        &mut vars,
        Some(summary),
    )
    .await
    {
        err(&format!("warning: {e}\n"));
        if let Some((_, last)) = done.last_mut() {
            last.result.warnings.push(e.to_string());
        }
    }
    done
}

/// Prints results in suite order as they complete, and the progress on
/// stderr (`crate::progress`: a live `[i/N] name · 1.2 s` line on a
/// terminal, a line per finished test elsewhere when stdout does not already
/// say each one, nothing with `--quiet`).
struct Printer {
    /// The tests of one trial.
    per_trial: usize,
    /// How many trials there are (`--trials`).
    trials: usize,
    next: usize,
    pending: BTreeMap<usize, TestResult>,
    /// Print each test's block as soon as its predecessors are printed.
    print_tests: bool,
    paint: Paint,
    progress: crate::progress::Progress,
    redactor: mcpcheck_core::redact::Redactor,
    /// Told of each finished test, in the order they finish, and how many
    /// have of how many (`mcpcheck mcp`'s progress).
    tell: Option<Tell>,
    done: usize,
}

impl Printer {
    fn new(
        per_trial: usize,
        trials: usize,
        print_tests: bool,
        redactor: mcpcheck_core::redact::Redactor,
        progress: crate::progress::Progress,
    ) -> Self {
        progress.set_lines(!print_tests);
        progress.set_total(per_trial);
        Printer {
            per_trial,
            trials,
            next: 0,
            pending: BTreeMap::new(),
            print_tests,
            paint: paint_for_stdout(),
            progress,
            redactor,
            tell: None,
            done: 0,
        }
    }

    /// A new trial's tests are numbered from 0 again; `done_so_far` counts
    /// the tests of the trials before it.
    fn next_trial(&mut self, done_so_far: usize) {
        self.done = done_so_far;
        self.next = 0;
        self.pending.clear();
        if self.trials > 1 && self.per_trial > 0 {
            let trial = done_so_far / self.per_trial + 1;
            self.progress
                .restart(self.per_trial, &format!("trial {trial} of {}", self.trials));
        }
    }

    /// The next tests are the retries of the ones that did not pass: `n`
    /// of them, attempt `attempt` of `retries`.
    fn retrying(&mut self, n: usize, attempt: u32, retries: u32) {
        self.next = 0;
        self.pending.clear();
        self.progress
            .restart(n, &format!("retry {attempt} of {retries}"));
    }

    /// A test's name as the progress shows it: secrets hidden.
    fn shown(&self, name: &str) -> String {
        hooks::with_hook_secrets(&self.redactor).redact_str(name)
    }

    fn started(&mut self, name: &str) {
        self.progress.start(&self.shown(name));
    }

    fn finished(&mut self, index: usize, result: &TestResult) {
        self.done += 1;
        if let Some(tell) = &self.tell {
            let shown = hooks::with_hook_secrets(&self.redactor).redact_test(result);
            tell(self.done, self.per_trial * self.trials, &shown);
        }
        self.pending.insert(index, result.clone());
        let outcome = if result.status == TestStatus::Skip || result.message.is_empty() {
            result.label().to_string()
        } else {
            let first = result.message.lines().next().unwrap_or("");
            format!(
                "{} — {}",
                result.label(),
                mcpcheck_core::truncate(first, 120)
            )
        };
        let outcome = hooks::with_hook_secrets(&self.redactor).redact_str(&outcome);
        self.progress
            .finish_item(&self.shown(&result.name), &outcome);
        while let Some(r) = self.pending.remove(&self.next) {
            if self.print_tests {
                let r = hooks::with_hook_secrets(&self.redactor).redact_test(&r);
                let block = test_block(
                    &r,
                    TextOptions {
                        paint: self.paint,
                        all_checks: false,
                    },
                );
                self.progress.suspend(|| out(&block));
            }
            self.next += 1;
        }
    }

    fn finish(&mut self) {
        self.progress.finish();
    }
}

/// Each test's tags and server, from its suite (in plan order, which is the
/// results' order), secrets hidden.
fn annotate(doc: &mut Results, plan: &[Planned], redactor: &mcpcheck_core::redact::Redactor) {
    for (t, p) in doc.tests.iter_mut().zip(plan) {
        t.tags = p.test.tags.clone();
        if let Some(server) = &p.test.server {
            t.server = redactor.redact_str(&server_label(server));
        }
    }
}

/// A server as the report names it: its URL, or its command line.
fn server_label(server: &suite::Server) -> String {
    match (&server.url, &server.command) {
        (Some(url), _) => url.clone(),
        (None, Some(command)) => {
            let mut words = vec![command.clone()];
            words.extend(server.args.iter().cloned());
            shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
        }
        (None, None) => String::new(),
    }
}

/// Each test's recorded session for the HTML report (in plan order, which
/// is the results' order): its capture, redacted as `--capture` writes it,
/// the method its checks looked at, the server's stderr, and the same of
/// the attempts before it (`--retries`), with their results.
fn session_files(
    plan: &[Planned],
    logs: &[Option<exec::SessionLog>],
    earlier: &[Vec<(TestResult, Option<exec::SessionLog>)>],
    redactor: &mcpcheck_core::redact::Redactor,
) -> Vec<Option<crate::html::SessionFile>> {
    let file = |p: &Planned, log: &exec::SessionLog| {
        let text = crate::capture::render(&crate::capture::Recording {
            label: &log.label,
            transport: log.transport,
            protocol_version: &log.protocol_version,
            events: &log.events,
        });
        crate::html::SessionFile {
            capture: crate::capture::redact(&text, redactor),
            method: p.test.action.method().map(|m| m.name().to_string()),
            stderr: log.stderr.clone(),
            earlier: Vec::new(),
        }
    };
    plan.iter()
        .enumerate()
        .map(|(i, p)| {
            let mut f = file(p, logs.get(i)?.as_ref()?);
            for (result, log) in earlier.get(i).into_iter().flatten() {
                let session = log.as_ref().map(|l| file(p, l));
                f.earlier
                    .push((redactor.redact_test(result), session.unwrap_or_default()));
            }
            Some(f)
        })
        .collect()
}

fn write_captures(
    dir: &std::path::Path,
    doc: &Results,
    logs: Vec<Option<exec::SessionLog>>,
    redactor: &mcpcheck_core::redact::Redactor,
) {
    if let Err(e) = std::fs::create_dir_all(dir) {
        err(&format!(
            "mcpcheck run: cannot create the capture directory {}: {e}\n",
            dir.display()
        ));
        return;
    }
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for (t, log) in doc.tests.iter().zip(logs) {
        let Some(log) = log else { continue };
        let text = crate::capture::render(&crate::capture::Recording {
            label: &log.label,
            transport: log.transport,
            protocol_version: &log.protocol_version,
            events: &log.events,
        });
        let text = crate::capture::redact(&text, redactor);
        let name = unique(sanitize(&t.name), &mut taken);
        let path = dir.join(format!("{name}.json"));
        if let Err(e) = std::fs::write(&path, text + "\n") {
            err(&format!(
                "mcpcheck run: cannot write {}: {e}\n",
                path.display()
            ));
        }
    }
}

/// `name`, or `name-2`, `name-3`, … when a test of the run already took it
/// (two files may each have a test called `smoke`).
fn unique(name: String, taken: &mut BTreeSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 1;
    while !taken.insert(candidate.clone()) {
        n += 1;
        candidate = format!("{name}-{n}");
    }
    candidate
}

fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // At most 200 bytes, cut at a character boundary: a file name may have
    // 255 bytes, and a long non-ASCII name counted in characters overflows it.
    let mut end = s.len().min(200);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_names_are_sanitized_and_never_reused() {
        let mut taken = BTreeSet::new();
        assert_eq!(unique(sanitize("smoke"), &mut taken), "smoke");
        assert_eq!(unique(sanitize("smoke"), &mut taken), "smoke-2");
        assert_eq!(unique(sanitize("smoke"), &mut taken), "smoke-3");
        assert_eq!(unique(sanitize("a/b c"), &mut taken), "a_b_c");
        assert_eq!(unique(sanitize("a b/c"), &mut taken), "a_b_c-2");
        let long = "ü".repeat(300);
        let name = sanitize(&long);
        assert_eq!(name.len(), 200);
        assert!(name.chars().all(|c| c == 'ü'));
    }

    #[test]
    fn a_filter_that_is_not_a_glob_is_named() {
        assert!(build_filter(&[]).expect("no globs").is_none());
        let err = build_filter(&["ok*".into(), "a[".into()]).expect_err("not a glob");
        assert!(matches!(&err, FilterError::Glob { glob, .. } if glob == "a["));
        assert!(err.to_string().starts_with("--filter \"a[\": "), "{err}");
    }
}
