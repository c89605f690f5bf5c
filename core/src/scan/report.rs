//! Scan findings rendered: the JSON contract, text, Markdown and SARIF 2.1.0. Each
//! is a pure function of the findings.
//!
//! The JSON contract (`version` 1):
//!
//! ```json
//! { "version": 1,
//!   "findings": [ { "code": "S301", "severity": "high", "server": "math",
//!                   "item": "add", "kind": "tool", "field": "/tools/0/description",
//!                   "message": "tells the model to keep something from the user",
//!                   "evidence": "Do not mention", "span": [212, 226] } ] }
//! ```
//!
//! `kind` (`tool`, `prompt`, `resource`, `resource_template`, `listing`) tells
//! apart items of one name in different sections; `span` (byte offsets of the
//! evidence in the field's string) is there when the finding is about a part of
//! one string, for highlighting.

use serde::Serialize;
use serde_json::{Value, json};

use super::rules::{ALL, Rule};
use super::{Finding, Severity};
use crate::diag::{Paint, Style};
use crate::report::{markdown::escape, plural};

/// The version of the JSON contract.
pub const JSON_VERSION: u32 = 1;

/// The JSON contract, pretty-printed, with a final newline.
pub fn json(findings: &[Finding]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        version: u32,
        findings: &'a [Finding],
    }
    let doc = Doc {
        version: JSON_VERSION,
        findings,
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

fn totals(findings: &[Finding]) -> String {
    totals_of(findings.iter().map(|f| f.severity))
}

/// `1 high, 0 medium, 2 low, 0 info` for these severities.
pub(crate) fn totals_of(severities: impl Iterator<Item = Severity>) -> String {
    let mut count = [0usize; 4];
    for s in severities {
        count[s as usize] += 1;
    }
    format!(
        "{} high, {} medium, {} low, {} info",
        count[0], count[1], count[2], count[3]
    )
}

/// One finding for the terminal: `  CODE severity  WHERE  message`, then
/// its evidence indented on a line of its own.
pub(crate) fn push_finding(
    out: &mut String,
    paint: Paint,
    code: &str,
    severity: Severity,
    at: &str,
    message: &str,
    evidence: &str,
) {
    let style = match severity {
        Severity::High => Style::Error,
        Severity::Medium | Severity::Low => Style::Warning,
        Severity::Info => Style::Accent,
    };
    out.push_str(&format!(
        "  {} {}  {}  {}\n",
        code,
        paint.paint(style, severity.as_str()),
        paint.paint(Style::Dim, at),
        paint.text(message)
    ));
    if !evidence.is_empty() {
        out.push_str(&format!("      {}\n", paint.text(evidence)));
    }
}

/// For terminals and logs: a header per server and item, one line per finding
/// (`  S301 high  /tools/0/description  message`) and its evidence, then the
/// totals. Server text is shown with control characters escaped.
pub fn text(findings: &[Finding], paint: Paint) -> String {
    if findings.is_empty() {
        return format!("{}\n", paint.paint(Style::Pass, "no findings"));
    }
    let mut out = String::new();
    let mut last: Option<(&str, &str, &str)> = None;
    for f in findings {
        let key = (f.server.as_str(), f.kind.as_str(), f.item.as_str());
        if last != Some(key) {
            if last.is_some() {
                out.push('\n');
            }
            out.push_str(&format!(
                "{} {} {}\n",
                paint.paint(Style::Dim, &f.server),
                paint.paint(Style::Dim, f.kind.as_str()),
                paint.paint(Style::Bold, &f.item)
            ));
            last = Some(key);
        }
        push_finding(
            &mut out,
            paint,
            f.code,
            f.severity,
            &f.field,
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

/// For job summaries: the totals, then a table of every finding (cells escaped).
pub fn markdown(findings: &[Finding]) -> String {
    let mut out = String::from("### mcpcheck scan\n\n");
    if findings.is_empty() {
        out.push_str("No findings.\n");
        return out;
    }
    out.push_str(&format!("**{}**\n\n", totals(findings)));
    out.push_str("| Server | Item | Code | Severity | Field | Message | Evidence |\n|---|---|---|---|---|---|---|\n");
    for f in findings {
        out.push_str(&format!(
            "| {} | {} | {} | {} | <code>{}</code> | {} | <code>{}</code> |\n",
            escape(&f.server),
            escape(&f.item),
            f.code,
            f.severity.as_str(),
            escape(&f.field),
            escape(&f.message),
            escape(&f.evidence)
        ));
    }
    out
}

/// SARIF 2.1.0 for code-scanning views: every rule of the catalogue with its
/// help text, one result per finding with a logical location (server, item,
/// pointer); with `artifact`, each result also names that file.
pub fn sarif(findings: &[Finding], artifact: Option<&str>) -> String {
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
            let qualified = format!("{}:{}", f.server, f.field);
            json!({
                "ruleId": f.code,
                "ruleIndex": index,
                "level": f.severity.sarif_level(),
                "message": { "text": format!("{} {} {}: {} ({})", f.server, f.kind.as_str(), f.item, f.message, f.evidence) },
                "locations": [item_location(&f.item, &qualified, f.kind.as_str(), artifact)],
                "properties": { "server": f.server, "item": f.item, "pointer": f.field, "severity": f.severity.as_str() },
            })
        })
        .collect();
    catalogue_log("mcpcheck scan", rules, results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::ItemKind;

    fn sample() -> Vec<Finding> {
        vec![Finding {
            code: "S301",
            severity: Severity::High,
            server: "math".into(),
            item: "add".into(),
            kind: ItemKind::Tool,
            field: "/tools/0/description".into(),
            message: "tells the model | to hide".into(),
            evidence: "Do not mention".into(),
            span: Some((3, 17)),
        }]
    }

    #[test]
    fn json_contract() {
        let doc: Value = serde_json::from_str(&json(&sample())).unwrap_or_default();
        assert_eq!(doc["version"], 1);
        let first = &doc["findings"][0];
        let mut keys: Vec<&str> = first
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "code", "evidence", "field", "item", "kind", "message", "server", "severity",
                "span"
            ]
        );
        assert_eq!(first["severity"], "high");
        assert_eq!(first["span"], json!([3, 17]));
    }

    #[test]
    fn renderers() {
        let shown = text(&sample(), Paint::Plain);
        assert!(
            shown.starts_with("math tool add\n  S301 high  /tools/0/description"),
            "{shown}"
        );
        assert!(
            shown.ends_with("1 finding: 1 high, 0 medium, 0 low, 0 info\n"),
            "{shown}"
        );
        assert_eq!(text(&[], Paint::Plain), "no findings\n");
        assert!(markdown(&sample()).contains("&#124;"));
        let log: Value = serde_json::from_str(&sarif(&sample(), None)).unwrap_or_default();
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"]
                .as_array()
                .map(Vec::len),
            Some(ALL.len())
        );
        assert_eq!(log["runs"][0]["results"][0]["level"], "error");
    }
}
