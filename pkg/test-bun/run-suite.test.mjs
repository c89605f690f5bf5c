// The shared framework tests (../test-frameworks/shared.cjs) under bun's
// test runner (bun from npm, pinned in package-lock.json). Run by
// pkg/test/frameworks.test.mjs, which compares the outcomes with
// `mcpcheck run`.
import { afterAll, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineMcpcheckTests } from 'mcpcheck';
import { matchers } from 'mcpcheck/matchers';

import shared from '../test-frameworks/shared.cjs';

shared.register(
  { test, describe, expect, afterAll },
  { Client, StdioClientTransport, defineMcpcheckTests, matchers, name: 'bun' },
);
