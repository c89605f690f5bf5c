//! OAuth 2.1 access tokens for an HTTP server: a suite's `server.auth` or
//! the `--auth-*` flags.
//!
//! Grants: `client_credentials`, `refresh_token` (a pre-issued one) and
//! `authorization_code` with PKCE S256 against an authorization server that
//! approves at once (no browser: the authorization endpoint's redirect is
//! read, not followed). Without a `token_url` the token endpoint is
//! discovered from the server's first 401: its `WWW-Authenticate: Bearer
//! resource_metadata="…"` names the protected-resource metadata (RFC 9728),
//! whose first authorization server's metadata (RFC 8414, or OpenID
//! discovery) names the endpoints. A client with no `client_id` registers
//! itself (RFC 7591) when the authorization server offers it.
//!
//! The small HTTP exchanges are written here on the session's own reqwest
//! (rustls) rather than through an OAuth crate: the flows are a few form
//! POSTs, and the parts a test client needs most (RFC 9728 discovery,
//! registration, reading an auto-approved redirect) are outside what those
//! crates cover.
//!
//! One [`Authorizer`] per server and auth settings lives for the whole run
//! ([`Authorizer::shared`]): its token is reused by every test, refreshed
//! when it expires or when a request is refused with 401, and kept in
//! memory only. Every token and secret it handles is registered with
//! [`issued_secrets`], which the run adds to its redactor, and no message
//! here quotes one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine as _;
use mcpcheck_core::suite::Grant;
use reqwest::header::{ACCEPT, LOCATION, WWW_AUTHENTICATE};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

/// Where the authorization server is told to send the code back. Nothing
/// listens there: the redirect is read from the `Location` header.
pub const REDIRECT_URI: &str = "http://127.0.0.1:9/mcpcheck/callback";

/// The longest any one exchange with the authorization server may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of a metadata or token answer is read.
const MAX_BODY: usize = 256 * 1024;

/// Why no access token could be had, by whose doing: the user's settings,
/// the authorization side's answers, or the network.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The client could not be set up on this machine.
    #[error("{0}")]
    Setup(String),
    /// The settings do not allow a token: something to give (`client_id`,
    /// `token_url`, a fresh `refresh_token`), or a secret withheld because
    /// it would leave the server's origin. Nothing was sent.
    #[error("auth: {0}")]
    Settings(String),
    /// The protected resource or the authorization server answered, but not
    /// as OAuth says (an HTTP error, metadata for someone else, a missing
    /// field).
    #[error("auth: {0}")]
    Answer(String),
    /// An endpoint could not be reached.
    #[error("auth: cannot reach {what}: {source}")]
    Unreachable {
        what: String,
        #[source]
        source: reqwest::Error,
    },
}

/// A suite's `auth` block with every `${ENV}` already expanded (`resource`
/// absent means the server URL, RFC 8707).
pub type AuthConfig = mcpcheck_core::suite::Auth;

/// Tokens and secrets seen in this run, for the redactor.
fn secrets() -> &'static Mutex<Vec<String>> {
    static SECRETS: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    SECRETS.get_or_init(Default::default)
}

fn remember(secret: &str) {
    if let Ok(mut s) = secrets().lock()
        && !secret.is_empty()
        && !s.iter().any(|x| x == secret)
    {
        s.push(secret.to_string());
    }
}

/// Every access token, refresh token and client secret this run used.
pub fn issued_secrets() -> Vec<String> {
    secrets().lock().map(|s| s.clone()).unwrap_or_default()
}

/// `redactor` that also hides every token and secret of [`issued_secrets`].
pub fn with_issued(redactor: &mcpcheck_core::redact::Redactor) -> mcpcheck_core::redact::Redactor {
    let mut r = redactor.clone();
    for s in issued_secrets() {
        r.secret(&s);
    }
    r
}

/// Gets, keeps and renews the access token for one server.
#[derive(Clone)]
pub struct Authorizer(Arc<Inner>);

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Authorizer({})", self.0.cfg.grant.as_str())
    }
}

struct Inner {
    cfg: AuthConfig,
    server_url: String,
    http: reqwest::Client,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    token: Option<Token>,
    refresh: Option<String>,
    endpoints: Option<Endpoints>,
    /// A client registered with RFC 7591: id and secret.
    registered: Option<(String, Option<String>)>,
}

struct Token {
    access: String,
    /// When to stop using it (a little before `expires_in` runs out).
    renew_at: Option<Instant>,
}

#[derive(Clone, Debug, Default)]
struct Endpoints {
    token: String,
    /// The token endpoint came from the authorization server's metadata
    /// (not from `token_url`): a secret the user gave is sent there only
    /// when it is on the server's origin.
    discovered: bool,
    authorization: Option<String>,
    registration: Option<String>,
    /// `token_endpoint_auth_methods_supported`.
    auth_methods: Vec<String>,
}

impl Authorizer {
    /// The run's authorizer for `server_url` with `cfg`: made once, then
    /// shared by every session, so the token is fetched once per run.
    pub fn shared(server_url: &str, cfg: AuthConfig) -> Result<Authorizer, AuthError> {
        static RUN: OnceLock<Mutex<HashMap<(String, AuthConfig), Authorizer>>> = OnceLock::new();
        for s in cfg.client_secret.iter().chain(&cfg.refresh_token) {
            remember(s);
        }
        let mut run = RUN
            .get_or_init(Default::default)
            .lock()
            .map_err(|_| AuthError::Setup("the token cache is unusable".into()))?;
        let key = (server_url.to_string(), cfg.clone());
        if let Some(a) = run.get(&key) {
            return Ok(a.clone());
        }
        let http = reqwest::Client::builder()
            .connect_timeout(EXCHANGE_TIMEOUT)
            .timeout(EXCHANGE_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| AuthError::Setup(format!("cannot create an HTTP client: {e}")))?;
        // The code flow needs the authorization endpoint: it always
        // comes from discovery, `token_url` only overriding the token
        // endpoint found there.
        let endpoints = match (&cfg.token_url, cfg.grant) {
            (Some(url), Grant::ClientCredentials | Grant::RefreshToken) => Some(Endpoints {
                token: url.clone(),
                ..Endpoints::default()
            }),
            _ => None,
        };
        let a = Authorizer(Arc::new(Inner {
            cfg: cfg.clone(),
            server_url: server_url.to_string(),
            http,
            state: tokio::sync::Mutex::new(State {
                refresh: cfg.refresh_token.clone(),
                endpoints,
                ..State::default()
            }),
        }));
        run.insert(key, a.clone());
        Ok(a)
    }

    /// The token to send now: the kept one while it is fresh, else a new
    /// one when the token endpoint is known; `None` when it is not known
    /// yet (discovery waits for the server's 401).
    pub async fn token(&self) -> Result<Option<String>, AuthError> {
        let mut state = self.0.state.lock().await;
        if let Some(t) = &state.token
            && t.renew_at.is_none_or(|at| Instant::now() < at)
        {
            return Ok(Some(t.access.clone()));
        }
        if state.endpoints.is_none() {
            return Ok(None);
        }
        self.0.renew(&mut state).await.map(Some)
    }

    /// The server refused a request that carried `sent` (or no token) with
    /// 401 and `www_authenticate`: a new token, discovering the
    /// authorization server first if need be. When another request already
    /// renewed the token, that one is returned.
    pub async fn after_unauthorized(
        &self,
        sent: Option<&str>,
        www_authenticate: Option<&str>,
    ) -> Result<String, AuthError> {
        let mut state = self.0.state.lock().await;
        if let Some(t) = &state.token {
            if Some(t.access.as_str()) != sent {
                return Ok(t.access.clone());
            }
            state.token = None;
        }
        if state.endpoints.is_none() {
            state.endpoints = Some(self.0.discover(www_authenticate).await?);
        }
        self.0.renew(&mut state).await
    }

    /// A token before the first request, for a transport whose first
    /// request cannot be sent again (legacy SSE's GET): when the token
    /// endpoint is not known, an unauthenticated GET of the server URL asks
    /// for its 401.
    pub async fn token_up_front(&self) -> Result<String, AuthError> {
        if let Some(t) = self.token().await? {
            return Ok(t);
        }
        let resp = self
            .0
            .http
            .get(&self.0.server_url)
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|source| AuthError::Unreachable {
                what: self.0.server_url.clone(),
                source,
            })?;
        let www = resp
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|h| h.to_str().ok())
            .map(str::to_string);
        self.after_unauthorized(None, www.as_deref()).await
    }
}

impl Inner {
    /// A new access token: with the refresh token when there is one (its
    /// failure falls back to the grant itself, unless the grant is the
    /// refresh token), else by the configured grant.
    async fn renew(&self, state: &mut State) -> Result<String, AuthError> {
        let endpoints = state.endpoints.clone().unwrap_or_default();
        self.may_send_secrets(&endpoints, state)?;
        if self.cfg.grant == Grant::AuthorizationCode
            && self.cfg.client_id.is_none()
            && state.registered.is_none()
        {
            state.registered = Some(self.register(&endpoints).await?);
        }
        let (client_id, client_secret) = match &state.registered {
            Some((id, secret)) => (Some(id.clone()), secret.clone()),
            None => (self.cfg.client_id.clone(), self.cfg.client_secret.clone()),
        };
        let client = Client {
            id: client_id,
            secret: client_secret,
            basic: !endpoints
                .auth_methods
                .iter()
                .any(|m| m == "client_secret_post")
                || endpoints
                    .auth_methods
                    .iter()
                    .any(|m| m == "client_secret_basic"),
        };
        let resource = self.cfg.resource.clone().unwrap_or(self.server_url.clone());
        let mut last_refresh_error = None;
        if let Some(refresh) = state.refresh.clone() {
            let mut form = vec![
                ("grant_type", "refresh_token".to_string()),
                ("refresh_token", refresh),
                ("resource", resource.clone()),
            ];
            form.extend(self.cfg.scope.clone().map(|s| ("scope", s)));
            match self.exchange(&endpoints.token, &client, form).await {
                Ok(tok) => return Ok(state.keep(tok)),
                Err(e) if self.cfg.grant == Grant::RefreshToken => return Err(e),
                Err(e) => {
                    state.refresh = None;
                    last_refresh_error = Some(e);
                }
            }
        }
        let form = match self.cfg.grant {
            Grant::RefreshToken => {
                return Err(last_refresh_error.unwrap_or_else(|| {
                    AuthError::Settings("the refresh token was used up and no new one was issued; give a fresh `refresh_token`".into())
                }));
            }
            Grant::ClientCredentials => {
                let mut form = vec![
                    ("grant_type", "client_credentials".to_string()),
                    ("resource", resource),
                ];
                form.extend(self.cfg.scope.clone().map(|s| ("scope", s)));
                form
            }
            Grant::AuthorizationCode => {
                let (code, verifier) = self.authorize(&endpoints, &client, &resource).await?;
                vec![
                    ("grant_type", "authorization_code".to_string()),
                    ("code", code),
                    ("redirect_uri", REDIRECT_URI.to_string()),
                    ("code_verifier", verifier),
                    ("resource", resource),
                ]
            }
        };
        let tok = self.exchange(&endpoints.token, &client, form).await?;
        Ok(state.keep(tok))
    }

    /// Whether the secrets the user gave (`client_secret`, a pre-issued
    /// `refresh_token`) may go to the token endpoint: they reach only the
    /// server's origin, or a `token_url` the user named. A token endpoint
    /// that discovery found on another origin is refused before anything
    /// is sent: a server's metadata may name any authorization server,
    /// and a client secret belongs to the one it was issued by.
    fn may_send_secrets(&self, endpoints: &Endpoints, state: &State) -> Result<(), AuthError> {
        let user_refresh = state.refresh.is_some() && state.refresh == self.cfg.refresh_token;
        let user_secret = self.cfg.client_secret.is_some() && state.registered.is_none();
        if !endpoints.discovered || !(user_secret || user_refresh) {
            return Ok(());
        }
        if same_origin(&endpoints.token, &self.server_url) {
            return Ok(());
        }
        let what = if user_secret {
            "`client_secret`"
        } else {
            "`refresh_token`"
        };
        Err(AuthError::Settings(format!(
            "the authorization server's metadata names the token endpoint {}, on another origin than the server {}; the {what} you gave is sent only to the server's origin or to a `token_url` you name, so nothing was sent. If that authorization server is the one your credentials are for, give `token_url: {}` (or --auth-token-url)",
            endpoints.token,
            origin_of(&self.server_url).unwrap_or_else(|| self.server_url.clone()),
            endpoints.token,
        )))
    }

    /// POST `form` to the token endpoint and read the token answer.
    async fn exchange(
        &self,
        token_url: &str,
        client: &Client,
        mut form: Vec<(&'static str, String)>,
    ) -> Result<Issued, AuthError> {
        let grant = form.first().map(|(_, g)| g.clone()).unwrap_or_default();
        let mut req = self.http.post(token_url).header(ACCEPT, "application/json");
        match (&client.id, &client.secret) {
            (Some(id), Some(secret)) if client.basic => {
                req = req.basic_auth(form_encode(id), Some(form_encode(secret)));
            }
            (Some(id), secret) => {
                form.push(("client_id", id.clone()));
                form.extend(secret.clone().map(|s| ("client_secret", s)));
            }
            (None, _) => {}
        }
        let body = form
            .iter()
            .map(|(k, v)| format!("{k}={}", form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let resp = req
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body)
            .send()
            .await
            .map_err(|source| AuthError::Unreachable {
                what: format!("the token endpoint {token_url}"),
                source,
            })?;
        let status = resp.status();
        let body = read_json(resp).await;
        if !status.is_success() {
            return Err(AuthError::Answer(format!(
                "the token endpoint {token_url} refused the {grant} grant: HTTP {status}{}",
                oauth_error(body.as_ref())
            )));
        }
        let body = body.ok_or_else(|| {
            AuthError::Answer(format!(
                "the token endpoint {token_url} answered the {grant} grant with no JSON"
            ))
        })?;
        let access = body
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                AuthError::Answer(format!(
                    "the token endpoint {token_url} answered the {grant} grant without an `access_token`"
                ))
            })?;
        remember(access);
        let refresh = body.get("refresh_token").and_then(Value::as_str);
        if let Some(r) = refresh {
            remember(r);
        }
        Ok(Issued {
            access: access.to_string(),
            refresh: refresh.map(str::to_string),
            expires_in: body.get("expires_in").and_then(Value::as_u64),
        })
    }

    /// RFC 9728 then RFC 8414: the authorization server's endpoints.
    async fn discover(&self, www_authenticate: Option<&str>) -> Result<Endpoints, AuthError> {
        let named = www_authenticate.and_then(|h| auth_param(h, "resource_metadata"));
        let candidates = match named {
            Some(url) => vec![url],
            None => well_known(&self.server_url, "oauth-protected-resource")?,
        };
        let (prm_url, prm) = self.first_json(&candidates).await.map_err(|why| {
            AuthError::Answer(format!(
                "no protected-resource metadata for {} ({why}); the server's 401 named {}; give `token_url` to skip discovery",
                self.server_url,
                www_authenticate.map_or("no WWW-Authenticate".into(), |h| format!("`WWW-Authenticate: {h}`")),
            ))
        })?;
        // RFC 9728 §3.3: metadata for another resource must not be used
        // (a server could otherwise send the client to another server's
        // authorization). As the TypeScript SDK does, a resource that
        // covers the server's URL (its origin, or a path above it) is the
        // server's.
        let resource = prm.get("resource").and_then(Value::as_str);
        let ours = |r: &str| {
            covers(r, &self.server_url)
                || self
                    .cfg
                    .resource
                    .as_deref()
                    .is_some_and(|c| same_resource(r, c))
        };
        match resource {
            Some(r) if ours(r) => {}
            Some(r) => {
                return Err(AuthError::Answer(format!(
                    "the protected-resource metadata at {prm_url} is for `{}`, not for {} (RFC 9728 §3.3: its `resource` must be the server's URL); it was not used",
                    mcpcheck_core::truncate(r, 200),
                    self.server_url
                )));
            }
            None => {
                return Err(AuthError::Answer(format!(
                    "the protected-resource metadata at {prm_url} has no `resource` (RFC 9728 §2 requires it); it was not used"
                )));
            }
        }
        let issuer = prm
            .get("authorization_servers")
            .and_then(|a| a.get(0))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                AuthError::Answer(format!(
                    "the protected-resource metadata at {prm_url} lists no `authorization_servers`"
                ))
            })?;
        let mut candidates = well_known(issuer, "oauth-authorization-server")?;
        candidates.extend(well_known(issuer, "openid-configuration")?);
        candidates.push(format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ));
        candidates.dedup();
        let (as_url, meta) = self.first_json(&candidates).await.map_err(|why| {
            AuthError::Answer(format!(
                "no authorization-server metadata for {issuer} ({why})"
            ))
        })?;
        let text = |k: &str| meta.get(k).and_then(Value::as_str).map(str::to_string);
        // RFC 8414 §3.3: the metadata of another issuer must not be used.
        match text("issuer") {
            Some(named) if same_resource(&named, issuer) => {}
            named => {
                return Err(AuthError::Answer(format!(
                    "the authorization-server metadata at {as_url} names the issuer {}, not `{issuer}` that the protected-resource metadata lists (RFC 8414 §3.3); it was not used",
                    named.map_or_else(
                        || "of no one (no `issuer`)".to_string(),
                        |n| format!("`{}`", mcpcheck_core::truncate(&n, 200))
                    ),
                )));
            }
        }
        let discovered = self.cfg.token_url.is_none();
        let token = self
            .cfg
            .token_url
            .clone()
            .or_else(|| text("token_endpoint"))
            .ok_or_else(|| {
                AuthError::Answer(format!(
                    "the authorization-server metadata at {as_url} has no `token_endpoint`"
                ))
            })?;
        Ok(Endpoints {
            token,
            discovered,
            authorization: text("authorization_endpoint"),
            registration: text("registration_endpoint"),
            auth_methods: meta
                .get("token_endpoint_auth_methods_supported")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        })
    }

    /// The first of `urls` that answers 200 with a JSON object.
    async fn first_json(&self, urls: &[String]) -> Result<(String, Value), Tried> {
        let mut tried = Vec::new();
        for url in urls {
            let outcome = match self
                .http
                .get(url)
                .header(ACCEPT, "application/json")
                .send()
                .await
            {
                Ok(resp) if resp.status().is_success() => match read_json(resp).await {
                    Some(v) if v.is_object() => return Ok((url.clone(), v)),
                    _ => "not a JSON object".to_string(),
                },
                Ok(resp) => format!("HTTP {}", resp.status()),
                Err(e) => e.to_string(),
            };
            tried.push(format!("{url}: {outcome}"));
        }
        Err(Tried(tried))
    }

    /// RFC 7591: register a public client for the code flow.
    async fn register(&self, endpoints: &Endpoints) -> Result<(String, Option<String>), AuthError> {
        let url = endpoints.registration.as_deref().ok_or_else(|| {
            AuthError::Settings("no `client_id` is given and the authorization server offers no `registration_endpoint`; give `client_id`".into())
        })?;
        let body = json!({
            "client_name": "mcpcheck",
            "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        });
        let resp = self
            .http
            .post(url)
            .json(&body)
            .send()
            .await
            .map_err(|source| AuthError::Unreachable {
                what: format!("the registration endpoint {url}"),
                source,
            })?;
        let status = resp.status();
        let answer = read_json(resp).await;
        if !status.is_success() {
            return Err(AuthError::Answer(format!(
                "the registration endpoint {url} refused to register a client: HTTP {status}{}",
                oauth_error(answer.as_ref())
            )));
        }
        let answer = answer.unwrap_or_default();
        let id = answer
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                AuthError::Answer(format!(
                    "the registration endpoint {url} answered without a `client_id`"
                ))
            })?;
        let secret = answer.get("client_secret").and_then(Value::as_str);
        if let Some(s) = secret {
            remember(s);
        }
        Ok((id.to_string(), secret.map(str::to_string)))
    }

    /// The authorization request with PKCE S256: its redirect is read, not
    /// followed. Returns the code and the verifier.
    async fn authorize(
        &self,
        endpoints: &Endpoints,
        client: &Client,
        resource: &str,
    ) -> Result<(String, String), AuthError> {
        let url = endpoints.authorization.as_deref().ok_or_else(|| {
            AuthError::Answer("the authorization-server metadata has no `authorization_endpoint`, which `type: authorization_code` needs".into())
        })?;
        let verifier = random_text();
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes()));
        let state = random_text();
        remember(&verifier);
        let mut query = vec![
            ("response_type", "code"),
            ("redirect_uri", REDIRECT_URI),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
            ("resource", resource),
        ];
        query.extend(client.id.as_deref().map(|id| ("client_id", id)));
        query.extend(self.cfg.scope.as_deref().map(|s| ("scope", s)));
        let mut asked = reqwest::Url::parse(url).map_err(|e| {
            AuthError::Answer(format!(
                "the authorization endpoint `{url}` is not a valid URL: {e}"
            ))
        })?;
        asked.query_pairs_mut().extend_pairs(&query);
        let resp = self
            .http
            .get(asked)
            .send()
            .await
            .map_err(|source| AuthError::Unreachable {
                what: format!("the authorization endpoint {url}"),
                source,
            })?;
        let status = resp.status();
        let location = resp
            .headers()
            .get(LOCATION)
            .and_then(|h| h.to_str().ok())
            .map(str::to_string);
        let Some(location) = location.filter(|_| status.is_redirection()) else {
            let body = read_json(resp).await;
            return Err(AuthError::Answer(format!(
                "the authorization endpoint {url} answered HTTP {status}{} instead of redirecting back; `type: authorization_code` needs an authorization server that approves at once (a test server)",
                oauth_error(body.as_ref())
            )));
        };
        let back = reqwest::Url::parse(&location).map_err(|_| {
            AuthError::Answer(format!(
                "the authorization endpoint {url} redirected to an unreadable URL"
            ))
        })?;
        let get = |k: &str| {
            back.query_pairs()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.into_owned())
        };
        if let Some(error) = get("error") {
            let why = get("error_description")
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            return Err(AuthError::Answer(format!(
                "the authorization endpoint {url} refused: {error}{why}"
            )));
        }
        if get("state").as_deref() != Some(state.as_str()) {
            return Err(AuthError::Answer(format!(
                "the authorization endpoint {url} redirected back with a `state` that is not the one sent; the answer was not used"
            )));
        }
        let code = get("code").ok_or_else(|| {
            AuthError::Answer(format!(
                "the authorization endpoint {url} redirected back without a `code`"
            ))
        })?;
        remember(&code);
        Ok((code, verifier))
    }
}

impl State {
    /// Keep a newly issued token (and its refresh token), returning it.
    fn keep(&mut self, tok: Issued) -> String {
        if tok.refresh.is_some() {
            self.refresh = tok.refresh;
        }
        // Renew a little early, but never sooner than half the lifetime:
        // a one-second token is still used for most of its second.
        let renew_at = tok.expires_in.map(|secs| {
            let life = Duration::from_secs(secs);
            Instant::now() + life.saturating_sub(Duration::from_secs(5)).max(life / 2)
        });
        self.token = Some(Token {
            access: tok.access.clone(),
            renew_at,
        });
        tok.access
    }
}

struct Client {
    id: Option<String>,
    secret: Option<String>,
    /// Send id and secret as HTTP Basic (else in the form).
    basic: bool,
}

struct Issued {
    access: String,
    refresh: Option<String>,
    expires_in: Option<u64>,
}

/// `application/x-www-form-urlencoded` text: form bodies, and Basic
/// credentials, which are form-encoded first (RFC 6749 §2.3.1).
fn form_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// 256 random bits as base64url text (a PKCE verifier, a state).
fn random_text() -> String {
    let mut bytes = Vec::with_capacity(32);
    bytes.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    bytes.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A JSON body, at most [`MAX_BODY`] bytes.
async fn read_json(mut resp: reqwest::Response) -> Option<Value> {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        if body.len() + chunk.len() > MAX_BODY {
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).ok()
}

/// `: error (description)` of an OAuth error answer, when it is one.
fn oauth_error(body: Option<&Value>) -> String {
    let Some(error) = body.and_then(|b| b.get("error")).and_then(Value::as_str) else {
        return String::new();
    };
    let text = |s: &str| mcpcheck_core::truncate(s, 200);
    match body
        .and_then(|b| b.get("error_description"))
        .and_then(Value::as_str)
    {
        Some(d) => format!(": {} ({})", text(error), text(d)),
        None => format!(": {}", text(error)),
    }
}

/// The value of `name` in a `WWW-Authenticate` header
/// (`Bearer resource_metadata="…", scope="…"`).
fn auth_param(header: &str, name: &str) -> Option<String> {
    let lower = header.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(name) {
        let start = from + at;
        from = start + name.len();
        let before = lower[..start].chars().last();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = header[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        return Some(match rest.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or_default().to_string(),
            None => rest
                .split([',', ' '])
                .next()
                .unwrap_or_default()
                .to_string(),
        });
    }
    None
}

/// `scheme://host:port` of `url`, when it is a URL.
fn origin_of(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url).ok()?;
    Some(parsed.origin().ascii_serialization())
}

/// Whether two URLs have the same origin (scheme, host and port).
pub fn same_origin(a: &str, b: &str) -> bool {
    match (reqwest::Url::parse(a), reqwest::Url::parse(b)) {
        (Ok(a), Ok(b)) => a.origin().is_tuple() && a.origin() == b.origin(),
        _ => false,
    }
}

/// Whether two resource or issuer identifiers are the same: identical once
/// parsed (scheme and host compared without regard to case, a default
/// port written or not), a trailing `/` on the path not counting.
fn same_resource(a: &str, b: &str) -> bool {
    match (reqwest::Url::parse(a), reqwest::Url::parse(b)) {
        (Ok(x), Ok(y)) => {
            x.origin() == y.origin()
                && x.origin().is_tuple()
                && x.path().trim_end_matches('/') == y.path().trim_end_matches('/')
                && x.query() == y.query()
        }
        _ => a == b,
    }
}

/// The URLs tried for metadata, each with what it answered.
struct Tried(Vec<String>);

impl std::fmt::Display for Tried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join("; "))
    }
}

/// Whether the resource identifier `resource` covers the URL `url`: the
/// same origin, and a path that is `url`'s or a segment above it
/// (`https://h` and `https://h/a` cover `https://h/a/mcp`; `https://h/b`
/// and `https://h/a/m` do not).
fn covers(resource: &str, url: &str) -> bool {
    match (reqwest::Url::parse(resource), reqwest::Url::parse(url)) {
        (Ok(r), Ok(u)) => {
            let base = r.path().trim_end_matches('/');
            let path = u.path().trim_end_matches('/');
            r.origin().is_tuple()
                && r.origin() == u.origin()
                && (path == base || path.starts_with(&format!("{base}/")))
        }
        _ => false,
    }
}

/// The well-known URLs of `suffix` for `url`: with the path inserted after
/// the well-known part (RFC 8414 §3.1, RFC 9728 §3.1), then at the root.
fn well_known(url: &str, suffix: &str) -> Result<Vec<String>, AuthError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| AuthError::Settings(format!("`{url}` is not a valid URL: {e}")))?;
    let origin = parsed.origin().ascii_serialization();
    let path = parsed.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty() {
        out.push(format!("{origin}/.well-known/{suffix}{path}"));
    }
    out.push(format!("{origin}/.well-known/{suffix}"));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_metadata_is_read_from_www_authenticate() {
        let h = r#"Bearer error="invalid_token", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope="a b""#;
        assert_eq!(
            auth_param(h, "resource_metadata").as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(auth_param(h, "scope").as_deref(), Some("a b"));
        assert_eq!(auth_param("Bearer realm=x", "resource_metadata"), None);
    }

    #[test]
    fn well_known_urls_insert_the_path_first() {
        assert_eq!(
            well_known("http://h:1/a/mcp", "oauth-protected-resource").unwrap(),
            [
                "http://h:1/.well-known/oauth-protected-resource/a/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            well_known("http://h/", "oauth-authorization-server").unwrap(),
            ["http://h/.well-known/oauth-authorization-server"]
        );
        // A URL the user gave that is not one is theirs to fix, not the
        // server's fault.
        let bad = well_known("not a url", "oauth-protected-resource").unwrap_err();
        assert!(matches!(bad, AuthError::Settings(_)), "{bad:?}");
        assert!(
            bad.to_string()
                .starts_with("auth: `not a url` is not a valid URL")
        );
    }

    #[test]
    fn resources_and_origins_are_compared_as_urls() {
        assert!(same_resource("http://H:80/mcp/", "http://h/mcp"));
        assert!(!same_resource("http://h/mcp", "http://h/other"));
        assert!(!same_resource("http://h/mcp", "https://h/mcp"));
        assert!(covers("http://h", "http://h/a/mcp"));
        assert!(covers("http://h/a/", "http://h/a/mcp"));
        assert!(!covers("http://h/a/m", "http://h/a/mcp"));
        assert!(!covers("http://h/b", "http://h/a/mcp"));
        assert!(!covers("http://other/a/mcp", "http://h/a/mcp"));
        assert!(same_origin("http://h:1/token", "http://h:1/mcp"));
        assert!(!same_origin("http://h:2/token", "http://h:1/mcp"));
        assert!(!same_origin("not a url", "not a url"));
    }

    #[test]
    fn basic_credentials_are_form_encoded() {
        assert_eq!(form_encode("a b:c/é"), "a+b%3Ac%2F%C3%A9");
    }
}
