//! Small readers over verbatim JSON text.
//!
//! Rules look at a handful of fields inside a message (`params._meta.progressToken`,
//! `result.nextCursor`…). These helpers take the JSON text of a value (always a slice
//! of the capture, already known to be valid JSON) and read just those fields, one
//! object level at a time, without building a `serde_json::Value` for the message.

use std::borrow::Cow;

use serde_json::Value;

use crate::capture::{Id, Str, borrowed_str, first_byte, raw_members};

/// The value of member `key` of the object `raw` (the last one, if repeated).
///
/// Streams the members, skipping the others unread: rules call this on every message,
/// so it allocates nothing for an object without escaped keys.
pub(crate) fn member<'a>(raw: &'a str, key: &str) -> Option<&'a str> {
    if !is_object(raw) {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    serde::Deserializer::deserialize_map(&mut de, MemberVisitor { key })
        .ok()
        .flatten()
}

struct MemberVisitor<'k> {
    key: &'k str,
}

impl<'de> serde::de::Visitor<'de> for MemberVisitor<'_> {
    type Value = Option<&'de str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(Str(name)) = map.next_key::<Str<'de>>()? {
            if name == self.key {
                found = Some(map.next_value::<&'de serde_json::value::RawValue>()?.get());
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Follows `keys` down through nested objects.
pub(crate) fn path<'a>(raw: &'a str, keys: &[&str]) -> Option<&'a str> {
    let mut at = raw;
    for key in keys {
        at = member(at, key)?;
    }
    Some(at)
}

/// An object's members by name, for several lookups in one object.
pub(crate) struct Object<'a> {
    members: Vec<(Cow<'a, str>, &'a str)>,
}

impl<'a> Object<'a> {
    /// Reads `raw` as an object; `None` when it is not one.
    pub(crate) fn new(raw: &'a str) -> Option<Object<'a>> {
        raw_members(raw).map(|members| Object { members })
    }

    /// The value of `key` (the last one, if repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&'a str> {
        self.members
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    }

    /// The members in order, values verbatim.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&str, &'a str)> + '_ {
        self.members.iter().map(|(k, v)| (k.as_ref(), *v))
    }
}

/// Whether the value is `null`, and its JSON type for messages ("an object" …):
/// the capture parser's readers, which work on the same verbatim text.
pub(crate) use crate::capture::{is_null, json_type as type_name};

/// Whether the value is an object.
pub(crate) fn is_object(raw: &str) -> bool {
    first_byte(raw) == b'{'
}

/// Whether the value is an array.
pub(crate) fn is_array(raw: &str) -> bool {
    first_byte(raw) == b'['
}

/// The value as a string, when it is one.
pub(crate) fn as_str(raw: &str) -> Option<Cow<'_, str>> {
    borrowed_str(raw.trim())
}

/// The value as a boolean, when it is one.
pub(crate) fn as_bool(raw: &str) -> Option<bool> {
    match raw.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The value as a number, when it is one.
pub(crate) fn as_f64(raw: &str) -> Option<f64> {
    match first_byte(raw) {
        b'-' | b'0'..=b'9' => raw.trim().parse::<f64>().ok(),
        _ => None,
    }
}

/// Whether the value is an integer in JSON Schema's sense: a number whose value has no
/// fractional part (`3` and `3.0` both are), so this agrees with the schema family.
pub(crate) fn is_integer(raw: &str) -> bool {
    as_f64(raw).is_some_and(|n| n.is_finite() && n.fract() == 0.0)
}

/// The elements of an array, verbatim.
pub(crate) fn elements(raw: &str) -> Option<Vec<&str>> {
    if !is_array(raw) {
        return None;
    }
    serde_json::from_str::<Vec<&serde_json::value::RawValue>>(raw)
        .ok()
        .map(|items| items.into_iter().map(|item| item.get()).collect())
}

/// The value as a JSON-RPC id (also used for progress tokens).
pub(crate) fn as_id(raw: &str) -> Id<'_> {
    Id::from_json(raw)
}

/// The value as a `serde_json::Value`, for the few places that need a tree.
pub(crate) fn to_value(raw: &str) -> Option<Value> {
    serde_json::from_str(raw).ok()
}

/// Shortens a value's JSON text for a message.
pub(crate) fn snippet(text: &str, limit: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let mut out: String = text.chars().take(limit).collect();
    out.push('…');
    out
}

/// Why `instance` fails `validator`, as findings quote it: the first error
/// (where, what, the schema path) and how many more there are; `None` when
/// it is valid.
pub(super) fn schema_failure(
    validator: &jsonschema::Validator,
    instance: &Value,
) -> Option<String> {
    if validator.is_valid(instance) {
        return None;
    }
    let mut errors = validator.iter_errors(instance);
    let first = errors.next().map_or_else(
        || "it is invalid".to_string(),
        |e| {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            format!(
                "at {at}: {} (schema path {})",
                snippet(&e.to_string(), 160),
                e.schema_path()
            )
        },
    );
    let more = match errors.count() {
        0 => String::new(),
        n => format!("; and {n} more"),
    };
    Some(format!("{first}{more}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_members() {
        let v = r#"{"a": {"b": [1, 2]}, "a": {"b": "last"}}"#;
        assert_eq!(path(v, &["a", "b"]), Some("\"last\""));
        assert!(path(v, &["a", "c"]).is_none());
        assert!(member("[1]", "a").is_none());
    }

    #[test]
    fn classifies_scalars() {
        assert_eq!(as_bool("true"), Some(true));
        assert_eq!(as_f64("-2.5"), Some(-2.5));
        assert_eq!(as_f64("\"2\""), None);
        assert!(is_integer("3.0"));
        assert!(!is_integer("3.5"));
        assert!(!is_integer("\"3\""));
        assert_eq!(elements("[1, {}]"), Some(vec!["1", "{}"]));
        assert_eq!(snippet("abcdef", 3), "abc…");
    }
}
