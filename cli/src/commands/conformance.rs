//! `mcpcheck conformance`: connect to a live server, run a fixed probe
//! sequence that changes nothing on it, record each session below rmcp, and
//! judge every capture with the conformance invariants of its revision.
//!
//! Without `--protocol-version`, both eras are probed: the handshake era
//! (2025-11-25) and, when the server offers it, 2026-07-28. Each revision is
//! reported on its own, every rule as passed, failed or not verified (the
//! session never contained what the rule judges: a rule that had nothing to
//! judge is never counted as holding).
//!
//! The probe sequence of a revision, in order (every step has a timeout; a
//! step that fails does not stop the ones after it):
//!
//! 1. the session's opening: `initialize` and `notifications/initialized`
//!    (handshake era), or `server/discover` (2026-07-28);
//! 2. `ping` (handshake era only);
//! 3. `tools/list`, `prompts/list`, `resources/list` and
//!    `resources/templates/list`, each followed through `nextCursor` —
//!    asked whatever the server advertised, so a list served without its
//!    capability is seen;
//! 4. `prompts/get` for each listed prompt (at most 20), its required
//!    arguments given the value `example`;
//! 5. `resources/read` for each listed resource (at most 20);
//! 6. `tools/call` for each tool annotated `readOnlyHint: true` (at most 20;
//!    no other tool is ever called), with arguments generated from its input
//!    schema;
//! 7. an unknown method, `mcpcheck/no-such-method` (a server must answer
//!    -32601);
//! 8. `tools/call` of a tool that does not exist
//!    (`mcpcheck.probe.no-such-tool`): an error, and no tool runs;
//! 9. 2026-07-28 only: a `subscriptions/listen` stream for the first listed
//!    resource, closed once acknowledged; then the revision's negative probes: `tools/list` without
//!    `_meta`, and with `_meta` lacking `clientCapabilities` (-32602);
//!    `tools/list` naming version `2099-01-01` (-32022 on stdio; over HTTP
//!    the `MCP-Protocol-Version` header then differs, -32020); `ping`,
//!    `logging/setLevel` and `initialize` as 2026-07-28 requests (-32601);
//!    over HTTP, `tools/list` naming `2099-01-01` in `_meta` and in its
//!    header alike (-32022). Over HTTP the capture records each answer's
//!    status, which the rules judge too (400 for the refusals, 404 for the
//!    methods).
//! 10. the extensions the server declares or uses ([`extension_steps`]): for
//!     Skills, `skills/list` through its pages, `skills/get` of each skill
//!     (at most 20), `resources/read` of the files its manifest names (at
//!     most 20 per skill, none above 4 MiB), and `skills/get` of a URI no
//!     server serves; for MCP Apps, `resources/read` of each `ui://`
//!     resource a tool names; for Tasks (2026-07-28), `tasks/get` of each
//!     task a read-only call created, until it ends and once more (at most
//!     20 polls), a `subscriptions/listen` stream for the first one (closed
//!     once a `notifications/tasks` came, or the step's time passed), that
//!     tool call again without the extension (no task may come back), and a
//!     `tasks/get` without the extension (a server must refuse it). The
//!     client declares the tasks and apps extensions on every other request.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::findings::{Family, Report};
use mcpcheck_core::invariants::{self, RevisionOutcome};
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::capture::{Recording, render};
use crate::client::handler::Mocks;
use crate::client::listing::{Need, list_all};
use crate::client::{Endpoint, Session};
use crate::error::Result;
use crate::output::err;
use crate::target::TargetArgs;
use crate::verdict::{FindingsArgs, FindingsFormat, finish};

/// The handshake revision probed by default.
const HANDSHAKE_VERSION: &str = "2025-11-25";
/// The stateless revision probed by default.
const STATELESS_VERSION: &str = "2026-07-28";
/// A version no server supports, for the unsupported-version probe.
const UNSUPPORTED_VERSION: &str = "2099-01-01";

/// Probe a live server with a fixed, read-only sequence of requests, in
/// each protocol era it offers, and check each recorded session against
/// the conformance invariants of its revision.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Exit status: 0 every invariant exercised holds in every revision probed; 1 a finding (or the server could not be \
reached or opened no session); 2 a usage error.\n\n",
    crate::help::docs_line!("conformance"),
    "\n",
    crate::help::rules_lines!("invariants", "INV-001", "their categories and sources")
))]
pub struct ConformanceArgs {
    #[command(flatten)]
    target: TargetArgs,

    /// Write the recorded session (the capture) to FILE; when two revisions
    /// are probed, the 2026-07-28 session goes to FILE with `.2026-07-28`
    /// before its extension.
    #[arg(long, value_name = "FILE")]
    capture_out: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    format: FindingsFormat,

    #[command(flatten)]
    findings: FindingsArgs,

    /// How long each step may take.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// Probe only this protocol revision (default: 2025-11-25, then
    /// 2026-07-28 when the server offers it).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    protocol_version: Option<String>,

    /// Also run the OAuth authorization checks of `mcpcheck probe --auth`
    /// (H401 to H409) against --url, with the client of --auth-client-id and
    /// --auth-client-secret when given; their findings join the report.
    #[arg(long, requires = "url")]
    auth: bool,
}

fn parse_version(v: &str) -> std::result::Result<String, String> {
    mcpcheck_core::suite::check_protocol_version(v).map(|()| v.to_string())
}

const MAX_ITEMS: usize = 20;

pub fn main(args: &ConformanceArgs) -> Result<ExitCode> {
    args.findings.selection()?;
    let endpoint = args.target.endpoint()?;
    let plan = Plan {
        protocol_version: args.protocol_version.clone(),
        timeout: args.timeout,
        capture_out: args.capture_out.clone(),
    };
    let runtime = crate::error::runtime()?;
    let report = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let mut report = match judge(&plan, &endpoint).await {
            Ok(report) => report,
            Err(message) => {
                err(&format!("mcpcheck conformance: {message}\n"));
                return None;
            }
        };
        if let (Some(url), true) = (&args.target.url, args.auth) {
            let client = args
                .target
                .auth
                .auth_client_id
                .clone()
                .zip(args.target.auth.auth_client_secret.clone());
            crate::commands::http_probe::add_authorization(
                &mut report,
                url,
                &args.target.headers,
                client,
                args.timeout,
            )
            .await;
        }
        Some(report)
    });
    let Some(report) = report else {
        return Ok(ExitCode::from(1));
    };
    let mut judged = vec![Family::Invariants];
    if args.auth {
        judged.push(Family::Http);
    }
    finish(report, args.format, &args.findings, &judged)
}

/// What to probe: which revision (both eras when none), each step's time,
/// where to write the captures.
#[derive(Debug, Clone)]
pub struct Plan {
    pub protocol_version: Option<String>,
    pub timeout: Duration,
    pub capture_out: Option<PathBuf>,
}

/// One revision's recorded probe.
struct Probed {
    version: String,
    events: Vec<crate::client::tap::Event>,
    failure: Option<String>,
    /// Whether a session opened at all.
    opened: bool,
}

/// Probes `endpoint` in each revision of `plan` and judges every session: the
/// conformance report. The error names what could not be read back.
pub async fn judge(plan: &Plan, endpoint: &Endpoint) -> std::result::Result<Report, String> {
    let args = plan;
    let both = args.protocol_version.is_none();
    let versions: Vec<String> = match &args.protocol_version {
        Some(v) => vec![v.clone()],
        None => vec![HANDSHAKE_VERSION.into(), STATELESS_VERSION.into()],
    };
    let mut outcomes: Vec<RevisionOutcome> = Vec::new();
    let label = endpoint.label();
    for version in &versions {
        let stateless = mcpcheck_core::suite::is_stateless(version);
        let probed = probe(endpoint, version, args.timeout).await;
        if let Some(refusal) = probed.failure.as_deref().and_then(http_refusal)
            && !probed.opened
        {
            // The transport refused the session (401, 403, 404…): there is no
            // JSON-RPC to judge, and an unanswered initialize would blame the
            // wrong thing. Say what the HTTP answer was, and probe no further.
            write_capture(
                args,
                &label,
                endpoint,
                version,
                &probed.events,
                both && stateless,
            );
            outcomes.push(invariants::unjudged_revision(version, refusal));
            break;
        }
        if both && stateless && !probed.opened && !outcomes.is_empty() {
            // The server does not offer this era: say so, and judge nothing.
            err(&format!(
                "mcpcheck conformance: {label} does not offer {version} ({}); probed the handshake era only\n",
                probed.failure.as_deref().unwrap_or("no session")
            ));
            continue;
        }
        let capture = write_capture(
            args,
            &label,
            endpoint,
            version,
            &probed.events,
            both && stateless,
        );
        match invariants::judge_revision(&probed.version, &capture, probed.failure) {
            Ok(outcome) => outcomes.push(outcome),
            Err(d) => {
                return Err(format!(
                    "the recorded {version} session is not a capture: {d:?}"
                ));
            }
        }
    }
    crate::client::stdio::reap_all().await;
    Ok(invariants::conformance_report(&label, &outcomes))
}

fn write_capture(
    args: &Plan,
    label: &str,
    endpoint: &Endpoint,
    version: &str,
    events: &[crate::client::tap::Event],
    beside: bool,
) -> String {
    let capture = render(&Recording {
        label,
        transport: endpoint.transport(),
        protocol_version: version,
        events,
    });
    if let Some(path) = &args.capture_out {
        let path = if beside {
            revision_path(path, version)
        } else {
            path.clone()
        };
        if let Err(e) = std::fs::write(&path, format!("{capture}\n")) {
            err(&format!(
                "mcpcheck conformance: cannot write {}: {e}\n",
                path.display()
            ));
        }
    }
    capture
}

/// When a failure is an HTTP refusal (`HTTP 401 Unauthorized (WWW-Authenticate:
/// …)`), the refusal as a sentence naming the status and its challenge.
fn http_refusal(failure: &str) -> Option<String> {
    let at = failure.match_indices("HTTP ").find_map(|(i, _)| {
        let code = failure.get(i + 5..i + 8)?;
        (code.bytes().all(|b| b.is_ascii_digit()) && matches!(code.as_bytes()[0], b'4' | b'5'))
            .then_some(i)
    })?;
    let rest = &failure[at..];
    // The status line and its headers; the body after them is the server's.
    let status = match rest.find("): ") {
        Some(end) if rest[..end].contains('(') => &rest[..=end],
        _ => rest.split(": ").next().unwrap_or(rest),
    };
    let hint = if status.starts_with("HTTP 401") {
        "; give credentials with --header 'Authorization: Bearer TOKEN'"
    } else {
        ""
    };
    Some(format!(
        "the server refused the session with {status}{hint}"
    ))
}

/// `dir/cap.json` → `dir/cap.2026-07-28.json`.
fn revision_path(path: &Path, version: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{version}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{version}"),
    };
    path.with_file_name(name)
}

/// Open a session of `version` and run its probe sequence.
async fn probe(endpoint: &Endpoint, version: &str, step: Duration) -> Probed {
    let connected =
        Session::connect(endpoint, version, &probe_mocks(), Deadline::now() + step).await;
    let mut session = match connected {
        Err(e) => {
            return Probed {
                version: version.to_string(),
                events: e.events,
                failure: Some(e.message),
                opened: false,
            };
        }
        Ok(s) => s,
    };
    let stateless = mcpcheck_core::suite::is_stateless(version);
    if !stateless {
        let _ = session.request("ping", None, Deadline::now() + step).await;
    }
    let (tools, resources) = read_only_sequence(&mut session, step).await;
    if stateless {
        // A subscriptions/listen stream, opened and closed: its acknowledgment
        // and tags are what INV-046 judges.
        if let Some(uri) = resources
            .iter()
            .find_map(|r| r.get("uri").and_then(Value::as_str))
        {
            let _ = session.subscribe(uri, Deadline::now() + step).await;
            let _ = session.unsubscribe(uri, Deadline::now() + step).await;
        }
        let over_http = endpoint.transport() == "http";
        negative_probes(&mut session, version, step, over_http).await;
    }
    extension_steps(&mut session, &tools, stateless, step).await;
    let events = session.tap.all();
    session.close().await;
    Probed {
        version: version.to_string(),
        events,
        failure: None,
        opened: true,
    }
}

/// Steps 3 to 8: lists, reads, read-only tool calls, the unknown method and
/// the unknown tool. Returns the listed tools and resources.
async fn read_only_sequence(session: &mut Session, step: Duration) -> (Vec<Value>, Vec<Value>) {
    // The lists are part of the sequence, not its verdict: a list that
    // fails is in the capture, where the invariants judge it, and what
    // follows works with what was read.
    let mut list = async |method: &str, key: &str| {
        list_all(session, method, key, step, Need::Optional)
            .await
            .map(|l| l.items)
            .unwrap_or_default()
    };
    let tools = list("tools/list", "tools").await;
    let prompts = list("prompts/list", "prompts").await;
    let resources = list("resources/list", "resources").await;
    let _ = list("resources/templates/list", "resourceTemplates").await;
    for p in prompts.iter().take(MAX_ITEMS) {
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            continue;
        };
        let arguments = mcpcheck_core::generate::prompt_arguments(p);
        let mut params = json!({"name": name});
        if !arguments.is_empty() {
            params["arguments"] = Value::Object(arguments);
        }
        let _ = session
            .request("prompts/get", Some(params), Deadline::now() + step)
            .await;
    }
    for r in resources.iter().take(MAX_ITEMS) {
        if let Some(uri) = r.get("uri").and_then(Value::as_str) {
            let _ = session
                .request(
                    "resources/read",
                    Some(json!({"uri": uri})),
                    Deadline::now() + step,
                )
                .await;
        }
    }
    // A call names its tool: a name listed twice is called only when every
    // tool of that name says it is read-only.
    let risks = mcpcheck_core::probe::WriteRisks::new(&tools);
    for tool in tools.iter().filter(|t| risks.read_only(t)).take(MAX_ITEMS) {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
        let arguments = match mcpcheck_core::probe::arguments_within_bounds(&schema) {
            Ok(v) => v,
            Err(why) => {
                crate::output::err(&format!(
                    "mcpcheck conformance: not calling {}: no arguments within mcpcheck's bounds: {why}\n",
                    Value::from(name)
                ));
                continue;
            }
        };
        let _ = session
            .request(
                "tools/call",
                Some(json!({"name": name, "arguments": arguments})),
                Deadline::now() + step,
            )
            .await;
    }
    let _ = session
        .request(
            "mcpcheck/no-such-method",
            Some(json!({})),
            Deadline::now() + step,
        )
        .await;
    let bad = json!({"name": "mcpcheck.probe.no-such-tool", "arguments": {}});
    let _ = session
        .request("tools/call", Some(bad), Deadline::now() + step)
        .await;
    (tools, resources)
}

/// Step 9: the 2026-07-28 requests a server must refuse, sent as they are.
/// Over HTTP the version probe goes twice: with the session's version in
/// `MCP-Protocol-Version` (a header mismatch, -32020), then with the header
/// agreeing with its `_meta` (an unsupported version, -32022), as a client
/// that asks for a version the server lacks sends it.
async fn negative_probes(session: &mut Session, version: &str, step: Duration, over_http: bool) {
    let caps = "io.modelcontextprotocol/clientCapabilities";
    let ver = "io.modelcontextprotocol/protocolVersion";
    let full = |v: &str| json!({"_meta": {ver: v, caps: {}}});
    let probes = [
        ("tools/list", None),
        ("tools/list", Some(json!({"_meta": {ver: version}}))),
        ("tools/list", Some(full(UNSUPPORTED_VERSION))),
        ("ping", Some(full(version))),
        ("logging/setLevel", {
            let mut p = full(version);
            p["level"] = json!("info");
            Some(p)
        }),
        // As a 2026-07-28 request only (`_meta`, no handshake parameters): a
        // server that still serves the handshake era may refuse a handshake
        // asking for 2026-07-28 as an unsupported version instead.
        ("initialize", Some(full(version))),
    ];
    for (method, params) in probes {
        let _ = session
            .request_as_is(method, params, Deadline::now() + step)
            .await;
    }
    if over_http {
        session
            .tap
            .send_version_header("tools/list", UNSUPPORTED_VERSION);
        let _ = session
            .request_as_is(
                "tools/list",
                Some(full(UNSUPPORTED_VERSION)),
                Deadline::now() + step,
            )
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::http_refusal;

    #[test]
    fn http_refusals_are_named_and_other_failures_are_not() {
        let failure = "initialize failed: JSON-RPC error: -32603: HTTP 401 Unauthorized (WWW-Authenticate: Bearer realm=\"x\"): {\"error\":\"unauthorized\"}";
        assert_eq!(
            http_refusal(failure).as_deref(),
            Some(
                "the server refused the session with HTTP 401 Unauthorized (WWW-Authenticate: Bearer realm=\"x\"); give credentials with --header 'Authorization: Bearer TOKEN'"
            )
        );
        assert_eq!(
            http_refusal("initialize failed: HTTP 404 Not Found: no such path").as_deref(),
            Some("the server refused the session with HTTP 404 Not Found")
        );
        assert_eq!(
            http_refusal("the server did not answer initialize in time"),
            None
        );
        assert_eq!(http_refusal("HTTP 200 OK but the body was empty"), None);
    }
}

/// The extensions the probe's client declares: tasks (so a task-capable
/// read-only tool may answer with a task) and MCP Apps (so a server that
/// shows UI tools only to hosts that render them shows them).
fn probe_mocks() -> Mocks {
    let mut extensions = serde_json::Map::new();
    extensions.insert(TASKS.into(), json!({}));
    extensions.insert(APPS.into(), json!({"mimeTypes": [APP_MIME]}));
    Mocks {
        extensions: Some(extensions),
        ..Mocks::default()
    }
}

const TASKS: &str = "io.modelcontextprotocol/tasks";
const SKILLS: &str = "io.modelcontextprotocol/skills";
const APPS: &str = "io.modelcontextprotocol/ui";
const APP_MIME: &str = "text/html;profile=mcp-app";
/// A skill URI no server serves, for the unknown-URI probe.
const NO_SKILL: &str = "skill://mcpcheck-probe/no-such-skill/SKILL.md";
/// The largest skill file the probe reads.
const MAX_SKILL_FILE: u64 = 4 * 1024 * 1024;
/// How many times one task is polled.
const MAX_POLLS: usize = 20;

/// Step 10: the extensions' probes, for those the session's server declares
/// (Skills, Tasks) or uses (MCP Apps, on its tools).
async fn extension_steps(session: &mut Session, tools: &[Value], stateless: bool, step: Duration) {
    let capabilities = session
        .discover_result()
        .or_else(|| session.initialize_result())
        .and_then(|r| r.get("capabilities").cloned())
        .unwrap_or(Value::Null);
    let declares = |id: &str| {
        capabilities
            .get("extensions")
            .and_then(|e| e.get(id))
            .is_some_and(|v| !v.is_null())
    };
    if declares(SKILLS) {
        skills_steps(session, step).await;
    }
    apps_steps(session, tools, step).await;
    if stateless && declares(TASKS) {
        tasks_steps(session, step).await;
    }
}

/// `skills/list` through its pages, `skills/get` of each skill, the files
/// of its manifest, and a URI that names no skill.
async fn skills_steps(session: &mut Session, step: Duration) {
    let skills = list_all(session, "skills/list", "skills", step, Need::Optional)
        .await
        .map(|l| l.items)
        .unwrap_or_default();
    let mut files: Vec<String> = Vec::new();
    for skill in skills.iter().take(MAX_ITEMS) {
        let Some(uri) = skill.get("uri").and_then(Value::as_str) else {
            continue;
        };
        let reply = session
            .request(
                "skills/get",
                Some(json!({"uri": uri})),
                Deadline::now() + step,
            )
            .await;
        let entry = reply
            .result
            .as_ref()
            .and_then(|r| r.get("skill"))
            .unwrap_or(skill);
        let manifest = entry.get("resources").and_then(Value::as_array);
        for file in manifest.into_iter().flatten().take(MAX_ITEMS) {
            let small = file
                .get("size")
                .and_then(Value::as_u64)
                .is_some_and(|s| s <= MAX_SKILL_FILE);
            if let Some(uri) = file.get("uri").and_then(Value::as_str)
                && small
                && !files.iter().any(|f| f == uri)
            {
                files.push(uri.to_string());
            }
        }
    }
    for uri in files {
        let _ = session
            .request(
                "resources/read",
                Some(json!({"uri": uri})),
                Deadline::now() + step,
            )
            .await;
    }
    let _ = session
        .request(
            "skills/get",
            Some(json!({"uri": NO_SKILL})),
            Deadline::now() + step,
        )
        .await;
}

/// `resources/read` of each `ui://` resource a listed tool names.
async fn apps_steps(session: &mut Session, tools: &[Value], step: Duration) {
    let mut named: Vec<&str> = tools
        .iter()
        .filter_map(mcpcheck_core::invariants::apps::resource_uri)
        .filter(|uri| uri.starts_with("ui://"))
        .collect();
    named.dedup();
    for uri in named.into_iter().take(MAX_ITEMS) {
        let _ = session
            .request(
                "resources/read",
                Some(json!({"uri": uri})),
                Deadline::now() + step,
            )
            .await;
    }
}

/// `tasks/get` of each task a read-only call created, until it ends and
/// once more (a finished task stays finished); the first such call again
/// without the extension, which must not get a task; and `tasks/get`
/// without the extension, which a server must refuse.
async fn tasks_steps(session: &mut Session, step: Duration) {
    let events = session.tap.all();
    // The tools/call requests that went out, by id, for the call to repeat.
    let calls: Vec<(Value, Value)> = events
        .iter()
        .filter_map(|e| {
            let json = e.json.as_ref()?;
            (json.get("method").and_then(Value::as_str) == Some("tools/call"))
                .then(|| Some((json.get("id")?.clone(), json.get("params")?.clone())))?
        })
        .collect();
    let mut created: Vec<(String, u64, Option<Value>)> = Vec::new();
    for e in &events {
        let Some(json) = e.json.as_ref() else {
            continue;
        };
        let Some(result) = json.get("result") else {
            continue;
        };
        let handle = result.get("resultType").and_then(Value::as_str) == Some("task")
            || result.get("status").is_some_and(Value::is_string);
        let Some(id) = result
            .get("taskId")
            .and_then(Value::as_str)
            .filter(|_| handle)
        else {
            continue;
        };
        let wait = result
            .get("pollIntervalMs")
            .and_then(Value::as_u64)
            .unwrap_or(200)
            .clamp(50, 1_000);
        let call = calls
            .iter()
            .find(|(request, _)| Some(request) == json.get("id"))
            .map(|(_, params)| params.clone());
        created.push((id.to_string(), wait, call));
    }
    for (id, wait, _) in created.iter().take(MAX_ITEMS) {
        let mut ended = false;
        for _ in 0..MAX_POLLS {
            let reply = session
                .request(
                    "tasks/get",
                    Some(json!({"taskId": id})),
                    Deadline::now() + step,
                )
                .await;
            let status = reply
                .result
                .as_ref()
                .and_then(|r| r.get("status"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if reply.result.is_none() || ended {
                break;
            }
            if matches!(status.as_str(), "completed" | "failed" | "cancelled") {
                // Once more: a finished task must stay finished.
                ended = true;
                continue;
            }
            tokio::time::sleep(Duration::from_millis(*wait)).await;
        }
    }
    let Some(version) = session.protocol_version() else {
        return;
    };
    let undeclared_meta = json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let Some(Value::Object(mut params)) = created.iter().find_map(|(_, _, call)| call.clone()) {
        params.insert("_meta".into(), undeclared_meta.clone());
        let _ = session
            .request_as_is(
                "tools/call",
                Some(Value::Object(params)),
                Deadline::now() + step,
            )
            .await;
    }
    // A stream for the first task: it carries notifications/tasks only.
    if let Some((id, _, _)) = created.first() {
        let key = format!("task:{id}");
        let mark = session.tap.mark();
        let acknowledged = session
            .listen(json!({"taskIds": [id]}), &key, Deadline::now() + step)
            .await;
        if acknowledged.result.is_some() {
            let _ = session
                .wait_notification(mark, Deadline::now() + step, |n| {
                    n.get("method").and_then(Value::as_str) == Some("notifications/tasks")
                })
                .await;
            // What the server sends with it arrives in the same moment.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let _ = session.unsubscribe(&key, Deadline::now() + step).await;
    }
    let undeclared = json!({
        "taskId": created.first().map_or("mcpcheck-probe-task", |(id, _, _)| id.as_str()),
        "_meta": undeclared_meta,
    });
    let _ = session
        .request_as_is("tasks/get", Some(undeclared), Deadline::now() + step)
        .await;
}
