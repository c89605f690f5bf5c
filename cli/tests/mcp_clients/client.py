"""An official MCP SDK client (Python `mcp`) using `mcpcheck mcp`.

Usage: client.py BIN ROOT (stdio | URL)

Over stdio it starts `BIN mcp --root ROOT --allow BIN`; given a URL it
connects to a `mcpcheck mcp --http` already running. It lists the tools,
calls `doctor` on `BIN serve --fault buggy-tools` (with a progress
callback), `run_suite` on ROOT/suite against `BIN serve`, and `doctor` on
a program and a URL outside the allow list, then prints what it got as one
JSON document on stdout. The SDK validates every structured result against
the tool's outputSchema itself (it raises when one does not); the caller
checks the rest.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def session_calls(session: ClientSession, binary: str) -> dict:
    await session.initialize()
    listed = await session.list_tools()
    tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]

    steps = []

    async def progress(done, total, message):
        steps.append({"progress": done, "total": total, "message": message})

    doctor = await session.call_tool(
        "doctor",
        {"server": f"{binary} serve --fault buggy-tools"},
        progress_callback=progress,
    )
    run = await session.call_tool("run_suite", {"suite": "suite", "server": f"{binary} serve"})
    refused = []
    for args in ({"server": "sh -c 'exit 0'"}, {"url": "https://example.com/mcp"}):
        answer = await session.call_tool("doctor", args)
        refused.append(
            {
                "is_error": answer.is_error,
                "text": " ".join(c.text for c in answer.content if c.type == "text"),
                "structured": answer.structured_content,
            }
        )
    return {
        "sdk": "python",
        "tools": tools,
        "doctor": {"is_error": doctor.is_error, "structured": doctor.structured_content},
        "progress": steps,
        "run_suite": {"is_error": run.is_error, "structured": run.structured_content},
        "refused": refused,
    }


async def main() -> None:
    binary, root, where = sys.argv[1], sys.argv[2], sys.argv[3]
    if where == "stdio":
        params = StdioServerParameters(command=binary, args=["mcp", "--root", root, "--allow", binary])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                got = await session_calls(session, binary)
    else:
        async with streamable_http_client(where) as (read, write):
            async with ClientSession(read, write) as session:
                got = await session_calls(session, binary)
    print(json.dumps(got))


asyncio.run(main())
