//! `mcpcheck init`: without a server, a starter suite that passes under
//! `mcpcheck run`, started through PATH or through the binary's own path;
//! with a server, the generated tests and their recorded snapshots, which a
//! later `run --snapshots` passes; both orders of `DIR` and `--server`;
//! nothing is overwritten without `--force`.

mod cli_support;

use std::collections::BTreeMap;
use std::path::Path;

use cli_support::{BIN, http_serve, mcpcheck, outcome, run_mcpcheck, scratch, write};
use mcpcheck_core::suite;
use serde_json::Value;

fn serve_cmd() -> String {
    format!("{BIN} serve")
}

/// `mcpcheck ARGS` with `PATH` set to `path`: (exit code, stdout, stderr).
fn with_path(path: &str, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(&mcpcheck().env("PATH", path).args(args).output().unwrap())
}

/// Every file below `dir`, by its path relative to `dir`, with its content.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                files.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    files
}

fn summary(json: &str) -> Value {
    let v: Value = serde_json::from_str(json).expect("JSON results");
    v["summary"].clone()
}

#[test]
fn without_a_server_the_starter_suite_passes() {
    let d = scratch("init-starter");
    let dir = d.join("evals");
    let shown = dir.to_str().unwrap();
    // mcpcheck is not on this PATH: the suite names this binary.
    let (code, out, err) = with_path("/usr/bin:/bin", &["init", shown]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let files = tree(&dir);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["README.md", "fixture/hello.txt", "mcpcheck.yaml"]
    );
    for name in ["mcpcheck.yaml", "fixture/hello.txt", "README.md"] {
        assert!(out.contains(&format!("wrote {shown}/{name}\n")), "{out}");
    }
    assert!(
        out.contains(&format!(
            "mcpcheck is not on PATH: the suite starts the server as {BIN} serve"
        )),
        "{out}"
    );
    let next = format!("{BIN} run --suite {shown}/mcpcheck.yaml --fixture {shown}/fixture");
    assert!(out.contains(&next), "the next command: {out}");
    let suite_text = &files["mcpcheck.yaml"];
    assert!(
        suite_text.contains(&format!("command: \"{BIN}\"")),
        "{suite_text}"
    );
    let loaded = suite::load("mcpcheck.yaml", suite_text);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(files["README.md"].contains("mcpcheck run --suite mcpcheck.yaml --fixture fixture"));

    let (code, json, err) = run_mcpcheck(&[
        "run",
        "--suite",
        &format!("{shown}/mcpcheck.yaml"),
        "--fixture",
        &format!("{shown}/fixture"),
        "--json",
    ]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert_eq!(summary(&json)["passed"], 5, "{json}");
    assert_eq!(tree(&dir), files, "the run changes nothing in DIR");
}

#[cfg(unix)]
#[test]
fn the_starter_says_mcpcheck_when_it_is_on_path() {
    let d = scratch("init-on-path");
    let bin = d.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("mcpcheck")).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let dir = d.join("here");
    let (code, out, err) = with_path(&path, &["init", dir.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(!out.contains("not on PATH"), "{out}");
    assert!(out.contains("\n  mcpcheck run --suite "), "{out}");
    let text = std::fs::read_to_string(dir.join("mcpcheck.yaml")).unwrap();
    assert!(text.contains("command: \"mcpcheck\""), "{text}");
    let (code, out, err) = with_path(
        &path,
        &[
            "run",
            "--suite",
            dir.join("mcpcheck.yaml").to_str().unwrap(),
            "--fixture",
            dir.join("fixture").to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
}

#[test]
fn init_never_overwrites_without_force() {
    let d = scratch("init-force");
    let dir = d.to_str().unwrap();
    let mine = "# my notes\n";
    write(&d, "README.md", mine);
    let (code, out, err) = run_mcpcheck(&["init", dir]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(
        err.contains(&format!("{dir}/README.md already exists")),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert_eq!(tree(&d).len(), 1, "nothing is written when a file exists");
    assert_eq!(tree(&d)["README.md"], mine);

    let (code, _, err) = run_mcpcheck(&["init", dir, "--force"]);
    assert_eq!(code, Some(0), "{err}");
    let files = tree(&d);
    assert_eq!(files.len(), 3);
    assert_ne!(files["README.md"], mine);

    // A file where the directory should be, flags without a server, and a
    // server that cannot be started.
    let plain = write(&d, "plain", "x");
    let (code, _, err) = run_mcpcheck(&["init", plain.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a directory"), "{err}");
    let (code, _, err) = run_mcpcheck(&["init", dir, "--include-writes"]);
    assert_eq!(code, Some(2), "{err}");
    let gone = d.join("unreachable");
    let (code, _, err) = run_mcpcheck(&[
        "init",
        gone.to_str().unwrap(),
        "--server",
        "mcpcheck-no-such-server",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot list what it offers"), "{err}");
    assert!(!gone.exists(), "nothing is created on failure");
}

#[test]
fn with_a_server_the_tests_and_their_snapshots_are_written() {
    let d = scratch("init-server");
    let dir = d.join("evals");
    let shown = dir.to_str().unwrap();
    let (code, out, err) = run_mcpcheck(&["init", shown, "--server", &serve_cmd()]);
    // serve's `fail` tool fails, and the tools that ask the client need
    // capabilities the starter tests do not declare: their answers are
    // tool errors, named, and the recording run does not pass.
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(out.contains("46 tests: 36 passed, 10 failed"), "{out}");
    assert!(
        out.contains("10 answers are tool errors, recorded as what the test expects")
            && out.contains("  fail returns expected result: the answer is a tool error (isError: true): the fail tool always fails\n"),
        "{out}"
    );
    let files = tree(&dir);
    // serve's own 15 tools, 3 prompts and 3 resources, the conformance
    // fixtures' 14, 4 and 3, the extensions' 1 tool and 3 resources, and
    // the snapshots file.
    assert_eq!(files.len(), 30 + 7 + 9 + 1, "{:?}", files.keys());
    assert!(out.contains(&format!("wrote {shown}/echo.yaml\n")), "{out}");
    assert!(
        out.contains("46 tests written (30 tools, 7 prompts, 9 resources)"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "snapshots: 30 new, 0 changed, 0 unchanged; written to {shown}/.snapshots.json"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("mcpcheck run --suite {shown} --snapshots")),
        "{out}"
    );
    // Tool tests expect their recorded answer, so `fail` is recorded as it is.
    assert!(
        !files["fail.yaml"].contains("not_error"),
        "{}",
        files["fail.yaml"]
    );
    let snapshots: Value = serde_json::from_str(&files[".snapshots.json"]).unwrap();
    let fail = snapshots["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["tool"] == "fail")
        .unwrap();
    assert_eq!(fail["is_error"], true, "{fail}");

    let (code, json, err) = run_mcpcheck(&["run", "--suite", shown, "--snapshots", "--json"]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert_eq!(summary(&json)["passed"], 46, "{json}");

    // A changed answer fails the test.
    let edited = files[".snapshots.json"].replacen("\"text\": \"2\"", "\"text\": \"3\"", 1);
    assert_ne!(edited, files[".snapshots.json"], "the add snapshot is `2`");
    write(&dir, ".snapshots.json", &edited);
    let (code, json, _) = run_mcpcheck(&["run", "--suite", shown, "--snapshots", "--json"]);
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(summary(&json)["failed"], 1, "{json}");

    // Again without --force: every existing file is named, the snapshots too.
    let (code, _, err) = run_mcpcheck(&["init", shown, "--server", &serve_cmd()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{shown}/.snapshots.json already exists")),
        "{err}"
    );
    assert_eq!(tree(&dir)[".snapshots.json"], edited, "nothing was written");
}

#[test]
fn dir_and_server_are_taken_in_either_order() {
    let d = scratch("init-orders");
    let run_in = |args: &[&str]| outcome(&mcpcheck().current_dir(&d).args(args).output().unwrap());
    let serve = serve_cmd();
    // 1: serve's tool errors (above); the files are written all the same.
    let (code, out, err) = run_in(&["init", "evals", "--server", &serve]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let (code, out, err) = run_in(&["init", "--server", &serve, "evals2"]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    for dir in ["evals", "evals2"] {
        let files = tree(&d.join(dir));
        assert!(
            files.contains_key("echo.yaml") && files.contains_key(".snapshots.json"),
            "{dir}: {:?}",
            files.keys()
        );
    }
}

/// A stdio server in sh with a read-only tool and a destructive one.
const ANNOTATED_SERVER: &str = r#"while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue ;; esac
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"annotated","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"read_note","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"name":"delete_all","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"the note"}]}}\n' "$id" ;;
    *)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id" ;;
  esac
done
"#;

#[test]
fn with_a_server_tools_that_may_write_are_skipped_and_not_recorded() {
    let d = scratch("init-writes");
    write(&d, "server.sh", ANNOTATED_SERVER);
    let server = format!("sh {}", d.join("server.sh").display());
    let dir = d.join("evals");
    let shown = dir.to_str().unwrap();
    let (code, out, err) = run_mcpcheck(&["init", shown, "--server", &server]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("1 test is written with `skip:`"), "{out}");
    assert!(
        out.contains("  delete_all: annotations.destructiveHint is true"),
        "{out}"
    );
    assert!(out.contains("snapshots: 1 new"), "{out}");
    let snapshots = std::fs::read_to_string(dir.join(".snapshots.json")).unwrap();
    assert!(
        snapshots.contains("the note") && !snapshots.contains("delete_all"),
        "{snapshots}"
    );
    let (code, json, err) = run_mcpcheck(&["run", "--suite", shown, "--snapshots", "--json"]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    let s = summary(&json);
    assert_eq!(
        (s["passed"].as_u64(), s["skipped"].as_u64()),
        (Some(1), Some(1)),
        "{json}"
    );
}

#[test]
fn over_http_the_answers_are_recorded_once_the_header_variable_is_set() {
    let server = http_serve(&["--bearer", "s3cret"]);
    let d = scratch("init-http");
    let dir = d.join("evals");
    let shown = dir.to_str().unwrap();
    let init = |force: bool, token: Option<&str>| {
        let mut c = mcpcheck();
        c.args([
            "init",
            shown,
            "--url",
            &server.url,
            "--header",
            "Authorization: Bearer s3cret",
        ]);
        if force {
            c.arg("--force");
        }
        c.env_remove("MCPCHECK_HEADER_AUTHORIZATION");
        if let Some(t) = token {
            c.env("MCPCHECK_HEADER_AUTHORIZATION", t);
        }
        outcome(&c.output().unwrap())
    };
    let (code, out, err) = init(false, None);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        err.contains("the answers are not recorded")
            && err.contains("set it, then record them with `mcpcheck run --suite")
            && err.contains("MCPCHECK_HEADER_AUTHORIZATION"),
        "{err}"
    );
    let files = tree(&dir);
    assert!(files.contains_key("whoami.yaml") && !files.contains_key(".snapshots.json"));
    assert!(files.values().all(|t| !t.contains("s3cret")));

    let (code, out, err) = init(true, Some("Bearer s3cret"));
    // 1: serve's tool errors, as on stdio; every answer is recorded.
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(out.contains("snapshots: 30 new"), "{out}");
    let snapshots = std::fs::read_to_string(dir.join(".snapshots.json")).unwrap();
    assert!(
        snapshots.contains("bearer#1") && !snapshots.contains("s3cret"),
        "{snapshots}"
    );
}

/// A stdio server in sh that serves the directory given as `$1`: `where_is`
/// answers with a path into it; with `$2` = `errors`, `get_time` answers
/// with a tool error and `convert_time` with text that reads as one.
const FIXTURE_SERVER: &str = r#"root="$1"; mode="$2"
while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue ;; esac
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      extra=""
      if [ "$mode" = errors ]; then
        extra=',{"name":"get_time","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"name":"convert_time","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}'
      fi
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"where_is","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}%s]}}\n' "$id" "$extra" ;;
    *'"name":"where_is"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"the notes are in %s/notes.txt"}]}}\n' "$id" "$root" ;;
    *'"name":"get_time"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"Invalid timezone: No time zone found with key example"}],"isError":true}}\n' "$id" ;;
    *'"name":"convert_time"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"Invalid timezone: example"}]}}\n' "$id" ;;
    *)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id" ;;
  esac
done
"#;

/// `init DIR --server "sh server.sh FIXTURE [mode]" --fixture FIXTURE` in a
/// scratch directory: (the directory, the fixture, init's outcome).
fn init_with_fixture(
    name: &str,
    mode: &str,
) -> (std::path::PathBuf, String, (Option<i32>, String, String)) {
    let d = scratch(name);
    write(&d, "server.sh", FIXTURE_SERVER);
    let fixture = d.join("fs");
    write(&fixture, "notes.txt", "remember\n");
    let fixture = fixture.to_str().unwrap().to_string();
    let server = format!("sh {} {fixture} {mode}", d.join("server.sh").display());
    let dir = d.join("evals");
    let outcome = run_mcpcheck(&[
        "init",
        dir.to_str().unwrap(),
        "--server",
        &server,
        "--fixture",
        &fixture,
    ]);
    (dir, fixture, outcome)
}

#[test]
fn with_a_fixture_the_run_init_prints_passes_right_away() {
    let (dir, fixture, (code, out, err)) = init_with_fixture("init-fixture", "plain");
    let shown = dir.to_str().unwrap();
    assert_eq!(code, Some(0), "{out}\n{err}");
    let next = format!("mcpcheck run --suite {shown} --fixture {fixture} --snapshots");
    assert!(out.contains(&next), "{out}");
    // The answer named the fixture copy, a fresh temporary directory on
    // every run: it is recorded as <temp-copy>.
    let snapshots = std::fs::read_to_string(dir.join(".snapshots.json")).unwrap();
    assert!(
        snapshots.contains("the notes are in <temp-copy>/fs/notes.txt"),
        "{snapshots}"
    );
    assert!(!snapshots.contains("mcpcheck-fixture-"), "{snapshots}");
    // The next command, as printed (with JSON to read its verdict), twice:
    // each run makes another copy.
    for _ in 0..2 {
        let (code, json, err) = run_mcpcheck(&[
            "run",
            "--suite",
            shown,
            "--fixture",
            &fixture,
            "--snapshots",
            "--json",
        ]);
        assert_eq!(code, Some(0), "{json}\n{err}");
        assert_eq!(summary(&json)["passed"], 1, "{json}");
    }
    // Recording again changes nothing.
    let (code, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        shown,
        "--fixture",
        &fixture,
        "--update-snapshots",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("snapshots: 0 new, 0 changed, 1 unchanged"),
        "{out}"
    );
}

#[test]
fn answers_that_are_tool_errors_are_named_and_not_called_passes() {
    let (dir, fixture, (code, out, err)) = init_with_fixture("init-tool-errors", "errors");
    let shown = dir.to_str().unwrap();
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(!out.contains("3 passed"), "{out}");
    assert!(out.contains("3 tests: 1 passed, 2 failed"), "{out}");
    assert!(
        out.contains("2 answers are tool errors, recorded as what the test expects"),
        "{out}"
    );
    assert!(
        out.contains("  get_time returns expected result: the answer is a tool error (isError: true): Invalid timezone: No time zone found with key example\n"),
        "{out}"
    );
    assert!(
        out.contains("  convert_time returns expected result: the answer reads as an error (isError is not set): Invalid timezone: example\n"),
        "{out}"
    );
    assert!(
        err.contains("a starter test fails when its answer is an error (a tool error, a prompt or resource refused)")
            && err.contains("Give the failing tests arguments the server accepts"),
        "{err}"
    );
    // Recorded all the same: the next command passes, and says nothing new.
    let (code, json, err) = run_mcpcheck(&[
        "run",
        "--suite",
        shown,
        "--fixture",
        &fixture,
        "--snapshots",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert_eq!(summary(&json)["passed"], 3, "{json}");
}
