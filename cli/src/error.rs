//! The front end's one error type.
//!
//! Every command returns [`Result<ExitCode>`]: `Ok` carries its verdict (0
//! passed, 1 failed), `Err` a problem with the command line, an input file
//! or the machine, which `main` prints once and turns into exit status 2.
//! Nothing below `main` prints an error and returns a bare status.

use std::process::ExitCode;

/// Why a command could not reach a verdict.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What is wrong and what to do, in words for the user; printed as
    /// `mcpcheck <command>: <message>`.
    #[error("{0}")]
    Usage(String),
    /// Diagnostics already rendered with their file, line, caret and hint;
    /// printed as they are.
    #[error("{0}")]
    Diagnostics(String),
    /// An input file (or standard input) that could not be found or read.
    #[error("{0}")]
    Input(#[from] crate::files::InputError),
    /// A fixture that could not be copied or pointed at.
    #[error(transparent)]
    Fixture(#[from] crate::run::fixture::FixtureError),
    /// The server could not be reached, listed or written down.
    #[error(transparent)]
    Probe(#[from] crate::probe::ProberError),
    /// A `--filter` glob that does not parse.
    #[error(transparent)]
    Filter(#[from] crate::run::FilterError),
    /// A saved listing that is not JSON.
    #[error(transparent)]
    SavedListing(#[from] crate::client::listing::SavedListingError),
    /// A snapshot file that could not be read.
    #[error(transparent)]
    Snapshot(#[from] crate::run::snapshots::SnapshotFileError),
    /// A file that could not be written.
    #[error(transparent)]
    Write(#[from] crate::files::WriteError),
    /// A value refused after the command line was parsed.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// The async runtime would not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

/// Why the value of a flag was refused: clap prints it after `invalid value
/// 'VALUE' for '--flag'`, so it says what the value should look like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error("`{0}` is not a duration; write it like 30s, 1m30s or 500ms")]
    Duration(String),
    #[error("`{0}` is not a percentage (give a number from 0 to 100)")]
    Percent(String),
    #[error("{0} is not between 0 and 100")]
    PercentRange(String),
    #[error("`{0}` is not a rate: give requests per second above 0 (e.g. 50 or 50/s)")]
    Rate(String),
    /// `FORMAT=PATH` without the `=`; `example` is one that would do.
    #[error("write it as FORMAT=PATH (e.g. {example}), not `{given}`")]
    ReportTarget {
        given: String,
        example: &'static str,
    },
    #[error("the PATH of FORMAT=PATH is empty")]
    EmptyPath,
    /// A name that is none of `known` (listed, comma-separated).
    #[error("`{given}` is not a {what}: give one of {known}")]
    NotOneOf {
        given: String,
        what: &'static str,
        known: String,
    },
    #[error("`{0}` is not a severity: high, medium, low or info")]
    Severity(String),
    /// A name that is none of `known`, when the value itself is shown by clap.
    #[error("expected one of: {known}")]
    Expected { known: String },
    #[error("write it as ID:SECRET, both parts non-empty")]
    Credentials,
    #[error("must not be empty: an empty key would let a request with an empty header in")]
    EmptySecret,
    /// Not a URL; `detail` is the URL parser's words.
    #[error("not a URL ({detail}); write it like https://mcp.example.com")]
    NotUrl { detail: String },
    #[error("give an http:// or https:// URL with a host")]
    NotHttpUrl,
    #[error("give the origin only (scheme, host, port): the endpoint's path is --path")]
    NotOrigin,
    /// A `--url` that does not parse; `detail` is the URL parser's words.
    #[error("--url {url}: {detail}")]
    Url { url: String, detail: String },
    /// `--path` not starting with `/`.
    #[error("--path must start with `/`, got `{0}`")]
    RelativePath(String),
    /// `--path` naming a path another part of the server answers.
    #[error("--path `{path}` is taken by {by}")]
    TakenPath { path: String, by: &'static str },
}

/// A command's outcome.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<String> for Error {
    fn from(message: String) -> Self {
        Self::Usage(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Self {
        Self::Usage(message.to_string())
    }
}

impl Error {
    /// The text `main` prints on stderr for `command`.
    pub fn report(&self, command: &str) -> String {
        let mut text = match self {
            Self::Diagnostics(shown) => shown.clone(),
            other => format!("mcpcheck {command}: {other}"),
        };
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }
}

/// The exit status of a verdict: 0 when it passed, 1 when it did not.
pub fn verdict(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The multi-threaded runtime the networked commands run on.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_name_the_command_and_rendered_ones_stand_alone() {
        assert_eq!(
            Error::from("no tests to run (check --filter)").report("run"),
            "mcpcheck run: no tests to run (check --filter)\n"
        );
        assert_eq!(
            Error::Diagnostics("error: a.yaml:1:1: bad\n".into()).report("check"),
            "error: a.yaml:1:1: bad\n"
        );
        let io = std::io::Error::other("no threads");
        assert_eq!(
            Error::Runtime(io).report("ci"),
            "mcpcheck ci: cannot start the async runtime: no threads\n"
        );
    }
}
