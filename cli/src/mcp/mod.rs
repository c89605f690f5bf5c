//! `mcpcheck mcp`: mcpcheck as an MCP server, for the agents that write MCP
//! servers (`commands/mcp.rs` has its flags; docs/mcp.md describes it).
//!
//! - `catalog` lists the tools: their input and output schemas and honest
//!   annotations;
//! - `calls` does what each tool says, through the functions the commands
//!   of the same purpose call, so the answers are theirs;
//! - `docs` holds the resources (every rule explained, the suite format)
//!   and the prompts;
//! - `allow` is what may be started, reached and read.
//!
//! Here: the rmcp `ServerHandler` that ties them together, and what every
//! call gets — the roots in force (the client's MCP roots when it offers
//! them, else the project directory), progress notifications when the
//! client asks for them, cancellation, and the bounds on time and size. It
//! is served on stdio by rmcp, or on the Streamable HTTP transport of
//! `mcpcheck serve` (`serve::http::serve_handler`).

pub mod allow;
mod calls;
mod catalog;
mod docs;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::mpsc;

use calls::{Call, Outcome, Progress, Step};

/// The newest revision served; older ones down to 2024-11-05 are served too.
const NEWEST_REVISION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// How long the client may take to answer `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

/// What every session of one `mcpcheck mcp` shares.
#[derive(Debug)]
pub struct Shared {
    pub policy: allow::Policy,
    /// How long one tool call may take in all.
    pub call_timeout: Duration,
    /// The largest structured result a tool may return, in bytes.
    pub max_output: usize,
}

/// One client's session.
#[derive(Debug)]
pub struct Server {
    shared: Arc<Shared>,
}

/// Why the client's roots could not be had; the tool call that needs them
/// fails with it.
#[derive(Debug, thiserror::Error)]
pub enum RootsError {
    #[error("the client declared roots but did not answer roots/list within {secs} s")]
    NoAnswer { secs: u64 },
    #[error("the client declared roots but roots/list failed: {0}")]
    Failed(#[source] rmcp::ServiceError),
    #[error(
        "the client's roots name no local directory that exists, so nothing may be read or started; open a folder in the client"
    )]
    NoLocalDirectory,
}

impl Server {
    pub fn new(shared: Arc<Shared>) -> Self {
        Server { shared }
    }

    /// The roots paths and programs must stay inside: the client's, when
    /// it declared the roots capability, else the project directory. The
    /// client is asked on every call that needs them, so a change of its
    /// roots holds from the next call on, whenever its notification
    /// arrives.
    #[expect(
        deprecated,
        reason = "roots are part of every revision served (2024-11-05 to 2025-11-25)"
    )]
    async fn roots(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Vec<PathBuf>, RootsError> {
        let offered = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !offered {
            return Ok(vec![self.shared.policy.root.clone()]);
        }
        let answer = tokio::time::timeout(ROOTS_TIMEOUT, context.peer.list_roots())
            .await
            .map_err(|_| RootsError::NoAnswer {
                secs: ROOTS_TIMEOUT.as_secs(),
            })?
            .map_err(RootsError::Failed)?;
        let roots: Vec<PathBuf> = answer
            .roots
            .iter()
            .filter_map(|r| reqwest::Url::parse(&r.uri).ok())
            .filter(|u| u.scheme() == "file")
            .filter_map(|u| u.to_file_path().ok())
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        if roots.is_empty() {
            return Err(RootsError::NoLocalDirectory);
        }
        Ok(roots)
    }

    /// Runs tool `name`: its structured result, or why it could not.
    async fn run(
        &self,
        name: &str,
        args: Value,
        progress: Progress,
        context: &RequestContext<RoleServer>,
    ) -> Outcome {
        let roots = match name {
            "doctor" | "run_suite" | "generate_tests" | "validate_suite" => {
                self.roots(context).await?
            }
            _ => Vec::new(),
        };
        let call = Call {
            shared: self.shared.clone(),
            roots,
            progress,
        };
        let sync: fn(&Call, Value) -> Outcome = match name {
            "doctor" => return calls::doctor(&call, args).await,
            "run_suite" => return calls::run_suite(&call, args).await,
            "generate_tests" => return calls::generate_tests(&call, args).await,
            "check_response" => |_, args| calls::check_response(args),
            "check_trajectory" => |_, args| calls::check_trajectory(args),
            "lint_listing" => |_, args| calls::lint_listing(args),
            "scan_listing" => |_, args| calls::scan_listing(args),
            "explain_rule" => |_, args| calls::explain_rule(args),
            _ => calls::validate_suite,
        };
        // The tools that only compute (and read files) run off the async
        // workers, so a long one holds up no other session, and the call's
        // time limit answers for it even while it computes.
        tokio::task::spawn_blocking(move || sync(&call, args))
            .await
            .unwrap_or_else(|e| Err(format!("the call failed: {e}").into()))
    }

    /// The result of a call that gave `outcome`: its document as structured
    /// content (and as JSON text), or a tool error saying why there is none.
    fn result(&self, outcome: Outcome) -> CallToolResult {
        match outcome {
            Ok(answer) => {
                let size = answer.text.len();
                if size > self.shared.max_output {
                    return error(format!(
                        "the result is {size} bytes, more than the {} this server returns (--max-output-kb); ask for less (a filter, fewer files) or start mcpcheck mcp with a larger --max-output-kb",
                        self.shared.max_output
                    ));
                }
                let mut result = CallToolResult::structured(answer.value);
                result.content = vec![ContentBlock::text(answer.text)];
                result
            }
            Err(e) => error(e.to_string()),
        }
    }
}

fn error(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_protocol_version(NEWEST_REVISION)
            .with_server_info(
                Implementation::new("mcpcheck", env!("CARGO_PKG_VERSION"))
                    .with_title("mcpcheck"),
            )
            .with_instructions(
                "Deterministic checks of MCP servers. doctor reports on a server with no test file; \
                 run_suite runs a suite of tests; the check, lint and scan tools judge what is \
                 given inline. Every verdict comes from mcpcheck's rules, the same on every run. \
                 The resources explain every rule (mcpcheck://rules/CODE) and the suite format \
                 (mcpcheck://docs/suites).",
            )
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&NEWEST_REVISION))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(catalog::tools()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        catalog::tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if !catalog::NAMES.contains(&name.as_str()) {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{name}`; the tools are {}",
                    catalog::NAMES.join(", ")
                ),
                None,
            ));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let token = context.meta.get_progress_token();
        let (tx, mut rx) = mpsc::unbounded_channel::<Step>();
        let progress = Progress(token.is_some().then_some(tx));
        let limit = self.shared.call_timeout;
        let work = tokio::time::timeout(limit, self.run(&name, args, progress, &context));
        tokio::pin!(work);
        let mut last: Option<f64> = None;
        let notify = async |step: Step, last: &mut Option<f64>| {
            let Some(token) = &token else { return };
            // Progress only ever increases.
            if last.is_some_and(|l| step.done <= l) {
                return;
            }
            *last = Some(step.done);
            let mut params =
                ProgressNotificationParam::new(token.clone(), step.done).with_message(step.message);
            if let Some(total) = step.total {
                params = params.with_total(total);
            }
            // A client that went away cannot be told; the call goes on.
            let _ = context.peer.notify_progress(params).await;
        };
        let outcome = loop {
            tokio::select! {
                done = &mut work => break done,
                Some(step) = rx.recv() => notify(step, &mut last).await,
                () = context.ct.cancelled() => {
                    // The work is dropped here, which stops it and every
                    // server it started; rmcp sends nothing for a cancelled
                    // request.
                    return Err(McpError::internal_error("the request was cancelled", None));
                }
            }
        };
        // Progress sent before the answer, never after it.
        while let Ok(step) = rx.try_recv() {
            notify(step, &mut last).await;
        }
        let outcome = outcome.unwrap_or_else(|_| {
            Err(format!(
                "stopped after {} (--call-timeout): not finished, so not verified; ask for less (doctor's part_timeout, run_suite's filter) or start mcpcheck mcp with a longer --call-timeout",
                crate::output::duration_text(limit)
            )
            .into())
        });
        Ok(CallToolResponse::Complete(self.result(outcome)))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(docs::resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            docs::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match docs::read(&request.uri) {
            Some(contents) => Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                vec![contents],
            ))),
            None => Err(McpError::resource_not_found(
                format!(
                    "no resource `{}`; {} lists the rules, {} is the suite format",
                    request.uri,
                    docs::RULES_URI,
                    docs::SUITES_URI
                ),
                Some(serde_json::json!({"uri": request.uri})),
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(docs::prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        match docs::get_prompt(&request.name, &arguments) {
            Ok((description, messages)) => Ok(GetPromptResponse::Complete(
                GetPromptResult::new(messages).with_description(description),
            )),
            Err(docs::PromptError::Unknown(name)) => Err(McpError::invalid_params(
                format!("unknown prompt `{name}`"),
                None,
            )),
            Err(docs::PromptError::Missing(argument)) => Err(McpError::invalid_params(
                format!("prompt `{}` needs the argument `{argument}`", request.name),
                None,
            )),
        }
    }
}
