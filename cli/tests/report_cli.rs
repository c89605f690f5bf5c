//! End-to-end tests of `mcpcheck report`: the real binary re-rendering the
//! shared results fixture (`core/tests/fixtures/results.json`) in every
//! format, writing report files, comparing with baselines and judging a
//! saved run; exit codes, stdout and stderr.

mod cli_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cli_support::{mcpcheck, outcome, scratch};

/// `mcpcheck`, without a `GITHUB_STEP_SUMMARY` inherited from a CI running the tests.
fn bin() -> Command {
    let mut c = mcpcheck();
    c.env_remove("GITHUB_STEP_SUMMARY");
    c
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/results.json")
}

fn report(args: &[&str]) -> (Option<i32>, String, String) {
    let o = bin()
        .arg("report")
        .arg("--from")
        .arg(fixture())
        .args(args)
        .output()
        .unwrap();
    outcome(&o)
}

/// The fixture with every test that ran passing: a baseline in which
/// nothing failed (the skipped test stays skipped).
fn all_passing(dir: &Path) -> PathBuf {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    for t in v["tests"].as_array_mut().unwrap() {
        if t["status"] != "skip" {
            t["status"] = "pass".into();
        }
    }
    let p = dir.join("all-passing.json");
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn text_is_the_default_and_exits_0_despite_failures() {
    let (code, out, err) = report(&[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.starts_with("PASS  echo returns its input (39 ms) · 3/3 trials passed\n"),
        "{out}"
    );
    assert!(out.contains("Reliability over 3 trials"), "{out}");
    // As the run computed it (0.7833…), not recomputed from the rounded 0.667.
    assert!(
        out.contains("  quality  mean 0.783 over 2 tests\n"),
        "{out}"
    );
    assert!(
        out.ends_with("8 tests: 3 passed, 3 failed, 1 error, 1 skipped (0.4 s)\n"),
        "{out}"
    );
    assert!(err.is_empty(), "{err}");
}

#[test]
fn every_format_renders_what_core_renders() {
    let (code, out, _) = report(&["--format", "junit"]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpcheck\" tests=\"8\""
        ),
        "{out}"
    );
    assert!(
        out.contains("<property name=\"pass^k\" value=\"false\"/>"),
        "{out}"
    );

    let (code, out, _) = report(&["--format", "markdown"]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("## ❌ mcpcheck: 3 of 7 tests passed\n"),
        "{out}"
    );
    assert!(out.contains("### Reliability over 3 trials"), "{out}");
    assert!(out.contains("### Metric rollups"), "{out}");

    let (code, out, _) = report(&["--format", "badge"]);
    assert_eq!(code, Some(0));
    let badge: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(badge["schemaVersion"], 1);
    assert_eq!(badge["message"], "3/7 passed · pass@3 4/7");

    let (code, out, _) = report(&["--format", "sarif"]);
    assert_eq!(code, Some(0));
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 6);
}

#[test]
fn output_writes_the_file_and_nothing_to_stdout() {
    let d = scratch("output");
    let path = d.join("out/summary.md");
    let (code, out, err) = report(&["--format", "markdown", "--output", path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.is_empty(), "{out}");
    let md = std::fs::read_to_string(&path).unwrap();
    assert!(md.starts_with("## ❌ mcpcheck"), "{md}");
}

#[test]
fn standard_input_is_read_with_a_dash() {
    let mut child = bin()
        .args(["report", "--from", "-", "--format", "badge"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(std::fs::read_to_string(fixture()).unwrap().as_bytes())
            .unwrap();
    }
    let o = child.wait_with_output().unwrap();
    let (_, out, err) = outcome(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("\"3/7 passed · pass@3 4/7\""), "{out}");
}

#[test]
fn unreadable_or_invalid_results_exit_2() {
    let d = scratch("invalid");
    let missing = d.join("missing.json");
    let o = bin()
        .args(["report", "--from"])
        .arg(&missing)
        .output()
        .unwrap();
    let (_, out, err) = outcome(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(out.is_empty());
    assert!(err.starts_with("mcpcheck report: cannot read "), "{err}");
    assert!(err.contains("missing.json"), "{err}");

    let cases = [
        ("garbage.json", "{not json", "not a results document"),
        (
            "future.json",
            r#"{"version": 9, "tool": {"name": "mcpcheck", "version": "9"}, "summary": {"total": 0, "passed": 0, "failed": 0, "errored": 0, "skipped": 0, "duration_ms": 0}, "tests": []}"#,
            "results version 9 is not supported",
        ),
    ];
    for (name, body, want) in cases {
        let p = d.join(name);
        std::fs::write(&p, body).unwrap();
        let o = bin().args(["report", "--from"]).arg(&p).output().unwrap();
        let (_, _, err) = outcome(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
    }
}

#[test]
fn unwritable_output_exits_2() {
    let d = scratch("unwritable-output");
    let (code, _, err) = report(&["--format", "junit", "--output", d.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.starts_with("mcpcheck report: cannot write "), "{err}");
}

#[test]
fn report_files_are_written_and_a_failed_write_does_not_fail() {
    let d = scratch("files");
    let p = |n: &str| d.join(n).to_str().unwrap().to_string();
    let (code, out, err) = report(&[
        "--junit",
        &p("reports/junit.xml"),
        "--markdown",
        &p("reports/summary.md"),
        "--badge",
        &p("badge.json"),
        // A directory: this one cannot be written.
        "--sarif",
        d.to_str().unwrap(),
        "--save-baseline",
        &p("baseline.json"),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains("mcpcheck: SARIF log not written: cannot write "),
        "{err}"
    );
    let junit = std::fs::read_to_string(d.join("reports/junit.xml")).unwrap();
    assert!(
        junit.contains("<testcase name=\"search finds rust\""),
        "{junit}"
    );
    let md = std::fs::read_to_string(d.join("reports/summary.md")).unwrap();
    assert!(md.starts_with("## ❌"), "{md}");
    assert!(d.join("badge.json").is_file());
    let baseline: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("baseline.json")).unwrap()).unwrap();
    assert_eq!(baseline["version"], 1);
    assert_eq!(
        baseline["tests"][3],
        serde_json::json!({"file": "evals/search.yaml", "name": "lists tools", "status": "fail"})
    );
}

#[test]
fn baseline_regressions_are_shown_and_fail_only_when_asked() {
    let d = scratch("baseline");
    let base = all_passing(&d);
    let base = base.to_str().unwrap();

    // Compared, printed after the run, but not gating.
    let (code, out, err) = report(&["--baseline", base]);
    assert_eq!(code, Some(0), "{out}{err}");
    let tail = out.split("8 tests: ").nth(1).unwrap();
    assert!(tail.contains("Baseline: 4 regressions"), "{out}");
    assert!(
        tail.contains("REGRESSION evals/search.yaml › lists tools (pass → fail)"),
        "{out}"
    );
    assert!(
        tail.contains("REGRESSION evals/crash.yaml › server crashed (pass → error)"),
        "{out}"
    );

    // Gating.
    let (code, _, err) = report(&["--baseline", base, "--fail-on-regression"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("mcpcheck: failed: 4 regressions against the baseline"),
        "{err}"
    );
    assert!(
        err.contains("mcpcheck: failed: 4 of 7 tests did not pass"),
        "{err}"
    );

    // A document on stdout keeps the comparison on stderr; Markdown includes it.
    let (code, out, err) = report(&["--baseline", base, "--format", "markdown"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("**4 regressions** (passed in the baseline, not now)"),
        "{out}"
    );
    assert!(err.contains("Baseline: 4 regressions"), "{err}");

    // Against itself nothing changed.
    let (code, out, _) = report(&[
        "--baseline",
        fixture().to_str().unwrap(),
        "--fail-on-regression",
        "--threshold",
        "40",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("Baseline:"), "{out}");
}

#[test]
fn a_missing_baseline_is_a_warning_not_a_failure() {
    let d = scratch("no-baseline");
    let missing = d.join("none.json");
    let (code, _, err) = report(&[
        "--baseline",
        missing.to_str().unwrap(),
        "--fail-on-regression",
        "--threshold",
        "40",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("cannot read the baseline"), "{err}");
    assert!(
        err.contains("continuing without a baseline comparison"),
        "{err}"
    );
}

#[test]
fn threshold_counts_only_tests_that_ran() {
    // 3 of the 7 tests that ran passed (42.9%); the skipped one is left out.
    let (code, _, err) = report(&["--threshold", "42"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = report(&["--threshold", "43%"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "mcpcheck: failed: pass rate 42.9% (3 of 7) is below the threshold 43%\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["--fail-on-regression"],
        vec!["--threshold", "150"],
        vec!["--format", "html"],
    ] {
        let (code, _, err) = report(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
    }
}

#[test]
fn authorization_values_never_leave_through_a_report() {
    let d = scratch("redact");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    v["tests"][2]["checks"][0]["actual"] =
        "'sent Authorization: Bearer sk-live-abcdef123456'".into();
    v["tests"][6]["message"] = "refused token Bearer eyJhbGciOiJIUzI1NiJ9.payload".into();
    let p = d.join("leaky.json");
    std::fs::write(&p, v.to_string()).unwrap();
    for format in ["text", "junit", "markdown", "sarif"] {
        let o = bin()
            .args(["report", "--format", format, "--from"])
            .arg(&p)
            .output()
            .unwrap();
        let (_, out, err) = outcome(&o);
        assert_eq!(o.status.code(), Some(0), "{format}: {err}");
        assert!(!out.contains("sk-live-abcdef123456"), "{format}: {out}");
        assert!(!out.contains("eyJhbGciOiJIUzI1NiJ9"), "{format}: {out}");
        assert!(out.contains("***"), "{format}: {out}");
    }
}
