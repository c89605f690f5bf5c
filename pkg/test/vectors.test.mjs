// The core's shared test vectors, run through the npm package: every case
// must reach the verdict, messages, score, set scores and derived metrics
// that `cargo test -p mcpcheck-core --test vectors` asserts (see
// core/tests/vectors/README.md for the case format).
//
// The expectation and the response are handed over as the JSON text the case
// file holds, the way `mcpcheck check` reads files: a JavaScript object
// cannot keep `1.0` apart from `1`, and the core words a float bound as
// `0.0-1.0`. A second pass hands them over as objects and must give the same
// verdicts (and the same messages wherever the case has no such float).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { checkResponse } from '../lib/node.mjs';
import { members } from '../scripts/json-members.mjs';

const dir = new URL('../../core/tests/vectors/expect/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
const round3 = (x) => Math.round(x * 1000) / 1000;

test('the shared vectors are there', () => {
  assert.ok(files.length > 300, `only ${files.length} vectors in ${dir.pathname}`);
});

for (const file of files) {
  const text = readFileSync(new URL(file, dir), 'utf8');
  const c = JSON.parse(text);
  const raw = members(text);
  const expect = typeof c.expect === 'string' ? c.expect : raw.expect;
  test(`${file}: ${c.name}`, () => {
    if (c.verdict === 'invalid') {
      let thrown;
      try {
        checkResponse(expect, { content: [] }, c.options);
      } catch (e) {
        thrown = e;
      }
      assert.ok(thrown instanceof Error, 'the expectation loaded, want invalid');
      assert.deepEqual(thrown.diagnostics.map((d) => d.message), c.messages);
      assert.equal(thrown.message, thrown.diagnostics.map(oneLine).join('\n'));
      if (c.hints) {
        assert.deepEqual(thrown.diagnostics.map((d) => d.hint ?? ''), c.hints);
      }
      return;
    }
    if (c.verdict === 'refused') {
      // No verdict: an input error saying what was given and what was expected.
      for (const observation of [raw.observation, c.observation]) {
        assert.throws(
          () => checkResponse(expect, observation, c.options),
          (e) => e.name === 'McpcheckError' && e.code === 'MCPCHECK_INVALID_INPUT' && e.message === c.messages[0],
        );
      }
      return;
    }
    const r = checkResponse(expect, raw.observation, c.options);
    assert.equal(r.status, c.verdict, `verdict; messages: ${JSON.stringify(reasons(r))}`);
    assert.deepEqual(reasons(r), c.messages);
    if ('score' in c) {
      if (c.score === null) assert.equal(r.score, undefined, 'no score is reported');
      else assert.equal(r.score, c.score);
    }
    for (const [name, want] of Object.entries(c.sets ?? {})) {
      const s = r.sets?.find((x) => x.name === name);
      assert.equal(s && round3(s.score), want, `set ${name}`);
    }
    for (const [name, want] of Object.entries(c.derived_metrics ?? {})) {
      const m = r.derived_metrics?.find((x) => x.name === name);
      assert.equal(m && round3(m.value), want, `metric ${name}`);
    }
    for (const [name, want] of Object.entries(c.unresolved ?? {})) {
      const m = r.derived_metrics?.find((x) => x.name === name);
      assert.deepEqual(m?.unresolved ?? [], want, `metric ${name} unresolved`);
    }
  });
}

test('as objects, every case gives the same verdict (and messages)', () => {
  let compared = 0;
  for (const file of files) {
    const text = readFileSync(new URL(file, dir), 'utf8');
    const c = JSON.parse(text);
    if (c.verdict === 'invalid' || c.verdict === 'refused') continue;
    const r = checkResponse(c.expect, c.observation, c.options);
    assert.equal(r.status, c.verdict, file);
    if (!/\d\.0\b/.test(members(text).expect ?? '')) {
      assert.deepEqual(reasons(r), c.messages, file);
      compared++;
    }
  }
  assert.ok(compared > files.length * 0.8, `messages compared for only ${compared} cases`);
});

function reasons(r) {
  return r.checks.map((x) => x.reason ?? '').filter((s) => s !== '');
}

// Diagnostic::one_line of the core: `file:line:col: error: message (hint)`.
function oneLine(d) {
  const at = d.line === null ? d.file : `${d.file}:${d.line}:${d.column}`;
  return `${at}: ${d.severity}: ${d.message}${d.hint ? ` (${d.hint})` : ''}`;
}
