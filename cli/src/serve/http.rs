//! Serving over HTTP: Streamable HTTP at `--path` (rmcp's
//! `StreamableHttpService`, with sessions, the GET stream and DELETE), and
//! the legacy HTTP+SSE transport at `/sse` + `/message` (see `legacy.rs`).
//!
//! Around rmcp this module adds:
//! - authentication (`--api-key`, `--bearer`): 401 with `WWW-Authenticate`
//!   before rmcp sees the request, and the caller's [`Identity`] attached to
//!   the request for `whoami` and the audit log;
//! - the response format: rmcp answers every POST with an SSE stream; when
//!   the client's `Accept` weighs JSON at least as high as SSE and the answer
//!   is a single message, it is sent as a plain `application/json` body
//!   instead. Answers with notifications or server requests before the
//!   response (progress, sampling, ...) stay SSE;
//! - wire faults, applied to the messages of POST responses;
//! - `200` for a completed DELETE, where rmcp says `202`.
//!
//! The same transport serves any rmcp handler ([`serve_handler`]): `mcpcheck
//! mcp` is served through it, without the reference server's legacy SSE and
//! 2026-07-28 fronts.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::{StreamExt as _, stream};
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use sse_stream::{Sse, SseBody, SseStream};
use tokio_util::sync::CancellationToken;

use super::auth::{Credentials, Identity, Refusal};
use super::faults::{Fault, FaultSet, WireFaults, WireTap};
use super::handler::{Session, Shared};
use super::legacy::Legacy;
use super::modern::{self, Modern};
use super::oauth::OAuth;

pub type Body = BoxBody<Bytes, Infallible>;

/// Largest request body accepted, as rmcp's own limit.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How long the accept loop waits after a failed accept (e.g. at the
/// file-descriptor limit) before it tries again.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

pub const LEGACY_SSE_PATH: &str = "/sse";
pub const LEGACY_MESSAGE_PATH: &str = "/message";

/// Where the protected-resource metadata (RFC 9728) is served with
/// `--bearer`: here, and here followed by the endpoint's path.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The resource `bad-resource-metadata` names instead of the server's URL.
const FOREIGN_RESOURCE: &str = "https://evil.example/mcp";

#[derive(Debug)]
pub struct Options {
    pub addr: String,
    pub path: String,
    pub credentials: Credentials,
    /// The most sessions open at once, both transports together.
    pub max_sessions: usize,
    /// How long a client may take to send a request's headers and body.
    pub request_timeout: Duration,
    /// `--oauth`: the built-in authorization server.
    pub oauth: Option<Arc<OAuth>>,
    /// `--public-url`: the origin clients reach this server at
    /// (`scheme://host[:port]`), beside the loopback ones.
    pub public_url: Option<String>,
}

struct App<S: ServerHandler + Send + 'static> {
    mcp: StreamableHttpService<S, LocalSessionManager>,
    /// The same session manager, to answer a DELETE of an unknown session.
    sessions: Arc<LocalSessionManager>,
    /// The legacy HTTP+SSE transport, when served.
    legacy: Option<Arc<Legacy>>,
    path: String,
    credentials: Credentials,
    wire: WireFaults,
    /// The hosts a request's `Host` and `Origin` may name (empty: any).
    hosts: Vec<String>,
    max_sessions: usize,
    request_timeout: Duration,
    faults: FaultSet,
    /// The counter ids of `guessable-session-ids`.
    aliases: std::sync::Mutex<Aliases>,
    /// The 2026-07-28 front, for POSTs outside a legacy session, when
    /// served.
    modern: Option<Arc<Modern>>,
    oauth: Option<Arc<OAuth>>,
    /// The origins this server answers as (`http://127.0.0.1:PORT`, …),
    /// the one it names itself by first: the OAuth issuer, the resource
    /// tokens are bound to and the resource metadata use the one a
    /// request's `Host` names when it is among them, else the first, so
    /// a `Host` header never chooses the audience a token must have.
    origins: Vec<String>,
}

/// The reference server's fronts beside rmcp's sessions: the legacy SSE
/// transport and the 2026-07-28 front. Another handler has neither.
pub struct Fronts {
    pub legacy: Option<Arc<Legacy>>,
    pub modern: Option<Arc<Modern>>,
}

/// Under `guessable-session-ids`, the id each session is known by outside:
/// `1`, `2`, `3`, … in the order the sessions open, standing for rmcp's own.
#[derive(Debug, Default)]
struct Aliases {
    real: std::collections::HashMap<String, String>,
    alias: std::collections::HashMap<String, String>,
    opened: u64,
}

impl Aliases {
    fn alias_of(&mut self, real: &str) -> String {
        if let Some(alias) = self.alias.get(real) {
            return alias.clone();
        }
        self.opened += 1;
        let alias = self.opened.to_string();
        self.alias.insert(real.to_owned(), alias.clone());
        self.real.insert(alias.clone(), real.to_owned());
        alias
    }
}

/// Serves the reference server until SIGINT or SIGTERM.
pub async fn serve(shared: Arc<Shared>, options: Options) -> crate::error::Result<ExitCode> {
    let factory_shared = shared.clone();
    let factory = move || {
        Ok(Session::new(
            factory_shared.clone(),
            None,
            CancellationToken::new(),
        ))
    };
    let private = options.credentials.required();
    let fronts = |shutdown: &CancellationToken| Fronts {
        legacy: Some(Arc::new(Legacy::new(
            shared.clone(),
            shutdown.child_token(),
        ))),
        modern: Some(Arc::new(Modern::new(shared.clone(), private))),
    };
    let faults = shared.faults.clone();
    serve_handler("mcpcheck serve", factory, fronts, faults, options).await
}

/// Serves the sessions `factory` makes, beside the `fronts`, until SIGINT
/// or SIGTERM; `name` begins the line that gives the URL on stderr.
pub async fn serve_handler<S: ServerHandler + Send + 'static>(
    name: &str,
    factory: impl Fn() -> Result<S, std::io::Error> + Send + Sync + 'static,
    fronts: impl FnOnce(&CancellationToken) -> Fronts,
    faults: FaultSet,
    options: Options,
) -> crate::error::Result<ExitCode> {
    let listener = match tokio::net::TcpListener::bind(&options.addr).await {
        Ok(listener) => listener,
        Err(error) => {
            return Err(format!("cannot listen on {}: {error}", options.addr).into());
        }
    };
    let local = match listener.local_addr() {
        Ok(local) => local,
        Err(error) => {
            return Err(format!("cannot read the bound address: {error}").into());
        }
    };
    let shutdown = CancellationToken::new();
    let sessions = Arc::new(LocalSessionManager::default());
    let config = allowed_hosts(
        StreamableHttpServerConfig::default().with_cancellation_token(shutdown.child_token()),
        local,
    );
    let config = if faults.has(Fault::NoOriginCheck) {
        config.disable_allowed_hosts()
    } else {
        config
    };
    let hosts = config.allowed_hosts.clone();
    let mcp = StreamableHttpService::new(factory, sessions.clone(), config);
    let Fronts { legacy, modern } = fronts(&shutdown);
    let origins = origins(local, options.public_url.as_deref());
    let app = Arc::new(App {
        mcp,
        sessions,
        legacy,
        path: options.path,
        credentials: options.credentials,
        wire: faults.wire(),
        hosts,
        max_sessions: options.max_sessions,
        request_timeout: options.request_timeout,
        faults,
        aliases: std::sync::Mutex::default(),
        modern,
        oauth: options.oauth,
        origins,
    });
    // One line, which those who start the server wait for.
    let mut also = Vec::new();
    if app.legacy.is_some() {
        also.push(format!("legacy SSE: http://{local}{LEGACY_SSE_PATH}"));
    }
    if app.oauth.is_some() {
        also.push(format!(
            "OAuth issuer: {}",
            app.origins.first().map_or("", String::as_str)
        ));
    }
    let also = if also.is_empty() {
        String::new()
    } else {
        format!(" ({})", also.join("; "))
    };
    eprintln!("{name}: listening on http://{local}{}{also}", app.path);

    let stop = stop_signal();
    tokio::pin!(stop);
    let mut accept_failing = false;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => {
                        accept_failing = false;
                        stream
                    }
                    Err(error) => {
                        // Out of file descriptors (or another passing
                        // failure): accept would fail again at once, so
                        // wait instead of spinning, and say so once.
                        if !accept_failing {
                            eprintln!("{name}: cannot accept a connection: {error}; retrying every {} ms", ACCEPT_RETRY.as_millis());
                            accept_failing = true;
                        }
                        tokio::time::sleep(ACCEPT_RETRY).await;
                        continue;
                    }
                };
                let app = app.clone();
                let request_timeout = app.request_timeout;
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let app = app.clone();
                        async move { Ok::<_, Infallible>(app.route(request).await) }
                    });
                    // A connection that fails mid-way concerns only its client.
                    // The timer arms the limit on reading request headers, so
                    // a stalled client cannot hold a task forever (bodies
                    // are held to the same limit by `read_body`).
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(request_timeout)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            () = &mut stop => break,
        }
    }
    shutdown.cancel();
    Ok(ExitCode::SUCCESS)
}

/// The origins a server bound at `local` answers as, the one it names
/// itself by first: `public` (`--public-url`) when given, else the bound
/// address (`http://127.0.0.1:PORT` for all interfaces); then the loopback
/// names at the bound port (for a server bound to loopback or to all
/// interfaces) or the bound address.
fn origins(local: SocketAddr, public: Option<&str>) -> Vec<String> {
    let port = local.port();
    let ip = local.ip();
    let at = |host: &str| format!("http://{host}:{port}");
    let bound = if ip.is_unspecified() {
        at("127.0.0.1")
    } else {
        format!("http://{local}")
    };
    let mut out: Vec<String> = public.map(str::to_string).into_iter().collect();
    out.push(bound);
    if ip.is_loopback() || ip.is_unspecified() {
        out.extend([at("127.0.0.1"), at("localhost"), at("[::1]")]);
    }
    let mut seen = Vec::new();
    out.retain(|o| {
        let fresh = !seen.contains(o);
        seen.push(o.clone());
        fresh
    });
    out
}

/// Why a request's `Host` or `Origin` names a host this server does not
/// answer to (`hosts` empty: any host is fine), or `None`.
pub(crate) fn foreign_request(headers: &http::HeaderMap, hosts: &[String]) -> Option<&'static str> {
    if hosts.is_empty() {
        return None;
    }
    let allowed = |host: &str| {
        let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
        hosts
            .iter()
            .any(|h| h.trim_matches(['[', ']']).eq_ignore_ascii_case(&host))
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let host_ok = host
        .and_then(|h| http::uri::Authority::try_from(h).ok())
        .is_some_and(|a| allowed(a.host()));
    if !host_ok {
        return Some("Forbidden: Host header is not allowed");
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin_ok = origin
            .to_str()
            .ok()
            .and_then(|o| o.parse::<http::Uri>().ok())
            .and_then(|u| u.host().map(str::to_string))
            .is_some_and(|h| allowed(&h));
        if !origin_ok {
            return Some("Forbidden: Origin is not allowed");
        }
    }
    None
}

/// rmcp only accepts loopback `Host` headers by default, against DNS
/// rebinding. A server bound to a specific address also accepts that
/// address; one bound to all interfaces was exposed on purpose and accepts
/// any host.
fn allowed_hosts(
    config: StreamableHttpServerConfig,
    local: SocketAddr,
) -> StreamableHttpServerConfig {
    let ip = local.ip();
    if ip.is_unspecified() {
        config.disable_allowed_hosts()
    } else if ip.is_loopback() {
        config
    } else {
        let mut hosts = config.allowed_hosts.clone();
        hosts.push(ip.to_string());
        config.with_allowed_hosts(hosts)
    }
}

/// Resolves on SIGINT or SIGTERM (on Windows: Ctrl-C or Ctrl-Break).
pub(crate) async fn stop_signal() {
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            // Without a SIGTERM handler the default action still ends us.
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(windows)]
    let terminate = async {
        match tokio::signal::windows::ctrl_break() {
            Ok(mut signal) => {
                signal.recv().await;
            }
            // Without a handler the default action still ends us.
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

impl<S: ServerHandler + Send + 'static> App<S> {
    async fn route(&self, mut request: Request<Incoming>) -> Response<Body> {
        // Against DNS rebinding and cross-site requests from a browser, on
        // every endpoint (the legacy ones included): the Host must be one
        // this server answers to, and an Origin, when sent, too.
        if let Some(refusal) = foreign_request(request.headers(), &self.hosts) {
            return plain(StatusCode::FORBIDDEN, refusal);
        }
        if request.method() == Method::GET
            && let Some(metadata) = self.resource_metadata(request.uri().path(), request.headers())
        {
            return metadata;
        }
        if let Some(oauth) = &self.oauth
            && OAuth::handles(request.uri().path())
        {
            let origin = self.origin(request.headers());
            return oauth.serve(request, &origin, self.request_timeout).await;
        }
        if let Some(challenge) = self.scope_challenge(request.headers()) {
            return challenge;
        }
        let identity = match self.authenticate(request.headers()) {
            Ok(identity) => identity,
            Err(refusal) => return self.unauthorized(refusal, request.headers()),
        };
        request.extensions_mut().insert(identity.clone());
        if let Some(full) = self.session_cap(&request).await {
            return full;
        }
        let path = request.uri().path();
        if path == self.path {
            return self.streamable(request).await;
        }
        let Some(legacy) = &self.legacy else {
            return plain(StatusCode::NOT_FOUND, "Not Found");
        };
        match (request.method(), path) {
            (&Method::GET, LEGACY_SSE_PATH) => legacy.open(identity),
            (&Method::POST, LEGACY_MESSAGE_PATH) => {
                legacy.post(request, self.request_timeout).await
            }
            (_, LEGACY_SSE_PATH) => method_not_allowed("GET"),
            (_, LEGACY_MESSAGE_PATH) => method_not_allowed("POST"),
            _ => plain(StatusCode::NOT_FOUND, "Not Found"),
        }
    }

    /// A request that would open a session past `--max-sessions` gets 503:
    /// a POST to the endpoint without `Mcp-Session-Id` (an initialize), or
    /// a legacy `GET /sse`. A 2026-07-28 request, which names its method in
    /// `Mcp-Method`, opens none.
    async fn session_cap(&self, request: &Request<Incoming>) -> Option<Response<Body>> {
        let path = request.uri().path();
        let opens = if path == self.path {
            let headers = request.headers();
            let stateless = headers
                .get("mcp-method")
                .is_some_and(|m| m.as_bytes() != b"initialize");
            request.method() == Method::POST
                && !headers.contains_key("mcp-session-id")
                && !stateless
        } else {
            self.legacy.is_some() && request.method() == Method::GET && path == LEGACY_SSE_PATH
        };
        if !opens {
            return None;
        }
        let legacy = self.legacy.as_ref().map_or(0, |l| l.open_sessions());
        let open = self.sessions.sessions.read().await.len() + legacy;
        if open < self.max_sessions {
            return None;
        }
        let mut response = plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: too many open sessions (--max-sessions); end one with DELETE or try again later",
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        Some(response)
    }

    /// The caller: a configured credential, else (with `--oauth`) the
    /// client of a live access token issued for this endpoint's URL.
    fn authenticate(&self, headers: &HeaderMap) -> Result<Identity, Refusal> {
        let found = self.credentials.authenticate(headers);
        if let (Err(Refusal::Invalid), Some(oauth)) = (&found, &self.oauth)
            && let Some(token) = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| super::auth::bearer_token(v.as_bytes()))
        {
            let resource = format!("{}{}", self.origin(headers), self.path);
            if let Some(identity) = oauth.authenticate(token, &resource) {
                return Ok(identity);
            }
        }
        found
    }

    /// With `--oauth`, a live token for this endpoint without the scope it
    /// needs: 403 with `WWW-Authenticate: Bearer error="insufficient_scope"`
    /// naming the scope and the resource metadata (step-up authorization).
    fn scope_challenge(&self, headers: &HeaderMap) -> Option<Response<Body>> {
        let oauth = self.oauth.as_ref()?;
        let token = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| super::auth::bearer_token(v.as_bytes()))?;
        let origin = self.origin(headers);
        let needed = oauth.scope_challenge(token, &format!("{origin}{}", self.path))?;
        let mut response = json_response(
            StatusCode::FORBIDDEN,
            serde_json::json!({ "error": "insufficient_scope", "scope": needed }).to_string(),
        );
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{needed}\", resource_metadata=\"{origin}{RESOURCE_METADATA_PATH}{}\", error_description=\"the token lacks the {needed} scope\"",
            self.path
        );
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        Some(response)
    }

    /// The origin this server answers a request as: `http://HOST` as the
    /// request's `Host` names it when that is one of the server's origins,
    /// else the server's own (the first). Under `oauth-host-audience`, the
    /// `Host` alone, whatever it names.
    fn origin(&self, headers: &HeaderMap) -> String {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        let asked = format!("http://{host}");
        if self.faults.has(Fault::OauthHostAudience)
            || self.origins.iter().any(|o| o.eq_ignore_ascii_case(&asked))
        {
            return asked;
        }
        self.origins.first().cloned().unwrap_or(asked)
    }

    /// With `--bearer`, the protected-resource metadata (RFC 9728) at
    /// [`RESOURCE_METADATA_PATH`] and at it followed by the endpoint's path:
    /// this endpoint's URL as the resource, this origin as its
    /// authorization server. `None` for any other path, or under
    /// `no-resource-metadata`.
    fn resource_metadata(&self, path: &str, headers: &HeaderMap) -> Option<Response<Body>> {
        if !self.credentials.bearer() || self.faults.has(Fault::NoResourceMetadata) {
            return None;
        }
        let at_path = path
            .strip_prefix(RESOURCE_METADATA_PATH)
            .is_some_and(|rest| rest.is_empty() || rest == self.path);
        if !at_path {
            return None;
        }
        let origin = self.origin(headers);
        let resource = if self.faults.has(Fault::BadResourceMetadata) {
            FOREIGN_RESOURCE.to_owned()
        } else {
            format!("{origin}{}", self.path)
        };
        let doc = serde_json::json!({
            "resource": resource,
            "authorization_servers": [origin],
            "bearer_methods_supported": ["header"],
            "resource_name": "mcpcheck serve",
        });
        Some(json_response(StatusCode::OK, doc.to_string()))
    }

    fn unauthorized(&self, refusal: Refusal, headers: &HeaderMap) -> Response<Body> {
        let message = match refusal {
            Refusal::Missing => "authentication required: send X-API-Key or Authorization: Bearer",
            Refusal::Invalid => "the credential presented is not accepted",
        };
        let mut response = json_response(
            StatusCode::UNAUTHORIZED,
            serde_json::json!({ "error": "unauthorized", "message": message }).to_string(),
        );
        let hidden = self.faults.has(Fault::NoResourceMetadata)
            || (self.oauth.is_some() && self.faults.has(Fault::OauthNoResourceMetadata));
        let metadata = (!hidden).then(|| {
            format!(
                "{}{RESOURCE_METADATA_PATH}{}",
                self.origin(headers),
                self.path
            )
        });
        for challenge in self.credentials.challenges(refusal, metadata.as_deref()) {
            if let Ok(value) = HeaderValue::from_str(&challenge) {
                response
                    .headers_mut()
                    .append(header::WWW_AUTHENTICATE, value);
            }
        }
        response
    }

    /// The endpoint; under `guessable-session-ids` the session ids of
    /// requests and answers are translated between rmcp's and the counter's.
    async fn streamable(&self, mut request: Request<Incoming>) -> Response<Body> {
        if !self.faults.has(Fault::GuessableSessionIds) {
            return self.endpoint(request).await;
        }
        let given = request
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let Some(given) = given {
            let real = self.lock_aliases().real.get(&given).cloned();
            // An id never handed out stays as it is: rmcp knows no such session.
            if let Some(value) = real.and_then(|r| HeaderValue::from_str(&r).ok()) {
                request.headers_mut().insert("mcp-session-id", value);
            }
        }
        let mut response = self.endpoint(request).await;
        let real = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let Some(real) = real {
            let alias = self.lock_aliases().alias_of(&real);
            if let Ok(value) = HeaderValue::from_str(&alias) {
                response.headers_mut().insert("mcp-session-id", value);
            }
        }
        response
    }

    fn lock_aliases(&self) -> std::sync::MutexGuard<'_, Aliases> {
        // Plain maps, updated in one step: a poisoned lock is still usable.
        self.aliases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn endpoint(&self, request: Request<Incoming>) -> Response<Body> {
        if request.method() == Method::DELETE {
            // rmcp answers the DELETE of a session it does not know as if
            // it had ended one; the spec (and docs/serve.md) say 404.
            let id = request
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            if let Some(id) = id
                && !self
                    .sessions
                    .sessions
                    .read()
                    .await
                    .contains_key(id.as_str())
            {
                return plain(StatusCode::NOT_FOUND, "Not Found: no such session");
            }
            if self.faults.has(Fault::SessionSurvivesDelete) {
                // Said to be ended, and left open.
                return plain(StatusCode::OK, "");
            }
            // rmcp closes the session before it answers, yet says 202
            // Accepted; clients (the Python SDK among them) expect the 200
            // or 204 of a completed DELETE and warn otherwise.
            let mut response = self.mcp.handle(request).await;
            if response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::OK;
            }
            return response;
        }
        if request.method() != Method::POST {
            // GET opens the session's stream: rmcp's to answer as it is.
            return self.mcp.handle(request).await;
        }
        let prefer_json = prefers_json(request.headers());
        let (parts, body) = request.into_parts();
        let bytes = match read_body(body, self.request_timeout).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        let tap = WireTap::new(self.wire);
        tap.note_incoming(&bytes);
        if let Some(front) = &self.modern
            && let Ok(message) = serde_json::from_slice::<serde_json::Value>(&bytes)
            && modern::is_modern(&message, parts.headers.contains_key("mcp-session-id"))
        {
            return self
                .modern(front.clone(), &parts, &message, tap, prefer_json)
                .await;
        }
        let response = self
            .mcp
            .handle(Request::from_parts(parts, Full::new(bytes)))
            .await;
        shape_response(response, tap, prefer_json).await
    }
}

impl<S: ServerHandler + Send + 'static> App<S> {
    /// A 2026-07-28 request: answered by the modern front, as one JSON body
    /// when the client prefers it and there is one message, else as SSE.
    async fn modern(
        &self,
        modern: Arc<Modern>,
        parts: &http::request::Parts,
        message: &serde_json::Value,
        tap: WireTap,
        prefer_json: bool,
    ) -> Response<Body> {
        let header = |name: &str| {
            parts
                .headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let params = parts
            .headers
            .iter()
            .filter_map(|(name, value)| {
                let suffix = name.as_str().strip_prefix("mcp-param-")?;
                Some((suffix.to_owned(), value.to_str().ok()?.to_owned()))
            })
            .collect();
        let headers = modern::Headers {
            protocol_version: header("mcp-protocol-version"),
            method: header("mcp-method"),
            name: header("mcp-name"),
            params,
        };
        let identity = parts
            .extensions
            .get::<super::auth::Identity>()
            .cloned()
            .unwrap_or_else(super::auth::Identity::anonymous);
        // The request runs in a task of its own so that its notifications
        // can be streamed while it goes on; the task is stopped if the
        // client goes away first.
        let (notes, mut noted) = tokio::sync::mpsc::unbounded_channel::<serde_json::Value>();
        let message = message.clone();
        let mut run = AbortOnDrop(tokio::spawn(async move {
            modern
                .handle(&message, Some(&headers), identity, Some(&notes))
                .await
        }));
        let first = tokio::select! {
            biased;
            done = &mut run.0 => Err(done),
            note = noted.recv() => Ok(note),
        };
        let done = match first {
            Err(done) => done,
            Ok(Some(note)) => return streamed_reply(note, noted, run, tap),
            // The task ended, and its sender with it.
            Ok(None) => (&mut run.0).await,
        };
        let mut reply = match done {
            Ok(modern::Outcome::Reply(reply)) => reply,
            Ok(modern::Outcome::Listen(listen)) => return listen_stream(*listen),
            Err(_) => return plain(StatusCode::INTERNAL_SERVER_ERROR, "the request failed"),
        };
        // Notifications sent just before the task ended come first.
        let mut early = Vec::new();
        while let Ok(note) = noted.try_recv() {
            early.push(note);
        }
        if !early.is_empty() {
            early.append(&mut reply.messages);
            reply.messages = early;
        }
        let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::OK);
        if reply.messages.is_empty() {
            return plain(StatusCode::ACCEPTED, "");
        }
        let mut texts: Vec<String> = reply
            .messages
            .iter()
            .flat_map(|m| tap.rewrite(&m.to_string()))
            .collect();
        if prefer_json && texts.len() == 1 {
            return json_response(status, texts.remove(0));
        }
        let events = texts.into_iter().map(|t| Sse::default().data(t));
        stream_response(status, stream::iter(events.collect::<Vec<_>>()))
    }
}

/// A task stopped when its handle is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The SSE answer of a 2026-07-28 request that sent a notification before
/// its answer: `first`, the notifications after it as they come, then the
/// answer. Closing the stream stops the request.
fn streamed_reply(
    first: serde_json::Value,
    mut noted: tokio::sync::mpsc::UnboundedReceiver<serde_json::Value>,
    mut run: AbortOnDrop<modern::Outcome>,
    tap: WireTap,
) -> Response<Body> {
    let (sender, mut receiver) = tokio::sync::mpsc::channel::<Sse>(16);
    tokio::spawn(async move {
        let send = async |message: &serde_json::Value| {
            for text in tap.rewrite(&message.to_string()) {
                if sender.send(Sse::default().data(text)).await.is_err() {
                    return false;
                }
            }
            true
        };
        if !send(&first).await {
            return;
        }
        loop {
            tokio::select! {
                note = noted.recv() => match note {
                    Some(note) => {
                        if !send(&note).await {
                            return;
                        }
                    }
                    // The request's task has ended.
                    None => break,
                },
                // The client closed the stream: `run` is dropped, which
                // stops the request.
                () = sender.closed() => return,
            }
        }
        let messages = match (&mut run.0).await {
            Ok(modern::Outcome::Reply(reply)) => reply.messages,
            Ok(modern::Outcome::Listen(_)) | Err(_) => Vec::new(),
        };
        for message in &messages {
            if !send(message).await {
                return;
            }
        }
    });
    let events = stream::poll_fn(move |cx| receiver.poll_recv(cx));
    stream_response(StatusCode::OK, events)
}

/// A `subscriptions/listen` stream: the acknowledgment, then each list
/// change, until the client goes away or the server stops.
fn listen_stream(mut listen: modern::Listen) -> Response<Body> {
    let (sender, mut receiver) = tokio::sync::mpsc::channel::<Sse>(16);
    let first = Sse::default().data(listen.acknowledgment.to_string());
    tokio::spawn(async move {
        if sender.send(first).await.is_err() {
            return;
        }
        loop {
            tokio::select! {
                next = listen.next() => {
                    let Some(notification) = next else { return };
                    if sender.send(Sse::default().data(notification.to_string())).await.is_err() {
                        return;
                    }
                }
                // The client closed the stream: nothing more to send.
                () = sender.closed() => return,
            }
        }
    });
    let events = stream::poll_fn(move |cx| receiver.poll_recv(cx));
    stream_response(StatusCode::OK, events)
}

/// An SSE response with `status` carrying `events`.
fn stream_response(
    status: StatusCode,
    events: impl futures::Stream<Item = Sse> + Send + Sync + 'static,
) -> Response<Body> {
    let mut response = Response::new(());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    let (parts, ()) = response.into_parts();
    sse_response(parts, events)
}

/// Reads a whole request body of at most [`MAX_BODY_BYTES`], sent within
/// `timeout`.
pub async fn read_body(body: Incoming, timeout: Duration) -> Result<Bytes, Response<Body>> {
    read_body_at_most(
        body,
        timeout,
        MAX_BODY_BYTES,
        "Payload Too Large: request body exceeds 4 MiB",
    )
    .await
}

/// How much more of a body past its limit is read and dropped before the
/// 413 goes out: a client still writing its body then reads the answer
/// instead of a broken pipe (a lingering close, as HTTP servers do). A body
/// that declares more than its limit and this is refused at once.
const DRAIN_PAST_LIMIT: usize = 8 << 20;

/// Reads a whole request body of at most `limit` bytes, sent within
/// `timeout`; a longer one is answered 413 with `too_large`, once what the
/// client sends of it (up to [`DRAIN_PAST_LIMIT`] more) is read.
pub async fn read_body_at_most(
    mut body: Incoming,
    timeout: Duration,
    limit: usize,
    too_large: &'static str,
) -> Result<Bytes, Response<Body>> {
    use hyper::body::Body as _;
    // Both answers end the connection: part of the body may be left unread.
    let closing = |status, text| {
        let mut response = plain(status, text);
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    };
    let refused = || closing(StatusCode::PAYLOAD_TOO_LARGE, too_large);
    let drained = limit.saturating_add(DRAIN_PAST_LIMIT);
    if body.size_hint().exact().is_some_and(|n| n > drained as u64) {
        return Err(refused());
    }
    let deadline = tokio::time::Instant::now() + timeout;
    let mut kept: Vec<u8> = Vec::new();
    let mut seen = 0usize;
    loop {
        let over = seen > limit;
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) if over => return Err(refused()),
            Err(_) => {
                return Err(closing(
                    StatusCode::REQUEST_TIMEOUT,
                    "Request Timeout: the request body was not sent in time",
                ));
            }
            Ok(None) => break,
            Ok(Some(Err(_))) if over => return Err(refused()),
            Ok(Some(Err(_))) => {
                return Err(plain(
                    StatusCode::BAD_REQUEST,
                    "cannot read the request body",
                ));
            }
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        seen = seen.saturating_add(data.len());
        if seen > drained {
            break;
        }
        if seen > limit {
            kept = Vec::new();
        } else {
            kept.extend_from_slice(&data);
        }
    }
    if seen > limit {
        return Err(refused());
    }
    Ok(Bytes::from(kept))
}

/// Whether the client, per its `Accept` header, weighs `application/json`
/// at least as high as `text/event-stream`.
pub(crate) fn prefers_json(headers: &HeaderMap) -> bool {
    let mut json = None;
    let mut sse = None;
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for entry in value.split(',') {
            let mut parts = entry.split(';');
            let essence = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let quality = parts
                .filter_map(|p| p.split_once('='))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
                .and_then(|(_, q)| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            match essence.as_str() {
                "application/json" => json = Some(quality),
                "text/event-stream" => sse = Some(quality),
                _ => {}
            }
        }
    }
    match (json, sse) {
        (Some(json), Some(sse)) => json >= sse,
        (Some(_), None) => true,
        _ => false,
    }
}

/// Chooses JSON or SSE for rmcp's POST answer and applies wire faults to
/// its messages. Responses that are not SSE (202, errors) pass unchanged.
async fn shape_response(
    response: Response<Body>,
    tap: WireTap,
    prefer_json: bool,
) -> Response<Body> {
    let is_sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let mut events = SseStream::new(body);
    // Events without data are SSE priming events (an id and a retry hint);
    // they are kept in front when the answer stays a stream.
    let mut head = Vec::new();
    let first = loop {
        match events.next().await {
            Some(Ok(event)) if event.data.as_deref().is_some_and(|d| !d.is_empty()) => {
                break Some(event);
            }
            Some(Ok(event)) => head.push(event),
            Some(Err(_)) | None => break None,
        }
    };
    let tap = Arc::new(tap);
    let Some(first) = first else {
        return sse_response(parts, stream::iter(head));
    };
    let first = rewrite_event(&tap, first);
    if prefer_json
        && let [only] = first.as_slice()
        && let Some(data) = &only.data
        && is_response(data)
    {
        parts.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        parts.headers.remove(header::CACHE_CONTROL);
        parts.headers.remove("x-accel-buffering");
        return Response::from_parts(parts, Full::new(Bytes::from(data.clone())).boxed());
    }
    let rest = events
        .take_while(|event| std::future::ready(event.is_ok()))
        .filter_map(|event| std::future::ready(event.ok()))
        .flat_map(move |event| stream::iter(rewrite_event(&tap, event)));
    sse_response(
        parts,
        stream::iter(head).chain(stream::iter(first)).chain(rest),
    )
}

/// The events to send for `event`: one per message the tap makes of its
/// data. Added messages (a garbage line) come first and carry no id, so the
/// event id keeps naming the original message.
fn rewrite_event(tap: &WireTap, mut event: Sse) -> Vec<Sse> {
    let Some(data) = event.data.take() else {
        return vec![event];
    };
    let mut messages = tap.rewrite(&data);
    let last = messages.pop().unwrap_or(data);
    let mut out: Vec<Sse> = messages
        .into_iter()
        .map(|m| Sse::default().data(m))
        .collect();
    event.data = Some(last);
    out.push(event);
    out
}

/// Whether `data` is a JSON-RPC response (a result or an error).
fn is_response(data: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(serde_json::Value::Object(object)) => {
            !object.contains_key("method")
                && (object.contains_key("result") || object.contains_key("error"))
        }
        _ => false,
    }
}

pub fn sse_response(
    parts: http::response::Parts,
    events: impl futures::Stream<Item = Sse> + Send + Sync + 'static,
) -> Response<Body> {
    Response::from_parts(parts, SseBody::new(events.map(Ok::<_, Infallible>)).boxed())
}

pub fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

pub(crate) fn json_response(status: StatusCode, body: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn method_not_allowed(allow: &'static str) -> Response<Body> {
    let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn requests_naming_a_foreign_host_or_origin_are_refused() {
        let hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        let h = |pairs: &[(&'static str, &'static str)]| {
            let mut m = http::HeaderMap::new();
            for (k, v) in pairs {
                m.insert(*k, HeaderValue::from_static(v));
            }
            m
        };
        assert_eq!(
            foreign_request(&h(&[("host", "127.0.0.1:8080")]), &hosts),
            None
        );
        assert_eq!(foreign_request(&h(&[("host", "[::1]:8080")]), &hosts), None);
        assert_eq!(
            foreign_request(
                &h(&[
                    ("host", "localhost:8080"),
                    ("origin", "http://localhost:3000")
                ]),
                &hosts
            ),
            None
        );
        assert_eq!(
            foreign_request(&h(&[("host", "evil.example:8080")]), &hosts),
            Some("Forbidden: Host header is not allowed")
        );
        assert_eq!(
            foreign_request(&h(&[]), &hosts),
            Some("Forbidden: Host header is not allowed")
        );
        assert_eq!(
            foreign_request(
                &h(&[
                    ("host", "127.0.0.1:8080"),
                    ("origin", "http://evil.example")
                ]),
                &hosts
            ),
            Some("Forbidden: Origin is not allowed")
        );
        assert_eq!(
            foreign_request(&h(&[("host", "127.0.0.1"), ("origin", "null")]), &hosts),
            Some("Forbidden: Origin is not allowed")
        );
        assert_eq!(
            foreign_request(&h(&[("host", "anything")]), &[]),
            None,
            "bound to all interfaces"
        );
    }

    #[test]
    fn json_is_preferred_unless_sse_weighs_more() {
        assert!(prefers_json(&accept("application/json, text/event-stream")));
        assert!(prefers_json(&accept("text/event-stream, application/json")));
        assert!(!prefers_json(&accept(
            "application/json;q=0.5, text/event-stream"
        )));
        assert!(prefers_json(&accept(
            "application/json, text/event-stream;q=0.9"
        )));
        assert!(!prefers_json(&accept("text/event-stream")));
    }

    #[test]
    fn responses_are_told_from_other_messages() {
        assert!(is_response(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(is_response(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":""}}"#
        ));
        assert!(!is_response(
            r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#
        ));
        assert!(!is_response("not json"));
    }
}
