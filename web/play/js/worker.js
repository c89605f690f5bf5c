// The playground's worker: every check runs here, off the page's thread, so
// a huge input never freezes the page (the page terminates a worker that
// takes too long and starts a new one). It only forwards: each message names
// an export of mcpcheck-web and its arguments; the reply is the export's
// result or its error (message, diagnostics, rendered excerpt).
//
// The .wasm is a file next to the page, compiled while it downloads.
import init, * as wasm from '../mcpcheck-web.js';

const OPS = ['checkResponse', 'checkTrajectory', 'checkCapture', 'captureTimeline', 'lintListing', 'scanListing', 'validateSuite', 'version'];

let exports = {};
try {
  await init({ module_or_path: new URL('../mcpcheck-web_bg.wasm', import.meta.url) });
  exports = Object.fromEntries(
    OPS.filter((op) => typeof wasm[op] === 'function').map((op) => [op, wasm[op]]),
  );
} catch (e) {
  self.postMessage({ failed: `the checker (mcpcheck-web_bg.wasm) could not be loaded: ${e?.message ?? e}` });
  throw e;
}

self.onmessage = (event) => {
  const { id, op, args } = event.data;
  const fn = exports[op];
  if (!fn) {
    self.postMessage({ id, ok: false, error: { message: `unknown operation ${op}`, diagnostics: [] } });
    return;
  }
  const started = performance.now();
  try {
    const value = fn(...args);
    self.postMessage({ id, ok: true, value, ms: performance.now() - started });
  } catch (e) {
    self.postMessage({
      id,
      ok: false,
      error: {
        message: String(e?.message ?? e),
        diagnostics: Array.isArray(e?.diagnostics) ? e.diagnostics : [],
        rendered: typeof e?.rendered === 'string' ? e.rendered : '',
      },
      ms: performance.now() - started,
    });
  }
};

// What fetching the module cost: the resource timing of the .wasm (bytes
// on the wire, compressed or not, and unpacked).
function download() {
  const url = new URL('../mcpcheck-web_bg.wasm', import.meta.url).href;
  const entry = performance.getEntriesByName(url)[0];
  if (!entry) return null;
  const { transferSize, encodedBodySize, decodedBodySize } = entry;
  return { transferSize, encodedBodySize, decodedBodySize };
}

self.postMessage({ ready: true, version: wasm.version(), ops: Object.keys(exports), download: download() });
