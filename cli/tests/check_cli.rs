//! End-to-end tests of `mcpcheck check` and `mcpcheck validate`: the real
//! binary, real files, exit codes, stdout and stderr.

mod cli_support;

use std::path::Path;

use cli_support::{mcpcheck, outcome, scratch, write};

const RESPONSE: &str = r#"{"content":[{"type":"text","text":"{\"status\":\"success\",\"results\":[{\"file\":\"journal/a.md\"},{\"file\":\"work/b.md\"}]}"}],"isError":false}"#;

#[test]
fn check_passes_with_exit_0_and_lists_every_check() {
    let d = scratch("pass");
    let e = write(
        &d,
        "e.yaml",
        "expect:\n  not_error: true\n  status: success\n  results_min: 2\n",
    );
    let r = write(&d, "r.json", RESPONSE);
    let o = mcpcheck()
        .args(["check", "--expect"])
        .arg(&e)
        .arg("--response")
        .arg(&r)
        .output()
        .unwrap();
    let (_, out, err) = outcome(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.starts_with("PASS  e ("), "{out}");
    assert!(out.contains("✓ status"), "{out}");
    assert!(out.contains("✓ results_min"), "{out}");
}

#[test]
fn check_fails_with_exit_1_and_reports_every_failure() {
    let d = scratch("fail");
    let e = write(
        &d,
        "e.yaml",
        "expect:\n  status: error\n  all_match_pattern: {path: \"results[*].file\", regex: \"^journal/\"}\n  contains: [nowhere]\n",
    );
    let r = write(&d, "r.json", RESPONSE);
    let o = mcpcheck()
        .args(["check", "--expect"])
        .arg(&e)
        .arg("--response")
        .arg(&r)
        .output()
        .unwrap();
    let (_, out, _) = outcome(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("reason:   Expected status 'error', got 'success'"),
        "{out}"
    );
    assert!(
        out.contains("reason:   'work/b.md' at results[1].file doesn't match pattern '^journal/'"),
        "{out}"
    );
    assert!(
        out.contains("reason:   expected text to contain 'nowhere'"),
        "{out}"
    );
}

#[test]
fn check_json_is_the_test_outcome_shape() {
    let d = scratch("json");
    let e = write(
        &d,
        "e.yaml",
        "name: weighted\nthreshold: 0.7\nexpect:\n  - target: result.isError\n    matcher: {exact: false}\n    weight: 3\n  - target: text\n    matcher: {contains: rust}\n",
    );
    let r = write(&d, "r.json", RESPONSE);
    let o = mcpcheck()
        .args(["check", "--json", "--expect"])
        .arg(&e)
        .arg("--response")
        .arg(&r)
        .output()
        .unwrap();
    let (_, out, err) = outcome(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["name"], "weighted");
    assert_eq!(v["status"], "pass");
    assert_eq!(v["score"], 0.75);
    assert_eq!(v["threshold"], 0.7);
    assert_eq!(v["checks"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["checks"][1]["status"], "fail");
}

#[test]
fn check_bad_input_exits_2_with_file_line_and_hint() {
    let d = scratch("bad");
    let e = write(&d, "e.yaml", "expect:\n  not_eror: true\n");
    let r = write(&d, "r.json", RESPONSE);
    let o = mcpcheck()
        .args(["check", "--expect"])
        .arg(&e)
        .arg("--response")
        .arg(&r)
        .output()
        .unwrap();
    let (_, _, err) = outcome(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("e.yaml:2:3"), "{err}");
    assert!(err.contains("did you mean `not_error`?"), "{err}");

    let bad_json = write(&d, "bad.json", "{\"content\": [}");
    let e2 = write(&d, "e2.yaml", "expect: {not_error: true}\n");
    let o = mcpcheck()
        .args(["check", "--expect"])
        .arg(&e2)
        .arg("--response")
        .arg(&bad_json)
        .output()
        .unwrap();
    let (_, _, err) = outcome(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("bad.json:1:"), "{err}");
    assert!(err.contains("not valid JSON"), "{err}");

    let o = mcpcheck()
        .args(["check", "--expect"])
        .arg(d.join("missing.yaml"))
        .arg("--response")
        .arg(&r)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(outcome(&o).2.contains("missing.yaml"));
}

#[test]
fn a_response_that_holds_no_answer_is_refused_with_exit_2_not_passed() {
    let d = scratch("shape");
    let e = write(
        &d,
        "e.yaml",
        "expect:\n  not_error: true\n  not_contains: [error]\n",
    );
    for (file, text, says) in [
        ("empty.json", "{}", "an empty object was given"),
        (
            "content.json",
            r#"{"content": "Paris"}"#,
            "`content` is a string, not a list of content blocks",
        ),
        (
            "listing.json",
            r#"{"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}"#,
            "set `method: tools/list`",
        ),
        (
            "inspector.json",
            r#"{"request": "{\"method\":\"tools/call\"}", "response": "{\"content\":[]}"}"#,
            "MCP Inspector history entry",
        ),
    ] {
        let r = write(&d, file, text);
        let o = mcpcheck()
            .args(["check", "--expect"])
            .arg(&e)
            .arg("--response")
            .arg(&r)
            .output()
            .unwrap();
        let (_, out, err) = outcome(&o);
        assert_eq!(o.status.code(), Some(2), "{file}: {out}{err}");
        assert!(err.contains(&format!("{file}:1:1")), "{err}");
        assert!(err.contains(says), "{file}: {err}");
        assert!(!out.contains("PASS"), "{out}");
    }
}

#[test]
fn check_trajectory_against_a_jsonl_audit_log() {
    let d = scratch("traj");
    let log = write(
        &d,
        "audit.jsonl",
        "{\"tool\":\"prepare\",\"args\":{\"line\":6}}\n{\"action\":\"noise\"}\n{\"tool\":\"rename\",\"args\":{}}\n",
    );
    let ok = write(
        &d,
        "ok.yaml",
        "trajectory:\n  - type: order\n    tools: [prepare, rename]\n  - type: args_contain\n    tool: prepare\n    args: {line: 6}\n",
    );
    let o = mcpcheck()
        .args(["check", "--trace"])
        .arg(&log)
        .arg("--trajectory")
        .arg(&ok)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{:?}", outcome(&o));
    let bad = write(&d, "bad.yaml", "- type: absence\n  tools: [rename]\n");
    let o = mcpcheck()
        .args(["check", "--trace"])
        .arg(&log)
        .arg("--trajectory")
        .arg(&bad)
        .output()
        .unwrap();
    let (_, out, _) = outcome(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        out.contains("absence: 'rename' appeared in trace but should not have"),
        "{out}"
    );
}

#[test]
fn check_requires_a_mode() {
    let o = mcpcheck().arg("check").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn validate_reports_all_problems_and_exits_2() {
    let d = scratch("validate");
    write(
        &d,
        "good.yaml",
        "name: ok\nserver: {command: node}\nassert:\n  tool: echo\n  expect: {contains: [x]}\n",
    );
    std::fs::create_dir_all(d.join("sub")).unwrap();
    write(
        &d,
        "sub/bad.yml",
        "name: bad\nserver: {command: node}\nassert:\n  tool: echo\n  expect:\n    not_eror: true\n    matches_regex: ['(']\n",
    );
    write(&d, "notes.txt", "not yaml");
    let o = mcpcheck().arg("validate").arg(&d).output().unwrap();
    let (_, out, err) = outcome(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        out.contains("2 files, 2 tests: 2 errors, 0 warnings"),
        "{out}"
    );
    assert!(err.contains("bad.yml:6:5"), "{err}");
    assert!(err.contains("bad.yml:7:21"), "{err}");

    std::fs::remove_file(d.join("sub/bad.yml")).unwrap();
    let o = mcpcheck().arg("validate").arg(&d).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{:?}", outcome(&o));

    let empty = scratch("validate-empty");
    let o = mcpcheck().arg("validate").arg(&empty).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(outcome(&o).2.contains("no .yaml or .yml test files"));
}

#[test]
fn validate_loads_the_mcp_assert_fixture_suites() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/suites/mcp-assert");
    let o = mcpcheck().arg("validate").arg(&dir).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{:?}", outcome(&o));
}
