//! The human-readable rendering of results, for terminals and logs.
//!
//! ```text
//! PASS  echo returns its input (12 ms)
//! FAIL  search finds rust (30 ms)
//!       ✗ contains  text
//!         expected: contains 'rust'
//!         actual:   'nothing here'
//!         reason:   expected text to contain 'rust'
//! ERROR server crashed (5 ms)
//!       the server exited before answering: …
//! SKIP  needs a token — skip_unless_env: GITHUB_TOKEN
//!
//! 4 tests: 1 passed, 1 failed, 1 error, 1 skipped (0.1 s)
//! ```
//!
//! Every failing check is listed, not only the first.

use std::fmt::Write as _;

use crate::diag::{Paint, Style};
use crate::results::{CheckStatus, Results, TestResult, TestStatus};
use crate::score::round3;

/// Options for the text rendering.
#[derive(Clone, Copy, Debug)]
pub struct TextOptions {
    pub paint: Paint,
    /// List passing checks too (the `check` command does; `run` does not).
    pub all_checks: bool,
}

fn status_style(s: TestStatus) -> Style {
    match s {
        TestStatus::Pass => Style::Pass,
        TestStatus::Fail | TestStatus::Error => Style::Error,
        TestStatus::Skip => Style::Skip,
    }
}

/// Keep a value on its line: newlines and tabs are shown escaped.
fn one_line(s: &str) -> String {
    s.replace('\r', "\\r")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

/// The line printed for one test (and its failing checks under it).
pub fn test_block(t: &TestResult, opts: TextOptions) -> String {
    let p = opts.paint;
    let mut out = String::new();
    let label = format!("{:<5}", t.status.label());
    let _ = write!(
        out,
        "{} {}",
        p.paint(status_style(t.status), &label),
        p.text(&t.name)
    );
    match t.status {
        TestStatus::Skip => {
            if !t.message.is_empty() {
                let _ = write!(out, " {}", p.paint(Style::Dim, &format!("— {}", t.message)));
            }
            out.push('\n');
            return out;
        }
        _ => {
            let _ = write!(
                out,
                " {}",
                p.paint(Style::Dim, &format!("({} ms)", t.duration_ms))
            );
        }
    }
    if let (Some(s), Some(th)) = (t.score, t.threshold) {
        let _ = write!(
            out,
            " {}",
            p.paint(
                Style::Dim,
                &format!("score {} / threshold {}", round3(s), round3(th))
            )
        );
    }
    out.push('\n');
    let indent = "      ";
    let listed: Vec<_> = t
        .checks
        .iter()
        .filter(|c| opts.all_checks || c.status != CheckStatus::Pass)
        .collect();
    if t.status == TestStatus::Error
        && t.checks.iter().all(|c| c.status != CheckStatus::Error)
        && !t.message.is_empty()
    {
        for line in t.message.lines() {
            let _ = writeln!(out, "{indent}{}", p.paint(Style::Error, line));
        }
    } else if t.status == TestStatus::Fail && listed.is_empty() && !t.message.is_empty() {
        let _ = writeln!(out, "{indent}{}", p.paint(Style::Error, &t.message));
    }
    for c in listed {
        let (mark, style) = match c.status {
            CheckStatus::Pass => ("✓", Style::Pass),
            CheckStatus::Fail => ("✗", Style::Error),
            CheckStatus::Error => ("!", Style::Error),
        };
        let set = c
            .set
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        let line = c.line.map(|l| format!(" (line {l})")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{indent}{} {}{}{}",
            p.paint(style, mark),
            p.paint(Style::Bold, &c.name),
            p.text(&set),
            p.paint(Style::Dim, &line)
        );
        if c.status != CheckStatus::Pass {
            let _ = writeln!(
                out,
                "{indent}  expected: {}",
                p.text(&one_line(&c.expected))
            );
            let _ = writeln!(out, "{indent}  actual:   {}", p.text(&one_line(&c.actual)));
            if !c.reason.is_empty() {
                let _ = writeln!(out, "{indent}  reason:   {}", p.text(&one_line(&c.reason)));
            }
        }
    }
    for s in t.sets.iter().filter(|s| !s.passed) {
        let _ = writeln!(
            out,
            "{indent}{} assert-set {} scored {} (threshold {})",
            p.paint(Style::Error, "✗"),
            p.paint(Style::Bold, &s.name),
            round3(s.score),
            round3(s.threshold)
        );
    }
    for m in &t.derived_metrics {
        let verdict = match m.passed {
            Some(true) => p.paint(Style::Pass, "ok"),
            Some(false) => p.paint(Style::Error, "below threshold"),
            None => String::new(),
        };
        let th = m
            .threshold
            .map(|t| format!(" (threshold {})", round3(t)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{indent}metric {} = {}{th} {verdict}",
            p.text(&m.name),
            round3(m.value)
        );
        if !m.unresolved.is_empty() {
            let _ = writeln!(
                out,
                "{indent}  {}",
                p.paint(
                    Style::Warning,
                    &format!("unresolved: {} (scored 0)", m.unresolved.join(", "))
                )
            );
        }
    }
    for w in &t.warnings {
        let _ = writeln!(
            out,
            "{indent}{}",
            p.paint(Style::Warning, &format!("warning: {w}"))
        );
    }
    out
}

/// The closing summary line.
pub fn summary_line(r: &Results, paint: Paint) -> String {
    let s = &r.summary;
    let mut parts = vec![paint.paint(
        if s.passed == s.total - s.skipped {
            Style::Pass
        } else {
            Style::Bold
        },
        &format!("{} passed", s.passed),
    )];
    if s.failed > 0 {
        parts.push(paint.paint(Style::Error, &format!("{} failed", s.failed)));
    }
    if s.errored > 0 {
        parts.push(paint.paint(Style::Error, &format!("{} error", s.errored)));
    }
    if s.skipped > 0 {
        parts.push(paint.paint(Style::Skip, &format!("{} skipped", s.skipped)));
    }
    format!(
        "{} test{}: {} ({:.1} s)\n",
        s.total,
        if s.total == 1 { "" } else { "s" },
        parts.join(", "),
        s.duration_ms as f64 / 1000.0
    )
}

/// The whole run: one block per test, then the summary.
pub fn render(r: &Results, opts: TextOptions) -> String {
    let mut out = String::new();
    for t in &r.tests {
        out.push_str(&test_block(t, opts));
    }
    out.push('\n');
    out.push_str(&summary_line(r, opts.paint));
    out
}
