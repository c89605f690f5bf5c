// Record the playground's example captures: sessions of `mcpcheck serve`,
// clean and with faults, written by `mcpcheck run --capture`; saved to
// ../data/captures.json with the finding each one shows. Run again when the
// server or the capture format changes:
//
//   cargo build -p mcpcheck && node web/play/examples/record-captures.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const mcpcheck = process.env.MCPCHECK ?? join(root, 'target', 'debug', 'mcpcheck');

const CASES = [
  {
    id: 'capture-clean',
    title: 'A clean session (mcpcheck serve) — every invariant holds',
    finding: null,
    faults: [],
    block: 'tool: echo\n  args: {message: "hello, mcpcheck"}\n  expect:\n    not_error: true',
  },
  {
    id: 'capture-string-code',
    title: 'An error code sent as a string (serve --fault string-error-code) — INV-006',
    finding: 'INV-006',
    faults: ['string-error-code'],
    block: 'tool: no_such_tool\n  args: {}\n  expect:\n    is_error: true',
  },
  {
    id: 'capture-wrong-id',
    title: 'A response to an id never sent (serve --fault wrong-id) — INV-009',
    finding: 'INV-009',
    faults: ['wrong-id'],
    block: 'tool: echo\n  args: {message: hi}\n  expect:\n    not_error: true',
    timeout: '2s',
  },
];

const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-captures-'));
const out = [];
for (const c of CASES) {
  const suite = join(dir, `${c.id}.yaml`);
  const args = ['serve', ...c.faults.flatMap((f) => ['--fault', f])];
  writeFileSync(
    suite,
    `name: ${c.id}\nserver:\n  command: ${mcpcheck}\n  args: ${JSON.stringify(args)}\n${c.timeout ? `timeout: ${c.timeout}\n` : ''}assert:\n  ${c.block}\n`,
  );
  const caps = join(dir, c.id);
  try {
    execFileSync(mcpcheck, ['run', '--capture', caps, '--suite', suite], { stdio: 'ignore' });
  } catch {
    // A failing test still writes its capture.
  }
  const [file] = readdirSync(caps);
  const capture = JSON.parse(readFileSync(join(caps, file), 'utf8'));
  // The label names this machine's binary; show it as the command a user types.
  capture.server_label = `stdio://mcpcheck ${args.join(' ')}`;
  const { faults, block, timeout, ...meta } = c;
  out.push({ ...meta, capture });
}
rmSync(dir, { recursive: true, force: true });
writeFileSync(join(here, '..', 'data', 'captures.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote web/play/data/captures.json (${out.length} captures)`);
