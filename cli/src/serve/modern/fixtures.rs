//! The tools and the prompt that exist only in the 2026-07-28 era: those
//! whose answer is an `InputRequiredResult` by design (the names the
//! official conformance suite calls), the one that needs a capability the
//! client may not declare, and the two that announce a list change to the
//! open `subscriptions/listen` streams.
//!
//! Each is a pure step function: given the client's capabilities and the
//! answers it has given so far, it asks for more input, refuses for a
//! missing capability, or completes.

use serde_json::{Map, Value, json};

/// A list that changed, as announced on the listen streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Tools,
    Prompts,
}

/// Where a fixture's run got to.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// The complete result (without `resultType`).
    Done(Value),
    /// Input requests by key, in the order asked.
    Ask(Vec<(String, Value)>),
    /// The client lacks capabilities the fixture needs: `requiredCapabilities`.
    Missing(Value),
}

const MRTR: &str = "Answers with an InputRequiredResult (2026-07-28)";

/// The fixture tools, as tools/list shows them.
pub fn tools() -> Vec<Value> {
    let tool = |name: &str, description: &str| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": { "type": "object", "properties": {} },
        })
    };
    vec![
        tool(
            "test_input_required_result_elicitation",
            &format!("{MRTR}: asks the user's name (elicitation, key user_name)."),
        ),
        tool(
            "test_input_required_result_sampling",
            &format!("{MRTR}: asks the model a question (sampling, key capital_question)."),
        ),
        tool(
            "test_input_required_result_list_roots",
            &format!("{MRTR}: asks for the client's roots (roots/list, key client_roots)."),
        ),
        tool(
            "test_input_required_result_request_state",
            &format!("{MRTR}: asks a confirmation; the completed answer says state-ok."),
        ),
        tool(
            "test_input_required_result_multiple_inputs",
            &format!("{MRTR}: asks by elicitation, sampling and roots/list at once."),
        ),
        tool(
            "test_input_required_result_multi_round",
            &format!("{MRTR}: asks twice, one round after the other."),
        ),
        tool(
            "test_input_required_result_tampered_state",
            &format!("{MRTR}: asks a confirmation; an altered requestState is refused."),
        ),
        tool(
            "test_input_required_result_capabilities",
            &format!("{MRTR}: asks only by the means the client declared (sampling, elicitation)."),
        ),
        read_only(tool(
            "test_missing_capability",
            "Needs the sampling capability: without it, error -32021; with it, asks the model.",
        )),
        tool(
            "test_streaming_elicitation",
            &format!("{MRTR}: needs elicitation and asks a confirmation."),
        ),
        tool(
            "test_trigger_tool_change",
            "Announces notifications/tools/list_changed on every open subscriptions/listen stream.",
        ),
        tool(
            "test_trigger_prompt_change",
            "Announces notifications/prompts/list_changed on every open subscriptions/listen stream.",
        ),
        json!({
            "name": "test_custom_header",
            "description": "Echoes `region`, which an HTTP client mirrors into the Mcp-Param-Region header (x-mcp-header); a header that does not match the argument is refused with -32020.",
            "inputSchema": {
                "type": "object",
                "properties": { "region": { "type": "string", "x-mcp-header": "Region", "description": "A region name, e.g. `us-west1`; echoed back." } },
                "required": ["region"],
            },
            "annotations": { "readOnlyHint": true },
        }),
        tool(
            "test_logging_tool",
            "Runs `log` at level info: the message is sent only when the request's _meta sets a logLevel.",
        ),
    ]
}

/// `tool` annotated `readOnlyHint: true`: it changes nothing (it refuses,
/// asks or echoes), so `mcpcheck conformance` may call it.
fn read_only(mut tool: Value) -> Value {
    tool["annotations"] = json!({ "readOnlyHint": true });
    tool
}

/// The arguments of `tool` an HTTP client mirrors into `Mcp-Param-*`
/// headers (`x-mcp-header`): `(argument, header name suffix)`.
pub fn mirrored(tool: &str) -> &'static [(&'static str, &'static str)] {
    match tool {
        "test_custom_header" => &[("region", "Region")],
        _ => &[],
    }
}

/// The built-in tool and arguments a fixture tool stands for, when the
/// handler does its work.
pub fn alias(tool: &str) -> Option<(&'static str, Value)> {
    (tool == "test_logging_tool").then(|| {
        (
            "log",
            json!({ "level": "info", "message": "Diagnostic trace logging activated" }),
        )
    })
}

/// The fixture prompts, as prompts/list shows them.
pub fn prompts() -> Vec<Value> {
    vec![json!({
        "name": "test_input_required_result_prompt",
        "description": format!("{MRTR}: asks for the context to use (elicitation, key user_context)."),
    })]
}

/// The list change a fixture tool announces, if it is one of the triggers.
pub fn change_of(tool: &str) -> Option<Change> {
    match tool {
        "test_trigger_tool_change" => Some(Change::Tools),
        "test_trigger_prompt_change" => Some(Change::Prompts),
        _ => None,
    }
}

fn elicit(message: &str, field: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": "string" } },
                "required": [field],
            },
        },
    })
}

fn sample(question: &str) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": question } }],
            "maxTokens": 100,
        },
    })
}

fn list_roots() -> Value {
    json!({ "method": "roots/list", "params": {} })
}

fn text(text: impl Into<String>) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }], "isError": false })
}

fn has(capabilities: &Value, name: &str) -> bool {
    capabilities.get(name).is_some_and(|c| !c.is_null())
}

/// What an answer says, briefly: an elicitation's content, a sampled text,
/// or the answer as JSON.
fn said(answer: &Value) -> String {
    if let Some(text) = answer.pointer("/content/text").and_then(Value::as_str) {
        return text.to_owned();
    }
    if let Some(content) = answer.get("content") {
        return content.to_string();
    }
    answer.to_string()
}

/// Asks for every `(key, request)` not answered yet, or completes with
/// `done` once all are.
fn gather(
    answers: &Map<String, Value>,
    wanted: Vec<(&str, Value)>,
    done: impl FnOnce(&Map<String, Value>) -> Value,
) -> Step {
    let missing: Vec<(String, Value)> = wanted
        .into_iter()
        .filter(|(key, _)| !answers.contains_key(*key))
        .map(|(key, request)| (key.to_owned(), request))
        .collect();
    if missing.is_empty() {
        Step::Done(done(answers))
    } else {
        Step::Ask(missing)
    }
}

/// Needs every capability in `names`, or says which are missing.
fn require(capabilities: &Value, names: &[&str]) -> Option<Step> {
    let missing: Map<String, Value> = names
        .iter()
        .filter(|n| !has(capabilities, n))
        .map(|n| ((*n).to_owned(), json!({})))
        .collect();
    (!missing.is_empty()).then_some(Step::Missing(Value::Object(missing)))
}

/// The step of the fixture tool `name`, or `None` if no fixture has it.
pub fn call_tool(
    name: &str,
    arguments: &Value,
    capabilities: &Value,
    answers: &Map<String, Value>,
) -> Option<Step> {
    let needs = |names: &[&str]| require(capabilities, names);
    let step = match name {
        "test_input_required_result_elicitation" => needs(&["elicitation"]).unwrap_or_else(|| {
            gather(
                answers,
                vec![("user_name", elicit("What is your name?", "name"))],
                |a| text(format!("Hello, {}!", said(&a["user_name"]))),
            )
        }),
        "test_input_required_result_sampling" => needs(&["sampling"]).unwrap_or_else(|| {
            let ask = sample("What is the capital of France?");
            gather(answers, vec![("capital_question", ask)], |a| {
                text(format!("The model said: {}", said(&a["capital_question"])))
            })
        }),
        "test_input_required_result_list_roots" => needs(&["roots"]).unwrap_or_else(|| {
            gather(answers, vec![("client_roots", list_roots())], |a| {
                let roots = a["client_roots"].get("roots").cloned().unwrap_or(json!([]));
                text(format!("The client's roots: {roots}"))
            })
        }),
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            needs(&["elicitation"]).unwrap_or_else(|| {
                let ask = elicit("Please confirm to continue.", "confirm");
                gather(answers, vec![("confirmation", ask)], |_| {
                    text("state-ok: the requestState was verified and the confirmation received")
                })
            })
        }
        "test_input_required_result_multiple_inputs" => {
            needs(&["elicitation", "sampling", "roots"]).unwrap_or_else(|| {
                let wanted = vec![
                    ("user_name", elicit("What is your name?", "name")),
                    ("capital_question", sample("What is the capital of France?")),
                    ("client_roots", list_roots()),
                ];
                gather(answers, wanted, |_| text("all three inputs received"))
            })
        }
        "test_input_required_result_multi_round" => needs(&["elicitation"]).unwrap_or_else(|| {
            if answers.contains_key("step1") {
                let ask = elicit("Step 2: what is your favourite colour?", "colour");
                gather(answers, vec![("step2", ask)], |_| {
                    text("both rounds complete")
                })
            } else {
                Step::Ask(vec![(
                    "step1".to_owned(),
                    elicit("Step 1: what is your name?", "name"),
                )])
            }
        }),
        "test_input_required_result_capabilities" => {
            let mut wanted = Vec::new();
            if has(capabilities, "sampling") {
                wanted.push(("capital_question", sample("What is the capital of France?")));
            }
            if has(capabilities, "elicitation") {
                wanted.push(("user_name", elicit("What is your name?", "name")));
            }
            if wanted.is_empty() {
                Step::Missing(json!({ "sampling": {} }))
            } else {
                gather(answers, wanted, |_| {
                    text("answered by the declared capabilities")
                })
            }
        }
        "test_missing_capability" => needs(&["sampling"]).unwrap_or_else(|| {
            gather(answers, vec![("probe", sample("Say hello."))], |a| {
                text(format!("The model said: {}", said(&a["probe"])))
            })
        }),
        "test_streaming_elicitation" => needs(&["elicitation"]).unwrap_or_else(|| {
            gather(
                answers,
                vec![("confirm", elicit("Continue?", "confirm"))],
                |_| text("confirmed"),
            )
        }),
        "test_custom_header" => Step::Done(text(format!(
            "region: {}",
            arguments
                .get("region")
                .and_then(Value::as_str)
                .unwrap_or_default()
        ))),
        "test_trigger_tool_change" => Step::Done(text("announced: the tool list changed")),
        "test_trigger_prompt_change" => Step::Done(text("announced: the prompt list changed")),
        _ => return None,
    };
    Some(step)
}

/// The step of the fixture prompt `name`, or `None` if no fixture has it.
pub fn get_prompt(name: &str, capabilities: &Value, answers: &Map<String, Value>) -> Option<Step> {
    if name != "test_input_required_result_prompt" {
        return None;
    }
    Some(require(capabilities, &["elicitation"]).unwrap_or_else(|| {
        let ask = elicit("What context should the prompt use?", "context");
        gather(answers, vec![("user_context", ask)], |a| {
            json!({
                "description": "A prompt completed with the context the user gave",
                "messages": [{
                    "role": "user",
                    "content": { "type": "text", "text": format!("Use this context: {}", said(&a["user_context"])) },
                }],
            })
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Value {
        json!({ "sampling": {}, "elicitation": {}, "roots": {} })
    }

    #[test]
    fn elicitation_asks_then_completes() {
        let none = Map::new();
        let Some(Step::Ask(asked)) = call_tool(
            "test_input_required_result_elicitation",
            &json!({}),
            &all(),
            &none,
        ) else {
            panic!("expected input requests");
        };
        assert_eq!(asked[0].0, "user_name");
        let mut answers = Map::new();
        answers.insert(
            "user_name".into(),
            json!({"action": "accept", "content": {"name": "Alice"}}),
        );
        let Some(Step::Done(result)) = call_tool(
            "test_input_required_result_elicitation",
            &json!({}),
            &all(),
            &answers,
        ) else {
            panic!("expected a result");
        };
        assert!(result.to_string().contains("Alice"));
    }

    #[test]
    fn capabilities_choose_the_requests() {
        let only_sampling = json!({ "sampling": {} });
        let Some(Step::Ask(asked)) = call_tool(
            "test_input_required_result_capabilities",
            &json!({}),
            &only_sampling,
            &Map::new(),
        ) else {
            panic!("expected input requests");
        };
        assert!(
            asked
                .iter()
                .all(|(_, r)| r["method"] == "sampling/createMessage")
        );
        assert_eq!(
            call_tool(
                "test_missing_capability",
                &json!({}),
                &json!({}),
                &Map::new()
            ),
            Some(Step::Missing(json!({ "sampling": {} })))
        );
    }

    #[test]
    fn multi_round_asks_one_round_at_a_time() {
        let mut answers = Map::new();
        answers.insert("step1".into(), json!({"action": "accept"}));
        let Some(Step::Ask(asked)) = call_tool(
            "test_input_required_result_multi_round",
            &json!({}),
            &all(),
            &answers,
        ) else {
            panic!("expected a second round");
        };
        assert_eq!(asked[0].0, "step2");
    }

    #[test]
    fn every_listed_tool_has_a_step() {
        for tool in tools() {
            let name = tool["name"].as_str().expect("a name");
            let served =
                call_tool(name, &json!({}), &all(), &Map::new()).is_some() || alias(name).is_some();
            assert!(served, "{name}");
        }
        assert!(call_tool("echo", &json!({}), &all(), &Map::new()).is_none());
    }
}
