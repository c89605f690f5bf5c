//! RFC 9535 JSONPath: a query is parsed once into a small tree and evaluated
//! against any number of documents, giving the selected nodes in order with
//! their normalized locations (member names and array indices).
//!
//! The semantics are those of `serde_json_path` 0.7.2, the engine mcpcheck used
//! before this one, so that no verdict changed; where that engine departs from
//! the RFC, this one departs the same way:
//! - a singular query used as a value (`@[-1] == 1`, `count(@[-1])`) never
//!   selects with a negative index (a filter query used as a test, `?@[-1]`,
//!   does);
//! - `<`, `<=`, `>` and `>=` hold only between values of the same JSON type;
//!   `<` orders numbers and strings only, `>` is "not `<` and not `==`" and
//!   `>=` is "not `<`", so `[1] > [2]` and `true >= false` hold;
//! - whitespace before a descendant segment (`$ ..a`) is refused;
//! - a high surrogate escape is written with an upper-case `D` and second digit
//!   (`\uD83D`, not `\ud83d`);
//! - a function name has at least two characters.
//!
//! One limit is this engine's own: brackets, parentheses and function calls
//! nested more than [`MAX_DEPTH`] deep are refused (`serde_json_path` recursed
//! until the stack ran out; `Path` refuses far less deep nesting first).
//!
//! Regular expressions of `match()` and `search()` are built as
//! `(?R)^(RE)$` and `(?R)(RE)`; an invalid one matches nothing. A pattern
//! written in the query is compiled once, when the query is parsed; one read
//! from the document is compiled when the filter meets it.

use std::borrow::Cow;
use std::str::FromStr;

use regex::Regex;
use serde_json::{Number, Value};

/// Why a query is not RFC 9535 JSONPath: the byte position in the query where
/// reading stopped, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at position {pos}: {why}")]
pub struct SyntaxError {
    pub pos: usize,
    pub why: &'static str,
}

/// How deep brackets, parentheses and function calls may nest (the evaluator
/// and the parser recurse; callers usually refuse far less).
pub const MAX_DEPTH: usize = 64;

/// A parsed query.
#[derive(Debug)]
pub struct Query {
    /// `@` rather than `$`.
    rel: bool,
    segs: Vec<Seg>,
}

#[derive(Debug)]
struct Seg {
    desc: bool,
    sels: Vec<Sel>,
}

#[derive(Debug)]
enum Sel {
    Name(String),
    Wild,
    Index(i64),
    Slice([Option<i64>; 3]),
    Filter(Box<Expr>),
}

#[derive(Debug)]
enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    Exists(Query),
    Cmp(Box<(Val, Op, Val)>),
    Re(Box<Re>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A value-typed expression: a literal, a singular query or a function.
#[derive(Debug)]
enum Val {
    Lit(Value),
    Sing(Query),
    Length(Box<Val>),
    Count(Nodes),
    Value(Nodes),
}

/// A nodes-typed function argument.
#[derive(Debug)]
enum Nodes {
    /// Evaluated as a singular query (no negative indices).
    Sing(Query),
    All(Query),
}

/// `match()` (whole string) or `search()` (any substring).
#[derive(Debug)]
struct Re {
    search: bool,
    subject: Val,
    pat: Pat,
}

#[derive(Debug)]
enum Pat {
    /// Written in the query: compiled at parse time (`None`: never matches).
    Fixed(Option<Regex>),
    /// Read from the document when evaluated.
    Doc(Val),
}

/// One step of a node's location: a member name or an array index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    Name(&'a str),
    Index(usize),
}

/// Parse `src`, which must start with `$`.
pub fn parse(src: &str) -> Result<Query, SyntaxError> {
    let mut p = Parser {
        src,
        s: src.as_bytes(),
        i: 0,
        depth: 0,
    };
    if !p.eat(b'$') {
        return p.err("a JSONPath query starts with '$'");
    }
    let q = p.segments(false)?;
    if p.i < p.s.len() {
        return p.err("expected '.', '..', '[' or the end of the path");
    }
    Ok(q)
}

impl Query {
    /// `$`: the whole document.
    pub fn root() -> Query {
        Query {
            rel: false,
            segs: Vec::new(),
        }
    }

    /// The values selected in `doc`, in order.
    pub fn all<'a>(&self, doc: &'a Value) -> Vec<&'a Value> {
        let mut ev = Eval::new(doc, false);
        ev.run(self, doc).into_iter().map(|(v, _)| v).collect()
    }

    /// The first value selected in `doc`.
    pub fn first<'a>(&self, doc: &'a Value) -> Option<&'a Value> {
        self.all(doc).into_iter().next()
    }

    /// The values selected in `doc`, in order, each with its location.
    pub fn located<'a>(&self, doc: &'a Value) -> Vec<(&'a Value, Vec<Step<'a>>)> {
        let mut ev = Eval::new(doc, true);
        let nodes = ev.run(self, doc);
        nodes
            .into_iter()
            .map(|(v, mut at)| {
                let mut loc = Vec::new();
                while let Some(&(parent, step)) = at.checked_sub(1).and_then(|i| ev.steps.get(i)) {
                    loc.push(step);
                    at = parent;
                }
                loc.reverse();
                (v, loc)
            })
            .collect()
    }

    /// Names and indices only, one per child segment.
    fn singular(&self) -> bool {
        self.segs
            .iter()
            .all(|s| !s.desc && matches!(s.sels.as_slice(), [Sel::Name(_) | Sel::Index(_)]))
    }
}

// ---------------------------------------------------------------- parsing

struct Parser<'s> {
    src: &'s str,
    s: &'s [u8],
    i: usize,
    depth: usize,
}

fn is_name_first(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

/// A function call: value-typed, or `match()`/`search()`.
enum Fun {
    Val(Val),
    Re(Re),
}

/// A function argument before the function's parameter types are checked.
enum Arg {
    Lit(Value),
    Query(Query),
    Fun(Fun),
}

impl Parser<'_> {
    fn err<T>(&self, why: &'static str) -> Result<T, SyntaxError> {
        Err(SyntaxError { pos: self.i, why })
    }

    fn err_at<T>(pos: usize, why: &'static str) -> Result<T, SyntaxError> {
        Err(SyntaxError { pos, why })
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn eat_str(&mut self, t: &str) -> bool {
        let hit = self.s[self.i..].starts_with(t.as_bytes());
        if hit {
            self.i += t.len();
        }
        hit
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("the path nests too deeply");
        }
        Ok(())
    }

    fn segments(&mut self, rel: bool) -> Result<Query, SyntaxError> {
        let mut segs = Vec::new();
        loop {
            if self.eat_str("..") {
                let sels = match self.peek() {
                    Some(b'*') => {
                        self.i += 1;
                        vec![Sel::Wild]
                    }
                    Some(b'[') => self.bracket()?,
                    _ => vec![Sel::Name(
                        self.member_name("expected a member name, '*' or '[' after '..'")?,
                    )],
                };
                segs.push(Seg { desc: true, sels });
                continue;
            }
            let save = self.i;
            self.ws();
            let sels = match self.peek() {
                Some(b'.') => {
                    self.i += 1;
                    if self.eat(b'*') {
                        vec![Sel::Wild]
                    } else {
                        vec![Sel::Name(
                            self.member_name("expected a member name or '*' after '.'")?,
                        )]
                    }
                }
                Some(b'[') => self.bracket()?,
                _ => {
                    self.i = save;
                    return Ok(Query { rel, segs });
                }
            };
            segs.push(Seg { desc: false, sels });
        }
    }

    fn member_name(&mut self, why: &'static str) -> Result<String, SyntaxError> {
        let start = self.i;
        if !self.peek().is_some_and(is_name_first) {
            return self.err(why);
        }
        while self
            .peek()
            .is_some_and(|b| is_name_first(b) || b.is_ascii_digit())
        {
            self.i += 1;
        }
        Ok(self.src[start..self.i].to_string())
    }

    fn bracket(&mut self) -> Result<Vec<Sel>, SyntaxError> {
        self.enter()?;
        self.i += 1;
        let mut sels = Vec::new();
        loop {
            self.ws();
            let why = if sels.is_empty() {
                "expected a selector after '[': a quoted name, an index, a slice, '*' or a '?' filter"
            } else {
                "expected a selector after ','"
            };
            sels.push(self.selector(why)?);
            self.ws();
            if self.eat(b']') {
                break;
            }
            if !self.eat(b',') {
                return self.err("expected ',' or ']' after a selector");
            }
        }
        self.depth -= 1;
        Ok(sels)
    }

    fn selector(&mut self, why: &'static str) -> Result<Sel, SyntaxError> {
        match self.peek() {
            Some(b'*') => {
                self.i += 1;
                Ok(Sel::Wild)
            }
            Some(b'\'' | b'"') => Ok(Sel::Name(self.string()?)),
            Some(b'?') => {
                self.i += 1;
                self.ws();
                Ok(Sel::Filter(Box::new(self.logical()?)))
            }
            Some(b':' | b'-' | b'0'..=b'9') => self.slice_or_index(),
            _ => self.err(why),
        }
    }

    fn opt_int(&mut self) -> Result<Option<i64>, SyntaxError> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.int().map(Some),
            _ => Ok(None),
        }
    }

    /// An index or slice bound: no leading zeros, not `-0`, within I-JSON's
    /// exact integers.
    fn int(&mut self) -> Result<i64, SyntaxError> {
        const WHY: &str = "expected an integer between -9007199254740991 and 9007199254740991, without leading zeros or '-0'";
        let start = self.i;
        let neg = self.eat(b'-');
        match self.peek() {
            Some(b'0') if !neg => self.i += 1,
            Some(b'1'..=b'9') => {
                while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    self.i += 1;
                }
            }
            _ => return Self::err_at(start, WHY),
        }
        match self.src[start..self.i].parse::<i64>() {
            Ok(n) if n.unsigned_abs() < (1 << 53) => Ok(n),
            _ => Self::err_at(start, WHY),
        }
    }

    fn slice_or_index(&mut self) -> Result<Sel, SyntaxError> {
        let start = self.opt_int()?;
        let save = self.i;
        self.ws();
        if !self.eat(b':') {
            self.i = save;
            return match start {
                Some(n) => Ok(Sel::Index(n)),
                None => self.err("expected an index or a slice"),
            };
        }
        self.ws();
        let end = self.opt_int()?;
        if end.is_some() {
            self.ws();
        }
        let mut step = None;
        if self.eat(b':') {
            let save = self.i;
            self.ws();
            step = self.opt_int()?;
            if step.is_none() {
                self.i = save;
            }
        }
        Ok(Sel::Slice([start, end, step]))
    }

    /// A quoted string (the parser is at the quote).
    fn string(&mut self) -> Result<String, SyntaxError> {
        let open = self.i;
        let quote = self.s[open];
        self.i += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.src[self.i..].chars().next() else {
                return Self::err_at(open, "the string has no closing quote");
            };
            let at = self.i;
            self.i += c.len_utf8();
            match c {
                _ if c as u32 == u32::from(quote) => return Ok(out),
                '\\' => {
                    let e = self.peek();
                    self.i += 1;
                    out.push(match e {
                        Some(b'b') => '\u{8}',
                        Some(b't') => '\t',
                        Some(b'n') => '\n',
                        Some(b'f') => '\u{c}',
                        Some(b'r') => '\r',
                        Some(b'/') => '/',
                        Some(b'\\') => '\\',
                        Some(q) if q == quote => char::from(q),
                        Some(b'u') => self.unicode(at)?,
                        _ => {
                            return Self::err_at(
                                at,
                                "invalid escape: use \\b \\t \\n \\f \\r \\/ \\\\, \\uXXXX or the quote",
                            );
                        }
                    });
                }
                _ if (c as u32) < 0x20 => {
                    return Self::err_at(
                        at,
                        "a control character in a string must be escaped (\\n, \\t, \\uXXXX)",
                    );
                }
                _ => out.push(c),
            }
        }
    }

    fn hex4(&mut self, at: usize) -> Result<u32, SyntaxError> {
        let digits = self.s.get(self.i..self.i + 4);
        match digits.filter(|d| d.iter().all(u8::is_ascii_hexdigit)) {
            Some(_) => {
                let n = u32::from_str_radix(&self.src[self.i..self.i + 4], 16).unwrap_or(0);
                self.i += 4;
                Ok(n)
            }
            None => Self::err_at(at, "\\u takes four hexadecimal digits"),
        }
    }

    /// After `\u`; `at` is the backslash.
    fn unicode(&mut self, at: usize) -> Result<char, SyntaxError> {
        const LONE: &str =
            "a surrogate escape must be a pair: \\uD800-\\uDBFF then \\uDC00-\\uDFFF";
        let hi_text = self.i;
        let hi = self.hex4(at)?;
        if !(0xD800..=0xDFFF).contains(&hi) {
            return char::from_u32(hi).map_or_else(|| Self::err_at(at, LONE), Ok);
        }
        let upper =
            self.s[hi_text] == b'D' && matches!(self.s[hi_text + 1], b'8' | b'9' | b'A' | b'B');
        if !upper || !self.eat_str("\\u") {
            return Self::err_at(at, LONE);
        }
        let lo_text = self.i;
        let lo = self.hex4(at)?;
        if !matches!(self.s[lo_text], b'D' | b'd') || !(0xDC00..=0xDFFF).contains(&lo) {
            return Self::err_at(at, LONE);
        }
        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
            .map_or_else(|| Self::err_at(at, LONE), Ok)
    }

    fn number(&mut self) -> Result<Value, SyntaxError> {
        const WHY: &str = "expected a number (JSON syntax: -12, 0.5, 1e3)";
        let start = self.i;
        self.eat(b'-');
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Self::err_at(start, WHY),
        }
        if self.peek() == Some(b'.') && self.s.get(self.i + 1).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.digits();
        }
        match Number::from_str(&self.src[start..self.i]) {
            Ok(n) => Ok(Value::Number(n)),
            Err(_) => Self::err_at(start, WHY),
        }
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
    }

    /// A literal if one starts here.
    fn literal(&mut self) -> Result<Option<Value>, SyntaxError> {
        Ok(Some(match self.peek() {
            Some(b'\'' | b'"') => Value::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ if self.eat_str("true") => Value::Bool(true),
            _ if self.eat_str("false") => Value::Bool(false),
            _ if self.eat_str("null") => Value::Null,
            _ => return Ok(None),
        }))
    }

    fn logical(&mut self) -> Result<Expr, SyntaxError> {
        self.enter()?;
        let mut any = vec![self.and()?];
        while self.op_after_ws("||") {
            any.push(self.and()?);
        }
        self.depth -= 1;
        Ok(if any.len() == 1 {
            any.swap_remove(0)
        } else {
            Expr::Or(any)
        })
    }

    fn and(&mut self) -> Result<Expr, SyntaxError> {
        let mut all = vec![self.basic()?];
        while self.op_after_ws("&&") {
            all.push(self.basic()?);
        }
        Ok(if all.len() == 1 {
            all.swap_remove(0)
        } else {
            Expr::And(all)
        })
    }

    /// Whitespace, `op`, whitespace; nothing consumed when `op` is not there.
    fn op_after_ws(&mut self, op: &str) -> bool {
        let save = self.i;
        self.ws();
        if self.eat_str(op) {
            self.ws();
            true
        } else {
            self.i = save;
            false
        }
    }

    fn comparison_op(&mut self) -> Option<Op> {
        let save = self.i;
        self.ws();
        let op = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ]
        .into_iter()
        .find(|(t, _)| self.eat_str(t));
        match op {
            Some((_, op)) => {
                self.ws();
                Some(op)
            }
            None => {
                self.i = save;
                None
            }
        }
    }

    fn paren(&mut self) -> Result<Expr, SyntaxError> {
        self.i += 1;
        self.ws();
        let e = self.logical()?;
        self.ws();
        if !self.eat(b')') {
            return self.err("expected ')'");
        }
        Ok(e)
    }

    fn query(&mut self) -> Result<Query, SyntaxError> {
        let rel = self.eat(b'@');
        if !rel {
            self.i += 1;
        }
        self.segments(rel)
    }

    fn basic(&mut self) -> Result<Expr, SyntaxError> {
        let start = self.i;
        match self.peek() {
            Some(b'!') => {
                self.i += 1;
                self.ws();
                let inner = match self.peek() {
                    Some(b'(') => self.paren()?,
                    Some(b'$' | b'@') => Expr::Exists(self.query()?),
                    _ => match self.function()? {
                        Fun::Re(re) => Expr::Re(Box::new(re)),
                        Fun::Val(_) => {
                            return Self::err_at(
                                start,
                                "'!' applies to a query, a parenthesized expression, match() or search()",
                            );
                        }
                    },
                };
                Ok(Expr::Not(Box::new(inner)))
            }
            Some(b'(') => self.paren(),
            Some(b'$' | b'@') => {
                let q = self.query()?;
                match self.comparison_op() {
                    None => Ok(Expr::Exists(q)),
                    Some(_) if !q.singular() => Self::err_at(
                        start,
                        "only a singular query (member names and indices) can be compared",
                    ),
                    Some(op) => Ok(Expr::Cmp(Box::new((Val::Sing(q), op, self.comparable()?)))),
                }
            }
            _ => {
                let left = match self.literal()? {
                    Some(v) => Val::Lit(v),
                    None => match self.function()? {
                        Fun::Re(re) => {
                            if self.comparison_op().is_some() {
                                return Self::err_at(
                                    start,
                                    "match() and search() cannot be compared",
                                );
                            }
                            return Ok(Expr::Re(Box::new(re)));
                        }
                        Fun::Val(v) => v,
                    },
                };
                match self.comparison_op() {
                    Some(op) => Ok(Expr::Cmp(Box::new((left, op, self.comparable()?)))),
                    None => Self::err_at(
                        start,
                        "a literal or a length(), count() or value() result must be compared (e.g. length(@.x) > 0)",
                    ),
                }
            }
        }
    }

    /// The right-hand side of a comparison.
    fn comparable(&mut self) -> Result<Val, SyntaxError> {
        let start = self.i;
        if let Some(v) = self.literal()? {
            return Ok(Val::Lit(v));
        }
        match self.peek() {
            Some(b'$' | b'@') => {
                let q = self.query()?;
                if q.singular() {
                    Ok(Val::Sing(q))
                } else {
                    Self::err_at(
                        start,
                        "only a singular query (member names and indices) can be compared",
                    )
                }
            }
            Some(b'a'..=b'z') => match self.function()? {
                Fun::Val(v) => Ok(v),
                Fun::Re(_) => Self::err_at(start, "match() and search() cannot be compared"),
            },
            _ => self.err(
                "expected a literal, a singular query or a function after the comparison operator",
            ),
        }
    }

    fn function(&mut self) -> Result<Fun, SyntaxError> {
        const NAME: &str =
            "expected a filter expression: a query, a comparison or a function such as match()";
        let start = self.i;
        if !matches!(self.peek(), Some(b'a'..=b'z')) {
            return self.err(NAME);
        }
        while matches!(self.peek(), Some(b'a'..=b'z' | b'0'..=b'9' | b'_')) {
            self.i += 1;
        }
        let name_end = self.i;
        if name_end - start < 2 || !self.eat(b'(') {
            return Self::err_at(start, NAME);
        }
        self.enter()?;
        self.ws();
        let mut args = Vec::new();
        loop {
            args.push(self.arg()?);
            self.ws();
            if self.eat(b')') {
                break;
            }
            if !self.eat(b',') {
                return self.err("expected ',' or ')' after a function argument");
            }
            self.ws();
        }
        self.depth -= 1;
        let name = &self.src[start..name_end];
        const ARITY: &str = "wrong number of arguments: length(), count() and value() take one, match() and search() two";
        match name {
            "length" | "count" | "value" => {
                let Ok([a]) = <[Arg; 1]>::try_from(args) else {
                    return Self::err_at(start, ARITY);
                };
                Ok(Fun::Val(match name {
                    "length" => Val::Length(Box::new(value_arg(a, start)?)),
                    "count" => Val::Count(nodes_arg(a, start)?),
                    _ => Val::Value(nodes_arg(a, start)?),
                }))
            }
            "match" | "search" => {
                let Ok([s, p]) = <[Arg; 2]>::try_from(args) else {
                    return Self::err_at(start, ARITY);
                };
                let subject = value_arg(s, start)?;
                let search = name == "search";
                let pat = match value_arg(p, start)? {
                    Val::Lit(Value::String(p)) => Pat::Fixed(compile(search, &p)),
                    Val::Lit(_) => Pat::Fixed(None),
                    v => Pat::Doc(v),
                };
                Ok(Fun::Re(Re {
                    search,
                    subject,
                    pat,
                }))
            }
            _ => Self::err_at(
                start,
                "unknown function: RFC 9535 defines length(), count(), match(), search() and value()",
            ),
        }
    }

    fn arg(&mut self) -> Result<Arg, SyntaxError> {
        if let Some(v) = self.literal()? {
            return Ok(Arg::Lit(v));
        }
        match self.peek() {
            Some(b'$' | b'@') => Ok(Arg::Query(self.query()?)),
            Some(b'a'..=b'z') => self.function().map(Arg::Fun),
            _ => self.err("expected a function argument: a literal, a query or a function"),
        }
    }
}

fn value_arg(a: Arg, at: usize) -> Result<Val, SyntaxError> {
    match a {
        Arg::Lit(v) => Ok(Val::Lit(v)),
        Arg::Query(q) if q.singular() => Ok(Val::Sing(q)),
        Arg::Fun(Fun::Val(v)) => Ok(v),
        Arg::Query(_) => Parser::err_at(
            at,
            "this argument is a value: a query here must be singular (member names and indices)",
        ),
        Arg::Fun(Fun::Re(_)) => Parser::err_at(
            at,
            "this argument is a value: match() and search() give a logical result",
        ),
    }
}

fn nodes_arg(a: Arg, at: usize) -> Result<Nodes, SyntaxError> {
    match a {
        Arg::Query(q) if q.singular() => Ok(Nodes::Sing(q)),
        Arg::Query(q) => Ok(Nodes::All(q)),
        _ => Parser::err_at(at, "count() and value() take a query"),
    }
}

fn compile(search: bool, pattern: &str) -> Option<Regex> {
    #[cfg(test)]
    tests::COMPILED.with(|c| c.set(c.get() + 1));
    let full = if search {
        format!("(?R)({pattern})")
    } else {
        format!("(?R)^({pattern})$")
    };
    Regex::new(&full).ok()
}

// ---------------------------------------------------------------- evaluation

/// A node list under evaluation: each node with the index (plus one) of its
/// last location step in `steps`, 0 for none.
type List<'a> = Vec<(&'a Value, usize)>;

struct Eval<'a> {
    root: &'a Value,
    /// Location steps as a tree: (parent, step); only kept when asked for.
    steps: Vec<(usize, Step<'a>)>,
    track: bool,
}

impl<'a> Eval<'a> {
    fn new(root: &'a Value, track: bool) -> Eval<'a> {
        Eval {
            root,
            steps: Vec::new(),
            track,
        }
    }

    fn run(&mut self, q: &Query, current: &'a Value) -> List<'a> {
        let start = if q.rel { current } else { self.root };
        let mut nodes = vec![(start, 0)];
        for seg in &q.segs {
            let mut next = Vec::new();
            for (v, at) in nodes {
                if seg.desc {
                    self.descend(&seg.sels, v, at, &mut next);
                } else {
                    for sel in &seg.sels {
                        self.select(sel, v, at, &mut next);
                    }
                }
            }
            nodes = next;
        }
        nodes
    }

    fn step(&mut self, at: usize, step: Step<'a>) -> usize {
        if !self.track {
            return 0;
        }
        self.steps.push((at, step));
        self.steps.len()
    }

    fn descend(&mut self, sels: &[Sel], v: &'a Value, at: usize, out: &mut List<'a>) {
        for sel in sels {
            self.select(sel, v, at, out);
        }
        match v {
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    let at = self.step(at, Step::Index(i));
                    self.descend(sels, c, at, out);
                }
            }
            Value::Object(o) => {
                for (k, c) in o {
                    let at = self.step(at, Step::Name(k));
                    self.descend(sels, c, at, out);
                }
            }
            _ => {}
        }
    }

    fn push_index(&mut self, a: &'a [Value], i: usize, at: usize, out: &mut List<'a>) {
        if let Some(c) = a.get(i) {
            let at = self.step(at, Step::Index(i));
            out.push((c, at));
        }
    }

    fn select(&mut self, sel: &Sel, v: &'a Value, at: usize, out: &mut List<'a>) {
        match (sel, v) {
            (Sel::Name(n), Value::Object(o)) => {
                if let Some((k, c)) = o.get_key_value(n) {
                    let at = self.step(at, Step::Name(k));
                    out.push((c, at));
                }
            }
            (Sel::Index(i), Value::Array(a)) => {
                let abs = usize::try_from(i.unsigned_abs()).ok();
                let i = if *i < 0 {
                    abs.and_then(|n| a.len().checked_sub(n))
                } else {
                    abs
                };
                if let Some(i) = i {
                    self.push_index(a, i, at, out);
                }
            }
            (Sel::Slice(bounds), Value::Array(a)) => {
                for i in slice_indices(*bounds, a.len()) {
                    self.push_index(a, i, at, out);
                }
            }
            (Sel::Wild | Sel::Filter(_), Value::Array(a)) => {
                for (i, c) in a.iter().enumerate() {
                    if let Sel::Filter(e) = sel
                        && !test(e, c, self.root)
                    {
                        continue;
                    }
                    let at = self.step(at, Step::Index(i));
                    out.push((c, at));
                }
            }
            (Sel::Wild | Sel::Filter(_), Value::Object(o)) => {
                for (k, c) in o {
                    if let Sel::Filter(e) = sel
                        && !test(e, c, self.root)
                    {
                        continue;
                    }
                    let at = self.step(at, Step::Name(k));
                    out.push((c, at));
                }
            }
            _ => {}
        }
    }
}

/// The indices a slice selects from an array of `len`, in order (RFC 9535
/// 2.3.4.2.2).
fn slice_indices([start, end, step]: [Option<i64>; 3], len: usize) -> Vec<usize> {
    let step = step.unwrap_or(1);
    let len = len as i64;
    let norm = |i: i64| if i >= 0 { i } else { len + i };
    let mut out = Vec::new();
    if step > 0 {
        let lower = norm(start.unwrap_or(0)).clamp(0, len);
        let upper = norm(end.unwrap_or(len)).clamp(0, len);
        let mut i = lower;
        while i < upper {
            out.push(i as usize);
            i += step;
        }
    } else if step < 0 {
        let upper = norm(start.unwrap_or(len - 1)).clamp(-1, len - 1);
        let lower = norm(end.unwrap_or(-len - 1)).clamp(-1, len - 1);
        let mut i = upper;
        while lower < i {
            out.push(i as usize);
            i += step;
        }
    }
    out
}

fn nodes<'a>(q: &Query, current: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    Eval::new(root, false)
        .run(q, current)
        .into_iter()
        .map(|(v, _)| v)
        .collect()
}

/// A singular query's node: no negative indices (see the module header).
fn singular<'a>(q: &Query, current: &'a Value, root: &'a Value) -> Option<&'a Value> {
    let mut v = if q.rel { current } else { root };
    for seg in &q.segs {
        v = match (seg.sels.first()?, v) {
            (Sel::Name(n), Value::Object(o)) => o.get(n)?,
            (Sel::Index(i), Value::Array(a)) => a.get(usize::try_from(*i).ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

fn node_list<'a>(n: &Nodes, current: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    match n {
        Nodes::Sing(q) => singular(q, current, root).into_iter().collect(),
        Nodes::All(q) => nodes(q, current, root),
    }
}

/// A value expression's value; `None` is RFC 9535's Nothing.
fn value<'a>(v: &'a Val, current: &'a Value, root: &'a Value) -> Option<Cow<'a, Value>> {
    match v {
        Val::Lit(l) => Some(Cow::Borrowed(l)),
        Val::Sing(q) => singular(q, current, root).map(Cow::Borrowed),
        Val::Length(a) => {
            let n = match value(a, current, root)?.as_ref() {
                Value::String(s) => s.chars().count(),
                Value::Array(a) => a.len(),
                Value::Object(o) => o.len(),
                _ => return None,
            };
            Some(Cow::Owned(Value::from(n)))
        }
        Val::Count(n) => Some(Cow::Owned(Value::from(node_list(n, current, root).len()))),
        Val::Value(n) => match node_list(n, current, root).as_slice() {
            [one] => Some(Cow::Borrowed(*one)),
            _ => None,
        },
    }
}

fn test(e: &Expr, current: &Value, root: &Value) -> bool {
    match e {
        Expr::Or(any) => any.iter().any(|e| test(e, current, root)),
        Expr::And(all) => all.iter().all(|e| test(e, current, root)),
        Expr::Not(e) => !test(e, current, root),
        Expr::Exists(q) => !nodes(q, current, root).is_empty(),
        Expr::Cmp(c) => {
            let (l, op, r) = c.as_ref();
            let l = value(l, current, root);
            let r = value(r, current, root);
            compare(l.as_deref(), *op, r.as_deref())
        }
        Expr::Re(re) => {
            let subject = value(&re.subject, current, root);
            let Some(Value::String(s)) = subject.as_deref() else {
                return false;
            };
            match &re.pat {
                Pat::Fixed(r) => r.as_ref().is_some_and(|r| r.is_match(s)),
                Pat::Doc(p) => match value(p, current, root).as_deref() {
                    Some(Value::String(p)) => compile(re.search, p).is_some_and(|r| r.is_match(s)),
                    _ => false,
                },
            }
        }
    }
}

fn compare(l: Option<&Value>, op: Op, r: Option<&Value>) -> bool {
    let same = || matches!((l, r), (Some(a), Some(b)) if std::mem::discriminant(a) == std::mem::discriminant(b));
    let lt = || match (l, r) {
        (Some(Value::Number(a)), Some(Value::Number(b))) => number_lt(a, b),
        (Some(Value::String(a)), Some(Value::String(b))) => a < b,
        _ => false,
    };
    let eq = || match (l, r) {
        (None, None) => true,
        (Some(Value::Number(a)), Some(Value::Number(b))) => number_eq(a, b),
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    match op {
        Op::Eq => eq(),
        Op::Ne => !eq(),
        Op::Lt => same() && lt(),
        Op::Le => same() && (lt() || eq()),
        Op::Gt => same() && !lt() && !eq(),
        Op::Ge => same() && !lt(),
    }
}

fn number_eq(a: &Number, b: &Number) -> bool {
    if let (Some(a), Some(b)) = (a.as_f64(), b.as_f64()) {
        a == b
    } else if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        a == b
    } else if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        a == b
    } else {
        false
    }
}

fn number_lt(a: &Number, b: &Number) -> bool {
    if let (Some(a), Some(b)) = (a.as_f64(), b.as_f64()) {
        a < b
    } else if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        a < b
    } else if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        a < b
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    thread_local! {
        /// Regexes compiled by `compile` on this thread.
        pub(super) static COMPILED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    fn compiled() -> usize {
        COMPILED.with(std::cell::Cell::get)
    }

    fn err(q: &str) -> String {
        match parse(q) {
            Ok(_) => panic!("{q} parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_name_the_position_and_what_was_expected() {
        assert_eq!(
            err("$["),
            "at position 2: expected a selector after '[': a quoted name, an index, a slice, '*' or a '?' filter"
        );
        assert_eq!(err("a"), "at position 0: a JSONPath query starts with '$'");
        assert_eq!(
            err("$.a b"),
            "at position 3: expected '.', '..', '[' or the end of the path"
        );
        assert_eq!(
            err("$.1"),
            "at position 2: expected a member name or '*' after '.'"
        );
        assert_eq!(
            err("$..-"),
            "at position 3: expected a member name, '*' or '[' after '..'"
        );
        assert_eq!(
            err("$[0 1]"),
            "at position 4: expected ',' or ']' after a selector"
        );
        assert_eq!(err("$[0,]"), "at position 4: expected a selector after ','");
        assert!(err("$[-0]").starts_with("at position 2: expected an integer between"));
        assert!(err("$[9007199254740992]").starts_with("at position 2: expected an integer"));
        assert_eq!(
            err("$['abc"),
            "at position 2: the string has no closing quote"
        );
        assert!(err(r"$['a\qb']").starts_with("at position 4: invalid escape"));
        assert!(err("$['a\u{1}']").starts_with("at position 4: a control character"));
        assert!(
            err(r"$['\uD800']").starts_with("at position 3: a surrogate escape must be a pair")
        );
        assert!(err(r"$['\u12']").starts_with("at position 3: \\u takes four"));
        assert_eq!(err("$[?(@.a]"), "at position 7: expected ')'");
        assert_eq!(
            err("$[?@.* == 1]"),
            "at position 3: only a singular query (member names and indices) can be compared"
        );
        assert!(err("$[?length(@.a)]").starts_with("at position 3: a literal or a length()"));
        assert!(err("$[?foo(@.a)]").starts_with("at position 3: unknown function"));
        assert!(err("$[?match(@.a)]").starts_with("at position 3: wrong number of arguments"));
        assert!(err("$[?length(@.*) == 1]").starts_with("at position 3: this argument is a value"));
        assert!(
            err("$[?count('a') == 1]")
                .starts_with("at position 3: count() and value() take a query")
        );
        assert_eq!(
            err("$[?match(@.a, 'x') == true]"),
            "at position 3: match() and search() cannot be compared"
        );
        assert!(err("$[?!length(@.a)]").starts_with("at position 3: '!' applies to"));
        assert!(err("$[?@.a == 1e]").starts_with("at position 10: expected a number"));
        assert!(
            err("$[?@.a == ]").starts_with("at position 10: expected a literal, a singular query")
        );
    }

    #[test]
    fn nesting_is_bounded_without_overflowing_the_stack() {
        let deep = format!("$[?{}@.a{}]", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(
            parse(&deep).map(|_| ()).map_err(|e| e.why),
            Err("the path nests too deeply")
        );
        let brackets = format!("${}", "[?@".repeat(10_000));
        assert!(parse(&brackets).is_err());
        let calls = format!("$[?{}@{}]", "count(".repeat(10_000), ")".repeat(10_000));
        assert!(parse(&calls).is_err());
    }

    #[test]
    fn a_written_regex_is_compiled_once_and_a_read_one_each_time() {
        let doc = json!([{"s": "ab", "p": "a."}, {"s": "xb", "p": "x"}, {"s": "b", "p": "c"}]);
        let before = compiled();
        let q = parse("$[?match(@.s, '[ax]b')]").unwrap();
        assert_eq!(compiled(), before + 1);
        for _ in 0..10 {
            assert_eq!(q.all(&doc).len(), 2);
        }
        assert_eq!(
            compiled(),
            before + 1,
            "evaluation compiled the written pattern again"
        );
        let q = parse("$[?search(@.s, @.p)]").unwrap();
        assert_eq!(compiled(), before + 1);
        assert_eq!(q.all(&doc), vec![&doc[0], &doc[1]]);
        assert_eq!(
            compiled(),
            before + 4,
            "one compilation per element visited"
        );
    }

    #[test]
    fn locations_are_the_steps_from_the_root() {
        let doc = json!({"a": [{"b": 1}, {"b": 2}], "c": {"b": 3}});
        let q = parse("$..b").unwrap();
        let found = q.located(&doc);
        let locs: Vec<_> = found.iter().map(|(_, l)| l.clone()).collect();
        assert_eq!(
            locs,
            vec![
                vec![Step::Name("a"), Step::Index(0), Step::Name("b")],
                vec![Step::Name("a"), Step::Index(1), Step::Name("b")],
                vec![Step::Name("c"), Step::Name("b")],
            ]
        );
        assert_eq!(Query::root().located(&doc), vec![(&doc, vec![])]);
        assert_eq!(parse("$.a[-1].b").unwrap().first(&doc), Some(&json!(2)));
    }

    #[test]
    fn slices_follow_the_rfc_bounds() {
        let idx = |b: [Option<i64>; 3], len| slice_indices(b, len);
        assert_eq!(idx([Some(1), Some(3), None], 5), vec![1, 2]);
        assert_eq!(idx([None, None, Some(-1)], 3), vec![2, 1, 0]);
        assert_eq!(idx([Some(-1), Some(-4), Some(-2)], 3), vec![2, 0]);
        assert_eq!(idx([Some(-10), Some(10), Some(3)], 7), vec![0, 3, 6]);
        assert_eq!(idx([None, None, Some(0)], 3), Vec::<usize>::new());
        assert_eq!(idx([None, None, Some(-1)], 0), Vec::<usize>::new());
    }
}
