//! `mcpcheck intercept`: a transparent proxy between an MCP client and a
//! server (stdio, or Streamable HTTP) that records the session as a capture
//! and its tool calls as a trace, then checks the capture's invariants and
//! the trajectory assertions (`intercept/` moves the bytes; core judges).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::error::{Result, verdict};
use crate::intercept::{self, Outputs, Recorder};
use crate::output::Format;

/// Sit between an MCP client and a server, pass every message through
/// unchanged, record the session, and check it when it ends.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Examples:\n  mcpcheck intercept --capture c.json -- node server.js\n  mcpcheck intercept --http 127.0.0.1:8931 --url http://127.0.0.1:3000/mcp --capture c.json\n\n\
The report goes to stderr (stdout is the client's channel on stdio).\n\
Exit status: 0 every invariant and trajectory assertion holds; 1 a finding or a failed assertion; 2 usage error.\n\n",
    crate::help::docs_line!("intercept"),
    "\nThe capture format: ",
    crate::help::doc_url!("capture")
))]
pub struct InterceptArgs {
    /// Where to write the session's capture (its format: see the
    /// documentation), written when
    /// the session ends, however it ends.
    #[arg(long, value_name = "FILE")]
    capture: PathBuf,

    /// Where to write the tool calls as a JSONL audit log, one
    /// `{"time", "tool", "args", "duration_ms", "is_error"}` per tools/call.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,

    /// Trajectory assertions (`order`, `presence`, `absence`,
    /// `args_contain`) to check against the session's tool calls.
    #[arg(long, value_name = "FILE")]
    trajectory: Option<PathBuf>,

    /// Report format (on stderr).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// Inject a fault into the answers the client gets (repeatable):
    /// KIND[:KEY=VALUE,…] with KIND latency (ms=), error (code=), is-error,
    /// invalid-json, schema, drop, duplicate, reorder or disconnect, and
    /// tool=NAME or method=M (default: tools/call), nth=N, p=P; or a preset:
    /// flaky-tools, slow-tools, broken-answers, lossy, chaos.
    #[arg(long = "fault", value_name = "SPEC", value_parser = fault_spec)]
    faults: Vec<FaultArg>,

    /// The seed --fault's probabilities are drawn from.
    #[arg(long, value_name = "S", default_value_t = 1, requires = "faults")]
    seed: u64,

    /// Do not read what the server answers with the scan's text rules (O
    /// codes).
    #[arg(long)]
    no_output_scan: bool,

    /// Proxy Streamable HTTP: listen on ADDR (loopback unless
    /// --allow-remote; port 0 picks a free port, printed on stderr).
    #[arg(
        long,
        value_name = "ADDR",
        requires = "url",
        conflicts_with = "command"
    )]
    http: Option<String>,

    /// The server's Streamable HTTP endpoint (with --http).
    #[arg(long, value_name = "URL", requires = "http")]
    url: Option<String>,

    /// Path of the endpoint --http serves.
    #[arg(long, value_name = "P", default_value = "/mcp", requires = "http")]
    path: String,

    /// Allow --http to listen on an address that is not loopback.
    #[arg(long, requires = "http")]
    allow_remote: bool,

    /// End the session after this long (with --http; it also ends on
    /// SIGINT or SIGTERM).
    #[arg(long, value_name = "DURATION", requires = "http", value_parser = crate::output::parse_duration)]
    duration: Option<Duration>,

    /// How long the server may take to start answering a request, and a
    /// client to send a request body (with --http).
    #[arg(long, value_name = "DURATION", default_value = "5m", requires = "http", value_parser = crate::output::parse_duration)]
    request_timeout: Duration,

    /// The stdio server to start: `-- CMD ARGS…` (the `--` may be left
    /// out; everything from CMD on is the server's).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CMD",
        conflicts_with_all = ["url", "path", "allow_remote", "duration", "request_timeout"]
    )]
    command: Vec<String>,
}

/// One `--fault` value: the spec as given and its faults.
#[derive(Debug, Clone)]
struct FaultArg {
    spec: String,
    faults: Vec<mcpcheck_core::inject::Fault>,
}

fn fault_spec(s: &str) -> std::result::Result<FaultArg, mcpcheck_core::inject::SpecError> {
    mcpcheck_core::inject::parse(s).map(|faults| FaultArg {
        spec: s.to_string(),
        faults,
    })
}

pub fn main(args: &InterceptArgs) -> Result<ExitCode> {
    if args.http.is_none() && args.command.is_empty() {
        return Err(
            "give the server to start after `--` (`mcpcheck intercept --capture c.json -- node server.js`), or --http ADDR --url URL"
                .into(),
        );
    }
    let trajectory = match &args.trajectory {
        Some(path) => Some((path.clone(), intercept::load_trajectory(path)?)),
        None => None,
    };
    for (flag, path) in [
        ("--capture", Some(&args.capture)),
        ("--trace", args.trace.as_ref()),
    ] {
        if let Some(p) = path
            && p.is_dir()
        {
            return Err(format!("{flag} {}: is a directory; give a file", p.display()).into());
        }
    }
    let runtime = crate::error::runtime()?;
    // Secrets on the server's command line (or in the URL's query) are
    // hidden wherever the session is shown, as the trace hides arguments.
    let shown: Vec<String> = match &args.url {
        Some(url) if args.http.is_some() => vec![url.clone()],
        _ => args.command.clone(),
    };
    let recorder = Arc::new(Recorder::hiding(intercept::command_line_secrets(&shown)));
    let injector = mcpcheck_core::inject::Injector::new(
        args.faults.iter().flat_map(|f| f.faults.clone()).collect(),
        args.seed,
    );
    let faults = Arc::new(intercept::faults::Faults::new(injector));
    let (label, transport, ended) = match (&args.http, &args.url) {
        (Some(addr), Some(url)) => {
            let options = intercept::http::Options {
                addr: addr.clone(),
                path: args.path.clone(),
                url: url.clone(),
                allow_remote: args.allow_remote,
                duration: args.duration,
                request_timeout: args.request_timeout,
            };
            let ended = runtime.block_on(intercept::http::run(
                options,
                recorder.clone(),
                faults.clone(),
            ))?;
            (url.clone(), "http", ended)
        }
        _ => {
            let (command, rest) = args
                .command
                .split_first()
                .ok_or("give the server to start after `--`")?;
            let server = intercept::stdio::Server {
                command: command.clone(),
                args: rest.to_vec(),
            };
            let ended = runtime.block_on(intercept::stdio::run(
                &server,
                recorder.clone(),
                faults.clone(),
            ))?;
            let label = format!(
                "stdio://{}",
                shlex::try_join(args.command.iter().map(String::as_str))
                    .unwrap_or_else(|_| args.command.join(" "))
            );
            (label, "stdio", ended)
        }
    };
    let outputs = Outputs {
        capture: args.capture.clone(),
        trace: args.trace.clone(),
        trajectory,
        format: args.format,
        label,
        transport,
        output_scan: !args.no_output_scan,
        faults: args.faults.iter().map(|f| f.spec.clone()).collect(),
        seed: args.seed,
    };
    let passed = intercept::finish(&recorder, &outputs, &ended, &faults)?;
    // Streams still open (a GET stream, the stdin reader) end with the process.
    runtime.shutdown_timeout(Duration::from_millis(200));
    Ok(verdict(passed))
}
