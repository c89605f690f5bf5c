//! What `audit`, `fuzz` and `lint` share: the flags that reach a server,
//! a session that is started again after the server crashed or hung (so one
//! crash never cascades into every later call), and the fixture copy the
//! server works on. What to send and what an answer means is decided in
//! `mcpcheck_core::probe`; this module only talks to the server.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::probe::{CallWait, FLOOD_MESSAGES, MAX_CALL_MS, Observed, Transport, call_wait};
use serde_json::Value;
use tokio::time::Instant as Deadline;

use crate::client::handler::Mocks;
use crate::client::listing::{Listings, list_surface};
use crate::client::{Endpoint, ObserveWait, Session};
use crate::run::fixture::{self, FixtureCopy};
use crate::target::TargetArgs;
use crate::verdict::{FindingsArgs, FindingsFormat};

/// The flags every probe command takes.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    #[command(flatten)]
    pub target: TargetArgs,

    /// Copy DIR and point the server at the copy: `{{fixture}}` in --server,
    /// and DIR however --server spells it (`./DIR`, `DIR/`, an absolute
    /// path, `--flag=DIR`, a path in it), become the copy's path. The
    /// original is never written.
    #[arg(long, value_name = "DIR", conflicts_with = "url")]
    pub fixture: Option<PathBuf>,

    /// Also call tools that may write (destructiveHint: true, or
    /// readOnlyHint: false); without it they are skipped. With `fuzz
    /// --stateful`, also run the sequences that create, change and delete.
    #[arg(long, visible_alias = "allow-writes")]
    pub include_writes: bool,

    /// How long each call may go without an answer before it counts as a
    /// hang (the server is then started again). Default: 30s. A tool that
    /// documents a longer duration (an input's default `duration`, "takes
    /// up to 2 minutes") is waited for twice that, and progress it reports
    /// starts the wait again, up to 5 minutes.
    #[arg(long, value_name = "DURATION", value_parser = crate::output::parse_duration)]
    pub timeout: Option<Duration>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    pub format: FindingsFormat,

    #[command(flatten)]
    pub findings: FindingsArgs,

    /// The protocol version to ask for at initialize.
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25")]
    pub protocol_version: String,
}

/// A server under probe: connected on first use, and again after a crash
/// or a hang.
pub struct Prober {
    endpoint: Endpoint,
    protocol_version: String,
    timeout: Duration,
    session: Option<Session>,
    /// How many times the server was started again.
    pub restarts: usize,
    _fixture: Option<FixtureCopy>,
    /// How to make the endpoint again on a fresh fixture copy
    /// ([`Prober::fresh`]): the endpoint before the copy was substituted,
    /// the fixture, the container image.
    remake: Option<(Endpoint, PathBuf, Option<String>)>,
}

impl Prober {
    /// The endpoint of `args`, with the fixture copied and substituted.
    /// `default` is the call timeout when `--timeout` is not given.
    pub fn new(args: &ProbeArgs, default: Duration) -> crate::error::Result<Self> {
        let bare = args.target.bare_endpoint()?;
        let (endpoint, copy) = with_fixture(&bare, args.fixture.as_deref(), &args.target)?;
        Ok(Prober {
            endpoint,
            protocol_version: args.protocol_version.clone(),
            timeout: args.timeout.unwrap_or(default),
            session: None,
            restarts: 0,
            _fixture: copy,
            remake: args
                .fixture
                .clone()
                .map(|dir| (bare, dir, args.target.docker.clone())),
        })
    }

    /// Starts afresh: the session is closed, and with a fixture the server
    /// gets a new copy of it, so the next call reaches a server in its
    /// first state (what each stateful sequence needs). A server reached
    /// by URL keeps its state.
    pub async fn fresh(&mut self) -> Result<(), ProberError> {
        if let Some(mut session) = self.session.take() {
            session.close().await;
        }
        if let Some((bare, dir, docker)) = &self.remake {
            let target = TargetArgs {
                server: None,
                url: None,
                transport: crate::target::HttpTransport::Http,
                headers: Vec::new(),
                docker: docker.clone(),
                auth: Default::default(),
            };
            // The old copy goes before the new one is made.
            self._fixture = None;
            let (endpoint, copy) = with_fixture(bare, Some(dir), &target)?;
            self.endpoint = endpoint;
            self._fixture = copy;
        }
        Ok(())
    }

    /// Whether a fixture is copied for the server.
    pub fn has_fixture(&self) -> bool {
        self.remake.is_some()
    }

    /// The server's `instructions` (its `initialize` answer's), once
    /// connected.
    pub fn instructions(&self) -> Option<String> {
        self.session
            .as_ref()
            .and_then(Session::initialize_result)
            .and_then(|r| r["instructions"].as_str().map(str::to_string))
    }

    /// A server reached as `endpoint`, with no fixture (what `scan`
    /// builds from a client's config, where each server has its own
    /// environment).
    pub fn for_endpoint(endpoint: Endpoint, protocol_version: &str, timeout: Duration) -> Self {
        Prober {
            endpoint,
            protocol_version: protocol_version.to_string(),
            timeout,
            session: None,
            restarts: 0,
            _fixture: None,
            remake: None,
        }
    }

    /// Where the server is (with the fixture copy substituted).
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Each call's time limit.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Each call's time limit, in milliseconds.
    pub fn timeout_ms(&self) -> u64 {
        u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX)
    }

    /// The server as reports name it.
    pub fn label(&self) -> String {
        self.endpoint.label()
    }

    pub fn transport(&self) -> Transport {
        match self.endpoint {
            Endpoint::Stdio { .. } => Transport::Stdio,
            Endpoint::Http { .. } => Transport::Http,
            Endpoint::Sse { .. } => Transport::Sse,
        }
    }

    /// The negotiated protocol version, once connected.
    pub fn negotiated(&self) -> Option<String> {
        self.session
            .as_ref()
            .and_then(Session::initialize_result)
            .and_then(|r| r["protocolVersion"].as_str().map(str::to_string))
    }

    /// The server's capabilities (of `server/discover` or `initialize`),
    /// once connected; `null` before.
    pub fn capabilities(&self) -> Value {
        self.session
            .as_ref()
            .and_then(|s| s.discover_result().or_else(|| s.initialize_result()))
            .and_then(|r| r.get("capabilities").cloned())
            .unwrap_or(Value::Null)
    }

    async fn session(&mut self) -> Result<&mut Session, ProberError> {
        if self.session.is_none() {
            let deadline = Deadline::now() + self.timeout.max(Duration::from_secs(10));
            let session = Session::connect(
                &self.endpoint,
                &self.protocol_version,
                &Mocks::default(),
                deadline,
            )
            .await
            .map_err(|e| ProberError::Connect(e.message))?;
            self.session = Some(session);
        }
        self.session.as_mut().ok_or(ProberError::Closed)
    }

    /// List everything the server offers; an error names a list the server
    /// advertises that could not be read (see `client::listing`).
    pub async fn list(&mut self) -> Result<Listings, ProberError> {
        let step = self.timeout;
        let session = self.session().await?;
        Ok(list_surface(session, &|| step).await?)
    }

    /// One request, waited for `--timeout` (or the command's default). A
    /// server that crashed, hung, flooded or closed the connection is closed
    /// here and started again by the next call.
    pub async fn call(&mut self, method: &str, params: Value) -> Observed {
        let idle = self.timeout;
        let wait = ObserveWait {
            idle,
            cap: idle.max(Duration::from_millis(MAX_CALL_MS)),
        };
        self.call_waiting(method, params, wait).await
    }

    /// A `tools/call` of `tool` (its `tools/list` item), waited for as long
    /// as the tool documents ([`mcpcheck_core::probe::call_wait`]); the
    /// wait, to classify the answer with.
    pub async fn call_tool(&mut self, tool: &Value, params: Value) -> (Observed, CallWait) {
        let wait = call_wait(tool, self.timeout_ms());
        let observed = self
            .call_waiting(
                "tools/call",
                params,
                ObserveWait {
                    idle: Duration::from_millis(wait.idle_ms),
                    cap: Duration::from_millis(wait.cap_ms),
                },
            )
            .await;
        (observed, wait)
    }

    async fn call_waiting(&mut self, method: &str, params: Value, wait: ObserveWait) -> Observed {
        // A session that has carried many messages is started afresh, so
        // the flood limit (per session, as in `run`) only ever catches what
        // one call brought.
        if self
            .session
            .as_ref()
            .is_some_and(|s| s.tap.mark() > FLOOD_MESSAGES / 2)
            && let Some(mut session) = self.session.take()
        {
            session.close().await;
        }
        let observed = match self.session().await {
            Ok(session) => session.observe(method, Some(params), wait).await,
            Err(message) => Observed {
                exited: Some(format!("could not be started again: {message}")),
                ..Observed::default()
            },
        };
        if observed.timed_out
            || observed.exited.is_some()
            || observed.response.is_none()
            || observed.flood.is_some()
        {
            self.restart().await;
        }
        observed
    }

    async fn restart(&mut self) {
        if let Some(mut session) = self.session.take() {
            session.close().await;
            self.restarts += 1;
        }
    }

    pub async fn close(&mut self) {
        if let Some(mut session) = self.session.take() {
            session.close().await;
        }
        crate::client::stdio::reap_all().await;
    }
}

/// `bare` with a fresh copy of `fixture` substituted (and in the
/// container of `target`'s `--docker`), and the copy.
fn with_fixture(
    bare: &Endpoint,
    fixture: Option<&std::path::Path>,
    target: &TargetArgs,
) -> Result<(Endpoint, Option<FixtureCopy>), ProberError> {
    let mut endpoint = bare.clone();
    let copy = match fixture {
        None => None,
        Some(dir) => {
            if !dir.is_dir() {
                return Err(ProberError::NotADirectory(dir.to_path_buf()));
            }
            let copy = fixture::copy(dir)?;
            if let Endpoint::Stdio { command, args, env } = &mut endpoint {
                let before = (command.clone(), args.clone(), env.clone());
                fixture::point_at_copy(command, args, env, dir, &copy.path)?;
                if before == (command.clone(), args.clone(), env.clone()) {
                    let original = dir.display();
                    crate::output::err(&format!(
                        "mcpcheck: warning: --fixture {original}: --server names neither {{{{fixture}}}} nor {original}, so the server is not pointed at the copy\n"
                    ));
                }
            }
            Some(copy)
        }
    };
    let endpoint = target.contain(endpoint, copy.as_ref().map(|c| c.path.as_path()));
    Ok((endpoint, copy))
}

/// Why the server could not be reached, listed or written down.
#[derive(Debug, thiserror::Error)]
pub enum ProberError {
    #[error("--fixture {} is not a directory", .0.display())]
    NotADirectory(std::path::PathBuf),
    #[error(transparent)]
    Fixture(#[from] fixture::FixtureError),
    /// The session's own words on why it could not be opened.
    #[error("{0}")]
    Connect(String),
    #[error("the session is closed")]
    Closed,
    #[error(transparent)]
    Listing(#[from] crate::client::listing::ListingError),
    #[error("--header {0} is given twice; give it once")]
    RepeatedHeader(String),
}

/// How a written test reaches the server: the way the flags reached it.
pub fn server_of(endpoint: &Endpoint) -> Result<mcpcheck_core::generate::Server, ProberError> {
    use mcpcheck_core::generate::Server;
    let remote = |transport: &str, url: &str, headers: &[(String, String)]| {
        // A written test keeps headers as a map: a repeated name would lose one.
        let mut seen: Vec<String> = Vec::new();
        for (name, _) in headers {
            let lower = name.to_ascii_lowercase();
            if seen.contains(&lower) {
                return Err(ProberError::RepeatedHeader(name.clone()));
            }
            seen.push(lower);
        }
        Ok(Server::Remote {
            transport: transport.to_string(),
            url: url.to_string(),
            headers: headers.to_vec(),
        })
    };
    match endpoint {
        Endpoint::Stdio { command, args, .. } => Ok(Server::Stdio {
            command: command.clone(),
            args: args.clone(),
        }),
        Endpoint::Http { url, headers, .. } => remote("http", url, headers),
        Endpoint::Sse { url, headers, .. } => remote("sse", url, headers),
    }
}

/// Write `files` into `dir` (created when missing); an existing file is a
/// usage error unless `force`.
pub fn write_files(
    dir: &std::path::Path,
    files: &[mcpcheck_core::generate::File],
    force: bool,
) -> crate::error::Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create --output {}: {e}", dir.display()))?;
    if !force && let Some(taken) = files.iter().map(|f| dir.join(&f.name)).find(|p| p.exists()) {
        return Err(crate::error::Error::Usage(format!(
            "{} exists; give --force to overwrite it",
            taken.display()
        )));
    }
    for file in files {
        let path = dir.join(&file.name);
        std::fs::write(&path, &file.text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// `tools/call` params.
pub fn tool_params(name: &str, arguments: &mcpcheck_core::probe::Arguments) -> Value {
    use mcpcheck_core::probe::Arguments;
    let mut params = serde_json::Map::new();
    params.insert("name".into(), Value::String(name.to_string()));
    match arguments {
        Arguments::Omitted => {}
        Arguments::Null => {
            params.insert("arguments".into(), Value::Null);
        }
        Arguments::Value(v) => {
            params.insert("arguments".into(), v.clone());
        }
    }
    Value::Object(params)
}
