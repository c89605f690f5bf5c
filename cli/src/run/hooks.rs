//! Lifecycle hooks: `beforeAll`, `beforeEach`, `afterEach`, `afterAll`.
//!
//! A hook step is one program and its arguments (split with POSIX shell rules
//! at load time; no shell is involved), run in the current directory with the
//! suite's environment plus `MCPCHECK_HOOK_PHASE` (and `MCPTEST_HOOK_PHASE`,
//! for mcptest hooks). A plain step runs for its effects and exit status; its
//! output is not read. A `mode: context` step receives the run context as
//! JSON on stdin:
//!
//! ```json
//! {"phase": "beforeEach", "suite": {"name": "…"}, "test": {"name": "…"} | null,
//!  "env": {…}, "vars": {…}, "result": null | {"verdict": "pass", "message": "…"}}
//! ```
//!
//! and may print one JSON object with `env`, `vars` and `skip` (`{"reason"}`);
//! any other key, or output that is not JSON, fails the step. Every step has a
//! timeout (default 60 s) after which its whole process tree is killed (its
//! process group on Unix, its Job Object on Windows).

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use mcpcheck_core::suite::HookStep;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What a hook sees.
pub struct HookContext<'a> {
    pub phase: &'static str,
    pub suite: &'a str,
    pub test: Option<&'a str>,
    pub env: &'a BTreeMap<String, String>,
    pub vars: &'a BTreeMap<String, String>,
    pub result: Option<Value>,
}

/// What a context hook asked for.
#[derive(Debug, Default)]
pub struct Patch {
    pub env: BTreeMap<String, String>,
    pub vars: BTreeMap<String, String>,
    pub skip: Option<String>,
}

/// Why a hook step failed.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// A step with no command.
    #[error("the hook command is empty")]
    Empty,
    /// The command could not be started.
    #[error("`{command}` could not start: {source}")]
    Start {
        command: String,
        #[source]
        source: std::io::Error,
    },
    /// The command ran past its timeout and was killed.
    #[error("`{command}` did not finish within {secs} s and was killed")]
    Timeout { command: String, secs: u64 },
    /// Its exit status could not be had.
    #[error("`{command}`: {source}")]
    Wait {
        command: String,
        #[source]
        source: std::io::Error,
    },
    /// It exited unsuccessfully; `stderr` is the end of what it said.
    #[error("`{command}` exited with {status}{}", if .stderr.is_empty() { String::new() } else { format!(": {}", .stderr) })]
    Exited {
        command: String,
        status: String,
        stderr: String,
    },
    /// A context hook printed what is not a patch.
    #[error("`{command}`: {why}")]
    Output { command: String, why: PatchError },
    /// A step of a phase failed (`beforeAll hook …`).
    #[error("{phase} hook {source}")]
    InPhase {
        phase: &'static str,
        #[source]
        source: Box<HookError>,
    },
}

/// Why a context hook's output is not a patch.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("its output is not a JSON object: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("its output must be a JSON object")]
    NotAnObject,
    #[error("its output has key `{0}`; only `env`, `vars` and `skip` are allowed")]
    UnknownKey(String),
    #[error("`skip` must be an object like {{\"reason\": \"…\"}}, not {0}")]
    BadSkip(Value),
    #[error("`{key}` must be an object, not {value}")]
    NotAMap { key: &'static str, value: Value },
}

/// The outcome of one step: `Err` says why it failed.
pub type StepResult = Result<Patch, HookError>;

fn string_map(
    v: Option<&Value>,
    key: &'static str,
) -> Result<BTreeMap<String, String>, PatchError> {
    let mut out = BTreeMap::new();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => {
            for (k, v) in o {
                let s = match v {
                    Value::String(s) => s.clone(),
                    Value::Null => continue,
                    other => other.to_string(),
                };
                out.insert(k.clone(), s);
            }
        }
        Some(other) => {
            return Err(PatchError::NotAMap {
                key,
                value: other.clone(),
            });
        }
    }
    Ok(out)
}

/// Parse a context hook's output.
pub fn parse_patch(stdout: &str) -> Result<Patch, PatchError> {
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(Patch::default());
    }
    let v: Value = serde_json::from_str(text).map_err(PatchError::NotJson)?;
    let Some(o) = v.as_object() else {
        return Err(PatchError::NotAnObject);
    };
    if let Some(bad) = o
        .keys()
        .find(|k| !matches!(k.as_str(), "env" | "vars" | "skip"))
    {
        return Err(PatchError::UnknownKey(bad.clone()));
    }
    let skip = match o.get("skip") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some("skipped by a hook".to_string()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Object(s)) => Some(
            s.get("reason")
                .and_then(Value::as_str)
                .unwrap_or("skipped by a hook")
                .to_string(),
        ),
        Some(other) => return Err(PatchError::BadSkip(other.clone())),
    };
    Ok(Patch {
        env: string_map(o.get("env"), "env")?,
        vars: string_map(o.get("vars"), "vars")?,
        skip,
    })
}

/// Run one step.
pub async fn run_step(step: &HookStep, ctx: &HookContext<'_>) -> StepResult {
    let Some((program, args)) = step.argv.split_first() else {
        return Err(HookError::Empty);
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .envs(ctx.env.iter())
        .env("MCPCHECK_HOOK_PHASE", ctx.phase)
        .env("MCPTEST_HOOK_PHASE", ctx.phase)
        .stdin(if step.context {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(if step.context {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let (mut child, tree) =
        crate::proctree::spawn(&mut cmd).map_err(|source| HookError::Start {
            command: step.command.clone(),
            source,
        })?;
    if step.context
        && let Some(mut stdin) = child.stdin.take()
    {
        let payload = json!({
            "phase": ctx.phase,
            "suite": {"name": ctx.suite},
            "test": ctx.test.map(|t| json!({"name": t})),
            "env": ctx.env,
            "vars": ctx.vars,
            "result": ctx.result,
        });
        let bytes = payload.to_string().into_bytes();
        // A hook that does not read its stdin must not block us.
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            let _ = stdin.write_all(&bytes).await;
            let _ = stdin.shutdown().await;
        })
        .await;
    }
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let timeout = step
        .timeout_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_TIMEOUT);
    let outcome = tokio::time::timeout(timeout, async {
        let mut out = String::new();
        let mut err = String::new();
        let read_out = async {
            if let Some(s) = stdout.as_mut() {
                let _ = s.read_to_string(&mut out).await;
            }
        };
        let read_err = async {
            if let Some(s) = stderr.as_mut() {
                let _ = s.read_to_string(&mut err).await;
            }
        };
        tokio::join!(read_out, read_err);
        let status = child.wait().await;
        (status, out, err)
    })
    .await;
    let Ok((status, out, err)) = outcome else {
        if let Some(tree) = &tree {
            tree.kill();
        }
        return Err(HookError::Timeout {
            command: step.command.clone(),
            secs: timeout.as_secs(),
        });
    };
    if let Some(tree) = &tree {
        // Leave nothing behind even if the hook forked.
        tree.kill();
    }
    let status = status.map_err(|source| HookError::Wait {
        command: step.command.clone(),
        source,
    })?;
    if !status.success() {
        return Err(HookError::Exited {
            command: step.command.clone(),
            status: status
                .code()
                .map_or_else(|| "a signal".to_string(), |c| format!("status {c}")),
            stderr: mcpcheck_core::truncate(err.trim(), 500),
        });
    }
    if step.context {
        parse_patch(&out).map_err(|why| HookError::Output {
            command: step.command.clone(),
            why,
        })
    } else {
        Ok(Patch::default())
    }
}

/// Every `env` entry a context hook has returned in this run: hooks exist to
/// hand servers credentials, so their values are redacted like the suite's
/// own environment (see [`with_hook_secrets`]).
fn hook_env() -> &'static std::sync::Mutex<Vec<(String, String)>> {
    static ENV: std::sync::OnceLock<std::sync::Mutex<Vec<(String, String)>>> =
        std::sync::OnceLock::new();
    ENV.get_or_init(Default::default)
}

/// `redactor` that also hides the values context hooks have set so far,
/// and the OAuth tokens and secrets the run has used.
pub fn with_hook_secrets(
    redactor: &mcpcheck_core::redact::Redactor,
) -> mcpcheck_core::redact::Redactor {
    let mut r = crate::client::auth::with_issued(redactor);
    if let Ok(env) = hook_env().lock() {
        for (name, value) in env.iter() {
            r.env(name, value);
        }
    }
    r
}

/// Run a phase's steps in order, folding patches into `env` and `vars`.
/// Stops at the first failing step.
pub async fn run_phase(
    steps: &[HookStep],
    phase: &'static str,
    suite: &str,
    test: Option<&str>,
    env: &mut BTreeMap<String, String>,
    vars: &mut BTreeMap<String, String>,
    result: Option<Value>,
) -> Result<Option<String>, HookError> {
    let mut skip = None;
    for step in steps {
        let ctx = HookContext {
            phase,
            suite,
            test,
            env,
            vars,
            result: result.clone(),
        };
        let patch = run_step(step, &ctx).await.map_err(|e| HookError::InPhase {
            phase,
            source: Box::new(e),
        })?;
        if let Ok(mut seen) = hook_env().lock() {
            seen.extend(patch.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        env.extend(patch.env);
        vars.extend(patch.vars);
        if patch.skip.is_some() {
            skip = patch.skip;
        }
    }
    Ok(skip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_are_parsed_strictly() {
        let p =
            parse_patch(r#"{"env": {"A": "1"}, "vars": {"v": 2}, "skip": {"reason": "no creds"}}"#)
                .unwrap();
        assert_eq!(p.env.get("A").map(String::as_str), Some("1"));
        assert_eq!(p.vars.get("v").map(String::as_str), Some("2"));
        assert_eq!(p.skip.as_deref(), Some("no creds"));
        assert!(parse_patch("").unwrap().skip.is_none());
        let other = parse_patch(r#"{"other": 1}"#).unwrap_err();
        assert!(matches!(&other, PatchError::UnknownKey(k) if k == "other"));
        assert!(other.to_string().contains("`other`"));
        assert!(parse_patch("not json").is_err());
    }
}
