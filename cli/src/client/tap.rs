//! The wire tap: every message that crosses the transport, both directions,
//! recorded as raw text before rmcp sees it (or after it serialized it).
//!
//! Recording below the SDK keeps what the SDK would reject — a line that is
//! not JSON, a response with a string error code, a response that is both
//! `result` and `error` — so captures show what the server really sent, and
//! the runner can build observations from the raw response.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use serde_json::Value;
use tokio::sync::Notify;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Client to server.
    Out,
    /// Server to client.
    In,
}

/// One recorded message.
#[derive(Clone, Debug)]
pub struct Event {
    pub dir: Dir,
    /// Wall-clock time, RFC 3339 UTC.
    pub time: String,
    /// The text as it crossed the wire.
    pub raw: String,
    /// The parsed JSON, when the text was JSON.
    pub json: Option<Value>,
    /// Over HTTP, the status of the answer that carried an incoming message.
    pub http_status: Option<u16>,
    /// Over HTTP, the `MCP-Protocol-Version` header an outgoing message was
    /// sent with.
    pub version_header: Option<String>,
    /// Over HTTP in a 2026-07-28 session, the other MCP headers an outgoing
    /// request was sent with (`mcp-method`, `mcp-name`, `mcp-param-…`).
    pub request_headers: Option<Vec<(String, String)>>,
    /// For an outgoing request: why the client stopped waiting for its answer
    /// by a limit of its own (see [`Tap::note_gave_up`]).
    pub gave_up: Option<String>,
}

impl Event {
    pub fn id(&self) -> Option<&Value> {
        self.json
            .as_ref()
            .and_then(|j| j.get("id"))
            .filter(|v| !v.is_null())
    }

    pub fn method(&self) -> Option<&str> {
        self.json
            .as_ref()
            .and_then(|j| j.get("method"))
            .and_then(Value::as_str)
    }

    /// A response: has an id and `result` or `error`, and no method.
    pub fn is_response(&self) -> bool {
        self.json.as_ref().is_some_and(|j| {
            j.get("method").is_none() && (j.get("result").is_some() || j.get("error").is_some())
        })
    }

    /// A notification: a method and no id.
    pub fn is_notification(&self) -> bool {
        self.method().is_some() && self.id().is_none()
    }

    /// A request: a method and an id.
    pub fn is_request(&self) -> bool {
        self.method().is_some() && self.id().is_some()
    }
}

/// Header changes for one request (see [`Tap::send_headers`]): names in
/// lowercase, `None` to leave a header out.
pub type HeaderChange = Vec<(String, Option<String>)>;

/// How many messages a server may send in one session before the session is
/// ended (a notification or ping flood).
pub const MAX_MESSAGES: usize = 10_000;
/// How many bytes a server may send in one session, over all its messages.
pub const MAX_BYTES: usize = 160 * 1024 * 1024;
/// The largest single message (a stdio line, an HTTP body, an SSE event).
pub const MAX_MESSAGE_BYTES: usize = 80 * 1024 * 1024;

/// How many bytes the servers of one run may have sent to sessions that are
/// still held, together: with `--jobs N`, N sessions run at once, and this
/// keeps N floods from adding up past it.
pub const MAX_RUN_BYTES: usize = 512 * 1024 * 1024;

/// The run's count of bytes held by live sessions.
fn run_bytes() -> Arc<AtomicUsize> {
    static RUN: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    RUN.get_or_init(Arc::default).clone()
}

/// What the server has sent so far in this session, against the limits.
#[derive(Debug, Default)]
struct Budget {
    messages: usize,
    bytes: usize,
    /// Why the session was ended, once a limit was passed.
    exceeded: Option<String>,
}

/// A problem seen on the wire that the runner must report.
#[derive(Clone, Debug)]
pub struct WireProblem {
    pub at_event: usize,
    pub message: String,
}

#[derive(Debug)]
pub struct Tap {
    events: Mutex<Vec<Event>>,
    problems: Mutex<Vec<WireProblem>>,
    budget: Mutex<Budget>,
    /// `MCP-Protocol-Version` headers asked for the next request of a method,
    /// instead of the session's version (see [`Tap::send_version_header`]).
    version_headers: Mutex<Vec<(String, String)>>,
    /// MCP headers asked for the next request of a method, instead of the ones
    /// mirroring its body (see [`Tap::send_headers`]).
    headers: Mutex<Vec<(String, HeaderChange)>>,
    changed: Notify,
    /// The bytes every live session of the run holds (see [`MAX_RUN_BYTES`]);
    /// this session's share is given back when it is dropped.
    run: Arc<AtomicUsize>,
}

impl Default for Tap {
    fn default() -> Self {
        Tap::sharing(run_bytes())
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        let held = self.budget.get_mut().map_or(0, |b| b.bytes);
        self.run.fetch_sub(held, Ordering::AcqRel);
    }
}

/// RFC 3339 UTC with milliseconds.
pub fn now_rfc3339() -> String {
    let d = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    chrono::DateTime::<chrono::Utc>::from(SystemTime::UNIX_EPOCH + d)
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

impl Tap {
    /// A tap counting against `run`, the bytes held by the run's sessions.
    fn sharing(run: Arc<AtomicUsize>) -> Self {
        Tap {
            events: Mutex::new(Vec::new()),
            problems: Mutex::new(Vec::new()),
            budget: Mutex::new(Budget::default()),
            version_headers: Mutex::new(Vec::new()),
            headers: Mutex::new(Vec::new()),
            changed: Notify::new(),
            run,
        }
    }

    /// Record a message; returns its index.
    pub fn record(&self, dir: Dir, raw: &str) -> usize {
        self.record_http(dir, raw, None)
    }

    /// Record a message that came in an HTTP answer with `status`; returns
    /// its index.
    pub fn record_http(&self, dir: Dir, raw: &str, status: Option<u16>) -> usize {
        let json = serde_json::from_str::<Value>(raw.trim()).ok();
        let ev = Event {
            dir,
            time: now_rfc3339(),
            raw: raw.to_string(),
            json,
            http_status: status,
            version_header: None,
            request_headers: None,
            gave_up: None,
        };
        let idx = {
            let mut events = self.lock_events();
            events.push(ev);
            events.len() - 1
        };
        self.changed.notify_waiters();
        idx
    }

    /// Count one incoming message of `len` bytes against the session's
    /// limits. `Err` holds why the session must end, the first time a limit
    /// is passed (the problem is recorded then); after that every message is
    /// refused with `Err(None)`.
    pub fn admit(&self, len: usize) -> Result<(), Option<String>> {
        let mut b = self.budget.lock().unwrap_or_else(|e| e.into_inner());
        if b.exceeded.is_some() {
            return Err(None);
        }
        b.messages += 1;
        b.bytes += len;
        let run = self.run.fetch_add(len, Ordering::AcqRel) + len;
        let why = if b.messages > MAX_MESSAGES {
            format!(
                "the server sent more than {MAX_MESSAGES} messages in one session; the session was ended (a notification or request flood)"
            )
        } else if b.bytes > MAX_BYTES {
            format!(
                "the server sent more than {} MiB in one session; the session was ended",
                MAX_BYTES >> 20
            )
        } else if run > MAX_RUN_BYTES {
            format!(
                "the servers of this run sent more than {} MiB to the sessions running at once; this session was ended (run fewer tests at once with --jobs)",
                MAX_RUN_BYTES >> 20
            )
        } else {
            return Ok(());
        };
        drop(b);
        self.exceed(why.clone());
        Err(Some(why))
    }

    /// End the session's reading for `why` (a limit was passed); recorded as
    /// a problem once.
    pub fn exceed(&self, why: String) {
        {
            let mut b = self.budget.lock().unwrap_or_else(|e| e.into_inner());
            if b.exceeded.is_some() {
                return;
            }
            b.exceeded = Some(why.clone());
        }
        let at = self.mark();
        self.problem(at, why);
    }

    /// Why the session was ended by a limit, if it was.
    pub fn exceeded(&self) -> Option<String> {
        self.budget
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .exceeded
            .clone()
    }

    /// Over Streamable HTTP in a 2026-07-28 session, send the next request
    /// of `method` with `MCP-Protocol-Version: version` instead of the
    /// session's version: a probe whose header agrees with a `_meta` naming
    /// another version. Other transports send no such header and ignore it.
    pub fn send_version_header(&self, method: &str, version: &str) {
        if let Ok(mut asked) = self.version_headers.lock() {
            asked.push((method.to_string(), version.to_string()));
        }
    }

    /// The header asked for the next request of `method`, taken once.
    pub fn take_version_header(&self, method: &str) -> Option<String> {
        let mut asked = self.version_headers.lock().ok()?;
        let at = asked.iter().position(|(m, _)| m == method)?;
        Some(asked.remove(at).1)
    }

    /// Note that the request with `id` went out with `MCP-Protocol-Version:
    /// version`, on its recorded event.
    pub fn note_version_header(&self, id: &Value, version: &str) {
        let mut events = self.lock_events();
        if let Some(e) = events
            .iter_mut()
            .rev()
            .find(|e| e.dir == Dir::Out && e.id() == Some(id) && e.method().is_some())
        {
            e.version_header = Some(version.to_string());
        }
    }

    /// Over Streamable HTTP in a 2026-07-28 session, send the next request of
    /// `method` with these MCP headers changed: each `(name, Some(value))` set
    /// (added, or replacing the one that mirrors the body), each `(name, None)`
    /// left out. For probes of how a server validates the headers, and for the
    /// `Mcp-Param-*` headers a tool's `x-mcp-header` annotations ask for.
    pub fn send_headers(&self, method: &str, change: HeaderChange) {
        if let Ok(mut asked) = self.headers.lock() {
            asked.push((method.to_string(), change));
        }
    }

    /// The header changes asked for the next request of `method`, taken once.
    pub fn take_headers(&self, method: &str) -> Option<HeaderChange> {
        let mut asked = self.headers.lock().ok()?;
        let at = asked.iter().position(|(m, _)| m == method)?;
        Some(asked.remove(at).1)
    }

    /// Note the MCP headers the request with `id` went out with, on its
    /// recorded event, for captures.
    pub fn note_request_headers(&self, id: &Value, headers: Vec<(String, String)>) {
        let mut events = self.lock_events();
        if let Some(e) = events
            .iter_mut()
            .rev()
            .find(|e| e.dir == Dir::Out && e.id() == Some(id) && e.method().is_some())
        {
            e.request_headers = Some(headers);
        }
    }

    /// Note that the client stopped waiting for the answer to the request with
    /// `id` by a limit of its own, and why (its time ran out while the server
    /// was still working, its session budget ended the session): captures say
    /// so, and the invariants do not blame the server for the missing answer.
    pub fn note_gave_up(&self, id: &Value, why: &str) {
        let mut events = self.lock_events();
        if let Some(e) = events
            .iter_mut()
            .rev()
            .find(|e| e.dir == Dir::Out && e.id() == Some(id) && e.method().is_some())
        {
            e.gave_up = Some(why.to_string());
        }
    }

    /// The ids of the requests sent from `from` on that no response answered.
    pub fn unanswered_since(&self, from: usize) -> Vec<Value> {
        let events = self.lock_events();
        let tail = events.get(from..).unwrap_or_default();
        tail.iter()
            .filter(|e| e.dir == Dir::Out && e.is_request())
            .filter_map(|e| e.id().cloned())
            .filter(|id| {
                !tail
                    .iter()
                    .any(|r| r.dir == Dir::In && r.is_response() && r.id() == Some(id))
            })
            .collect()
    }

    /// Note a problem (garbage, malformed message, unknown id).
    pub fn problem(&self, at_event: usize, message: String) {
        if let Ok(mut p) = self.problems.lock() {
            p.push(WireProblem { at_event, message });
        }
        self.changed.notify_waiters();
    }

    fn lock_events(&self) -> std::sync::MutexGuard<'_, Vec<Event>> {
        // A poisoned lock only means another thread panicked mid-push; the
        // vector itself is still valid.
        self.events.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The index the next event will get (a mark to slice from).
    pub fn mark(&self) -> usize {
        self.lock_events().len()
    }

    /// A copy of the events from `from` on.
    pub fn since(&self, from: usize) -> Vec<Event> {
        let events = self.lock_events();
        events
            .get(from..)
            .map(<[Event]>::to_vec)
            .unwrap_or_default()
    }

    pub fn all(&self) -> Vec<Event> {
        self.since(0)
    }

    pub fn problems_since(&self, from: usize) -> Vec<WireProblem> {
        self.problems
            .lock()
            .map(|p| p.iter().filter(|x| x.at_event >= from).cloned().collect())
            .unwrap_or_default()
    }

    /// Find the server's answer to the request with `id` (sent at or after
    /// `from`): its index and JSON.
    pub fn response_to(&self, from: usize, id: &Value) -> Option<(usize, Value)> {
        let events = self.lock_events();
        events
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, e)| e.dir == Dir::In && e.is_response() && e.id() == Some(id))
            .and_then(|(i, e)| e.json.clone().map(|j| (i, j)))
    }

    /// Server notifications in `[from, to)`.
    pub fn notifications(&self, from: usize, to: usize) -> Vec<Value> {
        let events = self.lock_events();
        let to = to.min(events.len());
        events
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .filter(|e| e.dir == Dir::In && e.is_notification())
            .filter_map(|e| e.json.clone())
            .collect()
    }

    /// Wait until an event from `from` on satisfies `pred`, or the deadline
    /// passes. Event-driven: wakes on every new message, and looks at each
    /// event once (a flood of messages costs linear time, not quadratic).
    pub async fn wait_for_event(
        &self,
        from: usize,
        deadline: tokio::time::Instant,
        pred: impl Fn(&Event) -> bool,
    ) -> bool {
        let mut seen = from;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let events = self.lock_events();
                if events.get(seen..).unwrap_or_default().iter().any(&pred) {
                    return true;
                }
                seen = seen.max(events.len());
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let events = self.lock_events();
                return events.get(seen..).unwrap_or_default().iter().any(&pred);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sessions_of_a_run_share_a_byte_budget_given_back_when_they_end() {
        let run = Arc::new(AtomicUsize::new(0));
        let chunk = MAX_MESSAGE_BYTES;
        let taps: Vec<Tap> = (0..4).map(|_| Tap::sharing(run.clone())).collect();
        // Each session stays under its own limit; together they pass the run's.
        let mut refused = None;
        'fill: for tap in &taps {
            for _ in 0..2 {
                if let Err(why) = tap.admit(chunk) {
                    refused = why;
                    break 'fill;
                }
            }
        }
        let why = refused.expect("the run's budget is passed");
        assert!(why.contains("more than 512 MiB"), "{why}");
        assert!(why.contains("--jobs"), "{why}");
        drop(taps);
        assert_eq!(run.load(Ordering::Acquire), 0, "every share is given back");
        let next = Tap::sharing(run.clone());
        assert_eq!(next.admit(chunk), Ok(()));
    }

    #[test]
    fn a_flood_passes_the_message_limit_once_and_is_refused_after() {
        let tap = Tap::default();
        for _ in 0..MAX_MESSAGES {
            assert_eq!(tap.admit(10), Ok(()));
        }
        let why = tap
            .admit(10)
            .expect_err("one too many")
            .expect("the reason");
        assert!(why.contains("more than 10000 messages"), "{why}");
        assert_eq!(
            tap.admit(10),
            Err(None),
            "refused after, without a new reason"
        );
        assert_eq!(tap.exceeded(), Some(why.clone()));
        let problems = tap.problems_since(0);
        assert_eq!(problems.len(), 1, "recorded once: {problems:?}");
    }

    #[test]
    fn an_asked_version_header_goes_once_to_its_method_and_is_noted() {
        let tap = Tap::default();
        tap.send_version_header("tools/list", "2099-01-01");
        assert_eq!(tap.take_version_header("ping"), None);
        assert_eq!(
            tap.take_version_header("tools/list").as_deref(),
            Some("2099-01-01")
        );
        assert_eq!(tap.take_version_header("tools/list"), None, "taken once");

        tap.record(
            Dir::Out,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
        );
        tap.record_http(
            Dir::In,
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            Some(200),
        );
        tap.note_version_header(&serde_json::json!(7), "2099-01-01");
        let events = tap.all();
        assert_eq!(events[0].version_header.as_deref(), Some("2099-01-01"));
        assert_eq!(events[0].http_status, None);
        assert_eq!(events[1].version_header, None, "only the request");
        assert_eq!(events[1].http_status, Some(200));
    }

    #[test]
    fn the_byte_limit_counts_every_message() {
        let tap = Tap::default();
        assert_eq!(tap.admit(MAX_BYTES - 1), Ok(()));
        assert_eq!(tap.admit(1), Ok(()));
        let why = tap.admit(1).expect_err("over").expect("the reason");
        assert!(why.contains("more than 160 MiB"), "{why}");
    }
}
