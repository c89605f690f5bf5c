// Each check as data: a stable code, the path as steps, the expected and
// actual values beside the display strings; and the matchers' diffs of an
// equality check's values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { checkResponse } from '../lib/node.mjs';
import { matchers } from '../lib/matchers.mjs';

const require = createRequire(import.meta.url);
const { expect } = require('expect');
expect.extend(matchers);

const RESPONSE = {
  content: [{ type: 'text', text: '{"results": [{"id": 1, "tag": "a"}, {"id": 2, "tag": "b"}]}' }],
};

test('every check carries its code, path and values', () => {
  const r = checkResponse(
    {
      expect: [
        { target: 'json.results[*].id', matcher: { exact: 1 } },
        { target: 'text', matcher: { contains: 'results' } },
      ],
    },
    RESPONSE,
  );
  const [exact, contains] = r.checks.filter((c) => c.code !== 'no_rpc_error');
  assert.equal(exact.code, 'exact');
  assert.deepEqual(exact.path, ['json', 'results', '*', 'id']);
  assert.equal(exact.expected_value, 1);
  assert.deepEqual(exact.actual_value, [1, 2]);
  assert.equal(exact.ok, false);
  assert.equal(typeof exact.expected, 'string');
  assert.equal(contains.code, 'contains');
  assert.deepEqual(contains.path, ['text']);
  assert.equal(contains.expected_value, 'results');
  assert.equal(contains.actual_value, RESPONSE.content[0].text);
});

test('a key whose matcher has another name keeps the key as its code; bounds are an object', () => {
  const r = checkResponse({ has_fields: ['results'], results_min: 3 }, RESPONSE);
  const fields = r.checks.find((c) => c.code === 'has_fields');
  assert.equal(fields.matcher, 'exists');
  assert.equal('expected_value' in fields, false, 'no parameter, no field');
  const min = r.checks.find((c) => c.code === 'results_min');
  assert.deepEqual(min.expected_value, { min: 3 });
  assert.equal(min.ok, false);
});

test('a failing equality check gives the matcher its values, and a diff in the message', () => {
  let failure;
  try {
    expect({ structuredContent: { user: { name: 'Ada', age: 36 } }, content: [] }).toSatisfyMcpcheck({
      expect: [{ target: 'json.user', matcher: { exact: { name: 'Ada', age: 37 } } }],
    });
  } catch (e) {
    failure = e;
  }
  assert.ok(failure, 'the matcher failed');
  // Jest's diff of the two objects: the differing member on both sides.
  assert.match(failure.message, /-\s+"age": 37/);
  assert.match(failure.message, /\+\s+"age": 36/);
  const result = matchers.toSatisfyMcpcheck.call(
    {},
    { structuredContent: { n: 2 }, content: [] },
    { expect: [{ target: 'json.n', matcher: { exact: 1 } }] },
  );
  assert.deepEqual([result.pass, result.expected, result.actual], [false, 1, 2]);
});
