//! mcp-assert's `expect` keys: the text view, files, progress.

use crate::check::{Check, Matcher, Target};
use crate::diag::Span;
use crate::path::Path;
use crate::read::LoadCx;
use crate::yaml::Node;

use super::Input;
use super::args::{compile_regex, doc_path, indexed, text_target};

/// `true` adds the check; `false` adds nothing (mcp-assert's reading).
fn flag(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>, target: Target, matcher: Matcher) {
    if cx.bool(i.value, i.key()) == Some(true) {
        out.push(i.check(i.key().into(), target, matcher, i.span));
    }
}

pub(super) fn not_error(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let target = Target::Doc(doc_path("result.isError"));
    flag(cx, i, out, target, Matcher::NotTrue);
}

pub(super) fn is_error(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let target = Target::Doc(doc_path("result.isError"));
    flag(cx, i, out, target, Matcher::IsTrue);
}

pub(super) fn not_empty(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    flag(cx, i, out, text_target(), Matcher::NotEmpty);
}

pub(super) fn equals(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if i.value.is_null() {
        return;
    }
    if let Some(s) = cx.string(i.value, i.key()) {
        out.push(i.check(
            i.key().into(),
            text_target(),
            Matcher::TextEquals(s),
            i.span,
        ));
    }
}

/// One check per listed string, named `key[i]` when there are several.
fn per_string(
    cx: &mut LoadCx,
    i: &Input<'_>,
    out: &mut Vec<Check>,
    matcher: impl Fn(&mut LoadCx, String, Span) -> Option<Matcher>,
) {
    let Some(items) = cx.strings(i.value, i.key()) else {
        return;
    };
    let many = items.len() > 1;
    for (n, (s, sp)) in items.into_iter().enumerate() {
        if let Some(m) = matcher(cx, s, sp) {
            out.push(i.check(indexed(i.key(), n, many), text_target(), m, sp));
        }
    }
}

pub(super) fn contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    per_string(cx, i, out, |_, s, _| Some(Matcher::Contains(s)));
}

pub(super) fn not_contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    per_string(cx, i, out, |_, s, _| Some(Matcher::NotContains(s)));
}

pub(super) fn matches_regex(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let key = i.key();
    per_string(cx, i, out, |cx, s, sp| {
        compile_regex(cx, &s, sp, key).map(Matcher::Regex)
    });
}

pub(super) fn not_matches_regex(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let key = i.key();
    per_string(cx, i, out, |cx, s, sp| {
        compile_regex(cx, &s, sp, key).map(Matcher::NotRegex)
    });
}

/// One check over the whole non-empty list.
fn whole_list(
    cx: &mut LoadCx,
    i: &Input<'_>,
    out: &mut Vec<Check>,
    matcher: fn(Vec<String>) -> Matcher,
) {
    if let Some(items) = cx.strings(i.value, i.key())
        && !items.is_empty()
    {
        let list = items.into_iter().map(|(s, _)| s).collect();
        out.push(i.check(i.key().into(), text_target(), matcher(list), i.span));
    }
}

pub(super) fn contains_any(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    whole_list(cx, i, out, Matcher::ContainsAny);
}

pub(super) fn in_order(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    whole_list(cx, i, out, Matcher::InOrder);
}

pub(super) fn json_path(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let Some(m) = cx.map(i.value, i.key()) else {
        return;
    };
    let mut entries: Vec<(&str, &Node, &Node)> = Vec::new();
    for (k, val) in m {
        match k.key_str() {
            Some(p) => entries.push((p, k, val)),
            None => cx.error(k.span, "`json_path` keys must be paths"),
        }
    }
    // mcp-assert evaluates json_path entries sorted by path.
    crate::sort::by(&mut entries, |a, b| a.0.cmp(b.0));
    for (p, k, val) in entries {
        match Path::parse(p) {
            Ok(path) => out.push(i.check(
                format!("json_path {p}"),
                Target::TextJson(path),
                Matcher::PlainEquals(val.to_json()),
                k.span,
            )),
            Err(e) => cx.error_hint(
                k.span,
                format!("`json_path`: invalid path {p:?}: {e}"),
                "write it like `$.items[0].name`",
            ),
        }
    }
}

pub(super) fn min_results(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some(n) = cx.uint(i.value, i.key()) {
        let m = Matcher::ResultCount {
            min: Some(n),
            max: None,
        };
        out.push(i.check(i.key().into(), text_target(), m, i.span));
    }
}

pub(super) fn max_results(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some(n) = cx.uint(i.value, i.key()) {
        let m = Matcher::ResultCount {
            min: None,
            max: Some(n),
        };
        out.push(i.check(i.key().into(), text_target(), m, i.span));
    }
}

pub(super) fn net_delta(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some(n) = cx.int(i.value, i.key()) {
        out.push(i.check(i.key().into(), text_target(), Matcher::NetDelta(n), i.span));
    }
}

/// `path: text` pairs, one check each, spanned at their path.
fn file_pairs(
    cx: &mut LoadCx,
    i: &Input<'_>,
    out: &mut Vec<Check>,
    matcher: fn(String) -> Matcher,
) {
    let Some(pairs) = cx.string_map(i.value, i.key()) else {
        return;
    };
    let spans: Vec<Span> = i
        .value
        .as_map()
        .map(|m| m.iter().map(|(k, _)| k.span).collect())
        .unwrap_or_default();
    for (n, (path, text)) in pairs.into_iter().enumerate() {
        let sp = spans.get(n).copied().unwrap_or(i.span);
        let name = format!("{} {path}", i.key());
        out.push(i.check(name, Target::File(path), matcher(text), sp));
    }
}

pub(super) fn file_contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    file_pairs(cx, i, out, Matcher::FileContains);
}

pub(super) fn file_not_contains(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    file_pairs(cx, i, out, Matcher::FileNotContains);
}

/// A list of paths, one check each.
fn file_list(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>, matcher: Matcher) {
    if let Some(items) = cx.strings(i.value, i.key()) {
        for (path, sp) in items {
            let name = format!("{} {path}", i.key());
            out.push(i.check(name, Target::File(path), matcher.clone(), sp));
        }
    }
}

pub(super) fn file_not_exists(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    file_list(cx, i, out, Matcher::FileAbsent);
}

pub(super) fn file_unchanged(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    file_list(cx, i, out, Matcher::FileUnchanged);
}

pub(super) fn min_progress(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some(n) = cx.uint(i.value, i.key()) {
        let m = Matcher::NotificationCount {
            method: Some("notifications/progress".into()),
            own_progress: true,
            min: Some(n),
            max: None,
            noun: "progress notification(s)",
        };
        let target = Target::Doc(doc_path("notifications"));
        out.push(i.check(i.key().into(), target, m, i.span));
    }
}
