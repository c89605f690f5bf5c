//! The results document: the one JSON shape every front end emits.
//!
//! `mcpcheck run --json`, the npm package and the playground all produce this
//! shape (a single test outcome is one element of `tests`). It is versioned;
//! fields are only ever added. Scores are rounded to three decimals.
//!
//! ```json
//! { "version": 1,
//!   "tool": {"name": "mcpcheck", "version": "0.1.0"},
//!   "summary": {"total": 3, "passed": 1, "failed": 1, "errored": 0, "skipped": 1, "duration_ms": 40},
//!   "tests": [
//!     { "name": "…", "file": "evals/a.yaml", "line": 1, "status": "fail", "duration_ms": 12,
//!       "message": "expected text to contain 'x'",
//!       "checks": [ { "name": "contains", "status": "fail", "code": "contains",
//!                     "target": "text", "path": ["text"], "matcher": "contains",
//!                     "expected": "contains 'x'", "actual": "'…'",
//!                     "expected_value": "x", "actual_value": "…",
//!                     "reason": "expected text to contain 'x'", "weight": 1.0, "line": 5 } ],
//!       "score": 0.75, "threshold": 0.7,
//!       "sets": [ {"name", "score", "threshold", "weight", "passed"} ],
//!       "derived_metrics": [ {"name", "value", "threshold", "passed", "unresolved"} ],
//!       "warnings": ["…"],
//!       "trials": {"count": 5, "passed": 3, "pass_at_k": true, "pass_hat_k": false,
//!                  "statuses": ["pass", "fail", "pass", "pass", "fail"]} } ],
//!   "reliability": {"trials": 5, "tests": 2, "pass_at_k": 2, "pass_hat_k": 1,
//!                   "pass_at_k_rate": 1.0, "pass_hat_k_rate": 0.5},
//!   "metric_rollups": [ {"name": "quality", "mean": 0.667, "count": 2} ] }
//! ```
//!
//! `status` is `pass`, `fail` (an expectation was false), `error` (could not be
//! evaluated: crash, timeout, transport failure, bad configuration) or `skip`.
//!
//! ## Retries and flaky tests
//!
//! With `--retries N` a test that did not pass is run again, up to N more
//! times. One that passes on a later attempt is *flaky*: its `status` stays
//! `pass` (what it finally did, so a reader that knows only the four statuses
//! reads it as it always would), and `"flaky": true` tells it apart; every
//! renderer shows it as `flaky`, distinct from pass and fail
//! ([`TestResult::outcome`]). `attempts` lists every attempt in order (the
//! last is the one reported), and `summary.flaky` counts the flaky tests
//! (they are among `summary.passed`). A test that ran once has none of these.
//!
//! ```json
//! { "name": "…", "status": "pass", "flaky": true, "duration_ms": 9,
//!   "attempts": [ {"status": "fail", "duration_ms": 12, "message": "expected …"},
//!                 {"status": "pass", "duration_ms": 9} ] }
//! ```
//!
//! A test may also carry `tags` (from its suite's `tags:`) and `server` (the
//! label of the server it ran against), for reports that filter by them.
//!
//! ## Trials
//!
//! With `--trials k` (k > 1) every test runs k times and [`Results::from_trials`]
//! folds the k outcomes of each test into one [`TestResult`]:
//!
//! - `trials` records how the test did: `count` (the trials in which it ran,
//!   i.e. was not skipped), `passed`, `pass_at_k` (passed at least once: the
//!   server *can* do it), `pass_hat_k` (passed every time: it *reliably*
//!   does it) and every trial's status in order.
//! - The folded `status` is strict: `pass` only when every trial passed
//!   (pass^k), otherwise the worst status seen (`error` over `fail`); `skip`
//!   only when every trial was skipped. So a flaky test counts as failing in
//!   `summary` and in a pass-rate threshold, and pass@k says it is not broken.
//! - The detail (`message`, `checks`, `score`, `sets`, `derived_metrics`) is
//!   that of one representative trial: the first whose status is the folded
//!   status, so a flaky test shows how it failed. `duration_ms` is the total
//!   over the trials; `warnings` are the union, in order.
//!
//! `reliability` summarises the run: over the tests that carry `trials`, how
//! many reached pass@k and pass^k. It and `trials` are absent from a run with
//! one trial, and `metric_rollups` is absent when no test reported a derived
//! metric, so single-trial documents are what they always were.
//!
//! ## Shards
//!
//! A run that is one shard of a split suite (`mcpcheck run --shard i/n`)
//! adds `shard`: `{"index": 2, "total": 4, "timings": "…", "plan": [{"file",
//! "name"}, …]}`, the plan listing every test of the whole run in single-run
//! order. [`crate::shard::merge`] puts the shards back together into one
//! document without it. Documents without `shard` read as before.

use serde::{Deserialize, Serialize, Serializer};

use crate::error::DocError;
use crate::score::{Scored, Verdict, round3};

pub const RESULTS_VERSION: u32 = 1;

fn ser_round<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round3(*x))
}

fn ser_round_opt<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => s.serialize_some(&round3(*v)),
        None => s.serialize_none(),
    }
}

/// A test's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum TestStatus {
    Pass,
    Fail,
    Error,
    Skip,
}

impl TestStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TestStatus::Pass => "pass",
            TestStatus::Fail => "fail",
            TestStatus::Error => "error",
            TestStatus::Skip => "skip",
        }
    }

    /// Whether a test with this status lets the run pass: a passed or a
    /// skipped test does; a failed one or an error does not.
    pub fn is_success(self) -> bool {
        matches!(self, TestStatus::Pass | TestStatus::Skip)
    }

    /// The verdict of a batch of tests, as an `afterAll` hook is told it:
    /// `pass` when every test succeeded (see [`TestStatus::is_success`]).
    pub fn batch_verdict(statuses: impl IntoIterator<Item = TestStatus>) -> &'static str {
        if statuses.into_iter().all(TestStatus::is_success) {
            "pass"
        } else {
            "fail"
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TestStatus::Pass => "PASS",
            TestStatus::Fail => "FAIL",
            TestStatus::Error => "ERROR",
            TestStatus::Skip => "SKIP",
        }
    }
}

/// A check's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Pass,
    Fail,
    Error,
}

/// One check of a test: what was expected, what was found, and why it
/// failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct CheckResult {
    pub name: String,
    pub status: CheckStatus,
    /// The expectation key the check was written with (`contains`,
    /// `has_fields`, `json_path`, a list-form matcher such as `exact`): a
    /// stable code to select checks by.
    #[serde(default)]
    pub code: String,
    /// The path the check looked at, e.g. `text` or `json.results[*].id`.
    pub target: String,
    /// The same as steps from the observation's root (`["json", "results",
    /// "*", "id"]`); absent when the path has filters, slices or
    /// descendants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional, type = "Array<string | number>"))]
    pub path: Option<Vec<serde_json::Value>>,
    /// The matcher, e.g. `contains`, `json_path`, `schema`.
    pub matcher: String,
    /// What was expected, for display.
    pub expected: String,
    /// What was found, for display.
    pub actual: String,
    /// What was expected, as a value: the matcher's parameter (a string, a
    /// list, `{min, max}`); absent for a matcher without one.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    #[cfg_attr(feature = "ts", tsify(optional, type = "unknown"))]
    pub expected_value: serde_json::Value,
    /// What the target selected, as a value (the list when it selected
    /// several, `null` when nothing); absent when it is larger than 16 KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional, type = "unknown"))]
    pub actual_value: Option<serde_json::Value>,
    /// One line; absent when the check passed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub reason: String,
    #[serde(serialize_with = "ser_round")]
    pub weight: f64,
    /// The assert-set the check belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<String>,
    /// The line of the check in the expectation text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// An assert-set's score against its threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct SetResult {
    pub name: String,
    #[serde(serialize_with = "ser_round")]
    pub score: f64,
    #[serde(serialize_with = "ser_round")]
    pub threshold: f64,
    #[serde(serialize_with = "ser_round")]
    pub weight: f64,
    pub passed: bool,
}

/// A derived metric's value, and whether it met its threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct MetricResult {
    pub name: String,
    #[serde(serialize_with = "ser_round")]
    pub value: f64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_round_opt"
    )]
    pub threshold: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    /// Names the metric's formula referenced that matched nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub unresolved: Vec<String>,
}

/// One test outcome: an element of the results document's `tests`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TestResult {
    pub name: String,
    /// The suite file the test is in; absent outside a suite (the npm
    /// package's single checks).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub status: TestStatus,
    pub duration_ms: u64,
    /// The reasons of the failing checks, or why the test could not run.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub message: String,
    pub checks: Vec<CheckResult>,
    /// The weighted score, rounded to three decimals, when a threshold is set.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_round_opt"
    )]
    pub score: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_round_opt"
    )]
    pub threshold: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub sets: Vec<SetResult>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub derived_metrics: Vec<MetricResult>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub warnings: Vec<String>,
    /// How the test did over several trials (`mcpcheck run --trials k`,
    /// k > 1); never from the npm package.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<Trials>,
    /// Passed on a retry after failing (`mcpcheck run --retries N`): the
    /// status is `pass`, the outcome `flaky`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub flaky: bool,
    /// Every attempt, in order, when the test was retried (the last one is
    /// the reported one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub attempts: Vec<Attempt>,
    /// The test's tags, as its suite wrote them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub tags: Vec<String>,
    /// The label of the server the test ran against (its command line or
    /// URL, secrets hidden).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub server: String,
}

/// One attempt of a retried test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Attempt {
    pub status: TestStatus,
    pub duration_ms: u64,
    /// The attempt's message (why it failed); absent when it passed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub message: String,
}

impl Attempt {
    /// The attempt a result records.
    pub fn of(t: &TestResult) -> Attempt {
        Attempt {
            status: t.status,
            duration_ms: t.duration_ms,
            message: t.message.clone(),
        }
    }
}

/// One test's outcomes over k trials.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Trials {
    /// The trials in which the test ran (skipped trials are not counted).
    pub count: u32,
    /// How many of them passed.
    pub passed: u32,
    /// Passed at least once.
    pub pass_at_k: bool,
    /// Passed every time.
    pub pass_hat_k: bool,
    /// Every trial's status, in trial order (skipped ones included).
    pub statuses: Vec<TestStatus>,
}

impl Trials {
    /// Tally a list of per-trial statuses.
    pub fn of(statuses: Vec<TestStatus>) -> Trials {
        let count = statuses.iter().filter(|s| **s != TestStatus::Skip).count();
        let passed = statuses.iter().filter(|s| **s == TestStatus::Pass).count();
        let (count, passed) = (
            u32::try_from(count).unwrap_or(u32::MAX),
            u32::try_from(passed).unwrap_or(u32::MAX),
        );
        Trials {
            count,
            passed,
            pass_at_k: passed > 0,
            pass_hat_k: count > 0 && passed == count,
            statuses,
        }
    }
}

impl TestResult {
    /// A result from a scored test.
    pub fn scored(
        name: &str,
        file: &str,
        line: Option<u32>,
        scored: &Scored,
        duration_ms: u64,
    ) -> Self {
        let status = match scored.verdict {
            Verdict::Pass => TestStatus::Pass,
            Verdict::Fail => TestStatus::Fail,
            Verdict::Error => TestStatus::Error,
        };
        TestResult {
            name: name.to_string(),
            file: file.to_string(),
            line,
            status,
            duration_ms,
            message: scored.summary(),
            checks: scored
                .checks
                .iter()
                .map(|c| CheckResult {
                    name: c.check.name.clone(),
                    status: match c.outcome.status {
                        crate::check::Status::Pass => CheckStatus::Pass,
                        crate::check::Status::Fail => CheckStatus::Fail,
                        crate::check::Status::Error => CheckStatus::Error,
                    },
                    code: if c.check.key == "list" {
                        c.check.matcher.kind()
                    } else {
                        c.check.key
                    }
                    .to_string(),
                    target: c.check.target.describe(),
                    path: c.check.target.segments(),
                    matcher: c.check.matcher.kind().to_string(),
                    expected: c.outcome.expected.clone(),
                    actual: c.outcome.actual.clone(),
                    expected_value: c.check.matcher.expected_value(),
                    actual_value: c.outcome.actual_value.clone(),
                    reason: c.outcome.reason.clone(),
                    weight: c.check.weight,
                    set: c.set.clone(),
                    line: (!c.check.span.is_none()).then_some(c.check.span.line),
                })
                .collect(),
            score: scored.score,
            threshold: scored.threshold,
            sets: scored
                .sets
                .iter()
                .map(|s| SetResult {
                    name: s.name.clone(),
                    score: s.score,
                    threshold: s.threshold,
                    weight: s.weight,
                    passed: s.passed,
                })
                .collect(),
            derived_metrics: scored
                .metrics
                .iter()
                .map(|m| MetricResult {
                    name: m.name.clone(),
                    value: m.value,
                    threshold: m.threshold,
                    passed: m.passed,
                    unresolved: m.unresolved.clone(),
                })
                .collect(),
            warnings: Vec::new(),
            trials: None,
            flaky: false,
            attempts: Vec::new(),
            tags: Vec::new(),
            server: String::new(),
        }
    }

    /// A test that could not be evaluated (crash, timeout, bad config, …).
    pub fn error(
        name: &str,
        file: &str,
        line: Option<u32>,
        message: &str,
        duration_ms: u64,
    ) -> Self {
        TestResult {
            name: name.to_string(),
            file: file.to_string(),
            line,
            status: TestStatus::Error,
            duration_ms,
            message: message.to_string(),
            checks: Vec::new(),
            score: None,
            threshold: None,
            sets: Vec::new(),
            derived_metrics: Vec::new(),
            warnings: Vec::new(),
            trials: None,
            flaky: false,
            attempts: Vec::new(),
            tags: Vec::new(),
            server: String::new(),
        }
    }

    /// A test that did not run.
    pub fn skip(name: &str, file: &str, line: Option<u32>, reason: &str) -> Self {
        TestResult {
            status: TestStatus::Skip,
            ..TestResult::error(name, file, line, reason, 0)
        }
    }

    /// What became of the test, as reports word it: `flaky` for a test that
    /// passed on a retry, else its status (`pass`, `fail`, `error`, `skip`).
    pub fn outcome(&self) -> &'static str {
        if self.flaky {
            "flaky"
        } else {
            self.status.as_str()
        }
    }

    /// [`TestResult::outcome`] in capitals, as the text report labels it.
    pub fn label(&self) -> &'static str {
        if self.flaky {
            "FLAKY"
        } else {
            self.status.label()
        }
    }

    /// Fold the attempts of a retried test (in order; the last is the one
    /// that counts) into one result: the last attempt's, with every attempt
    /// listed and `flaky` when it passed after one that did not.
    /// `None` for an empty list; one attempt is returned as it is.
    pub fn retried(mut attempts: Vec<TestResult>) -> Option<TestResult> {
        let mut last = attempts.pop()?;
        if attempts.is_empty() {
            return Some(last);
        }
        let mut listed: Vec<Attempt> = attempts.iter().map(Attempt::of).collect();
        listed.push(Attempt::of(&last));
        last.flaky =
            last.status == TestStatus::Pass && attempts.iter().any(|a| !a.status.is_success());
        for w in attempts.iter().flat_map(|a| &a.warnings) {
            if !last.warnings.contains(w) {
                last.warnings.push(w.clone());
            }
        }
        last.attempts = listed;
        Some(last)
    }

    /// A test that failed before its checks could run (e.g. a JSON-RPC error
    /// in setup, or a failing beforeEach hook).
    pub fn fail(
        name: &str,
        file: &str,
        line: Option<u32>,
        message: &str,
        duration_ms: u64,
    ) -> Self {
        TestResult {
            status: TestStatus::Fail,
            ..TestResult::error(name, file, line, message, duration_ms)
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub skipped: usize,
    pub duration_ms: u64,
    /// The passed tests that passed only on a retry (counted in `passed`
    /// too); absent when there are none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flaky: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    pub fn of(tests: &[TestResult], duration_ms: u64) -> Summary {
        let count = |s: TestStatus| tests.iter().filter(|t| t.status == s).count();
        Summary {
            total: tests.len(),
            passed: count(TestStatus::Pass),
            failed: count(TestStatus::Fail),
            errored: count(TestStatus::Error),
            skipped: count(TestStatus::Skip),
            duration_ms,
            flaky: tests.iter().filter(|t| t.flaky).count(),
        }
    }

    /// The tests that ran (were not skipped).
    pub fn ran(&self) -> usize {
        self.total.saturating_sub(self.skipped)
    }

    /// Passed tests as a percentage of the tests that ran; `None` when none ran.
    /// Skipped tests are left out: they say nothing about the server.
    pub fn pass_percent(&self) -> Option<f64> {
        let ran = self.ran();
        (ran > 0).then(|| self.passed as f64 * 100.0 / ran as f64)
    }
}

/// The run's reliability over k trials: how many tests passed at least once
/// (pass@k) and how many passed every time (pass^k).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reliability {
    /// k: the largest number of trials any test ran.
    pub trials: u32,
    /// The tests that ran in at least one trial.
    pub tests: usize,
    pub pass_at_k: usize,
    pub pass_hat_k: usize,
    #[serde(serialize_with = "ser_round")]
    pub pass_at_k_rate: f64,
    #[serde(serialize_with = "ser_round")]
    pub pass_hat_k_rate: f64,
}

impl Reliability {
    /// The summary of the tests that carry trial data; `None` when none does.
    pub fn of(tests: &[TestResult]) -> Option<Reliability> {
        let with: Vec<&Trials> = tests
            .iter()
            .filter_map(|t| t.trials.as_ref())
            .filter(|tr| tr.count > 0)
            .collect();
        if with.is_empty() {
            return None;
        }
        let n = with.len();
        let at = with.iter().filter(|t| t.pass_at_k).count();
        let hat = with.iter().filter(|t| t.pass_hat_k).count();
        Some(Reliability {
            trials: with.iter().map(|t| t.count).max().unwrap_or(0),
            tests: n,
            pass_at_k: at,
            pass_hat_k: hat,
            pass_at_k_rate: at as f64 / n as f64,
            pass_hat_k_rate: hat as f64 / n as f64,
        })
    }

    /// The tests that passed sometimes but not always.
    pub fn flaky(&self) -> usize {
        self.pass_at_k.saturating_sub(self.pass_hat_k)
    }
}

/// One derived metric across the run: its mean over the tests that reported
/// it, and how many did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricRollup {
    pub name: String,
    #[serde(serialize_with = "ser_round")]
    pub mean: f64,
    pub count: usize,
}

impl MetricRollup {
    /// Every metric name in the order it first appears, with its mean and count.
    pub fn of(tests: &[TestResult]) -> Vec<MetricRollup> {
        let mut out: Vec<(String, f64, usize)> = Vec::new();
        for m in tests.iter().flat_map(|t| &t.derived_metrics) {
            match out.iter_mut().find(|(n, _, _)| *n == m.name) {
                Some(entry) => {
                    entry.1 += m.value;
                    entry.2 += 1;
                }
                None => out.push((m.name.clone(), m.value, 1)),
            }
        }
        out.into_iter()
            .map(|(name, sum, count)| MetricRollup {
                name,
                mean: sum / count as f64,
                count,
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub version: u32,
    pub tool: Tool,
    pub summary: Summary,
    pub tests: Vec<TestResult>,
    /// Present when the tests ran more than once (`--trials k`, k > 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reliability: Option<Reliability>,
    /// Derived metrics rolled up over the run, in first-seen order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metric_rollups: Vec<MetricRollup>,
    /// Present when the run was one shard of a split suite (`--shard i/n`):
    /// which one, and every test of the whole run (see [`crate::shard`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::shard::ShardRecord>,
}

impl Results {
    pub fn new(tests: Vec<TestResult>, duration_ms: u64) -> Results {
        Results {
            version: RESULTS_VERSION,
            tool: Tool {
                name: "mcpcheck".into(),
                version: crate::VERSION.into(),
            },
            summary: Summary::of(&tests, duration_ms),
            reliability: Reliability::of(&tests),
            metric_rollups: MetricRollup::of(&tests),
            shard: None,
            tests,
        }
    }

    /// Fold k runs of the same tests into one document (see "Trials" in the
    /// module docs). `runs[i]` is every test's result in trial i, in the
    /// run's order; `duration_ms` is the wall time of all trials together.
    ///
    /// Tests are matched across runs by (file, name) — and, should a file hold
    /// two tests of one name, by which occurrence they are — never by position
    /// or name alone. The order is that of the first run; a test that appears
    /// only in later runs follows, in the order it first appears. With zero
    /// or one run nothing is folded and no trial data is added.
    pub fn from_trials(runs: Vec<Vec<TestResult>>, duration_ms: u64) -> Results {
        if runs.len() <= 1 {
            return Results::new(runs.into_iter().next().unwrap_or_default(), duration_ms);
        }
        type Key = (String, String, usize);
        let mut order: Vec<Key> = Vec::new();
        let mut groups: std::collections::HashMap<Key, Vec<TestResult>> =
            std::collections::HashMap::new();
        for run in runs {
            let mut seen: std::collections::HashMap<(String, String), usize> =
                std::collections::HashMap::new();
            for t in run {
                let n = seen.entry((t.file.clone(), t.name.clone())).or_insert(0);
                let key = (t.file.clone(), t.name.clone(), *n);
                *n += 1;
                let group = groups.entry(key.clone()).or_default();
                if group.is_empty() {
                    order.push(key);
                }
                group.push(t);
            }
        }
        let tests = order
            .iter()
            .filter_map(|k| groups.remove(k))
            .filter_map(fold_trials)
            .collect();
        Results::new(tests, duration_ms)
    }

    /// Whether every test passed or was skipped.
    pub fn ok(&self) -> bool {
        self.summary.failed == 0 && self.summary.errored == 0
    }

    /// Pretty JSON, keys in a fixed order.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Read a results document back (e.g. for re-rendering). The run-level
    /// summaries derived from the tests (`reliability`, `metric_rollups`) are
    /// computed when the document lacks them, so one written before they
    /// existed renders in full; present ones are kept as written (they were
    /// computed from unrounded values).
    pub fn from_json(text: &str) -> Result<Results, DocError> {
        let mut r: Results =
            serde_json::from_str(text).map_err(|e| DocError::not_a("a results document", &e))?;
        if r.version != RESULTS_VERSION {
            return Err(DocError::Version {
                what: "results",
                found: r.version,
                reads: RESULTS_VERSION,
            });
        }
        if r.reliability.is_none() {
            r.reliability = Reliability::of(&r.tests);
        }
        if r.metric_rollups.is_empty() {
            r.metric_rollups = MetricRollup::of(&r.tests);
        }
        Ok(r)
    }
}

/// How bad a status is, for folding trials: error over fail over pass.
fn severity(s: TestStatus) -> u8 {
    match s {
        TestStatus::Skip => 0,
        TestStatus::Pass => 1,
        TestStatus::Fail => 2,
        TestStatus::Error => 3,
    }
}

/// Fold one test's results from several trials (in trial order) into one:
/// the strict status, the representative trial's detail, and `trials`.
/// `None` for an empty list.
pub fn fold_trials(trials: Vec<TestResult>) -> Option<TestResult> {
    let status = trials
        .iter()
        .map(|t| t.status)
        .max_by_key(|s| severity(*s))?;
    let statuses: Vec<TestStatus> = trials.iter().map(|t| t.status).collect();
    let duration_ms = trials
        .iter()
        .fold(0u64, |acc, t| acc.saturating_add(t.duration_ms));
    let mut warnings: Vec<String> = Vec::new();
    for w in trials.iter().flat_map(|t| &t.warnings) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let pick = trials.iter().position(|t| t.status == status).unwrap_or(0);
    let mut folded = trials.into_iter().nth(pick)?;
    folded.status = status;
    folded.duration_ms = duration_ms;
    folded.warnings = warnings;
    folded.trials = (status != TestStatus::Skip).then(|| Trials::of(statuses));
    Some(folded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use TestStatus::*;

    fn t(file: &str, name: &str, status: TestStatus, ms: u64) -> TestResult {
        let mut r = TestResult::error(name, file, Some(1), &format!("{status:?} after {ms}"), ms);
        r.status = status;
        r
    }

    fn metric(name: &str, value: f64) -> MetricResult {
        MetricResult {
            name: name.into(),
            value,
            threshold: None,
            passed: None,
            unresolved: Vec::new(),
        }
    }

    /// (trial statuses, folded status, passed, count, pass@k, pass^k, detail from trial)
    type FoldRow = (
        &'static [TestStatus],
        TestStatus,
        u32,
        u32,
        bool,
        bool,
        usize,
    );

    #[test]
    fn fold_is_strict_and_keeps_the_first_trial_of_the_folded_status() {
        let table: &[FoldRow] = &[
            (&[Pass, Pass, Pass], Pass, 3, 3, true, true, 0),
            (&[Pass, Fail, Pass], Fail, 2, 3, true, false, 1),
            (&[Fail, Error, Fail], Error, 0, 3, false, false, 1),
            (&[Pass, Error, Fail], Error, 1, 3, true, false, 1),
            (&[Fail, Fail], Fail, 0, 2, false, false, 0),
            // Skipped trials are not counted; a test skipped every time is a skip.
            (&[Skip, Pass, Pass], Pass, 2, 2, true, true, 1),
            (&[Skip, Skip], Skip, 0, 0, false, false, 0),
        ];
        for &(statuses, folded, passed, count, at, hat, from) in table {
            let trials: Vec<TestResult> = statuses
                .iter()
                .enumerate()
                .map(|(i, s)| t("a.yaml", "x", *s, 10 + i as u64))
                .collect();
            let want_message = trials[from].message.clone();
            let f = fold_trials(trials).unwrap();
            assert_eq!(f.status, folded, "{statuses:?}");
            assert_eq!(f.message, want_message, "{statuses:?}");
            let total: u64 = (0..statuses.len() as u64).map(|i| 10 + i).sum();
            assert_eq!(f.duration_ms, total);
            if folded == Skip {
                assert_eq!(f.trials, None);
                continue;
            }
            let tr = f.trials.unwrap();
            assert_eq!(
                (tr.passed, tr.count, tr.pass_at_k, tr.pass_hat_k),
                (passed, count, at, hat),
                "{statuses:?}"
            );
            assert_eq!(tr.statuses, statuses);
        }
        assert_eq!(fold_trials(Vec::new()), None);
    }

    #[test]
    fn fold_unions_warnings_in_order() {
        let mut a = t("a.yaml", "x", Pass, 1);
        a.warnings = vec!["w1".into(), "w2".into()];
        let mut b = t("a.yaml", "x", Pass, 1);
        b.warnings = vec!["w2".into(), "w3".into()];
        let f = fold_trials(vec![a, b]).unwrap();
        assert_eq!(f.warnings, ["w1", "w2", "w3"]);
    }

    #[test]
    fn from_trials_matches_tests_by_file_and_name() {
        let run1 = vec![
            t("a.yaml", "same", Pass, 1),
            t("b.yaml", "same", Pass, 1),
            t("a.yaml", "dup", Pass, 1),
            t("a.yaml", "dup", Fail, 1),
        ];
        // Another order, a test missing, one only in this run.
        let run2 = vec![
            t("b.yaml", "same", Fail, 1),
            t("a.yaml", "dup", Pass, 1),
            t("a.yaml", "dup", Fail, 1),
            t("c.yaml", "late", Pass, 1),
        ];
        let r = Results::from_trials(vec![run1, run2], 50);
        let got: Vec<(&str, &str, TestStatus, u32)> = r
            .tests
            .iter()
            .map(|t| {
                (
                    t.file.as_str(),
                    t.name.as_str(),
                    t.status,
                    t.trials.as_ref().map_or(0, |tr| tr.count),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a.yaml", "same", Pass, 1),
                ("b.yaml", "same", Fail, 2),
                ("a.yaml", "dup", Pass, 2),
                ("a.yaml", "dup", Fail, 2),
                ("c.yaml", "late", Pass, 1),
            ]
        );
        assert_eq!(r.summary.duration_ms, 50);
        let rel = r.reliability.unwrap();
        assert_eq!(
            (rel.trials, rel.tests, rel.pass_at_k, rel.pass_hat_k),
            (2, 5, 4, 3)
        );
        assert_eq!(rel.flaky(), 1);
    }

    #[test]
    fn skipped_tests_pass_a_batch_and_errors_fail_it() {
        use TestStatus::*;
        assert!(Pass.is_success() && Skip.is_success());
        assert!(!Fail.is_success() && !Error.is_success());
        assert_eq!(TestStatus::batch_verdict([Pass, Skip]), "pass");
        assert_eq!(TestStatus::batch_verdict([]), "pass");
        assert_eq!(TestStatus::batch_verdict([Pass, Error]), "fail");
    }

    #[test]
    fn one_run_is_not_folded() {
        let r = Results::from_trials(vec![vec![t("a.yaml", "x", Fail, 3)]], 3);
        assert_eq!(r.tests[0].trials, None);
        assert_eq!(r.reliability, None);
        assert!(!r.to_json().contains("trials"));
        assert_eq!(Results::from_trials(Vec::new(), 0).summary.total, 0);
    }

    #[test]
    fn metric_rollups_mean_and_count_in_first_seen_order() {
        let mut a = t("a.yaml", "a", Pass, 1);
        a.derived_metrics = vec![metric("quality", 0.5), metric("brevity", 1.0)];
        let mut b = t("a.yaml", "b", Fail, 1);
        b.derived_metrics = vec![metric("quality", 0.8)];
        let c = t("a.yaml", "c", Pass, 1);
        let r = Results::new(vec![a, b, c], 3);
        assert_eq!(
            r.metric_rollups,
            [
                MetricRollup {
                    name: "quality".into(),
                    mean: 0.65,
                    count: 2
                },
                MetricRollup {
                    name: "brevity".into(),
                    mean: 1.0,
                    count: 1
                }
            ]
        );
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(
            json["metric_rollups"][0],
            serde_json::json!({"name": "quality", "mean": 0.65, "count": 2})
        );
    }

    #[test]
    fn pass_percent_leaves_skipped_tests_out() {
        let r = Results::new(
            vec![
                t("a.yaml", "a", Pass, 1),
                t("a.yaml", "b", Fail, 1),
                t("a.yaml", "c", Skip, 0),
            ],
            1,
        );
        assert_eq!(r.summary.ran(), 2);
        assert_eq!(r.summary.pass_percent(), Some(50.0));
        let skipped = Results::new(vec![t("a.yaml", "c", Skip, 0)], 1);
        assert_eq!(skipped.summary.pass_percent(), None);
    }

    #[test]
    fn documents_without_the_new_fields_still_read_and_gain_them() {
        let old = r#"{"version": 1, "tool": {"name": "mcpcheck", "version": "0.1.0"},
            "summary": {"total": 1, "passed": 1, "failed": 0, "errored": 0, "skipped": 0, "duration_ms": 5},
            "tests": [{"name": "x", "file": "a.yaml", "status": "pass", "duration_ms": 5, "checks": [],
                       "derived_metrics": [{"name": "q", "value": 0.5}]}]}"#;
        let r = Results::from_json(old).unwrap();
        assert_eq!(r.tests[0].trials, None);
        assert_eq!(r.metric_rollups.len(), 1);
        let back = Results::from_json(&r.to_json()).unwrap();
        assert_eq!(back, r);
    }
}
