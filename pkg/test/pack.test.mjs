// As a user gets it: `npm pack` the package, install the tarball into a
// fresh project, and use it from a plain .mjs, a .cjs and TypeScript, plus
// the browser entry (fed the .wasm bytes, as a bundler would hand them over).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { cliBinary } from '../scripts/cli-bin.mjs';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const node = (args, cwd) => execFileSync(process.execPath, args, { cwd, encoding: 'utf8' });
let work;
let project;
let tarball;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'mcpcheck-pack-'));
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], pkgDir));
  tarball = join(work, packed[0].filename);
  project = join(work, 'project');
  execFileSync('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), '{"name": "user-project", "private": true}\n');
  npm(['install', '--offline', '--no-audit', '--no-fund', tarball], project);
  // The MCP SDK the user's project would have (the package's own dev copy).
  mkdirSync(join(project, 'node_modules', '@modelcontextprotocol'), { recursive: true });
  symlinkSync(join(pkgDir, 'node_modules', '@modelcontextprotocol', 'sdk'), join(project, 'node_modules', '@modelcontextprotocol', 'sdk'));
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball carries both licenses, the same text as the repository’s', () => {
  for (const name of ['LICENSE-MIT', 'LICENSE-APACHE']) {
    assert.equal(readFileSync(join(pkgDir, name), 'utf8'), readFileSync(join(pkgDir, '..', name), 'utf8'), name);
  }
});

test('the tarball holds the entries, the glue, one .wasm and the types, nothing else', () => {
  const files = JSON.parse(npm(['pack', '--dry-run', '--json'], pkgDir))[0].files.map((f) => f.path).sort();
  assert.deepEqual(files, [
    'LICENSE-APACHE',
    'LICENSE-MIT',
    'README.md',
    'lib/browser.mjs',
    'lib/index.d.cts',
    'lib/index.d.mts',
    'lib/matchers.cjs',
    'lib/matchers.d.ts',
    'lib/matchers.mjs',
    'lib/node.cjs',
    'lib/node.d.mts',
    'lib/node.mjs',
    'lib/run-suite.cjs',
    'lib/run-suite.d.ts',
    'lib/support.cjs',
    'lib/support.d.ts',
    'lib/support.mjs',
    'node/mcpcheck-web.d.ts',
    'node/mcpcheck-web.js',
    'node/mcpcheck-web_bg.wasm',
    'package.json',
    'web/mcpcheck-web.d.ts',
    'web/mcpcheck-web.js',
  ]);
});

const SCRIPT = `
const r = checkResponse('expect:\\n  contains: [Paris]\\n', { content: [{ type: 'text', text: 'Paris' }] });
const f = checkResponse({ contains: ['Rome'] }, { content: [{ type: 'text', text: 'Paris' }] });
console.log(JSON.stringify({ pass: r.status, fail: f.status, reason: f.checks.find((c) => c.status === 'fail').reason, version: version() }));
`;
const want = (v) => ({ pass: 'pass', fail: 'fail', reason: "expected text to contain 'Rome'", version: v });
const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;

test('a plain .mjs imports it', () => {
  writeFileSync(join(project, 'check.mjs'), `import { checkResponse, version } from 'mcpcheck';\n${SCRIPT}`);
  assert.deepEqual(JSON.parse(node(['check.mjs'], project)), want(version));
});

test('a .cjs requires it', () => {
  writeFileSync(join(project, 'check.cjs'), `const { checkResponse, version } = require('mcpcheck');\n${SCRIPT}`);
  assert.deepEqual(JSON.parse(node(['check.cjs'], project)), want(version));
});

test('mcpcheck/matchers loads from both module systems, with the same verdicts', () => {
  const use = `const hit = matchers.toSatisfyMcpcheck({ content: [{ type: 'text', text: 'Paris' }] }, { contains: ['Paris'] });
const miss = matchers.toSatisfyMcpcheck({ content: [{ type: 'text', text: 'Paris' }] }, { contains: ['Rome'] });
console.log(JSON.stringify([hit.pass, miss.pass, miss.message().includes("expected text to contain 'Rome'")]));`;
  writeFileSync(join(project, 'matchers.mjs'), `import { matchers } from 'mcpcheck/matchers';\n${use}`);
  writeFileSync(join(project, 'matchers.cjs'), `const { matchers } = require('mcpcheck/matchers');\n${use}`);
  for (const file of ['matchers.mjs', 'matchers.cjs']) {
    assert.deepEqual(JSON.parse(node([file], project)), [true, false, true], file);
  }
});

test('the browser entry works once init() is given the module', () => {
  // Node resolves `mcpcheck` to the Node entry; load the browser file itself.
  writeFileSync(
    join(project, 'browser.mjs'),
    `import { readFileSync } from 'node:fs';
import init, { checkResponse, version } from './node_modules/mcpcheck/lib/browser.mjs';
await init(readFileSync('./node_modules/mcpcheck/node/mcpcheck-web_bg.wasm'));
${SCRIPT}`,
  );
  assert.deepEqual(JSON.parse(node(['browser.mjs'], project)), want(version));
});

test('node:test runs a YAML suite with runSuite on an SDK client, with the verdicts of `mcpcheck run`', () => {
  const bin = cliBinary();
  const suite = `server: {command: mcpcheck, args: [serve]}
tests:
  - name: echo answers
    assert:
      tool: echo
      args: {message: hello}
      expect: {equals: hello}
  - name: a wrong sum fails
    assert:
      tool: add
      args: {a: 2, b: 2}
      expect: {contains: ["5"]}
  - name: progress is reported
    assert_notifications:
      tool: progress
      args: {steps: 2, delay_ms: 5}
      expect: {min_count: 2}
  - name: later
    skip: not yet
    assert: {tool: echo}
`;
  writeFileSync(join(project, 'suite.yaml'), suite);
  writeFileSync(
    join(project, 'suite.test.mjs'),
    `import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runSuite } from 'mcpcheck';

test('the suite runs on my client', async () => {
  const client = new Client({ name: 'user-project', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.env.MCPCHECK_BIN, args: ['serve'], stderr: 'ignore' }));
  try {
    const doc = await runSuite(readFileSync('suite.yaml', 'utf8'), client, { file: 'suite.yaml' });
    writeFileSync('verdicts.json', JSON.stringify(doc.tests.map((t) => [t.name, t.status, t.checks.map((c) => c.status)])));
    assert.equal(doc.summary.total, 4);
  } finally {
    await client.close();
  }
});
`,
  );
  // A run of its own, not a child of this one (node:test tells its child
  // processes by NODE_TEST_CONTEXT).
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  execFileSync(process.execPath, ['--test', 'suite.test.mjs'], { cwd: project, encoding: 'utf8', env: { ...env, MCPCHECK_BIN: bin } });
  const mine = JSON.parse(readFileSync(join(project, 'verdicts.json'), 'utf8'));
  let stdout;
  try {
    stdout = execFileSync(bin, ['run', '--json', '--server', `${bin} serve`, '--suite', 'suite.yaml'], { cwd: project, encoding: 'utf8' });
  } catch (e) {
    assert.equal(e.status, 1, e.stderr);
    stdout = e.stdout;
  }
  const cli = JSON.parse(stdout).tests.map((t) => [t.name, t.status, t.checks.map((c) => c.status)]);
  assert.deepEqual(mine, cli);
  assert.deepEqual(mine.map((t) => t[1]), ['pass', 'fail', 'pass', 'skip']);
  // And from CommonJS.
  writeFileSync(join(project, 'run.cjs'), `const { runSuite, defineMcpcheckTests } = require('mcpcheck');\nconsole.log(typeof runSuite, typeof defineMcpcheckTests);\n`);
  assert.equal(node(['run.cjs'], project).trim(), 'function function');
});

/** Run tsc in `dir`; a failure carries tsc's messages. */
function typeCheck(tsc, dir) {
  try {
    execFileSync(process.execPath, [tsc, '-p', '.'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc in ${dir}:\n${e.stdout}${e.stderr}`);
  }
}

test('TypeScript type-checks a user module against the declarations', () => {
  const tsc = join(pkgDir, 'node_modules', 'typescript', 'bin', 'tsc');
  writeFileSync(
    join(project, 'check.mts'),
    `import init, { checkCapture, checkResponse, checkTrajectory, defineMcpcheckTests, formatResult, runSuite, validateSuite, version, McpcheckError, type InvariantsReport, type McpClient, type ResultsDocument, type TestResult } from 'mcpcheck';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { matchers, type McpcheckMatchers } from 'mcpcheck/matchers';
await init();
const passed: boolean = checkResponse({ contains: ['a'] }, '{"content": []}').ok;
const text: string = formatResult(checkResponse({ contains: ['a'] }, '{"content": []}'));
try { validateSuite('x'); } catch (e) { if (e instanceof McpcheckError) { const code: 'MCPCHECK_INVALID_INPUT' | 'MCPCHECK_INVALID_ARGUMENT' | 'MCPCHECK_INVALID_OPTION' = e.code; console.log(code); } }
const verdict: boolean = matchers.toSatisfyMcpcheck({}, { contains: ['a'] }).pass;
declare const assertion: McpcheckMatchers<void>;
assertion.toSatisfyMcpcheck({ contains: ['a'] }, { today: '2026-01-01' });
console.log(passed, text, verdict);
const r: TestResult = checkResponse({ expect: { contains: ['a'] }, threshold: 0.5 }, '{"content": []}', { today: '2026-01-31' });
const statuses: ('pass' | 'fail' | 'error' | 'skip')[] = [r.status];
const reasons: (string | undefined)[] = r.checks.map((c) => c.reason);
const t: TestResult = checkTrajectory([{ tool: 'a', args: {} }], 'trajectory: []');
const v = validateSuite('name: x', 'x.yaml');
const lines: (number | null)[] = v.diagnostics.map((d) => d.line);
const report: InvariantsReport = checkCapture({ exchanges: [] });
const rules: string[] = report.sessions.flatMap((s) => s.findings.map((f) => f.id));
const at: (number | null)[] = report.sessions.flatMap((s) => s.findings.map((f) => f.exchange));
try { checkResponse('expect: [', {}); } catch (e) { const m = e as McpcheckError; console.log(m.diagnostics[0]?.hint, m.rendered); }
console.log(statuses, reasons, t.score, lines, version().length, rules, at, report.passed);
declare const client: Client;
const doc: ResultsDocument = await runSuite('name: x', client, { timeoutMs: 5000, env: { A: 'b' }, today: '2026-01-31' });
const verdicts: [string, 'pass' | 'fail' | 'error' | 'skip', boolean][] = doc.tests.map((x) => [x.name, x.status, x.ok]);
const other: McpClient = { request: async () => ({}) };
await runSuite({ yaml: 'name: x', file: 'x.yaml' }, other);
declare const nodeTest: { (name: string, fn: () => Promise<void>): Promise<void>; skip(name: string, fn: () => void): Promise<void> };
declare const vitestTest: (name: string, fn: () => Promise<void>, timeout?: number) => void;
defineMcpcheckTests({ tests: [] }, { test: nodeTest, describe: (name: string, fn: () => void) => fn() }, () => client);
defineMcpcheckTests('name: x', { test: vitestTest }, async () => other, { file: 'x.yaml' });
console.log(verdicts, doc.summary.failed, doc.ok);
`,
  );
  writeFileSync(
    join(project, 'check.cts'),
    `import mcpcheck = require('mcpcheck');
const r: mcpcheck.TestResult = mcpcheck.checkResponse('expect:\\n  not_error: true', { content: [] });
void mcpcheck.init();
void mcpcheck.runSuite('name: x', { request: async () => ({}) }).then((d: mcpcheck.ResultsDocument) => d.ok);
console.log(r.status, mcpcheck.version());
`,
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], skipLibCheck: false } }),
  );
  typeCheck(tsc, project);
  // A strict Node project without the DOM lib (no `lib: ["dom"]`, no
  // @types/node): the Node entries' types stand alone.
  const bare = join(project, 'no-dom');
  mkdirSync(bare, { recursive: true });
  writeFileSync(
    join(bare, 'check.mts'),
    `import init, { checkResponse, scanListing, type TestResult, type ScanReport } from 'mcpcheck';
await init();
const r: TestResult = checkResponse({ expect: { contains: ['a'] } }, '{"content": []}');
const s: ScanReport = scanListing({ tools: [] });
export const out: [string, boolean, boolean] = [r.status, s.passed, s.ok];
`,
  );
  writeFileSync(
    join(bare, 'check.cts'),
    `import mcpcheck = require('mcpcheck');
void mcpcheck.init();
export const status: string = mcpcheck.checkResponse('expect:\\n  not_error: true', { content: [] }).status;
export const isError = (e: unknown): boolean => e instanceof mcpcheck.McpcheckError && e.code === 'MCPCHECK_INVALID_INPUT';
`,
  );
  writeFileSync(
    join(bare, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: [], skipLibCheck: false } }),
  );
  typeCheck(tsc, bare);
  rmSync(bare, { recursive: true });
  // And a wrong use is caught.
  rmSync(join(project, 'check.cts'));
  writeFileSync(join(project, 'check.mts'), `import { checkResponse } from 'mcpcheck';\nconst n: number = checkResponse({}, {}).status;\n`);
  assert.throws(
    () => execFileSync(process.execPath, [tsc, '-p', '.'], { cwd: project, encoding: 'utf8', stdio: 'pipe' }),
    (e) => /check\.mts\(2,7\): error TS2322: .* not assignable to type 'number'/.test(e.stdout),
  );
});
