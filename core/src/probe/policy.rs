//! Which tools are called by default.

use serde_json::Value;

/// Why a tool may write, from its `annotations`, or `None` when it is called
/// by default:
///
/// * `destructiveHint: true` → may write (even next to `readOnlyHint: true`:
///   contradictory hints are read the cautious way);
/// * `readOnlyHint: false`, said explicitly → may write (also with
///   `destructiveHint: false`: an additive write is still a write);
/// * no annotations, or hints that are absent or not booleans → called.
///
/// The MCP spec defaults an unannotated tool to "not read-only, possibly
/// destructive", and calls every hint untrusted. Skipping every tool without
/// annotations would skip most servers' tools, so only an explicit hint
/// skips one: a tool that writes without saying so is called, and the
/// annotations are the only protection a run without `--include-writes`
/// has.
pub fn write_risk(tool: &Value) -> Option<String> {
    let hints = tool.get("annotations")?;
    if hints.get("destructiveHint").and_then(Value::as_bool) == Some(true) {
        return Some("annotations.destructiveHint is true".into());
    }
    if hints.get("readOnlyHint").and_then(Value::as_bool) == Some(false) {
        return Some("annotations.readOnlyHint is false".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hints() {
        let table = [
            (json!({"name": "t"}), None),
            (json!({"annotations": {}}), None),
            (json!({"annotations": {"readOnlyHint": true}}), None),
            (
                json!({"annotations": {"readOnlyHint": true, "destructiveHint": true}}),
                Some("annotations.destructiveHint is true"),
            ),
            (
                json!({"annotations": {"destructiveHint": true}}),
                Some("annotations.destructiveHint is true"),
            ),
            (
                json!({"annotations": {"readOnlyHint": false, "destructiveHint": false}}),
                Some("annotations.readOnlyHint is false"),
            ),
            (json!({"annotations": {"destructiveHint": false}}), None),
            (json!({"annotations": {"readOnlyHint": "false"}}), None),
        ];
        for (tool, want) in table {
            assert_eq!(write_risk(&tool).as_deref(), want, "{tool}");
        }
    }
}
