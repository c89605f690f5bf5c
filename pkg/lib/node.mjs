// ES module entry for Node: the same instance as the CommonJS entry (the
// `nodejs` glue), re-exported by name.
import { createRequire } from 'node:module';

// One instance for both module systems: this entry re-exports the CommonJS one.
const entry = createRequire(import.meta.url)('./node.cjs');

export const {
  checkResponse,
  checkTrajectory,
  checkCapture,
  captureTimeline,
  validateSuite,
  lintListing,
  scanListing,
  formatResult,
  runSuite,
  defineMcpcheckTests,
  McpcheckError,
  version,
} = entry;

/** Nothing to load in Node; present so browser code runs unchanged. */
export async function init() {}
export default init;
