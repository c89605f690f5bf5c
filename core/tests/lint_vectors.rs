//! Runs every lint vector in `tests/vectors/lint/` (format: the README there) and
//! compares the findings (code, field, item, in order) with the vector's, and the
//! verdict when the vector states one.
//!
//! `MCPCHECK_BLESS=1 cargo test -p mcpcheck-core --test lint_vectors` rewrites the
//! `findings` of every vector with what lint reports now, for review in the diff.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcpcheck_core::lint::{self, Finding, LintOptions, Response};
use serde_json::{Value, json};

fn vector_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/lint");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the vector folder exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("readable vector");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

/// What lint reports for a vector: its findings, or its input error.
fn run(vector: &Value) -> Result<Vec<Finding>, String> {
    let options: LintOptions = match vector.get("options") {
        Some(o) => serde_json::from_value(o.clone()).map_err(|e| format!("bad options: {e}"))?,
        None => LintOptions::default(),
    };
    let outcome = if let Some(response) = vector.get("response") {
        let tool = response["tool"].as_str().unwrap_or("");
        let max = response["max_bytes"]
            .as_u64()
            .map_or(lint::DEFAULT_MAX_RESPONSE_BYTES, |m| m as usize);
        let measured = match response.get("text_bytes").and_then(Value::as_u64) {
            Some(bytes) => Response::TextBytes(bytes as usize),
            None => Response::Result(&response["result"]),
        };
        lint::lint_response(tool, measured, max, &options)
    } else if let Some(second) = vector.get("second_listing") {
        lint::lint_nondeterminism(&vector["listing"], second, &options)
    } else {
        lint::lint_listing(&vector["listing"], &options)
    };
    outcome.map_err(|e| e.to_string())
}

fn brief(findings: &[Finding]) -> Vec<Value> {
    findings
        .iter()
        .map(|f| json!({ "code": f.code(), "field": f.field(), "item": f.item() }))
        .collect()
}

#[test]
fn every_vector_gives_its_findings() {
    let bless = std::env::var_os("MCPCHECK_BLESS").is_some();
    let files = vector_files();
    assert!(
        files.len() >= 66,
        "expected the full vector set, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let mut vector = read(path);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(
            vector["name"].is_string(),
            "{name}: every vector has a name"
        );
        let outcome = run(&vector);
        if let Some(want) = vector.get("error").and_then(Value::as_str) {
            match outcome {
                Err(got) if got.contains(want) => {}
                other => failures.push(format!(
                    "{name}: expected an input error containing {want:?}, got {other:?}"
                )),
            }
            continue;
        }
        let findings = match outcome {
            Ok(findings) => findings,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let got = brief(&findings);
        let want = vector["findings"].as_array().cloned().unwrap_or_default();
        if got != want {
            if bless {
                vector["findings"] = Value::Array(got);
                let mut out = serde_json::to_string_pretty(&vector).expect("vector serializes");
                out.push('\n');
                std::fs::write(path, out).expect("vector written");
            } else {
                let lines: Vec<String> = findings
                    .iter()
                    .map(|f| {
                        format!(
                            "    {} {} {} — {}",
                            f.code(),
                            f.item(),
                            f.field(),
                            f.message
                        )
                    })
                    .collect();
                failures.push(format!(
                    "{name}: expected {}\n  got:\n{}",
                    serde_json::to_string(&want).unwrap_or_default(),
                    lines.join("\n")
                ));
            }
        }
        if let Some(passed) = vector.get("passed").and_then(Value::as_bool) {
            let strict = vector["options"]["strict"].as_bool().unwrap_or(false);
            if lint::passed(&findings, strict) != passed {
                failures.push(format!(
                    "{name}: expected passed = {passed} (strict = {strict})"
                ));
            }
        }
        for f in &findings {
            assert!(!f.message.is_empty(), "{name}: {} has no message", f.code());
            assert!(
                f.field().is_empty() || f.field().starts_with('/'),
                "{name}: {} field {:?} is not a JSON pointer",
                f.code(),
                f.field()
            );
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
fn findings_point_at_fields_of_the_document() {
    for path in vector_files() {
        let vector = read(&path);
        if vector.get("response").is_some() || vector.get("error").is_some() {
            continue;
        }
        let Ok(findings) = run(&vector) else { continue };
        for f in findings {
            // A missing field is pointed at where it belongs: its parent exists.
            let documents = [
                &vector["listing"],
                vector.get("second_listing").unwrap_or(&Value::Null),
            ];
            let parent = f.field().rsplit_once('/').map_or("", |(p, _)| p);
            let resolves = documents
                .iter()
                .any(|d| d.pointer(f.field()).is_some() || d.pointer(parent).is_some());
            assert!(
                resolves,
                "{}: {} points at {} outside the document",
                path.display(),
                f.code(),
                f.field()
            );
        }
    }
}

#[test]
fn every_rule_has_a_firing_and_a_holding_vector() {
    let mut fires = BTreeSet::new();
    let mut holds = BTreeSet::new();
    let mut fired_anywhere = BTreeSet::new();
    for path in vector_files() {
        let vector = read(&path);
        let codes: BTreeSet<String> = vector["findings"]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|f| f["code"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        fired_anywhere.extend(codes.iter().cloned());
        let Some(rule) = vector.get("rule").and_then(Value::as_str) else {
            continue;
        };
        assert!(
            lint::rules::Rule::from_code(rule).is_some(),
            "{}: names the unknown rule {rule}",
            path.display()
        );
        if codes.contains(rule) {
            fires.insert(rule.to_string());
        } else {
            holds.insert(rule.to_string());
        }
    }
    for info in lint::rules() {
        assert!(fires.contains(info.code), "no vector fires {}", info.code);
        assert!(
            holds.contains(info.code),
            "no vector holds {} (where it must not fire)",
            info.code
        );
        assert!(fired_anywhere.contains(info.code));
    }
}
