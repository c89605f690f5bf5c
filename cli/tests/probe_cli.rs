//! `mcpcheck audit` and `mcpcheck fuzz` against `mcpcheck serve --fault
//! buggy-tools` (a tool that crashes on one input, one that hangs on
//! another, one that answers -32603, one that writes non-JSON to stdout, one
//! whose structuredContent breaks its outputSchema, one marked destructive)
//! and against a small clean server: the exact findings, no cascade after a
//! crash, byte-identical fuzz reports for one seed, exit codes that gate CI.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, sh_server, write};
use serde_json::Value;

fn buggy() -> String {
    format!("{BIN} serve --fault buggy-tools")
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn status_of<'a>(report: &'a Value, item: &str) -> &'a str {
    report["results"]
        .as_array()
        .and_then(|r| r.iter().find(|x| x["tool"] == item))
        .and_then(|x| x["status"].as_str())
        .unwrap_or_else(|| panic!("no {item} in {report}"))
}

#[test]
fn audit_classifies_every_planted_defect_and_gates_ci() {
    let server = buggy();
    let (code, out, err) = run_mcpcheck(&[
        "audit",
        "--server",
        &server,
        "--timeout",
        "5s",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report = json_of(&out);
    assert_eq!(report["version"], 1);
    assert_eq!(report["transport"], "stdio");
    assert_eq!(status_of(&report, "internal_error"), "protocol_error");
    assert_eq!(status_of(&report, "noisy"), "non_json_output");
    assert_eq!(status_of(&report, "structured_wrong"), "schema_mismatch");
    assert_eq!(status_of(&report, "delete_everything"), "skipped");
    assert_eq!(status_of(&report, "fail"), "tool_error");
    for healthy in [
        "echo",
        "add",
        "crash_on_empty",
        "hang_on_negative",
        "structured",
    ] {
        assert_eq!(status_of(&report, healthy), "healthy", "{healthy}");
    }
    // Prompts and resources are entries too.
    assert_eq!(status_of(&report, "greeting"), "healthy");
    assert_eq!(status_of(&report, "mcpcheck://static/text"), "healthy");
    let noisy = report["results"]
        .as_array()
        .and_then(|r| r.iter().find(|x| x["tool"] == "noisy"))
        .expect("noisy");
    assert!(
        noisy["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("noisy: a debug line")
    );
    assert_eq!(noisy["input"], serde_json::json!({}));

    // --include-writes calls the destructive tool too.
    let (_, out, _) = run_mcpcheck(&[
        "audit",
        "--server",
        &server,
        "--format",
        "json",
        "--include-writes",
    ]);
    assert_eq!(status_of(&json_of(&out), "delete_everything"), "healthy");

    // Every format renders; SARIF and JUnit name the finding.
    for (format, needle) in [
        ("sarif", "internal_error"),
        ("junit", "internal_error"),
        ("markdown", "internal_error"),
        ("text", "protocol_error"),
    ] {
        let (code, out, _) = run_mcpcheck(&["audit", "--server", &server, "--format", format]);
        assert_eq!(code, Some(1), "{format}");
        assert!(out.contains(needle), "{format}: {out}");
    }
}

/// What a server that lists one tool and answers it properly answers.
const CLEAN: &str = r#"    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"hello","description":"Says hello.","inputSchema":{"type":"object","properties":{"who":{"type":"string"}}}}]}}\n' "$id";;
    *'"method":"tools/call"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"hello"}]}}\n' "$id";;"#;

#[test]
fn a_clean_server_passes_the_audit() {
    let d = scratch("audit-clean");
    let server = sh_server(&d, "clean.sh", r#"{"tools":{}}"#, CLEAN);
    let (code, out, err) = run_mcpcheck(&["audit", "--server", &server, "--format", "json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let report = json_of(&out);
    assert_eq!(status_of(&report, "hello"), "healthy");
    assert_eq!(report["score"], 100);
}

#[test]
fn fuzz_finds_the_crash_and_the_hang_shrinks_them_and_goes_on() {
    let server = buggy();
    let args = [
        "fuzz",
        "--server",
        &server,
        "--timeout",
        "2s",
        "--runs",
        "25",
        "--seed",
        "7",
        "--tool",
        "crash_on_empty",
        "--tool",
        "hang_on_negative",
        "--format",
        "json",
    ];
    let (code, first, err) = run_mcpcheck(&args);
    assert_eq!(code, Some(1), "{first}{err}");
    let report = json_of(&first);
    assert_eq!(report["version"], 1);
    assert_eq!(report["seed"], 7);
    let tool = |name: &str| {
        report["tools"]
            .as_array()
            .and_then(|t| t.iter().find(|x| x["tool"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no {name}: {report}"))
    };
    let crash = tool("crash_on_empty");
    assert_eq!(crash["runs"], 25);
    let failures = crash["failures"].as_array().expect("failures");
    let crashed = failures
        .iter()
        .find(|f| f["status"] == "crash")
        .expect("the crash is found");
    assert_eq!(crashed["input"], serde_json::json!({"text": ""}));
    // No cascade: the server was started again, and later inputs passed.
    assert!(crash["passed"].as_u64().unwrap_or(0) >= 20, "{crash}");
    let hang = tool("hang_on_negative");
    assert!(
        hang["failures"].as_array().is_some_and(|f| f
            .iter()
            .any(|x| x["status"] == "timeout" && x["input"]["n"].as_i64().is_some_and(|n| n < 0))),
        "{hang}"
    );
    assert!(report["summary"]["crashes"].as_u64().unwrap_or(0) >= 1);
    assert!(report["summary"]["timeouts"].as_u64().unwrap_or(0) >= 1);

    // The same seed: the same report, byte for byte.
    let (_, second, _) = run_mcpcheck(&args);
    assert_eq!(first, second);
}

#[test]
fn fuzz_writes_regression_tests_that_fail_while_the_bug_is_there() {
    let d = scratch("fuzz-regressions");
    let out_dir = d.join("regressions");
    let server = buggy();
    let (code, out, err) = run_mcpcheck(&[
        "fuzz",
        "--server",
        &server,
        "--timeout",
        "2s",
        "--runs",
        "15",
        "--tool",
        "crash_on_empty",
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let crash_test = out_dir.join("regression_crash_on_empty_crash.yaml");
    assert!(crash_test.is_file(), "{err}");
    let (code, out, err) = run_mcpcheck(&["run", "--suite", crash_test.to_str().unwrap()]);
    assert_eq!(
        code,
        Some(1),
        "the test fails while the bug is there: {out}{err}"
    );
    // Written again without --force: refused, the file kept.
    let (code, _, err) = run_mcpcheck(&[
        "fuzz",
        "--server",
        &server,
        "--runs",
        "15",
        "--tool",
        "crash_on_empty",
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--force"), "{err}");
}

#[test]
fn fuzz_refuses_an_unknown_tool() {
    let server = buggy();
    let (code, _, err) = run_mcpcheck(&["fuzz", "--server", &server, "--tool", "nope"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no such tool"), "{err}");
}

#[test]
fn lint_reads_a_saved_listing_offline_and_gates_on_errors() {
    let d = scratch("lint-offline");
    let bad = write(
        &d,
        "bad.json",
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[
  {"name":"read","description":"Reads a file from the workspace and returns its text.",
   "inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path","mode"]}}]}}"#,
    );
    let (code, out, err) = run_mcpcheck(&[
        "lint",
        "--listing",
        bad.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report = json_of(&out);
    assert_eq!(report["version"], 1);
    let codes: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(codes.contains(&"E103"), "{codes:?}");
    assert!(codes.contains(&"E606"), "{codes:?}");
    let e606 = report["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|x| x["code"] == "E606"))
        .expect("E606");
    assert_eq!(e606["tool"], "read");
    assert!(
        e606["field"]
            .as_str()
            .unwrap_or_default()
            .starts_with("/result/tools/0/inputSchema/required")
    );

    // Skipping the rules that fire passes.
    let (code, _, err) = run_mcpcheck(&[
        "lint",
        "--listing",
        bad.to_str().unwrap(),
        "--skip-rules",
        "E103,E606",
    ]);
    assert_eq!(code, Some(0), "{err}");
    // An unknown rule, and a listing that is not JSON, are usage errors.
    let (code, _, err) = run_mcpcheck(&[
        "lint",
        "--listing",
        bad.to_str().unwrap(),
        "--skip-rules",
        "E999",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("E999") && err.contains("E101"), "{err}");
    let broken = write(&d, "broken.json", "{\"tools\": [\n  {\"name\": }\n]}");
    let (code, _, err) = run_mcpcheck(&["lint", "--listing", broken.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("broken.json:2:"), "{err}");
    // SARIF names the file the listing came from.
    let (_, out, _) = run_mcpcheck(&[
        "lint",
        "--listing",
        bad.to_str().unwrap(),
        "--format",
        "sarif",
    ]);
    assert!(out.contains("bad.json"), "{out}");
}

#[test]
fn lint_of_a_live_server_with_every_check() {
    let server = buggy();
    let (code, out, err) = run_mcpcheck(&[
        "lint",
        "--server",
        &server,
        "--call-tools",
        "--detect-nondeterminism",
        "--max-response-kb",
        "1",
        "--format",
        "json",
    ]);
    // `big` answers 1,000 bytes by default: under 1 KiB; `lorem` under too.
    // The one error is the conformance fixture `json_schema_2020_12_tool`,
    // whose input schema has `allOf` at its root as the official suite
    // requires, and which Claude's API refuses.
    assert_eq!(code, Some(1), "{out}{err}");
    let report = json_of(&out);
    assert_eq!(report["errors"], 1, "{report}");
    let errors: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["code"].as_str().unwrap_or_default(),
                f["tool"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(errors, [("E604", "json_schema_2020_12_tool")], "{report}");
    // A budget below what `lorem` answers is a warning, failing with --strict.
    let (code, out, _) = run_mcpcheck(&[
        "lint",
        "--server",
        &server,
        "--call-tools",
        "--max-response-kb",
        "0",
        "--strict",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("\"E301\""), "{out}");
}

#[test]
fn audit_writes_starter_tests_for_the_healthy_calls_only() {
    let d = scratch("audit-output");
    let out_dir = d.join("starters");
    let server = buggy();
    let (code, _, err) = run_mcpcheck(&[
        "audit",
        "--server",
        &server,
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(out_dir.join("echo.yaml").is_file(), "{err}");
    assert!(out_dir.join("prompt_greeting.yaml").is_file());
    // Audit waits 30 s for a call by default (fuzz 10 s): a slow healthy
    // tool is not a hang. The starters carry that limit.
    let echo = std::fs::read_to_string(out_dir.join("echo.yaml")).expect("echo.yaml");
    assert!(echo.contains("timeout: 30s"), "{echo}");
    for broken in [
        "internal_error.yaml",
        "noisy.yaml",
        "structured_wrong.yaml",
        "fail.yaml",
        "delete_everything.yaml",
    ] {
        assert!(
            !out_dir.join(broken).exists(),
            "{broken} has no starter test"
        );
    }
    // The starters' arguments are placeholders, as their header says: the
    // required properties only, so `json_schema_2020_12_tool`'s miss the
    // `email` its schema requires through `if`/`else`, and get a real one
    // first.
    let contact = out_dir.join("json_schema_2020_12_tool.yaml");
    let starter = std::fs::read_to_string(&contact).expect("json_schema_2020_12_tool.yaml");
    assert!(
        starter.contains(r#"args: {"phone": "example"}"#),
        "{starter}"
    );
    std::fs::write(
        &contact,
        starter.replace(
            r#"args: {"phone": "example"}"#,
            r#"args: {"email": "ada@example.com"}"#,
        ),
    )
    .expect("written");
    let (code, out, err) = run_mcpcheck(&["run", "--suite", out_dir.to_str().unwrap()]);
    assert_eq!(code, Some(0), "the starters pass: {out}{err}");
    // Written again without --force: refused.
    let (code, _, err) = run_mcpcheck(&[
        "audit",
        "--server",
        &server,
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
}

/// A stdio server in Node with two bugs: every tool answers `arguments`
/// null or an array with -32603 (a crash of its argument handling, for all
/// tools alike), and `lookup` answers -32603 for a key with a quote. With
/// `fixed` as its argument it answers -32602 and a result instead.
const LOOKUP_SERVER: &str = r#"const fixed = process.argv[2] === 'fixed';
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
rl.on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined || m.method === undefined) return;
  const ok = (r) => send({ jsonrpc: '2.0', id: m.id, result: r });
  const fail = (code, message) => send({ jsonrpc: '2.0', id: m.id, error: { code, message } });
  switch (m.method) {
    case 'initialize':
      return ok({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'lookup', version: '1' } });
    case 'tools/list':
      return ok({ tools: [
        { name: 'lookup', inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] }, annotations: { readOnlyHint: true } },
        { name: 'pong', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
      ] });
    case 'tools/call': {
      const a = m.params.arguments;
      if (a !== undefined && (a === null || typeof a !== 'object' || Array.isArray(a)))
        return fixed ? fail(-32602, 'arguments must be an object') : fail(-32603, "Cannot read properties of null (reading 'key')");
      if (m.params.name === 'lookup') {
        const key = (a || {}).key;
        if (typeof key !== 'string') return ok({ content: [{ type: 'text', text: 'key must be a string' }], isError: true });
        if (!fixed && key.includes("'")) return fail(-32603, "SQL syntax error near '");
        return ok({ content: [{ type: 'text', text: 'no entry for ' + key.slice(0, 20) }] });
      }
      return ok({ content: [{ type: 'text', text: 'pong' }] });
    }
    default:
      return fail(-32601, 'method not found');
  }
});
"#;

#[test]
fn fuzz_writes_one_test_per_cause_and_none_a_suite_cannot_send() {
    let d = scratch("fuzz-causes");
    let script = write(&d, "server.js", LOOKUP_SERVER);
    let buggy = format!("node {}", script.display());
    let fixed = format!("{buggy} fixed");
    let out_dir = d.join("regressions");
    let (code, out, err) = run_mcpcheck(&[
        "fuzz",
        "--server",
        &buggy,
        "--runs",
        "40",
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    // Four findings for null and [] on two tools are one cause, and a suite
    // cannot send that input: no test, and the output says why.
    assert!(
        err.contains("mcpcheck fuzz: 2 causes in 6 serious findings; wrote 1 regression test to"),
        "{err}"
    );
    assert!(
        err.contains("  not written: protocol_error for `arguments` null or an array, on any tool (4 findings, 2 tools): a suite cannot send `arguments: null` (it always sends an object as `arguments`)"),
        "{err}"
    );
    assert!(
        err.contains("  wrote regression_lookup_protocol_error.yaml: protocol_error of tool `lookup`: format_breaking inputs (2 findings)"),
        "{err}"
    );
    let files: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["regression_lookup_protocol_error.yaml"]);
    let test = out_dir.join(&files[0]);
    let test = test.to_str().unwrap();
    // Against the server with the bug, the test fails; once fixed, it passes.
    let (code, out, err) = run_mcpcheck(&["run", "--suite", test, "--server", &buggy]);
    assert_eq!(code, Some(1), "fails while the bug is there: {out}{err}");
    let (code, out, err) = run_mcpcheck(&["run", "--suite", test, "--server", &fixed]);
    assert_eq!(code, Some(0), "passes once it is fixed: {out}{err}");
}

/// A stdio server in Node with three tools that take their time: `slow`
/// waits 3 s (its `duration` input documents a default of 3 seconds),
/// `ticking` works 3 s and reports progress every half second, `spam`
/// sends one progress notification per step (no maximum: a huge `steps` is
/// an unbounded stream).
const SLOW_SERVER: &str = r#"const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
rl.on('line', async (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined || m.method === undefined) return;
  const ok = (r) => send({ jsonrpc: '2.0', id: m.id, result: r });
  const text = (t) => ok({ content: [{ type: 'text', text: t }] });
  const token = m.params && m.params._meta && m.params._meta.progressToken;
  const progress = (i, total) => token !== undefined &&
    send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i, total } });
  switch (m.method) {
    case 'initialize':
      return ok({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } });
    case 'tools/list':
      return ok({ tools: [
        { name: 'slow', description: 'Waits as long as asked.', annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: { duration: { type: 'number', default: 3, description: 'Duration of the wait in seconds' } } } },
        { name: 'ticking', description: 'Works for a while and reports its progress.', annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: {} } },
        { name: 'spam', description: 'Reports one progress notification per step.', annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: { steps: { type: 'integer', default: 3 } } } },
      ] });
    case 'tools/call': {
      const a = (m.params.arguments && typeof m.params.arguments === 'object') ? m.params.arguments : {};
      if (m.params.name === 'slow') { await sleep(3000); return text('waited'); }
      if (m.params.name === 'ticking') {
        for (let i = 1; i <= 6; i++) { await sleep(500); progress(i, 6); }
        return text('done');
      }
      const steps = typeof a.steps === 'number' && a.steps > 0 ? Math.min(a.steps, 1e6) : 3;
      for (let i = 1; i <= steps; i++) { progress(i, steps); if (i % 100 === 0) await new Promise((r) => setImmediate(r)); }
      return text('done');
    }
    default:
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'method not found' } });
  }
});
"#;

#[test]
fn a_tool_that_documents_its_duration_or_reports_progress_is_not_a_hang() {
    let d = scratch("probe-slow");
    let script = write(&d, "server.js", SLOW_SERVER);
    let server = format!("node {}", script.display());
    let (code, out, err) = run_mcpcheck(&[
        "audit",
        "--server",
        &server,
        "--timeout",
        "2s",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let report = json_of(&out);
    for tool in ["slow", "ticking", "spam"] {
        assert_eq!(status_of(&report, tool), "healthy", "{tool}: {report}");
    }
}

#[test]
fn an_unbounded_stream_of_progress_is_a_flood_not_a_crash() {
    let d = scratch("fuzz-flood");
    let script = write(&d, "server.js", SLOW_SERVER);
    let server = format!("node {}", script.display());
    let out_dir = d.join("regressions");
    let (code, out, err) = run_mcpcheck(&[
        "fuzz",
        "--server",
        &server,
        "--tool",
        "spam",
        "--timeout",
        "2s",
        "--runs",
        "14",
        "--format",
        "json",
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report = json_of(&out);
    let failures = report["tools"][0]["failures"].as_array().expect("failures");
    let floods: Vec<&Value> = failures.iter().filter(|f| f["status"] == "flood").collect();
    assert_eq!(floods.len(), 2, "{report}");
    for f in &floods {
        assert!(
            f["detail"]
                .as_str()
                .is_some_and(|d| d.contains("more than 10000 messages")),
            "{f}"
        );
        // Not shrunk to an input that only hangs or crashes.
        assert!(
            f["input"]["steps"].as_f64().is_some_and(|s| s > 10_000.0),
            "{f}"
        );
    }
    assert!(
        failures
            .iter()
            .all(|f| f["status"] != "crash" && f["status"] != "timeout"),
        "{report}"
    );
    assert_eq!(report["summary"]["floods"], 2, "{report}");
    // The regression test of the flood fails while the bug is there.
    let test = out_dir.join("regression_spam_flood.yaml");
    assert!(test.is_file(), "{err}");
    let (code, out, err) = run_mcpcheck(&["run", "--suite", test.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("more than 10000 messages"), "{out}");
}

#[test]
fn fuzz_of_a_tool_the_server_does_not_list_says_which() {
    let server = buggy();
    let (code, out, err) = run_mcpcheck(&["fuzz", "--server", &server, "--tool", "nope"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.starts_with("mcpcheck fuzz: "), "{err}");
    assert!(
        err.ends_with(": --tool [\"nope\"]: the server lists no such tool\n"),
        "{err}"
    );
}

/// What a server with two prompts answers: `pick` refuses any `kind` but
/// `Text` with an internal error (as server-everything's `resource-prompt`
/// does), and `broken`, which takes no arguments, fails with one.
const PROMPTS: &str = r#"    *'"method":"prompts/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"prompts":[{"name":"pick","description":"Shows a resource.","arguments":[{"name":"kind","description":"Text or Blob","required":true}]},{"name":"broken","description":"Always fails."}]}}\n' "$id";;
    *'"method":"prompts/get"'*'"name":"pick"'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"Invalid kind. Must be Text or Blob."}}\n' "$id";;
    *'"method":"prompts/get"'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"boom"}}\n' "$id";;"#;

#[test]
fn a_prompt_refusing_the_audits_guessed_arguments_is_not_blamed() {
    let d = scratch("audit-prompts");
    let server = sh_server(&d, "prompts.sh", r#"{"prompts":{}}"#, PROMPTS);
    let (code, out, err) = run_mcpcheck(&["audit", "--server", &server, "--format", "json"]);
    let report = json_of(&out);
    // `pick` was given a guess for `kind`, which a prompt may refuse; its
    // -32603 is a note, not the server's failure.
    assert_eq!(status_of(&report, "pick"), "tool_error", "{report:#}");
    let pick = report["results"]
        .as_array()
        .and_then(|r| r.iter().find(|x| x["tool"] == "pick"))
        .expect("pick");
    assert!(
        pick["detail"]
            .as_str()
            .is_some_and(|d| d.contains("mcpcheck's guesses")),
        "{pick}"
    );
    // `broken` was sent nothing of mcpcheck's making: its internal error
    // fails the audit.
    assert_eq!(status_of(&report, "broken"), "protocol_error", "{report:#}");
    assert_eq!(code, Some(1), "{out}{err}");
}
