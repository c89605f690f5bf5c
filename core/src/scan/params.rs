//! S701 … S703: side channels through a tool's parameters.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::rules::Rule;
use super::{At, Sink, escape, sentence};

static MENTION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)[`'"](?P<a>[A-Za-z_][A-Za-z0-9_]*)[`'"]\s+(?:parameter|param|argument|arg|field|input)\b|\b(?:parameter|param|argument|field)\s+[`'"](?P<b>[A-Za-z_][A-Za-z0-9_]*)[`'"]|\b(?:pass|put|include|add|place|provide|insert|store|write|send|attach)\b[^.\n`'"]{0,60}?\b(?:in|into|as|via|using)\s+(?:the\s+)?[`'"](?P<c>[A-Za-z_][A-Za-z0-9_]*)[`'"]|\bthe\s+(?P<d>[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+)\s+(?:parameter|param|argument|field)\b"#,
    )
    .ok()
});

static CONVERSATION_ASK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:full|entire|whole|complete)\s+(?:conversation|chat|chat\s+history|message\s+history)|(?:all|every)\s+(?:previous|prior|earlier)\s+messages|conversation\s+(?:history|so\s+far|context)|chat\s+history|system\s+prompt|your\s+(?:instructions|system\s+(?:prompt|message)|context\s+window)|previous\s+messages)\b",
    )
    .ok()
});

static CREDENTIAL_ASK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\byour\s+(?:api[\s_-]?key|password|passphrase|private\s+key|ssh\s+key|access\s+token|auth(?:entication)?\s+token|credentials|secret\s+key)\b",
    )
    .ok()
});

/// Every property name anywhere in a schema (nested objects, items, combinations).
pub(super) fn declared(schema: &Value) -> HashSet<String> {
    let mut out = HashSet::new();
    collect(schema, &mut out, 0);
    out
}

fn collect(schema: &Value, out: &mut HashSet<String>, depth: usize) {
    if depth > 24 {
        return;
    }
    match schema {
        Value::Object(o) => {
            if let Some(Value::Object(props)) = o.get("properties") {
                out.extend(props.keys().cloned());
            }
            for v in o.values() {
                collect(v, out, depth + 1);
            }
        }
        Value::Array(items) => {
            for v in items {
                collect(v, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// S701 (and S702 when the sentence asks for the conversation): a description
/// that tells the model to fill a parameter.
pub(super) fn mentions(sink: &mut Sink<'_>, at: &At<'_>, declared: &HashSet<String>) {
    let Some(re) = MENTION.as_ref() else { return };
    for caps in re.captures_iter(at.text) {
        let Some(name) = ["a", "b", "c", "d"].iter().find_map(|g| caps.name(g)) else {
            continue;
        };
        let Some(whole) = caps.get(0) else { continue };
        let span = (whole.start(), whole.end());
        let asks = CONVERSATION_ASK
            .as_ref()
            .is_some_and(|r| r.is_match(sentence(at.text, whole.start(), whole.end())));
        if caps.name("c").is_some() && asks {
            sink.push(
                Rule::ConversationParameter,
                at,
                span,
                format!(
                    "tells the model to put the conversation or its instructions in `{}`",
                    escape(name.as_str(), 60)
                ),
            );
        }
        if !declared.contains(name.as_str()) {
            sink.push(
                Rule::UndeclaredParameter,
                at,
                span,
                format!(
                    "names a parameter `{}` the input schema does not declare",
                    escape(name.as_str(), 60)
                ),
            );
        }
    }
}

/// `conversationHistory` → `conversation_history`.
fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(if c == '-' {
            '_'
        } else {
            c.to_ascii_lowercase()
        });
    }
    out
}

const CONVERSATION_NAMES: &[&str] = &[
    "chat_history",
    "message_history",
    "messages_history",
    "system_prompt",
    "system_message",
    "context_dump",
    "full_context",
    "previous_messages",
    "prior_messages",
    "all_messages",
    "chat_log",
    "memory_dump",
];

const CREDENTIAL_NAMES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "api_key",
    "apikey",
    "secret_key",
    "client_secret",
    "access_token",
    "auth_token",
    "api_token",
    "bearer_token",
    "refresh_token",
    "session_token",
    "private_key",
    "ssh_key",
    "credentials",
    "aws_secret_access_key",
];

fn names_one_of(snake: &str, list: &[&'static str]) -> Option<&'static str> {
    list.iter()
        .find(|n| {
            snake == **n
                || snake.ends_with(&format!("_{n}"))
                || snake.starts_with(&format!("{n}_"))
                    && !["_id", "_ids", "_name", "_type", "_count", "_length"]
                        .iter()
                        .any(|s| snake.ends_with(s))
        })
        .copied()
}

fn conversation_name(snake: &str) -> bool {
    let benign_suffix = ["_id", "_ids", "_name", "_type", "_title", "_url", "_count"]
        .iter()
        .any(|s| snake.ends_with(s));
    !benign_suffix
        && (names_one_of(snake, CONVERSATION_NAMES).is_some()
            || snake
                .split('_')
                .any(|w| w == "conversation" || w == "conversations"))
}

/// Words in a parameter name that ask for a credential file's content.
const FILE_NAMES: &[&str] = &[
    "id_rsa",
    "id_ed25519",
    "ssh_key",
    "ssh_private",
    "aws_credentials",
    "mcp_json",
    "dotenv",
    "env_file",
    "etc_passwd",
    "git_credentials",
    "npmrc",
];

/// Whether a tool is about credentials (its name or description says so), where
/// credential parameters are expected.
pub(super) fn is_auth_tool(name: &str, description: &str) -> bool {
    let text = format!("{} {}", name, description).to_ascii_lowercase();
    [
        "auth",
        "login",
        "log_in",
        "log in",
        "sign_in",
        "sign in",
        "signin",
        "token",
        "credential",
        "password",
        "secret",
        "api key",
        "api_key",
        "oauth",
        "connect",
        "configure",
        "config",
        "setup",
        "session",
        "vault",
        "register",
        "account",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// S702 and S703 for one parameter: its name (`field` is the property) and its
/// description (`description_at`).
pub(super) fn parameter(
    sink: &mut Sink<'_>,
    field: &str,
    name: &str,
    description: Option<&At<'_>>,
    auth_tool: bool,
) {
    let s = snake(name);
    if conversation_name(&s) {
        sink.push_with(
            Rule::ConversationParameter,
            field,
            Some((0, name.len())),
            escape(name, 120),
            format!(
                "parameter `{}` asks for the conversation or the model's instructions",
                escape(name, 60)
            ),
        );
    }
    if let Some(at) = description
        && let Some(m) = CONVERSATION_ASK.as_ref().and_then(|r| r.find(at.text))
    {
        sink.push(
            Rule::ConversationParameter,
            at,
            (m.start(), m.end()),
            format!(
                "parameter `{}` asks for the conversation or the model's instructions",
                escape(name, 60)
            ),
        );
    }
    if let Some(file) = FILE_NAMES.iter().find(|f| s.contains(*f)) {
        sink.push_with(
            Rule::ReadSensitivePath,
            field,
            Some((0, name.len())),
            escape(name, 120),
            format!(
                "parameter `{}` asks for the content of a credential file ({file})",
                escape(name, 60)
            ),
        );
    }
    if auth_tool {
        return;
    }
    if let Some(kind) = names_one_of(&s, CREDENTIAL_NAMES) {
        sink.push_with(
            Rule::CredentialParameter,
            field,
            Some((0, name.len())),
            escape(name, 120),
            format!(
                "a tool that is not about authentication asks for a {}",
                kind.replace('_', " ")
            ),
        );
    }
    if let Some(at) = description
        && let Some(m) = CREDENTIAL_ASK.as_ref().and_then(|r| r.find(at.text))
    {
        sink.push(
            Rule::CredentialParameter,
            at,
            (m.start(), m.end()),
            format!(
                "parameter `{}` of a tool that is not about authentication asks for a credential",
                escape(name, 60)
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(snake("conversationHistory"), "conversation_history");
        assert!(conversation_name("conversation_history"));
        assert!(conversation_name("system_prompt"));
        assert!(!conversation_name("conversation_id"));
        assert!(!conversation_name("transcript"));
        assert_eq!(
            names_one_of("github_api_key", CREDENTIAL_NAMES),
            Some("api_key")
        );
        assert_eq!(names_one_of("page_token", CREDENTIAL_NAMES), None);
        assert_eq!(names_one_of("max_tokens", CREDENTIAL_NAMES), None);
        assert!(MENTION.is_some() && CONVERSATION_ASK.is_some() && CREDENTIAL_ASK.is_some());
    }
}
