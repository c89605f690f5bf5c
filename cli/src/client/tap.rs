//! The wire tap: every message that crosses the transport, both directions,
//! recorded as raw text before rmcp sees it (or after it serialized it).
//!
//! Recording below the SDK keeps what the SDK would reject — a line that is
//! not JSON, a response with a string error code, a response that is both
//! `result` and `error` — so captures show what the server really sent, and
//! the runner can build observations from the raw response.

use std::sync::Mutex;
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
    changed: Notify,
}

impl Default for Tap {
    fn default() -> Self {
        Tap {
            events: Mutex::new(Vec::new()),
            problems: Mutex::new(Vec::new()),
            changed: Notify::new(),
        }
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
    /// Record a message; returns its index.
    pub fn record(&self, dir: Dir, raw: &str) -> usize {
        let json = serde_json::from_str::<Value>(raw.trim()).ok();
        let ev = Event {
            dir,
            time: now_rfc3339(),
            raw: raw.to_string(),
            json,
        };
        let idx = {
            let mut events = self.lock_events();
            events.push(ev);
            events.len() - 1
        };
        self.changed.notify_waiters();
        idx
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

    /// Wait until `pred` holds for the events from `from` on, or the deadline
    /// passes. Event-driven: wakes on every new message.
    pub async fn wait_for(
        &self,
        from: usize,
        deadline: tokio::time::Instant,
        pred: impl Fn(&[Event]) -> bool,
    ) -> bool {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let events = self.lock_events();
                if pred(events.get(from..).unwrap_or_default()) {
                    return true;
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let events = self.lock_events();
                return pred(events.get(from..).unwrap_or_default());
            }
        }
    }
}
