// The shared framework tests (../test-frameworks/shared.cjs) under Jest 30
// as ES modules (node --experimental-vm-modules): import from 'mcpcheck' and
// @jest/globals. Run by pkg/test/frameworks.test.mjs, which compares the
// outcomes with `mcpcheck run`.
import { afterAll, describe, expect, test } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineMcpcheckTests } from 'mcpcheck';
import { matchers } from 'mcpcheck/matchers';

import shared from '../test-frameworks/shared.cjs';

shared.register(
  { test, describe, expect, afterAll },
  { Client, StdioClientTransport, defineMcpcheckTests, matchers, name: 'jest-esm' },
);
