//! `mcpcheck conformance` end to end: the probe against `mcpcheck serve`,
//! healthy and with each fault, reads the finding each fault must produce.

mod cli_support;

use cli_support::{BIN, http_serve, mcpcheck, request_methods, run_mcpcheck};

/// `mcpcheck conformance --server "mcpcheck serve ARGS" EXTRA`: (exit code, stdout, stderr).
fn conformance(server_args: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let server = format!("{BIN} serve {server_args}");
    run_mcpcheck(&[&["conformance", "--server", server.as_str()], extra].concat())
}

#[test]
fn a_healthy_server_passes_and_its_capture_is_kept() {
    let cap =
        std::env::temp_dir().join(format!("mcpcheck-conformance-{}.json", std::process::id()));
    let (code, out, err) = conformance("", &["--capture-out", cap.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    // Both eras, each with its own counts; nothing failed.
    assert!(out.contains("\n2025-11-25: "), "{out}");
    assert!(out.contains("\n2026-07-28: "), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    assert!(out.contains(" 0 failed, "), "{out}");
    let text = std::fs::read_to_string(&cap).unwrap();
    let c: serde_json::Value = serde_json::from_str(&text).unwrap();
    let methods = request_methods(&c);
    for m in [
        "initialize",
        "notifications/initialized",
        "ping",
        "tools/list",
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "mcpcheck/no-such-method",
        "tools/call",
    ] {
        assert!(methods.contains(&m), "the probe sends {m}: {methods:?}");
    }
    // The unknown method was answered with -32601, and no tool ran.
    let unknown = c["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["request"]["method"] == "mcpcheck/no-such-method")
        .unwrap();
    assert_eq!(unknown["response"]["error"]["code"], -32601);
    // The same capture, judged offline, passes too.
    let o = mcpcheck()
        .args(["invariants", "--capture"])
        .arg(&cap)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    // The 2026-07-28 session went to a file of its own, beside it.
    let modern = cap.with_file_name(format!(
        "mcpcheck-conformance-{}.2026-07-28.json",
        std::process::id()
    ));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&modern).unwrap()).unwrap();
    assert!(request_methods(&m).contains(&"server/discover"));
    let _ = std::fs::remove_file(&cap);
    let _ = std::fs::remove_file(&modern);
}

#[test]
fn each_fault_produces_its_finding() {
    let cases = [
        ("--fault garbage-stdout", "INV-021"),
        ("--fault wrong-id", "INV-009"),
        ("--fault string-error-code", "INV-006"),
        ("--fault result-and-error", "INV-010"),
        ("--fault tools-without-capability", "INV-003"),
        ("--fault crash-on-call", "INV-022"),
        ("--fault hang-on-call", "INV-022"),
        ("--fault hang-on-initialize", "INV-022"),
    ];
    for (args, id) in cases {
        // A short step only where the fault leaves a request unanswered (a
        // hang, an answer under another id): on a loaded machine a healthy
        // start-up can take a second or more.
        let step = if args.contains("hang") || args.contains("wrong-id") {
            "3s"
        } else {
            "20s"
        };
        let (code, out, err) = conformance(
            args,
            &[
                "--timeout",
                step,
                "--format",
                "json",
                "--protocol-version",
                "2025-11-25",
            ],
        );
        assert_eq!(code, Some(1), "{args}: {out}{err}");
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args}: {e}: {out}"));
        let ids: Vec<&str> = v["revisions"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["rule"].as_str())
            .collect();
        assert!(
            ids.contains(&id),
            "{args}: expected {id} in {ids:?}\n{out}\n{err}"
        );
        assert_eq!(v["passed"], false);
    }
}

#[test]
fn usage_errors_exit_2() {
    let o = mcpcheck().args(["conformance"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = mcpcheck()
        .args(["conformance", "--server", "'unclosed"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// A server that wants credentials answers initialize with HTTP 401: the
/// report names the 401 and its challenge, and blames no invariant (the
/// request was answered, by HTTP, not left unanswered).
#[test]
fn a_401_at_initialize_is_named_not_reported_as_an_unanswered_initialize() {
    let http = http_serve(&["--bearer", "s3cret"]);
    let (code, out, err) = run_mcpcheck(&["conformance", "--url", &http.url]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("HTTP 401 Unauthorized"), "{out}");
    assert!(out.contains("WWW-Authenticate: Bearer"), "{out}");
    assert!(
        out.contains("--header 'Authorization: Bearer TOKEN'"),
        "{out}"
    );
    assert!(!out.contains("INV-022 "), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    // The 2026-07-28 era is not probed after the refusal.
    assert!(!out.contains("2026-07-28:"), "{out}");
    // With the token, both eras are judged.
    let (code, out, err) = run_mcpcheck(&[
        "conformance",
        "--url",
        &http.url,
        "--header",
        "Authorization: Bearer s3cret",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("2026-07-28: "), "{out}");
}
