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
//! Every failing check is listed, not only the first. When the tests ran
//! several times (`--trials k`), each test line says how many trials passed
//! and a reliability section (pass@k, pass^k, the tests that were not
//! reliable) precedes the summary; derived metrics add a metric-rollup
//! section. [`comparison`] renders what changed against a baseline.

use super::plural;
use std::fmt::Write as _;

use crate::baseline::{Comparison, TestKey, Transition};
use crate::diag::{Paint, Style};
use crate::report::percent;
use crate::results::{CheckStatus, Results, TestResult, TestStatus};
use crate::score::round3;

/// Options for the text rendering.
#[derive(Clone, Copy, Debug)]
pub struct TextOptions {
    pub paint: Paint,
    /// List passing checks too (the `check` command does; `run` does not).
    pub all_checks: bool,
}

fn status_style(t: &TestResult) -> Style {
    if t.flaky {
        return Style::Warning;
    }
    match t.status {
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

/// ` · 2/3 trials passed`, when the test ran several trials.
fn trials_note(t: &TestResult, p: Paint) -> String {
    let Some(tr) = &t.trials else {
        return String::new();
    };
    let style = if tr.pass_hat_k {
        Style::Dim
    } else {
        Style::Warning
    };
    format!(
        " {} {}",
        p.paint(Style::Dim, "·"),
        p.paint(style, &format!("{}/{} trials passed", tr.passed, tr.count))
    )
}

/// ` · passed on attempt 2` (flaky) or ` · fail on all 3 attempts`, when
/// the test was retried.
fn attempts_note(t: &TestResult, p: Paint) -> String {
    if t.attempts.len() <= 1 {
        return String::new();
    }
    let n = t.attempts.len();
    let (words, style) = if t.flaky {
        (format!("passed on attempt {n}"), Style::Warning)
    } else {
        (
            format!("{} on all {n} attempts", t.status.as_str()),
            Style::Dim,
        )
    };
    format!(" {} {}", p.paint(Style::Dim, "·"), p.paint(style, &words))
}

/// A flaky test's attempts that did not pass, one line each.
fn failed_attempts(t: &TestResult, p: Paint, indent: &str) -> String {
    let mut out = String::new();
    if !t.flaky {
        return out;
    }
    for (i, a) in t.attempts.iter().enumerate() {
        if a.status.is_success() {
            continue;
        }
        let first = a.message.lines().next().unwrap_or("");
        let line = format!(
            "attempt {}: {} {}",
            i + 1,
            a.status.as_str(),
            one_line(first)
        );
        let _ = writeln!(out, "{indent}{}", p.paint(Style::Warning, line.trim_end()));
    }
    out
}

/// The line printed for one test (and its failing checks under it).
pub fn test_block(t: &TestResult, opts: TextOptions) -> String {
    let p = opts.paint;
    let mut out = String::new();
    let label = format!("{:<5}", t.label());
    let _ = write!(
        out,
        "{} {}",
        p.paint(status_style(t), &label),
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
    out.push_str(&trials_note(t, p));
    out.push_str(&attempts_note(t, p));
    out.push('\n');
    let indent = "      ";
    out.push_str(&failed_attempts(t, p, indent));
    let listed = super::by_line(
        t.checks
            .iter()
            .filter(|c| opts.all_checks || c.status != CheckStatus::Pass),
    );
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
        let verdict = if verdict.is_empty() {
            verdict
        } else {
            format!(" {verdict}")
        };
        let _ = writeln!(
            out,
            "{indent}metric {} = {}{th}{verdict}",
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
    // Flaky tests passed (on a retry): said apart from the others.
    let passed = s.passed.saturating_sub(s.flaky);
    let mut parts = vec![paint.paint(
        if s.passed == s.total - s.skipped && s.flaky == 0 {
            Style::Pass
        } else {
            Style::Bold
        },
        &format!("{passed} passed"),
    )];
    if s.flaky > 0 {
        parts.push(paint.paint(Style::Warning, &format!("{} flaky", s.flaky)));
    }
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

/// pass@k and pass^k over the run, then every test that did not pass every
/// trial. Empty when the tests ran once.
pub fn reliability(r: &Results, paint: Paint) -> String {
    let Some(rel) = &r.reliability else {
        return String::new();
    };
    let k = rel.trials;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        paint.paint(Style::Bold, &format!("Reliability over {k} trials"))
    );
    let _ = writeln!(
        out,
        "  pass@{k}  {}/{} tests ({}) passed at least once",
        rel.pass_at_k,
        rel.tests,
        percent(rel.pass_at_k, rel.tests)
    );
    let _ = writeln!(
        out,
        "  pass^{k}  {}/{} tests ({}) passed every time",
        rel.pass_hat_k,
        rel.tests,
        percent(rel.pass_hat_k, rel.tests)
    );
    for t in &r.tests {
        let Some(tr) = t.trials.as_ref().filter(|tr| !tr.pass_hat_k) else {
            continue;
        };
        let (word, style) = if tr.pass_at_k {
            ("flaky ", Style::Warning)
        } else {
            ("broken", Style::Error)
        };
        let place = match t.line {
            Some(l) if !t.file.is_empty() => format!(" ({}:{l})", t.file),
            _ if !t.file.is_empty() => format!(" ({})", t.file),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {} {:>5}  {}{}",
            paint.paint(style, word),
            format!("{}/{}", tr.passed, tr.count),
            paint.text(&t.name),
            paint.paint(Style::Dim, &place)
        );
    }
    out
}

/// The mean and count of every derived metric over the run. Empty when no
/// test reported one.
pub fn metric_rollups(r: &Results, paint: Paint) -> String {
    if r.metric_rollups.is_empty() {
        return String::new();
    }
    let width = r
        .metric_rollups
        .iter()
        .map(|m| m.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(out, "{}", paint.paint(Style::Bold, "Metric rollups"));
    for m in &r.metric_rollups {
        let pad = " ".repeat(width.saturating_sub(m.name.chars().count()));
        let _ = writeln!(
            out,
            "  {}{pad}  mean {} over {} test{}",
            paint.text(&m.name),
            round3(m.mean),
            m.count,
            if m.count == 1 { "" } else { "s" }
        );
    }
    out
}

/// What changed against a baseline: regressions first, then stale expected
/// failures, new tests and tests gone from the run. Empty when nothing did.
pub fn comparison(c: &Comparison, paint: Paint) -> String {
    if c.is_quiet() {
        return String::new();
    }
    let mut parts = Vec::new();
    if !c.regressions.is_empty() {
        parts.push(paint.paint(
            Style::Error,
            &plural(c.regressions.len(), "regression", "regressions"),
        ));
    }
    if !c.stale.is_empty() {
        parts.push(paint.paint(
            Style::Warning,
            &plural(
                c.stale.len(),
                "stale expected failure",
                "stale expected failures",
            ),
        ));
    }
    if !c.new_tests.is_empty() {
        parts.push(plural(c.new_tests.len(), "new test", "new tests"));
    }
    if !c.gone.is_empty() {
        parts.push(plural(c.gone.len(), "test gone", "tests gone"));
    }
    let mut out = format!(
        "{} {}\n",
        paint.paint(Style::Bold, "Baseline:"),
        parts.join(", ")
    );
    let moved = |out: &mut String, label: &str, style: Style, t: &Transition, note: &str| {
        let _ = writeln!(
            out,
            "  {} {} › {} ({} → {}){note}",
            paint.paint(style, label),
            paint.text(&t.file),
            paint.text(&t.name),
            t.was.as_str(),
            t.now.as_str()
        );
    };
    for t in &c.regressions {
        moved(&mut out, "REGRESSION", Style::Error, t, "");
    }
    for t in &c.stale {
        moved(
            &mut out,
            "STALE     ",
            Style::Warning,
            t,
            ": passes now, update the baseline",
        );
    }
    let key = |out: &mut String, label: &str, k: &TestKey| {
        let _ = writeln!(
            out,
            "  {} {} › {}",
            paint.paint(Style::Dim, label),
            paint.text(&k.file),
            paint.text(&k.name)
        );
    };
    for k in &c.new_tests {
        key(&mut out, "new       ", k);
    }
    for k in &c.gone {
        key(&mut out, "gone      ", k);
    }
    out
}

/// The whole run: one block per test, the reliability and metric-rollup
/// sections when there is something to say, then the summary.
pub fn render(r: &Results, opts: TextOptions) -> String {
    let mut out = String::new();
    for t in &r.tests {
        out.push_str(&test_block(t, opts));
    }
    for section in [reliability(r, opts.paint), metric_rollups(r, opts.paint)] {
        if !section.is_empty() {
            out.push('\n');
            out.push_str(&section);
        }
    }
    out.push('\n');
    out.push_str(&summary_line(r, opts.paint));
    out
}
