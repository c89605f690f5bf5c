//! Process trees: every program the CLI starts (a server, a hook, the server
//! behind `intercept`) leads a tree of its own, so killing it leaves no
//! grandchildren behind (servers launched through `npx`, `uv` or a shell
//! script start more processes).
//!
//! - **Unix**: the child starts in a new process group (`process_group(0)`)
//!   and the tree is killed with `killpg(…, SIGKILL)`.
//! - **Windows**: the child starts suspended, is put in a Job Object with
//!   `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, then resumed, so every process
//!   it starts belongs to the job from its first instruction on; the tree is
//!   killed with `TerminateJobObject`, and closing the job's last handle
//!   (this process ending, however it ends) kills it too.
//!
//! Every tree alive is registered, so an interrupted run can kill them all
//! ([`kill_all`]).

use std::collections::HashMap;
use std::process::ExitStatus;
use std::sync::{Mutex, OnceLock};

use tokio::process::{Child, Command};

/// The tree a started child leads. Cloning shares it.
#[derive(Clone)]
pub struct Tree {
    /// The child's process id (on Unix, also its process group's).
    id: u32,
    #[cfg(windows)]
    job: std::sync::Arc<windows::Job>,
}

fn live() -> &'static Mutex<HashMap<u32, Tree>> {
    static LIVE: OnceLock<Mutex<HashMap<u32, Tree>>> = OnceLock::new();
    LIVE.get_or_init(Mutex::default)
}

/// Start `cmd` as the head of a tree of its own, registered until it is
/// killed. The tree is `None` when the child exited before it could be
/// held (it has no id any more: nothing is left to kill).
pub fn spawn(cmd: &mut Command) -> std::io::Result<(Child, Option<Tree>)> {
    imp::prepare(cmd);
    let child = cmd.spawn()?;
    let tree = imp::adopt(&child)?;
    if let (Some(t), Ok(mut live)) = (&tree, live().lock()) {
        live.insert(t.id, t.clone());
    }
    Ok((child, tree))
}

impl Tree {
    /// Kill every process of the tree and forget it.
    pub fn kill(&self) {
        imp::kill(self);
        if let Ok(mut live) = live().lock() {
            live.remove(&self.id);
        }
    }
}

/// Kill every tree this run started and has not killed yet (on Ctrl-C).
pub fn kill_all() {
    kill_every(live());
}

/// Kill every tree of `registry`.
fn kill_every(registry: &Mutex<HashMap<u32, Tree>>) {
    let trees: Vec<Tree> = registry
        .lock()
        .map(|l| l.values().cloned().collect())
        .unwrap_or_default();
    for t in trees {
        imp::kill(&t);
    }
}

/// How a process ended, in words: "exited with status 3", "was killed by
/// signal 9".
pub fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), imp::signal(status)) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => "exited".to_string(),
    }
}

#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
use windows as imp;

#[cfg(unix)]
mod unix {
    use std::process::ExitStatus;

    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;
    use tokio::process::{Child, Command};

    use super::Tree;

    pub fn prepare(cmd: &mut Command) {
        cmd.process_group(0);
    }

    pub fn adopt(child: &Child) -> std::io::Result<Option<Tree>> {
        Ok(child.id().map(|id| Tree { id }))
    }

    pub fn kill(tree: &Tree) {
        if let Ok(g) = i32::try_from(tree.id) {
            let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
        }
    }

    pub fn signal(status: ExitStatus) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt as _;
        status.signal()
    }
}

/// The one place the CLI calls the operating system directly: Job Objects
/// have no safe interface in std or tokio. Every `unsafe` block is one
/// Win32 call on handles this module owns, with its reason beside it.
#[cfg(windows)]
#[allow(unsafe_code)]
mod windows {
    use std::process::ExitStatus;
    use std::sync::Arc;

    use tokio::process::{Child, Command};
    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
    };
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject,
    };
    use windows_sys::Win32::System::Threading::{
        CREATE_SUSPENDED, OpenThread, ResumeThread, THREAD_SUSPEND_RESUME,
    };

    use super::Tree;

    /// A Job Object handle, closed on drop (which kills what is left in it).
    pub struct Job(HANDLE);

    // SAFETY: a job handle may be used and closed from any thread.
    unsafe impl Send for Job {}
    // SAFETY: the job functions used here are safe to call concurrently.
    unsafe impl Sync for Job {}

    impl Drop for Job {
        fn drop(&mut self) {
            // SAFETY: the handle is owned by this value and closed once.
            unsafe { CloseHandle(self.0) };
        }
    }

    impl Job {
        /// A new job whose processes all die when its last handle closes.
        fn new() -> std::io::Result<Job> {
            // SAFETY: no name and default security: a fresh anonymous job.
            let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
            if handle.is_null() {
                return Err(std::io::Error::last_os_error());
            }
            let job = Job(handle);
            // SAFETY: all-zero is a valid value of this plain C struct.
            let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
            limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
            // SAFETY: the pointer and size describe `limits`, alive for the call.
            let set = unsafe {
                SetInformationJobObject(
                    job.0,
                    JobObjectExtendedLimitInformation,
                    std::ptr::from_ref(&limits).cast(),
                    u32::try_from(std::mem::size_of_val(&limits)).unwrap_or(u32::MAX),
                )
            };
            if set == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(job)
        }
    }

    pub fn prepare(cmd: &mut Command) {
        cmd.creation_flags(CREATE_SUSPENDED);
    }

    pub fn adopt(child: &Child) -> std::io::Result<Option<Tree>> {
        let (Some(id), Some(process)) = (child.id(), child.raw_handle()) else {
            return Ok(None);
        };
        let held = Job::new().and_then(|job| {
            // SAFETY: both handles are valid: the job was just made, the
            // process handle is owned by `child`, alive for the call.
            if unsafe { AssignProcessToJobObject(job.0, process as HANDLE) } == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(job)
        });
        // Resumed whatever happened: a child left suspended would hang.
        let resumed = resume(id);
        match (held, resumed) {
            (Ok(job), Ok(())) => Ok(Some(Tree {
                id,
                job: Arc::new(job),
            })),
            (Err(e), _) | (_, Err(e)) => {
                // SAFETY: the handle is owned by `child`, alive for the call.
                unsafe {
                    windows_sys::Win32::System::Threading::TerminateProcess(process as HANDLE, 1)
                };
                Err(e)
            }
        }
    }

    /// Resume every thread of the process `pid` (a process started
    /// suspended has one).
    fn resume(pid: u32) -> std::io::Result<()> {
        // SAFETY: a snapshot of all threads; the handle is closed below.
        let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
        if snapshot == INVALID_HANDLE_VALUE {
            return Err(std::io::Error::last_os_error());
        }
        let mut resumed = 0;
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
        entry.dwSize = u32::try_from(std::mem::size_of::<THREADENTRY32>()).unwrap_or(u32::MAX);
        // SAFETY: `entry` is a THREADENTRY32 with its size set, as required.
        let mut more = unsafe { Thread32First(snapshot, &mut entry) } != 0;
        while more {
            if entry.th32OwnerProcessID == pid {
                // SAFETY: opens a thread by id; a null handle is checked.
                let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
                if !thread.is_null() {
                    // SAFETY: `thread` is a valid handle, closed right after.
                    unsafe {
                        if ResumeThread(thread) != u32::MAX {
                            resumed += 1;
                        }
                        CloseHandle(thread);
                    }
                }
            }
            // SAFETY: as for Thread32First.
            more = unsafe { Thread32Next(snapshot, &mut entry) } != 0;
        }
        // SAFETY: the snapshot handle is owned here and closed once.
        unsafe { CloseHandle(snapshot) };
        if resumed == 0 {
            return Err(std::io::Error::other(
                "cannot resume the started process's threads",
            ));
        }
        Ok(())
    }

    pub fn kill(tree: &Tree) {
        // SAFETY: the job handle is alive as long as `tree` holds it.
        unsafe { TerminateJobObject(tree.job.0, 1) };
    }

    pub fn signal(_: ExitStatus) -> Option<i32> {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::process::Stdio;
    use std::time::Duration;

    use tokio::io::AsyncReadExt as _;
    use tokio::process::Command;

    use super::*;

    /// A shell command run by the platform's shell.
    fn shell(script: &str) -> Command {
        #[cfg(unix)]
        let mut cmd = {
            let mut c = Command::new("sh");
            c.args(["-c", script]);
            c
        };
        #[cfg(windows)]
        let mut cmd = {
            let mut c = Command::new("cmd.exe");
            c.args(["/d", "/c", script]);
            c
        };
        cmd.stdin(Stdio::null()).kill_on_drop(true);
        cmd
    }

    /// A child whose own child sleeps on with the child's stdout: killing
    /// the child alone would leave the output open for half a minute.
    fn with_a_grandchild() -> Command {
        #[cfg(unix)]
        let script = "sleep 30 & echo started; wait";
        #[cfg(windows)]
        let script = "start /b ping -n 30 127.0.0.1 & echo started & ping -n 30 127.0.0.1";
        let mut cmd = shell(script);
        cmd.stdout(Stdio::piped());
        cmd
    }

    #[tokio::test]
    async fn killing_the_tree_ends_the_grandchildren_too() {
        let (mut child, tree) = spawn(&mut with_a_grandchild()).unwrap();
        let tree = tree.expect("a running child has a tree");
        let mut stdout = child.stdout.take().unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 64];
        while !String::from_utf8_lossy(&seen).contains("started") {
            let n = stdout.read(&mut buf).await.unwrap();
            assert_ne!(n, 0, "the child ended early");
            seen.extend_from_slice(&buf[..n]);
        }
        tree.kill();
        // Every process holding the output is gone: it closes at once.
        let rest = tokio::time::timeout(Duration::from_secs(10), async {
            let mut rest = Vec::new();
            stdout.read_to_end(&mut rest).await.map(|_| rest)
        })
        .await;
        assert!(rest.is_ok(), "a grandchild still holds the output");
        let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
        assert!(status.is_ok_and(|s| s.is_ok_and(|s| !s.success())));
    }

    #[tokio::test]
    async fn a_tree_is_registered_until_it_is_killed() {
        let (mut child, tree) = spawn(&mut with_a_grandchild()).unwrap();
        let tree = tree.expect("a running child has a tree");
        let registered = |id| live().lock().unwrap().contains_key(&id);
        assert!(registered(tree.id));
        tree.kill();
        assert!(!registered(tree.id));
        let _ = child.wait().await;
    }

    #[tokio::test]
    async fn kill_all_ends_every_tree_still_registered() {
        // A registry of this test's own: the process's one holds the trees
        // of the tests running beside it.
        let registry: Mutex<HashMap<u32, Tree>> = Mutex::default();
        let (mut a, ta) = spawn(&mut with_a_grandchild()).unwrap();
        let (mut b, tb) = spawn(&mut with_a_grandchild()).unwrap();
        for t in [ta, tb] {
            let t = t.expect("a running child has a tree");
            registry.lock().unwrap().insert(t.id, t);
        }
        kill_every(&registry);
        for child in [&mut a, &mut b] {
            let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
            assert!(status.is_ok(), "a tree outlived kill_all");
        }
    }

    #[tokio::test]
    async fn an_exit_is_described_by_its_status() {
        let status = shell("exit 3").status().await.unwrap();
        assert_eq!(describe_exit(status), "exited with status 3");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_signal_is_named_by_its_number() {
        let status = shell("kill -9 $$").status().await.unwrap();
        assert_eq!(describe_exit(status), "was killed by signal 9");
    }
}
