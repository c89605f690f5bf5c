//! `mcpcheck fuzz --stateful` end to end: a server with a delete that does
//! not delete (`serve --fault notes-delete-keeps`, and a to-do server on the
//! official TypeScript SDK with the same bug when the node servers are
//! installed) is caught with a shrunk sequence of at most three calls, and
//! the regression test it writes fails while the bug is there and passes
//! once it is gone; the healthy server gives nothing; the write policy is
//! held; the same seed gives the same report.

mod cli_support;

use std::path::Path;

use cli_support::{BIN, run_mcpcheck, scratch};
use serde_json::Value;

fn serve(fault: &str) -> String {
    format!("{BIN} serve --fault {fault}")
}

/// `fuzz --stateful --allow-writes --fixture DIR --format json` of
/// `server`, with `extra`: (exit code, report, stderr).
fn stateful(server: &str, dir: &Path, extra: &[&str]) -> (Option<i32>, Value, String) {
    let fixture = dir.join("fixture");
    std::fs::create_dir_all(&fixture).expect("fixture");
    let fixture = fixture.to_str().expect("utf-8");
    let mut args = vec![
        "fuzz",
        "--stateful",
        "--allow-writes",
        "--fixture",
        fixture,
        "--server",
        server,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = run_mcpcheck(&args);
    let report: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\n{err}"));
    (code, report, err)
}

fn codes(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code").to_string())
        .collect()
}

#[test]
fn a_delete_that_does_not_delete_is_caught_shrunk_and_written_as_a_failing_test() {
    let dir = scratch("stateful-delete-keeps");
    let out = dir.join("regressions");
    let out_arg = out.to_str().expect("utf-8");
    let (code, report, err) = stateful(
        &serve("notes-delete-keeps"),
        &dir,
        &["--output", out_arg, "--sequences", "20"],
    );
    assert_eq!(code, Some(1), "{report}\n{err}");
    let found = codes(&report);
    assert!(found.contains(&"F301".to_string()), "{found:?}");
    let broken = report["stateful"]["broken"].as_array().expect("broken");
    let read_after_delete = broken
        .iter()
        .find(|b| b["rule"] == "F301")
        .expect("F301 broken");
    let calls = read_after_delete["calls"].as_u64().expect("calls");
    assert!((2..=3).contains(&calls), "{read_after_delete}");
    let tools: Vec<&str> = read_after_delete["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["tool"].as_str())
        .collect();
    assert_eq!(tools, ["create_note", "delete_note", "get_note"]);
    let links = report["stateful"]["links"].to_string();
    assert!(
        links.contains("create_note.answer.id → get_note.id"),
        "{links}"
    );
    // The regression test fails while the bug is there …
    let written: Vec<_> = std::fs::read_dir(&out)
        .expect("regressions written")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    let f301 = written
        .iter()
        .find(|p| p.to_string_lossy().contains("get_note_f301"))
        .unwrap_or_else(|| panic!("{written:?}\n{err}"));
    let text = std::fs::read_to_string(f301).expect("read");
    assert!(text.contains("tests:") && text.contains("setup:"), "{text}");
    let (code, run_out, run_err) = run_mcpcheck(&["run", "--suite", f301.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1), "{run_out}{run_err}");
    // … and passes once the delete deletes.
    let fixed = dir.join("fixed.yaml");
    std::fs::write(&fixed, text.replace("notes-delete-keeps", "notes")).expect("write");
    let (code, run_out, run_err) =
        run_mcpcheck(&["run", "--suite", fixed.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "{run_out}{run_err}");
}

#[test]
fn sequences_that_break_nothing_give_nothing_and_the_seed_fixes_the_report() {
    let dir = scratch("stateful-healthy");
    let (code, report, err) = stateful(&serve("notes"), &dir, &["--seed", "5"]);
    assert_eq!(code, Some(0), "{report}\n{err}");
    assert!(codes(&report).is_empty(), "{report}");
    assert!(report["stateful"]["held"].as_u64().is_some_and(|n| n > 0));
    let (_, again, _) = stateful(&serve("notes"), &dir, &["--seed", "5"]);
    assert_eq!(report, again, "the same seed, the same report");
    let (_, other, _) = stateful(&serve("notes-delete-keeps"), &dir, &["--seed", "5"]);
    let (_, other_again, _) = stateful(&serve("notes-delete-keeps"), &dir, &["--seed", "5"]);
    assert_eq!(other, other_again);
}

#[test]
fn writing_sequences_need_allow_writes_and_a_fixture() {
    let (code, _, err) = run_mcpcheck(&[
        "fuzz",
        "--stateful",
        "--allow-writes",
        "--server",
        &serve("notes-delete-keeps"),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--fixture DIR"), "{err}");
    // Without --allow-writes only the read-only oracles run: nothing that
    // writes, so the planted delete is never called.
    let (code, out, err) = run_mcpcheck(&[
        "fuzz",
        "--stateful",
        "--server",
        &serve("notes-delete-keeps"),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    assert!(
        report["stateful"]["skipped_writes"]
            .as_u64()
            .is_some_and(|n| n > 0)
    );
    assert!(
        report["stateful"]["broken"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
}

#[test]
fn a_server_on_the_typescript_sdk_with_text_answers_is_caught_too() {
    let servers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/node-servers");
    if !servers
        .join("node_modules/@modelcontextprotocol/sdk")
        .is_dir()
    {
        eprintln!("node servers not installed (npm ci --prefix tests/node-servers); not run");
        return;
    }
    let script = servers.join("stateful/todos.mjs");
    let server = format!("node {} --bug delete-keeps", script.display());
    let dir = scratch("stateful-todos");
    let out = dir.join("regressions");
    let (code, report, err) = stateful(
        &server,
        &dir,
        &["--output", out.to_str().expect("utf-8"), "--sequences", "8"],
    );
    assert_eq!(code, Some(1), "{report}\n{err}");
    assert!(codes(&report).contains(&"F301".to_string()), "{report}");
    let f301 = std::fs::read_dir(&out)
        .expect("written")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("f301"))
        .expect("an F301 test");
    let (code, o, e) = run_mcpcheck(&["run", "--suite", f301.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1), "{o}{e}");
    let text = std::fs::read_to_string(&f301).expect("read");
    let fixed = dir.join("fixed.yaml");
    std::fs::write(&fixed, text.replace("\"delete-keeps\"", "\"none\"")).expect("write");
    let (code, o, e) = run_mcpcheck(&["run", "--suite", fixed.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "{o}{e}");
}
