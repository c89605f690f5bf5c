//! The built-in tools: their `tools/list` entries, argument parsing, and the
//! pure parts of their behaviour. Everything here is a function of the
//! arguments alone — no clock, no randomness — so the same call always gives
//! the same answer. Tools that talk to the client (progress, sampling, …) are
//! driven from `handler.rs`, which uses this module for their arguments.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Number, Value, json};

/// `lorem` produces this many words when `words` is absent or zero.
pub const LOREM_DEFAULT_WORDS: u64 = 50;
pub const LOREM_MAX_WORDS: u64 = 100_000;
pub const PROGRESS_DEFAULT_STEPS: u64 = 3;
pub const PROGRESS_MAX_STEPS: u64 = 1_000;
pub const PROGRESS_DEFAULT_DELAY_MS: u64 = 10;
pub const PROGRESS_MAX_DELAY_MS: u64 = 60_000;
pub const SLOW_DEFAULT_MS: u64 = 1_000;
/// Upper bound of `slow {ms}`: nothing in this server sleeps unboundedly.
pub const SLOW_MAX_MS: u64 = 600_000;
pub const BIG_DEFAULT_BYTES: u64 = 1_024;
pub const BIG_MAX_BYTES: u64 = 64 * 1024 * 1024;
pub const SAMPLE_DEFAULT_PROMPT: &str = "Say hello.";
pub const SAMPLE_MAX_TOKENS: u32 = 256;
pub const ELICIT_DEFAULT_MESSAGE: &str = "Please enter a value.";
pub const LOG_DEFAULT_MESSAGE: &str = "hello from mcpcheck serve";
pub const FAIL_DEFAULT_MESSAGE: &str = "the fail tool always fails";
pub const STRUCTURED_DEFAULT_CITY: &str = "Lisbon";

/// Every built-in tool, in `tools/list` order: the server's own, then the
/// conformance fixtures (`fixtures.rs`). Tools registered by `add_tool`
/// follow them, in registration order.
#[allow(
    clippy::too_many_lines,
    reason = "a table of the built-in tools, one entry each and no logic"
)]
pub fn builtin() -> Vec<Tool> {
    let mut tools = vec![
        tool(
            "echo",
            "Returns `message` unchanged as a single text block.",
            json!({
                "message": {"type": "string", "description": "text to return"}
            }),
            &["message"],
        ),
        tool(
            "add",
            "Returns the sum of `a` and `b` as text; integers stay integers.",
            json!({
                "a": {"type": "number", "description": "first addend"},
                "b": {"type": "number", "description": "second addend"}
            }),
            &["a", "b"],
        ),
        tool(
            "lorem",
            "Returns `words` lowercase lorem-ipsum words separated by single spaces. \
             The text is a pure function of `words` and `seed`: same seed, same text.",
            json!({
                "words": {
                    "type": "integer", "minimum": 0, "maximum": LOREM_MAX_WORDS,
                    "description": "number of words; defaults to 50 when absent or zero"
                },
                "seed": {"type": "string", "description": "seed; defaults to the empty string"}
            }),
            &[],
        ),
        tool(
            "progress",
            "Sleeps `steps` times for `delay_ms`, sending notifications/progress after each \
             step when the request carries a progressToken, then returns `completed N steps`.",
            json!({
                "steps": {
                    "type": "integer", "minimum": 0, "maximum": PROGRESS_MAX_STEPS,
                    "description": "number of steps; defaults to 3"
                },
                "delay_ms": {
                    "type": "integer", "minimum": 0, "maximum": PROGRESS_MAX_DELAY_MS,
                    "description": "delay before each step in milliseconds; defaults to 10"
                }
            }),
            &[],
        ),
        tool(
            "slow",
            "Sleeps `ms` milliseconds, then returns `slept N ms`.",
            json!({
                "ms": {
                    "type": "integer", "minimum": 0, "maximum": SLOW_MAX_MS,
                    "description": "milliseconds to sleep; defaults to 1000"
                }
            }),
            &[],
        ),
        tool(
            "fail",
            "Always returns a tool error (isError: true) whose text is `message`.",
            json!({
                "message": {
                    "type": "string",
                    "description": "error text; defaults to `the fail tool always fails`"
                }
            }),
            &[],
        ),
        structured_tool(
            "structured",
            "Returns fixed weather data for `city` as structuredContent that matches the \
             outputSchema, mirrored as JSON in a text block.",
        ),
        structured_tool(
            "structured_wrong",
            "Like `structured`, but its structuredContent violates the outputSchema: \
             `humidity` is a string where an integer is required.",
        ),
        tool(
            "big",
            "Returns a text block of exactly `bytes` bytes: the letters a to z, repeated.",
            json!({
                "bytes": {
                    "type": "integer", "minimum": 0, "maximum": BIG_MAX_BYTES,
                    "description": "size of the text in bytes; defaults to 1024"
                }
            }),
            &[],
        ),
        tool(
            "log",
            "Sends notifications/message at `level` with `message` as data, unless the level \
             is below the one set by logging/setLevel; returns what it did.",
            json!({
                "level": {
                    "type": "string", "enum": LOG_LEVELS,
                    "description": "log level; defaults to info"
                },
                "message": {
                    "type": "string",
                    "description": "log data; defaults to `hello from mcpcheck serve`"
                }
            }),
            &[],
        ),
        tool(
            "sample",
            "Asks the client sampling/createMessage with `prompt` as the user message and \
             returns the text of the answer.",
            json!({
                "prompt": {"type": "string", "description": "user message; defaults to `Say hello.`"}
            }),
            &[],
        ),
        tool(
            "elicit",
            "Asks the client elicitation/create with `message` and a one-field form \
             (`answer`, a string) and returns the client's result as JSON.",
            json!({
                "message": {
                    "type": "string",
                    "description": "message shown to the user; defaults to `Please enter a value.`"
                }
            }),
            &[],
        ),
        tool(
            "roots",
            "Asks the client roots/list and returns the roots as a JSON array.",
            json!({}),
            &[],
        ),
        tool(
            "add_tool",
            "Registers a tool named `name` that echoes `message` like `echo`, then sends \
             notifications/tools/list_changed. Registered tools last for the session.",
            json!({
                "name": {
                    "type": "string", "pattern": TOOL_NAME_PATTERN,
                    "description": "name of the new tool; defaults to dynamic_N, N counting from 1"
                }
            }),
            &[],
        ),
        tool(
            "whoami",
            "Returns the caller's identity: `anonymous` without authentication, else the \
             label of the credential that matched (`api-key#1`, `bearer#2`, ...).",
            json!({}),
            &[],
        ),
    ];
    for tool in &mut tools {
        if READ_ONLY.contains(&tool.name.as_ref()) {
            tool.annotations = Some(rmcp::model::ToolAnnotations::new().read_only(true));
        }
    }
    tools.extend(super::fixtures::tools());
    tools
}

/// The built-in tools annotated `readOnlyHint: true`: they change nothing
/// (no session state, no file, no request to the client) and only compute
/// their answer, sleep or notify. `add_tool` changes the session's tool list,
/// and `sample`, `elicit` and `roots` ask the client. `structured_wrong`
/// changes nothing either but is left unannotated: its result breaks its
/// outputSchema on purpose, for suites that test outputSchema checks, and
/// `mcpcheck conformance` calls every read-only tool it finds.
pub const READ_ONLY: [&str; 10] = [
    "echo",
    "add",
    "lorem",
    "progress",
    "slow",
    "fail",
    "structured",
    "big",
    "log",
    "whoami",
];

/// The tools of the `buggy-tools` fault, each with one planted defect.
pub fn buggy() -> Vec<Tool> {
    let mut delete = tool(
        "delete_everything",
        "Would delete every file it can reach (it deletes nothing): annotated \
         destructiveHint: true, so audit and fuzz skip it unless told otherwise.",
        json!({"path": {"type": "string", "description": "where to start"}}),
        &[],
    );
    delete.annotations = Some(
        rmcp::model::ToolAnnotations::new()
            .read_only(false)
            .destructive(true),
    );
    vec![
        tool(
            "crash_on_empty",
            "Returns `text` unchanged; an empty `text` makes the whole process exit \
             (status 70) without answering.",
            json!({"text": {"type": "string", "description": "text to return"}}),
            &["text"],
        ),
        tool(
            "hang_on_negative",
            "Returns `n`; a negative `n` is never answered (until the client goes away).",
            json!({"n": {"type": "integer", "description": "a number"}}),
            &["n"],
        ),
        tool(
            "internal_error",
            "Always answers with JSON-RPC error -32603 where a result belongs.",
            json!({}),
            &[],
        ),
        tool(
            "noisy",
            "Writes a line that is not JSON-RPC to stdout, then answers `ok`.",
            json!({}),
            &[],
        ),
        delete,
    ]
}

/// The line `noisy` writes to stdout.
pub const NOISY_LINE: &str = "noisy: a debug line on stdout";

/// The `tools/list` entry of a tool registered by `add_tool`.
pub fn dynamic(name: &str) -> Tool {
    tool(
        name.to_owned(),
        "Registered by add_tool; returns `message` unchanged, like echo.",
        json!({
            "message": {"type": "string", "description": "text to return"}
        }),
        &["message"],
    )
}

/// Log levels in increasing severity, as the MCP spec names them.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Names `add_tool` accepts: the character set the MCP spec recommends.
pub const TOOL_NAME_PATTERN: &str = "^[A-Za-z0-9_.-]{1,64}$";

pub fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

pub(super) fn tool(
    name: impl Into<std::borrow::Cow<'static, str>>,
    description: &'static str,
    properties: Value,
    required: &[&str],
) -> Tool {
    Tool::new(
        name,
        description,
        Arc::new(object_schema(properties, required)),
    )
}

fn object_schema(properties: Value, required: &[&str]) -> JsonObject {
    let mut schema = JsonObject::new();
    schema.insert("type".to_owned(), json!("object"));
    schema.insert("properties".to_owned(), properties);
    if !required.is_empty() {
        schema.insert("required".to_owned(), json!(required));
    }
    schema.insert("additionalProperties".to_owned(), json!(false));
    schema
}

fn structured_tool(name: &'static str, description: &'static str) -> Tool {
    tool(
        name,
        description,
        json!({
            "city": {"type": "string", "description": "city name; defaults to Lisbon"}
        }),
        &[],
    )
    .with_raw_output_schema(Arc::new(weather_schema()))
}

/// The outputSchema of `structured` and `structured_wrong`.
pub fn weather_schema() -> JsonObject {
    object_schema(
        json!({
            "city": {"type": "string"},
            "temperature": {"type": "number", "description": "degrees Celsius"},
            "conditions": {"type": "string"},
            "humidity": {"type": "integer", "minimum": 0, "maximum": 100, "description": "percent"}
        }),
        &["city", "temperature", "conditions", "humidity"],
    )
}

/// The structuredContent of `structured`: fixed values, whatever the city.
pub fn weather(city: &str) -> Value {
    json!({
        "city": city,
        "temperature": 22.5,
        "conditions": "Partly cloudy",
        "humidity": 65
    })
}

/// The structuredContent of `structured_wrong`: `humidity` has the wrong type.
pub fn weather_wrong(city: &str) -> Value {
    json!({
        "city": city,
        "temperature": 22.5,
        "conditions": "Partly cloudy",
        "humidity": "65%"
    })
}

/// The lorem-ipsum vocabulary `lorem` draws from.
const LOREM_WORDS: [&str; 62] = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "ad",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
    "nisi",
    "aliquip",
    "ex",
    "ea",
    "commodo",
    "consequat",
    "duis",
    "aute",
    "irure",
    "in",
    "reprehenderit",
    "voluptate",
    "velit",
    "esse",
    "cillum",
    "fugiat",
    "nulla",
    "pariatur",
    "excepteur",
    "sint",
    "occaecat",
    "cupidatat",
    "non",
    "proident",
    "sunt",
    "culpa",
    "qui",
    "officia",
    "deserunt",
    "mollit",
    "anim",
    "id",
    "est",
    "laborum",
];

/// `words` words chosen by an xorshift64 generator whose state starts at the
/// 64-bit FNV-1a hash of `seed`: a pure function of its arguments, stable
/// across platforms and releases.
pub fn lorem(words: u64, seed: &str) -> String {
    let mut state = fnv1a64(seed.as_bytes());
    if state == 0 {
        // xorshift never leaves zero; any fixed non-zero start will do.
        state = 0x9e37_79b9_7f4a_7c15;
    }
    let mut text = String::new();
    for i in 0..words {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if i > 0 {
            text.push(' ');
        }
        // The modulus is small and constant, so the cast cannot truncate.
        text.push_str(LOREM_WORDS[(state % LOREM_WORDS.len() as u64) as usize]);
    }
    text
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Exactly `bytes` bytes of ASCII text: `abc…xyzabc…`.
pub fn big(bytes: usize) -> String {
    (b'a'..=b'z').cycle().take(bytes).map(char::from).collect()
}

/// The sum `add` returns: exact for integers (while they fit in 64 bits),
/// floating point otherwise.
pub fn add(a: &Number, b: &Number) -> Result<Number, ToolError> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64())
        && let Some(sum) = a.checked_add(b)
    {
        return Ok(Number::from(sum));
    }
    let (Some(a), Some(b)) = (a.as_f64(), b.as_f64()) else {
        return Err(ToolError::NotNumbers);
    };
    Number::from_f64(a + b).ok_or(ToolError::NotFinite)
}

/// Why a tool call failed. It is answered as a tool error (`isError:
/// true`) whose text is this message, which the caller (often a model) can
/// read and correct, as the spec recommends; an unknown tool is a JSON-RPC
/// error instead, answered by the handler.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("unknown argument `{0}`: this tool takes no arguments")]
    NoArguments(String),
    #[error("unknown argument `{unknown}`; expected: {expected}")]
    UnknownArgument { unknown: String, expected: String },
    #[error("missing required argument `{0}`")]
    Missing(String),
    /// An argument of the wrong type or value; `expected` says what it
    /// must be ("a string", "`phone` or `email`").
    #[error("argument `{key}` must be {expected}")]
    Invalid { key: String, expected: String },
    /// A member of an object argument (`address.city`) of the wrong type.
    #[error("`{path}` must be {expected}")]
    Member {
        path: String,
        expected: &'static str,
    },
    /// The contact fixture's `phone`, required by `contactMethod: phone`.
    #[error("`contactMethod` is `phone`, so `phone` is required")]
    PhoneRequired,
    /// The contact fixture's `email`, required unless `contactMethod` is `phone`.
    #[error("`email` is required unless `contactMethod` is `phone`")]
    EmailRequired,
    #[error("arguments `a` and `b` must be numbers")]
    NotNumbers,
    #[error("the sum is not a finite number")]
    NotFinite,
    #[error("`{0}` is too large")]
    TooLarge(&'static str),
    #[error("tool name `{0}` must match {TOOL_NAME_PATTERN}")]
    ToolName(String),
    #[error("a tool named `{0}` already exists")]
    ToolExists(String),
    #[error("unknown notes tool `{0}`")]
    NotNotes(String),
    #[error("`{0}` is not a conformance fixture tool")]
    NotFixture(String),
    #[error("`{0}` has no elicitation form")]
    NoForm(String),
    /// The request was cancelled while the tool waited.
    #[error("cancelled")]
    Cancelled,
    /// A notification (`what`: "progress", "the log message") that did not go out.
    #[error("cannot send {what}: {source}")]
    Notify {
        what: &'static str,
        #[source]
        source: rmcp::ServiceError,
    },
    /// The client did not declare `0` (sampling, elicitation, roots).
    #[error("the client did not declare the {0} capability")]
    Undeclared(&'static str),
    /// A request to the client (`method`) that failed.
    #[error("{method} failed: {source}")]
    Client {
        method: &'static str,
        #[source]
        source: rmcp::ServiceError,
    },
    #[error("{method}: the client did not answer within {secs} s")]
    ClientTimeout { method: &'static str, secs: u64 },
    /// The form of an elicitation that could not be built.
    #[error("cannot build the elicitation form: {0}")]
    Form(String),
    /// A value that could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl ToolError {
    /// The tool error the caller receives.
    pub fn answer(&self) -> rmcp::model::CallToolResult {
        rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(self.to_string())])
    }

    /// Argument `key` is not `expected`.
    pub fn invalid(key: &str, expected: impl Into<String>) -> Self {
        Self::Invalid {
            key: key.to_owned(),
            expected: expected.into(),
        }
    }
}

/// Typed access to a `tools/call` argument object, with the messages a
/// caller sees when an argument is wrong. Unknown arguments are rejected, as
/// every input schema says `additionalProperties: false`.
#[derive(Debug)]
pub struct Args<'a> {
    object: Option<&'a JsonObject>,
}

impl<'a> Args<'a> {
    pub fn new(object: Option<&'a JsonObject>, known: &[&str]) -> Result<Self, ToolError> {
        if let Some(unknown) = object
            .into_iter()
            .flat_map(|o| o.keys())
            .find(|key| !known.contains(&key.as_str()))
        {
            return Err(if known.is_empty() {
                ToolError::NoArguments(unknown.clone())
            } else {
                ToolError::UnknownArgument {
                    unknown: unknown.clone(),
                    expected: known.join(", "),
                }
            });
        }
        Ok(Self { object })
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.object.and_then(|o| o.get(key))
    }

    /// A string argument, or `default` when absent (`None`: required).
    pub fn string(&self, key: &str, default: Option<&str>) -> Result<String, ToolError> {
        match (self.get(key), default) {
            (Some(Value::String(s)), _) => Ok(s.clone()),
            (Some(_), _) => Err(ToolError::invalid(key, "a string")),
            (None, Some(default)) => Ok(default.to_owned()),
            (None, None) => Err(ToolError::Missing(key.to_owned())),
        }
    }

    /// A required number argument.
    pub fn number(&self, key: &str) -> Result<Number, ToolError> {
        match self.get(key) {
            Some(Value::Number(n)) => Ok(n.clone()),
            Some(_) => Err(ToolError::invalid(key, "a number")),
            None => Err(ToolError::Missing(key.to_owned())),
        }
    }

    /// An integer argument in `0..=max`, or `default` when absent. Integral
    /// floats such as `3.0` are accepted, as JSON does not tell them apart.
    pub fn uint(&self, key: &str, default: u64, max: u64) -> Result<u64, ToolError> {
        let Some(value) = self.get(key) else {
            return Ok(default);
        };
        let n = value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= max as f64)
                .map(|f| f as u64)
        });
        match n {
            Some(n) if n <= max => Ok(n),
            _ => Err(ToolError::invalid(
                key,
                format!("an integer between 0 and {max}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lorem_is_a_pure_function_of_words_and_seed() {
        assert_eq!(lorem(12, "abc"), lorem(12, "abc"));
        assert_ne!(lorem(12, "abc"), lorem(12, "abd"));
        assert_eq!(lorem(7, "x").split(' ').count(), 7);
        assert!(lorem(20, "x").starts_with(&lorem(5, "x")));
        assert_eq!(lorem(0, "x"), "");
    }

    #[test]
    fn lorem_output_is_pinned() {
        // Pinned so that a change to the generator, which would change every
        // suite's expected text, cannot pass unnoticed.
        // Checked against an independent implementation of the documented
        // algorithm (FNV-1a 64 of the seed, xorshift64 13/7/17).
        assert_eq!(lorem(6, ""), "mollit sit dolore sint magna est");
        assert_eq!(
            lorem(8, "mcpcheck"),
            "fugiat enim magna labore quis occaecat in aliqua"
        );
    }

    #[test]
    fn big_has_exactly_the_requested_size() {
        assert_eq!(big(0), "");
        assert_eq!(big(3), "abc");
        assert_eq!(big(1000).len(), 1000);
        assert!(big(30).starts_with("abcdefghijklmnopqrstuvwxyzabcd"));
    }

    #[test]
    fn add_keeps_integers_exact_and_handles_floats() {
        let n = |v: Value| match v {
            Value::Number(n) => n,
            _ => unreachable!("test input is a number"),
        };
        assert_eq!(add(&n(json!(2)), &n(json!(3))).ok(), Some(n(json!(5))));
        assert_eq!(add(&n(json!(1.5)), &n(json!(2))).ok(), Some(n(json!(3.5))));
        assert_eq!(
            add(&n(json!(i64::MAX)), &n(json!(1))).ok(),
            Some(n(json!(9_223_372_036_854_775_808.0)))
        );
    }

    #[test]
    fn args_reject_unknown_and_mistyped_arguments() {
        let object = json!({"words": 3, "colour": "red"});
        let object = object.as_object();
        fn said<T>(r: Result<T, ToolError>) -> String {
            r.err().map(|e| e.to_string()).unwrap_or_default()
        }
        assert_eq!(
            said(Args::new(object, &["words"])),
            "unknown argument `colour`; expected: words"
        );
        assert_eq!(
            said(Args::new(object, &[])),
            "unknown argument `colour`: this tool takes no arguments"
        );
        let object = json!({"words": "three"});
        let args = Args::new(object.as_object(), &["words"]).expect("known keys");
        assert_eq!(
            said(args.uint("words", 50, 10)),
            "argument `words` must be an integer between 0 and 10"
        );
        assert_eq!(
            said(args.number("words")),
            "argument `words` must be a number"
        );
        let object = json!({"words": 4.0});
        let args = Args::new(object.as_object(), &["words"]).expect("known keys");
        assert_eq!(args.uint("words", 50, 10).ok(), Some(4));
        assert_eq!(args.uint("absent", 50, 10).ok(), Some(50));
        assert_eq!(
            said(args.string("words", None)),
            "argument `words` must be a string"
        );
        assert_eq!(
            said(args.string("seed", None)),
            "missing required argument `seed`"
        );
    }

    #[test]
    fn tool_errors_answer_their_message_as_a_tool_error() {
        let answer = ToolError::ToolName("a b".into()).answer();
        assert_eq!(answer.is_error, Some(true));
        let text = answer.content[0].as_text().map(|t| t.text.clone());
        assert_eq!(
            text.as_deref(),
            Some("tool name `a b` must match ^[A-Za-z0-9_.-]{1,64}$")
        );
        assert_eq!(
            ToolError::ClientTimeout {
                method: "roots/list",
                secs: 30
            }
            .to_string(),
            "roots/list: the client did not answer within 30 s"
        );
        assert_eq!(
            ToolError::Member {
                path: "address.city".into(),
                expected: "a string"
            }
            .to_string(),
            "`address.city` must be a string"
        );
    }

    #[test]
    fn tool_names_follow_the_recommended_charset() {
        for tool in builtin() {
            assert!(valid_tool_name(&tool.name), "{}", tool.name);
        }
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("has space"));
        assert!(!valid_tool_name(&"x".repeat(65)));
    }

    #[test]
    fn structured_content_validates_and_wrong_content_does_not() {
        // Checked structurally here; the integration tests validate against
        // the schema served in tools/list.
        let schema = weather_schema();
        let required = schema["required"].as_array().expect("required list");
        let good = weather("Oslo");
        for key in required {
            assert!(good.get(key.as_str().unwrap_or_default()).is_some());
        }
        assert!(good["humidity"].is_u64());
        assert!(weather_wrong("Oslo")["humidity"].is_string());
    }
}
