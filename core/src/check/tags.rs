//! Tag rules over `results[*].metadata.tags`.

use super::model::{Outcome, SHOW, TagRule};
use super::{Loc, nothing_at};
use crate::path::Path;
use crate::value::{plain, show_list};
use serde_json::Value;

pub(super) fn eval(
    rule: TagRule,
    tags: &[String],
    found: &[(&Value, Loc<'_>)],
    path: &Path,
    expected: String,
) -> Outcome {
    // `found` holds the results array (one value) or the results (plural path).
    let results: Vec<&Value> = match found {
        [(Value::Array(a), _)] => a.iter().collect(),
        [] => return nothing_at(path, expected),
        many => many.iter().map(|(v, _)| *v).collect(),
    };
    // What the results carry, shown only as far as a message needs.
    let actual = || {
        show_list(
            results
                .iter()
                .map(|r| r.pointer("/metadata/tags").unwrap_or(&Value::Null)),
            SHOW,
        )
    };
    for (i, r) in results.iter().enumerate() {
        let have: &[Value] = r
            .get("metadata")
            .and_then(|m| m.get("tags"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let has = |t: &String| {
            have.iter().any(|h| match h {
                Value::String(s) => s == t,
                other => plain(other) == *t,
            })
        };
        match rule {
            TagRule::All => {
                if let Some(t) = tags.iter().find(|t| !has(t)) {
                    return Outcome::fail(
                        expected,
                        actual(),
                        format!("Result {i} missing required tag: '{t}'"),
                    );
                }
            }
            TagRule::None => {
                if let Some(t) = tags.iter().find(|t| has(t)) {
                    return Outcome::fail(
                        expected,
                        actual(),
                        format!("Result {i} has excluded tag: '{t}'"),
                    );
                }
            }
            TagRule::Any => {
                if !tags.iter().any(has) {
                    return Outcome::fail(
                        expected,
                        actual(),
                        format!(
                            "Result {i} has none of the tags: {}",
                            tags.iter()
                                .map(|t| format!("'{t}'"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                }
            }
        }
    }
    Outcome::pass(expected, actual())
}
