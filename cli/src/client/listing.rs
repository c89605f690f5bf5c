//! Listing what a server offers: each list followed through its pages.
//! Shared by `audit`, `fuzz`, `lint`, `lock`, `scan` (through the
//! `Prober`), `conformance`, `coverage`, `generate` and the lock gate.
//!
//! A listing is untrusted input, and what cannot be read is an error, never
//! an empty surface: a list the server advertises (its `tools`, `prompts`
//! or `resources` capability) that fails — a JSON-RPC error, no answer in
//! time, a malformed answer, a result without its array, a cursor that is
//! not a string, more pages than are followed — fails the whole listing.
//! A list the server does not advertise is still asked for (a client may
//! ask without looking at the capabilities, and show what comes back);
//! when it fails, it is empty. A lone surrogate escape (`\udfff`) is read
//! as U+FFFD, as lenient clients show it, and noted.

use std::time::Duration;

use mcpcheck_core::error::DocError;
use mcpcheck_core::lock::Lock;
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::client::handler::Mocks;
use crate::client::{Endpoint, Session};

/// Why a listing could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ListingError {
    /// The server could not be started, reached or initialized.
    #[error("{0}")]
    Connect(String),
    /// A list the server must answer could not be read: which one (with its
    /// page after the first) and why.
    #[error("{list}{why}")]
    Unread { list: String, why: Unread },
}

/// Why a saved listing (`--listing FILE`) could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SavedListingError {
    /// Not JSON: the file's name, and the parser's error with its line and
    /// column.
    #[error(
        "{name}:{}:{}: the listing is not JSON: {source}",
        .source.line(),
        .source.column()
    )]
    NotJson {
        name: String,
        #[source]
        source: serde_json::Error,
    },
}

/// Why a list's page could not be read (shown after the list's name).
#[derive(Debug, thiserror::Error)]
pub enum Unread {
    /// No answer: the request failed or timed out.
    #[error(" failed: {0}")]
    NoAnswer(String),
    /// A JSON-RPC error instead of a result.
    #[error(" failed: the server answered with error {code} ({message})")]
    ErrorAnswer { code: String, message: String },
    /// An answer with neither a result nor an error.
    #[error(" failed: no result came back")]
    NoResult,
    /// A result that is not an object.
    #[error(": the result is {kind}, not an object with `{key}`")]
    NotAnObject { kind: &'static str, key: String },
    /// The result's items are not an array.
    #[error(": `{key}` is {kind}, not an array")]
    NotAnArray { key: String, kind: &'static str },
    /// The result has no items member.
    #[error(": the result has no `{0}` array")]
    NoItems(String),
    /// A `nextCursor` that is not a string.
    #[error(": `nextCursor` is {0}, not a string; the pages after it cannot be read")]
    BadCursor(&'static str),
    /// More pages than are followed.
    #[error(
        ": the server still had more pages after {MAX_PAGES}; mcpcheck reads at most {MAX_PAGES} pages, and a listing it cannot read to the end cannot be judged"
    )]
    TooManyPages,
}

impl From<ListingError> for crate::error::Error {
    fn from(e: ListingError) -> Self {
        Self::Usage(e.to_string())
    }
}

/// The most pages one list is followed through.
const MAX_PAGES: usize = 50;

/// Whether a list must be read, or may be missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Its failure fails the listing.
    Required,
    /// Its failure leaves it empty.
    Optional,
}

/// One list, followed through its pages.
#[derive(Debug, Default)]
pub struct Listed {
    pub items: Vec<Value>,
    /// What was read with a problem beside it (a lone surrogate escape, a
    /// line that is not JSON-RPC while the list was open), in words.
    pub notes: Vec<String>,
}

/// Follow a list through its pages; returns every item of `key`. With
/// [`Need::Required`], a page that cannot be read is an error naming why;
/// with [`Need::Optional`], it ends the list (never an error).
pub async fn list_all(
    session: &mut Session,
    method: &str,
    key: &str,
    step: Duration,
    need: Need,
) -> Result<Listed, ListingError> {
    let mut listed = Listed::default();
    let mut seen: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 1..=MAX_PAGES {
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let reply = session
            .request(method, params, Deadline::now() + step)
            .await;
        let mut reply = reply;
        let read = read_page(key, &mut reply);
        let (items, next) = match (read, need) {
            (Ok(page), _) => page,
            (Err(why), Need::Required) => {
                let list = if page == 1 {
                    method.to_string()
                } else {
                    format!("{method} (page {page})")
                };
                return Err(ListingError::Unread { list, why });
            }
            (Err(_), Need::Optional) => return Ok(listed),
        };
        if let Some(note) = reply.failure.filter(|_| reply.answered) {
            listed.notes.push(note);
        }
        listed.items.extend(items);
        match next {
            Some(next) if !seen.contains(&next) => {
                seen.push(next.clone());
                cursor = Some(next);
            }
            // No more pages, or a cursor seen before: every page of the
            // loop was read once; the invariant reports the loop from the
            // capture.
            _ => return Ok(listed),
        }
    }
    match need {
        Need::Required => Err(ListingError::Unread {
            list: method.to_string(),
            why: Unread::TooManyPages,
        }),
        Need::Optional => Ok(listed),
    }
}

/// The items and the next cursor of one page's answer, or why it cannot be
/// read.
fn read_page(key: &str, reply: &mut super::Reply) -> Result<(Vec<Value>, Option<String>), Unread> {
    if !reply.answered
        && let Some(failure) = &reply.failure
    {
        return Err(Unread::NoAnswer(failure.clone()));
    }
    if let Some(error) = &reply.error {
        let code = error
            .get("code")
            .map_or_else(|| "no code".to_string(), Value::to_string);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        return Err(Unread::ErrorAnswer {
            code,
            message: mcpcheck_core::truncate(message, 200),
        });
    }
    let Some(result) = &mut reply.result else {
        return Err(Unread::NoResult);
    };
    let kind = mcpcheck_core::type_name(result);
    let Some(object) = result.as_object_mut() else {
        return Err(Unread::NotAnObject {
            kind,
            key: key.to_string(),
        });
    };
    // Moved, not copied: a listing of 100,000 tools is held once.
    let items = match object.get_mut(key) {
        Some(Value::Array(items)) => std::mem::take(items),
        Some(other) => {
            return Err(Unread::NotAnArray {
                key: key.to_string(),
                kind: mcpcheck_core::type_name(other),
            });
        }
        None => return Err(Unread::NoItems(key.to_string())),
    };
    let next = match object.get("nextCursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c.clone()),
        Some(other) => return Err(Unread::BadCursor(mcpcheck_core::type_name(other))),
    };
    Ok((items, next))
}

/// Everything a server lists, each list followed through its pages.
pub struct Listings {
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    /// A 2026-07-28 server's answer to `server/discover` (`None` in the
    /// `initialize` era).
    pub discover: Option<Value>,
    /// What was read with a problem beside it, in words (see [`Listed`]).
    pub notes: Vec<String>,
}

impl Listings {
    /// Say on stderr what was read with a problem beside it, one line each
    /// (`mcpcheck COMMAND: LABEL: note: …`).
    pub fn print_notes(&self, command: &str, label: &str) {
        for note in &self.notes {
            crate::output::err(&format!("mcpcheck {command}: {label}: note: {note}\n"));
        }
    }

    /// The surface lock of what was listed (and of the `server/discover`
    /// answer, when there is one), for the server labelled `label`.
    pub fn to_lock(&self, label: &str) -> Result<Lock, DocError> {
        let listing = json!({
            "tools": self.tools,
            "prompts": self.prompts,
            "resources": self.resources,
            "resourceTemplates": self.templates,
        });
        let lock = Lock::from_listing(label, &listing)?;
        Ok(match &self.discover {
            Some(discover) => lock.with_discover(discover),
            None => lock,
        })
    }
}

/// The four lists: method, key of the items, the capability that
/// advertises it.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("prompts/list", "prompts", "prompts"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resourceTemplates", "resources"),
];

/// Whether the session's server advertises `capability` (in its
/// `initialize` result, or its `server/discover` answer).
fn advertises(session: &Session, capability: &str) -> bool {
    session
        .initialize_result()
        .or_else(|| session.discover_result())
        .and_then(|r| r.get("capabilities")?.get(capability).cloned())
        .is_some_and(|c| !matches!(c, Value::Null | Value::Bool(false)))
}

/// List everything the session's server offers, each request within
/// `step()`; an error names the list that could not be read and why.
pub async fn list_surface(
    session: &mut Session,
    step: &(dyn Fn() -> Duration + Sync),
) -> Result<Listings, ListingError> {
    let mut lists: Vec<Vec<Value>> = Vec::new();
    let mut notes = Vec::new();
    for (method, key, capability) in LISTS {
        let need = if advertises(session, capability) {
            Need::Required
        } else {
            Need::Optional
        };
        let listed = list_all(session, method, key, step(), need).await?;
        notes.extend(listed.notes);
        lists.push(listed.items);
    }
    let mut lists = lists.into_iter();
    let mut next = || lists.next().unwrap_or_default();
    Ok(Listings {
        tools: next(),
        prompts: next(),
        resources: next(),
        templates: next(),
        discover: session.discover_result(),
        notes,
    })
}

/// A saved listing's text (`--listing FILE`, named `name`) as a value, read
/// as a live one is: a lone surrogate escape as U+FFFD, said on stderr.
/// The error names the line and column where it is not JSON.
pub fn read_saved(command: &str, name: &str, text: &str) -> Result<Value, SavedListingError> {
    let (value, lone) =
        super::wire::parse_lossy(text).map_err(|source| SavedListingError::NotJson {
            name: name.to_string(),
            source,
        })?;
    if lone > 0 {
        crate::output::err(&format!(
            "mcpcheck {command}: {name}: note: {} (such as \\udfff) read as U+FFFD, as lenient clients show it\n",
            mcpcheck_core::report::plural(lone, "lone surrogate escape", "lone surrogate escapes")
        ));
    }
    Ok(value)
}

/// Start (or connect to) the server once, list everything it offers, and
/// close the session; all of it within `timeout`.
pub async fn list_everything(
    endpoint: &Endpoint,
    protocol_version: &str,
    timeout: Duration,
) -> Result<Listings, ListingError> {
    let deadline = Deadline::now() + timeout;
    let mut session = Session::connect(endpoint, protocol_version, &Mocks::default(), deadline)
        .await
        .map_err(|e| ListingError::Connect(e.message))?;
    let left = || deadline.saturating_duration_since(Deadline::now());
    let listed = list_surface(&mut session, &left).await;
    session.close().await;
    listed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_listing_that_is_not_json_is_named_with_its_line_and_column() {
        let err = read_saved("lint", "l.json", "{\"tools\": [\n  {\"name\": }\n]}")
            .expect_err("not JSON");
        let SavedListingError::NotJson { name, source } = &err;
        assert_eq!((name.as_str(), source.line()), ("l.json", 2));
        assert_eq!(
            err.to_string(),
            "l.json:2:12: the listing is not JSON: expected value at line 2 column 12"
        );
    }
}
