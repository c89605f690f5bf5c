//! `mcpcheck run` in 2026-07-28 against a server it did not write: the
//! official Python SDK (mcp 2.x), installed into `tests/py-servers/.venv` by
//! `scripts/setup` (pinned by its requirements.txt), over stdio and
//! Streamable HTTP.
//!
//! Without the venv these tests say so and stop, unless
//! `MCPCHECK_REQUIRE_PY_SERVERS=1` (set by the project's test script), which
//! makes its absence a failure.

mod cli_support;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{mcpcheck, scratch};
use serde_json::Value;

fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/py-servers")
}

/// The venv's Python, when the SDK is installed.
fn python() -> Option<PathBuf> {
    let python = servers_dir().join(".venv/bin/python");
    if python.exists() {
        return Some(python);
    }
    assert!(
        std::env::var("MCPCHECK_REQUIRE_PY_SERVERS").is_err(),
        "the Python SDK server is not installed: run scripts/setup"
    );
    eprintln!("tests/py-servers/.venv is missing (scripts/setup installs it); not run");
    None
}

/// Run the 2026-07-28 tests of tests/py-servers/suites with `server` (a
/// suite's `server:` block, in YAML) and check each test's verdict; returns
/// the results document.
fn run_suite(dir: &Path, server: &str) -> Value {
    let tests = std::fs::read_to_string(servers_dir().join("suites/pass_2026.yaml")).unwrap();
    let suite = dir.join("suite.yaml");
    std::fs::write(
        &suite,
        format!("server:\n{server}  protocol_version: \"2026-07-28\"\n{tests}"),
    )
    .unwrap();
    let capture = dir.join("captures");
    let o = mcpcheck()
        .args(["run", "--suite", suite.to_str().unwrap(), "--json"])
        .args(["--capture", capture.to_str().unwrap()])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let results: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{e}\n{out}\n{}", String::from_utf8_lossy(&o.stderr)));
    let verdicts: Vec<(&str, &str)> = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        vec![
            ("add adds", "pass"),
            ("greet greets", "pass"),
            ("the note reads", "pass"),
            ("the prompt renders", "pass"),
            ("a wrong answer is caught", "fail"),
        ],
        "{out}"
    );
    results
}

/// Every capture opened with server/discover and never sent initialize.
fn spoke_2026(capture: &Path) {
    let mut seen = 0;
    for entry in std::fs::read_dir(capture).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(text.contains("\"server/discover\""), "{text}");
        assert!(!text.contains("\"initialize\""), "{text}");
        seen += 1;
    }
    assert_eq!(seen, 5);
}

#[test]
fn the_python_sdk_server_over_stdio() {
    let Some(python) = python() else { return };
    let d = scratch("py-sdk-2026-stdio");
    let server = format!(
        "  command: {}\n  args: [{}]\n",
        python.display(),
        servers_dir().join("sdk2026_server.py").display()
    );
    run_suite(&d, &server);
    spoke_2026(&d.join("captures"));
}

/// The HTTP server, stopped when the test ends.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_python_sdk_server_over_streamable_http() {
    let Some(python) = python() else { return };
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _served = Served(
        Command::new(&python)
            .arg(servers_dir().join("sdk2026_server.py"))
            .args(["http", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the Python server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let d = scratch("py-sdk-2026-http");
    let server = format!("  transport: http\n  url: http://127.0.0.1:{port}/mcp\n");
    run_suite(&d, &server);
    spoke_2026(&d.join("captures"));
}
