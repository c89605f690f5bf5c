//! The capture parser: the documented shape is read as documented, unknown fields are
//! kept, and anything malformed becomes diagnostics with JSON pointers, never a panic.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::capture::{self, CaptureDiagnostic, Id, Side};
use mcpcheck_core::invariants;

const VALID: &str = r#"{
  "server_label": "stdio://demo",
  "server_capabilities": {"tools": {"listChanged": true}},
  "client_capabilities": {"roots": {}},
  "protocol_version": "2025-11-25",
  "transport": "stdio",
  "shared_transport": "mux-1",
  "recorder": {"name": "mcpcheck", "version": "0.1.0"},
  "exchanges": [
    {"request": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
     "response": {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}}, "serverInfo": {"name": "s", "version": "1"}}},
     "request_time": "2026-01-02T03:04:05Z", "response_time": "2026-01-02T03:04:05.120+01:00",
     "duration_ms": 120},
    {"request": {"jsonrpc": "2.0", "method": "notifications/initialized"}, "response": null},
    {"request": {"jsonrpc": "2.0", "id": "call-\u0031", "method": "tools/call", "params": {"name": "echo", "arguments": {}, "_meta": {"progressToken": 7}}},
     "response": {"jsonrpc": "2.0", "id": "call-1", "result": {"content": []}},
     "notifications": [{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 7, "progress": 1}}],
     "notification_times": ["2026-01-02T03:04:06Z"],
     "server_requests": [{"request": {"jsonrpc": "2.0", "id": "s1", "method": "roots/list"},
                          "response": {"jsonrpc": "2.0", "id": "s1", "result": {"roots": []}},
                          "trace": "kept"}],
     "raw": [{"text": "warming up", "from": "server", "time": "2026-01-02T03:04:06Z"}]}
  ],
  "unmatched": [{"message": {"jsonrpc": "2.0", "id": 99, "result": {}}, "after_exchange": 2, "time": "2026-01-02T03:04:07Z"}],
  "raw": [{"text": "bye", "from": "client", "after_exchange": 2}]
}"#;

#[test]
fn reads_every_documented_field() {
    let capture = capture::parse(VALID).expect("valid capture");
    assert!(!capture.is_array);
    let [session] = capture.sessions.as_slice() else {
        panic!("one session expected");
    };
    assert_eq!(session.server_label.as_deref(), Some("stdio://demo"));
    assert_eq!(session.protocol_version.as_deref(), Some("2025-11-25"));
    assert_eq!(session.transport.as_deref(), Some("stdio"));
    assert_eq!(session.shared_transport.as_deref(), Some("mux-1"));
    assert!(
        session
            .server_capabilities
            .is_some_and(|c| c.get().contains("listChanged"))
    );
    assert!(
        session
            .client_capabilities
            .is_some_and(|c| c.get().contains("roots"))
    );
    assert_eq!(session.exchanges.len(), 3);

    let first = &session.exchanges[0];
    assert_eq!(first.request.method().as_deref(), Some("initialize"));
    assert_eq!(first.request.id(), Some(Id::Int(1)));
    assert_eq!(first.request_time, Some("2026-01-02T03:04:05Z"));
    assert_eq!(first.response_time, Some("2026-01-02T03:04:05.120+01:00"));

    // A notification has no response; `null` is the same as absent.
    let second = &session.exchanges[1];
    assert!(second.request.is_notification());
    assert!(second.response.is_none());

    // Escaped and plain spellings of one string id are the same id.
    let third = &session.exchanges[2];
    assert_eq!(third.request.id(), Some(Id::Str("call-1".into())));
    assert_eq!(
        third.response.as_ref().and_then(|r| r.id()),
        Some(Id::Str("call-1".into()))
    );
    assert_eq!(third.notifications().len(), 1);
    assert_eq!(third.server_requests().len(), 1);
    assert_eq!(
        third.server_requests()[0].request.method().as_deref(),
        Some("roots/list")
    );
    assert_eq!(third.raw_lines()[0].text, "warming up");
    assert_eq!(third.raw_lines()[0].from, Side::Server);

    assert_eq!(session.unmatched.len(), 1);
    assert_eq!(session.unmatched[0].after_exchange, Some(2));
    assert_eq!(session.unmatched[0].message.id(), Some(Id::Int(99)));
    assert_eq!(session.raw[0].from, Side::Client);
    assert_eq!(session.raw[0].after_exchange, Some(2));
}

#[test]
fn keeps_unknown_fields_verbatim() {
    let capture = capture::parse(VALID).expect("valid capture");
    let session = &capture.sessions[0];
    let recorder = session
        .extra
        .iter()
        .find(|(k, _)| k == "recorder")
        .map(|(_, v)| v.get());
    assert_eq!(
        recorder,
        Some(r#"{"name": "mcpcheck", "version": "0.1.0"}"#)
    );
    let duration = session.exchanges[0]
        .extra()
        .iter()
        .find(|(k, _)| k == "duration_ms");
    assert_eq!(duration.map(|(_, v)| v.get()), Some("120"));
    let trace = session.exchanges[2].server_requests()[0].extra.first();
    assert_eq!(
        trace.map(|(k, v)| (k.as_ref(), v.get())),
        Some(("trace", "\"kept\""))
    );
    // Messages are kept exactly as written.
    assert!(session.exchanges[2].request.text().contains(r"call-\u0031"));
}

#[test]
fn missing_server_capabilities_is_null_and_arrays_hold_sessions() {
    let text = r#"[
      {"server_label": "a", "exchanges": []},
      {"server_label": "b", "server_capabilities": null, "exchanges": [{"request": {"jsonrpc": "2.0", "method": "notifications/initialized"}}]}
    ]"#;
    let capture = capture::parse(text).expect("valid capture");
    assert!(capture.is_array);
    assert_eq!(capture.sessions.len(), 2);
    assert!(
        capture
            .sessions
            .iter()
            .all(|s| s.server_capabilities.is_none())
    );
}

#[test]
fn messages_that_are_not_objects_are_evidence_not_errors() {
    let text = r#"{"exchanges": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "response": "pong"}]}"#;
    let capture = capture::parse(text).expect("a capture");
    let response = capture.sessions[0].exchanges[0]
        .response
        .as_ref()
        .expect("a response");
    assert!(!response.is_object());
    let report = invariants::check(&capture);
    assert!(!report.passed(), "a string response violates the schema");
}

fn diagnostics(text: &str) -> Vec<CaptureDiagnostic> {
    match capture::parse(text) {
        Ok(_) => panic!("expected diagnostics for {text}"),
        Err(diagnostics) => diagnostics,
    }
}

fn pointers(text: &str) -> Vec<String> {
    diagnostics(text).into_iter().map(|d| d.pointer).collect()
}

#[test]
fn syntax_errors_carry_position_and_pointer() {
    let text = "{\"exchanges\": [\n  {\"request\": {\"id\": 1, \"method\": tru}}\n]}";
    let found = diagnostics(text);
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d.pointer, "/exchanges/0/request/method");
    assert_eq!(d.line, Some(2));
    assert!(d.message.starts_with("not valid JSON"), "{}", d.message);
    assert!(
        !d.message.contains(" at line "),
        "position is in the fields: {}",
        d.message
    );

    let truncated = r#"{"exchanges": [], "server_label": "x""#;
    assert_eq!(pointers(truncated), vec![String::new()]);
    assert_eq!(pointers(""), vec![String::new()]);
    let trailing = diagnostics(r#"{"exchanges": []} trailing"#);
    assert_eq!(trailing.len(), 1, "{trailing:?}");
    assert!(
        trailing[0].message.contains("trailing characters"),
        "{trailing:?}"
    );
}

#[test]
fn wrong_types_are_reported_with_pointers_and_the_walk_goes_on() {
    let text = r#"{
      "server_label": 5,
      "server_capabilities": [],
      "protocol_version": {"v": 1},
      "exchanges": [
        {"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "request_time": "yesterday"},
        7,
        {"response": {"jsonrpc": "2.0", "id": 2, "result": {}}},
        {"request": null},
        {"request": {"jsonrpc": "2.0", "id": 3, "method": "ping"}, "notifications": {"a": 1}, "server_requests": [{"response": {}}], "raw": [{"text": 1}]},
        {"request": {"jsonrpc": "2.0", "id": 4, "method": "ping"}, "notifications": [{}], "notification_times": []}
      ],
      "unmatched": [{"time": "2026-13-01T00:00:00Z"}, {"message": {}, "after_exchange": -1}],
      "raw": "no"
    }"#;
    let found = diagnostics(text);
    let pointers: Vec<&str> = found.iter().map(|d| d.pointer.as_str()).collect();
    for expected in [
        "/server_label",
        "/server_capabilities",
        "/protocol_version",
        "/exchanges/0/request_time",
        "/exchanges/1",
        "/exchanges/2",
        "/exchanges/3/request",
        "/exchanges/4/notifications",
        "/exchanges/4/server_requests/0",
        "/exchanges/4/raw/0/text",
        "/exchanges/4/raw/0",
        "/exchanges/5/notification_times",
        "/unmatched/0/time",
        "/unmatched/0",
        "/unmatched/1/after_exchange",
        "/raw",
    ] {
        assert!(
            pointers.contains(&expected),
            "no diagnostic at {expected}; got {found:#?}"
        );
    }
    // Values read from the text know their line.
    let label = found
        .iter()
        .find(|d| d.pointer == "/server_label")
        .expect("label diagnostic");
    assert_eq!(label.line, Some(2));
    assert!(
        label.message.contains("must be a string, found a number"),
        "{}",
        label.message
    );
}

#[test]
fn http_status_and_version_header_are_optional_and_checked() {
    let text = r#"{"transport": "http", "exchanges": [
      {"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"},
       "response": {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}},
       "http_status": 404, "protocol_version_header": "2026-07-28"},
      {"request": {"jsonrpc": "2.0", "id": 2, "method": "ping"}, "http_status": null, "protocol_version_header": null},
      {"request": {"jsonrpc": "2.0", "id": 3, "method": "ping"}}
    ]}"#;
    let capture = capture::parse(text).expect("valid capture");
    let exchanges = &capture.sessions[0].exchanges;
    assert_eq!(exchanges[0].http_status, Some(404));
    assert_eq!(exchanges[0].protocol_version_header(), Some("2026-07-28"));
    assert!(
        exchanges[0].extra().is_empty(),
        "read as fields, not kept as unknown"
    );
    for absent in &exchanges[1..] {
        assert_eq!(absent.http_status, None);
        assert_eq!(absent.protocol_version_header(), None);
    }

    let text = r#"{"exchanges": [
      {"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "http_status": "400"},
      {"request": {"jsonrpc": "2.0", "id": 2, "method": "ping"}, "http_status": 99},
      {"request": {"jsonrpc": "2.0", "id": 3, "method": "ping"}, "http_status": 600},
      {"request": {"jsonrpc": "2.0", "id": 4, "method": "ping"}, "http_status": 400.5},
      {"request": {"jsonrpc": "2.0", "id": 5, "method": "ping"}, "protocol_version_header": 2026}
    ]}"#;
    let found = diagnostics(text);
    let shown: Vec<(&str, &str)> = found
        .iter()
        .map(|d| (d.pointer.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(
        shown,
        vec![
            (
                "/exchanges/0/http_status",
                "must be an HTTP status code (an integer from 100 to 599), found \"400\""
            ),
            (
                "/exchanges/1/http_status",
                "must be an HTTP status code (an integer from 100 to 599), found 99"
            ),
            (
                "/exchanges/2/http_status",
                "must be an HTTP status code (an integer from 100 to 599), found 600"
            ),
            (
                "/exchanges/3/http_status",
                "must be an HTTP status code (an integer from 100 to 599), found 400.5"
            ),
            (
                "/exchanges/4/protocol_version_header",
                "must be a string, found a number"
            ),
        ]
    );
}

#[test]
fn documents_that_are_not_captures() {
    assert_eq!(pointers("3"), vec![String::new()]);
    assert_eq!(pointers("[]"), vec![String::new()]);
    assert_eq!(pointers("[1, {\"exchanges\": []}]"), vec!["/0".to_string()]);
    assert_eq!(pointers(r#"{"name": "package.json"}"#), vec![String::new()]);
    let duplicate = diagnostics(r#"{"exchanges": [], "exchanges": []}"#);
    assert!(
        duplicate[0].message.contains("duplicate key `exchanges`"),
        "{duplicate:?}"
    );
    assert!(
        pointers(r#"[{"exchanges": [{"request": {}, "request": {}}]}]"#)
            .contains(&"/0/exchanges/0/request".to_string())
    );
}

#[test]
fn a_flood_of_problems_is_capped() {
    let exchanges = vec!["1"; 1000].join(",");
    let found = diagnostics(&format!("{{\"exchanges\": [{exchanges}]}}"));
    assert!(found.len() <= 201, "{} diagnostics", found.len());
    assert!(
        found
            .last()
            .is_some_and(|d| d.message.contains("more problems not shown"))
    );
}

#[test]
fn deep_nesting_never_overflows_the_stack() {
    // Inside a message: the capture is fine; the message cannot be validated.
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let text = format!(r#"{{"exchanges": [{{"request": {deep}}}]}}"#);
    let report = invariants::check_text(&text).expect("the capture itself is well formed");
    let messages: Vec<&str> = report.sessions[0]
        .findings
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("could not be read for validation")),
        "{messages:?}"
    );
    // Where the capture's own structure is: a diagnostic.
    let found = diagnostics(&format!("[{deep}]"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].pointer, "/0");
    assert!(
        found[0]
            .message
            .contains("a session must be an object, found an array"),
        "{found:?}"
    );
}

/// Every prefix of a valid capture, and deterministic byte mutations of it, go through
/// parse and check without a panic; a failed parse always says where.
#[test]
fn truncations_and_mutations_never_panic() {
    let text = VALID;
    let mut checker = invariants::Checker::default();
    for end in 0..text.len() {
        if !text.is_char_boundary(end) {
            continue;
        }
        match checker.check_text(&text[..end]) {
            Ok(_) => panic!("a truncated capture parsed at {end}"),
            Err(diagnostics) => assert!(!diagnostics.is_empty()),
        }
    }
    // A fixed linear congruential sequence: the same mutations on every run.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let alphabet = b"{}[]\",:0-9aeflnrstu \\";
    let mut parsed = 0;
    for _ in 0..3000 {
        let mut bytes = text.as_bytes().to_vec();
        for _ in 0..1 + next() % 3 {
            let at = next() % bytes.len();
            bytes[at] = alphabet[next() % alphabet.len()];
        }
        let Ok(mutated) = String::from_utf8(bytes) else {
            continue;
        };
        if let Ok(report) = checker.check_text(&mutated) {
            parsed += 1;
            let _ = invariants::render_json(&report);
            let _ = as_text(&invariants::report(&report, &[], "capture.json"));
            if let Ok((report, exercised)) = invariants::check_text_exercised(&mutated) {
                let _ = as_text(&invariants::report(&report, &exercised, "capture.json"));
            }
        }
    }
    assert!(parsed > 0, "some mutations keep the capture valid");
}

#[test]
fn methods_are_recognised_however_they_are_spelled() {
    let text = r#"{"exchanges": [
      {"request": {"jsonrpc": "2.0", "id": 1, "method": "tools\/call", "params": {"name": "x"}}},
      {"request": {"jsonrpc": "2.0", "id": 2, "method": "vendor/custom"}},
      {"request": {"jsonrpc": "2.0", "id": 3, "method": 7}}
    ]}"#;
    let capture = capture::parse(text).expect("a capture");
    let [call, custom, odd] = capture.sessions[0].exchanges.as_slice() else {
        panic!("three exchanges");
    };
    assert!(call.request.method_is("tools/call"));
    assert!(!call.request.method_is("tools/list"));
    assert!(custom.request.method_is("vendor/custom"));
    assert!(!custom.request.method_is("tools/call"));
    assert!(odd.request.has_method() && odd.request.method().is_none());
    assert!(!odd.request.method_is("7"));
}

/// The findings report of a capture as text, as `mcpcheck invariants` prints it.
fn as_text(report: &mcpcheck_core::findings::Report) -> String {
    mcpcheck_core::findings::render::text::render(report, mcpcheck_core::diag::Paint::Plain)
}

#[test]
fn request_headers_and_client_gave_up_are_optional_and_checked() {
    let text = r#"{"transport": "http", "exchanges": [
      {"request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "q"}},
       "request_headers": {"Mcp-Method": "tools/call", "mcp-name": "q"},
       "client_gave_up": "the client stopped waiting after 10 s"},
      {"request": {"jsonrpc": "2.0", "id": 2, "method": "ping"}, "request_headers": null, "client_gave_up": null}
    ]}"#;
    let capture = capture::parse(text).expect("valid capture");
    let exchanges = &capture.sessions[0].exchanges;
    // Header names are compared as HTTP compares them: lowercase.
    assert_eq!(
        exchanges[0].request_header("mcp-method"),
        Some("tools/call")
    );
    assert_eq!(exchanges[0].request_header("Mcp-Name"), Some("q"));
    assert_eq!(exchanges[0].request_header("mcp-param-x"), None);
    assert_eq!(
        exchanges[0].client_gave_up(),
        Some("the client stopped waiting after 10 s")
    );
    assert!(exchanges[0].extra().is_empty());
    assert!(exchanges[1].request_headers().is_none());
    assert_eq!(exchanges[1].client_gave_up(), None);

    let text = r#"{"exchanges": [
      {"request": {"jsonrpc": "2.0", "id": 1, "method": "ping"}, "request_headers": ["mcp-method"]},
      {"request": {"jsonrpc": "2.0", "id": 2, "method": "ping"}, "request_headers": {"mcp-method": 1}},
      {"request": {"jsonrpc": "2.0", "id": 3, "method": "ping"}, "client_gave_up": true}
    ]}"#;
    let found = diagnostics(text);
    let shown: Vec<(&str, &str)> = found
        .iter()
        .map(|d| (d.pointer.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(
        shown,
        vec![
            (
                "/exchanges/0/request_headers",
                "must be an object or null, found an array"
            ),
            (
                "/exchanges/1/request_headers/mcp-method",
                "must be a string, found a number"
            ),
            (
                "/exchanges/2/client_gave_up",
                "must be a string, found a boolean"
            ),
        ]
    );
}
