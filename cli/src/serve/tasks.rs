//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), served
//! in the 2026-07-28 era: a `tools/call` of a task tool from a request that
//! declares the extension is answered with a `CreateTaskResult`, and the
//! work goes on in the background; `tasks/get` reports it, `tasks/update`
//! answers its input requests, `tasks/cancel` stops it, and every change of
//! status goes out as `notifications/tasks` to the `subscriptions/listen`
//! streams that asked for the task.
//!
//! The tools are the fixed names the official conformance suite calls
//! (docs/extensions.md lists them). The store lives as long as the process;
//! a task is kept for its `ttlMs` and at most [`MAX_TASKS`] are held, the
//! oldest finished ones given up first. Task ids are random UUIDs: a task id
//! is all a caller needs to read a task, so it must not be guessable.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::faults::{Fault, FaultSet};

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// How long a task is kept after it is created.
pub const TTL_MS: u64 = 3_600_000;
/// How often a client should poll.
pub const POLL_INTERVAL_MS: u64 = 250;
/// The longest `slow_compute` runs.
const MAX_SECONDS: u64 = 300;
/// The most tasks held at once.
pub const MAX_TASKS: usize = 10_000;
/// How long `failing_job` and `protocol_error_job` work before they end.
const JOB_MS: u64 = 300;
/// How long a task works before it asks for input, and after its last
/// answer before it completes.
const STEP_MS: u64 = 20;

/// Whether client capabilities (a request's `_meta` ones) declare the
/// extension.
pub fn declared(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// The `requiredCapabilities` of a -32021 refusal for want of the extension.
pub fn required() -> Value {
    json!({ "extensions": { EXTENSION: {} } })
}

/// A task's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// What a task does once its input is in.
#[derive(Debug, Clone)]
enum Work {
    /// `slow_compute`: nothing to ask; the result is ready at the start.
    Done(Value),
    /// `confirm_delete`: one confirmation.
    Confirm { filename: String },
    /// `multi_input`: two answers, asked at once.
    TwoInputs,
}

#[derive(Debug)]
struct Task {
    id: String,
    status: Status,
    message: Option<String>,
    born: Instant,
    created: String,
    updated: String,
    result: Option<Value>,
    error: Option<Value>,
    /// The input requests not answered yet, by key.
    pending: Map<String, Value>,
    /// The answers given so far, by key.
    answers: Map<String, Value>,
    /// Every key ever asked (keys are never reused within a task).
    asked: Vec<String>,
    work: Work,
    stop: CancellationToken,
    /// tasks/get answers given, for the `task-illegal-transition` fault.
    reads: u64,
}

/// The faults this module commits.
#[derive(Debug, Clone, Copy)]
struct Faults {
    without_extension: bool,
    result_type: bool,
    illegal_transition: bool,
    hidden_result: bool,
    poll_interval: bool,
}

#[derive(Debug, Default)]
struct Store {
    tasks: HashMap<String, Task>,
    /// Ids in creation order.
    order: VecDeque<String>,
}

/// Every task of the process.
#[derive(Debug)]
pub struct Tasks {
    store: Mutex<Store>,
    /// Each change of a task, as the params of `notifications/tasks`.
    updates: broadcast::Sender<Value>,
    faults: Faults,
}

/// How a `tools/call` of a task tool is answered.
#[derive(Debug)]
pub enum Call {
    /// A plain tool result (without `resultType`).
    Complete(Value),
    /// A `CreateTaskResult`, complete.
    Task(Value),
    /// Input requests by key, before any task exists (an `InputRequiredResult`).
    Ask(Vec<(String, Value)>),
    /// The client lacks these capabilities: a -32021 refusal.
    Missing(Value),
    /// A JSON-RPC error: code and message.
    Error(i64, String),
}

/// Why a `tasks/*` request is refused: -32602 with this message.
#[derive(Debug, PartialEq, Eq)]
pub struct Unknown(pub String);

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn text(text: impl Into<String>, error: bool) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }], "isError": error })
}

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": kind } },
                "required": [field],
            },
        },
    })
}

/// The tools of the extension, as tools/list shows them (2026-07-28 only).
pub fn tools() -> Vec<Value> {
    let tool = |name: &str, description: &str, properties: Value, required: &[&str]| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": { "type": "object", "properties": properties, "required": required },
        })
    };
    // They change nothing: a client (`mcpcheck conformance`) may call them.
    let read_only = |mut tool: Value| {
        tool["annotations"] = json!({ "readOnlyHint": true });
        tool
    };
    vec![
        read_only(tool(
            "greet",
            "Answers `Hello, NAME!` at once; never a task.",
            json!({ "name": { "type": "string", "description": "Who to greet, e.g. `Ada`." } }),
            &["name"],
        )),
        read_only(tool(
            "slow_compute",
            "Works `seconds` seconds (0 to 300), then answers `computed LABEL in Ns`. A task when the request declares io.modelcontextprotocol/tasks; cancelled by tasks/cancel.",
            json!({
                "seconds": { "type": "integer", "minimum": 0, "maximum": MAX_SECONDS, "default": 0, "description": "How long to work, in seconds; 0 (the default) answers at once." },
                "label": { "type": "string", "default": "result", "description": "The word the answer names what it computed with; `result` when left out." },
            }),
            &[],
        )),
        read_only(tool(
            "failing_job",
            "Needs the tasks extension (-32021 without it): a task that completes with a tool error (isError: true).",
            json!({}),
            &[],
        )),
        read_only(tool(
            "protocol_error_job",
            "A task that fails with the JSON-RPC error -32603 (without the tasks extension, that error at once).",
            json!({}),
            &[],
        )),
        tool(
            "confirm_delete",
            "A task that asks to confirm deleting `filename` (one elicitation, through tasks/get and tasks/update); deletes nothing.",
            json!({ "filename": { "type": "string", "description": "The file the confirmation asks about, e.g. `notes.txt`; `file.txt` when left out. Nothing is deleted." } }),
            &[],
        ),
        tool(
            "multi_input",
            "A task that asks two questions at once; it completes once both are answered.",
            json!({}),
            &[],
        ),
        tool(
            "test_tool_with_task",
            "Needs the tasks extension: asks `user_name` first (an InputRequiredResult), then answers with a task that says `Hello, NAME!`.",
            json!({}),
            &[],
        ),
    ]
}

/// Whether `name` is one of this module's tools.
pub fn is_tool(name: &str) -> bool {
    matches!(
        name,
        "greet"
            | "slow_compute"
            | "failing_job"
            | "protocol_error_job"
            | "confirm_delete"
            | "multi_input"
            | "test_tool_with_task"
    )
}

/// An elicitation answer's content member `field`, as text.
fn answered(answer: Option<&Value>, field: &str) -> Option<String> {
    let value = answer?.get("content")?.get(field)?;
    Some(match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

impl Tasks {
    pub fn new(faults: &FaultSet) -> Arc<Self> {
        let (updates, _) = broadcast::channel(256);
        Arc::new(Self {
            store: Mutex::new(Store::default()),
            updates,
            faults: Faults {
                without_extension: faults.has(Fault::TaskWithoutExtension),
                result_type: faults.has(Fault::TaskResultType),
                illegal_transition: faults.has(Fault::TaskIllegalTransition),
                hidden_result: faults.has(Fault::TaskHiddenResult),
                poll_interval: faults.has(Fault::TaskPollInterval),
            },
        })
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        // Plain data changed in single steps: a poisoned lock is still good.
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Each change of a task from now on, as `notifications/tasks` params.
    pub fn subscribe(&self) -> broadcast::Receiver<Value> {
        self.updates.subscribe()
    }

    /// The task of this id as `notifications/tasks` shows it, if it is held
    /// (a `subscriptions/listen` stream starts with it).
    pub fn snapshot(&self, id: &str) -> Option<Value> {
        let store = self.store();
        let task = store.tasks.get(id)?;
        Some(Value::Object(self.detailed(task, task.status)))
    }

    /// A `tools/call` of one of this module's tools; `declared` says whether
    /// the request declared the extension, `answers` are the input
    /// responses of an `InputRequiredResult` round so far.
    pub async fn call(
        self: &Arc<Self>,
        name: &str,
        arguments: &Value,
        declared: bool,
        answers: &Map<String, Value>,
    ) -> Call {
        let as_task = declared || self.faults.without_extension;
        let string = |key: &str, default: &str| {
            arguments
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or(default)
                .to_owned()
        };
        match name {
            "greet" => Call::Complete(text(format!("Hello, {}!", string("name", "World")), false)),
            "slow_compute" => {
                let seconds = match arguments.get("seconds") {
                    None => 0,
                    Some(v) => match v.as_u64() {
                        Some(s) if s <= MAX_SECONDS => s,
                        _ => {
                            return Call::Complete(text(
                                format!("`seconds` must be an integer from 0 to {MAX_SECONDS}"),
                                true,
                            ));
                        }
                    },
                };
                let label = string("label", "result");
                let done = text(format!("computed {label} in {seconds}s"), false);
                if !as_task {
                    tokio::time::sleep(Duration::from_secs(seconds)).await;
                    return Call::Complete(done);
                }
                let id = self.create(Work::Done(done.clone()));
                self.finish_after(&id, Duration::from_secs(seconds), Ok(done));
                Call::Task(self.created(&id))
            }
            "failing_job" => {
                if !as_task {
                    return Call::Missing(required());
                }
                let id = self.create(Work::Done(Value::Null));
                let failure = text("failing_job: the job reported a failure", true);
                self.finish_after(&id, Duration::from_millis(JOB_MS), Ok(failure));
                Call::Task(self.created(&id))
            }
            "protocol_error_job" => {
                let error = json!({
                    "code": super::modern::INTERNAL_ERROR,
                    "message": "protocol_error_job: the job broke down before it could answer",
                });
                if !as_task {
                    return Call::Error(
                        super::modern::INTERNAL_ERROR,
                        error["message"].as_str().unwrap_or_default().to_owned(),
                    );
                }
                let id = self.create(Work::Done(Value::Null));
                self.finish_after(&id, Duration::from_millis(JOB_MS), Err(error));
                Call::Task(self.created(&id))
            }
            "confirm_delete" => {
                let filename = string("filename", "file.txt");
                if !as_task {
                    return match answers.get("confirm") {
                        None => Call::Ask(vec![(
                            "confirm".to_owned(),
                            elicit(&format!("Delete {filename}?"), "confirm", "boolean"),
                        )]),
                        Some(answer) => Call::Complete(confirmation(&filename, answer)),
                    };
                }
                let id = self.create(Work::Confirm { filename });
                self.ask_after(&id);
                Call::Task(self.created(&id))
            }
            "multi_input" => {
                if !as_task {
                    return Call::Missing(required());
                }
                let id = self.create(Work::TwoInputs);
                self.ask_after(&id);
                Call::Task(self.created(&id))
            }
            "test_tool_with_task" => {
                if !as_task {
                    return Call::Missing(required());
                }
                let Some(name) = answered(answers.get("user_name"), "name") else {
                    return Call::Ask(vec![(
                        "user_name".to_owned(),
                        elicit("What is your name?", "name", "string"),
                    )]);
                };
                let done = text(format!("Hello, {name}!"), false);
                let id = self.create(Work::Done(done.clone()));
                self.finish_after(&id, Duration::from_millis(STEP_MS), Ok(done));
                Call::Task(self.created(&id))
            }
            other => Call::Error(
                super::modern::INVALID_PARAMS,
                format!("unknown tool `{other}`"),
            ),
        }
    }

    /// A new working task; the store's oldest are given up past its bounds.
    fn create(&self, work: Work) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        let at = now();
        let task = Task {
            id: id.clone(),
            status: Status::Working,
            message: Some("The task is in progress.".to_owned()),
            born: Instant::now(),
            created: at.clone(),
            updated: at,
            result: None,
            error: None,
            pending: Map::new(),
            answers: Map::new(),
            asked: Vec::new(),
            work,
            stop: CancellationToken::new(),
            reads: 0,
        };
        let mut store = self.store();
        store.expire();
        while store.tasks.len() >= MAX_TASKS {
            let victim = store
                .order
                .iter()
                .find(|id| store.tasks.get(*id).is_some_and(|t| t.status.terminal()))
                .or_else(|| store.order.front())
                .cloned();
            let Some(victim) = victim else { break };
            store.remove(&victim);
        }
        store.order.push_back(id.clone());
        store.tasks.insert(id.clone(), task);
        id
    }

    /// The task as `CreateTaskResult` (it exists: the caller just made it).
    fn created(&self, id: &str) -> Value {
        let store = self.store();
        let Some(task) = store.tasks.get(id) else {
            return json!({});
        };
        let mut result = self.envelope(task);
        let kind = if self.faults.result_type {
            "complete"
        } else {
            "task"
        };
        result.insert("resultType".into(), json!(kind));
        Value::Object(result)
    }

    /// The fields every shape of a task carries.
    fn envelope(&self, task: &Task) -> Map<String, Value> {
        let mut object = Map::new();
        object.insert("taskId".into(), json!(task.id));
        object.insert("status".into(), json!(task.status.as_str()));
        if let Some(message) = &task.message {
            object.insert("statusMessage".into(), json!(message));
        }
        object.insert("createdAt".into(), json!(task.created));
        object.insert("lastUpdatedAt".into(), json!(task.updated));
        object.insert("ttlMs".into(), json!(TTL_MS));
        let poll = if self.faults.poll_interval {
            0
        } else {
            POLL_INTERVAL_MS
        };
        object.insert("pollIntervalMs".into(), json!(poll));
        object
    }

    /// The task as `tasks/get` and `notifications/tasks` show it, with what
    /// its status carries (`result`, `error`, `inputRequests`).
    fn detailed(&self, task: &Task, status: Status) -> Map<String, Value> {
        let mut object = self.envelope(task);
        object.insert("status".into(), json!(status.as_str()));
        let hide = self.faults.hidden_result;
        match status {
            Status::Completed if !hide => {
                object.insert("result".into(), task.result.clone().unwrap_or(json!({})));
            }
            Status::Failed if !hide => {
                object.insert("error".into(), task.error.clone().unwrap_or(json!({})));
            }
            Status::InputRequired => {
                object.insert("inputRequests".into(), Value::Object(task.pending.clone()));
            }
            _ => {}
        }
        object
    }

    /// Tells the listen streams about the task as it is now.
    fn announce(&self, task: &Task) {
        let params = self.detailed(task, task.status);
        // Nobody listening is no one to tell.
        let _ = self.updates.send(Value::Object(params));
    }

    /// Moves the task to `status` unless it has ended, and announces it.
    fn set(&self, id: &str, change: impl FnOnce(&mut Task)) {
        let mut store = self.store();
        let Some(task) = store.tasks.get_mut(id) else {
            return;
        };
        if task.status.terminal() {
            return;
        }
        change(task);
        task.updated = now();
        self.announce(task);
    }

    /// Ends the task after `wait` with a result, or a JSON-RPC error.
    fn finish_after(self: &Arc<Self>, id: &str, wait: Duration, outcome: Result<Value, Value>) {
        let stop = match self.store().tasks.get(id) {
            Some(task) => task.stop.clone(),
            None => return,
        };
        let tasks = Arc::clone(self);
        let id = id.to_owned();
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = tokio::time::sleep(wait) => tasks.set(&id, |task| match outcome {
                    Ok(result) => {
                        task.status = Status::Completed;
                        task.message = Some("The task completed.".to_owned());
                        task.result = Some(result);
                    }
                    Err(error) => {
                        task.status = Status::Failed;
                        task.message = Some(format!(
                            "The task failed: {}",
                            error.get("message").and_then(Value::as_str).unwrap_or_default()
                        ));
                        task.error = Some(error);
                    }
                }),
            }
        });
    }

    /// Asks the task's first questions after a short while at work.
    fn ask_after(self: &Arc<Self>, id: &str) {
        let tasks = Arc::clone(self);
        let id = id.to_owned();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(STEP_MS)).await;
            tasks.set(&id, |task| {
                let questions = match &task.work {
                    Work::Confirm { filename } => vec![(
                        "confirm-1",
                        elicit(&format!("Delete {filename}?"), "confirm", "boolean"),
                    )],
                    Work::TwoInputs => vec![
                        ("name-1", elicit("What is your name?", "name", "string")),
                        (
                            "confirm-2",
                            elicit("Shall the answers be kept?", "confirm", "boolean"),
                        ),
                    ],
                    Work::Done(_) => Vec::new(),
                };
                for (key, request) in questions {
                    task.asked.push(key.to_owned());
                    task.pending.insert(key.to_owned(), request);
                }
                task.status = Status::InputRequired;
                task.message = Some("The task waits for input.".to_owned());
            });
        });
    }

    /// `tasks/get`: the task as it is now.
    pub fn get(&self, id: &str) -> Result<Value, Unknown> {
        let mut store = self.store();
        store.expire();
        let task = store.tasks.get_mut(id).ok_or_else(|| unknown(id))?;
        task.reads += 1;
        let mut status = task.status;
        if self.faults.illegal_transition && status == Status::Completed && task.reads % 2 == 0 {
            status = Status::Working;
        }
        let mut result = self.detailed(task, status);
        result.insert("resultType".into(), json!("complete"));
        Ok(Value::Object(result))
    }

    /// `tasks/update`: the answers to outstanding input requests (others
    /// are ignored); the task goes on once none is outstanding.
    pub fn update(
        self: &Arc<Self>,
        id: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), Unknown> {
        let mut store = self.store();
        store.expire();
        let task = store.tasks.get_mut(id).ok_or_else(|| unknown(id))?;
        let mut changed = false;
        for (key, answer) in responses {
            if task.pending.remove(key).is_some() {
                task.answers.insert(key.clone(), answer.clone());
                changed = true;
            }
        }
        if !changed || task.status != Status::InputRequired {
            return Ok(());
        }
        task.updated = now();
        if !task.pending.is_empty() {
            self.announce(task);
            return Ok(());
        }
        task.status = Status::Working;
        task.message = Some("The task is in progress.".to_owned());
        self.announce(task);
        let outcome = match &task.work {
            Work::Confirm { filename } => confirmation(
                filename,
                task.answers.get("confirm-1").unwrap_or(&Value::Null),
            ),
            Work::TwoInputs => {
                let name = answered(task.answers.get("name-1"), "name").unwrap_or_default();
                text(format!("both inputs received (name: {name})"), false)
            }
            Work::Done(result) => result.clone(),
        };
        drop(store);
        self.finish_after(id, Duration::from_millis(STEP_MS), Ok(outcome));
        Ok(())
    }

    /// `tasks/cancel`: a task still at work is cancelled at once; a
    /// finished one is left as it is.
    pub fn cancel(&self, id: &str) -> Result<(), Unknown> {
        let mut store = self.store();
        store.expire();
        let task = store.tasks.get_mut(id).ok_or_else(|| unknown(id))?;
        if task.status.terminal() {
            return Ok(());
        }
        task.stop.cancel();
        task.status = Status::Cancelled;
        task.message = Some("The task was cancelled at the client's request.".to_owned());
        task.pending.clear();
        task.updated = now();
        self.announce(task);
        Ok(())
    }
}

impl Store {
    /// Gives up the tasks whose time to live has passed.
    fn expire(&mut self) {
        let ttl = Duration::from_millis(TTL_MS);
        while let Some(id) = self.order.front().cloned() {
            match self.tasks.get(&id) {
                Some(task) if task.born.elapsed() < ttl => break,
                _ => self.remove(&id),
            }
        }
    }

    fn remove(&mut self, id: &str) {
        if let Some(task) = self.tasks.remove(id) {
            task.stop.cancel();
        }
        self.order.retain(|o| o != id);
    }
}

fn unknown(id: &str) -> Unknown {
    Unknown(format!(
        "no task `{id}`: it was never created here, or its time to live has passed"
    ))
}

/// `confirm_delete`'s result for an elicitation answer.
fn confirmation(filename: &str, answer: &Value) -> Value {
    let accepted = answer.get("action").and_then(Value::as_str) == Some("accept")
        && answer
            .get("content")
            .and_then(|c| c.get("confirm"))
            .is_none_or(|c| c.as_bool() != Some(false));
    if accepted {
        text(
            format!("confirmed: {filename} would be deleted (nothing is deleted)"),
            false,
        )
    } else {
        text(format!("kept {filename}: the deletion was declined"), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(faults: &[Fault]) -> Arc<Tasks> {
        Tasks::new(&FaultSet::new(faults.iter().copied()))
    }

    async fn terminal(tasks: &Tasks, id: &str) -> Value {
        for _ in 0..200 {
            let task = tasks.get(id).expect("the task exists");
            if ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap_or(""))
            {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the task did not end");
    }

    fn id_of(call: &Call) -> String {
        match call {
            Call::Task(result) => result["taskId"].as_str().unwrap_or_default().to_owned(),
            other => panic!("expected a task, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_declared_call_creates_a_task_that_completes() {
        let tasks = tasks(&[]);
        let call = tasks
            .call(
                "slow_compute",
                &json!({"seconds": 0, "label": "x"}),
                true,
                &Map::new(),
            )
            .await;
        let Call::Task(created) = &call else {
            panic!("{call:?}")
        };
        assert_eq!(created["resultType"], "task");
        assert_eq!(created["ttlMs"], TTL_MS);
        assert!(created.get("result").is_none());
        let done = terminal(&tasks, &id_of(&call)).await;
        assert_eq!(done["status"], "completed");
        assert_eq!(done["resultType"], "complete");
        assert_eq!(done["result"]["content"][0]["text"], "computed x in 0s");
    }

    #[tokio::test]
    async fn without_the_extension_calls_are_synchronous_or_refused() {
        let tasks = tasks(&[]);
        let call = tasks
            .call("slow_compute", &json!({"seconds": 0}), false, &Map::new())
            .await;
        assert!(matches!(call, Call::Complete(_)), "{call:?}");
        let call = tasks
            .call("failing_job", &json!({}), false, &Map::new())
            .await;
        let Call::Missing(needed) = call else {
            panic!("{call:?}")
        };
        assert_eq!(needed, required());
    }

    #[tokio::test]
    async fn cancel_settles_to_cancelled_and_is_idempotent() {
        let tasks = tasks(&[]);
        let call = tasks
            .call("slow_compute", &json!({"seconds": 60}), true, &Map::new())
            .await;
        let id = id_of(&call);
        tasks.cancel(&id).expect("known");
        assert_eq!(tasks.get(&id).expect("known")["status"], "cancelled");
        tasks.cancel(&id).expect("a terminal task acks again");
        assert_eq!(tasks.get("nope"), Err(unknown("nope")));
        assert!(tasks.cancel("nope").is_err());
    }

    #[tokio::test]
    async fn partial_answers_keep_the_task_waiting() {
        let tasks = tasks(&[]);
        let id = id_of(
            &tasks
                .call("multi_input", &json!({}), true, &Map::new())
                .await,
        );
        let mut task = tasks.get(&id).expect("known");
        for _ in 0..100 {
            if task["status"] == "input_required" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
            task = tasks.get(&id).expect("known");
        }
        assert_eq!(task["inputRequests"].as_object().map(Map::len), Some(2));
        let mut one = Map::new();
        one.insert(
            "name-1".into(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        );
        one.insert("never-asked".into(), json!({"action": "accept"}));
        tasks.update(&id, &one).expect("known");
        let task = tasks.get(&id).expect("known");
        assert_eq!(task["status"], "input_required");
        assert!(task["inputRequests"].get("name-1").is_none());
        assert!(task["inputRequests"].get("confirm-2").is_some());
        let mut two = Map::new();
        two.insert(
            "confirm-2".into(),
            json!({"action": "accept", "content": {"confirm": true}}),
        );
        tasks.update(&id, &two).expect("known");
        let done = terminal(&tasks, &id).await;
        assert_eq!(
            done["result"]["content"][0]["text"],
            "both inputs received (name: Ada)"
        );
    }

    #[tokio::test]
    async fn the_mrtr_round_comes_before_the_task() {
        let tasks = tasks(&[]);
        let call = tasks
            .call("test_tool_with_task", &json!({}), true, &Map::new())
            .await;
        assert!(matches!(call, Call::Ask(_)), "{call:?}");
        let mut answers = Map::new();
        answers.insert(
            "user_name".into(),
            json!({"action": "accept", "content": {"name": "Alice"}}),
        );
        let call = tasks
            .call("test_tool_with_task", &json!({}), true, &answers)
            .await;
        let done = terminal(&tasks, &id_of(&call)).await;
        assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
    }

    #[tokio::test]
    async fn faults_break_their_rule() {
        let tasks = tasks(&[
            Fault::TaskResultType,
            Fault::TaskPollInterval,
            Fault::TaskHiddenResult,
            Fault::TaskWithoutExtension,
        ]);
        let call = tasks
            .call("slow_compute", &json!({"seconds": 0}), false, &Map::new())
            .await;
        let Call::Task(created) = &call else {
            panic!("{call:?}")
        };
        assert_eq!(created["resultType"], "complete");
        assert_eq!(created["pollIntervalMs"], 0);
        let done = terminal(&tasks, &id_of(&call)).await;
        assert!(done.get("result").is_none());
        let flipping = self::tasks(&[Fault::TaskIllegalTransition]);
        let id = id_of(
            &flipping
                .call("slow_compute", &json!({"seconds": 0}), true, &Map::new())
                .await,
        );
        terminal(&flipping, &id).await;
        let seen: Vec<Value> = (0..2)
            .map(|_| flipping.get(&id).expect("known")["status"].clone())
            .collect();
        assert!(seen.contains(&json!("working")), "{seen:?}");
    }
}
