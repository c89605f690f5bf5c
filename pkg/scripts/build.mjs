// Build the npm package: compile mcpcheck-web to wasm32, generate the
// JavaScript glue with the wasm-bindgen CLI (pinned to the crate's exact
// version), optimize the .wasm with wasm-opt from npm's `binaryen`, and fill
// pkg/node (the `nodejs` target, CommonJS) and pkg/web (the `web` target, ES
// module). Both glues load the one optimized .wasm in pkg/node.
//
//   npm --prefix pkg run build
//
// `--no-opt` skips wasm-opt (a quicker build while working on the package);
// MCPCHECK_WASM_OPT_FLAGS overrides its flags (see wasm-opt.mjs).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { FLAGS, wasmOpt } from './wasm-opt.mjs';

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const root = dirname(pkg);
const crate = 'mcpcheck_web';
// The glue's name: trunk names the playground's the same, and the name is
// written into the module (its imports come from `./<name>_bg.js`), so both
// builds produce the same module and the playground can reuse this one.
const outName = 'mcpcheck-web';

function run(cmd, args, opts = {}) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
}

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

// The wasm-bindgen crate version the workspace locked; the CLI must match it
// exactly or the generated glue and the module disagree.
function lockedVersion(name) {
  const lock = readFileSync(join(root, 'Cargo.lock'), 'utf8');
  const m = lock.match(new RegExp(`\\[\\[package\\]\\]\\nname = "${name}"\\nversion = "([^"]+)"`));
  if (!m) fail(`${name} is not in Cargo.lock`);
  return m[1];
}

const want = lockedVersion('wasm-bindgen');
let have = '';
try {
  have = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim();
} catch {
  fail(`wasm-bindgen is not on PATH; install it with: cargo install wasm-bindgen-cli --version ${want}`);
}
if (have !== `wasm-bindgen ${want}`) {
  fail(`found ${have}, need wasm-bindgen ${want} (cargo install wasm-bindgen-cli --version ${want})`);
}


// 1. The wasm module, with the size-first profile of the workspace manifest.
run('cargo', [
  'build', '-p', 'mcpcheck-web', '--target', 'wasm32-unknown-unknown', '--profile', 'wasm', '--locked',
]);
const target = process.env.CARGO_TARGET_DIR || join(root, 'target');
const raw = join(target, 'wasm32-unknown-unknown', 'wasm', `${crate}.wasm`);

// 2. Glue for both targets. The module each emits must be the same, so one
// optimized copy can serve both.
const out = { node: join(pkg, 'node'), web: join(pkg, 'web') };
for (const [dir] of Object.entries(out)) rmSync(out[dir], { recursive: true, force: true });
run('wasm-bindgen', ['--target', 'nodejs', '--out-name', outName, '--out-dir', out.node, raw]);
run('wasm-bindgen', ['--target', 'web', '--out-name', outName, '--out-dir', out.web, raw]);
const digest = (f) => createHash('sha256').update(readFileSync(f)).digest('hex');
const nodeWasm = join(out.node, `${outName}_bg.wasm`);
const webWasm = join(out.web, `${outName}_bg.wasm`);
if (digest(nodeWasm) !== digest(webWasm)) {
  fail('the nodejs and web targets produced different modules; one shared .wasm is not possible');
}
rmSync(webWasm);
rmSync(join(out.web, `${outName}_bg.wasm.d.ts`), { force: true });
rmSync(join(out.node, `${outName}_bg.wasm.d.ts`), { force: true });

// 3. Optimize for size (flags in wasm-opt.mjs). The digest of the input is
// kept, so the playground's build can reuse this result for the same module.
const before = statSync(nodeWasm).size;
const inputDigest = digest(nodeWasm);
const optimize = !process.argv.includes('--no-opt');
if (optimize) wasmOpt(nodeWasm, nodeWasm);
const bytes = readFileSync(nodeWasm);
const gz = gzipSync(bytes, { level: 9 }).length;
console.log(
  `build: ${outName}_bg.wasm ${before} -> ${bytes.length} bytes (${(gz / 1024).toFixed(0)} KiB gzipped)`,
);

// 4. A stamp of what was built, read by the tests and the budget script.
mkdirSync(out.node, { recursive: true });
writeFileSync(
  join(out.node, 'build.json'),
  JSON.stringify({ wasmBindgen: want, wasmOptFlags: optimize ? FLAGS : null, inputSha256: inputDigest, rawBytes: before, bytes: bytes.length, gzipBytes: gz }, null, 2) + '\n',
);
