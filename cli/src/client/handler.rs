//! The client side of the protocol: what mcpcheck declares at `initialize`
//! and how it answers the server's own requests (`roots/list`,
//! `sampling/createMessage`, `elicitation/create`) with the suite's mocks.
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
    roots: Option<Value>,
    sampling: Option<Value>,
    elicitation: Option<Value>,
}

/// What the suite configured, already template-substituted.
#[derive(Clone, Debug, Default)]
pub struct Mocks {
    /// Filesystem paths, answered as `file://` roots.
    pub roots: Option<Vec<String>>,
    /// (text, model, stop reason).
    pub sampling: Option<(String, String, String)>,
    /// (action, content).
    pub elicitation: Option<(String, Value)>,
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
        let elicitation = mocks.elicitation.as_ref().map(|(action, content)| {
            if action == "accept" {
                json!({"action": action, "content": content})
            } else {
                json!({"action": action})
            }
        });
        Ok(MockClient {
            info,
            roots,
            sampling,
            elicitation,
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
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        answer(&self.elicitation, "elicitation")
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
