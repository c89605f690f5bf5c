//! The catalogue of lint rules: one row per rule, the single source for codes,
//! severities, titles, one-line rationales and sources.
//!
//! Codes mcp-assert also uses (E101 … E113, E301, W102 … W111) keep mcp-assert's
//! number where our rule checks the same thing, so a code found in either tool's
//! output means the same problem. Rules of our own are numbered in the 6xx range
//! (E6xx, W6xx, I6xx), which mcp-assert does not use: its E2xx are runtime errors
//! (panic, timeout, connection) and its E3xx, E4xx and E5xx other families.
//! `docs/lint.md` is held to this table by `core/tests/docs_lint.rs`.

use crate::findings::{Family, Level, RuleInfo, Severity};

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
    // The extensions (`extensions.rs`): MCP Apps metadata and skill manifests.
    /// E620: app resource uri not ui://.
    AppResourceScheme,
    /// E621: unknown app visibility.
    AppVisibility,
    /// W620: deprecated flat ui/resourceuri.
    AppFlatMeta,
    /// E622: app resource without the mcp-app profile.
    AppMimeType,
    /// E623: app csp entry that is not an origin.
    AppCsp,
    /// E624: incomplete skill entry.
    SkillManifest,
    /// E625: malformed skill digest.
    SkillDigest,
    /// E626: malformed skill size.
    SkillSize,
    /// E627: skill file outside the skill.
    SkillRoot,
    /// E628: skill name and uri disagree.
    SkillName,
    /// W621: oversized skill.
    SkillLimits,
    /// W622: reserved skill metadata key.
    SkillReservedPrefix,
}

/// Every rule, in catalogue order: the order of findings on one item.
pub const ALL: [Rule; 45] = [
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
    Rule::AppResourceScheme,
    Rule::AppVisibility,
    Rule::AppFlatMeta,
    Rule::AppMimeType,
    Rule::AppCsp,
    Rule::SkillManifest,
    Rule::SkillDigest,
    Rule::SkillSize,
    Rule::SkillRoot,
    Rule::SkillName,
    Rule::SkillLimits,
    Rule::SkillReservedPrefix,
];

crate::report::catalogue_lookups!(Rule, "E103");

/// What every lint row shares.
const BASE: RuleInfo = RuleInfo::of(Family::Lint);

/// The rows, in the order of [`Rule`]'s variants.
pub const INFOS: [RuleInfo; 45] = [
    RuleInfo {
        code: "E601",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Malformed entry"),
        rationale: crate::findings::prose!(
            "A listing is not an array, an entry is not an object, a field MCP requires is missing or empty, or a field has the wrong JSON type, so clients drop the entry or fail to read the listing."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 schema.json (Tool, ToolAnnotations, Prompt, PromptArgument, Resource, ResourceTemplate)"
        ),
        fix: crate::findings::prose!(
            "Make the entry match the MCP schema: listings are arrays of objects, each with the required fields (name; uri for resources; uriTemplate for templates) of the right JSON type."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W601",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Tool name format"),
        rationale: crate::findings::prose!(
            "A tool name is not 1 to 128 characters of A-Z, a-z, 0-9, '_', '-' and '.', which clients may reject or rewrite."
        ),
        source: crate::findings::prose!("MCP 2025-11-25 server/tools §Tool Names"),
        fix: crate::findings::prose!(
            "Rename the tool to 1-128 characters of A-Z, a-z, 0-9, '_', '-' and '.' (for example read_file)."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E113",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Duplicate tool name"),
        rationale: crate::findings::prose!(
            "Two tools share a name, so a call by that name is ambiguous and clients that key tools by name lose one."
        ),
        source: crate::findings::prose!(
            "mcp-assert E113; MCP 2025-11-25 server/tools §Tool Names (unique within a server)"
        ),
        fix: crate::findings::prose!(
            "Give each tool a name of its own; merge the two tools or rename one."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E101",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Tool description missing"),
        rationale: crate::findings::prose!(
            "A tool has no description (absent, empty or blank), so a model cannot tell when to use it."
        ),
        source: crate::findings::prose!("mcp-assert E101"),
        fix: crate::findings::prose!(
            "Add a description that says what the tool does and when a model should call it."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W111",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Tool description length"),
        rationale: crate::findings::prose!(
            "A tool description is shorter than 20 characters and 3 words, too little to choose the tool by, or longer than 1,024 characters, which OpenAI's function calling rejects."
        ),
        source: crate::findings::prose!(
            "mcp-assert W111 (other bounds); OpenAI Chat Completions (function.description at most 1,024 characters, string_above_max_length)"
        ),
        fix: crate::findings::prose!(
            "Write a description of at least 20 characters and 3 words, and at most 1,024 characters: what the tool does, when to use it, what it returns."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W105",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Duplicate tool description"),
        rationale: crate::findings::prose!(
            "Two tools have the same description, so a model cannot tell them apart."
        ),
        source: crate::findings::prose!("mcp-assert W105 (identical descriptions only)"),
        fix: crate::findings::prose!(
            "Describe each tool by what sets it apart from the other, so a model can choose between them."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E602",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("inputSchema missing"),
        rationale: crate::findings::prose!(
            "A tool has no inputSchema, or it is null or not a JSON object, so clients cannot describe or validate its arguments."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §Tool (inputSchema MUST be a valid JSON Schema object, not null)"
        ),
        fix: crate::findings::prose!(
            "Give the tool an inputSchema object; a tool without arguments takes {\"type\": \"object\"}."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E603",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("inputSchema not type object"),
        rationale: crate::findings::prose!(
            "A tool's inputSchema does not say type: \"object\" at its root, which the MCP schema requires and Claude's API rejects (input_schema.type)."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 schema.json Tool.inputSchema (type const \"object\"); Claude API tool input_schema"
        ),
        fix: crate::findings::prose!(
            "Put \"type\": \"object\" at the root of the inputSchema and describe the arguments under properties."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E604",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Composition at the inputSchema root"),
        rationale: crate::findings::prose!(
            "A tool's inputSchema has oneOf, anyOf or allOf at its root, which Claude's API rejects for every request that lists the tool."
        ),
        source: crate::findings::prose!(
            "Claude API (400: input_schema does not support oneOf, allOf, or anyOf at the top level); OpenAI Structured Outputs (root object must not be anyOf)"
        ),
        fix: crate::findings::prose!(
            "Move oneOf/anyOf/allOf below the root: keep the root a plain object schema and put the alternatives on the properties that vary."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E605",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Invalid JSON Schema"),
        rationale: crate::findings::prose!(
            "An inputSchema or outputSchema is not a valid JSON Schema in its declared dialect (2020-12 when it names none), so clients cannot compile it."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 basic/index §JSON Schema Usage (Schema Validation, Implementation Requirements)"
        ),
        fix: crate::findings::prose!(
            "Fix the schema so it compiles in its dialect (2020-12 unless $schema says otherwise); the message names the keyword that fails."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E606",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("required not in properties"),
        rationale: crate::findings::prose!(
            "An object schema requires a property its properties do not define, so the argument is mandatory but has no type or description to go by."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 schema.json Tool.inputSchema (properties, required); JSON Schema 2020-12 validation §6.5.3"
        ),
        fix: crate::findings::prose!(
            "Define every property named in required under properties, with a type and a description, or drop it from required."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E102",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Parameter untyped"),
        rationale: crate::findings::prose!(
            "A parameter's schema constrains no type (no type, enum, const, $ref or composition), so a model guesses the value's type and Gemini CLI skipped such tools."
        ),
        source: crate::findings::prose!(
            "mcp-assert E102 (narrowed to schemas that constrain no type); Gemini CLI (\"missing types in its parameter schema\")"
        ),
        fix: crate::findings::prose!(
            "Give the parameter a type (or an enum, const, $ref or composition) so a model knows what kind of value to send."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E103",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Required parameter without description"),
        rationale: crate::findings::prose!(
            "A required parameter has no description, so a model guesses what value to give."
        ),
        source: crate::findings::prose!("mcp-assert E103"),
        fix: crate::findings::prose!(
            "Describe every required parameter: what it is, its unit or format, an example value."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W102",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Optional parameter without description"),
        rationale: crate::findings::prose!(
            "An optional parameter has no description, so a model guesses when and how to use it."
        ),
        source: crate::findings::prose!("mcp-assert W102"),
        fix: crate::findings::prose!(
            "Describe the optional parameter: what it changes and its default."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W602",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("default rejected by its schema"),
        rationale: crate::findings::prose!(
            "A schema's default is not among its enum values, differs from its const, or is not of its type, so a client that fills in the default sends an invalid value."
        ),
        source: crate::findings::prose!(
            "JSON Schema 2020-12 validation §9.2 (default SHOULD be valid against its schema)"
        ),
        fix: crate::findings::prose!(
            "Make the default a value its own schema accepts (in the enum, equal to const, of the declared type), or drop it."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W603",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Malformed enum"),
        rationale: crate::findings::prose!(
            "A schema's enum is empty, so no value is valid, or lists a value twice."
        ),
        source: crate::findings::prose!(
            "JSON Schema 2020-12 validation §6.1.2 (enum SHOULD have at least one element, elements SHOULD be unique)"
        ),
        fix: crate::findings::prose!("List at least one value in the enum, each once."),
        ..BASE
    },
    RuleInfo {
        code: "E607",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("External $ref"),
        rationale: crate::findings::prose!(
            "A $ref points outside the schema (a network or relative URI), which clients do not fetch, so validation against it fails."
        ),
        source: crate::findings::prose!(
            "MCP 2026-07-28 basic/index §$ref Resolution (MUST NOT dereference network URIs; unresolved external $ref SHOULD be rejected)"
        ),
        fix: crate::findings::prose!(
            "Inline the referenced schema under $defs and point $ref at it (#/$defs/...); clients do not fetch external schemas."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E608",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Dangling $ref"),
        rationale: crate::findings::prose!(
            "A local $ref (#/… or #anchor) resolves to nothing in the schema, for example a #/$defs/… reference with no $defs, so the schema does not compile."
        ),
        source: crate::findings::prose!(
            "JSON Schema 2020-12 core §8.2.3.1 ($ref); Gemini CLI (\"can't resolve reference\")"
        ),
        fix: crate::findings::prose!(
            "Point $ref at a definition that exists (add it under $defs), or fix the pointer's spelling."
        ),
        ..BASE
    },
    RuleInfo {
        code: "I601",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!("Keyword some clients drop"),
        rationale: crate::findings::prose!(
            "An inputSchema uses if/then/else, patternProperties, dependentSchemas, dependentRequired, dependencies, unevaluatedProperties or propertyNames, outside the subsets OpenAI's strict function calling and Gemini's function parameters accept."
        ),
        source: crate::findings::prose!(
            "OpenAI Structured Outputs (supported schemas); Gemini API FunctionDeclaration parameters (OpenAPI Schema subset)"
        ),
        fix: crate::findings::prose!(
            "If models of those clients must call the tool, express the rule another way (an enum, separate optional properties) or describe it in the description."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E609",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("outputSchema not an object"),
        rationale: crate::findings::prose!(
            "A tool's outputSchema is present but not a JSON object, so clients cannot validate structured results against it."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §Output Schema; schema.json Tool.outputSchema"
        ),
        fix: crate::findings::prose!(
            "Make outputSchema a JSON object (a schema), or leave it out."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W604",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("outputSchema not type object"),
        rationale: crate::findings::prose!(
            "A tool's outputSchema does not say type: \"object\" at its root, which revisions up to 2025-11-25 require (2026-07-28 allows any schema)."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 schema.json Tool.outputSchema (type const \"object\"); MCP 2026-07-28 changelog"
        ),
        fix: crate::findings::prose!(
            "Put \"type\": \"object\" at the root of the outputSchema for clients of revisions up to 2025-11-25, or wrap the value in an object property."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W605",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Contradictory annotations"),
        rationale: crate::findings::prose!(
            "A tool says readOnlyHint: true and destructiveHint: true, but a tool that does not modify its environment cannot destroy anything in it."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 schema.json ToolAnnotations (destructiveHint is meaningful only when readOnlyHint is false)"
        ),
        fix: crate::findings::prose!(
            "Set destructiveHint only on tools that are not read-only: drop it, or set readOnlyHint to false if the tool changes things."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W606",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Prompt argument without description"),
        rationale: crate::findings::prose!(
            "A prompt argument has no description, so the user filling it in has only its name to go by."
        ),
        source: crate::findings::prose!("MCP 2025-11-25 server/prompts §PromptArgument"),
        fix: crate::findings::prose!("Describe the prompt argument: what the user should fill in."),
        ..BASE
    },
    RuleInfo {
        code: "E610",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Duplicate prompt argument"),
        rationale: crate::findings::prose!(
            "A prompt lists two arguments with the same name, which prompts/get's arguments map cannot carry apart."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/prompts §Getting a Prompt (arguments by name)"
        ),
        fix: crate::findings::prose!("Give each prompt argument a name of its own."),
        ..BASE
    },
    RuleInfo {
        code: "E611",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Resource URI not absolute"),
        rationale: crate::findings::prose!(
            "A resource's uri is not an absolute URI (scheme \":\" …, no spaces or control characters), so resources/read cannot name it reliably."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 schema.json Resource.uri (format uri); RFC 3986 §4.3"
        ),
        fix: crate::findings::prose!(
            "Use an absolute URI with a scheme (file:///..., https://..., myapp://...), percent-encoding spaces and control characters."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W607",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Malformed mimeType"),
        rationale: crate::findings::prose!(
            "A resource's or template's mimeType is not type/subtype with optional parameters, so clients cannot tell how to render the content."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/resources §Resource; RFC 6838 §4.2; RFC 9110 §8.3.1"
        ),
        fix: crate::findings::prose!(
            "Write the mimeType as type/subtype (text/plain, application/json; charset=utf-8)."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E612",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Malformed uriTemplate"),
        rationale: crate::findings::prose!(
            "A resource template's uriTemplate has unbalanced braces, an empty expression or an invalid variable name, so it cannot be expanded."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/resources §Resource Templates; RFC 6570 §2.2, §2.3"
        ),
        fix: crate::findings::prose!(
            "Balance the braces and use valid RFC 6570 variable names ({name}, {+path})."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W608",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("uriTemplate without variables"),
        rationale: crate::findings::prose!(
            "A resource template's uriTemplate has no {variable}, so it names one fixed URI that belongs in resources/list."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/resources §Resource Templates (parameterized resources); RFC 6570 §1.1"
        ),
        fix: crate::findings::prose!(
            "List a fixed URI under resources, or add the {variable} the template stands for."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E613",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Duplicate prompt, resource or template"),
        rationale: crate::findings::prose!(
            "Two prompts share a name, two resources a URI, or two templates a uriTemplate, so a client reaches only one of them."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/prompts §Getting a Prompt, server/resources §Reading Resources (by name and URI)"
        ),
        fix: crate::findings::prose!(
            "Give each prompt a unique name, each resource a unique URI and each template a unique uriTemplate."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W106",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Listing too large"),
        rationale: crate::findings::prose!(
            "The tool definitions of a listing come to more than about 8,000 tokens (4 bytes a token), a large share of a model's context spent before any work."
        ),
        source: crate::findings::prose!("mcp-assert W106"),
        fix: crate::findings::prose!(
            "Trim the tool definitions: shorter descriptions, fewer tools (split the server or group tools), schemas without repeated prose."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E301",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Response too large"),
        rationale: crate::findings::prose!(
            "A tool's answer is over the response budget (100 KiB unless set), which fills a model's context window."
        ),
        source: crate::findings::prose!("mcp-assert E301 (--max-response-kb, default 100)"),
        fix: crate::findings::prose!(
            "Return less per call: paginate, summarise, or let the caller ask for the part it needs; raise --max-response-kb only if the size is intended."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W609",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Listing order unstable"),
        rationale: crate::findings::prose!(
            "Two listings taken in one session list the same items in a different order, which breaks clients' prompt caching and makes runs differ."
        ),
        source: crate::findings::prose!(
            "Claude prompt caching (tool definitions are the start of the cached prefix); MCP 2025-11-25 server/tools §List Changed Notification"
        ),
        fix: crate::findings::prose!(
            "List items in a fixed order (sort them, or keep insertion order) so every listing of a session is the same."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W610",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Listing content unstable"),
        rationale: crate::findings::prose!(
            "Two listings taken in one session differ in which items they list or in an item's definition, with nothing in the session to explain it."
        ),
        source: crate::findings::prose!(
            "MCP 2025-11-25 server/tools §List Changed Notification; Claude prompt caching (a changed tool definition invalidates the cache)"
        ),
        fix: crate::findings::prose!(
            "Keep the listing the same within a session, or send notifications/tools/list_changed when it does change."
        ),
        ..BASE
    },
    // The extensions.
    RuleInfo {
        code: "E620",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("App resource URI not ui://"),
        rationale: crate::findings::prose!(
            "A tool's _meta.ui.resourceUri is not a ui:// URI, so no host renders its app."
        ),
        source: crate::findings::prose!(
            "SEP-1865 MCP Apps (ext-apps specification/2026-01-26) §Tool metadata (resourceUri)"
        ),
        fix: crate::findings::prose!(
            "Point _meta.ui.resourceUri at the ui:// resource that holds the app's HTML."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E621",
        level: Level::Error,
        severity: Severity::Medium,
        title: crate::findings::prose!("Unknown app visibility"),
        rationale: crate::findings::prose!(
            "A tool's _meta.ui.visibility is not a list of \"model\" and \"app\", so hosts cannot tell who may call it."
        ),
        source: crate::findings::prose!(
            "SEP-1865 MCP Apps (ext-apps specification/2026-01-26) §Tool metadata (visibility)"
        ),
        fix: crate::findings::prose!(
            "Give visibility as [\"model\"], [\"app\"] or [\"model\", \"app\"]."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W620",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!("Deprecated flat ui/resourceUri"),
        rationale: crate::findings::prose!(
            "A tool names its app with the flat _meta[\"ui/resourceUri\"], which the specification deprecates and hosts are dropping."
        ),
        source: crate::findings::prose!(
            "SEP-1865 MCP Apps (ext-apps specification/2026-01-26) §Tool metadata (deprecation notice)"
        ),
        fix: crate::findings::prose!("Move the URI to _meta.ui.resourceUri."),
        ..BASE
    },
    RuleInfo {
        code: "E622",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("App resource without the mcp-app profile"),
        rationale: crate::findings::prose!(
            "A ui:// resource's mimeType is not exactly text/html;profile=mcp-app, so hosts do not render it as an app."
        ),
        source: crate::findings::prose!(
            "SEP-1865 MCP Apps (ext-apps specification/2026-01-26) §UI Resource Format"
        ),
        fix: crate::findings::prose!(
            "List and serve the app with mimeType text/html;profile=mcp-app."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E623",
        level: Level::Error,
        severity: Severity::Medium,
        title: crate::findings::prose!("App CSP entry that is not an origin"),
        rationale: crate::findings::prose!(
            "A ui:// resource's _meta.ui.csp lists something other than an origin (a path, a bare wildcard), which hosts reject or read more widely than meant."
        ),
        source: crate::findings::prose!(
            "SEP-1865 MCP Apps (ext-apps specification/2026-01-26) §UI Resource metadata (csp)"
        ),
        fix: crate::findings::prose!("List origins only: a scheme, a host and an optional port."),
        ..BASE
    },
    RuleInfo {
        code: "E624",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Incomplete skill entry"),
        rationale: crate::findings::prose!(
            "A skill entry lacks its uri, its frontmatter name or description, or a complete resources manifest (SKILL.md included, each file once), so hosts cannot load or verify the skill."
        ),
        source: crate::findings::prose!("SEP-2640 (skills extension) §Skill entries; §resources"),
        fix: crate::findings::prose!(
            "Give every entry uri, frontmatter (name, description) and resources listing every file once, SKILL.md included (or \"dynamic\")."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E625",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Malformed skill digest"),
        rationale: crate::findings::prose!(
            "A manifest digest is not sha256: and 64 lowercase hex digits, so hosts cannot verify the file."
        ),
        source: crate::findings::prose!("SEP-2640 (skills extension) §resources (digest)"),
        fix: crate::findings::prose!(
            "Write each digest as sha256:{64 lowercase hex} of the file's raw bytes."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E626",
        level: Level::Error,
        severity: Severity::Medium,
        title: crate::findings::prose!("Malformed skill size"),
        rationale: crate::findings::prose!(
            "A manifest size is not a non-negative integer, so hosts cannot check or budget the file."
        ),
        source: crate::findings::prose!("SEP-2640 (skills extension) §resources (size)"),
        fix: crate::findings::prose!("Give each size as the file's length in bytes."),
        ..BASE
    },
    RuleInfo {
        code: "E627",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Skill file outside the skill"),
        rationale: crate::findings::prose!(
            "A manifest names a file outside the skill's directory, so loading the skill pulls in another skill's or the server's files."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension) §resources (within the skill)"
        ),
        fix: crate::findings::prose!(
            "List only the files under the directory of the skill's SKILL.md."
        ),
        ..BASE
    },
    RuleInfo {
        code: "E628",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Skill name and URI disagree"),
        rationale: crate::findings::prose!(
            "The final segment of a skill's URI is not its frontmatter name, or breaks the naming rules (lowercase letters, digits, single hyphens)."
        ),
        source: crate::findings::prose!(
            "SEP-2640 (skills extension) §Skill URIs; Agent Skills specification §name"
        ),
        fix: crate::findings::prose!(
            "Serve each skill at .../NAME/SKILL.md, NAME its lowercase frontmatter name."
        ),
        ..BASE
    },
    RuleInfo {
        code: "W621",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Oversized skill"),
        rationale: crate::findings::prose!(
            "A skill has more than 512 manifest entries or more than 16 MiB of files, more than hosts are asked to load."
        ),
        source: crate::findings::prose!("SEP-2640 (skills extension) §Limits"),
        fix: crate::findings::prose!("Split the skill, or leave bulky data out of it."),
        ..BASE
    },
    RuleInfo {
        code: "W622",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!("Reserved skill metadata key"),
        rationale: crate::findings::prose!(
            "A skill's frontmatter metadata uses a key under io.modelcontextprotocol/, which is reserved for MCP extensions."
        ),
        source: crate::findings::prose!("SEP-2640 (skills extension) §Frontmatter metadata"),
        fix: crate::findings::prose!("Rename the key under a prefix of your own."),
        ..BASE
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes outside the 6xx range are mcp-assert's, for the same check.
    #[test]
    fn codes_outside_6xx_are_mcp_asserts() {
        for info in INFOS {
            let ours = info.code[1..].starts_with('6');
            assert!(
                ours || info.source.starts_with("mcp-assert "),
                "{}: a code outside 6xx must be mcp-assert's",
                info.code
            );
        }
    }
}
