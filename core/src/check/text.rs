//! Matchers over one value's text or JSON form: equality, substrings,
//! regexes.

use super::model::{Check, Matcher, Outcome, SHOW, Wording, quote};
use crate::path::Path;
use crate::value::{json_eq, plain, plain_cow, plain_eq, show, show_json, truncate};
use serde_json::Value;

/// Evaluate a text or equality matcher against one value.
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
        Matcher::Exact(want) => ok(
            json_eq(want, v),
            match check.wording {
                Wording::Field(name) => {
                    format!("Expected {name} {}, got {}", show(want, 80), show(v, 80))
                }
                Wording::AtPath => format!(
                    "{at}: expected {}, got {}",
                    show_json(want, 80),
                    show_json(v, 80)
                ),
                _ => format!("expected {}, got {}", show_json(want, 80), show_json(v, 80)),
            },
        ),
        Matcher::TextEquals(want) => ok(
            text().trim() == want.trim(),
            format!(
                "expected exact match: want {}, got {}",
                quote(want.trim()),
                quote(text().trim())
            ),
        ),
        Matcher::Snapshot(want) => {
            let (want, got) = (
                crate::snapshot::normalize(want),
                crate::snapshot::normalize(text()),
            );
            ok(
                want == got,
                format!(
                    "the answer differs from its snapshot {}",
                    first_difference(&want, &got)
                ),
            )
        }
        Matcher::NoToolError => {
            let text = v.get("text").map(plain_cow).unwrap_or_default();
            let is_error = v.pointer("/result/isError") == Some(&Value::Bool(true));
            match crate::snapshot::tool_error(&text, is_error) {
                None => Outcome::pass(expected, "not a tool error".into()),
                Some(why) => Outcome::fail(expected, truncate(&text, 80), why),
            }
        }
        Matcher::PlainEquals(want) => ok(
            plain_eq(want, v),
            format!(
                "json_path {at}: want {}, got {}",
                plain(want),
                truncate(text(), 80)
            ),
        ),
        Matcher::Contains(s) => ok(
            text().contains(s.as_str()),
            match check.wording {
                Wording::ContainsGot => format!(
                    "Expected {at} to contain {}, got {}",
                    quote(s),
                    quote(text())
                ),
                _ => format!("expected {at} to contain {}", quote(s)),
            },
        ),
        Matcher::IContains(s) => ok(
            text().to_lowercase().contains(&s.to_lowercase()),
            format!("expected {at} to contain {} (ignoring case)", quote(s)),
        ),
        Matcher::NotContains(s) => ok(
            !text().contains(s.as_str()),
            format!("expected {at} NOT to contain {}", quote(s)),
        ),
        Matcher::ContainsAny(list) => ok(
            list.iter().any(|s| text().contains(s.as_str())),
            format!(
                "expected {at} to contain at least one of {}",
                list.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            ),
        ),
        Matcher::Regex(r) => ok(
            r.is_match(text()),
            format!("expected {at} to match regex {}", quote(r.as_str())),
        ),
        Matcher::NotRegex(r) => ok(
            !r.is_match(text()),
            format!("expected {at} not to match regex {}", quote(r.as_str())),
        ),
        other => Outcome::error(expected, format!("{} cannot be applied here", other.kind())),
    }
}

/// Where two texts first differ, with a little of each from there:
/// `at character 41: want "…", got "…"`.
fn first_difference(want: &str, got: &str) -> String {
    let at = want
        .chars()
        .zip(got.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let from = at.saturating_sub(20);
    let piece = |s: &str| {
        let tail: String = s.chars().skip(from).collect();
        let lead = if from > 0 { "…" } else { "" };
        show_json(&Value::String(format!("{lead}{tail}")), 80)
    };
    format!(
        "at character {}: want {}, got {}",
        at + 1,
        piece(want),
        piece(got)
    )
}
