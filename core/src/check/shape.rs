//! Matchers over one value's shape: schema, emptiness, order of strings,
//! counts, numbers in range, arrays.

use super::model::{Check, Matcher, Outcome, SHOW, quote};
use crate::path::Path;
use crate::value::{as_number, json_eq, plain, plain_cow, show};
use serde_json::Value;

/// Evaluate a shape matcher against one value.
pub(super) fn eval(check: &Check, path: &Path, v: &Value, expected: String) -> Outcome {
    // The plain text is built only for the matchers that read it.
    let text_cell = std::cell::OnceCell::new();
    let text = || text_cell.get_or_init(|| plain_cow(v)).as_ref();
    let actual = || show(v, SHOW);
    let at = path.as_str();
    let ok = |b: bool, reason: String| {
        if b {
            Outcome::pass(expected.clone(), actual())
        } else {
            Outcome::fail(expected.clone(), actual(), reason)
        }
    };
    match &check.matcher {
        Matcher::Schema(validator) => match validator.validate(v) {
            Ok(()) => Outcome::pass(expected, actual()),
            Err(e) => {
                let where_ = e.instance_path().as_str();
                let where_ = if where_.is_empty() { "/" } else { where_ };
                Outcome::fail(
                    expected,
                    actual(),
                    format!(
                        "{at} does not match the schema at {where_}: {e} (schema path {})",
                        e.schema_path().as_str()
                    ),
                )
            }
        },
        Matcher::NotEmpty => {
            let t = text().trim();
            ok(
                !(t.is_empty() || t == "null" || t == "[]" || t == "{}"),
                format!("expected non-empty result, got: {}", quote(t)),
            )
        }
        Matcher::InOrder(items) => {
            let mut from = 0usize;
            for s in items {
                match text().get(from..).and_then(|rest| rest.find(s.as_str())) {
                    Some(i) => from += i + s.len(),
                    None => {
                        return Outcome::fail(
                            expected,
                            actual(),
                            format!(
                                "in_order: {} not found after position {from} in result",
                                quote(s)
                            ),
                        );
                    }
                }
            }
            Outcome::pass(expected, actual())
        }
        Matcher::ResultCount { .. } | Matcher::NetDelta(_) => eval_text_json(check, v, expected),
        Matcher::Length { min, max, noun } => match v {
            Value::Array(a) => {
                let n = a.len() as u64;
                let plural = |k: u64| {
                    if k == 1 {
                        noun.to_string()
                    } else {
                        format!("{noun}s")
                    }
                };
                if min.is_some() && min == max && Some(n) != *min {
                    let k = min.unwrap_or_default();
                    Outcome::fail(
                        expected,
                        n.to_string(),
                        format!("Expected exactly {k} {}, got {n}", plural(k)),
                    )
                } else if let Some(lo) = min.filter(|lo| n < *lo) {
                    Outcome::fail(
                        expected,
                        n.to_string(),
                        format!("Expected at least {lo} {}, got {n}", plural(lo)),
                    )
                } else if let Some(hi) = max.filter(|hi| n > *hi) {
                    Outcome::fail(
                        expected,
                        n.to_string(),
                        format!("Expected at most {hi} {}, got {n}", plural(hi)),
                    )
                } else {
                    Outcome::pass(expected, n.to_string())
                }
            }
            other => Outcome::fail(
                expected,
                actual(),
                format!("{at} is {}, not an array", crate::value::type_name(other)),
            ),
        },
        Matcher::InRange { min, max, shown } => match as_number(v) {
            None => Outcome::fail(expected, actual(), format!("{at} is not a number")),
            Some(n) => ok(
                min.is_none_or(|lo| n >= lo) && max.is_none_or(|hi| n <= hi),
                match (min, max) {
                    (Some(_), Some(_)) => format!("Value {} is outside range {shown}", plain(v)),
                    (Some(_), None) => format!("Value {} is below the minimum {shown}", plain(v)),
                    (None, _) => format!("Value {} is above the maximum {shown}", plain(v)),
                },
            ),
        },
        Matcher::ArrayContains(values) => match v {
            Value::Array(a) => {
                let missing: Vec<&Value> = values
                    .iter()
                    .filter(|want| !a.iter().any(|x| json_eq(want, x)))
                    .collect();
                if missing.is_empty() {
                    Outcome::pass(expected, actual())
                } else {
                    Outcome::fail(
                        expected,
                        actual(),
                        format!(
                            "Array at {at} is missing {}",
                            missing
                                .iter()
                                .map(|m| show(m, 60))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                }
            }
            other => Outcome::fail(
                expected,
                actual(),
                format!("{at} is {}, not an array", crate::value::type_name(other)),
            ),
        },
        other => Outcome::error(expected, format!("{} cannot be applied here", other.kind())),
    }
}

/// mcp-assert's counts over the text parsed as JSON: `min_results`,
/// `max_results`, `net_delta`.
fn eval_text_json(check: &Check, v: &Value, expected: String) -> Outcome {
    let text = plain_cow(v);
    let text = || text.as_ref();
    let actual = || show(v, SHOW);
    match &check.matcher {
        Matcher::ResultCount { min, max } => {
            let parsed = crate::observation::parse_text_json(text());
            let arr_len = match &parsed {
                Some(Value::Array(a)) => Some(a.len() as u64),
                Some(Value::Object(o)) => {
                    ["locations", "items", "results", "references", "symbols"]
                        .iter()
                        .find_map(|k| o.get(*k).and_then(Value::as_array))
                        .map(|a| a.len() as u64)
                }
                _ => None,
            };
            match arr_len {
                None => Outcome::fail(
                    expected,
                    actual(),
                    "min/max_results: result is not an array or an object with an array field (locations, items, results, references, symbols)".into(),
                ),
                Some(n) => {
                    if let Some(lo) = min.filter(|lo| n < *lo) {
                        Outcome::fail(expected, n.to_string(), format!("expected at least {lo} results, got {n}"))
                    } else if let Some(hi) = max.filter(|hi| n > *hi) {
                        Outcome::fail(expected, n.to_string(), format!("expected at most {hi} results, got {n}"))
                    } else {
                        Outcome::pass(expected, n.to_string())
                    }
                }
            }
        }
        Matcher::NetDelta(want) => {
            let parsed = crate::observation::parse_text_json(text());
            match parsed
                .as_ref()
                .and_then(|p| p.get("net_delta"))
                .and_then(Value::as_f64)
            {
                None => Outcome::fail(
                    expected,
                    actual(),
                    "net_delta: field not found or not a number in result".into(),
                ),
                Some(n) => {
                    let n = n as i64;
                    if n == *want {
                        Outcome::pass(expected, n.to_string())
                    } else {
                        Outcome::fail(
                            expected,
                            n.to_string(),
                            format!("expected net_delta={want}, got {n}"),
                        )
                    }
                }
            }
        }
        other => Outcome::error(expected, format!("{} cannot be applied here", other.kind())),
    }
}
