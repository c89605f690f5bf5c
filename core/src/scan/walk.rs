//! The walk over one server's listing: which strings each rule reads.
//!
//! - names (tool, prompt and argument names, property names): hidden characters;
//!   tool and prompt names also S2xx, tool names S9xx;
//! - prose (titles, descriptions, parameter descriptions): every text rule;
//! - values (defaults, enum values, examples, resource URIs): hidden characters,
//!   S301 … S303 and secrets.

use std::collections::{BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::names::{self, Index};
use super::rules::Rule;
use super::{At, Finding, ItemKind, Sink, hidden, params, ptr, text};
use crate::lint::Listing;

/// A description longer than this is long (S801)…
const LONG: usize = 2_000;
/// …and longer than this huge (S802).
const HUGE: usize = 8_000;
/// Descriptions of one listing over this in total (S803).
const LISTING_LARGE: usize = 60_000;
/// Schemas deeper than this are not walked further.
const MAX_DEPTH: usize = 24;

const SECTIONS: [(&str, ItemKind); 4] = [
    ("tools", ItemKind::Tool),
    ("prompts", ItemKind::Prompt),
    ("resources", ItemKind::Resource),
    ("resourceTemplates", ItemKind::ResourceTemplate),
];

/// One server, and what every server's walk shares.
pub(crate) struct Server<'a> {
    pub(crate) label: &'a str,
    pub(crate) position: usize,
    pub(crate) index: &'a Index,
    pub(crate) skip: &'a BTreeSet<Rule>,
}

/// What a text field is, for which rules read it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Prose,
    Value,
}

/// The item being walked.
struct Cx<'a> {
    server: &'a Server<'a>,
    own: Option<&'a str>,
    /// A tool's declared parameters, for S701.
    declared: Option<HashSet<String>>,
}

fn text_field(sink: &mut Sink<'_>, cx: &Cx<'_>, field: &str, value: &str, kind: Field) {
    let at = At { field, text: value };
    hidden::check(sink, &at);
    match kind {
        Field::Name => {}
        Field::Value => {
            text::instructions(sink, &at, true);
            text::blobs_and_secrets(sink, &at, false);
        }
        Field::Prose => {
            text::instructions(sink, &at, false);
            text::cross_tool(sink, &at, cx.own, cx.server.position, cx.server.index);
            text::exfiltration(sink, &at);
            text::blobs_and_secrets(sink, &at, true);
            if let Some(declared) = &cx.declared {
                params::mentions(sink, &at, declared);
            }
        }
    }
}

fn string_at<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    object.get(key).and_then(Value::as_str)
}

/// S801, S802 for a description; its length in characters.
fn budget(sink: &mut Sink<'_>, field: &str, description: &str) -> usize {
    let chars = description.chars().count();
    let (rule, bound) = if chars > HUGE {
        (Rule::HugeDescription, HUGE)
    } else if chars > LONG {
        (Rule::LongDescription, LONG)
    } else {
        return chars;
    };
    let head = super::escape(&crate::value::truncate(description, 60), 120);
    sink.push_with(
        rule,
        field,
        None,
        head,
        format!(
            "description of {} characters, over {}",
            crate::lint::thousands(chars),
            crate::lint::thousands(bound)
        ),
    );
    chars
}

/// Every rule over one server's listing; findings appended to `out`.
pub(crate) fn scan_server(server: &Server<'_>, listing: &Listing<'_>, out: &mut Vec<Finding>) {
    let mut total = 0usize;
    for (section, kind) in SECTIONS {
        let Some(Value::Array(entries)) = listing.object.get(section) else {
            continue;
        };
        let base = format!("{}/{section}", listing.base);
        for (i, entry) in entries.iter().enumerate() {
            let Value::Object(object) = entry else {
                continue;
            };
            let at = format!("{base}/{i}");
            let id_key = match kind {
                ItemKind::Resource => "uri",
                ItemKind::ResourceTemplate => "uriTemplate",
                _ => "name",
            };
            let label = string_at(object, id_key)
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("{section}[{i}]"), str::to_string);
            let mut sink = Sink::new(server.label, server.skip, kind, label);
            total += item(&mut sink, server, kind, object, &at);
            sink.finish(out);
        }
    }
    if total > LISTING_LARGE {
        let mut sink = Sink::new(
            server.label,
            server.skip,
            ItemKind::Listing,
            "listing".into(),
        );
        sink.push_with(
            Rule::ListingDescriptionsLarge,
            listing.base,
            None,
            String::new(),
            format!(
                "descriptions total {} characters, over {}",
                crate::lint::thousands(total),
                crate::lint::thousands(LISTING_LARGE)
            ),
        );
        sink.finish(out);
    }
}

/// One entry of any section; the length of its descriptions.
fn item(
    sink: &mut Sink<'_>,
    server: &Server<'_>,
    kind: ItemKind,
    object: &Map<String, Value>,
    at: &str,
) -> usize {
    let name = string_at(object, "name");
    let description = string_at(object, "description").unwrap_or("");
    let is_tool = kind == ItemKind::Tool;
    let schema = object.get("inputSchema").filter(|_| is_tool);
    let cx = Cx {
        server,
        own: name,
        declared: schema.map(params::declared).or(is_tool.then(HashSet::new)),
    };
    if let Some(name) = name {
        let field = ptr(at, "name");
        text_field(sink, &cx, &field, name, Field::Name);
        if matches!(kind, ItemKind::Tool | ItemKind::Prompt) {
            names::mixed_script(sink, &field, name);
        }
        if is_tool {
            names::confusable_name(sink, &field, name, server.position, server.index);
            names::across_servers(sink, &field, name, server.position, server.index);
        }
    }
    for key in ["uri", "uriTemplate"] {
        if let Some(value) = string_at(object, key) {
            text_field(sink, &cx, &ptr(at, key), value, Field::Value);
        }
    }
    if let Some(title) = string_at(object, "title") {
        text_field(sink, &cx, &ptr(at, "title"), title, Field::Prose);
    }
    if let Some(Value::Object(annotations)) = object.get("annotations")
        && let Some(title) = string_at(annotations, "title")
    {
        let field = ptr(&ptr(at, "annotations"), "title");
        text_field(sink, &cx, &field, title, Field::Prose);
    }
    let mut size = 0;
    if object.contains_key("description") {
        let field = ptr(at, "description");
        text_field(sink, &cx, &field, description, Field::Prose);
        size += budget(sink, &field, description);
    }
    if let Some(schema) = schema {
        let auth = params::is_auth_tool(name.unwrap_or(""), description);
        schema_walk(sink, &cx, schema, &ptr(at, "inputSchema"), Some(auth), 0);
    }
    if let Some(schema) = object.get("outputSchema").filter(|_| is_tool) {
        schema_walk(sink, &cx, schema, &ptr(at, "outputSchema"), None, 0);
    }
    if let Some(Value::Array(arguments)) = object.get("arguments") {
        let base = ptr(at, "arguments");
        for (i, argument) in arguments.iter().enumerate() {
            let Value::Object(argument) = argument else {
                continue;
            };
            let here = format!("{base}/{i}");
            if let Some(name) = string_at(argument, "name") {
                text_field(sink, &cx, &ptr(&here, "name"), name, Field::Name);
            }
            for key in ["title", "description"] {
                if let Some(text) = string_at(argument, key) {
                    text_field(sink, &cx, &ptr(&here, key), text, Field::Prose);
                }
            }
        }
    }
    size
}

/// Every text of a schema. `auth` is `Some` for an input schema (whether the tool
/// is about credentials), which turns on the parameter rules.
fn schema_walk(
    sink: &mut Sink<'_>,
    cx: &Cx<'_>,
    schema: &Value,
    at: &str,
    auth: Option<bool>,
    depth: usize,
) {
    let Value::Object(object) = schema else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    for key in ["title", "description"] {
        if let Some(text) = string_at(object, key) {
            text_field(sink, cx, &ptr(at, key), text, Field::Prose);
        }
    }
    if let Some(text) = string_at(object, "default") {
        text_field(sink, cx, &ptr(at, "default"), text, Field::Value);
    }
    for key in ["enum", "examples"] {
        if let Some(Value::Array(values)) = object.get(key) {
            let base = ptr(at, key);
            for (i, value) in values.iter().enumerate() {
                if let Value::String(text) = value {
                    text_field(sink, cx, &format!("{base}/{i}"), text, Field::Value);
                }
            }
        }
    }
    if let Some(Value::Object(properties)) = object.get("properties") {
        let base = ptr(at, "properties");
        for (name, property) in properties {
            let here = ptr(&base, name);
            text_field(sink, cx, &here, name, Field::Name);
            if let Some(auth) = auth {
                let field = ptr(&here, "description");
                let description = property.get("description").and_then(Value::as_str);
                let described = description.map(|text| At {
                    field: &field,
                    text,
                });
                params::parameter(sink, &here, name, described.as_ref(), auth);
            }
            schema_walk(sink, cx, property, &here, auth, depth + 1);
        }
    }
    for key in ["items", "additionalProperties", "not", "if", "then", "else"] {
        if let Some(sub) = object.get(key) {
            schema_walk(sink, cx, sub, &ptr(at, key), auth, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(subs)) = object.get(key) {
            let base = ptr(at, key);
            for (i, sub) in subs.iter().enumerate() {
                schema_walk(sink, cx, sub, &format!("{base}/{i}"), auth, depth + 1);
            }
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = object.get(key) {
            let base = ptr(at, key);
            for (name, sub) in defs {
                schema_walk(sink, cx, sub, &ptr(&base, name), auth, depth + 1);
            }
        }
    }
}
