//! The client's side of a test: the capabilities it declares and what it
//! answers when the server asks it something (`sampling/createMessage`,
//! `elicitation/create`, `roots/list`), whether the server asks with a
//! request (protocol revisions with `initialize`) or inside an
//! input-required result (2026-07-28). The answers are written in the suite
//! (`server.client_capabilities`, an `assert_sampling` block's mock); every
//! driver gives the same ones.

use serde_json::{Map, Value, json};

use crate::suite::{Action, Server};

use super::Templates;

/// A mock answer to `elicitation/create`.
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitAnswer {
    pub action: String,
    /// The form's content, templates expanded.
    pub content: Value,
    /// Accept with each requested property's `default` instead of `content`.
    pub defaults: bool,
}

/// The answers a test's client gives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mocks {
    /// The roots, as paths or URIs (templates expanded).
    pub roots: Option<Vec<String>>,
    /// Sampling: text, model, stop reason.
    pub sampling: Option<(String, String, String)>,
    pub elicitation: Option<ElicitAnswer>,
    /// The extensions the client declares: identifier → settings.
    pub extensions: Option<Map<String, Value>>,
}

/// Why a request of the server to the client has no answer from the mocks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MockError {
    #[error(
        "the server asked for `{0}`, which mcpcheck cannot answer (it answers elicitation/create, sampling/createMessage and roots/list)"
    )]
    Unanswerable(String),
    /// `what` is the capability (elicitation, sampling, roots).
    #[error(
        "the server asked for `{method}` but this test configured no {what} answer (set server.client_capabilities.{what})"
    )]
    NotConfigured { method: String, what: &'static str },
    #[error("its `inputRequests` is not an object")]
    NotObject,
    #[error("input request `{0}` has no string `method`")]
    NoMethod(String),
    #[error("input request `{key}`: {why}")]
    Request { key: String, why: Box<MockError> },
}

impl Mocks {
    /// The answers `server` declares (none without a server: a test run
    /// on a client it was given), with an `assert_sampling` block's mock in
    /// place of the server's own sampling answer.
    pub fn for_test(server: Option<&Server>, action: &Action, t: &mut Templates) -> Mocks {
        let mut mocks = match server {
            Some(server) => Self::declared(server, t),
            None => Mocks::default(),
        };
        if let Action::Sampling { mock, .. } = action {
            mocks.sampling = Some((
                mock.text.clone(),
                mock.model.clone(),
                mock.stop_reason.clone(),
            ));
        }
        // A task block calls its tool as a task: the client declares the
        // tasks extension.
        if let Action::Extension(crate::suite::ExtensionOp::Task { .. }) = action {
            mocks
                .extensions
                .get_or_insert_with(Map::new)
                .entry("io.modelcontextprotocol/tasks")
                .or_insert_with(|| json!({}));
        }
        mocks
    }

    /// The answers a server block's `client_capabilities` declare.
    fn declared(server: &Server, t: &mut Templates) -> Mocks {
        let caps = &server.client;
        Mocks {
            roots: caps
                .roots
                .as_ref()
                .map(|r| r.iter().map(|p| t.text(p)).collect()),
            sampling: caps
                .sampling
                .as_ref()
                .map(|s| (s.text.clone(), s.model.clone(), s.stop_reason.clone())),
            elicitation: caps.elicitation.as_ref().map(|e| ElicitAnswer {
                action: e.action.clone(),
                content: t.value(&e.content),
                defaults: e.defaults,
            }),
            extensions: caps.extensions.clone(),
        }
    }

    /// The client capabilities these answers stand for.
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.roots.is_some() {
            caps.insert("roots".into(), json!({"listChanged": false}));
        }
        if self.sampling.is_some() {
            caps.insert("sampling".into(), json!({}));
        }
        if self.elicitation.is_some() {
            caps.insert("elicitation".into(), json!({}));
        }
        if let Some(extensions) = &self.extensions {
            caps.insert("extensions".into(), Value::Object(extensions.clone()));
        }
        Value::Object(caps)
    }

    /// The `roots/list` result.
    pub fn roots_result(&self) -> Option<Value> {
        let paths = self.roots.as_ref()?;
        let list: Vec<Value> = paths
            .iter()
            .map(|p| {
                let name = p
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .filter(|n| !n.is_empty())
                    .unwrap_or(p);
                let uri = if p.contains("://") {
                    p.clone()
                } else {
                    format!("file://{p}")
                };
                json!({"uri": uri, "name": name})
            })
            .collect();
        Some(json!({ "roots": list }))
    }

    /// The `sampling/createMessage` result.
    pub fn sampling_result(&self) -> Option<Value> {
        self.sampling.as_ref().map(|(text, model, stop)| {
            json!({
                "role": "assistant",
                "content": {"type": "text", "text": text},
                "model": model,
                "stopReason": stop
            })
        })
    }

    /// The `elicitation/create` result for a request with `params`.
    pub fn elicit_result(&self, params: &Value) -> Option<Value> {
        let e = self.elicitation.as_ref()?;
        if e.defaults {
            let mut content = Map::new();
            if let Some(props) = params
                .pointer("/requestedSchema/properties")
                .and_then(Value::as_object)
            {
                for (name, schema) in props {
                    if let Some(default) = schema.get("default") {
                        content.insert(name.clone(), default.clone());
                    }
                }
            }
            return Some(json!({"action": "accept", "content": content}));
        }
        Some(if e.action == "accept" {
            json!({"action": e.action, "content": e.content})
        } else {
            json!({"action": e.action})
        })
    }

    /// The answer to the server's `method` request, or why there is none.
    pub fn answer(&self, method: &str, params: &Value) -> Result<Value, MockError> {
        let (answer, what) = match method {
            "elicitation/create" => (self.elicit_result(params), "elicitation"),
            "sampling/createMessage" => (self.sampling_result(), "sampling"),
            "roots/list" => (self.roots_result(), "roots"),
            other => return Err(MockError::Unanswerable(other.to_string())),
        };
        answer.ok_or_else(|| MockError::NotConfigured {
            method: method.to_string(),
            what,
        })
    }

    /// The params of the request that answers an input-required `result`
    /// to a request first sent with `first`: the same params, each input
    /// request answered from these mocks in `inputResponses`, and the
    /// server's `requestState` sent back as it came. A later round replaces
    /// the earlier round's answers and state.
    pub fn input_retry(&self, first: Option<&Value>, result: &Value) -> Result<Value, MockError> {
        let mut params = match first {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        params.remove("inputResponses");
        params.remove("requestState");
        let mut responses = Map::new();
        if let Some(requests) = result.get("inputRequests") {
            let Some(requests) = requests.as_object() else {
                return Err(MockError::NotObject);
            };
            for (key, request) in requests {
                let method = request
                    .get("method")
                    .and_then(Value::as_str)
                    .ok_or_else(|| MockError::NoMethod(key.clone()))?;
                let params = request.get("params").cloned().unwrap_or(Value::Null);
                let answer = self
                    .answer(method, &params)
                    .map_err(|why| MockError::Request {
                        key: key.clone(),
                        why: Box::new(why),
                    })?;
                responses.insert(key.clone(), answer);
            }
        }
        if !responses.is_empty() {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        if let Some(state) = result.get("requestState") {
            params.insert("requestState".into(), state.clone());
        }
        Ok(Value::Object(params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mocks(elicitation: Option<ElicitAnswer>) -> Mocks {
        Mocks {
            roots: Some(vec!["/srv".into()]),
            sampling: None,
            elicitation,
            extensions: None,
        }
    }

    #[test]
    fn a_retry_carries_the_first_params_the_answers_and_the_state_as_sent() {
        let mocks = mocks(Some(ElicitAnswer {
            action: "accept".into(),
            content: json!({"name": "Ada"}),
            defaults: false,
        }));
        let first = json!({"name": "greet", "arguments": {"x": 1}});
        let result = json!({"resultType": "input_required", "requestState": "opaque",
            "inputRequests": {
                "who": {"method": "elicitation/create", "params": {"message": "?"}},
                "where": {"method": "roots/list"}}});
        let next = mocks.input_retry(Some(&first), &result).expect("answered");
        assert_eq!(next["name"], "greet");
        assert_eq!(next["arguments"], json!({"x": 1}));
        assert_eq!(next["requestState"], "opaque");
        assert_eq!(
            next["inputResponses"]["who"],
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
        assert_eq!(
            next["inputResponses"]["where"]["roots"][0]["uri"],
            "file:///srv"
        );

        // A later round replaces the earlier round's answers and state, and
        // sends no state when the server sent none.
        let again = json!({"resultType": "input_required",
            "inputRequests": {"where": {"method": "roots/list"}}});
        let third = mocks.input_retry(Some(&next), &again).expect("answered");
        assert!(third.get("requestState").is_none(), "{third}");
        assert_eq!(
            third["inputResponses"].as_object().map(|m| m.len()),
            Some(1)
        );
    }

    #[test]
    fn an_input_request_without_a_mock_says_which_mock_to_add() {
        let mocks = mocks(None);
        let result = json!({"resultType": "input_required",
            "inputRequests": {"q": {"method": "sampling/createMessage", "params": {}}}});
        let err = mocks
            .input_retry(None, &result)
            .expect_err("no sampling mock")
            .to_string();
        assert!(
            err.contains("input request `q`") && err.contains("client_capabilities.sampling"),
            "{err}"
        );
        let odd = json!({"inputRequests": {"q": {"method": "tasks/get"}}});
        let err = mocks
            .input_retry(None, &odd)
            .expect_err("not answerable")
            .to_string();
        assert!(err.contains("`tasks/get`"), "{err}");
    }

    #[test]
    fn elicitation_defaults_accepts_with_the_schema_defaults() {
        let mocks = mocks(Some(ElicitAnswer {
            action: "accept".into(),
            content: json!({}),
            defaults: true,
        }));
        let params = json!({"message": "?", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "verified": {"type": "boolean", "default": true},
            "nick": {"type": "string"}}}});
        assert_eq!(
            mocks
                .answer("elicitation/create", &params)
                .expect("an answer"),
            json!({"action": "accept", "content": {"name": "John Doe", "verified": true}})
        );
    }
}
