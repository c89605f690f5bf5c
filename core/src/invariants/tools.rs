//! Tool rules: the shape of tools/call results (INV-005), structured results against
//! the tool's outputSchema (INV-013), and tool names (INV-014).

use std::collections::{HashMap, HashSet};

use super::Sink;
use super::fast;
use super::json;
use super::rules::Rule;
use super::session::{Revision, SessionCtx};
use crate::capture::Exchange;

/// One tool as a tools/list result describes it.
pub(crate) struct ToolDef<'a> {
    pub(crate) name: Option<String>,
    pub(crate) output_schema: Option<&'a str>,
}

/// The tools of one successful tools/list answer.
pub(crate) struct ToolList<'a> {
    /// The exchange that answered.
    pub(crate) exchange: usize,
    /// Whether the request carried a cursor (a later page of a listing).
    pub(crate) continues: bool,
    pub(crate) tools: Vec<ToolDef<'a>>,
}

/// Every successful tools/list answer of the session, in order.
pub(crate) fn tool_lists<'a>(exchanges: &[Exchange<'a>]) -> Vec<ToolList<'a>> {
    let mut lists = Vec::new();
    for (index, exchange) in exchanges.iter().enumerate() {
        if !exchange.request.method_is("tools/list") {
            continue;
        }
        let Some(result) = exchange.response.as_ref().and_then(|r| r.result()) else {
            continue;
        };
        let Some(tools) = json::member(result, "tools").and_then(json::elements) else {
            continue;
        };
        let continues = exchange
            .request
            .params()
            .and_then(|p| json::member(p, "cursor"))
            .is_some_and(|c| !json::is_null(c));
        let tools = tools
            .into_iter()
            .map(|tool| {
                let object = json::Object::new(tool);
                ToolDef {
                    name: object
                        .as_ref()
                        .and_then(|o| o.get("name"))
                        .and_then(json::as_str)
                        .map(|n| n.into_owned()),
                    output_schema: object
                        .as_ref()
                        .and_then(|o| o.get("outputSchema"))
                        .filter(|s| !json::is_null(s)),
                }
            })
            .collect();
        lists.push(ToolList {
            exchange: index,
            continues,
            tools,
        });
    }
    lists
}

/// Whether a tools/call result is an interim or deferred answer rather than the tool's
/// result: a 2026-07-28 InputRequiredResult, or a 2025-11-25 task handle.
fn is_interim(exchange: &Exchange<'_>, result: &json::Object<'_>) -> bool {
    // A task handle (the tasks extension) is deferred too.
    let input_required = result
        .get("resultType")
        .and_then(json::as_str)
        .is_some_and(|t| t == "input_required" || t == "task");
    let task_augmented = exchange
        .request
        .params()
        .and_then(|p| json::member(p, "task"))
        .is_some_and(|t| !json::is_null(t));
    input_required || task_augmented
}

/// One answered tools/call, read once for both rules that look at it.
struct Call<'a> {
    index: usize,
    name: String,
    result: &'a str,
    object: Option<json::Object<'a>>,
    /// An interim or deferred answer, not the tool's result (see [`is_interim`]).
    interim: bool,
}

/// An outputSchema compiled for the fast path (every result, see `fast.rs`) and for a
/// `Value` (the verdict and errors of a result the fast path does not pass).
struct OutputValidator {
    fast: Option<fast::Fast>,
    value: jsonschema::Validator,
}

/// Compiled output schemas, keyed by (tools/list exchange, tool name); `Err` when the
/// schema cannot be compiled (reported once).
type Compiled = HashMap<(usize, String), Result<OutputValidator, ()>>;

/// INV-005 and INV-013, in one pass over the session's answered tools/call requests.
pub(crate) fn tool_calls(ctx: &SessionCtx<'_, '_>, lists: &[ToolList<'_>], out: &mut Sink) {
    let mut compiled: Compiled = HashMap::new();
    let mut buffer = fast::Buffer::default();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        if !exchange.request.is_request() || !exchange.request.method_is("tools/call") {
            continue;
        }
        let Some(result) = exchange.response.as_ref().and_then(|r| r.result()) else {
            continue;
        };
        let object = json::Object::new(result);
        let interim = object.as_ref().is_some_and(|o| is_interim(exchange, o));
        let call = Call {
            index,
            name: tool_name(exchange),
            result,
            object,
            interim,
        };
        result_shape(&call, out);
        output_schema(&call, lists, &mut compiled, &mut buffer, out);
    }
}

/// INV-005: a successful tools/call result carries a content array or a
/// structuredContent object, and a boolean isError when present.
fn result_shape(call: &Call<'_>, out: &mut Sink) {
    let Call { index, name, .. } = call;
    let Some(object) = &call.object else {
        out.push(
            Rule::ToolResultShape,
            Some(*index),
            format!(
                "the tools/call result for `{name}` is {}, not an object",
                json::type_name(call.result)
            ),
        );
        return;
    };
    if call.interim {
        return;
    }
    let content_ok = object.get("content").is_some_and(json::is_array);
    let structured_ok = object.get("structuredContent").is_some_and(json::is_object);
    if !content_ok && !structured_ok {
        out.push(
            Rule::ToolResultShape,
            Some(*index),
            format!("the tools/call result for `{name}` has neither a content array nor a structuredContent object"),
        );
    }
    if let Some(is_error) = object.get("isError")
        && json::as_bool(is_error).is_none()
    {
        out.push(
            Rule::ToolResultShape,
            Some(*index),
            format!(
                "the tools/call result for `{name}` has isError {}, which is not a boolean",
                json::snippet(is_error, 40)
            ),
        );
    }
}

fn tool_name(exchange: &Exchange<'_>) -> String {
    exchange
        .request
        .params()
        .and_then(|p| json::member(p, "name"))
        .and_then(json::as_str)
        .map_or_else(|| "?".to_string(), |n| n.into_owned())
}

/// INV-013: structuredContent validates against the tool's outputSchema.
fn output_schema(
    call: &Call<'_>,
    lists: &[ToolList<'_>],
    compiled: &mut Compiled,
    buffer: &mut fast::Buffer,
    out: &mut Sink,
) {
    let Call { index, name, .. } = call;
    let index = *index;
    let Some(object) = &call.object else {
        return;
    };
    if call.interim || object.get("isError").and_then(json::as_bool) == Some(true) {
        return;
    }
    // The definition in force: the latest listing before the call, else the first
    // one after it (a capture may list tools only at the end).
    let found = lists
        .iter()
        .rev()
        .filter(|l| l.exchange < index)
        .chain(lists.iter().filter(|l| l.exchange > index))
        .find_map(|l| {
            l.tools
                .iter()
                .find(|t| t.name.as_deref() == Some(name.as_str()))
                .map(|t| (l.exchange, t))
        });
    let Some((list_index, tool)) = found else {
        return;
    };
    let Some(schema) = tool.output_schema else {
        return;
    };
    let validator = compiled.entry((list_index, name.clone())).or_insert_with(|| {
        compile(schema).map_err(|problem| {
            out.push(
                Rule::OutputSchema,
                Some(list_index),
                format!("the outputSchema of tool `{name}` cannot be used to validate results: {problem}"),
            );
        })
    });
    let Ok(validator) = validator else {
        return;
    };
    let Some(structured) = object
        .get("structuredContent")
        .filter(|s| !json::is_null(s))
    else {
        out.push(
            Rule::OutputSchema,
            Some(index),
            format!(
                "tool `{name}` declares an outputSchema (tools/list in exchange {list_index}) but its result has no structuredContent"
            ),
        );
        return;
    };
    if let Some(fast) = &validator.fast
        && fast::is_valid(fast, structured, buffer) == Some(true)
    {
        return;
    }
    let Some(instance) = json::to_value(structured) else {
        return;
    };
    let Some(failure) = json::schema_failure(&validator.value, &instance) else {
        return;
    };
    out.push(
        Rule::OutputSchema,
        Some(index),
        format!(
            "the structuredContent of tool `{name}` does not match its outputSchema (tools/list in exchange {list_index}): {failure}"
        ),
    );
}

/// Why a tool's outputSchema cannot validate results; the finding quotes it.
#[derive(Debug, thiserror::Error)]
enum OutputSchemaError {
    #[error("it is not valid JSON")]
    NotJson,
    /// `0` is the JSON type it is instead.
    #[error("it is {0}, not a schema object")]
    NotSchema(&'static str),
    /// The validator library's words, cut to 200 characters.
    #[error("{0}")]
    Invalid(String),
}

/// Compiles a tool's outputSchema. JSON Schema 2020-12 is the default dialect for MCP
/// schemas without `$schema` (2025-11-25 basic/index §JSON Schema Usage); references
/// are resolved only within the schema itself, never fetched (2026-07-28 basic/index
/// §$ref Resolution: an unresolved external reference is a rejection, not a pass).
fn compile(schema: &str) -> Result<OutputValidator, OutputSchemaError> {
    let value = json::to_value(schema).ok_or(OutputSchemaError::NotJson)?;
    if !value.is_object() && !value.is_boolean() {
        return Err(OutputSchemaError::NotSchema(json::type_name(schema)));
    }
    // JSON Schema 2020-12 unless the schema names its dialect.
    let draft = value
        .get("$schema")
        .is_none()
        .then_some(jsonschema::Draft::Draft202012);
    let mut plain = jsonschema::options();
    if let Some(draft) = draft {
        plain = plain.with_draft(draft);
    }
    let problem = |e: jsonschema::ValidationError<'_>| {
        OutputSchemaError::Invalid(json::snippet(&e.to_string(), 200).to_string())
    };
    let value_validator = plain.build(&value).map_err(problem)?;
    Ok(OutputValidator {
        // Without a fast validator every result takes the `Value` path.
        fast: fast::build(&value, None, draft).ok().flatten(),
        value: value_validator,
    })
}

/// A tool name per 2025-11-25: 1 to 128 characters of `A-Za-z0-9_-.`.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    let length = name.chars().count();
    if length == 0 {
        return Some("is empty".to_string());
    }
    if length > 128 {
        return Some(format!("is {length} characters long (at most 128)"));
    }
    let bad: Vec<char> = {
        let mut seen = Vec::new();
        for c in name.chars() {
            if !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') || seen.contains(&c)) {
                seen.push(c);
            }
        }
        seen
    };
    (!bad.is_empty()).then(|| {
        let shown: Vec<String> = bad.iter().map(|c| format!("{c:?}")).collect();
        format!("contains {} (allowed: A-Z a-z 0-9 _ - .)", shown.join(", "))
    })
}

/// INV-014: tool names follow the 2025-11-25 naming rule and are unique.
pub(crate) fn tool_names(ctx: &SessionCtx<'_, '_>, lists: &[ToolList<'_>], out: &mut Sink) {
    // The rule was introduced in 2025-11-25; older sessions are not held to it.
    if ctx
        .schema_revision
        .is_some_and(|r| r < Revision::R2025_11_25)
    {
        return;
    }
    let mut listing: HashSet<&str> = HashSet::new();
    for list in lists {
        if !list.continues {
            listing.clear();
        }
        for tool in &list.tools {
            let Some(name) = tool.name.as_deref() else {
                continue;
            };
            if let Some(problem) = name_problem(name) {
                out.push(
                    Rule::ToolNames,
                    Some(list.exchange),
                    format!("tool name {name:?} {problem}"),
                );
            }
            if !listing.insert(name) {
                out.push(
                    Rule::ToolNames,
                    Some(list.exchange),
                    format!("tool name {name:?} appears more than once in the server's tool list"),
                );
            }
        }
    }
}
