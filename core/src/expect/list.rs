//! List-form items: `{target, matcher, weight, name}` checks, assert-sets,
//! and the matchers.

use std::sync::Arc;

use crate::check::{Check, Matcher, Target, Wording};
use crate::path::Path;
use crate::read::LoadCx;
use crate::yaml::{Node, NodeKind, Scalar};

use super::args::compile_regex;
use super::registry::{self, Compile, Family, KeyDef};
use super::{AssertSet, Block, Item, compile_map};

pub(super) fn compile_list_item(cx: &mut LoadCx, item: &Node, block: Block, out: &mut Vec<Item>) {
    let Some(m) = item.as_map() else {
        cx.error_hint(
            item.span,
            format!(
                "an `expect` list item must be a mapping, not {}",
                item.type_name()
            ),
            "write `- target: result.isError` with `matcher: {exact: false}` under it",
        );
        return;
    };
    let has = |k: &str| m.iter().any(|(key, _)| key.key_str() == Some(k));
    if has("assert-set") {
        let entries = cx.entries(item, "expect item", &["assert-set"]);
        if let Some((_, _, set)) = entries.first()
            && let Some(s) = compile_set(cx, set, block)
        {
            out.push(Item::Set(s));
        }
    } else if has("target") || has("matcher") {
        if let Some(c) = compile_list_check(cx, item) {
            out.push(Item::Check(c));
        }
    } else {
        // A vocabulary mapping inside a list: its checks join the list.
        out.extend(compile_map(cx, item, block).into_iter().map(Item::Check));
    }
}

fn compile_set(cx: &mut LoadCx, node: &Node, block: Block) -> Option<AssertSet> {
    let entries = cx.entries(
        node,
        "assert-set",
        &["name", "threshold", "weight", "assertions"],
    );
    let mut name = None;
    let mut threshold = 1.0;
    let mut weight = 1.0;
    let mut checks = Vec::new();
    let mut saw_assertions = false;
    for (key, _, v) in entries {
        match key {
            "name" => name = cx.name(v, "name"),
            "threshold" => threshold = cx.fraction(v, "threshold").unwrap_or(threshold),
            "weight" => weight = weight_of(cx, v).unwrap_or(weight),
            "assertions" => {
                saw_assertions = true;
                let Some(items) = cx.seq(v, "assertions") else {
                    continue;
                };
                for it in items {
                    let mut inner = Vec::new();
                    compile_list_item(cx, it, block, &mut inner);
                    for i in inner {
                        match i {
                            Item::Check(c) => checks.push(c),
                            Item::Set(s) => {
                                cx.error(s.span, "an assert-set cannot contain another assert-set")
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if !saw_assertions {
        cx.error_hint(
            node.span,
            "an assert-set needs `assertions`",
            "list its checks under `assertions:`",
        );
        return None;
    }
    Some(AssertSet {
        name: name.unwrap_or_else(|| format!("assert-set@{}", node.span.line)),
        threshold,
        weight,
        checks,
        span: node.span,
    })
}

/// A `weight`: a number, not negative (list-form checks, assert-sets,
/// metric references and trajectory checks share the rule).
pub(crate) fn weight_of(cx: &mut LoadCx, v: &Node) -> Option<f64> {
    let w = cx.number(v, "weight")?;
    if w < 0.0 {
        cx.error(v.span, "`weight` must not be negative");
        return None;
    }
    Some(w)
}

fn compile_list_check(cx: &mut LoadCx, item: &Node) -> Option<Check> {
    let entries = cx.entries(item, "expect item", super::LIST_KEYS);
    let mut target = None;
    let mut matcher = None;
    let mut weight = 1.0;
    let mut name = None;
    for (key, _, v) in &entries {
        match *key {
            "target" => {
                if let Some(t) = cx.string(v, "target") {
                    match Path::parse(&t) {
                        Ok(p) => target = Some(p),
                        Err(e) => cx.error_hint(
                            v.span,
                            format!("`target`: invalid path {t:?}: {e}"),
                            "targets are paths into the observation: `result.isError`, `result.content[0].text`, `json.items`, `text`, `error.code`",
                        ),
                    }
                }
            }
            "matcher" => matcher = compile_matcher(cx, v),
            "weight" => weight = weight_of(cx, v).unwrap_or(weight),
            "name" => name = cx.name(v, "name"),
            _ => {}
        }
    }
    if !entries.iter().any(|(k, _, _)| *k == "target") {
        cx.error_hint(
            item.span,
            "this `expect` item has no `target`",
            "add `target: <path>`, e.g. `target: result.content[0].text`",
        );
        return None;
    }
    if !entries.iter().any(|(k, _, _)| *k == "matcher") {
        cx.error_hint(
            item.span,
            "this `expect` item has no `matcher`",
            "add e.g. `matcher: {contains: \"text\"}`",
        );
        return None;
    }
    let (target, matcher) = (target?, matcher?);
    let named = name.is_some();
    Some(Check {
        name: name.unwrap_or_else(|| format!("{} {}", matcher.kind(), target.as_str())),
        named,
        key: "list",
        wording: Wording::Plain,
        target: Target::Doc(target),
        matcher,
        weight,
        span: item.span,
    })
}

fn compile_matcher(cx: &mut LoadCx, v: &Node) -> Option<Matcher> {
    let names: Vec<&str> = registry::family(Family::Matcher).map(|k| k.name).collect();
    let entries = cx.entries(v, "matcher", &names);
    let written = v.as_map().map_or(0, <[_]>::len);
    if entries.len() > 1 {
        cx.error_hint(
            v.span,
            format!(
                "a matcher has exactly one kind, this one has {}",
                entries.len()
            ),
            "write e.g. `matcher: {contains: \"x\"}`; use two items for two matchers",
        );
        return None;
    }
    let Some((key, _, arg)) = entries.first() else {
        // Unknown kinds were reported by `entries`; an empty map was not.
        if v.as_map().is_some() && written == 0 {
            cx.error_hint(
                v.span,
                "this matcher is empty",
                format!("use one of: {}", names.join(", ")),
            );
        }
        return None;
    };
    let def = registry::lookup(Family::Matcher, key)?;
    match def.compile {
        Compile::Matcher(compile) => compile(cx, def, arg),
        _ => None,
    }
}

pub(super) fn exact(_: &mut LoadCx, _: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    Some(Matcher::Exact(arg.to_json()))
}

pub(super) fn equals(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    cx.string(arg, def.name).map(Matcher::TextEquals)
}

pub(super) fn contains(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    cx.string(arg, def.name).map(Matcher::Contains)
}

pub(super) fn icontains(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    cx.string(arg, def.name).map(Matcher::IContains)
}

pub(super) fn not_contains(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    cx.string(arg, def.name).map(Matcher::NotContains)
}

pub(super) fn contains_any(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    cx.strings(arg, def.name)
        .map(|v| Matcher::ContainsAny(v.into_iter().map(|(s, _)| s).collect()))
}

pub(super) fn regex(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    let s = cx.string(arg, def.name)?;
    compile_regex(cx, &s, arg.span, def.name).map(Matcher::Regex)
}

pub(super) fn not_regex(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    let s = cx.string(arg, def.name)?;
    compile_regex(cx, &s, arg.span, def.name).map(Matcher::NotRegex)
}

pub(super) fn schema(cx: &mut LoadCx, _: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    let schema = arg.to_json();
    if !schema.is_object() && !schema.is_boolean() {
        cx.error(
            arg.span,
            format!(
                "`schema` must be a JSON Schema object, not {}",
                arg.type_name()
            ),
        );
        return None;
    }
    match jsonschema::validator_for(&schema) {
        Ok(v) => Some(Matcher::Schema(Arc::new(v))),
        Err(e) => {
            cx.error_hint(
                arg.span,
                format!("`schema` is not a valid JSON Schema: {e}"),
                "check the keywords and types against JSON Schema 2020-12",
            );
            None
        }
    }
}

/// `kind: true` matchers; `false` checks nothing and is an error.
fn only_true(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node, m: Matcher) -> Option<Matcher> {
    if cx.bool(arg, def.name)? {
        return Some(m);
    }
    cx.error_hint(
        arg.span,
        format!("`{}: false` checks nothing", def.name),
        "remove the item, or use the opposite matcher",
    );
    None
}

pub(super) fn not_empty(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    only_true(cx, def, arg, Matcher::NotEmpty)
}

pub(super) fn exists(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    only_true(cx, def, arg, Matcher::Exists)
}

pub(super) fn absent(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    only_true(cx, def, arg, Matcher::Absent)
}

pub(super) fn length(cx: &mut LoadCx, def: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    if let NodeKind::Scalar {
        value: Scalar::Int(_),
        ..
    } = &arg.kind
    {
        let n = cx.uint(arg, def.name)?;
        return Some(Matcher::Length {
            min: Some(n),
            max: Some(n),
            noun: "item",
        });
    }
    let e = cx.entries(arg, "length", &["min", "max"]);
    let mut min = None;
    let mut max = None;
    for (k, _, n) in e {
        if k == "min" {
            min = cx.uint(n, "min");
        } else {
            max = cx.uint(n, "max");
        }
    }
    Some(Matcher::Length {
        min,
        max,
        noun: "item",
    })
}

pub(super) fn range(cx: &mut LoadCx, _: &'static KeyDef, arg: &Node) -> Option<Matcher> {
    let e = cx.entries(arg, "range", &["min", "max"]);
    let mut min = None;
    let mut max = None;
    let mut shown = (String::new(), String::new());
    for (k, _, n) in e {
        if k == "min" {
            min = cx.number(n, "min");
            shown.0 = n.scalar_text().unwrap_or_default().to_string();
        } else {
            max = cx.number(n, "max");
            shown.1 = n.scalar_text().unwrap_or_default().to_string();
        }
    }
    // Bounds are shown as written; a one-sided range shows its one
    // bound (a "-1000" would read as minus a thousand).
    let shown = match (min.is_some(), max.is_some()) {
        (true, true) => format!("{}-{}", shown.0, shown.1),
        (true, false) => shown.0,
        (false, _) => shown.1,
    };
    Some(Matcher::InRange { min, max, shown })
}
