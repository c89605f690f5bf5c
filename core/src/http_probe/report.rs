//! HTTP probe findings rendered: the JSON contract, text, Markdown and SARIF
//! 2.1.0. Each is a pure function of the URL and the findings.
//!
//! The JSON contract (`version` 1):
//!
//! ```json
//! { "version": 1, "url": "http://127.0.0.1:8080/mcp",
//!   "findings": [ { "code": "H101", "severity": "high", "probe": "origin",
//!                   "message": "an initialize sent with `Origin: http://evil.example` was served …",
//!                   "evidence": "HTTP 200: {\"jsonrpc\":\"2.0\",…" } ] }
//! ```

use serde::Serialize;
use serde_json::{Value, json};

use super::Finding;
use super::rules::{ALL, Rule};
use crate::diag::{Paint, Style};
use crate::report::{markdown::escape, plural};

/// The version of the JSON contract.
pub const JSON_VERSION: u32 = 1;

/// The JSON contract, pretty-printed, with a final newline.
pub fn json(url: &str, findings: &[Finding]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        version: u32,
        url: &'a str,
        findings: &'a [Finding],
    }
    let doc = Doc {
        version: JSON_VERSION,
        url,
        findings,
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

fn totals(findings: &[Finding]) -> String {
    crate::scan::report::totals_of(findings.iter().map(|f| f.severity))
}

/// For terminals and logs: the URL, one line per finding
/// (`  H101 high  origin  message`) and its evidence, then the totals.
pub fn text(url: &str, findings: &[Finding], paint: Paint) -> String {
    let mut out = format!("{}\n", paint.paint(Style::Bold, &paint.text(url)));
    if findings.is_empty() {
        out.push_str(&format!("{}\n", paint.paint(Style::Pass, "no findings")));
        return out;
    }
    for f in findings {
        crate::scan::report::push_finding(
            &mut out,
            paint,
            f.code,
            f.severity,
            &f.probe,
            &f.message,
            &f.evidence,
        );
    }
    out.push_str(&format!(
        "\n{}: {}\n",
        plural(findings.len(), "finding", "findings"),
        totals(findings)
    ));
    out
}

/// For job summaries: the URL and totals, then a table of every finding
/// (cells escaped).
pub fn markdown(url: &str, findings: &[Finding]) -> String {
    let mut out = format!("### mcpcheck probe\n\n<code>{}</code>\n\n", escape(url));
    if findings.is_empty() {
        out.push_str("No findings.\n");
        return out;
    }
    out.push_str(&format!("**{}**\n\n", totals(findings)));
    out.push_str("| Code | Severity | Probe | Message | Evidence |\n|---|---|---|---|---|\n");
    for f in findings {
        out.push_str(&format!(
            "| {} | {} | {} | {} | <code>{}</code> |\n",
            f.code,
            f.severity.as_str(),
            escape(&f.probe),
            escape(&f.message),
            escape(&f.evidence)
        ));
    }
    out
}

/// SARIF 2.1.0 for code-scanning views: every rule of the catalogue with its
/// help text, one result per finding, located at the probe of the URL.
pub fn sarif(url: &str, findings: &[Finding]) -> String {
    use crate::report::sarif::{catalogue_log, documented_rule, item_location};
    let rules: Vec<Value> = ALL
        .iter()
        .map(|rule| {
            let info = rule.info();
            let properties = json!({ "source": info.source, "severity": info.severity.as_str() });
            documented_rule(
                info.code,
                info.title,
                info.rationale,
                info.source,
                info.severity.sarif_level(),
                properties,
            )
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let index = Rule::from_code(f.code).map_or(0, Rule::index);
            json!({
                "ruleId": f.code,
                "ruleIndex": index,
                "level": f.severity.sarif_level(),
                "message": { "text": format!("{} {}: {} ({})", url, f.probe, f.message, f.evidence) },
                "locations": [item_location(&f.probe, &format!("{url}#{}", f.probe), "resource", None)],
                "properties": { "url": url, "probe": f.probe, "severity": f.severity.as_str() },
            })
        })
        .collect();
    catalogue_log("mcpcheck probe", rules, results)
}

#[cfg(test)]
mod tests {
    use super::super::Severity;
    use super::*;

    const URL: &str = "http://127.0.0.1:9/mcp";

    fn sample() -> Vec<Finding> {
        vec![Finding {
            code: "H101",
            severity: Severity::High,
            probe: "origin".into(),
            message: "served | a foreign Origin".into(),
            evidence: "HTTP 200: {}".into(),
        }]
    }

    #[test]
    fn json_contract() {
        let doc: Value = serde_json::from_str(&json(URL, &sample())).unwrap_or_default();
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["url"], URL);
        let first = &doc["findings"][0];
        let mut keys: Vec<&str> = first
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        assert_eq!(keys, ["code", "evidence", "message", "probe", "severity"]);
        assert_eq!(first["severity"], "high");
    }

    #[test]
    fn renderers() {
        let shown = text(URL, &sample(), Paint::Plain);
        assert!(
            shown.starts_with("http://127.0.0.1:9/mcp\n  H101 high  origin  served"),
            "{shown}"
        );
        assert!(
            shown.ends_with("1 finding: 1 high, 0 medium, 0 low, 0 info\n"),
            "{shown}"
        );
        assert_eq!(
            text(URL, &[], Paint::Plain),
            format!("{URL}\nno findings\n")
        );
        assert!(markdown(URL, &sample()).contains("&#124;"));
        assert!(markdown(URL, &[]).ends_with("No findings.\n"));
        let log: Value = serde_json::from_str(&sarif(URL, &sample())).unwrap_or_default();
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"]
                .as_array()
                .map(Vec::len),
            Some(ALL.len())
        );
        assert_eq!(log["runs"][0]["results"][0]["level"], "error");
        assert_eq!(log["runs"][0]["results"][0]["ruleId"], "H101");
    }
}
