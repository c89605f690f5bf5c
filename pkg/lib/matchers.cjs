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
const { McpcheckError, kindOf } = require('./support.cjs');

const TEXT = Symbol.for('mcpcheck.text');

const plain = (s) => s;

/** Colours from the framework's utils when it has them (Jest and Vitest do). */
function colours(utils) {
  // Called as methods: bun's utils refuse a detached call.
  return {
    expected: typeof utils?.EXPECTED_COLOR === 'function' ? (s) => utils.EXPECTED_COLOR(s) : plain,
    received: typeof utils?.RECEIVED_COLOR === 'function' ? (s) => utils.RECEIVED_COLOR(s) : plain,
  };
}

/** Matchers that compare a value for equality: their failures read best as
 * a diff of the expected and the actual value. */
const EQUALITY = new Set(['exact', 'equals', 'equals_plain', 'all_equal']);

/** Whether a check's failure is shown as a diff of its values. */
function diffable(check) {
  return EQUALITY.has(check.matcher) && check.expected_value !== undefined && check.actual_value !== undefined;
}

/** Whether the framework prints a diff of the matcher result's `expected`
 * and `actual` itself: Vitest does (its matcher context, unlike Jest's and
 * bun's, has `soft`), so the message must not carry a second one. */
function printsOwnDiff(context) {
  return context !== null && typeof context === 'object' && 'soft' in context;
}

/** One failing check, as the lines of a matcher message; an equality check
 * also as a diff of its values (`diff`: the framework's, or null when the
 * framework prints the diff itself). */
function describeCheck(check, paint, diff) {
  const where = check.target ? ` (${check.target})` : '';
  const lines = [`✗ ${check.name}${where}: ${check.reason ?? 'failed'}`];
  lines.push(`    Expected: ${paint.expected(check.expected)}`);
  lines.push(`    Received: ${paint.received(check.actual)}`);
  if (diffable(check) && typeof diff === 'function') {
    const text = diff(check.expected_value, check.actual_value);
    if (text) lines.push(text);
  }
  return lines.join('\n');
}

/** A line diff of two values as JSON (`- Expected`, `+ Received`), for a
 * framework whose matcher utils have no `diff` (bun): the lines both have
 * are kept once, in order (longest common subsequence). */
function lineDiff(expected, actual) {
  const lines = (v) => (JSON.stringify(v, null, 2) ?? String(v)).split('\n');
  const a = lines(expected);
  const b = lines(actual);
  const out = ['- Expected', '+ Received', ''];
  if (a.length * b.length > 250_000) {
    return [...out, ...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)].join('\n');
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (j >= b.length || (i < a.length && lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(`- ${a[i++]}`);
    } else {
      out.push(`+ ${b[j++]}`);
    }
  }
  return out.join('\n');
}

/** Every result that checked nothing carries a warning starting so
 * (expectations without checks, trajectory assertions on an empty trace or
 * without assertions). */
const NOTHING_CHECKED = 'no checks:';

/** A result that checked nothing is neither a pass nor a failure of the
 * matcher: an error, with or without `.not`. */
function refuseUnchecked(result, matcher) {
  const warning = (result.warnings ?? []).find((w) => typeof w === 'string' && w.startsWith(NOTHING_CHECKED));
  if (warning) {
    throw new McpcheckError(`${matcher} cannot pass or fail a result that checked nothing: ${warning.slice(NOTHING_CHECKED.length).trim()}`);
  }
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
    throw new McpcheckError(
      `toPassMcpcheck takes a result of mcpcheck (checkResponse, checkTrajectory, checkCapture, lintListing, scanListing, or a results document), not ${kindOf(received)}`,
    );
  }
  if (Array.isArray(received.tests)) {
    for (const t of received.tests) refuseUnchecked(t, 'toPassMcpcheck');
    const bad = received.tests.filter((t) => t.status === 'fail' || t.status === 'error');
    const text = bad.length
      ? bad.map((t) => testText(t, paint)).join('\n\n')
      : `${received.tests.length} tests, none failed`;
    return { ok: received.ok ?? bad.length === 0, text };
  }
  if (Array.isArray(received.checks)) {
    refuseUnchecked(received, 'toPassMcpcheck');
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
  const keys = Object.keys(received);
  const given = keys.length ? `an object with ${keys.slice(0, 5).map((k) => `\`${k}\``).join(', ')}${keys.length > 5 ? ', …' : ''}` : 'an empty object';
  throw new McpcheckError(
    `toPassMcpcheck takes a result of mcpcheck: an object with \`checks\`, \`tests\`, \`findings\` or \`sessions\`, not ${given} (to check a response, use toSatisfyMcpcheck)`,
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
  refuseUnchecked(result, 'toSatisfyMcpcheck');
  const utils = this?.utils;
  const paint = colours(utils);
  const failing = result.checks.filter((c) => !c.ok);
  const ok = result.ok;
  // One failing equality check: its values, which Vitest shows as a diff
  // (and then the message carries none).
  const single = failing.length === 1 && diffable(failing[0]);
  const values = single ? { expected: failing[0].expected_value, actual: failing[0].actual_value } : {};
  const diff =
    single && printsOwnDiff(this) ? null : typeof utils?.diff === 'function' ? (a, b) => utils.diff(a, b) : lineDiff;
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
      return [head, ...failing.map((c) => describeCheck(c, paint, diff))].join('\n\n');
    },
  };
}

const matchers = { toPassMcpcheck, toSatisfyMcpcheck };

module.exports = { matchers, toPassMcpcheck, toSatisfyMcpcheck };
