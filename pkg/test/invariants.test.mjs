// The core's invariant test vectors (core/tests/vectors/invariants/, see its
// README), run through checkCapture: every case must produce the findings
// and hazards `cargo test -p mcpcheck-core --test invariant_vectors` asserts,
// message for message. The capture is handed over as the file's own JSON
// text, key order and numbers untouched.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { checkCapture } from '../lib/node.mjs';
import { members } from '../scripts/json-members.mjs';

const dir = new URL('../../core/tests/vectors/invariants/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

test('the invariant vectors are there', () => {
  assert.ok(files.length >= 50, `only ${files.length} invariant vectors`);
});

/** Fields the expected item lists must equal the actual item's. */
function subset(expected, actual, what) {
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(actual?.[k], v, `${what}: ${k}`);
}

for (const file of files) {
  const text = readFileSync(new URL(file, dir), 'utf8');
  const c = JSON.parse(text);
  test(`${file}: ${c.name}`, () => {
    const report = checkCapture(members(text).capture);
    const findings = report.sessions.flatMap((s, session) =>
      s.findings.map((f) => ({ session, id: f.id, exchange: f.exchange, message: f.message })),
    );
    assert.equal(report.passed, c.expect.passed, JSON.stringify(findings));
    const want = c.expect.findings ?? [];
    assert.equal(findings.length, want.length, JSON.stringify(findings));
    want.forEach((w, i) => subset(w, findings[i], `finding ${i}`));
    const hazards = c.expect.hazards ?? [];
    assert.equal(report.hazards.length, hazards.length, JSON.stringify(report.hazards));
    hazards.forEach((w, i) => subset(w, report.hazards[i], `hazard ${i}`));
  });
}
