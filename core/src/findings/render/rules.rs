//! The rules themselves, rendered: `mcpcheck rules` (a list), `mcpcheck rule
//! CODE` (one rule explained), and the rule tables of the documentation,
//! which tests regenerate from the registry and compare.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::diag::{Paint, Style};
use crate::findings::{Family, Level, RuleInfo};
use crate::report::markdown::escape;

/// The Markdown table of `rules`, as the documentation carries it: code,
/// level, severity, title, what it catches, how to fix it, source.
pub fn table(rules: &[&RuleInfo]) -> String {
    let mut out = String::from(
        "| Code | Level | Severity | Title | What it catches | How to fix | Source |\n|---|---|---|---|---|---|---|\n",
    );
    for r in rules {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.code,
            r.level.as_str(),
            r.severity.as_str(),
            cell(r.title),
            if r.rationale == r.title {
                "—".to_string()
            } else {
                cell(r.rationale)
            },
            cell(r.fix),
            cell(r.source)
        );
    }
    out
}

/// A table cell: `|` would end it, and `<` start an HTML tag.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('<', "&lt;")
}

fn level_style(level: Level) -> Style {
    match level {
        Level::Error => Style::Error,
        Level::Warning => Style::Warning,
        Level::Note => Style::Accent,
    }
}

/// The list for people: a heading per family, a line per rule (code, level,
/// title).
pub fn list_text(rules: &[&RuleInfo], paint: Paint) -> String {
    let mut out = String::new();
    let mut family: Option<Family> = None;
    for r in rules {
        if family != Some(r.family) {
            if family.is_some() {
                out.push('\n');
            }
            let _ = writeln!(
                out,
                "{} {}",
                paint.paint(Style::Bold, r.family.as_str()),
                paint.paint(Style::Dim, &format!("({})", r.family.command()))
            );
            family = Some(r.family);
        }
        let _ = writeln!(
            out,
            "  {:<8} {} {}",
            r.code,
            paint.paint(level_style(r.level), &format!("{:<7}", r.level.as_str())),
            r.title
        );
    }
    let _ = write!(
        out,
        "\n{} rules. `mcpcheck rule CODE` explains one.\n",
        rules.len()
    );
    out
}

/// One rule as a JSON value.
pub fn rule_json(r: &RuleInfo) -> Value {
    json!({
        "code": r.code,
        "family": r.family.as_str(),
        "command": r.family.command(),
        "level": r.level.as_str(),
        "severity": r.severity.as_str(),
        "severity_word": r.severity_word(),
        "title": r.title,
        "rationale": r.rationale,
        "fix": r.fix,
        "source": r.source,
        "category": r.category,
        "aliases": r.aliases,
    })
}

/// The list as JSON: `{"version": 1, "rules": [...]}`, pretty, final newline.
pub fn list_json(rules: &[&RuleInfo]) -> String {
    let doc = json!({
        "version": 1,
        "rules": rules.iter().map(|r| rule_json(r)).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// One rule explained: what it catches, why it matters, where it comes from,
/// an example, and how to fix it.
pub fn explain(r: &RuleInfo, example: Option<&str>, paint: Paint) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}",
        paint.paint(Style::Bold, r.code),
        paint.paint(Style::Bold, r.title)
    );
    let what = if r.aliases.is_empty() {
        String::new()
    } else {
        format!(", also known as {}", r.aliases.join(", "))
    };
    let _ = writeln!(
        out,
        "{} · {} · {} rule of `mcpcheck {}`{what}\n",
        paint.paint(level_style(r.level), r.level.as_str()),
        r.severity.as_str(),
        r.family.as_str(),
        r.family.command()
    );
    let meaning = match r.level {
        Level::Error => "A finding fails the run.",
        Level::Warning => {
            "Recommended, not met: a finding fails the run only with --strict (or --fail-on at its severity)."
        }
        Level::Note => "Worth knowing: a finding never fails the run.",
    };
    section(&mut out, "What it catches", r.rationale, paint);
    section(&mut out, "What a finding means", meaning, paint);
    section(&mut out, "Source", r.source, paint);
    if let Some(example) = example.filter(|e| !e.trim().is_empty()) {
        let _ = writeln!(out, "{}", paint.paint(Style::Bold, "Example"));
        for line in example.trim_end().lines() {
            let _ = writeln!(out, "  {}", paint.text(line));
        }
        out.push('\n');
    }
    section(&mut out, "How to fix it", r.fix, paint);
    let _ = writeln!(
        out,
        "{}",
        paint.paint(
            Style::Dim,
            &format!(
                "Silence one finding with a [[suppress]] entry (rule = \"{}\", item, reason) in mcpcheck.toml.",
                r.code
            )
        )
    );
    out
}

fn section(out: &mut String, title: &str, body: &str, paint: Paint) {
    let _ = writeln!(out, "{}", paint.paint(Style::Bold, title));
    let _ = writeln!(out, "  {}\n", paint.text(body));
}

/// One rule explained, as Markdown (for the rendered documentation and the
/// MCP server's resources).
pub fn explain_markdown(r: &RuleInfo, example: Option<&str>) -> String {
    let mut out = format!("# {} {}\n\n", r.code, escape(r.title));
    let _ = writeln!(
        out,
        "{} · {} · {} rule of `mcpcheck {}`\n",
        r.level.as_str(),
        r.severity.as_str(),
        r.family.as_str(),
        r.family.command()
    );
    let _ = writeln!(out, "## What it catches\n\n{}\n", escape(r.rationale));
    let _ = writeln!(out, "## Source\n\n{}\n", escape(r.source));
    if let Some(example) = example.filter(|e| !e.trim().is_empty()) {
        let _ = writeln!(out, "## Example\n");
        out.push_str(&super::markdown::fenced("", example.trim_end()));
        out.push('\n');
    }
    let _ = writeln!(out, "## How to fix it\n\n{}", escape(r.fix));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::registry;

    #[test]
    fn explain_says_what_why_where_and_how() {
        let rule = registry::lookup("E103").unwrap_or_else(|| panic!("E103"));
        let text = explain(rule, Some("{\"tools\": []}"), Paint::Plain);
        for part in [
            "E103 Required parameter without description",
            "error · high · lint rule of `mcpcheck lint`",
            "What it catches",
            "Source\n  mcp-assert E103",
            "Example\n  {\"tools\": []}",
            "How to fix it",
        ] {
            assert!(text.contains(part), "{part}:\n{text}");
        }
    }

    #[test]
    fn every_family_lists_its_rules() {
        let all: Vec<&RuleInfo> = registry::all().collect();
        let text = list_text(&all, Paint::Plain);
        for family in Family::ALL {
            assert!(text.contains(family.as_str()), "{}", family.as_str());
        }
        let json: Value = serde_json::from_str(&list_json(&all)).unwrap_or_default();
        assert_eq!(json["rules"].as_array().map_or(0, Vec::len), all.len());
    }
}
