//! Comparing and showing JSON values.
//!
//! Two notions of equality are in use, and each key documents which it takes:
//!
//! * [`json_eq`]: structural JSON equality where numbers compare by value
//!   (`30` equals `30.0`). Used by the `exact` matcher and `field_equals`.
//! * [`plain_eq`]: mcp-assert's `json_path` rule — values compare as their
//!   plain string forms, so `36` matches `36`, `false` matches `"false"` and
//!   `"+9.0h"` matches `+9.0h`; two numbers compare by value.

use serde_json::Value;

/// The plain string form of a value: a string is itself, a number its shortest
/// decimal form (`36`, `1.5`), `true`/`false`, `null`, and containers their
/// compact JSON.
pub fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => number_text(n),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_string(),
        _ => v.to_string(),
    }
}

fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        Some(f) => f.to_string(),
        None => n.to_string(),
    }
}

/// Numbers by value; everything else structurally.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn num_eq(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// mcp-assert's comparison: plain string forms, numbers by value.
pub fn plain_eq(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
            json_eq(expected, actual)
        }
        _ => plain(expected) == plain(actual),
    }
}

/// A number as f64, accepting numeric strings (`"0.5"`), for range checks.
pub fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// A value for a message: strings quoted with single quotes as the JSON
/// assertion vocabulary writes them ('note'), other values as compact JSON;
/// long text is cut to `max` characters with an ellipsis.
pub fn show(v: &Value, max: usize) -> String {
    match v {
        Value::String(s) => format!("'{}'", truncate(s, max)),
        other => show_json(other, max),
    }
}

/// Compact JSON, cut to `max` characters. Serialization stops early, so
/// showing a large value costs what is shown, not its size.
pub fn show_json(v: &Value, max: usize) -> String {
    let mut w = Bounded {
        buf: Vec::new(),
        limit: max.saturating_mul(4).saturating_add(4),
    };
    let _ = serde_json::to_writer(&mut w, v);
    truncate(&String::from_utf8_lossy(&w.buf), max)
}

/// A list of values shown as a JSON array, cut to `max` characters.
pub fn show_list<'a>(values: impl IntoIterator<Item = &'a Value>, max: usize) -> String {
    let mut out = String::from("[");
    for (i, v) in values.into_iter().enumerate() {
        if out.chars().count() > max {
            break;
        }
        if i > 0 {
            out.push(',');
        }
        out.push_str(&show_json(v, max));
    }
    out.push(']');
    truncate(&out, max)
}

/// A writer that refuses bytes past its limit (stopping serialization).
struct Bounded {
    buf: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() >= self.limit {
            return Err(std::io::Error::other("enough"));
        }
        let room = self.limit - self.buf.len();
        let n = data.len().min(room);
        self.buf.extend_from_slice(&data[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The plain string form, borrowed when the value is a string.
pub fn plain_cow(v: &Value) -> std::borrow::Cow<'_, str> {
    match v {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(plain(other)),
    }
}

/// Cut `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            return out;
        }
        out.push(c);
    }
    out
}

/// A JSON type name for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_forms() {
        assert_eq!(plain(&json!(36)), "36");
        assert_eq!(plain(&json!(36.0)), "36");
        assert_eq!(plain(&json!(1.5)), "1.5");
        assert_eq!(plain(&json!("+9.0h")), "+9.0h");
        assert_eq!(plain(&json!(false)), "false");
        assert_eq!(plain(&json!([1, "a"])), "[1,\"a\"]");
    }

    #[test]
    fn plain_equality_follows_mcp_assert() {
        assert!(plain_eq(&json!(36), &json!(36.0)));
        assert!(plain_eq(&json!("36"), &json!(36)));
        assert!(plain_eq(&json!("false"), &json!(false)));
        assert!(plain_eq(&json!("+9.0h"), &json!("+9.0h")));
        assert!(!plain_eq(&json!("36"), &json!(37)));
        assert!(!plain_eq(&json!(1), &json!(true)));
    }

    #[test]
    fn json_equality_is_numeric_aware_and_strict_on_types() {
        assert!(json_eq(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!json_eq(&json!("1"), &json!(1)));
        assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }

    #[test]
    fn large_values_are_shown_cut() {
        let big = json!({"a": vec![1; 100_000]});
        let shown = show_json(&big, 20);
        assert_eq!(shown, "{\"a\":[1,1,1,1,1,1,1,…");
        assert_eq!(show_list([&json!(1), &json!("x")], 50), "[1,\"x\"]");
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 3), "abc…");
        assert_eq!(truncate("abc", 3), "abc");
        assert_eq!(show(&json!("x"), 10), "'x'");
    }
}
