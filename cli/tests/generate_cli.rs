//! `mcpcheck generate` against the built-in server: the files it writes load,
//! run and cover every tool; existing files are never overwritten without
//! `--force`; a credential given as a header is written as a placeholder.
//! Against a small shell server: tools whose annotations say they may write
//! are skipped, and server arguments in `--fixture` become `{{fixture}}`.
//! `--composed` writes one file whose tests share one session.

mod cli_support;

use std::collections::BTreeMap;
use std::path::Path;

use cli_support::{BIN, http_serve, mcpcheck, outcome, run_mcpcheck, scratch, write};
use mcpcheck_core::suite;
use serde_json::Value;

/// The built-in server's tools, prompts and resources, as it lists them:
/// its own (15, 3, 3), the official conformance suite's fixtures (14, 4, 3)
/// and the extensions' (the dashboard; two skills and the dashboard's view).
const TOOLS: usize = 15 + 14 + 1;
const PROMPTS: usize = 3 + 4;
const RESOURCES: usize = 3 + 3 + 3;

fn serve_cmd() -> String {
    format!("{BIN} serve")
}

/// Every file of `dir` with its content.
fn contents(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn generated_suite_validates_runs_and_covers_every_tool() {
    let d = scratch("generate-suite").join("new/tests");
    let dir = d.to_str().unwrap();
    let (code, out, err) = run_mcpcheck(&["generate", "--server", &serve_cmd(), "--output", dir]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let files = contents(&d);
    assert_eq!(files.len(), TOOLS + PROMPTS + RESOURCES, "{files:?}");
    for name in [
        "echo.yaml",
        "add.yaml",
        "prompt_greeting.yaml",
        "resource_mcpcheck_static_text.yaml",
    ] {
        assert!(
            files.contains_key(name),
            "{name} missing: {:?}",
            files.keys()
        );
        assert!(out.contains(&format!("wrote {dir}/{name}")), "{out}");
    }
    assert!(
        out.contains(&format!("mcpcheck validate {dir}"))
            && out.contains(&format!("mcpcheck run --suite {dir}"))
            && out.contains(&format!("mcpcheck coverage --suite {dir}")),
        "next steps: {out}"
    );
    assert!(
        files["add.yaml"].contains(r#"args: {"a": 1, "b": 1}"#),
        "{}",
        files["add.yaml"]
    );
    assert!(
        files["prompt_greeting.yaml"]
            .contains(r#"get: {"name": "greeting", "arguments": {"name": "example"}}"#),
        "{}",
        files["prompt_greeting.yaml"]
    );

    let (code, out, err) = run_mcpcheck(&["validate", dir]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("0 errors"), "{out}");

    let (code, json, err) =
        run_mcpcheck(&["run", "--suite", dir, "--server", &serve_cmd(), "--json"]);
    // `fail` always fails; `sample`, `elicit` and `roots` need client
    // capabilities a generated test does not mock.
    assert_eq!(code, Some(1), "{err}");
    let v: Value = serde_json::from_str(&json).expect("JSON results");
    assert_eq!(v["summary"]["total"], TOOLS + PROMPTS + RESOURCES);
    assert_eq!(v["summary"]["errored"], 0, "{json}");
    let status = |name: &str| {
        v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["status"].as_str().unwrap_or_default().to_string())
    };
    for name in [
        "echo returns expected result",
        "add returns expected result",
        "prompt greeting renders",
        "resource mcpcheck://static/text can be read",
    ] {
        assert_eq!(status(name).as_deref(), Some("pass"), "{name}: {json}");
    }
    assert_eq!(
        status("fail returns expected result").as_deref(),
        Some("fail")
    );
    // All but the ten that fail in the composed run below.
    assert!(v["summary"]["passed"].as_u64().unwrap() >= 32, "{json}");

    let (code, out, err) = run_mcpcheck(&["coverage", "--suite", dir]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let line = |kind: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(kind))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        line("tools").contains(&format!("{TOOLS} of {TOOLS}")),
        "{out}"
    );
    assert!(!line("tools").contains("not used"), "{out}");
    assert!(
        line("prompts").contains(&format!("{PROMPTS} of {PROMPTS}")),
        "{out}"
    );
    assert!(
        line("resources").contains(&format!("{RESOURCES} of {RESOURCES}")),
        "{out}"
    );
}

#[test]
fn existing_files_are_kept_unless_forced() {
    let d = scratch("generate-force");
    let dir = d.to_str().unwrap();
    let mine = "# my own test, edited by hand\n";
    write(&d, "echo.yaml", mine);
    let (code, out, err) = run_mcpcheck(&["generate", "--server", &serve_cmd(), "--output", dir]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(
        err.contains(&format!("{dir}/echo.yaml already exists")),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        contents(&d).len(),
        1,
        "nothing is written when a file exists"
    );
    assert_eq!(contents(&d)["echo.yaml"], mine);

    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--output",
        dir,
        "--force",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let first = contents(&d);
    assert_eq!(first.len(), TOOLS + PROMPTS + RESOURCES);
    assert!(first["echo.yaml"].contains("tool: \"echo\""));

    // A second run without --force changes nothing.
    write(&d, "add.yaml", mine);
    let (code, _, err) = run_mcpcheck(&["generate", "--server", &serve_cmd(), "--output", dir]);
    assert_eq!(code, Some(2), "{err}");
    let second = contents(&d);
    assert_eq!(second["add.yaml"], mine);
    assert_eq!(second["echo.yaml"], first["echo.yaml"]);
}

#[test]
fn usage_errors_and_an_unreachable_server() {
    let d = scratch("generate-errors");
    let dir = d.join("out");
    let dir = dir.to_str().unwrap();
    let (code, _, err) = run_mcpcheck(&["generate", "--output", dir]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = run_mcpcheck(&["generate", "--server", &serve_cmd()]);
    assert_eq!(code, Some(2), "{err}");
    let both = d.join("one.yaml");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--output",
        dir,
        "--composed",
        both.to_str().unwrap(),
    ]);
    assert_eq!(
        code,
        Some(2),
        "--output and --composed exclude each other: {err}"
    );
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--output",
        dir,
        "--fixture",
        d.join("no-such-dir").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--fixture") && err.contains("not a directory"),
        "{err}"
    );
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--composed",
        d.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is a directory"), "{err}");
    let file = write(&d, "plain", "x");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--output",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a directory"), "{err}");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        "mcpcheck-no-such-server",
        "--output",
        dir,
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot list what it offers"), "{err}");
    assert!(!Path::new(dir).exists(), "nothing is created on failure");
}

#[test]
fn http_headers_that_carry_credentials_become_placeholders() {
    let server = http_serve(&["--bearer", "s3cret"]);
    let d = scratch("generate-http");
    let dir = d.to_str().unwrap();
    let (code, out, err) = run_mcpcheck(&[
        "generate",
        "--url",
        &server.url,
        "--header",
        "Authorization: Bearer s3cret",
        "--header",
        "Accept-Language: en",
        "--output",
        dir,
        "--timeout",
        "10s",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("${MCPCHECK_HEADER_AUTHORIZATION}")
            && err.contains("set MCPCHECK_HEADER_AUTHORIZATION"),
        "{err}"
    );
    let files = contents(&d);
    assert_eq!(files.len(), TOOLS + PROMPTS + RESOURCES);
    for (name, text) in &files {
        assert!(!text.contains("s3cret"), "{name}: {text}");
    }
    let whoami = &files["whoami.yaml"];
    assert!(
        whoami.contains(&format!(
            "server:\n  transport: \"http\"\n  url: \"{}\"\n  headers:\n    \"Authorization\": \"${{MCPCHECK_HEADER_AUTHORIZATION}}\"\n    \"Accept-Language\": \"en\"\n",
            server.url
        )),
        "{whoami}"
    );
    assert!(whoami.contains("timeout: 10s"), "{whoami}");

    // Legacy SSE is written as such.
    let sse = d.join("sse");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--url",
        &server.url.replace("/mcp", "/sse"),
        "--transport",
        "sse",
        "--output",
        sse.to_str().unwrap(),
    ]);
    assert_eq!(
        code,
        Some(1),
        "without the bearer token nothing is listed: {err}"
    );
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--url",
        &server.url.replace("/mcp", "/sse"),
        "--transport",
        "sse",
        "--header",
        "Authorization: Bearer s3cret",
        "--output",
        sse.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let echo = std::fs::read_to_string(sse.join("echo.yaml")).unwrap();
    assert!(echo.contains("transport: \"sse\""), "{echo}");
    std::fs::remove_dir_all(&sse).unwrap();

    // With the variable set, the generated tests reach the server.
    let (code, _, err) = run_mcpcheck(&["validate", dir]);
    assert_eq!(code, Some(0), "{err}");
    let o = mcpcheck()
        .args(["run", "--suite", &format!("{dir}/whoami.yaml"), "--json"])
        .env("MCPCHECK_HEADER_AUTHORIZATION", "Bearer s3cret")
        .output()
        .unwrap();
    let (code, json, err) = outcome(&o);
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert!(!json.contains("s3cret"), "{json}");
}

/// A stdio server in sh with three annotated tools: `read_note`
/// (read-only), `delete_all` (destructive) and `write_note` (not read-only).
/// Each `tools/call` line is appended to `calls.log` next to the script; a
/// call answers `isError: true` unless the script's first argument names a
/// file that exists.
const ANNOTATED_SERVER: &str = r#"log="$(dirname "$0")/calls.log"
while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue ;; esac
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"annotated","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"read_note","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}},{"name":"delete_all","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}},{"name":"write_note","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},"annotations":{"readOnlyHint":false,"destructiveHint":false}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      printf '%s\n' "$line" >> "$log"
      if [ -z "$1" ] || [ -f "$1" ]; then err=false; else err=true; fi
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}],"isError":%s}}\n' "$id" "$err" ;;
    *)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id" ;;
  esac
done
"#;

/// Runs `mcpcheck ARGS` in `dir`: (exit code, stdout, stderr).
#[cfg(unix)]
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(&mcpcheck().current_dir(dir).args(args).output().unwrap())
}

/// The names of the tools called, from `calls.log`.
fn calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("calls.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["params"]["name"].as_str().unwrap().to_string()
        })
        .collect()
}

fn summary(json: &str) -> Value {
    let v: Value = serde_json::from_str(json).expect("JSON results");
    v["summary"].clone()
}

#[test]
fn tools_that_may_write_are_skipped_unless_included() {
    let d = scratch("generate-writes");
    write(&d, "server.sh", ANNOTATED_SERVER);
    let server = format!("sh {}", d.join("server.sh").display());
    let out_dir = d.join("tests");
    let (code, out, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &server,
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("3 tests written (3 tools, 0 prompts, 0 resources); 2 skipped"),
        "{out}"
    );
    assert!(
        out.contains("2 tests are written with `skip:`")
            && out.contains("  delete_all: annotations.destructiveHint is true\n")
            && out.contains("  write_note: annotations.readOnlyHint is false\n")
            && out.contains("--include-writes"),
        "{out}"
    );
    let files = contents(&out_dir);
    assert!(
        files["delete_all.yaml"].contains(
            "skip: \"may write (annotations.destructiveHint is true): remove this line to call it\"\n"
        ),
        "{}",
        files["delete_all.yaml"]
    );
    assert!(files["write_note.yaml"].contains("skip: "));
    assert!(!files["read_note.yaml"].contains("skip"));
    for (name, text) in &files {
        let loaded = suite::load(name, text);
        assert!(
            loaded.diagnostics.is_empty(),
            "{name}: {:?}",
            loaded.diagnostics
        );
    }

    let (code, json, err) = run_mcpcheck(&["run", "--suite", out_dir.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    let s = summary(&json);
    assert_eq!(
        (s["passed"].as_u64(), s["skipped"].as_u64()),
        (Some(1), Some(2)),
        "{json}"
    );
    assert_eq!(calls(&d), ["read_note"], "a skipped tool is never called");

    std::fs::remove_file(d.join("calls.log")).unwrap();
    let all = d.join("all");
    let (code, out, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &server,
        "--output",
        all.to_str().unwrap(),
        "--include-writes",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(!out.contains("skip"), "{out}");
    assert!(contents(&all).values().all(|t| !t.contains("skip:")));
    let (code, json, err) = run_mcpcheck(&["run", "--suite", all.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert_eq!(summary(&json)["passed"], 3, "{json}");
    let mut called = calls(&d);
    called.sort();
    assert_eq!(called, ["delete_all", "read_note", "write_note"]);
}

#[cfg(unix)]
#[test]
fn server_arguments_in_the_fixture_are_written_as_its_template() {
    let d = scratch("generate-fixture");
    write(&d, "server.sh", ANNOTATED_SERVER);
    write(&d, "fix/data.txt", "data\n");
    std::os::unix::fs::symlink(d.join("fix"), d.join("link")).unwrap();
    // The first argument, through a symbolic link to the fixture, is the
    // file the server needs; `--root=fix/` is relative with a trailing
    // slash; `server.sh` and `plain` lie outside it.
    let server = format!(
        "sh server.sh {}/data.txt --root=fix/ plain",
        d.join("link").display()
    );
    let (code, out, err) = run_in(
        &d,
        &[
            "generate",
            "--server",
            &server,
            "--output",
            "tests",
            "--fixture",
            "fix/",
            "--include-writes",
        ],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains(
            "2 server arguments written as {{fixture}}: run the tests with --fixture fix/"
        ),
        "{out}"
    );
    assert!(
        out.contains("mcpcheck run --suite tests --fixture fix/"),
        "next steps name the fixture: {out}"
    );
    let text = &contents(&d.join("tests"))["read_note.yaml"];
    assert!(
        text.contains(
            "  command: \"sh\"\n  args: [\"server.sh\", \"{{fixture}}/data.txt\", \"--root={{fixture}}\", \"plain\"]\n"
        ),
        "{text}"
    );

    // With --fixture, the server finds its file in the copy.
    let (code, json, err) = run_in(
        &d,
        &["run", "--suite", "tests", "--fixture", "fix", "--json"],
    );
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert_eq!(summary(&json)["passed"], 3, "{json}");
    let (code, json, _) = run_in(&d, &["run", "--suite", "tests", "--json"]);
    assert_eq!(code, Some(1), "without --fixture the template has no value");
    assert_eq!(summary(&json)["errored"], 3, "{json}");

    // A fixture no argument points into is said, and nothing is rewritten.
    let (code, out, err) = run_in(
        &d,
        &[
            "generate",
            "--server",
            &serve_cmd(),
            "--output",
            "serve",
            "--fixture",
            "fix",
        ],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains(
            "no server argument points into --fixture fix: nothing is written as {{fixture}}"
        ),
        "{err}"
    );
    assert!(
        contents(&d.join("serve"))
            .values()
            .all(|t| !t.contains("{{fixture}}"))
    );
}

#[test]
fn composed_writes_one_file_whose_tests_share_one_session() {
    let d = scratch("generate-composed");
    let file = d.join("suite/all.yaml");
    let path = file.to_str().unwrap();
    let (code, out, err) =
        run_mcpcheck(&["generate", "--server", &serve_cmd(), "--composed", path]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains(&format!("wrote {path}\n")), "{out}");
    assert_eq!(out.matches("wrote ").count(), 1, "{out}");
    assert!(
        out.contains(&format!("mcpcheck run --suite {path}")),
        "{out}"
    );
    let files = contents(&d.join("suite"));
    assert_eq!(files.len(), 1, "{:?}", files.keys());
    let text = &files["all.yaml"];
    let loaded = suite::load("all.yaml", text);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(loaded.suite.composed && loaded.suite.share_server);
    assert_eq!(loaded.suite.tests.len(), TOOLS + PROMPTS + RESOURCES);
    assert_eq!(
        text.matches("\nserver:\n").count(),
        1,
        "the server once: {text}"
    );

    let captures = d.join("captures");
    let (code, json, err) = run_mcpcheck(&[
        "run",
        "--suite",
        path,
        "--json",
        "--capture",
        captures.to_str().unwrap(),
    ]);
    // The same verdicts as one file per test: `fail` and
    // `test_error_handling` always fail; `sample`, `elicit`, `roots`,
    // `test_sampling` and the `test_elicitation*` fixtures need client
    // capabilities a generated test does not mock; and the placeholder `{}`
    // of `json_schema_2020_12_tool` misses the `email` its schema requires
    // through `if`/`else`.
    assert_eq!(code, Some(1), "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["summary"]["errored"], 0, "{json}");
    let mut failed: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] != "pass")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    failed.sort();
    assert_eq!(
        failed,
        [
            "elicit returns expected result",
            "fail returns expected result",
            "json_schema_2020_12_tool returns expected result",
            "roots returns expected result",
            "sample returns expected result",
            "test_elicitation returns expected result",
            "test_elicitation_sep1034_defaults returns expected result",
            "test_elicitation_sep1330_enums returns expected result",
            "test_error_handling returns expected result",
            "test_sampling returns expected result"
        ],
        "{json}"
    );
    // One session: the calls resource, read after the tool tests, counts
    // every tool call of the file.
    let capture: Value = serde_json::from_str(
        &std::fs::read_to_string(captures.join("resource_mcpcheck___calls_can_be_read.json"))
            .unwrap(),
    )
    .unwrap();
    let last = capture["exchanges"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["response"]["result"]["contents"][0]["text"],
        TOOLS.to_string(),
        "{last}"
    );

    // Never overwritten without --force.
    let (code, _, err) = run_mcpcheck(&["generate", "--server", &serve_cmd(), "--composed", path]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("{path} already exists")), "{err}");
    assert!(err.contains("--force"), "{err}");
    write(&d, "suite/all.yaml", "# mine\n");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--composed",
        path,
        "--force",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(&std::fs::read_to_string(&file).unwrap(), text);
}
