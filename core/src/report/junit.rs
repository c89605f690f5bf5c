//! JUnit XML, for the test views of CI systems (GitHub Actions reporters,
//! GitLab, Jenkins). Serialized by `quick-junit`, which also drops what XML
//! cannot carry (ANSI escapes, control characters).
//!
//! ```xml
//! <testsuites name="mcpcheck" tests="4" skipped="1" failures="1" errors="1" time="0.1">
//!     <testsuite name="mcpcheck" tests="4" skipped="1" errors="1" failures="1" time="0.1">
//!         <properties>
//!             <property name="trials" value="5"/>
//!             <property name="pass@k" value="0.75"/>
//!             <property name="pass^k" value="0.5"/>
//!             <property name="metric.quality.mean" value="0.667"/>
//!             <property name="metric.quality.count" value="2"/>
//!         </properties>
//!         <testcase name="search finds rust" classname="evals/search.yaml" time="0.03"
//!                   file="evals/search.yaml" line="3">
//!             <properties>
//!                 <property name="pass@k" value="true"/> …
//!             </properties>
//!             <failure message="expected text to contain 'rust'" type="fail">…</failure>
//!         </testcase>
//!     </testsuite>
//! </testsuites>
//! ```
//!
//! One `<testsuite>` holds the whole run, so the run-level properties
//! (pass@k and pass^k rates over the tests, metric rollups) have one home;
//! each test's suite file is its `classname` and its `file` attribute, and
//! its first line the `line` attribute, which annotating reporters read.
//! Per test, `<properties>` carry `trials`, `trials.passed`, `pass@k`,
//! `pass^k` (when the run had trials), `score` and `threshold` (scored
//! tests), and `metric.NAME` (derived metrics). The body of a `<failure>` or
//! `<error>` is the terminal rendering of the failing checks.
//!
//! A retried test (`--retries N`) is written as Maven Surefire writes one,
//! and as Playwright (`includeRetries`) and pytest-rerunfailures do: a flaky
//! test passes, with a `<flakyFailure>` (or `<flakyError>`) per attempt that
//! did not pass; a test that failed every attempt has its `<failure>` (the
//! last attempt) and a `<rerunFailure>` (or `<rerunError>`) for each attempt
//! before it. Each of those carries the attempt's message, and its time.
//! The test case also gets the property `flaky` (`true`) or `attempts`.

use std::time::Duration;

use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite,
};

use crate::diag::Paint;
use crate::report::text::{TextOptions, test_block};
use crate::results::{Results, TestResult, TestStatus};
use crate::score::round3;

fn ms(d: u64) -> Duration {
    Duration::from_millis(d)
}

fn num(x: f64) -> String {
    round3(x).to_string()
}

fn case_properties(t: &TestResult) -> Vec<Property> {
    let mut props = Vec::new();
    if t.flaky {
        props.push(Property::new("flaky", "true"));
    }
    if t.attempts.len() > 1 {
        props.push(Property::new("attempts", t.attempts.len().to_string()));
    }
    if let Some(tr) = &t.trials {
        props.push(Property::new("trials", tr.count.to_string()));
        props.push(Property::new("trials.passed", tr.passed.to_string()));
        props.push(Property::new("pass@k", tr.pass_at_k.to_string()));
        props.push(Property::new("pass^k", tr.pass_hat_k.to_string()));
    }
    if let Some(s) = t.score {
        props.push(Property::new("score", num(s)));
    }
    if let Some(th) = t.threshold {
        props.push(Property::new("threshold", num(th)));
    }
    for m in &t.derived_metrics {
        props.push(Property::new(format!("metric.{}", m.name), num(m.value)));
        if let Some(p) = m.passed {
            props.push(Property::new(
                format!("metric.{}.passed", m.name),
                p.to_string(),
            ));
        }
    }
    props
}

/// The failing checks as the terminal shows them, without the status line.
fn failure_body(t: &TestResult) -> String {
    let block = test_block(
        t,
        TextOptions {
            paint: Paint::Plain,
            all_checks: false,
        },
    );
    let mut body: String = block
        .lines()
        .skip(1)
        .map(|l| l.strip_prefix("      ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(tr) = &t.trials {
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&format!(
            "passed {} of {} trials (the detail above is from trial {})",
            tr.passed,
            tr.count,
            tr.statuses
                .iter()
                .position(|s| *s == t.status)
                .map_or(1, |i| i + 1)
        ));
    }
    body
}

fn failure_message(t: &TestResult) -> String {
    // An attribute holds one line: parsers fold newlines in it to spaces.
    if let Some(first) = t.message.lines().find(|l| !l.trim().is_empty()) {
        return first.to_string();
    }
    let failing = t
        .checks
        .iter()
        .filter(|c| c.status != crate::results::CheckStatus::Pass)
        .count();
    format!(
        "{failing} check{} did not pass",
        if failing == 1 { "" } else { "s" }
    )
}

/// The attempts before the reported one that did not pass, as reruns.
fn reruns(t: &TestResult) -> Vec<TestRerun> {
    let earlier = t.attempts.len().saturating_sub(1);
    t.attempts[..earlier]
        .iter()
        .filter(|a| matches!(a.status, TestStatus::Fail | TestStatus::Error))
        .map(|a| {
            let kind = if a.status == TestStatus::Fail {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut r = TestRerun::new(kind);
            r.set_type(a.status.as_str());
            r.set_time(ms(a.duration_ms));
            if let Some(first) = a.message.lines().find(|l| !l.trim().is_empty()) {
                r.set_message(first);
            }
            if !a.message.is_empty() {
                r.set_stack_trace(a.message.as_str());
            }
            r
        })
        .collect()
}

fn test_case(t: &TestResult) -> TestCase {
    let mut status = match t.status {
        TestStatus::Pass => TestCaseStatus::success(),
        TestStatus::Skip => {
            let mut s = TestCaseStatus::skipped();
            if !t.message.is_empty() {
                s.set_message(t.message.as_str());
            }
            s
        }
        TestStatus::Fail | TestStatus::Error => {
            let kind = if t.status == TestStatus::Fail {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut s = TestCaseStatus::non_success(kind);
            s.set_message(failure_message(t));
            s.set_type(t.status.as_str());
            let body = failure_body(t);
            if !body.is_empty() {
                s.set_description(body);
            }
            s
        }
    };
    status.add_reruns(reruns(t));
    let mut case = TestCase::new(t.name.as_str(), status);
    if !t.file.is_empty() {
        case.set_classname(t.file.as_str());
        case.extra.insert("file".into(), t.file.as_str().into());
    }
    if let Some(line) = t.line.filter(|l| *l > 0) {
        case.extra.insert("line".into(), line.to_string().into());
    }
    if t.status != TestStatus::Skip {
        case.set_time(ms(t.duration_ms));
        case.set_assertions(t.checks.len());
    }
    case.add_properties(case_properties(t));
    if !t.warnings.is_empty() {
        let out: Vec<String> = t.warnings.iter().map(|w| format!("warning: {w}")).collect();
        case.set_system_out(out.join("\n"));
    }
    case
}

/// The run as a JUnit XML document.
pub fn render(r: &Results) -> String {
    let mut suite = TestSuite::new("mcpcheck");
    suite.set_time(ms(r.summary.duration_ms));
    if let Some(rel) = &r.reliability {
        suite.add_properties([
            Property::new("trials", rel.trials.to_string()),
            Property::new("pass@k", num(rel.pass_at_k_rate)),
            Property::new("pass^k", num(rel.pass_hat_k_rate)),
            Property::new("pass@k.tests", rel.pass_at_k.to_string()),
            Property::new("pass^k.tests", rel.pass_hat_k.to_string()),
        ]);
    }
    for m in &r.metric_rollups {
        suite.add_properties([
            Property::new(format!("metric.{}.mean", m.name), num(m.mean)),
            Property::new(format!("metric.{}.count", m.name), m.count.to_string()),
        ]);
    }
    suite.add_test_cases(r.tests.iter().map(test_case));
    let mut report = Report::new("mcpcheck");
    report.set_time(ms(r.summary.duration_ms));
    report.add_test_suite(suite);
    report.to_string().unwrap_or_else(|e| {
        // Writing XML into memory does not fail in practice; should it, the
        // file still says what happened instead of being empty.
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- mcpcheck could not serialize the JUnit report: {} -->\n<testsuites name=\"mcpcheck\"/>\n",
            e.to_string().replace("--", "- -")
        )
    })
}
