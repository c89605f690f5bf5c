#!/usr/bin/env bash
# What `mcpcheck intercept` holds against what it records: a stdio session
# through intercept to a small server whose one tool answers with about 5 MB
# of structured content (150,000 small objects), N and then 4N times.
# Prints the bytes recorded (the capture's size), the intercept's peak memory
# while the session runs and over the whole run (the capture is written and
# judged at the end), and each against what was recorded. Keeping only the
# messages' text, the session holds about 2x; keeping every message parsed
# as well, it held 20x or more. Linux (reads /proc).
#
#   bash bench/intercept-memory.sh [N]      (default N = 3)
#   MCPCHECK=target/debug/mcpcheck bash bench/intercept-memory.sh   (no release build)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
bin=${MCPCHECK:-}
if [ -z "$bin" ]; then
  cargo build --release -p mcpcheck >/dev/null 2>&1
  bin=target/release/mcpcheck
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/server.py" <<'PY'
import json, sys
rows = [{"id": i, "name": "row", "ok": True} for i in range(150000)]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "rows", "version": "1"}}
    else:
        r = {"content": [{"type": "text", "text": "rows"}], "structuredContent": {"rows": rows}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r},
                                separators=(",", ":")) + "\n")
    sys.stdout.flush()
PY
python3 - "$n" "$dir" "$bin" <<'PY'
import json, os, subprocess, sys, threading, time
n, d, bin = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def hwm(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None

for k in (n, 4 * n):
    capture = os.path.join(d, f"c{k}.json")
    p = subprocess.Popen([bin, "intercept", "--capture", capture, "--",
                          "python3", os.path.join(d, "server.py")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    overall = [0.0]
    def poll():
        while p.poll() is None:
            overall[0] = max(overall[0], hwm(p.pid) or 0)
            time.sleep(0.005)
    watcher = threading.Thread(target=poll)
    watcher.start()
    send = lambda m: (p.stdin.write((json.dumps(m) + "\n").encode()), p.stdin.flush())
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}})
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for i in range(1, k + 1):
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "rows", "arguments": {}}})
        while json.loads(p.stdout.readline()).get("id") != i:
            pass
    session = hwm(p.pid) or 0
    p.stdin.close()
    p.stdout.read()
    p.stderr.read()
    p.wait()
    watcher.join()
    recorded = os.path.getsize(capture) / 1024 / 1024
    print(f"{k:>3} answers: recorded {recorded:.0f} MB; peak while the session runs "
          f"{session:.0f} MB ({session / recorded:.1f}x), over the whole run "
          f"{overall[0]:.0f} MB ({overall[0] / recorded:.1f}x)")
PY
