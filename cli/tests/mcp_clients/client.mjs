// An official MCP SDK client (TypeScript `@modelcontextprotocol/sdk`) using
// `mcpcheck mcp`: the same calls as client.py.
//
// Usage: node client.mjs SDK_DIR BIN ROOT (stdio | URL)
//
// SDK_DIR is the installed package (tests/node-servers/node_modules/
// @modelcontextprotocol/sdk). Over stdio it starts `BIN mcp --root ROOT
// --allow BIN`; given a URL it connects to a `mcpcheck mcp --http` already
// running. The SDK's callTool validates every structured result against
// the tool's outputSchema itself (it throws when one does not). What it got
// is printed as one JSON document on stdout.

import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [sdkDir, binary, root, where] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(sdkDir, 'dist/esm', path)).href);
const { Client } = await load('client/index.js');

const client = new Client({ name: 'mcpcheck-test', version: '1.0.0' });
if (where === 'stdio') {
  const { StdioClientTransport } = await load('client/stdio.js');
  await client.connect(
    new StdioClientTransport({ command: binary, args: ['mcp', '--root', root, '--allow', binary] }),
  );
} else {
  const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
  await client.connect(new StreamableHTTPClientTransport(new URL(where)));
}

const { tools } = await client.listTools();
const progress = [];
const doctor = await client.callTool(
  { name: 'doctor', arguments: { server: `${binary} serve --fault buggy-tools` } },
  undefined,
  { onprogress: (p) => progress.push(p), timeout: 300_000 },
);
const run = await client.callTool(
  { name: 'run_suite', arguments: { suite: 'suite', server: `${binary} serve` } },
  undefined,
  { timeout: 300_000 },
);
const refused = [];
for (const args of [{ server: "sh -c 'exit 0'" }, { url: 'https://example.com/mcp' }]) {
  const answer = await client.callTool({ name: 'doctor', arguments: args });
  refused.push({
    is_error: answer.isError,
    text: answer.content.filter((c) => c.type === 'text').map((c) => c.text).join(' '),
    structured: answer.structuredContent ?? null,
  });
}
await client.close();

console.log(
  JSON.stringify({
    sdk: 'typescript',
    tools,
    doctor: { is_error: doctor.isError, structured: doctor.structuredContent },
    progress,
    run_suite: { is_error: run.isError, structured: run.structuredContent },
    refused,
  }),
);
