//! Scoring: from the outcomes of a test's checks to the test's verdict.
//!
//! The rules (suite composition):
//!
//! * Each top-level item is a check or an assert-set. A set passes when its
//!   weighted pass-fraction reaches its threshold; it then counts as one item
//!   of its weight.
//! * Without a test `threshold`, every item must pass.
//! * With a `threshold`, the combined score — the weighted pass-fraction of
//!   the items, `sum(weight of passing) / sum(weights)` — must reach it
//!   (inclusive). The score is reported only for tests with a threshold.
//! * Scores meet thresholds as reported, rounded to three decimals (see
//!   [`reaches`]).
//! * Derived metrics aggregate named check scores (1 or 0), set scores (their
//!   pass-fraction) and earlier metrics, by `weighted_sum` or
//!   `weighted_average`; a metric with a threshold below it fails the test
//!   even when the combined score is met. A name that matches nothing scores 0
//!   and is listed as unresolved.
//! * A check that could not be evaluated (a needed input was missing) makes
//!   the test an `error`, not a `fail`.

use serde_json::Value;

use crate::check::{Check, EvalCx, Facts, Outcome, Status, evaluate_in};
use crate::expect::{Expectations, Item};

/// Tolerance for comparing a rounded score with a threshold.
const EPSILON: f64 = 1e-9;

/// Whether a score reaches a threshold. Scores are compared as they are
/// reported, rounded to three decimals, so 2/3 (reported 0.667) reaches a
/// 0.667 threshold and a failure never reads "0.667 is below 0.667".
pub fn reaches(score: f64, threshold: f64) -> bool {
    round3(score) + EPSILON >= threshold
}

/// The outcome of one check, with what identifies it in reports.
#[derive(Clone, Debug)]
pub struct CheckReport {
    pub check: Check,
    /// The assert-set the check belongs to, if any.
    pub set: Option<String>,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SetReport {
    pub name: String,
    pub score: f64,
    pub threshold: f64,
    pub weight: f64,
    pub passed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetricReport {
    pub name: String,
    pub value: f64,
    pub threshold: Option<f64>,
    /// Present when the metric has a threshold.
    pub passed: Option<bool>,
    /// Referenced names that matched nothing (scored 0).
    pub unresolved: Vec<String>,
}

/// A test's verdict before it is dressed as a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    Error,
}

#[derive(Clone, Debug)]
pub struct Scored {
    pub verdict: Verdict,
    pub checks: Vec<CheckReport>,
    pub sets: Vec<SetReport>,
    /// The combined score, when the test has a threshold.
    pub score: Option<f64>,
    pub threshold: Option<f64>,
    pub metrics: Vec<MetricReport>,
}

impl Scored {
    /// One line saying why the test did not pass (empty when it passed).
    pub fn summary(&self) -> String {
        match self.verdict {
            Verdict::Pass => String::new(),
            Verdict::Error => self
                .checks
                .iter()
                .find(|c| c.outcome.status == Status::Error)
                .map(|c| c.outcome.reason.clone())
                .unwrap_or_default(),
            Verdict::Fail => {
                let failed: Vec<&CheckReport> = self
                    .checks
                    .iter()
                    .filter(|c| c.outcome.status == Status::Fail)
                    .collect();
                let mut parts = Vec::new();
                if let (Some(s), Some(t)) = (self.score, self.threshold)
                    && !reaches(s, t)
                {
                    parts.push(format!(
                        "score {} is below the threshold {}",
                        round3(s),
                        round3(t)
                    ));
                }
                for m in &self.metrics {
                    if m.passed == Some(false) {
                        parts.push(format!(
                            "metric {} = {} is below its threshold {}",
                            m.name,
                            round3(m.value),
                            round3(m.threshold.unwrap_or_default())
                        ));
                    }
                }
                if parts.is_empty() || self.threshold.is_none() {
                    // Every failing check by its reason, so the message
                    // alone (a JUnit failure, an assertion error) says all
                    // that went wrong.
                    let reasons = failed.iter().map(|c| c.outcome.reason.clone());
                    parts.splice(0..0, reasons);
                    for s in &self.sets {
                        if !s.passed && failed.iter().all(|c| c.set.as_deref() != Some(&s.name)) {
                            parts.push(format!("assert-set {} scored {}", s.name, round3(s.score)));
                        }
                    }
                }
                parts.join("; ")
            }
        }
    }
}

/// Round to three decimals, as scores are reported (2/3 → 0.667).
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn fraction(pairs: impl Iterator<Item = (f64, bool)>) -> f64 {
    let (mut total, mut passing) = (0.0, 0.0);
    for (w, ok) in pairs {
        total += w;
        if ok {
            passing += w;
        }
    }
    if total <= 0.0 { 1.0 } else { passing / total }
}

/// Evaluate every check and decide the test's verdict.
pub fn score(exp: &Expectations, obs: &Value, facts: &Facts) -> Scored {
    let ctx = EvalCx::new(obs, facts);
    let mut checks = Vec::new();
    let mut sets = Vec::new();
    // (weight, passed) of each top-level item.
    let mut items: Vec<(f64, bool)> = Vec::new();
    // Scores by name, for derived metrics.
    let mut named: Vec<(String, f64)> = Vec::new();
    for item in &exp.items {
        match item {
            Item::Check(c) => {
                let outcome = evaluate_in(c, &ctx);
                let ok = outcome.status == Status::Pass;
                items.push((c.weight, ok));
                if c.named {
                    named.push((c.name.clone(), if ok { 1.0 } else { 0.0 }));
                }
                checks.push(CheckReport {
                    check: c.clone(),
                    set: None,
                    outcome,
                });
            }
            Item::Set(s) => {
                let mut inner = Vec::new();
                for c in &s.checks {
                    let outcome = evaluate_in(c, &ctx);
                    let ok = outcome.status == Status::Pass;
                    inner.push((c.weight, ok));
                    if c.named {
                        named.push((c.name.clone(), if ok { 1.0 } else { 0.0 }));
                    }
                    checks.push(CheckReport {
                        check: c.clone(),
                        set: Some(s.name.clone()),
                        outcome,
                    });
                }
                let set_score = fraction(inner.into_iter());
                let passed = reaches(set_score, s.threshold);
                named.push((s.name.clone(), set_score));
                items.push((s.weight, passed));
                sets.push(SetReport {
                    name: s.name.clone(),
                    score: set_score,
                    threshold: s.threshold,
                    weight: s.weight,
                    passed,
                });
            }
        }
    }

    let mut metrics = Vec::new();
    for d in &exp.derived {
        let mut unresolved = Vec::new();
        let mut sum = 0.0;
        let mut weights = 0.0;
        for r in &d.refs {
            let s = match named.iter().rev().find(|(n, _)| *n == r.name) {
                Some((_, s)) => *s,
                None => {
                    unresolved.push(r.name.clone());
                    0.0
                }
            };
            sum += r.weight * s;
            weights += r.weight;
        }
        let value = if d.average {
            if weights > 0.0 { sum / weights } else { 0.0 }
        } else {
            sum
        };
        named.push((d.name.clone(), value));
        metrics.push(MetricReport {
            name: d.name.clone(),
            value,
            threshold: d.threshold,
            passed: d.threshold.map(|t| reaches(value, t)),
            unresolved,
        });
    }

    let errored = checks.iter().any(|c| c.outcome.status == Status::Error);
    let combined = fraction(items.iter().copied());
    let items_ok = match exp.threshold {
        Some(t) => reaches(combined, t),
        None => items.iter().all(|(_, ok)| *ok),
    };
    let metrics_ok = metrics.iter().all(|m| m.passed != Some(false));
    let verdict = if errored {
        Verdict::Error
    } else if items_ok && metrics_ok {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    Scored {
        verdict,
        checks,
        sets,
        score: exp.threshold.map(|_| combined),
        threshold: exp.threshold,
        metrics,
    }
}
