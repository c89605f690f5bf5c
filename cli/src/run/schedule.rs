//! What a server costs to start, and what the runner does with it.
//!
//! Every start of a stdio server is measured: the time from starting the
//! process to the server's answer to `initialize` (or `server/discover`),
//! and the CPU time its processes spent until then. So is the time each
//! test took once its session was open. Both are kept per server command
//! (the command and arguments as the suite writes them, kept as a hash) in
//! a small cache file that later runs read ([`cache_file`]), so a run knows
//! its servers' costs before it starts any of them.
//!
//! The runner uses them three ways:
//!
//! - **Start slots.** A start that is CPU-bound (an interpreter loading its
//!   modules: Python, Node) takes one of as many slots as there are cores,
//!   for as long as it starts: more such starts at once would only share
//!   the cores and all finish later. A start known to be cheap takes none.
//! - **Lanes.** How many sessions are open at once (without `--jobs`): as
//!   many as the cores, more when the tests are long against the start, so
//!   the next fresh server starts on an idle core while the current test
//!   waits for its server ([`auto_lanes`]).
//! - **Sessions of a reuse group.** A group of tests that share a server
//!   starts with one session and opens another only when the tests left are
//!   worth more than the start it costs ([`worth_another`]): two
//!   interpreters started side by side to share a handful of quick tests
//!   make the run slower, not faster.
//!
//! How a server ends is kept too: when a session closes, the server gets a
//! grace period to exit on its own once its input is closed, then its
//! process tree is killed. A server that let the grace run out at each of
//! its last [`FUTILE_AFTER`] shutdowns is killed at once ([`exit_wait_futile`]):
//! the wait never let it finish, so it only delayed the end of the run (an
//! interpreter's own shutdown takes longer than the grace). Every
//! [`RELEARN_EVERY`]th such shutdown waits again, so a server that learned
//! to exit in time is noticed.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Semaphore, SemaphorePermit};

/// How many server commands the cache keeps: the most recently used.
const MAX_SERVERS: usize = 256;

/// How much a new measurement counts against the average so far: the
/// average of the last few runs, not of all time.
const KEEP: f64 = 8.0;

/// What starting a server and running a test on it cost, on average.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cost {
    /// Wall time from starting the process to the answer of `initialize`.
    pub start_ms: f64,
    /// CPU time the server's processes spent until then (Linux).
    pub cpu_ms: Option<f64>,
    /// Wall time of one test on an open session.
    pub test_ms: Option<f64>,
    pub starts: u32,
    pub tests: u32,
    /// How many of its last shutdowns in a row ended with a kill: it did
    /// not exit within the grace after its input closed (0 once it does).
    pub killed: u32,
    /// The run that last used it (for forgetting the oldest).
    run: u64,
}

/// A start that spends at least this much CPU is an interpreter loading
/// its code: two of them on one core take twice as long.
const CPU_BOUND_MS: f64 = 50.0;

impl Cost {
    /// Whether starting this server keeps a core busy: it spends a good
    /// part of its start time, or more than [`CPU_BOUND_MS`], on the CPU.
    pub fn cpu_bound(&self) -> bool {
        match self.cpu_ms {
            Some(cpu) => cpu >= CPU_BOUND_MS || cpu >= 0.5 * self.start_ms,
            None => self.start_ms >= CPU_BOUND_MS,
        }
    }

    /// What one more start costs the run: its CPU (which the other
    /// sessions lose) or, when unknown, its wall time.
    fn start_cost_ms(&self) -> f64 {
        self.cpu_ms.unwrap_or(self.start_ms).max(1.0)
    }
}

fn average(old: f64, n: u32, new: f64) -> f64 {
    if n == 0 {
        return new;
    }
    let weight = 1.0 / (f64::from(n) + 1.0).min(KEEP);
    old + (new - old) * weight
}

/// The costs of the server commands this machine has run.
#[derive(Debug, Default)]
pub struct Costs {
    servers: BTreeMap<String, Cost>,
    run: u64,
    changed: bool,
}

impl Costs {
    /// Read from the cache's JSON; anything unreadable is left out (a cache
    /// is only a head start: a run measures again).
    pub fn from_json(text: &str) -> Costs {
        let mut costs = Costs::default();
        let Ok(doc) = serde_json::from_str::<Value>(text) else {
            return costs;
        };
        if doc.get("version").and_then(Value::as_u64) != Some(1) {
            return costs;
        }
        costs.run = doc.get("run").and_then(Value::as_u64).unwrap_or(0) + 1;
        let Some(servers) = doc.get("servers").and_then(Value::as_object) else {
            return costs;
        };
        for (key, v) in servers {
            let num = |k: &str| {
                v.get(k)
                    .and_then(Value::as_f64)
                    .filter(|x| x.is_finite() && *x >= 0.0)
            };
            let count = |k: &str| {
                v.get(k)
                    .and_then(Value::as_u64)
                    .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
            };
            let Some(start_ms) = num("start_ms") else {
                continue;
            };
            costs.servers.insert(
                key.clone(),
                Cost {
                    start_ms,
                    cpu_ms: num("cpu_ms"),
                    test_ms: num("test_ms"),
                    starts: count("starts"),
                    tests: count("tests"),
                    killed: count("killed"),
                    run: v.get("run").and_then(Value::as_u64).unwrap_or(0),
                },
            );
        }
        costs
    }

    /// The cache's JSON: at most [`MAX_SERVERS`] commands, the most
    /// recently used.
    pub fn to_json(&self) -> String {
        let mut kept: Vec<(&String, &Cost)> = self.servers.iter().collect();
        kept.sort_by(|a, b| b.1.run.cmp(&a.1.run).then(a.0.cmp(b.0)));
        kept.truncate(MAX_SERVERS);
        let round = |x: f64| (x * 10.0).round() / 10.0;
        let servers: serde_json::Map<String, Value> = kept
            .into_iter()
            .map(|(k, c)| {
                let mut v = json!({
                    "start_ms": round(c.start_ms),
                    "starts": c.starts,
                    "tests": c.tests,
                    "run": c.run,
                });
                if let Some(cpu) = c.cpu_ms {
                    v["cpu_ms"] = json!(round(cpu));
                }
                if let Some(t) = c.test_ms {
                    v["test_ms"] = json!(round(t));
                }
                if c.killed > 0 {
                    v["killed"] = json!(c.killed);
                }
                (k.clone(), v)
            })
            .collect();
        let doc = json!({"version": 1, "run": self.run, "servers": servers});
        serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
    }

    pub fn get(&self, key: &str) -> Option<&Cost> {
        self.servers.get(key)
    }

    /// A start of `key` took `wall`, `cpu` of it on the CPU.
    pub fn started(&mut self, key: &str, wall: Duration, cpu: Option<Duration>) {
        let run = self.run;
        let c = self.servers.entry(key.to_string()).or_default();
        let wall = wall.as_secs_f64() * 1000.0;
        c.start_ms = average(c.start_ms, c.starts, wall);
        if let Some(cpu) = cpu {
            let cpu = cpu.as_secs_f64() * 1000.0;
            c.cpu_ms = Some(c.cpu_ms.map_or(cpu, |old| average(old, c.starts, cpu)));
        }
        c.starts = c.starts.saturating_add(1);
        c.run = run;
        self.changed = true;
    }

    /// A test on an open session of `key` took `wall`.
    pub fn tested(&mut self, key: &str, wall: Duration) {
        let run = self.run;
        let Some(c) = self.servers.get_mut(key) else {
            return;
        };
        let ms = wall.as_secs_f64() * 1000.0;
        c.test_ms = Some(c.test_ms.map_or(ms, |old| average(old, c.tests, ms)));
        c.tests = c.tests.saturating_add(1);
        c.run = run;
        self.changed = true;
    }
}

/// After this many shutdowns in a row that ended with a kill, the grace is
/// not waited for.
pub const FUTILE_AFTER: u32 = 3;

/// Every this many shutdowns in a row that ended with a kill, the grace is
/// waited for again.
pub const RELEARN_EVERY: u32 = 8;

impl Cost {
    /// Whether waiting for this server to exit on its own is known to be
    /// futile: it was killed at each of its last [`FUTILE_AFTER`] shutdowns
    /// (and this is not one of the shutdowns that wait again to relearn).
    pub fn exit_wait_futile(&self) -> bool {
        self.killed >= FUTILE_AFTER && !self.killed.is_multiple_of(RELEARN_EVERY)
    }
}

impl Costs {
    /// A shutdown of `key` ended: the server `exited` on its own within the
    /// grace, or was killed.
    pub fn ended(&mut self, key: &str, exited: bool) {
        let Some(c) = self.servers.get_mut(key) else {
            return;
        };
        c.killed = if exited {
            0
        } else {
            c.killed.saturating_add(1)
        };
        self.changed = true;
    }
}

/// The cache file: `$MCPCHECK_CACHE_DIR/server-costs.json`, else under
/// `$XDG_CACHE_HOME/mcpcheck`, else `~/.cache/mcpcheck`; `None` when none
/// of them is set.
pub fn cache_file() -> Option<PathBuf> {
    let var = |n: &str| {
        std::env::var_os(n)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let dir = var("MCPCHECK_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("mcpcheck")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("mcpcheck")))?;
    Some(dir.join("server-costs.json"))
}

/// This process's costs: the cache as the run found it, with what the run
/// measured since.
fn costs() -> &'static Mutex<Costs> {
    static COSTS: OnceLock<Mutex<Costs>> = OnceLock::new();
    COSTS.get_or_init(|| {
        let text = cache_file()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .unwrap_or_default();
        Mutex::new(Costs::from_json(&text))
    })
}

/// What `key` costs, as far as known.
pub fn cost_of(key: &str) -> Option<Cost> {
    costs().lock().ok().and_then(|c| c.get(key).cloned())
}

/// Note a start of `key`.
pub fn note_start(key: &str, wall: Duration, cpu: Option<Duration>) {
    if let Ok(mut c) = costs().lock() {
        c.started(key, wall, cpu);
    }
}

/// Note a test on an open session of `key`.
pub fn note_test(key: &str, wall: Duration) {
    if let Ok(mut c) = costs().lock() {
        c.tested(key, wall);
    }
}

/// Whether the grace before killing `key`'s server can be skipped (see
/// [`Cost::exit_wait_futile`]).
pub fn exit_wait_futile(key: &str) -> bool {
    cost_of(key).is_some_and(|c| c.exit_wait_futile())
}

/// Note how a shutdown of `key` ended.
pub fn note_exit(key: &str, exited: bool) {
    if let Ok(mut c) = costs().lock() {
        c.ended(key, exited);
    }
}

/// Write what this run measured to the cache (written whole to a new file
/// that replaces the old, so runs at once never leave half a file). A cache
/// that cannot be written costs later runs their head start, nothing else.
pub fn save() {
    let Some(file) = cache_file() else {
        return;
    };
    let text = match costs().lock() {
        Ok(mut c) if c.changed => {
            c.changed = false;
            c.to_json()
        }
        _ => return,
    };
    let Some(dir) = file.parent() else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(".server-costs.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The server a cost is kept under: a stdio server's command and arguments
/// as the suite writes them (or `--server`'s), with the image when it runs
/// in a container; a URL without its query or credentials. The cache keeps
/// a hash of it and the program's name only, so no argument (a token on a
/// command line) is written to disk.
pub fn cost_key(
    server: &mcpcheck_core::suite::Server,
    server_override: Option<&[String]>,
    docker: Option<&str>,
) -> Option<String> {
    use mcpcheck_core::suite::Transport;
    let (name, identity) = if server.transport == Transport::Stdio {
        let argv: Vec<String> = match server_override {
            Some(argv) => argv.to_vec(),
            None => std::iter::once(server.command.clone()?)
                .chain(server.args.iter().cloned())
                .collect(),
        };
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        let image = server.docker.as_deref().or(docker).unwrap_or_default();
        (program.to_string(), format!("{image}\0{}", argv.join("\0")))
    } else {
        let url = reqwest::Url::parse(server.url.as_deref()?).ok()?;
        let place = format!(
            "{}://{}{}",
            url.scheme(),
            url.host_str().unwrap_or_default(),
            url.port().map(|p| format!(":{p}")).unwrap_or_default()
        );
        (place.clone(), format!("{place}{}", url.path()))
    };
    use sha2::Digest;
    let digest = sha2::Sha256::digest(identity.as_bytes());
    let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("{hash} {name}"))
}

/// Whether the server of `key` is a process this run starts (and a start
/// slot matters): a stdio server's key names a program, a URL's its origin.
fn is_process(key: &str) -> bool {
    !key.contains("://")
}

/// The number of cores.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// The start slots: as many as cores.
fn slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS.get_or_init(|| Semaphore::new(cores()))
}

/// Wait for a start slot when starting `key` keeps a core busy (or its cost
/// is not known yet); the slot is held until the server has answered.
pub async fn start_slot(key: &str) -> Option<SemaphorePermit<'static>> {
    let cpu_bound = is_process(key) && cost_of(key).is_none_or(|c| c.cpu_bound());
    if !cpu_bound {
        return None;
    }
    slots().acquire().await.ok()
}

/// The CPU time spent so far by the process `pid` and its descendants
/// (Linux: `/proc`, each process's own time and that of its children it
/// has already waited for).
pub fn tree_cpu(pid: u32) -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        // `/proc` counts in USER_HZ, which Linux fixes at 100 for user
        // space on the architectures it runs on today.
        let tick = 100.0;
        let mut ticks: u64 = 0;
        let mut stack = vec![pid];
        let mut seen = 0;
        while let Some(p) = stack.pop() {
            seen += 1;
            if seen > 4096 {
                break;
            }
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
                continue;
            };
            // After the command name (which may hold spaces and parentheses).
            let Some((_, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            // utime, stime, cutime, cstime: fields 14-17 of the line.
            for i in 11..=14 {
                ticks += fields
                    .get(i)
                    .and_then(|f| f.parse::<u64>().ok())
                    .unwrap_or(0);
            }
            if let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) {
                for t in tasks.flatten() {
                    if let Ok(children) = std::fs::read_to_string(t.path().join("children")) {
                        stack.extend(
                            children
                                .split_whitespace()
                                .filter_map(|c| c.parse::<u32>().ok()),
                        );
                    }
                }
            }
        }
        if seen == 0 {
            return None;
        }
        Some(Duration::from_secs_f64(ticks as f64 / tick))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// How many sessions run at once when `--jobs` does not say: as many as
/// cores, times how much longer a test on a fresh server lasts than its
/// start (a lane waiting on its server's answer leaves its core to the next
/// start), at most four times the cores. `costs` are those of the tests
/// that each start a server of their own.
pub fn auto_lanes(cores: usize, costs: &[Cost]) -> usize {
    let ratios: Vec<f64> = costs
        .iter()
        .filter(|c| c.start_ms > 0.0)
        .filter_map(|c| c.test_ms.map(|t| (c.start_ms + t) / c.start_ms))
        .collect();
    let factor = if ratios.is_empty() {
        1.0
    } else {
        (ratios.iter().sum::<f64>() / ratios.len() as f64).clamp(1.0, 4.0)
    };
    ((cores.max(1) as f64) * factor).round() as usize
}

/// Whether a reuse group with `remaining` tests left, served by `sessions`
/// sessions, should open one more. The new session is of use only after
/// its start (`start_ms`), while the others go on; from then the tests
/// left are shared by one more, which saves their time divided by
/// `sessions × (sessions + 1)`. That must be worth more than what the
/// start costs the others (its CPU). `None`: the cost is not known.
pub fn worth_another(remaining: usize, sessions: usize, cost: Option<&Cost>) -> bool {
    let Some(cost) = cost else {
        return false;
    };
    let Some(test_ms) = cost.test_ms.filter(|t| *t > 0.0) else {
        return false;
    };
    let k = sessions.max(1) as f64;
    let left_then = remaining as f64 - k * cost.start_ms / test_ms;
    if left_then < 1.0 {
        return false;
    }
    let saved = left_then * test_ms / (k * (k + 1.0));
    saved > cost.start_cost_ms()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(start_ms: f64, cpu_ms: Option<f64>, test_ms: Option<f64>) -> Cost {
        Cost {
            start_ms,
            cpu_ms,
            test_ms,
            starts: 1,
            tests: 1,
            killed: 0,
            run: 0,
        }
    }

    #[test]
    fn interpreters_are_cpu_bound_and_a_waiting_start_is_not() {
        // A Python server: 600 ms of CPU in 2.4 s on a busy machine.
        assert!(cost(2400.0, Some(600.0), None).cpu_bound());
        // A wrapper that waits for a container or the network.
        assert!(!cost(900.0, Some(8.0), None).cpu_bound());
        // A tiny native server: little of either.
        assert!(!cost(12.0, Some(3.0), None).cpu_bound());
        // Without a CPU measure, the time decides.
        assert!(cost(300.0, None, None).cpu_bound());
        assert!(!cost(20.0, None, None).cpu_bound());
    }

    #[test]
    fn a_handful_of_quick_tests_shares_one_session() {
        // Fifteen 5 ms tests on a 600 ms interpreter: one session.
        let python = cost(2400.0, Some(600.0), Some(5.0));
        assert!(!worth_another(15, 1, Some(&python)));
        assert!(!worth_another(500, 1, Some(&python)));
        // Two hundred 1 s tests: a second session pays for itself, and a
        // third, not a tenth.
        let slow = cost(800.0, Some(600.0), Some(1000.0));
        assert!(worth_another(200, 1, Some(&slow)));
        assert!(worth_another(200, 2, Some(&slow)));
        assert!(!worth_another(200, 20, Some(&slow)));
        // Nothing left by the time it would answer.
        assert!(!worth_another(1, 1, Some(&slow)));
        // Unknown: wait until it is measured.
        assert!(!worth_another(200, 1, None));
        assert!(!worth_another(
            200,
            1,
            Some(&cost(800.0, Some(600.0), None))
        ));
    }

    #[test]
    fn lanes_grow_with_tests_long_against_their_start() {
        assert_eq!(auto_lanes(2, &[]), 2);
        // Starts dominate: as many lanes as cores.
        assert_eq!(auto_lanes(2, &[cost(600.0, Some(500.0), Some(10.0))]), 2);
        assert_eq!(auto_lanes(4, &[cost(600.0, Some(500.0), Some(0.0))]), 4);
        // Tests as long as the start: twice the cores.
        assert_eq!(auto_lanes(2, &[cost(500.0, None, Some(500.0))]), 4);
        // Never more than four times the cores.
        assert_eq!(auto_lanes(2, &[cost(10.0, None, Some(5000.0))]), 8);
    }

    #[test]
    fn the_cache_keeps_recent_averages_and_survives_garbage() {
        let mut c = Costs::from_json("");
        c.started(
            "python -m srv",
            Duration::from_millis(1000),
            Some(Duration::from_millis(400)),
        );
        c.started(
            "python -m srv",
            Duration::from_millis(2000),
            Some(Duration::from_millis(600)),
        );
        c.tested("python -m srv", Duration::from_millis(10));
        c.tested("not started", Duration::from_millis(10));
        let again = Costs::from_json(&c.to_json());
        let got = again.get("python -m srv").expect("kept");
        assert_eq!(got.start_ms, 1500.0);
        assert_eq!(got.cpu_ms, Some(500.0));
        assert_eq!(got.test_ms, Some(10.0));
        assert_eq!((got.starts, got.tests), (2, 1));
        assert!(again.get("not started").is_none());
        assert_eq!(again.run, c.run + 1);
        for bad in [
            "{",
            "[]",
            r#"{"version": 2, "servers": {}}"#,
            r#"{"version": 1, "servers": {"x": {"start_ms": -1}}}"#,
        ] {
            assert!(Costs::from_json(bad).servers.is_empty(), "{bad}");
        }
    }

    #[test]
    fn the_grace_is_skipped_after_kills_in_a_row_and_waited_for_again_to_relearn() {
        let mut costs = Costs::default();
        costs.started("k", Duration::from_millis(500), None);
        let futile = |c: &Costs| c.get("k").is_some_and(Cost::exit_wait_futile);
        let mut pattern = Vec::new();
        for _ in 0..9 {
            pattern.push(futile(&costs));
            costs.ended("k", false);
        }
        // Waited three times, skipped, waited again at the eighth kill.
        assert_eq!(
            pattern,
            [false, false, false, true, true, true, true, true, false]
        );
        // It is remembered across runs ...
        let again = Costs::from_json(&costs.to_json());
        assert_eq!(again.get("k").map(|c| c.killed), Some(9));
        assert!(futile(&again));
        // ... until the server exits on its own.
        costs.ended("k", true);
        assert!(!futile(&costs));
        assert_eq!(costs.get("k").map(|c| c.killed), Some(0));
        assert!(!costs.to_json().contains("killed"));
        // A server never started is not learned about.
        costs.ended("other", false);
        assert!(costs.get("other").is_none());
    }

    #[test]
    fn the_cache_forgets_the_least_recent_commands() {
        let mut c = Costs::default();
        for i in 0..(MAX_SERVERS + 10) {
            c.run = i as u64;
            c.started(&format!("srv {i}"), Duration::from_millis(10), None);
        }
        let again = Costs::from_json(&c.to_json());
        assert_eq!(again.servers.len(), MAX_SERVERS);
        assert!(again.get("srv 0").is_none());
        assert!(again.get(&format!("srv {}", MAX_SERVERS + 9)).is_some());
    }

    #[test]
    fn keys_name_the_program_and_hide_the_arguments() {
        let loaded = mcpcheck_core::suite::load(
            "t.yaml",
            "name: t\nserver: {command: /usr/bin/python3, args: [-m, srv, --token, s3cret]}\nassert: {tool: a, expect: {not_error: true}}\n",
        );
        let server = loaded.suite.tests[0].server.clone().expect("server");
        let key = cost_key(&server, None, None).expect("stdio");
        assert!(key.ends_with(" python3"), "{key}");
        assert!(!key.contains("s3cret"));
        assert!(is_process(&key));
        let other = cost_key(&server, Some(&["node".into(), "x.js".into()]), None).expect("key");
        assert!(other.ends_with(" node") && other != key);
        assert_ne!(cost_key(&server, None, Some("img")), Some(key));
        let http = mcpcheck_core::suite::load(
            "h.yaml",
            "name: h\nserver: {transport: http, url: 'https://u:p@example.test:8443/mcp?token=s3cret'}\nassert: {tool: a, expect: {not_error: true}}\n",
        );
        let server = http.suite.tests[0].server.clone().expect("server");
        let key = cost_key(&server, None, None).expect("http");
        assert!(key.ends_with(" https://example.test:8443"), "{key}");
        assert!(!key.contains("s3cret") && !is_process(&key));
    }

    #[test]
    fn a_process_tree_has_a_cpu_time() {
        if cfg!(target_os = "linux") {
            assert!(tree_cpu(std::process::id()).is_some());
        }
    }
}
