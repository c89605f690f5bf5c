//! Notifications that arrived during the exchange: counts, methods, data,
//! log levels, resource updates.

use super::model::{Facts, Matcher, Outcome, SHOW, quote};
use crate::value::{json_eq, plain, truncate};
use serde_json::Value;

pub(super) fn eval(m: &Matcher, list: &[&Value], facts: &Facts, expected: String) -> Outcome {
    let method_of = |n: &Value| n.get("method").and_then(Value::as_str).map(str::to_string);
    match m {
        Matcher::NotificationCount {
            method,
            own_progress,
            min,
            max,
            noun,
        } => {
            let count = list
                .iter()
                .filter(|n| {
                    method
                        .as_ref()
                        .is_none_or(|mm| method_of(n).as_deref() == Some(mm))
                })
                .filter(|n| {
                    !own_progress
                        || facts.progress_token.as_ref().is_none_or(|t| {
                            n.pointer("/params/progressToken")
                                .is_some_and(|pt| json_eq(pt, t))
                        })
                })
                .count() as u64;
            if let Some(lo) = min.filter(|lo| count < *lo) {
                Outcome::fail(
                    expected,
                    count.to_string(),
                    format!("expected at least {lo} {noun}, got {count}"),
                )
            } else if let Some(hi) = max.filter(|hi| count > *hi) {
                Outcome::fail(
                    expected,
                    count.to_string(),
                    format!("expected at most {hi} {noun}, got {count}"),
                )
            } else {
                Outcome::pass(expected, count.to_string())
            }
        }
        Matcher::NotificationMethod { method, present } => {
            let seen = list.iter().any(|n| method_of(n).as_deref() == Some(method));
            let methods: Vec<String> = list.iter().filter_map(|n| method_of(n)).collect();
            let actual = format!("[{}]", methods.join(", "));
            match (seen, present) {
                (true, true) | (false, false) => Outcome::pass(expected, actual),
                (false, true) => Outcome::fail(
                    expected,
                    actual,
                    format!("expected notification method '{method}' but it was not received"),
                ),
                (true, false) => Outcome::fail(
                    expected,
                    actual,
                    format!("notification method '{method}' was received but should not have been"),
                ),
            }
        }
        Matcher::NotificationData {
            needle,
            present,
            log_data,
        } => {
            let texts: Vec<String> = list
                .iter()
                .filter(|n| !log_data || method_of(n).as_deref() == Some("notifications/message"))
                .map(|n| {
                    if *log_data {
                        n.pointer("/params/data").map(plain).unwrap_or_default()
                    } else {
                        n.get("params").map(|p| p.to_string()).unwrap_or_default()
                    }
                })
                .collect();
            let hit = texts.iter().any(|t| t.contains(needle.as_str()));
            let actual = truncate(&texts.join(" | "), SHOW);
            match (hit, present, log_data) {
                (true, true, _) | (false, false, _) => Outcome::pass(expected, actual),
                (false, true, true) => Outcome::fail(
                    expected,
                    actual,
                    format!("expected log data containing {}, not found", quote(needle)),
                ),
                (false, true, false) => Outcome::fail(
                    expected,
                    actual,
                    format!("no notification params contain {}", quote(needle)),
                ),
                (true, false, _) => Outcome::fail(
                    expected,
                    actual,
                    format!(
                        "notification params contain {} but should not",
                        quote(needle)
                    ),
                ),
            }
        }
        Matcher::LogLevel(level) => {
            let levels: Vec<String> = list
                .iter()
                .filter(|n| method_of(n).as_deref() == Some("notifications/message"))
                .filter_map(|n| n.pointer("/params/level").map(plain))
                .collect();
            let actual = format!("[{}]", levels.join(", "));
            if levels.iter().any(|l| l == level) {
                Outcome::pass(expected, actual)
            } else {
                Outcome::fail(
                    expected,
                    actual,
                    format!("expected log message at level '{level}', not found"),
                )
            }
        }
        Matcher::ResourceUpdated {
            uri,
            expected: want,
        } => resource_updated(uri.as_deref(), *want, list, facts, expected),
        other => Outcome::error(
            expected,
            format!("{} is not about notifications", other.kind()),
        ),
    }
}

/// A `notifications/resources/updated` for the URI (as sent, when the caller
/// gives it) arrived, or, when `want` is false, none did.
fn resource_updated(
    uri: Option<&str>,
    want: bool,
    list: &[&Value],
    facts: &Facts,
    expected: String,
) -> Outcome {
    let method_of = |n: &Value| n.get("method").and_then(Value::as_str).map(str::to_string);
    let updates: Vec<String> = list
        .iter()
        .filter(|n| method_of(n).as_deref() == Some("notifications/resources/updated"))
        .filter_map(|n| n.pointer("/params/uri").map(plain))
        .collect();
    let uri = uri.map(|w| facts.subscribed_uri.as_deref().unwrap_or(w));
    let hit = updates.iter().any(|u| uri.is_none_or(|w| w == u));
    let actual = format!("[{}]", updates.join(", "));
    let what = uri.unwrap_or("the resource");
    match (hit, &want) {
        (true, true) | (false, false) => Outcome::pass(expected, actual),
        (false, true) => Outcome::fail(
            expected,
            actual,
            format!("expected a resources/updated notification for {what}, none arrived"),
        ),
        (true, false) => Outcome::fail(
            expected,
            actual,
            format!("a resources/updated notification for {what} arrived but none was expected"),
        ),
    }
}
