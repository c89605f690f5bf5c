//! INV-020: following nextCursor never loops back to a cursor already seen in the same
//! listing (2025-11-25 server/utilities/pagination).
//!
//! A listing starts with a list request that carries no cursor and continues with the
//! requests that pass a cursor. Within it, a `nextCursor` equal to one already
//! returned (or to the cursor just sent) sends a client that follows cursors, as
//! the spec asks, round in a circle.

use std::collections::{HashMap, HashSet};

use super::Sink;
use super::json;
use super::rules::Rule;
use super::session::SessionCtx;
use crate::capture::MethodKind;

pub(crate) fn cursor_loop(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let mut listings: HashMap<&str, HashSet<String>> = HashMap::new();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let method = match exchange.request.kind() {
            MethodKind::ToolsList => "tools/list",
            MethodKind::ResourcesList => "resources/list",
            MethodKind::ResourcesTemplatesList => "resources/templates/list",
            MethodKind::PromptsList => "prompts/list",
            _ => continue,
        };
        let Some(result) = exchange.response.as_ref().and_then(|r| r.result()) else {
            continue;
        };
        let sent = exchange
            .request
            .params()
            .and_then(|p| json::member(p, "cursor"))
            .and_then(json::as_str)
            .map(|c| c.into_owned());
        let seen = listings.entry(method).or_default();
        match &sent {
            None => seen.clear(),
            Some(cursor) => {
                seen.insert(cursor.clone());
            }
        }
        let Some(next) = json::member(result, "nextCursor").and_then(json::as_str) else {
            continue;
        };
        if seen.contains(next.as_ref()) {
            out.push(
                Rule::CursorLoop,
                Some(index),
                format!(
                    "{method} returned nextCursor {:?}, a cursor already seen in this listing; following it loops",
                    json::snippet(&next, 60)
                ),
            );
        }
        seen.insert(next.into_owned());
    }
}
