//! The Observation: the one JSON document every check looks at.
//!
//! ```json
//! { "result": <raw MCP result or null>,
//!   "error":  <JSON-RPC error object or null>,
//!   "text":   <the text view of the result>,
//!   "json":   <structuredContent if present, else text parsed as JSON, else null>,
//!   "notifications": [ ... ], "duration_ms": n }
//! ```
//!
//! The text view follows what mcp-assert 0.12.3 looks at, so its suites keep
//! their verdicts:
//!
//! * `tools/call`: the `text` of every `type: text` content block, joined with
//!   `"\n"`; image, audio, resource and resource_link blocks are not part of it.
//! * `prompts/get`: the result's `description` (if non-empty), then each
//!   message's text, joined with `"\n"`; non-text message content is
//!   JSON-encoded.
//! * `resources/read`: each content's `text`, joined with `"\n"`; a blob
//!   becomes `<blob mimeType="..." len=N>` (N: the length of its base64 text).
//! * every other method (`tools/list`, `prompts/list`, `resources/list`,
//!   `resources/templates/list`, `completion/complete`, …): the compact JSON
//!   encoding of the result object.
//!
//! The JSON view parses the text whole, or else its first line that is valid
//! JSON (mcp-assert's rule for `json_path`).
//!
//! Where a view is JSON written by mcpcheck (list results, non-text prompt
//! content), object keys come out in sorted order: the parsed form keeps no
//! order, which keeps parsing and lookups fast on large responses.
//!
//! `result` is the MCP result as received, with one normalization: a
//! `tools/call` result without `isError` gets `"isError": false`, the value
//! the MCP schema gives an absent flag. So `result.isError` with
//! `{exact: false}` (the usual "tool did not error" baseline) passes for
//! servers that omit the flag, as mcp-assert's `not_error` does.

use serde_json::{Map, Value, json};

/// Which MCP method produced a result; it decides the text view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    ToolsCall,
    PromptsGet,
    ResourcesRead,
    /// Any other method: the text view is the result's JSON.
    Other(String),
}

impl Method {
    pub fn from_name(name: &str) -> Method {
        match name {
            "tools/call" => Method::ToolsCall,
            "prompts/get" => Method::PromptsGet,
            "resources/read" => Method::ResourcesRead,
            other => Method::Other(other.to_string()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Method::ToolsCall => "tools/call",
            Method::PromptsGet => "prompts/get",
            Method::ResourcesRead => "resources/read",
            Method::Other(s) => s,
        }
    }
}

/// The text view of a result for `method` (see the module docs).
pub fn text_view(method: &Method, result: &Value) -> String {
    match method {
        Method::ToolsCall => content_text(result.get("content")),
        Method::PromptsGet => {
            let mut parts: Vec<String> = Vec::new();
            if let Some(d) = result.get("description").and_then(Value::as_str)
                && !d.is_empty()
            {
                parts.push(d.to_string());
            }
            if let Some(msgs) = result.get("messages").and_then(Value::as_array) {
                for m in msgs {
                    match m.get("content") {
                        Some(c) if c.get("type").and_then(Value::as_str) == Some("text") => {
                            parts.push(
                                c.get("text")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_string(),
                            );
                        }
                        Some(Value::Array(blocks)) => {
                            parts.push(content_text(Some(&Value::Array(blocks.clone()))))
                        }
                        Some(other) => parts.push(other.to_string()),
                        None => {}
                    }
                }
            }
            parts.join("\n")
        }
        Method::ResourcesRead => {
            let mut parts = Vec::new();
            if let Some(contents) = result.get("contents").and_then(Value::as_array) {
                for c in contents {
                    if let Some(t) = c.get("text").and_then(Value::as_str) {
                        parts.push(t.to_string());
                    } else if let Some(b) = c.get("blob").and_then(Value::as_str) {
                        let mime = c.get("mimeType").and_then(Value::as_str).unwrap_or("");
                        parts.push(format!("<blob mimeType=\"{mime}\" len={}>", b.len()));
                    }
                }
            }
            parts.join("\n")
        }
        Method::Other(_) => {
            if result.is_null() {
                String::new()
            } else {
                result.to_string()
            }
        }
    }
}

fn content_text(content: Option<&Value>) -> String {
    let Some(Value::Array(blocks)) = content else {
        return String::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parse text as JSON: whole, or else its first line that is valid JSON.
pub fn parse_text_json(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Some(v);
    }
    text.lines().find_map(|line| {
        let l = line.trim();
        if l.starts_with(['{', '[', '"'])
            || l.parse::<f64>().is_ok()
            || matches!(l, "true" | "false" | "null")
        {
            serde_json::from_str::<Value>(l).ok()
        } else {
            None
        }
    })
}

/// Build the Observation document for one exchange.
pub fn observe(
    method: &Method,
    result: Option<Value>,
    error: Option<Value>,
    notifications: Vec<Value>,
    duration_ms: Option<u64>,
) -> Value {
    let mut result = result.unwrap_or(Value::Null);
    if *method == Method::ToolsCall
        && let Some(r) = result.as_object_mut()
    {
        r.entry("isError").or_insert(Value::Bool(false));
    }
    let text = text_view(method, &result);
    // A large structured result is kept once: when `structuredContent` is
    // the JSON view, the document has no `json` member and checks read
    // `json` from `result.structuredContent` (see `check::Ctx`);
    // `materialize` writes it out for display.
    let structured = *method == Method::ToolsCall
        && result
            .get("structuredContent")
            .is_some_and(|sc| !sc.is_null());
    let json_view = (!structured).then(|| parse_text_json(&text).unwrap_or(Value::Null));
    let mut doc = Map::new();
    doc.insert("result".into(), result);
    doc.insert("error".into(), error.unwrap_or(Value::Null));
    doc.insert("text".into(), Value::String(text));
    if let Some(j) = json_view {
        doc.insert("json".into(), j);
    }
    doc.insert("notifications".into(), Value::Array(notifications));
    doc.insert(
        "duration_ms".into(),
        duration_ms.map(Value::from).unwrap_or(Value::Null),
    );
    Value::Object(doc)
}

/// How a response document given to `check` was recognised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseShape {
    /// A JSON-RPC response envelope (`{"jsonrpc": "2.0", "id": …, "result": …}`).
    Envelope,
    /// An Observation document (has `text`, `json` or `notifications` next to
    /// `result`/`error`).
    Observation,
    /// A bare MCP result (`{"content": [...], "isError": false}`).
    RawResult,
}

/// Turn any accepted response document into an Observation: a raw MCP
/// result, a JSON-RPC envelope, or an Observation (missing views are filled
/// in from its `result`). `method` picks the text view.
pub fn from_response(method: &Method, mut doc: Value) -> (Value, ResponseShape) {
    let has = |d: &Value, k: &str| d.as_object().is_some_and(|o| o.contains_key(k));
    if has(&doc, "jsonrpc") || (has(&doc, "id") && (has(&doc, "result") || has(&doc, "error"))) {
        let result = doc.get_mut("result").map(Value::take);
        let error = doc
            .get_mut("error")
            .map(Value::take)
            .filter(|e| !e.is_null());
        let obs = observe(method, result, error, Vec::new(), None);
        return (obs, ResponseShape::Envelope);
    }
    let obj = doc.as_object();
    let has = |k: &str| obj.is_some_and(|o| o.contains_key(k));
    let obs_keys = ["text", "json", "notifications", "duration_ms"];
    if (has("result") || has("error")) && obs_keys.iter().any(|k| has(k)) {
        let mut obs = observe(
            method,
            doc.get("result").cloned().filter(|r| !r.is_null()),
            doc.get("error").cloned().filter(|e| !e.is_null()),
            doc.get("notifications")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            doc.get("duration_ms").and_then(Value::as_u64),
        );
        if let (Some(o), Some(given)) = (obs.as_object_mut(), obj) {
            for k in ["text", "json"] {
                if let Some(v) = given.get(k) {
                    o.insert(k.to_string(), v.clone());
                }
            }
            for (k, v) in given {
                if !o.contains_key(k) {
                    o.insert(k.clone(), v.clone());
                }
            }
        }
        return (obs, ResponseShape::Observation);
    }
    (
        observe(method, Some(doc), None, Vec::new(), None),
        ResponseShape::RawResult,
    )
}

/// What a result of `method` must hold: its member and what that member
/// is (`None`: any object, e.g. `ping`'s `{}`).
fn result_member(method: &Method) -> Option<(&'static str, &'static str)> {
    Some(match method.name() {
        "tools/call" => ("content", "a list of content blocks"),
        "prompts/get" => ("messages", "a list of messages"),
        "resources/read" => ("contents", "a list of contents"),
        "tools/list" => ("tools", "a list of tools"),
        "prompts/list" => ("prompts", "a list of prompts"),
        "resources/list" => ("resources", "a list of resources"),
        "resources/templates/list" => ("resourceTemplates", "a list of resource templates"),
        "completion/complete" => ("completion", "an object"),
        _ => return None,
    })
}

/// The members that name a result of another method, and that method.
const OTHER_RESULTS: &[(&str, &str)] = &[
    ("tools", "tools/list"),
    ("prompts", "prompts/list"),
    ("resources", "resources/list"),
    ("resourceTemplates", "resources/templates/list"),
    ("messages", "prompts/get"),
    ("contents", "resources/read"),
    ("completion", "completion/complete"),
    ("content", "tools/call"),
];

/// What a JSON value is, for messages: "a string", "an empty object".
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(o) if o.is_empty() => "an empty object",
        Value::Object(_) => "an object",
    }
}

/// Why `result` cannot be what `method` answers, if it cannot: not an
/// object, or without the member that holds the answer (`content` of a
/// tools/call result, `tools` of a listing, …), or with it of the wrong
/// kind. A check of such a result would give a verdict about nothing.
/// `within` names the document the result came in (a JSON-RPC response, an
/// Observation), or `None` for a result given on its own.
pub fn result_shape_error(method: &Method, result: &Value, within: Option<&str>) -> Option<String> {
    let name = method.name();
    let member = result_member(method);
    let expected = match member {
        Some((member, holds)) => format!("a {name} result (an object with `{member}`, {holds})"),
        None => format!("a {name} result (an object)"),
    };
    let Value::Object(o) = result else {
        return Some(match within {
            Some(doc) => format!(
                "the {doc}'s `result` is {}, not {expected}",
                kind_of(result)
            ),
            None => format!("{} was given, not {expected}", kind_of(result)),
        });
    };
    let (member, holds) = member?;
    let array = holds.starts_with("a list");
    match o.get(member) {
        Some(v) if v.is_array() == array && (array || v.is_object()) => None,
        // A tool result may carry its answer as structured content only.
        None if *method == Method::ToolsCall && o.contains_key("structuredContent") => None,
        Some(v) => Some(format!(
            "the {name} result's `{member}` is {}, not {holds}",
            kind_of(v)
        )),
        None => {
            let inspector =
                o.contains_key("request") && o.keys().all(|k| k == "request" || k == "response");
            let other = OTHER_RESULTS
                .iter()
                .find(|(k, m)| *m != name && o.contains_key(*k));
            let given = if inspector {
                "an MCP Inspector history entry ({request, response})".to_string()
            } else if let Some((key, other)) = other {
                format!("a {other} result (with `{key}`)")
            } else if o.is_empty() {
                "an empty object".to_string()
            } else {
                let mut keys: Vec<String> = o.keys().take(5).map(|k| format!("`{k}`")).collect();
                if o.len() > 5 {
                    keys.push("…".into());
                }
                format!("an object with {}", keys.join(", "))
            };
            let given = match within {
                Some(doc) => format!("the {doc}'s `result` is {given}"),
                None => format!("{given} was given"),
            };
            let advice = if inspector {
                "; check the entry's `response`".to_string()
            } else if let Some((_, other)) = other {
                format!("; to check a {other} answer, set `method: {other}` in the expectations")
            } else {
                String::new()
            };
            Some(format!("{given}, not {expected}{advice}"))
        }
    }
}

/// Why a response document given to `check` holds no answer `method`
/// could have given, if it holds none (see [`result_shape_error`]): the
/// result of an envelope or an Observation, or the document itself as a
/// raw result. An envelope or Observation must hold a result or an error.
pub fn response_shape_error(method: &Method, doc: &Value) -> Option<String> {
    let has = |k: &str| doc.as_object().is_some_and(|o| o.contains_key(k));
    let envelope = has("jsonrpc") || (has("id") && (has("result") || has("error")));
    let observation = ["text", "json", "notifications", "duration_ms"]
        .iter()
        .any(|k| has(k))
        && (has("result") || has("error"));
    if !envelope && !observation {
        return result_shape_error(method, doc, None);
    }
    let what = if envelope {
        "JSON-RPC response"
    } else {
        "Observation"
    };
    let error = doc.get("error").filter(|v| !v.is_null());
    // An envelope's `"result": null` is an answer of the wrong kind; an
    // Observation's is the absence of one.
    let result = doc.get("result").filter(|v| envelope || !v.is_null());
    match (result, error) {
        (_, Some(e)) if !e.is_object() => Some(format!(
            "the {what}'s `error` is {}, not an object with `code` and `message`",
            kind_of(e)
        )),
        (_, Some(_)) => None,
        (Some(r), None) => result_shape_error(method, r, Some(what)),
        (None, None) => Some(format!("the {what} has neither a `result` nor an `error`")),
    }
}

/// The Observation with its `json` member written out (a copy of
/// `result.structuredContent` when that is the JSON view), for display.
pub fn materialize(obs: &Value) -> Value {
    let mut out = obs.clone();
    if out.get("json").is_none()
        && let Some(o) = out.as_object_mut()
    {
        let sc = o
            .get("result")
            .and_then(|r| r.get("structuredContent"))
            .cloned()
            .unwrap_or(Value::Null);
        o.insert("json".into(), sc);
    }
    out
}

/// An empty Observation (no exchange happened), e.g. for trajectory tests.
pub fn empty() -> Value {
    json!({"result": null, "error": null, "text": "", "json": null, "notifications": [], "duration_ms": null})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_text_joins_text_blocks_only() {
        let r = json!({"content": [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "xx", "mimeType": "image/png"},
            {"type": "text", "text": "{\"n\": 1}"}
        ]});
        let obs = observe(&Method::ToolsCall, Some(r), None, vec![], Some(3));
        assert_eq!(obs["text"], json!("a\n{\"n\": 1}"));
        assert_eq!(obs["json"], json!({"n": 1}), "first JSON line");
        assert_eq!(obs["duration_ms"], json!(3));
    }

    #[test]
    fn absent_is_error_reads_as_false_for_tool_results_only() {
        let obs = observe(
            &Method::ToolsCall,
            Some(json!({"content": []})),
            None,
            vec![],
            None,
        );
        assert_eq!(obs["result"]["isError"], json!(false));
        let obs = observe(
            &Method::ToolsCall,
            Some(json!({"isError": true})),
            None,
            vec![],
            None,
        );
        assert_eq!(obs["result"]["isError"], json!(true));
        let obs = observe(
            &Method::ToolsCall,
            None,
            Some(json!({"code": 1})),
            vec![],
            None,
        );
        assert_eq!(obs["result"], Value::Null);
        let list = Method::Other("tools/list".into());
        let obs = observe(&list, Some(json!({"tools": []})), None, vec![], None);
        assert_eq!(obs["result"].get("isError"), None);
    }

    #[test]
    fn structured_content_wins_for_json_view() {
        let r = json!({"content": [{"type": "text", "text": "{\"t\": 1}"}], "structuredContent": {"t": 2}});
        let obs = observe(&Method::ToolsCall, Some(r), None, vec![], None);
        assert!(obs.get("json").is_none(), "kept once, under result");
        assert_eq!(materialize(&obs)["json"], json!({"t": 2}));
    }

    #[test]
    fn prompt_and_resource_views() {
        let p = json!({"description": "D", "messages": [
            {"role": "user", "content": {"type": "text", "text": "hello"}},
            {"role": "user", "content": {"type": "image", "data": "x", "mimeType": "image/png"}}
        ]});
        assert_eq!(
            text_view(&Method::PromptsGet, &p),
            "D\nhello\n{\"data\":\"x\",\"mimeType\":\"image/png\",\"type\":\"image\"}"
        );
        let r = json!({"contents": [{"uri": "a", "text": "T"}, {"uri": "b", "blob": "AAAA", "mimeType": "application/octet-stream"}]});
        assert_eq!(
            text_view(&Method::ResourcesRead, &r),
            "T\n<blob mimeType=\"application/octet-stream\" len=4>"
        );
        let l = json!({"prompts": [{"name": "p"}]});
        assert_eq!(
            text_view(&Method::Other("prompts/list".into()), &l),
            "{\"prompts\":[{\"name\":\"p\"}]}"
        );
    }

    #[test]
    fn recognises_response_shapes() {
        let m = Method::ToolsCall;
        let (o, s) = from_response(
            &m,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}),
        );
        assert_eq!(s, ResponseShape::Envelope);
        assert_eq!(o["error"]["code"], json!(-32601));
        assert_eq!(o["result"], Value::Null);
        let (o, s) = from_response(&m, json!({"content": [{"type": "text", "text": "x"}]}));
        assert_eq!(s, ResponseShape::RawResult);
        assert_eq!(o["text"], json!("x"));
        let (o, s) = from_response(
            &m,
            json!({"result": {"content": []}, "text": "given", "notifications": [{"method": "m"}]}),
        );
        assert_eq!(s, ResponseShape::Observation);
        assert_eq!(o["text"], json!("given"));
        assert_eq!(o["notifications"][0]["method"], json!("m"));
    }
}
