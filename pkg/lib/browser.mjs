// Entry for browsers and bundlers: the `web` glue. Call `await init()` once
// before any other export; it fetches and instantiates the .wasm (bundlers
// that understand `new URL(…, import.meta.url)` emit it as an asset). Pass
// the module's URL, a Response, bytes or a WebAssembly.Module to load it
// some other way.
import initWasm from '../web/mcpcheck-web.js';

export {
  checkResponse,
  checkTrajectory,
  checkCapture,
  captureTimeline,
  validateSuite,
  lintListing,
  scanListing,
  version,
} from '../web/mcpcheck-web.js';
export { McpcheckError, formatResult } from './support.mjs';

let loading;

export function init(input) {
  loading ??= initWasm({
    module_or_path: input ?? new URL('../node/mcpcheck-web_bg.wasm', import.meta.url),
  }).then(() => undefined);
  return loading;
}
export default init;
