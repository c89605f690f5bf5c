//! Baselines: a saved record of which tests passed, and what changed since.
//!
//! A baseline file is a versioned JSON document, a subset of the results
//! document, so `--baseline` reads either a saved baseline or the `--json`
//! output of an earlier run:
//!
//! ```json
//! { "version": 1,
//!   "tool": {"name": "mcpcheck", "version": "0.1.0"},
//!   "tests": [ {"file": "evals/echo.yaml", "name": "echo", "status": "pass"},
//!              {"file": "evals/search.yaml", "name": "search", "status": "fail"} ] }
//! ```
//!
//! Tests are keyed by suite file and test name, never the name alone (two
//! files may each hold a test called `lists tools`). File paths compare with
//! `\` read as `/` and a leading `./` dropped; should one file hold two tests
//! of the same name, the first matches the first, the second the second.
//!
//! Comparing a run against a baseline sorts every test into one [`Change`]:
//!
//! | baseline | now              | change                                        |
//! |----------|------------------|-----------------------------------------------|
//! | pass     | fail, error, skip | **regression** (the only one)                |
//! | fail, error | pass          | stale expected failure: update the baseline  |
//! | absent   | anything         | new test (never a regression)                 |
//! | anything | absent           | gone (in the baseline, not in this run)       |
//! | otherwise |                 | unchanged                                     |
//!
//! A test that stopped running (pass → skip) is a regression too: the suite
//! no longer checks what it used to. Only `--fail-on-regression` turns
//! regressions into a failed run; stale, new and gone tests are reported.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::DocError;
use crate::results::{Results, TestStatus, Tool};

pub const BASELINE_VERSION: u32 = 1;

/// One test's recorded status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(default)]
    pub file: String,
    pub name: String,
    pub status: TestStatus,
}

/// A saved baseline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
    pub tests: Vec<Entry>,
}

impl Baseline {
    /// The baseline of a run: every test's file, name and (folded) status.
    pub fn of(results: &Results) -> Baseline {
        Baseline {
            version: BASELINE_VERSION,
            tool: Some(results.tool.clone()),
            tests: results
                .tests
                .iter()
                .map(|t| Entry {
                    file: t.file.clone(),
                    name: t.name.clone(),
                    status: t.status,
                })
                .collect(),
        }
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Read a baseline, or a results document used as one.
    pub fn from_json(text: &str) -> Result<Baseline, DocError> {
        let b: Baseline = serde_json::from_str(text)
            .map_err(|e| DocError::not_a("a baseline or results document", &e))?;
        if b.version != BASELINE_VERSION {
            return Err(DocError::Version {
                what: "baseline",
                found: b.version,
                reads: BASELINE_VERSION,
            });
        }
        Ok(b)
    }
}

/// Where a test is: its suite file and name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TestKey {
    pub file: String,
    pub name: String,
}

/// A test whose status moved between the baseline and this run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub file: String,
    pub name: String,
    pub was: TestStatus,
    pub now: TestStatus,
}

/// How one test changed; see the table in the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Regression,
    StaleExpectedFailure,
    New,
    Gone,
    Unchanged,
}

/// The change for one test: its baseline status (`None`: not in the
/// baseline) and its status now (`None`: not in this run).
pub fn classify(was: Option<TestStatus>, now: Option<TestStatus>) -> Change {
    use TestStatus::*;
    match (was, now) {
        (None, Some(_)) => Change::New,
        (Some(_), None) => Change::Gone,
        (None, None) => Change::Unchanged,
        (Some(Pass), Some(Fail | Error | Skip)) => Change::Regression,
        (Some(Fail | Error), Some(Pass)) => Change::StaleExpectedFailure,
        (Some(_), Some(_)) => Change::Unchanged,
    }
}

/// What changed between a baseline and a run, each list in run order
/// (`gone` in baseline order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// Passed in the baseline, does not pass now.
    pub regressions: Vec<Transition>,
    /// Did not pass in the baseline (an expected failure), passes now.
    pub stale: Vec<Transition>,
    /// In this run, not in the baseline.
    pub new_tests: Vec<TestKey>,
    /// In the baseline, not in this run.
    pub gone: Vec<TestKey>,
}

impl Comparison {
    pub fn has_regressions(&self) -> bool {
        !self.regressions.is_empty()
    }

    /// Nothing worth reporting.
    pub fn is_quiet(&self) -> bool {
        self.regressions.is_empty()
            && self.stale.is_empty()
            && self.new_tests.is_empty()
            && self.gone.is_empty()
    }
}

/// A file path as baselines compare it: `\` as `/`, no leading `./`.
pub fn normalize_file(file: &str) -> String {
    let mut f = file.replace('\\', "/");
    while let Some(rest) = f.strip_prefix("./") {
        f = rest.to_string();
    }
    f
}

type Key = (String, String, usize);

/// Keys for a list of (file, name): normalized file, name, and which
/// occurrence of that pair this is.
fn keys<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Key> {
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    items
        .map(|(file, name)| {
            let pair = (normalize_file(file), name.to_string());
            let n = seen.entry(pair.clone()).or_insert(0);
            let key = (pair.0, pair.1, *n);
            *n += 1;
            key
        })
        .collect()
}

/// Compare a run against a baseline.
pub fn compare(baseline: &Baseline, results: &Results) -> Comparison {
    let base_keys = keys(
        baseline
            .tests
            .iter()
            .map(|e| (e.file.as_str(), e.name.as_str())),
    );
    let run_keys = keys(
        results
            .tests
            .iter()
            .map(|t| (t.file.as_str(), t.name.as_str())),
    );
    let mut was: HashMap<&Key, TestStatus> = HashMap::new();
    for (k, e) in base_keys.iter().zip(&baseline.tests) {
        was.insert(k, e.status);
    }
    let now: HashMap<&Key, TestStatus> = run_keys
        .iter()
        .zip(&results.tests)
        .map(|(k, t)| (k, t.status))
        .collect();
    let mut c = Comparison::default();
    for (k, t) in run_keys.iter().zip(&results.tests) {
        let before = was.get(k).copied();
        let transition = || Transition {
            file: t.file.clone(),
            name: t.name.clone(),
            was: before.unwrap_or(t.status),
            now: t.status,
        };
        match classify(before, Some(t.status)) {
            Change::Regression => c.regressions.push(transition()),
            Change::StaleExpectedFailure => c.stale.push(transition()),
            Change::New => c.new_tests.push(TestKey {
                file: t.file.clone(),
                name: t.name.clone(),
            }),
            Change::Gone | Change::Unchanged => {}
        }
    }
    for (k, e) in base_keys.iter().zip(&baseline.tests) {
        if classify(Some(e.status), now.get(k).copied()) == Change::Gone {
            c.gone.push(TestKey {
                file: e.file.clone(),
                name: e.name.clone(),
            });
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TestResult;
    use TestStatus::*;

    fn test(file: &str, name: &str, status: TestStatus) -> TestResult {
        let mut t = TestResult::error(name, file, Some(1), "", 1);
        t.status = status;
        t
    }

    /// Every (baseline, now) pair, including absent on either side.
    #[test]
    fn transition_table() {
        let all = [None, Some(Pass), Some(Fail), Some(Error), Some(Skip)];
        let want = |was: Option<TestStatus>, now: Option<TestStatus>| match (was, now) {
            (None, Some(_)) => Change::New,
            (Some(_), None) => Change::Gone,
            (Some(Pass), Some(Fail)) | (Some(Pass), Some(Error)) | (Some(Pass), Some(Skip)) => {
                Change::Regression
            }
            (Some(Fail), Some(Pass)) | (Some(Error), Some(Pass)) => Change::StaleExpectedFailure,
            _ => Change::Unchanged,
        };
        let mut rows = 0;
        for was in all {
            for now in all {
                assert_eq!(classify(was, now), want(was, now), "{was:?} -> {now:?}");
                rows += 1;
            }
        }
        assert_eq!(rows, 25);
        // The rows that matter, spelled out.
        assert_eq!(classify(Some(Pass), Some(Fail)), Change::Regression);
        assert_eq!(classify(Some(Pass), Some(Skip)), Change::Regression);
        assert_eq!(classify(Some(Fail), Some(Fail)), Change::Unchanged);
        assert_eq!(classify(Some(Fail), Some(Error)), Change::Unchanged);
        assert_eq!(classify(Some(Skip), Some(Pass)), Change::Unchanged);
        assert_eq!(classify(Some(Skip), Some(Fail)), Change::Unchanged);
        assert_eq!(classify(None, Some(Fail)), Change::New);
        assert_eq!(
            classify(Some(Error), Some(Pass)),
            Change::StaleExpectedFailure
        );
    }

    fn run(tests: Vec<TestResult>) -> Results {
        Results::new(tests, 10)
    }

    #[test]
    fn compares_by_file_and_name_not_name_alone() {
        let base = Baseline::of(&run(vec![
            test("a.yaml", "lists tools", Pass),
            test("b.yaml", "lists tools", Fail),
        ]));
        // Same names, swapped outcomes: a.yaml regressed, b.yaml is stale.
        let now = run(vec![
            test("a.yaml", "lists tools", Fail),
            test("b.yaml", "lists tools", Pass),
        ]);
        let c = compare(&base, &now);
        assert_eq!(
            c.regressions,
            vec![Transition {
                file: "a.yaml".into(),
                name: "lists tools".into(),
                was: Pass,
                now: Fail
            }]
        );
        assert_eq!(
            c.stale,
            vec![Transition {
                file: "b.yaml".into(),
                name: "lists tools".into(),
                was: Fail,
                now: Pass
            }]
        );
        assert!(c.new_tests.is_empty() && c.gone.is_empty());
    }

    #[test]
    fn new_and_gone_tests_are_not_regressions() {
        let base = Baseline::of(&run(vec![
            test("a.yaml", "old", Pass),
            test("a.yaml", "kept", Pass),
        ]));
        let now = run(vec![
            test("a.yaml", "kept", Pass),
            test("a.yaml", "new and failing", Fail),
            // The same name in another file is another test.
            test("c.yaml", "old", Fail),
        ]);
        let c = compare(&base, &now);
        assert!(c.regressions.is_empty(), "{c:?}");
        assert_eq!(
            c.new_tests,
            vec![
                TestKey {
                    file: "a.yaml".into(),
                    name: "new and failing".into()
                },
                TestKey {
                    file: "c.yaml".into(),
                    name: "old".into()
                }
            ]
        );
        assert_eq!(
            c.gone,
            vec![TestKey {
                file: "a.yaml".into(),
                name: "old".into()
            }]
        );
        assert!(!c.has_regressions() && !c.is_quiet());
    }

    #[test]
    fn file_paths_compare_normalized() {
        let base = Baseline::of(&run(vec![test("./evals\\a.yaml", "t", Pass)]));
        let now = run(vec![test("evals/a.yaml", "t", Error)]);
        let c = compare(&base, &now);
        assert_eq!(c.regressions.len(), 1);
        assert!(c.new_tests.is_empty() && c.gone.is_empty());
        assert_eq!(normalize_file("././x/y.yaml"), "x/y.yaml");
    }

    #[test]
    fn duplicate_names_in_one_file_match_by_occurrence() {
        let base = Baseline::of(&run(vec![
            test("a.yaml", "dup", Pass),
            test("a.yaml", "dup", Fail),
        ]));
        let now = run(vec![
            test("a.yaml", "dup", Pass),
            test("a.yaml", "dup", Pass),
        ]);
        let c = compare(&base, &now);
        assert!(c.regressions.is_empty());
        assert_eq!(c.stale.len(), 1);
    }

    #[test]
    fn round_trips_and_reads_a_results_document() {
        let r = run(vec![test("a.yaml", "x", Pass), test("a.yaml", "y", Skip)]);
        let b = Baseline::of(&r);
        assert_eq!(Baseline::from_json(&b.to_json()), Ok(b.clone()));
        // A results document is a baseline too.
        let from_results = Baseline::from_json(&r.to_json()).unwrap();
        assert_eq!(from_results.tests, b.tests);
        assert!(compare(&from_results, &r).is_quiet());
    }

    #[test]
    fn rejects_other_versions_and_non_baselines() {
        let err = Baseline::from_json(r#"{"version": 2, "tests": []}"#).unwrap_err();
        assert_eq!(
            err,
            DocError::Version {
                what: "baseline",
                found: 2,
                reads: 1
            }
        );
        assert_eq!(
            err.to_string(),
            "baseline version 2 is not supported (this mcpcheck reads version 1)"
        );
        let err = Baseline::from_json("[1, 2]").unwrap_err();
        assert!(matches!(err, DocError::NotA { .. }), "{err}");
        assert!(err.to_string().starts_with("not a baseline"), "{err}");
        let err =
            Baseline::from_json(r#"{"version": 1, "tests": [{"name": "x", "status": "maybe"}]}"#)
                .unwrap_err();
        assert!(err.to_string().contains("maybe"), "{err}");
    }
}
