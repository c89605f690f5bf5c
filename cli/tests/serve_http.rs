//! `mcpcheck serve --http`: every tool, prompt and resource through rmcp's
//! Streamable HTTP client, and raw HTTP for what a client library hides:
//! status codes, headers, the JSON-or-SSE choice, sessions, the GET stream,
//! DELETE, authentication and the legacy SSE transport.

mod serve_support;

use serde_json::{Value, json};
use serve_support::{
    HttpServer, RawHttp, answer, connect_http, content_type, exercise_everything,
    initialize_request, next_event, sse, temp_path, tool_call, within,
};

#[tokio::test]
async fn every_tool_prompt_and_resource_over_streamable_http() {
    let server = HttpServer::start(&[]).await;
    let mut connection = connect_http(&server.url, &[]).await;
    exercise_everything(&mut connection, "anonymous").await;
}

#[tokio::test]
async fn negotiates_each_supported_revision() {
    let server = HttpServer::start(&[]).await;
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut http = RawHttp::new(&server.url);
        let result = http.initialize(revision).await;
        assert_eq!(result["result"]["protocolVersion"], revision);
    }
}

#[tokio::test]
async fn single_answers_are_json_and_streams_are_sse() {
    let server = HttpServer::start(&[]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;

    let response = http
        .post(&tool_call(2, "echo", json!({"message": "hi"})))
        .await;
    assert_eq!(response.status(), 200);
    assert!(content_type(&response).starts_with("application/json"));
    let body = answer(response).await;
    assert_eq!(body["id"], 2);
    assert_eq!(body["result"]["content"][0]["text"], "hi");

    // Progress notifications come before the response: the answer streams.
    let mut call = tool_call(3, "progress", json!({"steps": 2, "delay_ms": 1}));
    call["params"]["_meta"] = json!({"progressToken": "p"});
    let response = http.post(&call).await;
    assert!(content_type(&response).starts_with("text/event-stream"));
    let mut events = sse(response);
    let mut messages = Vec::new();
    while let Some(event) = next_event(&mut events).await {
        if let Some(data) = event.data.filter(|d| !d.is_empty()) {
            messages.push(serde_json::from_str::<Value>(&data).expect("JSON data"));
        }
    }
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(messages[0]["params"]["progressToken"], "p");
    assert_eq!(messages[1]["params"]["progress"], 2.0);
    assert_eq!(messages[2]["id"], 3);

    // A client that weighs SSE higher gets SSE even for a single answer.
    let response = http
        .post_accept(
            &tool_call(4, "echo", json!({"message": "s"})),
            "application/json;q=0.5, text/event-stream",
        )
        .await;
    assert!(content_type(&response).starts_with("text/event-stream"));
    assert_eq!(answer(response).await["id"], 4);

    // Both types must be acceptable, as the spec requires of clients.
    let response = http
        .post_accept(
            &tool_call(5, "echo", json!({"message": "s"})),
            "application/json",
        )
        .await;
    assert_eq!(response.status(), 406);
}

#[tokio::test]
async fn sessions_the_get_stream_and_delete() {
    let server = HttpServer::start(&[]).await;
    let mut http = RawHttp::new(&server.url);

    // Without a session, only initialize is accepted.
    let response = http
        .post(&tool_call(1, "echo", json!({"message": "x"})))
        .await;
    assert_eq!(response.status(), 400);

    http.initialize("2025-06-18").await;
    let session = http.session.clone().expect("a session");
    let stream = within(
        "GET stream",
        http.http
            .get(&server.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .send(),
    )
    .await
    .expect("GET");
    assert_eq!(stream.status(), 200);
    assert!(content_type(&stream).starts_with("text/event-stream"));
    let mut events = sse(stream);

    // rmcp sends log messages on the session's GET stream.
    let response = http
        .post(&tool_call(
            2,
            "log",
            json!({"level": "error", "message": "on the stream"}),
        ))
        .await;
    assert_eq!(
        answer(response).await["result"]["content"][0]["text"],
        "logged at error"
    );
    let log = loop {
        let event = next_event(&mut events)
            .await
            .expect("the GET stream stays open");
        if let Some(data) = event.data.filter(|d| !d.is_empty()) {
            break serde_json::from_str::<Value>(&data).expect("JSON data");
        }
    };
    assert_eq!(log["method"], "notifications/message");
    assert_eq!(log["params"]["level"], "error");
    assert_eq!(log["params"]["data"], "on the stream");

    let deleted = within(
        "DELETE",
        http.http
            .delete(&server.url)
            .header("mcp-session-id", &session)
            .send(),
    )
    .await
    .expect("DELETE");
    assert_eq!(deleted.status(), 200);
    let response = http
        .post(&tool_call(3, "echo", json!({"message": "x"})))
        .await;
    assert_eq!(response.status(), 404);
    // The session is gone: deleting it again, or a session never made, is 404.
    for id in [session.as_str(), "no-such-session"] {
        let again = within(
            "DELETE again",
            http.http
                .delete(&server.url)
                .header("mcp-session-id", id)
                .send(),
        )
        .await
        .expect("DELETE");
        assert_eq!(again.status(), 404, "DELETE of {id}");
    }

    let unknown = within(
        "unknown path",
        http.http.get(format!("{}/elsewhere", server.base)).send(),
    )
    .await
    .expect("GET");
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn credentials_are_required_and_name_the_caller() {
    let audit = temp_path("audit-http.jsonl");
    let audit_arg = audit.to_str().expect("UTF-8 temp path");
    let server = HttpServer::start(&[
        "--api-key",
        "key-one",
        "--api-key",
        "key-two",
        "--bearer",
        "token-one",
        "--audit-log",
        audit_arg,
    ])
    .await;

    let anonymous = RawHttp::new(&server.url);
    let refused = anonymous.post(&initialize_request(1, "2025-06-18")).await;
    assert_eq!(refused.status(), 401);
    let challenges: Vec<String> = refused
        .headers()
        .get_all("www-authenticate")
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_owned))
        .collect();
    assert!(
        challenges.iter().any(|c| c.starts_with("Bearer ")),
        "{challenges:?}"
    );
    assert!(
        challenges.iter().any(|c| c.starts_with("ApiKey ")),
        "{challenges:?}"
    );

    let mut wrong = RawHttp::new(&server.url);
    wrong
        .headers
        .push(("authorization", "Bearer nope".to_owned()));
    let refused = wrong.post(&initialize_request(1, "2025-06-18")).await;
    assert_eq!(refused.status(), 401);
    let challenge = refused
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(challenge.contains("invalid_token"), "{challenge}");

    // The legacy transport is guarded too.
    let legacy = within(
        "GET /sse",
        reqwest::Client::new()
            .get(format!("{}/sse", server.base))
            .send(),
    )
    .await
    .expect("GET /sse");
    assert_eq!(legacy.status(), 401);

    for (header, value, identity) in [
        ("x-api-key", "key-two", "api-key#2"),
        ("authorization", "Bearer token-one", "bearer#1"),
    ] {
        let connection = connect_http(&server.url, &[(header, value)]).await;
        let whoami = serve_support::call(&connection.client, "whoami", json!({})).await;
        assert_eq!(serve_support::text(&whoami), identity);
    }

    let log = std::fs::read_to_string(&audit).expect("the audit log exists");
    let identities: Vec<String> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .map(|l| l["identity"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(identities, ["api-key#2", "bearer#1"]);
    assert!(!log.contains("key-two") && !log.contains("token-one"));
    let _ = std::fs::remove_file(&audit);
}

/// The legacy HTTP+SSE transport: GET /sse gives the endpoint, POSTs are
/// answered 202 and the responses arrive as `message` events.
#[tokio::test]
async fn legacy_sse_transport() {
    let server = HttpServer::start(&[]).await;
    let http = reqwest::Client::new();
    let stream = within(
        "GET /sse",
        http.get(format!("{}/sse", server.base))
            .header("accept", "text/event-stream")
            .send(),
    )
    .await
    .expect("GET /sse");
    assert_eq!(stream.status(), 200);
    assert!(content_type(&stream).starts_with("text/event-stream"));
    let mut events = sse(stream);
    let endpoint = next_event(&mut events).await.expect("an endpoint event");
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    let path = endpoint.data.expect("endpoint data");
    assert!(path.starts_with("/message?sessionId="), "{path}");
    let post_url = format!("{}{path}", server.base);

    let post = |message: Value| {
        let request = http
            .post(&post_url)
            .header("content-type", "application/json")
            .body(message.to_string());
        async move {
            within("POST /message", request.send())
                .await
                .expect("POST")
                .status()
        }
    };
    let mut receive = async || {
        let event = next_event(&mut events).await.expect("a message event");
        assert_eq!(event.event.as_deref(), Some("message"));
        serde_json::from_str::<Value>(&event.data.expect("data")).expect("JSON data")
    };

    assert_eq!(post(initialize_request(1, "2024-11-05")).await, 202);
    let initialized = receive().await;
    assert_eq!(initialized["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(
        post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await,
        202
    );
    assert_eq!(
        post(tool_call(2, "echo", json!({"message": "legacy"}))).await,
        202
    );
    let echoed = receive().await;
    assert_eq!(echoed["id"], 2);
    assert_eq!(echoed["result"]["content"][0]["text"], "legacy");

    let mut call = tool_call(3, "progress", json!({"steps": 1, "delay_ms": 1}));
    call["params"]["_meta"] = json!({"progressToken": 9});
    assert_eq!(post(call).await, 202);
    assert_eq!(receive().await["method"], "notifications/progress");
    assert_eq!(receive().await["id"], 3);

    // Unknown sessions and non-JSON bodies are refused.
    let unknown = within(
        "POST to an unknown session",
        http.post(format!("{}/message?sessionId=nope", server.base))
            .body("{}")
            .send(),
    )
    .await
    .expect("POST");
    assert_eq!(unknown.status(), 404);
    assert_eq!(
        within("POST garbage", http.post(&post_url).body("not json").send())
            .await
            .expect("POST")
            .status(),
        400
    );
}
