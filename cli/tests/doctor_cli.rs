//! `mcpcheck doctor`, `rule` and `rules`, and the policy every analysis
//! shares: one run against a server with planted defects of several families
//! finds each; `mcpcheck serve` gets only the findings its docs explain;
//! suppressions silence exactly their finding and expire; a baseline keeps
//! only what is new; mcpcheck.toml gives defaults.

mod cli_support;

use std::path::Path;

use cli_support::{BIN, http_serve, mcpcheck, outcome, run_mcpcheck, scratch, write};
use serde_json::Value;

fn serve_cmd(faults: &[&str]) -> String {
    let mut cmd = format!("{BIN} serve");
    for f in faults {
        cmd.push_str(&format!(" --fault {f}"));
    }
    cmd
}

/// `mcpcheck doctor ARGS --format json` run in `dir` (so no stray
/// mcpcheck.toml applies): (exit code, the report, stderr).
fn doctor_json(dir: &Path, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["doctor", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = outcome(
        &mcpcheck()
            .current_dir(dir)
            .args(&all)
            .output()
            .expect("start mcpcheck"),
    );
    let report: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\n{err}"));
    (code, report, err)
}

fn codes(report: &Value, key: &str) -> Vec<String> {
    report[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["code"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn planted_defects_of_every_family_are_found_in_one_run() {
    let dir = scratch("doctor-planted");
    // A lockfile of the plain server, which the rug pull then breaks.
    let lockfile = dir.join("mcp-lock.json");
    let (code, _, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &serve_cmd(&[]),
        "--write",
        lockfile.to_str().expect("path"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let server = http_serve(&[
        "--fault",
        "buggy-tools",
        "--fault",
        "rug-pull",
        "--fault",
        "no-origin-check",
        "--fault",
        "string-error-code",
    ]);
    let sarif = dir.join("doctor.sarif");
    let junit = dir.join("doctor.xml");
    let (code, report, err) = doctor_json(
        &dir,
        &[
            "--url",
            &server.url,
            "--lock",
            lockfile.to_str().expect("path"),
            "--report",
            &format!("sarif={}", sarif.display()),
            "--report",
            &format!("junit={}", junit.display()),
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    let found = codes(&report, "findings");
    for (family, code) in [
        ("lint", "E604"),          // serve's 2020-12 fixture tool
        ("scan", "S506"),          // the rug pull's instruction to send ~/.ssh/id_rsa
        ("audit", "A105"),         // buggy-tools: a result of the wrong shape
        ("invariants", "INV-006"), // string-error-code
        ("http", "H101"),          // no-origin-check
        ("lock", "L201"),          // the description changed under the same name
    ] {
        assert!(
            found.iter().any(|c| c == code),
            "{family}: no {code} in {found:?}"
        );
    }
    assert_eq!(report["command"], "doctor");
    assert!(
        report["score"].as_u64().is_some_and(|s| s < 100),
        "{report}"
    );
    // Every part is a case of the JUnit report, and the SARIF log lists one
    // result per finding.
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    for part in ["lint", "scan", "audit", "conformance", "probe", "lock"] {
        assert!(
            xml.contains(&format!("testcase name=\"{part}\"")),
            "{part}: {xml}"
        );
    }
    let log: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF")).expect("JSON");
    assert_eq!(
        log["runs"][0]["results"].as_array().map(Vec::len),
        Some(found.len())
    );
}

#[test]
fn serve_gets_only_the_findings_its_documentation_explains() {
    let dir = scratch("doctor-serve");
    let (code, report, err) = doctor_json(&dir, &["--server", &serve_cmd(&[])]);
    // docs/doctor.md explains each: the 2020-12 fixture tool of the official
    // conformance suite (E604, I601), the tool whose structured content breaks
    // its schema on purpose (A106), tool errors of tools that need client
    // capabilities the doctor does not declare (A301), and the Logging that
    // 2026-07-28 deprecates (INV-055, a note).
    let mut found = codes(&report, "findings");
    found.sort();
    found.dedup();
    assert_eq!(found, ["A106", "A301", "E604", "I601", "INV-055"], "{err}");
    assert_eq!(code, Some(1));
}

#[test]
fn a_suppression_silences_exactly_one_finding_and_expires() {
    let dir = scratch("doctor-suppress");
    let server = serve_cmd(&[]);
    write(
        &dir,
        "mcpcheck.toml",
        r#"
[[suppress]]
rule = "E604"
item = "tool:json_schema_2020_12_tool"
reason = "the official conformance suite's fixture tool, kept as published"

[[suppress]]
rule = "A106"
item = "structured_wrong"
reason = "breaks its outputSchema on purpose, for the suites that test that check"
"#,
    );
    let (code, report, err) = doctor_json(&dir, &["--server", &server]);
    assert_eq!(code, Some(0), "{err}\n{report}");
    assert_eq!(codes(&report, "suppressed"), ["E604", "A106"]);
    assert!(
        !codes(&report, "findings")
            .iter()
            .any(|c| c == "E604" || c == "A106")
    );
    assert_eq!(
        report["suppressed"][0]["reason"],
        "the official conformance suite's fixture tool, kept as published"
    );

    // One past its day fails the run with its own message.
    write(
        &dir,
        "mcpcheck.toml",
        r#"
[[suppress]]
rule = "E604"
item = "tool:json_schema_2020_12_tool"
reason = "kept as published"
until = "2020-01-01"
"#,
    );
    let (code, out, _) = outcome(
        &mcpcheck()
            .current_dir(&dir)
            .args(["lint", "--server", &server])
            .output()
            .expect("start"),
    );
    assert_eq!(code, Some(1));
    assert!(
        out.contains("error: the suppression of E604 on tool:json_schema_2020_12_tool (")
            && out.contains("expired on 2020-01-01"),
        "{out}"
    );
}

#[test]
fn a_baseline_run_reports_only_new_findings() {
    let dir = scratch("doctor-baseline");
    let listing = write(
        &dir,
        "listing.json",
        r#"{"tools": [{"name": "read", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]}"#,
    );
    let baseline = dir.join("baseline.json");
    let (code, _, err) = run_mcpcheck(&[
        "lint",
        "--listing",
        listing.to_str().expect("path"),
        "--no-config",
        "--write-baseline",
        baseline.to_str().expect("path"),
    ]);
    assert_eq!(code, Some(1), "{err}");
    // The same findings, and one more tool with a new one: only that one counts.
    let grown = write(
        &dir,
        "listing.json",
        r#"{"tools": [
          {"name": "write", "description": "Writes a file at the given path.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
          {"name": "read", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]}"#,
    );
    let (code, out, err) = run_mcpcheck(&[
        "lint",
        "--listing",
        grown.to_str().expect("path"),
        "--no-config",
        "--baseline",
        baseline.to_str().expect("path"),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    let items: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["item"].as_str())
        .collect();
    assert_eq!(items, ["write"], "{out}");
    assert!(
        report["baselined"].as_u64().is_some_and(|n| n >= 2),
        "{out}"
    );
}

#[test]
fn config_defaults_apply_and_bad_keys_name_their_line() {
    let dir = scratch("doctor-config");
    let listing = write(
        &dir,
        "listing.json",
        r#"{"tools": [{"name": "read", "description": "Reads a file at the given path.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "The path."}, "n": {"type": "integer"}}, "required": ["path"]}}]}"#,
    );
    let path = listing.to_str().expect("path");
    let lint = |dir: &Path| {
        outcome(
            &mcpcheck()
                .current_dir(dir)
                .args(["lint", "--listing", path])
                .output()
                .expect("start"),
        )
    };
    // W102 (an optional parameter without description) is a warning: it
    // fails only with strict, which the config turns on.
    assert_eq!(lint(&dir).0, Some(0));
    write(&dir, "mcpcheck.toml", "[lint]\nstrict = true\n");
    assert_eq!(lint(&dir).0, Some(1));
    // A subfolder finds the file above it; --no-config leaves it out.
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    assert_eq!(lint(&sub).0, Some(1));
    write(
        &dir,
        "mcpcheck.toml",
        "[lint]\nstrict = true\nstrikt = true\n",
    );
    let (code, _, err) = lint(&dir);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("mcpcheck.toml:3:1")
            && err.contains("`mcpcheck lint` has no flag --strikt")
            && err.contains("did you mean `strict`?"),
        "{err}"
    );
    write(
        &dir,
        "mcpcheck.toml",
        "ignore = [\"W102\"]\n[lint]\nstrict = true\n",
    );
    assert_eq!(
        lint(&dir).0,
        Some(0),
        "ignored by the config's own selection"
    );
}

#[test]
fn rule_explains_and_rules_lists() {
    let (code, out, _) = run_mcpcheck(&["rule", "e103"]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("E103 Required parameter without description"),
        "{out}"
    );
    assert!(
        out.contains("How to fix it") && out.contains("E103 reports tool"),
        "{out}"
    );
    let (code, out, _) = run_mcpcheck(&["rule", "H101"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("--fault no-origin-check"), "{out}");
    let (code, out, _) = run_mcpcheck(&["rule", "lock-breaking", "--format", "json"]);
    assert_eq!(code, Some(0));
    let rule: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(rule["code"], "L101");
    let (code, _, err) = run_mcpcheck(&["rule", "E1O3"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no rule `E1O3` (did you mean `E1"), "{err}");
    let (code, out, _) = run_mcpcheck(&["rules", "--family", "scan", "--format", "json"]);
    assert_eq!(code, Some(0));
    let list: Value = serde_json::from_str(&out).expect("JSON");
    let rules = list["rules"].as_array().expect("rules");
    assert!(rules.iter().all(|r| r["family"] == "scan"));
    assert!(
        rules
            .iter()
            .all(|r| r["fix"].as_str().is_some_and(|f| !f.is_empty()))
    );
}

#[test]
fn a_server_that_cannot_start_gets_no_score_and_a_url_is_named_as_one() {
    let d = scratch("doctor-unstartable");
    // A URL where a command belongs: said so, with the flag it goes in.
    let (code, report, _) = doctor_json(&d, &["--server", "http://127.0.0.1:9/mcp"]);
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["passed"], false);
    // Nothing was examined, so there is no score to give (100 would read
    // as a clean server).
    assert!(report.get("score").is_none(), "{report:#}");
    let listing = &report["cases"][0];
    assert_eq!(listing["name"], "listing");
    assert_eq!(listing["status"], "error");
    assert!(
        listing["detail"]
            .as_str()
            .is_some_and(|d| d.contains("is a URL, not a command; give it with --url")),
        "{listing}"
    );
    let (code, out, err) = outcome(
        &mcpcheck()
            .current_dir(&d)
            .args(["doctor", "-q", "--server", "mcpcheck-no-such-program"])
            .output()
            .expect("start mcpcheck"),
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("No score (listing could not run) · 0 errors"),
        "{out}"
    );
    assert!(!out.contains("Score 100/100"), "{out}");
    assert!(
        out.contains("`mcpcheck-no-such-program` was not found (is it installed and on PATH?)"),
        "{out}{err}"
    );
}
