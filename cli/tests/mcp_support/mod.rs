//! A small MCP client over stdio for the tests of `mcpcheck mcp`: one
//! JSON-RPC message per line, every line the server writes read as JSON
//! (so a stray line on stdout fails the test), server requests answered by
//! the test.
#![allow(
    dead_code,
    reason = "each test crate includes this module and uses a part of it"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a test waits for one answer.
pub const WAIT: Duration = Duration::from_secs(120);

/// `mcpcheck mcp ARGS` in `dir`, initialized.
pub struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
    /// Every notification received so far, in order.
    pub notifications: Vec<Value>,
    /// Answers `roots/list` with these URIs (when the client declared
    /// roots).
    pub roots: Vec<String>,
    /// How many times the server asked for the roots.
    pub roots_asked: usize,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mcp {
    /// Starts `mcpcheck mcp` with `args` in `dir` and initializes a session;
    /// with `roots`, the client declares the roots capability and answers
    /// with them.
    pub fn start(dir: &Path, args: &[&str], roots: Option<Vec<String>>) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpcheck"))
            .arg("mcp")
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mcpcheck mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            next_id: 0,
            notifications: Vec::new(),
            roots: roots.clone().unwrap_or_default(),
            roots_asked: 0,
        };
        let capabilities = if roots.is_some() {
            json!({"roots": {"listChanged": true}})
        } else {
            json!({})
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "mcpcheck-tests", "version": "1"}
            }),
        );
        assert!(init.get("result").is_some(), "initialize: {init}");
        mcp.notify("notifications/initialized", json!({}));
        mcp
    }

    pub fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write to mcpcheck mcp");
        self.stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its id.
    pub fn start_request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message, within `wait`; `None` when none came.
    fn next_message(&mut self, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("mcpcheck mcp wrote a line that is not JSON ({e}): {line}")
            })),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("mcpcheck mcp closed stdout"),
        }
    }

    /// Reads messages until the response to `id` (within `wait`), keeping
    /// notifications and answering the server's requests; `None` when it
    /// did not come in time.
    pub fn response_within(&mut self, id: u64, wait: Duration) -> Option<Value> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.next_message(left)?;
            if message.get("method").is_some() {
                if let Some(request_id) = message.get("id") {
                    self.answer(request_id.clone(), &message);
                } else {
                    self.notifications.push(message);
                }
                continue;
            }
            if message["id"] == json!(id) {
                return Some(message);
            }
        }
    }

    fn answer(&mut self, id: Value, request: &Value) {
        let reply = match request["method"].as_str() {
            Some("roots/list") => {
                self.roots_asked += 1;
                let roots: Vec<Value> = self.roots.iter().map(|u| json!({"uri": u})).collect();
                json!({"jsonrpc": "2.0", "id": id, "result": {"roots": roots}})
            }
            Some("ping") => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            _ => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "not here"}})
            }
        };
        self.send(&reply);
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.start_request(method, params);
        self.response_within(id, WAIT)
            .unwrap_or_else(|| panic!("no answer to {method} within {WAIT:?}"))
    }

    /// `tools/call NAME ARGS`: the result.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {name}: {answer}"))
    }

    /// `tools/call NAME ARGS` that must fail as a tool error: its text.
    pub fn refused(&mut self, name: &str, arguments: Value) -> String {
        let result = self.call(name, arguments.clone());
        assert_eq!(
            result["isError"],
            json!(true),
            "{name} {arguments} was not refused: {result}"
        );
        assert!(
            result.get("structuredContent").is_none(),
            "a tool error carries no structured content: {result}"
        );
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// `tools/call NAME ARGS` that must succeed: its structured content.
    pub fn structured(&mut self, name: &str, arguments: Value) -> Value {
        let result = self.call(name, arguments.clone());
        assert_eq!(
            result["isError"],
            json!(false),
            "{name} {arguments} failed: {result}"
        );
        result["structuredContent"].clone()
    }
}

/// Whether a process whose command line holds `marker` is running.
pub fn running(marker: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .map(|c| {
                let line = String::from_utf8_lossy(&c).replace('\0', " ");
                line.contains(marker) && !line.contains("mcpcheck mcp")
            })
            .unwrap_or(false)
    })
}

/// Waits up to `wait` for `done`.
pub fn eventually(wait: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}
