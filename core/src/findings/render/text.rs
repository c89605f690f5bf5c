//! The text report, for terminals and logs. Everything a server sent is shown
//! through [`Paint::text`], so control characters arrive escaped.
//!
//! [`Layout::Compact`] (what lint, scan, probe, audit, fuzz and conformance
//! print): a heading when the report has one, the cases (a table, or counts
//! per suite), then the findings grouped by server and item in the order they
//! were found, one line each (`  E103 error  /tools/0/…  message`) with the
//! evidence and details under it, then the totals and the notes.
//!
//! [`Layout::Triage`] (what doctor prints): worst first, grouped by item, each
//! finding with its level, code and title, the message, how to fix it and
//! where it is, wrapped to [`WIDTH`] columns.

use std::fmt::Write as _;

use super::{case_word, left_out, one_line, place, totals};
use crate::diag::{Paint, Style};
use crate::findings::{CaseStatus, CaseView, Finding, Layout, Level, Note, Report};
use crate::report::plural;

/// The width the triage layout wraps to.
pub const WIDTH: usize = 80;

/// The report as text.
pub fn render(report: &Report, paint: Paint) -> String {
    let mut out = String::new();
    heading(&mut out, report, paint);
    match report.case_view {
        CaseView::Table => cases_table(&mut out, report, paint),
        CaseView::Counts => cases_counts(&mut out, report, paint),
        CaseView::Hidden => {}
    }
    match report.layout {
        Layout::Compact if report.case_view != CaseView::Counts => {
            compact(&mut out, report, paint);
        }
        Layout::Compact => {}
        Layout::Triage => triage(&mut out, report, paint),
    }
    footer(&mut out, report, paint);
    out
}

fn heading(out: &mut String, report: &Report, paint: Paint) {
    if let Some(title) = &report.title {
        let _ = writeln!(out, "{}", paint.paint(Style::Bold, title));
        return;
    }
    let titled = report.case_view != CaseView::Hidden
        || !report.facts.is_empty()
        || report.layout == Layout::Triage;
    if !titled {
        return;
    }
    let _ = write!(
        out,
        "{} {}",
        paint.paint(Style::Bold, &format!("mcpcheck {}:", report.command)),
        paint.text(&report.subject)
    );
    let facts: Vec<String> = report
        .facts
        .iter()
        .map(|(k, v)| {
            if k.is_empty() {
                v.clone()
            } else {
                format!("{k} {v}")
            }
        })
        .collect();
    if !facts.is_empty() {
        let _ = write!(out, " ({})", paint.text(&facts.join(" · ")));
    }
    out.push_str("\n\n");
}

fn status_style(s: CaseStatus) -> Style {
    match s {
        CaseStatus::Passed => Style::Pass,
        CaseStatus::Noted => Style::Dim,
        CaseStatus::Failed | CaseStatus::Error => Style::Error,
        CaseStatus::Skipped | CaseStatus::NotVerified => Style::Skip,
    }
}

fn level_style(level: Level) -> Style {
    match level {
        Level::Error => Style::Error,
        Level::Warning => Style::Warning,
        Level::Note => Style::Accent,
    }
}

/// `FAIL`, `WARN` or `NOTE`, painted as the level is.
fn outcome_word(level: Level, paint: Paint) -> String {
    let word = match level {
        Level::Error => "FAIL",
        Level::Warning => "WARN",
        Level::Note => "NOTE",
    };
    paint.paint(level_style(level), word)
}

fn cases_table(out: &mut String, report: &Report, paint: Paint) {
    let items: Vec<String> = report
        .cases
        .iter()
        .map(|c| {
            if c.class.is_empty() {
                c.name.clone()
            } else {
                format!("{} {}", c.class, c.name)
            }
        })
        .collect();
    let width = items
        .iter()
        .map(|i| i.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    let _ = writeln!(
        out,
        "{}",
        paint.paint(
            Style::Dim,
            &format!("{:<16} {:<width$} {:>8}  DETAIL", "STATUS", "ITEM", "TIME")
        )
    );
    for (c, name) in report.cases.iter().zip(&items) {
        let name = if name.chars().count() > width {
            crate::truncate(name, width - 1)
        } else {
            name.clone()
        };
        let time = c
            .duration_ms
            .map_or_else(|| "-".to_string(), |ms| format!("{ms} ms"));
        let word = case_word(c);
        // In the triage layout the row fits the width; elsewhere the detail
        // is cut at 100 characters.
        let room = if report.layout == Layout::Triage {
            // (`truncate` adds its ellipsis after `room` characters.)
            WIDTH.saturating_sub(16 + 1 + width + 1 + 8 + 2 + 1).max(10)
        } else {
            100
        };
        let _ = writeln!(
            out,
            "{} {}{} {:>8}  {}",
            paint.paint(status_style(c.status), &format!("{word:<16}")),
            paint.text(&name),
            " ".repeat(width.saturating_sub(name.chars().count())),
            time,
            paint.text(&one_line(&crate::truncate(&c.detail, room)))
        );
    }
    out.push('\n');
}

fn cases_counts(out: &mut String, report: &Report, paint: Paint) {
    let mut suites: Vec<&str> = Vec::new();
    for c in &report.cases {
        if !suites.contains(&c.suite.as_str()) {
            suites.push(&c.suite);
        }
    }
    for suite in suites {
        let cases: Vec<_> = report.cases.iter().filter(|c| c.suite == suite).collect();
        let count = |s: CaseStatus| cases.iter().filter(|c| c.status == s).count();
        let label = if suite.is_empty() {
            report.command.as_str()
        } else {
            suite
        };
        let _ = writeln!(
            out,
            "{}: {} passed, {} failed, {} not verified",
            paint.text(label),
            count(CaseStatus::Passed) + count(CaseStatus::Noted),
            count(CaseStatus::Failed),
            count(CaseStatus::NotVerified)
        );
        for c in cases.iter().filter(|c| c.status == CaseStatus::Error) {
            let _ = writeln!(
                out,
                "  {} {}",
                paint.paint(Style::Error, "the probe did not finish:"),
                paint.text(&c.detail)
            );
        }
        for f in report
            .findings
            .iter()
            .filter(|f| f.location.context.as_deref().unwrap_or_default() == suite)
        {
            let at = match f.location.exchange {
                Some(i) => format!(" (exchange {i})"),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {} {}{at}: {}",
                outcome_word(f.level(), paint),
                f.code(),
                paint.text(&f.message)
            );
        }
        let unverified: Vec<&str> = cases
            .iter()
            .filter(|c| c.status == CaseStatus::NotVerified)
            .map(|c| c.name.split(' ').next().unwrap_or_default())
            .collect();
        if !unverified.is_empty() {
            let _ = writeln!(out, "  not verified: {}", unverified.join(", "));
        }
    }
    // Findings of no suite (composition hazards between sessions).
    for f in report.findings.iter().filter(|f| {
        !f.location
            .context
            .as_deref()
            .is_some_and(|c| report.cases.iter().any(|case| case.suite == c))
    }) {
        let _ = writeln!(
            out,
            "{} {} ({}): {}",
            outcome_word(f.level(), paint),
            f.code(),
            paint.text(&f.location.item_label()),
            paint.text(&f.message)
        );
    }
}

/// The findings of one group, in the order they are shown.
type Groups<'r> = Vec<((Option<&'r str>, String), Vec<&'r Finding>)>;

/// The group a finding is shown under: its server and its item.
fn group_of(f: &Finding) -> (Option<&str>, String) {
    let item = match &f.location.item {
        Some((kind, name)) => format!("{} {name}", kind.as_str()),
        None => f.family().as_str().to_string(),
    };
    (f.location.server.as_deref(), item)
}

fn compact(out: &mut String, report: &Report, paint: Paint) {
    if report.findings.is_empty() {
        // A report with a summary of its own says it there.
        if report.case_view == CaseView::Hidden && report.summary.is_empty() {
            let _ = writeln!(out, "{}", paint.paint(Style::Pass, "no findings"));
        }
        return;
    }
    let mut groups: Groups<'_> = Vec::new();
    for f in &report.findings {
        let key = group_of(f);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(f),
            None => groups.push((key, vec![f])),
        }
    }
    let mut server_shown: Option<&str> = None;
    for (i, ((server, item), list)) in groups.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if let Some(server) = server
            && server_shown != Some(server)
        {
            let _ = writeln!(
                out,
                "{} {}",
                paint.paint(Style::Dim, "server"),
                paint.paint(Style::Bold, &one_line(server))
            );
            server_shown = Some(server);
        }
        let (kind, name) = item.split_once(' ').unwrap_or((item.as_str(), ""));
        let _ = writeln!(
            out,
            "{} {}",
            paint.paint(Style::Dim, kind),
            paint.paint(Style::Bold, &one_line(name))
        );
        for f in list {
            finding_line(out, f, paint);
        }
    }
}

fn finding_line(out: &mut String, f: &Finding, paint: Paint) {
    let at = place(f);
    let _ = write!(
        out,
        "  {} {}  ",
        f.code(),
        paint.paint(level_style(f.level()), f.rule.severity_word())
    );
    if !at.is_empty() {
        let _ = write!(out, "{}  ", paint.paint(Style::Dim, &at));
    }
    let _ = writeln!(out, "{}", paint.text(&one_line(&f.message)));
    if !f.evidence.is_empty() {
        let _ = writeln!(out, "      {}", paint.text(&one_line(&f.evidence)));
    }
    details(out, f, paint, "      ");
}

fn details(out: &mut String, f: &Finding, paint: Paint, indent: &str) {
    for (label, text) in &f.details {
        if text.contains('\n') {
            let _ = writeln!(out, "{indent}{label}:");
            for line in text.lines() {
                let _ = writeln!(
                    out,
                    "{indent}  {} {}",
                    paint.paint(Style::Dim, "|"),
                    paint.text(line)
                );
            }
        } else {
            let _ = writeln!(out, "{indent}{label}: {}", paint.text(text));
        }
    }
}

fn triage(out: &mut String, report: &Report, paint: Paint) {
    if report.findings.is_empty() {
        let _ = writeln!(out, "{}", paint.paint(Style::Pass, "no findings"));
        return;
    }
    let mut groups: Groups<'_> = Vec::new();
    let mut notes: Vec<&Finding> = Vec::new();
    for f in report.worst_first() {
        if f.level() == Level::Note {
            notes.push(f);
            continue;
        }
        let key = group_of(f);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(f),
            None => groups.push((key, vec![f])),
        }
    }
    for ((server, item), list) in groups {
        let worst = list.first().map_or(Level::Note, |f| f.level());
        let mark = match worst {
            Level::Error => paint.paint(Style::Error, "✗"),
            Level::Warning => paint.paint(Style::Warning, "!"),
            Level::Note => paint.paint(Style::Accent, "·"),
        };
        let mut head = format!("{mark} {}", paint.paint(Style::Bold, &one_line(&item)));
        // The server is named when it is not the report's own subject.
        if let Some(server) = server.filter(|s| *s != report.subject) {
            let _ = write!(head, " {}", paint.paint(Style::Dim, &format!("({server})")));
        }
        let _ = writeln!(out, "{head}");
        for f in list {
            let word = f.level().as_str();
            let _ = writeln!(
                out,
                "  {} {} {}",
                paint.paint(level_style(f.level()), &format!("{word:<7}")),
                f.code(),
                paint.text(f.rule.title)
            );
            let indent = "          ";
            wrap_into(out, &paint.text(&f.message), indent, paint, None);
            if !f.evidence.is_empty() {
                wrap_into(out, &paint.text(&f.evidence), indent, paint, Some("seen: "));
            }
            wrap_into(out, f.rule.fix, indent, paint, Some("fix: "));
            let at = place(f);
            let mut whereabouts = Vec::new();
            if let Some(ctx) = &f.location.context {
                whereabouts.push(ctx.clone());
            }
            if !at.is_empty() {
                whereabouts.push(at);
            }
            if !whereabouts.is_empty() {
                let text = whereabouts.join(" · ");
                wrap_into(out, &paint.text(&text), indent, paint, Some("at: "));
            }
            details(out, f, paint, indent);
        }
        out.push('\n');
    }
    if !notes.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            paint.paint(Style::Dim, "notes (worth knowing; they never fail a run):")
        );
        for f in notes {
            let mut line = format!("{} {}", f.code(), f.location.item_label());
            if !line.ends_with(' ') {
                line.push_str(": ");
            }
            line.push_str(&one_line(&f.message));
            let _ = writeln!(
                out,
                "  {} {}",
                paint.paint(Style::Accent, "·"),
                paint.text(&crate::truncate(&line, WIDTH - 5))
            );
        }
        out.push('\n');
    }
}

/// `text` wrapped to [`WIDTH`] under `indent`, after `label` (dimmed) on the
/// first line. Words longer than a line are cut where the line ends.
fn wrap_into(out: &mut String, text: &str, indent: &str, paint: Paint, label: Option<&str>) {
    let label = label.unwrap_or("");
    let room = WIDTH.saturating_sub(indent.chars().count()).max(20);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let cap = |lines: &Vec<String>| {
        if lines.is_empty() {
            room.saturating_sub(label.chars().count()).max(1)
        } else {
            room
        }
    };
    for word in text.split_whitespace() {
        let mut word: String = word.to_string();
        while !word.is_empty() {
            let cap = cap(&lines);
            let len = line.chars().count();
            let wlen = word.chars().count();
            if len == 0 && wlen <= cap {
                line = std::mem::take(&mut word);
            } else if len == 0 {
                lines.push(word.chars().take(cap).collect());
                word = word.chars().skip(cap).collect();
            } else if len + 1 + wlen <= cap {
                line.push(' ');
                line.push_str(&word);
                word.clear();
            } else {
                lines.push(std::mem::take(&mut line));
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    for (i, l) in lines.iter().enumerate() {
        if i == 0 && !label.is_empty() {
            let _ = writeln!(out, "{indent}{}{l}", paint.paint(Style::Dim, label));
        } else {
            let _ = writeln!(out, "{indent}{l}");
        }
    }
}

fn footer(out: &mut String, report: &Report, paint: Paint) {
    let mut tail = String::new();
    if !report.findings.is_empty() && report.case_view != CaseView::Counts {
        let _ = write!(
            tail,
            "{}: {}",
            plural(report.findings.len(), "finding", "findings"),
            totals(report)
        );
    }
    let left = left_out(report);
    if !left.is_empty() {
        if tail.is_empty() {
            tail = format!("no findings ({left})");
        } else {
            let _ = write!(tail, " ({left})");
        }
    }
    let mut lines: Vec<String> = report.summary.clone();
    if !tail.is_empty() {
        lines.push(tail);
    }
    if !lines.is_empty() {
        if !out.ends_with("\n\n") && !out.is_empty() {
            out.push('\n');
        }
        for l in lines {
            if report.layout == Layout::Triage {
                wrap_into(out, &paint.text(&l), "", paint, None);
            } else {
                let _ = writeln!(out, "{}", paint.text(&l));
            }
        }
    }
    for (f, reason) in &report.suppressed {
        let _ = writeln!(
            out,
            "{} {} {}: {}",
            paint.paint(Style::Dim, "suppressed"),
            f.code(),
            paint.text(&f.location.item_label()),
            paint.text(reason)
        );
    }
    notes(out, &report.notes, paint);
}

fn notes(out: &mut String, notes: &[Note], paint: Paint) {
    for n in notes {
        let (style, word) = if n.fails {
            (Style::Error, "error:")
        } else {
            (Style::Dim, "note:")
        };
        let _ = writeln!(out, "{} {}", paint.paint(style, word), paint.text(&n.text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{ItemKind, Location, registry};

    fn finding(code: &str, item: &str, message: &str) -> Finding {
        let rule = registry::lookup(code).unwrap_or_else(|| panic!("{code}"));
        Finding::new(
            rule,
            Location::item(ItemKind::Tool, item).at("/tools/0/description"),
            message,
        )
    }

    #[test]
    fn compact_groups_by_item_and_escapes() {
        let mut r = Report::new("lint", "listing.json");
        r.findings = vec![
            finding("E101", "read_file", "has no description"),
            finding("W111", "read_file", "a | b"),
            finding("I601", "list", "note\x1b[2J"),
        ];
        assert_eq!(
            render(&r, Paint::Plain),
            "tool read_file\n  E101 error  /tools/0/description  has no description\n  W111 warning  /tools/0/description  a | b\n\ntool list\n  I601 info  /tools/0/description  note\\x1b[2J\n\n3 findings: 1 error, 1 warning, 1 info\n"
        );
        assert_eq!(
            render(&Report::new("lint", "x"), Paint::Plain),
            "no findings\n"
        );
    }

    #[test]
    fn the_server_has_a_line_of_its_own() {
        let mut r = Report::new("scan", "listing");
        let mut f = finding("S301", "add", "hides something");
        f.location.server = Some("math".into());
        f.evidence = "Do not mention".into();
        r.findings = vec![f];
        let text = render(&r, Paint::Plain);
        assert!(
            text.starts_with("server math\ntool add\n  S301 high  /tools/0/description  hides something\n      Do not mention\n"),
            "{text}"
        );
        assert!(
            text.ends_with("1 finding: 1 high, 0 medium, 0 low, 0 info\n"),
            "{text}"
        );
    }

    #[test]
    fn triage_wraps_to_80_columns_and_says_how_to_fix() {
        let mut r = Report::new("doctor", "everything");
        r.layout = Layout::Triage;
        r.findings = vec![
            finding("W111", "read_file", "short"),
            finding("E103", "write_file", &"a long message ".repeat(12)),
        ];
        let text = render(&r, Paint::Plain);
        for line in text.lines() {
            assert!(line.chars().count() <= WIDTH, "{line:?}");
        }
        let e103 = text.find("E103").unwrap_or(usize::MAX);
        let w111 = text.find("W111").unwrap_or(0);
        assert!(e103 < w111, "worst first:\n{text}");
        assert!(text.contains("fix: "), "{text}");
    }
}
