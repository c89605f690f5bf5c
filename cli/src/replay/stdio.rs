//! Replay on stdin/stdout: one session, one JSON-RPC message per line.
//!
//! A reader task turns stdin into lines; the session takes them one at a
//! time, in order. While it waits for the client's answer to a server
//! request, other lines are kept and handled after it.

use std::collections::VecDeque;
use std::process::ExitCode;

use mcpcheck_core::replay::{Library, Out, Replayer};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::mpsc;

use super::{ASK_TIMEOUT, answers, method_of};

/// The pause before a response that follows other messages.
const RESPONSE_GAP: std::time::Duration = std::time::Duration::from_millis(5);

/// The longest line read; a longer one is answered with a parse error.
const MAX_LINE: u64 = 16 * 1024 * 1024;

/// Serves one session until the client closes stdin; exit status 0.
pub async fn serve(library: &'static Library) -> ExitCode {
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(read_lines(tx));
    let mut stdout = tokio::io::stdout();
    let mut replayer = Replayer::new(library);
    let mut backlog: VecDeque<String> = VecDeque::new();
    loop {
        let line = match backlog.pop_front() {
            Some(line) => line,
            None => match rx.recv().await {
                Some(line) => line,
                None => break,
            },
        };
        if line.trim().is_empty() {
            continue;
        }
        let reply = replayer.receive_text(&line);
        if let Some(why) = &reply.unmatched {
            eprintln!("mcpcheck replay: {why}");
        }
        for (i, out) in reply.outs.into_iter().enumerate() {
            let ok = match out {
                Out::Send(message) => {
                    if i > 0 && message.get("method").is_none() {
                        // A response after notifications: a moment between
                        // them, as a real server's, so a client that handles
                        // notifications asynchronously (the TypeScript SDK)
                        // sees them before the request is settled.
                        tokio::time::sleep(RESPONSE_GAP).await;
                    }
                    write_line(&mut stdout, &message.to_string()).await
                }
                Out::Raw(text) => write_line(&mut stdout, &text).await,
                Out::Ask { id, request } => {
                    let ok = write_line(&mut stdout, &request.to_string()).await;
                    if ok {
                        wait_for_answer(&mut rx, &mut backlog, &id, method_of(&request)).await;
                    }
                    ok
                }
            };
            if !ok {
                // The client is gone.
                return ExitCode::SUCCESS;
            }
        }
    }
    ExitCode::SUCCESS
}

/// Reads lines from the channel until the answer to `id` arrives (or the
/// client goes quiet or away); other lines go to `backlog`.
async fn wait_for_answer(
    rx: &mut mpsc::UnboundedReceiver<String>,
    backlog: &mut VecDeque<String>,
    id: &Value,
    method: &str,
) {
    let deadline = tokio::time::Instant::now() + ASK_TIMEOUT;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(line)) => {
                let answered = serde_json::from_str::<Value>(&line).is_ok_and(|v| answers(&v, id));
                if answered {
                    return;
                }
                backlog.push_back(line);
            }
            Ok(None) => return,
            Err(_) => {
                eprintln!(
                    "mcpcheck replay: the client did not answer {method} (id {id}) within {} s; going on without its answer",
                    ASK_TIMEOUT.as_secs()
                );
                return;
            }
        }
    }
}

async fn write_line(stdout: &mut tokio::io::Stdout, text: &str) -> bool {
    let mut bytes = Vec::with_capacity(text.len() + 1);
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(b'\n');
    stdout.write_all(&bytes).await.is_ok() && stdout.flush().await.is_ok()
}

/// Sends each line of stdin (without its newline) until stdin closes. A
/// line longer than [`MAX_LINE`] is replaced by one that is not JSON, so it
/// gets a parse error instead of filling memory.
async fn read_lines(tx: mpsc::UnboundedSender<String>) {
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    loop {
        let mut buf = Vec::new();
        let n = match (&mut stdin)
            .take(MAX_LINE)
            .read_until(b'\n', &mut buf)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let line = if buf.ends_with(b"\n") || (n as u64) < MAX_LINE {
            String::from_utf8_lossy(&buf)
                .trim_end_matches(['\n', '\r'])
                .to_string()
        } else {
            // Skip the rest of the long line, a piece at a time.
            loop {
                let mut rest = Vec::new();
                match (&mut stdin)
                    .take(64 * 1024)
                    .read_until(b'\n', &mut rest)
                    .await
                {
                    Ok(0) | Err(_) => return,
                    Ok(_) if rest.ends_with(b"\n") => break,
                    Ok(_) => {}
                }
            }
            format!("a line longer than {MAX_LINE} bytes")
        };
        if tx.send(line).is_err() {
            return;
        }
    }
}
