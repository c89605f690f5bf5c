//! Matching the values a path selected: presence, flags, and the dispatch
//! to the family evaluators.

use super::model::{Check, Matcher, Outcome, SHOW, Wording};
use super::{EvalCx, Loc, Pairs, nothing_at, single};
use crate::path::Path;
use crate::value::{plain, show, show_json};
use serde_json::Value;

/// Evaluate a check over the values its path selected.
pub(super) fn eval_values(
    check: &Check,
    path: &Path,
    found: Pairs<'_>,
    cx: &EvalCx<'_>,
    expected: String,
) -> Outcome {
    let facts = cx.facts;
    let m = &check.matcher;
    match m {
        Matcher::Exists
        | Matcher::Absent
        | Matcher::NotTrue
        | Matcher::IsTrue
        | Matcher::Unmet { .. }
        | Matcher::NoRpcError => eval_flag(check, path, &found, expected),
        Matcher::NotificationCount { .. }
        | Matcher::NotificationMethod { .. }
        | Matcher::NotificationData { .. }
        | Matcher::LogLevel(_)
        | Matcher::ResourceUpdated { .. } => {
            let list: Vec<&Value> = match found.as_slice() {
                [(Value::Array(a), _)] => a.iter().collect(),
                many => many.iter().map(|(v, _)| *v).collect(),
            };
            super::notifications::eval(m, &list, facts, expected)
        }
        Matcher::AllEqual(_)
        | Matcher::AllOneOf(_)
        | Matcher::AllRegex(_)
        | Matcher::NoneRegex(_)
        | Matcher::AllInRange { .. }
        | Matcher::SortedDesc
        | Matcher::DatesBetween { .. }
        | Matcher::DatesWithinDays(_) => {
            let items: Pairs<'_> = if path.is_plural() {
                found
            } else {
                match found.as_slice() {
                    [(Value::Array(a), Loc::At(f))] => a
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v, Loc::Element(f, i)))
                        .collect(),
                    _ => found,
                }
            };
            if items.is_empty() && !path.is_plural() {
                return nothing_at(path, expected);
            }
            super::quantifier::eval(m, path, &items, facts, expected)
        }
        Matcher::Tags { rule, tags } => super::tags::eval(*rule, tags, &found, path, expected),
        Matcher::TraceOrder(_)
        | Matcher::TracePresence(_)
        | Matcher::TraceAbsence(_)
        | Matcher::TraceArgs { .. } => {
            let entries: Vec<&Value> = match found.as_slice() {
                [(Value::Array(a), _)] => a.iter().collect(),
                _ => Vec::new(),
            };
            super::trajectory::eval(m, &entries, expected)
        }
        Matcher::OneOf(alts) => super::combinators::one_of(alts, cx, expected),
        Matcher::When { condition, then } => {
            super::combinators::when(condition, then, cx, expected)
        }
        _ => match single(&found) {
            None => {
                if matches!(m, Matcher::NotContains(_) | Matcher::NotRegex(_)) {
                    Outcome::pass(expected, "nothing".into())
                } else {
                    nothing_at(path, expected)
                }
            }
            Some(v) => eval_one(check, path, v.as_ref(), expected),
        },
    }
}

/// Presence, booleans, and the answer's error.
fn eval_flag(check: &Check, path: &Path, found: &Pairs<'_>, expected: String) -> Outcome {
    match &check.matcher {
        Matcher::Exists => {
            if found.is_empty() {
                Outcome::fail(
                    expected,
                    "missing".into(),
                    format!("Missing field: {}", path.as_str()),
                )
            } else {
                Outcome::pass(expected, "present".into())
            }
        }
        Matcher::Absent => match single(found).as_deref() {
            None | Some(Value::Null) => Outcome::pass(expected, "absent".into()),
            Some(v) => Outcome::fail(
                expected,
                show(v, SHOW),
                format!("{} is present", path.as_str()),
            ),
        },
        Matcher::NotTrue => {
            let v = single(found);
            match v.as_deref() {
                Some(Value::Bool(true)) => Outcome::fail(
                    expected,
                    "true".into(),
                    if check.wording == Wording::NotError {
                        "expected no error but tool returned isError=true".into()
                    } else {
                        format!("{} is true", path.as_str())
                    },
                ),
                other => Outcome::pass(
                    expected,
                    other
                        .map(|v| show(v, SHOW))
                        .unwrap_or_else(|| "absent".into()),
                ),
            }
        }
        Matcher::IsTrue => match single(found).as_deref() {
            Some(Value::Bool(true)) => Outcome::pass(expected, "true".into()),
            other => Outcome::fail(
                expected,
                other
                    .map(|v| show(v, SHOW))
                    .unwrap_or_else(|| "absent".into()),
                if check.wording == Wording::IsError {
                    "expected error but tool returned isError=false".into()
                } else {
                    format!("{} is not true", path.as_str())
                },
            ),
        },
        Matcher::Unmet { reason, .. } => Outcome::fail(expected, "nothing".into(), reason.clone()),
        Matcher::NoRpcError => match single(found).as_deref() {
            None | Some(Value::Null) => Outcome::pass(expected, "a result".into()),
            Some(err) => {
                let code = err.get("code").map(plain).unwrap_or_default();
                let msg = err.get("message").map(plain).unwrap_or_default();
                // `data` often says what went wrong; quoted, trimmed.
                let data = err
                    .get("data")
                    .filter(|d| !d.is_null())
                    .map(|d| format!(" (data: {})", show_json(d, SHOW)))
                    .unwrap_or_default();
                Outcome::fail(
                    expected,
                    show_json(err, SHOW),
                    format!("the server answered with JSON-RPC error {code}: {msg}{data}"),
                )
            }
        },
        other => Outcome::error(expected, format!("{} cannot be applied here", other.kind())),
    }
}

/// One value for a matcher of the text or shape family.
fn eval_one(check: &Check, path: &Path, v: &Value, expected: String) -> Outcome {
    match &check.matcher {
        Matcher::Exact(_)
        | Matcher::TextEquals(_)
        | Matcher::Snapshot(_)
        | Matcher::NoToolError
        | Matcher::PlainEquals(_)
        | Matcher::Contains(_)
        | Matcher::IContains(_)
        | Matcher::NotContains(_)
        | Matcher::ContainsAny(_)
        | Matcher::Regex(_)
        | Matcher::NotRegex(_) => super::text::eval(check, path, v, expected),
        _ => super::shape::eval(check, path, v, expected),
    }
}
