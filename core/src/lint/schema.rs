//! The rules over a tool's inputSchema and outputSchema: the root's shape, whether
//! the schema compiles, references, `required`, enum and default, the keywords some
//! clients drop, and (inputSchema) the parameters.
//!
//! A schema is compiled with the `jsonschema` crate in its declared dialect, JSON
//! Schema 2020-12 when it names none (MCP 2025-11-25 basic/index §JSON Schema
//! Usage), without fetching anything: no retriever is configured, so an external
//! reference fails to resolve, as the 2026-07-28 revision asks of every client.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::rules::Rule;
use super::{Item, ptr, ptr_index, quote};
use crate::value::{json_eq, show_json, type_name};

/// Which schema of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// `inputSchema`: what a model fills in.
    Input,
    /// `outputSchema`: what structured results follow.
    Output,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Input => "inputSchema",
            Mode::Output => "outputSchema",
        }
    }
}

/// Subschemas below this depth are not visited (serde_json parses 128 levels; a
/// schema that deep is hostile, not a tool's).
const MAX_DEPTH: usize = 64;
/// Keywords whose value is one subschema (or, for `items`, a list of them).
const SINGLE: [&str; 12] = [
    "additionalProperties",
    "items",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is a list of subschemas.
const LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: [&str; 6] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];
/// Keywords OpenAI's strict function calling and Gemini's function `parameters`
/// (an OpenAPI Schema subset) do not accept, as documented by each.
const CLIENT_UNSUPPORTED: [&str; 7] = [
    "if",
    "patternProperties",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
];

/// One subschema and where it is.
struct Node<'v> {
    schema: &'v Map<String, Value>,
    at: String,
    /// Below a subschema with an `$id` of its own, where `#…` references resolve
    /// against that subschema rather than the root.
    nested_id: bool,
    /// Applied to the same instance as its parent (a branch of allOf, anyOf,
    /// oneOf, not, if/then/else, dependentSchemas): its `required` may name the
    /// parent's properties.
    in_place: bool,
}

/// Keywords whose subschemas apply to the same instance as the schema holding them.
const IN_PLACE: [&str; 9] = [
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
];

/// Every object subschema of `root`, root first, in document order.
fn nodes<'v>(root: &'v Map<String, Value>, at: &str) -> Vec<Node<'v>> {
    let mut out = Vec::new();
    let mut stack = vec![(root, at.to_string(), false, false, 0usize)];
    while let Some((schema, at, nested_id, in_place, depth)) = stack.pop() {
        let mut children: Vec<(&'v Map<String, Value>, String, bool)> = Vec::new();
        if depth < MAX_DEPTH {
            for (key, value) in schema {
                let here = ptr(&at, key);
                let applies_in_place = IN_PLACE.contains(&key.as_str());
                match value {
                    Value::Object(map) if MAP.contains(&key.as_str()) => {
                        for (name, sub) in map {
                            if let Value::Object(sub) = sub {
                                children.push((sub, ptr(&here, name), applies_in_place));
                            }
                        }
                    }
                    Value::Object(sub) if SINGLE.contains(&key.as_str()) => {
                        children.push((sub, here, applies_in_place));
                    }
                    Value::Array(list) if LIST.contains(&key.as_str()) || key == "items" => {
                        for (i, sub) in list.iter().enumerate() {
                            if let Value::Object(sub) = sub {
                                children.push((sub, ptr_index(&here, i), applies_in_place));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        for (sub, sub_at, sub_in_place) in children.into_iter().rev() {
            let own_id = sub
                .get("$id")
                .is_some_and(|id| id.as_str().is_some_and(|s| !s.starts_with('#')));
            stack.push((sub, sub_at, nested_id || own_id, sub_in_place, depth + 1));
        }
        out.push(Node {
            schema,
            at,
            nested_id,
            in_place,
        });
    }
    out
}

/// Every rule over one schema object (`schema`, found at `at`).
pub(super) fn lint_schema(item: &mut Item<'_>, schema: &Map<String, Value>, at: &str, mode: Mode) {
    root_shape(item, schema, at, mode);
    let root = Value::Object(schema.clone());
    let nodes = nodes(schema, at);
    let anchors = anchors(&nodes);
    let mut reported_refs: Vec<String> = Vec::new();
    for node in &nodes {
        required_in_properties(item, node);
        default_in_schema(item, node);
        enum_values(item, node);
        reference(item, node, &root, schema, &anchors, &mut reported_refs);
        if mode == Mode::Input {
            client_keywords(item, node);
        }
    }
    compiles(item, &root, at, mode, &reported_refs);
    if mode == Mode::Input {
        parameters(item, schema, &root, at);
    }
}

/// E603, E604 (inputSchema) and W604 (outputSchema): the root.
fn root_shape(item: &mut Item<'_>, schema: &Map<String, Value>, at: &str, mode: Mode) {
    let which = mode.name();
    let problem = match schema.get("type") {
        Some(Value::String(t)) if t == "object" => None,
        None => Some(format!("{which} has no type")),
        Some(other) => Some(format!("{which} has type {}", show_json(other, 60))),
    };
    if let Some(problem) = problem {
        match mode {
            Mode::Input => item.push(
                Rule::InputSchemaNotObjectType,
                ptr(at, "type"),
                format!("{problem}; MCP requires \"type\": \"object\" at the root (arguments are an object)"),
            ),
            Mode::Output => item.push(
                Rule::OutputSchemaNotObjectType,
                ptr(at, "type"),
                format!("{problem}; MCP up to 2025-11-25 requires \"type\": \"object\" at the root (2026-07-28 allows any schema)"),
            ),
        }
    }
    if mode == Mode::Input {
        for keyword in ["oneOf", "anyOf", "allOf"] {
            if schema.contains_key(keyword) {
                item.push(
                    Rule::TopLevelComposition,
                    ptr(at, keyword),
                    format!("`{keyword}` at the root of inputSchema: Claude's API rejects every request listing this tool (input_schema does not support oneOf, allOf, or anyOf at the top level); move the alternatives into the properties they concern"),
                );
            }
        }
    }
}

/// E606: `required` names that `properties` does not define, where nothing else in
/// the object schema could define them.
fn required_in_properties(item: &mut Item<'_>, node: &Node<'_>) {
    let Some(Value::Array(required)) = node.schema.get("required") else {
        return;
    };
    if node.in_place {
        return;
    }
    const ELSEWHERE: [&str; 11] = [
        "allOf",
        "anyOf",
        "oneOf",
        "$ref",
        "$dynamicRef",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependencies",
        "patternProperties",
    ];
    if ELSEWHERE.iter().any(|k| node.schema.contains_key(*k)) {
        return;
    }
    let schema_valued =
        |key: &str| matches!(node.schema.get(key), Some(Value::Object(o)) if !o.is_empty());
    if schema_valued("additionalProperties") || schema_valued("unevaluatedProperties") {
        return;
    }
    let properties = match node.schema.get("properties") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        // Not a schema map: E605 says so.
        Some(_) => return,
    };
    for (i, name) in required.iter().enumerate() {
        let Some(name) = name.as_str() else {
            continue;
        };
        if !properties.is_some_and(|p| p.contains_key(name)) {
            item.push(
                Rule::RequiredNotInProperties,
                ptr_index(&ptr(&node.at, "required"), i),
                format!("`{}` is required but properties does not define it, so it has no type or description", quote(name, 60)),
            );
        }
    }
}

/// W602: a `default` that the schema's own enum, const or type rejects.
fn default_in_schema(item: &mut Item<'_>, node: &Node<'_>) {
    let Some(default) = node.schema.get("default") else {
        return;
    };
    // OpenAPI's `nullable: true` admits null beside the type.
    if default.is_null() && node.schema.get("nullable") == Some(&Value::Bool(true)) {
        return;
    }
    let shown = show_json(default, 60);
    let problem = if let Some(Value::Array(values)) = node.schema.get("enum")
        && !values.is_empty()
        && !values.iter().any(|v| json_eq(v, default))
    {
        Some(format!("default {shown} is not one of the enum values"))
    } else if let Some(c) = node.schema.get("const")
        && !json_eq(c, default)
    {
        Some(format!(
            "default {shown} differs from const {}",
            show_json(c, 60)
        ))
    } else {
        let types: Vec<&str> = match node.schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        (!types.is_empty() && !types.iter().any(|t| is_of_type(default, t))).then(|| {
            let what = if default.is_null() {
                String::new()
            } else {
                format!(" {},", type_name(default))
            };
            format!(
                "default {shown} is{what} not of type {}",
                types.join(" or ")
            )
        })
    };
    if let Some(problem) = problem {
        item.push(
            Rule::DefaultInvalid,
            ptr(&node.at, "default"),
            format!("{problem}; a client that fills in the default sends an invalid value"),
        );
    }
}

/// JSON Schema's type test (an integer is a number with no fraction).
fn is_of_type(value: &Value, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        // An unknown type name: E605 reports the schema.
        _ => true,
    }
}

/// W603: an empty enum, or one listing a value twice.
fn enum_values(item: &mut Item<'_>, node: &Node<'_>) {
    let Some(Value::Array(values)) = node.schema.get("enum") else {
        return;
    };
    let field = ptr(&node.at, "enum");
    if values.is_empty() {
        item.push(
            Rule::EnumMalformed,
            field,
            "enum is empty, so no value is valid".to_string(),
        );
        return;
    }
    // Quadratic, but enums are short; a long one is compared by its JSON text.
    let duplicate = if values.len() <= 512 {
        (1..values.len()).find_map(|j| {
            (0..j)
                .find(|&i| json_eq(&values[i], &values[j]))
                .map(|i| (i, j))
        })
    } else {
        let mut seen = std::collections::HashMap::new();
        values
            .iter()
            .enumerate()
            .find_map(|(j, v)| seen.insert(v.to_string(), j).map(|i| (i, j)))
    };
    if let Some((i, j)) = duplicate {
        item.push(
            Rule::EnumMalformed,
            ptr_index(&field, j),
            format!(
                "enum lists {} twice (also at index {i})",
                show_json(&values[j], 60)
            ),
        );
    }
}

/// The `$anchor`s and `$dynamicAnchor`s of the schema, and draft-07's `$id: "#name"`.
fn anchors(nodes: &[Node<'_>]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for node in nodes {
        for key in ["$anchor", "$dynamicAnchor"] {
            if let Some(Value::String(a)) = node.schema.get(key) {
                out.insert(a.clone());
            }
        }
        if let Some(id) = node
            .schema
            .get("$id")
            .and_then(Value::as_str)
            .and_then(|id| id.strip_prefix('#'))
        {
            out.insert(id.to_string());
        }
    }
    out
}

/// E607 and E608: where a `$ref` points.
fn reference(
    item: &mut Item<'_>,
    node: &Node<'_>,
    root: &Value,
    schema: &Map<String, Value>,
    anchors: &BTreeSet<String>,
    reported: &mut Vec<String>,
) {
    let Some(Value::String(reference)) = node.schema.get("$ref") else {
        return;
    };
    let field = ptr(&node.at, "$ref");
    let shown = quote(reference, 100);
    let (resource, fragment) = match reference.split_once('#') {
        Some((r, f)) => (r, f),
        None => (reference.as_str(), ""),
    };
    let root_id = schema
        .get("$id")
        .and_then(Value::as_str)
        .map(|id| id.trim_end_matches('#'))
        .filter(|id| !id.is_empty());
    let local = resource.is_empty() || Some(resource) == root_id;
    if local {
        if node.nested_id {
            // Resolves against a nested `$id`; the compiler judges it (E605).
            return;
        }
        if let Some(problem) = local_problem(root, fragment, anchors) {
            reported.push(percent_decode(fragment));
            item.push(
                Rule::DanglingRef,
                field,
                format!("$ref `{shown}` {problem}"),
            );
        }
        return;
    }
    let embedded = ids(root)
        .iter()
        .any(|id| id == resource || id.ends_with(&format!("/{resource}")));
    let metaschema = resource.starts_with("https://json-schema.org/")
        || resource.starts_with("http://json-schema.org/");
    if embedded || metaschema {
        return;
    }
    reported.push(resource.to_string());
    let network = resource.starts_with("http://") || resource.starts_with("https://");
    let problem = if network {
        "points to a network URI, which clients do not fetch (and MUST NOT by default from 2026-07-28); inline the schema under $defs and refer to it as #/$defs/…"
    } else {
        "points outside the schema (no $id in it matches), and clients resolve nothing else; inline it under $defs and refer to it as #/$defs/…"
    };
    item.push(
        Rule::ExternalRef,
        field,
        format!("$ref `{shown}` {problem}"),
    );
}

/// The `$id`s anywhere in the schema, without a trailing `#`.
fn ids(root: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            Value::Object(map) if depth < MAX_DEPTH * 2 => {
                if let Some(Value::String(id)) = map.get("$id") {
                    out.push(id.trim_end_matches('#').to_string());
                }
                stack.extend(map.values().map(|v| (v, depth + 1)));
            }
            Value::Array(list) if depth < MAX_DEPTH * 2 => {
                stack.extend(list.iter().map(|v| (v, depth + 1)))
            }
            _ => {}
        }
    }
    out
}

/// Why the fragment of a local reference resolves to nothing, if it does not.
fn local_problem(root: &Value, fragment: &str, anchors: &BTreeSet<String>) -> Option<String> {
    if fragment.is_empty() {
        return None;
    }
    if !fragment.starts_with('/') {
        return (!anchors.contains(fragment)).then(|| {
            format!(
                "names the anchor `{}`, which no $anchor in the schema defines",
                quote(fragment, 60)
            )
        });
    }
    let pointer = percent_decode(fragment);
    if root.pointer(&pointer).is_some() {
        return None;
    }
    let container = pointer.split('/').nth(1).unwrap_or("");
    let missing_container =
        matches!(container, "$defs" | "definitions") && root.get(container).is_none();
    Some(if missing_container {
        format!("points into {container}, but the schema has no {container}")
    } else {
        "points at nothing in the schema".to_string()
    })
}

/// `%XX` escapes of a URI fragment decoded (invalid ones kept as written).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |j: usize| bytes.get(j).and_then(|b| (*b as char).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// I601: keywords outside the subsets some clients accept.
fn client_keywords(item: &mut Item<'_>, node: &Node<'_>) {
    for keyword in CLIENT_UNSUPPORTED {
        if node.schema.contains_key(keyword) {
            let shown = if keyword == "if" {
                "if/then/else"
            } else {
                keyword
            };
            item.push(
                Rule::ClientUnsupportedKeyword,
                ptr(&node.at, keyword),
                format!("`{shown}` is outside the schema subsets OpenAI's strict function calling and Gemini's function parameters accept; those clients drop the constraint or reject the tool"),
            );
        }
    }
}

/// E605: the schema compiles in its dialect. A failure to resolve a reference
/// E607 or E608 already reported is not reported twice.
fn compiles(item: &mut Item<'_>, root: &Value, at: &str, mode: Mode, reported_refs: &[String]) {
    let declared = root.get("$schema").and_then(Value::as_str);
    let mut options = jsonschema::options();
    if declared.is_none() {
        options = options.with_draft(jsonschema::Draft::Draft202012);
    }
    let Err(error) = options.build(root) else {
        return;
    };
    let text = error.to_string();
    let is_reference = matches!(
        error.kind(),
        jsonschema::error::ValidationErrorKind::Referencing(_)
    );
    if is_reference
        && reported_refs
            .iter()
            .any(|r| !r.is_empty() && text.contains(r.as_str()))
    {
        return;
    }
    let dialect = declared.map_or_else(
        || "JSON Schema 2020-12, the default".to_string(),
        |d| format!("$schema {}", quote(d, 80)),
    );
    let location = error.instance_path().to_string();
    // The meta-schema's message for a bad type name is about its anyOf.
    let bad_type = location.ends_with("/type") && text.contains("'anyOf'");
    let text = match root.pointer(&location) {
        Some(Value::String(t)) if bad_type => format!(
            "type \"{}\" is not a JSON Schema type (string, number, integer, boolean, object, array, null)",
            quote(t, 40)
        ),
        _ => text,
    };
    item.push(
        Rule::InvalidSchema,
        format!("{at}{location}"),
        format!(
            "{} is not a valid schema ({dialect}): {}",
            mode.name(),
            quote(&text, 300)
        ),
    );
}

/// E102, E103 and W102: the parameters, the inputSchema's root properties.
fn parameters(item: &mut Item<'_>, schema: &Map<String, Value>, root: &Value, at: &str) {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    let required: Vec<&str> = match schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let base = ptr(at, "properties");
    for (name, property) in properties {
        let field = ptr(&base, name);
        let shown = quote(name, 60);
        let (typed, described) = match property {
            Value::Bool(true) => (false, false),
            Value::Object(p) => (is_typed(p), is_described(p, root)),
            // `false` (never given) or not a schema (E605).
            _ => continue,
        };
        if !typed {
            item.push(
                Rule::ParamUntyped,
                field.clone(),
                format!("parameter `{shown}` constrains no type; give it a type (or an enum, const, $ref or anyOf of typed schemas)"),
            );
        }
        if described {
            continue;
        }
        if required.contains(&name.as_str()) {
            item.push(
                Rule::RequiredParamNoDescription,
                ptr(&field, "description"),
                format!("required parameter `{shown}` has no description; say what value it takes (meaning, format, an example)"),
            );
        } else {
            item.push(
                Rule::OptionalParamNoDescription,
                ptr(&field, "description"),
                format!("optional parameter `{shown}` has no description; say what it does and what leaving it out means"),
            );
        }
    }
}

/// Whether a parameter's schema constrains its type in some way.
fn is_typed(schema: &Map<String, Value>) -> bool {
    [
        "type",
        "enum",
        "const",
        "$ref",
        "$dynamicRef",
        "anyOf",
        "oneOf",
        "allOf",
    ]
    .iter()
    .any(|k| schema.contains_key(*k))
}

/// Whether a parameter has a description: its own, or that of the schema it
/// refers to or of one of its alternatives (`anyOf: [{$ref}, {type: null}]`, as
/// Pydantic writes an optional model).
fn is_described(schema: &Map<String, Value>, root: &Value) -> bool {
    let own = |s: &Map<String, Value>| {
        let text = |s: &Map<String, Value>| {
            s.get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.trim().is_empty())
        };
        text(s)
            || s.get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|p| root.pointer(&percent_decode(p)))
                .and_then(Value::as_object)
                .is_some_and(text)
    };
    if own(schema) {
        return true;
    }
    ["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| match schema.get(*k) {
            Some(Value::Array(branches)) => branches.iter().filter_map(Value::as_object).any(own),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(schema: Value, mode: Mode) -> Vec<(String, String)> {
        let skip = BTreeSet::new();
        let out = super::super::Out::new(&skip);
        let mut item = out.item(super::super::ItemKind::Tool, "t".into());
        if let Value::Object(s) = &schema {
            lint_schema(&mut item, s, "/s", mode);
        }
        let mut out = super::super::Out::new(&skip);
        out.finish(item);
        out.findings
            .into_iter()
            .map(|f| (f.code().to_string(), f.location.pointer.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn nodes_are_visited_in_document_order() {
        let schema = json!({"type": "object", "properties": {"a": {"items": {"type": "string"}}, "b": {"anyOf": [{"type": "string"}]}}, "$defs": {"d": {"type": "integer"}}});
        let Value::Object(s) = &schema else { return };
        let at: Vec<String> = nodes(s, "").into_iter().map(|n| n.at).collect();
        assert_eq!(
            at,
            [
                "",
                "/$defs/d",
                "/properties/a",
                "/properties/a/items",
                "/properties/b",
                "/properties/b/anyOf/0"
            ]
        );
    }

    #[test]
    fn references() {
        let ok = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/properties/a"}, "c": {"$ref": "#c"}, "d": {"$ref": "#/$defs/My%20Type"}}, "$defs": {"A": {"type": "string", "description": "x"}, "My Type": {"type": "string", "$anchor": "c"}}, "required": []});
        assert_eq!(
            codes(ok, Mode::Input),
            [
                (
                    "W102".to_string(),
                    "/s/properties/b/description".to_string()
                ),
                ("W102".into(), "/s/properties/c/description".into()),
                ("W102".into(), "/s/properties/d/description".into())
            ]
        );
        let dangling = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "x"}}});
        assert_eq!(
            codes(dangling, Mode::Input),
            [("E608".to_string(), "/s/properties/a/$ref".to_string())]
        );
        let network = json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json", "description": "x"}}});
        assert_eq!(
            codes(network, Mode::Input),
            [("E607".to_string(), "/s/properties/a/$ref".to_string())]
        );
        let own_id = json!({"$id": "https://example.com/root", "type": "object", "properties": {"a": {"$ref": "https://example.com/root#/$defs/A", "description": "x"}}, "$defs": {"A": {"type": "string"}}});
        assert_eq!(codes(own_id, Mode::Input), []);
    }

    #[test]
    fn compile_errors_point_into_the_schema() {
        let bad =
            json!({"type": "object", "properties": {"a": {"type": "strin", "description": "x"}}});
        assert_eq!(
            codes(bad, Mode::Input),
            [("E605".to_string(), "/s/properties/a/type".to_string())]
        );
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/$defs/My%20Type"), "/$defs/My Type");
        assert_eq!(percent_decode("/a%zz"), "/a%zz");
        assert_eq!(percent_decode("/%C3%A9"), "/é");
    }
}
