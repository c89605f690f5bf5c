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
    /// The async runtime would not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
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
