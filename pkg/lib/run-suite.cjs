// runSuite and defineMcpcheckTests: run a suite's tests on the caller's own
// MCP client (CommonJS; the ES module entry re-exports these).
//
// The caller owns the transport: an `@modelcontextprotocol/sdk` Client
// already connected to its server, or any object whose `request(request,
// resultSchema, options)` behaves like the SDK's. The WebAssembly core's
// test runner (SuiteRunner) decides everything else, step by step, exactly as
// `mcpcheck run` does: which requests go out and with what, how an answer
// ends a test, how long to listen for notifications, which files to read,
// what the client answers when the server asks, and the verdict. This file
// only carries each step out:
//
//   {type:'send', method, params?, kind}    → the request, on the client
//   {type:'readFiles', files:[[key, path]]} → the files' text (or null)
//   {type:'readTrace', path}                → an audit log's text
//   {type:'wait', ms} | {type:'wait', resourceUpdated: uri}
//                                           → the notifications meanwhile
//   {type:'done', result}                   → the test's result
//
// A step it cannot carry out (a file that cannot be read safely, a server
// request the test's mocks answer that the client took no handler for) is
// answered with {unreadable: why}: the test's error.
'use strict';

const { McpcheckError, formatResult, kindOf } = require('./support.cjs');

/** `mcpcheck run --timeout`'s default: a test without its own `timeout`. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** The largest file a file check or an audit log reads (as the CLI). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** The server requests a test's mocks answer, and the client capability
 * each needs. */
const SERVER_REQUESTS = [
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
  ['roots/list', 'roots'],
];

/** The request schema `setRequestHandler` takes for `method`: the SDK reads
 * the method from the schema's `shape.method` literal (Zod 3's form) and
 * parses each request with `safeParse`; the SDK validates sampling and
 * elicitation requests and answers with its own schemas as well. Made here
 * rather than imported from the SDK, so no module is loaded at run time (a
 * dynamic `import()` is refused by Jest's CommonJS runtime). */
function requestSchema(method) {
  const literal = { value: method, _def: { typeName: 'ZodLiteral', value: method } };
  return Object.freeze({
    shape: { method: literal },
    _def: { typeName: 'ZodObject', shape: () => ({ method: literal }) },
    safeParse: (data) => ({ success: true, data }),
    parse: (data) => data,
  });
}

/** A result schema the SDK's `Client.request` accepts (it calls Zod 3's
 * `safeParse`/`parse` on schemas without `_zod`) that passes every result
 * through unchanged, so the core sees the server's answer as it was. */
const ANY_RESULT = Object.freeze({
  safeParse: (data) => ({ success: true, data }),
  parse: (data) => data,
});

const argumentError = (message) => new McpcheckError(message, { code: 'MCPCHECK_INVALID_ARGUMENT' });
const optionError = (message) => new McpcheckError(message, { code: 'MCPCHECK_INVALID_OPTION' });

const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The suite as text and its file name. */
function suiteSource(suite, file) {
  if (typeof suite === 'string') return { yaml: suite, file };
  if (suite instanceof Uint8Array) {
    try {
      return { yaml: new TextDecoder('utf-8', { fatal: true }).decode(suite), file };
    } catch {
      throw argumentError('the suite is bytes that are not UTF-8 text');
    }
  }
  if (Array.isArray(suite)) return { yaml: JSON.stringify({ tests: suite }), file };
  if (suite !== null && typeof suite === 'object') {
    if ('yaml' in suite) {
      if (typeof suite.yaml !== 'string') throw argumentError(`the suite's \`yaml\` must be text, not ${kindOf(suite.yaml)}`);
      if (suite.file !== undefined && typeof suite.file !== 'string') {
        throw argumentError(`the suite's \`file\` must be a string, not ${kindOf(suite.file)}`);
      }
      return { yaml: suite.yaml, file: suite.file ?? file };
    }
    // A suite in its object shape: YAML reads JSON.
    return { yaml: JSON.stringify(suite), file };
  }
  throw argumentError(
    `the suite must be YAML text, {yaml, file}, a list of tests or an object in the suite's shape, not ${kindOf(suite)}`,
  );
}

function checkClient(client) {
  if (client === null || typeof client !== 'object' || typeof client.request !== 'function') {
    throw argumentError(
      `the client must be a connected MCP client (an @modelcontextprotocol/sdk Client, or any object with a request method), not ${
        client !== null && typeof client === 'object' ? 'an object without a request method' : kindOf(client)
      }`,
    );
  }
}

const RUN_OPTIONS = ['file', 'timeoutMs', 'settleMs', 'env', 'vars', 'fixture', 'today'];

/** The run's settings from the options, checked. */
function settingsOf(options, defaultEnv) {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) throw optionError(`the options must be an object, not ${kindOf(options)}`);
  for (const key of Object.keys(options)) {
    if (!RUN_OPTIONS.includes(key)) throw optionError(`unknown option \`${key}\` (expected ${RUN_OPTIONS.join(', ')})`);
  }
  const ms = (key, fallback) => {
    const v = options[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw optionError(`\`${key}\` must be a number of milliseconds`);
    return v;
  };
  if (options.file !== undefined && typeof options.file !== 'string') throw optionError('`file` must be a string');
  // Without `settleMs` the core's own default applies (mcpcheck run's --settle).
  const core = { env: options.env ?? defaultEnv() };
  if (options.settleMs !== undefined) core.defaultSettleMs = ms('settleMs');
  for (const key of ['vars', 'fixture', 'today']) if (options[key] !== undefined) core[key] = options[key];
  return { file: options.file ?? 'suite.yaml', timeoutMs: ms('timeoutMs', DEFAULT_TIMEOUT_MS), core };
}

/** What the current process's environment gives `${NAME}` (strings only). */
function processEnv() {
  const env = {};
  if (typeof process === 'object' && process.env) {
    for (const [k, v] of Object.entries(process.env)) if (typeof v === 'string') env[k] = v;
  }
  return env;
}

/** Replace `obj[key]` for the run; the returned function puts it back. */
function patch(obj, key, value) {
  const own = Object.prototype.hasOwnProperty.call(obj, key);
  const before = obj[key];
  obj[key] = value;
  return () => {
    if (own) obj[key] = before;
    else delete obj[key];
  };
}

/**
 * The client during a run: what it sends and receives. On an SDK Client the
 * transport underneath is watched (every server notification and the raw
 * answer to each request, as they were on the wire); on another client, the
 * notifications reach `fallbackNotificationHandler` if it has one.
 */
class Wire {
  constructor(client) {
    this.client = client;
    this.undo = [];
    this.buffer = [];
    this.listeners = new Set();
    this.pending = null;
    this.raw = false;
    const transport = client.transport;
    if (transport && typeof transport.onmessage === 'function' && typeof transport.send === 'function') {
      this.raw = true;
      const onmessage = transport.onmessage;
      const send = transport.send;
      this.undo.push(
        patch(transport, 'onmessage', (message, extra) => {
          this.incoming(message);
          return onmessage.call(transport, message, extra);
        }),
        patch(transport, 'send', (message, ...rest) => {
          this.outgoing(message);
          return send.call(transport, message, ...rest);
        }),
      );
    } else if ('fallbackNotificationHandler' in client) {
      const before = client.fallbackNotificationHandler;
      this.undo.push(
        patch(client, 'fallbackNotificationHandler', async (notification) => {
          this.notify(notification);
          if (typeof before === 'function') return before.call(client, notification);
        }),
      );
    }
  }

  incoming(message) {
    if (message === null || typeof message !== 'object') return;
    if (typeof message.method === 'string') {
      if (message.id === undefined) this.notify(message);
    } else if (this.pending && this.pending.id !== undefined && message.id === this.pending.id) {
      this.pending.response = message;
    }
  }

  outgoing(message) {
    const p = this.pending;
    if (p && p.id === undefined && message && message.method === p.method && message.id !== undefined) {
      p.id = message.id;
      p.progressToken = message.params?._meta?.progressToken;
    }
  }

  notify(notification) {
    this.buffer.push(notification);
    for (const listener of this.listeners) listener(notification);
  }

  take() {
    const taken = this.buffer;
    this.buffer = [];
    return taken;
  }

  /** A new test: notifications count from its block's first request. */
  begin() {
    this.buffer = [];
    this.seen = [];
    this.inBlock = false;
  }

  /** Send one request and wait for its answer until `deadline`. The call
   * is raced against the deadline, so a client that ignores the abort
   * signal cannot hold the test past its timeout. */
  async send(step, deadline, timeoutMs) {
    const { method } = step;
    if (step.kind === 'setup' || !this.inBlock) {
      this.buffer = [];
      this.seen = [];
      this.inBlock = step.kind !== 'setup';
    }
    const began = now();
    const controller = new AbortController();
    const pending = (this.pending = { method, id: undefined, response: undefined, progressToken: undefined });
    const progress = [];
    const request = step.params === undefined ? { method } : { method, params: step.params };
    const call = new Promise((resolve) => {
      resolve(
        this.client.request(request, ANY_RESULT, {
          signal: controller.signal,
          // The SDK's own timeout stays out of the way of the test's.
          timeout: Math.max(1, deadline - began) + 1000,
          onprogress: (p) => progress.push(p),
        }),
      );
    }).then(
      (value) => ({ value }),
      (thrown) => ({ thrown, failed: true }),
    );
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve({ timedOut: true }), Math.max(0, deadline - began));
    });
    const { value, thrown, failed = false, timedOut = false } = await Promise.race([call, late]);
    clearTimeout(timer);
    this.pending = null;
    if (timedOut) controller.abort(new Error(`no answer to ${method} in time`));
    const reply = { durationMs: Math.round(now() - began) };
    if (pending.progressToken !== undefined) reply.progressToken = pending.progressToken;
    const raw = pending.response;
    if (timedOut) reply.failure = timeoutMessage(`no answer to ${method} in time`, timeoutMs);
    else if (raw && raw.error !== undefined) reply.error = raw.error;
    else if (raw && 'result' in raw) reply.result = raw.result;
    // Whatever the client resolved to, `null` and `undefined` included: the
    // core decides whether it is a result.
    else if (!failed) reply.result = value === undefined ? null : value;
    else if (!this.raw && Number.isInteger(thrown?.code) && thrown.code !== -32000 && thrown.code !== -32001) {
      // An SDK McpError made from the server's JSON-RPC error.
      const prefix = `MCP error ${thrown.code}: `;
      const message = String(thrown.message ?? '');
      reply.error = { code: thrown.code, message: message.startsWith(prefix) ? message.slice(prefix.length) : message };
      if (thrown.data !== undefined) reply.error.data = thrown.data;
    } else {
      reply.failure = `${method} failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
    }
    if (!this.raw) {
      // Progress reaches a client without a watched transport only through
      // `onprogress`.
      for (const p of progress) {
        this.notify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: reply.progressToken, ...p } });
      }
    }
    reply.notifications = this.take();
    this.seen.push(...reply.notifications);
    return reply;
  }

  /** Keep listening: `ms`, or until the resource update arrives. */
  async wait(step, deadline) {
    if (step.resourceUpdated === undefined) {
      await sleep(Math.min(step.ms ?? 0, deadline - now()));
      return this.take();
    }
    const uri = step.resourceUpdated;
    const match = (n) => n.method === 'notifications/resources/updated' && n.params?.uri === uri;
    if (!this.seen.some(match) && !this.buffer.some(match)) {
      await new Promise((resolve) => {
        let timer;
        const listener = (n) => match(n) && done();
        const done = () => {
          clearTimeout(timer);
          this.listeners.delete(listener);
          resolve();
        };
        this.listeners.add(listener);
        timer = setTimeout(done, Math.max(0, deadline - now()));
      });
    }
    return this.take();
  }

  restore() {
    for (const undo of this.undo.reverse()) undo();
    this.undo = [];
  }
}

function timeoutMessage(message, timeoutMs) {
  return `${message}\n(the test's timeout of ${timeoutMs} ms ran out: raise it with \`timeout:\` in the test or the timeoutMs option)`;
}

/**
 * Answer the server's sampling, elicitation and roots requests from the
 * current test's mocks, for as long as the run lasts. Returns `restore`,
 * which puts the client's own handlers back, and `refused`: for each method
 * the client took no handler for (the SDK refuses one for a capability the
 * client did not declare), the client's reason. A test whose mocks answer
 * such a method ends as `error` with that reason ({@link unanswered}),
 * instead of the server's request failing with "Method not found".
 */
function answerServerRequests(client, runner) {
  const refused = new Map();
  if (typeof client.setRequestHandler !== 'function') return { restore: () => {}, refused };
  const handlers = client._requestHandlers instanceof Map ? client._requestHandlers : null;
  const undo = [];
  for (const [method, capability] of SERVER_REQUESTS) {
    const before = handlers?.get(method);
    try {
      client.setRequestHandler(requestSchema(method), async (request) => runner.answer(method, request.params));
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      refused.set(
        method,
        `the server's ${method} requests are answered from this test's mocks, but the client took no handler for them (${why}); create the client with the \`${capability}\` capability: new Client(info, { capabilities: { ${capability}: {} } })`,
      );
      continue;
    }
    undo.push(() => {
      if (before && handlers) handlers.set(method, before);
      else if (typeof client.removeRequestHandler === 'function') client.removeRequestHandler(method);
    });
  }
  return { restore: () => undo.forEach((u) => u()), refused };
}

/** Why the test just started cannot be run on this client: its mocks
 * answer a server request the client took no handler for. */
function unanswered(runner, refused) {
  for (const [method, why] of refused) {
    try {
      runner.answer(method, {});
    } catch {
      // This test has no answer for it: the server's request fails as it
      // would in `mcpcheck run`.
      continue;
    }
    return why;
  }
  return null;
}

/** The clients a run is using: tests that share a client run one at a
 * time, or their notifications and server requests would mix. */
const busy = new WeakMap();

/**
 * Make the functions over one WebAssembly instance: `SuiteRunner` is its
 * class, `files` reads files for checks and audit logs (null: none).
 */
function make({ SuiteRunner, files, defaultEnv = processEnv }) {
  function load(suite, options) {
    const settings = settingsOf(options, defaultEnv);
    const source = suiteSource(suite, settings.file);
    settings.file = source.file;
    const runner = new SuiteRunner(source.yaml, source.file, settings.core);
    return { runner, settings, tests: runner.tests(), yaml: source.yaml };
  }

  /** Read the files of a `readFiles` step. */
  function readFiles(list) {
    const out = {};
    for (const [key, path] of list) {
      if (!files) throw new Unreadable(`${path}: file checks cannot read files here`);
      out[key] = files.read(path);
    }
    return { files: out };
  }

  function readTrace(path, suiteFile) {
    if (!files) throw new Unreadable(`cannot read the audit log ${path} here`);
    const real = files.near(path, suiteFile);
    return { trace: { file: real, text: files.read(real) } };
  }

  /** One test, from its first step to its result. */
  async function runTest(runner, info, wire, settings, refused) {
    const started = now();
    const timeoutMs = info.timeoutMs ?? settings.timeoutMs;
    const deadline = started + timeoutMs;
    wire.begin();
    let step = runner.start(info.index);
    const cannot = step.type === 'done' ? null : unanswered(runner, refused);
    if (cannot) step = runner.next({ unreadable: cannot }, now() - started);
    while (step.type !== 'done') {
      let input;
      try {
        switch (step.type) {
          case 'send':
            input = await wire.send(step, deadline, timeoutMs);
            break;
          case 'readFiles':
            input = readFiles(step.files);
            break;
          case 'readTrace':
            input = readTrace(step.path, settings.file);
            break;
          case 'wait':
            input = { waited: await wire.wait(step, deadline) };
            break;
          default:
            throw new McpcheckError(`the test runner asked for an unknown step: ${JSON.stringify(step)}`);
        }
      } catch (e) {
        if (!(e instanceof Unreadable)) throw e;
        input = { unreadable: e.message };
      }
      step = runner.next(input, now() - started);
    }
    return step.result;
  }

  /** Run `infos` on `client`: the tap and the server-request handlers are
   * installed for the run and removed after it. A client another run is
   * using is refused. */
  async function runOn(runner, infos, client, settings) {
    const other = busy.get(client);
    if (other) {
      throw argumentError(
        `the client is already running ${other} (tests that share one client must run one at a time: their notifications and the server's requests would mix); do not run them concurrently (no test.concurrent), or give each concurrent test a client of its own`,
      );
    }
    busy.set(client, infos.length === 1 ? `the test \`${infos[0].name}\` of ${settings.file}` : `the suite ${settings.file}`);
    const wire = new Wire(client);
    let restoreHandlers = () => {};
    try {
      const handlers = answerServerRequests(client, runner);
      restoreHandlers = handlers.restore;
      const results = [];
      for (const info of infos) results.push(await runTest(runner, info, wire, settings, handlers.refused));
      return results;
    } finally {
      restoreHandlers();
      wire.restore();
      busy.delete(client);
    }
  }

  async function runSuite(suite, client, options) {
    const { runner, settings, tests } = load(suite, options);
    checkClient(client);
    const started = now();
    await runOn(runner, tests, client, settings);
    return runner.results(Math.round(now() - started));
  }

  function defineMcpcheckTests(suite, framework, getClient, options) {
    if (framework === null || typeof framework !== 'object' || typeof framework.test !== 'function') {
      throw argumentError(
        `defineMcpcheckTests needs the test framework's functions as {test, describe?} (e.g. from node:test, vitest or @jest/globals), not ${kindOf(framework)}`,
      );
    }
    if (typeof getClient !== 'function') {
      checkClient(getClient);
      const client = getClient;
      getClient = () => client;
    }
    const { settings, tests, yaml } = load(suite, options);
    const { test, describe } = framework;
    const lines = yaml.split('\n');
    const register = () => {
      for (const info of tests) {
        const at = where(settings.file, info.line, lines);
        if (info.skip !== null && typeof test.skip === 'function') {
          callAt(at, test.skip, [`${info.name} (${info.skip})`, () => {}], test);
          continue;
        }
        callAt(
          at,
          test,
          [
            info.name,
            async () => {
              const client = await getClient();
              checkClient(client);
              // A runner of its own: a framework may run tests concurrently.
              const { runner } = load(suite, options);
              const [result] = await runOn(runner, [info], client, settings);
              if (result.status === 'pass' || result.status === 'skip') return;
              throw testFailure(result, at);
            },
            // Vitest, Jest and bun take the framework's timeout third
            // (node:test has none by default): the test's own, and time to
            // connect.
            (info.timeoutMs ?? settings.timeoutMs) + 10_000,
          ],
        );
      }
    };
    if (typeof describe === 'function') callAt(where(settings.file, 1, lines), describe, [settings.file, register], framework);
    else register();
  }

  return { runSuite, defineMcpcheckTests };
}

/** A file that cannot be read safely: the test's error. */
class Unreadable extends Error {}

/**
 * A new Error. Under bun, made by code compiled at the suite test's place
 * (with a stack of that one frame): bun locates a failure by where its
 * error was made and ignores an assigned `stack`; Node's frameworks read the
 * `stack` text, which the caller sets.
 */
function errorAt(message, at) {
  if (typeof process !== 'object' || !process.versions?.bun) return new Error(message);
  const make = compiledAt(require('node:vm'), at, 'new Error(f)');
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  try {
    return make(message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Call `fn(...args)` (a framework's `test`) from code compiled at the suite
 * test's place in its YAML file, when that file is there to show: a
 * framework that records where a test was registered from its caller's
 * frame (node:test's reported location, bun's) records the suite test's
 * file and line, not this file's.
 */
function callAt(at, fn, args, self) {
  let vm;
  try {
    if (!require('node:fs').statSync(at.file).isFile()) return fn.apply(self, args);
    vm = require('node:vm');
  } catch {
    return fn.apply(self, args);
  }
  // Bound, so the compiled code is the frame that calls `fn`.
  return compiledAt(vm, at, 'f()')(fn.bind(self, ...args));
}

/** `(f) => EXPRESSION` compiled so that EXPRESSION starts at `at`'s file,
 * line and column. */
function compiledAt(vm, at, expression) {
  const code = `(f) =>\n${' '.repeat(Math.max(0, at.column - 1))}${expression}`;
  return vm.runInThisContext(code, { filename: at.file, lineOffset: at.line - 2 });
}

/** Where a suite test is written: the file (absolute when it can be made
 * so), its line, and the column its first key starts at. */
function where(file, line, lines) {
  const text = lines[line - 1] ?? '';
  const column = (text.match(/^[\s-]*/)?.[0].length ?? 0) + 1;
  return { file: locate(file), line, column };
}

/** `file` as an absolute path in Node (frameworks read the frame's file to
 * show its lines), as given elsewhere. */
function locate(file) {
  if (typeof process !== 'object' || typeof process.cwd !== 'function') return file;
  try {
    return require('node:path').resolve(file);
  } catch {
    return file;
  }
}

/**
 * The error a framework test fails with: the text `mcpcheck run` prints for
 * the test, and a stack of one frame, the test in its YAML file. The
 * frameworks locate a failure by its stack's first frame outside
 * node_modules (the code frame Vitest, Jest and bun print; the location
 * node:test reports), so the failure points at the suite test, not at this
 * file.
 */
function testFailure(result, at) {
  const error = errorAt(formatResult(result), at);
  error.name = 'McpcheckTestFailure';
  error.result = result;
  error.stack = `${error.name}: ${error.message}\n    at ${at.file}:${at.line}:${at.column}`;
  return error;
}

/** Node's file access for file checks and audit logs, as `mcpcheck run`. */
function nodeFiles(fs, path) {
  return {
    read(p) {
      let stat;
      try {
        stat = fs.statSync(p);
      } catch {
        return null;
      }
      if (!stat.isFile() && !stat.isDirectory()) {
        throw new Unreadable(
          `${p} is not a regular file (a pipe, socket or device); file checks and audit logs read regular files only`,
        );
      }
      if (stat.size > MAX_FILE_BYTES) throw new Unreadable(`${p} is larger than 64 MiB, the most a file check reads`);
      let bytes;
      try {
        bytes = fs.readFileSync(p);
      } catch {
        return null;
      }
      if (bytes.length > MAX_FILE_BYTES) throw new Unreadable(`${p} grew past 64 MiB while it was read`);
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        return null;
      }
    },
    near(p, suiteFile) {
      if (path.isAbsolute(p) || fs.existsSync(p)) return p;
      const beside = path.join(path.dirname(suiteFile), p);
      return fs.existsSync(beside) ? beside : p;
    },
  };
}

module.exports = { make, nodeFiles };
