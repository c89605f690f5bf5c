// Trunk post-build hook: turn the worker's .wasm into a script module
// (`mcpcheck-web_bg.wasm.js`, the bytes as base64) and drop the .wasm, so
// the playground loads without a single fetch() and its CSP can say
// `connect-src 'none'`.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('embed-wasm: TRUNK_STAGING_DIR is not set (run through trunk)');
  process.exit(1);
}
const wasm = join(dir, 'mcpcheck-web_bg.wasm');
const bytes = readFileSync(wasm);
writeFileSync(
  join(dir, 'mcpcheck-web_bg.wasm.js'),
  `// mcpcheck-web_bg.wasm (${bytes.length} bytes), as base64.\nexport const wasmBase64 = "${bytes.toString('base64')}";\n`,
);
rmSync(wasm);
console.log(`embed-wasm: ${bytes.length} bytes embedded`);
