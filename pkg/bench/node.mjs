// The Node side of the checkResponse timing (scripts/budgets): the package's
// checkResponse on the 1 MiB case, both arguments as text, as the native
// example reads them; prints the median of several runs as JSON.
//
//   node pkg/bench/node.mjs DIR [RUNS]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkResponse } from '../lib/node.mjs';

const [dir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const expect = readFileSync(join(dir, 'expect.yaml'), 'utf8');
const response = readFileSync(join(dir, 'response.json'), 'utf8');
const times = [];
let result;
for (let i = 0; i < runs; i++) {
  const start = performance.now();
  result = checkResponse(expect, response, { today: '2026-02-01' });
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({
  median_ms: Number(times[Math.floor(times.length / 2)].toFixed(2)),
  min_ms: Number(times[0].toFixed(2)),
  runs,
  status: `${result.status} (${result.checks.length} checks)`,
}));
