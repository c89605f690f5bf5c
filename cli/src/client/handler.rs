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

pub use mcpcheck_core::runner::Mocks;

/// The suite's answers (decided in core, [`Mocks`]) and the initialize
/// parameters.
#[derive(Clone, Debug)]
pub struct MockClient {
    info: ClientConfig,
    capabilities: Value,
    mocks: Mocks,
}

/// The `initialize` parameters could not be built from the suite's answers.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the initialize request: {0}")]
pub struct InitializeError(#[source] serde_json::Error);

impl MockClient {
    pub fn new(protocol_version: &str, mocks: &Mocks) -> Result<Self, InitializeError> {
        let capabilities = mocks.capabilities();
        let info: ClientConfig = serde_json::from_value(json!({
            "protocolVersion": protocol_version,
            "capabilities": capabilities,
            "clientInfo": {"name": "mcpcheck", "version": mcpcheck_core::VERSION}
        }))
        .map_err(InitializeError)?;
        Ok(MockClient {
            info,
            capabilities,
            mocks: mocks.clone(),
        })
    }

    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }

    /// The params that answer an input-required `result` to a request first
    /// sent with `first` (see [`Mocks::input_retry`]).
    pub fn input_retry(
        &self,
        first: Option<&Value>,
        result: &Value,
    ) -> Result<Value, mcpcheck_core::runner::MockError> {
        self.mocks.input_retry(first, result)
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
        answer(&self.mocks.sampling_result(), "sampling")
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        answer(&self.mocks.roots_result(), "roots")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        answer(&self.mocks.elicit_result(&params), "elicitation")
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
