//! The catalogue of invariants: one row per rule, the single source for IDs,
//! categories, one-line properties and spec citations.
//!
//! INV-001 … INV-007 are mcptest's conformance invariants, with the properties worded
//! exactly as mcptest documents them. The rest come from the MCP specification
//! revisions vendored under `core/schemas/mcp/` (spec text: the revision's `docs/`);
//! each row cites the revision and section it enforces. The schema family
//! (INV-030 … INV-033) validates every message against the official JSON schema of
//! the session's revision. Composition hazards are listed by [`HAZARDS`].

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
}

/// The published description of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// Stable identifier, `INV-NNN`.
    pub id: &'static str,
    /// Category, e.g. `lifecycle`, `capability`, `schema`.
    pub category: &'static str,
    /// The property that must hold, in one line.
    pub property: &'static str,
    /// Where the property comes from: spec revision and section.
    pub citation: &'static str,
}

/// Every rule, in ID order.
pub const ALL: [Rule; 33] = [
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
];

impl Rule {
    /// The rule's published description.
    pub fn info(self) -> &'static RuleInfo {
        // One row per variant, in declaration order (the test below holds them to it).
        &INFOS[self as usize]
    }

    /// `INV-NNN`.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// The rule's category.
    pub fn category(self) -> &'static str {
        self.info().category
    }
}

const INFOS: [RuleInfo; 33] = [
    RuleInfo {
        id: "INV-001",
        category: "lifecycle",
        property: "initialize is the first request the client sends.",
        citation: "mcptest INV-001; MCP 2025-11-25 basic/lifecycle §Initialization (handshake revisions, up to 2025-11-25)",
    },
    RuleInfo {
        id: "INV-002",
        category: "lifecycle",
        property: "The notifications/initialized notification follows the initialize response.",
        citation: "mcptest INV-002; MCP 2025-11-25 basic/lifecycle §Initialization (handshake revisions, up to 2025-11-25)",
    },
    RuleInfo {
        id: "INV-003",
        category: "capability",
        property: "A server that answers tools/list, resources/list, or prompts/list advertised the matching capability at initialize.",
        citation: "mcptest INV-003; MCP 2025-11-25 basic/lifecycle §Capability Negotiation",
    },
    RuleInfo {
        id: "INV-004",
        category: "capability",
        property: "A server that advertised a capability does not error on every call to it.",
        citation: "mcptest INV-004; MCP 2025-11-25 basic/lifecycle §Operation",
    },
    RuleInfo {
        id: "INV-005",
        category: "result-shape",
        property: "A successful tools/call result carries a content array or a structuredContent object, and a boolean isError when present.",
        citation: "mcptest INV-005; MCP 2025-11-25 server/tools §Tool Result",
    },
    RuleInfo {
        id: "INV-006",
        category: "error-envelope",
        property: "Every JSON-RPC error envelope carries an integer code and a string message.",
        citation: "mcptest INV-006; MCP 2025-11-25 basic/index §Error Responses",
    },
    RuleInfo {
        id: "INV-007",
        category: "error-envelope",
        property: "A method-not-found error uses JSON-RPC code -32601.",
        citation: "mcptest INV-007; JSON-RPC 2.0 §5.1; MCP 2025-11-25 server/utilities/completion §Error Handling; MCP 2026-07-28 schema MethodNotFoundError",
    },
    RuleInfo {
        id: "INV-008",
        category: "jsonrpc",
        property: "Every response id answers exactly one earlier request: request ids are not reused, a response carries its request's id, and no request is answered twice.",
        citation: "MCP 2025-11-25 basic/index §Requests, §Responses",
    },
    RuleInfo {
        id: "INV-009",
        category: "jsonrpc",
        property: "No response without a request: every response names a request that was sent, and notifications are not answered.",
        citation: "MCP 2025-11-25 basic/index §Responses, §Notifications",
    },
    RuleInfo {
        id: "INV-010",
        category: "jsonrpc",
        property: "A response carries exactly one of result and error.",
        citation: "MCP 2025-11-25 basic/index §Result Responses, §Error Responses; JSON-RPC 2.0 §5",
    },
    RuleInfo {
        id: "INV-011",
        category: "jsonrpc",
        property: "Notifications carry no id.",
        citation: "MCP 2025-11-25 basic/index §Notifications",
    },
    RuleInfo {
        id: "INV-012",
        category: "progress",
        property: "Progress notifications use a token the client sent with a request that is still in progress, and their progress value increases.",
        citation: "MCP 2025-11-25 basic/utilities/progress §Progress Flow, §Behavior Requirements",
    },
    RuleInfo {
        id: "INV-013",
        category: "tools",
        property: "A tool that declares an outputSchema returns structuredContent that validates against it (the schema from the same session's tools/list).",
        citation: "MCP 2025-11-25 server/tools §Output Schema; MCP 2026-07-28 basic/index §$ref Resolution",
    },
    RuleInfo {
        id: "INV-014",
        category: "tools",
        property: "Tool names are 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.', and unique within the server's tool list.",
        citation: "MCP 2025-11-25 server/tools §Tool Names (sessions on 2025-11-25 or later)",
    },
    RuleInfo {
        id: "INV-015",
        category: "capability",
        property: "A server sends tools, prompts or resources list_changed notifications only when it advertised listChanged for that capability.",
        citation: "MCP 2025-11-25 server/tools §Capabilities, server/prompts §Capabilities, server/resources §Capabilities",
    },
    RuleInfo {
        id: "INV-016",
        category: "capability",
        property: "A server sends notifications/resources/updated only when it advertised resources.subscribe.",
        citation: "MCP 2025-11-25 server/resources §Capabilities, §Subscriptions",
    },
    RuleInfo {
        id: "INV-017",
        category: "capability",
        property: "A server sends notifications/message only when it advertised the logging capability (and, from 2026-07-28, only for requests that set a log level).",
        citation: "MCP 2025-11-25 server/utilities/logging §Capabilities; MCP 2026-07-28 server/utilities/logging §Requesting Log Messages",
    },
    RuleInfo {
        id: "INV-018",
        category: "capability",
        property: "A server makes sampling, elicitation and roots requests only when the client declared the matching capability (sampling.tools for tool use, the elicitation mode used).",
        citation: "MCP 2025-11-25 client/sampling §Capabilities, client/elicitation §Capabilities, client/roots §Capabilities; MCP 2026-07-28 basic/patterns/mrtr §Server Requirements (Basic Workflow)",
    },
    RuleInfo {
        id: "INV-019",
        category: "lifecycle",
        property: "The negotiated protocolVersion is a revision the specification defines.",
        citation: "MCP 2025-11-25 basic/lifecycle §Version Negotiation; MCP 2026-07-28 basic/versioning §Protocol Version Negotiation",
    },
    RuleInfo {
        id: "INV-020",
        category: "pagination",
        property: "Following nextCursor never returns to a cursor already seen in the same listing.",
        citation: "MCP 2025-11-25 server/utilities/pagination §Pagination Model, §Implementation Guidelines",
    },
    RuleInfo {
        id: "INV-021",
        category: "transport",
        property: "Everything the server writes is a JSON message; no line is non-JSON.",
        citation: "MCP 2025-11-25 basic/transports §stdio; MCP 2025-11-25 basic/index §Messages",
    },
    RuleInfo {
        id: "INV-022",
        category: "jsonrpc",
        property: "Every request the client sent is answered, unless the client cancelled it.",
        citation: "MCP 2025-11-25 basic/index §Responses (\"Responses MUST be sent in reply to requests\"); MCP 2025-11-25 basic/utilities/cancellation",
    },
    RuleInfo {
        id: "INV-030",
        category: "schema",
        property: "Every request validates against the schema type for its method (JSONRPCRequest for methods the revision does not define).",
        citation: "MCP <revision> schema.json (the session's negotiated revision)",
    },
    RuleInfo {
        id: "INV-031",
        category: "schema",
        property: "Every successful response validates against the result type of the request it answers.",
        citation: "MCP <revision> schema.json (the session's negotiated revision)",
    },
    RuleInfo {
        id: "INV-032",
        category: "schema",
        property: "Every notification validates against the schema type for its method.",
        citation: "MCP <revision> schema.json (the session's negotiated revision)",
    },
    RuleInfo {
        id: "INV-033",
        category: "schema",
        property: "Every error response validates against the JSON-RPC error response shape.",
        citation: "MCP <revision> schema.json (the session's negotiated revision)",
    },
    RuleInfo {
        id: "INV-040",
        category: "stateless",
        property: "A 2026-07-28 request whose _meta lacks io.modelcontextprotocol/protocolVersion or clientCapabilities is refused with -32602, over HTTP with status 400.",
        citation: "MCP 2026-07-28 basic/index §_meta; SEP-2575 (sep-2575-request-meta-invalid-*, sep-2575-http-server-meta-invalid-400)",
    },
    RuleInfo {
        id: "INV-041",
        category: "stateless",
        property: "A 2026-07-28 request naming a protocol version the server does not list in supportedVersions is refused with -32022, over HTTP with status 400.",
        citation: "MCP 2026-07-28 basic/lifecycle §Protocol Version Negotiation, basic/transports §Protocol Version Header; SEP-2575 (sep-2575-server-unsupported-version-error, sep-2575-http-server-unsupported-version-400)",
    },
    RuleInfo {
        id: "INV-042",
        category: "stateless",
        property: "Over HTTP, a 2026-07-28 request whose io.modelcontextprotocol/protocolVersion differs from its MCP-Protocol-Version header (as the capture records it, else the session's version, which mcpcheck's client sends) is refused with -32020 and status 400.",
        citation: "MCP 2026-07-28 basic/transports §Protocol Version Header; SEP-2575 (sep-2575-http-server-header-mismatch-400)",
    },
    RuleInfo {
        id: "INV-043",
        category: "stateless",
        property: "A 2026-07-28 request for a removed method (initialize, ping, logging/setLevel, resources/subscribe, resources/unsubscribe) or for mcpcheck's unknown probe method is refused with -32601, over HTTP with status 404.",
        citation: "MCP 2026-07-28 changelog (removed methods); basic/transports §Protocol Version Header; SEP-2575 (sep-2575-http-server-method-not-found-404)",
    },
    RuleInfo {
        id: "INV-044",
        category: "stateless",
        property: "The server/discover result carries a non-empty supportedVersions that lists the version it was asked with, and a capabilities object.",
        citation: "MCP 2026-07-28 server/discover; SEP-2575 (sep-2575-server-implements-discover)",
    },
    RuleInfo {
        id: "INV-045",
        category: "stateless",
        property: "Every result to a 2026-07-28 request carries a string resultType.",
        citation: "MCP 2026-07-28 basic/index §resultType; SEP-2322 (sep-2322-result-type-included)",
    },
    RuleInfo {
        id: "INV-046",
        category: "stateless",
        property: "A subscriptions/listen stream starts with notifications/subscriptions/acknowledged, and every notification on it carries the subscription's id in _meta.",
        citation: "MCP 2026-07-28 basic/utilities/subscriptions §Acknowledgment; SEP-2575 (sep-2575-server-sends-subscription-ack, sep-2575-server-tags-subscription-id)",
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
}

const HAZARD_INFOS: [HazardInfo; 2] = [
    HazardInfo {
        kind: "tool-namespace-overlap",
        property: "No two servers of a composed capture expose the same unprefixed tool name.",
        citation: "mcptest multi-server composition safety (tool-namespace overlap)",
    },
    HazardInfo {
        kind: "shared-transport-id-collision",
        property: "Servers whose sessions share a transport (equal `shared_transport`) never see the same client request id.",
        citation: "mcptest multi-server composition safety (shared-transport id collision); MCP 2025-11-25 basic/index §Requests",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_is_in_id_order_and_complete() {
        for (rule, info) in ALL.iter().zip(INFOS.iter()) {
            assert_eq!(rule.info(), info);
        }
        let ids: Vec<&str> = INFOS.iter().map(|i| i.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted, "IDs must be unique and ascending");
        let mut rules = ALL.to_vec();
        rules.sort();
        assert_eq!(rules, ALL.to_vec(), "enum order must match ID order");
        for info in INFOS {
            assert!(info.property.ends_with('.'), "{}", info.id);
            assert!(!info.citation.is_empty(), "{}", info.id);
        }
        assert_eq!(
            HazardKind::SharedTransportIdCollision.info().kind,
            "shared-transport-id-collision"
        );
    }
}
