// Responses recorded from real MCP servers by web/play/examples/record.mjs
// (server-everything and server-filesystem, as pinned in tests/node-servers).
export const RECORDED = {
  "everything": {
    "structured": {
      "result": {
        "content": [
          {
            "type": "text",
            "text": "{\"temperature\":33,\"conditions\":\"Cloudy\",\"humidity\":82}"
          }
        ],
        "structuredContent": {
          "temperature": 33,
          "conditions": "Cloudy",
          "humidity": 82
        }
      },
      "jsonrpc": "2.0",
      "id": 2
    },
    "sum": {
      "result": {
        "content": [
          {
            "type": "text",
            "text": "The sum of 2 and 3 is 5."
          }
        ]
      },
      "jsonrpc": "2.0",
      "id": 3
    },
    "echo": {
      "result": {
        "content": [
          {
            "type": "text",
            "text": "Echo: Hello from the playground"
          }
        ]
      },
      "jsonrpc": "2.0",
      "id": 4
    },
    "unknown": {
      "result": {
        "content": [
          {
            "type": "text",
            "text": "MCP error -32602: Tool no-such-tool not found"
          }
        ],
        "isError": true
      },
      "jsonrpc": "2.0",
      "id": 5
    },
    "tools": {
      "result": {
        "tools": [
          {
            "name": "echo",
            "title": "Echo Tool",
            "description": "Echoes back the input string",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "message": {
                  "type": "string",
                  "description": "Message to echo"
                }
              },
              "required": [
                "message"
              ]
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "get-annotated-message",
            "title": "Get Annotated Message Tool",
            "description": "Demonstrates how annotations can be used to provide metadata about content.",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "messageType": {
                  "type": "string",
                  "enum": [
                    "error",
                    "success",
                    "debug"
                  ],
                  "description": "Type of message to demonstrate different annotation patterns"
                },
                "includeImage": {
                  "default": false,
                  "description": "Whether to include an example image",
                  "type": "boolean"
                }
              },
              "required": [
                "messageType"
              ]
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "get-env",
            "title": "Print Environment Tool",
            "description": "Returns all environment variables, helpful for debugging MCP server configuration",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {}
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "get-resource-links",
            "title": "Get Resource Links Tool",
            "description": "Returns up to ten resource links that reference different types of resources",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "count": {
                  "default": 3,
                  "description": "Number of resource links to return (1-10)",
                  "type": "number",
                  "minimum": 1,
                  "maximum": 10
                }
              }
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "get-resource-reference",
            "title": "Get Resource Reference Tool",
            "description": "Returns a resource reference that can be used by MCP clients",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "resourceType": {
                  "default": "Text",
                  "type": "string",
                  "enum": [
                    "Text",
                    "Blob"
                  ]
                },
                "resourceId": {
                  "default": 1,
                  "description": "ID of the text resource to fetch",
                  "type": "number"
                }
              }
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "get-structured-content",
            "title": "Get Structured Content Tool",
            "description": "Returns structured content along with an output schema for client data validation",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "location": {
                  "type": "string",
                  "enum": [
                    "New York",
                    "Chicago",
                    "Los Angeles"
                  ],
                  "description": "Choose city"
                }
              },
              "required": [
                "location"
              ]
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            },
            "outputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "temperature": {
                  "type": "number",
                  "description": "Temperature in celsius"
                },
                "conditions": {
                  "type": "string",
                  "description": "Weather conditions description"
                },
                "humidity": {
                  "type": "number",
                  "description": "Humidity percentage"
                }
              },
              "required": [
                "temperature",
                "conditions",
                "humidity"
              ],
              "additionalProperties": false
            }
          },
          {
            "name": "get-sum",
            "title": "Get Sum Tool",
            "description": "Returns the sum of two numbers",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "a": {
                  "type": "number",
                  "description": "First number"
                },
                "b": {
                  "type": "number",
                  "description": "Second number"
                }
              },
              "required": [
                "a",
                "b"
              ]
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "get-tiny-image",
            "title": "Get Tiny Image Tool",
            "description": "Returns a tiny MCP logo image.",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {}
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "gzip-file-as-resource",
            "title": "GZip File as Resource Tool",
            "description": "Compresses a single file using gzip compression. Depending upon the selected output type, returns either the compressed data as a gzipped resource or a resource link, allowing it to be downloaded in a subsequent request during the current session.",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "name": {
                  "default": "README.md.gz",
                  "type": "string",
                  "description": "Name of the output file"
                },
                "data": {
                  "default": "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",
                  "type": "string",
                  "format": "uri",
                  "description": "URL or data URI of the file content to compress"
                },
                "outputType": {
                  "default": "resourceLink",
                  "description": "How the resulting gzipped file should be returned. 'resourceLink' returns a link to a resource that can be read later, 'resource' returns a full resource object.",
                  "type": "string",
                  "enum": [
                    "resourceLink",
                    "resource"
                  ]
                }
              }
            },
            "annotations": {
              "readOnlyHint": false,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": true
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "toggle-simulated-logging",
            "title": "Toggle Simulated Logging",
            "description": "Toggles simulated, random-leveled logging on or off.",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {}
            },
            "annotations": {
              "readOnlyHint": false,
              "destructiveHint": false,
              "idempotentHint": false,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "toggle-subscriber-updates",
            "title": "Toggle Subscriber Updates",
            "description": "Toggles simulated resource subscription updates on or off.",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {}
            },
            "annotations": {
              "readOnlyHint": false,
              "destructiveHint": false,
              "idempotentHint": false,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "trigger-long-running-operation",
            "title": "Trigger Long Running Operation Tool",
            "description": "Demonstrates a long running operation with progress updates.",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "duration": {
                  "default": 10,
                  "description": "Duration of the operation in seconds",
                  "type": "number"
                },
                "steps": {
                  "default": 5,
                  "description": "Number of steps in the operation",
                  "type": "number"
                }
              }
            },
            "annotations": {
              "readOnlyHint": true,
              "destructiveHint": false,
              "idempotentHint": true,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "forbidden"
            }
          },
          {
            "name": "simulate-research-query",
            "title": "Simulate Research Query",
            "description": "Simulates a deep research operation that gathers, analyzes, and synthesizes information. Demonstrates MCP task-based operations with progress through multiple stages. If 'ambiguous' is true and client supports elicitation, sends an elicitation request for clarification.",
            "inputSchema": {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "type": "object",
              "properties": {
                "topic": {
                  "type": "string",
                  "description": "The research topic to investigate"
                },
                "ambiguous": {
                  "default": false,
                  "description": "Simulate an ambiguous query that requires clarification (triggers input_required status)",
                  "type": "boolean"
                }
              },
              "required": [
                "topic"
              ]
            },
            "annotations": {
              "readOnlyHint": false,
              "destructiveHint": false,
              "idempotentHint": false,
              "openWorldHint": false
            },
            "execution": {
              "taskSupport": "required"
            }
          }
        ]
      },
      "jsonrpc": "2.0",
      "id": 6
    }
  },
  "filesystem": {
    "read": {
      "result": {
        "content": [
          {
            "type": "text",
            "text": "line one\nline two\n"
          }
        ],
        "structuredContent": {
          "content": "line one\nline two\n"
        }
      },
      "jsonrpc": "2.0",
      "id": 2
    },
    "outside": {
      "result": {
        "content": [
          {
            "type": "text",
            "text": "Access denied - path outside allowed directories: /etc/hostname not in /data"
          }
        ],
        "isError": true
      },
      "jsonrpc": "2.0",
      "id": 3
    }
  }
};
