//! The schema family (INV-030 … INV-033): every message validated against the
//! official JSON schema of the session's protocol revision.
//!
//! The schemas are the `schema.json` files the MCP project publishes, vendored under
//! `core/schemas/mcp/<revision>/` and embedded in the binary. Each revision's document
//! is registered once under `urn:mcp:schema:<revision>`; a validator is a small
//! wrapper schema that `$ref`s into it (`allOf` the JSON-RPC envelope and the
//! method's own type), compiled the first time a message needs it and reused for the
//! rest of the run.
//!
//! Which type a message is checked against:
//! - a request: `JSONRPCRequest` and the type whose `method` is that method
//!   (`CallToolRequest` for `tools/call`); unknown methods get the envelope only;
//! - a notification: `JSONRPCNotification` and its type, likewise;
//! - a result: the revision's result envelope and the result type of the request it
//!   answers (`CallToolRequest` → `CallToolResult`; `EmptyResult` where the request
//!   type has no result type of its own, as for `ping`; `CreateTaskResult` for a
//!   task-augmented request; from 2026-07-28 the published `…ResultResponse` type,
//!   which also admits an `InputRequiredResult`);
//! - an error: `JSONRPCError` (up to 2025-06-18) or `JSONRPCErrorResponse`.
//!
//! The `format` keyword is not asserted (JSON Schema's default), so results do not
//! depend on how a platform checks URIs or dates.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::Sink;
use super::fast;
use super::json;
use super::rules::Rule;
use super::schema_patch::{merge_patch, rename_definitions};
use super::session::{Revision, SessionCtx, Slot};
use crate::capture::Message;

/// The first revision's schema, whole: the published file with its
/// `description` annotations removed and its whitespace dropped
/// (`core/build.rs`), which changes no validation result and no finding.
const BASE: &str = include_str!(concat!(env!("OUT_DIR"), "/schema-2024-11-05.base.json"));

/// Each later revision as the step from the one before: `{"uses_defs",
/// "patch"}`, an RFC 7396 merge patch over the documents with their table
/// called `definitions` (`core/build.rs` checks that each gives its revision
/// exactly).
const STEPS: [&str; 4] = [
    include_str!(concat!(env!("OUT_DIR"), "/schema-2025-03-26.patch.json")),
    include_str!(concat!(env!("OUT_DIR"), "/schema-2025-06-18.patch.json")),
    include_str!(concat!(env!("OUT_DIR"), "/schema-2025-11-25.patch.json")),
    include_str!(concat!(env!("OUT_DIR"), "/schema-2026-07-28.patch.json")),
];

/// The schema document of `revision`, as published less its `description`
/// annotations.
/// Why a revision's schema, or a validator of one of its types, could not
/// be built; quoted by the finding that says so.
#[derive(Debug, thiserror::Error)]
enum SchemaError {
    /// An embedded schema text that is not JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error("the schema has no definitions")]
    NoDefinitions,
    /// The validator library's words (its error borrows the schema).
    #[error("{0}")]
    Compile(String),
}

fn schema_document(revision: Revision) -> Result<Value, SchemaError> {
    let mut document: Value = serde_json::from_str(BASE)?;
    let mut uses_defs = false;
    for (step, _) in STEPS
        .iter()
        .zip(Revision::ALL.iter().skip(1))
        .take_while(|(_, r)| **r <= revision)
    {
        let step: Value = serde_json::from_str(step)?;
        merge_patch(&mut document, &step["patch"]);
        uses_defs = step["uses_defs"] == Value::Bool(true);
    }
    if uses_defs {
        rename_definitions(&mut document);
    }
    Ok(document)
}

/// Total bytes of schema text embedded in the binary.
pub fn embedded_schema_bytes() -> usize {
    BASE.len() + STEPS.iter().map(|s| s.len()).sum::<usize>()
}

/// What a message is validated as.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Target {
    Request(Option<Arc<str>>),
    Notification(Option<Arc<str>>),
    Result(Option<Arc<str>>),
    Error,
}

/// The validators of one target, each built on first use: the tape validator for
/// every message, the `Value` validator only for messages that fail (its errors are
/// the ones findings quote) or cannot be taped.
struct Compiled {
    /// The type name findings quote.
    name: String,
    schema: Value,
    fast: Option<Result<Option<fast::Fast>, fast::BuildError>>,
    value: Option<Result<jsonschema::Validator, SchemaError>>,
}

/// One revision's registry, its type index, and the validators built so far.
struct RevisionSchemas {
    index: TypeIndex,
    registry: jsonschema::Registry<'static>,
    validators: HashMap<Target, Compiled>,
}

/// Which types a revision's schema defines, and for which methods.
struct TypeIndex {
    revision: Revision,
    /// `definitions` up to 2025-06-18, `$defs` after.
    defs: &'static str,
    names: Vec<String>,
    /// Method → the type defining it (`tools/call` → `CallToolRequest`).
    requests: HashMap<String, Arc<str>>,
    notifications: HashMap<String, Arc<str>>,
}

impl RevisionSchemas {
    fn load(revision: Revision) -> Result<Self, SchemaError> {
        let document = schema_document(revision)?;
        let (defs, table) = match (document.get("$defs"), document.get("definitions")) {
            (Some(Value::Object(table)), _) => ("$defs", table),
            (_, Some(Value::Object(table))) => ("definitions", table),
            _ => return Err(SchemaError::NoDefinitions),
        };
        let mut requests = HashMap::new();
        let mut notifications = HashMap::new();
        for (name, definition) in table {
            let generic = ["JSONRPC", "Client", "Server"]
                .iter()
                .any(|p| name.starts_with(p));
            let method = definition
                .pointer("/properties/method/const")
                .and_then(Value::as_str);
            if let (false, Some(method)) = (generic, method) {
                if name.ends_with("Request") {
                    requests.insert(method.to_string(), Arc::from(name.as_str()));
                } else if name.ends_with("Notification") {
                    notifications.insert(method.to_string(), Arc::from(name.as_str()));
                }
            }
        }
        let names = table.keys().cloned().collect();
        let registry = jsonschema::Registry::new()
            .add(uri(revision), document)
            .and_then(|builder| builder.prepare())
            .map_err(|e| SchemaError::Compile(e.to_string()))?;
        Ok(RevisionSchemas {
            index: TypeIndex {
                revision,
                defs,
                names,
                requests,
                notifications,
            },
            registry,
            validators: HashMap::new(),
        })
    }
}

impl TypeIndex {
    fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    fn reference(&self, name: &str) -> Value {
        serde_json::json!({ "$ref": format!("{}#/{}/{}", uri(self.revision), self.defs, name) })
    }

    /// The wrapper schema for a target, and the type name findings quote.
    fn wrapper(&self, target: &Target) -> (Value, String) {
        let legacy_envelopes = self.revision <= Revision::R2025_06_18;
        match target {
            Target::Request(name) | Target::Notification(name) => {
                let envelope = if matches!(target, Target::Request(_)) {
                    "JSONRPCRequest"
                } else {
                    "JSONRPCNotification"
                };
                match name {
                    Some(name) => (
                        serde_json::json!({ "allOf": [self.reference(envelope), self.reference(name)] }),
                        name.to_string(),
                    ),
                    None => (self.reference(envelope), envelope.to_string()),
                }
            }
            Target::Result(request) => {
                let envelope = if legacy_envelopes {
                    "JSONRPCResponse"
                } else {
                    "JSONRPCResultResponse"
                };
                let Some(result) = request.as_deref().map(|r| self.result_type(r)) else {
                    return (self.reference(envelope), envelope.to_string());
                };
                let response_type = format!("{result}Response");
                if self.has(&response_type) {
                    return (self.reference(&response_type), response_type);
                }
                (
                    serde_json::json!({ "allOf": [
                        self.reference(envelope),
                        { "properties": { "result": self.reference(&result) } }
                    ] }),
                    result,
                )
            }
            Target::Error => {
                let envelope = if legacy_envelopes {
                    "JSONRPCError"
                } else {
                    "JSONRPCErrorResponse"
                };
                (self.reference(envelope), envelope.to_string())
            }
        }
    }

    /// The result type answering a request type (`CallToolRequest` → `CallToolResult`,
    /// or a `CreateTaskResult` marker passed through as is).
    fn result_type(&self, request: &str) -> String {
        if request == "CreateTaskResult" {
            return request.to_string();
        }
        let candidate = request
            .strip_suffix("Request")
            .map(|stem| format!("{stem}Result"));
        match candidate {
            Some(candidate) if self.has(&candidate) => candidate,
            _ => "EmptyResult".to_string(),
        }
    }
}

impl Compiled {
    fn new((schema, name): (Value, String)) -> Self {
        Compiled {
            name,
            schema,
            fast: None,
            value: None,
        }
    }

    fn fast(
        &mut self,
        registry: &jsonschema::Registry<'static>,
    ) -> &Result<Option<fast::Fast>, fast::BuildError> {
        let schema = &self.schema;
        self.fast
            .get_or_insert_with(|| fast::build(schema, Some(registry), None))
    }

    fn value(
        &mut self,
        registry: &jsonschema::Registry<'static>,
    ) -> &Result<jsonschema::Validator, SchemaError> {
        let schema = &self.schema;
        self.value.get_or_insert_with(|| {
            jsonschema::options()
                .with_registry(registry)
                .build(schema)
                .map_err(|e| SchemaError::Compile(e.to_string()))
        })
    }
}

fn uri(revision: Revision) -> String {
    format!("urn:mcp:schema:{}", revision.as_str())
}

/// The compiled schemas of one run, per revision, built on first use, and the tape
/// buffer every message is read into.
#[derive(Default)]
pub(crate) struct SchemaCache {
    revisions: HashMap<Revision, Result<RevisionSchemas, SchemaError>>,
    tape: fast::Buffer,
}

impl SchemaCache {
    fn revision(
        &mut self,
        revision: Revision,
    ) -> (&mut Result<RevisionSchemas, SchemaError>, &mut fast::Buffer) {
        let schemas = self
            .revisions
            .entry(revision)
            .or_insert_with(|| RevisionSchemas::load(revision));
        (schemas, &mut self.tape)
    }
}

/// INV-030 … INV-033 for one session.
pub(crate) fn schema_family(ctx: &SessionCtx<'_, '_>, cache: &mut SchemaCache, out: &mut Sink) {
    let Some(revision) = ctx.schema_revision else {
        return;
    };
    let (schemas, buffer) = cache.revision(revision);
    let schemas = match schemas {
        Ok(schemas) => schemas,
        Err(problem) => {
            out.push(
                Rule::SchemaRequest,
                None,
                format!(
                    "the {} schema could not be loaded: {problem}",
                    revision.as_str()
                ),
            );
            return;
        }
    };
    let exchanges = &ctx.session.exchanges;
    ctx.for_each_message(|located| {
        let message = located.message;
        // The request a reply answers, to pick the result type.
        let answered: Option<&Message<'_>> = match located.slot {
            Slot::Response => located
                .exchange
                .and_then(|i| exchanges.get(i))
                .map(|e| &e.request),
            Slot::ServerReply(n) => located
                .exchange
                .and_then(|i| exchanges.get(i))
                .and_then(|e| e.server_requests().get(n))
                .map(|s| &s.request),
            Slot::UnmatchedReply(n) => ctx.session.unmatched.get(n).map(|u| &u.message),
            _ => None,
        };
        let (rule, target) = if message.error().is_some() && !message.has_method() {
            (Rule::SchemaError, Target::Error)
        } else if message.is_request()
            && located.slot == Slot::Request
            && located
                .exchange
                .is_some_and(|i| super::modern::refusal_expected(ctx, i).is_some())
        {
            // Malformed on purpose, to see the server refuse it: INV-040 … INV-048
            // judge the answer.
            return;
        } else if message.is_request() {
            (
                Rule::SchemaRequest,
                Target::Request(
                    schemas
                        .index
                        .requests
                        .get(message.method_str().as_ref())
                        .cloned(),
                ),
            )
        } else if message.has_method() {
            (
                Rule::SchemaNotification,
                Target::Notification(
                    schemas
                        .index
                        .notifications
                        .get(message.method_str().as_ref())
                        .cloned(),
                ),
            )
        } else {
            // A task handle of the tasks extension stands in for the method's
            // result: the envelope is checked here, the handle by INV-101 … INV-105.
            let task_handle = revision.is_stateless()
                && message
                    .result()
                    .and_then(|r| json::member(r, "resultType"))
                    .and_then(json::as_str)
                    .is_some_and(|t| t == "task");
            let request_type = answered.filter(|_| !task_handle).and_then(|request| {
                let task = request
                    .params()
                    .and_then(|p| json::member(p, "task"))
                    .is_some_and(|t| !json::is_null(t));
                if task && schemas.index.has("CreateTaskResult") {
                    Some(Arc::from("CreateTaskResult"))
                } else {
                    schemas
                        .index
                        .requests
                        .get(request.method_str().as_ref())
                        .cloned()
                }
            });
            (Rule::SchemaResult, Target::Result(request_type))
        };
        let RevisionSchemas {
            index,
            registry,
            validators,
        } = &mut *schemas;
        let compiled = validators
            .entry(target)
            .or_insert_with_key(|target| Compiled::new(index.wrapper(target)));
        // The fast path (see `fast.rs`); the `Value` validator decides the rest, and
        // reports a schema that does not compile.
        if let Ok(Some(validator)) = compiled.fast(registry)
            && fast::is_valid(validator, message.text(), buffer) == Some(true)
        {
            return;
        }
        // Invalid (or not tape-able): validate as a `Value`, whose errors the finding
        // quotes.
        let Ok(instance) = serde_json::from_str::<Value>(message.text()) else {
            out.push(
                rule,
                located.exchange,
                format!("{} could not be read for validation", located.place()),
            );
            return;
        };
        let type_name = compiled.name.clone();
        let validator = match compiled.value(registry) {
            Ok(validator) => validator,
            Err(problem) => {
                out.push(
                    rule,
                    located.exchange,
                    format!("{} could not be checked: {problem}", located.place()),
                );
                return;
            }
        };
        let Some(failure) = json::schema_failure(validator, &instance) else {
            return;
        };
        out.push(
            rule,
            located.exchange,
            format!(
                "{} does not match {type_name} ({}): {failure}",
                located.place(),
                revision.as_str()
            ),
        );
    });
}

#[cfg(all(test, not(target_family = "wasm")))]
mod tests {
    //! The tape validator must answer exactly as the `Value` validator: both run on
    //! valid messages and on deterministic random mutations of them, for every kind
    //! of target and three revisions.

    use serde_json::{Value, json};

    use super::*;

    /// The embedded text drops the `description` keyword but keeps properties
    /// that are named `description`, so a tool whose description is a number
    /// still breaks the schema.
    #[test]
    fn embedded_schemas_keep_description_properties_and_drop_the_annotations() {
        for revision in Revision::ALL {
            let schema = schema_document(revision).unwrap();
            let defs = schema.get("definitions").or_else(|| schema.get("$defs"));
            let tool = &defs.unwrap()["Tool"];
            assert_eq!(
                tool["properties"]["description"]["type"], "string",
                "{revision:?}"
            );
            assert!(tool.get("description").is_none(), "{revision:?}");
            assert!(!schema.to_string().contains("\"$comment\""));
        }
    }

    /// The base and the patches give every revision's document exactly as
    /// the build wrote it whole.
    #[test]
    fn each_revision_is_its_document() {
        let whole = [
            include_str!(concat!(env!("OUT_DIR"), "/schema-2024-11-05.json")),
            include_str!(concat!(env!("OUT_DIR"), "/schema-2025-03-26.json")),
            include_str!(concat!(env!("OUT_DIR"), "/schema-2025-06-18.json")),
            include_str!(concat!(env!("OUT_DIR"), "/schema-2025-11-25.json")),
            include_str!(concat!(env!("OUT_DIR"), "/schema-2026-07-28.json")),
        ];
        for (revision, text) in Revision::ALL.into_iter().zip(whole) {
            let expected: Value = serde_json::from_str(text).unwrap();
            assert!(
                schema_document(revision).unwrap() == expected,
                "{revision:?}"
            );
        }
        // 2025-11-25 on calls its table $defs, and points there.
        let modern = schema_document(Revision::R2026_07_28).unwrap();
        assert!(modern.get("$defs").is_some() && modern.get("definitions").is_none());
        assert!(modern.to_string().contains("\"#/$defs/"));
        assert!(!modern.to_string().contains("\"#/definitions/"));
    }

    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) as usize
        }
    }

    fn random_leaf(rng: &mut Lcg) -> Value {
        let leaves = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-1),
            json!(1.0),
            json!(1.5),
            json!(1e2),
            json!(18_446_744_073_709_551_615_u64),
            json!(-9_223_372_036_854_775_808_i64),
            json!(""),
            json!("2.0"),
            json!("text"),
            json!("tools/call"),
            json!("é\n\"q\""),
            json!([]),
            json!({}),
            json!([{"type": "text", "text": "x"}]),
            json!({"type": "object"}),
        ];
        leaves[rng.next() % leaves.len()].clone()
    }

    /// Replaces, removes or adds something somewhere in `value`.
    fn mutate(value: &mut Value, rng: &mut Lcg) {
        match value {
            Value::Object(members) if !members.is_empty() && !rng.next().is_multiple_of(3) => {
                let keys: Vec<String> = members.keys().cloned().collect();
                let key = &keys[rng.next() % keys.len()];
                match rng.next() % 4 {
                    0 => {
                        members.remove(key);
                    }
                    1 => {
                        members.insert(key.clone(), random_leaf(rng));
                    }
                    _ => {
                        if let Some(child) = members.get_mut(key) {
                            mutate(child, rng);
                        }
                    }
                }
            }
            Value::Object(members) => {
                let names = [
                    "extra",
                    "_meta",
                    "content",
                    "isError",
                    "structuredContent",
                    "name",
                    "type",
                ];
                members.insert(
                    names[rng.next() % names.len()].to_string(),
                    random_leaf(rng),
                );
            }
            Value::Array(items) if !items.is_empty() => {
                let at = rng.next() % items.len();
                if rng.next().is_multiple_of(2) {
                    items[at] = random_leaf(rng);
                } else {
                    mutate(&mut items[at], rng);
                }
            }
            other => *other = random_leaf(rng),
        }
    }

    fn templates() -> Vec<(Value, &'static str, &'static str)> {
        // (message, target kind, method or request type)
        vec![
            (
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": "t"}}}),
                "request",
                "tools/call",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "hi"},
                       {"type": "image", "data": "AAAA", "mimeType": "image/png"}],
                       "structuredContent": {"t": 1}, "isError": false, "resultType": "complete"}}),
                "result",
                "tools/call",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "echo", "description": "d",
                       "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                       "annotations": {"readOnlyHint": true}}], "nextCursor": "c", "resultType": "complete",
                       "ttlMs": 10, "cacheScope": "public"}}),
                "result",
                "tools/list",
            ),
            (
                json!({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": 1, "progress": 50, "total": 100, "message": "m"}}),
                "notification",
                "notifications/progress",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found", "data": {"m": 1}}}),
                "error",
                "",
            ),
            (
                json!({"jsonrpc": "2.0", "id": "s", "method": "sampling/createMessage", "params": {"messages": [
                       {"role": "user", "content": {"type": "text", "text": "x"}}], "maxTokens": 5}}),
                "request",
                "sampling/createMessage",
            ),
        ]
    }

    #[test]
    fn tape_and_value_validators_agree() {
        let mut rng = Lcg(0x5eed_cafe);
        let mut buffer = fast::Buffer::default();
        let mut checked = 0;
        let mut valid = 0;
        for revision in [
            Revision::R2024_11_05,
            Revision::R2025_11_25,
            Revision::R2026_07_28,
        ] {
            let Ok(mut schemas) = RevisionSchemas::load(revision) else {
                panic!("{} loads", revision.as_str());
            };
            for (template, kind, method) in templates() {
                let target = match kind {
                    "request" => Target::Request(schemas.index.requests.get(method).cloned()),
                    "notification" => {
                        Target::Notification(schemas.index.notifications.get(method).cloned())
                    }
                    "result" => Target::Result(schemas.index.requests.get(method).cloned()),
                    _ => Target::Error,
                };
                for round in 0..300 {
                    let mut message = template.clone();
                    for _ in 0..round % 4 {
                        mutate(&mut message, &mut rng);
                    }
                    let text = if round % 2 == 0 {
                        message.to_string()
                    } else {
                        serde_json::to_string_pretty(&message).unwrap_or_default()
                    };
                    let RevisionSchemas {
                        index,
                        registry,
                        validators,
                    } = &mut schemas;
                    let compiled = validators
                        .entry(target.clone())
                        .or_insert_with_key(|target| Compiled::new(index.wrapper(target)));
                    let Ok(Some(fast)) = compiled.fast(registry) else {
                        panic!("the fast validator compiles");
                    };
                    let Some(by_tape) = fast::is_valid(fast, &text, &mut buffer) else {
                        continue;
                    };
                    let by_tape = Some(by_tape);
                    let instance: Value = serde_json::from_str(&text).expect("valid JSON");
                    let by_value = compiled
                        .value(registry)
                        .as_ref()
                        .ok()
                        .map(|v| v.is_valid(&instance));
                    assert_eq!(
                        by_tape,
                        by_value,
                        "{} {kind} {method}: {text}",
                        revision.as_str()
                    );
                    checked += 1;
                    valid += usize::from(by_value == Some(true));
                }
            }
        }
        assert!(checked > 4000, "{checked} messages compared");
        assert!(
            valid > 200 && valid < checked - 1000,
            "{valid} of {checked} valid: both outcomes covered"
        );
    }
}
