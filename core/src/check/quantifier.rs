//! Quantifiers: `all_match*`, `none_match_pattern`, `all_in_range`,
//! `sorted_desc`, dates — judged over every element of an array.

use super::model::{Facts, Matcher, Outcome, SHOW, Status};
use super::{Loc, Pairs, join_location};
use crate::path::{Found, Path};
use crate::value::{as_number, json_eq, plain, plain_cow, show, show_list};
use serde_json::Value;

use super::dates::{date_part, end_of, parse_date};

/// A quantifier over each element of an array (see [`Target::Each`]). The
/// `all_match*` keys ask every element whether its field matches, so an
/// element without the field fails them ("Missing field: results[1].type");
/// the other quantifiers judge the values that are there.
pub(super) fn eval_each(
    m: &Matcher,
    path: &Path,
    container: &Found<'_>,
    field: &Path,
    facts: &Facts,
    expected: String,
) -> Outcome {
    let elements = container.value.as_array().map_or(&[][..], Vec::as_slice);
    let field_written = field.as_str().trim_start_matches('$');
    let mut present: Pairs<'_> = Vec::with_capacity(elements.len());
    // (how many values came before it, which element) of the first element
    // without the field.
    let mut first_missing: Option<(usize, usize)> = None;
    for (i, el) in elements.iter().enumerate() {
        // A simple field (the common case) is looked up without a list per element.
        if let Some(hit) = field.find_simple(el) {
            match hit {
                Some(h) => present.push((h.value, Loc::Inner(container, i, h))),
                None if first_missing.is_none() => first_missing = Some((present.len(), i)),
                None => {}
            }
            continue;
        }
        let hits = field.find(el);
        // Only a singular field can be missing: an element whose inner list
        // (`tags[*]`) is empty has nothing to check, not a missing field.
        if hits.is_empty() && first_missing.is_none() && !field.is_plural() {
            first_missing = Some((present.len(), i));
        }
        for h in hits {
            present.push((h.value, Loc::Inner(container, i, h)));
        }
    }
    let every_element = matches!(
        m,
        Matcher::AllEqual(_) | Matcher::AllOneOf(_) | Matcher::AllRegex(_)
    );
    if let (true, Some((before, i))) = (every_element, first_missing) {
        let o = eval(m, path, &present[..before], facts, expected.clone());
        if o.status != Status::Pass {
            return o;
        }
        let actual = show_list(present.iter().map(|(v, _)| *v), SHOW);
        let at = join_location(&format!("{}[{i}]", container.location()), field_written);
        return Outcome::fail(expected, actual, format!("Missing field: {at}"));
    }
    eval(m, path, &present, facts, expected)
}

pub(super) fn eval(
    m: &Matcher,
    path: &Path,
    items: &[(&Value, Loc<'_>)],
    facts: &Facts,
    expected: String,
) -> Outcome {
    let actual = || show_list(items.iter().map(|(v, _)| *v), SHOW);
    let fail = |reason: String| Outcome::fail(expected.clone(), actual(), reason);
    match m {
        Matcher::AllEqual(want) => {
            for (v, loc) in items {
                if !json_eq(want, v) {
                    return fail(format!("Found non-matching item: {} at {loc}", show(v, 80)));
                }
            }
        }
        Matcher::AllOneOf(allowed) => {
            for (v, loc) in items {
                if !allowed.iter().any(|a| json_eq(a, v)) {
                    return fail(format!(
                        "Found item not in allowed values: {} at {loc}",
                        show(v, 80)
                    ));
                }
            }
        }
        Matcher::AllRegex(r) => {
            for (v, loc) in items {
                if !r.is_match(&plain(v)) {
                    return fail(format!(
                        "{} at {loc} doesn't match pattern '{}'",
                        show(v, 80),
                        r.as_str()
                    ));
                }
            }
        }
        Matcher::NoneRegex(r) => {
            for (v, loc) in items {
                if r.is_match(&plain(v)) {
                    return fail(format!(
                        "{} at {loc} matches excluded pattern '{}'",
                        show(v, 80),
                        r.as_str()
                    ));
                }
            }
        }
        Matcher::AllInRange { min, max, shown } => {
            for (v, loc) in items {
                match as_number(v) {
                    None => return fail(format!("{} at {loc} is not a number", show(v, 80))),
                    Some(n) if n < *min || n > *max => {
                        return fail(format!("Value {} is outside range {shown}", plain(v)));
                    }
                    Some(_) => {}
                }
            }
        }
        Matcher::SortedDesc => {
            for i in 1..items.len() {
                let (a, b) = (&items[i - 1].0, &items[i].0);
                let in_order = match (as_number(a), as_number(b)) {
                    (Some(x), Some(y)) => x >= y,
                    _ => plain(a) >= plain(b),
                };
                if !in_order {
                    return fail(format!("Values not sorted descending at index {i}"));
                }
            }
        }
        Matcher::DatesBetween { start, end } => {
            let (Some(lo), Some(hi)) = (parse_date(start), parse_date(end)) else {
                return Outcome::error(
                    expected,
                    "all_dates_between: start or end is not a date".into(),
                );
            };
            let hi = end_of(end, hi);
            for (v, loc) in items {
                let s = plain_cow(v);
                match parse_date(&s) {
                    None => return fail(format!("{} at {loc} is not a date", show(v, 80))),
                    Some(d) if d < lo || d > hi => {
                        return fail(format!(
                            "Date {} is outside range {} to {}",
                            date_part(&s),
                            date_part(start),
                            date_part(end)
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        Matcher::DatesWithinDays(days) => {
            let Some(today) = facts.today else {
                return Outcome::error(
                    expected,
                    "dates_within_days needs today's date, which was not provided".into(),
                );
            };
            for (v, loc) in items {
                let s = plain_cow(v);
                match parse_date(&s) {
                    None => return fail(format!("{} at {loc} is not a date", show(v, 80))),
                    Some(d) => {
                        let diff = (today - d.date()).num_days().abs();
                        if diff > *days {
                            return fail(format!(
                                "Date {} is not within {days} days of {today}",
                                date_part(&s)
                            ));
                        }
                    }
                }
            }
        }
        _ => return Outcome::error(expected, format!("{} is not a quantifier", m.kind())),
    }
    let _ = path;
    Outcome::pass(expected, actual())
}
