//! End-to-end tests of `mcpcheck invariants` (and `mcpcheck compliance invariants`):
//! the real binary, real files, exit codes, stdout and stderr.

mod cli_support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

fn mcpcheck(args: &[&str]) -> Output {
    cli_support::mcpcheck()
        .args(args)
        .output()
        .expect("the binary runs")
}

/// `mcpcheck invariants --capture FILE --format json`: exit code and report.
fn json_report(capture: &TempFile) -> (Option<i32>, Value) {
    let path = capture.to_str().expect("path");
    let json = mcpcheck(&["invariants", "--capture", path, "--format", "json"]);
    let report = serde_json::from_str(&stdout(&json)).expect("JSON report");
    (json.status.code(), report)
}

/// A file in a directory of its own under the system temp dir, removed on drop.
struct TempFile {
    dir: PathBuf,
    path: PathBuf,
}

impl TempFile {
    fn to_str(&self) -> Option<&str> {
        self.path.to_str()
    }

    fn display(&self) -> std::path::Display<'_> {
        self.path.display()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn temp_file(name: &str, content: &str) -> TempFile {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "mcpcheck-invariants-cli-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, content).expect("temp file");
    TempFile { dir, path }
}

/// The capture of a shared test vector, as a file.
fn vector_capture(vector: &str) -> TempFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/vectors/invariants")
        .join(format!("{vector}.json"));
    let vector: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vector")).expect("JSON");
    temp_file("capture.json", &vector["capture"].to_string())
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_conforming_capture_exits_0() {
    let capture = vector_capture("inv-001-holds");
    let text = mcpcheck(&[
        "invariants",
        "--capture",
        capture.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    assert!(
        stdout(&text).contains("passed: no invariant is violated in 1 session"),
        "{}",
        stdout(&text)
    );
    // A rule the capture gave nothing to judge is not counted as holding.
    assert!(
        stdout(&text).contains("  not verified: INV-"),
        "{}",
        stdout(&text)
    );
    assert!(!stdout(&text).contains("all 33 invariants hold"));

    let (code, report) = json_report(&capture);
    assert_eq!(code, Some(0));
    assert_eq!(report["version"], 1);
    assert_eq!(report["passed"], true);
    assert_eq!(report["sessions"][0]["findings"], serde_json::json!([]));
    assert_eq!(report["hazards"], serde_json::json!([]));
}

#[test]
fn a_violation_exits_1_and_names_rule_and_exchange() {
    let capture = vector_capture("inv-001-breaks");
    let path = capture.to_str().expect("path");
    let text = mcpcheck(&["invariants", "--capture", path]);
    assert_eq!(text.status.code(), Some(1));
    let out = stdout(&text);
    assert!(
        out.contains(
            "FAIL INV-001 (exchange 0): the first client message is tools/list (a request, id 1), not initialize"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("failed: 1 finding in 1 of 1 session, 0 composition hazards\n"),
        "{out}"
    );

    let json = mcpcheck(&["invariants", "--capture", path, "--format", "json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&json)).expect("JSON report");
    assert_eq!(report["passed"], false);
    let finding = &report["sessions"][0]["findings"][0];
    assert_eq!(finding["id"], "INV-001");
    assert_eq!(finding["category"], "lifecycle");
    assert_eq!(finding["exchange"], 0);
    // The document's keys come in the documented order.
    let text = stdout(&json);
    let at: Vec<usize> = ["\"version\"", "\"passed\"", "\"sessions\"", "\"hazards\""]
        .iter()
        .map(|k| text.find(k).expect("key present"))
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "documented key order: {text}"
    );
}

#[test]
fn a_hazard_alone_fails_the_run() {
    let capture = vector_capture("hazard-tool-overlap-breaks");
    let (code, report) = json_report(&capture);
    assert_eq!(code, Some(1));
    assert_eq!(report["hazards"][0]["kind"], "tool-namespace-overlap");
    assert_eq!(
        report["hazards"][0]["servers"],
        serde_json::json!(["files", "web"])
    );
    assert!(
        report["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .all(|s| s["findings"] == serde_json::json!([]))
    );
}

#[test]
fn the_compliance_spelling_is_the_same_command() {
    let capture = vector_capture("inv-012-breaks-decrease");
    let path = capture.to_str().expect("path");
    let direct = mcpcheck(&["invariants", "--capture", path, "--format", "json"]);
    let alias = mcpcheck(&[
        "compliance",
        "invariants",
        "--capture",
        path,
        "--format",
        "json",
    ]);
    assert_eq!(alias.status.code(), Some(1));
    assert_eq!(stdout(&direct), stdout(&alias));
    let list = mcpcheck(&["compliance", "invariants", "--list"]);
    assert_eq!(list.status.code(), Some(0));
    assert_eq!(stdout(&list), stdout(&mcpcheck(&["invariants", "--list"])));
}

#[test]
fn a_malformed_capture_exits_2_with_file_and_pointer() {
    let capture = temp_file(
        "broken.json",
        "{\"exchanges\": [\n  {\"request\": {\"id\": 1, \"method\": tru}}\n]}",
    );
    let output = mcpcheck(&["invariants", "--capture", capture.to_str().expect("path")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
    let err = stderr(&output);
    assert!(
        err.contains(&format!(
            "{}: /exchanges/0/request/method: not valid JSON",
            capture.display()
        )),
        "{err}"
    );
    assert!(err.contains("(line 2, column"), "{err}");

    let wrong = temp_file(
        "wrong.json",
        r#"{"server_label": 1, "exchanges": [{"response": {}}]}"#,
    );
    let output = mcpcheck(&[
        "invariants",
        "--capture",
        wrong.to_str().expect("path"),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("/server_label: must be a string, found a number"),
        "{err}"
    );
    assert!(
        err.contains("/exchanges/0: an exchange needs a `request`"),
        "{err}"
    );
}

#[test]
fn an_unreadable_capture_exits_2() {
    let missing = std::env::temp_dir().join("mcpcheck-no-such-capture.json");
    let output = mcpcheck(&["invariants", "--capture", missing.to_str().expect("path")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot read"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn list_prints_every_rule_with_its_citation() {
    let text = mcpcheck(&["invariants", "--list"]);
    assert_eq!(text.status.code(), Some(0));
    let out = stdout(&text);
    assert!(out.starts_with("INV-001  lifecycle"), "{out}");
    assert!(out.contains("INV-033"), "{out}");
    assert!(out.contains("INV-046"), "{out}");
    assert!(out.contains("INV-057"), "{out}");
    assert!(out.contains("INV-136"), "{out}");
    assert!(out.contains("tool-namespace-overlap"), "{out}");

    let json = mcpcheck(&["invariants", "--list", "--format", "json"]);
    assert_eq!(json.status.code(), Some(0));
    let list: Value = serde_json::from_str(&stdout(&json)).expect("JSON list");
    let rules = list["rules"].as_array().expect("rules");
    // 44 of the protocol, 24 of the extensions (tasks, skills, apps).
    assert_eq!(rules.len(), 68);
    for rule in rules {
        for key in ["id", "category", "property", "citation"] {
            assert!(rule[key].as_str().is_some_and(|v| !v.is_empty()), "{rule}");
        }
    }
    assert_eq!(list["hazards"].as_array().map(Vec::len), Some(2));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        mcpcheck(&["invariants"]).status.code(),
        Some(2),
        "--capture or --list is required"
    );
    let capture = vector_capture("inv-001-holds");
    let both = mcpcheck(&[
        "invariants",
        "--list",
        "--capture",
        capture.to_str().expect("path"),
    ]);
    assert_eq!(both.status.code(), Some(2));
    assert_eq!(
        mcpcheck(&["invariants", "--list", "--format", "yaml"])
            .status
            .code(),
        Some(2)
    );
}
