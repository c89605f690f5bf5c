//! The 2026-07-28 era: requests without an `initialize` handshake, each
//! carrying its protocol version and client capabilities in `_meta`.
//!
//! The transports choose the era per message ([`is_modern`]) and hand the
//! modern ones here. This layer checks the envelope (the `_meta` members,
//! and on HTTP the headers mirroring the body), answers what only this era
//! has (`server/discover`, `subscriptions/listen`, the fixtures in
//! `fixtures`), and runs every other method through the ordinary handler
//! in a session of its own (`replay`). What the handler would ask the
//! client mid-request becomes an `InputRequiredResult`, with the answers
//! so far kept by the client in a signed `requestState` (`state`). Every
//! result gains `resultType`, and cacheable ones `ttlMs` and `cacheScope`.

mod extensions;
mod fixtures;
mod replay;
mod state;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc};

pub use fixtures::Change;

use super::auth::Identity;
use super::faults::Fault;
use super::handler::Shared;

/// The revision this layer speaks.
pub const REVISION: &str = "2026-07-28";

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";
const META_PREFIX: &str = "io.modelcontextprotocol/";

pub const INVALID_PARAMS: i64 = -32602;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INTERNAL_ERROR: i64 = -32603;
pub const HEADER_MISMATCH: i64 = -32020;
pub const MISSING_CAPABILITY: i64 = -32021;
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// The name every result's `_meta` gives the server (as `initialize` does).
const SERVER_NAME: &str = "mcpcheck-serve";
/// The traceparent the `bad-traceparent` fault puts in every result.
const BAD_TRACEPARENT: &str = "00-mcpcheck-not-a-trace-01";
/// The resource-not-found code of the revisions before this one.
const RESOURCE_NOT_FOUND_BEFORE: i64 = -32002;

/// Whether `value` is a W3C traceparent (version 00, lowercase hex, ids not
/// all zeros): only such a one is carried on into a result.
fn is_traceparent(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let hex = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    parts.len() == 4
        && parts[0] == "00"
        && hex(parts[1], 32)
        && hex(parts[2], 16)
        && hex(parts[3], 2)
        && parts[1].bytes().any(|b| b != b'0')
        && parts[2].bytes().any(|b| b != b'0')
}

/// How long a client may keep a cacheable result, in milliseconds.
const TTL_MS: u64 = 60_000;

/// The methods the handler serves in this era too.
const FORWARDED: [&str; 8] = [
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
];

/// The results clients may cache.
const CACHEABLE: [&str; 5] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// The built-in tools that ask the client something, and the capability
/// each needs.
const TOOL_NEEDS: [(&str, &str); 3] = [
    ("sample", "sampling"),
    ("elicit", "elicitation"),
    ("roots", "roots"),
];

/// Whether `message` belongs to the 2026-07-28 era: a request or
/// notification whose `_meta` names a protocol version, or, where no
/// legacy session is open (`in_session` false), anything but `initialize`.
pub fn is_modern(message: &Value, in_session: bool) -> bool {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return false;
    };
    let names_version = message
        .pointer("/params/_meta")
        .and_then(Value::as_object)
        .is_some_and(|meta| meta.contains_key(META_VERSION));
    names_version || (!in_session && method != "initialize")
}

/// The HTTP headers that mirror the body; `None` on stdio.
#[derive(Debug, Default)]
pub struct Headers {
    pub protocol_version: Option<String>,
    pub method: Option<String>,
    pub name: Option<String>,
    /// The `Mcp-Param-*` headers: the name after `Mcp-Param-`, lowercased,
    /// and the value.
    pub params: Vec<(String, String)>,
}

/// What to send back for one message: `messages` in order (notifications,
/// then the response; none for a notification), and the HTTP status.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub messages: Vec<Value>,
}

/// The answer to one message.
#[derive(Debug)]
pub enum Outcome {
    Reply(Reply),
    /// A `subscriptions/listen` stream (boxed: it holds its feeds).
    Listen(Box<Listen>),
}

/// An open `subscriptions/listen` stream: the acknowledgment, then one
/// notification per list change the client asked for.
#[derive(Debug)]
pub struct Listen {
    pub acknowledgment: Value,
    /// A notification the filter did not ask for, sent first
    /// (`listen-ignores-filter`).
    unasked: Option<Value>,
    id: Value,
    tools: bool,
    prompts: bool,
    changes: broadcast::Receiver<Change>,
    /// The tasks asked for with `taskIds` (`extensions`).
    tasks: Option<extensions::TaskFeed>,
    /// Notifications made and not sent yet.
    queued: VecDeque<Value>,
}

impl Listen {
    /// The next notification for this stream; `None` once the server stops.
    pub async fn next(&mut self) -> Option<Value> {
        if let Some(note) = self.unasked.take() {
            return Some(note);
        }
        loop {
            if let Some(queued) = self.queued.pop_front() {
                return Some(queued);
            }
            let received = tokio::select! {
                received = self.changes.recv() => received,
                Some(notes) = extensions::next_task(self.tasks.as_mut(), &self.id) => {
                    self.queued.extend(notes);
                    continue;
                }
            };
            let change = match received {
                Ok(change) => change,
                // Changes missed by a slow reader are past: a list changed.
                Err(broadcast::error::RecvError::Lagged(_)) => Change::Tools,
                Err(broadcast::error::RecvError::Closed) => return None,
            };
            let method = match change {
                Change::Tools if self.tools => "notifications/tools/list_changed",
                Change::Prompts if self.prompts => "notifications/prompts/list_changed",
                _ => continue,
            };
            return Some(json!({
                "jsonrpc": "2.0",
                "method": method,
                "params": { "_meta": { META_SUBSCRIPTION: self.id } },
            }));
        }
    }
}

/// A JSON-RPC error to answer with.
struct Refusal {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl Refusal {
    fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// The HTTP status a JSON-RPC error is sent with in this era.
fn status_of(code: i64) -> u16 {
    match code {
        METHOD_NOT_FOUND => 404,
        HEADER_MISMATCH | MISSING_CAPABILITY | UNSUPPORTED_VERSION => 400,
        _ => 200,
    }
}

/// What a valid request's `_meta` says.
struct Envelope {
    capabilities: Value,
    log_level: Option<String>,
    /// The request's W3C trace context, carried on into its result's `_meta`.
    traceparent: Option<String>,
}

/// The 2026-07-28 front of one server process.
#[derive(Debug)]
pub struct Modern {
    shared: Arc<Shared>,
    key: state::Key,
    changes: broadcast::Sender<Change>,
    /// 2026-07-28 tools/call requests served, for the `stateful` fault.
    served: AtomicU64,
    /// server/discover requests answered, for the `unstable-discover` fault.
    discovered: AtomicU64,
    /// Whether answers depend on who asks (the server authenticates).
    private: bool,
    /// The tasks of the tasks extension.
    tasks: Arc<super::tasks::Tasks>,
}

impl Modern {
    pub fn new(shared: Arc<Shared>, private: bool) -> Self {
        let (changes, _) = broadcast::channel(64);
        Self {
            tasks: super::tasks::Tasks::new(&shared.faults),
            shared,
            key: state::Key::random(),
            changes,
            served: AtomicU64::new(0),
            discovered: AtomicU64::new(0),
            private,
        }
    }

    fn fault(&self, fault: Fault) -> bool {
        self.shared.faults.has(fault)
    }

    /// Answers one modern message; `headers` on HTTP. With `notes`, the
    /// notifications sent while a request runs (progress, log messages) go
    /// there as they come, instead of into the reply.
    pub async fn handle(
        &self,
        message: &Value,
        headers: Option<&Headers>,
        identity: Identity,
        notes: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Outcome {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(id) = message.get("id").cloned() else {
            // A notification: nothing to answer. Cancelling is closing the
            // request's stream in this era.
            return Outcome::Reply(Reply {
                status: 202,
                messages: Vec::new(),
            });
        };
        let empty = Map::new();
        let params = match message.get("params") {
            None => &empty,
            Some(Value::Object(params)) => params,
            Some(_) => {
                let refusal = Refusal::new(INVALID_PARAMS, "params must be an object");
                return Outcome::Reply(self.refuse(&id, refusal, 400));
            }
        };
        let envelope = match self.envelope(method, params, headers) {
            Ok(envelope) => envelope,
            Err((refusal, status)) => return Outcome::Reply(self.refuse(&id, refusal, status)),
        };
        let answer = match method {
            "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe"
                if self.fault(Fault::AcceptRemovedMethods) =>
            {
                Ok(json!({}))
            }
            "server/discover" => self.discover(identity, &envelope).await,
            "subscriptions/listen" => match self.listen(&id, params, &envelope) {
                Ok(listen) => return Outcome::Listen(Box::new(listen)),
                Err(refusal) => Err(refusal),
            },
            m if FORWARDED.contains(&m) => {
                let reply = self.serve(&id, m, params, &envelope, identity, notes).await;
                return Outcome::Reply(reply);
            }
            m if extensions::METHODS.contains(&m) => self.extension(m, params, &envelope).await,
            _ => Err(Refusal::new(
                METHOD_NOT_FOUND,
                format!("method `{method}` is not served in {REVISION}"),
            )),
        };
        Outcome::Reply(match answer {
            Ok(result) => self.complete(&id, method, result, Vec::new(), &envelope),
            Err(refusal) => {
                let status = status_of(refusal.code);
                self.refuse(&id, refusal, status)
            }
        })
    }

    /// Checks `_meta`, then the mirrored headers, then the version.
    fn envelope(
        &self,
        method: &str,
        params: &Map<String, Value>,
        headers: Option<&Headers>,
    ) -> Result<Envelope, (Refusal, u16)> {
        let lax = self.fault(Fault::SkipMetaValidation);
        let meta = params.get("_meta").and_then(Value::as_object);
        let invalid = |message: String| Err((Refusal::new(INVALID_PARAMS, message), 400));
        let Some(meta) = meta.or(lax.then_some(&Map::new())).cloned() else {
            return invalid(format!(
                "params._meta is required in {REVISION}, with {META_VERSION} and {META_CAPABILITIES}"
            ));
        };
        let version = match meta.get(META_VERSION) {
            Some(Value::String(version)) => version.clone(),
            _ if lax => REVISION.to_owned(),
            Some(_) => return invalid(format!("_meta.{META_VERSION} must be a string")),
            None => return invalid(format!("_meta.{META_VERSION} is required")),
        };
        let capabilities = match meta.get(META_CAPABILITIES) {
            Some(Value::Object(c)) => Value::Object(c.clone()),
            _ if lax => json!({}),
            Some(_) => return invalid(format!("_meta.{META_CAPABILITIES} must be an object")),
            None => return invalid(format!("_meta.{META_CAPABILITIES} is required")),
        };
        let log_level = match meta.get(META_LOG_LEVEL) {
            None => None,
            Some(Value::String(level)) if super::tools::LOG_LEVELS.contains(&level.as_str()) => {
                Some(level.clone())
            }
            Some(_) => {
                return invalid(format!(
                    "_meta.{META_LOG_LEVEL} must be one of {}",
                    super::tools::LOG_LEVELS.join(", ")
                ));
            }
        };
        if let Some(headers) = headers
            && !self.fault(Fault::IgnoreHeaderMismatch)
        {
            check_headers(headers, method, params, &version)
                .map_err(|e| (Refusal::new(HEADER_MISMATCH, e.to_string()), 400))?;
        }
        if version != REVISION {
            let refusal = Refusal::new(
                UNSUPPORTED_VERSION,
                format!("protocol version {version} is not supported in per-request _meta; supported: {REVISION} (older revisions start with initialize)"),
            )
            .with_data(json!({ "supported": [REVISION], "requested": version }));
            return Err((refusal, 400));
        }
        let traceparent = meta
            .get("traceparent")
            .and_then(Value::as_str)
            .filter(|t| is_traceparent(t))
            .map(str::to_owned);
        Ok(Envelope {
            capabilities,
            log_level,
            traceparent,
        })
    }

    async fn discover(&self, identity: Identity, envelope: &Envelope) -> Result<Value, Refusal> {
        let init = replay::initialize(self.shared.clone(), identity, &envelope.capabilities)
            .await
            .map_err(|why| Refusal::new(INTERNAL_ERROR, why.to_string()))?;
        let mut capabilities = init.get("capabilities").cloned().unwrap_or(json!({}));
        // resources/subscribe is not part of this era; updates would come
        // through subscriptions/listen, which serves list changes only.
        if let Some(resources) = capabilities
            .get_mut("resources")
            .and_then(Value::as_object_mut)
        {
            resources.remove("subscribe");
        }
        // The tasks extension is served in this era only.
        if let Some(caps) = capabilities.as_object_mut() {
            let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
            extensions[super::tasks::EXTENSION] = json!({});
        }
        if self.fault(Fault::UnstableDiscover)
            && let Some(caps) = capabilities.as_object_mut()
        {
            let n = self.discovered.fetch_add(1, Ordering::Relaxed) + 1;
            caps.insert(
                "experimental".into(),
                json!({ "mcpcheck/unstable-discover": { "answer": n } }),
            );
        }
        let mut result = json!({
            "supportedVersions": [REVISION],
            "capabilities": capabilities,
            "_meta": { META_SERVER_INFO: init.get("serverInfo").cloned().unwrap_or(json!({})) },
        });
        if let Some(instructions) = init.get("instructions") {
            result["instructions"] = instructions.clone();
        }
        self.cache_hints(&mut result);
        Ok(result)
    }

    fn listen(
        &self,
        id: &Value,
        params: &Map<String, Value>,
        envelope: &Envelope,
    ) -> Result<Listen, Refusal> {
        let Some(asked) = params.get("notifications").and_then(Value::as_object) else {
            return Err(Refusal::new(
                INVALID_PARAMS,
                "params.notifications is required: the notifications to send on this stream",
            ));
        };
        let wants = |key: &str| asked.get(key).and_then(Value::as_bool) == Some(true);
        let mut agreed = Map::new();
        for key in [
            "toolsListChanged",
            "promptsListChanged",
            "resourcesListChanged",
        ] {
            if wants(key) {
                agreed.insert(key.to_owned(), json!(true));
            }
        }
        let unasked = self.fault(Fault::ListenIgnoresFilter).then(|| {
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": { "_meta": { META_SUBSCRIPTION: id } },
            })
        });
        let tasks = match self.task_feed(asked, envelope)? {
            Some((ids, feed)) => {
                agreed.insert("taskIds".to_owned(), json!(ids));
                Some(feed)
            }
            None => None,
        };
        Ok(Listen {
            unasked,
            acknowledgment: json!({
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "notifications": agreed,
                    "_meta": { META_SUBSCRIPTION: id },
                },
            }),
            id: id.clone(),
            tools: wants("toolsListChanged"),
            prompts: wants("promptsListChanged"),
            changes: self.changes.subscribe(),
            tasks,
            queued: VecDeque::new(),
        })
    }

    /// A method the handler serves (or a fixture of this era).
    async fn serve(
        &self,
        id: &Value,
        method: &str,
        params: &Map<String, Value>,
        envelope: &Envelope,
        identity: Identity,
        notes: Option<&mpsc::UnboundedSender<Value>>,
    ) -> Reply {
        let binding = state::binding(method, params);
        let mut answers = match params.get("requestState") {
            None => Map::new(),
            Some(Value::String(sealed)) => match self.key.open(&binding, sealed) {
                Ok(answers) => answers,
                Err(why) => return self.refuse(id, Refusal::new(INVALID_PARAMS, why), 400),
            },
            Some(_) => {
                let refusal = Refusal::new(INVALID_PARAMS, "requestState must be a string");
                return self.refuse(id, refusal, 400);
            }
        };
        match params.get("inputResponses") {
            None => {}
            Some(Value::Object(given)) => answers.extend(given.clone()),
            Some(_) => {
                let refusal = Refusal::new(INVALID_PARAMS, "inputResponses must be an object");
                return self.refuse(id, refusal, 400);
            }
        }
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if method == "tools/call" && super::tasks::is_tool(name) {
            return self
                .task_call(id, params, envelope, &binding, &answers)
                .await;
        }
        let fixture = match method {
            "tools/call" => {
                let arguments = params.get("arguments").unwrap_or(&Value::Null);
                fixtures::call_tool(name, arguments, &envelope.capabilities, &answers)
            }
            "prompts/get" => fixtures::get_prompt(name, &envelope.capabilities, &answers),
            _ => None,
        };
        if let Some(step) = fixture {
            if let Some(change) = fixtures::change_of(name).filter(|_| method == "tools/call") {
                // No stream open is no one to tell.
                let _ = self.changes.send(change);
            }
            return match step {
                fixtures::Step::Done(result) => {
                    self.complete(id, method, result, Vec::new(), envelope)
                }
                fixtures::Step::Ask(asked) => {
                    self.input_required(id, asked, &binding, &answers, envelope)
                }
                fixtures::Step::Missing(needed) => self.missing(id, needed),
            };
        }
        if method == "tools/call"
            && let Some((_, needed)) = TOOL_NEEDS.iter().find(|(tool, _)| *tool == name)
            && envelope
                .capabilities
                .get(*needed)
                .is_none_or(Value::is_null)
        {
            return self.missing(id, json!({ *needed: {} }));
        }
        let ask = replay::Ask {
            identity,
            capabilities: &envelope.capabilities,
            log_level: envelope.log_level.as_deref(),
            answers: &answers,
        };
        let mut inner = inner_params(params);
        if method == "tools/call"
            && let Some((tool, arguments)) = fixtures::alias(name)
        {
            inner["name"] = json!(tool);
            inner["arguments"] = arguments;
        }
        let logging = envelope.log_level.is_some();
        let mut notifications = Vec::new();
        let mut notify = |note: Value| {
            let kept = match note.get("method").and_then(Value::as_str) {
                Some("notifications/progress") => true,
                Some("notifications/message") => logging,
                _ => false,
            };
            match notes {
                _ if !kept => {}
                // A client gone is a run about to be dropped.
                Some(notes) => drop(notes.send(note)),
                None => notifications.push(note),
            }
        };
        let finish = replay::run(self.shared.clone(), ask, method, inner, &mut notify).await;
        match finish {
            replay::Finish::Response(response) => {
                if let Some(result) = response.get("result") {
                    self.complete(id, method, result.clone(), notifications, envelope)
                } else {
                    let mut error = response.get("error").cloned().unwrap_or(json!({}));
                    let mut code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
                    // This revision moved resource-not-found to -32602 and
                    // retired -32002 (server/resources §Error Handling).
                    if method == "resources/read"
                        && code == RESOURCE_NOT_FOUND_BEFORE
                        && !self.fault(Fault::ResourceNotFound32002)
                    {
                        code = INVALID_PARAMS;
                        error["code"] = json!(code);
                    }
                    let mut messages = notifications;
                    messages.push(json!({ "jsonrpc": "2.0", "id": id, "error": error }));
                    Reply {
                        status: status_of(code),
                        messages,
                    }
                }
            }
            replay::Finish::Input { key, request } => {
                self.input_required(id, vec![(key, request)], &binding, &answers, envelope)
            }
            replay::Finish::Broken(why) => {
                self.refuse(id, Refusal::new(INTERNAL_ERROR, why.to_string()), 200)
            }
        }
    }

    fn input_required(
        &self,
        id: &Value,
        asked: Vec<(String, Value)>,
        binding: &str,
        answers: &Map<String, Value>,
        envelope: &Envelope,
    ) -> Reply {
        let requests: Map<String, Value> = asked.into_iter().collect();
        let mut result = json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": self.key.seal(binding, answers),
        });
        if self.fault(Fault::NoResultType)
            && let Some(result) = result.as_object_mut()
        {
            result.remove("resultType");
        }
        self.stamp(&mut result, envelope);
        Reply {
            status: 200,
            messages: vec![json!({ "jsonrpc": "2.0", "id": id, "result": result })],
        }
    }

    fn missing(&self, id: &Value, needed: Value) -> Reply {
        let names: Vec<&str> = needed
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let refusal = Refusal::new(
            MISSING_CAPABILITY,
            format!(
                "this request needs the client capability {}, which the request's _meta does not declare",
                names.join(", ")
            ),
        );
        let refusal = if self.fault(Fault::MissingCapabilityWithoutData) {
            refusal
        } else {
            refusal.with_data(json!({ "requiredCapabilities": needed }))
        };
        self.refuse(id, refusal, 400)
    }

    /// What every result's `_meta` carries: the server's name and version
    /// (basic/index §_meta, per-response fields), and the request's trace
    /// context carried on.
    fn stamp(&self, result: &mut Value, envelope: &Envelope) {
        let Some(object) = result.as_object_mut() else {
            return;
        };
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(meta) = meta.as_object_mut() else {
            return;
        };
        if !self.fault(Fault::NoServerInfo) {
            meta.entry(META_SERVER_INFO).or_insert_with(
                || json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") }),
            );
        } else {
            meta.remove(META_SERVER_INFO);
        }
        if self.fault(Fault::BadTraceparent) {
            meta.insert("traceparent".into(), json!(BAD_TRACEPARENT));
        } else if let Some(trace) = &envelope.traceparent {
            meta.insert("traceparent".into(), json!(trace));
        }
        if meta.is_empty() {
            object.remove("_meta");
        }
    }

    fn cache_hints(&self, result: &mut Value) {
        if self.fault(Fault::NoCacheHints) {
            return;
        }
        if let Some(object) = result.as_object_mut() {
            object.insert("ttlMs".into(), json!(TTL_MS));
            let scope = if self.private { "private" } else { "public" };
            object.insert("cacheScope".into(), json!(scope));
        }
    }

    /// The complete result: fixtures added to the lists, cache hints,
    /// `resultType`, and what the `stateful` fault adds.
    fn complete(
        &self,
        id: &Value,
        method: &str,
        mut result: Value,
        mut messages: Vec<Value>,
        envelope: &Envelope,
    ) -> Reply {
        if let Some(object) = result.as_object_mut() {
            let last_page = !object.contains_key("nextCursor");
            let extra = match method {
                "tools/list" if last_page => {
                    let mut tools = fixtures::tools();
                    tools.extend(super::tasks::tools());
                    Some(("tools", tools))
                }
                "prompts/list" if last_page => Some(("prompts", fixtures::prompts())),
                _ => None,
            };
            if let Some((list, items)) = extra
                && let Some(Value::Array(listed)) = object.get_mut(list)
            {
                listed.extend(items);
                if self.fault(Fault::BadXMcpHeader) {
                    for tool in listed.iter_mut() {
                        if let Some(annotation) =
                            tool.pointer_mut("/inputSchema/properties/region/x-mcp-header")
                        {
                            *annotation = json!("Region Header");
                        }
                    }
                }
            }
            if method == "tools/call"
                && self.fault(Fault::Stateful)
                && let Some(Value::Array(content)) = object.get_mut("content")
            {
                let n = self.served.fetch_add(1, Ordering::Relaxed) + 1;
                content.push(json!({
                    "type": "text",
                    "text": format!("request #{n} to this process"),
                }));
            }
            if !self.fault(Fault::NoResultType) {
                object.insert("resultType".into(), json!("complete"));
            }
        }
        if CACHEABLE.contains(&method) {
            self.cache_hints(&mut result);
        }
        self.stamp(&mut result, envelope);
        messages.push(json!({ "jsonrpc": "2.0", "id": id, "result": result }));
        Reply {
            status: 200,
            messages,
        }
    }

    fn refuse(&self, id: &Value, refusal: Refusal, status: u16) -> Reply {
        let status = if self.fault(Fault::RefusalStatus200) {
            200
        } else {
            status
        };
        let mut error = json!({ "code": refusal.code, "message": refusal.message });
        if let Some(data) = refusal.data {
            error["data"] = data;
        }
        Reply {
            status,
            messages: vec![json!({ "jsonrpc": "2.0", "id": id, "error": error })],
        }
    }
}

/// The params the handler sees: without this era's members and `_meta` keys.
fn inner_params(params: &Map<String, Value>) -> Value {
    let mut inner = params.clone();
    inner.remove("inputResponses");
    inner.remove("requestState");
    if let Some(Value::Object(meta)) = inner.get_mut("_meta") {
        meta.retain(|key, _| !key.starts_with(META_PREFIX));
        if meta.is_empty() {
            inner.remove("_meta");
        }
    }
    Value::Object(inner)
}

/// The body value `Mcp-Name` mirrors for `method`, if it mirrors one.
fn named(method: &str, params: &Map<String, Value>) -> Option<Option<String>> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        // The tasks extension routes by task (SEP-2663).
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    Some(params.get(field).and_then(Value::as_str).map(str::to_owned))
}

/// Whether the `Mcp-Param-*` headers mirror the arguments that the tool's
/// schema marks with `x-mcp-header`: each present argument needs its header,
/// with the same value; an absent one, none.
fn check_param_headers(
    headers: &Headers,
    params: &Map<String, Value>,
) -> Result<(), HeaderMismatch> {
    let tool = params
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    for (argument, suffix) in fixtures::mirrored(tool) {
        let value = params
            .get("arguments")
            .and_then(|a| a.get(*argument))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        let header_value = headers
            .params
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(suffix))
            .map(|(_, value)| header_text(value));
        let header = || format!("Mcp-Param-{suffix}");
        let argument = (*argument).to_owned();
        match (value, header_value) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(HeaderMismatch::ArgumentGiven {
                    header: header(),
                    argument,
                });
            }
            (None, Some(_)) => {
                return Err(HeaderMismatch::ArgumentAbsent {
                    header: header(),
                    argument,
                });
            }
            (Some(_), Some(None)) => {
                return Err(HeaderMismatch::NotBase64(header()));
            }
            (Some(value), Some(Some(given))) if value != given => {
                return Err(HeaderMismatch::Differs {
                    header: header(),
                    given,
                    expected: format!("argument `{argument}` ({value})"),
                });
            }
            (Some(_), Some(Some(_))) => {}
        }
    }
    Ok(())
}

/// A header value, with the `=?base64?…?=` form decoded.
fn header_text(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_owned()),
    }
}

/// Why the headers of a request do not mirror its body; answered as
/// [`HEADER_MISMATCH`] (HTTP 400) with this message.
#[derive(Debug, thiserror::Error)]
enum HeaderMismatch {
    #[error("the {0} header is required")]
    Missing(&'static str),
    #[error("the {header} header is required for {method}")]
    MissingFor {
        header: &'static str,
        method: String,
    },
    #[error("the {0} header is not valid base64 UTF-8")]
    NotBase64(String),
    /// `expected` names what the header mirrors, and its value.
    #[error("the {header} header ({given}) does not match {expected}")]
    Differs {
        header: String,
        given: String,
        expected: String,
    },
    #[error("the {header} header is required: argument `{argument}` is given")]
    ArgumentGiven { header: String, argument: String },
    #[error("the {header} header is sent, but argument `{argument}` is not")]
    ArgumentAbsent { header: String, argument: String },
}

/// Whether the headers mirror the body: why not, if they do not.
fn check_headers(
    headers: &Headers,
    method: &str,
    params: &Map<String, Value>,
    version: &str,
) -> Result<(), HeaderMismatch> {
    match headers.protocol_version.as_deref() {
        None => return Err(HeaderMismatch::Missing("MCP-Protocol-Version")),
        Some(given) if given != version => {
            return Err(HeaderMismatch::Differs {
                header: "MCP-Protocol-Version".to_owned(),
                given: given.to_owned(),
                expected: format!("_meta.{META_VERSION} ({version})"),
            });
        }
        Some(_) => {}
    }
    match headers.method.as_deref() {
        None => return Err(HeaderMismatch::Missing("Mcp-Method")),
        Some(given) if given != method => {
            return Err(HeaderMismatch::Differs {
                header: "Mcp-Method".to_owned(),
                given: given.to_owned(),
                expected: format!("the method ({method})"),
            });
        }
        Some(_) => {}
    }
    if let Some(expected) = named(method, params) {
        let given = headers.name.as_deref().map(header_text);
        match (given, expected) {
            (None, _) => {
                return Err(HeaderMismatch::MissingFor {
                    header: "Mcp-Name",
                    method: method.to_owned(),
                });
            }
            (Some(None), _) => {
                return Err(HeaderMismatch::NotBase64("Mcp-Name".to_owned()));
            }
            (Some(Some(given)), Some(expected)) if given == expected => {}
            (Some(Some(given)), expected) => {
                return Err(HeaderMismatch::Differs {
                    header: "Mcp-Name".to_owned(),
                    given,
                    expected: format!("the body ({})", expected.unwrap_or_default()),
                });
            }
        }
    }
    if method == "tools/call" {
        check_param_headers(headers, params)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_era_follows_the_message() {
        let modern = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": {META_VERSION: REVISION}}});
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
        let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert!(is_modern(&modern, true));
        assert!(is_modern(&modern, false));
        assert!(!is_modern(&initialize, false));
        assert!(is_modern(&bare, false));
        assert!(!is_modern(&bare, true));
        assert!(!is_modern(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
            false
        ));
    }

    #[test]
    fn headers_must_mirror_the_body() {
        let mut params = Map::new();
        params.insert("name".into(), json!("echo"));
        let headers = |m: &str, n: Option<&str>| Headers {
            protocol_version: Some(REVISION.into()),
            method: Some(m.into()),
            name: n.map(str::to_owned),
            params: Vec::new(),
        };
        assert!(
            check_headers(
                &headers("tools/call", Some("echo")),
                "tools/call",
                &params,
                REVISION
            )
            .is_ok()
        );
        assert!(
            check_headers(
                &headers("tools/list", Some("echo")),
                "tools/call",
                &params,
                REVISION
            )
            .is_err()
        );
        assert!(
            check_headers(
                &headers("tools/call", Some("other")),
                "tools/call",
                &params,
                REVISION
            )
            .is_err()
        );
        assert!(
            check_headers(
                &headers("tools/call", None),
                "tools/call",
                &params,
                REVISION
            )
            .is_err()
        );
        assert!(
            check_headers(
                &headers("tools/call", Some("=?base64?ZWNobw==?=")),
                "tools/call",
                &params,
                REVISION
            )
            .is_ok()
        );
        assert!(
            check_headers(
                &headers("tools/call", Some("echo")),
                "tools/call",
                &params,
                "2099-01-01"
            )
            .is_err()
        );
        assert!(
            check_headers(
                &headers("tools/list", None),
                "tools/list",
                &Map::new(),
                REVISION
            )
            .is_ok()
        );
    }

    #[test]
    fn param_headers_must_mirror_the_marked_arguments() {
        let params = |region: Option<&str>| {
            let mut params = Map::new();
            params.insert("name".into(), json!("test_custom_header"));
            let arguments = region.map_or(json!({}), |r| json!({ "region": r }));
            params.insert("arguments".into(), arguments);
            params
        };
        let headers = |value: Option<&str>| Headers {
            params: value
                .map(|v| vec![("region".to_owned(), v.to_owned())])
                .unwrap_or_default(),
            ..Headers::default()
        };
        let check = |h: Option<&str>, r: Option<&str>| check_param_headers(&headers(h), &params(r));
        assert!(check(Some("eu"), Some("eu")).is_ok());
        assert!(check(Some("=?base64?SGVsbG8=?="), Some("Hello")).is_ok());
        assert!(
            check(Some("=?base64?SGVsbG8?="), Some("Hello")).is_err(),
            "bad padding"
        );
        assert!(
            check(Some("=?base64?SGVs!!!bG8=?="), Some("Hello")).is_err(),
            "bad characters"
        );
        assert!(
            check(Some("=?base64?SGVsbG8="), Some("=?base64?SGVsbG8=")).is_ok(),
            "literal"
        );
        assert!(check(None, Some("eu")).is_err());
        assert!(check(Some("us"), Some("eu")).is_err());
        assert!(check(None, None).is_ok());
    }

    #[test]
    fn header_mismatches_say_which_header_and_what_it_mirrors() {
        let mut params = Map::new();
        params.insert("name".into(), json!("echo"));
        let said = |h: Headers, method: &str| {
            check_headers(&h, method, &params, REVISION)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            said(Headers::default(), "tools/call"),
            "the MCP-Protocol-Version header is required"
        );
        let versioned = || Headers {
            protocol_version: Some(REVISION.into()),
            ..Headers::default()
        };
        assert_eq!(
            said(
                Headers {
                    method: Some("tools/list".into()),
                    ..versioned()
                },
                "tools/call"
            ),
            "the Mcp-Method header (tools/list) does not match the method (tools/call)"
        );
        assert_eq!(
            said(
                Headers {
                    method: Some("tools/call".into()),
                    ..versioned()
                },
                "tools/call"
            ),
            "the Mcp-Name header is required for tools/call"
        );
    }

    #[test]
    fn inner_params_drop_this_eras_members() {
        let params = json!({"name": "echo", "inputResponses": {}, "requestState": "s",
            "_meta": {META_VERSION: REVISION, "progressToken": 7}});
        let Value::Object(params) = params else {
            unreachable!()
        };
        assert_eq!(
            inner_params(&params),
            json!({"name": "echo", "_meta": {"progressToken": 7}})
        );
    }
}
