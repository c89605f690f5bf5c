//! The fixture surface of the MCP project's official conformance suite
//! (npm `@modelcontextprotocol/conformance`): tools, prompts and resources
//! under the fixed names its server scenarios call (`test_simple_text`,
//! `test://static-text`, `test_simple_prompt`, …), served beside the
//! server's own catalogue so that the suite can be run against
//! `mcpcheck serve` as it is.
//!
//! Like `tools` and `catalog`, this module is fixed data and pure functions:
//! the tiny PNG and WAV are built here byte by byte (no files, no
//! randomness), and the tools that talk to the client are driven from
//! `fixtures_calls.rs`.

use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, Prompt, PromptArgument, PromptMessage, Resource,
    ResourceContents, ResourceTemplate, Role, Tool,
};
use serde_json::{Value, json};

use super::catalog::PromptError;
use super::tools::{self, ToolError};

pub const SIMPLE_TEXT: &str = "This is a simple text response for testing.";
pub const EMBEDDED_URI: &str = "test://embedded-resource";
pub const EMBEDDED_TEXT: &str = "This is an embedded resource content.";
pub const MIXED_URI: &str = "test://mixed-content-resource";
pub const ERROR_TEXT: &str = "This tool intentionally returns an error for testing";
pub const STATIC_TEXT_URI: &str = "test://static-text";
pub const STATIC_TEXT: &str = "This is the content of the static text resource.";
pub const STATIC_BINARY_URI: &str = "test://static-binary";
pub const WATCHED_URI: &str = "test://watched-resource";
pub const WATCHED_TEXT: &str = "Watched resource content";
pub const TEMPLATE: &str = "test://template/{id}/data";
const TEMPLATE_PREFIX: &str = "test://template/";
const TEMPLATE_SUFFIX: &str = "/data";
/// The name of the tool whose input schema uses JSON Schema 2020-12.
pub const JSON_SCHEMA_TOOL: &str = "json_schema_2020_12_tool";
/// `maxTokens` of the sampling request `test_sampling` sends.
pub const SAMPLING_MAX_TOKENS: u32 = 100;
/// The pause between the messages of `test_tool_with_logging` and the
/// notifications of `test_tool_with_progress`.
pub const STEP_DELAY_MS: u64 = 50;
/// The `progress` values `test_tool_with_progress` reports, out of 100.
pub const PROGRESS_STEPS: [u32; 3] = [0, 50, 100];
/// The messages `test_tool_with_logging` sends, at level `info`.
pub const LOG_MESSAGES: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

/// The tools of the fixture surface, in `tools/list` order, after the
/// server's own.
pub fn tools() -> Vec<Tool> {
    let none = || json!({});
    let mut listed = vec![
        tools::tool(
            "test_simple_text",
            "Returns one text block: `This is a simple text response for testing.`",
            none(),
            &[],
        ),
        tools::tool(
            "test_image_content",
            "Returns one image block: a 1x1 red PNG.",
            none(),
            &[],
        ),
        tools::tool(
            "test_audio_content",
            "Returns one audio block: 10 ms of a 400 Hz square wave, 8 kHz 16-bit mono WAV.",
            none(),
            &[],
        ),
        tools::tool(
            "test_embedded_resource",
            "Returns one embedded text resource, test://embedded-resource.",
            none(),
            &[],
        ),
        tools::tool(
            "test_multiple_content_types",
            "Returns a text block, an image block and an embedded JSON resource.",
            none(),
            &[],
        ),
        tools::tool(
            "test_tool_with_logging",
            "Sends three notifications/message at level info, 50 ms apart, then returns.",
            none(),
            &[],
        ),
        tools::tool(
            "test_tool_with_progress",
            "With a progressToken, reports progress 0, 50 and 100 of 100, 50 ms apart.",
            none(),
            &[],
        ),
        tools::tool(
            "test_error_handling",
            "Always returns a tool error (isError: true).",
            none(),
            &[],
        ),
        tools::tool(
            "test_reconnection",
            "Waits 100 ms, then returns a text block; for the SSE polling scenario.",
            none(),
            &[],
        ),
        tools::tool(
            "test_sampling",
            "Asks the client for an LLM completion of `prompt` (sampling/createMessage) and \
             returns `LLM response: <text>`.",
            json!({"prompt": {"type": "string", "description": "the prompt to send"}}),
            &["prompt"],
        ),
        tools::tool(
            "test_elicitation",
            "Asks the user, through the client, for a username and an email \
             (elicitation/create) and returns the answer.",
            json!({"message": {"type": "string", "description": "the message shown to the user"}}),
            &["message"],
        ),
        tools::tool(
            "test_elicitation_sep1034_defaults",
            "Elicits a form whose string, integer, number, enum and boolean fields all have \
             default values (SEP-1034) and returns the answer.",
            none(),
            &[],
        ),
        tools::tool(
            "test_elicitation_sep1330_enums",
            "Elicits a form with the five kinds of enum field of SEP-1330 and returns the answer.",
            none(),
            &[],
        ),
    ];
    listed.push(Tool::new(
        JSON_SCHEMA_TOOL,
        "Takes a contact whose input schema uses JSON Schema 2020-12 ($schema, $defs, $ref, \
         $anchor, allOf/anyOf, if/then/else) and returns it as JSON.",
        Arc::new(json_schema_2020_12()),
    ));
    listed
}

/// Whether `name` is one of the fixture tools.
pub fn is_tool(name: &str) -> bool {
    tools().iter().any(|t| t.name == name)
}

/// The input schema of [`JSON_SCHEMA_TOOL`]: a contact with a name, an
/// address defined under `$defs`, and a phone or an email as
/// `contactMethod` says.
pub fn json_schema_2020_12() -> JsonObject {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string", "description": "the contact's name"},
            "address": {"$ref": "#/$defs/address", "description": "a postal address"},
            "contactMethod": {
                "type": "string",
                "enum": ["phone", "email"],
                "description": "how to reach the contact; without it, by email"
            },
            "phone": {"type": "string", "description": "required when contactMethod is phone"},
            "email": {"type": "string", "description": "required unless contactMethod is phone"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {
            "properties": {"contactMethod": {"const": "phone"}},
            "required": ["contactMethod"]
        },
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    match schema {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

/// Checks the arguments of [`JSON_SCHEMA_TOOL`] against its schema and
/// returns them as JSON text.
pub fn contact(args: Option<&JsonObject>) -> Result<String, ToolError> {
    let a = tools::Args::new(
        args,
        &["name", "address", "contactMethod", "phone", "email"],
    )?;
    let optional = |key: &str| -> Result<Option<String>, ToolError> {
        match args.and_then(|o| o.get(key)) {
            None => Ok(None),
            Some(_) => a.string(key, None).map(Some),
        }
    };
    let method = optional("contactMethod")?;
    let phone = optional("phone")?;
    let email = optional("email")?;
    optional("name")?;
    if let Some(method) = &method
        && method != "phone"
        && method != "email"
    {
        return Err(ToolError::invalid("contactMethod", "`phone` or `email`"));
    }
    if let Some(address) = args.and_then(|o| o.get("address")) {
        let Value::Object(address) = address else {
            return Err(ToolError::invalid("address", "an object"));
        };
        for (key, value) in address {
            if matches!(key.as_str(), "street" | "city") && !value.is_string() {
                return Err(ToolError::Member {
                    path: format!("address.{key}"),
                    expected: "a string",
                });
            }
        }
    }
    if method.as_deref() == Some("phone") && phone.is_none() {
        return Err(ToolError::PhoneRequired);
    }
    if method.as_deref() != Some("phone") && email.is_none() {
        return Err(ToolError::EmailRequired);
    }
    let given = args.cloned().unwrap_or_default();
    Ok(serde_json::to_string(&given)?)
}

/// The result of a fixture tool that needs nothing but its (empty)
/// arguments; `None` for the tools that talk to the client.
pub fn fixed_result(name: &str) -> Option<CallToolResult> {
    let result = match name {
        "test_simple_text" => CallToolResult::success(vec![ContentBlock::text(SIMPLE_TEXT)]),
        "test_image_content" => CallToolResult::success(vec![image()]),
        "test_audio_content" => {
            CallToolResult::success(vec![ContentBlock::audio(base64_of(&wav()), "audio/wav")])
        }
        "test_embedded_resource" => CallToolResult::success(vec![ContentBlock::resource(
            ResourceContents::text(EMBEDDED_TEXT, EMBEDDED_URI).with_mime_type("text/plain"),
        )]),
        "test_multiple_content_types" => CallToolResult::success(vec![
            ContentBlock::text("Multiple content types test:"),
            image(),
            ContentBlock::resource(
                ResourceContents::text(
                    json!({"test": "data", "value": 123}).to_string(),
                    MIXED_URI,
                )
                .with_mime_type("application/json"),
            ),
        ]),
        "test_error_handling" => CallToolResult::error(vec![ContentBlock::text(ERROR_TEXT)]),
        _ => return None,
    };
    Some(result)
}

fn image() -> ContentBlock {
    ContentBlock::image(base64_of(&png()), "image/png")
}

fn base64_of(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A valid 1x1 PNG of one opaque red pixel (8-bit RGB), its pixel data
/// deflated as one stored block.
pub fn png() -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    // Width 1, height 1, bit depth 8, colour type 2 (RGB), default
    // compression, filter and interlace.
    let header = [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0];
    png_chunk(&mut out, b"IHDR", &header);
    // One scanline: filter byte 0, then red.
    let raw = [0, 0xff, 0, 0];
    png_chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    png_chunk(&mut out, b"IEND", &[]);
    out
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream holding `data` (at most 65535 bytes) in one stored block.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let len = u16::try_from(data.len()).unwrap_or(u16::MAX);
    let mut out = vec![0x78, 0x01, 0x01];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(&data[..usize::from(len)]);
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

/// CRC-32 (ISO 3309, reflected polynomial 0xEDB88320), as PNG uses it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffff_u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// Samples per second of [`wav`].
const WAV_RATE: u32 = 8_000;
/// Samples of [`wav`]: 10 ms.
const WAV_SAMPLES: u32 = 80;

/// A valid WAV file: 10 ms of a 400 Hz square wave at a quarter of full
/// scale, 8 kHz, 16-bit PCM, mono.
pub fn wav() -> Vec<u8> {
    let data_len = WAV_SAMPLES * 2;
    let mut out = Vec::with_capacity(44 + data_len as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&WAV_RATE.to_le_bytes());
    out.extend_from_slice(&(WAV_RATE * 2).to_le_bytes()); // bytes per second
    out.extend_from_slice(&2u16.to_le_bytes()); // bytes per frame
    out.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    // 400 Hz at 8 kHz: 20 samples a period, 10 high then 10 low.
    for i in 0..WAV_SAMPLES {
        let sample: i16 = if (i / 10) % 2 == 0 { 8_192 } else { -8_192 };
        out.extend_from_slice(&sample.to_le_bytes());
    }
    out
}

pub fn resources() -> Vec<Resource> {
    vec![
        Resource::new(STATIC_TEXT_URI, "static-text-fixture")
            .with_description("Conformance fixture: a fixed text document.")
            .with_mime_type("text/plain")
            .with_size(STATIC_TEXT.len() as u64),
        Resource::new(STATIC_BINARY_URI, "static-binary-fixture")
            .with_description("Conformance fixture: a 1x1 red PNG, read as a base64 blob.")
            .with_mime_type("image/png")
            .with_size(png().len() as u64),
        Resource::new(WATCHED_URI, "watched-resource-fixture")
            .with_description(
                "Conformance fixture: a text document to subscribe to; it never changes.",
            )
            .with_mime_type("text/plain"),
    ]
}

pub fn resource_templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(TEMPLATE, "template-fixture")
            .with_description("Conformance fixture: a text document naming the `id` of its URI.")
            .with_mime_type("text/plain"),
    ]
}

/// The `{id}` of a URI of [`TEMPLATE`]: one non-empty path segment.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix(TEMPLATE_PREFIX)?
        .strip_suffix(TEMPLATE_SUFFIX)?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

pub fn resource_exists(uri: &str) -> bool {
    matches!(uri, STATIC_TEXT_URI | STATIC_BINARY_URI | WATCHED_URI) || template_id(uri).is_some()
}

/// The contents of fixture resource `uri`, `None` when it is not one.
pub fn read(uri: &str) -> Option<ResourceContents> {
    let contents = match uri {
        STATIC_TEXT_URI => ResourceContents::text(STATIC_TEXT, uri).with_mime_type("text/plain"),
        STATIC_BINARY_URI => {
            ResourceContents::blob(base64_of(&png()), uri).with_mime_type("image/png")
        }
        WATCHED_URI => ResourceContents::text(WATCHED_TEXT, uri).with_mime_type("text/plain"),
        _ => ResourceContents::text(
            format!("Data of template resource {}.", template_id(uri)?),
            uri,
        )
        .with_mime_type("text/plain"),
    };
    Some(contents)
}

pub fn prompts() -> Vec<Prompt> {
    vec![
        Prompt::new(
            "test_simple_prompt",
            Some("Conformance fixture: one user message, no arguments."),
            None,
        ),
        Prompt::new(
            "test_prompt_with_arguments",
            Some("Conformance fixture: one user message naming `arg1` and `arg2`."),
            Some(vec![
                PromptArgument::new("arg1")
                    .with_description("First test argument")
                    .with_required(true),
                PromptArgument::new("arg2")
                    .with_description("Second test argument")
                    .with_required(true),
            ]),
        ),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("Conformance fixture: a resource embedded under `resourceUri`, then a request."),
            Some(vec![
                PromptArgument::new("resourceUri")
                    .with_description("URI of the resource to embed")
                    .with_required(true),
            ]),
        ),
        Prompt::new(
            "test_prompt_with_image",
            Some("Conformance fixture: a 1x1 red PNG, then a request."),
            None,
        ),
    ]
}

/// The argument names of fixture prompt `name`, `None` when it is not one.
pub fn prompt_arguments(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "test_simple_prompt" | "test_prompt_with_image" => Some(&[]),
        "test_prompt_with_arguments" => Some(&["arg1", "arg2"]),
        "test_prompt_with_embedded_resource" => Some(&["resourceUri"]),
        _ => None,
    }
}

/// The description and messages of fixture prompt `name`; `arg` reads a
/// string argument (`None` when absent). Its arguments are known to be
/// among [`prompt_arguments`].
pub fn get_prompt(
    name: &str,
    arg: &dyn Fn(&str) -> Result<Option<String>, PromptError>,
) -> Result<(String, Vec<PromptMessage>), PromptError> {
    let required = |key: &str| {
        arg(key)?
            .ok_or_else(|| PromptError::BadArgument(format!("missing required argument `{key}`")))
    };
    match name {
        "test_simple_prompt" => Ok((
            "A simple prompt without arguments.".to_owned(),
            vec![PromptMessage::new_text(
                Role::User,
                "This is a simple prompt for testing.",
            )],
        )),
        "test_prompt_with_arguments" => {
            let (arg1, arg2) = (required("arg1")?, required("arg2")?);
            Ok((
                "A prompt with two arguments.".to_owned(),
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
                )],
            ))
        }
        "test_prompt_with_embedded_resource" => {
            let uri = required("resourceUri")?;
            Ok((
                "A prompt with an embedded resource.".to_owned(),
                vec![
                    PromptMessage::new(
                        Role::User,
                        ContentBlock::resource(
                            ResourceContents::text("Embedded resource content for testing.", uri)
                                .with_mime_type("text/plain"),
                        ),
                    ),
                    PromptMessage::new_text(
                        Role::User,
                        "Please process the embedded resource above.",
                    ),
                ],
            ))
        }
        "test_prompt_with_image" => Ok((
            "A prompt with an image.".to_owned(),
            vec![
                PromptMessage::new(Role::User, image()),
                PromptMessage::new_text(Role::User, "Please analyze the image above."),
            ],
        )),
        other => Err(PromptError::UnknownPrompt(other.to_owned())),
    }
}

/// Completion candidates of the fixtures: `None` when `prompt` (a prompt
/// name, or a template URI when `is_template`) is not a fixture.
pub fn completion_candidates(
    name: &str,
    is_template: bool,
    argument: &str,
) -> Option<&'static [&'static str]> {
    const ARG1: [&str; 3] = ["test", "test-value", "text"];
    const ARG2: [&str; 3] = ["hello", "help", "world"];
    const URIS: [&str; 3] = [STATIC_BINARY_URI, STATIC_TEXT_URI, WATCHED_URI];
    const IDS: [&str; 3] = ["1", "123", "42"];
    if is_template {
        return (name == TEMPLATE).then_some(if argument == "id" { &IDS } else { &[] });
    }
    prompt_arguments(name)?;
    Some(match (name, argument) {
        ("test_prompt_with_arguments", "arg1") => &ARG1,
        ("test_prompt_with_arguments", "arg2") => &ARG2,
        ("test_prompt_with_embedded_resource", "resourceUri") => &URIS,
        _ => &[],
    })
}

/// The `requestedSchema` of the elicitation a fixture tool sends.
pub fn elicitation_schema(tool: &str) -> Option<Value> {
    let schema = match tool {
        "test_elicitation" => json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "Your username"},
                "email": {"type": "string", "format": "email", "description": "Your email address"}
            },
            "required": ["username", "email"]
        }),
        "test_elicitation_sep1034_defaults" => json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active"
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            }
        }),
        "test_elicitation_sep1330_enums" => json!({
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Pick one (untitled single-select)",
                    "enum": ["option1", "option2", "option3"]
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Pick one (titled single-select)",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Pick one (legacy titled enum)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Pick any (untitled multi-select)",
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Pick any (titled multi-select)",
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]
                    }
                }
            }
        }),
        _ => return None,
    };
    Some(schema)
}

/// The message of the elicitations that take none as an argument.
pub fn elicitation_message(tool: &str) -> &'static str {
    match tool {
        "test_elicitation_sep1034_defaults" => "Please review the prefilled values.",
        _ => "Please make your choices.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_is_well_formed() {
        let png = png();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IEND's CRC is the same in every PNG.
        assert_eq!(&png[png.len() - 4..], &[0xae, 0x42, 0x60, 0x82]);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
        // 8 signature + 25 IHDR + 12 + 15 IDAT + 12 IEND.
        assert_eq!(png.len(), 72);
    }

    #[test]
    fn wav_header_matches_its_data() {
        let wav = wav();
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        let riff_len = u32::from_le_bytes([wav[4], wav[5], wav[6], wav[7]]);
        assert_eq!(riff_len as usize, wav.len() - 8);
        assert_eq!(&wav[36..40], b"data");
        assert_eq!(wav.len(), 44 + 160);
    }

    #[test]
    fn every_fixture_tool_is_known_and_fixed_results_are_complete() {
        for tool in tools() {
            assert!(is_tool(&tool.name), "{}", tool.name);
        }
        assert!(!is_tool("echo"));
        assert!(!is_tool("test_nothing"));
        let error = fixed_result("test_error_handling").expect("fixed");
        assert_eq!(error.is_error, Some(true));
        let mixed = fixed_result("test_multiple_content_types").expect("fixed");
        assert_eq!(mixed.content.len(), 3);
        assert!(fixed_result("test_sampling").is_none());
    }

    #[test]
    fn resources_and_template_read() {
        for resource in resources() {
            assert!(resource_exists(&resource.uri));
            assert!(read(&resource.uri).is_some(), "{}", resource.uri);
        }
        let Some(ResourceContents::TextResourceContents { text, .. }) =
            read("test://template/123/data")
        else {
            panic!("expected a text resource");
        };
        assert!(text.contains("123"));
        assert!(read("test://template//data").is_none());
        assert!(read("test://template/a/b/data").is_none());
        assert!(!resource_exists("test://nothing"));
    }

    #[test]
    fn contact_follows_its_schema() {
        let ok = json!({"name": "Ada", "contactMethod": "phone", "phone": "1"});
        assert!(contact(ok.as_object()).is_ok());
        let no_phone = json!({"contactMethod": "phone", "email": "a@b.c"});
        assert!(contact(no_phone.as_object()).is_err());
        assert!(contact(None).is_err());
        let extra = json!({"email": "a@b.c", "age": 3});
        assert!(contact(extra.as_object()).is_err());
        let bad_address = json!({"email": "a@b.c", "address": {"city": 3}});
        assert!(contact(bad_address.as_object()).is_err());
    }

    #[test]
    fn elicitation_schemas_are_valid_rmcp_schemas() {
        for tool in [
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
        ] {
            let schema = elicitation_schema(tool).expect("a fixture");
            let parsed: rmcp::model::ElicitationSchema =
                serde_json::from_value(schema.clone()).expect(tool);
            // Nothing is lost on the way through rmcp's types.
            assert_eq!(
                serde_json::to_value(&parsed).expect("serializes"),
                schema,
                "{tool}"
            );
        }
    }
}
