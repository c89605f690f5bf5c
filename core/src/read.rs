//! Typed reading of YAML nodes, collecting diagnostics instead of stopping.
//!
//! Every loader (suites, expectations, traces, hooks) reads through a [`LoadCx`]:
//! each accessor returns `None` on a problem and records a diagnostic with the
//! node's position and, where it helps, a hint. Callers keep going, so one
//! pass reports every problem in a file.

use crate::diag::{Diagnostic, Span, did_you_mean};
use crate::yaml::{Node, NodeKind, Scalar};

/// A mapping's entries: (key text, key node, value node).
pub type Entries<'n> = Vec<(&'n str, &'n Node, &'n Node)>;

/// The value of the entry `key` among `entries`, if there is one.
pub fn entry<'n>(entries: &[(&'n str, &'n Node, &'n Node)], key: &str) -> Option<&'n Node> {
    entries
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, _, n)| *n)
}

/// The reading context of one file.
#[derive(Debug)]
pub struct LoadCx {
    pub file: String,
    pub diags: Vec<Diagnostic>,
    /// The memory the file's compiled regular expressions take so far.
    pub regex_bytes: usize,
    /// The memory the compiled regular expressions of the suite's files
    /// read before this one take.
    pub suite_regex_bytes: usize,
    /// The suite runs on a client its runner is given (the npm package's
    /// `runSuite`), so a test needs no `server` of its own.
    pub client_given: bool,
}

impl LoadCx {
    pub fn new(file: &str) -> Self {
        LoadCx {
            file: file.to_string(),
            diags: Vec::new(),
            regex_bytes: 0,
            suite_regex_bytes: 0,
            client_given: false,
        }
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        let d = Diagnostic::error(&self.file, span, message);
        self.diags.push(d);
    }

    pub fn error_hint(&mut self, span: Span, message: impl Into<String>, hint: impl Into<String>) {
        let d = Diagnostic::error(&self.file, span, message).with_hint(hint);
        self.diags.push(d);
    }

    pub fn warning(&mut self, span: Span, message: impl Into<String>, hint: Option<String>) {
        let mut d = Diagnostic::warning(&self.file, span, message);
        d.hint = hint;
        self.diags.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }

    /// The entries of a mapping, or a diagnostic naming what was expected.
    pub fn map<'n>(&mut self, n: &'n Node, what: &str) -> Option<&'n [(Node, Node)]> {
        match &n.kind {
            NodeKind::Map(m) => Some(m),
            _ => {
                self.error(
                    n.span,
                    format!(
                        "`{what}` must be a mapping of keys to values, not {}",
                        n.type_name()
                    ),
                );
                None
            }
        }
    }

    /// A mapping's entries as (key text, key node, value), rejecting keys not
    /// in `allowed` with a "did you mean" hint, and duplicate keys.
    pub fn entries<'n>(&mut self, n: &'n Node, what: &str, allowed: &[&str]) -> Entries<'n> {
        self.entries_placed(n, what, allowed, |_| None)
    }

    /// [`LoadCx::entries`] of a mapping mcp-assert reads into a Go struct,
    /// where a `null` value leaves the field at its zero value: such an
    /// entry is dropped, as if the key were not written, with a warning.
    /// (Not for mappings whose values are data, where `null` means null.)
    pub fn struct_entries<'n>(&mut self, n: &'n Node, what: &str, allowed: &[&str]) -> Entries<'n> {
        self.struct_entries_placed(n, what, allowed, &[], |_| None)
    }

    /// [`LoadCx::struct_entries`] with [`LoadCx::entries_placed`]'s `elsewhere`;
    /// the keys of `keep_null` (this tool's own, where `null` means something)
    /// keep their `null`.
    pub fn struct_entries_placed<'n>(
        &mut self,
        n: &'n Node,
        what: &str,
        allowed: &[&str],
        keep_null: &[&str],
        elsewhere: impl Fn(&str) -> Option<String>,
    ) -> Entries<'n> {
        let mut entries = self.entries_placed(n, what, allowed, elsewhere);
        entries.retain(|(key, k, v)| {
            if !v.is_null() || keep_null.contains(key) {
                return true;
            }
            self.warning(
                k.span,
                format!(
                    "`{key}: null` is read as if `{key}` were not written, as mcp-assert reads it"
                ),
                Some(format!("remove `{key}`, or give it a value")),
            );
            false
        });
        entries
    }

    /// [`LoadCx::entries`], where `elsewhere` may say where an unknown key belongs
    /// instead (e.g. "`tool` goes under `assert:`"); that hint wins over the
    /// "did you mean" one.
    pub fn entries_placed<'n>(
        &mut self,
        n: &'n Node,
        what: &str,
        allowed: &[&str],
        elsewhere: impl Fn(&str) -> Option<String>,
    ) -> Entries<'n> {
        let Some(m) = self.map(n, what) else {
            return Vec::new();
        };
        let mut out: Vec<(&'n str, &'n Node, &'n Node)> = Vec::new();
        for (k, v) in m {
            let Some(key) = k.key_str() else {
                self.error(k.span, format!("keys of `{what}` must be plain names"));
                continue;
            };
            if out.iter().any(|(seen, _, _)| *seen == key) {
                self.error(k.span, format!("`{key}` appears twice in `{what}`"));
                continue;
            }
            if !allowed.contains(&key) {
                let hint = elsewhere(key)
                    .or_else(|| did_you_mean(key, allowed.iter().copied()))
                    .unwrap_or_else(|| {
                        format!(
                            "`{what}` accepts: {}",
                            allowed
                                .iter()
                                .map(|a| format!("`{a}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    });
                self.error_hint(k.span, format!("unknown key `{key}` in `{what}`"), hint);
                continue;
            }
            out.push((key, k, v));
        }
        out
    }

    /// A boolean. Unquoted YAML 1.1 spellings (`yes`, `no`, `on`, `off`) are
    /// accepted too, as Go's yaml.v3 does for a boolean field.
    pub fn bool(&mut self, n: &Node, key: &str) -> Option<bool> {
        match &n.kind {
            NodeKind::Scalar {
                value: Scalar::Bool(b),
                ..
            } => Some(*b),
            NodeKind::Scalar {
                text,
                quoted: false,
                ..
            } if matches!(text.to_ascii_lowercase().as_str(), "yes" | "on" | "y") => Some(true),
            NodeKind::Scalar {
                text,
                quoted: false,
                ..
            } if matches!(text.to_ascii_lowercase().as_str(), "no" | "off" | "n") => Some(false),
            _ => {
                self.error_hint(
                    n.span,
                    format!("`{key}` must be true or false, not {}", n.type_name()),
                    "write `true` or `false` without quotes",
                );
                None
            }
        }
    }

    pub fn int(&mut self, n: &Node, key: &str) -> Option<i64> {
        match &n.kind {
            NodeKind::Scalar {
                value: Scalar::Int(i),
                ..
            } => Some(*i),
            NodeKind::Scalar {
                value: Scalar::Float(f),
                ..
            } if f.fract() == 0.0 && f.is_finite() => Some(*f as i64),
            _ => {
                self.error(
                    n.span,
                    format!("`{key}` must be a whole number, not {}", n.type_name()),
                );
                None
            }
        }
    }

    pub fn uint(&mut self, n: &Node, key: &str) -> Option<u64> {
        let i = self.int(n, key)?;
        if i < 0 {
            self.error(n.span, format!("`{key}` must not be negative"));
            return None;
        }
        Some(i as u64)
    }

    pub fn number(&mut self, n: &Node, key: &str) -> Option<f64> {
        match &n.kind {
            NodeKind::Scalar {
                value: Scalar::Int(i),
                ..
            } => Some(*i as f64),
            NodeKind::Scalar {
                value: Scalar::Float(f),
                ..
            } if f.is_finite() => Some(*f),
            _ => {
                self.error(
                    n.span,
                    format!("`{key}` must be a number, not {}", n.type_name()),
                );
                None
            }
        }
    }

    /// A fraction in `[0, 1]` (thresholds).
    pub fn fraction(&mut self, n: &Node, key: &str) -> Option<f64> {
        let f = self.number(n, key)?;
        if !(0.0..=1.0).contains(&f) {
            self.error_hint(
                n.span,
                format!("`{key}` must be between 0 and 1, not {f}"),
                "a threshold is a fraction: 0.8 means 80%",
            );
            return None;
        }
        Some(f)
    }

    /// A string. Like Go's yaml.v3 filling a string field, any non-null
    /// scalar is accepted as its source text (`equals: 42` reads "42").
    pub fn string(&mut self, n: &Node, key: &str) -> Option<String> {
        match n.scalar_text() {
            Some(s) => Some(s.to_string()),
            None => {
                self.error(
                    n.span,
                    format!("`{key}` must be a string, not {}", n.type_name()),
                );
                None
            }
        }
    }

    /// A non-empty string.
    pub fn name(&mut self, n: &Node, key: &str) -> Option<String> {
        let s = self.string(n, key)?;
        if s.trim().is_empty() {
            self.error(n.span, format!("`{key}` must not be empty"));
            return None;
        }
        Some(s)
    }

    /// A list of strings; a single string is a list of one.
    pub fn strings(&mut self, n: &Node, key: &str) -> Option<Vec<(String, Span)>> {
        match &n.kind {
            NodeKind::Seq(items) => {
                let mut out = Vec::new();
                let mut ok = true;
                for item in items {
                    match self.string(item, key) {
                        Some(s) => out.push((s, item.span)),
                        None => ok = false,
                    }
                }
                ok.then_some(out)
            }
            NodeKind::Scalar { .. } if !n.is_null() => {
                self.string(n, key).map(|s| vec![(s, n.span)])
            }
            _ => {
                self.error(
                    n.span,
                    format!("`{key}` must be a list of strings, not {}", n.type_name()),
                );
                None
            }
        }
    }

    /// A list node's items.
    pub fn seq<'n>(&mut self, n: &'n Node, key: &str) -> Option<&'n [Node]> {
        match &n.kind {
            NodeKind::Seq(items) => Some(items),
            _ => {
                self.error(
                    n.span,
                    format!("`{key}` must be a list, not {}", n.type_name()),
                );
                None
            }
        }
    }

    /// A mapping of string keys to string values (env, headers, arguments).
    pub fn string_map(&mut self, n: &Node, key: &str) -> Option<Vec<(String, String)>> {
        if n.is_null() {
            return Some(Vec::new());
        }
        let m = self.map(n, key)?;
        let mut out = Vec::new();
        for (k, v) in m {
            let (Some(name), Some(value)) = (k.key_str(), self.string(v, key)) else {
                continue;
            };
            out.push((name.to_string(), value));
        }
        Some(out)
    }

    /// A duration: Go syntax (`30s`, `1m30s`, `500ms`, `2h`) or a bare number
    /// of seconds. Returns milliseconds.
    pub fn duration(&mut self, n: &Node, key: &str) -> Option<u64> {
        let text = match &n.kind {
            NodeKind::Scalar {
                value: Scalar::Int(i),
                ..
            } if *i >= 0 => return Some(*i as u64 * 1000),
            NodeKind::Scalar {
                value: Scalar::Float(f),
                ..
            } if *f >= 0.0 && f.is_finite() => return Some((*f * 1000.0) as u64),
            _ => self.string(n, key)?,
        };
        match parse_duration_ms(&text) {
            Some(ms) => Some(ms),
            None => {
                // mcp-assert ignores a timeout it cannot parse and uses the
                // default; so does this loader, saying so.
                self.warning(
                    n.span,
                    format!("`{key}` is not a duration: {text:?}; the default is used"),
                    Some("write it like `30s`, `1m30s` or `500ms`".into()),
                );
                None
            }
        }
    }
}

/// Parse a Go-style duration (`1h2m3s`, `1.5s`, `250ms`, `10us`) into
/// milliseconds. A bare number is seconds.
pub fn parse_duration_ms(text: &str) -> Option<u64> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if let Ok(secs) = t.parse::<f64>() {
        return (secs >= 0.0 && secs.is_finite()).then_some((secs * 1000.0) as u64);
    }
    let mut total_ms = 0f64;
    let mut rest = t;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let value: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1000.0,
            "ms" => 1.0,
            "us" | "µs" => 0.001,
            "ns" => 0.000_001,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total_ms += value * factor;
    }
    Some(total_ms.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("30s"), Some(30_000));
        assert_eq!(parse_duration_ms("1m30s"), Some(90_000));
        assert_eq!(parse_duration_ms("250ms"), Some(250));
        assert_eq!(parse_duration_ms("1.5s"), Some(1500));
        assert_eq!(parse_duration_ms("2"), Some(2000));
        assert_eq!(parse_duration_ms("2x"), None);
        assert_eq!(parse_duration_ms("s"), None);
    }
}
