//! Logging and notification keys: what arrived while the request ran.

use crate::check::{Check, Matcher, Target};
use crate::read::LoadCx;

use super::args::doc_path;
use super::{Block, Input};

fn notifications() -> Target {
    Target::Doc(doc_path("notifications"))
}

/// A count of notifications (of `method`, when given) within bounds.
fn count(
    cx: &mut LoadCx,
    i: &Input<'_>,
    out: &mut Vec<Check>,
    method: Option<&str>,
    bounds: fn(u64) -> (Option<u64>, Option<u64>),
    noun: &'static str,
) {
    if let Some(n) = cx.uint(i.value, i.key()) {
        let (min, max) = bounds(n);
        let m = Matcher::NotificationCount {
            method: method.map(str::to_string),
            own_progress: false,
            min,
            max,
            noun,
        };
        out.push(i.check(i.key().into(), notifications(), m, i.span));
    }
}

/// One check per listed string, named `key string`.
fn per_string(
    cx: &mut LoadCx,
    i: &Input<'_>,
    out: &mut Vec<Check>,
    matcher: impl Fn(String) -> Matcher,
) {
    if let Some(items) = cx.strings(i.value, i.key()) {
        for (s, sp) in items {
            let name = format!("{} {s}", i.key());
            out.push(i.check(name, notifications(), matcher(s), sp));
        }
    }
}

pub(super) fn min_messages(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    let bounds = |n| (Some(n), None);
    count(
        cx,
        i,
        out,
        Some("notifications/message"),
        bounds,
        "log message(s)",
    );
}

pub(super) fn min_count(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    count(cx, i, out, None, |n| (Some(n), None), "notification(s)");
}

pub(super) fn max_count(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    count(cx, i, out, None, |n| (None, Some(n)), "notification(s)");
}

pub(super) fn contains_level(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    per_string(cx, i, out, Matcher::LogLevel);
}

/// `contains_data` reads log `data` in `assert_logging`, notification params
/// elsewhere.
fn data(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>, present: bool) {
    let log_data = i.block == Block::Logging;
    per_string(cx, i, out, |needle| Matcher::NotificationData {
        needle,
        present,
        log_data,
    });
}

pub(super) fn contains_data(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    data(cx, i, out, true);
}

pub(super) fn not_contains_data(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    data(cx, i, out, false);
}

pub(super) fn methods(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    per_string(cx, i, out, |method| Matcher::NotificationMethod {
        method,
        present: true,
    });
}

pub(super) fn not_methods(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    per_string(cx, i, out, |method| Matcher::NotificationMethod {
        method,
        present: false,
    });
}
