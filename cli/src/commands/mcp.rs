//! `mcpcheck mcp`: mcpcheck's checks as an MCP server (`crate::mcp`), on
//! stdio or on Streamable HTTP.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;

use crate::error::{Error, Result};
use crate::mcp::{Server, Shared, allow::Policy};

/// How long the runtime may take to stop what is still running once the
/// client has gone.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(1);

/// Serve mcpcheck's checks to an agent over MCP: doctor, run_suite,
/// check_response, check_trajectory, lint_listing, scan_listing,
/// explain_rule, generate_tests and validate_suite, every rule and the
/// suite format as resources, and prompts.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct McpArgs {
    /// Serve Streamable HTTP at ADDR (e.g. 127.0.0.1:8080; port 0 picks a
    /// free port) instead of one session on stdin/stdout. The URL is
    /// printed on stderr.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,

    /// Path of the Streamable HTTP endpoint.
    #[arg(long, value_name = "P", default_value = "/mcp", requires = "http")]
    path: String,

    /// The project directory (default: the working directory): mcpcheck
    /// works from it, starts the programs inside it, and reads and writes
    /// only inside it (or inside the client's MCP roots when it offers
    /// them).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,

    /// Also allow starting this program (a name on PATH or a path; a
    /// directory allows every program inside it) or reaching this URL
    /// origin (https://host[:port]). Repeatable.
    #[arg(long = "allow", value_name = "PROGRAM|DIR|ORIGIN")]
    allow: Vec<String>,

    /// How long one tool call may take in all; a call past it is a tool
    /// error.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = crate::output::parse_duration)]
    call_timeout: Duration,

    /// The largest result a tool returns, in KiB; a larger one is a tool
    /// error.
    #[arg(long, value_name = "KIB", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    max_output_kb: u64,
}

const AFTER_HELP: &str = concat!(
    "\
Safety: a tool starts only a server the call names, and only a program inside the project
directory (or the client's roots), or one given with --allow; it reaches only loopback URLs,
or origins given with --allow. Paths (suites, fixtures, lockfiles, where to write) must be
inside the project directory or the client's roots. Anything else is refused with a tool
error that says how to allow it.
Configuration for Claude Code, Cursor, VS Code and Codex CLI in the documentation.\n\n",
    crate::help::docs_line!("mcp")
);

/// Runs `mcpcheck mcp`.
pub fn main(args: &McpArgs) -> Result<ExitCode> {
    if let Some(root) = &args.root {
        std::env::set_current_dir(root)
            .map_err(|e| Error::Usage(format!("--root {}: {e}", root.display())))?;
    }
    let cwd = std::env::current_dir()
        .map_err(|e| Error::Usage(format!("cannot read the working directory: {e}")))?;
    if args.http.is_some() && !args.path.starts_with('/') {
        return Err(Error::Usage(format!(
            "--path must start with `/`, got `{}`",
            args.path
        )));
    }
    let policy = Policy::new(&cwd, &args.allow).map_err(|e| Error::Usage(e.to_string()))?;
    let shared = Arc::new(Shared {
        policy,
        call_timeout: args.call_timeout,
        max_output: usize::try_from(args.max_output_kb.saturating_mul(1024)).unwrap_or(usize::MAX),
    });
    let runtime = crate::error::runtime()?;
    let code = runtime.block_on(async {
        // SIGINT, SIGTERM, SIGHUP: every server a call started is killed
        // and every fixture copy removed before leaving.
        crate::signals::clean_up_on_interrupt();
        match &args.http {
            Some(addr) => serve_http(shared, addr.clone(), args.path.clone()).await,
            None => serve_stdio(shared).await,
        }
    });
    runtime.shutdown_timeout(SHUTDOWN_TIMEOUT);
    code
}

/// One session on stdin and stdout, until the client closes stdin.
async fn serve_stdio(shared: Arc<Shared>) -> Result<ExitCode> {
    // Nothing but the protocol may reach stdout from here on.
    crate::output::stdout_is_protocol();
    let running = match Server::new(shared)
        .serve(rmcp::transport::io::stdio())
        .await
    {
        Ok(running) => running,
        // A client that leaves before the handshake ends is a normal end.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            return Err(Error::Usage(format!("the session did not start: {e}")));
        }
    };
    let _ = running.waiting().await;
    crate::client::stdio::reap_all().await;
    Ok(ExitCode::SUCCESS)
}

/// Streamable HTTP at `addr`, on the transport `mcpcheck serve` uses, until
/// SIGINT or SIGTERM.
async fn serve_http(shared: Arc<Shared>, addr: String, path: String) -> Result<ExitCode> {
    use crate::serve::http::{self, Fronts, Options};
    let options = Options {
        addr,
        path,
        credentials: crate::serve::auth::Credentials::new(Vec::new(), Vec::new()),
        max_sessions: 100,
        request_timeout: Duration::from_secs(30),
        oauth: None,
        public_url: None,
    };
    http::serve_handler(
        "mcpcheck mcp",
        move || Ok(Server::new(shared.clone())),
        |_| Fronts {
            legacy: None,
            modern: None,
        },
        crate::serve::faults::FaultSet::new(std::iter::empty()),
        options,
    )
    .await
}
