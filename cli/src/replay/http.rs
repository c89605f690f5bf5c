//! Replay over Streamable HTTP, written directly on hyper (rmcp's server
//! would re-encode the recorded answers; a replay sends them as recorded).
//!
//! `POST` carries client messages: an `initialize` without `Mcp-Session-Id`
//! opens a session (its id comes back in that header); every other POST
//! must carry the id (400 without it, 404 for an unknown one). A request's
//! answer is a plain JSON body when it is a single message and the client's
//! `Accept` weighs JSON at least as high as SSE; otherwise an SSE stream of
//! the recorded notifications, server requests and the response. What was
//! recorded after the response goes to the session's `GET` stream when one
//! is open, else at the end of the POST's stream. Notifications and the
//! client's answers get `202`; `DELETE` ends the session (`200`). The
//! `Host`/`Origin` checks are `mcpcheck serve`'s.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use futures::stream;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use mcpcheck_core::replay::{Library, Out, Replayer};
use serde_json::Value;
use sse_stream::Sse;
use tokio::sync::{mpsc, oneshot};

use super::{ASK_TIMEOUT, answers, method_of};
use crate::serve::http::{
    Body, foreign_request, plain, prefers_json, read_body, sse_response, stop_signal,
};

const SESSION_HEADER: &str = "mcp-session-id";

/// The most sessions open at once; an `initialize` past it gets 503.
const MAX_SESSIONS: usize = 1000;

#[derive(Debug)]
pub struct Options {
    pub addr: String,
    pub path: String,
    pub request_timeout: Duration,
}

/// One client session.
struct Session {
    replayer: tokio::sync::Mutex<Replayer<'static>>,
    /// Server requests waiting for the client's answer, by id (as JSON).
    pending: Mutex<HashMap<String, oneshot::Sender<()>>>,
    /// The GET stream, while one is open.
    stream: Mutex<Option<mpsc::UnboundedSender<Sse>>>,
}

struct App {
    library: &'static Library,
    path: String,
    hosts: Vec<String>,
    request_timeout: Duration,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

/// Serves until SIGINT or SIGTERM.
pub async fn serve(library: &'static Library, options: Options) -> crate::error::Result<ExitCode> {
    let listener = tokio::net::TcpListener::bind(&options.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.addr))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let app = Arc::new(App {
        library,
        path: options.path,
        hosts: allowed_hosts(local),
        request_timeout: options.request_timeout,
        sessions: Mutex::new(HashMap::new()),
    });
    let (sessions, requests) = library.size();
    eprintln!(
        "mcpcheck replay: {} and {} recorded; listening on http://{local}{}",
        mcpcheck_core::report::plural(sessions, "session", "sessions"),
        mcpcheck_core::report::plural(requests, "request", "requests"),
        app.path
    );
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                let app = app.clone();
                tokio::spawn(async move {
                    let timeout = app.request_timeout;
                    let service = hyper::service::service_fn(move |request| {
                        let app = app.clone();
                        async move { Ok::<_, Infallible>(app.route(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(timeout)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            () = &mut stop => break,
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Loopback hosts, plus the bound address when it is not loopback; any
/// host when bound to all interfaces (as `mcpcheck serve`).
fn allowed_hosts(local: SocketAddr) -> Vec<String> {
    let ip = local.ip();
    if ip.is_unspecified() {
        return Vec::new();
    }
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    if !ip.is_loopback() {
        hosts.push(ip.to_string());
    }
    hosts
}

fn json_body(status: StatusCode, body: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn sse_of(events: impl futures::Stream<Item = Sse> + Send + Sync + 'static) -> Response<Body> {
    let mut response = sse_response(Response::new(()).into_parts().0, events);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The events sent into `rx`, as a stream that ends when every sender is gone.
fn events(rx: mpsc::UnboundedReceiver<Sse>) -> impl futures::Stream<Item = Sse> + Send + Sync {
    stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) })
}

fn event(out: &Out) -> Sse {
    match out {
        Out::Send(m) => Sse::default().data(m.to_string()),
        Out::Raw(text) => Sse::default().data(text.clone()),
        Out::Ask { request, .. } => Sse::default().data(request.to_string()),
    }
}

impl App {
    async fn route(&self, request: Request<Incoming>) -> Response<Body> {
        if let Some(refusal) = foreign_request(request.headers(), &self.hosts) {
            return plain(StatusCode::FORBIDDEN, refusal);
        }
        if request.uri().path() != self.path {
            return plain(StatusCode::NOT_FOUND, "Not Found");
        }
        match *request.method() {
            Method::POST => self.post(request).await,
            Method::GET => self.open_stream(&request),
            Method::DELETE => self.delete(&request),
            _ => {
                let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
                response
                    .headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                response
            }
        }
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The session a request names, or the status and text that say why not.
    fn session_of(
        &self,
        request: &Request<Incoming>,
    ) -> Result<Arc<Session>, (StatusCode, &'static str)> {
        let Some(id) = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        else {
            return Err((
                StatusCode::BAD_REQUEST,
                "Bad Request: Mcp-Session-Id header is required (initialize first)",
            ));
        };
        self.sessions()
            .get(id)
            .cloned()
            .ok_or((StatusCode::NOT_FOUND, "Not Found: no such session"))
    }

    fn open_stream(&self, request: &Request<Incoming>) -> Response<Body> {
        let session = match self.session_of(request) {
            Ok(s) => s,
            Err((status, why)) => return plain(status, why),
        };
        let (tx, rx) = mpsc::unbounded_channel();
        *session
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(tx);
        sse_of(events(rx))
    }

    fn delete(&self, request: &Request<Incoming>) -> Response<Body> {
        let id = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        match id.and_then(|id| self.sessions().remove(&id)) {
            Some(_) => plain(StatusCode::OK, ""),
            None => plain(StatusCode::NOT_FOUND, "Not Found: no such session"),
        }
    }

    async fn post(&self, request: Request<Incoming>) -> Response<Body> {
        let prefer_json = prefers_json(request.headers());
        let has_session = request.headers().contains_key(SESSION_HEADER);
        let session = has_session.then(|| self.session_of(&request));
        // The body is read whatever the answer, so the connection stays
        // usable for the client's next request.
        let bytes = match read_body(request.into_body(), self.request_timeout).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        let session = match session {
            Some(Ok(s)) => Some(s),
            Some(Err((status, why))) => return plain(status, why),
            None => None,
        };
        let message: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                let error = serde_json::json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": format!("Parse error: {e}")}});
                return json_body(StatusCode::BAD_REQUEST, error.to_string());
            }
        };
        let (session, new_id) = match session {
            Some(s) => (s, None),
            None if message.get("method").and_then(Value::as_str) == Some("initialize") => {
                if self.sessions().len() >= MAX_SESSIONS {
                    return plain(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "Service Unavailable: too many open sessions; end one with DELETE",
                    );
                }
                let id = uuid::Uuid::new_v4().simple().to_string();
                let s = Arc::new(Session {
                    replayer: tokio::sync::Mutex::new(Replayer::new(self.library)),
                    pending: Mutex::new(HashMap::new()),
                    stream: Mutex::new(None),
                });
                self.sessions().insert(id.clone(), s.clone());
                (s, Some(id))
            }
            None => {
                return plain(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: Mcp-Session-Id header is required (initialize first)",
                );
            }
        };
        let mut response = answer(&session, &message, prefer_json).await;
        if let Some(id) = new_id
            && let Ok(value) = HeaderValue::from_str(&id)
        {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        response
    }
}

/// The answer to one POSTed message of `session`.
async fn answer(session: &Arc<Session>, message: &Value, prefer_json: bool) -> Response<Body> {
    let id = message.get("id").cloned();
    if message.get("method").is_none() {
        // The client's answer to a server request.
        if let Some(id) = &id
            && let Some(waiting) = session
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id.to_string())
        {
            let _ = waiting.send(());
        }
        return plain(StatusCode::ACCEPTED, "");
    }
    let reply = session.replayer.lock().await.receive(message);
    if let Some(why) = &reply.unmatched {
        eprintln!("mcpcheck replay: {why}");
    }
    let Some(id) = id else {
        return plain(StatusCode::ACCEPTED, "");
    };
    let mut outs = reply.outs;
    // What follows the response goes to the GET stream when one is open.
    let at = outs
        .iter()
        .position(|o| matches!(o, Out::Send(v) if answers(v, &id)));
    let trailing = match at {
        Some(at) => outs.split_off(at + 1),
        None => Vec::new(),
    };
    if prefer_json
        && trailing.is_empty()
        && let [Out::Send(only)] = outs.as_slice()
        && at.is_some()
    {
        return json_body(StatusCode::OK, only.to_string());
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let session = session.clone();
    tokio::spawn(async move {
        for out in outs {
            if !emit(&session, out, &tx).await {
                return;
            }
        }
        // What followed the response goes to the GET stream when one is
        // open, else after the response on this one.
        let get = session
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .filter(|s| !s.is_closed());
        for out in trailing {
            let sink = get.as_ref().unwrap_or(&tx);
            if !emit(&session, out, sink).await {
                return;
            }
        }
        if at.is_none() {
            // Recorded without a response (the server hung): so does the
            // replay, until the client gives up.
            tx.closed().await;
        }
    });
    sse_of(events(rx))
}

/// Sends `out` into `sink`; for a server request, then waits for the
/// client's answer (at most [`ASK_TIMEOUT`]). False when the client is gone.
async fn emit(session: &Session, out: Out, sink: &mpsc::UnboundedSender<Sse>) -> bool {
    let ask = match &out {
        Out::Ask { id, request } => {
            let (done, wait) = oneshot::channel();
            session
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id.to_string(), done);
            Some((wait, id.clone(), method_of(request).to_string()))
        }
        _ => None,
    };
    if sink.send(event(&out)).is_err() {
        return false;
    }
    if let Some((wait, id, method)) = ask
        && tokio::time::timeout(ASK_TIMEOUT, wait).await.is_err()
    {
        session
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id.to_string());
        eprintln!(
            "mcpcheck replay: the client did not answer {method} (id {id}) within {} s; going on without its answer",
            ASK_TIMEOUT.as_secs()
        );
    }
    true
}
