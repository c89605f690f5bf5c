//! The MCP server itself: one [`Session`] per connected client, implementing
//! rmcp's `ServerHandler` by hand so that every method, capability and
//! fault is visible in one place.
//!
//! Logging, sampling and roots are deprecated in rmcp (SEP-2577) but are part
//! of every protocol revision this server negotiates (2024-11-05 to
//! 2025-11-25), and serving them is the point of a reference server.
#![expect(
    deprecated,
    reason = "logging, sampling and roots belong to the revisions served"
)]

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionInfo, ContentBlock, CreateMessageRequestParams, ElicitRequestParams,
    ElicitationSchema, GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, LoggingLevel, LoggingMessageNotificationParam,
    PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, ResourceUpdatedNotificationParam,
    SamplingContent, SamplingMessage, SamplingMessageContentBlock, ServerCapabilities,
    ServerConfig, SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::audit::{self, AuditLog};
use super::auth::Identity;
use super::catalog::{self, CompletionRef};
use super::faults::{
    CRASH_EXIT_CODE, Fault, FaultSet, HANG_LIMIT, HUGE_RESPONSE_BYTES, RACY_DELAY, RACY_SLOT,
};
use super::tools::{self, Args, ToolError};

/// How long a tool waits for the client to answer a request of its own
/// (sampling, elicitation, roots) before giving up with a tool error.
pub const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The newest revision served; older ones down to 2024-11-05 are served too.
const NEWEST_REVISION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// What every session of one server process shares.
#[derive(Debug)]
pub struct Shared {
    pub faults: FaultSet,
    /// Items per page of tools/list, prompts/list and resources/list;
    /// `None`: everything on one page.
    pub page_size: Option<usize>,
    pub audit: Option<AuditLog>,
}

/// One client's session.
#[derive(Debug)]
pub struct Session {
    shared: Arc<Shared>,
    /// The caller, when the transport fixes it for the whole session
    /// (stdio, legacy SSE). `None`: read it from each HTTP request.
    identity: Option<Identity>,
    /// Cancelled when the client is known to be gone; ends hangs early.
    closed: CancellationToken,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Tools registered by `add_tool`, in registration order.
    dynamic_tools: Vec<String>,
    subscriptions: BTreeSet<String>,
    /// `tools/call` requests received, the value of `mcpcheck://calls`.
    calls: u64,
    /// Index into [`tools::LOG_LEVELS`] of the lowest level `log` sends.
    min_log_level: usize,
}

impl Session {
    pub fn new(shared: Arc<Shared>, identity: Option<Identity>, closed: CancellationToken) -> Self {
        Self {
            shared,
            identity,
            closed,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is plain data updated in single steps; a panic elsewhere
        // cannot leave it inconsistent, so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn fault(&self, fault: Fault) -> bool {
        self.shared.faults.has(fault)
    }

    fn identity(&self, context: &RequestContext<RoleServer>) -> Identity {
        self.identity
            .clone()
            .or_else(|| {
                context
                    .extensions
                    .get::<http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<Identity>().cloned())
            })
            .unwrap_or_else(Identity::anonymous)
    }

    /// Waits as a hang fault does: until the request is cancelled, the
    /// client goes away, or [`HANG_LIMIT`] passes.
    async fn hang(&self, ct: &CancellationToken) {
        tokio::select! {
            () = ct.cancelled() => {}
            () = self.closed.cancelled() => {}
            () = tokio::time::sleep(HANG_LIMIT) => {}
        }
    }

    fn tools(&self) -> Vec<rmcp::model::Tool> {
        let mut tools = tools::builtin();
        tools.extend(super::extensions::tools(&self.shared.faults));
        if self.fault(Fault::BuggyTools) {
            tools.extend(tools::buggy());
        }
        if self.notes() {
            tools.extend(super::notes::tools());
        }
        tools.extend(self.state().dynamic_tools.iter().map(|n| tools::dynamic(n)));
        if self.fault(Fault::RugPull) {
            for tool in tools.iter_mut().filter(|t| t.name == "echo") {
                let said = tool.description.as_deref().unwrap_or_default();
                tool.description = Some(format!("{said}{}", super::faults::RUG_PULL_TEXT).into());
            }
        }
        tools
    }

    /// Whether the notes tools are served (`notes`, `notes-delete-keeps`).
    fn notes(&self) -> bool {
        self.fault(Fault::Notes) || self.fault(Fault::NotesDeleteKeeps)
    }

    /// Counts a `tools/call` and tells subscribers of `mcpcheck://calls`.
    async fn count_call(&self, context: &RequestContext<RoleServer>) {
        let subscribed = {
            let mut state = self.state();
            state.calls += 1;
            state.subscriptions.contains(catalog::CALLS_URI)
        };
        if subscribed {
            // A client that went away cannot be notified; the call goes on.
            let _ = context
                .peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(catalog::CALLS_URI))
                .await;
        }
    }

    async fn run_tool(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let name = request.name.as_ref();
        let args = request.arguments.as_ref();
        if name == "echo"
            && self.fault(Fault::RacyEcho)
            && let Some(message) = args.and_then(|a| a.get("message")).and_then(|m| m.as_str())
        {
            return Ok(racy_echo(message).await);
        }
        if name == "echo"
            && self.fault(Fault::SessionState)
            && let Some(message) = args.and_then(|a| a.get("message")).and_then(|m| m.as_str())
        {
            let calls = self.state().calls;
            return Ok(text(format!("{message} #{calls}")));
        }
        let outcome = match name {
            "echo" if self.fault(Fault::InjectedAnswers) => echo(args).map(|r| {
                let said = r
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.clone())
                    .unwrap_or_default();
                text(format!("{said}{}", super::faults::INJECTED_ANSWER))
            }),
            "echo" => echo(args),
            "add" => Args::new(args, &["a", "b"]).and_then(|a| {
                let sum = tools::add(&a.number("a")?, &a.number("b")?)?;
                Ok(text(sum.to_string()))
            }),
            "lorem" => Args::new(args, &["words", "seed"]).and_then(|a| {
                let words = match a.uint("words", 0, tools::LOREM_MAX_WORDS)? {
                    0 => tools::LOREM_DEFAULT_WORDS,
                    n => n,
                };
                Ok(text(tools::lorem(words, &a.string("seed", Some(""))?)))
            }),
            "progress" => self.progress(args, context).await,
            "slow" => match Args::new(args, &["ms"])
                .and_then(|a| a.uint("ms", tools::SLOW_DEFAULT_MS, tools::SLOW_MAX_MS))
            {
                Ok(ms) => sleep_unless_cancelled(ms, &context.ct)
                    .await
                    .map(|()| text(format!("slept {ms} ms"))),
                Err(e) => Err(e),
            },
            "fail" => Args::new(args, &["message"]).and_then(|a| {
                Ok(CallToolResult::error(vec![ContentBlock::text(
                    a.string("message", Some(tools::FAIL_DEFAULT_MESSAGE))?,
                )]))
            }),
            "structured" | "structured_wrong" => Args::new(args, &["city"]).and_then(|a| {
                let city = a.string("city", Some(tools::STRUCTURED_DEFAULT_CITY))?;
                Ok(CallToolResult::structured(if name == "structured" {
                    tools::weather(&city)
                } else {
                    tools::weather_wrong(&city)
                }))
            }),
            "big" => Args::new(args, &["bytes"]).and_then(|a| {
                let bytes = a.uint("bytes", tools::BIG_DEFAULT_BYTES, tools::BIG_MAX_BYTES)?;
                let bytes = usize::try_from(bytes).map_err(|_| ToolError::TooLarge("bytes"))?;
                Ok(text(tools::big(bytes)))
            }),
            "log" => self.log(args, context).await,
            "sample" => sample(args, context).await,
            "elicit" => elicit(args, context).await,
            "roots" => roots(args, context).await,
            "add_tool" => self.add_tool(args, context).await,
            "whoami" => Args::new(args, &[]).map(|_| text(self.identity(context).as_str())),
            super::apps::TOOL => {
                let result = super::apps::App::new(&self.shared.faults).call();
                return serde_json::from_value(result)
                    .map_err(|e| McpError::internal_error(e.to_string(), None));
            }
            super::faults::HIDDEN_TOOL if self.fault(Fault::HiddenTool) => {
                Args::new(args, &["command"]).and_then(|a| {
                    let command = a.string("command", Some(""))?;
                    Ok(text(format!(
                        "{name}: would run `{command}` (the hidden-tool fault runs nothing)"
                    )))
                })
            }
            buggy
                if self.fault(Fault::BuggyTools)
                    && tools::buggy().iter().any(|t| t.name == buggy) =>
            {
                return self.run_buggy(buggy, args, context).await;
            }
            notes if self.notes() && super::notes::is_tool(notes) => {
                super::notes::call(notes, args, self.fault(Fault::NotesDeleteKeeps))
            }
            fixture if super::fixtures::is_tool(fixture) => {
                let min_log_level = self.state().min_log_level;
                super::fixtures_calls::run(fixture, args, context, min_log_level).await
            }
            other if self.state().dynamic_tools.iter().any(|t| t == other) => echo(args),
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ));
            }
        };
        // Invalid arguments are reported as a tool error, which the caller
        // (often a model) can read and correct, as the spec recommends.
        Ok(outcome.unwrap_or_else(|e| e.answer()))
    }

    /// The tools of the `buggy-tools` fault.
    async fn run_buggy(
        &self,
        name: &str,
        args: Option<&rmcp::model::JsonObject>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let outcome = match name {
            "crash_on_empty" => Args::new(args, &["text"]).and_then(|a| {
                let given = a.string("text", None)?;
                if given.is_empty() {
                    eprintln!("mcpcheck serve: crash_on_empty: exiting on an empty text");
                    std::process::exit(CRASH_EXIT_CODE);
                }
                Ok(text(given))
            }),
            "hang_on_negative" => match Args::new(args, &["n"]).and_then(|a| a.number("n")) {
                Ok(n) if n.as_f64().is_some_and(|n| n < 0.0) => {
                    self.hang(&context.ct).await;
                    Ok(text(n.to_string()))
                }
                Ok(n) => Ok(text(n.to_string())),
                Err(e) => Err(e),
            },
            "internal_error" => {
                return Err(McpError::internal_error(
                    "internal_error tool: a planted failure",
                    None,
                ));
            }
            "noisy" => {
                use std::io::Write as _;
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "{}", tools::NOISY_LINE);
                let _ = stdout.flush();
                Ok(text("ok".to_string()))
            }
            _ => Ok(text("deleted nothing".to_string())),
        };
        Ok(outcome.unwrap_or_else(|e| e.answer()))
    }

    async fn progress(
        &self,
        args: Option<&rmcp::model::JsonObject>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ToolError> {
        let a = Args::new(args, &["steps", "delay_ms"])?;
        let steps = a.uint(
            "steps",
            tools::PROGRESS_DEFAULT_STEPS,
            tools::PROGRESS_MAX_STEPS,
        )?;
        let delay = a.uint(
            "delay_ms",
            tools::PROGRESS_DEFAULT_DELAY_MS,
            tools::PROGRESS_MAX_DELAY_MS,
        )?;
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            sleep_unless_cancelled(delay, &context.ct).await?;
            if let Some(token) = &token {
                // Step counts stay far below 2^53, so the f64 is exact.
                let params = ProgressNotificationParam::new(token.clone(), step as f64)
                    .with_total(steps as f64)
                    .with_message(format!("step {step} of {steps}"));
                context
                    .peer
                    .notify_progress(params)
                    .await
                    .map_err(|source| ToolError::Notify {
                        what: "progress",
                        source,
                    })?;
            }
        }
        Ok(text(format!("completed {steps} steps")))
    }

    async fn log(
        &self,
        args: Option<&rmcp::model::JsonObject>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ToolError> {
        let a = Args::new(args, &["level", "message"])?;
        let level = a.string("level", Some("info"))?;
        let message = a.string("message", Some(tools::LOG_DEFAULT_MESSAGE))?;
        let index = level_index(&level).ok_or_else(|| {
            ToolError::invalid("level", format!("one of {}", tools::LOG_LEVELS.join(", ")))
        })?;
        let min = self.state().min_log_level;
        if index < min {
            return Ok(text(format!(
                "suppressed: {level} is below the level set, {}",
                tools::LOG_LEVELS[min]
            )));
        }
        let params = LoggingMessageNotificationParam::new(LOGGING_LEVELS[index], json!(message))
            .with_logger("mcpcheck");
        context
            .peer
            .notify_logging_message(params)
            .await
            .map_err(|source| ToolError::Notify {
                what: "the log message",
                source,
            })?;
        Ok(text(format!("logged at {level}")))
    }

    async fn add_tool(
        &self,
        args: Option<&rmcp::model::JsonObject>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ToolError> {
        let a = Args::new(args, &["name"])?;
        let name = {
            let mut state = self.state();
            let default = format!("dynamic_{}", state.dynamic_tools.len() + 1);
            let name = a.string("name", Some(&default))?;
            if !tools::valid_tool_name(&name) {
                return Err(ToolError::ToolName(name));
            }
            let taken = tools::builtin().iter().any(|t| t.name == name)
                || state.dynamic_tools.contains(&name);
            if taken {
                return Err(ToolError::ToolExists(name));
            }
            state.dynamic_tools.push(name.clone());
            name
        };
        context
            .peer
            .notify_tool_list_changed()
            .await
            .map_err(|source| ToolError::Notify {
                what: "tools/list_changed",
                source,
            })?;
        Ok(text(format!("added tool {name}")))
    }
}

/// rmcp's levels, in the order of [`tools::LOG_LEVELS`].
const LOGGING_LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

fn level_index(name: &str) -> Option<usize> {
    tools::LOG_LEVELS.iter().position(|l| *l == name)
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// `racy-echo`: the message through the process-wide slot, read back after
/// a pause in which another session may overwrite it.
async fn racy_echo(message: &str) -> CallToolResult {
    *RACY_SLOT.lock().unwrap_or_else(|e| e.into_inner()) = message.to_string();
    tokio::time::sleep(RACY_DELAY).await;
    let back = RACY_SLOT.lock().unwrap_or_else(|e| e.into_inner()).clone();
    text(back)
}

fn echo(args: Option<&rmcp::model::JsonObject>) -> Result<CallToolResult, ToolError> {
    let a = Args::new(args, &["message"])?;
    Ok(text(a.string("message", None)?))
}

async fn sleep_unless_cancelled(ms: u64, ct: &CancellationToken) -> Result<(), ToolError> {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(()),
        () = ct.cancelled() => Err(ToolError::Cancelled),
    }
}

/// The client's capabilities, as it declared them in `initialize`.
fn client_capabilities(
    context: &RequestContext<RoleServer>,
) -> Option<rmcp::model::ClientCapabilities> {
    context
        .peer
        .peer_info()
        .map(|info| info.capabilities.clone())
}

/// Runs a request to the client with [`CLIENT_REQUEST_TIMEOUT`].
async fn ask_client<T>(
    what: &'static str,
    request: impl Future<Output = Result<T, rmcp::ServiceError>>,
) -> Result<T, ToolError> {
    match tokio::time::timeout(CLIENT_REQUEST_TIMEOUT, request).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(source)) => Err(ToolError::Client {
            method: what,
            source,
        }),
        Err(_) => Err(ToolError::ClientTimeout {
            method: what,
            secs: CLIENT_REQUEST_TIMEOUT.as_secs(),
        }),
    }
}

async fn sample(
    args: Option<&rmcp::model::JsonObject>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ToolError> {
    let a = Args::new(args, &["prompt"])?;
    let prompt = a.string("prompt", Some(tools::SAMPLE_DEFAULT_PROMPT))?;
    sample_text(context, prompt, tools::SAMPLE_MAX_TOKENS)
        .await
        .map(text)
}

/// Asks the client to sample `prompt` (refused when it did not declare
/// sampling); the answer's text, or its content as JSON when it is not
/// text. Shared by `sample` and the conformance fixture `test_sampling`.
pub(super) async fn sample_text(
    context: &RequestContext<RoleServer>,
    prompt: String,
    max_tokens: u32,
) -> Result<String, ToolError> {
    if client_capabilities(context).is_none_or(|c| c.sampling.is_none()) {
        return Err(ToolError::Undeclared("sampling"));
    }
    let params =
        CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], max_tokens);
    let answer = ask_client(
        "sampling/createMessage",
        context.peer.create_message(params),
    )
    .await?;
    match &answer.message.content {
        SamplingContent::Single(SamplingMessageContentBlock::Text(t)) => Ok(t.text.clone()),
        other => Ok(serde_json::to_string(other)?),
    }
}

async fn elicit(
    args: Option<&rmcp::model::JsonObject>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ToolError> {
    let a = Args::new(args, &["message"])?;
    let message = a.string("message", Some(tools::ELICIT_DEFAULT_MESSAGE))?;
    let requested_schema = ElicitationSchema::builder()
        .required_string("answer")
        .build()
        .map_err(|e| ToolError::Form(e.to_string()))?;
    let answer = elicit_form(context, message, requested_schema).await?;
    let mut shown = json!({ "action": answer.action });
    if let Some(content) = answer.content {
        shown["content"] = content;
    }
    Ok(text(shown.to_string()))
}

/// Asks the client to fill in a form (refused when it did not declare
/// elicitation). Shared by `elicit` and the conformance fixtures' forms.
pub(super) async fn elicit_form(
    context: &RequestContext<RoleServer>,
    message: String,
    requested_schema: ElicitationSchema,
) -> Result<rmcp::model::ElicitResult, ToolError> {
    if client_capabilities(context).is_none_or(|c| c.elicitation.is_none()) {
        return Err(ToolError::Undeclared("elicitation"));
    }
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    };
    ask_client(
        "elicitation/create",
        context.peer.create_elicitation(params),
    )
    .await
}

async fn roots(
    args: Option<&rmcp::model::JsonObject>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ToolError> {
    Args::new(args, &[])?;
    if client_capabilities(context).is_none_or(|c| c.roots.is_none()) {
        return Err(ToolError::Undeclared("roots"));
    }
    let answer = ask_client("roots/list", context.peer.list_roots()).await?;
    let roots = serde_json::to_string(&answer.roots)?;
    Ok(text(roots))
}

fn invalid_cursor(e: catalog::InvalidCursor) -> McpError {
    McpError::invalid_params(e.to_string(), None)
}

fn cursor(request: Option<&PaginatedRequestParams>) -> Option<&str> {
    request.and_then(|r| r.cursor.as_deref())
}

impl ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        if self.fault(Fault::ToolsWithoutCapability) {
            capabilities.tools = None;
        }
        super::extensions::declare(&mut capabilities, &self.shared.faults);
        ServerConfig::new(capabilities)
            .with_protocol_version(NEWEST_REVISION)
            .with_server_info(
                Implementation::new("mcpcheck-serve", env!("CARGO_PKG_VERSION"))
                    .with_title("mcpcheck reference server"),
            )
            .with_instructions(
                "Deterministic reference server of mcpcheck. Every tool, prompt and resource \
                 behaves the same on every run; see the mcpcheck docs (docs/serve.md).",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST_REVISION))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        if self.fault(Fault::HangOnInitialize) {
            self.hang(&context.ct).await;
            return Err(McpError::internal_error(
                "hang-on-initialize fault: the request was held and is now abandoned",
                None,
            ));
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let (tools, next) = catalog::paginate(
            self.tools(),
            cursor(request.as_ref()),
            self.shared.page_size,
        )
        .map_err(invalid_cursor)?;
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next;
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if self.fault(Fault::CrashOnCall) {
            eprintln!("mcpcheck serve: crash-on-call fault: exiting on tools/call");
            std::process::exit(CRASH_EXIT_CODE);
        }
        let started = Instant::now();
        let time = audit::now();
        self.count_call(&context).await;
        let outcome = if self.fault(Fault::HangOnCall) {
            self.hang(&context.ct).await;
            Err(McpError::internal_error(
                "hang-on-call fault: the request was held and is now abandoned",
                None,
            ))
        } else {
            self.run_tool(&request, &context).await
        };
        let outcome = outcome.map(|mut result| {
            if self.fault(Fault::HugeResponse) {
                result
                    .content
                    .push(ContentBlock::text(tools::big(HUGE_RESPONSE_BYTES)));
            }
            result
        });
        if let Some(log) = &self.shared.audit {
            let (response_bytes, is_error) = match &outcome {
                Ok(result) => (
                    serde_json::to_vec(result).map_or(0, |bytes| bytes.len()),
                    result.is_error == Some(true),
                ),
                Err(error) => (
                    serde_json::to_vec(error).map_or(0, |bytes| bytes.len()),
                    true,
                ),
            };
            log.record(&audit::Entry {
                time,
                tool: &request.name,
                args: request.arguments.as_ref(),
                identity: self.identity(&context).as_str(),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                response_bytes,
                is_error,
            });
        }
        outcome.map(CallToolResponse::Complete)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let (prompts, next) = catalog::paginate(
            catalog::prompts(),
            cursor(request.as_ref()),
            self.shared.page_size,
        )
        .map_err(invalid_cursor)?;
        let mut result = ListPromptsResult::with_all_items(prompts);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        match catalog::get_prompt(&request.name, &arguments) {
            Ok((description, messages)) => Ok(GetPromptResponse::Complete(
                GetPromptResult::new(messages).with_description(description),
            )),
            Err(catalog::PromptError::UnknownPrompt(name))
                if self.fault(Fault::PromptNotFoundInternal) =>
            {
                Err(McpError::internal_error(
                    format!("prompt-not-found-internal fault: unknown prompt `{name}`"),
                    None,
                ))
            }
            Err(catalog::PromptError::UnknownPrompt(name)) => Err(McpError::invalid_params(
                format!("unknown prompt `{name}`"),
                None,
            )),
            Err(catalog::PromptError::BadArgument(message)) => {
                Err(McpError::invalid_params(message, None))
            }
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut all = catalog::resources();
        all.extend(super::extensions::resources(&self.shared.faults));
        let (resources, next) =
            catalog::paginate(all, cursor(request.as_ref()), self.shared.page_size)
                .map_err(invalid_cursor)?;
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            catalog::resource_templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let calls = self.state().calls;
        let read = catalog::read(&request.uri, calls)
            .or_else(|| super::extensions::read(&self.shared.faults, &request.uri));
        match read {
            Some(contents) => Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                vec![contents],
            ))),
            None => Err(not_found(&request.uri)),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if !catalog::resource_exists(&request.uri)
            && !super::extensions::exists(&self.shared.faults, &request.uri)
        {
            return Err(not_found(&request.uri));
        }
        self.state().subscriptions.insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.state().subscriptions.remove(&request.uri);
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let reference = match &request.r#ref {
            Reference::Prompt(prompt) => CompletionRef::Prompt(&prompt.name),
            Reference::Resource(resource) => CompletionRef::Resource(&resource.uri),
            _ => {
                return Err(McpError::invalid_params(
                    "unsupported completion reference",
                    None,
                ));
            }
        };
        let values = catalog::complete(reference, &request.argument.name, &request.argument.value)
            .ok_or_else(|| {
                let what = match &request.r#ref {
                    Reference::Prompt(prompt) => format!("prompt `{}`", prompt.name),
                    Reference::Resource(resource) => format!("resource `{}`", resource.uri),
                    _ => request.r#ref.reference_type().to_string(),
                };
                McpError::invalid_params(
                    format!(
                        "nothing to complete for {what}, argument `{}`",
                        request.argument.name
                    ),
                    None,
                )
            })?;
        let completion = CompletionInfo::with_all_values(values)
            .map_err(|e| McpError::internal_error(e, None))?;
        Ok(CompleteResult::new(completion))
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListSkillsResult, McpError> {
        let catalogue = super::skills::Catalogue::new(&self.shared.faults);
        let page = catalogue
            .list(cursor(request.as_ref()), self.shared.page_size)
            .map_err(|why| McpError::invalid_params(why.to_string(), None))?;
        super::skills::typed(page).map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn get_skill(
        &self,
        request: rmcp::model::GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetSkillResult, McpError> {
        let catalogue = super::skills::Catalogue::new(&self.shared.faults);
        match catalogue.get(&request.uri) {
            Ok(found) => super::skills::typed(found)
                .map_err(|e| McpError::internal_error(e.to_string(), None)),
            Err((code, message)) => Err(McpError::new(
                rmcp::model::ErrorCode(code as i32),
                message,
                Some(json!({ "uri": request.uri })),
            )),
        }
    }

    async fn read_resource_directory(
        &self,
        request: rmcp::model::ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceDirectoryResult, McpError> {
        let catalogue = super::skills::Catalogue::new(&self.shared.faults);
        let page = catalogue
            .directory(
                &request.uri,
                request.cursor.as_deref(),
                self.shared.page_size,
            )
            .map_err(|why| {
                McpError::invalid_params(why.to_string(), Some(json!({ "uri": request.uri })))
            })?;
        super::skills::typed(page).map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let index = LOGGING_LEVELS
            .iter()
            .position(|l| *l == request.level)
            .unwrap_or(0);
        self.state().min_log_level = index;
        Ok(())
    }
}

fn not_found(uri: &str) -> McpError {
    McpError::resource_not_found(format!("no resource `{uri}`"), Some(json!({ "uri": uri })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn level_tables_agree() {
        for (i, name) in tools::LOG_LEVELS.iter().enumerate() {
            let rmcp_name = serde_json::to_value(LOGGING_LEVELS[i]).expect("serializes");
            assert_eq!(rmcp_name, Value::String((*name).to_owned()));
            assert_eq!(level_index(name), Some(i));
        }
    }

    #[test]
    fn capabilities_follow_the_faults() {
        let session = |faults: &[Fault]| {
            Session::new(
                Arc::new(Shared {
                    faults: FaultSet::new(faults.iter().copied()),
                    page_size: None,
                    audit: None,
                }),
                None,
                CancellationToken::new(),
            )
        };
        let info = session(&[]).get_info();
        assert!(info.capabilities.tools.is_some());
        assert!(info.capabilities.prompts.is_some());
        assert_eq!(info.protocol_version, NEWEST_REVISION);
        let info = session(&[Fault::ToolsWithoutCapability]).get_info();
        assert!(info.capabilities.tools.is_none());
        assert!(info.capabilities.resources.is_some());
    }
}
