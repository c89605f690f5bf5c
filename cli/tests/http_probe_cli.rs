//! `mcpcheck probe`: every probe against `mcpcheck serve --http` on
//! loopback, healthy (no finding) and with the fault that plants its
//! weakness; the report formats and the exit codes.

mod cli_support;

use cli_support::{http_serve, run_mcpcheck, scratch};
use serde_json::Value;

/// The tools `mcpcheck serve` lists.
const LISTED: [&str; 15] = [
    "echo",
    "add",
    "lorem",
    "progress",
    "slow",
    "fail",
    "structured",
    "structured_wrong",
    "big",
    "log",
    "sample",
    "elicit",
    "roots",
    "add_tool",
    "whoami",
];

/// `mcpcheck probe --url URL ARGS --format json`: (exit code, the report,
/// stderr).
fn probe_json(url: &str, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["probe", "--url", url, "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run_mcpcheck(&all);
    let report: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out}\nstderr: {err}"));
    (code, report, err)
}

fn report_codes(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code").to_string())
        .collect()
}

/// The codes a server started with `serve_args` gets, at --fail-on info.
fn found(serve_args: &[&str], probe_args: &[&str]) -> (Option<i32>, Vec<String>, Value) {
    let server = http_serve(serve_args);
    let mut args = vec!["--fail-on", "info"];
    args.extend_from_slice(probe_args);
    let (code, report, err) = probe_json(&server.url, &args);
    assert_eq!(report["url"], server.url.as_str(), "{err}");
    (code, report_codes(&report), report)
}

#[test]
fn a_healthy_server_has_no_finding() {
    let server = http_serve(&[]);
    let (code, out, err) = run_mcpcheck(&["probe", "--url", &server.url, "--fail-on", "info"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(out, format!("{}\nno findings\n", server.url));
    let (code, report, _) = probe_json(&server.url, &["--fail-on", "info"]);
    assert_eq!(code, Some(0));
    assert_eq!(report["version"], 1);
    assert_eq!(report["findings"], serde_json::json!([]));
}

#[test]
fn a_server_without_origin_or_host_checks_is_open_to_rebinding() {
    let (code, codes, report) = found(&["--fault", "no-origin-check"], &[]);
    assert_eq!(code, Some(1));
    assert_eq!(codes, ["H101", "H102"]);
    assert_eq!(report["findings"][0]["probe"], "origin");
    assert_eq!(report["findings"][1]["probe"], "host");
}

#[test]
fn an_unlisted_tool_that_runs_is_found_and_listed_ones_are_not_called() {
    let dir = scratch("probe-audit");
    let log = dir.join("audit.jsonl");
    let log_arg = log.to_str().expect("a UTF-8 path");
    let (code, codes, report) = found(
        &["--fault", "hidden-tool", "--audit-log", log_arg],
        &["--tool", "drop_tables", "--tool", "echo"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(codes, ["H201"]);
    let message = report["findings"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("`debug_exec`"), "{message}");
    // Every call the server saw: the unlisted names (the one given with
    // --tool among them), and one listed tool, called with arguments of the
    // wrong type, which it refused. `echo` given with --tool is not called.
    let calls: Vec<Value> = std::fs::read_to_string(&log)
        .expect("the audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let tools: Vec<&str> = calls.iter().filter_map(|c| c["tool"].as_str()).collect();
    assert!(tools.contains(&"drop_tables"), "{tools:?}");
    let listed: Vec<&Value> = calls
        .iter()
        .filter(|c| c["tool"].as_str().is_some_and(|t| LISTED.contains(&t)))
        .collect();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["tool"], "echo");
    assert_eq!(listed[0]["is_error"], true, "{listed:?}");
    // Without the fault the same name is refused.
    let (code, codes, _) = found(&[], &["--tool", "debug_exec"]);
    assert_eq!((code, codes.len()), (Some(0), 0));
}

#[test]
fn leaky_errors_show_a_trace_a_path_and_a_key() {
    let (code, codes, report) = found(&["--fault", "leaky-errors"], &[]);
    assert_eq!(code, Some(1));
    assert_eq!(codes, ["H301", "H302", "H303"]);
    let key = report["findings"][2]["evidence"]
        .as_str()
        .unwrap_or_default();
    assert!(key.starts_with("sk-live-"), "{key}");
    assert!(!key.contains("Wd1Yh5"), "the key is shown redacted: {key}");
}

#[test]
fn counter_session_ids_are_guessable() {
    let (code, codes, report) = found(&["--fault", "guessable-session-ids"], &[]);
    assert_eq!(code, Some(1));
    assert_eq!(codes, ["H501"]);
    assert_eq!(report["findings"][0]["evidence"], "1, 2, 3");
}

#[test]
fn a_session_that_survives_delete_is_found() {
    let (code, codes, _) = found(&["--fault", "session-survives-delete"], &[]);
    assert_eq!(code, Some(1));
    assert_eq!(codes, ["H502"]);
    // A medium finding passes the default --fail-on high.
    let server = http_serve(&["--fault", "session-survives-delete"]);
    let (code, report, _) = probe_json(&server.url, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(report_codes(&report), ["H502"]);
}

#[test]
fn a_bearer_server_points_to_valid_resource_metadata() {
    let bearer = ["--bearer", "probe-token"];
    let credentials = ["--header", "Authorization: Bearer probe-token"];
    let (code, codes, _) = found(&bearer, &credentials);
    assert_eq!((code, codes.len()), (Some(0), 0), "{codes:?}");
    // Without credentials only the authorization probes run; they pass.
    let server = http_serve(&bearer);
    let (code, report, err) = probe_json(&server.url, &["--fail-on", "info"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(report["findings"], serde_json::json!([]));
    assert!(err.contains("answered 401"), "{err}");
    let (code, _, err) = probe_json(
        &server.url,
        &["--header", "Authorization: Bearer wrong-token"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("refused the credentials given"), "{err}");
}

#[test]
fn missing_or_wrong_resource_metadata_is_found() {
    let credentials = ["--header", "Authorization: Bearer probe-token"];
    let (code, codes, _) = found(
        &["--bearer", "probe-token", "--fault", "no-resource-metadata"],
        &credentials,
    );
    assert_eq!(code, Some(1));
    assert_eq!(codes, ["H402", "H403"]);
    let (code, codes, report) = found(
        &[
            "--bearer",
            "probe-token",
            "--fault",
            "bad-resource-metadata",
        ],
        &credentials,
    );
    assert_eq!(code, Some(1));
    assert_eq!(codes, ["H403"]);
    let evidence = report["findings"][0]["evidence"]
        .as_str()
        .unwrap_or_default();
    assert!(evidence.contains("https://evil.example/mcp"), "{evidence}");
}

#[test]
fn sarif_and_markdown_reports() {
    let server = http_serve(&["--fault", "no-origin-check"]);
    let (code, out, err) = run_mcpcheck(&["probe", "--url", &server.url, "--format", "sarif"]);
    assert_eq!(code, Some(1), "{err}");
    let log: Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let ids: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(ids, ["H101", "H102"]);
    assert_eq!(results[0]["level"], "error");
    let (code, out, _) = run_mcpcheck(&["probe", "--url", &server.url, "--format", "markdown"]);
    assert_eq!(code, Some(1));
    assert!(out.starts_with("### mcpcheck probe"), "{out}");
    assert!(out.contains("| origin | probe | H101 | high |"), "{out}");
}

#[test]
fn skipped_rules_are_not_reported() {
    let (code, codes, _) = found(
        &["--fault", "no-origin-check"],
        &["--skip-rules", "H101,h102"],
    );
    assert_eq!((code, codes.len()), (Some(0), 0));
}

#[test]
fn usage_errors_and_an_unreachable_server() {
    let (code, _, err) = run_mcpcheck(&["probe", "--url", "ftp://127.0.0.1/mcp"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("http:// or https://"), "{err}");
    let (code, _, err) = run_mcpcheck(&[
        "probe",
        "--url",
        "http://127.0.0.1:1/mcp",
        "--skip-rules",
        "H999",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown rule `H999`"), "{err}");
    let (code, _, err) = run_mcpcheck(&[
        "probe",
        "--url",
        "http://127.0.0.1:1/mcp",
        "--header",
        "no colon",
    ]);
    assert_eq!(code, Some(2), "{err}");
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (code, out, err) = run_mcpcheck(&["probe", "--url", &url, "--timeout", "5s"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.contains("cannot reach"), "{err}");
    assert!(out.is_empty(), "{out}");
}
