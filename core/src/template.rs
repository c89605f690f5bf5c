//! Templates in suite values: `{{fixture}}`, `{{var}}` and `${ENV}`.
//!
//! * `{{name}}` is replaced by a variable: `fixture` (the per-test copy of the
//!   fixture directory) or a value captured by an earlier setup step or
//!   injected by a context hook. Whitespace inside the braces is allowed.
//! * `${NAME}` is replaced by an environment variable (mcp-assert expands it in
//!   `server.env` and `server.headers`; mcpcheck also does in `url` and
//!   `args`). An unset variable becomes the empty string, as in mcp-assert,
//!   and the caller is told which were unset.
//!
//! Values come from the caller through closures: core reads no environment.

use serde_json::Value;

/// The `{{name}}` references in a string, in order (names trimmed).
pub fn vars_in(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let name = after[..end].trim();
                if !name.is_empty() {
                    out.push(name.to_string());
                }
                rest = &after[end + 2..];
            }
            None => break,
        }
    }
    out
}

/// Every `{{name}}` reference in a JSON value's strings (keys included).
pub fn vars_in_value(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.extend(vars_in(s)),
        Value::Array(a) => a.iter().for_each(|x| vars_in_value(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.extend(vars_in(k));
                vars_in_value(x, out);
            }
        }
        _ => {}
    }
}

/// Replace `{{name}}` using `lookup`; unknown names are left as written and
/// returned.
pub fn substitute(s: &str, lookup: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(s.len());
    let mut missing = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let name = after[..end].trim();
                match lookup(name) {
                    Some(v) => out.push_str(&v),
                    None => {
                        missing.push(name.to_string());
                        out.push_str(&rest[start..start + 2 + end + 2]);
                    }
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    (out, missing)
}

/// Substitute `{{name}}` in every string (and key) of a JSON value; names
/// with no value are left as written and pushed to `missing`.
pub fn substitute_value(
    v: &Value,
    lookup: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
) -> Value {
    match v {
        Value::String(s) => {
            let (out, m) = substitute(s, lookup);
            missing.extend(m);
            Value::String(out)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| substitute_value(x, lookup, missing))
                .collect(),
        ),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let (key, m) = substitute(k, lookup);
                    missing.extend(m);
                    (key, substitute_value(x, lookup, missing))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Expand `${NAME}` (and `$NAME` is left alone) using `env`; returns the
/// text and the names that were unset.
pub fn expand_env(s: &str, env: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(s.len());
    let mut unset = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                let valid =
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if valid {
                    match env(name) {
                        Some(v) => out.push_str(&v),
                        None => unset.push(name.to_string()),
                    }
                } else {
                    out.push_str(&rest[start..start + 2 + end + 1]);
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    (out, unset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_and_substitutes_vars() {
        assert_eq!(vars_in("{{fixture}}/a/{{ id }}"), ["fixture", "id"]);
        let lookup = |n: &str| match n {
            "fixture" => Some("/tmp/f".to_string()),
            _ => None,
        };
        let (s, missing) = substitute("{{fixture}}/x/{{nope}}", &lookup);
        assert_eq!(s, "/tmp/f/x/{{nope}}");
        assert_eq!(missing, ["nope"]);
        let mut m = Vec::new();
        let v = substitute_value(&json!({"p": "{{fixture}}", "n": 3}), &lookup, &mut m);
        assert_eq!(v, json!({"p": "/tmp/f", "n": 3}));
    }

    #[test]
    fn expands_env_and_reports_unset() {
        let env = |n: &str| (n == "HOME").then(|| "/root".to_string());
        let (s, unset) = expand_env("${HOME}/x ${NOPE} $PLAIN ${}", &env);
        assert_eq!(s, "/root/x  $PLAIN ${}");
        assert_eq!(unset, ["NOPE"]);
    }
}
