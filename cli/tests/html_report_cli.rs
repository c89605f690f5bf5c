//! The HTML report end to end: `run --html` (each test's session, secrets
//! hidden), `--report html=DIR`, the analyses' reports (`audit`, `fuzz`,
//! `doctor`), `show-report`, and `audit` on a server whose answer reads as
//! an error while `isError` is false. The page itself is driven in a
//! browser by `web/e2e/report.test.mjs`.

mod cli_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Stdio;

use cli_support::{BIN, mcpcheck, outcome, scratch, write};
use serde_json::Value;

/// A stdio server whose one tool answers `Error: Only SELECT queries are
/// allowed` without `isError`, as some database servers do; it writes the
/// value of `API_TOKEN` on stderr, counts its queries there (in memory, so
/// each test on a reused session has lines of its own) and says goodbye
/// when its stdin closes.
const SQL_SERVER: &str = r#"
import json, os, sys
queries = 0
print("starting with token " + os.environ.get("API_TOKEN", ""), file=sys.stderr, flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "sql", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "query", "description": "Run a read-only SQL query.",
                        "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"}},
                                        "required": ["sql"]},
                        "annotations": {"readOnlyHint": True}}]}
    elif m["method"] == "tools/call":
        queries += 1
        print("query %d" % queries, file=sys.stderr, flush=True)
        r = {"content": [{"type": "text", "text": "Error: Only SELECT queries are allowed\nUse SELECT."}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
print("stdin closed, bye", file=sys.stderr, flush=True)
"#;

/// The data of the report in `dir` (its `data/index.js`).
fn index(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("data/index.js")).expect("data/index.js");
    let json = text
        .strip_prefix("globalThis.mcpcheckReportData = ")
        .and_then(|t| t.strip_suffix(";\n"))
        .expect("the index script");
    serde_json::from_str(json).expect("the index data")
}

/// Test `id`'s session data in the report in `dir`.
fn session(dir: &Path, id: usize) -> Value {
    let text = std::fs::read_to_string(dir.join(format!("data/sessions/{id}.js")))
        .expect("a session file");
    let json = text
        .strip_prefix(&format!("mcpcheckSession({id}, "))
        .and_then(|t| t.strip_suffix(");\n"))
        .expect("the session script");
    serde_json::from_str(json).expect("the session data")
}

fn page_files(dir: &Path) {
    for f in [
        "index.html",
        "report.js",
        "report.css",
        "shared/dom.js",
        "shared/pointer.js",
        "shared/timeline.js",
        "data/index.js",
    ] {
        assert!(dir.join(f).is_file(), "{f} in {}", dir.display());
    }
}

#[test]
fn a_runs_report_has_every_test_and_each_recorded_session_with_secrets_hidden() {
    let d = scratch("html-run");
    let server = write(&d, "sql.py", SQL_SERVER);
    let suite = write(
        &d,
        "suite.yaml",
        &format!(
            r#"name: html
servers:
  ref: {{command: {BIN}, args: [serve]}}
  sql:
    command: python3
    args: ["{}"]
    env: {{API_TOKEN: sk-live-0123456789abcdef}}
tests:
  - name: echo passes
    server: ref
    tags: [smoke]
    tool: echo
    args: {{message: hello}}
    expect: [{{target: text, matcher: {{equals: hello}}}}]
  - name: structure differs
    server: ref
    tool: echo
    args: {{message: hello}}
    expect: [{{target: result, matcher: {{exact: {{content: [{{type: text, text: bye}}]}}}}}}]
  - name: query answers
    server: sql
    tool: query
    args: {{sql: "DELETE FROM t"}}
    expect: [{{target: text, matcher: {{contains: rows}}}}]
  - name: skipped
    server: ref
    skip: later
    tool: echo
"#,
            server.display()
        ),
    );
    let html = d.join("report");
    let other = d.join("other");
    let o = mcpcheck()
        .args(["run", "--suite", suite.to_str().unwrap(), "--html"])
        .arg(&html)
        .arg("--report")
        .arg(format!("html={}", other.display()))
        .args(["--json", "-q"])
        .current_dir(&d)
        .output()
        .unwrap();
    let (code, out, err) = outcome(&o);
    assert_eq!(code, Some(1), "{out}\n{err}");
    serde_json::from_str::<Value>(&out).expect("stdout is still the results document");
    page_files(&html);
    page_files(&other);
    let data = index(&html);
    assert_eq!(data["kind"], "run");
    let rows: Vec<(&str, &str)> = data["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            ("echo passes", "pass"),
            ("structure differs", "fail"),
            ("query answers", "fail"),
            ("skipped", "skip")
        ]
    );
    assert_eq!(data["tests"][0]["tags"], serde_json::json!(["smoke"]));
    assert_eq!(data["tests"][0]["server"], format!("{BIN} serve"));
    // The structured check has its diff; the skipped test no session.
    let check = &data["tests"][1]["checks"][0];
    assert_eq!(check["diff"][0]["path"], "$.content[0].text", "{check}");
    assert_eq!(data["tests"][1]["session"], "data/sessions/1.js");
    assert_eq!(data["tests"][3]["session"], Value::Null);
    assert!(!html.join("data/sessions/3.js").exists());
    // A failing test's session: the exchange its check looked at, and where.
    let s = session(&html, 1);
    let x = s["focus"]["exchange"].as_u64().unwrap() as usize;
    assert_eq!(s["timeline"][0]["exchanges"][x]["method"], "tools/call");
    assert_eq!(s["focus"]["checks"][0]["pointer"], "/result");
    // The server's stderr is there, its secret hidden, in every file, up
    // to what it said as it shut down.
    let s = session(&html, 2);
    assert_eq!(
        s["stderr"], "starting with token ***\nquery 1\nstdin closed, bye",
        "{s}"
    );
    for dir in [&html, &other] {
        for f in ["data/index.js", "data/sessions/2.js"] {
            let text = std::fs::read_to_string(dir.join(f)).unwrap();
            assert!(!text.contains("sk-live-0123456789abcdef"), "{f}");
        }
    }
    // The page allows its own files and no connection.
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(
        page.contains("connect-src 'none'") && page.contains("script-src 'self'"),
        "{page}"
    );
    // `report --from` renders a saved run's page too (without sessions).
    let saved = write(&d, "results.json", &out);
    let again = d.join("again");
    let (code, out, err) = cli_support::run_mcpcheck(&[
        "report",
        "--from",
        saved.to_str().unwrap(),
        "--html",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(index(&again)["tests"][1]["outcome"], "fail");
    assert_eq!(index(&again)["tests"][1]["session"], Value::Null);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn each_test_on_a_reused_session_shows_the_stderr_of_its_own_time() {
    let d = scratch("html-stderr-reuse");
    let server = write(&d, "sql.py", SQL_SERVER);
    let suite = write(
        &d,
        "suite.yaml",
        &format!(
            r#"name: reuse stderr
server: {{command: python3, args: ["{}"]}}
tests:
  - {{name: first, tool: query, args: {{sql: "SELECT 1"}}, expect: [{{target: text, matcher: {{contains: SELECT}}}}]}}
  - {{name: second, tool: query, args: {{sql: "SELECT 2"}}, expect: [{{target: text, matcher: {{contains: SELECT}}}}]}}
"#,
            server.display()
        ),
    );
    let html = d.join("report");
    let o = mcpcheck()
        .args([
            "run",
            "--suite",
            suite.to_str().unwrap(),
            "--jobs",
            "1",
            "--html",
        ])
        .arg(&html)
        .arg("-q")
        .current_dir(&d)
        .output()
        .unwrap();
    let (code, out, err) = outcome(&o);
    assert_eq!(code, Some(0), "{out}\n{err}");
    // One server for both: the first test has the start-up and its query,
    // the second its own query; the server's goodbye comes after the run's
    // last test and belongs to no test's log.
    assert_eq!(session(&html, 0)["stderr"], "starting with token \nquery 1");
    assert_eq!(session(&html, 1)["stderr"], "query 2");
}

#[test]
fn audit_flags_error_text_in_a_success_and_its_report_groups_findings_by_item() {
    let d = scratch("html-audit");
    let server = write(&d, "sql.py", SQL_SERVER);
    let command = format!("python3 {}", server.display());
    let html = d.join("audit");
    let (code, out, err) = cli_support::run_mcpcheck(&[
        "audit",
        "--server",
        &command,
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "a warning does not fail: {out}\n{err}");
    // The text shows the answer's first line and the rule.
    assert!(
        out.contains("Error: Only SELECT queries are allowed"),
        "{out}"
    );
    assert!(out.contains("A302"), "{out}");
    assert!(!out.contains("Use SELECT."), "only the first line: {out}");
    // The progress said the call, on stderr.
    assert!(
        err.contains(
            "mcpcheck audit: [1/1] tool query: healthy · Error: Only SELECT queries are allowed"
        ),
        "{err}"
    );
    page_files(&html);
    let data = index(&html);
    assert_eq!(data["kind"], "findings");
    assert_eq!(data["command"], "audit");
    let group = &data["groups"][0];
    assert_eq!(group["name"], "tool query");
    let f = &data["findings"][group["findings"][0].as_u64().unwrap() as usize];
    assert_eq!(f["code"], "A302");
    assert_eq!(data["rules"]["A302"]["title"], "Error text in a success");
    assert!(
        data["rules"]["A302"]["fix"]
            .as_str()
            .unwrap()
            .contains("isError: true")
    );
    assert_eq!(data["cases"][0]["name"], "query");
    // JSON says it too.
    let (_, out, _) =
        cli_support::run_mcpcheck(&["audit", "--server", &command, "--format", "json", "-q"]);
    let doc: Value = serde_json::from_str(&out).expect("an audit document");
    assert_eq!(doc["findings"][0]["code"], "A302", "{doc}");
    assert_eq!(
        doc["results"][0]["answer"],
        "Error: Only SELECT queries are allowed"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn fuzz_and_doctor_write_their_reports_and_say_their_progress() {
    let d = scratch("html-analyses");
    let server = format!("{BIN} serve");
    let fuzz = d.join("fuzz");
    let (code, out, err) = cli_support::run_mcpcheck(&[
        "fuzz",
        "--server",
        &server,
        "--tool",
        "echo",
        "--runs",
        "3",
        "--report",
        &format!("html={}", fuzz.display()),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("mcpcheck fuzz: [1/1] echo: 3/3 inputs handled ("),
        "{err}"
    );
    assert_eq!(index(&fuzz)["command"], "fuzz");
    let doctor = d.join("doctor");
    let (_, out, err) = cli_support::run_mcpcheck(&[
        "doctor",
        "--server",
        &server,
        "--html",
        doctor.to_str().unwrap(),
        "--format",
        "json",
    ]);
    serde_json::from_str::<Value>(&out).expect("stdout is the doctor document");
    for part in ["listing", "lint", "scan", "audit", "conformance"] {
        assert!(err.contains(&format!("] {part}: ")), "{part}: {err}");
    }
    let data = index(&doctor);
    let parts: Vec<&str> = data["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(parts, ["lint", "scan", "audit", "conformance"]);
    let (_, _, quiet) = cli_support::run_mcpcheck(&["doctor", "--server", &server, "-q"]);
    assert!(!quiet.contains("mcpcheck doctor: ["), "{quiet}");
    let _ = std::fs::remove_dir_all(&d);
}

/// GET `path` from 127.0.0.1:`port` with `host`: (status, headers, body).
fn get(port: u16, path: &str, host: &str) -> (u16, String, String) {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[test]
fn show_report_serves_the_reports_files_on_loopback_only() {
    let d = scratch("show-report");
    let (code, _, err) = cli_support::run_mcpcheck(&["show-report", d.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is not an HTML report"), "{err}");
    let suite = write(
        &d,
        "s.yaml",
        &format!(
            "name: t\nserver: {{command: {BIN}, args: [serve]}}\nassert: {{tool: echo, args: {{message: hi}}}}\n"
        ),
    );
    let html = d.join("report");
    let o = mcpcheck()
        .args(["run", "--suite", suite.to_str().unwrap(), "--html"])
        .arg(&html)
        .current_dir(&d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let mut child = mcpcheck()
        .args(["show-report"])
        .arg(&html)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().to_string();
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|_| panic!("a URL on 127.0.0.1: {url:?}"));
    let host = format!("127.0.0.1:{port}");
    let (status, head, body) = get(port, "/", &host);
    assert_eq!(status, 200);
    assert!(
        head.contains("content-security-policy: default-src 'none'"),
        "{head}"
    );
    assert!(body.contains("<title>mcpcheck report</title>"), "{body}");
    let (status, head, body) = get(port, "/data/index.js", &format!("localhost:{port}"));
    assert_eq!(status, 200, "{head}");
    assert!(head.contains("content-type: text/javascript"), "{head}");
    assert!(body.starts_with("globalThis.mcpcheckReportData = "));
    assert_eq!(
        get(port, "/", "evil.example:80").0,
        403,
        "another Host is refused"
    );
    assert_eq!(get(port, "/../s.yaml", &host).0, 404);
    assert_eq!(get(port, "/%2e%2e/s.yaml", &host).0, 404);
    assert_eq!(get(port, "/data/", &host).0, 404, "no listing");
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&d);
}
