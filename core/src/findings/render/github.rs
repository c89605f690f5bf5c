//! GitHub Actions workflow commands of a findings report: one annotation per
//! finding (`::error`, `::warning` or `::notice`, by level), titled with the
//! rule's code and title, located at the report's file when the findings
//! come from one, and one `::error` per failing note. GitHub shows them on
//! the run and, with a file, on the pull request's diff.
//!
//! Values are escaped as the runner requires: `%`, `\r` and `\n` in the
//! message; also `:` and `,` in properties.

use std::fmt::Write as _;

use crate::findings::{Finding, Level, Report};

/// A message's text, escaped.
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property's value, escaped.
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    }
}

fn annotation(report: &Report, f: &Finding) -> String {
    let mut props = Vec::new();
    if let Some(file) = f.location.file.as_deref().or(report.artifact.as_deref()) {
        props.push(format!("file={}", escape_property(file)));
    }
    props.push(format!(
        "title={}",
        escape_property(&format!("{} {}", f.code(), f.rule.title))
    ));
    let item = f.location.item_label();
    let mut message = if item.is_empty() {
        f.message.clone()
    } else {
        format!("{item}: {}", f.message)
    };
    if let Some(server) = &f.location.server {
        message = format!("[{server}] {message}");
    }
    format!(
        "::{} {}::{}\n",
        command(f.level()),
        props.join(","),
        escape_data(&message)
    )
}

/// The workflow commands, one per line.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&annotation(report, f));
    }
    for n in report.notes.iter().filter(|n| n.fails) {
        let _ = writeln!(
            out,
            "::error title={}::{}",
            escape_property(&format!("mcpcheck {}", report.command)),
            escape_data(&n.text)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{ItemKind, Location, registry};

    #[test]
    fn one_annotation_per_finding_escaped() {
        let rule = registry::lookup("W111").unwrap_or_else(|| panic!("W111"));
        let mut r = Report::new("lint", "x");
        r.artifact = Some("listing.json".into());
        r.findings.push(Finding::new(
            rule,
            Location::item(ItemKind::Tool, "a"),
            "100% short\nreally",
        ));
        let out = render(&r);
        assert!(
            out.starts_with("::warning file=listing.json,title=W111 "),
            "{out}"
        );
        assert!(out.ends_with("::tool a: 100%25 short%0Areally\n"), "{out}");
    }
}
