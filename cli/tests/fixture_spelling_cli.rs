//! `--fixture DIR` points the server at a copy however its command line
//! spells DIR: `./fx`, `fx/`, `--root=fx`, an absolute path, a link to it.
//! A server that writes into its root at start and on every call must leave
//! the original untouched in `audit`, `run` and `init`; a spelling that
//! cannot be pointed at the copy is refused before the server starts.
#![cfg(unix)]
// The fixture is reached through a symbolic link, made with the Unix call.

mod cli_support;

use std::path::Path;

use cli_support::{mcpcheck, outcome, scratch, write};

/// A shell server that takes its root as `--root DIR` or `--root=DIR`,
/// writes `DIR/started` when it starts and `DIR/called` on a tool call,
/// and lists one tool, `touch`.
const SERVER: &str = r#"root=
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=$2; shift 2 ;;
    --root=*) root=${1#--root=}; shift ;;
    *) shift ;;
  esac
done
echo started > "$root/started"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"writer","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"touch","description":"Writes a file in the root.","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      echo called > "$root/called"
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}\n' "$id" ;;
    *'"id":'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done
"#;

/// A scratch directory with the server, a fixture `fx` holding one file,
/// and a link `link` to `fx`.
fn setup(name: &str) -> std::path::PathBuf {
    let d = scratch(name);
    write(&d, "server.sh", SERVER);
    write(&d, "fx/seed.txt", "seed");
    std::os::unix::fs::symlink(d.join("fx"), d.join("link")).expect("a link");
    d
}

/// Runs mcpcheck in `dir` with `args`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        &mcpcheck()
            .current_dir(dir)
            .args(args)
            .output()
            .expect("start mcpcheck"),
    )
}

/// What the fixture holds, file names sorted.
fn files_of(fixture: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture)
        .expect("the fixture")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn audit_points_every_spelling_of_the_fixture_at_the_copy() {
    let d = setup("audit-spellings");
    let absolute = d.join("fx").display().to_string();
    let spellings = [
        "--root ./fx".to_string(),
        "--root fx/".to_string(),
        "--root=fx".to_string(),
        "--root=./fx/".to_string(),
        format!("--root {absolute}"),
        "--root link".to_string(),
        "--root fx/../fx".to_string(),
    ];
    for spelling in &spellings {
        let server = format!("sh server.sh {spelling}");
        let (code, out, err) = run_in(&d, &["audit", "--fixture", "fx", "--server", &server]);
        assert_eq!(code, Some(0), "{spelling}: {out}\n{err}");
        assert!(
            out.contains("touch"),
            "{spelling}: the tool was called: {out}"
        );
        assert_eq!(
            files_of(&d.join("fx")),
            ["seed.txt"],
            "{spelling}: the original was written"
        );
    }
    // Given with another spelling on the mcpcheck side too.
    let (code, out, err) = run_in(
        &d,
        &[
            "audit",
            "--fixture",
            &format!("{absolute}/"),
            "--server",
            "sh server.sh --root ./fx",
        ],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(files_of(&d.join("fx")), ["seed.txt"]);
}

#[test]
fn a_spelling_that_cannot_be_pointed_at_the_copy_is_refused_before_the_server_starts() {
    let d = setup("audit-refused");
    let server = format!(
        "sh server.sh --root {}/ --roots=/tmp:{}",
        d.display(),
        d.join("fx").display()
    );
    let (code, out, err) = run_in(&d, &["audit", "--fixture", "fx", "--server", &server]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(err.contains("inside a longer value"), "{err}");
    assert!(err.contains("{{fixture}}"), "says what to write: {err}");
    assert_eq!(files_of(&d.join("fx")), ["seed.txt"]);
}

#[test]
fn run_points_the_suites_spelling_of_the_fixture_at_the_copy() {
    let d = setup("run-spellings");
    for (i, arg) in ["./fx", "fx/", "--root=fx"].iter().enumerate() {
        let args = if arg.starts_with("--") {
            format!("[server.sh, \"{arg}\"]")
        } else {
            format!("[server.sh, --root, \"{arg}\"]")
        };
        let suite = write(
            &d,
            &format!("suite{i}.yaml"),
            &format!(
                "name: writes\nserver:\n  command: sh\n  args: {args}\nassert:\n  tool: touch\n  expect: {{not_error: true}}\n"
            ),
        );
        let (code, out, err) = run_in(
            &d,
            &["run", "--suite", suite.to_str().unwrap(), "--fixture", "fx"],
        );
        assert_eq!(code, Some(0), "{arg}: {out}\n{err}");
        assert_eq!(
            files_of(&d.join("fx")),
            ["seed.txt"],
            "{arg}: the original was written"
        );
    }
}

#[test]
fn init_lists_the_server_on_a_copy_and_writes_the_fixture_as_a_template() {
    let d = setup("init-spelling");
    let (code, out, err) = run_in(
        &d,
        &[
            "init",
            "tests",
            "--server",
            "sh server.sh --root ./fx/",
            "--fixture",
            "fx",
        ],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(
        files_of(&d.join("fx")),
        ["seed.txt"],
        "listing wrote to the original"
    );
    let written: String = std::fs::read_dir(d.join("tests"))
        .expect("the suite")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect();
    assert!(written.contains("{{fixture}}"), "{written}");
}
