//! The schema family gives no false positives on the official examples.
//!
//! The MCP specification's example messages for 2026-07-28 (vendored in
//! `tests/data/mcp-examples/`) are assembled into one capture: every client request
//! as an exchange, answered by its `…ResultResponse` example where there is one, or by
//! its bare `…Result` examples wrapped in a response; every notification in an
//! exchange's notification list (client notifications as exchanges of their own);
//! every error example as the error response of a request; every
//! `InputRequiredResult` as the answer to a tools/call. The schema family must accept
//! all of it, and must reject a broken copy of one of them (so the test can fail).

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use mcpcheck_core::invariants;
use serde_json::{Value, json};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp-examples/2026-07-28")
}

/// Every example of one type, in file-name order.
fn examples(kind: &str) -> Vec<Value> {
    let dir = examples_dir().join(kind);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            serde_json::from_str(&std::fs::read_to_string(f).expect("readable"))
                .expect("example is JSON")
        })
        .collect()
}

fn kinds() -> Vec<String> {
    let mut kinds: Vec<String> = std::fs::read_dir(examples_dir())
        .expect("examples exist")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    kinds.sort();
    kinds
}

/// The capture of every example, and how many messages it holds.
fn assemble() -> (Value, usize) {
    let mut exchanges = Vec::new();
    let mut messages = 0;
    let mut next_id = 0;
    let mut fresh_id = || {
        next_id += 1;
        json!(format!("example-{next_id}"))
    };
    let mut server_notifications = Vec::new();
    for kind in kinds() {
        for example in examples(&kind) {
            let is_message = example.get("jsonrpc").is_some();
            if kind.ends_with("Request") && is_message {
                let mut replies: Vec<Value> = examples(&kind.replace("Request", "ResultResponse"));
                replies.extend(
                    examples(&kind.replace("Request", "Result"))
                        .into_iter()
                        .map(|result| json!({"jsonrpc": "2.0", "id": 0, "result": result})),
                );
                if replies.is_empty() {
                    exchanges.push(json!({"request": example}));
                    messages += 1;
                }
                for mut reply in replies {
                    // Each request/response pair is its own exchange with its own id:
                    // the examples reuse ids across types.
                    let mut request = example.clone();
                    let id = fresh_id();
                    request["id"] = id.clone();
                    reply["id"] = id;
                    exchanges.push(json!({"request": request, "response": reply}));
                    messages += 2;
                }
            } else if kind.ends_with("Notification") && is_message {
                if kind == "CancelledNotification" {
                    exchanges.push(json!({"request": example}));
                } else {
                    server_notifications.push(example);
                }
                messages += 1;
            } else if kind.ends_with("Error") {
                let error = if is_message {
                    example["error"].clone()
                } else {
                    example
                };
                let id = fresh_id();
                exchanges.push(json!({
                    "request": {"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": meta()},
                    "response": {"jsonrpc": "2.0", "id": id, "error": error},
                }));
                messages += 2;
            } else if kind == "InputRequiredResult" {
                let id = fresh_id();
                exchanges.push(json!({
                    "request": {"jsonrpc": "2.0", "id": id, "method": "tools/call",
                                "params": {"_meta": meta()["_meta"], "name": "get_weather", "arguments": {}}},
                    "response": {"jsonrpc": "2.0", "id": id, "result": example},
                }));
                messages += 2;
            }
        }
    }
    messages += server_notifications.len();
    let id = fresh_id();
    exchanges.push(json!({
        "request": {"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": meta()},
        "response": {"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private"}},
        "notifications": server_notifications,
    }));
    messages += 2;
    let capture = json!({
        "server_label": "official examples",
        "protocol_version": "2026-07-28",
        "transport": "http",
        "exchanges": exchanges,
    });
    (capture, messages)
}

fn meta() -> Value {
    json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "ExampleClient", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    }})
}

fn schema_findings(capture: &Value) -> Vec<String> {
    let report =
        invariants::check_text(&capture.to_string()).expect("the assembled capture parses");
    report
        .sessions
        .iter()
        .flat_map(|s| &s.findings)
        .filter(|f| f.rule.category == "schema")
        .map(|f| {
            format!(
                "{} exchange {:?}: {}",
                f.code(),
                f.location.exchange,
                f.message
            )
        })
        .collect()
}

#[test]
fn official_examples_pass_the_schema_family() {
    let (capture, messages) = assemble();
    assert!(
        messages >= 60,
        "only {messages} example messages were assembled"
    );
    let findings = schema_findings(&capture);
    assert!(
        findings.is_empty(),
        "false positives:\n{}",
        findings.join("\n")
    );
}

#[test]
fn a_broken_example_is_caught() {
    let (mut capture, _) = assemble();
    let exchanges = capture["exchanges"].as_array_mut().expect("exchanges");
    let call = exchanges
        .iter_mut()
        .find(|e| {
            e["request"]["method"] == "tools/call" && e["request"]["params"].get("name").is_some()
        })
        .expect("a tools/call example");
    call["request"]["params"]
        .as_object_mut()
        .expect("params")
        .remove("name");
    let list = exchanges
        .iter_mut()
        .find(|e| {
            e["request"]["method"] == "tools/list"
                && e["response"]["result"].get("nextCursor").is_some()
        })
        .expect("the tools/list example");
    list["response"]["result"]["tools"][0]
        .as_object_mut()
        .expect("a tool")
        .remove("inputSchema");
    let findings = schema_findings(&capture);
    assert_eq!(findings.len(), 2, "{findings:?}");
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("INV-030") && f.contains("\"name\" is a required property")),
        "{findings:?}"
    );
    assert!(
        findings.iter().any(|f| f.starts_with("INV-031")
            && f.contains("ListToolsResultResponse")
            && f.contains("inputSchema")),
        "{findings:?}"
    );
}
