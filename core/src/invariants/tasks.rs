//! The tasks extension (INV-100 … INV-105; `io.modelcontextprotocol/tasks`,
//! SEP-2663): what a server sends about tasks, judged per session.
//!
//! A task shows itself three ways: the `CreateTaskResult` of a `tools/call`
//! (a result with `resultType: "task"`, or one with a `taskId` and a
//! `status`), the answers to `tasks/get`, and `notifications/tasks` on a
//! `subscriptions/listen` stream. The lifecycle (INV-102) is followed on
//! each channel apart: the requests' answers in exchange order, and each
//! stream's notifications in arrival order, since a capture does not tell
//! when a stream's notification arrived relative to other exchanges.

use std::collections::HashMap;

use serde_json::Value;

use super::Sink;
use super::json;
use super::rules::Rule;
use super::session::SessionCtx;
use crate::capture::Message;

/// The extension's identifier.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";
const STATUSES: [&str; 5] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];
const METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

fn terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// Whether capabilities declare the extension.
pub(crate) fn declares(caps: &Value) -> bool {
    caps.get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// The `resultType` of a result, when it is a string.
fn result_type(result: &Value) -> Option<&str> {
    result.get("resultType").and_then(Value::as_str)
}

/// Whether a result is shaped as a task handle: `resultType: "task"`, or a
/// `taskId` and a `status`.
fn is_handle(result: &Value) -> bool {
    result_type(result) == Some("task")
        || (result.get("taskId").is_some_and(Value::is_string)
            && result.get("status").is_some_and(Value::is_string))
}

fn str_of<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The status changes of one task on one channel: (exchange, status).
type Trail = Vec<(Option<usize>, String)>;

/// INV-100 … INV-105 over one session.
pub(crate) fn tasks(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    // The extension is negotiated per request, from 2026-07-28; the tasks of
    // 2025-11-25 are another design, judged by the schema family.
    if !ctx.stateless {
        return;
    }
    // Per task: the statuses the requests' answers reported, in exchange order.
    let mut answered: HashMap<String, Trail> = HashMap::new();
    let mut streams: Vec<HashMap<String, Trail>> = Vec::new();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        if !request.is_request() {
            continue;
        }
        let method = request.method_str();
        let at = Some(index);
        if method == "subscriptions/listen" {
            let mut trails: HashMap<String, Trail> = HashMap::new();
            listen_stream(ctx, index, exchange.notifications(), &mut trails, out);
            streams.push(trails);
            continue;
        }
        let declared = || declares(&ctx.client_caps_for(at));
        let Some(response) = &exchange.response else {
            continue;
        };
        if METHODS.contains(&method.as_ref()) && !declared() && response.error().is_none() {
            out.push(
                Rule::TaskUndeclared,
                at,
                format!("{method} was answered with a result, though the request did not declare {EXTENSION} (-32021 expected)"),
            );
        }
        let Some(result) = response.result().and_then(json::to_value) else {
            continue;
        };
        let handle = is_handle(&result);
        if method == "tools/call" && handle {
            if !declared() {
                out.push(
                    Rule::TaskUndeclared,
                    at,
                    format!("tools/call was answered with a CreateTaskResult (task {}), though the request did not declare {EXTENSION}", str_of(&result, "taskId")),
                );
            }
            if result_type(&result) != Some("task") {
                out.push(
                    Rule::TaskResultType,
                    at,
                    format!(
                        "the CreateTaskResult of task {} has resultType {}, not \"task\"",
                        str_of(&result, "taskId"),
                        shown(result.get("resultType"))
                    ),
                );
            }
            for inlined in ["result", "error", "inputRequests"] {
                if result.get(inlined).is_some() {
                    out.push(
                        Rule::TaskTerminal,
                        at,
                        format!("the CreateTaskResult of task {} carries `{inlined}`, which only tasks/get may inline", str_of(&result, "taskId")),
                    );
                }
            }
            task_fields(&result, at, "the CreateTaskResult", out);
            note(&mut answered, &result, at);
        } else if result_type(&result) == Some("task") {
            out.push(
                Rule::TaskResultType,
                at,
                format!("the result of {method} has resultType \"task\", which only a tools/call CreateTaskResult may carry"),
            );
        }
        if METHODS.contains(&method.as_ref()) {
            if result_type(&result).is_some_and(|t| t != "complete") {
                out.push(
                    Rule::TaskResultType,
                    at,
                    format!(
                        "the result of {method} has resultType {}, not \"complete\"",
                        shown(result.get("resultType"))
                    ),
                );
            }
            if method == "tasks/get" {
                let asked = request
                    .params()
                    .and_then(|p| json::member(p, "taskId"))
                    .and_then(json::as_str);
                detailed(&result, at, "the tasks/get result", out);
                if let Some(asked) = asked.filter(|a| a != str_of(&result, "taskId")) {
                    out.push(
                        Rule::TaskTerminal,
                        at,
                        format!(
                            "tasks/get for task {asked} answered about task {}",
                            str_of(&result, "taskId")
                        ),
                    );
                }
                note(&mut answered, &result, at);
            } else {
                let fields: Vec<&str> = ["taskId", "status", "result", "error", "inputRequests"]
                    .into_iter()
                    .filter(|f| result.get(*f).is_some())
                    .collect();
                if !fields.is_empty() {
                    out.push(
                        Rule::TaskResultType,
                        at,
                        format!("the {method} acknowledgment carries task fields ({}); it is an empty result", fields.join(", ")),
                    );
                }
            }
        }
    }
    lifecycle(&answered, "the answers to tools/call and tasks/get", out);
    for trails in &streams {
        lifecycle(trails, "the notifications/tasks of one listen stream", out);
    }
}

/// The value as findings quote it: `"complete"`, or `absent`.
fn shown(value: Option<&Value>) -> String {
    value.map_or_else(
        || "absent".to_string(),
        |v| json::snippet(&v.to_string(), 40),
    )
}

/// Records a task's status seen at `at`.
fn note(trails: &mut HashMap<String, Trail>, task: &Value, at: Option<usize>) {
    let (Some(id), Some(status)) = (
        task.get("taskId").and_then(Value::as_str),
        task.get("status").and_then(Value::as_str),
    ) else {
        return;
    };
    trails
        .entry(id.to_string())
        .or_default()
        .push((at, status.to_string()));
}

/// The notifications of one `subscriptions/listen` exchange: INV-104 when it
/// asked for tasks, and each `notifications/tasks` judged as a task.
fn listen_stream(
    ctx: &SessionCtx<'_, '_>,
    index: usize,
    notes: &[Message<'_>],
    trails: &mut HashMap<String, Trail>,
    out: &mut Sink,
) {
    let at = Some(index);
    let asked_tasks = ctx.session.exchanges[index]
        .request
        .params()
        .and_then(|p| json::path(p, &["notifications", "taskIds"]))
        .is_some_and(|ids| json::elements(ids).is_some_and(|e| !e.is_empty()));
    for note_message in notes {
        let method = note_message.method_str();
        if asked_tasks
            && matches!(
                method.as_ref(),
                "notifications/progress" | "notifications/message"
            )
        {
            out.push(
                Rule::TaskStream,
                at,
                format!(
                    "the listen stream for tasks carries {method}, which must not be sent on it"
                ),
            );
        }
        if method == "notifications/tasks"
            && let Some(params) = note_message.params().and_then(json::to_value)
        {
            detailed(&params, at, "a notifications/tasks", out);
            note(trails, &params, at);
        }
    }
}

/// INV-105 on the fields every shape of a task carries.
fn task_fields(task: &Value, at: Option<usize>, what: &str, out: &mut Sink) {
    let id = str_of(task, "taskId");
    let ttl = task.get("ttlMs");
    let positive = |v: &Value| v.as_u64().is_some_and(|n| n > 0);
    let ttl_ok = match ttl {
        None => true,
        Some(Value::Null) => true,
        Some(v) => positive(v),
    };
    if !ttl_ok {
        out.push(
            Rule::TaskPollInterval,
            at,
            format!(
                "{what} of task {id} has ttlMs {}, not null or a positive integer",
                shown(ttl)
            ),
        );
    }
    if let Some(poll) = task.get("pollIntervalMs") {
        if !positive(poll) {
            out.push(
                Rule::TaskPollInterval,
                at,
                format!(
                    "{what} of task {id} has pollIntervalMs {}, not a positive integer",
                    shown(Some(poll))
                ),
            );
        } else if let (Some(p), Some(t)) = (poll.as_u64(), ttl.and_then(Value::as_u64))
            && p > t
        {
            out.push(
                Rule::TaskPollInterval,
                at,
                format!("{what} of task {id} asks to be polled every {p} ms, after its time to live ({t} ms) has passed"),
            );
        }
    }
    for legacy in ["ttl", "pollInterval"] {
        if task.get(legacy).is_some() {
            out.push(
                Rule::TaskPollInterval,
                at,
                format!("{what} of task {id} carries the superseded `{legacy}`; the field is `{legacy}Ms`"),
            );
        }
    }
}

/// INV-103 and INV-105 on a task as `tasks/get` or a notification shows it.
fn detailed(task: &Value, at: Option<usize>, what: &str, out: &mut Sink) {
    let id = str_of(task, "taskId");
    let status = str_of(task, "status");
    task_fields(task, at, what, out);
    let has = |key: &str| task.get(key).is_some_and(|v| !v.is_null());
    let problem = match status {
        "completed" if !task.get("result").is_some_and(Value::is_object) => {
            Some("is completed without its `result`".to_string())
        }
        "failed"
            if !task.get("error").is_some_and(|e| {
                e.get("code").is_some_and(Value::is_i64)
                    && e.get("message").is_some_and(Value::is_string)
            }) =>
        {
            Some("has failed without its JSON-RPC `error` (code and message)".to_string())
        }
        "failed" if has("result") => Some("has failed yet carries a `result`".to_string()),
        "input_required"
            if task
                .get("inputRequests")
                .and_then(Value::as_object)
                .is_none_or(serde_json::Map::is_empty) =>
        {
            Some("waits for input without its `inputRequests`".to_string())
        }
        "working" | "cancelled" if has("result") || has("error") => {
            Some(format!("is {status} yet carries a `result` or an `error`"))
        }
        _ => None,
    };
    if let Some(problem) = problem {
        out.push(
            Rule::TaskTerminal,
            at,
            format!("in {what}, task {id} {problem}"),
        );
    }
}

/// INV-102 on the trails of one channel.
fn lifecycle(trails: &HashMap<String, Trail>, channel: &str, out: &mut Sink) {
    let mut ids: Vec<&String> = trails.keys().collect();
    ids.sort();
    for id in ids {
        let mut ended: Option<&str> = None;
        for (at, status) in &trails[id] {
            if !STATUSES.contains(&status.as_str()) {
                out.push(
                    Rule::TaskLifecycle,
                    *at,
                    format!(
                        "task {id} has status {}, which is none of {}",
                        json::snippet(status, 40),
                        STATUSES.join(", ")
                    ),
                );
                continue;
            }
            match ended {
                Some(last) if last != status.as_str() => {
                    out.push(
                        Rule::TaskLifecycle,
                        *at,
                        format!("task {id} was {last}, a terminal status, and later {status} in {channel}"),
                    );
                }
                _ => {}
            }
            if terminal(status) && ended.is_none() {
                ended = Some(status);
            }
        }
    }
}

/// The rules the session gave something to judge: INV-100 any task handle
/// or `tasks/*` answer; the shape and lifecycle rules a task seen (a handle,
/// a `tasks/get` result, a notification); INV-104 a stream that asked for
/// tasks.
pub(crate) fn exercised(ctx: &SessionCtx<'_, '_>, rules: &mut Vec<Rule>) {
    if !ctx.stateless {
        return;
    }
    let mut task_seen = false;
    let mut asked = false;
    let mut stream = false;
    for exchange in &ctx.session.exchanges {
        let method = exchange.request.method_str();
        let result = exchange
            .response
            .as_ref()
            .and_then(|r| r.result())
            .and_then(json::to_value);
        asked |= METHODS.contains(&method.as_ref()) && exchange.response.is_some();
        if method == "subscriptions/listen"
            && exchange
                .request
                .params()
                .and_then(|p| json::path(p, &["notifications", "taskIds"]))
                .is_some()
        {
            stream = true;
            task_seen |= exchange
                .notifications()
                .iter()
                .any(|n| n.method_is("notifications/tasks"));
        }
        task_seen |= match method.as_ref() {
            "tools/call" => result.as_ref().is_some_and(is_handle),
            "tasks/get" => result.is_some(),
            _ => false,
        };
    }
    if task_seen || asked {
        rules.push(Rule::TaskUndeclared);
    }
    if task_seen {
        rules.extend([
            Rule::TaskResultType,
            Rule::TaskLifecycle,
            Rule::TaskTerminal,
            Rule::TaskPollInterval,
        ]);
    }
    if stream {
        rules.push(Rule::TaskStream);
    }
}
