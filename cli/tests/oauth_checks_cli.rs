//! `mcpcheck probe --auth` against `mcpcheck serve --oauth`: a healthy
//! server gives no authorization finding, and each `oauth-*` fault gives
//! exactly the rule that catches it.

mod cli_support;

use cli_support::{http_serve, run_mcpcheck};
use serde_json::Value;

/// The codes `probe --auth --fail-on info ARGS` reports for a server
/// started with `--oauth --oauth-token-ttl 1 SERVE`, and the exit code.
/// H410 is left out: serve's authorization server offers Dynamic Client
/// Registration, which the checks use to get tokens (a note of its own,
/// tested below).
fn codes(serve: &[&str], probe: &[&str]) -> (Option<i32>, Vec<String>, Value) {
    let mut serve_args = vec!["--oauth", "--oauth-token-ttl", "1"];
    serve_args.extend_from_slice(serve);
    let server = http_serve(&serve_args);
    let mut args = vec![
        "probe",
        "--url",
        &server.url,
        "--auth",
        "--format",
        "json",
        "--fail-on",
        "info",
        "--ignore",
        "H410",
    ];
    args.extend_from_slice(probe);
    let (code, out, err) = run_mcpcheck(&args);
    let report: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out}\nstderr: {err}"));
    let found = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code").to_string())
        .collect();
    (code, found, report)
}

#[test]
fn a_healthy_oauth_server_has_no_finding() {
    let (code, found, report) = codes(&[], &[]);
    assert!(found.is_empty(), "{report}");
    assert_eq!(code, Some(0));
}

#[test]
fn a_given_client_gets_the_tokens() {
    let (code, found, report) = codes(
        &["--oauth-client", "probe:pw"],
        &["--auth-client", "probe:pw"],
    );
    // The redirect URIs of a client the probe did not register are not
    // known to it: that check alone is not verified.
    assert_eq!(found, ["H409"], "{report}");
    assert!(
        report["findings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("H411 not verified")),
        "{report}"
    );
    assert_eq!(code, Some(1), "a note fails at --fail-on info");
    let (_, found, report) = codes(&[], &["--auth-client", "probe:wrong"]);
    // An unknown client gets no token and no code: nothing is verified.
    assert!(found.iter().all(|c| c == "H409"), "{report}");
    let messages = report["findings"].to_string();
    assert!(
        ["H404", "H406", "H407", "H411", "H413", "H414", "H417"]
            .iter()
            .all(|c| messages.contains(&format!("{c} not verified"))),
        "{messages}"
    );
}

#[test]
fn each_fault_gives_its_rule() {
    for (fault, rules) in [
        ("oauth-wrong-audience", &["H404"][..]),
        ("oauth-no-resource-metadata", &["H402"]),
        ("oauth-metadata-missing-fields", &["H405"]),
        // No PKCE at all: a plain challenge is taken too.
        ("oauth-no-pkce", &["H406", "H416"]),
        ("oauth-expired-accepted", &["H407"]),
    ] {
        let (code, found, report) = codes(&["--fault", fault], &[]);
        assert_eq!(found, rules, "{fault}: {report}");
        assert_eq!(code, Some(1), "{fault}");
    }
}

#[test]
fn each_negative_check_fires_on_its_fault_alone() {
    for (fault, rules) in [
        ("oauth-redirect-any-uri", &["H411"][..]),
        ("oauth-any-client", &["H412", "H412"]),
        ("oauth-no-iss", &["H413"]),
        ("oauth-wrong-iss", &["H414"]),
        ("oauth-no-cimd", &["H415"]),
        ("oauth-plain-pkce", &["H416"]),
        ("oauth-scope-401", &["H417"]),
    ] {
        let (code, found, report) = codes(&["--fault", fault], &[]);
        assert_eq!(found, rules, "{fault}: {report}");
        // Warnings (H413, H415, H417: what is recommended) fail only at
        // their severity: this run asks --fail-on info.
        assert_eq!(code, Some(1), "{fault}: {report}");
    }
    // At the default --fail-on high, the recommendations pass.
    let server = http_serve(&["--oauth", "--fault", "oauth-no-cimd"]);
    let (code, out, err) = run_mcpcheck(&["probe", "--url", &server.url, "--auth"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("H415"), "{out}");
}

#[test]
fn a_token_without_the_needed_scope_is_challenged_with_403() {
    let server = http_serve(&["--oauth", "--oauth-client", "c:s"]);
    let base = server.url.trim_end_matches("/mcp").to_string();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let http = reqwest::Client::new();
        // HTTP Basic of `c:s`.
        let basic = "Basic Yzpz";
        let token_answer = |scope: &'static str| {
            http.post(format!("{base}/token"))
                .header("authorization", basic)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("grant_type=client_credentials&scope={scope}"))
                .send()
        };
        let token = |answer: reqwest::Response| async move {
            let text = answer.text().await.expect("body");
            let doc: Value = serde_json::from_str(&text).expect("json");
            doc["access_token"].as_str().expect("access_token").to_string()
        };
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let call = |token: String| {
            http.post(&server.url)
                .header("authorization", format!("Bearer {token}"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(initialize)
                .send()
        };
        let narrow = token(token_answer("profile").await.expect("token")).await;
        let answer = call(narrow).await.expect("answer");
        assert_eq!(answer.status().as_u16(), 403);
        let challenge = answer.headers()["www-authenticate"]
            .to_str()
            .expect("ascii")
            .to_string();
        assert!(
            challenge.contains(r#"error="insufficient_scope""#)
                && challenge.contains(r#"scope="mcp""#)
                && challenge.contains("resource_metadata="),
            "{challenge}"
        );
        let full = token(token_answer("mcp").await.expect("token")).await;
        assert_eq!(call(full).await.expect("answer").status().as_u16(), 200);
        let unknown = token_answer("admin").await.expect("answer");
        assert_eq!(
            unknown.status().as_u16(),
            400,
            "an unknown scope is invalid_scope"
        );
    });
}

#[test]
fn dynamic_client_registration_is_a_note_of_a_deprecated_feature() {
    let server = http_serve(&["--oauth"]);
    let (code, out, err) =
        run_mcpcheck(&["probe", "--url", &server.url, "--auth", "--format", "json"]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let dcr: Vec<&Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "H410")
        .collect();
    assert_eq!(dcr.len(), 1, "{report}");
    assert_eq!(dcr[0]["level"], "note");
    assert!(
        dcr[0]["message"].as_str().is_some_and(
            |m| m.contains("registration_endpoint") && m.contains("deprecated in 2026-07-28")
        ),
        "{report}"
    );
    assert_eq!(code, Some(0), "a note never fails a run");
}

#[test]
fn long_lived_tokens_leave_expiry_not_verified() {
    let server = http_serve(&["--oauth"]);
    let (code, out, err) = run_mcpcheck(&[
        "probe",
        "--url",
        &server.url,
        "--auth",
        "--format",
        "json",
        "--ignore",
        "H410",
    ]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let findings = report["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{report}");
    assert_eq!(findings[0]["code"], "H409");
    assert_eq!(findings[0]["severity"], "info");
    assert!(
        findings[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("H407 not verified: tokens live 3600 s")),
        "{report}"
    );
    assert_eq!(
        code,
        Some(0),
        "info findings pass at the default --fail-on high"
    );
}

#[test]
fn a_server_without_oauth_leaves_the_token_checks_not_verified() {
    let server = http_serve(&["--bearer", "static-token"]);
    let (_, out, err) = run_mcpcheck(&[
        "probe",
        "--url",
        &server.url,
        "--auth",
        "--format",
        "json",
        "--fail-on",
        "info",
    ]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let messages: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "H409")
        .filter_map(|f| f["message"].as_str())
        .collect();
    for code in ["H404", "H406", "H407"] {
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with(&format!("{code} not verified"))),
            "{report}"
        );
    }
    assert!(!out.contains("static-token") && !err.contains("static-token"));
}

#[test]
fn auth_client_is_checked() {
    let (code, _, err) = run_mcpcheck(&[
        "probe",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--auth",
        "--auth-client",
        "no-secret",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("ID:SECRET"), "{err}");
}

#[test]
fn conformance_runs_the_authorization_checks_too() {
    let server = http_serve(&[
        "--oauth",
        "--oauth-token-ttl",
        "1",
        "--oauth-client",
        "c:s",
        "--fault",
        "oauth-wrong-audience",
    ]);
    let (code, out, err) = run_mcpcheck(&[
        "conformance",
        "--url",
        &server.url,
        "--auth-type",
        "client_credentials",
        "--auth-client-id",
        "c",
        "--auth-client-secret",
        "s",
        "--auth",
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    let found: Vec<&str> = report["authorization"]["findings"]
        .as_array()
        .expect("authorization findings")
        .iter()
        .filter_map(|f| f["code"].as_str())
        .filter(|c| *c != "H410")
        .collect();
    // And the note that a given client's redirect URIs are not known.
    assert_eq!(found, ["H404", "H409"], "{report}");
    assert_eq!(code, Some(1), "a high authorization finding fails the run");
    assert_eq!(
        report["passed"], false,
        "the document's verdict is the run's"
    );
    assert!(report["revisions"].is_array(), "{report}");
    // JUnit and SARIF carry the authorization findings too: one report in
    // every format of the output contract.
    for format in ["junit", "sarif"] {
        let (code, out, err) = run_mcpcheck(&[
            "conformance",
            "--url",
            &server.url,
            "--auth",
            "--format",
            format,
        ]);
        assert_eq!(code, Some(1), "{out}{err}");
        assert!(out.contains("H404"), "{format}: {out}");
    }
}

/// Serves `doc` as JSON to every GET on a loopback port; the URL of
/// `/client.json` there.
fn client_metadata_server(doc: impl Fn(&str) -> String + Send + 'static) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!(
        "http://{}/client.json",
        listener.local_addr().expect("addr")
    );
    let own = url.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = doc(&own);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

#[test]
fn a_client_id_metadata_document_is_fetched_and_its_redirect_uris_held() {
    let server = http_serve(&["--oauth"]);
    let base = server.url.trim_end_matches("/mcp").to_string();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let authorize = |client_id: &str, redirect: &str| {
        let url = format!(
            "{base}/authorize?response_type=code&client_id={}&redirect_uri={}&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=s",
            form(client_id),
            form(redirect)
        );
        runtime.block_on(async {
            let http = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client");
            let answer = http.get(url).send().await.expect("answer");
            let status = answer.status().as_u16();
            let location = answer
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            (status, location)
        })
    };
    let good = client_metadata_server(|url| {
        format!(
            r#"{{"client_id": "{url}", "client_name": "test", "redirect_uris": ["http://127.0.0.1:9/cb"]}}"#
        )
    });
    let (status, location) = authorize(&good, "http://127.0.0.1:9/cb");
    assert_eq!(status, 302, "{location}");
    assert!(
        location.contains("code=") && location.contains("iss="),
        "{location}"
    );
    let (status, _) = authorize(&good, "http://127.0.0.1:9/elsewhere");
    assert_eq!(status, 400, "a redirect URI the document does not list");
    let forged = client_metadata_server(|_| {
        r#"{"client_id": "http://127.0.0.1:1/other.json", "client_name": "x", "redirect_uris": ["http://127.0.0.1:9/cb"]}"#.to_string()
    });
    let (status, _) = authorize(&forged, "http://127.0.0.1:9/cb");
    assert_eq!(status, 400, "a document whose client_id is not its URL");
    // Without CIMD, a URL client_id is an unknown client.
    let no_cimd = http_serve(&["--oauth", "--fault", "oauth-no-cimd"]);
    let base = no_cimd.url.trim_end_matches("/mcp").to_string();
    let url = format!(
        "{base}/authorize?response_type=code&client_id={}&redirect_uri={}&code_challenge=x&code_challenge_method=S256",
        form(&good),
        form("http://127.0.0.1:9/cb")
    );
    let status = runtime.block_on(async {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client")
            .get(url)
            .send()
            .await
            .expect("answer")
            .status()
            .as_u16()
    });
    assert_eq!(status, 400);
}

/// A query component, percent-encoded.
fn form(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
