//! The shared test vectors: every file under `tests/vectors/expect/` is one
//! case `{name, expect, observation, options?, verdict, messages}` (see the
//! README there). The npm package's Node tests run the same files and must
//! reach the same verdicts and messages.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use mcpcheck_core::api;
use serde_json::Value;

fn run_case(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let name = case["name"].as_str().unwrap_or("?");
    let doc = api::load_expect_value("<expect>", &case["expect"]).map_err(|d| {
        format!(
            "{name}: expectation did not load: {}",
            d.iter().map(|x| x.one_line()).collect::<Vec<_>>().join("; ")
        )
    })?;
    let facts = api::facts_from_json(case.get("options").unwrap_or(&Value::Null))
        .map_err(|e| format!("{name}: bad options: {e}"))?;
    let result = api::check_response(&doc, &case["observation"], &facts);
    let verdict = result.status.as_str();
    let want = case["verdict"].as_str().unwrap_or("?");
    let messages: Vec<&str> = result
        .checks
        .iter()
        .filter(|c| !c.reason.is_empty())
        .map(|c| c.reason.as_str())
        .collect();
    let want_messages: Vec<&str> = case["messages"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(want_score) = case.get("score").and_then(Value::as_f64) {
        let got = result.score.map(mcpcheck_core::score::round3);
        if got != Some(want_score) {
            return Err(format!("{name}: score {got:?}, want {want_score}"));
        }
    }
    if let Some(want_metrics) = case.get("derived_metrics").and_then(Value::as_object) {
        for (m, v) in want_metrics {
            let got = result
                .derived_metrics
                .iter()
                .find(|d| &d.name == m)
                .map(|d| mcpcheck_core::score::round3(d.value));
            if got != v.as_f64() {
                return Err(format!("{name}: metric {m} = {got:?}, want {v}"));
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
    let failures: Vec<String> = files.iter().filter_map(|f| run_case(f).err()).collect();
    assert!(failures.is_empty(), "{} of {} vectors failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}
