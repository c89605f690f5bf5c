//! The runner benchmark's protocol floor (`bench/floor.sh`): the least a
//! client does to send a suite's requests on one server. The benchmark sets
//! mcpcheck's time against it, so it must really send every request and
//! wait for every answer, copy the fixture and point the server at the
//! copy, and fail loudly when the server does not answer.

mod cli_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use cli_support::{BIN, outcome, scratch, write};

fn floor_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/floor.sh")
}

/// Run the floor with `requests` (one JSON object per line), the fixture
/// (or `-`) and the server command; its temporary files go under `tmp`.
fn floor(requests: &Path, fixture: &str, tmp: &Path, server: &[&str]) -> (Option<i32>, String) {
    let (code, _, stderr) = outcome(
        &Command::new("bash")
            .arg(floor_script())
            .arg(requests)
            .arg(fixture)
            .arg("--")
            .args(server)
            .env("TMPDIR", tmp)
            .output()
            .expect("start bash"),
    );
    (code, stderr)
}

#[test]
fn every_request_is_answered_and_the_fixture_copy_is_what_the_server_sees() {
    let dir = scratch("floor-ok");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let fixture = dir.join("data");
    write(&fixture, "marker.txt", "kept\n");
    let requests = write(
        &dir,
        "requests.jsonl",
        concat!(
            r#"{"method":"tools/call","params":{"name":"echo","arguments":{"message":"{{fixture}}"}}}"#,
            "\n",
            r#"{"method":"tools/list","params":{}}"#,
            "\n",
            r#"{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
            "\n",
        ),
    );
    // The server starts only where the copy holds the fixture's file, and
    // writes into the copy.
    let script =
        format!(r#"test -f "$1/marker.txt" && echo changed > "$1/marker.txt" && exec {BIN} serve"#);
    let (code, stderr) = floor(
        &requests,
        fixture.to_str().unwrap(),
        &tmp,
        &["sh", "-c", &script, "sh", "{{fixture}}"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(fixture.join("marker.txt")).unwrap(),
        "kept\n",
        "the original is untouched"
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the copy is removed"
    );
}

#[test]
fn a_server_that_stops_answering_fails_the_floor() {
    let dir = scratch("floor-silent");
    let requests = write(
        &dir,
        "requests.jsonl",
        "{\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}}\n",
    );
    // A server that exits at once answers nothing.
    let (code, stderr) = floor(&requests, "-", &dir, &["true"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("closed its output before answering initialize"),
        "{stderr}"
    );
    // One that answers `initialize`, then closes its output and reads on.
    let script =
        r#"read -r _; echo '{"jsonrpc":"2.0","id":0,"result":{}}'; exec >&-; cat >/dev/null"#;
    let (code, stderr) = floor(&requests, "-", &dir, &["sh", "-c", script]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("closed its output before answering request 1"),
        "{stderr}"
    );
}
