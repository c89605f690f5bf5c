//! The catalogue of scan rules: one row per rule, the single source for codes,
//! severities, titles, the attack each catches and where that attack is published.
//!
//! Codes are grouped by family: S1xx hidden characters, S2xx names, S3xx text aimed
//! at the model, S4xx cross-tool directives, S5xx exfiltration targets, S6xx
//! encoded blobs and secrets, S7xx side channels, S8xx token budget, S9xx
//! collisions across servers. `docs/scan.md` is held to this table by
//! `core/tests/docs_scan.rs`.

use crate::findings::{Family, Level, RuleInfo, Severity};

/// One scan rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// S101: Unicode tag characters.
    TagCharacters,
    /// S102: bidirectional control characters.
    BidiControls,
    /// S103: zero-width characters.
    ZeroWidth,
    /// S104: other invisible format characters.
    InvisibleFormat,
    /// S105: terminal escape sequences and other control characters.
    TerminalEscapes,
    /// S106: U+FFFD, where the server sent invalid Unicode.
    ReplacementCharacter,
    /// S201: a name that mixes scripts.
    MixedScriptName,
    /// S202: a name confusable with another tool's or a well-known tool's.
    ConfusableName,
    /// S301: text telling the model to hide something from the user.
    ConcealFromUser,
    /// S302: text telling the model to ignore its instructions.
    OverrideInstructions,
    /// S303: tags and role markers aimed at the model.
    ModelDirectedMarkup,
    /// S304: directives that claim precedence over other tools or the user.
    CoerciveDirective,
    /// S401: a description that directs how another tool is used.
    CrossToolDirective,
    /// S501: a URL in a description.
    Url,
    /// S502: a description that tells the model to send data to a URL or an
    /// e-mail address.
    SendToUrl,
    /// S503: a request-capture host.
    CaptureHost,
    /// S504: an e-mail address.
    EmailAddress,
    /// S505: a sensitive file path.
    SensitivePath,
    /// S506: a sensitive file path with a read or send verb.
    ReadSensitivePath,
    /// S601: a long base64 or hex blob.
    EncodedBlob,
    /// S602: a secret or key.
    SecretPattern,
    /// S701: a description that names a parameter the schema lacks.
    UndeclaredParameter,
    /// S702: a parameter that asks for the conversation or the system prompt.
    ConversationParameter,
    /// S703: a credential parameter on a tool that is not about credentials.
    CredentialParameter,
    /// S801: a description over 2,000 characters.
    LongDescription,
    /// S802: a description over 8,000 characters.
    HugeDescription,
    /// S803: a listing whose descriptions are large in total.
    ListingDescriptionsLarge,
    /// S901: a tool name another server also lists.
    ToolNameCollision,
    /// S902: a tool name close to another server's.
    ToolNameNearCollision,
    // The extensions (`extensions.rs`): skills and app views.
    /// S305: a skill that claims every task, every tool, or action without
    /// the user.
    OverBroadSkill,
    /// S507: an app view that loads a remote script.
    RemoteScript,
    /// S508: an app view whose form posts to a foreign origin.
    ForeignFormPost,
}

/// Every rule, in catalogue order: the order of findings on one item.
pub const ALL: [Rule; 32] = [
    Rule::TagCharacters,
    Rule::BidiControls,
    Rule::ZeroWidth,
    Rule::InvisibleFormat,
    Rule::TerminalEscapes,
    Rule::ReplacementCharacter,
    Rule::MixedScriptName,
    Rule::ConfusableName,
    Rule::ConcealFromUser,
    Rule::OverrideInstructions,
    Rule::ModelDirectedMarkup,
    Rule::CoerciveDirective,
    Rule::CrossToolDirective,
    Rule::Url,
    Rule::SendToUrl,
    Rule::CaptureHost,
    Rule::EmailAddress,
    Rule::SensitivePath,
    Rule::ReadSensitivePath,
    Rule::EncodedBlob,
    Rule::SecretPattern,
    Rule::UndeclaredParameter,
    Rule::ConversationParameter,
    Rule::CredentialParameter,
    Rule::LongDescription,
    Rule::HugeDescription,
    Rule::ListingDescriptionsLarge,
    Rule::ToolNameCollision,
    Rule::ToolNameNearCollision,
    Rule::OverBroadSkill,
    Rule::RemoteScript,
    Rule::ForeignFormPost,
];

crate::report::catalogue_lookups!(Rule, "S101");

/// What every row of the family shares.
const BASE: RuleInfo = RuleInfo::of(Family::Scan);

const INVARIANT: &str =
    "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025)";
const ASCII_SMUGGLING: &str = "Riley Goodside on Unicode tag characters (2024); Embrace The Red, \"ASCII Smuggler Tool: Crafting Invisible Text and Decoding Hidden Codes\" (2024)";
const TROJAN_SOURCE: &str =
    "Boucher and Anderson, \"Trojan Source: Invisible Vulnerabilities\" (2021)";

/// The rows, in the order of [`Rule`]'s variants.
pub const INFOS: [RuleInfo; 32] = [
    RuleInfo {
        code: "S101",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Unicode tag characters"),
        rationale: crate::findings::prose!(
            "Characters U+E0000 to U+E007F are invisible in every client yet read by models as ASCII, so a description can carry instructions no reviewer sees (ASCII smuggling)."
        ),
        source: crate::findings::prose!(ASCII_SMUGGLING),
        fix: crate::findings::prose!(
            "Remove the Unicode tag characters (U+E0000-U+E007F); nothing legitimate in a tool description needs them."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S102",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Bidirectional controls"),
        rationale: crate::findings::prose!(
            "Embedding and isolate controls (U+202A to U+202E, U+2066 to U+2069) make text display in an order other than the one a model reads."
        ),
        source: crate::findings::prose!(
            "CVE-2021-42574; Boucher and Anderson, \"Trojan Source: Invisible Vulnerabilities\" (2021)"
        ),
        fix: crate::findings::prose!(
            "Remove the bidirectional controls and write the text in its display order."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S103",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Zero-width characters"),
        rationale: crate::findings::prose!(
            "Zero-width spaces and joiners (U+200B to U+200D, U+2060, U+FEFF) hide text boundaries, split keywords past filters, or encode data invisibly."
        ),
        source: crate::findings::prose!(TROJAN_SOURCE),
        fix: crate::findings::prose!(
            "Remove the zero-width characters; if a word must not break, rephrase it."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S104",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Invisible format characters"),
        rationale: crate::findings::prose!(
            "Other invisible characters (soft hyphen, invisible operators, directional marks, Hangul fillers, variation selectors outside emoji) can hide or encode text."
        ),
        source: crate::findings::prose!(
            "Unicode Technical Standard #39, Unicode Security Mechanisms; Paul Butler, \"Smuggling arbitrary data through an emoji\" (2025)"
        ),
        fix: crate::findings::prose!("Remove the invisible formatting characters; use plain text."),
        ..BASE
    },
    RuleInfo {
        code: "S105",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Terminal escapes and control characters"),
        rationale: crate::findings::prose!(
            "ANSI escape sequences and other control characters can hide or rewrite text when a description is shown in a terminal, while the model still reads all of it."
        ),
        source: crate::findings::prose!(
            "Trail of Bits, \"Deceiving users with ANSI terminal codes in MCP\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Remove ANSI escapes and control characters from the text; keep formatting out of descriptions."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S106",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Invalid Unicode"),
        rationale: crate::findings::prose!(
            "U+FFFD stands where the server sent what is not a character, such as a lone surrogate escape (\\udfff): strict parsers refuse the whole listing while the TypeScript and Python SDKs pass it to the model, so what a scanner or a reviewer sees is not what the model reads."
        ),
        source: crate::findings::prose!(
            "RFC 8259 §8.2 (unpaired surrogates); The Unicode Standard, §3.9 (U+FFFD substitution)"
        ),
        fix: crate::findings::prose!(
            "Send valid UTF-8: pair every surrogate escape, or remove the character; a listing must be text the client can read exactly."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S201",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Mixed-script name"),
        rationale: crate::findings::prose!(
            "A tool or prompt name mixes scripts (a Cyrillic а in read_file), which looks like a trusted name to people and is a different tool to the client."
        ),
        source: crate::findings::prose!(
            "CVE-2021-42694 (homoglyphs); Unicode Technical Standard #39 (mixed-script confusables)"
        ),
        fix: crate::findings::prose!("Spell the name in one script (ASCII for tool names)."),
        ..BASE
    },
    RuleInfo {
        code: "S202",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Confusable name"),
        rationale: crate::findings::prose!(
            "A tool name with look-alike characters folds to the name of another tool of the listing or of a well-known server, so it can be mistaken for that tool."
        ),
        source: crate::findings::prose!(
            "Unicode Technical Standard #39 (confusables.txt); CVE-2021-42694"
        ),
        fix: crate::findings::prose!(
            "Rename the tool so it cannot be mistaken for the tool it resembles."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S301",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Concealment from the user"),
        rationale: crate::findings::prose!(
            "Text tells the model not to tell, mention or show something to the user, the mark of a poisoned tool description."
        ),
        source: crate::findings::prose!(INVARIANT),
        fix: crate::findings::prose!(
            "Remove the instruction to hide something from the user; a description says what the tool does, never what to keep from the user."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S302",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Instruction override"),
        rationale: crate::findings::prose!(
            "Text tells the model to ignore or disregard previous, prior or system instructions, a prompt injection."
        ),
        source: crate::findings::prose!(
            "OWASP Top 10 for LLM Applications 2025, LLM01 Prompt Injection"
        ),
        fix: crate::findings::prose!("Remove the instruction to ignore other instructions."),
        ..BASE
    },
    RuleInfo {
        code: "S303",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Model-directed markup"),
        rationale: crate::findings::prose!(
            "Tags such as <IMPORTANT> or <SYSTEM> and chat role markers ([INST], ChatML's im_start, system:) address the model rather than describe the tool."
        ),
        source: crate::findings::prose!(
            "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the <IMPORTANT> example"
        ),
        fix: crate::findings::prose!(
            "Describe the tool in plain prose, without tags or role markers aimed at the model."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S304",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Coercive directive"),
        rationale: crate::findings::prose!(
            "Text claims precedence over other tools or the user (before using any other tool, you must always, when this tool is available), line jumping."
        ),
        source: crate::findings::prose!(
            "Trail of Bits, \"Jumping the line: How MCP servers can attack you before you ever use them\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Remove claims of precedence (\"before any other tool\", \"you must always\"); say what the tool does and let the client decide."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S401",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Cross-tool directive"),
        rationale: crate::findings::prose!(
            "A description tells the model how to use another tool of this or another server (call X first, instead of X, when X is called), shadowing that tool."
        ),
        source: crate::findings::prose!(
            "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the shadowing example"
        ),
        fix: crate::findings::prose!(
            "Describe only this tool; never tell the model how or when to use other tools."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S501",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!("URL in text"),
        rationale: crate::findings::prose!(
            "A description holds a URL, a place data could be sent to; worth a look, rarely an attack alone."
        ),
        source: crate::findings::prose!(
            "Simon Willison, \"Model Context Protocol has prompt injection security problems\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Check that the URL belongs in the description (documentation, the service it calls); remove it otherwise."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S502",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Data sent to a URL or e-mail address"),
        rationale: crate::findings::prose!(
            "A sentence tells the model to send, post, upload, forward or e-mail what it holds (the input, a document, files, results, the conversation, credentials, keys) to a URL or an e-mail address the description names."
        ),
        source: crate::findings::prose!(
            "Simon Willison, \"The lethal trifecta for AI agents\" (2025); Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Remove the instruction to send data to the address; a tool that must send data takes the destination as a declared argument the user sees."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S503",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Request-capture host"),
        rationale: crate::findings::prose!(
            "A URL points at a request-capture or tunnelling service (webhook.site, requestbin, pipedream, ngrok, interactsh), a common exfiltration endpoint."
        ),
        source: crate::findings::prose!(
            "OWASP Top 10 for LLM Applications 2025, LLM02 Sensitive Information Disclosure"
        ),
        fix: crate::findings::prose!(
            "Remove the request-capture or tunnel URL; point at the real service, if any."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S504",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("E-mail address"),
        rationale: crate::findings::prose!(
            "A description holds an e-mail address, which poisoned descriptions use to redirect messages to an attacker."
        ),
        source: crate::findings::prose!(
            "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the send_email shadowing example"
        ),
        fix: crate::findings::prose!(
            "Remove the e-mail address, or make it a declared argument the user fills in."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S505",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Sensitive path"),
        rationale: crate::findings::prose!(
            "Text names a credential or configuration file (~/.ssh, id_rsa, .env, ~/.aws/credentials, .npmrc, mcp.json) that no tool description needs to mention."
        ),
        source: crate::findings::prose!(INVARIANT),
        fix: crate::findings::prose!(
            "Remove the mention of credential and configuration files from the text."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S506",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Sensitive path read or sent"),
        rationale: crate::findings::prose!(
            "A sentence tells the model to read, pass, send or upload a credential or configuration file, or a parameter's name asks for one's content."
        ),
        source: crate::findings::prose!(
            "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the ~/.cursor/mcp.json and ~/.ssh/id_rsa example"
        ),
        fix: crate::findings::prose!(
            "Never ask the model to read or send credential files; take only the data the tool needs, as declared arguments."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S601",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Encoded blob"),
        rationale: crate::findings::prose!(
            "A long base64 or hex run hides text from reviewers that a model can decode and follow."
        ),
        source: crate::findings::prose!(
            "OWASP Top 10 for LLM Applications 2025, LLM01 Prompt Injection (obfuscated payloads)"
        ),
        fix: crate::findings::prose!(
            "Remove the encoded blob from the text, or say in plain words what it is."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S602",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Secret or key"),
        rationale: crate::findings::prose!(
            "Text holds what looks like a live credential (AWS AKIA key, GitHub token, sk- API key, Slack token, private key block, JWT), leaked to every client that lists the server."
        ),
        source: crate::findings::prose!(
            "GitHub secret scanning supported patterns; gitleaks default rules; RFC 7519 (JWT)"
        ),
        fix: crate::findings::prose!(
            "Remove the secret from the listing and revoke it: it was shown to every client."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S701",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Undeclared parameter"),
        rationale: crate::findings::prose!(
            "A description tells the model to fill a parameter the input schema does not declare, a side channel the client's form never shows."
        ),
        source: crate::findings::prose!(INVARIANT),
        fix: crate::findings::prose!(
            "Declare the parameter in the inputSchema (with a description), or stop asking for it in the description."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S702",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Conversation parameter"),
        rationale: crate::findings::prose!(
            "A parameter's name or description asks for the conversation, the chat history or the system prompt, which the tool then receives."
        ),
        source: crate::findings::prose!(
            "Trail of Bits, \"How MCP servers can steal your conversation history\" (2025); CyberArk, \"Poison everywhere: No output from your MCP server is safe\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Remove the parameter that asks for the conversation, chat history or system prompt; take only the data the tool needs."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S703",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Credential parameter"),
        rationale: crate::findings::prose!(
            "A tool that is not about authentication asks for a password, an API key, a token or a private key as an argument."
        ),
        source: crate::findings::prose!(
            "CyberArk, \"Poison everywhere: No output from your MCP server is safe\" (2025), full-schema poisoning"
        ),
        fix: crate::findings::prose!(
            "Get credentials from the server's own configuration (environment, OAuth), not from the model as an argument."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S801",
        level: Level::Warning,
        severity: Severity::Low,
        title: crate::findings::prose!("Long description"),
        rationale: crate::findings::prose!(
            "A description over 2,000 characters is far longer than a tool's job needs and has room for instructions a reviewer will not read."
        ),
        source: crate::findings::prose!(
            "Trail of Bits, \"Jumping the line: How MCP servers can attack you before you ever use them\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Shorten the description to what a model needs to choose and call the tool."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S802",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Huge description"),
        rationale: crate::findings::prose!(
            "A description over 8,000 characters spends the model's context and buries whatever it carries."
        ),
        source: crate::findings::prose!(
            "Trail of Bits, \"Jumping the line: How MCP servers can attack you before you ever use them\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Shorten the description drastically; move long documentation to a resource."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S803",
        level: Level::Note,
        severity: Severity::Info,
        title: crate::findings::prose!("Large listing"),
        rationale: crate::findings::prose!(
            "The descriptions of one server's listing total over 60,000 characters, a large share of every request's context."
        ),
        source: crate::findings::prose!(
            "Anthropic, tool use documentation (tool definitions count as input tokens)"
        ),
        fix: crate::findings::prose!(
            "Trim the listing's descriptions, or split the server into smaller ones."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S901",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Tool name collision"),
        rationale: crate::findings::prose!(
            "Two servers list a tool of the same name, so one shadows the other in clients that key tools by name."
        ),
        source: crate::findings::prose!(
            "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), shadowing; Invariant Labs, \"WhatsApp MCP Exploited\" (2025)"
        ),
        fix: crate::findings::prose!(
            "Rename one of the tools (a server prefix helps), or do not run the two servers side by side."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S902",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Tool name near-collision"),
        rationale: crate::findings::prose!(
            "A tool name is one or two edits from another server's, or equal to it after folding case, - and _, or look-alike characters, so the model may call the wrong one."
        ),
        source: crate::findings::prose!(
            "Unicode Technical Standard #39 (confusables); Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), shadowing"
        ),
        fix: crate::findings::prose!(
            "Rename the tool so it is clearly distinct from the other server's."
        ),
        ..BASE
    },
    // The extensions: skills (SEP-2640) and app views (SEP-1865).
    RuleInfo {
        code: "S305",
        level: Level::Warning,
        severity: Severity::Medium,
        title: crate::findings::prose!("Over-broad skill"),
        rationale: crate::findings::prose!(
            "A skill claims every task (use this skill for every request), every tool (allowed-tools: *), or action without the user (run any command, without asking), so loading it widens what the model does far beyond its purpose."
        ),
        source: crate::findings::prose!(
            "Agent Skills specification (allowed-tools, description); snyk agent-scan W-class skill checks (over-broad instructions)"
        ),
        fix: crate::findings::prose!(
            "Say in the description when the skill applies, grant only the tools it needs, and leave confirmation to the user."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S507",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Remote script in an app"),
        rationale: crate::findings::prose!(
            "An app view loads a script from another origin, so what runs in the host is not what was reviewed and can change at any time, a rug pull inside the frame."
        ),
        source: crate::findings::prose!(
            "SEP-1865 MCP Apps §Security (CSP, resourceDomains); OWASP, third-party JavaScript management"
        ),
        fix: crate::findings::prose!(
            "Inline the script in the ui:// resource, or serve it from an origin listed in csp.resourceDomains and pin it with integrity."
        ),
        ..BASE
    },
    RuleInfo {
        code: "S508",
        level: Level::Error,
        severity: Severity::High,
        title: crate::findings::prose!("Form post to a foreign origin"),
        rationale: crate::findings::prose!(
            "An app view's form (or beacon) sends what the user types to an absolute URL, outside the host and the MCP server, an exfiltration channel."
        ),
        source: crate::findings::prose!(
            "SEP-1865 MCP Apps §Security (views talk to the host over postMessage); OWASP, cross-site request forgery and data exfiltration"
        ),
        fix: crate::findings::prose!(
            "Send the view's input to the host with a ui/ message (tools/call through the host), not to a URL."
        ),
        ..BASE
    },
];
