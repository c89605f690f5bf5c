//! `mcpcheck conformance` in the 2026-07-28 era, end to end against
//! `mcpcheck serve` over stdio and HTTP: plain serve passes every rule the
//! probe exercises, each of serve's 2026-07-28 faults is caught by exactly
//! its rules, and the report says per revision what was not verified.

mod cli_support;

use cli_support::{BIN, http_serve, run_mcpcheck};
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

/// The rules with findings, sorted and without repeats.
fn failed(rev: &Value) -> Vec<String> {
    let mut ids: Vec<String> = rev["findings"]
        .as_array()
        .unwrap()
        .iter()
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
    for id in [
        "INV-040", "INV-042", "INV-043", "INV-044", "INV-045", "INV-046",
    ] {
        assert_eq!(verdict(&rev, id), "passed", "{id}: {rev:#}");
    }
}

#[test]
fn each_2026_fault_is_caught_by_exactly_its_rules() {
    // (fault, transport, the rules that must fail and no others). The schema
    // family (INV-031) also requires resultType, so it reports that fault too.
    let cases: [(&str, bool, &[&str]); 5] = [
        ("skip-meta-validation", false, &["INV-040"]),
        ("skip-meta-validation", true, &["INV-040"]),
        ("no-result-type", false, &["INV-031", "INV-045"]),
        ("no-result-type", true, &["INV-031", "INV-045"]),
        ("ignore-header-mismatch", true, &["INV-042"]),
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
fn rules_the_probe_never_exercised_are_not_verified_not_passed() {
    let server = stdio("");
    let (_, out, _) = run_mcpcheck(&["conformance", "--server", &server]);
    // serve annotates no tool readOnlyHint, so no tool runs and the tool
    // result rules are not verified in either revision.
    for line in out.lines().filter(|l| l.starts_with("  not verified: ")) {
        assert!(line.contains("INV-005"), "{out}");
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
    assert!(results.iter().all(|r| r["ruleId"] == "INV-040"), "{out}");
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
