// Record the playground's example responses from real MCP servers (the
// reference servers installed in tests/node-servers, and `mcpcheck serve`,
// whose audit log becomes a trajectory example) and write them to
// ../data/recorded.json. Run again when the servers change:
//
//   npm ci --prefix tests/node-servers && cargo build -p mcpcheck \
//     && node web/play/examples/record.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const servers = join(root, 'tests', 'node-servers');

/** One stdio session: initialize, then each request in turn. */
async function session(args, requests, command = 'node') {
  const child = spawn(command, args, { cwd: servers, stdio: ['pipe', 'pipe', 'ignore'] });
  let buf = '';
  const waiting = new Map();
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      const msg = JSON.parse(line);
      if (msg.id !== undefined && waiting.has(msg.id) && !msg.method) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      }
    }
  });
  let id = 0;
  const send = (method, params) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      const timer = setTimeout(() => reject(new Error(`${method}: no answer in 10 s`)), 10000);
      waiting.set(n, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
    });
  await send('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'mcpcheck-playground-recorder', version: '0' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const out = {};
  for (const [name, method, params] of requests) out[name] = await send(method, params);
  child.stdin.end();
  await new Promise((resolve) => child.on('exit', resolve));
  return out;
}

const everything = await session(
  ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'],
  [
    ['structured', 'tools/call', { name: 'get-structured-content', arguments: { location: 'New York' } }],
    ['sum', 'tools/call', { name: 'get-sum', arguments: { a: 2, b: 3 } }],
    ['echo', 'tools/call', { name: 'echo', arguments: { message: 'Hello from the playground' } }],
    ['unknown', 'tools/call', { name: 'no-such-tool', arguments: {} }],
    ['tools', 'tools/list', {}],
  ],
);
const filesystem = await session(
  ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', join(servers, 'fixture')],
  [
    ['read', 'tools/call', { name: 'read_text_file', arguments: { path: join(servers, 'fixture', 'notes.md') } }],
    ['outside', 'tools/call', { name: 'read_text_file', arguments: { path: '/etc/hostname' } }],
  ],
);

const mcpcheck = process.env.MCPCHECK ?? join(root, 'target', 'debug', 'mcpcheck');
const logDir = mkdtempSync(join(tmpdir(), 'mcpcheck-record-'));
const auditLog = join(logDir, 'audit.jsonl');
const serve = await session(
  ['serve', '--stdio', '--audit-log', auditLog],
  [
    ['tools', 'tools/list', {}],
    ['structured_wrong', 'tools/call', { name: 'structured_wrong', arguments: { city: 'Porto' } }],
    ['lorem', 'tools/call', { name: 'lorem', arguments: { words: 12, seed: 'playground' } }],
    ['fail', 'tools/call', { name: 'fail', arguments: { message: 'the upstream service is down' } }],
    ['echo', 'tools/call', { name: 'echo', arguments: { message: 'done', token: 'not-for-logs' } }],
  ],
  mcpcheck,
);
serve.audit_log = readFileSync(auditLog, 'utf8');
rmSync(logDir, { recursive: true, force: true });

// The fixture's absolute path is this machine's; examples show it as /data.
const text = JSON.stringify({ everything, filesystem, serve }, null, 2).replaceAll(join(servers, 'fixture'), '/data');
writeFileSync(join(here, '..', 'data', 'recorded.json'), `${text}\n`);
console.log('wrote web/play/data/recorded.json');
