//! A shields.io endpoint badge: JSON that `https://img.shields.io/endpoint?url=…`
//! turns into a pass-rate badge for a README.
//!
//! ```json
//! {"schemaVersion": 1, "label": "mcpcheck", "message": "3/4 passed", "color": "yellow"}
//! ```
//!
//! The rate is over the tests that ran (skipped ones are left out). After
//! several trials the message adds pass@k: `2/4 passed · pass@5 3/4` (the
//! passed count is already pass^k, since a test passes only when every trial
//! did); flaky tests (passed on a retry) add `· 1 flaky`. Colours: all passed `brightgreen`, at least 90% `green`, 75%
//! `yellowgreen`, 50% `yellow`, 25% `orange`, below that `red`; nothing ran
//! `lightgrey`.

use serde_json::json;

use crate::results::Results;

/// The shields.io colour for a pass percentage (`None`: nothing ran).
pub fn color(percent: Option<f64>) -> &'static str {
    match percent {
        None => "lightgrey",
        Some(p) if p >= 100.0 => "brightgreen",
        Some(p) if p >= 90.0 => "green",
        Some(p) if p >= 75.0 => "yellowgreen",
        Some(p) if p >= 50.0 => "yellow",
        Some(p) if p >= 25.0 => "orange",
        Some(_) => "red",
    }
}

/// The badge's message.
pub fn message(r: &Results) -> String {
    let s = &r.summary;
    let ran = s.ran();
    if ran == 0 {
        return "no tests ran".into();
    }
    let mut m = format!("{}/{ran} passed", s.passed);
    if let Some(rel) = &r.reliability {
        m.push_str(&format!(
            " · pass@{} {}/{}",
            rel.trials, rel.pass_at_k, rel.tests
        ));
    }
    if s.flaky > 0 {
        m.push_str(&format!(" · {} flaky", s.flaky));
    }
    m
}

/// The badge JSON.
pub fn render(r: &Results) -> String {
    let badge = json!({
        "schemaVersion": 1,
        "label": "mcpcheck",
        "message": message(r),
        "color": color(r.summary.pass_percent()),
    });
    let mut text = serde_json::to_string_pretty(&badge).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_by_pass_rate() {
        let table = [
            (None, "lightgrey"),
            (Some(100.0), "brightgreen"),
            (Some(99.9), "green"),
            (Some(90.0), "green"),
            (Some(75.0), "yellowgreen"),
            (Some(50.0), "yellow"),
            (Some(49.9), "orange"),
            (Some(25.0), "orange"),
            (Some(0.0), "red"),
        ];
        for (p, want) in table {
            assert_eq!(color(p), want, "{p:?}");
        }
    }

    #[test]
    fn nothing_ran() {
        let r = Results::new(Vec::new(), 0);
        assert_eq!(message(&r), "no tests ran");
        assert!(render(&r).contains("\"lightgrey\""));
    }
}
