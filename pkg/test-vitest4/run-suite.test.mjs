// The shared framework tests (../test-frameworks/shared.cjs) under Vitest 4,
// installed in this folder (its package-lock.json pins it; Vitest 3 is
// pkg's own). Run by pkg/test/frameworks.test.mjs, which compares the
// outcomes with `mcpcheck run`.
import { afterAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineMcpcheckTests } from 'mcpcheck';
import { matchers } from 'mcpcheck/matchers';

import shared from '../test-frameworks/shared.cjs';

shared.register(
  { test, describe, expect, afterAll },
  { Client, StdioClientTransport, defineMcpcheckTests, matchers, name: 'vitest-4' },
);
