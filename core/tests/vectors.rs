//! The shared test vectors: every file under `tests/vectors/expect/` is one
//! case `{name, expect, observation, options?, verdict, messages}` (see the
//! README there). The npm package's Node tests run the same files and must
//! reach the same verdicts and messages.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use mcpcheck_core::api;
use mcpcheck_core::score::round3;
use serde_json::Value;

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A case whose expectation must not load: its diagnostics are compared.
fn run_invalid(name: &str, case: &Value) -> Result<(), String> {
    let diags = match api::load_expect_value("<expect>", &case["expect"]) {
        Ok(_) => return Err(format!("{name}: the expectation loaded, want invalid")),
        Err(d) => d,
    };
    let got: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
    let want = strings(case.get("messages"));
    if got != want {
        return Err(format!("{name}: diagnostics {got:?}, want {want:?}"));
    }
    if let Some(h) = case.get("hints") {
        let got: Vec<&str> = diags
            .iter()
            .map(|d| d.hint.as_deref().unwrap_or(""))
            .collect();
        let want = strings(Some(h));
        if got != want {
            return Err(format!("{name}: hints {got:?}, want {want:?}"));
        }
    }
    Ok(())
}

fn run_case(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let name = case["name"].as_str().unwrap_or("?");
    let want = case["verdict"].as_str().unwrap_or("?");
    if want == "invalid" {
        return run_invalid(name, &case);
    }
    let doc = api::load_expect_value("<expect>", &case["expect"]).map_err(|d| {
        format!(
            "{name}: expectation did not load: {}",
            d.iter()
                .map(|x| x.one_line())
                .collect::<Vec<_>>()
                .join("; ")
        )
    })?;
    let facts = api::facts_from_json(case.get("options").unwrap_or(&Value::Null))
        .map_err(|e| format!("{name}: bad options: {e}"))?;
    let result = match api::check_response(&doc, case["observation"].clone(), &facts) {
        Ok(result) => result,
        Err(why) => {
            let want_messages = strings(case.get("messages"));
            if want != "refused" || want_messages != [why.as_str()] {
                return Err(format!(
                    "{name}: the response was refused ({why}), want {want} {want_messages:?}"
                ));
            }
            return Ok(());
        }
    };
    if want == "refused" {
        return Err(format!(
            "{name}: the response was checked ({}), want it refused",
            result.status.as_str()
        ));
    }
    let verdict = result.status.as_str();
    let messages: Vec<&str> = result
        .checks
        .iter()
        .filter(|c| !c.reason.is_empty())
        .map(|c| c.reason.as_str())
        .collect();
    let want_messages = strings(case.get("messages"));
    match case.get("score") {
        None => {}
        Some(Value::Null) => {
            if let Some(s) = result.score {
                return Err(format!("{name}: score {s} reported, want none"));
            }
        }
        Some(v) => {
            let got = result.score.map(round3);
            if got != v.as_f64() {
                return Err(format!("{name}: score {got:?}, want {v}"));
            }
        }
    }
    if let Some(want_sets) = case.get("sets").and_then(Value::as_object) {
        for (s, v) in want_sets {
            let got = result
                .sets
                .iter()
                .find(|x| &x.name == s)
                .map(|x| round3(x.score));
            if got != v.as_f64() {
                return Err(format!("{name}: set {s} scored {got:?}, want {v}"));
            }
        }
    }
    if let Some(want_metrics) = case.get("derived_metrics").and_then(Value::as_object) {
        for (m, v) in want_metrics {
            let got = result
                .derived_metrics
                .iter()
                .find(|d| &d.name == m)
                .map(|d| round3(d.value));
            if got != v.as_f64() {
                return Err(format!("{name}: metric {m} = {got:?}, want {v}"));
            }
        }
    }
    if let Some(want_unresolved) = case.get("unresolved").and_then(Value::as_object) {
        for (m, v) in want_unresolved {
            let got: Vec<&str> = result
                .derived_metrics
                .iter()
                .find(|d| &d.name == m)
                .map(|d| d.unresolved.iter().map(String::as_str).collect())
                .unwrap_or_default();
            if got != strings(Some(v)) {
                return Err(format!("{name}: metric {m} unresolved {got:?}, want {v}"));
            }
        }
    }
    if verdict != want || messages != want_messages {
        return Err(format!(
            "{name}: got {verdict} {messages:?}, want {want} {want_messages:?}"
        ));
    }
    Ok(())
}

#[test]
fn shared_vectors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/expect");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            run_case(f).err().map(|e| {
                let file = f.file_name().map(|n| n.to_string_lossy().into_owned());
                format!("{}: {e}", file.unwrap_or_default())
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
