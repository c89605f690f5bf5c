//! Intercept on stdio: the client starts `mcpcheck intercept … -- CMD` as
//! its server; the server runs as a child in its own process group (tagged
//! with `MCPCHECK_PROCESS_TAG`, as every server the project starts), and
//! every line is copied both ways byte for byte. Nothing of ours goes to
//! stdout: it is the client's channel. The server's stderr is ours.
//!
//! The session ends when the client closes stdin (the server's stdin is
//! closed and it gets [`GRACE`] to exit), when the server closes its output
//! or exits, or on SIGINT, SIGTERM or SIGHUP; the server's process group is
//! killed then, and the recording is closed once neither direction can
//! still be read.

use std::io::BufRead as _;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

use super::Recorder;
use crate::client::stdio::{TAG_VARIABLE, forget_group, kill_tagged, register_group};
use crate::client::tap::{Dir, MAX_MESSAGE_BYTES};

/// How long the server may take to exit after the client closed its input.
pub const GRACE: Duration = Duration::from_secs(5);

/// How long the rest of the server's output is read once its group was killed.
const DRAIN: Duration = Duration::from_secs(2);

/// The server to start.
pub struct Server {
    pub command: String,
    pub args: Vec<String>,
}

/// A line read from one side: its bytes as read (newline included) and
/// the text to record, if any (see [`to_record`]).
struct Line {
    bytes: Vec<u8>,
    record: Option<String>,
}

/// What to record of a piece read with a limit of one message: the line;
/// for the first piece of a line too long, a note saying so; nothing for
/// its later pieces. `long` says whether a long line is being read.
fn to_record(buf: &[u8], long: &mut bool) -> Option<String> {
    let complete = buf.ends_with(b"\n");
    let text = if *long {
        None
    } else if complete || buf.len() <= MAX_MESSAGE_BYTES {
        Some(String::from_utf8_lossy(buf).into_owned())
    } else {
        Some(format!(
            "a line longer than {} MiB",
            MAX_MESSAGE_BYTES >> 20
        ))
    };
    *long = !complete;
    text
}

/// Proxies one session and returns how it ended, in words for the report.
pub async fn run(server: &Server, recorder: Arc<Recorder>) -> crate::error::Result<String> {
    let tag = format!("{}-intercept", std::process::id());
    let mut child = Command::new(&server.command)
        .args(&server.args)
        .env(TAG_VARIABLE, &tag)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "cannot start the server: `{}` was not found (is it installed and on PATH?)",
                    server.command
                )
            } else {
                format!("cannot start the server `{}`: {e}", server.command)
            }
        })?;
    let pgid = child.id().map(|p| p as i32);
    if let Some(g) = pgid {
        register_group(g);
    }
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("cannot open the server's stdin and stdout".into());
    };
    let (ended, stopped) = proxy(&mut child, stdin, stdout, recorder).await;
    if !stopped {
        // It closed its output or the client did: a moment to exit on its own.
        let _ = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
    }
    if let Some(g) = pgid {
        let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
        forget_group(g);
    }
    let _ = child.start_kill();
    let status = tokio::time::timeout(DRAIN, child.wait()).await;
    let _ = tokio::task::spawn_blocking(move || kill_tagged(&tag, false)).await;
    Ok(match status {
        Ok(Ok(status)) if !stopped => format!("{ended}; the server {}", describe(status)),
        _ => ended,
    })
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => "exited".to_string(),
    }
}

/// Copies both ways until the session ends; returns how it ended, and
/// whether the server was stopped (rather than exiting on its own).
async fn proxy(
    child: &mut Child,
    mut server_in: ChildStdin,
    server_out: ChildStdout,
    recorder: Arc<Recorder>,
) -> (String, bool) {
    let (client_tx, mut client_rx) = mpsc::channel::<Line>(64);
    // Stdin is read on a thread of its own: a blocking read that outlives
    // the session must not hold up the runtime's shutdown.
    std::thread::spawn(move || read_stdin(&client_tx));
    let to_client = tokio::spawn(copy_to_client(server_out, recorder.clone()));
    tokio::pin!(to_client);
    let mut stops = Stops::new();
    // Client to server, here; server to client, in `to_client`.
    let ended = loop {
        tokio::select! {
            line = client_rx.recv() => match line {
                Some(line) => {
                    if let Some(text) = &line.record {
                        recorder.record(Dir::Out, text, None);
                    }
                    if server_in.write_all(&line.bytes).await.is_err() || server_in.flush().await.is_err() {
                        break ("the server stopped reading its input".to_string(), false);
                    }
                }
                None => {
                    // The client closed stdin: so does the server's, and it
                    // gets a moment to finish and exit.
                    drop(server_in);
                    let wait = async {
                        let _ = (&mut to_client).await;
                        let _ = child.wait().await;
                    };
                    return match tokio::time::timeout(GRACE, wait).await {
                        Ok(()) => ("the client closed the connection".to_string(), false),
                        Err(_) => (format!(
                            "the client closed the connection; the server did not exit within {} s and was stopped",
                            GRACE.as_secs()
                        ), true),
                    };
                }
            },
            _ = &mut to_client => break ("the server closed its output".to_string(), false),
            why = stops.next() => break (why.to_string(), true),
        }
    };
    // Whatever the server wrote before it was stopped is still passed on.
    if !to_client.is_finished() {
        if let Some(g) = child.id() {
            let _ = killpg(Pid::from_raw(g as i32), Signal::SIGKILL);
        }
        let _ = tokio::time::timeout(DRAIN, &mut to_client).await;
    }
    ended
}

/// The signals that end a session.
struct Stops {
    streams: Vec<(tokio::signal::unix::Signal, &'static str)>,
}

impl Stops {
    fn new() -> Self {
        let kinds = [
            (SignalKind::interrupt(), "interrupted (SIGINT)"),
            (SignalKind::terminate(), "terminated (SIGTERM)"),
            (SignalKind::hangup(), "hung up (SIGHUP)"),
        ];
        let streams = kinds
            .into_iter()
            .filter_map(|(k, what)| signal(k).ok().map(|s| (s, what)))
            .collect();
        Stops { streams }
    }

    async fn next(&mut self) -> &'static str {
        if self.streams.is_empty() {
            return std::future::pending().await;
        }
        let waits = self.streams.iter_mut().map(|(s, what)| {
            Box::pin(async move {
                s.recv().await;
                *what
            })
        });
        futures::future::select_all(waits).await.0
    }
}

/// Reads stdin line by line, bytes as they are (a last line without a
/// newline too), until it closes or nobody listens.
fn read_stdin(tx: &mpsc::Sender<Line>) {
    let stdin = std::io::stdin();
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, stdin.lock());
    let mut long = false;
    loop {
        let mut buf = Vec::new();
        match std::io::Read::take(&mut reader, MAX_MESSAGE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let record = to_record(&buf, &mut long);
        if tx.blocking_send(Line { bytes: buf, record }).is_err() {
            return;
        }
    }
}

/// Copies the server's output to stdout, line by line, recording each.
async fn copy_to_client(server_out: ChildStdout, recorder: Arc<Recorder>) {
    let mut reader = BufReader::with_capacity(64 * 1024, server_out);
    let mut stdout = tokio::io::stdout();
    let mut long = false;
    loop {
        let mut buf = Vec::new();
        match (&mut reader)
            .take(MAX_MESSAGE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Some(text) = to_record(&buf, &mut long) {
            recorder.record(Dir::In, &text, None);
        }
        if stdout.write_all(&buf).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
    }
}
