//! Composition hazards: properties that fail only when several servers sit behind one
//! client, so no single session shows them.
//!
//! - tool-name overlap: two servers expose the same tool name as the servers wrote it
//!   (unprefixed). A client that namespaces tools as `<server>__tool` keeps them
//!   apart; one that does not routes calls ambiguously.
//! - shared-transport id collision: sessions whose `shared_transport` values are equal
//!   were multiplexed over one client channel; a client request id used in two of
//!   them cannot be correlated back to one request. Sessions without
//!   `shared_transport` are on transports of their own and never collide.

use std::collections::{BTreeMap, BTreeSet};

use super::Hazard;
use super::rules::HazardKind;
use super::tools::ToolList;
use crate::capture::{Capture, Id};

/// How a session is named in hazards: its label, else `#<index>`.
pub(crate) fn label(capture: &Capture<'_>, index: usize) -> String {
    capture
        .sessions
        .get(index)
        .and_then(|s| s.server_label.as_deref())
        .map_or_else(|| format!("#{index}"), str::to_string)
}

/// Every hazard of a capture with two or more sessions, in a stable order: by kind,
/// then tool name or transport.
pub(crate) fn hazards(capture: &Capture<'_>, tool_lists: &[Vec<ToolList<'_>>]) -> Vec<Hazard> {
    let mut out = Vec::new();
    if capture.sessions.len() < 2 {
        return out;
    }

    // Tool name → the sessions exposing it, in capture order.
    let mut owners: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for (session, lists) in tool_lists.iter().enumerate() {
        for list in lists {
            for tool in &list.tools {
                if let Some(name) = tool.name.as_deref() {
                    owners.entry(name).or_default().insert(session);
                }
            }
        }
    }
    for (name, sessions) in owners {
        if sessions.len() < 2 {
            continue;
        }
        let servers: Vec<String> = sessions.iter().map(|&s| label(capture, s)).collect();
        out.push(Hazard {
            kind: HazardKind::ToolNameOverlap,
            message: format!(
                "tool `{name}` is exposed unprefixed by {}; a client that does not namespace tools cannot tell which server a call is for",
                servers.join(" and ")
            ),
            servers,
        });
    }

    // Shared transport → (request id → sessions that sent it).
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, session) in capture.sessions.iter().enumerate() {
        if let Some(shared) = session.shared_transport.as_deref() {
            groups.entry(shared).or_default().push(index);
        }
    }
    for (transport, members) in groups {
        if members.len() < 2 {
            continue;
        }
        let mut users: BTreeMap<Id<'_>, BTreeSet<usize>> = BTreeMap::new();
        for &index in &members {
            let Some(session) = capture.sessions.get(index) else {
                continue;
            };
            for exchange in &session.exchanges {
                if let (true, Some(id)) = (exchange.request.is_request(), exchange.request.id()) {
                    users.entry(id).or_default().insert(index);
                }
            }
        }
        let colliding: Vec<(&Id<'_>, &BTreeSet<usize>)> =
            users.iter().filter(|(_, s)| s.len() > 1).collect();
        if colliding.is_empty() {
            continue;
        }
        let involved: BTreeSet<usize> = colliding
            .iter()
            .flat_map(|(_, s)| s.iter().copied())
            .collect();
        let servers: Vec<String> = involved.iter().map(|&s| label(capture, s)).collect();
        let shown: Vec<String> = colliding
            .iter()
            .take(5)
            .map(|(id, _)| id.to_string())
            .collect();
        let rest = match colliding.len() {
            n if n > 5 => format!(" and {} more", n - 5),
            _ => String::new(),
        };
        out.push(Hazard {
            kind: HazardKind::SharedTransportIdCollision,
            message: format!(
                "{} share transport {transport:?} and reuse request ids {}{rest}; responses on the shared channel cannot be correlated to one request",
                servers.join(" and "),
                shown.join(", ")
            ),
            servers,
        });
    }
    out
}
