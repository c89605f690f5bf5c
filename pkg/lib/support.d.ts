// Types of what the entry points add to the WebAssembly exports
// (lib/support.cjs and lib/support.mjs), shared by every entry's declarations.
import type { McpcheckError as McpcheckErrorFields, TestResult } from '../node/mcpcheck-web.js';

/** The error every export throws on an input it cannot read: `code` says
 * which kind of problem, `diagnostics` and `rendered` where. `instanceof
 * McpcheckError` holds for every such error. */
export type McpcheckError = McpcheckErrorFields;
export declare const McpcheckError: {
  new (
    message: string,
    init?: Partial<Pick<McpcheckErrorFields, 'code' | 'diagnostics' | 'rendered'>>,
  ): McpcheckErrorFields;
  readonly prototype: McpcheckErrorFields;
  [Symbol.hasInstance](value: unknown): value is McpcheckErrorFields;
};

/** The text `mcpcheck check` prints for a test result, every check listed,
 * without colour. Takes the object {@link checkResponse} or
 * {@link checkTrajectory} returned (a copy made with JSON or a spread loses
 * the text, and is refused with a McpcheckError). */
export declare function formatResult(result: TestResult): string;
