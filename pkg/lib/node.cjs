// CommonJS entry for Node: the `nodejs` glue loads the .wasm synchronously
// on first require, so every export is ready at once. `init` exists so that
// code written for browsers runs unchanged.
'use strict';

const wasm = require('../node/mcpcheck-web.js');
const { McpcheckError, formatResult } = require('./support.cjs');
const { make, nodeFiles } = require('./run-suite.cjs');

const { runSuite, defineMcpcheckTests } = make({
  SuiteRunner: wasm.SuiteRunner,
  files: nodeFiles(require('node:fs'), require('node:path')),
});

async function init() {}

module.exports = {
  checkResponse: wasm.checkResponse,
  checkTrajectory: wasm.checkTrajectory,
  checkCapture: wasm.checkCapture,
  captureTimeline: wasm.captureTimeline,
  validateSuite: wasm.validateSuite,
  lintListing: wasm.lintListing,
  scanListing: wasm.scanListing,
  formatResult,
  runSuite,
  defineMcpcheckTests,
  McpcheckError,
  version: wasm.version,
  init,
  default: init,
};
