//! `mcpcheck serve` in the 2026-07-28 era, beside the older revisions: raw
//! JSON-RPC over Streamable HTTP (with the mirrored headers) and over stdio,
//! for the envelope checks and their error codes, `server/discover`,
//! stateless calls, the multi-round-trip results with their signed
//! `requestState`, `subscriptions/listen`, and the faults of this era.

mod serve_support;

use serde_json::{Value, json};
use serve_support::{
    ACCEPT_BOTH, HttpServer, RawHttp, RawStdio, answer, content_type, next_event, sse, within,
};

const REVISION: &str = "2026-07-28";

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientInfo": { "name": "serve-2026-test", "version": "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A 2026-07-28 request: `params` with `_meta` for `capabilities` added.
fn request(id: u64, method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

fn call(id: u64, name: &str, arguments: Value, capabilities: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({ "name": name, "arguments": arguments }),
        capabilities,
    )
}

/// POSTs `body` with the headers a conforming client derives from it,
/// changed by `overrides` (a `None` value leaves the header out).
async fn post(
    server: &HttpServer,
    body: &Value,
    overrides: &[(&str, Option<&str>)],
) -> reqwest::Response {
    let method = body["method"].as_str().unwrap_or_default().to_owned();
    let version = body
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(REVISION)
        .to_owned();
    let name = body
        .pointer("/params/name")
        .or_else(|| body.pointer("/params/uri"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut headers: Vec<(String, Option<String>)> = vec![
        ("mcp-protocol-version".into(), Some(version)),
        ("mcp-method".into(), Some(method)),
        ("mcp-name".into(), name),
    ];
    for (header, value) in overrides {
        headers.retain(|(h, _)| h != header);
        headers.push(((*header).to_owned(), value.map(str::to_owned)));
    }
    let mut request = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", ACCEPT_BOTH)
        .body(body.to_string());
    for (header, value) in headers {
        if let Some(value) = value {
            request = request.header(header, value);
        }
    }
    within("an HTTP POST", request.send())
        .await
        .expect("the server answers HTTP")
}

/// The status and the JSON-RPC response of a POST.
async fn exchange(server: &HttpServer, body: &Value) -> (u16, Value) {
    let response = post(server, body, &[]).await;
    (response.status().as_u16(), answer(response).await)
}

fn first_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn discover_answers_what_initialize_did() {
    let server = HttpServer::start(&[]).await;
    let (status, response) = exchange(
        &server,
        &request(1, "server/discover", json!({}), json!({})),
    )
    .await;
    assert_eq!(status, 200, "{response}");
    let result = &response["result"];
    assert_eq!(result["supportedVersions"], json!([REVISION]));
    assert_eq!(result["resultType"], "complete");
    assert!(result["ttlMs"].as_u64().is_some(), "{result}");
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcpcheck-serve"
    );
    assert!(result["capabilities"]["tools"].is_object(), "{result}");
    assert!(
        result["capabilities"]["resources"]
            .get("subscribe")
            .is_none(),
        "resources/subscribe is not served in this era: {result}"
    );
}

#[tokio::test]
async fn a_call_without_a_session_is_served_statelessly() {
    let server = HttpServer::start(&[]).await;
    let body = call(7, "echo", json!({"message": "hello"}), json!({}));
    let response = post(&server, &body, &[]).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers().get("mcp-session-id").is_none(),
        "no session is opened"
    );
    let response = answer(response).await;
    assert_eq!(response["id"], 7);
    assert_eq!(first_text(&response), "hello");
    assert_eq!(response["result"]["resultType"], "complete");

    let (_, listed) = exchange(&server, &request(8, "tools/list", json!({}), json!({}))).await;
    let result = &listed["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(
        result["ttlMs"].is_u64() && result["cacheScope"].is_string(),
        "{result}"
    );
    let names: Vec<&str> = result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"echo") && names.contains(&"test_missing_capability"),
        "{names:?}"
    );
}

#[tokio::test]
async fn an_initialize_still_opens_a_legacy_session() {
    let server = HttpServer::start(&[]).await;
    let mut legacy = RawHttp::new(&server.url);
    let init = legacy.initialize("2025-06-18").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let response = legacy
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "old"}}}))
        .await;
    let response = answer(response).await;
    assert_eq!(first_text(&response), "old");
    assert!(
        response["result"].get("resultType").is_none(),
        "legacy results are as before: {response}"
    );
}

#[tokio::test]
async fn headers_that_do_not_mirror_the_body_are_refused_with_32020() {
    let server = HttpServer::start(&[]).await;
    let body = call(3, "echo", json!({"message": "x"}), json!({}));
    for overrides in [
        vec![("mcp-method", Some("tools/list"))],
        vec![("mcp-name", Some("add"))],
        vec![("mcp-name", None)],
        vec![("mcp-protocol-version", Some("2025-11-25"))],
        vec![("mcp-protocol-version", None)],
    ] {
        let response = post(&server, &body, &overrides).await;
        assert_eq!(response.status(), 400, "{overrides:?}");
        let response = answer(response).await;
        assert_eq!(
            response["error"]["code"], -32020,
            "{overrides:?}: {response}"
        );
        assert_eq!(response["id"], 3);
    }
    let encoded = post(&server, &body, &[("mcp-name", Some("=?base64?ZWNobw==?="))]).await;
    assert_eq!(
        encoded.status(),
        200,
        "a base64-encoded Mcp-Name is decoded"
    );
}

#[tokio::test]
async fn a_missing_client_capability_is_refused_with_32021() {
    let server = HttpServer::start(&[]).await;
    for (tool, capability) in [
        ("sample", "sampling"),
        ("elicit", "elicitation"),
        ("roots", "roots"),
    ] {
        let (status, response) = exchange(&server, &call(4, tool, json!({}), json!({}))).await;
        assert_eq!(status, 400, "{tool}");
        assert_eq!(response["error"]["code"], -32021, "{tool}: {response}");
        assert!(
            response["error"]["data"]["requiredCapabilities"][capability].is_object(),
            "{response}"
        );
    }
}

#[tokio::test]
async fn an_unsupported_version_is_refused_with_32022() {
    let server = HttpServer::start(&[]).await;
    let mut body = request(5, "server/discover", json!({}), json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let (status, response) = exchange(&server, &body).await;
    assert_eq!(status, 400);
    assert_eq!(response["error"]["code"], -32022, "{response}");
    assert_eq!(response["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(response["error"]["data"]["supported"], json!([REVISION]));
}

#[tokio::test]
async fn missing_meta_members_are_refused_with_32602() {
    let server = HttpServer::start(&[]).await;
    let full = request(6, "server/discover", json!({}), json!({}));
    let mut no_meta = full.clone();
    no_meta["params"] = json!({});
    let mut no_version = full.clone();
    let meta = no_version["params"]["_meta"].as_object_mut().expect("meta");
    meta.remove("io.modelcontextprotocol/protocolVersion");
    let mut no_capabilities = full.clone();
    let meta = no_capabilities["params"]["_meta"]
        .as_object_mut()
        .expect("meta");
    meta.remove("io.modelcontextprotocol/clientCapabilities");
    for body in [no_meta, no_version, no_capabilities] {
        let (status, response) = exchange(&server, &body).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(response["error"]["code"], -32602, "{body}: {response}");
        assert_eq!(response["id"], 6);
    }
    let mut no_client_info = full;
    let meta = no_client_info["params"]["_meta"]
        .as_object_mut()
        .expect("meta");
    meta.remove("io.modelcontextprotocol/clientInfo");
    let (status, _) = exchange(&server, &no_client_info).await;
    assert_eq!(status, 200, "clientInfo is optional");
}

#[tokio::test]
async fn removed_and_unknown_methods_are_404_with_32601() {
    let server = HttpServer::start(&[]).await;
    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "initialize",
        "no/such",
    ] {
        let (status, response) = exchange(&server, &request(9, method, json!({}), json!({}))).await;
        assert_eq!(status, 404, "{method}");
        assert_eq!(response["error"]["code"], -32601, "{method}: {response}");
    }
}

#[tokio::test]
async fn a_client_request_becomes_an_input_required_result_and_a_retry_completes_it() {
    let server = HttpServer::start(&[]).await;
    let sampling = json!({"sampling": {}});
    let first = call(
        10,
        "sample",
        json!({"prompt": "Name a colour."}),
        sampling.clone(),
    );
    let (status, response) = exchange(&server, &first).await;
    assert_eq!(status, 200);
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let asked = &result["inputRequests"]["sampling-1"];
    assert_eq!(asked["method"], "sampling/createMessage", "{result}");
    assert_eq!(
        asked["params"]["messages"][0]["content"]["text"],
        "Name a colour."
    );
    let state = result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();

    let model_answer = json!({"role": "assistant", "model": "test-model", "stopReason": "endTurn",
        "content": {"type": "text", "text": "Blue."}});
    let mut retry = first.clone();
    retry["params"]["inputResponses"] = json!({ "sampling-1": model_answer });
    retry["params"]["requestState"] = json!(state);
    let (status, response) = exchange(&server, &retry).await;
    assert_eq!(status, 200);
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    assert_eq!(first_text(&response), "Blue.");

    let mut tampered = retry.clone();
    tampered["params"]["requestState"] = json!(format!("{state}-TAMPERED"));
    let (status, response) = exchange(&server, &tampered).await;
    assert_eq!(status, 400);
    assert_eq!(response["error"]["code"], -32602, "{response}");

    let mut elsewhere = retry;
    elsewhere["params"]["arguments"] = json!({"prompt": "Something else."});
    elsewhere["params"]["name"] = json!("sample");
    let (_, response) = exchange(&server, &elsewhere).await;
    assert_eq!(
        response["error"]["code"], -32602,
        "a state is bound to its request: {response}"
    );
}

#[tokio::test]
async fn multi_round_fixture_carries_its_answers_in_the_state_over_stdio() {
    let mut server = RawStdio::start(&[]);
    let capabilities = json!({"elicitation": {}});
    let first = call(
        1,
        "test_input_required_result_multi_round",
        json!({}),
        capabilities,
    );
    server.send(&first).await;
    let round1 = server.message().await;
    assert_eq!(round1["result"]["resultType"], "input_required", "{round1}");
    assert!(
        round1["result"]["inputRequests"]["step1"].is_object(),
        "{round1}"
    );

    let mut second = first.clone();
    second["id"] = json!(2);
    second["params"]["inputResponses"] =
        json!({"step1": {"action": "accept", "content": {"name": "Ada"}}});
    second["params"]["requestState"] = round1["result"]["requestState"].clone();
    server.send(&second).await;
    let round2 = server.message().await;
    assert!(
        round2["result"]["inputRequests"]["step2"].is_object(),
        "{round2}"
    );
    assert_ne!(
        round2["result"]["requestState"],
        round1["result"]["requestState"]
    );

    let mut third = first;
    third["id"] = json!(3);
    third["params"]["inputResponses"] =
        json!({"step2": {"action": "accept", "content": {"colour": "red"}}});
    third["params"]["requestState"] = round2["result"]["requestState"].clone();
    server.send(&third).await;
    let done = server.message().await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
}

#[tokio::test]
async fn stdio_serves_both_eras_on_one_pipe() {
    let mut server = RawStdio::start(&[]);
    server
        .send(&request(1, "server/discover", json!({}), json!({})))
        .await;
    let discovered = server.message().await;
    assert_eq!(discovered["result"]["supportedVersions"], json!([REVISION]));

    server
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let refused = server.message().await;
    assert_eq!(
        refused["error"]["code"], -32602,
        "before initialize, a request without _meta is a 2026-07-28 one: {refused}"
    );

    let init = server.initialize("2025-11-25").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    server
        .send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "legacy"}}}))
        .await;
    let legacy = server.message().await;
    assert_eq!(first_text(&legacy), "legacy");
    assert!(legacy["result"].get("resultType").is_none());

    server
        .send(&call(4, "echo", json!({"message": "modern"}), json!({})))
        .await;
    let modern = server.message().await;
    assert_eq!(first_text(&modern), "modern");
    assert_eq!(modern["result"]["resultType"], "complete");

    server.send(&call(5, "sample", json!({}), json!({}))).await;
    assert_eq!(server.message().await["error"]["code"], -32021);
}

#[tokio::test]
async fn log_messages_are_sent_only_at_a_requested_level() {
    let server = HttpServer::start(&[]).await;
    let quiet = call(1, "test_logging_tool", json!({}), json!({}));
    let response = post(&server, &quiet, &[]).await;
    assert!(content_type(&response).starts_with("application/json"));
    assert!(first_text(&answer(response).await).starts_with("logged"));

    let mut loud = quiet;
    loud["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let response = post(&server, &loud, &[]).await;
    assert!(content_type(&response).starts_with("text/event-stream"));
    let mut events = sse(response);
    let first = next_event(&mut events).await.expect("an event");
    let message: Value = serde_json::from_str(&first.data.unwrap_or_default()).expect("JSON");
    assert_eq!(message["method"], "notifications/message", "{message}");
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_and_told_of_list_changes() {
    let server = HttpServer::start(&[]).await;
    let listen = request(
        42,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
        json!({}),
    );
    let response = post(&server, &listen, &[]).await;
    assert_eq!(response.status(), 200);
    let mut events = sse(response);
    let ack: Value = serde_json::from_str(
        &next_event(&mut events)
            .await
            .expect("ack")
            .data
            .unwrap_or_default(),
    )
    .expect("JSON");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        42
    );
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);

    let (_, prompt_change) = exchange(
        &server,
        &call(2, "test_trigger_prompt_change", json!({}), json!({})),
    )
    .await;
    assert_eq!(prompt_change["result"]["resultType"], "complete");
    let (_, tool_change) = exchange(
        &server,
        &call(3, "test_trigger_tool_change", json!({}), json!({})),
    )
    .await;
    assert_eq!(tool_change["result"]["resultType"], "complete");
    let change: Value = serde_json::from_str(
        &next_event(&mut events)
            .await
            .expect("a change")
            .data
            .unwrap_or_default(),
    )
    .expect("JSON");
    assert_eq!(
        change["method"], "notifications/tools/list_changed",
        "the prompt change was not asked for: {change}"
    );
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        42
    );
}

#[tokio::test]
async fn stateful_fault_makes_answers_depend_on_earlier_requests() {
    let plain = HttpServer::start(&[]).await;
    let faulty = HttpServer::start(&["--fault", "stateful"]).await;
    let body = call(1, "echo", json!({"message": "same"}), json!({}));
    let (_, a) = exchange(&plain, &body).await;
    let (_, b) = exchange(&plain, &body).await;
    assert_eq!(a, b, "plain serve answers the same request the same way");
    let (_, a) = exchange(&faulty, &body).await;
    let (_, b) = exchange(&faulty, &body).await;
    assert_ne!(
        a, b,
        "under stateful the answer depends on what came before"
    );
    assert_eq!(
        b["result"]["content"][1]["text"],
        "request #2 to this process"
    );
}

#[tokio::test]
async fn ignore_header_mismatch_fault_serves_a_mismatched_request() {
    let server = HttpServer::start(&["--fault", "ignore-header-mismatch"]).await;
    let body = call(1, "echo", json!({"message": "x"}), json!({}));
    let response = post(&server, &body, &[("mcp-method", Some("tools/list"))]).await;
    assert_eq!(response.status(), 200);
    assert_eq!(first_text(&answer(response).await), "x");
}

#[tokio::test]
async fn no_result_type_fault_leaves_result_type_out() {
    let server = HttpServer::start(&["--fault", "no-result-type"]).await;
    let (_, response) = exchange(
        &server,
        &call(1, "echo", json!({"message": "x"}), json!({})),
    )
    .await;
    assert_eq!(first_text(&response), "x");
    assert!(response["result"].get("resultType").is_none(), "{response}");
    let (_, asked) = exchange(
        &server,
        &call(2, "sample", json!({}), json!({"sampling": {}})),
    )
    .await;
    assert!(asked["result"]["inputRequests"].is_object());
    assert!(asked["result"].get("resultType").is_none(), "{asked}");
}

#[tokio::test]
async fn skip_meta_validation_fault_serves_a_request_without_meta() {
    let server = HttpServer::start(&["--fault", "skip-meta-validation"]).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "bare"}}});
    let (status, response) = exchange(&server, &body).await;
    assert_eq!(status, 200, "{response}");
    assert_eq!(first_text(&response), "bare");
    let mut stdio = RawStdio::start(&["--fault", "skip-meta-validation"]);
    stdio.send(&body).await;
    assert_eq!(first_text(&stdio.message().await), "bare");
}

#[tokio::test]
async fn stateless_requests_are_not_held_to_the_session_limit() {
    let server = HttpServer::start(&["--max-sessions", "1"]).await;
    let mut legacy = RawHttp::new(&server.url);
    legacy.initialize("2025-11-25").await;
    let full = RawHttp::new(&server.url)
        .post(&serve_support::initialize_request(1, "2025-11-25"))
        .await;
    assert_eq!(full.status(), 503, "a second session is one too many");
    let (status, response) = exchange(
        &server,
        &call(2, "echo", json!({"message": "still"}), json!({})),
    )
    .await;
    assert_eq!(status, 200, "{response}");
    assert_eq!(first_text(&response), "still");
}

/// `mcpcheck load --instances` over two servers started with `extra`, in
/// the 2026-07-28 era: whether it found them stateless.
async fn load_finds_stateless(extra: &[&str]) -> bool {
    let a = HttpServer::start(extra).await;
    let b = HttpServer::start(extra).await;
    let instances = format!("{},{}", a.url, b.url);
    let output = within(
        "mcpcheck load",
        tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
            .args(["load", "--instances", &instances, "--call", "echo"])
            .args(["--args", r#"{"message": "x"}"#, "--requests", "6"])
            .args(["--protocol-version", REVISION])
            .output(),
    )
    .await
    .expect("run mcpcheck load");
    output.status.success()
}

#[tokio::test]
async fn load_instances_proves_plain_serve_stateless_and_not_the_stateful_fault() {
    assert!(load_finds_stateless(&[]).await, "plain serve is stateless");
    assert!(
        !load_finds_stateless(&["--fault", "stateful"]).await,
        "the stateful fault keeps state across requests"
    );
}

#[tokio::test]
async fn stdio_listen_streams_and_cancellation() {
    let mut server = RawStdio::start(&["--fault", "hang-on-call"]);
    let listen = request(
        5,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
        json!({}),
    );
    server.send(&listen).await;
    let ack = server.message().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        5
    );

    server
        .send(&call(6, "test_trigger_tool_change", json!({}), json!({})))
        .await;
    let mut seen = vec![server.message().await, server.message().await];
    seen.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(
        seen[0]["method"], "notifications/tools/list_changed",
        "{seen:?}"
    );
    assert_eq!(seen[1]["id"], 6, "{seen:?}");

    // A hung call and the listen stream are both stopped by
    // notifications/cancelled: neither sends anything more.
    server
        .send(&call(7, "echo", json!({"message": "held"}), json!({})))
        .await;
    for id in [7, 5] {
        server
            .send(
                &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id}}),
            )
            .await;
    }
    server
        .send(&call(8, "test_trigger_tool_change", json!({}), json!({})))
        .await;
    server
        .send(&request(9, "server/discover", json!({}), json!({})))
        .await;
    let mut ids = vec![
        server.message().await["id"].clone(),
        server.message().await["id"].clone(),
    ];
    ids.sort_by_key(|id| id.as_u64());
    assert_eq!(
        ids,
        vec![json!(8), json!(9)],
        "only the later requests are answered"
    );
}

#[tokio::test]
async fn mcp_param_headers_must_mirror_the_marked_arguments() {
    let server = HttpServer::start(&[]).await;
    let listed = exchange(&server, &request(1, "tools/list", json!({}), json!({})))
        .await
        .1;
    let tool = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "test_custom_header")
        .expect("the x-mcp-header fixture is listed")
        .clone();
    assert_eq!(
        tool["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );

    let body = call(
        2,
        "test_custom_header",
        json!({"region": "Hello"}),
        json!({}),
    );
    for (value, accepted) in [
        (Some("Hello"), true),
        (Some("=?base64?SGVsbG8=?="), true),
        (Some("=?base64?SGVsbG8?="), false),
        (Some("Goodbye"), false),
        (None, false),
    ] {
        let response = post(&server, &body, &[("mcp-param-region", value)]).await;
        let status = response.status().as_u16();
        let response = answer(response).await;
        if accepted {
            assert_eq!(status, 200, "{value:?}: {response}");
            assert_eq!(first_text(&response), "region: Hello");
        } else {
            assert_eq!(status, 400, "{value:?}");
            assert_eq!(response["error"]["code"], -32020, "{value:?}: {response}");
        }
    }
}

/// A `progress` call of two steps of 1.5 s each, with a progress token.
fn slow_progress(id: u64) -> Value {
    let mut body = call(
        id,
        "progress",
        json!({"steps": 2, "delay_ms": 1500}),
        json!({}),
    );
    body["params"]["_meta"]["progressToken"] = json!("p");
    body
}

#[tokio::test]
async fn progress_is_streamed_as_it_comes_over_http() {
    let server = HttpServer::start(&[]).await;
    let response = post(&server, &slow_progress(1), &[]).await;
    assert!(content_type(&response).starts_with("text/event-stream"));
    let mut events = sse(response);
    let data = |event: Option<sse_stream::Sse>| -> Value {
        serde_json::from_str(&event.and_then(|e| e.data).unwrap_or_default()).expect("JSON")
    };
    let first = data(next_event(&mut events).await);
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["progressToken"], "p");
    let after_first = std::time::Instant::now();
    let second = data(next_event(&mut events).await);
    assert_eq!(second["method"], "notifications/progress", "{second}");
    let last = data(next_event(&mut events).await);
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert!(
        after_first.elapsed() >= std::time::Duration::from_secs(1),
        "the first step's notification came before the second step ran"
    );
}

#[tokio::test]
async fn progress_is_written_as_it_comes_over_stdio() {
    let mut server = RawStdio::start(&[]);
    server.send(&slow_progress(1)).await;
    let first = server.message().await;
    assert_eq!(first["method"], "notifications/progress", "{first}");
    let after_first = std::time::Instant::now();
    assert_eq!(server.message().await["method"], "notifications/progress");
    assert_eq!(server.message().await["id"], 1);
    assert!(after_first.elapsed() >= std::time::Duration::from_secs(1));
}
