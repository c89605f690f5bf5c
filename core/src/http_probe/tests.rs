//! One firing and one holding case for every rule.

use super::*;

const URL: &str = "http://127.0.0.1:8080/mcp";

fn answer(status: u16, body: &str) -> Answer {
    Answer {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.into(),
    }
}

fn with_header(mut a: Answer, name: &str, value: &str) -> Answer {
    a.headers.push((name.into(), value.into()));
    a
}

const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;

fn base() -> Observations {
    Observations {
        url: URL.into(),
        ..Observations::default()
    }
}

fn codes(o: &Observations) -> Vec<&'static str> {
    judge(o, &Options::default())
        .unwrap_or_default()
        .iter()
        .map(|f| f.code())
        .collect()
}

fn error_probe(body: &str) -> Observations {
    Observations {
        error_bodies: vec![ErrorProbe {
            probe: "unknown-method".into(),
            answer: answer(200, body),
        }],
        ..base()
    }
}

#[test]
fn nothing_observed_nothing_found() {
    assert!(codes(&base()).is_empty());
}

#[test]
fn h101_foreign_origin() {
    let mut o = base();
    o.foreign_origin = Some(answer(200, INIT_RESULT));
    assert_eq!(codes(&o), ["H101"]);
    o.foreign_origin = Some(answer(403, "Forbidden: Origin is not allowed"));
    assert!(codes(&o).is_empty());
    // Answered in SSE: still served.
    o.foreign_origin = Some(answer(
        200,
        &format!("event: message\ndata: {INIT_RESULT}\n\n"),
    ));
    assert_eq!(codes(&o), ["H101"]);
}

#[test]
fn h102_rebinding_host() {
    let mut o = base();
    o.rebinding_host = Some(answer(200, INIT_RESULT));
    assert_eq!(codes(&o), ["H102"]);
    o.rebinding_host = Some(answer(403, "Forbidden: Host header is not allowed"));
    assert!(codes(&o).is_empty());
    o.rebinding_host = Some(answer(
        200,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad host"}}"#,
    ));
    assert!(codes(&o).is_empty(), "an error answer is a refusal");
}

#[test]
fn h201_hidden_tool() {
    let mut o = base();
    o.listed_tools = vec!["echo".into()];
    o.hidden_calls = vec![ToolCall {
        tool: "debug_exec".into(),
        answer: answer(
            200,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ran"}]}}"#,
        ),
    }];
    assert_eq!(codes(&o), ["H201"]);
    o.hidden_calls[0].answer = answer(
        200,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown tool"}}"#,
    );
    assert!(codes(&o).is_empty());
    o.hidden_calls[0].answer = answer(
        200,
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":true}}"#,
    );
    assert!(codes(&o).is_empty(), "a tool error is a refusal");
    // A listed tool is never hidden.
    o.hidden_calls[0].tool = "echo".into();
    o.hidden_calls[0].answer = answer(200, r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#);
    assert!(codes(&o).is_empty());
}

#[test]
fn h301_stack_traces_of_each_runtime() {
    let traces = [
        "Error: boom\n    at handle (/srv/app/server.js:10:5)",
        "Traceback (most recent call last):\n  boom",
        "thread 'tokio-runtime-worker' panicked at src/main.rs:3:5",
        "java.lang.IllegalStateException\n\tat com.acme.Tools.call(Tools.java:12)",
        "goroutine 1 [running]:\nmain.main()",
    ];
    for trace in traces {
        let body =
            json!({"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":trace}}).to_string();
        assert!(codes(&error_probe(&body)).contains(&"H301"), "{trace}");
    }
    let plain = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#;
    assert!(codes(&error_probe(plain)).is_empty());
    // Words that only look like a frame.
    let prose = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"look at the docs (see page 3)"}}"#;
    assert!(codes(&error_probe(prose)).is_empty());
}

#[test]
fn h302_file_paths() {
    for path in [
        "/home/alice/app/config.yaml",
        "C:\\Users\\alice\\app\\x.py",
        "file:///opt/app/x.js",
    ] {
        let body = json!({"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":format!("cannot open {path}")}}).to_string();
        assert_eq!(codes(&error_probe(&body)), ["H302"], "{path}");
    }
    let url = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"see https://example.com/home/docs or /mcp"}}"#;
    assert!(codes(&error_probe(url)).is_empty());
}

#[test]
fn h303_secrets() {
    let body = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"upstream refused key sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"}}"#;
    let found = judge(&error_probe(body), &Options::default()).unwrap_or_default();
    assert_eq!(found.iter().map(|f| f.code()).collect::<Vec<_>>(), ["H303"]);
    assert!(
        !found[0].evidence.contains("2b1c0d9e"),
        "secrets are shown redacted"
    );
    let placeholder = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"set your key, e.g. sk-your-key-here-xxxxxxxxxxxx"}}"#;
    assert!(codes(&error_probe(placeholder)).is_empty());
}

#[test]
fn leaks_report_once_and_count_the_rest() {
    let body =
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"at f (/srv/a.js:1:2)"}}"#;
    let mut o = error_probe(body);
    o.error_bodies.push(ErrorProbe {
        probe: "invalid-params".into(),
        answer: answer(400, body),
    });
    let found = judge(&o, &Options::default()).unwrap_or_default();
    assert_eq!(
        found.iter().map(|f| f.code()).collect::<Vec<_>>(),
        ["H301", "H302"]
    );
    assert_eq!(found[0].location.name(), Some("unknown-method"));
    assert!(
        found[0].message.ends_with("(and in 1 more error answers)"),
        "{}",
        found[0].message
    );
    // A body that is not JSON is read as it is.
    let o = error_probe("Traceback (most recent call last):\n  File \"/usr/lib/x.py\", line 3");
    assert_eq!(codes(&o), ["H301", "H302"]);
}

fn unauthorized(headers: &[(&str, &str)]) -> Answer {
    let mut a = answer(401, r#"{"error":"unauthorized"}"#);
    for (n, v) in headers {
        a = with_header(a, n, v);
    }
    a
}

fn good_metadata() -> Vec<MetadataFetch> {
    vec![MetadataFetch {
        url: "http://127.0.0.1:8080/.well-known/oauth-protected-resource".into(),
        answer: Some(answer(
            200,
            r#"{"resource":"http://127.0.0.1:8080/mcp","authorization_servers":["http://127.0.0.1:8080"]}"#,
        )),
        error: None,
    }]
}

const CHALLENGE: &str =
    r#"Bearer resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource""#;

#[test]
fn h401_h402_challenges() {
    let mut o = base();
    o.unauthenticated = Some(AuthProbe {
        answer: unauthorized(&[]),
        metadata: good_metadata(),
    });
    assert_eq!(codes(&o), ["H401"]);
    o.unauthenticated = Some(AuthProbe {
        answer: unauthorized(&[("WWW-Authenticate", r#"Bearer realm="x""#)]),
        metadata: good_metadata(),
    });
    assert_eq!(codes(&o), ["H402"]);
    o.unauthenticated = Some(AuthProbe {
        answer: unauthorized(&[("www-authenticate", CHALLENGE)]),
        metadata: good_metadata(),
    });
    assert!(codes(&o).is_empty());
    // Without a 401 there is nothing to judge.
    o.unauthenticated = Some(AuthProbe {
        answer: answer(200, INIT_RESULT),
        metadata: Vec::new(),
    });
    assert!(codes(&o).is_empty());
}

#[test]
fn h403_metadata() {
    let with = |metadata: Vec<MetadataFetch>| Observations {
        unauthenticated: Some(AuthProbe {
            answer: unauthorized(&[("WWW-Authenticate", CHALLENGE)]),
            metadata,
        }),
        ..base()
    };
    assert!(codes(&with(good_metadata())).is_empty());
    let doc = |status: u16, body: &str| {
        vec![MetadataFetch {
            url: "http://127.0.0.1:8080/.well-known/oauth-protected-resource".into(),
            answer: Some(answer(status, body)),
            error: None,
        }]
    };
    let bad = [
        doc(404, "Not Found"),
        doc(200, "<html>"),
        doc(
            200,
            r#"{"authorization_servers":["http://127.0.0.1:8080"]}"#,
        ),
        doc(200, r#"{"resource":"http://127.0.0.1:8080/mcp"}"#),
        doc(
            200,
            r#"{"resource":"http://127.0.0.1:8080/mcp","authorization_servers":[]}"#,
        ),
        doc(
            200,
            r#"{"resource":"https://evil.example/mcp","authorization_servers":["https://evil.example"]}"#,
        ),
        vec![MetadataFetch {
            url: "http://127.0.0.1:8080/.well-known/oauth-protected-resource".into(),
            answer: None,
            error: Some("connection refused".into()),
        }],
        Vec::new(),
    ];
    for metadata in bad {
        let shown = format!("{metadata:?}");
        assert_eq!(codes(&with(metadata)), ["H403"], "{shown}");
    }
}

fn sessions(ids: &[&str]) -> Observations {
    Observations {
        session_ids: ids.iter().map(|s| Some((*s).to_string())).collect(),
        ..base()
    }
}

#[test]
fn h501_guessable_ids() {
    for ids in [
        ["1", "2", "3"].as_slice(),
        &[
            "session-000000001",
            "session-000000002",
            "session-000000003",
        ],
        &["a-short-id", "b-short-id", "c-short-id"],
        &[
            "0123456789012345678",
            "0123456789012345999",
            "0123456789012349999",
        ],
        &[
            "7d0b6c1e-0c6a-4c55-9a0e-6a8a3a1f0b11",
            "7d0b6c1e-0c6a-4c55-9a0e-6a8a3a1f0b11",
        ],
    ] {
        assert_eq!(codes(&sessions(ids)), ["H501"], "{ids:?}");
    }
    let random = sessions(&[
        "3f1c2a9e-55b1-4b8e-9f3a-0c6d2b7e8a11",
        "9a7b6c5d-1e2f-4a3b-8c9d-0e1f2a3b4c5d",
        "0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e",
    ]);
    assert!(codes(&random).is_empty());
    // A server without sessions hands out no ids: nothing to judge.
    let none = Observations {
        session_ids: vec![None, None, None],
        ..base()
    };
    assert!(codes(&none).is_empty());
}

#[test]
fn h502_session_after_delete() {
    let pong = r#"{"jsonrpc":"2.0","id":9,"result":{}}"#;
    let mut o = base();
    o.delete = Some(DeleteProbe {
        delete: answer(200, ""),
        reuse: answer(200, pong),
    });
    assert_eq!(codes(&o), ["H502"]);
    o.delete = Some(DeleteProbe {
        delete: answer(200, ""),
        reuse: answer(404, "Not Found"),
    });
    assert!(codes(&o).is_empty());
    // A server may refuse client-initiated termination (405); nothing ended.
    o.delete = Some(DeleteProbe {
        delete: answer(405, "Method Not Allowed"),
        reuse: answer(200, pong),
    });
    assert!(codes(&o).is_empty());
}

#[test]
fn h503_session_id_characters() {
    let o = sessions(&[
        "3f1c2a9e 55b1 4b8e 9f3a 0c6d2b7e8a11",
        "9a7b6c5d 1e2f 4a3b 8c9d 0e1f2a3b4c5d",
    ]);
    assert_eq!(codes(&o), ["H503"]);
    let o = sessions(&["3f1c2a9e-55b1-4b8e-9f3a-0c6d2b7e8a11é"]);
    assert_eq!(codes(&o), ["H503"]);
    let o = sessions(&["3f1c2a9e-55b1-4b8e-9f3a-0c6d2b7e8a11"]);
    assert!(codes(&o).is_empty());
}

#[test]
fn h601_plaintext_off_loopback() {
    for url in [
        "http://mcp.example.com/mcp",
        "http://10.0.0.5:8080/mcp",
        "HTTP://[2001:db8::1]/mcp",
    ] {
        let o = Observations {
            url: url.into(),
            ..Observations::default()
        };
        assert_eq!(codes(&o), ["H601"], "{url}");
    }
    for url in [
        "https://mcp.example.com/mcp",
        "http://127.0.0.1:8080/mcp",
        "http://localhost/mcp",
        "http://[::1]:9/mcp",
    ] {
        let o = Observations {
            url: url.into(),
            ..Observations::default()
        };
        assert!(codes(&o).is_empty(), "{url}");
    }
}

#[test]
fn options_skip_and_gate() {
    let mut o = base();
    o.foreign_origin = Some(answer(200, INIT_RESULT));
    o.url = "http://mcp.example.com/mcp".into();
    assert_eq!(codes(&o), ["H101", "H601"]);
    let skip = Options {
        skip_rules: vec!["h101".into()],
        ..Options::default()
    };
    let found = judge(&o, &skip).unwrap_or_default();
    assert_eq!(found.len(), 1);
    assert!(passed(&found, Severity::High));
    assert!(!passed(&found, Severity::Medium));
    let unknown = Options {
        skip_rules: vec!["H999".into()],
        ..Options::default()
    };
    assert!(matches!(
        judge(&o, &unknown),
        Err(OptionsError::UnknownRule { code, .. }) if code == "H999"
    ));
}

#[test]
fn wrong_arguments_take_another_type() {
    let tool = json!({"name": "add", "inputSchema": {"type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "note": {"type": "string"}},
        "required": ["a", "note"]}});
    assert_eq!(
        wrong_arguments(&tool).map(Value::Object),
        Some(json!({"a": "mcpcheck-probe", "note": []}))
    );
    let loose = json!({"name": "x", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}});
    assert_eq!(
        wrong_arguments(&loose).map(Value::Object),
        Some(json!({"q": []}))
    );
    let untyped = json!({"name": "x", "inputSchema": {"type": "object", "properties": {"q": {}}}});
    assert_eq!(wrong_arguments(&untyped), None);
    assert_eq!(wrong_arguments(&json!({"name": "x"})), None);
}

#[test]
fn messages_come_from_json_or_sse() {
    let sse = answer(
        200,
        "id: 1\nretry: 3000\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\n\n",
    );
    assert_eq!(sse.messages().len(), 2);
    assert_eq!(sse.result(), Some(json!({"ok": true})));
    assert!(answer(200, "not json").messages().is_empty());
    assert_eq!(
        answer(200, "[{\"id\":1,\"result\":1},{\"id\":2}]")
            .messages()
            .len(),
        2
    );
    let evidence = answer(500, &"x\u{1b}".repeat(200)).evidence();
    assert!(evidence.chars().count() <= 120, "{evidence}");
    assert!(evidence.contains("\\u{1B}"));
    assert_eq!(
        answer(500, "Traceback:\n\tat x").evidence(),
        "HTTP 500: Traceback:\\n\\tat x"
    );
    // An SSE answer is shown by its JSON-RPC response.
    assert_eq!(
        sse.evidence(),
        r#"HTTP 200: {"id":1,"jsonrpc":"2.0","result":{"ok":true}}"#
    );
}
