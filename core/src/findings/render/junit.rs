//! JUnit XML of a findings report, for CI test views: one test case per case
//! of the report (an item called, a rule judged), or, when the analysis has
//! none, one per item with findings (its kind as the class name) and one
//! passing case for the subject when nothing was found. A case fails when a
//! finding of it fails the report's gate; the failure lists every finding of
//! the case. A case that passes keeps its findings in `system-out`. Skipped
//! and unverified cases are skipped, a case that could not be examined is an
//! error. Cases of one suite (a protocol revision, a part of a doctor run)
//! share a test suite.

use quick_junit::{NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestSuite};

use super::place;
use crate::findings::{Case, CaseStatus, Finding, Report};

fn line(f: &Finding) -> String {
    let at = place(f);
    let mut s = format!("{} {}", f.code(), f.rule.severity_word());
    if !at.is_empty() {
        s.push_str(&format!("  {at}"));
    }
    s.push_str(&format!("  {}", f.message));
    s
}

fn case(report: &Report, c: &Case) -> TestCase {
    let findings: Vec<&Finding> = c
        .findings
        .iter()
        .filter_map(|&i| report.findings.get(i))
        .collect();
    let lines: Vec<String> = findings.iter().map(|f| line(f)).collect();
    let failing: Vec<&&Finding> = findings.iter().filter(|f| report.gate.fails(f)).collect();
    let status = match c.status {
        CaseStatus::Error => {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(c.detail.as_str());
            s
        }
        CaseStatus::Skipped | CaseStatus::NotVerified => {
            let mut s = TestCaseStatus::skipped();
            let why = if c.detail.is_empty() {
                c.status.as_str().to_string()
            } else {
                c.detail.clone()
            };
            s.set_message(why);
            s
        }
        _ => match failing.first() {
            None if c.status == CaseStatus::Failed => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(c.detail.as_str());
                s
            }
            None => TestCaseStatus::success(),
            Some(first) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                let at = place(first);
                let message = if at.is_empty() {
                    format!("{}: {}", first.code(), first.message)
                } else {
                    format!("{} {at}: {}", first.code(), first.message)
                };
                s.set_message(message);
                s.set_type(first.code());
                s.set_description(lines.join("\n"));
                s
            }
        },
    };
    let passed = matches!(c.status, CaseStatus::Passed | CaseStatus::Noted) && failing.is_empty();
    let mut case = TestCase::new(c.name.as_str(), status);
    case.set_classname(if c.class.is_empty() {
        report.command.as_str()
    } else {
        c.class.as_str()
    });
    if let Some(ms) = c.duration_ms {
        case.set_time(std::time::Duration::from_millis(ms));
    }
    if passed && !lines.is_empty() {
        case.set_system_out(lines.join("\n"));
    }
    case
}

/// The JUnit XML.
pub fn render(report: &Report) -> String {
    let name = format!("mcpcheck {}", report.command);
    let cases = report.cases_or_items();
    let mut junit = Junit::new(name.as_str());
    let mut suites: Vec<&str> = Vec::new();
    for c in &cases {
        if !suites.contains(&c.suite.as_str()) {
            suites.push(&c.suite);
        }
    }
    for suite_name in suites {
        let title = if suite_name.is_empty() {
            name.clone()
        } else {
            format!("{} {suite_name}", report.subject)
        };
        let mut suite = TestSuite::new(title);
        for c in cases.iter().filter(|c| c.suite == suite_name) {
            suite.add_test_case(case(report, c));
        }
        junit.add_test_suite(suite);
    }
    let failing_notes: Vec<&str> = report
        .notes
        .iter()
        .filter(|n| n.fails)
        .map(|n| n.text.as_str())
        .collect();
    if !failing_notes.is_empty() {
        let mut suite = TestSuite::new(format!("{name} configuration"));
        for (i, text) in failing_notes.iter().enumerate() {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(*text);
            let mut case = TestCase::new(format!("note {}", i + 1), s);
            case.set_classname("config");
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string().unwrap_or_else(|e| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- mcpcheck could not serialize the JUnit report: {} -->\n<testsuites name=\"{name}\"/>\n",
            e.to_string().replace("--", "- -")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{Gate, ItemKind, Location, registry};

    fn finding(code: &str, item: &str) -> Finding {
        let rule = registry::lookup(code).unwrap_or_else(|| panic!("{code}"));
        Finding::new(
            rule,
            Location::item(ItemKind::Tool, item).at("/tools/0"),
            "m",
        )
    }

    #[test]
    fn items_with_errors_fail() {
        let mut r = Report::new("lint", "listing");
        r.findings = vec![
            finding("E101", "read_file"),
            finding("W111", "read_file"),
            finding("I601", "list"),
        ];
        let xml = render(&r);
        assert!(xml.contains("tests=\"2\""), "{xml}");
        assert!(xml.contains("failures=\"1\""), "{xml}");
        let mut strict = Report::new("lint", "listing");
        strict.findings = vec![finding("W111", "a")];
        strict.gate = Gate {
            strict: true,
            fail_on: None,
        };
        assert!(render(&strict).contains("failures=\"1\""));
        assert!(render(&Report::new("lint", "listing")).contains("testcase name=\"listing\""));
    }
}
