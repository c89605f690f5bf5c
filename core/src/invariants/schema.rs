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
use super::json;
use super::rules::Rule;
use super::session::{Revision, SessionCtx, Slot};
use crate::capture::Message;

/// The embedded schema documents, byte for byte as published.
fn schema_text(revision: Revision) -> &'static str {
    match revision {
        Revision::R2024_11_05 => include_str!("../../schemas/mcp/2024-11-05/schema.json"),
        Revision::R2025_03_26 => include_str!("../../schemas/mcp/2025-03-26/schema.json"),
        Revision::R2025_06_18 => include_str!("../../schemas/mcp/2025-06-18/schema.json"),
        Revision::R2025_11_25 => include_str!("../../schemas/mcp/2025-11-25/schema.json"),
        Revision::R2026_07_28 => include_str!("../../schemas/mcp/2026-07-28/schema.json"),
    }
}

/// Total bytes of schema text embedded in the binary.
pub fn embedded_schema_bytes() -> usize {
    Revision::ALL.iter().map(|&r| schema_text(r).len()).sum()
}

/// What a message is validated as.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Target {
    Request(Option<Arc<str>>),
    Notification(Option<Arc<str>>),
    Result(Option<Arc<str>>),
    Error,
}

/// One revision's registry, its method→type index, and the validators built so far.
struct RevisionSchemas {
    revision: Revision,
    registry: jsonschema::Registry<'static>,
    /// `definitions` up to 2025-06-18, `$defs` after.
    defs: &'static str,
    names: Vec<String>,
    /// Method → the type defining it (`tools/call` → `CallToolRequest`).
    requests: HashMap<String, Arc<str>>,
    notifications: HashMap<String, Arc<str>>,
    validators: HashMap<Target, Result<(jsonschema::Validator, String), String>>,
}

impl RevisionSchemas {
    fn load(revision: Revision) -> Result<Self, String> {
        let document: Value =
            serde_json::from_str(schema_text(revision)).map_err(|e| e.to_string())?;
        let (defs, table) = match (document.get("$defs"), document.get("definitions")) {
            (Some(Value::Object(table)), _) => ("$defs", table),
            (_, Some(Value::Object(table))) => ("definitions", table),
            _ => return Err("the schema has no definitions".to_string()),
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
            .map_err(|e| e.to_string())?;
        Ok(RevisionSchemas {
            revision,
            registry,
            defs,
            names,
            requests,
            notifications,
            validators: HashMap::new(),
        })
    }

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

    fn validator(
        &mut self,
        target: &Target,
    ) -> Option<&Result<(jsonschema::Validator, String), String>> {
        if !self.validators.contains_key(target) {
            let (schema, name) = self.wrapper(target);
            let built = jsonschema::options()
                .with_registry(&self.registry)
                .build(&schema)
                .map(|v| (v, name))
                .map_err(|e| e.to_string());
            self.validators.insert(target.clone(), built);
        }
        self.validators.get(target)
    }
}

fn uri(revision: Revision) -> String {
    format!("urn:mcp:schema:{}", revision.as_str())
}

/// The compiled schemas of one run, per revision, built on first use.
#[derive(Default)]
pub(crate) struct SchemaCache {
    revisions: HashMap<Revision, Result<RevisionSchemas, String>>,
}

impl SchemaCache {
    fn revision(&mut self, revision: Revision) -> &mut Result<RevisionSchemas, String> {
        self.revisions
            .entry(revision)
            .or_insert_with(|| RevisionSchemas::load(revision))
    }
}

/// INV-030 … INV-033 for one session.
pub(crate) fn schema_family(ctx: &SessionCtx<'_, '_>, cache: &mut SchemaCache, out: &mut Sink) {
    let Some(revision) = ctx.schema_revision else {
        return;
    };
    let schemas = match cache.revision(revision) {
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
        } else if message.is_request() {
            (
                Rule::SchemaRequest,
                Target::Request(schemas.requests.get(message.method_str().as_ref()).cloned()),
            )
        } else if message.has_method() {
            (
                Rule::SchemaNotification,
                Target::Notification(
                    schemas
                        .notifications
                        .get(message.method_str().as_ref())
                        .cloned(),
                ),
            )
        } else {
            let request_type = answered.and_then(|request| {
                let task = request
                    .params()
                    .and_then(|p| json::member(p, "task"))
                    .is_some_and(|t| !json::is_null(t));
                if task && schemas.has("CreateTaskResult") {
                    Some(Arc::from("CreateTaskResult"))
                } else {
                    schemas.requests.get(request.method_str().as_ref()).cloned()
                }
            });
            (Rule::SchemaResult, Target::Result(request_type))
        };
        let (validator, type_name) = match schemas.validator(&target) {
            Some(Ok((validator, name))) => (validator, name.as_str()),
            Some(Err(problem)) => {
                out.push(
                    rule,
                    located.exchange,
                    format!("{} could not be checked: {problem}", located.place()),
                );
                return;
            }
            None => return,
        };
        let Ok(instance) = serde_json::from_str::<Value>(message.text()) else {
            out.push(
                rule,
                located.exchange,
                format!("{} could not be read for validation", located.place()),
            );
            return;
        };
        if validator.is_valid(&instance) {
            return;
        }
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .map(|e| {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() { "/".to_string() } else { at };
                format!(
                    "at {at}: {} (schema path {})",
                    json::snippet(&e.to_string(), 160),
                    e.schema_path()
                )
            })
            .collect();
        let first = errors.first().map_or("it is invalid", String::as_str);
        let more = match errors.len() {
            0 | 1 => String::new(),
            n => format!("; and {} more", n - 1),
        };
        out.push(
            rule,
            located.exchange,
            format!(
                "{} does not match {type_name} ({}): {first}{more}",
                located.place(),
                revision.as_str()
            ),
        );
    });
}
