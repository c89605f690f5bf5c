// Types of runSuite and defineMcpcheckTests (lib/run-suite.cjs), exported by
// the Node entries.
import type { TestResult } from '../node/mcpcheck-web.js';

/** A suite: YAML text (either form: one test, or `tests:`), its bytes,
 * `{yaml, file}` to name its file, a list of tests (the `tests:` form), or
 * an object in the suite's shape. */
export type Suite =
  | string
  | Uint8Array
  | { yaml: string; file?: string }
  | { [key: string]: unknown }[]
  | { [key: string]: unknown };

/** The client a suite runs on: a connected `@modelcontextprotocol/sdk`
 * `Client`, or any object whose `request(request, resultSchema, options)`
 * behaves like the SDK's (resolves to the result, rejects with an error
 * carrying the JSON-RPC `code`, `message` and `data`). */
export interface McpClient {
  request(
    request: { method: string; params?: { [key: string]: unknown } },
    resultSchema: unknown,
    options?: unknown,
  ): Promise<unknown>;
}

/** How {@link runSuite} runs. Every key is optional. */
export interface RunSuiteOptions {
  /** The suite's file name in results, and where relative audit-log paths
   * are looked up (default `suite.yaml`; `{yaml, file}` wins). */
  file?: string;
  /** The timeout of a test without its own `timeout:` (default 30000, as
   * `mcpcheck run --timeout`). */
  timeoutMs?: number;
  /** How long to keep collecting notifications after an answer, for tests
   * that check notifications and set no `settle:` (default 100, as
   * `mcpcheck run --settle`). */
  settleMs?: number;
  /** What `${NAME}` and `skip_unless_env` read (default: `process.env`). */
  env?: { [name: string]: string };
  /** `{{name}}` values. */
  vars?: { [name: string]: string };
  /** The directory `{{fixture}}` stands for. It is used as it is (not
   * copied, unlike `mcpcheck run --fixture`): the client's server must work
   * on the same directory. */
  fixture?: string;
  /** Today's date (`YYYY-MM-DD`) for `dates_within_days` (default: none,
   * as in checkResponse). */
  today?: string;
}

/** The results document, as `mcpcheck run --json` prints it, with `ok` on
 * it (no test failed or errored), on each test and on each check. */
export interface ResultsDocument {
  version: 1;
  tool: { name: string; version: string };
  summary: {
    total: number;
    passed: number;
    failed: number;
    errored: number;
    skipped: number;
    duration_ms: number;
  };
  tests: TestResult[];
  /** Derived metrics rolled up over the run, when any test has one. */
  metric_rollups?: { name: string; mean: number; count: number }[];
  ok: boolean;
}

/** Run every test of `suite`, in file order, on `client`, with the same
 * steps and verdicts as `mcpcheck run`. The suite's `server` blocks start
 * nothing: the client is already connected to the server under test. Throws
 * a McpcheckError when the suite cannot be loaded, has `hooks`, or an
 * argument or option is wrong. */
export declare function runSuite(suite: Suite, client: McpClient, options?: RunSuiteOptions): Promise<ResultsDocument>;

/** A test function as node:test, Vitest and Jest have it. */
export interface TestFunction {
  (name: string, fn: () => Promise<void>, timeout?: number): unknown;
  skip?: (name: string, fn: () => void) => unknown;
}

/** The test framework's functions. */
export interface TestFramework {
  test: TestFunction;
  /** When given, the tests are registered inside `describe(file, …)`. */
  describe?: (name: string, fn: () => void) => unknown;
}

/** Register one framework test per test of `suite` (a skipped one with
 * `test.skip`); each runs its test on the client `client` gives (called
 * once per test) and fails with the text `mcpcheck run` prints for it when
 * it does not pass. */
export declare function defineMcpcheckTests(
  suite: Suite,
  framework: TestFramework,
  client: McpClient | (() => McpClient | Promise<McpClient>),
  options?: RunSuiteOptions,
): void;
