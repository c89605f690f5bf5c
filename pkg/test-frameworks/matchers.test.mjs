// The matchers in Vitest itself (run by test/assert-on.test.mjs).
import { describe, expect, test } from 'vitest';
import { checkResponse } from 'mcpcheck';
import { matchers } from 'mcpcheck/matchers';

expect.extend(matchers);

const EXPECT = { contains: ['hello'] };

describe('mcpcheck matchers under Vitest', () => {
  test('a response that meets the expectations', () => {
    expect({ content: [{ type: 'text', text: 'hello' }] }).toSatisfyMcpcheck(EXPECT);
  });

  test('a response that does not, with .not', () => {
    expect({ content: [{ type: 'text', text: 'bye' }] }).not.toSatisfyMcpcheck(EXPECT);
  });

  test('the failure message names the failing check', () => {
    expect(() => expect({ content: [{ type: 'text', text: 'bye' }] }).toSatisfyMcpcheck(EXPECT)).toThrow(
      /✗ contains \(text\): expected text to contain 'hello'/,
    );
  });

  test('a result passes', () => {
    expect(checkResponse(EXPECT, { content: [{ type: 'text', text: 'hello' }] })).toPassMcpcheck();
  });
});
