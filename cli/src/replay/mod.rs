//! The transports of `mcpcheck replay` (`commands/replay.rs` has its flags):
//! each hands what a client sends to a `mcpcheck_core::replay::Replayer`
//! and writes back what it says, on stdio or Streamable HTTP.

pub mod http;
pub mod stdio;

use std::time::Duration;

use serde_json::Value;

/// How long a server→client request (sampling, elicitation, roots) waits
/// for the client's answer before the replay goes on without it.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether `message` is the client's answer to the server request `id`.
pub fn answers(message: &Value, id: &Value) -> bool {
    message.get("method").is_none() && message.get("id") == Some(id)
}

/// The method of a server request, for messages.
pub fn method_of(request: &Value) -> &str {
    request
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or("a request")
}
