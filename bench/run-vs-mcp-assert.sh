#!/usr/bin/env bash
# The runner benchmark: the same suites, in mcp-assert's format, run by
# mcpcheck and by mcp-assert 0.12.3, alternately, several times, against
# servers in three languages over stdio:
#
#   node    @modelcontextprotocol/server-everything (tests/node-servers/everything, 30 tests)
#   python  mcp-server-time from PyPI                (bench/suites/time, 15 tests)
#   rust    mcpcheck serve                           (bench/suites/serve, 20 tests)
#
# Prints, per server, the median wall times and their ratio, the range of
# ratios over the servers, and every test whose verdict differs (with the
# documented mcp-assert bug that explains it; an unexplained one exits 1).
#
#   bash bench/run-vs-mcp-assert.sh [RUNS] [SERVER…]     (default 5 runs, every server)
#
# Installs what is missing: the node servers (scripts/setup), and mcp-assert
# and mcp-server-time into venvs outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true

bash scripts/setup >/dev/null
cargo build --release -p mcpcheck >/dev/null 2>&1
tmp=${TMPDIR:-/tmp}
venv=$tmp/mcpcheck-bench-mcp-assert
if ! "$venv/bin/mcp-assert" --help >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mcp-assert==0.12.3
fi
pyvenv=$tmp/mcpcheck-bench-py
if [ ! -x "$pyvenv/bin/mcp-server-time" ]; then
  python3 -m venv "$pyvenv"
  "$pyvenv/bin/pip" install -q mcp-server-time
fi
# The suites name their servers by command: mcpcheck and mcp-server-time
# come from PATH, as a user's would.
export PATH="$(pwd)/target/release:$pyvenv/bin:$PATH"

python3 - "$runs" "$venv/bin/mcp-assert" "$(pwd)/target/release/mcpcheck" "$@" <<'PY'
import json, statistics, subprocess, sys, time
runs, mcp_assert, mcpcheck = int(sys.argv[1]), sys.argv[2], sys.argv[3]
servers = {
    "node": ("tests/node-servers", "everything", "@modelcontextprotocol/server-everything"),
    "python": ("bench/suites", "time", "mcp-server-time"),
    "rust": ("bench/suites", "serve", "mcpcheck serve"),
}
chosen = sys.argv[4:] or list(servers)

# Verdicts mcp-assert 0.12.3 gets wrong, and why (its documented bugs).
known = {
    ("node", "pass completion"): "mcp-assert sends completion/complete `context: {arguments: null}`, which the server rejects",
}

def timed(cmd, cwd):
    t = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.monotonic() - t, p.stdout

unexplained = 0
ratios = {}
for key in chosen:
    cwd, suite, label = servers[key]
    ours, theirs = [], []
    for i in range(runs):
        t, out = timed([mcpcheck, "run", "--suite", suite, "--json"], cwd)
        ours.append(t)
        ours_v = {x["name"]: x["status"] for x in json.loads(out)["tests"]}
        t, out = timed([mcp_assert, "run", "--suite", suite, "--json"], cwd)
        theirs.append(t)
        theirs_v = {x["name"]: x["status"].lower() for x in json.loads(out)}
    mo, mt = statistics.median(ours), statistics.median(theirs)
    ratios[key] = mo / mt
    same = [n for n in ours_v if ours_v[n] == theirs_v.get(n)]
    print(f"== {key}: {label}, {len(ours_v)} tests, {runs} runs")
    print(f"   mcpcheck   median {mo:6.2f} s   (runs: {', '.join(f'{x:.2f}' for x in ours)})")
    print(f"   mcp-assert median {mt:6.2f} s   (runs: {', '.join(f'{x:.2f}' for x in theirs)})")
    print(f"   ratio (mcpcheck / mcp-assert): {mo / mt:.2f}   same verdict: {len(same)}/{len(ours_v)}")
    for n in ours_v:
        if ours_v[n] == theirs_v.get(n):
            continue
        why = known.get((key, n))
        if why is None:
            unexplained += 1
        print(f"   differs: {n}: mcpcheck {ours_v[n]}, mcp-assert {theirs_v.get(n)}"
              + (f" ({why})" if why else " (UNEXPLAINED)"))
if len(ratios) > 1:
    lo, hi = min(ratios.values()), max(ratios.values())
    print(f"ratio range over {len(ratios)} servers: {lo:.2f}x – {hi:.2f}x")
sys.exit(1 if unexplained else 0)
PY
