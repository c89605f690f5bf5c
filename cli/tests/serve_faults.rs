//! Every `--fault` of `mcpcheck serve`, on stdio and on HTTP: each is
//! triggered by the request the documentation names, and has the effect it
//! names — and nothing else breaks.

mod serve_support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use serve_support::{
    HttpServer, RawHttp, RawStdio, answer, content_type, initialize_request, next_event, sse,
    tool_call, within,
};

/// How long a test waits to conclude that an answer is *not* coming. Only
/// used to assert absence, never to wait for something to happen.
const ABSENCE: Duration = Duration::from_millis(500);

const CRASH_EXIT_CODE: i32 = 70;
const HUGE_RESPONSE_BYTES: usize = 20 * 1024 * 1024;
const GARBAGE_LINE: &str = "mcpcheck serve: garbage-stdout fault: this line is not JSON-RPC";

fn ping(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

#[tokio::test]
async fn crash_on_call_exits_without_answering_on_stdio() {
    let mut server = RawStdio::start(&["--fault", "crash-on-call"]);
    server.initialize("2025-06-18").await;
    // Other requests are served as usual.
    server
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert_eq!(server.message().await["id"], 2);
    server
        .send(&tool_call(3, "echo", json!({"message": "x"})))
        .await;
    assert_eq!(server.line().await, None, "no answer, then end of output");
    let status = within("the server exits", server.child.wait())
        .await
        .expect("wait");
    assert_eq!(status.code(), Some(CRASH_EXIT_CODE));
}

#[tokio::test]
async fn crash_on_call_drops_the_connection_on_http() {
    let mut server = HttpServer::start(&["--fault", "crash-on-call"]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;
    let request = http
        .http
        .post(&http.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", http.session.clone().unwrap_or_default())
        .body(tool_call(2, "echo", json!({"message": "x"})).to_string());
    let outcome = within("the crashing call", request.send()).await;
    assert!(outcome.is_err(), "the connection drops: {outcome:?}");
    let status = within("the server exits", server.child.wait())
        .await
        .expect("wait");
    assert_eq!(status.code(), Some(CRASH_EXIT_CODE));
}

#[tokio::test]
async fn hang_on_initialize_never_answers_and_ends_with_the_client() {
    let mut server = RawStdio::start(&["--fault", "hang-on-initialize"]);
    server.send(&initialize_request(1, "2025-06-18")).await;
    let answer = tokio::time::timeout(ABSENCE, server.line()).await;
    assert!(answer.is_err(), "initialize was answered: {answer:?}");
    // The hang ends as soon as the client goes away.
    server.close_stdin();
    let status = within("the server exits", server.child.wait())
        .await
        .expect("wait");
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn hang_on_initialize_holds_the_http_request() {
    let server = HttpServer::start(&["--fault", "hang-on-initialize"]).await;
    let http = RawHttp::new(&server.url);
    let held = tokio::time::timeout(ABSENCE, http.post(&initialize_request(1, "2025-06-18"))).await;
    assert!(held.is_err(), "initialize was answered");
}

#[tokio::test]
async fn hang_on_call_holds_calls_but_serves_everything_else_on_stdio() {
    let mut server = RawStdio::start(&["--fault", "hang-on-call"]);
    server.initialize("2025-06-18").await;
    server
        .send(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    // A later request is answered while the call is still held.
    server.send(&ping(3)).await;
    assert_eq!(server.message().await["id"], 3);
    server
        .send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}))
        .await;
    assert_eq!(server.message().await["id"], 4);
    server.close_stdin();
    // Closing stdin ends the hang and the process, without an answer to id 2.
    while let Some(line) = server.line().await {
        let message: Value = serde_json::from_str(&line).expect("JSON");
        assert!(
            message.get("result").is_none(),
            "the held call was answered: {line}"
        );
    }
    let status = within("the server exits", server.child.wait())
        .await
        .expect("wait");
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn hang_on_call_holds_the_http_request() {
    let server = HttpServer::start(&["--fault", "hang-on-call"]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;
    let held = tokio::time::timeout(
        ABSENCE,
        http.post(&tool_call(2, "echo", json!({"message": "x"}))),
    )
    .await;
    assert!(held.is_err(), "the call was answered");
    let pong = http.post(&ping(3)).await;
    assert_eq!(answer(pong).await["id"], 3);
}

#[tokio::test]
async fn garbage_stdout_precedes_each_call_response() {
    let mut server = RawStdio::start(&["--fault", "garbage-stdout"]);
    server.initialize("2025-06-18").await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert_eq!(
        server.message().await["id"],
        2,
        "no garbage before other answers"
    );
    for id in [3, 4] {
        server
            .send(&tool_call(id, "echo", json!({"message": "x"})))
            .await;
        assert_eq!(server.line().await.as_deref(), Some(GARBAGE_LINE));
        assert_eq!(server.message().await["id"], id);
    }
}

#[tokio::test]
async fn garbage_is_an_extra_sse_event_on_http() {
    let server = HttpServer::start(&["--fault", "garbage-stdout"]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;
    let response = http
        .post(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    assert!(content_type(&response).starts_with("text/event-stream"));
    let mut events = sse(response);
    let mut data = Vec::new();
    while let Some(event) = next_event(&mut events).await {
        data.extend(event.data.filter(|d| !d.is_empty()));
    }
    assert_eq!(data.len(), 2, "{data:?}");
    assert_eq!(data[0], GARBAGE_LINE);
    assert_eq!(
        serde_json::from_str::<Value>(&data[1]).expect("JSON")["id"],
        2
    );
}

#[tokio::test]
async fn wrong_id_answers_calls_with_an_unsent_id() {
    let mut server = RawStdio::start(&["--fault", "wrong-id"]);
    server.initialize("2025-06-18").await;
    server
        .send(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    assert_eq!(server.message().await["id"], 1_000_002);
    server
        .send(&json!({"jsonrpc": "2.0", "id": "s", "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"message": "y"}}}))
        .await;
    assert_eq!(server.message().await["id"], "s-wrong");
    server.send(&ping(4)).await;
    assert_eq!(
        server.message().await["id"],
        4,
        "other answers keep their id"
    );

    let server = HttpServer::start(&["--fault", "wrong-id"]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;
    let response = http
        .post(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    assert_eq!(answer(response).await["id"], 1_000_002);
}

#[tokio::test]
async fn string_error_code_applies_to_every_error() {
    let mut server = RawStdio::start(&["--fault", "string-error-code"]);
    server.initialize("2025-06-18").await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}))
        .await;
    let error = server.message().await;
    assert_eq!(error["error"]["code"], "-32601");
    server.send(&tool_call(3, "no_such_tool", json!({}))).await;
    assert_eq!(server.message().await["error"]["code"], "-32602");
    server
        .send(&tool_call(4, "echo", json!({"message": "x"})))
        .await;
    assert!(
        server.message().await.get("error").is_none(),
        "results are untouched"
    );

    let server = HttpServer::start(&["--fault", "string-error-code"]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;
    let response = http
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}))
        .await;
    assert_eq!(answer(response).await["error"]["code"], "-32601");
}

#[tokio::test]
async fn result_and_error_gives_call_responses_both_members() {
    let mut server = RawStdio::start(&["--fault", "result-and-error"]);
    server.initialize("2025-06-18").await;
    server
        .send(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    let both = server.message().await;
    assert_eq!(both["result"]["content"][0]["text"], "x");
    assert_eq!(both["error"]["code"], -32603);
    server.send(&ping(3)).await;
    let pong = server.message().await;
    assert!(pong.get("error").is_none(), "{pong}");

    let server = HttpServer::start(&["--fault", "result-and-error"]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;
    let response = http
        .post(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    let both = answer(response).await;
    assert!(
        both.get("result").is_some() && both.get("error").is_some(),
        "{both}"
    );
}

#[tokio::test]
async fn wire_faults_combine() {
    let mut server = RawStdio::start(&[
        "--fault",
        "garbage-stdout",
        "--fault",
        "wrong-id",
        "--fault",
        "string-error-code",
        "--fault",
        "result-and-error",
    ]);
    server.initialize("2025-06-18").await;
    server
        .send(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    assert_eq!(server.line().await.as_deref(), Some(GARBAGE_LINE));
    let response = server.message().await;
    assert_eq!(response["id"], 1_000_002);
    assert!(response.get("result").is_some());
    assert_eq!(response["error"]["code"], "-32603");
}

#[tokio::test]
async fn tools_without_capability_still_serves_tools() {
    let mut server = RawStdio::start(&["--fault", "tools-without-capability"]);
    let init = server.initialize("2025-06-18").await;
    let capabilities = &init["result"]["capabilities"];
    assert!(capabilities.get("tools").is_none(), "{capabilities}");
    assert!(capabilities.get("prompts").is_some(), "{capabilities}");
    server
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let list = server.message().await;
    assert_eq!(
        list["result"]["tools"].as_array().map(Vec::len),
        Some(serve_support::TOOL_NAMES.len())
    );
    server
        .send(&tool_call(3, "echo", json!({"message": "x"})))
        .await;
    assert_eq!(server.message().await["result"]["content"][0]["text"], "x");

    let server = HttpServer::start(&["--fault", "tools-without-capability"]).await;
    let mut http = RawHttp::new(&server.url);
    let init = http.initialize("2025-06-18").await;
    assert!(init["result"]["capabilities"].get("tools").is_none());
}

#[tokio::test]
async fn huge_response_pads_call_results() {
    let mut server = RawStdio::start(&["--fault", "huge-response"]);
    server.initialize("2025-06-18").await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let list = server.line().await.expect("an answer");
    assert!(list.len() < 64 * 1024, "only calls are padded");
    server
        .send(&tool_call(3, "echo", json!({"message": "x"})))
        .await;
    let huge: Value = serde_json::from_str(&server.line().await.expect("an answer")).expect("JSON");
    let content = huge["result"]["content"].as_array().expect("content");
    assert_eq!(content[0]["text"], "x");
    assert_eq!(
        content[1]["text"].as_str().map(str::len),
        Some(HUGE_RESPONSE_BYTES)
    );

    let server = HttpServer::start(&["--fault", "huge-response"]).await;
    let mut http = RawHttp::new(&server.url);
    http.initialize("2025-06-18").await;
    let response = http
        .post(&tool_call(2, "echo", json!({"message": "x"})))
        .await;
    let huge = answer(response).await;
    assert_eq!(
        huge["result"]["content"][1]["text"].as_str().map(str::len),
        Some(HUGE_RESPONSE_BYTES)
    );
}

#[tokio::test]
async fn slow_start_delays_serving() {
    let started = Instant::now();
    let mut server = RawStdio::start(&["--fault", "slow-start"]);
    server.initialize("2025-06-18").await;
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let started = Instant::now();
    let _server = HttpServer::start(&["--fault", "slow-start"]).await;
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn legacy_sse_carries_wire_faults() {
    let server = HttpServer::start(&["--fault", "garbage-stdout", "--fault", "wrong-id"]).await;
    let http = reqwest::Client::new();
    let stream = within("GET /sse", http.get(format!("{}/sse", server.base)).send())
        .await
        .expect("GET /sse");
    let mut events = sse(stream);
    let path = next_event(&mut events)
        .await
        .and_then(|e| e.data)
        .expect("endpoint");
    let post_url = format!("{}{path}", server.base);
    for message in [
        initialize_request(1, "2024-11-05"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        tool_call(2, "echo", json!({"message": "x"})),
    ] {
        let status = within(
            "POST /message",
            http.post(&post_url).body(message.to_string()).send(),
        )
        .await
        .expect("POST")
        .status();
        assert_eq!(status, 202);
    }
    let mut data = Vec::new();
    while data.len() < 3 {
        let event = next_event(&mut events).await.expect("message events");
        data.extend(event.data);
    }
    assert_eq!(
        serde_json::from_str::<Value>(&data[0]).expect("JSON")["id"],
        1
    );
    assert_eq!(data[1], GARBAGE_LINE);
    assert_eq!(
        serde_json::from_str::<Value>(&data[2]).expect("JSON")["id"],
        1_000_002
    );
}
