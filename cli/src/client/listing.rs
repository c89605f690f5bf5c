//! Listing what a server offers: each list followed through its pages.
//! Shared by `conformance`, `coverage` and `generate`.

use std::time::Duration;

use mcpcheck_core::lock::Lock;
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::client::handler::Mocks;
use crate::client::{Endpoint, Session};

/// The most pages one list is followed through.
const MAX_PAGES: usize = 50;

/// Follow a list through its pages; returns every item of `key`.
pub async fn list_all(
    session: &mut Session,
    method: &str,
    key: &str,
    step: Duration,
) -> Vec<Value> {
    let mut items = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let reply = session
            .request(method, params, Deadline::now() + step)
            .await;
        let Some(mut result) = reply.result else {
            break;
        };
        // Moved, not copied: a listing of 100,000 tools is held once.
        if let Some(Value::Array(list)) = result.get_mut(key).map(Value::take) {
            items.extend(list);
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) if !seen.iter().any(|c| c == next) => {
                seen.push(next.to_string());
                cursor = Some(next.to_string());
            }
            // No more pages, or a cursor seen before: the invariant reports
            // the loop from the capture; the probe stops here.
            _ => break,
        }
    }
    items
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
}

impl Listings {
    /// The surface lock of what was listed (and of the `server/discover`
    /// answer, when there is one), for the server labelled `label`.
    pub fn to_lock(&self, label: &str) -> Result<Lock, String> {
        let listing = json!({
            "tools": self.tools,
            "prompts": self.prompts,
            "resources": self.resources,
            "resourceTemplates": self.templates,
        });
        let lock = Lock::from_listing(label, &listing).map_err(|e| e.to_string())?;
        Ok(match &self.discover {
            Some(discover) => lock.with_discover(discover),
            None => lock,
        })
    }
}

/// Start (or connect to) the server once, list everything it offers, and
/// close the session; all of it within `timeout`.
pub async fn list_everything(
    endpoint: &Endpoint,
    protocol_version: &str,
    timeout: Duration,
) -> Result<Listings, String> {
    let deadline = Deadline::now() + timeout;
    let mut session = Session::connect(endpoint, protocol_version, &Mocks::default(), deadline)
        .await
        .map_err(|e| e.message)?;
    let left = || deadline.saturating_duration_since(Deadline::now());
    let tools = list_all(&mut session, "tools/list", "tools", left()).await;
    let prompts = list_all(&mut session, "prompts/list", "prompts", left()).await;
    let resources = list_all(&mut session, "resources/list", "resources", left()).await;
    let templates = list_all(
        &mut session,
        "resources/templates/list",
        "resourceTemplates",
        left(),
    )
    .await;
    let discover = session.discover_result();
    session.close().await;
    Ok(Listings {
        tools,
        prompts,
        resources,
        templates,
        discover,
    })
}
