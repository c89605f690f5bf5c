//! The examples `mcpcheck rule CODE` shows: for the rules with shared test
//! vectors, the smallest vector that fires the rule, built into the binary by
//! `build.rs`. A listing example is judged again here, so what the example
//! says the rule reports is what it reports.

use serde_json::Value;

use super::Family;

/// One vector.
#[derive(Debug, Clone, Copy)]
struct Example {
    code: &'static str,
    title: &'static str,
    family: &'static str,
    /// The listing (lint, scan), pretty JSON; empty for a capture.
    input: &'static str,
    /// The finding's message (invariants).
    message: &'static str,
}

const EXAMPLES: &[Example] = include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// The longest listing shown, in lines.
const MAX_LINES: usize = 40;

/// The example of `code`, as text: what the input is, the input (a listing),
/// and what the rule reports on it. `None` for a rule without a vector.
pub fn example(code: &str) -> Option<String> {
    let e = EXAMPLES.iter().find(|e| e.code == code)?;
    let mut out = format!("{}:\n", e.title);
    if e.input.is_empty() {
        out.push_str(&format!("{} reports: {}\n", e.code, e.message));
        return Some(out);
    }
    let lines: Vec<&str> = e.input.lines().collect();
    for l in lines.iter().take(MAX_LINES) {
        out.push_str(&format!("  {l}\n"));
    }
    if lines.len() > MAX_LINES {
        out.push_str(&format!("  … ({} more lines)\n", lines.len() - MAX_LINES));
    }
    let listing: Value = serde_json::from_str(e.input).ok()?;
    let findings = match Family::parse(e.family)? {
        Family::Lint => {
            crate::lint::lint_listing(&listing, &crate::lint::LintOptions::default()).ok()?
        }
        Family::Scan => crate::scan::scan_listings(
            &[("server".to_string(), listing)],
            &crate::scan::ScanOptions {
                fail_on: crate::findings::Severity::Info,
                ..Default::default()
            },
        )
        .ok()?,
        _ => return Some(out),
    };
    for f in findings.iter().filter(|f| f.code() == code) {
        out.push_str(&format!(
            "{} reports {}: {}\n",
            f.code(),
            f.location.item_label(),
            f.message
        ));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lint_scan_and_invariant_rules_have_examples_that_fire() {
        for code in ["E103", "S301", "INV-001"] {
            let text = example(code).unwrap_or_else(|| panic!("no example for {code}"));
            assert!(text.contains(&format!("{code} reports")), "{code}: {text}");
        }
        assert!(example("H101").is_none());
    }
}
