"""A small MCP server speaking raw JSON-RPC (Python standard library only),
for mcpcheck's conformance tests: correct in mode `control`, and in each other
mode breaking exactly one requirement (or recommendation) of the protocol.

    server.py MODE            stdio
    server.py MODE http       Streamable HTTP on 127.0.0.1, a free port (printed)

Modes of the 2026-07-28 era (no initialize; `_meta` on every request):
control, meta, version, header-version, removed, discover, result-type, ack,
routing, param, bad-annotation, capability-data, filter, cache, traceparent,
not-found-code, no-tools, server-info, unstable-discover, prompt-code, logging.
Modes of the handshake era (initialize, nothing of 2026-07-28): legacy,
legacy-modern-version. Modes about the client's limits (handshake era):
slow-progress, hang, flood.
"""
import json
import re
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "control"
HTTP = len(sys.argv) > 2 and sys.argv[2] == "http"
V = "2026-07-28"
LEGACY = MODE in ("legacy", "legacy-modern-version", "slow-progress", "hang", "flood")
META_V = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
SUB = "io.modelcontextprotocol/subscriptionId"
INFO = {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "1"}}
CACHEABLE = {"server/discover", "tools/list", "prompts/list", "resources/list",
             "resources/templates/list", "resources/read"}
TRACE = re.compile(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")
REMOVED = {"initialize", "ping", "logging/setLevel", "resources/subscribe",
           "resources/unsubscribe"}
discovers = [0]

TOOLS = [
    {"name": "region_echo", "description": "Echoes region.",
     "inputSchema": {"type": "object", "properties": {
         "region": {"type": "string", "x-mcp-header": "Region Name" if MODE == "bad-annotation" else "Region"}},
         "required": ["region"]},
     "annotations": {"readOnlyHint": True}},
    {"name": "needs_sampling", "description": "Needs the sampling capability.",
     "inputSchema": {"type": "object", "properties": {}},
     "annotations": {"readOnlyHint": True}},
]
LEGACY_TOOLS = [
    {"name": "work", "description": "Works a while, sending progress.",
     "inputSchema": {"type": "object", "properties": {}},
     "annotations": {"readOnlyHint": True}},
]


class Refusal(Exception):
    def __init__(self, code, message, status, data=None):
        super().__init__(message)
        self.code, self.message, self.status, self.data = code, message, status, data


def error(mid, code, message, data=None):
    e = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    return {"jsonrpc": "2.0", "id": mid, "error": e}


def decode(value):
    m = re.fullmatch(r"=\?base64\?(.*)\?=", value or "")
    if not m:
        return value
    import base64
    try:
        return base64.b64decode(m.group(1), validate=True).decode("utf-8")
    except Exception:
        return None


def check_headers(msg, headers):
    """Server validation of the mirrored headers (2026-07-28 HTTP)."""
    params = msg.get("params") or {}
    meta = params.get("_meta") or {}
    if MODE != "header-version" and headers.get("mcp-protocol-version") != meta.get(META_V):
        raise Refusal(-32020, "Header mismatch: MCP-Protocol-Version", 400)
    if MODE != "routing":
        if headers.get("mcp-method") != msg.get("method"):
            raise Refusal(-32020, "Header mismatch: Mcp-Method", 400)
        field = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(msg["method"])
        if field and decode(headers.get("mcp-name")) != params.get(field):
            raise Refusal(-32020, "Header mismatch: Mcp-Name", 400)
    if msg["method"] == "tools/call" and params.get("name") == "region_echo" and MODE != "param":
        region = (params.get("arguments") or {}).get("region")
        given = headers.get("mcp-param-region")
        if (region is None) != (given is None) or (given is not None and decode(given) != region):
            raise Refusal(-32020, "Header mismatch: Mcp-Param-Region", 400)


def finish(method, result, meta):
    """Every result's fields: resultType, serverInfo, caching, trace context."""
    if MODE != "result-type":
        result.setdefault("resultType", "complete")
    m = result.setdefault("_meta", {})
    if MODE != "server-info":
        m.update(INFO)
    if method in CACHEABLE and MODE != "cache":
        result.setdefault("ttlMs", 60000)
        result.setdefault("cacheScope", "public")
    if MODE == "traceparent":
        m["traceparent"] = "00-not-a-trace-01"
    elif TRACE.match(str(meta.get("traceparent", ""))):
        m["traceparent"] = meta["traceparent"]
    return result


def modern(msg, headers):
    """The answer to a 2026-07-28 request: (status, result) or a Refusal;
    ("listen", ack) for subscriptions/listen."""
    method = msg.get("method")
    params = msg.get("params") or {}
    meta = params.get("_meta")
    if not (isinstance(meta, dict) and isinstance(meta.get(META_V), str)
            and isinstance(meta.get(META_CAPS), dict)):
        if MODE != "meta":
            raise Refusal(-32602, "params._meta is required", 400)
        meta = {META_V: V, META_CAPS: {}}
    if HTTP:
        check_headers(msg, headers)
    if meta[META_V] != V and method != "server/discover" and MODE != "version":
        raise Refusal(-32022, "Unsupported protocol version", 400,
                      {"supported": [V], "requested": meta[META_V]})
    caps = {"tools": {"listChanged": True}, "resources": {}, "prompts": {}}
    if MODE == "no-tools":
        caps.pop("tools")
        if method in ("tools/list", "tools/call"):
            raise Refusal(-32601, f"Method not found: {method}", 404)
    if MODE == "logging":
        caps["logging"] = {}
    if method == "server/discover":
        discovers[0] += 1
        result = {"supportedVersions": [V], "capabilities": caps}
        if MODE == "discover":
            result.pop("capabilities")
        if MODE == "unstable-discover":
            caps["experimental"] = {"answer": {"n": discovers[0]}}
        return finish(method, result, meta)
    if method == "tools/list":
        return finish(method, {"tools": TOOLS}, meta)
    if method == "tools/call":
        name = params.get("name")
        if name == "region_echo":
            region = (params.get("arguments") or {}).get("region", "")
            return finish(method, {"content": [{"type": "text", "text": region}]}, meta)
        if name == "needs_sampling":
            if "sampling" in meta.get(META_CAPS, {}):
                return finish(method, {"content": [{"type": "text", "text": "sampled"}]}, meta)
            data = None if MODE == "capability-data" else {"requiredCapabilities": {"sampling": {}}}
            raise Refusal(-32021, "Missing required client capability", 400, data)
        raise Refusal(-32602, f"Unknown tool: {name}", 200)
    if method == "prompts/list":
        return finish(method, {"prompts": [{"name": "hello"}]}, meta)
    if method == "prompts/get":
        if params.get("name") == "hello":
            return finish(method, {"messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}]}, meta)
        if MODE == "prompt-code":
            raise Refusal(-32603, "Internal error", 200)
        raise Refusal(-32602, "Unknown prompt", 200)
    if method == "resources/list":
        return finish(method, {"resources": [{"uri": "note://a", "name": "a"}]}, meta)
    if method == "resources/templates/list":
        return finish(method, {"resourceTemplates": []}, meta)
    if method == "resources/read":
        if params.get("uri") == "note://a":
            return finish(method, {"contents": [{"uri": "note://a", "text": "a"}]}, meta)
        code = -32002 if MODE == "not-found-code" else -32602
        raise Refusal(code, "Resource not found", 200, {"uri": params.get("uri")})
    if method == "subscriptions/listen":
        asked = params.get("notifications") or {}
        agreed = {k: True for k in ("toolsListChanged", "promptsListChanged", "resourcesListChanged")
                  if asked.get(k) is True}
        if asked.get("resourceSubscriptions"):
            agreed["resourceSubscriptions"] = asked["resourceSubscriptions"]
        ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": agreed, "_meta": {SUB: msg["id"]}}}
        first = [ack]
        if MODE == "ack":
            # The acknowledgment does not name its subscription.
            ack["params"]["_meta"] = {}
        if MODE == "filter":
            first.append({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                          "params": {"_meta": {SUB: msg["id"]}}})
        return ("listen", first)
    if method == "resources/subscribe" and MODE == "removed":
        return finish(method, {}, meta)
    raise Refusal(-32601, f"Method not found: {method}", 404)


def legacy(msg):
    """The answer to a handshake-era message: (result, notifications) or a Refusal."""
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "initialize":
        version = V if MODE == "legacy-modern-version" else "2025-11-25"
        return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "hostile", "version": "1"}}, []
    if method == "ping":
        return {}, []
    if method == "tools/list":
        return {"tools": LEGACY_TOOLS}, []
    if method == "tools/call" and params.get("name") == "work":
        return "work", []
    raise Refusal(-32601, f"Method not found: {method}", 200)


def progress_of(msg, n, total):
    token = ((msg.get("params") or {}).get("_meta") or {}).get("progressToken")
    return {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": n, "total": total}}


def work(msg, emit):
    """The `work` tool of the client-limit modes: emit(message) each message."""
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "flood":
        note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        for _ in range(10050):
            if not emit(note):
                return
        time.sleep(3600)
    for n in range(1, 16):
        time.sleep(0.2)
        if not emit(progress_of(msg, n, 15)):
            return
    emit({"jsonrpc": "2.0", "id": msg["id"],
          "result": {"content": [{"type": "text", "text": "worked 3 s"}]}})


# ---------------------------------------------------------------- stdio

def stdio():
    lock = threading.Lock()

    def emit(message):
        with lock:
            try:
                sys.stdout.write(json.dumps(message) + "\n")
                sys.stdout.flush()
                return True
            except (BrokenPipeError, ValueError):
                return False

    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            emit(error(None, -32700, "Parse error"))
            continue
        if "id" not in msg:
            continue
        try:
            if LEGACY:
                result, _ = legacy(msg)
                if result == "work":
                    threading.Thread(target=work, args=(msg, emit), daemon=True).start()
                    continue
                emit({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                continue
            answer = modern(msg, {})
            if isinstance(answer, tuple):
                for m in answer[1]:
                    emit(m)
                continue
            emit({"jsonrpc": "2.0", "id": msg["id"], "result": answer})
        except Refusal as r:
            emit(error(msg["id"], r.code, r.message, r.data))


# ---------------------------------------------------------------- HTTP

def http():
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    sessions = set()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=None, extra=None):
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            if body is not None:
                self.send_header("content-type", "application/json")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def event(self, message):
            try:
                self.wfile.write(("data: " + json.dumps(message) + "\n\n").encode())
                self.wfile.flush()
                return True
            except (BrokenPipeError, ConnectionResetError):
                return False

        def stream(self):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True

        def guarded(self):
            """DNS rebinding protection: a foreign Origin or Host is refused."""
            origin = self.headers.get("origin")
            host = (self.headers.get("host") or "").split(":")[0]
            if (origin and not re.match(r"^https?://(127\.0\.0\.1|localhost)(:\d+)?$", origin)) \
                    or host not in ("127.0.0.1", "localhost"):
                self.send(403, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Forbidden"}})
                return False
            return True

        def do_GET(self):
            self.send(405)

        def do_DELETE(self):
            sid = self.headers.get("mcp-session-id")
            if LEGACY and sid in sessions:
                sessions.discard(sid)
                self.send(200)
            else:
                self.send(405 if not LEGACY else 404)

        def do_POST(self):
            if not self.guarded():
                return
            length = int(self.headers.get("content-length") or 0)
            try:
                msg = json.loads(self.rfile.read(length))
            except ValueError:
                self.send(400, error(None, -32700, "Parse error"))
                return
            if "id" not in msg:
                self.send(202)
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            if LEGACY:
                self.legacy(msg, headers)
            else:
                self.modern(msg, headers)

        def legacy(self, msg, headers):
            sid = headers.get("mcp-session-id")
            if msg.get("method") == "initialize":
                sid = f"session-{len(sessions) + 1}-{time.time_ns()}"
                sessions.add(sid)
                result, _ = legacy(msg)
                self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result},
                          {"mcp-session-id": sid})
                return
            if sid not in sessions:
                self.send(404 if sid else 400, error(msg["id"], -32000, "Bad Request: no valid session"))
                return
            try:
                result, _ = legacy(msg)
            except Refusal as r:
                self.send(200, error(msg["id"], r.code, r.message, r.data))
                return
            if result == "work":
                self.stream()
                work(msg, self.event)
                return
            self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})

        def modern(self, msg, headers):
            try:
                answer = modern(msg, headers)
            except Refusal as r:
                self.send(r.status, error(msg["id"], r.code, r.message, r.data))
                return
            if isinstance(answer, tuple):
                self.stream()
                for m in answer[1]:
                    if not self.event(m):
                        return
                # Open until the client closes it.
                while True:
                    time.sleep(0.1)
                    try:
                        self.wfile.write(b":\n\n")
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):
                        return
            self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": answer})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    http() if HTTP else stdio()
