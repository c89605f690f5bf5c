//! Traces: the sequence of tool calls trajectory checks look at.
//!
//! A trace comes inline (`trace:` in the suite) or from a JSONL audit log
//! given as text (one object per line with a `"tool"` string and optional
//! `"args"` object; lines without `"tool"` are other events and are skipped,
//! as mcp-assert does). Assertions (`trajectory:`) compile into ordinary
//! checks whose target is the `trace` of the observation
//! `{"trace": [{"tool": …, "args": {…}}, …]}`, so they are scored and reported
//! like any other check:
//!
//! * `order`: the listed tools appear in this order, not necessarily adjacent;
//! * `presence`: every listed tool appears at least once;
//! * `absence`: none of the listed tools appears;
//! * `args_contain`: the first call of `tool` has every listed argument, values
//!   compared by plain string form (mcp-assert's rule: later calls of the same
//!   tool are not consulted).

use serde_json::{Value, json};

use crate::diag::{Diagnostic, Span};
use crate::read::LoadCx;
use crate::yaml::Node;

/// One tool call of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEntry {
    pub tool: String,
    pub args: Value,
}

/// The observation a trajectory's checks look at. It takes the trace, so
/// the arguments of a long one are not held twice.
pub fn observation(trace: Vec<TraceEntry>) -> Value {
    json!({
        "trace": trace
            .into_iter()
            .map(|e| json!({"tool": e.tool, "args": e.args}))
            .collect::<Vec<_>>()
    })
}

/// Read an inline `trace:` list.
pub fn read_trace(cx: &mut LoadCx, node: &Node) -> Vec<TraceEntry> {
    let Some(items) = cx.seq(node, "trace") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if items.len() > MAX_TRACE_CALLS {
        cx.diags.push(too_many_calls(&cx.file, node.span.line));
        return out;
    }
    for item in items {
        let entries = cx.struct_entries(item, "trace entry", &["tool", "args"]);
        let mut tool = None;
        let mut args = Value::Object(Default::default());
        for (k, _, v) in entries {
            match k {
                "tool" => tool = cx.name(v, "tool"),
                _ => {
                    if v.as_map().is_some() || v.is_null() {
                        if !v.is_null() {
                            args = v.to_json();
                        }
                    } else {
                        cx.error(
                            v.span,
                            format!("`args` must be a mapping, not {}", v.type_name()),
                        );
                    }
                }
            }
        }
        match tool {
            Some(tool) => out.push(TraceEntry { tool, args }),
            None => {
                if item.as_map().is_some() {
                    cx.error(item.span, "a trace entry needs `tool`");
                }
            }
        }
    }
    out
}

/// The most calls a trace may hold: an agent's session makes hundreds; a
/// longer log is checked in parts. Each call's arguments stay in memory
/// while the trace is checked.
pub const MAX_TRACE_CALLS: usize = 100_000;

/// The most JSON values the arguments of a trace's calls may hold together
/// (a value takes about 50 bytes once read).
pub const MAX_TRACE_VALUES: usize = 4_000_000;

/// The number of JSON values in `v` (itself included).
fn values_in(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(values_in).sum::<usize>(),
        Value::Object(map) => 1 + map.values().map(values_in).sum::<usize>(),
        _ => 1,
    }
}

fn too_many_values(file: &str, line: u32) -> Diagnostic {
    Diagnostic::error(
        file,
        Span::new(line, 1, line, 2),
        format!("the arguments of the trace's calls hold more than {MAX_TRACE_VALUES} values"),
    )
    .with_hint("check the trace in parts (e.g. split the log by session or by day)")
}

fn too_many_calls(file: &str, line: u32) -> Diagnostic {
    Diagnostic::error(
        file,
        Span::new(line, 1, line, 2),
        format!("the trace holds more than {MAX_TRACE_CALLS} calls"),
    )
    .with_hint("check the trace in parts (e.g. split the log by session or by day)")
}

/// Parse a JSONL audit log. `file` names it in diagnostics.
pub fn parse_audit_log(file: &str, text: &str) -> Result<Vec<TraceEntry>, Diagnostic> {
    let mut out = Vec::new();
    let mut values = 0usize;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let n = (i + 1) as u32;
        if out.len() == MAX_TRACE_CALLS {
            return Err(too_many_calls(file, n));
        }
        let mut v: Value = serde_json::from_str(line).map_err(|e| {
            Diagnostic::error(file, Span::new(n, 1, n, 2), format!("audit log line {n} is not valid JSON: {e}"))
                .with_hint("an audit log has one JSON object per line, e.g. {\"tool\": \"read_file\", \"args\": {…}}")
        })?;
        let Some(tool) = v
            .get("tool")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        else {
            continue;
        };
        let tool = tool.to_string();
        let args = match v.get_mut("args").map(Value::take) {
            Some(a @ Value::Object(_)) => a,
            _ => Value::Object(Default::default()),
        };
        values = values.saturating_add(values_in(&args));
        if values > MAX_TRACE_VALUES {
            return Err(too_many_values(file, n));
        }
        out.push(TraceEntry { tool, args });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Facts;
    use crate::expect::Expectations;
    use crate::expect::compile_trajectory as compile;
    use crate::score::{Verdict, score};
    use crate::yaml::parse;

    fn run(trace_yaml: &str, assertions_yaml: &str) -> crate::score::Scored {
        let mut cx = LoadCx::new("t");
        let trace = read_trace(
            &mut cx,
            &parse("t", trace_yaml).unwrap_or_else(|d| panic!("{d:?}")),
        );
        let items = compile(
            &mut cx,
            &parse("t", assertions_yaml).unwrap_or_else(|d| panic!("{d:?}")),
        );
        assert!(cx.diags.is_empty(), "{:?}", cx.diags);
        let exp = Expectations {
            items,
            ..Expectations::default()
        };
        score(&exp, &observation(trace), &Facts::default())
    }

    const TRACE: &str = "- tool: prepare_rename\n  args: {file_path: main.go, line: 6}\n- tool: rename_symbol\n  args: {new_name: Entity}\n";

    #[test]
    fn passing_trajectory() {
        let s = run(
            TRACE,
            "- type: order\n  tools: [prepare_rename, rename_symbol]\n- type: absence\n  tools: [apply_edit]\n- type: presence\n  tools: [rename_symbol]\n- type: args_contain\n  tool: prepare_rename\n  args: {line: '6'}\n",
        );
        assert_eq!(s.verdict, Verdict::Pass, "{:?}", s.checks);
    }

    #[test]
    fn failing_trajectory_reports_every_failure() {
        let s = run(
            TRACE,
            "- type: order\n  tools: [rename_symbol, prepare_rename]\n- type: absence\n  tools: [rename_symbol]\n- type: args_contain\n  tool: prepare_rename\n  args: {line: 7}\n",
        );
        assert_eq!(s.verdict, Verdict::Fail);
        let reasons: Vec<&str> = s.checks.iter().map(|c| c.outcome.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "order: found 'rename_symbol' but 'prepare_rename' did not follow (got: [prepare_rename, rename_symbol])",
                "absence: 'rename_symbol' appeared in trace but should not have",
                "args_contain: 'prepare_rename' arg 'line': want 7, got 6",
            ]
        );
    }

    /// Diagnostics of compiling `assertions_yaml`: (line, error?, message).
    fn diagnostics(assertions_yaml: &str) -> Vec<(u32, bool, String)> {
        let mut cx = LoadCx::new("t");
        let node = parse("t", assertions_yaml).unwrap_or_else(|d| panic!("{d:?}"));
        let _ = compile(&mut cx, &node);
        cx.diags
            .iter()
            .map(|d| (d.span.line, d.is_error(), d.message.clone()))
            .collect()
    }

    #[test]
    fn a_negative_weight_is_an_error() {
        let d = diagnostics(
            "- type: presence\n  tools: [a]\n  weight: -2\n- type: absence\n  tools: [b]\n  weight: 0\n",
        );
        assert_eq!(d, [(3, true, "`weight` must not be negative".to_string())]);
    }

    #[test]
    fn audit_log_lines() {
        let log = "{\"tool\":\"a\",\"args\":{\"x\":1}}\n\n{\"action\":\"session_start\"}\n{\"tool\":\"b\"}\n";
        let t = parse_audit_log("log.jsonl", log).unwrap_or_default();
        assert_eq!(t.len(), 2);
        assert_eq!(t[1].tool, "b");
        let err = parse_audit_log("log.jsonl", "{\"tool\":\"a\"}\nnot json\n").err();
        assert_eq!(err.map(|e| e.span.line), Some(2));
    }

    #[test]
    fn a_trace_is_bounded_in_calls_and_values() {
        let calls = "{\"tool\":\"a\"}\n".repeat(MAX_TRACE_CALLS + 1);
        let err = parse_audit_log("log.jsonl", &calls).err();
        assert_eq!(
            err.map(|e| (e.span.line, e.message)),
            Some((
                MAX_TRACE_CALLS as u32 + 1,
                "the trace holds more than 100000 calls".to_string()
            ))
        );
        assert_eq!(
            parse_audit_log("log.jsonl", &calls[..calls.len() - 14]).map(|t| t.len()),
            Ok(MAX_TRACE_CALLS)
        );

        let half = vec!["1"; MAX_TRACE_VALUES / 2].join(",");
        let line = format!("{{\"tool\":\"a\",\"args\":{{\"x\":[{half}]}}}}\n");
        // Half the values, plus the map and the list: one line fits, two do not.
        assert!(parse_audit_log("log.jsonl", &line).is_ok());
        let err = parse_audit_log("log.jsonl", &line.repeat(2)).err();
        assert_eq!(err.map(|e| e.span.line), Some(2));
    }
}
