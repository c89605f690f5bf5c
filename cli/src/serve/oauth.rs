//! `--oauth`: a small OAuth 2.1 authorization server on the same listener
//! as the MCP endpoint, which becomes a protected resource.
//!
//! Served here: authorization-server metadata (RFC 8414) at
//! [`AS_METADATA_PATH`], dynamic client registration (RFC 7591) at
//! [`REGISTER_PATH`], the authorization endpoint at [`AUTHORIZE_PATH`] (it
//! approves at once and redirects back with `code` and `state`: a server
//! for tests and headless clients, with nobody to ask) and the token
//! endpoint at [`TOKEN_PATH`] (`authorization_code` with PKCE S256,
//! `client_credentials`, `refresh_token`). Every token is bound to the
//! resource (RFC 8707) it was asked for; the MCP endpoint accepts only
//! tokens for its own URL. The issuer is the origin a request names.
//!
//! The authorization response names the issuer in `iss` (RFC 9207, and the
//! metadata says so); a `client_id` that is the URL of a Client ID Metadata
//! Document (https, or http on a loopback host) is fetched and its
//! `redirect_uris` honoured; tokens carry scopes ([`SCOPES`], all of them
//! unless fewer are asked for), and the MCP endpoint needs [`MCP_SCOPE`]: a
//! valid token without it gets 403 `insufficient_scope` ([`OAuth::scope_challenge`]).
//!
//! Tokens, codes and secrets are random and never printed. Clients are
//! numbered (`client-1`, `client-2`, … in registration order), so everything
//! but the random values and the expiry is the same from run to run.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine as _;
use http::{HeaderMap, Method, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::auth::Identity;
use super::faults::{Fault, FaultSet};
use super::http::{Body, json_response, plain, read_body_at_most};

/// Where the authorization-server metadata is served.
pub const AS_METADATA_PATH: &str = "/.well-known/oauth-authorization-server";
/// The authorization endpoint.
pub const AUTHORIZE_PATH: &str = "/authorize";
/// The token endpoint.
pub const TOKEN_PATH: &str = "/token";
/// The dynamic client registration endpoint.
pub const REGISTER_PATH: &str = "/register";

/// The scopes the server issues: the MCP endpoint needs [`MCP_SCOPE`];
/// `profile` gives nothing there (a narrower token, as a client may hold).
pub const SCOPES: [&str; 2] = ["mcp", "profile"];

/// The scope the MCP endpoint needs.
pub const MCP_SCOPE: &str = "mcp";

/// The issuer `oauth-wrong-iss` names in authorization responses.
const WRONG_ISSUER: &str = "https://evil.example";

/// How long fetching a Client ID Metadata Document may take.
const CIMD_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest Client ID Metadata Document read.
const MAX_CIMD_BYTES: usize = 64 * 1024;

/// How long an authorization code may wait for its exchange.
const CODE_TTL: Duration = Duration::from_secs(60);

/// How long a refresh token lives, in access-token lifetimes.
const REFRESH_LIFETIMES: u32 = 24;

/// The most live tokens and codes each; past it the server refuses to
/// issue more, so a client in a loop cannot exhaust memory.
const MAX_ENTRIES: usize = 100_000;

/// The most registered clients.
const MAX_CLIENTS: usize = 10_000;

/// What the registered clients may hold together (their ids, secrets and
/// redirect URIs), so registrations cannot exhaust memory either.
const MAX_CLIENT_BYTES: usize = 16 * 1024 * 1024;

/// The largest body `/register` and `/token` read.
const MAX_FORM_BYTES: usize = 64 * 1024;

/// The most redirect URIs one client registers.
const MAX_REDIRECT_URIS: usize = 16;

/// The longest URL kept (a redirect URI, a resource): longer ones are
/// refused rather than stored with every code and token.
const MAX_URL_BYTES: usize = 2048;

/// A registered client.
#[derive(Debug, Clone)]
struct Client {
    /// `None` for a public client (`token_endpoint_auth_method: none`).
    secret: Option<String>,
    /// Where `/authorize` may send the user back; empty: any absolute URL
    /// (a client given with `--oauth-client`).
    redirect_uris: Vec<String>,
}

#[derive(Debug, Clone)]
struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: Option<String>,
    /// `plain` under `oauth-plain-pkce` when asked; `S256` otherwise.
    challenge_method: String,
    resource: Option<String>,
    scopes: Vec<String>,
    expires: Instant,
}

#[derive(Debug, Clone)]
struct Grant {
    client_id: String,
    resource: String,
    scopes: Vec<String>,
    expires: Instant,
}

#[derive(Debug, Default)]
struct State {
    clients: HashMap<String, Client>,
    /// What the registered clients hold, in bytes (see [`MAX_CLIENT_BYTES`]).
    client_bytes: usize,
    registered: u64,
    codes: HashMap<String, Code>,
    access: HashMap<String, Grant>,
    refresh: HashMap<String, Grant>,
}

/// The authorization server and the token check of the protected resource.
#[derive(Debug)]
pub struct OAuth {
    ttl: Duration,
    faults: FaultSet,
    /// The MCP endpoint's path: the resource is the origin followed by it.
    path: String,
    state: Mutex<State>,
}

/// Why a token request failed: the OAuth error code, a description, and
/// the status (400, or 401 for `invalid_client`).
struct Refused(StatusCode, &'static str, String);

fn bad(error: &'static str, description: impl Into<String>) -> Refused {
    Refused(StatusCode::BAD_REQUEST, error, description.into())
}

/// Why a Client ID Metadata Document was not taken; answered as
/// `invalid_client` with this description.
#[derive(Debug, thiserror::Error)]
enum MetadataError {
    #[error("cannot fetch client metadata: {0}")]
    Client(#[source] reqwest::Error),
    #[error("cannot fetch the client metadata document: {0}")]
    Fetch(#[source] reqwest::Error),
    #[error("the client metadata document answered HTTP {0}")]
    Status(u16),
    #[error("cannot read the client metadata document: {0}")]
    Read(#[source] reqwest::Error),
    #[error("the client metadata document is longer than 64 KiB")]
    TooLong,
    #[error("the client metadata document did not arrive in time")]
    Late,
    #[error("the client metadata document is not JSON")]
    NotJson,
    #[error("the client metadata document's client_id is not its URL")]
    ClientId,
    #[error("the client metadata document has no client_name")]
    NoName,
    #[error("the client metadata document needs 1 to 16 absolute redirect_uris")]
    RedirectUris,
    #[error("too many clients registered")]
    TooManyClients,
}

impl OAuth {
    /// `clients`: `(id, secret)` pairs registered before any request.
    pub fn new(
        ttl: Duration,
        clients: Vec<(String, String)>,
        faults: FaultSet,
        path: &str,
    ) -> Self {
        let mut state = State::default();
        for (id, secret) in clients {
            state.clients.insert(
                id,
                Client {
                    secret: Some(secret),
                    redirect_uris: Vec::new(),
                },
            );
        }
        Self {
            ttl,
            faults,
            path: path.to_owned(),
            state: Mutex::new(state),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // Plain maps updated in one step: a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `path` is one of the authorization server's.
    pub fn handles(path: &str) -> bool {
        matches!(
            path,
            AS_METADATA_PATH | AUTHORIZE_PATH | TOKEN_PATH | REGISTER_PATH
        )
    }

    /// Answers a request to one of the authorization server's paths;
    /// `origin` is `http://HOST` as the request names this server.
    pub async fn serve(
        &self,
        request: Request<Incoming>,
        origin: &str,
        timeout: Duration,
    ) -> Response<Body> {
        let path = request.uri().path().to_owned();
        let method = request.method().clone();
        match (method, path.as_str()) {
            (Method::GET, AS_METADATA_PATH) => {
                json_response(StatusCode::OK, self.metadata(origin).to_string())
            }
            (Method::GET, AUTHORIZE_PATH) => {
                self.authorize(request.uri().query().unwrap_or(""), origin)
                    .await
            }
            (Method::POST, TOKEN_PATH | REGISTER_PATH) => {
                let headers = request.headers().clone();
                let body = match read_body_at_most(
                    request.into_body(),
                    timeout,
                    MAX_FORM_BYTES,
                    "Payload Too Large: an authorization-server request body is at most 64 KiB",
                )
                .await
                {
                    Ok(body) => body,
                    Err(response) => return response,
                };
                if path == TOKEN_PATH {
                    self.token(&headers, &body, origin)
                } else {
                    self.register(&body)
                }
            }
            (_, AS_METADATA_PATH | AUTHORIZE_PATH) => not_allowed("GET"),
            _ => not_allowed("POST"),
        }
    }

    /// RFC 8414 §2, with what MCP asks of it (PKCE S256, registration).
    fn metadata(&self, origin: &str) -> Value {
        let mut doc = json!({
            "issuer": origin,
            "authorization_endpoint": format!("{origin}{AUTHORIZE_PATH}"),
            "token_endpoint": format!("{origin}{TOKEN_PATH}"),
            "registration_endpoint": format!("{origin}{REGISTER_PATH}"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "client_credentials", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": SCOPES,
            "authorization_response_iss_parameter_supported": true,
            "client_id_metadata_document_supported": true,
        });
        if let Some(map) = doc.as_object_mut() {
            if self.faults.has(Fault::OauthNoIss) {
                map.remove("authorization_response_iss_parameter_supported");
            }
            if self.faults.has(Fault::OauthNoCimd) {
                map.remove("client_id_metadata_document_supported");
            }
        }
        if self.faults.has(Fault::OauthMetadataMissingFields)
            && let Some(map) = doc.as_object_mut()
        {
            map.remove("response_types_supported");
            map.remove("code_challenge_methods_supported");
        }
        doc
    }

    /// `GET /authorize`: approved at once, answered with a redirect to the
    /// `redirect_uri` carrying `code`, `state` and `iss` (the issuer,
    /// `origin`). A request that names no known client or redirect URI is
    /// answered 400 (never redirected). A `client_id` that is a URL is a
    /// Client ID Metadata Document, fetched.
    async fn authorize(&self, query: &str, origin: &str) -> Response<Body> {
        let params = form(query.as_bytes());
        let get = |name: &str| param(&params, name);
        let Some(client_id) = get("client_id") else {
            return oauth_error(bad("invalid_request", "client_id is required"));
        };
        let known = self.lock().clients.get(client_id).cloned();
        let client = match known {
            Some(client) => client,
            None if is_metadata_url(client_id) && !self.faults.has(Fault::OauthNoCimd) => {
                match self.client_metadata(client_id).await {
                    Ok(client) => client,
                    Err(why) => return oauth_error(bad("invalid_client", why.to_string())),
                }
            }
            // `oauth-any-client`: anyone is a client, sent anywhere.
            None if self.faults.has(Fault::OauthAnyClient) => Client {
                secret: None,
                redirect_uris: Vec::new(),
            },
            None => return oauth_error(bad("invalid_client", "unknown client_id")),
        };
        let redirect_uri = match get("redirect_uri") {
            Some(uri) => uri,
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].as_str(),
            None => return oauth_error(bad("invalid_request", "redirect_uri is required")),
        };
        let known =
            if client.redirect_uris.is_empty() || self.faults.has(Fault::OauthRedirectAnyUri) {
                absolute_url(redirect_uri)
            } else {
                client.redirect_uris.iter().any(|u| u == redirect_uri)
            };
        if !known {
            return oauth_error(bad(
                "invalid_request",
                "redirect_uri is not registered for this client",
            ));
        }
        let mut back: Vec<(&str, String)> = Vec::new();
        match self.issue_code(client_id, redirect_uri, &params) {
            Ok(code) => back.push(("code", code)),
            Err(Refused(_, error, description)) => {
                back.push(("error", error.to_owned()));
                back.push(("error_description", description));
            }
        }
        if let Some(state) = get("state") {
            back.push(("state", state.to_owned()));
        }
        // RFC 9207: the issuer, on success and error alike.
        if self.faults.has(Fault::OauthWrongIss) {
            back.push(("iss", WRONG_ISSUER.to_owned()));
        } else if !self.faults.has(Fault::OauthNoIss) {
            back.push(("iss", origin.to_owned()));
        }
        let separator = if redirect_uri.contains('?') { '&' } else { '?' };
        let location = format!("{redirect_uri}{separator}{}", encode_form(&back));
        let mut response = plain(StatusCode::FOUND, "Found");
        if let Ok(value) = http::HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, value);
        }
        response
    }

    fn issue_code(
        &self,
        client_id: &str,
        redirect_uri: &str,
        params: &HashMap<String, String>,
    ) -> Result<String, Refused> {
        let get = |name: &str| param(params, name);
        if get("response_type") != Some("code") {
            return Err(bad(
                "unsupported_response_type",
                "response_type must be code",
            ));
        }
        let challenge = get("code_challenge").map(str::to_owned);
        let method = get("code_challenge_method").unwrap_or("plain").to_owned();
        if !self.faults.has(Fault::OauthNoPkce) {
            if challenge.is_none() {
                return Err(bad("invalid_request", "code_challenge is required (PKCE)"));
            }
            let plain_taken = self.faults.has(Fault::OauthPlainPkce) && method == "plain";
            if method != "S256" && !plain_taken {
                return Err(bad("invalid_request", "code_challenge_method must be S256"));
            }
        }
        let scopes = scopes_asked(get("scope"))?;
        let resource = get("resource").map(str::to_owned);
        if resource.as_deref().is_some_and(|r| !absolute_url(r)) {
            return Err(bad("invalid_target", "resource must be an absolute URL"));
        }
        if resource.as_deref().is_some_and(|r| r.len() > MAX_URL_BYTES)
            || redirect_uri.len() > MAX_URL_BYTES
        {
            return Err(bad(
                "invalid_request",
                "resource and redirect_uri are at most 2048 bytes",
            ));
        }
        let code = random("ac");
        let mut state = self.lock();
        let now = Instant::now();
        state.codes.retain(|_, c| c.expires > now);
        if state.codes.len() >= MAX_ENTRIES {
            return Err(bad("temporarily_unavailable", "too many codes pending"));
        }
        state.codes.insert(
            code.clone(),
            Code {
                client_id: client_id.to_owned(),
                redirect_uri: redirect_uri.to_owned(),
                challenge,
                challenge_method: method,
                resource,
                scopes,
                expires: now + CODE_TTL,
            },
        );
        Ok(code)
    }

    /// `POST /register` (RFC 7591): a JSON body with `redirect_uris` and
    /// optionally `token_endpoint_auth_method` (`none` for a public client).
    fn register(&self, body: &[u8]) -> Response<Body> {
        let Ok(Value::Object(asked)) = serde_json::from_slice::<Value>(body) else {
            return registration_error("the body must be a JSON object");
        };
        let redirect_uris: Vec<String> = match asked.get("redirect_uris") {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                let uris: Vec<String> = items
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|u| absolute_url(u))
                    .map(str::to_owned)
                    .collect();
                if uris.len() != items.len() {
                    return registration_error("every redirect_uris entry must be an absolute URL");
                }
                if uris.len() > MAX_REDIRECT_URIS || uris.iter().any(|u| u.len() > MAX_URL_BYTES) {
                    return registration_error(
                        "at most 16 redirect_uris of at most 2048 bytes each are registered",
                    );
                }
                uris
            }
            Some(_) => return registration_error("redirect_uris must be an array"),
        };
        let method = match asked.get("token_endpoint_auth_method") {
            None => "client_secret_basic",
            Some(Value::String(m)) if m == "none" => "none",
            Some(Value::String(m)) if m == "client_secret_basic" => "client_secret_basic",
            Some(Value::String(m)) if m == "client_secret_post" => "client_secret_post",
            Some(_) => {
                return registration_error(
                    "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post",
                );
            }
        };
        let secret = (method != "none").then(|| random("cs"));
        let mut state = self.lock();
        let size = client_size(secret.as_deref(), &redirect_uris);
        if state.clients.len() >= MAX_CLIENTS || state.client_bytes + size > MAX_CLIENT_BYTES {
            return registration_error("too many clients registered");
        }
        state.registered += 1;
        state.client_bytes += size;
        let client_id = format!("client-{}", state.registered);
        state.clients.insert(
            client_id.clone(),
            Client {
                secret: secret.clone(),
                redirect_uris: redirect_uris.clone(),
            },
        );
        drop(state);
        let mut doc = json!({
            "client_id": client_id,
            "redirect_uris": redirect_uris,
            "token_endpoint_auth_method": method,
            "grant_types": if secret.is_some() {
                json!(["authorization_code", "client_credentials", "refresh_token"])
            } else {
                json!(["authorization_code", "refresh_token"])
            },
            "response_types": ["code"],
        });
        if let (Some(secret), Some(map)) = (secret, doc.as_object_mut()) {
            map.insert("client_secret".into(), json!(secret));
            map.insert("client_secret_expires_at".into(), json!(0));
        }
        if let (Some(name), Some(map)) = (asked.get("client_name"), doc.as_object_mut()) {
            map.insert("client_name".into(), name.clone());
        }
        let mut response = json_response(StatusCode::CREATED, doc.to_string());
        no_store(&mut response);
        response
    }

    /// `POST /token`.
    fn token(&self, headers: &HeaderMap, body: &[u8], origin: &str) -> Response<Body> {
        let params = form(body);
        let default_resource = format!("{origin}{}", self.path);
        match self.grant(headers, &params, &default_resource) {
            Ok(doc) => {
                let mut response = json_response(StatusCode::OK, doc.to_string());
                no_store(&mut response);
                response
            }
            Err(refused) => oauth_error(refused),
        }
    }

    fn grant(
        &self,
        headers: &HeaderMap,
        params: &HashMap<String, String>,
        default_resource: &str,
    ) -> Result<Value, Refused> {
        let get = |name: &str| param(params, name);
        let client_id = self.client(headers, params)?;
        let asked_resource = get("resource").map(str::to_owned);
        if asked_resource.as_deref().is_some_and(|r| !absolute_url(r)) {
            return Err(bad("invalid_target", "resource must be an absolute URL"));
        }
        if asked_resource
            .as_deref()
            .is_some_and(|r| r.len() > MAX_URL_BYTES)
        {
            return Err(bad("invalid_target", "resource is at most 2048 bytes"));
        }
        match get("grant_type") {
            Some("client_credentials") => {
                if self
                    .lock()
                    .clients
                    .get(&client_id)
                    .and_then(|c| c.secret.as_ref())
                    .is_none()
                {
                    return Err(bad(
                        "unauthorized_client",
                        "client_credentials needs a confidential client",
                    ));
                }
                let resource = asked_resource.unwrap_or_else(|| default_resource.to_owned());
                let scopes = scopes_asked(get("scope"))?;
                self.tokens(&client_id, &resource, &scopes, false)
            }
            Some("authorization_code") => {
                let code = self.redeem(&client_id, params)?;
                let resource = asked_resource
                    .or(code.resource)
                    .unwrap_or_else(|| default_resource.to_owned());
                self.tokens(&client_id, &resource, &code.scopes, true)
            }
            Some("refresh_token") => {
                let presented = get("refresh_token")
                    .ok_or_else(|| bad("invalid_request", "refresh_token is required"))?;
                let now = Instant::now();
                let grant = {
                    let mut state = self.lock();
                    match state.refresh.remove(presented) {
                        Some(g) if g.client_id == client_id && g.expires > now => g,
                        Some(g) => {
                            // Another client's token stays usable by its owner.
                            if g.client_id != client_id {
                                state.refresh.insert(presented.to_owned(), g);
                            }
                            return Err(bad("invalid_grant", "the refresh token is not valid"));
                        }
                        None => {
                            return Err(bad("invalid_grant", "the refresh token is not valid"));
                        }
                    }
                };
                if asked_resource
                    .as_ref()
                    .is_some_and(|r| *r != grant.resource)
                {
                    return Err(bad(
                        "invalid_target",
                        "a refresh token serves only the resource it was issued for",
                    ));
                }
                self.tokens(&client_id, &grant.resource, &grant.scopes, true)
            }
            Some(_) => Err(bad(
                "unsupported_grant_type",
                "grant_type must be authorization_code, client_credentials or refresh_token",
            )),
            None => Err(bad("invalid_request", "grant_type is required")),
        }
    }

    /// The authorization code of the request, used up, checked against the
    /// client, the redirect URI and the PKCE verifier.
    fn redeem(&self, client_id: &str, params: &HashMap<String, String>) -> Result<Code, Refused> {
        let get = |name: &str| param(params, name);
        let presented = get("code").ok_or_else(|| bad("invalid_request", "code is required"))?;
        let code = self
            .lock()
            .codes
            .remove(presented)
            .filter(|c| c.expires > Instant::now() && c.client_id == client_id)
            .ok_or_else(|| bad("invalid_grant", "the authorization code is not valid"))?;
        if get("redirect_uri").is_some_and(|uri| uri != code.redirect_uri) {
            return Err(bad(
                "invalid_grant",
                "redirect_uri differs from the authorization request's",
            ));
        }
        if !self.faults.has(Fault::OauthNoPkce) {
            let verifier = get("code_verifier")
                .ok_or_else(|| bad("invalid_grant", "code_verifier is required (PKCE)"))?;
            let expected = if code.challenge_method == "plain" {
                verifier.to_owned()
            } else {
                s256(verifier)
            };
            if code.challenge.as_deref() != Some(expected.as_str()) {
                return Err(bad(
                    "invalid_grant",
                    "code_verifier does not match the code_challenge",
                ));
            }
        }
        Ok(code)
    }

    /// The client a token request authenticates as: HTTP Basic, or
    /// `client_id` (+ `client_secret`) in the body.
    fn client(
        &self,
        headers: &HeaderMap,
        params: &HashMap<String, String>,
    ) -> Result<String, Refused> {
        let invalid = || {
            Refused(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "client authentication failed".into(),
            )
        };
        let (id, secret) = match basic_credentials(headers) {
            Some(pair) => pair,
            None => (
                params
                    .get("client_id")
                    .cloned()
                    .ok_or_else(|| bad("invalid_request", "client_id is required"))?,
                params.get("client_secret").cloned(),
            ),
        };
        let state = self.lock();
        // `oauth-any-client`: neither the id nor the secret is checked.
        if self.faults.has(Fault::OauthAnyClient) {
            return Ok(id);
        }
        let client = state.clients.get(&id).ok_or_else(invalid)?;
        match (&client.secret, secret) {
            (None, _) => Ok(id),
            (Some(expected), Some(given)) if constant_time_eq(expected, &given) => Ok(id),
            _ => Err(invalid()),
        }
    }

    /// An access token (and a refresh token when asked) for `resource`, of
    /// `scopes`.
    fn tokens(
        &self,
        client_id: &str,
        resource: &str,
        scopes: &[String],
        refresh: bool,
    ) -> Result<Value, Refused> {
        let now = Instant::now();
        let access = random("at");
        let mut state = self.lock();
        if !self.faults.has(Fault::OauthExpiredAccepted) {
            state.access.retain(|_, g| g.expires > now);
        }
        state.refresh.retain(|_, g| g.expires > now);
        if state.access.len() >= MAX_ENTRIES || state.refresh.len() >= MAX_ENTRIES {
            return Err(bad("temporarily_unavailable", "too many live tokens"));
        }
        let grant = |ttl: Duration| Grant {
            client_id: client_id.to_owned(),
            resource: resource.to_owned(),
            scopes: scopes.to_vec(),
            expires: now + ttl,
        };
        state.access.insert(access.clone(), grant(self.ttl));
        let mut doc = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.ttl.as_secs(),
            "scope": scopes.join(" "),
        });
        if refresh {
            let token = random("rt");
            state
                .refresh
                .insert(token.clone(), grant(self.ttl * REFRESH_LIFETIMES));
            if let Some(map) = doc.as_object_mut() {
                map.insert("refresh_token".into(), json!(token));
            }
        }
        Ok(doc)
    }

    /// The identity behind an access token presented to the MCP endpoint
    /// whose URL is `resource`: `oauth:CLIENT_ID`, or `None` when the token
    /// is unknown, expired or for another resource.
    pub fn authenticate(&self, token: &[u8], resource: &str) -> Option<Identity> {
        let token = std::str::from_utf8(token).ok()?;
        let state = self.lock();
        let grant = state.access.get(token)?;
        let live = grant.expires > Instant::now() || self.faults.has(Fault::OauthExpiredAccepted);
        let ours = grant.resource == resource || self.faults.has(Fault::OauthWrongAudience);
        let scoped = grant.scopes.iter().any(|s| s == MCP_SCOPE);
        (live && ours && scoped).then(|| Identity::named(format!("oauth:{}", grant.client_id)))
    }

    /// The scope a live token for `resource` lacks ([`MCP_SCOPE`]), when it
    /// lacks it: the endpoint then answers 403 `insufficient_scope` naming
    /// it. `None` for a token without that problem (unknown, expired, for
    /// another resource, or enough), and under `oauth-scope-401` (a plain
    /// 401 then).
    pub fn scope_challenge(&self, token: &[u8], resource: &str) -> Option<&'static str> {
        if self.faults.has(Fault::OauthScope401) {
            return None;
        }
        let token = std::str::from_utf8(token).ok()?;
        let state = self.lock();
        let grant = state.access.get(token)?;
        let live = grant.expires > Instant::now() || self.faults.has(Fault::OauthExpiredAccepted);
        let ours = grant.resource == resource || self.faults.has(Fault::OauthWrongAudience);
        (live && ours && !grant.scopes.iter().any(|s| s == MCP_SCOPE)).then_some(MCP_SCOPE)
    }

    /// The client a Client ID Metadata Document describes: fetched from
    /// `url` (no redirects, [`CIMD_TIMEOUT`], at most [`MAX_CIMD_BYTES`]),
    /// a JSON object whose `client_id` is `url` exactly, with `client_name`
    /// and `redirect_uris`; a public client, registered under its URL.
    async fn client_metadata(&self, url: &str) -> Result<Client, MetadataError> {
        let fetch = async {
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(CIMD_TIMEOUT)
                .build()
                .map_err(MetadataError::Client)?;
            let mut answer = http
                .get(url)
                .header("accept", "application/json")
                .send()
                .await
                .map_err(MetadataError::Fetch)?;
            if !answer.status().is_success() {
                return Err(MetadataError::Status(answer.status().as_u16()));
            }
            let mut body = Vec::new();
            while let Some(chunk) = answer.chunk().await.map_err(MetadataError::Read)? {
                if body.len() + chunk.len() > MAX_CIMD_BYTES {
                    return Err(MetadataError::TooLong);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(body)
        };
        let body = tokio::time::timeout(CIMD_TIMEOUT, fetch)
            .await
            .map_err(|_| MetadataError::Late)??;
        let doc: Value = serde_json::from_slice(&body).map_err(|_| MetadataError::NotJson)?;
        if doc.get("client_id").and_then(Value::as_str) != Some(url) {
            return Err(MetadataError::ClientId);
        }
        if doc.get("client_name").and_then(Value::as_str).is_none() {
            return Err(MetadataError::NoName);
        }
        let redirect_uris: Vec<String> = doc
            .get("redirect_uris")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if redirect_uris.is_empty()
            || redirect_uris.len() > MAX_REDIRECT_URIS
            || redirect_uris
                .iter()
                .any(|u| !absolute_url(u) || u.len() > MAX_URL_BYTES)
        {
            return Err(MetadataError::RedirectUris);
        }
        let client = Client {
            secret: None,
            redirect_uris,
        };
        let mut state = self.lock();
        let size = client_size(None, &client.redirect_uris) + url.len();
        if state.clients.len() >= MAX_CLIENTS || state.client_bytes + size > MAX_CLIENT_BYTES {
            return Err(MetadataError::TooManyClients);
        }
        state.client_bytes += size;
        state.clients.insert(url.to_owned(), client.clone());
        Ok(client)
    }
}

/// Whether a `client_id` names a Client ID Metadata Document: an https URL
/// with a path, or an http one on a loopback host (for tests).
fn is_metadata_url(client_id: &str) -> bool {
    let Ok(uri) = client_id.parse::<http::Uri>() else {
        return false;
    };
    let has_path = uri.path().len() > 1;
    match (uri.scheme_str(), uri.host()) {
        (Some("https"), Some(_)) => has_path,
        (Some("http"), Some(host)) => {
            has_path && matches!(host, "127.0.0.1" | "localhost" | "[::1]" | "::1")
        }
        _ => false,
    }
}

/// The scopes a request asks for (`scope`, space-separated), each one of
/// [`SCOPES`]; every scope when it asks for none.
fn scopes_asked(scope: Option<&str>) -> Result<Vec<String>, Refused> {
    let asked: Vec<String> = scope
        .unwrap_or("")
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    if asked.is_empty() {
        return Ok(SCOPES.iter().map(|s| (*s).to_owned()).collect());
    }
    if let Some(unknown) = asked.iter().find(|s| !SCOPES.contains(&s.as_str())) {
        return Err(bad(
            "invalid_scope",
            format!("unknown scope `{unknown}` (scopes: {})", SCOPES.join(" ")),
        ));
    }
    Ok(asked)
}

/// What one registered client holds, in bytes, with room for its id and
/// the map's entry.
fn client_size(secret: Option<&str>, redirect_uris: &[String]) -> usize {
    64 + secret.map_or(0, str::len) + redirect_uris.iter().map(|u| u.len() + 24).sum::<usize>()
}

fn param<'p>(params: &'p HashMap<String, String>, name: &str) -> Option<&'p str> {
    params.get(name).map(String::as_str)
}

/// `PREFIX_` and 64 random hex digits (256 bits from the OS's generator,
/// through two version-4 UUIDs: 244 random bits).
fn random(prefix: &str) -> String {
    format!(
        "{prefix}_{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// The PKCE S256 challenge of a verifier (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

fn absolute_url(text: &str) -> bool {
    text.parse::<http::Uri>()
        .is_ok_and(|u| u.scheme().is_some() && u.host().is_some())
}

fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The `id:secret` of an `Authorization: Basic` header (RFC 6749 §2.3.1:
/// each part form-encoded).
fn basic_credentials(headers: &HeaderMap) -> Option<(String, Option<String>)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    Some((percent_decode(id), Some(percent_decode(secret))))
}

/// The pairs of an `application/x-www-form-urlencoded` text (a repeated
/// name keeps its first value).
fn form(text: &[u8]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for pair in String::from_utf8_lossy(text).split('&') {
        if pair.is_empty() {
            continue;
        }
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        out.entry(percent_decode(name))
            .or_insert_with(|| percent_decode(value));
    }
    out
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..=i + 2]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Text as one component of `application/x-www-form-urlencoded`: every
/// byte but the unreserved ones percent-encoded.
pub fn form_component(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Pairs as `application/x-www-form-urlencoded`.
pub fn encode_form(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(name, value)| format!("{}={}", form_component(name), form_component(value)))
        .collect::<Vec<_>>()
        .join("&")
}

fn no_store(response: &mut Response<Body>) {
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
}

/// An OAuth error answer (RFC 6749 §5.2).
fn oauth_error(Refused(status, error, description): Refused) -> Response<Body> {
    let mut response = json_response(
        status,
        json!({ "error": error, "error_description": description }).to_string(),
    );
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            http::HeaderValue::from_static(r#"Basic realm="mcpcheck""#),
        );
    }
    no_store(&mut response);
    response
}

/// A refused registration (RFC 7591 §3.2.2).
fn registration_error(description: &str) -> Response<Body> {
    json_response(
        StatusCode::BAD_REQUEST,
        json!({ "error": "invalid_client_metadata", "error_description": description }).to_string(),
    )
}

fn not_allowed(allow: &'static str) -> Response<Body> {
    let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed");
    response
        .headers_mut()
        .insert(header::ALLOW, http::HeaderValue::from_static(allow));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn forms_are_decoded_and_encoded() {
        let parsed = form(b"a=1&b=x%20y+z&c=%2&a=2&d");
        assert_eq!(parsed["a"], "1");
        assert_eq!(parsed["b"], "x y z");
        assert_eq!(parsed["c"], "%2");
        assert_eq!(parsed["d"], "");
        let encoded = encode_form(&[("state", "a b&c".into())]);
        assert_eq!(encoded, "state=a%20b%26c");
        assert_eq!(form(encoded.as_bytes())["state"], "a b&c");
    }

    #[test]
    fn tokens_are_bound_to_their_resource_and_expire() {
        let oauth = OAuth::new(
            Duration::from_secs(3600),
            vec![("c".into(), "s".into())],
            FaultSet::default(),
            "/mcp",
        );
        let doc = oauth
            .tokens("c", "http://h/mcp", &["mcp".to_owned()], false)
            .ok()
            .and_then(|d| d["access_token"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let who = oauth.authenticate(doc.as_bytes(), "http://h/mcp");
        assert_eq!(who.map(|i| i.as_str().to_owned()), Some("oauth:c".into()));
        assert!(
            oauth
                .authenticate(doc.as_bytes(), "http://other/mcp")
                .is_none()
        );
        assert!(oauth.authenticate(b"at_nope", "http://h/mcp").is_none());
        let short = OAuth::new(Duration::ZERO, Vec::new(), FaultSet::default(), "/mcp");
        let expired = short
            .tokens("c", "http://h/mcp", &["mcp".to_owned()], false)
            .ok()
            .and_then(|d| d["access_token"].as_str().map(str::to_owned))
            .unwrap_or_default();
        assert!(
            short
                .authenticate(expired.as_bytes(), "http://h/mcp")
                .is_none()
        );
    }

    #[test]
    fn a_token_without_the_mcp_scope_is_challenged_not_served() {
        let oauth = OAuth::new(
            Duration::from_secs(60),
            Vec::new(),
            FaultSet::default(),
            "/mcp",
        );
        let narrow = oauth
            .tokens("c", "http://h/mcp", &["profile".to_owned()], false)
            .ok()
            .and_then(|d| d["access_token"].as_str().map(str::to_owned))
            .unwrap_or_default();
        assert!(
            oauth
                .authenticate(narrow.as_bytes(), "http://h/mcp")
                .is_none()
        );
        assert_eq!(
            oauth.scope_challenge(narrow.as_bytes(), "http://h/mcp"),
            Some("mcp")
        );
        assert_eq!(
            oauth.scope_challenge(narrow.as_bytes(), "http://other/mcp"),
            None
        );
        assert!(scopes_asked(Some("mcp nope")).is_err());
        assert_eq!(
            scopes_asked(None).ok(),
            Some(vec!["mcp".to_owned(), "profile".to_owned()])
        );
        assert!(is_metadata_url("https://client.example/meta.json"));
        assert!(is_metadata_url("http://127.0.0.1:9/client.json"));
        assert!(!is_metadata_url("http://client.example/meta.json"));
        assert!(!is_metadata_url("client-1"));
    }
}
