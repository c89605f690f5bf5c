//! Runs every scan vector in `tests/vectors/scan/` (format: the README there) and
//! compares the findings (code, field, item, server, in order) with the vector's;
//! holds the poisoned corpus to being caught and the benign corpus to having no
//! high finding.
//!
//! `MCPCHECK_BLESS=1 cargo test -p mcpcheck-core --test scan_vectors` rewrites the
//! `findings` of every vector with what scan reports now, for review in the diff.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcpcheck_core::scan::{self, Finding, ScanOptions, Severity};
use serde_json::{Value, json};

fn vector_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/scan");
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

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The servers of a vector: `servers`, or `listing` as one server named `server`.
fn servers(vector: &Value) -> Vec<(String, Value)> {
    match vector.get("servers").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .map(|s| {
                (
                    s["server"].as_str().unwrap_or("").to_string(),
                    s["listing"].clone(),
                )
            })
            .collect(),
        None => vec![("server".to_string(), vector["listing"].clone())],
    }
}

fn run(vector: &Value) -> Result<Vec<Finding>, String> {
    let options: ScanOptions = match vector.get("options") {
        Some(o) => serde_json::from_value(o.clone()).map_err(|e| format!("bad options: {e}"))?,
        None => ScanOptions::default(),
    };
    // A skill's files or an app's view in place of a listing.
    if let Some(skill) = vector.get("skill") {
        let files: Vec<(String, String)> = skill["files"]
            .as_array()
            .map(|l| {
                l.iter()
                    .map(|f| {
                        let text = |k: &str| f[k].as_str().unwrap_or_default().to_string();
                        (text("path"), text("text"))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let label = skill["server"].as_str().unwrap_or("server");
        return scan::scan_skill_files(label, &files, &options).map_err(|e| e.to_string());
    }
    if let Some(view) = vector.get("view") {
        let text = |k: &str| view[k].as_str().unwrap_or_default();
        return scan::scan_app_html(
            view["server"].as_str().unwrap_or("server"),
            text("uri"),
            text("html"),
            &options,
        )
        .map_err(|e| e.to_string());
    }
    scan::scan_listings(&servers(vector), &options).map_err(|e| e.to_string())
}

fn brief(findings: &[Finding]) -> Vec<Value> {
    findings
        .iter()
        .map(|f| json!({ "code": f.code(), "field": f.field(), "item": f.item(), "server": f.server() }))
        .collect()
}

#[test]
fn scan_every_vector_gives_its_findings() {
    let bless = std::env::var_os("MCPCHECK_BLESS").is_some();
    let files = vector_files();
    assert!(
        files.len() >= 60,
        "expected the full vector set, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let mut vector = read(path);
        let name = name_of(path);
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
                            "    {} {} {} {} — {} [{}]",
                            f.code(),
                            f.server(),
                            f.item(),
                            f.field(),
                            f.message,
                            f.evidence
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
        for f in &findings {
            assert!(!f.message.is_empty(), "{name}: {} has no message", f.code());
            assert!(
                f.evidence.chars().count() <= 121,
                "{name}: {} evidence too long",
                f.code()
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
fn scan_findings_point_at_fields_and_spans_at_evidence() {
    for path in vector_files() {
        let vector = read(&path);
        if vector.get("error").is_some() {
            continue;
        }
        let servers = servers(&vector);
        let Ok(findings) = run(&vector) else { continue };
        for f in findings {
            // A skill file's or a view's finding points into that text: the
            // file named by its item, or the page.
            let whole = match (vector.get("skill"), vector.get("view")) {
                (Some(skill), _) => skill["files"]
                    .as_array()
                    .and_then(|l| l.iter().find(|file| file["path"] == f.item()))
                    .map(|file| file["text"].clone()),
                (_, Some(view)) => Some(view["html"].clone()),
                _ => None,
            };
            let listing = match &whole {
                Some(text) => {
                    assert_eq!(f.field(), "", "{}: a file's finding", path.display());
                    text
                }
                None => {
                    &servers
                        .iter()
                        .find(|(label, _)| *label == f.server())
                        .unwrap_or_else(|| {
                            panic!("{}: unknown server {}", path.display(), f.server())
                        })
                        .1
                }
            };
            let target = listing.pointer(f.field()).unwrap_or_else(|| {
                panic!(
                    "{}: {} points at {} outside the listing",
                    path.display(),
                    f.code(),
                    f.field()
                )
            });
            let Some((start, end)) = f.location.span else {
                continue;
            };
            // A span is in the field's string, or in the property's name.
            let text = match target {
                Value::String(s) => s.clone(),
                _ => f
                    .field()
                    .rsplit('/')
                    .next()
                    .unwrap_or("")
                    .replace("~1", "/")
                    .replace("~0", "~"),
            };
            let part = text.get(start..end).unwrap_or_else(|| {
                panic!(
                    "{}: {} span {start}..{end} out of its text",
                    path.display(),
                    f.code()
                )
            });
            assert!(
                !part.is_empty(),
                "{}: {} has an empty span",
                path.display(),
                f.code()
            );
            // Secrets are shown redacted, names with every non-ASCII letter escaped.
            if !["S602", "S201", "S202"].contains(&f.code()) {
                let shown = f.evidence.trim_end_matches('…');
                let escaped: String = part
                    .chars()
                    .map(|c| {
                        let hidden = c.is_control()
                            || matches!(c as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xE0000..=0xE007F | 0xE0100..=0xE01EF | 0xFE00..=0xFE0F | 0x00AD | 0xFFFD);
                        if hidden {
                            format!("\\u{{{:X}}}", c as u32)
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                assert!(
                    escaped.starts_with(shown),
                    "{}: {} evidence {:?} is not its span {:?}",
                    path.display(),
                    f.code(),
                    f.evidence,
                    escaped
                );
            }
        }
    }
}

#[test]
fn scan_every_rule_has_a_firing_and_a_holding_vector() {
    let mut fires = BTreeSet::new();
    let mut holds = BTreeSet::new();
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
        let Some(rule) = vector.get("rule").and_then(Value::as_str) else {
            continue;
        };
        assert!(
            scan::rules::Rule::from_code(rule).is_some(),
            "{}: names the unknown rule {rule}",
            path.display()
        );
        let name = name_of(&path);
        if codes.contains(rule) {
            assert!(
                name.contains("-fires-"),
                "{name} fires {rule}: name it -fires-"
            );
            fires.insert(rule.to_string());
        } else {
            assert!(
                name.contains("-holds-"),
                "{name} holds {rule}: name it -holds-"
            );
            holds.insert(rule.to_string());
        }
    }
    for info in scan::rules() {
        assert!(fires.contains(info.code), "no vector fires {}", info.code);
        assert!(
            holds.contains(info.code),
            "no vector holds {} (where it must not fire)",
            info.code
        );
    }
}

#[test]
fn scan_catches_the_poisoned_corpus_and_not_the_benign_one() {
    let mut poisoned = 0;
    let mut benign = 0;
    for path in vector_files() {
        let vector = read(&path);
        let name = name_of(&path);
        let Some(corpus) = vector.get("corpus").and_then(Value::as_str) else {
            continue;
        };
        let findings = run(&vector).unwrap_or_else(|e| panic!("{name}: {e}"));
        match corpus {
            "poisoned" => {
                poisoned += 1;
                assert!(
                    vector["source"].as_str().is_some_and(|s| !s.is_empty()),
                    "{name}: a poisoned listing names the write-up it comes from"
                );
                assert!(
                    !scan::passed(&findings, Severity::High),
                    "{name}: not caught (no high finding)"
                );
            }
            "benign" => {
                benign += 1;
                let high: Vec<&str> = findings
                    .iter()
                    .filter(|f| f.severity() == Severity::High)
                    .map(|f| f.code())
                    .collect();
                assert!(
                    high.is_empty(),
                    "{name}: high findings on a benign listing: {high:?}"
                );
            }
            other => panic!("{name}: unknown corpus {other}"),
        }
    }
    assert!(poisoned >= 8, "only {poisoned} poisoned listings");
    assert!(benign >= 5, "only {benign} benign listings");
}

#[test]
fn scan_real_server_listings_give_their_reviewed_findings_and_no_high_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real-listings");
    let expected = read(&dir.join("expected.json"));
    let expected = expected.as_object().expect("expected.json is an object");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the folder exists")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("expected.json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "only {} real listings", files.len());
    assert_eq!(
        files.len(),
        expected.len(),
        "every listing has its reviewed findings"
    );
    let options = ScanOptions {
        fail_on: Severity::Info,
        ..ScanOptions::default()
    };
    for path in &files {
        let name = name_of(path);
        let findings = scan::scan_listings(&[(name.clone(), read(path))], &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            findings.iter().all(|f| f.severity() != Severity::High),
            "{name}: a high finding on a real server: {findings:?}"
        );
        let got: Vec<Value> = findings
            .iter()
            .map(|f| json!([f.code(), f.item()]))
            .collect();
        assert_eq!(Some(&Value::Array(got)), expected.get(&name), "{name}");
    }
}
