//! `serve --oauth` bound to all interfaces: a request's `Host` header never
//! chooses the audience a token must have (the server answers as its own
//! origins, or `--public-url`), `probe --auth` reports H404 when a server
//! does take it from `Host`, and `/register` is bounded in size.

mod serve_support;

use std::process::Stdio;

use base64::Engine as _;
use serde_json::{Value, json};
use serve_support::{serve_command, within};
use tokio::io::{AsyncBufReadExt as _, BufReader};

const CLIENT: (&str, &str) = ("origin-client", "origin-secret-0b7d");

/// A `serve --http ADDR --oauth --oauth-client …` (and `extra`): the child
/// and the port it listens on.
async fn start(addr: &str, extra: &[&str]) -> (tokio::process::Child, u16, String) {
    let client = format!("{}:{}", CLIENT.0, CLIENT.1);
    let mut args = vec!["--http", addr, "--oauth", "--oauth-client", &client];
    args.extend_from_slice(extra);
    let mut child = serve_command(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn mcpcheck serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let line = within("the server prints its URL", async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("listening on ") {
                return line;
            }
        }
        panic!("the server exited without printing its URL");
    })
    .await;
    let port = line
        .split("listening on http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|a| a.rsplit_once(':'))
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    (child, port, line)
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// A client_credentials token for `resource`, from the server at `base`.
async fn token_for(base: &str, resource: &str) -> String {
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", CLIENT.0, CLIENT.1));
    let response = within(
        "POST /token",
        client()
            .post(format!("{base}/token"))
            .header("authorization", format!("Basic {basic}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!(
                "grant_type=client_credentials&resource={}",
                resource.replace(':', "%3A").replace('/', "%2F")
            ))
            .send(),
    )
    .await
    .expect("POST");
    let doc: Value = serde_json::from_str(&within("body", response.text()).await.expect("body"))
        .expect("a token answer");
    doc["access_token"].as_str().expect("a token").to_owned()
}

/// The status of an `initialize` with `token`, sent to `base` naming `host`.
async fn initialize_as(base: &str, host: &str, token: &str) -> u16 {
    let response = within(
        "initialize",
        client()
            .post(format!("{base}/mcp"))
            .header("host", host)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .bearer_auth(token)
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}})
                .to_string(),
            )
            .send(),
    )
    .await
    .expect("POST");
    response.status().as_u16()
}

#[tokio::test]
async fn bound_to_all_interfaces_the_host_header_does_not_choose_the_audience() {
    let (_child, port, line) = start("0.0.0.0:0", &[]).await;
    assert!(
        line.contains(&format!("OAuth issuer: http://127.0.0.1:{port}")),
        "{line}"
    );
    let base = format!("http://127.0.0.1:{port}");
    let evil = format!("evil.example:{port}");
    let foreign = token_for(&base, &format!("http://{evil}/mcp")).await;
    assert_eq!(initialize_as(&base, &evil, &foreign).await, 401);
    // The metadata asked for under that Host names the server's origin.
    let doc: Value = serde_json::from_str(
        &within(
            "metadata",
            client()
                .get(format!("{base}/.well-known/oauth-authorization-server"))
                .header("host", &evil)
                .send(),
        )
        .await
        .expect("GET")
        .text()
        .await
        .expect("body"),
    )
    .expect("JSON");
    assert_eq!(doc["issuer"], base.as_str());
    // Its own URL, by any of its loopback names, is still accepted.
    let own = token_for(&base, &format!("{base}/mcp")).await;
    assert_eq!(
        initialize_as(&base, &format!("127.0.0.1:{port}"), &own).await,
        200
    );
    let local = token_for(&base, &format!("http://localhost:{port}/mcp")).await;
    assert_eq!(
        initialize_as(&base, &format!("localhost:{port}"), &local).await,
        200
    );
}

#[tokio::test]
async fn a_public_url_is_the_issuer_and_the_audience() {
    let (_child, port, line) =
        start("0.0.0.0:0", &["--public-url", "https://mcp.example.com"]).await;
    assert!(
        line.contains("OAuth issuer: https://mcp.example.com"),
        "{line}"
    );
    let base = format!("http://127.0.0.1:{port}");
    let public = token_for(&base, "https://mcp.example.com/mcp").await;
    // Behind a proxy that passes the public Host on: the public origin, not
    // `http://` and the Host, is the audience.
    assert_eq!(initialize_as(&base, "mcp.example.com", &public).await, 200);
}

/// `probe --auth` against a server started with `extra`: the H404 findings'
/// messages.
async fn h404(extra: &[&str]) -> Vec<String> {
    let (_child, port, _) = start("0.0.0.0:0", extra).await;
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args([
            "probe",
            "--url",
            &format!("http://127.0.0.1:{port}/mcp"),
            "--auth",
            "--auth-client",
            &format!("{}:{}", CLIENT.0, CLIENT.1),
            "--format",
            "json",
        ])
        .env("NO_COLOR", "1")
        .output();
    let output = within("probe", output).await.expect("run probe");
    let out = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "H404")
        .map(|f| f["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn probe_notices_an_audience_taken_from_the_host_header() {
    assert_eq!(h404(&[]).await, Vec::<String>::new());
    let found = h404(&["--fault", "oauth-host-audience"]).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("from the Host header"), "{found:?}");
}

#[tokio::test]
async fn registration_is_bounded_in_size() {
    let (_child, port, _) = start("127.0.0.1:0", &[]).await;
    let register = |body: String| {
        client()
            .post(format!("http://127.0.0.1:{port}/register"))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let huge = json!({"redirect_uris": [format!("http://a/{}", "x".repeat(3 << 20))]});
    let response = within("a 3 MB registration", register(huge.to_string()))
        .await
        .expect("POST");
    assert_eq!(response.status().as_u16(), 413);
    let many: Vec<String> = (0..17).map(|i| format!("http://a/{i}")).collect();
    let response = within(
        "17 redirect URIs",
        register(json!({"redirect_uris": many}).to_string()),
    )
    .await
    .expect("POST");
    assert_eq!(response.status().as_u16(), 400);
    // Registrations of the largest size allowed stop at the byte budget,
    // well before the client count.
    let uris: Vec<String> = (0..16)
        .map(|i| format!("http://a/{i}/{}", "y".repeat(2000)))
        .collect();
    let body = json!({"redirect_uris": uris}).to_string();
    let mut refused_at = None;
    for n in 0..1000 {
        let response = within("register", register(body.clone()))
            .await
            .expect("POST");
        if response.status().as_u16() != 201 {
            refused_at = Some(n);
            break;
        }
    }
    let n = refused_at.expect("registrations stop");
    assert!((400..600).contains(&n), "refused after {n} registrations");
}
