//! Intercept on Streamable HTTP: listen on ADDR + `--path` and forward
//! each POST, GET and DELETE to `--url` with the headers that carry the
//! session (`Mcp-Session-Id`, `MCP-Protocol-Version`, `Accept`,
//! `Content-Type`, `Authorization`, `Last-Event-ID`). The server's answer
//! comes back with its status and headers; an SSE stream is passed on
//! chunk by chunk as it arrives, and every event's data is recorded as it
//! goes by. JSON-RPC messages in request bodies, JSON answers and SSE
//! events are recorded, each under the session (`Mcp-Session-Id`) it
//! belongs to.
//!
//! The session ends after `--duration` or on SIGINT/SIGTERM.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt as _;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::Recorder;
use super::faults::{Faults, Plan};
use crate::client::tap::{Dir, MAX_MESSAGE_BYTES};
use crate::serve::http::{Body, foreign_request, plain, read_body, stop_signal};

const SESSION_HEADER: &str = "mcp-session-id";

/// The client's headers passed on to the server.
const FORWARDED: [&str; 6] = [
    "mcp-session-id",
    "mcp-protocol-version",
    "accept",
    "content-type",
    "authorization",
    "last-event-id",
];

/// The server's headers not passed back: they describe one connection.
const HOP_BY_HOP: [&str; 6] = [
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "upgrade",
    "proxy-connection",
];

#[derive(Debug)]
pub struct Options {
    pub addr: String,
    pub path: String,
    pub url: String,
    pub allow_remote: bool,
    pub duration: Option<Duration>,
    /// How long the server may take to start its answer (its headers), and
    /// a client to send a request body.
    pub request_timeout: Duration,
}

struct App {
    client: reqwest::Client,
    url: String,
    path: String,
    hosts: Vec<String>,
    request_timeout: Duration,
    recorder: Arc<Recorder>,
    faults: Arc<Faults>,
}

/// A fault cut the connection: hyper closes it without an answer.
#[derive(Debug)]
struct Cut;

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a --fault disconnect cut the connection")
    }
}

impl std::error::Error for Cut {}

/// Refuses an address that is not loopback, unless allowed.
async fn check_bind(addr: &str, allow_remote: bool) -> crate::error::Result<()> {
    let resolved: Vec<SocketAddr> = tokio::net::lookup_host(addr)
        .await
        .map_err(|e| {
            format!(
                "--http {addr}: not an address to listen on ({e}); write it like 127.0.0.1:8080"
            )
        })?
        .collect();
    if !allow_remote && resolved.iter().any(|a| !a.ip().is_loopback()) {
        return Err(format!(
            "--http {addr} is not a loopback address: anyone who can reach it could talk to the server through this proxy; listen on 127.0.0.1, or pass --allow-remote"
        )
        .into());
    }
    Ok(())
}

/// Proxies until the duration passes or a signal comes; returns how the
/// session ended, in words for the report.
pub async fn run(
    options: Options,
    recorder: Arc<Recorder>,
    faults: Arc<Faults>,
) -> crate::error::Result<String> {
    check_bind(&options.addr, options.allow_remote).await?;
    let url: reqwest::Url = options
        .url
        .parse()
        .map_err(|e| format!("--url {}: not a URL ({e})", options.url))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("--url {}: only http:// and https:// URLs", options.url).into());
    }
    // Every read from the server has the request timeout too: a server
    // that stops sending mid-answer (or mid-stream) does not hold a
    // connection for ever.
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(options.request_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
    let listener = tokio::net::TcpListener::bind(&options.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", options.addr))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let app = Arc::new(App {
        client,
        url: options.url.clone(),
        path: options.path,
        hosts: allowed_hosts(local),
        request_timeout: options.request_timeout,
        recorder,
        faults,
    });
    eprintln!(
        "mcpcheck intercept: forwarding to {}; listening on http://{local}{}",
        options.url, app.path
    );
    let stop = stop_signal();
    tokio::pin!(stop);
    let limit = async {
        match options.duration {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(limit);
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
                        async move { app.route(request).await }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(timeout)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            () = &mut stop => return Ok("interrupted (SIGINT or SIGTERM)".into()),
            () = &mut limit => {
                let d = options.duration.unwrap_or_default();
                return Ok(format!("the --duration of {} passed", crate::output::duration_text(d)));
            }
        }
    }
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

fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Why an answer's body was not passed on; the client gets a 502 saying it.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error(
        "the server at {0} answered with a body longer than {max} MiB, the most one message may be; it was not passed on (the client got a 502)",
        max = MAX_MESSAGE_BYTES >> 20
    )]
    TooLong(String),
    #[error("the server at {0} broke off its answer")]
    BrokenOff(String),
}

impl App {
    async fn route(&self, request: Request<Incoming>) -> Result<Response<Body>, Cut> {
        if let Some(refusal) = foreign_request(request.headers(), &self.hosts) {
            return Ok(plain(StatusCode::FORBIDDEN, refusal));
        }
        if request.uri().path() != self.path {
            return Ok(plain(StatusCode::NOT_FOUND, "Not Found"));
        }
        let method = request.method().clone();
        if !matches!(method, Method::POST | Method::GET | Method::DELETE) {
            let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            return Ok(response);
        }
        let (parts, body) = request.into_parts();
        let session = session_of(&parts.headers);
        let bytes = if method == Method::POST {
            match read_body(body, self.request_timeout).await {
                Ok(bytes) => bytes,
                Err(response) => return Ok(response),
            }
        } else {
            Bytes::new()
        };
        let sent = self.record_body(Dir::Out, &bytes, session.as_deref());
        self.show_requests(&bytes, session.as_deref());
        let mut upstream = self.client.request(
            reqwest::Method::from_bytes(method.as_str().as_bytes())
                .unwrap_or(reqwest::Method::POST),
            &self.url,
        );
        for name in FORWARDED {
            for value in parts.headers.get_all(name) {
                upstream = upstream.header(name, value.as_bytes());
            }
        }
        if method == Method::POST {
            upstream = upstream.body(bytes);
        }
        let answer = match tokio::time::timeout(self.request_timeout, upstream.send()).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => {
                return Ok(bad_gateway(format!(
                    "cannot reach the server at {}: {e}",
                    self.url
                )));
            }
            Err(_) => {
                return Ok(bad_gateway(format!(
                    "the server at {} did not answer within {} s",
                    self.url,
                    self.request_timeout.as_secs()
                )));
            }
        };
        // The answer to an `initialize` names the session the messages
        // sent before it belong to.
        let session = session.or_else(|| session_of(answer.headers()));
        if let Some(s) = &session {
            for index in sent {
                self.recorder.assign(index, s);
            }
        }
        self.answer(answer, session).await
    }

    /// Shows every request of a body to the faults (each message of a
    /// batch).
    fn show_requests(&self, bytes: &[u8], session: Option<&str>) {
        if !self.faults.active() {
            return;
        }
        let text = String::from_utf8_lossy(bytes);
        match serde_json::from_str::<Vec<&RawValue>>(&text) {
            Ok(batch) => {
                for m in batch {
                    self.faults.request(m.get(), session);
                }
            }
            Err(_) => self.faults.request(&text, session),
        }
    }

    /// Records the JSON-RPC messages of a body (each message of a batch);
    /// returns their indices.
    fn record_body(&self, dir: Dir, bytes: &[u8], session: Option<&str>) -> Vec<usize> {
        let text = String::from_utf8_lossy(bytes);
        if let Ok(batch) = serde_json::from_str::<Vec<&RawValue>>(&text) {
            return batch
                .iter()
                .filter_map(|m| self.recorder.record(dir, m.get(), session))
                .collect();
        }
        self.recorder
            .record(dir, &text, session)
            .into_iter()
            .collect()
    }

    /// Passes the server's answer back: status, headers and body, an SSE
    /// stream as it arrives.
    async fn answer(
        &self,
        answer: reqwest::Response,
        session: Option<String>,
    ) -> Result<Response<Body>, Cut> {
        let status =
            StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
        let mut headers = HeaderMap::new();
        for (name, value) in answer.headers() {
            if HOP_BY_HOP.contains(&name.as_str()) {
                continue;
            }
            if let (Ok(n), Ok(v)) = (
                HeaderName::from_bytes(name.as_str().as_bytes()),
                HeaderValue::from_bytes(value.as_bytes()),
            ) {
                headers.append(n, v);
            }
        }
        let kind = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let body = if kind.starts_with("text/event-stream") {
            if self.faults.active() {
                self.stream_faulty(answer, session)
            } else {
                self.stream(answer, session)
            }
        } else {
            let bytes = match self.whole_body(answer).await {
                Ok(bytes) => bytes,
                Err(why) => {
                    let why = why.to_string();
                    self.recorder.note(why.clone());
                    return Ok(bad_gateway(why));
                }
            };
            if kind.starts_with("application/json") && self.faults.active() {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                match self.faults.answer(&text, session.as_deref()) {
                    Plan::Pass | Plan::Hold => {
                        self.record_body(Dir::In, &bytes, session.as_deref());
                        Full::new(bytes).boxed()
                    }
                    Plan::Disconnect => return Err(Cut),
                    Plan::Deliver { lines, delay_ms } => {
                        if delay_ms > 0 {
                            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                        }
                        for l in &lines {
                            self.recorder.record(Dir::In, l, session.as_deref());
                        }
                        if lines.len() == 1 {
                            Full::new(Bytes::from(lines[0].clone())).boxed()
                        } else {
                            // None or several messages: an event stream of
                            // them (none: a stream that ends unanswered).
                            headers.insert(
                                header::CONTENT_TYPE,
                                HeaderValue::from_static("text/event-stream"),
                            );
                            let events: String = lines.iter().map(|l| sse_event(l)).collect();
                            Full::new(Bytes::from(events)).boxed()
                        }
                    }
                }
            } else {
                if kind.starts_with("application/json") {
                    self.record_body(Dir::In, &bytes, session.as_deref());
                }
                Full::new(bytes).boxed()
            }
        };
        let mut response = Response::new(body);
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        Ok(response)
    }

    /// [`stream`](Self::stream) with `--fault`: the server's events are
    /// read one by one and each message given its plan; what the client
    /// gets is sent as events of its data alone, and recorded. A cut ends
    /// the stream where the answer would have been.
    fn stream_faulty(&self, answer: reqwest::Response, session: Option<String>) -> Body {
        let (tx, rx) = mpsc::channel::<Bytes>(16);
        let recorder = self.recorder.clone();
        let faults = self.faults.clone();
        tokio::spawn(async move {
            let mut events = SseReader::default();
            let mut chunks = answer.bytes_stream();
            loop {
                let next = tokio::select! {
                    next = chunks.next() => next,
                    () = tx.closed() => return,
                };
                let Some(Ok(chunk)) = next else { return };
                for data in events.feed(&chunk) {
                    let lines = match faults.answer(&data, session.as_deref()) {
                        Plan::Pass => vec![data],
                        Plan::Hold => continue,
                        Plan::Disconnect => return,
                        Plan::Deliver { lines, delay_ms } => {
                            if delay_ms > 0 {
                                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                            }
                            lines
                        }
                    };
                    for l in lines {
                        recorder.record(Dir::In, &l, session.as_deref());
                        if tx.send(Bytes::from(sse_event(&l))).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let frames = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv()
                .await
                .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
        });
        http_body_util::BodyExt::boxed(StreamBody::new(frames))
    }

    /// A whole answer that is not a stream, read within the request
    /// timeout and at most one message long (80 MiB): a larger one (by its
    /// `Content-Length`, or as it arrives) is not read further, and the
    /// client gets a `502` saying why instead.
    async fn whole_body(&self, answer: reqwest::Response) -> Result<Bytes, BodyError> {
        let too_long = || BodyError::TooLong(self.url.to_string());
        if answer
            .content_length()
            .is_some_and(|n| n > MAX_MESSAGE_BYTES as u64)
        {
            return Err(too_long());
        }
        let deadline = tokio::time::Instant::now() + self.request_timeout;
        let mut chunks = answer.bytes_stream();
        let mut body = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, chunks.next()).await {
                Ok(None) => return Ok(Bytes::from(body)),
                Ok(Some(Ok(chunk))) => {
                    if body.len() + chunk.len() > MAX_MESSAGE_BYTES {
                        return Err(too_long());
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(Some(Err(_))) | Err(_) => {
                    return Err(BodyError::BrokenOff(self.url.to_string()));
                }
            }
        }
    }

    /// The SSE body of `answer`, passed on chunk by chunk; each event's
    /// data is recorded as it goes by (a message at most 80 MiB; the
    /// recording is bounded as a whole). When the client goes away, or does
    /// not take the next chunk within the request timeout, the server's
    /// stream is dropped too (as the client's own would be); a server silent
    /// for that long ends it as well.
    fn stream(&self, answer: reqwest::Response, session: Option<String>) -> Body {
        let (tx, rx) = mpsc::channel::<Bytes>(16);
        let recorder = self.recorder.clone();
        let timeout = self.request_timeout;
        tokio::spawn(async move {
            let mut events = SseReader::default();
            let mut chunks = answer.bytes_stream();
            loop {
                let next = tokio::select! {
                    next = chunks.next() => next,
                    () = tx.closed() => return,
                };
                let Some(Ok(chunk)) = next else { return };
                for data in events.feed(&chunk) {
                    recorder.record(Dir::In, &data, session.as_deref());
                }
                match tokio::time::timeout(timeout, tx.send(chunk)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(_)) => return,
                    Err(_) => {
                        recorder.note(format!(
                            "a client did not read its event stream for {}; the stream was ended",
                            crate::output::duration_text(timeout)
                        ));
                        return;
                    }
                }
            }
        });
        let frames = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv()
                .await
                .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
        });
        http_body_util::BodyExt::boxed(StreamBody::new(frames))
    }
}

/// One SSE event carrying `data` (a message on one line).
fn sse_event(data: &str) -> String {
    let mut out = String::from("event: message\n");
    for line in data.lines() {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out
}

fn bad_gateway(why: String) -> Response<Body> {
    eprintln!("mcpcheck intercept: {why}");
    let mut response = Response::new(Full::new(Bytes::from(why)).boxed());
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Reads SSE events out of chunks as they come: the data of each finished
/// event (its `data:` lines joined by newlines). An event larger than one
/// message is not kept.
#[derive(Default)]
struct SseReader {
    line: Vec<u8>,
    data: Vec<String>,
    size: usize,
}

impl SseReader {
    fn feed(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut done = Vec::new();
        for &b in chunk {
            if b != b'\n' {
                if self.line.len() <= MAX_MESSAGE_BYTES {
                    self.line.push(b);
                }
                continue;
            }
            let line = std::mem::take(&mut self.line);
            let line = line.strip_suffix(b"\r").unwrap_or(&line);
            if line.is_empty() {
                if !self.data.is_empty() && self.size <= MAX_MESSAGE_BYTES {
                    done.push(self.data.join("\n"));
                }
                self.data.clear();
                self.size = 0;
            } else if let Some(value) = line.strip_prefix(b"data:") {
                let value = value.strip_prefix(b" ").unwrap_or(value);
                self.size += value.len();
                if self.size <= MAX_MESSAGE_BYTES {
                    self.data.push(String::from_utf8_lossy(value).into_owned());
                }
            }
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_read_across_chunks_and_line_ends() {
        let mut r = SseReader::default();
        // A priming event: an id, a retry hint and empty data.
        assert_eq!(r.feed(b"id: 1\nretry: 3000\ndata:\n\n"), [""]);
        assert_eq!(
            r.feed(b"event: message\ndata: {\"a\":"),
            Vec::<String>::new()
        );
        assert_eq!(r.feed(b"1}\n"), Vec::<String>::new());
        assert_eq!(
            r.feed(b"\ndata: x\r\ndata: y\r\n\r\n"),
            ["{\"a\":1}", "x\ny"]
        );
    }
}
