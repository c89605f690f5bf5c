//! The conformance fixture tools that do more than return fixed content
//! (`fixtures.rs` holds their data): logging and progress during the call,
//! sampling and elicitation requests to the client.
#![expect(
    deprecated,
    reason = "logging and sampling belong to the revisions the fixtures serve"
)]

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, ContentBlock, ElicitationSchema, JsonObject, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam,
};
use rmcp::service::RequestContext;
use serde_json::json;

use super::fixtures;
use super::handler::{elicit_form, sample_text};
use super::tools::{self, Args, ToolError};

/// Runs fixture tool `name` (one for which [`fixtures::is_tool`] holds).
/// `min_log_level` is the session's `logging/setLevel` as an index into
/// [`tools::LOG_LEVELS`]. `Err` is a message for a tool error.
pub async fn run(
    name: &str,
    args: Option<&JsonObject>,
    context: &RequestContext<RoleServer>,
    min_log_level: usize,
) -> Result<CallToolResult, ToolError> {
    match name {
        "test_sampling" => sampling(args, context).await,
        "test_elicitation" => {
            let message = Args::new(args, &["message"])?.string("message", None)?;
            let answer = elicit(name, message, context).await?;
            Ok(text(format!("User response: {answer}")))
        }
        "test_elicitation_sep1034_defaults" | "test_elicitation_sep1330_enums" => {
            Args::new(args, &[])?;
            let message = fixtures::elicitation_message(name).to_owned();
            let answer = elicit(name, message, context).await?;
            Ok(text(format!("Elicitation completed: {answer}")))
        }
        fixtures::JSON_SCHEMA_TOOL => Ok(text(fixtures::contact(args)?)),
        _ => {
            Args::new(args, &[])?;
            match name {
                "test_tool_with_logging" => logging(context, min_log_level).await,
                "test_tool_with_progress" => progress(context).await,
                "test_reconnection" => {
                    pause(2 * fixtures::STEP_DELAY_MS, context).await?;
                    Ok(text(
                        "Reconnection test completed: the result reached the client.",
                    ))
                }
                other => fixtures::fixed_result(other)
                    .ok_or_else(|| ToolError::NotFixture(other.to_owned())),
            }
        }
    }
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

async fn pause(ms: u64, context: &RequestContext<RoleServer>) -> Result<(), ToolError> {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(()),
        () = context.ct.cancelled() => Err(ToolError::Cancelled),
    }
}

/// Three `info` messages, [`fixtures::STEP_DELAY_MS`] apart, unless the
/// session set a level above `info`.
async fn logging(
    context: &RequestContext<RoleServer>,
    min_log_level: usize,
) -> Result<CallToolResult, ToolError> {
    let info = tools::LOG_LEVELS
        .iter()
        .position(|l| *l == "info")
        .unwrap_or(1);
    if info < min_log_level {
        return Ok(text(format!(
            "suppressed: info is below the level set, {}",
            tools::LOG_LEVELS
                .get(min_log_level)
                .copied()
                .unwrap_or("emergency")
        )));
    }
    for (i, message) in fixtures::LOG_MESSAGES.iter().enumerate() {
        if i > 0 {
            pause(fixtures::STEP_DELAY_MS, context).await?;
        }
        let params = LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(message))
            .with_logger("mcpcheck");
        context
            .peer
            .notify_logging_message(params)
            .await
            .map_err(|source| ToolError::Notify {
                what: "the log message",
                source,
            })?;
    }
    Ok(text(format!(
        "sent {} log messages at info",
        fixtures::LOG_MESSAGES.len()
    )))
}

/// Progress 0, 50 and 100 of 100 when the request has a progress token;
/// the same pauses without one.
async fn progress(context: &RequestContext<RoleServer>) -> Result<CallToolResult, ToolError> {
    let token = context.meta.get_progress_token();
    for (i, step) in fixtures::PROGRESS_STEPS.iter().enumerate() {
        if i > 0 {
            pause(fixtures::STEP_DELAY_MS, context).await?;
        }
        if let Some(token) = &token {
            let params =
                ProgressNotificationParam::new(token.clone(), f64::from(*step)).with_total(100.0);
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
    Ok(text(if token.is_some() {
        "completed, reporting progress 0, 50 and 100 of 100"
    } else {
        "completed (no progressToken, so no progress was reported)"
    }))
}

async fn sampling(
    args: Option<&JsonObject>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ToolError> {
    let prompt = Args::new(args, &["prompt"])?.string("prompt", None)?;
    let answer = sample_text(context, prompt, fixtures::SAMPLING_MAX_TOKENS).await?;
    Ok(text(format!("LLM response: {answer}")))
}

/// Sends the form of fixture `tool` and describes the answer as
/// `action=ACTION, content=JSON`.
async fn elicit(
    tool: &str,
    message: String,
    context: &RequestContext<RoleServer>,
) -> Result<String, ToolError> {
    let schema =
        fixtures::elicitation_schema(tool).ok_or_else(|| ToolError::NoForm(tool.to_owned()))?;
    let requested_schema: ElicitationSchema =
        serde_json::from_value(schema).map_err(|e| ToolError::Form(e.to_string()))?;
    let answer = elicit_form(context, message, requested_schema).await?;
    let action = serde_json::to_value(&answer.action)?;
    let action = action.as_str().unwrap_or_default().to_owned();
    let content = answer.content.unwrap_or_else(|| json!({}));
    Ok(format!("action={action}, content={content}"))
}
