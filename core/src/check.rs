//! Checks: one target, one matcher, a weight and a name.
//!
//! Every way of writing an expectation — mcp-assert's `expect` map, the JSON
//! assertion vocabulary, list-form `{target, matcher}` items — compiles into
//! [`Check`]s (see `crate::expect`). This module evaluates one check against
//! an Observation and says pass, fail or error, with expected, actual and a
//! one-line reason.
//!
//! A target selects values from the Observation with a [`Path`]. Unless the
//! matcher is a quantifier, zero values is a failure ("nothing at …"), one
//! value is matched as is, and several values are matched as the array of
//! them. String matchers look at a value's plain string form (see
//! `crate::value::plain`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use regex::Regex;
use serde_json::Value;

use crate::diag::Span;
use crate::path::{Found, Path};
use crate::value::{
    as_number, json_eq, plain, plain_cow, plain_eq, show, show_json, show_list, truncate,
};

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
    fn describe(&self) -> &'static str {
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
    /// A short description of what is expected, for reports.
    pub fn expected(&self) -> String {
        match self {
            Matcher::Exact(v) => show_json(v, SHOW),
            Matcher::TextEquals(s) => truncate(s.trim(), SHOW),
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

fn bounds(min: Option<u64>, max: Option<u64>) -> String {
    match (min, max) {
        (Some(a), Some(b)) if a == b => format!("exactly {a}"),
        (Some(a), Some(b)) => format!("between {a} and {b}"),
        (Some(a), None) => format!("at least {a}"),
        (None, Some(b)) => format!("at most {b}"),
        (None, None) => "any number".into(),
    }
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
    /// The expectation key that produced this check.
    pub key: String,
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
}

impl Outcome {
    pub(crate) fn pass(expected: String, actual: String) -> Self {
        Outcome {
            status: Status::Pass,
            expected,
            actual,
            reason: String::new(),
        }
    }
    pub(crate) fn fail(expected: String, actual: String, reason: String) -> Self {
        Outcome {
            status: Status::Fail,
            expected,
            actual,
            reason,
        }
    }
    pub(crate) fn error(expected: String, reason: String) -> Self {
        Outcome {
            status: Status::Error,
            expected,
            actual: String::new(),
            reason,
        }
    }
}

/// What one evaluation looks at: the Observation, the caller's facts, and
/// the result text parsed as JSON, computed at most once however many checks
/// ask for it.
pub struct Ctx<'a> {
    pub obs: &'a Value,
    pub facts: &'a Facts,
    text_json: std::cell::OnceCell<Option<Value>>,
}

impl<'a> Ctx<'a> {
    pub fn new(obs: &'a Value, facts: &'a Facts) -> Self {
        Ctx {
            obs,
            facts,
            text_json: std::cell::OnceCell::new(),
        }
    }

    /// The result text parsed as JSON (whole, or its first JSON line). When
    /// the result has no `structuredContent`, the Observation's `json` is
    /// exactly that, so it is reused rather than parsed again.
    fn text_json(&self) -> Option<&Value> {
        if !self.json_in_structured()
            && let Some(j) = self.obs.get("json").filter(|j| !j.is_null())
        {
            return Some(j);
        }
        self.text_json
            .get_or_init(|| {
                let text = self
                    .obs
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                crate::observation::parse_text_json(text)
            })
            .as_ref()
    }
}

impl<'a> Ctx<'a> {
    /// Whether the Observation keeps its `json` view as the result's
    /// `structuredContent` (no `json` member of its own; see
    /// `observation::observe`).
    fn json_in_structured(&self) -> bool {
        self.obs.get("json").is_none()
            && self
                .obs
                .pointer("/result/structuredContent")
                .is_some_and(|v| !v.is_null())
    }

    /// The JSON view.
    pub fn json(&self) -> &'a Value {
        if self.json_in_structured() {
            self.obs
                .pointer("/result/structuredContent")
                .unwrap_or(&Value::Null)
        } else {
            self.obs.get("json").unwrap_or(&Value::Null)
        }
    }

    /// Values a path selects from the Observation.
    pub fn find<'p>(&self, path: &'p Path) -> Vec<Found<'p>>
    where
        'a: 'p,
    {
        if path.reads_json() && self.json_in_structured() {
            path.find_json_in_structured(self.obs)
        } else {
            path.find(self.obs)
        }
    }
}

/// Evaluate one check against an Observation.
pub fn evaluate(check: &Check, obs: &Value, facts: &Facts) -> Outcome {
    evaluate_in(check, &Ctx::new(obs, facts))
}

/// Evaluate one check in a shared context (see [`Ctx`]).
pub fn evaluate_in(check: &Check, ctx: &Ctx<'_>) -> Outcome {
    let (obs, facts) = (ctx.obs, ctx.facts);
    let expected = check.matcher.expected();
    match &check.target {
        Target::File(path) => eval_file(&check.matcher, path, expected, facts),
        Target::Doc(path) => {
            let found = ctx.find(path);
            eval_values(check, path, found_pairs(&found), ctx, expected)
        }
        Target::Each(each) => {
            let Each { path, items, field } = each.as_ref();
            let containers = ctx.find(items);
            match containers.as_slice() {
                [] => nothing_at(items, expected),
                [c] if c.value.is_array() => {
                    eval_each(&check.matcher, path, c, field, facts, expected)
                }
                // Not one array (e.g. an object): select with the whole path.
                _ => {
                    let found = ctx.find(path);
                    eval_values(check, path, found_pairs(&found), ctx, expected)
                }
            }
        }
        Target::TextJson(path) => match ctx.text_json() {
            None => {
                let text = obs.get("text").and_then(Value::as_str).unwrap_or_default();
                Outcome::fail(
                    expected,
                    format!("'{}'", truncate(text, SHOW)),
                    format!("{}: the result text is not valid JSON", path.as_str()),
                )
            }
            Some(doc) => {
                let found = path.find(doc);
                eval_values(check, path, found_pairs(&found), ctx, expected)
            }
        },
    }
}

/// Where a value was found, rendered only when a message needs it.
enum Loc<'a> {
    /// A value a path selected.
    At(&'a Found<'a>),
    /// An element of an array a path selected.
    Element(&'a Found<'a>, usize),
    /// A value inside an element, found by an inner path.
    Inner(&'a Found<'a>, usize, Found<'a>),
}

impl std::fmt::Display for Loc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            Loc::At(found) => found.location(),
            Loc::Element(found, i) => format!("{}[{i}]", found.location()),
            Loc::Inner(found, i, inner) => {
                join_location(&format!("{}[{i}]", found.location()), &inner.location())
            }
        };
        f.write_str(&s)
    }
}

type Pairs<'a> = Vec<(&'a Value, Loc<'a>)>;

fn found_pairs<'a>(found: &'a [Found<'a>]) -> Pairs<'a> {
    found.iter().map(|f| (f.value, Loc::At(f))).collect()
}

fn eval_file(m: &Matcher, path: &str, expected: String, facts: &Facts) -> Outcome {
    let provided = facts.files.get(path);
    match m {
        Matcher::FileAbsent => match provided {
            None => Outcome::error(
                expected,
                format!("file_not_exists: the caller did not say whether {path} exists"),
            ),
            Some(None) => Outcome::pass(expected, "does not exist".into()),
            Some(Some(_)) => Outcome::fail(
                expected,
                "exists".into(),
                format!("file_not_exists: expected {path} not to exist, but it does"),
            ),
        },
        Matcher::FileContains(s) | Matcher::FileNotContains(s) => {
            let want = matches!(m, Matcher::FileContains(_));
            let key = if want {
                "file_contains"
            } else {
                "file_not_contains"
            };
            match provided {
                None => Outcome::error(
                    expected,
                    format!("{key}: the content of {path} was not provided"),
                ),
                Some(None) => Outcome::fail(
                    expected,
                    "no such file".into(),
                    format!("{key}: cannot read {path}: it does not exist"),
                ),
                Some(Some(content)) => {
                    let actual = show(&Value::String(content.clone()), SHOW);
                    match (content.contains(s.as_str()), want) {
                        (true, true) | (false, false) => Outcome::pass(expected, actual),
                        (false, true) => Outcome::fail(
                            expected,
                            actual,
                            format!("file_contains: {path} does not contain {}", quote(s)),
                        ),
                        (true, false) => Outcome::fail(
                            expected,
                            actual,
                            format!("file_not_contains: {path} contains {}", quote(s)),
                        ),
                    }
                }
            }
        }
        Matcher::FileUnchanged => match (facts.files_before.get(path), provided) {
            (Some(before), Some(after)) => {
                if before == after {
                    Outcome::pass(expected, "unchanged".into())
                } else {
                    let actual = match after {
                        None => "deleted".to_string(),
                        Some(a) => show(&Value::String(a.clone()), SHOW),
                    };
                    Outcome::fail(
                        expected,
                        actual,
                        format!("file_unchanged: {path} was modified"),
                    )
                }
            }
            _ => Outcome::error(
                expected,
                format!("file_unchanged: no snapshot of {path} was provided"),
            ),
        },
        other => Outcome::error(expected, format!("{} cannot look at a file", other.kind())),
    }
}

/// One value for a non-quantified matcher: none, the one (borrowed), or the
/// array of many.
fn single<'a>(found: &[(&'a Value, Loc<'a>)]) -> Option<Cow<'a, Value>> {
    match found {
        [] => None,
        [(v, _)] => Some(Cow::Borrowed(*v)),
        many => Some(Cow::Owned(Value::Array(
            many.iter().map(|(v, _)| (*v).clone()).collect(),
        ))),
    }
}

fn nothing_at(path: &Path, expected: String) -> Outcome {
    Outcome::fail(
        expected,
        "nothing".into(),
        format!("nothing at {}", path.as_str()),
    )
}

fn eval_values(
    check: &Check,
    path: &Path,
    found: Pairs<'_>,
    ctx: &Ctx<'_>,
    expected: String,
) -> Outcome {
    let facts = ctx.facts;
    let m = &check.matcher;
    match m {
        Matcher::Exists => {
            if found.is_empty() {
                Outcome::fail(
                    expected,
                    "missing".into(),
                    format!("Missing field: {}", path.as_str()),
                )
            } else {
                Outcome::pass(expected, "present".into())
            }
        }
        Matcher::Absent => match single(&found).as_deref() {
            None | Some(Value::Null) => Outcome::pass(expected, "absent".into()),
            Some(v) => Outcome::fail(
                expected,
                show(v, SHOW),
                format!("{} is present", path.as_str()),
            ),
        },
        Matcher::NotTrue => {
            let v = single(&found);
            match v.as_deref() {
                Some(Value::Bool(true)) => Outcome::fail(
                    expected,
                    "true".into(),
                    if check.key == "not_error" {
                        "expected no error but tool returned isError=true".into()
                    } else {
                        format!("{} is true", path.as_str())
                    },
                ),
                other => Outcome::pass(
                    expected,
                    other
                        .map(|v| show(v, SHOW))
                        .unwrap_or_else(|| "absent".into()),
                ),
            }
        }
        Matcher::IsTrue => match single(&found).as_deref() {
            Some(Value::Bool(true)) => Outcome::pass(expected, "true".into()),
            other => Outcome::fail(
                expected,
                other
                    .map(|v| show(v, SHOW))
                    .unwrap_or_else(|| "absent".into()),
                if check.key == "is_error" {
                    "expected error but tool returned isError=false".into()
                } else {
                    format!("{} is not true", path.as_str())
                },
            ),
        },
        Matcher::Unmet { reason, .. } => Outcome::fail(expected, "nothing".into(), reason.clone()),
        Matcher::NoRpcError => match single(&found).as_deref() {
            None | Some(Value::Null) => Outcome::pass(expected, "a result".into()),
            Some(err) => {
                let code = err.get("code").map(plain).unwrap_or_default();
                let msg = err.get("message").map(plain).unwrap_or_default();
                Outcome::fail(
                    expected,
                    show_json(err, SHOW),
                    format!("the server answered with JSON-RPC error {code}: {msg}"),
                )
            }
        },
        Matcher::NotificationCount { .. }
        | Matcher::NotificationMethod { .. }
        | Matcher::NotificationData { .. }
        | Matcher::LogLevel(_)
        | Matcher::ResourceUpdated { .. } => {
            let list: Vec<&Value> = match found.as_slice() {
                [(Value::Array(a), _)] => a.iter().collect(),
                many => many.iter().map(|(v, _)| *v).collect(),
            };
            eval_notifications(m, &list, facts, expected)
        }
        Matcher::AllEqual(_)
        | Matcher::AllOneOf(_)
        | Matcher::AllRegex(_)
        | Matcher::NoneRegex(_)
        | Matcher::AllInRange { .. }
        | Matcher::SortedDesc
        | Matcher::DatesBetween { .. }
        | Matcher::DatesWithinDays(_) => {
            let items: Pairs<'_> = if path.is_plural() {
                found
            } else {
                match found.as_slice() {
                    [(Value::Array(a), Loc::At(f))] => a
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v, Loc::Element(f, i)))
                        .collect(),
                    _ => found,
                }
            };
            if items.is_empty() && !path.is_plural() {
                return nothing_at(path, expected);
            }
            eval_quantifier(m, path, &items, facts, expected)
        }
        Matcher::Tags { rule, tags } => eval_tags(*rule, tags, &found, path, expected),
        Matcher::TraceOrder(_)
        | Matcher::TracePresence(_)
        | Matcher::TraceAbsence(_)
        | Matcher::TraceArgs { .. } => {
            let entries: Vec<&Value> = match found.as_slice() {
                [(Value::Array(a), _)] => a.iter().collect(),
                _ => Vec::new(),
            };
            crate::trajectory::evaluate(m, &entries, expected)
        }
        Matcher::OneOf(alts) => {
            // One passing alternative decides; an alternative that could not
            // be evaluated only matters when none passes.
            let mut reasons = Vec::new();
            let mut undecided = None;
            for alt in alts {
                let outs: Vec<Outcome> = alt.iter().map(|c| evaluate_in(c, ctx)).collect();
                if outs.iter().all(|o| o.status == Status::Pass) {
                    return Outcome::pass(expected, "an alternative passed".into());
                }
                if let Some(e) = outs.iter().find(|o| o.status == Status::Error) {
                    undecided.get_or_insert_with(|| e.reason.clone());
                    continue;
                }
                reasons.push(
                    outs.iter()
                        .filter(|o| o.status != Status::Pass)
                        .map(|o| o.reason.clone())
                        .collect::<Vec<_>>()
                        .join(" and "),
                );
            }
            if let Some(reason) = undecided {
                return Outcome::error(expected, reason);
            }
            Outcome::fail(
                expected,
                "no alternative passed".into(),
                format!("None of the alternatives passed: {}", reasons.join("; ")),
            )
        }
        Matcher::When { condition, then } => {
            if !condition_holds(condition, ctx.json()) {
                return Outcome::pass(expected, format!("skipped: not ({})", condition.describe()));
            }
            let outs: Vec<Outcome> = then.iter().map(|c| evaluate_in(c, ctx)).collect();
            if let Some(e) = outs.iter().find(|o| o.status == Status::Error) {
                return Outcome::error(expected, e.reason.clone());
            }
            let failed: Vec<&Outcome> = outs.iter().filter(|o| o.status == Status::Fail).collect();
            if failed.is_empty() {
                Outcome::pass(expected, "all nested checks passed".into())
            } else {
                Outcome::fail(
                    expected,
                    failed
                        .iter()
                        .map(|o| o.actual.clone())
                        .collect::<Vec<_>>()
                        .join("; "),
                    failed
                        .iter()
                        .map(|o| o.reason.clone())
                        .collect::<Vec<_>>()
                        .join("; "),
                )
            }
        }
        _ => match single(&found) {
            None => {
                if matches!(m, Matcher::NotContains(_) | Matcher::NotRegex(_)) {
                    Outcome::pass(expected, "nothing".into())
                } else {
                    nothing_at(path, expected)
                }
            }
            Some(v) => eval_one(check, path, v.as_ref(), expected),
        },
    }
}

fn eval_one(check: &Check, path: &Path, v: &Value, expected: String) -> Outcome {
    // The plain text is built only for the matchers that read it.
    let text_cell = std::cell::OnceCell::new();
    let text = || text_cell.get_or_init(|| plain_cow(v)).as_ref();
    let actual = || show(v, SHOW);
    let at = path.as_str();
    let ok = |b: bool, reason: String| {
        if b {
            Outcome::pass(expected.clone(), actual())
        } else {
            Outcome::fail(expected.clone(), actual(), reason)
        }
    };
    match &check.matcher {
        Matcher::Exact(want) => ok(
            json_eq(want, v),
            match check.key.as_str() {
                "status" | "error_code" => format!(
                    "Expected {} {}, got {}",
                    check.key,
                    show(want, 80),
                    show(v, 80)
                ),
                // `has_field: p` with `value: v` is field_equals for one path:
                // the message names the field the same way.
                "field_equals" | "has_field" => {
                    format!(
                        "{at}: expected {}, got {}",
                        show_json(want, 80),
                        show_json(v, 80)
                    )
                }
                _ => format!("expected {}, got {}", show_json(want, 80), show_json(v, 80)),
            },
        ),
        Matcher::TextEquals(want) => ok(
            text().trim() == want.trim(),
            format!(
                "expected exact match: want {}, got {}",
                quote(want.trim()),
                quote(text().trim())
            ),
        ),
        Matcher::PlainEquals(want) => ok(
            plain_eq(want, v),
            format!(
                "json_path {at}: want {}, got {}",
                plain(want),
                truncate(text(), 80)
            ),
        ),
        Matcher::Contains(s) => ok(
            text().contains(s.as_str()),
            match check.key.as_str() {
                "message_contains" | "summary_contains" => format!(
                    "Expected {at} to contain {}, got {}",
                    quote(s),
                    quote(text())
                ),
                _ => format!("expected {at} to contain {}", quote(s)),
            },
        ),
        Matcher::IContains(s) => ok(
            text().to_lowercase().contains(&s.to_lowercase()),
            format!("expected {at} to contain {} (ignoring case)", quote(s)),
        ),
        Matcher::NotContains(s) => ok(
            !text().contains(s.as_str()),
            format!("expected {at} NOT to contain {}", quote(s)),
        ),
        Matcher::ContainsAny(list) => ok(
            list.iter().any(|s| text().contains(s.as_str())),
            format!(
                "expected {at} to contain at least one of {}",
                list.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            ),
        ),
        Matcher::Regex(r) => ok(
            r.is_match(text()),
            format!("expected {at} to match regex {}", quote(r.as_str())),
        ),
        Matcher::NotRegex(r) => ok(
            !r.is_match(text()),
            format!("expected {at} not to match regex {}", quote(r.as_str())),
        ),
        Matcher::Schema(validator) => match validator.validate(v) {
            Ok(()) => Outcome::pass(expected, actual()),
            Err(e) => {
                let where_ = e.instance_path().as_str();
                let where_ = if where_.is_empty() { "/" } else { where_ };
                Outcome::fail(
                    expected,
                    actual(),
                    format!(
                        "{at} does not match the schema at {where_}: {e} (schema path {})",
                        e.schema_path().as_str()
                    ),
                )
            }
        },
        Matcher::NotEmpty => {
            let t = text().trim();
            ok(
                !(t.is_empty() || t == "null" || t == "[]" || t == "{}"),
                format!("expected non-empty result, got: {}", quote(t)),
            )
        }
        Matcher::InOrder(items) => {
            let mut from = 0usize;
            for s in items {
                match text().get(from..).and_then(|rest| rest.find(s.as_str())) {
                    Some(i) => from += i + s.len(),
                    None => {
                        return Outcome::fail(
                            expected,
                            actual(),
                            format!(
                                "in_order: {} not found after position {from} in result",
                                quote(s)
                            ),
                        );
                    }
                }
            }
            Outcome::pass(expected, actual())
        }
        Matcher::ResultCount { min, max } => {
            let parsed = crate::observation::parse_text_json(text());
            let arr_len = match &parsed {
                Some(Value::Array(a)) => Some(a.len() as u64),
                Some(Value::Object(o)) => {
                    ["locations", "items", "results", "references", "symbols"]
                        .iter()
                        .find_map(|k| o.get(*k).and_then(Value::as_array))
                        .map(|a| a.len() as u64)
                }
                _ => None,
            };
            match arr_len {
                None => Outcome::fail(
                    expected,
                    actual(),
                    "min/max_results: result is not an array or an object with an array field (locations, items, results, references, symbols)".into(),
                ),
                Some(n) => {
                    if let Some(lo) = min.filter(|lo| n < *lo) {
                        Outcome::fail(expected, n.to_string(), format!("expected at least {lo} results, got {n}"))
                    } else if let Some(hi) = max.filter(|hi| n > *hi) {
                        Outcome::fail(expected, n.to_string(), format!("expected at most {hi} results, got {n}"))
                    } else {
                        Outcome::pass(expected, n.to_string())
                    }
                }
            }
        }
        Matcher::NetDelta(want) => {
            let parsed = crate::observation::parse_text_json(text());
            match parsed
                .as_ref()
                .and_then(|p| p.get("net_delta"))
                .and_then(Value::as_f64)
            {
                None => Outcome::fail(
                    expected,
                    actual(),
                    "net_delta: field not found or not a number in result".into(),
                ),
                Some(n) => {
                    let n = n as i64;
                    if n == *want {
                        Outcome::pass(expected, n.to_string())
                    } else {
                        Outcome::fail(
                            expected,
                            n.to_string(),
                            format!("expected net_delta={want}, got {n}"),
                        )
                    }
                }
            }
        }
        Matcher::Length { min, max, noun } => match v {
            Value::Array(a) => {
                let n = a.len() as u64;
                let plural = |k: u64| {
                    if k == 1 {
                        noun.to_string()
                    } else {
                        format!("{noun}s")
                    }
                };
                if min.is_some() && min == max && Some(n) != *min {
                    let k = min.unwrap_or_default();
                    Outcome::fail(
                        expected,
                        n.to_string(),
                        format!("Expected exactly {k} {}, got {n}", plural(k)),
                    )
                } else if let Some(lo) = min.filter(|lo| n < *lo) {
                    Outcome::fail(
                        expected,
                        n.to_string(),
                        format!("Expected at least {lo} {}, got {n}", plural(lo)),
                    )
                } else if let Some(hi) = max.filter(|hi| n > *hi) {
                    Outcome::fail(
                        expected,
                        n.to_string(),
                        format!("Expected at most {hi} {}, got {n}", plural(hi)),
                    )
                } else {
                    Outcome::pass(expected, n.to_string())
                }
            }
            other => Outcome::fail(
                expected,
                actual(),
                format!("{at} is {}, not an array", crate::value::type_name(other)),
            ),
        },
        Matcher::InRange { min, max, shown } => match as_number(v) {
            None => Outcome::fail(expected, actual(), format!("{at} is not a number")),
            Some(n) => ok(
                min.is_none_or(|lo| n >= lo) && max.is_none_or(|hi| n <= hi),
                match (min, max) {
                    (Some(_), Some(_)) => format!("Value {} is outside range {shown}", plain(v)),
                    (Some(_), None) => format!("Value {} is below the minimum {shown}", plain(v)),
                    (None, _) => format!("Value {} is above the maximum {shown}", plain(v)),
                },
            ),
        },
        Matcher::ArrayContains(values) => match v {
            Value::Array(a) => {
                let missing: Vec<&Value> = values
                    .iter()
                    .filter(|want| !a.iter().any(|x| json_eq(want, x)))
                    .collect();
                if missing.is_empty() {
                    Outcome::pass(expected, actual())
                } else {
                    Outcome::fail(
                        expected,
                        actual(),
                        format!(
                            "Array at {at} is missing {}",
                            missing
                                .iter()
                                .map(|m| show(m, 60))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                }
            }
            other => Outcome::fail(
                expected,
                actual(),
                format!("{at} is {}, not an array", crate::value::type_name(other)),
            ),
        },
        other => Outcome::error(expected, format!("{} cannot be applied here", other.kind())),
    }
}

/// A location inside an element: `results[1]` and `type` (or `[0]`, or `$`
/// for the element itself) make `results[1].type`.
fn join_location(element: &str, inner: &str) -> String {
    match inner {
        "" | "$" => element.to_string(),
        _ if inner.starts_with('[') || inner.starts_with('.') => format!("{element}{inner}"),
        _ => format!("{element}.{inner}"),
    }
}

/// A quantifier over each element of an array (see [`Target::Each`]). The
/// `all_match*` keys ask every element whether its field matches, so an
/// element without the field fails them ("Missing field: results[1].type");
/// the other quantifiers judge the values that are there.
fn eval_each(
    m: &Matcher,
    path: &Path,
    container: &Found<'_>,
    field: &Path,
    facts: &Facts,
    expected: String,
) -> Outcome {
    let elements = container.value.as_array().map_or(&[][..], Vec::as_slice);
    let field_written = field.as_str().trim_start_matches('$');
    let mut present: Pairs<'_> = Vec::with_capacity(elements.len());
    // (how many values came before it, which element) of the first element
    // without the field.
    let mut first_missing: Option<(usize, usize)> = None;
    for (i, el) in elements.iter().enumerate() {
        // A simple field (the common case) is looked up without a list per element.
        if let Some(hit) = field.find_simple(el) {
            match hit {
                Some(h) => present.push((h.value, Loc::Inner(container, i, h))),
                None if first_missing.is_none() => first_missing = Some((present.len(), i)),
                None => {}
            }
            continue;
        }
        let hits = field.find(el);
        // Only a singular field can be missing: an element whose inner list
        // (`tags[*]`) is empty has nothing to check, not a missing field.
        if hits.is_empty() && first_missing.is_none() && !field.is_plural() {
            first_missing = Some((present.len(), i));
        }
        for h in hits {
            present.push((h.value, Loc::Inner(container, i, h)));
        }
    }
    let every_element = matches!(
        m,
        Matcher::AllEqual(_) | Matcher::AllOneOf(_) | Matcher::AllRegex(_)
    );
    if let (true, Some((before, i))) = (every_element, first_missing) {
        let o = eval_quantifier(m, path, &present[..before], facts, expected.clone());
        if o.status != Status::Pass {
            return o;
        }
        let actual = show_list(present.iter().map(|(v, _)| *v), SHOW);
        let at = join_location(&format!("{}[{i}]", container.location()), field_written);
        return Outcome::fail(expected, actual, format!("Missing field: {at}"));
    }
    eval_quantifier(m, path, &present, facts, expected)
}

fn eval_quantifier(
    m: &Matcher,
    path: &Path,
    items: &[(&Value, Loc<'_>)],
    facts: &Facts,
    expected: String,
) -> Outcome {
    let actual = || show_list(items.iter().map(|(v, _)| *v), SHOW);
    let fail = |reason: String| Outcome::fail(expected.clone(), actual(), reason);
    match m {
        Matcher::AllEqual(want) => {
            for (v, loc) in items {
                if !json_eq(want, v) {
                    return fail(format!("Found non-matching item: {} at {loc}", show(v, 80)));
                }
            }
        }
        Matcher::AllOneOf(allowed) => {
            for (v, loc) in items {
                if !allowed.iter().any(|a| json_eq(a, v)) {
                    return fail(format!(
                        "Found item not in allowed values: {} at {loc}",
                        show(v, 80)
                    ));
                }
            }
        }
        Matcher::AllRegex(r) => {
            for (v, loc) in items {
                if !r.is_match(&plain(v)) {
                    return fail(format!(
                        "{} at {loc} doesn't match pattern '{}'",
                        show(v, 80),
                        r.as_str()
                    ));
                }
            }
        }
        Matcher::NoneRegex(r) => {
            for (v, loc) in items {
                if r.is_match(&plain(v)) {
                    return fail(format!(
                        "{} at {loc} matches excluded pattern '{}'",
                        show(v, 80),
                        r.as_str()
                    ));
                }
            }
        }
        Matcher::AllInRange { min, max, shown } => {
            for (v, loc) in items {
                match as_number(v) {
                    None => return fail(format!("{} at {loc} is not a number", show(v, 80))),
                    Some(n) if n < *min || n > *max => {
                        return fail(format!("Value {} is outside range {shown}", plain(v)));
                    }
                    Some(_) => {}
                }
            }
        }
        Matcher::SortedDesc => {
            for i in 1..items.len() {
                let (a, b) = (&items[i - 1].0, &items[i].0);
                let in_order = match (as_number(a), as_number(b)) {
                    (Some(x), Some(y)) => x >= y,
                    _ => plain(a) >= plain(b),
                };
                if !in_order {
                    return fail(format!("Values not sorted descending at index {i}"));
                }
            }
        }
        Matcher::DatesBetween { start, end } => {
            let (Some(lo), Some(hi)) = (parse_date(start), parse_date(end)) else {
                return Outcome::error(
                    expected,
                    "all_dates_between: start or end is not a date".into(),
                );
            };
            let hi = end_of(end, hi);
            for (v, loc) in items {
                let s = plain_cow(v);
                match parse_date(&s) {
                    None => return fail(format!("{} at {loc} is not a date", show(v, 80))),
                    Some(d) if d < lo || d > hi => {
                        return fail(format!(
                            "Date {} is outside range {} to {}",
                            date_part(&s),
                            date_part(start),
                            date_part(end)
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        Matcher::DatesWithinDays(days) => {
            let Some(today) = facts.today else {
                return Outcome::error(
                    expected,
                    "dates_within_days needs today's date, which was not provided".into(),
                );
            };
            for (v, loc) in items {
                let s = plain_cow(v);
                match parse_date(&s) {
                    None => return fail(format!("{} at {loc} is not a date", show(v, 80))),
                    Some(d) => {
                        let diff = (today - d.date()).num_days().abs();
                        if diff > *days {
                            return fail(format!(
                                "Date {} is not within {days} days of {today}",
                                date_part(&s)
                            ));
                        }
                    }
                }
            }
        }
        _ => return Outcome::error(expected, format!("{} is not a quantifier", m.kind())),
    }
    let _ = path;
    Outcome::pass(expected, actual())
}

fn eval_tags(
    rule: TagRule,
    tags: &[String],
    found: &[(&Value, Loc<'_>)],
    path: &Path,
    expected: String,
) -> Outcome {
    // `found` holds the results array (one value) or the results (plural path).
    let results: Vec<&Value> = match found {
        [(Value::Array(a), _)] => a.iter().collect(),
        [] => return nothing_at(path, expected),
        many => many.iter().map(|(v, _)| *v).collect(),
    };
    // What the results carry, shown only as far as a message needs.
    let actual = || {
        show_list(
            results
                .iter()
                .map(|r| r.pointer("/metadata/tags").unwrap_or(&Value::Null)),
            SHOW,
        )
    };
    for (i, r) in results.iter().enumerate() {
        let have: &[Value] = r
            .get("metadata")
            .and_then(|m| m.get("tags"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let has = |t: &String| {
            have.iter().any(|h| match h {
                Value::String(s) => s == t,
                other => plain(other) == *t,
            })
        };
        match rule {
            TagRule::All => {
                if let Some(t) = tags.iter().find(|t| !has(t)) {
                    return Outcome::fail(
                        expected,
                        actual(),
                        format!("Result {i} missing required tag: '{t}'"),
                    );
                }
            }
            TagRule::None => {
                if let Some(t) = tags.iter().find(|t| has(t)) {
                    return Outcome::fail(
                        expected,
                        actual(),
                        format!("Result {i} has excluded tag: '{t}'"),
                    );
                }
            }
            TagRule::Any => {
                if !tags.iter().any(has) {
                    return Outcome::fail(
                        expected,
                        actual(),
                        format!(
                            "Result {i} has none of the tags: {}",
                            tags.iter()
                                .map(|t| format!("'{t}'"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                }
            }
        }
    }
    Outcome::pass(expected, actual())
}

fn eval_notifications(m: &Matcher, list: &[&Value], facts: &Facts, expected: String) -> Outcome {
    let method_of = |n: &Value| n.get("method").and_then(Value::as_str).map(str::to_string);
    match m {
        Matcher::NotificationCount {
            method,
            own_progress,
            min,
            max,
            noun,
        } => {
            let count = list
                .iter()
                .filter(|n| {
                    method
                        .as_ref()
                        .is_none_or(|mm| method_of(n).as_deref() == Some(mm))
                })
                .filter(|n| {
                    !own_progress
                        || facts.progress_token.as_ref().is_none_or(|t| {
                            n.pointer("/params/progressToken")
                                .is_some_and(|pt| json_eq(pt, t))
                        })
                })
                .count() as u64;
            if let Some(lo) = min.filter(|lo| count < *lo) {
                Outcome::fail(
                    expected,
                    count.to_string(),
                    format!("expected at least {lo} {noun}, got {count}"),
                )
            } else if let Some(hi) = max.filter(|hi| count > *hi) {
                Outcome::fail(
                    expected,
                    count.to_string(),
                    format!("expected at most {hi} {noun}, got {count}"),
                )
            } else {
                Outcome::pass(expected, count.to_string())
            }
        }
        Matcher::NotificationMethod { method, present } => {
            let seen = list.iter().any(|n| method_of(n).as_deref() == Some(method));
            let methods: Vec<String> = list.iter().filter_map(|n| method_of(n)).collect();
            let actual = format!("[{}]", methods.join(", "));
            match (seen, present) {
                (true, true) | (false, false) => Outcome::pass(expected, actual),
                (false, true) => Outcome::fail(
                    expected,
                    actual,
                    format!("expected notification method '{method}' but it was not received"),
                ),
                (true, false) => Outcome::fail(
                    expected,
                    actual,
                    format!("notification method '{method}' was received but should not have been"),
                ),
            }
        }
        Matcher::NotificationData {
            needle,
            present,
            log_data,
        } => {
            let texts: Vec<String> = list
                .iter()
                .filter(|n| !log_data || method_of(n).as_deref() == Some("notifications/message"))
                .map(|n| {
                    if *log_data {
                        n.pointer("/params/data").map(plain).unwrap_or_default()
                    } else {
                        n.get("params").map(|p| p.to_string()).unwrap_or_default()
                    }
                })
                .collect();
            let hit = texts.iter().any(|t| t.contains(needle.as_str()));
            let actual = truncate(&texts.join(" | "), SHOW);
            match (hit, present, log_data) {
                (true, true, _) | (false, false, _) => Outcome::pass(expected, actual),
                (false, true, true) => Outcome::fail(
                    expected,
                    actual,
                    format!("expected log data containing {}, not found", quote(needle)),
                ),
                (false, true, false) => Outcome::fail(
                    expected,
                    actual,
                    format!("no notification params contain {}", quote(needle)),
                ),
                (true, false, _) => Outcome::fail(
                    expected,
                    actual,
                    format!(
                        "notification params contain {} but should not",
                        quote(needle)
                    ),
                ),
            }
        }
        Matcher::LogLevel(level) => {
            let levels: Vec<String> = list
                .iter()
                .filter(|n| method_of(n).as_deref() == Some("notifications/message"))
                .filter_map(|n| n.pointer("/params/level").map(plain))
                .collect();
            let actual = format!("[{}]", levels.join(", "));
            if levels.iter().any(|l| l == level) {
                Outcome::pass(expected, actual)
            } else {
                Outcome::fail(
                    expected,
                    actual,
                    format!("expected log message at level '{level}', not found"),
                )
            }
        }
        Matcher::ResourceUpdated {
            uri,
            expected: want,
        } => {
            let updates: Vec<String> = list
                .iter()
                .filter(|n| method_of(n).as_deref() == Some("notifications/resources/updated"))
                .filter_map(|n| n.pointer("/params/uri").map(plain))
                .collect();
            let uri = uri
                .as_deref()
                .map(|w| facts.subscribed_uri.as_deref().unwrap_or(w));
            let hit = updates.iter().any(|u| uri.is_none_or(|w| w == u));
            let actual = format!("[{}]", updates.join(", "));
            let what = uri.unwrap_or("the resource");
            match (hit, want) {
                (true, true) | (false, false) => Outcome::pass(expected, actual),
                (false, true) => Outcome::fail(
                    expected,
                    actual,
                    format!("expected a resources/updated notification for {what}, none arrived"),
                ),
                (true, false) => Outcome::fail(
                    expected,
                    actual,
                    format!(
                        "a resources/updated notification for {what} arrived but none was expected"
                    ),
                ),
            }
        }
        other => Outcome::error(
            expected,
            format!("{} is not about notifications", other.kind()),
        ),
    }
}

fn condition_holds(c: &Condition, json: &Value) -> bool {
    match c {
        Condition::HasResults => json
            .get("results")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty()),
        Condition::HasHistory => json.get("history_results").is_some_and(|v| !v.is_null()),
        Condition::SensitiveResults => {
            json.get("results")
                .and_then(Value::as_array)
                .is_some_and(|a| {
                    a.iter().any(|r| {
                        r.get("file").and_then(Value::as_str).is_some_and(|f| {
                            f.starts_with("people/") || f.starts_with("documents/")
                        })
                    })
                })
        }
    }
}

/// Parse an RFC 3339 timestamp, a `YYYY-MM-DDTHH:MM:SS` local time or a plain
/// `YYYY-MM-DD` date, as a UTC-naive date-time.
pub fn parse_date(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim();
    if let Some(d) = parse_utc_seconds(s) {
        return Some(d);
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.naive_utc());
    }
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(d) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(d);
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
}

/// The most common timestamp, `YYYY-MM-DDTHH:MM:SSZ`, read without the
/// general parser (date checks run over every result of a response).
fn parse_utc_seconds(s: &str) -> Option<NaiveDateTime> {
    let b = s.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    };
    let date = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    date.and_hms_opt(num(11..13)?, num(14..16)?, num(17..19)?)
}

/// A plain date as an upper bound covers its whole day.
fn end_of(written: &str, parsed: NaiveDateTime) -> NaiveDateTime {
    if written.trim().len() == 10 {
        parsed
            .date()
            .and_hms_milli_opt(23, 59, 59, 999)
            .unwrap_or(parsed)
    } else {
        parsed
    }
}

fn date_part(s: &str) -> String {
    s.trim().chars().take(10).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(target: &str, matcher: Matcher) -> Check {
        Check {
            name: "t".into(),
            named: false,
            key: "test".into(),
            target: Target::Doc(Path::parse(target).unwrap_or_else(|e| panic!("{e}"))),
            matcher,
            weight: 1.0,
            span: Span::none(),
        }
    }

    #[test]
    fn several_values_are_matched_as_an_array() {
        let obs = json!({"result": {"content": [{"type": "text"}, {"type": "text"}]}});
        let c = check(
            "result.content[*].type",
            Matcher::Exact(json!(["text", "text"])),
        );
        assert_eq!(evaluate(&c, &obs, &Facts::default()).status, Status::Pass);
    }

    #[test]
    fn missing_target_fails_with_a_reason() {
        let c = check("json.x", Matcher::Exact(json!(1)));
        let o = evaluate(&c, &json!({"json": {}}), &Facts::default());
        assert_eq!(o.status, Status::Fail);
        assert_eq!(o.reason, "nothing at json.x");
    }

    #[test]
    fn progress_counts_only_the_callers_token() {
        let obs = json!({"notifications": [
            {"method": "notifications/progress", "params": {"progressToken": "a", "progress": 1}},
            {"method": "notifications/progress", "params": {"progressToken": "b", "progress": 1}},
            {"method": "notifications/message", "params": {"level": "info", "data": "x"}}
        ]});
        let c = check(
            "notifications",
            Matcher::NotificationCount {
                method: Some("notifications/progress".into()),
                own_progress: true,
                min: Some(2),
                max: None,
                noun: "progress notification(s)",
            },
        );
        let facts = Facts {
            progress_token: Some(json!("a")),
            ..Facts::default()
        };
        let o = evaluate(&c, &obs, &facts);
        assert_eq!(o.status, Status::Fail);
        assert_eq!(
            o.reason,
            "expected at least 2 progress notification(s), got 1"
        );
    }

    #[test]
    fn a_resource_update_is_looked_for_under_the_uri_as_sent() {
        let obs = json!({"notifications": [
            {"method": "notifications/resources/updated", "params": {"uri": "x://other"}},
            {"method": "notifications/resources/updated", "params": {"uri": "x://calls"}}
        ]});
        let c = check(
            "notifications",
            Matcher::ResourceUpdated {
                uri: Some("{{uri}}".into()),
                expected: true,
            },
        );
        let sent = |uri: &str| Facts {
            subscribed_uri: Some(uri.into()),
            ..Facts::default()
        };
        assert_eq!(evaluate(&c, &obs, &sent("x://calls")).status, Status::Pass);
        let o = evaluate(&c, &obs, &sent("x://text"));
        assert_eq!(o.status, Status::Fail);
        assert_eq!(
            o.reason,
            "expected a resources/updated notification for x://text, none arrived"
        );
        // Without the caller's word, the URI as written is looked for.
        assert_eq!(evaluate(&c, &obs, &Facts::default()).status, Status::Fail);
    }

    #[test]
    fn dates_within_days_needs_today() {
        let c = check("json.d", Matcher::DatesWithinDays(7));
        let obs = json!({"json": {"d": ["2026-01-10T00:00:00Z"]}});
        assert_eq!(evaluate(&c, &obs, &Facts::default()).status, Status::Error);
        let facts = Facts {
            today: NaiveDate::from_ymd_opt(2026, 1, 15),
            ..Facts::default()
        };
        assert_eq!(evaluate(&c, &obs, &facts).status, Status::Pass);
        let facts = Facts {
            today: NaiveDate::from_ymd_opt(2026, 2, 15),
            ..Facts::default()
        };
        let o = evaluate(&c, &obs, &facts);
        assert_eq!(o.status, Status::Fail);
        assert_eq!(
            o.reason,
            "Date 2026-01-10 is not within 7 days of 2026-02-15"
        );
    }
}
