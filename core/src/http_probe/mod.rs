//! HTTP probes: active security checks of a Streamable HTTP MCP server. The
//! CLI sends the probe requests and records what came back as
//! [`Observations`]; every verdict is decided here, from those values alone.
//!
//! The public surface:
//!
//! - [`judge`]`(&Observations, &Options) -> Result<Vec<Finding>, OptionsError>`:
//!   every rule of the catalogue over what the probes saw, in catalogue order.
//! - [`passed`]`(&findings, fail_on)`: the verdict: no finding at `fail_on` or
//!   more severe.
//! - [`rules`]`()`: the catalogue ([`rules::RuleInfo`] rows, in order).
//! - [`report`]`(url, findings, fail_on)`: the findings as a
//!   [`crate::findings::Report`], for the one set of renderers.
//! - [`oauth`]: the authorization checks of `--auth` (H404 to H417), what
//!   they send and where they look.
//! - What the probes send, so every front end sends the same:
//!   [`FOREIGN_ORIGIN`], [`REBINDING_HOST`], [`HIDDEN_TOOL_NAMES`],
//!   [`wrong_arguments`] and [`metadata_urls`].
//!
//! An [`Answer`] is one HTTP response as received: status, headers, body text.
//! Its JSON-RPC messages are read from a JSON body or from the `data` of each
//! SSE event ([`Answer::messages`]).

mod leaks;
pub mod oauth;
pub mod rules;
mod sessions;
mod target;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub use crate::findings::{Finding, Severity};
use crate::findings::{Gate, ItemKind, Location, Report};
use rules::Rule;
pub use target::{is_loopback_host, metadata_urls, resource_metadata};

/// The `Origin` the foreign-origin probe sends.
pub const FOREIGN_ORIGIN: &str = "http://evil.example";

/// The host the rebinding-host probe sends in `Host` (with the URL's port).
pub const REBINDING_HOST: &str = "evil.example";

/// Names the hidden-tool probe calls besides the ones given with `--tool`,
/// when the listing does not hold them: the names debugging and
/// administration backdoors are commonly left under.
pub const HIDDEN_TOOL_NAMES: [&str; 10] = [
    "debug",
    "exec",
    "eval",
    "shell",
    "admin",
    "internal",
    "run_command",
    "execute",
    "system",
    "debug_exec",
];

/// One HTTP response as the CLI received it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// Every header, in order, names as received.
    pub headers: Vec<(String, String)>,
    /// The body as text (invalid UTF-8 replaced).
    pub body: String,
}

impl Answer {
    /// The first header of this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every header of this name, in order.
    pub fn headers_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The JSON-RPC messages of the body: the body itself when it is JSON (a
    /// batch gives each element), else the JSON `data` of each SSE event.
    pub fn messages(&self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut push = |value: Value| match value {
            Value::Array(items) => out.extend(items),
            other => out.push(other),
        };
        if let Ok(value) = serde_json::from_str::<Value>(self.body.trim()) {
            push(value);
            return out;
        }
        for data in sse_data(&self.body) {
            if let Ok(value) = serde_json::from_str::<Value>(&data) {
                push(value);
            }
        }
        out
    }

    /// The `result` of the first JSON-RPC response with one.
    pub fn result(&self) -> Option<Value> {
        self.messages()
            .into_iter()
            .find_map(|m| m.get("result").cloned())
    }

    /// Whether the request was served: a 2xx answer carrying a JSON-RPC result.
    pub fn served(&self) -> bool {
        self.ok() && self.result().is_some()
    }

    /// A short view for evidence: `HTTP 200: ` and the JSON-RPC response
    /// (the first message, when none is one), else the body; escaped, at
    /// most 120 characters.
    pub fn evidence(&self) -> String {
        let messages = self.messages();
        let shown = messages
            .iter()
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .or(messages.first())
            .map_or_else(|| self.body.trim().to_string(), Value::to_string);
        evidence(&format!("HTTP {}: {shown}", self.status))
    }
}

/// The `data` of each SSE event in `body` (multi-line data joined with `\n`).
fn sse_data(body: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    for line in body.lines() {
        if line.is_empty() {
            if !data.is_empty() {
                events.push(data.join("\n"));
                data.clear();
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    if !data.is_empty() {
        events.push(data.join("\n"));
    }
    events
}

/// A request meant to fail, and its answer: what the error-body rules read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ErrorProbe {
    /// What was sent: `malformed-json`, `unknown-method`, `invalid-params`,
    /// `wrong-argument-types`.
    pub probe: String,
    /// What came back.
    pub answer: Answer,
}

/// A `tools/call` of a tool the listing does not hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// What came back.
    pub answer: Answer,
}

/// One attempt to fetch protected-resource metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MetadataFetch {
    /// The URL fetched.
    pub url: String,
    /// The answer, or `None` when the request failed.
    pub answer: Option<Answer>,
    /// Why the request failed.
    pub error: Option<String>,
}

/// The request sent without credentials, and the metadata fetched after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuthProbe {
    /// The answer to the unauthenticated `initialize`.
    pub answer: Answer,
    /// The metadata fetches, in the order of [`metadata_urls`], up to the
    /// first that answered 200.
    pub metadata: Vec<MetadataFetch>,
}

/// A `DELETE` of a session, and a request with its id after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DeleteProbe {
    /// The answer to the `DELETE`.
    pub delete: Answer,
    /// The answer to a `ping` with the deleted session's id.
    pub reuse: Answer,
}

/// Everything the probes saw. A probe that did not run is `None` (or empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Observations {
    /// The URL probed.
    pub url: String,
    /// The answer to an `initialize` sent with `Origin: http://evil.example`.
    pub foreign_origin: Option<Answer>,
    /// The answer to an `initialize` sent with `Host: evil.example`.
    pub rebinding_host: Option<Answer>,
    /// The tool names `tools/list` gave.
    pub listed_tools: Vec<String>,
    /// Calls of tools the listing does not hold.
    pub hidden_calls: Vec<ToolCall>,
    /// Requests meant to fail.
    pub error_bodies: Vec<ErrorProbe>,
    /// The request without credentials, when it was sent.
    pub unauthenticated: Option<AuthProbe>,
    /// The `Mcp-Session-Id` of each of several `initialize` answers (`None`
    /// when an answer had none).
    pub session_ids: Vec<Option<String>>,
    /// A session ended with `DELETE`, then used.
    pub delete: Option<DeleteProbe>,
    /// The authorization probes (`--auth`), when they ran.
    pub oauth: Option<oauth::OAuthProbe>,
}

/// What to check and how to judge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Codes of rules not to run (`H302`); an unknown code is an error.
    pub skip_rules: Vec<String>,
    /// The least severe finding that fails the verdict (default `high`).
    pub fail_on: Severity,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            skip_rules: Vec::new(),
            fail_on: Severity::High,
        }
    }
}

/// Why the options cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// `skip_rules` names a code no rule has.
    #[error("unknown rule `{code}` in --skip-rules; known rules: {known}")]
    UnknownRule {
        /// The code as given.
        code: String,
        /// Every known code, comma-separated, in catalogue order.
        known: String,
    },
}

/// Every rule, in catalogue order.
pub fn rules() -> impl ExactSizeIterator<Item = &'static crate::findings::RuleInfo> {
    rules::ALL.iter().map(|r| r.info())
}

/// The verdict: no finding at `fail_on` or more severe.
pub fn passed(findings: &[Finding], fail_on: Severity) -> bool {
    crate::scan::gate(fail_on).passes(findings)
}

/// The findings as a report about `url`, with the probe's own JSON contract
/// beside them (`url`).
pub fn report(url: &str, findings: Vec<Finding>, fail_on: Severity) -> Report {
    let mut r = Report::new("probe", url);
    r.gate = Gate {
        strict: false,
        fail_on: Some(fail_on),
    };
    r.title = Some(url.to_string());
    r.set_extra("url", json!(url));
    r.findings = findings;
    r
}

/// The rules `options.skip_rules` names.
///
/// # Errors
///
/// [`OptionsError::UnknownRule`] for a code no rule has.
pub fn skipped(options: &Options) -> Result<BTreeSet<Rule>, OptionsError> {
    Rule::parse_skips(&options.skip_rules)
        .map_err(|(code, known)| OptionsError::UnknownRule { code, known })
}

/// Every rule over what the probes saw, findings in catalogue order.
///
/// # Errors
///
/// [`OptionsError::UnknownRule`] when `options.skip_rules` names an unknown code.
pub fn judge(observations: &Observations, options: &Options) -> Result<Vec<Finding>, OptionsError> {
    let skip = skipped(options)?;
    let mut found: Vec<(Rule, Finding)> = Vec::new();
    let mut push = |rule: Rule, probe: &str, message: String, evidence: String| {
        if !skip.contains(&rule) {
            found.push((
                rule,
                Finding::new(rule.info(), Location::item(ItemKind::Probe, probe), message)
                    .with_evidence(evidence),
            ));
        }
    };
    foreign_requests(observations, &mut push);
    hidden_tools(observations, &mut push);
    leaks::judge(observations, &mut push);
    target::judge_auth(observations, &mut push);
    oauth::judge(observations, &mut push);
    sessions::judge(observations, &mut push);
    target::judge_transport(&observations.url, &mut push);
    found.sort_by_key(|(rule, _)| *rule);
    Ok(found.into_iter().map(|(_, f)| f).collect())
}

/// How a rule reports: rule, probe, message, evidence.
pub(crate) type Push<'p> = dyn FnMut(Rule, &str, String, String) + 'p;

/// Text as evidence on one line: line breaks and tabs as `\n`, `\r`,
/// `\t`, other invisible and control characters as `\u{…}`, at most 120
/// characters.
pub(crate) fn evidence(text: &str) -> String {
    let one_line = text
        .replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\t', "\\t");
    crate::scan::escape(&one_line, 119)
}

/// H101, H102.
fn foreign_requests(o: &Observations, push: &mut Push<'_>) {
    if let Some(answer) = o.foreign_origin.as_ref().filter(|a| a.served()) {
        push(
            Rule::ForeignOrigin,
            "origin",
            format!(
                "an initialize sent with `Origin: {FOREIGN_ORIGIN}` was served (HTTP {}); a server must answer a foreign Origin with 403",
                answer.status
            ),
            answer.evidence(),
        );
    }
    if let Some(answer) = o.rebinding_host.as_ref().filter(|a| a.served()) {
        push(
            Rule::RebindingHost,
            "host",
            format!(
                "an initialize sent with `Host: {REBINDING_HOST}` was served (HTTP {}); a DNS-rebound page reaches this server",
                answer.status
            ),
            answer.evidence(),
        );
    }
}

/// Whether a `tools/call` answer is a success: a JSON-RPC result that is not
/// `isError: true`.
pub fn call_succeeded(answer: &Answer) -> bool {
    answer
        .result()
        .is_some_and(|r| r.get("isError") != Some(&Value::Bool(true)))
}

/// H201: one finding per unlisted tool that ran.
fn hidden_tools(o: &Observations, push: &mut Push<'_>) {
    for call in &o.hidden_calls {
        if o.listed_tools.contains(&call.tool) || !call_succeeded(&call.answer) {
            continue;
        }
        let shown = call
            .answer
            .result()
            .map(|r| r.to_string())
            .unwrap_or_default();
        push(
            Rule::HiddenTool,
            "hidden-tool",
            format!(
                "tool `{}` is not in tools/list, yet tools/call ran it and answered a result",
                call.tool
            ),
            evidence(&format!("{}: {shown}", call.tool)),
        );
    }
}

/// Arguments of the wrong type for a tool, from its `inputSchema`: for each
/// required property (every property when none is required) whose `type` is
/// known, a value of another type (a string becomes `[]`, a number, integer,
/// boolean or array becomes `"mcpcheck-probe"`, an object becomes `[]`).
/// `None` when the schema declares no typed property. A server should refuse
/// such a call; the probe reads the refusal.
pub fn wrong_arguments(tool: &Value) -> Option<Map<String, Value>> {
    let schema = tool.get("inputSchema")?;
    let properties = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    for (name, property) in properties {
        if !required.is_empty() && !required.contains(&name.as_str()) {
            continue;
        }
        let wrong = match property.get("type").and_then(Value::as_str) {
            Some("string" | "object") => json!([]),
            Some("number" | "integer" | "boolean" | "array") => json!("mcpcheck-probe"),
            _ => continue,
        };
        out.insert(name.clone(), wrong);
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests;
