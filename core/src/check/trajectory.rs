//! Trajectory matchers over the trace's tool calls.

use super::model::{Matcher, Outcome, quote};
use crate::value::{plain, plain_eq};
use serde_json::Value;

fn names(trace: &[&Value]) -> String {
    let list: Vec<String> = trace
        .iter()
        .map(|e| e.get("tool").map(plain).unwrap_or_default())
        .collect();
    format!("[{}]", list.join(", "))
}

/// Evaluate a trajectory matcher over the trace entries.
pub(super) fn eval(m: &Matcher, trace: &[&Value], expected: String) -> Outcome {
    let tool_of = |e: &Value| {
        e.get("tool")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_default()
    };
    let actual = names(trace);
    match m {
        Matcher::TraceOrder(tools) => {
            if tools.is_empty() {
                return Outcome::pass(expected, actual);
            }
            let mut pos = 0;
            for e in trace {
                if tool_of(e) == tools[pos] {
                    pos += 1;
                    if pos == tools.len() {
                        return Outcome::pass(expected, actual);
                    }
                }
            }
            let reason = if pos == 0 {
                format!("order: {} not found in trace", quote(&tools[0]))
            } else {
                format!(
                    "order: found {} but {} did not follow (got: {actual})",
                    quote(&tools[pos - 1]),
                    quote(&tools[pos])
                )
            };
            Outcome::fail(expected, actual, reason)
        }
        Matcher::TracePresence(tools) => {
            for t in tools {
                if !trace.iter().any(|e| tool_of(e) == *t) {
                    let reason =
                        format!("presence: {} not found in trace (got: {actual})", quote(t));
                    return Outcome::fail(expected, actual, reason);
                }
            }
            Outcome::pass(expected, actual)
        }
        Matcher::TraceAbsence(tools) => {
            for e in trace {
                let t = tool_of(e);
                if tools.contains(&t) {
                    let reason = format!(
                        "absence: {} appeared in trace but should not have",
                        quote(&t)
                    );
                    return Outcome::fail(expected, actual, reason);
                }
            }
            Outcome::pass(expected, actual)
        }
        Matcher::TraceArgs { tool, args } => {
            let Some(call) = trace.iter().find(|e| tool_of(e) == *tool) else {
                let reason = format!(
                    "args_contain: {} not found in trace (got: {actual})",
                    quote(tool)
                );
                return Outcome::fail(expected, actual, reason);
            };
            let call_args = call.get("args").cloned().unwrap_or(Value::Null);
            let shown = crate::value::show_json(&call_args, crate::check::SHOW);
            for (k, want) in args {
                match call_args.get(k) {
                    None => {
                        let reason = format!(
                            "args_contain: {} called without arg {}",
                            quote(tool),
                            quote(k)
                        );
                        return Outcome::fail(expected, shown, reason);
                    }
                    Some(got) if !plain_eq(want, got) => {
                        let reason = format!(
                            "args_contain: {} arg {}: want {}, got {}",
                            quote(tool),
                            quote(k),
                            plain(want),
                            plain(got)
                        );
                        return Outcome::fail(expected, shown, reason);
                    }
                    Some(_) => {}
                }
            }
            Outcome::pass(expected, shown)
        }
        other => Outcome::error(
            expected,
            format!("{} is not a trajectory assertion", other.kind()),
        ),
    }
}
