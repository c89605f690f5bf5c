// Responses recorded from real MCP servers by web/play/examples/record.mjs
// (server-everything and server-filesystem, as pinned in tests/node-servers,
// and mcpcheck serve).
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
  },
  "serve": {
    "tools": {
      "jsonrpc": "2.0",
      "id": 2,
      "result": {
        "tools": [
          {
            "name": "echo",
            "description": "Returns `message` unchanged as a single text block.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "message": {
                  "description": "text to return",
                  "type": "string"
                }
              },
              "required": [
                "message"
              ],
              "type": "object"
            }
          },
          {
            "name": "add",
            "description": "Returns the sum of `a` and `b` as text; integers stay integers.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "a": {
                  "description": "first addend",
                  "type": "number"
                },
                "b": {
                  "description": "second addend",
                  "type": "number"
                }
              },
              "required": [
                "a",
                "b"
              ],
              "type": "object"
            }
          },
          {
            "name": "lorem",
            "description": "Returns `words` lowercase lorem-ipsum words separated by single spaces. The text is a pure function of `words` and `seed`: same seed, same text.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "seed": {
                  "description": "seed; defaults to the empty string",
                  "type": "string"
                },
                "words": {
                  "description": "number of words; defaults to 50 when absent or zero",
                  "maximum": 100000,
                  "minimum": 0,
                  "type": "integer"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "progress",
            "description": "Sleeps `steps` times for `delay_ms`, sending notifications/progress after each step when the request carries a progressToken, then returns `completed N steps`.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "delay_ms": {
                  "description": "delay before each step in milliseconds; defaults to 10",
                  "maximum": 60000,
                  "minimum": 0,
                  "type": "integer"
                },
                "steps": {
                  "description": "number of steps; defaults to 3",
                  "maximum": 1000,
                  "minimum": 0,
                  "type": "integer"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "slow",
            "description": "Sleeps `ms` milliseconds, then returns `slept N ms`.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "ms": {
                  "description": "milliseconds to sleep; defaults to 1000",
                  "maximum": 600000,
                  "minimum": 0,
                  "type": "integer"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "fail",
            "description": "Always returns a tool error (isError: true) whose text is `message`.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "message": {
                  "description": "error text; defaults to `the fail tool always fails`",
                  "type": "string"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "structured",
            "description": "Returns fixed weather data for `city` as structuredContent that matches the outputSchema, mirrored as JSON in a text block.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "description": "city name; defaults to Lisbon",
                  "type": "string"
                }
              },
              "type": "object"
            },
            "outputSchema": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "type": "string"
                },
                "conditions": {
                  "type": "string"
                },
                "humidity": {
                  "description": "percent",
                  "maximum": 100,
                  "minimum": 0,
                  "type": "integer"
                },
                "temperature": {
                  "description": "degrees Celsius",
                  "type": "number"
                }
              },
              "required": [
                "city",
                "temperature",
                "conditions",
                "humidity"
              ],
              "type": "object"
            }
          },
          {
            "name": "structured_wrong",
            "description": "Like `structured`, but its structuredContent violates the outputSchema: `humidity` is a string where an integer is required.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "description": "city name; defaults to Lisbon",
                  "type": "string"
                }
              },
              "type": "object"
            },
            "outputSchema": {
              "additionalProperties": false,
              "properties": {
                "city": {
                  "type": "string"
                },
                "conditions": {
                  "type": "string"
                },
                "humidity": {
                  "description": "percent",
                  "maximum": 100,
                  "minimum": 0,
                  "type": "integer"
                },
                "temperature": {
                  "description": "degrees Celsius",
                  "type": "number"
                }
              },
              "required": [
                "city",
                "temperature",
                "conditions",
                "humidity"
              ],
              "type": "object"
            }
          },
          {
            "name": "big",
            "description": "Returns a text block of exactly `bytes` bytes: the letters a to z, repeated.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "bytes": {
                  "description": "size of the text in bytes; defaults to 1024",
                  "maximum": 67108864,
                  "minimum": 0,
                  "type": "integer"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "log",
            "description": "Sends notifications/message at `level` with `message` as data, unless the level is below the one set by logging/setLevel; returns what it did.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "level": {
                  "description": "log level; defaults to info",
                  "enum": [
                    "debug",
                    "info",
                    "notice",
                    "warning",
                    "error",
                    "critical",
                    "alert",
                    "emergency"
                  ],
                  "type": "string"
                },
                "message": {
                  "description": "log data; defaults to `hello from mcpcheck serve`",
                  "type": "string"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "sample",
            "description": "Asks the client sampling/createMessage with `prompt` as the user message and returns the text of the answer.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "prompt": {
                  "description": "user message; defaults to `Say hello.`",
                  "type": "string"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "elicit",
            "description": "Asks the client elicitation/create with `message` and a one-field form (`answer`, a string) and returns the client's result as JSON.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "message": {
                  "description": "message shown to the user; defaults to `Please enter a value.`",
                  "type": "string"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "roots",
            "description": "Asks the client roots/list and returns the roots as a JSON array.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {},
              "type": "object"
            }
          },
          {
            "name": "add_tool",
            "description": "Registers a tool named `name` that echoes `message` like `echo`, then sends notifications/tools/list_changed. Registered tools last for the session.",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {
                "name": {
                  "description": "name of the new tool; defaults to dynamic_N, N counting from 1",
                  "pattern": "^[A-Za-z0-9_.-]{1,64}$",
                  "type": "string"
                }
              },
              "type": "object"
            }
          },
          {
            "name": "whoami",
            "description": "Returns the caller's identity: `anonymous` without authentication, else the label of the credential that matched (`api-key#1`, `bearer#2`, ...).",
            "inputSchema": {
              "additionalProperties": false,
              "properties": {},
              "type": "object"
            }
          }
        ]
      }
    },
    "structured_wrong": {
      "jsonrpc": "2.0",
      "id": 3,
      "result": {
        "content": [
          {
            "type": "text",
            "text": "{\"city\":\"Porto\",\"conditions\":\"Partly cloudy\",\"humidity\":\"65%\",\"temperature\":22.5}"
          }
        ],
        "structuredContent": {
          "city": "Porto",
          "conditions": "Partly cloudy",
          "humidity": "65%",
          "temperature": 22.5
        },
        "isError": false
      }
    },
    "lorem": {
      "jsonrpc": "2.0",
      "id": 4,
      "result": {
        "content": [
          {
            "type": "text",
            "text": "dolor magna esse consequat sit laboris elit officia fugiat anim incididunt cupidatat"
          }
        ],
        "isError": false
      }
    },
    "fail": {
      "jsonrpc": "2.0",
      "id": 5,
      "result": {
        "content": [
          {
            "type": "text",
            "text": "the upstream service is down"
          }
        ],
        "isError": true
      }
    },
    "echo": {
      "jsonrpc": "2.0",
      "id": 6,
      "result": {
        "content": [
          {
            "type": "text",
            "text": "unknown argument `token`; expected: message"
          }
        ],
        "isError": true
      }
    },
    "audit_log": "{\"args\":{\"city\":\"Porto\"},\"duration_ms\":0,\"identity\":\"anonymous\",\"is_error\":false,\"response_bytes\":276,\"time\":\"2026-11-22T17:05:59.629Z\",\"tool\":\"structured_wrong\"}\n{\"args\":{\"seed\":\"playground\",\"words\":12},\"duration_ms\":0,\"identity\":\"anonymous\",\"is_error\":false,\"response_bytes\":163,\"time\":\"2026-11-22T17:05:59.629Z\",\"tool\":\"lorem\"}\n{\"args\":{\"message\":\"the upstream service is down\"},\"duration_ms\":0,\"identity\":\"anonymous\",\"is_error\":true,\"response_bytes\":106,\"time\":\"2026-11-22T17:05:59.630Z\",\"tool\":\"fail\"}\n{\"args\":{\"message\":\"done\",\"token\":\"***\"},\"duration_ms\":0,\"identity\":\"anonymous\",\"is_error\":true,\"response_bytes\":121,\"time\":\"2026-11-22T17:05:59.630Z\",\"tool\":\"echo\"}\n"
  }
};
