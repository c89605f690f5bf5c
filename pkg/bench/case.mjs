// The 1 MiB benchmark case: one expectation document of 50 checks over one
// tools/call response whose JSON text is 1 MiB. Deterministic, so the Node
// and native timings look at the same bytes.
//
//   node pkg/bench/case.mjs DIR   → DIR/expect.yaml, DIR/response.json
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TYPES = ['doc', 'code', 'issue', 'note'];
const TAGS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];

export function makeCase() {
  const results = [];
  let n = 0;
  let payload;
  // Grow the list until the JSON text reaches 1 MiB.
  for (;;) {
    const i = n++;
    const day = String(1 + (27 - (i % 28))).padStart(2, '0');
    results.push({
      id: `item-${String(i).padStart(6, '0')}`,
      type: TYPES[i % TYPES.length],
      title: `Result ${i}: notes on the weekly report, section ${i % 17}`,
      file: `journal/2026/${String(1 + (i % 12)).padStart(2, '0')}/${i}.md`,
      relevance: Math.round((1 - i / 20000) * 10000) / 10000,
      tags: [TAGS[i % 5], TAGS[(i + 2) % 5]],
      metadata: { created: `2026-01-${day}T10:00:00Z`, words: 100 + (i % 900) },
    });
    if (i % 16 === 0) {
      payload = JSON.stringify({ status: 'success', results, pagination: { total: results.length, offset: 0 } });
      // The text is escaped once more inside the response: count that.
      if (JSON.stringify(payload).length >= 1024 * 1024 - 100) break;
    }
  }
  const response = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: payload }], isError: false } };

  const checks = [
    `- not_error: true`,
    `- not_empty: true`,
    `- contains: ["weekly report", "journal/2026"]`,
    `- contains_any: ["section 3", "section 99"]`,
    `- not_contains: ["Traceback", "panic"]`,
    `- matches_regex: ['"status":\\s*"success"', 'item-0{2}\\d{4}']`,
    `- in_order: ["item-000000", "item-000001", "item-000002"]`,
    `- json_path: {'$.status': success, '$.pagination.offset': 0, '$.results[0].type': doc}`,
    `- min_results: 100`,
    `- status: success`,
    `- results_min: 1000`,
    `- has_fields: [results, pagination.total, status]`,
    `- field_equals: {pagination.offset: 0}`,
    `- field_contains: {path: status, text: succ}`,
    `- all_match_one_of: {path: 'results[*].type', values: [doc, code, issue, note]}`,
    `- all_match_pattern: {path: 'results[*].file', regex: '^journal/2026/'}`,
    `- none_match_pattern: {path: 'results[*].title', regex: '(?i)password'}`,
    `- all_in_range: {path: 'results[*].relevance', min: 0, max: 1}`,
    `- sorted_desc: {path: 'results[*].relevance'}`,
    `- array_contains: {path: 'results[0].tags', values: [alpha]}`,
    `- {target: result.isError, matcher: {exact: false}}`,
    `- {target: text, matcher: {regex: 'notes on the weekly report'}}`,
    `- {target: text, matcher: {not_regex: '(?i)internal server error'}}`,
    `- {target: text, matcher: {icontains: 'WEEKLY REPORT'}}`,
    `- {target: json.results, matcher: {length: {min: 1000}}}`,
    `- {target: json.status, matcher: {contains_any: [success, ok]}}`,
    `- {target: json.pagination.total, matcher: {range: {min: 1, max: 1000000}}}`,
    `- {target: 'json.results[0].relevance', matcher: {range: {min: 0.5, max: 1}}}`,
    `- {target: 'json.results[*].id', matcher: {not_empty: true}}`,
    `- {target: 'json.results[?@.type == "doc"]', matcher: {not_empty: true}}`,
    `- {target: 'json.results[?length(@.tags) == 2]', matcher: {not_empty: true}}`,
    `- {target: 'json.results[?search(@.title, "section 1[0-6]")]', matcher: {not_empty: true}}`,
    `- {target: json.pagination, matcher: {schema: {type: object, required: [total, offset], properties: {total: {type: integer, minimum: 0}}}}}`,
    `- {target: 'json.results[0]', matcher: {schema: {type: object, required: [id, type, title, file, relevance, tags, metadata], properties: {tags: {type: array, items: {type: string}}}}}}`,
    `- {target: json.results, matcher: {schema: {type: array, items: {type: object, required: [id, relevance], properties: {relevance: {type: number, maximum: 1}}}}}}`,
    `- {target: 'json.results[1].metadata.created', matcher: {regex: '^2026-01-\\d\\dT'}}`,
    `- {target: 'json.results[*].metadata.words', matcher: {not_empty: true}}`,
    `- {target: 'json.results[-1].type', matcher: {contains_any: [doc, code, issue, note]}}`,
    `- {target: 'json.results[10].tags', matcher: {length: 2}}`,
    `- {target: 'json.results[?@.relevance > 0.99]', matcher: {not_empty: true}}`,
    `- {target: 'json.results[?@.metadata.words >= 500]', matcher: {not_empty: true}}`,
    `- {target: 'json.results[?match(@.type, "code|note")]', matcher: {not_empty: true}}`,
    `- {target: 'json.results[?count(@.tags[*]) > 1]', matcher: {not_empty: true}}`,
  ];
  const expect = `name: one MiB benchmark\nexpect:\n${checks.map((c) => `  ${c}`).join('\n')}\n`;
  return { expect, response: JSON.stringify(response) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node pkg/bench/case.mjs DIR');
    process.exit(2);
  }
  mkdirSync(dir, { recursive: true });
  const { expect, response } = makeCase();
  writeFileSync(join(dir, 'expect.yaml'), expect);
  writeFileSync(join(dir, 'response.json'), response);
  console.log(`${join(dir, 'response.json')}: ${response.length} bytes`);
}
