#!/usr/bin/env bash
# What `mcpcheck intercept` adds to each message: ROUNDS sequential round
# trips (`ping`, then `tools/call` of `echo`) to `mcpcheck serve`, directly
# and through `intercept`, over stdio and over Streamable HTTP. Prints the
# median and p95 round trip of each, the added time per round trip and the
# ratio through/direct.
#
#   bash bench/intercept-latency.sh [ROUNDS]      (default 200)
#
# MCPCHECK=path/to/mcpcheck skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}
if [ -z "${MCPCHECK:-}" ]; then
  cargo build --release -p mcpcheck >/dev/null 2>&1
  MCPCHECK="$(pwd)/${CARGO_TARGET_DIR:-target}/release/mcpcheck"
  case "${CARGO_TARGET_DIR:-}" in /*) MCPCHECK="$CARGO_TARGET_DIR/release/mcpcheck" ;; esac
fi

python3 - "$MCPCHECK" "$rounds" <<'PY'
import http.client, json, os, signal, subprocess, sys, tempfile, time, urllib.parse

mcpcheck, rounds = sys.argv[1], int(sys.argv[2])
scratch = tempfile.mkdtemp(prefix="intercept-bench-")
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

def message(i, kind):
    if kind == "ping":
        return {"jsonrpc": "2.0", "id": i, "method": "ping"}
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": f"m{i}"}}}

def stats(times):
    times = sorted(times)
    return times[len(times) // 2] * 1000, times[int(len(times) * 0.95) - 1] * 1000

def stdio_rounds(argv):
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    def ask(m):
        p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"{argv[0]} ended early")
            v = json.loads(line)
            if v.get("id") == m["id"] and "method" not in v:
                return v
    ask(INIT)
    p.stdin.write((json.dumps(INITIALIZED) + "\n").encode()); p.stdin.flush()
    out = {"ping": [], "tools/call": []}
    for i in range(1, rounds + 1):
        for kind in out:
            t = time.perf_counter(); ask(message(i * 2 + (kind != "ping"), kind))
            out[kind].append(time.perf_counter() - t)
    p.stdin.close(); p.wait(timeout=30)
    return out

def started(argv):
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    url = line.split("listening on ", 1)[1].split()[0]
    return p, url

def http_rounds(url):
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port)
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    def post(m):
        conn.request("POST", u.path, json.dumps(m), headers)
        r = conn.getresponse(); body = r.read()
        sid = r.getheader("Mcp-Session-Id")
        if sid: headers["Mcp-Session-Id"] = sid
        return body
    post(INIT)
    headers["MCP-Protocol-Version"] = "2025-06-18"
    post(INITIALIZED)
    out = {"ping": [], "tools/call": []}
    for i in range(1, rounds + 1):
        for kind in out:
            t = time.perf_counter(); post(message(i * 2 + (kind != "ping"), kind))
            out[kind].append(time.perf_counter() - t)
    conn.close()
    return out

rows = []
direct = stdio_rounds([mcpcheck, "serve"])
through = stdio_rounds([mcpcheck, "intercept", "--capture", f"{scratch}/stdio.json",
                        "--", mcpcheck, "serve"])
rows.append(("stdio", direct, through))

server, url = started([mcpcheck, "serve", "--http", "127.0.0.1:0"])
proxy, purl = started([mcpcheck, "intercept", "--http", "127.0.0.1:0", "--url", url,
                       "--capture", f"{scratch}/http.json"])
try:
    direct = http_rounds(url)
    through = http_rounds(purl)
finally:
    proxy.send_signal(signal.SIGTERM); proxy.wait(timeout=30)
    server.send_signal(signal.SIGTERM); server.wait(timeout=30)
rows.append(("http", direct, through))

print(f"{rounds} sequential round trips of each message, median / p95 in ms")
print(f"{'transport':<10} {'message':<11} {'direct':>15} {'through':>15} {'added':>8} {'ratio':>6}")
for transport, d, t in rows:
    for kind in ("ping", "tools/call"):
        dm, dp = stats(d[kind]); tm, tp = stats(t[kind])
        print(f"{transport:<10} {kind:<11} {dm:7.3f} / {dp:5.3f} {tm:7.3f} / {tp:5.3f} "
              f"{tm - dm:8.3f} {tm / dm:6.2f}")
for name in ("stdio.json", "http.json"):
    with open(os.path.join(scratch, name)) as f:
        n = len(json.load(f)["exchanges"])
    print(f"capture {name}: {n} exchanges recorded")
PY
