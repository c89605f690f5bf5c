#!/usr/bin/env bash
# Load figures from `mcpcheck load`, and what the load generator itself costs:
#
#   serve-http   mcpcheck serve over Streamable HTTP, echo, at saturation
#   serve-stdio  mcpcheck serve over stdio (one server process per session)
#   everything   @modelcontextprotocol/server-everything over stdio (scripts/setup
#                installs it; skipped when node is missing)
#
# For serve-http the server is a separate process started here, so the CPU
# time of `mcpcheck load` (its own rusage) and of the server (/proc) are
# measured apart: the generator's share of the machine at saturation is
# the figure to read against the throughput. (Over stdio the servers are
# the generator's children, so their CPU is reported together.)
#
#   bash bench/load.sh [REQUESTS] [CONCURRENCY]     (default 5000 requests, 8 at once)
#
# MCPCHECK=path/to/mcpcheck skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-5000}
concurrency=${2:-8}
if [ -z "${MCPCHECK:-}" ]; then
  cargo build --release -p mcpcheck >/dev/null 2>&1
  MCPCHECK="$(pwd)/${CARGO_TARGET_DIR:-target}/release/mcpcheck"
  case "${CARGO_TARGET_DIR:-}" in /*) MCPCHECK="$CARGO_TARGET_DIR/release/mcpcheck" ;; esac
fi
everything=""
if command -v node >/dev/null && bash scripts/setup >/dev/null 2>&1; then
  everything="tests/node-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
  [ -f "$everything" ] || everything=""
fi

python3 - "$MCPCHECK" "$requests" "$concurrency" "$everything" <<'PY'
import json, os, resource, subprocess, sys, time

mcpcheck, requests, concurrency, everything = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
cores = os.cpu_count() or 1
ticks = os.sysconf("SC_CLK_TCK")

def proc_cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks

def load(target, call_args, label, server_pid=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = proc_cpu(server_pid) if server_pid else None
    t = time.monotonic()
    p = subprocess.run(
        [mcpcheck, "load", *target, *call_args, "--requests", requests, "-c", concurrency, "--json"],
        capture_output=True, text=True)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode not in (0, 1):
        print(f"== {label}: mcpcheck load failed ({p.returncode}): {p.stderr.strip()}")
        return
    r = json.loads(p.stdout)
    l = r["latency_ms"]
    print(f"== {label}: {r['requests']} requests, {concurrency} at once")
    print(f"   throughput {r['throughput']:.0f} requests/s; latency ms p50 {l['p50']:.2f}  p95 {l['p95']:.2f}  p99 {l['p99']:.2f}  max {l['max']:.2f}")
    bad = ", ".join(f"{c} {n}" for c, n in r["classes"] if c != "ok" and n)
    print(f"   right answers {r['ok']}/{r['requests']} (error rate {r['error_rate'] * 100:.2f}%){': ' + bad if bad else ''}")
    if server_pid:
        server = proc_cpu(server_pid) - server_before
        print(f"   CPU over {wall:.2f} s wall on {cores} cores: mcpcheck load {cpu:.2f} s ({cpu / wall * 100:.0f}% of one core, "
              f"{cpu / (wall * cores) * 100:.0f}% of the machine), the server {server:.2f} s ({server / wall * 100:.0f}% of one core); "
              f"generator share of the work {cpu / (cpu + server) * 100:.0f}%; per request: generator {cpu / r['requests'] * 1e6:.0f} µs, server {server / r['requests'] * 1e6:.0f} µs of CPU")
    else:
        print(f"   CPU over {wall:.2f} s wall on {cores} cores: mcpcheck load and its server processes together {cpu:.2f} s "
              f"({cpu / (wall * cores) * 100:.0f}% of the machine)")

echo = ["--call", "echo", "--args", '{"message": "hi"}']

server = subprocess.Popen([mcpcheck, "serve", "--http", "127.0.0.1:0"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
try:
    line = server.stderr.readline()
    url = line.split("listening on ", 1)[1].split()[0]
    load(["--url", url], echo, "serve-http (mcpcheck serve, Streamable HTTP, echo)", server.pid)
finally:
    server.kill()
    server.wait()

load(["--server", f"{mcpcheck} serve"], echo, "serve-stdio (mcpcheck serve, stdio, echo)")

if everything:
    expect = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"mcpcheck-bench-load-{os.getpid()}.yaml")
    with open(expect, "w") as f:
        f.write("contains: [hi]\nnot_error: true\n")
    try:
        load(["--server", f"node {everything} stdio"], [*echo, "--expect", expect],
             "everything (server-everything, stdio, echo)")
    finally:
        os.remove(expect)
else:
    print("== everything: skipped (node or tests/node-servers is missing; scripts/setup installs it)")
PY
