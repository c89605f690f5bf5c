//! The official conformance suite's fixtures in `mcpcheck serve` (see
//! docs/serve.md, "Conformance fixtures"), checked through `mcpcheck run`
//! itself: suites of YAML tests against the real server, read back from the
//! JSON report.

mod cli_support;

use std::path::Path;

use cli_support::{BIN, run_mcpcheck, scratch, write};
use serde_json::Value;

/// `server:` for a plain `mcpcheck serve`, with `extra` lines under it.
fn server(extra: &str) -> String {
    format!("server:\n  command: \"{BIN}\"\n  args: [serve]\n{extra}")
}

/// Runs the suite in `dir` and returns its JSON report, after checking that
/// every test of it has `status` "pass" and that there are `count` of them.
fn run_all_passing(dir: &Path, count: usize) -> Value {
    let (code, out, err) = run_mcpcheck(&["run", "--suite", dir.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let not_passing: Vec<&Value> = report["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["status"] != "pass")
        .collect();
    assert!(not_passing.is_empty(), "{not_passing:#?}\n{err}");
    assert_eq!(report["summary"]["passed"], count, "{out}");
    assert_eq!(code, Some(0), "{out}\n{err}");
    report
}

#[test]
fn the_fixture_tools_return_their_content_blocks() {
    let d = scratch("fixtures-content");
    let s = server("");
    write(
        &d,
        "simple.yaml",
        &format!(
            "name: simple text\n{s}assert:\n  tool: test_simple_text\n  expect:\n    \
             equals: \"This is a simple text response for testing.\"\n"
        ),
    );
    // A PNG's base64 starts with its signature, iVBORw0KGgo; a WAV's with RIFF.
    write(
        &d,
        "image.yaml",
        &format!(
            "name: image\n{s}assert:\n  tool: test_image_content\n  expect:\n\
             \x20   - target: result.content[0].type\n      matcher: {{exact: image}}\n\
             \x20   - target: result.content[0].mimeType\n      matcher: {{exact: image/png}}\n\
             \x20   - target: result.content[0].data\n      matcher: {{regex: \"^iVBORw0KGgo\"}}\n"
        ),
    );
    write(
        &d,
        "audio.yaml",
        &format!(
            "name: audio\n{s}assert:\n  tool: test_audio_content\n  expect:\n\
             \x20   - target: result.content[0].type\n      matcher: {{exact: audio}}\n\
             \x20   - target: result.content[0].mimeType\n      matcher: {{exact: audio/wav}}\n\
             \x20   - target: result.content[0].data\n      matcher: {{regex: \"^UklGR\"}}\n"
        ),
    );
    write(
        &d,
        "embedded.yaml",
        &format!(
            "name: embedded resource\n{s}assert:\n  tool: test_embedded_resource\n  expect:\n\
             \x20   - target: result.content[0].type\n      matcher: {{exact: resource}}\n\
             \x20   - target: result.content[0].resource.uri\n      \
             matcher: {{exact: \"test://embedded-resource\"}}\n\
             \x20   - target: result.content[0].resource.text\n      \
             matcher: {{equals: \"This is an embedded resource content.\"}}\n"
        ),
    );
    write(
        &d,
        "mixed.yaml",
        &format!(
            "name: mixed content\n{s}assert:\n  tool: test_multiple_content_types\n  expect:\n\
             \x20   - target: result.content[*].type\n      \
             matcher: {{exact: [text, image, resource]}}\n\
             \x20   - target: result.content[2].resource.mimeType\n      \
             matcher: {{exact: application/json}}\n\
             \x20   - target: result.content[2].resource.text\n      \
             matcher: {{exact: '{{\"test\":\"data\",\"value\":123}}'}}\n"
        ),
    );
    write(
        &d,
        "error.yaml",
        &format!(
            "name: error\n{s}assert:\n  tool: test_error_handling\n  expect:\n    \
             is_error: true\n    contains: [\"intentionally returns an error\"]\n"
        ),
    );
    run_all_passing(&d, 6);
}

#[test]
fn the_fixture_tools_that_talk_to_the_client_do() {
    let d = scratch("fixtures-client");
    write(
        &d,
        "sampling.yaml",
        &format!(
            "name: sampling\n{}assert_sampling:\n  tool: test_sampling\n  \
             args: {{prompt: \"Capital of France?\"}}\n  mock_text: Paris\n  expect:\n    \
             equals: \"LLM response: Paris\"\n",
            server("")
        ),
    );
    write(
        &d,
        "elicitation.yaml",
        &format!(
            "name: elicitation\n{}assert:\n  tool: test_elicitation\n  \
             args: {{message: \"Who are you?\"}}\n  expect:\n    \
             contains: [\"User response: action=accept\", '\"username\":\"ada\"']\n",
            server(
                "  client_capabilities:\n    elicitation:\n      \
                 content: {username: ada, email: \"ada@example.com\"}\n"
            )
        ),
    );
    write(
        &d,
        "enums.yaml",
        &format!(
            "name: enum elicitation\n{}assert:\n  tool: test_elicitation_sep1330_enums\n  expect:\n    \
             contains: [\"Elicitation completed: action=accept\", '\"titledMulti\":[\"value1\",\"value2\"]']\n",
            server(
                "  client_capabilities:\n    elicitation:\n      \
                 content: {untitledSingle: option1, titledSingle: value1, legacyEnum: opt1, \
                 untitledMulti: [option1], titledMulti: [value1, value2]}\n"
            )
        ),
    );
    write(
        &d,
        "logging.yaml",
        &format!(
            "name: logging\n{}assert_logging:\n  set_level: debug\n  tool: test_tool_with_logging\n  \
             expect:\n    min_messages: 3\n    contains_level: [info]\n    \
             contains_data: [\"Tool execution started\", \"Tool processing data\", \
             \"Tool execution completed\"]\n",
            server("")
        ),
    );
    write(
        &d,
        "progress.yaml",
        &format!(
            "name: progress\n{}assert:\n  tool: test_tool_with_progress\n  capture_progress: true\n  \
             expect:\n    min_progress: 3\n    contains: [\"0, 50 and 100 of 100\"]\n",
            server("")
        ),
    );
    // Without the capability the tool says so instead of asking.
    write(
        &d,
        "no_sampling.yaml",
        &format!(
            "name: no sampling capability\n{}assert:\n  tool: test_sampling\n  \
             args: {{prompt: hi}}\n  expect:\n    is_error: true\n    \
             contains: [\"did not declare the sampling capability\"]\n",
            server("")
        ),
    );
    run_all_passing(&d, 6);
}

#[test]
fn the_fixture_prompts_render() {
    let d = scratch("fixtures-prompts");
    let s = server("");
    write(
        &d,
        "arguments.yaml",
        &format!(
            "name: arguments\n{s}assert_prompts:\n  get:\n    name: test_prompt_with_arguments\n    \
             arguments: {{arg1: hello, arg2: world}}\n  expect:\n    \
             contains: [\"Prompt with arguments: arg1='hello', arg2='world'\"]\n"
        ),
    );
    write(
        &d,
        "embedded.yaml",
        &format!(
            "name: embedded\n{s}assert_prompts:\n  get:\n    \
             name: test_prompt_with_embedded_resource\n    \
             arguments: {{resourceUri: \"test://example-resource\"}}\n  expect:\n\
             \x20   - target: result.messages[0].content.type\n      matcher: {{exact: resource}}\n\
             \x20   - target: result.messages[0].content.resource.uri\n      \
             matcher: {{exact: \"test://example-resource\"}}\n"
        ),
    );
    write(
        &d,
        "image.yaml",
        &format!(
            "name: image\n{s}assert_prompts:\n  get:\n    name: test_prompt_with_image\n  expect:\n\
             \x20   - target: result.messages[0].content.type\n      matcher: {{exact: image}}\n\
             \x20   - target: result.messages[0].content.mimeType\n      matcher: {{exact: image/png}}\n"
        ),
    );
    write(
        &d,
        "simple.yaml",
        &format!(
            "name: simple\n{s}assert_prompts:\n  get:\n    name: test_simple_prompt\n  expect:\n    \
             contains: [\"This is a simple prompt for testing.\"]\n"
        ),
    );
    write(
        &d,
        "missing.yaml",
        &format!(
            "name: a missing argument\n{s}assert_prompts:\n  get:\n    \
             name: test_prompt_with_arguments\n    arguments: {{arg1: hello}}\n  expect:\n\
             \x20   - target: error.code\n      matcher: {{exact: -32602}}\n\
             \x20   - target: error.message\n      matcher: {{contains: arg2}}\n"
        ),
    );
    write(
        &d,
        "completion.yaml",
        &format!(
            "name: completion\n{s}assert_completion:\n  ref: {{type: ref/prompt, name: test_prompt_with_arguments}}\n  \
             argument: {{name: arg1, value: te}}\n  expect:\n\
             \x20   - target: result.completion.values\n      \
             matcher: {{exact: [test, test-value, text]}}\n"
        ),
    );
    run_all_passing(&d, 6);
}

#[test]
fn the_fixture_resources_read_and_subscribe() {
    let d = scratch("fixtures-resources");
    let s = server("");
    write(
        &d,
        "text.yaml",
        &format!(
            "name: text\n{s}assert_resources:\n  read: \"test://static-text\"\n  expect:\n\
             \x20   - target: result.contents[0].mimeType\n      matcher: {{exact: text/plain}}\n\
             \x20   - target: text\n      \
             matcher: {{equals: \"This is the content of the static text resource.\"}}\n"
        ),
    );
    // The 72-byte PNG is 96 characters of base64.
    write(
        &d,
        "binary.yaml",
        &format!(
            "name: binary\n{s}assert_resources:\n  read: \"test://static-binary\"\n  expect:\n    \
             equals: '<blob mimeType=\"image/png\" len=96>'\n"
        ),
    );
    write(
        &d,
        "template.yaml",
        &format!(
            "name: template\n{s}assert_resources:\n  read: \"test://template/123/data\"\n  expect:\n    \
             equals: \"Data of template resource 123.\"\n"
        ),
    );
    write(
        &d,
        "not_a_template_uri.yaml",
        &format!(
            "name: two segments are no id\n{s}assert_resources:\n  read: \"test://template/1/2/data\"\n  \
             expect:\n\
             \x20   - target: error.code\n      matcher: {{exact: -32002}}\n"
        ),
    );
    write(
        &d,
        "subscribe.yaml",
        &format!(
            "name: subscribe\n{s}assert_resources:\n  subscribe: \"test://watched-resource\"\n  \
             read: \"test://watched-resource\"\n  unsubscribe: \"test://watched-resource\"\n  \
             expect:\n    equals: \"Watched resource content\"\n"
        ),
    );
    write(
        &d,
        "templates.yaml",
        &format!(
            "name: templates\n{s}assert_resources:\n  templates: {{}}\n  expect:\n    \
             contains: [\"test://template/{{id}}/data\"]\n"
        ),
    );
    run_all_passing(&d, 6);
}

#[test]
fn the_json_schema_2020_12_tool_lists_its_schema_and_checks_arguments() {
    let d = scratch("fixtures-json-schema");
    let s = server("");
    write(
        &d,
        "ok.yaml",
        &format!(
            "name: a phone contact\n{s}assert:\n  tool: json_schema_2020_12_tool\n  \
             args: {{name: Ada, contactMethod: phone, phone: \"123\", address: {{city: London}}}}\n  \
             expect:\n    json_path:\n      \"$.name\": Ada\n      \"$.address.city\": London\n"
        ),
    );
    write(
        &d,
        "missing_phone.yaml",
        &format!(
            "name: phone without a number\n{s}assert:\n  tool: json_schema_2020_12_tool\n  \
             args: {{contactMethod: phone, email: \"ada@example.com\"}}\n  expect:\n    \
             is_error: true\n    contains: [\"`phone` is required\"]\n"
        ),
    );
    write(
        &d,
        "unknown.yaml",
        &format!(
            "name: an unknown argument\n{s}assert:\n  tool: json_schema_2020_12_tool\n  \
             args: {{email: \"ada@example.com\", age: 3}}\n  expect:\n    is_error: true\n"
        ),
    );
    run_all_passing(&d, 3);

    // The listing keeps every 2020-12 keyword the suite looks for: read it
    // back from the definitions `mcpcheck lock` pins.
    let lockfile = d.join("mcp-lock.json");
    let (code, out, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &format!("{BIN} serve"),
        "--write",
        lockfile.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let text = std::fs::read_to_string(&lockfile).expect("the lock file");
    let lock: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let tool = lock["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|t| t["kind"] == "tool" && t["name"] == "json_schema_2020_12_tool")
        .unwrap_or_else(|| panic!("no json_schema_2020_12_tool: {text}"));
    let schema = &tool["definition"]["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/address");
    assert_eq!(schema["additionalProperties"], false);
    for keyword in ["allOf", "if", "then", "else"] {
        assert!(schema.get(keyword).is_some(), "{keyword}: {schema}");
    }
}
