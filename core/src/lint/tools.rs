//! The rules over one tool: its name, description, annotations and the shape of
//! its schemas (the schema content rules are in `schema.rs`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::rules::Rule;
use super::schema::{self, Mode};
use super::{Item, ItemKind, Out, ptr, ptr_index, quote, thousands};
use crate::value::type_name;

/// A description shorter than this many characters …
const SHORT_CHARS: usize = 20;
/// … and with fewer words than this is too short (mcp-assert's W111 uses 20
/// characters alone, which flags `Adds two numbers`).
const SHORT_WORDS: usize = 3;
/// OpenAI's Chat Completions API rejects a function description longer than this.
const LONG_CHARS: usize = 1024;
/// mcp-assert's W106 budget for a whole tools/list, in tokens of about 4 bytes.
const LISTING_TOKENS: usize = 8000;

/// What earlier tools of the listing used, for the duplicate rules.
#[derive(Default)]
struct Seen {
    /// Name → the first tool's index.
    names: HashMap<String, usize>,
    /// Normalized description → the first tool's index and name.
    descriptions: HashMap<String, (usize, String)>,
}

/// Every tool of a `tools` array at `base`, then the listing-wide size rule.
pub(super) fn lint_tools(out: &mut Out<'_>, tools: &[Value], base: &str) {
    let mut bytes = 0usize;
    let mut seen = Seen::default();
    for (index, tool) in tools.iter().enumerate() {
        bytes += serde_json::to_string(tool).map_or(0, |t| t.len());
        let at = ptr_index(base, index);
        let name = tool.get("name").and_then(Value::as_str);
        let label = name.map_or_else(|| format!("tools[{index}]"), str::to_string);
        let mut item = out.item(ItemKind::Tool, label);
        match tool {
            Value::Object(object) => lint_tool(&mut item, object, index, &at, &mut seen),
            other => item.push(
                Rule::MalformedEntry,
                at,
                format!("tools[{index}] is {}, not an object", type_name(other)),
            ),
        }
        out.finish(item);
    }
    let tokens = bytes / 4;
    if tokens > LISTING_TOKENS {
        let mut item = out.item(ItemKind::Listing, "tools".to_string());
        item.push(
            Rule::ListingTooLarge,
            base.to_string(),
            format!(
                "the {} tool definitions take about {} tokens ({} bytes at about 4 bytes a token), over {}; shorten descriptions and schemas or split the server",
                tools.len(),
                thousands(tokens),
                thousands(bytes),
                thousands(LISTING_TOKENS)
            ),
        );
        out.finish(item);
    }
}

fn lint_tool(
    item: &mut Item<'_>,
    tool: &Map<String, Value>,
    index: usize,
    at: &str,
    seen: &mut Seen,
) {
    name(item, tool, index, at, seen);
    field_types(item, tool, at);
    description(item, tool, index, at, seen);
    let input = ptr(at, "inputSchema");
    match tool.get("inputSchema") {
        None => item.push(
            Rule::InputSchemaMissing,
            input,
            "has no inputSchema; a tool without parameters declares {\"type\": \"object\", \"additionalProperties\": false}".to_string(),
        ),
        Some(Value::Object(s)) => schema::lint_schema(item, s, &input, Mode::Input),
        Some(other) => item.push(
            Rule::InputSchemaMissing,
            input,
            format!(
                "inputSchema is {}, not a JSON Schema object; a tool without parameters declares {{\"type\": \"object\", \"additionalProperties\": false}}",
                shown_type(other)
            ),
        ),
    }
    let output = ptr(at, "outputSchema");
    match tool.get("outputSchema") {
        // Absent and null both mean "no output schema" to the SDKs.
        None | Some(Value::Null) => {}
        Some(Value::Object(s)) => schema::lint_schema(item, s, &output, Mode::Output),
        Some(other) => item.push(
            Rule::OutputSchemaNotJsonObject,
            output,
            format!(
                "outputSchema is {}, not a JSON Schema object",
                shown_type(other)
            ),
        ),
    }
    annotations(item, tool, at);
}

/// A type name that tells the boolean schemas apart.
fn shown_type(v: &Value) -> String {
    match v {
        Value::Bool(b) => format!("the boolean schema {b}"),
        other => type_name(other).to_string(),
    }
}

fn name(item: &mut Item<'_>, tool: &Map<String, Value>, index: usize, at: &str, seen: &mut Seen) {
    let field = ptr(at, "name");
    let name = match tool.get("name") {
        None => {
            item.push(
                Rule::MalformedEntry,
                field,
                "has no name (MCP requires one)".into(),
            );
            return;
        }
        Some(Value::String(name)) => name,
        Some(other) => {
            item.push(
                Rule::MalformedEntry,
                field,
                format!("name is {}, not a string", type_name(other)),
            );
            return;
        }
    };
    if let Some(problem) = super::syntax::tool_name_problem(name) {
        item.push(
            Rule::ToolNameFormat,
            field.clone(),
            format!("name {problem}"),
        );
    }
    match seen.names.get(name) {
        Some(first) => item.push(
            Rule::DuplicateToolName,
            field,
            format!("tools[{first}] has the same name; tool names must be unique"),
        ),
        None => {
            seen.names.insert(name.clone(), index);
        }
    }
}

/// The JSON types of the optional fields.
fn field_types(item: &mut Item<'_>, tool: &Map<String, Value>, at: &str) {
    expect(item, tool, at, "title", Json::String);
    expect(item, tool, at, "description", Json::String);
    expect(item, tool, at, "icons", Json::Array);
    expect(item, tool, at, "execution", Json::Object);
    expect(item, tool, at, "_meta", Json::Object);
    if expect(item, tool, at, "annotations", Json::Object)
        && let Some(Value::Object(annotations)) = tool.get("annotations")
    {
        let at = ptr(at, "annotations");
        expect(item, annotations, &at, "title", Json::String);
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            expect(item, annotations, &at, hint, Json::Bool);
        }
    }
}

/// A JSON type a field must have.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Json {
    String,
    Object,
    Array,
    Bool,
    Integer,
}

impl Json {
    fn matches(self, v: &Value) -> bool {
        match self {
            Json::String => v.is_string(),
            Json::Object => v.is_object(),
            Json::Array => v.is_array(),
            Json::Bool => v.is_boolean(),
            Json::Integer => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Json::String => "a string",
            Json::Object => "an object",
            Json::Array => "an array",
            Json::Bool => "a boolean",
            Json::Integer => "an integer",
        }
    }
}

/// E601 when `key` is present with another type; whether the field is absent or
/// of the type.
pub(super) fn expect(
    item: &mut Item<'_>,
    object: &Map<String, Value>,
    at: &str,
    key: &str,
    want: Json,
) -> bool {
    match object.get(key) {
        Some(v) if !want.matches(v) => {
            item.push(
                Rule::MalformedEntry,
                ptr(at, key),
                format!("{key} is {}, not {}", type_name(v), want.name()),
            );
            false
        }
        _ => true,
    }
}

fn description(
    item: &mut Item<'_>,
    tool: &Map<String, Value>,
    index: usize,
    at: &str,
    seen: &mut Seen,
) {
    let field = ptr(at, "description");
    let text = match tool.get("description") {
        None => {
            item.push(
                Rule::ToolDescriptionMissing,
                field,
                "has no description; say what the tool does, what it returns and when to use it"
                    .into(),
            );
            return;
        }
        Some(Value::String(text)) => text.trim(),
        // Reported by E601.
        Some(_) => return,
    };
    if text.is_empty() {
        item.push(
            Rule::ToolDescriptionMissing,
            field,
            "description is blank; say what the tool does, what it returns and when to use it"
                .into(),
        );
        return;
    }
    let chars = text.chars().count();
    let words = text.split_whitespace().count();
    if chars < SHORT_CHARS && words < SHORT_WORDS {
        item.push(
            Rule::ToolDescriptionLength,
            field.clone(),
            format!(
                "description \"{}\" is {chars} characters; say what the tool does, what it returns and when to use it",
                quote(text, 40)
            ),
        );
    } else if chars > LONG_CHARS {
        item.push(
            Rule::ToolDescriptionLength,
            field.clone(),
            format!(
                "description is {} characters; OpenAI's function calling rejects descriptions over {} (string_above_max_length)",
                thousands(chars),
                thousands(LONG_CHARS)
            ),
        );
    }
    let key = text
        .split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    let name = item.name.clone();
    match seen.descriptions.get(&key) {
        Some((first, first_name)) => item.push(
            Rule::DuplicateToolDescription,
            field,
            format!("same description as tools[{first}] `{first_name}`; say how the two differ"),
        ),
        None => {
            seen.descriptions.insert(key, (index, name));
        }
    }
}

fn annotations(item: &mut Item<'_>, tool: &Map<String, Value>, at: &str) {
    let Some(Value::Object(a)) = tool.get("annotations") else {
        return;
    };
    let is_true = |key: &str| a.get(key) == Some(&Value::Bool(true));
    if is_true("readOnlyHint") && is_true("destructiveHint") {
        item.push(
            Rule::ContradictoryAnnotations,
            ptr(&ptr(at, "annotations"), "destructiveHint"),
            "readOnlyHint and destructiveHint are both true; a read-only tool destroys nothing (drop destructiveHint, or set readOnlyHint to false)".into(),
        );
    }
}
