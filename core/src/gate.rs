//! The CI verdict: whether a run passes, given a pass-rate threshold and a
//! comparison against a baseline. `mcpcheck run` and `mcpcheck ci` turn it
//! into the exit code (0 passed, 1 not); the reasons are printed.
//!
//! - Without a threshold every test that ran must pass (a skipped test is
//!   neither a pass nor a failure).
//! - With `threshold` (a percentage, 0–100) the run passes when passed tests
//!   make up at least that share of the tests that ran; skipped tests are
//!   left out of both counts. A run in which nothing ran passes: there is no
//!   failure to report (a suite that does not load is a usage error, exit 2,
//!   before this point).
//! - With `fail_on_regression`, any regression against the baseline fails
//!   the run, whatever the threshold: a test that passed before and does not
//!   now is never "within tolerance".
//! - With `fail_on_flaky`, a test that passed only on a retry (`--retries`)
//!   fails the run: otherwise it counts as the pass it finally was.

use crate::baseline::Comparison;
use crate::report::percent;
use crate::results::Results;
use crate::score::round3;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GateOptions {
    /// Minimum pass percentage over the tests that ran, 0–100. `None`: all.
    pub threshold: Option<f64>,
    /// Fail on any regression against the baseline.
    pub fail_on_regression: bool,
    /// Fail when a test passed only on a retry (`--fail-on-flaky`).
    pub fail_on_flaky: bool,
}

/// The verdict and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateVerdict {
    pub passed: bool,
    /// One line per reason the run failed; empty when it passed.
    pub reasons: Vec<String>,
}

impl GateVerdict {
    /// The process exit code: 0 passed, 1 not.
    pub fn exit_code(&self) -> u8 {
        if self.passed { 0 } else { 1 }
    }
}

/// Decide. A threshold that is not a number counts as 100.
pub fn decide(
    results: &Results,
    comparison: Option<&Comparison>,
    opts: &GateOptions,
) -> GateVerdict {
    let s = &results.summary;
    let mut reasons = Vec::new();
    let ran = s.ran();
    match opts.threshold {
        None => {
            let bad = s.failed + s.errored;
            if bad > 0 {
                reasons.push(format!(
                    "{bad} of {ran} test{} did not pass",
                    if ran == 1 { "" } else { "s" }
                ));
            }
        }
        Some(th) => {
            let th = if th.is_nan() {
                100.0
            } else {
                th.clamp(0.0, 100.0)
            };
            // passed / ran >= th / 100, compared without dividing.
            if ran > 0 && (s.passed as f64) * 100.0 < th * ran as f64 {
                reasons.push(format!(
                    "pass rate {} ({} of {ran}) is below the threshold {}%",
                    percent(s.passed, ran),
                    s.passed,
                    round3(th)
                ));
            }
        }
    }
    if opts.fail_on_flaky && s.flaky > 0 {
        reasons.push(format!(
            "{} passed only on a retry (--fail-on-flaky)",
            crate::report::plural(s.flaky, "flaky test", "flaky tests")
        ));
    }
    if opts.fail_on_regression
        && let Some(c) = comparison
        && c.has_regressions()
    {
        let n = c.regressions.len();
        reasons.push(format!(
            "{n} regression{} against the baseline",
            if n == 1 { "" } else { "s" }
        ));
    }
    GateVerdict {
        passed: reasons.is_empty(),
        reasons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::Transition;
    use crate::results::{TestResult, TestStatus};

    fn run(pass: usize, fail: usize, error: usize, skip: usize) -> Results {
        let mut tests = Vec::new();
        let mut add = |n: usize, status: TestStatus| {
            for i in 0..n {
                let mut t = TestResult::error(&format!("{status:?}{i}"), "a.yaml", None, "", 1);
                t.status = status;
                tests.push(t);
            }
        };
        add(pass, TestStatus::Pass);
        add(fail, TestStatus::Fail);
        add(error, TestStatus::Error);
        add(skip, TestStatus::Skip);
        Results::new(tests, 1)
    }

    fn regressed() -> Comparison {
        Comparison {
            regressions: vec![Transition {
                file: "a.yaml".into(),
                name: "x".into(),
                was: TestStatus::Pass,
                now: TestStatus::Fail,
            }],
            ..Comparison::default()
        }
    }

    /// (pass, fail, error, skip), threshold, comparison, fail_on_regression, passes
    type Row<'a> = (
        (usize, usize, usize, usize),
        Option<f64>,
        Option<&'a Comparison>,
        bool,
        bool,
    );

    #[test]
    fn table() {
        let quiet = Comparison::default();
        let reg = regressed();
        let rows: &[Row] = &[
            ((3, 0, 0, 0), None, None, false, true),
            ((3, 1, 0, 0), None, None, false, false),
            ((3, 0, 1, 0), None, None, false, false),
            ((3, 0, 0, 5), None, None, false, true),
            ((0, 0, 0, 2), None, None, false, true),
            // A flaky test within the threshold: 9 of 10 is 90%.
            ((9, 1, 0, 0), Some(90.0), None, false, true),
            ((8, 1, 1, 0), Some(90.0), None, false, false),
            // Skipped tests are not in the percentage.
            ((9, 1, 0, 10), Some(90.0), None, false, true),
            ((0, 0, 0, 3), Some(90.0), None, false, true),
            ((0, 3, 0, 0), Some(0.0), None, false, true),
            ((2, 1, 0, 0), Some(100.0), None, false, false),
            ((2, 1, 0, 0), Some(f64::NAN), None, false, false),
            ((2, 1, 0, 0), Some(250.0), None, false, false),
            // 2 of 3 is 66.67%: a threshold of 66.67 is not reached, 66.6 is.
            ((2, 1, 0, 0), Some(66.67), None, false, false),
            ((2, 1, 0, 0), Some(66.6), None, false, true),
            // Regressions fail only with fail_on_regression, threshold or not.
            ((9, 1, 0, 0), Some(90.0), Some(&reg), false, true),
            ((9, 1, 0, 0), Some(90.0), Some(&reg), true, false),
            ((3, 0, 0, 0), None, Some(&quiet), true, true),
            ((3, 0, 0, 0), None, None, true, true),
        ];
        for &((p, f, e, s), threshold, comparison, fail_on_regression, want) in rows {
            let v = decide(
                &run(p, f, e, s),
                comparison,
                &GateOptions {
                    threshold,
                    fail_on_regression,
                    fail_on_flaky: false,
                },
            );
            assert_eq!(
                v.passed, want,
                "{p} pass, {f} fail, {e} error, {s} skip, threshold {threshold:?}, regression gate {fail_on_regression}: {:?}",
                v.reasons
            );
            assert_eq!(v.reasons.is_empty(), want);
            assert_eq!(v.exit_code(), if want { 0 } else { 1 });
        }
    }

    #[test]
    fn reasons_say_what_failed() {
        let v = decide(
            &run(8, 2, 0, 1),
            Some(&regressed()),
            &GateOptions {
                threshold: Some(90.0),
                fail_on_regression: true,
                fail_on_flaky: false,
            },
        );
        assert_eq!(
            v.reasons,
            vec![
                "pass rate 80% (8 of 10) is below the threshold 90%".to_string(),
                "1 regression against the baseline".to_string()
            ]
        );
        let v = decide(&run(1, 1, 1, 0), None, &GateOptions::default());
        assert_eq!(v.reasons, vec!["2 of 3 tests did not pass".to_string()]);
    }

    #[test]
    fn a_flaky_test_passes_unless_flaky_tests_fail_the_run() {
        let mut flaky = TestResult::error("f", "a.yaml", None, "", 1);
        flaky.status = TestStatus::Pass;
        flaky.flaky = true;
        let r = Results::new(vec![flaky], 1);
        assert!(decide(&r, None, &GateOptions::default()).passed);
        let strict = GateOptions {
            fail_on_flaky: true,
            ..GateOptions::default()
        };
        let v = decide(&r, None, &strict);
        assert_eq!(
            v.reasons,
            vec!["1 flaky test passed only on a retry (--fail-on-flaky)".to_string()]
        );
    }
}
