//! What the audit and fuzz reports share: the kinds of item, the transports,
//! how statuses are counted and how an input is shown.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::classify::Status;

/// What an audited item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Tool,
    Prompt,
    Resource,
}

impl ItemKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Tool => "tool",
            ItemKind::Prompt => "prompt",
            ItemKind::Resource => "resource",
        }
    }
}

/// How the server was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Stdio,
    /// Streamable HTTP.
    Http,
    /// The legacy HTTP+SSE transport.
    Sse,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }
}

/// The longest input shown in text and Markdown (JSON keeps it whole).
pub(crate) const SHOWN_INPUT: usize = 500;

/// `n` and a status as a noun agreeing with it: `2 timeouts`, `1 crash`.
pub(crate) fn counted(n: usize, s: Status) -> String {
    let (one, many) = match s {
        Status::Healthy => ("healthy", "healthy"),
        Status::ToolError => ("tool error", "tool errors"),
        Status::AcceptedInvalid => ("accepted invalid input", "accepted invalid inputs"),
        Status::Skipped => ("skipped", "skipped"),
        Status::SchemaMismatch => ("schema mismatch", "schema mismatches"),
        Status::InvalidResult => ("invalid result", "invalid results"),
        Status::NonJsonOutput => ("non-JSON output", "non-JSON outputs"),
        Status::ProtocolError => ("protocol error", "protocol errors"),
        Status::Flood => ("flood", "floods"),
        Status::Timeout => ("timeout", "timeouts"),
        Status::Crash => ("crash", "crashes"),
    };
    crate::report::plural(n, one, many)
}

/// The statuses counted, most serious first: `1 crash, 2 protocol errors`.
pub(crate) fn breakdown(statuses: &[Status]) -> String {
    let parts: Vec<String> = Status::ALL
        .iter()
        .rev()
        .filter_map(|s| {
            let n = statuses.iter().filter(|x| *x == s).count();
            (n > 0).then(|| counted(n, *s))
        })
        .collect();
    parts.join(", ")
}

/// A value as compact JSON, cut to [`SHOWN_INPUT`] characters with its full
/// length named.
pub(crate) fn shown(v: &Value) -> String {
    let text = v.to_string();
    let n = text.chars().count();
    if n <= SHOWN_INPUT {
        text
    } else {
        format!(
            "{} ({n} characters in all)",
            crate::truncate(&text, SHOWN_INPUT)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs() {
        use serde_json::json;
        let long = json!("x".repeat(600));
        assert!(shown(&long).ends_with("(602 characters in all)"));
        assert_eq!(shown(&json!({"a": 1})), r#"{"a":1}"#);
    }
}
