//! A test's templates as the runner fills them: `{{var}}` from the hooks'
//! variables, the fixture path and the setup steps' captures; `${NAME}` from
//! the environment the driver hands over. What could not be filled is
//! remembered, for the test's error or warnings.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::template;

/// The templates of one test.
#[derive(Clone, Debug, Default)]
pub struct Templates {
    /// `{{name}}` values.
    pub vars: BTreeMap<String, String>,
    /// `${NAME}` values the run sets (the file's `env`, hooks' values);
    /// also the environment a stdio server gets.
    pub env: BTreeMap<String, String>,
    /// `${NAME}` values read when `env` lacks the name (the process's).
    pub fallback: BTreeMap<String, String>,
    unset_env: Vec<String>,
    undefined: Vec<String>,
}

impl Templates {
    pub fn new(
        vars: BTreeMap<String, String>,
        env: BTreeMap<String, String>,
        fallback: BTreeMap<String, String>,
    ) -> Templates {
        Templates {
            vars,
            env,
            fallback,
            unset_env: Vec::new(),
            undefined: Vec::new(),
        }
    }

    /// The value of environment variable `name`.
    pub fn env_var(&self, name: &str) -> Option<String> {
        self.env
            .get(name)
            .or_else(|| self.fallback.get(name))
            .cloned()
    }

    /// `{{var}}` then `${ENV}`.
    pub fn text(&mut self, s: &str) -> String {
        let vars = &self.vars;
        let (out, missing) = template::substitute(s, &|n| vars.get(n).cloned());
        self.undefined.extend(missing);
        let (out, unset) = template::expand_env(&out, &|n| self.env_var(n));
        self.unset_env.extend(unset);
        out
    }

    /// `{{var}}` only (tool arguments, URIs).
    pub fn vars_only(&mut self, s: &str) -> String {
        let vars = &self.vars;
        let (out, missing) = template::substitute(s, &|n| vars.get(n).cloned());
        self.undefined.extend(missing);
        out
    }

    /// `{{var}}` in every string of `v`.
    pub fn value(&mut self, v: &Value) -> Value {
        let vars = &self.vars;
        let mut missing = Vec::new();
        let out = template::substitute_value(v, &|n| vars.get(n).cloned(), &mut missing);
        self.undefined.extend(missing);
        out
    }

    /// Remember environment variables that were unset (from a value
    /// expanded elsewhere).
    pub fn note_unset(&mut self, names: impl IntoIterator<Item = String>) {
        self.unset_env.extend(names);
    }

    /// The `{{var}}`s used since the last call that had no value, as one
    /// message (`None`: all had one).
    pub fn take_undefined(&mut self) -> Option<String> {
        if self.undefined.is_empty() {
            return None;
        }
        let mut names: Vec<String> = std::mem::take(&mut self.undefined);
        names.sort();
        names.dedup();
        Some(
            names
                .iter()
                .map(|n| {
                    if n == "fixture" {
                        NO_FIXTURE.to_string()
                    } else {
                        format!("`{{{{{n}}}}}` has no value")
                    }
                })
                .collect::<Vec<_>>()
                .join("; "),
        )
    }

    /// One warning per environment variable that was unset when a template
    /// read it.
    pub fn unset_warnings(&self) -> Vec<String> {
        let mut unset = self.unset_env.clone();
        unset.sort();
        unset.dedup();
        unset
            .into_iter()
            .map(|name| {
                format!("environment variable {name} is not set; `${{{name}}}` became empty")
            })
            .collect()
    }
}

/// The error of a test that uses `{{fixture}}` in a run without one.
pub const NO_FIXTURE: &str = "`{{fixture}}` is used but no --fixture directory was given";
