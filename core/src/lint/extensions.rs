//! The extensions in a listing (E620 … E628, W620 … W622): a tool's MCP Apps
//! metadata, a `ui://` resource's mimeType and CSP, and the entries of a
//! `skills` section (a `skills/list` result beside the other lists). The
//! checks are the invariants' own (`invariants::apps`, `invariants::skills`),
//! so a listing, a capture and a suite agree; their findings come after the
//! sections', item by item.

use serde_json::Value;

use super::rules::Rule;
use super::{Listing, Out, ptr, ptr_index};
use crate::findings::ItemKind;
use crate::invariants::{apps, skills};

/// The lint rule of an invariant's finding about one item.
fn rule_of(code: &str) -> Option<Rule> {
    Some(match code {
        "INV-130" => Rule::AppResourceScheme,
        "INV-134" => Rule::AppVisibility,
        "INV-135" => Rule::AppFlatMeta,
        "INV-131" => Rule::AppMimeType,
        "INV-133" => Rule::AppCsp,
        "INV-113" => Rule::SkillManifest,
        "INV-114" => Rule::SkillDigest,
        "INV-115" => Rule::SkillSize,
        "INV-116" => Rule::SkillRoot,
        "INV-117" => Rule::SkillLimits,
        "INV-118" => Rule::SkillName,
        "INV-119" => Rule::SkillReservedPrefix,
        _ => return None,
    })
}

fn entries<'v>(listing: &'v Listing<'_>, section: &str) -> &'v [Value] {
    listing
        .object
        .get(section)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn label(entry: &Value, key: &str, index: usize) -> String {
    entry
        .get(key)
        .and_then(Value::as_str)
        .map_or_else(|| format!("#{index}"), str::to_string)
}

/// Every extension rule over `listing`.
pub(super) fn lint(out: &mut Out<'_>, listing: &Listing<'_>) {
    let base = listing.base;
    let tools = ptr(base, "tools");
    for (i, tool) in entries(listing, "tools").iter().enumerate() {
        let found: Vec<(Rule, String)> = apps::tool_problems(tool)
            .into_iter()
            .filter_map(|(rule, message)| Some((rule_of(rule.id())?, message)))
            .collect();
        if found.is_empty() {
            continue;
        }
        let mut item = out.item(ItemKind::Tool, label(tool, "name", i));
        let field = ptr(&ptr_index(&tools, i), "_meta");
        for (rule, message) in found {
            item.push(rule, field.clone(), message);
        }
        out.finish(item);
    }
    let resources = ptr(base, "resources");
    for (i, resource) in entries(listing, "resources").iter().enumerate() {
        let uri = label(resource, "uri", i);
        if !uri.starts_with("ui://") {
            continue;
        }
        let found = apps::resource_problems(resource, "the resource");
        if found.is_empty() {
            continue;
        }
        let mut item = out.item(ItemKind::Resource, uri);
        let field = ptr_index(&resources, i);
        for (rule, message) in found {
            if let Some(rule) = rule_of(rule.id()) {
                item.push(rule, field.clone(), message);
            }
        }
        out.finish(item);
    }
    let skills_ptr = ptr(base, "skills");
    for (i, entry) in entries(listing, "skills").iter().enumerate() {
        let found = skills::entry_problems(entry);
        if found.is_empty() {
            continue;
        }
        let mut item = out.item(ItemKind::Resource, label(entry, "uri", i));
        let field = ptr_index(&skills_ptr, i);
        for (code, message) in found {
            if let Some(rule) = rule_of(code) {
                item.push(rule, field.clone(), message);
            }
        }
        out.finish(item);
    }
}
