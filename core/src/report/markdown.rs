//! Markdown for a GitHub job summary (`$GITHUB_STEP_SUMMARY`) or a pull
//! request comment: a heading with the verdict, one table row per test, each
//! failure's checks folded into a `<details>`, and — when there is something
//! to say — sections for reliability over trials, metric rollups and what
//! changed against a baseline.
//!
//! ```markdown
//! ## ❌ mcpcheck: 2 of 4 tests passed
//!
//! | | Test | File | Time | Score |
//! |:-:|:--|:--|--:|--:|
//! | ✅ | echo returns its input | `evals/echo.yaml:1` | 12 ms | |
//! | ❌ | search finds rust | `evals/search.yaml:3` | 30 ms | 0.5 / 0.7 |
//!
//! 4 tests: 2 passed, 1 failed, 1 skipped (0.1 s)
//!
//! ### Failures
//!
//! <details><summary>❌ <b>search finds rust</b> — expected text to contain 'rust'</summary>
//! …
//! ```
//!
//! Everything that comes from a test (names, values, messages) is escaped,
//! so a response cannot inject markup, break a table or open a link.

use std::fmt::Write as _;

use crate::baseline::Comparison;
use crate::diag::Paint;
use crate::report::{percent, text};
use crate::results::{CheckStatus, Results, TestResult, TestStatus};
use crate::score::round3;

/// The longest value shown in a cell or a failure; longer ones are cut.
const MAX_VALUE: usize = 500;

/// Escape text for Markdown and inline HTML: HTML-significant characters as
/// entities, Markdown punctuation backslash-escaped, `|` as an entity (it
/// would end a table cell even inside code), newlines as `<br>`.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '|' => out.push_str("&#124;"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            // Shown escaped, as the terminal shows it.
            '\t' => out.push_str("\\\\t"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '~' | '#' | '!' | '@' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// [`escape`], cut to [`MAX_VALUE`] characters.
fn value(s: &str) -> String {
    if s.chars().count() > MAX_VALUE {
        let cut: String = s.chars().take(MAX_VALUE).collect();
        format!("{}…", escape(&cut))
    } else {
        escape(s)
    }
}

/// Text for a raw HTML line (a `<details>` summary), where Markdown escapes
/// would show literally: HTML-escaped, on one line, cut to [`MAX_VALUE`].
fn html(s: &str) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_VALUE)
        .collect();
    let cut = if s.chars().count() > MAX_VALUE {
        "…"
    } else {
        ""
    };
    format!("{}{cut}", crate::diag::html_escape(&one_line))
}

fn code(s: &str) -> String {
    format!("<code>{}</code>", value(s))
}

/// A test's mark: its status's, or ⚠️ for a flaky test (passed on a retry).
fn mark(t: &TestResult) -> &'static str {
    if t.flaky { "⚠️" } else { icon(t.status) }
}

fn icon(s: TestStatus) -> &'static str {
    match s {
        TestStatus::Pass => "✅",
        TestStatus::Fail => "❌",
        TestStatus::Error => "💥",
        TestStatus::Skip => "⏭️",
    }
}

fn location(t: &TestResult) -> String {
    if t.file.is_empty() {
        return String::new();
    }
    match t.line {
        Some(l) if l > 0 => code(&format!("{}:{l}", t.file)),
        _ => code(&t.file),
    }
}

fn heading(r: &Results) -> String {
    let s = &r.summary;
    let ran = s.ran();
    let mark = if r.ok() { "✅" } else { "❌" };
    let verdict = if s.total == 0 {
        "no tests".to_string()
    } else if ran == 0 {
        format!("all {} tests skipped", s.total)
    } else if s.passed == ran {
        format!("all {} test{} passed", ran, if ran == 1 { "" } else { "s" })
    } else {
        format!("{} of {} tests passed", s.passed, ran)
    };
    let flaky = if s.flaky > 0 {
        format!(" ({} flaky)", s.flaky)
    } else {
        String::new()
    };
    format!("## {mark} mcpcheck: {verdict}{flaky}\n")
}

fn table(r: &Results) -> String {
    let scored = r.tests.iter().any(|t| t.score.is_some());
    let trials = r.reliability.as_ref().map(|rel| rel.trials);
    let mut out = String::from("| | Test | File | Time |");
    if let Some(k) = trials {
        let _ = write!(out, " Trials passed (of {k}) |");
    }
    if scored {
        out.push_str(" Score |");
    }
    out.push_str("\n|:-:|:--|:--|--:|");
    if trials.is_some() {
        out.push_str("--:|");
    }
    if scored {
        out.push_str("--:|");
    }
    out.push('\n');
    for t in &r.tests {
        let time = if t.status == TestStatus::Skip {
            String::new()
        } else {
            format!("{} ms", t.duration_ms)
        };
        let _ = write!(
            out,
            "| {} | {} | {} | {time} |",
            mark(t),
            value(&t.name),
            location(t)
        );
        if trials.is_some() {
            match &t.trials {
                Some(tr) => {
                    let _ = write!(out, " {}/{} |", tr.passed, tr.count);
                }
                None => out.push_str(" |"),
            }
        }
        if scored {
            match (t.score, t.threshold) {
                (Some(s), Some(th)) => {
                    let _ = write!(out, " {} / {} |", round3(s), round3(th));
                }
                (Some(s), None) => {
                    let _ = write!(out, " {} |", round3(s));
                }
                _ => out.push_str(" |"),
            }
        }
        out.push('\n');
    }
    out
}

fn failure(t: &TestResult) -> String {
    let mut out = String::new();
    let why = if t.message.is_empty() {
        String::new()
    } else {
        format!(" — {}", html(t.message.lines().next().unwrap_or("")))
    };
    let _ = writeln!(
        out,
        "<details><summary>{} <b>{}</b>{why}</summary>\n",
        icon(t.status),
        html(&t.name)
    );
    let loc = location(t);
    if !loc.is_empty() {
        let _ = writeln!(out, "In {loc}.\n");
    }
    if let Some(tr) = &t.trials {
        let first = tr
            .statuses
            .iter()
            .position(|s| *s == t.status)
            .map_or(1, |i| i + 1);
        let _ = writeln!(
            out,
            "Passed {} of {} trials; the detail below is from trial {first}.\n",
            tr.passed, tr.count
        );
    }
    let failing = super::by_line(t.checks.iter().filter(|c| c.status != CheckStatus::Pass));
    if failing.is_empty() && !t.message.is_empty() {
        let _ = writeln!(out, "{}", value(&t.message));
    }
    for c in failing {
        let mark = if c.status == CheckStatus::Error {
            "could not be checked"
        } else {
            "failed"
        };
        let line = c.line.map(|l| format!(" (line {l})")).unwrap_or_default();
        let set = c
            .set
            .as_deref()
            .map(|s| format!(" in assert-set {}", value(s)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- <b>{}</b>{set} on {} {mark}{line}",
            value(&c.name),
            code(&c.target)
        );
        let _ = writeln!(out, "  - expected: {}", code(&c.expected));
        let _ = writeln!(out, "  - actual: {}", code(&c.actual));
        if !c.reason.is_empty() {
            let _ = writeln!(out, "  - reason: {}", value(&c.reason));
        }
    }
    for s in t.sets.iter().filter(|s| !s.passed) {
        let _ = writeln!(
            out,
            "- assert-set <b>{}</b> scored {} (threshold {})",
            value(&s.name),
            round3(s.score),
            round3(s.threshold)
        );
    }
    for m in t.derived_metrics.iter().filter(|m| m.passed == Some(false)) {
        let th = m.threshold.map(round3).unwrap_or_default();
        let _ = writeln!(
            out,
            "- metric <b>{}</b> = {} is below its threshold {th}",
            value(&m.name),
            round3(m.value)
        );
    }
    for w in &t.warnings {
        let _ = writeln!(out, "- warning: {}", value(w));
    }
    out.push_str("\n</details>\n");
    out
}

fn reliability(r: &Results) -> String {
    let Some(rel) = &r.reliability else {
        return String::new();
    };
    let k = rel.trials;
    let mut out = format!("### Reliability over {k} trials\n\n");
    let _ = writeln!(
        out,
        "**pass@{k}** (passed at least once): {} of {} tests ({}) · **pass^{k}** (passed every time): {} of {} tests ({})\n",
        rel.pass_at_k,
        rel.tests,
        percent(rel.pass_at_k, rel.tests),
        rel.pass_hat_k,
        rel.tests,
        percent(rel.pass_hat_k, rel.tests)
    );
    let unreliable: Vec<&TestResult> = r
        .tests
        .iter()
        .filter(|t| t.trials.as_ref().is_some_and(|tr| !tr.pass_hat_k))
        .collect();
    if unreliable.is_empty() {
        out.push_str("Every test that ran passed every trial.\n");
        return out;
    }
    let _ = writeln!(
        out,
        "Tests that did not pass every trial (the others did):\n\n| Test | File | Passed | pass@{k} | pass^{k} | Trials |\n|:--|:--|--:|:-:|:-:|:--|"
    );
    let yes = |b: bool| if b { "✅" } else { "❌" };
    for t in unreliable {
        let Some(tr) = &t.trials else { continue };
        let trail: Vec<&str> = tr.statuses.iter().map(|s| icon(*s)).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {}/{} | {} | {} | {} |",
            value(&t.name),
            location(t),
            tr.passed,
            tr.count,
            yes(tr.pass_at_k),
            yes(tr.pass_hat_k),
            trail.join(" ")
        );
    }
    out
}

fn rollups(r: &Results) -> String {
    if r.metric_rollups.is_empty() {
        return String::new();
    }
    let mut out = String::from("### Metric rollups\n\n| Metric | Mean | Count |\n|:--|--:|--:|\n");
    for m in &r.metric_rollups {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            value(&m.name),
            round3(m.mean),
            m.count
        );
    }
    out
}

fn baseline(c: &Comparison) -> String {
    let mut out = String::from("### Against the baseline\n\n");
    if c.is_quiet() {
        out.push_str("No test changed.\n");
        return out;
    }
    let test = |file: &str, name: &str| format!("{} in {}", value(name), code(file));
    if !c.regressions.is_empty() {
        let _ = writeln!(
            out,
            "**{} regression{}** (passed in the baseline, not now):\n",
            c.regressions.len(),
            if c.regressions.len() == 1 { "" } else { "s" }
        );
        for t in &c.regressions {
            let _ = writeln!(
                out,
                "- ❌ {}: {} → {}",
                test(&t.file, &t.name),
                t.was.as_str(),
                t.now.as_str()
            );
        }
        out.push('\n');
    }
    if !c.stale.is_empty() {
        out.push_str(
            "Stale expected failures (failed in the baseline, pass now: update the baseline):\n\n",
        );
        for t in &c.stale {
            let _ = writeln!(
                out,
                "- ⚠️ {}: {} → {}",
                test(&t.file, &t.name),
                t.was.as_str(),
                t.now.as_str()
            );
        }
        out.push('\n');
    }
    if !c.new_tests.is_empty() {
        out.push_str("New tests (not in the baseline):\n\n");
        for k in &c.new_tests {
            let _ = writeln!(out, "- {}", test(&k.file, &k.name));
        }
        out.push('\n');
    }
    if !c.gone.is_empty() {
        out.push_str("Gone (in the baseline, not in this run):\n\n");
        for k in &c.gone {
            let _ = writeln!(out, "- {}", test(&k.file, &k.name));
        }
        out.push('\n');
    }
    out
}

/// The tests that passed only on a retry, each with the attempts that did
/// not pass. Empty when there are none.
fn flaky(r: &Results) -> String {
    let flaky: Vec<&TestResult> = r.tests.iter().filter(|t| t.flaky).collect();
    if flaky.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "### Flaky\n\nPassed on a retry (`--retries`), after attempts that did not pass:\n\n",
    );
    for t in flaky {
        let loc = location(t);
        let at = if loc.is_empty() {
            String::new()
        } else {
            format!(" ({loc})")
        };
        let _ = writeln!(
            out,
            "- ⚠️ <b>{}</b>{at}: passed on attempt {}",
            value(&t.name),
            t.attempts.len()
        );
        for (i, a) in t.attempts.iter().enumerate() {
            if a.status.is_success() {
                continue;
            }
            let first = a.message.lines().next().unwrap_or("");
            let _ = writeln!(
                out,
                "  - attempt {}: {} {}",
                i + 1,
                icon(a.status),
                value(first)
            );
        }
    }
    out
}

/// The run as Markdown.
pub fn render(r: &Results) -> String {
    render_with(r, None)
}

/// The run as Markdown, with a section on what changed against a baseline
/// (right under the counts: a regression is the first thing to read).
pub fn render_with(r: &Results, comparison: Option<&Comparison>) -> String {
    let mut sections = vec![heading(r)];
    if !r.tests.is_empty() {
        sections.push(table(r));
    }
    sections.push(text::summary_line(r, Paint::Plain));
    if let Some(c) = comparison {
        sections.push(baseline(c));
    }
    let failures: Vec<String> = r
        .tests
        .iter()
        .filter(|t| matches!(t.status, TestStatus::Fail | TestStatus::Error))
        .map(failure)
        .collect();
    if !failures.is_empty() {
        sections.push("### Failures".into());
        sections.extend(failures);
    }
    sections.push(flaky(r));
    sections.push(reliability(r));
    sections.push(rollups(r));
    let mut out = sections
        .iter()
        .map(|s| s.trim_end_matches('\n'))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralizes_markup_tables_and_links() {
        assert_eq!(escape("a|b"), "a&#124;b");
        assert_eq!(escape("<script>"), "&lt;script&gt;");
        assert_eq!(escape("*bold* [x](y)"), "\\*bold\\* \\[x\\](y)");
        assert_eq!(escape("one\r\ntwo"), "one<br>two");
        assert_eq!(escape("`code`"), "\\`code\\`");
        assert_eq!(escape("@someone"), "\\@someone");
        assert_eq!(escape("a\tb"), "a\\\\tb");
    }

    #[test]
    fn summary_lines_are_html_escaped_on_one_line() {
        assert_eq!(html("a <b>\nc*"), "a &lt;b&gt; c*");
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(MAX_VALUE + 10);
        let v = value(&long);
        assert!(v.ends_with('…'));
        assert_eq!(v.chars().count(), MAX_VALUE + 1);
    }
}
