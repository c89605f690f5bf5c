//! The scan's text rules on what servers answer (O codes): a server whose
//! tool answers carry a planted injection (`serve --fault injected-answers`)
//! is flagged by `audit`, `doctor`, `run` and `intercept`, and `--ignore
//! output` / `--no-output-scan` turn it off; the reference servers
//! (`server-everything`, `server-filesystem`, when installed) give no O
//! finding.

mod cli_support;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use cli_support::{BIN, mcpcheck, run_mcpcheck, run_suite, scratch};
use serde_json::Value;

fn injected() -> String {
    format!("{BIN} serve --fault injected-answers")
}

fn output_codes(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["family"] == "output")
        .map(|f| f["code"].as_str().expect("code").to_string())
        .collect()
}

#[test]
fn audit_and_doctor_flag_a_planted_injection_in_an_answer() {
    let (code, out, err) = run_mcpcheck(&["audit", "--server", &injected(), "--format", "json"]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    let codes = output_codes(&report);
    for want in ["O301", "O302", "O502", "O503", "O506"] {
        assert!(codes.iter().any(|c| c == want), "{want}: {codes:?}");
    }
    let echo = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["code"] == "O302")
        .expect("O302");
    assert_eq!(echo["item"], "echo");
    assert_eq!(echo["field"], "/content/0/text");
    // Turned off by family.
    let (_, out, _) = run_mcpcheck(&[
        "audit",
        "--server",
        &injected(),
        "--format",
        "json",
        "--ignore",
        "output",
    ]);
    let report: Value = serde_json::from_str(&out).expect("json");
    assert!(output_codes(&report).is_empty(), "{report}");
    // The plain server answers nothing of the kind.
    let plain = format!("{BIN} serve");
    let (_, out, _) = run_mcpcheck(&["audit", "--server", &plain, "--format", "json"]);
    let report: Value = serde_json::from_str(&out).expect("json");
    assert!(output_codes(&report).is_empty(), "{report}");
    let (code, out, err) = run_mcpcheck(&[
        "doctor",
        "--server",
        &injected(),
        "--format",
        "json",
        "--part-timeout",
        "60s",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    assert!(
        output_codes(&report).iter().any(|c| c == "O301"),
        "{report}"
    );
}

#[test]
fn run_warns_of_an_injected_answer_unless_told_not_to() {
    let dir = scratch("output-run");
    let yaml = format!(
        "name: echo\nserver:\n  command: {BIN}\n  args: [serve, --fault, injected-answers]\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    contains: [hi]\n"
    );
    let (code, out, err) = run_suite(&dir, "echo.yaml", &yaml, &["--json"]);
    assert_eq!(code, Some(0), "warnings never fail a test: {out}{err}");
    let results: Value = serde_json::from_str(&out).expect("json");
    let warnings = results["tests"][0]["warnings"].to_string();
    assert!(warnings.contains("O301 tool echo"), "{warnings}");
    assert!(warnings.contains("O502"), "{warnings}");
    let (_, out, _) = run_suite(&dir, "echo.yaml", &yaml, &["--json", "--no-output-scan"]);
    let results: Value = serde_json::from_str(&out).expect("json");
    assert!(results["tests"][0].get("warnings").is_none(), "{results}");
}

#[test]
fn intercept_reports_what_the_server_answered() {
    let dir = scratch("output-intercept");
    let capture = dir.join("c.json");
    let mut child = mcpcheck()
        .args(["intercept", "--format", "json", "--capture"])
        .arg(&capture)
        .args(["--", BIN, "serve", "--fault", "injected-answers"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    {
        let stdin = child.stdin.as_mut().expect("stdin");
        for line in [
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}"#,
        ] {
            writeln!(stdin, "{line}").expect("write");
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(child.stdin.take());
    let output = child.wait_with_output().expect("ends");
    let report: Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stderr).trim()).expect("json");
    assert_eq!(output.status.code(), Some(1), "{report}");
    let codes: Vec<&str> = report["output"]
        .as_array()
        .expect("output")
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(
        codes.contains(&"O301") && codes.contains(&"O502"),
        "{report}"
    );
    assert!(report["output"][0]["exchange"].is_u64(), "{report}");
}

/// The reference servers answer nothing the rules flag.
#[test]
fn benign_reference_servers_give_no_output_finding() {
    let servers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/node-servers");
    let modules = servers.join("node_modules/@modelcontextprotocol");
    if !modules.join("server-everything").is_dir() {
        eprintln!("node servers not installed (npm ci --prefix tests/node-servers); not run");
        return;
    }
    let everything = format!(
        "node {}",
        modules.join("server-everything/dist/index.js").display()
    );
    let filesystem = format!(
        "node {} {}",
        modules.join("server-filesystem/dist/index.js").display(),
        servers.join("fixture").display()
    );
    for server in [everything, filesystem] {
        let (_, out, err) = run_mcpcheck(&["audit", "--server", &server, "--format", "json"]);
        let report: Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
        assert!(output_codes(&report).is_empty(), "{server}: {report}");
    }
    // The reference suites, run with the output scan on.
    for (suite, fixture) in [("everything", None), ("filesystem", Some("fixture"))] {
        let mut args = vec!["run", "--suite", suite, "--json"];
        if let Some(f) = fixture {
            args.extend(["--fixture", f]);
        }
        let out = mcpcheck()
            .current_dir(&servers)
            .args(&args)
            .output()
            .expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        let results: Value = serde_json::from_str(&text).expect("json");
        for t in results["tests"].as_array().expect("tests") {
            let warnings = t["warnings"].to_string();
            assert!(
                !warnings.contains("; --no-output-scan turns this off"),
                "{suite}: {warnings}"
            );
        }
    }
}
