//! `run --shard i/n` and `--shard-timings FILE`: keep this machine's part of
//! the planned tests. Which tests that is, and what the results document
//! records about it, is decided in core ([`mcpcheck_core::shard`]).

use std::path::Path;

use mcpcheck_core::results::Results;
use mcpcheck_core::shard::{self, PlanTest, Shard, ShardRecord, Timings};
use mcpcheck_core::suite::SuiteFile;

use super::Planned;
use crate::error::Result;
use crate::files::read_text;
use crate::output::err;

/// `--shard i/n` for clap.
pub fn parse_shard(s: &str) -> Result<Shard, mcpcheck_core::shard::ShardError> {
    Shard::parse(s)
}

/// Read `--shard-timings`: the results document of an earlier run.
fn read_timings(path: &Path) -> Result<Timings> {
    let text = read_text(path).map_err(|e| format!("--shard-timings: {e}"))?;
    let doc = Results::from_json(&text).map_err(|e| {
        format!(
            "--shard-timings {}: {e}: give the results document of an earlier run of the suite (`mcpcheck run --json`, or the output of `mcpcheck report --merge ... --format json`)",
            path.display()
        )
    })?;
    if doc.shard.is_some() {
        return Err(format!(
            "--shard-timings {}: this is the results of one shard; give every shard the same merged document (`mcpcheck report --merge ... --format json`) so they split the suite alike",
            path.display()
        )
        .into());
    }
    Ok(Timings::from_results(&doc))
}

/// Keep the tests of `shard` in `plan` (renumbered in order) and return what
/// the results document records about the split. Prints on stderr how many
/// tests this shard runs.
pub(super) fn apply(
    shard: Shard,
    timings: Option<&Path>,
    suites: &[SuiteFile],
    plan: &mut Vec<Planned>,
) -> Result<ShardRecord> {
    let timings = timings.map(read_timings).transpose()?;
    let view: Vec<PlanTest<'_>> = plan
        .iter()
        .map(|p| PlanTest {
            file: &p.test.file,
            name: &p.test.name,
            composed: suites[p.file].composed,
            share_server: suites[p.file].share_server,
        })
        .collect();
    let record = ShardRecord::new(shard, &view, timings.as_ref());
    let keep = shard::select(&view, shard, timings.as_ref());
    let total = plan.len();
    let mut taken: Vec<Option<Planned>> = std::mem::take(plan).into_iter().map(Some).collect();
    for (index, i) in keep.into_iter().enumerate() {
        if let Some(mut p) = taken[i].take() {
            p.index = index;
            plan.push(p);
        }
    }
    let by = match &timings {
        Some(t) => format!(", balanced by the durations of {} earlier tests", t.len()),
        None => String::new(),
    };
    err(&format!(
        "shard {shard}: {} of {total} tests{by}\n",
        plan.len()
    ));
    Ok(record)
}
