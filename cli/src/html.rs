//! The HTML report (`--html DIR`, `--report html=DIR`): one folder that
//! opens from `file://` with no network and no server.
//!
//! ```text
//! DIR/index.html            the page (a Content-Security-Policy that allows
//!                           its own files only, and no connection)
//! DIR/report.js, report.css the page's layout
//! DIR/shared/*.js           the DOM helpers, JSON pointers and timeline the
//!                           playground uses too
//! DIR/data/index.js         what the report says (core's `report::html`)
//! DIR/data/sessions/N.js    test N's session, loaded when the test is opened
//! ```
//!
//! The page's files are embedded in the binary from `cli/assets/report/`
//! (the playground's build copies `shared/` from there), so the binary alone
//! writes a report. The data is JSON in script files: a page opened from
//! `file://` may load scripts from its folder, but fetch nothing. Everything
//! written has been redacted as captures are.

use std::path::{Path, PathBuf};

use mcpcheck_core::findings::Report;
use mcpcheck_core::redact::Redactor;
use mcpcheck_core::report::html;
use mcpcheck_core::results::Results;
use serde_json::Value;

use crate::files::WriteError;

/// The page's own files, written into every report folder.
pub const ASSETS: &[(&str, &str)] = &[
    ("index.html", include_str!("../assets/report/index.html")),
    ("report.js", include_str!("../assets/report/report.js")),
    ("report.css", include_str!("../assets/report/report.css")),
    (
        "shared/dom.js",
        include_str!("../assets/report/shared/dom.js"),
    ),
    (
        "shared/pointer.js",
        include_str!("../assets/report/shared/pointer.js"),
    ),
    (
        "shared/timeline.js",
        include_str!("../assets/report/shared/timeline.js"),
    ),
];

/// A test's recorded session, for its page: the capture (already redacted),
/// the method whose answer the checks looked at, and the server's stderr;
/// and the attempts before it (`--retries`), each with its result (already
/// redacted) and session (an empty capture when none was recorded).
#[derive(Clone, Debug, Default)]
pub struct SessionFile {
    pub capture: String,
    pub method: Option<String>,
    pub stderr: String,
    pub earlier: Vec<(mcpcheck_core::results::TestResult, SessionFile)>,
}

/// `value` as a JavaScript expression: its JSON (JSON is JavaScript), with
/// `</` and the two line separators escaped all the same, so the text is
/// safe wherever it is put.
fn js(value: &Value) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".into())
        .replace("</", "<\\/")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The script that hands the index to the page.
fn index_script(index: &Value) -> String {
    format!("globalThis.mcpcheckReportData = {};\n", js(index))
}

/// The script of test `id`'s session: it calls the page back with it.
fn session_script(id: usize, doc: &Value) -> String {
    format!("mcpcheckSession({id}, {});\n", js(doc))
}

/// Write the page's files and `data/index.js` into `dir` (created when
/// missing). Session files an earlier report left in `data/sessions/` are
/// removed, so the folder holds one report.
fn write_page(dir: &Path, index: &Value) -> Result<(), WriteError> {
    let sessions = dir.join("data").join("sessions");
    std::fs::create_dir_all(dir.join("shared"))
        .and_then(|()| std::fs::create_dir_all(&sessions))
        .map_err(WriteError::create(dir))?;
    if let Ok(entries) = std::fs::read_dir(&sessions) {
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let ours = name
                .strip_suffix(".js")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if ours {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    for (name, text) in ASSETS {
        write(&dir.join(name), text)?;
    }
    write(&dir.join("data").join("index.js"), &index_script(index))
}

fn write(path: &Path, text: &str) -> Result<(), WriteError> {
    std::fs::write(path, text).map_err(WriteError::write(path))
}

/// The report of a run into `dir`: `sessions[i]` is test i's recorded
/// session (the results' order), `None` when it has none. The results and
/// the captures must already be redacted; the stderr is redacted here.
pub fn write_run(
    dir: &Path,
    results: &Results,
    sessions: &[Option<SessionFile>],
    title: &str,
    redactor: &Redactor,
) -> Result<PathBuf, WriteError> {
    let mut names: Vec<Option<String>> = Vec::with_capacity(results.tests.len());
    let mut docs: Vec<(usize, String, Value)> = Vec::new();
    for (i, t) in results.tests.iter().enumerate() {
        match sessions.get(i).and_then(Option::as_ref) {
            Some(s) => {
                let name = format!("data/sessions/{i}.js");
                let mut doc = html::run_session(
                    &s.capture,
                    s.method.as_deref(),
                    t,
                    &redactor.redact_str(&s.stderr),
                );
                if !s.earlier.is_empty() {
                    let attempts: Vec<Value> = s
                        .earlier
                        .iter()
                        .map(|(result, e)| {
                            html::attempt_session(
                                &e.capture,
                                e.method.as_deref(),
                                result,
                                &redactor.redact_str(&e.stderr),
                            )
                        })
                        .collect();
                    doc["earlier"] = Value::Array(attempts);
                }
                docs.push((i, name.clone(), doc));
                names.push(Some(name));
            }
            None => names.push(None),
        }
    }
    let index = html::run_index(results, &names, title);
    write_page(dir, &index)?;
    for (id, name, doc) in &docs {
        write(&dir.join(name), &session_script(*id, doc))?;
    }
    Ok(dir.join("index.html"))
}

/// The report of an analysis into `dir`, secrets hidden by `redactor` when
/// the command gives one (as its other renderings are).
pub fn write_findings(
    dir: &Path,
    report: &Report,
    title: &str,
    redactor: Option<&Redactor>,
) -> Result<PathBuf, WriteError> {
    let index = html::findings_index(report, title);
    let index = match redactor {
        Some(r) => r.redact_json(&index),
        None => index,
    };
    write_page(dir, &index)?;
    Ok(dir.join("index.html"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_scripts_cannot_close_a_script_element() {
        let v = serde_json::json!({"text": "</script><script>alert(1)</script>\u{2028}"});
        let s = index_script(&v);
        assert!(!s.contains("</"), "{s}");
        assert!(s.starts_with("globalThis.mcpcheckReportData = {"));
        assert!(s.ends_with(";\n"));
        assert!(s.contains("\\u2028"));
        let back: Value = serde_json::from_str(
            s.trim_start_matches("globalThis.mcpcheckReportData = ")
                .trim_end_matches(";\n")
                .replace("<\\/", "</")
                .as_str(),
        )
        .unwrap();
        assert_eq!(back, v);
        assert_eq!(
            session_script(3, &serde_json::json!(1)),
            "mcpcheckSession(3, 1);\n"
        );
    }

    #[test]
    fn a_folder_holds_one_report() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join("data/sessions/7.js");
        std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
        std::fs::write(&stale, "old").unwrap();
        let mine = dir.path().join("data/sessions/notes.txt");
        std::fs::write(&mine, "kept").unwrap();
        let r = Results::new(Vec::new(), 0);
        let page = write_run(dir.path(), &r, &[], "t", &Redactor::new()).unwrap();
        assert!(page.is_file());
        assert!(
            !stale.exists(),
            "a session file of an earlier report is gone"
        );
        assert!(mine.exists(), "a file that is not the report's stays");
        for (name, _) in ASSETS {
            assert!(dir.path().join(name).is_file(), "{name}");
        }
        let data = std::fs::read_to_string(dir.path().join("data/index.js")).unwrap();
        assert!(data.starts_with("globalThis.mcpcheckReportData = {"));
    }
}
