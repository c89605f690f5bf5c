//! The last run, for `--last-failed`: every `run` and `ci` saves its results
//! document (the one `--json` prints, secrets hidden) to
//! `.mcpcheck/last-run.json` in the working directory, as pytest keeps its
//! `.pytest_cache` and Playwright its `.last-run.json`. `--last-failed` runs
//! only the tests of the current selection that did not pass there (failed
//! or errored; a flaky test passed), matched by file, name and occurrence.
//!
//! The folder gets a `.gitignore` that ignores this file (and itself) when
//! it has none, so a `.mcpcheck/baseline.json` kept beside it is still
//! committed. A results file that cannot be written is said on stderr and
//! never fails the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mcpcheck_core::baseline::normalize_file;
use mcpcheck_core::results::{Results, TestStatus};

use super::Planned;
use crate::files::WriteError;

/// The folder, relative to the working directory.
pub const DIR: &str = ".mcpcheck";

/// The file in it.
pub const FILE: &str = "last-run.json";

/// `.mcpcheck/last-run.json`.
pub fn path() -> PathBuf {
    Path::new(DIR).join(FILE)
}

/// Save `doc` as the last run under `dir` (the working directory).
pub fn save_in(dir: &Path, doc: &Results) -> Result<PathBuf, WriteError> {
    let folder = dir.join(DIR);
    std::fs::create_dir_all(&folder).map_err(WriteError::create(&folder))?;
    let ignore = folder.join(".gitignore");
    if !ignore.exists() {
        let text = "# mcpcheck's last run, for `mcpcheck run --last-failed`: not to commit.\nlast-run.json\n.gitignore\n";
        std::fs::write(&ignore, text).map_err(WriteError::write(&ignore))?;
    }
    let file = folder.join(FILE);
    // Written aside, then renamed: a run reading it meanwhile reads a whole
    // document, the old or the new.
    let aside = folder.join(format!("{FILE}.{}.tmp", std::process::id()));
    std::fs::write(&aside, doc.to_json() + "\n")
        .and_then(|()| std::fs::rename(&aside, &file))
        .map_err(|e| {
            let _ = std::fs::remove_file(&aside);
            WriteError::write(&file)(e)
        })?;
    Ok(file)
}

/// Save `doc` as the last run in the working directory; a failure is said
/// on stderr.
pub fn save(doc: &Results) {
    if let Err(e) = save_in(Path::new("."), doc) {
        crate::output::err(&format!(
            "mcpcheck: this run's results were not saved for --last-failed: {e}\n"
        ));
    }
}

/// Read the last run saved under `dir`.
pub fn read_in(dir: &Path) -> Result<Results, LastRunError> {
    let file = dir.join(DIR).join(FILE);
    let text = match crate::files::read_bounded(&file, crate::files::MAX_INPUT_BYTES) {
        Ok(t) => t,
        Err(crate::files::Why::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(LastRunError::NoneSaved(path()));
        }
        Err(why) => return Err(LastRunError::Unreadable { file, why }),
    };
    Results::from_json(&text).map_err(|source| LastRunError::Invalid { file, source })
}

/// Why `--last-failed` has no last run to go by.
#[derive(Debug, thiserror::Error)]
pub enum LastRunError {
    #[error(
        "--last-failed: no run was saved in {} yet: run the suite once without it (every run saves its results there)",
        .0.display()
    )]
    NoneSaved(PathBuf),
    #[error("--last-failed: cannot read {}: {why}", .file.display())]
    Unreadable {
        file: PathBuf,
        why: crate::files::Why,
    },
    #[error("--last-failed: {}: {source}; remove it and run the suite again", .file.display())]
    Invalid {
        file: PathBuf,
        #[source]
        source: mcpcheck_core::error::DocError,
    },
}

/// `--last-failed`: keep in `plan` the tests that did not pass in the last
/// run saved in the working directory; `false` (said on stderr) when none
/// of them is left to run.
pub(super) fn select(plan: &mut Vec<Planned>) -> crate::error::Result<bool> {
    let last = read_in(Path::new(".")).map_err(|e| crate::error::Error::Usage(e.to_string()))?;
    if keep_failed(plan, &last) == 0 {
        crate::output::err(&format!(
            "mcpcheck: no test of this selection failed in the last run ({}): nothing to run\n",
            path().display()
        ));
        return Ok(false);
    }
    Ok(true)
}

/// Keep in `plan` only the tests that did not pass in `last` (failed or
/// errored), renumbered; how many are kept. Tests are matched by file (as
/// baselines compare files), name and which occurrence of that name in the
/// file they are.
pub(super) fn keep_failed(plan: &mut Vec<Planned>, last: &Results) -> usize {
    type Key = (String, String, usize);
    let key_of = |seen: &mut HashMap<(String, String), usize>, file: &str, name: &str| -> Key {
        let file = normalize_file(file);
        let n = seen.entry((file.clone(), name.to_string())).or_insert(0);
        let key = (file, name.to_string(), *n);
        *n += 1;
        key
    };
    let mut seen = HashMap::new();
    let failed: std::collections::HashSet<Key> = last
        .tests
        .iter()
        .map(|t| (key_of(&mut seen, &t.file, &t.name), t.status))
        .filter(|(_, s)| matches!(s, TestStatus::Fail | TestStatus::Error))
        .map(|(k, _)| k)
        .collect();
    let mut seen = HashMap::new();
    plan.retain(|p| failed.contains(&key_of(&mut seen, &p.test.file, &p.test.name)));
    for (i, p) in plan.iter_mut().enumerate() {
        p.index = i;
    }
    plan.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpcheck_core::results::TestResult;

    fn result(file: &str, name: &str, status: TestStatus) -> TestResult {
        let mut t = TestResult::error(name, file, Some(1), "", 1);
        t.status = status;
        t
    }

    #[test]
    fn saved_and_read_back_with_its_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_in(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("no run was saved in .mcpcheck/last-run.json yet"),
            "{err}"
        );
        let doc = Results::new(vec![result("a.yaml", "t", TestStatus::Fail)], 1);
        let file = save_in(dir.path(), &doc).unwrap();
        assert!(file.ends_with(".mcpcheck/last-run.json"));
        assert_eq!(read_in(dir.path()).unwrap().tests, doc.tests);
        let ignore = std::fs::read_to_string(dir.path().join(".mcpcheck/.gitignore")).unwrap();
        assert!(ignore.lines().any(|l| l == "last-run.json"), "{ignore}");
        // A .gitignore of the user's own is left as it is.
        std::fs::write(dir.path().join(".mcpcheck/.gitignore"), "mine\n").unwrap();
        save_in(dir.path(), &doc).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".mcpcheck/.gitignore")).unwrap(),
            "mine\n"
        );
        std::fs::write(dir.path().join(".mcpcheck/last-run.json"), "{").unwrap();
        assert!(
            read_in(dir.path())
                .unwrap_err()
                .to_string()
                .contains("remove it")
        );
    }
}
