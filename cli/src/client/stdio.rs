//! The stdio transport: a child process leading a process tree of its own,
//! one JSON-RPC message per line on stdin/stdout, stderr kept for error
//! reports.
//!
//! Every child is started through [`crate::proctree`] (a process group on
//! Unix, a Job Object on Windows) and killed with its whole tree, so servers
//! launched through `npx`, `uv` or a shell script leave no grandchildren
//! behind. The trees alive are registered so an interrupted run can kill
//! them all.
//!
//! A process that leaves the group (`setsid`, a daemon's double fork) is
//! found by its environment instead: every server is started with
//! [`TAG_VARIABLE`] set to a tag of its own, which its descendants inherit,
//! and ending the server kills every process that still carries the tag
//! (Linux, through `/proc`; a process that clears its environment escapes).

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use super::wire::Inbound;

use super::tap::MAX_MESSAGE_BYTES;
/// How much of a server's stderr is kept for error messages.
const STDERR_TAIL: usize = 8 * 1024;

/// The environment variable that tags a server and its descendants.
pub const TAG_VARIABLE: &str = "MCPCHECK_PROCESS_TAG";

/// A tag no other server of any run shares: this process's id and a counter.
fn new_tag() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    mcpcheck_core::snapshot::process_tag(std::process::id(), &n.to_string())
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
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
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
/// to exit, then kill its process tree.
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

/// Kill every process tree this run started (on Ctrl-C), and every
/// process that still carries one of its tags.
pub fn kill_all_groups() {
    crate::proctree::kill_all();
    kill_tagged(
        &mcpcheck_core::snapshot::process_tag(std::process::id(), ""),
        true,
    );
}

/// The last bytes a process wrote to stderr.
#[derive(Clone, Default)]
pub struct StderrTail(Arc<TailState>);

#[derive(Default)]
struct TailState {
    /// The last [`STDERR_TAIL`] bytes.
    buf: Mutex<VecDeque<u8>>,
    /// How many bytes were written in all, kept or not.
    written: std::sync::atomic::AtomicU64,
    /// Whether the process closed its stderr (all of it has been read).
    closed: std::sync::atomic::AtomicBool,
}

impl StderrTail {
    /// Whether the process closed its stderr (all of it has been read).
    pub fn finished(&self) -> bool {
        self.0.closed.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Waits until the process has closed its stderr and all of it has been
    /// read, or until `limit` has passed; whether it was drained.
    pub async fn drained(&self, limit: Duration) -> bool {
        let until = tokio::time::Instant::now() + limit;
        while !self.finished() {
            if tokio::time::Instant::now() >= until {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        true
    }

    /// Waits until nothing new has come on stderr for `quiet`, or until
    /// `limit` has passed: for a process that stays up, what it wrote just
    /// before its last answer has then been read.
    pub async fn settled(&self, quiet: Duration, limit: Duration) {
        let until = tokio::time::Instant::now() + limit;
        let mut seen = self.mark();
        let mut still_since = tokio::time::Instant::now();
        while !self.finished() {
            let now = tokio::time::Instant::now();
            if now >= until || now - still_since >= quiet {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
            let written = self.mark();
            if written != seen {
                seen = written;
                still_since = tokio::time::Instant::now();
            }
        }
    }

    fn push(&self, bytes: &[u8]) {
        if let Ok(mut buf) = self.0.buf.lock() {
            buf.extend(bytes);
            while buf.len() > STDERR_TAIL {
                buf.pop_front();
            }
            self.0
                .written
                .fetch_add(bytes.len() as u64, std::sync::atomic::Ordering::AcqRel);
        }
    }

    fn close(&self) {
        self.0
            .closed
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// A mark of how much has been written so far, for [`Self::text_since`].
    pub fn mark(&self) -> u64 {
        // Read under the lock, so a mark never falls inside a push.
        let _buf = self.0.buf.lock();
        self.0.written.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The tail as text, trimmed; empty when the process wrote nothing.
    pub fn text(&self) -> String {
        self.text_since(0)
    }

    /// What was written after `mark` (as much of it as the tail keeps), as
    /// text, trimmed.
    pub fn text_since(&self, mark: u64) -> String {
        let bytes: Vec<u8> = self
            .0
            .buf
            .lock()
            .map(|b| {
                let written = self.0.written.load(std::sync::atomic::Ordering::Acquire);
                let new = usize::try_from(written.saturating_sub(mark)).unwrap_or(usize::MAX);
                b.iter()
                    .skip(b.len().saturating_sub(new))
                    .copied()
                    .collect()
            })
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
    tree: Option<crate::proctree::Tree>,
    /// The value of [`TAG_VARIABLE`] the server and its descendants carry.
    tag: String,
    pub stderr: StderrTail,
    /// The server's key in the run's cost cache, when its shutdowns are
    /// learned from (see `run::schedule::exit_wait_futile`).
    exit_key: Option<String>,
}

impl ChildProc {
    /// The process's id, while it runs.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Whether the process has exited, and how.
    pub fn exit_status(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(crate::proctree::describe_exit(status)),
            _ => None,
        }
    }

    /// Learn from this server's shutdowns under `key` (see
    /// `run::schedule::exit_wait_futile`).
    pub fn learn_exit(&mut self, key: String) {
        self.exit_key = Some(key);
    }

    /// Stop learning from this shutdown: its whole grace is waited for
    /// (what the server says as it exits is being recorded).
    pub fn keep_grace(&mut self) {
        self.exit_key = None;
    }

    /// Close stdin, give the server a moment to exit on its own, then kill
    /// its whole process tree. A server known never to exit within the
    /// grace is killed at once.
    pub async fn shutdown(mut self, grace: Duration) {
        let key = self.exit_key.take();
        let futile = key
            .as_deref()
            .is_some_and(crate::run::schedule::exit_wait_futile);
        let exited = !futile
            && tokio::time::timeout(grace, self.child.wait())
                .await
                .is_ok_and(|w| w.is_ok());
        self.kill_group().await;
        if let Some(k) = key {
            crate::run::schedule::note_exit(&k, exited);
        }
    }

    async fn kill_group(&mut self) {
        if let Some(tree) = self.tree.take() {
            tree.kill();
        }
        let _ = self.child.start_kill();
        // The search for tagged processes that left the group runs while
        // the kernel takes the group down (a few milliseconds for an
        // interpreter), not after it.
        let tag = std::mem::take(&mut self.tag);
        let search = tokio::task::spawn_blocking(move || kill_tagged(&tag, false));
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        let _ = search.await;
    }
}

impl Drop for ChildProc {
    fn drop(&mut self) {
        if let Some(tree) = self.tree.take() {
            tree.kill();
        }
        if !self.tag.is_empty() {
            kill_tagged(&self.tag, false);
        }
    }
}

/// Why the server's process could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("{}", not_found(.0))]
    NotFound(String),
    #[error("cannot start the server `{command}`: {source}")]
    Failed {
        command: String,
        #[source]
        source: std::io::Error,
    },
}

/// Why `command` could not be started when no such program exists; a URL
/// given where a command belongs is named as such, with where it goes.
pub fn not_found(command: &str) -> String {
    let lower = command.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        format!(
            "cannot start the server: `{command}` is a URL, not a command; give it with --url (in a suite, as `url:` in the server block)"
        )
    } else {
        format!("cannot start the server: `{command}` was not found (is it installed and on PATH?)")
    }
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
        .kill_on_drop(true);
    let (mut child, tree) = crate::proctree::spawn(&mut cmd).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            SpawnError::NotFound(spec.command.clone())
        } else {
            SpawnError::Failed {
                command: spec.command.clone(),
                source,
            }
        }
    })?;
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
            tail.close();
        });
    }
    Ok(ChildProc {
        child,
        tree,
        tag,
        stderr: stderr_tail,
        exit_key: None,
    })
}
