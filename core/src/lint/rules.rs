//! The catalogue of lint rules: one row per rule, the single source for codes,
//! severities, titles, one-line rationales and sources.
//!
//! Codes mcp-assert also uses (E101 … E113, E301, W102 … W111) keep mcp-assert's
//! number where our rule checks the same thing, so a code found in either tool's
//! output means the same problem. Rules of our own are numbered in the 6xx range
//! (E6xx, W6xx, I6xx), which mcp-assert does not use: its E2xx are runtime errors
//! (panic, timeout, connection) and its E3xx, E4xx and E5xx other families.
//! `docs/lint.md` is held to this table by `core/tests/docs_lint.rs`.

use super::Severity;

/// One lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// E601: an entry or a field of the wrong JSON shape.
    MalformedEntry,
    /// W601: a tool name outside MCP's naming rule.
    ToolNameFormat,
    /// E113: two tools share a name.
    DuplicateToolName,
    /// E101: a tool without a description.
    ToolDescriptionMissing,
    /// W111: a tool description too short or too long.
    ToolDescriptionLength,
    /// W105: two tools with the same description.
    DuplicateToolDescription,
    /// E602: a tool without an inputSchema object.
    InputSchemaMissing,
    /// E603: an inputSchema whose root is not `type: "object"`.
    InputSchemaNotObjectType,
    /// E604: oneOf, anyOf or allOf at the root of an inputSchema.
    TopLevelComposition,
    /// E605: a schema that does not compile.
    InvalidSchema,
    /// E606: `required` names a property `properties` does not define.
    RequiredNotInProperties,
    /// E102: a parameter that accepts any type.
    ParamUntyped,
    /// E103: a required parameter without a description.
    RequiredParamNoDescription,
    /// W102: an optional parameter without a description.
    OptionalParamNoDescription,
    /// W602: a `default` its own schema rejects.
    DefaultInvalid,
    /// W603: an empty enum or one with repeated values.
    EnumMalformed,
    /// E607: a `$ref` to something outside the schema.
    ExternalRef,
    /// E608: a local `$ref` that resolves to nothing.
    DanglingRef,
    /// I601: keywords some clients drop or reject.
    ClientUnsupportedKeyword,
    /// E609: an outputSchema that is not a JSON object.
    OutputSchemaNotJsonObject,
    /// W604: an outputSchema whose root is not `type: "object"`.
    OutputSchemaNotObjectType,
    /// W605: readOnlyHint and destructiveHint both true.
    ContradictoryAnnotations,
    /// W606: a prompt argument without a description.
    PromptArgumentNoDescription,
    /// E610: a prompt argument name used twice.
    DuplicatePromptArgument,
    /// E611: a resource URI that is not an absolute URI.
    ResourceUriInvalid,
    /// W607: a malformed mimeType.
    MimeTypeMalformed,
    /// E612: a malformed uriTemplate.
    UriTemplateMalformed,
    /// W608: a uriTemplate without variables.
    UriTemplateNoVariables,
    /// E613: two prompts, resources or templates with the same name, URI or template.
    DuplicateName,
    /// W106: the tools of a listing take too much of a model's context.
    ListingTooLarge,
    /// E301: a tool's answer over the response budget.
    ResponseTooLarge,
    /// W609: a listing's order changed between two listings of one session.
    ListingOrderUnstable,
    /// W610: a listing's content changed between two listings of one session.
    ListingContentUnstable,
}

/// The published description of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// Stable code: mcp-assert's where the rule checks what mcp-assert's does, else
    /// E6xx, W6xx or I6xx.
    pub code: &'static str,
    /// The severity of every finding of the rule.
    pub severity: Severity,
    /// A short name.
    pub title: &'static str,
    /// The problem the rule catches, in one line.
    pub rationale: &'static str,
    /// Where the rule comes from: mcp-assert's code, the specification section, or
    /// the clients whose documented behaviour it protects against.
    pub source: &'static str,
}

/// Every rule, in catalogue order: the order of findings on one item.
pub const ALL: [Rule; 33] = [
    Rule::MalformedEntry,
    Rule::ToolNameFormat,
    Rule::DuplicateToolName,
    Rule::ToolDescriptionMissing,
    Rule::ToolDescriptionLength,
    Rule::DuplicateToolDescription,
    Rule::InputSchemaMissing,
    Rule::InputSchemaNotObjectType,
    Rule::TopLevelComposition,
    Rule::InvalidSchema,
    Rule::RequiredNotInProperties,
    Rule::ParamUntyped,
    Rule::RequiredParamNoDescription,
    Rule::OptionalParamNoDescription,
    Rule::DefaultInvalid,
    Rule::EnumMalformed,
    Rule::ExternalRef,
    Rule::DanglingRef,
    Rule::ClientUnsupportedKeyword,
    Rule::OutputSchemaNotJsonObject,
    Rule::OutputSchemaNotObjectType,
    Rule::ContradictoryAnnotations,
    Rule::PromptArgumentNoDescription,
    Rule::DuplicatePromptArgument,
    Rule::ResourceUriInvalid,
    Rule::MimeTypeMalformed,
    Rule::UriTemplateMalformed,
    Rule::UriTemplateNoVariables,
    Rule::DuplicateName,
    Rule::ListingTooLarge,
    Rule::ResponseTooLarge,
    Rule::ListingOrderUnstable,
    Rule::ListingContentUnstable,
];

crate::report::catalogue_lookups!(Rule, RuleInfo, Severity, "E103");

const INFOS: [RuleInfo; 33] = [
    RuleInfo {
        code: "E601",
        severity: Severity::Error,
        title: "Malformed entry",
        rationale: "A listing is not an array, an entry is not an object, a field MCP requires is missing or empty, or a field has the wrong JSON type, so clients drop the entry or fail to read the listing.",
        source: "MCP 2025-11-25 schema.json (Tool, ToolAnnotations, Prompt, PromptArgument, Resource, ResourceTemplate)",
    },
    RuleInfo {
        code: "W601",
        severity: Severity::Warning,
        title: "Tool name format",
        rationale: "A tool name is not 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.', which clients may reject or rewrite.",
        source: "MCP 2025-11-25 server/tools §Tool Names",
    },
    RuleInfo {
        code: "E113",
        severity: Severity::Error,
        title: "Duplicate tool name",
        rationale: "Two tools share a name, so a call by that name is ambiguous and clients that key tools by name lose one.",
        source: "mcp-assert E113; MCP 2025-11-25 server/tools §Tool Names (unique within a server)",
    },
    RuleInfo {
        code: "E101",
        severity: Severity::Error,
        title: "Tool description missing",
        rationale: "A tool has no description (absent, empty or blank), so a model cannot tell when to use it.",
        source: "mcp-assert E101",
    },
    RuleInfo {
        code: "W111",
        severity: Severity::Warning,
        title: "Tool description length",
        rationale: "A tool description is shorter than 20 characters and 3 words, too little to choose the tool by, or longer than 1,024 characters, which OpenAI's function calling rejects.",
        source: "mcp-assert W111 (other bounds); OpenAI Chat Completions (function.description at most 1,024 characters, string_above_max_length)",
    },
    RuleInfo {
        code: "W105",
        severity: Severity::Warning,
        title: "Duplicate tool description",
        rationale: "Two tools have the same description, so a model cannot tell them apart.",
        source: "mcp-assert W105 (identical descriptions only)",
    },
    RuleInfo {
        code: "E602",
        severity: Severity::Error,
        title: "inputSchema missing",
        rationale: "A tool has no inputSchema, or it is null or not a JSON object, so clients cannot describe or validate its arguments.",
        source: "MCP 2025-11-25 server/tools §Tool (inputSchema MUST be a valid JSON Schema object, not null)",
    },
    RuleInfo {
        code: "E603",
        severity: Severity::Error,
        title: "inputSchema not type object",
        rationale: "A tool's inputSchema does not say type: \"object\" at its root, which the MCP schema requires and Claude's API rejects (input_schema.type).",
        source: "MCP 2025-11-25 schema.json Tool.inputSchema (type const \"object\"); Claude API tool input_schema",
    },
    RuleInfo {
        code: "E604",
        severity: Severity::Error,
        title: "Composition at the inputSchema root",
        rationale: "A tool's inputSchema has oneOf, anyOf or allOf at its root, which Claude's API rejects for every request that lists the tool.",
        source: "Claude API (400: input_schema does not support oneOf, allOf, or anyOf at the top level); OpenAI Structured Outputs (root object must not be anyOf)",
    },
    RuleInfo {
        code: "E605",
        severity: Severity::Error,
        title: "Invalid JSON Schema",
        rationale: "An inputSchema or outputSchema is not a valid JSON Schema in its declared dialect (2020-12 when it names none), so clients cannot compile it.",
        source: "MCP 2025-11-25 basic/index §JSON Schema Usage (Schema Validation, Implementation Requirements)",
    },
    RuleInfo {
        code: "E606",
        severity: Severity::Error,
        title: "required not in properties",
        rationale: "An object schema requires a property its properties do not define, so the argument is mandatory but has no type or description to go by.",
        source: "MCP 2025-11-25 schema.json Tool.inputSchema (properties, required); JSON Schema 2020-12 validation §6.5.3",
    },
    RuleInfo {
        code: "E102",
        severity: Severity::Error,
        title: "Parameter untyped",
        rationale: "A parameter's schema constrains no type (no type, enum, const, $ref or composition), so a model guesses the value's type and Gemini CLI skipped such tools.",
        source: "mcp-assert E102 (narrowed to schemas that constrain no type); Gemini CLI (\"missing types in its parameter schema\")",
    },
    RuleInfo {
        code: "E103",
        severity: Severity::Error,
        title: "Required parameter without description",
        rationale: "A required parameter has no description, so a model guesses what value to give.",
        source: "mcp-assert E103",
    },
    RuleInfo {
        code: "W102",
        severity: Severity::Warning,
        title: "Optional parameter without description",
        rationale: "An optional parameter has no description, so a model guesses when and how to use it.",
        source: "mcp-assert W102",
    },
    RuleInfo {
        code: "W602",
        severity: Severity::Warning,
        title: "default rejected by its schema",
        rationale: "A schema's default is not among its enum values, differs from its const, or is not of its type, so a client that fills in the default sends an invalid value.",
        source: "JSON Schema 2020-12 validation §9.2 (default SHOULD be valid against its schema)",
    },
    RuleInfo {
        code: "W603",
        severity: Severity::Warning,
        title: "Malformed enum",
        rationale: "A schema's enum is empty, so no value is valid, or lists a value twice.",
        source: "JSON Schema 2020-12 validation §6.1.2 (enum SHOULD have at least one element, elements SHOULD be unique)",
    },
    RuleInfo {
        code: "E607",
        severity: Severity::Error,
        title: "External $ref",
        rationale: "A $ref points outside the schema (a network or relative URI), which clients do not fetch, so validation against it fails.",
        source: "MCP 2026-07-28 basic/index §$ref Resolution (MUST NOT dereference network URIs; unresolved external $ref SHOULD be rejected)",
    },
    RuleInfo {
        code: "E608",
        severity: Severity::Error,
        title: "Dangling $ref",
        rationale: "A local $ref (#/… or #anchor) resolves to nothing in the schema, for example a #/$defs/… reference with no $defs, so the schema does not compile.",
        source: "JSON Schema 2020-12 core §8.2.3.1 ($ref); Gemini CLI (\"can't resolve reference\")",
    },
    RuleInfo {
        code: "I601",
        severity: Severity::Info,
        title: "Keyword some clients drop",
        rationale: "An inputSchema uses if/then/else, patternProperties, dependentSchemas, dependentRequired, dependencies, unevaluatedProperties or propertyNames, outside the subsets OpenAI's strict function calling and Gemini's function parameters accept.",
        source: "OpenAI Structured Outputs (supported schemas); Gemini API FunctionDeclaration parameters (OpenAPI Schema subset)",
    },
    RuleInfo {
        code: "E609",
        severity: Severity::Error,
        title: "outputSchema not an object",
        rationale: "A tool's outputSchema is present but not a JSON object, so clients cannot validate structured results against it.",
        source: "MCP 2025-11-25 server/tools §Output Schema; schema.json Tool.outputSchema",
    },
    RuleInfo {
        code: "W604",
        severity: Severity::Warning,
        title: "outputSchema not type object",
        rationale: "A tool's outputSchema does not say type: \"object\" at its root, which revisions up to 2025-11-25 require (2026-07-28 allows any schema).",
        source: "MCP 2025-11-25 schema.json Tool.outputSchema (type const \"object\"); MCP 2026-07-28 changelog",
    },
    RuleInfo {
        code: "W605",
        severity: Severity::Warning,
        title: "Contradictory annotations",
        rationale: "A tool says readOnlyHint: true and destructiveHint: true, but a tool that does not modify its environment cannot destroy anything in it.",
        source: "MCP 2025-11-25 schema.json ToolAnnotations (destructiveHint is meaningful only when readOnlyHint is false)",
    },
    RuleInfo {
        code: "W606",
        severity: Severity::Warning,
        title: "Prompt argument without description",
        rationale: "A prompt argument has no description, so the user filling it in has only its name to go by.",
        source: "MCP 2025-11-25 server/prompts §PromptArgument",
    },
    RuleInfo {
        code: "E610",
        severity: Severity::Error,
        title: "Duplicate prompt argument",
        rationale: "A prompt lists two arguments with the same name, which prompts/get's arguments map cannot carry apart.",
        source: "MCP 2025-11-25 server/prompts §Getting a Prompt (arguments by name)",
    },
    RuleInfo {
        code: "E611",
        severity: Severity::Error,
        title: "Resource URI not absolute",
        rationale: "A resource's uri is not an absolute URI (scheme \":\" …, no spaces or control characters), so resources/read cannot name it reliably.",
        source: "MCP 2025-11-25 schema.json Resource.uri (format uri); RFC 3986 §4.3",
    },
    RuleInfo {
        code: "W607",
        severity: Severity::Warning,
        title: "Malformed mimeType",
        rationale: "A resource's or template's mimeType is not type/subtype with optional parameters, so clients cannot tell how to render the content.",
        source: "MCP 2025-11-25 server/resources §Resource; RFC 6838 §4.2; RFC 9110 §8.3.1",
    },
    RuleInfo {
        code: "E612",
        severity: Severity::Error,
        title: "Malformed uriTemplate",
        rationale: "A resource template's uriTemplate has unbalanced braces, an empty expression or an invalid variable name, so it cannot be expanded.",
        source: "MCP 2025-11-25 server/resources §Resource Templates; RFC 6570 §2.2, §2.3",
    },
    RuleInfo {
        code: "W608",
        severity: Severity::Warning,
        title: "uriTemplate without variables",
        rationale: "A resource template's uriTemplate has no {variable}, so it names one fixed URI that belongs in resources/list.",
        source: "MCP 2025-11-25 server/resources §Resource Templates (parameterized resources); RFC 6570 §1.1",
    },
    RuleInfo {
        code: "E613",
        severity: Severity::Error,
        title: "Duplicate prompt, resource or template",
        rationale: "Two prompts share a name, two resources a URI, or two templates a uriTemplate, so a client reaches only one of them.",
        source: "MCP 2025-11-25 server/prompts §Getting a Prompt, server/resources §Reading Resources (by name and URI)",
    },
    RuleInfo {
        code: "W106",
        severity: Severity::Warning,
        title: "Listing too large",
        rationale: "The tool definitions of a listing come to more than about 8,000 tokens (4 bytes a token), a large share of a model's context spent before any work.",
        source: "mcp-assert W106",
    },
    RuleInfo {
        code: "E301",
        severity: Severity::Warning,
        title: "Response too large",
        rationale: "A tool's answer is over the response budget (100 KiB unless set), which fills a model's context window.",
        source: "mcp-assert E301 (--max-response-kb, default 100)",
    },
    RuleInfo {
        code: "W609",
        severity: Severity::Warning,
        title: "Listing order unstable",
        rationale: "Two listings taken in one session list the same items in a different order, which breaks clients' prompt caching and makes runs differ.",
        source: "Claude prompt caching (tool definitions are the start of the cached prefix); MCP 2025-11-25 server/tools §List Changed Notification",
    },
    RuleInfo {
        code: "W610",
        severity: Severity::Warning,
        title: "Listing content unstable",
        rationale: "Two listings taken in one session differ in which items they list or in an item's definition, with nothing in the session to explain it.",
        source: "MCP 2025-11-25 server/tools §List Changed Notification; Claude prompt caching (a changed tool definition invalidates the cache)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_is_in_declaration_order_and_complete() {
        for (index, (rule, info)) in ALL.iter().zip(INFOS.iter()).enumerate() {
            assert_eq!(rule.info(), info, "row {index}");
            assert_eq!(rule.index(), index, "{}", info.code);
            assert_eq!(Rule::from_code(info.code), Some(*rule));
        }
        let mut codes: Vec<&str> = INFOS.iter().map(|i| i.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), INFOS.len(), "codes must be unique");
        let mut rules = ALL.to_vec();
        rules.sort();
        assert_eq!(rules, ALL.to_vec(), "ALL must list the variants in order");
        for info in INFOS {
            assert!(info.rationale.ends_with('.'), "{}", info.code);
            assert!(!info.rationale.contains('|'), "{}", info.code);
            assert!(!info.source.is_empty(), "{}", info.code);
            assert_eq!(info.code.len(), 4, "{}", info.code);
            let ours = info.code[1..].starts_with('6');
            assert!(
                ours || info.source.starts_with("mcp-assert "),
                "{}: a code outside 6xx must be mcp-assert's",
                info.code
            );
        }
    }
}
