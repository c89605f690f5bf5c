//! The authorization checks of `probe --auth` (H404 to H417): the
//! authorization server's metadata (and whether it still offers Dynamic
//! Client Registration, H410), which tokens the endpoint and the token
//! endpoint accept, and the negative checks of its authorization endpoint
//! (redirect URIs, clients, `iss`, `plain` PKCE) and of scope challenges. The CLI obtains the tokens and records the
//! answers in an [`OAuthProbe`]; a check it could not run is listed in
//! [`OAuthProbe::unverified`] and reported as H409, never as holding.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::rules::Rule;
use super::{Answer, AuthProbe, MetadataFetch, Observations, Push, evidence};

/// The resource the audience probe asks a token for: a URL that is no MCP
/// server's (RFC 2606 reserves `.invalid`).
pub const FOREIGN_RESOURCE: &str = "https://mcpcheck.invalid/mcp";

/// The bearer token the malformed-token probe sends: never issued by
/// anyone, and not even of the `b64token` syntax of RFC 6750 §2.1.
pub const MALFORMED_TOKEN: &str = "%%mcpcheck-malformed-token%%";

/// The fields RFC 8414 §2 requires (`authorization_endpoint` and
/// `token_endpoint` for the authorization code grant MCP uses).
pub const REQUIRED_SERVER_FIELDS: [&str; 4] = [
    "issuer",
    "authorization_endpoint",
    "token_endpoint",
    "response_types_supported",
];

/// A check that could not run, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Unverified {
    /// The rule's code (`H404` …).
    pub code: String,
    /// Why it could not run, in a sentence.
    pub reason: String,
}

/// What the authorization probes saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OAuthProbe {
    /// The issuer the protected-resource metadata names (its first
    /// `authorization_servers` entry).
    pub issuer: String,
    /// The fetch of the authorization-server metadata, when an issuer was known.
    pub server_metadata: Option<MetadataFetch>,
    /// The endpoint's answer to a token issued for [`FOREIGN_RESOURCE`].
    pub wrong_audience: Option<Answer>,
    /// The endpoint's answer to a token issued for its own URL with the host
    /// replaced by [`super::REBINDING_HOST`] ([`host_swapped_resource`]),
    /// sent with that `Host` header: accepted when the endpoint takes the
    /// audience it expects from the `Host` header.
    pub host_audience: Option<Answer>,
    /// The token endpoint's answer to an authorization code redeemed with a
    /// wrong `code_verifier`.
    pub wrong_verifier: Option<Answer>,
    /// The endpoint's answer to a token whose `expires_in` had passed.
    pub expired: Option<Answer>,
    /// The endpoint's answer to [`MALFORMED_TOKEN`].
    pub malformed: Option<Answer>,
    /// The authorization endpoint's answer to a request of the probe's own
    /// client (registered with [`Self::redirect_uri`]) naming
    /// [`Self::other_redirect_uri`] instead.
    pub redirect_mismatch: Option<Answer>,
    /// The redirect URI the probe's client registered.
    pub redirect_uri: String,
    /// The redirect URI it never registered.
    pub other_redirect_uri: String,
    /// The authorization endpoint's answer to a client_id nobody registered.
    pub unknown_client: Option<Answer>,
    /// The token endpoint's answer to the probe's client with a wrong secret.
    pub wrong_secret: Option<Answer>,
    /// The `Location` of a successful authorization response (the redirect
    /// back with a code), for its `iss`.
    pub authorization_response: Option<String>,
    /// The token endpoint's answer to a code asked for with
    /// `code_challenge_method=plain`, redeemed with the challenge as the
    /// verifier; `None` when the authorization endpoint issued no code.
    pub plain_pkce: Option<Answer>,
    /// The endpoint's answers to tokens of one scope each: the scope and
    /// the answer to an `initialize` with it.
    pub narrow_scopes: Vec<(String, Answer)>,
    /// The checks that could not run.
    pub unverified: Vec<Unverified>,
}

/// Where the metadata of `issuer` is (RFC 8414 §3.1): the well-known path
/// inserted between the issuer's origin and its path.
pub fn server_metadata_url(issuer: &str) -> Option<String> {
    let (scheme, rest) = issuer.trim().split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    if authority.is_empty() {
        return None;
    }
    let path = path.trim_end_matches('/');
    Some(format!(
        "{scheme}://{authority}/.well-known/oauth-authorization-server{path}"
    ))
}

/// The endpoint URL `url` with its host replaced by
/// [`super::REBINDING_HOST`] (port and path kept), and the `Host` header
/// that names it: a resource no token for this endpoint is issued for, which
/// an endpoint that takes its own URL from the `Host` header would take as
/// its own.
pub fn host_swapped_resource(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if authority.is_empty() {
        return None;
    }
    let port = match authority.rsplit_once(':') {
        Some((host, port))
            if !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && (host.ends_with(']') || !host.contains(':')) =>
        {
            format!(":{port}")
        }
        _ => String::new(),
    };
    let host = format!("{}{port}", super::REBINDING_HOST);
    Some((format!("{scheme}://{host}{path}"), host))
}

/// The first `authorization_servers` entry of the protected-resource
/// metadata the probe fetched.
pub fn authorization_server(auth: &AuthProbe) -> Option<String> {
    let answer = auth
        .metadata
        .iter()
        .find_map(|f| f.answer.as_ref().filter(|a| a.status == 200))?;
    let doc: Value = serde_json::from_str(answer.body.trim()).ok()?;
    doc.get("authorization_servers")?
        .as_array()?
        .first()?
        .as_str()
        .map(str::to_string)
}

/// H404 to H417.
pub(super) fn judge(o: &Observations, push: &mut Push<'_>) {
    let Some(probe) = &o.oauth else {
        return;
    };
    if let Some((message, shown)) = server_metadata_problem(probe) {
        push(Rule::BadServerMetadata, "auth", message, evidence(&shown));
    }
    if let Some((url, endpoint)) = registration_endpoint(probe) {
        push(
            Rule::RegistrationOffered,
            "auth",
            format!(
                "the authorization-server metadata at {url} names registration_endpoint {endpoint}: Dynamic Client Registration, deprecated in 2026-07-28 in favour of Client ID Metadata Documents"
            ),
            evidence(&endpoint),
        );
    }
    let accepted = |answer: &Option<Answer>| answer.as_ref().filter(|a| a.ok()).cloned();
    if let Some(answer) = accepted(&probe.wrong_audience) {
        push(
            Rule::WrongAudience,
            "auth",
            format!(
                "a token issued for {FOREIGN_RESOURCE}, not for this endpoint, was accepted (HTTP {})",
                answer.status
            ),
            answer.evidence(),
        );
    }
    if let Some(answer) = accepted(&probe.host_audience) {
        push(
            Rule::WrongAudience,
            "auth",
            format!(
                "a token issued for another host's URL was accepted when the request's Host named that host ({}, HTTP {}): the endpoint takes the audience it expects from the Host header, so a token for any host passes",
                super::REBINDING_HOST,
                answer.status
            ),
            answer.evidence(),
        );
    }
    if let Some(answer) = probe
        .wrong_verifier
        .as_ref()
        .filter(|a| a.ok() && a.body.contains("access_token"))
    {
        push(
            Rule::PkceNotEnforced,
            "auth",
            "the token endpoint redeemed an authorization code with a wrong code_verifier".into(),
            evidence(&format!("HTTP {}", answer.status)),
        );
    }
    if let Some(answer) = accepted(&probe.expired) {
        push(
            Rule::ExpiredToken,
            "auth",
            format!(
                "a token was accepted after its expires_in had passed (HTTP {})",
                answer.status
            ),
            answer.evidence(),
        );
    }
    if let Some(answer) = accepted(&probe.malformed) {
        push(
            Rule::MalformedToken,
            "auth",
            format!(
                "a request with the made-up token `{MALFORMED_TOKEN}` was accepted (HTTP {})",
                answer.status
            ),
            answer.evidence(),
        );
    }
    negative_checks(probe, push);
    for skipped in &probe.unverified {
        push(
            Rule::NotVerified,
            "auth",
            format!("{} not verified: {}", skipped.code, skipped.reason),
            String::new(),
        );
    }
}

/// The query parameters of a URL (`application/x-www-form-urlencoded`,
/// `+` and `%XX` decoded).
fn query_params(url: &str) -> Vec<(String, String)> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or("");
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (form_decode(k), form_decode(v))
        })
        .collect()
}

fn form_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..=i + 2])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The authorization-server metadata document, when it was fetched whole.
fn server_doc(probe: &OAuthProbe) -> Option<serde_json::Map<String, Value>> {
    let answer = probe.server_metadata.as_ref()?.answer.as_ref()?;
    if answer.status != 200 {
        return None;
    }
    match serde_json::from_str::<Value>(answer.body.trim()) {
        Ok(Value::Object(doc)) => Some(doc),
        _ => None,
    }
}

/// Whether an answer is a redirect to `uri` (its `Location` starts with it).
fn redirects_to(answer: &Answer, uri: &str) -> bool {
    answer.status / 100 == 3
        && !uri.is_empty()
        && answer
            .header("location")
            .is_some_and(|l| l.starts_with(uri))
}

/// H411 to H417.
fn negative_checks(probe: &OAuthProbe, push: &mut Push<'_>) {
    if let Some(a) = probe
        .redirect_mismatch
        .as_ref()
        .filter(|a| redirects_to(a, &probe.other_redirect_uri))
    {
        let with_code = a
            .header("location")
            .is_some_and(|l| query_params(l).iter().any(|(k, _)| k == "code"));
        push(
            Rule::RedirectUriNotChecked,
            "auth",
            format!(
                "the authorization endpoint redirected to {}, which the client never registered (it registered {}){}",
                probe.other_redirect_uri,
                probe.redirect_uri,
                if with_code {
                    ", with an authorization code"
                } else {
                    ""
                }
            ),
            a.evidence(),
        );
    }
    if let Some(a) = probe.unknown_client.as_ref().filter(|a| {
        a.status / 100 == 3
            && a.header("location")
                .is_some_and(|l| query_params(l).iter().any(|(k, _)| k == "code"))
    }) {
        push(
            Rule::InvalidClientAccepted,
            "auth",
            "the authorization endpoint issued a code to a client_id nobody registered".into(),
            a.evidence(),
        );
    }
    if let Some(a) = probe
        .wrong_secret
        .as_ref()
        .filter(|a| a.ok() && a.body.contains("access_token"))
    {
        push(
            Rule::InvalidClientAccepted,
            "auth",
            "the token endpoint issued a token to a client that presented a wrong secret".into(),
            evidence(&format!("HTTP {}", a.status)),
        );
    }
    let doc = server_doc(probe);
    issuer_check(probe, doc.as_ref(), push);
    if let Some(doc) = &doc
        && doc.get("client_id_metadata_document_supported") != Some(&Value::Bool(true))
    {
        push(
            Rule::NoClientIdMetadata,
            "auth",
            "the authorization-server metadata does not set client_id_metadata_document_supported: true".into(),
            String::new(),
        );
    }
    let plain_listed = doc.as_ref().is_some_and(|d| {
        d.get("code_challenge_methods_supported")
            .and_then(Value::as_array)
            .is_some_and(|m| m.iter().any(|v| v == "plain"))
    });
    if let Some(a) = probe
        .plain_pkce
        .as_ref()
        .filter(|a| !plain_listed && a.ok() && a.body.contains("access_token"))
    {
        push(
            Rule::PlainPkceAccepted,
            "auth",
            "a code asked for with code_challenge_method=plain was issued and redeemed with the challenge as its verifier, though the metadata does not list plain".into(),
            evidence(&format!("HTTP {}", a.status)),
        );
    }
    scope_check(probe, push);
}

/// H413 and H414: the `iss` of the authorization response against the
/// issuer and the metadata's advertisement.
fn issuer_check(
    probe: &OAuthProbe,
    doc: Option<&serde_json::Map<String, Value>>,
    push: &mut Push<'_>,
) {
    // Without the metadata (H405 says why) what it advertises is unknown:
    // nothing here is judged.
    let Some(doc) = doc else {
        return;
    };
    if let Some(location) = &probe.authorization_response {
        let advertised =
            doc.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true));
        // The issuer the client recorded (the protected-resource metadata
        // named it), as RFC 9207 §2.4 compares it.
        let issuer = if probe.issuer.is_empty() {
            doc.get("issuer")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        } else {
            probe.issuer.clone()
        };
        let iss = query_params(location)
            .into_iter()
            .find(|(k, _)| k == "iss")
            .map(|(_, v)| v);
        let shown = evidence(location);
        match (iss, advertised) {
            (Some(iss), _) if iss != issuer => push(
                Rule::IssuerMismatch,
                "auth",
                format!(
                    "the authorization response names the issuer `{iss}`, not `{issuer}`: a client validating iss (RFC 9207) rejects it, and one that does not cannot tell a mix-up"
                ),
                shown,
            ),
            (Some(_), false) => push(
                Rule::IssuerMismatch,
                "auth",
                "the authorization response carries iss, but the metadata does not advertise authorization_response_iss_parameter_supported: true".into(),
                shown,
            ),
            (None, true) => push(
                Rule::IssuerMismatch,
                "auth",
                "the metadata advertises authorization_response_iss_parameter_supported, but the authorization response carries no iss: clients MUST reject it".into(),
                shown,
            ),
            (None, false) => push(
                Rule::NoIssuerInResponse,
                "auth",
                "the authorization response carries no iss (RFC 9207), and the metadata does not advertise it".into(),
                shown,
            ),
            (Some(_), true) => {}
        }
    }
}

/// H417: the first narrow-scope token refused must get a 403
/// `insufficient_scope` challenge naming the scope.
fn scope_check(probe: &OAuthProbe, push: &mut Push<'_>) {
    for (scope, a) in &probe.narrow_scopes {
        if a.ok() {
            continue;
        }
        let challenges: Vec<&str> = a.headers_named("www-authenticate").collect();
        let insufficient = challenges.iter().any(|c| c.contains("insufficient_scope"));
        let names_scope = challenges.iter().any(|c| c.contains("scope=\""));
        let problem = match (a.status, insufficient, names_scope) {
            (403, true, true) => None,
            (403, true, false) => Some(format!(
                "a token of the scope `{scope}` alone got 403 insufficient_scope without the scope needed (scope=\"…\")"
            )),
            (403, false, _) => Some(format!(
                "a token of the scope `{scope}` alone got 403 without a WWW-Authenticate insufficient_scope challenge"
            )),
            (status, _, _) => Some(format!(
                "a token of the scope `{scope}` alone, valid and for this endpoint, got HTTP {status} instead of 403 insufficient_scope"
            )),
        };
        if let Some(message) = problem {
            push(
                Rule::NoScopeChallenge,
                "auth",
                message,
                evidence(&challenges.join(" | ")),
            );
        }
        break;
    }
}

/// The metadata's URL and its `registration_endpoint`, when the fetched
/// authorization-server metadata names one.
fn registration_endpoint(probe: &OAuthProbe) -> Option<(String, String)> {
    let fetch = probe.server_metadata.as_ref()?;
    let answer = fetch.answer.as_ref().filter(|a| a.status == 200)?;
    let doc: Value = serde_json::from_str(answer.body.trim()).ok()?;
    let endpoint = doc.get("registration_endpoint")?.as_str()?;
    Some((fetch.url.clone(), endpoint.to_string()))
}

/// What is wrong with the authorization-server metadata, if anything.
fn server_metadata_problem(probe: &OAuthProbe) -> Option<(String, String)> {
    let fetch = probe.server_metadata.as_ref()?;
    let answer = match (&fetch.answer, &fetch.error) {
        (Some(answer), _) if answer.status == 200 => answer,
        (Some(answer), _) => {
            return Some((
                format!(
                    "the authorization-server metadata at {} answered HTTP {}",
                    fetch.url, answer.status
                ),
                answer.evidence(),
            ));
        }
        (None, error) => {
            let why = error.as_deref().unwrap_or("no answer");
            return Some((
                format!(
                    "the authorization-server metadata at {} could not be fetched: {why}",
                    fetch.url
                ),
                why.to_string(),
            ));
        }
    };
    let shown = answer.body.trim().to_string();
    let Ok(Value::Object(doc)) = serde_json::from_str::<Value>(&shown) else {
        return Some((
            format!(
                "the authorization-server metadata at {} is not a JSON object",
                fetch.url
            ),
            shown,
        ));
    };
    let mut problems = Vec::new();
    let missing: Vec<&str> = REQUIRED_SERVER_FIELDS
        .iter()
        .copied()
        .filter(|f| doc.get(*f).is_none_or(Value::is_null))
        .collect();
    if !missing.is_empty() {
        problems.push(format!("it lacks {}", missing.join(", ")));
    }
    if let Some(issuer) = doc.get("issuer").and_then(Value::as_str)
        && issuer.trim_end_matches('/') != probe.issuer.trim_end_matches('/')
    {
        problems.push(format!(
            "its issuer `{issuer}` is not `{}`, the issuer it was fetched for",
            probe.issuer
        ));
    }
    let s256 = doc
        .get("code_challenge_methods_supported")
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|v| v == "S256"));
    if !s256 {
        problems.push("its code_challenge_methods_supported does not list S256 (PKCE)".into());
    }
    (!problems.is_empty()).then(|| {
        (
            format!(
                "the authorization-server metadata at {}: {}",
                fetch.url,
                problems.join("; ")
            ),
            shown,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Options, judge as judge_all};
    use super::*;

    #[test]
    fn the_host_swapped_resource_keeps_scheme_port_and_path() {
        assert_eq!(
            host_swapped_resource("http://127.0.0.1:8080/mcp"),
            Some((
                "http://evil.example:8080/mcp".to_string(),
                "evil.example:8080".to_string()
            ))
        );
        assert_eq!(
            host_swapped_resource("https://[::1]/a/mcp?x").map(|r| r.0),
            Some("https://evil.example/a/mcp?x".to_string())
        );
        assert_eq!(
            host_swapped_resource("http://[::1]:9/mcp").map(|r| r.1),
            Some("evil.example:9".to_string())
        );
        assert_eq!(host_swapped_resource("not a url"), None);
    }

    fn answer(status: u16, body: &str) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    const SERVED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#;
    const REFUSED: &str = r#"{"error":"unauthorized"}"#;

    fn metadata(doc: &str) -> Option<MetadataFetch> {
        Some(MetadataFetch {
            url: "http://h/.well-known/oauth-authorization-server".into(),
            answer: Some(answer(200, doc)),
            error: None,
        })
    }

    const GOOD: &str = r#"{"issuer":"http://h","authorization_endpoint":"http://h/a","token_endpoint":"http://h/t","response_types_supported":["code"],"code_challenge_methods_supported":["S256"],"authorization_response_iss_parameter_supported":true,"client_id_metadata_document_supported":true}"#;

    fn healthy() -> OAuthProbe {
        OAuthProbe {
            issuer: "http://h".into(),
            server_metadata: metadata(GOOD),
            wrong_audience: Some(answer(401, REFUSED)),
            host_audience: Some(answer(401, REFUSED)),
            wrong_verifier: Some(answer(400, r#"{"error":"invalid_grant"}"#)),
            expired: Some(answer(401, REFUSED)),
            malformed: Some(answer(401, REFUSED)),
            unverified: Vec::new(),
            redirect_mismatch: Some(answer(400, r#"{"error":"invalid_request"}"#)),
            redirect_uri: "http://127.0.0.1:9/callback".into(),
            other_redirect_uri: "http://127.0.0.1:9/elsewhere".into(),
            unknown_client: Some(answer(400, r#"{"error":"invalid_client"}"#)),
            wrong_secret: Some(answer(401, r#"{"error":"invalid_client"}"#)),
            authorization_response: Some(
                "http://127.0.0.1:9/callback?code=c&state=s&iss=http%3A%2F%2Fh".into(),
            ),
            plain_pkce: Some(answer(400, r#"{"error":"invalid_grant"}"#)),
            narrow_scopes: vec![(
                "profile".into(),
                Answer {
                    status: 403,
                    headers: vec![(
                        "WWW-Authenticate".into(),
                        r#"Bearer error="insufficient_scope", scope="mcp""#.into(),
                    )],
                    body: String::new(),
                },
            )],
        }
    }

    fn redirect(location: &str) -> Answer {
        Answer {
            status: 302,
            headers: vec![("Location".into(), location.into())],
            body: String::new(),
        }
    }

    #[test]
    fn each_negative_check_fires_on_its_own_fault() {
        let mut p = healthy();
        p.redirect_mismatch = Some(redirect("http://127.0.0.1:9/elsewhere?code=x&state=s"));
        assert_eq!(codes(p), ["H411"]);
        let mut p = healthy();
        p.unknown_client = Some(redirect("http://127.0.0.1:9/callback?code=x"));
        assert_eq!(codes(p), ["H412"]);
        let mut p = healthy();
        p.wrong_secret = Some(answer(200, r#"{"access_token":"t"}"#));
        assert_eq!(codes(p), ["H412"]);
        let mut p = healthy();
        p.authorization_response = Some("http://127.0.0.1:9/callback?code=c".into());
        assert_eq!(codes(p.clone()), ["H414"], "advertised, missing");
        p.server_metadata = metadata(&GOOD.replace(
            ",\"authorization_response_iss_parameter_supported\":true",
            "",
        ));
        assert_eq!(codes(p), ["H413"], "neither sent nor advertised");
        let mut p = healthy();
        p.authorization_response =
            Some("http://127.0.0.1:9/callback?code=c&iss=http%3A%2F%2Fevil".into());
        assert_eq!(codes(p), ["H414"]);
        let mut p = healthy();
        p.server_metadata =
            metadata(&GOOD.replace(",\"client_id_metadata_document_supported\":true", ""));
        assert_eq!(codes(p), ["H415"]);
        let mut p = healthy();
        p.plain_pkce = Some(answer(200, r#"{"access_token":"t","token_type":"Bearer"}"#));
        assert_eq!(codes(p.clone()), ["H416"]);
        p.server_metadata = metadata(&GOOD.replace("[\"S256\"]", "[\"S256\",\"plain\"]"));
        assert!(
            codes(p).is_empty(),
            "plain is listed: accepting it is what was said"
        );
        let mut p = healthy();
        p.narrow_scopes = vec![("profile".into(), answer(401, REFUSED))];
        assert_eq!(codes(p), ["H417"]);
        let mut p = healthy();
        p.narrow_scopes = vec![("profile".into(), answer(200, SERVED))];
        assert!(codes(p).is_empty(), "a scope that was enough says nothing");
    }

    fn codes(probe: OAuthProbe) -> Vec<&'static str> {
        let o = Observations {
            url: "http://127.0.0.1:1/mcp".into(),
            oauth: Some(probe),
            ..Observations::default()
        };
        judge_all(&o, &Options::default())
            .unwrap_or_default()
            .iter()
            .map(|f| f.code())
            .collect()
    }

    #[test]
    fn dynamic_client_registration_is_a_note() {
        let mut p = healthy();
        p.server_metadata = metadata(&GOOD.replace(
            "\"issuer\":\"http://h\",",
            "\"issuer\":\"http://h\",\"registration_endpoint\":\"http://h/register\",",
        ));
        assert_eq!(codes(p), ["H410"]);
    }

    #[test]
    fn a_healthy_server_has_no_finding() {
        assert!(codes(healthy()).is_empty());
    }

    #[test]
    fn each_accepted_token_is_its_own_finding() {
        let mut p = healthy();
        p.wrong_audience = Some(answer(200, SERVED));
        assert_eq!(codes(p), ["H404"]);
        let mut p = healthy();
        p.host_audience = Some(answer(200, SERVED));
        assert_eq!(codes(p), ["H404"]);
        let mut p = healthy();
        p.expired = Some(answer(200, SERVED));
        assert_eq!(codes(p), ["H407"]);
        let mut p = healthy();
        p.malformed = Some(answer(200, SERVED));
        assert_eq!(codes(p), ["H408"]);
        let mut p = healthy();
        p.wrong_verifier = Some(answer(200, r#"{"access_token":"x","token_type":"Bearer"}"#));
        assert_eq!(codes(p), ["H406"]);
    }

    #[test]
    fn server_metadata_needs_its_fields_its_issuer_and_s256() {
        let mut p = healthy();
        p.server_metadata = metadata(r#"{"issuer":"http://h","token_endpoint":"http://h/t"}"#);
        let problem = server_metadata_problem(&p)
            .map(|(m, _)| m)
            .unwrap_or_default();
        assert!(
            problem.contains("authorization_endpoint, response_types_supported"),
            "{problem}"
        );
        assert!(problem.contains("S256"), "{problem}");
        let mut p = healthy();
        p.server_metadata =
            metadata(&GOOD.replace("\"issuer\":\"http://h\"", "\"issuer\":\"http://evil\""));
        assert_eq!(codes(p.clone()), ["H405"]);
        p.server_metadata = Some(MetadataFetch {
            url: "u".into(),
            answer: Some(answer(404, "")),
            error: None,
        });
        assert_eq!(codes(p.clone()), ["H405"]);
        p.server_metadata = metadata("not json");
        assert_eq!(codes(p), ["H405"]);
        let mut p = healthy();
        p.server_metadata = metadata(&GOOD.replace("http://h\",", "http://h/\","));
        assert!(
            codes(p).is_empty(),
            "a trailing slash names the same issuer"
        );
    }

    #[test]
    fn what_could_not_run_is_reported_as_not_verified_never_as_holding() {
        let probe = OAuthProbe {
            issuer: "http://h".into(),
            server_metadata: metadata(GOOD),
            malformed: Some(answer(401, REFUSED)),
            unverified: vec![Unverified {
                code: "H404".into(),
                reason: "no token could be obtained".into(),
            }],
            ..OAuthProbe::default()
        };
        let o = Observations {
            url: "http://127.0.0.1:1/mcp".into(),
            oauth: Some(probe),
            ..Observations::default()
        };
        let findings = judge_all(&o, &Options::default()).unwrap_or_default();
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code(), "H409");
        assert_eq!(findings[0].severity(), crate::findings::Severity::Info);
        assert!(findings[0].message.starts_with("H404 not verified: "));
    }

    #[test]
    fn metadata_urls_follow_rfc_8414() {
        assert_eq!(
            server_metadata_url("http://h:1").as_deref(),
            Some("http://h:1/.well-known/oauth-authorization-server")
        );
        assert_eq!(
            server_metadata_url("https://h/tenant/").as_deref(),
            Some("https://h/.well-known/oauth-authorization-server/tenant")
        );
        assert_eq!(server_metadata_url("nope"), None);
        let auth = AuthProbe {
            answer: answer(401, ""),
            metadata: vec![MetadataFetch {
                url: "u".into(),
                answer: Some(answer(
                    200,
                    r#"{"resource":"r","authorization_servers":["http://as"]}"#,
                )),
                error: None,
            }],
        };
        assert_eq!(authorization_server(&auth).as_deref(), Some("http://as"));
    }
}
