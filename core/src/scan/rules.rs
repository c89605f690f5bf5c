//! The catalogue of scan rules: one row per rule, the single source for codes,
//! severities, titles, the attack each catches and where that attack is published.
//!
//! Codes are grouped by family: S1xx hidden characters, S2xx names, S3xx text aimed
//! at the model, S4xx cross-tool directives, S5xx exfiltration targets, S6xx
//! encoded blobs and secrets, S7xx side channels, S8xx token budget, S9xx
//! collisions across servers. `docs/scan.md` is held to this table by
//! `core/tests/docs_scan.rs`.

use super::Severity;

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
    /// S502: a description that sends sensitive data to a URL.
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
}

/// The published description of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// Stable code, `S` and three digits.
    pub code: &'static str,
    /// The severity of every finding of the rule.
    pub severity: Severity,
    /// A short name.
    pub title: &'static str,
    /// The attack the rule catches, in one line.
    pub rationale: &'static str,
    /// Where the attack is published: write-ups, CVEs, standards.
    pub source: &'static str,
}

/// Every rule, in catalogue order: the order of findings on one item.
pub const ALL: [Rule; 29] = [
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
];

crate::report::catalogue_lookups!(Rule, RuleInfo, Severity, "S101");

const INVARIANT: &str =
    "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025)";
const ASCII_SMUGGLING: &str = "Riley Goodside on Unicode tag characters (2024); Embrace The Red, \"ASCII Smuggler Tool: Crafting Invisible Text and Decoding Hidden Codes\" (2024)";
const TROJAN_SOURCE: &str =
    "Boucher and Anderson, \"Trojan Source: Invisible Vulnerabilities\" (2021)";

const INFOS: [RuleInfo; 29] = [
    RuleInfo {
        code: "S101",
        severity: Severity::High,
        title: "Unicode tag characters",
        rationale: "Characters U+E0000 to U+E007F are invisible in every client yet read by models as ASCII, so a description can carry instructions no reviewer sees (ASCII smuggling).",
        source: ASCII_SMUGGLING,
    },
    RuleInfo {
        code: "S102",
        severity: Severity::High,
        title: "Bidirectional controls",
        rationale: "Embedding and isolate controls (U+202A to U+202E, U+2066 to U+2069) make text display in an order other than the one a model reads.",
        source: "CVE-2021-42574; Boucher and Anderson, \"Trojan Source: Invisible Vulnerabilities\" (2021)",
    },
    RuleInfo {
        code: "S103",
        severity: Severity::Medium,
        title: "Zero-width characters",
        rationale: "Zero-width spaces and joiners (U+200B to U+200D, U+2060, U+FEFF) hide text boundaries, split keywords past filters, or encode data invisibly.",
        source: TROJAN_SOURCE,
    },
    RuleInfo {
        code: "S104",
        severity: Severity::Medium,
        title: "Invisible format characters",
        rationale: "Other invisible characters (soft hyphen, invisible operators, directional marks, Hangul fillers, variation selectors outside emoji) can hide or encode text.",
        source: "Unicode Technical Standard #39, Unicode Security Mechanisms; Paul Butler, \"Smuggling arbitrary data through an emoji\" (2025)",
    },
    RuleInfo {
        code: "S105",
        severity: Severity::Medium,
        title: "Terminal escapes and control characters",
        rationale: "ANSI escape sequences and other control characters can hide or rewrite text when a description is shown in a terminal, while the model still reads all of it.",
        source: "Trail of Bits, \"Deceiving users with ANSI terminal codes in MCP\" (2025)",
    },
    RuleInfo {
        code: "S106",
        severity: Severity::High,
        title: "Invalid Unicode",
        rationale: "U+FFFD stands where the server sent what is not a character, such as a lone surrogate escape (\\udfff): strict parsers refuse the whole listing while the TypeScript and Python SDKs pass it to the model, so what a scanner or a reviewer sees is not what the model reads.",
        source: "RFC 8259 §8.2 (unpaired surrogates); The Unicode Standard, §3.9 (U+FFFD substitution)",
    },
    RuleInfo {
        code: "S201",
        severity: Severity::High,
        title: "Mixed-script name",
        rationale: "A tool or prompt name mixes scripts (a Cyrillic а in read_file), which looks like a trusted name to people and is a different tool to the client.",
        source: "CVE-2021-42694 (homoglyphs); Unicode Technical Standard #39 (mixed-script confusables)",
    },
    RuleInfo {
        code: "S202",
        severity: Severity::Medium,
        title: "Confusable name",
        rationale: "A tool name with look-alike characters folds to the name of another tool of the listing or of a well-known server, so it can be mistaken for that tool.",
        source: "Unicode Technical Standard #39 (confusables.txt); CVE-2021-42694",
    },
    RuleInfo {
        code: "S301",
        severity: Severity::High,
        title: "Concealment from the user",
        rationale: "Text tells the model not to tell, mention or show something to the user, the mark of a poisoned tool description.",
        source: INVARIANT,
    },
    RuleInfo {
        code: "S302",
        severity: Severity::High,
        title: "Instruction override",
        rationale: "Text tells the model to ignore or disregard previous, prior or system instructions, a prompt injection.",
        source: "OWASP Top 10 for LLM Applications 2025, LLM01 Prompt Injection",
    },
    RuleInfo {
        code: "S303",
        severity: Severity::Medium,
        title: "Model-directed markup",
        rationale: "Tags such as <IMPORTANT> or <SYSTEM> and chat role markers ([INST], ChatML's im_start, system:) address the model rather than describe the tool.",
        source: "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the <IMPORTANT> example",
    },
    RuleInfo {
        code: "S304",
        severity: Severity::Medium,
        title: "Coercive directive",
        rationale: "Text claims precedence over other tools or the user (before using any other tool, you must always, when this tool is available), line jumping.",
        source: "Trail of Bits, \"Jumping the line: How MCP servers can attack you before you ever use them\" (2025)",
    },
    RuleInfo {
        code: "S401",
        severity: Severity::Medium,
        title: "Cross-tool directive",
        rationale: "A description tells the model how to use another tool of this or another server (call X first, instead of X, when X is called), shadowing that tool.",
        source: "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the shadowing example",
    },
    RuleInfo {
        code: "S501",
        severity: Severity::Info,
        title: "URL in text",
        rationale: "A description holds a URL, a place data could be sent to; worth a look, rarely an attack alone.",
        source: "Simon Willison, \"Model Context Protocol has prompt injection security problems\" (2025)",
    },
    RuleInfo {
        code: "S502",
        severity: Severity::High,
        title: "Sensitive data sent to a URL",
        rationale: "A sentence with a URL tells the model to send, post or upload conversation, credentials, keys or file contents there.",
        source: "Simon Willison, \"The lethal trifecta for AI agents\" (2025); Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025)",
    },
    RuleInfo {
        code: "S503",
        severity: Severity::Medium,
        title: "Request-capture host",
        rationale: "A URL points at a request-capture or tunnelling service (webhook.site, requestbin, pipedream, ngrok, interactsh), a common exfiltration endpoint.",
        source: "OWASP Top 10 for LLM Applications 2025, LLM02 Sensitive Information Disclosure",
    },
    RuleInfo {
        code: "S504",
        severity: Severity::Medium,
        title: "E-mail address",
        rationale: "A description holds an e-mail address, which poisoned descriptions use to redirect messages to an attacker.",
        source: "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the send_email shadowing example",
    },
    RuleInfo {
        code: "S505",
        severity: Severity::Medium,
        title: "Sensitive path",
        rationale: "Text names a credential or configuration file (~/.ssh, id_rsa, .env, ~/.aws/credentials, .npmrc, mcp.json) that no tool description needs to mention.",
        source: INVARIANT,
    },
    RuleInfo {
        code: "S506",
        severity: Severity::High,
        title: "Sensitive path read or sent",
        rationale: "A sentence tells the model to read, pass, send or upload a credential or configuration file, or a parameter's name asks for one's content.",
        source: "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), the ~/.cursor/mcp.json and ~/.ssh/id_rsa example",
    },
    RuleInfo {
        code: "S601",
        severity: Severity::Medium,
        title: "Encoded blob",
        rationale: "A long base64 or hex run hides text from reviewers that a model can decode and follow.",
        source: "OWASP Top 10 for LLM Applications 2025, LLM01 Prompt Injection (obfuscated payloads)",
    },
    RuleInfo {
        code: "S602",
        severity: Severity::High,
        title: "Secret or key",
        rationale: "Text holds what looks like a live credential (AWS AKIA key, GitHub token, sk- API key, Slack token, private key block, JWT), leaked to every client that lists the server.",
        source: "GitHub secret scanning supported patterns; gitleaks default rules; RFC 7519 (JWT)",
    },
    RuleInfo {
        code: "S701",
        severity: Severity::Medium,
        title: "Undeclared parameter",
        rationale: "A description tells the model to fill a parameter the input schema does not declare, a side channel the client's form never shows.",
        source: INVARIANT,
    },
    RuleInfo {
        code: "S702",
        severity: Severity::High,
        title: "Conversation parameter",
        rationale: "A parameter's name or description asks for the conversation, the chat history or the system prompt, which the tool then receives.",
        source: "Trail of Bits, \"How MCP servers can steal your conversation history\" (2025); CyberArk, \"Poison everywhere: No output from your MCP server is safe\" (2025)",
    },
    RuleInfo {
        code: "S703",
        severity: Severity::Medium,
        title: "Credential parameter",
        rationale: "A tool that is not about authentication asks for a password, an API key, a token or a private key as an argument.",
        source: "CyberArk, \"Poison everywhere: No output from your MCP server is safe\" (2025), full-schema poisoning",
    },
    RuleInfo {
        code: "S801",
        severity: Severity::Low,
        title: "Long description",
        rationale: "A description over 2,000 characters is far longer than a tool's job needs and has room for instructions a reviewer will not read.",
        source: "Trail of Bits, \"Jumping the line: How MCP servers can attack you before you ever use them\" (2025)",
    },
    RuleInfo {
        code: "S802",
        severity: Severity::Medium,
        title: "Huge description",
        rationale: "A description over 8,000 characters spends the model's context and buries whatever it carries.",
        source: "Trail of Bits, \"Jumping the line: How MCP servers can attack you before you ever use them\" (2025)",
    },
    RuleInfo {
        code: "S803",
        severity: Severity::Info,
        title: "Large listing",
        rationale: "The descriptions of one server's listing total over 60,000 characters, a large share of every request's context.",
        source: "Anthropic, tool use documentation (tool definitions count as input tokens)",
    },
    RuleInfo {
        code: "S901",
        severity: Severity::High,
        title: "Tool name collision",
        rationale: "Two servers list a tool of the same name, so one shadows the other in clients that key tools by name.",
        source: "Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), shadowing; Invariant Labs, \"WhatsApp MCP Exploited\" (2025)",
    },
    RuleInfo {
        code: "S902",
        severity: Severity::Medium,
        title: "Tool name near-collision",
        rationale: "A tool name is one or two edits from another server's, or equal to it after folding case, - and _, or look-alike characters, so the model may call the wrong one.",
        source: "Unicode Technical Standard #39 (confusables); Invariant Labs, \"MCP Security Notification: Tool Poisoning Attacks\" (2025), shadowing",
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
            assert!(!info.source.contains('|'), "{}", info.code);
            assert!(!info.source.is_empty(), "{}", info.code);
            assert!(
                info.code.len() == 4 && info.code.starts_with('S'),
                "{}",
                info.code
            );
        }
    }
}
