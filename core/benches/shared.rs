//! The benchmark's input, shared by the criterion bench and the
//! instruction-count example: a 1 MiB search-like tool response in two
//! shapes, and one expect block of 50 checks.

#![allow(dead_code)]

use mcpcheck_core::api;
use serde_json::{Value, json};

/// A search-like result of about `bytes` bytes of JSON.
pub fn payload(bytes: usize) -> Value {
    let mut results = Vec::new();
    let mut size = 0;
    let mut i = 0u64;
    while size < bytes {
        let item = json!({
            "id": i,
            "type": if i.is_multiple_of(2) { "note" } else { "incident-log" },
            "file": format!("journal/2026/{:02}/entry-{i}.md", i % 12 + 1),
            "relevance": 1.0 - (i as f64) / 1e6,
            "summary": "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor",
            "metadata": {"tags": ["work", "security"], "created": format!("2026-01-{:02}T10:00:00Z", i % 28 + 1)}
        });
        size += item.to_string().len() + 1;
        results.push(item);
        i += 1;
    }
    json!({"status": "success", "summary": "found results", "results": results, "pagination": {"total": i, "offset": 0}})
}

const EXPECT: &str = r#"
expect:
  not_error: true
  not_empty: true
  contains: ["journal/2026", "incident-log", "security", "success"]
  not_contains: ["ENOENT", "Traceback"]
  matches_regex: ['"status":\s*"success"', 'entry-\d+\.md']
  json_path:
    "$.status": success
    "$.pagination.offset": 0
    "$.results[0].type": note
  status: success
  results_min: 10
  has_fields: [results, pagination.total, summary]
  field_equals: {pagination.offset: 0, status: success}
  field_contains: {path: summary, text: found}
  all_match_one_of: {path: "results[*].type", values: [note, incident-log]}
  all_match_pattern: {path: "results[*].file", regex: "^journal/"}
  none_match_pattern: {path: "results[*].file", regex: "^(people|documents)/"}
  all_have_tags: [work]
  none_have_tags: [draft]
  each_has_any_tag: [security, personal]
  all_dates_between: {path: "results[*].metadata.created", start: "2026-01-01T00:00:00Z", end: "2026-12-31T23:59:59Z"}
  all_in_range: {path: "results[*].relevance", min: 0.0, max: 1.0}
  sorted_desc: {path: "results[*].relevance"}
  array_contains: {path: "results[0].metadata.tags", values: [work]}
  contains_any: [incident, nothing]
  summary_contains: results
  if_results: {all_have_tags: [security]}
"#;

fn list_form_extra() -> String {
    // Top the block up to 50 checks with list-form items.
    let mut s = String::from("extra:\n");
    for i in 0..15 {
        s.push_str(&format!(
            "  - target: json.results[{i}].id\n    matcher: {{exact: {i}}}\n"
        ));
    }
    s
}

pub fn doc() -> api::ExpectDoc {
    // Fold the list-form items into the map by giving them their own document.
    let mut items = api::load_expect("bench.yaml", EXPECT).unwrap_or_else(|d| panic!("{d:?}"));
    let extra_yaml = list_form_extra().replace("extra:", "expect:");
    let extra = api::load_expect("extra.yaml", &extra_yaml).unwrap_or_else(|d| panic!("{d:?}"));
    items.expect.items.extend(extra.expect.items);
    items
}

/// The two responses: data in `structuredContent` (with a short text
/// summary), and data as the JSON text block.
pub fn responses() -> (String, String) {
    let data = payload(1 << 20);
    let data_text = data.to_string();
    let structured = json!({
        "content": [{"type": "text", "text": "{\"status\": \"success\", \"summary\": \"found results in journal/2026 (entry-1.md): note, incident-log; tags work, security\", \"pagination\": {\"offset\": 0}, \"results\": [{\"type\": \"note\"}]}"}],
        "structuredContent": data,
        "isError": false
    })
    .to_string();
    let in_text =
        json!({"content": [{"type": "text", "text": data_text}], "isError": false}).to_string();
    (structured, in_text)
}
