// What the browser entry adds to the WebAssembly exports (ES module;
// lib/support.cjs is the same for Node, documented there): the error class
// every export throws, and formatResult.
export class McpcheckError extends Error {
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

const TEXT = Symbol.for('mcpcheck.text');

export function formatResult(result) {
  const text = result !== null && typeof result === 'object' ? result[TEXT] : undefined;
  if (typeof text === 'string') return text;
  throw new McpcheckError(
    'formatResult takes a test result as checkResponse or checkTrajectory return it (a copy made with JSON or a spread loses the text)',
    { code: 'MCPCHECK_INVALID_ARGUMENT' },
  );
}
