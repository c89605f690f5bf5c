//! TAP (the Test Anything Protocol, version 14) of a run: a test point per
//! test in suite order, `not ok` with a YAML block of its failing checks
//! (name, expected, actual, reason, file and line) or its error, `# SKIP`
//! with the reason for a skipped test. A test that passed on a retry
//! (`--retries`) is `ok` with a YAML block saying `status: flaky` and the
//! attempts that did not pass.

use std::fmt::Write as _;

use crate::results::{CheckStatus, Results, TestStatus};

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn description(s: &str) -> String {
    s.replace('#', "\\#").replace(['\n', '\r'], " ")
}

/// The TAP stream.
pub fn render(r: &Results) -> String {
    let mut out = format!("TAP version 14\n1..{}\n", r.tests.len());
    for (i, t) in r.tests.iter().enumerate() {
        let n = i + 1;
        let name = if t.file.is_empty() {
            description(&t.name)
        } else {
            description(&format!("{} › {}", t.file, t.name))
        };
        match t.status {
            TestStatus::Pass if t.flaky => {
                let _ = writeln!(out, "ok {n} - {name}");
                out.push_str("  ---\n  status: flaky\n");
                let _ = writeln!(out, "  attempts: {}", t.attempts.len());
                out.push_str("  failed_attempts:\n");
                for (i, a) in t.attempts.iter().enumerate() {
                    if a.status.is_success() {
                        continue;
                    }
                    let _ = writeln!(out, "    - attempt: {}", i + 1);
                    let _ = writeln!(out, "      status: {}", a.status.as_str());
                    let _ = writeln!(out, "      message: {}", quoted(&a.message));
                }
                out.push_str("  ...\n");
            }
            TestStatus::Pass => {
                let _ = writeln!(out, "ok {n} - {name}");
            }
            TestStatus::Skip => {
                let _ = writeln!(out, "ok {n} - {name} # SKIP {}", description(&t.message));
            }
            TestStatus::Fail | TestStatus::Error => {
                let _ = writeln!(out, "not ok {n} - {name}");
                out.push_str("  ---\n");
                let _ = writeln!(out, "  status: {}", t.status.as_str());
                if let Some(line) = t.line {
                    let _ = writeln!(out, "  at: {}", quoted(&format!("{}:{line}", t.file)));
                }
                let failing: Vec<_> = t
                    .checks
                    .iter()
                    .filter(|c| c.status != CheckStatus::Pass)
                    .collect();
                if failing.is_empty() {
                    let _ = writeln!(out, "  message: {}", quoted(&t.message));
                } else {
                    out.push_str("  checks:\n");
                    for c in failing {
                        let _ = writeln!(out, "    - name: {}", quoted(&c.name));
                        let _ = writeln!(out, "      expected: {}", quoted(&c.expected));
                        let _ = writeln!(out, "      actual: {}", quoted(&c.actual));
                        let _ = writeln!(out, "      reason: {}", quoted(&c.reason));
                        if let Some(line) = c.line {
                            let _ = writeln!(out, "      line: {line}");
                        }
                    }
                }
                out.push_str("  ...\n");
            }
        }
    }
    out
}
