//! Serving over stdin/stdout, one JSON-RPC message per line.
//!
//! rmcp does not read stdin directly: a small pump copies it into an
//! in-memory pipe, line by line. The pump is what notices the client
//! closing stdin even while rmcp is busy (a hung `initialize` is never
//! reading), it shows each incoming line to the [`WireTap`], and it keeps
//! the lines of the 2026-07-28 era (see `modern`) for the modern front
//! instead of rmcp. Everything written to stdout (rmcp's lines and the
//! front's) goes through one writer, which has the tap rewrite it.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;
use serde_json::Value;
use tokio::io::{
    AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _,
};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use super::auth::Identity;
use super::faults::WireTap;
use super::handler::{Session, Shared};
use super::modern::{self, Modern};

/// Capacity of the in-memory pipes between the pumps and rmcp.
const PIPE_CAPACITY: usize = 256 * 1024;

/// Longest incoming line held whole (to be shown to the tap and to choose
/// its era), as long as rmcp accepts; a longer one goes to rmcp as it comes.
const MAX_TAPPED_LINE: usize = 16 * 1024 * 1024;

/// How long the output pump may take to write what rmcp left behind once
/// the session has ended, and how long 2026-07-28 requests still running
/// when stdin closes may take to finish.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves one session on stdio until the client closes stdin: a legacy
/// session (opened by `initialize`) through rmcp, and 2026-07-28 requests
/// through the modern front, on the same stdin and stdout.
pub async fn serve(shared: Arc<Shared>) -> ExitCode {
    let tap = Arc::new(WireTap::new(shared.faults.wire()));
    let closed = CancellationToken::new();
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
    let (lines, to_write) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(write_lines(to_write, stdout, tap.clone()));

    let front = Front {
        modern: Arc::new(Modern::new(shared.clone(), false)),
        out: lines.clone(),
        initialized: false,
        running: HashMap::new(),
        closed: closed.clone(),
        tasks: JoinSet::new(),
    };
    let (server_in, pump_in) = tokio::io::duplex(PIPE_CAPACITY);
    tokio::spawn(pump_stdin(stdin, pump_in, tap, front));

    let session = Session::new(shared, Some(Identity::anonymous()), closed.clone());
    let (server_out, pump_out) = tokio::io::duplex(PIPE_CAPACITY);
    let output = tokio::spawn(pump_stdout(pump_out, lines));
    let outcome = run(session, server_in, server_out, &closed).await;
    // rmcp's half of the pipe is gone now, so the pumps end after they have
    // written what is left.
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, output).await;
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, writer).await;
    closed.cancel();
    outcome
}

async fn run(
    session: Session,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
    closed: &CancellationToken,
) -> ExitCode {
    match session.serve((input, output)).await {
        Ok(running) => {
            // The session ends when stdin closes; how it ended does not
            // change the exit status of a server whose client left.
            let _ = running.waiting().await;
            ExitCode::SUCCESS
        }
        // A client that leaves before the handshake ends (even one a hung
        // `initialize` kept waiting) is a normal end.
        Err(_) if closed.is_cancelled() => ExitCode::SUCCESS,
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcpcheck serve: the session did not start: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Where stdin's lines go besides rmcp: the 2026-07-28 ones are answered
/// here, each in a task of its own, onto the shared output.
struct Front {
    modern: Arc<Modern>,
    out: mpsc::UnboundedSender<String>,
    /// Whether the client opened a legacy session with `initialize`.
    initialized: bool,
    /// The requests being answered (`subscriptions/listen` streams
    /// included), by id, to stop one on `notifications/cancelled`.
    running: HashMap<String, AbortHandle>,
    closed: CancellationToken,
    tasks: JoinSet<()>,
}

impl Front {
    /// Takes `line` if it belongs to the 2026-07-28 era; `false` leaves it
    /// to rmcp.
    fn take(&mut self, line: &[u8]) -> bool {
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return false;
        };
        let method = message.get("method").and_then(Value::as_str);
        if !modern::is_modern(&message, self.initialized) {
            self.initialized |= method == Some("initialize");
            return false;
        }
        if method == Some("notifications/cancelled") {
            // Stopped where it is: nothing more is sent for the request.
            let id = message.pointer("/params/requestId").map(Value::to_string);
            if let Some(task) = id.and_then(|id| self.running.remove(&id)) {
                task.abort();
            }
            return true;
        }
        let id = message.get("id").map(Value::to_string);
        let modern = self.modern.clone();
        let out = self.out.clone();
        let closed = self.closed.clone();
        let task = self.tasks.spawn(async move {
            // Progress and log messages are written as they come, before
            // the answer.
            let (notes, mut noted) = mpsc::unbounded_channel::<Value>();
            let run = modern.handle(&message, None, Identity::anonymous(), Some(&notes));
            tokio::pin!(run);
            let outcome = loop {
                tokio::select! {
                    outcome = &mut run => break outcome,
                    Some(note) = noted.recv() => drop(out.send(note.to_string())),
                }
            };
            while let Ok(note) = noted.try_recv() {
                let _ = out.send(note.to_string());
            }
            match outcome {
                modern::Outcome::Reply(reply) => {
                    for message in reply.messages {
                        let _ = out.send(message.to_string());
                    }
                }
                modern::Outcome::Listen(listen) => stream_listen(*listen, &out, &closed).await,
            }
        });
        self.running.retain(|_, task| !task.is_finished());
        if let Some(id) = id {
            self.running.insert(id, task);
        }
        true
    }

    /// Once stdin has closed: lets the requests still running finish
    /// (within [`DRAIN_TIMEOUT`]); listen streams end at once.
    async fn drain(mut self) {
        self.closed.cancel();
        let all = async { while self.tasks.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(DRAIN_TIMEOUT, all).await;
    }
}

/// Writes a listen stream's acknowledgment and notifications until stdin
/// closes (or the task is stopped by `notifications/cancelled`).
async fn stream_listen(
    mut listen: modern::Listen,
    out: &mpsc::UnboundedSender<String>,
    closed: &CancellationToken,
) {
    if out.send(listen.acknowledgment.to_string()).is_err() {
        return;
    }
    loop {
        tokio::select! {
            next = listen.next() => match next {
                Some(notification) => {
                    if out.send(notification.to_string()).is_err() {
                        return;
                    }
                }
                None => return,
            },
            () = closed.cancelled() => return,
        }
    }
}

/// Copies stdin to rmcp line by line, showing each line to the tap first
/// and keeping the 2026-07-28 ones for the front; when stdin ends, lets the
/// front finish and closes rmcp's input.
async fn pump_stdin(
    mut stdin: impl AsyncRead + Unpin,
    mut to_server: tokio::io::DuplexStream,
    tap: Arc<WireTap>,
    mut front: Front,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut line = Vec::new();
    // Inside a line too long to hold: its bytes go to rmcp as they come.
    let mut passing = false;
    'read: loop {
        let n = match stdin.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for chunk in buf[..n].split_inclusive(|b| *b == b'\n') {
            let ends = chunk.ends_with(b"\n");
            if passing {
                passing = !ends;
                if to_server.write_all(chunk).await.is_err() {
                    break 'read;
                }
                continue;
            }
            line.extend_from_slice(chunk);
            if ends {
                tap.note_incoming(&line);
                let taken = front.take(&line);
                if !taken && to_server.write_all(&line).await.is_err() {
                    break 'read;
                }
                line.clear();
            } else if line.len() > MAX_TAPPED_LINE {
                passing = true;
                if to_server.write_all(&line).await.is_err() {
                    break 'read;
                }
                line.clear();
            }
        }
    }
    if !line.is_empty() {
        let _ = to_server.write_all(&line).await;
    }
    front.drain().await;
    drop(to_server);
}

/// Copies rmcp's output, line by line, to the writer.
async fn pump_stdout(from_server: tokio::io::DuplexStream, lines: mpsc::UnboundedSender<String>) {
    let mut reader = tokio::io::BufReader::new(from_server);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if lines
            .send(line.trim_end_matches(['\n', '\r']).to_owned())
            .is_err()
        {
            break;
        }
    }
}

/// Writes each message to stdout as a line, rewritten by the tap; ends
/// when every sender is gone.
async fn write_lines(
    mut messages: mpsc::UnboundedReceiver<String>,
    mut stdout: impl AsyncWrite + Unpin,
    tap: Arc<WireTap>,
) {
    while let Some(message) = messages.recv().await {
        let mut out = String::new();
        for message in tap.rewrite(&message) {
            out.push_str(&message);
            out.push('\n');
        }
        if stdout.write_all(out.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
    }
}
