//! TAP (the Test Anything Protocol, version 14) of a findings report: a test
//! point per case (as JUnit has them), `not ok` for a failing one with its
//! findings as a YAML block, `# SKIP` for a skipped or unverified one, and a
//! failing point per failing note.

use std::fmt::Write as _;

use super::place;
use crate::findings::{CaseStatus, Report};

/// A YAML double-quoted scalar.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A test point's description: no `#` (which starts a directive).
fn description(s: &str) -> String {
    s.replace('#', "\\#").replace(['\n', '\r'], " ")
}

/// The TAP stream.
pub fn render(report: &Report) -> String {
    let cases = report.cases_or_items();
    let failing_notes: Vec<&str> = report
        .notes
        .iter()
        .filter(|n| n.fails)
        .map(|n| n.text.as_str())
        .collect();
    let mut out = format!("TAP version 14\n1..{}\n", cases.len() + failing_notes.len());
    let mut n = 0;
    for c in &cases {
        n += 1;
        let name = description(&if c.class.is_empty() {
            c.name.clone()
        } else {
            format!("{} {}", c.class, c.name)
        });
        let failing: Vec<_> = c
            .findings
            .iter()
            .filter_map(|&i| report.findings.get(i))
            .filter(|f| report.gate.fails(f))
            .collect();
        match c.status {
            CaseStatus::Skipped | CaseStatus::NotVerified => {
                let why = if c.detail.is_empty() {
                    c.status.as_str().to_string()
                } else {
                    c.detail.clone()
                };
                let _ = writeln!(out, "ok {n} - {name} # SKIP {}", description(&why));
            }
            CaseStatus::Error => {
                let _ = writeln!(out, "not ok {n} - {name}");
                let _ = writeln!(out, "  ---\n  message: {}\n  ...", quoted(&c.detail));
            }
            _ if failing.is_empty() && c.status != CaseStatus::Failed => {
                let _ = writeln!(out, "ok {n} - {name}");
            }
            _ => {
                let _ = writeln!(out, "not ok {n} - {name}");
                out.push_str("  ---\n");
                if failing.is_empty() {
                    let _ = writeln!(out, "  message: {}", quoted(&c.detail));
                } else {
                    out.push_str("  findings:\n");
                    for f in failing {
                        let _ = writeln!(out, "    - code: {}", quoted(f.code()));
                        let _ = writeln!(out, "      severity: {}", quoted(f.rule.severity_word()));
                        let at = place(f);
                        if !at.is_empty() {
                            let _ = writeln!(out, "      at: {}", quoted(&at));
                        }
                        let _ = writeln!(out, "      message: {}", quoted(&f.message));
                    }
                }
                out.push_str("  ...\n");
            }
        }
    }
    for text in failing_notes {
        n += 1;
        let _ = writeln!(out, "not ok {n} - configuration");
        let _ = writeln!(out, "  ---\n  message: {}\n  ...", quoted(text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{Finding, ItemKind, Location, registry};

    #[test]
    fn a_failing_item_is_not_ok_with_its_findings() {
        let rule = registry::lookup("E101").unwrap_or_else(|| panic!("E101"));
        let mut r = Report::new("lint", "x");
        r.findings.push(Finding::new(
            rule,
            Location::item(ItemKind::Tool, "a#b").at("/tools/0/description"),
            "no description",
        ));
        let tap = render(&r);
        assert!(
            tap.starts_with("TAP version 14\n1..1\nnot ok 1 - tool a\\#b\n  ---\n"),
            "{tap}"
        );
        assert!(
            tap.contains("      message: \"no description\"\n  ...\n"),
            "{tap}"
        );
        assert_eq!(
            render(&Report::new("lint", "x")),
            "TAP version 14\n1..1\nok 1 - lint x\n"
        );
    }
}
