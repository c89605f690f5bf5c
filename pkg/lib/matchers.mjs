// ES module entry of the matchers: the CommonJS ones (one instance).
import { createRequire } from 'node:module';

const m = createRequire(import.meta.url)('./matchers.cjs');

export const { matchers, toPassMcpcheck, toSatisfyMcpcheck } = m;
