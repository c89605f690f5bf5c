// Types of `mcpcheck/matchers`. To type the assertions in a TypeScript
// project, declare them on the framework's interface, e.g. for Vitest:
//
//   declare module 'vitest' {
//     interface Assertion<T = any> extends McpcheckMatchers<T> {}
//   }
import type { CheckOptions, Expectations } from '../node/mcpcheck-web.js';

/** What a matcher returns to `expect.extend`. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/** The assertions `expect.extend(matchers)` adds. */
export interface McpcheckMatchers<R = unknown> {
  /** The mcpcheck result (a test result, a results document, a lint, scan
   * or invariants report) passed; the failure message is the CLI's text. */
  toPassMcpcheck(): R;
  /** The response meets the expectations; the failure message names every
   * failing check with what was expected and what was received. */
  toSatisfyMcpcheck(expectations: Expectations, options?: CheckOptions): R;
}

export declare function toPassMcpcheck(received: unknown): MatcherResult;
export declare function toSatisfyMcpcheck(
  received: unknown,
  expectations: Expectations,
  options?: CheckOptions,
): MatcherResult;
export declare const matchers: {
  toPassMcpcheck: typeof toPassMcpcheck;
  toSatisfyMcpcheck: typeof toSatisfyMcpcheck;
};
