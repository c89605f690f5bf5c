// runSuite drives a suite through the core's test runner on the caller's own
// MCP SDK client, and reaches the verdicts `mcpcheck run` reaches on the
// same suite: test by test the same status, and check by check the same
// status and reason. Against `mcpcheck serve` (one client for a whole
// composed suite: setup and capture, prompts, resources with a
// subscription, completion, progress and log notifications, sampling,
// roots and elicitation answered from the suite's mocks, file checks on a
// fixture, an inline trace and an audit log, failing and skipped tests) and against server-everything (one client per
// file of tests/node-servers, as the CLI starts one server per test). Needs
// the CLI binary (see scripts/cli-bin.mjs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { cliBinary } from '../scripts/cli-bin.mjs';
import { defineMcpcheckTests, formatResult, McpcheckError, runSuite } from '../lib/node.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const servers = join(root, 'tests/node-servers');
const bin = cliBinary();
const dir = mkdtempSync(join(tmpdir(), 'mcpcheck-run-suite-'));
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** An SDK client connected over stdio to `command args`. */
async function connect(command, args, { cwd, env } = {}) {
  const client = new Client(
    { name: 'mcpcheck-run-suite-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } },
  );
  const transport = new StdioClientTransport({ command, args, cwd, env: { ...getDefaultEnvironment(), ...env }, stderr: 'ignore' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** What `mcpcheck run --json ARGS` prints (it exits 1 when a test fails). */
async function cliRun(args, cwd) {
  try {
    const { stdout } = await promisify(execFile)(bin, ['run', '--json', ...args], { cwd, maxBuffer: 64 << 20 });
    return JSON.parse(stdout);
  } catch (e) {
    assert.equal(e.code, 1, `mcpcheck run ${args.join(' ')}: ${e.stderr}`);
    return JSON.parse(e.stdout);
  }
}

/** Each test's verdict: its status, and each check's name, status and reason. */
const verdicts = (doc) =>
  Object.fromEntries(
    doc.tests.map((t) => [
      `${t.file} ${t.name}`,
      { status: t.status, checks: t.checks.map((c) => ({ name: c.name, status: c.status, reason: c.reason })) },
    ]),
  );

const SERVE_SUITE = `
server:
  command: mcpcheck
  args: [serve]
  client_capabilities:
    roots: ["/tmp/project"]
    elicitation:
      content: {answer: "42"}
tests:
  - name: a captured value is passed on
    setup:
      - tool: structured
        args: {city: Porto}
        capture:
          city: "$.city"
          temp: temperature
    assert:
      tool: echo
      args: {message: "{{city}} {{ temp }}"}
      expect:
        equals: "Porto 22.5"
  - name: a wrong sum fails
    assert:
      tool: add
      args: {a: 2, b: 2}
      expect:
        contains: ["5"]
        not_error: true
  - name: a failing tool reports isError
    assert:
      tool: fail
      args: {message: "disk full"}
      expect:
        is_error: true
        contains: ["disk full"]
  - name: not ready yet
    skip: "waits for a new tool"
    assert:
      tool: echo
      args: {message: x}
  - name: prompts are listed
    assert_prompts:
      list: {}
      expect:
        json_path:
          "$.prompts[0].name": simple
        contains: ["greeting", "with_resource"]
  - name: a prompt renders its arguments
    assert_prompts:
      get: {name: greeting, arguments: {name: Ada, style: formal}}
      expect:
        in_order: ["formal greeting", "Ada"]
  - name: the static text resource reads back
    assert_resources:
      read: "mcpcheck://static/text"
      expect:
        contains: ["It never changes."]
  - name: no update arrives for an unchanged resource
    assert_resources:
      read: "mcpcheck://static/text"
      subscribe: "mcpcheck://static/text"
      unsubscribe: "mcpcheck://static/text"
      expect_notification: false
      expect:
        not_empty: true
        not_methods: ["notifications/resources/updated"]
  - name: completion proposes prompt argument values
    assert_completion:
      ref: {type: ref/prompt, name: greeting}
      argument: {name: style, value: "f"}
      expect:
        contains: ["formal"]
        not_contains: ["pirate"]
  - name: progress notifications carry the caller's token
    assert:
      tool: progress
      args: {steps: 4, delay_ms: 5}
      capture_progress: true
      expect:
        contains: ["completed 4 steps"]
        min_progress: 4
  - name: a long operation notifies progress
    assert_notifications:
      tool: progress
      args: {steps: 3, delay_ms: 5}
      expect:
        min_count: 3
        methods: ["notifications/progress"]
        not_methods: ["notifications/cancelled"]
        contains_data: ["step 3 of 3"]
  - name: too few progress notifications fail
    assert_notifications:
      tool: progress
      args: {steps: 2, delay_ms: 5}
      expect:
        min_count: 5
  - name: sampling returns the client's answer
    assert_sampling:
      tool: sample
      args: {prompt: "Capital of France?"}
      mock_text: "Paris"
      mock_model: mock-model
      expect:
        not_error: true
        equals: "Paris"
  - name: roots are answered from the suite
    assert:
      tool: roots
      expect:
        json_path:
          "$[0].uri": "file:///tmp/project"
          "$[0].name": project
  - name: elicitation gets the preset form values
    assert:
      tool: elicit
      args: {message: "The answer?"}
      expect:
        json_path:
          "$.action": accept
          "$.content.answer": "42"
  - name: an agent's calls follow the expected order
    trace:
      - tool: lorem
        args: {words: 3}
      - tool: echo
        args: {message: done}
    trajectory:
      - type: order
        tools: [lorem, echo]
      - type: absence
        tools: [fail]
  - name: file checks read the fixture
    assert:
      tool: echo
      args: {message: hi}
      expect:
        file_contains:
          "{{fixture}}/notes.txt": "hello notes"
        file_not_exists: ["{{fixture}}/missing.txt"]
        file_unchanged: ["{{fixture}}/notes.txt"]
  - name: a file check that does not hold fails
    assert:
      tool: echo
      args: {message: hi}
      expect:
        file_not_contains:
          "{{fixture}}/notes.txt": "hello"
  - name: the audit log next to the suite holds the calls in order
    audit_log: audit.jsonl
    trajectory:
      - type: order
        tools: [lorem, echo]
      - type: args_contain
        tool: echo
        args: {message: done}
  - name: log messages at or above the set level arrive
    assert_logging:
      set_level: info
      tool: log
      args: {level: warning, message: "low disk"}
      expect:
        min_messages: 1
        contains_level: [warning]
        contains_data: ["low disk"]
`;

describe('runSuite against mcpcheck serve', () => {
  const file = join(dir, 'serve.yaml');
  let client;
  let cli;
  const fixture = join(dir, 'fixture');
  before(async () => {
    writeFileSync(file, SERVE_SUITE);
    mkdirSync(fixture);
    writeFileSync(join(fixture, 'notes.txt'), 'hello notes\n');
    writeFileSync(
      join(dir, 'audit.jsonl'),
      '{"tool": "lorem", "args": {"words": 3}}\n{"tool": "echo", "args": {"message": "done"}}\n',
    );
    [client, cli] = await Promise.all([
      connect(bin, ['serve']),
      cliRun(['--server', `${bin} serve`, '--fixture', fixture, '--suite', file]),
    ]);
  });

  test('the same verdicts as `mcpcheck run`, test by test and check by check', async () => {
    const doc = await runSuite(SERVE_SUITE, client, { file, fixture });
    assert.deepEqual(verdicts(doc), verdicts(cli));
    const statuses = doc.tests.map((t) => t.status);
    assert.equal(statuses.length, 20);
    assert.deepEqual(
      { pass: statuses.filter((s) => s === 'pass').length, fail: statuses.filter((s) => s === 'fail').length, skip: statuses.filter((s) => s === 'skip').length },
      { pass: 16, fail: 3, skip: 1 },
    );
    // The document is the CLI's, plus `ok`.
    assert.equal(doc.version, 1);
    assert.deepEqual(doc.summary, { ...cli.summary, duration_ms: doc.summary.duration_ms });
    assert.equal(doc.ok, false);
    assert.equal(doc.tests[0].ok, true);
    // What only the CLI can say: the server it started (`server`), and that
    // a test that failed on a shared server was run again on a fresh one (a
    // warning); runSuite is given one client.
    const cliOnly = new Set(['server', 'warnings']);
    assert.deepEqual(Object.keys(doc.tests[1]), [...Object.keys(cli.tests[1]).filter((k) => !cliOnly.has(k)), 'ok']);
    // A result's text is the CLI's, for formatResult.
    assert.match(formatResult(doc.tests[1]), /expected text to contain '5'/);
  });

  test('the client is left as it was: its own handlers and transport back', async () => {
    const onmessage = client.transport.onmessage;
    const send = client.transport.send;
    await runSuite(
      { yaml: 'server: {command: x}\ntests:\n  - name: echo\n    assert:\n      tool: echo\n      args: {message: hi}\n', file: 'x.yaml' },
      client,
    );
    assert.equal(client.transport.onmessage, onmessage);
    assert.equal(client.transport.send, send);
    assert.equal(Object.prototype.hasOwnProperty.call(client.transport, 'send'), false);
  });

  test('a suite for runSuite needs no server block: the client is the server', async () => {
    const doc = await runSuite(
      'tests:\n  - name: sum\n    assert: {tool: add, args: {a: 2, b: 3}, expect: {equals: "5"}}\n',
      client,
    );
    assert.deepEqual(doc.tests.map((t) => [t.name, t.status]), [['sum', 'pass']]);
  });

  test('a suite given as an object, or as a list of tests, runs the same', async () => {
    const suite = {
      server: { command: 'mcpcheck' },
      tests: [
        { name: 'sum', assert: { tool: 'add', args: { a: 2, b: 3 }, expect: { equals: '5' } } },
        { name: 'wrong', assert: { tool: 'add', args: { a: 2, b: 3 }, expect: { equals: '6' } } },
      ],
    };
    const doc = await runSuite(suite, client);
    assert.deepEqual(doc.tests.map((t) => [t.name, t.status]), [['sum', 'pass'], ['wrong', 'fail']]);
  });

  test('a timeout ends the test as an error that says which timeout ran out', async () => {
    const doc = await runSuite(
      'name: slow\nserver: {command: x}\nassert:\n  tool: slow\n  args: {ms: 2000}\ntimeout: 200ms\n',
      client,
    );
    assert.equal(doc.tests[0].status, 'error');
    assert.match(doc.tests[0].message, /no answer to tools\/call in time[\s\S]*timeout of 200 ms ran out/);
  });

  test('a JSON-RPC error reaches the checks as the error it was', async () => {
    const doc = await runSuite(
      'name: unknown\nserver: {command: x}\nassert_prompts:\n  get: {name: no-such-prompt}\n  expect:\n    - target: error.code\n      matcher: {exact: -32602}\n',
      client,
    );
    assert.equal(doc.tests[0].status, 'pass', formatResult(doc.tests[0]));
  });
});

describe('runSuite against server-everything', () => {
  const entry = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';
  // The files of everything/ run on one client, one after another; each
  // file of notifications/ on a client of its own (the server's simulated
  // updates, once switched on, stay on for its session).
  const files = ['everything', 'notifications'].flatMap((d) =>
    readdirSync(join(servers, d))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => `${d}/${f}`),
  );
  // pass_env.yaml reads a variable its `server.env` gives the server: the
  // client's server is started with it, as the CLI starts its own.
  const env = { MCPCHECK_DEMO_VALUE: 'forty-two' };
  let cli;
  let mine;
  before(async () => {
    const fromCli = cliRun(['--suite', 'everything', '--suite', 'notifications'], servers);
    const run = async (group) => {
      const client = await connect(process.execPath, [entry, 'stdio'], { cwd: servers, env });
      const tests = [];
      for (const file of group) {
        const doc = await runSuite({ yaml: readFileSync(join(servers, file), 'utf8'), file }, client);
        tests.push(...doc.tests);
      }
      return tests;
    };
    const groups = [files.filter((f) => f.startsWith('everything/')), ...files.filter((f) => !f.startsWith('everything/')).map((f) => [f])];
    mine = { tests: (await Promise.all(groups.map(run))).flat() };
    cli = await fromCli;
  });

  test('every file of tests/node-servers gets the verdicts `mcpcheck run` gives it', () => {
    assert.ok(files.length >= 30, `only ${files.length} files`);
    assert.deepEqual(verdicts(mine), verdicts(cli));
    const count = (s) => mine.tests.filter((t) => t.status === s).length;
    assert.ok(count('pass') >= 15 && count('fail') >= 10 && count('skip') === 1, JSON.stringify(verdicts(mine)));
  });
});

test('any object with request: results, JSON-RPC errors, and notifications through fallbackNotificationHandler and onprogress', async () => {
  const client = {
    fallbackNotificationHandler: undefined,
    async request({ method, params }, schema, options) {
      assert.deepEqual(schema.safeParse({ a: 1 }), { success: true, data: { a: 1 } });
      if (method === 'tools/call') {
        options.onprogress({ progress: 1, total: 1 });
        await this.fallbackNotificationHandler({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } });
        return { content: [{ type: 'text', text: params.arguments.message }] };
      }
      const e = new Error('MCP error -32602: no such prompt');
      e.code = -32602;
      throw e;
    },
  };
  const doc = await runSuite(
    `server: {command: x}
tests:
  - name: echo with notifications
    assert_notifications:
      tool: echo
      args: {message: hi}
      expect:
        min_count: 2
        methods: [notifications/progress, notifications/message]
        contains_data: [hello]
  - name: a JSON-RPC error
    assert_prompts:
      get: {name: nope}
      expect:
        - target: error.message
          matcher: {exact: no such prompt}
        - target: error.code
          matcher: {exact: -32602}
`,
    client,
  );
  assert.deepEqual(doc.tests.map((t) => t.status), ['pass', 'pass'], doc.tests.map(formatResult).join('\n'));
  assert.equal(client.fallbackNotificationHandler, undefined);
});

test('a client that ignores the abort signal is bounded by the test timeout', async () => {
  let calls = 0;
  const client = {
    // Never settles, whatever the signal says.
    request: () => {
      calls++;
      return new Promise(() => {});
    },
  };
  const started = performance.now();
  const doc = await runSuite('name: t\nassert: {tool: slow, expect: {not_error: true}}\n', client, { timeoutMs: 300 });
  const took = performance.now() - started;
  assert.equal(calls, 1);
  assert.equal(doc.tests[0].status, 'error');
  assert.match(doc.tests[0].message, /no answer to tools\/call in time[\s\S]*timeout of 300 ms/);
  assert.ok(took < 5000, `took ${Math.round(took)} ms`);
});

test('a client answering null, a string or nothing gets a protocol error, not a verdict', async () => {
  for (const [answer, says] of [
    [null, 'its `result` is null, not an object'],
    ['hi', 'its `result` is a string, not an object'],
    [undefined, 'its `result` is null, not an object'],
    [42, 'its `result` is a number, not an object'],
  ]) {
    const doc = await runSuite('name: t\nassert: {tool: echo, expect: {not_error: true, not_contains: [x]}}\n', { request: async () => answer });
    assert.equal(doc.tests[0].status, 'error', `${answer}: ${formatResult(doc.tests[0])}`);
    assert.ok(doc.tests[0].message.includes(`protocol error: the answer to tools/call is not a JSON-RPC response: ${says}`), doc.tests[0].message);
  }
});

test('two runs on one client at once: the second is refused, naming the first', async () => {
  let release;
  const client = { request: () => new Promise((resolve) => (release = () => resolve({ content: [] }))) };
  const first = runSuite('name: first\nassert: {tool: a, expect: {not_error: true}}\n', client, { file: 'a.yaml' });
  await new Promise((r) => setTimeout(r, 20));
  await assert.rejects(
    runSuite('name: second\nassert: {tool: b}\n', client),
    (e) => e instanceof McpcheckError && /already running the test `first` of a\.yaml.*one at a time/.test(e.message),
  );
  release();
  assert.equal((await first).tests[0].status, 'pass');
  // Once the first is done, the client is free again.
  const again = runSuite('name: third\nassert: {tool: c, expect: {not_error: true}}\n', client);
  await new Promise((r) => setTimeout(r, 20));
  release();
  assert.equal((await again).tests[0].status, 'pass');
});

test('a test without a server block answers sampling from its mock; a client that cannot take the handler ends the test with why', async () => {
  const SAMPLING = 'name: sampled\nassert_sampling:\n  tool: sample\n  args: {prompt: "Capital of France?"}\n  mock_text: Paris\n  expect: {equals: Paris}\n';
  const yes = await connect(bin, ['serve']);
  const ok = await runSuite(SAMPLING, yes);
  assert.equal(ok.tests[0].status, 'pass', formatResult(ok.tests[0]));
  // A client that did not declare sampling: the SDK refuses the handler.
  const no = new Client({ name: 'no-sampling', version: '1.0.0' }, { capabilities: {} });
  await no.connect(new StdioClientTransport({ command: bin, args: ['serve'], stderr: 'ignore' }));
  clients.push(no);
  const refused = await runSuite(SAMPLING, no);
  assert.equal(refused.tests[0].status, 'error');
  assert.match(refused.tests[0].message, /sampling\/createMessage requests are answered from this test's mocks, but the client took no handler for them \(Client does not support sampling capability.*\); create the client with the `sampling` capability/);
  // A test of the same run without a mock to answer runs as usual.
  const plain = await runSuite('name: plain\nassert: {tool: echo, args: {message: hi}, expect: {equals: hi}}\n', no);
  assert.equal(plain.tests[0].status, 'pass', formatResult(plain.tests[0]));
});

describe('runSuite refuses what it cannot run, with a McpcheckError', () => {
  const client = { request: async () => ({}) };
  const SUITE = 'name: x\nserver: {command: x}\nassert:\n  tool: echo\n';
  const refused = (code, pattern) => (e) => e instanceof McpcheckError && e.code === code && pattern.test(e.message);

  test('a number as the suite', async () => {
    await assert.rejects(runSuite(42, client), refused('MCPCHECK_INVALID_ARGUMENT', /the suite must be YAML text.*not a number/));
  });

  test('a client without request', async () => {
    await assert.rejects(runSuite(SUITE, {}), refused('MCPCHECK_INVALID_ARGUMENT', /client must be a connected MCP client/));
    await assert.rejects(runSuite(SUITE, undefined), refused('MCPCHECK_INVALID_ARGUMENT', /not undefined/));
  });

  test('a suite with errors, with its diagnostics', async () => {
    await assert.rejects(runSuite('name: x\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {contain: [a]}\n', client), (e) => {
      assert.ok(e instanceof McpcheckError);
      assert.equal(e.code, 'MCPCHECK_INVALID_INPUT');
      assert.ok(e.diagnostics.length > 0);
      assert.match(e.rendered, /contain/);
      return true;
    });
  });

  test('a suite with hooks, which are shell commands', async () => {
    const yaml = 'hooks:\n  beforeAll: ["echo hi"]\nserver: {command: x}\ntests:\n  - name: t\n    assert: {tool: echo}\n';
    await assert.rejects(runSuite(yaml, client), refused('MCPCHECK_INVALID_INPUT', /has `hooks`.*mcpcheck run/));
  });

  test('an unknown or wrong option', async () => {
    await assert.rejects(runSuite(SUITE, client, { timeout: 5 }), refused('MCPCHECK_INVALID_OPTION', /unknown option `timeout`/));
    await assert.rejects(runSuite(SUITE, client, { timeoutMs: 'x' }), refused('MCPCHECK_INVALID_OPTION', /timeoutMs/));
    await assert.rejects(runSuite(SUITE, client, { today: 'soon' }), refused('MCPCHECK_INVALID_OPTION', /today/));
  });

  test('defineMcpcheckTests without the framework', () => {
    assert.throws(() => defineMcpcheckTests(SUITE, undefined, client), refused('MCPCHECK_INVALID_ARGUMENT', /\{test, describe\?\}/));
  });
});

// defineMcpcheckTests under node:test: one test per suite test, the skipped
// one skipped (these tests pass, so they are registered here for real).
let shared;
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
  - name: later
    skip: not yet
    assert:
      tool: echo
  - name: the sum is right
    assert:
      tool: add
      args: {a: 20, b: 22}
      expect:
        equals: "42"
`,
  { test, describe },
  async () => (shared ??= await connect(bin, ['serve'])),
  { file: 'helper.yaml' },
);
