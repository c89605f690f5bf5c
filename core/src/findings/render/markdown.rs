//! Markdown of a findings report, for job summaries and pull requests: a
//! heading with the verdict, the summary lines, the cases (a table, or counts
//! per suite), a table of every finding, each finding with details folded in
//! a `<details>` block with its code blocks, then the suppressed findings and
//! the notes. Everything a server sent is escaped; code blocks cannot be
//! closed by their content.

use std::fmt::Write as _;

use super::{case_word, left_out, place, totals};
use crate::findings::{CaseStatus, CaseView, Report};
use crate::report::markdown::escape;
use crate::report::plural;

/// A fenced code block that its content cannot close, control characters
/// shown as U+FFFD.
pub(crate) fn fenced(lang: &str, text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let clean: String = text
        .chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    format!("{fence}{lang}\n{clean}\n{fence}\n")
}

/// The Markdown.
pub fn render(report: &Report) -> String {
    let mark = if report.passed() { "✅" } else { "❌" };
    let mut out = format!("### mcpcheck {}", report.command);
    if !report.subject.is_empty() {
        let _ = write!(out, ": {}", escape(&report.subject));
    }
    let _ = write!(out, " {mark}\n\n");
    if !report.facts.is_empty() {
        let facts: Vec<String> = report
            .facts
            .iter()
            .map(|(k, v)| {
                escape(&if k.is_empty() {
                    v.clone()
                } else {
                    format!("{k} {v}")
                })
            })
            .collect();
        let _ = writeln!(out, "{}\n", facts.join(" · "));
    }
    for line in &report.summary {
        let _ = writeln!(out, "**{}**\n", escape(line));
    }
    cases(&mut out, report);
    findings(&mut out, report);
    let left = left_out(report);
    if !left.is_empty() {
        let _ = writeln!(out, "\n_{left}_\n");
    }
    for (f, reason) in &report.suppressed {
        let _ = writeln!(
            out,
            "- suppressed {} {}: {}",
            f.code(),
            escape(&f.location.item_label()),
            escape(reason)
        );
    }
    for n in &report.notes {
        let word = if n.fails { "**error**" } else { "note" };
        let _ = writeln!(out, "- {word}: {}", escape(&n.text));
    }
    out
}

/// The cases: a table (audit, fuzz, doctor's parts) or counts per suite
/// (conformance).
fn cases(out: &mut String, report: &Report) {
    match report.case_view {
        CaseView::Table => {
            out.push_str("| Status | Item | Time | Detail |\n|---|---|---|---|\n");
            for c in &report.cases {
                let time = c
                    .duration_ms
                    .map_or_else(|| "-".into(), |ms| format!("{ms} ms"));
                let _ = writeln!(
                    out,
                    "| {} | {} | {time} | {} |",
                    escape(case_word(c)),
                    escape(&if c.class.is_empty() {
                        c.name.clone()
                    } else {
                        format!("{} {}", c.class, c.name)
                    }),
                    escape(&crate::truncate(&c.detail, 200))
                );
            }
            out.push('\n');
        }
        CaseView::Counts => {
            let mut suites: Vec<&str> = Vec::new();
            for c in &report.cases {
                if !suites.contains(&c.suite.as_str()) {
                    suites.push(&c.suite);
                }
            }
            out.push_str("| Suite | Passed | Failed | Not verified |\n|---|---|---|---|\n");
            for s in suites {
                let count = |st: CaseStatus| {
                    report
                        .cases
                        .iter()
                        .filter(|c| c.suite == s && c.status == st)
                        .count()
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    escape(s),
                    count(CaseStatus::Passed) + count(CaseStatus::Noted),
                    count(CaseStatus::Failed),
                    count(CaseStatus::NotVerified)
                );
            }
            out.push('\n');
        }
        CaseView::Hidden => {}
    }
}

/// The table of findings, then the details of those that have some.
fn findings(out: &mut String, report: &Report) {
    if report.findings.is_empty() {
        out.push_str("No findings.\n");
    } else {
        let _ = writeln!(
            out,
            "**{}: {}**\n",
            plural(report.findings.len(), "finding", "findings"),
            totals(report)
        );
        let servers = report.findings.iter().any(|f| f.location.server.is_some());
        let evidence = report.findings.iter().any(|f| !f.evidence.is_empty());
        let mut head = String::from("|");
        let mut rule = String::from("|");
        let mut columns = vec![];
        if servers {
            columns.push("Server");
        }
        let places = report.findings.iter().any(|f| !place(f).is_empty());
        columns.extend(["Item", "Kind", "Code", "Severity"]);
        if places {
            columns.push("Where");
        }
        columns.push("Message");
        if evidence {
            columns.push("Evidence");
        }
        for c in &columns {
            let _ = write!(head, " {c} |");
            rule.push_str("---|");
        }
        let _ = writeln!(out, "{head}\n{rule}");
        for f in &report.findings {
            let mut row = String::from("|");
            if servers {
                let _ = write!(
                    row,
                    " {} |",
                    escape(f.location.server.as_deref().unwrap_or(""))
                );
            }
            let _ = write!(
                row,
                " {} | {} | {} | {} |",
                escape(f.location.name().unwrap_or("")),
                f.location.kind().map_or("", |k| k.as_str()),
                f.code(),
                f.rule.severity_word(),
            );
            if places {
                let _ = write!(row, " <code>{}</code> |", escape(&place(f)));
            }
            let _ = write!(row, " {} |", escape(&f.message));
            if evidence {
                let _ = write!(row, " {} |", escape(&f.evidence));
            }
            let _ = writeln!(out, "{row}");
        }
        out.push('\n');
        for f in report.findings.iter().filter(|f| !f.details.is_empty()) {
            // Inside HTML: escaped as HTML, not as Markdown.
            let _ = writeln!(
                out,
                "<details><summary>{} {}: {}</summary>\n",
                f.code(),
                crate::diag::html_escape(&f.location.item_label()),
                crate::diag::html_escape(&crate::truncate(&f.message, 200))
            );
            for (label, text) in &f.details {
                let _ = writeln!(out, "{}:\n", escape(label));
                out.push_str(&fenced("", text));
                out.push('\n');
            }
            out.push_str("</details>\n\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{Finding, ItemKind, Location, registry};

    #[test]
    fn cells_are_escaped() {
        let rule = registry::lookup("W111").unwrap_or_else(|| panic!("W111"));
        let mut r = Report::new("lint", "listing");
        r.findings.push(Finding::new(
            rule,
            Location::item(ItemKind::Tool, "read_file").at("/tools/0/description"),
            "a | b",
        ));
        let md = render(&r);
        assert!(
            md.contains("| read\\_file | tool | W111 | warning | <code>/tools/0/description</code> | a &#124; b |"),
            "{md}"
        );
    }

    #[test]
    fn fences_cannot_be_closed_by_their_content() {
        assert_eq!(fenced("json", "a ``` b"), "````json\na ``` b\n````\n");
        assert_eq!(fenced("", "x\u{1b}y"), "```\nx\u{FFFD}y\n```\n");
    }
}
