//! `mcpcheck.toml`: the project's configuration. The CLI finds the file
//! (walking up from the working directory, or `--config-file`) and reads it;
//! this module parses it, with every problem reported at its line.
//!
//! ```toml
//! # Which rules run, for every analysis: codes, code prefixes or families.
//! select = ["lint", "scan", "INV"]
//! ignore = ["W106", "I601"]
//!
//! # Defaults for one command: any of its long flags, as on the command line.
//! [scan]
//! fail-on = "medium"
//!
//! [lint]
//! strict = true
//!
//! # One finding, known and accepted: a reason is required, an end date is not.
//! [[suppress]]
//! rule = "S601"
//! item = "tool:upload"
//! reason = "the blob is the public key of the test fixture"
//! until = "2027-03-01"
//! ```
//!
//! - `select` / `ignore`: lists of selectors ([`crate::findings::Selection`]);
//!   one that names no rule is an error.
//! - `[command]` tables: defaults for that command's flags. A key is a long
//!   flag without its dashes; `true` sets a switch, a string or number gives
//!   the value, an array repeats the flag. The command line wins over the
//!   file. Which commands and flags exist is the CLI's to check (it knows
//!   them); [`CommandDefaults`] keeps each key's line for its errors.
//! - `[[suppress]]`: `rule` (required), `item`, `server`, `reason`
//!   (required, not empty), `until` (`YYYY-MM-DD`).
//!
//! Unknown keys are errors with a hint, as everywhere in mcpcheck.

use std::collections::BTreeMap;

use toml_edit::{ImDocument, Item, Table, Value};

use crate::diag::{Diagnostic, Span, did_you_mean};
use crate::findings::Selection;
use crate::findings::suppress::Suppression;

/// The file's name, as the CLI looks for it.
pub const FILE_NAME: &str = "mcpcheck.toml";

/// A parsed configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Which rules run.
    pub selection: Selection,
    /// The suppressions, in file order.
    pub suppressions: Vec<Suppression>,
    /// Per command, its defaults, in file order.
    pub commands: BTreeMap<String, CommandDefaults>,
}

/// The defaults of one command's table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandDefaults {
    /// The table's header line.
    pub line: u32,
    /// Each key with its value and line.
    pub values: Vec<Default>,
}

/// One default: a flag and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Default {
    /// The flag's long name (`fail-on`).
    pub key: String,
    /// Its value.
    pub value: DefaultValue,
    /// Where it was written.
    pub span: Span,
}

/// A default's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultValue {
    /// A switch: on or off.
    Switch(bool),
    /// One value.
    One(String),
    /// The flag given once per value.
    Many(Vec<String>),
}

/// Where in `text` byte offset `at` is, as a span of one line.
fn span_at(text: &str, range: Option<std::ops::Range<usize>>) -> Span {
    let Some(range) = range else {
        return Span::none();
    };
    let before = &text[..range.start.min(text.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    let inside = text.get(range.clone()).unwrap_or("");
    let end_line = line + inside.matches('\n').count() as u32;
    let end_col = if end_line == line {
        col + inside.chars().count() as u32
    } else {
        inside.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1
    };
    Span::new(line, col, end_line, end_col)
}

struct Cx<'t> {
    file: &'t str,
    text: &'t str,
    diagnostics: Vec<Diagnostic>,
}

impl Cx<'_> {
    fn error(&mut self, range: Option<std::ops::Range<usize>>, message: impl Into<String>) {
        let span = span_at(self.text, range);
        self.diagnostics
            .push(Diagnostic::error(self.file, span, message));
    }

    fn error_hint(
        &mut self,
        range: Option<std::ops::Range<usize>>,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        let span = span_at(self.text, range);
        let mut d = Diagnostic::error(self.file, span, message);
        d.hint = hint;
        self.diagnostics.push(d);
    }
}

fn key_span(table: &Table, key: &str) -> Option<std::ops::Range<usize>> {
    table.key(key).and_then(|k| k.span())
}

/// A list of strings (`select`, `ignore`), or the error it is not.
fn strings(cx: &mut Cx<'_>, item: &Item, what: &str) -> Vec<String> {
    let Some(array) = item.as_array() else {
        cx.error(
            item.span(),
            format!("`{what}` must be a list of strings, like [\"E103\", \"scan\"]"),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for v in array {
        match v.as_str() {
            Some(s) => out.push(s.to_string()),
            None => cx.error(
                v.span(),
                format!("`{what}` holds a {}, not a string", type_of(v)),
            ),
        }
    }
    out
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Integer(_) => "integer",
        Value::Float(_) => "float",
        Value::Boolean(_) => "boolean",
        Value::Datetime(_) => "date",
        Value::Array(_) => "list",
        Value::InlineTable(_) => "table",
    }
}

fn check_selectors(cx: &mut Cx<'_>, item: &Item, entries: &[String]) {
    for entry in entries {
        let selection = Selection {
            select: vec![entry.clone()],
            ignore: Vec::new(),
        };
        if let Err(e) = selection.validate() {
            let span = item
                .as_array()
                .and_then(|a| a.iter().find(|v| v.as_str() == Some(entry.as_str())))
                .and_then(Value::span)
                .or_else(|| item.span());
            cx.error(span, e.to_string());
        }
    }
}

/// Whether `s` is a date `YYYY-MM-DD` that exists.
fn is_date(s: &str) -> bool {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok() && s.len() == 10
}

const SUPPRESS_KEYS: [&str; 5] = ["rule", "item", "server", "reason", "until"];

fn suppression(cx: &mut Cx<'_>, table: &Table) -> Option<Suppression> {
    let mut ok = true;
    for (key, _) in table.iter() {
        if !SUPPRESS_KEYS.contains(&key) {
            let hint = did_you_mean(key, SUPPRESS_KEYS);
            cx.error_hint(
                key_span(table, key),
                format!("unknown key `{key}` in [[suppress]]; it takes rule, item, server, reason and until"),
                hint,
            );
            ok = false;
        }
    }
    let text = |cx: &mut Cx<'_>, key: &str| -> Option<(String, Option<std::ops::Range<usize>>)> {
        let item = table.get(key)?;
        match item.as_str() {
            Some(s) => Some((s.to_string(), item.span())),
            None => {
                cx.error(
                    item.span(),
                    format!("`{key}` of a suppression must be a string"),
                );
                None
            }
        }
    };
    let head = table.span();
    let rule = text(cx, "rule");
    let reason = text(cx, "reason");
    let item = text(cx, "item");
    let server = text(cx, "server");
    let until = text(cx, "until");
    let Some((rule, rule_span)) = rule else {
        cx.error(
            head.clone(),
            "a suppression needs `rule`: the code (S601), prefix or family it silences",
        );
        return None;
    };
    let check = Selection {
        select: vec![rule.clone()],
        ignore: Vec::new(),
    };
    if let Err(e) = check.validate() {
        cx.error(rule_span, e.to_string());
        ok = false;
    }
    let reason = match reason {
        Some((r, _)) if !r.trim().is_empty() => r,
        Some((_, span)) => {
            cx.error(
                span,
                "the reason of a suppression must say why the finding is accepted",
            );
            ok = false;
            String::new()
        }
        None => {
            cx.error(
                head,
                format!("the suppression of {rule} has no `reason`: say why the finding is accepted, so the next reader can decide again"),
            );
            return None;
        }
    };
    if let Some((date, span)) = &until
        && !is_date(date)
    {
        cx.error(
            span.clone(),
            format!("`until = \"{date}\"` is not a date; write it as YYYY-MM-DD"),
        );
        ok = false;
    }
    if let Some((item, span)) = &item
        && let Some((kind, name)) = item.split_once(':')
        && crate::findings::ItemKind::parse(kind).is_none()
        && !name.is_empty()
        && !kind.contains('/')
        && kind.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    {
        cx.error_hint(
            span.clone(),
            format!("`{kind}` is not a kind of item; write kind:name (tool:upload, prompt:greet, resource:file:///a) or the bare name"),
            did_you_mean(kind, ["tool", "prompt", "resource", "resource_template", "method", "probe", "server"]),
        );
        ok = false;
    }
    let line = span_at(cx.text, table.span()).line;
    ok.then(|| Suppression {
        rule,
        item: item.map(|(i, _)| i),
        server: server.map(|(s, _)| s),
        reason,
        until: until.map(|(u, _)| u),
        origin: format!("{}:{line}", cx.file),
    })
}

fn defaults(cx: &mut Cx<'_>, name: &str, table: &Table) -> CommandDefaults {
    let mut out = CommandDefaults {
        line: span_at(cx.text, table.span()).line,
        values: Vec::new(),
    };
    for (key, item) in table.iter() {
        let span = span_at(cx.text, key_span(table, key));
        let value = match item.as_value() {
            Some(Value::Boolean(b)) => DefaultValue::Switch(*b.value()),
            Some(Value::String(s)) => DefaultValue::One(s.value().clone()),
            Some(Value::Integer(i)) => DefaultValue::One(i.value().to_string()),
            Some(Value::Float(f)) => DefaultValue::One(f.value().to_string()),
            Some(Value::Array(a)) => {
                let mut all = Vec::new();
                for v in a {
                    match v {
                        Value::String(s) => all.push(s.value().clone()),
                        Value::Integer(i) => all.push(i.value().to_string()),
                        other => cx.error(
                            other.span(),
                            format!("[{name}] {key}: a list of flag values holds strings or numbers, not a {}", type_of(other)),
                        ),
                    }
                }
                DefaultValue::Many(all)
            }
            _ => {
                cx.error(
                    item.span(),
                    format!("[{name}] {key}: give a flag's value as true/false, a string, a number or a list"),
                );
                continue;
            }
        };
        out.values.push(Default {
            key: key.to_string(),
            value,
            span,
        });
    }
    out
}

/// Parses the text of `file`.
///
/// # Errors
///
/// Every problem found, each at its line: TOML that does not parse, a key
/// that is not one, a selector that names no rule, a suppression without a
/// reason or with a date that is not one.
pub fn parse(file: &str, text: &str) -> Result<Config, Vec<Diagnostic>> {
    let doc = match ImDocument::parse(text) {
        Ok(doc) => doc,
        Err(e) => {
            let span = span_at(text, e.span());
            let message = e.message().trim().to_string();
            return Err(vec![Diagnostic::error(
                file,
                span,
                format!("not TOML: {message}"),
            )]);
        }
    };
    let mut cx = Cx {
        file,
        text,
        diagnostics: Vec::new(),
    };
    let mut config = Config::default();
    let root = doc.as_table();
    for (key, item) in root.iter() {
        match key {
            "select" | "ignore" => {
                let entries = strings(&mut cx, item, key);
                check_selectors(&mut cx, item, &entries);
                if key == "select" {
                    config.selection.select = entries;
                } else {
                    config.selection.ignore = entries;
                }
            }
            "suppress" => match item {
                Item::ArrayOfTables(tables) => {
                    for t in tables.iter() {
                        if let Some(s) = suppression(&mut cx, t) {
                            config.suppressions.push(s);
                        }
                    }
                }
                _ => cx.error(
                    item.span().or_else(|| key_span(root, key)),
                    "write each suppression as a [[suppress]] table",
                ),
            },
            _ => match item.as_table() {
                Some(table) => {
                    let d = defaults(&mut cx, key, table);
                    config.commands.insert(key.to_string(), d);
                }
                None => {
                    let hint = did_you_mean(key, ["select", "ignore", "suppress"]);
                    cx.error_hint(
                        key_span(root, key),
                        format!("unknown key `{key}`: the top level takes select, ignore, [[suppress]] and a [command] table of defaults"),
                        hint,
                    );
                }
            },
        }
    }
    if cx.diagnostics.is_empty() {
        Ok(config)
    } else {
        Err(cx.diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
select = ["lint", "S"]
ignore = ["W106"]

[scan]
fail-on = "medium"

[lint]
strict = true
skip-rules = ["E101", "E102"]

[[suppress]]
rule = "S601"
item = "tool:upload"
reason = "a fixture's public key"
until = "2027-03-01"
"#;

    #[test]
    fn a_full_file_reads() {
        let config = parse("mcpcheck.toml", GOOD).unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(config.selection.select, ["lint", "S"]);
        assert_eq!(config.selection.ignore, ["W106"]);
        let s = &config.suppressions[0];
        assert_eq!(s.rule, "S601");
        assert_eq!(s.item.as_deref(), Some("tool:upload"));
        assert_eq!(s.until.as_deref(), Some("2027-03-01"));
        assert_eq!(s.origin, "mcpcheck.toml:12");
        let scan = &config.commands["scan"];
        assert_eq!(scan.values[0].key, "fail-on");
        assert_eq!(scan.values[0].value, DefaultValue::One("medium".into()));
        assert_eq!(scan.values[0].span.line, 6);
        let lint = &config.commands["lint"];
        assert_eq!(lint.values[0].value, DefaultValue::Switch(true));
        assert_eq!(
            lint.values[1].value,
            DefaultValue::Many(vec!["E101".into(), "E102".into()])
        );
    }

    fn errors(text: &str) -> Vec<String> {
        parse("mcpcheck.toml", text)
            .err()
            .unwrap_or_default()
            .iter()
            .map(Diagnostic::one_line)
            .collect()
    }

    #[test]
    fn a_suppression_needs_a_reason_and_a_real_date() {
        let e = errors("[[suppress]]\nrule = \"S601\"\n");
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with("mcpcheck.toml:1:1: error: the suppression of S601 has no `reason`"),
            "{e:?}"
        );
        let e = errors("[[suppress]]\nrule = \"S601\"\nreason = \"x\"\nuntil = \"2027-02-30\"\n");
        assert!(
            e[0].starts_with("mcpcheck.toml:4:9: error: `until = \"2027-02-30\"` is not a date"),
            "{e:?}"
        );
        let e = errors("[[suppress]]\nrule = \"S601\"\nreason = \" \"\n");
        assert!(e[0].contains("must say why"), "{e:?}");
    }

    #[test]
    fn unknown_keys_and_rules_are_errors_with_hints() {
        let e = errors("[[suppress]]\nrule = \"S6O1\"\nreason = \"x\"\nuntill = \"2027-01-01\"\n");
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(
            e[0].contains("unknown key `untill`") && e[0].contains("did you mean `until`?"),
            "{e:?}"
        );
        assert!(e[1].contains("`S6O1` names no rule"), "{e:?}");
        let e = errors("selct = [\"lint\"]\n");
        assert!(e[0].contains("did you mean `select`?"), "{e:?}");
        let e = errors("ignore = [\"E999\"]\n");
        assert!(
            e[0].starts_with("mcpcheck.toml:1:11: error: `E999` names no rule"),
            "{e:?}"
        );
        let e = errors("select = [");
        assert!(e[0].contains("not TOML"), "{e:?}");
    }
}
