// The core's scan vectors (core/tests/vectors/scan/, see its README) run
// through scanListing: every case must give the findings (code, field, item,
// server, in order) that `cargo test -p mcpcheck-core --test scan_vectors`
// asserts, the poisoned corpus must fail and the benign corpus must pass.
// cli-parity.test.mjs holds scanListing to `mcpcheck scan --format json`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { scanListing } from '../lib/node.mjs';

const dir = new URL('../../core/tests/vectors/scan/', import.meta.url);
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, c: JSON.parse(readFileSync(new URL(file, dir), 'utf8')) }));
// The vectors of a skill's files or an app's view are for the CLI's scan
// (`--skill`, the live scan of a server's skills and views): scanListing
// reads listings.
const cases = all.filter(({ c }) => !c.skill && !c.view);

test('the vectors left to the CLI are the skill and view ones, and each names its rule', () => {
  const cli = all.filter(({ c }) => c.skill || c.view);
  assert.ok(cli.length >= 7, `only ${cli.length} skill and view vectors`);
  for (const { file, c } of cli) assert.ok(file.startsWith(`${c.rule}-`), file);
});

test('the scan vectors are there', () => {
  assert.ok(cases.length >= 60, `only ${cases.length} scan vectors`);
});

/** One call for the vector's servers: a single listing named by its label,
 * or an array (labelled name#1, name#2, …, mapped back to the labels). */
function scan(c) {
  const servers = c.servers ?? [{ server: 'server', listing: c.listing }];
  const options = { ...(c.options ?? {}) };
  if (servers.length === 1) {
    const report = scanListing(servers[0].listing, { ...options, name: servers[0].server });
    return report;
  }
  const report = scanListing(servers.map((s) => s.listing), { ...options, name: 'v' });
  for (const f of report.findings) f.server = servers[Number(f.server.slice(2)) - 1].server;
  return report;
}

for (const { file, c } of cases) {
  test(`${file}: ${c.name}`, () => {
    if (c.error !== undefined) {
      // The server's label differs when an array is read as several servers.
      const reason = c.error.replace(/^server `[^`]*`: /, '');
      assert.throws(() => scan(c), (e) => e.message.includes(reason));
      return;
    }
    const report = scan(c);
    const got = report.findings.map((f) => ({ code: f.code, field: f.field, item: f.item, server: f.server }));
    assert.deepEqual(got, c.findings);
    const bar = { high: 0, medium: 1, low: 2, info: 3 }[c.options?.fail_on ?? 'high'];
    const failing = report.findings.some((f) => ({ high: 0, medium: 1, low: 2, info: 3 })[f.severity] <= bar);
    assert.equal(report.passed, !failing);
    if (c.corpus === 'poisoned') assert.equal(report.passed, false, 'a poisoned listing is caught');
    if (c.corpus === 'benign') assert.ok(report.findings.every((f) => f.severity !== 'high'), 'no high finding on a benign listing');
  });
}

test('scanListing: wrong input throws, naming what was given', () => {
  assert.throws(() => scanListing('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'), /request/);
  assert.throws(() => scanListing('{"tools": ['), /not JSON/);
  assert.throws(() => scanListing({ tools: [] }, { skip_rules: ['S999'] }), /unknown rule `S999`/);
  assert.throws(() => scanListing({ tools: [] }, { fail_on: 'huge' }), /the options/);
  assert.throws(() => scanListing({ tools: [] }, { failOn: 'low' }), /the options/);
  assert.throws(() => scanListing(42), /listing/);
  assert.throws(() => scanListing([{ name: 'a', inputSchema: { type: 'object' } }]), /wrap a bare tools array/);
});

test('scanListing: several listings are several servers, checked against each other', () => {
  const tool = (name, description) => ({ name, description, inputSchema: { type: 'object' } });
  const one = { tools: [tool('send_email', 'Sends an e-mail.')] };
  const two = { tools: [tool('send_email', 'Sends an e-mail too.')] };
  const report = scanListing([one, two], { name: 'cfg', fail_on: 'info' });
  const shadow = report.findings.filter((f) => f.code === 'S901');
  assert.ok(shadow.length >= 1, JSON.stringify(report.findings));
  assert.ok(shadow.every((f) => f.server === 'cfg#1' || f.server === 'cfg#2'));
  assert.equal(scanListing(one, { fail_on: 'info' }).findings.filter((f) => f.code === 'S901').length, 0);
});
