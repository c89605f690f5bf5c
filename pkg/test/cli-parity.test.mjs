// checkCapture and `mcpcheck invariants --format json` give the same report:
// for every invariant vector and every capture recorded for the playground,
// checkCapture's members (version, passed, sessions, hazards) have the values
// they have in the findings document the CLI prints, and its findings the
// same codes. Needs the CLI binary: MCPCHECK_BIN, or the newest of
// {debug,release}/mcpcheck in the cargo target directory (scripts/test-all
// builds it first).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { cliBinary } from '../scripts/cli-bin.mjs';

import { checkCapture, lintListing, scanListing } from '../lib/node.mjs';
import { members } from '../scripts/json-members.mjs';
import { DATA } from '../../web/play/examples/data.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));


const bin = cliBinary();
const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-parity-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What `mcpcheck invariants --capture FILE --format json` prints, and its exit code. */
function fromCli(name, text) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, text);
  try {
    return { stdout: execFileSync(bin, ['invariants', '--capture', file, '--format', 'json'], { encoding: 'utf8' }), code: 0 };
  } catch (e) {
    return { stdout: e.stdout, code: e.status };
  }
}

const cases = [];
const vectors = new URL('../../core/tests/vectors/invariants/', import.meta.url);
for (const f of readdirSync(vectors).filter((f) => f.endsWith('.json')).sort()) {
  cases.push([f, members(readFileSync(new URL(f, vectors), 'utf8')).capture]);
}
for (const c of DATA.captures) cases.push([`playground ${c.id}`, JSON.stringify(c.capture)]);

test('there are cases with and without findings', () => {
  assert.ok(cases.length >= 50, `only ${cases.length} cases`);
});

cases.forEach(([name, text], i) => {
  test(`same report from the CLI and checkCapture: ${name}`, () => {
    // `ok` is the package's one success spelling, beside the CLI's `passed`.
    const { ok, ...report } = checkCapture(text);
    assert.equal(ok, report.passed);
    const { stdout, code } = fromCli(`case-${i}`, text);
    assert.equal(code, report.passed ? 0 : 1, stdout);
    // The CLI prints the findings document; the per-session report's members
    // are in it, with the same values.
    const cli = JSON.parse(stdout);
    assert.equal(cli.command, 'invariants');
    const same = Object.fromEntries(Object.keys(report).map((k) => [k, cli[k]]));
    assert.deepStrictEqual(report, same);
    assert.deepEqual(Object.keys(report), ['version', 'passed', 'sessions', 'hazards']);
    // Every finding of the per-session view is one of the document's, by
    // code; the hazards are its INV-090 and INV-091 findings.
    const hazard = (c) => c === 'INV-090' || c === 'INV-091';
    assert.deepEqual(
      report.sessions.flatMap((s) => s.findings.map((f) => f.id)).sort(),
      cli.findings.map((f) => f.code).filter((c) => !hazard(c)).sort(),
    );
    assert.equal(cli.findings.filter((f) => hazard(f.code)).length, report.hazards.length);
  });
});

test('lintListing and `mcpcheck lint --listing --format json` agree, byte for byte, on every listing vector', () => {
  const lintDir = join(root, 'core/tests/vectors/lint');
  let compared = 0;
  for (const name of readdirSync(lintDir).filter((f) => f.endsWith('.json')).sort()) {
    const text = readFileSync(join(lintDir, name), 'utf8');
    const c = JSON.parse(text);
    if (c.listing === undefined || c.second_listing !== undefined || c.options !== undefined || c.error !== undefined) continue;
    const listing = members(text).listing;
    const file = join(dir, `lint-${name}`);
    writeFileSync(file, listing);
    let stdout;
    try {
      stdout = execFileSync(bin, ['lint', '--listing', file, '--format', 'json'], { encoding: 'utf8' });
    } catch (e) {
      assert.equal(e.status, 1, `${name}: ${e.stderr}`);
      stdout = e.stdout;
    }
    // The CLI's document carries `passed` as well; `ok` is the package's.
    const { ok, ...report } = lintListing(listing, { name: file });
    assert.equal(ok, report.passed, name);
    assert.equal(JSON.stringify(report, null, 2) + '\n', stdout, name);
    assert.equal(report.passed, report.errors === 0, name);
    compared++;
  }
  assert.ok(compared >= 40, `only ${compared} listings compared`);
});

test('scanListing and `mcpcheck scan --listing --format json` agree, byte for byte, on every scan vector', () => {
  const scanDir = join(root, 'core/tests/vectors/scan');
  let compared = 0;
  for (const name of readdirSync(scanDir).filter((f) => f.endsWith('.json')).sort()) {
    const c = JSON.parse(readFileSync(join(scanDir, name), 'utf8'));
    // A skill's files or an app's view are scanned by `mcpcheck scan --skill`
    // and the live scan, not by scanListing (a listing's API).
    if (c.error !== undefined || c.skill || c.view) continue;
    // One file: a listing, or an array of listings for several servers.
    const doc = c.servers ? c.servers.map((s) => s.listing) : c.listing;
    const file = join(dir, `scan-${name}`);
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const options = c.options ?? {};
    const flags = ['--fail-on', options.fail_on ?? 'high'];
    if (options.skip_rules?.length) flags.push('--skip-rules', options.skip_rules.join(','));
    let stdout;
    let code = 0;
    try {
      stdout = execFileSync(bin, ['scan', '--listing', file, '--format', 'json', ...flags], { encoding: 'utf8' });
    } catch (e) {
      assert.equal(e.status, 1, `${name}: ${e.stderr}`);
      stdout = e.stdout;
      code = 1;
    }
    const { ok, ...report } = scanListing(doc, { ...options, name: file });
    assert.equal(ok, report.passed, name);
    assert.equal(JSON.stringify(report, null, 2) + '\n', stdout, name);
    assert.equal(code, report.passed ? 0 : 1, name);
    compared++;
  }
  assert.ok(compared >= 60, `only ${compared} listings compared`);
});

