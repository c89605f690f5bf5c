"""A small MCP server on the official Python SDK (mcp 2.x), which speaks the
2026-07-28 revision: a third-party server for mcpcheck's 2026-07-28 client.
Run on stdio, or `sdk2026_server.py http PORT` for Streamable HTTP at /mcp.
Installed by scripts/setup into tests/py-servers/.venv (requirements.txt).
"""
import sys
from mcp.server.mcpserver import MCPServer

app = MCPServer("py-sdk-2026")

@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@app.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"

@app.resource("note://hello")
def hello() -> str:
    """A note."""
    return "hello from the note"

@app.prompt()
def review(code: str) -> str:
    """Review code."""
    return f"Please review: {code}"

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
