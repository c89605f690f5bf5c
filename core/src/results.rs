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
//!       "checks": [ { "name": "contains", "status": "fail", "target": "text",
//!                     "matcher": "contains", "expected": "contains 'x'", "actual": "'…'",
//!                     "reason": "expected text to contain 'x'", "weight": 1.0, "line": 5 } ],
//!       "score": 0.75, "threshold": 0.7,
//!       "sets": [ {"name", "score", "threshold", "weight", "passed"} ],
//!       "derived_metrics": [ {"name", "value", "threshold", "passed", "unresolved"} ],
//!       "warnings": ["…"] } ] }
//! ```
//!
//! `status` is `pass`, `fail` (an expectation was false), `error` (could not be
//! evaluated: crash, timeout, transport failure, bad configuration) or `skip`.

use serde::{Deserialize, Serialize, Serializer};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

    pub fn label(self) -> &'static str {
        match self {
            TestStatus::Pass => "PASS",
            TestStatus::Fail => "FAIL",
            TestStatus::Error => "ERROR",
            TestStatus::Skip => "SKIP",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckStatus {
    Pass,
    Fail,
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub name: String,
    pub status: CheckStatus,
    pub target: String,
    pub matcher: String,
    pub expected: String,
    pub actual: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(serialize_with = "ser_round")]
    pub weight: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    pub name: String,
    #[serde(default)]
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub status: TestStatus,
    #[serde(default)]
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default)]
    pub checks: Vec<CheckResult>,
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
    pub sets: Vec<SetResult>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived_metrics: Vec<MetricResult>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
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
                    target: c.check.target.describe(),
                    matcher: c.check.matcher.kind().to_string(),
                    expected: c.outcome.expected.clone(),
                    actual: c.outcome.actual.clone(),
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
        }
    }

    /// A test that did not run.
    pub fn skip(name: &str, file: &str, line: Option<u32>, reason: &str) -> Self {
        TestResult {
            status: TestStatus::Skip,
            ..TestResult::error(name, file, line, reason, 0)
        }
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
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub version: u32,
    pub tool: Tool,
    pub summary: Summary,
    pub tests: Vec<TestResult>,
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
            tests,
        }
    }

    /// Whether every test passed or was skipped.
    pub fn ok(&self) -> bool {
        self.summary.failed == 0 && self.summary.errored == 0
    }

    /// Pretty JSON, keys in a fixed order.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Read a results document back (e.g. for re-rendering).
    pub fn from_json(text: &str) -> Result<Results, String> {
        let r: Results =
            serde_json::from_str(text).map_err(|e| format!("not a results document: {e}"))?;
        if r.version != RESULTS_VERSION {
            return Err(format!(
                "results version {} is not supported (this mcpcheck reads version {RESULTS_VERSION})",
                r.version
            ));
        }
        Ok(r)
    }
}
