//! Runs every shared test vector in `tests/vectors/invariants/` (format: the README
//! there) and compares the report with the vector's expectation: the verdict, every
//! finding (session, rule ID, exchange, message) and every hazard (kind, servers,
//! message), in order.
//!
//! `MCPCHECK_BLESS=1 cargo test -p mcpcheck-core --test invariant_vectors` fills in
//! the `message` of findings and hazards whose rule, exchange and servers already
//! match, for review; it never changes which findings a vector expects.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use mcpcheck_core::invariants;
use serde_json::{Value, json};

fn vector_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/invariants");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the vector folder exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// The report as the vector format's `expect` block.
fn actual_expect(report: &invariants::Report) -> Value {
    let rendered: Value =
        serde_json::from_str(&invariants::render_json(report)).expect("the report is JSON");
    let mut findings = Vec::new();
    for (session, s) in rendered["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .enumerate()
    {
        for f in s["findings"].as_array().expect("findings") {
            findings.push(json!({
                "session": session,
                "id": f["id"],
                "exchange": f["exchange"],
                "message": f["message"],
            }));
        }
    }
    json!({
        "passed": rendered["passed"],
        "findings": findings,
        "hazards": rendered["hazards"],
    })
}

/// Whether `expected` (which may omit `message`) matches `actual`.
fn item_matches(expected: &Value, actual: &Value) -> bool {
    let Some(fields) = expected.as_object() else {
        return false;
    };
    fields
        .iter()
        .all(|(key, value)| actual.get(key) == Some(value))
}

#[test]
fn every_vector_gives_its_expected_report() {
    let bless = std::env::var_os("MCPCHECK_BLESS").is_some();
    let files = vector_files();
    assert!(
        files.len() >= 50,
        "expected the full vector set, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    // One checker for the whole set: reusing compiled schemas must not change a report
    // (checked against a fresh `check_text` below).
    let mut checker = invariants::Checker::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable vector");
        let mut vector: Value = serde_json::from_str(&text).expect("vector is JSON");
        let capture = serde_json::to_string(&vector["capture"]).expect("capture serializes");
        let report = match checker.check_text(&capture) {
            Ok(report) => report,
            Err(diagnostics) => {
                failures.push(format!(
                    "{}: capture rejected: {diagnostics:?}",
                    path.display()
                ));
                continue;
            }
        };
        if invariants::check_text(&capture).ok().as_ref() != Some(&report) {
            failures.push(format!(
                "{}: a reused checker reports differently",
                path.display()
            ));
        }
        let actual = actual_expect(&report);
        let expected = &vector["expect"];
        let mut problems = Vec::new();
        if expected["passed"] != actual["passed"] {
            problems.push(format!(
                "passed: expected {}, got {}",
                expected["passed"], actual["passed"]
            ));
        }
        for key in ["findings", "hazards"] {
            let want = expected[key].as_array().cloned().unwrap_or_default();
            let got = actual[key].as_array().cloned().unwrap_or_default();
            let same =
                want.len() == got.len() && want.iter().zip(&got).all(|(w, g)| item_matches(w, g));
            if !same {
                problems.push(format!(
                    "{key}: expected {}, got {}",
                    serde_json::to_string_pretty(&want).unwrap_or_default(),
                    serde_json::to_string_pretty(&got).unwrap_or_default()
                ));
            }
        }
        if problems.is_empty() && bless {
            vector["expect"] = actual;
            let mut out = serde_json::to_string_pretty(&vector).expect("vector serializes");
            out.push('\n');
            std::fs::write(path, out).expect("vector written");
        }
        if !problems.is_empty() {
            failures.push(format!("{}:\n  {}", path.display(), problems.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_rule_has_a_breaking_and_a_holding_vector() {
    let mut breaks = std::collections::BTreeSet::new();
    let mut holds = std::collections::BTreeSet::new();
    for path in vector_files() {
        let vector: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
        let rule = vector["rule"]
            .as_str()
            .expect("every vector names its rule")
            .to_string();
        // A vector breaks its rule when the rule has a finding (a recommendation
        // or a note does not fail the report, so `passed` alone cannot say), and
        // keeps it when the report passes without one.
        let fires = vector["expect"]["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["id"] == rule.as_str()))
            || vector["expect"]["hazards"]
                .as_array()
                .is_some_and(|h| h.iter().any(|h| h["kind"] == rule.as_str()));
        if fires {
            breaks.insert(rule);
        } else if vector["expect"]["passed"] == Value::Bool(true) {
            holds.insert(rule);
        } else {
            breaks.insert(rule);
        }
    }
    let mut wanted: Vec<String> = invariants::rules().map(|r| r.code.to_string()).collect();
    wanted.extend(
        invariants::HAZARDS
            .iter()
            .map(|h| h.info().kind.to_string()),
    );
    for id in wanted {
        assert!(breaks.contains(&id), "no vector breaks {id}");
        assert!(holds.contains(&id), "no vector keeps {id}");
    }
}
