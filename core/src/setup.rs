//! What a `setup` step's answer means for its test.
//!
//! The runner sends each step and hands the answer here; this decides
//! whether the test goes on (with a warning, and with the variables the step
//! captures), fails, or ends as an error. The rules (see `shared/COMPAT.md`):
//! a result with `isError: true` does not fail the test (a warning says so); a
//! JSON-RPC error fails it; a transport failure, an undefined template or a
//! capture path that selects nothing is an error of the test.

use serde_json::Value;

use crate::observation::{self, Method};
use crate::suite::SetupCall;
use crate::value::{plain, truncate};

/// How a test that did not reach its checks ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The test fails with this message.
    Fail(String),
    /// The test ends as `error` with this message.
    Error(String),
}

impl Ending {
    pub fn message(&self) -> &str {
        match self {
            Ending::Fail(m) | Ending::Error(m) => m,
        }
    }
}

/// The answer to a setup step, as the runner got it.
#[derive(Clone, Copy, Debug)]
pub enum StepAnswer<'a> {
    /// No answer: the transport failed or the time ran out.
    Failure(&'a str),
    /// A JSON-RPC error object.
    Error(&'a Value),
    /// A result.
    Result(&'a Value),
}

/// What the test does after a setup step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepOutcome {
    /// A warning for the test, if any.
    pub warning: Option<String>,
    /// Template variables the step captured, in the order written.
    pub captured: Vec<(String, String)>,
}

fn label(index: usize, step: &SetupCall) -> String {
    format!("setup step {} (`{}`)", index + 1, step.tool)
}

/// An undefined template in step `index`'s arguments ends the test.
pub fn undefined(index: usize, step: &SetupCall, message: &str) -> Ending {
    Ending::Error(format!("{}: {message}", label(index, step)))
}

/// Judge the answer to step `index` (0-based).
pub fn judge(
    index: usize,
    step: &SetupCall,
    answer: StepAnswer<'_>,
) -> Result<StepOutcome, Ending> {
    let result = match answer {
        StepAnswer::Failure(f) => {
            return Err(Ending::Error(format!("{}: {f}", label(index, step))));
        }
        StepAnswer::Error(err) => {
            return Err(Ending::Fail(format!(
                "{} failed with JSON-RPC error {}: {}",
                label(index, step),
                err.get("code").map(plain).unwrap_or_default(),
                err.get("message").map(plain).unwrap_or_default()
            )));
        }
        StepAnswer::Result(r) => r,
    };
    let text = observation::text_view(&Method::ToolsCall, result);
    let warning = (result.get("isError") == Some(&Value::Bool(true))).then(|| {
        format!(
            "{} returned isError: {}",
            label(index, step),
            truncate(&text, 200)
        )
    });
    let mut captured = Vec::new();
    if !step.capture.is_empty() {
        let parsed = observation::parse_text_json(&text).unwrap_or(Value::Null);
        // Where the text (as JSON) has nothing at the path, the result's
        // structuredContent is read.
        let structured = result.get("structuredContent").unwrap_or(&Value::Null);
        for (var, path) in &step.capture {
            let Some(v) = path.first(&parsed).or_else(|| path.first(structured)) else {
                return Err(Ending::Error(format!(
                    "{}: capture `{var}`: nothing at {} in the result {}",
                    label(index, step),
                    path.as_str(),
                    truncate(&text, 200)
                )));
            };
            captured.push((var.clone(), plain(v)));
        }
    }
    Ok(StepOutcome { warning, captured })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;
    use crate::path::Path;
    use serde_json::json;

    fn step(capture: &[(&str, &str)]) -> SetupCall {
        SetupCall {
            tool: "create".into(),
            args: json!({}),
            capture: capture
                .iter()
                .map(|(v, p)| {
                    (
                        (*v).to_string(),
                        Path::parse(p).unwrap_or_else(|e| panic!("{e}")),
                    )
                })
                .collect(),
            span: Span::none(),
        }
    }

    #[test]
    fn an_is_error_result_goes_on_with_a_warning_and_captures() {
        let r = json!({"content": [{"type": "text", "text": "{\"id\": 7}"}], "isError": true});
        let out = judge(1, &step(&[("id", "$.id")]), StepAnswer::Result(&r));
        assert_eq!(
            out,
            Ok(StepOutcome {
                warning: Some("setup step 2 (`create`) returned isError: {\"id\": 7}".into()),
                captured: vec![("id".into(), "7".into())],
            })
        );
    }

    #[test]
    fn a_json_rpc_error_fails_and_a_transport_failure_is_an_error() {
        let e = json!({"code": -32602, "message": "bad"});
        assert_eq!(
            judge(0, &step(&[]), StepAnswer::Error(&e)),
            Err(Ending::Fail(
                "setup step 1 (`create`) failed with JSON-RPC error -32602: bad".into()
            ))
        );
        assert_eq!(
            judge(0, &step(&[]), StepAnswer::Failure("timed out")),
            Err(Ending::Error("setup step 1 (`create`): timed out".into()))
        );
    }

    #[test]
    fn a_capture_reads_structured_content_where_the_text_has_nothing() {
        let r = json!({"content": [{"type": "text", "text": "Created note n1"}],
                       "structuredContent": {"note": {"id": "n1"}}});
        let out = judge(0, &step(&[("id", "$.note.id")]), StepAnswer::Result(&r));
        assert_eq!(
            out.map(|o| o.captured),
            Ok(vec![("id".to_string(), "n1".to_string())])
        );
    }

    #[test]
    fn a_capture_that_selects_nothing_is_an_error() {
        let r = json!({"content": [{"type": "text", "text": "{}"}]});
        let out = judge(0, &step(&[("id", "$.id")]), StepAnswer::Result(&r));
        assert_eq!(
            out,
            Err(Ending::Error(
                "setup step 1 (`create`): capture `id`: nothing at $.id in the result {}".into()
            ))
        );
    }
}
