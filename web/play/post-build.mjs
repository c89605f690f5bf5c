// Trunk post-build hook: finish dist/ for a page that makes no request.
// - The worker's .wasm is optimized here, as the npm package's is (trunk's
//   own wasm-opt step is off): when `npm --prefix pkg run build` already
//   optimized the very same module, its result is reused.
// - The .wasm stays a file of its own, which the worker compiles while it
//   downloads (WebAssembly.instantiateStreaming): gzipped on the wire it is
//   a third smaller than the same bytes as base64 in a script, and
//   compilation overlaps the download. The page's CSP allows connections to
//   its own origin only (`connect-src 'self'`).
// - The .wasm is also written precompressed, next to it: gzip (level 9) as
//   mcpcheck-web_bg.wasm.gz and brotli (quality 11) as .wasm.br, for a
//   static server that sends a precompressed file when the browser accepts
//   its encoding (docs/web.md says how); the page's loading line says what
//   each weighs, and once loaded the page shows what this browser fetched.
// - The recorded example data (web/play/data/*.json) becomes js/data.js, a
//   script module.
// - The `<link data-trunk rel="rust">` trunk leaves in the page (it injects
//   no loader: the worker loads the module) is removed.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import { FLAGS, wasmOpt } from '../../pkg/scripts/wasm-opt.mjs';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('post-build: TRUNK_STAGING_DIR is not set (run through trunk)');
  process.exit(1);
}
const wasm = join(dir, 'mcpcheck-web_bg.wasm');
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const pkgBuild = new URL('../../pkg/node/build.json', import.meta.url);
const built = existsSync(pkgBuild) ? JSON.parse(readFileSync(pkgBuild, 'utf8')) : null;
if (
  built?.inputSha256 === sha256(readFileSync(wasm)) &&
  JSON.stringify(built.wasmOptFlags) === JSON.stringify(FLAGS)
) {
  console.log('post-build: the npm build optimized this module already; reusing it');
  copyFileSync(new URL('../../pkg/node/mcpcheck-web_bg.wasm', import.meta.url), wasm);
} else {
  wasmOpt(wasm, wasm);
}
const bytes = readFileSync(wasm);
const gz = gzipSync(bytes, { level: 9 });
const br = brotliCompressSync(bytes, {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 11,
    [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_GENERIC,
  },
});
writeFileSync(`${wasm}.gz`, gz);
writeFileSync(`${wasm}.br`, br);

const data = (name) => readFileSync(new URL(`data/${name}.json`, import.meta.url), 'utf8').trim();
writeFileSync(
  join(dir, 'js', 'data.js'),
  `// web/play/data/*.json, the playground's recorded examples.\nexport const DATA = {\n  recorded: ${data('recorded')},\n  captures: ${data('captures')},\n};\n`,
);

const page = join(dir, 'index.html');
const html = readFileSync(page, 'utf8');
const cleaned = html.replace(/^\s*<link data-trunk rel="rust"[^>]*>\n/m, '');
if (cleaned === html) {
  console.error('post-build: no <link data-trunk rel="rust"> in index.html');
  process.exit(1);
}
// The loading line, as first painted, says what the checker weighs.
const kb = (n) => `${Math.round(n / 1024).toLocaleString('en')} KB`;
const sized = cleaned.replace(
  '<span id="wasm-size">about 1 MB</span>',
  `<span id="wasm-size">${kb(br.length)} with brotli, ${kb(gz.length)} with gzip, ${kb(bytes.length)} uncompressed</span>`,
);
if (sized === cleaned) {
  console.error('post-build: no <span id="wasm-size"> in index.html');
  process.exit(1);
}
writeFileSync(page, sized);
console.log(`post-build: ${bytes.length} bytes of wasm, optimized; ${gz.length} gzipped, ${br.length} with brotli`);
