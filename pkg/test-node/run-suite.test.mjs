// The shared framework tests (../test-frameworks/shared.cjs) under node:test,
// with Jest's standalone `expect` for the matchers. Run by
// pkg/test/frameworks.test.mjs (as `node --test`, a child of its own), which
// compares the outcomes with `mcpcheck run`.
import { after, describe, test } from 'node:test';
import { expect } from 'expect';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineMcpcheckTests } from 'mcpcheck';
import { matchers } from 'mcpcheck/matchers';

import shared from '../test-frameworks/shared.cjs';

shared.register(
  { test, describe, expect, afterAll: after },
  { Client, StdioClientTransport, defineMcpcheckTests, matchers, name: 'node-test' },
);
