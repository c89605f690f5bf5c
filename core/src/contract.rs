//! Consumer contracts (family `contract`, codes `K`): what a client actually
//! used of a server — the tools it called, the arguments it sent, the
//! result fields it got back, each with the JSON types observed — recorded
//! from captures or intercept traces, and checked against a server later.
//! A provider's CI verifies exactly what its consumers rely on, as Pact's
//! consumer-driven contracts do.
//!
//! # The contract file (`"version": 1`)
//!
//! ```json
//! {"version": 1, "consumer": "my-agent", "sources": ["session.json"],
//!  "tools": {"search": {
//!     "calls": 3,
//!     "arguments": {"query": ["string"], "limit": ["integer"]},
//!     "example": {"query": "rust", "limit": 5},
//!     "content": ["text"],
//!     "structured": {"items": ["array"], "items[].id": ["string"]}}},
//!  "prompts": {"summarize": {"arguments": ["text"]}},
//!  "resources": ["file:///notes.txt"]}
//! ```
//!
//! `arguments`: every argument name the consumer sent, with the types of the
//! values it sent; `example`: the first arguments it sent (what `contract
//! verify` replays); `content`: the content block types of its successful
//! answers; `structured`: the paths of `structuredContent` fields (`a.b`,
//! `list[].x`, at most [`MAX_DEPTH`] deep and [`MAX_FIELDS`] per tool) with
//! their types. A trace (JSONL, one `{"tool", "args"}` per call) gives tools
//! and arguments only.
//!
//! # Checking
//!
//! [`check_surface`] judges a listing alone (what `lock --check --contract`
//! and the first part of `contract verify` do); [`check_answer`] judges the
//! answer to a replayed call. Each broken expectation is a finding of the
//! contract's consumer, at the pointer of the expectation in the contract.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::findings::{Family, Finding, ItemKind, Level, Location, RuleInfo, Severity};

/// Why a contract, a capture or a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    /// Not a contract; shown as `LINE:COLUMN: what serde says`.
    #[error("{line}:{column}: {e}", line = .0.line(), column = .0.column(), e = .0)]
    Json(#[source] serde_json::Error),
    #[error("version {0} is not one this mcpcheck reads (it reads {CONTRACT_VERSION})")]
    Version(u32),
    /// A capture that does not parse: its diagnostics, joined by `; `.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Capture(Vec<crate::capture::CaptureDiagnostic>),
    #[error("line {line}: not JSON: {source}")]
    TraceJson {
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("line {0}: no `tool` (a trace line is {{\"tool\": NAME, \"args\": {{…}}}})")]
    TraceTool(usize),
}

/// The version of the contract file.
pub const CONTRACT_VERSION: u32 = 1;

/// How deep `structuredContent` paths are recorded.
pub const MAX_DEPTH: usize = 6;

/// The most `structuredContent` paths recorded per tool.
pub const MAX_FIELDS: usize = 200;

/// What one consumer used of one server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// Always [`CONTRACT_VERSION`].
    pub version: u32,
    /// Who relies on it (a client, an agent, a benchmark).
    pub consumer: String,
    /// What it was recorded from (file names).
    #[serde(default)]
    pub sources: Vec<String>,
    /// Tools by name.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolUse>,
    /// Prompts by name.
    #[serde(default)]
    pub prompts: BTreeMap<String, PromptUse>,
    /// Resource URIs read.
    #[serde(default)]
    pub resources: Vec<String>,
}

/// What a consumer used of one tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolUse {
    /// How many calls were recorded.
    #[serde(default)]
    pub calls: u64,
    /// Argument name → the JSON types of the values sent.
    #[serde(default)]
    pub arguments: BTreeMap<String, Vec<String>>,
    /// The first arguments sent (what verification replays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
    /// The content block types of successful answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<String>,
    /// `structuredContent` path → the JSON types seen there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub structured: BTreeMap<String, Vec<String>>,
}

/// What a consumer used of one prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptUse {
    /// The argument names sent.
    #[serde(default)]
    pub arguments: Vec<String>,
}

impl Contract {
    /// The contract as pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads a contract file.
    ///
    /// # Errors
    ///
    /// What is wrong, with the line and column (`3:5: unknown field …`), or
    /// a version this build does not read.
    pub fn from_json(text: &str) -> Result<Contract, ContractError> {
        let c: Contract = serde_json::from_str(text).map_err(ContractError::Json)?;
        if c.version != CONTRACT_VERSION {
            return Err(ContractError::Version(c.version));
        }
        Ok(c)
    }

    /// Whether it records nothing.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.prompts.is_empty() && self.resources.is_empty()
    }
}

/// Builds a contract from captures and traces.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    contract: Contract,
}

/// The JSON type of a value, as contracts name it.
pub fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn add_type(types: &mut Vec<String>, t: &str) {
    if !types.iter().any(|x| x == t) {
        types.push(t.to_string());
        types.sort();
    }
}

impl Recorder {
    /// A recorder for `consumer`.
    pub fn new(consumer: &str) -> Recorder {
        Recorder {
            contract: Contract {
                version: CONTRACT_VERSION,
                consumer: consumer.to_string(),
                ..Contract::default()
            },
        }
    }

    /// Records every call of a capture (`docs/capture.md`): `tools/call`
    /// (its arguments, and the fields of a successful answer),
    /// `prompts/get`, `resources/read`. `source` names it in the contract.
    ///
    /// # Errors
    ///
    /// Why the capture cannot be read.
    pub fn capture(&mut self, source: &str, text: &str) -> Result<(), ContractError> {
        let parsed = crate::capture::parse(text).map_err(ContractError::Capture)?;
        for session in &parsed.sessions {
            for ex in &session.exchanges {
                let params: Value = ex
                    .request
                    .params()
                    .and_then(|p| serde_json::from_str(p).ok())
                    .unwrap_or(Value::Null);
                let result: Option<Value> = ex
                    .response
                    .as_ref()
                    .and_then(|r| r.result())
                    .and_then(|r| serde_json::from_str(r).ok());
                match ex.request.method_str().as_ref() {
                    "tools/call" => {
                        let Some(name) = params.get("name").and_then(Value::as_str) else {
                            continue;
                        };
                        self.tool_call(name, params.get("arguments"), result.as_ref());
                    }
                    "prompts/get" => {
                        let Some(name) = params.get("name").and_then(Value::as_str) else {
                            continue;
                        };
                        let used = self.contract.prompts.entry(name.to_string()).or_default();
                        if let Some(Value::Object(args)) = params.get("arguments") {
                            for k in args.keys() {
                                if !used.arguments.contains(k) {
                                    used.arguments.push(k.clone());
                                    used.arguments.sort();
                                }
                            }
                        }
                    }
                    "resources/read" => {
                        if let Some(uri) = params.get("uri").and_then(Value::as_str)
                            && !self.contract.resources.iter().any(|u| u == uri)
                        {
                            self.contract.resources.push(uri.to_string());
                            self.contract.resources.sort();
                        }
                    }
                    _ => {}
                }
            }
        }
        self.source(source);
        Ok(())
    }

    /// Records the calls of an intercept trace (JSONL, one `{"tool",
    /// "args"}` per line; blank lines skipped): tools and arguments.
    ///
    /// # Errors
    ///
    /// The first line that is not such an object, with its number.
    pub fn trace(&mut self, source: &str, text: &str) -> Result<(), ContractError> {
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(line).map_err(|source| ContractError::TraceJson {
                    line: i + 1,
                    source,
                })?;
            let Some(tool) = v.get("tool").and_then(Value::as_str) else {
                return Err(ContractError::TraceTool(i + 1));
            };
            self.tool_call(tool, v.get("args"), None);
        }
        self.source(source);
        Ok(())
    }

    fn source(&mut self, source: &str) {
        if !self.contract.sources.iter().any(|s| s == source) {
            self.contract.sources.push(source.to_string());
        }
    }

    fn tool_call(&mut self, name: &str, arguments: Option<&Value>, result: Option<&Value>) {
        let used = self.contract.tools.entry(name.to_string()).or_default();
        used.calls += 1;
        if let Some(Value::Object(args)) = arguments {
            if used.example.is_none() {
                used.example = Some(Value::Object(args.clone()));
            }
            for (k, v) in args {
                add_type(used.arguments.entry(k.clone()).or_default(), type_of(v));
            }
        }
        let Some(result) = result else { return };
        if result.get("isError") == Some(&Value::Bool(true)) {
            return;
        }
        if let Some(Value::Array(blocks)) = result.get("content") {
            for b in blocks {
                if let Some(t) = b.get("type").and_then(Value::as_str)
                    && !used.content.iter().any(|x| x == t)
                {
                    used.content.push(t.to_string());
                    used.content.sort();
                }
            }
        }
        if let Some(sc) = result.get("structuredContent") {
            let mut fields = Vec::new();
            paths(sc, String::new(), 0, &mut fields);
            for (path, t) in fields {
                if used.structured.len() >= MAX_FIELDS && !used.structured.contains_key(&path) {
                    continue;
                }
                add_type(used.structured.entry(path).or_default(), t);
            }
        }
    }

    /// The contract recorded so far.
    pub fn finish(self) -> Contract {
        self.contract
    }
}

/// Every field path below `v` with its type (`a`, `a.b`, `list[].x`).
fn paths(v: &Value, at: String, depth: usize, out: &mut Vec<(String, &'static str)>) {
    if depth > MAX_DEPTH || out.len() > MAX_FIELDS * 4 {
        return;
    }
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                out.push((p.clone(), type_of(x)));
                paths(x, p, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for x in items {
                let p = format!("{at}[]");
                if !matches!(x, Value::Object(_) | Value::Array(_)) {
                    continue;
                }
                paths(x, p, depth + 1, out);
            }
        }
        _ => {}
    }
}

const BASE: RuleInfo = RuleInfo {
    code: "",
    family: Family::Contract,
    level: Level::Error,
    severity: Severity::High,
    title: "",
    rationale: "",
    source: "",
    fix: "",
    category: "",
    aliases: &[],
};

const PACT: &str = "Pact, consumer-driven contracts (docs.pact.io); MCP 2025-11-25 server/tools §Listing Tools, §Output Schema";

/// The contract family, in code order.
pub const RULES: [RuleInfo; 6] = [
    RuleInfo {
        code: "K101",
        title: crate::findings::prose!("An item a consumer uses is gone"),
        rationale: crate::findings::prose!(
            "A tool, prompt or resource a recorded consumer calls is no longer offered: its next call fails."
        ),
        source: crate::findings::prose!(PACT),
        fix: crate::findings::prose!(
            "Offer the item again (deprecate before removing), or update the consumer and record its contract again."
        ),
        category: "surface",
        ..BASE
    },
    RuleInfo {
        code: "K102",
        title: crate::findings::prose!("An argument a consumer sends is not accepted"),
        rationale: crate::findings::prose!(
            "An argument the consumer sends is no longer declared by the tool's inputSchema, or no longer accepts the type the consumer sends."
        ),
        source: crate::findings::prose!(PACT),
        fix: crate::findings::prose!(
            "Keep accepting the argument (or a compatible type) until every consumer has moved."
        ),
        category: "arguments",
        ..BASE
    },
    RuleInfo {
        code: "K103",
        title: crate::findings::prose!("A required argument a consumer never sends"),
        rationale: crate::findings::prose!(
            "The tool or prompt now requires an argument the consumer never sent: its calls are refused."
        ),
        source: crate::findings::prose!(PACT),
        fix: crate::findings::prose!(
            "Make the new argument optional with a default, or update the consumer first."
        ),
        category: "arguments",
        ..BASE
    },
    RuleInfo {
        code: "K104",
        title: crate::findings::prose!("A result field a consumer reads is gone or changed"),
        rationale: crate::findings::prose!(
            "A structuredContent field the consumer got back is no longer there, or has another type, by the tool's outputSchema or in the answer to the consumer's own call."
        ),
        source: crate::findings::prose!(PACT),
        fix: crate::findings::prose!(
            "Keep the field with its type (add new fields beside it), or version the tool."
        ),
        category: "results",
        ..BASE
    },
    RuleInfo {
        code: "K105",
        title: crate::findings::prose!("A consumer's call now fails"),
        rationale: crate::findings::prose!(
            "The consumer's recorded call, sent again, is answered with an error (a JSON-RPC error or isError: true), or without the content types the consumer got."
        ),
        source: crate::findings::prose!(PACT),
        fix: crate::findings::prose!(
            "Make the call succeed as it did; the finding shows the arguments sent and the answer."
        ),
        category: "results",
        ..BASE
    },
    RuleInfo {
        code: "K301",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!("An expectation not verified"),
        rationale: crate::findings::prose!(
            "A result expectation could not be checked: the tool declares no outputSchema and its call was not replayed (it may write, or replaying was not asked for)."
        ),
        source: crate::findings::prose!(PACT),
        fix: crate::findings::prose!(
            "Declare an outputSchema, or verify with --replay (and --include-writes for a tool that may write, against a disposable server)."
        ),
        category: "coverage",
        ..BASE
    },
];

fn rule(code: &str) -> &'static RuleInfo {
    RULES.iter().find(|r| r.code == code).unwrap_or(&RULES[0])
}

/// Where a contract's findings are: the server, the consumer (as the
/// context), the item, the pointer into the contract.
fn at(server: &str, c: &Contract, kind: ItemKind, item: &str, pointer: String) -> Location {
    let mut l = Location::item(kind, item).at(pointer).on(server);
    l.context = Some(format!("consumer {}", c.consumer));
    l
}

fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The types a schema accepts (empty: any), following a local `$ref` and
/// `anyOf`/`oneOf` branches.
fn schema_types(schema: &Value, root: &Value, depth: usize) -> Vec<String> {
    let schema = resolve(schema, root, depth);
    let mut out = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) => out.push(t.clone()),
        Some(Value::Array(ts)) => {
            out.extend(ts.iter().filter_map(Value::as_str).map(str::to_string))
        }
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let mut any_untyped = false;
            for b in branches {
                let t = schema_types(b, root, depth + 1);
                if t.is_empty() {
                    any_untyped = true;
                }
                out.extend(t);
            }
            if any_untyped {
                return Vec::new();
            }
        }
    }
    if out.is_empty() {
        if let Some(c) = schema.get("const") {
            out.push(type_of(c).to_string());
        } else if let Some(Value::Array(e)) = schema.get("enum") {
            out.extend(e.iter().map(|v| type_of(v).to_string()));
        }
    }
    out
}

fn resolve<'a>(schema: &'a Value, root: &'a Value, depth: usize) -> &'a Value {
    let mut s = schema;
    for _ in 0..8 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) if depth < 32 => match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(target) => s = target,
                None => return s,
            },
            _ => return s,
        }
    }
    s
}

/// Whether a value of type `observed` satisfies `accepted` (empty: any).
fn accepts(accepted: &[String], observed: &str) -> bool {
    accepted.is_empty()
        || accepted.iter().any(|a| a == observed)
        || (observed == "integer" && accepted.iter().any(|a| a == "number"))
}

/// What a schema says of the field at `path` (`a.b`, `list[].x`): its
/// types, `Missing` when the schema rules it out, `Unknown` when the schema
/// does not say.
enum FieldSchema {
    Types(Vec<String>),
    Missing,
    Unknown,
}

fn field_schema(schema: &Value, path: &str) -> FieldSchema {
    let root = schema;
    let mut s = resolve(schema, root, 0);
    let mut rest = path;
    loop {
        // Next step: a property name, then any number of `[]`.
        let end = rest.find('.').unwrap_or(rest.len());
        let step = &rest[..end];
        let (name, arrays) = {
            let mut n = step;
            let mut k = 0;
            while let Some(x) = n.strip_suffix("[]") {
                n = x;
                k += 1;
            }
            (n, k)
        };
        let props = s.get("properties").and_then(Value::as_object);
        let closed = s.get("additionalProperties") == Some(&Value::Bool(false));
        match props.and_then(|p| p.get(name)) {
            Some(sub) => s = resolve(sub, root, 0),
            None if closed => return FieldSchema::Missing,
            None => return FieldSchema::Unknown,
        }
        for _ in 0..arrays {
            match s.get("items") {
                Some(items) => s = resolve(items, root, 0),
                None => return FieldSchema::Unknown,
            }
        }
        if end == rest.len() {
            return FieldSchema::Types(schema_types(s, root, 0));
        }
        rest = &rest[end + 1..];
    }
}

/// Every expectation of `contract` that the server's listing can decide:
/// items offered, arguments accepted, required arguments sent, and result
/// fields against each tool's `outputSchema`. `listing` is
/// `{"tools", "prompts", "resources", "resourceTemplates"}` (any subset);
/// `server` labels the findings. A tool whose result expectations its
/// listing cannot decide (no `outputSchema`) gets no finding here:
/// [`unverified`] says which.
pub fn check_surface(server: &str, contract: &Contract, listing: &Value) -> Vec<Finding> {
    let list = |key: &str| -> Vec<&Value> {
        listing
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default()
    };
    let tools = list("tools");
    let prompts = list("prompts");
    let resources = list("resources");
    let templates = list("resourceTemplates");
    let mut out = Vec::new();
    check_tools(server, contract, &tools, &mut out);
    check_prompts(server, contract, &prompts, &mut out);
    for (i, uri) in contract.resources.iter().enumerate() {
        let listed = resources
            .iter()
            .any(|r| r.get("uri").and_then(Value::as_str) == Some(uri));
        let templated = templates.iter().any(|t| {
            t.get("uriTemplate")
                .and_then(Value::as_str)
                .is_some_and(|tpl| template_matches(tpl, uri))
        });
        if !listed && !templated {
            out.push(Finding::new(
                rule("K101"),
                at(server, contract, ItemKind::Resource, uri, format!("/resources/{i}")),
                format!(
                    "consumer `{}` reads `{uri}`, which the server no longer lists (nor a template that makes it)",
                    contract.consumer
                ),
            ));
        }
    }
    out
}

/// The tool expectations of [`check_surface`].
fn check_tools(server: &str, contract: &Contract, tools: &[&Value], out: &mut Vec<Finding>) {
    for (name, used) in &contract.tools {
        let base = format!("/tools/{}", token(name));
        let Some(tool) = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
        else {
            out.push(Finding::new(
                rule("K101"),
                at(server, contract, ItemKind::Tool, name, base),
                format!(
                    "consumer `{}` calls tool `{name}` ({} recorded), which the server no longer lists",
                    contract.consumer,
                    crate::report::plural(usize::try_from(used.calls).unwrap_or(usize::MAX), "call", "calls")
                ),
            ));
            continue;
        };
        let input = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
        let props = input.get("properties").and_then(Value::as_object);
        for (arg, types) in &used.arguments {
            let pointer = format!("{base}/arguments/{}", token(arg));
            match props.and_then(|p| p.get(arg)) {
                None if props.is_some()
                    || input.get("additionalProperties") == Some(&Value::Bool(false)) =>
                {
                    let refused = input.get("additionalProperties") == Some(&Value::Bool(false));
                    out.push(Finding::new(
                        rule("K102"),
                        at(server, contract, ItemKind::Tool, name, pointer),
                        format!(
                            "consumer `{}` sends `{arg}` to `{name}`, which its inputSchema no longer declares{}",
                            contract.consumer,
                            if refused { " (and undeclared arguments are refused)" } else { "" }
                        ),
                    ));
                }
                None => {}
                Some(schema) => {
                    let accepted = schema_types(schema, &input, 0);
                    if let Some(t) = types.iter().find(|t| !accepts(&accepted, t)) {
                        out.push(
                            Finding::new(
                                rule("K102"),
                                at(server, contract, ItemKind::Tool, name, pointer),
                                format!(
                                    "consumer `{}` sends `{arg}` to `{name}` as {t}; the inputSchema now takes {}",
                                    contract.consumer,
                                    accepted.join(" or ")
                                ),
                            )
                            .with_evidence(t.clone()),
                        );
                    }
                }
            }
        }
        if let Some(Value::Array(required)) = input.get("required") {
            for r in required.iter().filter_map(Value::as_str) {
                if !used.arguments.contains_key(r) {
                    out.push(Finding::new(
                        rule("K103"),
                        at(
                            server,
                            contract,
                            ItemKind::Tool,
                            name,
                            format!("{base}/arguments"),
                        ),
                        format!(
                            "`{name}` now requires `{r}`, which consumer `{}` never sends",
                            contract.consumer
                        ),
                    ));
                }
            }
        }
        if let Some(schema) = tool.get("outputSchema") {
            for (path, types) in &used.structured {
                let pointer = format!("{base}/structured/{}", token(path));
                let problem = match field_schema(schema, path) {
                    FieldSchema::Missing => Some("the outputSchema no longer has it".to_string()),
                    FieldSchema::Types(accepted) => {
                        types.iter().find(|t| !accepts(&accepted, t)).map(|t| {
                            format!(
                                "it was {t}; the outputSchema now says {}",
                                accepted.join(" or ")
                            )
                        })
                    }
                    FieldSchema::Unknown => None,
                };
                if let Some(problem) = problem {
                    out.push(Finding::new(
                        rule("K104"),
                        at(server, contract, ItemKind::Tool, name, pointer),
                        format!(
                            "consumer `{}` reads `{path}` of `{name}`'s structuredContent: {problem}",
                            contract.consumer
                        ),
                    ));
                }
            }
        }
    }
}

/// The prompt expectations of [`check_surface`].
fn check_prompts(server: &str, contract: &Contract, prompts: &[&Value], out: &mut Vec<Finding>) {
    for (name, used) in &contract.prompts {
        let base = format!("/prompts/{}", token(name));
        let Some(prompt) = prompts
            .iter()
            .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
        else {
            out.push(Finding::new(
                rule("K101"),
                at(server, contract, ItemKind::Prompt, name, base),
                format!(
                    "consumer `{}` gets prompt `{name}`, which the server no longer lists",
                    contract.consumer
                ),
            ));
            continue;
        };
        let declared: Vec<(&str, bool)> = prompt
            .get("arguments")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| {
                        Some((
                            x.get("name")?.as_str()?,
                            x.get("required") == Some(&Value::Bool(true)),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        for arg in &used.arguments {
            if !declared.iter().any(|(n, _)| n == arg) {
                out.push(Finding::new(
                    rule("K102"),
                    at(server, contract, ItemKind::Prompt, name, format!("{base}/arguments")),
                    format!(
                        "consumer `{}` sends `{arg}` to prompt `{name}`, which no longer declares it",
                        contract.consumer
                    ),
                ));
            }
        }
        for (r, required) in &declared {
            if *required && !used.arguments.iter().any(|a| a == r) {
                out.push(Finding::new(
                    rule("K103"),
                    at(
                        server,
                        contract,
                        ItemKind::Prompt,
                        name,
                        format!("{base}/arguments"),
                    ),
                    format!(
                        "prompt `{name}` now requires `{r}`, which consumer `{}` never sends",
                        contract.consumer
                    ),
                ));
            }
        }
    }
}

/// Whether a URI template (RFC 6570 level 1: `{var}`) can make `uri`.
fn template_matches(template: &str, uri: &str) -> bool {
    let mut rest = uri;
    let mut parts = template.split('{');
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(r) = rest.strip_prefix(first) else {
        return false;
    };
    rest = r;
    for part in parts {
        let Some((_, literal)) = part.split_once('}') else {
            return false;
        };
        if literal.is_empty() {
            return true;
        }
        match rest.find(literal) {
            Some(at) => rest = &rest[at + literal.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// The tools of `contract` whose result expectations `listing` cannot
/// decide (listed, recorded with result fields or content types, and
/// without an `outputSchema`): what replaying the call would verify.
pub fn unverified<'c>(contract: &'c Contract, listing: &Value) -> Vec<&'c str> {
    let tools = listing.get("tools").and_then(Value::as_array);
    contract
        .tools
        .iter()
        .filter(|(_, u)| !u.structured.is_empty() || !u.content.is_empty())
        .filter(|(name, _)| {
            tools.is_some_and(|ts| {
                ts.iter().any(|t| {
                    t.get("name").and_then(Value::as_str) == Some(name.as_str())
                        && t.get("outputSchema").is_none()
                })
            })
        })
        .map(|(n, _)| n.as_str())
        .collect()
}

/// The note that a tool's result expectations were not verified, and why.
pub fn not_verified(server: &str, contract: &Contract, tool: &str, why: &str) -> Finding {
    Finding::new(
        rule("K301"),
        at(
            server,
            contract,
            ItemKind::Tool,
            tool,
            format!("/tools/{}", token(tool)),
        ),
        format!(
            "what consumer `{}` reads of `{tool}`'s answers was not verified: {why}",
            contract.consumer
        ),
    )
}

/// The answer (a JSON-RPC response message) to the consumer's recorded
/// call of `tool`, sent again: a failure (K105), missing content types
/// (K105), and structured fields gone or of another type (K104).
pub fn check_answer(
    server: &str,
    contract: &Contract,
    tool: &str,
    response: &Value,
) -> Vec<Finding> {
    let Some(used) = contract.tools.get(tool) else {
        return Vec::new();
    };
    let base = format!("/tools/{}", token(tool));
    let sent = used
        .example
        .as_ref()
        .map(|e| crate::truncate(&e.to_string(), 200))
        .unwrap_or_else(|| "{}".into());
    let mut out = Vec::new();
    if let Some(err) = response.get("error") {
        out.push(
            Finding::new(
                rule("K105"),
                at(server, contract, ItemKind::Tool, tool, base),
                format!(
                    "consumer `{}`'s call of `{tool}` is now answered with JSON-RPC error {}",
                    contract.consumer,
                    err.get("code").map(Value::to_string).unwrap_or_default()
                ),
            )
            .with_detail("arguments", sent)
            .with_detail("answer", crate::truncate(&err.to_string(), 300)),
        );
        return out;
    }
    let result = response.get("result").cloned().unwrap_or(Value::Null);
    if result.get("isError") == Some(&Value::Bool(true)) {
        out.push(
            Finding::new(
                rule("K105"),
                at(server, contract, ItemKind::Tool, tool, base),
                format!(
                    "consumer `{}`'s call of `{tool}` is now answered as a tool error",
                    contract.consumer
                ),
            )
            .with_detail("arguments", sent)
            .with_detail("answer", crate::truncate(&result.to_string(), 300)),
        );
        return out;
    }
    let got: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|b| b.get("type")?.as_str()).collect())
        .unwrap_or_default();
    for t in &used.content {
        if !got.contains(&t.as_str()) {
            out.push(Finding::new(
                rule("K105"),
                at(
                    server,
                    contract,
                    ItemKind::Tool,
                    tool,
                    format!("{base}/content"),
                ),
                format!(
                    "consumer `{}` got `{t}` content from `{tool}`; the answer now has {}",
                    contract.consumer,
                    if got.is_empty() {
                        "none".to_string()
                    } else {
                        got.join(", ")
                    }
                ),
            ));
        }
    }
    let sc = result
        .get("structuredContent")
        .cloned()
        .unwrap_or(Value::Null);
    let mut now: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut fields = Vec::new();
    paths(&sc, String::new(), 0, &mut fields);
    for (p, t) in fields {
        add_type(now.entry(p).or_default(), t);
    }
    for (path, types) in &used.structured {
        let pointer = format!("{base}/structured/{}", token(path));
        match now.get(path) {
            None => {
                // A field of the items of a list that is empty now cannot
                // be judged.
                let parent = path.split("[]").next().unwrap_or("");
                if path.contains("[]")
                    && now
                        .get(parent)
                        .is_some_and(|t| t.iter().any(|x| x == "array"))
                    && !now.keys().any(|k| k.starts_with(&format!("{parent}[]")))
                {
                    continue;
                }
                out.push(Finding::new(
                    rule("K104"),
                    at(server, contract, ItemKind::Tool, tool, pointer),
                    format!(
                        "consumer `{}` reads `{path}` of `{tool}`'s structuredContent; the answer to its call has no such field",
                        contract.consumer
                    ),
                ));
            }
            Some(seen) => {
                let lost: Vec<&String> = seen.iter().filter(|t| !accepts(types, t)).collect();
                if !lost.is_empty() {
                    out.push(Finding::new(
                        rule("K104"),
                        at(server, contract, ItemKind::Tool, tool, pointer),
                        format!(
                            "consumer `{}` reads `{path}` of `{tool}` as {}; the answer now has {}",
                            contract.consumer,
                            types.join(" or "),
                            seen.join(" or ")
                        ),
                    ));
                }
            }
        }
    }
    out
}

/// The arguments of the consumer's recorded call of `tool` (`{}` when none
/// was recorded), as replayed.
pub fn replay_arguments(contract: &Contract, tool: &str) -> Map<String, Value> {
    match contract.tools.get(tool).and_then(|u| u.example.clone()) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn capture() -> String {
        json!({"server_label": "srv", "exchanges": [
            {"request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "search", "arguments": {"query": "rust", "limit": 5}}},
             "response": {"jsonrpc": "2.0", "id": 1, "result": {
                 "content": [{"type": "text", "text": "2 hits"}],
                 "structuredContent": {"total": 2, "items": [{"id": "a", "score": 0.5}]}}}},
            {"request": {"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
                         "params": {"name": "summarize", "arguments": {"text": "x"}}},
             "response": {"jsonrpc": "2.0", "id": 2, "result": {"messages": []}}},
            {"request": {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "file:///n.txt"}},
             "response": {"jsonrpc": "2.0", "id": 3, "result": {"contents": []}}}
        ]})
        .to_string()
    }

    fn recorded() -> Contract {
        let mut r = Recorder::new("agent");
        r.capture("c.json", &capture()).expect("capture");
        r.finish()
    }

    #[test]
    fn a_capture_records_what_was_used() {
        let c = recorded();
        let s = &c.tools["search"];
        assert_eq!(s.calls, 1);
        assert_eq!(s.arguments["limit"], ["integer"]);
        assert_eq!(s.content, ["text"]);
        assert_eq!(s.structured["items[].id"], ["string"]);
        assert_eq!(s.structured["total"], ["integer"]);
        assert_eq!(c.prompts["summarize"].arguments, ["text"]);
        assert_eq!(c.resources, ["file:///n.txt"]);
        let back = Contract::from_json(&c.to_json()).expect("round trip");
        assert_eq!(back, c);
        assert!(
            Contract::from_json("{\"version\": 1, \"consumer\": \"x\", \"tool\": {}}").is_err()
        );
    }

    #[test]
    fn a_trace_records_tools_and_arguments() {
        let mut r = Recorder::new("agent");
        r.trace("t.jsonl", "{\"tool\": \"a\", \"args\": {\"x\": 1.5}}\n\n{\"tool\": \"a\", \"args\": {\"x\": 2}}\n")
            .expect("trace");
        let c = r.finish();
        assert_eq!(c.tools["a"].calls, 2);
        assert_eq!(c.tools["a"].arguments["x"], ["integer", "number"]);
        let mut r = Recorder::new("agent");
        let e = r
            .trace("t.jsonl", "{\"args\": {}}")
            .expect_err("no tool")
            .to_string();
        assert_eq!(
            e,
            "line 1: no `tool` (a trace line is {\"tool\": NAME, \"args\": {…}})"
        );
        let e = r.trace("t.jsonl", "{").expect_err("not JSON").to_string();
        assert!(e.starts_with("line 1: not JSON: "), "{e}");
        let e = Contract::from_json("{\"version\": 9, \"consumer\": \"x\"}")
            .expect_err("a later version")
            .to_string();
        assert!(e.starts_with("version 9 is not one"), "{e}");
        let e = Contract::from_json("{\n  \"versio\": 1}")
            .expect_err("not a contract")
            .to_string();
        assert!(e.starts_with("2:"), "{e}");
    }

    fn listing() -> Value {
        json!({"tools": [{"name": "search", "inputSchema": {"type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["query"]},
            "outputSchema": {"type": "object", "properties": {"total": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "score": {"type": "number"}}}}}}}],
            "prompts": [{"name": "summarize", "arguments": [{"name": "text", "required": true}]}],
            "resourceTemplates": [{"uriTemplate": "file:///{name}", "name": "files"}]})
    }

    #[test]
    fn an_unchanged_surface_holds() {
        assert!(check_surface("s", &recorded(), &listing()).is_empty());
    }

    #[test]
    fn each_broken_expectation_is_named() {
        let mut l = listing();
        l["tools"][0]["inputSchema"]["properties"]["limit"] = json!({"type": "string"});
        l["tools"][0]["inputSchema"]["required"] = json!(["query", "mode"]);
        l["tools"][0]["outputSchema"]["properties"]["items"]["items"]["properties"]["id"] =
            json!({"type": "integer"});
        l["prompts"] = json!([]);
        l["resourceTemplates"] = json!([]);
        let found: Vec<(&str, String)> = check_surface("s", &recorded(), &l)
            .iter()
            .map(|f| (f.code(), f.field().to_string()))
            .collect();
        assert_eq!(
            found,
            [
                ("K102", "/tools/search/arguments/limit".to_string()),
                ("K103", "/tools/search/arguments".to_string()),
                ("K104", "/tools/search/structured/items[].id".to_string()),
                ("K101", "/prompts/summarize".to_string()),
                ("K101", "/resources/0".to_string()),
            ]
        );
    }

    #[test]
    fn a_replayed_answer_is_judged() {
        let c = recorded();
        let good = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "x"}],
            "structuredContent": {"total": 0, "items": []}}});
        assert!(
            check_answer("s", &c, "search", &good).is_empty(),
            "an empty list holds"
        );
        let changed = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [],
            "structuredContent": {"count": 2, "items": [{"id": 7}]}}});
        let found: Vec<(&str, String)> = check_answer("s", &c, "search", &changed)
            .iter()
            .map(|f| (f.code(), f.field().to_string()))
            .collect();
        assert!(
            found.contains(&("K105", "/tools/search/content".to_string())),
            "{found:?}"
        );
        assert!(
            found.contains(&("K104", "/tools/search/structured/total".to_string())),
            "{found:?}"
        );
        assert!(
            found.contains(&("K104", "/tools/search/structured/items[].id".to_string())),
            "{found:?}"
        );
        let failed = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "no"}});
        assert_eq!(check_answer("s", &c, "search", &failed)[0].code(), "K105");
    }
}
