//! Paths into JSON documents: RFC 9535 JSONPath (our engine, [`jsonpath`]), with
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

pub mod jsonpath;

use jsonpath::{Query, Step, SyntaxError};
use serde_json::Value;

/// A compiled path, remembering how it was written.
#[derive(Clone, Debug)]
pub struct Path {
    written: String,
    /// Number of leading elements of every located result that belong to the
    /// base the path was compiled under (e.g. `json`), hidden in messages.
    base_len: usize,
    /// Shared by clones: the tree is read-only once parsed.
    compiled: std::sync::Arc<Query>,
    /// The member names and indices from the root, when that is all the path
    /// is (no wildcard, slice, filter or descendant): then it is followed
    /// directly, without the JSONPath engine (the common case, and the hot
    /// one when a quantifier looks into thousands of elements).
    simple: Option<Vec<Seg>>,
    /// The simple path's location as shown (after the base), rendered once.
    simple_loc: std::sync::Arc<str>,
    /// A path with one `[*]` between two simple parts (`results[*].type`):
    /// followed directly too, element by element.
    wild: Option<Box<Wild>>,
    /// How the path reads with its leading `json` member replaced by
    /// `result.structuredContent` (see [`Path::find_json_in_structured`]).
    json_alias: Option<Box<Path>>,
}

#[derive(Clone, Debug)]
struct Wild {
    before: Vec<Seg>,
    after: Vec<Seg>,
    /// How the part before `[*]` and the part after it are shown.
    before_loc: std::sync::Arc<str>,
    after_loc: std::sync::Arc<str>,
}

#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Name(String),
    Index(i64),
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
    loc: Loc<'a>,
}

#[derive(Clone, Debug)]
enum Loc<'a> {
    /// A location from the JSONPath engine; `skip` leading elements hidden,
    /// then `prefix` (if any) shown in their place.
    Normalized {
        path: Vec<Step<'a>>,
        skip: usize,
        prefix: Option<&'static str>,
    },
    /// A simple path's location, rendered once when the path was compiled.
    Simple(std::sync::Arc<str>),
    /// An element of a `[*]` path.
    Wild(&'a Wild, usize),
}

impl Found<'_> {
    /// The location in sugar form relative to the path's base, e.g.
    /// `results[1].type`. Built on demand: most checks never need it.
    pub fn location(&self) -> String {
        match &self.loc {
            Loc::Normalized { path, skip, prefix } => {
                let rest = sugar_location(path, *skip);
                match prefix {
                    Some(p) if rest == "$" => (*p).to_string(),
                    Some(p) if rest.starts_with('[') => format!("{p}{rest}"),
                    Some(p) => format!("{p}.{rest}"),
                    None => rest,
                }
            }
            Loc::Simple(s) => s.to_string(),
            Loc::Wild(w, i) => {
                let (before, after) = (&w.before_loc, &w.after_loc);
                let head = if before.as_ref() == "$" {
                    format!("[{i}]")
                } else {
                    format!("{before}[{i}]")
                };
                match after.as_ref() {
                    "$" => head,
                    a if a.starts_with('[') => format!("{head}{a}"),
                    a => format!("{head}.{a}"),
                }
            }
        }
    }
}

/// The member names and indices of a JSONPath made only of those.
fn simple_segments(c: &str) -> Option<Vec<Seg>> {
    let mut rest = c.strip_prefix('$')?;
    let mut segs = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("['").or_else(|| rest.strip_prefix("[\"")) {
            let quote = if rest.starts_with("['") { '\'' } else { '"' };
            let mut name = String::new();
            let mut chars = r.char_indices();
            let mut end = None;
            while let Some((i, ch)) = chars.next() {
                match ch {
                    '\\' => match chars.next() {
                        Some((_, e @ ('\\' | '\'' | '"'))) => name.push(e),
                        _ => return None,
                    },
                    ch if ch == quote => {
                        end = Some(i);
                        break;
                    }
                    ch => name.push(ch),
                }
            }
            let after = &r[end? + 1..];
            rest = after.strip_prefix(']')?;
            segs.push(Seg::Name(name));
        } else if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']')?;
            let idx: i64 = r[..close].trim().parse().ok()?;
            segs.push(Seg::Index(idx));
            rest = &r[close + 1..];
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = &r[..end];
            let ok = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || !c.is_ascii())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii());
            if !ok {
                return None;
            }
            segs.push(Seg::Name(name.to_string()));
            rest = &r[end..];
        } else {
            return None;
        }
    }
    Some(segs)
}

/// `prefix[*]suffix` with simple parts, split there.
fn wild_of(c: &str, skip: usize) -> Option<Wild> {
    let (head, tail) = c.split_once("[*]")?;
    if tail.contains("[*]") {
        return None;
    }
    let before = simple_segments(head)?;
    let after = simple_segments(&format!("${tail}"))?;
    if before.len() < skip {
        return None;
    }
    Some(Wild {
        before_loc: render_simple(&before[skip..]).into(),
        after_loc: render_simple(&after).into(),
        before,
        after,
    })
}

fn simple_location(simple: Option<&[Seg]>, skip: usize) -> std::sync::Arc<str> {
    match simple {
        Some(segs) => render_simple(&segs[skip.min(segs.len())..]).into(),
        None => "".into(),
    }
}

fn render_simple(segs: &[Seg]) -> String {
    render_elements(segs.iter().map(|seg| match seg {
        Seg::Name(n) => Ok(n.as_str()),
        Seg::Index(i) => Err(*i),
    }))
}

/// Render path elements (a member name, or an array index) as sugar:
/// `results[1].type`, names that are not plain in brackets, `$` for none.
fn render_elements<'n>(elements: impl Iterator<Item = Result<&'n str, i64>>) -> String {
    let mut s = String::new();
    for el in elements {
        match el {
            Ok(n) => {
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
            Err(i) => {
                s.push('[');
                s.push_str(&i.to_string());
                s.push(']');
            }
        }
    }
    if s.is_empty() { "$".to_string() } else { s }
}

/// Follow simple segments from `doc`.
fn follow<'a>(mut v: &'a Value, segs: &[Seg]) -> Option<&'a Value> {
    for seg in segs {
        v = match (seg, v) {
            (Seg::Name(n), Value::Object(o)) => o.get(n)?,
            (Seg::Index(i), Value::Array(a)) => {
                let i = if *i < 0 { a.len() as i64 + *i } else { *i };
                a.get(usize::try_from(i).ok()?)?
            }
            _ => return None,
        };
    }
    Some(v)
}

/// How deep brackets and parentheses may nest in a path.
pub const MAX_PATH_NESTING: usize = 32;

/// How many filters (`?…`) may nest inside one another: each level can
/// multiply the work, so a short path could otherwise run for hours.
pub const MAX_FILTER_NESTING: usize = 4;

/// Why a written path is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// Nothing is written.
    Empty,
    /// More than [`MAX_PATH_NESTING`] brackets or parentheses deep.
    TooDeep,
    /// More than [`MAX_FILTER_NESTING`] filters inside one another.
    TooManyFilters,
    /// Not RFC 9535 JSONPath (nor its dotted sugar): where the parser stopped
    /// and why. The position is in the path as written when it starts with
    /// `$`; otherwise in `read_as`, the JSONPath the sugar was read as.
    Syntax {
        error: SyntaxError,
        read_as: Option<String>,
    },
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => f.write_str("the path is empty"),
            Self::TooDeep => write!(
                f,
                "the path nests deeper than {MAX_PATH_NESTING} brackets or parentheses"
            ),
            Self::TooManyFilters => write!(
                f,
                "the path nests more than {MAX_FILTER_NESTING} filters inside one another"
            ),
            Self::Syntax {
                error,
                read_as: None,
            } => write!(f, "{error}"),
            Self::Syntax {
                error,
                read_as: Some(text),
            } => write!(f, "at position {} of {text}: {}", error.pos, error.why),
        }
    }
}

impl std::error::Error for PathError {}

/// Refuse a path whose nesting would overflow the parser's stack or make
/// evaluation exponential, before it reaches the parser.
fn check_nesting(path: &str) -> Result<(), PathError> {
    // Open brackets and parentheses, and whether each opened a filter.
    let mut open: Vec<bool> = Vec::new();
    let mut quote: Option<char> = None;
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            match c {
                '\\' => {
                    chars.next();
                }
                _ if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '[' | '(' => {
                let filter = c == '[' && chars.clone().find(|c| !c.is_whitespace()) == Some('?');
                open.push(filter);
                if open.len() > MAX_PATH_NESTING {
                    return Err(PathError::TooDeep);
                }
                if open.iter().filter(|f| **f).count() > MAX_FILTER_NESTING {
                    return Err(PathError::TooManyFilters);
                }
            }
            ']' | ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    Ok(())
}

impl Path {
    /// Compile `written` as a path from the document root.
    pub fn parse(written: &str) -> Result<Path, PathError> {
        Path::parse_under(&[], written)
    }

    /// Compile `written` as a path relative to `base` (member names), e.g.
    /// `results[*].type` under `["json"]` selects `$.json.results[*].type`.
    pub fn parse_under(base: &[&str], written: &str) -> Result<Path, PathError> {
        let trimmed = written.trim();
        if trimmed.is_empty() {
            return Err(PathError::Empty);
        }
        check_nesting(trimmed)?;
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
            match jsonpath::parse(c) {
                Ok(compiled) => {
                    let simple = simple_segments(c);
                    let json_alias = json_alias_of(c, base.len()).map(Box::new);
                    let simple_loc = simple_location(simple.as_deref(), base.len());
                    return Ok(Path {
                        written: trimmed.to_string(),
                        base_len: base.len(),
                        compiled: compiled.into(),
                        simple,
                        simple_loc,
                        wild: wild_of(c, base.len()).map(Box::new),
                        json_alias,
                    });
                }
                Err(mut error) => {
                    if first_err.is_none() {
                        // Shown against what was written when the base's
                        // prefix stands for its `$`.
                        let read_as = if trimmed.starts_with('$') && error.pos >= prefix.len() {
                            error.pos = error.pos + 1 - prefix.len();
                            None
                        } else {
                            Some(c.clone())
                        };
                        first_err = Some(PathError::Syntax { error, read_as });
                    }
                }
            }
        }
        Err(first_err.unwrap_or(PathError::Empty))
    }

    /// The root path `$` (the whole document).
    pub fn root() -> Path {
        Path {
            written: "$".into(),
            base_len: 0,
            compiled: Query::root().into(),
            simple: Some(Vec::new()),
            simple_loc: "$".into(),
            wild: None,
            json_alias: None,
        }
    }

    /// A path written in code and known to be valid (e.g. `result.isError`).
    /// Falls back to the root rather than panicking; the tests below pin
    /// every fixed path the crate uses.
    pub fn fixed(written: &str) -> Path {
        Path::parse(written).unwrap_or_else(|_| Path::root())
    }

    /// The path's steps from the document root as values (member names as
    /// strings, indices as numbers, `[*]` as `"*"`), when it is made of
    /// those only; `None` for filters, slices and descendants.
    pub fn segments(&self) -> Option<Vec<Value>> {
        fn seg(s: &Seg) -> Value {
            match s {
                Seg::Name(n) => Value::String(n.clone()),
                Seg::Index(i) => Value::from(*i),
            }
        }
        if let Some(segs) = &self.simple {
            return Some(segs.iter().map(seg).collect());
        }
        let wild = self.wild.as_ref()?;
        let mut out: Vec<Value> = wild.before.iter().map(seg).collect();
        out.push(Value::String("*".into()));
        out.extend(wild.after.iter().map(seg));
        Some(out)
    }

    /// The path as the suite wrote it.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// Every value the path selects, in document order.
    pub fn find<'a>(&'a self, doc: &'a Value) -> Vec<Found<'a>> {
        self.find_with(doc, None)
    }

    /// A simple path's value in `doc` (no wildcard, filter or slice), without
    /// a list: `Some(None)` when it is absent; `None` when the path is not
    /// simple and [`Path::find`] must be used. The same result as `find`,
    /// for loops over many elements.
    #[inline]
    pub fn find_simple<'a>(&'a self, doc: &'a Value) -> Option<Option<Found<'a>>> {
        let segs = self.simple.as_ref()?;
        Some(follow(doc, segs).map(|value| Found {
            value,
            loc: Loc::Simple(self.simple_loc.clone()),
        }))
    }

    fn find_with<'a>(&'a self, doc: &'a Value, prefix: Option<&'static str>) -> Vec<Found<'a>> {
        if let Some(segs) = &self.simple {
            return match follow(doc, segs) {
                None => Vec::new(),
                Some(value) => {
                    let shown = match prefix {
                        Some(p) => {
                            let rest = render_simple(&segs[self.base_len.min(segs.len())..]);
                            match rest.as_str() {
                                "$" => p.to_string(),
                                r if r.starts_with('[') => format!("{p}{r}"),
                                r => format!("{p}.{r}"),
                            }
                        }
                        None => {
                            return vec![Found {
                                value,
                                loc: Loc::Simple(self.simple_loc.clone()),
                            }];
                        }
                    };
                    vec![Found {
                        value,
                        loc: Loc::Simple(shown.into()),
                    }]
                }
            };
        }
        if let (Some(w), None) = (&self.wild, prefix) {
            let Some(Value::Array(items)) = follow(doc, &w.before) else {
                // Not an array there: the engine decides (objects' members).
                return self.find_with_engine(doc, prefix);
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, el) in items.iter().enumerate() {
                if let Some(value) = follow(el, &w.after) {
                    out.push(Found {
                        value,
                        loc: Loc::Wild(w, i),
                    });
                }
            }
            return out;
        }
        self.find_with_engine(doc, prefix)
    }

    fn find_with_engine<'a>(&self, doc: &'a Value, prefix: Option<&'static str>) -> Vec<Found<'a>> {
        self.compiled
            .located(doc)
            .into_iter()
            .map(|(value, path)| Found {
                value,
                loc: Loc::Normalized {
                    path,
                    skip: self.base_len,
                    prefix,
                },
            })
            .collect()
    }

    /// Whether the path starts at the Observation's `json` member.
    pub fn reads_json(&self) -> bool {
        self.json_alias.is_some()
    }

    /// Find the values of a path into `json` in an Observation whose `json`
    /// is its result's `structuredContent` (stored once, under `result`).
    /// Locations read as they would under `json`.
    pub fn find_json_in_structured<'a>(&'a self, obs: &'a Value) -> Vec<Found<'a>> {
        match &self.json_alias {
            Some(alias) => {
                let prefix = if self.base_len == 0 {
                    Some("json")
                } else {
                    None
                };
                alias.find_with(obs, prefix)
            }
            None => self.find(obs),
        }
    }

    /// The values only.
    pub fn values<'a>(&self, doc: &'a Value) -> Vec<&'a Value> {
        match &self.simple {
            Some(segs) => follow(doc, segs).into_iter().collect(),
            None => self.compiled.all(doc),
        }
    }

    /// The first value selected, if any.
    pub fn first<'a>(&self, doc: &'a Value) -> Option<&'a Value> {
        match &self.simple {
            Some(segs) => follow(doc, segs),
            None => self.compiled.first(doc),
        }
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

/// The same JSONPath text with a leading `json` member read as
/// `result.structuredContent`; the alias hides two leading elements where the
/// original hid one (or none, for a path written from the root).
fn json_alias_of(c: &str, base_len: usize) -> Option<Path> {
    let rest = c.strip_prefix("$['json']").or_else(|| {
        c.strip_prefix("$.json")
            .filter(|r| r.is_empty() || r.starts_with(['.', '[']))
    })?;
    let text = format!("$['result']['structuredContent']{rest}");
    let compiled = jsonpath::parse(&text).ok()?;
    let skip = if base_len == 0 { 2 } else { base_len + 1 };
    let simple = simple_segments(&text);
    Some(Path {
        simple_loc: simple_location(simple.as_deref(), skip),
        wild: wild_of(&text, skip).map(Box::new),
        written: text,
        base_len: skip,
        compiled: compiled.into(),
        simple,
        json_alias: None,
    })
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
fn sugar_location(loc: &[Step<'_>], skip: usize) -> String {
    render_elements(loc.iter().skip(skip).map(|el| match el {
        Step::Name(n) => Ok(*n),
        Step::Index(i) => Err(i64::try_from(*i).unwrap_or(i64::MAX)),
    }))
}

#[cfg(test)]
mod tests {

    #[test]
    fn nesting_that_would_overflow_or_explode_is_refused() {
        let parens = format!("$[?{}@.a{} == 1]", "(".repeat(5000), ")".repeat(5000));
        let Err(e) = Path::parse(&parens) else {
            panic!("refused")
        };
        assert_eq!(e, PathError::TooDeep);
        assert!(e.to_string().contains("deeper than 32"), "{e}");
        let mut filters = String::from("@.x");
        for _ in 0..22 {
            filters = format!("$[?{filters}]");
            filters = filters.replacen('$', "@", 1);
        }
        let Err(e) = Path::parse(&format!("$[?{filters}]")) else {
            panic!("refused")
        };
        assert_eq!(e, PathError::TooManyFilters);
        assert!(e.to_string().contains("more than 4 filters"), "{e}");
        // Brackets inside quotes do not count; ordinary filters pass.
        assert!(Path::parse("$['[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[']").is_ok());
        assert!(Path::parse("$.results[?@.score > 0.5].id").is_ok());
        assert!(Path::parse("$[?@.a[?@.b[?@.c]]]").is_ok());
    }

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
        assert_eq!(found[1].location(), "results[1].type");
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
    fn syntax_errors_point_into_what_was_written() {
        let at = |base: &[&str], p: &str| match Path::parse_under(base, p) {
            Ok(_) => panic!("{p} parsed"),
            Err(e) => e.to_string(),
        };
        // A `$` path: the position is in the text as written, whatever the base.
        assert_eq!(
            at(&["json"], "$.items[?@.n = 1]"),
            "at position 13: expected ',' or ']' after a selector"
        );
        assert_eq!(
            at(&[], "$.items[?@.n = 1]"),
            at(&["json"], "$.items[?@.n = 1]")
        );
        // Sugar: the position is in the JSONPath it was read as, shown.
        assert_eq!(
            at(&[], "items[?@.n = 1]"),
            "at position 16 of $['items'][?@.n = 1]: expected ',' or ']' after a selector"
        );
    }

    #[test]
    fn bad_paths_are_errors_not_panics() {
        assert!(Path::parse("").is_err());
        assert!(Path::parse("$[").is_err());
        assert!(Path::parse("a[").is_err());
    }
}
