//! Reused servers with `--fixture`: one session and one fixture copy for
//! the tests that share a server, the copy put back as it was made before
//! each test (in place: the server keeps running in it), the original never
//! touched. A server that writes into its root on every call would fail
//! the later tests if a change survived; none does, so none is re-run.

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{mcpcheck, outcome, scratch, write};
use serde_json::Value;

/// A shell server rooted at `--root DIR` that logs its start to `LOG`, and
/// offers `append` (adds a line to `seed.txt` and answers its lines joined
/// by `|`), `mess` (makes `made/deep.txt`, removes `gone.txt`, empties
/// `docs/`) and `list` (every path below the root, sorted, joined by `|`).
const SERVER: &str = r#"root=$2
echo start >> "$LOG"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  answer() {
    printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$id" "$1"
  }
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"writer","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"append","inputSchema":{"type":"object"}},{"name":"mess","inputSchema":{"type":"object"}},{"name":"list","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"name":"append"'*)
      echo appended >> "$root/seed.txt"
      answer "$(tr '\n' '|' < "$root/seed.txt")" ;;
    *'"name":"mess"'*)
      mkdir -p "$root/made" && echo deep > "$root/made/deep.txt"
      rm -f "$root/gone.txt" && rm -rf "$root/docs/"*
      chmod 600 "$root/keep.txt"
      answer done ;;
    *'"name":"list"'*)
      answer "$(cd "$root" && find . | sort | tr '\n' '|')" ;;
    *'"id":'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done
"#;

const LISTING: &str = ".|./docs|./docs/a.md|./gone.txt|./keep.txt|./seed.txt|";

/// A suite of five tests on the one server, each passing only on a fixture
/// as the original is, and the fixture `fx`.
fn setup(name: &str) -> PathBuf {
    let d = scratch(name);
    write(&d, "server.sh", SERVER);
    write(&d, "fx/seed.txt", "seed\n");
    write(&d, "fx/gone.txt", "to be removed\n");
    write(&d, "fx/keep.txt", "kept\n");
    write(&d, "fx/docs/a.md", "# a\n");
    let test = |file: &str, tool: &str, want: &str| {
        write(
            &d,
            &format!("suite/{file}"),
            &format!(
                "name: {file}\nserver:\n  command: sh\n  args: [server.sh, --root, '{{{{fixture}}}}']\n  env: {{LOG: '{log}'}}\nassert:\n  tool: {tool}\n  expect:\n    equals: '{want}'\n",
                log = d.join("starts.log").display()
            ),
        );
    };
    test("1-append.yaml", "append", "seed|appended|");
    test("2-mess.yaml", "mess", "done");
    test("3-list.yaml", "list", LISTING);
    test("4-append.yaml", "append", "seed|appended|");
    test("5-list.yaml", "list", LISTING);
    d
}

fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, Value, String, usize) {
    let _ = std::fs::remove_file(dir.join("starts.log"));
    let mut all = vec!["run", "--suite", "suite", "--fixture", "fx", "--json"];
    all.extend_from_slice(args);
    let (code, out, err) = outcome(
        &mcpcheck()
            .current_dir(dir)
            .args(&all)
            .output()
            .expect("start mcpcheck"),
    );
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("JSON: {out}{err}"));
    let starts = std::fs::read_to_string(dir.join("starts.log"))
        .unwrap_or_default()
        .lines()
        .count();
    (code, doc, err, starts)
}

fn warnings(doc: &Value) -> Vec<String> {
    doc["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["warnings"].as_array().into_iter().flatten())
        .filter_map(|w| w.as_str().map(str::to_string))
        .collect()
}

#[test]
fn one_server_and_one_copy_restored_between_tests() {
    let d = setup("reuse-fixture");
    let (code, doc, err, starts) = run_in(&d, &["-j", "1"]);
    assert_eq!(code, Some(0), "{doc}{err}");
    assert_eq!(doc["summary"]["passed"], 5, "{doc}");
    // One server for all five, and nothing had to be run again: every
    // test found the copy as the original is.
    assert_eq!(starts, 1, "{doc}");
    assert!(warnings(&doc).is_empty(), "{:?}", warnings(&doc));
    assert!(!err.contains("--reuse-server"), "{err}");
    // The original is as it was.
    assert_eq!(
        std::fs::read_to_string(d.join("fx/seed.txt")).unwrap(),
        "seed\n"
    );
    assert!(d.join("fx/gone.txt").exists() && !d.join("fx/made").exists());

    // Each test on a server and copy of its own: the same verdicts.
    let (code, isolated, _, starts) = run_in(&d, &["--isolate", "-j", "1"]);
    assert_eq!(code, Some(0));
    assert_eq!(starts, 5);
    assert_eq!(isolated["summary"]["passed"], 5);
}

#[test]
fn a_failing_test_on_the_shared_copy_is_run_again_on_a_fresh_one() {
    let d = setup("reuse-fixture-rerun");
    // This one fails however it runs: it is run again, and still fails.
    write(
        &d,
        "suite/6-wrong.yaml",
        &format!(
            "name: 6-wrong.yaml\nserver:\n  command: sh\n  args: [server.sh, --root, '{{{{fixture}}}}']\n  env: {{LOG: '{}'}}\nassert:\n  tool: append\n  expect:\n    equals: 'seed|'\n",
            d.join("starts.log").display()
        ),
    );
    let (code, doc, _, starts) = run_in(&d, &["-j", "1"]);
    assert_eq!(code, Some(1));
    assert_eq!(doc["summary"]["passed"], 5);
    assert_eq!(doc["summary"]["failed"], 1);
    assert_eq!(starts, 2, "the shared server and the re-run's");
    let w = warnings(&doc);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0] == "re-run on a fresh server and fixture copy (it did not pass on a shared one): the same result",
        "{w:?}"
    );
    // The text report says so too.
    let (_, out, _) = outcome(
        &mcpcheck()
            .current_dir(&d)
            .args(["run", "--suite", "suite", "--fixture", "fx", "-j", "1"])
            .output()
            .expect("start mcpcheck"),
    );
    assert!(
        out.contains("1 test did not pass on a shared server and was run again on a fresh one"),
        "{out}"
    );
}
