//! The native side of the checkResponse timing (scripts/budgets): the same
//! core calls the wasm export makes — load the expectations, read the
//! response JSON, check — on the same files, timed over several runs.
//!
//!   cargo run --release -p mcpcheck-web --example native_check -- EXPECT RESPONSE [RUNS]

use std::time::Instant;

use mcpcheck_core::api;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [expect, response, rest @ ..] = args.as_slice() else {
        return Err("usage: native_check EXPECT RESPONSE [RUNS]".into());
    };
    let runs: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(5);
    let etext = std::fs::read_to_string(expect).map_err(|e| format!("{expect}: {e}"))?;
    let rtext = std::fs::read_to_string(response).map_err(|e| format!("{response}: {e}"))?;
    let facts = api::facts_from_json(&serde_json::json!({"today": "2026-02-01"}))
        .map_err(|e| e.to_string())?;
    let mut times = Vec::new();
    let mut status = String::new();
    for _ in 0..runs {
        let start = Instant::now();
        let doc = api::load_expect("<expect>", &etext).map_err(|d| format!("{d:?}"))?;
        let value = api::load_response("<response>", &rtext).map_err(|d| d.one_line())?;
        let result = api::check_response(&doc, value, &facts)?;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        status = format!(
            "{} ({} checks)",
            result.status.as_str(),
            result.checks.len()
        );
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{{\"median_ms\": {:.2}, \"min_ms\": {:.2}, \"runs\": {runs}, \"status\": \"{status}\"}}",
        times[times.len() / 2],
        times[0]
    );
    Ok(())
}
