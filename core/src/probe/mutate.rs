//! The values fuzz cases are made of, and the seeded random mutations.
//!
//! No generated string holds `{{` or `${`: a regression test written from a
//! case must send what the case sent, and the suite loader would substitute
//! those.

use serde_json::{Map, Value, json};

use super::Arguments;
use super::rng::Rng;
use crate::report::plural;

/// Right-to-left override, a reversed file name, combining marks, a family
/// emoji (ZWJ sequence), a skin tone, a byte-order mark, an astral letter.
pub(crate) const UNICODE: &str = "\u{202E}gnp.exe e\u{301}\u{301}\u{301} \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{1F44D}\u{1F3FD} \u{FEFF}\u{1D54F}";

pub(crate) const TRAVERSAL: &str = "../../../../etc/passwd";

/// Format specifiers, quotes, SQL, markup, shell and CRLF injection.
pub(crate) const FORMAT_BREAKING: &str =
    "%s%n%x%d ' \" ; -- ' OR '1'='1 <script>alert(1)</script> `id` $(id) | id \r\nX-Injected: 1";

/// Strings the random cases draw from.
const NASTY: &[&str] = &[
    TRAVERSAL,
    "..\\..\\..\\..\\windows\\win.ini",
    "/etc/passwd",
    "file:///etc/passwd",
    "C:\\Windows\\System32",
    "http://169.254.169.254/latest/meta-data/",
    "' OR '1'='1",
    "\"; DROP TABLE users; --",
    "<script>alert(1)</script>",
    "<!--",
    "]]>",
    "`id`",
    "$(id)",
    "; rm -rf / #",
    "\r\nX-Injected: 1",
    "%00",
    "%s%s%s%n",
    "null",
    "undefined",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e309",
    "-0",
    "0x1F",
    "true",
    "[]",
    "{}",
    "__proto__",
    "constructor",
    " ",
    "\t\n",
    "~",
    "*",
    "\u{0}",
    "\u{FFFD}",
    "\u{10FFFF}",
    UNICODE,
];

/// `{"a": {"a": … {}}}` or `[[… []]]`, `depth` levels.
pub(crate) fn nested(array: bool, depth: usize) -> Value {
    let mut v = if array { json!([]) } else { json!({}) };
    for _ in 1..depth {
        v = if array {
            Value::Array(vec![v])
        } else {
            let mut m = Map::new();
            m.insert("a".into(), v);
            Value::Object(m)
        };
    }
    v
}

/// A node of the valid arguments: its path as a label shows it, and the
/// steps to it.
struct Node {
    shown: String,
    steps: Vec<Step>,
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// The nodes of `v` in pre-order (object keys in order), at most 512, the
/// arguments object itself first.
fn nodes(v: &Value) -> Vec<Node> {
    let mut out = vec![Node {
        shown: "arguments".into(),
        steps: Vec::new(),
    }];
    collect(v, "", &[], &mut out);
    out
}

fn collect(v: &Value, shown: &str, steps: &[Step], out: &mut Vec<Node>) {
    if out.len() >= 512 || steps.len() > 32 {
        return;
    }
    let children: Vec<(String, Step, &Value)> = match v {
        Value::Object(o) => o
            .iter()
            .map(|(k, x)| {
                let s = if shown.is_empty() {
                    k.clone()
                } else {
                    format!("{shown}.{k}")
                };
                (s, Step::Key(k.clone()), x)
            })
            .collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| (format!("{shown}[{i}]"), Step::Index(i), x))
            .collect(),
        _ => return,
    };
    for (s, step, x) in children {
        let mut st = steps.to_vec();
        st.push(step);
        out.push(Node {
            shown: s.clone(),
            steps: st.clone(),
        });
        collect(x, &s, &st, out);
    }
}

fn at<'a>(v: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let mut cur = v;
    for s in steps {
        cur = match (s, cur) {
            (Step::Key(k), Value::Object(o)) => o.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// A random mutation of `base`: what it did (for the label) and the
/// arguments.
pub(crate) fn random(base: &Value, rng: &mut Rng) -> (String, Arguments) {
    let all = nodes(base);
    let index = rng.below(all.len());
    let Some(node) = all.get(index) else {
        return ("valid arguments".into(), Arguments::Value(base.clone()));
    };
    let mut v = base.clone();
    if node.steps.is_empty() {
        // The arguments object itself: add a property, or empty it.
        if rng.chance(1, 4) {
            return ("`arguments` = {}".into(), Arguments::Value(json!({})));
        }
        let key = random_key(rng);
        let value = random_value(rng, 0);
        let what = format!("extra property `{key}` = {}", describe(&value));
        if let Some(o) = v.as_object_mut() {
            o.insert(key, value);
        }
        return (what, Arguments::Value(v));
    }
    let last_is_key = matches!(node.steps.last(), Some(Step::Key(_)));
    let op = rng.below(12);
    if op == 0 && last_is_key {
        let (parent_steps, last) = node.steps.split_at(node.steps.len() - 1);
        if let (Some(Value::Object(o)), [Step::Key(k)]) = (at(&mut v, parent_steps), last) {
            o.remove(k);
        }
        return (format!("`{}` removed", node.shown), Arguments::Value(v));
    }
    let new = match op {
        1 => Value::Null,
        2 => {
            let current = at(&mut v, &node.steps)
                .map(|x| x.clone())
                .unwrap_or(Value::Null);
            Value::Array(vec![current])
        }
        _ => random_value(rng, 0),
    };
    let what = if op == 2 {
        format!("`{}` wrapped in an array", node.shown)
    } else {
        format!("`{}` = {}", node.shown, describe(&new))
    };
    if let Some(slot) = at(&mut v, &node.steps) {
        *slot = new;
    }
    (what, Arguments::Value(v))
}

fn random_key(rng: &mut Rng) -> String {
    const KEYS: &[&str] = &[
        "__proto__",
        "constructor",
        "",
        " ",
        "a.b",
        "$where",
        "0",
        "mcpcheck_unexpected",
    ];
    rng.pick(KEYS).map_or("x", |k| k).to_string()
}

/// A random value: a scalar, a nasty string, an array or an object (nested
/// at most 16 levels).
fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth >= 16 { 5 } else { 8 };
    match rng.below(kinds) {
        0 => random_integer(rng),
        1 => random_float(rng),
        2 => json!(rng.chance(1, 2)),
        3 => json!(random_string(rng)),
        4 => json!(rng.pick(NASTY).copied().unwrap_or("")),
        5 => {
            let n = rng.below(65);
            Value::Array((0..n).map(|_| random_scalar(rng)).collect())
        }
        6 => {
            let mut m = Map::new();
            for _ in 0..rng.below(4) {
                m.insert(random_key(rng), random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
        _ => nested(rng.chance(1, 2), 2 + rng.below(15)),
    }
}

fn random_scalar(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => random_integer(rng),
        1 => random_float(rng),
        2 => json!(random_string(rng)),
        _ => Value::Null,
    }
}

fn random_integer(rng: &mut Rng) -> Value {
    let sign = if rng.chance(1, 2) { -1i64 } else { 1 };
    match rng.below(6) {
        0 => json!(rng.below(21) as i64 - 10),
        1 => json!(sign * ((1i64 << 31) + rng.below(3) as i64 - 1)),
        2 => json!(sign * ((1i64 << 53) + rng.below(3) as i64 - 1)),
        3 => json!(if sign < 0 { i64::MIN } else { i64::MAX }),
        4 => json!(rng.next_u64()),
        _ => json!(rng.below(2_000_001) as i64 - 1_000_000),
    }
}

fn random_float(rng: &mut Rng) -> Value {
    for _ in 0..4 {
        let f = f64::from_bits(rng.next_u64());
        if let Some(n) = serde_json::Number::from_f64(f) {
            return Value::Number(n);
        }
    }
    json!(0.5)
}

/// A string of random length (mostly short, sometimes up to 4 KiB) from a
/// mix of ASCII, controls and other planes; never `{` or `$`.
fn random_string(rng: &mut Rng) -> String {
    let len = match rng.below(10) {
        0..=5 => rng.below(9),
        6..=8 => 8 + rng.below(249),
        _ => 256 + rng.below(3841),
    };
    const OTHER: &[char] = &[
        'é',
        'ß',
        'ø',
        '中',
        'ア',
        '\u{202E}',
        '\u{200D}',
        '\u{301}',
        '\u{FEFF}',
        '\u{FFFD}',
        '😀',
        '\u{1D54F}',
        '\u{10FFFF}',
        '\u{0}',
        '\u{7}',
        '\u{1B}',
        '\n',
        '\r',
        '\t',
    ];
    (0..len)
        .map(|_| {
            if rng.chance(3, 4) {
                let c = (b' ' + rng.below(95) as u8) as char;
                if c == '{' || c == '$' { '_' } else { c }
            } else {
                rng.pick(OTHER).copied().unwrap_or('_')
            }
        })
        .collect()
}

/// A value in a few words, for a label.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let n = s.chars().count();
            let plain = s.chars().all(|c| c == ' ' || c.is_ascii_graphic());
            if n <= 24 && plain {
                v.to_string()
            } else {
                format!("a string of {}", plural(n, "character", "characters"))
            }
        }
        Value::Array(a) if a.is_empty() => "[]".into(),
        Value::Object(o) if o.is_empty() => "{}".into(),
        Value::Array(_) | Value::Object(_) if depth_of(v) > 2 => {
            let kind = if v.is_array() {
                "an array"
            } else {
                "an object"
            };
            format!("{kind} nested {} levels deep", depth_of(v))
        }
        Value::Array(a) => format!("an array of {}", plural(a.len(), "item", "items")),
        Value::Object(o) => format!("an object of {}", plural(o.len(), "property", "properties")),
        other => other.to_string(),
    }
}

pub(crate) fn depth_of(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_and_descriptions() {
        assert_eq!(nested(true, 3), json!([[[]]]));
        assert_eq!(nested(false, 2), json!({"a": {}}));
        assert_eq!(depth_of(&nested(false, 64)), 64);
        assert_eq!(describe(&json!("ab")), "\"ab\"");
        assert_eq!(describe(&json!("a\u{0}")), "a string of 2 characters");
        assert_eq!(describe(&json!([[1]])), "an array of 1 item");
        assert_eq!(describe(&nested(true, 4)), "an array nested 4 levels deep");
        assert_eq!(
            describe(&nested(false, 5)),
            "an object nested 5 levels deep"
        );
    }

    #[test]
    fn no_template_markers() {
        let mut rng = Rng::new(3);
        for _ in 0..2000 {
            let s = random_value(&mut rng, 0).to_string();
            assert!(!s.contains("{{") && !s.contains("${"), "{s}");
        }
        for s in NASTY.iter().chain([&UNICODE, &FORMAT_BREAKING]) {
            assert!(!s.contains("{{") && !s.contains("${"), "{s}");
        }
    }
}
