//! The rules over prompts, resources and resource templates.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::rules::Rule;
use super::syntax;
use super::tools::{Json, expect};
use super::{Item, ItemKind, Out, ptr, ptr_index, quote};
use crate::value::type_name;

/// The field that identifies an entry of a section, and the word for it.
fn identity(kind: ItemKind) -> (&'static str, &'static str) {
    match kind {
        ItemKind::Resource => ("uri", "URI"),
        ItemKind::ResourceTemplate => ("uriTemplate", "uriTemplate"),
        _ => ("name", "name"),
    }
}

/// Every entry of a `prompts`, `resources` or `resourceTemplates` array at `base`.
pub(super) fn lint_section(
    out: &mut Out<'_>,
    kind: ItemKind,
    section: &str,
    entries: &[Value],
    base: &str,
) {
    let (id_key, id_word) = identity(kind);
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (index, entry) in entries.iter().enumerate() {
        let at = ptr_index(base, index);
        let id = entry.get(id_key).and_then(Value::as_str);
        let label = id
            .filter(|s| !s.is_empty())
            .map_or_else(|| format!("{section}[{index}]"), str::to_string);
        let mut item = out.item(kind, label);
        let Value::Object(object) = entry else {
            item.push(
                Rule::MalformedEntry,
                at,
                format!("{section}[{index}] is {}, not an object", type_name(entry)),
            );
            out.finish(item);
            continue;
        };
        match kind {
            ItemKind::Prompt => prompt(&mut item, object, &at),
            ItemKind::Resource => resource(&mut item, object, &at),
            _ => template(&mut item, object, &at),
        }
        if let Some(id) = id.filter(|s| !s.is_empty()) {
            match seen.get(id) {
                Some(first) => item.push(
                    Rule::DuplicateName,
                    ptr(&at, id_key),
                    format!("{section}[{first}] has the same {id_word}; a client reaches only one of them"),
                ),
                None => {
                    seen.insert(id, index);
                }
            }
        }
        out.finish(item);
    }
}

/// E601 for a required string field that is missing, not a string or blank;
/// the string when it is there.
fn required_string<'v>(
    item: &mut Item<'_>,
    object: &'v Map<String, Value>,
    at: &str,
    key: &str,
) -> Option<&'v str> {
    let field = ptr(at, key);
    match object.get(key) {
        None => {
            item.push(
                Rule::MalformedEntry,
                field,
                format!("has no {key} (MCP requires one)"),
            );
            None
        }
        Some(Value::String(s)) if s.trim().is_empty() => {
            item.push(Rule::MalformedEntry, field, format!("{key} is blank"));
            None
        }
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            item.push(
                Rule::MalformedEntry,
                field,
                format!("{key} is {}, not a string", type_name(other)),
            );
            None
        }
    }
}

/// The optional fields every entry kind shares.
fn common_fields(item: &mut Item<'_>, object: &Map<String, Value>, at: &str) {
    expect(item, object, at, "title", Json::String);
    expect(item, object, at, "description", Json::String);
    expect(item, object, at, "icons", Json::Array);
    expect(item, object, at, "_meta", Json::Object);
}

fn prompt(item: &mut Item<'_>, prompt: &Map<String, Value>, at: &str) {
    required_string(item, prompt, at, "name");
    common_fields(item, prompt, at);
    if !expect(item, prompt, at, "arguments", Json::Array) {
        return;
    }
    let Some(Value::Array(arguments)) = prompt.get("arguments") else {
        return;
    };
    let base = ptr(at, "arguments");
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (index, argument) in arguments.iter().enumerate() {
        let at = ptr_index(&base, index);
        let Value::Object(argument) = argument else {
            item.push(
                Rule::MalformedEntry,
                at,
                format!(
                    "arguments[{index}] is {}, not an object",
                    type_name(argument)
                ),
            );
            continue;
        };
        expect(item, argument, &at, "title", Json::String);
        expect(item, argument, &at, "required", Json::Bool);
        let name = required_string(item, argument, &at, "name");
        if let Some(name) = name {
            match names.get(name) {
                Some(first) => item.push(
                    Rule::DuplicatePromptArgument,
                    ptr(&at, "name"),
                    format!(
                        "arguments[{first}] is also named `{}`; argument names must be unique",
                        quote(name, 60)
                    ),
                ),
                None => {
                    names.insert(name, index);
                }
            }
        }
        let described = match argument.get("description") {
            Some(Value::String(s)) => !s.trim().is_empty(),
            None => false,
            Some(_) => {
                expect(item, argument, &at, "description", Json::String);
                true
            }
        };
        if !described {
            let who = name.map_or_else(
                || format!("argument {index}"),
                |n| format!("argument `{}`", quote(n, 60)),
            );
            item.push(
                Rule::PromptArgumentNoDescription,
                ptr(&at, "description"),
                format!("{who} has no description; say what value the user should give"),
            );
        }
    }
}

fn resource(item: &mut Item<'_>, resource: &Map<String, Value>, at: &str) {
    if let Some(uri) = required_string(item, resource, at, "uri")
        && let Some(problem) = syntax::uri_problem(uri)
    {
        item.push(
            Rule::ResourceUriInvalid,
            ptr(at, "uri"),
            format!("uri `{}` {problem}", quote(uri, 80)),
        );
    }
    required_string(item, resource, at, "name");
    common_fields(item, resource, at);
    expect(item, resource, at, "annotations", Json::Object);
    expect(item, resource, at, "size", Json::Integer);
    mime_type(item, resource, at);
}

fn template(item: &mut Item<'_>, template: &Map<String, Value>, at: &str) {
    if let Some(uri_template) = required_string(item, template, at, "uriTemplate") {
        let field = ptr(at, "uriTemplate");
        let shown = quote(uri_template, 80);
        match syntax::template_expressions(uri_template) {
            Err(problem) => item.push(Rule::UriTemplateMalformed, field, format!("uriTemplate `{shown}` {problem}")),
            Ok(0) => item.push(
                Rule::UriTemplateNoVariables,
                field,
                format!("uriTemplate `{shown}` has no {{variable}}; list a fixed URI under resources instead"),
            ),
            Ok(_) => {}
        }
    }
    required_string(item, template, at, "name");
    common_fields(item, template, at);
    expect(item, template, at, "annotations", Json::Object);
    mime_type(item, template, at);
}

fn mime_type(item: &mut Item<'_>, object: &Map<String, Value>, at: &str) {
    if !expect(item, object, at, "mimeType", Json::String) {
        return;
    }
    if let Some(Value::String(mime)) = object.get("mimeType")
        && let Some(problem) = syntax::mime_problem(mime)
    {
        item.push(
            Rule::MimeTypeMalformed,
            ptr(at, "mimeType"),
            format!("mimeType {problem}"),
        );
    }
}
