//! `mcpcheck snapshot [--update]`, mcp-assert's spelling of the snapshot
//! cycle, against the built-in server: record, match, a changed answer, a
//! missing snapshot, a server that never answers.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, write};

fn suite(name: &str) -> std::path::PathBuf {
    let d = scratch(name);
    let server = format!("server:\n  command: {BIN}\n  args: [serve]\n");
    write(
        &d,
        "echo.yaml",
        &format!(
            "name: echo hi\n{server}assert:\n  tool: echo\n  args: {{message: hi}}\n  expect: {{not_error: true}}\n"
        ),
    );
    // Its expectation is false, and the snapshot command does not check it:
    // mcp-assert's snapshot compares answers only.
    write(
        &d,
        "add.yaml",
        &format!(
            "name: add\n{server}assert:\n  tool: add\n  args: {{a: 1, b: 1}}\n  expect: {{contains: [\"not in the answer\"]}}\n"
        ),
    );
    write(
        &d,
        "prompts.yaml",
        &format!(
            "name: prompts\n{server}assert_prompts:\n  list: {{}}\n  expect: {{not_empty: true}}\n"
        ),
    );
    d
}

#[test]
fn update_records_then_verify_matches_and_names_changes() {
    let d = suite("snapshot-cmd");
    let dir = d.to_str().unwrap();
    let file = d.join(".snapshots.json");

    let (code, out, err) = run_mcpcheck(&["snapshot", "--suite", dir]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(out.matches("MISS   ").count(), 2, "{out}");
    assert!(
        out.contains("record one with `mcpcheck snapshot --update`"),
        "{out}"
    );
    assert!(out.contains("1 test is not a tool test"), "{out}");
    assert!(!file.exists(), "verifying writes nothing");

    let (code, out, err) = run_mcpcheck(&["snapshot", "--suite", dir, "--update"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("NEW    add\nNEW    echo hi\n"), "{out}");
    assert!(
        out.contains("snapshots: 2 new, 0 changed, 0 unchanged; written to"),
        "{out}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = v["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "echo hi"]);

    // The same file as `run --update-snapshots` writes.
    let (code, out, _) = run_mcpcheck(&["run", "--suite", dir, "--snapshots", "--filter", "echo*"]);
    assert_eq!(code, Some(0), "{out}");

    let (code, out, err) = run_mcpcheck(&["snapshot", "--suite", dir]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("MATCH  add\nMATCH  echo hi\n"), "{out}");
    assert!(out.contains("2 matched, 0 changed, 0 missing"), "{out}");

    std::fs::write(&file, text.replace("\"text\": \"2\"", "\"text\": \"3\"")).unwrap();
    let (code, out, _) = run_mcpcheck(&["snapshot", "--suite", dir]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("DIFF   add\n"), "{out}");
    assert!(
        out.contains("the answer differs from its snapshot at character 1: want \"3\", got \"2\""),
        "{out}"
    );
    assert!(out.contains("1 matched, 1 changed"), "{out}");

    let (code, out, _) = run_mcpcheck(&["snapshot", "--suite", dir, "--update"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("UPDATE add\n"), "{out}");
    assert!(out.contains("0 new, 1 changed, 1 unchanged"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn a_test_without_an_answer_fails_and_is_not_recorded() {
    let d = suite("snapshot-cmd-crash");
    let dir = d.to_str().unwrap();
    let crashing = format!("{BIN} serve --fault crash-on-call");
    for update in [false, true] {
        let mut args = vec!["snapshot", "--suite", dir, "--server", &crashing];
        if update {
            args.push("--update");
        }
        let (code, out, err) = run_mcpcheck(&args);
        assert_eq!(code, Some(1), "update {update}: {out}{err}");
        assert_eq!(out.matches("ERROR  ").count(), 2, "{out}");
        assert!(out.contains("exited with status 70"), "{out}");
    }
    assert!(
        !d.join(".snapshots.json").exists(),
        "nothing to record, nothing written"
    );
}

#[test]
fn a_suite_without_tool_tests_and_a_bad_snapshot_file_are_usage_errors() {
    let d = scratch("snapshot-cmd-none");
    write(
        &d,
        "prompts.yaml",
        &format!(
            "name: prompts\nserver:\n  command: {BIN}\n  args: [serve]\nassert_prompts:\n  list: {{}}\n  expect: {{not_empty: true}}\n"
        ),
    );
    let (code, _, err) = run_mcpcheck(&["snapshot", "--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no tool tests"), "{err}");

    let d = suite("snapshot-cmd-bad");
    write(&d, ".snapshots.json", "{\"snapshots\": 3}");
    let (code, _, err) = run_mcpcheck(&["snapshot", "--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(".snapshots.json"), "{err}");
}
