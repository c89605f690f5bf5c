//! The expectation vocabulary: every way of writing `expect`, compiled into one
//! list of [`Check`]s (target, matcher, weight, name).
//!
//! Three shapes are accepted, and may be mixed in one list:
//!
//! * **mcp-assert's map** — `not_error`, `is_error`, `not_empty`, `equals`,
//!   `contains`, `contains_any`, `not_contains`, `matches_regex`, `json_path`,
//!   `min_results`, `max_results`, `net_delta`, `file_contains`,
//!   `file_not_contains`, `file_not_exists`, `in_order`, `file_unchanged`,
//!   `min_progress`; plus the logging keys (`min_messages`, `contains_level`,
//!   `contains_data`) and notification keys (`min_count`, `max_count`,
//!   `methods`, `not_methods`, `contains_data`, `not_contains_data`).
//!   Checks come out in mcp-assert's evaluation order, and all of them are
//!   evaluated (mcp-assert stops at the first failure).
//! * **the JSON assertion vocabulary** — `status`, `error_code`,
//!   `message_contains`, `summary_contains`, `results_min|max|count`,
//!   `has_fields`, `field_equals`, `field_contains`, `all_match`,
//!   `all_match_one_of`, `all_match_pattern`, `none_match_pattern`,
//!   `all_have_tags`, `none_have_tags`, `each_has_any_tag`,
//!   `all_dates_between`, `dates_within_days`, `all_in_range`, `range_check`,
//!   `sorted_desc`, `array_contains`, `one_of`, `if_results`,
//!   `if_has_history`, `if_sensitive_results`. Their paths are read inside the
//!   Observation's `json` (the structured response). A quantifier's `[*]`
//!   path (`results[*].type`) is read per element of the array, so an
//!   element without the field and a missing array are seen (see
//!   `check::Each`).
//! * **list-form items** — `{target, matcher, weight, name}` where `target` is
//!   a path from the Observation root and `matcher` one of `exact`, `equals`,
//!   `contains`, `icontains`, `not_contains`, `contains_any`, `regex`,
//!   `not_regex`, `schema`, `not_empty`, `exists`, `absent`, `length`,
//!   `range`; and `{assert-set: {name, threshold, weight, assertions}}`.
//!
//! A map-form `expect` also gets mcp-assert's implicit rule: a JSON-RPC error
//! answer fails the test (check `no_rpc_error`).

use std::sync::Arc;

use regex::Regex;
use serde_json::Value;

use crate::check::{Check, Condition, Each, Matcher, TagRule, Target};
use crate::diag::Span;
use crate::path::Path;
use crate::read::{Cx, Entries};
use crate::yaml::{Node, NodeKind, Scalar};

/// One scored item of a test: a check, or an assert-set scored as a unit.
// A test has a handful of items; their size is irrelevant next to the
// indirection a box would add to every check.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Item {
    Check(Check),
    Set(AssertSet),
}

impl Item {
    pub fn weight(&self) -> f64 {
        match self {
            Item::Check(c) => c.weight,
            Item::Set(s) => s.weight,
        }
    }
}

/// A named bundle of checks with its own threshold.
#[derive(Clone, Debug)]
pub struct AssertSet {
    pub name: String,
    pub threshold: f64,
    pub weight: f64,
    pub checks: Vec<Check>,
    pub span: Span,
}

/// A named weighted aggregation of check, set and earlier metric scores.
#[derive(Clone, Debug)]
pub struct DerivedMetric {
    pub name: String,
    /// `weighted_average` when true, `weighted_sum` when false.
    pub average: bool,
    pub refs: Vec<MetricRef>,
    pub threshold: Option<f64>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct MetricRef {
    pub name: String,
    pub weight: f64,
    pub span: Span,
}

/// Everything a test expects: items, an optional threshold on the combined
/// score, and derived metrics.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    pub items: Vec<Item>,
    pub threshold: Option<f64>,
    pub derived: Vec<DerivedMetric>,
}

impl Expectations {
    /// Every check, including those inside sets, in order.
    pub fn checks(&self) -> impl Iterator<Item = &Check> {
        self.items.iter().flat_map(|i| match i {
            Item::Check(c) => std::slice::from_ref(c).iter(),
            Item::Set(s) => s.checks.iter(),
        })
    }

    /// Whether any check needs progress notifications for the caller's token.
    pub fn wants_progress(&self) -> bool {
        self.checks().any(|c| {
            matches!(
                c.matcher,
                Matcher::NotificationCount {
                    own_progress: true,
                    ..
                }
            )
        })
    }

    /// The file paths (as written) whose content checks need after the call,
    /// and those that need a snapshot before it.
    pub fn file_paths(&self) -> (Vec<String>, Vec<String>) {
        let mut after = Vec::new();
        let mut before = Vec::new();
        for c in self.checks() {
            if let Target::File(p) = &c.target {
                if !after.contains(p) {
                    after.push(p.clone());
                }
                if matches!(c.matcher, Matcher::FileUnchanged) && !before.contains(p) {
                    before.push(p.clone());
                }
            }
        }
        (after, before)
    }
}

/// Which block an `expect` belongs to; it decides the meaning of
/// `contains_data` (log `data` for logging, notification params otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    Tool,
    Logging,
    Notifications,
    Other,
}

const MCP_ASSERT_KEYS: &[&str] = &[
    "not_error",
    "is_error",
    "not_empty",
    "equals",
    "contains",
    "contains_any",
    "not_contains",
    "matches_regex",
    "json_path",
    "min_results",
    "max_results",
    "net_delta",
    "file_contains",
    "file_not_contains",
    "file_not_exists",
    "in_order",
    "file_unchanged",
    "min_progress",
];

const JSON_KEYS: &[&str] = &[
    "status",
    "error_code",
    "message_contains",
    "summary_contains",
    "results_min",
    "results_max",
    "results_count",
    "has_fields",
    "has_field",
    "value",
    "field_equals",
    "field_contains",
    "all_match",
    "all_match_one_of",
    "all_match_pattern",
    "none_match_pattern",
    "all_have_tags",
    "none_have_tags",
    "each_has_any_tag",
    "all_dates_between",
    "dates_within_days",
    "all_in_range",
    "range_check",
    "sorted_desc",
    "array_contains",
    "one_of",
    "if_results",
    "if_has_history",
    "if_sensitive_results",
];

const EVENT_KEYS: &[&str] = &[
    "min_messages",
    "contains_level",
    "contains_data",
    "min_count",
    "max_count",
    "methods",
    "not_methods",
    "not_contains_data",
];

const LIST_KEYS: &[&str] = &["target", "matcher", "weight", "name"];
const MATCHER_KEYS: &[&str] = &[
    "exact",
    "equals",
    "contains",
    "icontains",
    "not_contains",
    "contains_any",
    "regex",
    "not_regex",
    "schema",
    "not_empty",
    "exists",
    "absent",
    "length",
    "range",
];

/// Every key a map-form `expect` accepts, in evaluation order.
pub fn map_keys() -> Vec<&'static str> {
    MCP_ASSERT_KEYS
        .iter()
        .chain(JSON_KEYS)
        .chain(EVENT_KEYS)
        .copied()
        .collect()
}

/// The list-form matcher names.
pub fn matcher_names() -> &'static [&'static str] {
    MATCHER_KEYS
}

/// Compile an `expect` node (a map, or a list of items) into items.
/// `implicit_rpc` adds mcp-assert's "a JSON-RPC error fails" check to a
/// map-form expect.
pub fn compile(cx: &mut Cx, node: &Node, block: Block, implicit_rpc: bool) -> Vec<Item> {
    match &node.kind {
        NodeKind::Map(_) => {
            let mut checks = Vec::new();
            if implicit_rpc {
                checks.push(no_rpc_error(node.span));
            }
            checks.extend(compile_map(cx, node, block));
            checks.into_iter().map(Item::Check).collect()
        }
        NodeKind::Seq(items) => {
            let mut out = Vec::new();
            for item in items {
                compile_list_item(cx, item, block, &mut out);
            }
            out
        }
        _ if node.is_null() => Vec::new(),
        _ => {
            cx.error_hint(
                node.span,
                format!("`expect` must be a mapping or a list, not {}", node.type_name()),
                "write `expect:` followed by keys like `contains: [...]`, or a list of `- target: …` items",
            );
            Vec::new()
        }
    }
}

/// mcp-assert's implicit rule: a JSON-RPC error answer fails the test.
pub(crate) fn no_rpc_error(span: Span) -> Check {
    Check {
        name: "no_rpc_error".into(),
        named: false,
        key: "no_rpc_error".into(),
        target: Target::Doc(doc_path("error")),
        matcher: Matcher::NoRpcError,
        weight: 1.0,
        span,
    }
}

/// A path into the Observation that is known to be valid.
fn doc_path(p: &str) -> Path {
    Path::fixed(p)
}

fn mk(name: String, key: &str, target: Target, matcher: Matcher, span: Span) -> Check {
    Check {
        name,
        named: false,
        key: key.to_string(),
        target,
        matcher,
        weight: 1.0,
        span,
    }
}

fn compile_regex(cx: &mut Cx, pattern: &str, span: Span, key: &str) -> Option<Regex> {
    match Regex::new(pattern) {
        Ok(r) => Some(r),
        Err(e) => {
            let detail = e.to_string();
            // The regex crate ends its multi-line report with "error: <what>";
            // the diagnostic is already an error, so keep only <what>.
            let last = detail.lines().last().unwrap_or("invalid pattern").trim();
            let last = last.strip_prefix("error: ").unwrap_or(last).to_string();
            cx.error_hint(
                span,
                format!("`{key}`: invalid regular expression {pattern:?}: {last}"),
                "patterns use RE2 syntax (`\\d`, `\\b`, `(?m)`); escape literal brackets and dots with `\\`",
            );
            None
        }
    }
}

fn json_path(cx: &mut Cx, written: &str, span: Span, key: &str) -> Option<Path> {
    match Path::parse_under(&["json"], written) {
        Ok(p) => Some(p),
        Err(e) => {
            cx.error_hint(
                span,
                format!("`{key}`: invalid path {written:?}: {e}"),
                "write a dotted path like `results[*].metadata.type`, or JSONPath starting with `$`",
            );
            None
        }
    }
}

/// The target of a quantifier over `path`. A path with `[*]` is taken apart
/// at its first `[*]` into the array and the field of each element (see
/// `Target::Each`); other paths select as written.
fn each_target(path: Path) -> Target {
    let written = path.as_str();
    let Some(at) = written.find("[*]") else {
        return Target::Doc(path);
    };
    let (items, rest) = (&written[..at], &written[at + 3..]);
    let simple_rest = rest.is_empty() || rest.starts_with('.') || rest.starts_with('[');
    if items.is_empty() || items == "$" || !simple_rest {
        return Target::Doc(path);
    }
    match (
        Path::parse_under(&["json"], items),
        Path::parse(&format!("${rest}")),
    ) {
        (Ok(items), Ok(field)) => Target::Each(Box::new(Each { path, items, field })),
        _ => Target::Doc(path),
    }
}

fn text_target() -> Target {
    Target::Doc(doc_path("text"))
}

/// Read `{path, …}` objects of the JSON vocabulary: returns the compiled path
/// and the entries other than `path`.
fn path_arg<'n>(
    cx: &mut Cx,
    v: &'n Node,
    key: &str,
    others: &[&str],
) -> Option<(Path, Entries<'n>)> {
    let mut allowed = vec!["path"];
    allowed.extend_from_slice(others);
    let entries = cx.entries(v, key, &allowed);
    let path_node = entries
        .iter()
        .find(|(k, _, _)| *k == "path")
        .map(|(_, _, n)| *n);
    let Some(path_node) = path_node else {
        if v.as_map().is_some() {
            cx.error_hint(
                v.span,
                format!("`{key}` needs a `path`"),
                format!("e.g. `{key}: {{path: \"results[*].type\", …}}`"),
            );
        }
        return None;
    };
    let written = cx.string(path_node, "path")?;
    let path = json_path(cx, &written, path_node.span, key)?;
    for o in others {
        if !entries.iter().any(|(k, _, _)| k == o) && *o != "name" {
            cx.error(v.span, format!("`{key}` needs `{o}`"));
            return None;
        }
    }
    Some((path, entries))
}

fn field<'n>(entries: &[(&'n str, &'n Node, &'n Node)], name: &str) -> Option<&'n Node> {
    entries
        .iter()
        .find(|(k, _, _)| *k == name)
        .map(|(_, _, v)| *v)
}

fn values_of(cx: &mut Cx, n: &Node, key: &str) -> Option<Vec<Value>> {
    match &n.kind {
        NodeKind::Seq(items) => Some(items.iter().map(Node::to_json).collect()),
        _ => {
            cx.error(
                n.span,
                format!("`{key}` must be a list of values, not {}", n.type_name()),
            );
            None
        }
    }
}

/// Compile a map-form expect into checks, in the canonical order.
pub fn compile_map(cx: &mut Cx, node: &Node, block: Block) -> Vec<Check> {
    let mut allowed = map_keys();
    allowed.extend(LIST_KEYS.iter().copied());
    allowed.push("assert-set");
    let entries = cx.entries(node, "expect", &allowed);
    let mut out = Vec::new();
    for (key, knode, _) in &entries {
        if LIST_KEYS.contains(key) || *key == "assert-set" {
            cx.error_hint(
                knode.span,
                format!("`{key}` belongs to a list-form item, not to an `expect` mapping"),
                "write list-form items under `expect:` as `- target: …` entries",
            );
        }
    }
    let has_field_value = field(&entries, "value");
    if has_field_value.is_some()
        && field(&entries, "has_field").is_none()
        && let Some((_, k, _)) = entries.iter().find(|(k, _, _)| *k == "value")
    {
        cx.error_hint(
            k.span,
            "`value` goes with `has_field`",
            "write `has_field: path` next to it",
        );
    }
    for key in map_keys() {
        let Some((_, knode, v)) = entries.iter().find(|(k, _, _)| *k == key) else {
            continue;
        };
        compile_key(cx, key, knode.span, v, block, has_field_value, &mut out);
    }
    out
}

#[allow(clippy::too_many_lines)]
fn compile_key(
    cx: &mut Cx,
    key: &str,
    key_span: Span,
    v: &Node,
    block: Block,
    has_field_value: Option<&Node>,
    out: &mut Vec<Check>,
) {
    let span = key_span;
    match key {
        "not_error" | "is_error" if cx.bool(v, key) == Some(true) => {
            let matcher = if key == "not_error" {
                Matcher::NotTrue
            } else {
                Matcher::IsTrue
            };
            out.push(mk(
                key.into(),
                key,
                Target::Doc(doc_path("result.isError")),
                matcher,
                span,
            ));
        }
        "not_empty" if cx.bool(v, key) == Some(true) => {
            out.push(mk(key.into(), key, text_target(), Matcher::NotEmpty, span));
        }
        "equals" => {
            if v.is_null() {
                return;
            }
            if let Some(s) = cx.string(v, key) {
                out.push(mk(
                    key.into(),
                    key,
                    text_target(),
                    Matcher::TextEquals(s),
                    span,
                ));
            }
        }
        "contains" | "not_contains" => {
            if let Some(items) = cx.strings(v, key) {
                let many = items.len() > 1;
                for (i, (s, sp)) in items.into_iter().enumerate() {
                    let name = if many {
                        format!("{key}[{i}]")
                    } else {
                        key.to_string()
                    };
                    let matcher = if key == "contains" {
                        Matcher::Contains(s)
                    } else {
                        Matcher::NotContains(s)
                    };
                    out.push(mk(name, key, text_target(), matcher, sp));
                }
            }
        }
        "contains_any" => {
            if let Some(items) = cx.strings(v, key)
                && !items.is_empty()
            {
                let list = items.into_iter().map(|(s, _)| s).collect();
                out.push(mk(
                    key.into(),
                    key,
                    text_target(),
                    Matcher::ContainsAny(list),
                    span,
                ));
            }
        }
        "matches_regex" => {
            if let Some(items) = cx.strings(v, key) {
                let many = items.len() > 1;
                for (i, (s, sp)) in items.into_iter().enumerate() {
                    if let Some(r) = compile_regex(cx, &s, sp, key) {
                        let name = if many {
                            format!("{key}[{i}]")
                        } else {
                            key.to_string()
                        };
                        out.push(mk(name, key, text_target(), Matcher::Regex(r), sp));
                    }
                }
            }
        }
        "json_path" => {
            let Some(m) = cx.map(v, key) else { return };
            let mut entries: Vec<(&str, &Node, &Node)> = Vec::new();
            for (k, val) in m {
                match k.key_str() {
                    Some(p) => entries.push((p, k, val)),
                    None => cx.error(k.span, "`json_path` keys must be paths"),
                }
            }
            // mcp-assert evaluates json_path entries sorted by path.
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (p, k, val) in entries {
                match Path::parse(p) {
                    Ok(path) => out.push(mk(
                        format!("json_path {p}"),
                        key,
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
        "min_results" | "max_results" => {
            if let Some(n) = cx.uint(v, key) {
                let (min, max) = if key == "min_results" {
                    (Some(n), None)
                } else {
                    (None, Some(n))
                };
                out.push(mk(
                    key.into(),
                    key,
                    text_target(),
                    Matcher::ResultCount { min, max },
                    span,
                ));
            }
        }
        "net_delta" => {
            if let Some(n) = cx.int(v, key) {
                out.push(mk(
                    key.into(),
                    key,
                    text_target(),
                    Matcher::NetDelta(n),
                    span,
                ));
            }
        }
        "file_contains" | "file_not_contains" => {
            let Some(pairs) = cx.string_map(v, key) else {
                return;
            };
            let spans: Vec<Span> = v
                .as_map()
                .map(|m| m.iter().map(|(k, _)| k.span).collect())
                .unwrap_or_default();
            for (i, (path, text)) in pairs.into_iter().enumerate() {
                let sp = spans.get(i).copied().unwrap_or(span);
                let matcher = if key == "file_contains" {
                    Matcher::FileContains(text)
                } else {
                    Matcher::FileNotContains(text)
                };
                out.push(mk(
                    format!("{key} {path}"),
                    key,
                    Target::File(path),
                    matcher,
                    sp,
                ));
            }
        }
        "file_not_exists" | "file_unchanged" => {
            if let Some(items) = cx.strings(v, key) {
                for (path, sp) in items {
                    let matcher = if key == "file_not_exists" {
                        Matcher::FileAbsent
                    } else {
                        Matcher::FileUnchanged
                    };
                    out.push(mk(
                        format!("{key} {path}"),
                        key,
                        Target::File(path),
                        matcher,
                        sp,
                    ));
                }
            }
        }
        "in_order" => {
            if let Some(items) = cx.strings(v, key)
                && !items.is_empty()
            {
                let list = items.into_iter().map(|(s, _)| s).collect();
                out.push(mk(
                    key.into(),
                    key,
                    text_target(),
                    Matcher::InOrder(list),
                    span,
                ));
            }
        }
        "min_progress" => {
            if let Some(n) = cx.uint(v, key) {
                out.push(mk(
                    key.into(),
                    key,
                    Target::Doc(doc_path("notifications")),
                    Matcher::NotificationCount {
                        method: Some("notifications/progress".into()),
                        own_progress: true,
                        min: Some(n),
                        max: None,
                        noun: "progress notification(s)",
                    },
                    span,
                ));
            }
        }
        "min_messages" => {
            if let Some(n) = cx.uint(v, key) {
                out.push(mk(
                    key.into(),
                    key,
                    Target::Doc(doc_path("notifications")),
                    Matcher::NotificationCount {
                        method: Some("notifications/message".into()),
                        own_progress: false,
                        min: Some(n),
                        max: None,
                        noun: "log message(s)",
                    },
                    span,
                ));
            }
        }
        "contains_level" => {
            if let Some(items) = cx.strings(v, key) {
                for (level, sp) in items {
                    out.push(mk(
                        format!("{key} {level}"),
                        key,
                        Target::Doc(doc_path("notifications")),
                        Matcher::LogLevel(level),
                        sp,
                    ));
                }
            }
        }
        "contains_data" | "not_contains_data" => {
            if let Some(items) = cx.strings(v, key) {
                for (needle, sp) in items {
                    out.push(mk(
                        format!("{key} {needle}"),
                        key,
                        Target::Doc(doc_path("notifications")),
                        Matcher::NotificationData {
                            needle,
                            present: key == "contains_data",
                            log_data: block == Block::Logging,
                        },
                        sp,
                    ));
                }
            }
        }
        "min_count" | "max_count" => {
            if let Some(n) = cx.uint(v, key) {
                let (min, max) = if key == "min_count" {
                    (Some(n), None)
                } else {
                    (None, Some(n))
                };
                out.push(mk(
                    key.into(),
                    key,
                    Target::Doc(doc_path("notifications")),
                    Matcher::NotificationCount {
                        method: None,
                        own_progress: false,
                        min,
                        max,
                        noun: "notification(s)",
                    },
                    span,
                ));
            }
        }
        "methods" | "not_methods" => {
            if let Some(items) = cx.strings(v, key) {
                for (method, sp) in items {
                    out.push(mk(
                        format!("{key} {method}"),
                        key,
                        Target::Doc(doc_path("notifications")),
                        Matcher::NotificationMethod {
                            method,
                            present: key == "methods",
                        },
                        sp,
                    ));
                }
            }
        }
        // ---- the JSON assertion vocabulary: paths inside `json` ----
        "status" | "error_code" => {
            if let Some(path) = json_path(cx, key, span, key) {
                out.push(mk(
                    key.into(),
                    key,
                    Target::Doc(path),
                    Matcher::Exact(v.to_json()),
                    span,
                ));
            }
        }
        "message_contains" | "summary_contains" => {
            let field_name = key.trim_end_matches("_contains");
            if let (Some(s), Some(path)) = (cx.string(v, key), json_path(cx, field_name, span, key))
            {
                out.push(mk(
                    key.into(),
                    key,
                    Target::Doc(path),
                    Matcher::Contains(s),
                    span,
                ));
            }
        }
        "results_min" | "results_max" | "results_count" => {
            if let (Some(n), Some(path)) = (cx.uint(v, key), json_path(cx, "results", span, key)) {
                let (min, max) = match key {
                    "results_min" => (Some(n), None),
                    "results_max" => (None, Some(n)),
                    _ => (Some(n), Some(n)),
                };
                out.push(mk(
                    key.into(),
                    key,
                    Target::Doc(path),
                    Matcher::Length {
                        min,
                        max,
                        noun: "result",
                    },
                    span,
                ));
            }
        }
        "has_fields" => {
            if let Some(items) = cx.strings(v, key) {
                for (p, sp) in items {
                    if let Some(path) = json_path(cx, &p, sp, key) {
                        out.push(mk(
                            format!("{key} {p}"),
                            key,
                            Target::Doc(path),
                            Matcher::Exists,
                            sp,
                        ));
                    }
                }
            }
        }
        "has_field" => {
            let Some(p) = cx.string(v, key) else { return };
            let Some(path) = json_path(cx, &p, v.span, key) else {
                return;
            };
            let matcher = match has_field_value {
                Some(val) => Matcher::Exact(val.to_json()),
                None => Matcher::Exists,
            };
            out.push(mk(
                format!("{key} {p}"),
                key,
                Target::Doc(path),
                matcher,
                span,
            ));
        }
        "value" => {}
        "field_equals" => {
            let Some(m) = cx.map(v, key) else { return };
            for (k, val) in m {
                let Some(p) = k.key_str() else { continue };
                if let Some(path) = json_path(cx, p, k.span, key) {
                    out.push(mk(
                        format!("{key} {p}"),
                        key,
                        Target::Doc(path),
                        Matcher::Exact(val.to_json()),
                        k.span,
                    ));
                }
            }
        }
        "field_contains" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["text"]) else {
                return;
            };
            if let Some(t) = field(&entries, "text").and_then(|n| cx.string(n, "text")) {
                out.push(mk(
                    format!("{key} {}", path.as_str()),
                    "message_contains",
                    Target::Doc(path),
                    Matcher::Contains(t),
                    span,
                ));
            }
        }
        "all_match" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["value"]) else {
                return;
            };
            if let Some(val) = field(&entries, "value") {
                out.push(mk(
                    key.into(),
                    key,
                    each_target(path),
                    Matcher::AllEqual(val.to_json()),
                    span,
                ));
            }
        }
        "all_match_one_of" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["values"]) else {
                return;
            };
            if let Some(vals) = field(&entries, "values").and_then(|n| values_of(cx, n, "values")) {
                out.push(mk(
                    key.into(),
                    key,
                    each_target(path),
                    Matcher::AllOneOf(vals),
                    span,
                ));
            }
        }
        "all_match_pattern" | "none_match_pattern" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["regex"]) else {
                return;
            };
            let Some(rn) = field(&entries, "regex") else {
                return;
            };
            let Some(pattern) = cx.string(rn, "regex") else {
                return;
            };
            if let Some(r) = compile_regex(cx, &pattern, rn.span, key) {
                let matcher = if key == "all_match_pattern" {
                    Matcher::AllRegex(r)
                } else {
                    Matcher::NoneRegex(r)
                };
                out.push(mk(key.into(), key, each_target(path), matcher, span));
            }
        }
        "all_have_tags" | "none_have_tags" | "each_has_any_tag" => {
            let Some(items) = cx.strings(v, key) else {
                return;
            };
            let Some(path) = json_path(cx, "results", span, key) else {
                return;
            };
            let rule = match key {
                "all_have_tags" => TagRule::All,
                "none_have_tags" => TagRule::None,
                _ => TagRule::Any,
            };
            let tags = items.into_iter().map(|(s, _)| s).collect();
            out.push(mk(
                key.into(),
                key,
                Target::Doc(path),
                Matcher::Tags { rule, tags },
                span,
            ));
        }
        "all_dates_between" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["start", "end"]) else {
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
                out.push(mk(
                    key.into(),
                    key,
                    each_target(path),
                    Matcher::DatesBetween { start, end },
                    span,
                ));
            }
        }
        "dates_within_days" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["days"]) else {
                return;
            };
            if let Some(days) = field(&entries, "days").and_then(|n| cx.uint(n, "days")) {
                out.push(mk(
                    key.into(),
                    key,
                    each_target(path),
                    Matcher::DatesWithinDays(days as i64),
                    span,
                ));
            }
        }
        "all_in_range" | "range_check" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["min", "max"]) else {
                return;
            };
            let lo = field(&entries, "min");
            let hi = field(&entries, "max");
            let (Some(lo), Some(hi)) = (lo, hi) else {
                return;
            };
            let (Some(min), Some(max)) = (cx.number(lo, "min"), cx.number(hi, "max")) else {
                return;
            };
            let shown = format!(
                "{}-{}",
                lo.scalar_text().unwrap_or_default(),
                hi.scalar_text().unwrap_or_default()
            );
            let (matcher, target) = if key == "all_in_range" {
                (Matcher::AllInRange { min, max, shown }, each_target(path))
            } else {
                let m = Matcher::InRange {
                    min: Some(min),
                    max: Some(max),
                    shown,
                };
                (m, Target::Doc(path))
            };
            out.push(mk(key.into(), key, target, matcher, span));
        }
        "sorted_desc" => {
            let Some((path, _)) = path_arg(cx, v, key, &[]) else {
                return;
            };
            out.push(mk(
                key.into(),
                key,
                each_target(path),
                Matcher::SortedDesc,
                span,
            ));
        }
        "array_contains" => {
            let Some((path, entries)) = path_arg(cx, v, key, &["values"]) else {
                return;
            };
            if let Some(vals) = field(&entries, "values").and_then(|n| values_of(cx, n, "values")) {
                out.push(mk(
                    key.into(),
                    key,
                    Target::Doc(path),
                    Matcher::ArrayContains(vals),
                    span,
                ));
            }
        }
        "one_of" => {
            let Some(alts) = cx.seq(v, key) else { return };
            if alts.is_empty() {
                cx.error(v.span, "`one_of` needs at least one alternative");
                return;
            }
            let compiled: Vec<Vec<Check>> =
                alts.iter().map(|a| compile_map(cx, a, block)).collect();
            out.push(mk(
                key.into(),
                key,
                Target::Doc(doc_path("$")),
                Matcher::OneOf(compiled),
                span,
            ));
        }
        "if_results" | "if_has_history" | "if_sensitive_results" => {
            let condition = match key {
                "if_results" => Condition::HasResults,
                "if_has_history" => Condition::HasHistory,
                _ => Condition::SensitiveResults,
            };
            let then = compile_map(cx, v, block);
            out.push(mk(
                key.into(),
                key,
                Target::Doc(doc_path("$")),
                Matcher::When { condition, then },
                span,
            ));
        }
        _ => {}
    }
}

fn compile_list_item(cx: &mut Cx, item: &Node, block: Block, out: &mut Vec<Item>) {
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

fn compile_set(cx: &mut Cx, node: &Node, block: Block) -> Option<AssertSet> {
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
pub(crate) fn weight_of(cx: &mut Cx, v: &Node) -> Option<f64> {
    let w = cx.number(v, "weight")?;
    if w < 0.0 {
        cx.error(v.span, "`weight` must not be negative");
        return None;
    }
    Some(w)
}

fn compile_list_check(cx: &mut Cx, item: &Node) -> Option<Check> {
    let entries = cx.entries(item, "expect item", LIST_KEYS);
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
        key: "list".into(),
        target: Target::Doc(target),
        matcher,
        weight,
        span: item.span,
    })
}

fn compile_matcher(cx: &mut Cx, v: &Node) -> Option<Matcher> {
    let entries = cx.entries(v, "matcher", MATCHER_KEYS);
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
    if entries.is_empty() {
        // Unknown kinds were reported by `entries`; an empty map was not.
        if v.as_map().is_some() && written == 0 {
            cx.error_hint(
                v.span,
                "this matcher is empty",
                format!("use one of: {}", MATCHER_KEYS.join(", ")),
            );
        }
        return None;
    }
    let (key, _, arg) = entries[0];
    match key {
        "exact" => Some(Matcher::Exact(arg.to_json())),
        "equals" => cx.string(arg, key).map(Matcher::TextEquals),
        "contains" => cx.string(arg, key).map(Matcher::Contains),
        "icontains" => cx.string(arg, key).map(Matcher::IContains),
        "not_contains" => cx.string(arg, key).map(Matcher::NotContains),
        "contains_any" => cx
            .strings(arg, key)
            .map(|v| Matcher::ContainsAny(v.into_iter().map(|(s, _)| s).collect())),
        "regex" | "not_regex" => {
            let s = cx.string(arg, key)?;
            let r = compile_regex(cx, &s, arg.span, key)?;
            Some(if key == "regex" {
                Matcher::Regex(r)
            } else {
                Matcher::NotRegex(r)
            })
        }
        "schema" => {
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
        "not_empty" | "exists" | "absent" => match cx.bool(arg, key)? {
            true => Some(match key {
                "not_empty" => Matcher::NotEmpty,
                "exists" => Matcher::Exists,
                _ => Matcher::Absent,
            }),
            false => {
                cx.error_hint(
                    arg.span,
                    format!("`{key}: false` checks nothing"),
                    "remove the item, or use the opposite matcher",
                );
                None
            }
        },
        "length" => match &arg.kind {
            NodeKind::Scalar {
                value: Scalar::Int(_),
                ..
            } => {
                let n = cx.uint(arg, key)?;
                Some(Matcher::Length {
                    min: Some(n),
                    max: Some(n),
                    noun: "item",
                })
            }
            _ => {
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
        },
        "range" => {
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
        _ => None,
    }
}

/// Compile `derivedMetrics`, checking references: a metric may use named
/// checks, named assert-sets and metrics declared before it. A reference to
/// itself or to a later metric is an error; a name that matches nothing is a
/// warning (it scores 0, and the report shows it).
pub fn compile_derived(cx: &mut Cx, node: &Node, items: &[Item]) -> Vec<DerivedMetric> {
    let Some(list) = cx.seq(node, "derivedMetrics") else {
        return Vec::new();
    };
    let mut known: Vec<String> = Vec::new();
    for i in items {
        match i {
            Item::Check(c) if c.named => known.push(c.name.clone()),
            Item::Set(s) => {
                known.push(s.name.clone());
                known.extend(s.checks.iter().filter(|c| c.named).map(|c| c.name.clone()));
            }
            _ => {}
        }
    }
    let all_metric_names: Vec<String> = list
        .iter()
        .filter_map(|m| {
            m.get("name")
                .and_then(Node::scalar_text)
                .map(str::to_string)
        })
        .collect();
    let mut out: Vec<DerivedMetric> = Vec::new();
    for m in list {
        let entries = cx.entries(m, "derivedMetrics item", &["name", "threshold", "value"]);
        let mut name = None;
        let mut threshold = None;
        let mut value = None;
        for (k, _, v) in &entries {
            match *k {
                "name" => name = cx.name(v, "name"),
                "threshold" => threshold = Some(*v),
                "value" => value = Some(*v),
                _ => {}
            }
        }
        let Some(name) = name else {
            cx.error(m.span, "a derived metric needs a `name`");
            continue;
        };
        if out.iter().any(|d| d.name == name) {
            cx.error(m.span, format!("derived metric `{name}` is declared twice"));
            continue;
        }
        let Some(value) = value else {
            cx.error_hint(
                m.span,
                format!("derived metric `{name}` needs a `value`"),
                "e.g. `value: {weighted_average: [{ref: a, weight: 2}]}`",
            );
            continue;
        };
        let ve = cx.entries(value, "value", &["weighted_sum", "weighted_average"]);
        if ve.len() != 1 {
            if ve.len() > 1 {
                cx.error(value.span, "a derived metric's `value` is either `weighted_sum` or `weighted_average`, not both");
            } else if value.as_map().is_some_and(|e| e.is_empty()) {
                cx.error(
                    value.span,
                    "`value` needs `weighted_sum` or `weighted_average`",
                );
            }
            continue;
        }
        let (agg, _, refs_node) = ve[0];
        // A weighted average lies in [0, 1], so its threshold is a fraction
        // like a test's; a weighted sum can exceed 1 (2*1 + 3*1 = 5), and so
        // can its threshold.
        let threshold = match threshold {
            Some(t) if agg == "weighted_average" => cx.fraction(t, "threshold"),
            Some(t) => cx.number(t, "threshold"),
            None => None,
        };
        let Some(ref_items) = cx.seq(refs_node, agg) else {
            continue;
        };
        let mut refs = Vec::new();
        for r in ref_items {
            let re = cx.entries(r, agg, &["ref", "weight"]);
            let mut rname = None;
            let mut w = 1.0;
            let mut rspan = r.span;
            for (k, _, v) in re {
                if k == "ref" {
                    rname = cx.name(v, "ref");
                    rspan = v.span;
                } else {
                    w = weight_of(cx, v).unwrap_or(w);
                }
            }
            let Some(rname) = rname else {
                cx.error(r.span, "each reference needs `ref: <name>`");
                continue;
            };
            if rname == name {
                cx.error_hint(
                    rspan,
                    format!("derived metric `{name}` refers to itself"),
                    "a metric can only use checks, sets and metrics declared before it",
                );
                continue;
            }
            let earlier = out.iter().any(|d| d.name == rname);
            let later = all_metric_names.contains(&rname) && !earlier;
            if later {
                cx.error_hint(
                    rspan,
                    format!(
                        "derived metric `{name}` refers to `{rname}`, which is declared after it"
                    ),
                    format!(
                        "derived metrics evaluate in declaration order: move `{rname}` above it"
                    ),
                );
                continue;
            }
            if !earlier && !known.contains(&rname) {
                let hint = crate::diag::did_you_mean(&rname, known.iter().map(String::as_str))
                    .or_else(|| Some("name the check or assert-set with `name:`".to_string()));
                cx.warning(
                    rspan,
                    format!("`{rname}` names no check, assert-set or earlier metric; it scores 0"),
                    hint,
                );
            }
            refs.push(MetricRef {
                name: rname,
                weight: w,
                span: rspan,
            });
        }
        out.push(DerivedMetric {
            name,
            average: agg == "weighted_average",
            refs,
            threshold,
            span: m.span,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    fn compile_text(text: &str) -> (Vec<Item>, Vec<crate::diag::Diagnostic>) {
        let node = parse("t.yaml", text).unwrap_or_else(|d| panic!("{d:?}"));
        let mut cx = Cx::new("t.yaml");
        let items = compile(&mut cx, &node, Block::Tool, true);
        (items, cx.diags)
    }

    #[test]
    fn map_form_compiles_in_mcp_assert_order() {
        let (items, diags) = compile_text("in_order: [a, b]\ncontains: [x, y]\nnot_error: true\n");
        assert!(diags.is_empty(), "{diags:?}");
        let names: Vec<String> = items
            .iter()
            .map(|i| match i {
                Item::Check(c) => c.name.clone(),
                Item::Set(s) => s.name.clone(),
            })
            .collect();
        assert_eq!(
            names,
            [
                "no_rpc_error",
                "not_error",
                "contains[0]",
                "contains[1]",
                "in_order"
            ]
        );
    }

    #[test]
    fn unknown_keys_get_a_hint_and_all_problems_are_reported() {
        let (_, diags) = compile_text("not_eror: true\nmatches_regex: ['(']\nmin_results: -1\n");
        assert_eq!(diags.len(), 3, "{diags:?}");
        assert_eq!(diags[0].hint.as_deref(), Some("did you mean `not_error`?"));
        assert_eq!(diags[0].span.line, 1);
        assert!(diags[1].message.contains("invalid regular expression"));
        assert_eq!(diags[1].span.line, 2);
        assert!(diags[2].message.contains("must not be negative"));
    }

    #[test]
    fn list_form_and_sets() {
        let (items, diags) = compile_text(
            "- target: result.isError\n  matcher: {exact: false}\n  weight: 3\n- assert-set:\n    name: kw\n    threshold: 0.6\n    assertions:\n      - target: text\n        matcher: {icontains: a}\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].weight(), 3.0);
        assert!(matches!(&items[1], Item::Set(s) if s.name == "kw" && s.checks.len() == 1));
    }

    #[test]
    fn bad_schema_and_two_matchers_are_errors() {
        let (_, diags) = compile_text(
            "- target: json\n  matcher: {schema: {type: 12}}\n- target: json\n  matcher: {exact: 1, contains: x}\n",
        );
        assert_eq!(diags.len(), 2, "{diags:?}");
        assert!(diags[0].message.contains("not a valid JSON Schema"));
    }
}
