#!/usr/bin/env python3
"""Benchmark `mcpcheck invariants` on a large generated capture.

    python3 bench/invariants.py [--exchanges 100000] [--runs 3] [--capture FILE] [--keep]

Generates a capture of N exchanges (about 550 bytes each, so ~55 MB for the default
100,000; a fixed-seed generator, nothing committed), builds the release binaries,
and runs, RUNS times each:

  floor     cli/examples/parse_floor FILE          serde_json::Value parse, nothing else
  validate  cli/examples/parse_floor FILE validate serde_json syntax check only
  mcpcheck  mcpcheck invariants --capture FILE --format json
  mcptest   mcptest compliance invariants --capture FILE --format json
            (mcptest 1.3.0, when found: $MCPTEST, /opt/mcptest/bin/mcptest, or PATH;
            skipped otherwise)

For each it reports the best wall time, the CPU time (user + system) of that run,
and the peak resident memory (the child's ru_maxrss, read with os.wait4), then the
ratios the goals are stated in: mcpcheck at most 1.5x the floor's time, at most 0.5x
mcptest's, and peak memory at most 2x the capture's size.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def generate(path: str, count: int) -> None:
    """One 2025-11-25 session: handshake, tools/list, then `count` tool calls of mixed
    shapes (text results, structured results matching the outputSchema, calls with
    progress notifications), every message timestamped. Valid: it passes."""
    rng = random.Random(42)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
             "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]

    def ts(ms: int) -> str:
        s = ms // 1000
        return "2026-01-02T%02d:%02d:%02d.%03dZ" % ((s // 3600) % 24, (s // 60) % 60, s % 60, ms % 1000)

    tools = [
        {"name": "echo", "description": "Echo the input back.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"name": "weather", "description": "Current weather for a city.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
         "outputSchema": {"type": "object",
                          "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"},
                                         "humidity": {"type": "integer", "minimum": 0, "maximum": 100}},
                          "required": ["temperature", "conditions"]}},
        {"name": "search", "description": "Search the corpus.",
         "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}}},
    ]
    caps = {"tools": {"listChanged": True}, "logging": {}}
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"server_label":"stdio://bench-server","transport":"stdio","protocol_version":"2025-11-25",\n')
        f.write('"server_capabilities":%s,\n' % json.dumps(caps, separators=(",", ":")))
        f.write('"client_capabilities":{"roots":{}},\n"exchanges":[\n')
        clock = 0
        first = [
            {"request": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                         "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                                    "clientInfo": {"name": "bench", "version": "1.0.0"}}},
             "response": {"jsonrpc": "2.0", "id": 0,
                          "result": {"protocolVersion": "2025-11-25", "capabilities": caps,
                                     "serverInfo": {"name": "bench-server", "version": "1.0.0"}}}},
            {"request": {"jsonrpc": "2.0", "method": "notifications/initialized"}},
            {"request": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
             "response": {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}},
        ]
        for ex in first:
            ex["request_time"] = ts(clock)
            clock += 3
            if "response" in ex:
                ex["response_time"] = ts(clock)
                clock += 2
            f.write(json.dumps(ex, separators=(",", ":")))
            f.write(",\n")
        for i in range(count):
            rid = i + 2
            kind = rng.random()
            ex = {}
            if kind < 0.45:
                text = " ".join(rng.choice(words) for _ in range(rng.randint(4, 24)))
                req = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": text}}}
                res = {"jsonrpc": "2.0", "id": rid,
                       "result": {"content": [{"type": "text", "text": text}], "isError": False}}
            elif kind < 0.8:
                req = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": "weather", "arguments": {"city": rng.choice(words).title()}}}
                data = {"temperature": round(rng.uniform(-10, 35), 1),
                        "conditions": rng.choice(["sunny", "cloudy", "rain", "snow"]),
                        "humidity": rng.randint(0, 100)}
                res = {"jsonrpc": "2.0", "id": rid,
                       "result": {"content": [{"type": "text", "text": json.dumps(data)}],
                                  "structuredContent": data}}
            else:
                token = "tok-%d" % rid
                req = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": "search", "arguments": {"query": rng.choice(words), "limit": 5},
                                  "_meta": {"progressToken": token}}}
                hits = [{"type": "text", "text": "%s result %d" % (rng.choice(words), k)} for k in range(3)]
                res = {"jsonrpc": "2.0", "id": rid, "result": {"content": hits}}
                ex["notifications"] = [
                    {"jsonrpc": "2.0", "method": "notifications/progress",
                     "params": {"progressToken": token, "progress": p, "total": 3}} for p in range(1, 4)]
                ex["notification_times"] = [ts(clock + p) for p in range(1, 4)]
            ex["request"] = req
            ex["response"] = res
            ex["request_time"] = ts(clock)
            clock += 5
            ex["response_time"] = ts(clock)
            clock += 1
            f.write(json.dumps(ex, separators=(",", ":")))
            f.write(",\n" if i + 1 < count else "\n")
        f.write("]}\n")


def measure(argv: list, runs: int) -> dict:
    """Best wall time of `runs`, with that run's CPU time and the peak RSS of all."""
    best = None
    peak_kb = 0
    codes = set()
    last_stderr = b""
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stderr = child.stderr.read() if child.stderr else b""
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        codes.add(code)
        peak_kb = max(peak_kb, usage.ru_maxrss)
        cpu = usage.ru_utime + usage.ru_stime
        if best is None or wall < best["wall"]:
            best = {"wall": wall, "cpu": cpu}
        last_stderr = stderr
    best["rss_mb"] = peak_kb / 1024
    best["codes"] = sorted(codes)
    best["stderr"] = last_stderr.decode("utf-8", "replace")[-400:]
    return best


def find_mcptest():
    for candidate in (os.environ.get("MCPTEST"), "/opt/mcptest/bin/mcptest", shutil.which("mcptest")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exchanges", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--capture", help="use this capture instead of generating one")
    parser.add_argument("--keep", action="store_true", help="keep the generated capture")
    args = parser.parse_args()

    print("building release binaries…", flush=True)
    subprocess.run(["cargo", "build", "--release", "-p", "mcpcheck", "--bin", "mcpcheck",
                    "--example", "parse_floor"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    mcpcheck = os.path.join(target, "release", "mcpcheck")
    floor = os.path.join(target, "release", "examples", "parse_floor")

    workdir = None
    capture = args.capture
    if capture is None:
        workdir = tempfile.mkdtemp(prefix="mcpcheck-bench-")
        capture = os.path.join(workdir, "capture.json")
        print(f"generating {args.exchanges} exchanges…", flush=True)
        generate(capture, args.exchanges)
    size_mb = os.path.getsize(capture) / (1024 * 1024)
    print(f"capture: {capture} ({size_mb:.1f} MiB), {args.runs} runs each, best wall time shown\n")

    commands = {
        "floor": [floor, capture],
        "validate": [floor, capture, "validate"],
        "mcpcheck": [mcpcheck, "invariants", "--capture", capture, "--format", "json"],
    }
    mcptest = find_mcptest()
    if mcptest:
        commands["mcptest"] = [mcptest, "compliance", "invariants", "--capture", capture, "--format", "json"]
    else:
        print("mcptest not found ($MCPTEST, /opt/mcptest/bin/mcptest, PATH): skipping that comparison\n")

    results = {}
    print(f"{'':10}{'wall s':>9}{'cpu s':>9}{'peak MiB':>10}  exit")
    for name, argv in commands.items():
        r = measure(argv, args.runs)
        results[name] = r
        print(f"{name:10}{r['wall']:9.3f}{r['cpu']:9.3f}{r['rss_mb']:10.1f}  {','.join(map(str, r['codes']))}")
        if name == "mcpcheck" and r["codes"] != [0]:
            print(f"  mcpcheck did not pass the generated capture: {r['stderr']}")
        if name == "mcptest" and any(c not in (0, 1) for c in r["codes"]):
            print(f"  mcptest could not check the capture: {r['stderr'].strip()}")

    m = results["mcpcheck"]
    f = results["floor"]
    print()
    print(f"mcpcheck / floor    time {m['wall'] / f['wall']:.2f}x wall, {m['cpu'] / f['cpu']:.2f}x cpu  (goal <= 1.5x)")
    v = results["validate"]
    print(f"mcpcheck / validate time {m['wall'] / v['wall']:.2f}x wall, {m['cpu'] / v['cpu']:.2f}x cpu  (syntax-only reference)")
    t = results.get("mcptest")
    if t and all(c in (0, 1) for c in t["codes"]):
        print(f"mcpcheck / mcptest  time {m['wall'] / t['wall']:.2f}x wall, {m['cpu'] / t['cpu']:.2f}x cpu  (goal <= 0.5x)")
        print(f"mcpcheck / mcptest  peak memory {m['rss_mb'] / t['rss_mb']:.2f}x")
    print(f"mcpcheck peak memory / capture size {m['rss_mb'] / size_mb:.2f}x  (goal <= 2x)")

    if workdir and not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    elif workdir:
        print(f"\nkept {capture}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
