//! Regression tests from findings: a test file in mcp-assert's
//! one-test-per-file form (as `mcpcheck generate` writes) that sends the
//! failing input and fails while the bug is there.
//!
//! A test is written only when it cannot pass while the bug is there: when
//! the suite format can send the failing arguments exactly
//! ([`regression_exact`]). A suite always sends an object as `arguments`, so
//! a finding for `arguments: null`, `[]` or no `arguments` at all gets no
//! test (the nearest input a suite could send, `{}`, may well be answered
//! properly by the same server), and [`regressions`] says so.
//!
//! Findings are grouped by root cause first ([`regressions`]): one status
//! on one kind of input of one tool (a fuzz case's category: every
//! format-breaking string that makes `lookup` answer -32603 is one cause),
//! and for the shape of `arguments` itself (null, an array, missing), which
//! the server's SDK handles for every tool alike, one cause per server. A
//! random case joins a cause of its tool and status when there is one. Each
//! cause gets one test, from its first finding the suite can send exactly.
//!
//! What the test expects, as one list-form check on the whole Observation
//! (`target: $`, a `schema` matcher):
//!
//! * a tool and a schema-valid input: a result with a `content` array of
//!   well-formed items (a known `type` and that type's fields), `isError` a
//!   boolean when present, `structuredContent` an object when present (a
//!   tool error is a proper answer); with a schema mismatch also a second
//!   check, `result.structuredContent` against the tool's `outputSchema`;
//! * a tool and a schema-invalid input: a rejection, either such a result
//!   with `isError: true` or a JSON-RPC error -32602;
//! * a prompt: a result with a `messages` array, or a JSON-RPC error other
//!   than -32700, -32600, -32601, -32603;
//! * a resource: a result with a `contents` array, or such an error.
//!
//! A crash, a hang, a flood or output that is not JSON-RPC makes the test an
//! error anyway; a JSON-RPC error where a result belongs, a malformed
//! result, or an accepted invalid input fails the check. The finding's
//! status, detail and label are in a comment at the top, with the other
//! findings of its cause.

use serde_json::{Value, json};

use super::Arguments;
use super::classify::Status;
use super::fuzz::Category;
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
    /// The fuzz case's category; `None` for an audit finding.
    pub category: Option<Category>,
}

/// Why no test is written for a finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotWritten(pub String);

/// One root cause among the findings, and what was done about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// What its findings have in common, in words.
    pub summary: String,
    /// Its findings, as indices into the findings given, in order.
    pub findings: Vec<usize>,
    /// The name of the file written for it, or why there is none.
    pub written: Result<String, NotWritten>,
}

/// The tests [`regressions`] writes, and every cause with what became of it.
#[derive(Clone, Debug, Default)]
pub struct Regressions {
    pub files: Vec<File>,
    pub causes: Vec<Cause>,
}

/// Whether the suite format can send `arguments` exactly (numbers by
/// value: a whole float may be sent as the same integer): a suite always
/// sends an object (`args` left out sends `{}`), substitutes `{{…}}` and
/// `${…}` in strings, reads `-0.0` as `0` and a whole number past
/// `i64::MAX` as a float. For omitted, `null` or non-object arguments, or
/// values like those, no regression test is written: the nearest input a
/// suite could send might be answered properly while the bug is there.
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
/// resources prefixed like `generate`'s); see [`regressions`] for several
/// findings, grouped by cause, with distinct names. The `server` block is
/// written as `generate` writes it: a header other than a plain one becomes
/// `${MCPCHECK_HEADER_<NAME>}`. `Err` when the suite format cannot send the
/// finding's input exactly ([`regression_exact`]), saying why.
pub fn regression_test(
    server: &Server,
    finding: &Finding<'_>,
    timeout: &str,
) -> Result<File, NotWritten> {
    cause_test(server, finding, &[], timeout)
}

/// [`regression_test`], naming `also`, the other findings of its cause.
fn cause_test(
    server: &Server,
    finding: &Finding<'_>,
    also: &[&Finding<'_>],
    timeout: &str,
) -> Result<File, NotWritten> {
    let f = finding;
    if let Some(why) = inexact(f) {
        return Err(why);
    }
    let stem = match f.kind {
        ItemKind::Tool => sanitize(f.item),
        ItemKind::Prompt => format!("prompt_{}", sanitize(f.item)),
        ItemKind::Resource => format!("resource_{}", sanitize(f.item)),
    };
    let name = format!("regression_{stem}_{}.yaml", f.status.as_str());
    let mut text = header(f, also);
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
    Ok(File {
        name,
        kind,
        item: f.item.to_string(),
        text,
    })
}

/// The causes of `findings` (see the module doc), each with one test when
/// one of its findings can be sent exactly, in the order of their first
/// findings. A file name already taken (compared without regard to case)
/// gets `_2`, `_3`, … before `.yaml`.
pub fn regressions(server: &Server, findings: &[Finding<'_>], timeout: &str) -> Regressions {
    let mut out = Regressions::default();
    let mut taken: Vec<String> = Vec::new();
    for members in causes(findings) {
        let first = &findings[members[0]];
        let summary = summary(first, &members, findings);
        let chosen = members
            .iter()
            .position(|&i| inexact(&findings[i]).is_none());
        let written = match chosen {
            None => Err(inexact(first).unwrap_or_else(|| NotWritten(String::new()))),
            Some(at) => {
                let also: Vec<&Finding<'_>> = members
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != at)
                    .map(|(_, &i)| &findings[i])
                    .collect();
                cause_test(server, &findings[members[at]], &also, timeout).map(|mut file| {
                    let stem = file.name.trim_end_matches(".yaml").to_string();
                    let mut n = 2;
                    while taken.contains(&file.name.to_ascii_lowercase()) {
                        file.name = format!("{stem}_{n}.yaml");
                        n += 1;
                    }
                    taken.push(file.name.to_ascii_lowercase());
                    let name = file.name.clone();
                    out.files.push(file);
                    name
                })
            }
        };
        out.causes.push(Cause {
            summary,
            findings: members,
            written,
        });
    }
    out
}

/// What a cause is about beyond its status: the whole server for the shape
/// of `arguments` (`None`), else its item and its kind of input.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Scope {
    /// `arguments` null or not an object, on any tool.
    ArgumentsNotAnObject,
    /// No `arguments` key, on any tool.
    ArgumentsMissing,
    /// One item, one kind of input (`None`: an audit finding, or a random
    /// case of a status no systematic case of the item had).
    Item {
        kind: ItemKind,
        item: String,
        category: Option<Category>,
    },
}

fn scope(f: &Finding<'_>) -> Scope {
    match f.category {
        Some(Category::ArgumentsNull | Category::ArgumentsWrongType) => Scope::ArgumentsNotAnObject,
        Some(Category::ArgumentsMissing) => Scope::ArgumentsMissing,
        category => Scope::Item {
            kind: f.kind,
            item: f.item.to_string(),
            category,
        },
    }
}

/// The findings grouped by cause, as indices, causes in the order of their
/// first finding.
fn causes(findings: &[Finding<'_>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(Status, Scope, Vec<usize>)> = Vec::new();
    let mut random = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if f.category == Some(Category::Random) {
            random.push(i);
            continue;
        }
        let key = scope(f);
        match groups
            .iter_mut()
            .find(|(s, k, _)| *s == f.status && *k == key)
        {
            Some((_, _, members)) => members.push(i),
            None => groups.push((f.status, key, vec![i])),
        }
    }
    // A random case joins a cause of its item and status, when there is one.
    for i in random {
        let f = &findings[i];
        let same_item = |k: &Scope| matches!(k, Scope::Item { kind, item, .. } if *kind == f.kind && item == f.item);
        match groups
            .iter_mut()
            .find(|(s, k, _)| *s == f.status && same_item(k))
        {
            Some((_, _, members)) => members.push(i),
            None => groups.push((f.status, scope(f), vec![i])),
        }
    }
    let mut out: Vec<Vec<usize>> = groups.into_iter().map(|(_, _, m)| m).collect();
    for m in &mut out {
        m.sort_unstable();
    }
    out.sort_by_key(|m| m[0]);
    out
}

/// A cause in words: `protocol_error for \`arguments\` null or an array (4
/// findings, 2 tools)`, `crash of tool \`echo\`: empty_value (1 finding)`.
fn summary(first: &Finding<'_>, members: &[usize], findings: &[Finding<'_>]) -> String {
    let n = crate::report::plural(members.len(), "finding", "findings");
    let mut items: Vec<&str> = members.iter().map(|&i| findings[i].item).collect();
    items.sort_unstable();
    items.dedup();
    let tools = crate::report::plural(items.len(), "tool", "tools");
    let status = first.status.as_str();
    match scope(first) {
        Scope::ArgumentsNotAnObject => {
            format!("{status} for `arguments` null or an array, on any tool ({n}, {tools})")
        }
        Scope::ArgumentsMissing => {
            format!("{status} for no `arguments` at all, on any tool ({n}, {tools})")
        }
        Scope::Item {
            kind,
            item,
            category,
        } => {
            let on = match category {
                Some(c) => format!(": {} inputs", c.as_str()),
                None => String::new(),
            };
            format!("{status} of {} `{item}`{on} ({n})", kind.as_str())
        }
    }
}

/// Why the suite format cannot send a finding's input exactly, if it cannot.
fn inexact(f: &Finding<'_>) -> Option<NotWritten> {
    if f.kind == ItemKind::Resource || regression_exact(f.arguments) {
        return None;
    }
    let (sent, because) = match f.arguments {
        Arguments::Omitted => (
            "no `arguments` key".to_string(),
            "it always sends an object as `arguments`",
        ),
        Arguments::Null => (
            "`arguments: null`".to_string(),
            "it always sends an object as `arguments`",
        ),
        Arguments::Value(v) if !v.is_object() => (
            format!(
                "`arguments: {}`",
                comment(&crate::truncate(&v.to_string(), 60))
            ),
            "it always sends an object as `arguments`",
        ),
        Arguments::Value(_) => (
            "these arguments".to_string(),
            "it reads `-0.0` as `0`, a whole number past i64::MAX as a float, and `{{…}}` and `${…}` in strings as templates",
        ),
    };
    Some(NotWritten(format!(
        "a suite cannot send {sent} ({because}), and a test sending the nearest input could pass while the bug is there; the finding stays in the report"
    )))
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

fn header(f: &Finding<'_>, also: &[&Finding<'_>]) -> String {
    let mut h = String::from("# A regression test written by mcpcheck from a finding:\n");
    h.push_str(&format!("#   status: {}\n", f.status.as_str()));
    h.push_str(&format!("#   detail: {}\n", comment(f.detail)));
    if !f.label.is_empty() {
        h.push_str(&format!("#   input:  {}\n", comment(f.label)));
    }
    if !also.is_empty() {
        h.push_str(&format!(
            "# The same cause ({} status, the same kind of input) also gave:\n",
            f.status.as_str()
        ));
        for a in also.iter().take(20) {
            let label = if a.label.is_empty() {
                a.detail
            } else {
                a.label
            };
            h.push_str(&format!(
                "#   {} {}: {}\n",
                a.kind.as_str(),
                a.item,
                comment(label)
            ));
        }
        if also.len() > 20 {
            h.push_str(&format!("#   … and {} more\n", also.len() - 20));
        }
    }
    h.push_str("# It fails while the bug is there and passes once the server answers properly.\n");
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
    // What `classify` holds a tools/call result to: well-formed content
    // items, a boolean `isError`, an object `structuredContent`.
    let string = json!({"type": "string"});
    let when = |ty: Value, then: Value| json!({"if": {"properties": {"type": ty}}, "then": then});
    let content_item = json!({
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": ["text", "image", "audio", "resource", "resource_link"]}},
        "allOf": [
            when(json!({"const": "text"}), json!({"required": ["text"], "properties": {"text": string}})),
            when(
                json!({"enum": ["image", "audio"]}),
                json!({"required": ["data", "mimeType"], "properties": {"data": string, "mimeType": string}}),
            ),
            when(
                json!({"const": "resource"}),
                json!({"required": ["resource"], "properties": {"resource": {
                    "type": "object", "required": ["uri"], "properties": {"uri": string}}}}),
            ),
            when(
                json!({"const": "resource_link"}),
                json!({"required": ["uri", "name"], "properties": {"uri": string, "name": string}}),
            ),
        ],
    });
    let tool_result = |required: Value, is_error: Value| {
        json!({"required": required, "properties": {
            "content": {"type": "array", "items": content_item},
            "isError": is_error,
            "structuredContent": {"type": ["object", "null"]},
        }})
    };
    match f.kind {
        ItemKind::Tool if !f.schema_valid => json!({"anyOf": [
            result_with("content", tool_result(json!(["isError"]), json!({"const": true}))),
            error_code(json!({"const": -32602})),
        ]}),
        ItemKind::Tool => result_with(
            "content",
            tool_result(json!([]), json!({"type": ["boolean", "null"]})),
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
