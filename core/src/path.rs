//! Paths into JSON documents: RFC 9535 JSONPath (via `serde_json_path`), with
//! a dotted sugar so suites can write `result.content[0].text` or
//! `results[*].type` instead of `$['result']['content'][0]['text']`.
//!
//! Sugar rules: a path that does not start with `$` is a list of segments
//! joined by `.`; each segment is a member name (any characters but `.` and
//! `[`, so `my-key` and `2fa` work) or `*`, followed by any number of bracket
//! selectors copied as written (`[0]`, `[*]`, `[?@.x > 1]`). A `$`-rooted path
//! is parsed as JSONPath; if that fails (mcp-assert accepted `$.my-key`), the
//! part after `$.` is read as sugar.
//!
//! One implementation serves every key that names a path: list-form targets,
//! mcp-assert's `json_path`, the JSON assertion vocabulary's `path` fields, and
//! setup `capture` expressions.

use serde_json::Value;
use serde_json_path::JsonPath;
use serde_json_path::{NormalizedPath, PathElement};

/// A compiled path, remembering how it was written.
#[derive(Clone, Debug)]
pub struct Path {
    written: String,
    /// Number of leading elements of every located result that belong to the
    /// base the path was compiled under (e.g. `json`), hidden in messages.
    base_len: usize,
    compiled: JsonPath,
}

impl PartialEq for Path {
    fn eq(&self, other: &Self) -> bool {
        self.written == other.written && self.base_len == other.base_len
    }
}

/// A value found by a path, with where it was found.
#[derive(Clone, Debug)]
pub struct Found<'a> {
    pub value: &'a Value,
    /// The location in sugar form relative to the path's base, e.g.
    /// `results[1].type`.
    pub location: String,
}

impl Path {
    /// Compile `written` as a path from the document root.
    pub fn parse(written: &str) -> Result<Path, String> {
        Path::parse_under(&[], written)
    }

    /// Compile `written` as a path relative to `base` (member names), e.g.
    /// `results[*].type` under `["json"]` selects `$.json.results[*].type`.
    pub fn parse_under(base: &[&str], written: &str) -> Result<Path, String> {
        let trimmed = written.trim();
        if trimmed.is_empty() {
            return Err("the path is empty".into());
        }
        let mut prefix = String::from("$");
        for b in base {
            prefix.push_str(&bracket_name(b));
        }
        let candidates: Vec<String> = if let Some(rest) = trimmed.strip_prefix('$') {
            let mut c = vec![format!("{prefix}{rest}")];
            if let Some(dotted) = rest.strip_prefix('.')
                && let Some(s) = sugar(dotted)
            {
                c.push(format!("{prefix}{s}"));
            }
            c
        } else {
            match sugar(trimmed) {
                Some(s) => vec![format!("{prefix}{s}")],
                None => vec![format!("{prefix}.{trimmed}")],
            }
        };
        let mut first_err = None;
        for c in &candidates {
            match JsonPath::parse(c) {
                Ok(compiled) => {
                    return Ok(Path {
                        written: trimmed.to_string(),
                        base_len: base.len(),
                        compiled,
                    });
                }
                Err(e) => {
                    if first_err.is_none() {
                        first_err = Some(e.to_string());
                    }
                }
            }
        }
        Err(first_err.unwrap_or_else(|| "invalid path".into()))
    }

    /// The root path `$` (the whole document).
    pub fn root() -> Path {
        Path {
            written: "$".into(),
            base_len: 0,
            compiled: JsonPath::default(),
        }
    }

    /// A path written in code and known to be valid (e.g. `result.isError`).
    /// Falls back to the root rather than panicking; the tests below pin
    /// every fixed path the crate uses.
    pub fn fixed(written: &str) -> Path {
        Path::parse(written).unwrap_or_else(|_| Path::root())
    }

    /// The path as the suite wrote it.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// Every value the path selects, in document order.
    pub fn find<'a>(&self, doc: &'a Value) -> Vec<Found<'a>> {
        self.compiled
            .query_located(doc)
            .into_iter()
            .map(|n| Found {
                value: n.node(),
                location: sugar_location(n.location(), self.base_len),
            })
            .collect()
    }

    /// The values only.
    pub fn values<'a>(&self, doc: &'a Value) -> Vec<&'a Value> {
        self.compiled.query(doc).all()
    }

    /// The first value selected, if any.
    pub fn first<'a>(&self, doc: &'a Value) -> Option<&'a Value> {
        self.compiled.query(doc).first()
    }

    /// Whether the path can select more than one value (has a wildcard,
    /// slice, filter or descendant segment).
    pub fn is_plural(&self) -> bool {
        self.written.contains('*')
            || self.written.contains("..")
            || self.written.contains('?')
            || self.written.contains(':')
    }
}

fn bracket_name(name: &str) -> String {
    let mut s = String::from("['");
    for c in name.chars() {
        match c {
            '\'' => s.push_str("\\'"),
            '\\' => s.push_str("\\\\"),
            c => s.push(c),
        }
    }
    s.push_str("']");
    s
}

/// Convert dotted sugar to bracket JSONPath segments, or None when the text
/// is not sugar (e.g. contains a descendant `..`).
fn sugar(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut at_segment_start = true;
    while chars.peek().is_some() {
        if at_segment_start {
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c == '.' || c == '[' {
                    break;
                }
                name.push(c);
                chars.next();
            }
            if name == "*" {
                out.push_str("[*]");
            } else if !name.is_empty() {
                out.push_str(&bracket_name(&name));
            }
            at_segment_start = false;
        }
        match chars.peek() {
            None => break,
            Some('.') => {
                chars.next();
                if chars.peek().is_none_or(|c| *c == '.') {
                    return None;
                }
                at_segment_start = true;
            }
            Some('[') => {
                // Copy one bracket selector, respecting quotes and nesting.
                let mut depth = 0usize;
                let mut quote: Option<char> = None;
                for c in chars.by_ref() {
                    out.push(c);
                    match quote {
                        Some(q) if c == q => quote = None,
                        Some(_) => {}
                        None => match c {
                            '\'' | '"' => quote = Some(c),
                            '[' => depth += 1,
                            ']' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        },
                    }
                }
                if depth != 0 {
                    return None;
                }
            }
            Some(_) => return None,
        }
    }
    Some(out)
}

/// Render a normalized path as sugar: `results[1].type`.
fn sugar_location(loc: &NormalizedPath<'_>, skip: usize) -> String {
    let mut s = String::new();
    for el in loc.iter().skip(skip) {
        match el {
            PathElement::Name(n) => {
                let plain = !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
                if plain {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(n);
                } else {
                    s.push_str(&bracket_name(n));
                }
            }
            PathElement::Index(i) => {
                s.push('[');
                s.push_str(&i.to_string());
                s.push(']');
            }
        }
    }
    if s.is_empty() { "$".to_string() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Path {
        Path::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn sugar_and_jsonpath_select_the_same() {
        let doc = json!({"result": {"content": [{"text": "hi"}], "my-key": 1, "2fa": true}});
        assert_eq!(p("result.content[0].text").first(&doc), Some(&json!("hi")));
        assert_eq!(
            p("$.result.content[0].text").first(&doc),
            Some(&json!("hi"))
        );
        assert_eq!(p("result.my-key").first(&doc), Some(&json!(1)));
        assert_eq!(p("$.result.my-key").first(&doc), Some(&json!(1)));
        assert_eq!(p("result.2fa").first(&doc), Some(&json!(true)));
        assert_eq!(p("$['result']['my-key']").first(&doc), Some(&json!(1)));
    }

    #[test]
    fn wildcards_report_locations_relative_to_base() {
        let doc = json!({"json": {"results": [{"type": "note"}, {"type": "log"}]}});
        let path =
            Path::parse_under(&["json"], "results[*].type").unwrap_or_else(|e| panic!("{e}"));
        let found = path.find(&doc);
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].location, "results[1].type");
        assert_eq!(found[1].value, &json!("log"));
        assert!(path.is_plural());
    }

    #[test]
    fn filters_and_descendants_work() {
        let doc = json!({"a": [{"x": 1}, {"x": 5}], "b": {"c": {"x": 9}}});
        assert_eq!(p("$.a[?@.x > 2].x").values(&doc), vec![&json!(5)]);
        assert_eq!(p("$..x").values(&doc).len(), 3);
        assert_eq!(p("a[?@.x > 2].x").values(&doc), vec![&json!(5)]);
    }

    #[test]
    fn fixed_paths_parse() {
        for f in ["text", "error", "notifications", "result.isError", "$"] {
            assert!(Path::parse(f).is_ok(), "{f}");
        }
        assert_eq!(Path::root().first(&json!(5)), Some(&json!(5)));
    }

    #[test]
    fn bad_paths_are_errors_not_panics() {
        assert!(Path::parse("").is_err());
        assert!(Path::parse("$[").is_err());
        assert!(Path::parse("a[").is_err());
    }
}
