//! `run` end to end on what a run does besides checking: `--retries` and
//! flaky tests, `--last-failed`, the progress on stderr, the GitHub
//! annotations of a run, and inline snapshots written by
//! `--update-snapshots`.

mod cli_support;

use std::path::Path;

use cli_support::{BIN, mcpcheck, outcome, scratch, write};
use serde_json::Value;

/// A stdio server whose `answer` tool answers `not yet` to the first call
/// (counted in the file given as its argument, across processes) and `42`
/// after; it says each call's number on stderr.
const FLAKY_SERVER: &str = r#"
import json, os, sys
counter = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "flaky", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "answer", "inputSchema": {"type": "object"}}]}
    elif m["method"] == "tools/call":
        n = int(open(counter).read()) if os.path.exists(counter) else 0
        open(counter, "w").write(str(n + 1))
        print("call number %d" % (n + 1), file=sys.stderr, flush=True)
        r = {"content": [{"type": "text", "text": "not yet" if n == 0 else "42"}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"#;

/// A suite of five tests: one that passes, one that fails every time, one
/// skipped, one that errors (its server cannot start) and one that fails
/// only its first call.
fn suite(dir: &Path) -> String {
    let server = write(dir, "flaky.py", FLAKY_SERVER);
    let counter = dir.join("counter");
    write(
        dir,
        "suite/all.yaml",
        &format!(
            r#"name: all outcomes
servers:
  ref: {{command: {BIN}, args: [serve]}}
tests:
  - name: passes
    server: ref
    tool: echo
    args: {{message: hello}}
    expect: [{{target: text, matcher: {{equals: hello}}}}]
  - name: fails
    server: ref
    tool: echo
    args: {{message: hello}}
    expect: [{{target: text, matcher: {{equals: goodbye}}}}]
  - name: skipped
    server: ref
    skip: not today
    tool: echo
  - name: errors
    server: {{command: /nonexistent/mcp-server}}
    tool: echo
  - name: flaky
    server: {{command: python3, args: ["{}", "{}"]}}
    tool: answer
    expect: [{{target: text, matcher: {{equals: "42"}}}}]
"#,
            server.display(),
            counter.display()
        ),
    );
    dir.join("suite").display().to_string()
}

/// `mcpcheck ARGS` run in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        &mcpcheck()
            .args(args)
            .current_dir(dir)
            .output()
            .expect("start mcpcheck"),
    )
}

fn by_name<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["tests"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no test {name} in {doc}"))
}

#[test]
fn retries_mark_a_test_that_fails_once_flaky_and_last_failed_reruns_exactly_the_failures() {
    let d = scratch("retries");
    let suite = suite(&d);

    // --retries 2: the flaky test passes on its second attempt.
    let (code, out, err) = run_in(&d, &["run", "--suite", &suite, "--retries", "2", "--json"]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let doc: Value = serde_json::from_str(&out).expect("a results document");
    let flaky = by_name(&doc, "flaky");
    assert_eq!(flaky["status"], "pass", "{flaky}");
    assert_eq!(flaky["flaky"], true, "{flaky}");
    let attempts: Vec<&str> = flaky["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].as_str().unwrap())
        .collect();
    assert_eq!(attempts, ["fail", "pass"]);
    // A test that fails every time is retried twice and still fails.
    let fails = by_name(&doc, "fails");
    assert_eq!(fails["status"], "fail");
    assert!(fails.get("flaky").is_none());
    assert_eq!(fails["attempts"].as_array().map(Vec::len), Some(3));
    assert_eq!(by_name(&doc, "errors")["status"], "error");
    assert_eq!(
        by_name(&doc, "errors")["attempts"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(by_name(&doc, "skipped")["status"], "skip");
    assert!(by_name(&doc, "passes").get("attempts").is_none());
    assert_eq!(doc["summary"]["flaky"], 1);
    assert_eq!(doc["summary"]["passed"], 2);
    // Progress went to stderr, a line per finished test (not a terminal),
    // numbered in the order they finished.
    let said =
        |start: &str, end: &str| err.lines().any(|l| l.starts_with(start) && l.contains(end));
    assert!(said("[", "] passes: PASS ("), "{err}");
    assert!(
        said("retry 1 of 2: [", "/3] fails: FAIL — expected exact match"),
        "{err}"
    );
    assert!(said("retry 1 of 2: [", "/3] flaky: PASS ("), "{err}");
    assert!(said("retry 2 of 2: [", "/2] errors: ERROR — "), "{err}");
    assert!(
        !said("retry 2 of 2: [", "flaky"),
        "a test that passed is not retried: {err}"
    );

    // The run was saved; --last-failed runs exactly what failed or errored.
    let saved = d.join(".mcpcheck/last-run.json");
    assert!(saved.is_file());
    let ignore = std::fs::read_to_string(d.join(".mcpcheck/.gitignore")).unwrap();
    assert!(ignore.contains("last-run.json"), "{ignore}");
    let (code, out, err) = run_in(&d, &["run", "--suite", &suite, "--last-failed", "--list"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("fails") && out.contains("errors"), "{out}");
    assert!(
        !out.contains("flaky") && !out.contains("passes") && !out.contains("skipped"),
        "{out}"
    );
    let (code, out, err) = run_in(
        &d,
        &["run", "--suite", &suite, "--last-failed", "--json", "-q"],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert_eq!(
        err, "mcpcheck: failed: 2 of 2 tests did not pass\n",
        "-q: no progress"
    );
    let doc: Value = serde_json::from_str(&out).expect("a results document");
    let names: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fails", "errors"]);

    // With --fail-on-flaky a flaky test fails the run; the text says FLAKY.
    std::fs::remove_file(d.join("counter")).unwrap();
    let (code, out, err) = run_in(
        &d,
        &[
            "run",
            "--suite",
            &suite,
            "--filter",
            "flaky",
            "--retries",
            "1",
            "--fail-on-flaky",
        ],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(out.contains("FLAKY flaky ("), "{out}");
    assert!(out.contains("· passed on attempt 2"), "{out}");
    assert!(
        out.contains("attempt 1: fail expected exact match: want '42', got 'not yet'"),
        "{out}"
    );
    assert!(out.contains("1 test: 0 passed, 1 flaky"), "{out}");
    assert!(
        err.contains("mcpcheck: failed: 1 flaky test passed only on a retry (--fail-on-flaky)"),
        "{err}"
    );
    // Without it, the flaky test passes the run.
    std::fs::remove_file(d.join("counter")).unwrap();
    let (code, out, err) = run_in(
        &d,
        &[
            "run",
            "--suite",
            &suite,
            "--filter",
            "flaky",
            "--retries",
            "1",
            "--report",
            "junit=j.xml",
        ],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    let junit = std::fs::read_to_string(d.join("j.xml")).unwrap();
    assert!(junit.contains("<flakyFailure"), "{junit}");
    // Nothing failed in that run: --last-failed has nothing to run.
    let (code, out, err) = run_in(&d, &["run", "--suite", &suite, "--last-failed"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("no test of this selection failed in the last run"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn last_failed_without_a_saved_run_says_how_to_make_one() {
    let d = scratch("no-last-run");
    let suite = suite(&d);
    let (code, out, err) = run_in(&d, &["run", "--suite", &suite, "--last-failed"]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(
        err.contains(
            "no run was saved in .mcpcheck/last-run.json yet: run the suite once without it"
        ),
        "{err}"
    );
    let (code, _, err) = run_in(
        &d,
        &["run", "--suite", &suite, "--retries", "1", "--trials", "2"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--trials"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_runs_github_annotations_point_at_each_failing_checks_line() {
    let d = scratch("github");
    let suite = suite(&d);
    let (code, out, err) = run_in(
        &d,
        &[
            "run", "--suite", &suite, "--filter", "fails", "--format", "github", "-q",
        ],
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    let file = Path::new(&suite).join("all.yaml");
    let want = format!(
        "::error file={},line=14,title=fails › equals text::expected exact match: want 'goodbye', got 'hello'%0Aexpected: goodbye%0Aactual: 'hello'\n",
        file.display()
    );
    assert!(out.starts_with(&want), "{out}");
    assert!(
        out.ends_with(
            "::notice title=mcpcheck::1 tests: 0 passed, 1 failed, 0 errored, 0 skipped\n"
        ),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn update_snapshots_writes_inline_answers_in_place_keeping_the_files_layout() {
    let d = scratch("inline-snapshots");
    let one = write(
        &d,
        "suite/one.yaml",
        &format!(
            "# kept: a comment\nname: echo inline   # kept too\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: echo\n  args: {{message: \"line one\\nline two\\n\"}}\nsnapshot:   # fill me\ntimeout: 10s  # kept\n"
        ),
    );
    let many = write(
        &d,
        "suite/many.yaml",
        &format!(
            "name: composed\nservers:\n  ref: {{command: {BIN}, args: [serve]}}\ntests:\n  # first\n  - name: plain\n    server: ref\n    tool: echo\n    args: {{message: hello}}\n    snapshot: \"old answer\"  # a note\n    tags: [a]\n  - name: tool error\n    server: ref\n    tool: fail\n    args: {{message: disk full}}\n    snapshot:\n"
        ),
    );
    let suite = d.join("suite").display().to_string();
    let (code, out, err) = run_in(&d, &["validate", &suite]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    // Before: an empty snapshot and a wrong one fail, each at its line.
    let (code, out, err) = run_in(&d, &["run", "--suite", &suite, "-q"]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(out.contains("✗ snapshot text (line 10)"), "{out}");
    assert!(
        out.contains("`snapshot:` is empty: record the answer with --update-snapshots"),
        "{out}"
    );
    let (code, out, err) = run_in(&d, &["run", "--suite", &suite, "--update-snapshots", "-q"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("snapshots: 2 new, 1 changed, 0 unchanged; written to "),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&one).unwrap(),
        format!(
            "# kept: a comment\nname: echo inline   # kept too\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: echo\n  args: {{message: \"line one\\nline two\\n\"}}\nsnapshot: |   # fill me\n  line one\n  line two\ntimeout: 10s  # kept\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(&many).unwrap(),
        format!(
            "name: composed\nservers:\n  ref: {{command: {BIN}, args: [serve]}}\ntests:\n  # first\n  - name: plain\n    server: ref\n    tool: echo\n    args: {{message: hello}}\n    snapshot: \"hello\"  # a note\n    tags: [a]\n  - name: tool error\n    server: ref\n    tool: fail\n    args: {{message: disk full}}\n    snapshot:\n      text: \"disk full\"\n      is_error: true\n"
        )
    );
    assert!(
        !d.join("suite/.snapshots.json").exists(),
        "inline snapshots stay in the suite"
    );
    // After: every answer matches what the suite now holds.
    let (code, out, err) = run_in(&d, &["run", "--suite", &suite]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let (code, out, err) = run_in(&d, &["snapshot", "--suite", &suite]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("snapshots: 3 matched, 0 changed, 0 missing"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
