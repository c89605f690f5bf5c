//! The tools `mcpcheck mcp` lists: each one's name, description, input
//! schema, output schema (what its `structuredContent` validates against)
//! and annotations. `calls.rs` does what they say.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

/// Every tool, in the order they are listed.
pub const NAMES: [&str; 9] = [
    "doctor",
    "run_suite",
    "check_response",
    "check_trajectory",
    "lint_listing",
    "scan_listing",
    "explain_rule",
    "generate_tests",
    "validate_suite",
];

/// What a tool may do to its surroundings, as its annotations say.
#[derive(Clone, Copy)]
enum Effect {
    /// Reads its input (and files inside the roots) only.
    Reads,
    /// Starts the server the caller names, and writes nothing of its own.
    Starts,
    /// Runs what a suite says: servers, hooks, and the tool calls of its
    /// tests, which may change what those servers reach.
    RunsSuites,
    /// Writes new files when asked; never replaces one.
    Writes,
}

fn annotations(title: &str, effect: Effect) -> ToolAnnotations {
    let a = ToolAnnotations::with_title(title);
    match effect {
        Effect::Reads => a.read_only(true).idempotent(true).open_world(false),
        Effect::Starts => a
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(true),
        Effect::RunsSuites => a
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(true),
        Effect::Writes => a
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(true),
    }
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tool(
    name: &'static str,
    title: &str,
    effect: Effect,
    description: &'static str,
    input: Value,
    output: Value,
) -> Tool {
    let mut tool = Tool::new(name, description, object(input));
    tool.title = Some(title.to_string());
    tool.output_schema = Some(object(output));
    tool.annotations = Some(annotations(title, effect));
    tool
}

/// The properties that name a server: a command line or a URL.
fn target_properties() -> serde_json::Map<String, Value> {
    let Value::Object(map) = json!({
        "server": {
            "type": "string",
            "description": "The server to start on stdio, as a command line split like a shell would (node dist/index.js); give this or url."
        },
        "url": {
            "type": "string",
            "description": "The server's Streamable HTTP endpoint; give this or server."
        },
        "headers": {
            "type": "array",
            "items": {"type": "string"},
            "default": [],
            "description": "HTTP headers sent to url, each written `Name: value`."
        }
    }) else {
        return serde_json::Map::new();
    };
    map
}

fn with(mut base: serde_json::Map<String, Value>, more: Value) -> Value {
    if let Value::Object(more) = more {
        base.extend(more);
    }
    Value::Object(base)
}

/// The findings document (docs/findings.md) of doctor, lint and scan.
fn findings_schema() -> Value {
    json!({
        "type": "object",
        "required": ["version", "command", "subject", "passed", "counts", "findings"],
        "properties": {
            "version": {"type": "integer"},
            "command": {"type": "string"},
            "subject": {"type": "string"},
            "passed": {"type": "boolean", "description": "No finding fails the report."},
            "counts": {
                "type": "object",
                "properties": {
                    "error": {"type": "integer"},
                    "warning": {"type": "integer"},
                    "note": {"type": "integer"}
                }
            },
            "score": {"type": "integer"},
            "findings": {"type": "array", "items": {"$ref": "#/$defs/finding"}},
            "suppressed": {"type": "array", "items": {"$ref": "#/$defs/finding"}},
            "baselined": {"type": "integer"},
            "notes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}, "fails": {"type": "boolean"}}
                }
            },
            "rules": {
                "type": "object",
                "description": "doctor only: each rule with a finding, by code: title, level, severity, rationale, fix, source (`explain_rule` gives the same for any code).",
                "additionalProperties": {"type": "object"}
            }
        },
        "$defs": {
            "finding": {
                "type": "object",
                "required": ["code", "family", "level", "severity", "message"],
                "properties": {
                    "code": {"type": "string"},
                    "family": {"type": "string"},
                    "level": {"enum": ["error", "warning", "note"]},
                    "severity": {"type": "string"},
                    "server": {"type": "string"},
                    "kind": {"type": "string"},
                    "item": {"type": "string"},
                    "field": {"type": "string"},
                    "exchange": {"type": "integer"},
                    "context": {"type": "string"},
                    "file": {"type": "string"},
                    "message": {"type": "string"},
                    "evidence": {"type": "string"},
                    "details": {"type": "object"},
                    "reason": {"type": "string"}
                }
            }
        }
    })
}

/// One test's result (one element of a results document's `tests`).
fn test_schema() -> Value {
    json!({
        "type": "object",
        "required": ["name", "status", "duration_ms", "checks"],
        "properties": {
            "name": {"type": "string"},
            "file": {"type": "string"},
            "line": {"type": "integer"},
            "status": {"enum": ["pass", "fail", "error", "skip"]},
            "duration_ms": {"type": "integer"},
            "message": {"type": "string"},
            "checks": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "status"],
                    "properties": {
                        "name": {"type": "string"},
                        "status": {"type": "string"},
                        "code": {"type": "string"},
                        "target": {"type": "string"},
                        "matcher": {"type": "string"},
                        "expected": {"type": "string"},
                        "actual": {"type": "string"},
                        "reason": {"type": "string"}
                    }
                }
            },
            "score": {"type": "number"},
            "warnings": {"type": "array", "items": {"type": "string"}}
        }
    })
}

/// The results document of a run (docs/reports.md).
fn results_schema() -> Value {
    json!({
        "type": "object",
        "required": ["version", "tool", "summary", "tests"],
        "properties": {
            "version": {"type": "integer"},
            "tool": {"type": "object"},
            "summary": {
                "type": "object",
                "required": ["total", "passed", "failed", "errored", "skipped"],
                "properties": {
                    "total": {"type": "integer"},
                    "passed": {"type": "integer"},
                    "failed": {"type": "integer"},
                    "errored": {"type": "integer"},
                    "skipped": {"type": "integer"},
                    "duration_ms": {"type": "integer"}
                }
            },
            "tests": {"type": "array", "items": test_schema()}
        }
    })
}

/// Every tool.
#[allow(
    clippy::too_many_lines,
    reason = "a table of the tools, one entry each and no logic"
)]
pub fn tools() -> Vec<Tool> {
    let string_list = |description: &str| json!({"type": "array", "items": {"type": "string"}, "default": [], "description": description});
    vec![
        tool(
            "doctor",
            "Check a server",
            Effect::Starts,
            "Check one MCP server with no test file: lint and security scan of its listing, every tool, prompt and resource called once with valid input (never a tool that may write), protocol conformance, and for a URL the HTTP probes. Returns the findings report, each finding with its rule and how to fix it, and a score.",
            with(
                target_properties(),
                json!({
                    "fixture": {
                        "type": "string",
                        "description": "A directory copied for the server; the server's arguments that name it point at the copy, and the original is never written."
                    },
                    "lock": {
                        "type": "string",
                        "description": "A lockfile (from mcpcheck lock --write) to compare the server's surface with."
                    },
                    "fuzz": {"type": "boolean", "default": false, "description": "Also fuzz every tool that does not write."},
                    "strict": {"type": "boolean", "default": false, "description": "Warnings fail the report too."},
                    "part_timeout": {
                        "type": "string",
                        "default": "2m",
                        "description": "How long each part may take, as 30s, 2m or 500ms; a part past it is reported not verified."
                    }
                }),
            )
            .pipe(|properties| json!({"type": "object", "properties": properties, "additionalProperties": false})),
            findings_schema(),
        ),
        tool(
            "run_suite",
            "Run a test suite",
            Effect::RunsSuites,
            "Run a suite of tests (mcp-assert's files or composed files) against the servers it names, or against one command line given here. Returns the results document, the same as mcpcheck run --json: every test's verdict, each failing check with expected, actual and why.",
            json!({
                "type": "object",
                "required": ["suite"],
                "properties": {
                    "suite": {
                        "type": "string",
                        "description": "A suite file or directory (its .yaml and .yml files and those of its subdirectories)."
                    },
                    "server": {
                        "type": "string",
                        "description": "Run every stdio test against this command line instead of the one its file names."
                    },
                    "fixture": {
                        "type": "string",
                        "description": "A fixture directory the tests get as {{fixture}}, through a fresh copy."
                    },
                    "filter": string_list("Run only the tests whose name, or file:name, matches one of these globs."),
                    "timeout": {
                        "type": "string",
                        "default": "30s",
                        "description": "The timeout of a test that sets none, as 30s or 1m."
                    }
                },
                "additionalProperties": false
            }),
            results_schema(),
        ),
        tool(
            "check_response",
            "Check a response",
            Effect::Reads,
            "Check one saved MCP response against expectations written as in a suite file, without a server. Returns the test result: pass or fail, and every check with expected, actual and why.",
            json!({
                "type": "object",
                "required": ["expect", "response"],
                "properties": {
                    "expect": {
                        "type": ["object", "array"],
                        "description": "The expectations: a suite's expect map or list, or a document with expect and optional threshold, derivedMetrics and method.",
                        "examples": [{"contains": ["hello"]}]
                    },
                    "response": {
                        "type": "object",
                        "description": "The answer: a raw MCP result, a JSON-RPC response or an Observation.",
                        "examples": [{"content": [{"type": "text", "text": "hello"}]}]
                    },
                    "today": {
                        "type": "string",
                        "format": "date",
                        "description": "Today's date for dates_within_days (default: today, UTC)."
                    },
                    "files": {
                        "type": "object",
                        "additionalProperties": {"type": ["string", "null"]},
                        "default": {},
                        "description": "The files the file checks read after the call: path to content, null when absent."
                    },
                    "files_before": {
                        "type": "object",
                        "additionalProperties": {"type": ["string", "null"]},
                        "default": {},
                        "description": "The same files before the call, for the checks that compare."
                    }
                },
                "additionalProperties": false
            }),
            test_schema(),
        ),
        tool(
            "check_trajectory",
            "Check a trajectory",
            Effect::Reads,
            "Check a sequence of tool calls (a trace) against trajectory assertions: order, presence, absence, args_contain. Returns the test result with every check.",
            json!({
                "type": "object",
                "required": ["trace", "trajectory"],
                "properties": {
                    "trace": {
                        "type": "array",
                        "items": {"type": "object"},
                        "description": "The calls in order, each an object with tool and args.",
                        "examples": [[{"tool": "search", "args": {"query": "rust"}}]]
                    },
                    "trajectory": {
                        "type": "array",
                        "items": {"type": "object"},
                        "description": "The assertions, as a suite's trajectory list (type: order, presence, absence or args_contain).",
                        "examples": [[{"type": "presence", "tools": ["search"]}]]
                    },
                    "threshold": {
                        "type": "number",
                        "minimum": 0,
                        "maximum": 1,
                        "description": "Pass when at least this share of the assertions hold (default: every one)."
                    }
                },
                "additionalProperties": false
            }),
            test_schema(),
        ),
        tool(
            "lint_listing",
            "Lint a listing",
            Effect::Reads,
            "Check what a server lists (tools, prompts, resources, templates) against the rules clients and models depend on: descriptions, names, schemas, annotations. The listing is given inline; nothing is started. Returns the findings report.",
            json!({
                "type": "object",
                "required": ["listing"],
                "properties": {
                    "listing": {
                        "type": "object",
                        "description": "An object with tools, prompts, resources and resourceTemplates, a tools/list result, or a JSON-RPC response wrapping one.",
                        "examples": [{"tools": [{
                            "name": "search",
                            "description": "Search the documentation index for a phrase.",
                            "inputSchema": {
                                "type": "object",
                                "properties": {"query": {"type": "string", "description": "The phrase to look for."}},
                                "required": ["query"]
                            }
                        }]}]
                    },
                    "strict": {"type": "boolean", "default": false, "description": "Warnings fail the report too."},
                    "skip_rules": string_list("Codes of rules not to run.")
                },
                "additionalProperties": false
            }),
            findings_schema(),
        ),
        tool(
            "scan_listing",
            "Scan a listing",
            Effect::Reads,
            "Scan what servers list for tool poisoning, hidden characters, instructions aimed at the model, exfiltration targets, secrets and shadowing, offline. The listing is given inline; nothing is started. Returns the findings report.",
            json!({
                "type": "object",
                "required": ["listing"],
                "properties": {
                    "listing": {
                        "type": ["object", "array"],
                        "description": "One listing (as lint_listing takes it), or an array of listings, one per server, also compared with each other.",
                        "examples": [{"tools": [{"name": "search", "description": "Search the documentation index for a phrase."}]}]
                    },
                    "fail_on": {
                        "type": "string",
                        "enum": ["high", "medium", "low", "info"],
                        "default": "high",
                        "description": "The least severe finding that fails the report."
                    },
                    "skip_rules": string_list("Codes of rules not to run."),
                    "name": {"type": "string", "default": "listing", "description": "The label findings give the server."}
                },
                "additionalProperties": false
            }),
            findings_schema(),
        ),
        tool(
            "explain_rule",
            "Explain a rule",
            Effect::Reads,
            "Explain one rule of mcpcheck's registry by its code: what it catches, why, its source, an example, and how to fix what it finds.",
            json!({
                "type": "object",
                "required": ["code"],
                "properties": {
                    "code": {
                        "type": "string",
                        "description": "The rule's code (E103, S301, H101, INV-022, A101) or alias.",
                        "examples": ["E103"]
                    }
                },
                "additionalProperties": false
            }),
            json!({
                "type": "object",
                "required": ["code", "family", "level", "severity", "title", "rationale", "fix", "source"],
                "properties": {
                    "code": {"type": "string"},
                    "family": {"type": "string"},
                    "command": {"type": "string"},
                    "level": {"enum": ["error", "warning", "note"]},
                    "severity": {"type": "string"},
                    "severity_word": {"type": "string"},
                    "title": {"type": "string"},
                    "rationale": {"type": "string"},
                    "fix": {"type": "string"},
                    "source": {"type": "string"},
                    "category": {"type": "string"},
                    "aliases": {"type": "array", "items": {"type": "string"}},
                    "example": {"type": ["string", "null"]}
                }
            }),
        ),
        tool(
            "generate_tests",
            "Generate starter tests",
            Effect::Writes,
            "List a server's tools, prompts and resources and write a starter test for each, in mcp-assert's format (or one composed file). Without write_to nothing is written and the files' text is returned; with it, the files are written there, never over an existing one.",
            with(
                target_properties(),
                json!({
                    "composed": {
                        "type": "boolean",
                        "default": false,
                        "description": "One composed file (tests:, the server once, share_server) instead of a file per item."
                    },
                    "include_writes": {
                        "type": "boolean",
                        "default": false,
                        "description": "Write the tests of tools that may write without skip:."
                    },
                    "write_to": {
                        "type": "string",
                        "description": "Where to write: a directory, or the file with composed."
                    }
                }),
            )
            .pipe(|properties| json!({"type": "object", "properties": properties, "additionalProperties": false})),
            json!({
                "type": "object",
                "required": ["version", "server", "files", "written"],
                "properties": {
                    "version": {"type": "integer"},
                    "server": {"type": "string"},
                    "files": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["name", "kind", "item", "text"],
                            "properties": {
                                "name": {"type": "string"},
                                "kind": {"enum": ["tool", "prompt", "resource"]},
                                "item": {"type": "string"},
                                "text": {"type": "string"}
                            }
                        }
                    },
                    "composed": {"type": ["string", "null"]},
                    "skipped": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"tool": {"type": "string"}, "reason": {"type": "string"}}}
                    },
                    "placeholders": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"header": {"type": "string"}, "variable": {"type": "string"}}}
                    },
                    "resources_left_out": {"type": "integer"},
                    "unnamed": {"type": "integer"},
                    "written": {"type": "array", "items": {"type": "string"}}
                }
            }),
        ),
        tool(
            "validate_suite",
            "Validate a suite",
            Effect::Reads,
            "Load suite files and report every problem with its file, line, column and a hint, without running anything. Give a path to read, or the text of one file.",
            json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "A suite file or directory to read; with text, only the name the text is checked under."
                    },
                    "text": {
                        "type": "string",
                        "description": "The YAML of one suite file, checked as given.",
                        "examples": ["name: echo answers\nserver:\n  command: mcpcheck\n  args: [serve]\nassert:\n  tool: echo\n  args: {message: hi}\n  expect:\n    contains: [hi]\n"]
                    }
                },
                "additionalProperties": false
            }),
            json!({
                "type": "object",
                "required": ["version", "ok", "files", "tests", "errors", "warnings"],
                "properties": {
                    "version": {"type": "integer"},
                    "ok": {"type": "boolean", "description": "No file has an error."},
                    "tests": {"type": "integer"},
                    "errors": {"type": "integer"},
                    "warnings": {"type": "integer"},
                    "files": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["file", "ok", "tests", "diagnostics", "rendered"],
                            "properties": {
                                "file": {"type": "string"},
                                "ok": {"type": "boolean"},
                                "tests": {
                                    "type": "array",
                                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "line": {"type": "integer"}}}
                                },
                                "diagnostics": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["severity", "file", "message"],
                                        "properties": {
                                            "severity": {"enum": ["error", "warning"]},
                                            "file": {"type": "string"},
                                            "line": {"type": ["integer", "null"]},
                                            "column": {"type": ["integer", "null"]},
                                            "message": {"type": "string"},
                                            "hint": {"type": ["string", "null"]}
                                        }
                                    }
                                },
                                "rendered": {"type": "string"}
                            }
                        }
                    }
                }
            }),
        ),
    ]
}

/// `value.pipe(f)` is `f(value)`.
trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}

impl Pipe for Value {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_listed_once_in_order() {
        let names: Vec<String> = tools().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, NAMES);
    }

    #[test]
    fn every_example_and_default_is_valid_input() {
        for t in tools() {
            let schema = Value::Object((*t.input_schema).clone());
            let args = mcpcheck_core::probe::valid_arguments(&schema);
            let valid = mcpcheck_core::probe::input_valid(
                &schema,
                &mcpcheck_core::probe::Arguments::Value(args.clone()),
            );
            assert_eq!(valid, Some(true), "{}: {args}", t.name);
        }
    }

    #[test]
    fn only_the_tools_that_write_nothing_say_they_are_read_only() {
        for t in tools() {
            let a = t.annotations.clone().unwrap_or_default();
            let read_only = a.read_only_hint == Some(true);
            let writes = matches!(t.name.as_ref(), "doctor" | "run_suite" | "generate_tests");
            assert_eq!(read_only, !writes, "{}", t.name);
            if !read_only {
                assert!(a.destructive_hint.is_some(), "{}", t.name);
            }
        }
    }
}
