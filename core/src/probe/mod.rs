//! Probes: every decision behind `mcpcheck audit` (call each tool, prompt
//! and resource once with valid input) and `mcpcheck fuzz` (throw
//! systematic and seeded random inputs at each tool). The CLI connects,
//! lists, calls, times and prints; this module decides what to send, what
//! an outcome means, what the reports say and whether the run passed. It
//! does no I/O and reads no clock; its only randomness is a SplitMix64
//! stream seeded by the caller.
//!
//! # API
//!
//! Choosing and building inputs:
//!
//! * [`write_risk`]`(tool) -> Option<String>` — why a listed tool may write
//!   (`destructiveHint: true`, or `readOnlyHint: false` said explicitly);
//!   `None`: call it (tools without annotations are called).
//!   [`WriteRisks`]`::new(tools).of(tool)` judges a tool together with every
//!   other listed tool of the same name (a call names a tool, so it may
//!   reach any of them).
//! * [`valid_arguments`]`(input_schema) -> Value` — schema-valid arguments,
//!   required and optional properties (values the schema gives first:
//!   `const`, `enum`, `examples`, `default`, examples in the description;
//!   formats, bounds, patterns, `$ref`, `anyOf`/`oneOf`, bounded depth and
//!   size); always an object. [`arguments_within_bounds`] says why none
//!   can be built within [`MAX_VALUES`] and [`MAX_TEXT`].
//! * [`input_valid`]`(input_schema, &Arguments) -> Option<bool>` — whether
//!   arguments satisfy the schema (for [`ClassifyCx::input_valid`]).
//! * [`Arguments`] — `Omitted` (no `arguments` key), `Null`, `Value(v)`.
//! * [`fuzz_cases`]`(tool, seed, runs) -> Vec<FuzzCase>` — deterministic
//!   cases: systematic ones first (order documented there), then seeded
//!   random mutations; [`fuzz_iter`] the same, built one at a time; [`FuzzCase`] `{label, category, arguments,
//!   schema_valid}`, [`Category`]; [`systematic_count`]`(tool)`.
//! * Bounds: [`HUGE_STRING_BYTES`], [`LONG_ARRAY_ITEMS`], [`DEEP_NESTING`],
//!   [`MAX_CASE_BYTES`], [`MAX_TOTAL_BYTES`]; [`EXTRA_PROPERTY`].
//!
//! Shrinking a failure (the loop is the caller's, see [`shrink_candidates`]):
//!
//! * [`shrink_candidates`]`(&Arguments) -> Vec<Arguments>` — strictly
//!   smaller inputs in a fixed order (at most [`MAX_CANDIDATES`]);
//!   [`shrink_iter`] the same, built one at a time.
//! * [`size`]`(&Arguments) -> usize` — the measure every candidate lowers.
//!
//! Deciding what happened:
//!
//! * [`classify`]`(&Observed, &ClassifyCx) -> Classification` — the table is
//!   on [`classify`]. [`Observed`] `{response, non_json_lines, exited,
//!   timed_out, stderr_tail, duration_ms}`; [`ClassifyCx`] `{request,
//!   output_schema, protocol_version, input_valid, timeout_ms}` (start from
//!   [`ClassifyCx::new`]); [`Request`]; [`Classification`] `{status,
//!   detail}`, [`Classification::skipped`].
//! * [`Status`] (snake_case: `healthy`, `tool_error`, `accepted_invalid`,
//!   `skipped`, `schema_mismatch`, `invalid_result`, `non_json_output`,
//!   `protocol_error`, `timeout`, `crash`) with [`Status::is_serious`],
//!   [`Status::level`] ([`Level`]: pass, note, warning, error) and
//!   [`Status::fuzz_passed`].
//!
//! Audit report:
//!
//! * [`AuditResult`] (`from_call`, `skipped`), [`AuditReport::new`]`(server,
//!   transport, results)`, [`ItemKind`], [`Transport`].
//! * [`audit_score`]`(&[AuditResult]) -> u32`, [`audit_passed`]`(&report)`.
//! * [`audit_findings`]`(&report)`: the findings report the one set of
//!   renderers draws (rules `A101` … `A302`, [`rules::AUDIT`]);
//!   [`reads_as_error`] decides `A302`.
//!
//! Fuzz report:
//!
//! * [`FuzzToolReport`] (`new`, `skipped`, `record(case, outcome, shrunk,
//!   stderr)`), [`FuzzFailure`], [`FuzzReport::new`]`(seed, server,
//!   transport, tools)` (counts the [`FuzzSummary`]).
//! * [`fuzz_passed`]`(&report)`; [`fuzz_findings`]`(&report)`, the findings
//!   report (rules `F101` … `F201`, [`rules::FUZZ`]) — byte-identical
//!   renderings for identical reports (no times).
//!
//! Regression tests:
//!
//! * [`regressions`]`(&Server, &[Finding], timeout) -> Regressions` — the
//!   findings grouped by root cause ([`Cause`]: one status on one kind of
//!   input), each with one ready-to-run test file that fails while the bug
//!   is there, or why none is ([`NotWritten`]: the suite format cannot send
//!   the input exactly); [`regression_test`] for one finding;
//!   [`regression_exact`]`(&Arguments)` — whether a suite can send those
//!   arguments exactly.
//!
//! # A run, as the CLI drives it
//!
//! Audit: for each listed tool, `write_risk` (skip unless
//! `--include-writes`: [`AuditResult::skipped`]), else send
//! `valid_arguments(inputSchema)`, classify with `input_valid` of what was
//! sent and the tool's `outputSchema`; prompts get their required arguments
//! ([`crate::generate::prompt_arguments`]), resources a read. Build the
//! [`AuditReport`]; the exit status follows [`audit_passed`].
//!
//! Fuzz: for each tool not skipped, send every [`fuzz_cases`] case,
//! classify with `input_valid: Some(case.schema_valid)`; on a serious
//! status, optionally shrink (each candidate classified with its own
//! [`input_valid`]); `record` every case. The exit status follows
//! [`fuzz_passed`]. Secrets in stderr or inputs are the caller's to redact
//! ([`crate::redact`]) before building a report.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

mod audit_report;
mod classify;
mod fuzz;
mod fuzz_report;
mod inputs;
mod mutate;
mod pattern;
mod policy;
mod regression;
mod render;
mod rng;
pub mod rules;
mod schema;
mod shrink;
pub mod stateful;
pub mod stateful_report;
mod timing;

pub use audit_report::{
    AUDIT_REPORT_VERSION, AuditReport, AuditResult, audit_findings, audit_passed, audit_score,
    first_line, reads_as_error,
};
pub use classify::{
    Classification, ClassifyCx, FLOOD_BYTES, FLOOD_MESSAGES, Level, Observed, Request, Status,
    classify, flood,
};
pub use fuzz_report::{
    FUZZ_REPORT_VERSION, FuzzFailure, FuzzReport, FuzzSummary, FuzzToolReport, fuzz_findings,
    fuzz_passed,
};
pub use regression::{
    Cause, Finding, NotWritten, Regressions, regression_exact, regression_test, regressions,
};
pub use render::{ItemKind, Transport};

pub use fuzz::{
    Category, DEEP_NESTING, EXTRA_PROPERTY, FuzzCase, FuzzCases, HUGE_STRING_BYTES,
    LONG_ARRAY_ITEMS, MAX_CASE_BYTES, MAX_TOTAL_BYTES, fuzz_cases, fuzz_iter, systematic_count,
};
pub use inputs::{
    MAX_TEXT, MAX_VALUES, OverBounds, arguments_within_bounds, input_valid, valid_arguments,
};
pub(crate) use inputs::{example_for, required_arguments};
pub use policy::{WriteRisks, write_risk};
pub(crate) use rng::draw as rng_stream;
pub use shrink::{MAX_CANDIDATES, shrink_candidates, shrink_iter, size};
pub use timing::{CallWait, DEFAULT_CALL_TIMEOUT_MS, MAX_CALL_MS, call_wait};

/// The `arguments` of one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Arguments {
    /// No `arguments` key at all.
    #[default]
    Omitted,
    /// `"arguments": null`.
    Null,
    /// `"arguments": <value>` (an object, or for a fuzz case anything).
    Value(Value),
}

impl Arguments {
    /// No `arguments` key.
    pub fn is_omitted(&self) -> bool {
        matches!(self, Arguments::Omitted)
    }

    /// The value sent, `None` when the key is left out.
    pub fn as_value(&self) -> Option<Value> {
        match self {
            Arguments::Omitted => None,
            Arguments::Null => Some(Value::Null),
            Arguments::Value(v) => Some(v.clone()),
        }
    }

    /// As JSON for a report: omitted and `null` are both `null`.
    pub fn to_json(&self) -> Value {
        self.as_value().unwrap_or(Value::Null)
    }
}

/// As JSON: the value, or `null` for `Null` and `Omitted` (a field holding
/// arguments is left out when omitted: `skip_serializing_if =
/// "Arguments::is_omitted"`). Reading `null` gives `Null`.
impl Serialize for Arguments {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Arguments::Value(v) => v.serialize(s),
            _ => s.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Null => Arguments::Null,
            v => Arguments::Value(v),
        })
    }
}
