//! `mcpcheck intercept` (`commands/intercept.rs` has its flags): a
//! transparent proxy between an MCP client and a server, on stdio or
//! Streamable HTTP, that records what crosses it.
//!
//! Both transports hand every message to one [`Recorder`] at the moment its
//! bytes are read, before they are passed on, so the recorded order is the
//! order each side's bytes were seen. When the session ends the recorder is
//! closed (later messages are not recorded), and [`finish`] writes the
//! capture and the trace once and has core judge them.

pub mod http;
pub mod stdio;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use mcpcheck_core::api::{self, ExpectDoc};
use mcpcheck_core::invariants;
use mcpcheck_core::report::text::{TextOptions, test_block};
use mcpcheck_core::results::TestResult;
use serde_json::{Value, json};

use crate::client::tap::{Dir, Event, now_rfc3339};
use crate::output::{Format, err, paint_for_stderr};

/// How many bytes of messages a session records; what follows is still
/// passed on, only not recorded (the report says how many were left out).
pub const MAX_RECORDED_BYTES: usize = 256 * 1024 * 1024;

/// One recorded message: the session it belongs to (HTTP's
/// `Mcp-Session-Id`; `None` on stdio or before a session was given one),
/// when it was read, and the message.
struct Recorded {
    session: Option<String>,
    at: Instant,
    event: Event,
}

#[derive(Default)]
struct Inner {
    messages: Vec<Recorded>,
    bytes: usize,
    closed: bool,
    left_out: usize,
}

/// The messages of a session, in the order they were read.
#[derive(Default)]
pub struct Recorder {
    inner: Mutex<Inner>,
}

impl Recorder {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records one message (a line, an HTTP body, an SSE event's data) as
    /// it was read; blank text is not a message. Returns its index, or
    /// `None` when it was not recorded.
    pub fn record(&self, dir: Dir, text: &str, session: Option<&str>) -> Option<usize> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let mut inner = self.lock();
        if inner.closed {
            return None;
        }
        if inner.bytes + text.len() > MAX_RECORDED_BYTES {
            inner.left_out += 1;
            return None;
        }
        inner.bytes += text.len();
        inner.messages.push(Recorded {
            session: session.map(str::to_string),
            at: Instant::now(),
            event: Event {
                dir,
                time: now_rfc3339(),
                raw: text.to_string(),
                json: serde_json::from_str(text).ok(),
                http_status: None,
                version_header: None,
                request_headers: None,
                gave_up: None,
            },
        });
        Some(inner.messages.len() - 1)
    }

    /// Gives a message recorded before its session was known (the HTTP
    /// `initialize` request) the session the answer named.
    pub fn assign(&self, index: usize, session: &str) {
        if let Some(m) = self.lock().messages.get_mut(index)
            && m.session.is_none()
        {
            m.session = Some(session.to_string());
        }
    }

    /// Ends the recording: what arrives from now on is not recorded.
    fn close(&self) -> Inner {
        let mut inner = self.lock();
        let taken = std::mem::take(&mut *inner);
        inner.closed = true;
        taken
    }
}

/// What the session is checked against and where its record goes.
pub struct Outputs {
    pub capture: PathBuf,
    pub trace: Option<PathBuf>,
    pub trajectory: Option<(PathBuf, ExpectDoc)>,
    pub format: Format,
    /// Names the server in the capture (`server_label`).
    pub label: String,
    pub transport: &'static str,
}

/// Reads the trajectory assertions of `--trajectory FILE`, before anything
/// starts: a file that cannot be used is a usage error.
pub fn load_trajectory(path: &Path) -> crate::error::Result<ExpectDoc> {
    let name = crate::files::display(path);
    let text = crate::files::read_text(path)?;
    api::load_trajectory(&name, &text).map_err(|diags| {
        let lookup = |f: &str| (f == name).then_some(text.as_str());
        crate::error::Error::Diagnostics(mcpcheck_core::diag::render(
            &diags,
            &lookup,
            paint_for_stderr(),
        ))
    })
}

/// The sessions of a recording, each with its messages in order: one per
/// `Mcp-Session-Id`, in the order each was first seen; messages without a
/// session go with the first.
fn sessions(messages: Vec<Recorded>) -> Vec<Vec<Recorded>> {
    let mut keys: Vec<Option<String>> = Vec::new();
    for m in &messages {
        if m.session.is_some() && !keys.contains(&m.session) {
            keys.push(m.session.clone());
        }
    }
    if keys.is_empty() {
        return vec![messages];
    }
    let mut out: Vec<Vec<Recorded>> = keys.iter().map(|_| Vec::new()).collect();
    for m in messages {
        let i = keys.iter().position(|k| *k == m.session).unwrap_or(0);
        out[i].push(m);
    }
    out
}

/// The protocol revision a session ran on, as the messages say: the
/// `initialize` result's, else the request's, else the first request's
/// `_meta` (a stateless revision); empty when none says.
fn protocol_version(events: &[Event]) -> String {
    let pick = |dir: Dir, pointer: &str| {
        events.iter().filter(|e| e.dir == dir).find_map(|e| {
            e.json
                .as_ref()?
                .pointer(pointer)?
                .as_str()
                .map(str::to_string)
        })
    };
    pick(Dir::In, "/result/protocolVersion")
        .or_else(|| pick(Dir::Out, "/params/protocolVersion"))
        .or_else(|| {
            pick(
                Dir::Out,
                "/params/_meta/io.modelcontextprotocol~1protocolVersion",
            )
        })
        .unwrap_or_default()
}

/// The audit-log line of every `tools/call` the client sent, in order:
/// `{"time", "tool", "args", "duration_ms", "is_error"}` (the last two once
/// it was answered), secret-looking arguments hidden as in `serve
/// --audit-log`.
fn tool_calls(sessions: &[Vec<Recorded>]) -> Vec<Value> {
    let mut calls = Vec::new();
    for messages in sessions {
        for (i, m) in messages.iter().enumerate() {
            let e = &m.event;
            if e.dir != Dir::Out || e.method() != Some("tools/call") {
                continue;
            }
            let Some(json) = &e.json else { continue };
            let Some(tool) = json.pointer("/params/name").and_then(Value::as_str) else {
                continue;
            };
            let args = match json.pointer("/params/arguments") {
                Some(a @ Value::Object(_)) => crate::serve::audit::redact(a),
                _ => json!({}),
            };
            let mut line = json!({"time": e.time, "tool": tool, "args": args});
            let answer = e.id().and_then(|id| {
                messages[i + 1..].iter().find(|r| {
                    r.event.dir == Dir::In && r.event.is_response() && r.event.id() == Some(id)
                })
            });
            if let Some(r) = answer {
                let response = r.event.json.as_ref().unwrap_or(&Value::Null);
                let is_error = response.get("error").is_some()
                    || response.pointer("/result/isError") == Some(&Value::Bool(true));
                line["duration_ms"] = json!(r.at.duration_since(m.at).as_millis() as u64);
                line["is_error"] = json!(is_error);
            }
            calls.push(line);
        }
    }
    calls
}

/// The capture document of the sessions: one session object, or an array
/// of them when the client opened several.
fn capture_text(sessions: &[Vec<Recorded>], outputs: &Outputs) -> String {
    let texts: Vec<String> = sessions
        .iter()
        .map(|messages| {
            let events: Vec<Event> = messages.iter().map(|m| m.event.clone()).collect();
            crate::capture::render(&crate::capture::Recording {
                label: &outputs.label,
                transport: outputs.transport,
                protocol_version: &protocol_version(&events),
                events: &events,
            })
        })
        .collect();
    match texts.as_slice() {
        [one] => one.clone(),
        _ => format!("[\n{}\n]", texts.join(",\n")),
    }
}

/// Ends the recording, writes the capture (always) and the trace, checks
/// the invariants and the trajectory, and prints the report on stderr.
/// `ended` says how the session ended. Returns whether everything held.
pub fn finish(recorder: &Recorder, outputs: &Outputs, ended: &str) -> crate::error::Result<bool> {
    let Inner {
        messages, left_out, ..
    } = recorder.close();
    let from_client = messages.iter().filter(|m| m.event.dir == Dir::Out).count();
    let from_server = messages.len() - from_client;
    let sessions = sessions(messages);
    let capture = capture_text(&sessions, outputs);
    let written = std::fs::write(&outputs.capture, format!("{capture}\n"));
    let calls = tool_calls(&sessions);
    if let Some(path) = &outputs.trace {
        let mut text = String::new();
        for call in &calls {
            text.push_str(&call.to_string());
            text.push('\n');
        }
        std::fs::write(path, text)
            .map_err(|e| format!("cannot write the trace {}: {e}", path.display()))?;
    }
    written.map_err(|e| {
        format!(
            "cannot write the capture {}: {e}",
            outputs.capture.display()
        )
    })?;
    let (report, exercised) = invariants::check_text_exercised(&capture).map_err(|diags| {
        let shown: Vec<String> = diags.iter().map(ToString::to_string).collect();
        format!(
            "the recorded capture cannot be read back: {}",
            shown.join("; ")
        )
    })?;
    let trajectory = outputs.trajectory.as_ref().map(|(_, doc)| {
        let trace = calls
            .iter()
            .map(|c| mcpcheck_core::trajectory::TraceEntry {
                tool: c["tool"].as_str().unwrap_or_default().to_string(),
                args: c["args"].clone(),
            })
            .collect();
        api::check_trajectory(doc, trace)
    });
    let passed = report.passed() && trajectory.as_ref().is_none_or(|t| t.status.is_success());
    let summary = Summary {
        ended,
        from_client,
        from_server,
        left_out,
        tool_calls: calls.len(),
        sessions: sessions.len(),
        exercised,
    };
    err(&render_report(
        outputs,
        &summary,
        &report,
        trajectory.as_ref(),
        passed,
    ));
    Ok(passed)
}

/// The report of `--format json` (keys in this order).
#[derive(serde::Serialize)]
struct JsonReport<'a> {
    version: u32,
    passed: bool,
    ended: &'a str,
    sessions: usize,
    messages: Value,
    tool_calls: usize,
    capture: String,
    trace: Option<String>,
    invariants: Value,
    trajectory: Option<&'a TestResult>,
}

struct Summary<'a> {
    ended: &'a str,
    from_client: usize,
    from_server: usize,
    left_out: usize,
    tool_calls: usize,
    sessions: usize,
    /// Per session, the rules it gave something to judge.
    exercised: Vec<Vec<invariants::Rule>>,
}

fn render_report(
    outputs: &Outputs,
    s: &Summary<'_>,
    report: &invariants::Report,
    trajectory: Option<&TestResult>,
    passed: bool,
) -> String {
    let path = |p: &Path| crate::files::display(p);
    match outputs.format {
        Format::Json => {
            let invariants: Value =
                serde_json::from_str(&invariants::render_json(report)).unwrap_or(Value::Null);
            let doc = JsonReport {
                version: 1,
                passed,
                ended: s.ended,
                sessions: s.sessions,
                messages: json!({"client": s.from_client, "server": s.from_server, "not_recorded": s.left_out}),
                tool_calls: s.tool_calls,
                capture: path(&outputs.capture),
                trace: outputs.trace.as_deref().map(path),
                invariants,
                trajectory,
            };
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            )
        }
        Format::Text => {
            let mut out = format!(
                "mcpcheck intercept: {}\n  recorded {} from the client and {} from the server",
                s.ended,
                mcpcheck_core::report::plural(s.from_client, "message", "messages"),
                s.from_server
            );
            if s.left_out > 0 {
                out.push_str(&format!(
                    " ({} more not recorded: the recording passed {} MiB)",
                    s.left_out,
                    MAX_RECORDED_BYTES >> 20
                ));
            }
            out.push_str(&format!("\n  capture: {}\n", path(&outputs.capture)));
            if let Some(trace) = &outputs.trace {
                out.push_str(&format!(
                    "  trace: {} ({})\n",
                    path(trace),
                    mcpcheck_core::report::plural(s.tool_calls, "tool call", "tool calls")
                ));
            }
            let findings = invariants::report(report, &s.exercised, &path(&outputs.capture));
            let text = mcpcheck_core::findings::render::text::render(
                &findings,
                mcpcheck_core::diag::Paint::Plain,
            );
            out.push_str(&format!("invariants:\n{}\n", text.trim_end()));
            if let (Some(t), Some((file, _))) = (trajectory, &outputs.trajectory) {
                let opts = TextOptions {
                    paint: paint_for_stderr(),
                    all_checks: true,
                };
                out.push_str(&format!(
                    "trajectory ({}):\n{}\n",
                    path(file),
                    test_block(t, opts).trim_end()
                ));
            }
            out.push_str(if passed { "PASS\n" } else { "FAIL\n" });
            out
        }
    }
}
