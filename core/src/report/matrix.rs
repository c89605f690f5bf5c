//! One suite against several servers: a table of verdicts, one row per test
//! and one column per server, with the rows where the servers disagree
//! marked. `mcpcheck matrix` runs the suite once per server and hands the
//! results documents here; the table, its verdict and its three renderings
//! (text, Markdown, JSON) are decided here.
//!
//! A row is a test, known by its file, its name and, for a name written twice
//! in one file, which occurrence it is; rows are in the order of the first
//! column that has them. A cell is the test's status on that server with the
//! first line of its message; a server whose run lacks the test has no cell.
//! A row *disagrees* when its cells are not all present with the same status.
//! The matrix passes when no test failed or errored on any server.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::diag::{Paint, Style};
use crate::report::markdown::escape;
use crate::report::plural;
use crate::results::{Results, TestStatus};

/// The version of the JSON document [`Matrix::to_json`] writes.
pub const MATRIX_VERSION: u32 = 1;

/// The table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    pub version: u32,
    /// The servers' names, in column order.
    pub servers: Vec<String>,
    /// No test failed or errored on any server.
    pub passed: bool,
    /// How many rows disagree.
    pub disagreements: usize,
    pub tests: Vec<Row>,
}

/// One test across the servers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub name: String,
    pub file: String,
    /// Whether every server has this test with the same status.
    pub agree: bool,
    /// One per server, in column order; `None` where that server's run
    /// lacks the test.
    pub results: Vec<Option<Cell>>,
}

/// One test on one server.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub status: TestStatus,
    /// The first line of the test's message (why it failed, errored or was
    /// skipped); empty for a pass.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
}

impl Matrix {
    /// The table of `columns`: each a server's name and the results of the
    /// suite run against it.
    pub fn build(columns: &[(String, Results)]) -> Matrix {
        // (file, name, occurrence) -> row index
        let mut index: BTreeMap<(String, String, usize), usize> = BTreeMap::new();
        let mut rows: Vec<Row> = Vec::new();
        for (c, (_, results)) in columns.iter().enumerate() {
            let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
            for t in &results.tests {
                let n = seen.entry((&t.file, &t.name)).or_insert(0);
                let key = (t.file.clone(), t.name.clone(), *n);
                *n += 1;
                let r = *index.entry(key).or_insert_with(|| {
                    rows.push(Row {
                        name: t.name.clone(),
                        file: t.file.clone(),
                        agree: true,
                        results: vec![None; columns.len()],
                    });
                    rows.len() - 1
                });
                rows[r].results[c] = Some(Cell {
                    status: t.status,
                    message: t.message.lines().next().unwrap_or_default().to_string(),
                });
            }
        }
        for row in &mut rows {
            let first = row
                .results
                .first()
                .and_then(|c| c.as_ref().map(|c| c.status));
            row.agree = first.is_some()
                && row
                    .results
                    .iter()
                    .all(|c| c.as_ref().map(|c| c.status) == first);
        }
        let passed = rows
            .iter()
            .all(|r| r.results.iter().flatten().all(|c| c.status.is_success()));
        Matrix {
            version: MATRIX_VERSION,
            servers: columns.iter().map(|(n, _)| n.clone()).collect(),
            passed,
            disagreements: rows.iter().filter(|r| !r.agree).count(),
            tests: rows,
        }
    }

    /// The JSON document, pretty-printed.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// How many tests did not succeed (failed or errored) on each server.
    fn failing(&self) -> Vec<usize> {
        (0..self.servers.len())
            .map(|c| {
                self.tests
                    .iter()
                    .filter(|r| {
                        r.results[c]
                            .as_ref()
                            .is_some_and(|cell| !cell.status.is_success())
                    })
                    .count()
            })
            .collect()
    }

    /// The closing line: tests, servers, disagreements, failures per server.
    fn summary(&self) -> String {
        let mut s = format!(
            "{} on {}: {}",
            plural(self.tests.len(), "test", "tests"),
            plural(self.servers.len(), "server", "servers"),
            plural(self.disagreements, "disagreement", "disagreements"),
        );
        let failing: Vec<String> = self
            .servers
            .iter()
            .zip(self.failing())
            .filter(|(_, n)| *n > 0)
            .map(|(name, n)| format!("{name} ({n})"))
            .collect();
        if failing.is_empty() {
            s.push_str("; every test passed on every server");
        } else {
            let _ = write!(s, "; failing on {}", failing.join(", "));
        }
        s
    }

    /// The table for a terminal: a `≠` before each row that disagrees, then,
    /// for those rows, why each server that did not pass did not.
    pub fn render_text(&self, paint: Paint) -> String {
        let p = paint;
        let cell = |c: &Option<Cell>| c.as_ref().map_or("—", |c| c.status.label());
        let name_width = self
            .tests
            .iter()
            .map(|r| r.name.chars().count())
            .chain(std::iter::once(4))
            .max()
            .unwrap_or(4);
        let widths: Vec<usize> = self
            .servers
            .iter()
            .map(|s| s.chars().count().max(5))
            .collect();
        let pad = |s: &str, w: usize| {
            let n = s.chars().count();
            format!("{s}{}", " ".repeat(w.saturating_sub(n)))
        };
        let mut out = String::new();
        let _ = write!(out, "  {}", p.paint(Style::Bold, &pad("test", name_width)));
        // The last column is not padded: no line ends in spaces.
        let last = self.servers.len().saturating_sub(1);
        for (i, (s, w)) in self.servers.iter().zip(&widths).enumerate() {
            let w = if i == last { 0 } else { *w };
            let _ = write!(out, "  {}", p.paint(Style::Bold, &pad(s, w)));
        }
        out.push('\n');
        for r in &self.tests {
            let mark = if r.agree {
                " ".to_string()
            } else {
                p.paint(Style::Warning, "≠")
            };
            let _ = write!(out, "{mark} {}", p.text(&pad(&r.name, name_width)));
            for (i, (c, w)) in r.results.iter().zip(&widths).enumerate() {
                let text = pad(cell(c), if i == last { 0 } else { *w });
                let styled = match c {
                    Some(c) => p.paint(status_style(c.status), &text),
                    None => p.paint(Style::Dim, &text),
                };
                let _ = write!(out, "  {styled}");
            }
            out.push('\n');
        }
        let disagreeing: Vec<&Row> = self.tests.iter().filter(|r| !r.agree).collect();
        if !disagreeing.is_empty() {
            out.push('\n');
            let _ = writeln!(out, "{}", p.paint(Style::Bold, "disagreements:"));
            for r in disagreeing {
                let _ = writeln!(
                    out,
                    "  {} {}",
                    p.paint(Style::Warning, "≠"),
                    p.text(&r.name)
                );
                for (s, c) in self.servers.iter().zip(&r.results) {
                    let why = match c {
                        None => "not run on this server".to_string(),
                        Some(c) if c.message.is_empty() => c.status.label().to_string(),
                        Some(c) => format!("{} — {}", c.status.label(), c.message),
                    };
                    let _ = writeln!(out, "      {}: {}", p.paint(Style::Bold, s), p.text(&why));
                }
            }
        }
        out.push('\n');
        out.push_str(&p.paint(
            if self.passed {
                Style::Pass
            } else {
                Style::Error
            },
            &self.summary(),
        ));
        out.push('\n');
        out
    }

    /// The table in GitHub-flavoured Markdown: a heading with the verdict,
    /// the table (disagreeing rows marked ≠ and in bold), the summary.
    pub fn render_markdown(&self) -> String {
        let mut out = String::new();
        let mark = if self.passed { "✅" } else { "❌" };
        let _ = writeln!(
            out,
            "## {mark} mcpcheck matrix: {} on {}\n",
            plural(self.tests.len(), "test", "tests"),
            plural(self.servers.len(), "server", "servers")
        );
        out.push_str("| | test |");
        for s in &self.servers {
            let _ = write!(out, " {} |", escape(s));
        }
        out.push_str("\n|---|---|");
        for _ in &self.servers {
            out.push_str("---|");
        }
        out.push('\n');
        for r in &self.tests {
            let name = if r.agree {
                escape(&r.name)
            } else {
                format!("**{}**", escape(&r.name))
            };
            let _ = write!(out, "| {} | {name} |", if r.agree { "" } else { "≠" });
            for c in &r.results {
                let text = match c {
                    None => "—".to_string(),
                    Some(c) => {
                        let icon = match c.status {
                            TestStatus::Pass => "✅",
                            TestStatus::Fail => "❌",
                            TestStatus::Error => "💥",
                            TestStatus::Skip => "⏭️",
                        };
                        if c.message.is_empty() || c.status == TestStatus::Pass {
                            format!("{icon} {}", c.status.as_str())
                        } else {
                            format!("{icon} {}: {}", c.status.as_str(), escape(&c.message))
                        }
                    }
                };
                let _ = write!(out, " {text} |");
            }
            out.push('\n');
        }
        let _ = writeln!(out, "\n{}", escape(&self.summary()));
        out
    }
}

fn status_style(s: TestStatus) -> Style {
    match s {
        TestStatus::Pass => Style::Pass,
        TestStatus::Fail | TestStatus::Error => Style::Error,
        TestStatus::Skip => Style::Skip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TestResult;

    fn results(tests: &[(&str, TestStatus, &str)]) -> Results {
        let mut doc = Results::from_trials(vec![Vec::new()], 0);
        doc.tests = tests
            .iter()
            .map(|(name, status, message)| {
                let mut t = TestResult::skip(name, "suite/a.yaml", Some(1), "");
                t.status = *status;
                t.message = (*message).to_string();
                t
            })
            .collect();
        doc
    }

    fn sample() -> Matrix {
        Matrix::build(&[
            (
                "good".into(),
                results(&[
                    ("echo", TestStatus::Pass, ""),
                    ("add", TestStatus::Pass, ""),
                    ("slow", TestStatus::Skip, "set SLOW to run it"),
                ]),
            ),
            (
                "bad".into(),
                results(&[
                    ("echo", TestStatus::Pass, ""),
                    (
                        "add",
                        TestStatus::Fail,
                        "expected text to contain \"5\"\nmore",
                    ),
                    ("slow", TestStatus::Skip, "set SLOW to run it"),
                    ("extra", TestStatus::Error, "the server crashed"),
                ]),
            ),
        ])
    }

    #[test]
    fn rows_follow_the_tests_and_disagreements_are_counted() {
        let m = sample();
        let names: Vec<&str> = m.tests.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["echo", "add", "slow", "extra"]);
        let agree: Vec<bool> = m.tests.iter().map(|r| r.agree).collect();
        assert_eq!(
            agree,
            [true, false, true, false],
            "a missing cell disagrees"
        );
        assert_eq!(m.disagreements, 2);
        assert!(!m.passed);
        assert_eq!(
            m.tests[1].results[1],
            Some(Cell {
                status: TestStatus::Fail,
                message: "expected text to contain \"5\"".into()
            }),
            "the first line of the message"
        );
        assert_eq!(m.tests[3].results[0], None);
    }

    #[test]
    fn a_matrix_passes_when_nothing_failed_anywhere() {
        let m = Matrix::build(&[
            ("a".into(), results(&[("echo", TestStatus::Pass, "")])),
            ("b".into(), results(&[("echo", TestStatus::Skip, "no")])),
        ]);
        assert!(m.passed);
        assert_eq!(m.disagreements, 1, "skipped on one server only");
    }

    #[test]
    fn a_name_written_twice_in_a_file_is_two_rows() {
        let doc = results(&[("t", TestStatus::Pass, ""), ("t", TestStatus::Fail, "x")]);
        let m = Matrix::build(&[("a".into(), doc.clone()), ("b".into(), doc)]);
        assert_eq!(m.tests.len(), 2);
        assert!(m.tests.iter().all(|r| r.agree));
    }

    #[test]
    fn renderings() {
        let m = sample();
        insta::assert_snapshot!("matrix_text", m.render_text(Paint::Plain));
        insta::assert_snapshot!("matrix_markdown", m.render_markdown());
        insta::assert_snapshot!("matrix_json", m.to_json());
    }
}
