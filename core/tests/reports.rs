//! Every renderer on one shared results fixture: a run of three trials with
//! a flaky test, failures, an error, a skip, scores, derived metrics, two
//! tests of one name in different files, and text that would break Markdown,
//! HTML or XML if it were not escaped.
//!
//! The fixture is built here with `Results::from_trials`, and the same
//! document is kept as `tests/fixtures/results.json` for the CLI's `report`
//! tests and `scripts/check-report-readers`; `fixture_file_is_current` fails
//! when the two differ (run with `UPDATE_FIXTURES=1` to rewrite the file).

// Tests read and write their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::baseline::{self, Baseline, Entry};
use mcpcheck_core::diag::Paint;
use mcpcheck_core::report::{badge, junit, markdown, sarif, text};
use mcpcheck_core::results::{
    CheckResult, CheckStatus, MetricResult, Results, TestResult, TestStatus,
};

fn check(name: &str, status: CheckStatus, line: u32) -> CheckResult {
    CheckResult {
        name: name.into(),
        status,
        code: name.into(),
        target: "text".into(),
        path: Some(vec!["text".into()]),
        matcher: name.into(),
        expected: String::new(),
        actual: String::new(),
        expected_value: serde_json::Value::Null,
        actual_value: None,
        reason: String::new(),
        weight: 1.0,
        set: None,
        line: Some(line),
    }
}

fn failed(name: &str, line: u32, expected: &str, actual: &str, reason: &str) -> CheckResult {
    CheckResult {
        expected: expected.into(),
        actual: actual.into(),
        reason: reason.into(),
        ..check(name, CheckStatus::Fail, line)
    }
}

fn test(
    file: &str,
    name: &str,
    line: u32,
    status: TestStatus,
    ms: u64,
    checks: Vec<CheckResult>,
) -> TestResult {
    let message = checks
        .iter()
        .find(|c| c.status != CheckStatus::Pass)
        .map(|c| c.reason.clone())
        .unwrap_or_default();
    TestResult {
        status,
        checks,
        ..TestResult::fail(name, file, Some(line), &message, ms)
    }
}

fn metric(name: &str, value: f64, threshold: Option<f64>) -> MetricResult {
    MetricResult {
        name: name.into(),
        value,
        threshold,
        passed: threshold.map(|t| value >= t),
        unresolved: Vec::new(),
    }
}

/// One trial of the whole suite; `flaky_passes` decides the flaky test.
fn trial(i: u64, flaky_passes: bool) -> Vec<TestResult> {
    use CheckStatus as C;
    use TestStatus as S;
    let echo = test(
        "evals/echo.yaml",
        "echo returns its input",
        1,
        S::Pass,
        12 + i,
        vec![
            check("not_error", C::Pass, 6),
            check("contains", C::Pass, 7),
        ],
    );
    let lists_ok = test(
        "evals/echo.yaml",
        "lists tools",
        12,
        S::Pass,
        4,
        vec![check("min_results", C::Pass, 17)],
    );
    let search = if flaky_passes {
        test(
            "evals/search.yaml",
            "search finds rust",
            1,
            S::Pass,
            30,
            vec![
                check("contains", C::Pass, 9),
                check("json_path", C::Pass, 10),
            ],
        )
    } else {
        test(
            "evals/search.yaml",
            "search finds rust",
            1,
            S::Fail,
            31,
            vec![
                failed(
                    "contains",
                    9,
                    "contains 'rust'",
                    "'no results'",
                    "expected text to contain 'rust'",
                ),
                check("json_path", C::Pass, 10),
            ],
        )
    };
    let lists_broken = test(
        "evals/search.yaml",
        "lists tools",
        20,
        S::Fail,
        5,
        vec![
            failed(
                "equals",
                24,
                "equals '<b>all</b> | `tools`'",
                "'<script>alert(1)</script> | *none* [x](y)'",
                "expected text to equal '<b>all</b> | `tools`'",
            ),
            failed(
                "matches_regex",
                25,
                "matches /^tool-\\d+$/",
                "'\u{1b}[31mred\u{1b}[0m and a tab\there'",
                "expected text to match /^tool-\\d+$/",
            ),
        ],
    );
    let mut quality = test(
        "evals/quality.yaml",
        "blended quality score",
        3,
        S::Fail,
        40,
        vec![
            check("cites_sources", C::Pass, 8),
            failed(
                "well_formed",
                11,
                "matches /^[A-Z]/",
                "'lowercase start'",
                "expected result.content[0].text to match /^[A-Z]/",
            ),
        ],
    );
    quality.score = Some(0.5);
    quality.threshold = Some(0.5);
    quality.checks[0].target = "result.content[0].text".into();
    quality.checks[1].target = "result.content[0].text".into();
    quality.derived_metrics = vec![metric("quality", 2.0 / 3.0, Some(0.7))];
    quality.message = "metric quality = 0.667 is below its threshold 0.7".into();
    let mut concise = test(
        "evals/quality.yaml",
        "concise answer",
        25,
        S::Pass,
        22,
        vec![check("short", C::Pass, 30), check("polite", C::Pass, 33)],
    );
    concise.score = Some(1.0);
    concise.threshold = Some(0.8);
    concise.derived_metrics = vec![
        metric("quality", 0.9, Some(0.7)),
        metric("brevity", 1.0, None),
    ];
    concise.warnings = vec!["tool `answer` took 22 ms of a 25 ms timeout".into()];
    let crash = TestResult::error(
        "server crashed",
        "evals/crash.yaml",
        Some(1),
        "the server exited before answering: exit status 1\nstderr: panic at src/main.rs:3",
        7,
    );
    let skipped = TestResult::skip(
        "needs a token",
        "evals/tokens.yaml",
        Some(1),
        "skip_unless_env: GITHUB_TOKEN",
    );
    vec![
        echo,
        lists_ok,
        search,
        lists_broken,
        quality,
        concise,
        crash,
        skipped,
    ]
}

/// The shared fixture: three trials, the flaky test failing the second.
fn fixture() -> Results {
    let mut r = Results::from_trials(vec![trial(0, true), trial(1, false), trial(2, true)], 420);
    r.tool.version = "0.0.0-fixture".into();
    r
}

fn single_trial() -> Results {
    let mut r = Results::new(trial(1, false), 140);
    r.tool.version = "0.0.0-fixture".into();
    r
}

fn fixture_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results.json")
}

#[test]
fn fixture_file_is_current() {
    let want = format!("{}\n", fixture().to_json());
    let path = fixture_path();
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is out of date: run `UPDATE_FIXTURES=1 cargo test -p mcpcheck-core --test reports`",
        path.display()
    );
    // And it reads back as the same document (to the three decimals kept).
    assert_eq!(
        Results::from_json(&have).unwrap().to_json(),
        fixture().to_json()
    );
}

#[test]
fn fixture_covers_what_the_renderers_must_show() {
    let r = fixture();
    let s = &r.summary;
    assert_eq!(
        (s.total, s.passed, s.failed, s.errored, s.skipped),
        (8, 3, 3, 1, 1)
    );
    let rel = r.reliability.as_ref().unwrap();
    assert_eq!(
        (rel.trials, rel.tests, rel.pass_at_k, rel.pass_hat_k),
        (3, 7, 4, 3)
    );
    let names: Vec<(&str, f64, usize)> = r
        .metric_rollups
        .iter()
        .map(|m| (m.name.as_str(), (m.mean * 1000.0).round() / 1000.0, m.count))
        .collect();
    assert_eq!(names, [("quality", 0.783, 2), ("brevity", 1.0, 1)]);
    let flaky = r
        .tests
        .iter()
        .find(|t| t.name == "search finds rust")
        .unwrap();
    assert_eq!(flaky.status, TestStatus::Fail);
    let tr = flaky.trials.as_ref().unwrap();
    assert_eq!(
        (tr.passed, tr.count, tr.pass_at_k, tr.pass_hat_k),
        (2, 3, true, false)
    );
}

#[test]
fn text() {
    let opts = text::TextOptions {
        paint: Paint::Plain,
        all_checks: false,
    };
    insta::assert_snapshot!(text::render(&fixture(), opts));
}

#[test]
fn text_single_trial_has_no_reliability_section() {
    let opts = text::TextOptions {
        paint: Paint::Plain,
        all_checks: false,
    };
    let out = text::render(&single_trial(), opts);
    assert!(!out.contains("Reliability"), "{out}");
    assert!(out.contains("Metric rollups"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn text_ansi_paints_flaky_and_broken() {
    let out = text::reliability(&fixture(), Paint::Ansi);
    assert!(out.contains("\u{1b}[1;33mflaky \u{1b}[0m"), "{out:?}");
    assert!(out.contains("\u{1b}[1;31mbroken\u{1b}[0m"), "{out:?}");
}

#[test]
fn junit() {
    insta::assert_snapshot!(junit::render(&fixture()));
}

#[test]
fn junit_single_trial() {
    let out = junit::render(&single_trial());
    assert!(!out.contains("pass@k"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn markdown() {
    insta::assert_snapshot!(markdown::render(&fixture()));
}

#[test]
fn markdown_single_trial() {
    let out = markdown::render(&single_trial());
    assert!(!out.contains("Reliability"), "{out}");
    insta::assert_snapshot!(out);
}

/// A baseline for the fixture: the flaky test and the second `lists tools`
/// passed then (regressions now), `echo` failed then (a stale expected
/// failure now), the crash was already an error, `concise answer` is new and
/// one test is gone. The first `lists tools` is keyed with `./` to show that
/// paths compare normalized.
fn baseline_for_fixture() -> Baseline {
    let entry = |file: &str, name: &str, status: TestStatus| Entry {
        file: file.into(),
        name: name.into(),
        status,
    };
    Baseline {
        version: baseline::BASELINE_VERSION,
        tool: None,
        tests: vec![
            entry(
                "evals/echo.yaml",
                "echo returns its input",
                TestStatus::Fail,
            ),
            entry("./evals/echo.yaml", "lists tools", TestStatus::Pass),
            entry("evals/search.yaml", "search finds rust", TestStatus::Pass),
            entry("evals/search.yaml", "lists tools", TestStatus::Pass),
            entry(
                "evals/quality.yaml",
                "blended quality score",
                TestStatus::Fail,
            ),
            entry("evals/crash.yaml", "server crashed", TestStatus::Error),
            entry("evals/tokens.yaml", "needs a token", TestStatus::Skip),
            entry("evals/old.yaml", "removed test", TestStatus::Pass),
        ],
    }
}

#[test]
fn baseline_comparison_of_the_fixture() {
    let c = baseline::compare(&baseline_for_fixture(), &fixture());
    let regressed: Vec<&str> = c.regressions.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(regressed, ["search finds rust", "lists tools"]);
    assert_eq!(c.regressions[1].file, "evals/search.yaml");
    let stale: Vec<&str> = c.stale.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(stale, ["echo returns its input"]);
    let new: Vec<&str> = c.new_tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(new, ["concise answer"]);
    let gone: Vec<&str> = c.gone.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(gone, ["removed test"]);
    insta::assert_snapshot!("comparison_text", text::comparison(&c, Paint::Plain));
    insta::assert_snapshot!(
        "markdown_with_baseline",
        markdown::render_with(&fixture(), Some(&c))
    );
}

#[test]
fn badge() {
    insta::assert_snapshot!(badge::render(&fixture()));
    let single = badge::render(&single_trial());
    assert!(single.contains("\"3/7 passed\""), "{single}");
}

#[test]
fn sarif() {
    let out = sarif::render(&fixture());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    // Every failing check, the failing metric, and the crash.
    let located: Vec<(String, u64, &str)> = results
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            (
                loc["artifactLocation"]["uri"].as_str().unwrap().to_string(),
                loc["region"]["startLine"].as_u64().unwrap(),
                r["ruleId"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            ("evals/search.yaml".to_string(), 9, "check-failed"),
            ("evals/search.yaml".to_string(), 24, "check-failed"),
            ("evals/search.yaml".to_string(), 25, "check-failed"),
            ("evals/quality.yaml".to_string(), 11, "check-failed"),
            (
                "evals/quality.yaml".to_string(),
                3,
                "metric-below-threshold"
            ),
            ("evals/crash.yaml".to_string(), 1, "test-error"),
        ]
    );
    // The flaky test is a warning; a test that never passed is an error.
    assert_eq!(results[0]["level"], "warning");
    assert_eq!(results[1]["level"], "error");
    insta::assert_snapshot!(out);
}

#[test]
fn renderers_of_an_empty_run_say_so() {
    let r = Results::new(Vec::new(), 0);
    let md = markdown::render(&r);
    assert!(md.starts_with("## ✅ mcpcheck: no tests\n"), "{md}");
    let xml = junit::render(&r);
    assert!(xml.contains("tests=\"0\""), "{xml}");
    let s: serde_json::Value = serde_json::from_str(&sarif::render(&r)).unwrap();
    assert_eq!(s["runs"][0]["results"], serde_json::json!([]));
}

/// A run with `--retries 2`: a test that failed once then passed (flaky), one
/// that failed every attempt, one that passed at once.
fn retried() -> Results {
    let attempt = |status: TestStatus, ms: u64, why: &str| {
        let mut t = test(
            "evals/flaky.yaml",
            "flaky answer",
            4,
            status,
            ms,
            if why.is_empty() {
                vec![check("equals", CheckStatus::Pass, 9)]
            } else {
                vec![failed("equals", 9, "'42'", "'not yet'", why)]
            },
        );
        t.message = why.into();
        t
    };
    let flaky = TestResult::retried(vec![
        attempt(
            TestStatus::Fail,
            30,
            "expected exact match: want '42', got 'not yet'",
        ),
        attempt(TestStatus::Pass, 12, ""),
    ])
    .unwrap();
    let broken = |ms: u64| {
        let mut t = test(
            "evals/broken.yaml",
            "always wrong",
            1,
            TestStatus::Fail,
            ms,
            vec![failed(
                "contains",
                6,
                "contains 'rust'",
                "'go'",
                "expected text to contain 'rust'",
            )],
        );
        t.message = "expected text to contain 'rust'".into();
        t
    };
    let always = TestResult::retried(vec![broken(5), broken(6), broken(7)]).unwrap();
    let fine = test(
        "evals/echo.yaml",
        "echo",
        1,
        TestStatus::Pass,
        3,
        vec![check("equals", CheckStatus::Pass, 5)],
    );
    let mut r = Results::new(vec![fine, flaky, always], 60);
    r.tool.version = "0.0.0-fixture".into();
    r
}

#[test]
fn a_retried_run_says_flaky_apart_from_pass_and_fail_in_every_format() {
    let r = retried();
    let s = &r.summary;
    assert_eq!((s.total, s.passed, s.flaky, s.failed), (3, 2, 1, 1));
    // The document: the status a reader of four statuses knows, and the flag.
    let doc: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(doc["tests"][1]["status"], "pass");
    assert_eq!(doc["tests"][1]["flaky"], true);
    assert_eq!(doc["tests"][1]["attempts"][0]["status"], "fail");
    assert_eq!(doc["tests"][1]["attempts"][1]["status"], "pass");
    assert!(doc["tests"][0].get("flaky").is_none() && doc["tests"][0].get("attempts").is_none());
    assert_eq!(
        doc["tests"][2]["attempts"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(doc["summary"]["flaky"], 1);
    assert_eq!(Results::from_json(&r.to_json()).unwrap().tests, r.tests);
    // An old reader's view: one without the new fields reads it too.
    let old: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert!(
        ["pass", "fail", "error", "skip"].contains(&old["tests"][1]["status"].as_str().unwrap())
    );

    let text = text::render(
        &r,
        text::TextOptions {
            paint: Paint::Plain,
            all_checks: false,
        },
    );
    assert!(
        text.contains("FLAKY flaky answer (12 ms) · passed on attempt 2\n"),
        "{text}"
    );
    assert!(
        text.contains("      attempt 1: fail expected exact match: want '42', got 'not yet'\n"),
        "{text}"
    );
    assert!(
        text.contains("FAIL  always wrong (7 ms) · fail on all 3 attempts\n"),
        "{text}"
    );
    assert!(
        text.contains("3 tests: 1 passed, 1 flaky, 1 failed"),
        "{text}"
    );
    insta::assert_snapshot!("retried_text", text);

    let xml = junit::render(&r);
    assert!(xml.contains("<flakyFailure"), "{xml}");
    assert!(xml.contains("<rerunFailure"), "{xml}");
    insta::assert_snapshot!("retried_junit", xml);

    let md = markdown::render(&r);
    assert!(
        md.contains("## ❌ mcpcheck: 2 of 3 tests passed (1 flaky)"),
        "{md}"
    );
    assert!(md.contains("| ⚠️ | flaky answer |"), "{md}");
    assert!(md.contains("### Flaky"), "{md}");
    insta::assert_snapshot!("retried_markdown", md);

    let sarif_out = sarif::render(&r);
    let v: serde_json::Value = serde_json::from_str(&sarif_out).unwrap();
    let rules: Vec<(&str, &str)> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["ruleId"].as_str().unwrap(), x["level"].as_str().unwrap()))
        .collect();
    assert_eq!(rules, [("test-flaky", "note"), ("check-failed", "error")]);
    insta::assert_snapshot!("retried_sarif", sarif_out);

    let gh = mcpcheck_core::report::github::render(&r);
    assert!(gh.contains("::warning file=evals/flaky.yaml,line=4,title=flaky answer::flaky: passed on attempt 2%0Aattempt 1: fail"), "{gh}");
    assert!(gh.contains("2 passed (1 flaky), 1 failed"), "{gh}");

    let tap = mcpcheck_core::report::tap::render(&r);
    assert!(
        tap.contains(
            "ok 2 - evals/flaky.yaml › flaky answer\n  ---\n  status: flaky\n  attempts: 2\n"
        ),
        "{tap}"
    );
    assert!(
        tap.contains("not ok 3 - evals/broken.yaml › always wrong"),
        "{tap}"
    );

    assert!(badge::render(&r).contains("\"2/3 passed · 1 flaky\""));
}
