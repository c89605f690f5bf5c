//! `mcpcheck load` against `mcpcheck serve`, over stdio and Streamable HTTP:
//! every answer checked, a server wrong only under concurrency caught, the
//! gates, the reports, the bounds and the refusal of remote targets.

mod cli_support;

use std::path::Path;

use cli_support::{BIN, http_serve, run_mcpcheck, scratch, write};
use serde_json::Value;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn class(doc: &Value, name: &str) -> u64 {
    doc["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .find(|c| c[0] == name)
        .and_then(|c| c[1].as_u64())
        .unwrap_or_else(|| panic!("no class {name} in {doc}"))
}

/// Three echo tests, each expecting its own message back.
fn echo_suite(dir: &Path) -> String {
    for m in ["alpha", "beta", "gamma"] {
        write(
            dir,
            &format!("s/{m}.yaml"),
            &format!(
                "name: echo {m}\nserver: {{command: unused}}\nassert:\n  tool: echo\n  args: {{message: {m}}}\n  expect: {{equals: {m}}}\n"
            ),
        );
    }
    // Left out: it needs a setup step.
    write(
        dir,
        "s/with_setup.yaml",
        "name: with setup\nserver: {command: unused}\nsetup:\n  - tool: echo\n    args: {message: x}\nassert:\n  tool: echo\n  args: {message: y}\n",
    );
    dir.join("s").to_str().unwrap().to_string()
}

#[test]
fn every_answer_is_checked_over_stdio_and_http() {
    let d = scratch("load-ok");
    let suite = echo_suite(&d);
    let server = format!("{BIN} serve");
    let md = d.join("load.md");
    let svg = d.join("load.svg");
    let (code, out, err) = run_mcpcheck(&[
        "load",
        "--server",
        &server,
        "--suite",
        &suite,
        "--requests",
        "45",
        "--concurrency",
        "3",
        "--json",
        "--markdown",
        md.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(err.contains("left out 1 test"), "{err}");
    let doc = json(&out);
    assert_eq!(
        (doc["requests"].as_u64(), doc["ok"].as_u64()),
        (Some(45), Some(45))
    );
    assert_eq!(doc["error_rate"], 0.0);
    assert_eq!(doc["setup"]["calls"].as_array().map(Vec::len), Some(3));
    let l = &doc["latency_ms"];
    for (a, b) in [
        ("min", "p50"),
        ("p50", "p95"),
        ("p95", "p99"),
        ("p99", "max"),
    ] {
        assert!(l[a].as_f64() <= l[b].as_f64(), "{a} <= {b}: {l}");
    }
    assert!(doc["throughput"].as_f64().unwrap() > 0.0);
    let bars: u64 = doc["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(bars, 45);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("| requests | right | error rate |"), "{md}");
    assert!(md.contains("| 45 | 45 | 0.00% |"), "{md}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(
        svg.trim_end().ends_with("</svg>") && svg.contains("p95"),
        "{svg}"
    );

    let http = http_serve(&[]);
    let (code, out, err) = run_mcpcheck(&[
        "load",
        "--url",
        &http.url,
        "--call",
        "add",
        "--args",
        r#"{"a": 2, "b": 3}"#,
        "--requests",
        "30",
        "-c",
        "4",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("30 requests to http://127.0.0.1:"), "{out}");
    assert!(out.contains("right answers: 30 of 30"), "{out}");
}

#[test]
fn a_server_wrong_only_under_concurrency_is_caught() {
    let d = scratch("load-racy");
    let suite = echo_suite(&d);
    let http = http_serve(&["--fault", "racy-echo"]);
    let load = |c: &str| {
        run_mcpcheck(&[
            "load",
            "--url",
            &http.url,
            "--suite",
            &suite,
            "--requests",
            "60",
            "-c",
            c,
            "--json",
        ])
    };
    // One caller at a time: every answer is right.
    let (code, out, err) = load("1");
    assert_eq!(code, Some(0), "{out}\n{err}");
    // Four at once: answers cross, and each wrong one is a failure.
    let (code, out, err) = load("4");
    assert_eq!(code, Some(1), "{out}\n{err}");
    let doc = json(&out);
    let wrong = class(&doc, "wrong_answer");
    assert!(wrong > 0, "{out}");
    assert_eq!(doc["ok"].as_u64().unwrap() + wrong, 60, "{out}");
    let first = &doc["failures"][0];
    assert_eq!(first["class"], "wrong_answer");
    assert_eq!(first["tool"], "echo");
    let sent = first["arguments"]["message"].as_str().unwrap();
    assert!(
        first["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("want '{sent}'")),
        "{first}"
    );
    assert!(err.contains("requests did not get a right answer"), "{err}");
}

#[test]
fn gates_decide_the_exit_code() {
    let d = scratch("load-gates");
    let server = format!("{BIN} serve");
    write(&d, "nope.yaml", "equals: nope\n");
    let expect = d.join("nope.yaml");
    let base = [
        "load",
        "--server",
        &server,
        "--call",
        "echo",
        "--args",
        r#"{"message": "hi"}"#,
        "--requests",
        "10",
        "-c",
        "2",
    ];
    let run = |extra: &[&str]| run_mcpcheck(&[&base[..], extra].concat());
    let (code, out, err) = run(&["--expect", expect.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(1), "{err}");
    let doc = json(&out);
    assert_eq!(class(&doc, "wrong_answer"), 10);
    assert_eq!(doc["error_rate"], 1.0);
    assert_eq!(
        doc["failures"][0]["arguments"],
        serde_json::json!({"message": "hi"})
    );
    let (code, _, err) = run(&[
        "--expect",
        expect.to_str().unwrap(),
        "--max-error-rate",
        "100",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = run(&["--max-p95", "0ms"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("above --max-p95 0 ms"), "{err}");
    let (code, _, err) = run(&["--max-p95", "30s"]);
    assert_eq!(code, Some(0), "{err}");
    // A server that does not start: every request is a connect error.
    let (code, out, _) = run_mcpcheck(&[
        "load",
        "--server",
        "/nonexistent/mcp-server",
        "--call",
        "echo",
        "--requests",
        "2",
        "--json",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(class(&json(&out), "connect"), 2);
}

#[test]
fn remote_targets_and_unbounded_runs_are_refused() {
    for url in [
        "http://example.com/mcp",
        "http://10.1.2.3:8080/mcp",
        "https://[2001:db8::1]/mcp",
    ] {
        let (code, _, err) = run_mcpcheck(&["load", "--url", url, "--call", "echo"]);
        assert_eq!(code, Some(2), "{url}: {err}");
        assert!(err.contains("--allow-remote"), "{url}: {err}");
    }
    let server = format!("{BIN} serve");
    for bad in [
        &["--requests", "0"][..],
        &["--requests", "100001"],
        &["--duration", "11m"],
        &["--concurrency", "0"],
        &["--concurrency", "257"],
        &["--rate", "0"],
        &["--rate", "fast"],
        &["--requests", "5", "--duration", "1s"],
        &["--args", "[1]"],
        &["--args", "{nope"],
        &["--transport", "sse"],
        &["--header", "A: b"],
    ] {
        let (code, _, err) =
            run_mcpcheck(&[&["load", "--server", &server, "--call", "echo"][..], bad].concat());
        assert_eq!(code, Some(2), "{bad:?}: {err}");
    }
    let (code, _, err) = run_mcpcheck(&["load", "--server", &server]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--call") || err.contains("--suite"), "{err}");
}

#[test]
fn statelessness_holds_for_serve_and_fails_with_per_session_state() {
    let d = scratch("load-stateless");
    let suite = echo_suite(&d);
    let (a, b) = (http_serve(&[]), http_serve(&[]));
    let both = format!("{},{}", a.url, b.url);
    let md = d.join("stateless.md");
    let (code, out, err) = run_mcpcheck(&[
        "load",
        "--instances",
        &both,
        "--suite",
        &suite,
        "--requests",
        "12",
        "--markdown",
        md.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("12 requests over 3"), "{out}");
    assert!(out.contains("every answer the same (stateless)"), "{out}");
    assert!(
        std::fs::read_to_string(&md)
            .unwrap()
            .contains("| 12 | 12 | 0 | 0 |")
    );

    let (x, y) = (
        http_serve(&["--fault", "session-state"]),
        http_serve(&["--fault", "session-state"]),
    );
    let both = format!("{},{}", x.url, y.url);
    let (code, out, err) = run_mcpcheck(&[
        "load",
        "--instances",
        &both,
        "--call",
        "echo",
        "--args",
        r#"{"message": "hi"}"#,
        "--requests",
        "4",
        "--json",
    ]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let doc = json(&out);
    assert_eq!(
        (doc["equal"].as_u64(), doc["differ"].as_u64()),
        (Some(1), Some(3)),
        "{out}"
    );
    let first = &doc["differences"][0];
    assert_eq!(first["request"], 1);
    assert_eq!(first["instance"], y.url.as_str());
    assert_eq!(first["single"]["result"]["content"][0]["text"], "hi #2");
    assert_eq!(first["spread"]["result"]["content"][0]["text"], "hi #1");

    // One URL proves nothing; a remote one is refused; load flags do not apply.
    for bad in [
        vec!["--instances", a.url.as_str()],
        vec![
            "--instances",
            "http://127.0.0.1:1/mcp,http://example.com/mcp",
        ],
        vec!["--instances", both.as_str(), "-c", "2"],
    ] {
        let (code, _, err) = run_mcpcheck(&[&["load", "--call", "echo"][..], &bad[..]].concat());
        assert_eq!(code, Some(2), "{bad:?}: {err}");
    }
}
