//! Reading input schemas: local `$ref`s followed, `allOf` merged, the type a
//! schema stands for, and a compiled validator for the verdicts.
//!
//! A resolved schema ([`Node`]) borrows from the schema it was read from: a
//! listing is untrusted, and a `$ref` to `#` or an `allOf` of references
//! must not copy the document once per visit. Resolving one node follows at
//! most [`MAX_REF_HOPS`] references in a row and [`MAX_RESOLVE_STEPS`]
//! references and `allOf` branches in all; past either, the rest is left
//! out.

use std::collections::BTreeMap;

use serde_json::Value;

/// How many `$ref`s are followed in a row before giving up (a cycle).
const MAX_REF_HOPS: usize = 16;

/// How many references and `allOf` branches resolving one node follows in
/// all (`allOf: [{"$ref": "#"}, {"$ref": "#"}]` would otherwise double the
/// work with each hop).
pub(crate) const MAX_RESOLVE_STEPS: usize = 256;

/// A schema object with its references followed and its `allOf` merged,
/// borrowing every value from the document.
#[derive(Clone, Debug, Default)]
pub(crate) struct Node<'a> {
    keys: BTreeMap<&'a str, &'a Value>,
    /// `properties`, merged over `allOf` (the first branch that names one
    /// wins), in the order written.
    properties: Vec<(&'a str, &'a Value)>,
    /// `required`, merged over `allOf` (united), in the order written.
    required: Vec<&'a str>,
    /// Whether `properties` was given at all (an object's keyword).
    has_properties: bool,
    has_required: bool,
}

impl<'a> Node<'a> {
    /// The node of a schema object as written, without following anything.
    #[cfg(test)]
    pub(crate) fn plain(obj: &'a serde_json::Map<String, Value>) -> Self {
        let mut n = Node::default();
        for (k, v) in obj {
            n.set(k, v);
        }
        n
    }

    /// A keyword (not `properties` or `required`: see their methods).
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        match key {
            "properties" | "required" => None,
            _ => self.keys.get(key).copied(),
        }
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        match key {
            "properties" => self.has_properties,
            "required" => self.has_required,
            _ => self.keys.contains_key(key),
        }
    }

    pub(crate) fn properties(&self) -> &[(&'a str, &'a Value)] {
        &self.properties
    }

    pub(crate) fn required(&self) -> &[&'a str] {
        &self.required
    }

    /// Set a keyword, replacing what was there (`properties` and `required`
    /// included).
    fn set(&mut self, key: &'a str, v: &'a Value) {
        match key {
            "properties" => {
                self.has_properties = true;
                self.properties = v
                    .as_object()
                    .map(|m| m.iter().map(|(k, s)| (k.as_str(), s)).collect())
                    .unwrap_or_default();
            }
            "required" => {
                self.has_required = true;
                self.required = v
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
            }
            _ => {
                self.keys.insert(key, v);
            }
        }
    }

    /// A keyword only where the node has none.
    fn set_default(&mut self, key: &'a str, v: &'a Value) {
        if !self.contains_key(key) {
            self.set(key, v);
        }
    }

    /// An `allOf` branch merged in: `properties` and `required` united, any
    /// other keyword of the branch wins.
    fn merge(&mut self, branch: Node<'a>) {
        for (k, v) in branch.keys {
            self.keys.insert(k, v);
        }
        self.has_properties |= branch.has_properties;
        self.has_required |= branch.has_required;
        for (name, s) in branch.properties {
            if !self.properties.iter().any(|(n, _)| *n == name) {
                self.properties.push((name, s));
            }
        }
        for name in branch.required {
            if !self.required.contains(&name) {
                self.required.push(name);
            }
        }
    }

    /// The node as a JSON object (for tests and labels).
    #[cfg(test)]
    pub(crate) fn to_value(&self) -> Value {
        let mut m = serde_json::Map::new();
        for (k, v) in &self.keys {
            m.insert((*k).to_string(), (*v).clone());
        }
        if self.has_properties {
            let p: serde_json::Map<String, Value> = self
                .properties
                .iter()
                .map(|(k, s)| ((*k).to_string(), (*s).clone()))
                .collect();
            m.insert("properties".into(), Value::Object(p));
        }
        if self.has_required {
            m.insert("required".into(), serde_json::json!(self.required));
        }
        Value::Object(m)
    }
}

/// A schema with its local `$ref` followed (siblings of `$ref` kept over
/// the target's keys) and its `allOf` branches merged in: `properties` and
/// `required` are united, any other keyword of a later branch wins. Not a
/// schema object (`true`, `false`, nonsense): an empty node.
pub(crate) fn resolve<'a>(schema: &'a Value, root: &'a Value) -> Node<'a> {
    let mut steps = 0usize;
    resolve_at(schema, root, 0, &mut steps)
}

fn resolve_at<'a>(schema: &'a Value, root: &'a Value, hops: usize, steps: &mut usize) -> Node<'a> {
    let Some(obj) = schema.as_object() else {
        return Node::default();
    };
    let target = match obj.get("$ref").and_then(Value::as_str) {
        Some(r) if hops < MAX_REF_HOPS && *steps < MAX_RESOLVE_STEPS => local_target(r, root),
        _ => None,
    };
    let mut out = match target {
        Some(target) => {
            *steps += 1;
            resolve_at(target, root, hops + 1, steps)
        }
        None => Node::default(),
    };
    for (k, v) in obj {
        if k != "$ref" {
            out.set(k, v);
        }
    }
    if let Some(Value::Array(branches)) = out.keys.remove("allOf") {
        for b in branches {
            if *steps >= MAX_RESOLVE_STEPS {
                break;
            }
            *steps += 1;
            let b = resolve_at(b, root, hops + 1, steps);
            out.merge(b);
        }
    }
    out
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

/// The JSON type a (resolved) schema stands for: its `type` (the first
/// other than `null` of a list), else what its keywords imply, else the type
/// of its first `enum` value or its `const`.
pub(crate) fn type_of(obj: &Node<'_>) -> Option<&'static str> {
    match obj.get("type") {
        Some(Value::String(t)) => return known(t),
        Some(Value::Array(types)) => {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let pick = names.iter().find(|t| **t != "null").or(names.first());
            return pick.and_then(|t| known(t));
        }
        _ => {}
    }
    let has = |keys: &[&str]| keys.iter().any(|k| obj.contains_key(k));
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
pub(crate) fn first_branch<'a>(obj: &Node<'a>, root: &'a Value) -> Option<Node<'a>> {
    let branches = obj
        .get("anyOf")
        .or_else(|| obj.get("oneOf"))
        .and_then(Value::as_array)?;
    let mut fallback: Option<Node<'a>> = None;
    let mut chosen: Option<Node<'a>> = None;
    for b in branches
        .iter()
        .filter(|b| **b != Value::Bool(false))
        .take(MAX_RESOLVE_STEPS)
    {
        let r = resolve(b, root);
        if type_of(&r) != Some("null") {
            chosen = Some(r);
            break;
        }
        if fallback.is_none() {
            fallback = Some(r);
        }
    }
    let mut chosen = chosen.or(fallback)?;
    // Keywords next to the composition (a description, a default) apply too.
    for (k, v) in &obj.keys {
        if *k != "anyOf" && *k != "oneOf" {
            chosen.set_default(k, v);
        }
    }
    if obj.has_properties && !chosen.has_properties {
        chosen.has_properties = true;
        chosen.properties = obj.properties.clone();
    }
    if obj.has_required && !chosen.has_required {
        chosen.has_required = true;
        chosen.required = obj.required.clone();
    }
    Some(chosen)
}

/// A schema's effective form for generation: resolved, then its first usable
/// `anyOf`/`oneOf` branch (resolved in turn) when it has one.
pub(crate) fn effective<'a>(schema: &'a Value, root: &'a Value) -> Node<'a> {
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
        let s = json!({"$ref": "#/$defs/P", "maximum": 9});
        let r = resolve(&s, &root);
        assert_eq!(
            r.to_value(),
            json!({"type": "integer", "minimum": 3, "maximum": 9})
        );
        let s = json!({"$ref": "#/definitions/a%20b"});
        let r = resolve(&s, &root);
        assert_eq!(type_of(&r), Some("string"));
        // A cycle ends.
        let _ = resolve(&json!({"$ref": "#/$defs/Loop"}), &root);
        let s = json!({"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b", "a"]}
        ]});
        let merged = resolve(&s, &root);
        let merged = merged.to_value();
        assert_eq!(merged["required"], json!(["a", "b"]));
        assert_eq!(
            merged["properties"].as_object().map(serde_json::Map::len),
            Some(2)
        );
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
        let s = json!({"anyOf": [{"type": "null"}, {"$ref": "#/$defs/P"}]});
        let eff = effective(&s, &root);
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
