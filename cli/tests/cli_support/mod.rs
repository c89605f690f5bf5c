//! Helpers shared by the integration tests that run the `mcpcheck` binary the
//! way a user does: without colour, on files in a scratch directory, reading
//! its exit code, stdout and stderr.
#![allow(
    dead_code,
    reason = "each test crate includes this module and uses a part of it"
)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcpcheck");

/// `mcpcheck` with `NO_COLOR=1`, ready for its arguments.
pub fn mcpcheck() -> Command {
    let mut c = Command::new(BIN);
    c.env("NO_COLOR", "1");
    c
}

/// The exit code, stdout and stderr of a finished command.
pub fn outcome(o: &Output) -> (Option<i32>, String, String) {
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `mcpcheck ARGS` to its end: (exit code, stdout, stderr).
pub fn run_mcpcheck(args: &[&str]) -> (Option<i32>, String, String) {
    outcome(&mcpcheck().args(args).output().expect("start mcpcheck"))
}

/// An empty directory for one test, unique to this test process.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpcheck-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Writes `text` to `dir/name`, creating the directories on the way.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("create a directory");
    }
    std::fs::write(&p, text).expect("write a test file");
    p
}

/// Writes a stdio MCP server in `sh` to `dir/name` and returns the command
/// that starts it. It answers `initialize` with `capabilities` (a JSON
/// object), each request a line of `cases` matches (`case` patterns and
/// their `printf`, where `%s` is the request's id), and any other request
/// with -32601.
pub fn sh_server(dir: &Path, name: &str, capabilities: &str, cases: &str) -> String {
    let script = format!(
        r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"serverInfo":{{"name":"{name}","version":"1"}}}}}}\n' "$id";;
{cases}
    *'"id":'*) printf '{{"jsonrpc":"2.0","id":%s,"error":{{"code":-32601,"message":"Method not found"}}}}\n' "$id";;
  esac
done
"#
    );
    let path = write(dir, name, &script);
    format!("sh {}", path.display())
}

/// Writes `yaml` to `dir/file` and runs `mcpcheck run --suite` on it, then
/// `extra` arguments: (exit code, stdout, stderr).
pub fn run_suite(
    dir: &Path,
    file: &str,
    yaml: &str,
    extra: &[&str],
) -> (Option<i32>, String, String) {
    let suite = write(dir, file, yaml);
    let path = suite.to_str().expect("a UTF-8 path");
    run_mcpcheck(&[&["run", "--suite", path], extra].concat())
}

/// The methods of a capture's client messages, in order.
pub fn request_methods(capture: &Value) -> Vec<&str> {
    capture["exchanges"]
        .as_array()
        .expect("a capture has exchanges")
        .iter()
        .filter_map(|x| x["request"]["method"].as_str())
        .collect()
}

/// `mcpcheck serve --http 127.0.0.1:0` (and `extra` flags), killed when
/// dropped; `url` is the Streamable HTTP endpoint it printed.
pub struct HttpServe {
    child: Child,
    pub url: String,
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn http_serve(extra: &[&str]) -> HttpServe {
    let mut child = mcpcheck()
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut line = String::new();
    BufReader::new(stderr).read_line(&mut line).unwrap();
    let url = line
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    HttpServe { child, url }
}
