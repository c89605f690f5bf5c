// Stage and pack the npm packages of a release for one target:
//
//   node npm/stage.mjs --version V --target TRIPLE --binary PATH --out DIR [--platform-only]
//
// 1. `mcpcheck` (pkg/): the wasm API as pkg/package.json describes it, plus
//    the command: `bin` (pkg/bin/mcpcheck.cjs, the launcher) and one
//    optional dependency per platform package of pkg/bin/platforms.json.
//    These are added here, to the packed copy, not to pkg/package.json:
//    until the platform packages are published, `npm ci` in pkg/ could not
//    resolve them, and the package's own tests hold the wasm tarball to its
//    exact file list.
// 2. The platform package of TARGET (@mcpcheck/cli-<os>-<cpu>): the binary
//    in bin/, with `os`, `cpu` (and `libc`) so npm installs it only there.
//
// Both are packed with `npm pack` (fixed timestamps and modes), so the same
// inputs give the same tarballs. Prints the tarballs' paths.
import { execFileSync, execSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const pkgDir = join(root, 'pkg');

function fail(message) {
  console.error(`npm/stage.mjs: ${message}`);
  process.exit(2);
}

let opts;
try {
  ({ values: opts } = parseArgs({
    options: {
      version: { type: 'string' },
      target: { type: 'string' },
      binary: { type: 'string' },
      out: { type: 'string' },
      'platform-only': { type: 'boolean', default: false },
    },
  }));
} catch (e) {
  fail(e.message);
}
for (const k of ['version', 'target', 'binary', 'out']) if (!opts[k]) fail(`--${k} is required`);

const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const platforms = JSON.parse(readFileSync(join(pkgDir, 'bin', 'platforms.json'), 'utf8'));
if (manifest.version !== opts.version) {
  fail(`pkg/package.json has version ${manifest.version}, the workspace ${opts.version}: make them equal`);
}
const [key, platform] = Object.entries(platforms).find(([, p]) => p.target === opts.target) ?? [];
if (!platform) {
  fail(`no npm platform package for ${opts.target} in pkg/bin/platforms.json (it has ${Object.values(platforms).map((p) => p.target).join(', ')})`);
}
if (!existsSync(opts.binary)) fail(`--binary ${opts.binary}: no such file`);

const withMain = !opts['platform-only'];
for (const entry of withMain ? manifest.files : []) {
  if (!existsSync(join(pkgDir, entry))) {
    fail(`pkg/${entry} is missing: build the package first (npm --prefix pkg run build)`);
  }
}

const out = resolve(opts.out);
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'mcpcheck-npm-'));
const licenses = ['LICENSE-MIT', 'LICENSE-APACHE'];

// On Windows npm is npm.cmd, which only a shell runs: there the command
// line is given whole, the folder quoted.
const windows = process.platform === 'win32';

function pack(dir) {
  const options = { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] };
  const args = ['pack', '--json', '--ignore-scripts', '--pack-destination'];
  const packed = JSON.parse(
    windows
      ? execSync(`npm ${args.join(' ')} "${out}"`, options)
      : execFileSync('npm', [...args, out], options),
  );
  return join(out, packed[0].filename);
}

try {
  // 1. mcpcheck: the files pkg/package.json lists, the launcher, and the
  // manifest with `bin` and the optional dependencies.
  const main = join(work, 'mcpcheck');
  if (withMain) {
    mkdirSync(main);
    for (const entry of manifest.files) {
      cpSync(join(pkgDir, entry), join(main, entry), { recursive: true });
    }
    cpSync(join(pkgDir, 'bin', 'mcpcheck.cjs'), join(main, 'bin', 'mcpcheck.cjs'));
    cpSync(join(pkgDir, 'bin', 'platforms.json'), join(main, 'bin', 'platforms.json'));
    chmodSync(join(main, 'bin', 'mcpcheck.cjs'), 0o755);
    const released = { ...manifest };
    released.bin = { mcpcheck: 'bin/mcpcheck.cjs' };
    released.files = [...manifest.files, 'bin/mcpcheck.cjs', 'bin/platforms.json'];
    released.optionalDependencies = Object.fromEntries(
      Object.values(platforms).map((p) => [p.package, manifest.version]),
    );
    delete released.devDependencies;
    delete released.scripts;
    writeFileSync(join(main, 'package.json'), `${JSON.stringify(released, null, 2)}\n`);
  }

  // 2. The platform package.
  const plat = join(work, 'platform');
  mkdirSync(join(plat, 'bin'), { recursive: true });
  const exe = platform.os === 'win32' ? 'mcpcheck.exe' : 'mcpcheck';
  cpSync(opts.binary, join(plat, 'bin', exe));
  chmodSync(join(plat, 'bin', exe), 0o755);
  for (const l of licenses) cpSync(join(root, l), join(plat, l));
  const readme = readFileSync(join(root, 'npm', 'platform', 'README.md'), 'utf8')
    .replaceAll('{{package}}', platform.package)
    .replaceAll('{{platform}}', key)
    .replaceAll('{{target}}', platform.target);
  writeFileSync(join(plat, 'README.md'), readme);
  const platManifest = {
    name: platform.package,
    version: manifest.version,
    description: `The mcpcheck binary for ${key} (${platform.target}); install the mcpcheck package, which uses it.`,
    license: manifest.license,
    repository: { ...manifest.repository, directory: 'npm/platform' },
    os: [platform.os],
    cpu: [platform.cpu],
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    files: [`bin/${exe}`, 'README.md', ...licenses],
    preferUnplugged: true,
  };
  writeFileSync(join(plat, 'package.json'), `${JSON.stringify(platManifest, null, 2)}\n`);

  if (withMain) console.log(pack(main));
  console.log(pack(plat));
} finally {
  rmSync(work, { recursive: true, force: true });
}
