//! Prompts, resources and argument completion: fixed data and pure functions
//! over it, so every listing and every read is the same on every run. The
//! one resource that changes, `mcpcheck://calls`, takes its value from the
//! session as an argument. The official conformance suite's fixtures
//! (`fixtures.rs`) are listed, read and completed after the server's own.

use super::fixtures;
use base64::Engine as _;
use rmcp::model::{
    ContentBlock, Prompt, PromptArgument, PromptMessage, Resource, ResourceContents,
    ResourceTemplate, Role,
};

pub const STATIC_TEXT_URI: &str = "mcpcheck://static/text";
pub const STATIC_BLOB_URI: &str = "mcpcheck://static/blob";
pub const CALLS_URI: &str = "mcpcheck://calls";
pub const ECHO_TEMPLATE: &str = "mcpcheck://echo/{text}";
const ECHO_PREFIX: &str = "mcpcheck://echo/";

pub const STATIC_TEXT: &str = "This is the static text resource of mcpcheck serve.\n\
                               It never changes.\n";

/// The bytes of the blob resource: 0, 1, …, 255.
pub fn static_blob() -> Vec<u8> {
    (0..=255).collect()
}

pub fn resources() -> Vec<Resource> {
    let mut resources = vec![
        Resource::new(STATIC_TEXT_URI, "static-text")
            .with_description("A fixed text document.")
            .with_mime_type("text/plain")
            .with_size(STATIC_TEXT.len() as u64),
        Resource::new(STATIC_BLOB_URI, "static-blob")
            .with_description("256 fixed bytes, 0 to 255, read as a base64 blob.")
            .with_mime_type("application/octet-stream")
            .with_size(256),
        Resource::new(CALLS_URI, "calls")
            .with_description(
                "The number of tools/call requests this session has received, as decimal text. \
                 Subscribers get notifications/resources/updated on every tools/call.",
            )
            .with_mime_type("text/plain"),
    ];
    resources.extend(fixtures::resources());
    resources
}

pub fn resource_templates() -> Vec<ResourceTemplate> {
    let mut templates = vec![
        ResourceTemplate::new(ECHO_TEMPLATE, "echo")
            .with_description("Reads back the `text` part of the URI as a text document.")
            .with_mime_type("text/plain"),
    ];
    templates.extend(fixtures::resource_templates());
    templates
}

/// Whether `uri` names a resource of this server (listed or templated).
pub fn resource_exists(uri: &str) -> bool {
    matches!(uri, STATIC_TEXT_URI | STATIC_BLOB_URI | CALLS_URI)
        || uri.starts_with(ECHO_PREFIX)
        || fixtures::resource_exists(uri)
}

/// The contents of `uri`, or `None` when the server has no such resource.
/// `calls` is the session's current `tools/call` count.
pub fn read(uri: &str, calls: u64) -> Option<ResourceContents> {
    if let Some(contents) = fixtures::read(uri) {
        return Some(contents);
    }
    let contents = match uri {
        STATIC_TEXT_URI => ResourceContents::text(STATIC_TEXT, uri),
        STATIC_BLOB_URI => ResourceContents::blob(
            base64::engine::general_purpose::STANDARD.encode(static_blob()),
            uri,
        )
        .with_mime_type("application/octet-stream"),
        CALLS_URI => ResourceContents::text(calls.to_string(), uri),
        _ => ResourceContents::text(uri.strip_prefix(ECHO_PREFIX)?, uri),
    };
    Some(contents)
}

const GREETING_STYLES: [&str; 3] = ["casual", "formal", "pirate"];
const GREETING_NAMES: [&str; 5] = ["Ada", "Alan", "Grace", "Linus", "Margaret"];
const ECHO_SUGGESTIONS: [&str; 3] = ["hello", "hello-world", "world"];

pub fn prompts() -> Vec<Prompt> {
    let mut prompts = vec![
        Prompt::new(
            "simple",
            Some("A prompt without arguments: one user message."),
            None,
        ),
        Prompt::new(
            "greeting",
            Some("Asks for a greeting for `name` in `style`. Both arguments complete."),
            Some(vec![
                PromptArgument::new("name")
                    .with_description("who to greet")
                    .with_required(true),
                PromptArgument::new("style")
                    .with_description("casual, formal or pirate; defaults to casual")
                    .with_required(false),
            ]),
        ),
        Prompt::new(
            "with_resource",
            Some("A user message followed by the static text resource, embedded."),
            None,
        ),
    ];
    prompts.extend(fixtures::prompts());
    prompts
}

/// Why `prompts/get` failed; both become JSON-RPC invalid-params errors.
#[derive(Debug, PartialEq, Eq)]
pub enum PromptError {
    UnknownPrompt(String),
    BadArgument(String),
}

/// The messages of prompt `name` given its arguments (string values only,
/// as the spec defines them), plus the description to return with them.
pub fn get_prompt(
    name: &str,
    arguments: &serde_json::Map<String, serde_json::Value>,
) -> Result<(String, Vec<PromptMessage>), PromptError> {
    let known: &[&str] = match name {
        "simple" | "with_resource" => &[],
        "greeting" => &["name", "style"],
        other => match fixtures::prompt_arguments(other) {
            Some(known) => known,
            None => return Err(PromptError::UnknownPrompt(other.to_owned())),
        },
    };
    if let Some(unknown) = arguments.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(PromptError::BadArgument(format!(
            "prompt `{name}` has no argument `{unknown}`"
        )));
    }
    let string_arg = |key: &str| -> Result<Option<&str>, PromptError> {
        match arguments.get(key) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(PromptError::BadArgument(format!(
                "prompt argument `{key}` must be a string"
            ))),
        }
    };
    if fixtures::prompt_arguments(name).is_some() {
        return fixtures::get_prompt(name, &|key| Ok(string_arg(key)?.map(str::to_owned)));
    }
    match name {
        "simple" => Ok((
            "A prompt without arguments.".to_owned(),
            vec![PromptMessage::new_text(
                Role::User,
                "Say hello to the mcpcheck reference server.",
            )],
        )),
        "greeting" => {
            let who = string_arg("name")?.ok_or_else(|| {
                PromptError::BadArgument("missing required argument `name`".to_owned())
            })?;
            let style = string_arg("style")?.unwrap_or("casual");
            if !GREETING_STYLES.contains(&style) {
                return Err(PromptError::BadArgument(format!(
                    "style must be one of {}",
                    GREETING_STYLES.join(", ")
                )));
            }
            Ok((
                format!("A {style} greeting for {who}."),
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Write a {style} greeting for {who}."),
                )],
            ))
        }
        _ => Ok((
            "A message with an embedded resource.".to_owned(),
            vec![
                PromptMessage::new_text(Role::User, "Summarize this document."),
                PromptMessage::new(
                    Role::User,
                    ContentBlock::resource(ResourceContents::text(STATIC_TEXT, STATIC_TEXT_URI)),
                ),
            ],
        )),
    }
}

/// What a completion reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionRef<'a> {
    Prompt(&'a str),
    Resource(&'a str),
}

/// Completion candidates for `argument` starting with `prefix`
/// (case-insensitive), sorted; `None` when the reference itself is unknown.
/// An argument without candidates completes to nothing.
pub fn complete(reference: CompletionRef<'_>, argument: &str, prefix: &str) -> Option<Vec<String>> {
    let candidates: &[&str] = match reference {
        CompletionRef::Prompt("greeting") => match argument {
            "name" => &GREETING_NAMES,
            "style" => &GREETING_STYLES,
            _ => &[],
        },
        CompletionRef::Prompt("simple" | "with_resource") => &[],
        CompletionRef::Resource(ECHO_TEMPLATE) => match argument {
            "text" => &ECHO_SUGGESTIONS,
            _ => &[],
        },
        CompletionRef::Prompt(name) => fixtures::completion_candidates(name, false, argument)?,
        CompletionRef::Resource(uri) => fixtures::completion_candidates(uri, true, argument)?,
    };
    let prefix = prefix.to_lowercase();
    Some(
        candidates
            .iter()
            .filter(|c| c.to_lowercase().starts_with(&prefix))
            .map(|c| (*c).to_owned())
            .collect(),
    )
}

/// A list request's cursor that names no page (not an index, past the end,
/// or given when the lists are not paged); answered as invalid params.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid cursor `{0}`")]
pub struct InvalidCursor(pub String);

/// One page of `items` for a list request. Cursors are the decimal index of
/// the first item of the page; `page_size` `None` means one page with all.
pub fn paginate<T>(
    items: Vec<T>,
    cursor: Option<&str>,
    page_size: Option<usize>,
) -> Result<(Vec<T>, Option<String>), InvalidCursor> {
    let start = match cursor {
        None => 0,
        Some(cursor) => match cursor.parse::<usize>() {
            Ok(start) if start <= items.len() && page_size.is_some() => start,
            _ => return Err(InvalidCursor(cursor.to_string())),
        },
    };
    let Some(size) = page_size else {
        return Ok((items, None));
    };
    let end = start.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((
        items.into_iter().skip(start).take(end - start).collect(),
        next,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_listed_resource_reads() {
        for resource in resources() {
            assert!(resource_exists(&resource.uri));
            assert!(read(&resource.uri, 0).is_some(), "{}", resource.uri);
        }
        assert!(read("mcpcheck://nope", 0).is_none());
        assert!(!resource_exists("mcpcheck://nope"));
    }

    #[test]
    fn template_reads_back_its_text() {
        let Some(ResourceContents::TextResourceContents { text, .. }) =
            read("mcpcheck://echo/hi there", 0)
        else {
            panic!("expected a text resource");
        };
        assert_eq!(text, "hi there");
    }

    #[test]
    fn greeting_needs_a_name_and_a_known_style() {
        let args = json!({"name": "Ada", "style": "pirate"});
        let (_, messages) = get_prompt("greeting", args.as_object().expect("object")).expect("ok");
        assert_eq!(messages.len(), 1);
        let missing = get_prompt("greeting", &serde_json::Map::new());
        assert!(matches!(missing, Err(PromptError::BadArgument(_))));
        let bad = json!({"name": "Ada", "style": "loud"});
        assert!(get_prompt("greeting", bad.as_object().expect("object")).is_err());
        assert_eq!(
            get_prompt("nope", &serde_json::Map::new()),
            Err(PromptError::UnknownPrompt("nope".to_owned()))
        );
    }

    #[test]
    fn completion_filters_by_prefix() {
        assert_eq!(
            complete(CompletionRef::Prompt("greeting"), "style", ""),
            Some(vec!["casual".into(), "formal".into(), "pirate".into()])
        );
        assert_eq!(
            complete(CompletionRef::Prompt("greeting"), "name", "a"),
            Some(vec!["Ada".into(), "Alan".into()])
        );
        assert_eq!(
            complete(CompletionRef::Resource(ECHO_TEMPLATE), "text", "hello"),
            Some(vec!["hello".into(), "hello-world".into()])
        );
        assert_eq!(complete(CompletionRef::Prompt("nope"), "x", ""), None);
    }

    #[test]
    fn pagination_walks_every_item_once() {
        let items: Vec<u32> = (0..5).collect();
        assert_eq!(
            paginate(items.clone(), None, None),
            Ok((items.clone(), None))
        );
        let (page, next) = paginate(items.clone(), None, Some(2)).expect("first page");
        assert_eq!((page, next.as_deref()), (vec![0, 1], Some("2")));
        let (page, next) = paginate(items.clone(), Some("4"), Some(2)).expect("last page");
        assert_eq!((page, next), (vec![4], None));
        assert_eq!(
            paginate(items.clone(), Some("9"), Some(2)).map_err(|e| e.to_string()),
            Err("invalid cursor `9`".to_string())
        );
        assert!(paginate(items, Some("x"), Some(2)).is_err());
    }
}
