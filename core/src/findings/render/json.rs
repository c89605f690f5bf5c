//! The JSON document of a findings report (`"version": 1`), the same from
//! every analysis:
//!
//! ```json
//! { "version": 1, "command": "lint", "subject": "listing.json", "passed": false,
//!   "counts": { "error": 1, "warning": 0, "note": 0 },
//!   "findings": [ { "code": "E103", "family": "lint", "level": "error", "severity": "error",
//!                   "kind": "tool", "item": "read_file", "tool": "read_file",
//!                   "field": "/tools/0/inputSchema/properties/path/description",
//!                   "message": "required parameter `path` has no description", "evidence": "" } ],
//!   "errors": 1, "warnings": 0 }
//! ```
//!
//! - Each finding carries its rule's `code`, `family` and `level`, and
//!   `severity` in its family's words (lint: `error`, `warning`, `info`; scan
//!   and the HTTP probes: `high` … `info`). Where it is: `server`, `kind` and
//!   `item`, `field` (an RFC 6901 pointer), `exchange`, `context` (the
//!   protocol revision), `file`, `span` — each only when known. Lint findings
//!   also name the item `tool` (mcp-assert's field name), HTTP probe findings
//!   `probe`.
//! - `doctor`'s document also has `rules` ([`rules_member`]): every rule that
//!   has a finding, with how to fix it.
//! - `cases` (what was examined: an item called, a rule judged, a part of
//!   a doctor run; each with its `status`, `detail`, `duration_ms` and the
//!   indices of its `findings`), `suppressed` (findings silenced by a
//!   suppression, each with its `reason`), `baselined` (how many a baseline
//!   knew), `notes`, `score` appear when there are any.
//! - Each command keeps its own contract beside these (lint's `errors` and
//!   `warnings`, probe's `url`, audit's `results`, conformance's
//!   `revisions`): fields are only ever added.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use crate::findings::{Family, Finding, Level, Report};

/// The version of the document.
pub const VERSION: u32 = 1;

/// The document, pretty-printed, with a final newline.
pub fn render(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(&Doc(report)).unwrap_or_default();
    text.push('\n');
    text
}

/// The document as a value (for front ends that add to it).
pub fn value(report: &Report) -> Value {
    serde_json::to_value(Doc(report)).unwrap_or(Value::Null)
}

/// The members every document has; a command's own fields never replace them.
const RESERVED: [&str; 11] = [
    "version",
    "command",
    "subject",
    "passed",
    "counts",
    "score",
    "findings",
    "cases",
    "suppressed",
    "baselined",
    "notes",
];

/// The `rules` member a document may carry: every rule that has a finding
/// (suppressed ones included), with its title, family, level, severity,
/// rationale, fix and source. `doctor` adds it (the CLI's prose); the
/// analyses' own documents stay what the npm package gives byte for byte.
pub fn rules_member(report: &Report) -> Value {
    let mut rules = serde_json::Map::new();
    for f in report
        .findings
        .iter()
        .chain(report.suppressed.iter().map(|(f, _)| f))
    {
        let rule = f.rule;
        rules.entry(rule.code).or_insert_with(|| {
            serde_json::json!({
                "title": rule.title,
                "family": rule.family.as_str(),
                "level": rule.level.as_str(),
                "severity": rule.severity.as_str(),
                "rationale": rule.rationale,
                "fix": rule.fix,
                "source": rule.source,
            })
        });
    }
    Value::Object(rules)
}

struct Doc<'a>(&'a Report);

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("version", &VERSION)?;
        m.serialize_entry("command", &r.command)?;
        m.serialize_entry("subject", &r.subject)?;
        m.serialize_entry("passed", &r.passed())?;
        m.serialize_entry(
            "counts",
            &serde_json::json!({
                "error": r.count(Level::Error),
                "warning": r.count(Level::Warning),
                "note": r.count(Level::Note),
            }),
        )?;
        if let Some(score) = r.score {
            m.serialize_entry("score", &score)?;
        }
        let findings: Vec<FindingJson<'_>> =
            r.findings.iter().map(|f| FindingJson(f, None)).collect();
        m.serialize_entry("findings", &findings)?;
        if !r.cases.is_empty() {
            let cases: Vec<Value> = r
                .cases
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "suite": c.suite,
                        "class": c.class,
                        "name": c.name,
                        "status": c.status.as_str(),
                        "label": c.label,
                        "detail": c.detail,
                        "duration_ms": c.duration_ms,
                        "findings": c.findings,
                    })
                })
                .collect();
            m.serialize_entry("cases", &cases)?;
        }
        if !r.suppressed.is_empty() {
            let suppressed: Vec<FindingJson<'_>> = r
                .suppressed
                .iter()
                .map(|(f, reason)| FindingJson(f, Some(reason)))
                .collect();
            m.serialize_entry("suppressed", &suppressed)?;
        }
        if r.baselined > 0 {
            m.serialize_entry("baselined", &r.baselined)?;
        }
        if !r.notes.is_empty() {
            let notes: Vec<Value> = r
                .notes
                .iter()
                .map(|n| serde_json::json!({"text": n.text, "fails": n.fails}))
                .collect();
            m.serialize_entry("notes", &notes)?;
        }
        for (k, v) in r
            .extra
            .iter()
            .filter(|(k, _)| !RESERVED.contains(&k.as_str()))
        {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One finding, and the reason when it was suppressed.
pub(crate) struct FindingJson<'a>(pub &'a Finding, pub Option<&'a String>);

impl Serialize for FindingJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let l = &f.location;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("code", f.code())?;
        m.serialize_entry("family", f.family().as_str())?;
        m.serialize_entry("level", f.level().as_str())?;
        m.serialize_entry("severity", f.rule.severity_word())?;
        if let Some(server) = &l.server {
            m.serialize_entry("server", server)?;
        }
        if let Some((kind, name)) = &l.item {
            m.serialize_entry("kind", kind.as_str())?;
            m.serialize_entry("item", name)?;
            match f.family() {
                Family::Lint => m.serialize_entry("tool", name)?,
                Family::Http => m.serialize_entry("probe", name)?,
                _ => {}
            }
        }
        if let Some(p) = &l.pointer {
            m.serialize_entry("field", p)?;
        }
        if let Some(i) = l.exchange {
            m.serialize_entry("exchange", &i)?;
        }
        if let Some(c) = &l.context {
            m.serialize_entry("context", c)?;
        }
        if let Some(file) = &l.file {
            m.serialize_entry("file", file)?;
        }
        m.serialize_entry("message", &f.message)?;
        m.serialize_entry("evidence", &f.evidence)?;
        if let Some((a, b)) = l.span {
            m.serialize_entry("span", &[a, b])?;
        }
        if !f.details.is_empty() {
            let details: serde_json::Map<String, Value> = f
                .details
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            m.serialize_entry("details", &details)?;
        }
        if let Some(reason) = self.1 {
            m.serialize_entry("reason", reason)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{ItemKind, Location, registry};

    #[test]
    fn a_lint_finding_keeps_mcp_asserts_field_names() {
        let rule = registry::lookup("E103").unwrap_or_else(|| panic!("E103"));
        let mut r = Report::new("lint", "listing.json");
        r.findings.push(Finding::new(
            rule,
            Location::item(ItemKind::Tool, "read_file").at("/tools/0/x"),
            "no description",
        ));
        let doc = value(&r);
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["passed"], false);
        let f = &doc["findings"][0];
        assert_eq!(f["tool"], "read_file");
        assert_eq!(f["item"], "read_file");
        assert_eq!(f["severity"], "error");
        assert_eq!(f["level"], "error");
        assert_eq!(f["field"], "/tools/0/x");
        assert!(doc.get("rules").is_none());
        let rules = rules_member(&r);
        assert_eq!(rules["E103"]["fix"], rule.fix);
    }
}
