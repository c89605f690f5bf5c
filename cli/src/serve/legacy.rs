//! The legacy HTTP+SSE transport of protocol revision 2024-11-05: the client
//! opens `GET /sse`, whose first event (`endpoint`) names the URL to POST
//! messages to (`/message?sessionId=ID`); every server message then arrives
//! as a `message` event on that stream, and each POST is answered `202`.
//!
//! rmcp no longer ships this transport, so each session runs rmcp over an
//! in-memory byte pipe — exactly as on stdio: POST bodies are written into
//! it as lines, and the lines rmcp writes back become SSE events. Wire faults
//! therefore apply here as they do on stdio.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::{StreamExt as _, stream};
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use rmcp::ServiceExt as _;
use sse_stream::Sse;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, WriteHalf};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::auth::Identity;
use super::faults::WireTap;
use super::handler::{Session, Shared};
use super::http::{Body, LEGACY_MESSAGE_PATH, plain, read_body, sse_response};

/// Capacity of each session's in-memory pipe.
const PIPE_CAPACITY: usize = 256 * 1024;

/// How long a POST may wait for room in the pipe to the server.
const POST_TIMEOUT: Duration = Duration::from_secs(10);

/// The open legacy sessions of one server.
pub struct Legacy {
    shared: Arc<Shared>,
    sessions: Arc<Mutex<HashMap<String, Arc<Client>>>>,
    shutdown: CancellationToken,
}

/// The client side of one session: where POSTed messages go.
struct Client {
    to_server: tokio::sync::Mutex<WriteHalf<DuplexStream>>,
    tap: Arc<WireTap>,
}

impl Legacy {
    pub fn new(shared: Arc<Shared>, shutdown: CancellationToken) -> Self {
        Self {
            shared,
            sessions: Arc::default(),
            shutdown,
        }
    }

    /// How many sessions are open.
    pub fn open_sessions(&self) -> usize {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// `GET /sse`: starts a session and returns its event stream. The
    /// session lasts as long as the stream: when the client disconnects,
    /// rmcp sees the end of its input and the session ends.
    pub fn open(&self, identity: Identity) -> Response<Body> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let (server_io, client_io) = tokio::io::duplex(PIPE_CAPACITY);
        let (from_server, to_server) = tokio::io::split(client_io);
        let closed = CancellationToken::new();
        let tap = Arc::new(WireTap::new(self.shared.faults.wire()));

        let session = Session::new(self.shared.clone(), Some(identity), closed.clone());
        // A child token: rmcp cancels the token of a session that ends, and
        // with the server's own token one ended session would end them all.
        let shutdown = self.shutdown.child_token();
        tokio::spawn(async move {
            let (input, output) = tokio::io::split(server_io);
            if let Ok(running) = session.serve_with_ct((input, output), shutdown).await {
                // However the session ends, its stream has already closed.
                let _ = running.waiting().await;
            }
        });
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                id.clone(),
                Arc::new(Client {
                    to_server: tokio::sync::Mutex::new(to_server),
                    tap: tap.clone(),
                }),
            );

        let endpoint = Sse::default()
            .event("endpoint")
            .data(format!("{LEGACY_MESSAGE_PATH}?sessionId={id}"));
        let ending = Ending {
            sessions: self.sessions.clone(),
            id,
            _closed: closed.drop_guard(),
        };
        let messages = stream::unfold(
            (BufReader::new(from_server), tap, ending),
            |(mut reader, tap, ending)| async move {
                let mut line = String::new();
                match reader.read_line(&mut line).await {
                    Ok(0) | Err(_) => None,
                    Ok(_) => {
                        let events: Vec<Sse> = tap
                            .rewrite(line.trim_end_matches(['\n', '\r']))
                            .into_iter()
                            .map(|m| Sse::default().event("message").data(m))
                            .collect();
                        Some((stream::iter(events), (reader, tap, ending)))
                    }
                }
            },
        )
        .flatten();
        let mut response = sse_response(
            Response::new(()).into_parts().0,
            stream::once(std::future::ready(endpoint)).chain(messages),
        );
        let headers = response.headers_mut();
        headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/event-stream"),
        );
        headers.insert(
            http::header::CACHE_CONTROL,
            http::HeaderValue::from_static("no-cache"),
        );
        response
    }

    /// `POST /message?sessionId=ID`: hands one JSON-RPC message to the
    /// session; the answer arrives on its event stream.
    pub async fn post(&self, request: Request<Incoming>, timeout: Duration) -> Response<Body> {
        let Some(id) = request.uri().query().and_then(session_id) else {
            return plain(StatusCode::BAD_REQUEST, "Bad Request: missing sessionId");
        };
        let client = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned();
        let Some(client) = client else {
            return plain(StatusCode::NOT_FOUND, "Not Found: unknown session");
        };
        let body = match read_body(request.into_body(), timeout).await {
            Ok(body) => body,
            Err(response) => return response,
        };
        // One message per line is what rmcp reads: re-serialize compactly,
        // which also rejects anything that is not JSON before rmcp sees it.
        let Ok(message) = serde_json::from_slice::<serde_json::Value>(&body) else {
            return plain(StatusCode::BAD_REQUEST, "Bad Request: the body is not JSON");
        };
        let mut line = message.to_string().into_bytes();
        client.tap.note_incoming(&line);
        line.push(b'\n');
        let write = async {
            let mut to_server = client.to_server.lock().await;
            to_server.write_all(&line).await?;
            to_server.flush().await
        };
        match tokio::time::timeout(POST_TIMEOUT, write).await {
            Ok(Ok(())) => plain(StatusCode::ACCEPTED, "Accepted"),
            Ok(Err(_)) => plain(StatusCode::NOT_FOUND, "Not Found: the session has ended"),
            Err(_) => plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: the session is not reading",
            ),
        }
    }
}

/// The `sessionId` parameter of a query string.
fn session_id(query: &str) -> Option<&str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == "sessionId")
        .map(|(_, value)| value)
}

/// Forgets a session when its event stream is dropped, and tells the
/// session (through `closed`) that its client is gone.
struct Ending {
    sessions: Arc<Mutex<HashMap<String, Arc<Client>>>>,
    id: String,
    _closed: DropGuard,
}

impl Drop for Ending {
    fn drop(&mut self) {
        // Dropping the client's write half ends rmcp's input.
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_id_is_read_from_the_query() {
        assert_eq!(session_id("sessionId=abc"), Some("abc"));
        assert_eq!(session_id("x=1&sessionId=abc&y=2"), Some("abc"));
        assert_eq!(session_id("session=abc"), None);
    }
}
