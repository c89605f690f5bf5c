//! Answers too large to hold: a `tools/call` answer of tens of megabytes
//! made of small objects (each takes about 30 times its text as JSON
//! values). Under a 2 GB address-space cap the run ends with its report:
//! an answer that fits is checked, one that does not ends its test as
//! `error` with the reason, and the next test still runs.

mod cli_support;

use cli_support::{BIN, outcome, scratch, write};

/// A stdio server in Python whose `tools/call` answer is `MB` megabytes of
/// `{"type":"text","text":"x"}` blocks.
const SERVER: &str = r#"
import json, sys
size = float(sys.argv[1])
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    i = json.dumps(m["id"])
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "big", "version": "1"}}
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r})
    elif m["method"] == "tools/call":
        item = '{"type":"text","text":"x"}'
        k = int(size * 1024 * 1024 / (len(item) + 1))
        out = '{"jsonrpc":"2.0","id":%s,"result":{"content":[%s]}}' % (i, ",".join([item] * k))
    else:
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {}})
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
"#;

#[test]
fn an_answer_too_large_to_hold_ends_its_test_as_error_and_the_run_reports() {
    let d = scratch("large-answers");
    let server = write(&d, "server.py", SERVER);
    let test = |file: &str, mb: u32| {
        write(
            &d,
            &format!("suite/{file}"),
            &format!(
                "name: {file}\ntimeout: 120s\nserver:\n  command: python3\n  args: [{}, \"{mb}\"]\nassert:\n  tool: big\n  expect: {{not_error: true}}\n",
                server.display()
            ),
        );
    };
    test("a_41mb.yaml", 41);
    test("b_8mb.yaml", 8);
    write(
        &d,
        "suite/c_fine.yaml",
        &format!(
            "name: fine\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect: {{equals: hi}}\n"
        ),
    );
    let o = std::process::Command::new("prlimit")
        .args(["--as=2147483648", "--", BIN, "run", "--suite"])
        .arg(d.join("suite"))
        .args(["--json", "--jobs", "1"])
        .env("NO_COLOR", "1")
        .output()
        .expect("run prlimit");
    let (code, out, err) = outcome(&o);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("a results document");
    let status = |name: &str| {
        let t = v["tests"]
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["name"] == name))
            .unwrap_or_else(|| panic!("{name} in {v}"));
        (
            t["status"].as_str().unwrap_or_default().to_string(),
            t.to_string(),
        )
    };
    let (s, t) = status("a_41mb.yaml");
    assert_eq!(s, "error", "{t}");
    assert!(
        t.contains("more than the 512 MiB mcpcheck holds for one message"),
        "{t}"
    );
    assert_eq!(
        status("b_8mb.yaml").0,
        "pass",
        "an answer that fits is checked"
    );
    assert_eq!(status("fine").0, "pass", "the run went on");
}

/// A stdio server in Python whose `tools/call` answer holds a byte that is
/// not UTF-8 (0xFF) inside a string: JSON otherwise.
const NOT_UTF8: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "bytes", "version": "1"}}
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}).encode()
    elif m["method"] == "tools/list":
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": [
            {"name": "latin1", "inputSchema": {"type": "object"}}]}}).encode()
    elif m["method"] == "tools/call":
        out = b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"caf\xe9 \xff"}]}}' % m["id"]
    else:
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {}}).encode()
    sys.stdout.buffer.write(out + b"\n")
    sys.stdout.buffer.flush()
"#;

#[test]
fn bytes_that_are_not_utf8_are_a_protocol_error_not_a_healthy_answer() {
    let d = scratch("not-utf8");
    let server = write(&d, "server.py", NOT_UTF8);
    let suite = write(
        &d,
        "suite.yaml",
        &format!(
            "name: latin1\nserver:\n  command: python3\n  args: [{}]\nassert:\n  tool: latin1\n  expect: {{not_error: true}}\n",
            server.display()
        ),
    );
    let (code, out, err) =
        cli_support::run_mcpcheck(&["run", "--suite", suite.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("a results document");
    assert_eq!(v["tests"][0]["status"], "error", "{v}");
    let text = v.to_string();
    assert!(
        text.contains("is not UTF-8 text (an invalid byte at offset"),
        "{text}"
    );
    let command = format!("python3 {}", server.display());
    let (code, out, err) =
        cli_support::run_mcpcheck(&["audit", "--server", &command, "--format", "json"]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("an audit report");
    assert_eq!(
        report["results"][0]["status"], "non_json_output",
        "{report}"
    );
}
