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

/// One recorded message. Cloning one is cheap: the text and the parsed
/// JSON are shared.
#[derive(Clone, Debug)]
pub struct Event {
    pub dir: Dir,
    /// Wall-clock time, RFC 3339 UTC.
    pub time: String,
    /// The text as it crossed the wire.
    pub raw: Arc<str>,
    /// The parsed JSON, when the text was JSON and small enough to hold as
    /// values (see [`MAX_HELD_BYTES`]); a larger message keeps only its
    /// text and what [`Head`] reads from it.
    pub json: Option<Arc<Value>>,
    head: Head,
    /// The memory its values were estimated at, counted against the
    /// session's and the run's bounds while the tap holds them.
    held: usize,
    /// How many lone surrogate escapes (`\udfff`) were read as U+FFFD.
    pub lone_surrogates: usize,
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

/// What a message is, read when it is recorded: its id, its method, and
/// whether it holds `result` or `error`.
#[derive(Clone, Debug, Default)]
struct Head {
    /// The text is JSON.
    json: bool,
    id: Option<Value>,
    method: Option<String>,
    answer: bool,
}

impl Head {
    fn of(v: &Value) -> Head {
        Head {
            json: true,
            id: v.get("id").filter(|i| !i.is_null()).cloned(),
            method: v.get("method").and_then(Value::as_str).map(str::to_string),
            answer: v.get("result").is_some() || v.get("error").is_some(),
        }
    }

    /// The head of a message too large to hold as values, read without
    /// building them.
    fn skim(text: &str) -> Head {
        #[derive(serde::Deserialize)]
        struct Skim {
            id: Option<Value>,
            method: Option<Value>,
            result: Option<serde::de::IgnoredAny>,
            error: Option<serde::de::IgnoredAny>,
        }
        match serde_json::from_str::<Skim>(text) {
            Ok(m) => Head {
                json: true,
                id: m
                    .id
                    .filter(|i| !i.is_null() && !i.is_object() && !i.is_array()),
                method: m.method.and_then(|v| v.as_str().map(str::to_string)),
                answer: m.result.is_some() || m.error.is_some(),
            },
            Err(_) => Head {
                json: serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok(),
                ..Head::default()
            },
        }
    }
}

/// How much memory a message may take once parsed into JSON values (an
/// estimate from its text: a 41 MB answer of small objects takes about 1.2
/// GB as values). A larger message is recorded as text only, and a request
/// it answers fails with the reason.
pub const MAX_HELD_BYTES: usize = 512 * 1024 * 1024;

/// An estimate of the memory `text` takes as `serde_json::Value`s: each
/// value's slot, each non-empty object's tree node, each string's bytes.
pub fn held_estimate(text: &str) -> usize {
    let mut values = 1usize;
    let mut objects = 0usize;
    let mut strings = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in text.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                strings += 1;
            }
            b'{' => objects += 1,
            b',' | b':' => values += 1,
            _ => {}
        }
    }
    values
        .saturating_mul(48)
        .saturating_add(objects.saturating_mul(640))
        .saturating_add(strings.saturating_mul(24))
        .saturating_add(text.len())
}

impl Event {
    /// A message as it crossed the wire, parsed when it is JSON and within
    /// [`MAX_HELD_BYTES`].
    pub fn new(dir: Dir, raw: &str, http_status: Option<u16>) -> Event {
        Event::parsed_if(
            dir,
            raw,
            http_status,
            held_estimate(raw.trim()) <= MAX_HELD_BYTES,
        )
    }

    /// A message, parsed into values only when `hold` (else its text and
    /// [`Head`] only).
    pub fn parsed_if(dir: Dir, raw: &str, http_status: Option<u16>, hold: bool) -> Event {
        let text = raw.trim();
        let mut lone_surrogates = 0;
        let (json, head) = if !hold {
            (None, Head::skim(text))
        } else {
            // A lone surrogate escape is read as U+FFFD, as lenient clients
            // show it (the listing notes it).
            match super::wire::parse_lossy(text) {
                Ok((v, lone)) => {
                    lone_surrogates = lone;
                    let head = Head::of(&v);
                    (Some(Arc::new(v)), head)
                }
                Err(_) => (None, Head::default()),
            }
        };
        Event {
            dir,
            time: now_rfc3339(),
            raw: Arc::from(raw),
            json,
            head,
            held: 0,
            lone_surrogates,
            http_status,
            version_header: None,
            request_headers: None,
            gave_up: None,
        }
    }

    /// A message recorded elsewhere (intercept keeps its messages as text
    /// while a session runs): its time as read, its text, and the JSON made
    /// of it (reduced to what places it, when the caller chose so).
    pub fn from_parts(dir: Dir, time: String, raw: &str, json: Option<Value>) -> Event {
        let head = json.as_ref().map(Head::of).unwrap_or_default();
        Event {
            dir,
            time,
            raw: Arc::from(raw),
            json: json.map(Arc::new),
            head,
            held: 0,
            lone_surrogates: 0,
            http_status: None,
            version_header: None,
            request_headers: None,
            gave_up: None,
        }
    }

    /// The event with `estimate` counted as what its values hold (see
    /// [`Tap::hold`]).
    pub fn holding(mut self, estimate: usize) -> Event {
        if self.json.is_some() {
            self.held = estimate;
        }
        self
    }

    /// A message that is not text the protocol allows (bytes that are not
    /// UTF-8, shown with replacement characters): recorded as not JSON.
    pub fn not_json(dir: Dir, raw: &str, http_status: Option<u16>) -> Event {
        Event {
            dir,
            time: now_rfc3339(),
            raw: Arc::from(raw),
            json: None,
            head: Head::default(),
            held: 0,
            lone_surrogates: 0,
            http_status,
            version_header: None,
            request_headers: None,
            gave_up: None,
        }
    }

    /// The text is JSON (held as values or not).
    pub fn is_json(&self) -> bool {
        self.head.json
    }

    /// The text is JSON too large to hold as values.
    pub fn is_too_large(&self) -> bool {
        self.head.json && self.json.is_none()
    }

    pub fn id(&self) -> Option<&Value> {
        self.head.id.as_ref()
    }

    pub fn method(&self) -> Option<&str> {
        self.head.method.as_deref()
    }

    /// A response: has an id and `result` or `error`, and no method.
    pub fn is_response(&self) -> bool {
        self.head.method.is_none() && self.head.answer
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

/// How many bytes a server may send in one session, over all its messages
/// (the flood bound of `mcpcheck_core::probe::flood`, with its message count).
pub const MAX_BYTES: usize = mcpcheck_core::probe::FLOOD_BYTES;
/// The largest single message (a stdio line, an HTTP body, an SSE event).
pub const MAX_MESSAGE_BYTES: usize = 80 * 1024 * 1024;

/// How many bytes the servers of one run may have sent to sessions that are
/// still held, together: with `--jobs N`, N sessions run at once, and this
/// keeps N floods from adding up past it.
pub const MAX_RUN_BYTES: usize = 512 * 1024 * 1024;

/// The flag that sets how many sessions run at once, for the advice when
/// the run's byte budget is passed: `--jobs` (the runner) unless a command
/// named its own ([`set_concurrency_flag`]).
static CONCURRENCY_FLAG: OnceLock<&'static str> = OnceLock::new();

/// Name the flag that sets how many sessions of this command run at once
/// (`load`'s `--concurrency`), for the messages of the run's byte budget.
pub fn set_concurrency_flag(flag: &'static str) {
    let _ = CONCURRENCY_FLAG.set(flag);
}

/// The flag the run's byte budget names: `--jobs`, or the command's own.
fn concurrency_flag() -> &'static str {
    CONCURRENCY_FLAG.get().copied().unwrap_or("--jobs")
}

/// The run's count of bytes held by live sessions.
fn run_bytes() -> Arc<AtomicUsize> {
    static RUN: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    RUN.get_or_init(Arc::default).clone()
}

/// The memory the messages of the sessions still held take as JSON values
/// (estimated, see [`held_estimate`]), together.
fn run_held() -> Arc<AtomicUsize> {
    static HELD: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    HELD.get_or_init(Arc::default).clone()
}

/// How much memory the messages of the sessions running at once may take
/// as JSON values together: with `--jobs N`, N large answers are held at
/// once.
pub const MAX_RUN_HELD_BYTES: usize = 1024 * 1024 * 1024;

/// What the server has sent so far in this session, against the limits.
#[derive(Debug, Default)]
struct Budget {
    messages: usize,
    bytes: usize,
    /// The estimated memory of the messages held as values.
    held: usize,
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
    /// The same for the memory of messages held as values.
    run_held: Arc<AtomicUsize>,
}

impl Default for Tap {
    fn default() -> Self {
        Tap::sharing_held(run_bytes(), run_held())
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        let (bytes, held) = self.budget.get_mut().map_or((0, 0), |b| (b.bytes, b.held));
        self.run.fetch_sub(bytes, Ordering::AcqRel);
        self.run_held.fetch_sub(held, Ordering::AcqRel);
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

/// Why a message is not held as JSON values (it is kept as text).
#[derive(Debug, thiserror::Error)]
pub enum TooLarge {
    #[error(
        "the server sent a message of {size_mib} MiB that would take about {estimate_mib} MiB of memory as JSON values, more than the {max} MiB mcpcheck holds for one message; it is kept as text in --capture",
        max = MAX_HELD_BYTES >> 20
    )]
    Message {
        size_mib: usize,
        estimate_mib: usize,
    },
    #[error(
        "the server sent a message of {size_mib} MiB that would take about {estimate_mib} MiB of memory as JSON values, and the sessions running at once already hold {held_mib} MiB of the {max} MiB mcpcheck holds for a run (run fewer tests at once with {flag}); it is kept as text in --capture",
        max = MAX_RUN_HELD_BYTES >> 20,
        flag = concurrency_flag()
    )]
    Run {
        size_mib: usize,
        estimate_mib: usize,
        held_mib: usize,
    },
}

impl Tap {
    /// A tap counting against `run`, the bytes held by the run's sessions
    /// (and a count of held values of its own).
    #[cfg(test)]
    fn sharing(run: Arc<AtomicUsize>) -> Self {
        Tap::sharing_held(run, Arc::default())
    }

    /// A tap counting against `run` and `run_held`, what the run's
    /// sessions hold as bytes and as values.
    fn sharing_held(run: Arc<AtomicUsize>, run_held: Arc<AtomicUsize>) -> Self {
        Tap {
            events: Mutex::new(Vec::new()),
            problems: Mutex::new(Vec::new()),
            budget: Mutex::new(Budget::default()),
            version_headers: Mutex::new(Vec::new()),
            headers: Mutex::new(Vec::new()),
            changed: Notify::new(),
            run,
            run_held,
        }
    }

    /// Whether an incoming message of `text` may be held as JSON values:
    /// its estimated memory ([`held_estimate`]) within [`MAX_HELD_BYTES`],
    /// and with what the run's live sessions hold, within
    /// [`MAX_RUN_HELD_BYTES`]. Counted when it is (the estimate is
    /// returned, for [`Event::holding`]); `Err` says why not.
    pub fn hold(&self, text: &str) -> Result<usize, TooLarge> {
        let estimate = held_estimate(text);
        let mib = |n: usize| n.div_ceil(1 << 20);
        if estimate > MAX_HELD_BYTES {
            return Err(TooLarge::Message {
                size_mib: mib(text.len()),
                estimate_mib: mib(estimate),
            });
        }
        let before = self.run_held.fetch_add(estimate, Ordering::AcqRel);
        if before + estimate > MAX_RUN_HELD_BYTES {
            self.run_held.fetch_sub(estimate, Ordering::AcqRel);
            return Err(TooLarge::Run {
                size_mib: mib(text.len()),
                estimate_mib: mib(estimate),
                held_mib: mib(before),
            });
        }
        let mut b = self.budget.lock().unwrap_or_else(|e| e.into_inner());
        b.held += estimate;
        Ok(estimate)
    }

    /// Give back what an event's values were counted at: they left the tap
    /// (or were never built).
    pub fn release(&self, held: usize) {
        let mut b = self.budget.lock().unwrap_or_else(|e| e.into_inner());
        let held = held.min(b.held);
        b.held -= held;
        self.run_held.fetch_sub(held, Ordering::AcqRel);
    }

    /// Record a message; returns its index.
    pub fn record(&self, dir: Dir, raw: &str) -> usize {
        self.record_http(dir, raw, None)
    }

    /// Record a message that came in an HTTP answer with `status`; returns
    /// its index.
    pub fn record_http(&self, dir: Dir, raw: &str, status: Option<u16>) -> usize {
        self.record_event(Event::new(dir, raw, status)).0
    }

    /// Record an event; returns its index and the event as recorded (its
    /// text and JSON shared, not copied).
    pub fn record_event(&self, ev: Event) -> (usize, Event) {
        let shared = ev.clone();
        let idx = {
            let mut events = self.lock_events();
            events.push(ev);
            events.len() - 1
        };
        self.changed.notify_waiters();
        (idx, shared)
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
        let why = if let Some(flood) = mcpcheck_core::probe::flood(b.messages, b.bytes) {
            format!("{flood}; the session was ended")
        } else if run > MAX_RUN_BYTES {
            format!(
                "the servers of this run sent more than {} MiB to the sessions running at once; this session was ended (run fewer at once with {})",
                MAX_RUN_BYTES >> 20,
                concurrency_flag()
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

    /// Let go of the text of every message before `upto` (each event stays,
    /// empty, so indices hold): what the server sent there no longer counts
    /// against the session's and the run's byte budgets. For a long session
    /// whose answers are read as they come (`load`), so memory follows what
    /// is in flight rather than everything sent.
    pub fn release_upto(&self, upto: usize) {
        let mut freed = 0usize;
        let mut held = 0usize;
        {
            let mut events = self.lock_events();
            let end = upto.min(events.len());
            for e in events.iter_mut().take(end) {
                if e.dir == Dir::In {
                    freed += e.raw.len();
                }
                held += std::mem::take(&mut e.held);
                e.raw = Arc::from("");
                e.json = None;
            }
        }
        self.release(held);
        if freed == 0 {
            return;
        }
        let mut b = self.budget.lock().unwrap_or_else(|e| e.into_inner());
        let freed = freed.min(b.bytes);
        b.bytes -= freed;
        self.run.fetch_sub(freed, Ordering::AcqRel);
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
    /// `from`): its index and JSON (shared with the tap).
    pub fn response_to(&self, from: usize, id: &Value) -> Option<(usize, Arc<Value>)> {
        let events = self.lock_events();
        events
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, e)| e.dir == Dir::In && e.is_response() && e.id() == Some(id))
            .and_then(|(i, e)| e.json.clone().map(|j| (i, j)))
    }

    /// [`Tap::response_to`], owned: an answer longer than `take_above` bytes
    /// is moved out of the tap (its text stays, for captures), so a large
    /// answer is held as values once, not twice; a smaller one is copied.
    pub fn take_response(
        &self,
        from: usize,
        id: &Value,
        take_above: usize,
    ) -> Option<(usize, Value)> {
        let mut events = self.lock_events();
        let (i, e) = events
            .iter_mut()
            .enumerate()
            .skip(from)
            .find(|(_, e)| e.dir == Dir::In && e.is_response() && e.id() == Some(id))?;
        if e.raw.len() > take_above
            && let Some(json) = e.json.take()
        {
            let held = std::mem::take(&mut e.held);
            drop(events);
            self.release(held);
            return Some((i, Arc::unwrap_or_clone(json)));
        }
        e.json.as_deref().map(|j| (i, j.clone()))
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
            .filter_map(|e| e.json.as_deref().cloned())
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
        assert!(why.contains(concurrency_flag()), "{why}");
        drop(taps);
        assert_eq!(run.load(Ordering::Acquire), 0, "every share is given back");
        let next = Tap::sharing(run.clone());
        assert_eq!(next.admit(chunk), Ok(()));
    }

    #[test]
    fn a_flood_passes_the_message_limit_once_and_is_refused_after() {
        let tap = Tap::default();
        for _ in 0..mcpcheck_core::probe::FLOOD_MESSAGES {
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
    fn values_are_counted_while_the_tap_holds_them() {
        let held = Arc::new(AtomicUsize::new(0));
        let tap = Tap::sharing_held(Arc::default(), held.clone());
        let item = r#"{"type":"text","text":"x"}"#;
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{}]}}}}"#,
            vec![item; 20_000].join(",")
        );
        let estimate = tap.hold(&big).expect("within the bounds");
        assert!(estimate > 20 * big.len(), "{estimate} for {}", big.len());
        tap.record_event(Event::new(Dir::In, &big, None).holding(estimate));
        assert_eq!(held.load(Ordering::Acquire), estimate);
        // Taken out for the reply: no longer the tap's.
        let (_, v) = tap
            .take_response(0, &serde_json::json!(1), 1024)
            .expect("the answer");
        assert_eq!(
            v["result"]["content"].as_array().map(Vec::len),
            Some(20_000)
        );
        assert_eq!(held.load(Ordering::Acquire), 0);
        // What it says about the message stays: it is still a response.
        assert!(tap.all()[0].is_response());
        // One message past the bound is refused, with the reason.
        let huge = "[1,".repeat(12_000_000) + "1" + &"]".repeat(0);
        let why = tap.hold(&huge).expect_err("too large").to_string();
        assert!(why.contains("more than the 512 MiB"), "{why}");
        // Together, the sessions of a run hold at most 1 GiB.
        held.store(MAX_RUN_HELD_BYTES - 10, Ordering::Release);
        let why = tap.hold(&big).expect_err("the run's bound").to_string();
        assert!(why.contains(concurrency_flag()), "{why}");
        drop(tap);
    }

    #[test]
    fn the_run_budget_names_the_flag_the_command_set() {
        set_concurrency_flag("--concurrency");
        assert_eq!(concurrency_flag(), "--concurrency");
        let run = Arc::new(AtomicUsize::new(MAX_RUN_BYTES));
        let tap = Tap::sharing(run.clone());
        let why = tap.admit(1).expect_err("over").expect("the reason");
        assert!(
            why.ends_with("(run fewer at once with --concurrency)"),
            "{why}"
        );
        // This session's byte goes back; the rest was never its own.
        drop(tap);
        assert_eq!(run.load(Ordering::Acquire), MAX_RUN_BYTES);
    }

    #[test]
    fn released_messages_give_their_bytes_back() {
        let run = Arc::new(AtomicUsize::new(0));
        let tap = Tap::sharing(run.clone());
        let answer = "x".repeat(1 << 20);
        // Two hundred 1 MiB answers, each released once read, stay far
        // below the 160 MiB a session may hold.
        for _ in 0..200 {
            assert_eq!(tap.admit(answer.len()), Ok(()));
            let at = tap.record(Dir::In, &answer);
            tap.release_upto(at + 1);
        }
        assert_eq!(run.load(Ordering::Acquire), 0);
        assert_eq!(tap.mark(), 200, "the events stay, empty");
        assert!(tap.all().iter().all(|e| e.raw.is_empty()));
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
