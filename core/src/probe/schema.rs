//! Reading input schemas: local `$ref`s followed, `allOf` merged, the type a
//! schema stands for, and a compiled validator for the verdicts.

use serde_json::{Map, Value};

/// How many `$ref`s are followed in a row before giving up (a cycle).
const MAX_REF_HOPS: usize = 16;

/// A schema with its local `$ref` followed (siblings of `$ref` kept over
/// the target's keys) and its `allOf` branches merged in: `properties` and
/// `required` are united, any other keyword of a later branch wins. Not a
/// schema object (`true`, `false`, nonsense): an empty object.
pub(crate) fn resolve(schema: &Value, root: &Value) -> Map<String, Value> {
    resolve_at(schema, root, 0)
}

fn resolve_at(schema: &Value, root: &Value, hops: usize) -> Map<String, Value> {
    let Some(obj) = schema.as_object() else {
        return Map::new();
    };
    let mut out = match obj.get("$ref").and_then(Value::as_str) {
        Some(r) if hops < MAX_REF_HOPS => match local_target(r, root) {
            Some(target) => {
                let mut base = resolve_at(target, root, hops + 1);
                for (k, v) in obj {
                    if k != "$ref" {
                        base.insert(k.clone(), v.clone());
                    }
                }
                base
            }
            None => without(obj, "$ref"),
        },
        Some(_) => without(obj, "$ref"),
        None => obj.clone(),
    };
    if let Some(Value::Array(branches)) = out.remove("allOf") {
        for b in &branches {
            let b = resolve_at(b, root, hops + 1);
            merge_into(&mut out, b);
        }
    }
    out
}

fn without(obj: &Map<String, Value>, key: &str) -> Map<String, Value> {
    let mut m = obj.clone();
    m.remove(key);
    m
}

/// The target of a local reference (`#`, `#/$defs/x`, `#/definitions/x`,
/// any JSON pointer into the root).
fn local_target<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    // A pointer's tokens may be percent-encoded in a URI fragment.
    let decoded = percent_decode(pointer);
    root.pointer(&decoded)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes.get(i), bytes.get(i + 1), bytes.get(i + 2)) {
            (Some(b'%'), Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                let v = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                out.push(v as u8);
                i += 3;
            }
            (Some(&b), _, _) => {
                out.push(b);
                i += 1;
            }
            _ => break,
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

fn merge_into(out: &mut Map<String, Value>, branch: Map<String, Value>) {
    for (k, v) in branch {
        match (k.as_str(), out.get_mut(&k), v) {
            ("properties", Some(Value::Object(have)), Value::Object(add)) => {
                for (name, s) in add {
                    have.entry(name).or_insert(s);
                }
            }
            ("required", Some(Value::Array(have)), Value::Array(add)) => {
                for name in add {
                    if !have.contains(&name) {
                        have.push(name);
                    }
                }
            }
            (_, _, v) => {
                out.insert(k, v);
            }
        }
    }
}

/// The JSON type a (resolved) schema stands for: its `type` (the first
/// other than `null` of a list), else what its keywords imply, else the type
/// of its first `enum` value or its `const`.
pub(crate) fn type_of(obj: &Map<String, Value>) -> Option<&'static str> {
    match obj.get("type") {
        Some(Value::String(t)) => return known(t),
        Some(Value::Array(types)) => {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let pick = names.iter().find(|t| **t != "null").or(names.first());
            return pick.and_then(|t| known(t));
        }
        _ => {}
    }
    let has = |keys: &[&str]| keys.iter().any(|k| obj.contains_key(*k));
    if has(&[
        "properties",
        "additionalProperties",
        "required",
        "patternProperties",
    ]) {
        return Some("object");
    }
    if has(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]) {
        return Some("array");
    }
    if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        return Some("number");
    }
    if has(&["minLength", "maxLength", "pattern", "format"]) {
        return Some("string");
    }
    let sample = obj.get("const").or_else(|| {
        obj.get("enum")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
    })?;
    Some(json_type(sample))
}

fn known(t: &str) -> Option<&'static str> {
    Some(match t {
        "string" => "string",
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        "array" => "array",
        "object" => "object",
        "null" => "null",
        _ => return None,
    })
}

/// The JSON Schema type name of a value (`integer` for whole numbers).
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The first branch of `anyOf`/`oneOf` that can hold a value: not `false`,
/// not only `null` (unless every branch is), resolved.
pub(crate) fn first_branch(obj: &Map<String, Value>, root: &Value) -> Option<Map<String, Value>> {
    let branches = obj
        .get("anyOf")
        .or_else(|| obj.get("oneOf"))
        .and_then(Value::as_array)?;
    let resolved: Vec<Map<String, Value>> = branches
        .iter()
        .filter(|b| **b != Value::Bool(false))
        .map(|b| resolve(b, root))
        .collect();
    let usable = resolved
        .iter()
        .position(|b| type_of(b) != Some("null"))
        .unwrap_or(0);
    let mut chosen = resolved.into_iter().nth(usable)?;
    // Keywords next to the composition (a description, a default) apply too.
    for (k, v) in obj {
        if k != "anyOf" && k != "oneOf" {
            chosen.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Some(chosen)
}

/// A schema's effective form for generation: resolved, then its first usable
/// `anyOf`/`oneOf` branch (resolved in turn) when it has one.
pub(crate) fn effective(schema: &Value, root: &Value) -> Map<String, Value> {
    let mut obj = resolve(schema, root);
    for _ in 0..MAX_REF_HOPS {
        match first_branch(&obj, root) {
            Some(b) => obj = b,
            None => break,
        }
    }
    obj
}

/// A compiled input schema: JSON Schema 2020-12 unless the schema names its
/// dialect, `format` asserted (a server that checks formats is right to
/// reject a malformed date), references resolved only within the schema.
pub(crate) struct Checker(Option<jsonschema::Validator>);

impl Checker {
    pub(crate) fn new(schema: &Value) -> Self {
        Self::build(schema, true)
    }

    /// For an `outputSchema`: `format` is an annotation (JSON Schema
    /// 2020-12's default), as the conformance invariants read it.
    pub(crate) fn for_output(schema: &Value) -> Self {
        Self::build(schema, false)
    }

    fn build(schema: &Value, formats: bool) -> Self {
        if !schema.is_object() && !schema.is_boolean() {
            return Checker(None);
        }
        let mut options = jsonschema::options().should_validate_formats(formats);
        if schema.get("$schema").is_none() {
            options = options.with_draft(jsonschema::Draft::Draft202012);
        }
        Checker(options.build(schema).ok())
    }

    /// Whether `v` satisfies the schema; `None` when the schema could not be
    /// compiled.
    pub(crate) fn valid(&self, v: &Value) -> Option<bool> {
        self.0.as_ref().map(|c| c.is_valid(v))
    }

    /// The first reason `v` does not satisfy the schema (with where), if any.
    pub(crate) fn first_error(&self, v: &Value) -> Option<String> {
        let c = self.0.as_ref()?;
        c.iter_errors(v).next().map(|e| {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            format!("at {at}: {}", crate::truncate(&e.to_string(), 300))
        })
    }

    /// The top-level property names the validation errors point into.
    pub(crate) fn error_roots(&self, v: &Value) -> Vec<String> {
        let Some(c) = self.0.as_ref() else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for e in c.iter_errors(v) {
            let path = e.instance_path().to_string();
            if let Some(first) = path.split('/').nth(1) {
                let name = first.replace("~1", "/").replace("~0", "~");
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }

    pub(crate) fn compiled(&self) -> bool {
        self.0.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_all_of_and_types() {
        let root = json!({
            "$defs": {"P": {"type": "integer", "minimum": 3}, "Loop": {"$ref": "#/$defs/Loop"}},
            "definitions": {"a b": {"type": "string"}}
        });
        let r = resolve(&json!({"$ref": "#/$defs/P", "maximum": 9}), &root);
        assert_eq!(
            Value::Object(r),
            json!({"type": "integer", "minimum": 3, "maximum": 9})
        );
        let r = resolve(&json!({"$ref": "#/definitions/a%20b"}), &root);
        assert_eq!(type_of(&r), Some("string"));
        // A cycle ends.
        let _ = resolve(&json!({"$ref": "#/$defs/Loop"}), &root);
        let merged = resolve(
            &json!({"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "required": ["b", "a"]}
            ]}),
            &root,
        );
        assert_eq!(merged["required"], json!(["a", "b"]));
        assert_eq!(merged["properties"].as_object().map(Map::len), Some(2));
        assert_eq!(
            type_of(&resolve(&json!({"type": ["null", "number"]}), &root)),
            Some("number")
        );
        assert_eq!(
            type_of(&resolve(&json!({"enum": [true]}), &root)),
            Some("boolean")
        );
        assert_eq!(
            type_of(&resolve(&json!({"maxLength": 3}), &root)),
            Some("string")
        );
        assert_eq!(type_of(&resolve(&json!({}), &root)), None);
        let eff = effective(
            &json!({"anyOf": [{"type": "null"}, {"$ref": "#/$defs/P"}]}),
            &root,
        );
        assert_eq!(type_of(&eff), Some("integer"));
    }

    #[test]
    fn the_checker_asserts_formats() {
        let c = Checker::new(&json!({"type": "string", "format": "date"}));
        assert_eq!(c.valid(&json!("2025-01-15")), Some(true));
        assert_eq!(c.valid(&json!("not a date")), Some(false));
        assert!(c.first_error(&json!(3)).is_some());
        assert_eq!(Checker::new(&json!("nonsense")).valid(&json!(1)), None);
    }
}
