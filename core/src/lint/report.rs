//! Lint findings rendered: the JSON contract, text, Markdown, SARIF 2.1.0 and JUnit
//! XML. Each is a pure function of the findings.
//!
//! The JSON contract (`version` 1), field names as mcp-assert's `lint --json`:
//!
//! ```json
//! { "version": 1,
//!   "findings": [ { "tool": "read_file", "kind": "tool", "code": "E103", "severity": "error",
//!                   "message": "required parameter `path` has no description; …",
//!                   "field": "/tools/0/inputSchema/properties/path/description" } ],
//!   "errors": 1, "warnings": 0 }
//! ```
//!
//! `tool` is the item's name whatever its kind (a prompt name, a resource URI);
//! info findings are listed but counted in neither total.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;
use serde_json::{Value, json};

use super::rules::{ALL, Rule};
use super::{Finding, ItemKind, Severity};
use crate::diag::{Paint, Style};
use crate::report::{markdown::escape, plural};

/// The version of the JSON contract.
pub const JSON_VERSION: u32 = 1;

fn count(findings: &[Finding], severity: Severity) -> usize {
    findings.iter().filter(|f| f.severity == severity).count()
}

/// `1 error, 2 warnings, 0 info`.
fn totals(findings: &[Finding]) -> String {
    format!(
        "{}, {}, {} info",
        plural(count(findings, Severity::Error), "error", "errors"),
        plural(count(findings, Severity::Warning), "warning", "warnings"),
        count(findings, Severity::Info)
    )
}

/// The findings grouped by item (kind and name), groups in order of first
/// appearance, findings in their order.
fn by_item(findings: &[Finding]) -> Vec<((ItemKind, &str), Vec<&Finding>)> {
    let mut groups: Vec<((ItemKind, &str), Vec<&Finding>)> = Vec::new();
    for f in findings {
        let key = (f.kind, f.item.as_str());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(f),
            None => groups.push((key, vec![f])),
        }
    }
    groups
}

/// The JSON contract, pretty-printed, with a final newline.
pub fn json(findings: &[Finding]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        version: u32,
        findings: &'a [Finding],
        errors: usize,
        warnings: usize,
    }
    let doc = Doc {
        version: JSON_VERSION,
        findings,
        errors: count(findings, Severity::Error),
        warnings: count(findings, Severity::Warning),
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// For terminals and logs: a header per item, one line per finding
/// (`  E103 error  /tools/0/description  message`), then the totals. Server text
/// is shown with control characters escaped.
pub fn text(findings: &[Finding], paint: Paint) -> String {
    if findings.is_empty() {
        return format!("{}\n", paint.paint(Style::Pass, "no findings"));
    }
    let mut out = String::new();
    for ((kind, item), list) in by_item(findings) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "{} {}\n",
            paint.paint(Style::Dim, kind.as_str()),
            paint.paint(Style::Bold, item)
        ));
        for f in list {
            let style = match f.severity {
                Severity::Error => Style::Error,
                Severity::Warning => Style::Warning,
                Severity::Info => Style::Accent,
            };
            out.push_str(&format!(
                "  {} {}  {}  {}\n",
                f.code,
                paint.paint(style, f.severity.as_str()),
                paint.paint(Style::Dim, &f.field),
                paint.text(&f.message)
            ));
        }
    }
    out.push_str(&format!(
        "\n{}: {}\n",
        plural(findings.len(), "finding", "findings"),
        totals(findings)
    ));
    out
}

/// For job summaries: the totals, then a table of every finding (cells escaped,
/// `|` included).
pub fn markdown(findings: &[Finding]) -> String {
    let mut out = String::from("### mcpcheck lint\n\n");
    if findings.is_empty() {
        out.push_str("No findings.\n");
        return out;
    }
    out.push_str(&format!("**{}**\n\n", totals(findings)));
    out.push_str(
        "| Item | Kind | Code | Severity | Field | Message |\n|---|---|---|---|---|---|\n",
    );
    for f in findings {
        out.push_str(&format!(
            "| {} | {} | {} | {} | <code>{}</code> | {} |\n",
            escape(&f.item),
            f.kind.as_str(),
            f.code,
            f.severity.as_str(),
            escape(&f.field),
            escape(&f.message)
        ));
    }
    out
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// SARIF 2.1.0 for code-scanning views: every rule of the catalogue with its
/// help text, one result per finding. A finding's location is logical (the item,
/// and the JSON pointer as its fully qualified name); with `artifact` (the file the
/// listing was read from) each result also names that file, which GitHub code
/// scanning needs to show it.
pub fn sarif(findings: &[Finding], artifact: Option<&str>) -> String {
    use crate::report::sarif::{catalogue_log, documented_rule, item_location};
    let rules: Vec<Value> = ALL
        .iter()
        .map(|rule| {
            let info = rule.info();
            let properties = json!({ "source": info.source });
            documented_rule(
                info.code,
                info.title,
                info.rationale,
                info.source,
                sarif_level(info.severity),
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
                "level": sarif_level(f.severity),
                "message": { "text": format!("{} {}: {}", f.kind.as_str(), f.item, f.message) },
                "locations": [item_location(&f.item, &f.field, f.kind.as_str(), artifact)],
                "properties": { "item": f.item, "kind": f.kind.as_str(), "pointer": f.field },
            })
        })
        .collect();
    catalogue_log("mcpcheck", rules, results)
}

/// JUnit XML for CI test views: one test case per item with findings (its kind as
/// the class name), failed when it has an error finding (or, with `strict`, a
/// warning); the failure lists every finding of the item, and an item that passes
/// keeps its findings in system-out. Without findings, one passing case,
/// `listing`.
pub fn junit(findings: &[Finding], strict: bool) -> String {
    let fails =
        |f: &Finding| f.severity == Severity::Error || (strict && f.severity == Severity::Warning);
    let mut suite = TestSuite::new("mcpcheck lint");
    let groups = by_item(findings);
    if groups.is_empty() {
        let mut case = TestCase::new("listing", TestCaseStatus::success());
        case.set_classname("listing");
        suite.add_test_case(case);
    }
    for ((kind, item), list) in groups {
        let lines: Vec<String> = list
            .iter()
            .map(|f| {
                format!(
                    "{} {}  {}  {}",
                    f.code,
                    f.severity.as_str(),
                    f.field,
                    f.message
                )
            })
            .collect();
        let failing: Vec<&&Finding> = list.iter().filter(|f| fails(f)).collect();
        let status = match failing.first() {
            None => TestCaseStatus::success(),
            Some(first) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(format!("{} {}: {}", first.code, first.field, first.message));
                status.set_type(first.code);
                status.set_description(lines.join("\n"));
                status
            }
        };
        let passed = failing.is_empty();
        let mut case = TestCase::new(item, status);
        case.set_classname(kind.as_str());
        if passed {
            case.set_system_out(lines.join("\n"));
        }
        suite.add_test_case(case);
    }
    let mut report = Report::new("mcpcheck lint");
    report.add_test_suite(suite);
    report.to_string().unwrap_or_else(|e| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- mcpcheck could not serialize the JUnit report: {} -->\n<testsuites name=\"mcpcheck lint\"/>\n",
            e.to_string().replace("--", "- -")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(item: &str, code: &'static str, severity: Severity, message: &str) -> Finding {
        Finding {
            item: item.into(),
            kind: ItemKind::Tool,
            code,
            severity,
            message: message.into(),
            field: "/tools/0/description".into(),
        }
    }

    fn sample() -> Vec<Finding> {
        vec![
            finding("read_file", "E101", Severity::Error, "has no description"),
            finding("read_file", "W111", Severity::Warning, "a | b"),
            finding("list", "I601", Severity::Info, "note\x1b[2J"),
        ]
    }

    #[test]
    fn json_contract() {
        let doc: Value = serde_json::from_str(&json(&sample())).unwrap_or_default();
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["errors"], 1);
        assert_eq!(doc["warnings"], 1);
        let first = &doc["findings"][0];
        let keys: Vec<&str> = first
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            ["code", "field", "kind", "message", "severity", "tool"]
        );
        assert_eq!(first["tool"], "read_file");
        assert_eq!(first["severity"], "error");
    }

    #[test]
    fn text_groups_by_item_and_escapes() {
        let shown = text(&sample(), Paint::Plain);
        assert_eq!(
            shown,
            "tool read_file\n  E101 error  /tools/0/description  has no description\n  W111 warning  /tools/0/description  a | b\n\ntool list\n  I601 info  /tools/0/description  note\\x1b[2J\n\n3 findings: 1 error, 1 warning, 1 info\n"
        );
        assert_eq!(text(&[], Paint::Plain), "no findings\n");
    }

    #[test]
    fn markdown_escapes_pipes() {
        let md = markdown(&sample());
        assert!(md.contains("| read\\_file | tool | W111 | warning | <code>/tools/0/description</code> | a &#124; b |"), "{md}");
    }

    #[test]
    fn sarif_lists_the_catalogue() {
        let log: Value =
            serde_json::from_str(&sarif(&sample(), Some("listing.json"))).unwrap_or_default();
        let run = &log["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().map(Vec::len),
            Some(ALL.len())
        );
        let result = &run["results"][2];
        assert_eq!(result["level"], "note");
        let index = result["ruleIndex"].as_u64().unwrap_or(0) as usize;
        assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "I601");
        assert_eq!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "listing.json"
        );
    }

    #[test]
    fn junit_fails_items_with_errors() {
        let xml = junit(&sample(), false);
        assert!(xml.contains("tests=\"2\""), "{xml}");
        assert!(xml.contains("failures=\"1\""), "{xml}");
        let strict = junit(&[finding("a", "W111", Severity::Warning, "short")], true);
        assert!(strict.contains("failures=\"1\""), "{strict}");
        assert!(junit(&[], false).contains("testcase name=\"listing\""));
    }
}
