//! Running one test: gather its inputs (fixture copy, templates, server
//! session, setup calls, the request, files), then ask core for the verdict.
//!
//! The lifecycle follows mcp-assert: one server per test (unless the suite
//! sets `share_server`, see [`Shared`]), `setup` calls in
//! order on the same session (a JSON-RPC or transport error in setup fails
//! the test; an `isError` result is a warning), `capture` into `{{vars}}`,
//! snapshots for `file_unchanged` before the call, the call, the checks. A
//! server that crashes, hangs or writes something that is not JSON-RPC ends
//! the test as `error`, with the server's stderr tail.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcpcheck_core::results::{TestResult, TestStatus};
use mcpcheck_core::runner::{self, Context, Input, RequestKind, Step, Templates, TestRun, Wait};
use mcpcheck_core::setup::Ending;
use mcpcheck_core::suite::{Action, Server, Test, Transport};
use mcpcheck_core::template;
use serde_json::Value;
use tokio::time::Instant as Deadline;

use crate::client::stdio::StderrTail;
use crate::client::{Endpoint, Session};

use super::fixture;

/// Settings shared by every test of a run.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub fixture: Option<PathBuf>,
    /// `--server`, already split into program and arguments.
    pub server_override: Option<Vec<String>>,
    pub default_timeout: Duration,
    pub protocol_version: String,
    pub today: chrono::NaiveDate,
    /// How long to keep listening for notifications after an answer, when
    /// the test looks at notifications and sets no `settle`.
    pub default_settle: Duration,
    /// Keep each tool test's answer (`--update-snapshots` records them). An
    /// answer can be megabytes, so a run that records nothing keeps none.
    pub keep_answers: bool,
    /// `--docker IMAGE`: every stdio server without a `docker` of its own
    /// runs in this image.
    pub docker: Option<String>,
    /// `--reuse-server`: tests with the same server and client mocks share
    /// sessions; one that does not pass on a shared session is run again
    /// on a fresh one, and that verdict is the one reported.
    pub reuse_server: bool,
    /// `--auth-*`: the `auth` of every HTTP server, instead of its own.
    pub auth: Option<mcpcheck_core::suite::Auth>,
    /// Read what the server answers with the scan's text rules (O codes),
    /// each finding a warning on its test.
    pub output_scan: bool,
}

/// Per-test inputs that come from outside the suite file.
#[derive(Clone, Debug, Default)]
pub struct TestEnv {
    /// The environment every server and hook gets and `${NAME}` reads before
    /// the process's: the file's `env`, expanded once, with the values set by
    /// context hooks replacing the file's.
    pub env: BTreeMap<String, String>,
    /// The file's `env` as written. The loader copies it into every server's
    /// `env` (unless the server sets the name itself), so a server entry
    /// equal to one of these stands for the file's value, which `env` holds.
    pub file_env: BTreeMap<String, String>,
    /// `{{var}}` values set by the `beforeAll` and `beforeEach` context
    /// hooks; a setup `capture` of the same name replaces one.
    pub vars: BTreeMap<String, String>,
}

/// A finished test: its result and, when recorded, its wire log.
pub struct Finished {
    pub result: TestResult,
    pub session: Option<SessionLog>,
    /// A tool test's answer, for snapshots.
    pub answer: Option<Answer>,
}

impl Finished {
    /// A result the runner decided without a session (a hook that failed
    /// or skipped the test).
    pub fn without_session(result: TestResult) -> Self {
        Finished {
            result,
            session: None,
            answer: None,
        }
    }
}

/// What a snapshot records of a tool test's answer: the `text` the checks
/// see and the result's `isError`.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub tool: String,
    pub text: String,
    pub is_error: bool,
}

/// What the wire carried during a test, for captures.
pub struct SessionLog {
    pub label: String,
    pub transport: &'static str,
    pub events: Vec<crate::client::tap::Event>,
    pub protocol_version: String,
    /// What a local server wrote on stderr (its last bytes), for the HTML
    /// report; empty for a remote one.
    pub stderr: String,
}

impl TestEnv {
    /// A file's environment before any hook runs: its `env`, each value
    /// expanded once from the process environment.
    pub fn for_file(file_env: &[(String, String)]) -> TestEnv {
        TestEnv {
            env: file_env
                .iter()
                .map(|(k, v)| (k.clone(), expand_file_value(v).0))
                .collect(),
            file_env: file_env.iter().cloned().collect(),
            vars: BTreeMap::new(),
        }
    }
}

/// A value of the file's `env` with its `${NAME}`s read from the process
/// environment, and the names that were unset.
fn expand_file_value(v: &str) -> (String, Vec<String>) {
    template::expand_env(v, &|n| std::env::var(n).ok())
}

/// The endpoint of `test`'s server as it is before any `setup` step runs
/// (`${ENV}` from `env` and the process, `{{fixture}}` as `fixture`), for
/// commands that only look at what a server offers; `None` for a test without
/// a server (a trajectory).
pub(crate) fn endpoint_of(
    test: &Test,
    settings: &RunSettings,
    env: &TestEnv,
    fixture: Option<&Path>,
) -> Result<Option<Endpoint>, EndpointError> {
    let Some(server) = &test.server else {
        return Ok(None);
    };
    let mut t = templates_of(env);
    if let Some(path) = fixture {
        t.vars.insert("fixture".into(), path.display().to_string());
    }
    let endpoint = endpoint_for(server, settings, &mut t, &env.file_env, fixture)?;
    match t.take_undefined() {
        Some(msg) => Err(EndpointError::Undefined(msg)),
        None => Ok(Some(endpoint)),
    }
}

/// Why a test's server could not be reached as the suite and the flags
/// describe it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EndpointError {
    #[error("--server is empty")]
    EmptyServer,
    #[error("this test's server has no `command`; set `server.command` or pass --server")]
    NoCommand,
    /// The templates' own words on the variables that are not set.
    #[error("{0}")]
    Undefined(String),
    #[error(transparent)]
    Auth(#[from] crate::client::auth::AuthError),
    #[error(transparent)]
    Fixture(#[from] fixture::FixtureError),
}

/// A test's templates before it runs: the hooks' variables, the file's
/// environment and then the process's.
fn templates_of(tenv: &TestEnv) -> Templates {
    Templates::new(
        tenv.vars.clone(),
        tenv.env.clone(),
        std::env::vars().collect(),
    )
}

fn endpoint_for(
    server: &Server,
    settings: &RunSettings,
    t: &mut Templates,
    file_env: &BTreeMap<String, String>,
    fixture: Option<&Path>,
) -> Result<Endpoint, EndpointError> {
    match server.transport {
        Transport::Stdio => {
            let (command, args): (String, Vec<String>) = match &settings.server_override {
                // `{{fixture}}` in --server is the fixture copy, as in the
                // suite's own command line.
                Some(argv) => match argv.split_first() {
                    Some((c, a)) => (t.text(c), a.iter().map(|x| t.text(x)).collect()),
                    None => return Err(EndpointError::EmptyServer),
                },
                None => {
                    let Some(c) = &server.command else {
                        return Err(EndpointError::NoCommand);
                    };
                    (t.text(c), server.args.iter().map(|a| t.text(a)).collect())
                }
            };
            let (mut command, mut args) = (command, args);
            let mut env: Vec<(String, String)> =
                t.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            for (k, v) in &server.env {
                if file_env.get(k) == Some(v)
                    && let Some(current) = t.env.get(k)
                {
                    // The file's value, already in `env`: expanded, or
                    // replaced by a hook's. Its unset names are reported
                    // unless a hook replaced it.
                    let (value, unset) = expand_file_value(v);
                    if *current == value {
                        t.note_unset(unset);
                    }
                    continue;
                }
                let value = t.text(v);
                env.retain(|(ek, _)| ek != k);
                env.push((k.clone(), value));
            }
            // Every spelling of the fixture in the command line and the
            // environment points at the copy (or the test is refused).
            if let (Some(copy), Some(original)) = (fixture, settings.fixture.as_deref()) {
                fixture::point_at_copy(&mut command, &mut args, &mut env, original, copy)?;
            }
            // The suite's own `docker`, else `--docker`.
            match server
                .docker
                .as_deref()
                .map(|i| t.text(i))
                .or(settings.docker.clone())
            {
                None => Ok(Endpoint::Stdio { command, args, env }),
                Some(image) => {
                    let own: Vec<String> = server.env.iter().map(|(k, _)| k.clone()).collect();
                    Ok(crate::client::container::wrap(
                        &image, command, args, env, &own, fixture,
                    ))
                }
            }
        }
        Transport::Http | Transport::Sse => {
            let url = server.url.as_deref().map(|u| t.text(u)).unwrap_or_default();
            let headers = server
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), t.text(v)))
                .collect();
            // `--auth-*` wins over the suite's own `auth`.
            let auth = match settings.auth.as_ref().or(server.auth.as_ref()) {
                Some(block) => Some(crate::target::authorizer(&url, block, |v| t.text(v))?),
                None => None,
            };
            Ok(if server.transport == Transport::Http {
                Endpoint::Http { url, headers, auth }
            } else {
                Endpoint::Sse { url, headers, auth }
            })
        }
    }
}

/// The files a step asks for, by key; a file that cannot be read safely is
/// the test's error.
fn read_files(list: &[(String, String)]) -> Input {
    let mut files = BTreeMap::new();
    for (key, path) in list {
        match read_checked_file(Path::new(path)) {
            Ok(text) => {
                files.insert(key.clone(), text);
            }
            Err(why) => return Input::Unreadable(why.to_string()),
        }
    }
    Input::Files(files)
}

/// The audit log a trajectory names (relative paths: from the current
/// directory, else next to the suite file).
fn read_trace(path: &str, suite_file: &str) -> Input {
    let resolved = resolve_near(path, suite_file);
    match read_checked_file(&resolved) {
        Ok(text) => Input::Trace {
            file: resolved.display().to_string(),
            text,
        },
        Err(why) => Input::Unreadable(why.to_string()),
    }
}

/// The largest file a file check or an audit log reads.
/// How long a recorded test waits, after its server was told to shut down,
/// for the server's stderr to close: the shutdown's grace (100 ms) and its
/// kill, with room to spare. Only runs that keep sessions wait.
const STDERR_DRAIN: Duration = Duration::from_secs(1);

/// How long a recorded test on a session that stays open waits for the
/// server's stderr to be quiet before its log takes it.
const STDERR_QUIET: Duration = Duration::from_millis(20);

const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// A file a check or a trajectory names, as text: `None` when it cannot be
/// read as one (absent, a directory, not permitted). A pipe, socket or
/// device is an error instead of a read that may never end (a FIFO with no
/// writer, `/dev/zero`), as is a file larger than 64 MiB.
pub(crate) fn read_checked_file(path: &Path) -> Result<Option<String>, CheckedFileError> {
    use std::io::Read;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    if !meta.is_file() && !meta.is_dir() {
        return Err(CheckedFileError::NotRegular(path.to_path_buf()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(CheckedFileError::TooLarge(path.to_path_buf()));
    }
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    if file
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return Ok(None);
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(CheckedFileError::Grew(path.to_path_buf()));
    }
    Ok(String::from_utf8(bytes).ok())
}

/// Why a file a check or a trajectory names is not read: a read that may
/// never end, or more than [`MAX_FILE_BYTES`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum CheckedFileError {
    #[error(
        "{} is not a regular file (a pipe, socket or device); file checks and audit logs read regular files only",
        .0.display()
    )]
    NotRegular(PathBuf),
    #[error(
        "{} is larger than {} MiB, the most a file check reads",
        .0.display(),
        MAX_FILE_BYTES >> 20
    )]
    TooLarge(PathBuf),
    #[error("{} grew past {} MiB while it was read", .0.display(), MAX_FILE_BYTES >> 20)]
    Grew(PathBuf),
}

/// The server session and fixture copy that tests reuse, one test after
/// another: those of a composed `share_server` file, or of a reuse group.
///
/// A test reuses the live session when its server (command, arguments,
/// environment or URL and headers) and client mocks are the same as the
/// previous test's; otherwise the old session is closed and a new one
/// started. A test that ends as `error` (a crash, a hang, a malformed
/// answer) closes the session, so the next test starts a fresh server. The
/// fixture is copied once for all of them. In a composed `share_server`
/// file, changes one test makes are seen by the next, as they would be by
/// the shared server itself; in a reuse group ([`Shared::reused`]) the copy
/// is put back as it was made before each test, in place, so each test
/// sees the fixture as a fresh copy would show it.
#[derive(Default)]
pub struct Shared {
    fixture: Option<fixture::FixtureCopy>,
    live: Option<Live>,
    /// Restore the fixture copy before each test but the first.
    restore: bool,
}

struct Live {
    key: String,
    session: Session,
    /// Tap index just after the handshake; each test's capture is the
    /// handshake and then its own exchanges.
    handshake_end: usize,
}

impl Shared {
    /// For a reuse group: the fixture copy is restored before each test.
    pub fn reused() -> Shared {
        Shared {
            restore: true,
            ..Shared::default()
        }
    }

    /// The live session for `key`, if there is one; a session for another
    /// server is closed.
    async fn checkout(&mut self, key: &str) -> Option<(Session, usize)> {
        let mut live = self.live.take()?;
        if live.key == key {
            return Some((live.session, live.handshake_end));
        }
        live.session.close().await;
        None
    }

    /// Close the session and remove the fixture copy.
    pub async fn close(&mut self) {
        if let Some(mut live) = self.live.take() {
            live.session.close().await;
        }
        self.fixture = None;
    }
}

/// Run one test to its result. Never panics; every failure is a result.
/// Core's [`TestRun`] decides every step; this drives it over the test's
/// server session. What the templates noticed on the way (an unset
/// environment variable) is a warning of the test whatever its status: an
/// empty `${TOKEN}` is often why it errored.
pub async fn run_test(
    test: &Test,
    settings: &RunSettings,
    tenv: &TestEnv,
    record: bool,
    shared: Option<&mut Shared>,
) -> Finished {
    let t = templates_of(tenv);
    let context = Context {
        vars: t.vars,
        env: t.env,
        fallback_env: t.fallback,
        today: Some(settings.today),
        default_settle_ms: u64::try_from(settings.default_settle.as_millis()).unwrap_or(u64::MAX),
        client_given: false,
    };
    let mut run = TestRun::new(test, context);
    let mut finished = run_test_in(&mut run, settings, tenv, record, shared).await;
    finished.result = run.complete(finished.result);
    finished
}

/// What a snapshot keeps of a tool test's answer (its text and
/// `isError`), when the call was answered with a result.
fn kept_answer(action: &Action, observation: Option<&Value>) -> Option<Answer> {
    match (action, observation) {
        (Action::Tool { tool, .. }, Some(obs)) if obs.get("error").is_none_or(Value::is_null) => {
            Some(Answer {
                tool: tool.clone(),
                text: obs
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                is_error: obs
                    .pointer("/result/isError")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
        }
        _ => None,
    }
}

async fn run_test_in(
    run: &mut TestRun,
    settings: &RunSettings,
    tenv: &TestEnv,
    record: bool,
    mut shared: Option<&mut Shared>,
) -> Finished {
    let test = run.test().clone();
    let started = Instant::now();
    let line = Some(test.line);
    let elapsed = |s: &Instant| s.elapsed().as_millis() as u64;
    let error = |msg: String| Finished {
        result: TestResult::error(&test.name, &test.file, line, &msg, elapsed(&started)),
        session: None,
        answer: None,
    };

    if let Some(result) = run.refusal(settings.fixture.is_some()) {
        return Finished {
            result,
            session: None,
            answer: None,
        };
    }

    let timeout = test
        .timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(settings.default_timeout);

    // The test's own fixture copy, or the one its shared session uses.
    let mut fixture_copy = None;
    let (slot, restore) = match shared.as_deref_mut() {
        Some(sh) => (&mut sh.fixture, sh.restore),
        None => (&mut fixture_copy, false),
    };
    let fixture_path = match fixture_in(settings.fixture.as_deref(), slot, restore) {
        Ok(p) => p,
        Err(e) => return error(e.to_string()),
    };
    if let Some(path) = &fixture_path {
        run.templates()
            .vars
            .insert("fixture".into(), path.display().to_string());
    }

    // Trajectories need no server (nor does a test without one, which
    // core ends with its error).
    let server = match &test.server {
        Some(server) if !matches!(test.action, Action::Trajectory(_)) => server,
        _ => {
            let outcome = drive_offline(run, &test.file);
            return Finished {
                result: finish(run, outcome, elapsed(&started), |m| m),
                session: None,
                answer: None,
            };
        }
    };
    let endpoint = match endpoint_for(
        server,
        settings,
        run.templates(),
        &tenv.file_env,
        fixture_path.as_deref(),
    ) {
        Ok(e) => e,
        Err(e) => return error(e.to_string()),
    };
    if let Some(msg) = run.templates().take_undefined() {
        return error(msg);
    }
    let mocks = run.mocks();

    let version = server
        .protocol_version
        .clone()
        .unwrap_or_else(|| settings.protocol_version.clone());
    let key = format!("{endpoint:?} {mocks:?} {version}");
    let reused = match shared.as_deref_mut() {
        Some(sh) => sh.checkout(&key).await,
        None => None,
    };
    let reused_session = reused.is_some();
    let cost_key = super::schedule::cost_key(
        server,
        settings.server_override.as_deref(),
        settings.docker.as_deref(),
    );
    let (connected, deadline) = match reused {
        Some(live) => (Ok(live), Deadline::now() + timeout),
        None => start(&endpoint, &version, &mocks, timeout, cost_key.as_deref()).await,
    };
    let (mut session, handshake_end) = match connected {
        Ok(s) => s,
        Err(e) => {
            return Finished {
                result: TestResult::error(
                    &test.name,
                    &test.file,
                    line,
                    &timeout_hint(e.message, deadline, timeout),
                    elapsed(&started),
                ),
                // The capture shows how far the handshake got.
                session: record.then(|| SessionLog {
                    label: endpoint.label(),
                    transport: endpoint.transport(),
                    events: e.events,
                    protocol_version: version.clone(),
                    stderr: String::new(),
                }),
                answer: None,
            };
        }
    };

    let test_start = session.tap.mark();
    // The server's stderr from this test on: on a fresh session all of it
    // (start-up included), on a reused one what came after the test began.
    let stderr = session
        .stderr_handle()
        .map(|tail| (if reused_session { tail.mark() } else { 0 }, tail));
    let began = Instant::now();
    let outcome = drive(run, &mut session, &test.file, deadline).await;
    if let (Some(k), Ok(_)) = (&cost_key, &outcome) {
        super::schedule::note_test(k, began.elapsed());
    }
    let checked = outcome.is_ok();
    let mut result = finish(run, outcome, elapsed(&started), |m| {
        timeout_hint(m, deadline, timeout)
    });
    if settings.output_scan {
        let instructions = if reused_session {
            None
        } else {
            session
                .initialize_result()
                .and_then(|r| r["instructions"].as_str().map(str::to_string))
        };
        result.warnings.extend(answer_warnings(
            &test.action,
            run.observation(),
            instructions.as_deref(),
            &endpoint.label(),
        ));
    }
    let answer = (settings.keep_answers && checked)
        .then(|| kept_answer(&test.action, run.observation()))
        .flatten();

    let log = record.then(|| session_log(&session, &endpoint, settings, handshake_end, test_start));
    let keep = result.status != TestStatus::Error;
    let log = release(session, shared, (key, handshake_end), keep, log, stderr).await;
    drop(fixture_copy);
    Finished {
        result,
        session: log,
        answer,
    }
}

/// What the scan's text rules find in the test's answer (and, on a fresh
/// session, in the server's `instructions`): one warning each, `O301 tool
/// fetch: the answer tells the model … ("…")`.
fn answer_warnings(
    action: &Action,
    observation: Option<&Value>,
    instructions: Option<&str>,
    server: &str,
) -> Vec<String> {
    use mcpcheck_core::scan::output::{self, Answered};
    let mut found = Vec::new();
    if let Some(text) = instructions {
        found.extend(output::scan_instructions(server, text));
    }
    let result = observation
        .and_then(|o| o.get("result"))
        .filter(|r| !r.is_null());
    if let Some(result) = result {
        use mcpcheck_core::suite::{PromptOp, ResourceOp};
        let what = match action {
            Action::Tool { tool, .. }
            | Action::Sampling { tool, .. }
            | Action::Notifications { tool, .. }
            | Action::Logging {
                tool: Some(tool), ..
            } => Some(Answered::Tool(tool)),
            Action::Prompts(PromptOp::Get { name, .. }) => Some(Answered::Prompt(name)),
            Action::Resources {
                op: ResourceOp::Read { uri },
                ..
            } => Some(Answered::Resource(uri)),
            _ => None,
        };
        if let Some(what) = what {
            found.extend(output::scan_result(server, what, result));
        }
    }
    found
        .into_iter()
        .map(|f| {
            let evidence = if f.evidence.is_empty() {
                String::new()
            } else {
                format!(" (\"{}\")", f.evidence)
            };
            format!(
                "{} {}: {}{evidence}; --no-output-scan turns this off",
                f.code(),
                f.location.item_label(),
                f.message
            )
        })
        .collect()
}

/// The result of a driven test: the verdict, or the ending with its
/// message as `hint` words it; the duration as measured here.
fn finish(
    run: &TestRun,
    outcome: Result<TestResult, Ending>,
    duration_ms: u64,
    hint: impl FnOnce(String) -> String,
) -> TestResult {
    let mut result = match outcome {
        Ok(r) => r,
        Err(ending) => run.ended(&ending, &hint(ending.message().to_string())),
    };
    result.duration_ms = duration_ms;
    result
}

/// The path of the fixture copy in `slot`, made from `src` when the slot is
/// empty, else restored first when `restore` says so (a copy that cannot be
/// restored is replaced by a new one, at another path); `None` without
/// `--fixture`.
fn fixture_in(
    src: Option<&Path>,
    slot: &mut Option<fixture::FixtureCopy>,
    restore: bool,
) -> Result<Option<PathBuf>, fixture::FixtureError> {
    let Some(src) = src else {
        return Ok(None);
    };
    if restore
        && let Some(copy) = slot.as_mut()
        && copy.restore().is_err()
    {
        *slot = None;
    }
    if slot.is_none() {
        *slot = Some(fixture::copy(src)?);
    }
    Ok(slot.as_ref().map(|c| c.path.clone()))
}

/// Start a fresh session: in a start slot when starting this server keeps a
/// core busy (see [`super::schedule`]), the start measured. The test's time
/// runs from when the server is started, not while it waits for a slot.
async fn start(
    endpoint: &Endpoint,
    version: &str,
    mocks: &crate::client::handler::Mocks,
    timeout: Duration,
    cost_key: Option<&str>,
) -> (
    Result<(Session, usize), crate::client::SessionError>,
    Deadline,
) {
    let slot = match cost_key {
        Some(k) => super::schedule::start_slot(k).await,
        None => None,
    };
    let deadline = Deadline::now() + timeout;
    let began = Instant::now();
    let mut connected = Session::connect(endpoint, version, mocks, deadline).await;
    if let (Ok(session), Some(k)) = (&mut connected, cost_key) {
        let wall = began.elapsed();
        let cpu = session.process_id().and_then(super::schedule::tree_cpu);
        super::schedule::note_start(k, wall, cpu);
        session.learn_exit(k);
    }
    drop(slot);
    let connected = connected.map(|s| {
        let end = s.tap.mark();
        (s, end)
    });
    (connected, deadline)
}

/// Ends a test's use of its session: back to its shared slot (`keep`, on a
/// reuse group), or closed. The log gets the server's stderr of the test's
/// time: on a session that stays open, what the server said by the end of
/// the test once its stderr has been quiet for a moment (later lines fall to
/// the next test on it); on one that closes, everything up to its exit,
/// what it says as it shuts down included.
async fn release(
    mut session: Session,
    shared: Option<&mut Shared>,
    (key, handshake_end): (String, usize),
    keep: bool,
    mut log: Option<SessionLog>,
    stderr: Option<(u64, StderrTail)>,
) -> Option<SessionLog> {
    match shared {
        Some(sh) if keep => {
            if let (Some(log), Some((mark, tail))) = (log.as_mut(), stderr.as_ref()) {
                tail.settled(STDERR_QUIET, STDERR_DRAIN).await;
                log.stderr = tail.text_since(*mark);
            }
            sh.live = Some(Live {
                key,
                session,
                handshake_end,
            });
        }
        _ => {
            if log.is_some() {
                session.keep_grace();
            }
            session.close().await;
            if let (Some(log), Some((mark, tail))) = (log.as_mut(), stderr.as_ref()) {
                tail.drained(STDERR_DRAIN).await;
                log.stderr = tail.text_since(*mark);
            }
        }
    }
    log
}

/// The capture of one test: on a shared session, the handshake and then
/// this test's exchanges.
fn session_log(
    session: &Session,
    endpoint: &Endpoint,
    settings: &RunSettings,
    handshake_end: usize,
    test_start: usize,
) -> SessionLog {
    let mut events = session.tap.all();
    events.drain(handshake_end.min(test_start)..test_start);
    SessionLog {
        label: endpoint.label(),
        transport: endpoint.transport(),
        events,
        protocol_version: session
            .protocol_version()
            .unwrap_or_else(|| settings.protocol_version.clone()),
        stderr: session.stderr_tail(),
    }
}

/// A path as written, or next to the suite file when it is relative and not
/// found from the current directory.
fn resolve_near(path: &str, suite_file: &str) -> PathBuf {
    let p = PathBuf::from(path);
    if p.is_absolute() || p.exists() {
        return p;
    }
    match Path::new(suite_file).parent() {
        Some(dir) if dir.join(&p).exists() => dir.join(p),
        _ => p,
    }
}

/// Drive a test that needs no server (a trajectory) to its end.
fn drive_offline(run: &mut TestRun, suite_file: &str) -> Result<TestResult, Ending> {
    let mut input = Input::Start;
    loop {
        input = match run.next(input) {
            Step::ReadTrace(path) => read_trace(&path, suite_file),
            Step::ReadFiles(list) => read_files(&list),
            Step::Done(result) => return Ok(*result),
            Step::End(ending) => return Err(ending),
            Step::Send(_) | Step::Wait(_) => {
                return Err(Ending::Error("this test has no server".into()));
            }
        };
    }
}

/// Drive a test over its session to its end: each request core asks for
/// goes out on the session (the revision's own way for log levels and
/// subscriptions), with the notifications that came while it was open;
/// waits and file reads as asked.
async fn drive(
    run: &mut TestRun,
    session: &mut Session,
    suite_file: &str,
    deadline: Deadline,
) -> Result<TestResult, Ending> {
    let mut input = Input::Start;
    let mut cursor = session.tap.mark();
    loop {
        input = match run.next(input) {
            Step::Send(request) => {
                cursor = session.tap.mark();
                let reply = match &request.kind {
                    RequestKind::SetLogLevel(level) => {
                        match session.set_log_level(level, deadline).await {
                            Some(reply) => reply,
                            None => {
                                input = Input::NotSent;
                                continue;
                            }
                        }
                    }
                    RequestKind::Subscribe(uri) => session.subscribe(uri, deadline).await,
                    RequestKind::Unsubscribe(uri) => session.unsubscribe(uri, deadline).await,
                    RequestKind::Setup(_) | RequestKind::Action => {
                        session
                            .request(&request.method, request.params, deadline)
                            .await
                    }
                };
                let notifications = session.notifications(cursor, reply.end);
                cursor = reply.end;
                Input::Reply(runner::Reply {
                    result: reply.result,
                    error: reply.error,
                    failure: reply.failure,
                    duration_ms: reply.duration_ms,
                    progress_token: reply.progress_token,
                    notifications,
                })
            }
            Step::Wait(wait) => {
                match wait {
                    Wait::ResourceUpdated(uri) => {
                        session
                            .wait_notification(cursor, deadline, |n| {
                                n.get("method").and_then(Value::as_str)
                                    == Some("notifications/resources/updated")
                                    && n.pointer("/params/uri").and_then(Value::as_str)
                                        == Some(uri.as_str())
                            })
                            .await;
                    }
                    Wait::For(ms) => {
                        let until = (Deadline::now() + Duration::from_millis(ms)).min(deadline);
                        tokio::time::sleep_until(until).await;
                    }
                }
                let to = session.tap.mark();
                let notifications = session.notifications(cursor, to);
                cursor = to;
                Input::Waited(notifications)
            }
            Step::ReadFiles(list) => read_files(&list),
            Step::ReadTrace(path) => read_trace(&path, suite_file),
            Step::Done(result) => return Ok(*result),
            Step::End(ending) => return Err(ending),
        };
    }
}

/// A test that ended because its time ran out says which timeout that was and
/// how to change it.
fn timeout_hint(message: String, deadline: Deadline, timeout: Duration) -> String {
    if Deadline::now() < deadline {
        return message;
    }
    format!(
        "{message}\n(the test's timeout of {} ran out: raise it with `timeout:` in the test or --timeout)",
        crate::output::duration_text(timeout)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checked_file_that_is_not_regular_is_refused_with_its_path() {
        assert_eq!(
            read_checked_file(Path::new("/no/such/file")).ok(),
            Some(None)
        );
        #[cfg(unix)]
        {
            let err = read_checked_file(Path::new("/dev/null")).expect_err("a device");
            assert_eq!(
                err.to_string(),
                "/dev/null is not a regular file (a pipe, socket or device); file checks and audit logs read regular files only"
            );
        }
        assert_eq!(
            CheckedFileError::TooLarge(PathBuf::from("big")).to_string(),
            "big is larger than 64 MiB, the most a file check reads"
        );
    }
}
