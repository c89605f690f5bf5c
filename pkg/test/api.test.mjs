// The package's surface: input forms (objects, JSON and YAML text), thrown
// errors with the core's diagnostics, trajectories, suite validation, the
// version, and both Node entry points.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import init, { captureTimeline, checkCapture, checkResponse, checkTrajectory, validateSuite, version } from '../lib/node.mjs';

const require = createRequire(import.meta.url);
const text = (t) => ({ content: [{ type: 'text', text: t }] });

test('version is the crates’ and the package’s', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const cargo = readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8');
  const crateVersion = cargo.match(/\[workspace\.package\]\nversion = "([^"]+)"/)[1];
  assert.equal(version(), crateVersion);
  assert.equal(pkg.version, crateVersion);
});

test('init is a no-op in Node', async () => {
  assert.equal(await init(), undefined);
});

test('checkResponse: YAML text, JSON text and objects give one verdict', () => {
  const yaml = 'expect:\n  contains: ["Paris"]\n  not_error: true\n';
  const json = JSON.stringify({ expect: { contains: ['Paris'], not_error: true } });
  const obj = { expect: { contains: ['Paris'], not_error: true } };
  const response = text('Paris is the capital');
  const results = [yaml, json, obj].map((e) => checkResponse(e, response));
  for (const r of results) {
    assert.equal(r.status, 'pass');
    assert.ok(r.checks.some((c) => c.matcher === 'contains' && c.status === 'pass'));
  }
  // The same checks, apart from the source lines YAML text has.
  const strip = (r) => r.checks.map(({ line, ...c }) => c);
  assert.deepEqual(strip(results[0]), strip(results[2]));
  assert.deepEqual(strip(results[1]), strip(results[2]));
  // The response as JSON text, and as a JSON-RPC envelope.
  assert.equal(checkResponse(obj, JSON.stringify(response)).status, 'pass');
  assert.equal(checkResponse(obj, { jsonrpc: '2.0', id: 1, result: response }).status, 'pass');
});

test('checkResponse: a failing check reports expected, actual and reason', () => {
  const r = checkResponse({ contains: ['Berlin'] }, text('Paris'));
  assert.equal(r.status, 'fail');
  const failing = r.checks.filter((c) => c.status === 'fail');
  assert.equal(failing.length, 1);
  const [c] = failing;
  assert.equal(c.target, 'text');
  assert.match(c.expected, /Berlin/);
  assert.match(c.actual, /Paris/);
  assert.equal(r.message, c.reason);
  assert.ok(c.reason.length > 0);
});

test('checkResponse: a JSON-RPC error makes not_error fail', () => {
  const r = checkResponse({ not_error: true }, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } });
  assert.equal(r.status, 'fail');
});

test('checkResponse: the score is reported when a threshold is set', () => {
  const doc = `
expect:
  - {target: text, matcher: {contains: a}, weight: 3}
  - {target: text, matcher: {contains: z}, weight: 1}
threshold: 0.7
`;
  const r = checkResponse(doc, text('abc'));
  assert.equal(r.score, 0.75);
  assert.equal(r.threshold, 0.7);
  assert.equal(r.status, 'pass');
  assert.equal(checkResponse({ contains: ['a'] }, text('abc')).score, undefined);
});

test('checkResponse: RFC 9535 filter functions (length, count, match, search, value) work in wasm', () => {
  const response = { content: [], structuredContent: { items: [{ a: [1, 2] }, { a: [1] }, { a: 'xy' }] } };
  // One match is the matched value itself; several are a list.
  const cases = [
    ['$.items[?length(@.a) > 1]', { length: 2 }],
    ['$.items[?count(@.a[*]) == 1]', { exact: { a: [1] } }],
    ['$.items[?match(@.a, "x.")]', { exact: { a: 'xy' } }],
    ['$.items[?search(@.a, "y")]', { exact: { a: 'xy' } }],
    ['$.items[?value(@.a[0]) == 1]', { length: 2 }],
    ['$.items[?length(@.a) > 5]', { absent: true }],
  ];
  for (const [path, matcher] of cases) {
    const r = checkResponse({ expect: [{ target: path.replace('$.', '$.json.'), matcher }] }, response);
    assert.deepEqual(r.checks.map((c) => [c.status, c.reason ?? '']), [['pass', '']], path);
  }
});

test('checkResponse: a YAML error throws with its line and column', () => {
  const doc = 'expect:\n  contains: ["a"]\n  not_eror: true\n';
  assert.throws(() => checkResponse(doc, text('a')), (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.diagnostics.length, 1);
    const [d] = e.diagnostics;
    assert.equal(d.line, 3);
    assert.equal(d.column, 3);
    assert.equal(d.severity, 'error');
    assert.equal(d.file, '<expect>');
    assert.match(d.hint, /not_error/);
    assert.match(e.message, /^<expect>:3:3: error: /);
    assert.match(e.rendered, /3 \|   not_eror: true\n\s+\| +\^+/);
    return true;
  });
  assert.throws(() => checkResponse('expect: [unclosed', text('a')), (e) => e.diagnostics[0].line >= 1);
});

test('checkResponse: a response that is not JSON throws at its position', () => {
  assert.throws(() => checkResponse({ not_error: true }, '{"content": [\n  oops]}'), (e) => {
    const [d] = e.diagnostics;
    assert.equal(d.file, '<response>');
    assert.equal(d.line, 2);
    assert.match(d.message, /^the response is not valid JSON/);
    return true;
  });
});

test('checkResponse: bad arguments throw plain errors', () => {
  assert.throws(() => checkResponse(undefined, text('a')), /the expectation document is missing/);
  assert.throws(() => checkResponse({ not_error: true }, undefined), /the response is missing/);
  assert.throws(() => checkResponse({ not_error: true }, text('a'), { tomorrow: 1 }), /unknown option `tomorrow`/);
  assert.throws(() => checkResponse({ not_error: true }, text('a'), { today: 'soon' }), /`today` is not a date/);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => checkResponse(cyclic, text('a')), /cannot be converted to JSON/);
  assert.throws(() => checkResponse({ not_error: true }, { big: 1n }), /cannot be converted to JSON/);
});

test('checkResponse: options supply today and files', () => {
  const doc = { expect: { file_contains: { '/tmp/x': 'hello' } } };
  assert.equal(checkResponse(doc, text(''), { files: { '/tmp/x': 'hello world' } }).status, 'pass');
  assert.equal(checkResponse(doc, text(''), { files: { '/tmp/x': null } }).status, 'fail');
});

test('checkTrajectory: text, JSONL and objects', () => {
  const trace = [{ tool: 'search', args: { q: 'x' } }, { tool: 'read', args: {} }];
  const assertions = { trajectory: [{ type: 'order', tools: ['search', 'read'] }, { type: 'absence', tools: ['delete'] }] };
  assert.equal(checkTrajectory(trace, assertions).status, 'pass');
  assert.equal(checkTrajectory({ trace }, assertions).status, 'pass');
  const yaml = 'trajectory:\n  - type: order\n    tools: [read, search]\n';
  const r = checkTrajectory(trace, yaml);
  assert.equal(r.status, 'fail');
  assert.ok(r.checks[0].reason.length > 0);
  const jsonl = trace.map((t) => JSON.stringify(t)).join('\n') + '\n';
  assert.equal(checkTrajectory(jsonl, assertions).status, 'pass');
  assert.throws(() => checkTrajectory(trace, 'trajectory:\n  - type: sequence\n'), (e) => e.diagnostics[0].line === 2);
  assert.throws(() => checkTrajectory('{"tool": "a"}\nnot json\n', assertions), /audit log line 2/);
});

test('checkCapture: the invariants report, from text or an object', () => {
  const session = (exchanges) => ({ server_capabilities: { tools: {} }, exchanges });
  const init = {
    request: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
    response: { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } },
  };
  const initialized = { request: { jsonrpc: '2.0', method: 'notifications/initialized' } };
  const call = (code) => ({
    request: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', arguments: {} } },
    response: { jsonrpc: '2.0', id: 2, error: { code, message: 'unknown tool' } },
  });
  const good = checkCapture(session([init, initialized, call(-32602)]));
  assert.equal(good.version, 1);
  assert.equal(good.sessions.length, 1);
  const bad = checkCapture(JSON.stringify(session([init, initialized, call('-32602')])));
  assert.equal(bad.passed, false);
  const inv6 = bad.sessions[0].findings.find((f) => f.id === 'INV-006');
  assert.ok(inv6, JSON.stringify(bad));
  assert.equal(inv6.exchange, 2);
  assert.equal(inv6.category, 'error-envelope');
  // A capture without exchanges is not a capture.
  assert.throws(() => checkCapture('{"server_label": "x"}'), (e) => e.diagnostics.length > 0 && e.diagnostics[0].file === '<capture>');
  assert.throws(() => checkCapture('{"exchanges": [}'), (e) => e.diagnostics[0].line === 1);
});

test('validateSuite: a good file lists its tests, a bad one every problem', () => {
  const good = `name: read a file
server:
  command: my-server
assert:
  tool: read_file
  args: {path: /tmp/x}
  expect:
    not_error: true
`;
  const ok = validateSuite(good, 'evals/read.yaml');
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.tests, [{ name: 'read a file', line: 1 }]);
  assert.deepEqual(ok.diagnostics, []);
  assert.equal(ok.rendered, '');

  const bad = validateSuite(good.replace('not_error', 'not_eror').replace('command', 'comand'), 'evals/read.yaml');
  assert.equal(bad.ok, false);
  assert.equal(bad.file, 'evals/read.yaml');
  assert.ok(bad.diagnostics.length >= 2);
  for (const d of bad.diagnostics) {
    assert.equal(typeof d.line, 'number');
    assert.equal(typeof d.column, 'number');
  }
  const eror = bad.diagnostics.find((d) => d.message.includes('not_eror'));
  assert.equal(eror.line, 8);
  assert.match(eror.hint, /did you mean `not_error`/);
  assert.match(bad.rendered, /--> evals\/read.yaml:8:5/);
  assert.equal(validateSuite('').ok, false);
  assert.equal(validateSuite('').file, 'suite.yaml');
});

test('CommonJS and ES module entries expose the same functions', () => {
  const cjs = require('../lib/node.cjs');
  for (const name of ['checkResponse', 'checkTrajectory', 'checkCapture', 'validateSuite', 'version', 'init']) {
    assert.equal(typeof cjs[name], 'function', name);
  }
  assert.equal(cjs.version(), version());
  assert.deepEqual(cjs.checkResponse({ contains: ['a'] }, text('a')), checkResponse({ contains: ['a'] }, text('a')));
});

test('the TypeScript declarations name every export and shape', () => {
  const dts = readFileSync(new URL('../node/mcpcheck-web.d.ts', import.meta.url), 'utf8');
  for (const fn of ['checkResponse', 'checkTrajectory', 'checkCapture', 'validateSuite', 'version']) {
    assert.match(dts, new RegExp(`export function ${fn}\\(`), fn);
  }
  for (const t of ['TestResult', 'CheckResult', 'Diagnostic', 'SuiteValidation', 'McpcheckError', 'CheckOptions', 'InvariantsReport', 'InvariantFinding', 'Capture']) {
    assert.match(dts, new RegExp(`export (interface|type) ${t}\\b`), t);
  }
  assert.match(dts, /checkResponse\(expect: Expectations, response: McpResponse, options\?: CheckOptions\): TestResult/);
});

test('captureTimeline: each exchange summed up, messages as written, indexes as the report counts them', () => {
  const capture = {
    server_label: 'demo',
    exchanges: [
      { request: { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }, response: { jsonrpc: '2.0', id: 0, result: { capabilities: {} } } },
      { request: { jsonrpc: '2.0', method: 'notifications/initialized' } },
      { request: { jsonrpc: '2.0', id: 'b', method: 'nope' }, response: { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'no' } } },
    ],
    unmatched: [{ message: { jsonrpc: '2.0', id: 7, result: {} }, after_exchange: 2 }],
  };
  const [s] = captureTimeline(JSON.stringify(capture));
  assert.equal(s.server_label, 'demo');
  assert.deepEqual(s.exchanges.map((x) => [x.method, x.id, x.answer, x.error_code]), [
    ['initialize', '0', 'result', null],
    ['notifications/initialized', null, 'notification', null],
    ['nope', '"b"', 'error', -32601],
  ]);
  assert.deepEqual(s.exchanges[0].response, capture.exchanges[0].response);
  assert.deepEqual(s.unmatched, [{ after_exchange: 2, message: { jsonrpc: '2.0', id: 7, result: {} }, response: null }]);
  // An object works as text does; what is not a capture throws like checkCapture.
  assert.deepEqual(captureTimeline(capture), captureTimeline(JSON.stringify(capture)));
  assert.throws(() => captureTimeline('{"server_label": "x"}'), (e) => e.diagnostics[0].file === '<capture>');
});

test('captureTimeline with verbatim: each message is the text the capture holds', () => {
  // What a re-serialization would change: key order, `1.0`, an escape, spacing.
  const response = '{"result": {"b": 1.0, "a": "caf\\u00e9"}, "id": 1, "jsonrpc": "2.0"}';
  const note = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}';
  const text = `{"exchanges": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "m"}, "response": ${response}, "notifications": [${note}]}]}`;
  const [s] = captureTimeline(text, { verbatim: true });
  assert.equal(s.exchanges[0].response, response);
  assert.deepEqual(s.exchanges[0].notifications, [note]);
  assert.equal(s.exchanges[0].request, '{"jsonrpc": "2.0", "id": 1, "method": "m"}');
  assert.equal(s.exchanges[0].answer, 'result');
  // Without it, the same messages as values.
  assert.deepEqual(captureTimeline(text)[0].exchanges[0].response, JSON.parse(response));
  assert.throws(() => captureTimeline(text, { raw: true }), (e) => e.code === 'MCPCHECK_INVALID_OPTION' && /raw/.test(e.message));
});

test('checkResponse: what is not a response throws, never a verdict', () => {
  const expect = { expect: { not_error: true } };
  const cases = [
    [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, /a JSON-RPC request \(`tools\/call`\) was given/],
    ['{"jsonrpc":"2.0","id":1,"method":"tools/call"}', /a JSON-RPC request/],
    [[{ jsonrpc: '2.0', id: 1, result: {} }], /a JSON-RPC batch/],
    [null, /`null` was given/],
    [42, /a number/],
    ['"text"', /a JSON string/],
  ];
  for (const [response, says] of cases) {
    assert.throws(() => checkResponse(expect, response), (e) => says.test(e.message) && /expected a raw MCP result/.test(e.message), JSON.stringify(response));
  }
});

test('checkResponse: bytes are UTF-8 text; an SSE event is the response it carries', () => {
  const answer = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}';
  const expect = { expect: { contains: ['hi'] } };
  assert.equal(checkResponse(expect, Buffer.from(answer)).status, 'pass');
  assert.equal(checkResponse(expect, new TextEncoder().encode(answer)).status, 'pass');
  assert.throws(() => checkResponse(expect, new Uint8Array([0xff, 0xfe])), /not UTF-8/);
  assert.equal(checkResponse(expect, `event: message\ndata: ${answer}\n\n`).status, 'pass');
});

test('checkResponse: expectations that check nothing pass with a warning, never silently', () => {
  const r = checkResponse({ expect: {} }, text('anything'));
  assert.equal(r.status, 'pass');
  assert.ok(r.warnings.some((w) => w.startsWith('no checks')), JSON.stringify(r.warnings));
});

test('validateSuite: anything but text throws a readable error', () => {
  assert.throws(() => validateSuite(42), /the suite must be YAML text \(a string\), not a number/);
  assert.throws(() => validateSuite(undefined), /not undefined/);
  assert.throws(() => validateSuite({ name: 'x' }), /not an object/);
  assert.throws(() => validateSuite('name: x', 7), /the file name must be a string, not a number/);
  assert.equal(validateSuite('name: x', undefined).file, 'suite.yaml');
  assert.throws(() => validateSuite('name: x', 'a.yaml', { for_client: true }), (e) => e.code === 'MCPCHECK_INVALID_OPTION' && /for_client/.test(e.message));
});

test('validateSuite: for runSuite (forClient), a test needs no server block', () => {
  const serverless = 'name: t\nassert: {tool: echo, expect: {not_error: true}}\n';
  assert.equal(validateSuite(serverless, 't.yaml', { forClient: true }).ok, true);
  const cli = validateSuite(serverless, 't.yaml');
  assert.equal(cli.ok, false);
  assert.match(cli.diagnostics[0].message, /has no `server`/);
});

test('checkTrajectory: an empty trace, or no assertions, passes with the warning that nothing was checked', () => {
  const empty = checkTrajectory([], [{ type: 'absence', tools: ['rm'] }]);
  assert.equal(empty.status, 'pass');
  assert.deepEqual(empty.warnings, ['no checks: the trace is empty (no tool was called), so there was no call to check']);
  const none = checkTrajectory([{ tool: 'ls' }], { trajectory: [] });
  assert.deepEqual(none.warnings, ['no checks: there are no trajectory assertions, so any trace passes']);
});
