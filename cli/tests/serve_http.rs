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

/// Sessions are capped: past `--max-sessions`, a new one (an initialize, or
/// a legacy `GET /sse`) is refused with 503 and Retry-After, while the open
/// ones go on; ending one makes room.
#[tokio::test]
async fn sessions_past_the_cap_are_refused_and_ending_one_makes_room() {
    let server = HttpServer::start(&["--max-sessions", "2"]).await;
    let mut first = RawHttp::new(&server.url);
    first.initialize("2025-06-18").await;
    let mut second = RawHttp::new(&server.url);
    second.initialize("2025-06-18").await;

    let third = RawHttp::new(&server.url);
    let refused = third.post(&initialize_request(1, "2025-06-18")).await;
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "5");
    let legacy = within(
        "GET /sse",
        third
            .http
            .get(format!("{}/sse", server.base))
            .header("accept", "text/event-stream")
            .send(),
    )
    .await
    .expect("GET /sse");
    assert_eq!(legacy.status(), 503);

    // The open sessions still work.
    let response = first
        .post(&tool_call(2, "echo", json!({"message": "still here"})))
        .await;
    assert_eq!(
        answer(response).await["result"]["content"][0]["text"],
        "still here"
    );

    let ended = within(
        "DELETE",
        second
            .http
            .delete(&server.url)
            .header("mcp-session-id", second.session.clone().expect("session"))
            .send(),
    )
    .await
    .expect("DELETE");
    assert_eq!(ended.status(), 200);
    let mut again = RawHttp::new(&server.url);
    again.initialize("2025-06-18").await;
}

/// A client that stops sending mid-body gets 408 and is disconnected after
/// `--request-timeout`; one that stops mid-headers is disconnected too.
#[tokio::test]
async fn a_stalled_request_is_cut_off_at_the_request_timeout() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let server = HttpServer::start(&["--request-timeout", "1s"]).await;
    let authority = server.base.trim_start_matches("http://").to_owned();

    let mut body_stalls = tokio::net::TcpStream::connect(&authority)
        .await
        .expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\""
    );
    body_stalls.write_all(head.as_bytes()).await.expect("write");
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    within(
        "the stalled body is answered",
        body_stalls.read_to_end(&mut answer),
    )
    .await
    .expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));

    let mut headers_stall = tokio::net::TcpStream::connect(&authority)
        .await
        .expect("connect");
    headers_stall
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: ")
        .await
        .expect("write");
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    within(
        "the stalled headers end the connection",
        headers_stall.read_to_end(&mut rest),
    )
    .await
    .ok();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// At the file-descriptor limit the accept loop waits instead of spinning,
/// and serves again once descriptors are free.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_accept_loop_does_not_spin_at_the_descriptor_limit() {
    use std::io::{BufRead as _, BufReader as StdReader};
    let mut child = std::process::Command::new("sh")
        .args([
            "-c",
            "ulimit -n 64 && exec \"$0\" serve --http 127.0.0.1:0",
            env!("CARGO_BIN_EXE_mcpcheck"),
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stderr = child.stderr.take().expect("stderr");
    let mut child = Kill(child);
    let mut lines = StdReader::new(stderr).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            line.split("listening on ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_owned)
        })
        .expect("the server prints its URL");
    std::thread::spawn(move || for _ in lines {});
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("authority")
        .to_owned();

    // Hold more connections than the server has descriptors.
    let mut held = Vec::new();
    for _ in 0..100 {
        if let Ok(stream) = std::net::TcpStream::connect(&authority) {
            held.push(stream);
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let cpu = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
        let after = stat.rsplit_once(')').expect("comm").1;
        let fields: Vec<&str> = after.split_whitespace().collect();
        // utime and stime: fields 14 and 15 of the line, 12 and 13 after `)`.
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
    };
    let pid = child.0.id();
    let before = cpu(pid);
    std::thread::sleep(std::time::Duration::from_secs(2));
    let used = cpu(pid) - before;
    // A spinning loop burns about 200 ticks (2 s at 100 Hz); waiting, a few.
    assert!(
        used < 50,
        "the server used {used} ticks of CPU in 2 s while at its descriptor limit"
    );

    drop(held);
    let mut http = RawHttp::new(&url);
    let result = within("serving again", async {
        loop {
            let response = http
                .http
                .post(&http.url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(initialize_request(1, "2025-06-18").to_string())
                .send()
                .await;
            if let Ok(response) = response
                && response.status() == 200
            {
                break response;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    })
    .await;
    http.session = result
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    assert!(http.session.is_some());
    let _ = &mut child;
}
