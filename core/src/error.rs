//! Why a document the core reads (a results document, a baseline, a
//! snapshot file, the options of a check) could not be read. Suites and
//! expectation files report [`crate::diag::Diagnostic`]s instead, with their
//! positions; these documents are machine-written, so one message suffices.

/// A document that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocError {
    /// Not JSON, or JSON of another shape; `detail` is the parser's words.
    #[error("not {what}: {detail}")]
    NotA { what: &'static str, detail: String },
    /// A document of a version this mcpcheck does not read.
    #[error("{what} version {found} is not supported (this mcpcheck reads version {reads})")]
    Version {
        what: &'static str,
        found: u32,
        reads: u32,
    },
    /// Files that are not `{path: text or null}`.
    #[error(transparent)]
    Files(#[from] crate::api::FilesError),
    /// A member with the wrong shape or value, in words that name it.
    #[error("{0}")]
    Invalid(String),
}

impl DocError {
    /// `text` is not the `what` document serde was asked for.
    pub(crate) fn not_a(what: &'static str, e: &serde_json::Error) -> Self {
        DocError::NotA {
            what,
            detail: e.to_string(),
        }
    }
}

impl From<String> for DocError {
    fn from(message: String) -> Self {
        DocError::Invalid(message)
    }
}

impl From<&str> for DocError {
    fn from(message: &str) -> Self {
        DocError::Invalid(message.to_string())
    }
}
