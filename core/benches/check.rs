//! One expect block of 50 checks over a 1 MiB JSON tool response, against the
//! floor of `serde_json` parsing the same response alone.
//!
//! Two shapes of the same data: the structured result in `structuredContent`
//! (with a short text summary), and the JSON as the text block (mcp-assert's
//! usual case, where the text must be parsed a second time for `json`).
//! `bench/check-ratio.sh` runs this and prints the ratios.

use criterion::{Criterion, criterion_group, criterion_main};
use mcpcheck_core::Facts;
use mcpcheck_core::api;
use serde_json::Value;
use std::hint::black_box;

mod shared;

fn bench(c: &mut Criterion) {
    let (structured, in_text) = shared::responses();
    let doc = shared::doc();
    let facts = Facts::default();
    let n_checks = doc.expect.checks().count();
    assert!(n_checks >= 50, "{n_checks} checks");

    for (name, response) in [("structured", &structured), ("text", &in_text)] {
        // Sanity: the block passes on this response.
        let v: Value = serde_json::from_str(response).unwrap_or(Value::Null);
        let r = api::check_response(&doc, v, &facts).expect("a tool result");
        assert_eq!(r.status.as_str(), "pass", "{name}: {}", r.message);

        let mut g = c.benchmark_group(name);
        g.sample_size(30);
        g.bench_function("parse_only", |b| {
            b.iter(|| {
                black_box(serde_json::from_str::<Value>(black_box(response)).unwrap_or(Value::Null))
            })
        });
        if name == "text" {
            // The fair floor when the data is the text block: the response and
            // the JSON in its text, as any checker of that JSON must parse.
            g.bench_function("parse_both", |b| {
                b.iter(|| {
                    let v: Value = serde_json::from_str(black_box(response)).unwrap_or(Value::Null);
                    let text = v
                        .pointer("/content/0/text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let inner: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                    black_box((v.is_object(), inner))
                })
            });
        }
        g.bench_function("parse_and_check", |b| {
            b.iter(|| {
                let v: Value = serde_json::from_str(black_box(response)).unwrap_or(Value::Null);
                black_box(api::check_response(&doc, v, &facts))
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
