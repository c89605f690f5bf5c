//! `mcpcheck serve` over stdio: every tool, prompt and resource through an
//! rmcp client, protocol negotiation, the audit log, pagination, and the
//! process lifecycle, each against the built binary.

mod serve_support;

use serde_json::{Value, json};
use serve_support::{RawStdio, connect_stdio, exercise_everything, temp_path, tool_call, within};

#[tokio::test]
async fn every_tool_prompt_and_resource_over_stdio() {
    let mut connection = connect_stdio(&[]).await;
    exercise_everything(&mut connection, "anonymous").await;
}

#[tokio::test]
async fn initialize_reports_server_info_capabilities_and_instructions() {
    let mut server = RawStdio::start(&[]);
    let response = server.initialize("2025-06-18").await;
    let result = &response["result"];
    assert_eq!(result["serverInfo"]["name"], "mcpcheck-serve");
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    assert_eq!(
        result["capabilities"],
        json!({
            "logging": {},
            "completions": {},
            "prompts": {},
            "resources": {"subscribe": true, "listChanged": true},
            "tools": {"listChanged": true},
            "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}}
        })
    );
}

#[tokio::test]
async fn negotiates_each_supported_revision() {
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut server = RawStdio::start(&[]);
        let response = server.initialize(revision).await;
        assert_eq!(response["result"]["protocolVersion"], revision);
        // The session works after the handshake.
        server
            .send(&tool_call(2, "echo", json!({"message": revision})))
            .await;
        let answer = server.message().await;
        assert_eq!(answer["result"]["content"][0]["text"], revision);
    }
    // Revisions it does not serve are answered with the newest it does.
    for revision in ["2026-07-28", "1999-01-01"] {
        let mut server = RawStdio::start(&[]);
        let response = server.initialize(revision).await;
        assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
    }
}

#[tokio::test]
async fn unsubscribing_stops_the_updates() {
    let mut server = RawStdio::start(&[]);
    server.initialize("2025-06-18").await;
    let subscribe = |id: u64, method: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": method,
               "params": {"uri": "mcpcheck://calls"}})
    };
    server.send(&subscribe(2, "resources/subscribe")).await;
    assert_eq!(server.message().await["id"], 2);
    // On stdio the update is written before the call's response.
    server
        .send(&tool_call(3, "echo", json!({"message": "a"})))
        .await;
    let update = server.message().await;
    assert_eq!(update["method"], "notifications/resources/updated");
    assert_eq!(update["params"]["uri"], "mcpcheck://calls");
    assert_eq!(server.message().await["id"], 3);

    server.send(&subscribe(4, "resources/unsubscribe")).await;
    assert_eq!(server.message().await["id"], 4);
    server
        .send(&tool_call(5, "echo", json!({"message": "b"})))
        .await;
    assert_eq!(
        server.message().await["id"],
        5,
        "no update after unsubscribe"
    );
}

#[tokio::test]
async fn audit_log_has_one_redacted_line_per_call() {
    let path = temp_path("audit-stdio.jsonl");
    let path_arg = path.to_str().expect("UTF-8 temp path");
    let mut server = RawStdio::start(&["--audit-log", path_arg]);
    server.initialize("2025-06-18").await;
    server
        .send(&tool_call(2, "echo", json!({"message": "hi"})))
        .await;
    server.message().await;
    server.send(&tool_call(3, "fail", json!({}))).await;
    server.message().await;
    // Unknown arguments make a tool error, which is logged like any call.
    server
        .send(&tool_call(
            4,
            "echo",
            json!({"message": "x", "password": "hunter2", "nested": {"apiKey": "k"}}),
        ))
        .await;
    server.message().await;

    let log = std::fs::read_to_string(&path).expect("the audit log exists");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 3);
    let mut keys: Vec<&str> = lines[0]
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let mut expected = [
        "time",
        "tool",
        "args",
        "identity",
        "duration_ms",
        "response_bytes",
        "is_error",
    ];
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert_eq!(lines[0]["tool"], "echo");
    assert_eq!(lines[0]["args"], json!({"message": "hi"}));
    assert_eq!(lines[0]["identity"], "anonymous");
    assert_eq!(lines[0]["is_error"], false);
    assert!(lines[0]["duration_ms"].is_u64());
    assert!(lines[0]["response_bytes"].as_u64().is_some_and(|n| n > 0));
    let time = lines[0]["time"].as_str().expect("a string");
    assert!(chrono::DateTime::parse_from_rfc3339(time).is_ok(), "{time}");
    assert!(time.ends_with('Z'));
    assert_eq!(lines[1]["tool"], "fail");
    assert_eq!(lines[1]["is_error"], true);
    assert_eq!(
        lines[2]["args"],
        json!({"message": "x", "password": "***", "nested": {"apiKey": "***"}})
    );
    assert!(!log.contains("hunter2"));
    let _ = std::fs::remove_file(&path);
}

#[tokio::test]
async fn page_size_splits_lists_into_pages() {
    let mut server = RawStdio::start(&["--page-size", "4"]);
    server.initialize("2025-06-18").await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        server
            .send(&json!({"jsonrpc": "2.0", "id": 10 + pages, "method": "tools/list", "params": params}))
            .await;
        let result = server.message().await["result"].clone();
        let tools = result["tools"].as_array().expect("tools");
        assert!(tools.len() <= 4);
        names.extend(
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap_or_default().to_owned()),
        );
        pages += 1;
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    // 30 tools (15 of serve's own, 14 conformance fixtures, the dashboard)
    // in pages of 4.
    assert_eq!(pages, 8);
    assert_eq!(names, serve_support::TOOL_NAMES);

    server
        .send(&json!({"jsonrpc": "2.0", "id": 50, "method": "tools/list", "params": {"cursor": "junk"}}))
        .await;
    assert_eq!(server.message().await["error"]["code"], -32602);
}

#[tokio::test]
async fn exits_cleanly_when_stdin_closes() {
    let mut server = RawStdio::start(&[]);
    server.initialize("2025-06-18").await;
    server.close_stdin();
    assert_eq!(server.line().await, None);
    let status = within("the server exits", server.child.wait())
        .await
        .expect("wait");
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn unknown_methods_and_bad_requests_get_errors() {
    let mut server = RawStdio::start(&[]);
    server.initialize("2025-06-18").await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}))
        .await;
    assert_eq!(server.message().await["error"]["code"], -32601);
    server
        .send(&json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "nope"}}))
        .await;
    assert_eq!(server.message().await["error"]["code"], -32602);
    server
        .send(&json!({"jsonrpc": "2.0", "id": 4, "method": "resources/subscribe", "params": {"uri": "mcpcheck://nope"}}))
        .await;
    assert_eq!(server.message().await["error"]["code"], -32002);
}

#[test]
fn transport_options_are_checked_before_serving() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
            .arg("serve")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run mcpcheck")
    };
    // Credentials only make sense on HTTP.
    let output = run(&["--api-key", "k"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["--http", "127.0.0.1:0", "--path", "/sse"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("legacy SSE"));
    let output = run(&["--fault", "no-such-fault"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["--audit-log", "/nonexistent-dir/x/audit.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    // With stdin closed at once, the server starts and ends cleanly.
    assert!(run(&[]).status.success());
}

#[test]
fn help_describes_every_fault() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
        .args(["serve", "--help"])
        .output()
        .expect("run mcpcheck");
    let help = String::from_utf8_lossy(&output.stdout);
    for (fault, trigger) in [
        ("crash-on-call", "Any tools/call"),
        ("hang-on-initialize", "initialize"),
        ("hang-on-call", "Every tools/call"),
        ("garbage-stdout", "Every tools/call"),
        ("wrong-id", "Every tools/call"),
        ("string-error-code", "Every JSON-RPC error response"),
        ("result-and-error", "Every tools/call"),
        ("tools-without-capability", "initialize"),
        ("huge-response", "Every tools/call"),
        ("slow-start", "Start"),
    ] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("- {fault}:")))
            .unwrap_or_else(|| panic!("--help does not list {fault}"));
        assert!(line.contains(trigger), "{fault}: {line}");
    }
}
