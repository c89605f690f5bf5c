//! The probes behind `mcpcheck audit` and `mcpcheck fuzz`, end to end over a
//! corpus of input schemas shaped like real servers' tools
//! (`tests/data/probe/schemas.json`): valid arguments validate, every fuzz
//! case's validity flag is right, cases are deterministic, shrinking ends,
//! the classification table, report snapshots (and their determinism over a
//! simulated server), and regression tests that load cleanly and fail while
//! the bug is there.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::Facts;
use mcpcheck_core::diag::Paint;
use mcpcheck_core::findings::render::Format;
use mcpcheck_core::generate::Server;
use mcpcheck_core::observation::{self, Method};
use mcpcheck_core::probe::{
    self, Arguments, AuditReport, AuditResult, Category, ClassifyCx, Finding, FuzzCase, FuzzReport,
    FuzzToolReport, ItemKind, Observed, Request, Status, Transport,
};
use mcpcheck_core::score::{self, Verdict};
use mcpcheck_core::suite;
use serde_json::{Value, json};

fn corpus() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/probe/schemas.json");
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The validator the tests judge by: JSON Schema 2020-12 unless `$schema`
/// names another draft, formats asserted.
fn validator(schema: &Value) -> jsonschema::Validator {
    let mut o = jsonschema::options().should_validate_formats(true);
    if schema.get("$schema").is_none() {
        o = o.with_draft(jsonschema::Draft::Draft202012);
    }
    o.build(schema).unwrap()
}

fn valid(v: &jsonschema::Validator, a: &Arguments) -> bool {
    match a {
        Arguments::Omitted => v.is_valid(&json!({})),
        Arguments::Null => false,
        Arguments::Value(x) => x.is_object() && v.is_valid(x),
    }
}

fn name(tool: &Value) -> &str {
    tool["name"].as_str().unwrap()
}

#[test]
fn the_corpus_is_large_enough() {
    assert!(corpus().len() >= 15);
}

#[test]
fn valid_arguments_validate_and_fill_optional_properties() {
    for tool in corpus() {
        let schema = &tool["inputSchema"];
        let args = probe::valid_arguments(schema);
        let v = validator(schema);
        let errors: Vec<String> = v.iter_errors(&args).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{}: {args} is not valid: {errors:?}",
            name(&tool)
        );
        assert_eq!(
            probe::input_valid(schema, &Arguments::Value(args.clone())),
            Some(true)
        );
        // Every declared property that a value could be built for is there.
        let declared = schema["properties"].as_object().map_or(0, |p| p.len());
        let given = args.as_object().map_or(0, |a| a.len());
        assert_eq!(given, declared, "{}: {args}", name(&tool));
    }
}

#[test]
fn every_fuzz_case_says_rightly_whether_it_is_schema_valid() {
    for tool in corpus() {
        let v = validator(&tool["inputSchema"]);
        let cases = probe::fuzz_cases(&tool, 7, 150);
        assert_eq!(cases.len(), 150, "{}", name(&tool));
        assert!(probe::systematic_count(&tool) < 150);
        for c in &cases {
            assert_eq!(
                c.schema_valid,
                valid(&v, &c.arguments),
                "{}: {} ({:?})",
                name(&tool),
                c.label,
                c.category
            );
            let bytes = c
                .arguments
                .as_value()
                .map_or(0, |x| serde_json::to_string(&x).unwrap().len());
            assert!(bytes <= probe::MAX_CASE_BYTES, "{}", c.label);
        }
        assert_eq!(cases[0].category, Category::Valid);
        assert!(cases[0].schema_valid, "{}", name(&tool));
    }
}

#[test]
fn fuzz_cases_cover_the_categories_in_order() {
    let tools = corpus();
    let edit = tools.iter().find(|t| name(t) == "edit_file").unwrap();
    let cases = probe::fuzz_cases(edit, 1, 500);
    let categories: Vec<Category> = cases.iter().map(|c| c.category).collect();
    let mut order = categories.clone();
    order.dedup();
    assert_eq!(
        order,
        [
            Category::Valid,
            Category::ArgumentsMissing,
            Category::ArgumentsNull,
            Category::ArgumentsWrongType,
            Category::RequiredOmitted,
            Category::WrongType,
            Category::NullValue,
            Category::EmptyValue,
            Category::HugeString,
            Category::NulString,
            Category::Unicode,
            Category::PathTraversal,
            Category::FormatBreaking,
            Category::LongArray,
            Category::DeepNesting,
            Category::ExtraProperty,
            Category::Random,
        ]
    );
    let labels: Vec<&str> = cases.iter().take(12).map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "valid arguments",
            "`arguments` omitted",
            "`arguments` is null",
            "`arguments` is an array, not an object",
            "required property `path` omitted",
            "required property `edits` omitted",
            "`dryRun` is a string (\"true\"), not a boolean",
            "`edits` is a string, not an array",
            "`path` is a number (12345), not a string",
            "`dryRun` is null",
            "`edits` is null",
            "`path` is null",
        ]
    );
    assert!(matches!(cases[1].arguments, Arguments::Omitted));
    assert!(matches!(cases[2].arguments, Arguments::Null));
    let huge = cases
        .iter()
        .find(|c| c.category == Category::HugeString)
        .unwrap();
    assert_eq!(
        huge.arguments.as_value().unwrap()["path"]
            .as_str()
            .unwrap()
            .len(),
        probe::HUGE_STRING_BYTES
    );
    // Items this large fit fewer than 10,000 times in a case; the label
    // says how many.
    let long = cases
        .iter()
        .find(|c| c.category == Category::LongArray)
        .unwrap();
    let n = long.arguments.as_value().unwrap()["edits"]
        .as_array()
        .unwrap()
        .len();
    assert!(n < probe::LONG_ARRAY_ITEMS);
    assert_eq!(long.label, format!("`edits` has {n} items"));
    let paths = tools
        .iter()
        .find(|t| name(t) == "read_multiple_files")
        .unwrap();
    let long = probe::fuzz_cases(paths, 1, 200)
        .into_iter()
        .find(|c| c.category == Category::LongArray)
        .unwrap();
    assert_eq!(long.label, "`paths` has 10000 items");
    let numbers = tools
        .iter()
        .find(|t| name(t) == "getResourceReference")
        .unwrap();
    let boundary: Vec<String> = probe::fuzz_cases(numbers, 1, 200)
        .into_iter()
        .filter(|c| c.category == Category::Boundary)
        .map(|c| c.label)
        .collect();
    assert_eq!(
        boundary,
        [
            "`resourceId` = 0 (minimum - 1)",
            "`resourceId` = 101 (maximum + 1)",
            "`resourceId` = -1 (minus one)",
            "`resourceId` = 1.5 (not a whole number)",
            "`resourceId` = 9223372036854775807 (i64::MAX)",
            "`resourceId` = -9223372036854775808 (i64::MIN)",
            "`resourceId` = 1e+308 (huge)",
            "`resourceId` = -0.0 (negative zero)",
        ]
    );
}

#[test]
fn fuzz_cases_are_deterministic() {
    for tool in corpus() {
        let a = probe::fuzz_cases(&tool, 42, 120);
        let b = probe::fuzz_cases(&tool, 42, 120);
        assert_eq!(a, b, "{}", name(&tool));
        // A smaller run is a prefix of a larger one.
        assert_eq!(probe::fuzz_cases(&tool, 42, 70), a[..70].to_vec());
        // Another seed: the same systematic cases, another random tail.
        let c = probe::fuzz_cases(&tool, 43, 120);
        let n = probe::systematic_count(&tool);
        assert_eq!(a[..n], c[..n], "{}", name(&tool));
        assert_ne!(a[n..], c[n..], "{}", name(&tool));
        // Labels and inputs serialize the same way every time.
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
    }
}

#[test]
fn a_tool_s_cases_do_not_depend_on_the_other_tools() {
    let tools = corpus();
    let echo = tools.iter().find(|t| name(t) == "echo").unwrap();
    let mut renamed = echo.clone();
    renamed["name"] = json!("echo2");
    let n = probe::systematic_count(echo);
    let a = probe::fuzz_cases(echo, 5, 60);
    let b = probe::fuzz_cases(&renamed, 5, 60);
    assert_eq!(a[..n], b[..n]);
    assert_ne!(a[n..], b[n..], "the tool's name seeds its stream");
}

#[test]
fn shrinking_ends_and_every_step_is_smaller() {
    for tool in corpus() {
        for case in probe::fuzz_cases(&tool, 9, 80) {
            let mut cur = case.arguments.clone();
            let mut rounds = 0;
            let start = probe::size(&cur);
            // A failure that reproduces as long as the input has any string.
            let keeps = |a: &Arguments| a.to_json().to_string().contains('"');
            loop {
                let before = probe::size(&cur);
                let next = probe::shrink_iter(&cur).find(|c| {
                    assert!(probe::size(c) < before);
                    keeps(c)
                });
                let Some(next) = next else {
                    break;
                };
                cur = next;
                rounds += 1;
                assert!(rounds <= start, "{}: {}", name(&tool), case.label);
            }
            assert!(probe::shrink_candidates(&cur).iter().all(|c| !keeps(c)));
        }
    }
}

fn tools_call(cx_valid: Option<bool>) -> ClassifyCx<'static> {
    ClassifyCx {
        input_valid: cx_valid,
        timeout_ms: Some(5000),
        protocol_version: Some("2025-11-25"),
        ..ClassifyCx::new(Request::ToolsCall)
    }
}

fn answer(message: Value) -> Observed {
    Observed {
        response: Some(message),
        duration_ms: 3,
        ..Observed::default()
    }
}

fn result(r: Value) -> Observed {
    answer(json!({"jsonrpc": "2.0", "id": 1, "result": r}))
}

fn error(code: i64, message: &str) -> Observed {
    answer(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": message}}))
}

type Row = (
    &'static str,
    Observed,
    ClassifyCx<'static>,
    Status,
    &'static str,
);

static OUT_SCHEMA: std::sync::LazyLock<Value> = std::sync::LazyLock::new(
    || json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}),
);

fn with_output(valid: Option<bool>) -> ClassifyCx<'static> {
    ClassifyCx {
        output_schema: Some(&OUT_SCHEMA),
        ..tools_call(valid)
    }
}

fn ok_text() -> Value {
    json!({"content": [{"type": "text", "text": "ok"}]})
}

/// Successes, tool errors and JSON-RPC errors of tools/call.
fn error_rows() -> Vec<Row> {
    vec![
        (
            "a result",
            result(ok_text()),
            tools_call(None),
            Status::Healthy,
            "returned 1 content item",
        ),
        (
            "an empty result",
            result(json!({"content": []})),
            tools_call(None),
            Status::Healthy,
            "returned 0 content items",
        ),
        (
            "isError true",
            result(
                json!({"content": [{"type": "text", "text": "no such file\nmore"}], "isError": true}),
            ),
            tools_call(Some(true)),
            Status::ToolError,
            "isError: true: no such file",
        ),
        (
            "a tool error leaking a stack trace",
            result(
                json!({"content": [{"type": "text", "text": "Traceback (most recent call last):\n  File x"}], "isError": true}),
            ),
            tools_call(None),
            Status::ToolError,
            "isError: true: Traceback (most recent call last): (the text holds a stack trace: an unhandled error)",
        ),
        (
            "-32603 internal error",
            error(-32603, "boom"),
            tools_call(Some(true)),
            Status::ProtocolError,
            "JSON-RPC error -32603 (internal error): boom",
        ),
        (
            "-32603 for an invalid input too",
            error(-32603, "boom"),
            tools_call(Some(false)),
            Status::ProtocolError,
            "JSON-RPC error -32603 (internal error): boom",
        ),
        (
            "-32602 for an invalid input",
            error(-32602, "bad a"),
            tools_call(Some(false)),
            Status::Healthy,
            "rejected: JSON-RPC error -32602 (invalid params): bad a (2025-11-25 prefers a result with isError: true for input errors)",
        ),
        (
            "-32602 for an invalid input, older protocol",
            error(-32602, "bad a"),
            ClassifyCx {
                protocol_version: Some("2025-03-26"),
                ..tools_call(Some(false))
            },
            Status::Healthy,
            "rejected: JSON-RPC error -32602 (invalid params): bad a",
        ),
        (
            "-32602 for a valid input",
            error(-32602, "file not found"),
            tools_call(Some(true)),
            Status::ProtocolError,
            "JSON-RPC error -32602 (invalid params): file not found — for a schema-valid input; a tool's failure belongs in a result with isError: true",
        ),
        (
            "-32602 with validity unknown (read as valid)",
            error(-32602, "x"),
            tools_call(None),
            Status::ProtocolError,
            "JSON-RPC error -32602 (invalid params): x — for a schema-valid input; a tool's failure belongs in a result with isError: true",
        ),
        (
            "a server error code",
            error(-32000, "failed"),
            tools_call(Some(false)),
            Status::ProtocolError,
            "JSON-RPC error -32000 (server error): failed — where a tool's failure belongs in a result with isError: true",
        ),
        (
            "-32601 method not found",
            error(-32601, "no"),
            tools_call(Some(false)),
            Status::ProtocolError,
            "JSON-RPC error -32601 (method not found): no",
        ),
        (
            "-32042 URL elicitation",
            error(-32042, "open a link"),
            tools_call(None),
            Status::ToolError,
            "JSON-RPC error -32042 (URL elicitation required): open a link",
        ),
        (
            "an error without a code",
            answer(json!({"jsonrpc": "2.0", "id": 1, "error": {"message": "x"}})),
            tools_call(None),
            Status::InvalidResult,
            "the JSON-RPC error has no integer `code`",
        ),
        (
            "neither result nor error",
            answer(json!({"jsonrpc": "2.0", "id": 1})),
            tools_call(None),
            Status::InvalidResult,
            "the answer has neither `result` nor `error`",
        ),
    ]
}

/// Result shapes, output schemas and invalid inputs of tools/call.
fn result_rows() -> Vec<Row> {
    vec![
        (
            "no content",
            result(json!({"text": "hi"})),
            tools_call(None),
            Status::InvalidResult,
            "the tools/call result has no `content`",
        ),
        (
            "content not an array",
            result(json!({"content": "hi"})),
            tools_call(None),
            Status::InvalidResult,
            "`result.content` is not an array",
        ),
        (
            "an unknown content type",
            result(
                json!({"content": [{"type": "text", "text": "a"}, {"type": "html", "html": "<b>"}]}),
            ),
            tools_call(None),
            Status::InvalidResult,
            "`result.content[1]` has an unknown type \"html\" (known: text, image, audio, resource, resource_link)",
        ),
        (
            "a text item without text",
            result(json!({"content": [{"type": "text"}]})),
            tools_call(None),
            Status::InvalidResult,
            "`result.content[0]` (type \"text\") lacks `text`",
        ),
        (
            "isError not a boolean",
            result(json!({"content": [], "isError": "yes"})),
            tools_call(None),
            Status::InvalidResult,
            "`result.isError` is not a boolean",
        ),
        (
            "structuredContent matching",
            result(json!({"content": [], "structuredContent": {"sum": 3}})),
            with_output(Some(true)),
            Status::Healthy,
            "returned 0 content items",
        ),
        (
            "structuredContent not matching",
            result(json!({"content": [], "structuredContent": {"sum": "3"}})),
            with_output(Some(true)),
            Status::SchemaMismatch,
            "structuredContent does not match the outputSchema at /sum: \"3\" is not of type \"number\"",
        ),
        (
            "structuredContent missing",
            result(json!({"content": [{"type": "text", "text": "{\"sum\": 3}"}]})),
            with_output(Some(true)),
            Status::SchemaMismatch,
            "the tool declares an outputSchema but the result has no structuredContent",
        ),
        (
            "structuredContent missing from a tool error is fine",
            result(json!({"content": [{"type": "text", "text": "bad"}], "isError": true})),
            with_output(Some(true)),
            Status::ToolError,
            "isError: true: bad",
        ),
        (
            "outputSchema not checked before 2025-06-18",
            result(json!({"content": []})),
            ClassifyCx {
                protocol_version: Some("2025-03-26"),
                ..with_output(Some(true))
            },
            Status::Healthy,
            "returned 0 content items",
        ),
        (
            "an invalid input accepted",
            result(ok_text()),
            tools_call(Some(false)),
            Status::AcceptedInvalid,
            "a schema-invalid input was accepted: a success, not a tool error or -32602",
        ),
        (
            "an invalid input rejected as a tool error",
            result(
                json!({"content": [{"type": "text", "text": "a must be a number"}], "isError": true}),
            ),
            tools_call(Some(false)),
            Status::ToolError,
            "isError: true: a must be a number",
        ),
    ]
}

/// The process and the transport; prompts/get and resources/read.
fn other_rows() -> Vec<Row> {
    vec![
        (
            "the process exited",
            Observed {
                exited: Some("exit status 1".into()),
                stderr_tail: "panic!\n".into(),
                ..Observed::default()
            },
            tools_call(None),
            Status::Crash,
            "the server exited (exit status 1) before answering",
        ),
        (
            "the process exited after answering",
            Observed {
                exited: Some("signal 11 (SIGSEGV)".into()),
                ..result(ok_text())
            },
            tools_call(None),
            Status::Crash,
            "the server exited (signal 11 (SIGSEGV)) after answering",
        ),
        (
            "no answer, connection closed",
            Observed::default(),
            tools_call(None),
            Status::Crash,
            "the connection closed without an answer",
        ),
        (
            "a timeout",
            Observed {
                timed_out: true,
                duration_ms: 5003,
                ..Observed::default()
            },
            tools_call(None),
            Status::Timeout,
            "no answer within 5000 ms",
        ),
        (
            "non-JSON on stdout",
            Observed {
                non_json_lines: vec!["Debug: starting".into(), "x".into()],
                ..result(ok_text())
            },
            tools_call(None),
            Status::NonJsonOutput,
            "the server wrote 2 lines on stdout that are not JSON-RPC, first: \"Debug: starting\"",
        ),
        (
            "a prompt",
            result(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
            ),
            ClassifyCx::new(Request::PromptsGet),
            Status::Healthy,
            "returned 1 message",
        ),
        (
            "a prompt without messages",
            result(json!({"description": "x"})),
            ClassifyCx::new(Request::PromptsGet),
            Status::InvalidResult,
            "the prompts/get result has no `messages` array",
        ),
        (
            "a prompt message with a bad role",
            result(
                json!({"messages": [{"role": "system", "content": {"type": "text", "text": "hi"}}]}),
            ),
            ClassifyCx::new(Request::PromptsGet),
            Status::InvalidResult,
            "`result.messages[0]` has no role `user` or `assistant`",
        ),
        (
            "a prompt's -32602",
            error(-32602, "missing argument"),
            ClassifyCx::new(Request::PromptsGet),
            Status::ToolError,
            "JSON-RPC error -32602 (invalid params): missing argument",
        ),
        (
            "a prompt's -32603",
            error(-32603, "oops"),
            ClassifyCx::new(Request::PromptsGet),
            Status::ProtocolError,
            "JSON-RPC error -32603 (internal error): oops",
        ),
        (
            "a resource",
            result(
                json!({"contents": [{"uri": "mem://a", "text": "x"}, {"uri": "mem://b", "blob": "eA=="}]}),
            ),
            ClassifyCx::new(Request::ResourcesRead),
            Status::Healthy,
            "returned 2 contents",
        ),
        (
            "a resource content without text or blob",
            result(json!({"contents": [{"uri": "mem://a"}]})),
            ClassifyCx::new(Request::ResourcesRead),
            Status::InvalidResult,
            "`result.contents[0]` has neither `text` nor `blob`",
        ),
        (
            "a resource not found",
            error(-32002, "Resource not found"),
            ClassifyCx::new(Request::ResourcesRead),
            Status::ToolError,
            "JSON-RPC error -32002 (resource not found): Resource not found",
        ),
    ]
}

#[test]
fn the_classification_table() {
    for (what, observed, cx, status, detail) in [error_rows(), result_rows(), other_rows()]
        .into_iter()
        .flatten()
    {
        let got = probe::classify(&observed, &cx);
        assert_eq!(
            (got.status, got.detail.as_str()),
            (status, detail),
            "{what}"
        );
    }
}

#[test]
fn statuses_levels_and_seriousness() {
    let serious: Vec<&str> = Status::ALL
        .iter()
        .filter(|s| s.is_serious())
        .map(|s| s.as_str())
        .collect();
    assert_eq!(
        serious,
        [
            "schema_mismatch",
            "invalid_result",
            "non_json_output",
            "protocol_error",
            "flood",
            "timeout",
            "crash"
        ]
    );
    for s in Status::ALL {
        assert_eq!(serde_json::to_value(s).unwrap(), json!(s.as_str()));
    }
    assert_eq!(
        Status::AcceptedInvalid.level(),
        mcpcheck_core::probe::Level::Warning
    );
    assert!(Status::ToolError.fuzz_passed() && !Status::AcceptedInvalid.fuzz_passed());
}

fn audit_fixture() -> AuditReport {
    let call = |kind, item: &str, input: Value, observed: Observed, cx: ClassifyCx<'_>| {
        let outcome = probe::classify(&observed, &cx);
        AuditResult::from_call(kind, item, &Arguments::Value(input), &outcome, &observed)
    };
    let results = vec![
        call(
            ItemKind::Tool,
            "echo",
            json!({"message": "example"}),
            result(json!({"content": [{"type": "text", "text": "example"}]})),
            tools_call(Some(true)),
        ),
        call(
            ItemKind::Tool,
            "read_file",
            json!({"path": "example"}),
            result(
                json!({"content": [{"type": "text", "text": "ENOENT: no such file | <b>"}], "isError": true}),
            ),
            tools_call(Some(true)),
        ),
        call(
            ItemKind::Tool,
            "boom",
            json!({"n": 1}),
            Observed {
                exited: Some("exit status 101".into()),
                stderr_tail: "thread 'main' panicked at src/main.rs:3:5:\n```oops```\n".into(),
                duration_ms: 12,
                ..Observed::default()
            },
            tools_call(Some(true)),
        ),
        call(
            ItemKind::Tool,
            "slow",
            json!({}),
            Observed {
                timed_out: true,
                duration_ms: 5000,
                ..Observed::default()
            },
            tools_call(Some(true)),
        ),
        call(
            ItemKind::Tool,
            "strict",
            json!({"path": "example"}),
            error(-32602, "path must exist"),
            tools_call(Some(true)),
        ),
        AuditResult::skipped(
            ItemKind::Tool,
            "delete_file",
            "annotations.destructiveHint is true",
        ),
        call(
            ItemKind::Prompt,
            "greet",
            json!({"who": "example"}),
            result(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
            ),
            ClassifyCx::new(Request::PromptsGet),
        ),
        AuditResult::from_call(
            ItemKind::Resource,
            "file:///tmp/a b.txt",
            &Arguments::Omitted,
            &probe::classify(
                &result(json!({"contents": []})),
                &ClassifyCx::new(Request::ResourcesRead),
            ),
            &result(json!({"contents": []})),
        ),
    ];
    AuditReport::new("everything | <server>", Transport::Stdio, results)
}

#[test]
fn the_audit_report() {
    let r = audit_fixture();
    assert_eq!(r.score, 57, "4 fine of 7 called");
    assert!(!probe::audit_passed(&r));
    let json: Value =
        serde_json::from_str(&render(&probe::audit_findings(&r), Format::Json)).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["transport"], "stdio");
    assert_eq!(json["results"][7]["input"], Value::Null);
    assert_eq!(
        json["results"][2]["stderr"],
        "thread 'main' panicked at src/main.rs:3:5:\n```oops```"
    );
    assert!(json["results"][0].get("stderr").is_none());
    let back: AuditReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, r);
    insta::assert_snapshot!(
        "audit_json",
        render(&probe::audit_findings(&r), Format::Json)
    );
    insta::assert_snapshot!(
        "audit_text",
        render(&probe::audit_findings(&r), Format::Text)
    );
    insta::assert_snapshot!(
        "audit_markdown",
        render(&probe::audit_findings(&r), Format::Markdown)
    );
    insta::assert_snapshot!(
        "audit_sarif",
        render(&probe::audit_findings(&r), Format::Sarif)
    );
    insta::assert_snapshot!(
        "audit_junit",
        render(&probe::audit_findings(&r), Format::Junit)
    );
    let fine = AuditReport::new(
        "s",
        Transport::Http,
        vec![r.results[0].clone(), r.results[1].clone()],
    );
    assert!(probe::audit_passed(&fine));
    assert_eq!(probe::audit_score(&[]), 100);
}

/// A server with bugs, as a pure function of the arguments: a long string
/// crashes it, a path going up is an internal error, `%n` makes it print on
/// stdout, nesting past 32 levels hangs it, a `null` inside the arguments
/// gives a malformed result, and it accepts anything else.
fn simulated(tool: &str, a: &Arguments) -> Observed {
    fn any(v: &Value, f: &dyn Fn(&Value) -> bool) -> bool {
        f(v) || match v {
            Value::Array(x) => x.iter().any(|i| any(i, f)),
            Value::Object(o) => o.values().any(|i| any(i, f)),
            _ => false,
        }
    }
    let v = match a {
        Arguments::Omitted => return result(json!({"content": [], "isError": true})),
        Arguments::Null => return error(-32602, "arguments must be an object"),
        Arguments::Value(v) => v,
    };
    let is_str = |f: &dyn Fn(&str) -> bool| any(v, &|x| x.as_str().is_some_and(f));
    if is_str(&|s| s.chars().count() > 100) {
        return Observed {
            exited: Some("signal 11 (SIGSEGV)".into()),
            ..Observed::default()
        };
    }
    if is_str(&|s| s.contains("../")) {
        return error(-32603, &format!("{tool}: cannot open"));
    }
    if is_str(&|s| s.contains("%n")) {
        return Observed {
            non_json_lines: vec!["printf: %n".into()],
            ..result(json!({"content": []}))
        };
    }
    if probe_depth(v) > 32 {
        return Observed {
            timed_out: true,
            ..Observed::default()
        };
    }
    if any(v, &Value::is_null) {
        return result(json!({"content": [{"type": "html"}]}));
    }
    result(json!({"content": [{"type": "text", "text": "ok"}]}))
}

fn probe_depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(probe_depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(probe_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// A whole fuzz run against [`simulated`], shrinking every failure.
fn fuzz_run(tools: &[Value], seed: u64, runs: usize) -> FuzzReport {
    let mut reports = Vec::new();
    for tool in tools {
        let tool_name = name(tool);
        if let Some(why) = probe::write_risk(tool) {
            reports.push(FuzzToolReport::skipped(tool_name, &why));
            continue;
        }
        let schema = &tool["inputSchema"];
        let mut report = FuzzToolReport::new(tool_name);
        for case in probe::fuzz_cases(tool, seed, runs) {
            let cx = ClassifyCx {
                input_valid: Some(case.schema_valid),
                ..tools_call(None)
            };
            let outcome = probe::classify(&simulated(tool_name, &case.arguments), &cx);
            let mut shrunk = None;
            if outcome.status.is_serious() {
                let mut cur = case.arguments.clone();
                let mut kept = outcome.clone();
                loop {
                    let next = probe::shrink_iter(&cur).find_map(|c| {
                        let valid = probe::input_valid(schema, &c);
                        let cx = ClassifyCx {
                            input_valid: valid,
                            ..tools_call(None)
                        };
                        let o = probe::classify(&simulated(tool_name, &c), &cx);
                        (o.status == outcome.status).then_some((c, o))
                    });
                    match next {
                        Some((c, o)) => {
                            cur = c;
                            kept = o;
                        }
                        None => break,
                    }
                }
                shrunk = Some(cur);
                report.record(&case, &kept, shrunk.take(), None);
                continue;
            }
            report.record(&case, &outcome, shrunk, None);
        }
        reports.push(report);
    }
    FuzzReport::new(seed, "simulated", Transport::Stdio, reports)
}

fn fuzz_tools() -> Vec<Value> {
    let tools = corpus();
    ["echo", "add", "write_file", "getResourceReference"]
        .iter()
        .map(|n| tools.iter().find(|t| name(t) == *n).unwrap().clone())
        .collect()
}

#[test]
fn the_fuzz_report_is_the_same_for_the_same_seed() {
    let tools = fuzz_tools();
    let a = fuzz_run(&tools, 42, 40);
    let b = fuzz_run(&tools, 42, 40);
    assert_eq!(
        render(&probe::fuzz_findings(&a), Format::Json),
        render(&probe::fuzz_findings(&b), Format::Json)
    );
    assert_eq!(
        render(&probe::fuzz_findings(&a), Format::Text),
        render(&probe::fuzz_findings(&b), Format::Text)
    );
    assert_eq!(
        render(&probe::fuzz_findings(&a), Format::Sarif),
        render(&probe::fuzz_findings(&b), Format::Sarif)
    );
    assert_eq!(
        render(&probe::fuzz_findings(&a), Format::Junit),
        render(&probe::fuzz_findings(&b), Format::Junit)
    );
    assert_eq!(
        render(&probe::fuzz_findings(&a), Format::Markdown),
        render(&probe::fuzz_findings(&b), Format::Markdown)
    );
    let c = fuzz_run(&tools, 43, 40);
    assert_ne!(
        render(&probe::fuzz_findings(&a), Format::Json),
        render(&probe::fuzz_findings(&c), Format::Json)
    );
    assert!(!probe::fuzz_passed(&a));
    let s = &a.summary;
    assert_eq!((s.tools, s.tools_skipped), (3, 1));
    assert_eq!(s.runs, 120);
    assert_eq!(s.passed + s.failures, s.runs);
    assert!(s.crashes > 0 && s.protocol_errors > 0 && s.non_json_outputs > 0 && s.timeouts > 0);
    assert!(s.invalid_results > 0 && s.accepted_invalid > 0);
    // A crash on a 100 KiB string (the server fails past 100 characters)
    // shrinks by halves to 200 characters.
    let crash = a.tools[0]
        .failures
        .iter()
        .find(|f| f.category == Category::HugeString)
        .unwrap();
    assert_eq!(crash.status, Status::Crash);
    assert_eq!(crash.input.to_json(), json!({"message": "A".repeat(200)}));
    assert!(crash.shrunk_from.is_some());
    let back: FuzzReport =
        serde_json::from_str(&render(&probe::fuzz_findings(&a), Format::Json)).unwrap();
    assert_eq!(back, a);
}

#[test]
fn fuzz_report_snapshots() {
    let tools: Vec<Value> = fuzz_tools().into_iter().skip(1).collect();
    let r = fuzz_run(&tools, 7, 24);
    insta::assert_snapshot!("fuzz_json", render(&probe::fuzz_findings(&r), Format::Json));
    insta::assert_snapshot!("fuzz_text", render(&probe::fuzz_findings(&r), Format::Text));
    insta::assert_snapshot!(
        "fuzz_markdown",
        render(&probe::fuzz_findings(&r), Format::Markdown)
    );
    insta::assert_snapshot!(
        "fuzz_sarif",
        render(&probe::fuzz_findings(&r), Format::Sarif)
    );
    insta::assert_snapshot!(
        "fuzz_junit",
        render(&probe::fuzz_findings(&r), Format::Junit)
    );
}

#[test]
fn a_fuzz_run_without_serious_failures_passes() {
    let case = FuzzCase {
        label: "`a` is a string".into(),
        category: Category::WrongType,
        arguments: Arguments::Value(json!({"a": "x"})),
        schema_valid: false,
    };
    let mut t = FuzzToolReport::new("add");
    let accepted = probe::classify(&result(json!({"content": []})), &tools_call(Some(false)));
    t.record(&case, &accepted, None, None);
    t.record(
        &case,
        &probe::classify(&error(-32602, "no"), &tools_call(Some(false))),
        None,
        None,
    );
    let r = FuzzReport::new(1, "s", Transport::Sse, vec![t]);
    assert!(probe::fuzz_passed(&r));
    assert_eq!(r.summary.accepted_invalid, 1);
    assert_eq!((r.tools[0].runs, r.tools[0].passed), (2, 1));
    let omitted = FuzzCase {
        arguments: Arguments::Omitted,
        ..case
    };
    let mut t = FuzzToolReport::new("add");
    t.record(
        &omitted,
        &probe::classify(&error(-32603, "x"), &tools_call(None)),
        None,
        None,
    );
    let json: Value = serde_json::to_value(&t).unwrap();
    assert!(
        json["failures"][0].get("input").is_none(),
        "no arguments key: no input"
    );
}

fn server() -> Server {
    Server::Stdio {
        command: "node".into(),
        args: vec!["server.js".into(), "--root".into(), "/tmp/x: y".into()],
    }
}

/// The test a regression file defines, loaded without a diagnostic.
fn load(file: &mcpcheck_core::generate::File) -> suite::Test {
    let loaded = suite::load(&file.name, &file.text);
    assert!(
        loaded.diagnostics.is_empty(),
        "{}:\n{}\n{:?}",
        file.name,
        file.text,
        loaded.diagnostics
    );
    assert_eq!(loaded.suite.tests.len(), 1);
    loaded.suite.tests.into_iter().next().unwrap()
}

fn passes(test: &suite::Test, method: &Method, response: Value) -> bool {
    let (obs, _) = observation::from_response(method, response);
    score::score(&test.expect, &obs, &Facts::default()).verdict == Verdict::Pass
}

fn envelope_result(r: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": r})
}

fn envelope_error(code: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}})
}

/// A finding, the method its test calls, answers a test must fail on (the
/// bug) and answers it must pass on (fixed).
struct RegressionRow {
    kind: ItemKind,
    item: &'static str,
    arguments: Arguments,
    status: Status,
    label: &'static str,
    category: Option<Category>,
    schema_valid: bool,
    method: Method,
    buggy: Vec<Value>,
    fixed: Vec<Value>,
}

static REGRESSION_OUTPUT: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    json!({"type": "object", "$defs": {"N": {"type": "number"}},
           "properties": {"sum": {"$ref": "#/$defs/N"}}, "required": ["sum"]})
});

fn ok_tool() -> Value {
    envelope_result(
        json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}}),
    )
}

fn tool_error() -> Value {
    envelope_result(json!({"content": [{"type": "text", "text": "bad"}], "isError": true}))
}

fn tool_regressions() -> Vec<RegressionRow> {
    let valid_args =
        Arguments::Value(json!({"a": 1, "b": 2, "note": "line\nbreak \"quoted\" # not a comment"}));
    let row = |arguments, status, label, schema_valid, buggy, fixed| RegressionRow {
        kind: ItemKind::Tool,
        item: "add",
        arguments,
        status,
        label,
        category: None,
        schema_valid,
        method: Method::ToolsCall,
        buggy,
        fixed,
    };
    vec![
        row(
            valid_args.clone(),
            Status::ProtocolError,
            "",
            true,
            vec![
                envelope_error(-32603),
                envelope_error(-32602),
                envelope_result(json!({"text": "x"})),
            ],
            vec![ok_tool(), tool_error()],
        ),
        row(
            Arguments::Value(json!({"a": "x", "b": null})),
            Status::AcceptedInvalid,
            "`a` is a string, not a number",
            false,
            vec![ok_tool(), envelope_error(-32603), envelope_error(-32000)],
            vec![tool_error(), envelope_error(-32602)],
        ),
        row(
            valid_args,
            Status::SchemaMismatch,
            "",
            true,
            vec![
                envelope_result(json!({"content": [], "structuredContent": {"sum": "3"}})),
                envelope_result(json!({"content": []})),
            ],
            vec![ok_tool()],
        ),
    ]
}

fn more_regressions() -> Vec<RegressionRow> {
    let echo = |arguments, status, label, category, buggy, fixed| RegressionRow {
        kind: ItemKind::Tool,
        item: "echo",
        arguments,
        status,
        label,
        category: Some(category),
        schema_valid: false,
        method: Method::ToolsCall,
        buggy,
        fixed,
    };
    let huge = json!({"message": "A".repeat(100_000), "deep": probe_nested(64)});
    vec![
        echo(
            Arguments::Value(huge),
            Status::Crash,
            "`message` is a 100 KiB string",
            Category::HugeString,
            vec![envelope_error(-32603), ok_tool()],
            vec![tool_error()],
        ),
        echo(
            Arguments::Omitted,
            Status::Crash,
            "`arguments` omitted",
            Category::ArgumentsMissing,
            vec![envelope_error(-32603)],
            vec![tool_error()],
        ),
        echo(
            Arguments::Null,
            Status::Timeout,
            "`arguments` is null",
            Category::ArgumentsNull,
            vec![ok_tool()],
            vec![envelope_error(-32602)],
        ),
        RegressionRow {
            kind: ItemKind::Prompt,
            item: "greet",
            arguments: Arguments::Value(json!({"who": "example"})),
            status: Status::ProtocolError,
            label: "",
            category: None,
            schema_valid: true,
            method: Method::PromptsGet,
            buggy: vec![
                envelope_error(-32603),
                envelope_result(json!({"description": "x"})),
            ],
            fixed: vec![
                envelope_result(json!({"messages": []})),
                envelope_error(-32602),
            ],
        },
        RegressionRow {
            kind: ItemKind::Resource,
            item: "file:///tmp/a b.txt",
            arguments: Arguments::Omitted,
            status: Status::InvalidResult,
            label: "",
            category: None,
            schema_valid: true,
            method: Method::ResourcesRead,
            buggy: vec![
                envelope_result(json!({"text": "x"})),
                envelope_error(-32603),
            ],
            fixed: vec![
                envelope_result(json!({"contents": []})),
                envelope_error(-32002),
            ],
        },
    ]
}

#[test]
fn regression_tests_load_and_fail_while_the_bug_is_there() {
    let rows: Vec<RegressionRow> = tool_regressions()
        .into_iter()
        .chain(more_regressions())
        .collect();
    let findings: Vec<Finding<'_>> = rows
        .iter()
        .map(|r| Finding {
            kind: r.kind,
            item: r.item,
            arguments: &r.arguments,
            status: r.status,
            detail: "the server exited (exit status 1) before answering\nsecond line",
            label: r.label,
            schema_valid: r.schema_valid,
            output_schema: Some(&REGRESSION_OUTPUT),
            category: r.category,
        })
        .collect();
    let written = probe::regressions(&server(), &findings, "30s");
    let names: Vec<&str> = written.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "regression_add_protocol_error.yaml",
            "regression_add_accepted_invalid.yaml",
            "regression_add_schema_mismatch.yaml",
            "regression_echo_crash.yaml",
            "regression_prompt_greet_protocol_error.yaml",
            "regression_resource_file____tmp_a_b.txt_invalid_result.yaml",
        ]
    );
    assert_eq!(
        written.causes.len(),
        rows.len(),
        "one finding per cause here"
    );
    for cause in &written.causes {
        let row = &rows[cause.findings[0]];
        let file = match &cause.written {
            Ok(name) => written.files.iter().find(|f| &f.name == name).unwrap(),
            Err(why) => {
                // No test: a suite cannot send the input exactly.
                assert!(
                    row.kind != ItemKind::Resource && !probe::regression_exact(&row.arguments),
                    "{}: {why:?}",
                    cause.summary
                );
                assert!(why.0.contains("a suite cannot send"), "{why:?}");
                continue;
            }
        };
        let test = load(file);
        assert!(file.text.contains("#   status: "), "{}", file.text);
        assert!(!file.text.contains("# Note:"), "{}", file.text);
        for b in &row.buggy {
            assert!(
                !passes(&test, &row.method, b.clone()),
                "{}: passes on {b}\n{}",
                file.name,
                file.text
            );
        }
        for x in &row.fixed {
            assert!(
                passes(&test, &row.method, x.clone()),
                "{}: fails on {x}\n{}",
                file.name,
                file.text
            );
        }
    }
    match &load(&written.files[3]).action {
        suite::Action::Tool { args, .. } => {
            assert_eq!(Some(args), rows[3].arguments.as_value().as_ref());
        }
        other => panic!("{other:?}"),
    }
    insta::assert_snapshot!("regression_schema_mismatch", written.files[2].text);
    insta::assert_snapshot!("regression_prompt", written.files[4].text);
}

#[test]
fn a_malformed_tool_result_fails_its_regression_test() {
    let args = Arguments::Value(json!({"a": 1}));
    let f = Finding {
        kind: ItemKind::Tool,
        item: "add",
        arguments: &args,
        status: Status::InvalidResult,
        detail: "`result.isError` is not a boolean",
        label: "",
        schema_valid: true,
        output_schema: None,
        category: None,
    };
    let test = load(&probe::regression_test(&server(), &f, "30s").expect("exact"));
    for bad in [
        json!({"content": [], "isError": "yes"}),
        json!({"content": [{"type": "text"}]}),
        json!({"content": [{"type": "picture", "data": "x"}]}),
        json!({"content": [{"type": "image", "data": "AA=="}]}),
        json!({"content": [], "structuredContent": [1]}),
    ] {
        assert!(
            !passes(&test, &Method::ToolsCall, envelope_result(bad.clone())),
            "passes on {bad}"
        );
    }
    for good in [
        json!({"content": [{"type": "text", "text": "3"}], "isError": false}),
        json!({"content": [{"type": "resource_link", "uri": "a://b", "name": "b"}], "structuredContent": {"x": 1}}),
        json!({"content": [{"type": "text", "text": "no"}], "isError": true}),
    ] {
        assert!(
            passes(&test, &Method::ToolsCall, envelope_result(good.clone())),
            "fails on {good}"
        );
    }
}

#[test]
fn findings_are_grouped_by_cause_and_one_a_suite_cannot_send_is_not_written() {
    // Ten tools answer -32603 for `arguments` null and for `[]` (the SDK's
    // doing, one cause for the server); `lookup` answers -32603 for quotes
    // (two format-breaking cases and a random one: one cause).
    let mut cases: Vec<(String, Arguments, Category)> = Vec::new();
    for i in 0..10 {
        cases.push((
            format!("tool_{i}"),
            Arguments::Null,
            Category::ArgumentsNull,
        ));
        cases.push((
            format!("tool_{i}"),
            Arguments::Value(json!([])),
            Category::ArgumentsWrongType,
        ));
    }
    for (key, category) in [
        ("'", Category::FormatBreaking),
        ("a'b", Category::Random),
        ("<b>", Category::FormatBreaking),
    ] {
        cases.push((
            "lookup".into(),
            Arguments::Value(json!({"key": key})),
            category,
        ));
    }
    let findings: Vec<Finding<'_>> = cases
        .iter()
        .map(|(item, arguments, category)| Finding {
            kind: ItemKind::Tool,
            item,
            arguments,
            status: Status::ProtocolError,
            detail: "JSON-RPC error -32603 (internal error): boom",
            label: "a case",
            schema_valid: arguments.as_value().is_some_and(|v| v.is_object()),
            output_schema: None,
            category: Some(*category),
        })
        .collect();
    let written = probe::regressions(&server(), &findings, "30s");
    assert_eq!(written.causes.len(), 2, "{:?}", written.causes);
    let envelope = &written.causes[0];
    assert_eq!(envelope.findings.len(), 20);
    assert_eq!(
        envelope.summary,
        "protocol_error for `arguments` null or an array, on any tool (20 findings, 10 tools)"
    );
    assert!(
        envelope
            .written
            .as_ref()
            .is_err_and(|why| why.0.contains("a suite cannot send `arguments: null`")),
        "{envelope:?}"
    );
    let lookup = &written.causes[1];
    assert_eq!(lookup.findings, [20, 21, 22]);
    assert_eq!(
        lookup.summary,
        "protocol_error of tool `lookup`: format_breaking inputs (3 findings)"
    );
    assert_eq!(
        lookup.written.as_deref(),
        Ok("regression_lookup_protocol_error.yaml")
    );
    assert_eq!(written.files.len(), 1);
    let text = &written.files[0].text;
    assert!(text.contains("args: {\"key\": \"'\"}"), "{text}");
    assert!(
        text.contains("# The same cause (protocol_error status, the same kind of input) also gave:\n#   tool lookup: a case\n#   tool lookup: a case\n"),
        "{text}"
    );
    load(&written.files[0]);
}

fn probe_nested(depth: usize) -> Value {
    let mut v = json!({});
    for _ in 1..depth {
        v = json!({ "a": v });
    }
    v
}

#[test]
fn regression_servers_keep_secrets_out() {
    let server = Server::Remote {
        transport: "http".into(),
        url: "http://h/mcp".into(),
        headers: vec![
            ("Authorization".into(), "Bearer s3cret".into()),
            ("Accept-Language".into(), "en".into()),
        ],
    };
    let args = Arguments::Value(json!({}));
    let f = Finding {
        kind: ItemKind::Tool,
        item: "t",
        arguments: &args,
        status: Status::Crash,
        detail: "d",
        label: "",
        schema_valid: true,
        output_schema: None,
        category: None,
    };
    let file = probe::regression_test(&server, &f, "1m").expect("exact arguments");
    assert!(!file.text.contains("s3cret"));
    assert!(file.text.contains("${MCPCHECK_HEADER_AUTHORIZATION}"));
    load(&file);
}

/// JSON equality with numbers compared by value (a suite file may read a
/// whole float such as `-7.6e18` back as an integer: the same number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn a_regression_test_for_every_fuzz_case_loads_and_sends_the_case() {
    for tool in corpus() {
        for case in probe::fuzz_cases(&tool, 3, 80) {
            let f = Finding {
                kind: ItemKind::Tool,
                item: name(&tool),
                arguments: &case.arguments,
                status: Status::Crash,
                detail: "the server exited (signal 11) before answering",
                label: &case.label,
                schema_valid: case.schema_valid,
                output_schema: tool.get("outputSchema"),
                category: Some(case.category),
            };
            let file = match probe::regression_test(&server(), &f, "30s") {
                Ok(file) => file,
                Err(why) => {
                    assert!(!probe::regression_exact(&case.arguments), "{why:?}");
                    continue;
                }
            };
            let test = load(&file);
            let suite::Action::Tool { args, .. } = &test.action else {
                panic!("{}", file.text);
            };
            match &case.arguments {
                a if probe::regression_exact(a) => {
                    let sent = a.as_value().unwrap();
                    assert!(same(args, &sent), "{}: {args} / {sent}", case.label);
                }
                Arguments::Value(Value::Object(o)) => {
                    let keys: Vec<&String> = o.keys().collect();
                    let sent: Vec<&String> = args.as_object().unwrap().keys().collect();
                    assert_eq!(sent, keys, "{}", case.label);
                }
                _ => assert_eq!(args, &json!({}), "{}", case.label),
            }
        }
    }
}

/// A findings report in `format`, as the CLI prints it.
fn render(report: &mcpcheck_core::findings::Report, format: Format) -> String {
    mcpcheck_core::findings::render::render(report, format, Paint::Plain).unwrap_or_default()
}
