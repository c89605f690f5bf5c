//! `mcpcheck serve --http --oauth`, driven with raw HTTP requests: the
//! metadata documents, client registration, each grant, audience binding,
//! expiry, and that no token is ever printed or logged.

mod serve_support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};
use serve_support::{serve_command, temp_path, within};
use sha2::{Digest as _, Sha256};
use tokio::io::{AsyncBufReadExt as _, BufReader};

const VERIFIER: &str = "a-verifier-long-enough-for-rfc-7636-0123456789abcdefghijkl";

/// A `serve --oauth` whose stderr is kept.
struct OAuthServer {
    _child: tokio::process::Child,
    base: String,
    url: String,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl OAuthServer {
    async fn start(extra: &[&str]) -> Self {
        let mut args = vec!["--http", "127.0.0.1:0", "--oauth"];
        args.extend_from_slice(extra);
        let mut child = serve_command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpcheck serve");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let url = within("the server prints its URL", async {
            while let Ok(Some(line)) = lines.next_line().await {
                stderr.lock().expect("lock").push(line.clone());
                if let Some(rest) = line.split("listening on ").nth(1) {
                    return rest
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                }
            }
            panic!("the server exited without printing its URL");
        })
        .await;
        let kept = stderr.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                kept.lock().expect("lock").push(line);
            }
        });
        let base = url
            .rsplit_once('/')
            .map(|(b, _)| b.to_owned())
            .expect("path");
        Self {
            _child: child,
            base,
            url,
            stderr,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().expect("lock").join("\n")
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

async fn get_json(url: &str) -> (u16, Value) {
    let response = within("GET", client().get(url).send()).await.expect("GET");
    let status = response.status().as_u16();
    let body = within("body", response.text()).await.expect("body");
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// POSTs a form to the token endpoint: (status, JSON answer).
async fn token(base: &str, form: &str, basic: Option<(&str, &str)>) -> (u16, Value) {
    let mut request = client()
        .post(format!("{base}/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_owned());
    if let Some((id, secret)) = basic {
        let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
        request = request.header("authorization", format!("Basic {encoded}"));
    }
    let response = within("POST /token", request.send()).await.expect("POST");
    let status = response.status().as_u16();
    let body = within("body", response.text()).await.expect("body");
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// An `initialize` with this bearer token: (status, WWW-Authenticate, session).
async fn initialize(url: &str, bearer: Option<&str>) -> (u16, String, Option<String>) {
    let mut request = client()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        );
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    let response = within("initialize", request.send()).await.expect("POST");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    (
        response.status().as_u16(),
        header("www-authenticate").unwrap_or_default(),
        header("mcp-session-id"),
    )
}

/// `whoami` over a session opened with this token.
async fn whoami(url: &str, bearer: &str) -> String {
    let (status, _, session) = initialize(url, Some(bearer)).await;
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let post = |body: Value| {
        client()
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-session-id", session.clone())
            .header("mcp-protocol-version", "2025-11-25")
            .bearer_auth(bearer)
            .body(body.to_string())
            .send()
    };
    within(
        "initialized",
        post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await
    .expect("POST");
    let response = within(
        "whoami",
        post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}}})),
    )
    .await
    .expect("POST");
    let body = within("body", response.text()).await.expect("body");
    let data = body
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or(&body);
    let answer: Value = serde_json::from_str(data.trim()).expect("JSON-RPC answer");
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn metadata_documents_describe_the_server() {
    let server = OAuthServer::start(&[]).await;
    assert!(
        server
            .stderr()
            .contains(&format!("; OAuth issuer: {})", server.base)),
        "{}",
        server.stderr()
    );
    let (status, challenge, _) = initialize(&server.url, None).await;
    assert_eq!(status, 401);
    let metadata_url = format!("{}/.well-known/oauth-protected-resource/mcp", server.base);
    assert!(
        challenge.contains(&format!(r#"resource_metadata="{metadata_url}""#)),
        "{challenge}"
    );
    assert!(!challenge.contains("invalid_token"), "{challenge}");
    let (status, prm) = get_json(&metadata_url).await;
    assert_eq!(status, 200);
    assert_eq!(prm["resource"], server.url.as_str());
    assert_eq!(prm["authorization_servers"], json!([server.base]));
    let (status, asm) = get_json(&format!(
        "{}/.well-known/oauth-authorization-server",
        server.base
    ))
    .await;
    assert_eq!(status, 200);
    assert_eq!(asm["issuer"], server.base.as_str());
    assert_eq!(asm["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(asm["token_endpoint"], format!("{}/token", server.base));
    assert_eq!(
        asm["authorization_endpoint"],
        format!("{}/authorize", server.base)
    );
    assert_eq!(
        asm["registration_endpoint"],
        format!("{}/register", server.base)
    );
    assert_eq!(asm["response_types_supported"], json!(["code"]));
    for grant in ["authorization_code", "client_credentials", "refresh_token"] {
        assert!(
            asm["grant_types_supported"]
                .as_array()
                .is_some_and(|g| g.contains(&json!(grant))),
            "{grant}"
        );
    }
}

#[tokio::test]
async fn client_credentials_tokens_name_the_client_and_are_bound_to_the_endpoint() {
    let audit = temp_path("audit-oauth.jsonl");
    let audit_arg = audit.to_str().expect("UTF-8 temp path");
    let server = OAuthServer::start(&[
        "--oauth-client",
        "robot:s3cret-value",
        "--audit-log",
        audit_arg,
    ])
    .await;
    let resource = format!("resource={}", enc(&server.url));
    let (status, refused) = token(
        &server.base,
        &format!("grant_type=client_credentials&{resource}"),
        Some(("robot", "wrong")),
    )
    .await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (401, Some("invalid_client"))
    );

    let (status, issued) = token(
        &server.base,
        &format!("grant_type=client_credentials&{resource}"),
        Some(("robot", "s3cret-value")),
    )
    .await;
    assert_eq!(status, 200, "{issued}");
    assert_eq!(issued["token_type"], "Bearer");
    assert_eq!(issued["expires_in"], 3600);
    let access = issued["access_token"].as_str().expect("a token").to_owned();
    assert_eq!(whoami(&server.url, &access).await, "oauth:robot");

    // The same client, secret in the body, token for another resource.
    let (status, foreign) = token(
        &server.base,
        "grant_type=client_credentials&client_id=robot&client_secret=s3cret-value&resource=https%3A%2F%2Fother.example%2Fmcp",
        None,
    )
    .await;
    assert_eq!(status, 200, "{foreign}");
    let foreign = foreign["access_token"]
        .as_str()
        .expect("a token")
        .to_owned();
    let (status, challenge, _) = initialize(&server.url, Some(&foreign)).await;
    assert_eq!(status, 401);
    assert!(
        challenge.contains(r#"error="invalid_token""#),
        "{challenge}"
    );
    assert!(challenge.contains("resource_metadata="), "{challenge}");

    let (status, _, _) = initialize(&server.url, Some("not-a-token")).await;
    assert_eq!(status, 401);

    let log = std::fs::read_to_string(&audit).expect("the audit log exists");
    assert!(log.contains(r#""identity":"oauth:robot""#), "{log}");
    let printed = server.stderr();
    for secret in [&access, &foreign] {
        assert!(!log.contains(secret.as_str()) && !printed.contains(secret.as_str()));
    }
    assert!(!printed.contains("s3cret-value") && !log.contains("s3cret-value"));
    let _ = std::fs::remove_file(&audit);
}

/// Registers a public client with this redirect URI: its client_id.
async fn register(base: &str, redirect: &str) -> String {
    let response = within(
        "POST /register",
        client()
            .post(format!("{base}/register"))
            .header("content-type", "application/json")
            .body(
                json!({"redirect_uris": [redirect], "token_endpoint_auth_method": "none",
                    "client_name": "test"})
                .to_string(),
            )
            .send(),
    )
    .await
    .expect("POST");
    assert_eq!(response.status().as_u16(), 201);
    let doc: Value =
        serde_json::from_str(&within("body", response.text()).await.expect("body")).expect("JSON");
    assert!(doc.get("client_secret").is_none(), "{doc}");
    doc["client_id"].as_str().expect("client_id").to_owned()
}

/// Follows `/authorize` to its redirect: the `code` it carries, after
/// checking the `state` came back.
async fn authorize(base: &str, client_id: &str, redirect: &str, resource: &str) -> String {
    let challenge =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(VERIFIER));
    let url = format!(
        "{base}/authorize?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge={challenge}&code_challenge_method=S256&state=xyz%201&resource={}",
        enc(redirect),
        enc(resource)
    );
    let response = within("GET /authorize", client().get(&url).send())
        .await
        .expect("GET");
    assert_eq!(response.status().as_u16(), 302);
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("Location")
        .to_owned();
    assert!(location.starts_with(&format!("{redirect}?")), "{location}");
    assert!(location.contains("state=xyz%201"), "{location}");
    location
        .split(['?', '&'])
        .find_map(|p| p.strip_prefix("code="))
        .expect("a code")
        .to_owned()
}

#[tokio::test]
async fn authorization_code_with_pkce_then_refresh() {
    let server = OAuthServer::start(&[]).await;
    let redirect = "http://127.0.0.1:9/callback";
    let client_id = register(&server.base, redirect).await;
    assert_eq!(client_id, "client-1");

    // Without the verifier, then with a wrong one: refused, and the code is
    // used up by the first try.
    let code = authorize(&server.base, &client_id, redirect, &server.url).await;
    let base_form = format!(
        "grant_type=authorization_code&client_id={client_id}&redirect_uri={}",
        enc(redirect)
    );
    let (status, refused) = token(
        &server.base,
        &format!(
            "{base_form}&code={code}&code_verifier=wrong-verifier-wrong-verifier-wrong-verifier-00"
        ),
        None,
    )
    .await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (400, Some("invalid_grant"))
    );
    let code = authorize(&server.base, &client_id, redirect, &server.url).await;
    let (status, _) = token(&server.base, &format!("{base_form}&code={code}"), None).await;
    assert_eq!(status, 400);

    let code = authorize(&server.base, &client_id, redirect, &server.url).await;
    let (status, issued) = token(
        &server.base,
        &format!("{base_form}&code={code}&code_verifier={VERIFIER}"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{issued}");
    let access = issued["access_token"].as_str().expect("access").to_owned();
    let refresh = issued["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_owned();
    assert_eq!(whoami(&server.url, &access).await, "oauth:client-1");
    let (status, _) = token(
        &server.base,
        &format!("{base_form}&code={code}&code_verifier={VERIFIER}"),
        None,
    )
    .await;
    assert_eq!(status, 400, "a code is redeemed once");

    let refresh_form =
        format!("grant_type=refresh_token&client_id={client_id}&refresh_token={refresh}");
    let (status, renewed) = token(&server.base, &refresh_form, None).await;
    assert_eq!(status, 200, "{renewed}");
    let renewed_access = renewed["access_token"].as_str().expect("access");
    assert_ne!(renewed_access, access);
    assert_eq!(whoami(&server.url, renewed_access).await, "oauth:client-1");
    let (status, _) = token(&server.base, &refresh_form, None).await;
    assert_eq!(status, 400, "a refresh token is rotated");

    // Unknown redirect URIs are never followed.
    let response = within(
        "GET /authorize",
        client()
            .get(format!(
                "{}/authorize?response_type=code&client_id={client_id}&redirect_uri=https%3A%2F%2Fevil.example%2F&code_challenge=x&code_challenge_method=S256",
                server.base
            ))
            .send(),
    )
    .await
    .expect("GET");
    assert_eq!(response.status().as_u16(), 400);
    let printed = server.stderr();
    assert!(!printed.contains(&access) && !printed.contains(&refresh) && !printed.contains(&code));
}

#[tokio::test]
async fn tokens_expire() {
    let server = OAuthServer::start(&["--oauth-token-ttl", "1", "--oauth-client", "c:s"]).await;
    let (status, issued) = token(
        &server.base,
        "grant_type=client_credentials",
        Some(("c", "s")),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(issued["expires_in"], 1);
    let access = issued["access_token"].as_str().expect("a token").to_owned();
    let (status, _, _) = initialize(&server.url, Some(&access)).await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let (status, challenge, _) = initialize(&server.url, Some(&access)).await;
    assert_eq!(status, 401);
    assert!(
        challenge.contains(r#"error="invalid_token""#),
        "{challenge}"
    );
}

#[tokio::test]
async fn bad_requests_get_oauth_errors() {
    let server = OAuthServer::start(&["--oauth-client", "c:s"]).await;
    let (status, answer) = token(&server.base, "grant_type=password", Some(("c", "s"))).await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("unsupported_grant_type"))
    );
    let (status, answer) = token(&server.base, "", None).await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("invalid_request"))
    );
    let (status, answer) = token(
        &server.base,
        "grant_type=client_credentials&resource=not%20a%20url",
        Some(("c", "s")),
    )
    .await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("invalid_target"))
    );
    let response = within(
        "POST /register",
        client()
            .post(format!("{}/register", server.base))
            .body("not json")
            .send(),
    )
    .await
    .expect("POST");
    assert_eq!(response.status().as_u16(), 400);
}
