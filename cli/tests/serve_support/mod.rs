//! Helpers shared by the `serve_*` integration tests: starting
//! `mcpcheck serve` (always killed when the test ends), connecting rmcp
//! clients over each transport, bounded waits, and the walk through every
//! tool, prompt and resource that each transport must pass.
#![allow(
    dead_code,
    reason = "each test crate includes this module and uses a part of it"
)]
#![expect(
    deprecated,
    reason = "sampling, roots and logging belong to the revisions served"
)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, CompleteRequestParams,
    ContentBlock, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, GetPromptRequestParams, Implementation, ListRootsResult,
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    ReadResourceRequestParams, Reference, RequestMetaObject, ResourceContents,
    ResourceUpdatedNotificationParam, Root, SamplingMessage, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

/// The longest any single step of a test waits. Generous, because the
/// machines running these tests may be busy; a passing step takes
/// milliseconds.
pub const WAIT: Duration = Duration::from_secs(20);

/// Awaits `future`, failing the test if it takes longer than [`WAIT`].
pub async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(WAIT, future).await {
        Ok(value) => value,
        Err(_) => panic!("timed out after {WAIT:?}: {what}"),
    }
}

/// `mcpcheck serve ARGS`, killed when dropped.
pub fn serve_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpcheck"));
    command.arg("serve").args(args).kill_on_drop(true);
    command
}

/// A server speaking HTTP, killed when dropped.
pub struct HttpServer {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The Streamable HTTP endpoint.
    pub url: String,
}

impl HttpServer {
    /// Starts `mcpcheck serve --http 127.0.0.1:0 EXTRA` and waits for the URL
    /// it prints on stderr.
    pub async fn start(extra: &[&str]) -> Self {
        let mut args = vec!["--http", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let mut child = serve_command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpcheck serve");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut lines = BufReader::new(stderr).lines();
        let url = within("the server prints its URL", async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    return rest
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                }
            }
            panic!("the server exited without printing its URL");
        })
        .await;
        // Keep reading stderr so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let base = url
            .rsplit_once('/')
            .map(|(base, _)| base.to_owned())
            .expect("URL has a path");
        Self { child, base, url }
    }
}

/// A server on stdio driven line by line, for raw protocol checks.
pub struct RawStdio {
    pub child: Child,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
}

impl RawStdio {
    pub fn start(args: &[&str]) -> Self {
        let mut child = serve_command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcpcheck serve");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        Self {
            child,
            stdin: Some(stdin),
            stdout,
        }
    }

    pub async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        let stdin = self.stdin.as_mut().expect("stdin is open");
        within("write to the server", stdin.write_all(line.as_bytes()))
            .await
            .expect("the server reads stdin");
    }

    /// The next line the server writes, `None` at the end of its output.
    pub async fn line(&mut self) -> Option<String> {
        within("a line from the server", self.stdout.next_line())
            .await
            .expect("read stdout")
    }

    /// The next line, parsed as JSON.
    pub async fn message(&mut self) -> Value {
        let line = self.line().await.expect("the server answers");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends `initialize` for `revision` and `notifications/initialized`,
    /// returning the initialize result.
    pub async fn initialize(&mut self, revision: &str) -> Value {
        self.send(&initialize_request(1, revision)).await;
        let response = self.message().await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    /// Closes stdin, as a client does when it is done. (Shutting a pipe
    /// down only flushes it; dropping it closes it.)
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }
}

pub fn initialize_request(id: u64, revision: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "mcpcheck-tests", "version": "0"}
        }
    })
}

pub fn tool_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}
    })
}

/// What the server told the test client without being asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
    ResourceUpdated(String),
    ToolListChanged,
}

/// A client that answers the server's requests with fixed values and
/// reports its notifications as [`Event`]s.
pub struct TestClient {
    events: mpsc::UnboundedSender<Event>,
}

/// The answer `sample` gets: the prompt, echoed with a prefix.
pub fn sampled(prompt: &str) -> String {
    format!("sampled: {prompt}")
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities = serde_json::from_value(json!({
            "sampling": {}, "elicitation": {}, "roots": {"listChanged": true}
        }))
        .expect("valid capabilities");
        ClientConfig::new(capabilities, Implementation::new("mcpcheck-tests", "0"))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let prompt = serde_json::to_value(&params.messages[0].content)
            .ok()
            .and_then(|c| c["text"].as_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text(sampled(&prompt)),
            "test-model".to_owned(),
        ))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"answer": "42"})))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![
            Root::new("file:///tmp/root").with_name("root"),
        ]))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.events.send(Event::Progress(params));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.events.send(Event::Log(params));
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.events.send(Event::ResourceUpdated(params.uri));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.events.send(Event::ToolListChanged);
    }
}

pub type Client = RunningService<RoleClient, TestClient>;

/// A connected client and the events it receives.
pub struct Connection {
    pub client: Client,
    pub events: mpsc::UnboundedReceiver<Event>,
}

impl Connection {
    /// The next event, failing the test if none comes within [`WAIT`].
    pub async fn event(&mut self) -> Event {
        within("an event from the server", self.events.recv())
            .await
            .expect("the client is still connected")
    }
}

/// Starts `mcpcheck serve ARGS` on stdio and connects an rmcp client to it.
pub async fn connect_stdio(args: &[&str]) -> Connection {
    let mut command = serve_command(args);
    command.stderr(Stdio::null());
    let transport = rmcp::transport::TokioChildProcess::new(command).expect("spawn mcpcheck serve");
    connect(transport).await
}

/// Connects an rmcp Streamable HTTP client to `url`, sending `headers`.
pub async fn connect_http(url: &str, headers: &[(&'static str, &str)]) -> Connection {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let headers = headers
        .iter()
        .map(|(name, value)| {
            (
                http::HeaderName::from_static(name),
                http::HeaderValue::from_str(value).expect("header value"),
            )
        })
        .collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    let transport = StreamableHttpClientTransport::from_config(config);
    connect(transport).await
}

async fn connect<T, E, A>(transport: T) -> Connection
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let (sender, events) = mpsc::unbounded_channel();
    let client = within("initialize", TestClient { events: sender }.serve(transport))
        .await
        .expect("the client connects");
    Connection { client, events }
}

/// Calls `name` with `arguments` (a JSON object).
pub async fn call(client: &Client, name: &'static str, arguments: Value) -> CallToolResult {
    call_with(client, CallToolRequestParams::new(name), arguments).await
}

pub async fn call_with(
    client: &Client,
    params: CallToolRequestParams,
    arguments: Value,
) -> CallToolResult {
    let name = params.name.clone();
    let params = match arguments {
        Value::Object(object) => params.with_arguments(object),
        _ => params,
    };
    within(&format!("tools/call {name}"), client.call_tool(params))
        .await
        .unwrap_or_else(|e| panic!("tools/call {name} failed: {e}"))
}

/// All text blocks of a result, joined with newlines.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `tools/list` of a plain `mcpcheck serve`: its own tools, then the
/// official conformance suite's fixtures.
pub const TOOL_NAMES: [&str; 30] = [
    "echo",
    "add",
    "lorem",
    "progress",
    "slow",
    "fail",
    "structured",
    "structured_wrong",
    "big",
    "log",
    "sample",
    "elicit",
    "roots",
    "add_tool",
    "whoami",
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_reconnection",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
    "dashboard",
];

/// Walks through every tool, prompt, resource and completion of the server
/// over `connection`, checking each answer. `identity` is what `whoami`
/// must report.
pub async fn exercise_everything(connection: &mut Connection, identity: &str) {
    check_tools(connection, identity).await;
    check_prompts(&connection.client).await;
    check_resources(connection).await;
    check_completion(&connection.client).await;
}

async fn check_tools(connection: &mut Connection, identity: &str) {
    let client = &connection.client;
    let tools = within("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOL_NAMES);
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(tool.description.is_some(), "{}", tool.name);
    }

    assert_eq!(
        text(&call(client, "echo", json!({"message": "hello"})).await),
        "hello"
    );
    assert_eq!(
        text(&call(client, "add", json!({"a": 2, "b": 3})).await),
        "5"
    );
    assert_eq!(
        text(&call(client, "add", json!({"a": 1.5, "b": 2})).await),
        "3.5"
    );
    let lorem = text(&call(client, "lorem", json!({"words": 6, "seed": ""})).await);
    assert_eq!(lorem, "mollit sit dolore sint magna est");
    let default_lorem = text(&call(client, "lorem", json!({})).await);
    assert_eq!(default_lorem.split(' ').count(), 50);
    assert_eq!(text(&call(client, "lorem", json!({})).await), default_lorem);

    check_progress(connection).await;
    let client = &connection.client;

    let started = Instant::now();
    assert_eq!(
        text(&call(client, "slow", json!({"ms": 50})).await),
        "slept 50 ms"
    );
    assert!(started.elapsed() >= Duration::from_millis(50));

    let failed = call(client, "fail", json!({})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(text(&failed), "the fail tool always fails");
    let bad_args = call(client, "lorem", json!({"words": "many"})).await;
    assert_eq!(bad_args.is_error, Some(true));

    check_structured(client, &tools).await;

    let big = call(client, "big", json!({"bytes": 100_000})).await;
    assert_eq!(text(&big).len(), 100_000);

    check_logging(connection).await;
    let client = &connection.client;

    assert_eq!(
        text(&call(client, "sample", json!({"prompt": "capital of France?"})).await),
        sampled("capital of France?")
    );
    let elicited: Value =
        serde_json::from_str(&text(&call(client, "elicit", json!({})).await)).expect("JSON");
    assert_eq!(
        elicited,
        json!({"action": "accept", "content": {"answer": "42"}})
    );
    let roots: Value =
        serde_json::from_str(&text(&call(client, "roots", json!({})).await)).expect("JSON");
    assert_eq!(roots, json!([{"uri": "file:///tmp/root", "name": "root"}]));

    check_add_tool(connection).await;
    let client = &connection.client;

    assert_eq!(text(&call(client, "whoami", json!({})).await), identity);

    let unknown = within(
        "tools/call of an unknown tool",
        client.call_tool(CallToolRequestParams::new("no_such_tool")),
    )
    .await;
    match unknown {
        Err(rmcp::ServiceError::McpError(error)) => assert_eq!(error.code.0, -32602),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

async fn check_progress(connection: &mut Connection) {
    // rmcp's client replaces the token with one of its own; what matters is
    // that the server echoes whichever token the request carried.
    let mut meta = RequestMetaObject::default();
    meta.set_progress_token(ProgressToken(rmcp::model::NumberOrString::String(
        "tok".into(),
    )));
    let mut params = CallToolRequestParams::new("progress");
    params.meta = Some(meta);
    let mut token = None;
    let result = call_with(
        &connection.client,
        params,
        json!({"steps": 3, "delay_ms": 1}),
    )
    .await;
    assert_eq!(text(&result), "completed 3 steps");
    for step in 1..=3 {
        match connection.event().await {
            Event::Progress(progress) => {
                assert_eq!(progress.progress, f64::from(step));
                assert_eq!(progress.total, Some(3.0));
                assert_eq!(progress.message, Some(format!("step {step} of 3")));
                let token = token.get_or_insert_with(|| progress.progress_token.clone());
                assert_eq!(&progress.progress_token, token);
            }
            other => panic!("expected progress, got {other:?}"),
        }
    }
}

async fn check_structured(client: &Client, tools: &[rmcp::model::Tool]) {
    for (name, valid) in [("structured", true), ("structured_wrong", false)] {
        let tool = tools.iter().find(|t| t.name == name).expect("listed");
        let schema = Value::Object(
            tool.output_schema
                .as_deref()
                .expect("an outputSchema")
                .clone(),
        );
        let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
        let result = call(client, name, json!({"city": "Oslo"})).await;
        let structured = result
            .structured_content
            .clone()
            .expect("structuredContent");
        assert_eq!(
            validator.is_valid(&structured),
            valid,
            "{name}: {structured}"
        );
        // The text block mirrors the structured content.
        let mirrored: Value = serde_json::from_str(&text(&result)).expect("JSON text");
        assert_eq!(mirrored, structured);
        assert_eq!(structured["city"], "Oslo");
    }
}

async fn check_logging(connection: &mut Connection) {
    let client = &connection.client;
    let logged = call(client, "log", json!({"level": "warning", "message": "m1"})).await;
    assert_eq!(text(&logged), "logged at warning");
    match connection.event().await {
        Event::Log(log) => {
            assert_eq!(log.level, LoggingLevel::Warning);
            assert_eq!(log.data, json!("m1"));
        }
        other => panic!("expected a log message, got {other:?}"),
    }
    let client = &connection.client;
    within(
        "logging/setLevel",
        client.set_level(SetLevelRequestParams::new(LoggingLevel::Error)),
    )
    .await
    .expect("setLevel");
    let suppressed = call(client, "log", json!({"level": "info"})).await;
    assert_eq!(
        text(&suppressed),
        "suppressed: info is below the level set, error"
    );
    within(
        "logging/setLevel",
        client.set_level(SetLevelRequestParams::new(LoggingLevel::Debug)),
    )
    .await
    .expect("setLevel");
}

async fn check_add_tool(connection: &mut Connection) {
    let client = &connection.client;
    let added = call(client, "add_tool", json!({"name": "extra"})).await;
    assert_eq!(text(&added), "added tool extra");
    assert_eq!(connection.event().await, Event::ToolListChanged);
    let client = &connection.client;
    let tools = within("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    assert_eq!(tools.last().map(|t| t.name.as_ref()), Some("extra"));
    assert_eq!(
        text(&call(client, "extra", json!({"message": "x"})).await),
        "x"
    );
    let again = call(client, "add_tool", json!({"name": "extra"})).await;
    assert_eq!(again.is_error, Some(true));
}

async fn check_prompts(client: &Client) {
    let prompts = within("prompts/list", client.list_all_prompts())
        .await
        .expect("prompts/list");
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "simple",
            "greeting",
            "with_resource",
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image"
        ]
    );

    let simple = within(
        "prompts/get simple",
        client.get_prompt(GetPromptRequestParams::new("simple")),
    )
    .await
    .expect("prompts/get");
    assert_eq!(simple.messages.len(), 1);

    let arguments = json!({"name": "Ada", "style": "pirate"});
    let greeting = within(
        "prompts/get greeting",
        client.get_prompt(
            GetPromptRequestParams::new("greeting")
                .with_arguments(arguments.as_object().expect("object").clone()),
        ),
    )
    .await
    .expect("prompts/get");
    let message = serde_json::to_value(&greeting.messages[0]).expect("serializes");
    assert_eq!(message["role"], "user");
    assert_eq!(
        message["content"]["text"],
        "Write a pirate greeting for Ada."
    );

    let missing = within(
        "prompts/get greeting without name",
        client.get_prompt(GetPromptRequestParams::new("greeting")),
    )
    .await;
    assert!(missing.is_err());

    let embedded = within(
        "prompts/get with_resource",
        client.get_prompt(GetPromptRequestParams::new("with_resource")),
    )
    .await
    .expect("prompts/get");
    let second = serde_json::to_value(&embedded.messages[1]).expect("serializes");
    assert_eq!(second["content"]["type"], "resource");
    assert_eq!(
        second["content"]["resource"]["uri"],
        "mcpcheck://static/text"
    );
}

async fn check_resources(connection: &mut Connection) {
    let client = &connection.client;
    let resources = within("resources/list", client.list_all_resources())
        .await
        .expect("resources/list");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "mcpcheck://static/text",
            "mcpcheck://static/blob",
            "mcpcheck://calls",
            "test://static-text",
            "test://static-binary",
            "test://watched-resource",
            "skill://mcpcheck/code-review/SKILL.md",
            "skill://mcpcheck/release-notes/SKILL.md",
            "ui://mcpcheck/dashboard.html"
        ]
    );
    let templates = within(
        "resources/templates/list",
        client.list_all_resource_templates(),
    )
    .await
    .expect("resources/templates/list");
    let templates: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(
        templates,
        ["mcpcheck://echo/{text}", "test://template/{id}/data"]
    );

    match read(client, "mcpcheck://static/text").await {
        ResourceContents::TextResourceContents { text, .. } => {
            assert!(text.starts_with("This is the static text resource"));
        }
        other => panic!("expected text, got {other:?}"),
    }
    match read(client, "mcpcheck://static/blob").await {
        ResourceContents::BlobResourceContents { blob, .. } => {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .expect("base64");
            assert_eq!(bytes, (0..=255).collect::<Vec<u8>>());
        }
        other => panic!("expected a blob, got {other:?}"),
    }
    match read(client, "mcpcheck://echo/abc").await {
        ResourceContents::TextResourceContents { text, .. } => assert_eq!(text, "abc"),
        other => panic!("expected text, got {other:?}"),
    }
    let missing = within(
        "resources/read of a missing resource",
        client.read_resource(ReadResourceRequestParams::new("mcpcheck://nope")),
    )
    .await;
    match missing {
        Err(rmcp::ServiceError::McpError(error)) => assert_eq!(error.code.0, -32002),
        other => panic!("expected resource-not-found, got {other:?}"),
    }

    // Subscribing to the call counter: every tools/call updates it.
    let before = calls(client).await;
    within(
        "resources/subscribe",
        client.subscribe(SubscribeRequestParams::new("mcpcheck://calls")),
    )
    .await
    .expect("subscribe");
    call(client, "echo", json!({"message": "count me"})).await;
    assert_eq!(
        connection.event().await,
        Event::ResourceUpdated("mcpcheck://calls".to_owned())
    );
    let client = &connection.client;
    assert_eq!(calls(client).await, before + 1);
    within(
        "resources/unsubscribe",
        client.unsubscribe(UnsubscribeRequestParams::new("mcpcheck://calls")),
    )
    .await
    .expect("unsubscribe");
}

async fn read(client: &Client, uri: &str) -> ResourceContents {
    let result = within(
        &format!("resources/read {uri}"),
        client.read_resource(ReadResourceRequestParams::new(uri)),
    )
    .await
    .expect("resources/read");
    result.contents.into_iter().next().expect("one content")
}

async fn calls(client: &Client) -> u64 {
    match read(client, "mcpcheck://calls").await {
        ResourceContents::TextResourceContents { text, .. } => text.parse().expect("a count"),
        other => panic!("expected text, got {other:?}"),
    }
}

async fn check_completion(client: &Client) {
    let complete = |reference: Reference, argument: &str, value: &str| {
        let params =
            CompleteRequestParams::new(reference, rmcp::model::ArgumentInfo::new(argument, value));
        async move {
            within("completion/complete", client.complete(params))
                .await
                .expect("completion/complete")
                .completion
                .values
        }
    };
    assert_eq!(
        complete(Reference::for_prompt("greeting"), "style", "f").await,
        ["formal"]
    );
    assert_eq!(
        complete(Reference::for_prompt("greeting"), "name", "").await,
        ["Ada", "Alan", "Grace", "Linus", "Margaret"]
    );
    assert_eq!(
        complete(
            Reference::for_resource("mcpcheck://echo/{text}"),
            "text",
            "hel"
        )
        .await,
        ["hello", "hello-world"]
    );
}

/// Raw Streamable HTTP exchanges, for status codes, headers and framing.
pub struct RawHttp {
    pub http: reqwest::Client,
    pub url: String,
    /// The `Mcp-Session-Id` the server assigned at `initialize`.
    pub session: Option<String>,
    /// Extra headers sent with every request (credentials).
    pub headers: Vec<(&'static str, String)>,
}

pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

impl RawHttp {
    pub fn new(url: &str) -> Self {
        Self {
            http: reqwest::Client::new(),
            url: url.to_owned(),
            session: None,
            headers: Vec::new(),
        }
    }

    /// POSTs `body` with `accept`, and the session header once there is one.
    pub async fn post_accept(&self, body: &Value, accept: &str) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", accept)
            .body(body.to_string());
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        within("an HTTP POST", request.send())
            .await
            .expect("the server answers HTTP")
    }

    pub async fn post(&self, body: &Value) -> reqwest::Response {
        self.post_accept(body, ACCEPT_BOTH).await
    }

    /// Initializes a session at `revision`, returning the initialize result.
    pub async fn initialize(&mut self, revision: &str) -> Value {
        let response = self.post(&initialize_request(1, revision)).await;
        assert_eq!(response.status(), 200);
        self.session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        assert!(self.session.is_some(), "initialize assigns a session");
        let result = answer(response).await;
        let done = self
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(done.status(), 202);
        result
    }
}

pub fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// The JSON-RPC response in an HTTP answer, whether JSON or SSE.
pub async fn answer(response: reqwest::Response) -> Value {
    if content_type(&response).starts_with("application/json") {
        let body = within("a JSON body", response.text()).await.expect("body");
        return serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    }
    let mut events = sse(response);
    loop {
        let event = next_event(&mut events)
            .await
            .expect("an SSE response event");
        if let Some(data) = event.data.filter(|d| !d.is_empty())
            && let Ok(message) = serde_json::from_str::<Value>(&data)
            && message.get("method").is_none()
        {
            return message;
        }
    }
}

pub type SseEvents = std::pin::Pin<
    Box<dyn futures::Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Send>,
>;

/// The events of an SSE response, read as they arrive.
pub fn sse(response: reqwest::Response) -> SseEvents {
    Box::pin(sse_stream::SseStream::from_bytes_stream(
        response.bytes_stream(),
    ))
}

/// The next event, `None` when the stream ends.
pub async fn next_event(events: &mut SseEvents) -> Option<sse_stream::Sse> {
    use futures::StreamExt as _;
    within("an SSE event", events.next())
        .await
        .map(|event| event.expect("well-formed SSE"))
}

/// Unique path for a file a test writes.
pub fn temp_path(name: &str) -> std::path::PathBuf {
    let path =
        std::env::temp_dir().join(format!("mcpcheck-serve-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}
