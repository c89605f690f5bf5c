//! The rows of the audit (`A`) and fuzz (`F`) families: one per class of a
//! call's outcome that is worth a finding. A healthy call and a skipped item
//! are no finding; a tool error is a note in an audit (the tool reported a
//! failure the way MCP asks) and a pass in a fuzz run (rejecting bad input
//! is what a tool should do). The class a call falls in is decided by
//! [`classify`](super::classify); these rows say what each class means for a
//! report.

use super::Status;
use crate::findings::{Family, Level, RuleInfo, Severity};

const AUDIT_BASE: RuleInfo = RuleInfo::of(Family::Audit);

const FUZZ_BASE: RuleInfo = RuleInfo::of(Family::Fuzz);

const CRASH_SOURCE: &str = "MCP 2025-11-25 basic/lifecycle §Operation, basic/transports (a server answers every request until shutdown)";
const TIMEOUT_SOURCE: &str = "MCP 2025-11-25 basic/lifecycle §Timeouts, basic/utilities/progress";
const PROTOCOL_SOURCE: &str = "MCP 2025-11-25 server/tools §Error Handling (tool failures are results with isError: true; JSON-RPC errors are for protocol problems)";
const JSON_SOURCE: &str = "MCP 2025-11-25 basic/transports §stdio (the server MUST NOT write anything to stdout that is not a valid MCP message)";
const SHAPE_SOURCE: &str =
    "MCP 2025-11-25 schema.json (CallToolResult, GetPromptResult, ReadResourceResult)";
const FLOOD_SOURCE: &str = "MCP 2025-11-25 basic/utilities/progress §Behavior Requirements (progress notifications SHOULD be rate-limited), basic/lifecycle §Operation";
const STATE_SOURCE: &str = "Schemathesis, stateful testing through links (schemathesis.readthedocs.io); awesome-mcp-security#327 (a resource still readable after its delete reported success)";
const OUTPUT_SOURCE: &str = "MCP 2025-11-25 server/tools §Output Schema (servers MUST provide structured results that conform to the schema)";

/// The audit family, in code order.
pub const AUDIT: [RuleInfo; 9] = [
    RuleInfo {
        code: "A101",
        title: crate::findings::prose!("Crash"),
        rationale: crate::findings::prose!(
            "The server exited, or closed the connection, before answering a call made with valid input."
        ),
        source: crate::findings::prose!(CRASH_SOURCE),
        fix: crate::findings::prose!(
            "Run the call shown (its input is in the report) and fix what makes the server exit; errors belong in the answer, not in an exit."
        ),
        category: "crash",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A102",
        title: crate::findings::prose!("Timeout"),
        rationale: crate::findings::prose!(
            "A call with valid input got no answer in time, so a client waits and then gives up."
        ),
        source: crate::findings::prose!(TIMEOUT_SOURCE),
        fix: crate::findings::prose!(
            "Answer within the time, send progress notifications on long work, or raise --timeout if the tool is documented as slow."
        ),
        category: "timeout",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A103",
        title: crate::findings::prose!("Protocol error for a tool failure"),
        rationale: crate::findings::prose!(
            "A call with valid input was answered with a JSON-RPC error (or an internal error) where a tool result with isError belongs, so the model never sees why the tool failed."
        ),
        source: crate::findings::prose!(PROTOCOL_SOURCE),
        fix: crate::findings::prose!(
            "Return tool failures as a result with isError: true and a text saying what went wrong; keep JSON-RPC errors for protocol problems."
        ),
        category: "protocol_error",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A104",
        title: crate::findings::prose!("Non-JSON output"),
        rationale: crate::findings::prose!(
            "The server wrote lines on stdout that are not JSON-RPC messages, which breaks or confuses the client reading them."
        ),
        source: crate::findings::prose!(JSON_SOURCE),
        fix: crate::findings::prose!(
            "Write only MCP messages to stdout; send logs and prints to stderr."
        ),
        category: "non_json_output",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A105",
        title: crate::findings::prose!("Invalid result"),
        rationale: crate::findings::prose!(
            "The answer does not have the shape of its method's result (content missing or of the wrong type), so clients reject or misread it."
        ),
        source: crate::findings::prose!(SHAPE_SOURCE),
        fix: crate::findings::prose!(
            "Return the result shape of the method: {\"content\": [...]} for tools/call, {\"messages\": [...]} for prompts/get, {\"contents\": [...]} for resources/read."
        ),
        category: "invalid_result",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A106",
        title: crate::findings::prose!("Output schema mismatch"),
        rationale: crate::findings::prose!(
            "structuredContent does not satisfy the tool's outputSchema, or is missing from a success although an outputSchema is declared."
        ),
        source: crate::findings::prose!(OUTPUT_SOURCE),
        fix: crate::findings::prose!(
            "Return structuredContent that validates against the outputSchema, or correct the schema to what the tool returns."
        ),
        category: "schema_mismatch",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A107",
        title: crate::findings::prose!("Flood"),
        rationale: crate::findings::prose!(
            "While a call with valid input was open the server sent an unbounded stream of notifications or output, which swamps a client as run's session limit does."
        ),
        source: crate::findings::prose!(FLOOD_SOURCE),
        fix: crate::findings::prose!(
            "Bound what one call sends: rate-limit progress and log notifications, and stop streaming when the work ends."
        ),
        category: "flood",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A301",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!("Tool error"),
        rationale: crate::findings::prose!(
            "A call with valid input was answered as a tool error (isError: true), or a prompt refused the arguments the audit guessed for it: the server reported a failure the way MCP asks; worth a look when the input was a sensible example."
        ),
        source: crate::findings::prose!(PROTOCOL_SOURCE),
        fix: crate::findings::prose!(
            "Nothing, if the input shown is one the tool should refuse; otherwise make the tool accept valid input (or tighten its schema so the input is not valid)."
        ),
        category: "tool_error",
        ..AUDIT_BASE
    },
    RuleInfo {
        code: "A302",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!("Error text in a success"),
        rationale: crate::findings::prose!(
            "A result without isError: true carries text that reads as an error (Error: …, failed to …, not allowed), so a client treats a failure as a success."
        ),
        source: crate::findings::prose!(PROTOCOL_SOURCE),
        fix: crate::findings::prose!(
            "Set isError: true on results that report a failure, so clients and models can tell them from answers."
        ),
        category: "error_text",
        ..AUDIT_BASE
    },
];

/// The fuzz family, in code order.
pub const FUZZ: [RuleInfo; 14] = [
    RuleInfo {
        code: "F101",
        title: crate::findings::prose!("Crash"),
        rationale: crate::findings::prose!(
            "An input made the server exit, or close the connection, before answering: one bad call takes the server down for every client."
        ),
        source: crate::findings::prose!(CRASH_SOURCE),
        fix: crate::findings::prose!(
            "Validate arguments against the input schema and answer bad input with a tool error; the report's input (shrunk where possible) reproduces it."
        ),
        category: "crash",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F102",
        title: crate::findings::prose!("Timeout"),
        rationale: crate::findings::prose!(
            "An input got no answer in time: the server hangs, loops or works unbounded on it."
        ),
        source: crate::findings::prose!(TIMEOUT_SOURCE),
        fix: crate::findings::prose!(
            "Bound the work an input can cause (sizes, counts, durations) and answer out-of-range input with a tool error."
        ),
        category: "timeout",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F103",
        title: crate::findings::prose!("Protocol error for bad input"),
        rationale: crate::findings::prose!(
            "An input was answered with a JSON-RPC internal error (or another protocol error) where a tool error belongs."
        ),
        source: crate::findings::prose!(PROTOCOL_SOURCE),
        fix: crate::findings::prose!(
            "Catch argument errors in the tool and return them as a result with isError: true; answer unknown arguments with -32602."
        ),
        category: "protocol_error",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F104",
        title: crate::findings::prose!("Non-JSON output"),
        rationale: crate::findings::prose!(
            "An input made the server write lines on stdout that are not JSON-RPC messages (a traceback, a print)."
        ),
        source: crate::findings::prose!(JSON_SOURCE),
        fix: crate::findings::prose!(
            "Write only MCP messages to stdout; send logs and tracebacks to stderr."
        ),
        category: "non_json_output",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F105",
        title: crate::findings::prose!("Invalid result"),
        rationale: crate::findings::prose!(
            "An input got an answer that does not have the shape of a tools/call result."
        ),
        source: crate::findings::prose!(SHAPE_SOURCE),
        fix: crate::findings::prose!(
            "Return {\"content\": [...]} (with isError: true for a failure) for every input."
        ),
        category: "invalid_result",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F106",
        title: crate::findings::prose!("Output schema mismatch"),
        rationale: crate::findings::prose!(
            "An input got structuredContent that does not satisfy the tool's outputSchema."
        ),
        source: crate::findings::prose!(OUTPUT_SOURCE),
        fix: crate::findings::prose!(
            "Return structuredContent that validates against the outputSchema for every success, or a tool error instead."
        ),
        category: "schema_mismatch",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F107",
        title: crate::findings::prose!("Flood"),
        rationale: crate::findings::prose!(
            "An input made the server send an unbounded stream of notifications or output while the call was open (a loop the input controls, such as a step count without a maximum)."
        ),
        source: crate::findings::prose!(FLOOD_SOURCE),
        fix: crate::findings::prose!(
            "Bound the work and the messages an input can cause (a maximum on counts and steps), and rate-limit notifications."
        ),
        category: "flood",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F201",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Invalid input accepted"),
        rationale: crate::findings::prose!(
            "An input the input schema rejects was accepted as a success, so the schema does not describe what the tool really takes, or the tool does not check its input."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §Security Considerations (servers MUST validate all tool inputs)"
        ),
        fix: crate::findings::prose!(
            "Validate arguments against the input schema and answer invalid input with a tool error, or widen the schema to what the tool accepts."
        ),
        category: "accepted_invalid",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F301",
        title: crate::findings::prose!("Read after delete"),
        rationale: crate::findings::prose!(
            "A key that a delete call reported deleted is still read successfully: the delete did not delete, or the read serves a stale copy (fuzz --stateful)."
        ),
        source: crate::findings::prose!(STATE_SOURCE),
        fix: crate::findings::prose!(
            "Make the delete remove the item (or report the failure as a tool error), and answer a read of a deleted key with a tool error; the regression test replays the sequence."
        ),
        category: "stateful",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F302",
        title: crate::findings::prose!("List after create"),
        rationale: crate::findings::prose!(
            "An item a create call reported created is missing from the list right after (fuzz --stateful)."
        ),
        source: crate::findings::prose!(STATE_SOURCE),
        fix: crate::findings::prose!(
            "Store the item before answering the create, and list from the same store."
        ),
        category: "stateful",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F303",
        title: crate::findings::prose!("Get after update"),
        rationale: crate::findings::prose!(
            "A read right after an update that reported success does not show the new value (fuzz --stateful)."
        ),
        source: crate::findings::prose!(STATE_SOURCE),
        fix: crate::findings::prose!(
            "Apply the update before answering it, or report it as a tool error when it was not applied."
        ),
        category: "stateful",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F304",
        title: crate::findings::prose!("List after delete"),
        rationale: crate::findings::prose!(
            "An item a delete call reported deleted is still listed (fuzz --stateful)."
        ),
        source: crate::findings::prose!(STATE_SOURCE),
        fix: crate::findings::prose!(
            "Remove the item from what the list reads when it is deleted."
        ),
        category: "stateful",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F305",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Repeated read differs"),
        rationale: crate::findings::prose!(
            "A tool annotated read-only answered the same arguments differently when called twice in a row: it changes state, or depends on something a read-only tool should not (fuzz --stateful)."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §Tool Annotations (readOnlyHint: the tool does not modify its environment)"
        ),
        fix: crate::findings::prose!(
            "Drop readOnlyHint if the tool changes anything; if it reads something that moves (a clock, a counter), say so in its description."
        ),
        category: "stateful",
        ..FUZZ_BASE
    },
    RuleInfo {
        code: "F306",
        title: crate::findings::prose!("Missing key answered with the wrong error"),
        rationale: crate::findings::prose!(
            "A lookup of a key that does not exist (never created, or deleted) was answered with an internal error (-32603, or a parse, request or method error) or a crash, where a tool error (isError: true) or -32602 belongs (fuzz --stateful)."
        ),
        source: crate::findings::prose!(PROTOCOL_SOURCE),
        fix: crate::findings::prose!(
            "Check that the key exists and answer \"not found\" as a tool error (isError: true) the model can read."
        ),
        category: "stateful",
        ..FUZZ_BASE
    },
];

/// The audit rule of a call's class; `None` for a healthy or skipped call.
pub fn audit_rule(status: Status) -> Option<&'static RuleInfo> {
    let code = match status {
        Status::Crash => "A101",
        Status::Timeout => "A102",
        Status::ProtocolError => "A103",
        Status::NonJsonOutput => "A104",
        Status::InvalidResult => "A105",
        Status::SchemaMismatch => "A106",
        Status::Flood => "A107",
        Status::ToolError => "A301",
        // Audit sends valid input only; were it judged invalid, it is the
        // schema's problem, which lint reports.
        Status::AcceptedInvalid | Status::Healthy | Status::Skipped => return None,
    };
    AUDIT.iter().find(|r| r.code == code)
}

/// The fuzz rule of an input's class; `None` for a passed input (healthy or
/// a tool error) or a skipped tool.
pub fn fuzz_rule(status: Status) -> Option<&'static RuleInfo> {
    let code = match status {
        Status::Crash => "F101",
        Status::Timeout => "F102",
        Status::ProtocolError => "F103",
        Status::NonJsonOutput => "F104",
        Status::InvalidResult => "F105",
        Status::SchemaMismatch => "F106",
        Status::Flood => "F107",
        Status::AcceptedInvalid => "F201",
        Status::Healthy | Status::ToolError | Status::Skipped => return None,
    };
    FUZZ.iter().find(|r| r.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_fails_exactly_when_its_status_is_serious() {
        for status in Status::ALL {
            if let Some(rule) = audit_rule(status) {
                assert_eq!(
                    rule.level == Level::Error,
                    status.is_serious(),
                    "{status:?}"
                );
            }
            match fuzz_rule(status) {
                Some(rule) => {
                    assert!(!status.fuzz_passed(), "{status:?}");
                    assert_eq!(
                        rule.level == Level::Error,
                        status.is_serious(),
                        "{status:?}"
                    );
                }
                None => assert!(
                    status.fuzz_passed() || status == Status::Skipped,
                    "{status:?}"
                ),
            }
        }
    }
}
