// Captures recorded from mcpcheck serve by web/play/examples/record-captures.mjs.
export const CAPTURES = [
  {
    "id": "capture-clean",
    "title": "A clean session (mcpcheck serve) — every invariant holds",
    "finding": null,
    "capture": {
      "client_capabilities": {},
      "exchanges": [
        {
          "request": {
            "id": 0,
            "jsonrpc": "2.0",
            "method": "initialize",
            "params": {
              "capabilities": {},
              "clientInfo": {
                "name": "mcpcheck",
                "version": "0.1.0"
              },
              "protocolVersion": "2025-11-25"
            }
          },
          "request_time": "2026-11-22T17:09:51.046Z",
          "response": {
            "id": 0,
            "jsonrpc": "2.0",
            "result": {
              "capabilities": {
                "completions": {},
                "logging": {},
                "prompts": {},
                "resources": {
                  "listChanged": true,
                  "subscribe": true
                },
                "tools": {
                  "listChanged": true
                }
              },
              "instructions": "Deterministic reference server of mcpcheck. Every tool, prompt and resource behaves the same on every run; see the mcpcheck docs (docs/serve.md).",
              "protocolVersion": "2025-11-25",
              "serverInfo": {
                "name": "mcpcheck-serve",
                "title": "mcpcheck reference server",
                "version": "0.1.0"
              }
            }
          },
          "response_time": "2026-11-22T17:09:51.050Z"
        },
        {
          "request": {
            "jsonrpc": "2.0",
            "method": "notifications/initialized"
          },
          "request_time": "2026-11-22T17:09:51.050Z"
        },
        {
          "request": {
            "id": 1,
            "jsonrpc": "2.0",
            "method": "tools/call",
            "params": {
              "_meta": {
                "progressToken": 0
              },
              "arguments": {
                "message": "hello, mcpcheck"
              },
              "name": "echo"
            }
          },
          "request_time": "2026-11-22T17:09:51.051Z",
          "response": {
            "id": 1,
            "jsonrpc": "2.0",
            "result": {
              "content": [
                {
                  "text": "hello, mcpcheck",
                  "type": "text"
                }
              ],
              "isError": false
            }
          },
          "response_time": "2026-11-22T17:09:51.051Z"
        }
      ],
      "protocol_version": "2025-11-25",
      "server_capabilities": {
        "completions": {},
        "logging": {},
        "prompts": {},
        "resources": {
          "listChanged": true,
          "subscribe": true
        },
        "tools": {
          "listChanged": true
        }
      },
      "server_label": "stdio://mcpcheck serve",
      "transport": "stdio"
    }
  },
  {
    "id": "capture-string-code",
    "title": "An error code sent as a string (serve --fault string-error-code) — INV-006",
    "finding": "INV-006",
    "capture": {
      "client_capabilities": {},
      "exchanges": [
        {
          "request": {
            "id": 0,
            "jsonrpc": "2.0",
            "method": "initialize",
            "params": {
              "capabilities": {},
              "clientInfo": {
                "name": "mcpcheck",
                "version": "0.1.0"
              },
              "protocolVersion": "2025-11-25"
            }
          },
          "request_time": "2026-11-22T17:09:51.075Z",
          "response": {
            "id": 0,
            "jsonrpc": "2.0",
            "result": {
              "capabilities": {
                "completions": {},
                "logging": {},
                "prompts": {},
                "resources": {
                  "listChanged": true,
                  "subscribe": true
                },
                "tools": {
                  "listChanged": true
                }
              },
              "instructions": "Deterministic reference server of mcpcheck. Every tool, prompt and resource behaves the same on every run; see the mcpcheck docs (docs/serve.md).",
              "protocolVersion": "2025-11-25",
              "serverInfo": {
                "name": "mcpcheck-serve",
                "title": "mcpcheck reference server",
                "version": "0.1.0"
              }
            }
          },
          "response_time": "2026-11-22T17:09:51.080Z"
        },
        {
          "request": {
            "jsonrpc": "2.0",
            "method": "notifications/initialized"
          },
          "request_time": "2026-11-22T17:09:51.080Z"
        },
        {
          "request": {
            "id": 1,
            "jsonrpc": "2.0",
            "method": "tools/call",
            "params": {
              "_meta": {
                "progressToken": 0
              },
              "arguments": {},
              "name": "no_such_tool"
            }
          },
          "request_time": "2026-11-22T17:09:51.081Z",
          "response": {
            "error": {
              "code": "-32602",
              "message": "unknown tool `no_such_tool`"
            },
            "id": 1,
            "jsonrpc": "2.0"
          },
          "response_time": "2026-11-22T17:09:51.081Z"
        }
      ],
      "protocol_version": "2025-11-25",
      "server_capabilities": {
        "completions": {},
        "logging": {},
        "prompts": {},
        "resources": {
          "listChanged": true,
          "subscribe": true
        },
        "tools": {
          "listChanged": true
        }
      },
      "server_label": "stdio://mcpcheck serve --fault string-error-code",
      "transport": "stdio"
    }
  },
  {
    "id": "capture-wrong-id",
    "title": "A response to an id never sent (serve --fault wrong-id) — INV-009",
    "finding": "INV-009",
    "capture": {
      "client_capabilities": {},
      "exchanges": [
        {
          "request": {
            "id": 0,
            "jsonrpc": "2.0",
            "method": "initialize",
            "params": {
              "capabilities": {},
              "clientInfo": {
                "name": "mcpcheck",
                "version": "0.1.0"
              },
              "protocolVersion": "2025-11-25"
            }
          },
          "request_time": "2026-11-22T17:09:51.100Z",
          "response": {
            "id": 0,
            "jsonrpc": "2.0",
            "result": {
              "capabilities": {
                "completions": {},
                "logging": {},
                "prompts": {},
                "resources": {
                  "listChanged": true,
                  "subscribe": true
                },
                "tools": {
                  "listChanged": true
                }
              },
              "instructions": "Deterministic reference server of mcpcheck. Every tool, prompt and resource behaves the same on every run; see the mcpcheck docs (docs/serve.md).",
              "protocolVersion": "2025-11-25",
              "serverInfo": {
                "name": "mcpcheck-serve",
                "title": "mcpcheck reference server",
                "version": "0.1.0"
              }
            }
          },
          "response_time": "2026-11-22T17:09:51.104Z"
        },
        {
          "request": {
            "jsonrpc": "2.0",
            "method": "notifications/initialized"
          },
          "request_time": "2026-11-22T17:09:51.104Z"
        },
        {
          "request": {
            "id": 1,
            "jsonrpc": "2.0",
            "method": "tools/call",
            "params": {
              "_meta": {
                "progressToken": 0
              },
              "arguments": {
                "message": "hi"
              },
              "name": "echo"
            }
          },
          "request_time": "2026-11-22T17:09:51.105Z"
        }
      ],
      "protocol_version": "2025-11-25",
      "server_capabilities": {
        "completions": {},
        "logging": {},
        "prompts": {},
        "resources": {
          "listChanged": true,
          "subscribe": true
        },
        "tools": {
          "listChanged": true
        }
      },
      "server_label": "stdio://mcpcheck serve --fault wrong-id",
      "transport": "stdio",
      "unmatched": [
        {
          "direction": "server",
          "message": {
            "id": 1000001,
            "jsonrpc": "2.0",
            "result": {
              "content": [
                {
                  "text": "hi",
                  "type": "text"
                }
              ],
              "isError": false
            }
          },
          "time": "2026-11-22T17:09:51.105Z"
        }
      ]
    }
  }
];
