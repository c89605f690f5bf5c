//! `mcpcheck conformance` in the 2026-07-28 era, end to end against
//! `mcpcheck serve` over stdio and HTTP: plain serve passes every rule the
//! probe exercises, each of serve's 2026-07-28 faults is caught by exactly
//! its rules, and the report says per revision what was not verified.

mod cli_support;

use cli_support::{BIN, http_serve, run_mcpcheck, scratch};
use serde_json::Value;

/// Conformance of one revision as JSON: (exit code, the revision's report).
fn judge(target: &[&str], version: &str) -> (Option<i32>, Value) {
    let (code, out, err) = run_mcpcheck(
        &[
            &[
                "conformance",
                "--format",
                "json",
                "--protocol-version",
                version,
            ][..],
            target,
        ]
        .concat(),
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    assert_eq!(v["revisions"].as_array().map(Vec::len), Some(1), "{out}");
    (code, v["revisions"][0].clone())
}

/// The rules with failing findings (level error), sorted and without repeats.
fn failed(rev: &Value) -> Vec<String> {
    let mut ids: Vec<String> = rev["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["level"] == "error")
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

fn verdict(rev: &Value, id: &str) -> String {
    rev["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .and_then(|r| r["verdict"].as_str())
        .unwrap_or("absent")
        .to_string()
}

fn stdio(fault: &str) -> String {
    if fault.is_empty() {
        format!("{BIN} serve")
    } else {
        format!("{BIN} serve --fault {fault}")
    }
}

#[test]
fn plain_serve_passes_the_2026_probe_on_stdio_and_http() {
    let server = stdio("");
    let (code, rev) = judge(&["--server", &server], "2026-07-28");
    assert_eq!(code, Some(0), "{rev:#}");
    assert_eq!(rev["failed"], 0, "{rev:#}");
    // The negative probes ran and the refusals were right.
    for id in [
        "INV-040", "INV-041", "INV-043", "INV-044", "INV-045", "INV-046",
    ] {
        assert_eq!(verdict(&rev, id), "passed", "{id}: {rev:#}");
    }
    // No header on stdio; the handshake rules do not apply.
    assert_eq!(verdict(&rev, "INV-042"), "not-verified");
    assert_eq!(verdict(&rev, "INV-001"), "absent");

    let http = http_serve(&[]);
    let (code, rev) = judge(&["--url", &http.url], "2026-07-28");
    assert_eq!(code, Some(0), "{rev:#}");
    // Over HTTP both version probes run: the header mismatch (INV-042) and
    // the unsupported version with a header that agrees (INV-041).
    for id in [
        "INV-040", "INV-041", "INV-042", "INV-043", "INV-044", "INV-045", "INV-046",
    ] {
        assert_eq!(verdict(&rev, id), "passed", "{id}: {rev:#}");
    }
}

/// The 2026-07-28 capture of `target`, kept with --capture-out.
fn probe_capture(target: &[&str], name: &str) -> Value {
    let dir = scratch(name);
    let path = dir.join("capture.json");
    let (_, out, err) = run_mcpcheck(
        &[
            &[
                "conformance",
                "--protocol-version",
                "2026-07-28",
                "--capture-out",
                path.to_str().unwrap(),
            ][..],
            target,
        ]
        .concat(),
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_str(&text).unwrap()
}

/// (method, `_meta` protocolVersion, MCP-Protocol-Version header, HTTP
/// status, error code) of each exchange of a capture.
fn refusals(capture: &Value) -> Vec<(String, String, String, String, String)> {
    let text = |v: &Value| match v {
        Value::Null => "-".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    capture["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["response"]["error"].is_object())
        .map(|x| {
            (
                text(&x["request"]["method"]),
                text(&x["request"]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]),
                text(&x["protocol_version_header"]),
                text(&x["http_status"]),
                text(&x["response"]["error"]["code"]),
            )
        })
        .collect()
}

#[test]
fn the_http_capture_records_each_header_and_status_and_stdio_none() {
    let row = |m: &str, v: &str, h: &str, s: &str, c: &str| {
        (m.into(), v.into(), h.into(), s.into(), c.into())
    };
    let http = http_serve(&[]);
    let capture = probe_capture(&["--url", &http.url], "capture-http");
    let v = "2026-07-28";
    let bad = "2099-01-01";
    let expected: Vec<(String, String, String, String, String)> = vec![
        // A fixture prompt that needs elicitation, which the probe does not declare.
        row("prompts/get", v, v, "400", "-32021"),
        // A read-only fixture tool that needs sampling.
        row("tools/call", v, v, "400", "-32021"),
        row("mcpcheck/no-such-method", v, v, "404", "-32601"),
        // The unknown tool, prompt and resource.
        row("tools/call", v, v, "200", "-32602"),
        row("prompts/get", v, v, "200", "-32602"),
        row("resources/read", v, v, "200", "-32602"),
        row("tools/list", "-", v, "400", "-32602"),
        row("tools/list", v, v, "400", "-32602"),
        row("tools/list", bad, v, "400", "-32020"),
        row("ping", v, v, "404", "-32601"),
        row("logging/setLevel", v, v, "404", "-32601"),
        row("initialize", v, v, "404", "-32601"),
        row("resources/subscribe", v, v, "404", "-32601"),
        row("resources/unsubscribe", v, v, "404", "-32601"),
        row("tools/list", bad, bad, "400", "-32022"),
        // Mcp-Method wrong, then missing; Mcp-Name wrong; Mcp-Param wrong.
        row("tools/list", v, v, "400", "-32020"),
        row("tools/list", v, v, "400", "-32020"),
        row("tools/call", v, v, "400", "-32020"),
        row("tools/call", v, v, "400", "-32020"),
        // The extensions: a skill nobody serves, and tasks/get without the
        // tasks extension.
        row("skills/get", v, v, "200", "-32602"),
        row("tasks/get", v, v, "400", "-32021"),
    ];
    assert_eq!(refusals(&capture), expected, "{capture:#}");
    // The MCP headers each request went out with are recorded, the wrong
    // ones as they were sent.
    let headers: Vec<&Value> = capture["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["response"]["error"]["code"] == -32020)
        .filter(|x| x["protocol_version_header"] == v)
        .filter(|x| x["request"]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == v)
        .map(|x| &x["request_headers"])
        .collect();
    assert_eq!(
        headers,
        [
            &serde_json::json!({"mcp-method": "tools/call"}),
            &serde_json::json!({}),
            &serde_json::json!({"mcp-method": "tools/call", "mcp-name": "mcpcheck.probe.other-tool"}),
            &serde_json::json!({"mcp-method": "tools/call", "mcp-name": "test_custom_header", "mcp-param-region": "mcpcheck-mismatch"}),
        ],
        "{capture:#}"
    );
    // Every answer over HTTP has its status.
    for x in capture["exchanges"].as_array().unwrap() {
        if x["response"].is_object() {
            assert!(x["http_status"].is_u64(), "{x:#}");
        }
    }

    let capture = probe_capture(&["--server", &stdio("")], "capture-stdio");
    let recorded: Vec<&Value> = capture["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| {
            ["http_status", "protocol_version_header", "request_headers"]
                .iter()
                .any(|k| x.get(k).is_some())
        })
        .collect();
    assert!(recorded.is_empty(), "{recorded:#?}");
}

#[test]
fn each_2026_fault_is_caught_by_exactly_its_rules() {
    // (fault, transport, the rules that must fail and no others). The schema
    // family (INV-031) also requires resultType, so it reports that fault too.
    let cases: [(&str, bool, &[&str]); 6] = [
        ("skip-meta-validation", false, &["INV-040"]),
        ("skip-meta-validation", true, &["INV-040"]),
        ("no-result-type", false, &["INV-031", "INV-045"]),
        ("no-result-type", true, &["INV-031", "INV-045"]),
        (
            "ignore-header-mismatch",
            true,
            &["INV-042", "INV-047", "INV-048"],
        ),
        // Right codes, wrong statuses: every refusal the HTTP probe draws.
        (
            "refusal-status-200",
            true,
            &[
                "INV-040", "INV-041", "INV-042", "INV-043", "INV-047", "INV-048", "INV-049",
            ],
        ),
    ];
    for (fault, over_http, expected) in cases {
        let (code, rev) = if over_http {
            let http = http_serve(&["--fault", fault]);
            judge(&["--url", &http.url], "2026-07-28")
        } else {
            let server = stdio(fault);
            judge(&["--server", &server], "2026-07-28")
        };
        assert_eq!(code, Some(1), "{fault}: {rev:#}");
        assert_eq!(
            failed(&rev),
            expected,
            "{fault} (http: {over_http}): {rev:#}"
        );
    }
    // Without headers there is nothing to mismatch: on stdio the fault is
    // invisible, and the report says the header rule was not verified.
    let server = stdio("ignore-header-mismatch");
    let (code, rev) = judge(&["--server", &server], "2026-07-28");
    assert_eq!(code, Some(0), "{rev:#}");
    assert_eq!(verdict(&rev, "INV-042"), "not-verified");
}

#[test]
fn refusals_with_http_200_are_findings_naming_the_status_and_the_section() {
    let http = http_serve(&["--fault", "refusal-status-200"]);
    let (code, rev) = judge(&["--url", &http.url], "2026-07-28");
    assert_eq!(code, Some(1), "{rev:#}");
    let messages: Vec<(&str, &str)> = rev["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["level"] == "error")
        .map(|f| (f["rule"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    // Two -32602 refusals, the version mismatch, five removed methods and
    // the unknown one, the unsupported version, three routing headers and a
    // Mcp-Param header, and three missing client capabilities (the third
    // a tasks/get without the tasks extension): each with its code but
    // HTTP 200.
    assert_eq!(messages.len(), 17, "{messages:#?}");
    for (rule, message) in &messages {
        if *rule == "INV-049" {
            assert!(
                message.ends_with("was refused with -32021, but over HTTP with status 200, not 400 (MCP 2026-07-28 basic/index §_meta)"),
                "{message}"
            );
            continue;
        }
        let (code, status, section) = match *rule {
            "INV-040" => ("-32602", "400", "basic/index §_meta"),
            "INV-041" => ("-32022", "400", "basic/transports §Protocol Version Header"),
            "INV-042" => ("-32020", "400", "basic/transports §Protocol Version Header"),
            "INV-043" => ("-32601", "404", "basic/transports §Protocol Version Header"),
            "INV-047" | "INV-048" => (
                "-32020",
                "400",
                "basic/transports/streamable-http §Server Validation",
            ),
            other => panic!("{other}: {message}"),
        };
        assert!(
            message.ends_with(&format!(
                "the server refused it with {code}, but over HTTP with status 200, not {status} (MCP 2026-07-28 {section})"
            )),
            "{rule}: {message}"
        );
    }
    // On stdio there is no status: the same fault changes nothing there.
    let (code, rev) = judge(&["--server", &stdio("refusal-status-200")], "2026-07-28");
    assert_eq!(code, Some(0), "{rev:#}");
    assert_eq!(rev["failed"], 0, "{rev:#}");
}

#[test]
fn rules_the_probe_never_exercised_are_not_verified_not_passed() {
    let server = stdio("");
    let (_, out, _) = run_mcpcheck(&["conformance", "--server", &server]);
    // serve sends no list_changed notification to the probe, so INV-015 is
    // not verified in either revision; its read-only tools are called, so
    // the tool result rules are.
    for line in out.lines().filter(|l| l.starts_with("  not verified: ")) {
        assert!(line.contains("INV-015"), "{out}");
        assert!(!line.contains("INV-005"), "{out}");
        assert!(!line.contains("INV-013"), "{out}");
    }
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("  not verified: "))
            .count(),
        2,
        "{out}"
    );
    assert!(!out.contains("invariants hold"), "{out}");
}

#[test]
fn junit_and_sarif_reports() {
    let server = stdio("skip-meta-validation");
    let (code, out, err) = run_mcpcheck(&[
        "conformance",
        "--server",
        &server,
        "--protocol-version",
        "2026-07-28",
        "--format",
        "junit",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.starts_with("<?xml"), "{out}");
    assert!(out.contains("INV-040"), "{out}");
    assert!(out.contains("<failure"), "{out}");
    assert!(out.contains("<skipped"), "{out}");
    let (code, out, err) = run_mcpcheck(&[
        "conformance",
        "--server",
        &server,
        "--protocol-version",
        "2026-07-28",
        "--format",
        "sarif",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    // The errors are INV-040's; serve's logging capability is a note
    // (deprecated in 2026-07-28), never an error.
    for r in results {
        match r["ruleId"].as_str() {
            Some("INV-040") => assert_eq!(r["level"], "error", "{out}"),
            Some("INV-055") => assert_eq!(r["level"], "note", "{out}"),
            other => panic!("{other:?}: {out}"),
        }
    }
}

#[test]
fn an_unknown_protocol_version_is_a_usage_error() {
    let (code, _, err) = run_mcpcheck(&[
        "conformance",
        "--server",
        "true",
        "--protocol-version",
        "1999-01-01",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("1999-01-01"), "{err}");
}
