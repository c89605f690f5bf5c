//! Consumer contracts end to end: `contract record` turns a capture into a
//! contract of what the consumer used, `contract verify` holds against the
//! same server and names each broken expectation of a contract the server no
//! longer meets, and `lock --check --contract` says which consumer a surface
//! change breaks.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, run_suite, scratch, write};
use serde_json::Value;

fn session_yaml() -> String {
    format!(
        "name: consumer session\nserver:\n  command: {BIN}\n  args: [serve, --fault, notes]\nsetup:\n  - tool: structured\n    args: {{city: Porto}}\n  - tool: create_note\n    args: {{title: groceries}}\nassert:\n  tool: echo\n  args: {{message: hi}}\n"
    )
}

#[test]
fn a_recorded_contract_holds_and_a_changed_server_breaks_it() {
    let dir = scratch("contract-record");
    let captures = dir.join("captures");
    let (code, out, err) = run_suite(
        &dir,
        "session.yaml",
        &session_yaml(),
        &["--capture", captures.to_str().expect("utf-8")],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let capture = captures.join("consumer_session.json");
    let contract = dir.join("agent.contract.json");
    let (code, _, err) = run_mcpcheck(&[
        "contract",
        "record",
        "--capture",
        capture.to_str().expect("utf-8"),
        "--output",
        contract.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(&contract).expect("written")).expect("json");
    assert_eq!(recorded["consumer"], "agent");
    assert_eq!(
        recorded["tools"]["structured"]["structured"]["humidity"][0],
        "integer"
    );
    assert_eq!(
        recorded["tools"]["create_note"]["arguments"]["title"][0],
        "string"
    );
    // The same server holds it.
    let notes = format!("{BIN} serve --fault notes");
    let (code, out, err) = run_mcpcheck(&[
        "contract",
        "verify",
        "--server",
        &notes,
        "--contract",
        contract.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    assert!(
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .all(|f| f["level"] == "note"),
        "{report}"
    );
    // A server without the notes tools breaks it, naming the consumer.
    let plain = format!("{BIN} serve");
    let (code, out, err) = run_mcpcheck(&[
        "contract",
        "verify",
        "--server",
        &plain,
        "--contract",
        contract.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("K101") && out.contains("consumer `agent` calls tool `create_note`"),
        "{out}"
    );
}

#[test]
fn each_broken_expectation_is_named() {
    let dir = scratch("contract-broken");
    let contract = write(
        &dir,
        "old.contract.json",
        r#"{"version": 1, "consumer": "old-agent", "tools": {
  "echo": {"calls": 1, "arguments": {"message": ["string"]}, "example": {"message": "x"}, "content": ["image"]},
  "gone_tool": {"calls": 2},
  "add": {"calls": 1, "arguments": {"a": ["string"], "b": ["integer"]}},
  "structured": {"calls": 1, "arguments": {"city": ["string"]}, "structured": {"temperature": ["string"]}}}}"#,
    );
    let plain = format!("{BIN} serve");
    let (code, out, err) = run_mcpcheck(&[
        "contract",
        "verify",
        "--server",
        &plain,
        "--contract",
        contract.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap_or_default().to_string(),
                f["field"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    for (code, field) in [
        ("K101", "/tools/gone_tool"),
        ("K102", "/tools/add/arguments/a"),
        ("K104", "/tools/structured/structured/temperature"),
        ("K105", "/tools/echo/content"),
    ] {
        assert!(
            found.iter().any(|(c, f)| c == code && f == field),
            "{code} {field}: {found:?}"
        );
    }
    // --no-replay sends nothing: what replaying would check is a note.
    let (_, out, _) = run_mcpcheck(&[
        "contract",
        "verify",
        "--server",
        &plain,
        "--contract",
        contract.to_str().expect("utf-8"),
        "--no-replay",
        "--format",
        "json",
    ]);
    assert!(out.contains("K301") && !out.contains("K105"), "{out}");
    // A contract that cannot be read names its file and line.
    let bad = write(
        &dir,
        "bad.json",
        "{\"version\": 1,\n \"consumer\": \"x\", \"tool\": {}}",
    );
    let (code, _, err) = run_mcpcheck(&[
        "contract",
        "verify",
        "--server",
        &plain,
        "--contract",
        bad.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("bad.json:2:") && err.contains("unknown field"),
        "{err}"
    );
}

#[test]
fn lock_check_names_the_consumers_a_change_breaks() {
    let dir = scratch("contract-lock");
    let lockfile = dir.join("mcp-lock.json");
    let notes = format!("{BIN} serve --fault notes");
    let (code, _, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &notes,
        "--write",
        lockfile.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let contract = write(
        &dir,
        "c.json",
        r#"{"version": 1, "consumer": "notes-app", "tools": {"create_note": {"calls": 1, "arguments": {"title": ["string"]}}}}"#,
    );
    let (code, out, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &notes,
        "--check",
        lockfile.to_str().expect("utf-8"),
        "--contract",
        contract.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("every recorded expectation still holds"),
        "{out}"
    );
    let plain = format!("{BIN} serve");
    let (code, out, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &plain,
        "--check",
        lockfile.to_str().expect("utf-8"),
        "--contract",
        contract.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("L101") && out.contains("K101"), "{out}");
    assert!(out.contains("notes-app"), "{out}");
}
