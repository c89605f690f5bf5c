//! The Streamable HTTP headers of 2026-07-28 that mirror a request's body
//! (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-{Name}`), and the `x-mcp-header`
//! annotations of tool schemas that ask for the last kind: what INV-047 and
//! INV-048 compare a recorded request's headers with.
//!
//! Header values may come in the Base64 sentinel form `=?base64?…?=`, which is
//! decoded before comparing (basic/transports/streamable-http §Value Encoding).

use serde_json::Value;

/// `Mcp-Method`, as recorded (lowercase).
pub(crate) const METHOD: &str = "mcp-method";
/// `Mcp-Name`, as recorded (lowercase).
pub(crate) const NAME: &str = "mcp-name";
/// The prefix of `Mcp-Param-{Name}`, as recorded (lowercase).
pub(crate) const PARAM_PREFIX: &str = "mcp-param-";

/// A header value with the Base64 sentinel form decoded; `None` when the
/// sentinel's content is not Base64 of UTF-8 text.
pub(crate) fn decode(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => data_encoding::BASE64
            .decode(encoded.as_bytes())
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_string()),
    }
}

/// The body value `Mcp-Name` mirrors for `method`: `Some(None)` when the
/// method has one and the body lacks it, `None` when the method has none.
pub(crate) fn named(method: &str, params: Option<&Value>) -> Option<Option<String>> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        // The tasks extension routes by task (SEP-2663).
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    Some(
        params
            .and_then(|p| p.get(field))
            .and_then(Value::as_str)
            .map(str::to_string),
    )
}

/// Why the recorded `Mcp-Method` and `Mcp-Name` headers do not mirror the
/// body of a request of `method` with `params`, if they do not.
/// `header` looks a recorded header up by its lowercase name.
pub(crate) fn routing_mismatch<'h>(
    method: &str,
    params: Option<&Value>,
    header: impl Fn(&str) -> Option<&'h str>,
) -> Option<String> {
    match header(METHOD) {
        None => return Some("was sent without the Mcp-Method header".to_string()),
        Some(given) if given != method => {
            return Some(format!(
                "was sent with Mcp-Method {given:?}, which is not its method"
            ));
        }
        Some(_) => {}
    }
    let expected = named(method, params)?;
    match (header(NAME), expected) {
        (None, _) => Some("was sent without the Mcp-Name header".to_string()),
        (Some(given), expected) => match decode(given) {
            None => Some(format!(
                "was sent with Mcp-Name {given:?}, whose Base64 form does not decode"
            )),
            Some(decoded) if Some(&decoded) == expected.as_ref() => None,
            Some(decoded) => Some(format!(
                "was sent with Mcp-Name {decoded:?} but names {} in its body",
                expected.map_or_else(|| "nothing".to_string(), |e| format!("{e:?}"))
            )),
        },
    }
}

/// One `x-mcp-header` annotation of a tool's input schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mirrored {
    /// The chain of `properties` keys from the schema root to the parameter.
    pub(crate) path: Vec<String>,
    /// The header name's suffix, `Region` for `Mcp-Param-Region`.
    pub(crate) name: String,
    /// Whether the parameter is an integer (compared numerically).
    pub(crate) integer: bool,
}

/// The `x-mcp-header` annotations of `schema` that hold, and why each of the
/// others does not (their locations in the schema, as JSON pointers).
pub(crate) fn annotations(schema: &Value) -> (Vec<Mirrored>, Vec<String>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    walk(schema, &mut Vec::new(), true, &mut found, &mut problems);
    let mut seen: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    for m in found {
        let lower = m.name.to_ascii_lowercase();
        if seen.contains(&lower) {
            problems.push(format!(
                "x-mcp-header {:?} (at /{}) repeats a name already used in the schema (names are unique, case-insensitively)",
                m.name,
                pointer(&m.path)
            ));
        } else {
            seen.push(lower);
            kept.push(m);
        }
    }
    (kept, problems)
}

fn pointer(path: &[String]) -> String {
    path.iter()
        .map(|p| format!("properties/{}", p.replace('~', "~0").replace('/', "~1")))
        .collect::<Vec<_>>()
        .join("/")
}

/// Schema keywords whose value is one subschema.
const ONE: [&str; 11] = [
    "items",
    "additionalProperties",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Schema keywords whose value is a list of subschemas.
const LIST: [&str; 5] = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Schema keywords whose value maps names to subschemas.
const MAP: [&str; 5] = [
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
];

/// Visits every subschema of `schema`; `reachable` says whether the path
/// from the root went through `properties` keys only (kept in `path`).
fn walk(
    schema: &Value,
    path: &mut Vec<String>,
    reachable: bool,
    found: &mut Vec<Mirrored>,
    problems: &mut Vec<String>,
) {
    let Some(object) = schema.as_object() else {
        return;
    };
    if let Some(annotation) = object.get("x-mcp-header") {
        let at = if reachable {
            format!("/{}", pointer(path))
        } else {
            "a subschema".to_string()
        };
        match check(annotation, schema, reachable) {
            Ok((name, integer)) => found.push(Mirrored {
                path: path.clone(),
                name,
                integer,
            }),
            Err(why) => problems.push(format!("x-mcp-header {annotation} (at {at}) {why}")),
        }
    }
    if let Some(properties) = object.get("properties").and_then(Value::as_object) {
        for (key, sub) in properties {
            path.push(key.clone());
            walk(sub, path, reachable, found, problems);
            path.pop();
        }
    }
    for key in ONE {
        if let Some(sub) = object.get(key).filter(|v| v.is_object()) {
            walk(sub, &mut Vec::new(), false, found, problems);
        }
    }
    for key in LIST {
        if let Some(list) = object.get(key).and_then(Value::as_array) {
            for sub in list {
                walk(sub, &mut Vec::new(), false, found, problems);
            }
        }
    }
    for key in MAP {
        if let Some(map) = object.get(key).and_then(Value::as_object) {
            for sub in map.values() {
                walk(sub, &mut Vec::new(), false, found, problems);
            }
        }
    }
}

/// Whether `c` is an RFC 9110 `tchar`.
fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// Why an `x-mcp-header` annotation is invalid; the message follows
/// "x-mcp-header NAME (at PATH)".
#[derive(Debug, thiserror::Error)]
enum AnnotationError {
    #[error("is not a string")]
    NotString,
    #[error("is empty")]
    Empty,
    #[error("is not an HTTP field-name token (letters, digits and !#$%&'*+-.^_`|~ only)")]
    NotToken,
    #[error("is not on a property reached from the schema root through `properties` alone")]
    Unreachable,
    /// `types` are the declared ones, `or`-joined, or "(none declared)".
    #[error("is on a parameter of type {types}, not one of string, integer or boolean")]
    Type { types: String },
}

/// The annotation's name and whether its parameter is an integer, or why the
/// annotation is invalid.
fn check(
    annotation: &Value,
    schema: &Value,
    reachable: bool,
) -> Result<(String, bool), AnnotationError> {
    let Some(name) = annotation.as_str() else {
        return Err(AnnotationError::NotString);
    };
    if name.is_empty() {
        return Err(AnnotationError::Empty);
    }
    if !name.bytes().all(is_tchar) {
        return Err(AnnotationError::NotToken);
    }
    if !reachable {
        return Err(AnnotationError::Unreachable);
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let primitive: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
    if primitive.len() != 1 || !matches!(primitive[0], "string" | "integer" | "boolean") {
        return Err(AnnotationError::Type {
            types: if types.is_empty() {
                "(none declared)".to_string()
            } else {
                types.join(" or ")
            },
        });
    }
    Ok((name.to_string(), primitive[0] == "integer"))
}

/// The header value a client sends for `value`: strings as they are, integers
/// in decimal, booleans in lowercase; `None` for null (no header).
fn header_form(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The `Mcp-Param-{Name}` headers a client sends with a tools/call of a tool
/// whose input schema is `schema`, with `arguments`: for each annotation that
/// holds and each argument given (not null), the header's name in lowercase
/// and its value before the Base64 form (strings as they are, integers in
/// decimal, booleans in lowercase).
pub fn param_headers(schema: &Value, arguments: &Value) -> Vec<(String, String)> {
    annotations(schema)
        .0
        .iter()
        .filter_map(|m| {
            let value = m
                .path
                .iter()
                .try_fold(arguments, |v, key| v.get(key))
                .and_then(header_form)?;
            Some((
                format!("{PARAM_PREFIX}{}", m.name.to_ascii_lowercase()),
                value,
            ))
        })
        .collect()
}

/// Why the recorded `Mcp-Param-*` headers of a tools/call do not mirror its
/// `arguments` as the tool's `mirrored` annotations ask, if they do not.
pub(crate) fn param_mismatch<'h>(
    mirrored: &[Mirrored],
    arguments: Option<&Value>,
    header: impl Fn(&str) -> Option<&'h str>,
) -> Option<String> {
    for m in mirrored {
        let value = m
            .path
            .iter()
            .try_fold(arguments?, |v, key| v.get(key))
            .and_then(header_form);
        let given = header(&format!("{PARAM_PREFIX}{}", m.name.to_ascii_lowercase()));
        match (value, given) {
            (None, None) => {}
            (Some(v), None) => {
                return Some(format!(
                    "was sent without the Mcp-Param-{} header, though its argument is {v:?}",
                    m.name
                ));
            }
            (None, Some(g)) => {
                return Some(format!(
                    "was sent with Mcp-Param-{} {g:?}, though the argument is not given",
                    m.name
                ));
            }
            (Some(v), Some(g)) => {
                let Some(decoded) = decode(g) else {
                    return Some(format!(
                        "was sent with Mcp-Param-{} {g:?}, whose Base64 form does not decode",
                        m.name
                    ));
                };
                let same = if m.integer {
                    decoded.trim().parse::<f64>().ok() == v.parse::<f64>().ok()
                } else {
                    decoded == v
                };
                if !same {
                    return Some(format!(
                        "was sent with Mcp-Param-{} {decoded:?}, but its argument is {v:?}",
                        m.name
                    ));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn annotations_hold_only_on_reachable_primitives_with_token_names() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
                "deep": {"type": "object", "properties": {"flag": {"type": "boolean", "x-mcp-header": "Flag"}}},
                "ratio": {"type": "number", "x-mcp-header": "Ratio"},
                "bad": {"type": "string", "x-mcp-header": "Bad Name"},
                "again": {"type": "string", "x-mcp-header": "region"},
                "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}
            }
        });
        let (kept, problems) = annotations(&schema);
        // Properties are visited in name order: `again` comes first, so `region`
        // is the repeat.
        let names: Vec<&str> = kept.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["region", "Flag", "N"]);
        assert_eq!(kept[1].path, ["deep", "flag"]);
        assert!(kept[2].integer);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"Ratio\"") && p.contains("number"))
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"Bad Name\"") && p.contains("token"))
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"Item\"") && p.contains("`properties` alone"))
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"Region\"") && p.contains("repeats"))
        );
    }

    #[test]
    fn param_headers_mirror_present_arguments_decoded_and_integers_by_value() {
        let (mirrored, _) = annotations(&json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"}}}));
        let headers = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        };
        let args = json!({"region": "Hello", "n": 42});
        assert_eq!(
            param_mismatch(
                &mirrored,
                Some(&args),
                headers(&[
                    ("mcp-param-region", "=?base64?SGVsbG8=?="),
                    ("mcp-param-n", "42.0")
                ])
            ),
            None
        );
        let missing = param_mismatch(&mirrored, Some(&args), headers(&[("mcp-param-n", "42")]));
        assert!(missing.is_some_and(|m| m.contains("without the Mcp-Param-Region")));
        let differs = param_mismatch(
            &mirrored,
            Some(&args),
            headers(&[("mcp-param-region", "eu"), ("mcp-param-n", "42")]),
        );
        assert!(differs.is_some_and(|m| m.contains("\"eu\"")));
        assert_eq!(
            param_mismatch(&mirrored, Some(&json!({})), headers(&[])),
            None
        );
    }

    #[test]
    fn routing_headers_mirror_method_and_name() {
        let params = json!({"name": "echo"});
        let h = |m: Option<&'static str>, n: Option<&'static str>| {
            move |name: &str| match name {
                METHOD => m,
                NAME => n,
                _ => None,
            }
        };
        assert_eq!(
            routing_mismatch(
                "tools/call",
                Some(&params),
                h(Some("tools/call"), Some("echo"))
            ),
            None
        );
        assert_eq!(
            routing_mismatch(
                "tools/call",
                Some(&params),
                h(Some("tools/call"), Some("=?base64?ZWNobw==?="))
            ),
            None
        );
        assert!(routing_mismatch("tools/call", Some(&params), h(None, Some("echo"))).is_some());
        assert!(
            routing_mismatch(
                "tools/call",
                Some(&params),
                h(Some("tools/list"), Some("echo"))
            )
            .is_some()
        );
        assert!(
            routing_mismatch(
                "tools/call",
                Some(&params),
                h(Some("tools/call"), Some("other"))
            )
            .is_some()
        );
        assert!(
            routing_mismatch("tools/call", Some(&params), h(Some("tools/call"), None)).is_some()
        );
        assert_eq!(
            routing_mismatch("tools/list", None, h(Some("tools/list"), None)),
            None
        );
    }
}
