//! The test runner's decisions, without I/O: a step machine per test.
//!
//! A driver (the CLI's, over rmcp; the npm package's, over the user's own
//! MCP SDK client) owns the transport, the clock and the files; this module
//! decides everything else, so both reach the same verdict on the same test:
//! whether the test runs, which requests go out in which order (setup steps,
//! `logging/setLevel`, a subscription, the block's request), what each is
//! sent with (templates filled, setup captures carried forward), how an
//! answer ends the test early, how long to listen for notifications, which
//! files to read, what the client answers when the server asks, and the
//! verdict.
//!
//! ```text
//! let mut run = TestRun::new(test, context);
//! if let Some(result) = run.refusal(has_fixture) { return result }   // skip, or a fixture is missing
//! (for a test with a server: connect with run.mocks() as the client's answers)
//! let mut input = Input::Start;
//! loop {
//!     match run.next(input) {
//!         Step::Send(request) => input = Input::Reply(send(request)),
//!         Step::ReadFiles(list) => input = Input::Files(read(list)),
//!         Step::ReadTrace(path) => input = Input::Trace { .. },
//!         Step::Wait(wait) => input = Input::Waited(listen(wait)),
//!         Step::Done(result) => break run.complete(result),
//!         Step::End(ending) => break run.complete(run.ended(&ending, ending.message())),
//!     }
//! }
//! ```

mod extensions;
mod mocks;
mod templates;

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::Facts;
use crate::observation::{self, Method};
use crate::results::TestResult;
use crate::score;
use crate::setup::{self, Ending, StepAnswer};
use crate::suite::{Action, PromptOp, ResourceOp, Test, TraceSource};
use crate::trajectory;

pub use mocks::{ElicitAnswer, MockError, Mocks};
pub use templates::{NO_FIXTURE, Templates};

/// How long a test that looks at notifications and sets no `settle`
/// listens after the answer, unless the run says otherwise (`mcpcheck run
/// --settle`, `runSuite`'s `settleMs`).
pub const DEFAULT_SETTLE_MS: u64 = 100;

/// What a run gives every test from outside the suite.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// `{{var}}` values (hooks' variables, `fixture`).
    pub vars: BTreeMap<String, String>,
    /// `${NAME}` values the run sets, read first.
    pub env: BTreeMap<String, String>,
    /// `${NAME}` values read when `env` lacks the name.
    pub fallback_env: BTreeMap<String, String>,
    /// Today's date, for `dates_within_days`.
    pub today: Option<NaiveDate>,
    /// How long to listen for notifications after the answer when the test
    /// looks at notifications and sets no `settle`.
    pub default_settle_ms: u64,
    /// The driver runs every test on a client it was given (the npm
    /// package's `runSuite`): a test needs no `server` of its own.
    pub client_given: bool,
}

/// A request for the driver to send.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub method: String,
    pub params: Option<Value>,
    pub kind: RequestKind,
}

/// Why a request is sent; a driver whose protocol revision does a thing
/// differently (2026-07-28 has no `logging/setLevel` and subscribes with
/// `subscriptions/listen`) looks at this instead of the method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// Setup step `n` (0-based).
    Setup(usize),
    /// `logging/setLevel` with this level. A driver that sends the level
    /// with each request instead answers [`Input::NotSent`].
    SetLogLevel(String),
    /// Ask for updates about this URI.
    Subscribe(String),
    /// Stop the updates about this URI.
    Unsubscribe(String),
    /// The block's request, whose answer the checks look at.
    Action,
}

/// How long to keep collecting server notifications after the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wait {
    /// This many milliseconds (the test's deadline permitting).
    For(u64),
    /// Until a `notifications/resources/updated` about this URI arrives, or
    /// the test's deadline passes.
    ResourceUpdated(String),
}

/// The answer to a request, as the driver got it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    pub result: Option<Value>,
    pub error: Option<Value>,
    /// No answer: the transport failed, the time ran out, or the answer was
    /// malformed (what happened, for the test's error).
    pub failure: Option<String>,
    pub duration_ms: u64,
    /// The progress token the request went out with, if the driver added one.
    pub progress_token: Option<Value>,
    /// The server's notifications since the request was sent.
    pub notifications: Vec<Value>,
}

/// What the driver hands back for the previous step.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// The first call.
    Start,
    /// The answer to [`Step::Send`].
    Reply(Reply),
    /// A [`RequestKind::SetLogLevel`] the driver's protocol does not send.
    NotSent,
    /// The files of [`Step::ReadFiles`], by key: `None` when absent or not
    /// text.
    Files(BTreeMap<String, Option<String>>),
    /// The audit log of [`Step::ReadTrace`]: the name it was read as and
    /// its text (`None`: it could not be read).
    Trace { file: String, text: Option<String> },
    /// The driver cannot carry the step out: a file that cannot be read
    /// safely (a pipe, too large), a client that cannot answer the server
    /// requests this test's mocks answer. The test's error.
    Unreadable(String),
    /// The notifications that arrived during [`Step::Wait`].
    Waited(Vec<Value>),
}

/// What the driver does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Send(Request),
    /// Read these files: (key, path to read).
    ReadFiles(Vec<(String, String)>),
    /// Read the audit log at this path (relative paths: from the current
    /// directory, else next to the suite file).
    ReadTrace(String),
    Wait(Wait),
    /// The verdict (its duration is the driver's to set).
    Done(Box<TestResult>),
    /// The test ended before its checks.
    End(Ending),
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    Begin,
    Setup(usize),
    FilesBefore,
    SetLevel,
    Subscribe,
    Action,
    Waiting,
    Unsubscribe,
    FilesAfter,
    Trace,
    /// An extension block's requests (`extensions`).
    Extension,
    Over,
}

/// One test, from its first step to its verdict.
#[derive(Clone, Debug)]
pub struct TestRun {
    test: Test,
    t: Templates,
    today: Option<NaiveDate>,
    default_settle_ms: u64,
    client_given: bool,
    phase: Phase,
    warnings: Vec<String>,
    /// Notifications since the block's first request.
    notifications: Vec<Value>,
    files_before: BTreeMap<String, Option<String>>,
    /// A subscription's answer, when the block also reads or lists.
    subscribed: Option<Reply>,
    /// The answer the checks look at, and the method it answers.
    checked: Option<(Reply, Method)>,
    observation: Option<Value>,
    /// The method of the request sent last, for a protocol error's message.
    sent: String,
    /// Where an extension block is.
    ext: Option<extensions::State>,
    /// Members an extension block adds to the observation (`task`,
    /// `verified`, `app`).
    extra: Vec<(&'static str, Value)>,
}

fn cursor_params(cursor: &Option<String>) -> Option<Value> {
    cursor.as_ref().map(|c| json!({ "cursor": c }))
}

fn send(method: &str, params: Option<Value>, kind: RequestKind) -> Step {
    Step::Send(Request {
        method: method.to_string(),
        params,
        kind,
    })
}

impl TestRun {
    pub fn new(test: &Test, context: Context) -> TestRun {
        TestRun {
            test: test.clone(),
            t: Templates::new(context.vars, context.env, context.fallback_env),
            today: context.today,
            default_settle_ms: context.default_settle_ms,
            client_given: context.client_given,
            phase: Phase::Begin,
            warnings: Vec::new(),
            notifications: Vec::new(),
            files_before: BTreeMap::new(),
            subscribed: None,
            checked: None,
            observation: None,
            sent: String::new(),
            ext: None,
            extra: Vec::new(),
        }
    }

    pub fn test(&self) -> &Test {
        &self.test
    }

    /// The test's templates: a driver fills its server's command, URL and
    /// headers with them before connecting.
    pub fn templates(&mut self) -> &mut Templates {
        &mut self.t
    }

    /// Whether the test runs at all: `skip`, a `skip_unless_env` variable
    /// unset or empty, or `{{fixture}}` in a run without a fixture
    /// directory end it before anything is started.
    pub fn refusal(&self, has_fixture: bool) -> Option<TestResult> {
        let test = &self.test;
        let line = Some(test.line);
        if let Some(reason) = &test.skip {
            return Some(TestResult::skip(&test.name, &test.file, line, reason));
        }
        if let Some(missing) = test
            .skip_unless_env
            .iter()
            .find(|v| self.t.env_var(v).is_none_or(|x| x.is_empty()))
        {
            return Some(TestResult::skip(
                &test.name,
                &test.file,
                line,
                &format!("skip_unless_env: {missing} is not set"),
            ));
        }
        if !has_fixture && test.referenced_vars().iter().any(|v| v == "fixture") {
            return Some(self.ended(&Ending::Error(NO_FIXTURE.into()), NO_FIXTURE));
        }
        None
    }

    /// The client's answers for this test: its server's
    /// `client_capabilities`, and an `assert_sampling` block's mock, which
    /// a test without a server (run on a client it was given) has too.
    pub fn mocks(&mut self) -> Mocks {
        Mocks::for_test(self.test.server.as_ref(), &self.test.action, &mut self.t)
    }

    /// The observation the checks looked at, once the test is done.
    pub fn observation(&self) -> Option<&Value> {
        self.observation.as_ref()
    }

    /// The result of a test that ended before its checks, with `message`
    /// (the ending's, or the driver's fuller one).
    pub fn ended(&self, ending: &Ending, message: &str) -> TestResult {
        let test = &self.test;
        let line = Some(test.line);
        match ending {
            Ending::Fail(_) => TestResult::fail(&test.name, &test.file, line, message, 0),
            Ending::Error(_) => TestResult::error(&test.name, &test.file, line, message, 0),
        }
    }

    /// `result` with the warnings gathered on the way: setup steps' and
    /// unsubscription's, then one per unset environment variable a
    /// template read (an empty `${TOKEN}` is often why a test errored).
    pub fn complete(&self, mut result: TestResult) -> TestResult {
        result.warnings.extend(self.warnings.iter().cloned());
        for warning in self.t.unset_warnings() {
            if !result.warnings.contains(&warning) {
                result.warnings.push(warning);
            }
        }
        result
    }

    /// The next step, given what the driver got for the previous one.
    pub fn next(&mut self, input: Input) -> Step {
        // An unsubscription's answer is not read (a stateless session
        // ends its stream and has none).
        let input = match input {
            Input::Reply(reply) if self.phase != Phase::Unsubscribe => {
                Input::Reply(self.protocol_checked(reply))
            }
            other => other,
        };
        match self.advance(input) {
            Ok(step) => {
                match &step {
                    Step::Done(_) => self.phase = Phase::Over,
                    Step::Send(request) => self.sent.clone_from(&request.method),
                    _ => {}
                }
                step
            }
            Err(ending) => {
                self.phase = Phase::Over;
                Step::End(ending)
            }
        }
    }

    fn advance(&mut self, input: Input) -> Result<Step, Ending> {
        if let Input::Unreadable(why) = input {
            return Err(Ending::Error(why));
        }
        let phase = std::mem::replace(&mut self.phase, Phase::Over);
        match (phase, input) {
            (Phase::Begin, _) => self.begin(),
            (Phase::Trace, Input::Trace { file, text }) => self.trace_read(&file, text),
            (Phase::Setup(i), Input::Reply(reply)) => {
                let step = &self.test.setup[i];
                let null = Value::Null;
                let answer = match (&reply.failure, &reply.error) {
                    (Some(f), _) => StepAnswer::Failure(f),
                    (None, Some(e)) => StepAnswer::Error(e),
                    (None, None) => StepAnswer::Result(reply.result.as_ref().unwrap_or(&null)),
                };
                let outcome = setup::judge(i, step, answer)?;
                self.warnings.extend(outcome.warning);
                self.t.vars.extend(outcome.captured);
                self.setup_step(i + 1)
            }
            (Phase::FilesBefore, Input::Files(files)) => {
                self.files_before = files;
                self.perform()
            }
            (Phase::SetLevel, input) => {
                self.collect(&input);
                let Action::Logging { tool, args, .. } = &self.test.action else {
                    return Err(self.out_of_order());
                };
                let (tool, args) = (tool.clone(), args.clone());
                match (tool, input) {
                    (Some(tool), Input::NotSent) => self.call_tool(&tool, &args),
                    (Some(tool), Input::Reply(r)) if r.failure.is_none() && r.error.is_none() => {
                        self.call_tool(&tool, &args)
                    }
                    // No tool, or setLevel failed: its answer is the one checked.
                    (_, Input::Reply(r)) => self.answered(r, Method::Other("logging/setLevel".into())),
                    (None, Input::NotSent) => Err(Ending::Error(
                        "`assert_logging` without `tool` checks the answer to logging/setLevel, which protocol 2026-07-28 does not have (the level goes with each request); name a tool to call".into(),
                    )),
                    _ => Err(self.out_of_order()),
                }
            }
            (Phase::Subscribe, Input::Reply(r)) => {
                self.collect_reply(&r);
                if r.failure.is_some() || r.error.is_some() {
                    return self.answered(r, Method::Other("resources/subscribe".into()));
                }
                self.subscribed = Some(r);
                self.resource_op()
            }
            (Phase::Action, Input::Reply(r)) => {
                self.collect_reply(&r);
                let method = self
                    .test
                    .action
                    .method()
                    .unwrap_or(Method::Other(String::new()));
                self.answered(r, method)
            }
            (Phase::Waiting, Input::Waited(notifications)) => {
                self.notifications.extend(notifications);
                self.unsubscribe()
            }
            (Phase::Unsubscribe, Input::Reply(r)) => {
                if let Some(f) = r.failure {
                    self.warnings.push(format!("resources/unsubscribe: {f}"));
                }
                self.files_after()
            }
            (Phase::FilesAfter, Input::Files(files)) => Ok(self.verdict(files)),
            (Phase::Extension, Input::Reply(r)) => self.ext_reply(r),
            (Phase::Extension, Input::Waited(notifications)) => {
                self.notifications.extend(notifications);
                self.ext_waited()
            }
            _ => Err(self.out_of_order()),
        }
    }

    /// `reply` as a failure when it is not a JSON-RPC answer: a `result`
    /// that is not an object (`null`, `"hi"`), an `error` that is not one,
    /// or neither. A driver hands back what its client returned; a client
    /// that is not an SDK one may return anything.
    fn protocol_checked(&self, mut reply: Reply) -> Reply {
        if reply.failure.is_some() {
            return reply;
        }
        let method = &self.sent;
        let problem = match (&reply.result, &reply.error) {
            (_, Some(e)) if !e.is_object() => Some(format!(
                "its `error` is {}, not an object with `code` and `message`",
                observation::kind_of(e)
            )),
            (_, Some(_)) | (Some(Value::Object(_)), None) => None,
            (Some(r), None) => Some(format!(
                "its `result` is {}, not an object",
                observation::kind_of(r)
            )),
            (None, None) => Some("it has neither a `result` nor an `error`".to_string()),
        };
        if let Some(problem) = problem {
            reply.result = None;
            reply.error = None;
            reply.failure = Some(format!(
                "protocol error: the answer to {method} is not a JSON-RPC response: {problem}"
            ));
        }
        reply
    }

    fn out_of_order(&self) -> Ending {
        Ending::Error(
            "the test runner's driver answered a step with the wrong kind of input".into(),
        )
    }

    fn collect(&mut self, input: &Input) {
        if let Input::Reply(r) = input {
            self.collect_reply(r);
        }
    }

    fn collect_reply(&mut self, r: &Reply) {
        self.notifications.extend(r.notifications.iter().cloned());
    }

    fn begin(&mut self) -> Result<Step, Ending> {
        if let Action::Trajectory(source) = &self.test.action {
            return match source {
                TraceSource::Inline(entries) => Ok(self.trace_scored(entries.clone())),
                TraceSource::AuditLog(path) => {
                    let real = self.t.text(path);
                    if let Some(msg) = self.t.take_undefined() {
                        return Err(Ending::Error(msg));
                    }
                    self.phase = Phase::Trace;
                    Ok(Step::ReadTrace(real))
                }
            };
        }
        if self.test.server.is_none() && !self.client_given {
            return Err(Ending::Error("this test has no server".into()));
        }
        self.setup_step(0)
    }

    fn trace_read(&mut self, file: &str, text: Option<String>) -> Result<Step, Ending> {
        let text = text.ok_or_else(|| {
            Ending::Error(format!(
                "cannot read the audit log {file}: it does not exist or is not UTF-8 text"
            ))
        })?;
        let trace =
            trajectory::parse_audit_log(file, &text).map_err(|d| Ending::Error(d.one_line()))?;
        Ok(self.trace_scored(trace))
    }

    fn trace_scored(&mut self, trace: Vec<crate::trajectory::TraceEntry>) -> Step {
        self.scored(trajectory::observation(trace), &Facts::default())
    }

    /// The verdict of the checks on `obs`.
    fn scored(&mut self, obs: Value, facts: &Facts) -> Step {
        let scored = score::score(&self.test.expect, &obs, facts);
        self.observation = Some(obs);
        let test = &self.test;
        Step::Done(Box::new(TestResult::scored(
            &test.name,
            &test.file,
            Some(test.line),
            &scored,
            0,
        )))
    }

    /// Setup step `i`, or what comes after the last.
    fn setup_step(&mut self, i: usize) -> Result<Step, Ending> {
        let Some(step) = self.test.setup.get(i) else {
            let (_, before) = self.test.expect.file_paths();
            if before.is_empty() {
                return self.perform();
            }
            self.phase = Phase::FilesBefore;
            return Ok(Step::ReadFiles(self.paths(before)));
        };
        let args = self.t.value(&step.args);
        if let Some(msg) = self.t.take_undefined() {
            return Err(setup::undefined(i, step, &msg));
        }
        let params = json!({"name": step.tool, "arguments": args});
        self.phase = Phase::Setup(i);
        Ok(send("tools/call", Some(params), RequestKind::Setup(i)))
    }

    fn paths(&mut self, raw: Vec<String>) -> Vec<(String, String)> {
        raw.into_iter()
            .map(|r| {
                let real = self.t.text(&r);
                (r, real)
            })
            .collect()
    }

    fn undefined(&mut self) -> Result<(), Ending> {
        match self.t.take_undefined() {
            Some(m) => Err(Ending::Error(m)),
            None => Ok(()),
        }
    }

    fn call_tool(&mut self, tool: &str, args: &Value) -> Result<Step, Ending> {
        let args = self.t.value(args);
        self.undefined()?;
        self.phase = Phase::Action;
        Ok(send(
            "tools/call",
            Some(json!({"name": tool, "arguments": args})),
            RequestKind::Action,
        ))
    }

    /// The block's first request.
    fn perform(&mut self) -> Result<Step, Ending> {
        if self.test.action.method().is_none() {
            return Err(Ending::Error("this test has no request to send".into()));
        }
        let action = self.test.action.clone();
        match &action {
            Action::Tool { tool, args }
            | Action::Sampling { tool, args, .. }
            | Action::Notifications { tool, args } => self.call_tool(tool, args),
            Action::Logging { set_level, .. } => {
                self.phase = Phase::SetLevel;
                Ok(send(
                    "logging/setLevel",
                    Some(json!({ "level": set_level })),
                    RequestKind::SetLogLevel(set_level.clone()),
                ))
            }
            Action::Prompts(PromptOp::List { cursor }) => {
                self.phase = Phase::Action;
                Ok(send(
                    "prompts/list",
                    cursor_params(cursor),
                    RequestKind::Action,
                ))
            }
            Action::Prompts(PromptOp::Get { name, arguments }) => {
                let mut args = serde_json::Map::new();
                for (k, v) in arguments {
                    args.insert(k.clone(), Value::String(self.t.vars_only(v)));
                }
                let name = self.t.vars_only(name);
                self.undefined()?;
                let mut params = json!({ "name": name });
                if !args.is_empty() {
                    params["arguments"] = Value::Object(args);
                }
                self.phase = Phase::Action;
                Ok(send("prompts/get", Some(params), RequestKind::Action))
            }
            Action::Resources {
                subscribe: Some(uri),
                ..
            } => {
                let uri = self.t.vars_only(uri);
                self.undefined()?;
                self.phase = Phase::Subscribe;
                Ok(send(
                    "resources/subscribe",
                    Some(json!({ "uri": uri })),
                    RequestKind::Subscribe(uri),
                ))
            }
            Action::Resources { .. } => self.resource_op(),
            Action::Completion {
                ref_type,
                ref_name,
                argument,
                context,
            } => {
                let name = self.t.vars_only(ref_name);
                let value = self.t.vars_only(&argument.1);
                let context = context.as_ref().map(|c| self.t.value(c));
                self.undefined()?;
                let reference = if ref_type == "ref/resource" {
                    json!({"type": ref_type, "uri": name})
                } else {
                    json!({"type": ref_type, "name": name})
                };
                let mut params =
                    json!({"ref": reference, "argument": {"name": argument.0, "value": value}});
                // mcp-assert sent `context: {arguments: null}`, which the
                // schema does not allow; mcpcheck sends `context` only when
                // given.
                if let Some(c) = context {
                    params["context"] = c;
                }
                self.phase = Phase::Action;
                Ok(send(
                    "completion/complete",
                    Some(params),
                    RequestKind::Action,
                ))
            }
            Action::Trajectory(_) => Err(Ending::Error("a trajectory has no request".into())),
            Action::Extension(_) => self.ext_start(),
        }
    }

    /// A resources block's list, read or template request (after its
    /// subscription, if any).
    fn resource_op(&mut self) -> Result<Step, Ending> {
        let Action::Resources { op, .. } = &self.test.action else {
            return Err(self.out_of_order());
        };
        let (method, params) = match op.clone() {
            ResourceOp::List { cursor } => ("resources/list", cursor_params(&cursor)),
            ResourceOp::Templates { cursor } => {
                ("resources/templates/list", cursor_params(&cursor))
            }
            ResourceOp::Read { uri } => {
                let uri = self.t.vars_only(&uri);
                self.undefined()?;
                ("resources/read", Some(json!({ "uri": uri })))
            }
            ResourceOp::SubscribeOnly => {
                let reply = self.subscribed.take().unwrap_or_default();
                return self.answered(reply, Method::Other("resources/subscribe".into()));
            }
        };
        self.phase = Phase::Action;
        Ok(send(method, params, RequestKind::Action))
    }

    /// The checked answer is in: listen for notifications if the test
    /// needs them.
    fn answered(&mut self, reply: Reply, method: Method) -> Result<Step, Ending> {
        if let Some(f) = &reply.failure {
            return Err(Ending::Error(f.clone()));
        }
        let refused = reply.error.is_some() && method.name() == "resources/subscribe";
        self.checked = Some((reply, method));
        if let Action::Resources {
            expect_notification: Some(true),
            subscribe: Some(uri),
            ..
        } = &self.test.action
            && !refused
        {
            // Event-driven: stop as soon as the update arrives (or the
            // test's deadline passes; the check then reports its absence).
            let uri = self.t.vars_only(&uri.clone());
            let arrived = self.notifications.iter().any(|n| {
                n.get("method").and_then(Value::as_str) == Some("notifications/resources/updated")
                    && n.pointer("/params/uri").and_then(Value::as_str) == Some(uri.as_str())
            });
            if arrived {
                return self.unsubscribe();
            }
            self.phase = Phase::Waiting;
            return Ok(Step::Wait(Wait::ResourceUpdated(uri)));
        }
        let settle = self
            .test
            .settle_ms
            .unwrap_or(if self.test.watches_notifications() {
                self.default_settle_ms
            } else {
                0
            });
        if settle > 0 {
            self.phase = Phase::Waiting;
            return Ok(Step::Wait(Wait::For(settle)));
        }
        self.unsubscribe()
    }

    fn unsubscribe(&mut self) -> Result<Step, Ending> {
        if let Action::Resources {
            unsubscribe: Some(uri),
            ..
        } = &self.test.action
        {
            let uri = self.t.vars_only(&uri.clone());
            self.phase = Phase::Unsubscribe;
            return Ok(send(
                "resources/unsubscribe",
                Some(json!({ "uri": uri })),
                RequestKind::Unsubscribe(uri),
            ));
        }
        self.files_after()
    }

    fn files_after(&mut self) -> Result<Step, Ending> {
        let (after, _) = self.test.expect.file_paths();
        if after.is_empty() {
            return Ok(self.verdict(BTreeMap::new()));
        }
        self.phase = Phase::FilesAfter;
        Ok(Step::ReadFiles(self.paths(after)))
    }

    fn verdict(&mut self, files: BTreeMap<String, Option<String>>) -> Step {
        let (reply, method) = self
            .checked
            .take()
            .unwrap_or_else(|| (Reply::default(), Method::Other(String::new())));
        let mut obs = observation::observe(
            &method,
            reply.result,
            reply.error,
            std::mem::take(&mut self.notifications),
            Some(reply.duration_ms),
        );
        if let Some(members) = obs.as_object_mut() {
            for (key, value) in std::mem::take(&mut self.extra) {
                members.insert(key.to_string(), value);
            }
        }
        let subscribed_uri = match &self.test.action {
            Action::Resources {
                subscribe: Some(uri),
                ..
            } => Some(self.t.vars_only(&uri.clone())),
            _ => None,
        };
        let facts = Facts {
            today: self.today,
            files,
            files_before: std::mem::take(&mut self.files_before),
            progress_token: reply.progress_token,
            subscribed_uri,
        };
        self.scored(obs, &facts)
    }
}

#[cfg(test)]
mod tests;
