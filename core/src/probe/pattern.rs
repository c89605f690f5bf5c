//! A string that matches a `pattern`, for the common shapes of patterns in
//! tool schemas (`^[A-Z]{2}-\d{4}$`, `^(asc|desc)$`, `^[a-z0-9_-]+$`):
//! literals, escapes, classes, groups (the first alternative), anchors and
//! quantifiers (their least count, or a few more). Lookaround and
//! backreferences are not attempted. Every result is checked with the
//! `regex` crate before it is used.

use regex::RegexBuilder;

/// The longest string generated for a pattern, in characters: nested
/// counted repetitions (`((a{64}){64}){64}…`) multiply, and a pattern of a
/// few bytes could otherwise ask for terabytes.
pub(crate) const MAX_CHARS: usize = 4096;

/// The longest pattern read, in characters.
const MAX_PATTERN_CHARS: usize = 4096;

/// Strings for `pattern`, shortest repetitions first; only those the
/// pattern is known to match (checked with `regex`; unchecked when `regex`
/// cannot compile the pattern, e.g. ECMA-262-only syntax).
#[cfg(test)]
pub(crate) fn examples(pattern: &str) -> Vec<String> {
    examples_within(pattern).0
}

/// [`examples`], and whether a string was left out for being longer than
/// [`MAX_CHARS`] (the pattern asks for more than mcpcheck builds).
pub(crate) fn examples_within(pattern: &str) -> (Vec<String>, bool) {
    let re = compiled(pattern);
    let mut out: Vec<String> = Vec::new();
    let mut too_long = false;
    for extra in [0usize, 1, 3] {
        let s = match generate(pattern, extra) {
            Generated::Done(s) => s,
            Generated::TooLong => {
                too_long = true;
                break;
            }
            Generated::Unsupported => break,
        };
        let ok = re.as_ref().is_none_or(|r| r.is_match(&s));
        if ok && !out.contains(&s) {
            out.push(s);
        }
    }
    if let Some(r) = &re {
        for c in FALLBACKS {
            if r.is_match(c) && !out.iter().any(|o| o == c) {
                out.push((*c).to_string());
            }
        }
    }
    let too_long = too_long && out.is_empty();
    (out, too_long)
}

/// The pattern compiled with small limits (`None` past them, or when the
/// `regex` crate does not read it).
pub(crate) fn compiled(pattern: &str) -> Option<regex::Regex> {
    if pattern.len() > MAX_PATTERN_CHARS {
        return None;
    }
    RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
        .ok()
}

/// Ordinary strings tried when generation fails or does not match.
const FALLBACKS: &[&str] = &[
    "example",
    "a",
    "A",
    "0",
    "1",
    "abc",
    "ABC",
    "abc123",
    "example-1",
    "example_1",
    "2025-01-15",
    "2025-01-15T10:30:00Z",
    "10:30",
    "user@example.com",
    "https://example.com/",
    "/tmp/example",
    "192.0.2.1",
    "3fa85f64-5717-4562-b3fc-2c963f66afa6",
];

struct Gen {
    chars: Vec<char>,
    pos: usize,
    extra: usize,
    /// A string grew past [`MAX_CHARS`].
    too_long: bool,
}

enum Generated {
    Done(String),
    /// The pattern uses what is not attempted.
    Unsupported,
    /// Its shortest string is longer than [`MAX_CHARS`].
    TooLong,
}

/// One string for `pattern` with each open-ended repetition `extra` more than
/// its least count.
fn generate(pattern: &str, extra: usize) -> Generated {
    if pattern.len() > MAX_PATTERN_CHARS {
        return Generated::TooLong;
    }
    let mut g = Gen {
        chars: pattern.chars().collect(),
        pos: 0,
        extra,
        too_long: false,
    };
    match g.alternation(0) {
        _ if g.too_long => Generated::TooLong,
        Some(s) if g.pos == g.chars.len() => Generated::Done(s),
        _ => Generated::Unsupported,
    }
}

impl Gen {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Alternatives separated by `|`: the first is kept, the rest parsed.
    fn alternation(&mut self, depth: usize) -> Option<String> {
        if depth > 32 {
            return None;
        }
        let first = self.sequence(depth)?;
        while self.eat('|') {
            self.sequence(depth)?;
        }
        Some(first)
    }

    fn sequence(&mut self, depth: usize) -> Option<String> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom(depth)?;
            let (min, max) = self.quantifier()?;
            let n = if max == Some(min) {
                min
            } else {
                let want = min + self.extra.max(usize::from(min == 0 && self.extra > 0));
                max.map_or(want, |m| want.min(m))
            };
            let chars = atom.chars().count();
            if chars.saturating_mul(n) + out.chars().count() > MAX_CHARS {
                self.too_long = true;
                return None;
            }
            for _ in 0..n {
                out.push_str(&atom);
            }
        }
        Some(out)
    }

    fn atom(&mut self, depth: usize) -> Option<String> {
        let c = self.peek()?;
        self.pos += 1;
        match c {
            '^' | '$' => Some(String::new()),
            '.' => Some("a".into()),
            '(' => {
                if self.eat('?') {
                    if self.eat(':') {
                    } else if self.eat('P') || self.peek() == Some('<') {
                        if !self.eat('<') {
                            return None;
                        }
                        if matches!(self.peek(), Some('=') | Some('!')) {
                            return None;
                        }
                        while let Some(n) = self.peek() {
                            self.pos += 1;
                            if n == '>' {
                                break;
                            }
                        }
                    } else {
                        return None;
                    }
                }
                let inner = self.alternation(depth + 1)?;
                self.eat(')').then_some(inner)
            }
            '[' => self.class().map(String::from),
            '\\' => self.escape(),
            '*' | '+' | '?' | '{' | ')' => None,
            c => Some(c.to_string()),
        }
    }

    fn escape(&mut self) -> Option<String> {
        let c = self.peek()?;
        self.pos += 1;
        let s = match c {
            'd' => "1".to_string(),
            'w' => "a".to_string(),
            's' => " ".to_string(),
            'D' | 'S' => "a".to_string(),
            'W' => "-".to_string(),
            'b' | 'A' | 'z' | 'Z' => String::new(),
            'n' => "\n".to_string(),
            't' => "\t".to_string(),
            'r' => "\r".to_string(),
            'u' => self.hex(4)?.to_string(),
            'x' => self.hex(2)?.to_string(),
            c if c.is_ascii_digit() || c == 'k' || c == 'B' || c == 'p' || c == 'P' => return None,
            c => c.to_string(),
        };
        Some(s)
    }

    fn hex(&mut self, n: usize) -> Option<char> {
        let digits: String = self.chars.get(self.pos..self.pos + n)?.iter().collect();
        self.pos += n;
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
    }

    /// A character class: its first member, or for a negated class the first
    /// of a few ordinary characters it does not exclude.
    fn class(&mut self) -> Option<char> {
        let negated = self.eat('^');
        let mut members: Vec<(char, char)> = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek()?;
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            self.pos += 1;
            let lo = if c == '\\' {
                let e = self.peek()?;
                self.pos += 1;
                match e {
                    'd' => {
                        members.push(('0', '9'));
                        continue;
                    }
                    'w' => {
                        members.extend([('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]);
                        continue;
                    }
                    's' => {
                        members.push((' ', ' '));
                        continue;
                    }
                    'n' => '\n',
                    't' => '\t',
                    'u' => self.hex(4)?,
                    'D' | 'W' | 'S' | 'p' | 'P' => return None,
                    e => e,
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|n| *n != ']') {
                self.pos += 1;
                let hi = self.peek()?;
                self.pos += 1;
                let hi = if hi == '\\' {
                    let e = self.peek()?;
                    self.pos += 1;
                    e
                } else {
                    hi
                };
                members.push((lo, hi));
            } else {
                members.push((lo, lo));
            }
        }
        let inside = |ch: char| members.iter().any(|(a, b)| *a <= ch && ch <= *b);
        if negated {
            "aA0_-x".chars().find(|ch| !inside(*ch))
        } else {
            members.first().map(|(a, _)| *a)
        }
    }

    /// `(min, max)` of the quantifier after an atom (`(1, Some(1))` without).
    fn quantifier(&mut self) -> Option<(usize, Option<usize>)> {
        let q = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                let start = self.pos;
                self.pos += 1;
                let read = |g: &mut Self| {
                    let mut n = String::new();
                    while let Some(d) = g.peek().filter(char::is_ascii_digit) {
                        n.push(d);
                        g.pos += 1;
                    }
                    n.parse::<usize>().ok()
                };
                let Some(min) = read(self) else {
                    // `{` that is not a quantifier is a literal in ECMA-262.
                    self.pos = start;
                    return Some((1, Some(1)));
                };
                let max = if self.eat(',') { read(self) } else { Some(min) };
                if !self.eat('}') {
                    return None;
                }
                self.eat('?');
                return Some((min, max));
            }
            _ => return Some((1, Some(1))),
        };
        self.pos += 1;
        if !self.eat('?') {
            self.eat('+');
        }
        Some(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_patterns() {
        let table = [
            (r"^[A-Z]{2}-\d{4}$", "AA-1111"),
            (r"^(asc|desc)$", "asc"),
            (r"^[a-z0-9_-]+$", "a"),
            (r"^\d{4}-\d{2}-\d{2}$", "1111-11-11"),
            (r"^[^/]+$", "a"),
            (r"^v?\d+(\.\d+)*$", "1"),
            (r"^(?:[a-z]+/)?[a-z]+$", "a"),
            (r"^https?://", "http://"),
            (r"owner/repo", "owner/repo"),
        ];
        for (pattern, want) in table {
            let got = examples(pattern);
            assert_eq!(
                got.first().map(String::as_str),
                Some(want),
                "{pattern}: {got:?}"
            );
        }
        // Lookaround is not attempted; a fallback may still fit.
        assert!(
            examples(r"^(?=.*\d)[a-z\d]{3}$")
                .iter()
                .all(|s| s.len() == 3)
        );
        assert!(examples(r"(a)\1").is_empty());
        // Counted repetitions multiply: the length is bounded, not the count.
        assert_eq!(examples("^a{100}$"), ["a".repeat(100)]);
        let bomb = "^((((((a{64}){64}){64}){64}){64}){64}){64}$";
        assert_eq!(examples_within(bomb), (Vec::new(), true));
    }
}
