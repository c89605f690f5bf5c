// defineMcpcheckTests and the matchers in Jest (run by test/assert-on.test.mjs):
// one Jest test per suite test, on an SDK client connected to `mcpcheck
// serve`; the skipped one is skipped; a failing suite test fails its Jest test.
const { afterAll, describe, expect, test } = require('@jest/globals');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { defineMcpcheckTests } = require('mcpcheck');
const { matchers } = require('mcpcheck/matchers');

expect.extend(matchers);

const bin = process.env.MCPCHECK_BIN;

let client;
async function connected() {
  if (!client) {
    client = new Client({ name: 'jest', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: bin, args: ['serve'], stderr: 'ignore' }));
  }
  return client;
}
afterAll(() => client?.close());

defineMcpcheckTests(
  `
tests:
  - name: echo answers
    assert:
      tool: echo
      args: {message: hello}
      expect:
        equals: hello
  - name: add is wrong on purpose
    assert:
      tool: add
      args: {a: 2, b: 3}
      expect:
        equals: "6"
  - name: later
    skip: not yet
    assert:
      tool: echo
`,
  { test, describe },
  connected,
  { file: 'jest-suite.yaml' },
);

test('toSatisfyMcpcheck in Jest', () => {
  expect({ content: [{ type: 'text', text: 'hello' }] }).toSatisfyMcpcheck({ contains: ['hello'] });
  expect({ content: [{ type: 'text', text: 'bye' }] }).not.toSatisfyMcpcheck({ contains: ['hello'] });
});
