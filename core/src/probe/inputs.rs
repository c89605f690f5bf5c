//! Schema-valid arguments for `mcpcheck audit`, and whether given arguments
//! satisfy an input schema.

use serde_json::{Map, Value, json};

use super::Arguments;
use super::pattern;
use super::schema::{Checker, effective, type_of};

/// How deep values are built (nesting under the arguments object, `$ref`s
/// included); a required value deeper than this cannot be built.
const MAX_DEPTH: usize = 16;

/// Optional properties (and one item for arrays without `minItems`) are
/// filled down to this depth; deeper, only what is required.
const OPTIONAL_DEPTH: usize = 3;

/// The most items a generated array holds.
const MAX_ITEMS: u64 = 16;

/// Arguments that satisfy `input_schema`, with every property the schema
/// declares (required and optional) where a valid value can be built:
///
/// * `const`, then `enum` (its first value), then `default`, then the first
///   of `examples` — except strings holding a template (`{{…}}`, `${…}`),
///   which a suite file would substitute;
/// * by type: strings honour `format` (date, date-time, time, duration,
///   email, hostname, ipv4, ipv6, uri, uri-reference, uri-template, uuid,
///   json-pointer, regex), `pattern` (a generated match, else a few ordinary
///   strings that match; an optional property whose pattern defeats both
///   is left out) and `minLength`/`maxLength`; numbers 1 moved into
///   `minimum`/`maximum`/`exclusive*` and onto `multipleOf`; arrays
///   `minItems` items (at least one while shallow, within `maxItems`, at most
///   16, distinct for `uniqueItems` where the item type allows); objects
///   recursively;
/// * local `$ref` (`#/$defs/…`, `#/definitions/…`, any pointer) followed,
///   `allOf` merged, `anyOf`/`oneOf` by their first branch that is not only
///   `null`;
/// * nesting bounded (16 levels; optional properties to 3).
///
/// The result is checked against the schema (JSON Schema 2020-12 unless
/// `$schema` says otherwise, `format` asserted). When it does not validate,
/// optional properties named in the errors are dropped (a few rounds), then
/// only required properties are tried, then
/// [`generate::example_args`](crate::generate::example_args); the first
/// that validates is returned, else the fullest attempt. Always an object.
pub fn valid_arguments(input_schema: &Value) -> Value {
    let checker = Checker::new(input_schema);
    let mut attempts: Vec<Value> = Vec::new();
    for optional in [true, false] {
        let g = Gen {
            root: input_schema,
            optional,
        };
        let Some(mut v) = g.value(input_schema, 0, 0).filter(Value::is_object) else {
            continue;
        };
        if checker.valid(&v) != Some(false) {
            return v;
        }
        if optional && drop_failing_optionals(&checker, input_schema, &mut v) {
            return v;
        }
        attempts.push(v);
    }
    let example = crate::generate::example_args(input_schema);
    if checker.valid(&example) == Some(true) {
        return example;
    }
    attempts.into_iter().next().unwrap_or(example)
}

/// A valid value for one (sub)schema of `root`, required parts only beyond
/// the shallow levels; `None` when none can be built.
pub(crate) fn valid_value(schema: &Value, root: &Value) -> Option<Value> {
    let g = Gen {
        root,
        optional: true,
    };
    g.value(schema, 1, 0)
}

/// Remove optional top-level properties named by validation errors until
/// the object validates (true) or nothing more can be dropped (false).
fn drop_failing_optionals(checker: &Checker, schema: &Value, v: &mut Value) -> bool {
    let top = effective(schema, schema);
    let required: Vec<String> = top
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    for _ in 0..8 {
        let roots = checker.error_roots(v);
        let Some(obj) = v.as_object_mut() else {
            return false;
        };
        let before = obj.len();
        for name in roots.iter().filter(|n| !required.contains(n)) {
            obj.remove(name.as_str());
        }
        if obj.len() == before {
            return false;
        }
        if checker.valid(v) != Some(false) {
            return true;
        }
    }
    false
}

/// Whether `arguments` satisfy `input_schema` as a `tools/call` would send
/// them: omitted arguments are the empty object, `null` and non-objects
/// never satisfy it (MCP's `arguments` is an object). `None` when the schema
/// cannot be compiled.
pub fn input_valid(input_schema: &Value, arguments: &Arguments) -> Option<bool> {
    let checker = Checker::new(input_schema);
    valid_with(&checker, arguments)
}

pub(crate) fn valid_with(checker: &Checker, arguments: &Arguments) -> Option<bool> {
    if !checker.compiled() {
        return None;
    }
    match arguments {
        Arguments::Omitted => checker.valid(&json!({})),
        Arguments::Null => Some(false),
        Arguments::Value(v) if !v.is_object() => Some(false),
        Arguments::Value(v) => checker.valid(v),
    }
}

/// A string for a `format`, when it is one we know.
pub(crate) fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "date" => "2025-01-15",
        "date-time" => "2025-01-15T10:30:00Z",
        "time" => "10:30:00Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uri" | "iri" | "uri-reference" | "iri-reference" | "url" => "https://example.com/",
        "uri-template" => "https://example.com/{id}",
        "uuid" => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "json-pointer" => "/example",
        "relative-json-pointer" => "0",
        "regex" => "^example$",
        _ => return None,
    })
}

/// Whether a value from the schema (`default`, `examples`, `enum`) can be
/// used as it is: no string in it holds a template.
pub(crate) fn usable(v: &Value) -> bool {
    match v {
        Value::String(s) => !(s.contains("{{") || s.contains("${")),
        Value::Array(a) => a.iter().all(usable),
        Value::Object(o) => o.iter().all(|(k, x)| usable(&json!(k)) && usable(x)),
        _ => true,
    }
}

struct Gen<'a> {
    root: &'a Value,
    /// Fill optional properties (while shallow).
    optional: bool,
}

impl Gen<'_> {
    /// A valid value for `schema`; `variant` asks for a different one (the
    /// items of a `uniqueItems` array). `None` when none can be built.
    fn value(&self, schema: &Value, depth: usize, variant: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        match schema {
            Value::Bool(false) => return None,
            Value::Bool(true) => return Some(json!(format!("example{}", suffix(variant)))),
            _ => {}
        }
        let obj = effective(schema, self.root);
        if let Some(v) = obj.get("const") {
            return Some(v.clone());
        }
        if let Some(choices) = obj.get("enum").and_then(Value::as_array) {
            let usable: Vec<&Value> = choices.iter().filter(|v| usable(v)).collect();
            if usable.is_empty() {
                return choices.first().cloned();
            }
            return usable.get(variant % usable.len()).map(|v| (*v).clone());
        }
        if variant == 0 {
            let given = obj.get("default").or_else(|| {
                obj.get("examples")
                    .and_then(Value::as_array)
                    .and_then(|a| a.first())
            });
            if let Some(v) = given.filter(|v| usable(v) && !v.is_null()) {
                return Some(v.clone());
            }
        }
        match type_of(&obj) {
            Some("string") => string_value(&obj, variant),
            Some("integer") => number_value(&obj, true, variant),
            Some("number") => number_value(&obj, false, variant),
            Some("boolean") => Some(json!(variant.is_multiple_of(2))),
            Some("null") => Some(Value::Null),
            Some("array") => self.array_value(&obj, depth, variant),
            Some("object") => self.object_value(&obj, depth, variant),
            _ => Some(json!(format!("example{}", suffix(variant)))),
        }
    }

    fn object_value(
        &self,
        obj: &Map<String, Value>,
        depth: usize,
        variant: usize,
    ) -> Option<Value> {
        let empty = Map::new();
        let properties = obj
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        for (name, s) in properties {
            let is_required = required.contains(&name.as_str());
            if !(is_required || self.optional && depth < OPTIONAL_DEPTH) {
                continue;
            }
            match self.value(s, depth + 1, variant) {
                Some(v) => {
                    out.insert(name.clone(), v);
                }
                None if is_required => return None,
                None => {}
            }
        }
        for name in required {
            if !out.contains_key(name) {
                let extra = obj.get("additionalProperties").filter(|a| a.is_object());
                let v = match extra {
                    Some(s) => self.value(s, depth + 1, variant)?,
                    None => json!("example"),
                };
                out.insert(name.to_string(), v);
            }
        }
        Some(Value::Object(out))
    }

    fn array_value(&self, obj: &Map<String, Value>, depth: usize, variant: usize) -> Option<Value> {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = obj
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        let shallow = self.optional && depth < OPTIONAL_DEPTH;
        let want = min.max(u64::from(shallow)).min(max).min(MAX_ITEMS) as usize;
        // A tuple (2020-12 `prefixItems`, or `items` as a list in older drafts).
        let prefix = obj
            .get("prefixItems")
            .or_else(|| obj.get("items").filter(|i| i.is_array()))
            .and_then(Value::as_array);
        let rest = match obj.get("items") {
            Some(i) if !i.is_array() => Some(i),
            _ => obj.get("additionalItems"),
        };
        let mut out = Vec::new();
        if let Some(prefix) = prefix {
            for (i, s) in prefix.iter().enumerate() {
                if i >= want.max(min as usize) && i >= 1 {
                    break;
                }
                out.push(self.value(s, depth + 1, variant + i)?);
            }
        }
        while out.len() < want {
            let i = out.len();
            let item = match rest {
                Some(Value::Bool(false)) => return None,
                Some(s) => self.value(s, depth + 1, variant + i)?,
                None => json!(format!("example{}", suffix(variant + i))),
            };
            out.push(item);
        }
        Some(Value::Array(out))
    }
}

/// `""`, `"2"`, `"3"`, … so variants of a string differ.
fn suffix(variant: usize) -> String {
    if variant == 0 {
        String::new()
    } else {
        (variant + 1).to_string()
    }
}

fn string_value(obj: &Map<String, Value>, variant: usize) -> Option<Value> {
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = obj
        .get("maxLength")
        .and_then(Value::as_u64)
        .map_or(usize::MAX, |m| m as usize);
    let fits = |s: &str| {
        let n = s.chars().count();
        min <= n && n <= max
    };
    if let Some(f) = obj
        .get("format")
        .and_then(Value::as_str)
        .and_then(format_example)
    {
        return Some(json!(f));
    }
    if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
        let found: Vec<String> = pattern::examples(p)
            .into_iter()
            .filter(|s| fits(s))
            .collect();
        if found.is_empty() {
            return None;
        }
        return found.get(variant % found.len()).map(|s| json!(s));
    }
    let mut s = format!("example{}", suffix(variant));
    let n = s.chars().count();
    if n < min {
        s.extend(std::iter::repeat_n('x', min - n));
    }
    if s.chars().count() > max {
        s = s.chars().take(max).collect();
    }
    Some(json!(s))
}

/// A bound of the schema, with draft-04's boolean `exclusiveMinimum`/
/// `exclusiveMaximum` read as making `minimum`/`maximum` exclusive.
struct Bounds {
    lo: Option<(f64, bool)>,
    hi: Option<(f64, bool)>,
}

fn bounds(obj: &Map<String, Value>) -> Bounds {
    let num = |k: &str| obj.get(k).and_then(Value::as_f64);
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool) == Some(true);
    let pick = |inclusive: Option<f64>, exclusive: Option<f64>, old_flag: bool, lower: bool| {
        let a = inclusive.map(|v| (v, old_flag));
        let b = exclusive.map(|v| (v, true));
        match (a, b) {
            (Some(x), Some(y)) => {
                let tighter = if lower { x.0 >= y.0 } else { x.0 <= y.0 };
                Some(if tighter && x.0 != y.0 { x } else { y })
            }
            (x, y) => x.or(y),
        }
    };
    Bounds {
        lo: pick(
            num("minimum"),
            num("exclusiveMinimum"),
            flag("exclusiveMinimum"),
            true,
        ),
        hi: pick(
            num("maximum"),
            num("exclusiveMaximum"),
            flag("exclusiveMaximum"),
            false,
        ),
    }
}

fn number_value(obj: &Map<String, Value>, integer: bool, variant: usize) -> Option<Value> {
    let Bounds { lo, hi } = bounds(obj);
    let step = obj
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|m| *m > 0.0 && m.is_finite());
    let mut n = 1.0 + variant as f64;
    if let Some((l, exclusive)) = lo
        && (n < l || (exclusive && n <= l))
    {
        n = if exclusive {
            match hi {
                Some((h, _)) if !integer && h - l < 2.0 => l + (h - l) / 2.0,
                _ => l + 1.0,
            }
        } else {
            l
        } + variant as f64;
    }
    if let Some((h, exclusive)) = hi
        && (n > h || (exclusive && n >= h))
    {
        n = if exclusive {
            match lo {
                Some((l, _)) if !integer && h - l < 2.0 => l + (h - l) / 2.0,
                _ => h - 1.0,
            }
        } else {
            h
        };
    }
    if integer {
        n = n.ceil();
        if let Some((h, exclusive)) = hi
            && (n > h || (exclusive && n >= h))
        {
            n = if exclusive { h.ceil() - 1.0 } else { h.floor() };
        }
    }
    if let Some(m) = step {
        let k = (n / m).ceil();
        let up = k * m;
        let fits_hi = |x: f64| hi.is_none_or(|(h, e)| if e { x < h } else { x <= h });
        n = if fits_hi(up) { up } else { (n / m).floor() * m };
        // Keep the decimal form short: 0.30000000000000004 → 0.3.
        n = (n * 1e9).round() / 1e9;
    }
    Some(number(n))
}

/// A finite `f64` as JSON: an integer when it is whole and exact.
pub(crate) fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(json!(0), Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(schema: Value) -> Value {
        let v = valid_arguments(&schema);
        assert_eq!(
            Checker::new(&schema).valid(&v),
            Some(true),
            "{v} for {schema}"
        );
        v
    }

    #[test]
    fn required_and_optional_with_constraints() {
        let v = ok(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 10},
                "mode": {"type": "string", "enum": ["r", "w"]},
                "n": {"type": "integer", "minimum": 5, "maximum": 9, "multipleOf": 3},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "when": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "pattern": "^[A-Z]{2}-\\d{3}$"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 3, "uniqueItems": true},
                "short": {"type": "string", "maxLength": 3}
            },
            "required": ["path"],
            "additionalProperties": false
        }));
        assert_eq!(v["path"], "examplexxx");
        assert_eq!(v["mode"], "r");
        assert_eq!(v["n"], 6);
        assert_eq!(v["ratio"], 0.5);
        assert_eq!(v["id"], "AA-111");
        assert_eq!(v["tags"], json!(["example", "example2", "example3"]));
        assert_eq!(v["short"], "exa");
    }

    #[test]
    fn refs_compositions_and_depth() {
        let v = ok(json!({
            "type": "object",
            "$defs": {"Edit": {"type": "object", "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}}, "required": ["oldText", "newText"]}},
            "properties": {
                "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
                "either": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 2}]},
                "one": {"oneOf": [{"type": "string", "format": "email"}, {"type": "integer"}]},
                "both": {"allOf": [{"properties": {"a": {"type": "boolean"}}}, {"required": ["a"]}]}
            },
            "required": ["edits"]
        }));
        assert_eq!(
            v["edits"][0],
            json!({"oldText": "example", "newText": "example"})
        );
        assert_eq!(v["either"], 2);
        assert_eq!(v["one"], "user@example.com");
        assert_eq!(v["both"], json!({"a": true}));
        // A schema that recurses through an optional property ends.
        ok(
            json!({"type": "object", "properties": {"child": {"$ref": "#"}, "name": {"type": "string"}}}),
        );
    }

    #[test]
    fn unsatisfiable_optionals_are_dropped() {
        let v = ok(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "pattern": "^(?=x)y$"},
                "b": {"type": "string"},
                "c": {"oneOf": [{"type": "number"}, {"type": "integer"}]}
            }
        }));
        assert_eq!(v, json!({"b": "example"}));
        assert_eq!(valid_arguments(&json!("nonsense")), json!({}));
        assert_eq!(valid_arguments(&json!({"type": "object"})), json!({}));
    }

    #[test]
    fn validity_of_arguments() {
        let s =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        assert_eq!(input_valid(&s, &Arguments::Omitted), Some(false));
        assert_eq!(
            input_valid(&json!({"type": "object"}), &Arguments::Omitted),
            Some(true)
        );
        assert_eq!(
            input_valid(&json!({"type": "object"}), &Arguments::Null),
            Some(false)
        );
        assert_eq!(
            input_valid(&s, &Arguments::Value(json!({"a": "x"}))),
            Some(true)
        );
        assert_eq!(
            input_valid(&s, &Arguments::Value(json!(["x"]))),
            Some(false)
        );
    }
}
