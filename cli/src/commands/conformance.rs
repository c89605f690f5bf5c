//! `mcpcheck conformance`: connect to a live server, run a fixed probe
//! sequence that changes nothing on it, record the session below rmcp, and
//! judge the capture with every conformance invariant.
//!
//! The probe sequence, in order (every step has a timeout; a step that fails
//! does not stop the ones after it):
//!
//! 1. `initialize`, then `notifications/initialized`;
//! 2. `ping`;
//! 3. `tools/list`, `prompts/list`, `resources/list` and
//!    `resources/templates/list`, each followed through `nextCursor` (at most
//!    50 pages, and never the same cursor twice) — asked whatever the server
//!    advertised, so a list served without its capability is seen;
//! 4. `prompts/get` for each listed prompt (at most 20), its required arguments
//!    given the value `example`;
//! 5. `resources/read` for each listed resource (at most 20);
//! 6. an unknown method, `mcpcheck/no-such-method` (a server must answer -32601);
//! 7. a call with invalid parameters, `tools/call` of a tool that does not
//!    exist (`mcpcheck.probe.no-such-tool`): the server must answer with an
//!    error (-32602 in the spec), and no tool runs.
//!
//! Nothing is called that could change the server: no tool is run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::invariants;
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::capture::{Recording, render};
use crate::client::handler::Mocks;
use crate::client::listing::list_all;
use crate::client::{Endpoint, Session};
use crate::error::Result;
use crate::output::{Format, err, out};
use crate::target::TargetArgs;

/// Probe a live server with a fixed, read-only sequence of requests and
/// check the recorded session against every conformance invariant.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 every invariant holds; 1 a finding (or the server could not be \
reached or initialized); 2 a usage error."
)]
pub struct ConformanceArgs {
    #[command(flatten)]
    target: TargetArgs,

    /// Write the recorded session (the capture) to FILE.
    #[arg(long, value_name = "FILE")]
    capture_out: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// How long each step may take.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// The protocol version to ask for at initialize.
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25")]
    protocol_version: String,
}

const MAX_ITEMS: usize = 20;

pub fn main(args: &ConformanceArgs) -> Result<ExitCode> {
    let endpoint = args.target.endpoint()?;
    Ok(crate::error::runtime()?.block_on(probe_and_judge(args, &endpoint)))
}

async fn probe_and_judge(args: &ConformanceArgs, endpoint: &Endpoint) -> ExitCode {
    crate::signals::clean_up_on_interrupt();
    let step = args.timeout;
    let connected = Session::connect(
        endpoint,
        &args.protocol_version,
        &Mocks::default(),
        Deadline::now() + step,
    )
    .await;
    let (events, failure) = match connected {
        Err(e) => (e.events, Some(e.message)),
        Ok(mut session) => {
            let _ = session.request("ping", None, Deadline::now() + step).await;
            let _ = list_all(&mut session, "tools/list", "tools", step).await;
            let prompts = list_all(&mut session, "prompts/list", "prompts", step).await;
            let resources = list_all(&mut session, "resources/list", "resources", step).await;
            let _ = list_all(
                &mut session,
                "resources/templates/list",
                "resourceTemplates",
                step,
            )
            .await;
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
            let events = session.tap.all();
            session.close().await;
            crate::client::stdio::reap_all().await;
            (events, None)
        }
    };
    let protocol_version = events
        .iter()
        .find_map(|e| {
            e.json
                .as_ref()?
                .pointer("/result/protocolVersion")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_else(|| args.protocol_version.clone());
    let capture = render(&Recording {
        label: &endpoint.label(),
        transport: endpoint.transport(),
        protocol_version: &protocol_version,
        events: &events,
    });
    if let Some(path) = &args.capture_out
        && let Err(e) = std::fs::write(path, format!("{capture}\n"))
    {
        err(&format!(
            "mcpcheck conformance: cannot write {}: {e}\n",
            path.display()
        ));
    }
    if let Some(f) = &failure {
        err(&format!("mcpcheck conformance: {f}\n"));
    }
    let report = match invariants::check_text(&capture) {
        Ok(r) => r,
        Err(d) => {
            err(&format!(
                "mcpcheck conformance: the recorded session is not a capture: {d:?}\n"
            ));
            return ExitCode::from(1);
        }
    };
    let text = match args.format {
        Format::Text => invariants::render_text(&report),
        Format::Json => invariants::render_json(&report),
    };
    out(&text);
    if !text.ends_with('\n') {
        out("\n");
    }
    if report.passed() && failure.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
