//! The extensions' methods in the 2026-07-28 era, answered by the modern
//! front itself: `tasks/get`, `tasks/update`, `tasks/cancel` (SEP-2663,
//! only for a request that declares the tasks extension), `skills/list`,
//! `skills/get` and `resources/directory/read` (SEP-2640), the task tools'
//! `tools/call`, and the `taskIds` of a `subscriptions/listen` stream.

use std::collections::{HashSet, VecDeque};

use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

use super::super::faults::Fault;
use super::super::skills::Catalogue;
use super::super::tasks::{self, Call};
use super::{
    Envelope, INVALID_PARAMS, META_SUBSCRIPTION, MISSING_CAPABILITY, Modern, Refusal, Reply,
};

/// The methods of this file.
pub(super) const METHODS: [&str; 6] = [
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// The task notifications a listen stream asked for.
#[derive(Debug)]
pub struct TaskFeed {
    ids: HashSet<String>,
    /// Each agreed task as it was when the stream opened, sent first.
    current: VecDeque<Value>,
    updates: broadcast::Receiver<Value>,
    /// The `task-stream-progress` fault: progress and a log message too.
    noisy: bool,
    sent: u64,
}

fn string_param<'p>(params: &'p Map<String, Value>, key: &str) -> Result<&'p str, Refusal> {
    params.get(key).and_then(Value::as_str).ok_or_else(|| {
        Refusal::new(
            INVALID_PARAMS,
            format!("params.{key} is required, a string"),
        )
    })
}

impl Modern {
    /// Answers one of [`METHODS`]: the result (without `resultType`), or
    /// the refusal.
    pub(super) async fn extension(
        &self,
        method: &str,
        params: &Map<String, Value>,
        envelope: &Envelope,
    ) -> Result<Value, Refusal> {
        if method.starts_with("tasks/") && !tasks::declared(&envelope.capabilities) {
            return Err(Refusal::new(
                MISSING_CAPABILITY,
                format!(
                    "{method} needs the client capability extensions[\"{}\"], which the request's _meta does not declare",
                    tasks::EXTENSION
                ),
            )
            .with_data(json!({ "requiredCapabilities": tasks::required() })));
        }
        let unknown = |tasks::Unknown(why)| Refusal::new(INVALID_PARAMS, why);
        let cursor = params.get("cursor").and_then(Value::as_str);
        let catalogue = || Catalogue::new(&self.shared.faults);
        match method {
            "tasks/get" => self
                .tasks
                .get(string_param(params, "taskId")?)
                .map_err(unknown),
            "tasks/update" => {
                let id = string_param(params, "taskId")?;
                let Some(Value::Object(responses)) = params.get("inputResponses") else {
                    return Err(Refusal::new(
                        INVALID_PARAMS,
                        "params.inputResponses is required, an object of answers by input request key",
                    ));
                };
                self.tasks.update(id, responses).map_err(unknown)?;
                Ok(json!({}))
            }
            "tasks/cancel" => {
                self.tasks
                    .cancel(string_param(params, "taskId")?)
                    .map_err(unknown)?;
                Ok(json!({}))
            }
            "skills/list" => {
                let mut page = catalogue()
                    .list(cursor, self.shared.page_size)
                    .map_err(|why| Refusal::new(INVALID_PARAMS, why.to_string()))?;
                self.cache_hints(&mut page);
                Ok(page)
            }
            "skills/get" => {
                let uri = string_param(params, "uri")?;
                let mut found = catalogue().get(uri).map_err(|(code, why)| {
                    Refusal::new(code, why).with_data(json!({ "uri": uri }))
                })?;
                self.cache_hints(&mut found);
                Ok(found)
            }
            "resources/directory/read" => {
                let uri = string_param(params, "uri")?;
                let mut page = catalogue()
                    .directory(uri, cursor, self.shared.page_size)
                    .map_err(|why| {
                        Refusal::new(INVALID_PARAMS, why.to_string())
                            .with_data(json!({ "uri": uri }))
                    })?;
                self.cache_hints(&mut page);
                Ok(page)
            }
            other => Err(Refusal::new(
                super::METHOD_NOT_FOUND,
                format!("method `{other}` is not served"),
            )),
        }
    }

    /// A `tools/call` of a task tool.
    pub(super) async fn task_call(
        &self,
        id: &Value,
        params: &Map<String, Value>,
        envelope: &Envelope,
        binding: &str,
        answers: &Map<String, Value>,
    ) -> Reply {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
        let declared = tasks::declared(&envelope.capabilities);
        match self.tasks.call(name, &arguments, declared, answers).await {
            Call::Complete(result) => self.complete(id, "tools/call", result, Vec::new(), envelope),
            // A task handle is no complete result: its resultType is its own.
            // It names the server in `_meta` as every result does.
            Call::Task(mut created) => {
                self.stamp(&mut created, envelope);
                Reply {
                    status: 200,
                    messages: vec![json!({ "jsonrpc": "2.0", "id": id, "result": created })],
                }
            }
            Call::Ask(asked) => self.input_required(id, asked, binding, answers, envelope),
            Call::Missing(needed) => self.missing(id, needed),
            Call::Error(code, message) => {
                let status = super::status_of(code);
                self.refuse(id, Refusal::new(code, message), status)
            }
        }
    }

    /// The `taskIds` a listen stream asks for: refused without the tasks
    /// extension; agreed to for the tasks this server holds.
    pub(super) fn task_feed(
        &self,
        asked: &Map<String, Value>,
        envelope: &Envelope,
    ) -> Result<Option<(Vec<String>, TaskFeed)>, Refusal> {
        let Some(wanted) = asked.get("taskIds") else {
            return Ok(None);
        };
        let Some(wanted) = wanted.as_array() else {
            return Err(Refusal::new(
                INVALID_PARAMS,
                "notifications.taskIds must be an array of task ids",
            ));
        };
        if !tasks::declared(&envelope.capabilities) {
            return Err(Refusal::new(
                MISSING_CAPABILITY,
                format!(
                    "task notifications need the client capability extensions[\"{}\"]",
                    tasks::EXTENSION
                ),
            )
            .with_data(json!({ "requiredCapabilities": tasks::required() })));
        }
        let mut agreed: Vec<String> = Vec::new();
        let mut current = VecDeque::new();
        for id in wanted.iter().filter_map(Value::as_str) {
            if let Some(task) = self
                .tasks
                .snapshot(id)
                .filter(|_| !agreed.iter().any(|a| a == id))
            {
                agreed.push(id.to_owned());
                current.push_back(task);
            }
        }
        let feed = TaskFeed {
            ids: agreed.iter().cloned().collect(),
            current,
            updates: self.tasks.subscribe(),
            noisy: self.fault(Fault::TaskStreamProgress),
            sent: 0,
        };
        Ok(Some((agreed, feed)))
    }
}

/// The next notifications of a task feed for the stream `subscription`:
/// `None` once the server stops; never, for a stream without one.
pub(super) async fn next_task(
    feed: Option<&mut TaskFeed>,
    subscription: &Value,
) -> Option<VecDeque<Value>> {
    let Some(feed) = feed else {
        return std::future::pending().await;
    };
    loop {
        let mut update = match feed.current.pop_front() {
            Some(now) => now,
            None => match feed.updates.recv().await {
                Ok(update) => update,
                // Updates missed by a slow reader are past; the next one tells
                // the task's state in full.
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            },
        };
        let Some(task_id) = update
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            continue;
        };
        if !feed.ids.contains(&task_id) {
            continue;
        }
        let meta = json!({ META_SUBSCRIPTION: subscription });
        update["_meta"] = meta.clone();
        let mut out = VecDeque::new();
        out.push_back(
            json!({ "jsonrpc": "2.0", "method": "notifications/tasks", "params": update }),
        );
        if feed.noisy {
            feed.sent += 1;
            out.push_back(json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": { "progressToken": task_id, "progress": feed.sent, "_meta": meta },
            }));
            out.push_back(json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {
                    "level": "info",
                    "logger": "mcpcheck",
                    "data": format!("task {task_id} changed"),
                    "_meta": meta,
                },
            }));
        }
        return Some(out);
    }
}
