//! Checks on files the call may have touched (`file_*` keys). The caller
//! reads the files; these only compare what it passed in [`Facts`].

use super::model::{Facts, Matcher, Outcome, SHOW, quote};
use crate::value::show;
use serde_json::Value;

pub(super) fn eval(m: &Matcher, path: &str, expected: String, facts: &Facts) -> Outcome {
    let provided = facts.files.get(path);
    match m {
        Matcher::FileAbsent => match provided {
            None => Outcome::error(
                expected,
                format!("file_not_exists: the caller did not say whether {path} exists"),
            ),
            Some(None) => Outcome::pass(expected, "does not exist".into()),
            Some(Some(_)) => Outcome::fail(
                expected,
                "exists".into(),
                format!("file_not_exists: expected {path} not to exist, but it does"),
            ),
        },
        Matcher::FileContains(s) | Matcher::FileNotContains(s) => {
            let want = matches!(m, Matcher::FileContains(_));
            let key = if want {
                "file_contains"
            } else {
                "file_not_contains"
            };
            match provided {
                None => Outcome::error(
                    expected,
                    format!("{key}: the content of {path} was not provided"),
                ),
                Some(None) => Outcome::fail(
                    expected,
                    "no such file".into(),
                    format!("{key}: cannot read {path}: it does not exist"),
                ),
                Some(Some(content)) => {
                    let actual = show(&Value::String(content.clone()), SHOW);
                    match (content.contains(s.as_str()), want) {
                        (true, true) | (false, false) => Outcome::pass(expected, actual),
                        (false, true) => Outcome::fail(
                            expected,
                            actual,
                            format!("file_contains: {path} does not contain {}", quote(s)),
                        ),
                        (true, false) => Outcome::fail(
                            expected,
                            actual,
                            format!("file_not_contains: {path} contains {}", quote(s)),
                        ),
                    }
                }
            }
        }
        Matcher::FileUnchanged => match (facts.files_before.get(path), provided) {
            (Some(before), Some(after)) => {
                if before == after {
                    Outcome::pass(expected, "unchanged".into())
                } else {
                    let actual = match after {
                        None => "deleted".to_string(),
                        Some(a) => show(&Value::String(a.clone()), SHOW),
                    };
                    Outcome::fail(
                        expected,
                        actual,
                        format!("file_unchanged: {path} was modified"),
                    )
                }
            }
            _ => Outcome::error(
                expected,
                format!("file_unchanged: no snapshot of {path} was provided"),
            ),
        },
        other => Outcome::error(expected, format!("{} cannot look at a file", other.kind())),
    }
}
