//! Regression tests from findings: a test file in mcp-assert's
//! one-test-per-file form (as `mcpcheck generate` writes) that sends the
//! failing input and fails while the bug is there.
//!
//! What the test expects, as one list-form check on the whole Observation
//! (`target: $`, a `schema` matcher):
//!
//! * a tool and a schema-valid input: a result with a `content` array (a
//!   tool error is a proper answer); with a schema mismatch also a second
//!   check, `result.structuredContent` against the tool's `outputSchema`;
//! * a tool and a schema-invalid input: a rejection, either a result with
//!   `isError: true` or a JSON-RPC error -32602;
//! * a prompt: a result with a `messages` array, or a JSON-RPC error other
//!   than -32700, -32600, -32601, -32603;
//! * a resource: a result with a `contents` array, or such an error.
//!
//! A crash, a hang or output that is not JSON-RPC makes the test an error
//! anyway; a JSON-RPC error where a result belongs, or an accepted invalid
//! input, fails the check. The finding's status, detail and label are in a
//! comment at the top.

use serde_json::{Value, json};

use super::Arguments;
use super::classify::Status;
use super::render::ItemKind;
use crate::generate::{File, Kind, Server, flow, placeholder_variable, quote, sanitize};
use crate::redact::header_is_plain;

/// What a regression test is written for.
#[derive(Clone, Copy, Debug)]
pub struct Finding<'a> {
    pub kind: ItemKind,
    /// The tool or prompt name, or the resource URI.
    pub item: &'a str,
    /// The arguments that failed (for a prompt, its `arguments` object).
    pub arguments: &'a Arguments,
    pub status: Status,
    pub detail: &'a str,
    /// The fuzz case's label; empty for an audit finding.
    pub label: &'a str,
    /// Whether the arguments satisfy the tool's input schema (tools only).
    pub schema_valid: bool,
    /// The tool's `outputSchema`, checked again for a `schema_mismatch`.
    pub output_schema: Option<&'a Value>,
}

/// Whether the suite format can send `arguments` exactly (numbers by
/// value: a whole float may be sent as the same integer): a suite always
/// sends an object (`args` left out sends `{}`), substitutes `{{…}}` and
/// `${…}` in strings, reads `-0.0` as `0` and a whole number past
/// `i64::MAX` as a float. For omitted, `null` or non-object arguments, or
/// values like those, the written test sends the nearest input it can and
/// says so in a comment.
pub fn regression_exact(arguments: &Arguments) -> bool {
    fn plain(v: &Value) -> bool {
        match v {
            Value::Number(n) => {
                let past_i64 = n.is_u64() && !n.is_i64();
                let negative_zero = n.as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative());
                !(past_i64 || negative_zero)
            }
            Value::String(s) => !(s.contains("{{") || s.contains("${")),
            Value::Array(a) => a.iter().all(plain),
            Value::Object(o) => o.iter().all(|(k, x)| plain(&json!(k)) && plain(x)),
            _ => true,
        }
    }
    matches!(arguments, Arguments::Value(v) if v.is_object() && plain(v))
}

/// The test file for one finding; `timeout` is a suite duration (`30s`).
/// The file name is `regression_<item>_<status>.yaml` (prompts and
/// resources prefixed like `generate`'s); see [`regression_tests`] for
/// several findings with distinct names. The `server` block is written as
/// `generate` writes it: a header other than a plain one becomes
/// `${MCPCHECK_HEADER_<NAME>}`.
pub fn regression_test(server: &Server, finding: &Finding<'_>, timeout: &str) -> File {
    let f = finding;
    let stem = match f.kind {
        ItemKind::Tool => sanitize(f.item),
        ItemKind::Prompt => format!("prompt_{}", sanitize(f.item)),
        ItemKind::Resource => format!("resource_{}", sanitize(f.item)),
    };
    let name = format!("regression_{stem}_{}.yaml", f.status.as_str());
    let mut text = header(f);
    let title = if f.label.is_empty() {
        format!(
            "regression: {} {} ({})",
            f.kind.as_str(),
            f.item,
            f.status.as_str()
        )
    } else {
        format!(
            "regression: {} {}: {} ({})",
            f.kind.as_str(),
            f.item,
            f.label,
            f.status.as_str()
        )
    };
    text.push_str(&format!("name: {}\n", quote(&title)));
    text.push_str(&server_block(server));
    let args = match f.arguments {
        Arguments::Value(v @ Value::Object(_)) => Some(v),
        _ => None,
    };
    match f.kind {
        ItemKind::Tool => {
            text.push_str(&format!("assert:\n  tool: {}\n", quote(f.item)));
            if let Some(a) = args {
                text.push_str(&format!("  args: {}\n", flow(a)));
            }
        }
        ItemKind::Prompt => {
            let arguments = args
                .map(|a| format!(", \"arguments\": {}", flow(a)))
                .unwrap_or_default();
            text.push_str(&format!(
                "assert_prompts:\n  get: {{\"name\": {}{arguments}}}\n",
                quote(f.item)
            ));
        }
        ItemKind::Resource => {
            text.push_str(&format!("assert_resources:\n  read: {}\n", quote(f.item)));
        }
    }
    text.push_str("  expect:\n");
    text.push_str(&format!(
        "    - name: {}\n      target: \"$\"\n      matcher:\n        schema: {}\n",
        quote(expectation_name(f)),
        flow(&proper_answer(f))
    ));
    if let (Status::SchemaMismatch, Some(schema)) = (f.status, f.output_schema) {
        text.push_str(&format!(
            "    - name: \"structuredContent matches the outputSchema\"\n      target: \"result.structuredContent\"\n      matcher:\n        schema: {}\n",
            flow(schema)
        ));
    }
    let timeout = if !timeout.is_empty()
        && timeout
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.')
    {
        timeout.to_string()
    } else {
        quote(timeout)
    };
    text.push_str(&format!("timeout: {timeout}\n"));
    let kind = match f.kind {
        ItemKind::Tool => Kind::Tool,
        ItemKind::Prompt => Kind::Prompt,
        ItemKind::Resource => Kind::Resource,
    };
    File {
        name,
        kind,
        item: f.item.to_string(),
        text,
    }
}

/// [`regression_test`] for each finding, a name already taken (compared
/// without regard to case) getting `_2`, `_3`, … before `.yaml`.
pub fn regression_tests(server: &Server, findings: &[Finding<'_>], timeout: &str) -> Vec<File> {
    let mut taken: Vec<String> = Vec::new();
    findings
        .iter()
        .map(|f| {
            let mut file = regression_test(server, f, timeout);
            let stem = file.name.trim_end_matches(".yaml").to_string();
            let mut n = 2;
            while taken.contains(&file.name.to_ascii_lowercase()) {
                file.name = format!("{stem}_{n}.yaml");
                n += 1;
            }
            taken.push(file.name.to_ascii_lowercase());
            file
        })
        .collect()
}

/// A comment line's text: controls shown escaped, cut to 300 characters.
fn comment(s: &str) -> String {
    let cut = crate::truncate(s, 300);
    cut.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => "\\t".to_string(),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}') => {
                format!("\\u{{{:x}}}", c as u32)
            }
            c => c.to_string(),
        })
        .collect()
}

fn header(f: &Finding<'_>) -> String {
    let mut h = String::from("# A regression test written by mcpcheck from a finding:\n");
    h.push_str(&format!("#   status: {}\n", f.status.as_str()));
    h.push_str(&format!("#   detail: {}\n", comment(f.detail)));
    if !f.label.is_empty() {
        h.push_str(&format!("#   input:  {}\n", comment(f.label)));
    }
    h.push_str("# It fails while the bug is there and passes once the server answers properly.\n");
    if !regression_exact(f.arguments) && f.kind != ItemKind::Resource {
        let sent = match f.arguments {
            Arguments::Omitted => "no `arguments` key".to_string(),
            Arguments::Null => "`arguments: null`".to_string(),
            Arguments::Value(v) if !v.is_object() => format!(
                "`arguments: {}`",
                comment(&crate::truncate(&v.to_string(), 60))
            ),
            Arguments::Value(_) => {
                "`-0.0`, a number past i64::MAX, or `{{`/`${` in a string".to_string()
            }
        };
        h.push_str(&format!(
            "# Note: the finding sent {sent}; a suite cannot send that exactly, so this test sends the nearest input.\n"
        ));
    }
    h
}

fn expectation_name(f: &Finding<'_>) -> &'static str {
    match f.kind {
        ItemKind::Tool if !f.schema_valid => {
            "the invalid input is rejected (isError: true or -32602)"
        }
        ItemKind::Tool => "answers with a result (a tool error counts)",
        ItemKind::Prompt => "answers with messages or a proper error",
        ItemKind::Resource => "answers with contents or a proper error",
    }
}

/// The schema the whole Observation must satisfy.
fn proper_answer(f: &Finding<'_>) -> Value {
    let result_with = |field: &str, extra: Value| {
        let mut result = json!({
            "type": "object",
            "required": [field],
            "properties": {field: {"type": "array"}},
        });
        if let (Some(r), Value::Object(e)) = (result.as_object_mut(), extra) {
            for (k, v) in e {
                match (k.as_str(), r.get_mut(&k)) {
                    ("required", Some(Value::Array(have))) => {
                        have.extend(v.as_array().cloned().unwrap_or_default());
                    }
                    ("properties", Some(Value::Object(have))) => {
                        have.extend(v.as_object().cloned().unwrap_or_default());
                    }
                    _ => {
                        r.insert(k, v);
                    }
                }
            }
        }
        json!({"required": ["result"], "properties": {"result": result}})
    };
    let error_code = |code: Value| {
        json!({"required": ["error"], "properties": {"error": {
            "type": "object", "required": ["code"], "properties": {"code": code}
        }}})
    };
    let proper_error =
        error_code(json!({"type": "integer", "not": {"enum": [-32700, -32600, -32601, -32603]}}));
    match f.kind {
        ItemKind::Tool if !f.schema_valid => json!({"anyOf": [
            result_with("content", json!({"required": ["isError"], "properties": {"isError": {"const": true}}})),
            error_code(json!({"const": -32602})),
        ]}),
        ItemKind::Tool => result_with(
            "content",
            json!({"properties": {"content": {"type": "array", "items": {"type": "object", "required": ["type"]}}}}),
        ),
        ItemKind::Prompt => json!({"anyOf": [result_with("messages", json!({})), proper_error]}),
        ItemKind::Resource => json!({"anyOf": [result_with("contents", json!({})), proper_error]}),
    }
}

/// The `server:` block as `generate` writes it.
fn server_block(server: &Server) -> String {
    match server {
        Server::Stdio { command, args } => {
            let args: Vec<Value> = args.iter().map(|a| json!(a)).collect();
            format!(
                "server:\n  command: {}\n  args: {}\n",
                quote(command),
                flow(&Value::Array(args))
            )
        }
        Server::Remote {
            transport,
            url,
            headers,
        } => {
            let mut text = format!(
                "server:\n  transport: {}\n  url: {}\n",
                quote(transport),
                quote(url)
            );
            if !headers.is_empty() {
                text.push_str("  headers:\n");
            }
            for (name, value) in headers {
                let value = if header_is_plain(name) {
                    value.clone()
                } else {
                    format!("${{{}}}", placeholder_variable(name))
                };
                text.push_str(&format!("    {}: {}\n", quote(name), quote(&value)));
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_stay_on_one_line() {
        assert_eq!(comment("a\nb\r\u{1b}\u{2028}"), "a\\nb\\r\\u{1b}\\u{2028}");
        assert_eq!(comment(&"x".repeat(400)).chars().count(), 301);
    }

    #[test]
    fn exactness() {
        assert!(regression_exact(&Arguments::Value(
            json!({"a": [1, "b", 1.5, -0]})
        )));
        assert!(!regression_exact(&Arguments::Value(json!({"a": -0.0}))));
        assert!(!regression_exact(&Arguments::Value(json!({"a": u64::MAX}))));
        assert!(!regression_exact(&Arguments::Value(
            json!({"a": "${HOME}"})
        )));
        assert!(!regression_exact(&Arguments::Value(json!({"{{x}}": 1}))));
        assert!(!regression_exact(&Arguments::Value(json!([]))));
        assert!(!regression_exact(&Arguments::Null));
        assert!(!regression_exact(&Arguments::Omitted));
    }
}
