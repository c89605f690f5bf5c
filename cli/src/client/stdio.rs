//! The stdio transport: a child process in its own process group, one
//! JSON-RPC message per line on stdin/stdout, stderr kept for error reports.
//!
//! Every child is started with `process_group(0)` and killed with its whole
//! group (`killpg`), so servers launched through `npx`, `uv` or a shell
//! script leave no grandchildren behind. The groups alive are registered so
//! an interrupted run can kill them all.
//!
//! A process that leaves the group (`setsid`, a daemon's double fork) is
//! found by its environment instead: every server is started with
//! [`TAG_VARIABLE`] set to a tag of its own, which its descendants inherit,
//! and ending the server kills every process that still carries the tag
//! (Linux, through `/proc`; a process that clears its environment escapes).

use std::collections::{HashSet, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use super::wire::Inbound;

use super::tap::MAX_MESSAGE_BYTES;
/// How much of a server's stderr is kept for error messages.
const STDERR_TAIL: usize = 8 * 1024;

fn live_groups() -> &'static Mutex<HashSet<i32>> {
    static GROUPS: OnceLock<Mutex<HashSet<i32>>> = OnceLock::new();
    GROUPS.get_or_init(Mutex::default)
}

/// The environment variable that tags a server and its descendants.
pub const TAG_VARIABLE: &str = "MCPCHECK_PROCESS_TAG";

/// A tag no other server of any run shares: this process's id and a counter.
fn new_tag() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{n}", std::process::id())
}

/// Kill every process whose environment holds `TAG_VARIABLE=<tag>` exactly,
/// or, with `prefix`, any tag starting with `tag`. Repeats while it finds
/// some (a process may fork while it is being killed), a few times at most.
pub fn kill_tagged(tag: &str, prefix: bool) {
    #[cfg(target_os = "linux")]
    for _ in 0..5 {
        let needle = format!("{TAG_VARIABLE}={tag}");
        let me = std::process::id();
        let mut found = false;
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == me {
                continue;
            }
            // Unreadable (another user's process, or gone): not ours.
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            let tagged = environ.split(|b| *b == 0).any(|var| {
                var.strip_prefix(needle.as_bytes())
                    .is_some_and(|rest| prefix || rest.is_empty())
            });
            if tagged && let Ok(pid) = i32::try_from(pid) {
                found = true;
                let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
        if !found {
            return;
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (tag, prefix);
}

fn reaping() -> &'static Mutex<Vec<tokio::task::JoinHandle<()>>> {
    static REAPING: OnceLock<Mutex<Vec<tokio::task::JoinHandle<()>>>> = OnceLock::new();
    REAPING.get_or_init(Mutex::default)
}

/// Shut a server down in the background: close its stdin, give it `grace`
/// to exit, then kill its process group.
pub fn reap(child: ChildProc, grace: Duration) {
    let handle = tokio::spawn(child.shutdown(grace));
    if let Ok(mut r) = reaping().lock() {
        r.retain(|h| !h.is_finished());
        r.push(handle);
    }
}

/// Wait until every background shutdown is done (each is bounded).
pub async fn reap_all() {
    let handles: Vec<_> = reaping()
        .lock()
        .map(|mut r| r.drain(..).collect())
        .unwrap_or_default();
    for h in handles {
        let _ = h.await;
    }
}

/// Note a process group started outside this module (a hook), so an
/// interrupted run kills it too.
pub fn register_group(g: i32) {
    if let Ok(mut groups) = live_groups().lock() {
        groups.insert(g);
    }
}

/// Forget a group registered with [`register_group`] (it was killed).
pub fn forget_group(g: i32) {
    if let Ok(mut groups) = live_groups().lock() {
        groups.remove(&g);
    }
}

/// Kill every process group this run started (on Ctrl-C).
pub fn kill_all_groups() {
    let groups: Vec<i32> = live_groups()
        .lock()
        .map(|g| g.iter().copied().collect())
        .unwrap_or_default();
    for g in groups {
        let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
    }
    kill_tagged(&format!("{}-", std::process::id()), true);
}

/// The last bytes a process wrote to stderr.
#[derive(Clone, Default)]
pub struct StderrTail(Arc<Mutex<VecDeque<u8>>>, Arc<std::sync::atomic::AtomicBool>);

impl StderrTail {
    /// Whether the process closed its stderr (all of it has been read).
    pub fn finished(&self) -> bool {
        self.1.load(std::sync::atomic::Ordering::Acquire)
    }

    fn push(&self, bytes: &[u8]) {
        if let Ok(mut buf) = self.0.lock() {
            buf.extend(bytes);
            while buf.len() > STDERR_TAIL {
                buf.pop_front();
            }
        }
    }

    /// The tail as text, trimmed; empty when the process wrote nothing.
    pub fn text(&self) -> String {
        let bytes: Vec<u8> = self
            .0
            .lock()
            .map(|b| b.iter().copied().collect())
            .unwrap_or_default();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }
}

/// What to start.
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// A running server process.
pub struct ChildProc {
    child: Child,
    pgid: Option<i32>,
    /// The value of [`TAG_VARIABLE`] the server and its descendants carry.
    tag: String,
    pub stderr: StderrTail,
}

impl ChildProc {
    /// The process's id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Whether the process has exited, and how.
    pub fn exit_status(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(describe_status(status)),
            _ => None,
        }
    }

    /// Close stdin, give the server a moment to exit on its own, then kill
    /// its whole process group.
    pub async fn shutdown(mut self, grace: Duration) {
        let _ = tokio::time::timeout(grace, self.child.wait()).await;
        self.kill_group().await;
    }

    async fn kill_group(&mut self) {
        if let Some(g) = self.pgid.take() {
            let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
            if let Ok(mut groups) = live_groups().lock() {
                groups.remove(&g);
            }
        }
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        let tag = std::mem::take(&mut self.tag);
        let _ = tokio::task::spawn_blocking(move || kill_tagged(&tag, false)).await;
    }
}

impl Drop for ChildProc {
    fn drop(&mut self) {
        if let Some(g) = self.pgid.take() {
            let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
            if let Ok(mut groups) = live_groups().lock() {
                groups.remove(&g);
            }
        }
        if !self.tag.is_empty() {
            kill_tagged(&self.tag, false);
        }
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => "exited".to_string(),
    }
}

/// Why the server's process could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("cannot start the server: `{0}` was not found (is it installed and on PATH?)")]
    NotFound(String),
    #[error("cannot start the server `{command}`: {source}")]
    Failed {
        command: String,
        #[source]
        source: std::io::Error,
    },
}

/// Start the server and wire its stdout to `inbound` and `out` to its stdin.
pub fn spawn(
    spec: &StdioSpec,
    inbound: Inbound,
    mut out: mpsc::UnboundedReceiver<String>,
) -> Result<ChildProc, SpawnError> {
    let tag = new_tag();
    let mut cmd = Command::new(&spec.command);
    cmd.args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env(TAG_VARIABLE, &tag)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            SpawnError::NotFound(spec.command.clone())
        } else {
            SpawnError::Failed {
                command: spec.command.clone(),
                source,
            }
        }
    })?;
    let pgid = child.id().map(|p| p as i32);
    if let (Some(g), Ok(mut groups)) = (pgid, live_groups().lock()) {
        groups.insert(g);
    }
    let stderr_tail = StderrTail::default();

    if let Some(mut stdin) = child.stdin.take() {
        tokio::spawn(async move {
            while let Some(text) = out.recv().await {
                let mut line = text.into_bytes();
                line.push(b'\n');
                if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin closes it: the server sees end of input.
        });
    }
    if let Some(stdout) = child.stdout.take() {
        tokio::spawn(async move {
            let mut reader = BufReader::with_capacity(64 * 1024, stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match (&mut reader)
                    .take(MAX_MESSAGE_BYTES as u64 + 1)
                    .read_until(b'\n', &mut buf)
                    .await
                {
                    Ok(0) | Err(_) => break,
                    Ok(n) if n > MAX_MESSAGE_BYTES && buf.last() != Some(&b'\n') => {
                        inbound.exceed(format!(
                            "the server wrote a line longer than {} MiB (one message at most); the session was ended",
                            MAX_MESSAGE_BYTES >> 20
                        ));
                        break;
                    }
                    Ok(_) => {
                        inbound.deliver_bytes(&buf, None, None);
                        if inbound.is_exceeded() {
                            break;
                        }
                    }
                }
            }
            // End of output: dropping `inbound` closes rmcp's side.
        });
    }
    if let Some(mut stderr) = child.stderr.take() {
        let tail = stderr_tail.clone();
        tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                tail.push(&chunk[..n]);
            }
            tail.1.store(true, std::sync::atomic::Ordering::Release);
        });
    }
    Ok(ChildProc {
        child,
        pgid,
        tag,
        stderr: stderr_tail,
    })
}
