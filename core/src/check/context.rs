//! What one evaluation looks at.

use serde_json::Value;

use super::model::Facts;
use crate::path::{Found, Path};

/// What one evaluation looks at: the Observation, the caller's facts, and
/// the result text parsed as JSON, computed at most once however many checks
/// ask for it.
pub struct EvalCx<'a> {
    pub obs: &'a Value,
    pub facts: &'a Facts,
    text_json: std::cell::OnceCell<Option<Value>>,
}

impl<'a> EvalCx<'a> {
    pub fn new(obs: &'a Value, facts: &'a Facts) -> Self {
        EvalCx {
            obs,
            facts,
            text_json: std::cell::OnceCell::new(),
        }
    }

    /// The result text parsed as JSON (whole, or its first JSON line). When
    /// the result has no `structuredContent`, the Observation's `json` is
    /// exactly that, so it is reused rather than parsed again.
    pub(super) fn text_json(&self) -> Option<&Value> {
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

impl<'a> EvalCx<'a> {
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
