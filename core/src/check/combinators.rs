//! Checks over other checks: `one_of` alternatives and `if_*` conditions.

use super::model::{Check, Condition, Outcome, Status};
use super::{EvalCx, evaluate_in};
use serde_json::Value;

/// `one_of`: one passing alternative decides; an alternative that could not
/// be evaluated only matters when none passes.
pub(super) fn one_of(alts: &[Vec<Check>], cx: &EvalCx<'_>, expected: String) -> Outcome {
    // One passing alternative decides; an alternative that could not
    // be evaluated only matters when none passes.
    let mut reasons = Vec::new();
    let mut undecided = None;
    for alt in alts {
        let outs: Vec<Outcome> = alt.iter().map(|c| evaluate_in(c, cx)).collect();
        if outs.iter().all(|o| o.status == Status::Pass) {
            return Outcome::pass(expected, "an alternative passed".into());
        }
        if let Some(e) = outs.iter().find(|o| o.status == Status::Error) {
            undecided.get_or_insert_with(|| e.reason.clone());
            continue;
        }
        reasons.push(
            outs.iter()
                .filter(|o| o.status != Status::Pass)
                .map(|o| o.reason.clone())
                .collect::<Vec<_>>()
                .join(" and "),
        );
    }
    if let Some(reason) = undecided {
        return Outcome::error(expected, reason);
    }
    Outcome::fail(
        expected,
        "no alternative passed".into(),
        format!("None of the alternatives passed: {}", reasons.join("; ")),
    )
}

/// `if_*`: when the condition holds, every nested check must pass.
pub(super) fn when(
    condition: &Condition,
    then: &[Check],
    cx: &EvalCx<'_>,
    expected: String,
) -> Outcome {
    if !condition_holds(condition, cx.json()) {
        return Outcome::pass(expected, format!("skipped: not ({})", condition.describe()));
    }
    let outs: Vec<Outcome> = then.iter().map(|c| evaluate_in(c, cx)).collect();
    if let Some(e) = outs.iter().find(|o| o.status == Status::Error) {
        return Outcome::error(expected, e.reason.clone());
    }
    let failed: Vec<&Outcome> = outs.iter().filter(|o| o.status == Status::Fail).collect();
    if failed.is_empty() {
        Outcome::pass(expected, "all nested checks passed".into())
    } else {
        Outcome::fail(
            expected,
            failed
                .iter()
                .map(|o| o.actual.clone())
                .collect::<Vec<_>>()
                .join("; "),
            failed
                .iter()
                .map(|o| o.reason.clone())
                .collect::<Vec<_>>()
                .join("; "),
        )
    }
}

fn condition_holds(c: &Condition, json: &Value) -> bool {
    match c {
        Condition::HasResults => json
            .get("results")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty()),
        Condition::HasHistory => json.get("history_results").is_some_and(|v| !v.is_null()),
        Condition::SensitiveResults => {
            json.get("results")
                .and_then(Value::as_array)
                .is_some_and(|a| {
                    a.iter().any(|r| {
                        r.get("file").and_then(Value::as_str).is_some_and(|f| {
                            f.starts_with("people/") || f.starts_with("documents/")
                        })
                    })
                })
        }
    }
}
