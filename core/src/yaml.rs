//! A YAML document as a tree of nodes that remember where they were written.
//!
//! Suite loading needs the line and column of every key and value, and it must
//! report every problem at once rather than stop at the first. Deserializing
//! with serde gives neither, so the loader walks this tree instead: the parser
//! (`saphyr-parser`, a YAML 1.2 parser) produces events with spans, and this
//! module folds them into [`Node`]s, resolving plain scalars with the YAML 1.2
//! core schema (`true`, `42`, `1.5`, `null`, `~`) and keeping the scalar's
//! source text, so a string field given `3.10` reads "3.10" (as Go's yaml.v3
//! does for mcp-assert) rather than a reformatted float.
//!
//! Anchors, aliases and `<<` merge keys are supported.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError};
use serde_json::{Map, Number, Value};

use crate::diag::{Diagnostic, Span};

/// A resolved YAML scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// `text` is the scalar as written (after YAML unescaping); `quoted` tells
    /// whether it was a quoted or block scalar, which is always a string.
    Scalar {
        value: Scalar,
        text: String,
        quoted: bool,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
}

impl Node {
    pub fn scalar(value: Scalar, text: String, span: Span) -> Self {
        Node {
            kind: NodeKind::Scalar {
                value,
                text,
                quoted: false,
            },
            span,
        }
    }

    /// A short name of the node's type for messages: "a string", "a list", …
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            NodeKind::Scalar { value, .. } => match value {
                Scalar::Null => "null",
                Scalar::Bool(_) => "a boolean",
                Scalar::Int(_) => "an integer",
                Scalar::Float(_) => "a number",
                Scalar::Str(_) => "a string",
            },
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(
            self.kind,
            NodeKind::Scalar {
                value: Scalar::Null,
                ..
            }
        )
    }

    /// The entries of a mapping node.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            NodeKind::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The text of a scalar that is a string, or any non-null scalar's source
    /// text when `lenient` (how Go's yaml.v3 fills a string field).
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar {
                value: Scalar::Str(s),
                ..
            } => Some(s),
            _ => None,
        }
    }

    /// Any non-null scalar as its source text (`42` → "42", `true` → "true").
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar {
                value: Scalar::Null,
                ..
            } => None,
            NodeKind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Look a key up in a mapping node.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.key_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// A mapping key's text (keys are compared by their source text).
    pub fn key_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Convert to JSON. Mapping keys become their text; floats become numbers
    /// as [`float_json`] writes them.
    pub fn to_json(&self) -> Value {
        match &self.kind {
            NodeKind::Scalar { value, .. } => match value {
                Scalar::Null => Value::Null,
                Scalar::Bool(b) => Value::Bool(*b),
                Scalar::Int(i) => Value::Number((*i).into()),
                Scalar::Float(f) => float_json(*f),
                Scalar::Str(s) => Value::String(s.clone()),
            },
            NodeKind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeKind::Map(entries) => {
                let mut m = Map::new();
                for (k, v) in entries {
                    let key = k
                        .key_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| k.to_json().to_string());
                    m.insert(key, v.to_json());
                }
                Value::Object(m)
            }
        }
    }

    /// Build a node from JSON (for inputs that arrive as JSON objects, e.g.
    /// from JavaScript). Spans are empty.
    pub fn from_json(v: &Value) -> Node {
        let span = Span::none();
        let kind = match v {
            Value::Null => NodeKind::Scalar {
                value: Scalar::Null,
                text: "null".into(),
                quoted: false,
            },
            Value::Bool(b) => NodeKind::Scalar {
                value: Scalar::Bool(*b),
                text: b.to_string(),
                quoted: false,
            },
            Value::Number(n) => {
                let value = match n.as_i64() {
                    Some(i) => Scalar::Int(i),
                    None => Scalar::Float(n.as_f64().unwrap_or(f64::NAN)),
                };
                NodeKind::Scalar {
                    value,
                    text: n.to_string(),
                    quoted: false,
                }
            }
            Value::String(s) => NodeKind::Scalar {
                value: Scalar::Str(s.clone()),
                text: s.clone(),
                quoted: true,
            },
            Value::Array(a) => NodeKind::Seq(a.iter().map(Node::from_json).collect()),
            Value::Object(o) => NodeKind::Map(
                o.iter()
                    .map(|(k, v)| {
                        (
                            Node {
                                kind: NodeKind::Scalar {
                                    value: Scalar::Str(k.clone()),
                                    text: k.clone(),
                                    quoted: true,
                                },
                                span,
                            },
                            Node::from_json(v),
                        )
                    })
                    .collect(),
            ),
        };
        Node { kind, span }
    }
}

/// Resolve a plain scalar with the YAML 1.2 core schema.
pub fn resolve_plain(text: &str) -> Scalar {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        "true" | "True" | "TRUE" => return Scalar::Bool(true),
        "false" | "False" | "FALSE" => return Scalar::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Scalar::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Scalar::Float(f64::NAN),
        _ => {}
    }
    if let Some(hex) = text.strip_prefix("0x")
        && let Ok(i) = i64::from_str_radix(hex, 16)
    {
        return Scalar::Int(i);
    }
    if let Some(oct) = text.strip_prefix("0o")
        && let Ok(i) = i64::from_str_radix(oct, 8)
    {
        return Scalar::Int(i);
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(i) = text.parse::<i64>() {
            return Scalar::Int(i);
        }
        if let Ok(f) = text.parse::<f64>() {
            return Scalar::Float(f);
        }
    }
    if is_float_syntax(digits)
        && let Ok(f) = text.parse::<f64>()
    {
        return Scalar::Float(f);
    }
    Scalar::Str(text.to_string())
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` without the sign.
fn is_float_syntax(s: &str) -> bool {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((a, b)) => {
            (!a.is_empty() || !b.is_empty())
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
                && !(a.is_empty() && b.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.bytes().all(|c| c.is_ascii_digit()),
    };
    let exp_ok = match exp {
        None => true,
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
        }
    };
    mantissa_ok && exp_ok && (mantissa.contains('.') || exp.is_some())
}

fn span_of(s: &saphyr_parser::Span) -> Span {
    Span::new(
        s.start.line() as u32,
        s.start.col() as u32 + 1,
        s.end.line() as u32,
        s.end.col() as u32 + 1,
    )
}

fn scan_error(file: &str, e: &ScanError) -> Diagnostic {
    let m = e.marker();
    let line = m.line() as u32;
    let col = m.col() as u32 + 1;
    Diagnostic::error(
        file,
        Span::new(line, col, line, col + 1),
        format!("this is not valid YAML: {}", e.info()),
    )
    .with_hint("check the indentation and quoting on this line and the one before it")
}

enum Frame {
    Seq(Vec<Node>, Span, usize),
    Map(Vec<(Node, Node)>, Option<Node>, Span, usize),
}

/// How deep collections may nest. Deeper input is refused: every later
/// step walks the tree recursively, and a suite file is never this deep.
pub const MAX_DEPTH: usize = 256;

/// How many nodes aliases may add to a document, in all (each alias adds a
/// copy of its anchor's tree). Like Go yaml.v3's "excessive aliasing" check,
/// this stops a few hundred bytes of nested aliases from expanding into
/// gigabytes ("billion laughs").
pub const MAX_ALIAS_NODES: usize = 100_000;

/// How many values (scalars, sequences and mappings, aliases expanded) one
/// document may hold. Each takes about a hundred bytes once read, and more
/// once compiled into checks: this bounds the memory a file can claim. The
/// largest suites written by hand or generated hold a few hundred thousand.
pub const MAX_NODES: usize = 1_000_000;

/// How many values all the files of one suite (a run's paths) may hold
/// together: what they hold stays in memory for the whole run.
pub const MAX_SUITE_NODES: usize = 3_000_000;

/// A bound of [`parse`] that a document crossed.
enum Limit {
    Depth,
    Aliases,
    Nodes,
    /// The budget of a whole suite (several files) ran out in this one.
    SuiteNodes,
}

fn limit_error(file: &str, span: Span, limit: Limit) -> Diagnostic {
    match limit {
        Limit::Depth => Diagnostic::error(
            file,
            span,
            format!("the values here nest deeper than {MAX_DEPTH} levels"),
        )
        .with_hint("flatten the structure; no suite needs this depth"),
        Limit::Aliases => Diagnostic::error(
            file,
            span,
            format!(
                "excessive aliasing: the aliases of this file expand to more than {MAX_ALIAS_NODES} values"
            ),
        )
        .with_hint("write the values out, or alias smaller parts"),
        Limit::Nodes => Diagnostic::error(
            file,
            span,
            format!("this file holds more than {MAX_NODES} values"),
        )
        .with_hint("split the suite into several files (a directory of files is one suite)"),
        Limit::SuiteNodes => Diagnostic::error(
            file,
            span,
            format!(
                "the files of this suite hold more than {MAX_SUITE_NODES} values together; this one was not read"
            ),
        )
        .with_hint("run the suite's directories one at a time"),
    }
}

/// A scalar event as a node: quoted or `!!str` text stays a string, plain
/// text is resolved by the core schema.
fn scalar_node(
    text: String,
    style: ScalarStyle,
    tag: Option<&saphyr_parser::Tag>,
    span: Span,
) -> Node {
    let quoted = style != ScalarStyle::Plain;
    let resolved = match tag {
        Some(t) if t.handle == "tag:yaml.org,2002:" || t.handle == "!!" => {
            match t.suffix.as_str() {
                "str" => Scalar::Str(text.clone()),
                "null" => Scalar::Null,
                "bool" | "int" | "float" => resolve_plain(&text),
                _ => Scalar::Str(text.clone()),
            }
        }
        _ if quoted => Scalar::Str(text.clone()),
        _ => resolve_plain(&text),
    };
    Node {
        kind: NodeKind::Scalar {
            value: resolved,
            text,
            quoted,
        },
        span,
    }
}

/// The number of nodes in a tree (itself included).
fn size(n: &Node) -> usize {
    match &n.kind {
        NodeKind::Scalar { .. } => 1,
        NodeKind::Seq(items) => 1 + items.iter().map(size).sum::<usize>(),
        NodeKind::Map(entries) => {
            1 + entries
                .iter()
                .map(|(k, v)| size(k) + size(v))
                .sum::<usize>()
        }
    }
}

/// Parse one YAML document. An empty text is a null node. A text holding more
/// than one document is an error (one test file is one document). Nesting
/// deeper than [`MAX_DEPTH`], aliases that expand past [`MAX_ALIAS_NODES`]
/// and more than [`MAX_NODES`] values are errors too.
pub fn parse(file: &str, text: &str) -> Result<Node, Vec<Diagnostic>> {
    parse_within(file, text, MAX_NODES).map(|(node, _)| node)
}

/// [`parse`], allowing at most `max_nodes` values (at most [`MAX_NODES`]);
/// also returns how many the document holds.
pub fn parse_within(
    file: &str,
    text: &str,
    max_nodes: usize,
) -> Result<(Node, usize), Vec<Diagnostic>> {
    let max_nodes = max_nodes.min(MAX_NODES);
    let mut parser = Parser::new_from_str(text);
    // Each anchor with the size of its tree.
    let mut anchors: HashMap<usize, (Node, usize)> = HashMap::new();
    let mut alias_nodes = 0usize;
    let mut nodes = 0usize;
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Node> = None;
    let mut docs = 0usize;
    let mut diags = Vec::new();

    loop {
        let (event, raw_span) = match parser.next_event() {
            None => break,
            Some(Ok(ev)) => ev,
            Some(Err(e)) => {
                diags.push(scan_error(file, &e));
                return Err(diags);
            }
        };
        let span = span_of(&raw_span);
        if matches!(
            event,
            Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..)
        ) {
            nodes += 1;
            if nodes.saturating_add(alias_nodes) > max_nodes {
                diags.push(limit_error(
                    file,
                    span,
                    if max_nodes < MAX_NODES {
                        Limit::SuiteNodes
                    } else {
                        Limit::Nodes
                    },
                ));
                return Err(diags);
            }
        }
        let finished: Option<Node> = match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => None,
            Event::DocumentStart(_) => {
                docs += 1;
                if docs > 1 {
                    diags.push(
                        Diagnostic::error(
                            file,
                            span,
                            "this file holds more than one YAML document",
                        )
                        .with_hint(
                            "put one test per file, or list several under `tests:` in one document",
                        ),
                    );
                    return Err(diags);
                }
                None
            }
            Event::Alias(id) => match anchors.get(&id) {
                Some((n, n_size)) => {
                    alias_nodes = alias_nodes.saturating_add(*n_size);
                    if alias_nodes > MAX_ALIAS_NODES {
                        diags.push(limit_error(file, span, Limit::Aliases));
                        return Err(diags);
                    }
                    Some(Node {
                        kind: n.kind.clone(),
                        span,
                    })
                }
                None => {
                    diags.push(Diagnostic::error(file, span, "alias to an unknown anchor"));
                    return Err(diags);
                }
            },
            Event::Scalar(value, style, anchor, tag) => {
                let node = scalar_node(value.into_owned(), style, tag.as_deref(), span);
                if anchor > 0 {
                    anchors.insert(anchor, (node.clone(), 1));
                }
                Some(node)
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if stack.len() >= MAX_DEPTH => {
                diags.push(limit_error(file, span, Limit::Depth));
                return Err(diags);
            }
            Event::SequenceStart(anchor, _) => {
                stack.push(Frame::Seq(Vec::new(), span, anchor));
                None
            }
            Event::MappingStart(anchor, _) => {
                stack.push(Frame::Map(Vec::new(), None, span, anchor));
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(items, start, anchor)) => {
                    let node = Node {
                        kind: NodeKind::Seq(items),
                        span: Span::new(start.line, start.col, span.end_line, span.end_col),
                    };
                    if anchor > 0 {
                        anchors.insert(anchor, (node.clone(), size(&node)));
                    }
                    Some(node)
                }
                _ => None,
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(entries, _, start, anchor)) => {
                    let node = Node {
                        kind: NodeKind::Map(apply_merge_keys(entries)),
                        span: Span::new(start.line, start.col, span.end_line, span.end_col),
                    };
                    if anchor > 0 {
                        anchors.insert(anchor, (node.clone(), size(&node)));
                    }
                    Some(node)
                }
                _ => None,
            },
        };
        if let Some(node) = finished {
            match stack.last_mut() {
                None => root = Some(node),
                Some(Frame::Seq(items, ..)) => items.push(node),
                Some(Frame::Map(entries, pending, ..)) => match pending.take() {
                    None => *pending = Some(node),
                    Some(key) => entries.push((key, node)),
                },
            }
        }
    }
    let root = root.unwrap_or(Node {
        kind: NodeKind::Scalar {
            value: Scalar::Null,
            text: String::new(),
            quoted: false,
        },
        span: Span::new(1, 1, 1, 1),
    });
    Ok((root, nodes.saturating_add(alias_nodes)))
}

/// Apply YAML merge keys (`<<: *base` or `<<: [*a, *b]`): merged entries come
/// after the mapping's own and never override them.
fn apply_merge_keys(entries: Vec<(Node, Node)>) -> Vec<(Node, Node)> {
    if !entries.iter().any(|(k, _)| is_merge_key(k)) {
        return entries;
    }
    let mut own = Vec::new();
    let mut merged = Vec::new();
    for (k, v) in entries {
        if is_merge_key(&k) {
            match v.kind {
                NodeKind::Map(m) => merged.extend(m),
                NodeKind::Seq(items) => {
                    for item in items {
                        if let NodeKind::Map(m) = item.kind {
                            merged.extend(m);
                        }
                    }
                }
                _ => own.push((k, v)),
            }
        } else {
            own.push((k, v));
        }
    }
    for (k, v) in merged {
        let present = own.iter().any(|(ok, _)| ok.key_str() == k.key_str());
        if !present {
            own.push((k, v));
        }
    }
    own
}

fn is_merge_key(k: &Node) -> bool {
    matches!(&k.kind, NodeKind::Scalar { text, quoted: false, .. } if text == "<<")
}

/// A YAML float as a JSON number, written the way mcp-assert writes it (Go's
/// `encoding/json`): a value without a fraction has no fraction either, so
/// `y: 2.0` reaches a server as `2`, not `2.0`. Servers that tell integers
/// from floats (Python's `json`, for one) then see what they saw under
/// mcp-assert. Other values keep their shortest form (`1.5`); floats that
/// are not finite become strings (JSON has no NaN or infinity).
fn float_json(f: f64) -> Value {
    // 2^63 as f64 is exact, so this range holds every f64 that fits an i64.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f) {
        return Value::Number((f as i64).into());
    }
    Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or_else(|| Value::String(f.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_core_schema_and_keeps_text() {
        let n = parse(
            "t",
            "a: 3.10\nb: '42'\nc: 42\nd: ~\ne: true\nf: 0x1f\ng: 1e3\nh: -7\n",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(
            n.to_json(),
            json!({"a": 3.1, "b": "42", "c": 42, "d": null, "e": true, "f": 31, "g": 1000, "h": -7})
        );
        assert_eq!(n.get("a").and_then(Node::scalar_text), Some("3.10"));
        assert_eq!(n.get("b").and_then(Node::as_str), Some("42"));
    }

    #[test]
    fn spans_are_one_based() {
        let n = parse("t", "name: x\nassert:\n  tool: echo\n").unwrap_or_else(|d| panic!("{d:?}"));
        let tool = n.get("assert").and_then(|a| a.get("tool")).map(|t| t.span);
        assert_eq!(tool, Some(Span::new(3, 9, 3, 13)));
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let n = parse(
            "t",
            "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\nlist: [*b]\n",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(
            n.get("use").map(Node::to_json),
            Some(json!({"y": 3, "x": 1}))
        );
        assert_eq!(
            n.get("list").map(Node::to_json),
            Some(json!([{"x": 1, "y": 2}]))
        );
    }

    #[test]
    fn syntax_error_is_a_diagnostic_with_position() {
        let err = parse("bad.yaml", "a: [1, 2\nb: c\n")
            .err()
            .unwrap_or_default();
        assert_eq!(err.len(), 1);
        assert_eq!(err[0].file, "bad.yaml");
        assert!(err[0].span.line >= 1);
        assert!(err[0].message.starts_with("this is not valid YAML"));
    }

    #[test]
    fn values_are_counted_and_bounded() {
        let text = format!("[{}]", vec!["1"; MAX_NODES].join(","));
        let err = parse("t", &text).err().unwrap_or_default();
        assert_eq!(err.len(), 1);
        assert!(
            err[0].message.contains("more than 1000000 values"),
            "{err:?}"
        );

        // Aliases count as the values they expand to.
        let (_, nodes) = parse_within(
            "t",
            "a: &x [1, 2]
b: *x
",
            MAX_NODES,
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        // The mapping, `a`, the list of two, `b`, and the alias as three.
        assert_eq!(nodes, 1 + 1 + 3 + 1 + 3);
        // A smaller allowance (what a suite's budget leaves) is a suite error.
        let err = parse_within(
            "t",
            "a: [1, 2, 3]
",
            3,
        )
        .err()
        .unwrap_or_default();
        assert!(err[0].message.contains("values together"), "{err:?}");
    }

    #[test]
    fn two_documents_are_an_error() {
        let err = parse("t", "a: 1\n---\nb: 2\n").err().unwrap_or_default();
        assert_eq!(err.len(), 1);
        assert_eq!(err[0].span.line, 2);
    }

    #[test]
    fn integral_floats_are_written_without_a_fraction() {
        let n = parse(
            "t",
            "a: 2.0\nb: 1.5\nc: -0.0\nd: 1e3\ne: .inf\nf: 1e300\ng: -3.0\n",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        let text = n.to_json().to_string();
        assert_eq!(
            text,
            r#"{"a":2,"b":1.5,"c":0,"d":1000,"e":"inf","f":1e+300,"g":-3}"#
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let ok = format!(
            "x: {}1{}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(parse("t.yaml", &ok).is_ok());
        let deep: String = (0..=MAX_DEPTH)
            .map(|i| format!("{}- \n", "  ".repeat(i)))
            .collect::<String>()
            + &"  ".repeat(MAX_DEPTH + 1)
            + "- a\n";
        let err = parse("t.yaml", &deep).expect_err("too deep");
        assert!(err[0].message.contains("deeper than 256 levels"), "{err:?}");
    }

    #[test]
    fn alias_expansion_is_bounded() {
        // Ten times ten times ... : 10^9 values from a few hundred bytes.
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let err = parse("t.yaml", &text).expect_err("excessive aliasing");
        assert!(err[0].message.starts_with("excessive aliasing"), "{err:?}");
        // Ordinary reuse stays fine.
        let fine = "base: &b {command: srv, args: [a, b]}\none: *b\ntwo: *b\n";
        assert!(parse("t.yaml", fine).is_ok());
    }

    #[test]
    fn empty_is_null() {
        assert!(parse("t", "").map(|n| n.is_null()).unwrap_or(false));
    }
}
