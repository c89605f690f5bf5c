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
    assert!(found.is_empty(), "{report}");
    assert_eq!(code, Some(0));
    let (_, found, report) = codes(&[], &["--auth-client", "probe:wrong"]);
    // An unknown client gets no token and no code: nothing is verified.
    assert_eq!(found, ["H409", "H409", "H409"], "{report}");
    let messages = report["findings"].to_string();
    assert!(
        ["H404", "H406", "H407"]
            .iter()
            .all(|c| messages.contains(&format!("{c} not verified"))),
        "{messages}"
    );
}

#[test]
fn each_fault_gives_its_rule() {
    for (fault, rule) in [
        ("oauth-wrong-audience", "H404"),
        ("oauth-no-resource-metadata", "H402"),
        ("oauth-metadata-missing-fields", "H405"),
        ("oauth-no-pkce", "H406"),
        ("oauth-expired-accepted", "H407"),
    ] {
        let (code, found, report) = codes(&["--fault", fault], &[]);
        assert_eq!(found, [rule], "{fault}: {report}");
        assert_eq!(code, Some(1), "{fault}");
    }
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
    assert_eq!(found, ["H404"], "{report}");
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
