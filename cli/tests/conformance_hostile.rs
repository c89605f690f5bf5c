//! `mcpcheck conformance` against small hostile servers: a raw JSON-RPC
//! server in Python (standard library only, `conformance_hostile/server.py`)
//! that is correct in mode `control` and in each other mode breaks exactly
//! one requirement or recommendation. Every violation is caught by its rule,
//! the control is clean on stdio and over HTTP, recommendations not met fail
//! only under `--strict`, a legacy-only server gets the same verdict on both
//! transports, and the client's own limits (its wait, its session budget) are
//! never blamed on the server.

mod cli_support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use cli_support::{run_mcpcheck, scratch};
use serde_json::Value;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance_hostile/server.py")
}

/// The hostile server in `mode` on stdio, as `--server` takes it.
fn stdio(mode: &str) -> String {
    format!("python3 {} {mode}", script().display())
}

/// The hostile server in `mode` over Streamable HTTP, killed when dropped.
struct Http {
    child: Child,
    url: String,
}

impl Http {
    fn start(mode: &str) -> Http {
        let mut child = Command::new("python3")
            .arg(script())
            .args([mode, "http"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        let mut port = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut port)
            .expect("the port");
        Http {
            child,
            url: format!("http://127.0.0.1:{}/mcp", port.trim()),
        }
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mcpcheck conformance TARGET --format json EXTRA`: (exit code, report).
/// Each step waits 5 s unless `extra` says otherwise (the `ack` mode's
/// acknowledgment never comes: its wait is one step).
fn conformance(target: &[&str], extra: &[&str]) -> (Option<i32>, Value) {
    let step: &[&str] = if extra.contains(&"--timeout") {
        &[]
    } else {
        &["--timeout", "5s"]
    };
    let (code, out, err) = run_mcpcheck(
        &[
            &["conformance", "--format", "json"][..],
            step,
            target,
            extra,
        ]
        .concat(),
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v)
}

/// The rules with findings of `level` in every revision, sorted, no repeats.
fn rules(v: &Value, level: &str) -> Vec<String> {
    let mut ids: Vec<String> = v["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["findings"].as_array().unwrap().iter())
        .filter(|f| f["level"] == level)
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

const MODERN: &[&str] = &["--protocol-version", "2026-07-28"];

#[test]
fn each_broken_requirement_is_caught_by_its_rule_and_the_control_is_clean() {
    // (mode, over HTTP, the failing rules). Where the official schema encodes
    // the same property the schema family (INV-031) reports it too; a server
    // that serves a version it does not list also negotiates an unknown
    // revision (INV-019).
    let cases: &[(&str, bool, &[&str])] = &[
        ("control", false, &[]),
        ("control", true, &[]),
        ("meta", false, &["INV-040"]),
        ("version", false, &["INV-019", "INV-041"]),
        ("header-version", true, &["INV-042"]),
        ("removed", false, &["INV-043"]),
        ("discover", false, &["INV-031", "INV-044"]),
        ("result-type", false, &["INV-031", "INV-045"]),
        ("ack", false, &["INV-046"]),
        ("routing", true, &["INV-047"]),
        ("param", true, &["INV-048"]),
        ("bad-annotation", false, &["INV-048"]),
        ("capability-data", false, &["INV-049"]),
        ("filter", false, &["INV-052"]),
        ("cache", false, &["INV-031", "INV-053"]),
        ("traceparent", false, &["INV-054"]),
        ("not-found-code", false, &["INV-056"]),
        // Without the tools capability, a tools/list without _meta is still
        // refused with -32602 (INV-040 first): INV-007 does not ask for
        // -32601 there.
        ("no-tools", false, &[]),
    ];
    for (mode, over_http, expected) in cases {
        let http = over_http.then(|| Http::start(mode));
        let server = stdio(mode);
        let target: Vec<&str> = match &http {
            Some(h) => vec!["--url", &h.url],
            None => vec!["--server", &server],
        };
        let (code, v) = conformance(&target, MODERN);
        assert_eq!(rules(&v, "error"), *expected, "{mode}: {v:#}");
        let want = if expected.is_empty() { 0 } else { 1 };
        assert_eq!(code, Some(want), "{mode}: {v:#}");
        assert!(
            v["revisions"][0]["failure"].is_null(),
            "{mode}: the probe finished: {v:#}"
        );
    }
}

#[test]
fn recommendations_not_met_fail_only_under_strict_and_notes_never() {
    for (mode, rule, level) in [
        ("server-info", "INV-050", "warning"),
        ("unstable-discover", "INV-051", "warning"),
        ("prompt-code", "INV-057", "warning"),
        ("logging", "INV-055", "note"),
    ] {
        let server = stdio(mode);
        let (code, v) = conformance(&["--server", &server], MODERN);
        assert_eq!(rules(&v, level), [rule], "{mode}: {v:#}");
        assert!(rules(&v, "error").is_empty(), "{mode}: {v:#}");
        assert_eq!(code, Some(0), "{mode}: a {level} alone passes: {v:#}");
        let verdict = v["revisions"][0]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == rule)
            .map(|r| r["verdict"].clone());
        let lane = if level == "warning" {
            "not-met"
        } else {
            "noted"
        };
        assert_eq!(verdict, Some(Value::from(lane)), "{mode}: {v:#}");
        let (code, _) = conformance(&["--server", &server], &[MODERN, &["--strict"]].concat());
        let want = if level == "warning" { 1 } else { 0 };
        assert_eq!(code, Some(want), "{mode} under --strict");
    }
    // The text says which lane: WARN, and the count of rules not met.
    let server = stdio("server-info");
    let (code, out, _) = run_mcpcheck(&[
        "conformance",
        "--server",
        &server,
        "--protocol-version",
        "2026-07-28",
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("  WARN INV-050 "), "{out}");
    assert!(
        out.contains("2026-07-28: 1 rule recommended, not met: INV-050 (SHOULD-level; they fail the run only with --strict)"),
        "{out}"
    );
    // JUnit: the recommendation is not a failure unless --strict.
    let (_, out, _) = run_mcpcheck(&[
        "conformance",
        "--server",
        &server,
        "--protocol-version",
        "2026-07-28",
        "--format",
        "junit",
    ]);
    assert!(out.contains("INV-050"), "{out}");
    assert!(out.contains("failures=\"0\""), "{out}");
    let (_, out, _) = run_mcpcheck(&[
        "conformance",
        "--server",
        &server,
        "--protocol-version",
        "2026-07-28",
        "--format",
        "junit",
        "--strict",
    ]);
    assert!(!out.contains("failures=\"0\""), "{out}");
}

#[test]
fn a_legacy_only_server_gets_the_same_verdict_and_exit_code_on_both_transports() {
    let server = stdio("legacy");
    let (stdio_code, on_stdio) = conformance(&["--server", &server], &[]);
    let http = Http::start("legacy");
    let (http_code, over_http) = conformance(&["--url", &http.url], &[]);
    assert_eq!(stdio_code, Some(0), "{on_stdio:#}");
    assert_eq!(http_code, stdio_code, "{over_http:#}");
    let verdicts = |v: &Value| {
        v["revisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["protocol_version"].clone(), r["rules"].clone()))
            .collect::<Vec<_>>()
    };
    // Judged in the handshake era only, rule for rule alike.
    assert_eq!(verdicts(&on_stdio).len(), 1, "{on_stdio:#}");
    assert_eq!(verdicts(&on_stdio), verdicts(&over_http));
    // Asked for 2026-07-28 alone, both say the era is not offered.
    for target in [
        vec!["--server", server.as_str()],
        vec!["--url", http.url.as_str()],
    ] {
        let (code, v) = conformance(&target, MODERN);
        assert_eq!(code, Some(1), "{v:#}");
        let failure = v["revisions"][0]["failure"].as_str().unwrap_or_default();
        assert!(
            failure.starts_with("the server does not offer 2026-07-28"),
            "{v:#}"
        );
        assert!(rules(&v, "error").is_empty(), "nothing blamed: {v:#}");
    }
}

#[test]
fn initialize_cannot_negotiate_2026_and_the_client_stays_in_its_era() {
    let server = stdio("legacy-modern-version");
    let dir = scratch("modern-version");
    let cap = dir.join("capture.json");
    let (code, v) = conformance(
        &["--server", &server],
        &[
            "--protocol-version",
            "2025-11-25",
            "--capture-out",
            cap.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(rules(&v, "error"), ["INV-019"], "{v:#}");
    // No request after the handshake carries 2026-07-28's `_meta`.
    let capture: Value = serde_json::from_str(&std::fs::read_to_string(&cap).unwrap()).unwrap();
    for x in capture["exchanges"].as_array().unwrap().iter().skip(1) {
        let meta = &x["request"]["params"]["_meta"];
        assert!(
            meta.get("io.modelcontextprotocol/protocolVersion")
                .is_none(),
            "{x:#}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The report's notes.
fn notes(v: &Value) -> Vec<String> {
    v["notes"]
        .as_array()
        .map(|n| {
            n.iter()
                .filter_map(|n| n["text"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn progress_renews_the_wait_and_a_call_still_at_work_is_not_blamed() {
    let legacy = ["--protocol-version", "2025-11-25"];
    // The tool works 3 s, sending progress every 200 ms: each progress
    // starts a new 1 s step, and the answer comes.
    let server = stdio("slow-progress");
    let (code, v) = conformance(
        &["--server", &server],
        &[&legacy[..], &["--timeout", "1s"]].concat(),
    );
    assert_eq!(code, Some(0), "{v:#}");
    assert!(
        v["revisions"][0]["gave_up"].as_array().unwrap().is_empty(),
        "{v:#}"
    );
    // Capped at 1.5 s, the client stops waiting: the call is cancelled and
    // reported as not verified, naming the flags, on stdio and over HTTP.
    let http = Http::start("slow-progress");
    for target in [
        vec!["--server", server.as_str()],
        vec!["--url", http.url.as_str()],
    ] {
        let dir = scratch("gave-up");
        let cap = dir.join("capture.json");
        let extra = [
            "--timeout",
            "1s",
            "--max-wait",
            "1500ms",
            "--capture-out",
            cap.to_str().unwrap(),
        ];
        let (code, v) = conformance(&target, &[&legacy[..], &extra].concat());
        assert_eq!(code, Some(0), "{v:#}");
        assert!(rules(&v, "error").is_empty(), "{v:#}");
        let note = notes(&v).join("\n");
        assert!(
            note.contains("INV-022 not verified for tools/call work") && note.contains("the client stopped waiting after 1.5 s while the server was still working on it (progress notifications were still arriving); --timeout raises the wait per step (progress starts a new step) and --max-wait the longest wait"),
            "{v:#}"
        );
        let capture: Value = serde_json::from_str(&std::fs::read_to_string(&cap).unwrap()).unwrap();
        let exchanges = capture["exchanges"].as_array().unwrap();
        let call = exchanges
            .iter()
            .find(|x| x["request"]["params"]["name"] == "work")
            .unwrap();
        assert!(call["client_gave_up"].is_string(), "{call:#}");
        let cancelled = exchanges
            .iter()
            .find(|x| x["request"]["method"] == "notifications/cancelled")
            .unwrap_or_else(|| panic!("a cancellation: {capture:#}"));
        assert_eq!(
            cancelled["request"]["params"]["requestId"],
            call["request"]["id"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    // A call with no sign of work is the server's: INV-022, not cancelled.
    let (code, v) = conformance(
        &["--server", &stdio("hang")],
        &[&legacy[..], &["--timeout", "1s"]].concat(),
    );
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(rules(&v, "error"), ["INV-022"], "{v:#}");
}

#[test]
fn the_session_budget_ending_the_session_is_the_clients_limit() {
    // The tool floods notifications past mcpcheck's 10,000 messages a
    // session: the session ends, and what was not answered is not blamed.
    let (code, v) = conformance(
        &["--server", &stdio("flood")],
        &["--protocol-version", "2025-11-25"],
    );
    assert!(rules(&v, "error").is_empty(), "{v:#}");
    assert_eq!(code, Some(0), "{v:#}");
    let note = notes(&v).join("\n");
    assert!(
        note.contains("INV-022 not verified for tools/call work")
            && note.contains("the client ended the session by a limit of its own: the server sent more than 10000 messages in one session"),
        "{v:#}"
    );
}
