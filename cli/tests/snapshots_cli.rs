//! `run --snapshots` / `--update-snapshots` against the built-in server: the
//! answers are recorded in mcp-assert's `.snapshots.json` and compared later.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, sh_server, write};

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
    write(
        &d,
        "add.yaml",
        &format!(
            "name: add\n{server}assert:\n  tool: add\n  args: {{a: 1, b: 1}}\n  expect: {{not_error: true}}\n"
        ),
    );
    // Not a tool test: no snapshot.
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
fn answers_are_recorded_then_compared() {
    let d = suite("snapshots-cycle");
    let dir = d.to_str().unwrap();
    let file = d.join(".snapshots.json");

    // Nothing recorded: each tool test fails and says how to record.
    let (code, out, _) = run_mcpcheck(&["run", "--suite", dir, "--snapshots"]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out.matches("record one with --update-snapshots").count(),
        2,
        "{out}"
    );
    assert!(out.contains("PASS  prompts"), "{out}");

    let (code, out, _) = run_mcpcheck(&["run", "--suite", dir, "--update-snapshots"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("snapshots: 2 new, 0 changed, 0 unchanged; written to"),
        "{out}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let add = v["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "add")
        .expect("the add test's snapshot");
    assert_eq!(add["text"], "2");
    assert_eq!(add["is_error"], false);
    // mcp-assert's checksum: the SHA-256 of the text, 16 hex digits.
    assert_eq!(add["checksum"], "d4735e3a265e16ee");

    let (code, out, _) = run_mcpcheck(&["run", "--suite", dir, "--snapshots"]);
    assert_eq!(code, Some(0), "{out}");

    // A different answer than the recorded one fails, with both shown.
    std::fs::write(&file, text.replace("\"text\": \"2\"", "\"text\": \"3\"")).unwrap();
    let (code, out, _) = run_mcpcheck(&["run", "--suite", dir, "--snapshots"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("snapshot text") && out.contains("\"3\""),
        "{out}"
    );

    let (code, out, _) = run_mcpcheck(&["run", "--suite", dir, "--update-snapshots"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("0 new, 1 changed, 1 unchanged"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn mcp_assert_files_are_read_and_bad_ones_named() {
    let d = suite("snapshots-foreign");
    let dir = d.to_str().unwrap();
    // As mcp-assert 0.12.3 writes it.
    write(
        &d,
        ".snapshots.json",
        r#"{
  "snapshots": [
    {
      "name": "echo hi",
      "tool": "echo",
      "text": "hi",
      "is_error": false,
      "checksum": "8f434346648f6b96"
    },
    {
      "name": "add",
      "tool": "add",
      "text": "2",
      "is_error": false,
      "checksum": "d4735e3a265e16ee"
    }
  ]
}
"#,
    );
    let (code, out, err) = run_mcpcheck(&["run", "--suite", dir, "--snapshots"]);
    assert_eq!(code, Some(0), "{out}{err}");

    write(&d, ".snapshots.json", "{\"snapshots\": 3}");
    let (code, _, err) = run_mcpcheck(&["run", "--suite", dir, "--snapshots"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(".snapshots.json: it has no `snapshots` list"),
        "{err}"
    );
}

/// What a server whose one tool answers with the tag mcpcheck put in its
/// environment answers, as a tool that dumps its environment does.
const ENV_SERVER: &str = r#"    *'"method":"tools/call"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"HOME=/root MCPCHECK_PROCESS_TAG=%s"}]}}\n' "$id" "$MCPCHECK_PROCESS_TAG";;"#;

#[test]
fn the_tag_mcpcheck_sets_on_a_server_does_not_break_its_snapshot() {
    let d = scratch("snapshots-env");
    let server = sh_server(&d, "env.sh", r#"{"tools":{}}"#, ENV_SERVER);
    let args = server.strip_prefix("sh ").expect("an sh command");
    write(
        &d,
        "suite/env.yaml",
        &format!(
            "name: env\nserver:\n  command: sh\n  args: [{args}]\nassert:\n  tool: env\n  expect: {{not_error: true}}\n"
        ),
    );
    let suite = d.join("suite");
    let suite = suite.to_str().unwrap();
    let (code, out, err) = run_mcpcheck(&["run", "--suite", suite, "--update-snapshots"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let file = std::fs::read_to_string(d.join("suite/.snapshots.json")).expect("recorded");
    assert!(
        file.contains("MCPCHECK_PROCESS_TAG=<mcpcheck-tag>"),
        "{file}"
    );
    // Each run gives its server another tag; the answer still matches.
    for _ in 0..2 {
        let (code, out, err) = run_mcpcheck(&["run", "--suite", suite, "--snapshots"]);
        assert_eq!(code, Some(0), "{out}{err}");
    }
}
