//! `--snapshots` and `--update-snapshots`: reading and writing each suite
//! directory's `.snapshots.json`. What a snapshot checks, and the file's
//! format, are `mcpcheck_core::snapshot`.

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

/// mcp-assert's checksum: the first 16 hex digits of the text's SHA-256.
fn checksum(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Stores {
    /// Read the snapshot files of the directories of `tests`' tool tests (a
    /// missing file is an empty one); the error names the file.
    pub fn load<'a>(tests: impl Iterator<Item = &'a Test>) -> Result<Stores, String> {
        let mut stores = Stores::default();
        for t in tests.filter(|t| is_tool_test(t)) {
            let dir = dir_of(t);
            if stores.by_dir.contains_key(&dir) {
                continue;
            }
            let path = dir.join(snapshot::FILE_NAME);
            let read = crate::files::read_bounded(&path, crate::files::MAX_INPUT_BYTES);
            let snapshots = match read {
                Ok(text) => Snapshots::parse(&text).map_err(|e| {
                    format!(
                        "{}: {e}; fix it, or remove it and record again with --update-snapshots",
                        path.display()
                    )
                })?,
                Err(crate::files::Why::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                    Snapshots::default()
                }
                Err(why) => return Err(format!("{}: {why}", path.display())),
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
        if !is_tool_test(test) {
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
            if !is_tool_test(t) || t.skip.is_some() {
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
    pub fn write(&self) -> Result<Vec<PathBuf>, String> {
        let mut written = Vec::new();
        for dir in self.changed.keys() {
            let Some(store) = self.by_dir.get(dir) else {
                continue;
            };
            let path = dir.join(snapshot::FILE_NAME);
            std::fs::write(&path, store.to_text())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            written.push(path);
        }
        Ok(written)
    }
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
}
