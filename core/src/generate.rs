//! `mcpcheck generate` and `mcpcheck init`: from what a server lists, one
//! starter test per tool, prompt and resource, in mcp-assert's
//! one-test-per-file format or as one composed file; and the starter suite
//! `init` writes without a server.
//!
//! The caller connects, lists and writes; this module decides the example
//! arguments, the file names and the text of every file.
//!
//! * A tool's `args` hold every *required* property of its `inputSchema`,
//!   with an example value ([`example_value`]).
//! * A tool whose annotations say it may write, or that shares its name
//!   with a listed tool whose annotations say so
//!   ([`crate::probe::WriteRisks`]), gets `skip:` with the reason, unless
//!   [`Options::include_writes`]; so does a tool whose input schema asks
//!   for more than mcpcheck builds ([`crate::probe::arguments_within_bounds`]).
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
//!   credential lands in a file. A stdio argument that lies in the fixture
//!   directory is written with `{{fixture}}` ([`fixture_template`]).

use serde_json::{Map, Value, json};

use crate::redact::header_is_plain;

/// The most resources that get a test.
pub const MAX_RESOURCES: usize = 20;

/// The string example for a string without a better one.
pub const EXAMPLE_STRING: &str = "example";

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

/// A tool whose test is written with `skip:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub tool: String,
    /// Why: it may write, as [`crate::probe::WriteRisks`] says (its own
    /// annotations, or those of another listed tool of the same name); or
    /// no arguments can be built for it within mcpcheck's bounds.
    pub reason: String,
}

/// How the tests are laid out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// One file per item ([`Plan::files`]).
    #[default]
    Files,
    /// One composed file with every test, on one server session
    /// (`share_server: true`): [`Plan::composed`]. [`Plan::files`] still
    /// lists the items, with the text each would have on its own.
    Composed,
}

/// What [`plan_with`] writes besides the defaults of [`plan`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Write the tests of tools that may write ([`crate::probe::write_risk`])
    /// as they are, instead of with `skip:`.
    pub include_writes: bool,
    /// The fixture directory (`--fixture`), absolute, as the caller resolved
    /// it (symbolic links followed). A stdio argument that is this directory
    /// or lies under it is written as `{{fixture}}` or `{{fixture}}/rest`.
    pub fixture: Option<String>,
    /// For each stdio argument, the absolute path it names, as the caller
    /// resolved it, or `None` for one that names no path (compared as
    /// written). For `--flag=value`, the path [`path_part`] names.
    pub resolved_args: Vec<Option<String>>,
    /// Tool tests carry no `expect:` of their own: the answer recorded by
    /// `mcpcheck run --update-snapshots` is what `--snapshots` compares
    /// (`init --server`). Prompts and resources still expect no error.
    pub snapshots: bool,
    pub layout: Layout,
}

/// Everything to write, and what the user should be told.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub files: Vec<File>,
    /// With [`Layout::Composed`]: the one file that holds every test.
    pub composed: Option<String>,
    pub placeholders: Vec<Placeholder>,
    /// Resources past [`MAX_RESOURCES`], which get no test.
    pub resources_left_out: usize,
    /// Listed items without a name (or URI), which get no test.
    pub unnamed: usize,
    /// Tools whose test is written with `skip:`, in listed order.
    pub skipped: Vec<Skipped>,
    /// Stdio arguments written with `{{fixture}}`.
    pub fixture_args: usize,
}

/// The files for a server's tools, prompts and resources (as listed), each
/// test with `timeout` (a suite duration such as `30s`), with the default
/// [`Options`]: one file per item, tools that may write skipped.
pub fn plan(
    server: &Server,
    tools: &[Value],
    prompts: &[Value],
    resources: &[Value],
    timeout: &str,
) -> Plan {
    plan_with(
        server,
        tools,
        prompts,
        resources,
        timeout,
        &Options::default(),
    )
}

/// One test before it is laid out: its block at the top level, each line
/// ending in a newline.
struct Entry {
    kind: Kind,
    item: String,
    file: String,
    name: String,
    skip: Option<String>,
    block: String,
}

/// [`plan`] with [`Options`].
pub fn plan_with(
    server: &Server,
    tools: &[Value],
    prompts: &[Value],
    resources: &[Value],
    timeout: &str,
    options: &Options,
) -> Plan {
    let (server, fixture_args) = with_fixture(server, options);
    let (server_block, placeholders) = server_yaml(&server);
    let mut out = Plan {
        placeholders,
        fixture_args,
        ..Plan::default()
    };
    let mut taken: Vec<String> = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    let risks = crate::probe::WriteRisks::new(tools);

    for t in tools {
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            out.unnamed += 1;
            continue;
        };
        let (args, unbuildable) = match t.get("inputSchema").map(crate::probe::required_arguments) {
            Some(Err(why)) => (json!({}), Some(why)),
            Some(Ok(args)) => (args, None),
            None => (json!({}), None),
        };
        let skip = risks
            .of(t)
            .filter(|_| !options.include_writes)
            .map(|r| (format!("may write ({r}): remove this line to call it"), r))
            .or_else(|| {
                unbuildable.map(|why| {
                    let r = format!("no arguments within mcpcheck's bounds: {why}");
                    (
                        format!("{r}: write the arguments, then remove this line"),
                        r,
                    )
                })
            });
        if let Some((_, reason)) = &skip {
            out.skipped.push(Skipped {
                tool: name.to_string(),
                reason: reason.clone(),
            });
        }
        let expect = if options.snapshots {
            String::new()
        } else {
            "  expect:\n    not_error: true\n".to_string()
        };
        let recorded = if options.snapshots { SNAPSHOT_NOTE } else { "" };
        entries.push(Entry {
            kind: Kind::Tool,
            item: name.to_string(),
            file: unique_name(&sanitize(name), &mut taken),
            name: format!("{name} returns expected result"),
            skip: skip.map(|(line, _)| line),
            block: format!(
                "{recorded}assert:\n  tool: {}\n  args: {}\n{expect}",
                quote(name),
                flow(&args),
            ),
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
        entries.push(Entry {
            kind: Kind::Prompt,
            item: name.to_string(),
            file: unique_name(&format!("prompt_{}", sanitize(name)), &mut taken),
            name: format!("prompt {name} renders"),
            skip: None,
            block: format!(
                "assert_prompts:\n  get: {{\"name\": {}{arguments}}}\n  expect:\n    not_error: true\n",
                quote(name),
            ),
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
        entries.push(Entry {
            kind: Kind::Resource,
            item: uri.to_string(),
            file: unique_name(&format!("resource_{}", slug(uri)), &mut taken),
            name: format!("resource {uri} can be read"),
            skip: None,
            block: format!(
                "assert_resources:\n  read: {}\n  expect:\n    not_error: true\n",
                quote(uri),
            ),
        });
    }

    let timeout = quote_if_needed(timeout);
    if options.layout == Layout::Composed && !entries.is_empty() {
        out.composed = Some(composed_text(&server_block, &timeout, &entries));
    }
    out.files = entries
        .into_iter()
        .map(|e| {
            let skip = e
                .skip
                .as_deref()
                .map(|r| format!("skip: {}\n", quote(r)))
                .unwrap_or_default();
            File {
                text: format!(
                    "{HEADER}name: {}\n{server_block}{skip}{}timeout: {timeout}\n",
                    quote(&e.name),
                    e.block
                ),
                name: e.file,
                kind: e.kind,
                item: e.item,
            }
        })
        .collect();
    out
}

const HEADER: &str = "# Written by `mcpcheck generate` from what the server lists.\n\
# The arguments are placeholders: replace them with real ones and add expectations.\n";

const SNAPSHOT_NOTE: &str =
    "# Expected: the answer recorded in .snapshots.json (`mcpcheck run --snapshots`).\n";

/// One composed file: the server once, `share_server: true`, the timeout as
/// `defaultTest`, then every test.
fn composed_text(server_block: &str, timeout: &str, entries: &[Entry]) -> String {
    let mut text = format!(
        "{HEADER}# Every test runs on one server session, in this order (share_server).\n\
         {server_block}share_server: true\ndefaultTest:\n  timeout: {timeout}\ntests:\n"
    );
    for e in entries {
        text.push_str(&format!("  - name: {}\n", quote(&e.name)));
        if let Some(reason) = &e.skip {
            text.push_str(&format!("    skip: {}\n", quote(reason)));
        }
        for line in e.block.lines() {
            text.push_str("    ");
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// The server with its stdio arguments that lie in [`Options::fixture`]
/// written with `{{fixture}}`, and how many were.
fn with_fixture(server: &Server, options: &Options) -> (Server, usize) {
    let (Server::Stdio { command, args }, Some(fixture)) = (server, &options.fixture) else {
        return (server.clone(), 0);
    };
    let mut rewritten = 0;
    let args = args
        .iter()
        .enumerate()
        .map(|(i, arg)| {
            let value = path_part(arg);
            let prefix = &arg[..arg.len() - value.len()];
            let resolved = options.resolved_args.get(i).cloned().flatten();
            match fixture_template(resolved.as_deref().unwrap_or(value), fixture) {
                Some(t) => {
                    rewritten += 1;
                    format!("{prefix}{t}")
                }
                None => arg.clone(),
            }
        })
        .collect();
    (
        Server::Stdio {
            command: command.clone(),
            args,
        },
        rewritten,
    )
}

/// The part of a command-line argument that may name a path: the value of
/// `--flag=value` (or `-f=value`), else the whole argument.
pub fn path_part(arg: &str) -> &str {
    match arg.split_once('=') {
        Some((flag, value)) if flag.starts_with('-') => value,
        _ => arg,
    }
}

/// `path` written with the `{{fixture}}` template when it is the directory
/// `fixture` or lies under it: `{{fixture}}`, or `{{fixture}}/rest`. Both
/// are absolute paths, compared component by component (`/a/bc` is not
/// under `/a/b`); a trailing `/` on either is ignored, and kept on `rest`
/// as written. `None` for any other path, or for a `fixture` that is not
/// absolute.
pub fn fixture_template(path: &str, fixture: &str) -> Option<String> {
    if !fixture.starts_with('/') {
        return None;
    }
    let base = fixture.trim_end_matches('/');
    let rest = path.strip_prefix(base)?;
    if rest.trim_end_matches('/').is_empty() {
        return Some("{{fixture}}".to_string());
    }
    let rest = rest.strip_prefix('/')?.trim_start_matches('/');
    Some(format!("{{{{fixture}}}}/{rest}"))
}

/// The file `init` writes without a server: its path under the directory
/// (`/`-separated) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StarterFile {
    pub path: &'static str,
    pub text: String,
}

/// The starter suite's file, under the directory `init` writes to.
pub const STARTER_SUITE: &str = "mcpcheck.yaml";
/// The starter fixture folder, under the same directory.
pub const STARTER_FIXTURE: &str = "fixture";

/// What `mcpcheck init` writes without a server: a composed suite of five
/// passing tests against `mcpcheck serve` (started as `command serve`), a
/// fixture folder with one file a test reads, and a README. The suite runs
/// with `mcpcheck run --suite mcpcheck.yaml --fixture fixture`.
pub fn starter(command: &str) -> Vec<StarterFile> {
    let command = quote(command);
    let suite = format!(
        r#"# A starter suite, written by `mcpcheck init`: five tests against
# `mcpcheck serve`, the built-in reference server. Run it with
#   mcpcheck run --suite {STARTER_SUITE} --fixture {STARTER_FIXTURE}
# then point `servers` at your own server and write tests for its tools.
name: "starter suite"
servers:
  serve:
    command: {command}
    args: ["serve"]
  # The same server, with a client that offers one root: this run's copy
  # of the fixture folder.
  serve_with_root:
    command: {command}
    args: ["serve"]
    client_capabilities:
      roots: ["{{{{fixture}}}}"]
server: serve
# The tests run in order on one server session.
share_server: true
defaultTest:
  timeout: 30s
tests:
  - name: "echo returns its message"
    tool: "echo"
    args: {{"message": "hello"}}
    expect:
      not_error: true
      equals: "hello"
  - name: "add sums two numbers"
    tool: "add"
    args: {{"a": 2, "b": 3}}
    expect:
      - target: "text"
        matcher: {{"exact": "5"}}
  - name: "the greeting prompt is listed"
    assert_prompts:
      list: {{}}
    expect:
      contains: ["greeting"]
  - name: "the static resource can be read"
    assert_resources:
      read: "mcpcheck://static/text"
    expect:
      contains: ["It never changes."]
  - name: "the fixture is the client's root"
    server: serve_with_root
    tool: "roots"
    expect:
      json_path:
        "$[0].name": "{STARTER_FIXTURE}"
      file_contains:
        "{{{{fixture}}}}/hello.txt": "hello from the fixture"
      file_unchanged: ["{{{{fixture}}}}/hello.txt"]
"#
    );
    let readme = format!(
        r#"# MCP server tests

Written by `mcpcheck init`.

| file | what it is |
| --- | --- |
| `{STARTER_SUITE}` | a suite of five tests in one file: a tool call checked two ways, a prompt list, a resource read, and a test that hands the server the fixture as its root |
| `{STARTER_FIXTURE}/` | files the tests may use: each run works on a fresh copy, named `{{{{fixture}}}}` in the suite; this folder is never changed |
| `README.md` | this file |

Run the tests:

```sh
mcpcheck run --suite {STARTER_SUITE} --fixture {STARTER_FIXTURE}
```

Every test passes against `mcpcheck serve`, the reference server that comes
with mcpcheck. Then:

1. point `servers` in `{STARTER_SUITE}` at your own server (`command` and
   `args`, or `transport: http` and `url`), and replace the tests with tests
   of its tools;
2. or let mcpcheck write a starter test for every tool, prompt and resource
   your server lists, as one file:
   `mcpcheck generate --server "your-server --its-flags" --composed server.yaml`;
3. `mcpcheck validate {STARTER_SUITE}` shows every problem in the file with
   its line and a hint, without starting a server;
4. `mcpcheck coverage --suite {STARTER_SUITE}` lists what your server offers
   that no test uses.
"#
    );
    vec![
        StarterFile {
            path: STARTER_SUITE,
            text: suite,
        },
        StarterFile {
            path: "fixture/hello.txt",
            text: "hello from the fixture\n".to_string(),
        },
        StarterFile {
            path: "README.md",
            text: readme,
        },
    ]
}

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
/// schema (an object schema), with [`example_value`]s; `{}` when the
/// schema asks for more than mcpcheck builds (see
/// [`crate::probe::arguments_within_bounds`]).
pub fn example_args(input_schema: &Value) -> Value {
    crate::probe::required_arguments(input_schema).unwrap_or_else(|_| json!({}))
}

/// An example value for a schema, as audit's valid arguments pick it
/// ([`crate::probe::valid_arguments`]), with required properties only: a
/// value the schema gives and satisfies — its `const`, an `enum` value, an
/// `examples` item, its `default`, an example its `description` gives
/// (`e.g. 'America/New_York'`, `such as "asc"`, a quoted value) — else one
/// built from its type, `format`, `pattern`, lengths and bounds (string
/// `"example"`, number 1 moved into its bounds, boolean `true`, array of
/// `minItems` items, object with its required properties, `null`), with
/// a local `$ref` followed, `allOf` merged and the first usable branch of
/// `anyOf`/`oneOf`. A string that holds a template (`{{…}}` or `${…}`) is
/// passed over, since the suite loader would substitute it. `null` when
/// the schema asks for more than mcpcheck builds.
pub fn example_value(schema: &Value) -> Value {
    crate::probe::example_for(schema).unwrap_or(Value::Null)
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
    fn example_values_follow_const_enum_examples_default_description_then_type() {
        // A value the schema itself rules out is passed over.
        assert_eq!(
            example_value(
                &json!({"type": "string", "default": "d", "examples": ["e"], "enum": ["n"]})
            ),
            json!("n")
        );
        assert_eq!(
            example_value(&json!({"type": "string", "default": "d", "examples": ["e", "f"]})),
            json!("e")
        );
        assert_eq!(
            example_value(&json!({"type": "string", "default": "d", "maxLength": 0})),
            json!("")
        );
        assert_eq!(
            example_value(&json!({"type": "string", "enum": ["n", "m"], "const": "c"})),
            json!("c")
        );
        assert_eq!(
            example_value(
                &json!({"type": "string", "description": "IANA timezone name (e.g., 'America/New_York')"})
            ),
            json!("America/New_York")
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
            json!([1, 2])
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
        // A reference to itself says nothing: a placeholder.
        let cycle = json!({"$ref": "#"});
        assert_eq!(example_value(&cycle), json!("example"));
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

    fn stdio(args: &[&str]) -> Server {
        Server::Stdio {
            command: "srv".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    /// Loads `text` as a suite file and insists on no diagnostics at all.
    fn loads_clean(file: &str, text: &str) -> crate::suite::SuiteFile {
        let loaded = crate::suite::load(file, text);
        assert!(
            loaded.diagnostics.is_empty(),
            "{:?}\n{text}",
            loaded.diagnostics
        );
        loaded.suite
    }

    fn annotated_tools() -> Vec<Value> {
        vec![
            json!({"name": "read", "annotations": {"readOnlyHint": true}}),
            json!({"name": "drop", "annotations": {"destructiveHint": true}}),
            json!({"name": "note", "annotations": {"readOnlyHint": false}}),
            json!({"name": "plain"}),
        ]
    }

    #[test]
    fn tools_that_may_write_are_skipped_with_the_reason_unless_included() {
        let p = plan(&stdio(&[]), &annotated_tools(), &[], &[], "30s");
        assert_eq!(
            p.skipped,
            [
                Skipped {
                    tool: "drop".into(),
                    reason: "annotations.destructiveHint is true".into()
                },
                Skipped {
                    tool: "note".into(),
                    reason: "annotations.readOnlyHint is false".into()
                },
            ]
        );
        let skips: Vec<Option<String>> = p
            .files
            .iter()
            .map(|f| loads_clean(&f.name, &f.text).tests[0].skip.clone())
            .collect();
        assert_eq!(
            skips,
            [
                None,
                Some(
                    "may write (annotations.destructiveHint is true): remove this line to call it"
                        .into()
                ),
                Some(
                    "may write (annotations.readOnlyHint is false): remove this line to call it"
                        .into()
                ),
                None,
            ]
        );

        let options = Options {
            include_writes: true,
            ..Options::default()
        };
        let p = plan_with(&stdio(&[]), &annotated_tools(), &[], &[], "30s", &options);
        assert!(p.skipped.is_empty());
        assert!(p.files.iter().all(|f| !f.text.contains("skip:")));
    }

    #[test]
    fn a_composed_plan_is_one_file_on_one_session_that_loads_clean() {
        let options = Options {
            layout: Layout::Composed,
            ..Options::default()
        };
        let p = plan_with(
            &stdio(&["--root", "/srv/data"]),
            &annotated_tools(),
            &[json!({"name": "greet", "arguments": [{"name": "who", "required": true}]})],
            &[json!({"uri": "mem://a"})],
            "1m",
            &options,
        );
        assert_eq!(p.files.len(), 6, "the items are still listed");
        let text = p.composed.expect("one composed file");
        assert_eq!(text.matches("\nserver:").count(), 1, "{text}");
        let suite = loads_clean("suite.yaml", &text);
        assert!(suite.composed && suite.share_server);
        let names: Vec<&str> = suite.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "read returns expected result",
                "drop returns expected result",
                "note returns expected result",
                "plain returns expected result",
                "prompt greet renders",
                "resource mem://a can be read"
            ]
        );
        for t in &suite.tests {
            let server = t.server.as_ref().expect("the file's server");
            assert_eq!(server.command.as_deref(), Some("srv"));
            assert_eq!(server.args, ["--root", "/srv/data"]);
            assert_eq!(t.timeout_ms, Some(60_000));
        }
        assert!(suite.tests[1].skip.is_some() && suite.tests[0].skip.is_none());
        assert!(
            plan_with(&stdio(&[]), &[], &[], &[], "1s", &options)
                .composed
                .is_none(),
            "nothing listed, nothing composed"
        );
    }

    #[test]
    fn snapshot_tests_expect_only_what_was_recorded() {
        let options = Options {
            snapshots: true,
            ..Options::default()
        };
        let p = plan_with(
            &stdio(&[]),
            &[json!({"name": "echo"})],
            &[json!({"name": "simple"})],
            &[],
            "30s",
            &options,
        );
        assert!(
            !p.files[0].text.contains("not_error"),
            "{}",
            p.files[0].text
        );
        assert!(p.files[0].text.contains(".snapshots.json"));
        assert!(p.files[1].text.contains("not_error: true"));
        for f in &p.files {
            loads_clean(&f.name, &f.text);
        }
    }

    #[test]
    fn paths_in_the_fixture_become_templates() {
        let table = [
            ("/w/fix", "/w/fix", Some("{{fixture}}")),
            ("/w/fix/", "/w/fix", Some("{{fixture}}")),
            ("/w/fix", "/w/fix/", Some("{{fixture}}")),
            ("/w/fix/a/b.txt", "/w/fix", Some("{{fixture}}/a/b.txt")),
            ("/w/fix/a/", "/w/fix/", Some("{{fixture}}/a/")),
            ("/w/fixture", "/w/fix", None),
            ("/w", "/w/fix", None),
            ("/other/fix", "/w/fix", None),
            ("fix", "/w/fix", None),
            ("/w/fix/a", "w/fix", None),
            ("/anything", "/", Some("{{fixture}}/anything")),
        ];
        for (path, fixture, want) in table {
            assert_eq!(
                fixture_template(path, fixture).as_deref(),
                want,
                "{path} in {fixture}"
            );
        }
        assert_eq!(path_part("--root=/w/fix"), "/w/fix");
        assert_eq!(path_part("a=b"), "a=b");
        assert_eq!(path_part("/w/fix"), "/w/fix");
    }

    #[test]
    fn server_arguments_in_the_fixture_are_written_with_its_template() {
        let options = Options {
            fixture: Some("/w/fix".into()),
            // `./fix/data` and `fix` as the caller resolved them; `serve`
            // names no path.
            resolved_args: vec![
                None,
                Some("/w/fix/data".into()),
                None,
                Some("/w/fix".into()),
            ],
            ..Options::default()
        };
        let p = plan_with(
            &stdio(&["serve", "./fix/data", "--root=/w/fix/", "fix", "/w/fixed"]),
            &[json!({"name": "t"})],
            &[],
            &[],
            "30s",
            &options,
        );
        assert_eq!(p.fixture_args, 3);
        let suite = loads_clean("t.yaml", &p.files[0].text);
        let server = suite.tests[0].server.as_ref().unwrap();
        assert_eq!(
            server.args,
            [
                "serve",
                "{{fixture}}/data",
                "--root={{fixture}}",
                "{{fixture}}",
                "/w/fixed"
            ]
        );
        // Nothing to rewrite on a remote server.
        let remote = Server::Remote {
            transport: "http".into(),
            url: "http://h/w/fix".into(),
            headers: vec![],
        };
        assert_eq!(
            plan_with(&remote, &[], &[], &[], "1s", &options).fixture_args,
            0
        );
    }

    #[test]
    fn the_starter_suite_loads_clean_and_reads_its_fixture() {
        let files = starter("/opt/bin/mcpcheck");
        let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
        assert_eq!(paths, [STARTER_SUITE, "fixture/hello.txt", "README.md"]);
        let suite = loads_clean(STARTER_SUITE, &files[0].text);
        assert!(suite.share_server);
        assert_eq!(suite.tests.len(), 5);
        for t in &suite.tests {
            let server = t.server.as_ref().unwrap();
            assert_eq!(server.command.as_deref(), Some("/opt/bin/mcpcheck"));
            assert_eq!(server.args, ["serve"]);
        }
        assert!(
            files[0]
                .text
                .contains("\"{{fixture}}/hello.txt\": \"hello from the fixture\"")
        );
        assert!(files[1].text.contains("hello from the fixture"));
        assert!(
            files[2]
                .text
                .contains("mcpcheck run --suite mcpcheck.yaml --fixture fixture")
        );
    }
}
