// defineMcpcheckTests in Vitest (run by test/assert-on.test.mjs): one Vitest
// test per suite test, run on an SDK client connected to `mcpcheck serve`;
// the skipped one is skipped.
import { afterAll, describe, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineMcpcheckTests } from 'mcpcheck';

import { cliBinary } from '../scripts/cli-bin.mjs';

let client;
async function connected() {
  if (!client) {
    client = new Client({ name: 'vitest', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: cliBinary(), args: ['serve'], stderr: 'ignore' }));
  }
  return client;
}
afterAll(() => client?.close());

defineMcpcheckTests(
  `
server: {command: mcpcheck}
tests:
  - name: echo answers
    assert:
      tool: echo
      args: {message: hello}
      expect:
        equals: hello
  - name: a prompt renders
    assert_prompts:
      get: {name: greeting, arguments: {name: Ada}}
      expect:
        contains: [Ada]
  - name: later
    skip: not yet
    assert:
      tool: echo
`,
  { test, describe },
  connected,
  { file: 'vitest-suite.yaml' },
);
