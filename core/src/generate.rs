//! `mcpcheck generate`: from what a server lists, one starter test per tool,
//! prompt and resource, in mcp-assert's one-test-per-file format.
//!
//! The caller connects, lists and writes; this module decides the example
//! arguments, the file names and the text of every file.
//!
//! * A tool's `args` hold every *required* property of its `inputSchema`,
//!   with an example value ([`example_value`]).
//! * A prompt's `arguments` hold its required arguments, each `"example"`.
//! * At most [`MAX_RESOURCES`] resources get a `read` test.
//! * File names keep `[A-Za-z0-9_.-]` and replace the rest with `_`; a name
//!   already taken (compared without regard to case) gets `_2`, `_3`, ….
//! * Every string is written double-quoted with YAML escapes, and values are
//!   written in flow style (JSON is valid YAML flow style), so no name or value
//!   can change the structure of the file.
//! * The `server` block reproduces how the server was reached; a header value
//!   is written as `${MCPCHECK_HEADER_<NAME>}` unless the header only
//!   describes the request ([`crate::redact::header_is_plain`]), so no
//!   credential lands in a file.

use serde_json::{Map, Value, json};

use crate::redact::header_is_plain;

/// The most resources that get a test.
pub const MAX_RESOURCES: usize = 20;

/// The string example for a string without a better one.
pub const EXAMPLE_STRING: &str = "example";

/// How deep an input schema is followed (nesting and `$ref`s together).
const MAX_DEPTH: usize = 32;

/// How the server was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Server {
    Stdio {
        command: String,
        args: Vec<String>,
    },
    /// `transport` is `http` (Streamable HTTP) or `sse`.
    Remote {
        transport: String,
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// What a generated file tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
}

/// One file to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// The file name, `[A-Za-z0-9_.-]` only, ending in `.yaml`.
    pub name: String,
    pub kind: Kind,
    /// The tool or prompt name, or the resource URI.
    pub item: String,
    pub text: String,
}

/// A header whose value was replaced by an environment variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder {
    pub header: String,
    pub variable: String,
}

/// Everything to write, and what the user should be told.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub files: Vec<File>,
    pub placeholders: Vec<Placeholder>,
    /// Resources past [`MAX_RESOURCES`], which get no test.
    pub resources_left_out: usize,
    /// Listed items without a name (or URI), which get no test.
    pub unnamed: usize,
}

/// The files for a server's tools, prompts and resources (as listed), each
/// test with `timeout` (a suite duration such as `30s`).
pub fn plan(
    server: &Server,
    tools: &[Value],
    prompts: &[Value],
    resources: &[Value],
    timeout: &str,
) -> Plan {
    let (server_block, placeholders) = server_yaml(server);
    let mut out = Plan {
        placeholders,
        ..Plan::default()
    };
    let mut taken: Vec<String> = Vec::new();
    let tail = format!("timeout: {}\n", quote_if_needed(timeout));

    for t in tools {
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            out.unnamed += 1;
            continue;
        };
        let args = t
            .get("inputSchema")
            .map(example_args)
            .unwrap_or_else(|| json!({}));
        let text = format!(
            "{HEADER}name: {}\n{server_block}assert:\n  tool: {}\n  args: {}\n  expect:\n    not_error: true\n{tail}",
            quote(&format!("{name} returns expected result")),
            quote(name),
            flow(&args),
        );
        out.files.push(File {
            name: unique_name(&sanitize(name), &mut taken),
            kind: Kind::Tool,
            item: name.to_string(),
            text,
        });
    }

    for p in prompts {
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            out.unnamed += 1;
            continue;
        };
        let arguments = prompt_arguments(p);
        let arguments = if arguments.is_empty() {
            String::new()
        } else {
            format!(", \"arguments\": {}", flow(&Value::Object(arguments)))
        };
        let text = format!(
            "{HEADER}name: {}\n{server_block}assert_prompts:\n  get: {{\"name\": {}{arguments}}}\n  expect:\n    not_error: true\n{tail}",
            quote(&format!("prompt {name} renders")),
            quote(name),
        );
        out.files.push(File {
            name: unique_name(&format!("prompt_{}", sanitize(name)), &mut taken),
            kind: Kind::Prompt,
            item: name.to_string(),
            text,
        });
    }

    let mut written = 0;
    for r in resources {
        let Some(uri) = r.get("uri").and_then(Value::as_str) else {
            out.unnamed += 1;
            continue;
        };
        if written == MAX_RESOURCES {
            out.resources_left_out += 1;
            continue;
        }
        written += 1;
        let text = format!(
            "{HEADER}name: {}\n{server_block}assert_resources:\n  read: {}\n  expect:\n    not_error: true\n{tail}",
            quote(&format!("resource {uri} can be read")),
            quote(uri),
        );
        out.files.push(File {
            name: unique_name(&format!("resource_{}", slug(uri)), &mut taken),
            kind: Kind::Resource,
            item: uri.to_string(),
            text,
        });
    }
    out
}

const HEADER: &str = "# Written by `mcpcheck generate` from what the server lists.\n\
# The arguments are placeholders: replace them with real ones and add expectations.\n";

/// A prompt's required arguments, each `"example"` (also what `conformance`
/// sends to `prompts/get`).
pub fn prompt_arguments(prompt: &Value) -> Map<String, Value> {
    let mut arguments = Map::new();
    for a in prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if a.get("required").and_then(Value::as_bool) == Some(true)
            && let Some(n) = a.get("name").and_then(Value::as_str)
        {
            arguments.insert(n.to_string(), json!(EXAMPLE_STRING));
        }
    }
    arguments
}

/// The `server:` block, and the headers written as placeholders.
fn server_yaml(server: &Server) -> (String, Vec<Placeholder>) {
    match server {
        Server::Stdio { command, args } => {
            let args: Vec<Value> = args.iter().map(|a| json!(a)).collect();
            (
                format!(
                    "server:\n  command: {}\n  args: {}\n",
                    quote(command),
                    flow(&Value::Array(args))
                ),
                Vec::new(),
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
            let mut placeholders = Vec::new();
            if !headers.is_empty() {
                text.push_str("  headers:\n");
            }
            for (name, value) in headers {
                let value = if header_is_plain(name) {
                    value.clone()
                } else {
                    let variable = placeholder_variable(name);
                    let written = format!("${{{variable}}}");
                    placeholders.push(Placeholder {
                        header: name.clone(),
                        variable,
                    });
                    written
                };
                text.push_str(&format!("    {}: {}\n", quote(name), quote(&value)));
            }
            (text, placeholders)
        }
    }
}

/// The environment variable that stands for a header's value:
/// `MCPCHECK_HEADER_` and the name in upper case, other characters as `_`.
pub fn placeholder_variable(header: &str) -> String {
    let name: String = header
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("MCPCHECK_HEADER_{name}")
}

/// Example arguments for a tool: every required property of its input
/// schema (an object schema), with [`example_value`]s.
pub fn example_args(input_schema: &Value) -> Value {
    match object_example(input_schema, input_schema, 0) {
        Value::Object(m) => Value::Object(m),
        _ => json!({}),
    }
}

/// An example value for a schema: its `default`, else its first `examples`
/// item, else its first `enum` value, else its `const`, else by type: string
/// `"example"`, integer or number 1 (moved into `minimum`/`maximum`),
/// boolean `true`, array `[]` (or `minItems` examples of its `items`), object
/// `{}` with its required properties, null `null`. A type list takes its
/// first type other than `null`; without a type, `properties` means an object
/// and anything else a string. `anyOf`/`oneOf`/`allOf` take their first
/// branch and a local `$ref` (`#/…`) is followed. A string that holds a
/// template (`{{…}}` or `${…}`) is passed over, since the suite loader would
/// substitute it.
pub fn example_value(schema: &Value) -> Value {
    example(schema, schema, 0)
}

fn example(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let Some(obj) = schema.as_object() else {
        // `true`, `false` or something that is not a schema.
        return json!(EXAMPLE_STRING);
    };
    if let Some(v) = obj.get("default").filter(|v| usable(v)) {
        return v.clone();
    }
    if let Some(v) = obj
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .filter(|v| usable(v))
    {
        return v.clone();
    }
    if let Some(v) = obj
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .filter(|v| usable(v))
    {
        return v.clone();
    }
    if let Some(v) = obj.get("const").filter(|v| usable(v)) {
        return v.clone();
    }
    if let Some(target) = obj
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        return example(target, root, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = obj
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return example(first, root, depth + 1);
        }
    }
    let ty = match obj.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or_else(|| types.iter().filter_map(Value::as_str).next()),
        _ => None,
    };
    let ty = ty.unwrap_or(if obj.contains_key("properties") {
        "object"
    } else {
        "string"
    });
    match ty {
        "integer" => number_example(obj, true),
        "number" => number_example(obj, false),
        "boolean" => json!(true),
        "null" => Value::Null,
        "array" => {
            let n = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let item = obj.get("items").filter(|i| i.is_object());
            match item {
                Some(item) if n > 0 => {
                    let one = example(item, root, depth + 1);
                    Value::Array((0..n.min(16)).map(|_| one.clone()).collect())
                }
                _ => json!([]),
            }
        }
        "object" => object_example(schema, root, depth),
        _ => json!(EXAMPLE_STRING),
    }
}

/// An object with an example for each required property.
fn object_example(schema: &Value, root: &Value, depth: usize) -> Value {
    let mut out = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let value = match properties.and_then(|p| p.get(name)) {
            Some(s) => example(s, root, depth + 1),
            None => json!(EXAMPLE_STRING),
        };
        out.insert(name.to_string(), value);
    }
    Value::Object(out)
}

/// 1, moved into the schema's bounds.
fn number_example(obj: &Map<String, Value>, integer: bool) -> Value {
    let bound = |k: &str| obj.get(k).and_then(Value::as_f64);
    let mut n = 1.0_f64;
    if let Some(min) = bound("minimum").filter(|m| n < *m) {
        n = min;
    }
    if let Some(min) = bound("exclusiveMinimum").filter(|m| n <= *m) {
        n = if integer {
            min.floor() + 1.0
        } else {
            min + 1.0
        };
    }
    if let Some(max) = bound("maximum").filter(|m| n > *m) {
        n = max;
    }
    if let Some(max) = bound("exclusiveMaximum").filter(|m| n >= *m) {
        n = if integer { max.ceil() - 1.0 } else { max - 1.0 };
    }
    if integer {
        n = n.ceil();
    }
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(json!(1), Value::Number)
    }
}

/// Whether a value from `default`/`examples`/`enum`/`const` can be written
/// as it is: no string in it holds a template.
fn usable(v: &Value) -> bool {
    match v {
        Value::String(s) => !(s.contains("{{") || s.contains("${")),
        Value::Array(a) => a.iter().all(usable),
        Value::Object(o) => o.iter().all(|(k, x)| usable(&json!(k)) && usable(x)),
        _ => true,
    }
}

/// A file name stem: `[A-Za-z0-9_.-]` kept, anything else `_`; never empty,
/// never starting with a dot, at most 100 characters.
pub fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    if s.starts_with('.') {
        s.replace_range(..1, "_");
    }
    if s.is_empty() {
        s.push('_');
    }
    s
}

/// A resource URI as a file name stem: runs of other characters (`://`,
/// `/`) become one `_`, with none at either end.
fn slug(uri: &str) -> String {
    let mut out = String::new();
    for c in uri.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_');
    sanitize(trimmed)
}

/// `stem.yaml`, or `stem_2.yaml`, `stem_3.yaml`, … when taken (without
/// regard to case, so the files stay apart on case-insensitive disks).
fn unique_name(stem: &str, taken: &mut Vec<String>) -> String {
    let mut name = format!("{stem}.yaml");
    let mut n = 2;
    while taken.contains(&name.to_ascii_lowercase()) {
        name = format!("{stem}_{n}.yaml");
        n += 1;
    }
    taken.push(name.to_ascii_lowercase());
    name
}

/// A value in YAML flow style: JSON, with every string [`quote`]d.
pub fn flow(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(o) => {
            let items: Vec<String> = o
                .iter()
                .map(|(k, x)| format!("{}: {}", quote(k), flow(x)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// A YAML double-quoted string: `"` and `\` escaped, and every character
/// YAML does not allow as it is (controls, DEL, C1 controls, BOM, U+2028,
/// U+2029, U+FFFE, U+FFFF) written as an escape.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            '\u{0}'..='\u{9f}' | '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}' => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as it is when it is a plain word (a duration), else [`quote`]d.
fn quote_if_needed(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
        s.to_string()
    } else {
        quote(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml;

    fn parsed(text: &str) -> Value {
        yaml::parse("t.yaml", text).expect("valid YAML").to_json()
    }

    #[test]
    fn example_values_follow_default_examples_enum_const_then_type() {
        assert_eq!(
            example_value(
                &json!({"type": "string", "default": "d", "examples": ["e"], "enum": ["n"]})
            ),
            json!("d")
        );
        assert_eq!(
            example_value(&json!({"type": "string", "examples": ["e", "f"], "enum": ["n"]})),
            json!("e")
        );
        assert_eq!(
            example_value(&json!({"type": "string", "enum": ["n", "m"], "const": "c"})),
            json!("n")
        );
        assert_eq!(example_value(&json!({"const": 7})), json!(7));
        assert_eq!(example_value(&json!({"type": "string"})), json!("example"));
        assert_eq!(example_value(&json!({"type": "integer"})), json!(1));
        assert_eq!(example_value(&json!({"type": "number"})), json!(1));
        assert_eq!(example_value(&json!({"type": "boolean"})), json!(true));
        assert_eq!(example_value(&json!({"type": "array"})), json!([]));
        assert_eq!(example_value(&json!({"type": "object"})), json!({}));
        assert_eq!(example_value(&json!({"type": "null"})), Value::Null);
        assert_eq!(example_value(&json!({})), json!("example"));
        assert_eq!(example_value(&json!(true)), json!("example"));
        // A default of false or 0 is still the default.
        assert_eq!(
            example_value(&json!({"type": "boolean", "default": false})),
            json!(false)
        );
    }

    #[test]
    fn type_lists_bounds_arrays_and_composition() {
        assert_eq!(
            example_value(&json!({"type": ["null", "integer"]})),
            json!(1)
        );
        assert_eq!(
            example_value(&json!({"type": "integer", "minimum": 5})),
            json!(5)
        );
        assert_eq!(
            example_value(&json!({"type": "integer", "exclusiveMinimum": 1})),
            json!(2)
        );
        assert_eq!(
            example_value(&json!({"type": "number", "maximum": 0.5})),
            json!(0.5)
        );
        assert_eq!(
            example_value(&json!({"type": "array", "minItems": 2, "items": {"type": "integer"}})),
            json!([1, 1])
        );
        assert_eq!(
            example_value(&json!({"anyOf": [{"type": "boolean"}, {"type": "string"}]})),
            json!(true)
        );
        let with_ref = json!({
            "type": "object",
            "required": ["p"],
            "properties": {"p": {"$ref": "#/$defs/P"}},
            "$defs": {"P": {"type": "integer"}}
        });
        assert_eq!(example_args(&with_ref), json!({"p": 1}));
        let cycle = json!({"$ref": "#"});
        assert_eq!(example_value(&cycle), Value::Null);
    }

    #[test]
    fn args_hold_required_properties_only_and_recurse_into_objects() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "mode": {"type": "string", "enum": ["r", "w"]},
                "limit": {"type": "integer"},
                "opts": {
                    "type": "object",
                    "properties": {"deep": {"type": "boolean"}, "skip": {"type": "string"}},
                    "required": ["deep"]
                }
            },
            "required": ["path", "mode", "opts", "undeclared"]
        });
        assert_eq!(
            example_args(&schema),
            json!({"path": "example", "mode": "r", "opts": {"deep": true}, "undeclared": "example"})
        );
        assert_eq!(example_args(&json!({"type": "object"})), json!({}));
        assert_eq!(example_args(&json!("nonsense")), json!({}));
    }

    #[test]
    fn values_holding_templates_are_passed_over() {
        assert_eq!(
            example_value(
                &json!({"type": "string", "default": "{{fixture}}/a", "examples": ["${HOME}"]})
            ),
            json!("example")
        );
    }

    #[test]
    fn quoted_strings_read_back_unchanged() {
        for s in [
            "plain",
            "a: b # c",
            "\"quoted\" and \\back\\",
            "new\nline\ttab\r",
            "\u{1}\u{7f}\u{85}\u{9f}\u{feff}\u{2028}",
            "- [x] {y} & *z !tag %p @q `r`",
            "café ✓ 𝄞",
            "yes",
            "",
        ] {
            let doc = format!("v: {}\n", quote(s));
            assert_eq!(parsed(&doc)["v"], json!(s), "{doc}");
        }
        let v = json!({"a b": [1, 2.5, null, true, "x: y"], "": {"n": -3}});
        assert_eq!(parsed(&format!("v: {}\n", flow(&v)))["v"], v);
    }

    #[test]
    fn file_names_are_sanitized_and_unique() {
        assert_eq!(sanitize("read_file"), "read_file");
        assert_eq!(sanitize("a/b c:d"), "a_b_c_d");
        assert_eq!(sanitize("../x"), "_._x");
        assert_eq!(sanitize(""), "_");
        assert_eq!(sanitize("été"), "_t_");
        let tools = [
            json!({"name": "a b"}),
            json!({"name": "a/b"}),
            json!({"name": "A_B"}),
            json!({"description": "no name"}),
        ];
        let p = plan(
            &Server::Stdio {
                command: "s".into(),
                args: vec![],
            },
            &tools,
            &[json!({"name": "a b"})],
            &[json!({"uri": "file:///tmp/a b.txt"})],
            "30s",
        );
        let names: Vec<&str> = p.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "a_b.yaml",
                "a_b_2.yaml",
                "A_B_3.yaml",
                "prompt_a_b.yaml",
                "resource_file_tmp_a_b.txt.yaml"
            ]
        );
        assert_eq!(p.unnamed, 1);
    }

    #[test]
    fn files_read_back_as_the_intended_tests() {
        let p = plan(
            &Server::Stdio {
                command: "/opt/my server".into(),
                args: vec!["--flag".into(), "x: y".into()],
            },
            &[
                json!({"name": "echo", "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}}),
            ],
            &[
                json!({"name": "greet", "arguments": [{"name": "who", "required": true}, {"name": "style"}]}),
            ],
            &[json!({"uri": "mem://a"})],
            "1m",
        );
        let tool = parsed(&p.files[0].text);
        assert_eq!(tool["name"], "echo returns expected result");
        assert_eq!(
            tool["server"],
            json!({"command": "/opt/my server", "args": ["--flag", "x: y"]})
        );
        assert_eq!(
            tool["assert"],
            json!({"tool": "echo", "args": {"message": "example"}, "expect": {"not_error": true}})
        );
        assert_eq!(tool["timeout"], "1m");
        let prompt = parsed(&p.files[1].text);
        assert_eq!(
            prompt["assert_prompts"]["get"],
            json!({"name": "greet", "arguments": {"who": "example"}})
        );
        let resource = parsed(&p.files[2].text);
        assert_eq!(resource["assert_resources"]["read"], "mem://a");
        assert_eq!(p.files[2].kind, Kind::Resource);
    }

    #[test]
    fn secret_headers_become_placeholders() {
        let p = plan(
            &Server::Remote {
                transport: "http".into(),
                url: "http://h/mcp".into(),
                headers: vec![
                    ("Authorization".into(), "Bearer s3cret".into()),
                    ("X-API-Key".into(), "k".into()),
                    ("Accept-Language".into(), "en".into()),
                ],
            },
            &[json!({"name": "t"})],
            &[],
            &[],
            "30s",
        );
        let text = &p.files[0].text;
        assert!(!text.contains("s3cret"), "{text}");
        let server = &parsed(text)["server"];
        assert_eq!(
            server,
            &json!({"transport": "http", "url": "http://h/mcp", "headers": {
                "Authorization": "${MCPCHECK_HEADER_AUTHORIZATION}",
                "X-API-Key": "${MCPCHECK_HEADER_X_API_KEY}",
                "Accept-Language": "en"
            }})
        );
        assert_eq!(
            p.placeholders
                .iter()
                .map(|x| x.variable.as_str())
                .collect::<Vec<_>>(),
            ["MCPCHECK_HEADER_AUTHORIZATION", "MCPCHECK_HEADER_X_API_KEY"]
        );
    }

    #[test]
    fn at_most_twenty_resources() {
        let resources: Vec<Value> = (0..25)
            .map(|i| json!({"uri": format!("mem://r{i}")}))
            .collect();
        let p = plan(
            &Server::Stdio {
                command: "s".into(),
                args: vec![],
            },
            &[],
            &[],
            &resources,
            "30s",
        );
        assert_eq!(p.files.len(), MAX_RESOURCES);
        assert_eq!(p.resources_left_out, 5);
    }
}
