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
//! (with the copy's own name) still matches. The tag mcpcheck gives every
//! server it starts ([`process_tag`], in its environment) is recorded as
//! `<mcpcheck-tag>` the same way, so a server that echoes its environment
//! is not blamed for a value mcpcheck made.

use std::borrow::Cow;

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
/// normalized to [`crate::temp_copy::PLACEHOLDER`], mcpcheck's process tags
/// to [`TAG_PLACEHOLDER`].
pub fn recorded_text(text: &str) -> String {
    normalize(text).into_owned()
}

/// `text` as a snapshot compares it: equal for two runs that differ only in
/// their fixture copies and in the tags mcpcheck gave their servers.
pub fn normalize(text: &str) -> Cow<'_, str> {
    let copies = crate::temp_copy::normalize(text);
    if !copies.contains(TAG_PREFIX) {
        return copies;
    }
    Cow::Owned(normalize_tags(&copies).into_owned())
}

/// How every process tag starts.
const TAG_PREFIX: &str = "mcpcheck-tag-";

/// What a process tag is normalized to.
pub const TAG_PLACEHOLDER: &str = "<mcpcheck-tag>";

/// The tag mcpcheck puts in the environment of a server it starts, so it
/// can find the server's descendants that leave its process group: this
/// process's id and `which` (a counter, or a word). Every tag of one
/// mcpcheck process starts with `process_tag(pid, "")`.
pub fn process_tag(pid: u32, which: &str) -> String {
    format!("{TAG_PREFIX}{pid}-{which}")
}

/// `text` with every process tag (`mcpcheck-tag-`, digits, `-`, then
/// lower-case letters and digits) replaced by [`TAG_PLACEHOLDER`].
fn normalize_tags(text: &str) -> Cow<'_, str> {
    if !text.contains(TAG_PREFIX) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(TAG_PREFIX) {
        let after = &rest[at + TAG_PREFIX.len()..];
        let pid = after.bytes().take_while(u8::is_ascii_digit).count();
        let which = after[pid..]
            .strip_prefix('-')
            .map(|w| {
                w.bytes()
                    .take_while(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
                    .count()
            })
            .unwrap_or(0);
        if pid > 0 && which > 0 {
            out.push_str(&rest[..at]);
            out.push_str(TAG_PLACEHOLDER);
            rest = &after[pid + 1 + which..];
        } else {
            out.push_str(&rest[..at + TAG_PREFIX.len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
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

/// A test's expected answer written in its suite: `snapshot:` (both suite
/// forms). Its value is the answer's text, or `{text, is_error}` for an
/// answer that is a tool error; left empty, `run --update-snapshots` fills
/// it in. Every run compares the test's answer with it, as with a
/// `.snapshots.json` snapshot ([`checks`]), and `--update-snapshots`
/// writes the new answer in its place, in the file's own text
/// ([`inline_edit`]), so a review shows the expected answer in the diff.
#[derive(Clone, Debug, PartialEq)]
pub struct InlineSnapshot {
    /// The answer written, `None` while `snapshot:` is empty.
    pub recorded: Option<Recorded>,
    /// Where the `snapshot` key is written.
    pub key: Span,
    /// Where its value is written (`None` when it is empty).
    pub value: Option<Span>,
}

/// An answer as a snapshot keeps it: its text (fixture copies normalized,
/// see [`recorded_text`]) and whether it is a tool error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub text: String,
    pub is_error: bool,
}

/// Read a test's `snapshot:` (`key` where the key is, `v` its value);
/// `is_tool` tells whether the test calls a tool (only those have one).
/// Problems are diagnostics; `None` when the key cannot be used.
pub(crate) fn read_inline(
    cx: &mut crate::read::LoadCx,
    key: Span,
    v: &crate::yaml::Node,
    is_tool: bool,
) -> Option<InlineSnapshot> {
    if !is_tool {
        cx.error_hint(
            key,
            "`snapshot` is the answer of a tool test, and this test calls no tool",
            "remove it, or give the test an `assert:` block (a `tool:` in a `tests:` list)",
        );
        return None;
    }
    let value = (!v.is_null()).then_some(v.span);
    let recorded = if v.is_null() {
        None
    } else if v.as_map().is_some() {
        let entries = cx.entries(v, "snapshot", &["text", "is_error"]);
        let mut text = None;
        let mut is_error = false;
        for (k, _, n) in entries {
            match k {
                "text" => text = cx.string(n, "text"),
                _ => is_error = cx.bool(n, "is_error").unwrap_or(false),
            }
        }
        match text {
            Some(text) => Some(Recorded { text, is_error }),
            None => {
                cx.error_hint(
                    v.span,
                    "this `snapshot` has no `text`",
                    "write the answer's text as `text:` (or leave `snapshot:` empty for --update-snapshots to fill in)",
                );
                return None;
            }
        }
    } else if v.as_seq().is_some() {
        cx.error_hint(
            v.span,
            "`snapshot` is the answer's text, or `{text, is_error}`, not a list",
            "leave `snapshot:` empty and run with --update-snapshots to record it",
        );
        return None;
    } else {
        Some(Recorded {
            text: cx.string(v, "snapshot")?,
            is_error: false,
        })
    };
    Some(InlineSnapshot {
        recorded,
        key,
        value,
    })
}

/// The checks of an inline snapshot: those of [`checks`], located at the
/// snapshot in the suite, so a report points at the expected answer.
pub fn inline_checks(s: &InlineSnapshot) -> Vec<Item> {
    let snapshot = s.recorded.as_ref().map(|r| Snapshot {
        name: String::new(),
        tool: String::new(),
        text: r.text.clone(),
        is_error: r.is_error,
        checksum: String::new(),
    });
    let mut items = checks(snapshot.as_ref());
    for item in &mut items {
        if let Item::Check(c) = item {
            c.span = s.value.unwrap_or(s.key);
            if snapshot.is_none()
                && let Matcher::Unmet { reason, .. } = &mut c.matcher
            {
                *reason = "`snapshot:` is empty: record the answer with --update-snapshots".into();
            }
        }
    }
    items
}

/// The byte offset of a 1-based line and column (in characters) of `text`;
/// the end of the text when it is past it.
fn offset(text: &str, line: u32, col: u32) -> usize {
    let mut at = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let chars = col.saturating_sub(1) as usize;
            return at
                + l.char_indices()
                    .nth(chars)
                    .map_or(l.trim_end_matches('\n').len(), |(b, _)| b);
        }
        at += l.len();
    }
    text.len()
}

/// Whether YAML can hold `c` as it is (its printable set, and tab).
fn yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// `s` as a YAML double-quoted scalar: every character YAML cannot hold as
/// it is escaped.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if yaml_printable(c) && c != '\u{85}' && c != '\u{feff}' => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// `text` as a YAML value after `key:` whose content lines are indented by
/// `indent` spaces: with `block`, a literal block (`|-`, `|`, `|+`, with an
/// indentation indicator when the first line starts with a space) for text
/// of several lines that YAML can hold as it is; otherwise a double-quoted
/// scalar on the key's line. As (what goes on the key's line, starting with
/// the space after the colon; the lines below it, each after a newline).
fn scalar_value(text: &str, indent: usize, block: bool) -> (String, String) {
    let block = block
        && text.contains('\n')
        && text
            .chars()
            .all(|c| yaml_printable(c) && c != '\u{85}' && c != '\u{feff}');
    if !block {
        return (format!(" {}", double_quoted(text)), String::new());
    }
    let body = text.trim_end_matches('\n');
    let chomp = match text.len() - body.len() {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let first = body.split('\n').find(|l| !l.is_empty()).unwrap_or("");
    let indicator = if first.starts_with(' ') || body.is_empty() {
        "2"
    } else {
        ""
    };
    let pad = " ".repeat(indent);
    // The lines of the text, and for `|+` its empty trailing lines too.
    let lines: Vec<&str> = if chomp == "+" {
        let all: Vec<&str> = text.split('\n').collect();
        all[..all.len() - 1].to_vec()
    } else {
        body.split('\n').collect()
    };
    let mut below = String::new();
    for l in lines {
        below.push('\n');
        if !l.is_empty() {
            below.push_str(&pad);
            below.push_str(l);
        }
    }
    (format!(" |{indicator}{chomp}"), below)
}

/// Why a snapshot's answer cannot be written into its suite file.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum InlineEditError {
    #[error(
        "its `snapshot` is inside a `{{…}}` mapping: write the test in block style (one key a line) to have it updated"
    )]
    FlowMapping,
    #[error("its `snapshot` key could not be found where the suite says it is")]
    KeyNotFound,
}

/// How `--update-snapshots` writes `answer` into the suite `text` at
/// snapshot `s` (read from that same text): the byte range to replace and
/// what to put there. The rest of the file (comments, layout, the other
/// keys) stays as it is; only the snapshot's value changes, and a comment
/// on the key's line is kept. The value ends where the key's block ends:
/// the last line indented deeper than the key (a value on the key's line
/// ends with it). With `block`, text of several lines is written as a
/// literal block, else as a double-quoted scalar (which holds any text; a
/// caller that reads the result back and finds another answer writes that
/// instead). `Err` when the key is not written in block style (a `{…}`
/// test).
pub fn inline_edit(
    text: &str,
    s: &InlineSnapshot,
    answer: &Recorded,
    block: bool,
) -> Result<(std::ops::Range<usize>, String), InlineEditError> {
    let key_start = offset(text, s.key.line, s.key.col);
    let line_start = text[..key_start].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..key_start];
    if !prefix.chars().all(|c| c == ' ' || c == '-') {
        return Err(InlineEditError::FlowMapping);
    }
    let indent = prefix.chars().count();
    let after_key = &text[key_start..];
    let colon = after_key
        .find(':')
        .filter(|i| after_key[..*i].trim_end().trim_matches(['"', '\'']) == "snapshot")
        .ok_or(InlineEditError::KeyNotFound)?;
    let start = key_start + colon + 1;
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    // What follows the value on the key's line: a comment, kept.
    let comment_of = |from: usize| -> &str {
        let rest = &text[from.min(line_end)..line_end];
        if rest.trim_start().starts_with('#') && (rest.starts_with([' ', '\t']) || rest.is_empty())
        {
            rest
        } else {
            ""
        }
    };
    let (end, comment) = match s.value {
        // A value on the key's line (a plain or quoted scalar, `{…}`).
        Some(v) if v.line == s.key.line && v.end_line == v.line => {
            let first = text[start..line_end].trim_start();
            if first.starts_with('|') || first.starts_with('>') {
                (block_end(text, line_end, indent), "")
            } else {
                let at = offset(text, v.line, v.col);
                // The parser's span of a quoted scalar runs on past its
                // closing quote: that quote ends it.
                let end = quoted_end(text, at, line_end)
                    .unwrap_or_else(|| offset(text, v.end_line, v.end_col).clamp(start, line_end));
                (line_end, comment_of(end))
            }
        }
        Some(_) => (block_end(text, line_end, indent), ""),
        // An empty value: the key's line, and its comment.
        None => {
            let rest = &text[start..line_end];
            let from = rest
                .find(" #")
                .or_else(|| rest.find("\t#"))
                .map_or(rest.len(), |i| rest[..=i].trim_end().len());
            (line_end, &rest[from..])
        }
    };
    let content = indent + 2;
    let (head, below) = if answer.is_error {
        let pad = " ".repeat(content);
        let (h, b) = scalar_value(&answer.text, content + 2, block);
        (
            String::new(),
            format!("\n{pad}text:{h}{b}\n{pad}is_error: true"),
        )
    } else {
        scalar_value(&answer.text, content, block)
    };
    Ok((start..end, format!("{head}{comment}{below}")))
}

/// Just past the closing quote of the quoted scalar that starts at `at`
/// (before `line_end`); `None` when none starts there.
fn quoted_end(text: &str, at: usize, line_end: usize) -> Option<usize> {
    let line = &text[at..line_end];
    let quote = line.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let mut chars = line.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if quote == '"' => {
                chars.next();
            }
            c if c == quote => {
                if quote == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                    chars.next();
                    continue;
                }
                return Some(at + i + 1);
            }
            _ => {}
        }
    }
    None
}

/// The end of the block below a key's line that ends at `line_end`: its
/// last line indented deeper than `indent` (blank lines inside count,
/// trailing ones do not).
fn block_end(text: &str, line_end: usize, indent: usize) -> usize {
    let mut end = line_end;
    let mut at = line_end;
    while at < text.len() {
        let next = at + 1;
        let stop = text[next..].find('\n').map_or(text.len(), |i| next + i);
        let line = &text[next..stop];
        let depth = line.len() - line.trim_start_matches(' ').len();
        if !line.trim().is_empty() {
            if depth <= indent {
                break;
            }
            end = stop;
        }
        at = stop;
    }
    end
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
    fn the_tag_mcpcheck_gives_a_server_is_not_part_of_its_answer() {
        let exp = |s: &Snapshot| Expectations {
            items: checks(Some(s)),
            ..Expectations::default()
        };
        let obs = |text: &str| json!({"result": {"isError": false}, "text": text});
        let env =
            |tag: &str| format!("{{\"HOME\": \"/root\", \"MCPCHECK_PROCESS_TAG\": \"{tag}\"}}");
        let first = env(&process_tag(30690, "2"));
        assert_eq!(
            recorded_text(&first),
            "{\"HOME\": \"/root\", \"MCPCHECK_PROCESS_TAG\": \"<mcpcheck-tag>\"}"
        );
        // Recorded raw or normalized, another run's tag matches.
        for recorded in [first.clone(), recorded_text(&first)] {
            let s = snap("env", &recorded);
            for tag in [process_tag(41, "17"), process_tag(7, "intercept")] {
                let got = score::score(&exp(&s), &obs(&env(&tag)), &Facts::default());
                assert_eq!(got.verdict, score::Verdict::Pass, "{got:?}");
            }
            // What is not a tag still counts.
            let home = env(&process_tag(41, "17")).replace("/root", "/home");
            let got = score::score(&exp(&s), &obs(&home), &Facts::default());
            assert_eq!(got.verdict, score::Verdict::Fail);
        }
        // Only a whole tag is one; the rest of the text is kept.
        assert_eq!(
            normalize("mcpcheck-tag- mcpcheck-tag-12- mcpcheck-tag-x-1 mcpcheck-tag-12-3a."),
            "mcpcheck-tag- mcpcheck-tag-12- mcpcheck-tag-x-1 <mcpcheck-tag>."
        );
        assert!(matches!(normalize("no tag"), Cow::Borrowed("no tag")));
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

    /// The snapshot of the test called `name` in `text`.
    fn inline(text: &str, name: &str) -> InlineSnapshot {
        let loaded = crate::suite::load("s.yaml", text);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded
            .suite
            .tests
            .into_iter()
            .find(|t| t.name == name)
            .and_then(|t| t.snapshot)
            .unwrap_or_else(|| panic!("no snapshot on {name}"))
    }

    /// `text` with the snapshot of `name` set to `answer`, as
    /// `--update-snapshots` writes it (a block when it reads back, else
    /// quoted).
    fn updated(text: &str, name: &str, answer: &Recorded) -> String {
        for block in [true, false] {
            let (range, value) = inline_edit(text, &inline(text, name), answer, block).unwrap();
            let mut out = text.to_string();
            out.replace_range(range, &value);
            if inline(&out, name).recorded.as_ref() == Some(answer) {
                return out;
            }
        }
        panic!("{answer:?} does not read back")
    }

    fn answer(text: &str, is_error: bool) -> Recorded {
        Recorded {
            text: text.into(),
            is_error,
        }
    }

    const COMPOSED: &str = "name: s
servers:
  ref: {command: x}
tests:
  # the first test
  - name: plain
    server: ref
    tool: echo
    snapshot: \"old answer\"  # a note
    tags: [a]
  - name: empty
    server: ref
    tool: echo
    snapshot:   # fill me
  - snapshot: |
      two
      lines
    name: first key
    server: ref
    tool: echo
  # the end
";

    #[test]
    fn an_inline_snapshot_is_read_in_both_forms_and_checked_at_its_line() {
        let s = inline(COMPOSED, "plain");
        assert_eq!(s.recorded, Some(answer("old answer", false)));
        assert_eq!(s.key.line, 9);
        assert_eq!(inline(COMPOSED, "empty").recorded, None);
        assert_eq!(
            inline(COMPOSED, "first key").recorded,
            Some(answer("two\nlines\n", false))
        );
        let items = inline_checks(&s);
        assert_eq!(items.len(), 2);
        let Item::Check(c) = &items[0] else {
            panic!("a check")
        };
        assert_eq!(c.span.line, 9);
        let file = "name: t\nserver: {command: x}\nassert: {tool: echo}\nsnapshot: {text: nope, is_error: true}\n";
        assert_eq!(inline(file, "t").recorded, Some(answer("nope", true)));
        let empty = inline(
            "name: t\nserver: {command: x}\nassert: {tool: echo}\nsnapshot:\n",
            "t",
        );
        assert_eq!(empty.recorded, None);
        let Item::Check(c) = &inline_checks(&empty)[0] else {
            panic!("a check")
        };
        assert!(
            matches!(&c.matcher, Matcher::Unmet { reason, .. } if reason.contains("--update-snapshots"))
        );
    }

    #[test]
    fn a_snapshot_where_it_does_not_belong_is_an_error() {
        for (text, says) in [
            (
                "name: t\nserver: {command: x}\nassert_prompts: {list: {}}\nsnapshot: x\n",
                "calls no tool",
            ),
            (
                "name: t\nserver: {command: x}\nassert: {tool: echo}\nsnapshot: [a]\n",
                "not a list",
            ),
            (
                "name: t\nserver: {command: x}\nassert: {tool: echo}\nsnapshot: {is_error: true}\n",
                "no `text`",
            ),
            (
                "name: t\nserver: {command: x}\nassert: {tool: echo}\nsnapshot: {text: a, iserror: true}\n",
                "unknown key",
            ),
        ] {
            let loaded = crate::suite::load("s.yaml", text);
            assert!(
                loaded.diagnostics.iter().any(|d| d.message.contains(says)),
                "{text}: {:?}",
                loaded.diagnostics
            );
        }
    }

    #[test]
    fn updating_changes_the_value_only_and_keeps_comments_and_layout() {
        let one = updated(COMPOSED, "plain", &answer("hello", false));
        assert!(
            one.contains("    snapshot: \"hello\"  # a note\n    tags: [a]\n"),
            "{one}"
        );
        let two = updated(&one, "empty", &answer("a\nb", false));
        assert!(
            two.contains("    snapshot: |-   # fill me\n      a\n      b\n  - snapshot:"),
            "{two}"
        );
        let three = updated(&two, "first key", &answer("disk full", true));
        assert!(
            three.contains("  - snapshot:\n      text: \"disk full\"\n      is_error: true\n    name: first key\n"),
            "{three}"
        );
        // Everything else is as it was.
        for line in COMPOSED
            .lines()
            .filter(|l| !l.contains("snapshot") && !l.starts_with("      "))
        {
            assert!(three.contains(line), "{line:?} is gone:\n{three}");
        }
        assert!(three.ends_with("  # the end\n"));
    }

    #[test]
    fn any_text_reads_back_as_it_was() {
        let file =
            "name: t\nserver: {command: x}\nassert: {tool: echo}\nsnapshot: old\ntimeout: 5s\n";
        for text in [
            "",
            "one line",
            "two\nlines",
            "trailing newline\n",
            "two trailing\n\n",
            "  leading spaces\nnext",
            "\n\nleading blank lines",
            "tab\tinside\nand \"quotes\" and \\ backslash",
            "control \u{1} and \r\n carriage",
            "unicode é ü 😀\nsecond",
            "# looks like a comment\n- looks: like yaml",
            "line with trailing space \nnext",
        ] {
            for is_error in [false, true] {
                let out = updated(file, "t", &answer(text, is_error));
                assert!(out.ends_with("timeout: 5s\n"), "{text:?}: {out}");
                let loaded = crate::suite::load("s.yaml", &out);
                assert!(!loaded.has_errors(), "{text:?}: {out}");
            }
        }
    }

    #[test]
    fn a_snapshot_inside_a_flow_mapping_is_not_rewritten() {
        let text = "name: s\nservers: {ref: {command: x}}\ntests:\n  - {name: t, server: ref, tool: echo, snapshot: old}\n";
        let e = inline_edit(text, &inline(text, "t"), &answer("new", false), true).unwrap_err();
        assert_eq!(e, InlineEditError::FlowMapping);
        assert_eq!(
            e.to_string(),
            "its `snapshot` is inside a `{…}` mapping: write the test in block style (one key a line) to have it updated"
        );
    }
}
