//! The work the check benchmark measures, once, for an instruction counter:
//! `valgrind --tool=callgrind --toggle-collect='check_cost::measured_*' target/release/examples/check_cost MODE SHAPE`
//! where MODE is `parse` (the floor: serde_json parsing the response),
//! `parse-both` (the response and the JSON in its text block) or `check` (parse, build the Observation, evaluate the 50 checks) and SHAPE
//! is `structured` or `text`. Instruction counts do not depend on what else
//! the machine is doing, so their ratio is stable. `bench/check-ratio.sh`
//! runs it.

// A measuring program, not the library: it reads its command line.
#![allow(clippy::disallowed_methods)]

#[path = "../benches/shared.rs"]
mod shared;

/// The floor: parse the response (and free it, as the check must too).
#[inline(never)]
fn measured_parse(response: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(response).unwrap_or_default();
    std::hint::black_box(&v).is_object()
}

/// The floor when the data is the text block: parse the response, then the
/// JSON in its text, as any checker of that JSON must.
#[inline(never)]
fn measured_parse_both(response: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(response).unwrap_or_default();
    let text = v
        .pointer("/content/0/text")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let inner: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    std::hint::black_box(&inner).is_object() && std::hint::black_box(&v).is_object()
}

/// Parse, build the Observation, evaluate every check.
#[inline(never)]
fn measured_check(
    response: &str,
    doc: &mcpcheck_core::api::ExpectDoc,
    facts: &mcpcheck_core::Facts,
) -> mcpcheck_core::results::TestResult {
    let v: serde_json::Value = serde_json::from_str(response).unwrap_or_default();
    match mcpcheck_core::api::check_response(doc, v, facts) {
        Ok(result) => result,
        Err(why) => panic!("the measured response is not a tool result: {why}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("check", String::as_str);
    let shape = args.get(2).map_or("structured", String::as_str);
    let (structured, in_text) = shared::responses();
    let response = if shape == "text" {
        &in_text
    } else {
        &structured
    };
    let doc = shared::doc();
    let facts = mcpcheck_core::Facts::default();
    if mode == "check" {
        let r = measured_check(response, &doc, &facts);
        assert_eq!(r.status.as_str(), "pass", "{}", r.message);
    } else if mode == "parse-both" {
        std::hint::black_box(measured_parse_both(response));
    } else {
        std::hint::black_box(measured_parse(response));
    }
}
