// For the tests that compare the package with the CLI: the mcpcheck binary
// to run. MCPCHECK_BIN, or the newest of {debug,release}/mcpcheck in the
// cargo target directory (scripts/test-all builds it first).
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The binary's path; throws with what to do when there is none. */
export function cliBinary() {
  if (process.env.MCPCHECK_BIN) return process.env.MCPCHECK_BIN;
  const built = ['debug', 'release']
    .map((p) => join(process.env.CARGO_TARGET_DIR || join(root, 'target'), p, 'mcpcheck'))
    .filter((f) => existsSync(f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!built.length) throw new Error('no mcpcheck binary: run `cargo build -p mcpcheck` first, or set MCPCHECK_BIN');
  return built[0];
}
