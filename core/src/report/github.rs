//! GitHub Actions workflow commands of a run: an `::error` annotation at the
//! YAML file and line of every failing check (a test that failed without a
//! failing check, or errored, at the test's own line), so a pull request shows
//! each broken expectation on the line that states it; a `::warning` for a
//! test that passed only some of its trials, or only on a retry
//! (`--retries`); then one `::notice` with the totals. Values are escaped as the runner requires.

use std::fmt::Write as _;

use crate::findings::render::github::{escape_data, escape_property};
use crate::results::{CheckStatus, Results, TestStatus};

fn annotation(kind: &str, file: &str, line: Option<u32>, title: &str, message: &str) -> String {
    let mut props = Vec::new();
    if !file.is_empty() {
        props.push(format!("file={}", escape_property(file)));
        if let Some(line) = line {
            props.push(format!("line={line}"));
        }
    }
    props.push(format!("title={}", escape_property(title)));
    format!("::{kind} {}::{}\n", props.join(","), escape_data(message))
}

/// The workflow commands, one per line.
pub fn render(r: &Results) -> String {
    let mut out = String::new();
    for t in &r.tests {
        let flaky = t
            .trials
            .as_ref()
            .is_some_and(|tr| tr.pass_at_k && !tr.pass_hat_k);
        match t.status {
            TestStatus::Fail | TestStatus::Error => {
                let failing: Vec<_> = t
                    .checks
                    .iter()
                    .filter(|c| c.status != CheckStatus::Pass)
                    .collect();
                if failing.is_empty() {
                    let message = if t.message.is_empty() {
                        t.status.as_str().to_string()
                    } else {
                        t.message.clone()
                    };
                    out.push_str(&annotation("error", &t.file, t.line, &t.name, &message));
                }
                for c in failing {
                    let title = format!("{} › {}", t.name, c.name);
                    let mut message = c.reason.clone();
                    if !c.expected.is_empty() || !c.actual.is_empty() {
                        let _ = write!(message, "\nexpected: {}\nactual: {}", c.expected, c.actual);
                    }
                    out.push_str(&annotation(
                        "error",
                        &t.file,
                        c.line.or(t.line),
                        &title,
                        &message,
                    ));
                }
            }
            TestStatus::Pass if t.flaky => {
                let mut message = format!("flaky: passed on attempt {}", t.attempts.len());
                for (i, a) in t.attempts.iter().enumerate() {
                    if !a.status.is_success() {
                        let first = a.message.lines().next().unwrap_or("");
                        let _ = write!(
                            message,
                            "\nattempt {}: {} {first}",
                            i + 1,
                            a.status.as_str()
                        );
                    }
                }
                out.push_str(&annotation(
                    "warning",
                    &t.file,
                    t.line,
                    &t.name,
                    message.trim_end(),
                ));
            }
            TestStatus::Pass if flaky => {
                let passed = t.trials.as_ref().map_or(0, |tr| tr.passed);
                let count = t.trials.as_ref().map_or(0, |tr| tr.count);
                out.push_str(&annotation(
                    "warning",
                    &t.file,
                    t.line,
                    &t.name,
                    &format!("flaky: passed {passed} of {count} trials"),
                ));
            }
            _ => {}
        }
    }
    let s = &r.summary;
    out.push_str(&format!(
        "::notice title=mcpcheck::{}\n",
        escape_data(&format!(
            "{} tests: {} passed{}, {} failed, {} errored, {} skipped",
            s.total,
            s.passed,
            if s.flaky > 0 {
                format!(" ({} flaky)", s.flaky)
            } else {
                String::new()
            },
            s.failed,
            s.errored,
            s.skipped
        ))
    ));
    out
}
