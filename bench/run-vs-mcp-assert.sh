#!/usr/bin/env bash
# The runner benchmark: the same 30-test suite (tests/node-servers/everything,
# mcp-assert's format) against @modelcontextprotocol/server-everything over
# stdio, run by mcpcheck and by mcp-assert 0.12.3, alternately, several
# times. Prints the median wall times, their ratio, and every test whose
# verdict differs (with the documented mcp-assert bug that explains it).
#
#   bash bench/run-vs-mcp-assert.sh [RUNS]      (default 5)
#
# Installs what is missing: the node servers (scripts/setup) and mcp-assert
# into a venv outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}

bash scripts/setup >/dev/null
cargo build --release -p mcpcheck >/dev/null 2>&1
venv=${TMPDIR:-/tmp}/mcpcheck-bench-mcp-assert
if ! "$venv/bin/mcp-assert" --help >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mcp-assert==0.12.3
fi

python3 - "$runs" "$venv/bin/mcp-assert" "$(pwd)/target/release/mcpcheck" <<'PY'
import json, statistics, subprocess, sys, time
runs, mcp_assert, mcpcheck = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cwd = "tests/node-servers"

def timed(cmd):
    t = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.monotonic() - t, p.stdout

ours, theirs = [], []
verdicts = {}
for i in range(runs):
    t, out = timed([mcpcheck, "run", "--suite", "everything", "--json"])
    ours.append(t)
    ours_v = {x["name"]: x["status"] for x in json.loads(out)["tests"]}
    t, out = timed([mcp_assert, "run", "--suite", "everything", "--json"])
    theirs.append(t)
    theirs_v = {x["name"]: x["status"].lower() for x in json.loads(out)}
    verdicts = (ours_v, theirs_v)

# Verdicts mcp-assert 0.12.3 gets wrong, and why (its documented bugs).
known = {
    "pass completion": "mcp-assert sends completion/complete `context: {arguments: null}`, which the server rejects",
}
ours_v, theirs_v = verdicts
same = [n for n in ours_v if ours_v[n] == theirs_v.get(n)]
diff = [n for n in ours_v if ours_v[n] != theirs_v.get(n)]
mo, mt = statistics.median(ours), statistics.median(theirs)
print(f"tests: {len(ours_v)}   runs: {runs}")
print(f"mcpcheck   median {mo:6.2f} s   (runs: {', '.join(f'{x:.2f}' for x in ours)})")
print(f"mcp-assert median {mt:6.2f} s   (runs: {', '.join(f'{x:.2f}' for x in theirs)})")
print(f"ratio (mcpcheck / mcp-assert): {mo / mt:.2f}")
print(f"same verdict: {len(same)}/{len(ours_v)}")
unexplained = 0
for n in diff:
    why = known.get(n)
    if why is None:
        unexplained += 1
    print(f"  differs: {n}: mcpcheck {ours_v[n]}, mcp-assert {theirs_v.get(n)}"
          + (f" ({why})" if why else " (UNEXPLAINED)"))
sys.exit(1 if unexplained else 0)
PY
