// Types of the `mcpcheck` package for `import` in browsers and bundlers
// (Node's are lib/node.d.mts). The functions and the
// shapes they take and return are generated from the Rust crate
// (mcpcheck-web) by wasm-bindgen; only `init` is declared here.
export * from '../node/mcpcheck-web.js';
export { McpcheckError, formatResult } from './support.js';

/**
 * Load the WebAssembly module. In browsers, await it once before calling any
 * other export (optionally with the .wasm's URL, a Response, its bytes or a
 * compiled `WebAssembly.Module`); in Node it does nothing, the module is
 * loaded on import.
 */
export declare function init(
  input?: string | URL | Request | Response | BufferSource | WebAssembly.Module,
): Promise<void>;
export default init;
