// The HTML report of `mcpcheck run --html` in a real browser: a suite with
// passing, failing, skipped, erroring and flaky tests is run with
// `--retries 2 --html DIR` by the real binary, and DIR/index.html is opened
// from file:// in Debian's Chromium (playwright-core). Every request the page
// makes is intercepted: only the report's own files may load. Then the same
// for an analysis (`audit --html`), `show-report` serving the report, and
// axe-core at 390, 1280 and 1920 px.
//
//   cargo build -p mcpcheck && npm --prefix web/e2e test
//
// MCPCHECK names the binary (default: target/debug/mcpcheck, or under
// CARGO_TARGET_DIR). Screenshots go to target/e2e/.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../../', import.meta.url));
const out = join(root, 'target', 'e2e');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// A relative MCPCHECK is taken from the repository's root, as the scripts write it.
const MCPCHECK = process.env.MCPCHECK
  ? resolve(root, process.env.MCPCHECK)
  : join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'debug', 'mcpcheck');
const AXE = readFileSync(fileURLToPath(new URL('./node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');
const WIDTHS = [390, 1280, 1920];

// A stdio server whose `answer` tool answers `not yet` to its first call
// (counted in a file, across processes) and `42` after: a flaky server. Its
// `query` tool answers an error text without isError.
const SERVER = `
import json, os, sys
counter = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "flaky", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "answer", "inputSchema": {"type": "object"}},
                       {"name": "query", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}]}
    elif m["method"] == "tools/call" and m["params"]["name"] == "query":
        r = {"content": [{"type": "text", "text": "Error: Only SELECT queries are allowed"}]}
    elif m["method"] == "tools/call":
        n = int(open(counter).read()) if os.path.exists(counter) else 0
        open(counter, "w").write(str(n + 1))
        print("call number %d" % (n + 1), file=sys.stderr, flush=True)
        r = {"content": [{"type": "text", "text": "not yet" if n == 0 else "42"}],
             "structuredContent": {"answer": "not yet" if n == 0 else "42"}}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\\n")
    sys.stdout.flush()
`;

let dir;
let runReport;
let auditReport;
let browser;

before(async () => {
  assert.ok(existsSync(MCPCHECK), `no ${MCPCHECK}: run \`cargo build -p mcpcheck\` first (or set MCPCHECK)`);
  mkdirSync(out, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'mcpcheck-report-e2e-'));
  const server = join(dir, 'server.py');
  writeFileSync(server, SERVER);
  const py = `{command: python3, args: ["${server}", "${join(dir, 'counter')}"]}`;
  writeFileSync(join(dir, 'suite.yaml'), `name: every outcome
servers:
  ref: {command: "${MCPCHECK}", args: [serve]}
  flaky: ${py}
tests:
  - name: echo passes
    server: ref
    tags: [smoke]
    tool: echo
    args: {message: hello}
    expect: [{target: text, matcher: {equals: hello}}]
  - name: echo fails
    server: ref
    tags: [smoke, regress]
    tool: echo
    args: {message: hello}
    expect:
      - {target: text, matcher: {equals: goodbye}}
      - {target: result, matcher: {exact: {content: [{type: text, text: bye}]}}}
  - name: not today
    server: ref
    skip: not today
    tool: echo
  - name: server missing
    server: {command: /nonexistent/mcp-server}
    tool: echo
  - name: flaky answer
    server: flaky
    tool: answer
    expect: [{target: json.answer, matcher: {equals: "42"}}]
`);
  runReport = join(dir, 'run report');
  try {
    // Each test on a server of its own (--isolate), so each attempt has a
    // session, and stderr, of its own to show.
    execFileSync(MCPCHECK, ['run', '--suite', join(dir, 'suite.yaml'), '--isolate', '--retries', '2', '--html', runReport, '-q'], { cwd: dir, stdio: 'pipe' });
    assert.fail('the run has failures: exit 1 expected');
  } catch (e) {
    assert.equal(e.status, 1, `${e.stdout}\n${e.stderr}`);
  }
  auditReport = join(dir, 'audit report');
  execFileSync(MCPCHECK, ['audit', '--server', `python3 ${server} ${join(dir, 'audit-counter')}`, '--html', auditReport, '-q'], { cwd: dir, stdio: 'pipe' });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-default-apps'],
  });
});

after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * A page on `url` whose every request is intercepted: one for a file of the
 * report's folder `base` goes through, any other is aborted and recorded.
 */
async function open(url, base, options = {}) {
  const context = await browser.newContext(options);
  const left = [];
  const requests = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    requests.push(u);
    if (u.startsWith(base)) return route.continue();
    left.push(u);
    return route.abort();
  });
  context.on('request', (r) => {
    if (!r.url().startsWith(base) && !left.includes(r.url())) left.push(r.url());
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url);
  await page.locator('#totals').waitFor();
  return { page, context, left, requests, errors };
}

const fileBase = (folder) => pathToFileURL(`${folder}/`).href;

async function row(page, name) {
  return page.locator('li.test', { has: page.locator('.name', { hasText: new RegExp(`^${name}$`) }) });
}

async function openTest(page, name) {
  const r = await row(page, name);
  await r.locator('summary').first().click();
  return r;
}

test('the run report has one row per test with its status, opened from file:// with no request leaving', async () => {
  const base = fileBase(runReport);
  const { page, context, left, requests, errors } = await open(`${base}index.html`, base);
  const rows = await page.locator('li.test').evaluateAll((ls) => ls.map((l) => [
    l.querySelector('.name').textContent, l.dataset.outcome, l.querySelector('.badge').textContent]));
  assert.deepEqual(rows, [
    ['echo passes', 'pass', 'PASS'],
    ['echo fails', 'fail', 'FAIL'],
    ['not today', 'skip', 'SKIP'],
    ['server missing', 'error', 'ERROR'],
    ['flaky answer', 'flaky', 'FLAKY'],
  ]);
  assert.match(await page.locator('#totals').textContent(), /^5 tests: 1 passed, 1 flaky, 1 failed, 1 error, 1 skipped/);

  // A failing test: each failing check's expected and actual, side by side,
  // and the diff of the structured one.
  const failing = await openTest(page, 'echo fails');
  const checks = failing.locator(':scope > details > .body > .check.fail');
  assert.equal(await checks.count(), 2);
  const text = checks.nth(0);
  assert.equal((await text.locator('.side.expected pre').first().textContent()).trim(), 'goodbye');
  assert.equal((await text.locator('.side.actual pre').first().textContent()).trim(), 'hello');
  const structured = checks.nth(1);
  assert.match(await structured.locator('.side.expected').textContent(), /"text": "bye"/);
  assert.match(await structured.locator('.side.actual').textContent(), /"text": "hello"/);
  assert.match(await structured.locator('.diff').textContent(), /\$\.content\[0\]\.text: expected "bye", actual "hello"/);

  // Its session, loaded when opened: the exchange the checks looked at is
  // highlighted and open, the field they read marked in the response.
  const looked = failing.locator('.timeline li.looked').last();
  await looked.waitFor();
  assert.match(await looked.locator('summary').textContent(), /tools\/call/);
  assert.match(await looked.locator('summary').textContent(), /equals text/);
  assert.match(await looked.locator('.message', { hasText: 'response' }).locator('pre').textContent(), /"text":\s*"hello"/);
  assert.ok((await looked.locator('mark').count()) > 0, 'the field the checks read is marked');
  assert.match(await failing.locator('.timeline').first().textContent(), /#0 initialize/);

  // The flaky test: its attempts, and the failing one's own session.
  const flaky = await openTest(page, 'flaky answer');
  assert.match(await flaky.locator('.attempts').textContent(), /FAIL attempt 1.*PASS attempt 2/s);
  await flaky.locator('.attempt').first().waitFor();
  const first = flaky.locator('.attempt').first();
  assert.match(await first.locator('h4').first().textContent(), /FAIL Attempt 1/);
  assert.match(await first.locator('.check.fail .side.actual').textContent(), /not yet/);
  // Each attempt's stderr: its server's own lines, all of them (the log
  // waits for the server's stderr to close).
  assert.match(await first.locator('.stderr').textContent(), /call number 1/);
  assert.match(await flaky.locator('.attempt').nth(1).locator('.stderr').textContent(), /call number 2/);

  // The erroring test says why; the skipped one why not.
  const missing = await openTest(page, 'server missing');
  assert.match(await missing.locator('.message-text').first().textContent(), /nonexistent/);
  const skipped = await openTest(page, 'not today');
  assert.match(await skipped.locator('.message-text').textContent(), /not today/);

  // Filters: by status, tag, and a search.
  const visible = () => page.locator('li.test:not([hidden]) .name').allTextContents();
  await page.locator('input[data-filter="status"][value="pass"]').uncheck();
  assert.deepEqual(await visible(), ['echo fails', 'not today', 'server missing', 'flaky answer']);
  await page.locator('input[data-filter="status"][value="pass"]').check();
  await page.locator('#filter-tag').selectOption('regress');
  assert.deepEqual(await visible(), ['echo fails']);
  await page.locator('#filter-tag').selectOption('');
  await page.locator('#search').fill('FLAKY ANS');
  assert.deepEqual(await visible(), ['flaky answer']);
  assert.match(await page.locator('#shown').textContent(), /Showing 1 of 5 tests/);
  await page.locator('#search').fill('');

  await page.screenshot({ path: join(out, 'report-run.png'), fullPage: true });
  assert.deepEqual(errors, []);
  assert.deepEqual(left, [], 'no request leaves the report');
  assert.ok(requests.some((u) => u.endsWith('/data/sessions/1.js')), 'a session is loaded when its test is opened');
  assert.ok(!requests.some((u) => u.endsWith('/data/sessions/0.js')), 'and only then');
  await context.close();
});

test('an analysis report groups every finding by item with its rule, from file://', async () => {
  const base = fileBase(auditReport);
  const { page, context, left, errors } = await open(`${base}index.html`, base);
  assert.match(await page.locator('#totals').textContent(), /^audit: .* 0 errors, 1 warning, 0 notes/);
  const group = page.locator('li.group', { hasText: 'tool query' });
  const finding = group.locator('article.finding[data-code="A302"]');
  assert.match(await finding.locator('h3').textContent(), /A302 Error text in a success/);
  assert.match(await finding.textContent(), /Error: Only SELECT queries are allowed/);
  assert.match(await finding.locator('.rule').textContent(), /How to fix it: Set isError: true/);
  assert.match(await page.locator('#cases').textContent(), /answer/);
  assert.deepEqual(errors, []);
  assert.deepEqual(left, []);
  await page.screenshot({ path: join(out, 'report-audit.png'), fullPage: true });
  await context.close();
});

test('show-report serves the report on 127.0.0.1, where it makes no other request', async () => {
  const child = spawn(MCPCHECK, ['show-report', runReport], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (b) => {
        text += b;
        if (text.includes('\n')) resolve(text.trim());
      });
      child.on('exit', (code) => reject(new Error(`show-report exited ${code}`)));
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const { page, context, left, errors } = await open(url, url);
    assert.equal(await page.locator('li.test').count(), 5);
    await openTest(page, 'echo fails');
    await page.locator('li.test.fail .timeline li.looked').last().waitFor();
    assert.deepEqual(errors, []);
    assert.deepEqual(left, []);
    await context.close();
  } finally {
    child.kill();
  }
});

/** axe's serious and critical violations on the page as it is now. */
async function axeViolations(page) {
  const { ran, violations } = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return {
      ran: r.passes.length + r.violations.length,
      violations: r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    };
  });
  assert.ok(ran > 20, `axe ran only ${ran} rules`);
  return violations;
}

test('axe finds no serious or critical violation in either report, every test open, at 390, 1280 and 1920 px', async () => {
  const found = [];
  for (const width of WIDTHS) {
    for (const [what, folder] of [['run', runReport], ['audit', auditReport]]) {
      const base = fileBase(folder);
      // bypassCSP only to inject axe: the report's own scripts are as written.
      const { page, context } = await open(`${base}index.html`, base, { viewport: { width, height: 900 }, bypassCSP: true });
      for (const summary of await page.locator('li.test > details > summary').all()) await summary.click();
      if (what === 'run') await page.locator('li.test.fail .timeline li.looked').last().waitFor();
      await page.addScriptTag({ content: AXE });
      for (const v of await axeViolations(page)) found.push(`${what} at ${width} px: ${v}`);
      await page.screenshot({ path: join(out, `report-${what}-${width}.png`), fullPage: true });
      await context.close();
    }
  }
  assert.deepEqual(found, []);
});
