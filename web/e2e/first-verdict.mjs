// How long the playground takes to its first verdict after navigation, on
// this machine's loopback and over a slow link (10 Mbit/s, 40 ms round
// trip, emulated by Chromium), with dist/ served gzipped as a static host
// would. Prints one JSON line per case: the median and best of N loads and
// the bytes the page fetched (as sent, compressed).
//
//   node web/e2e/first-verdict.mjs [runs]
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { chromium } from 'playwright-core';

const runs = Number(process.argv[2] || 5);
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
if (!existsSync(join(dist, 'index.html'))) throw new Error('no dist/: run `trunk build --release --offline` first');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.json': 'application/json' };
const cache = new Map();
let sent = 0;
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = normalize(join(dist, path.endsWith('/') ? `${path}index.html` : path));
  if (!file.startsWith(dist) || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end();
  if (!cache.has(file)) cache.set(file, gzipSync(readFileSync(file), { level: 9 }));
  const body = cache.get(file);
  sent += body.length;
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-encoding': 'gzip' });
  res.end(body);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});

async function once(slow) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (slow) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false, latency: 40, downloadThroughput: (10e6 / 8), uploadThroughput: (10e6 / 8),
    });
  }
  sent = 0;
  await page.goto(url);
  await page.locator('#result-response #verdict').waitFor({ timeout: 60000 });
  const ms = await page.evaluate(() => performance.now());
  const bytes = sent;
  await context.close();
  return { ms, bytes };
}

for (const [name, slow] of [['localhost', false], ['10 Mbit/s, 40 ms RTT', true]]) {
  const got = [];
  for (let i = 0; i < runs; i++) got.push(await once(slow));
  const ms = got.map((g) => g.ms).sort((a, b) => a - b);
  console.log(JSON.stringify({ case: name, median_ms: Math.round(ms[ms.length >> 1]), best_ms: Math.round(ms[0]), bytes_gzipped: got[0].bytes }));
}
await browser.close();
server.close();
