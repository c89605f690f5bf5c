// ES module entry for Node: the same instance as the CommonJS entry (the
// `nodejs` glue), re-exported by name.
import { createRequire } from 'node:module';

const wasm = createRequire(import.meta.url)('../node/mcpcheck-web.js');

export const { checkResponse, checkTrajectory, checkCapture, captureTimeline, validateSuite, lintListing, scanListing, version } = wasm;

/** Nothing to load in Node; present so browser code runs unchanged. */
export async function init() {}
export default init;
