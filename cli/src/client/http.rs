//! The HTTP transports: Streamable HTTP, and the legacy HTTP+SSE transport.
//!
//! **Streamable HTTP** (MCP 2025-03-26 and later): every message is a POST to
//! one endpoint, accepting JSON or an SSE stream in return; the server names
//! the session in `Mcp-Session-Id`, which every later request repeats, with
//! `MCP-Protocol-Version` once negotiated. After `initialize`, a GET opens
//! the stream for server-initiated messages (a 405 means the server has
//! none). Closing sends DELETE.
//!
//! **Legacy SSE** (2024-11-05): GET an event stream, whose first `endpoint`
//! event names the URL to POST messages to; answers arrive on the stream.
//!
//! Both read bodies as raw text and hand each message to [`Inbound`], so the
//! tap records exactly what the server sent. An HTTP error answering a
//! request becomes a JSON-RPC error for that request, with the status and
//! body in its message.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use sse_stream::SseStream;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::auth::{AuthError, Authorizer};
use super::tap::{MAX_BYTES, MAX_MESSAGE_BYTES, Tap};
use super::wire::Inbound;

/// How much of an HTTP error's body is read for the message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// A response body as a stream of chunks that ends with an error once more
/// than `limit` bytes came (an endless body, an SSE event that never ends),
/// telling `inbound` why.
fn bounded_stream(
    resp: reqwest::Response,
    limit: usize,
    inbound: Inbound,
) -> impl futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Unpin {
    let mut seen = 0usize;
    resp.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(std::io::Error::other)?;
        seen += chunk.len();
        if seen > limit {
            let why = format!(
                "the server's HTTP answer passed {} MiB; the session was ended",
                limit >> 20
            );
            inbound.exceed(why.clone());
            return Err(std::io::Error::other(why));
        }
        Ok(chunk)
    })
}

/// A body as bytes, at most `limit`; `Err` holds how far it got when it
/// was longer.
async fn bytes_within(mut resp: reqwest::Response, limit: usize) -> Result<Vec<u8>, usize> {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        if body.len() + chunk.len() > limit {
            return Err(body.len() + chunk.len());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// An error body, cut at [`MAX_ERROR_BODY`] (the message quotes its start).
async fn error_text(mut resp: reqwest::Response) -> String {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        let room = MAX_ERROR_BODY.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";

/// Why an HTTP session could not be opened or a request not sent.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("`{0}` is not a valid HTTP header name")]
    HeaderName(String),
    #[error("the value of header `{0}` is not valid in HTTP")]
    HeaderValue(String),
    #[error("cannot create an HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    /// A request that got no response; the text follows the error's causes.
    #[error("HTTP request failed: {}", with_causes(.0))]
    Request(#[source] reqwest::Error),
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error("auth: no token for {url} within {secs} s")]
    TokenTimeout { url: String, secs: u64 },
    #[error("auth: the access token is not valid in an HTTP header")]
    TokenHeader,
    /// `detail` is the URL parser's words.
    #[error("`{url}` is not a valid URL: {detail}")]
    Url { url: String, detail: String },
    #[error("no answer from {url} within {secs} s")]
    NoAnswer { url: String, secs: u64 },
    #[error("cannot connect to {url}: {}", with_causes(.source))]
    Connect {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    /// The stream's GET answered with an HTTP error, described in `why`.
    #[error("GET {url}: {why}")]
    Refused { url: String, why: String },
    #[error("{url} sent no `endpoint` event within {secs} s (is it a legacy SSE server?)")]
    NoEndpoint { url: String, secs: u64 },
    #[error("{0} closed its event stream before sending an `endpoint` event")]
    StreamClosed(String),
    #[error("the server's endpoint {endpoint:?} is not a valid URL: {detail}")]
    Endpoint { endpoint: String, detail: String },
}

fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, HttpError> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name =
            HeaderName::from_bytes(k.as_bytes()).map_err(|_| HttpError::HeaderName(k.clone()))?;
        let value = HeaderValue::from_str(v).map_err(|_| HttpError::HeaderValue(k.clone()))?;
        map.insert(name, value);
    }
    Ok(map)
}

fn client() -> Result<reqwest::Client, HttpError> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .redirect(same_origin_redirects())
        .build()
        .map_err(HttpError::Client)
}

/// Redirects are followed within the origin (scheme, host and port) of the
/// first request only, at most 10: every request carries the suite's
/// headers (API keys, tokens), which must not reach another origin.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(reqwest::Url::origin);
        let next = attempt.url().origin();
        if attempt.previous().len() > 10 {
            attempt.error("more than 10 redirects")
        } else if first.is_some_and(|f| f != next) {
            let to = next.ascii_serialization();
            attempt.error(format!(
                "the server redirected to another origin ({to}); not followed, so the suite's headers are not sent there (use that URL in the suite if it is right)"
            ))
        } else {
            attempt.follow()
        }
    })
}

/// Send `req`, with the run's bearer token when the server has `auth`
/// (see [`super::auth`]). A 401 gets a new token (found by discovery the
/// first time) and the request is sent once more, once.
async fn send_authorized(
    req: reqwest::RequestBuilder,
    auth: Option<&Authorizer>,
) -> Result<reqwest::Response, HttpError> {
    let failed = HttpError::Request;
    let Some(auth) = auth else {
        return req.send().await.map_err(failed);
    };
    let again = req.try_clone();
    let token = auth.token().await?;
    let first = match &token {
        Some(t) => req.bearer_auth(t),
        None => req,
    };
    let resp = first.send().await.map_err(failed)?;
    let Some(again) = again.filter(|_| resp.status() == reqwest::StatusCode::UNAUTHORIZED) else {
        return Ok(resp);
    };
    let www = resp
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let fresh = auth
        .after_unauthorized(token.as_deref(), www.as_deref())
        .await?;
    again.bearer_auth(fresh).send().await.map_err(failed)
}

/// The request id of an outgoing message, if it is a request.
fn request_id(text: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("method")?;
    v.get("id").filter(|i| !i.is_null()).cloned()
}

fn describe_http_error(status: reqwest::StatusCode, headers: &HeaderMap, body: &str) -> String {
    let mut msg = format!("HTTP {status}");
    if let Some(auth) = headers
        .get("www-authenticate")
        .and_then(|h| h.to_str().ok())
    {
        msg.push_str(&format!(" (WWW-Authenticate: {auth})"));
    }
    let body = body.trim();
    let body = html_text(body).unwrap_or_else(|| body.to_string());
    if !body.is_empty() {
        msg.push_str(": ");
        msg.push_str(&mcpcheck_core::truncate(&body, 300));
    }
    msg
}

/// An error with the chain of its causes (`error sending request for url
/// (…): client error (Connect): tcp connect error: Connection refused`): an
/// HTTP client's own message rarely says what went wrong underneath.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let part = c.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = c.source();
    }
    text
}

/// The text of an HTML error page (a web framework's or a proxy's
/// `<body><pre>Cannot POST /sse</pre></body>` becomes `Cannot POST /sse`), so
/// that it reads as one line; `None` when `body` is not an HTML document.
fn html_text(body: &str) -> Option<String> {
    let head: String = body
        .chars()
        .take(15)
        .collect::<String>()
        .to_ascii_lowercase();
    if !(head.starts_with("<!doctype html") || head.starts_with("<html")) {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    let from = lower.find("<body").unwrap_or(0);
    let mut text = String::new();
    let mut in_tag = false;
    for c in body[from..].chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// What to try when an HTTP status says the URL does not speak the transport
/// that was asked of it: the hint for `status` answering the legacy SSE
/// transport's opening GET, or (`sse == false`) Streamable HTTP's `initialize`
/// POST.
pub(crate) fn transport_hint(status: u16, sse: bool) -> Option<&'static str> {
    match (sse, status) {
        (true, 400 | 404 | 405 | 406) => Some(
            "; if this is a Streamable HTTP endpoint, use the `http` transport \
             (`transport: http` in a suite, `--transport http` for conformance)",
        ),
        (false, 404 | 405) => Some(
            "; if this is a legacy SSE endpoint, use the `sse` transport \
             (`transport: sse` in a suite, `--transport sse` for conformance)",
        ),
        _ => None,
    }
}

/// The `method` of an outgoing message's text, if it has one.
fn message_method(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("method")?.as_str().map(str::to_string)
}

/// How an SSE answer ended, for resuming it: the last event id and the
/// `retry` delay the server gave, and whether the stream ended by itself
/// (not cancelled, no limit passed).
#[derive(Debug, Default)]
struct StreamEnd {
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
    ended_by_server: bool,
}

/// Read a POST's answer, JSON or an SSE stream, delivering every message;
/// stops early when `stop` is cancelled. `to` is the method of the message
/// it carried.
async fn read_body(
    resp: reqwest::Response,
    inbound: &Inbound,
    stop: &CancellationToken,
    to: Option<&str>,
) -> StreamEnd {
    let mut end = StreamEnd::default();
    let status = Some(resp.status().as_u16());
    let is_sse = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/event-stream"));
    if is_sse {
        let mut events =
            SseStream::from_bytes_stream(bounded_stream(resp, MAX_BYTES, inbound.clone()));
        loop {
            tokio::select! {
                _ = stop.cancelled() => break,
                next = events.next() => match next {
                    Some(Ok(ev)) => {
                        if let Some(id) = ev.id.filter(|i| !i.is_empty()) {
                            end.last_event_id = Some(id);
                        }
                        if ev.retry.is_some() {
                            end.retry_ms = ev.retry;
                        }
                        if let Some(data) = ev.data {
                            inbound.deliver_http(&data, to, status);
                        }
                        if inbound.is_exceeded() {
                            break;
                        }
                    }
                    None => {
                        end.ended_by_server = true;
                        break;
                    }
                    _ => break,
                },
            }
        }
    } else {
        tokio::select! {
            _ = stop.cancelled() => {}
            body = bytes_within(resp, MAX_MESSAGE_BYTES) => match body {
                Ok(bytes) => inbound.deliver_bytes(&bytes, to, status),
                Err(_) => inbound.exceed(format!(
                    "the server's HTTP answer{} is longer than {} MiB (one message at most); the session was ended",
                    to.map(|m| format!(" to {m}")).unwrap_or_default(),
                    MAX_MESSAGE_BYTES >> 20
                )),
            }
        }
    }
    end
}

/// How many times an SSE answer that ended before answering its request is
/// resumed with `Last-Event-ID`.
const MAX_RESUMES: usize = 5;
/// The wait before resuming when the server gave no `retry`.
const DEFAULT_RETRY_MS: u64 = 1000;
/// The longest `retry` honoured: a larger one would outlast any test.
const MAX_RETRY_MS: u64 = 30_000;

/// What resuming an SSE answer needs from its session.
#[derive(Clone)]
struct Resume {
    client: reqwest::Client,
    url: String,
    headers: HeaderMap,
    session: Arc<Mutex<Option<String>>>,
    version: Arc<Mutex<Option<String>>>,
    inbound: Inbound,
    stop: CancellationToken,
    auth: Option<Authorizer>,
}

impl Resume {
    /// The server ended the SSE answer to request `id` (method `method`)
    /// without answering it, after event ids (SEP-1699: a polling server
    /// closes the stream and the client comes back): wait the `retry` it
    /// asked for, then GET the stream again with `Last-Event-ID`, until the
    /// answer comes or [`MAX_RESUMES`] attempts were made.
    async fn resume(&self, id: &Value, method: Option<&str>, mut end: StreamEnd) {
        for _ in 0..MAX_RESUMES {
            let Some(last) = end.last_event_id.clone() else {
                return;
            };
            if !end.ended_by_server || !self.inbound.is_pending(id) {
                return;
            }
            let wait = end.retry_ms.unwrap_or(DEFAULT_RETRY_MS).min(MAX_RETRY_MS);
            tokio::select! {
                _ = self.stop.cancelled() => return,
                () = tokio::time::sleep(Duration::from_millis(wait)) => {}
            }
            let mut req = self
                .client
                .get(&self.url)
                .headers(self.headers.clone())
                .header(ACCEPT, "text/event-stream")
                .header("last-event-id", last.as_str());
            if let Some(s) = self.session.lock().ok().and_then(|s| s.clone()) {
                req = req.header(SESSION_HEADER, s);
            }
            if let Some(v) = self.version.lock().ok().and_then(|v| v.clone()) {
                req = req.header(VERSION_HEADER, v);
            }
            let resp = tokio::select! {
                _ = self.stop.cancelled() => return,
                r = send_authorized(req, self.auth.as_ref()) => r,
            };
            let failed = match resp {
                Ok(resp) if resp.status().is_success() => {
                    let next = read_body(resp, &self.inbound, &self.stop, method).await;
                    end = StreamEnd {
                        last_event_id: next.last_event_id.or_else(|| Some(last.clone())),
                        retry_ms: next.retry_ms.or(end.retry_ms),
                        ended_by_server: next.ended_by_server,
                    };
                    None
                }
                Ok(resp) => {
                    let status = resp.status();
                    let headers = resp.headers().clone();
                    let body = error_text(resp).await;
                    Some(describe_http_error(status, &headers, &body))
                }
                Err(e) => Some(e.to_string()),
            };
            if let Some(why) = failed {
                self.inbound.fail_request(
                    id,
                    format!(
                        "the server ended the SSE answer{} before answering, and resuming it (GET with Last-Event-ID: {last}) failed: {why}",
                        method.map(|m| format!(" to {m}")).unwrap_or_default()
                    ),
                );
                return;
            }
        }
    }
}

/// Removes a request's stop token from the open streams when its task
/// ends, however it ends.
struct ForgetStream(Streams, Option<Value>);

impl Drop for ForgetStream {
    fn drop(&mut self) {
        if let (Some(id), Ok(mut open)) = (&self.1, self.0.lock()) {
            open.remove(&id.to_string());
        }
    }
}

/// The Streamable HTTP headers of protocol 2026-07-28 that mirror the body
/// of `text`: `Mcp-Method` for every message with a method, `Mcp-Name`
/// (`params.name`, or `params.uri` for `resources/read`) for `tools/call`,
/// `prompts/get` and `resources/read`, and (`params.taskId`) for the tasks
/// extension's `tasks/get`, `tasks/update` and `tasks/cancel`.
fn routing_headers(text: &str) -> Vec<(&'static str, String)> {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let Some(method) = v.get("method").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut out = vec![("mcp-method", header_text(method))];
    let name = match method {
        "tools/call" | "prompts/get" => v.pointer("/params/name"),
        "resources/read" => v.pointer("/params/uri"),
        // The tasks extension routes by task (SEP-2663).
        "tasks/get" | "tasks/update" | "tasks/cancel" => v.pointer("/params/taskId"),
        _ => None,
    };
    if let Some(name) = name.and_then(Value::as_str) {
        out.push(("mcp-name", header_text(name)));
    }
    out
}

/// A value as an HTTP header value: as is when it is visible ASCII (spaces
/// inside allowed), else in the 2026-07-28 Base64 form `=?base64?…?=`, as is
/// a plain value that looks like that form.
pub fn header_text(value: &str) -> String {
    use base64::Engine as _;
    let plain = !value.is_empty()
        && value.trim() == value
        && value
            .bytes()
            .all(|b| b == b' ' || (0x21..=0x7e).contains(&b))
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if plain {
        value.to_string()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value.as_bytes())
        )
    }
}

/// The body of an HTTP error answer when it is the JSON-RPC answer to
/// request `id` (2026-07-28 servers answer an unsupported version, a header
/// mismatch or an unknown method with 4xx and a JSON-RPC error).
fn json_rpc_error_body(body: &str, id: &Value) -> bool {
    serde_json::from_str::<Value>(body).is_ok_and(|v| {
        v.get("jsonrpc").is_some() && v.get("error").is_some() && v.get("id") == Some(id)
    })
}

/// A connected Streamable HTTP session's state, kept to end it.
pub struct HttpSession {
    client: reqwest::Client,
    url: String,
    headers: HeaderMap,
    session: Arc<Mutex<Option<String>>>,
    stop: CancellationToken,
    /// The token that stops reading the answer of each open request, by
    /// its id (as JSON text).
    streams: Streams,
    auth: Option<Authorizer>,
}

type Streams = Arc<Mutex<std::collections::HashMap<String, CancellationToken>>>;

impl HttpSession {
    /// Stop reading the answer to request `id` and drop its connection:
    /// how a 2026-07-28 client ends a `subscriptions/listen` stream.
    pub fn end_stream(&self, id: &Value) {
        if let Some(token) = self
            .streams
            .lock()
            .ok()
            .and_then(|mut s| s.remove(&id.to_string()))
        {
            token.cancel();
        }
    }

    /// End the session: stop reading, and DELETE it on the server.
    pub async fn close(self) {
        self.stop.cancel();
        let session = self.session.lock().ok().and_then(|s| s.clone());
        if let Some(id) = session {
            let req = self
                .client
                .delete(&self.url)
                .headers(self.headers.clone())
                .header(SESSION_HEADER, id)
                .timeout(Duration::from_secs(2));
            let _ = send_authorized(req, self.auth.as_ref()).await;
        }
    }
}

/// Start the Streamable HTTP writer: each outgoing message is one POST.
///
/// `stateless` is the protocol version of a 2026-07-28 (or later) session:
/// every POST then carries `MCP-Protocol-Version` with it and the routing
/// headers of its body (`Mcp-Method`, `Mcp-Name`), and there is no session
/// id, no GET stream and no resuming. Otherwise the session follows
/// `Mcp-Session-Id` and the version negotiated at `initialize`.
pub fn streamable(
    url: &str,
    headers: &[(String, String)],
    inbound: Inbound,
    mut out: mpsc::UnboundedReceiver<String>,
    stateless: Option<String>,
    auth: Option<Authorizer>,
) -> Result<HttpSession, HttpError> {
    let client = client()?;
    let headers = header_map(headers)?;
    let session: Arc<Mutex<Option<String>>> = Arc::default();
    let version: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(stateless.clone()));
    let stop = CancellationToken::new();
    let streams: Streams = Arc::default();
    let state = HttpSession {
        client: client.clone(),
        url: url.to_string(),
        headers: headers.clone(),
        session: session.clone(),
        stop: stop.clone(),
        streams: streams.clone(),
        auth: auth.clone(),
    };
    let resume = Resume {
        client: client.clone(),
        url: url.to_string(),
        headers: headers.clone(),
        session: session.clone(),
        version: version.clone(),
        inbound: inbound.clone(),
        stop: stop.clone(),
        auth,
    };
    let url = url.to_string();
    tokio::spawn(async move {
        let mut get_stream_opened = false;
        while let Some(text) = out.recv().await {
            let id = request_id(&text);
            let method = message_method(&text);
            let is_initialized = text.contains("\"notifications/initialized\"");
            let is_initialize = text.contains("\"method\":\"initialize\"");
            let mut req = client
                .post(&url)
                .headers(headers.clone())
                .header(CONTENT_TYPE, "application/json")
                .header(ACCEPT, "application/json, text/event-stream");
            if stateless.is_some() {
                req = with_mcp_headers(req, resume.inbound.tap(), &text, id.as_ref());
            } else if let Some(s) = session.lock().ok().and_then(|s| s.clone()) {
                req = req.header(SESSION_HEADER, s);
            }
            if let Some(v) = version_header(
                resume.inbound.tap(),
                stateless.is_some(),
                method.as_deref(),
                id.as_ref(),
                &version,
            ) {
                req = req.header(VERSION_HEADER, v);
            }
            let req = req.body(text);
            let p_resume = resume.clone();
            let p_stateless = stateless.is_some();
            // This request's own stop, so its stream can be ended alone.
            let own_stop = stop.child_token();
            if let (Some(id), Ok(mut open)) = (&id, streams.lock()) {
                open.insert(id.to_string(), own_stop.clone());
            }
            let p_streams = streams.clone();
            // Each POST runs on its own: a long request must not block the
            // answer to a server request made while it is open.
            let (sent_tx, sent_rx) = oneshot::channel::<()>();
            tokio::spawn(async move {
                let Resume {
                    inbound: p_inbound,
                    session: p_session,
                    version: p_version,
                    ..
                } = p_resume.clone();
                let p_stop = own_stop;
                let _forget = ForgetStream(p_streams, id.clone());
                let resp = tokio::select! {
                    _ = p_stop.cancelled() => return,
                    r = send_authorized(req, p_resume.auth.as_ref()) => r,
                };
                match resp {
                    Err(e) => {
                        let _ = sent_tx.send(());
                        if let Some(id) = id {
                            p_inbound.fail_request(&id, e.to_string());
                        }
                    }
                    Ok(resp) => {
                        if let Some(s) = resp
                            .headers()
                            .get(SESSION_HEADER)
                            .and_then(|h| h.to_str().ok())
                            && !p_stateless
                            && let Ok(mut cur) = p_session.lock()
                        {
                            *cur = Some(s.to_string());
                        }
                        let _ = sent_tx.send(());
                        let status = resp.status();
                        if status.is_success() {
                            let end = read_body(resp, &p_inbound, &p_stop, method.as_deref()).await;
                            if !p_stateless {
                                if let Ok(mut v) = p_version.lock()
                                    && v.is_none()
                                {
                                    *v = negotiated_version(&p_inbound);
                                }
                                if let Some(id) = &id {
                                    p_resume.resume(id, method.as_deref(), end).await;
                                }
                            }
                        } else {
                            let headers = resp.headers().clone();
                            let body = error_text(resp).await;
                            if p_stateless
                                && let Some(id) = &id
                                && json_rpc_error_body(&body, id)
                            {
                                p_inbound.deliver_http(
                                    &body,
                                    method.as_deref(),
                                    Some(status.as_u16()),
                                );
                                return;
                            }
                            let mut msg = describe_http_error(status, &headers, &body);
                            if is_initialize {
                                msg.push_str(
                                    transport_hint(status.as_u16(), false).unwrap_or_default(),
                                );
                            }
                            match id {
                                Some(id) => p_inbound.fail_request(&id, msg),
                                None => {
                                    let idx = p_inbound.tap().mark();
                                    p_inbound.tap().problem(
                                        idx,
                                        format!("the server refused a notification: {msg}"),
                                    );
                                }
                            }
                        }
                    }
                }
            });
            // Keep POSTs in order of sending: wait until this one is on the
            // wire (its headers answered) before starting the next, but only
            // briefly: a server that holds a request's answer headers back
            // (a hung call answered in JSON) must not hold up the requests
            // after it, which it may well answer at once.
            let _ = tokio::time::timeout(ORDER_WAIT, sent_rx).await;
            if is_initialized && !get_stream_opened {
                get_stream_opened = true;
                let opened = open_get_stream(&resume);
                // The stream is open (or refused) before the next request
                // goes out, so a server that answers a request on the GET
                // stream (or resumes one there) sees them in that order.
                let _ = tokio::time::timeout(GET_STREAM_WAIT, opened).await;
            }
        }
    });
    Ok(state)
}

/// The `MCP-Protocol-Version` a POST of `method` carries: in a stateless
/// session the one a probe asked for that method, if any (see
/// [`Tap::send_version_header`]), else the session's version. The request's
/// recorded event notes it, for captures.
fn version_header(
    tap: &Tap,
    stateless: bool,
    method: Option<&str>,
    id: Option<&Value>,
    version: &Mutex<Option<String>>,
) -> Option<String> {
    let asked = method
        .filter(|_| stateless)
        .and_then(|m| tap.take_version_header(m));
    let v = asked.or_else(|| version.lock().ok().and_then(|v| v.clone()))?;
    if let Some(id) = id {
        tap.note_version_header(id, &v);
    }
    Some(v)
}

/// The version `initialize` agreed on, for the `MCP-Protocol-Version` header
/// of the requests after it. `initialize` negotiates only handshake revisions:
/// an answer naming a stateless one (2026-07-28) is not adopted, and the
/// session goes on with the version the client asked for.
fn negotiated_version(inbound: &Inbound) -> Option<String> {
    let events = inbound.tap().all();
    let answered = events.iter().find_map(|e| {
        e.json
            .as_ref()?
            .pointer("/result/protocolVersion")?
            .as_str()
            .map(str::to_string)
    });
    answered
        .filter(|v| !mcpcheck_core::suite::is_stateless(v))
        .or_else(|| {
            events.iter().find_map(|e| {
                (e.dir == super::tap::Dir::Out && e.method() == Some("initialize"))
                    .then(|| {
                        e.json
                            .as_ref()?
                            .pointer("/params/protocolVersion")?
                            .as_str()
                    })
                    .flatten()
                    .map(str::to_string)
            })
        })
}

/// How long the writer waits for a POST's answer headers before sending the
/// next message (see the writer loop).
const ORDER_WAIT: Duration = Duration::from_millis(300);

/// `req`, the 2026-07-28 POST of `text` (request `id`), with the MCP headers
/// it goes out with, noted on its recorded event for captures.
fn with_mcp_headers(
    mut req: reqwest::RequestBuilder,
    tap: &Tap,
    text: &str,
    id: Option<&Value>,
) -> reqwest::RequestBuilder {
    let asked = message_method(text).and_then(|m| tap.take_headers(&m));
    let sent = mcp_headers(routing_headers(text), asked);
    if let Some(id) = id {
        tap.note_request_headers(id, sent.clone());
    }
    for (name, value) in sent {
        req = req.header(name, value);
    }
    req
}

/// The MCP headers of one 2026-07-28 POST: the ones mirroring its body, with
/// `change` applied (a header set, added or left out; see
/// [`super::tap::Tap::send_headers`]).
fn mcp_headers(
    mirrored: Vec<(&'static str, String)>,
    change: Option<super::tap::HeaderChange>,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = mirrored
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect();
    for (name, value) in change.unwrap_or_default() {
        let name = name.to_ascii_lowercase();
        headers.retain(|(n, _)| *n != name);
        if let Some(value) = value {
            headers.push((name, value));
        }
    }
    headers
}

/// How long the first request after `notifications/initialized` waits for
/// the GET stream's answer.
const GET_STREAM_WAIT: Duration = Duration::from_secs(1);

/// Open the GET stream for server-initiated messages; the receiver fires
/// once the server answered the GET (or it failed).
fn open_get_stream(resume: &Resume) -> oneshot::Receiver<()> {
    let Resume {
        client,
        url,
        headers,
        session,
        version,
        inbound,
        stop,
        auth,
    } = resume.clone();
    let (opened_tx, opened_rx) = oneshot::channel::<()>();
    let mut req = client
        .get(url)
        .headers(headers.clone())
        .header(ACCEPT, "text/event-stream");
    if let Some(s) = session.lock().ok().and_then(|s| s.clone()) {
        req = req.header(SESSION_HEADER, s);
    }
    if let Some(v) = version.lock().ok().and_then(|v| v.clone()) {
        req = req.header(VERSION_HEADER, v);
    }
    tokio::spawn(async move {
        let resp = tokio::select! {
            _ = stop.cancelled() => return,
            r = send_authorized(req, auth.as_ref()) => r,
        };
        let _ = opened_tx.send(());
        // 405: the server offers no stream; any other failure is not fatal
        // for requests, which carry their own answers.
        if let Ok(resp) = resp
            && resp.status().is_success()
        {
            read_body(resp, &inbound, &stop, None).await;
        }
    });
    opened_rx
}

/// A legacy SSE session: the stream reader and the POST endpoint.
pub struct SseSession {
    stop: CancellationToken,
}

impl SseSession {
    pub fn close(self) {
        self.stop.cancel();
    }
}

/// Connect to a legacy SSE server: GET the stream, wait for its `endpoint`
/// event (up to `wait`), then POST every outgoing message there.
pub async fn legacy_sse(
    url: &str,
    headers: &[(String, String)],
    inbound: Inbound,
    mut out: mpsc::UnboundedReceiver<String>,
    wait: Duration,
    auth: Option<Authorizer>,
) -> Result<SseSession, HttpError> {
    let client = client()?;
    let mut headers = header_map(headers)?;
    // The stream's GET cannot be sent again after a 401, so the token is
    // there before it; it is not renewed during the session.
    if let Some(auth) = auth {
        let token = tokio::time::timeout(wait, auth.token_up_front())
            .await
            .map_err(|_| HttpError::TokenTimeout {
                url: url.to_string(),
                secs: wait.as_secs(),
            })??;
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| HttpError::TokenHeader)?;
        value.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    let base = reqwest::Url::parse(url).map_err(|e| HttpError::Url {
        url: url.to_string(),
        detail: e.to_string(),
    })?;
    let resp = tokio::time::timeout(
        wait,
        client
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send(),
    )
    .await
    .map_err(|_| HttpError::NoAnswer {
        url: url.to_string(),
        secs: wait.as_secs(),
    })?
    .map_err(|source| HttpError::Connect {
        url: url.to_string(),
        source,
    })?;
    if !resp.status().is_success() {
        let status = resp.status();
        let h = resp.headers().clone();
        let body = error_text(resp).await;
        return Err(HttpError::Refused {
            url: url.to_string(),
            why: format!(
                "{}{}",
                describe_http_error(status, &h, &body),
                transport_hint(status.as_u16(), true).unwrap_or_default()
            ),
        });
    }
    let mut events = SseStream::from_bytes_stream(bounded_stream(resp, MAX_BYTES, inbound.clone()));
    let endpoint = tokio::time::timeout(wait, async {
        while let Some(ev) = events.next().await {
            match ev {
                Ok(ev) if ev.event.as_deref() == Some("endpoint") => return ev.data,
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
        None
    })
    .await
    .map_err(|_| HttpError::NoEndpoint {
        url: url.to_string(),
        secs: wait.as_secs(),
    })?
    .ok_or_else(|| HttpError::StreamClosed(url.to_string()))?;
    let post_url = base
        .join(endpoint.trim())
        .map_err(|e| HttpError::Endpoint {
            endpoint: endpoint.clone(),
            detail: e.to_string(),
        })?;

    let stop = CancellationToken::new();
    let reader_inbound = inbound.clone();
    let reader_stop = stop.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = reader_stop.cancelled() => break,
                next = events.next() => match next {
                    Some(Ok(ev)) => {
                        let is_message = ev.event.as_deref().is_none_or(|e| e == "message");
                        if let (true, Some(data)) = (is_message, ev.data) {
                            reader_inbound.deliver(&data);
                        }
                        if reader_inbound.is_exceeded() {
                            break;
                        }
                    }
                    _ => break,
                },
            }
        }
    });
    let writer_stop = stop.clone();
    tokio::spawn(async move {
        while let Some(text) = out.recv().await {
            if writer_stop.is_cancelled() {
                break;
            }
            let id = request_id(&text);
            let resp = client
                .post(post_url.clone())
                .headers(headers.clone())
                .header(CONTENT_TYPE, "application/json")
                .body(text)
                .send()
                .await;
            match resp {
                Ok(r) if r.status().is_success() => {}
                Ok(r) => {
                    let status = r.status();
                    let h = r.headers().clone();
                    let body = error_text(r).await;
                    if let Some(id) = id {
                        inbound.fail_request(&id, describe_http_error(status, &h, &body));
                    }
                }
                Err(e) => {
                    if let Some(id) = id {
                        inbound
                            .fail_request(&id, format!("HTTP request failed: {}", with_causes(&e)));
                    }
                }
            }
        }
    });
    Ok(SseSession { stop })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_headers_that_http_refuses_are_named() {
        let said = |k: &str, v: &str| {
            header_map(&[(k.to_string(), v.to_string())])
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(said("X-Key", "v"), None);
        assert_eq!(
            said("bad name", "v").as_deref(),
            Some("`bad name` is not a valid HTTP header name")
        );
        assert_eq!(
            said("X-Key", "a\nb").as_deref(),
            Some("the value of header `X-Key` is not valid in HTTP")
        );
    }

    #[test]
    fn routing_headers_mirror_the_method_and_name() {
        let call =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather"}}"#;
        assert_eq!(
            routing_headers(call),
            [
                ("mcp-method", "tools/call".to_string()),
                ("mcp-name", "get_weather".to_string())
            ]
        );
        let read =
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a b"}}"#;
        assert_eq!(
            routing_headers(read)[1],
            ("mcp-name", "file:///a b".to_string())
        );
        let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"name":"x"}}"#;
        assert_eq!(
            routing_headers(list),
            [("mcp-method", "tools/list".to_string())]
        );
        assert!(routing_headers(r#"{"jsonrpc":"2.0","id":4,"result":{}}"#).is_empty());
    }

    #[test]
    fn asked_header_changes_replace_add_and_leave_out_mirrored_headers() {
        let mirrored = || {
            vec![
                ("mcp-method", "tools/call".to_string()),
                ("mcp-name", "echo".to_string()),
            ]
        };
        assert_eq!(
            mcp_headers(mirrored(), None),
            [
                ("mcp-method".to_string(), "tools/call".to_string()),
                ("mcp-name".to_string(), "echo".to_string())
            ]
        );
        let change = vec![
            ("Mcp-Name".to_string(), Some("other".to_string())),
            ("mcp-method".to_string(), None),
            ("mcp-param-region".to_string(), Some("eu".to_string())),
        ];
        assert_eq!(
            mcp_headers(mirrored(), Some(change)),
            [
                ("mcp-name".to_string(), "other".to_string()),
                ("mcp-param-region".to_string(), "eu".to_string())
            ]
        );
    }

    #[test]
    fn a_name_unsafe_in_a_header_is_sent_in_base64() {
        assert_eq!(header_text("plain name"), "plain name");
        // "café": not ASCII.
        assert_eq!(header_text("caf\u{e9}"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(header_text(" padded"), "=?base64?IHBhZGRlZA==?=");
        assert_eq!(header_text("a\nb"), "=?base64?YQpi?=");
        // A plain value in the sentinel's shape is encoded, so it is not read
        // as encoded.
        assert_eq!(
            header_text("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn only_a_json_rpc_error_for_the_request_is_taken_as_its_answer() {
        let id = serde_json::json!(7);
        let body = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"Unsupported protocol version"}}"#;
        assert!(json_rpc_error_body(body, &id));
        assert!(!json_rpc_error_body(body, &serde_json::json!(8)));
        assert!(!json_rpc_error_body("Bad Request", &id));
        assert!(!json_rpc_error_body(r#"{"error":"no session"}"#, &id));
    }

    #[test]
    fn an_html_error_page_reads_as_its_text() {
        let page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /sse</pre>\n</body>\n</html>\n";
        let status = reqwest::StatusCode::NOT_FOUND;
        assert_eq!(
            describe_http_error(status, &HeaderMap::new(), page),
            "HTTP 404 Not Found: Cannot POST /sse"
        );
        // Anything else is quoted as it came.
        let json = r#"{"error":"Session ID is required"}"#;
        assert_eq!(
            describe_http_error(status, &HeaderMap::new(), json),
            format!("HTTP 404 Not Found: {json}")
        );
        assert_eq!(html_text("<b>bold</b>"), None);
    }

    #[test]
    fn an_error_names_its_causes() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error sending request")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let refused =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused");
        assert_eq!(
            with_causes(&Outer(refused)),
            "error sending request: Connection refused"
        );
    }

    #[test]
    fn statuses_that_mean_the_other_transport_get_a_hint() {
        assert!(
            transport_hint(400, true)
                .unwrap()
                .contains("`transport: http`")
        );
        assert!(
            transport_hint(405, false)
                .unwrap()
                .contains("`transport: sse`")
        );
        // A refused credential or a server error is not a transport mix-up.
        assert_eq!(transport_hint(401, true), None);
        assert_eq!(transport_hint(400, false), None);
        assert_eq!(transport_hint(500, false), None);
    }
}
