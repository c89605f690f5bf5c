//! How long `audit` and `fuzz` wait for one call: [`call_wait`].
//!
//! A fixed limit makes false findings: a tool that takes 10 s by design
//! (server-everything's `trigger-long-running-operation`) is not hung at
//! 10 s. So the wait comes from what the tool says about itself:
//!
//! * a base: `--timeout`, else [`DEFAULT_CALL_TIMEOUT_MS`] (30 s);
//! * the tool's documented duration, when it documents one, twice over: a
//!   property of its input schema about time (`duration`, `delay`,
//!   `sleep`, `wait`, `timeout`, `interval`, `seconds`, `…Ms`) with a
//!   numeric `default`, in the unit its name or description gives (seconds
//!   unless it says milliseconds or minutes), times a count property's
//!   default (`steps`, `count`, `iterations`, `repeat`, `times`) when the
//!   time is per step (its name says `interval` or `delay`, or its
//!   description says per, each or between); and durations written in the
//!   description or the annotations (`takes about 10 seconds`, `up to 2
//!   minutes`). The longest counts;
//! * progress: every `notifications/progress` for the call's token starts
//!   the wait again, up to a hard cap ([`MAX_CALL_MS`], or the wait itself
//!   when that is longer), so a long operation that reports its progress is
//!   waited for and one that stops reporting is not.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::schema::effective;

/// How long a call may go without an answer or progress when nothing says
/// otherwise: audit's 30 s, for fuzz too.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 30_000;

/// The longest a call is waited for however often progress arrives: 5
/// minutes (or the wait itself, when the tool documents a longer one).
pub const MAX_CALL_MS: u64 = 300_000;

/// How long to wait for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallWait {
    /// How long the call may go without an answer or progress.
    pub idle_ms: u64,
    /// The longest it is waited for, progress or not.
    pub cap_ms: u64,
    /// The duration the tool documents, when it raised the wait: where it
    /// was read and how long it is (`inputSchema duration default 10 s`).
    pub documented: Option<String>,
}

/// The wait for a call of `tool` (an item of `tools/list`), from `base_ms`
/// (`--timeout`, else [`DEFAULT_CALL_TIMEOUT_MS`]); see the module doc.
pub fn call_wait(tool: &Value, base_ms: u64) -> CallWait {
    let documented = documented_ms(tool);
    let idle_ms = match &documented {
        Some((ms, _)) => base_ms.max(ms.saturating_mul(2)),
        None => base_ms,
    };
    CallWait {
        idle_ms,
        cap_ms: idle_ms.max(MAX_CALL_MS),
        documented: documented
            .filter(|(ms, _)| ms.saturating_mul(2) > base_ms)
            .map(|(_, why)| why),
    }
}

static IN_TEXT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d+(?:\.\d+)?)\s*-?\s*(milliseconds?|millis|ms|seconds?|secs?|s|minutes?|mins?)\b",
    )
    .ok()
});

/// Milliseconds in one `unit` as written (`ms`, `seconds`, `min`, …).
fn unit_ms(unit: &str) -> f64 {
    let u = unit.to_ascii_lowercase();
    if u.starts_with("ms") || u.starts_with("milli") {
        1.0
    } else if u.starts_with("min") {
        60_000.0
    } else {
        1_000.0
    }
}

fn to_ms(value: f64, per_unit: f64) -> Option<u64> {
    let ms = value * per_unit;
    (ms.is_finite() && ms > 0.0).then(|| ms.min(u64::MAX as f64) as u64)
}

/// The longest duration the tool documents, in milliseconds, and where.
fn documented_ms(tool: &Value) -> Option<(u64, String)> {
    let mut found: Vec<(u64, String)> = Vec::new();
    if let Some(schema) = tool.get("inputSchema").filter(|s| s.is_object()) {
        found.extend(from_schema(schema));
    }
    let mut texts: Vec<(&str, &str)> = Vec::new();
    if let Some(d) = tool.get("description").and_then(Value::as_str) {
        texts.push(("the description", d));
    }
    if let Some(Value::Object(a)) = tool.get("annotations") {
        texts.extend(
            a.values()
                .filter_map(Value::as_str)
                .map(|t| ("the annotations", t)),
        );
    }
    if let Some(re) = IN_TEXT.as_ref() {
        for (place, text) in texts {
            for c in re.captures_iter(text) {
                let (Some(n), Some(unit)) = (c.get(1), c.get(2)) else {
                    continue;
                };
                let Some(ms) = n
                    .as_str()
                    .parse::<f64>()
                    .ok()
                    .and_then(|v| to_ms(v, unit_ms(unit.as_str())))
                else {
                    continue;
                };
                found.push((ms, format!("{place} says {}", &c[0])));
            }
        }
    }
    found.into_iter().max_by_key(|(ms, _)| *ms)
}

/// A name's words run together, lower case: `step_Duration-ms` → `stepdurationms`.
fn squashed(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The durations the input schema's properties document by their defaults.
fn from_schema(schema: &Value) -> Vec<(u64, String)> {
    let top = effective(schema, schema);
    let props: Vec<(&str, super::schema::Node<'_>)> = top
        .properties()
        .iter()
        .map(|(name, s)| (*name, effective(s, schema)))
        .collect();
    let default_of = |p: &super::schema::Node<'_>| p.get("default").and_then(Value::as_f64);
    let description = |p: &super::schema::Node<'_>| {
        p.get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let count = props.iter().find_map(|(name, p)| {
        let n = squashed(name);
        let counts = [
            "steps",
            "count",
            "iterations",
            "repeat",
            "repetitions",
            "times",
        ]
        .iter()
        .any(|w| n == *w || n.ends_with(w));
        counts
            .then(|| default_of(p).filter(|c| *c >= 1.0))
            .flatten()
            .map(|c| (c, *name))
    });
    let mut out = Vec::new();
    for (name, p) in &props {
        let n = squashed(name);
        let about_time = [
            "duration", "delay", "sleep", "wait", "timeout", "interval", "seconds", "secs",
            "millis",
        ]
        .iter()
        .any(|w| n.contains(w))
            || n.ends_with("ms");
        let Some(value) = default_of(p).filter(|_| about_time) else {
            continue;
        };
        let desc = description(p);
        let per_unit = if n.ends_with("ms") || n.contains("millis") || desc.contains("millisecond")
        {
            1.0
        } else if n.contains("minute") || desc.contains("minute") {
            60_000.0
        } else {
            1_000.0
        };
        let per_step = n.contains("interval")
            || n.contains("delay")
            || ["per ", "each ", "between "]
                .iter()
                .any(|w| desc.contains(w));
        let (times, by) = match (per_step, count) {
            (true, Some((c, by))) => (c, format!(" × {by} default {c}")),
            _ => (1.0, String::new()),
        };
        if let Some(ms) = to_ms(value * times, per_unit) {
            out.push((
                ms,
                format!("inputSchema `{name}` default {value}{by} ({} ms)", ms),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value, description: &str) -> Value {
        json!({"name": "t", "description": description, "inputSchema": schema})
    }

    #[test]
    fn a_long_running_operation_is_waited_for_as_long_as_it_says() {
        // server-everything's trigger-long-running-operation.
        let t = tool(
            json!({"type": "object", "properties": {
                "duration": {"type": "number", "default": 10, "description": "Duration of the operation in seconds"},
                "steps": {"type": "number", "default": 5, "description": "Number of steps in the operation"}}}),
            "Demonstrates a long running operation with progress updates",
        );
        let w = call_wait(&t, 10_000);
        assert_eq!((w.idle_ms, w.cap_ms), (20_000, MAX_CALL_MS));
        assert!(
            w.documented
                .as_deref()
                .is_some_and(|d| d.contains("`duration` default 10")),
            "{w:?}"
        );
        // The base is longer: it stands.
        assert_eq!(call_wait(&t, DEFAULT_CALL_TIMEOUT_MS).idle_ms, 30_000);
        assert_eq!(call_wait(&t, DEFAULT_CALL_TIMEOUT_MS).documented, None);
    }

    #[test]
    fn per_step_times_count_and_units_and_the_description() {
        let t = tool(
            json!({"type": "object", "properties": {
                "stepDelayMs": {"type": "integer", "default": 2000},
                "steps": {"type": "integer", "default": 20}}}),
            "",
        );
        assert_eq!(call_wait(&t, 1_000).idle_ms, 80_000);
        let t = tool(
            json!({"type": "object"}),
            "Indexes the repository; takes up to 2 minutes.",
        );
        let w = call_wait(&t, 30_000);
        assert_eq!(w.idle_ms, 240_000);
        assert_eq!(w.cap_ms, MAX_CALL_MS);
        assert!(
            w.documented
                .as_deref()
                .is_some_and(|d| d.contains("2 minutes")),
            "{w:?}"
        );
        let t = json!({"name": "t", "annotations": {"title": "Slow report (45s)"}});
        assert_eq!(call_wait(&t, 30_000).idle_ms, 90_000);
        // Nothing about time: the base.
        let t = tool(
            json!({"type": "object", "properties": {"count": {"type": "integer", "default": 3},
                   "timezone": {"type": "string", "default": "UTC"}}}),
            "Returns the last 30 days of data.",
        );
        assert_eq!(
            call_wait(&t, 30_000),
            CallWait {
                idle_ms: 30_000,
                cap_ms: MAX_CALL_MS,
                documented: None
            }
        );
        // A documented wait longer than the cap raises the cap too.
        let t = tool(json!({"type": "object"}), "Runs for 10 minutes.");
        let w = call_wait(&t, 30_000);
        assert_eq!((w.idle_ms, w.cap_ms), (1_200_000, 1_200_000));
    }
}
