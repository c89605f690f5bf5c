//! Which tools are called by default.

use std::collections::HashMap;

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

/// Write risks judged by name over a whole listing. A `tools/call` names
/// its tool, so when a listing holds two tools of the same name a call may
/// reach either: each is judged by the most cautious reading of all of
/// them.
#[derive(Clone, Debug, Default)]
pub struct WriteRisks {
    /// For each name listed more than once: the first reason one of its
    /// tools may write, and whether every one of them says it is read-only.
    shared: HashMap<String, (Option<String>, bool)>,
}

impl WriteRisks {
    pub fn new(tools: &[Value]) -> Self {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for t in tools {
            if let Some(n) = t.get("name").and_then(Value::as_str) {
                *seen.entry(n).or_default() += 1;
            }
        }
        let mut shared: HashMap<String, (Option<String>, bool)> = HashMap::new();
        for t in tools {
            let Some(n) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            if seen.get(n).copied().unwrap_or(0) < 2 {
                continue;
            }
            let entry = shared.entry(n.to_string()).or_insert((None, true));
            if entry.0.is_none() {
                entry.0 = write_risk(t);
            }
            entry.1 &= says_read_only(t);
        }
        WriteRisks { shared }
    }

    /// Why `tool` may write: its own hints ([`write_risk`]), else those of
    /// another listed tool of the same name.
    pub fn of(&self, tool: &Value) -> Option<String> {
        if let Some(own) = write_risk(tool) {
            return Some(own);
        }
        let name = tool.get("name").and_then(Value::as_str)?;
        let (other, _) = self.shared.get(name)?;
        other
            .as_ref()
            .map(|why| format!("another listed tool is also named `{name}` and its {why}"))
    }

    /// Whether `tool` says it changes nothing (`readOnlyHint: true`, not
    /// `destructiveHint: true`), and so does every other listed tool of the
    /// same name.
    pub fn read_only(&self, tool: &Value) -> bool {
        if !says_read_only(tool) {
            return false;
        }
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        self.shared.get(name).is_none_or(|(_, all)| *all)
    }

    /// Names listed more than once, sorted.
    pub fn duplicated(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.shared.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }
}

fn says_read_only(tool: &Value) -> bool {
    let hints = tool.get("annotations");
    let flag = |k: &str| hints.and_then(|h| h.get(k)).and_then(Value::as_bool);
    flag("readOnlyHint") == Some(true) && flag("destructiveHint") != Some(true)
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

    #[test]
    fn a_name_listed_twice_is_judged_by_all_its_tools() {
        let tools = [
            json!({"name": "wipe", "annotations": {"destructiveHint": true}}),
            json!({"name": "wipe"}),
            json!({"name": "read", "annotations": {"readOnlyHint": true}}),
            json!({"name": "read", "annotations": {"readOnlyHint": false}}),
            json!({"name": "solo"}),
            json!({"name": "safe", "annotations": {"readOnlyHint": true}}),
        ];
        let risks = WriteRisks::new(&tools);
        assert_eq!(
            risks.of(&tools[0]).as_deref(),
            Some("annotations.destructiveHint is true")
        );
        assert_eq!(
            risks.of(&tools[1]).as_deref(),
            Some(
                "another listed tool is also named `wipe` and its annotations.destructiveHint is true"
            )
        );
        assert!(risks.of(&tools[2]).is_some());
        assert_eq!(risks.of(&tools[4]), None);
        assert!(!risks.read_only(&tools[2]), "its twin may write");
        assert!(risks.read_only(&tools[5]));
        assert_eq!(risks.duplicated(), ["read", "wipe"]);
        // Without the listing, the twin would be called.
        assert_eq!(write_risk(&tools[1]), None);
    }
}
