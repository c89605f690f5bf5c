//! `mcpcheck probe`: active security probes of a Streamable HTTP MCP server.
//! This module sends the probe requests and records every answer as it came
//! (status, headers, body); `mcpcheck_core::http_probe` judges them. No tool
//! the server lists is ever called with valid arguments: the probes change
//! nothing on the server.

mod auth;

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use clap::{Args, ValueEnum};
use mcpcheck_core::http_probe::{
    self, Answer, AuthProbe, DeleteProbe, ErrorProbe, MetadataFetch, Observations, Options,
    Severity, ToolCall,
};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue, ORIGIN};
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::error::{Error, Result, verdict};
use crate::output::err;
use crate::verdict::{FindingsArgs, FindingsFormat, finish};
use mcpcheck_core::findings::Family;

/// The protocol revision asked for at `initialize`.
const PROTOCOL_VERSION: &str = "2025-11-25";

/// How much of an answer's body is kept.
const MAX_BODY: usize = 256 * 1024;

/// The most `tools/list` pages read.
const MAX_PAGES: usize = 20;

/// How many sessions the session-id probe opens in all (the first one
/// included), as the H501 rule judges them.
const SESSIONS: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FailOn {
    High,
    Medium,
    Low,
    Info,
}

/// Probe a Streamable HTTP server for DNS rebinding (foreign Origin and
/// Host), callable unlisted tools, leaky error answers, authorization
/// discovery (WWW-Authenticate, RFC 9728 metadata), guessable or immortal
/// sessions and plaintext transport; with --auth, OAuth itself (metadata,
/// PKCE, token audience, expiry). No listed tool is called with valid
/// arguments.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Exit status: 0 no finding at --fail-on or above; 1 one at least, or \
the server could not be reached; 2 a usage error (a bad URL or header, an unknown rule).\n\n",
    crate::help::rules_lines!("http-probes", "H101", "the probes and the faults of `mcpcheck serve` to try them on")
))]
pub struct ProbeArgs {
    /// The server's Streamable HTTP endpoint (http:// or https://).
    #[arg(long, value_name = "URL")]
    url: String,

    /// An HTTP header for every request, as `Name: value` (repeatable).
    /// Credentials given here (Authorization, X-API-Key, Cookie, …) are
    /// left out once, to check how the server refuses a request without.
    #[arg(long = "header", value_name = "HEADER")]
    headers: Vec<String>,

    /// A tool name the server should not let anyone call; tried besides a
    /// fixed list of common hidden names (repeatable). A name the server
    /// lists is skipped.
    #[arg(long = "tool", value_name = "NAME")]
    tools: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    format: FindingsFormat,

    #[command(flatten)]
    findings: FindingsArgs,

    /// The least severe finding that fails the probe.
    #[arg(long, value_enum, default_value_t = FailOn::High)]
    fail_on: FailOn,

    /// Rules not to run, by code (comma-separated or repeated).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    skip_rules: Vec<String>,

    /// How long each request may take.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// Also check the server's OAuth authorization (H404 to H417): its
    /// authorization-server metadata, PKCE, and that tokens for another
    /// resource, expired (when they live at most 10 s) or made up are
    /// refused. Tokens come from --auth-client, else from dynamic client
    /// registration; a check without one is reported not verified (H409).
    #[arg(long)]
    auth: bool,

    /// The confidential client the --auth checks get tokens with
    /// (client_credentials), as ID:SECRET.
    #[arg(long, value_name = "ID:SECRET", requires = "auth", value_parser = auth_client)]
    auth_client: Option<(String, String)>,
}

/// `ID:SECRET`, both parts non-empty.
fn auth_client(s: &str) -> std::result::Result<(String, String), crate::error::ValueError> {
    match s.split_once(':') {
        Some((id, secret)) if !id.is_empty() && !secret.is_empty() => {
            Ok((id.to_string(), secret.to_string()))
        }
        _ => Err(crate::error::ValueError::Credentials),
    }
}

pub fn main(args: &ProbeArgs) -> Result<ExitCode> {
    let fail_on = match args.fail_on {
        FailOn::High => Severity::High,
        FailOn::Medium => Severity::Medium,
        FailOn::Low => Severity::Low,
        FailOn::Info => Severity::Info,
    };
    let options = Options {
        skip_rules: args.skip_rules.clone(),
        fail_on,
    };
    http_probe::skipped(&options).map_err(|e| Error::Usage(e.to_string()))?;
    args.findings.selection()?;
    let url = check_url(&args.url)?;
    let headers = header_map(&args.headers)?;
    let prober = Prober::new(url.clone(), headers, args.timeout)?;
    let runtime = crate::error::runtime()?;
    let observed = runtime.block_on(async {
        let mut observations = prober.run(&args.tools).await?;
        if args.auth {
            let probe = prober.oauth(&observations, args.auth_client.clone()).await;
            observations.oauth = Some(probe);
        }
        Ok::<_, ProbeError>(observations)
    });
    let observations = match observed {
        Ok(observations) => observations,
        Err(message) => {
            err(&format!("mcpcheck probe: {message}\n"));
            return Ok(verdict(false));
        }
    };
    let findings =
        http_probe::judge(&observations, &options).map_err(|e| Error::Usage(e.to_string()))?;
    let report = http_probe::report(url.as_str(), findings, fail_on);
    finish(report, args.format, &args.findings, &[Family::Http])
}

/// The authorization checks alone, for `mcpcheck conformance --auth` and
/// `mcpcheck doctor --url … --auth`: the request without credentials (H401
/// to H403) and the `--auth` probes (H404 to H417) against `url`, added to
/// `report` (the findings located at `authorization`, and the probe's own
/// JSON as its `authorization` member). A failure to reach the server is a
/// failing note.
pub async fn add_authorization(
    report: &mut mcpcheck_core::findings::Report,
    url: &str,
    headers: &[String],
    client: Option<(String, String)>,
    timeout: Duration,
) {
    match authorization_findings(url, headers, client, timeout).await {
        Ok(findings) => {
            let auth = http_probe::report(url, findings.clone(), Severity::High);
            let contract = mcpcheck_core::findings::render::json::value(&auth);
            for mut f in findings {
                f.location.context = Some("authorization".into());
                report.findings.push(f);
            }
            report.set_extra("authorization", contract);
        }
        Err(message) => report
            .notes
            .push(mcpcheck_core::findings::Note::failing(format!(
                "the authorization checks could not run: {message}"
            ))),
    }
}

/// The HTTP checks of `url` the official conformance suite scores too, added
/// to `report` (`mcpcheck conformance --url`): an `initialize` from a foreign
/// Origin and with a rebinding Host (H101, H102), and a session that answers
/// after its DELETE (H502). Their findings are located at `http`; a server
/// that cannot be reached is a failing note.
pub async fn add_transport_checks(
    report: &mut mcpcheck_core::findings::Report,
    url: &str,
    headers: &[String],
    timeout: Duration,
) {
    match transport_findings(url, headers, timeout).await {
        Ok(findings) => {
            for mut f in findings {
                f.location.context = Some("http".into());
                report.findings.push(f);
            }
        }
        Err(message) => report
            .notes
            .push(mcpcheck_core::findings::Note::failing(format!(
                "the HTTP checks (Origin, Host, DELETE) could not run: {message}"
            ))),
    }
}

/// The findings H101, H102 and H502 for `url`.
async fn transport_findings(
    url: &str,
    headers: &[String],
    timeout: Duration,
) -> std::result::Result<Vec<http_probe::Finding>, ProbeError> {
    let url = check_url(url)?;
    let headers = header_map(headers)?;
    let prober = Prober::new(url.clone(), headers, timeout)?;
    let first = prober
        .open(&Extra::default())
        .await
        .map_err(|e| ProbeError::unreachable(&url, e))?;
    if let Some(result) = first.answer.result().filter(|_| first.answer.ok())
        && let Ok(mut version) = prober.version.lock()
    {
        *version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    let mut o = Observations {
        url,
        ..Observations::default()
    };
    o.foreign_origin = prober.foreign_origin().await;
    o.rebinding_host = prober.rebinding_host().await;
    let (_, delete) = prober.sessions(first.session.as_deref()).await;
    o.delete = delete;
    prober.close(first.session.as_deref()).await;
    let findings = http_probe::judge(&o, &Options::default())?;
    Ok(findings
        .into_iter()
        .filter(|f| matches!(f.code(), "H101" | "H102" | "H502"))
        .collect())
}

/// The probes of `url` (what `mcpcheck doctor --url` runs), with the OAuth
/// checks when `auth` (and the client of `client`): their findings, every
/// rule at its default.
pub async fn findings(
    url: &str,
    headers: &[String],
    timeout: Duration,
    auth: bool,
    client: Option<(String, String)>,
) -> std::result::Result<Vec<http_probe::Finding>, ProbeError> {
    let url = check_url(url)?;
    let headers = header_map(headers)?;
    let prober = Prober::new(url, headers, timeout)?;
    let mut observations = prober.run(&[]).await?;
    if auth {
        let probe = prober.oauth(&observations, client).await;
        observations.oauth = Some(probe);
    }
    Ok(http_probe::judge(&observations, &Options::default())?)
}

/// The findings H401 to H417 for `url`.
async fn authorization_findings(
    url: &str,
    headers: &[String],
    client: Option<(String, String)>,
    timeout: Duration,
) -> std::result::Result<Vec<http_probe::Finding>, ProbeError> {
    let url = check_url(url)?;
    let headers = header_map(headers)?;
    let prober = Prober::new(url.clone(), headers, timeout)?;
    let bare = Extra {
        without_credentials: true,
        ..Extra::default()
    };
    let opened = prober
        .open(&bare)
        .await
        .map_err(|e| ProbeError::unreachable(&url, e))?;
    let unauthenticated = if opened.answer.status == 401 {
        prober.auth_probe(opened.answer).await
    } else {
        prober.close(opened.session.as_deref()).await;
        AuthProbe {
            answer: opened.answer,
            metadata: Vec::new(),
        }
    };
    let mut observations = Observations {
        url,
        unauthenticated: Some(unauthenticated),
        ..Observations::default()
    };
    observations.oauth = Some(prober.oauth(&observations, client).await);
    let findings = http_probe::judge(&observations, &Options::default())?;
    Ok(findings
        .into_iter()
        .filter(|f| f.code().starts_with("H4"))
        .collect())
}

/// The URL, checked: absolute, `http` or `https`, with a host.
fn check_url(url: &str) -> Result<String> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| Error::Usage(format!("--url {url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(Error::Usage(format!(
            "--url {url:?}: give an http:// or https:// URL of a Streamable HTTP endpoint"
        )));
    }
    Ok(url.to_string())
}

fn header_map(headers: &[String]) -> Result<HeaderMap> {
    let mut map = HeaderMap::new();
    for h in headers {
        let (k, v) = h
            .split_once(':')
            .ok_or_else(|| Error::Usage(format!("--header {h:?}: write it as `Name: value`")))?;
        let name = HeaderName::from_bytes(k.trim().as_bytes())
            .map_err(|_| Error::Usage(format!("--header {h:?}: not a valid header name")))?;
        let value = HeaderValue::from_str(v.trim())
            .map_err(|_| Error::Usage(format!("--header {h:?}: the value is not valid in HTTP")))?;
        map.append(name, value);
    }
    Ok(map)
}

/// Whether a header carries a credential, judged by its name.
fn is_credential(name: &HeaderName) -> bool {
    mcpcheck_core::redact::looks_secret(name.as_str())
}

/// One request's extra headers and session.
#[derive(Default)]
struct Extra<'a> {
    session: Option<&'a str>,
    headers: Vec<(HeaderName, HeaderValue)>,
    /// Send the user's headers without the credentials among them.
    without_credentials: bool,
}

/// A session opened with `initialize`.
struct Opened {
    answer: Answer,
    session: Option<String>,
}

struct Prober {
    client: reqwest::Client,
    url: String,
    headers: HeaderMap,
    timeout: Duration,
    ids: AtomicU64,
    /// The protocol version the server chose.
    version: std::sync::Mutex<Option<String>>,
}

impl Prober {
    fn new(url: String, headers: HeaderMap, timeout: Duration) -> Result<Self> {
        // No redirects: a probe's answer is the server's, not another origin's.
        let client = reqwest::Client::builder()
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            // HTTP/1.1, where the Host header the rebinding probe sets is
            // the one the server reads.
            .http1_only()
            .build()
            .map_err(|e| Error::Usage(format!("cannot create an HTTP client: {e}")))?;
        Ok(Self {
            client,
            url,
            headers,
            timeout,
            ids: AtomicU64::new(1),
            version: std::sync::Mutex::new(None),
        })
    }

    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }

    fn request(&self, id: u64, method: &str, params: Value) -> String {
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
    }

    fn initialize_body(&self) -> String {
        self.request(
            self.next_id(),
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": { "name": "mcpcheck-probe", "version": mcpcheck_core::VERSION },
            }),
        )
    }

    /// The headers of one request: the user's (less credentials when asked),
    /// the session and protocol version, then the probe's own.
    fn headers_for(&self, extra: &Extra<'_>) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in &self.headers {
            if !(extra.without_credentials && is_credential(name)) {
                map.append(name.clone(), value.clone());
            }
        }
        if let Some(session) = extra.session
            && let Ok(value) = HeaderValue::from_str(session)
        {
            map.insert("mcp-session-id", value);
            let version = self.version.lock().ok().and_then(|v| v.clone());
            if let Some(value) = version.and_then(|v| HeaderValue::from_str(&v).ok()) {
                map.insert("mcp-protocol-version", value);
            }
        }
        for (name, value) in &extra.headers {
            map.insert(name.clone(), value.clone());
        }
        map
    }

    /// POSTs `body` to the endpoint.
    async fn post(
        &self,
        body: String,
        extra: &Extra<'_>,
    ) -> std::result::Result<Answer, ProbeError> {
        let request = self
            .client
            .post(&self.url)
            .headers(self.headers_for(extra))
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        self.send(request).await
    }

    /// Sends a request and reads its answer: the whole body, or for an SSE
    /// stream up to the first JSON-RPC response; never past the timeout.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> std::result::Result<Answer, ProbeError> {
        let deadline = Instant::now() + self.timeout;
        let mut response = match tokio::time::timeout_at(deadline, request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return Err(ProbeError::Request(e)),
            Err(_) => return Err(ProbeError::Timeout(self.timeout)),
        };
        let mut answer = Answer {
            status: response.status().as_u16(),
            headers: response
                .headers()
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: String::new(),
        };
        let sse = answer
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"));
        let mut bytes = Vec::new();
        // A body that stalls or never ends is cut at the deadline or the
        // size limit; what came so far is the answer.
        while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(deadline, response.chunk()).await {
            bytes.extend_from_slice(&chunk);
            if bytes.len() > MAX_BODY {
                bytes.truncate(MAX_BODY);
                break;
            }
            if sse {
                answer.body = String::from_utf8_lossy(&bytes).into_owned();
                if answered(&answer) {
                    return Ok(answer);
                }
            }
        }
        answer.body = String::from_utf8_lossy(&bytes).into_owned();
        Ok(answer)
    }

    /// `initialize`, then `notifications/initialized` when it was served.
    async fn open(&self, extra: &Extra<'_>) -> std::result::Result<Opened, ProbeError> {
        let answer = self.post(self.initialize_body(), extra).await?;
        let session = answer.header("mcp-session-id").map(str::to_string);
        if answer.served() {
            let note = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
            let follow = Extra {
                session: session.as_deref(),
                headers: extra.headers.clone(),
                without_credentials: extra.without_credentials,
            };
            // The notification's answer (202) says nothing the probes judge.
            let _ = self.post(note.to_string(), &follow).await;
        }
        Ok(Opened { answer, session })
    }

    /// Ends a session the probes opened (best effort, the answer unread).
    async fn close(&self, session: Option<&str>) {
        if let Some(session) = session {
            let extra = Extra {
                session: Some(session),
                ..Extra::default()
            };
            let request = self
                .client
                .delete(&self.url)
                .headers(self.headers_for(&extra));
            let _ = self.send(request).await;
        }
    }

    /// Every probe, in order.
    async fn run(&self, hidden: &[String]) -> std::result::Result<Observations, ProbeError> {
        let mut o = Observations {
            url: self.url.clone(),
            ..Observations::default()
        };
        let first = self
            .open(&Extra::default())
            .await
            .map_err(|e| ProbeError::unreachable(&self.url, e))?;
        if first.answer.status == 401 {
            err(if self.headers.keys().any(is_credential) {
                "mcpcheck probe: the server refused the credentials given (401); only the \
authorization probes ran\n"
            } else {
                "mcpcheck probe: the server answered 401; only the authorization probes ran \
(give credentials with --header to run the others)\n"
            });
            o.unauthenticated = Some(self.auth_probe(first.answer).await);
            return Ok(o);
        }
        let Some(result) = first.answer.result().filter(|_| first.answer.ok()) else {
            return Err(ProbeError::NotInitialized(first.answer.evidence()));
        };
        if let Ok(mut version) = self.version.lock() {
            *version = result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let session = first.session.clone();
        let tools = self.list_tools(session.as_deref()).await;
        o.listed_tools = tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
            .collect();
        o.foreign_origin = self.foreign_origin().await;
        o.rebinding_host = self.rebinding_host().await;
        o.hidden_calls = self
            .hidden_calls(session.as_deref(), hidden, &o.listed_tools)
            .await;
        o.error_bodies = self.error_bodies(session.as_deref(), &tools).await;
        if self.headers.keys().any(is_credential) {
            let bare = Extra {
                without_credentials: true,
                ..Extra::default()
            };
            if let Ok(opened) = self.open(&bare).await {
                if opened.answer.status == 401 {
                    o.unauthenticated = Some(self.auth_probe(opened.answer).await);
                } else {
                    self.close(opened.session.as_deref()).await;
                    o.unauthenticated = Some(AuthProbe {
                        answer: opened.answer,
                        metadata: Vec::new(),
                    });
                }
            }
        }
        let (ids, delete) = self.sessions(session.as_deref()).await;
        o.session_ids = ids;
        o.delete = delete;
        self.close(session.as_deref()).await;
        Ok(o)
    }

    /// Every tool of the listing, page by page.
    async fn list_tools(&self, session: Option<&str>) -> Vec<Value> {
        let extra = Extra {
            session,
            ..Extra::default()
        };
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.map_or_else(|| json!({}), |c| json!({ "cursor": c }));
            let body = self.request(self.next_id(), "tools/list", params);
            let Some(result) = self.post(body, &extra).await.ok().and_then(|a| a.result()) else {
                break;
            };
            if let Some(page) = result.get("tools").and_then(Value::as_array) {
                tools.extend(page.iter().cloned());
            }
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() {
                break;
            }
        }
        tools
    }

    /// H101: an `initialize` from a foreign site.
    async fn foreign_origin(&self) -> Option<Answer> {
        let extra = Extra {
            headers: vec![(ORIGIN, HeaderValue::from_static(http_probe::FOREIGN_ORIGIN))],
            ..Extra::default()
        };
        let opened = self.open(&extra).await.ok()?;
        self.close(opened.session.as_deref()).await;
        Some(opened.answer)
    }

    /// H102: an `initialize` naming another host, with the URL's port.
    async fn rebinding_host(&self) -> Option<Answer> {
        let port = reqwest::Url::parse(&self.url)
            .ok()
            .and_then(|u| u.port())
            .map(|p| format!(":{p}"))
            .unwrap_or_default();
        let host = HeaderValue::from_str(&format!("{}{port}", http_probe::REBINDING_HOST)).ok()?;
        let extra = Extra {
            headers: vec![(HOST, host)],
            ..Extra::default()
        };
        let opened = self.open(&extra).await.ok()?;
        self.close(opened.session.as_deref()).await;
        Some(opened.answer)
    }

    /// H201: `tools/call` of each unlisted name, with no arguments.
    async fn hidden_calls(
        &self,
        session: Option<&str>,
        given: &[String],
        listed: &[String],
    ) -> Vec<ToolCall> {
        let extra = Extra {
            session,
            ..Extra::default()
        };
        let mut names: Vec<String> = given.to_vec();
        names.extend(
            http_probe::HIDDEN_TOOL_NAMES
                .iter()
                .map(|n| (*n).to_string()),
        );
        let mut calls: Vec<ToolCall> = Vec::new();
        for name in names {
            if listed.contains(&name) || calls.iter().any(|c| c.tool == name) {
                continue;
            }
            let body = self.request(
                self.next_id(),
                "tools/call",
                json!({ "name": name, "arguments": {} }),
            );
            if let Ok(answer) = self.post(body, &extra).await {
                calls.push(ToolCall { tool: name, answer });
            }
        }
        calls
    }

    /// H3xx: requests meant to fail.
    async fn error_bodies(&self, session: Option<&str>, tools: &[Value]) -> Vec<ErrorProbe> {
        let extra = Extra {
            session,
            ..Extra::default()
        };
        let mut sends: Vec<(&str, String)> = vec![
            (
                "malformed-json",
                r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"#.to_string(),
            ),
            (
                "unknown-method",
                self.request(self.next_id(), "mcpcheck/no-such-method", json!({})),
            ),
            (
                "invalid-params",
                self.request(
                    self.next_id(),
                    "tools/call",
                    json!({ "name": 12, "arguments": "mcpcheck-probe" }),
                ),
            ),
        ];
        if let Some((name, arguments)) = tools.iter().find_map(|t| {
            let name = t.get("name").and_then(Value::as_str)?;
            Some((name, http_probe::wrong_arguments(t)?))
        }) {
            sends.push((
                "wrong-argument-types",
                self.request(
                    self.next_id(),
                    "tools/call",
                    json!({ "name": name, "arguments": arguments }),
                ),
            ));
        }
        let mut probes = Vec::new();
        for (probe, body) in sends {
            if let Ok(answer) = self.post(body, &extra).await {
                probes.push(ErrorProbe {
                    probe: probe.to_string(),
                    answer,
                });
            }
        }
        probes
    }

    /// H4xx: the 401, and the metadata it leads to.
    async fn auth_probe(&self, answer: Answer) -> AuthProbe {
        let mut metadata = Vec::new();
        for url in http_probe::metadata_urls(&self.url, &answer) {
            let fetch = self.fetch_metadata(&url).await;
            let found = fetch.answer.as_ref().is_some_and(|a| a.status == 200);
            metadata.push(fetch);
            if found {
                break;
            }
        }
        AuthProbe { answer, metadata }
    }

    /// One metadata GET, without credentials: the document is public.
    async fn fetch_metadata(&self, url: &str) -> MetadataFetch {
        let mut fetch = MetadataFetch {
            url: url.to_string(),
            ..MetadataFetch::default()
        };
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"));
        if parsed.is_none() {
            fetch.error = Some("not an http:// or https:// URL".into());
            return fetch;
        }
        let extra = Extra {
            without_credentials: true,
            ..Extra::default()
        };
        let request = self
            .client
            .get(url)
            .headers(self.headers_for(&extra))
            .header(ACCEPT, "application/json");
        match self.send(request).await {
            Ok(answer) => fetch.answer = Some(answer),
            Err(e) => fetch.error = Some(e.to_string()),
        }
        fetch
    }

    /// H5xx: the ids of [`SESSIONS`] sessions (the first one's given), then
    /// a `DELETE` of one of the new ones and a `ping` with its id.
    async fn sessions(&self, first: Option<&str>) -> (Vec<Option<String>>, Option<DeleteProbe>) {
        let mut ids = vec![first.map(str::to_string)];
        for _ in 1..SESSIONS {
            match self.open(&Extra::default()).await {
                Ok(opened) => ids.push(opened.session),
                Err(_) => break,
            }
        }
        let mut delete = None;
        if let Some(Some(victim)) = ids.get(1) {
            let extra = Extra {
                session: Some(victim),
                ..Extra::default()
            };
            let request = self
                .client
                .delete(&self.url)
                .headers(self.headers_for(&extra));
            if let Ok(ended) = self.send(request).await {
                let ping = self.request(self.next_id(), "ping", json!({}));
                if let Ok(reuse) = self.post(ping, &extra).await {
                    delete = Some(DeleteProbe {
                        delete: ended,
                        reuse,
                    });
                }
            }
        }
        for id in ids.iter().skip(1) {
            self.close(id.as_deref()).await;
        }
        (ids, delete)
    }
}

/// Whether an SSE answer so far holds a JSON-RPC response.
fn answered(answer: &Answer) -> bool {
    answer
        .messages()
        .iter()
        .any(|m| m.get("id").is_some() && (m.get("result").is_some() || m.get("error").is_some()))
}

/// A transport error in words, with its causes.
/// Why the probes could not run (or one request got no answer).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The URL or the headers given.
    #[error(transparent)]
    Setup(#[from] Error),
    /// A request that got no response; shown with its causes.
    #[error("{}", describe(.0))]
    Request(#[source] reqwest::Error),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("cannot reach {url}: {source}")]
    Unreachable {
        url: String,
        #[source]
        source: Box<ProbeError>,
    },
    /// `0` is the answer's evidence (status and body).
    #[error("initialize was not answered with a result: {0}")]
    NotInitialized(String),
    /// The token endpoint answered without a token; `0` is its status and
    /// `error`.
    #[error("the token endpoint answered HTTP {0}")]
    NoToken(String),
    #[error(transparent)]
    Options(#[from] mcpcheck_core::http_probe::OptionsError),
}

impl ProbeError {
    fn unreachable(url: &str, source: ProbeError) -> Self {
        Self::Unreachable {
            url: url.to_string(),
            source: Box::new(source),
        }
    }
}

fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_headers_are_checked() {
        assert!(check_url("http://127.0.0.1:8080/mcp").is_ok());
        assert!(check_url("ftp://example.com/mcp").is_err());
        assert!(check_url("not a url").is_err());
        assert!(header_map(&["Authorization: Bearer t".into()]).is_ok());
        assert!(header_map(&["no colon".into()]).is_err());
        assert!(header_map(&["bad name: x".into()]).is_err());
    }

    #[test]
    fn credentials_are_told_by_name() {
        for name in ["authorization", "x-api-key", "cookie", "x-auth-token"] {
            assert!(is_credential(&HeaderName::from_static(name)), "{name}");
        }
        for name in ["accept", "x-request-id", "user-agent"] {
            assert!(!is_credential(&HeaderName::from_static(name)), "{name}");
        }
    }
}
