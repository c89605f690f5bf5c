#!/usr/bin/env bash
# A run's memory against what its servers send.
#
# 1. It does not grow with the number of tests: `mcpcheck run` of N and of 4N
#    tests (default N = 10), each answered with a 6 MB text by `mcpcheck
#    serve`'s `big` tool, two at a time. Prints the peak memory of each run
#    and their ratio (about 1 when nothing is kept per test; about 4 when
#    every answer is).
# 2. It stays a small multiple of one answer made of small objects (the
#    worst case for JSON values: a 27-byte `{"type":"text","text":"x"}`
#    takes about 750 bytes as a serde_json value): `mcpcheck run` of one test
#    whose `tools/call` answer is 2, 8, 14 and 41 MB of such objects, under a
#    2 GB address-space cap. Prints the peak memory, its ratio to the
#    answer, and the verdict: an answer too large to hold as values ends its
#    test as `error` and the run still reports (exit 1, never an abort).
# 3. A listing of 100,000 tools read by `mcpcheck scan --server`.
# 4. `mcpcheck replay` of a 100 MB capture whose answer is made of small
#    objects, under the same cap: the peak memory and the bytes answered.
#
#   bash bench/run-memory.sh [N]
#   MCPCHECK_BIN=/path/to/another/mcpcheck bash bench/run-memory.sh   # before/after
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
if [ -z "${MCPCHECK_BIN:-}" ]; then
  cargo build --release -p mcpcheck >/dev/null 2>&1
  MCPCHECK_BIN="$(pwd)/target/release/mcpcheck"
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$n" "$dir" "$MCPCHECK_BIN" <<'PY'
import os, subprocess, sys
n, d, bin = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def peak(args, cap=True):
    pre = ["prlimit", "--as=2147483648", "--"] if cap else []
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + pre + args, capture_output=True, text=True)
    last = out.stderr.strip().splitlines()[-1]
    return out.returncode, (int(last) / 1024 if last.isdigit() else float("nan")), out

peaks = {}
for k in (n, 4 * n):
    s = os.path.join(d, f"suite{k}")
    os.makedirs(s)
    for i in range(k):
        with open(os.path.join(s, f"t{i:04}.yaml"), "w") as f:
            f.write(f"name: t{i}\nserver:\n  command: {bin}\n  args: [serve]\n"
                    "assert:\n  tool: big\n  args: {bytes: 6000000}\n  expect: {not_error: true}\n")
    code, mb, out = peak([bin, "run", "--suite", s, "--jobs", "2"], cap=False)
    if code != 0:
        sys.exit(f"the run of {k} tests failed:\n{out.stdout}\n{out.stderr}")
    peaks[k] = mb
    print(f"{k:>4} tests of 6 MB answers: peak {mb:.0f} MB")
print(f"ratio 4N/N: {peaks[4 * n] / peaks[n]:.2f} (nothing kept per test: about 1)")

server = os.path.join(d, "server.py")
with open(server, "w") as f:
    f.write(r'''
import json, sys
size, shape = float(sys.argv[1]), sys.argv[2]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    i = json.dumps(m["id"])
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "big", "version": "1"}}
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r})
    elif m["method"] == "tools/list" and shape == "listing":
        ts = ",".join('{"name":"t%d","description":"d","inputSchema":{"type":"object"}}' % k
                      for k in range(int(size)))
        out = '{"jsonrpc":"2.0","id":%s,"result":{"tools":[%s]}}' % (i, ts)
    elif m["method"] == "tools/list":
        out = '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"big","inputSchema":{"type":"object"}}]}}' % i
    elif m["method"] == "tools/call":
        item = '{"type":"text","text":"x"}'
        k = int(size * 1024 * 1024 / (len(item) + 1))
        out = '{"jsonrpc":"2.0","id":%s,"result":{"content":[%s]}}' % (i, ",".join([item] * k))
    else:
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {}})
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
''')
print()
print("one answer of small objects, one test, under a 2 GB cap:")
for size in (2, 8, 14, 41):
    s = os.path.join(d, f"big{size}.yaml")
    with open(s, "w") as f:
        f.write(f"name: big{size}\ntimeout: 120s\nserver:\n  command: python3\n  args: [{server}, \"{size}\", call]\n"
                "assert:\n  tool: big\n  expect: {not_error: true}\n")
    code, mb, out = peak([bin, "run", "--suite", s, "--json"])
    try:
        import json as j
        verdict = j.loads(out.stdout)["tests"][0]["status"]
    except Exception:
        verdict = f"no report (exit {code})"
    print(f"{size:>4} MB answer: peak {mb:>6.0f} MB = {mb / size:>5.1f}x the answer; "
          f"test {verdict}, exit {code}")

code, mb, out = peak([bin, "scan", "--server", f"python3 {server} 100000 listing"])
print(f"\n100,000-tool listing (scan --server): peak {mb:.0f} MB, exit {code}")

import json
item = '{"type":"text","text":"x"}'
k = int(100 * 1024 * 1024 / (len(item) + 1))
init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
ready = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25",
         "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}
call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "big", "arguments": {}}}
answer = '{"jsonrpc":"2.0","id":1,"result":{"content":[' + ",".join([item] * k) + ']}}'
capture = os.path.join(d, "capture.json")
with open(capture, "w") as f:
    f.write('{"server_label":"s","transport":"stdio","exchanges":[{"request":%s,"response":%s},'
            '{"request":%s,"response":%s}]}' % (json.dumps(init), json.dumps(ready), json.dumps(call), answer))
size = os.path.getsize(capture) / 1024 / 1024
requests = "\n".join(json.dumps(m) for m in (init, call)) + "\n"
script = f"(printf '%s' '{requests}'; sleep 5) | prlimit --as=2147483648 -- {bin} replay {capture} | wc -c"
out = subprocess.run(["/usr/bin/time", "-f", "%M", "sh", "-c", script], capture_output=True, text=True)
mb = int(out.stderr.strip().splitlines()[-1]) / 1024
print(f"replay of a {size:.0f} MB capture: peak {mb:.0f} MB = {mb / size:.1f}x the capture; "
      f"{int(out.stdout.strip() or 0) / 1024 / 1024:.0f} MB answered")
PY
