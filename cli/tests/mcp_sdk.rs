//! `mcpcheck mcp` used by the official MCP SDK clients — Python `mcp`
//! (the venv `scripts/setup` makes in `tests/py-servers/.venv`) and
//! TypeScript `@modelcontextprotocol/sdk` (installed in
//! `tests/node-servers`) — over stdio and Streamable HTTP
//! (`mcp_clients/client.py`, `client.mjs`). Each lists the tools, calls
//! `doctor` on `mcpcheck serve --fault buggy-tools` and gets the planted
//! findings as structured content that validates against the tool's
//! outputSchema (the SDKs check it themselves; it is checked here again);
//! `run_suite` returns the document `mcpcheck run --json` prints; and a call
//! naming a server outside the allow list is refused with a tool error.
//!
//! Without an SDK installed its tests say so and stop, unless
//! `MCPCHECK_REQUIRE_PY_SERVERS=1` or `MCPCHECK_REQUIRE_NODE_SERVERS=1` (set
//! by the project's test script) makes its absence a failure.

mod cli_support;

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use cli_support::{BIN, mcpcheck, outcome, scratch};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn clients() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients")
}

/// The venv's Python, when the SDK is installed.
fn python() -> Option<PathBuf> {
    let python = repo().join("tests/py-servers/.venv/bin/python");
    if python.exists() {
        return Some(python);
    }
    assert!(
        std::env::var("MCPCHECK_REQUIRE_PY_SERVERS").is_err(),
        "the Python SDK is not installed: run scripts/setup"
    );
    eprintln!("tests/py-servers/.venv is missing (scripts/setup installs it); not run");
    None
}

/// The TypeScript SDK's folder, when it is installed.
fn typescript_sdk() -> Option<PathBuf> {
    let sdk = repo().join("tests/node-servers/node_modules/@modelcontextprotocol/sdk");
    if sdk.join("dist/esm/client/index.js").exists() {
        return Some(sdk);
    }
    assert!(
        std::env::var("MCPCHECK_REQUIRE_NODE_SERVERS").is_err(),
        "the TypeScript SDK is not installed: run `npm ci --prefix tests/node-servers`"
    );
    eprintln!("@modelcontextprotocol/sdk is not installed in tests/node-servers; not run");
    None
}

/// A project with a suite (three of `examples/serve`) in `suite/`, and
/// the document `mcpcheck run --json` gives for it against `mcpcheck
/// serve`.
fn project(name: &str) -> (PathBuf, Value) {
    let dir = std::fs::canonicalize(scratch(name)).expect("canonical");
    std::fs::create_dir_all(dir.join("suite")).expect("mkdir");
    for file in ["add.yaml", "echo.yaml", "fail.yaml"] {
        std::fs::copy(
            repo().join("examples/serve").join(file),
            dir.join("suite").join(file),
        )
        .expect("copy an example");
    }
    let (code, out, err) = outcome(
        &mcpcheck()
            .current_dir(&dir)
            .args([
                "run",
                "--suite",
                "suite",
                "--server",
                &format!("{BIN} serve"),
            ])
            .arg("--json")
            .output()
            .expect("run"),
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    (dir, serde_json::from_str(&out).expect("JSON"))
}

/// `mcpcheck mcp --http` for `dir`, killed when dropped.
struct Http {
    child: Child,
    url: String,
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http(dir: &Path) -> Http {
    let mut child = mcpcheck()
        .args(["mcp", "--http", "127.0.0.1:0", "--allow", BIN])
        .arg("--root")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mcpcheck mcp --http");
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().expect("stderr"))
        .read_line(&mut line)
        .expect("the URL");
    let url = line
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    Http { child, url }
}

/// Runs a client script: what it got.
fn client(command: &mut Command) -> Value {
    let o = command.output().expect("start the client");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "the client failed ({}):\n{out}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `value` without its timings, which differ from run to run, and with
/// every number as a float (JavaScript writes the weight 1.0 as 1).
fn untimed(mut value: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("duration_ms");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            Value::Number(n) => *v = json!(n.as_f64()),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

/// The outputSchema of tool `name` in a listing.
fn output_schema<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == name)
        .map(|t| &t["outputSchema"])
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn assert_valid(schema: &Value, instance: &Value, what: &str) {
    let validator = jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("{what}: the outputSchema does not compile: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}\n{instance:#}");
}

/// What every client must have got.
fn assert_session(got: &Value, expected_run: &Value) {
    let sdk = got["sdk"].as_str().unwrap_or_default();
    let tools = &got["tools"];
    let names: Vec<&str> = tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "doctor",
            "run_suite",
            "check_response",
            "check_trajectory",
            "lint_listing",
            "scan_listing",
            "explain_rule",
            "generate_tests",
            "validate_suite"
        ],
        "{sdk}"
    );
    // doctor: the planted findings, as structured content that validates.
    let doctor = &got["doctor"];
    assert_eq!(doctor["is_error"], json!(false), "{sdk}: {doctor:#}");
    let report = &doctor["structured"];
    assert_valid(output_schema(tools, "doctor"), report, sdk);
    assert_eq!(report["command"], json!("doctor"));
    assert_eq!(
        report["passed"],
        json!(false),
        "{sdk}: the planted defects fail it"
    );
    let found = |code: &str, item: &str| {
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["code"] == code && f["item"] == item)
    };
    // buggy-tools plants a protocol error for a tool failure, non-JSON
    // output on stdout and a structuredContent that breaks its schema.
    assert!(found("A103", "internal_error"), "{sdk}: {report:#}");
    assert!(found("A104", "noisy"), "{sdk}: {report:#}");
    assert!(found("A106", "structured_wrong"), "{sdk}: {report:#}");
    // Progress came, part by part, before the answer.
    let steps = got["progress"].as_array().expect("progress");
    let messages: Vec<&str> = steps.iter().filter_map(|s| s["message"].as_str()).collect();
    assert_eq!(
        messages,
        ["listing", "lint", "scan", "audit", "conformance"],
        "{sdk}"
    );
    // run_suite: the document `mcpcheck run --json` prints.
    let run = &got["run_suite"];
    assert_eq!(run["is_error"], json!(false), "{sdk}: {run:#}");
    assert_valid(output_schema(tools, "run_suite"), &run["structured"], sdk);
    assert_eq!(
        untimed(run["structured"].clone()),
        untimed(expected_run.clone()),
        "{sdk}"
    );
    // Outside the allow list: a tool error that says what to do.
    let refused = got["refused"].as_array().expect("refused");
    assert_eq!(refused.len(), 2);
    for r in refused {
        assert_eq!(r["is_error"], json!(true), "{sdk}: {r:#}");
        assert_eq!(r["structured"], Value::Null, "{sdk}: {r:#}");
        let text = r["text"].as_str().unwrap_or_default();
        assert!(text.contains("is not allowed"), "{sdk}: {text}");
        assert!(text.contains("--allow"), "{sdk}: {text}");
    }
    assert!(
        refused[0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("`sh`"))
    );
    assert!(
        refused[1]["text"]
            .as_str()
            .is_some_and(|t| t.contains("--allow https://example.com"))
    );
}

#[test]
fn the_python_sdk_uses_it_over_stdio() {
    let Some(python) = python() else { return };
    let (dir, expected) = project("mcp-sdk-py-stdio");
    let got = client(Command::new(python).arg(clients().join("client.py")).args([
        BIN,
        dir.to_str().expect("path"),
        "stdio",
    ]));
    assert_session(&got, &expected);
}

#[test]
fn the_python_sdk_uses_it_over_http() {
    let Some(python) = python() else { return };
    let (dir, expected) = project("mcp-sdk-py-http");
    let server = http(&dir);
    let got = client(Command::new(python).arg(clients().join("client.py")).args([
        BIN,
        dir.to_str().expect("path"),
        &server.url,
    ]));
    assert_session(&got, &expected);
}

#[test]
fn the_typescript_sdk_uses_it_over_stdio() {
    let Some(sdk) = typescript_sdk() else { return };
    let (dir, expected) = project("mcp-sdk-ts-stdio");
    let got = client(
        Command::new("node")
            .arg(clients().join("client.mjs"))
            .arg(&sdk)
            .args([BIN, dir.to_str().expect("path"), "stdio"]),
    );
    assert_session(&got, &expected);
}

#[test]
fn the_typescript_sdk_uses_it_over_http() {
    let Some(sdk) = typescript_sdk() else { return };
    let (dir, expected) = project("mcp-sdk-ts-http");
    let server = http(&dir);
    let got = client(
        Command::new("node")
            .arg(clients().join("client.mjs"))
            .arg(&sdk)
            .args([BIN, dir.to_str().expect("path"), &server.url]),
    );
    assert_session(&got, &expected);
}
