//! H501, H502, H503: the session ids a server hands out, and whether a
//! session ended with `DELETE` stays usable.

use super::rules::Rule;
use super::{Observations, Push, evidence};

/// Shortest session id taken as unguessable: 16 characters (a UUID has 36).
pub const MIN_SESSION_ID_LEN: usize = 16;

/// The largest step between numbers in the same place of two ids that still
/// reads as a counter.
const COUNTER_STEP: u128 = 1000;

/// An id split into its non-digit skeleton and its decimal numbers.
fn shape(id: &str) -> (String, Vec<u128>) {
    let mut skeleton = String::new();
    let mut numbers = Vec::new();
    let mut digits = String::new();
    for c in id.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            // A run too long for u128 is no counter; it still marks the skeleton.
            numbers.push(digits.parse::<u128>().unwrap_or(u128::MAX));
            skeleton.push('#');
            digits.clear();
        }
        skeleton.push(c);
    }
    (skeleton, numbers)
}

/// Whether the ids differ only in a number that moves by a small step, as a
/// counter's do.
fn sequential(ids: &[&str]) -> bool {
    let shapes: Vec<(String, Vec<u128>)> = ids.iter().map(|id| shape(id)).collect();
    let Some((skeleton, first)) = shapes.first() else {
        return false;
    };
    if first.is_empty()
        || shapes
            .iter()
            .any(|(s, n)| s != skeleton || n.len() != first.len())
    {
        return false;
    }
    shapes.windows(2).all(|pair| {
        let (a, b) = (&pair[0].1, &pair[1].1);
        let changed: Vec<(u128, u128)> = a
            .iter()
            .zip(b)
            .filter(|(x, y)| x != y)
            .map(|(x, y)| (*x, *y))
            .collect();
        matches!(changed.as_slice(), [(x, y)] if x.abs_diff(*y) <= COUNTER_STEP)
    })
}

/// Why the ids are guessable, if they are.
fn guessable(ids: &[&str]) -> Option<String> {
    if let Some(short) = ids
        .iter()
        .find(|id| id.chars().count() < MIN_SESSION_ID_LEN)
    {
        return Some(format!(
            "session id `{short}` is {}; an unguessable id has at least {MIN_SESSION_ID_LEN}",
            crate::report::plural(short.chars().count(), "character", "characters")
        ));
    }
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].contains(id) {
            return Some(format!("two sessions were given the same id `{id}`"));
        }
    }
    if ids.iter().all(|id| id.bytes().all(|b| b.is_ascii_digit())) {
        return Some("session ids are plain numbers".into());
    }
    if ids.len() > 1 && sequential(ids) {
        return Some("session ids differ only in a counter".into());
    }
    None
}

/// H501, H502, H503.
pub(super) fn judge(o: &Observations, push: &mut Push<'_>) {
    let ids: Vec<&str> = o.session_ids.iter().flatten().map(String::as_str).collect();
    if !ids.is_empty()
        && let Some(why) = guessable(&ids)
    {
        push(
            Rule::GuessableSessionId,
            "sessions",
            format!("{why} (judged over {} sessions)", ids.len()),
            evidence(&ids.join(", ")),
        );
    }
    if let Some(d) = &o.delete
        && d.delete.ok()
        && d.reuse.ok()
    {
        push(
            Rule::SessionSurvivesDelete,
            "delete",
            format!(
                "the session was ended with DELETE (HTTP {}), yet a request with its id was answered HTTP {}; it must get 404",
                d.delete.status, d.reuse.status
            ),
            d.reuse.evidence(),
        );
    }
    if let Some(bad) = ids
        .iter()
        .find(|id| id.chars().any(|c| !('\u{21}'..='\u{7e}').contains(&c)))
    {
        push(
            Rule::SessionIdCharacters,
            "sessions",
            "a session id holds characters outside visible ASCII (0x21 to 0x7E)".into(),
            evidence(bad),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_told_from_random_ids() {
        assert!(sequential(&["sess-0001-a", "sess-0002-a", "sess-0003-a"]));
        assert!(sequential(&["id41x", "id42x"]));
        assert!(!sequential(&[
            "3f1c2a9e-55b1-4b8e-9f3a-0c6d2b7e8a11",
            "9a7b6c5d-1e2f-4a3b-8c9d-0e1f2a3b4c5d",
            "0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e",
        ]));
        assert!(!sequential(&["sess-0001-a", "sess-9999-a"]));
        assert!(!sequential(&["no-digits-here"]));
    }
}
