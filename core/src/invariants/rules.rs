//! The catalogue of invariants: one row per rule, the single source for IDs,
//! categories, one-line properties and spec citations.
//!
//! INV-001 … INV-007 are mcptest's conformance invariants, with the properties worded
//! exactly as mcptest documents them. The rest come from the MCP specification
//! revisions vendored under `core/schemas/mcp/` (spec text: the revision's `docs/`);
//! each row cites the revision and section it enforces. The schema family
//! (INV-030 … INV-033) validates every message against the official JSON schema of
//! the session's revision. Composition hazards are listed by [`HAZARDS`].

use crate::findings::{Family, Level, RuleInfo, Severity};

/// One invariant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// INV-001: initialize comes first.
    InitializeFirst,
    /// INV-002: notifications/initialized follows the initialize response.
    InitializedFollows,
    /// INV-003: list answers need the matching capability.
    ListNeedsCapability,
    /// INV-004: an advertised capability does not fail every call.
    CapabilityNotAllErrors,
    /// INV-005: tools/call result shape.
    ToolResultShape,
    /// INV-006: error envelope shape.
    ErrorEnvelope,
    /// INV-007: method-not-found uses -32601.
    MethodNotFoundCode,
    /// INV-008: every response answers exactly one earlier request.
    ResponseAnswersOne,
    /// INV-009: no response without a request.
    NoResponseWithoutRequest,
    /// INV-010: result xor error.
    ResultXorError,
    /// INV-011: notifications carry no id.
    NotificationNoId,
    /// INV-012: progress tokens and increasing values.
    Progress,
    /// INV-013: structuredContent matches outputSchema.
    OutputSchema,
    /// INV-014: tool naming rule.
    ToolNames,
    /// INV-015: list_changed needs the capability.
    ListChangedCapability,
    /// INV-016: resources/updated needs the subscribe capability.
    ResourceUpdatedCapability,
    /// INV-017: log messages need the logging capability.
    LoggingCapability,
    /// INV-018: server→client requests need the client capability.
    ClientCapability,
    /// INV-019: a known protocol version.
    KnownProtocolVersion,
    /// INV-020: pagination cursors do not loop.
    CursorLoop,
    /// INV-021: the server writes only JSON.
    ServerWritesJson,
    /// INV-022: every request gets an answer.
    RequestAnswered,
    /// INV-030: requests match their schema type.
    SchemaRequest,
    /// INV-031: results match the result type of their request.
    SchemaResult,
    /// INV-032: notifications match their schema type.
    SchemaNotification,
    /// INV-033: error responses match the JSON-RPC error shape.
    SchemaError,
    /// INV-040: 2026-07-28 requests without the required `_meta` are refused with -32602 (HTTP 400).
    MetaRequired,
    /// INV-041: an unsupported protocol version is refused with -32022 (HTTP 400).
    UnsupportedVersion,
    /// INV-042: an MCP-Protocol-Version header that differs from `_meta` is refused with -32020 (HTTP 400).
    HeaderMismatch,
    /// INV-043: removed and unknown methods are refused with -32601 (HTTP 404).
    RemovedMethod,
    /// INV-044: server/discover describes the server.
    DiscoverResult,
    /// INV-045: every 2026-07-28 result carries resultType.
    ResultType,
    /// INV-046: subscriptions/listen acknowledges first and tags its notifications.
    ListenStream,
    /// INV-047: Mcp-Method and Mcp-Name headers that do not mirror the body are refused.
    RoutingHeaders,
    /// INV-048: x-mcp-header annotations are valid, and Mcp-Param headers that do not
    /// mirror the arguments are refused.
    ParamHeaders,
    /// INV-049: a missing client capability is refused with -32021 naming it.
    MissingClientCapability,
    /// INV-050: results name the server in `_meta` (a recommendation).
    ServerInfo,
    /// INV-051: server/discover is stable within its TTL (a recommendation).
    DiscoverStable,
    /// INV-052: a subscriptions/listen stream carries only what its filter asked for.
    ListenFilter,
    /// INV-053: cacheable results carry ttlMs and cacheScope, interim results none.
    CachingHints,
    /// INV-054: trace context in `_meta` follows W3C Trace Context.
    TraceContext,
    /// INV-055: no deprecated feature in use (a note).
    Deprecated,
    /// INV-056: a missing 2026-07-28 resource is refused with -32602; retired codes unused.
    ResourceNotFound,
    /// INV-057: the recommended codes for an unknown prompt and (handshake era) resource.
    NotFoundCodes,
    // The extensions (INV-1NN; `tasks.rs`, `skills.rs`, `apps.rs`): their rows
    // come after the hazards' in INFOS.
    /// INV-100: no CreateTaskResult or tasks/* answer without the declared extension.
    TaskUndeclared,
    /// INV-101: resultType task on task handles, complete on tasks/* answers.
    TaskResultType,
    /// INV-102: a legal task lifecycle.
    TaskLifecycle,
    /// INV-103: terminal states surfaced.
    TaskTerminal,
    /// INV-104: no progress or log messages on the task stream.
    TaskStream,
    /// INV-105: a sane pollIntervalMs.
    TaskPollInterval,
    /// INV-110: declaring skills commits to skills/list and skills/get.
    SkillsMethods,
    /// INV-111: skills require resources.
    SkillsResources,
    /// INV-112: entries atomic across pages.
    SkillsAtomic,
    /// INV-113: complete manifests.
    SkillsManifest,
    /// INV-114: digests that match the bytes.
    SkillsDigest,
    /// INV-115: sizes that match the bytes.
    SkillsSize,
    /// INV-116: URIs inside the skill root.
    SkillsRoot,
    /// INV-117: at most 512 entries and 16 MiB.
    SkillsLimits,
    /// INV-118: the frontmatter name equals the path segment.
    SkillsName,
    /// INV-119: the reserved io.modelcontextprotocol/ prefix.
    SkillsReservedPrefix,
    /// INV-120: an unknown URI gets -32602.
    SkillsUnknownUri,
    /// INV-130: resourceUri names an existing ui:// resource.
    AppResource,
    /// INV-131: mimeType text/html;profile=mcp-app.
    AppMimeType,
    /// INV-132: the payload is an HTML5 document.
    AppHtml,
    /// INV-133: CSP lists are origins.
    AppCsp,
    /// INV-134: visibility within {model, app}.
    AppVisibility,
    /// INV-135: the deprecated flat ui/resourceUri.
    AppFlatMeta,
    /// INV-136: a tool with a UI still returns content.
    AppContent,
}

/// Every rule, in ID order.
pub const ALL: [Rule; 68] = [
    Rule::InitializeFirst,
    Rule::InitializedFollows,
    Rule::ListNeedsCapability,
    Rule::CapabilityNotAllErrors,
    Rule::ToolResultShape,
    Rule::ErrorEnvelope,
    Rule::MethodNotFoundCode,
    Rule::ResponseAnswersOne,
    Rule::NoResponseWithoutRequest,
    Rule::ResultXorError,
    Rule::NotificationNoId,
    Rule::Progress,
    Rule::OutputSchema,
    Rule::ToolNames,
    Rule::ListChangedCapability,
    Rule::ResourceUpdatedCapability,
    Rule::LoggingCapability,
    Rule::ClientCapability,
    Rule::KnownProtocolVersion,
    Rule::CursorLoop,
    Rule::ServerWritesJson,
    Rule::RequestAnswered,
    Rule::SchemaRequest,
    Rule::SchemaResult,
    Rule::SchemaNotification,
    Rule::SchemaError,
    Rule::MetaRequired,
    Rule::UnsupportedVersion,
    Rule::HeaderMismatch,
    Rule::RemovedMethod,
    Rule::DiscoverResult,
    Rule::ResultType,
    Rule::ListenStream,
    Rule::RoutingHeaders,
    Rule::ParamHeaders,
    Rule::MissingClientCapability,
    Rule::ServerInfo,
    Rule::DiscoverStable,
    Rule::ListenFilter,
    Rule::CachingHints,
    Rule::TraceContext,
    Rule::Deprecated,
    Rule::ResourceNotFound,
    Rule::NotFoundCodes,
    Rule::TaskUndeclared,
    Rule::TaskResultType,
    Rule::TaskLifecycle,
    Rule::TaskTerminal,
    Rule::TaskStream,
    Rule::TaskPollInterval,
    Rule::SkillsMethods,
    Rule::SkillsResources,
    Rule::SkillsAtomic,
    Rule::SkillsManifest,
    Rule::SkillsDigest,
    Rule::SkillsSize,
    Rule::SkillsRoot,
    Rule::SkillsLimits,
    Rule::SkillsName,
    Rule::SkillsReservedPrefix,
    Rule::SkillsUnknownUri,
    Rule::AppResource,
    Rule::AppMimeType,
    Rule::AppHtml,
    Rule::AppCsp,
    Rule::AppVisibility,
    Rule::AppFlatMeta,
    Rule::AppContent,
];

impl Rule {
    /// The rule's published description.
    pub fn info(self) -> &'static RuleInfo {
        // One row per variant, in declaration order (the test below holds them to
        // it); the extensions' rows follow the hazards'.
        let index = self as usize;
        if index >= Rule::FIRST_EXTENSION as usize {
            &INFOS[index + HAZARDS.len()]
        } else {
            &INFOS[index]
        }
    }

    /// `INV-NNN`.
    pub fn id(self) -> &'static str {
        self.info().code
    }

    /// The rule's category.
    pub fn category(self) -> &'static str {
        self.info().category
    }

    /// The first rule of the extensions (tasks, skills, apps).
    pub const FIRST_EXTENSION: Rule = Rule::TaskUndeclared;
}

/// What every invariant shares.
const BASE: RuleInfo = RuleInfo::of(Family::Invariants);

/// The rows, in the order of [`Rule`]'s variants.
pub const INFOS: [RuleInfo; 70] = [
    RuleInfo {
        code: "INV-001",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("initialize is the first request the client sends."),
        rationale: crate::findings::prose!("initialize is the first request the client sends."),
        source: crate::findings::prose!(
            "mcptest INV-001; MCP 2025-11-25 basic/lifecycle §Initialization (handshake revisions, up to 2025-11-25)"
        ),
        fix: crate::findings::prose!(
            "Send nothing before initialize, and answer requests that come before it with an error; the client must send initialize first."
        ),
        category: "lifecycle",
        ..BASE
    },
    RuleInfo {
        code: "INV-002",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "The notifications/initialized notification follows the initialize response."
        ),
        rationale: crate::findings::prose!(
            "The notifications/initialized notification follows the initialize response."
        ),
        source: crate::findings::prose!(
            "mcptest INV-002; MCP 2025-11-25 basic/lifecycle §Initialization (handshake revisions, up to 2025-11-25)"
        ),
        fix: crate::findings::prose!(
            "Send notifications/initialized right after the initialize response (a client's duty; a server should not act before it)."
        ),
        category: "lifecycle",
        ..BASE
    },
    RuleInfo {
        code: "INV-003",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server that answers tools/list, resources/list, or prompts/list advertised the matching capability at initialize."
        ),
        rationale: crate::findings::prose!(
            "A server that answers tools/list, resources/list, or prompts/list advertised the matching capability at initialize."
        ),
        source: crate::findings::prose!(
            "mcptest INV-003; MCP 2025-11-25 basic/lifecycle §Capability Negotiation"
        ),
        fix: crate::findings::prose!(
            "Advertise the capability (tools, resources, prompts) at initialize for every listing the server answers."
        ),
        category: "capability",
        ..BASE
    },
    RuleInfo {
        code: "INV-004",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server that advertised a capability does not error on every call to it."
        ),
        rationale: crate::findings::prose!(
            "A server that advertised a capability does not error on every call to it."
        ),
        source: crate::findings::prose!(
            "mcptest INV-004; MCP 2025-11-25 basic/lifecycle §Operation"
        ),
        fix: crate::findings::prose!(
            "Make the advertised capability work, or stop advertising it."
        ),
        category: "capability",
        ..BASE
    },
    RuleInfo {
        code: "INV-005",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A successful tools/call result carries a content array or a structuredContent object, and a boolean isError when present."
        ),
        rationale: crate::findings::prose!(
            "A successful tools/call result carries a content array or a structuredContent object, and a boolean isError when present."
        ),
        source: crate::findings::prose!(
            "mcptest INV-005; MCP 2025-11-25 server/tools §Tool Result"
        ),
        fix: crate::findings::prose!(
            "Return {\"content\": [...]} (and structuredContent where there is an outputSchema) from tools/call, with isError a boolean when present."
        ),
        category: "result-shape",
        ..BASE
    },
    RuleInfo {
        code: "INV-006",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every JSON-RPC error envelope carries an integer code and a string message."
        ),
        rationale: crate::findings::prose!(
            "Every JSON-RPC error envelope carries an integer code and a string message."
        ),
        source: crate::findings::prose!(
            "mcptest INV-006; MCP 2025-11-25 basic/index §Error Responses"
        ),
        fix: crate::findings::prose!(
            "Send every error as {\"code\": <integer>, \"message\": <string>}, with data optional."
        ),
        category: "error-envelope",
        ..BASE
    },
    RuleInfo {
        code: "INV-007",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("A method-not-found error uses JSON-RPC code -32601."),
        rationale: crate::findings::prose!("A method-not-found error uses JSON-RPC code -32601."),
        source: crate::findings::prose!(
            "mcptest INV-007; JSON-RPC 2.0 §5.1; MCP 2025-11-25 server/utilities/completion §Error Handling; MCP 2026-07-28 schema MethodNotFoundError"
        ),
        fix: crate::findings::prose!("Answer unknown methods with code -32601 (Method not found)."),
        category: "error-envelope",
        ..BASE
    },
    RuleInfo {
        code: "INV-008",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every response id answers exactly one earlier request: request ids are not reused, a response carries its request's id, and no request is answered twice."
        ),
        rationale: crate::findings::prose!(
            "Every response id answers exactly one earlier request: request ids are not reused, a response carries its request's id, and no request is answered twice."
        ),
        source: crate::findings::prose!("MCP 2025-11-25 basic/index §Requests, §Responses"),
        fix: crate::findings::prose!("Answer each request exactly once, with its own id."),
        category: "jsonrpc",
        ..BASE
    },
    RuleInfo {
        code: "INV-009",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "No response without a request: every response names a request that was sent, and notifications are not answered."
        ),
        rationale: crate::findings::prose!(
            "No response without a request: every response names a request that was sent, and notifications are not answered."
        ),
        source: crate::findings::prose!("MCP 2025-11-25 basic/index §Responses, §Notifications"),
        fix: crate::findings::prose!(
            "Send responses only to requests that were made, and never answer a notification."
        ),
        category: "jsonrpc",
        ..BASE
    },
    RuleInfo {
        code: "INV-010",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("A response carries exactly one of result and error."),
        rationale: crate::findings::prose!("A response carries exactly one of result and error."),
        source: crate::findings::prose!(
            "MCP 2025-11-25 basic/index §Result Responses, §Error Responses; JSON-RPC 2.0 §5"
        ),
        fix: crate::findings::prose!(
            "Send either result or error in a response, never both and never neither."
        ),
        category: "jsonrpc",
        ..BASE
    },
    RuleInfo {
        code: "INV-011",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Notifications carry no id."),
        rationale: crate::findings::prose!("Notifications carry no id."),
        source: crate::findings::prose!("MCP 2025-11-25 basic/index §Notifications"),
        fix: crate::findings::prose!("Send notifications without an id."),
        category: "jsonrpc",
        ..BASE
    },
    RuleInfo {
        code: "INV-012",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Progress notifications use a token the client sent with a request that is still in progress, and their progress value increases."
        ),
        rationale: crate::findings::prose!(
            "Progress notifications use a token the client sent with a request that is still in progress, and their progress value increases."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 basic/utilities/progress §Progress Flow, §Behavior Requirements"
        ),
        fix: crate::findings::prose!(
            "Send progress only with a token the request carried, while it is in progress, with progress increasing."
        ),
        category: "progress",
        ..BASE
    },
    RuleInfo {
        code: "INV-013",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A tool that declares an outputSchema returns structuredContent that validates against it (the schema from the same session's tools/list)."
        ),
        rationale: crate::findings::prose!(
            "A tool that declares an outputSchema returns structuredContent that validates against it (the schema from the same session's tools/list)."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §Output Schema; MCP 2026-07-28 basic/index §$ref Resolution"
        ),
        fix: crate::findings::prose!(
            "Make structuredContent validate against the tool's outputSchema, or fix the schema to describe what the tool returns."
        ),
        category: "tools",
        ..BASE
    },
    RuleInfo {
        code: "INV-014",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Tool names are 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.', and unique within the server's tool list."
        ),
        rationale: crate::findings::prose!(
            "Tool names are 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.', and unique within the server's tool list."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §Tool Names (sessions on 2025-11-25 or later)"
        ),
        fix: crate::findings::prose!(
            "Use tool names of 1-128 characters of A-Z, a-z, 0-9, '_', '-' and '.', unique within the server."
        ),
        category: "tools",
        ..BASE
    },
    RuleInfo {
        code: "INV-015",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server sends tools, prompts or resources list_changed notifications only when it advertised listChanged for that capability."
        ),
        rationale: crate::findings::prose!(
            "A server sends tools, prompts or resources list_changed notifications only when it advertised listChanged for that capability."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §Capabilities, server/prompts §Capabilities, server/resources §Capabilities"
        ),
        fix: crate::findings::prose!(
            "Advertise listChanged for the capability before sending its list_changed notifications, or stop sending them."
        ),
        category: "capability",
        ..BASE
    },
    RuleInfo {
        code: "INV-016",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server sends notifications/resources/updated only when it advertised resources.subscribe."
        ),
        rationale: crate::findings::prose!(
            "A server sends notifications/resources/updated only when it advertised resources.subscribe."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/resources §Capabilities, §Subscriptions"
        ),
        fix: crate::findings::prose!(
            "Advertise resources.subscribe before sending notifications/resources/updated."
        ),
        category: "capability",
        ..BASE
    },
    RuleInfo {
        code: "INV-017",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server sends notifications/message only when it advertised the logging capability (and, from 2026-07-28, only for requests that set a log level)."
        ),
        rationale: crate::findings::prose!(
            "A server sends notifications/message only when it advertised the logging capability (and, from 2026-07-28, only for requests that set a log level)."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/utilities/logging §Capabilities; MCP 2026-07-28 server/utilities/logging §Requesting Log Messages"
        ),
        fix: crate::findings::prose!(
            "Advertise logging before sending notifications/message (and in 2026-07-28, send them only for requests that set a log level)."
        ),
        category: "capability",
        ..BASE
    },
    RuleInfo {
        code: "INV-018",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server makes sampling, elicitation and roots requests only when the client declared the matching capability (sampling.tools for tool use, the elicitation mode used)."
        ),
        rationale: crate::findings::prose!(
            "A server makes sampling, elicitation and roots requests only when the client declared the matching capability (sampling.tools for tool use, the elicitation mode used)."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 client/sampling §Capabilities, client/elicitation §Capabilities, client/roots §Capabilities; MCP 2026-07-28 basic/patterns/mrtr §Server Requirements (Basic Workflow)"
        ),
        fix: crate::findings::prose!(
            "Ask the client for sampling, elicitation or roots only when it declared the capability; check clientCapabilities first."
        ),
        category: "capability",
        ..BASE
    },
    RuleInfo {
        code: "INV-019",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "The negotiated protocolVersion is a revision the specification defines, of the era that negotiated it: initialize negotiates only a handshake revision (up to 2025-11-25)."
        ),
        rationale: crate::findings::prose!(
            "The negotiated protocolVersion is a revision the specification defines, of the era that negotiated it: 2026-07-28 has no initialize, so an initialize that answers it names a revision the session cannot speak."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 basic/lifecycle §Version Negotiation; MCP 2026-07-28 basic/versioning §Protocol Version Negotiation, §Backward Compatibility with Initialization-Based Versions"
        ),
        fix: crate::findings::prose!(
            "Negotiate a protocol version the specification defines (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28), and at initialize one of the handshake revisions (up to 2025-11-25)."
        ),
        category: "lifecycle",
        ..BASE
    },
    RuleInfo {
        code: "INV-020",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Following nextCursor never returns to a cursor already seen in the same listing."
        ),
        rationale: crate::findings::prose!(
            "Following nextCursor never returns to a cursor already seen in the same listing."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/utilities/pagination §Pagination Model, §Implementation Guidelines"
        ),
        fix: crate::findings::prose!(
            "Make each nextCursor lead forward; end the listing by leaving nextCursor out."
        ),
        category: "pagination",
        ..BASE
    },
    RuleInfo {
        code: "INV-021",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Everything the server writes is a JSON message; no line is non-JSON."
        ),
        rationale: crate::findings::prose!(
            "Everything the server writes is a JSON message; no line is non-JSON."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 basic/transports §stdio; MCP 2025-11-25 basic/index §Messages"
        ),
        fix: crate::findings::prose!(
            "Write only JSON-RPC messages to stdout; send logs to stderr."
        ),
        category: "transport",
        ..BASE
    },
    RuleInfo {
        code: "INV-022",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every request the client sent is answered, unless the client cancelled it or stopped waiting by a limit of its own."
        ),
        rationale: crate::findings::prose!(
            "Every request the client sent is answered, unless the client cancelled it or stopped waiting by a limit of its own (the capture's client_gave_up: a server still working when the client's time ran out is not blamed)."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 basic/index §Responses (\"Responses MUST be sent in reply to requests\"); MCP 2025-11-25 basic/utilities/cancellation"
        ),
        fix: crate::findings::prose!(
            "Answer every request (with a result or an error), or honour notifications/cancelled; a long call should send progress."
        ),
        category: "jsonrpc",
        ..BASE
    },
    RuleInfo {
        code: "INV-030",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every request validates against the schema type for its method (JSONRPCRequest for methods the revision does not define)."
        ),
        rationale: crate::findings::prose!(
            "Every request validates against the schema type for its method (JSONRPCRequest for methods the revision does not define)."
        ),
        source: crate::findings::prose!(
            "MCP <revision> schema.json (the session's negotiated revision)"
        ),
        fix: crate::findings::prose!(
            "Send requests that match the schema of the negotiated revision."
        ),
        category: "schema",
        ..BASE
    },
    RuleInfo {
        code: "INV-031",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every successful response validates against the result type of the request it answers."
        ),
        rationale: crate::findings::prose!(
            "Every successful response validates against the result type of the request it answers."
        ),
        source: crate::findings::prose!(
            "MCP <revision> schema.json (the session's negotiated revision)"
        ),
        fix: crate::findings::prose!(
            "Return results that match the result type of the method in the negotiated revision's schema."
        ),
        category: "schema",
        ..BASE
    },
    RuleInfo {
        code: "INV-032",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every notification validates against the schema type for its method."
        ),
        rationale: crate::findings::prose!(
            "Every notification validates against the schema type for its method."
        ),
        source: crate::findings::prose!(
            "MCP <revision> schema.json (the session's negotiated revision)"
        ),
        fix: crate::findings::prose!(
            "Send notifications that match their schema type in the negotiated revision."
        ),
        category: "schema",
        ..BASE
    },
    RuleInfo {
        code: "INV-033",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every error response validates against the JSON-RPC error response shape."
        ),
        rationale: crate::findings::prose!(
            "Every error response validates against the JSON-RPC error response shape."
        ),
        source: crate::findings::prose!(
            "MCP <revision> schema.json (the session's negotiated revision)"
        ),
        fix: crate::findings::prose!(
            "Send error responses as {\"jsonrpc\": \"2.0\", \"id\": ..., \"error\": {\"code\", \"message\"}}."
        ),
        category: "schema",
        ..BASE
    },
    RuleInfo {
        code: "INV-040",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A 2026-07-28 request whose _meta lacks io.modelcontextprotocol/protocolVersion or clientCapabilities is refused with -32602, over HTTP with status 400."
        ),
        rationale: crate::findings::prose!(
            "A 2026-07-28 request whose _meta lacks io.modelcontextprotocol/protocolVersion or clientCapabilities is refused with -32602, over HTTP with status 400."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/index §_meta; SEP-2575 (sep-2575-request-meta-invalid-*, sep-2575-http-server-meta-invalid-400)"
        ),
        fix: crate::findings::prose!(
            "Refuse 2026-07-28 requests without _meta's protocolVersion and clientCapabilities with -32602 (HTTP 400)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-041",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A 2026-07-28 request naming a protocol version the server does not list in supportedVersions is refused with -32022, over HTTP with status 400."
        ),
        rationale: crate::findings::prose!(
            "A 2026-07-28 request naming a protocol version the server does not list in supportedVersions is refused with -32022, over HTTP with status 400."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/lifecycle §Protocol Version Negotiation, basic/transports §Protocol Version Header; SEP-2575 (sep-2575-server-unsupported-version-error, sep-2575-http-server-unsupported-version-400)"
        ),
        fix: crate::findings::prose!(
            "Refuse requests naming an unsupported protocol version with -32022 and the supported versions in data (HTTP 400)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-042",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Over HTTP, a 2026-07-28 request whose io.modelcontextprotocol/protocolVersion differs from its MCP-Protocol-Version header (as the capture records it, else the session's version, which mcpcheck's client sends) is refused with -32020 and status 400."
        ),
        rationale: crate::findings::prose!(
            "Over HTTP, a 2026-07-28 request whose io.modelcontextprotocol/protocolVersion differs from its MCP-Protocol-Version header (as the capture records it, else the session's version, which mcpcheck's client sends) is refused with -32020 and status 400."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/transports §Protocol Version Header; SEP-2575 (sep-2575-http-server-header-mismatch-400)"
        ),
        fix: crate::findings::prose!(
            "Refuse requests whose MCP-Protocol-Version header differs from _meta's version with -32020 (HTTP 400)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-043",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A 2026-07-28 request for a removed method (initialize, ping, logging/setLevel, resources/subscribe, resources/unsubscribe) or for mcpcheck's unknown probe method is refused with -32601, over HTTP with status 404; on stdio initialize may be refused with any error."
        ),
        rationale: crate::findings::prose!(
            "A 2026-07-28 request for a removed method (initialize, ping, logging/setLevel, resources/subscribe, resources/unsubscribe) or for mcpcheck's unknown probe method is refused with -32601, over HTTP with status 404; on stdio initialize may be refused with any error (the versioning page makes its code implementation-defined there)."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 changelog (removed methods); basic/transports §Protocol Version Header; basic/versioning §Compatibility Matrix (Legacy client, Modern server: on stdio the code is implementation-defined); SEP-2575 (sep-2575-http-server-method-not-found-404)"
        ),
        fix: crate::findings::prose!(
            "Answer removed methods (initialize, ping, logging/setLevel, resources/subscribe, resources/unsubscribe) and unknown ones with -32601 (HTTP 404)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-044",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "The server/discover result carries a non-empty supportedVersions that lists the version it was asked with, and a capabilities object."
        ),
        rationale: crate::findings::prose!(
            "The server/discover result carries a non-empty supportedVersions that lists the version it was asked with, and a capabilities object."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 server/discover; SEP-2575 (sep-2575-server-implements-discover)"
        ),
        fix: crate::findings::prose!(
            "Answer server/discover with a non-empty supportedVersions that includes the requested version, and a capabilities object."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-045",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every result to a 2026-07-28 request carries a string resultType."
        ),
        rationale: crate::findings::prose!(
            "Every result to a 2026-07-28 request carries a string resultType."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/index §resultType; SEP-2322 (sep-2322-result-type-included)"
        ),
        fix: crate::findings::prose!(
            "Put a string resultType (\"complete\", \"input_required\", ...) in every 2026-07-28 result."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-046",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A subscriptions/listen stream starts with notifications/subscriptions/acknowledged, and every notification on it carries the subscription's id in _meta."
        ),
        rationale: crate::findings::prose!(
            "A subscriptions/listen stream starts with notifications/subscriptions/acknowledged, and every notification on it carries the subscription's id in _meta."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/utilities/subscriptions §Acknowledgment; SEP-2575 (sep-2575-server-sends-subscription-ack, sep-2575-server-tags-subscription-id)"
        ),
        fix: crate::findings::prose!(
            "Start a subscriptions/listen stream with notifications/subscriptions/acknowledged and tag each notification with the subscription id in _meta."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-047",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Over HTTP, a 2026-07-28 request whose Mcp-Method header is missing or differs from its method, or whose Mcp-Name header is missing or differs from params.name (params.uri for resources/read, params.taskId for the tasks extension) on tools/call, prompts/get, resources/read and tasks/get, tasks/update and tasks/cancel, is refused with -32020 and status 400."
        ),
        rationale: crate::findings::prose!(
            "Gateways route and authorize on the mirrored headers while the server executes the body: a server that serves a request whose headers say something else lets a request be routed as one method or tool and run as another."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/transports/streamable-http §Standard Request Headers, §Server Validation; SEP-2243 (http-header-validation)"
        ),
        fix: crate::findings::prose!(
            "Compare Mcp-Method with the method and Mcp-Name (Base64 form decoded) with params.name or params.uri before anything else, and refuse a missing or different one with -32020 (HTTP 400)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-048",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every x-mcp-header annotation of a 2026-07-28 tool is a valid, unique header name on a statically reachable primitive parameter, and over HTTP a tools/call whose Mcp-Param headers do not mirror those arguments is refused with -32020 and status 400."
        ),
        rationale: crate::findings::prose!(
            "An invalid annotation makes the whole tool definition invalid (clients must drop the tool), and a server that serves a call whose Mcp-Param header is missing or differs from the argument lets intermediaries act on a value the tool never sees."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 server/tools §x-mcp-header; basic/transports/streamable-http §Custom Headers from Tool Parameters (Schema Extension, Server Behavior for Custom Headers); SEP-2243 (http-custom-header-server-validation)"
        ),
        fix: crate::findings::prose!(
            "Give x-mcp-header only to string, integer or boolean properties reached through `properties` alone, as a non-empty token unique within the schema, and refuse a tools/call whose Mcp-Param-{Name} header is missing or differs from the decoded argument with -32020 (HTTP 400)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-049",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A -32021 refusal (a client capability is missing) carries data.requiredCapabilities, an object naming only capabilities the request's clientCapabilities left out, over HTTP with status 400."
        ),
        rationale: crate::findings::prose!(
            "The client learns from data.requiredCapabilities which capability to declare before retrying; a refusal without it, or naming capabilities the request did declare, leaves the client nothing to act on."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/index §_meta (Per-request protocol fields), schema MissingRequiredClientCapabilityError"
        ),
        fix: crate::findings::prose!(
            "Refuse a request that needs an undeclared client capability with -32021 and data.requiredCapabilities listing exactly the missing ones (HTTP 400)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-050",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!(
            "Every 2026-07-28 result names the server in _meta as io.modelcontextprotocol/serverInfo (a name and a version)."
        ),
        rationale: crate::findings::prose!(
            "Without a handshake, a result's _meta is the only place a client learns which server, and which version of it, answered; the specification asks for it on every result (a SHOULD, so a recommendation not met, never a failure by default)."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/index §_meta (Per-response protocol fields); changelog major change 2 (SEP-2575)"
        ),
        fix: crate::findings::prose!(
            "Add _meta[\"io.modelcontextprotocol/serverInfo\"] = {\"name\": ..., \"version\": ...} to every result."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-051",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!(
            "A server/discover answered within the ttlMs of an earlier one lists the same supportedVersions and capabilities."
        ),
        rationale: crate::findings::prose!(
            "Clients keep a server/discover result for its ttlMs and pick versions and features from it; answers that change inside that window make a cached answer wrong. The specification lets data change before the TTL ends (a hint, not a guarantee), so this is a recommendation, never a failure by default."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 server/utilities/caching §Time-to-Live (TTL) Field; server/discover §Response"
        ),
        fix: crate::findings::prose!(
            "Keep supportedVersions and capabilities fixed for the ttlMs you announce, or announce a shorter ttlMs."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-052",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A subscriptions/listen stream carries only what its filter asked for: the acknowledgment agrees to no more than was asked, no change notification of another kind arrives on it (none for an empty filter), and a result that ends it is complete and carries the subscription's id in _meta."
        ),
        rationale: crate::findings::prose!(
            "Clients open listen streams for the changes they can handle; notifications they did not ask for (or an acknowledgment promising them) break that contract, and a teardown result without its subscription id cannot be told apart from another stream's on stdio."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/patterns/subscriptions §Opening a Stream, §Acknowledgment, §Graceful Closure"
        ),
        fix: crate::findings::prose!(
            "Send on a listen stream only the notification kinds its filter asks for, acknowledge no more than that, and end it with {\"resultType\": \"complete\", \"_meta\": {\"io.modelcontextprotocol/subscriptionId\": <id>}}."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-053",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A complete result of server/discover, tools/list, prompts/list, resources/list, resources/templates/list or resources/read carries ttlMs (an integer, 0 or more) and cacheScope (\"public\" or \"private\"), an input_required result carries neither, and the pages of one listing share one cacheScope."
        ),
        rationale: crate::findings::prose!(
            "Clients and shared caches decide how long and for whom to keep a result from these hints; without them every client must re-fetch, and a wrong or mixed cacheScope lets a private answer be shared."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 server/utilities/caching §Cacheable Results, §Cacheable Model, §Interaction with Pagination; changelog minor change 5 (SEP-2549)"
        ),
        fix: crate::findings::prose!(
            "Add ttlMs (milliseconds, 0 or more) and cacheScope (\"public\" or \"private\") to every complete cacheable result, leave them off input_required results, and keep one cacheScope across the pages of a listing."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-054",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Every traceparent in a 2026-07-28 message's _meta follows W3C Trace Context (version-traceid-parentid-flags in lowercase hex, neither id all zeros), and tracestate and baggage are strings."
        ),
        rationale: crate::findings::prose!(
            "Tracing systems drop or mis-join spans whose trace context is malformed, so a request cannot be followed from client to server."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/index §_meta (OpenTelemetry trace context); W3C Trace Context §traceparent Header; changelog minor change 2 (SEP-414)"
        ),
        fix: crate::findings::prose!(
            "Write traceparent as 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, lowercase, ids not all zeros (or leave it out)."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-055",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!(
            "The server uses no feature its revision deprecates: Roots, Sampling and Logging in 2026-07-28, the HTTP+SSE transport since 2025-03-26."
        ),
        rationale: crate::findings::prose!(
            "Deprecated features still work but are scheduled for removal; clients built for later revisions will stop offering them."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 deprecated (SEP-2577, SEP-2596); changelog §Deprecated"
        ),
        fix: crate::findings::prose!(
            "Move off the feature: pass directories as tool parameters instead of Roots, call an LLM API instead of Sampling, log to stderr or OpenTelemetry instead of Logging, serve Streamable HTTP instead of HTTP+SSE."
        ),
        category: "deprecation",
        ..BASE
    },
    RuleInfo {
        code: "INV-056",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A 2026-07-28 resources/read of a resource that does not exist (mcpcheck's probe URI, which no server serves) is refused with -32602, never answered with contents, and no 2026-07-28 answer uses the retired codes -32002 and -32042."
        ),
        rationale: crate::findings::prose!(
            "2026-07-28 moved resource-not-found to -32602 and forbids the old codes, so a client of this revision reads -32002 as an unknown error; an empty contents array cannot be told from an empty resource."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 server/resources §Error Handling; basic/index §Error Codes; changelog minor change 6"
        ),
        fix: crate::findings::prose!(
            "Answer a resources/read of an unknown URI with -32602 (Invalid params) and the URI in data, and never send -32002 or -32042 in this revision."
        ),
        category: "stateless",
        ..BASE
    },
    RuleInfo {
        code: "INV-057",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!(
            "An unknown prompt (mcpcheck's probe name) is refused with -32602, and in handshake revisions an unknown resource (mcpcheck's probe URI) with -32002, the codes the specification recommends."
        ),
        rationale: crate::findings::prose!(
            "Clients tell a wrong name from a broken server by the code; an internal error (-32603) or a code of 0 reads as the server failing. These codes are SHOULDs, so a recommendation not met, never a failure by default."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/prompts §Error Handling, server/resources §Error Handling; MCP 2026-07-28 server/prompts §Error Handling"
        ),
        fix: crate::findings::prose!(
            "Answer prompts/get of an unknown name with -32602, and (up to 2025-11-25) resources/read of an unknown URI with -32002."
        ),
        category: "error-envelope",
        ..BASE
    },
    RuleInfo {
        code: "INV-090",
        title: crate::findings::prose!(TOOL_OVERLAP),
        rationale: crate::findings::prose!(
            "Two servers of one client expose a tool of the same unprefixed name, so a client that does not namespace tools cannot tell which server a call is for."
        ),
        source: crate::findings::prose!(TOOL_OVERLAP_SOURCE),
        fix: crate::findings::prose!(
            "Prefix the tool names with the server's name, or do not compose the two servers in one client."
        ),
        category: "composition",
        aliases: &["tool-namespace-overlap"],
        ..BASE
    },
    RuleInfo {
        code: "INV-091",
        title: crate::findings::prose!(ID_COLLISION),
        rationale: crate::findings::prose!(
            "Two servers on one shared transport see the same request id, so responses on the channel cannot be matched to their requests."
        ),
        source: crate::findings::prose!(ID_COLLISION_SOURCE),
        fix: crate::findings::prose!(
            "Give each server its own transport, or make the client number requests across the shared channel."
        ),
        category: "composition",
        aliases: &["shared-transport-id-collision"],
        ..BASE
    },
    // The extensions, after the hazards (INV-1NN).
    RuleInfo {
        code: "INV-100",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server returns a CreateTaskResult, and answers tasks/get, tasks/update and tasks/cancel, only to a request that declared the io.modelcontextprotocol/tasks extension."
        ),
        rationale: crate::findings::prose!(
            "A server returns a CreateTaskResult, and answers tasks/get, tasks/update and tasks/cancel, only to a request that declared the io.modelcontextprotocol/tasks extension."
        ),
        source: crate::findings::prose!(
            "SEP-2663 (ext-tasks specification/2026-07-28/tasks) §Capability Negotiation; §Error Handling (-32021 for non-declaring clients)"
        ),
        fix: crate::findings::prose!(
            "Check the request's clientCapabilities.extensions for io.modelcontextprotocol/tasks: without it, run the tool and return its result, or refuse with -32021 naming the extension in requiredCapabilities."
        ),
        category: "tasks",
        ..BASE
    },
    RuleInfo {
        code: "INV-101",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A CreateTaskResult carries resultType \"task\", only a tools/call result does, and the answers to tasks/get, tasks/update and tasks/cancel carry resultType \"complete\" (the acks no task fields)."
        ),
        rationale: crate::findings::prose!(
            "A CreateTaskResult carries resultType \"task\", only a tools/call result does, and the answers to tasks/get, tasks/update and tasks/cancel carry resultType \"complete\" (the acks no task fields)."
        ),
        source: crate::findings::prose!(
            "SEP-2663 (ext-tasks specification/2026-07-28/tasks) §Polymorphic Results; §Task Polling; §Task Update Requests; §Task Cancellation"
        ),
        fix: crate::findings::prose!(
            "Set resultType to \"task\" on a CreateTaskResult and nowhere else; answer tasks/get with resultType \"complete\", and tasks/update and tasks/cancel with an empty {\"resultType\": \"complete\"}."
        ),
        category: "tasks",
        ..BASE
    },
    RuleInfo {
        code: "INV-102",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A task's status is one of working, input_required, completed, failed and cancelled, and once terminal it never changes."
        ),
        rationale: crate::findings::prose!(
            "A task's status is one of working, input_required, completed, failed and cancelled, and once terminal it never changes."
        ),
        source: crate::findings::prose!(
            "SEP-2663 (ext-tasks specification/2026-07-28/tasks) §Task Status (state diagram)"
        ),
        fix: crate::findings::prose!(
            "Move a task only from working or input_required; once completed, failed or cancelled, report that status on every later tasks/get and notification."
        ),
        category: "tasks",
        ..BASE
    },
    RuleInfo {
        code: "INV-103",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A completed task carries its result, a failed one its JSON-RPC error (and no result), an input_required one its inputRequests; a CreateTaskResult carries none of them."
        ),
        rationale: crate::findings::prose!(
            "A completed task carries its result, a failed one its JSON-RPC error (and no result), an input_required one its inputRequests; a CreateTaskResult carries none of them."
        ),
        source: crate::findings::prose!(
            "SEP-2663 (ext-tasks specification/2026-07-28/tasks) §Task Polling (Response); §Error Handling (Task Execution Errors); §Task Creation"
        ),
        fix: crate::findings::prose!(
            "Inline the tool result on a completed task, the error (code and message) on a failed one, the outstanding requests on an input_required one, and keep them off the CreateTaskResult."
        ),
        category: "tasks",
        ..BASE
    },
    RuleInfo {
        code: "INV-104",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "No notifications/progress or notifications/message is sent on a subscriptions/listen stream for tasks."
        ),
        rationale: crate::findings::prose!(
            "No notifications/progress or notifications/message is sent on a subscriptions/listen stream for tasks."
        ),
        source: crate::findings::prose!(
            "SEP-2663 (ext-tasks specification/2026-07-28/tasks) §Task Status Notifications"
        ),
        fix: crate::findings::prose!(
            "Send only notifications/tasks on a stream that asked for taskIds; report progress in the task's statusMessage instead."
        ),
        category: "tasks",
        ..BASE
    },
    RuleInfo {
        code: "INV-105",
        level: Level::Error,
        severity: Severity::Medium,
        title: crate::findings::prose!(
            "A task's ttlMs is null or a positive integer, and its pollIntervalMs, when given, a positive integer no greater than its ttlMs."
        ),
        rationale: crate::findings::prose!(
            "A task's ttlMs is null or a positive integer, and its pollIntervalMs, when given, a positive integer no greater than its ttlMs."
        ),
        source: crate::findings::prose!(
            "SEP-2663 (ext-tasks specification/2026-07-28/tasks) §Tasks (ttlMs, pollIntervalMs: integer milliseconds)"
        ),
        fix: crate::findings::prose!(
            "Give pollIntervalMs as a whole number of milliseconds above 0 and below the task's time to live, and ttlMs as a positive integer or null."
        ),
        category: "tasks",
        ..BASE
    },
    RuleInfo {
        code: "INV-110",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server that declares io.modelcontextprotocol/skills answers skills/list and skills/get."
        ),
        rationale: crate::findings::prose!(
            "A server that declares io.modelcontextprotocol/skills answers skills/list and skills/get."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §Capability (declaring the extension commits the server to both methods)"
        ),
        fix: crate::findings::prose!(
            "Serve skills/list and skills/get whenever the extension is declared, or stop declaring it."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-111",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A server that declares io.modelcontextprotocol/skills also declares the resources capability."
        ),
        rationale: crate::findings::prose!(
            "A server that declares io.modelcontextprotocol/skills also declares the resources capability."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §Capability (skill files are served through resources/read)"
        ),
        fix: crate::findings::prose!(
            "Declare the resources capability beside the skills extension, and serve the skill files through resources/read."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-112",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "No skill entry of a skills/list listing is split across pages: each skill URI appears on one page only."
        ),
        rationale: crate::findings::prose!(
            "No skill entry of a skills/list listing is split across pages: each skill URI appears on one page only."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §skills/list (an entry is atomic)"
        ),
        fix: crate::findings::prose!(
            "Put each skill entry, with its whole resources manifest, on exactly one page."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-113",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A skill entry carries its uri, a frontmatter with a name and a description, and resources: \"dynamic\" or a complete manifest of {uri, digest, size} that lists the SKILL.md and each file once."
        ),
        rationale: crate::findings::prose!(
            "A skill entry carries its uri, a frontmatter with a name and a description, and resources: \"dynamic\" or a complete manifest of {uri, digest, size} that lists the SKILL.md and each file once."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §Skill entries; §resources (complete, SKILL.md included)"
        ),
        fix: crate::findings::prose!(
            "Give every entry uri, frontmatter (name, description) and resources; list every file of the skill once, SKILL.md first among them, or say \"dynamic\"."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-114",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Each digest of a skill manifest is sha256: and 64 lowercase hex digits, the SHA-256 of the file's bytes as resources/read serves them."
        ),
        rationale: crate::findings::prose!(
            "Each digest of a skill manifest is sha256: and 64 lowercase hex digits, the SHA-256 of the file's bytes as resources/read serves them."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §resources (digest: SHA-256 of the raw bytes)"
        ),
        fix: crate::findings::prose!(
            "Compute each digest from the bytes resources/read serves, formatted sha256:{64 lowercase hex}, and update it whenever the file changes."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-115",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Each size of a skill manifest is a non-negative integer, the length in bytes of the file as resources/read serves it."
        ),
        rationale: crate::findings::prose!(
            "Each size of a skill manifest is a non-negative integer, the length in bytes of the file as resources/read serves it."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §resources (size: the length of the raw bytes)"
        ),
        fix: crate::findings::prose!(
            "Give each size as the byte length of the file resources/read serves (UTF-8 bytes for text)."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-116",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "Each URI of a skill manifest is the skill's SKILL.md or a file inside the skill's directory."
        ),
        rationale: crate::findings::prose!(
            "Each URI of a skill manifest is the skill's SKILL.md or a file inside the skill's directory."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §resources (each uri is within the skill)"
        ),
        fix: crate::findings::prose!(
            "List only the files under the directory of the skill's SKILL.md; serve shared files inside each skill that uses them."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-117",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!(
            "A skill has at most 512 manifest entries and at most 16 MiB (16,777,216 bytes) of files in all."
        ),
        rationale: crate::findings::prose!(
            "A skill has at most 512 manifest entries and at most 16 MiB (16,777,216 bytes) of files in all."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §Limits (servers SHOULD NOT serve larger skills)"
        ),
        fix: crate::findings::prose!(
            "Split a skill that is larger into several, or leave bulky data out of the skill and fetch it when needed."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-118",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "The final path segment of a skill's URI (before /SKILL.md) equals its frontmatter name, and follows the naming rules (1-64 lowercase letters, digits and single hyphens)."
        ),
        rationale: crate::findings::prose!(
            "The final path segment of a skill's URI (before /SKILL.md) equals its frontmatter name, and follows the naming rules (1-64 lowercase letters, digits and single hyphens)."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §Skill URIs (the final <skill-path> segment is the name); Agent Skills specification §name"
        ),
        fix: crate::findings::prose!(
            "Serve each skill at .../NAME/SKILL.md where NAME is its frontmatter name, a lowercase name with single hyphens."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-119",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!(
            "No frontmatter metadata key of a skill uses the reserved io.modelcontextprotocol/ prefix, which no extension defines yet."
        ),
        rationale: crate::findings::prose!(
            "No frontmatter metadata key of a skill uses the reserved io.modelcontextprotocol/ prefix, which no extension defines yet."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §Frontmatter metadata (keys under io.modelcontextprotocol/ are reserved)"
        ),
        fix: crate::findings::prose!(
            "Rename the metadata key under a prefix of your own (a reverse domain you control)."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-120",
        level: Level::Error,
        severity: Severity::Medium,
        title: crate::findings::prose!(
            "skills/get of a URI the server does not serve is refused with -32602 (Invalid params)."
        ),
        rationale: crate::findings::prose!(
            "skills/get of a URI the server does not serve is refused with -32602 (Invalid params)."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension, io.modelcontextprotocol/skills) §skills/get (an unknown URI is -32602)"
        ),
        fix: crate::findings::prose!(
            "Answer skills/get for a URI that names no served skill with the JSON-RPC error -32602."
        ),
        category: "skills",
        ..BASE
    },
    RuleInfo {
        code: "INV-130",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A tool's _meta.ui.resourceUri is a ui:// URI naming a resource the server serves."
        ),
        rationale: crate::findings::prose!(
            "A tool's _meta.ui.resourceUri is a ui:// URI naming a resource the server serves."
        ),
        source: crate::findings::prose!(
            "SEP-1865 (ext-apps specification/2026-01-26/apps.mdx) §UI Resource (ui:// scheme); §Tool metadata (resourceUri)"
        ),
        fix: crate::findings::prose!(
            "Point resourceUri at a ui:// resource the server lists and reads, or drop the tool's UI metadata."
        ),
        category: "apps",
        ..BASE
    },
    RuleInfo {
        code: "INV-131",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "A ui:// resource's mimeType is exactly text/html;profile=mcp-app."
        ),
        rationale: crate::findings::prose!(
            "A ui:// resource's mimeType is exactly text/html;profile=mcp-app."
        ),
        source: crate::findings::prose!(
            "SEP-1865 (ext-apps specification/2026-01-26/apps.mdx) §UI Resource Format (mimeType)"
        ),
        fix: crate::findings::prose!(
            "Serve the app's HTML with mimeType text/html;profile=mcp-app, in the listing and in resources/read."
        ),
        category: "apps",
        ..BASE
    },
    RuleInfo {
        code: "INV-132",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!(
            "The content of a ui:// resource is an HTML5 document: it begins with <!DOCTYPE html>."
        ),
        rationale: crate::findings::prose!(
            "The content of a ui:// resource is an HTML5 document: it begins with <!DOCTYPE html>."
        ),
        source: crate::findings::prose!(
            "SEP-1865 (ext-apps specification/2026-01-26/apps.mdx) §UI Resource Format (valid HTML5 document)"
        ),
        fix: crate::findings::prose!(
            "Serve a whole HTML5 document, starting with <!DOCTYPE html>, not a fragment."
        ),
        category: "apps",
        ..BASE
    },
    RuleInfo {
        code: "INV-133",
        level: Level::Error,
        severity: Severity::Medium,
        title: crate::findings::prose!(
            "Each entry of a ui:// resource's _meta.ui.csp lists (connectDomains, resourceDomains, frameDomains, baseUriDomains) is an origin: a scheme, a host and an optional port, nothing more."
        ),
        rationale: crate::findings::prose!(
            "Each entry of a ui:// resource's _meta.ui.csp lists (connectDomains, resourceDomains, frameDomains, baseUriDomains) is an origin: a scheme, a host and an optional port, nothing more."
        ),
        source: crate::findings::prose!(
            "SEP-1865 (ext-apps specification/2026-01-26/apps.mdx) §UI Resource metadata (csp: lists of origins)"
        ),
        fix: crate::findings::prose!(
            "List origins only (https://api.example.com), without paths, queries or wildcards for everything."
        ),
        category: "apps",
        ..BASE
    },
    RuleInfo {
        code: "INV-134",
        level: Level::Error,
        severity: Severity::Medium,
        title: crate::findings::prose!(
            "A tool's _meta.ui.visibility, when given, is an array whose items are \"model\" or \"app\"."
        ),
        rationale: crate::findings::prose!(
            "A tool's _meta.ui.visibility, when given, is an array whose items are \"model\" or \"app\"."
        ),
        source: crate::findings::prose!(
            "SEP-1865 (ext-apps specification/2026-01-26/apps.mdx) §Tool metadata (visibility)"
        ),
        fix: crate::findings::prose!(
            "Give visibility as [\"model\"], [\"app\"] or [\"model\", \"app\"]."
        ),
        category: "apps",
        ..BASE
    },
    RuleInfo {
        code: "INV-135",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!(
            "A tool names its UI with _meta.ui.resourceUri, not the deprecated flat _meta[\"ui/resourceUri\"]."
        ),
        rationale: crate::findings::prose!(
            "A tool names its UI with _meta.ui.resourceUri, not the deprecated flat _meta[\"ui/resourceUri\"]."
        ),
        source: crate::findings::prose!(
            "SEP-1865 (ext-apps specification/2026-01-26/apps.mdx) §Tool metadata (deprecation notice: the flat key is removed)"
        ),
        fix: crate::findings::prose!(
            "Move the URI to _meta.ui.resourceUri; keep the flat key only beside it, for old hosts, if at all."
        ),
        category: "apps",
        ..BASE
    },
    RuleInfo {
        code: "INV-136",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!(
            "A tool with a UI still returns meaningful content: a non-empty content array for hosts that render no app."
        ),
        rationale: crate::findings::prose!(
            "A tool with a UI still returns meaningful content: a non-empty content array for hosts that render no app."
        ),
        source: crate::findings::prose!(
            "SEP-1865 (ext-apps specification/2026-01-26/apps.mdx) §Tool results (text content for hosts without UI support, and for the model)"
        ),
        fix: crate::findings::prose!(
            "Return the tool's result as text (and structuredContent) as well as through its UI."
        ),
        category: "apps",
        ..BASE
    },
];

/// A composition hazard: a property of several servers behind one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HazardKind {
    /// Two servers expose the same unprefixed tool name (`tool-namespace-overlap`, as
    /// mcptest calls it).
    ToolNameOverlap,
    /// Two servers on one shared transport reuse a request id.
    SharedTransportIdCollision,
}

/// The published description of a hazard kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HazardInfo {
    /// Stable identifier, used as `kind` in reports.
    pub kind: &'static str,
    /// The property whose failure is the hazard.
    pub property: &'static str,
    /// Where it comes from.
    pub citation: &'static str,
}

/// Every hazard kind, in report order.
pub const HAZARDS: [HazardKind; 2] = [
    HazardKind::ToolNameOverlap,
    HazardKind::SharedTransportIdCollision,
];

impl HazardKind {
    /// The hazard's published description.
    pub fn info(self) -> &'static HazardInfo {
        match self {
            HazardKind::ToolNameOverlap => &HAZARD_INFOS[0],
            HazardKind::SharedTransportIdCollision => &HAZARD_INFOS[1],
        }
    }

    /// The hazard's row in the rule registry (`INV-090`, `INV-091`).
    pub fn rule(self) -> &'static RuleInfo {
        match self {
            HazardKind::ToolNameOverlap => &INFOS[Rule::FIRST_EXTENSION as usize],
            HazardKind::SharedTransportIdCollision => &INFOS[Rule::FIRST_EXTENSION as usize + 1],
        }
    }
}

const HAZARD_INFOS: [HazardInfo; 2] = [
    HazardInfo {
        kind: "tool-namespace-overlap",
        property: TOOL_OVERLAP,
        citation: TOOL_OVERLAP_SOURCE,
    },
    HazardInfo {
        kind: "shared-transport-id-collision",
        property: ID_COLLISION,
        citation: ID_COLLISION_SOURCE,
    },
];

const TOOL_OVERLAP: &str =
    "No two servers of a composed capture expose the same unprefixed tool name.";
const TOOL_OVERLAP_SOURCE: &str =
    "mcptest multi-server composition safety (tool-namespace overlap)";
const ID_COLLISION: &str = "Servers whose sessions share a transport (equal `shared_transport`) never see the same client request id.";
const ID_COLLISION_SOURCE: &str = "mcptest multi-server composition safety (shared-transport id collision); MCP 2025-11-25 basic/index §Requests";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_is_in_id_order_and_complete() {
        let hazards =
            Rule::FIRST_EXTENSION as usize..Rule::FIRST_EXTENSION as usize + HAZARDS.len();
        let rows: Vec<&RuleInfo> = INFOS
            .iter()
            .enumerate()
            .filter(|(i, _)| !hazards.contains(i))
            .map(|(_, info)| info)
            .collect();
        assert_eq!(rows.len(), ALL.len());
        for (rule, info) in ALL.iter().zip(rows) {
            assert_eq!(rule.info(), info);
        }
        let ids: Vec<&str> = INFOS.iter().map(|i| i.code).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted, "IDs must be unique and ascending");
        let mut rules = ALL.to_vec();
        rules.sort();
        assert_eq!(rules, ALL.to_vec(), "enum order must match ID order");
        for info in INFOS {
            assert!(info.title.ends_with('.'), "{}", info.code);
            assert!(!info.source.is_empty(), "{}", info.code);
        }
        for hazard in HAZARDS {
            assert_eq!(hazard.rule().aliases, [hazard.info().kind]);
        }
        assert_eq!(
            HazardKind::SharedTransportIdCollision.info().kind,
            "shared-transport-id-collision"
        );
    }
}
