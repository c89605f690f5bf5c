//! The expectation vocabulary as one typed table.
//!
//! Every key a suite may write under `expect` (map form), every list-form
//! matcher and every trajectory assertion type is one [`KeyDef`] row of
//! [`VOCABULARY`]: its name, its family, what value it takes, what it checks
//! (one line, the text of `docs/suites.md`), the wording its failures use,
//! and the function that compiles it. The loader's accepted keys, the
//! evaluation order of a map-form `expect`, the "did you mean" hints and the
//! documentation tables (held by `core/tests/docs_vocabulary.rs`) all come
//! from this table, so a key cannot be listed without a compile function, nor
//! compiled without being documented.

use super::{Input, events, extensions, json, list, mcp_assert, trajectory};
use crate::check::{Check, Matcher, Wording};
use crate::read::LoadCx;

/// The part of the vocabulary a key belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// mcp-assert's `expect` keys over the text and files.
    McpAssert,
    /// The JSON assertion vocabulary: paths inside `json`.
    Json,
    /// Logging and notification keys.
    Events,
    /// List-form matchers (`matcher: {kind: arg}`).
    Matcher,
    /// Trajectory assertion types (`type:` of a `trajectory:` item).
    Trajectory,
}

impl Family {
    /// Whether the family's keys are written in a map-form `expect`.
    pub fn is_map_form(self) -> bool {
        matches!(self, Family::McpAssert | Family::Json | Family::Events)
    }
}

/// How a row is compiled.
#[derive(Clone, Copy)]
pub(crate) enum Compile {
    /// A map-form key: its value becomes zero or more checks.
    Map(fn(&mut LoadCx, &Input<'_>, &mut Vec<Check>)),
    /// A key read by another key (`value`, read by `has_field`).
    Modifier,
    /// A list-form matcher: its argument becomes one matcher.
    Matcher(fn(&mut LoadCx, &'static KeyDef, &crate::yaml::Node) -> Option<Matcher>),
    /// A trajectory assertion type.
    Trajectory(fn(&mut LoadCx, &trajectory::Assertion<'_>) -> Option<Matcher>),
}

impl std::fmt::Debug for Compile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Compile::Map(_) => "Map",
            Compile::Modifier => "Modifier",
            Compile::Matcher(_) => "Matcher",
            Compile::Trajectory(_) => "Trajectory",
        })
    }
}

/// One key of the vocabulary.
#[derive(Debug)]
pub struct KeyDef {
    /// The key as written in a suite.
    pub name: &'static str,
    pub family: Family,
    /// The value it takes, as the reference shows it (empty for trajectory
    /// types, whose arguments are the item's `tools`/`tool`/`args`).
    pub value: &'static str,
    /// What it checks: one line, as the reference shows it.
    pub doc: &'static str,
    /// The wording of its failure messages.
    pub wording: Wording,
    pub(crate) compile: Compile,
}

/// Every key, family by family; within the map-form families, in the order a
/// map-form `expect` evaluates them (mcp-assert's order first).
pub static VOCABULARY: &[KeyDef] = &[
    KeyDef {
        name: "not_error",
        family: Family::McpAssert,
        value: r#"`true`"#,
        doc: r#"`result.isError` is absent, null or false"#,
        wording: Wording::NotError,
        compile: Compile::Map(mcp_assert::not_error),
    },
    KeyDef {
        name: "is_error",
        family: Family::McpAssert,
        value: r#"`true`"#,
        doc: r#"`result.isError` is true"#,
        wording: Wording::IsError,
        compile: Compile::Map(mcp_assert::is_error),
    },
    KeyDef {
        name: "not_empty",
        family: Family::McpAssert,
        value: r#"`true`"#,
        doc: r#"the trimmed text is not empty, `null`, `[]` or `{}`"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::not_empty),
    },
    KeyDef {
        name: "equals",
        family: Family::McpAssert,
        value: r#"string"#,
        doc: r#"the text equals it, both trimmed"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::equals),
    },
    KeyDef {
        name: "contains",
        family: Family::McpAssert,
        value: r#"list of strings"#,
        doc: r#"the text contains each (one check each, case-sensitive)"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::contains),
    },
    KeyDef {
        name: "contains_any",
        family: Family::McpAssert,
        value: r#"list of strings"#,
        doc: r#"the text contains at least one"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::contains_any),
    },
    KeyDef {
        name: "not_contains",
        family: Family::McpAssert,
        value: r#"list of strings"#,
        doc: r#"the text contains none (one check each)"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::not_contains),
    },
    KeyDef {
        name: "matches_regex",
        family: Family::McpAssert,
        value: r#"list of strings"#,
        doc: r#"the text matches each regular expression (RE2 syntax, anywhere in the text)"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::matches_regex),
    },
    KeyDef {
        name: "not_matches_regex",
        family: Family::McpAssert,
        value: r#"list of strings"#,
        doc: r#"the text matches none of the regular expressions (one check each; the negation of `matches_regex`)"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::not_matches_regex),
    },
    KeyDef {
        name: "json_path",
        family: Family::McpAssert,
        value: r#"mapping `path: value`"#,
        doc: r#"the text parsed as JSON (whole, or its first JSON line; the text even when `json` is `structuredContent`) has, at each path, a value equal to it in plain form (`5` equals `"5"`)"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::json_path),
    },
    KeyDef {
        name: "min_results",
        family: Family::McpAssert,
        value: r#"whole number"#,
        doc: r#"the text parsed as JSON is an array, or an object whose first of `locations`, `items`, `results`, `references`, `symbols` is an array, of at least this length"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::min_results),
    },
    KeyDef {
        name: "max_results",
        family: Family::McpAssert,
        value: r#"whole number"#,
        doc: r#"the same, at most this length"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::max_results),
    },
    KeyDef {
        name: "net_delta",
        family: Family::McpAssert,
        value: r#"whole number"#,
        doc: r#"the text parsed as JSON has a number `net_delta` equal to it"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::net_delta),
    },
    KeyDef {
        name: "file_contains",
        family: Family::McpAssert,
        value: r#"mapping `path: string`"#,
        doc: r#"the file contains the string, after the request"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::file_contains),
    },
    KeyDef {
        name: "file_not_contains",
        family: Family::McpAssert,
        value: r#"mapping `path: string`"#,
        doc: r#"the file does not contain the string"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::file_not_contains),
    },
    KeyDef {
        name: "file_not_exists",
        family: Family::McpAssert,
        value: r#"list of paths"#,
        doc: r#"the file does not exist"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::file_not_exists),
    },
    KeyDef {
        name: "in_order",
        family: Family::McpAssert,
        value: r#"list of strings"#,
        doc: r#"the strings occur in the text in this order"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::in_order),
    },
    KeyDef {
        name: "file_unchanged",
        family: Family::McpAssert,
        value: r#"list of paths"#,
        doc: r#"the file's content is the same before and after the request"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::file_unchanged),
    },
    KeyDef {
        name: "min_progress",
        family: Family::McpAssert,
        value: r#"whole number"#,
        doc: r#"at least this many `notifications/progress` carrying the request's progress token arrived"#,
        wording: Wording::Plain,
        compile: Compile::Map(mcp_assert::min_progress),
    },
    KeyDef {
        name: "status",
        family: Family::Json,
        value: r#"any"#,
        doc: r#"`json.status` equals it (JSON equality, numbers by value)"#,
        wording: Wording::Field("status"),
        compile: Compile::Map(json::status),
    },
    KeyDef {
        name: "error_code",
        family: Family::Json,
        value: r#"any"#,
        doc: r#"`json.error_code` equals it"#,
        wording: Wording::Field("error_code"),
        compile: Compile::Map(json::error_code),
    },
    KeyDef {
        name: "message_contains",
        family: Family::Json,
        value: r#"string"#,
        doc: r#"`json.message` contains it"#,
        wording: Wording::ContainsGot,
        compile: Compile::Map(json::message_contains),
    },
    KeyDef {
        name: "summary_contains",
        family: Family::Json,
        value: r#"string"#,
        doc: r#"`json.summary` contains it"#,
        wording: Wording::ContainsGot,
        compile: Compile::Map(json::summary_contains),
    },
    KeyDef {
        name: "results_min",
        family: Family::Json,
        value: r#"whole number"#,
        doc: r#"`json.results` is an array of at least this length"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::results_min),
    },
    KeyDef {
        name: "results_max",
        family: Family::Json,
        value: r#"whole number"#,
        doc: r#"… at most this length"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::results_max),
    },
    KeyDef {
        name: "results_count",
        family: Family::Json,
        value: r#"whole number"#,
        doc: r#"… exactly this length"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::results_count),
    },
    KeyDef {
        name: "has_fields",
        family: Family::Json,
        value: r#"list of paths"#,
        doc: r#"each path selects something"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::has_fields),
    },
    KeyDef {
        name: "has_field",
        family: Family::Json,
        value: r#"path"#,
        doc: r#"the path selects something; with `value` next to it, the value there equals `value`"#,
        wording: Wording::AtPath,
        compile: Compile::Map(json::has_field),
    },
    KeyDef {
        name: "value",
        family: Family::Json,
        value: r#"any"#,
        doc: r#"only with `has_field`"#,
        wording: Wording::Plain,
        compile: Compile::Modifier,
    },
    KeyDef {
        name: "field_equals",
        family: Family::Json,
        value: r#"mapping `path: value`"#,
        doc: r#"the value at each path equals it (JSON equality)"#,
        wording: Wording::AtPath,
        compile: Compile::Map(json::field_equals),
    },
    KeyDef {
        name: "field_contains",
        family: Family::Json,
        value: r#"`{path, text}`"#,
        doc: r#"the value at `path`, in plain form, contains `text`"#,
        wording: Wording::ContainsGot,
        compile: Compile::Map(json::field_contains),
    },
    KeyDef {
        name: "all_match",
        family: Family::Json,
        value: r#"`{path, value}`"#,
        doc: r#"every value at `path` equals `value`"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::all_match),
    },
    KeyDef {
        name: "all_match_one_of",
        family: Family::Json,
        value: r#"`{path, values}`"#,
        doc: r#"every value at `path` equals one of `values` (a list)"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::all_match_one_of),
    },
    KeyDef {
        name: "all_match_pattern",
        family: Family::Json,
        value: r#"`{path, regex}`"#,
        doc: r#"every value, in plain form, matches `regex`"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::all_match_pattern),
    },
    KeyDef {
        name: "none_match_pattern",
        family: Family::Json,
        value: r#"`{path, regex}`"#,
        doc: r#"no value, in plain form, matches `regex`"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::none_match_pattern),
    },
    KeyDef {
        name: "all_have_tags",
        family: Family::Json,
        value: r#"list of strings"#,
        doc: r#"every element of `json.results` has all these in `metadata.tags`"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::all_have_tags),
    },
    KeyDef {
        name: "none_have_tags",
        family: Family::Json,
        value: r#"list of strings"#,
        doc: r#"no element has any of them"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::none_have_tags),
    },
    KeyDef {
        name: "each_has_any_tag",
        family: Family::Json,
        value: r#"list of strings"#,
        doc: r#"every element has at least one of them"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::each_has_any_tag),
    },
    KeyDef {
        name: "all_dates_between",
        family: Family::Json,
        value: r#"`{path, start, end}`"#,
        doc: r#"every value is a date within `start`–`end` (RFC 3339 timestamps, `YYYY-MM-DDTHH:MM:SS` or `YYYY-MM-DD`; an `end` date includes its whole day)"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::all_dates_between),
    },
    KeyDef {
        name: "dates_within_days",
        family: Family::Json,
        value: r#"`{path, days}`"#,
        doc: r#"every value is a date at most `days` days from today"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::dates_within_days),
    },
    KeyDef {
        name: "all_in_range",
        family: Family::Json,
        value: r#"`{path, min, max}`"#,
        doc: r#"every value is a number (or numeric string) within `min`–`max`, inclusive"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::all_in_range),
    },
    KeyDef {
        name: "range_check",
        family: Family::Json,
        value: r#"`{path, min, max}`"#,
        doc: r#"the one value at `path` is a number (or numeric string) within `min`–`max`, inclusive"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::range_check),
    },
    KeyDef {
        name: "sorted_desc",
        family: Family::Json,
        value: r#"`{path}`"#,
        doc: r#"the values are in descending order (as numbers when both are numbers or numeric strings, else as text)"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::sorted_desc),
    },
    KeyDef {
        name: "array_contains",
        family: Family::Json,
        value: r#"`{path, values}`"#,
        doc: r#"the array at `path` contains each of `values`"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::array_contains),
    },
    KeyDef {
        name: "one_of",
        family: Family::Json,
        value: r#"list of mappings"#,
        doc: r#"at least one mapping's checks all pass (each a map-form `expect`)"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::one_of),
    },
    KeyDef {
        name: "if_results",
        family: Family::Json,
        value: r#"mapping"#,
        doc: r#"when `json.results` is a non-empty array, its checks must pass; otherwise passes"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::if_results),
    },
    KeyDef {
        name: "if_has_history",
        family: Family::Json,
        value: r#"mapping"#,
        doc: r#"the same, when `json.history_results` exists"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::if_has_history),
    },
    KeyDef {
        name: "if_sensitive_results",
        family: Family::Json,
        value: r#"mapping"#,
        doc: r#"the same, when some `json.results[*].file` starts with `people/` or `documents/`"#,
        wording: Wording::Plain,
        compile: Compile::Map(json::if_sensitive_results),
    },
    KeyDef {
        name: "task_status",
        family: Family::Json,
        value: r#"string"#,
        doc: r#"`assert_task`: the task ended with this status (`completed`, `failed`, `cancelled`; with `then: none`, the one it began with)"#,
        wording: Wording::Field("task status"),
        compile: Compile::Map(extensions::task_status),
    },
    KeyDef {
        name: "digests_match",
        family: Family::Json,
        value: r#"`true`"#,
        doc: r#"`assert_skills`: every file of the manifests was read, with the digest and size the manifest gives"#,
        wording: Wording::Field("manifest problems"),
        compile: Compile::Map(extensions::digests_match),
    },
    KeyDef {
        name: "app_valid",
        family: Family::Json,
        value: r#"`true`"#,
        doc: r#"`assert_app`: the tool's UI metadata, the `ui://` resource and its HTML break no rule of MCP Apps"#,
        wording: Wording::Field("app problems"),
        compile: Compile::Map(extensions::app_valid),
    },
    KeyDef {
        name: "min_messages",
        family: Family::Events,
        value: r#"whole number"#,
        doc: r#"at least this many `notifications/message` (log messages) arrived"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::min_messages),
    },
    KeyDef {
        name: "contains_level",
        family: Family::Events,
        value: r#"list of strings"#,
        doc: r#"a log message at each level arrived (one check each)"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::contains_level),
    },
    KeyDef {
        name: "contains_data",
        family: Family::Events,
        value: r#"list of strings"#,
        doc: r#"in `assert_logging`: some log message's `data` (plain form) contains each string; elsewhere: some notification's `params`, as JSON, contains it"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::contains_data),
    },
    KeyDef {
        name: "min_count",
        family: Family::Events,
        value: r#"whole number"#,
        doc: r#"at least this many notifications arrived (any method)"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::min_count),
    },
    KeyDef {
        name: "max_count",
        family: Family::Events,
        value: r#"whole number"#,
        doc: r#"at most this many"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::max_count),
    },
    KeyDef {
        name: "methods",
        family: Family::Events,
        value: r#"list of strings"#,
        doc: r#"a notification with each method arrived"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::methods),
    },
    KeyDef {
        name: "not_methods",
        family: Family::Events,
        value: r#"list of strings"#,
        doc: r#"no notification with any of these methods arrived"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::not_methods),
    },
    KeyDef {
        name: "not_contains_data",
        family: Family::Events,
        value: r#"list of strings"#,
        doc: r#"the same, negated: none contains it"#,
        wording: Wording::Plain,
        compile: Compile::Map(events::not_contains_data),
    },
    KeyDef {
        name: "exact",
        family: Family::Matcher,
        value: r#"any"#,
        doc: r#"equals it as JSON (numbers by value: `1` equals `1.0`)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::exact),
    },
    KeyDef {
        name: "equals",
        family: Family::Matcher,
        value: r#"string"#,
        doc: r#"in plain form, trimmed, equals it trimmed"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::equals),
    },
    KeyDef {
        name: "contains",
        family: Family::Matcher,
        value: r#"string"#,
        doc: r#"in plain form contains it (case-sensitive)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::contains),
    },
    KeyDef {
        name: "icontains",
        family: Family::Matcher,
        value: r#"string"#,
        doc: r#"in plain form contains it, ignoring case"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::icontains),
    },
    KeyDef {
        name: "not_contains",
        family: Family::Matcher,
        value: r#"string"#,
        doc: r#"in plain form does not contain it (nothing selected passes)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::not_contains),
    },
    KeyDef {
        name: "contains_any",
        family: Family::Matcher,
        value: r#"list of strings"#,
        doc: r#"in plain form contains at least one"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::contains_any),
    },
    KeyDef {
        name: "regex",
        family: Family::Matcher,
        value: r#"string"#,
        doc: r#"in plain form matches the regular expression (RE2 syntax, anywhere)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::regex),
    },
    KeyDef {
        name: "not_regex",
        family: Family::Matcher,
        value: r#"string"#,
        doc: r#"in plain form does not match it (nothing selected passes)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::not_regex),
    },
    KeyDef {
        name: "schema",
        family: Family::Matcher,
        value: r#"JSON Schema"#,
        doc: r#"validates against the schema (an object or a boolean; draft 2020-12 unless `$schema` says otherwise)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::schema),
    },
    KeyDef {
        name: "not_empty",
        family: Family::Matcher,
        value: r#"`true`"#,
        doc: r#"in plain form, trimmed, is not empty, `null`, `[]` or `{}`"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::not_empty),
    },
    KeyDef {
        name: "exists",
        family: Family::Matcher,
        value: r#"`true`"#,
        doc: r#"exists (the path selects something, even `null`)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::exists),
    },
    KeyDef {
        name: "absent",
        family: Family::Matcher,
        value: r#"`true`"#,
        doc: r#"does not exist, or is `null`"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::absent),
    },
    KeyDef {
        name: "length",
        family: Family::Matcher,
        value: r#"whole number, or `{min, max}`"#,
        doc: r#"is an array of exactly this length, or within `min`–`max` (either may be left out)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::length),
    },
    KeyDef {
        name: "range",
        family: Family::Matcher,
        value: r#"`{min, max}`"#,
        doc: r#"is a number, or a numeric string, within `min`–`max`, inclusive (either may be left out)"#,
        wording: Wording::Plain,
        compile: Compile::Matcher(list::range),
    },
    KeyDef {
        name: "order",
        family: Family::Trajectory,
        value: r#""#,
        doc: r#"the `tools` appear in this order, not necessarily adjacent"#,
        wording: Wording::Plain,
        compile: Compile::Trajectory(trajectory::order),
    },
    KeyDef {
        name: "presence",
        family: Family::Trajectory,
        value: r#""#,
        doc: r#"every one of `tools` appears at least once"#,
        wording: Wording::Plain,
        compile: Compile::Trajectory(trajectory::presence),
    },
    KeyDef {
        name: "absence",
        family: Family::Trajectory,
        value: r#""#,
        doc: r#"none of `tools` appears"#,
        wording: Wording::Plain,
        compile: Compile::Trajectory(trajectory::absence),
    },
    KeyDef {
        name: "args_contain",
        family: Family::Trajectory,
        value: r#""#,
        doc: r#"the first call of `tool` has every one of `args`, values compared by their plain string form (`6` equals `"6"`); later calls of the tool are not consulted"#,
        wording: Wording::Plain,
        compile: Compile::Trajectory(trajectory::args_contain),
    },
];

/// The rows of one family, in table order.
pub fn family(f: Family) -> impl Iterator<Item = &'static KeyDef> {
    VOCABULARY.iter().filter(move |k| k.family == f)
}

/// The row of `name` in family `f`.
pub fn lookup(f: Family, name: &str) -> Option<&'static KeyDef> {
    family(f).find(|k| k.name == name)
}

/// The map-form keys, in evaluation order.
pub fn map_form() -> impl Iterator<Item = &'static KeyDef> {
    VOCABULARY.iter().filter(|k| k.family.is_map_form())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_within_a_family_and_across_map_form() {
        let mut seen: Vec<(bool, &str)> = Vec::new();
        for k in VOCABULARY {
            let group = (k.family.is_map_form(), k.name);
            let fam = VOCABULARY
                .iter()
                .filter(|o| o.family == k.family && o.name == k.name)
                .count();
            assert_eq!(fam, 1, "{} twice in {:?}", k.name, k.family);
            if k.family.is_map_form() {
                assert!(!seen.contains(&group), "{} twice in the map form", k.name);
            }
            seen.push(group);
        }
    }

    #[test]
    fn every_row_has_a_compile_function_of_its_family() {
        for k in VOCABULARY {
            let fits = match k.compile {
                Compile::Map(_) | Compile::Modifier => k.family.is_map_form(),
                Compile::Matcher(_) => k.family == Family::Matcher,
                Compile::Trajectory(_) => k.family == Family::Trajectory,
            };
            assert!(fits, "{} is compiled as {:?}", k.name, k.compile);
            assert!(!k.doc.is_empty(), "{} has no doc", k.name);
        }
    }
}
