//! Intercept on stdio: the client starts `mcpcheck intercept … -- CMD` as
//! its server; the server runs as a child leading a process tree of its own
//! (a process group on Unix, a Job Object on Windows; tagged
//! with `MCPCHECK_PROCESS_TAG`, as every server the project starts), and
//! what each side writes is copied to the other byte for byte, a read at a
//! time, so neither sees writes merged or split that the other made apart;
//! each line is recorded as it completes. Nothing of ours goes to stdout:
//! it is the client's channel. The server's stderr is ours.
//!
//! The session ends when the client closes stdin (the server's stdin is
//! closed and it gets [`GRACE`] to exit), when the server closes its output
//! or exits, or on SIGINT, SIGTERM or SIGHUP (Ctrl-C or Ctrl-Break on
//! Windows); the server's process tree is killed then, and the recording is closed once neither direction can
//! still be read.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

use super::Recorder;
use super::faults::{Faults, Plan};
use crate::client::stdio::{TAG_VARIABLE, kill_tagged};
use crate::client::tap::{Dir, MAX_MESSAGE_BYTES};
use crate::proctree::Tree;

/// How long the server may take to exit after the client closed its input.
pub const GRACE: Duration = Duration::from_secs(5);

/// How long the rest of the server's output is read once its tree was killed.
const DRAIN: Duration = Duration::from_secs(2);

/// How long the server's output is still read after the server exited:
/// another process it started may hold it open for ever.
const AFTER_EXIT: Duration = Duration::from_secs(1);

/// The server to start.
pub struct Server {
    pub command: String,
    pub args: Vec<String>,
}

/// The size of one read from either side.
const CHUNK: usize = 64 * 1024;

/// Splits what one side writes into the lines to record, chunk by chunk:
/// each complete line as its text; a line longer than one message as a
/// note saying so (its bytes are not kept); at the end, a last line without
/// a newline.
#[derive(Default)]
struct Lines {
    line: Vec<u8>,
    long: bool,
}

impl Lines {
    fn feed(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut done = Vec::new();
        let mut rest = chunk;
        while !rest.is_empty() {
            let (piece, ended) = match rest.iter().position(|&b| b == b'\n') {
                Some(at) => (&rest[..at], true),
                None => (rest, false),
            };
            rest = &rest[piece.len() + usize::from(ended)..];
            if !self.long {
                self.line.extend_from_slice(piece);
                if self.line.len() > MAX_MESSAGE_BYTES {
                    self.line = Vec::new();
                    self.long = true;
                    done.push(format!(
                        "a line longer than {} MiB",
                        MAX_MESSAGE_BYTES >> 20
                    ));
                }
            }
            if ended {
                if !self.long {
                    done.push(String::from_utf8_lossy(&self.line).into_owned());
                }
                self.line.clear();
                self.long = false;
            }
        }
        done
    }

    /// The last line, when it had no newline.
    fn finish(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.line);
        (!line.is_empty() && !self.long).then(|| String::from_utf8_lossy(&line).into_owned())
    }
}

/// Proxies one session and returns how it ended, in words for the report.
pub async fn run(
    server: &Server,
    recorder: Arc<Recorder>,
    faults: Arc<Faults>,
) -> crate::error::Result<String> {
    let tag = mcpcheck_core::snapshot::process_tag(std::process::id(), "intercept");
    let mut cmd = Command::new(&server.command);
    cmd.args(&server.args)
        .env(TAG_VARIABLE, &tag)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let (mut child, tree) = crate::proctree::spawn(&mut cmd).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            crate::client::stdio::not_found(&server.command)
        } else {
            format!("cannot start the server `{}`: {e}", server.command)
        }
    })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("cannot open the server's stdin and stdout".into());
    };
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(copy_stderr(stderr, recorder.clone()));
    }
    let (ended, stopped) = proxy(&mut child, tree.as_ref(), stdin, stdout, recorder, faults).await;
    if !stopped {
        // It closed its output or the client did: a moment to exit on its own.
        let _ = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
    }
    if let Some(tree) = &tree {
        tree.kill();
    }
    let _ = child.start_kill();
    let status = tokio::time::timeout(DRAIN, child.wait()).await;
    let _ = tokio::task::spawn_blocking(move || kill_tagged(&tag, false)).await;
    Ok(match status {
        Ok(Ok(status)) if !stopped => format!(
            "{ended}; the server {}",
            crate::proctree::describe_exit(status)
        ),
        _ => ended,
    })
}

/// Copies both ways until the session ends; returns how it ended, and
/// whether the server was stopped (rather than exiting on its own).
async fn proxy(
    child: &mut Child,
    tree: Option<&Tree>,
    mut server_in: ChildStdin,
    server_out: ChildStdout,
    recorder: Arc<Recorder>,
    faults: Arc<Faults>,
) -> (String, bool) {
    let (client_tx, mut client_rx) = mpsc::channel::<Vec<u8>>(64);
    // Stdin is read on a thread of its own: a blocking read that outlives
    // the session must not hold up the runtime's shutdown.
    std::thread::spawn(move || read_stdin(&client_tx));
    let to_client = if faults.active() {
        tokio::spawn(copy_to_client_faulty(
            server_out,
            recorder.clone(),
            faults.clone(),
        ))
    } else {
        let recorder = recorder.clone();
        tokio::spawn(async move {
            copy_to_client(server_out, recorder).await;
            None
        })
    };
    tokio::pin!(to_client);
    let mut stops = crate::signals::Stops::new();
    // Client to server, here; server to client, in `to_client`. Each
    // chunk is passed on as it was read, so the server sees the client's
    // writes as they were made.
    let mut lines = Lines::default();
    let ended = loop {
        tokio::select! {
            chunk = client_rx.recv() => match chunk {
                Some(chunk) => {
                    for text in lines.feed(&chunk) {
                        recorder.record(Dir::Out, &text, None);
                        faults.request(&text, None);
                    }
                    if server_in.write_all(&chunk).await.is_err() || server_in.flush().await.is_err() {
                        break ("the server stopped reading its input".to_string(), false);
                    }
                }
                None => {
                    // The client closed stdin: so does the server's, and it
                    // gets a moment to finish and exit.
                    if let Some(text) = lines.finish() {
                        recorder.record(Dir::Out, &text, None);
                    }
                    drop(server_in);
                    if tokio::time::timeout(GRACE, child.wait()).await.is_ok() {
                        // It exited: what it wrote is read to the end, or for
                        // a moment when another process holds its output.
                        let _ = tokio::time::timeout(AFTER_EXIT, &mut to_client).await;
                        return ("the client closed the connection".to_string(), false);
                    }
                    break (format!(
                        "the client closed the connection; the server did not exit within {} s and was stopped",
                        GRACE.as_secs()
                    ), true);
                }
            },
            done = &mut to_client => match done.ok().flatten() {
                Some(cut) => break (cut, true),
                None => break ("the server closed its output".to_string(), false),
            },
            _ = child.wait() => {
                // The server is gone. What it wrote is read to the end; a
                // process it started that still holds its output open does
                // not keep the session going.
                if tokio::time::timeout(AFTER_EXIT, &mut to_client).await.is_ok() {
                    break ("the server closed its output".to_string(), false);
                }
                break (
                    "the server ended while a process it started still held its output open".to_string(),
                    false,
                );
            }
            stop = stops.next() => break (format!("{} ({})", stop.what, stop.name), true),
        }
    };
    // Whatever the server wrote before it was stopped is still passed on
    // and recorded: the recording closes only after this direction ended.
    if !to_client.is_finished() {
        // Only while the server runs: once it is gone, what a process it
        // started still writes is read for the moment below.
        if child.id().is_some()
            && let Some(tree) = tree
        {
            tree.kill();
        }
        let _ = tokio::time::timeout(DRAIN, &mut to_client).await;
    }
    ended
}

/// Reads stdin a chunk at a time, as the client wrote it, until it
/// closes or nobody listens.
fn read_stdin(tx: &mpsc::Sender<Vec<u8>>) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; CHUNK];
    loop {
        match std::io::Read::read(&mut stdin, &mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if tx.blocking_send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// The longest stderr line held back while it waits for its end; a longer
/// one is passed on in pieces.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// How long a stderr line without its end waits for the rest before it is
/// passed on as it is.
const STDERR_QUIET: Duration = Duration::from_millis(100);

/// Copies the server's stderr to ours a line at a time, with every secret
/// the recording knows (the command line's, what the client sent under a
/// secret-looking key) shown as `***`, as in the capture and the trace.
async fn copy_stderr(mut server_err: tokio::process::ChildStderr, recorder: Arc<Recorder>) {
    let mut ours = tokio::io::stderr();
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let read = if pending.is_empty() {
            Ok(server_err.read(&mut buf).await)
        } else {
            tokio::time::timeout(STDERR_QUIET, server_err.read(&mut buf)).await
        };
        let n = match read {
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(n)) => n,
            // Quiet for a while: pass on what there is.
            Err(_) => {
                let text = recorder.redact(&String::from_utf8_lossy(&pending));
                pending.clear();
                let _ = ours.write_all(text.as_bytes()).await;
                continue;
            }
        };
        pending.extend_from_slice(&buf[..n]);
        let cut = match pending.iter().rposition(|&b| b == b'\n') {
            Some(at) => at + 1,
            None if pending.len() > MAX_STDERR_LINE => pending.len(),
            None => continue,
        };
        let text = recorder.redact(&String::from_utf8_lossy(&pending[..cut]));
        pending.drain(..cut);
        if ours.write_all(text.as_bytes()).await.is_err() {
            break;
        }
    }
    if !pending.is_empty() {
        let text = recorder.redact(&String::from_utf8_lossy(&pending));
        let _ = ours.write_all(text.as_bytes()).await;
    }
    let _ = ours.flush().await;
}

/// What the writer of the faulty copy is given.
enum Out {
    /// A message to pass on (and record).
    Line(String),
    /// Cut the connection: nothing more is passed on.
    Cut,
}

/// The server's output with `--fault`: line by line, each server message
/// given its plan (passed on, held, changed, late, twice, not at all, or
/// the connection cut), and what the client gets recorded as it is written.
/// Returns how the session ended when a fault cut it.
async fn copy_to_client_faulty(
    mut server_out: ChildStdout,
    recorder: Arc<Recorder>,
    faults: Arc<Faults>,
) -> Option<String> {
    let (tx, mut rx) = mpsc::channel::<Out>(256);
    let writer_recorder = recorder.clone();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(out) = rx.recv().await {
            match out {
                Out::Line(text) => {
                    writer_recorder.record(Dir::In, &text, None);
                    let mut bytes = text.into_bytes();
                    bytes.push(b'\n');
                    if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
                        return;
                    }
                }
                Out::Cut => return,
            }
        }
    });
    let mut lines = Lines::default();
    let mut buf = vec![0u8; CHUNK];
    let mut cut = None;
    'read: loop {
        let n = match server_out.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for text in lines.feed(&buf[..n]) {
            let text = text.trim_end_matches('\r').to_string();
            match faults.answer(&text, None) {
                Plan::Pass => {
                    let _ = tx.send(Out::Line(text)).await;
                }
                Plan::Hold => {}
                Plan::Deliver { lines, delay_ms: 0 } => {
                    for l in lines {
                        let _ = tx.send(Out::Line(l)).await;
                    }
                }
                Plan::Deliver { lines, delay_ms } => {
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                        for l in lines {
                            let _ = tx.send(Out::Line(l)).await;
                        }
                    });
                }
                Plan::Disconnect => {
                    let _ = tx.send(Out::Cut).await;
                    cut = Some(
                        "a --fault disconnect cut the connection instead of passing an answer on"
                            .to_string(),
                    );
                    break 'read;
                }
            }
        }
    }
    if cut.is_none()
        && let Some(text) = lines.finish()
    {
        let _ = tx.send(Out::Line(text)).await;
    }
    drop(tx);
    // Answers still held back by a latency fault go out before the end,
    // each within its own delay.
    let _ = writer.await;
    cut
}

/// Copies the server's output to stdout a chunk at a time, as the server
/// wrote it (so the client sees its writes as they were made, not merged
/// or split), recording each line.
async fn copy_to_client(mut server_out: ChildStdout, recorder: Arc<Recorder>) {
    let mut stdout = tokio::io::stdout();
    let mut lines = Lines::default();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match server_out.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for text in lines.feed(&buf[..n]) {
            recorder.record(Dir::In, &text, None);
        }
        if stdout.write_all(&buf[..n]).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
    }
    if let Some(text) = lines.finish() {
        recorder.record(Dir::In, &text, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_recorded_across_chunks_and_a_last_line_without_newline_too() {
        let mut l = Lines::default();
        assert_eq!(l.feed(b"{\"a\":"), Vec::<String>::new());
        assert_eq!(
            l.feed(b"1}\r\n\nnot json\n{\"b\""),
            ["{\"a\":1}\r", "", "not json"]
        );
        assert_eq!(l.finish().as_deref(), Some("{\"b\""));
        assert_eq!(l.finish(), None);
    }
}
