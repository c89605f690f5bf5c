//! The check model: what a check looks at, how it decides, and its outcome.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::NaiveDate;
use regex::Regex;
use serde_json::Value;

use crate::diag::Span;
use crate::path::Path;
use crate::value::{plain, show, show_json, truncate};

/// How many characters of a value a message shows.
pub const SHOW: usize = 200;

/// Inputs a check may need that are not in the Observation: the caller reads
/// files and the clock; core only looks at what it is given.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Today's date, for `dates_within_days`.
    pub today: Option<NaiveDate>,
    /// File contents after the call, keyed by the path as the suite wrote it
    /// (templates unexpanded). `None`: the file does not exist.
    pub files: BTreeMap<String, Option<String>>,
    /// File contents before the call (the snapshot for `file_unchanged`).
    pub files_before: BTreeMap<String, Option<String>>,
    /// The progress token the caller sent with the call, if any; progress
    /// notifications for other tokens are not counted.
    pub progress_token: Option<Value>,
    /// The URI the caller subscribed to, as sent (templates expanded). A
    /// `resource_updated` check for a URI looks for this one when given, and
    /// for the URI as the suite wrote it otherwise.
    pub subscribed_uri: Option<String>,
}

/// What a check looks at.
#[derive(Clone, Debug)]
pub enum Target {
    /// Values selected by a path from the Observation root.
    Doc(Path),
    /// A quantifier's `[*]` path taken apart (see [`Each`]).
    Each(Box<Each>),
    /// The Observation's `text` parsed as JSON (whole, or its first JSON
    /// line), then a path into that (mcp-assert's `json_path`).
    TextJson(Path),
    /// A file's content after the call.
    File(String),
}

impl Target {
    /// Where the check looks, as steps from the observation's root (see
    /// [`Path::segments`]): `["text", "$", …]` for the text read as JSON,
    /// `["file", path]` for a file; `None` when the path cannot be written
    /// as steps.
    pub fn segments(&self) -> Option<Vec<Value>> {
        match self {
            Target::Doc(p) => p.segments(),
            Target::Each(e) => e.path.segments(),
            Target::TextJson(p) => {
                let mut out = vec![Value::String("text".into())];
                out.extend(p.segments()?);
                Some(out)
            }
            Target::File(f) => Some(vec![Value::String("file".into()), Value::String(f.clone())]),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Target::Doc(p) => p.as_str().to_string(),
            Target::Each(e) => e.path.as_str().to_string(),
            Target::TextJson(p) => format!("text as JSON {}", p.as_str()),
            Target::File(f) => format!("file {f}"),
        }
    }
}

/// A quantifier's `[*]` path (`results[*].type`) taken apart: each element
/// of the array at `items` (`results`), and in it the values `field` selects
/// (`$.type`; `$` for the element itself). An element where a singular
/// `field` selects nothing is a missing field, and a missing array is a
/// failure, not zero values.
#[derive(Clone, Debug)]
pub struct Each {
    /// The whole path as written.
    pub path: Path,
    pub items: Path,
    pub field: Path,
}

/// Which results a tag matcher requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagRule {
    /// Every result has all the tags (`all_have_tags`).
    All,
    /// No result has any of the tags (`none_have_tags`).
    None,
    /// Every result has at least one of the tags (`each_has_any_tag`).
    Any,
}

/// A condition guarding nested checks (`if_results`, `if_has_history`,
/// `if_sensitive_results`).
#[derive(Clone, Debug)]
pub enum Condition {
    /// `json.results` is a non-empty array.
    HasResults,
    /// `json.history_results` exists.
    HasHistory,
    /// Some `json.results[*].file` starts with `people/` or `documents/`.
    SensitiveResults,
}

impl Condition {
    pub(super) fn describe(&self) -> &'static str {
        match self {
            Condition::HasResults => "results is non-empty",
            Condition::HasHistory => "history_results exists",
            Condition::SensitiveResults => "a result file is under people/ or documents/",
        }
    }
}

/// How a check decides. Each variant documents its rule.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// JSON equality, numbers by value (`exact`, `status`, `field_equals`).
    Exact(Value),
    /// mcp-assert `equals`: plain text equal after trimming both sides.
    TextEquals(String),
    /// A recorded snapshot: the text equals it once every temporary copy of
    /// a fixture is normalized on both sides ([`crate::temp_copy`]).
    Snapshot(String),
    /// Looking at the whole Observation: the answer is not a tool error,
    /// neither `result.isError: true` nor text that reads as an error
    /// ([`crate::snapshot::tool_error`]). What a recording run expects of
    /// the answers it keeps.
    NoToolError,
    /// mcp-assert `json_path` value: plain string forms equal, numbers by value.
    PlainEquals(Value),
    /// The plain text contains the string (case-sensitive).
    Contains(String),
    /// The plain text contains the string, ignoring case.
    IContains(String),
    /// The plain text does not contain the string.
    NotContains(String),
    /// The plain text contains at least one of the strings.
    ContainsAny(Vec<String>),
    /// The regex matches somewhere in the plain text.
    Regex(Regex),
    /// The regex matches nowhere in the plain text.
    NotRegex(Regex),
    /// The value validates against a JSON Schema.
    Schema(Arc<jsonschema::Validator>),
    /// mcp-assert `not_empty`: trimmed text is not "", "null", "[]" or "{}".
    NotEmpty,
    /// The value is `true`.
    IsTrue,
    /// The value is absent, null or `false` (mcp-assert `not_error`).
    NotTrue,
    /// The path selects something (`has_fields`, list-form `exists`).
    Exists,
    /// The path selects nothing, or null (list-form `absent`).
    Absent,
    /// mcp-assert `in_order`: each string found after the end of the previous.
    InOrder(Vec<String>),
    /// mcp-assert `min_results`/`max_results`: the text parsed as JSON is an
    /// array, or an object whose first of `locations`, `items`, `results`,
    /// `references`, `symbols` is an array; its length is within bounds.
    ResultCount { min: Option<u64>, max: Option<u64> },
    /// mcp-assert `net_delta`: the text parsed as a JSON object has a numeric
    /// `net_delta` equal to this.
    NetDelta(i64),
    /// The value is an array whose length is within bounds
    /// (`results_min`/`results_max`/`results_count`, list-form `length`).
    Length {
        min: Option<u64>,
        max: Option<u64>,
        noun: &'static str,
    },
    /// A number within `[min, max]` (`range_check`, list-form `range`).
    InRange {
        min: Option<f64>,
        max: Option<f64>,
        shown: String,
    },
    /// Quantifier: every value equals (`all_match`).
    AllEqual(Value),
    /// Quantifier: every value equals one of these (`all_match_one_of`).
    AllOneOf(Vec<Value>),
    /// Quantifier: every value matches the regex (`all_match_pattern`).
    AllRegex(Regex),
    /// Quantifier: no value matches the regex (`none_match_pattern`).
    NoneRegex(Regex),
    /// Quantifier: every value is a number within `[min, max]` (`all_in_range`).
    AllInRange { min: f64, max: f64, shown: String },
    /// Quantifier: values are in descending order (`sorted_desc`).
    SortedDesc,
    /// The array contains every one of these values (`array_contains`).
    ArrayContains(Vec<Value>),
    /// Quantifier: every date is within `[start, end]` (`all_dates_between`).
    DatesBetween { start: String, end: String },
    /// Quantifier: every date is within this many days of today
    /// (`dates_within_days`; today comes from [`Facts`]).
    DatesWithinDays(i64),
    /// Tags of each result (`results[*].metadata.tags`).
    Tags { rule: TagRule, tags: Vec<String> },
    /// At least one alternative (each a list of checks that must all pass)
    /// passes (`one_of`).
    OneOf(Vec<Vec<Check>>),
    /// When the condition holds, every nested check must pass; otherwise pass.
    When {
        condition: Condition,
        then: Vec<Check>,
    },
    /// The file contains the string (`file_contains`).
    FileContains(String),
    /// The file does not contain the string (`file_not_contains`).
    FileNotContains(String),
    /// The file does not exist (`file_not_exists`).
    FileAbsent,
    /// The file's content is the same as before the call (`file_unchanged`).
    FileUnchanged,
    /// Count notifications (optionally of one method, optionally only progress
    /// for the caller's token) within bounds.
    NotificationCount {
        method: Option<String>,
        own_progress: bool,
        min: Option<u64>,
        max: Option<u64>,
        noun: &'static str,
    },
    /// A notification with this method arrived (or, negated, none did).
    NotificationMethod { method: String, present: bool },
    /// Some notification's params (or, for log messages, `data`) contain the
    /// string (or, negated, none does).
    NotificationData {
        needle: String,
        present: bool,
        log_data: bool,
    },
    /// A log message (`notifications/message`) at this level arrived.
    LogLevel(String),
    /// A `notifications/resources/updated` (for this URI, when given: the
    /// URI as written, read as [`Facts::subscribed_uri`] when the caller
    /// gives that) arrived, or, when `expected` is false, none did.
    ResourceUpdated { uri: Option<String>, expected: bool },
    /// mcp-assert: the server must not answer with a JSON-RPC error.
    NoRpcError,
    /// A check that cannot be met: what it needed, and why it is missing (a
    /// test without the recorded snapshot it is compared with).
    Unmet { needs: String, reason: String },
    /// Trajectory `order`: the tools appear in this order (not necessarily
    /// adjacent) in the trace.
    TraceOrder(Vec<String>),
    /// Trajectory `presence`: every tool appears at least once.
    TracePresence(Vec<String>),
    /// Trajectory `absence`: none of the tools appears.
    TraceAbsence(Vec<String>),
    /// Trajectory `args_contain`: the first call of the tool has every listed
    /// argument, equal in plain string form (mcp-assert's rule).
    TraceArgs {
        tool: String,
        args: Vec<(String, Value)>,
    },
}

impl Matcher {
    /// What is expected, as a value: the matcher's parameter as the suite
    /// gave it (a string, a list, bounds as `{min, max}`); `null` for a
    /// matcher without one (`not_empty`, `exists`, a schema, nested checks).
    pub fn expected_value(&self) -> Value {
        fn strings(v: &[String]) -> Value {
            Value::Array(v.iter().map(|s| Value::String(s.clone())).collect())
        }
        fn bounds_value<T: Into<Value> + Copy>(min: Option<T>, max: Option<T>) -> Value {
            let mut m = serde_json::Map::new();
            if let Some(n) = min {
                m.insert("min".into(), n.into());
            }
            if let Some(n) = max {
                m.insert("max".into(), n.into());
            }
            Value::Object(m)
        }
        match self {
            Matcher::Exact(v) | Matcher::PlainEquals(v) | Matcher::AllEqual(v) => v.clone(),
            Matcher::TextEquals(s)
            | Matcher::Snapshot(s)
            | Matcher::Contains(s)
            | Matcher::IContains(s)
            | Matcher::NotContains(s)
            | Matcher::FileContains(s)
            | Matcher::FileNotContains(s)
            | Matcher::LogLevel(s) => Value::String(s.clone()),
            Matcher::ContainsAny(v)
            | Matcher::InOrder(v)
            | Matcher::TraceOrder(v)
            | Matcher::TracePresence(v)
            | Matcher::TraceAbsence(v) => strings(v),
            Matcher::Regex(r)
            | Matcher::NotRegex(r)
            | Matcher::AllRegex(r)
            | Matcher::NoneRegex(r) => Value::String(r.as_str().to_string()),
            Matcher::ResultCount { min, max }
            | Matcher::Length { min, max, .. }
            | Matcher::NotificationCount { min, max, .. } => bounds_value(*min, *max),
            Matcher::InRange { min, max, .. } => bounds_value(*min, *max),
            Matcher::AllInRange { min, max, .. } => bounds_value(Some(*min), Some(*max)),
            Matcher::NetDelta(n) => Value::from(*n),
            Matcher::DatesWithinDays(d) => Value::from(*d),
            Matcher::AllOneOf(v) | Matcher::ArrayContains(v) => Value::Array(v.clone()),
            Matcher::DatesBetween { start, end } => {
                serde_json::json!({"start": start, "end": end})
            }
            Matcher::Tags { tags, .. } => strings(tags),
            Matcher::NotificationMethod { method, .. } => Value::String(method.clone()),
            Matcher::NotificationData { needle, .. } => Value::String(needle.clone()),
            Matcher::ResourceUpdated { uri, .. } => uri
                .as_ref()
                .map_or(Value::Null, |u| Value::String(u.clone())),
            Matcher::TraceArgs { args, .. } => Value::Object(args.iter().cloned().collect()),
            Matcher::Schema(_)
            | Matcher::NotEmpty
            | Matcher::IsTrue
            | Matcher::NotTrue
            | Matcher::Exists
            | Matcher::Absent
            | Matcher::SortedDesc
            | Matcher::OneOf(_)
            | Matcher::When { .. }
            | Matcher::FileAbsent
            | Matcher::FileUnchanged
            | Matcher::NoRpcError
            | Matcher::NoToolError
            | Matcher::Unmet { .. } => Value::Null,
        }
    }

    /// A short description of what is expected, for reports.
    pub fn expected(&self) -> String {
        match self {
            Matcher::Exact(v) => show_json(v, SHOW),
            Matcher::TextEquals(s) => truncate(s.trim(), SHOW),
            Matcher::Snapshot(s) => show_json(&Value::String(s.clone()), SHOW),
            Matcher::PlainEquals(v) => plain(v),
            Matcher::Contains(s) => format!("contains {}", quote(s)),
            Matcher::IContains(s) => format!("contains {} (any case)", quote(s)),
            Matcher::NotContains(s) => format!("does not contain {}", quote(s)),
            Matcher::ContainsAny(v) => format!(
                "contains one of {}",
                v.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            ),
            Matcher::Regex(r) => format!("matches regex '{}'", r.as_str()),
            Matcher::NotRegex(r) => format!("does not match regex '{}'", r.as_str()),
            Matcher::Schema(_) => "valid against the schema".into(),
            Matcher::NotEmpty => "not empty".into(),
            Matcher::IsTrue => "true".into(),
            Matcher::NotTrue => "absent or false".into(),
            Matcher::Exists => "present".into(),
            Matcher::Absent => "absent".into(),
            Matcher::InOrder(v) => format!(
                "in order: {}",
                v.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            ),
            Matcher::ResultCount { min, max } | Matcher::Length { min, max, .. } => {
                bounds(*min, *max)
            }
            Matcher::NetDelta(n) => format!("net_delta = {n}"),
            Matcher::InRange { min, max, shown } => match (min, max) {
                (Some(_), Some(_)) => format!("within {shown}"),
                (Some(_), None) => format!("at least {shown}"),
                (None, Some(_)) => format!("at most {shown}"),
                (None, None) => "any number".into(),
            },
            Matcher::AllInRange { shown, .. } => format!("within {shown}"),
            Matcher::AllEqual(v) => format!("all equal {}", show(v, SHOW)),
            Matcher::AllOneOf(vs) => format!(
                "all one of {}",
                vs.iter()
                    .map(|v| show(v, 60))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Matcher::AllRegex(r) => format!("all match regex '{}'", r.as_str()),
            Matcher::NoneRegex(r) => format!("none match regex '{}'", r.as_str()),
            Matcher::SortedDesc => "sorted descending".into(),
            Matcher::ArrayContains(vs) => format!(
                "contains {}",
                vs.iter()
                    .map(|v| show(v, 60))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Matcher::DatesBetween { start, end } => format!("dates from {start} to {end}"),
            Matcher::DatesWithinDays(d) => format!("dates within {d} days of today"),
            Matcher::Tags { rule, tags } => {
                let list = tags.iter().map(|t| quote(t)).collect::<Vec<_>>().join(", ");
                match rule {
                    TagRule::All => format!("every result has tags {list}"),
                    TagRule::None => format!("no result has tags {list}"),
                    TagRule::Any => format!("every result has one of tags {list}"),
                }
            }
            Matcher::OneOf(alts) => format!("one of {} alternatives passes", alts.len()),
            Matcher::When { condition, then } => {
                format!("if {}: {} checks pass", condition.describe(), then.len())
            }
            Matcher::FileContains(s) => format!("contains {}", quote(s)),
            Matcher::FileNotContains(s) => format!("does not contain {}", quote(s)),
            Matcher::FileAbsent => "file does not exist".into(),
            Matcher::FileUnchanged => "unchanged".into(),
            Matcher::NotificationCount { min, max, noun, .. } => {
                format!("{} {noun}", bounds(*min, *max))
            }
            Matcher::NotificationMethod { method, present } => {
                if *present {
                    format!("a {method} notification")
                } else {
                    format!("no {method} notification")
                }
            }
            Matcher::NotificationData {
                needle, present, ..
            } => {
                if *present {
                    format!("a notification containing {}", quote(needle))
                } else {
                    format!("no notification containing {}", quote(needle))
                }
            }
            Matcher::LogLevel(l) => format!("a log message at level {}", quote(l)),
            Matcher::ResourceUpdated { expected, .. } => {
                if *expected {
                    "a resources/updated notification".into()
                } else {
                    "no resources/updated notification".into()
                }
            }
            Matcher::NoRpcError => "a result, not a JSON-RPC error".into(),
            Matcher::NoToolError => "an answer that is not a tool error".into(),
            Matcher::Unmet { needs, .. } => needs.clone(),
            Matcher::TraceOrder(t) => format!("in order: {}", t.join(", ")),
            Matcher::TracePresence(t) => format!("called: {}", t.join(", ")),
            Matcher::TraceAbsence(t) => format!("not called: {}", t.join(", ")),
            Matcher::TraceArgs { tool, args } => format!(
                "{tool} called with {}",
                args.iter()
                    .map(|(k, v)| format!("{k}={}", plain(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// The matcher's name, for reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Matcher::Exact(_) => "exact",
            Matcher::TextEquals(_) => "equals",
            Matcher::Snapshot(_) => "snapshot",
            Matcher::PlainEquals(_) => "equals_plain",
            Matcher::Contains(_) => "contains",
            Matcher::IContains(_) => "icontains",
            Matcher::NotContains(_) => "not_contains",
            Matcher::ContainsAny(_) => "contains_any",
            Matcher::Regex(_) => "regex",
            Matcher::NotRegex(_) => "not_regex",
            Matcher::Schema(_) => "schema",
            Matcher::NotEmpty => "not_empty",
            Matcher::IsTrue => "is_true",
            Matcher::NotTrue => "not_true",
            Matcher::Exists => "exists",
            Matcher::Absent => "absent",
            Matcher::InOrder(_) => "in_order",
            Matcher::ResultCount { .. } => "result_count",
            Matcher::NetDelta(_) => "net_delta",
            Matcher::Length { .. } => "length",
            Matcher::InRange { .. } => "range",
            Matcher::AllEqual(_) => "all_equal",
            Matcher::AllOneOf(_) => "all_one_of",
            Matcher::AllRegex(_) => "all_regex",
            Matcher::NoneRegex(_) => "none_regex",
            Matcher::AllInRange { .. } => "all_in_range",
            Matcher::SortedDesc => "sorted_desc",
            Matcher::ArrayContains(_) => "array_contains",
            Matcher::DatesBetween { .. } => "dates_between",
            Matcher::DatesWithinDays(_) => "dates_within_days",
            Matcher::Tags { .. } => "tags",
            Matcher::OneOf(_) => "one_of",
            Matcher::When { .. } => "when",
            Matcher::FileContains(_) => "file_contains",
            Matcher::FileNotContains(_) => "file_not_contains",
            Matcher::FileAbsent => "file_not_exists",
            Matcher::FileUnchanged => "file_unchanged",
            Matcher::NotificationCount { .. } => "notification_count",
            Matcher::NotificationMethod { .. } => "notification_method",
            Matcher::NotificationData { .. } => "notification_data",
            Matcher::LogLevel(_) => "log_level",
            Matcher::ResourceUpdated { .. } => "resource_updated",
            Matcher::NoRpcError => "no_rpc_error",
            Matcher::NoToolError => "no_tool_error",
            Matcher::Unmet { .. } => "unmet",
            Matcher::TraceOrder(_) => "order",
            Matcher::TracePresence(_) => "presence",
            Matcher::TraceAbsence(_) => "absence",
            Matcher::TraceArgs { .. } => "args_contain",
        }
    }
}

pub(crate) fn quote(s: &str) -> String {
    format!("'{}'", truncate(s, 80))
}

pub(super) fn bounds(min: Option<u64>, max: Option<u64>) -> String {
    match (min, max) {
        (Some(a), Some(b)) if a == b => format!("exactly {a}"),
        (Some(a), Some(b)) => format!("between {a} and {b}"),
        (Some(a), None) => format!("at least {a}"),
        (None, Some(b)) => format!("at most {b}"),
        (None, None) => "any number".into(),
    }
}

/// How a check's failure message is worded, beyond its matcher's own words:
/// each vocabulary row names one (see `crate::expect::registry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wording {
    /// The matcher's own message.
    Plain,
    /// "expected no error but tool returned isError=true" (mcp-assert's).
    NotError,
    /// "expected error but tool returned isError=false" (mcp-assert's).
    IsError,
    /// "Expected <field> <want>, got <value>" (`status`, `error_code`).
    Field(&'static str),
    /// "<path>: expected <want>, got <value>" (`field_equals`, `has_field`).
    AtPath,
    /// "Expected <path> to contain <text>, got <value>" (`*_contains`).
    ContainsGot,
}

/// One check of a test.
#[derive(Clone, Debug)]
pub struct Check {
    /// The name shown in reports: the suite's `name:` when given, else the
    /// key that produced it (`contains`, `json_path $.a`, …).
    pub name: String,
    /// Whether `name` was given by the suite (only those can be referenced by
    /// derived metrics).
    pub named: bool,
    /// The expectation key that produced this check (its vocabulary row's
    /// name, or `list`, `no_rpc_error`, `snapshot`, `expect_notification`).
    pub key: &'static str,
    /// How its failures are worded.
    pub wording: Wording,
    pub target: Target,
    pub matcher: Matcher,
    pub weight: f64,
    /// Where the check was written.
    pub span: Span,
}

/// A check's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
    /// Could not be evaluated (a needed input was not provided).
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Error => "error",
        }
    }
}

/// The outcome of one check.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub expected: String,
    pub actual: String,
    /// One line: why it failed (empty when it passed).
    pub reason: String,
    /// What the target selected, as a value (one value, or the list when it
    /// selected several; `null` when nothing), when it is small enough to
    /// repeat in results (see [`ACTUAL_VALUE_BYTES`]).
    pub actual_value: Option<Value>,
}

/// The most (estimated) bytes of JSON a check's actual value takes in
/// results; a larger value is left out (its display string stays).
pub const ACTUAL_VALUE_BYTES: usize = 16 * 1024;

/// `values` as a check's actual value, if small enough.
pub(crate) fn actual_value(values: &[&Value]) -> Option<Value> {
    fn spend(budget: &mut usize, n: usize) -> bool {
        match budget.checked_sub(n) {
            Some(b) => {
                *budget = b;
                true
            }
            None => false,
        }
    }
    fn fits(v: &Value, budget: &mut usize) -> bool {
        match v {
            Value::String(s) => spend(budget, s.len() + 2),
            Value::Array(a) => spend(budget, 2) && a.iter().all(|x| fits(x, budget)),
            Value::Object(o) => {
                spend(budget, 2)
                    && o.iter()
                        .all(|(k, x)| spend(budget, k.len() + 3) && fits(x, budget))
            }
            _ => spend(budget, 8),
        }
    }
    let mut budget = ACTUAL_VALUE_BYTES;
    if !values.iter().all(|v| fits(v, &mut budget)) {
        return None;
    }
    Some(match values {
        [] => Value::Null,
        [one] => (*one).clone(),
        many => Value::Array(many.iter().map(|v| (*v).clone()).collect()),
    })
}

impl Outcome {
    pub(crate) fn pass(expected: String, actual: String) -> Self {
        Outcome {
            status: Status::Pass,
            expected,
            actual,
            reason: String::new(),
            actual_value: None,
        }
    }
    pub(crate) fn fail(expected: String, actual: String, reason: String) -> Self {
        Outcome {
            status: Status::Fail,
            expected,
            actual,
            reason,
            actual_value: None,
        }
    }
    pub(crate) fn error(expected: String, reason: String) -> Self {
        Outcome {
            status: Status::Error,
            expected,
            actual: String::new(),
            reason,
            actual_value: None,
        }
    }
}
