//! The authorization probes of `probe --auth` (H404 to H417): from the
//! protected-resource metadata to the authorization server, then tokens
//! the endpoint must refuse, and the requests an authorization server must
//! refuse (a redirect URI never registered, an unknown client, a wrong
//! secret, `plain` PKCE) or answer in a certain way (`iss`, a scope
//! challenge). Tokens come from `client_credentials` with the
//! client given (`--auth-client`), else with one registered for the probe
//! (RFC 7591) when the server offers registration. No token is printed.

use std::time::Duration;

use base64::Engine as _;
use mcpcheck_core::http_probe::oauth::{
    self, FOREIGN_RESOURCE, MALFORMED_TOKEN, OAuthProbe, Unverified,
};
use mcpcheck_core::http_probe::{Answer, MetadataFetch, Observations};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue, LOCATION};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::{Extra, ProbeError, Prober};
use crate::client::auth::same_origin;
use crate::serve::oauth::{encode_form, form_component};

/// The longest the expiry probe waits for a token to expire.
pub const MAX_EXPIRY_WAIT: Duration = Duration::from_secs(10);

/// Where the authorization code probe asks to be sent back: a loopback
/// port nothing listens on (the redirect is read, never followed).
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// A redirect URI the probe's client never registers.
const OTHER_REDIRECT_URI: &str = "http://127.0.0.1:9/elsewhere";

/// A client_id nobody registered.
const UNKNOWN_CLIENT: &str = "mcpcheck-unregistered-client";

/// The verifier of the `plain` PKCE probe, which is also its challenge.
const PLAIN_VERIFIER: &str = "mcpcheck-probe-plain-verifier-0123456789-abcdefghijklmnopqrstuvw";

/// The most scopes the scope-challenge probe asks a token for, one each.
const MAX_SCOPES_TRIED: usize = 4;

/// The verifier whose challenge the authorization request carries; the
/// exchange then sends another one.
const VERIFIER: &str = "mcpcheck-probe-verifier-0123456789-abcdefghijklmnopqrstuvwxyz";
const WRONG_VERIFIER: &str = "mcpcheck-probe-wrong-verifier-0123456789-abcdefghijklmnopqrstu";

/// A client of the authorization server.
struct Client {
    id: String,
    secret: Option<String>,
    /// Whether the probe registered it (and so knows its redirect URIs).
    registered: bool,
}

/// The endpoints of the authorization server's metadata, and its scopes.
#[derive(Default)]
struct Endpoints {
    token: Option<String>,
    authorize: Option<String>,
    register: Option<String>,
    scopes: Vec<String>,
}

impl Prober {
    /// The authorization probes, after the others saw `o`. `client` is
    /// `--auth-client` as `(id, secret)`.
    pub(super) async fn oauth(
        &self,
        o: &Observations,
        client: Option<(String, String)>,
    ) -> OAuthProbe {
        let mut probe = OAuthProbe::default();
        let Some(auth) = o
            .unauthenticated
            .as_ref()
            .filter(|a| a.answer.status == 401)
        else {
            skip(
                &mut probe,
                &[
                    "H404", "H405", "H406", "H407", "H408", "H411", "H412", "H413", "H414", "H415",
                    "H416", "H417",
                ],
                "the server served a request without a token, so it is not a protected resource",
            );
            return probe;
        };
        probe.malformed = self.with_token(MALFORMED_TOKEN).await;
        let Some(issuer) = oauth::authorization_server(auth) else {
            skip(
                &mut probe,
                &[
                    "H404", "H405", "H406", "H407", "H411", "H412", "H413", "H414", "H415", "H416",
                    "H417",
                ],
                "no protected-resource metadata naming an authorization server was found",
            );
            return probe;
        };
        probe.issuer.clone_from(&issuer);
        let Some(url) = oauth::server_metadata_url(&issuer) else {
            skip(
                &mut probe,
                &[
                    "H404", "H405", "H406", "H407", "H411", "H412", "H413", "H414", "H415", "H416",
                    "H417",
                ],
                "the issuer is not a URL",
            );
            return probe;
        };
        let fetch = self.fetch(&url).await;
        let endpoints = endpoints(&fetch);
        probe.server_metadata = Some(fetch);
        let Some(token_endpoint) = endpoints.token.clone() else {
            skip(
                &mut probe,
                &[
                    "H404", "H406", "H407", "H411", "H412", "H413", "H414", "H416", "H417",
                ],
                "the authorization-server metadata names no token_endpoint",
            );
            return probe;
        };
        let client = match client {
            // The secret the user gave reaches only the server's origin: a
            // server's metadata may name any authorization server.
            Some(_) if !same_origin(&token_endpoint, &self.url) => {
                skip(
                    &mut probe,
                    &[
                        "H404", "H406", "H407", "H411", "H412", "H413", "H414", "H416", "H417",
                    ],
                    &format!(
                        "the token endpoint {token_endpoint} is on another origin than the server, and --auth-client's secret is sent only to the server's origin; nothing was sent"
                    ),
                );
                return probe;
            }
            Some((id, secret)) => Some(Client {
                id,
                secret: Some(secret),
                registered: false,
            }),
            None => match &endpoints.register {
                Some(register) => self.register(register).await,
                None => None,
            },
        };
        let Some(client) = client else {
            skip(
                &mut probe,
                &[
                    "H404", "H406", "H407", "H411", "H412", "H413", "H414", "H416", "H417",
                ],
                "no client to get a token with: give one with --auth-client ID:SECRET (the server offers no dynamic registration, or it failed)",
            );
            return probe;
        };
        self.pkce(&mut probe, &endpoints, &token_endpoint, &client)
            .await;
        self.negative(&mut probe, &endpoints, &token_endpoint, &client)
            .await;
        self.tokens(&mut probe, &token_endpoint, &client).await;
        self.scopes(&mut probe, &endpoints, &token_endpoint, &client)
            .await;
        probe
    }

    /// An authorization request with these parameters: the server's answer
    /// (a redirect is read, never followed).
    async fn authorization(&self, authorize: &str, pairs: &[(&str, String)]) -> Option<Answer> {
        let separator = if authorize.contains('?') { '&' } else { '?' };
        let request = self
            .client
            .get(format!("{authorize}{separator}{}", encode_form(pairs)));
        self.send(request).await.ok()
    }

    /// H411, H412 and H416: what the authorization server must refuse.
    async fn negative(
        &self,
        probe: &mut OAuthProbe,
        endpoints: &Endpoints,
        token_endpoint: &str,
        client: &Client,
    ) {
        let Some(authorize) = &endpoints.authorize else {
            skip(
                probe,
                &["H411", "H412", "H413", "H414", "H416"],
                "the authorization-server metadata names no authorization_endpoint",
            );
            return;
        };
        let challenge =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER));
        let base = |client_id: &str, redirect: &str| {
            vec![
                ("response_type", "code".to_string()),
                ("client_id", client_id.to_string()),
                ("redirect_uri", redirect.to_string()),
                ("code_challenge", challenge.clone()),
                ("code_challenge_method", "S256".into()),
                ("state", "mcpcheck-probe".into()),
                ("resource", self.url.clone()),
            ]
        };
        probe.redirect_uri = REDIRECT_URI.into();
        probe.other_redirect_uri = OTHER_REDIRECT_URI.into();
        if client.registered {
            probe.redirect_mismatch = self
                .authorization(authorize, &base(&client.id, OTHER_REDIRECT_URI))
                .await;
        } else {
            skip(
                probe,
                &["H411"],
                "the redirect URIs of --auth-client's client are not known to the probe (it checks with a client it registers itself)",
            );
        }
        probe.unknown_client = self
            .authorization(authorize, &base(UNKNOWN_CLIENT, REDIRECT_URI))
            .await;
        if let Some(secret) = &client.secret {
            let wrong = Client {
                id: client.id.clone(),
                secret: Some(format!("{secret}-wrong")),
                registered: client.registered,
            };
            let form = vec![
                ("grant_type", "client_credentials".to_string()),
                ("resource", self.url.clone()),
            ];
            probe.wrong_secret = self.token_request(token_endpoint, &wrong, form).await.ok();
        }
        // `plain`: the challenge is the verifier.
        let mut plain = base(&client.id, REDIRECT_URI);
        for pair in &mut plain {
            match pair.0 {
                "code_challenge" => pair.1 = PLAIN_VERIFIER.into(),
                "code_challenge_method" => pair.1 = "plain".into(),
                _ => {}
            }
        }
        let code = self
            .authorization(authorize, &plain)
            .await
            .filter(|a| a.status / 100 == 3)
            .and_then(|a| code_of(&a));
        if let Some(code) = code {
            let form = vec![
                ("grant_type", "authorization_code".to_string()),
                ("code", code),
                ("redirect_uri", REDIRECT_URI.into()),
                ("code_verifier", PLAIN_VERIFIER.into()),
            ];
            probe.plain_pkce = self.token_request(token_endpoint, client, form).await.ok();
        }
    }

    /// H417: tokens of one scope each, until one is refused; its answer is
    /// judged.
    async fn scopes(
        &self,
        probe: &mut OAuthProbe,
        endpoints: &Endpoints,
        token_endpoint: &str,
        client: &Client,
    ) {
        if endpoints.scopes.len() < 2 {
            skip(
                probe,
                &["H417"],
                "the authorization server lists fewer than two scopes (scopes_supported): no narrower token to ask for",
            );
            return;
        }
        for scope in endpoints.scopes.iter().take(MAX_SCOPES_TRIED) {
            let form = vec![
                ("grant_type", "client_credentials".to_string()),
                ("resource", self.url.clone()),
                ("scope", scope.clone()),
            ];
            let Ok(answer) = self.token_request(token_endpoint, client, form).await else {
                continue;
            };
            let doc: Value = serde_json::from_str(answer.body.trim()).unwrap_or(Value::Null);
            let Some(token) = doc.get("access_token").and_then(Value::as_str) else {
                continue;
            };
            let Some(answer) = self.with_token(token).await else {
                continue;
            };
            let refused = !answer.ok();
            probe.narrow_scopes.push((scope.clone(), answer));
            if refused {
                return;
            }
        }
        if probe.narrow_scopes.is_empty() {
            skip(
                probe,
                &["H417"],
                "no token of a single scope was issued (client_credentials)",
            );
        } else {
            skip(
                probe,
                &["H417"],
                "a token of each single scope was served: no request needed more",
            );
        }
    }

    /// H404 and H407: a token for another resource, and one past its expiry.
    async fn tokens(&self, probe: &mut OAuthProbe, token_endpoint: &str, client: &Client) {
        let unverified = |probe: &mut OAuthProbe, code: &str, reason: String| {
            probe.unverified.push(Unverified {
                code: code.to_string(),
                reason,
            });
        };
        let issued = self
            .client_credentials(token_endpoint, client, &self.url)
            .await;
        let (token, lifetime) = match issued {
            Ok(pair) => pair,
            Err(why) => {
                for code in ["H404", "H407"] {
                    unverified(probe, code, format!("no token for this endpoint: {why}"));
                }
                return;
            }
        };
        let served = self.with_token(&token).await.is_some_and(|a| a.served());
        if !served {
            for code in ["H404", "H407"] {
                unverified(
                    probe,
                    code,
                    "the endpoint refused even a fresh token issued for it".into(),
                );
            }
            return;
        }
        match self
            .client_credentials(token_endpoint, client, FOREIGN_RESOURCE)
            .await
        {
            Ok((foreign, _)) => probe.wrong_audience = self.with_token(&foreign).await,
            Err(why) => unverified(
                probe,
                "H404",
                format!("no token for another resource was issued: {why}"),
            ),
        }
        // A token for this URL with another host, sent naming that host:
        // accepted by an endpoint that takes its audience from `Host`. An
        // authorization server that will not issue it leaves nothing to
        // try (not a check that could not run).
        if let Some((resource, host)) = oauth::host_swapped_resource(&self.url)
            && let Ok((swapped, _)) = self
                .client_credentials(token_endpoint, client, &resource)
                .await
        {
            probe.host_audience = self.with_token_and_host(&swapped, Some(&host)).await;
        }
        match lifetime {
            Some(secs) if Duration::from_secs(secs) <= MAX_EXPIRY_WAIT => {
                tokio::time::sleep(Duration::from_secs(secs) + Duration::from_millis(1100)).await;
                probe.expired = self.with_token(&token).await;
            }
            Some(secs) => unverified(
                probe,
                "H407",
                format!(
                    "tokens live {secs} s, longer than the probe waits ({} s)",
                    MAX_EXPIRY_WAIT.as_secs()
                ),
            ),
            None => unverified(probe, "H407", "the token answer has no expires_in".into()),
        }
    }

    /// H406: an authorization code redeemed with a wrong verifier, when the
    /// authorization endpoint approves at once.
    async fn pkce(
        &self,
        probe: &mut OAuthProbe,
        endpoints: &Endpoints,
        token_endpoint: &str,
        client: &Client,
    ) {
        let Some(authorize) = &endpoints.authorize else {
            probe.unverified.push(Unverified {
                code: "H406".into(),
                reason: "the authorization-server metadata names no authorization_endpoint".into(),
            });
            return;
        };
        let challenge =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER));
        let query = encode_form(&[
            ("response_type", "code".into()),
            ("client_id", client.id.clone()),
            ("redirect_uri", REDIRECT_URI.into()),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256".into()),
            ("state", "mcpcheck-probe".into()),
            ("resource", self.url.clone()),
        ]);
        let separator = if authorize.contains('?') { '&' } else { '?' };
        let request = self.client.get(format!("{authorize}{separator}{query}"));
        let code = match self.send(request).await {
            Ok(answer) if answer.status / 100 == 3 => {
                let location = answer
                    .header(LOCATION.as_str())
                    .filter(|l| l.starts_with(REDIRECT_URI));
                probe.authorization_response = location.map(str::to_string);
                code_of(&answer)
            }
            _ => None,
        };
        let Some(code) = code else {
            skip(
                probe,
                &["H406", "H413", "H414"],
                "the authorization endpoint did not redirect back with a code at once (it needs a user to approve)",
            );
            return;
        };
        let form = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code),
            ("redirect_uri", REDIRECT_URI.into()),
            ("code_verifier", WRONG_VERIFIER.into()),
        ];
        probe.wrong_verifier = self.token_request(token_endpoint, client, form).await.ok();
    }

    /// `client_credentials` for `resource`: the token and its `expires_in`.
    async fn client_credentials(
        &self,
        token_endpoint: &str,
        client: &Client,
        resource: &str,
    ) -> std::result::Result<(String, Option<u64>), ProbeError> {
        let form = vec![
            ("grant_type", "client_credentials".to_string()),
            ("resource", resource.to_string()),
        ];
        let answer = self.token_request(token_endpoint, client, form).await?;
        let doc: Value = serde_json::from_str(answer.body.trim()).unwrap_or(Value::Null);
        match doc.get("access_token").and_then(Value::as_str) {
            Some(token) if answer.ok() => Ok((
                token.to_string(),
                doc.get("expires_in").and_then(Value::as_u64),
            )),
            _ => Err(ProbeError::NoToken(
                format!(
                    "{} {}",
                    answer.status,
                    doc.get("error").and_then(Value::as_str).unwrap_or_default()
                )
                .trim_end()
                .to_string(),
            )),
        }
    }

    /// A form POST to the token endpoint, the client authenticated with
    /// HTTP Basic (or by `client_id` alone when it has no secret).
    async fn token_request(
        &self,
        token_endpoint: &str,
        client: &Client,
        mut form: Vec<(&str, String)>,
    ) -> std::result::Result<Answer, ProbeError> {
        let mut request = self
            .client
            .post(token_endpoint)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        match &client.secret {
            Some(secret) => {
                let pair = format!("{}:{}", form_component(&client.id), form_component(secret));
                let basic = base64::engine::general_purpose::STANDARD.encode(pair);
                request = request.header(AUTHORIZATION, format!("Basic {basic}"));
            }
            None => form.push(("client_id", client.id.clone())),
        }
        self.send(request.body(encode_form(&form))).await
    }

    /// Registers a confidential client for the probe (RFC 7591).
    async fn register(&self, endpoint: &str) -> Option<Client> {
        let body = json!({
            "client_name": "mcpcheck probe",
            "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "client_credentials", "refresh_token"],
            "token_endpoint_auth_method": "client_secret_basic",
        });
        let request = self
            .client
            .post(endpoint)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        let answer = self.send(request).await.ok().filter(Answer::ok)?;
        let doc: Value = serde_json::from_str(answer.body.trim()).ok()?;
        Some(Client {
            id: doc.get("client_id")?.as_str()?.to_string(),
            secret: doc
                .get("client_secret")
                .and_then(Value::as_str)
                .map(str::to_string),
            registered: true,
        })
    }

    /// An `initialize` with this bearer token (and no other credential);
    /// the session it opens is closed.
    async fn with_token(&self, token: &str) -> Option<Answer> {
        self.with_token_and_host(token, None).await
    }

    /// [`Prober::with_token`], the `initialize` sent with `Host: host`
    /// when given.
    async fn with_token_and_host(&self, token: &str, host: Option<&str>) -> Option<Answer> {
        let value = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
        let mut headers = vec![(AUTHORIZATION, value.clone())];
        if let Some(host) = host {
            headers.push((HOST, HeaderValue::from_str(host).ok()?));
        }
        let extra = Extra {
            headers,
            without_credentials: true,
            ..Extra::default()
        };
        let opened = self.open(&extra).await.ok()?;
        if let Some(session) = opened.session.as_deref() {
            let close = Extra {
                session: Some(session),
                headers: vec![(AUTHORIZATION, value)],
                without_credentials: true,
            };
            let request = self
                .client
                .delete(&self.url)
                .headers(self.headers_for(&close));
            let _ = self.send(request).await;
        }
        Some(opened.answer)
    }

    async fn fetch(&self, url: &str) -> MetadataFetch {
        let request = self.client.get(url);
        match self.send(request).await {
            Ok(answer) => MetadataFetch {
                url: url.to_string(),
                answer: Some(answer),
                error: None,
            },
            Err(error) => MetadataFetch {
                url: url.to_string(),
                answer: None,
                error: Some(error.to_string()),
            },
        }
    }
}

/// Records that the checks `codes` could not run.
fn skip(probe: &mut OAuthProbe, codes: &[&str], reason: &str) {
    for code in codes {
        probe.unverified.push(Unverified {
            code: (*code).to_string(),
            reason: reason.to_string(),
        });
    }
}

fn endpoints(fetch: &MetadataFetch) -> Endpoints {
    let Some(doc) = fetch
        .answer
        .as_ref()
        .filter(|a| a.ok())
        .and_then(|a| serde_json::from_str::<Value>(a.body.trim()).ok())
    else {
        return Endpoints::default();
    };
    let get = |name: &str| doc.get(name).and_then(Value::as_str).map(str::to_string);
    Endpoints {
        token: get("token_endpoint"),
        authorize: get("authorization_endpoint"),
        register: get("registration_endpoint"),
        scopes: doc
            .get("scopes_supported")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The `code` of a redirect back from the authorization endpoint.
fn code_of(answer: &Answer) -> Option<String> {
    let location = answer.header(LOCATION.as_str())?;
    let query = location.split_once('?')?.1;
    query
        .split('&')
        .find_map(|p| p.strip_prefix("code="))
        .map(str::to_string)
}
