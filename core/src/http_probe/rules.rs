//! The catalogue of HTTP probe rules: one row per rule, the single source for
//! codes, severities, titles, the attack each catches and where the requirement
//! it checks is published.
//!
//! Codes are grouped by family: H1xx requests from a foreign site (DNS
//! rebinding), H2xx tools the listing hides, H3xx what error bodies leak,
//! H4xx authorization (discovery, then with `--auth` the
//! authorization server and the tokens the endpoint accepts), H5xx sessions, H6xx the transport itself.
//! `docs/http-probes.md` is held to this table by `core/tests/docs_http_probes.rs`.

use crate::findings::{Family, Level, RuleInfo, Severity};

/// One HTTP probe rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// H101: a request with a foreign `Origin` is served.
    ForeignOrigin,
    /// H102: a request with a rebinding `Host` is served.
    RebindingHost,
    /// H201: a tool absent from `tools/list` can be called.
    HiddenTool,
    /// H301: an error body carries a stack trace.
    StackTrace,
    /// H302: an error body carries an absolute file path.
    FilePath,
    /// H303: an error body carries a secret.
    SecretInError,
    /// H401: a 401 without `WWW-Authenticate`.
    NoChallenge,
    /// H402: a `WWW-Authenticate` challenge without `resource_metadata`.
    NoResourceMetadata,
    /// H403: protected-resource metadata missing or invalid.
    BadResourceMetadata,
    /// H404: a token issued for another resource is accepted.
    WrongAudience,
    /// H405: authorization-server metadata missing or invalid.
    BadServerMetadata,
    /// H406: an authorization code is redeemed without the right PKCE verifier.
    PkceNotEnforced,
    /// H407: an expired token is accepted.
    ExpiredToken,
    /// H408: a malformed token is accepted.
    MalformedToken,
    /// H409: an authorization check could not run.
    NotVerified,
    /// H410: the authorization server offers Dynamic Client Registration,
    /// which 2026-07-28 deprecates.
    RegistrationOffered,
    /// H411: a code is sent to a redirect URI the client never registered.
    RedirectUriNotChecked,
    /// H412: an unknown client, or a wrong client secret, is accepted.
    InvalidClientAccepted,
    /// H413: the authorization response carries no `iss` (RFC 9207).
    NoIssuerInResponse,
    /// H414: the authorization response's `iss` is wrong, or not as the
    /// metadata advertises.
    IssuerMismatch,
    /// H415: Client ID Metadata Documents are not advertised.
    NoClientIdMetadata,
    /// H416: `plain` PKCE is accepted though the metadata says S256 only.
    PlainPkceAccepted,
    /// H417: a token without the scope needed is not answered with a 403
    /// `insufficient_scope` challenge.
    NoScopeChallenge,
    /// H501: guessable session ids.
    GuessableSessionId,
    /// H502: a session still answers after `DELETE`.
    SessionSurvivesDelete,
    /// H503: a session id with characters outside visible ASCII.
    SessionIdCharacters,
    /// H601: plaintext HTTP to a host that is not loopback.
    PlaintextHttp,
}

/// Every rule, in catalogue order: the order of findings.
pub const ALL: [Rule; 27] = [
    Rule::ForeignOrigin,
    Rule::RebindingHost,
    Rule::HiddenTool,
    Rule::StackTrace,
    Rule::FilePath,
    Rule::SecretInError,
    Rule::NoChallenge,
    Rule::NoResourceMetadata,
    Rule::BadResourceMetadata,
    Rule::WrongAudience,
    Rule::BadServerMetadata,
    Rule::PkceNotEnforced,
    Rule::ExpiredToken,
    Rule::MalformedToken,
    Rule::NotVerified,
    Rule::RegistrationOffered,
    Rule::RedirectUriNotChecked,
    Rule::InvalidClientAccepted,
    Rule::NoIssuerInResponse,
    Rule::IssuerMismatch,
    Rule::NoClientIdMetadata,
    Rule::PlainPkceAccepted,
    Rule::NoScopeChallenge,
    Rule::GuessableSessionId,
    Rule::SessionSurvivesDelete,
    Rule::SessionIdCharacters,
    Rule::PlaintextHttp,
];

crate::report::catalogue_lookups!(Rule, "H101");

/// What every row of the family shares.
const BASE: RuleInfo = RuleInfo::of(Family::Http);

/// The rows, in the order of [`Rule`]'s variants.
pub const INFOS: [RuleInfo; 27] = [
    RuleInfo {
        code: "H101",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Foreign Origin accepted"),
        rationale: crate::findings::prose!(
            "A request whose Origin names another site is served, so any web page the user opens can drive the server through the browser (DNS rebinding, cross-site requests); servers must validate Origin and answer 403."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25, basic/transports, Streamable HTTP, Security Warning (servers MUST validate the Origin header)"
        ),
        fix: crate::findings::prose!(
            "Validate the Origin header on every request and answer 403 to origins you do not serve."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H102",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Rebinding Host accepted"),
        rationale: crate::findings::prose!(
            "A request whose Host names another domain (Host: evil.example to a loopback server) is served, which is what a DNS-rebound page sends, so a remote site reaches a local server."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25, basic/transports, Streamable HTTP, Security Warning (DNS rebinding); RFC 9110 §7.2 (Host)"
        ),
        fix: crate::findings::prose!(
            "Validate the Host header against the names the server is reached by (localhost, 127.0.0.1) and refuse others."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H201",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Unlisted tool callable"),
        rationale: crate::findings::prose!(
            "tools/call runs a tool that tools/list does not show, so a client's review and approval of the listing never saw what a prompt-injected model can still call."
        ),
        source: crate::findings::prose!(
            "CVE-2026-46519; MCP 2025-11-25, server/tools (Listing Tools, Calling Tools)"
        ),
        fix: crate::findings::prose!(
            "Make tools/call accept exactly the tools tools/list shows; answer -32602 (unknown tool) for any other name."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H301",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Stack trace in an error"),
        rationale: crate::findings::prose!(
            "An error answer carries a stack trace (Node, Python, Rust, Java, Go), telling an attacker the code's layout, libraries and versions, and sending them into the model's context."
        ),
        source: crate::findings::prose!(
            "CWE-209, Generation of Error Message Containing Sensitive Information; OWASP Top 10 2021, A05 Security Misconfiguration"
        ),
        fix: crate::findings::prose!(
            "Answer errors with a message for the client and log the stack trace on the server only."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H302",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!("File path in an error"),
        rationale: crate::findings::prose!(
            "An error answer names an absolute file path of the server's machine (a home directory, an install location), information that helps aim further attacks."
        ),
        source: crate::findings::prose!(
            "CWE-209, Generation of Error Message Containing Sensitive Information; CWE-497, Exposure of Sensitive System Information"
        ),
        fix: crate::findings::prose!(
            "Keep absolute file paths of the server's machine out of error answers; log them on the server."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H303",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Secret in an error"),
        rationale: crate::findings::prose!(
            "An error answer carries what looks like a live credential (sk- API key, GitHub token, AWS AKIA key, Slack token, private key block), leaked to every caller that can provoke the error."
        ),
        source: crate::findings::prose!(
            "CWE-209, Generation of Error Message Containing Sensitive Information; GitHub secret scanning supported patterns"
        ),
        fix: crate::findings::prose!(
            "Remove the secret from error answers, revoke it, and log errors without credentials."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H401",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("401 without WWW-Authenticate"),
        rationale: crate::findings::prose!(
            "An unauthenticated request is refused with 401 but no WWW-Authenticate challenge, so a client cannot discover how to authorize and users are pushed to paste tokens by hand."
        ),
        source: crate::findings::prose!(
            "RFC 9110 §11.6.1 and §15.5.2 (a 401 MUST carry WWW-Authenticate); MCP 2025-11-25, basic/authorization, Protected Resource Metadata Discovery Requirements"
        ),
        fix: crate::findings::prose!(
            "Send WWW-Authenticate: Bearer with resource_metadata on every 401."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H402",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("No resource_metadata in the challenge"),
        rationale: crate::findings::prose!(
            "The 401's WWW-Authenticate has no resource_metadata parameter, so clients must guess the metadata location at well-known URIs and may reach the wrong authorization server."
        ),
        source: crate::findings::prose!(
            "RFC 9728 §5.1; MCP 2025-11-25, basic/authorization, Protected Resource Metadata Discovery Requirements"
        ),
        fix: crate::findings::prose!(
            "Add resource_metadata=\"https://.../.well-known/oauth-protected-resource\" to the WWW-Authenticate challenge."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H403",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Invalid protected-resource metadata"),
        rationale: crate::findings::prose!(
            "The protected-resource metadata is missing, not JSON, lacks resource or authorization_servers, or names another resource than the server's URL, so clients cannot find the right authorization server or can be sent to an attacker's."
        ),
        source: crate::findings::prose!(
            "RFC 9728 §2, §3 and §3.3 (the resource must match the URL the metadata was fetched for); MCP 2025-11-25, basic/authorization"
        ),
        fix: crate::findings::prose!(
            "Serve RFC 9728 metadata naming this server's URL as resource and at least one authorization server."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H404",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Token for another resource accepted"),
        rationale: crate::findings::prose!(
            "The endpoint accepts an access token issued for another resource (RFC 8707 audience), so a token stolen from or passed through any other service works here, and this server can replay its callers' tokens elsewhere."
        ),
        source: crate::findings::prose!(
            "RFC 8707 §2; MCP 2025-11-25, basic/authorization, Token Audience Binding and Validation and Access Token Privilege Restriction; MCP 2025-11-25, basic/security_best_practices, Token Passthrough"
        ),
        fix: crate::findings::prose!(
            "Validate each token's audience (RFC 8707 resource) and accept only tokens issued for this server."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H405",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Invalid authorization-server metadata"),
        rationale: crate::findings::prose!(
            "The authorization-server metadata is missing, not JSON, lacks a required field, names another issuer than the one it was fetched for, or does not advertise PKCE S256, so clients cannot authorize safely and must refuse to proceed."
        ),
        source: crate::findings::prose!(
            "RFC 8414 §2 (required fields) and §3.3 (issuer must be identical); MCP 2025-11-25, basic/authorization, Authorization Server Metadata Discovery and Authorization Code Protection (code_challenge_methods_supported with S256)"
        ),
        fix: crate::findings::prose!(
            "Serve RFC 8414 metadata with issuer equal to the URL it was fetched from, and the endpoints and code_challenge_methods_supported (S256)."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H406",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("PKCE not enforced"),
        rationale: crate::findings::prose!(
            "The token endpoint redeems an authorization code with a wrong code_verifier, so an intercepted code (a malicious app on the redirect URI, a leaked log) can be exchanged for tokens by whoever holds it."
        ),
        source: crate::findings::prose!(
            "RFC 7636 §4.6; OAuth 2.1 (draft-ietf-oauth-v2-1-13) §4.1.3 and §7.5.1; MCP 2025-11-25, basic/authorization, Authorization Code Protection"
        ),
        fix: crate::findings::prose!(
            "Check code_verifier against the stored code_challenge (S256) when redeeming a code; refuse a mismatch."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H407",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Expired token accepted"),
        rationale: crate::findings::prose!(
            "The endpoint accepts an access token after its expires_in has passed, so a leaked token never stops working and short token lifetimes protect nothing."
        ),
        source: crate::findings::prose!(
            "RFC 6750 §3.1 (invalid_token: expired); OAuth 2.1 (draft-ietf-oauth-v2-1-13) §5.2; MCP 2025-11-25, basic/authorization, Token Handling"
        ),
        fix: crate::findings::prose!(
            "Check each token's expiry and refuse expired tokens with 401."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H408",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Malformed token accepted"),
        rationale: crate::findings::prose!(
            "The endpoint serves a request whose bearer token was never issued (a made-up string), so it does not validate tokens at all and anyone who sends any Authorization header gets in."
        ),
        source: crate::findings::prose!(
            "RFC 6750 §3.1 (invalid_token); MCP 2025-11-25, basic/authorization, Token Handling (resource servers MUST validate access tokens)"
        ),
        fix: crate::findings::prose!(
            "Validate every bearer token (signature or introspection) and refuse tokens you did not issue."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H409",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!("Authorization check not verified"),
        rationale: crate::findings::prose!(
            "An authorization check (H404 to H408, H411 to H417) could not run, for want of a token, a client, an endpoint or time, so nothing is known of what it checks; it is not reported as holding."
        ),
        source: crate::findings::prose!("mcpcheck: what `probe --auth` could not observe"),
        fix: crate::findings::prose!(
            "Give the probe what it needs (a token with --auth, the endpoints) and run it again; nothing is known until it runs."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H410",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!("Dynamic Client Registration offered"),
        rationale: crate::findings::prose!(
            "The authorization server's metadata names a registration_endpoint: it offers the OAuth 2.0 Dynamic Client Registration Protocol, which MCP 2026-07-28 deprecates in favour of Client ID Metadata Documents; clients built for later revisions will stop using it."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 deprecated (PR #2858), basic/authorization/client-registration §Dynamic Client Registration; RFC 7591"
        ),
        fix: crate::findings::prose!(
            "Support Client ID Metadata Documents (client_id_metadata_document_supported) and plan to retire registration_endpoint."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H411",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Redirect URI not checked"),
        rationale: crate::findings::prose!(
            "The authorization endpoint sends the user back, with a code, to a redirect URI the client never registered, so anyone who crafts an authorization link collects the code (an open redirect that leaks codes)."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/authorization/security-considerations (authorization servers MUST validate exact redirect URIs against pre-registered values); OAuth 2.1 (draft-ietf-oauth-v2-1-13) §4.1.1; RFC 9700 §4.1"
        ),
        fix: crate::findings::prose!(
            "Compare the redirect_uri of every authorization request with the client's registered ones, exactly, and answer a mismatch with an error page, never a redirect."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H412",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Invalid client accepted"),
        rationale: crate::findings::prose!(
            "The authorization server issues a code to a client_id nobody registered, or a token to a client that presents a wrong secret, so client identity means nothing."
        ),
        source: crate::findings::prose!(
            "RFC 6749 §5.2 (invalid_client); OAuth 2.1 (draft-ietf-oauth-v2-1-13) §3.2.1, §4.1.2.1"
        ),
        fix: crate::findings::prose!(
            "Refuse unknown client_ids at the authorization endpoint (without redirecting), and authenticate confidential clients at the token endpoint (401 invalid_client on a wrong secret)."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H413",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("No iss in the authorization response"),
        rationale: crate::findings::prose!(
            "The authorization response carries no iss parameter and the metadata does not advertise one, so a client talking to several authorization servers cannot detect a mix-up attack."
        ),
        source: crate::findings::prose!(
            "RFC 9207 §2; MCP 2026-07-28 basic/authorization §Authorization Response Validation (authorization servers SHOULD include iss)"
        ),
        fix: crate::findings::prose!(
            "Add iss (the issuer) to every authorization response, errors included, and set authorization_response_iss_parameter_supported to true in the metadata."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H414",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Authorization response issuer mismatch"),
        rationale: crate::findings::prose!(
            "The authorization response's iss is not the issuer, is missing though the metadata advertises it, or is sent without the metadata advertising it: clients that validate it (as MCP requires) reject every authorization, or accept a mixed-up one."
        ),
        source: crate::findings::prose!(
            "RFC 9207 §2, §2.3, §2.4; MCP 2026-07-28 basic/authorization §Authorization Response Validation"
        ),
        fix: crate::findings::prose!(
            "Send iss exactly as the metadata's issuer, and advertise authorization_response_iss_parameter_supported: true exactly when you send it."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H415",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!("Client ID Metadata Documents not advertised"),
        rationale: crate::findings::prose!(
            "The authorization-server metadata does not set client_id_metadata_document_supported, so clients cannot use the registration MCP recommends (a client_id that is the URL of its metadata) and fall back to dynamic registration or manual setup."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/authorization/client-registration §Client ID Metadata Documents (authorization servers SHOULD support them); draft-ietf-oauth-client-id-metadata-document"
        ),
        fix: crate::findings::prose!(
            "Support Client ID Metadata Documents (fetch the client_id URL, check its client_id and redirect_uris) and advertise client_id_metadata_document_supported: true."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H416",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("plain PKCE accepted"),
        rationale: crate::findings::prose!(
            "The metadata lists only S256 as a code challenge method, yet the server issues and redeems a code with code_challenge_method=plain, whose verifier is the challenge itself: anyone who saw the authorization request can redeem the code."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 basic/authorization §Authorization Code Protection (clients MUST use S256); OAuth 2.1 (draft-ietf-oauth-v2-1-13) §4.1.1; RFC 7636 §4.2"
        ),
        fix: crate::findings::prose!(
            "Refuse code_challenge_method=plain (and a missing method) whenever the metadata does not list plain."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H417",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("No insufficient_scope challenge"),
        rationale: crate::findings::prose!(
            "A valid token that lacks the scope a request needs is not answered with 403 and WWW-Authenticate: Bearer error=\"insufficient_scope\" with the scope needed, so a client cannot step up its authorization and fails instead."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/authorization §Scope Challenge Handling (SEP-2350); RFC 6750 §3.1"
        ),
        fix: crate::findings::prose!(
            "Answer a token whose scopes do not cover the request with 403 and WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"the scopes needed\", resource_metadata=\"…\"."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H501",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Guessable session id"),
        rationale: crate::findings::prose!(
            "Session ids are short, numeric, sequential or repeated across sessions, so another client can guess a live id and hijack the session or inject into its stream."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25, basic/transports, Session Management (session IDs SHOULD be globally unique and cryptographically secure); MCP 2025-11-25, basic/security_best_practices, Session Hijacking; CWE-330"
        ),
        fix: crate::findings::prose!(
            "Generate session ids from a cryptographically secure source with at least 128 bits (a UUIDv4 or 32 random bytes, encoded)."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H502",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Session survives DELETE"),
        rationale: crate::findings::prose!(
            "A session the client ended with DELETE still answers requests, so a leaked or stolen id stays usable after its owner logged out; a terminated session must get 404."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25, basic/transports, Session Management (requests with a terminated session ID get 404); CWE-613, Insufficient Session Expiration"
        ),
        fix: crate::findings::prose!(
            "Forget a session when the client sends DELETE, and answer 404 to requests that name it afterwards."
        ),
        ..BASE
    },
    RuleInfo {
        code: "H503",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!("Session id outside visible ASCII"),
        rationale: crate::findings::prose!(
            "A session id holds characters outside 0x21 to 0x7E (spaces, control or non-ASCII bytes), which clients and proxies handle differently, breaking or confusing session binding."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25, basic/transports, Session Management (session IDs MUST only contain visible ASCII, 0x21 to 0x7E)"
        ),
        fix: crate::findings::prose!("Use session ids of visible ASCII only (0x21-0x7E)."),
        ..BASE
    },
    RuleInfo {
        code: "H601",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Plaintext HTTP off loopback"),
        rationale: crate::findings::prose!(
            "The server is reached over plain http:// on a host that is not loopback, so tokens, tool arguments and answers cross the network readable and changeable by anyone on the path."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25, basic/authorization, Communication Security; OAuth 2.1 (draft-ietf-oauth-v2-1-13) §1.5; RFC 9728 §7.1"
        ),
        fix: crate::findings::prose!("Serve over HTTPS, or listen on loopback only."),
        ..BASE
    },
];
