//! What the audit and fuzz renderers share: how a status looks, how an
//! input is shown, the SARIF rules, safe Markdown code blocks.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::classify::{Level, Status};
use crate::diag::Style;

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

pub(crate) fn style(s: Status) -> Style {
    match s {
        Status::Skipped => Style::Skip,
        _ => match s.level() {
            Level::Pass => Style::Pass,
            Level::Note => Style::Dim,
            Level::Warning => Style::Warning,
            Level::Error => Style::Error,
        },
    }
}

pub(crate) fn icon(s: Status) -> &'static str {
    match s {
        Status::Skipped => "⏭️",
        _ => match s.level() {
            Level::Pass => "✅",
            Level::Note => "ℹ️",
            Level::Warning => "⚠️",
            Level::Error => "❌",
        },
    }
}

/// A status in words: `protocol error`.
pub(crate) fn words(s: Status) -> String {
    s.as_str().replace('_', " ")
}

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

/// A Markdown fenced code block that its content cannot close.
pub(crate) fn fenced(lang: &str, text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let clean: String = text
        .chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    format!("{fence}{lang}\n{clean}\n{fence}\n")
}

struct Rule {
    status: Status,
    id: &'static str,
    short: &'static str,
}

/// One SARIF rule per status worth reporting, in this fixed order.
const RULES: [Rule; 7] = [
    Rule {
        status: Status::Crash,
        id: "crash",
        short: "The server exited or dropped the connection during a call",
    },
    Rule {
        status: Status::Timeout,
        id: "timeout",
        short: "The server did not answer a call in time",
    },
    Rule {
        status: Status::ProtocolError,
        id: "protocol-error",
        short: "A JSON-RPC error where a tool error belongs, or an internal error",
    },
    Rule {
        status: Status::NonJsonOutput,
        id: "non-json-output",
        short: "The server wrote lines that are not JSON-RPC on stdout",
    },
    Rule {
        status: Status::InvalidResult,
        id: "invalid-result",
        short: "A result without the shape its method requires",
    },
    Rule {
        status: Status::SchemaMismatch,
        id: "schema-mismatch",
        short: "structuredContent does not satisfy the tool's outputSchema",
    },
    Rule {
        status: Status::AcceptedInvalid,
        id: "accepted-invalid",
        short: "An input that violates the input schema was accepted",
    },
];

/// One finding for a SARIF log.
pub(crate) struct SarifFinding<'a> {
    pub kind: ItemKind,
    pub item: &'a str,
    pub status: Status,
    pub text: String,
    /// Distinguishes findings of one item and status (a fuzz case label).
    pub key: &'a str,
    pub properties: Value,
}

/// A SARIF 2.1.0 log of `findings` (those of a status without a rule are
/// left out). With `artifact`, every result points at that file (code
/// scanning needs a file); each also names its item as a logical location.
pub(crate) fn sarif(server: &str, findings: &[SarifFinding<'_>], artifact: Option<&str>) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            let level = match r.status.level() {
                Level::Warning => "warning",
                _ => "error",
            };
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.short},
                "defaultConfiguration": {"level": level},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .filter_map(|f| {
            let index = RULES.iter().position(|r| r.status == f.status)?;
            let rule = RULES.get(index)?;
            let kind = if f.kind == ItemKind::Resource {
                "resource"
            } else {
                "function"
            };
            let qualified = format!("{server}/{}/{}", f.kind.as_str(), f.item);
            let location = crate::report::sarif::item_location(f.item, &qualified, kind, artifact);
            let level = if f.status.level() == Level::Warning {
                "warning"
            } else {
                "error"
            };
            Some(json!({
                "ruleId": rule.id,
                "ruleIndex": index,
                "level": level,
                "message": {"text": f.text},
                "locations": [location],
                "partialFingerprints": {
                    "mcpcheckFinding/v1": fingerprint(f),
                },
                "properties": f.properties,
            }))
        })
        .collect();
    crate::report::sarif::catalogue_log("mcpcheck", rules, results)
}

/// What identifies a finding across runs: kind, item, status and key.
fn fingerprint(f: &SarifFinding<'_>) -> String {
    let mut id = format!("{}:{}:{}", f.kind.as_str(), f.item, f.status.as_str());
    if !f.key.is_empty() {
        id.push(':');
        id.push_str(f.key);
    }
    id
}

/// A JUnit document, or a comment saying why it could not be written.
pub(crate) fn junit_text(report: &quick_junit::Report) -> String {
    report.to_string().unwrap_or_else(|e| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- mcpcheck could not serialize the JUnit report: {} -->\n<testsuites name=\"mcpcheck\"/>\n",
            e.to_string().replace("--", "- -")
        )
    })
}

/// Pretty JSON with a final newline.
pub(crate) fn json_text<T: Serialize>(v: &T) -> String {
    let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_inputs() {
        assert_eq!(fenced("json", "a ``` b"), "````json\na ``` b\n````\n");
        assert_eq!(fenced("", "x\u{1b}y"), "```\nx\u{FFFD}y\n```\n");
        let long = json!("x".repeat(600));
        assert!(shown(&long).ends_with("(602 characters in all)"));
        assert_eq!(shown(&json!({"a": 1})), r#"{"a":1}"#);
    }
}
