// The playground's worker: every check runs here, off the page's thread, so
// a huge input never freezes the page (the page terminates a worker that
// takes too long and starts a new one). It only forwards: each message names
// an export of mcpcheck-web and its arguments; the reply is the export's
// result or its error (message, diagnostics, rendered excerpt).
//
// The .wasm arrives as a script (`mcpcheck-web_bg.wasm.js`, written by
// post-build.mjs at build time) rather than through fetch(), so the page's
// Content-Security-Policy can forbid every connection.
import * as wasm from '../mcpcheck-web.js';
import { wasmBase64 } from '../mcpcheck-web_bg.wasm.js';

const OPS = ['checkResponse', 'checkTrajectory', 'checkCapture', 'captureTimeline', 'lintListing', 'scanListing', 'validateSuite', 'version'];
const exports = Object.fromEntries(
  OPS.filter((op) => typeof wasm[op] === 'function').map((op) => [op, wasm[op]]),
);

function decode(b64) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

wasm.initSync({ module: decode(wasmBase64) });

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

self.postMessage({ ready: true, version: wasm.version(), ops: Object.keys(exports) });
