//! Lint: rules over what an MCP server lists (tools, prompts, resources, resource
//! templates), for the problems that make clients reject a server or models misuse
//! it. Pure: the listing comes in as a value, findings go out.
//!
//! The public surface:
//!
//! - [`lint_listing`]`(&Value, &LintOptions) -> Result<Vec<Finding>, LintInputError>`:
//!   every static rule over one listing. The value is a `tools/list` result
//!   (`{"tools": [...]}`), a combined listing (`{"tools", "prompts", "resources",
//!   "resourceTemplates"}`, any subset), or a JSON-RPC response whose `result` is
//!   one of those.
//! - [`lint_response`]`(tool, Response, max_bytes, &LintOptions)`: E301, a tool's
//!   answer over the response budget ([`DEFAULT_MAX_RESPONSE_BYTES`], mcp-assert's
//!   100 KiB). The CLI makes the call; this decides.
//! - [`lint_nondeterminism`]`(&first, &second, &LintOptions)`: W609 and W610, two
//!   listings taken in one session that differ in order or content.
//! - [`rules`]`()`: the catalogue ([`rules::RuleInfo`] rows, in order).
//! - [`passed`]`(&findings, strict)`: the verdict (no errors; with `strict`, no
//!   warnings either).
//! - [`report`]`(findings, strict, subject)`: the findings as a
//!   [`crate::findings::Report`], for the one set of renderers.
//!
//! Findings come in listing order (tools, prompts, resources, resource templates,
//! each in the order listed), and on one item in catalogue order. Each names the
//! item (a tool or prompt name, a resource URI or a template), its kind, the rule's
//! code and severity, a message, and the RFC 6901 pointer of the offending field
//! in the document as given (`/result/tools/3/inputSchema/properties/path` for an
//! envelope).

mod entries;
mod extensions;
mod observe;
pub mod rules;
mod schema;
mod syntax;
mod tools;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::value::type_name;
pub use observe::{DEFAULT_MAX_RESPONSE_BYTES, Response, lint_nondeterminism, lint_response};
use rules::Rule;

pub use crate::findings::{Finding, ItemKind};
use crate::findings::{Gate, Level, Location, Report};

/// What to check and how to judge.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LintOptions {
    /// Codes of rules not to run (`E107`, `W111`); an unknown code is an error.
    pub skip_rules: Vec<String>,
    /// Warnings fail the verdict too.
    pub strict: bool,
}

/// Why lint could not look at its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LintInputError {
    /// Not a listing in any accepted form.
    #[error(
        "not a listing: expected a tools/list result ({{\"tools\": [...]}}), an object with any of tools, prompts, resources and resourceTemplates, or a JSON-RPC response whose result is one of those; got {got}"
    )]
    NotAListing {
        /// What was given, described.
        got: String,
    },
    /// Not a tools/call result in any accepted form.
    #[error(
        "not a tool result: expected a tools/call result ({{\"content\": [...]}} or {{\"structuredContent\": {{...}}}}) or a JSON-RPC response whose result is one; got {got}"
    )]
    NotAToolResult {
        /// What was given, described.
        got: String,
    },
    /// `skip_rules` names a code no rule has.
    #[error("unknown rule `{code}` in skip_rules; known rules: {known}")]
    UnknownRule {
        /// The code as given.
        code: String,
        /// Every known code, comma-separated, in catalogue order.
        known: String,
    },
}

/// Every rule, in catalogue order.
pub fn rules() -> impl ExactSizeIterator<Item = &'static crate::findings::RuleInfo> {
    rules::ALL.iter().map(|r| r.info())
}

/// The verdict: no error findings, and with `strict` no warnings either. Info
/// findings never fail.
pub fn passed(findings: &[Finding], strict: bool) -> bool {
    gate(strict).passes(findings)
}

/// Lint's gate: errors fail; with `strict`, warnings too.
pub fn gate(strict: bool) -> Gate {
    Gate {
        strict,
        fail_on: None,
    }
}

/// The findings as a report about `subject` (the listing's file or the
/// server's label), with lint's own JSON contract beside them: `errors` and
/// `warnings`, the counts of each (info findings are in neither).
pub fn report(findings: Vec<Finding>, strict: bool, subject: &str) -> Report {
    let mut r = Report::new("lint", subject);
    r.gate = gate(strict);
    r.set_extra("errors", serde_json::json!(count(&findings, Level::Error)));
    r.set_extra(
        "warnings",
        serde_json::json!(count(&findings, Level::Warning)),
    );
    r.findings = findings;
    r
}

fn count(findings: &[Finding], level: Level) -> usize {
    findings.iter().filter(|f| f.level() == level).count()
}

/// The listing sections, in report order.
const SECTIONS: [(&str, ItemKind); 4] = [
    ("tools", ItemKind::Tool),
    ("prompts", ItemKind::Prompt),
    ("resources", ItemKind::Resource),
    ("resourceTemplates", ItemKind::ResourceTemplate),
];

/// Every static rule over one listing.
///
/// # Errors
///
/// [`LintInputError::NotAListing`] when `doc` is not a listing in any accepted form,
/// [`LintInputError::UnknownRule`] when `options.skip_rules` names an unknown code.
pub fn lint_listing(doc: &Value, options: &LintOptions) -> Result<Vec<Finding>, LintInputError> {
    let skip = skipped(options)?;
    let listing = Listing::read(doc)?;
    let mut out = Out::new(&skip);
    for (section, kind) in SECTIONS {
        let Some(value) = listing.object.get(section) else {
            continue;
        };
        let ptr = format!("{}/{section}", listing.base);
        let Value::Array(entries) = value else {
            let mut item = out.item(ItemKind::Listing, section.to_string());
            item.push(
                Rule::MalformedEntry,
                ptr,
                format!("`{section}` is {}, not an array", type_name(value)),
            );
            out.finish(item);
            continue;
        };
        match kind {
            ItemKind::Tool => tools::lint_tools(&mut out, entries, &ptr),
            _ => entries::lint_section(&mut out, kind, section, entries, &ptr),
        }
    }
    extensions::lint(&mut out, &listing);
    Ok(out.findings)
}

/// The document a listing was found in: the object holding the sections and the
/// pointer to it.
pub(crate) struct Listing<'v> {
    pub(crate) base: &'static str,
    pub(crate) object: &'v Map<String, Value>,
}

impl<'v> Listing<'v> {
    pub(crate) fn read(doc: &'v Value) -> Result<Self, LintInputError> {
        // A `skills` section (a skills/list result) is one too.
        let has_section = |o: &Map<String, Value>| {
            SECTIONS.iter().any(|(s, _)| o.contains_key(*s)) || o.contains_key("skills")
        };
        let not = |got: String| Err(LintInputError::NotAListing { got });
        let Value::Object(object) = doc else {
            return not(describe_non_object(doc));
        };
        if has_section(object) {
            return Ok(Listing { base: "", object });
        }
        if let Some(result) = object.get("result") {
            return match result {
                Value::Object(inner) if has_section(inner) => Ok(Listing {
                    base: "/result",
                    object: inner,
                }),
                Value::Object(inner) => not(format!(
                    "a JSON-RPC response whose result has none of them ({})",
                    keys_of(inner)
                )),
                other => not(format!(
                    "a JSON-RPC response whose result is {}",
                    type_name(other)
                )),
            };
        }
        not(describe_object(object))
    }
}

/// What a non-listing object is, for an input error.
pub(crate) fn describe_object(object: &Map<String, Value>) -> String {
    if let Some(error) = object.get("error") {
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        return format!(
            "a JSON-RPC error response ({})",
            crate::value::truncate(message, 120)
        );
    }
    if let Some(method) = object.get("method").and_then(Value::as_str) {
        let what = if object.contains_key("id") {
            "request"
        } else {
            "notification"
        };
        return format!(
            "a JSON-RPC {what} (method `{method}`); give the server's response instead"
        );
    }
    if object.is_empty() {
        return "an empty object".to_string();
    }
    format!("an object with none of those keys ({})", keys_of(object))
}

/// What a non-object is, for an input error.
pub(crate) fn describe_non_object(doc: &Value) -> String {
    match doc {
        Value::Array(items) => {
            let looks_like_tools = !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.get("name").is_some() && i.get("inputSchema").is_some());
            let n = crate::report::plural(items.len(), "element", "elements");
            if looks_like_tools {
                format!("an array of {n}; wrap a bare tools array as {{\"tools\": [...]}}")
            } else {
                format!("an array of {n}")
            }
        }
        other => type_name(other).to_string(),
    }
}

fn keys_of(object: &Map<String, Value>) -> String {
    let keys: Vec<&str> = object.keys().map(String::as_str).take(6).collect();
    let more = if object.len() > keys.len() {
        ", …"
    } else {
        ""
    };
    format!("its keys: {}{more}", keys.join(", "))
}

/// The rules `options` skips.
pub(crate) fn skipped(options: &LintOptions) -> Result<BTreeSet<Rule>, LintInputError> {
    Rule::parse_skips(&options.skip_rules)
        .map_err(|(code, known)| LintInputError::UnknownRule { code, known })
}

/// The findings so far, item by item.
pub(crate) struct Out<'s> {
    skip: &'s BTreeSet<Rule>,
    pub(crate) findings: Vec<Finding>,
}

impl<'s> Out<'s> {
    pub(crate) fn new(skip: &'s BTreeSet<Rule>) -> Self {
        Out {
            skip,
            findings: Vec::new(),
        }
    }

    /// Collects the findings of one item.
    pub(crate) fn item(&self, kind: ItemKind, name: String) -> Item<'s> {
        Item {
            kind,
            name,
            skip: self.skip,
            found: Vec::new(),
        }
    }

    /// Adds an item's findings in catalogue order (stable: one rule's findings keep
    /// the order they were found in).
    pub(crate) fn finish(&mut self, mut item: Item<'_>) {
        crate::sort::by_key(&mut item.found, |(rule, _)| rule.index());
        self.findings.extend(item.found.into_iter().map(|(_, f)| f));
    }
}

/// The findings of one item.
pub(crate) struct Item<'s> {
    pub(crate) kind: ItemKind,
    pub(crate) name: String,
    skip: &'s BTreeSet<Rule>,
    found: Vec<(Rule, Finding)>,
}

impl Item<'_> {
    pub(crate) fn push(&mut self, rule: Rule, field: String, message: String) {
        if self.skip.contains(&rule) {
            return;
        }
        let finding = Finding::new(
            rule.info(),
            Location::item(self.kind, self.name.clone()).at(field),
            message,
        );
        self.found.push((rule, finding));
    }
}

/// `base` + one RFC 6901 reference token.
pub(crate) fn ptr(base: &str, token: &str) -> String {
    format!("{base}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// `base` + an array index.
pub(crate) fn ptr_index(base: &str, index: usize) -> String {
    format!("{base}/{index}")
}

/// `12,345`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A short, single-line rendering of server text for a message.
pub(crate) fn quote(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::value::truncate(&flat, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inputs_that_are_not_listings_say_what_they_are() {
        let cases = [
            (json!(null), "got null"),
            (json!(3), "got a number"),
            (json!("tools"), "got a string"),
            (json!([1, 2]), "got an array of 2 elements"),
            (
                json!([{"name": "a", "inputSchema": {}}]),
                "wrap a bare tools array",
            ),
            (json!({}), "got an empty object"),
            (json!({"items": []}), "its keys: items"),
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
                "a JSON-RPC request (method `tools/list`)",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
                "a JSON-RPC error response (Method not found)",
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
                "result has none of them (its keys: content)",
            ),
        ];
        for (doc, want) in cases {
            let err = lint_listing(&doc, &LintOptions::default())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(want), "{doc}: {err}");
            assert!(err.contains("expected a tools/list result"), "{err}");
        }
    }

    #[test]
    fn unknown_skip_codes_list_the_known_ones() {
        let options = LintOptions {
            skip_rules: vec!["e101".into(), "E999".into()],
            strict: false,
        };
        let err = lint_listing(&json!({"tools": []}), &options)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.starts_with("unknown rule `E999`"), "{err}");
        assert!(err.contains("known rules: E601, W601, E113"), "{err}");
    }

    #[test]
    fn verdicts() {
        let finding = |rule: Rule| Finding::new(rule.info(), Location::default(), "");
        assert!(passed(&[], true));
        assert!(passed(&[finding(Rule::ClientUnsupportedKeyword)], true));
        assert!(passed(&[finding(Rule::ToolDescriptionLength)], false));
        assert!(!passed(&[finding(Rule::ToolDescriptionLength)], true));
        assert!(!passed(&[finding(Rule::ToolDescriptionMissing)], false));
    }

    #[test]
    fn helpers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1024), "1,024");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(ptr("/tools/0", "a/b~c"), "/tools/0/a~1b~0c");
    }
}
