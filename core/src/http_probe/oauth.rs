//! The authorization checks of `probe --auth` (H404 to H410): the
//! authorization server's metadata, and which tokens the endpoint and the
//! token endpoint accept. The CLI obtains the tokens and records the
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

/// H404 to H409.
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
    for skipped in &probe.unverified {
        push(
            Rule::NotVerified,
            "auth",
            format!("{} not verified: {}", skipped.code, skipped.reason),
            String::new(),
        );
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

    const GOOD: &str = r#"{"issuer":"http://h","authorization_endpoint":"http://h/a","token_endpoint":"http://h/t","response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}"#;

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
        }
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
