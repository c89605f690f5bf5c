//! A client session with one MCP server, over any transport, through rmcp,
//! with every message recorded by the tap.
//!
//! rmcp runs the protocol (the `initialize` handshake, request ids, answering
//! the server's requests with the suite's mocks); the session sends each test
//! request as a raw method + params and reads the raw answer back from the
//! tap, so what a check sees is exactly what the server sent.
//!
//! A session speaks one of two eras, chosen by the protocol version, and
//! offers the same methods in both, so the runner does not care which:
//!
//! - **Handshake** (up to 2025-11-25): `initialize`, then requests; the
//!   server's own requests (sampling, elicitation, roots) are answered by
//!   [`handler::MockClient`] as rmcp receives them.
//! - **Stateless** (2026-07-28): no `initialize`; the session opens with
//!   `server/discover`, every request carries `_meta` (protocol version,
//!   client info and capabilities, log level) and, over HTTP, the routing
//!   headers; a result with `resultType: "input_required"` has its
//!   `inputRequests` answered from the same mocks and the request is sent
//!   again with `inputResponses` and the `requestState`, round after round,
//!   until a final result ([`MAX_INPUT_ROUNDS`] at most).

pub mod auth;
pub mod container;
pub mod handler;
pub mod http;
pub mod listing;
pub mod stdio;
pub mod tap;
pub mod wire;

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{ClientRequest, CustomRequest};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService, ServiceError};
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

/// How many wire problems a failure message lists; the rest are counted.
const PROBLEMS_SHOWN: usize = 5;

/// How many times one request is sent again with answers to an
/// input-required result before the session gives up on it.
pub const MAX_INPUT_ROUNDS: usize = 10;

/// `UnsupportedProtocolVersionError`'s code (2026-07-28).
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

use handler::{MockClient, Mocks};
use mcpcheck_core::report::plural;
use tap::{Dir, Tap};

/// How to reach the server, with every template already expanded.
#[derive(Clone, Debug)]
pub enum Endpoint {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    Http {
        url: String,
        headers: Vec<(String, String)>,
        /// Where the bearer token of every request comes from.
        auth: Option<auth::Authorizer>,
    },
    Sse {
        url: String,
        headers: Vec<(String, String)>,
        auth: Option<auth::Authorizer>,
    },
}

impl Endpoint {
    /// A label for captures and messages.
    pub fn label(&self) -> String {
        match self {
            Endpoint::Stdio { command, args, .. } => {
                let mut parts = vec![command.clone()];
                parts.extend(args.iter().cloned());
                format!(
                    "stdio://{}",
                    shlex::try_join(parts.iter().map(String::as_str))
                        .unwrap_or_else(|_| parts.join(" "))
                )
            }
            Endpoint::Http { url, .. } | Endpoint::Sse { url, .. } => url.clone(),
        }
    }

    pub fn transport(&self) -> &'static str {
        match self {
            Endpoint::Stdio { .. } => "stdio",
            Endpoint::Http { .. } => "http",
            Endpoint::Sse { .. } => "sse",
        }
    }
}

enum Conn {
    Stdio(stdio::ChildProc),
    Http(http::HttpSession),
    Sse(http::SseSession),
}

/// The protocol era a session speaks (see the module's documentation).
#[derive(Debug)]
enum Era {
    Handshake,
    Stateless {
        version: String,
        mocks: Box<MockClient>,
        /// `io.modelcontextprotocol/logLevel` for every later request.
        log_level: Option<String>,
    },
}

/// A connected, initialized session.
pub struct Session {
    service: Option<RunningService<RoleClient, MockClient>>,
    pub tap: Arc<Tap>,
    conn: Option<Conn>,
    era: Era,
    /// Open `subscriptions/listen` requests (stateless sessions): the URI
    /// each watches, its id and rmcp's handle.
    listens: Vec<(String, Value, rmcp::service::RequestHandle<RoleClient>)>,
}

/// How long [`Session::observe`] waits for an answer.
#[derive(Clone, Copy, Debug)]
pub struct ObserveWait {
    /// Without an answer or progress.
    pub idle: Duration,
    /// In all, however often progress arrives.
    pub cap: Duration,
}

/// The raw answer to one request.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    pub result: Option<Value>,
    pub error: Option<Value>,
    /// Tap index just after the answer (or the current end on failure).
    pub end: usize,
    pub duration_ms: u64,
    /// The request's progress token, as sent.
    pub progress_token: Option<Value>,
    /// Why no usable answer came: timeout, closed connection, malformed message.
    pub failure: Option<String>,
    /// Why the client stopped waiting by a limit of its own while the server
    /// was still working (see [`Session::request_patiently`]).
    pub gave_up: Option<String>,
    /// The server's own answer arrived and is a well-formed JSON-RPC
    /// response (`result` or `error`): a `failure` beside it is about
    /// something else on the wire while the request was open (a line that
    /// is not JSON-RPC, a lone surrogate escape read as U+FFFD).
    pub answered: bool,
}

/// How long [`Session::request_patiently`] waits for one answer.
#[derive(Clone, Copy, Debug)]
pub struct Patience {
    /// The wait without a sign of work; each progress notification for the
    /// request starts it again.
    pub step: Duration,
    /// The longest wait, whatever progress comes.
    pub cap: Duration,
    /// How long the request's own arguments ask the server to take (a tool's
    /// `duration`), given before the first step.
    pub declared: Option<Duration>,
    /// The flags that set `step` and `cap`, named when the client gives up.
    pub flags: (&'static str, &'static str),
}

/// How a request is waited for.
enum Wait {
    /// Until a fixed deadline.
    Until(Deadline),
    /// With [`Patience`].
    Patient(Patience),
}

/// How a patient wait ended: the answer (or the timeout), and when the time
/// ran out while the server was still working, why it counts as working.
struct Waited {
    outcome: Result<Result<rmcp::model::ServerResult, ServiceError>, ()>,
    still_working: Option<String>,
}

/// A wait in seconds, as a person reads it: `1.5 s`, `12 s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{:.1} s", (s * 10.0).round() / 10.0)
    } else {
        format!("{} s", s.round() as u64)
    }
}

/// The progress token request `id` went out with, once the tap has it.
fn progress_token(tap: &Tap, start: usize, id: &Value) -> Option<Value> {
    tap.since(start).iter().find_map(|e| {
        (e.dir == Dir::Out && e.id() == Some(id))
            .then(|| {
                e.json
                    .as_ref()?
                    .pointer("/params/_meta/progressToken")
                    .cloned()
            })
            .flatten()
    })
}

/// Waits for `handle`'s answer a step at a time (see [`Patience`]), watching
/// the tap from `start` for progress notifications for request `id`.
async fn wait_patiently(
    tap: &Tap,
    start: usize,
    id: &Value,
    patience: Patience,
    handle: rmcp::service::RequestHandle<RoleClient>,
) -> Waited {
    let began = tokio::time::Instant::now();
    let cap_at = began + patience.cap;
    let first = patience.step + patience.declared.unwrap_or_default();
    let mut deadline = (began + first).min(cap_at);
    let mut seen = start;
    let mut progressed = false;
    let response = handle.await_response();
    tokio::pin!(response);
    let any_progress =
        |e: &tap::Event| e.dir == Dir::In && e.method() == Some("notifications/progress");
    loop {
        tokio::select! {
            answer = &mut response => {
                return Waited { outcome: Ok(answer), still_working: None };
            }
            came = tap.wait_for_event(seen, deadline, any_progress) => {
                let now = tokio::time::Instant::now();
                // The request's own token (the tap records the request as it
                // goes out, so it is there once its progress is).
                let token = progress_token(tap, start, id);
                let since = tap.since(seen);
                let ours = since.iter().position(|e| {
                    any_progress(e)
                        && token.is_some()
                        && e.json.as_ref().and_then(|j| j.pointer("/params/progressToken"))
                            == token.as_ref()
                });
                if came {
                    // Look past what was just seen.
                    seen += since.iter().position(any_progress).map_or(since.len(), |i| i + 1);
                }
                if ours.is_some() {
                    progressed = true;
                    if now < cap_at {
                        deadline = (now + patience.step).min(cap_at);
                        continue;
                    }
                } else if came && now < deadline {
                    // Another request's progress.
                    continue;
                }
                let waited = now.duration_since(began);
                let within_declared = patience.declared.is_some_and(|d| waited < d);
                let still_working = (progressed || within_declared).then(|| {
                    let because = if progressed {
                        "progress notifications were still arriving".to_string()
                    } else {
                        format!(
                            "its arguments ask for {} s",
                            patience.declared.unwrap_or_default().as_secs()
                        )
                    };
                    format!(
                        "the client stopped waiting after {} while the server was still working on it ({because}); {} raises the wait per step (progress starts a new step) and {} the longest wait",
                        seconds(waited),
                        patience.flags.0,
                        patience.flags.1
                    )
                });
                return Waited { outcome: Err(()), still_working };
            }
        }
    }
}

/// Why a session could not be used, and what the wire carried until then.
#[derive(Debug)]
pub struct SessionError {
    pub message: String,
    pub events: Vec<tap::Event>,
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Session {
    /// Connect and open the session, all before `deadline`: the
    /// `initialize` handshake, or from 2026-07-28 `server/discover`.
    pub async fn connect(
        endpoint: &Endpoint,
        protocol_version: &str,
        mocks: &Mocks,
        deadline: Deadline,
    ) -> Result<Session, SessionError> {
        let tap = Arc::new(Tap::default());
        let (transport, out, inbound) = wire::pair(tap.clone());
        let handler = MockClient::new(protocol_version, mocks).map_err(|e| SessionError {
            message: e.to_string(),
            events: Vec::new(),
        })?;
        let stateless = mcpcheck_core::suite::is_stateless(protocol_version);
        if stateless && matches!(endpoint, Endpoint::Sse { .. }) {
            return Err(SessionError {
                message: format!(
                    "protocol {protocol_version} has no legacy SSE transport; use `transport: http` (Streamable HTTP) or stdio, or an earlier `protocol_version`"
                ),
                events: Vec::new(),
            });
        }
        let conn = match endpoint {
            Endpoint::Stdio { command, args, env } => {
                let spec = stdio::StdioSpec {
                    command: command.clone(),
                    args: args.clone(),
                    env: env.clone(),
                };
                Conn::Stdio(stdio::spawn(&spec, inbound, out).map_err(|e| SessionError {
                    message: e.to_string(),
                    events: Vec::new(),
                })?)
            }
            Endpoint::Http { url, headers, auth } => Conn::Http(
                http::streamable(
                    url,
                    headers,
                    inbound,
                    out,
                    stateless.then(|| protocol_version.to_string()),
                    auth.clone(),
                )
                .map_err(|e| SessionError {
                    message: e.to_string(),
                    events: Vec::new(),
                })?,
            ),
            Endpoint::Sse { url, headers, auth } => {
                let wait = deadline.saturating_duration_since(Deadline::now());
                Conn::Sse(
                    http::legacy_sse(url, headers, inbound, out, wait, auth.clone())
                        .await
                        .map_err(|e| SessionError {
                            message: e.to_string(),
                            events: Vec::new(),
                        })?,
                )
            }
        };
        let mut session = Session {
            service: None,
            tap: tap.clone(),
            conn: Some(conn),
            era: Era::Handshake,
            listens: Vec::new(),
        };
        if stateless {
            session.era = Era::Stateless {
                version: protocol_version.to_string(),
                mocks: Box::new(handler.clone()),
                log_level: None,
            };
            session.service = Some(rmcp::service::serve_directly(handler, transport, None));
            return session.discover(deadline).await;
        }
        let mut serving = Box::pin(handler.serve(transport));
        let started = tokio::select! {
            served = &mut serving => Ok(served),
            () = tokio::time::sleep_until(deadline) => Err(()),
        };
        // What comes after the client gives up is not part of the session:
        // giving up drops the transport, which closes the server's input,
        // and some servers answer that at once. So the session's events are
        // taken before the transport is dropped.
        let events = tap.all();
        drop(serving);
        match started {
            Ok(Ok(service)) => {
                session.service = Some(service);
                Ok(session)
            }
            Ok(Err(e)) => {
                let detail = session.failure_detail(0).await;
                let message = format!("initialize failed: {e}{detail}");
                session.close().await;
                Err(SessionError { message, events })
            }
            Err(_) => {
                let detail = session.failure_detail(0).await;
                let message = format!("the server did not answer initialize in time{detail}");
                session.close().await;
                Err(SessionError { message, events })
            }
        }
    }

    /// Open a stateless session with `server/discover`; its answer is the
    /// session's handshake in captures.
    async fn discover(mut self, deadline: Deadline) -> Result<Session, SessionError> {
        let reply = self.request("server/discover", None, deadline).await;
        let problem = if let Some(failure) = reply.failure {
            Some(format!("{failure}{}", unsupported_hint(&Value::Null)))
        } else if let Some(err) = reply.error {
            Some(format!(
                "server/discover failed: {}{}",
                err.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)"),
                unsupported_hint(&err)
            ))
        } else if reply.result.as_ref().is_some_and(Value::is_object) {
            None
        } else {
            Some("the server's answer to server/discover is not an object".to_string())
        };
        match problem {
            None => Ok(self),
            Some(message) => {
                let events = self.tap.all();
                self.close().await;
                Err(SessionError { message, events })
            }
        }
    }

    /// The protocol version the session speaks: the one `initialize`
    /// agreed on, or a stateless session's. `initialize` negotiates only
    /// handshake revisions: a server that answers it with a stateless one
    /// (2026-07-28) has agreed on nothing the session can speak (`None`).
    pub fn protocol_version(&self) -> Option<String> {
        match &self.era {
            Era::Stateless { version, .. } => Some(version.clone()),
            Era::Handshake => self.initialize_result().and_then(|r| {
                r.get("protocolVersion")
                    .and_then(Value::as_str)
                    .filter(|v| !mcpcheck_core::suite::is_stateless(v))
                    .map(str::to_string)
            }),
        }
    }

    /// Set the level of the log messages the server sends: `logging/setLevel`
    /// on a handshake session (its answer returned), or the
    /// `io.modelcontextprotocol/logLevel` of every later request on a
    /// stateless one (`None`: nothing was sent).
    pub async fn set_log_level(&mut self, level: &str, deadline: Deadline) -> Option<Reply> {
        if let Era::Stateless { log_level, .. } = &mut self.era {
            *log_level = Some(level.to_string());
            return None;
        }
        Some(
            self.request(
                "logging/setLevel",
                Some(serde_json::json!({"level": level})),
                deadline,
            )
            .await,
        )
    }

    /// Ask for `notifications/resources/updated` about `uri`:
    /// `resources/subscribe` on a handshake session (its answer returned);
    /// on a stateless one, a `subscriptions/listen` stream for it, whose
    /// acknowledgment stands for the answer (its `params` as the result;
    /// an error answer to the listen request as the error).
    pub async fn subscribe(&mut self, uri: &str, deadline: Deadline) -> Reply {
        if matches!(self.era, Era::Handshake) {
            return self
                .request("resources/subscribe", Some(json!({"uri": uri})), deadline)
                .await;
        }
        let filter = json!({"resourceSubscriptions": [uri]});
        self.listen(uri, filter, deadline).await
    }

    /// Open a `subscriptions/listen` stream with `filter` (its
    /// `notifications` member) on a stateless session, kept under `key` for
    /// [`Session::unlisten`]: the acknowledgment stands for the answer (its
    /// `params` as the result; an error answer to the request as the error).
    pub async fn listen(&mut self, key: &str, filter: Value, deadline: Deadline) -> Reply {
        let listen = json!({ "notifications": filter });
        let start = self.tap.mark();
        let began = Instant::now();
        let mut reply = Reply::default();
        let Some(service) = self.service.as_ref() else {
            reply.failure = Some("the session is closed".into());
            return reply;
        };
        let request = ClientRequest::CustomRequest(CustomRequest::new(
            "subscriptions/listen",
            self.envelope(Some(listen)),
        ));
        let handle = match service
            .peer()
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(h) => h,
            Err(e) => {
                reply.failure = Some(format!("cannot send subscriptions/listen: {e}"));
                reply.end = self.tap.mark();
                return reply;
            }
        };
        let id = serde_json::to_value(&handle.id).unwrap_or(Value::Null);
        let answered = |e: &tap::Event| {
            e.dir == Dir::In
                && ((e.method() == Some("notifications/subscriptions/acknowledged")
                    && e.json.as_ref().and_then(|j| {
                        j.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                    }) == Some(&id))
                    || (e.is_response() && e.id() == Some(&id)))
        };
        self.tap.wait_for_event(start, deadline, answered).await;
        reply.duration_ms = began.elapsed().as_millis() as u64;
        let events = self.tap.since(start);
        match events.iter().position(answered) {
            Some(i) => {
                reply.end = start + i + 1;
                let json = events[i].json.as_deref().cloned().unwrap_or(Value::Null);
                if events[i].is_response() {
                    reply.result = json.get("result").cloned();
                    reply.error = json.get("error").cloned();
                } else {
                    reply.result = json.get("params").cloned();
                    self.listens.push((key.to_string(), id, handle));
                }
            }
            None => {
                let detail = self.failure_detail(start).await;
                reply.end = self.tap.mark();
                reply.failure = Some(format!(
                    "the server did not acknowledge subscriptions/listen in time{detail}"
                ));
            }
        }
        reply
    }

    /// Stop the updates about `uri`: `resources/unsubscribe` on a handshake
    /// session; on a stateless one, end the listen streams opened for it
    /// (over HTTP the stream is closed; on stdio `notifications/cancelled`
    /// names the request).
    pub async fn unsubscribe(&mut self, uri: &str, deadline: Deadline) -> Reply {
        if matches!(self.era, Era::Handshake) {
            return self
                .request("resources/unsubscribe", Some(json!({"uri": uri})), deadline)
                .await;
        }
        self.unlisten(uri).await
    }

    /// End the `subscriptions/listen` streams opened under `key` (over HTTP
    /// the stream is closed; on stdio `notifications/cancelled` names the
    /// request).
    pub async fn unlisten(&mut self, key: &str) -> Reply {
        let (ending, kept) = std::mem::take(&mut self.listens)
            .into_iter()
            .partition(|(u, _, _)| u == key);
        self.listens = kept;
        for (_, id, handle) in ending {
            match self.conn.as_ref() {
                Some(Conn::Http(h)) => h.end_stream(&id),
                _ => {
                    let _ = handle
                        .cancel(Some("the test is done with this subscription".into()))
                        .await;
                }
            }
        }
        Reply {
            end: self.tap.mark(),
            ..Reply::default()
        }
    }

    /// `params` with the `_meta` every stateless request carries (keys
    /// already there are kept); unchanged on a handshake session.
    fn envelope(&self, params: Option<Value>) -> Option<Value> {
        let Era::Stateless {
            version,
            mocks,
            log_level,
        } = &self.era
        else {
            return params;
        };
        let mut p = match params {
            Some(Value::Object(m)) => m,
            None => serde_json::Map::new(),
            // Not an object: sent as written, so the server's answer to it
            // is what the test sees.
            Some(other) => return Some(other),
        };
        let meta = p
            .entry("_meta")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                Value::String(version.clone()),
            );
            meta.insert(
                "io.modelcontextprotocol/clientInfo".into(),
                serde_json::json!({"name": "mcpcheck", "version": mcpcheck_core::VERSION}),
            );
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".into(),
                mocks.capabilities().clone(),
            );
            if let Some(level) = log_level {
                meta.insert(
                    "io.modelcontextprotocol/logLevel".into(),
                    Value::String(level.clone()),
                );
            }
        }
        Some(Value::Object(p))
    }

    /// The server's `initialize` result, from the tap.
    pub fn initialize_result(&self) -> Option<Value> {
        self.tap.all().iter().find_map(|e| {
            let j = e.json.as_ref()?;
            (e.dir == Dir::In && j.pointer("/result/protocolVersion").is_some())
                .then(|| j["result"].clone())
        })
    }

    /// The server's answer to the `server/discover` that opened a
    /// 2026-07-28 session, from the tap (`None` in the `initialize` era).
    pub fn discover_result(&self) -> Option<Value> {
        let events = self.tap.all();
        let id = events.iter().find_map(|e| {
            let j = e.json.as_ref()?;
            (e.dir == Dir::Out
                && j.get("method").and_then(Value::as_str) == Some("server/discover"))
            .then(|| j.get("id").cloned())
            .flatten()
        })?;
        events.iter().find_map(|e| {
            let j = e.json.as_ref()?;
            (e.dir == Dir::In && j.get("id") == Some(&id) && j.get("result").is_some())
                .then(|| j["result"].clone())
        })
    }

    /// The last bytes a local server wrote on stderr; empty for a remote
    /// one.
    /// The server's stderr as it is read, for a local process; it outlives
    /// the session, so what the server says while it shuts down can be
    /// waited for (see [`stdio::StderrTail::drained`]).
    pub fn stderr_handle(&self) -> Option<stdio::StderrTail> {
        match self.conn.as_ref() {
            Some(Conn::Stdio(child)) => Some(child.stderr.clone()),
            _ => None,
        }
    }

    pub fn stderr_tail(&self) -> String {
        match self.conn.as_ref() {
            Some(Conn::Stdio(child)) => child.stderr.text(),
            _ => String::new(),
        }
    }

    /// Wire problems, exit status and stderr, as text to append to a failure.
    pub async fn failure_detail(&mut self, since: usize) -> String {
        self.failure_detail_except(since, "").await
    }

    /// [`Session::failure_detail`] without the problem `said` (already in
    /// the message it is appended to).
    async fn failure_detail_except(&mut self, since: usize, said: &str) -> String {
        let mut parts = Vec::new();
        let mut more = 0usize;
        for p in self.tap.problems_since(since) {
            if p.message == said {
                continue;
            }
            if parts.len() < PROBLEMS_SHOWN {
                parts.push(p.message);
            } else {
                more += 1;
            }
        }
        if more > 0 {
            parts.push(format!(
                "… and {} (`--capture` keeps every message)",
                plural(more, "more problem", "more problems")
            ));
        }
        if let Some(Conn::Stdio(child)) = self.conn.as_mut() {
            // Give a crashing process a moment to be reaped, so its exit
            // status can be reported.
            for _ in 0..20 {
                if child.exit_status().is_some() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            if let Some(status) = child.exit_status() {
                parts.push(format!("the server {status}"));
                // It is gone: let the reader drain what it wrote to stderr.
                for _ in 0..40 {
                    if child.stderr.finished() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            let tail = child.stderr.text();
            if !tail.is_empty() {
                parts.push(format!("server stderr:\n{}", indent(&tail)));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("\n{}", parts.join("\n"))
        }
    }

    /// One request as `audit` and `fuzz` see it: the raw answer, the lines
    /// that were not JSON, whether the process ended, its stderr tail, and
    /// whether the server flooded the session while it was open. It waits
    /// `wait.idle` for the answer, again after progress for the request's
    /// token (which the SDK gives every request), and `wait.cap` in all.
    pub async fn observe(
        &mut self,
        method: &str,
        params: Option<Value>,
        wait: ObserveWait,
    ) -> mcpcheck_core::probe::Observed {
        use mcpcheck_core::probe::Observed;
        let start = self.tap.mark();
        let flooded_before = self.tap.exceeded().is_some();
        let began = Deadline::now();
        let mut observed = Observed::default();
        let params = self.envelope(params);
        let sent = match self.service.as_ref() {
            Some(service) => {
                let request = ClientRequest::CustomRequest(CustomRequest::new(method, params));
                service
                    .peer()
                    .send_request_with_option(request, PeerRequestOptions::no_options())
                    .await
                    .ok()
            }
            None => None,
        };
        if let Some(handle) = sent {
            let id = serde_json::to_value(&handle.id).unwrap_or(Value::Null);
            // The progress token the SDK gave the request, read from the
            // request as it went out (once it has).
            let token_of = |tap: &Tap| {
                tap.since(start).iter().find_map(|e| {
                    let json = e.json.as_ref()?;
                    (e.dir == Dir::Out && json.get("id") == Some(&id))
                        .then(|| json.pointer("/params/_meta/progressToken").cloned())
                        .flatten()
                })
            };
            let mut token = None;
            let mut answer = Box::pin(handle.await_response());
            let cap = began + wait.cap;
            let mut since = start;
            let mut last = began;
            let answered = loop {
                let deadline = (last + wait.idle).min(cap);
                if tokio::time::timeout_at(deadline, &mut answer).await.is_ok() {
                    break true;
                }
                // Progress for this call since the last look starts the wait again.
                let now = self.tap.mark();
                if token.is_none() {
                    token = token_of(&self.tap);
                }
                let progressed = token.is_some()
                    && self.tap.notifications(since, now).iter().any(|n| {
                        n.get("method").and_then(Value::as_str) == Some("notifications/progress")
                            && n.pointer("/params/progressToken") == token.as_ref()
                    });
                since = now;
                if !progressed || Deadline::now() >= cap {
                    break false;
                }
                last = Deadline::now();
            };
            observed.timed_out = !answered && self.tap.response_to(start, &id).is_none();
            observed.response = self
                .tap
                .response_to(start, &id)
                .map(|(_, json)| Value::clone(&json));
        }
        observed.duration_ms = began.elapsed().as_millis() as u64;
        let events = self.tap.since(start);
        let incoming = events.iter().filter(|e| e.dir == Dir::In);
        let (messages, bytes) = incoming
            .clone()
            .fold((0, 0), |(n, b), e| (n + 1, b + e.raw.len()));
        observed.flood = self
            .tap
            .exceeded()
            .filter(|_| !flooded_before)
            .or_else(|| mcpcheck_core::probe::flood(messages, bytes));
        observed.non_json_lines = incoming
            .filter(|e| !e.is_json())
            .map(|e| mcpcheck_core::truncate(e.raw.trim(), 500))
            .collect();
        if let Some(Conn::Stdio(child)) = self.conn.as_mut() {
            if observed.response.is_none() && !observed.timed_out && observed.flood.is_none() {
                // Give a crashing process a moment to be reaped.
                for _ in 0..40 {
                    if child.exit_status().is_some() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            observed.exited = child.exit_status();
            observed.stderr_tail = child.stderr.text();
        }
        observed
    }

    /// Send one request and wait for its final answer until `deadline`: on
    /// a stateless session, with its `_meta`, answering input-required
    /// results from the mocks, and sending it again once with the same
    /// version when the server first calls that version unsupported while
    /// listing it.
    pub async fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        deadline: Deadline,
    ) -> Reply {
        let Era::Stateless { version, mocks, .. } = &self.era else {
            return self.send(method, params, deadline).await;
        };
        let version = version.clone();
        let mocks = mocks.as_ref().clone();
        let began = Instant::now();
        let mut params = params;
        let mut version_retried = false;
        let mut rounds = 0usize;
        loop {
            let mut reply = self
                .send(method, self.envelope(params.clone()), deadline)
                .await;
            reply.duration_ms = began.elapsed().as_millis() as u64;
            if reply.failure.is_some() {
                return reply;
            }
            if !version_retried
                && reply
                    .error
                    .as_ref()
                    .is_some_and(|e| lists_version(e, &version))
            {
                version_retried = true;
                continue;
            }
            let Some(result) = reply.result.as_ref() else {
                return reply;
            };
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return reply;
            }
            if rounds == MAX_INPUT_ROUNDS {
                reply.failure = Some(format!(
                    "the server still asked for input after {MAX_INPUT_ROUNDS} rounds of {method}; mcpcheck stopped there"
                ));
                return reply;
            }
            rounds += 1;
            match mocks.input_retry(params.as_ref(), result) {
                Ok(next) => params = Some(next),
                Err(why) => {
                    reply.failure =
                        Some(format!("{method} needs input mcpcheck cannot give: {why}"));
                    return reply;
                }
            }
        }
    }

    /// Send one request exactly as given: no `_meta` added, no retry. For
    /// probes of how a server refuses a malformed request.
    pub async fn request_as_is(
        &mut self,
        method: &str,
        params: Option<Value>,
        deadline: Deadline,
    ) -> Reply {
        self.send(method, params, deadline).await
    }

    /// Send one request as it is and wait for its raw answer until
    /// `deadline`.
    async fn send(&mut self, method: &str, params: Option<Value>, deadline: Deadline) -> Reply {
        self.send_waiting(method, params, Wait::Until(deadline))
            .await
    }

    /// Send one request (with its `_meta` on a stateless session) and wait
    /// for its answer with `patience`: a step at a time, each progress
    /// notification for it starting a new step, never past the cap. When the
    /// time runs out while the server is still working on it (progress came,
    /// or its arguments ask for more time than the client gave), the client
    /// cancels it (`notifications/cancelled`, or on 2026-07-28 HTTP by closing
    /// its stream), notes in the capture that it gave up by its own limit, and
    /// says so in `failure` and `gave_up`. A request the server gave no sign
    /// of working on is left unanswered, as [`Session::request`] leaves it.
    pub async fn request_patiently(
        &mut self,
        method: &str,
        params: Option<Value>,
        patience: Patience,
    ) -> Reply {
        let params = self.envelope(params);
        self.send_waiting(method, params, Wait::Patient(patience))
            .await
    }

    async fn send_waiting(&mut self, method: &str, params: Option<Value>, wait: Wait) -> Reply {
        let start = self.tap.mark();
        let began = Instant::now();
        let mut reply = Reply::default();
        let Some(service) = self.service.as_ref() else {
            reply.failure = Some("the session is closed".into());
            return reply;
        };
        let request = ClientRequest::CustomRequest(CustomRequest::new(method, params));
        let handle = match service
            .peer()
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(h) => h,
            Err(e) => {
                let detail = self.failure_detail(start).await;
                reply.failure = Some(format!("cannot send {method}: {e}{detail}"));
                reply.end = self.tap.mark();
                return reply;
            }
        };
        let id = serde_json::to_value(&handle.id).unwrap_or(Value::Null);
        let request_id = handle.id.clone();
        let (outcome, still_working) = match wait {
            Wait::Until(deadline) => (
                tokio::time::timeout_at(deadline, handle.await_response())
                    .await
                    .map_err(|_| ()),
                None,
            ),
            Wait::Patient(patience) => {
                let waited = wait_patiently(&self.tap, start, &id, patience, handle).await;
                (waited.outcome, waited.still_working)
            }
        };
        reply.duration_ms = began.elapsed().as_millis() as u64;
        // The token as it went out on the wire.
        reply.progress_token = progress_token(&self.tap, start, &id);
        if outcome.is_err()
            && let Some(why) = still_working
        {
            self.give_up(method, &id, request_id, &why).await;
            reply.gave_up = Some(why);
        }
        // A large answer is moved out of the tap, not copied: the handshake's
        // stays, for what reads it later.
        let take_above = if matches!(method, "initialize" | "server/discover") {
            usize::MAX
        } else {
            TAKE_ABOVE_BYTES
        };
        let mut raw = self.tap.take_response(start, &id, take_above);
        let envelope = raw.as_ref().and_then(|(_, j)| envelope_problem(Some(j)));
        if let Some((idx, json)) = &mut raw {
            reply.end = *idx + 1;
            reply.result = json.get_mut("result").map(Value::take);
            reply.error = json.get_mut("error").map(Value::take);
        } else {
            reply.end = self.tap.mark();
        }
        let problems = self.tap.problems_since(start);
        match outcome {
            Err(_) if reply.gave_up.is_some() => {
                let why = reply.gave_up.clone().unwrap_or_default();
                reply.failure = Some(format!("{method}: {why}"));
            }
            Err(_) => {
                let detail = self.failure_detail(start).await;
                reply.failure = Some(format!("no answer to {method} in time{detail}"));
            }
            Ok(Err(ServiceError::McpError(_))) | Ok(Ok(_)) if raw.is_some() => {
                if let Some(bad) = envelope {
                    reply.failure = Some(format!(
                        "the server's answer to {method} is malformed: {bad}"
                    ));
                } else {
                    reply.answered = true;
                    if let Some(p) = problems.first() {
                        // The answer is fine, but the server also wrote
                        // something that is not JSON-RPC while the request
                        // was open (the problem names what it answered,
                        // when that is known).
                        reply.failure = Some(if p.message.contains(" in the HTTP answer to ") {
                            p.message.clone()
                        } else {
                            format!("{} (while {method} was open)", p.message)
                        });
                    }
                }
            }
            Ok(Err(ServiceError::McpError(e))) => {
                // No raw answer: the error was made below rmcp (an HTTP
                // failure, or a message rmcp could not read).
                let mut msg = format!("{method} failed: {}", e.message);
                if !problems.is_empty() {
                    msg.push_str(&self.failure_detail_except(start, &e.message).await);
                }
                reply.failure = Some(msg);
            }
            Ok(Err(e)) => {
                let detail = self.failure_detail(start).await;
                let what = match e {
                    ServiceError::TransportClosed => {
                        "the connection closed before the server answered".to_string()
                    }
                    other => other.to_string(),
                };
                reply.failure = Some(format!("{method}: {what}{detail}"));
            }
            Ok(Ok(_)) => {
                let detail = self.failure_detail(start).await;
                reply.failure = Some(format!("{method}: no answer was recorded{detail}"));
            }
        }
        reply
    }

    /// Stop waiting for request `id` (sent as `method`), which the server is
    /// still working on: cancel it as the transport says (over 2026-07-28 HTTP
    /// by closing its stream; elsewhere `notifications/cancelled`, and over
    /// handshake HTTP its stream is let go too), and note why in the capture.
    async fn give_up(
        &mut self,
        method: &str,
        id: &Value,
        request_id: rmcp::model::RequestId,
        why: &str,
    ) {
        self.tap.note_gave_up(id, why);
        let stateless = matches!(self.era, Era::Stateless { .. });
        let over_http = matches!(self.conn, Some(Conn::Http(_)));
        if !(stateless && over_http)
            && let Some(service) = self.service.as_ref()
        {
            let param = rmcp::model::CancelledNotificationParam::new(
                Some(request_id),
                Some(format!("mcpcheck stopped waiting for {method}: {why}")),
            );
            let note = rmcp::model::ClientNotification::CancelledNotification(
                rmcp::model::CancelledNotification::new(param),
            );
            let _ = tokio::time::timeout(
                Duration::from_secs(2),
                service.peer().send_notification(note),
            )
            .await;
        }
        if let Some(Conn::Http(h)) = self.conn.as_ref() {
            h.end_stream(id);
        }
    }

    /// Mark every request still unanswered as given up on for `why` (the
    /// session's budget ended it): the server is not blamed for answers the
    /// client stopped reading.
    pub fn give_up_on_unanswered(&self, why: &str) {
        for id in self.tap.unanswered_since(0) {
            self.tap.note_gave_up(&id, why);
        }
    }

    /// Wait until a notification matching `pred` arrives after `from`, or
    /// the deadline passes.
    pub async fn wait_notification(
        &self,
        from: usize,
        deadline: Deadline,
        pred: impl Fn(&Value) -> bool,
    ) -> bool {
        self.tap
            .wait_for_event(from, deadline, |e| {
                e.dir == Dir::In && e.is_notification() && e.json.as_deref().is_some_and(&pred)
            })
            .await
    }

    /// Notifications in `[from, to)`.
    pub fn notifications(&self, from: usize, to: usize) -> Vec<Value> {
        self.tap.notifications(from, to)
    }

    /// The id of the server's process, for a stdio server still running.
    pub fn process_id(&self) -> Option<u32> {
        match &self.conn {
            Some(Conn::Stdio(child)) => child.id(),
            _ => None,
        }
    }

    /// Learn from how this stdio server's shutdowns end, under its cost key
    /// (see `run::schedule::exit_wait_futile`).
    pub fn learn_exit(&mut self, key: &str) {
        if let Some(Conn::Stdio(child)) = self.conn.as_mut() {
            child.learn_exit(key.to_string());
        }
    }

    /// Give this session's server its whole grace when it closes (what it
    /// says as it exits is recorded).
    pub fn keep_grace(&mut self) {
        if let Some(Conn::Stdio(child)) = self.conn.as_mut() {
            child.keep_grace();
        }
    }

    /// End the session: stop rmcp, end the HTTP session or kill the process
    /// group. Never waits more than a few seconds.
    pub async fn close(&mut self) {
        if let Some(service) = self.service.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), service.cancel()).await;
        }
        match self.conn.take() {
            // The process gets its grace period in the background, so the
            // next test need not wait for it; `stdio::reap_all` waits for
            // every such shutdown before the run ends.
            Some(Conn::Stdio(child)) => stdio::reap(child, Duration::from_millis(100)),
            Some(Conn::Http(h)) => h.close().await,
            Some(Conn::Sse(s)) => s.close(),
            None => {}
        }
    }
}

/// The parameters of the next round of a request whose answer was the
/// input-required `result`: the first round's own parameters, with
/// `inputResponses` (each input request answered from `mocks`) and the
/// `requestState` exactly as the server sent it (none when it sent none).
/// Answers longer than this are moved out of the tap for the reply (see
/// [`tap::Tap::take_response`]).
const TAKE_ABOVE_BYTES: usize = 256 * 1024;

/// Whether `error` is an `UnsupportedProtocolVersionError` whose supported
/// versions include `version`.
fn lists_version(error: &Value, version: &str) -> bool {
    error.get("code").and_then(Value::as_i64) == Some(UNSUPPORTED_PROTOCOL_VERSION)
        && error
            .pointer("/data/supported")
            .and_then(Value::as_array)
            .is_some_and(|s| s.iter().any(|v| v.as_str() == Some(version)))
}

/// What to do when `server/discover` failed with `error` (`Null` when no
/// answer came): the versions the server listed when it refused this one,
/// else a reminder that a server of the `initialize` era does not know it.
fn unsupported_hint(error: &Value) -> String {
    let listed = (error.get("code").and_then(Value::as_i64) == Some(UNSUPPORTED_PROTOCOL_VERSION))
        .then(|| error.pointer("/data/supported").and_then(Value::as_array))
        .flatten();
    match listed {
        Some(list) => format!(
            " (the server supports {}; set `protocol_version` or `--protocol-version` to one of them)",
            list.iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "\na server that speaks only revisions with `initialize` does not know server/discover: set `protocol_version` (or `--protocol-version`) to its revision, e.g. 2025-11-25".into(),
    }
}

/// What is wrong with a raw JSON-RPC answer, if anything: not version 2.0,
/// both or neither of `result` and `error`, an error code that is not an
/// integer or a message that is not a string.
pub fn envelope_problem(raw: Option<&Value>) -> Option<String> {
    let v = raw?;
    if v.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some("`jsonrpc` is not \"2.0\"".into());
    }
    match (v.get("result"), v.get("error")) {
        (Some(_), Some(_)) => return Some("it has both `result` and `error`".into()),
        (None, None) => return Some("it has neither `result` nor `error`".into()),
        _ => {}
    }
    if let Some(err) = v.get("error") {
        if !err.get("code").is_some_and(|c| c.is_i64() || c.is_u64()) {
            return Some(format!(
                "the error code is not an integer: {}",
                err.get("code").unwrap_or(&Value::Null)
            ));
        }
        if !err.get("message").is_some_and(Value::is_string) {
            return Some("the error has no string `message`".into());
        }
    }
    None
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unsupported_version_is_retried_only_when_the_server_lists_it() {
        let listed = json!({"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28"]}});
        assert!(lists_version(&listed, "2026-07-28"));
        assert!(!lists_version(&listed, "2025-11-25"));
        assert!(!lists_version(&json!({"code": -32601}), "2026-07-28"));
        assert!(unsupported_hint(&listed).contains("the server supports 2026-07-28"));
        assert!(unsupported_hint(&Value::Null).contains("does not know server/discover"));
    }
}
