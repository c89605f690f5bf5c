//! Response snapshots: the text and `isError` of each tool test's answer,
//! recorded once and compared on later runs. The file is mcp-assert's
//! `.snapshots.json` (`{"snapshots": [{name, tool, text, is_error,
//! checksum}]}`, one per suite directory, keyed by test name), so snapshots
//! recorded by either tool are read by the other.
//!
//! A snapshot adds two checks to its test: `text` equals the recorded text,
//! and `result.isError` equals the recorded flag. A tool test without a
//! recorded snapshot gets a check that fails and says how to record one.
//!
//! Temporary copies of a fixture (`/tmp/mcpcheck-fixture-k3Rb9Q`, made
//! afresh for every test) are recorded as `<temp-copy>` ([`recorded_text`])
//! and compared with every copy normalized the same way
//! ([`crate::temp_copy`]), so an answer that names a file of the fixture
//! matches its snapshot on the next run, and a snapshot recorded before
//! (with the copy's own name) still matches.

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

/// The text a snapshot records of an answer: temporary fixture copies
/// normalized to [`crate::temp_copy::PLACEHOLDER`].
pub fn recorded_text(text: &str) -> String {
    crate::temp_copy::normalize(text).into_owned()
}

/// First words that make a line read as an error report (lower case).
const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "failed",
    "failure",
    "fatal",
    "exception",
    "traceback",
    "invalid",
    "unauthorized",
    "forbidden",
    "cannot",
];

/// Openings that make a line read as an error report (lower case).
const ERROR_OPENINGS: &[&str] = &[
    "can't ",
    "could not ",
    "couldn't ",
    "unable to ",
    "not found",
    "no such ",
    "unknown tool",
    "tool not found",
    "missing required",
    "permission denied",
    "access denied",
    "bad request",
    "internal server error",
    "mcp error",
];

/// Whether `text` reads as an error report: its first non-empty line opens
/// with an error word (`Error`, `Invalid`, `Failed`, `Cannot`, …), an
/// error phrase (`Could not`, `Unable to`, `Not found`, `Unknown tool`,
/// `Permission denied`, …) or an exception's name (`ValueError:`,
/// `McpError:`), or the text is a JSON object whose `error` member is set.
/// The line, when it does.
pub fn reads_as_error(text: &str) -> Option<&str> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let lower = line.to_ascii_lowercase();
    let word: String = lower
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let exception_name = line
        .split([':', ' '])
        .next()
        .filter(|w| {
            w.len() > 5
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        })
        .is_some_and(|w| w.ends_with("Error") || w.ends_with("Exception"));
    if ERROR_WORDS.contains(&word.as_str())
        || ERROR_OPENINGS.iter().any(|o| lower.starts_with(o))
        || exception_name
    {
        return Some(line);
    }
    let json: Value = serde_json::from_str(text.trim()).ok()?;
    let error = json.get("error")?;
    let set = !matches!(error, Value::Null | Value::Bool(false))
        && error.as_str().is_none_or(|s| !s.is_empty());
    set.then_some(line)
}

/// Why a tool's answer is a tool error, if it is: `isError: true`, or text
/// that [reads as an error](reads_as_error) although `isError` is not set.
/// Such an answer shows the arguments were wrong (or the tool failed), not
/// what the tool does.
pub fn tool_error(text: &str, is_error: bool) -> Option<String> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let first = crate::truncate(first, 160);
    if is_error {
        return Some(format!(
            "the answer is a tool error (isError: true): {first}"
        ));
    }
    reads_as_error(text)
        .map(|_| format!("the answer reads as an error (isError is not set): {first}"))
}

/// The check a recording run adds to a tool test: its answer must not be a
/// [tool error](tool_error), so an error is never kept as what the tool
/// should answer.
pub fn no_tool_error_check() -> Item {
    Item::Check(Check {
        name: "the answer is not a tool error".into(),
        named: false,
        key: "snapshot",
        wording: crate::check::Wording::Plain,
        target: Target::Doc(Path::root()),
        matcher: Matcher::NoToolError,
        weight: 1.0,
        span: Span::default(),
    })
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
            check("snapshot text", "text", Matcher::Snapshot(s.text.clone())),
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
        // A temporary fixture copy: another one on every run.
        let copy = snap("a", "wrote /tmp/mcpcheck-fixture-vmhXv7/fs/example");
        let again = obs("wrote /tmp/mcpcheck-fixture-Q2w9Zx/fs/example");
        let later = score::score(&exp(Some(&copy)), &again, &Facts::default());
        assert_eq!(later.verdict, score::Verdict::Pass, "{later:?}");
        let normalized = snap(
            "a",
            &recorded_text("wrote /tmp/mcpcheck-fixture-vmhXv7/fs/example"),
        );
        assert_eq!(normalized.text, "wrote <temp-copy>/fs/example");
        let later = score::score(&exp(Some(&normalized)), &again, &Facts::default());
        assert_eq!(later.verdict, score::Verdict::Pass, "{later:?}");
        let elsewhere = obs("wrote /tmp/mcpcheck-fixture-Q2w9Zx/fs/other");
        let moved = score::score(&exp(Some(&normalized)), &elsewhere, &Facts::default());
        assert_eq!(moved.verdict, score::Verdict::Fail);
        assert!(
            format!("{moved:?}").contains("at character 22"),
            "{moved:?}"
        );
        let none = score::score(&exp(None), &obs("hello"), &Facts::default());
        assert_eq!(none.verdict, score::Verdict::Fail);
        assert!(format!("{none:?}").contains("--update-snapshots"));
    }

    #[test]
    fn tool_errors_are_named_and_fail_the_recording_check() {
        for text in [
            "Invalid timezone: 'No time zone found with key example'",
            "Error executing tool get_current_time: boom",
            "  \nFailed to read the file",
            "ValueError: bad input",
            "Could not resolve host",
            "Unknown tool: foo",
            "{\"error\": \"no such user\"}",
        ] {
            assert!(reads_as_error(text).is_some(), "{text}");
            assert!(
                tool_error(text, false).is_some_and(|w| w.contains("reads as an error")),
                "{text}"
            );
        }
        for text in [
            "2024-01-01T10:00:00-05:00",
            "Errorless run: 3 files",
            "{\"error\": null, \"value\": 3}",
            "{\"error\": \"\"}",
            "The tool reports errors as JSON",
            "",
        ] {
            assert_eq!(reads_as_error(text), None, "{text}");
        }
        assert_eq!(
            tool_error("it broke", true).as_deref(),
            Some("the answer is a tool error (isError: true): it broke")
        );
        let exp = Expectations {
            items: vec![no_tool_error_check()],
            ..Expectations::default()
        };
        let verdict = |obs: Value| score::score(&exp, &obs, &Facts::default());
        let ok = verdict(json!({"result": {"isError": false}, "text": "12:00"}));
        assert_eq!(ok.verdict, score::Verdict::Pass, "{ok:?}");
        let flagged = verdict(json!({"result": {"isError": true}, "text": "Invalid timezone"}));
        assert_eq!(flagged.verdict, score::Verdict::Fail);
        assert!(
            format!("{flagged:?}").contains("isError: true"),
            "{flagged:?}"
        );
        let prose = verdict(json!({"result": {}, "text": "Invalid timezone: 'x'"}));
        assert_eq!(prose.verdict, score::Verdict::Fail);
    }
}
