//! Serving over stdin/stdout, one JSON-RPC message per line.
//!
//! rmcp does not read stdin directly: a small pump copies it into an
//! in-memory pipe. The pump is what notices the client closing stdin even
//! while rmcp is busy (a hung `initialize` is never reading), and it shows
//! each incoming line to the [`WireTap`]. When wire faults are on, rmcp's
//! output goes through a second pump that rewrites it line by line before it
//! reaches stdout; otherwise rmcp writes to stdout itself.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;
use tokio::io::{
    AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _,
};
use tokio_util::sync::CancellationToken;

use super::auth::Identity;
use super::faults::WireTap;
use super::handler::{Session, Shared};

/// Capacity of the in-memory pipes between the pumps and rmcp.
const PIPE_CAPACITY: usize = 256 * 1024;

/// Longest incoming line the tap looks at, as long as rmcp accepts.
const MAX_TAPPED_LINE: usize = 16 * 1024 * 1024;

/// How long the output pump may take to write what rmcp left behind once
/// the session has ended.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves one session on stdio until the client closes stdin.
pub async fn serve(shared: Arc<Shared>) -> ExitCode {
    let tap = Arc::new(WireTap::new(shared.faults.wire()));
    let closed = CancellationToken::new();
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();

    let (server_in, pump_in) = tokio::io::duplex(PIPE_CAPACITY);
    tokio::spawn(pump_stdin(stdin, pump_in, tap.clone(), closed.clone()));

    let session = Session::new(shared, Some(Identity::anonymous()), closed.clone());
    let outcome = if tap.active() {
        let (server_out, pump_out) = tokio::io::duplex(PIPE_CAPACITY);
        let output = tokio::spawn(pump_stdout(pump_out, stdout, tap));
        let outcome = run(session, server_in, server_out, &closed).await;
        // rmcp's half of the pipe is gone now, so the pump ends after it has
        // written what is left.
        let _ = tokio::time::timeout(DRAIN_TIMEOUT, output).await;
        outcome
    } else {
        run(session, server_in, stdout, &closed).await
    };
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

/// Copies stdin to rmcp, showing each line to the tap first; cancels
/// `closed` when stdin ends.
async fn pump_stdin(
    mut stdin: impl AsyncRead + Unpin,
    mut to_server: tokio::io::DuplexStream,
    tap: Arc<WireTap>,
    closed: CancellationToken,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut line = Vec::new();
    loop {
        let n = match stdin.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if tap.active() {
            for chunk in buf[..n].split_inclusive(|b| *b == b'\n') {
                line.extend_from_slice(chunk);
                if line.ends_with(b"\n") {
                    tap.note_incoming(&line);
                    line.clear();
                } else if line.len() > MAX_TAPPED_LINE {
                    // rmcp drops a line this long; the tap forgets it too.
                    line.clear();
                }
            }
        }
        if to_server.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    closed.cancel();
}

/// Copies rmcp's output to stdout line by line, rewritten by the tap.
async fn pump_stdout(
    from_server: tokio::io::DuplexStream,
    mut stdout: impl AsyncWrite + Unpin,
    tap: Arc<WireTap>,
) {
    let mut lines = tokio::io::BufReader::new(from_server);
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let mut out = String::new();
        for message in tap.rewrite(line.trim_end_matches(['\n', '\r'])) {
            out.push_str(&message);
            out.push('\n');
        }
        if stdout.write_all(out.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
    }
}
