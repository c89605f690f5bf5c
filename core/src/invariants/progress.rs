//! INV-012: progress notifications use a token the client sent with a request that is
//! still in progress, and their progress value increases
//! (2025-11-25 basic/utilities/progress).

use std::collections::HashMap;

use super::Sink;
use super::json;
use super::rules::Rule;
use super::session::{SessionCtx, Slot, meta};
use crate::capture::{Exchange, Id};

/// The progress token a request carried in `params._meta.progressToken`.
fn token_of<'a>(exchange: &Exchange<'a>) -> Option<Id<'a>> {
    meta(&exchange.request, "progressToken").map(json::as_id)
}

/// Whether a request is task-augmented: its progress token stays valid after the
/// response, until the task ends (2025-11-25 basic/utilities/progress, rule 3).
fn is_task(exchange: &Exchange<'_>) -> bool {
    exchange
        .request
        .params()
        .and_then(|p| json::member(p, "task"))
        .is_some_and(|t| !json::is_null(t))
}

/// Tokens of task-augmented requests (which may report progress after their
/// response), with the exchange that sent each.
fn task_tokens<'a>(exchanges: &[Exchange<'a>]) -> HashMap<Id<'a>, usize> {
    exchanges
        .iter()
        .enumerate()
        .filter(|(_, e)| is_task(e))
        .filter_map(|(i, e)| Some((token_of(e)?, i)))
        .collect()
}

pub(crate) fn progress(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let exchanges = &ctx.session.exchanges;
    // Built on the first progress notification outside its request, which most
    // sessions never have.
    let mut tasks: Option<HashMap<Id<'_>, usize>> = None;
    // The last progress value seen per token, across the whole session.
    let mut last: HashMap<Id<'_>, f64> = HashMap::new();
    // The token of the exchange whose notifications are being read: they come one
    // after another, so the request is read once for all of them.
    let mut sent_by: Option<(usize, Option<Id<'_>>)> = None;
    ctx.for_each_message(|located| {
        let message = located.message;
        if !located.slot.is_from_server() || !message.method_is("notifications/progress") {
            return;
        }
        let Some(params) = message.params().and_then(json::Object::new) else {
            return;
        };
        let Some(token) = params.get("progressToken").map(json::as_id) else {
            return;
        };
        let problem = match (located.slot, located.exchange) {
            (Slot::Notification(_), Some(index)) => {
                let sent = match &sent_by {
                    Some((at, sent)) if *at == index => sent.clone(),
                    _ => {
                        let sent = exchanges.get(index).and_then(token_of);
                        sent_by = Some((index, sent.clone()));
                        sent
                    }
                };
                match sent {
                    Some(sent) if sent == token => None,
                    Some(sent) => Some(format!("uses token {token}, but the request sent token {sent}")),
                    None => Some(format!("uses token {token}, but the request sent no progressToken")),
                }
            }
            _ => {
                let tasks = tasks.get_or_insert_with(|| task_tokens(exchanges));
                let sent_before = |&request: &usize| located.exchange.is_some_and(|after| request <= after);
                (!tasks.get(&token).is_some_and(sent_before))
                    .then(|| format!("uses token {token}, but no request in progress carries it"))
            }
        };
        if let Some(problem) = problem {
            out.push(Rule::Progress, located.exchange, format!("{} {problem}", located.place()));
            return;
        }
        let Some(value) = params.get("progress").and_then(json::as_f64) else {
            return;
        };
        if let Some(previous) = last.insert(token.clone(), value)
            && value <= previous
        {
            out.push(
                Rule::Progress,
                located.exchange,
                format!(
                    "{}: progress for token {token} went from {previous} to {value}; it must increase",
                    located.place()
                ),
            );
        }
    });
}
