//! End-to-end tests of `mcpcheck run` against `mcpcheck serve`: every block,
//! every fault, every transport, fixtures, hooks, captures, ordering, exit
//! codes — the real binary on real suites.

mod cli_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cli_support::{BIN, http_serve, mcpcheck, outcome, request_methods, scratch, write};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `mcpcheck run ARGS`: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    cli_support::run_mcpcheck(&[&["run"], args].concat())
}

/// A server block for `mcpcheck serve ARGS…`.
fn serve(args: &str) -> String {
    format!(
        "server:\n  command: {}\n  args: [serve{}]\n",
        BIN,
        if args.is_empty() {
            String::new()
        } else {
            format!(", {args}")
        }
    )
}

#[test]
fn the_examples_pass_in_suite_order() {
    let examples = root().join("examples/serve");
    let server = format!("{} serve", BIN);
    let (code, out, err) = run(&[
        "--suite",
        examples.to_str().unwrap(),
        "--server",
        &server,
        "--jobs",
        "8",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let names: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("PASS"))
        .map(|l| l[6..].rsplit_once(" (").map_or(l, |(n, _)| n))
        .collect();
    let mut files: Vec<_> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(names.len(), files.len(), "{out}");
    // The first example alphabetically is add.yaml; order is the files' order.
    assert_eq!(names[0], "add sums two numbers", "{out}");
    assert!(
        out.contains(&format!("{} tests: {} passed", files.len(), files.len())),
        "{out}"
    );
}

#[test]
fn every_block_reports_its_failures() {
    let d = scratch("blocks-fail");
    let s = serve("");
    write(
        &d,
        "a_tool.yaml",
        &format!(
            "name: tool\n{s}assert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    contains: [bye]\n    equals: hello\n"
        ),
    );
    write(
        &d,
        "b_prompts.yaml",
        &format!(
            "name: prompts\n{s}assert_prompts:\n  get: {{name: greeting, arguments: {{name: Ada}}}}\n  expect:\n    contains: [Grace]\n"
        ),
    );
    write(
        &d,
        "c_resources.yaml",
        &format!(
            "name: resources\n{s}assert_resources:\n  read: mcpcheck://static/text\n  expect:\n    not_contains: [never]\n"
        ),
    );
    write(
        &d,
        "d_completion.yaml",
        &format!(
            "name: completion\n{s}assert_completion:\n  ref: {{type: ref/prompt, name: greeting}}\n  argument: {{name: style, value: p}}\n  expect:\n    contains: [formal]\n"
        ),
    );
    write(
        &d,
        "e_sampling.yaml",
        &format!(
            "name: sampling\n{s}assert_sampling:\n  tool: sample\n  mock_text: Rome\n  expect:\n    equals: Paris\n"
        ),
    );
    write(
        &d,
        "f_logging.yaml",
        &format!(
            "name: logging\n{s}assert_logging:\n  set_level: error\n  tool: log\n  args: {{level: info, message: quiet}}\n  expect:\n    min_messages: 1\n"
        ),
    );
    write(
        &d,
        "g_notifications.yaml",
        &format!(
            "name: notifications\n{s}assert_notifications:\n  tool: progress\n  args: {{steps: 2, delay_ms: 1}}\n  expect:\n    min_count: 5\n"
        ),
    );
    write(
        &d,
        "h_trajectory.yaml",
        "name: trajectory\ntrace: [{tool: a}, {tool: b}]\ntrajectory:\n  - {type: order, tools: [b, a]}\n",
    );
    write(
        &d,
        "i_progress.yaml",
        &format!(
            "name: progress\n{s}assert:\n  tool: progress\n  args: {{steps: 2, delay_ms: 1}}\n  expect:\n    min_progress: 3\n"
        ),
    );
    let (code, out, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    for needle in [
        "FAIL  tool",
        "expected text to contain 'bye'",
        "expected exact match: want 'hello', got 'hi'",
        "FAIL  prompts",
        "expected text to contain 'Grace'",
        "FAIL  resources",
        "expected text NOT to contain 'never'",
        "FAIL  completion",
        "FAIL  sampling",
        "want 'Paris', got 'Rome'",
        "FAIL  logging",
        "expected at least 1 log message(s), got 0",
        "FAIL  notifications",
        "expected at least 5 notification(s), got 2",
        "FAIL  trajectory",
        "order: found 'b' but 'a' did not follow",
        "FAIL  progress",
        "expected at least 3 progress notification(s), got 2",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
    assert!(out.contains("9 tests: 0 passed, 9 failed"), "{out}");
}

#[test]
fn a_test_without_expect_fails_on_a_json_rpc_error() {
    let d = scratch("no-expect");
    let s = serve("");
    write(
        &d,
        "a.yaml",
        &format!("name: unknown tool\n{s}assert: {{tool: no_such_tool}}\n"),
    );
    write(
        &d,
        "b.yaml",
        &format!("name: unknown prompt\n{s}assert_prompts: {{get: {{name: no_such_prompt}}}}\n"),
    );
    write(
        &d,
        "c.yaml",
        &format!("name: answered\n{s}assert: {{tool: echo, args: {{message: hi}}}}\n"),
    );
    let (code, out, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    for needle in [
        "FAIL  unknown tool",
        "the server answered with JSON-RPC error -32602: unknown tool `no_such_tool`",
        "FAIL  unknown prompt",
        "PASS  answered",
        "3 tests: 1 passed, 2 failed",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
}

#[test]
fn assert_logging_without_a_tool_observes_the_set_level_answer() {
    // The answer is a logging/setLevel result, not a tools/call one: it gains
    // no `isError`, and its text is the result as JSON.
    let d = scratch("logging-no-tool");
    let s = serve("");
    write(
        &d,
        "a.yaml",
        &format!(
            "name: set level only\n{s}assert_logging:\n  set_level: info\n  expect:\n    - {{target: result, matcher: {{exact: {{}}}}}}\n    - {{target: text, matcher: {{equals: \"{{}}\"}}}}\n"
        ),
    );
    write(
        &d,
        "b.yaml",
        &format!(
            "name: with a tool\n{s}assert_logging:\n  set_level: info\n  tool: log\n  args: {{level: warning, message: hi}}\n  expect:\n    - {{target: result.isError, matcher: {{exact: false}}}}\n    - {{target: text, matcher: {{equals: logged at warning}}}}\n"
        ),
    );
    let (code, out, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("2 tests: 2 passed"), "{out}");
}

#[test]
fn expect_notification_fails_when_no_update_arrives() {
    // `mcpcheck serve` updates `mcpcheck://calls` only on a tools/call, and
    // `static/text` never: subscribing alone brings no update.
    let d = scratch("expect-notification");
    let s = serve("");
    write(
        &d,
        "a.yaml",
        &format!(
            "name: static\n{s}assert_resources: {{read: \"mcpcheck://static/text\", subscribe: \"mcpcheck://static/text\", expect_notification: true}}\ntimeout: 1s\n"
        ),
    );
    // The URI looked for is the one sent, after templates.
    write(
        &d,
        "b.yaml",
        &format!(
            "name: templated\n{s}setup:\n  - tool: echo\n    args: {{message: '{{\"u\": \"mcpcheck://calls\"}}'}}\n    capture: {{u: $.u}}\nassert_resources:\n  subscribe: \"{{{{u}}}}\"\n  expect_notification: true\ntimeout: 1s\n"
        ),
    );
    // A refused subscription is the answer checked, without waiting for an
    // update that cannot come.
    write(
        &d,
        "c.yaml",
        &format!(
            "name: refused\n{s}assert_resources: {{subscribe: \"mcpcheck://nope\", expect_notification: true}}\ntimeout: 20s\n"
        ),
    );
    // `false` adds no check.
    write(
        &d,
        "d.yaml",
        &format!(
            "name: not expected\n{s}assert_resources: {{read: \"mcpcheck://static/text\", subscribe: \"mcpcheck://static/text\", expect_notification: false}}\n"
        ),
    );
    let started = Instant::now();
    let (code, out, err) = run(&["--suite", d.to_str().unwrap(), "--jobs", "4"]);
    assert!(started.elapsed() < Duration::from_secs(10), "{out}");
    assert_eq!(code, Some(1), "{out}\n{err}");
    for needle in [
        "FAIL  static",
        "expected a resources/updated notification for mcpcheck://static/text, none arrived",
        "FAIL  templated",
        "expected a resources/updated notification for mcpcheck://calls, none arrived",
        "FAIL  refused",
        "the server answered with JSON-RPC error -32002",
        "PASS  not expected",
        "4 tests: 1 passed, 3 failed",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
}

#[test]
fn every_fault_ends_as_error_and_the_run_goes_on() {
    let d = scratch("faults");
    let cases = [
        ("crash-on-call", "the server exited with status 70"),
        ("hang-on-initialize", "did not answer initialize in time"),
        ("hang-on-call", "no answer to tools/call in time"),
        ("garbage-stdout", "not JSON-RPC"),
        ("wrong-id", "matches no open request"),
        ("result-and-error", "both `result` and `error`"),
    ];
    for (fault, _) in cases {
        write(
            &d,
            &format!("{fault}.yaml"),
            &format!(
                "name: {fault}\n{}timeout: 2s\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    contains: [hi]\n",
                serve(&format!("--fault, {fault}"))
            ),
        );
    }
    write(
        &d,
        "string-error-code.yaml",
        &format!(
            "name: string-error-code\n{}timeout: 2s\nassert:\n  tool: no_such_tool\n  expect:\n    is_error: true\n",
            serve("--fault, string-error-code")
        ),
    );
    write(
        &d,
        "zz-healthy.yaml",
        &format!(
            "name: healthy after faults\n{}assert:\n  tool: echo\n  args: {{message: ok}}\n  expect:\n    equals: ok\n",
            serve("")
        ),
    );
    let started = Instant::now();
    let (code, out, err) = run(&["--suite", d.to_str().unwrap(), "--jobs", "8"]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    for (fault, message) in cases {
        let block = out
            .split(&format!("ERROR {fault} ("))
            .nth(1)
            .unwrap_or_else(|| panic!("{fault} is not an error:\n{out}"));
        let block = block
            .split("\nPASS")
            .next()
            .unwrap_or(block)
            .split("\nERROR")
            .next()
            .unwrap_or(block);
        assert!(
            block.contains(message),
            "{fault}: expected {message:?} in:\n{block}"
        );
        // A test cut by its timeout names it, and how to change it (a wrong id
        // leaves the call unanswered too).
        let hint =
            "(the test's timeout of 2s ran out: raise it with `timeout:` in the test or --timeout)";
        assert_eq!(
            block.contains(hint),
            matches!(fault, "hang-on-initialize" | "hang-on-call" | "wrong-id"),
            "{fault}: the timeout hint in:\n{block}"
        );
    }
    assert!(out.contains("ERROR string-error-code ("), "{out}");
    assert!(out.contains("the error code is not an integer"), "{out}");
    assert!(out.contains("PASS  healthy after faults"), "{out}");
    assert!(
        out.contains("server stderr:"),
        "crash detail carries the stderr tail:\n{out}"
    );
    // Hangs are cut at the test timeout (2 s), in parallel.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
}

fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(marker) && !text.contains("mcpcheck run") {
            found.push(text);
        }
    }
    found
}

#[test]
fn no_process_outlives_a_timed_out_test() {
    let d = scratch("orphans");
    // The server forks a grandchild and then hangs: killing only the direct
    // child would leave `sleep` behind.
    let marker = format!(
        "{}.{}",
        4000 + std::process::id() % 1000,
        std::process::id()
    );
    let script = format!("sleep {marker} & exec {} serve --fault hang-on-call", BIN);
    write(
        &d,
        "hang.yaml",
        &format!(
            "name: hang\nserver:\n  command: sh\n  args: [-c, \"{script}\"]\ntimeout: 1s\nassert:\n  tool: echo\n  args: {{message: x}}\n"
        ),
    );
    let (code, out, _) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("ERROR hang"), "{out}");
    // Give the kernel a moment to reap.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        processes_with(&marker).is_empty(),
        "left behind: {:?}",
        processes_with(&marker)
    );
}

#[test]
fn fixtures_are_copied_per_test_and_originals_stay_untouched() {
    let d = scratch("fixture");
    let fixture = d.join("data");
    write(&fixture, "hello.txt", "original\n");
    let suite = d.join("suite");
    // The "server" rewrites the fixture copy before serving, as a real
    // server's tool would.
    let server = |cmd: &str| {
        format!(
            "server:\n  command: sh\n  args: [-c, \"{cmd}; exec {} serve\"]\n",
            BIN
        )
    };
    write(
        &suite,
        "a.yaml",
        &format!(
            "name: writes its copy\n{}assert:\n  tool: echo\n  args: {{message: \"{{{{fixture}}}}\"}}\n  expect:\n    file_contains:\n      \"{{{{fixture}}}}/hello.txt\": changed\n    file_not_exists: [\"{{{{fixture}}}}/absent.txt\"]\n    file_unchanged: [\"{{{{fixture}}}}/new.txt\"]\n",
            server("echo changed > {{fixture}}/hello.txt; echo n > {{fixture}}/new.txt")
        ),
    );
    write(
        &suite,
        "b.yaml",
        &format!(
            "name: sees a fresh copy\n{}assert:\n  tool: echo\n  args: {{message: x}}\n  expect:\n    file_contains:\n      \"{{{{fixture}}}}/hello.txt\": original\n    file_not_exists: [\"{{{{fixture}}}}/new.txt\"]\n",
            server("true")
        ),
    );
    let (code, out, err) = run(&[
        "--suite",
        suite.to_str().unwrap(),
        "--fixture",
        fixture.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert_eq!(
        std::fs::read_to_string(fixture.join("hello.txt")).unwrap(),
        "original\n"
    );
    assert!(!fixture.join("new.txt").exists());

    // Without --fixture, a test that uses it is an error that says so.
    let (code, out, _) = run(&["--suite", suite.join("b.yaml").to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(out.contains("no --fixture directory was given"), "{out}");
}

#[test]
fn setup_captures_feed_later_calls() {
    let d = scratch("setup");
    write(
        &d,
        "t.yaml",
        &format!(
            "name: capture\n{}setup:\n  - tool: structured\n    args: {{city: Oslo}}\n    capture:\n      city: \"$.city\"\n  - tool: fail\nassert:\n  tool: echo\n  args: {{message: \"city={{{{city}}}}\"}}\n  expect:\n    equals: city=Oslo\n",
            serve("")
        ),
    );
    let (code, out, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    // A setup step returning isError is a warning, not a failure.
    assert!(out.contains("PASS  capture"), "{out}");

    write(
        &d,
        "t.yaml",
        &format!(
            "name: setup error\n{}setup:\n  - tool: no_such_tool\nassert:\n  tool: echo\n  args: {{message: x}}\n",
            serve("")
        ),
    );
    let (code, out, _) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(out.contains("FAIL  setup error"), "{out}");
    assert!(
        out.contains("setup step 1 (`no_such_tool`) failed with JSON-RPC error"),
        "{out}"
    );
}

#[test]
fn skips_and_filters() {
    let d = scratch("skip");
    let s = serve("");
    write(
        &d,
        "a.yaml",
        &format!("name: always skipped\n{s}skip: true\nassert:\n  tool: echo\n"),
    );
    write(
        &d,
        "b.yaml",
        &format!(
            "name: needs a token\n{s}skip_unless_env: MCPCHECK_TEST_UNSET_VAR\nassert:\n  tool: echo\n"
        ),
    );
    write(
        &d,
        "c.yaml",
        &format!("name: runs\n{s}assert:\n  tool: echo\n  args: {{message: x}}\n"),
    );
    let (code, out, _) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("SKIP  always skipped — skip: true"), "{out}");
    assert!(
        out.contains("SKIP  needs a token — skip_unless_env: MCPCHECK_TEST_UNSET_VAR is not set"),
        "{out}"
    );
    assert!(out.contains("3 tests: 1 passed, 2 skipped"), "{out}");

    let (code, out, _) = run(&["--suite", d.to_str().unwrap(), "--filter", "ru*"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("1 test: 1 passed"), "{out}");
    let (code, _, err) = run(&["--suite", d.to_str().unwrap(), "--filter", "nothing*"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no tests to run"), "{err}");
}

#[test]
fn json_results_document() {
    let d = scratch("json");
    let s = serve("");
    write(
        &d,
        "a.yaml",
        &format!(
            "name: ok\n{s}assert:\n  tool: echo\n  args: {{message: x}}\n  expect:\n    equals: x\n"
        ),
    );
    write(
        &d,
        "b.yaml",
        &format!(
            "name: bad\n{s}assert:\n  tool: echo\n  args: {{message: x}}\n  expect:\n    contains: [y, z]\n"
        ),
    );
    let (code, out, _) = run(&["--suite", d.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["version"], 1);
    assert_eq!(v["summary"]["total"], 2);
    assert_eq!(v["summary"]["failed"], 1);
    assert_eq!(v["tests"][0]["name"], "ok");
    assert_eq!(v["tests"][0]["status"], "pass");
    assert_eq!(v["tests"][1]["status"], "fail");
    let failing: Vec<_> = v["tests"][1]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .collect();
    assert_eq!(failing.len(), 2, "every failing check is reported");
    assert!(v["tests"][1]["file"].as_str().unwrap().ends_with("b.yaml"));
}

#[test]
fn bad_suites_exit_2_before_running_anything() {
    let d = scratch("bad-suite");
    write(
        &d,
        "a.yaml",
        "name: x\nserver: {command: node}\nassert:\n  tool: echo\n  expect: {not_eror: true}\n",
    );
    let (code, _, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("did you mean `not_error`?"), "{err}");
}

#[test]
fn captures_record_the_wire() {
    let d = scratch("capture");
    let cap = d.join("captures");
    write(
        &d,
        "s/a.yaml",
        &format!(
            "name: garbage\n{}assert:\n  tool: echo\n  args: {{message: x}}\n",
            serve("--fault, garbage-stdout")
        ),
    );
    let (code, out, _) = run(&[
        "--suite",
        d.join("s").to_str().unwrap(),
        "--capture",
        cap.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}");
    let text = std::fs::read_to_string(cap.join("garbage.json")).unwrap();
    let c: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(c["exchanges"][0]["request"]["method"], "initialize");
    assert!(c["server_capabilities"]["tools"].is_object(), "{c}");
    assert_eq!(c["transport"], "stdio");
    assert!(
        text.contains("garbage-stdout fault: this line is not JSON-RPC"),
        "the raw line is kept:\n{text}"
    );
    let call = c["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["request"]["method"] == "tools/call")
        .unwrap();
    assert_eq!(call["response"]["result"]["content"][0]["text"], "x");
}

#[test]
fn streamable_http_and_legacy_sse_transports() {
    let server = http_serve(&["--bearer", "s3cret"]);
    let sse_url = server.url.replace("/mcp", "/sse");
    let d = scratch("http");
    let block = "assert:\n  tool: whoami\n  expect:\n    equals: bearer#1\n";
    write(
        &d,
        "a_http.yaml",
        &format!(
            "name: http\nserver:\n  transport: http\n  url: {}\n  headers:\n    Authorization: \"Bearer ${{MCPCHECK_TEST_TOKEN}}\"\n{block}",
            server.url
        ),
    );
    write(
        &d,
        "b_sse.yaml",
        &format!(
            "name: sse\nserver:\n  transport: sse\n  url: {sse_url}\n  headers:\n    Authorization: \"Bearer ${{MCPCHECK_TEST_TOKEN}}\"\n{block}"
        ),
    );
    write(
        &d,
        "c_progress.yaml",
        &format!(
            "name: http progress\nserver:\n  transport: http\n  url: {}\n  headers: {{Authorization: Bearer s3cret}}\nassert:\n  tool: progress\n  args: {{steps: 3, delay_ms: 1}}\n  expect:\n    min_progress: 3\n",
            server.url
        ),
    );
    write(
        &d,
        "d_sampling.yaml",
        &format!(
            "name: http sampling\nserver:\n  transport: http\n  url: {}\n  headers: {{Authorization: Bearer s3cret}}\nassert_sampling:\n  tool: sample\n  mock_text: Lisbon\n  expect:\n    equals: Lisbon\n",
            server.url
        ),
    );
    let o = mcpcheck()
        .args(["run", "--suite", d.to_str().unwrap()])
        .env("MCPCHECK_TEST_TOKEN", "s3cret")
        .output()
        .unwrap();
    let (code, out, err) = outcome(&o);
    assert_eq!(code, Some(0), "{out}\n{err}");

    // Without the credential, the 401 is reported.
    let o = mcpcheck()
        .args(["run", "--suite", d.join("a_http.yaml").to_str().unwrap()])
        .env("MCPCHECK_TEST_TOKEN", "wrong")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("401"), "{out}");
}

#[test]
fn a_url_given_the_other_transport_says_which_one_to_use() {
    let server = http_serve(&[]);
    let sse_url = server.url.replace("/mcp", "/sse");
    let d = scratch("mixup");
    let block = "assert:\n  tool: echo\n  args: {message: hi}\n  expect:\n    contains: [hi]\n";
    // The legacy SSE endpoint asked for Streamable HTTP, and the other way round.
    write(
        &d,
        "a.yaml",
        &format!("name: a\nserver:\n  transport: http\n  url: {sse_url}\n{block}"),
    );
    write(
        &d,
        "b.yaml",
        &format!(
            "name: b\nserver:\n  transport: sse\n  url: {}\n{block}",
            server.url
        ),
    );
    let (code, out, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(
        out.contains("405") && out.contains("use the `sse` transport"),
        "{out}"
    );
    assert!(
        out.contains("400") && out.contains("use the `http` transport"),
        "{out}"
    );
}

#[test]
fn hooks_bracket_tests_and_can_skip_or_fail_them() {
    let d = scratch("hooks");
    let log = d.join("hooks.log");
    let hook = write(
        &d,
        "hook.sh",
        &format!(
            "#!/bin/sh\n# Appends the phase and test name; a context hook answers with a patch.\nread -r ctx\necho \"$MCPCHECK_HOOK_PHASE $ctx\" >> {}\ncase \"$ctx\" in *'\"name\":\"skip me\"'*) echo '{{\"skip\": {{\"reason\": \"hook says no\"}}}}';; esac\n",
            log.display()
        ),
    );
    let plain = write(
        &d,
        "plain.sh",
        &format!(
            "#!/bin/sh\necho \"plain $MCPCHECK_HOOK_PHASE\" >> {}\n",
            log.display()
        ),
    );
    let fail = write(&d, "fail.sh", "#!/bin/sh\necho 'seed failed' >&2\nexit 3\n");
    for p in [&hook, &plain, &fail] {
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(p)
            .status()
            .unwrap();
    }
    let s = serve("");
    let suite = format!(
        "name: hooked\n{}hooks:\n  beforeAll: {}\n  beforeEach:\n    - command: {}\n      mode: context\n  afterEach: {}\n  afterAll: {}\ntests:\n  - name: first\n    tool: echo\n    args: {{message: a}}\n    expect: {{equals: a}}\n  - name: skip me\n    tool: echo\n  - name: third\n    tool: echo\n    args: {{message: c}}\n",
        s,
        plain.display(),
        hook.display(),
        plain.display(),
        plain.display()
    );
    // `server:` at the top of a composed file is the default server.
    write(&d, "suite/suite.yaml", &suite);
    let (code, out, err) = run(&["--suite", d.join("suite").to_str().unwrap(), "--jobs", "4"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("SKIP  skip me — hook says no"), "{out}");
    // Each line: the phase, then (for context hooks) the JSON context.
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| match l.split_once(' ') {
            Some((phase, json)) if json.starts_with('{') => {
                let v: serde_json::Value = serde_json::from_str(json).unwrap();
                assert_eq!(v["phase"], phase);
                assert_eq!(v["suite"]["name"], "hooked");
                assert!(v["result"].is_null());
                format!("{phase} {}", v["test"]["name"].as_str().unwrap())
            }
            _ => l.to_string(),
        })
        .collect();
    assert_eq!(
        lines,
        [
            "plain beforeAll",
            "beforeEach first",
            "plain afterEach",
            "beforeEach skip me",
            "plain afterEach",
            "beforeEach third",
            "plain afterEach",
            "plain afterAll",
        ]
    );

    // A failing beforeAll fails every test without running it.
    std::fs::remove_file(&log).unwrap();
    let failing = suite.replacen(
        &format!("beforeAll: {}", plain.display()),
        &format!("beforeAll: {}", fail.display()),
        1,
    );
    write(&d, "suite/suite.yaml", &failing);
    let (code, out, _) = run(&["--suite", d.join("suite").to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(out.matches("FAIL  ").count(), 3, "{out}");
    assert!(out.contains("beforeAll hook"), "{out}");
    assert!(out.contains("exited with status 3: seed failed"), "{out}");
}

#[test]
fn ci_fails_on_a_regression_and_passes_within_a_threshold() {
    let d = scratch("ci");
    let s = serve("");
    let suite = d.join("suite");
    write(
        &suite,
        "a.yaml",
        &format!(
            "name: steady\n{s}assert:\n  tool: echo\n  args: {{message: a}}\n  expect: {{equals: a}}\n"
        ),
    );
    write(
        &suite,
        "b.yaml",
        &format!(
            "name: flaky\n{s}assert:\n  tool: echo\n  args: {{message: b}}\n  expect: {{equals: b}}\n"
        ),
    );
    let base = d.join("baseline.json");
    let summary = d.join("summary.md");
    let ci = |extra: &[&str]| {
        let o = mcpcheck()
            .args(["ci", "--suite", suite.to_str().unwrap()])
            .args(extra)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        (
            o.status.code(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        )
    };
    let (code, out) = ci(&[
        "--save-baseline",
        base.to_str().unwrap(),
        "--junit",
        d.join("j.xml").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        std::fs::read_to_string(&summary)
            .unwrap()
            .contains("all 2 tests passed")
    );
    assert!(
        std::fs::read_to_string(d.join("j.xml"))
            .unwrap()
            .contains("<testcase name=\"flaky\"")
    );

    // The flaky test now fails.
    write(
        &suite,
        "b.yaml",
        &format!(
            "name: flaky\n{s}assert:\n  tool: echo\n  args: {{message: b}}\n  expect: {{equals: c}}\n"
        ),
    );
    let (code, out) = ci(&[
        "--baseline",
        base.to_str().unwrap(),
        "--fail-on-regression",
        "--threshold",
        "50",
    ]);
    assert_eq!(
        code,
        Some(1),
        "a regression fails even within the threshold:\n{out}"
    );
    assert!(out.contains("regress"), "{out}");
    let (code, out) = ci(&["--baseline", base.to_str().unwrap(), "--threshold", "50"]);
    assert_eq!(code, Some(0), "1 of 2 passed meets 50%:\n{out}");
    let (code, out) = ci(&[]);
    assert_eq!(
        code,
        Some(1),
        "without a threshold every test must pass:\n{out}"
    );
}

#[test]
fn trials_report_pass_at_k_and_pass_hat_k() {
    let d = scratch("trials");
    write(
        &d,
        "a.yaml",
        &format!(
            "name: stable\n{}assert:\n  tool: echo\n  args: {{message: a}}\n  expect: {{equals: a}}\n",
            serve("")
        ),
    );
    let (code, out, err) = run(&["--suite", d.to_str().unwrap(), "--trials", "3", "--json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tests"][0]["trials"]["count"], 3);
    assert_eq!(v["tests"][0]["trials"]["pass_at_k"], true);
    assert_eq!(v["tests"][0]["trials"]["pass_hat_k"], true);
    assert_eq!(v["reliability"]["trials"], 3);
}

#[test]
fn share_server_runs_a_files_tests_on_one_session() {
    let d = scratch("share");
    let cap = d.join("captures");
    let server = serve("");
    // `add_tool` names its tools dynamic_1, dynamic_2, … per session, so the
    // names tell which tests shared a server.
    write(
        &d,
        "s/shared.yaml",
        &format!(
            "share_server: true\n{server}tests:\n  - name: first\n    tool: add_tool\n    expect: {{equals: added tool dynamic_1}}\n  - name: second\n    tool: add_tool\n    expect: {{equals: added tool dynamic_2}}\n  - name: hangs\n    tool: slow\n    args: {{ms: 5000}}\n    timeout: 1s\n  - name: fresh\n    tool: add_tool\n    expect: {{equals: added tool dynamic_1}}\n"
        ),
    );
    write(
        &d,
        "s/separate.yaml",
        &format!(
            "{server}tests:\n  - name: own-a\n    tool: add_tool\n    expect: {{equals: added tool dynamic_1}}\n  - name: own-b\n    tool: add_tool\n    expect: {{equals: added tool dynamic_1}}\n"
        ),
    );
    let (code, out, err) = run(&[
        "--suite",
        d.join("s").to_str().unwrap(),
        "--jobs",
        "8",
        "--capture",
        cap.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    for pass in ["first", "second", "fresh", "own-a", "own-b"] {
        assert!(out.contains(&format!("PASS  {pass} (")), "{pass}:\n{out}");
    }
    // The hang ends as an error, and the next test gets a new server.
    assert!(out.contains("ERROR hangs ("), "{out}");
    assert!(out.contains("6 tests: 5 passed, 1 error"), "{out}");

    // Each test's capture: the shared handshake, then its own exchanges only;
    // a valid session for the invariants.
    let path = cap.join("second.json");
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let methods = request_methods(&c);
    assert_eq!(methods.first(), Some(&"initialize"), "{c}");
    let calls: Vec<_> = c["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["request"]["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 1, "{c}");
    assert_eq!(
        calls[0]["response"]["result"]["content"][0]["text"],
        "added tool dynamic_2"
    );
    let inv = mcpcheck()
        .args(["invariants", "--capture", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        inv.status.success(),
        "{}",
        String::from_utf8_lossy(&inv.stdout)
    );
}

#[test]
fn share_server_is_a_boolean() {
    let d = scratch("share-bad");
    write(
        &d,
        "bad.yaml",
        &format!(
            "share_server: yes please\n{}tests:\n  - name: a\n    tool: echo\n",
            serve("")
        ),
    );
    let (code, _, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("share_server"), "{err}");
}

#[test]
fn share_server_holds_across_per_test_hooks() {
    let d = scratch("share-hooked");
    write(
        &d,
        "hooked.yaml",
        &format!(
            "share_server: true\n{}hooks:\n  beforeEach: \"true\"\ntests:\n  - name: one\n    tool: add_tool\n    expect: {{equals: added tool dynamic_1}}\n  - name: two\n    tool: add_tool\n    expect: {{equals: added tool dynamic_2}}\n",
            serve("")
        ),
    );
    let (code, out, err) = run(&["--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("2 tests: 2 passed"), "{out}");
}

/// Writes an executable script `dir/name`.
#[cfg(unix)]
fn executable(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = write(dir, name, text);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[cfg(unix)]
#[test]
fn context_hook_vars_fill_templates() {
    let d = scratch("hook-vars");
    let all = executable(
        &d,
        "all.sh",
        &format!(
            "#!/bin/sh\ncat >/dev/null\necho '{{\"vars\": {{\"greeting\": \"hi\", \"who\": \"all\", \"audit\": \"{}\"}}}}'\n",
            d.join("audit.jsonl").display()
        ),
    );
    let each = executable(
        &d,
        "each.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"vars\": {\"who\": \"each\"}}'\n",
    );
    // beforeAll and beforeEach: the tests run one at a time. Hook vars reach
    // the server's arguments, the request and file paths; a setup capture
    // replaces a hook var of its name.
    write(
        &d,
        "suite/each.yaml",
        &r#"name: vars from both phases
server:
  command: BIN
  args: [serve, --audit-log, "{{audit}}"]
hooks:
  beforeAll:
    - command: ALL
      mode: context
  beforeEach:
    - command: EACH
      mode: context
tests:
  - name: beforeEach vars replace beforeAll vars
    tool: echo
    args: {message: "{{greeting}} {{who}}"}
    expect:
      equals: "hi each"
      file_contains: {"{{audit}}": "echo"}
  - name: a capture replaces a hook var
    setup:
      - tool: structured
        args: {city: Porto}
        capture: {who: "$.city"}
    tool: echo
    args: {message: "{{greeting}} {{ who }}"}
    expect: {equals: "hi Porto"}
"#
        .replace("BIN", BIN)
        .replace("ALL", all.to_str().unwrap())
        .replace("EACH", each.to_str().unwrap()),
    );
    // beforeAll only: the tests run in parallel, each with its vars.
    write(
        &d,
        "suite/all.yaml",
        &r#"name: vars from beforeAll
server: {command: BIN, args: [serve]}
hooks:
  beforeAll:
    - command: ALL
      mode: context
tests:
  - name: beforeAll vars reach a tool call
    tool: echo
    args: {message: "{{greeting}} {{who}}"}
    expect: {equals: "hi all"}
  - name: beforeAll vars reach a prompt
    assert_prompts:
      get: {name: greeting, arguments: {name: "{{who}}"}}
    expect: {contains: ["greeting for all."]}
"#
        .replace("BIN", BIN)
        .replace("ALL", all.to_str().unwrap()),
    );
    let (code, out, err) = run(&["--suite", d.join("suite").to_str().unwrap(), "--jobs", "4"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("4 tests: 4 passed"), "{out}");
}

#[cfg(unix)]
#[test]
fn file_env_is_expanded_once_and_hook_env_overrides_it_everywhere() {
    let d = scratch("env-rules");
    let hook = executable(
        &d,
        "hook.sh",
        "#!/bin/sh\ncat >/dev/null\nprintf 'BASE=%s' \"$BASE\" > \"$MCPCHECK_TEST_ENV_DIR/hook.txt\"\necho '{\"env\": {\"SHARED\": \"from-hook\", \"TOKEN\": \"t\"}}'\n",
    );
    // The server writes what it was given to a file named after it.
    let script = format!(
        "'printf \"BASE=%s SHARED=%s\" \"$BASE\" \"$SHARED\" > \"$BASE/server-$SHARED.txt\" && exec {BIN} serve'"
    );
    write(
        &d,
        "suite/env.yaml",
        &r#"name: env rules
servers:
  inherits:
    command: sh
    args: ["-c", SCRIPT]
  own:
    command: sh
    args: ["-c", SCRIPT]
    env: {SHARED: own}
env:
  BASE: "${MCPCHECK_TEST_ENV_DIR}"
  SHARED: from-file
  TOKEN: "${MCPCHECK_TEST_UNSET_VAR}"
hooks:
  beforeAll:
    - command: HOOK
      mode: context
tests:
  - name: a hook's value replaces the file's, for the server and for ${NAME}
    server: inherits
    tool: echo
    args: {message: hi}
    expect:
      file_contains:
        "${BASE}/server-${SHARED}.txt": "BASE=@DIR@ SHARED=from-hook"
        "${BASE}/hook.txt": "BASE=@DIR@"
  - name: a server's own value stays its own
    server: own
    tool: echo
    args: {message: hi}
    expect:
      file_contains:
        "${BASE}/server-own.txt": "BASE=@DIR@ SHARED=own"
"#
        .replace("SCRIPT", &script)
        .replace("HOOK", hook.to_str().unwrap())
        .replace("@DIR@", d.to_str().unwrap()),
    );
    // Without hooks: the file's values, expanded, everywhere; a value naming
    // an unset variable is a warning on the test.
    write(
        &d,
        "suite/plain.yaml",
        &r#"name: env without hooks
server: {command: sh, args: ["-c", SCRIPT]}
env:
  BASE: "${MCPCHECK_TEST_ENV_DIR}"
  SHARED: plain
  TOKEN: "${MCPCHECK_TEST_UNSET_VAR}"
tests:
  - name: the file's value, expanded, for the server and for ${NAME}
    tool: echo
    args: {message: hi}
    expect:
      file_contains:
        "${BASE}/server-${SHARED}.txt": "BASE=@DIR@ SHARED=plain"
"#
        .replace("SCRIPT", &script)
        .replace("@DIR@", d.to_str().unwrap()),
    );
    let (code, out, err) = outcome(
        &mcpcheck()
            .args(["run", "--suite", d.join("suite").to_str().unwrap()])
            .env("MCPCHECK_TEST_ENV_DIR", &d)
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("3 tests: 3 passed"), "{out}");
    // Only where no hook replaced TOKEN.
    let unset = "environment variable MCPCHECK_TEST_UNSET_VAR is not set";
    assert_eq!(out.matches(unset).count(), 1, "{out}");
}

#[test]
fn warnings_stay_with_a_test_that_errors() {
    // The unset variable empties the command, the server cannot start, and
    // the warning that says why is kept on the errored test, in the JSON
    // document and in the terminal report.
    let d = scratch("warning-on-error");
    let suite = write(
        &d,
        "suite.yaml",
        "name: needs a command\nserver:\n  command: \"${MCPCHECK_TEST_UNSET_CMD}mcpcheck-no-such-binary\"\nassert:\n  tool: echo\n  args: {text: hi}\n  expect:\n    not_error: true\n",
    );
    let (code, out, err) = run(&["--suite", suite.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let test = &doc["tests"][0];
    assert_eq!(test["status"], "error", "{test}");
    assert_eq!(
        test["warnings"],
        serde_json::json!([
            "environment variable MCPCHECK_TEST_UNSET_CMD is not set; `${MCPCHECK_TEST_UNSET_CMD}` became empty"
        ]),
        "{test}"
    );
    let (_, text, _) = run(&["--suite", suite.to_str().unwrap()]);
    assert!(
        text.contains("warning: environment variable MCPCHECK_TEST_UNSET_CMD is not set"),
        "{text}"
    );
}

#[test]
fn serve_refuses_an_empty_api_key_or_bearer_token() {
    for flag in ["--api-key", "--bearer"] {
        let (code, _, err) =
            cli_support::run_mcpcheck(&["serve", "--http", "127.0.0.1:0", flag, ""]);
        assert_eq!(code, Some(2), "{flag}: {err}");
        assert!(err.contains("must not be empty"), "{flag}: {err}");
    }
}

#[test]
fn legacy_sse_sessions_one_after_another_all_work() {
    // One ended legacy session used to end every later one (a shared
    // cancellation): twelve tests against one server, two at a time.
    let server = http_serve(&[]);
    let sse_url = server.url.replace("/mcp", "/sse");
    let d = scratch("sse-many");
    for i in 0..12 {
        write(
            &d,
            &format!("t{i:02}.yaml"),
            &format!(
                "name: sse {i}\nserver:\n  transport: sse\n  url: {sse_url}\nassert:\n  tool: echo\n  args: {{message: m{i}}}\n  expect:\n    equals: m{i}\n"
            ),
        );
    }
    let (code, out, err) = run(&["--suite", d.to_str().unwrap(), "--jobs", "2"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("12 passed"), "{out}");
}

#[test]
fn a_foreign_origin_is_refused_on_every_endpoint() {
    let server = http_serve(&[]);
    let base = server.url.trim_end_matches("/mcp").to_string();
    for path in ["/mcp", "/sse", "/message?sessionId=x"] {
        let out = std::process::Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-H",
                "Origin: http://evil.example",
                &format!("{base}{path}"),
            ])
            .output();
        let Ok(out) = out else {
            eprintln!("curl is not installed; not run");
            return;
        };
        assert_eq!(String::from_utf8_lossy(&out.stdout), "403", "{path}");
    }
}

#[test]
fn a_trajectory_starts_no_server_even_when_the_suite_gives_it_one() {
    let dir = scratch("trajectory-no-server");
    let suite = write(
        &dir,
        "suite.yaml",
        "defaultTest:\n  server: {command: /nonexistent/mcp-server}\ntests:\n  - name: order\n    trace: [{tool: a}, {tool: b}]\n    trajectory:\n      - {type: order, tools: [a, b]}\n",
    );
    let (code, out, err) = run(&["--suite", suite.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("1 passed"), "{out}");
}
