// What the entry points add to the WebAssembly exports (CommonJS;
// lib/support.mjs is the same for the browser entry, less kindOf): the error class every
// export throws, formatResult, and how the Node-only modules (runSuite, the
// matchers) name a value of the wrong kind.
'use strict';

/**
 * The error every export throws on an input it cannot read. The errors are
 * made inside the WebAssembly glue as plain `Error`s named "McpcheckError"
 * with a `code`, so `instanceof` is decided by that name: it holds for
 * errors from any copy of the package.
 */
class McpcheckError extends Error {
  constructor(message, { code = 'MCPCHECK_INVALID_INPUT', diagnostics = [], rendered = '' } = {}) {
    super(message);
    this.name = 'McpcheckError';
    this.code = code;
    this.diagnostics = diagnostics;
    this.rendered = rendered;
  }

  static [Symbol.hasInstance](value) {
    return value instanceof Error && value.name === 'McpcheckError';
  }
}

// The core renders a result's text when it makes the result, and keeps it
// under this registered symbol (not enumerable: JSON and the shape are
// unchanged).
const TEXT = Symbol.for('mcpcheck.text');

/** The text `mcpcheck check` prints for a result of checkResponse or checkTrajectory. */
function formatResult(result) {
  const text = result !== null && typeof result === 'object' ? result[TEXT] : undefined;
  if (typeof text === 'string') return text;
  throw new McpcheckError(
    'formatResult takes a test result as checkResponse or checkTrajectory return it (a copy made with JSON or a spread loses the text)',
    { code: 'MCPCHECK_INVALID_ARGUMENT' },
  );
}

/** What a value is, for an error message: "a number", "an array", "null". */
function kindOf(v) {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

module.exports = { McpcheckError, formatResult, kindOf };
