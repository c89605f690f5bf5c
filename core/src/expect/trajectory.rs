//! `trajectory:` assertions: each item's `type` is a row of the vocabulary
//! (family [`Family::Trajectory`]); it compiles into an ordinary check whose
//! target is the observation's `trace`.

use crate::check::{Check, Matcher, Target, Wording};
use crate::path::Path;
use crate::read::{Entries, LoadCx};
use crate::yaml::Node;

use super::Item;
use super::list::weight_of;
use super::registry::{self, Compile, Family};

/// One `trajectory:` item, as the compile function of its type sees it.
pub(crate) struct Assertion<'n> {
    item: &'n Node,
    kind: &'static str,
    entries: Entries<'n>,
}

impl<'n> Assertion<'n> {
    fn get(&self, k: &str) -> Option<&'n Node> {
        crate::read::entry(&self.entries, k)
    }

    /// mcp-assert reads only some keys for each type and ignores the others:
    /// say so rather than let a check look stricter than it is.
    fn warn_unused(&self, cx: &mut LoadCx, unused: &[(&str, &str, &str)]) {
        for (key, why, hint) in unused {
            if let Some((_, k, _)) = self.entries.iter().find(|(e, _, _)| e == key) {
                cx.warning(
                    k.span,
                    format!("`{key}` is not used by `type: {}`: {why}", self.kind),
                    Some((*hint).to_string()),
                );
            }
        }
    }

    /// The `tools` list of `order`, `presence` and `absence`.
    fn tools(&self, cx: &mut LoadCx) -> Option<Vec<String>> {
        self.warn_unused(
            cx,
            &[
                (
                    "tool",
                    "it checks the tools listed in `tools`",
                    "remove it, or add the tool to `tools: [...]`",
                ),
                (
                    "args",
                    "only `args_contain` checks arguments",
                    "remove it, or check the arguments in an `args_contain` assertion with `tool` and `args`",
                ),
            ],
        );
        match self.get("tools") {
            Some(t) => cx
                .strings(t, "tools")
                .map(|v| v.into_iter().map(|(s, _)| s).collect()),
            None => {
                cx.error_hint(
                    self.item.span,
                    format!("`{}` needs `tools`", self.kind),
                    "list the tool names: `tools: [a, b]`",
                );
                None
            }
        }
    }
}

pub(super) fn order(cx: &mut LoadCx, a: &Assertion<'_>) -> Option<Matcher> {
    a.tools(cx).map(Matcher::TraceOrder)
}

pub(super) fn presence(cx: &mut LoadCx, a: &Assertion<'_>) -> Option<Matcher> {
    a.tools(cx).map(Matcher::TracePresence)
}

pub(super) fn absence(cx: &mut LoadCx, a: &Assertion<'_>) -> Option<Matcher> {
    a.tools(cx).map(Matcher::TraceAbsence)
}

pub(super) fn args_contain(cx: &mut LoadCx, a: &Assertion<'_>) -> Option<Matcher> {
    a.warn_unused(
        cx,
        &[(
            "tools",
            "it checks the one tool named by `tool`",
            "remove it; to check that tools were called, add a `presence` assertion",
        )],
    );
    let tool = a.get("tool").and_then(|t| cx.name(t, "tool"));
    let args = match a.get("args") {
        Some(n) => cx.map(n, "args").map(|m| {
            m.iter()
                .filter_map(|(k, v)| k.key_str().map(|k| (k.to_string(), v.to_json())))
                .collect::<Vec<_>>()
        }),
        None => {
            cx.error(a.item.span, "`args_contain` needs `args`");
            None
        }
    };
    if a.get("tool").is_none() {
        cx.error(a.item.span, "`args_contain` needs `tool`");
    }
    match (tool, args) {
        (Some(tool), Some(args)) => Some(Matcher::TraceArgs { tool, args }),
        _ => None,
    }
}

/// Compile a `trajectory:` list into checks.
pub fn compile(cx: &mut LoadCx, node: &Node) -> Vec<Item> {
    let Some(items) = cx.seq(node, "trajectory") else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| compile_one(cx, item))
        .map(Item::Check)
        .collect()
}

fn compile_one(cx: &mut LoadCx, item: &Node) -> Option<Check> {
    let entries = cx.struct_entries(
        item,
        "trajectory assertion",
        &["type", "tools", "tool", "args", "name", "weight"],
    );
    let types = || registry::family(Family::Trajectory).map(|k| k.name);
    let Some((_, _, kind_node)) = entries.iter().find(|(k, _, _)| *k == "type").copied() else {
        if item.as_map().is_some() {
            cx.error_hint(
                item.span,
                "a trajectory assertion needs `type`",
                format!("one of: {}", types().collect::<Vec<_>>().join(", ")),
            );
        }
        return None;
    };
    let kind = cx.string(kind_node, "type")?;
    let Some(def) = registry::lookup(Family::Trajectory, &kind) else {
        let hint = crate::diag::did_you_mean(&kind, types())
            .unwrap_or_else(|| format!("one of: {}", types().collect::<Vec<_>>().join(", ")));
        cx.error_hint(
            kind_node.span,
            format!("unknown trajectory assertion type `{kind}`"),
            hint,
        );
        return None;
    };
    let Compile::Trajectory(compile) = def.compile else {
        return None;
    };
    let assertion = Assertion {
        item,
        kind: def.name,
        entries,
    };
    let matcher = compile(cx, &assertion)?;
    let name = assertion.get("name").and_then(|n| cx.name(n, "name"));
    let weight = assertion
        .get("weight")
        .and_then(|w| weight_of(cx, w))
        .unwrap_or(1.0);
    Some(Check {
        named: name.is_some(),
        name: name.unwrap_or_else(|| def.name.to_string()),
        key: def.name,
        wording: Wording::Plain,
        target: Target::Doc(Path::fixed("trace")),
        matcher,
        weight,
        span: item.span,
    })
}
