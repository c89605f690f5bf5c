// One place for how the .wasm is optimized, shared by the npm build
// (pkg/scripts/build.mjs) and the playground's post-build hook
// (web/play/post-build.mjs): wasm-opt from npm's binaryen, size first.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));

export const WASM_OPT = join(pkg, 'node_modules', '.bin', 'wasm-opt');

/** The optimization flags; MCPCHECK_WASM_OPT_FLAGS overrides them.
 * `--converge` repeats -Oz until the module stops shrinking (about 3 KB
 * gzipped, for a minute or two more).
 * `--low-memory-unused` is true of Rust's wasm32 output (the stack and the
 * data start at 1 MiB) and lets wasm-opt fold constant offsets into loads
 * and stores.
 * `--ignore-implicit-traps` lets it assume no load or division traps on its
 * own: Rust checks bounds and divisors explicitly (a panic is an explicit
 * `unreachable`, kept), so nothing the module does relies on an implicit
 * trap; it takes 1 KB gzipped off. */
export const FLAGS = (
  process.env.MCPCHECK_WASM_OPT_FLAGS ||
  '-Oz --converge --ignore-implicit-traps --low-memory-unused --strip-debug --strip-producers'
)
  .split(/\s+/)
  .filter(Boolean);

// The features rustc enables for wasm32-unknown-unknown, plus SIMD, which
// some dependencies use in functions of their own.
const FEATURES = [
  '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext',
  '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue', '--enable-simd',
];

/** Optimize `input` into `output` (they may be the same file). */
export function wasmOpt(input, output) {
  if (!existsSync(WASM_OPT)) throw new Error('wasm-opt is missing: run `npm --prefix pkg ci` first');
  const args = [...FLAGS, ...FEATURES, input, '-o', output];
  console.log(`$ wasm-opt ${args.join(' ')}`);
  execFileSync(WASM_OPT, args, { stdio: 'inherit' });
}
