//! `mcpcheck serve`: run the built-in reference MCP server.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result, ValueError};
use crate::serve::faults::{self, Fault, FaultSet};
use crate::serve::handler::Shared;
use crate::serve::{audit, auth, http, oauth, stdio};

/// How long the runtime may take to stop the tasks still running once the
/// server has decided to exit.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_millis(500);

#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct ServeArgs {
    /// Serve one session on stdin/stdout (the default). The HTTP flags
    /// (--path, --api-key, --bearer, --oauth…, --max-sessions,
    /// --request-timeout) do not go with it.
    #[arg(long, conflicts_with_all = ["http", "path", "api_keys", "bearers", "oauth", "oauth_token_ttl", "oauth_clients", "max_sessions", "request_timeout"])]
    stdio: bool,

    /// Serve Streamable HTTP at ADDR (e.g. 127.0.0.1:8080; port 0 picks a free
    /// port), and legacy SSE at /sse. The URL is printed on stderr.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,

    /// Path of the Streamable HTTP endpoint.
    #[arg(long, value_name = "P", default_value = "/mcp", requires = "http")]
    path: String,

    /// Require this API key in the X-API-Key header (repeatable; HTTP only).
    /// The caller is then known as api-key#N, N counting the keys from 1.
    #[arg(long = "api-key", value_name = "KEY", requires = "http", value_parser = secret)]
    api_keys: Vec<String>,

    /// Require this token in Authorization: Bearer (repeatable; HTTP only).
    /// The caller is then known as bearer#N, N counting the tokens from 1.
    #[arg(long = "bearer", value_name = "TOKEN", requires = "http", value_parser = secret)]
    bearers: Vec<String>,

    /// Protect the endpoint with OAuth 2.1 and serve a small authorization
    /// server on the same listener (issuer: the server's base URL): metadata
    /// (RFC 9728, RFC 8414), client registration (RFC 7591), the
    /// authorization code grant with PKCE S256, approved at once,
    /// client_credentials and refresh_token. Tokens are bound to the
    /// endpoint's URL (RFC 8707); the caller is known as oauth:CLIENT_ID.
    #[arg(long, requires = "http")]
    oauth: bool,

    /// How long an access token of --oauth lives, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 3600, requires = "oauth", value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    oauth_token_ttl: u64,

    /// The origin clients reach this server at (`https://mcp.example.com`),
    /// for a server behind a proxy or bound to all interfaces: the OAuth
    /// issuer, the resource tokens are bound to, and the resource metadata
    /// name it. Without it, the bound address and the loopback names at its
    /// port; a request's Host header never chooses another.
    #[arg(long, value_name = "URL", requires = "http", value_parser = public_url)]
    public_url: Option<String>,

    /// Register a confidential client of --oauth before any request, as
    /// ID:SECRET (repeatable).
    #[arg(long = "oauth-client", value_name = "ID:SECRET", requires = "oauth", value_parser = oauth_client)]
    oauth_clients: Vec<(String, String)>,

    /// Append one JSON line per tools/call to FILE: time, tool, args (secrets
    /// redacted), identity, duration_ms, response_bytes, is_error.
    #[arg(long, value_name = "FILE")]
    audit_log: Option<PathBuf>,

    /// Misbehave on purpose (repeatable; faults combine). See the list below.
    #[arg(long = "fault", value_name = "NAME")]
    faults: Vec<Fault>,

    /// The most sessions open at once (Streamable HTTP and legacy SSE
    /// together; HTTP only). A new session past it is answered 503 with
    /// Retry-After; idle Streamable HTTP sessions close after 5 minutes.
    #[arg(long, value_name = "N", default_value_t = 1000, requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    max_sessions: u32,

    /// How long a client may take to send a request's headers and body
    /// (HTTP only); a slower one is answered 408 and disconnected.
    #[arg(long, value_name = "DURATION", default_value = "30s", requires = "http", value_parser = crate::output::parse_duration)]
    request_timeout: std::time::Duration,

    /// Split tools/list, prompts/list and resources/list into pages of N
    /// items, linked by nextCursor (default: one page).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    page_size: Option<u32>,
}

const AFTER_HELP: &str = concat!(
    "\
On HTTP, the faults that alter messages (garbage-stdout, wrong-id, string-error-code,
result-and-error, leaky-errors) apply to the JSON-RPC answers to POSTs and to the legacy
SSE stream. `mcpcheck probe` finds what no-origin-check, hidden-tool, leaky-errors,
guessable-session-ids, session-survives-delete and the *-resource-metadata faults plant;
`mcpcheck probe --auth` what the oauth-* faults plant (with --oauth; oauth-expired-accepted
shows with --oauth-token-ttl of at most 10 s).
Requests of the 2026-07-28 revision (no initialize; _meta on every request) are served
beside the older revisions, on both transports; stateful, ignore-header-mismatch,
no-result-type, skip-meta-validation and refusal-status-200 apply only to them.
",
    crate::help::docs_line!("serve")
);

/// Runs `mcpcheck serve`.
pub fn main(args: ServeArgs) -> Result<ExitCode> {
    if args.http.is_some() {
        check_path(&args.path)?;
    }
    let audit = match &args.audit_log {
        None => None,
        Some(path) => Some(audit::AuditLog::open(path).map_err(|error| {
            Error::Usage(format!(
                "cannot open the audit log {}: {error}",
                path.display()
            ))
        })?),
    };
    let faults = FaultSet::new(args.faults.iter().copied());
    let shared = Arc::new(Shared {
        faults: faults.clone(),
        page_size: args.page_size.and_then(|n| usize::try_from(n).ok()),
        audit,
    });
    let runtime = crate::error::runtime()?;
    let code = runtime.block_on(async move {
        if faults.has(Fault::SlowStart) {
            tokio::time::sleep(faults::SLOW_START).await;
        }
        match args.http {
            Some(addr) => {
                let credentials = auth::Credentials::new(args.api_keys, args.bearers);
                let (credentials, oauth) = if args.oauth {
                    let server = oauth::OAuth::new(
                        Duration::from_secs(args.oauth_token_ttl),
                        args.oauth_clients,
                        faults.clone(),
                        &args.path,
                    );
                    (credentials.with_oauth(), Some(Arc::new(server)))
                } else {
                    (credentials, None)
                };
                let options = http::Options {
                    addr,
                    path: args.path,
                    credentials,
                    oauth,
                    max_sessions: args.max_sessions as usize,
                    request_timeout: args.request_timeout,
                    public_url: args.public_url,
                };
                http::serve(shared, options).await
            }
            None => Ok(stdio::serve(shared).await),
        }
    });
    // A task may still be blocked reading stdin; do not wait for it.
    runtime.shutdown_timeout(SHUTDOWN_TIMEOUT);
    code
}

/// A key or token: an empty one would let an empty header in.
fn secret(s: &str) -> Result<String, ValueError> {
    if s.trim().is_empty() {
        Err(ValueError::EmptySecret)
    } else {
        Ok(s.to_string())
    }
}

/// An `http://` or `https://` origin (a path of `/` at most), written
/// `scheme://host[:port]`.
fn public_url(s: &str) -> Result<String, ValueError> {
    let url = reqwest::Url::parse(s.trim()).map_err(|e| ValueError::NotUrl {
        detail: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(ValueError::NotHttpUrl);
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(ValueError::NotOrigin);
    }
    Ok(url.origin().ascii_serialization())
}

/// `ID:SECRET`, both parts non-empty.
fn oauth_client(s: &str) -> Result<(String, String), ValueError> {
    match s.split_once(':') {
        Some((id, secret)) if !id.trim().is_empty() && !secret.trim().is_empty() => {
            Ok((id.to_string(), secret.to_string()))
        }
        _ => Err(ValueError::Credentials),
    }
}

/// The endpoint path must be absolute and must not shadow the legacy SSE paths.
fn check_path(path: &str) -> Result<(), ValueError> {
    let taken = |by| ValueError::TakenPath {
        path: path.to_string(),
        by,
    };
    if !path.starts_with('/') {
        return Err(ValueError::RelativePath(path.to_string()));
    }
    if path == http::LEGACY_SSE_PATH || path == http::LEGACY_MESSAGE_PATH {
        return Err(taken("the legacy SSE transport"));
    }
    if oauth::OAuth::handles(path) {
        return Err(taken("the authorization server of --oauth"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_checked() {
        assert!(check_path("/mcp").is_ok());
        assert!(check_path("/").is_ok());
        assert!(check_path("mcp").is_err());
        assert!(check_path("/sse").is_err());
        assert!(check_path("/message").is_err());
        assert!(check_path("/token").is_err());
        assert_eq!(
            public_url("HTTPS://MCP.example.com:443/").as_deref(),
            Ok("https://mcp.example.com")
        );
        assert!(public_url("https://mcp.example.com/mcp").is_err());
        assert!(public_url("ftp://mcp.example.com").is_err());
        assert!(oauth_client("id:secret").is_ok());
        assert!(oauth_client("id:").is_err());
        assert!(oauth_client("secret").is_err());
    }

    #[test]
    fn every_fault_has_help_text() {
        use clap::ValueEnum as _;
        for fault in Fault::value_variants() {
            let value = fault.to_possible_value();
            let help = value
                .as_ref()
                .and_then(|v| v.get_help())
                .map(ToString::to_string);
            assert!(
                help.is_some_and(|h| h.contains(':')),
                "{fault:?} needs a doc comment naming its trigger and effect"
            );
        }
    }
}
