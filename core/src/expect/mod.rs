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
//!   evaluated (mcp-assert stops at the first failure); the text and
//!   Markdown reports list a test's failures by line.
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
//!
//! Every key is one row of [`registry::VOCABULARY`]; this module reads an
//! `expect` node and calls the rows' compile functions.

pub(crate) mod args;
mod derived;
mod events;
mod extensions;
mod json;
mod list;
mod mcp_assert;
pub mod registry;
mod trajectory;

use crate::check::{Check, Matcher, Target, Wording};
use crate::diag::Span;
use crate::read::LoadCx;
use crate::yaml::{Node, NodeKind};

pub use derived::compile_derived;
pub use registry::{Family, KeyDef};
pub use trajectory::compile as compile_trajectory;

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

/// The keys of a list-form item.
const LIST_KEYS: &[&str] = &["target", "matcher", "weight", "name"];

/// Every key a map-form `expect` accepts, in evaluation order.
pub fn map_keys() -> Vec<&'static str> {
    registry::map_form().map(|k| k.name).collect()
}

/// The list-form matcher names.
pub fn matcher_names() -> Vec<&'static str> {
    registry::family(Family::Matcher).map(|k| k.name).collect()
}

/// What a map-form key's compile function is given.
pub(crate) struct Input<'n> {
    /// The key's row.
    pub def: &'static KeyDef,
    /// Where the key was written.
    pub span: Span,
    /// Its value.
    pub value: &'n Node,
    pub block: Block,
    /// The `value` next to a `has_field`.
    pub has_field_value: Option<&'n Node>,
}

impl Input<'_> {
    fn key(&self) -> &'static str {
        self.def.name
    }

    /// A check of this key, worded as its row says.
    fn check(&self, name: String, target: Target, matcher: Matcher, span: Span) -> Check {
        Check {
            name,
            named: false,
            key: self.def.name,
            wording: self.def.wording,
            target,
            matcher,
            weight: 1.0,
            span,
        }
    }
}

/// Compile an `expect` node (a map, or a list of items) into items.
/// `implicit_rpc` adds mcp-assert's "a JSON-RPC error fails" check to a
/// map-form expect.
pub fn compile(cx: &mut LoadCx, node: &Node, block: Block, implicit_rpc: bool) -> Vec<Item> {
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
                list::compile_list_item(cx, item, block, &mut out);
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
        key: "no_rpc_error",
        wording: Wording::Plain,
        target: Target::Doc(args::doc_path("error")),
        matcher: Matcher::NoRpcError,
        weight: 1.0,
        span,
    }
}

/// Compile a map-form expect into checks, in the vocabulary's order.
pub fn compile_map(cx: &mut LoadCx, node: &Node, block: Block) -> Vec<Check> {
    let mut allowed = map_keys();
    allowed.extend(LIST_KEYS.iter().copied());
    allowed.push("assert-set");
    let entries = cx.struct_entries(node, "expect", &allowed);
    for (key, knode, _) in &entries {
        if LIST_KEYS.contains(key) || *key == "assert-set" {
            cx.error_hint(
                knode.span,
                format!("`{key}` belongs to a list-form item, not to an `expect` mapping"),
                "write list-form items under `expect:` as `- target: …` entries",
            );
        }
    }
    let written = |name: &str| entries.iter().find(|(k, _, _)| *k == name);
    let has_field_value = written("value").map(|(_, _, v)| *v);
    if has_field_value.is_some()
        && written("has_field").is_none()
        && let Some((_, k, _)) = written("value")
    {
        cx.error_hint(
            k.span,
            "`value` goes with `has_field`",
            "write `has_field: path` next to it",
        );
    }
    // mcp-assert's evaluation order, whatever the written order: the same
    // expectations give the same check list from YAML, JSON text or a JSON
    // object (which has no order). Reports list failures by line.
    let mut out = Vec::new();
    for def in registry::map_form() {
        let registry::Compile::Map(compile) = def.compile else {
            continue;
        };
        let Some((_, knode, value)) = written(def.name) else {
            continue;
        };
        let input = Input {
            def,
            span: knode.span,
            value,
            block,
            has_field_value,
        };
        compile(cx, &input, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    fn compile_text(text: &str) -> (Vec<Item>, Vec<crate::diag::Diagnostic>) {
        let node = parse("t.yaml", text).unwrap_or_else(|d| panic!("{d:?}"));
        let mut cx = LoadCx::new("t.yaml");
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
