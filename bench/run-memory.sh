#!/usr/bin/env bash
# A run's memory does not grow with its number of tests: `mcpcheck run` of N
# and of 4N tests (default N = 10), each answered with a 6 MB text by
# `mcpcheck serve`'s `big` tool, two at a time. Prints the peak memory of
# each run and their ratio (about 1 when nothing is kept per test; about 4
# when every answer is).
#
#   bash bench/run-memory.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
cargo build --release -p mcpcheck >/dev/null 2>&1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$n" "$dir" "$(pwd)/target/release/mcpcheck" <<'PY'
import os, subprocess, sys
n, d, bin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
peaks = {}
for k in (n, 4 * n):
    s = os.path.join(d, f"suite{k}")
    os.makedirs(s)
    for i in range(k):
        with open(os.path.join(s, f"t{i:04}.yaml"), "w") as f:
            f.write(f"name: t{i}\nserver:\n  command: {bin}\n  args: [serve]\n"
                    "assert:\n  tool: big\n  args: {bytes: 6000000}\n  expect: {not_error: true}\n")
    out = subprocess.run(["/usr/bin/time", "-f", "%M", bin, "run", "--suite", s, "--jobs", "2"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"the run of {k} tests failed:\n{out.stdout}\n{out.stderr}")
    peaks[k] = int(out.stderr.strip().splitlines()[-1]) / 1024
    print(f"{k:>4} tests of 6 MB answers: peak {peaks[k]:.0f} MB")
print(f"ratio 4N/N: {peaks[4 * n] / peaks[n]:.2f} (nothing kept per test: about 1)")
PY
