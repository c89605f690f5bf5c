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

use mcpcheck_core::Facts;
use mcpcheck_core::observation::{self, Method};
use mcpcheck_core::results::{TestResult, TestStatus};
use mcpcheck_core::score;
use mcpcheck_core::setup::{self, Ending, StepAnswer};
use mcpcheck_core::suite::{Action, PromptOp, ResourceOp, Server, Test, TraceSource, Transport};
use mcpcheck_core::template;
use mcpcheck_core::trajectory;
use serde_json::{Map, Value, json};
use tokio::time::Instant as Deadline;

use crate::client::handler::{ElicitAnswer, Mocks};
use crate::client::{Endpoint, Reply, Session};

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

fn lookup_env(extra: &BTreeMap<String, String>) -> impl Fn(&str) -> Option<String> + '_ {
    move |name: &str| {
        extra
            .get(name)
            .cloned()
            .or_else(|| std::env::var(name).ok())
    }
}

struct Templates<'a> {
    vars: BTreeMap<String, String>,
    env: &'a BTreeMap<String, String>,
    file_env: &'a BTreeMap<String, String>,
    unset_env: Vec<String>,
    undefined: Vec<String>,
}

impl<'a> Templates<'a> {
    /// `{{var}}` starts with the hooks' vars; `${NAME}` reads `tenv.env`.
    fn new(tenv: &'a TestEnv) -> Self {
        Templates {
            vars: tenv.vars.clone(),
            env: &tenv.env,
            file_env: &tenv.file_env,
            unset_env: Vec::new(),
            undefined: Vec::new(),
        }
    }

    /// `{{var}}` then `${ENV}`.
    fn text(&mut self, s: &str) -> String {
        let vars = &self.vars;
        let (out, missing) = template::substitute(s, &|n| vars.get(n).cloned());
        self.undefined.extend(missing);
        let (out, unset) = template::expand_env(&out, &lookup_env(self.env));
        self.unset_env.extend(unset);
        out
    }

    /// `{{var}}` only (tool arguments, URIs).
    fn vars_only(&mut self, s: &str) -> String {
        let vars = &self.vars;
        let (out, missing) = template::substitute(s, &|n| vars.get(n).cloned());
        self.undefined.extend(missing);
        out
    }

    fn value(&mut self, v: &Value) -> Value {
        let vars = &self.vars;
        let mut missing = Vec::new();
        let out = template::substitute_value(v, &|n| vars.get(n).cloned(), &mut missing);
        self.undefined.extend(missing);
        out
    }

    fn take_undefined(&mut self) -> Option<String> {
        if self.undefined.is_empty() {
            return None;
        }
        let mut names: Vec<String> = std::mem::take(&mut self.undefined);
        names.sort();
        names.dedup();
        Some(
            names
                .iter()
                .map(|n| {
                    if n == "fixture" {
                        "`{{fixture}}` is used but no --fixture directory was given".to_string()
                    } else {
                        format!("`{{{{{n}}}}}` has no value")
                    }
                })
                .collect::<Vec<_>>()
                .join("; "),
        )
    }
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
) -> Result<Option<Endpoint>, String> {
    let Some(server) = &test.server else {
        return Ok(None);
    };
    let mut t = Templates::new(env);
    if let Some(path) = fixture {
        t.vars.insert("fixture".into(), path.display().to_string());
    }
    let endpoint = endpoint_for(server, settings, &mut t, fixture)?;
    match t.take_undefined() {
        Some(msg) => Err(msg),
        None => Ok(Some(endpoint)),
    }
}

fn endpoint_for(
    server: &Server,
    settings: &RunSettings,
    t: &mut Templates<'_>,
    fixture: Option<&Path>,
) -> Result<Endpoint, String> {
    match server.transport {
        Transport::Stdio => {
            let (command, args) = match &settings.server_override {
                Some(argv) => match argv.split_first() {
                    Some((c, a)) => (c.clone(), a.to_vec()),
                    None => return Err("--server is empty".into()),
                },
                None => {
                    let Some(c) = &server.command else {
                        return Err("this test's server has no `command`; set `server.command` or pass --server".into());
                    };
                    (t.text(c), server.args.iter().map(|a| t.text(a)).collect())
                }
            };
            let mut env: Vec<(String, String)> =
                t.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            for (k, v) in &server.env {
                if t.file_env.get(k) == Some(v)
                    && let Some(current) = t.env.get(k)
                {
                    // The file's value, already in `env`: expanded, or
                    // replaced by a hook's. Its unset names are reported
                    // unless a hook replaced it.
                    let (value, unset) = expand_file_value(v);
                    if *current == value {
                        t.unset_env.extend(unset);
                    }
                    continue;
                }
                let value = t.text(v);
                env.retain(|(ek, _)| ek != k);
                env.push((k.clone(), value));
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

fn mocks_for(server: &Server, action: &Action, t: &mut Templates<'_>) -> Mocks {
    let caps = &server.client;
    let mut mocks = Mocks {
        roots: caps
            .roots
            .as_ref()
            .map(|r| r.iter().map(|p| t.text(p)).collect()),
        sampling: caps
            .sampling
            .as_ref()
            .map(|s| (s.text.clone(), s.model.clone(), s.stop_reason.clone())),
        elicitation: caps.elicitation.as_ref().map(|e| ElicitAnswer {
            action: e.action.clone(),
            content: t.value(&e.content),
            defaults: e.defaults,
        }),
    };
    if let Action::Sampling { mock, .. } = action {
        mocks.sampling = Some((
            mock.text.clone(),
            mock.model.clone(),
            mock.stop_reason.clone(),
        ));
    }
    mocks
}

fn read_files(
    paths: &[String],
    t: &mut Templates<'_>,
) -> Result<BTreeMap<String, Option<String>>, Ending> {
    paths
        .iter()
        .map(|raw| {
            let real = t.text(raw);
            let text = read_checked_file(Path::new(&real)).map_err(Ending::Error)?;
            Ok((raw.clone(), text))
        })
        .collect()
}

/// The largest file a file check or an audit log reads.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// A file a check or a trajectory names, as text: `None` when it cannot be
/// read as one (absent, a directory, not permitted). A pipe, socket or
/// device is an error instead of a read that may never end (a FIFO with no
/// writer, `/dev/zero`), as is a file larger than 64 MiB.
pub(crate) fn read_checked_file(path: &Path) -> Result<Option<String>, String> {
    use std::io::Read;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    if !meta.is_file() && !meta.is_dir() {
        return Err(format!(
            "{} is not a regular file (a pipe, socket or device); file checks and audit logs read regular files only",
            path.display()
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} is larger than {} MiB, the most a file check reads",
            path.display(),
            MAX_FILE_BYTES >> 20
        ));
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
        return Err(format!(
            "{} grew past {} MiB while it was read",
            path.display(),
            MAX_FILE_BYTES >> 20
        ));
    }
    Ok(String::from_utf8(bytes).ok())
}

fn tool_call_params(tool: &str, args: &Value) -> Value {
    json!({"name": tool, "arguments": args})
}

fn cursor_params(cursor: &Option<String>) -> Option<Value> {
    cursor.as_ref().map(|c| json!({"cursor": c}))
}

/// The server session and fixture copy that the tests of a `share_server`
/// suite reuse, one test after another.
///
/// A test reuses the live session when its server (command, arguments,
/// environment or URL and headers) and client mocks are the same as the
/// previous test's; otherwise the old session is closed and a new one
/// started. A test that ends as `error` (a crash, a hang, a malformed
/// answer) closes the session, so the next test starts a fresh server. The
/// fixture is copied once for all of them: changes one test makes are seen
/// by the next, as they would be by the shared server itself.
#[derive(Default)]
pub struct Shared {
    fixture: Option<fixture::FixtureCopy>,
    live: Option<Live>,
}

struct Live {
    key: String,
    session: Session,
    /// Tap index just after the handshake; each test's capture is the
    /// handshake and then its own exchanges.
    handshake_end: usize,
}

impl Shared {
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
/// What the templates noticed on the way (an unset environment variable)
/// is a warning of the test whatever its status: an empty `${TOKEN}` is
/// often why it errored.
pub async fn run_test(
    test: &Test,
    settings: &RunSettings,
    tenv: &TestEnv,
    record: bool,
    shared: Option<&mut Shared>,
) -> Finished {
    let mut t = Templates::new(tenv);
    let mut finished = run_test_in(test, settings, tenv, record, shared, &mut t).await;
    let mut unset: Vec<String> = std::mem::take(&mut t.unset_env);
    unset.sort();
    unset.dedup();
    for name in unset {
        let warning = format!("environment variable {name} is not set; `${{{name}}}` became empty");
        if !finished.result.warnings.contains(&warning) {
            finished.result.warnings.push(warning);
        }
    }
    finished
}

async fn run_test_in(
    test: &Test,
    settings: &RunSettings,
    tenv: &TestEnv,
    record: bool,
    mut shared: Option<&mut Shared>,
    t: &mut Templates<'_>,
) -> Finished {
    let started = Instant::now();
    let line = Some(test.line);
    let elapsed = |s: &Instant| s.elapsed().as_millis() as u64;
    let error = |msg: String| Finished {
        result: TestResult::error(&test.name, &test.file, line, &msg, elapsed(&started)),
        session: None,
        answer: None,
    };

    if let Some(result) = skipped(test, tenv) {
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
    let deadline = Deadline::now() + timeout;

    if settings.fixture.is_none() && test.referenced_vars().iter().any(|v| v == "fixture") {
        return error("`{{fixture}}` is used but no --fixture directory was given".into());
    }
    // The test's own fixture copy, or the one its shared session uses.
    let mut fixture_copy = None;
    let slot = match shared.as_deref_mut() {
        Some(sh) => &mut sh.fixture,
        None => &mut fixture_copy,
    };
    let fixture_path = match fixture_in(settings.fixture.as_deref(), slot) {
        Ok(p) => p,
        Err(e) => return error(e),
    };
    if let Some(path) = &fixture_path {
        t.vars.insert("fixture".into(), path.display().to_string());
    }

    // Trajectories need no server.
    if let Action::Trajectory(source) = &test.action {
        return match trajectory_result(test, source, t, elapsed(&started)) {
            Ok(result) => Finished {
                result,
                session: None,
                answer: None,
            },
            Err(msg) => error(msg),
        };
    }

    let Some(server) = &test.server else {
        return error("this test has no server".into());
    };
    let endpoint = match endpoint_for(server, settings, t, fixture_path.as_deref()) {
        Ok(e) => e,
        Err(msg) => return error(msg),
    };
    if let Some(msg) = t.take_undefined() {
        return error(msg);
    }
    let mocks = mocks_for(server, &test.action, t);
    let mut warnings: Vec<String> = Vec::new();

    let version = server
        .protocol_version
        .clone()
        .unwrap_or_else(|| settings.protocol_version.clone());
    let key = format!("{endpoint:?} {mocks:?} {version}");
    let reused = match shared.as_deref_mut() {
        Some(sh) => sh.checkout(&key).await,
        None => None,
    };
    let connected = match reused {
        Some(live) => Ok(live),
        None => Session::connect(&endpoint, &version, &mocks, deadline)
            .await
            .map(|s| {
                let end = s.tap.mark();
                (s, end)
            }),
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
                }),
                answer: None,
            };
        }
    };

    let test_start = session.tap.mark();
    let mut answer = None;
    let outcome = drive(
        test,
        settings,
        &mut session,
        t,
        deadline,
        &mut warnings,
        &mut answer,
    )
    .await;
    let mut result = match outcome {
        Ok(r) => r,
        Err(ending) => {
            let msg = timeout_hint(ending.message().to_string(), deadline, timeout);
            match ending {
                Ending::Fail(_) => {
                    TestResult::fail(&test.name, &test.file, line, &msg, elapsed(&started))
                }
                Ending::Error(_) => {
                    TestResult::error(&test.name, &test.file, line, &msg, elapsed(&started))
                }
            }
        }
    };
    result.duration_ms = elapsed(&started);
    result.warnings.extend(warnings);

    let log = record.then(|| session_log(&session, &endpoint, settings, handshake_end, test_start));
    match shared {
        Some(sh) if result.status != TestStatus::Error => {
            sh.live = Some(Live {
                key,
                session,
                handshake_end,
            });
        }
        _ => session.close().await,
    }
    drop(fixture_copy);
    Finished {
        result,
        session: log,
        answer,
    }
}

/// The path of the fixture copy in `slot`, made from `src` when the slot is
/// empty; `None` without `--fixture`.
fn fixture_in(
    src: Option<&Path>,
    slot: &mut Option<fixture::FixtureCopy>,
) -> Result<Option<PathBuf>, String> {
    let Some(src) = src else {
        return Ok(None);
    };
    if slot.is_none() {
        *slot = Some(fixture::copy(src)?);
    }
    Ok(slot.as_ref().map(|c| c.path.clone()))
}

/// A test that is not run: `skip`, or a `skip_unless_env` variable unset.
fn skipped(test: &Test, tenv: &TestEnv) -> Option<TestResult> {
    let line = Some(test.line);
    if let Some(reason) = &test.skip {
        return Some(TestResult::skip(&test.name, &test.file, line, reason));
    }
    let env_lookup = lookup_env(&tenv.env);
    let missing = test
        .skip_unless_env
        .iter()
        .find(|v| env_lookup(v).is_none_or(|x| x.is_empty()))?;
    Some(TestResult::skip(
        &test.name,
        &test.file,
        line,
        &format!("skip_unless_env: {missing} is not set"),
    ))
}

/// A trajectory test: read its trace, score it. `Err` is the test's error.
fn trajectory_result(
    test: &Test,
    source: &TraceSource,
    t: &mut Templates<'_>,
    duration_ms: u64,
) -> Result<TestResult, String> {
    let trace = match source {
        TraceSource::Inline(entries) => entries.clone(),
        TraceSource::AuditLog(path) => {
            let real = t.text(path);
            let resolved = resolve_near(&real, &test.file);
            let text = read_checked_file(&resolved)?.ok_or_else(|| {
                format!(
                    "cannot read the audit log {}: it does not exist or is not UTF-8 text",
                    resolved.display()
                )
            })?;
            trajectory::parse_audit_log(&resolved.display().to_string(), &text)
                .map_err(|d| d.one_line())?
        }
    };
    if let Some(msg) = t.take_undefined() {
        return Err(msg);
    }
    let obs = trajectory::observation(trace);
    let scored = score::score(&test.expect, &obs, &Facts::default());
    Ok(TestResult::scored(
        &test.name,
        &test.file,
        Some(test.line),
        &scored,
        duration_ms,
    ))
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

/// Setup, the action, and the checks. `Err` ends the test before its
/// checks (core decides how: see `mcpcheck_core::setup`).
async fn drive(
    test: &Test,
    settings: &RunSettings,
    session: &mut Session,
    t: &mut Templates<'_>,
    deadline: Deadline,
    warnings: &mut Vec<String>,
    answer: &mut Option<Answer>,
) -> Result<TestResult, Ending> {
    run_setup(test, session, t, deadline, warnings).await?;
    let (after_paths, before_paths) = test.expect.file_paths();
    let files_before = read_files(&before_paths, t)?;
    let watch = test.watches_notifications();
    let settle = test
        .settle_ms
        .map(Duration::from_millis)
        .unwrap_or(if watch {
            settings.default_settle
        } else {
            Duration::ZERO
        });

    let (reply, from, method) = perform(test, session, t, deadline).await?;
    if let Some(f) = &reply.failure {
        return Err(Ending::Error(f.clone()));
    }

    // Notifications: from the request to its answer, then the settle window
    // (or, for an expected resource update, until it arrives).
    let mut to_mark = reply.end;
    let refused = reply.error.is_some() && method.name() == "resources/subscribe";
    if let Action::Resources {
        expect_notification: Some(true),
        subscribe: Some(uri),
        ..
    } = &test.action
        && !refused
    {
        // Event-driven: stop as soon as the update arrives (or the test's
        // deadline passes; the check then reports its absence).
        let uri = t.vars_only(uri);
        session
            .wait_notification(from, deadline, |n| {
                n.get("method").and_then(Value::as_str) == Some("notifications/resources/updated")
                    && n.pointer("/params/uri").and_then(Value::as_str) == Some(uri.as_str())
            })
            .await;
        to_mark = session.tap.mark();
    } else if !settle.is_zero() {
        let until = (Deadline::now() + settle).min(deadline);
        tokio::time::sleep_until(until).await;
        to_mark = session.tap.mark();
    }
    let notifications = session.notifications(from, to_mark);

    if let Action::Resources {
        unsubscribe: Some(uri),
        ..
    } = &test.action
    {
        let uri = t.vars_only(uri);
        let r = session.unsubscribe(&uri, deadline).await;
        if let Some(f) = r.failure {
            warnings.push(format!("resources/unsubscribe: {f}"));
        }
    }

    let obs = observation::observe(
        &method,
        reply.result.clone(),
        reply.error.clone(),
        notifications,
        Some(reply.duration_ms),
    );
    let facts = Facts {
        today: Some(settings.today),
        files: read_files(&after_paths, t)?,
        files_before,
        progress_token: reply.progress_token.clone(),
        subscribed_uri: match &test.action {
            Action::Resources {
                subscribe: Some(uri),
                ..
            } => Some(t.vars_only(uri)),
            _ => None,
        },
    };
    if let Action::Tool { tool, .. } = &test.action
        && reply.error.is_none()
        && settings.keep_answers
    {
        *answer = Some(Answer {
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
        });
    }
    let scored = score::score(&test.expect, &obs, &facts);
    Ok(TestResult::scored(
        &test.name,
        &test.file,
        Some(test.line),
        &scored,
        0,
    ))
}

/// The setup steps, in order, on the test's session: each answer is judged
/// by core; captured variables fill later templates.
async fn run_setup(
    test: &Test,
    session: &mut Session,
    t: &mut Templates<'_>,
    deadline: Deadline,
    warnings: &mut Vec<String>,
) -> Result<(), Ending> {
    for (i, step) in test.setup.iter().enumerate() {
        let args = t.value(&step.args);
        if let Some(msg) = t.take_undefined() {
            return Err(setup::undefined(i, step, &msg));
        }
        let params = Some(tool_call_params(&step.tool, &args));
        let reply = session.request("tools/call", params, deadline).await;
        let null = Value::Null;
        let answer = match (&reply.failure, &reply.error) {
            (Some(f), _) => StepAnswer::Failure(f),
            (None, Some(e)) => StepAnswer::Error(e),
            (None, None) => StepAnswer::Result(reply.result.as_ref().unwrap_or(&null)),
        };
        let outcome = setup::judge(i, step, answer)?;
        warnings.extend(outcome.warning);
        t.vars.extend(outcome.captured);
    }
    Ok(())
}

/// `tools/call` with the arguments' `{{var}}`s filled in; an undefined one is
/// an error of the test.
async fn call_tool(
    session: &mut Session,
    t: &mut Templates<'_>,
    tool: &str,
    args: &Value,
    deadline: Deadline,
) -> Result<Reply, Ending> {
    let args = t.value(args);
    if let Some(m) = t.take_undefined() {
        return Err(Ending::Error(m));
    }
    Ok(session
        .request("tools/call", Some(tool_call_params(tool, &args)), deadline)
        .await)
}

/// Send the action's request(s); returns the reply that the checks look at,
/// the tap index from which notifications count, and the method of the
/// request that reply answers (it decides how the result is observed: only
/// a `tools/call` result gains `isError: false`, for one).
async fn perform(
    test: &Test,
    session: &mut Session,
    t: &mut Templates<'_>,
    deadline: Deadline,
) -> Result<(Reply, usize, Method), Ending> {
    let Some(method) = test.action.method() else {
        return Err(Ending::Error("this test has no request to send".into()));
    };
    let from = session.tap.mark();
    let undefined = |t: &mut Templates<'_>| t.take_undefined().map(Ending::Error);
    let reply = match &test.action {
        Action::Tool { tool, args }
        | Action::Sampling { tool, args, .. }
        | Action::Notifications { tool, args } => {
            call_tool(session, t, tool, args, deadline).await?
        }
        Action::Logging {
            set_level,
            tool,
            args,
        } => {
            // A stateless session sends no setLevel: the level goes with
            // the tool call.
            let set = session.set_log_level(set_level, deadline).await;
            match (tool, set) {
                (Some(tool), None) => call_tool(session, t, tool, args, deadline).await?,
                (Some(tool), Some(r)) if r.failure.is_none() && r.error.is_none() => {
                    call_tool(session, t, tool, args, deadline).await?
                }
                // No tool, or setLevel failed: its answer is the one checked.
                (_, Some(r)) => return Ok((r, from, Method::Other("logging/setLevel".into()))),
                (None, None) => {
                    return Err(Ending::Error(
                        "`assert_logging` without `tool` checks the answer to logging/setLevel, which protocol 2026-07-28 does not have (the level goes with each request); name a tool to call".into(),
                    ));
                }
            }
        }
        Action::Prompts(PromptOp::List { cursor }) => {
            session
                .request("prompts/list", cursor_params(cursor), deadline)
                .await
        }
        Action::Prompts(PromptOp::Get { name, arguments }) => {
            let mut args = Map::new();
            for (k, v) in arguments {
                args.insert(k.clone(), Value::String(t.vars_only(v)));
            }
            let name = t.vars_only(name);
            if let Some(e) = undefined(t) {
                return Err(e);
            }
            let mut params = json!({"name": name});
            if !args.is_empty() {
                params["arguments"] = Value::Object(args);
            }
            session.request("prompts/get", Some(params), deadline).await
        }
        Action::Resources { op, subscribe, .. } => {
            let mut sub_reply = None;
            if let Some(uri) = subscribe {
                let uri = t.vars_only(uri);
                if let Some(e) = undefined(t) {
                    return Err(e);
                }
                let r = session.subscribe(&uri, deadline).await;
                if r.failure.is_some() || r.error.is_some() {
                    return Ok((r, from, Method::Other("resources/subscribe".into())));
                }
                sub_reply = Some(r);
            }
            match op {
                ResourceOp::List { cursor } => {
                    session
                        .request("resources/list", cursor_params(cursor), deadline)
                        .await
                }
                ResourceOp::Templates { cursor } => {
                    session
                        .request("resources/templates/list", cursor_params(cursor), deadline)
                        .await
                }
                ResourceOp::Read { uri } => {
                    let uri = t.vars_only(uri);
                    if let Some(e) = undefined(t) {
                        return Err(e);
                    }
                    session
                        .request("resources/read", Some(json!({"uri": uri})), deadline)
                        .await
                }
                ResourceOp::SubscribeOnly => sub_reply.unwrap_or_default(),
            }
        }
        Action::Completion {
            ref_type,
            ref_name,
            argument,
            context,
        } => {
            let name = t.vars_only(ref_name);
            let value = t.vars_only(&argument.1);
            let context = context.as_ref().map(|c| t.value(c));
            if let Some(e) = undefined(t) {
                return Err(e);
            }
            let reference = if ref_type == "ref/resource" {
                json!({"type": ref_type, "uri": name})
            } else {
                json!({"type": ref_type, "name": name})
            };
            let mut params =
                json!({"ref": reference, "argument": {"name": argument.0, "value": value}});
            // mcp-assert sent `context: {arguments: null}`, which the schema
            // does not allow; mcpcheck sends `context` only when given.
            if let Some(c) = context {
                params["context"] = c;
            }
            session
                .request("completion/complete", Some(params), deadline)
                .await
        }
        Action::Trajectory(_) => {
            return Err(Ending::Error("a trajectory has no request".into()));
        }
    };
    Ok((reply, from, method))
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
