// The shared framework tests (shared.cjs) under Vitest 3; run by
// pkg/test/frameworks.test.mjs, which compares the outcomes with `mcpcheck run`.
import { afterAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineMcpcheckTests } from 'mcpcheck';
import { matchers } from 'mcpcheck/matchers';

import shared from './shared.cjs';

shared.register(
  { test, describe, expect, afterAll },
  { Client, StdioClientTransport, defineMcpcheckTests, matchers, name: 'vitest-3' },
);
