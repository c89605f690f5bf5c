// The shared framework tests (../test-frameworks/shared.cjs) under Jest 30
// from CommonJS, without --experimental-vm-modules: require('mcpcheck') and
// @jest/globals. Run by pkg/test/frameworks.test.mjs, which compares the
// outcomes with `mcpcheck run`.
const { afterAll, describe, expect, test } = require('@jest/globals');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { defineMcpcheckTests } = require('mcpcheck');
const { matchers } = require('mcpcheck/matchers');

const shared = require('../test-frameworks/shared.cjs');

shared.register(
  { test, describe, expect, afterAll },
  { Client, StdioClientTransport, defineMcpcheckTests, matchers, name: 'jest-cjs' },
);
