//! Response snapshots: the text and `isError` of each tool test's answer,
//! recorded once and compared on later runs. The file is mcp-assert's
//! `.snapshots.json` (`{"snapshots": [{name, tool, text, is_error,
//! checksum}]}`, one per suite directory, keyed by test name), so snapshots
//! recorded by either tool are read by the other.
//!
//! A snapshot adds two checks to its test: `text` equals the recorded text,
//! and `result.isError` equals the recorded flag. A tool test without a
//! recorded snapshot gets a check that fails and says how to record one.

use serde_json::{Value, json};

use crate::check::{Check, Matcher, Target};
use crate::diag::Span;
use crate::error::DocError;
use crate::expect::Item;
use crate::path::Path;

/// The name of the snapshot file in a suite directory.
pub const FILE_NAME: &str = ".snapshots.json";

/// One recorded answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The test's name, the key.
    pub name: String,
    pub tool: String,
    pub text: String,
    pub is_error: bool,
    /// mcp-assert's checksum of `text`: the first 16 hex digits of its
    /// SHA-256, computed by the caller (core does no hashing).
    pub checksum: String,
}

/// The snapshots of one suite directory, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshots {
    pub entries: Vec<Snapshot>,
}

/// What recording a snapshot did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    New,
    Changed,
    Same,
}

impl Snapshots {
    /// Read a snapshot file; the error names what is wrong with it.
    pub fn parse(text: &str) -> Result<Snapshots, DocError> {
        let doc: Value = serde_json::from_str(text)
            .map_err(|e| DocError::Invalid(format!("it is not JSON: {e}")))?;
        let list = doc
            .get("snapshots")
            .and_then(Value::as_array)
            .ok_or("it has no `snapshots` list")?;
        let mut entries = Vec::new();
        for (i, s) in list.iter().enumerate() {
            let field = |k: &str| s.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(name), Some(text)) = (field("name"), field("text")) else {
                return Err(format!("snapshot {} has no `name` or no `text`", i + 1).into());
            };
            entries.push(Snapshot {
                name,
                tool: field("tool").unwrap_or_default(),
                text,
                is_error: s.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                checksum: field("checksum").unwrap_or_default(),
            });
        }
        Ok(Snapshots { entries })
    }

    /// The file's text: two-space indented, keys in mcp-assert's order.
    pub fn to_text(&self) -> String {
        let mut out = String::from("{\n  \"snapshots\": [");
        for (i, s) in self.entries.iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            // Written field by field: a JSON map would sort the keys.
            let fields = [
                ("name", json!(s.name)),
                ("tool", json!(s.tool)),
                ("text", json!(s.text)),
                ("is_error", json!(s.is_error)),
                ("checksum", json!(s.checksum)),
            ];
            let body: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("      \"{k}\": {v}"))
                .collect();
            out.push_str(&format!("    {{\n{}\n    }}", body.join(",\n")));
        }
        if !self.entries.is_empty() {
            out.push_str("\n  ");
        }
        out.push_str("]\n}\n");
        out
    }

    pub fn get(&self, name: &str) -> Option<&Snapshot> {
        self.entries.iter().find(|s| s.name == name)
    }

    /// Record `snapshot`, replacing the one of the same name.
    pub fn record(&mut self, snapshot: Snapshot) -> Change {
        match self.entries.iter_mut().find(|s| s.name == snapshot.name) {
            Some(old) if old.text == snapshot.text && old.is_error == snapshot.is_error => {
                Change::Same
            }
            Some(old) => {
                *old = snapshot;
                Change::Changed
            }
            None => {
                self.entries.push(snapshot);
                Change::New
            }
        }
    }
}

/// The checks that compare a tool test's answer with its snapshot, or, when
/// there is none, one that fails and says how to record it.
pub fn checks(snapshot: Option<&Snapshot>) -> Vec<Item> {
    let check = |name: &str, target: &str, matcher: Matcher| {
        Item::Check(Check {
            name: name.into(),
            named: false,
            key: "snapshot",
            wording: crate::check::Wording::Plain,
            target: Target::Doc(Path::fixed(target)),
            matcher,
            weight: 1.0,
            span: Span::default(),
        })
    };
    match snapshot {
        Some(s) => vec![
            check("snapshot text", "text", Matcher::Exact(json!(s.text))),
            check(
                "snapshot isError",
                "result.isError",
                Matcher::Exact(json!(s.is_error)),
            ),
        ],
        None => vec![check(
            "snapshot",
            "text",
            Matcher::Unmet {
                needs: "the recorded answer of this test".into(),
                reason: "no snapshot of this test is recorded: record one with --update-snapshots"
                    .into(),
            },
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Facts;
    use crate::expect::Expectations;
    use crate::score;

    fn snap(name: &str, text: &str) -> Snapshot {
        Snapshot {
            name: name.into(),
            tool: "echo".into(),
            text: text.into(),
            is_error: false,
            checksum: "0123456789abcdef".into(),
        }
    }

    #[test]
    fn reads_and_writes_the_file_format() {
        let mut s = Snapshots::default();
        assert_eq!(s.record(snap("a", "x, \"y\": z")), Change::New);
        assert_eq!(s.record(snap("b", "2")), Change::New);
        assert_eq!(s.record(snap("b", "2")), Change::Same);
        assert_eq!(s.record(snap("b", "3")), Change::Changed);
        let text = s.to_text();
        assert!(
            text.starts_with(
                "{\n  \"snapshots\": [\n    {\n      \"name\": \"a\",\n      \"tool\": \"echo\",\n      \"text\": \"x, \\\"y\\\": z\",\n      \"is_error\": false,\n      \"checksum\": \"0123456789abcdef\"\n    },\n    {\n"
            ),
            "{text}"
        );
        assert_eq!(Snapshots::parse(&text), Ok(s));
        assert_eq!(
            Snapshots::default().to_text(),
            "{\n  \"snapshots\": []\n}\n"
        );
        assert_eq!(
            Snapshots::parse("[]").unwrap_err(),
            DocError::Invalid("it has no `snapshots` list".into())
        );
        assert!(
            Snapshots::parse("{\"snapshots\": [{}]}")
                .unwrap_err()
                .to_string()
                .contains("snapshot 1")
        );
    }

    #[test]
    fn a_snapshot_passes_the_same_answer_and_fails_another() {
        let exp = |s: Option<&Snapshot>| Expectations {
            items: checks(s),
            ..Expectations::default()
        };
        let obs = |text: &str| json!({"result": {"isError": false}, "text": text});
        let s = snap("a", "hello");
        let same = score::score(&exp(Some(&s)), &obs("hello"), &Facts::default());
        assert_eq!(same.verdict, score::Verdict::Pass, "{same:?}");
        let other = score::score(&exp(Some(&s)), &obs("hullo"), &Facts::default());
        assert_eq!(other.verdict, score::Verdict::Fail);
        let none = score::score(&exp(None), &obs("hello"), &Facts::default());
        assert_eq!(none.verdict, score::Verdict::Fail);
        assert!(format!("{none:?}").contains("--update-snapshots"));
    }
}
