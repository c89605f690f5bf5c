#!/usr/bin/env node
// `npx mcpcheck …`: run the native mcpcheck binary of this platform's
// package (@mcpcheck/cli-<os>-<cpu>, installed by npm as an optional
// dependency: only the one that fits the machine is downloaded), with the
// arguments, standard streams and exit code passed through.
'use strict';

const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { dirname, join } = require('node:path');

const platforms = require('./platforms.json');

/** The key of this machine in platforms.json, e.g. `linux-x64`. */
function platformKey() {
  return `${process.platform}-${process.arch}`;
}

/** Whether Node runs on glibc (false on musl, e.g. Alpine). */
function isGlibc() {
  if (process.platform !== 'linux') return false;
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
  return Boolean(report?.header?.glibcVersionRuntime);
}

function supported() {
  return Object.entries(platforms)
    .map(([key, p]) => `${key}${p.libc ? ` (${p.libc})` : ''}`)
    .join(', ');
}

function fail(reason) {
  process.stderr.write(
    `mcpcheck: ${reason}\n` +
      `  The npm package carries the mcpcheck binary for: ${supported()}.\n` +
      '  Elsewhere, build it with Rust: cargo install mcpcheck --locked\n' +
      '  (or use the Python package: pip install mcpcheck-cli).\n',
  );
  process.exit(2);
}

/** The binary's path, or an exit with what to do. */
function binaryPath() {
  const key = platformKey();
  const platform = platforms[key];
  if (!platform) fail(`no mcpcheck binary for this platform (${key})`);
  if (platform.libc === 'glibc' && !isGlibc()) {
    fail(`no mcpcheck binary for ${key} with this C library (the Linux binaries need glibc; musl is not supported)`);
  }
  let dir;
  try {
    dir = dirname(require.resolve(`${platform.package}/package.json`));
  } catch {
    fail(
      `${platform.package} is not installed: it is an optional dependency of mcpcheck, ` +
        'so npm leaves it out with --omit=optional (or --no-optional); install again without it',
    );
  }
  const exe = join(dir, 'bin', process.platform === 'win32' ? 'mcpcheck.exe' : 'mcpcheck');
  if (!existsSync(exe)) fail(`${platform.package} has no binary at ${exe}; install it again`);
  return exe;
}

const result = spawnSync(binaryPath(), process.argv.slice(2), { stdio: 'inherit', windowsHide: true });
if (result.error) {
  process.stderr.write(`mcpcheck: cannot start ${result.error.path || 'the binary'}: ${result.error.message}\n`);
  process.exit(2);
}
if (result.signal) {
  // Die of the same signal, so the caller sees what the binary saw.
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
