// Matchers for Vitest and Jest (`expect.extend(matchers)`), over the
// package's own exports: the verdicts are the core's, the messages name
// every failing check with what was expected and what was received.
//
//   import { matchers } from 'mcpcheck/matchers';
//   expect.extend(matchers);
//   expect(response).toSatisfyMcpcheck({ contains: ['hello'] });
//   expect(checkResponse(expectations, response)).toPassMcpcheck();
'use strict';

const { checkResponse } = require('./node.cjs');
const { kindOf } = require('./support.cjs');

const TEXT = Symbol.for('mcpcheck.text');

const plain = (s) => s;

/** Colours from the framework's utils when it has them (Jest and Vitest do). */
function colours(utils) {
  return {
    expected: utils?.EXPECTED_COLOR ?? plain,
    received: utils?.RECEIVED_COLOR ?? plain,
  };
}

/** Matchers that compare a value for equality: their failures read best as
 * a diff of the expected and the actual value. */
const EQUALITY = new Set(['exact', 'equals', 'equals_plain', 'all_equal']);

/** Whether a check's failure is shown as a diff of its values. */
function diffable(check) {
  return EQUALITY.has(check.matcher) && check.expected_value !== undefined && check.actual_value !== undefined;
}

/** One failing check, as the lines of a matcher message; an equality check
 * also as the framework's diff of its values, when the framework has one. */
function describeCheck(check, paint, utils) {
  const where = check.target ? ` (${check.target})` : '';
  const lines = [`✗ ${check.name}${where}: ${check.reason ?? 'failed'}`];
  lines.push(`    Expected: ${paint.expected(check.expected)}`);
  lines.push(`    Received: ${paint.received(check.actual)}`);
  if (diffable(check) && typeof utils?.diff === 'function') {
    const diff = utils.diff(check.expected_value, check.actual_value);
    if (diff) lines.push(diff);
  }
  return lines.join('\n');
}

/** A test's text: the CLI's, kept on results the package made, or its
 * failing checks for one read from JSON (a results document). */
function testText(test, paint) {
  if (typeof test[TEXT] === 'string') return test[TEXT];
  const head = `${test.status.toUpperCase()} ${test.name}${test.message ? `: ${test.message}` : ''}`;
  const checks = (test.checks ?? []).filter((c) => c.status !== 'pass');
  return [head, ...checks.map((c) => describeCheck(c, paint))].join('\n');
}

/** Whether a result of the package passed, and the text that says why. */
function outcome(received, paint) {
  if (received === null || typeof received !== 'object' || Array.isArray(received)) {
    throw new TypeError(
      `toPassMcpcheck takes a result of mcpcheck (checkResponse, checkTrajectory, checkCapture, lintListing, scanListing, or a results document), not ${kindOf(received)}`,
    );
  }
  if (Array.isArray(received.tests)) {
    const bad = received.tests.filter((t) => t.status === 'fail' || t.status === 'error');
    const text = bad.length
      ? bad.map((t) => testText(t, paint)).join('\n\n')
      : `${received.tests.length} tests, none failed`;
    return { ok: received.ok ?? bad.length === 0, text };
  }
  if (Array.isArray(received.checks)) {
    return { ok: received.ok ?? received.status === 'pass', text: testText(received, paint) };
  }
  if (Array.isArray(received.findings)) {
    const text = received.findings
      .map((f) => `${f.code} ${f.severity} ${f.item ?? f.tool}: ${f.message}`)
      .join('\n');
    return { ok: received.ok ?? received.passed, text: text || 'no findings' };
  }
  if (Array.isArray(received.sessions)) {
    const text = received.sessions
      .flatMap((s) => s.findings.map((f) => `${f.id} ${f.category}: ${f.message}`))
      .concat((received.hazards ?? []).map((h) => `${h.kind}: ${h.message}`))
      .join('\n');
    return { ok: received.ok ?? received.passed, text: text || 'every invariant holds' };
  }
  throw new TypeError(
    'toPassMcpcheck takes a result of mcpcheck: an object with `checks`, `tests`, `findings` or `sessions`',
  );
}

/** `expect(result).toPassMcpcheck()`: the result of any export passed. */
function toPassMcpcheck(received) {
  const { ok, text } = outcome(received, colours(this?.utils));
  return {
    pass: ok,
    message: () =>
      ok
        ? `expected the mcpcheck result not to pass, but it passed:\n\n${text}`
        : `expected the mcpcheck result to pass:\n\n${text}`,
  };
}

/**
 * `expect(response).toSatisfyMcpcheck(expectations, options?)`: the response
 * meets the expectations (any form `checkResponse` takes). A response or
 * expectations that cannot be read throw a McpcheckError: an input error is
 * not a verdict, with or without `.not`.
 */
function toSatisfyMcpcheck(received, expectations, options) {
  const result = checkResponse(expectations, received, options);
  const utils = this?.utils;
  const paint = colours(utils);
  const failing = result.checks.filter((c) => !c.ok);
  const ok = result.ok;
  // One failing equality check: its values, which Vitest shows as a diff.
  const values =
    failing.length === 1 && diffable(failing[0])
      ? { expected: failing[0].expected_value, actual: failing[0].actual_value }
      : {};
  return {
    pass: ok,
    ...values,
    message: () => {
      if (ok) {
        const names = result.checks.map((c) => c.name).join(', ');
        return `expected the response not to satisfy the expectations, but every check passed (${names})`;
      }
      const head =
        result.status === 'error'
          ? `the expectations could not be evaluated: ${result.message}`
          : `expected the response to satisfy the expectations; ${failing.length} of ${result.checks.length} checks failed:`;
      return [head, ...failing.map((c) => describeCheck(c, paint, utils))].join('\n\n');
    },
  };
}

const matchers = { toPassMcpcheck, toSatisfyMcpcheck };

module.exports = { matchers, toPassMcpcheck, toSatisfyMcpcheck };
