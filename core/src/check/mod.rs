//! Checks: one target, one matcher, a weight and a name.
//!
//! Every way of writing an expectation — mcp-assert's `expect` map, the JSON
//! assertion vocabulary, list-form `{target, matcher}` items — compiles into
//! [`Check`]s (see `crate::expect`). This module evaluates one check against
//! an Observation and says pass, fail or error, with expected, actual and a
//! one-line reason.
//!
//! A target selects values from the Observation with a [`Path`]. Unless the
//! matcher is a quantifier, zero values is a failure ("nothing at …"), one
//! value is matched as is, and several values are matched as the array of
//! them. String matchers look at a value's plain string form (see
//! `crate::value::plain`).

mod combinators;
mod context;
mod dates;
mod files;
mod model;
mod notifications;
mod quantifier;
mod shape;
mod tags;
mod text;
mod trajectory;
mod values;

use std::borrow::Cow;

use serde_json::Value;

pub use context::EvalCx;
pub use dates::parse_date;
#[cfg(test)]
pub use model::ACTUAL_VALUE_BYTES;
pub use model::{
    Check, Condition, Each, Facts, Matcher, Outcome, SHOW, Status, TagRule, Target, Wording,
};

use crate::path::{Found, Path};
use crate::value::truncate;

/// Evaluate one check against an Observation (the tests' shorthand for
/// [`evaluate_in`] with a fresh context).
#[cfg(test)]
pub fn evaluate(check: &Check, obs: &Value, facts: &Facts) -> Outcome {
    evaluate_in(check, &EvalCx::new(obs, facts))
}

/// Evaluate one check in a shared context (see [`EvalCx`]).
pub fn evaluate_in(check: &Check, cx: &EvalCx<'_>) -> Outcome {
    with_error_text(check, cx.obs, evaluate_target(check, cx))
}

/// How much of a tool's error text a failing `not_error` quotes.
const ERROR_TEXT: usize = 300;

/// A failing `not_error` says what the tool answered: mcp-assert's words,
/// then the tool's error text on one line, trimmed. Without it a report says
/// only that the tool failed, and the reason is in a capture.
fn with_error_text(check: &Check, obs: &Value, mut outcome: Outcome) -> Outcome {
    if check.wording != Wording::NotError || outcome.status != Status::Fail {
        return outcome;
    }
    let text = obs.get("text").and_then(Value::as_str).unwrap_or_default();
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if !line.is_empty() {
        outcome.reason = format!("{}: {}", outcome.reason, truncate(&line, ERROR_TEXT));
        outcome.actual = format!("isError=true: {}", truncate(&line, SHOW));
    }
    outcome
}

/// The evaluation proper: the target's values, then the matcher; the
/// outcome keeps what the target selected as its actual value.
fn evaluate_target(check: &Check, cx: &EvalCx<'_>) -> Outcome {
    let (obs, facts) = (cx.obs, cx.facts);
    let expected = check.matcher.expected();
    match &check.target {
        Target::File(path) => {
            let mut outcome = files::eval(&check.matcher, path, expected, facts);
            let content = facts.files.get(path).cloned().flatten().map(Value::String);
            outcome.actual_value = model::actual_value(&[content.as_ref().unwrap_or(&Value::Null)]);
            outcome
        }
        Target::Doc(path) => {
            let found = cx.find(path);
            let mut outcome = values::eval_values(check, path, found_pairs(&found), cx, expected);
            outcome.actual_value = actual_of(&found);
            outcome
        }
        Target::Each(each) => {
            let Each { path, items, field } = each.as_ref();
            let containers = cx.find(items);
            match containers.as_slice() {
                [] => nothing_at(items, expected),
                [c] if c.value.is_array() => {
                    let mut outcome =
                        quantifier::eval_each(&check.matcher, path, c, field, facts, expected);
                    outcome.actual_value = actual_of(&cx.find(path));
                    outcome
                }
                // Not one array (e.g. an object): select with the whole path.
                _ => {
                    let found = cx.find(path);
                    let mut outcome =
                        values::eval_values(check, path, found_pairs(&found), cx, expected);
                    outcome.actual_value = actual_of(&found);
                    outcome
                }
            }
        }
        Target::TextJson(path) => match cx.text_json() {
            None => {
                let text = obs.get("text").and_then(Value::as_str).unwrap_or_default();
                Outcome::fail(
                    expected,
                    format!("'{}'", truncate(text, SHOW)),
                    format!("{}: the result text is not valid JSON", path.as_str()),
                )
            }
            Some(doc) => {
                let found = path.find(doc);
                let mut outcome =
                    values::eval_values(check, path, found_pairs(&found), cx, expected);
                outcome.actual_value = actual_of(&found);
                outcome
            }
        },
    }
}

fn actual_of(found: &[Found<'_>]) -> Option<Value> {
    let values: Vec<&Value> = found.iter().map(|f| f.value).collect();
    model::actual_value(&values)
}

/// Where a value was found, rendered only when a message needs it.
pub(super) enum Loc<'a> {
    /// A value a path selected.
    At(&'a Found<'a>),
    /// An element of an array a path selected.
    Element(&'a Found<'a>, usize),
    /// A value inside an element, found by an inner path.
    Inner(&'a Found<'a>, usize, Found<'a>),
}

impl std::fmt::Display for Loc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            Loc::At(found) => found.location(),
            Loc::Element(found, i) => format!("{}[{i}]", found.location()),
            Loc::Inner(found, i, inner) => {
                join_location(&format!("{}[{i}]", found.location()), &inner.location())
            }
        };
        f.write_str(&s)
    }
}

pub(super) type Pairs<'a> = Vec<(&'a Value, Loc<'a>)>;

fn found_pairs<'a>(found: &'a [Found<'a>]) -> Pairs<'a> {
    found.iter().map(|f| (f.value, Loc::At(f))).collect()
}

/// One value for a non-quantified matcher: none, the one (borrowed), or the
/// array of many.
pub(super) fn single<'a>(found: &[(&'a Value, Loc<'a>)]) -> Option<Cow<'a, Value>> {
    match found {
        [] => None,
        [(v, _)] => Some(Cow::Borrowed(*v)),
        many => Some(Cow::Owned(Value::Array(
            many.iter().map(|(v, _)| (*v).clone()).collect(),
        ))),
    }
}

pub(super) fn nothing_at(path: &Path, expected: String) -> Outcome {
    Outcome::fail(
        expected,
        "nothing".into(),
        format!("nothing at {}", path.as_str()),
    )
}

/// A location inside an element: `results[1]` and `type` (or `[0]`, or `$`
/// for the element itself) make `results[1].type`.
pub(super) fn join_location(element: &str, inner: &str) -> String {
    match inner {
        "" | "$" => element.to_string(),
        _ if inner.starts_with('[') || inner.starts_with('.') => format!("{element}{inner}"),
        _ => format!("{element}.{inner}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;
    use chrono::NaiveDate;
    use serde_json::json;

    fn check(target: &str, matcher: Matcher) -> Check {
        Check {
            name: "t".into(),
            named: false,
            key: "test",
            wording: Wording::Plain,
            target: Target::Doc(Path::parse(target).unwrap_or_else(|e| panic!("{e}"))),
            matcher,
            weight: 1.0,
            span: Span::none(),
        }
    }

    #[test]
    fn several_values_are_matched_as_an_array() {
        let obs = json!({"result": {"content": [{"type": "text"}, {"type": "text"}]}});
        let c = check(
            "result.content[*].type",
            Matcher::Exact(json!(["text", "text"])),
        );
        assert_eq!(evaluate(&c, &obs, &Facts::default()).status, Status::Pass);
    }

    #[test]
    fn missing_target_fails_with_a_reason() {
        let c = check("json.x", Matcher::Exact(json!(1)));
        let o = evaluate(&c, &json!({"json": {}}), &Facts::default());
        assert_eq!(o.status, Status::Fail);
        assert_eq!(o.reason, "nothing at json.x");
    }

    #[test]
    fn progress_counts_only_the_callers_token() {
        let obs = json!({"notifications": [
            {"method": "notifications/progress", "params": {"progressToken": "a", "progress": 1}},
            {"method": "notifications/progress", "params": {"progressToken": "b", "progress": 1}},
            {"method": "notifications/message", "params": {"level": "info", "data": "x"}}
        ]});
        let c = check(
            "notifications",
            Matcher::NotificationCount {
                method: Some("notifications/progress".into()),
                own_progress: true,
                min: Some(2),
                max: None,
                noun: "progress notification(s)",
            },
        );
        let facts = Facts {
            progress_token: Some(json!("a")),
            ..Facts::default()
        };
        let o = evaluate(&c, &obs, &facts);
        assert_eq!(o.status, Status::Fail);
        assert_eq!(
            o.reason,
            "expected at least 2 progress notification(s), got 1"
        );
    }

    #[test]
    fn a_resource_update_is_looked_for_under_the_uri_as_sent() {
        let obs = json!({"notifications": [
            {"method": "notifications/resources/updated", "params": {"uri": "x://other"}},
            {"method": "notifications/resources/updated", "params": {"uri": "x://calls"}}
        ]});
        let c = check(
            "notifications",
            Matcher::ResourceUpdated {
                uri: Some("{{uri}}".into()),
                expected: true,
            },
        );
        let sent = |uri: &str| Facts {
            subscribed_uri: Some(uri.into()),
            ..Facts::default()
        };
        assert_eq!(evaluate(&c, &obs, &sent("x://calls")).status, Status::Pass);
        let o = evaluate(&c, &obs, &sent("x://text"));
        assert_eq!(o.status, Status::Fail);
        assert_eq!(
            o.reason,
            "expected a resources/updated notification for x://text, none arrived"
        );
        // Without the caller's word, the URI as written is looked for.
        assert_eq!(evaluate(&c, &obs, &Facts::default()).status, Status::Fail);
    }

    #[test]
    fn dates_within_days_needs_today() {
        let c = check("json.d", Matcher::DatesWithinDays(7));
        let obs = json!({"json": {"d": ["2026-01-10T00:00:00Z"]}});
        assert_eq!(evaluate(&c, &obs, &Facts::default()).status, Status::Error);
        let facts = Facts {
            today: NaiveDate::from_ymd_opt(2026, 1, 15),
            ..Facts::default()
        };
        assert_eq!(evaluate(&c, &obs, &facts).status, Status::Pass);
        let facts = Facts {
            today: NaiveDate::from_ymd_opt(2026, 2, 15),
            ..Facts::default()
        };
        let o = evaluate(&c, &obs, &facts);
        assert_eq!(o.status, Status::Fail);
        assert_eq!(
            o.reason,
            "Date 2026-01-10 is not within 7 days of 2026-02-15"
        );
    }
}
