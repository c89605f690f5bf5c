//! The extension blocks' steps (docs/extensions.md):
//!
//! - `assert_task`: `tools/call` (the client declares the tasks extension);
//!   when the answer is a task, `tasks/cancel` first with `then: cancel`,
//!   then `tasks/get` until the task ends (waiting its `pollIntervalMs`
//!   between polls, answering its input requests from the test's mocks with
//!   `tasks/update`). The checks see the task's inlined result (its text),
//!   `task` (the last answer about the task) and `task_statuses` (every
//!   status seen, in order).
//! - `assert_skills`: `skills/list` or `skills/get`; with `verify`, then
//!   `resources/read` of each file of the manifests (at most
//!   [`MAX_FILES`]). The checks see the answer, and `verified`: the files
//!   read and each problem (a digest or size that does not match the bytes,
//!   a file that could not be read).
//! - `assert_app`: `tools/list` to find the tool's UI resource (following
//!   pages), then `resources/read` of it. The checks see the read answer
//!   (its text is the HTML), and `app`: the URI and the problems the MCP
//!   Apps invariants find in the tool, the resource and its HTML.

use std::collections::VecDeque;

use serde_json::{Map, Value, json};

use super::{Phase, Reply, RequestKind, Step, TestRun, Wait, send};
use crate::invariants::{apps, skills};
use crate::observation::Method;
use crate::setup::Ending;
use crate::suite::{Action, AppSource, ExtensionOp, SkillsOp, TaskThen};

/// The most files `assert_skills` reads.
pub const MAX_FILES: usize = 64;
/// The most `tasks/get` requests one test sends.
const MAX_POLLS: usize = 1_000;
/// The most `tools/list` pages `assert_app` follows.
const MAX_PAGES: usize = 50;
/// The poll interval when the task gives none, and its bounds.
const POLL_MS: (u64, u64, u64) = (250, 50, 5_000);

/// Where an extension block is.
#[derive(Clone, Debug)]
pub(super) enum State {
    /// The task block's `tools/call` is out.
    TaskCall,
    /// A task is known; the last request about it was `sent`.
    Task {
        id: String,
        sent: TaskRequest,
        polls: usize,
        statuses: Vec<Value>,
        /// Input request keys already answered.
        answered: Vec<String>,
        /// The last answer about the task.
        last: Value,
    },
    /// The skills request is out.
    SkillsAsked,
    /// Reading the manifests' files: the answer, the files still to read,
    /// the one out, and what was found.
    SkillsReading {
        answer: Box<Reply>,
        queue: VecDeque<(String, Option<String>, Option<u64>)>,
        out: (String, Option<String>, Option<u64>),
        read: usize,
        problems: Vec<String>,
    },
    /// `tools/list` is out, for the tool's UI resource.
    AppListing { cursor_pages: usize },
    /// The UI resource's `resources/read` is out.
    AppReading { uri: String, problems: Vec<String> },
}

/// The last request about a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TaskRequest {
    Get,
    Cancel,
    Update,
}

fn terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// Whether a result is a task handle (a `CreateTaskResult`).
fn is_task(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("task")
        || (result.get("taskId").is_some_and(Value::is_string)
            && result.get("status").is_some_and(Value::is_string))
}

impl TestRun {
    fn op(&self) -> Option<ExtensionOp> {
        match &self.test.action {
            Action::Extension(op) => Some(op.clone()),
            _ => None,
        }
    }

    fn ext_send(&mut self, state: State, method: &str, params: Value) -> Result<Step, Ending> {
        self.ext = Some(state);
        self.phase = Phase::Extension;
        Ok(send(method, Some(params), RequestKind::Action))
    }

    /// The block's first request.
    pub(super) fn ext_start(&mut self) -> Result<Step, Ending> {
        match self.op() {
            Some(ExtensionOp::Task { tool, args, .. }) => {
                let args = self.t.value(&args);
                self.undefined()?;
                self.ext_send(
                    State::TaskCall,
                    "tools/call",
                    json!({"name": tool, "arguments": args}),
                )
            }
            Some(ExtensionOp::Skills { op, .. }) => {
                let (method, params) = match op {
                    SkillsOp::List { cursor } => (
                        "skills/list",
                        cursor.map_or(json!({}), |c| json!({ "cursor": c })),
                    ),
                    SkillsOp::Get { uri } => {
                        let uri = self.t.vars_only(&uri);
                        self.undefined()?;
                        ("skills/get", json!({ "uri": uri }))
                    }
                };
                self.ext_send(State::SkillsAsked, method, params)
            }
            Some(ExtensionOp::App(AppSource::Tool(_))) => self.ext_send(
                State::AppListing { cursor_pages: 0 },
                "tools/list",
                json!({}),
            ),
            Some(ExtensionOp::App(AppSource::Read(uri))) => {
                let uri = self.t.vars_only(&uri);
                self.undefined()?;
                self.ext_send(
                    State::AppReading {
                        uri: uri.clone(),
                        problems: Vec::new(),
                    },
                    "resources/read",
                    json!({ "uri": uri }),
                )
            }
            None => Err(self.out_of_order()),
        }
    }

    /// The answer to the block's last request.
    pub(super) fn ext_reply(&mut self, reply: Reply) -> Result<Step, Ending> {
        self.collect_reply(&reply);
        if let Some(f) = &reply.failure {
            return Err(Ending::Error(f.clone()));
        }
        match self.ext.take() {
            Some(State::TaskCall) => self.task_created(reply),
            Some(State::Task {
                id,
                sent,
                polls,
                statuses,
                answered,
                last,
            }) => self.task_answer(reply, id, sent, polls, statuses, answered, last),
            Some(State::SkillsAsked) => self.skills_answered(reply),
            Some(State::SkillsReading {
                answer,
                queue,
                out,
                read,
                problems,
            }) => self.skills_read(reply, *answer, queue, out, read, problems),
            Some(State::AppListing { cursor_pages }) => self.app_listed(reply, cursor_pages),
            Some(State::AppReading { uri, problems }) => self.app_read(reply, uri, problems),
            None => Err(self.out_of_order()),
        }
    }

    /// The wait between two polls is over.
    pub(super) fn ext_waited(&mut self) -> Result<Step, Ending> {
        match self.ext.take() {
            Some(State::Task {
                id,
                polls,
                statuses,
                answered,
                last,
                ..
            }) => self.poll(id, polls, statuses, answered, last),
            _ => Err(self.out_of_order()),
        }
    }

    /// Ends the block: `reply` is what the checks see as the answer to
    /// `method`, with `extra` members beside it.
    fn ext_done(
        &mut self,
        reply: Reply,
        method: Method,
        extra: Vec<(&'static str, Value)>,
    ) -> Result<Step, Ending> {
        self.extra = extra;
        self.checked = Some((reply, method));
        self.files_after()
    }

    fn task_created(&mut self, reply: Reply) -> Result<Step, Ending> {
        let then = match self.op() {
            Some(ExtensionOp::Task { then, .. }) => then,
            _ => return Err(self.out_of_order()),
        };
        let handle = reply.result.as_ref().filter(|r| is_task(r)).cloned();
        let Some(handle) = handle else {
            // A plain result or an error: no task; the checks see it.
            return self.ext_done(
                reply,
                Method::ToolsCall,
                vec![("task", Value::Null), ("task_statuses", json!([]))],
            );
        };
        let id = handle
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let statuses = vec![handle.get("status").cloned().unwrap_or(Value::Null)];
        match then {
            TaskThen::Stop => self.ext_done(
                reply,
                Method::ToolsCall,
                vec![("task", handle), ("task_statuses", Value::Array(statuses))],
            ),
            TaskThen::Cancel => self.ext_send(
                State::Task {
                    id: id.clone(),
                    sent: TaskRequest::Cancel,
                    polls: 0,
                    statuses,
                    answered: Vec::new(),
                    last: handle,
                },
                "tasks/cancel",
                json!({ "taskId": id }),
            ),
            TaskThen::Poll => self.poll(id, 0, statuses, Vec::new(), handle),
        }
    }

    fn poll(
        &mut self,
        id: String,
        polls: usize,
        statuses: Vec<Value>,
        answered: Vec<String>,
        last: Value,
    ) -> Result<Step, Ending> {
        if polls >= MAX_POLLS {
            return Err(Ending::Error(format!(
                "the task {id} did not end after {MAX_POLLS} tasks/get requests"
            )));
        }
        self.ext_send(
            State::Task {
                id: id.clone(),
                sent: TaskRequest::Get,
                polls: polls + 1,
                statuses,
                answered,
                last,
            },
            "tasks/get",
            json!({ "taskId": id }),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn task_answer(
        &mut self,
        reply: Reply,
        id: String,
        sent: TaskRequest,
        polls: usize,
        mut statuses: Vec<Value>,
        mut answered: Vec<String>,
        last: Value,
    ) -> Result<Step, Ending> {
        if sent != TaskRequest::Get {
            // An acknowledgment: an error ends the block with it; otherwise
            // the task is asked about next.
            if reply.error.is_some() {
                let extra = vec![("task", last), ("task_statuses", Value::Array(statuses))];
                let method = Method::Other(if sent == TaskRequest::Cancel {
                    "tasks/cancel".into()
                } else {
                    "tasks/update".into()
                });
                return self.ext_done(reply, method, extra);
            }
            return self.poll(id, polls, statuses, answered, last);
        }
        let Some(task) = reply.result.clone() else {
            let extra = vec![("task", last), ("task_statuses", Value::Array(statuses))];
            return self.ext_done(reply, Method::Other("tasks/get".into()), extra);
        };
        let status = task
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        statuses.push(task.get("status").cloned().unwrap_or(Value::Null));
        if terminal(&status) {
            // What the task ended with is the answer the checks see: its
            // result, or its JSON-RPC error.
            let shown = Reply {
                result: task.get("result").cloned(),
                error: task.get("error").cloned(),
                ..reply
            };
            return self.ext_done(
                shown,
                Method::ToolsCall,
                vec![("task", task), ("task_statuses", Value::Array(statuses))],
            );
        }
        if status == "input_required" {
            let mut responses = Map::new();
            for (key, request) in task
                .get("inputRequests")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if answered.contains(key) {
                    continue;
                }
                let method = request
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let params = request.get("params").cloned().unwrap_or(Value::Null);
                let answer = self.mocks().answer(method, &params).map_err(|why| {
                    Ending::Error(format!("task {id}: input request `{key}`: {why}"))
                })?;
                responses.insert(key.clone(), answer);
                answered.push(key.clone());
            }
            if !responses.is_empty() {
                return self.ext_send(
                    State::Task {
                        id: id.clone(),
                        sent: TaskRequest::Update,
                        polls,
                        statuses,
                        answered,
                        last: task,
                    },
                    "tasks/update",
                    json!({ "taskId": id, "inputResponses": responses }),
                );
            }
        }
        let (default, low, high) = POLL_MS;
        let wait = task
            .get("pollIntervalMs")
            .and_then(Value::as_u64)
            .unwrap_or(default)
            .clamp(low, high);
        self.ext = Some(State::Task {
            id,
            sent: TaskRequest::Get,
            polls,
            statuses,
            answered,
            last: task,
        });
        self.phase = Phase::Extension;
        Ok(Step::Wait(Wait::For(wait)))
    }

    fn skills_answered(&mut self, reply: Reply) -> Result<Step, Ending> {
        let (method, verify) = match self.op() {
            Some(ExtensionOp::Skills { op, verify }) => (
                match op {
                    SkillsOp::List { .. } => "skills/list",
                    SkillsOp::Get { .. } => "skills/get",
                },
                verify,
            ),
            _ => return Err(self.out_of_order()),
        };
        let entries: Vec<Value> = match &reply.result {
            Some(r) if method == "skills/get" => r.get("skill").cloned().into_iter().collect(),
            Some(r) => r
                .get("skills")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            None => Vec::new(),
        };
        if !verify || reply.result.is_none() {
            return self.ext_done(reply, Method::Other(method.into()), Vec::new());
        }
        let mut queue = VecDeque::new();
        let mut problems = Vec::new();
        for entry in &entries {
            let skill = entry.get("uri").and_then(Value::as_str).unwrap_or("?");
            match entry.get("resources") {
                Some(Value::Array(files)) => {
                    for file in files {
                        let Some(uri) = file.get("uri").and_then(Value::as_str) else {
                            problems.push(format!("{skill}: a manifest entry has no uri"));
                            continue;
                        };
                        let digest = file
                            .get("digest")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        let size = file.get("size").and_then(Value::as_u64);
                        queue.push_back((uri.to_string(), digest, size));
                    }
                }
                Some(Value::String(s)) if s == "dynamic" => {}
                _ => problems.push(format!("{skill}: no resources manifest")),
            }
        }
        if queue.len() > MAX_FILES {
            problems.push(format!(
                "only the first {MAX_FILES} of {} files were read",
                queue.len()
            ));
            queue.truncate(MAX_FILES);
        }
        self.next_file(Box::new(reply), queue, 0, problems)
    }

    fn next_file(
        &mut self,
        answer: Box<Reply>,
        mut queue: VecDeque<(String, Option<String>, Option<u64>)>,
        read: usize,
        problems: Vec<String>,
    ) -> Result<Step, Ending> {
        let Some(out) = queue.pop_front() else {
            let method = match self.op() {
                Some(ExtensionOp::Skills {
                    op: SkillsOp::Get { .. },
                    ..
                }) => "skills/get",
                _ => "skills/list",
            };
            let verified = json!({ "files": read, "problems": problems });
            return self.ext_done(
                *answer,
                Method::Other(method.into()),
                vec![("verified", verified)],
            );
        };
        let uri = out.0.clone();
        self.ext_send(
            State::SkillsReading {
                answer,
                queue,
                out,
                read,
                problems,
            },
            "resources/read",
            json!({ "uri": uri }),
        )
    }

    fn skills_read(
        &mut self,
        reply: Reply,
        answer: Reply,
        queue: VecDeque<(String, Option<String>, Option<u64>)>,
        out: (String, Option<String>, Option<u64>),
        read: usize,
        mut problems: Vec<String>,
    ) -> Result<Step, Ending> {
        let (uri, digest, size) = out;
        let bytes = reply
            .result
            .as_ref()
            .and_then(|r| r.get("contents"))
            .and_then(Value::as_array)
            .and_then(|c| {
                c.iter()
                    .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri.as_str()))
                    .or(c.first())
            })
            .and_then(skills::content_bytes);
        match bytes {
            None => problems.push(match &reply.error {
                Some(e) => format!(
                    "{uri}: resources/read was refused ({})",
                    e.get("code")
                        .map_or("no code".to_string(), Value::to_string)
                ),
                None => format!("{uri}: resources/read gave no content"),
            }),
            Some(bytes) => {
                let actual = skills::digest(&bytes);
                if digest.as_deref() != Some(actual.as_str()) {
                    problems.push(format!(
                        "{uri}: the manifest's digest is {}, the bytes read hash to {actual}",
                        digest.as_deref().unwrap_or("absent")
                    ));
                }
                if size != Some(bytes.len() as u64) {
                    problems.push(format!(
                        "{uri}: the manifest's size is {}, {} bytes were read",
                        size.map_or("absent".to_string(), |s| s.to_string()),
                        bytes.len()
                    ));
                }
            }
        }
        self.next_file(Box::new(answer), queue, read + 1, problems)
    }

    fn app_listed(&mut self, reply: Reply, pages: usize) -> Result<Step, Ending> {
        let Some(ExtensionOp::App(AppSource::Tool(name))) = self.op() else {
            return Err(self.out_of_order());
        };
        let Some(result) = reply.result.clone() else {
            return self.ext_done(reply, Method::Other("tools/list".into()), Vec::new());
        };
        let tool = result
            .get("tools")
            .and_then(Value::as_array)
            .and_then(|tools| {
                tools
                    .iter()
                    .find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()))
            })
            .cloned();
        let Some(tool) = tool else {
            let next = result.get("nextCursor").and_then(Value::as_str);
            if let Some(next) = next.filter(|_| pages + 1 < MAX_PAGES) {
                let params = json!({ "cursor": next });
                return self.ext_send(
                    State::AppListing {
                        cursor_pages: pages + 1,
                    },
                    "tools/list",
                    params,
                );
            }
            let app =
                json!({ "uri": null, "problems": [format!("tools/list has no tool `{name}`")] });
            return self.ext_done(
                reply,
                Method::Other("tools/list".into()),
                vec![("app", app)],
            );
        };
        let problems: Vec<String> = apps::tool_problems(&tool)
            .into_iter()
            .map(|(_, message)| message)
            .collect();
        let Some(uri) = apps::resource_uri(&tool).map(str::to_string) else {
            let mut problems = problems;
            problems.push(format!(
                "the tool {name} names no UI resource (_meta.ui.resourceUri)"
            ));
            let app = json!({ "uri": null, "problems": problems });
            return self.ext_done(
                reply,
                Method::Other("tools/list".into()),
                vec![("app", app)],
            );
        };
        self.ext_send(
            State::AppReading {
                uri: uri.clone(),
                problems,
            },
            "resources/read",
            json!({ "uri": uri }),
        )
    }

    fn app_read(
        &mut self,
        reply: Reply,
        uri: String,
        mut problems: Vec<String>,
    ) -> Result<Step, Ending> {
        if !uri.starts_with("ui://") {
            problems.push(format!("{uri} is not a ui:// resource"));
        }
        match &reply.result {
            None => problems.push(format!(
                "reading {uri} failed ({})",
                reply
                    .error
                    .as_ref()
                    .and_then(|e| e.get("code"))
                    .map_or("no answer".to_string(), Value::to_string)
            )),
            Some(result) => {
                let content = result
                    .get("contents")
                    .and_then(Value::as_array)
                    .and_then(|c| c.first());
                match content {
                    None => problems.push(format!("reading {uri} gave no content")),
                    Some(content) => {
                        problems.extend(
                            apps::resource_problems(content, "the content read of")
                                .into_iter()
                                .map(|(_, message)| message),
                        );
                        let html = skills::content_bytes(content)
                            .map(|b| String::from_utf8_lossy(&b).into_owned())
                            .unwrap_or_default();
                        if let Some(why) = apps::payload_problem(&html) {
                            problems.push(format!(
                                "the content of {uri} is not an HTML5 document: {why}"
                            ));
                        }
                    }
                }
            }
        }
        let app = json!({ "uri": uri, "problems": problems });
        self.ext_done(reply, Method::ResourcesRead, vec![("app", app)])
    }
}
