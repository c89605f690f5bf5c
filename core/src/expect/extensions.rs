//! The extension blocks' keys (docs/extensions.md): what `assert_task`,
//! `assert_skills` and `assert_app` add to the Observation, checked.

use serde_json::json;

use crate::check::{Check, Matcher, Target};
use crate::read::LoadCx;

use super::Input;
use super::args::doc_path;

/// `task_status: S`: the task the block followed ended (or, with
/// `then: none`, began) with status S.
pub(super) fn task_status(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    if let Some(status) = cx.string(i.value, i.key()) {
        let target = Target::Doc(doc_path("task.status"));
        out.push(i.check(
            i.key().into(),
            target,
            Matcher::Exact(json!(status)),
            i.span,
        ));
    }
}

/// `true`: the observation's `FIELD.problems` is an empty list; `false`
/// adds nothing, as for the other flags.
fn no_problems(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>, field: &str) {
    if cx.bool(i.value, i.key()) == Some(true) {
        let target = Target::Doc(doc_path(&format!("{field}.problems")));
        out.push(i.check(i.key().into(), target, Matcher::Exact(json!([])), i.span));
    }
}

/// `digests_match: true`: every file of the manifests was read, and its
/// bytes have the digest and size the manifest gives.
pub(super) fn digests_match(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    no_problems(cx, i, out, "verified");
}

/// `app_valid: true`: the app's tool metadata, resource and HTML break no
/// rule of MCP Apps.
pub(super) fn app_valid(cx: &mut LoadCx, i: &Input<'_>, out: &mut Vec<Check>) {
    no_problems(cx, i, out, "app");
}
