// Types of the `mcpcheck` package for `import` in Node. The functions and
// the shapes they take and return are generated from the Rust crate
// (mcpcheck-web) by wasm-bindgen; only `init` is declared here, without the
// DOM types the browser entry's `init` takes, so a Node project type-checks
// without `lib: ["dom"]`.
export * from '../node/mcpcheck-web.js';
export { McpcheckError, formatResult } from './support.js';
export {
  runSuite,
  defineMcpcheckTests,
  type Suite,
  type McpClient,
  type RunSuiteOptions,
  type ResultsDocument,
  type TestFramework,
  type TestFunction,
} from './run-suite.js';

/**
 * Does nothing in Node: the module is loaded on import. It exists so that
 * code written for browsers (`await init()`) runs unchanged; its argument,
 * if any, is ignored.
 */
export declare function init(input?: unknown): Promise<void>;
export default init;
