// The playground's examples (web/play/js/examples.js over web/play/data/) give the verdict each
// one states, through the same core the page runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkCapture, checkResponse, checkTrajectory, validateSuite } from '../lib/node.mjs';
import { EXAMPLES } from '../../web/play/examples/data.mjs';
import { buildSuiteExamples } from '../../web/play/js/examples.js';

test('the playground has examples for each tab', () => {
  assert.ok(EXAMPLES.filter((x) => x.tab === 'response').length >= 5);
  assert.ok(EXAMPLES.filter((x) => x.tab === 'trajectory').length >= 2);
  assert.ok(EXAMPLES.filter((x) => x.tab === 'capture' && x.finding).length >= 1);
  assert.equal(new Set(EXAMPLES.map((x) => x.id)).size, EXAMPLES.length, 'ids are unique');
});

for (const x of EXAMPLES.filter((e) => e.tab !== 'capture')) {
  test(`example ${x.id}: ${x.verdict}`, () => {
    const run = () =>
      x.tab === 'response'
        ? checkResponse(x.fields.expect, x.fields.response, { today: '2026-02-01' })
        : checkTrajectory(x.fields.trace, x.fields.assertions);
    if (x.verdict === 'invalid') {
      assert.throws(run, (e) => e.diagnostics.length > 0 && e.diagnostics[0].line > 0);
      return;
    }
    const r = run();
    assert.equal(r.status, x.verdict, JSON.stringify(r.checks.filter((c) => c.status !== 'pass')));
    if (x.verdict === 'fail') assert.ok(r.checks.some((c) => c.status === 'fail' && c.reason));
  });
}

for (const x of EXAMPLES.filter((e) => e.tab === 'capture')) {
  test(`capture example ${x.id}: ${x.finding ?? 'no finding'}`, () => {
    const report = checkCapture(x.fields.capture);
    const ids = report.sessions.flatMap((s) => s.findings.map((f) => f.id));
    if (x.finding) {
      assert.equal(report.passed, false);
      assert.ok(ids.includes(x.finding), `findings ${ids}`);
    } else {
      assert.deepEqual(ids, []);
      assert.equal(report.passed, true);
    }
  });
}

for (const x of buildSuiteExamples()) {
  test(`suite example ${x.id}: ${x.verdict}`, () => {
    const v = validateSuite(x.fields.suite, 'suite.yaml', { forClient: x.options.forClient });
    assert.equal(v.ok, x.verdict === 'valid', v.rendered);
    const errors = v.diagnostics.filter((d) => d.severity === 'error').map((d) => d.line);
    assert.deepEqual(errors, x.errorLines, v.rendered);
  });
}
