//! Baselines of findings: the findings a project already knows about, so a
//! run reports (and fails on) only what is new since.
//!
//! A finding is keyed by what stays stable while a server changes around it:
//! its rule, its server, its item (kind and name), the place inside the item
//! (the JSON pointer below the item's own entry, so a tool moving in the
//! listing keeps its key) and, for conformance, the protocol revision. The
//! message is left out: it carries ids and numbers that change between runs.
//! Keys are counted, so a baseline with two findings of one key absorbs two.
//!
//! The file (`--write-baseline FILE`) is JSON:
//!
//! ```json
//! { "version": 1, "kind": "mcpcheck-findings-baseline",
//!   "findings": [ { "key": "E103|tool:read_file|/inputSchema/properties/path",
//!                   "code": "E103", "message": "required parameter `path` has no description" } ] }
//! ```
//!
//! `code` and `message` are there for the person reading the file; only `key`
//! is compared.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Finding;
use crate::error::DocError;

/// The `kind` of a findings baseline file.
pub const KIND: &str = "mcpcheck-findings-baseline";

/// The version of the file.
pub const VERSION: u32 = 1;

/// One known finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// What is compared.
    pub key: String,
    /// The rule's code, for people.
    #[serde(default)]
    pub code: String,
    /// The finding's message when it was recorded, for people.
    #[serde(default)]
    pub message: String,
}

/// A baseline file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// [`VERSION`].
    pub version: u32,
    /// [`KIND`].
    pub kind: String,
    /// The known findings.
    pub findings: Vec<Entry>,
}

/// The stable key of a finding.
pub fn key(f: &Finding) -> String {
    let mut parts = vec![f.code().to_string()];
    if let Some(server) = &f.location.server {
        parts.push(format!("server:{server}"));
    }
    if let Some(context) = &f.location.context {
        parts.push(format!("in:{context}"));
    }
    if let Some((kind, name)) = &f.location.item {
        parts.push(format!("{}:{name}", kind.as_str()));
    }
    if let Some(pointer) = &f.location.pointer {
        parts.push(within_item(pointer).to_string());
    }
    parts.join("|")
}

/// The pointer below the item's own entry: `/tools/3/inputSchema/x` →
/// `/inputSchema/x` (also under `/result`, and for a server of several).
fn within_item(pointer: &str) -> &str {
    let mut rest = pointer;
    for prefix in ["/result", ""] {
        let Some(after) = rest.strip_prefix(prefix) else {
            continue;
        };
        for section in ["/tools/", "/prompts/", "/resources/", "/resourceTemplates/"] {
            if let Some(tail) = after.strip_prefix(section) {
                let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
                if digits > 0 {
                    rest = &tail[digits..];
                    return rest;
                }
            }
        }
    }
    rest
}

/// The baseline of `findings`, as the file's text (pretty JSON, final
/// newline).
pub fn write(findings: &[Finding]) -> String {
    let doc = Baseline {
        version: VERSION,
        kind: KIND.to_string(),
        findings: findings
            .iter()
            .map(|f| Entry {
                key: key(f),
                code: f.code().to_string(),
                message: f.message.clone(),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// Reads a baseline file's text.
///
/// # Errors
///
/// [`DocError`] when it is not JSON or not a findings baseline.
pub fn read(text: &str) -> Result<Baseline, DocError> {
    let doc: Baseline =
        serde_json::from_str(text).map_err(|e| DocError::not_a("a findings baseline", &e))?;
    if doc.kind != KIND {
        return Err(DocError::Invalid(format!(
            "not a findings baseline: its kind is `{}`, not `{KIND}` (write one with --write-baseline)",
            doc.kind
        )));
    }
    if doc.version != VERSION {
        return Err(DocError::Version {
            what: "the findings baseline",
            found: doc.version,
            reads: VERSION,
        });
    }
    Ok(doc)
}

/// The entries of a baseline not yet matched, each key as often as it was
/// recorded.
#[derive(Debug, Clone)]
pub struct Remaining<'b> {
    left: BTreeMap<&'b str, usize>,
}

impl<'b> Remaining<'b> {
    /// Every entry of `baseline`.
    pub fn new(baseline: &'b Baseline) -> Self {
        let mut left: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &baseline.findings {
            *left.entry(e.key.as_str()).or_default() += 1;
        }
        Remaining { left }
    }

    /// Whether the baseline knew `f` (and one entry of its key is used up).
    pub fn take(&mut self, f: &Finding) -> bool {
        match self.left.get_mut(key(f).as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

/// Splits `findings` into the new ones and the number the baseline knew.
pub fn split(findings: Vec<Finding>, baseline: &Baseline) -> (Vec<Finding>, usize) {
    let mut left = Remaining::new(baseline);
    let mut known = 0;
    let mut new = Vec::new();
    for f in findings {
        if left.take(&f) {
            known += 1;
        } else {
            new.push(f);
        }
    }
    (new, known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{ItemKind, Location, registry};

    fn finding(code: &str, item: &str, pointer: &str) -> Finding {
        let rule = registry::lookup(code).unwrap_or_else(|| panic!("{code}"));
        Finding::new(rule, Location::item(ItemKind::Tool, item).at(pointer), "m")
    }

    #[test]
    fn a_moved_tool_keeps_its_key() {
        let a = finding("E103", "read", "/tools/0/inputSchema/properties/p");
        let b = finding("E103", "read", "/result/tools/7/inputSchema/properties/p");
        assert_eq!(key(&a), key(&b));
        assert_eq!(key(&a), "E103|tool:read|/inputSchema/properties/p");
    }

    #[test]
    fn only_new_findings_are_left() {
        let known = vec![finding("E103", "read", "/tools/0/x")];
        let baseline = read(&write(&known)).unwrap_or_else(|e| panic!("{e}"));
        let now = vec![
            finding("E103", "read", "/tools/1/x"),
            finding("E103", "write", "/tools/2/x"),
            finding("E103", "read", "/tools/1/x"),
        ];
        let (new, n) = split(now, &baseline);
        assert_eq!(n, 1);
        assert_eq!(new.len(), 2);
        assert_eq!(new[0].location.name(), Some("write"));
    }

    #[test]
    fn other_documents_are_refused() {
        let e = read(r#"{"version": 1, "kind": "x", "findings": []}"#);
        assert!(e.is_err());
        assert!(read("[").is_err());
    }
}
