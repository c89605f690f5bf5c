// Trunk post-build hook: finish dist/ for a page that makes no request.
// - The worker's .wasm becomes a script module (`mcpcheck-web_bg.wasm.js`,
//   the bytes as base64) and the .wasm is dropped, so the module arrives
//   without fetch() and the CSP can say `connect-src 'none'`.
// - The `<link data-trunk rel="rust">` trunk leaves in the page (it injects
//   no loader: the worker loads the module) is removed.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('post-build: TRUNK_STAGING_DIR is not set (run through trunk)');
  process.exit(1);
}
const wasm = join(dir, 'mcpcheck-web_bg.wasm');
const bytes = readFileSync(wasm);
writeFileSync(
  join(dir, 'mcpcheck-web_bg.wasm.js'),
  `// mcpcheck-web_bg.wasm (${bytes.length} bytes), as base64.\nexport const wasmBase64 = "${bytes.toString('base64')}";\n`,
);
rmSync(wasm);

const page = join(dir, 'index.html');
const html = readFileSync(page, 'utf8');
const cleaned = html.replace(/^\s*<link data-trunk rel="rust"[^>]*>\n/m, '');
if (cleaned === html) {
  console.error('post-build: no <link data-trunk rel="rust"> in index.html');
  process.exit(1);
}
writeFileSync(page, cleaned);
console.log(`post-build: ${bytes.length} bytes of wasm embedded`);
