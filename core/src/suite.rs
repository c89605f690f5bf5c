//! Suites: loading test files of either form into one model.
//!
//! **Per-file form** (mcp-assert): one test per file — `name`, `server`,
//! `setup`, exactly one block (`assert`, `assert_prompts`, `assert_resources`,
//! `assert_completion`, `assert_sampling`, `assert_logging`,
//! `assert_notifications`, or `trace`/`audit_log` + `trajectory`), `timeout`,
//! `skip`, `skip_unless_env`. A directory of such files is a suite (the CLI
//! finds the files; this module reads text only).
//!
//! **Composed form**: a file with `tests:` (or mcptest's `tools:`) holds many
//! tests sharing `servers`, `server`, `env`, `defaultTest` and `hooks`. A test
//! may use any block, or the short form `tool` + `args` + `expect`.
//!
//! Either form may use `threshold`, list-form `expect` items, `assert-set` and
//! `derivedMetrics`. `defaultTest` is merged into each test: the test's own
//! expectations and metrics first, then the default's; its options
//! (`threshold`, `timeout`, `server`, `settle`, `skip_unless_env`) apply where
//! the test sets none.
//!
//! Loading never panics and never stops at the first problem: it returns what
//! it could build plus every diagnostic. Unknown keys are errors.

use serde_json::{Map, Value};

use crate::check::{Check, Matcher, Target};
use crate::diag::{Diagnostic, Span};
use crate::expect::{self, Block, DerivedMetric, Expectations, Item};
use crate::observation::Method;
use crate::path::Path;
use crate::read::LoadCx;
use crate::template::{vars_in, vars_in_value};
use crate::trajectory::{self, TraceEntry};
use crate::yaml::{self, Node};

/// How the client talks to a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    /// Legacy HTTP+SSE (`GET` an event stream, `POST` to its endpoint).
    Sse,
    /// Streamable HTTP.
    Http,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Sse => "sse",
            Transport::Http => "http",
        }
    }
}

/// A mock answer to `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplingMock {
    pub text: String,
    /// Default "mock".
    pub model: String,
    /// Default "end_turn".
    pub stop_reason: String,
}

/// A mock answer to `elicitation/create`.
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitationMock {
    /// `accept` (default), `decline` or `cancel`.
    pub action: String,
    /// The form values (for `accept`).
    pub content: Value,
    /// `elicitation: defaults`: accept with the `default` of every field of
    /// the requested schema, whatever the form asks (`content` is empty).
    pub defaults: bool,
}

/// The MCP protocol revisions a session can speak, oldest first. Up to
/// 2025-11-25 a session opens with `initialize`; from 2026-07-28 on every
/// request carries its own `_meta` and the session opens with
/// `server/discover`.
pub const PROTOCOL_VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The first revision without the `initialize` handshake.
pub const STATELESS_PROTOCOL_VERSION: &str = "2026-07-28";

/// Whether `version` is a revision without `initialize` (2026-07-28 and
/// later): requests carry `_meta`, server requests become input-required
/// results.
pub fn is_stateless(version: &str) -> bool {
    version >= STATELESS_PROTOCOL_VERSION
}

/// `Err` says what is wrong with a protocol version and lists the known
/// ones.
pub fn check_protocol_version(version: &str) -> Result<(), UnknownVersion> {
    if PROTOCOL_VERSIONS.contains(&version) {
        Ok(())
    } else {
        Err(UnknownVersion(version.to_string()))
    }
}

/// A protocol version that is none of [`PROTOCOL_VERSIONS`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version `{0}`; the known revisions are {known}", known = PROTOCOL_VERSIONS.join(", "))]
pub struct UnknownVersion(pub String);

/// What the client answers when the server asks it something.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientCaps {
    /// Paths returned by `roots/list` (as `file://` URIs; templates allowed).
    pub roots: Option<Vec<String>>,
    pub sampling: Option<SamplingMock>,
    pub elicitation: Option<ElicitationMock>,
    /// The extensions declared (`capabilities.extensions`): identifier →
    /// settings object.
    pub extensions: Option<serde_json::Map<String, Value>>,
}

impl ClientCaps {
    pub fn is_empty(&self) -> bool {
        self.roots.is_none()
            && self.sampling.is_none()
            && self.elicitation.is_none()
            && self.extensions.is_none()
    }
}

/// How to reach the server under test.
#[derive(Clone, Debug, PartialEq)]
pub struct Server {
    /// The name under `servers:` it came from, if any.
    pub label: Option<String>,
    pub transport: Transport,
    /// None when the suite relies on `--server`.
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub url: Option<String>,
    pub headers: Vec<(String, String)>,
    pub docker: Option<String>,
    pub client: ClientCaps,
    /// `protocol_version`: the revision to speak with this server, instead
    /// of the run's `--protocol-version`.
    pub protocol_version: Option<String>,
    /// `auth`: how to get an OAuth access token for an HTTP server.
    pub auth: Option<Auth>,
    /// `redact`: which `env` and `headers` names hold secrets beyond the
    /// rule of [`crate::redact`], and which do not.
    pub redact: Redact,
    pub span: Span,
}

/// A server's `redact` block: names (of `env` variables or headers,
/// compared without regard to case) whose values are secret although the
/// rule of [`crate::redact`] would show them (`secret`), or are not secret
/// although it would hide them (`keep`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Redact {
    pub secret: Vec<String>,
    pub keep: Vec<String>,
}

/// The OAuth 2.1 grant a run uses to get its access token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grant {
    ClientCredentials,
    RefreshToken,
    AuthorizationCode,
}

impl Grant {
    pub const NAMES: &[&str] = &["client_credentials", "refresh_token", "authorization_code"];

    pub fn parse(name: &str) -> Option<Grant> {
        match name {
            "client_credentials" => Some(Grant::ClientCredentials),
            "refresh_token" => Some(Grant::RefreshToken),
            "authorization_code" => Some(Grant::AuthorizationCode),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Grant::NAMES[self as usize]
    }
}

/// A server's `auth` block, values as written (`${ENV}` expanded by the
/// caller). `token_url` absent means discovery from the server's 401.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Auth {
    pub grant: Grant,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub scope: Option<String>,
    pub resource: Option<String>,
    pub token_url: Option<String>,
    pub refresh_token: Option<String>,
}

impl Auth {
    /// What the grant lacks or does not use, and what to write instead.
    pub fn check(&self) -> Result<(), (String, &'static str)> {
        let g = self.grant.as_str();
        match self.grant {
            Grant::ClientCredentials
                if self.client_id.is_none() || self.client_secret.is_none() =>
            {
                Err((
                    format!("`type: {g}` needs `client_id` and `client_secret`"),
                    "e.g. `client_secret: ${CLIENT_SECRET}` to read it from the environment",
                ))
            }
            Grant::RefreshToken if self.refresh_token.is_none() => Err((
                format!("`type: {g}` needs `refresh_token`"),
                "e.g. `refresh_token: ${REFRESH_TOKEN}`",
            )),
            Grant::ClientCredentials | Grant::AuthorizationCode if self.refresh_token.is_some() => {
                Err((
                    format!("`refresh_token` is not used by `type: {g}`"),
                    "remove it, or write `type: refresh_token`",
                ))
            }
            _ => Ok(()),
        }
    }
}

/// A setup tool call, run before the action on the same session.
#[derive(Clone, Debug)]
pub struct SetupCall {
    pub tool: String,
    pub args: Value,
    /// Variables to capture from the result: (name, path into the result's
    /// text parsed as JSON).
    pub capture: Vec<(String, Path)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PromptOp {
    List {
        cursor: Option<String>,
    },
    Get {
        name: String,
        arguments: Vec<(String, String)>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ResourceOp {
    List {
        cursor: Option<String>,
    },
    Read {
        uri: String,
    },
    Templates {
        cursor: Option<String>,
    },
    /// Only subscribe (and wait for the expected notification).
    SubscribeOnly,
}

/// What an extension block does (docs/extensions.md).
#[derive(Clone, Debug, PartialEq)]
pub enum ExtensionOp {
    /// `assert_task`: call a tool declaring the tasks extension; when the
    /// answer is a task, poll it to its end, cancel it first, or stop.
    Task {
        tool: String,
        args: Value,
        then: TaskThen,
    },
    /// `assert_skills`: list or get skills; with `verify`, read every file
    /// of their manifests and hold each to its digest and size.
    Skills { op: SkillsOp, verify: bool },
    /// `assert_app`: read a tool's UI resource (found in `tools/list`), or a
    /// `ui://` resource by URI, and judge it as an app.
    App(AppSource),
}

/// What `assert_task` does with a task once it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskThen {
    /// `tasks/get` until the task ends, answering its input requests.
    Poll,
    /// `tasks/cancel`, then `tasks/get` until the task ends.
    Cancel,
    /// Nothing: the `CreateTaskResult` is what the checks see.
    Stop,
}

/// The request of `assert_skills`.
#[derive(Clone, Debug, PartialEq)]
pub enum SkillsOp {
    List { cursor: Option<String> },
    Get { uri: String },
}

/// Where `assert_app` finds the app.
#[derive(Clone, Debug, PartialEq)]
pub enum AppSource {
    /// The UI resource of this tool.
    Tool(String),
    /// This `ui://` resource.
    Read(String),
}

/// Where a trajectory's trace comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceSource {
    Inline(Vec<TraceEntry>),
    /// A JSONL audit log path, as written (templates unexpanded).
    AuditLog(String),
}

/// What a test does.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Tool {
        tool: String,
        args: Value,
    },
    Prompts(PromptOp),
    Resources {
        op: ResourceOp,
        subscribe: Option<String>,
        unsubscribe: Option<String>,
        expect_notification: Option<bool>,
    },
    Completion {
        ref_type: String,
        ref_name: String,
        argument: (String, String),
        context: Option<Value>,
    },
    Sampling {
        tool: String,
        args: Value,
        mock: SamplingMock,
    },
    Logging {
        set_level: String,
        tool: Option<String>,
        args: Value,
    },
    Notifications {
        tool: String,
        args: Value,
    },
    Trajectory(TraceSource),
    /// A block of an extension: `assert_task`, `assert_skills`, `assert_app`.
    Extension(ExtensionOp),
}

impl Action {
    /// The MCP method whose result the checks look at (None: no server).
    /// When an earlier request of the block fails (`resources/subscribe`,
    /// `logging/setLevel`), the runner observes that answer instead.
    pub fn method(&self) -> Option<Method> {
        Some(match self {
            Action::Tool { .. }
            | Action::Sampling { .. }
            | Action::Notifications { .. }
            | Action::Logging { tool: Some(_), .. } => Method::ToolsCall,
            Action::Logging { tool: None, .. } => Method::Other("logging/setLevel".into()),
            Action::Prompts(PromptOp::List { .. }) => Method::Other("prompts/list".into()),
            Action::Prompts(PromptOp::Get { .. }) => Method::PromptsGet,
            Action::Resources { op, .. } => match op {
                ResourceOp::List { .. } => Method::Other("resources/list".into()),
                ResourceOp::Read { .. } => Method::ResourcesRead,
                ResourceOp::Templates { .. } => Method::Other("resources/templates/list".into()),
                ResourceOp::SubscribeOnly => Method::Other("resources/subscribe".into()),
            },
            Action::Completion { .. } => Method::Other("completion/complete".into()),
            Action::Extension(ExtensionOp::Task { .. }) => Method::ToolsCall,
            Action::Extension(ExtensionOp::Skills { op, .. }) => match op {
                SkillsOp::List { .. } => Method::Other("skills/list".into()),
                SkillsOp::Get { .. } => Method::Other("skills/get".into()),
            },
            Action::Extension(ExtensionOp::App(_)) => Method::ResourcesRead,
            Action::Trajectory(_) => return None,
        })
    }

    /// The block name, for messages.
    pub fn block_name(&self) -> &'static str {
        match self {
            Action::Tool { .. } => "assert",
            Action::Prompts(_) => "assert_prompts",
            Action::Resources { .. } => "assert_resources",
            Action::Completion { .. } => "assert_completion",
            Action::Sampling { .. } => "assert_sampling",
            Action::Logging { .. } => "assert_logging",
            Action::Notifications { .. } => "assert_notifications",
            Action::Trajectory(_) => "trajectory",
            Action::Extension(ExtensionOp::Task { .. }) => "assert_task",
            Action::Extension(ExtensionOp::Skills { .. }) => "assert_skills",
            Action::Extension(ExtensionOp::App(_)) => "assert_app",
        }
    }
}

/// One test.
#[derive(Clone, Debug)]
pub struct Test {
    pub name: String,
    pub file: String,
    /// The line the test starts on.
    pub line: u32,
    /// Where the test is written.
    pub span: Span,
    pub description: Option<String>,
    /// None for trajectory tests (no server).
    pub server: Option<Server>,
    pub setup: Vec<SetupCall>,
    pub action: Action,
    pub expect: Expectations,
    pub timeout_ms: Option<u64>,
    /// How long to keep collecting notifications after the response.
    pub settle_ms: Option<u64>,
    /// Skip unconditionally, with this reason.
    pub skip: Option<String>,
    /// Skip unless every one of these environment variables is set.
    pub skip_unless_env: Vec<String>,
    /// `tags`: words to filter the test by in reports.
    pub tags: Vec<String>,
    /// `snapshot`: the answer this tool test expects, kept in the suite
    /// (compared on every run; written by `run --update-snapshots`).
    pub snapshot: Option<crate::snapshot::InlineSnapshot>,
}

/// A hook step: a program and its arguments (split with POSIX shell rules,
/// run without a shell).
#[derive(Clone, Debug, PartialEq)]
pub struct HookStep {
    pub command: String,
    pub argv: Vec<String>,
    /// `mode: context`: JSON context on stdin, a JSON patch on stdout.
    pub context: bool,
    pub timeout_ms: Option<u64>,
    pub span: Span,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hooks {
    pub before_all: Vec<HookStep>,
    pub before_each: Vec<HookStep>,
    pub after_each: Vec<HookStep>,
    pub after_all: Vec<HookStep>,
}

impl Hooks {
    /// Per-test hooks force serial execution.
    pub fn has_per_test(&self) -> bool {
        !self.before_each.is_empty() || !self.after_each.is_empty()
    }

    pub fn is_empty(&self) -> bool {
        self.before_all.is_empty() && !self.has_per_test() && self.after_all.is_empty()
    }

    pub fn any_context(&self) -> bool {
        [
            &self.before_all,
            &self.before_each,
            &self.after_each,
            &self.after_all,
        ]
        .iter()
        .any(|p| p.iter().any(|s| s.context))
    }
}

/// One loaded file.
#[derive(Clone, Debug)]
pub struct SuiteFile {
    pub file: String,
    /// The suite's name (composed form).
    pub name: Option<String>,
    /// Whether the file used the composed (`tests:`) form.
    pub composed: bool,
    /// Suite-level environment for servers and hooks.
    pub env: Vec<(String, String)>,
    pub hooks: Hooks,
    /// Whether tests with the same server may share one server session: a
    /// composed file's tests with each other; a test file's with the other
    /// test files of its directory that say so.
    pub share_server: bool,
    /// The file says `share_server: false`: its tests never share a
    /// session, even in a run that reuses servers (its server keeps state
    /// between calls that a test must not see).
    pub isolate: bool,
    pub tests: Vec<Test>,
}

/// A loaded file plus every diagnostic found in it.
#[derive(Debug)]
pub struct Loaded {
    pub suite: SuiteFile,
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

const BLOCKS: &[&str] = &[
    "assert",
    "assert_prompts",
    "assert_resources",
    "assert_completion",
    "assert_sampling",
    "assert_logging",
    "assert_notifications",
    "trajectory",
    "assert_task",
    "assert_skills",
    "assert_app",
];

/// The order in which mcp-assert looks for a test file's block: the first
/// one written wins (the extensions' blocks, which mcp-assert does not
/// have, come last).
const MCP_ASSERT_DISPATCH: &[&str] = &[
    "trajectory",
    "assert_resources",
    "assert_prompts",
    "assert_completion",
    "assert_sampling",
    "assert_logging",
    "assert_notifications",
    "assert",
    "assert_task",
    "assert_skills",
    "assert_app",
];

const TEST_KEYS: &[&str] = &[
    "name",
    "description",
    "server",
    "setup",
    "assert",
    "assert_prompts",
    "assert_resources",
    "assert_completion",
    "assert_sampling",
    "assert_logging",
    "assert_notifications",
    "assert_task",
    "assert_skills",
    "assert_app",
    "trace",
    "audit_log",
    "trajectory",
    "timeout",
    "settle",
    "skip",
    "skip_unless_env",
    "threshold",
    "derivedMetrics",
    "tags",
    "snapshot",
];

const COMPOSED_TEST_EXTRA: &[&str] = &["tool", "args", "expect"];

const SUITE_KEYS: &[&str] = &[
    "name",
    "description",
    "server",
    "servers",
    "env",
    "defaultTest",
    "hooks",
    "tests",
    "tools",
    "share_server",
];

const DEFAULT_TEST_KEYS: &[&str] = &[
    "expect",
    "threshold",
    "derivedMetrics",
    "timeout",
    "settle",
    "server",
    "skip_unless_env",
];

const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "transport",
    "url",
    "headers",
    "docker",
    "client_capabilities",
    "protocol_version",
    "auth",
    "redact",
];

const AUTH_KEYS: &[&str] = &[
    "type",
    "client_id",
    "client_secret",
    "scope",
    "resource",
    "token_url",
    "refresh_token",
];

/// What the files of one suite may take together, spent as they load: the
/// values they hold ([`crate::yaml`]'s `MAX_SUITE_NODES`) and the memory of
/// their compiled regular expressions. Load the files of one run with one
/// budget ([`load_in`]).
#[derive(Debug, Default)]
pub struct LoadBudget {
    nodes: usize,
    regex_bytes: usize,
}

/// Load one file's text. `file` names it in diagnostics and results.
pub fn load(file: &str, text: &str) -> Loaded {
    load_in(file, text, &mut LoadBudget::default())
}

/// [`load`] one of a suite's files, spending `budget`.
pub fn load_in(file: &str, text: &str, budget: &mut LoadBudget) -> Loaded {
    let mut cx = LoadCx::new(file);
    cx.suite_regex_bytes = budget.regex_bytes;
    let loaded = load_file(&mut cx, text, budget);
    budget.regex_bytes = budget.regex_bytes.saturating_add(cx.regex_bytes);
    loaded
}

/// [`load`] a suite that runs on a client its runner is given (the npm
/// package's `runSuite`): a test without a `server` is not an error, and a
/// server's `client_capabilities` still say what the client answers.
pub fn load_for_client(file: &str, text: &str) -> Loaded {
    let mut cx = LoadCx::new(file);
    cx.client_given = true;
    load_file(&mut cx, text, &mut LoadBudget::default())
}

fn load_file(cx: &mut LoadCx, text: &str, budget: &mut LoadBudget) -> Loaded {
    let file = cx.file.clone();
    let file = file.as_str();
    let mut suite = SuiteFile {
        file: file.to_string(),
        name: None,
        composed: false,
        env: Vec::new(),
        hooks: Hooks::default(),
        share_server: false,
        isolate: false,
        tests: Vec::new(),
    };
    let root = match yaml::parse_within(
        file,
        text,
        yaml::MAX_SUITE_NODES.saturating_sub(budget.nodes),
    ) {
        Ok((n, nodes)) => {
            budget.nodes = budget.nodes.saturating_add(nodes);
            n
        }
        Err(diags) => {
            return Loaded {
                suite,
                diagnostics: diags,
            };
        }
    };
    if root.is_null() {
        cx.error_hint(
            root.span,
            "this file is empty",
            "a test file needs at least `name`, `server` and a block such as `assert:`",
        );
    } else if root.as_map().is_none() {
        cx.error(
            root.span,
            format!(
                "a test file must be a mapping of keys, not {}",
                root.type_name()
            ),
        );
    } else if root.get("tests").is_some() || root.get("tools").is_some_and(|t| t.as_seq().is_some())
    {
        suite.composed = true;
        load_composed(cx, &root, &mut suite);
    } else {
        let default_name = file_stem(file);
        if let Some(t) = load_test(cx, &root, &default_name, None, &[], false) {
            suite.tests.push(t);
        }
        if let Some(s) = root.get("share_server").filter(|n| !n.is_null()) {
            let share = cx.bool(s, "share_server");
            suite.share_server = share.unwrap_or(false);
            suite.isolate = share == Some(false);
        }
    }
    let mut diagnostics = std::mem::take(&mut cx.diags);
    crate::sort::by_key(&mut diagnostics, |d| (d.span.line, d.span.col));
    Loaded { suite, diagnostics }
}

/// The file name without directories and extension (mcp-assert's default
/// test name).
pub fn file_stem(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => base.to_string(),
    }
}

struct Defaults<'n> {
    node: Option<&'n Node>,
    server: Option<Server>,
    servers: Vec<(String, Server)>,
}

fn load_composed(cx: &mut LoadCx, root: &Node, suite: &mut SuiteFile) {
    let entries = cx.entries(root, "suite", SUITE_KEYS);
    let get = |k: &str| crate::read::entry(&entries, k);
    if get("tests").is_some()
        && get("tools").is_some()
        && let Some(t) = entries.iter().find(|(k, _, _)| *k == "tools")
    {
        cx.error_hint(
            t.1.span,
            "a suite lists its tests under `tests:` or `tools:`, not both",
            "merge them into `tests:`",
        );
    }
    suite.name = get("name").and_then(|n| cx.string(n, "name"));
    if let Some(e) = get("env") {
        suite.env = cx.string_map(e, "env").unwrap_or_default();
    }
    if let Some(s) = get("share_server") {
        let share = cx.bool(s, "share_server");
        suite.share_server = share.unwrap_or(false);
        suite.isolate = share == Some(false);
    }
    if let Some(h) = get("hooks") {
        suite.hooks = load_hooks(cx, h);
    }
    let mut servers = Vec::new();
    if let Some(sv) = get("servers")
        && let Some(m) = cx.map(sv, "servers")
    {
        for (k, v) in m {
            let Some(label) = k.key_str() else { continue };
            if let Some(mut s) = load_server(cx, v) {
                s.label = Some(label.to_string());
                servers.push((label.to_string(), s));
            }
        }
    }
    let default_server = get("server").and_then(|s| resolve_server(cx, s, &servers));
    let mut defaults = Defaults {
        node: None,
        server: default_server,
        servers,
    };
    if let Some(d) = get("defaultTest") {
        // Validate its keys once here; values are read per test.
        let _ = cx.entries(d, "defaultTest", DEFAULT_TEST_KEYS);
        if let Some(s) = d.get("server")
            && let Some(server) = resolve_server(cx, s, &defaults.servers)
        {
            defaults.server = Some(server);
        }
        defaults.node = Some(d);
    }
    let Some(list_node) = get("tests").or_else(|| get("tools")) else {
        return;
    };
    let Some(list) = cx.seq(list_node, "tests") else {
        return;
    };
    if list.is_empty() {
        cx.warning(list_node.span, "this suite has no tests", None);
    }
    let context_hooks = suite.hooks.any_context();
    for (i, t) in list.iter().enumerate() {
        let default_name = format!("{} #{}", file_stem(&cx.file.clone()), i + 1);
        if let Some(test) = load_test(
            cx,
            t,
            &default_name,
            Some(&defaults),
            &suite.env,
            context_hooks,
        ) {
            suite.tests.push(test);
        }
    }
    // A set, not a list: a suite of 40,000 tests took seconds to check.
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut dupes = Vec::new();
    for t in &suite.tests {
        if !seen.insert(t.name.as_str()) {
            dupes.push((t.name.clone(), t.span));
        }
    }
    for (name, span) in dupes {
        cx.error_hint(
            span,
            format!("two tests in this file are named `{name}`"),
            "test names identify tests in reports and baselines; make them unique",
        );
    }
}

fn resolve_server(cx: &mut LoadCx, node: &Node, servers: &[(String, Server)]) -> Option<Server> {
    if let Some(name) = node.as_str() {
        match servers.iter().find(|(n, _)| n == name) {
            Some((_, s)) => Some(s.clone()),
            None => {
                let hint = crate::diag::did_you_mean(name, servers.iter().map(|(n, _)| n.as_str()))
                    .unwrap_or_else(|| "define it under `servers:` at the top of the file".into());
                cx.error_hint(node.span, format!("no server named `{name}`"), hint);
                None
            }
        }
    } else {
        load_server(cx, node)
    }
}

fn load_server(cx: &mut LoadCx, node: &Node) -> Option<Server> {
    let entries = cx.struct_entries(node, "server", SERVER_KEYS);
    node.as_map()?;
    let mut s = Server {
        label: None,
        transport: Transport::Stdio,
        command: None,
        args: Vec::new(),
        env: Vec::new(),
        url: None,
        headers: Vec::new(),
        docker: None,
        client: ClientCaps::default(),
        protocol_version: None,
        auth: None,
        redact: Redact::default(),
        span: node.span,
    };
    for (k, _, v) in &entries {
        match *k {
            "command" => s.command = cx.name(v, "command"),
            "args" => {
                s.args = if v.is_null() {
                    Vec::new()
                } else {
                    cx.strings(v, "args")
                        .map(|a| a.into_iter().map(|(x, _)| x).collect())
                        .unwrap_or_default()
                }
            }
            "env" => s.env = cx.string_map(v, "env").unwrap_or_default(),
            "transport" => {
                if let Some(t) = cx.string(v, "transport") {
                    // mcp-assert lower-cases the transport before reading it.
                    let lower = t.to_ascii_lowercase();
                    if lower != t && matches!(lower.as_str(), "stdio" | "sse" | "http") {
                        cx.warning(
                            v.span,
                            format!("transport `{t}` is read as `{lower}`"),
                            Some(format!("write `{lower}`")),
                        );
                    }
                    match lower.as_str() {
                        "stdio" | "" => s.transport = Transport::Stdio,
                        "sse" => s.transport = Transport::Sse,
                        "http" | "streamable-http" | "streamable_http" | "streamablehttp" => {
                            s.transport = Transport::Http
                        }
                        _ => cx.error_hint(
                            v.span,
                            format!("unknown transport `{t}`"),
                            "use `stdio` (default), `sse` (legacy HTTP+SSE) or `http` (Streamable HTTP)",
                        ),
                    }
                }
            }
            "url" => s.url = cx.name(v, "url"),
            "headers" => s.headers = cx.string_map(v, "headers").unwrap_or_default(),
            "docker" => s.docker = cx.name(v, "docker"),
            "client_capabilities" => s.client = load_client_caps(cx, v),
            "protocol_version" => {
                if let Some(version) = cx.name(v, "protocol_version") {
                    match check_protocol_version(&version) {
                        Ok(()) => s.protocol_version = Some(version),
                        Err(message) => cx.error_hint(
                            v.span,
                            message.to_string(),
                            "write one of them, e.g. `protocol_version: 2026-07-28`",
                        ),
                    }
                }
            }
            "auth" => s.auth = load_auth(cx, v),
            "redact" => s.redact = load_redact(cx, v),
            _ => {}
        }
    }
    if s.auth.is_some()
        && let Some((name, _)) = s
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
    {
        cx.error_hint(
            node.span,
            format!(
                "`auth` sends the `Authorization` header itself, and `headers` sets `{name}` too"
            ),
            "remove one of them",
        );
    }
    if s.auth.is_some() && s.transport == Transport::Stdio {
        cx.error_hint(
            node.span,
            "`auth` works with the HTTP transports only",
            "set `transport: http` (or `sse`) and a `url`, or remove `auth`",
        );
    }
    match s.transport {
        Transport::Sse | Transport::Http if s.url.is_none() => {
            cx.error_hint(
                node.span,
                format!("a `{}` server needs a `url`", s.transport.as_str()),
                "e.g. `url: http://127.0.0.1:8080/mcp`",
            );
        }
        Transport::Stdio if s.url.is_some() => {
            cx.warning(
                node.span,
                "`url` is set but the transport is stdio, so it is not used",
                Some("set `transport: http` (Streamable HTTP) or `transport: sse`".into()),
            );
        }
        _ => {}
    }
    if s.docker.is_some() && s.transport != Transport::Stdio {
        cx.error(node.span, "`docker` works with the stdio transport only");
    }
    Some(s)
}

/// The `redact` block: `secret` and `keep`, each a list of names; a name
/// in both is an error.
fn load_redact(cx: &mut LoadCx, node: &Node) -> Redact {
    let mut r = Redact::default();
    for (k, _, v) in cx.struct_entries(node, "redact", &["secret", "keep"]) {
        let names: Vec<String> = cx
            .strings(v, k)
            .map(|l| l.into_iter().map(|(x, _)| x).collect())
            .unwrap_or_default();
        if k == "secret" {
            r.secret = names;
        } else {
            r.keep = names;
        }
    }
    if let Some(both) = r
        .secret
        .iter()
        .find(|n| r.keep.iter().any(|k| k.eq_ignore_ascii_case(n)))
    {
        cx.error_hint(
            node.span,
            format!("`{both}` is in both `redact.secret` and `redact.keep`"),
            "keep it in one of them",
        );
    }
    r
}

/// The `auth` block: a `type` and the keys that grant needs.
fn load_auth(cx: &mut LoadCx, node: &Node) -> Option<Auth> {
    let entries = cx.struct_entries(node, "auth", AUTH_KEYS);
    node.as_map()?;
    let mut grant = None;
    let mut auth = Auth {
        grant: Grant::ClientCredentials,
        client_id: None,
        client_secret: None,
        scope: None,
        resource: None,
        token_url: None,
        refresh_token: None,
    };
    for (k, _, v) in &entries {
        let value = cx.name(v, k);
        match *k {
            "type" => {
                grant = value.as_deref().map(|t| {
                    let g = Grant::parse(t);
                    if g.is_none() {
                        let hint = crate::diag::did_you_mean(t, Grant::NAMES.iter().copied())
                            .unwrap_or_else(|| format!("use one of {}", Grant::NAMES.join(", ")));
                        cx.error_hint(v.span, format!("unknown auth type `{t}`"), hint);
                    }
                    (g, v.span)
                })
            }
            "client_id" => auth.client_id = value,
            "client_secret" => auth.client_secret = value,
            "scope" => auth.scope = value,
            "resource" => auth.resource = value,
            "token_url" => auth.token_url = value,
            _ => auth.refresh_token = value,
        }
    }
    let Some((Some(g), span)) = grant else {
        if grant.is_none() {
            cx.error_hint(
                node.span,
                "`auth` needs a `type`",
                format!("write `type:` and one of {}", Grant::NAMES.join(", ")),
            );
        }
        return None;
    };
    auth.grant = g;
    if let Err((message, hint)) = auth.check() {
        cx.error_hint(span, message, hint);
    }
    Some(auth)
}

fn load_client_caps(cx: &mut LoadCx, node: &Node) -> ClientCaps {
    let mut caps = ClientCaps::default();
    for (k, _, v) in cx.struct_entries(
        node,
        "client_capabilities",
        &["roots", "sampling", "elicitation", "extensions"],
    ) {
        match k {
            "roots" => {
                caps.roots = cx
                    .strings(v, "roots")
                    .map(|r| r.into_iter().map(|(s, _)| s).collect())
            }
            "sampling" => {
                let mut m = SamplingMock {
                    text: String::new(),
                    model: "mock".into(),
                    stop_reason: "end_turn".into(),
                };
                for (sk, _, sv) in
                    cx.struct_entries(v, "sampling", &["text", "model", "stop_reason"])
                {
                    let Some(s) = cx.string(sv, sk) else { continue };
                    match sk {
                        "text" => m.text = s,
                        "model" => m.model = s,
                        _ => m.stop_reason = s,
                    }
                }
                caps.sampling = Some(m);
            }
            "elicitation" => {
                if v.scalar_text() == Some("defaults") {
                    caps.elicitation = Some(ElicitationMock {
                        action: "accept".into(),
                        content: Value::Object(Default::default()),
                        defaults: true,
                    });
                    continue;
                }
                if v.scalar_text().is_some() {
                    cx.error_hint(
                        v.span,
                        "`elicitation` must be a mapping or `defaults`",
                        "e.g. `elicitation: {action: accept, content: {answer: \"42\"}}`, or `elicitation: defaults` to accept with the schema's defaults",
                    );
                    continue;
                }
                if cx.map(v, "elicitation").is_none() {
                    continue;
                }
                let json = v.to_json();
                let action = match json.get("action") {
                    None => "accept".to_string(),
                    Some(Value::String(a))
                        if ["accept", "decline", "cancel"].contains(&a.as_str()) =>
                    {
                        a.clone()
                    }
                    Some(other) => {
                        cx.error_hint(
                            v.get("action").map_or(v.span, |n| n.span),
                            format!("unknown elicitation action {other}"),
                            "use `accept`, `decline` or `cancel`",
                        );
                        "accept".into()
                    }
                };
                // mcp-assert's rule: `content` when given, else the whole map.
                let content = match json.get("content") {
                    Some(c) => c.clone(),
                    None => {
                        let mut m = json.as_object().cloned().unwrap_or_default();
                        m.remove("action");
                        Value::Object(m)
                    }
                };
                caps.elicitation = Some(ElicitationMock {
                    action,
                    content,
                    defaults: false,
                });
            }
            "extensions" => caps.extensions = load_extensions(cx, v),
            _ => {}
        }
    }
    caps
}

/// `client_capabilities.extensions`: extension identifiers (`vendor/name`)
/// to settings mappings (`{}` for none).
fn load_extensions(cx: &mut LoadCx, node: &Node) -> Option<serde_json::Map<String, Value>> {
    let entries = cx.map(node, "extensions")?;
    let mut declared = serde_json::Map::new();
    for (k, v) in entries {
        let Some(id) = k.scalar_text() else { continue };
        if !id.contains('/') {
            cx.error_hint(
                k.span,
                format!("`{id}` is not an extension identifier"),
                "an identifier is a prefix and a name: `io.modelcontextprotocol/tasks`, `io.modelcontextprotocol/ui`",
            );
            continue;
        }
        if v.as_map().is_none() {
            cx.error_hint(
                v.span,
                format!("the settings of `{id}` must be a mapping"),
                "write `{}` for an extension without settings",
            );
            continue;
        }
        declared.insert(id.to_string(), v.to_json());
    }
    Some(declared)
}

fn load_hooks(cx: &mut LoadCx, node: &Node) -> Hooks {
    let mut hooks = Hooks::default();
    for (k, _, v) in cx.entries(
        node,
        "hooks",
        &["beforeAll", "beforeEach", "afterEach", "afterAll"],
    ) {
        let steps = load_hook_steps(cx, v, k);
        match k {
            "beforeAll" => hooks.before_all = steps,
            "beforeEach" => hooks.before_each = steps,
            "afterEach" => hooks.after_each = steps,
            _ => hooks.after_all = steps,
        }
    }
    hooks
}

fn load_hook_steps(cx: &mut LoadCx, node: &Node, phase: &str) -> Vec<HookStep> {
    let items: Vec<&Node> = match node.as_seq() {
        Some(s) => s.iter().collect(),
        None => vec![node],
    };
    let mut out = Vec::new();
    for item in items {
        let (command, context, timeout_ms, span) = if item.as_map().is_some() {
            let entries = cx.entries(item, phase, &["command", "mode", "timeout"]);
            let get = |k: &str| crate::read::entry(&entries, k);
            let command = get("command").and_then(|c| cx.name(c, "command"));
            let mode = get("mode").and_then(|m| cx.string(m, "mode"));
            let timeout = get("timeout").and_then(|t| cx.duration(t, "timeout"));
            match mode.as_deref() {
                Some("context") => {}
                Some(other) => {
                    cx.error_hint(
                        item.span,
                        format!("unknown hook mode `{other}`"),
                        "the only mode is `context`; a plain command is a string",
                    );
                    continue;
                }
                None => {
                    cx.error_hint(
                        item.span,
                        "a hook written as a mapping needs `mode: context`",
                        "write a plain command as a string, or add `mode: context` for the JSON stdin/stdout contract",
                    );
                    continue;
                }
            }
            let Some(command) = command else {
                cx.error(item.span, "a context hook needs `command`");
                continue;
            };
            (command, true, timeout, item.span)
        } else {
            let Some(c) = cx.name(item, phase) else {
                continue;
            };
            (c, false, None, item.span)
        };
        match shlex::split(&command) {
            Some(argv) if !argv.is_empty() => out.push(HookStep {
                command,
                argv,
                context,
                timeout_ms,
                span,
            }),
            Some(_) => cx.error(span, "the hook command is empty"),
            None => cx.error_hint(
                span,
                format!("cannot split hook command {command:?}: unbalanced quotes"),
                "hooks are split like a POSIX shell would (no pipes or `&&`); close every quote",
            ),
        }
    }
    out
}

fn test_keys(composed: bool) -> Vec<&'static str> {
    let mut k = TEST_KEYS.to_vec();
    if composed {
        k.extend_from_slice(COMPOSED_TEST_EXTRA);
    } else {
        // A test file may share its server with the other test files of its
        // directory that say so (a composed file says it once, at the top).
        k.push("share_server");
    }
    k
}

fn args_value(cx: &mut LoadCx, v: Option<&Node>) -> Value {
    match v {
        None => Value::Object(Map::new()),
        Some(n) if n.is_null() => Value::Object(Map::new()),
        Some(n) => {
            if n.as_map().is_none() {
                cx.error(
                    n.span,
                    format!(
                        "`args` must be a mapping of argument names to values, not {}",
                        n.type_name()
                    ),
                );
                return Value::Object(Map::new());
            }
            n.to_json()
        }
    }
}

struct BlockOut {
    action: Action,
    expect_node: Option<Node>,
    block: Block,
    /// Checks the block's own keys ask for (`expect_notification: true`),
    /// added after its `expect`.
    implied: Vec<Check>,
}

/// A test's keys as read, looked up by name.
struct TestKeys<'n> {
    entries: crate::read::Entries<'n>,
}

impl<'n> TestKeys<'n> {
    fn get(&self, k: &str) -> Option<&'n Node> {
        crate::read::entry(&self.entries, k)
    }

    fn span(&self, k: &str) -> Option<Span> {
        self.entries
            .iter()
            .find(|(key, _, _)| *key == k)
            .map(|(_, kn, _)| kn.span)
    }
}

/// The block a test runs, and the names of the blocks it wrote.
struct Picked {
    present: Vec<&'static str>,
    block: Option<BlockOut>,
}

impl Picked {
    fn is_trajectory(&self) -> bool {
        matches!(
            self.block.as_ref().map(|b| &b.action),
            Some(Action::Trajectory(_))
        )
    }
}

/// Time limits and skip conditions, the test's own or its defaults'.
struct Timing {
    timeout_ms: Option<u64>,
    settle_ms: Option<u64>,
    skip_unless_env: Vec<String>,
}

fn load_test(
    cx: &mut LoadCx,
    node: &Node,
    default_name: &str,
    defaults: Option<&Defaults<'_>>,
    suite_env: &[(String, String)],
    context_hooks: bool,
) -> Option<Test> {
    let composed = defaults.is_some();
    let keys = test_entries(cx, node, composed);
    node.as_map()?;
    let name = keys
        .get("name")
        .and_then(|n| cx.name(n, "name"))
        .unwrap_or_else(|| default_name.to_string());
    let description = keys
        .get("description")
        .and_then(|d| cx.string(d, "description"));
    let picked = pick_block(cx, node, &keys, composed, &name);
    let (mut expect, implicit_rpc) = own_expectations(cx, node, &keys, &picked, composed);
    let timing = apply_defaults(
        cx,
        &keys,
        defaults.and_then(|d| d.node),
        &picked,
        &mut expect,
        implicit_rpc,
    );
    let server = test_server(cx, node, &keys, defaults, suite_env, &picked, &name);
    let skip = read_skip(cx, &keys);
    let tags = keys
        .get("tags")
        .and_then(|t| cx.strings(t, "tags"))
        .map(|v| v.into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();
    let snapshot = keys.get("snapshot").and_then(|v| {
        let key = keys.span("snapshot").unwrap_or(v.span);
        let is_tool = matches!(
            picked.block.as_ref().map(|b| &b.action),
            Some(Action::Tool { .. })
        );
        crate::snapshot::read_inline(cx, key, v, is_tool)
    });
    if let Some(s) = &snapshot {
        expect.items.extend(crate::snapshot::inline_checks(s));
    }

    // Setup calls and template variables.
    let setup = keys
        .get("setup")
        .map(|s| load_setup(cx, s))
        .unwrap_or_default();
    if let Some(b) = picked.block.as_ref() {
        check_vars(
            cx,
            node,
            &setup,
            &b.action,
            server.as_ref(),
            &expect,
            context_hooks,
        );
    }
    let is_trajectory = picked.is_trajectory();
    let block = picked.block?;
    // Not run (see `test_server`), so not reported as used either.
    let setup = if is_trajectory { Vec::new() } else { setup };
    Some(Test {
        name,
        file: cx.file.clone(),
        line: node.span.line.max(1),
        span: node.span,
        description,
        server,
        setup,
        action: block.action,
        expect,
        timeout_ms: timing.timeout_ms,
        settle_ms: timing.settle_ms,
        skip,
        skip_unless_env: timing.skip_unless_env,
        tags,
        snapshot,
    })
}

/// Read a test's keys: a composed test's, or a test file's (where a
/// composed-only key gets a hint about where it goes).
fn test_entries<'n>(cx: &mut LoadCx, node: &'n Node, composed: bool) -> TestKeys<'n> {
    let keys = test_keys(composed);
    // A test file is mcp-assert's struct, where `null` means unset; a
    // composed test is this tool's own form, where `expect:` left empty is
    // deliberate and needs no warning.
    let entries = if composed {
        cx.entries(node, "test", &keys)
    } else {
        // An empty `snapshot:` asks `--update-snapshots` to fill it in.
        cx.struct_entries_placed(node, "test file", &keys, &["snapshot"], |key| {
            COMPOSED_TEST_EXTRA.contains(&key).then(|| {
                format!(
                    "in a test file, `{key}` goes under `assert:`, as in \
                     `assert: {{tool: echo, args: {{text: hi}}, expect: {{not_error: true}}}}` \
                     (a top-level `{key}` is the `tests:` list form)"
                )
            })
        })
    };
    TestKeys { entries }
}

/// Exactly one block: load it, and say where block keys stand outside one.
fn pick_block(
    cx: &mut LoadCx,
    node: &Node,
    keys: &TestKeys<'_>,
    composed: bool,
    name: &str,
) -> Picked {
    let mut present: Vec<&'static str> = BLOCKS
        .iter()
        .copied()
        .filter(|b| keys.get(b).is_some())
        .collect();
    if composed && keys.get("tool").is_some() {
        present.push("tool");
    }
    if !composed && present.len() > 1 {
        // A test file with two blocks runs in mcp-assert: the first of its
        // dispatch order wins and the others are ignored. Run the same one,
        // and say which were not run.
        crate::sort::by_key(&mut present, |b| {
            MCP_ASSERT_DISPATCH.iter().position(|d| d == b)
        });
        for other in &present[1..] {
            cx.warning(
                keys.span(other).unwrap_or(node.span),
                format!(
                    "`{other}` is not run: a test file with two blocks runs `{}`, as mcp-assert does",
                    present[0]
                ),
                Some(format!(
                    "a test does one thing: move `{other}` to a file of its own"
                )),
            );
        }
    } else if present.len() > 1 {
        let second = present[1];
        let span = keys.span(second).unwrap_or(node.span);
        cx.error_hint(
            span,
            format!("this test has two blocks, `{}` and `{second}`", present[0]),
            "a test does one thing: keep one block and move the other to its own test",
        );
    }
    let block = match present.first().copied() {
        None => {
            let hint = if composed {
                "add `tool:` (with `args:` and `expect:`), or a block such as `assert:`, `assert_prompts:` or `trajectory:`"
            } else {
                "add a block such as `assert:` (call a tool), `assert_prompts:`, `assert_resources:` or `trajectory:`"
            };
            cx.error_hint(
                node.span,
                format!("test `{name}` has no block: nothing to run"),
                hint,
            );
            None
        }
        Some("tool") => {
            let tool = keys.get("tool").and_then(|t| cx.name(t, "tool"));
            let args = args_value(cx, keys.get("args"));
            tool.map(|tool| BlockOut {
                action: Action::Tool { tool, args },
                expect_node: None,
                block: Block::Tool,
                implied: Vec::new(),
            })
        }
        Some("trajectory") => load_trajectory_block(
            cx,
            keys.get("trace"),
            keys.get("audit_log"),
            keys.span("audit_log"),
            keys.span("trajectory").unwrap_or(node.span),
        ),
        Some(b) => keys.get(b).and_then(|v| load_block(cx, b, v)),
    };
    if let (true, Some(span), None) = (composed, keys.span("args"), keys.get("tool")) {
        cx.error_hint(
            span,
            "`args` goes with `tool:`",
            "put `args` inside the block, next to its `tool`",
        );
    }
    if present.first() != Some(&"trajectory") {
        for k in ["trace", "audit_log"] {
            if let Some(span) = keys.span(k) {
                cx.error_hint(
                    span,
                    format!("`{k}` goes with `trajectory:`"),
                    "add `trajectory:` assertions, or remove it",
                );
            }
        }
    }
    Picked { present, block }
}

/// The test's own expectations: the block's, or the test-level `expect`
/// (composed); and whether they hold the implicit `no_rpc_error`.
fn own_expectations(
    cx: &mut LoadCx,
    node: &Node,
    keys: &TestKeys<'_>,
    picked: &Picked,
    composed: bool,
) -> (Expectations, bool) {
    let test_expect = if composed { keys.get("expect") } else { None };
    let mut expect = Expectations::default();
    let mut implicit_rpc = false;
    if let Some(b) = &picked.block {
        let own = match (&b.expect_node, test_expect) {
            (Some(_), Some(te)) => {
                cx.error_hint(
                    te.span,
                    "`expect` is given twice: in the block and on the test",
                    "keep one of them",
                );
                b.expect_node.clone()
            }
            (Some(n), None) => Some(n.clone()),
            (None, Some(te)) => Some(te.clone()),
            (None, None) => None,
        };
        match own {
            // Trajectory checks are compiled with the block.
            _ if matches!(b.action, Action::Trajectory(_)) => {}
            Some(n) if !n.is_null() => {
                expect.items = expect::compile(cx, &n, b.block, true);
                implicit_rpc = n.as_map().is_some();
            }
            // No expectations of its own: the test still fails on a JSON-RPC
            // error answer, as a map-form `expect` would (mcp-assert fails
            // such a test whatever it expects).
            _ => {
                let span = picked
                    .present
                    .first()
                    .and_then(|k| keys.span(k))
                    .unwrap_or(node.span);
                expect.items = vec![Item::Check(expect::no_rpc_error(span))];
                implicit_rpc = true;
            }
        }
    } else if let Some(te) = test_expect {
        let _ = expect::compile(cx, te, Block::Tool, false);
    }
    if picked.is_trajectory()
        && let Some(t) = keys.get("trajectory")
    {
        expect.items = crate::expect::compile_trajectory(cx, t);
    }
    if let Some(b) = &picked.block {
        expect
            .items
            .extend(b.implied.iter().cloned().map(Item::Check));
    }
    (expect, implicit_rpc)
}

/// Threshold, derived metrics, time limits and `skip_unless_env`: the
/// test's own, merged with `defaultTest`.
fn apply_defaults(
    cx: &mut LoadCx,
    keys: &TestKeys<'_>,
    default_node: Option<&Node>,
    picked: &Picked,
    expect: &mut Expectations,
    implicit_rpc: bool,
) -> Timing {
    let block_kind = picked.block.as_ref().map_or(Block::Tool, |b| b.block);
    let own_threshold = keys
        .get("threshold")
        .and_then(|t| cx.fraction(t, "threshold"));
    let mut derived_nodes: Vec<&Node> = keys.get("derivedMetrics").into_iter().collect();
    let mut default_threshold = None;
    let duration = |cx: &mut LoadCx, n: Option<&Node>, k: &str| n.and_then(|t| cx.duration(t, k));
    let mut timing = Timing {
        timeout_ms: duration(cx, keys.get("timeout"), "timeout"),
        settle_ms: duration(cx, keys.get("settle"), "settle"),
        skip_unless_env: keys
            .get("skip_unless_env")
            .and_then(|s| cx.strings(s, "skip_unless_env"))
            .map(|v| v.into_iter().map(|(s, _)| s).collect())
            .unwrap_or_default(),
    };
    if let Some(d) = default_node {
        if let Some(e) = d.get("expect")
            && !picked.is_trajectory()
        {
            // A map-form default adds the implicit rule unless the
            // test's own items already hold it.
            let items = expect::compile(cx, e, block_kind, !implicit_rpc);
            expect.items.extend(items);
        }
        if let Some(t) = d.get("threshold") {
            default_threshold = cx.fraction(t, "threshold");
        }
        if let Some(dm) = d.get("derivedMetrics") {
            derived_nodes.push(dm);
        }
        if timing.timeout_ms.is_none() {
            timing.timeout_ms = duration(cx, d.get("timeout"), "timeout");
        }
        if timing.settle_ms.is_none() {
            timing.settle_ms = duration(cx, d.get("settle"), "settle");
        }
        if timing.skip_unless_env.is_empty()
            && let Some(s) = d
                .get("skip_unless_env")
                .and_then(|s| cx.strings(s, "skip_unless_env"))
        {
            timing.skip_unless_env = s.into_iter().map(|(s, _)| s).collect();
        }
    }
    expect.threshold = own_threshold.or(default_threshold);
    let mut derived: Vec<DerivedMetric> = Vec::new();
    for dn in derived_nodes {
        let mut more = expect::compile_derived(cx, dn, &expect.items);
        // A default metric with the same name as the test's own is overridden.
        more.retain(|m| !derived.iter().any(|d| d.name == m.name));
        derived.extend(more);
    }
    expect.derived = derived;
    timing
}

/// The test's server: its own, or the file's; none for a trajectory.
fn test_server(
    cx: &mut LoadCx,
    node: &Node,
    keys: &TestKeys<'_>,
    defaults: Option<&Defaults<'_>>,
    suite_env: &[(String, String)],
    picked: &Picked,
    name: &str,
) -> Option<Server> {
    let mut server = match keys.get("server") {
        Some(s) => match defaults {
            Some(d) => resolve_server(cx, s, &d.servers),
            None => load_server(cx, s),
        },
        None => defaults.and_then(|d| d.server.clone()),
    };
    if let Some(s) = server.as_mut() {
        for (k, v) in suite_env {
            if !s.env.iter().any(|(sk, _)| sk == k) {
                s.env.push((k.clone(), v.clone()));
            }
        }
    }
    let is_trajectory = picked.is_trajectory();
    if server.is_none()
        && !is_trajectory
        && !cx.client_given
        && picked.block.is_some()
        && keys.get("server").is_none()
    {
        cx.error_hint(
            node.span,
            format!("test `{name}` has no `server`"),
            "add `server: {command: …, args: […]}` (or `transport: http` with `url:`)",
        );
    }
    if !is_trajectory {
        return server;
    }
    // mcp-assert routes a trajectory before it starts anything, so a
    // published suite may carry these; they load, with a word that they
    // do nothing.
    if let Some(span) = keys.span("server") {
        cx.warning(
            span,
            "a trajectory test starts no server: `server` is not used",
            Some("remove it; a trajectory checks the calls in `trace` or `audit_log`".into()),
        );
    }
    if let Some(span) = keys.span("setup") {
        cx.warning(
            span,
            "a trajectory test starts no server: `setup` is not run",
            Some(
                "remove it, or move the calls to a test with a block that calls the server".into(),
            ),
        );
    }
    None
}

/// `skip`: `true`, or a reason (a string that is not a YAML 1.1 boolean).
fn read_skip(cx: &mut LoadCx, keys: &TestKeys<'_>) -> Option<String> {
    let s = keys.get("skip")?;
    match s.as_str() {
        Some(reason)
            if !reason.is_empty()
                && !matches!(
                    reason.to_ascii_lowercase().as_str(),
                    "yes" | "no" | "on" | "off" | "y" | "n"
                ) =>
        {
            Some(reason.to_string())
        }
        _ => match cx.bool(s, "skip") {
            Some(true) => Some("skip: true".to_string()),
            _ => None,
        },
    }
}

fn load_trajectory_block(
    cx: &mut LoadCx,
    trace: Option<&Node>,
    audit_log: Option<&Node>,
    audit_span: Option<Span>,
    block_span: Span,
) -> Option<BlockOut> {
    let source = match (trace, audit_log) {
        (Some(_), Some(_)) => {
            cx.error_hint(
                audit_span.unwrap_or(block_span),
                "a trajectory reads `trace` or `audit_log`, not both",
                "keep one of them",
            );
            None
        }
        (Some(t), None) => Some(TraceSource::Inline(trajectory::read_trace(cx, t))),
        (None, Some(a)) => cx.name(a, "audit_log").map(TraceSource::AuditLog),
        (None, None) => {
            cx.error_hint(
                block_span,
                "a trajectory needs a `trace` (inline list of calls) or an `audit_log` (JSONL file)",
                "add `trace: [{tool: a}, {tool: b}]` or `audit_log: path/to/log.jsonl`",
            );
            None
        }
    };
    source.map(|s| BlockOut {
        action: Action::Trajectory(s),
        expect_node: None,
        block: Block::Other,
        implied: Vec::new(),
    })
}

fn opt_cursor(cx: &mut LoadCx, v: &Node, what: &str) -> Option<String> {
    if v.is_null() {
        return None;
    }
    let entries = cx.struct_entries(v, what, &["cursor"]);
    entries.first().and_then(|(_, _, c)| cx.string(c, "cursor"))
}

fn load_block(cx: &mut LoadCx, name: &str, v: &Node) -> Option<BlockOut> {
    match name {
        "assert" => block_tool(cx, v),
        "assert_prompts" => block_prompts(cx, v),
        "assert_resources" => block_resources(cx, v),
        "assert_completion" => block_completion(cx, v),
        "assert_sampling" => block_sampling(cx, v),
        "assert_logging" => block_logging(cx, v),
        "assert_notifications" => block_notifications(cx, v),
        "assert_task" => block_task(cx, v),
        "assert_skills" => block_skills(cx, v),
        "assert_app" => block_app(cx, v),
        _ => None,
    }
}

/// The `assert` block.
fn block_tool(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(v, "assert", &["tool", "args", "expect", "capture_progress"]);
    let get = |k: &str| crate::read::entry(&entries, k);
    let tool = match get("tool") {
        Some(t) => cx.name(t, "tool"),
        None => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert` needs `tool`",
                    "name the tool to call: `tool: read_file`",
                );
            }
            None
        }
    };
    // `capture_progress` is accepted for mcp-assert suites; progress is
    // captured whenever `min_progress` is checked.
    if let Some(cp) = get("capture_progress") {
        let _ = cx.bool(cp, "capture_progress");
    }
    let args = args_value(cx, get("args"));
    Some(BlockOut {
        action: Action::Tool { tool: tool?, args },
        expect_node: get("expect").cloned(),
        block: Block::Tool,
        implied: Vec::new(),
    })
}

/// The `assert_prompts` block.
fn block_prompts(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(v, "assert_prompts", &["list", "get", "expect"]);
    let get = |k: &str| crate::read::entry(&entries, k);
    let op = match (get("list"), get("get")) {
        (Some(_), Some(_)) => {
            cx.error_hint(
                span,
                "`assert_prompts` takes `list` or `get`, not both",
                "split it into two tests",
            );
            None
        }
        (Some(l), None) => Some(PromptOp::List {
            cursor: opt_cursor(cx, l, "list"),
        }),
        (None, Some(g)) => {
            let ge = cx.struct_entries(g, "get", &["name", "arguments"]);
            let gget = |k: &str| crate::read::entry(&ge, k);
            let pname = gget("name").and_then(|n| cx.name(n, "name"));
            if gget("name").is_none() && g.as_map().is_some() {
                cx.error(g.span, "`get` needs the prompt's `name`");
            }
            let arguments = gget("arguments")
                .and_then(|a| cx.string_map(a, "arguments"))
                .unwrap_or_default();
            pname.map(|name| PromptOp::Get { name, arguments })
        }
        (None, None) => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_prompts` needs `list` or `get`",
                    "`list: {}` lists prompts; `get: {name: …}` gets one",
                );
            }
            None
        }
    };
    Some(BlockOut {
        action: Action::Prompts(op?),
        expect_node: get("expect").cloned(),
        block: Block::Other,
        implied: Vec::new(),
    })
}

/// The `assert_resources` block.
fn block_resources(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(
        v,
        "assert_resources",
        &[
            "list",
            "read",
            "templates",
            "subscribe",
            "unsubscribe",
            "expect_notification",
            "expect",
        ],
    );
    let get = |k: &str| crate::read::entry(&entries, k);
    let ops: Vec<&str> = ["list", "read", "templates"]
        .into_iter()
        .filter(|k| get(k).is_some())
        .collect();
    let subscribe = get("subscribe").and_then(|s| cx.name(s, "subscribe"));
    let unsubscribe = get("unsubscribe").and_then(|s| cx.name(s, "unsubscribe"));
    let expect_notification =
        get("expect_notification").and_then(|e| cx.bool(e, "expect_notification"));
    let op = match ops.as_slice() {
        [] if subscribe.is_some() => Some(ResourceOp::SubscribeOnly),
        [] => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_resources` needs `list`, `read`, `templates` or `subscribe`",
                    "e.g. `read: test://static/resource/1`",
                );
            }
            None
        }
        [one] => match *one {
            "list" => get("list").map(|l| ResourceOp::List {
                cursor: opt_cursor(cx, l, "list"),
            }),
            "templates" => get("templates").map(|l| ResourceOp::Templates {
                cursor: opt_cursor(cx, l, "templates"),
            }),
            _ => get("read")
                .and_then(|r| cx.name(r, "read"))
                .map(|uri| ResourceOp::Read { uri }),
        },
        many => {
            cx.error_hint(
                span,
                format!(
                    "`assert_resources` takes one of `list`, `read`, `templates`; this one has {}",
                    many.join(" and ")
                ),
                "split it into separate tests",
            );
            None
        }
    };
    match (expect_notification, &subscribe) {
        (Some(true), None) => cx.error_hint(
            span,
            "`expect_notification` needs `subscribe`",
            "subscribe to the resource whose update you expect",
        ),
        // `false` asks for nothing, as mcp-assert reads it: a suite
        // that spells it out still loads.
        (Some(false), None) => cx.warning(
            span,
            "`expect_notification: false` does nothing without `subscribe`",
            Some("remove it, or subscribe to the resource".into()),
        ),
        _ => {}
    }
    // `true` asks for an update of the subscribed resource: a check
    // of its own, failing when none arrives. `false` is what
    // mcp-assert reads for an absent key: it adds nothing (check
    // `not_methods` to require that no update arrives).
    let mut implied = Vec::new();
    if let (Some(true), Some(uri), Some(e)) =
        (expect_notification, &subscribe, get("expect_notification"))
    {
        implied.push(Check {
            name: "expect_notification".into(),
            named: false,
            key: "expect_notification",
            wording: crate::check::Wording::Plain,
            target: Target::Doc(Path::fixed("notifications")),
            matcher: Matcher::ResourceUpdated {
                uri: Some(uri.clone()),
                expected: true,
            },
            weight: 1.0,
            span: e.span,
        });
    }
    Some(BlockOut {
        action: Action::Resources {
            op: op?,
            subscribe,
            unsubscribe,
            expect_notification,
        },
        expect_node: get("expect").cloned(),
        block: Block::Other,
        implied,
    })
}

/// The `assert_completion` block.
fn block_completion(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(
        v,
        "assert_completion",
        &["ref", "argument", "context", "expect"],
    );
    let get = |k: &str| crate::read::entry(&entries, k);
    let mut ref_type = None;
    let mut ref_name = None;
    match get("ref") {
        Some(r) => {
            let entries = cx.struct_entries(r, "ref", &["type", "name", "uri"]);
            let mut named: Option<(&str, &Node)> = None;
            for (k, key, x) in &entries {
                match *k {
                    "type" => {
                        ref_type = cx.string(x, "type");
                        if let Some(t) = &ref_type
                            && t != "ref/prompt"
                            && t != "ref/resource"
                        {
                            cx.error_hint(
                                x.span,
                                format!("unknown completion ref type `{t}`"),
                                "use `ref/prompt` or `ref/resource`",
                            );
                        }
                    }
                    _ => match named {
                        // `name` and `uri` are two spellings of one
                        // value; keeping either would hide a typo.
                        Some((first, _)) => cx.error_hint(
                            key.span,
                            format!("`ref` has both `{first}` and `{k}`"),
                            "give one: `name` for a prompt, `uri` for a resource template",
                        ),
                        None => {
                            named = Some((k, x));
                            ref_name = cx.string(x, k);
                        }
                    },
                }
            }
            if r.as_map().is_some() {
                if !entries.iter().any(|(k, _, _)| *k == "type") {
                    cx.error_hint(
                        r.span,
                        "`ref` needs `type`",
                        "`type: ref/prompt` (with `name`) or `type: ref/resource` (with `uri`)",
                    );
                }
                if named.is_none() {
                    cx.error_hint(
                        r.span,
                        "`ref` needs `name` or `uri`",
                        "the prompt's `name` for `ref/prompt`, the template's `uri` for `ref/resource`",
                    );
                }
            }
        }
        None => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_completion` needs `ref`",
                    "e.g. `ref: {type: ref/prompt, name: my_prompt}`",
                );
            }
        }
    }
    let mut arg = (None, String::new());
    match get("argument") {
        Some(a) => {
            let entries = cx.struct_entries(a, "argument", &["name", "value"]);
            for (k, _, x) in &entries {
                if *k == "name" {
                    arg.0 = cx.name(x, "name");
                } else if let Some(text) = x.scalar_text() {
                    arg.1 = text.to_string();
                } else if !x.is_null() {
                    // An empty `value:` is the empty prefix; a list or
                    // a mapping is a mistake, not an empty string.
                    cx.error_hint(
                        x.span,
                        format!("`value` must be a string, not {}", x.type_name()),
                        "the text typed so far, e.g. `value: \"f\"`",
                    );
                }
            }
            if a.as_map().is_some() && !entries.iter().any(|(k, _, _)| *k == "name") {
                cx.error_hint(
                    a.span,
                    "`argument` needs `name`",
                    "name the argument being completed: `argument: {name: style, value: \"\"}`",
                );
            }
        }
        None => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_completion` needs `argument`",
                    "e.g. `argument: {name: style, value: \"\"}`",
                );
            }
        }
    }
    let context = get("context").map(Node::to_json);
    match (ref_type, ref_name, arg.0) {
        (Some(ref_type), Some(ref_name), Some(an)) => Some(BlockOut {
            action: Action::Completion {
                ref_type,
                ref_name,
                argument: (an, arg.1),
                context,
            },
            expect_node: get("expect").cloned(),
            block: Block::Other,
            implied: Vec::new(),
        }),
        _ => None,
    }
}

/// The `assert_sampling` block.
fn block_sampling(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(
        v,
        "assert_sampling",
        &[
            "tool",
            "args",
            "mock_text",
            "mock_model",
            "mock_stop_reason",
            "expect",
        ],
    );
    let get = |k: &str| crate::read::entry(&entries, k);
    let tool = get("tool").and_then(|t| cx.name(t, "tool"));
    if get("tool").is_none() && v.as_map().is_some() {
        cx.error(span, "`assert_sampling` needs `tool`");
    }
    let args = args_value(cx, get("args"));
    let mock = SamplingMock {
        text: get("mock_text")
            .and_then(|t| cx.string(t, "mock_text"))
            .unwrap_or_default(),
        model: get("mock_model")
            .and_then(|t| cx.string(t, "mock_model"))
            .unwrap_or_else(|| "mock".into()),
        stop_reason: get("mock_stop_reason")
            .and_then(|t| cx.string(t, "mock_stop_reason"))
            .unwrap_or_else(|| "end_turn".into()),
    };
    Some(BlockOut {
        action: Action::Sampling {
            tool: tool?,
            args,
            mock,
        },
        expect_node: get("expect").cloned(),
        block: Block::Tool,
        implied: Vec::new(),
    })
}

/// The `assert_logging` block.
fn block_logging(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(
        v,
        "assert_logging",
        &["set_level", "tool", "args", "expect"],
    );
    let get = |k: &str| crate::read::entry(&entries, k);
    const LEVELS: [&str; 8] = [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ];
    let level = match get("set_level") {
        Some(l) => cx.string(l, "set_level").filter(|s| {
            let ok = LEVELS.contains(&s.as_str());
            if !ok {
                let hint = crate::diag::did_you_mean(s, LEVELS)
                    .unwrap_or_else(|| format!("one of: {}", LEVELS.join(", ")));
                cx.error_hint(l.span, format!("unknown log level `{s}`"), hint);
            }
            ok
        }),
        None => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_logging` needs `set_level`",
                    "e.g. `set_level: debug`",
                );
            }
            None
        }
    };
    let tool = get("tool").and_then(|t| cx.name(t, "tool"));
    let args = args_value(cx, get("args"));
    Some(BlockOut {
        action: Action::Logging {
            set_level: level?,
            tool,
            args,
        },
        expect_node: get("expect").cloned(),
        block: Block::Logging,
        implied: Vec::new(),
    })
}

/// The `assert_notifications` block.
fn block_notifications(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(v, "assert_notifications", &["tool", "args", "expect"]);
    let get = |k: &str| crate::read::entry(&entries, k);
    let tool = get("tool").and_then(|t| cx.name(t, "tool"));
    if get("tool").is_none() && v.as_map().is_some() {
        cx.error(span, "`assert_notifications` needs `tool`");
    }
    let args = args_value(cx, get("args"));
    Some(BlockOut {
        action: Action::Notifications { tool: tool?, args },
        expect_node: get("expect").cloned(),
        block: Block::Notifications,
        implied: Vec::new(),
    })
}

fn load_setup(cx: &mut LoadCx, node: &Node) -> Vec<SetupCall> {
    let Some(items) = cx.seq(node, "setup") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let entries = cx.struct_entries(item, "setup step", &["tool", "args", "capture"]);
        let get = |k: &str| crate::read::entry(&entries, k);
        let tool = get("tool").and_then(|t| cx.name(t, "tool"));
        if get("tool").is_none() && item.as_map().is_some() {
            cx.error_hint(
                item.span,
                "a setup step needs `tool`",
                "setup steps are tool calls: `- tool: create_file`",
            );
        }
        let args = args_value(cx, get("args"));
        let mut capture = Vec::new();
        if let Some(c) = get("capture") {
            for (var, expr) in cx.string_map(c, "capture").unwrap_or_default() {
                match Path::parse(&expr) {
                    Ok(p) => capture.push((var, p)),
                    Err(e) => cx.error_hint(
                        c.get(&var).map_or(c.span, |n| n.span),
                        format!("`capture.{var}`: invalid path {expr:?}: {e}"),
                        "captures are JSONPath into the setup result's text, e.g. `$.id`",
                    ),
                }
            }
        }
        if let Some(tool) = tool {
            out.push(SetupCall {
                tool,
                args,
                capture,
                span: item.span,
            });
        }
    }
    out
}

/// Report `{{var}}` references that nothing defines: `fixture` is always
/// defined; setup captures define names for later steps and the action. With
/// context hooks (which may inject vars), unknown names are warnings.
fn check_vars(
    cx: &mut LoadCx,
    test: &Node,
    setup: &[SetupCall],
    action: &Action,
    server: Option<&Server>,
    expect: &Expectations,
    context_hooks: bool,
) {
    let mut known: Vec<String> = vec!["fixture".into()];
    let report = |cx: &mut LoadCx, names: Vec<String>, known: &[String], fallback: Span| {
        for n in names {
            if known.contains(&n) {
                continue;
            }
            let span = find_var(test, &n).unwrap_or(fallback);
            let hint = crate::diag::did_you_mean(&n, known.iter().map(String::as_str)).unwrap_or_else(|| {
                format!(
                    "defined here: {}; capture it in an earlier setup step with `capture: {{{n}: $.path}}`",
                    known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                )
            });
            let msg = format!("`{{{{{n}}}}}` is not defined at this point");
            if context_hooks {
                cx.warning(
                    span,
                    format!("{msg} (a context hook may inject it)"),
                    Some(hint),
                );
            } else {
                cx.error_hint(span, msg, hint);
            }
        }
    };
    if let Some(s) = server {
        let mut names = Vec::new();
        server_vars(s, &mut names);
        // Setup captures do not exist yet when the server starts.
        report(cx, names, &["fixture".to_string()], s.span);
    }
    for step in setup {
        let mut names = Vec::new();
        vars_in_value(&step.args, &mut names);
        report(cx, names, &known, step.span);
        for (var, _) in &step.capture {
            if !known.contains(var) {
                known.push(var.clone());
            }
        }
    }
    let mut names = Vec::new();
    action_vars(action, &mut names);
    file_check_vars(expect, &mut names);
    report(cx, names, &known, test.span);
}

/// The span of the first scalar (or key) under `node` that mentions `{{name}}`.
fn find_var(node: &Node, name: &str) -> Option<Span> {
    match &node.kind {
        yaml::NodeKind::Scalar { text, .. } => {
            vars_in(text).iter().any(|v| v == name).then_some(node.span)
        }
        yaml::NodeKind::Seq(items) => items.iter().find_map(|i| find_var(i, name)),
        yaml::NodeKind::Map(entries) => entries
            .iter()
            .find_map(|(k, v)| find_var(k, name).or_else(|| find_var(v, name))),
    }
}

/// The `assert_task` block: `tool`, `args`, `then` (`poll`, the default;
/// `cancel`; `none`), `expect`.
fn block_task(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(v, "assert_task", &["tool", "args", "then", "expect"]);
    let get = |k: &str| crate::read::entry(&entries, k);
    let tool = match get("tool") {
        Some(t) => cx.name(t, "tool"),
        None => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_task` needs `tool`",
                    "name the tool to call as a task: `tool: slow_compute`",
                );
            }
            None
        }
    };
    let then = match get("then") {
        None => Some(TaskThen::Poll),
        Some(n) => match n.scalar_text() {
            Some("poll") => Some(TaskThen::Poll),
            Some("cancel") => Some(TaskThen::Cancel),
            Some("none") => Some(TaskThen::Stop),
            _ => {
                cx.error_hint(
                    n.span,
                    "`then` must be `poll`, `cancel` or `none`",
                    "`poll` waits for the task's end, `cancel` cancels it first, `none` checks the CreateTaskResult",
                );
                None
            }
        },
    };
    let args = args_value(cx, get("args"));
    Some(BlockOut {
        action: Action::Extension(ExtensionOp::Task {
            tool: tool?,
            args,
            then: then?,
        }),
        expect_node: get("expect").cloned(),
        block: Block::Tool,
        implied: Vec::new(),
    })
}

/// The `assert_skills` block: `list` (a mapping, or empty) or `get` (a
/// skill's URI), `verify` (default true), `expect`.
fn block_skills(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(v, "assert_skills", &["list", "get", "verify", "expect"]);
    let get = |k: &str| crate::read::entry(&entries, k);
    let op = match (get("list"), get("get")) {
        (Some(_), Some(_)) => {
            cx.error_hint(
                span,
                "`assert_skills` takes `list` or `get`, not both",
                "split it into two tests",
            );
            None
        }
        (Some(l), None) => Some(SkillsOp::List {
            cursor: opt_cursor(cx, l, "list"),
        }),
        (None, Some(g)) => cx.string(g, "get").map(|uri| SkillsOp::Get { uri }),
        (None, None) => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_skills` needs `list` or `get`",
                    "`list: {}` lists the skills; `get: skill://…/SKILL.md` gets one",
                );
            }
            None
        }
    };
    let verify = match get("verify") {
        None => Some(true),
        Some(n) => cx.bool(n, "verify"),
    };
    Some(BlockOut {
        action: Action::Extension(ExtensionOp::Skills {
            op: op?,
            verify: verify?,
        }),
        expect_node: get("expect").cloned(),
        block: Block::Other,
        implied: Vec::new(),
    })
}

/// The `assert_app` block: `tool` (its UI resource) or `read` (a `ui://`
/// URI), `expect`.
fn block_app(cx: &mut LoadCx, v: &Node) -> Option<BlockOut> {
    let span = v.span;
    let entries = cx.struct_entries(v, "assert_app", &["tool", "read", "expect"]);
    let get = |k: &str| crate::read::entry(&entries, k);
    let source = match (get("tool"), get("read")) {
        (Some(_), Some(_)) => {
            cx.error_hint(
                span,
                "`assert_app` takes `tool` or `read`, not both",
                "`tool:` finds the tool's UI resource; `read:` reads a ui:// resource",
            );
            None
        }
        (Some(t), None) => cx.name(t, "tool").map(AppSource::Tool),
        (None, Some(r)) => cx.string(r, "read").map(AppSource::Read),
        (None, None) => {
            if v.as_map().is_some() {
                cx.error_hint(
                    span,
                    "`assert_app` needs `tool` or `read`",
                    "`tool: dashboard` reads the UI resource its _meta.ui.resourceUri names; `read: ui://…` reads one",
                );
            }
            None
        }
    };
    Some(BlockOut {
        action: Action::Extension(ExtensionOp::App(source?)),
        expect_node: get("expect").cloned(),
        block: Block::Other,
        implied: Vec::new(),
    })
}

impl Test {
    /// Whether the test looks at notifications: a check reads
    /// `notifications`, or it waits for a resource update. The runner then
    /// keeps collecting them for the settle window.
    pub fn watches_notifications(&self) -> bool {
        self.expect
            .checks()
            .any(|c| matches!(&c.target, Target::Doc(p) if p.as_str() == "notifications"))
            || matches!(
                self.action,
                Action::Resources {
                    expect_notification: Some(_),
                    ..
                }
            )
    }

    /// Every `{{name}}` the test refers to: in its server, setup, request and
    /// file checks (not in expected values, which are compared as written).
    pub fn referenced_vars(&self) -> Vec<String> {
        let mut names = Vec::new();
        if let Some(s) = &self.server {
            server_vars(s, &mut names);
        }
        for step in &self.setup {
            vars_in_value(&step.args, &mut names);
        }
        action_vars(&self.action, &mut names);
        file_check_vars(&self.expect, &mut names);
        crate::sort::ord(&mut names);
        names.dedup();
        names
    }
}

/// The `{{vars}}` in a server's command, arguments, environment, headers,
/// URL and roots.
fn server_vars(s: &Server, names: &mut Vec<String>) {
    for a in s.args.iter().chain(s.command.iter()) {
        names.extend(vars_in(a));
    }
    for (_, v) in s.env.iter().chain(s.headers.iter()) {
        names.extend(vars_in(v));
    }
    for u in s.url.iter().chain(s.client.roots.iter().flatten()) {
        names.extend(vars_in(u));
    }
}

/// The `{{vars}}` in what a test sends.
fn action_vars(action: &Action, names: &mut Vec<String>) {
    match action {
        Action::Tool { args, .. }
        | Action::Sampling { args, .. }
        | Action::Notifications { args, .. }
        | Action::Logging { args, .. } => vars_in_value(args, names),
        Action::Prompts(PromptOp::Get { name, arguments }) => {
            names.extend(vars_in(name));
            for (_, v) in arguments {
                names.extend(vars_in(v));
            }
        }
        Action::Resources {
            op,
            subscribe,
            unsubscribe,
            ..
        } => {
            if let ResourceOp::Read { uri } = op {
                names.extend(vars_in(uri));
            }
            for s in [subscribe, unsubscribe].into_iter().flatten() {
                names.extend(vars_in(s));
            }
        }
        Action::Completion {
            ref_name,
            argument,
            context,
            ..
        } => {
            names.extend(vars_in(ref_name));
            names.extend(vars_in(&argument.1));
            if let Some(c) = context {
                vars_in_value(c, names);
            }
        }
        Action::Trajectory(TraceSource::AuditLog(p)) => names.extend(vars_in(p)),
        Action::Extension(ExtensionOp::Task { args, .. }) => vars_in_value(args, names),
        Action::Extension(ExtensionOp::Skills {
            op: SkillsOp::Get { uri },
            ..
        })
        | Action::Extension(ExtensionOp::App(AppSource::Read(uri))) => names.extend(vars_in(uri)),
        Action::Extension(_) => {}
        Action::Prompts(PromptOp::List { .. }) | Action::Trajectory(TraceSource::Inline(_)) => {}
    }
}

/// The `{{vars}}` in the paths of file checks.
fn file_check_vars(expect: &Expectations, names: &mut Vec<String>) {
    for c in expect.checks() {
        if let crate::check::Target::File(p) = &c.target {
            names.extend(vars_in(p));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The protocol revision each loaded test's server asks for.
    fn versions(loaded: &Loaded) -> Vec<Option<String>> {
        loaded
            .suite
            .tests
            .iter()
            .map(|t| t.server.as_ref().and_then(|s| s.protocol_version.clone()))
            .collect()
    }

    #[test]
    fn protocol_version_is_read_in_both_forms() {
        let per_file = load(
            "a.yaml",
            "name: t\nserver:\n  command: x\n  protocol_version: 2026-07-28\nassert: {tool: t}\n",
        );
        assert!(!per_file.has_errors(), "{:?}", per_file.diagnostics);
        assert_eq!(versions(&per_file), [Some("2026-07-28".to_string())]);

        let composed = load(
            "b.yaml",
            "servers:\n  new: {command: x, protocol_version: \"2026-07-28\"}\n  old: {command: x}\n\
             tests:\n  - name: a\n    server: new\n    assert: {tool: t}\n\
             \x20 - name: b\n    server: old\n    assert: {tool: t}\n",
        );
        assert!(!composed.has_errors(), "{:?}", composed.diagnostics);
        assert_eq!(versions(&composed), [Some("2026-07-28".to_string()), None]);
    }

    /// The first error of `text` loaded as `a.yaml`: line, message, hint.
    fn first_error(text: &str) -> (u32, String, String) {
        let loaded = load("a.yaml", text);
        let d = loaded
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .unwrap_or_else(|| panic!("no error in {:?}", loaded.diagnostics));
        assert_eq!(d.file, "a.yaml");
        (
            d.span.line,
            d.message.clone(),
            d.hint.clone().unwrap_or_default(),
        )
    }

    const HTTP: &str = "name: t\nserver:\n  transport: http\n  url: http://h/mcp\n";

    #[test]
    fn auth_is_read_in_both_forms() {
        let single = load(
            "a.yaml",
            &format!(
                "{HTTP}  auth:\n    type: client_credentials\n    client_id: c\n    client_secret: ${{SECRET}}\n    scope: read\nassert: {{tool: t}}\n"
            ),
        );
        assert!(!single.has_errors(), "{:?}", single.diagnostics);
        let auth = single.suite.tests[0]
            .server
            .as_ref()
            .and_then(|s| s.auth.clone());
        assert_eq!(
            auth,
            Some(Auth {
                grant: Grant::ClientCredentials,
                client_id: Some("c".into()),
                client_secret: Some("${SECRET}".into()),
                scope: Some("read".into()),
                resource: None,
                token_url: None,
                refresh_token: None,
            })
        );
        let composed = load(
            "b.yaml",
            "servers:\n  s:\n    transport: http\n    url: http://h/mcp\n    auth: {type: authorization_code, token_url: http://as/token}\n\
             tests:\n  - name: a\n    server: s\n    assert: {tool: t}\n",
        );
        assert!(!composed.has_errors(), "{:?}", composed.diagnostics);
        let auth = composed.suite.tests[0]
            .server
            .as_ref()
            .and_then(|s| s.auth.clone());
        let auth = auth.expect("auth");
        assert_eq!(auth.grant, Grant::AuthorizationCode);
        assert_eq!(auth.token_url.as_deref(), Some("http://as/token"));
    }

    #[test]
    fn auth_keys_are_checked_with_file_line_and_hint() {
        let (line, message, hint) = first_error(&format!(
            "{HTTP}  auth:\n    type: client_credentials\n    client_id: c\n    client_secret: s\n    token_ulr: x\nassert: {{tool: t}}\n"
        ));
        assert_eq!(line, 9);
        assert!(message.contains("token_ulr"), "{message}");
        assert!(hint.contains("token_url"), "{hint}");

        let (line, message, hint) = first_error(&format!(
            "{HTTP}  auth:\n    type: client_credential\nassert: {{tool: t}}\n"
        ));
        assert_eq!(line, 6);
        assert!(
            message.contains("unknown auth type `client_credential`"),
            "{message}"
        );
        assert!(hint.contains("client_credentials"), "{hint}");

        let (line, message, _) = first_error(&format!(
            "{HTTP}  auth:\n    client_id: c\nassert: {{tool: t}}\n"
        ));
        assert_eq!(line, 6);
        assert!(message.contains("needs a `type`"), "{message}");

        let (_, message, hint) = first_error(&format!(
            "{HTTP}  auth:\n    type: client_credentials\n    client_id: c\nassert: {{tool: t}}\n"
        ));
        assert!(
            message.contains("needs `client_id` and `client_secret`"),
            "{message}"
        );
        assert!(hint.contains("${CLIENT_SECRET}"), "{hint}");

        let (_, message, _) = first_error(&format!(
            "{HTTP}  auth:\n    type: refresh_token\nassert: {{tool: t}}\n"
        ));
        assert!(message.contains("needs `refresh_token`"), "{message}");

        let (_, message, _) = first_error(&format!(
            "{HTTP}  auth:\n    type: authorization_code\n    refresh_token: r\nassert: {{tool: t}}\n"
        ));
        assert!(message.contains("`refresh_token` is not used"), "{message}");

        let (line, message, _) = first_error(
            "name: t\nserver:\n  command: x\n  auth: {type: refresh_token, refresh_token: r}\nassert: {tool: t}\n",
        );
        assert_eq!(line, 3);
        assert!(message.contains("HTTP transports only"), "{message}");

        let (line, message, _) = first_error(
            "name: t\nserver:\n  transport: http\n  url: http://h/mcp\n  headers: {authorization: Bearer x}\n  auth: {type: refresh_token, refresh_token: r}\nassert: {tool: t}\n",
        );
        assert_eq!(line, 3);
        assert!(message.contains("sets `authorization` too"), "{message}");
    }

    #[test]
    fn an_unknown_protocol_version_is_an_error_that_lists_the_known_ones() {
        let loaded = load(
            "c.yaml",
            "name: t\nserver:\n  command: x\n  protocol_version: 2026-13-01\nassert: {tool: t}\n",
        );
        let d = loaded
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .expect("an error");
        assert_eq!(d.file, "c.yaml");
        assert_eq!(d.span.line, 4);
        assert!(
            d.message.contains("unknown protocol version `2026-13-01`"),
            "{}",
            d.message
        );
        assert!(
            d.message.contains("2025-11-25, 2026-07-28"),
            "{}",
            d.message
        );
        assert!(
            d.hint
                .as_deref()
                .is_some_and(|h| h.contains("protocol_version:"))
        );

        let empty = load(
            "d.yaml",
            "name: t\nserver:\n  command: x\n  protocol_version: \"\"\nassert: {tool: t}\n",
        );
        assert!(empty.has_errors(), "{:?}", empty.diagnostics);
    }

    #[test]
    fn stateless_revisions_are_2026_07_28_and_later() {
        assert!(is_stateless("2026-07-28"));
        assert!(!is_stateless("2025-11-25"));
        assert!(check_protocol_version("2025-06-18").is_ok());
        assert!(check_protocol_version("1.0").is_err());
    }

    #[test]
    fn elicitation_defaults_is_a_mock_mode() {
        let loaded = load(
            "e.yaml",
            "name: t\nserver:\n  command: x\n  client_capabilities: {elicitation: defaults}\nassert: {tool: t}\n",
        );
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let mock = loaded.suite.tests[0]
            .server
            .as_ref()
            .and_then(|s| s.client.elicitation.clone())
            .expect("a mock");
        assert!(mock.defaults);
        assert_eq!(mock.action, "accept");

        let other = load(
            "f.yaml",
            "name: t\nserver:\n  command: x\n  client_capabilities: {elicitation: yes please}\nassert: {tool: t}\n",
        );
        let d = other
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .expect("an error");
        assert_eq!(d.span.line, 4);
        assert!(
            d.message.contains("a mapping or `defaults`"),
            "{}",
            d.message
        );
    }

    #[test]
    fn client_extensions_are_declared_by_identifier() {
        let loaded = load(
            "x.yaml",
            "name: t\nserver:\n  command: x\n  client_capabilities:\n    extensions:\n      io.modelcontextprotocol/tasks: {}\n      io.modelcontextprotocol/ui: {mimeTypes: [text/html;profile=mcp-app]}\nassert: {tool: t}\n",
        );
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let declared = loaded.suite.tests[0]
            .server
            .as_ref()
            .and_then(|s| s.client.extensions.clone())
            .expect("extensions");
        assert_eq!(
            Value::Object(declared),
            serde_json::json!({
                "io.modelcontextprotocol/tasks": {},
                "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
            })
        );
        let bad = load(
            "y.yaml",
            "name: t\nserver:\n  command: x\n  client_capabilities:\n    extensions: {tasks: {}, io.modelcontextprotocol/ui: yes}\nassert: {tool: t}\n",
        );
        let errors: Vec<&str> = bad
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            errors,
            [
                "`tasks` is not an extension identifier",
                "the settings of `io.modelcontextprotocol/ui` must be a mapping"
            ]
        );
    }

    const ONE: &str =
        "name: t\nserver: {command: x}\nassert:\n  tool: t\n  expect: {matches_regex: \"a+\"}\n";

    #[test]
    fn the_files_of_a_suite_share_one_budget() {
        let mut budget = LoadBudget::default();
        let first = load_in("a.yaml", ONE, &mut budget);
        assert!(!first.has_errors(), "{:?}", first.diagnostics);
        assert!(budget.nodes > 0 && budget.regex_bytes > 0, "{budget:?}");

        // Values: what earlier files hold leaves less for the next.
        let mut spent = LoadBudget {
            nodes: yaml::MAX_SUITE_NODES - 5,
            regex_bytes: 0,
        };
        let loaded = load_in("b.yaml", ONE, &mut spent);
        assert!(
            loaded.diagnostics[0]
                .message
                .contains("hold more than 3000000 values together"),
            "{:?}",
            loaded.diagnostics
        );

        // Regular expressions: the suite's budget is checked before each.
        let mut spent = LoadBudget {
            nodes: 0,
            regex_bytes: crate::expect::args::REGEX_SUITE_BUDGET + 1,
        };
        let loaded = load_in("c.yaml", ONE, &mut spent);
        assert!(
            loaded.diagnostics[0]
                .message
                .contains("regular expressions of this suite's files"),
            "{:?}",
            loaded.diagnostics
        );
    }
}
