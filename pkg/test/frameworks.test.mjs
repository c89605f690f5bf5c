// defineMcpcheckTests and the matchers under every test framework the
// package supports: Vitest 3 and 4, Jest 30 from CommonJS (no
// --experimental-vm-modules) and as ES modules, node:test and bun. Each runs
// the same tests (test-frameworks/shared.cjs: the suite in
// test-frameworks/suite.yaml on an SDK client connected to `mcpcheck serve`,
// with sampling, elicitation and roots answered from the suite's mocks, and
// the matchers) in a child process with a machine-readable reporter, and
// must report every suite test as `mcpcheck run` judges it, a failing one
// at its line of the YAML file with the CLI's text (no frame of this
// package's own files), and a failing equality matcher with one diff.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { cliBinary } from '../scripts/cli-bin.mjs';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const bin = cliBinary();
const suiteFile = join(pkg, 'test-frameworks', 'suite.yaml');
const work = mkdtempSync(join(tmpdir(), 'mcpcheck-frameworks-'));
after(() => rmSync(work, { recursive: true, force: true }));

const withoutTestContext = ({ NODE_TEST_CONTEXT, ...env }) => env;

/** Run `argv` in pkg/; its exit code and output (it exits 1: tests fail on purpose). */
async function run(argv, env = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(argv[0], argv.slice(1), {
      cwd: pkg,
      // Not NODE_TEST_CONTEXT: a node:test child would take itself for a
      // file of this run and run nothing.
      env: { ...withoutTestContext(process.env), NO_COLOR: '1', FORCE_COLOR: '0', CI: '1', MCPCHECK_BIN: bin, ...env },
      maxBuffer: 64 << 20,
      timeout: 240_000,
    });
    return { code: 0, stdout, output: stdout + stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, output: e.stdout + e.stderr };
  }
}

/** The CLI's verdict of each suite test: the same file with a server for
 * the tests without one, run with `mcpcheck run --server`. */
let cli;
before(async () => {
  const file = join(work, 'suite.yaml');
  // Appended, so every test keeps its line.
  writeFileSync(file, `${readFileSync(suiteFile, 'utf8')}server: {command: mcpcheck, args: [serve]}\n`);
  const { code, stdout, output } = await run([bin, 'run', '--json', '--server', `${bin} serve`, '--suite', file]);
  assert.equal(code, 1, output);
  cli = Object.fromEntries(JSON.parse(stdout).tests.map((t) => [t.name, t]));
});

const STATUS = { passed: 'pass', failed: 'fail', skipped: 'skip', pending: 'skip', todo: 'skip' };

/** Vitest's and Jest's JSON report: `{title: {status, failure}}`. */
function fromJson(text) {
  const out = {};
  for (const file of JSON.parse(text).testResults) {
    for (const a of file.assertionResults) {
      out[a.title] = { status: STATUS[a.status] ?? a.status, failure: (a.failureMessages ?? []).join('\n') };
    }
  }
  return out;
}

const unescapeXml = (s) =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n))).replace(/&amp;/g, '&');

/** A JUnit report (node:test's, bun's): `{name: {status, failure}}`. */
function fromJunit(text) {
  const out = {};
  for (const m of text.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const name = unescapeXml(/\bname="([^"]*)"/.exec(m[1])[1]);
    const body = m[2] ?? '';
    const status = /<failure\b|<error\b/.test(body) ? 'fail' : /<skipped\b/.test(body) ? 'skip' : 'pass';
    out[name] = { status, failure: unescapeXml(body) };
  }
  return out;
}

const node = process.execPath;
const bunBin = join(pkg, 'node_modules', '.bin', 'bun');
const jest = join(pkg, 'node_modules', 'jest', 'bin', 'jest.js');
const FRAMEWORKS = [
  {
    name: 'Vitest 3',
    argv: (out) => [node, join(pkg, 'node_modules/vitest/vitest.mjs'), 'run', '--root', 'test-frameworks', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`],
    read: fromJson,
  },
  {
    name: 'Vitest 4',
    argv: (out) => [node, join(pkg, 'test-vitest4/node_modules/vitest/vitest.mjs'), 'run', '--root', 'test-vitest4', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`],
    read: fromJson,
    needs: join(pkg, 'test-vitest4/node_modules/vitest/package.json'),
  },
  {
    name: 'Jest 30, CommonJS',
    argv: (out) => [node, jest, '--rootDir', 'test-jest', '--json', '--outputFile', out],
    read: fromJson,
  },
  {
    name: 'Jest 30, ES modules',
    argv: (out) => [node, '--experimental-vm-modules', jest, '--rootDir', 'test-jest-esm', '--json', '--outputFile', out],
    read: fromJson,
  },
  {
    name: 'node --test',
    argv: (out) => [
      node, '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=junit', `--test-reporter-destination=${out}`,
      '--test-reporter=tap', `--test-reporter-destination=${out}.tap`, 'test-node/',
    ],
    read: fromJunit,
    // node:test reports where each test was registered (TAP's `location`).
    tap: true,
  },
  {
    name: 'bun test',
    argv: (out) => [bunBin, 'test', '--reporter=junit', `--reporter-outfile=${out}`, './test-bun/'],
    read: fromJunit,
  },
];

/** A suite test's title as a framework reports it (skipped ones carry the
 * reason: `later (not yet)`). */
const titleOf = (t) => (t.status === 'skip' ? `${t.name} (${t.message})` : t.name);

for (const fw of FRAMEWORKS) {
  describe(fw.name, { concurrency: false }, () => {
    let report;
    let output;
    let out;
    before(async () => {
      if (fw.needs) assert.ok(existsSync(fw.needs), `${fw.name} is not installed: run scripts/setup`);
      out = join(work, `${fw.name.replace(/\W+/g, '-')}.report`);
      const r = await run(fw.argv(out));
      output = r.output;
      assert.equal(r.code, 1, `${fw.name} exits 1 (two tests fail on purpose):\n${output}`);
      report = fw.read(readFileSync(out, 'utf8'));
    });

    test('every suite test is reported as `mcpcheck run` judges it, mocks included', () => {
      const got = {};
      const want = {};
      for (const t of Object.values(cli)) {
        want[t.name] = t.status;
        got[t.name] = report[titleOf(t)]?.status ?? `missing from ${JSON.stringify(Object.keys(report))}`;
      }
      assert.deepEqual(got, want);
      // The mocks were needed, and answered: these pass in the CLI too.
      for (const name of ['sampling is answered from the test\'s mock', 'elicitation is answered from client_capabilities', 'roots are answered from client_capabilities']) {
        assert.equal(want[name], 'pass', name);
      }
    });

    test("a failing suite test fails at its line of the YAML file, with the CLI's text", () => {
      const t = cli['add is wrong on purpose'];
      const failure = report[t.name].failure;
      assert.ok(failure.includes(t.message), `the CLI's reason "${t.message}" in:\n${failure}`);
      // The file as each reports it: absolute, or relative to pkg/ (bun).
      const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const file = `(${esc(suiteFile)}|${esc('test-frameworks/suite.yaml')})`;
      assert.match(failure, new RegExp(`${file}:${t.line}:\\d+`));
      assert.doesNotMatch(failure, /run-suite\.cjs|mcpcheck\/lib\//, failure);
      if (fw.tap) {
        const tap = readFileSync(`${out}.tap`, 'utf8');
        const at = new RegExp(`not ok \\d+ - ${esc(t.name)}\\n(?: .*\\n)*? +location: '([^']+)'`).exec(tap);
        assert.equal(at?.[1], `${suiteFile}:${t.line}:5`, tap);
        assert.match(tap, new RegExp(`location: '${esc(suiteFile)}:1:1'`), 'the describe is the suite file');
      }
    });

    test('the matchers pass, refuse what holds no answer, and fail an equality check with one diff', () => {
      assert.equal(report['toSatisfyMcpcheck passes, and fails with .not']?.status, 'pass', JSON.stringify(report));
      assert.equal(report['a response that holds no answer is an error, with or without .not']?.status, 'pass', output);
      const diffTest = report['a failing equality check fails with one diff (on purpose)'];
      assert.equal(diffTest?.status, 'fail');
      assert.match(diffTest.failure, /✗ exact json \(json\): expected \{"city":"Paris"\}, got \{"city":"Lisbon"\}/);
      // node:test's spec reporter lists every failure again at its end.
      const once = output.split(/^\S+ failing tests:$/m)[0];
      const diffs = once.match(/^\s*\+\s+"city": "Lisbon",?$/gm) ?? [];
      assert.equal(diffs.length, 1, `one diff in:\n${output}`);
    });
  });
}
