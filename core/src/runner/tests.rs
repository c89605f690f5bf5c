//! The step machine driven by a scripted "server": each test says what the
//! driver is asked to do and what the verdict is.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::results::TestStatus;
use crate::suite;

fn tests_of(yaml: &str) -> Vec<Test> {
    let loaded = suite::load("suite.yaml", yaml);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    loaded.suite.tests
}

fn result(v: Value) -> Input {
    Input::Reply(Reply {
        result: Some(v),
        ..Reply::default()
    })
}

fn text_result(text: &str) -> Input {
    result(json!({"content": [{"type": "text", "text": text}]}))
}

/// Run `test`, answering each step with the next of `answers`; returns
/// the steps asked for and the completed result.
fn drive(test: &Test, context: Context, answers: Vec<Input>) -> (Vec<Step>, TestResult) {
    let mut run = TestRun::new(test, context);
    if let Some(r) = run.refusal(true) {
        return (Vec::new(), r);
    }
    let mut answers = answers.into_iter();
    let mut steps = Vec::new();
    let mut input = Input::Start;
    loop {
        let step = run.next(input);
        match &step {
            Step::Done(r) => return (steps, run.complete((**r).clone())),
            Step::End(e) => return (steps, run.complete(run.ended(e, e.message()))),
            _ => {}
        }
        steps.push(step);
        input = answers
            .next()
            .expect("the test asked for more steps than scripted");
    }
}

fn sent(steps: &[Step]) -> Vec<(String, Option<Value>)> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Send(r) => Some((r.method.clone(), r.params.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn setup_captures_fill_the_next_request_and_the_answer_is_scored() {
    let tests = tests_of(
        r#"
name: create then read
server: {command: srv}
setup:
  - tool: create
    args: {title: "t"}
    capture: {id: "$.id"}
assert:
  tool: read
  args: {id: "{{id}}"}
  expect:
    contains: ["hello"]
"#,
    );
    let (steps, r) = drive(
        &tests[0],
        Context::default(),
        vec![text_result(r#"{"id": "42"}"#), text_result("hello world")],
    );
    assert_eq!(
        sent(&steps),
        vec![
            (
                "tools/call".to_string(),
                Some(json!({"name": "create", "arguments": {"title": "t"}}))
            ),
            (
                "tools/call".to_string(),
                Some(json!({"name": "read", "arguments": {"id": "42"}}))
            ),
        ]
    );
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");

    let (_, r) = drive(
        &tests[0],
        Context::default(),
        vec![text_result(r#"{"id": "42"}"#), text_result("bye")],
    );
    assert_eq!(r.status, TestStatus::Fail);
}

#[test]
fn a_json_rpc_error_in_setup_fails_the_test_and_a_transport_failure_errors_it() {
    let tests = tests_of(
        r#"
name: t
server: {command: srv}
setup: [{tool: create}]
assert: {tool: read, expect: {not_error: true}}
"#,
    );
    let rpc_error = Input::Reply(Reply {
        error: Some(json!({"code": -32602, "message": "bad"})),
        ..Reply::default()
    });
    let (steps, r) = drive(&tests[0], Context::default(), vec![rpc_error]);
    assert_eq!(steps.len(), 1);
    assert_eq!(r.status, TestStatus::Fail);
    assert!(
        r.message.contains("setup step 1 (`create`)"),
        "{}",
        r.message
    );

    let failure = Input::Reply(Reply {
        failure: Some("the connection closed".into()),
        ..Reply::default()
    });
    let (_, r) = drive(&tests[0], Context::default(), vec![failure]);
    assert_eq!(r.status, TestStatus::Error);
    assert!(r.message.contains("the connection closed"));
}

#[test]
fn skips_and_a_missing_fixture_end_the_test_before_any_step() {
    let tests = tests_of(
        r#"
tests:
  - name: skipped
    server: {command: srv}
    skip: not today
    assert: {tool: a, expect: {not_error: true}}
  - name: needs token
    server: {command: srv}
    skip_unless_env: [TOKEN]
    assert: {tool: a, expect: {not_error: true}}
  - name: fixture
    server: {command: srv}
    assert: {tool: a, args: {p: "{{fixture}}/x"}, expect: {not_error: true}}
"#,
    );
    let run = TestRun::new(&tests[0], Context::default());
    assert_eq!(run.refusal(false).map(|r| r.status), Some(TestStatus::Skip));
    let run = TestRun::new(&tests[1], Context::default());
    assert!(run.refusal(false).unwrap().message.contains("TOKEN"));
    let with_token = Context {
        fallback_env: BTreeMap::from([("TOKEN".to_string(), "x".to_string())]),
        ..Context::default()
    };
    assert!(TestRun::new(&tests[1], with_token).refusal(false).is_none());
    let r = TestRun::new(&tests[2], Context::default())
        .refusal(false)
        .unwrap();
    assert_eq!(
        (r.status, r.message.as_str()),
        (TestStatus::Error, NO_FIXTURE)
    );
}

#[test]
fn notifications_are_collected_from_the_block_and_its_settle_window() {
    let tests = tests_of(
        r#"
name: progress
server: {command: srv}
assert_notifications:
  tool: slow
  expect:
    min_count: 2
"#,
    );
    let note = json!({"method": "notifications/progress", "params": {"progress": 1}});
    let reply = Input::Reply(Reply {
        result: Some(json!({"content": []})),
        notifications: vec![note.clone()],
        ..Reply::default()
    });
    let context = Context {
        default_settle_ms: 250,
        ..Context::default()
    };
    let (steps, r) = drive(
        &tests[0],
        context.clone(),
        vec![reply.clone(), Input::Waited(vec![note.clone()])],
    );
    assert_eq!(steps.last(), Some(&Step::Wait(Wait::For(250))));
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");
    let (_, r) = drive(&tests[0], context, vec![reply, Input::Waited(vec![])]);
    assert_eq!(r.status, TestStatus::Fail);
}

#[test]
fn a_subscription_waits_for_its_update_and_unsubscribes_after() {
    let tests = tests_of(
        r#"
name: updates
server: {command: srv}
assert_resources:
  subscribe: "file://{{fixture}}/a.txt"
  unsubscribe: "file://{{fixture}}/a.txt"
  expect_notification: true
  expect:
    not_error: true
"#,
    );
    let context = Context {
        vars: BTreeMap::from([("fixture".to_string(), "/f".to_string())]),
        ..Context::default()
    };
    let updated =
        json!({"method": "notifications/resources/updated", "params": {"uri": "file:///f/a.txt"}});
    let (steps, r) = drive(
        &tests[0],
        context,
        vec![
            result(json!({})),
            Input::Waited(vec![updated]),
            Input::Reply(Reply::default()),
        ],
    );
    assert_eq!(
        steps[0],
        Step::Send(Request {
            method: "resources/subscribe".into(),
            params: Some(json!({"uri": "file:///f/a.txt"})),
            kind: RequestKind::Subscribe("file:///f/a.txt".into()),
        })
    );
    assert_eq!(
        steps[1],
        Step::Wait(Wait::ResourceUpdated("file:///f/a.txt".into()))
    );
    assert!(
        matches!(&steps[2], Step::Send(r) if r.kind == RequestKind::Unsubscribe("file:///f/a.txt".into()))
    );
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");

    // An update that came with the answer needs no wait.
    let early = Input::Reply(Reply {
        result: Some(json!({})),
        notifications: vec![
            json!({"method": "notifications/resources/updated", "params": {"uri": "file:///f/a.txt"}}),
        ],
        ..Reply::default()
    });
    let context = Context {
        vars: BTreeMap::from([("fixture".to_string(), "/f".to_string())]),
        ..Context::default()
    };
    let (steps, r) = drive(
        &tests[0],
        context,
        vec![early, Input::Reply(Reply::default())],
    );
    assert!(
        !steps.iter().any(|s| matches!(s, Step::Wait(_))),
        "{steps:?}"
    );
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");
}

#[test]
fn a_driver_without_set_level_sends_the_tool_call_or_explains_why_not() {
    let tests = tests_of(
        r#"
tests:
  - name: with tool
    server: {command: srv}
    assert_logging: {set_level: debug, tool: log, expect: {not_error: true}}
  - name: level only
    server: {command: srv}
    assert_logging: {set_level: debug, expect: {not_error: true}}
"#,
    );
    let (steps, r) = drive(
        &tests[0],
        Context::default(),
        vec![Input::NotSent, text_result("ok")],
    );
    assert!(
        matches!(&steps[0], Step::Send(r) if r.kind == RequestKind::SetLogLevel("debug".into()))
    );
    assert_eq!(sent(&steps)[1].0, "tools/call");
    assert_eq!(r.status, TestStatus::Pass);
    let (_, r) = drive(&tests[1], Context::default(), vec![Input::NotSent]);
    assert_eq!(r.status, TestStatus::Error);
    assert!(r.message.contains("2026-07-28"));
    // A refused setLevel is the answer checked.
    let refused = Input::Reply(Reply {
        error: Some(json!({"code": -32601, "message": "no"})),
        ..Reply::default()
    });
    let (steps, r) = drive(&tests[0], Context::default(), vec![refused]);
    assert_eq!(steps.len(), 1);
    assert_eq!(r.status, TestStatus::Fail);
}

#[test]
fn files_are_read_before_and_after_and_unset_env_is_a_warning() {
    let tests = tests_of(
        r#"
name: writes
server: {command: srv}
assert:
  tool: write
  args: {token: "${TOKEN}"}
  expect:
    file_unchanged: "{{fixture}}/keep.txt"
    file_contains: {"{{fixture}}/out.txt": "done"}
"#,
    );
    let context = Context {
        vars: BTreeMap::from([("fixture".to_string(), "/tmp/x".to_string())]),
        ..Context::default()
    };
    let keep = BTreeMap::from([("{{fixture}}/keep.txt".to_string(), Some("same".to_string()))]);
    let mut after = keep.clone();
    after.insert("{{fixture}}/out.txt".into(), Some("done!".into()));
    let (steps, r) = drive(
        &tests[0],
        context,
        vec![Input::Files(keep), text_result("ok"), Input::Files(after)],
    );
    assert_eq!(
        steps[0],
        Step::ReadFiles(vec![(
            "{{fixture}}/keep.txt".into(),
            "/tmp/x/keep.txt".into()
        )])
    );
    assert!(matches!(&steps[2], Step::ReadFiles(list) if list.len() == 2));
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");
    // Tool arguments take `{{var}}` only: `${TOKEN}` is sent as written.
    assert_eq!(
        sent(&steps)[0].1,
        Some(json!({"name": "write", "arguments": {"token": "${TOKEN}"}}))
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn an_unreadable_file_and_an_undefined_variable_are_errors() {
    let tests = tests_of(
        r#"
tests:
  - name: file
    server: {command: srv}
    assert: {tool: w, expect: {file_contains: {"/dev/x": "a"}}}
  - name: var
    server: {command: srv}
    assert: {tool: w, args: {id: "{{fixture}}"}, expect: {not_error: true}}
"#,
    );
    let (_, r) = drive(
        &tests[0],
        Context::default(),
        vec![
            text_result("ok"),
            Input::Unreadable("/dev/x is a device".into()),
        ],
    );
    assert_eq!(
        (r.status, r.message.as_str()),
        (TestStatus::Error, "/dev/x is a device")
    );
    // A variable the driver did not give (here a fixture it claimed to
    // have) ends the test before the request.
    let mut run = TestRun::new(&tests[1], Context::default());
    assert!(run.refusal(true).is_none());
    assert_eq!(
        run.next(Input::Start),
        Step::End(Ending::Error(NO_FIXTURE.into()))
    );
}

#[test]
fn mocks_answer_the_servers_questions_and_input_required_rounds() {
    let tests = tests_of(
        r#"
name: asks
server:
  command: srv
  client_capabilities:
    roots: ["/srv/data"]
    elicitation: {action: accept, content: {name: "{{who}}"}}
assert: {tool: ask, expect: {not_error: true}}
"#,
    );
    let mut run = TestRun::new(
        &tests[0],
        Context {
            vars: BTreeMap::from([("who".to_string(), "Ada".to_string())]),
            ..Context::default()
        },
    );
    let mocks = run.mocks();
    assert_eq!(
        mocks.capabilities(),
        json!({"roots": {"listChanged": false}, "elicitation": {}})
    );
    assert_eq!(
        mocks.answer("roots/list", &Value::Null).unwrap(),
        json!({"roots": [{"uri": "file:///srv/data", "name": "data"}]})
    );
    assert!(
        mocks
            .answer("sampling/createMessage", &Value::Null)
            .unwrap_err()
            .to_string()
            .contains("client_capabilities.sampling")
    );
    let next = mocks
        .input_retry(
            Some(&json!({"name": "ask", "arguments": {}})),
            &json!({"resultType": "input_required", "requestState": "s1",
                "inputRequests": {"q": {"method": "elicitation/create", "params": {}}}}),
        )
        .unwrap();
    assert_eq!(
        next,
        json!({"name": "ask", "arguments": {}, "requestState": "s1",
            "inputResponses": {"q": {"action": "accept", "content": {"name": "Ada"}}}})
    );
}

#[test]
fn an_inline_trajectory_needs_no_server_and_an_audit_log_is_read() {
    let tests = tests_of(
        r#"
tests:
  - name: inline
    trace:
      - {tool: search}
      - {tool: read}
    trajectory:
      - type: order
        tools: [search, read]
  - name: log
    audit_log: "{{fixture}}/audit.jsonl"
    trajectory:
      - type: presence
        tools: [search]
"#,
    );
    let (steps, r) = drive(&tests[0], Context::default(), vec![]);
    assert!(steps.is_empty());
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");
    let context = Context {
        vars: BTreeMap::from([("fixture".to_string(), "/logs".to_string())]),
        ..Context::default()
    };
    let log = r#"{"tool": "search", "args": {}}"#;
    let (steps, r) = drive(
        &tests[1],
        context,
        vec![Input::Trace {
            file: "/logs/audit.jsonl".into(),
            text: Some(log.into()),
        }],
    );
    assert_eq!(steps, vec![Step::ReadTrace("/logs/audit.jsonl".into())]);
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");
}

#[test]
fn a_wrong_kind_of_input_is_an_error_not_a_panic() {
    let tests =
        tests_of("name: t\nserver: {command: srv}\nassert: {tool: a, expect: {not_error: true}}\n");
    let mut run = TestRun::new(&tests[0], Context::default());
    assert!(matches!(run.next(Input::Start), Step::Send(_)));
    assert!(matches!(
        run.next(Input::Waited(vec![])),
        Step::End(Ending::Error(_))
    ));
    // And nothing after the end.
    assert!(matches!(run.next(Input::Start), Step::End(_)));
}

#[test]
fn a_suite_for_a_given_client_needs_no_server() {
    let yaml = "name: t\nassert: {tool: echo, args: {message: hi}, expect: {contains: [hi]}}\n";
    assert!(suite::load("suite.yaml", yaml).has_errors());
    let loaded = suite::load_for_client("suite.yaml", yaml);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let test = &loaded.suite.tests[0];
    // A driver that was given no client ends the test; one that was sends
    // the request.
    let mut run = TestRun::new(test, Context::default());
    assert_eq!(
        run.next(Input::Start),
        Step::End(Ending::Error("this test has no server".into()))
    );
    let given = Context {
        client_given: true,
        ..Context::default()
    };
    let (steps, r) = drive(test, given, vec![text_result("hi there")]);
    assert_eq!(sent(&steps)[0].0, "tools/call");
    assert_eq!(r.status, TestStatus::Pass, "{r:?}");
}

#[test]
fn a_test_without_a_server_still_answers_sampling_from_its_block() {
    let yaml = "name: t\nassert_sampling:\n  tool: sample\n  mock_text: Paris\n  mock_model: m\n  expect: {equals: Paris}\n";
    let loaded = suite::load_for_client("suite.yaml", yaml);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let mut run = TestRun::new(&loaded.suite.tests[0], Context::default());
    let mocks = run.mocks();
    assert_eq!(mocks.capabilities(), json!({"sampling": {}}));
    assert_eq!(
        mocks.answer("sampling/createMessage", &json!({})).ok(),
        Some(
            json!({"role": "assistant", "content": {"type": "text", "text": "Paris"},
            "model": "m", "stopReason": "end_turn"})
        )
    );
    // Roots and elicitation have no answer without a server block to
    // declare them.
    assert!(mocks.answer("roots/list", &Value::Null).is_err());
}

#[test]
fn an_answer_that_is_not_a_json_rpc_response_is_a_protocol_error() {
    let tests = tests_of(
        "name: t\nserver: {command: srv}\nsetup:\n  - tool: prepare\nassert: {tool: echo, expect: {not_error: true}}\n",
    );
    let reply = |result: Option<Value>, error: Option<Value>| {
        Input::Reply(Reply {
            result,
            error,
            ..Reply::default()
        })
    };
    for (answer, says) in [
        (
            reply(Some(Value::Null), None),
            "its `result` is null, not an object",
        ),
        (
            reply(Some(json!("hi")), None),
            "its `result` is a string, not an object",
        ),
        (reply(None, Some(json!(7))), "its `error` is a number"),
        (reply(None, None), "neither a `result` nor an `error`"),
    ] {
        // In setup and in the block alike: the test errors, naming the method.
        let (_, r) = drive(&tests[0], Context::default(), vec![answer.clone()]);
        assert_eq!(r.status, TestStatus::Error, "{r:?}");
        assert!(
            r.message
                .contains("protocol error: the answer to tools/call")
                && r.message.contains(says),
            "{}",
            r.message
        );
        let (_, r) = drive(
            &tests[0],
            Context::default(),
            vec![text_result("ready"), answer],
        );
        assert_eq!(r.status, TestStatus::Error, "{r:?}");
        assert!(r.message.contains(says), "{}", r.message);
    }
}
