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
    ctx.for_each_message(|located| {
        let message = located.message;
        if !located.slot.is_from_server() || message.method_str() != "notifications/progress" {
            return;
        }
        let Some(params) = message.params() else {
            return;
        };
        let Some(token) = json::member(params, "progressToken").map(json::as_id) else {
            return;
        };
        let place = located.place();
        let token_ok = match located.slot {
            Slot::Notification(_) => {
                let sent = located.exchange.and_then(|i| exchanges.get(i)).and_then(token_of);
                match sent {
                    Some(sent) if sent == token => true,
                    Some(sent) => {
                        out.push(
                            Rule::Progress,
                            located.exchange,
                            format!("{place} uses token {token}, but the request sent token {sent}"),
                        );
                        false
                    }
                    None => {
                        out.push(
                            Rule::Progress,
                            located.exchange,
                            format!("{place} uses token {token}, but the request sent no progressToken"),
                        );
                        false
                    }
                }
            }
            _ => {
                let tasks = tasks.get_or_insert_with(|| task_tokens(exchanges));
                let sent_before = |&request: &usize| located.exchange.is_some_and(|after| request <= after);
                if tasks.get(&token).is_some_and(sent_before) {
                    true
                } else {
                    out.push(
                        Rule::Progress,
                        located.exchange,
                        format!("{place} uses token {token}, but no request in progress carries it"),
                    );
                    false
                }
            }
        };
        if !token_ok {
            return;
        }
        let Some(value) = json::member(params, "progress").and_then(json::as_f64) else {
            return;
        };
        if let Some(previous) = last.insert(token.clone(), value)
            && value <= previous
        {
            out.push(
                Rule::Progress,
                located.exchange,
                format!("{place}: progress for token {token} went from {previous} to {value}; it must increase"),
            );
        }
    });
}
