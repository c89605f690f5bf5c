//! Scan time for a listing of 1,000 tools, next to the time to parse its JSON.
//!
//! `cargo run --release -p mcpcheck-core --example scan_bench`

// An example measures time and prints; the no-I/O rule is for the library.
#![allow(clippy::disallowed_methods, clippy::print_stdout)]

use std::hint::black_box;
use std::time::Instant;

use mcpcheck_core::scan::{self, ScanOptions};
use serde_json::{Value, json};

fn listing(tools: usize) -> String {
    let tools: Vec<Value> = (0..tools)
        .map(|i| {
            json!({
                "name": format!("tool_{i}_read_records"),
                "title": format!("Read records {i}"),
                "description": format!(
                    "Read records from table {i} of the inventory database and return them as JSON objects with identifiers, names, quantities and locations. Use the `limit` parameter to page; see https://docs.example.org/tables/{i} for the columns. Important: filters are case-sensitive."
                ),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "table": { "type": "string", "description": "Table name, e.g. items or orders." },
                        "limit": { "type": "integer", "description": "At most this many rows.", "default": 100 },
                        "order": { "type": "string", "enum": ["asc", "desc"], "default": "asc" },
                        "filter": { "type": "object", "properties": { "field": { "type": "string" }, "equals": { "type": "string" } } }
                    },
                    "required": ["table"]
                }
            })
        })
        .collect();
    serde_json::to_string(&json!({ "tools": tools })).unwrap_or_default()
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        black_box(f());
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
    }
    best
}

fn main() {
    let text = listing(1_000);
    let parsed: Value = serde_json::from_str(&text).unwrap_or_default();
    let servers = vec![("bench".to_string(), parsed)];
    let options = ScanOptions::default();
    // The first scan compiles the patterns; it is timed apart.
    let first = best_of(1, || scan::scan_listings(&servers, &options));
    let parse = best_of(20, || serde_json::from_str::<Value>(&text));
    let scan_ms = best_of(20, || scan::scan_listings(&servers, &options));
    let findings = scan::scan_listings(&servers, &options)
        .map(|f| f.len())
        .unwrap_or(0);
    println!("listing: 1,000 tools, {} bytes of JSON", text.len());
    println!("parse JSON:   {parse:.2} ms (best of 20)");
    println!(
        "scan:         {scan_ms:.2} ms (best of 20; first run with pattern compilation {first:.2} ms)"
    );
    println!("ratio:        scan / parse = {:.1}", scan_ms / parse);
    println!("findings:     {findings}");
}
