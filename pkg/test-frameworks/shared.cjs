// What every test framework's file registers, so each runs the same tests:
// the suite in suite.yaml through defineMcpcheckTests, one framework test
// per suite test, on one SDK client connected to `mcpcheck serve` that
// declares sampling, elicitation and roots (the suite's mocks answer them),
// and the matchers, one of whose tests fails on purpose to show its diff.
// Each framework's file passes in its own functions and the package and SDK
// as its module system loads them. pkg/test/frameworks.test.mjs runs every
// framework and compares what each reports with `mcpcheck run`.
'use strict';

const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

/** The suite, and its name as a user would pass it (relative to the
 * framework's working directory, pkg/). */
const SUITE = join(__dirname, 'suite.yaml');

/** The client capabilities the suite's mocks answer for. */
const CAPABILITIES = { sampling: {}, elicitation: { form: {} }, roots: {} };

/**
 * Register the tests. `framework`: `{test, describe, expect, afterAll}` of
 * the framework; `deps`: `{Client, StdioClientTransport}` of the SDK and
 * `{defineMcpcheckTests, matchers}` of mcpcheck, and `name`, the client's.
 */
function register(framework, deps) {
  const { test, describe, expect, afterAll } = framework;
  const { Client, StdioClientTransport, defineMcpcheckTests, matchers, name } = deps;
  const bin = process.env.MCPCHECK_BIN;
  if (!bin) throw new Error('set MCPCHECK_BIN to the mcpcheck binary (pkg/test/frameworks.test.mjs does)');
  expect.extend(matchers);

  let client;
  async function connected() {
    if (!client) {
      client = new Client({ name, version: '1.0.0' }, { capabilities: CAPABILITIES });
      await client.connect(new StdioClientTransport({ command: bin, args: ['serve'], stderr: 'ignore' }));
    }
    return client;
  }
  afterAll(() => client?.close());

  defineMcpcheckTests(readFileSync(SUITE, 'utf8'), { test, describe }, connected, {
    file: relative(process.cwd(), SUITE),
  });

  describe('matchers', () => {
    test('toSatisfyMcpcheck passes, and fails with .not', () => {
      expect({ content: [{ type: 'text', text: 'hello' }] }).toSatisfyMcpcheck({ contains: ['hello'] });
      expect({ content: [{ type: 'text', text: 'bye' }] }).not.toSatisfyMcpcheck({ contains: ['hello'] });
    });
    test('a response that holds no answer is an error, with or without .not', () => {
      expect(() => expect({}).toSatisfyMcpcheck({ not_error: true })).toThrow(/an empty object was given/);
      expect(() => expect({}).not.toSatisfyMcpcheck({ not_error: true })).toThrow(/an empty object was given/);
      expect(() => expect({ content: [] }).toSatisfyMcpcheck({})).toThrow(/checked nothing/);
    });
    test('a failing equality check fails with one diff (on purpose)', () => {
      expect({ content: [], structuredContent: { city: 'Lisbon' } }).toSatisfyMcpcheck([
        { target: 'json', matcher: { exact: { city: 'Paris' } } },
      ]);
    });
  });
}

module.exports = { register, SUITE, CAPABILITIES };
