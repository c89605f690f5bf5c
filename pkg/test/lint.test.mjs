// The core's lint vectors (core/tests/vectors/lint/, see its README) run
// through lintListing: every listing case must give the findings and the
// verdict `cargo test -p mcpcheck-core --test lint_vectors` asserts. The
// cases about a tool's answer or a second listing need a live session and
// are the CLI's (`mcpcheck lint --call-tools`, `--detect-nondeterminism`).
// cli-parity.test.mjs holds lintListing to `mcpcheck lint --format json`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { lintListing, scanListing } from '../lib/node.mjs';
import { members } from '../scripts/json-members.mjs';

const dir = new URL('../../core/tests/vectors/lint/', import.meta.url);
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => {
    const text = readFileSync(new URL(file, dir), 'utf8');
    return { file, text, c: JSON.parse(text) };
  })
  .filter(({ c }) => c.listing !== undefined && c.second_listing === undefined);

test('the listing vectors are there', () => {
  assert.ok(cases.length >= 50, `only ${cases.length} listing vectors`);
});

for (const { file, text, c } of cases) {
  test(`${file}: ${c.name}`, () => {
    // The listing as the file writes it, key order untouched.
    const listing = members(text).listing;
    if (c.error !== undefined) {
      assert.throws(() => lintListing(listing, c.options), (e) => e.message.includes(c.error));
      return;
    }
    const report = lintListing(listing, c.options);
    const got = report.findings.map((f) => ({ code: f.code, field: f.field, item: f.tool }));
    assert.deepEqual(got, c.findings);
    if (c.passed !== undefined) assert.equal(report.passed, c.passed);
    assert.equal(report.errors, report.findings.filter((f) => f.severity === 'error').length);
  });
}

test('lintListing: wrong input throws, naming what was given', () => {
  assert.throws(() => lintListing('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'), /not a listing/);
  assert.throws(() => lintListing('{"tools": ['), /not JSON/);
  assert.throws(() => lintListing({ tools: [] }, { skip_rules: ['E999'] }), /unknown rule `E999`/);
  assert.throws(() => lintListing({ tools: [] }, { strictness: true }), /the options/);
});

test('lintListing and scanListing: what is not a listing is an input error, a bad option an option error', () => {
  const code = (c) => (e) => e.name === 'McpcheckError' && e.code === c;
  assert.throws(() => lintListing({ foo: 1 }), (e) => code('MCPCHECK_INVALID_INPUT')(e) && /not a listing/.test(e.message));
  assert.throws(() => scanListing({ foo: 1 }), (e) => code('MCPCHECK_INVALID_INPUT')(e) && /not a listing/.test(e.message));
  assert.throws(() => lintListing({ tools: [] }, { skip_rules: ['E999'] }), code('MCPCHECK_INVALID_OPTION'));
  assert.throws(() => scanListing({ tools: [] }, { skip_rules: ['S999'] }), code('MCPCHECK_INVALID_OPTION'));
});
