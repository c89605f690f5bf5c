//! Running a batch of tests at once: which tests share a server session,
//! how many sessions are open at a time, and the fresh re-run of a test that
//! did not pass on a shared session.
//!
//! Tests are cut into units ([`units_of`]):
//!
//! - a test **alone**, on a session and fixture copy of its own (`--isolate`,
//!   a file that says `share_server: false`, a test whose server no other
//!   test has);
//! - a composed `share_server` **file**: its tests in order on one session,
//!   each seeing what the one before it left;
//! - a **reuse group**: tests whose server block and environment are the
//!   same. It starts with one session and fixture copy; the copy is restored
//!   before each test ([`super::restore`]); it opens another session only
//!   when what is left is worth the start ([`schedule::worth_another`]). A
//!   test that fails or errors there is run again on a fresh server and
//!   copy, at once when a lane is free, and that verdict is the one reported.
//!
//! Units take lanes: as many as `--jobs`, or as [`schedule::auto_lanes`]
//! picks. A fresh server starts in a start slot when its start keeps a core
//! busy ([`schedule::start_slot`]), so interpreters never start more at once
//! than there are cores, whatever the lanes.

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcpcheck_core::results::{TestResult, TestStatus};
use mcpcheck_core::suite::Server;
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore, mpsc};

use super::exec::{self, RunSettings, TestEnv};
use super::{Planned, Printer, Sharing, schedule};

/// How many tests run at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jobs {
    /// `--jobs N`.
    Given(usize),
    /// Chosen from the cores and what the servers cost.
    Auto,
}

/// The words that start the warning of a test run again fresh.
pub const RERUN: &str = "re-run on a fresh server";

type Item = (Planned, TestEnv);

enum Unit {
    Alone(Box<Item>),
    File(Vec<Item>),
    Group(Vec<Item>),
}

/// A server block as the suite gives it, without where it was written: two
/// files with the same server at different lines share it.
fn server_key(server: &Server) -> String {
    let mut s = server.clone();
    s.span = Default::default();
    s.label = None;
    format!("{s:?}")
}

/// Cut `items` into units (see the module's documentation), in plan order:
/// a unit comes where its first test is.
fn units_of(items: Vec<Item>, sharing: &Sharing, settings: &RunSettings) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of_file: BTreeMap<usize, usize> = BTreeMap::new();
    let mut group_of_key: BTreeMap<String, usize> = BTreeMap::new();
    for (p, tenv) in items {
        let opted = sharing.by_directory.get(&p.file);
        if sharing.composed.contains(&p.file) {
            let u = *unit_of_file.entry(p.file).or_insert_with(|| {
                units.push(Unit::File(Vec::new()));
                units.len() - 1
            });
            if let Unit::File(tests) = &mut units[u] {
                tests.push((p, tenv));
            }
            continue;
        }
        let shares =
            (settings.reuse_server && !sharing.isolated.contains(&p.file)) || opted.is_some();
        match &p.test.server {
            Some(server) if shares => {
                // The server block as written (command, args, env, URL,
                // headers, client capabilities and mocks) and the
                // environment it expands in: equal keys can share a
                // session. Test files that opted in share with their own
                // directory only.
                let key = format!("{opted:?}|{}|{:?}", server_key(server), tenv.env);
                match group_of_key.get(&key) {
                    Some(&u) => {
                        if let Unit::Group(tests) = &mut units[u] {
                            tests.push((p, tenv));
                        }
                    }
                    None => {
                        group_of_key.insert(key, units.len());
                        units.push(Unit::Group(vec![(p, tenv)]));
                    }
                }
            }
            _ => units.push(Unit::Alone(Box::new((p, tenv)))),
        }
    }
    // A group of one shares nothing: it runs alone, without a re-run.
    units
        .into_iter()
        .map(|u| match u {
            Unit::Group(mut tests) if tests.len() == 1 => match tests.pop() {
                Some(item) => Unit::Alone(Box::new(item)),
                None => Unit::Group(tests),
            },
            u => u,
        })
        .collect()
}

/// What every task of a batch shares.
struct Batch {
    settings: RunSettings,
    record: bool,
    printer: Arc<Mutex<Printer>>,
    lanes: Arc<Semaphore>,
    /// How many lanes there are.
    width: usize,
    done: mpsc::UnboundedSender<(usize, exec::Finished)>,
    /// Every task spawned for the batch, so that a dropped run (a cancelled
    /// `mcpcheck mcp` call) stops them, and their servers with them.
    tasks: Tasks,
}

/// The tasks of a batch, aborted together when the run is dropped.
#[derive(Clone, Default)]
struct Tasks(Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>);

impl Tasks {
    fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        let handle = tokio::spawn(task).abort_handle();
        if let Ok(mut all) = self.0.lock() {
            all.retain(|h| !h.is_finished());
            all.push(handle);
        }
    }
}

/// Aborts every task of a batch when dropped: the run was cancelled.
struct AbortOnDrop(Tasks);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Ok(all) = (self.0).0.lock() {
            for h in all.iter() {
                h.abort();
            }
        }
    }
}

impl Batch {
    async fn lane(&self) -> Option<OwnedSemaphorePermit> {
        self.lanes.clone().acquire_owned().await.ok()
    }

    /// A test's final result: printed in its turn and handed back.
    async fn finished(&self, index: usize, finished: exec::Finished) {
        self.printer.lock().await.finished(index, &finished.result);
        let _ = self.done.send((index, finished));
    }
}

/// Compile the answer scan's patterns on a thread of its own, once a run,
/// while the first servers start: otherwise the first test that gets an
/// answer compiles them after its answer arrives, on the run's critical
/// path.
fn warm_answer_scan() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("mcpcheck-warm".into())
            .spawn(mcpcheck_core::scan::output::warm);
    });
}

/// Run `items` (see the module's documentation); every test's final result,
/// in no particular order.
pub(super) async fn run_parallel(
    items: Vec<Item>,
    sharing: &Sharing,
    settings: &RunSettings,
    jobs: Jobs,
    record: bool,
    printer: Arc<Mutex<Printer>>,
) -> Vec<(usize, exec::Finished)> {
    if settings.output_scan {
        warm_answer_scan();
    }
    let units = units_of(items, sharing, settings);
    let width = match jobs {
        Jobs::Given(n) => n.max(1),
        Jobs::Auto => {
            let alone: Vec<schedule::Cost> = units
                .iter()
                .filter_map(|u| match u {
                    Unit::Alone(item) => item.0.test.server.as_ref(),
                    _ => None,
                })
                .filter_map(|s| cost_key(s, settings))
                .filter_map(|k| schedule::cost_of(&k))
                .collect();
            schedule::auto_lanes(schedule::cores(), &alone)
        }
    };
    let (done, mut results) = mpsc::unbounded_channel();
    let tasks = Tasks::default();
    // A run that is dropped stops its tests; one that ends has nothing left.
    let _stop = AbortOnDrop(tasks.clone());
    let batch = Arc::new(Batch {
        settings: settings.clone(),
        record,
        printer,
        lanes: Arc::new(Semaphore::new(width)),
        width,
        done,
        tasks,
    });
    for unit in units {
        let b = batch.clone();
        match unit {
            Unit::Alone(item) => {
                let (p, tenv) = *item;
                let t = b.tasks.clone();
                t.spawn(async move {
                    let _lane = b.lane().await;
                    b.printer.lock().await.started(&p.test.name);
                    let f = exec::run_test(&p.test, &b.settings, &tenv, b.record, None).await;
                    b.finished(p.index, f).await;
                });
            }
            Unit::File(tests) => {
                let t = b.tasks.clone();
                t.spawn(async move {
                    let _lane = b.lane().await;
                    let mut shared = exec::Shared::default();
                    for (p, tenv) in tests {
                        b.printer.lock().await.started(&p.test.name);
                        let f = exec::run_test(
                            &p.test,
                            &b.settings,
                            &tenv,
                            b.record,
                            Some(&mut shared),
                        )
                        .await;
                        b.finished(p.index, f).await;
                    }
                    shared.close().await;
                });
            }
            Unit::Group(tests) => {
                let key = tests
                    .first()
                    .and_then(|(p, _)| p.test.server.as_ref())
                    .and_then(|s| cost_key(s, settings));
                let group = Arc::new(Group {
                    queue: std::sync::Mutex::new(tests.into()),
                    key,
                    sessions: AtomicUsize::new(1),
                });
                let t = b.tasks.clone();
                t.spawn(group_session(b, group, None));
            }
        }
    }
    // Every task holds a sender: the channel closes when the last is done.
    drop(batch);
    let mut out = Vec::new();
    while let Some(r) = results.recv().await {
        out.push(r);
    }
    out
}

fn cost_key(server: &Server, settings: &RunSettings) -> Option<String> {
    schedule::cost_key(
        server,
        settings.server_override.as_deref(),
        settings.docker.as_deref(),
    )
}

/// A reuse group's tests not yet taken, and its sessions.
struct Group {
    queue: std::sync::Mutex<VecDeque<Item>>,
    /// What its server is kept under in [`schedule`].
    key: Option<String>,
    /// Sessions working on it now.
    sessions: AtomicUsize,
}

impl Group {
    fn next(&self) -> Option<Item> {
        self.queue.lock().ok()?.pop_front()
    }

    fn remaining(&self) -> usize {
        self.queue.lock().map_or(0, |q| q.len())
    }
}

/// One session of a reuse group: takes the group's tests one at a time
/// until none is left. Before each, it opens another session of the group
/// when that is worth it and a lane is free.
fn group_session(
    b: Arc<Batch>,
    group: Arc<Group>,
    lane: Option<OwnedSemaphorePermit>,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        let _lane = match lane {
            Some(l) => Some(l),
            None => b.lane().await,
        };
        let mut shared = exec::Shared::reused();
        loop {
            grow(&b, &group);
            let Some((p, tenv)) = group.next() else {
                break;
            };
            b.printer.lock().await.started(&p.test.name);
            let f = exec::run_test(&p.test, &b.settings, &tenv, b.record, Some(&mut shared)).await;
            if passed_or_skipped(&f.result) {
                b.finished(p.index, f).await;
            } else {
                // Fresh, in a lane of its own: at once when one is free,
                // while this session goes on with the next test.
                let b = b.clone();
                let t = b.tasks.clone();
                t.spawn(async move {
                    let _lane = b.lane().await;
                    let fresh = rerun_fresh(&p.test, &b.settings, &tenv, b.record, f).await;
                    b.finished(p.index, fresh).await;
                });
            }
        }
        shared.close().await;
        group.sessions.fetch_sub(1, Ordering::AcqRel);
    })
}

/// Open another session of `group` when the tests it has left are worth
/// more than the start, and a lane is free now (none is waited for).
fn grow(b: &Arc<Batch>, group: &Arc<Group>) {
    let sessions = group.sessions.load(Ordering::Acquire);
    let remaining = group.remaining();
    if sessions >= b.width || remaining < 2 {
        return;
    }
    let cost = group.key.as_deref().and_then(schedule::cost_of);
    if !schedule::worth_another(remaining, sessions, cost.as_ref()) {
        return;
    }
    let Ok(lane) = b.lanes.clone().try_acquire_owned() else {
        return;
    };
    group.sessions.fetch_add(1, Ordering::AcqRel);
    b.tasks
        .spawn(group_session(b.clone(), group.clone(), Some(lane)));
}

fn passed_or_skipped(r: &TestResult) -> bool {
    matches!(r.status, TestStatus::Pass | TestStatus::Skip)
}

/// A test that did not pass on a shared session, run again on its own: the
/// fresh verdict is the one reported, with a warning that says so, and
/// what the shared run gave when that was different.
async fn rerun_fresh(
    test: &mcpcheck_core::suite::Test,
    settings: &RunSettings,
    tenv: &TestEnv,
    record: bool,
    shared: exec::Finished,
) -> exec::Finished {
    let mut fresh = exec::run_test(test, settings, tenv, record, None).await;
    let what = if settings.fixture.is_some() {
        format!("{RERUN} and fixture copy")
    } else {
        RERUN.to_string()
    };
    let (was, now) = (&shared.result, &fresh.result);
    let warning = if was.status == now.status && was.message == now.message {
        format!("{what} (it did not pass on a shared one): the same result")
    } else {
        let was = if was.message.is_empty() {
            was.status.as_str().to_string()
        } else {
            format!("{}: {}", was.status.as_str(), was.message)
        };
        let was: String = was.chars().take(200).collect();
        format!("{what}: on the shared one it was {was}")
    };
    fresh.result.warnings.push(warning);
    fresh
}

/// How many tests of `results` were run again fresh.
pub fn reruns(results: &[TestResult]) -> usize {
    results
        .iter()
        .filter(|t| t.warnings.iter().any(|w| w.starts_with(RERUN)))
        .count()
}
