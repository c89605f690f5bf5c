//! SARIF 2.1.0 of a findings report, for code-scanning views: one run of the
//! `mcpcheck` driver, with every rule of the families the report judged
//! (title, rationale, how to fix, source), and one result per finding. A
//! result is located logically (the item, with its pointer as the fully
//! qualified name) and, where the findings come from a file (a listing, a
//! lockfile, a config), physically at that file, which GitHub code scanning
//! needs to show it. Suppressed findings are results too, carrying SARIF's
//! own `suppressions` with the reason, so viewers show them as dismissed.

use serde_json::{Value, json};

use super::place;
use crate::findings::{Family, Finding, Report, RuleInfo};
use crate::report::sarif::uri;

/// The families whose rules the log lists: those of its findings, and those
/// the command judges.
fn families(report: &Report) -> Vec<Family> {
    let mut out: Vec<Family> = Family::ALL
        .into_iter()
        .filter(|f| f.command() == report.command)
        .collect();
    for f in report
        .findings
        .iter()
        .chain(report.suppressed.iter().map(|(f, _)| f))
    {
        if !out.contains(&f.family()) {
            out.push(f.family());
        }
    }
    crate::sort::ord(&mut out);
    out
}

fn rule(info: &RuleInfo) -> Value {
    json!({
        "id": info.code,
        "name": info.title,
        "shortDescription": { "text": info.title },
        "fullDescription": { "text": info.rationale },
        "help": { "text": format!("{}\nFix: {}\nSource: {}", info.rationale, info.fix, info.source) },
        "defaultConfiguration": { "level": info.level.sarif() },
        "properties": {
            "family": info.family.as_str(),
            "severity": info.severity.as_str(),
            "source": info.source,
            "category": info.category,
            "aliases": info.aliases,
        },
    })
}

fn result(report: &Report, rules: &[&RuleInfo], f: &Finding, reason: Option<&str>) -> Value {
    let index = rules
        .iter()
        .position(|r| r.code == f.code())
        .unwrap_or_default();
    let l = &f.location;
    let item = l.item_label();
    let text = if item.is_empty() {
        f.message.clone()
    } else {
        format!("{item}: {}", f.message)
    };
    let name = l.name().unwrap_or(report.subject.as_str());
    let at = place(f);
    let qualified = match (l.server.as_deref(), at.is_empty()) {
        (Some(server), false) => format!("{server}/{name}{at}"),
        (Some(server), true) => format!("{server}/{name}"),
        (None, false) => format!("{name}{at}"),
        (None, true) => name.to_string(),
    };
    let kind = l.kind().map_or("server", |k| k.as_str());
    let mut location = json!({
        "logicalLocations": [{ "name": name, "fullyQualifiedName": qualified, "kind": kind }],
    });
    let file = l.file.as_deref().or(report.artifact.as_deref());
    if let Some(file) = file.filter(|a| !a.is_empty()) {
        location["physicalLocation"] = json!({ "artifactLocation": { "uri": uri(file) } });
    }
    let mut properties = json!({
        "severity": f.severity().as_str(),
        "item": l.name(),
        "kind": l.kind().map(|k| k.as_str()),
        "pointer": l.pointer,
    });
    if let Some(server) = &l.server {
        properties["server"] = json!(server);
    }
    if let Some(i) = l.exchange {
        properties["exchange"] = json!(i);
    }
    if let Some(c) = &l.context {
        properties["context"] = json!(c);
    }
    if !f.evidence.is_empty() {
        properties["evidence"] = json!(f.evidence);
    }
    let mut out = json!({
        "ruleId": f.code(),
        "ruleIndex": index,
        "level": f.level().sarif(),
        "message": { "text": text },
        "locations": [location],
        "properties": properties,
    });
    if let Some(reason) = reason {
        out["suppressions"] = json!([{ "kind": "external", "justification": reason }]);
    }
    out
}

/// The SARIF log, pretty JSON with a final newline.
pub fn render(report: &Report) -> String {
    let rules: Vec<&RuleInfo> = families(report)
        .into_iter()
        .flat_map(|f| f.rules().iter())
        .collect();
    let mut results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| result(report, &rules, f, None))
        .collect();
    results.extend(
        report
            .suppressed
            .iter()
            .map(|(f, reason)| result(report, &rules, f, Some(reason))),
    );
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mcpcheck",
                "version": crate::VERSION,
                "semanticVersion": crate::VERSION,
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules.iter().map(|r| rule(r)).collect::<Vec<_>>(),
            }},
            "automationDetails": { "id": format!("mcpcheck/{}/", report.command) },
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
    use crate::findings::{ItemKind, Location, registry};

    #[test]
    fn every_rule_of_the_family_and_a_located_result() {
        let rule = registry::lookup("I601").unwrap_or_else(|| panic!("I601"));
        let mut r = Report::new("lint", "listing.json");
        r.artifact = Some("listing.json".into());
        r.findings.push(Finding::new(
            rule,
            Location::item(ItemKind::Tool, "list").at("/tools/0/inputSchema"),
            "keyword",
        ));
        let log: Value = serde_json::from_str(&render(&r)).unwrap_or_default();
        let run = &log["runs"][0];
        let rules = run["tool"]["driver"]["rules"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(rules, Family::Lint.rules().len());
        let result = &run["results"][0];
        assert_eq!(result["level"], "note");
        let index = result["ruleIndex"].as_u64().unwrap_or(0) as usize;
        assert_eq!(run["tool"]["driver"]["rules"][index]["id"], "I601");
        assert_eq!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "listing.json"
        );
    }

    #[test]
    fn a_suppressed_finding_carries_its_justification() {
        let rule = registry::lookup("S601").unwrap_or_else(|| panic!("S601"));
        let mut r = Report::new("scan", "x");
        r.suppressed.push((
            Finding::new(rule, Location::item(ItemKind::Tool, "upload"), "blob"),
            "a test fixture".into(),
        ));
        let log: Value = serde_json::from_str(&render(&r)).unwrap_or_default();
        assert_eq!(
            log["runs"][0]["results"][0]["suppressions"][0]["justification"],
            "a test fixture"
        );
    }
}
