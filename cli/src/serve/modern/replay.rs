//! One 2026-07-28 request run through the ordinary handler: a session of
//! its own, opened in memory with the request's client capabilities, asked
//! the one request, and closed.
//!
//! The handler stays what it is for the older revisions, so tools, faults
//! and the audit log behave the same in both eras. What the handler would
//! ask the client in the middle of a request (sampling, elicitation, roots)
//! is answered from the answers the client has already given; the first
//! question without an answer ends the run, and the caller turns it into an
//! `InputRequiredResult`. Running the request again with that answer added
//! replays the same questions (the handler is deterministic) and gets one
//! step further.

use std::sync::Arc;

use rmcp::ServiceExt as _;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio_util::sync::CancellationToken;

use super::super::auth::Identity;
use super::super::handler::{Session, Shared};

/// Capacity of the in-memory pipe each way.
const PIPE_CAPACITY: usize = 256 * 1024;

/// The revision the in-memory session speaks; only the handler sees it.
const INNER_REVISION: &str = "2025-11-25";

const INITIALIZE_ID: u64 = 0;
const SET_LEVEL_ID: u64 = 1;
const REQUEST_ID: u64 = 2;

/// How a run ended.
#[derive(Debug)]
pub enum Finish {
    /// The handler's response: an object with `result` or `error`.
    Response(Value),
    /// The handler asked the client something no answer was given for.
    Input { key: String, request: Value },
    /// The session ended or broke before answering.
    Broken(ReplayError),
}

/// Why the in-memory session could not answer; the request is answered
/// with an internal error carrying this message.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// `initialize` was answered with an error (its message) or nothing.
    #[error("the request could not be served: {0}")]
    NotServed(String),
    #[error("the in-memory session closed: {0}")]
    Closed(#[source] std::io::Error),
    #[error("the server's session ended without answering")]
    Ended,
}

/// What one run needs to know about the request.
#[derive(Debug)]
pub struct Ask<'a> {
    pub identity: Identity,
    /// The client capabilities from the request's `_meta`.
    pub capabilities: &'a Value,
    /// The log level from the request's `_meta`, if any.
    pub log_level: Option<&'a str>,
    /// The answers given so far, by input-request key.
    pub answers: &'a Map<String, Value>,
}

/// The key an input request gets: what it asks for and its place in the
/// run, stable from one replay to the next.
fn input_key(method: &str, n: usize) -> String {
    let kind = method.split('/').next().unwrap_or(method);
    format!("{kind}-{n}")
}

struct Client {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    closed: CancellationToken,
}

impl Drop for Client {
    fn drop(&mut self) {
        // Ends a hang fault's wait at once; the session ends with the pipe.
        self.closed.cancel();
    }
}

impl Client {
    /// Opens a session with the handler, initialized with `capabilities`.
    /// Returns the client and the initialize result.
    async fn open(
        shared: Arc<Shared>,
        identity: Identity,
        capabilities: &Value,
    ) -> Result<(Self, Value), ReplayError> {
        let (ours, theirs) = tokio::io::duplex(PIPE_CAPACITY);
        let closed = CancellationToken::new();
        let session = Session::new(shared, Some(identity), closed.clone());
        tokio::spawn(async move {
            if let Ok(running) = session.serve(tokio::io::split(theirs)).await {
                let _ = running.waiting().await;
            }
        });
        let (read, writer) = tokio::io::split(ours);
        let mut client = Self {
            lines: BufReader::new(read).lines(),
            writer,
            closed,
        };
        client
            .send(&json!({
                "jsonrpc": "2.0", "id": INITIALIZE_ID, "method": "initialize",
                "params": {
                    "protocolVersion": INNER_REVISION,
                    "capabilities": capabilities,
                    "clientInfo": { "name": "mcpcheck-2026-front", "version": env!("CARGO_PKG_VERSION") },
                },
            }))
            .await?;
        let answer = client.response(INITIALIZE_ID).await?;
        let result = match answer.get("result") {
            Some(result) => result.clone(),
            None => {
                let why = answer
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("no result");
                return Err(ReplayError::NotServed(why.to_owned()));
            }
        };
        client
            .send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await?;
        Ok((client, result))
    }

    async fn send(&mut self, message: &Value) -> Result<(), ReplayError> {
        let mut line = message.to_string();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .map_err(ReplayError::Closed)
    }

    async fn next(&mut self) -> Result<Value, ReplayError> {
        loop {
            match self.lines.next_line().await {
                Ok(Some(line)) => {
                    if let Ok(message) = serde_json::from_str::<Value>(&line) {
                        return Ok(message);
                    }
                }
                Ok(None) | Err(_) => {
                    return Err(ReplayError::Ended);
                }
            }
        }
    }

    /// Reads until the response to `id`, dropping anything else.
    async fn response(&mut self, id: u64) -> Result<Value, ReplayError> {
        loop {
            let message = self.next().await?;
            if message.get("method").is_none() && message.get("id") == Some(&json!(id)) {
                return Ok(message);
            }
        }
    }
}

/// The handler's initialize result for a client with `capabilities`.
pub async fn initialize(
    shared: Arc<Shared>,
    identity: Identity,
    capabilities: &Value,
) -> Result<Value, ReplayError> {
    Client::open(shared, identity, capabilities)
        .await
        .map(|(_, result)| result)
}

/// Runs `method` with `params` through a fresh session, showing each
/// notification the handler sends on the way to `notify` as it comes.
pub async fn run(
    shared: Arc<Shared>,
    ask: Ask<'_>,
    method: &str,
    params: Value,
    notify: &mut (dyn FnMut(Value) + Send),
) -> Finish {
    match drive(shared, &ask, method, params, notify).await {
        Ok(finish) => finish,
        Err(why) => Finish::Broken(why),
    }
}

async fn drive(
    shared: Arc<Shared>,
    ask: &Ask<'_>,
    method: &str,
    params: Value,
    notify: &mut (dyn FnMut(Value) + Send),
) -> Result<Finish, ReplayError> {
    let (mut client, _) = Client::open(shared, ask.identity.clone(), ask.capabilities).await?;
    if let Some(level) = ask.log_level {
        client
            .send(&json!({
                "jsonrpc": "2.0", "id": SET_LEVEL_ID, "method": "logging/setLevel",
                "params": { "level": level },
            }))
            .await?;
        client.response(SET_LEVEL_ID).await?;
    }
    let mut request = json!({ "jsonrpc": "2.0", "id": REQUEST_ID, "method": method });
    if !params.as_object().is_some_and(Map::is_empty) {
        request["params"] = params;
    }
    client.send(&request).await?;
    let mut asked = 0;
    loop {
        let message = client.next().await?;
        let Some(inner) = message.get("method").and_then(Value::as_str) else {
            if message.get("id") == Some(&json!(REQUEST_ID)) {
                return Ok(Finish::Response(message));
            }
            continue;
        };
        let Some(id) = message.get("id") else {
            notify(message);
            continue;
        };
        asked += 1;
        let key = input_key(inner, asked);
        match ask.answers.get(&key) {
            Some(answer) => {
                let reply = json!({ "jsonrpc": "2.0", "id": id, "result": answer });
                client.send(&reply).await?;
            }
            None => {
                let mut request = json!({ "method": inner });
                if let Some(params) = message.get("params") {
                    let mut params = params.clone();
                    // rmcp's progress token for its own request means
                    // nothing to the client that answers it in this era.
                    if let Some(params) = params.as_object_mut() {
                        params.remove("_meta");
                    }
                    request["params"] = params;
                }
                return Ok(Finish::Input { key, request });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_keys_name_the_kind_and_place() {
        assert_eq!(input_key("sampling/createMessage", 1), "sampling-1");
        assert_eq!(input_key("elicitation/create", 2), "elicitation-2");
        assert_eq!(input_key("roots/list", 3), "roots-3");
    }
}
