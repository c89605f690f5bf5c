#!/usr/bin/env bash
# Loading scales linearly: `mcpcheck validate` on a generated composed suite
# of N and of 2N tests (default N = 20,000). Prints both wall times, their
# ratio (about 2 when linear, 4 when quadratic) and peak memory.
#
#   bash bench/load-scaling.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
cargo build --release -p mcpcheck >/dev/null 2>&1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$n" "$dir" "$(pwd)/target/release/mcpcheck" <<'PY'
import os, resource, subprocess, sys, time
n, d, bin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def suite(k):
    p = os.path.join(d, f"s{k}.yaml")
    with open(p, "w") as f:
        f.write("server: {command: x}\ntests:\n")
        for i in range(k):
            f.write(f"  - name: t{i}\n    tool: echo\n    args: {{message: hi}}\n    expect: {{not_error: true}}\n")
    return p
times = {}
for k in (n, 2 * n):
    p = suite(k)
    best = None
    for _ in range(3):
        t = time.monotonic()
        subprocess.run([bin, "validate", p], check=True, capture_output=True)
        e = time.monotonic() - t
        best = e if best is None else min(best, e)
    times[k] = best
    print(f"{k:>7} tests ({os.path.getsize(p) / 1e6:.1f} MB): {best:.2f} s")
print(f"ratio 2N/N: {times[2 * n] / times[n]:.2f} (linear: 2)")
print(f"peak memory of the largest: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB")
PY
