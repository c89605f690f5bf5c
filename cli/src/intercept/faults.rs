//! `intercept --fault`: the proxy's side of fault injection. Each client
//! request is shown to core's [`Injector`] when it goes by; each server
//! message is then given a [`Plan`]: passed on, held (a notification of a
//! request whose notifications are reordered), delivered changed, late,
//! twice or not at all, or the connection cut. What was injected is kept
//! for the capture's `injected` member. The transports (`stdio`, `http`)
//! carry out the plans.

use std::collections::HashMap;
use std::sync::Mutex;

use mcpcheck_core::inject::{self, Injected, Injector, Kind};
use serde_json::Value;

/// What to do with one server message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Pass it on as it is.
    Pass,
    /// Keep it back (it goes out after the answer of its request).
    Hold,
    /// Pass these on instead, `delay_ms` later.
    Deliver { lines: Vec<String>, delay_ms: u64 },
    /// Cut the connection instead.
    Disconnect,
}

/// A request whose answer faults wait for.
struct Open {
    method: String,
    tool: Option<String>,
    applied: Vec<usize>,
    /// Notifications held back while it is open (`reorder`).
    held: Vec<String>,
}

#[derive(Default)]
struct State {
    injector: Option<Injector>,
    /// Open requests with faults, by session and id text.
    open: HashMap<(Option<String>, String), Open>,
    /// What was injected, with its session.
    injected: Vec<(Option<String>, Injected)>,
}

/// The faults of one intercept session.
#[derive(Default)]
pub struct Faults {
    state: Mutex<State>,
}

fn parse(text: &str) -> Option<Value> {
    crate::client::wire::parse_lossy(text).ok().map(|(v, _)| v)
}

impl Faults {
    /// Faults decided by `injector` (none when it has no fault).
    pub fn new(injector: Injector) -> Faults {
        let injector = (!injector.is_empty()).then_some(injector);
        Faults {
            state: Mutex::new(State {
                injector,
                ..State::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether any fault was asked for.
    pub fn active(&self) -> bool {
        self.lock().injector.is_some()
    }

    /// A client message going by: a request is shown to the injector, and
    /// the faults it decides wait for its answer.
    pub fn request(&self, text: &str, session: Option<&str>) {
        let mut st = self.lock();
        let State { injector, open, .. } = &mut *st;
        let Some(injector) = injector.as_mut() else {
            return;
        };
        let Some(v) = parse(text) else { return };
        let (Some(method), Some(id)) = (v.get("method").and_then(Value::as_str), v.get("id"))
        else {
            return;
        };
        let tool = (method == "tools/call")
            .then(|| v.pointer("/params/name").and_then(Value::as_str))
            .flatten()
            .map(str::to_string);
        let applied = injector.decide(method, tool.as_deref());
        if applied.is_empty() {
            return;
        }
        open.insert(
            (session.map(str::to_string), id.to_string()),
            Open {
                method: method.to_string(),
                tool,
                applied,
                held: Vec::new(),
            },
        );
    }

    /// A server message going by: what to do with it.
    pub fn answer(&self, text: &str, session: Option<&str>) -> Plan {
        let mut st = self.lock();
        let State {
            injector,
            open,
            injected,
        } = &mut *st;
        let Some(injector) = injector.as_ref() else {
            return Plan::Pass;
        };
        let Some(v) = parse(text) else {
            return Plan::Pass;
        };
        let session_key = session.map(str::to_string);
        let is_response =
            v.get("method").is_none() && (v.get("result").is_some() || v.get("error").is_some());
        if !is_response {
            // A notification while a reordering request of the session is
            // open waits for that request's answer.
            if v.get("method").is_some() && v.get("id").is_none() {
                let reordering = open.iter_mut().find(|((s, _), o)| {
                    *s == session_key
                        && o.applied
                            .iter()
                            .any(|&i| injector.fault(i).kind == Kind::Reorder)
                });
                if let Some((_, o)) = reordering {
                    o.held.push(text.to_string());
                    return Plan::Hold;
                }
            }
            return Plan::Pass;
        }
        let Some(id) = v.get("id") else {
            return Plan::Pass;
        };
        // A request sent before its HTTP session had an id (`initialize`)
        // was seen without one.
        let Some(o) = open
            .remove(&(session_key.clone(), id.to_string()))
            .or_else(|| open.remove(&(None, id.to_string())))
        else {
            return Plan::Pass;
        };
        let mut lines = vec![text.to_string()];
        let mut delay_ms = 0;
        let mut cut = false;
        for &i in &o.applied {
            let f = injector.fault(i);
            match f.kind {
                Kind::Latency => delay_ms = f.ms,
                Kind::Drop => lines.clear(),
                Kind::Duplicate => lines.push(text.to_string()),
                Kind::Disconnect => cut = true,
                Kind::Reorder => {}
                k if k.rewrites() => lines = vec![inject::rewrite(f, &o.method, id, text)],
                _ => {}
            }
            injected.push((
                session_key.clone(),
                Injected {
                    exchange: None,
                    id: id.clone(),
                    method: o.method.clone(),
                    tool: o.tool.clone(),
                    fault: f.kind,
                    spec: f.spec.clone(),
                    detail: inject::detail(f),
                },
            ));
        }
        if cut {
            return Plan::Disconnect;
        }
        // Held notifications go after the answer, last first.
        lines.extend(o.held.into_iter().rev());
        if lines.len() == 1 && delay_ms == 0 && lines[0] == text {
            return Plan::Pass;
        }
        Plan::Deliver { lines, delay_ms }
    }

    /// What was injected in `session` (`None`: stdio's one session, or
    /// messages before HTTP named one), in order.
    pub fn injected(&self, session: Option<&str>) -> Vec<Injected> {
        self.lock()
            .injected
            .iter()
            .filter(|(s, _)| s.as_deref() == session)
            .map(|(_, i)| i.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn faults(specs: &[&str]) -> Faults {
        let all = specs
            .iter()
            .flat_map(|s| inject::parse(s).unwrap_or_default())
            .collect();
        Faults::new(Injector::new(all, 1))
    }

    const CALL: &str =
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
    const ANSWER: &str = r#"{"jsonrpc":"2.0","id":4,"result":{"content":[]}}"#;

    #[test]
    fn an_error_replaces_the_answer_and_is_recorded() {
        let f = faults(&["error:tool=echo"]);
        f.request(CALL, None);
        match f.answer(ANSWER, None) {
            Plan::Deliver { lines, delay_ms } => {
                assert_eq!(delay_ms, 0);
                assert!(lines[0].contains("-32603"), "{lines:?}");
            }
            other => panic!("{other:?}"),
        }
        let inj = f.injected(None);
        assert_eq!(inj.len(), 1);
        assert_eq!(inj[0].tool.as_deref(), Some("echo"));
        // Another answer of the same id is not faulted again.
        assert_eq!(f.answer(ANSWER, None), Plan::Pass);
    }

    #[test]
    fn reorder_holds_notifications_and_drop_and_disconnect() {
        let f = faults(&["reorder", "duplicate"]);
        f.request(CALL, None);
        let n1 = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#;
        let n2 = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2}}"#;
        assert_eq!(f.answer(n1, None), Plan::Hold);
        assert_eq!(f.answer(n2, None), Plan::Hold);
        assert_eq!(
            f.answer(ANSWER, None),
            Plan::Deliver {
                lines: vec![ANSWER.into(), ANSWER.into(), n2.into(), n1.into()],
                delay_ms: 0
            }
        );
        let f = faults(&["drop"]);
        f.request(CALL, None);
        assert_eq!(
            f.answer(ANSWER, None),
            Plan::Deliver {
                lines: vec![],
                delay_ms: 0
            }
        );
        let f = faults(&["disconnect:nth=1"]);
        f.request(CALL, None);
        assert_eq!(f.answer(ANSWER, None), Plan::Disconnect);
        assert!(!faults(&[]).active());
    }
}
