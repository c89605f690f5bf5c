#!/usr/bin/env bash
# Time against the number of tools: `mcpcheck scan` of two listings checked
# against each other (S901/S902 across servers) and `lock --check` of a
# listing in another order, at N and 4N tools each (default N = 10000).
# Prints each time and the ratio 4N/N: about 4 when linear, 16 when
# quadratic (two listings of 40,000 tools took minutes when it was).
#
#   bash bench/names-scaling.sh [N]
#   MCPCHECK_BIN=/path/to/another/mcpcheck bash bench/names-scaling.sh   # before/after
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
if [ -z "${MCPCHECK_BIN:-}" ]; then
  cargo build --release -p mcpcheck >/dev/null 2>&1
  MCPCHECK_BIN="$(pwd)/target/release/mcpcheck"
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$n" "$dir" "$MCPCHECK_BIN" <<'PY'
import json, os, random, subprocess, sys, time
n, d, bin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
random.seed(1)

def listing(k):
    return [{"name": "".join(random.choice("abcdefghij") for _ in range(10)),
             "description": "d", "inputSchema": {"type": "object"}} for _ in range(k)]

def timed(args):
    t = time.monotonic()
    subprocess.run(args, capture_output=True)
    return time.monotonic() - t

times = {}
for k in (n, 4 * n):
    a, b, rev, lock = (os.path.join(d, f"{x}{k}.json") for x in ("a", "b", "rev", "lock"))
    tools = listing(k)
    json.dump({"tools": tools}, open(a, "w"))
    json.dump({"tools": listing(k)}, open(b, "w"))
    json.dump({"tools": tools[::-1]}, open(rev, "w"))
    subprocess.run([bin, "lock", "--listing", a, "--write", lock], capture_output=True, check=True)
    times[k] = (timed([bin, "scan", "--listing", a, "--listing", b]),
                timed([bin, "lock", "--listing", rev, "--check", lock]))
    print(f"{k:>6} tools: scan of two listings {times[k][0]:.2f} s; lock --check {times[k][1]:.2f} s")
for i, what in enumerate(("scan", "lock --check")):
    print(f"{what}: ratio 4N/N {times[4 * n][i] / max(times[n][i], 1e-3):.1f} (linear: about 4; quadratic: 16)")
PY
