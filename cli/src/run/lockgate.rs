//! `run`/`ci --lock FILE`: after the tests, the suite's server is listed
//! once more and what it offers is compared with the pinned surface
//! (`mcpcheck lock --write`). A breaking or suspicious change fails the run
//! like a failing test. The lock and the diff are `mcpcheck_core::lock`'s.

use std::path::{Path, PathBuf};

use mcpcheck_core::lock::{self, Change, Lock};
use mcpcheck_core::suite::SuiteFile;

use super::exec::{self, RunSettings, TestEnv};
use super::fixture;
use crate::client::Endpoint;
use crate::client::listing::list_everything;
use crate::error::{Error, Result};
use crate::files::{display, read_text};
use crate::output::{err, out};

/// Why the surface could not be compared with the lock.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockGateError {
    #[error(transparent)]
    Fixture(#[from] fixture::FixtureError),
    /// A test's server that cannot be reached as written.
    #[error("{file}:{line}: test \"{test}\": {source}")]
    Endpoint {
        file: String,
        line: u32,
        test: String,
        #[source]
        source: exec::EndpointError,
    },
    #[error("no test that ran uses a server, so there is no surface to compare")]
    NoServer,
    /// Several servers, none the one the lock pins.
    #[error(
        "the suite reaches {n} servers ({labels}) and {lock} pins `{pinned}`; run with --server CMD, or check each with `mcpcheck lock --check`"
    )]
    Ambiguous {
        n: usize,
        labels: String,
        lock: String,
        pinned: String,
    },
    #[error("{label}: cannot list what it offers: {source}")]
    Listing {
        label: String,
        #[source]
        source: crate::client::listing::ListingError,
    },
    /// What was listed is not a listing.
    #[error(transparent)]
    Lock(#[from] mcpcheck_core::error::DocError),
}

/// The pinned surface a run is held to.
pub(crate) struct LockGate {
    path: PathBuf,
    pinned: Lock,
}

/// What the comparison found.
pub(crate) struct LockOutcome {
    pub changes: Vec<Change>,
    pub passed: bool,
}

impl LockGate {
    /// Reads the lockfile before anything runs: a missing or malformed one is
    /// a usage error, not a failed run.
    pub(crate) fn read(path: &Path) -> Result<Self> {
        let text = read_text(path)?;
        let pinned = Lock::from_json(&text).map_err(|e| {
            Error::Usage(format!(
                "{}: {e} (write one with `mcpcheck lock --server CMD --write FILE`)",
                display(path)
            ))
        })?;
        Ok(LockGate {
            path: path.to_path_buf(),
            pinned,
        })
    }

    /// The lockfile as reports name it.
    pub(crate) fn file(&self) -> String {
        display(&self.path)
    }

    /// [`LockGate::check`], printed after the run's summary (on standard
    /// error when standard output carries the results document); whether
    /// the surface passed.
    pub(crate) async fn report<'a>(
        &self,
        tests: impl Iterator<Item = (usize, &'a mcpcheck_core::suite::Test)>,
        suites: &[SuiteFile],
        settings: &RunSettings,
        json: bool,
    ) -> bool {
        let outcome = self.check(tests, suites, settings).await;
        crate::client::stdio::reap_all().await;
        match outcome {
            Ok(o) => {
                let report = lock::report(&o.changes, &self.file());
                let text = format!(
                    "\nsurface lock {}: {}",
                    self.file(),
                    mcpcheck_core::findings::render::text::render(
                        &report,
                        crate::output::paint_for_stdout()
                    )
                );
                if json {
                    err(&text);
                } else {
                    out(&text);
                }
                o.passed
            }
            Err(e) => {
                err(&format!("mcpcheck: --lock {}: {e}\n", self.file()));
                false
            }
        }
    }

    /// Lists the server the tests reached and diffs it with the lock. The
    /// suite must reach one server (after `--server`), or the lock must name
    /// one of them; the error says which servers there were.
    pub(crate) async fn check<'a>(
        &self,
        tests: impl Iterator<Item = (usize, &'a mcpcheck_core::suite::Test)>,
        suites: &[SuiteFile],
        settings: &RunSettings,
    ) -> std::result::Result<LockOutcome, LockGateError> {
        let copy = match &settings.fixture {
            Some(f) => Some(fixture::copy(f)?),
            None => None,
        };
        // Each server with the protocol version its tests speak to it.
        let mut endpoints: Vec<(Endpoint, String)> = Vec::new();
        for (file, t) in tests.filter(|(_, t)| t.skip.is_none()) {
            let env = TestEnv::for_file(&suites[file].env);
            let path = copy.as_ref().map(|c| c.path.as_path());
            let Some(endpoint) = exec::endpoint_of(t, settings, &env, path).map_err(|source| {
                LockGateError::Endpoint {
                    file: t.file.clone(),
                    line: t.line,
                    test: t.name.clone(),
                    source,
                }
            })?
            else {
                continue;
            };
            if !endpoints.iter().any(|(e, _)| e.label() == endpoint.label()) {
                let version = t
                    .server
                    .as_ref()
                    .and_then(|s| s.protocol_version.clone())
                    .unwrap_or_else(|| settings.protocol_version.clone());
                endpoints.push((endpoint, version));
            }
        }
        let (endpoint, version) = match endpoints.len() {
            0 => {
                return Err(LockGateError::NoServer);
            }
            1 => endpoints.remove(0),
            n => {
                // The lock records how its server was reached; a fixture
                // copy's path differs from run to run, so only an exact
                // label picks one of several.
                let named = endpoints
                    .iter()
                    .position(|(e, _)| e.label() == self.pinned.server);
                match named {
                    Some(i) => endpoints.remove(i),
                    None => {
                        let labels: Vec<String> =
                            endpoints.iter().map(|(e, _)| e.label()).collect();
                        return Err(LockGateError::Ambiguous {
                            n,
                            labels: labels.join(", "),
                            lock: self.file(),
                            pinned: self.pinned.server.clone(),
                        });
                    }
                }
            }
        };
        let listed = list_everything(&endpoint, &version, settings.default_timeout)
            .await
            .map_err(|source| LockGateError::Listing {
                label: endpoint.label(),
                source,
            })?;
        drop(copy);
        let now = listed.to_lock(&endpoint.label())?;
        let changes = lock::diff(&self.pinned, &now);
        let passed = lock::passed(&changes);
        Ok(LockOutcome { changes, passed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_says_why_it_could_not_compare() {
        assert_eq!(
            LockGateError::NoServer.to_string(),
            "no test that ran uses a server, so there is no surface to compare"
        );
        let several = LockGateError::Ambiguous {
            n: 2,
            labels: "a, b".into(),
            lock: "mcp.lock".into(),
            pinned: "c".into(),
        };
        assert_eq!(
            several.to_string(),
            "the suite reaches 2 servers (a, b) and mcp.lock pins `c`; run with --server CMD, or check each with `mcpcheck lock --check`"
        );
    }
}
