//! What each tool of `mcpcheck mcp` does: read its arguments, check what
//! it would start or read against the policy, and call what the command of
//! the same purpose calls (`doctor::report`, the runner's `choose` and
//! `execute`, core's `api`, `lint`, `scan`, `generate`, the rule registry).
//! No verdict is decided here. Each returns the document the command
//! prints as JSON, or why it could not (a tool error).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpcheck_core::api::{self, SuiteValidation};
use mcpcheck_core::diag::{self, Diagnostic, Paint};
use mcpcheck_core::findings::render::{json as findings_json, rules as rule_render};
use mcpcheck_core::findings::{Family, Report, registry};
use mcpcheck_core::{lint, scan, suite};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::Shared;
use super::allow;
use crate::client::Endpoint;
use crate::target::{HttpTransport, TargetArgs};

/// A step of long work, for `notifications/progress`.
#[derive(Debug)]
pub struct Step {
    pub done: f64,
    pub total: Option<f64>,
    pub message: String,
}

/// Where a call tells its progress (nowhere when the client sent no
/// progress token).
#[derive(Clone, Debug, Default)]
pub struct Progress(pub Option<mpsc::UnboundedSender<Step>>);

impl Progress {
    pub fn step(&self, done: usize, total: Option<usize>, message: impl Into<String>) {
        if let Some(tx) = &self.0 {
            // Counts stay far below 2^53, so the f64 is exact.
            let _ = tx.send(Step {
                done: done as f64,
                total: total.map(|t| t as f64),
                message: message.into(),
            });
        }
    }
}

/// What a tool returns: its document as the command of the same purpose
/// prints it with `--json` (the text content), and as a value (the
/// structured content).
#[derive(Debug)]
pub struct Answer {
    pub text: String,
    pub value: Value,
}

impl Answer {
    /// The document a command printed.
    fn printed(text: String) -> Outcome {
        let value = serde_json::from_str(&text).map_err(CallError::Printed)?;
        Ok(Answer { text, value })
    }

    /// A document printed as the commands print theirs: pretty, with a
    /// final newline.
    fn of(value: Value) -> Answer {
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        Answer { text, value }
    }
}

/// What a tool call gives: its answer, or why there is none.
pub type Outcome = Result<Answer, CallError>;

/// Why a tool call has no answer; the caller reads it as the tool error's
/// text.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("the document does not read back as JSON: {0}")]
    Printed(#[source] serde_json::Error),
    /// The arguments do not fit the tool's input; serde names the one.
    #[error("invalid arguments: {0}")]
    Arguments(#[source] serde_json::Error),
    #[error("`{name}`: {source}")]
    Duration {
        name: String,
        #[source]
        source: crate::error::ValueError,
    },
    #[error("give the server as `server` (a command line) or as `url`, one of the two")]
    ServerOrUrl,
    #[error("`headers` are sent to a `url`; a `server` started on stdio takes none")]
    HeadersForStdio,
    /// The server could not be reached or written down.
    #[error(transparent)]
    Probe(#[from] crate::probe::ProberError),
    /// What the policy does not allow.
    #[error(transparent)]
    Refused(#[from] allow::Refusal),
    /// The client's roots, which the call needs, could not be had.
    #[error(transparent)]
    Roots(#[from] super::RootsError),
    /// What the command of the same purpose would have said, in its words
    /// (rendered diagnostics, a failed run's reason).
    #[error("{0}")]
    Failed(String),
}

impl From<String> for CallError {
    fn from(message: String) -> Self {
        Self::Failed(message)
    }
}

/// One call: the server's settings, the roots in force (for the tools that
/// start or read), and where progress goes.
pub struct Call {
    pub shared: Arc<Shared>,
    pub roots: Vec<PathBuf>,
    pub progress: Progress,
}

impl Call {
    /// Where relative paths and programs are taken from.
    fn base(&self) -> &Path {
        &self.shared.policy.root
    }

    /// `given`, which must exist inside the roots; `what` names it.
    fn existing(&self, given: &str, what: &str) -> Result<PathBuf, allow::Refusal> {
        allow::existing(given, self.base(), &self.roots, what)
    }

    /// The server `server` or `url` name, once the policy allows it.
    fn target(
        &self,
        server: Option<String>,
        url: Option<String>,
        headers: Vec<String>,
    ) -> Result<(TargetArgs, Endpoint), CallError> {
        if server.is_some() == url.is_some() {
            return Err(CallError::ServerOrUrl);
        }
        if server.is_some() && !headers.is_empty() {
            return Err(CallError::HeadersForStdio);
        }
        let target = TargetArgs {
            server,
            url,
            transport: HttpTransport::Http,
            headers,
            docker: None,
            auth: Default::default(),
        };
        let endpoint = target.endpoint().map_err(|e| e.to_string())?;
        self.shared.policy.check_endpoint(&endpoint, &self.roots)?;
        Ok((target, endpoint))
    }
}

/// The arguments of a call, read into `T`; an unknown or mistyped one is
/// named.
fn arguments<T: for<'de> Deserialize<'de>>(args: Value) -> Result<T, CallError> {
    serde_json::from_value(args).map_err(CallError::Arguments)
}

/// A duration argument (`30s`, `2m`, `500ms`).
fn duration(value: Option<&str>, default: Duration, name: &str) -> Result<Duration, CallError> {
    match value {
        None => Ok(default),
        Some(s) => crate::output::parse_duration(s).map_err(|source| CallError::Duration {
            name: name.to_string(),
            source,
        }),
    }
}

/// Diagnostics as `mcpcheck` prints them, plain.
fn rendered(diagnostics: &[Diagnostic], source: Option<(&str, &str)>) -> String {
    let lookup = |file: &str| {
        source
            .filter(|(name, _)| *name == file)
            .map(|(_, text)| text)
    };
    diag::render(diagnostics, &lookup, Paint::Plain)
}

/// `report` under the policy of every analysis: the rules selected in
/// mcpcheck.toml, and its suppressions (what `--format json` prints after
/// them, without a baseline).
fn with_policy(mut report: Report, judged: &[Family]) -> Outcome {
    let selection = crate::verdict::FindingsArgs::default()
        .selection()
        .map_err(|e| e.to_string())?;
    report.retain(|f| selection.runs(f.rule));
    if let Some(loaded) = crate::config::loaded() {
        report.suppress(
            &loaded.config.suppressions,
            &crate::verdict::today(),
            judged,
        );
    }
    Answer::printed(findings_json::render(&report))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DoctorIn {
    server: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: Vec<String>,
    fixture: Option<String>,
    lock: Option<String>,
    #[serde(default)]
    fuzz: bool,
    #[serde(default)]
    strict: bool,
    part_timeout: Option<String>,
}

/// `doctor`: the report `mcpcheck doctor --format json` prints.
pub async fn doctor(call: &Call, args: Value) -> Outcome {
    use crate::commands::doctor::{self, DoctorArgs};
    let a: DoctorIn = arguments(args)?;
    let (target, _) = call.target(a.server, a.url, a.headers)?;
    let fixture = match &a.fixture {
        Some(f) => {
            call.existing(f, "fixture")?;
            Some(PathBuf::from(f))
        }
        None => None,
    };
    let lock = match &a.lock {
        Some(l) => {
            call.existing(l, "lock")?;
            Some(PathBuf::from(l))
        }
        None => None,
    };
    let part_timeout = duration(
        a.part_timeout.as_deref(),
        Duration::from_secs(120),
        "part_timeout",
    )?;
    let args = DoctorArgs {
        target,
        fixture,
        lock,
        fuzz: a.fuzz,
        config: None,
        start_servers: false,
        runs: 20,
        seed: 1,
        auth: false,
        protocol_version: None,
        timeout: Duration::from_secs(30),
        part_timeout,
        strict: a.strict,
        fail_on: None,
        format: crate::verdict::FindingsFormat::Json,
        findings: crate::verdict::FindingsArgs::default(),
        progress: crate::progress::ProgressArgs { quiet: true },
    };
    let parts = doctor::parts(&args);
    let total = parts.len();
    let progress = |part: &str| {
        let at = parts.iter().position(|p| *p == part).unwrap_or(0);
        call.progress.step(at, Some(total), part);
    };
    // The client hears each part through MCP progress; stderr stays quiet.
    let (report, judged, _) = doctor::report(&args, &progress, &crate::progress::Progress::off())
        .await
        .map_err(|e| e.to_string())?;
    with_policy(report, &judged)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunIn {
    suite: String,
    server: Option<String>,
    fixture: Option<String>,
    #[serde(default)]
    filter: Vec<String>,
    timeout: Option<String>,
}

/// `run_suite`: the results document `mcpcheck run --json` prints.
pub async fn run_suite(call: &Call, args: Value) -> Outcome {
    use crate::commands::run::RunArgs;
    use crate::run::exec::{TestEnv, endpoint_of};
    let a: RunIn = arguments(args)?;
    // Every file of the suite inside the roots, and none with an error.
    let texts = suite_texts(call, &a.suite)?;
    let broken: Vec<String> = texts
        .iter()
        .filter_map(|(name, text)| {
            let loaded = suite::load(name, text);
            loaded
                .has_errors()
                .then(|| rendered(&loaded.diagnostics, Some((name, text))))
        })
        .collect();
    if !broken.is_empty() {
        return Err(CallError::Failed(format!(
            "the suite has errors; nothing was run:\n{}",
            broken.join("")
        )));
    }
    let fixture = match &a.fixture {
        Some(f) => Some(call.existing(f, "fixture").map(|_| PathBuf::from(f))?),
        None => None,
    };
    if let Some(server) = &a.server {
        let argv = shlex::split(server)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("cannot split `server` {server:?}: check its quotes"))?;
        call.shared
            .policy
            .check_program(&argv[0], None, &call.roots)?;
    }
    let run_args = RunArgs {
        source: crate::run::SuiteSource {
            suites: vec![PathBuf::from(&a.suite)],
            server: a.server.clone(),
            fixture: fixture.clone(),
            docker: None,
        },
        auth: Default::default(),
        jobs: None,
        timeout: duration(a.timeout.as_deref(), Duration::from_secs(30), "timeout")?,
        filter: a.filter,
        json: true,
        format: None,
        list: false,
        fail_tool_errors: false,
        capture: None,
        protocol_version: "2025-11-25".into(),
        settle: Duration::from_millis(100),
        trials: 1,
        retries: 0,
        last_failed: false,
        snapshots: false,
        update_snapshots: false,
        watch: false,
        watch_interval: Duration::from_millis(500),
        shard: None,
        shard_timings: None,
        reuse_server: false,
        isolate: false,
        no_output_scan: false,
        lock: None,
        reports: Default::default(),
        progress: crate::progress::ProgressArgs { quiet: true },
    };
    let started = Instant::now();
    let mut chosen = crate::run::choose(&run_args).map_err(|e| e.to_string())?;
    let settings = chosen.settings(&run_args).map_err(|e| e.to_string())?;
    // Every server a test starts or reaches, and every hook, allowed first.
    for (file, test) in chosen.tests() {
        let env = TestEnv::for_file(&chosen.suites[file].env);
        let at = format!("test `{}` ({}:{})", test.name, test.file, test.line);
        match endpoint_of(test, &settings, &env, fixture.as_deref()) {
            Ok(Some(endpoint)) => call
                .shared
                .policy
                .check_endpoint(&endpoint, &call.roots)
                .map_err(|e| format!("{at}: {e}"))?,
            Ok(None) => {}
            Err(e) => {
                return Err(CallError::Failed(format!(
                    "{at}: which server it starts cannot be known before it runs ({e}); give `server` to run it against a command line"
                )));
            }
        }
    }
    for s in &chosen.suites {
        let h = &s.hooks;
        for step in [&h.before_all, &h.before_each, &h.after_each, &h.after_all]
            .into_iter()
            .flatten()
        {
            let program = step.argv.first().map(String::as_str).unwrap_or_default();
            let (program, _) =
                mcpcheck_core::template::expand_env(program, &|n| std::env::var(n).ok());
            call.shared
                .policy
                .check_program(&program, None, &call.roots)
                .map_err(|e| format!("a hook of {}: {e}", s.file))?;
        }
    }
    let progress = call.progress.clone();
    let tell: crate::run::Tell = Arc::new(move |done, total, result| {
        progress.step(
            done,
            Some(total),
            format!("{} {}", result.status.as_str(), result.name),
        );
    });
    let executed = crate::run::execute(&run_args, &mut chosen, &settings, started, Some(tell))
        .await
        .map_err(|e| e.to_string())?;
    // The text `run --json` prints, read back.
    let text = crate::reports::render(
        &executed.doc,
        crate::reports::ResultsFormat::Json,
        Paint::Plain,
        None,
    );
    Answer::printed(text)
}

/// The suite files under `path` (as the caller gave it), each inside the
/// roots, with their names as `mcpcheck run` shows them and their text.
fn suite_texts(call: &Call, path: &str) -> Result<Vec<(String, String)>, CallError> {
    call.existing(path, "suite")?;
    let files = crate::files::suite_files(&[PathBuf::from(path)]).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for f in files {
        let name = crate::files::display(&f);
        call.existing(&name, "suite file")?;
        out.push((
            name,
            crate::files::read_text(&f).map_err(|e| e.to_string())?,
        ));
    }
    Ok(out)
}

/// A test's result as `mcpcheck check --json` prints it.
fn test_result(result: &mcpcheck_core::results::TestResult) -> Outcome {
    let mut text = serde_json::to_string_pretty(result).map_err(|e| e.to_string())?;
    text.push('\n');
    Answer::printed(text)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResponseIn {
    expect: Value,
    response: Value,
    today: Option<String>,
    #[serde(default)]
    files: serde_json::Map<String, Value>,
    #[serde(default)]
    files_before: serde_json::Map<String, Value>,
}

/// `check_response`: the test result `mcpcheck check --json` prints.
pub fn check_response(args: Value) -> Outcome {
    let a: ResponseIn = arguments(args)?;
    let doc = api::load_expect_value("expect", &a.expect).map_err(|d| rendered(&d, None))?;
    if let Some(problem) = api::response_kind_error(&a.response) {
        return Err(CallError::Failed(format!("`response`: {problem}")));
    }
    let today = a
        .today
        .unwrap_or_else(|| chrono::Utc::now().date_naive().to_string());
    let options = json!({"today": today, "files": a.files, "files_before": a.files_before});
    let facts = api::facts_from_json(&options).map_err(|e| e.to_string())?;
    let result =
        api::check_response(&doc, a.response, &facts).map_err(|e| format!("`response`: {e}"))?;
    test_result(&result)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrajectoryIn {
    trace: Vec<Value>,
    trajectory: Vec<Value>,
    threshold: Option<f64>,
}

/// `check_trajectory`: the test result `mcpcheck check --trace --json`
/// prints.
pub fn check_trajectory(args: Value) -> Outcome {
    let a: TrajectoryIn = arguments(args)?;
    let entries =
        api::load_trace_value("trace", &Value::Array(a.trace)).map_err(|d| rendered(&d, None))?;
    let assertions = match a.threshold {
        Some(t) => json!({"trajectory": a.trajectory, "threshold": t}),
        None => Value::Array(a.trajectory),
    };
    let doc =
        api::load_trajectory_value("trajectory", &assertions).map_err(|d| rendered(&d, None))?;
    let result = api::check_trajectory(&doc, entries);
    test_result(&result)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LintIn {
    listing: Value,
    #[serde(default)]
    strict: bool,
    #[serde(default)]
    skip_rules: Vec<String>,
}

/// `lint_listing`: the report `mcpcheck lint --listing FILE --format json`
/// prints.
pub fn lint_listing(args: Value) -> Outcome {
    let a: LintIn = arguments(args)?;
    let options = lint::LintOptions {
        skip_rules: a.skip_rules,
        strict: a.strict,
    };
    let findings = lint::lint_listing(&a.listing, &options).map_err(|e| e.to_string())?;
    with_policy(lint::report(findings, a.strict, "listing"), &[Family::Lint])
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScanIn {
    listing: Value,
    fail_on: Option<scan::Severity>,
    #[serde(default)]
    skip_rules: Vec<String>,
    name: Option<String>,
}

/// `scan_listing`: the report `mcpcheck scan --listing FILE --format json`
/// prints.
pub fn scan_listing(args: Value) -> Outcome {
    let a: ScanIn = arguments(args)?;
    let name = a.name.unwrap_or_else(|| "listing".into());
    let servers = scan::servers_in(&name, a.listing).map_err(|e| e.to_string())?;
    let options = scan::ScanOptions {
        skip_rules: a.skip_rules,
        fail_on: a.fail_on.unwrap_or(scan::Severity::High),
    };
    let findings = scan::scan_listings(&servers, &options).map_err(|e| e.to_string())?;
    with_policy(
        scan::report(findings, options.fail_on, &servers),
        &[Family::Scan],
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleIn {
    code: String,
}

/// `explain_rule`: what `mcpcheck rule CODE --format json` prints.
pub fn explain_rule(args: Value) -> Outcome {
    let a: RuleIn = arguments(args)?;
    let Some(rule) = registry::lookup(&a.code) else {
        let hint = registry::suggest(&a.code)
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        return Err(CallError::Failed(format!(
            "no rule `{}`{hint}; the resource mcpcheck://rules lists them",
            a.code
        )));
    };
    let mut doc = rule_render::rule_json(rule);
    doc["example"] = json!(crate::commands::rules::example(rule));
    Ok(Answer::of(doc))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GenerateIn {
    server: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: Vec<String>,
    #[serde(default)]
    composed: bool,
    #[serde(default)]
    include_writes: bool,
    write_to: Option<String>,
}

/// `generate_tests`: the files `mcpcheck generate` writes, with their text,
/// written only when `write_to` is given.
pub async fn generate_tests(call: &Call, args: Value) -> Outcome {
    use crate::commands::generate::{self, Destination, PlanArgs};
    let a: GenerateIn = arguments(args)?;
    let (_, endpoint) = call.target(a.server, a.url, a.headers)?;
    let server = crate::probe::server_of(&endpoint)?;
    let target = match &a.write_to {
        Some(w) => {
            allow::writable(w, call.base(), &call.roots, "write_to")?;
            Some(PathBuf::from(w))
        }
        None => None,
    };
    // Without write_to, only the layout of the destination matters.
    let placeholder = PathBuf::from(if a.composed { "tests.yaml" } else { "." });
    let path = target.as_deref().unwrap_or(&placeholder);
    let destination = if a.composed {
        Destination::Composed(path)
    } else {
        Destination::Dir(path)
    };
    let flags = PlanArgs {
        include_writes: a.include_writes,
        fixture: None,
        force: false,
        timeout: Duration::from_secs(30),
        protocol_version: "2025-11-25".into(),
    };
    let gen_call = generate::Call {
        command: "generate",
        destination,
        snapshots: false,
        also_refuse: &[],
    };
    let options = generate::options(&flags, &server, &gen_call).map_err(|e| e.to_string())?;
    let steps = if target.is_some() { 3 } else { 2 };
    call.progress.step(0, Some(steps), "listing");
    let listings =
        crate::client::listing::list_everything(&endpoint, &flags.protocol_version, flags.timeout)
            .await
            .map_err(|e| format!("{}: cannot list what it offers: {e}", endpoint.label()))?;
    call.progress.step(1, Some(steps), "planning");
    let plan = mcpcheck_core::generate::plan_with(
        &server,
        &listings.tools,
        &listings.prompts,
        &listings.resources,
        &crate::output::duration_text(flags.timeout),
        &options,
    );
    if plan.files.is_empty() {
        return Err(CallError::Failed(format!(
            "{} lists no tools, prompts or resources: nothing to write",
            endpoint.label()
        )));
    }
    let written = if target.is_some() {
        call.progress.step(2, Some(steps), "writing");
        generate::check_destination(destination).map_err(|e| e.to_string())?;
        generate::write_plan(false, &gen_call, &plan, &mut |_| {}).map_err(|e| e.to_string())?
    } else {
        Vec::new()
    };
    let kind = |k: mcpcheck_core::generate::Kind| match k {
        mcpcheck_core::generate::Kind::Tool => "tool",
        mcpcheck_core::generate::Kind::Prompt => "prompt",
        mcpcheck_core::generate::Kind::Resource => "resource",
    };
    Ok(Answer::of(json!({
        "version": 1,
        "server": endpoint.label(),
        "files": plan.files.iter().map(|f| json!({
            "name": f.name, "kind": kind(f.kind), "item": f.item, "text": f.text,
        })).collect::<Vec<_>>(),
        "composed": plan.composed,
        "skipped": plan.skipped.iter().map(|s| json!({"tool": s.tool, "reason": s.reason})).collect::<Vec<_>>(),
        "placeholders": plan.placeholders.iter().map(|p| json!({"header": p.header, "variable": p.variable})).collect::<Vec<_>>(),
        "resources_left_out": plan.resources_left_out,
        "unnamed": plan.unnamed,
        "written": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ValidateIn {
    path: Option<String>,
    text: Option<String>,
}

/// `validate_suite`: every file's problems, as `mcpcheck validate` finds
/// them.
pub fn validate_suite(call: &Call, args: Value) -> Outcome {
    let a: ValidateIn = arguments(args)?;
    let texts = match (a.path, a.text) {
        (path, Some(text)) => vec![(path.unwrap_or_else(|| "suite.yaml".into()), text)],
        (Some(path), None) => suite_texts(call, &path)?,
        (None, None) => {
            return Err(CallError::Failed(
                "give `path` (a suite file or directory) or `text` (the YAML of one file)".into(),
            ));
        }
    };
    let total = texts.len();
    let mut budget = suite::LoadBudget::default();
    let (mut tests, mut errors, mut warnings) = (0usize, 0usize, 0usize);
    let mut files = Vec::new();
    for (i, (name, text)) in texts.iter().enumerate() {
        call.progress.step(i, Some(total), name.clone());
        let loaded = suite::load_in(name, text, &mut budget);
        tests += loaded.suite.tests.len();
        let errs = loaded.diagnostics.iter().filter(|d| d.is_error()).count();
        errors += errs;
        warnings += loaded.diagnostics.len() - errs;
        files.push(SuiteValidation::of(name, text, &loaded));
    }
    Ok(Answer::of(json!({
        "version": 1,
        "ok": errors == 0,
        "tests": tests,
        "errors": errors,
        "warnings": warnings,
        "files": files,
    })))
}
