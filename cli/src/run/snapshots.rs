//! `--snapshots` and `--update-snapshots`: reading and writing each suite
//! directory's `.snapshots.json`, and the snapshots kept in the suite
//! itself (`snapshot:`), which `--update-snapshots` writes in place. What a
//! snapshot checks, the file's format and where an inline one is written
//! are `mcpcheck_core::snapshot`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpcheck_core::snapshot::{self, Change, Snapshot, Snapshots};
use mcpcheck_core::suite::{Action, Test};
use sha2::{Digest, Sha256};

use super::exec::Answer;

/// The snapshot file of each directory that holds a tool test.
#[derive(Debug, Default)]
pub struct Stores {
    by_dir: BTreeMap<PathBuf, Snapshots>,
    changed: BTreeMap<PathBuf, bool>,
}

/// How many answers recording found new, changed and the same.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    pub new: usize,
    pub changed: usize,
    pub same: usize,
    /// Tool tests without an answer to record (an error, a JSON-RPC error).
    pub missing: usize,
    /// The answers recorded that are tool errors
    /// ([`snapshot::tool_error`]), by test name with why.
    pub tool_errors: Vec<(String, String)>,
}

/// The directory whose snapshot file holds `test`'s answer: its file's.
fn dir_of(test: &Test) -> PathBuf {
    match Path::new(&test.file).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether `test` calls a tool: only those have a snapshot.
pub fn is_tool_test(test: &Test) -> bool {
    matches!(test.action, Action::Tool { .. })
}

/// Whether `test`'s snapshot is in `.snapshots.json`: a tool test without a
/// `snapshot:` of its own.
fn in_file(test: &Test) -> bool {
    is_tool_test(test) && test.snapshot.is_none()
}

/// mcp-assert's checksum: the first 16 hex digits of the text's SHA-256.
fn checksum(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A snapshot file that could not be read; it names the file.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotFileError {
    #[error(
        "{}: {source}; fix it, or remove it and record again with --update-snapshots",
        .path.display()
    )]
    Invalid {
        path: PathBuf,
        #[source]
        source: mcpcheck_core::error::DocError,
    },
    #[error("{}: {why}", .path.display())]
    Unreadable {
        path: PathBuf,
        why: crate::files::Why,
    },
}

impl Stores {
    /// Read the snapshot files of the directories of `tests`' tool tests (a
    /// missing file is an empty one); the error names the file.
    pub fn load<'a>(tests: impl Iterator<Item = &'a Test>) -> Result<Stores, SnapshotFileError> {
        let mut stores = Stores::default();
        for t in tests.filter(|t| in_file(t)) {
            let dir = dir_of(t);
            if stores.by_dir.contains_key(&dir) {
                continue;
            }
            let path = dir.join(snapshot::FILE_NAME);
            let read = crate::files::read_bounded(&path, crate::files::MAX_INPUT_BYTES);
            let snapshots = match read {
                Ok(text) => {
                    Snapshots::parse(&text).map_err(|source| SnapshotFileError::Invalid {
                        path: path.clone(),
                        source,
                    })?
                }
                Err(crate::files::Why::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                    Snapshots::default()
                }
                Err(why) => return Err(SnapshotFileError::Unreadable { path, why }),
            };
            stores.by_dir.insert(dir, snapshots);
        }
        Ok(stores)
    }

    /// The answer recorded for `test`, if any.
    pub fn recorded(&self, test: &Test) -> Option<&Snapshot> {
        self.by_dir
            .get(&dir_of(test))
            .and_then(|s| s.get(&test.name))
    }

    /// Add the snapshot checks to a tool test.
    pub fn add_checks(&self, test: &mut Test) {
        if !in_file(test) {
            return;
        }
        test.expect
            .items
            .extend(snapshot::checks(self.recorded(test)));
    }

    /// Record the answers of a run's tool tests (`answers` in `tests`' order).
    pub fn record<'a>(
        &mut self,
        tests: impl Iterator<Item = &'a Test>,
        answers: &[Option<Answer>],
    ) -> Recorded {
        let mut counts = Recorded::default();
        for (t, answer) in tests.zip(answers) {
            if !in_file(t) || t.skip.is_some() {
                continue;
            }
            let Some(a) = answer else {
                counts.missing += 1;
                continue;
            };
            if let Some(why) = snapshot::tool_error(&a.text, a.is_error) {
                counts.tool_errors.push((t.name.clone(), why));
            }
            let dir = dir_of(t);
            let store = self.by_dir.entry(dir.clone()).or_default();
            let text = snapshot::recorded_text(&a.text);
            let change = store.record(Snapshot {
                name: t.name.clone(),
                tool: a.tool.clone(),
                checksum: checksum(&text),
                text,
                is_error: a.is_error,
            });
            match change {
                Change::New => counts.new += 1,
                Change::Changed => counts.changed += 1,
                Change::Same => counts.same += 1,
            }
            if change != Change::Same {
                self.changed.insert(dir, true);
            }
        }
        counts
    }

    /// Write the files that recording changed; the paths written.
    pub fn write(&self) -> Result<Vec<PathBuf>, crate::files::WriteError> {
        let mut written = Vec::new();
        for dir in self.changed.keys() {
            let Some(store) = self.by_dir.get(dir) else {
                continue;
            };
            let path = dir.join(snapshot::FILE_NAME);
            std::fs::write(&path, store.to_text())
                .map_err(crate::files::WriteError::write(&path))?;
            written.push(path);
        }
        Ok(written)
    }
}

/// `--update-snapshots` records an inline snapshot's answer, so the
/// comparison with the one written is left out of that run.
pub fn drop_inline_checks(test: &mut Test) {
    if test.snapshot.is_some() {
        test.expect
            .items
            .retain(|i| !matches!(i, mcpcheck_core::expect::Item::Check(c) if c.key == "snapshot"));
    }
}

/// Write the answers of the tests with a `snapshot:` of their own into
/// their suite files (`answers` in `tests`' order), each in place of the
/// value written before: the rest of each file stays as it is. Tests are
/// found again in the file as it is now, by name and occurrence, and every
/// edit is read back: an answer that a literal block would not give back
/// exactly is written double-quoted.
pub fn record_inline<'a>(
    tests: impl Iterator<Item = &'a Test>,
    answers: &[Option<Answer>],
) -> (Recorded, Vec<PathBuf>, Vec<String>) {
    let mut counts = Recorded::default();
    let mut by_file: BTreeMap<String, Vec<(String, usize, snapshot::Recorded)>> = BTreeMap::new();
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (t, answer) in tests.zip(answers) {
        let n = seen.entry((t.file.clone(), t.name.clone())).or_insert(0);
        let occurrence = *n;
        *n += 1;
        let Some(inline) = &t.snapshot else { continue };
        if t.skip.is_some() {
            continue;
        }
        let Some(a) = answer else {
            counts.missing += 1;
            continue;
        };
        if let Some(why) = snapshot::tool_error(&a.text, a.is_error) {
            counts.tool_errors.push((t.name.clone(), why));
        }
        let new = snapshot::Recorded {
            text: snapshot::recorded_text(&a.text),
            is_error: a.is_error,
        };
        match &inline.recorded {
            Some(old) if *old == new => counts.same += 1,
            Some(_) => counts.changed += 1,
            None => counts.new += 1,
        }
        if inline.recorded.as_ref() != Some(&new) {
            by_file
                .entry(t.file.clone())
                .or_default()
                .push((t.name.clone(), occurrence, new));
        }
    }
    let mut written = Vec::new();
    let mut errors = Vec::new();
    for (file, edits) in by_file {
        match edit_file(&file, &edits) {
            Ok(()) => written.push(PathBuf::from(&file)),
            Err(e) => errors.push(format!("{file}: {e}")),
        }
    }
    (counts, written, errors)
}

/// The inline snapshot of the `occurrence`-th test called `name` in the
/// suite `text` of `file`.
fn inline_of(
    file: &str,
    text: &str,
    name: &str,
    occurrence: usize,
) -> Option<snapshot::InlineSnapshot> {
    let loaded = mcpcheck_core::suite::load(file, text);
    loaded
        .suite
        .tests
        .into_iter()
        .filter(|t| t.name == name)
        .nth(occurrence)
        .and_then(|t| t.snapshot)
}

/// Write `edits` (test name, occurrence, answer) into the suite file.
fn edit_file(file: &str, edits: &[(String, usize, snapshot::Recorded)]) -> Result<(), EditError> {
    let path = Path::new(file);
    let mut text = crate::files::read_bounded(path, crate::files::MAX_INPUT_BYTES)
        .map_err(EditError::Reread)?;
    for (name, occurrence, answer) in edits {
        let found = inline_of(file, &text, name, *occurrence)
            .ok_or_else(|| EditError::Gone(name.clone()))?;
        let mut done = false;
        for block in [true, false] {
            let (range, value) =
                snapshot::inline_edit(&text, &found, answer, block).map_err(|source| {
                    EditError::Edit {
                        test: name.clone(),
                        source,
                    }
                })?;
            let mut candidate = text.clone();
            candidate.replace_range(range, &value);
            let back = inline_of(file, &candidate, name, *occurrence);
            if back.and_then(|s| s.recorded).as_ref() == Some(answer) {
                text = candidate;
                done = true;
                break;
            }
        }
        if !done {
            return Err(EditError::NotReadBack(name.clone()));
        }
    }
    std::fs::write(path, text).map_err(EditError::Write)
}

/// Why a suite file's inline snapshots were not written (said after the
/// file's name).
#[derive(Debug, thiserror::Error)]
enum EditError {
    #[error("cannot read it again: {0}")]
    Reread(#[source] crate::files::Why),
    /// The test (by name) is no longer there.
    #[error(
        "the test {0:?} or its `snapshot:` is no longer in the file: its answer was not written"
    )]
    Gone(String),
    #[error("the test {test:?}: {source}")]
    Edit {
        test: String,
        #[source]
        source: snapshot::InlineEditError,
    },
    #[error(
        "the answer of the test {0:?} could not be written so that it reads back the same: the file was left as it was"
    )]
    NotReadBack(String),
    #[error("cannot write it: {0}")]
    Write(#[source] std::io::Error),
}

impl Recorded {
    /// Count `other` in too.
    pub fn add(&mut self, other: Recorded) {
        self.new += other.new;
        self.changed += other.changed;
        self.same += other.same;
        self.missing += other.missing;
        self.tool_errors.extend(other.tool_errors);
    }

    /// ` (why)` when the one answer recorded is a tool error, else nothing.
    pub fn tool_error_note(&self) -> String {
        self.tool_errors
            .first()
            .map(|(_, why)| format!(" ({why})"))
            .unwrap_or_default()
    }

    /// One line for the end of the run, then the tool errors, one a line.
    pub fn summary(&self, written: &[PathBuf]) -> String {
        let mut line = format!(
            "snapshots: {} new, {} changed, {} unchanged",
            self.new, self.changed, self.same
        );
        if self.missing > 0 {
            line.push_str(&format!(
                ", {} not recorded (no answer: an error or a JSON-RPC error)",
                self.missing
            ));
        }
        if !written.is_empty() {
            let paths: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
            line.push_str(&format!("; written to {}", paths.join(", ")));
        }
        line.push('\n');
        if !self.tool_errors.is_empty() {
            let n = self.tool_errors.len();
            line.push_str(&format!(
                "{} recorded as what the test expects, so the test passes only while the tool keeps failing (check the arguments):\n",
                mcpcheck_core::report::plural(n, "answer is a tool error,", "answers are tool errors,"),
            ));
            for (name, why) in &self.tool_errors {
                line.push_str(&format!("  {name}: {why}\n"));
            }
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_is_the_sha256_prefix() {
        assert_eq!(checksum("2"), "d4735e3a265e16ee");
    }

    #[test]
    fn a_suite_file_that_cannot_take_its_snapshots_says_why() {
        let dir = std::env::temp_dir().join(format!("mcpcheck-edit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let file = dir.join("s.yaml");
        std::fs::write(
            &file,
            "name: s\nservers: {ref: {command: x}}\ntests:\n  - {name: t, server: ref, tool: echo, snapshot: old}\n",
        )
        .expect("written");
        let answer = snapshot::Recorded {
            text: "new".into(),
            is_error: false,
        };
        let file = file.display().to_string();
        let gone = edit_file(&file, &[("u".into(), 0, answer.clone())]).expect_err("no test u");
        assert_eq!(
            gone.to_string(),
            "the test \"u\" or its `snapshot:` is no longer in the file: its answer was not written"
        );
        let flow = edit_file(&file, &[("t".into(), 0, answer)]).expect_err("a flow mapping");
        assert!(matches!(flow, EditError::Edit { .. }), "{flow:?}");
        assert!(
            flow.to_string()
                .starts_with("the test \"t\": its `snapshot` is inside"),
            "{flow}"
        );
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
