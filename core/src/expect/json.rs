//! The JSON assertion vocabulary: paths inside the Observation's `json`.

use crate::check::{Check, Condition, Matcher, TagRule, Target};
use crate::read::LoadCx;

use super::args::{compile_regex, doc_path, each_target, field, json_path, path_arg, values_of};
use super::{Input, compile_map};

/// `key: value`: the field named like the key equals the value.
fn field_is(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some(path) = json_path(cx, i.key(), i.span, i.key()) {
        let m = Matcher::Exact(i.value.to_json());
        out.push(i.check(i.key().into(), Target::Doc(path), m, i.span));
    }
}

pub(super) fn status(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    field_is(cx, i, out);
}

pub(super) fn error_code(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    field_is(cx, i, out);
}

/// `<field>_contains: text`: the field contains the text.
fn field_has_text(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>, field_name: &str) {
    if let (Some(s), Some(path)) = (
        cx.string(i.value, i.key()),
        json_path(cx, field_name, i.span, i.key()),
    ) {
        let m = Matcher::Contains(s);
        out.push(i.check(i.key().into(), Target::Doc(path), m, i.span));
    }
}

pub(super) fn message_contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    field_has_text(cx, i, out, "message");
}

pub(super) fn summary_contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    field_has_text(cx, i, out, "summary");
}

/// The length of `json.results`.
fn results_length(
    cx: &mut LoadCx,
    i: &Input<'_>,
    out: &mut Vec<Check>,
    bounds: fn(u64) -> (Option<u64>, Option<u64>),
) {
    if let (Some(n), Some(path)) = (
        cx.uint(i.value, i.key()),
        json_path(cx, "results", i.span, i.key()),
    ) {
        let (min, max) = bounds(n);
        let m = Matcher::Length {
            min,
            max,
            noun: "result",
        };
        out.push(i.check(i.key().into(), Target::Doc(path), m, i.span));
    }
}

pub(super) fn results_min(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    results_length(cx, i, out, |n| (Some(n), None));
}

pub(super) fn results_max(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    results_length(cx, i, out, |n| (None, Some(n)));
}

pub(super) fn results_count(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    results_length(cx, i, out, |n| (Some(n), Some(n)));
}

pub(super) fn has_fields(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some(items) = cx.strings(i.value, i.key()) else {
        return;
    };
    for (p, sp) in items {
        if let Some(path) = json_path(cx, &p, sp, i.key()) {
            let name = format!("{} {p}", i.key());
            out.push(i.check(name, Target::Doc(path), Matcher::Exists, sp));
        }
    }
}

pub(super) fn has_field(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some(p) = cx.string(i.value, i.key()) else {
        return;
    };
    let Some(path) = json_path(cx, &p, i.value.span, i.key()) else {
        return;
    };
    let matcher = match i.has_field_value {
        Some(val) => Matcher::Exact(val.to_json()),
        None => Matcher::Exists,
    };
    let name = format!("{} {p}", i.key());
    out.push(i.check(name, Target::Doc(path), matcher, i.span));
}

pub(super) fn field_equals(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some(m) = cx.map(i.value, i.key()) else {
        return;
    };
    for (k, val) in m {
        let Some(p) = k.key_str() else { continue };
        if let Some(path) = json_path(cx, p, k.span, i.key()) {
            let name = format!("{} {p}", i.key());
            let m = Matcher::Exact(val.to_json());
            out.push(i.check(name, Target::Doc(path), m, k.span));
        }
    }
}

pub(super) fn field_contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some((path, entries)) = path_arg(cx, i.value, i.key(), &["text"]) else {
        return;
    };
    if let Some(t) = field(&entries, "text").and_then(|n| cx.string(n, "text")) {
        let name = format!("{} {}", i.key(), path.as_str());
        out.push(i.check(name, Target::Doc(path), Matcher::Contains(t), i.span));
    }
}

pub(super) fn all_match(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some((path, entries)) = path_arg(cx, i.value, i.key(), &["value"]) else {
        return;
    };
    if let Some(val) = field(&entries, "value") {
        let m = Matcher::AllEqual(val.to_json());
        out.push(i.check(i.key().into(), each_target(path), m, i.span));
    }
}

pub(super) fn all_match_one_of(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some((path, entries)) = path_arg(cx, i.value, i.key(), &["values"]) else {
        return;
    };
    if let Some(vals) = field(&entries, "values").and_then(|n| values_of(cx, n, "values")) {
        let m = Matcher::AllOneOf(vals);
        out.push(i.check(i.key().into(), each_target(path), m, i.span));
    }
}

/// `{path, regex}` quantifiers.
fn pattern(
    cx: &mut LoadCx,
    i: &Input<'_>,
    out: &mut Vec<Check>,
    matcher: fn(regex::Regex) -> Matcher,
) {
    let Some((path, entries)) = path_arg(cx, i.value, i.key(), &["regex"]) else {
        return;
    };
    let Some(rn) = field(&entries, "regex") else {
        return;
    };
    let Some(written) = cx.string(rn, "regex") else {
        return;
    };
    if let Some(r) = compile_regex(cx, &written, rn.span, i.key()) {
        out.push(i.check(i.key().into(), each_target(path), matcher(r), i.span));
    }
}

pub(super) fn all_match_pattern(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    pattern(cx, i, out, Matcher::AllRegex);
}

pub(super) fn none_match_pattern(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    pattern(cx, i, out, Matcher::NoneRegex);
}

fn tags(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>, rule: TagRule) {
    let Some(items) = cx.strings(i.value, i.key()) else {
        return;
    };
    let Some(path) = json_path(cx, "results", i.span, i.key()) else {
        return;
    };
    let tags = items.into_iter().map(|(s, _)| s).collect();
    let m = Matcher::Tags { rule, tags };
    out.push(i.check(i.key().into(), Target::Doc(path), m, i.span));
}

pub(super) fn all_have_tags(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    tags(cx, i, out, TagRule::All);
}

pub(super) fn none_have_tags(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    tags(cx, i, out, TagRule::None);
}

pub(super) fn each_has_any_tag(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    tags(cx, i, out, TagRule::Any);
}

pub(super) fn all_dates_between(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some((path, entries)) = path_arg(cx, i.value, i.key(), &["start", "end"]) else {
        return;
    };
    let mut get = |name: &str| {
        let n = field(&entries, name)?;
        let s = cx.string(n, name)?;
        if crate::check::parse_date(&s).is_none() {
            cx.error_hint(
                n.span,
                format!("`{name}` is not a date: {s:?}"),
                "write an RFC 3339 timestamp like 2026-01-31T23:59:59Z, or a date like 2026-01-31",
            );
            return None;
        }
        Some(s)
    };
    if let (Some(start), Some(end)) = (get("start"), get("end")) {
        let m = Matcher::DatesBetween { start, end };
        out.push(i.check(i.key().into(), each_target(path), m, i.span));
    }
}

pub(super) fn dates_within_days(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some((path, entries)) = path_arg(cx, i.value, i.key(), &["days"]) else {
        return;
    };
    if let Some(days) = field(&entries, "days").and_then(|n| cx.uint(n, "days")) {
        let m = Matcher::DatesWithinDays(days as i64);
        out.push(i.check(i.key().into(), each_target(path), m, i.span));
    }
}

/// `{path, min, max}`: the path, both bounds, and the bounds as written.
fn range_args(cx: &mut LoadCx, i: &Input<'_>) -> Option<(crate::path::Path, f64, f64, String)> {
    let (path, entries) = path_arg(cx, i.value, i.key(), &["min", "max"])?;
    let (lo, hi) = (field(&entries, "min")?, field(&entries, "max")?);
    let (Some(min), Some(max)) = (cx.number(lo, "min"), cx.number(hi, "max")) else {
        return None;
    };
    let shown = format!(
        "{}-{}",
        lo.scalar_text().unwrap_or_default(),
        hi.scalar_text().unwrap_or_default()
    );
    Some((path, min, max, shown))
}

pub(super) fn all_in_range(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some((path, min, max, shown)) = range_args(cx, i) {
        let m = Matcher::AllInRange { min, max, shown };
        out.push(i.check(i.key().into(), each_target(path), m, i.span));
    }
}

pub(super) fn range_check(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some((path, min, max, shown)) = range_args(cx, i) {
        let m = Matcher::InRange {
            min: Some(min),
            max: Some(max),
            shown,
        };
        out.push(i.check(i.key().into(), Target::Doc(path), m, i.span));
    }
}

pub(super) fn sorted_desc(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some((path, _)) = path_arg(cx, i.value, i.key(), &[]) {
        out.push(i.check(
            i.key().into(),
            each_target(path),
            Matcher::SortedDesc,
            i.span,
        ));
    }
}

pub(super) fn array_contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some((path, entries)) = path_arg(cx, i.value, i.key(), &["values"]) else {
        return;
    };
    if let Some(vals) = field(&entries, "values").and_then(|n| values_of(cx, n, "values")) {
        let m = Matcher::ArrayContains(vals);
        out.push(i.check(i.key().into(), Target::Doc(path), m, i.span));
    }
}

pub(super) fn one_of(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some(alts) = cx.seq(i.value, i.key()) else {
        return;
    };
    if alts.is_empty() {
        cx.error(i.value.span, "`one_of` needs at least one alternative");
        return;
    }
    let compiled: Vec<Vec<Check>> = alts.iter().map(|a| compile_map(cx, a, i.block)).collect();
    let target = Target::Doc(doc_path("$"));
    out.push(i.check(i.key().into(), target, Matcher::OneOf(compiled), i.span));
}

fn when(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>, condition: Condition) {
    let then = compile_map(cx, i.value, i.block);
    let target = Target::Doc(doc_path("$"));
    let m = Matcher::When { condition, then };
    out.push(i.check(i.key().into(), target, m, i.span));
}

pub(super) fn if_results(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    when(cx, i, out, Condition::HasResults);
}

pub(super) fn if_has_history(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    when(cx, i, out, Condition::HasHistory);
}

pub(super) fn if_sensitive_results(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    when(cx, i, out, Condition::SensitiveResults);
}
