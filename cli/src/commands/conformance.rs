//! `mcpcheck conformance`: connect to a live server, run a fixed probe
//! sequence that changes nothing on it, record each session below rmcp, and
//! judge every capture with the conformance invariants of its revision.
//!
//! Without `--protocol-version`, both eras are probed: the handshake era
//! (2025-11-25) and, when the server offers it, 2026-07-28. Each revision is
//! reported on its own, every rule as passed, failed, recommended-not-met or
//! not verified (the session never contained what the rule judges: a rule
//! that had nothing to judge is never counted as holding).
//!
//! The probe sequence of a revision, in order (every step waits `--timeout`,
//! each progress notification starting a new step, never past `--max-wait`;
//! a step that fails does not stop the ones after it):
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
//!    schema (over 2026-07-28 HTTP with the `Mcp-Param-*` headers its
//!    `x-mcp-header` annotations ask for); a call whose arguments ask for
//!    more time (a `duration`) is given that time first;
//! 7. an unknown method, `mcpcheck/no-such-method` (a server must answer
//!    -32601);
//! 8. `tools/call` of a tool that does not exist
//!    (`mcpcheck.probe.no-such-tool`), `prompts/get` of a prompt that does
//!    not exist and `resources/read` of a resource that does not exist
//!    (`mcpcheck-probe:///no-such-resource`): errors, and nothing runs;
//! 9. 2026-07-28 only: a `subscriptions/listen` stream for the first listed
//!    resource and one with an empty filter, each closed once acknowledged;
//!    then the revision's negative probes: `tools/list` without `_meta`,
//!    and with `_meta` lacking `clientCapabilities` (-32602); `tools/list`
//!    naming version `2099-01-01` (-32022 on stdio; over HTTP the
//!    `MCP-Protocol-Version` header then differs, -32020); `ping`,
//!    `logging/setLevel`, `initialize`, `resources/subscribe` and
//!    `resources/unsubscribe` as 2026-07-28 requests (-32601); over HTTP,
//!    `tools/list` naming `2099-01-01` in `_meta` and in its header alike
//!    (-32022), `tools/list` with `Mcp-Method: tools/call` and without
//!    `Mcp-Method`, `tools/call` of the unknown tool with another `Mcp-Name`,
//!    and for a read-only tool with `x-mcp-header` arguments a call whose
//!    `Mcp-Param-*` header differs from the argument (-32020 each); last, a
//!    second `server/discover` (with a W3C `traceparent`), which must agree
//!    with the first within its `ttlMs`. Over HTTP the capture records each
//!    answer's status and each request's MCP headers, which the rules judge
//!    too (400 for the refusals, 404 for the methods).
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
//!
//! A request the server is still working on when the wait runs out
//! (progress kept coming, or its arguments asked for longer) is cancelled
//! and reported as not verified, naming the flag that waits longer: the
//! server is never blamed for the client's limit. Over `--url` the HTTP
//! checks the official suite scores run too: a foreign `Origin`, a
//! rebinding `Host`, and a session answered after its DELETE (H101, H102,
//! H502 of `mcpcheck probe`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::findings::{Family, Gate, Report};
use mcpcheck_core::invariants::{self, RevisionOutcome};
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::capture::{Recording, render};
use crate::client::handler::Mocks;
use crate::client::listing::{Need, list_all};
use crate::client::tap::HeaderChange;
use crate::client::{Endpoint, Patience, Session};
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
/// The tool the probes name and no server has.
const PROBE_TOOL: &str = "mcpcheck.probe.no-such-tool";
/// The trace context the second `server/discover` carries (W3C Trace Context:
/// "mcpcheck-conform" as the trace id, "mcpcheck" as the parent id).
const TRACEPARENT: &str = "00-6d6370636865636b2d636f6e666f726d-6d6370636865636b-01";
/// How long an open listen stream with an empty filter is watched for
/// notifications it did not ask for.
const LISTEN_WATCH: Duration = Duration::from_millis(500);
/// The longest the probe waits, at its end, for messages still on their way.
const SETTLE: Duration = Duration::from_secs(1);

/// Probe a live server with a fixed, read-only sequence of requests, in
/// each protocol era it offers, and check each recorded session against
/// the conformance invariants of its revision.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Exit status: 0 every invariant exercised holds in every revision probed (recommendations not met \
fail only with --strict); 1 a finding (or the server could not be reached or opened no session); 2 a usage error.\n\n",
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

    /// How long each step may take without a sign of work; each progress
    /// notification for the request starts a new step.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// The longest one request is waited for, however much progress it
    /// sends; a request still at work then is cancelled and reported as not
    /// verified.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::output::parse_duration)]
    max_wait: Duration,

    /// Probe only this protocol revision (default: 2025-11-25, then
    /// 2026-07-28 when the server offers it).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    protocol_version: Option<String>,

    /// Recommendations not met (SHOULD-level rules, such as serverInfo in
    /// every result) fail the run too.
    #[arg(long)]
    strict: bool,

    /// Also run the OAuth authorization checks of `mcpcheck probe --auth`
    /// (H401 to H409) against --url, with the client of --auth-client-id and
    /// --auth-client-secret when given; their findings join the report.
    #[arg(long, requires = "url")]
    auth: bool,

    #[command(flatten)]
    progress: crate::progress::ProgressArgs,
}

fn parse_version(v: &str) -> std::result::Result<String, mcpcheck_core::suite::UnknownVersion> {
    mcpcheck_core::suite::check_protocol_version(v).map(|()| v.to_string())
}

const MAX_ITEMS: usize = 20;

pub fn main(args: &ConformanceArgs) -> Result<ExitCode> {
    args.findings.selection()?;
    let endpoint = args.target.endpoint()?;
    let plan = Plan {
        protocol_version: args.protocol_version.clone(),
        timeout: args.timeout,
        max_wait: args.max_wait.max(args.timeout),
        capture_out: args.capture_out.clone(),
        strict: args.strict,
    };
    let runtime = crate::error::runtime()?;
    let progress = crate::progress::Progress::new(
        crate::progress::Mode::of(args.progress.quiet),
        "mcpcheck conformance: ",
        0,
    );
    let report = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let judged = judge(&plan, &endpoint, &progress).await;
        progress.finish();
        let mut report = match judged {
            Ok(report) => report,
            Err(message) => {
                err(&format!("mcpcheck conformance: {message}\n"));
                return None;
            }
        };
        if let Some(url) = &args.target.url {
            // The HTTP checks the official suite scores: DNS rebinding
            // (foreign Origin, rebinding Host) and a session after its DELETE.
            crate::commands::http_probe::add_transport_checks(
                &mut report,
                url,
                &args.target.headers,
                args.timeout,
            )
            .await;
        }
        if let (Some(url), true) = (&args.target.url, args.auth) {
            let client = args.target.auth.client();
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
    let Some(mut report) = report else {
        return Ok(ExitCode::from(1));
    };
    cases_for_http_findings(&mut report);
    let mut judged = vec![Family::Invariants];
    if args.target.url.is_some() {
        judged.push(Family::Http);
    }
    finish(report, args.format, &args.findings, &judged)
}

/// The findings of the HTTP checks (`http`, `authorization`) as cases of
/// their own, one per rule, so that JUnit and TAP show them beside the
/// revisions' rules.
fn cases_for_http_findings(report: &mut Report) {
    use mcpcheck_core::findings::{Case, CaseStatus};
    let cased: Vec<usize> = report
        .cases
        .iter()
        .flat_map(|c| c.findings.iter().copied())
        .collect();
    for (i, f) in report.findings.iter().enumerate() {
        if cased.contains(&i) {
            continue;
        }
        let suite = f.location.context.clone().unwrap_or_else(|| "http".into());
        let name = format!("{} {}", f.code(), f.rule.title);
        let failing = report.gate.fails(f);
        match report
            .cases
            .iter_mut()
            .find(|c| c.suite == suite && c.name == name)
        {
            Some(c) => {
                c.findings.push(i);
                if failing {
                    c.status = CaseStatus::Failed;
                }
            }
            None => report.cases.push(Case {
                suite: suite.clone(),
                class: suite,
                name,
                status: if failing {
                    CaseStatus::Failed
                } else {
                    CaseStatus::Noted
                },
                label: String::new(),
                detail: String::new(),
                duration_ms: None,
                findings: vec![i],
            }),
        }
    }
}

/// What to probe: which revision (both eras when none), each step's time and
/// the longest wait, where to write the captures, whether recommendations
/// not met fail.
#[derive(Debug, Clone)]
pub struct Plan {
    pub protocol_version: Option<String>,
    pub timeout: Duration,
    pub max_wait: Duration,
    pub capture_out: Option<PathBuf>,
    pub strict: bool,
}

impl Plan {
    /// How long one probe request is waited for, with the time its own
    /// arguments ask for.
    fn patience(&self, declared: Option<Duration>) -> Patience {
        Patience {
            step: self.timeout,
            cap: self.max_wait,
            declared,
            flags: ("--timeout", "--max-wait"),
        }
    }
}

/// One revision's recorded probe.
struct Probed {
    version: String,
    events: Vec<crate::client::tap::Event>,
    failure: Option<String>,
    /// Whether a session opened at all.
    opened: bool,
}

impl Probed {
    /// The id of the session's opening request: `server/discover` (stateless)
    /// or `initialize`.
    fn opening_id(&self, stateless: bool) -> Option<&Value> {
        let opening = if stateless {
            "server/discover"
        } else {
            "initialize"
        };
        self.events
            .iter()
            .find(|e| e.method() == Some(opening))
            .and_then(|e| e.id())
    }

    /// The answer to the session's opening request, if one came.
    fn opening_answer(&self, stateless: bool) -> Option<&Value> {
        let id = self.opening_id(stateless)?;
        self.events
            .iter()
            .find(|e| e.is_response() && e.id() == Some(id))
            .and_then(|e| e.json.as_deref())
    }

    /// Whether the opening was answered with a result (a server of the era,
    /// whatever else went wrong).
    fn opening_answered_with_result(&self, stateless: bool) -> bool {
        self.opening_answer(stateless)
            .is_some_and(|j| j.get("result").is_some())
    }

    /// Whether the opening was refused with a JSON-RPC error from the server.
    fn opening_refused(&self) -> bool {
        [true, false].into_iter().any(|stateless| {
            self.opening_answer(stateless)
                .is_some_and(|j| j.get("error").is_some())
        })
    }
}

/// Probes `endpoint` in each revision of `plan` and judges every session: the
/// conformance report. The error names what could not be read back. Each
/// revision is an item of `progress`.
pub async fn judge(
    plan: &Plan,
    endpoint: &Endpoint,
    progress: &crate::progress::Progress,
) -> std::result::Result<Report, JudgeError> {
    let args = plan;
    let both = args.protocol_version.is_none();
    let versions: Vec<String> = match &args.protocol_version {
        Some(v) => vec![v.clone()],
        None => vec![HANDSHAKE_VERSION.into(), STATELESS_VERSION.into()],
    };
    let mut outcomes: Vec<RevisionOutcome> = Vec::new();
    // Eras the server does not offer, with why, when both were asked for.
    let mut skipped: Vec<(String, String)> = Vec::new();
    let label = endpoint.label();
    progress.restart(versions.len(), "");
    for version in &versions {
        let stateless = mcpcheck_core::suite::is_stateless(version);
        progress.start(version);
        let probed = probe(endpoint, version, plan).await;
        progress.finish_item(
            version,
            match (&probed.failure, probed.opened) {
                (None, _) => "probed",
                (Some(_), true) => "probed, with a failure",
                (Some(_), false) => "no session",
            },
        );
        let refusal = probed.failure.as_deref().and_then(http_refusal);
        // A server that does not speak this era: it refuses the session's
        // opening with a JSON-RPC error, or over HTTP with 400, 404 or 405 and
        // no error of the era (the versioning page's signature of the other
        // era), or (2026-07-28) leaves server/discover unanswered. The same
        // verdict on every transport: the era is not offered.
        let not_offered = !probed.opened
            && !probed.opening_answered_with_result(stateless)
            && (legacy_signature(probed.failure.as_deref())
                || probed.opening_refused()
                || (stateless && refusal.is_none()));
        if let (Some(refusal), false) = (refusal, not_offered)
            && !probed.opened
        {
            // The transport refused the session (401, 403…): there is no
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
        if not_offered {
            let why = first_line(probed.failure.as_deref().unwrap_or("no session")).to_string();
            if both {
                skipped.push((version.clone(), why));
                continue;
            }
            write_capture(args, &label, endpoint, version, &probed.events, false);
            outcomes.push(invariants::unjudged_revision(
                version,
                format!("the server does not offer {version}: {why}"),
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
            Err(diagnostics) => {
                return Err(JudgeError::NotACapture {
                    version: version.clone(),
                    diagnostics,
                });
            }
        }
    }
    if outcomes.is_empty() {
        // Neither era: the report says why for each.
        for (version, why) in &skipped {
            outcomes.push(invariants::unjudged_revision(
                version,
                format!("the server does not offer {version}: {why}"),
            ));
        }
    } else {
        for (version, why) in &skipped {
            // The server does not offer this era: say so, and judge nothing.
            let probed = outcomes
                .iter()
                .map(|o| o.protocol_version.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            progress.suspend(|| {
                err(&format!(
                    "mcpcheck conformance: {label} does not offer {version} ({why}); probed {probed} only\n"
                ))
            });
        }
    }
    crate::client::stdio::reap_all().await;
    let gate = Gate {
        strict: plan.strict,
        ..Gate::ERRORS
    };
    Ok(invariants::conformance_report_gated(
        &label, &outcomes, gate,
    ))
}

/// Why a conformance probe could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The session recorded in `version` does not read back as a capture
    /// (the capture reader's diagnostics, as Rust shows them).
    #[error("the recorded {version} session is not a capture: {diagnostics:?}")]
    NotACapture {
        version: String,
        diagnostics: Vec<mcpcheck_core::capture::CaptureDiagnostic>,
    },
}

/// The first line of a failure (what follows is the server's stderr).
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

/// Whether a failure is an HTTP answer of the versioning page's legacy
/// signature: 400, 404 or 405 without a 2026-07-28 JSON-RPC error (a modern
/// server's error is read as the request's answer, so it never gets here).
fn legacy_signature(failure: Option<&str>) -> bool {
    failure.is_some_and(|f| {
        ["HTTP 400", "HTTP 404", "HTTP 405"]
            .iter()
            .any(|s| f.contains(s))
    })
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
async fn probe(endpoint: &Endpoint, version: &str, plan: &Plan) -> Probed {
    let step = plan.timeout;
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
    let over_http = endpoint.transport() == "http";
    if !stateless {
        let _ = session.request("ping", None, Deadline::now() + step).await;
    }
    let listed = read_only_sequence(&mut session, plan, stateless && over_http).await;
    if stateless {
        // subscriptions/listen streams, opened and closed: their
        // acknowledgments and tags are what INV-046 and INV-052 judge; the
        // one with an empty filter must carry nothing at all.
        if let Some(uri) = listed
            .resources
            .iter()
            .find_map(|r| r.get("uri").and_then(Value::as_str))
        {
            let _ = session.subscribe(uri, Deadline::now() + step).await;
            let _ = session.unsubscribe(uri, Deadline::now() + step).await;
        }
        let empty = session.listen("", json!({}), Deadline::now() + step).await;
        if empty.result.is_some() {
            tokio::time::sleep(LISTEN_WATCH).await;
        }
        let _ = session.unlisten("").await;
        negative_probes(&mut session, version, plan, over_http, &listed.tools).await;
        // A second server/discover, well within the first one's ttlMs, with
        // a trace context the server may carry on.
        let traced = json!({"_meta": {"traceparent": TRACEPARENT}});
        let _ = session
            .request_patiently("server/discover", Some(traced), plan.patience(None))
            .await;
    }
    settle(&session).await;
    if let Some(why) = session.tap.exceeded() {
        // The session's budget ended it: what the server did not get to
        // answer is the client's limit, not the server's failure.
        session.give_up_on_unanswered(&format!(
            "the client ended the session by a limit of its own: {}",
            why.replace("; the session was ended", "")
        ));
    }
    extension_steps(&mut session, &listed.tools, stateless, step).await;
    let events = session.tap.all();
    session.close().await;
    Probed {
        version: version.to_string(),
        events,
        failure: None,
        opened: true,
    }
}

/// Waits until no message has come for a moment (at most [`SETTLE`]), so the
/// notifications a server sends on a stream of their own, after the answer
/// they belong with, are in the capture every time.
async fn settle(session: &Session) {
    let until = Deadline::now() + SETTLE;
    loop {
        let mark = session.tap.mark();
        tokio::time::sleep(Duration::from_millis(100)).await;
        if session.tap.mark() == mark || Deadline::now() >= until {
            break;
        }
    }
}

/// What the listings offered.
struct Listed {
    tools: Vec<Value>,
    resources: Vec<Value>,
}

/// Steps 3 to 8: lists, reads, read-only tool calls, the unknown method,
/// tool, prompt and resource. `mirror` sends the `Mcp-Param-*` headers of
/// `x-mcp-header` arguments (2026-07-28 over HTTP).
async fn read_only_sequence(session: &mut Session, plan: &Plan, mirror: bool) -> Listed {
    let step = plan.timeout;
    let patience = plan.patience(None);
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
            .request_patiently("prompts/get", Some(params), patience)
            .await;
    }
    for r in resources.iter().take(MAX_ITEMS) {
        if let Some(uri) = r.get("uri").and_then(Value::as_str) {
            let _ = session
                .request_patiently("resources/read", Some(json!({"uri": uri})), patience)
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
        if mirror {
            let headers = invariants::param_headers(&schema, &arguments)
                .into_iter()
                .map(|(n, v)| (n, Some(crate::client::http::header_text(&v))))
                .collect::<Vec<_>>();
            if !headers.is_empty() {
                session.tap.send_headers("tools/call", headers);
            }
        }
        let declared = declared_duration(&schema, &arguments);
        let _ = session
            .request_patiently(
                "tools/call",
                Some(json!({"name": name, "arguments": arguments})),
                plan.patience(declared),
            )
            .await;
    }
    let unknown = [
        ("mcpcheck/no-such-method", json!({})),
        ("tools/call", json!({"name": PROBE_TOOL, "arguments": {}})),
        ("prompts/get", json!({"name": invariants::PROBE_PROMPT})),
        ("resources/read", json!({"uri": invariants::PROBE_RESOURCE})),
    ];
    for (method, params) in unknown {
        let _ = session
            .request_patiently(method, Some(params), patience)
            .await;
    }
    Listed { tools, resources }
}

/// How long a call's own arguments ask the tool to take: the largest number
/// given to a parameter named for a time (`duration`, `delay`, `sleep`,
/// `wait`, `seconds`, …), in milliseconds when its name or description says
/// so (`ms`, `millis`), else in seconds.
fn declared_duration(schema: &Value, arguments: &Value) -> Option<Duration> {
    let properties = schema.get("properties")?.as_object()?;
    let mut longest: Option<Duration> = None;
    for (name, value) in arguments.as_object()? {
        let Some(n) = value.as_f64().filter(|n| n.is_finite() && *n > 0.0) else {
            continue;
        };
        let lower = name.to_ascii_lowercase();
        let described = properties
            .get(name)
            .and_then(|p| p.get("description"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let timed = [
            "duration", "delay", "sleep", "wait", "seconds", "secs", "millis",
        ]
        .iter()
        .any(|w| lower.contains(w))
            || lower == "ms"
            || lower.ends_with("_ms")
            || lower.ends_with("ms") && name.ends_with("Ms");
        if !timed {
            continue;
        }
        let millis = lower == "ms"
            || lower.ends_with("_ms")
            || name.ends_with("Ms")
            || lower.contains("millis")
            || described.contains("millisecond");
        let d = if millis {
            Duration::from_millis(n.min(86_400_000.0) as u64)
        } else {
            Duration::from_secs_f64(n.min(86_400.0))
        };
        longest = Some(longest.map_or(d, |l| l.max(d)));
    }
    longest
}

/// Step 9: the 2026-07-28 requests a server must refuse, sent as they are.
/// Over HTTP the version probe goes twice: with the session's version in
/// `MCP-Protocol-Version` (a header mismatch, -32020), then with the header
/// agreeing with its `_meta` (an unsupported version, -32022), as a client
/// that asks for a version the server lacks sends it; then the headers that
/// mirror the body, each one wrong in turn (-32020).
async fn negative_probes(
    session: &mut Session,
    version: &str,
    plan: &Plan,
    over_http: bool,
    tools: &[Value],
) {
    let step = plan.timeout;
    let caps = "io.modelcontextprotocol/clientCapabilities";
    let ver = "io.modelcontextprotocol/protocolVersion";
    let full = |v: &str| json!({"_meta": {ver: v, caps: {}}});
    let with = |v: &str, mut params: Value| {
        params["_meta"] = json!({ver: v, caps: {}});
        Some(params)
    };
    let probes = [
        ("tools/list", None),
        ("tools/list", Some(json!({"_meta": {ver: version}}))),
        ("tools/list", Some(full(UNSUPPORTED_VERSION))),
        ("ping", Some(full(version))),
        ("logging/setLevel", with(version, json!({"level": "info"}))),
        // As a 2026-07-28 request only (`_meta`, no handshake parameters): a
        // server that still serves the handshake era may refuse a handshake
        // asking for 2026-07-28 as an unsupported version instead.
        ("initialize", Some(full(version))),
        (
            "resources/subscribe",
            with(version, json!({"uri": invariants::PROBE_RESOURCE})),
        ),
        (
            "resources/unsubscribe",
            with(version, json!({"uri": invariants::PROBE_RESOURCE})),
        ),
    ];
    for (method, params) in probes {
        let _ = session
            .request_as_is(method, params, Deadline::now() + step)
            .await;
    }
    if !over_http {
        return;
    }
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
    // The headers mirroring the body, one wrong at a time: a server must
    // compare them before anything else, so nothing runs.
    let wrong: [(&str, Value, HeaderChange); 3] = [
        (
            "tools/list",
            full(version),
            vec![("mcp-method".into(), Some("tools/call".into()))],
        ),
        (
            "tools/list",
            full(version),
            vec![("mcp-method".into(), None)],
        ),
        (
            "tools/call",
            with(version, json!({"name": PROBE_TOOL, "arguments": {}})).unwrap_or_default(),
            vec![("mcp-name".into(), Some("mcpcheck.probe.other-tool".into()))],
        ),
    ];
    for (method, params, headers) in wrong {
        session.tap.send_headers(method, headers);
        let _ = session
            .request_as_is(method, Some(params), Deadline::now() + step)
            .await;
    }
    // A read-only tool with an x-mcp-header argument: its header differs
    // from the argument, so a server refuses the call before running it.
    let risks = mcpcheck_core::probe::WriteRisks::new(tools);
    let annotated = tools.iter().filter(|t| risks.read_only(t)).find_map(|t| {
        let name = t.get("name")?.as_str()?;
        let schema = t.get("inputSchema")?;
        let arguments = mcpcheck_core::probe::arguments_within_bounds(schema).ok()?;
        let mut headers: Vec<(String, Option<String>)> =
            invariants::param_headers(schema, &arguments)
                .into_iter()
                .map(|(n, v)| (n, Some(crate::client::http::header_text(&v))))
                .collect();
        // The first annotated argument's header says something else.
        headers.first_mut()?.1 = Some("mcpcheck-mismatch".into());
        Some((name.to_string(), arguments, headers))
    });
    if let Some((name, arguments, headers)) = annotated {
        session.tap.send_headers("tools/call", headers);
        let params = with(version, json!({"name": name, "arguments": arguments}));
        let _ = session
            .request_as_is("tools/call", params, Deadline::now() + step)
            .await;
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
            .listen(&key, json!({"taskIds": [id]}), Deadline::now() + step)
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
        let _ = session.unlisten(&key).await;
    }
    let undeclared = json!({
        "taskId": created.first().map_or("mcpcheck-probe-task", |(id, _, _)| id.as_str()),
        "_meta": undeclared_meta,
    });
    let _ = session
        .request_as_is("tasks/get", Some(undeclared), Deadline::now() + step)
        .await;
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
