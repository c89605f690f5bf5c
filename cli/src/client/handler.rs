//! The client side of the protocol: what mcpcheck declares at `initialize`
//! (or, from 2026-07-28, in every request's `_meta`) and how it answers the
//! server's own requests (`roots/list`, `sampling/createMessage`,
//! `elicitation/create`) with the suite's mocks: as requests the server
//! sends, or as the input requests of an input-required result.
//!
//! Capabilities are declared only for what the suite configured, so a server
//! that asks for sampling without being told it may is visible as such.

// Sampling and roots are deprecated by the newest protocol revision, but the
// revisions servers speak today use them, so mcpcheck answers them.
#![allow(deprecated)]

use rmcp::ClientHandler;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ListRootsResult,
};
use rmcp::service::{RequestContext, RoleClient};
use serde_json::{Value, json};

/// The answers, as JSON results, and the initialize parameters.
#[derive(Clone, Debug)]
pub struct MockClient {
    info: ClientConfig,
    capabilities: Value,
    roots: Option<Value>,
    sampling: Option<Value>,
    elicitation: Option<Value>,
    /// Accept every elicitation with the defaults of its requested schema.
    elicitation_defaults: bool,
}

/// A mock answer to `elicitation/create`.
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitAnswer {
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The form values sent with `accept`.
    pub content: Value,
    /// Accept with the `default` of each field of the requested schema
    /// instead of `content`.
    pub defaults: bool,
}

/// What the suite configured, already template-substituted.
#[derive(Clone, Debug, Default)]
pub struct Mocks {
    /// Filesystem paths, answered as `file://` roots.
    pub roots: Option<Vec<String>>,
    /// (text, model, stop reason).
    pub sampling: Option<(String, String, String)>,
    pub elicitation: Option<ElicitAnswer>,
}

impl MockClient {
    pub fn new(protocol_version: &str, mocks: &Mocks) -> Result<Self, String> {
        let mut caps = serde_json::Map::new();
        if mocks.roots.is_some() {
            caps.insert("roots".into(), json!({"listChanged": false}));
        }
        if mocks.sampling.is_some() {
            caps.insert("sampling".into(), json!({}));
        }
        if mocks.elicitation.is_some() {
            caps.insert("elicitation".into(), json!({}));
        }
        let capabilities = Value::Object(caps.clone());
        let info: ClientConfig = serde_json::from_value(json!({
            "protocolVersion": protocol_version,
            "capabilities": caps,
            "clientInfo": {"name": "mcpcheck", "version": mcpcheck_core::VERSION}
        }))
        .map_err(|e| format!("cannot build the initialize request: {e}"))?;
        let roots = mocks.roots.as_ref().map(|paths| {
            let list: Vec<Value> = paths
                .iter()
                .map(|p| {
                    let name = std::path::Path::new(p)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| p.clone());
                    let uri = if p.contains("://") {
                        p.clone()
                    } else {
                        format!("file://{p}")
                    };
                    json!({"uri": uri, "name": name})
                })
                .collect();
            json!({"roots": list})
        });
        let sampling = mocks.sampling.as_ref().map(|(text, model, stop)| {
            json!({
                "role": "assistant",
                "content": {"type": "text", "text": text},
                "model": model,
                "stopReason": stop
            })
        });
        let elicitation = mocks.elicitation.as_ref().map(|e| {
            if e.action == "accept" {
                json!({"action": e.action, "content": e.content})
            } else {
                json!({"action": e.action})
            }
        });
        Ok(MockClient {
            info,
            capabilities,
            roots,
            sampling,
            elicitation,
            elicitation_defaults: mocks.elicitation.as_ref().is_some_and(|e| e.defaults),
        })
    }

    /// The client capabilities, as declared at `initialize` and in the
    /// `_meta` of every 2026-07-28 request.
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }

    /// The answer to the elicitation `params`: the mock's, or with
    /// `elicitation: defaults`, `accept` with the default of every field of
    /// the requested schema that has one.
    fn elicit(&self, params: &Value) -> Option<Value> {
        if !self.elicitation_defaults {
            return self.elicitation.clone();
        }
        let mut content = serde_json::Map::new();
        if let Some(props) = params
            .pointer("/requestedSchema/properties")
            .and_then(Value::as_object)
        {
            for (name, schema) in props {
                if let Some(default) = schema.get("default") {
                    content.insert(name.clone(), default.clone());
                }
            }
        }
        Some(json!({"action": "accept", "content": content}))
    }

    /// The answer to one input request of an input-required result (its
    /// `method` and `params`), from the mocks; `Err` says why there is none.
    pub fn answer_input(&self, method: &str, params: &Value) -> Result<Value, String> {
        let (answer, what) = match method {
            "elicitation/create" => (self.elicit(params), "elicitation"),
            "sampling/createMessage" => (self.sampling.clone(), "sampling"),
            "roots/list" => (self.roots.clone(), "roots"),
            other => {
                return Err(format!(
                    "the server asked for `{other}`, which mcpcheck cannot answer (it answers elicitation/create, sampling/createMessage and roots/list)"
                ));
            }
        };
        answer.ok_or_else(|| {
            format!(
                "the server asked for `{method}` but this test configured no {what} answer (set server.client_capabilities.{what})"
            )
        })
    }
}

fn answer<T: serde::de::DeserializeOwned>(v: &Option<Value>, what: &str) -> Result<T, McpError> {
    match v {
        None => Err(McpError::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!("this test configured no {what} answer (set server.client_capabilities)"),
            None,
        )),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            McpError::internal_error(
                format!("mcpcheck cannot encode its {what} answer: {e}"),
                None,
            )
        }),
    }
}

impl ClientHandler for MockClient {
    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        answer(&self.sampling, "sampling")
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        answer(&self.roots, "roots")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        answer(&self.elicit(&params), "elicitation")
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
