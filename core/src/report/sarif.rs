//! SARIF 2.1.0, for code-scanning views (GitHub code scanning, IDE SARIF
//! viewers): every failing check becomes a result located at the YAML file
//! and line where that check is written, so the finding shows on the line
//! of the expectation that broke.
//!
//! ```json
//! { "$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
//!   "runs": [ { "tool": {"driver": {"name": "mcpcheck", "rules": [ … ]}},
//!               "results": [ { "ruleId": "check-failed", "ruleIndex": 0, "level": "error",
//!                              "message": {"text": "search finds rust › contains: expected text to contain 'rust'…"},
//!                              "locations": [ {"physicalLocation": {
//!                                  "artifactLocation": {"uri": "evals/search.yaml"},
//!                                  "region": {"startLine": 9}}} ] } ] } ] }
//! ```
//!
//! Rules, in this fixed order: `check-failed` (an expectation was false),
//! `check-error` (an expectation could not be evaluated),
//! `metric-below-threshold` (a gated derived metric), `test-failed` and
//! `test-error` (a test that did not pass with no failing check to point at:
//! a setup failure, a crash, a timeout). A check without a line of its own
//! points at the test's line. A flaky test (passed some trials, not all) is
//! reported at level `warning`, a test that never passed at `error`. A test
//! that passed on a retry (`--retries`, `"flaky": true`) is a `test-flaky`
//! result at level `note` at the test's line, carrying the message of each
//! attempt that did not pass.
//! Relative file names stay relative (code scanning resolves them against
//! the checkout); absolute ones become `file://` URIs.

use serde_json::{Value, json};

use crate::results::{CheckStatus, Results, TestResult, TestStatus};
use crate::score::round3;

struct Rule {
    id: &'static str,
    short: &'static str,
    full: &'static str,
}

const RULES: [Rule; 6] = [
    Rule {
        id: "check-failed",
        short: "An expectation was false",
        full: "The server's answer did not meet an expectation of an mcpcheck test.",
    },
    Rule {
        id: "check-error",
        short: "An expectation could not be evaluated",
        full: "mcpcheck could not evaluate an expectation (for example a path into a response that was not JSON).",
    },
    Rule {
        id: "metric-below-threshold",
        short: "A derived metric is below its threshold",
        full: "A weighted derived metric of an mcpcheck test scored below the threshold it gates on.",
    },
    Rule {
        id: "test-failed",
        short: "A test failed",
        full: "An mcpcheck test failed before or without a failing expectation (for example in setup or a hook).",
    },
    Rule {
        id: "test-error",
        short: "A test could not run",
        full: "An mcpcheck test could not be evaluated: the server crashed, timed out, or could not be reached.",
    },
    Rule {
        id: "test-flaky",
        short: "A test passed only on a retry",
        full: "An mcpcheck test did not pass at first and passed when it was run again (--retries): the server does not answer it reliably.",
    },
];

fn rule_index(id: &str) -> usize {
    RULES.iter().position(|r| r.id == id).unwrap_or(0)
}

/// A file name as a SARIF artifact URI: relative paths stay relative
/// (`\` as `/`, no leading `./`), absolute ones become `file://` URIs, and
/// anything outside the URI's unreserved characters is percent-encoded.
pub fn uri(file: &str) -> String {
    let path = crate::baseline::normalize_file(file);
    let drive = path.as_bytes().get(1) == Some(&b':') && path.as_bytes().get(2) == Some(&b'/');
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    } else if drive {
        out.push_str("file:///");
    }
    for (i, b) in path.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/')
            || (drive && i == 1 && b == b':');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn location(file: &str, line: Option<u32>) -> Vec<Value> {
    if file.is_empty() {
        return Vec::new();
    }
    let mut physical = json!({ "artifactLocation": { "uri": uri(file) } });
    if let Some(l) = line.filter(|l| *l > 0) {
        physical["region"] = json!({ "startLine": l });
    }
    vec![json!({ "physicalLocation": physical })]
}

fn level(t: &TestResult) -> &'static str {
    if t.flaky {
        return "note";
    }
    match &t.trials {
        Some(tr) if tr.pass_at_k => "warning",
        _ => "error",
    }
}

fn properties(t: &TestResult) -> Value {
    let mut p = json!({ "test": t.name, "status": t.outcome() });
    if t.attempts.len() > 1 {
        p["attempts"] = json!(t.attempts.len());
    }
    if let Some(tr) = &t.trials {
        p["trials"] = json!(tr.count);
        p["trialsPassed"] = json!(tr.passed);
    }
    p
}

fn result(t: &TestResult, rule: &str, text: String, line: Option<u32>, extra: Value) -> Value {
    let mut props = properties(t);
    if let (Value::Object(p), Value::Object(e)) = (&mut props, extra) {
        p.extend(e);
    }
    let mut text = text;
    if let Some(tr) = &t.trials {
        text.push_str(&format!("\n(passed {} of {} trials)", tr.passed, tr.count));
    }
    // A warning (an unset environment variable, a failed unsubscribe) is
    // often why the test failed: it travels with every result of the test.
    for w in &t.warnings {
        text.push_str(&format!("\nwarning: {w}"));
    }
    json!({
        "ruleId": rule,
        "ruleIndex": rule_index(rule),
        "level": level(t),
        "message": { "text": text },
        "locations": location(&t.file, line),
        "properties": props,
    })
}

fn test_results(t: &TestResult) -> Vec<Value> {
    let mut out = Vec::new();
    for c in t.checks.iter().filter(|c| c.status != CheckStatus::Pass) {
        let rule = if c.status == CheckStatus::Error {
            "check-error"
        } else {
            "check-failed"
        };
        let why = if c.reason.is_empty() {
            format!("expected {}", c.expected)
        } else {
            c.reason.clone()
        };
        let text = format!(
            "{} › {}: {why}\nexpected: {}\nactual: {}",
            t.name, c.name, c.expected, c.actual
        );
        let mut extra = json!({ "check": c.name, "target": c.target, "matcher": c.matcher });
        if let Some(s) = &c.set {
            extra["set"] = json!(s);
        }
        out.push(result(t, rule, text, c.line.or(t.line), extra));
    }
    for m in t.derived_metrics.iter().filter(|m| m.passed == Some(false)) {
        let th = m.threshold.map(round3).unwrap_or_default();
        let text = format!(
            "{} › metric {} = {} is below its threshold {th}",
            t.name,
            m.name,
            round3(m.value)
        );
        out.push(result(
            t,
            "metric-below-threshold",
            text,
            t.line,
            json!({ "metric": m.name }),
        ));
    }
    if out.is_empty() {
        let rule = if t.status == TestStatus::Error {
            "test-error"
        } else {
            "test-failed"
        };
        let why = if t.message.is_empty() {
            t.status.as_str().to_string()
        } else {
            t.message.clone()
        };
        out.push(result(
            t,
            rule,
            format!("{}: {why}", t.name),
            t.line,
            json!({}),
        ));
    }
    out
}

/// A test that passed on a retry: one `test-flaky` result at its line.
fn flaky_result(t: &TestResult) -> Value {
    let mut text = format!("{}: passed on attempt {}", t.name, t.attempts.len());
    for (i, a) in t.attempts.iter().enumerate() {
        if a.status.is_success() {
            continue;
        }
        let first = a.message.lines().next().unwrap_or("");
        text.push_str(&format!(
            "\nattempt {}: {} {first}",
            i + 1,
            a.status.as_str()
        ));
    }
    result(
        t,
        "test-flaky",
        text.trim_end().to_string(),
        t.line,
        json!({}),
    )
}

/// The run as a SARIF 2.1.0 log: one result per failing check of every test
/// that failed or errored, and one per flaky test.
pub fn render(r: &Results) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "name": rule.id,
                "shortDescription": { "text": rule.short },
                "fullDescription": { "text": rule.full },
                "defaultConfiguration": {
                    "level": if rule.id == "test-flaky" { "note" } else { "error" }
                },
            })
        })
        .collect();
    let results: Vec<Value> = r
        .tests
        .iter()
        .flat_map(|t| match t.status {
            TestStatus::Fail | TestStatus::Error => test_results(t),
            TestStatus::Pass if t.flaky => vec![flaky_result(t)],
            _ => Vec::new(),
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": r.tool.name,
                "version": r.tool.version,
                "semanticVersion": r.tool.version,
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        let table = [
            ("evals/a.yaml", "evals/a.yaml"),
            ("./evals/a.yaml", "evals/a.yaml"),
            ("evals\\a b.yaml", "evals/a%20b.yaml"),
            ("/home/ci/evals/a.yaml", "file:///home/ci/evals/a.yaml"),
            ("C:\\work\\a.yaml", "file:///C:/work/a.yaml"),
            ("évals/#1.yaml", "%C3%A9vals/%231.yaml"),
        ];
        for (file, want) in table {
            assert_eq!(uri(file), want, "{file}");
        }
    }

    #[test]
    fn an_errored_test_carries_its_warnings() {
        let mut t = TestResult::error("t", "a.yaml", Some(3), "HTTP 401 Unauthorized", 5);
        t.warnings
            .push("environment variable TOKEN is not set; `${TOKEN}` became empty".into());
        let results = test_results(&t);
        assert_eq!(results.len(), 1);
        assert_eq!(
            results[0]["message"]["text"],
            "t: HTTP 401 Unauthorized\nwarning: environment variable TOKEN is not set; `${TOKEN}` became empty"
        );
    }
}
