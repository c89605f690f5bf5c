//! `mcpcheck mcp` end to end: mcpcheck's own checks of it come back clean
//! on stdio and HTTP, the mcp-assert suite of `examples/mcp` passes against
//! it, and, through a client on its stdio, what it refuses (servers,
//! hooks and paths outside the allow list and the roots; the client's roots
//! in force), what it tells (progress), and its bounds (cancellation, the
//! call timeout, the output size).

mod cli_support;
mod mcp_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use cli_support::{BIN, http_serve, mcpcheck, outcome, scratch, write};
use mcp_support::{Mcp, eventually, running};
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `mcpcheck doctor --format json ARGS` in `dir`: the report.
fn doctor(dir: &Path, args: &[&str]) -> Value {
    let (code, out, err) = outcome(
        &mcpcheck()
            .current_dir(dir)
            .args(["doctor", "--format", "json"])
            .args(args)
            .output()
            .expect("start mcpcheck"),
    );
    let report: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\n{err}"));
    assert_eq!(code, Some(0), "{report:#}\n{err}");
    report
}

/// The one suppression doctor needs on `mcpcheck mcp`: its rule catalogue
/// (`mcpcheck://rules`) quotes the attacks the rules describe, and the scan
/// of what a server answers (the O rules) reads them as it would read them
/// in any answer. Written in `dir` as its `mcpcheck.toml`.
fn catalogue_suppression(dir: &Path) -> PathBuf {
    write(
        dir,
        "mcpcheck.toml",
        "[[suppress]]\nrule = \"O\"\nitem = \"resource:mcpcheck://rules\"\nreason = \"the rule catalogue quotes the attacks its rules describe\"\n",
    )
}

/// No finding of any level, every part verified; suppressed only what the
/// rule catalogue quotes (see [`catalogue_suppression`]).
fn assert_clean(report: &Value) {
    assert_eq!(report["passed"], json!(true), "{report:#}");
    assert_eq!(report["findings"], json!([]), "{report:#}");
    assert_eq!(
        report["counts"],
        json!({"error": 0, "warning": 0, "note": 0}),
        "{report:#}"
    );
    // The score is the server's before the policy: what is suppressed still
    // counts there (10 per error, 2 per warning).
    let mut cost = 0;
    for f in report["suppressed"].as_array().into_iter().flatten() {
        assert!(
            f["code"].as_str().is_some_and(|c| c.starts_with('O'))
                && f["item"] == "mcpcheck://rules"
                && f["kind"] == "resource",
            "only the catalogue's quotes are suppressed: {report:#}"
        );
        cost += match f["level"].as_str() {
            Some("error") => 10,
            Some("warning") => 2,
            _ => 0,
        };
    }
    assert!(report.get("notes").is_none(), "{report:#}");
    assert_eq!(report["score"], json!(100 - cost), "{report:#}");
}

#[test]
fn doctor_finds_nothing_in_mcpcheck_mcp_on_stdio() {
    let dir = scratch("mcp-doctor-stdio");
    let config = catalogue_suppression(&dir);
    let config = config.to_str().unwrap();
    let report = doctor(
        &dir,
        &["--config-file", config, "--server", &format!("{BIN} mcp")],
    );
    assert_clean(&report);
}

#[test]
fn doctor_finds_nothing_in_mcpcheck_mcp_over_http_probes_included() {
    let dir = scratch("mcp-doctor-http");
    let server = McpHttp::start(&dir, &[]);
    let config = catalogue_suppression(&dir);
    let config = config.to_str().unwrap();
    let report = doctor(&dir, &["--config-file", config, "--url", &server.url]);
    assert_clean(&report);
}

/// `mcpcheck mcp --http 127.0.0.1:0 ARGS` in a directory, killed when
/// dropped.
struct McpHttp {
    child: std::process::Child,
    url: String,
}

impl Drop for McpHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl McpHttp {
    fn start(dir: &Path, args: &[&str]) -> McpHttp {
        use std::io::BufRead as _;
        let mut child = mcpcheck()
            .current_dir(dir)
            .args(["mcp", "--http", "127.0.0.1:0"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start mcpcheck mcp --http");
        let stderr = child.stderr.take().expect("stderr");
        let mut line = String::new();
        std::io::BufReader::new(stderr)
            .read_line(&mut line)
            .expect("read the URL");
        assert!(
            line.starts_with("mcpcheck mcp: listening on http://"),
            "{line}"
        );
        let url = line
            .split("listening on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_default()
            .to_string();
        McpHttp { child, url }
    }
}

#[test]
fn the_mcp_assert_suite_of_examples_mcp_passes() {
    let examples = root().join("examples/mcp");
    let dir = scratch("mcp-examples");
    let (code, out, err) = outcome(
        &mcpcheck()
            .current_dir(&dir)
            .args(["run", "--suite", examples.to_str().expect("path")])
            .args(["--server", &format!("{BIN} mcp"), "--json"])
            .output()
            .expect("start mcpcheck"),
    );
    let results: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\n{err}"));
    let files = std::fs::read_dir(&examples)
        .expect("examples/mcp")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        })
        .count();
    assert!(files >= 10, "{files} example files");
    assert_eq!(results["summary"]["total"], json!(files), "{results:#}");
    assert_eq!(results["summary"]["passed"], json!(files), "{results:#}");
    assert_eq!(code, Some(0), "{err}");
}

/// A scratch project with an executable `server` script inside it.
fn project(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::canonicalize(&dir).expect("canonical")
}

#[test]
fn servers_hooks_and_paths_outside_the_allow_list_are_refused() {
    let dir = project("mcp-refused");
    let outside = scratch("mcp-refused-outside");
    write(&outside, "suite.yaml", "name: x\ntrajectory: []\n");
    // A suite whose test starts a program outside the project.
    write(
        &dir,
        "starts-sh/t.yaml",
        "name: starts sh\nserver:\n  command: sh\n  args: [-c, 'exit 0']\nassert:\n  tool: echo\n  args: {message: hi}\n  expect:\n    not_error: true\n",
    );
    // A composed suite whose hook runs a program outside the project.
    write(
        &dir,
        "hooked/t.yaml",
        &format!(
            "hooks:\n  beforeAll: [\"sh -c true\"]\nservers:\n  s:\n    command: {BIN}\n    args: [serve]\ntests:\n  - name: echo\n    server: s\n    assert:\n      tool: echo\n      args: {{message: hi}}\n      expect:\n        not_error: true\n"
        ),
    );
    // A suite that reaches a remote URL.
    write(
        &dir,
        "remote/t.yaml",
        "name: remote\nserver:\n  transport: http\n  url: https://example.com/mcp\nassert:\n  tool: echo\n  args: {message: hi}\n  expect:\n    not_error: true\n",
    );
    let mut mcp = Mcp::start(&dir, &["--allow", BIN], None);
    let said = mcp.refused("doctor", json!({"server": "sh -c 'exit 0'"}));
    assert!(
        said.contains("`sh` (") && said.contains("is not allowed"),
        "{said}"
    );
    assert!(said.contains("--allow sh"), "{said}");
    let said = mcp.refused("doctor", json!({"url": "http://10.1.2.3:9/mcp"}));
    assert!(said.contains("--allow http://10.1.2.3:9"), "{said}");
    let said = mcp.refused("run_suite", json!({"suite": "starts-sh"}));
    assert!(
        said.contains("test `starts sh`") && said.contains("is not allowed"),
        "{said}"
    );
    let said = mcp.refused("run_suite", json!({"suite": "hooked"}));
    assert!(said.contains("a hook of hooked/t.yaml"), "{said}");
    let said = mcp.refused("run_suite", json!({"suite": "remote"}));
    assert!(said.contains("https://example.com/mcp"), "{said}");
    let said = mcp.refused(
        "run_suite",
        json!({"suite": "starts-sh", "server": "bash -c true"}),
    );
    assert!(said.contains("`bash`"), "{said}");
    let elsewhere = outside.join("suite.yaml");
    let said = mcp.refused(
        "validate_suite",
        json!({"path": elsewhere.to_str().expect("path")}),
    );
    assert!(
        said.contains("is outside") && said.contains(dir.to_str().expect("path")),
        "{said}"
    );
    let sibling = format!(
        "../{}",
        outside.file_name().and_then(|n| n.to_str()).expect("name")
    );
    let said = mcp.refused("run_suite", json!({"suite": sibling}));
    assert!(said.contains("is outside"), "{said}");
    let said = mcp.refused(
        "generate_tests",
        json!({"server": format!("{BIN} serve"), "write_to": "/tmp/elsewhere"}),
    );
    assert!(
        said.contains("write_to") && said.contains("is outside"),
        "{said}"
    );
    let said = mcp.refused("doctor", json!({"server": "./no-such-server"}));
    assert!(said.contains("no such program"), "{said}");
    let said = mcp.refused("doctor", json!({}));
    assert!(said.contains("give the server"), "{said}");
    let said = mcp.refused("doctor", json!({"server": BIN, "surprise": 1}));
    assert!(said.contains("unknown field `surprise`"), "{said}");
    // Nothing was started by any of them.
    assert!(!dir.join("started").exists());
}

#[test]
fn the_projects_mcpcheck_toml_is_read_from_its_root() {
    let dir = project("mcp-config");
    write(&dir, "mcpcheck.toml", "[mcp]\nallow = [\"sh\"]\n");
    let elsewhere = project("mcp-config-elsewhere");
    let root = dir.to_str().expect("path");
    let mut mcp = Mcp::start(&elsewhere, &["--root", root], None);
    // Allowed by the file: it starts, and is found not to be a server.
    let report = mcp.structured("doctor", json!({"server": "sh -c 'exit 0'"}));
    assert_eq!(report["passed"], json!(false), "{report:#}");
    let said = mcp.refused("doctor", json!({"server": "bash -c 'exit 0'"}));
    assert!(said.contains("--allow bash"), "{said}");
}

#[cfg(unix)]
#[test]
fn a_program_inside_the_project_is_allowed_without_allow() {
    let dir = project("mcp-inside");
    let local = dir.join("bin/mcpcheck");
    std::fs::create_dir_all(local.parent().expect("parent")).expect("mkdir");
    std::os::unix::fs::symlink(BIN, &local).expect("link the binary into the project");
    let mut mcp = Mcp::start(&dir, &[], None);
    let report = mcp.structured("doctor", json!({"server": "bin/mcpcheck serve"}));
    assert_eq!(report["command"], json!("doctor"), "{report:#}");
    // The same binary by its own path is outside the project.
    let said = mcp.refused("doctor", json!({"server": format!("{BIN} serve")}));
    assert!(said.contains("is not allowed"), "{said}");
}

#[test]
fn the_clients_roots_replace_the_project_directory() {
    let dir = project("mcp-roots");
    let other = project("mcp-roots-other");
    let suite = "name: echo\ntrajectory:\n  - type: absence\n    tools: [x]\ntrace: []\n";
    write(&dir, "here.yaml", suite);
    write(&other, "there.yaml", suite);
    let uri = format!("file://{}", other.display());
    let mut mcp = Mcp::start(&dir, &[], Some(vec![uri]));
    let there = other.join("there.yaml");
    let valid = mcp.structured(
        "validate_suite",
        json!({"path": there.to_str().expect("path")}),
    );
    assert_eq!(valid["ok"], json!(true), "{valid:#}");
    let said = mcp.refused("validate_suite", json!({"path": "here.yaml"}));
    assert!(
        said.contains("is outside") && said.contains("mcp-roots-other"),
        "{said}"
    );
    assert_eq!(mcp.roots_asked, 2, "the roots are asked on each call");
    // Roots that change hold from the next call on.
    mcp.roots = vec![format!("file://{}", dir.display())];
    mcp.notify("notifications/roots/list_changed", json!({}));
    let valid = mcp.structured("validate_suite", json!({"path": "here.yaml"}));
    assert_eq!(valid["ok"], json!(true), "{valid:#}");
    // A tool that reads no path does not ask.
    mcp.structured("explain_rule", json!({"code": "E103"}));
    assert_eq!(mcp.roots_asked, 3);
    // Roots that name no directory allow nothing.
    mcp.roots = vec!["https://example.com/".into()];
    mcp.notify("notifications/roots/list_changed", json!({}));
    let said = mcp.refused("validate_suite", json!({"path": "here.yaml"}));
    assert!(said.contains("roots name no local directory"), "{said}");
}

/// A suite of `n` tests against `mcpcheck serve --page-size MARKER`, the
/// last calling `slow` for `ms`.
fn suite_with_slow_test(dir: &Path, marker: &str, n: usize, ms: u64) {
    let mut text = format!(
        "servers:\n  s:\n    command: {BIN}\n    args: [serve, --page-size, \"{marker}\"]\ntests:\n"
    );
    for i in 1..n {
        text.push_str(&format!(
            "  - name: echo {i}\n    server: s\n    assert:\n      tool: echo\n      args: {{message: hi}}\n      expect:\n        equals: hi\n"
        ));
    }
    text.push_str(&format!(
        "  - name: slow\n    server: s\n    timeout: 10m\n    assert:\n      tool: slow\n      args: {{ms: {ms}}}\n      expect:\n        not_error: true\n"
    ));
    write(dir, "suite/slow.yaml", &text);
}

#[test]
fn progress_is_told_before_the_answer() {
    let dir = project("mcp-progress");
    suite_with_slow_test(&dir, "3901", 4, 10);
    let mut mcp = Mcp::start(&dir, &["--allow", BIN], None);
    let answer = mcp.request(
        "tools/call",
        json!({"name": "run_suite", "arguments": {"suite": "suite"}, "_meta": {"progressToken": "p1"}}),
    );
    assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["summary"]["passed"],
        json!(4),
        "{answer}"
    );
    let steps: Vec<&Value> = mcp
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| &n["params"])
        .collect();
    assert_eq!(steps.len(), 4, "{steps:?}");
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(s["progressToken"], json!("p1"));
        assert_eq!(s["progress"].as_f64(), Some((i + 1) as f64), "{steps:?}");
        assert_eq!(s["total"].as_f64(), Some(4.0), "{steps:?}");
        assert!(
            s["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("pass ")),
            "{steps:?}"
        );
    }
    // No token, no progress.
    let before = mcp.notifications.len();
    mcp.structured("run_suite", json!({"suite": "suite"}));
    assert_eq!(mcp.notifications.len(), before);
}

#[test]
fn a_cancelled_call_stops_and_kills_its_servers() {
    let dir = project("mcp-cancel");
    let marker = "3902";
    suite_with_slow_test(&dir, marker, 1, 600_000);
    let mut mcp = Mcp::start(&dir, &["--allow", BIN], None);
    let id = mcp.start_request(
        "tools/call",
        json!({"name": "run_suite", "arguments": {"suite": "suite"}}),
    );
    assert!(
        eventually(Duration::from_secs(30), || running(marker)),
        "the suite's server never started"
    );
    mcp.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "the test changed its mind"}),
    );
    assert!(
        eventually(Duration::from_secs(10), || !running(marker)),
        "the suite's server outlived the cancelled call"
    );
    // Nothing answers the cancelled request, and the session goes on.
    assert!(
        mcp.response_within(id, Duration::from_millis(500))
            .is_none()
    );
    let pong = mcp.request("ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
}

#[test]
fn a_cancelled_doctor_kills_the_server_it_started() {
    let dir = project("mcp-cancel-doctor");
    let marker = "3904";
    let mut mcp = Mcp::start(&dir, &["--allow", BIN], None);
    let server = format!("{BIN} serve --fault hang-on-initialize --page-size {marker}");
    let id = mcp.start_request(
        "tools/call",
        json!({"name": "doctor", "arguments": {"server": server}}),
    );
    assert!(
        eventually(Duration::from_secs(30), || running(marker)),
        "the server never started"
    );
    mcp.notify("notifications/cancelled", json!({"requestId": id}));
    assert!(
        eventually(Duration::from_secs(10), || !running(marker)),
        "the server outlived the cancelled doctor"
    );
    assert!(
        mcp.response_within(id, Duration::from_millis(500))
            .is_none()
    );
}

#[test]
fn a_call_past_the_call_timeout_is_a_tool_error() {
    let dir = project("mcp-timeout");
    let marker = "3903";
    suite_with_slow_test(&dir, marker, 1, 600_000);
    let mut mcp = Mcp::start(&dir, &["--allow", BIN, "--call-timeout", "2s"], None);
    let said = mcp.refused("run_suite", json!({"suite": "suite"}));
    assert!(said.contains("stopped after 2s (--call-timeout)"), "{said}");
    assert!(
        eventually(Duration::from_secs(10), || !running(marker)),
        "the suite's server outlived the call"
    );
}

#[test]
fn a_result_past_the_output_bound_is_a_tool_error() {
    let dir = project("mcp-output");
    let mut mcp = Mcp::start(&dir, &["--max-output-kb", "1"], None);
    let said = mcp.refused("explain_rule", json!({"code": "E103"}));
    assert!(
        said.contains("more than the 1024") && said.contains("--max-output-kb"),
        "{said}"
    );
    // A small one still fits.
    let small = mcp.structured(
        "check_trajectory",
        json!({"trace": [], "trajectory": [{"type": "absence", "tools": ["x"]}]}),
    );
    assert_eq!(small["status"], json!("pass"), "{small:#}");
}

#[test]
fn unknown_tools_prompts_and_resources_are_protocol_errors() {
    let dir = project("mcp-unknown");
    let mut mcp = Mcp::start(&dir, &[], None);
    let answer = mcp.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("doctor, run_suite"))
    );
    let answer = mcp.request("resources/read", json!({"uri": "mcpcheck://rules/NOPE"}));
    assert_eq!(answer["error"]["code"], json!(-32002), "{answer}");
    let answer = mcp.request(
        "prompts/get",
        json!({"name": "write_suite", "arguments": {}}),
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`server`")),
        "{answer}"
    );
}

#[test]
fn the_vocabulary_is_offered_as_resources_and_prompts() {
    let dir = project("mcp-vocabulary");
    let mut mcp = Mcp::start(&dir, &[], None);
    let listed = mcp.request("resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert!(uris.contains(&"mcpcheck://docs/suites"), "{uris:?}");
    assert!(uris.contains(&"mcpcheck://rules"), "{uris:?}");
    for code in ["E103", "S301", "H101", "INV-022", "A101", "F201", "L201"] {
        assert!(
            uris.contains(&format!("mcpcheck://rules/{code}").as_str()),
            "{code}"
        );
    }
    let suites = mcp.request("resources/read", json!({"uri": "mcpcheck://docs/suites"}));
    let text = suites["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let doc = std::fs::read_to_string(root().join("docs/suites.md")).expect("docs/suites.md");
    assert_eq!(text, doc, "the suite format is docs/suites.md as it is");
    let rule = mcp.request("resources/read", json!({"uri": "mcpcheck://rules/S301"}));
    let text = rule["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("# S301 "), "{text}");
    let prompts = mcp.request("prompts/list", json!({}));
    let names: Vec<&str> = prompts["result"]["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["write_suite", "fix_failing_check", "triage_report"]);
    let got = mcp.request(
        "prompts/get",
        json!({"name": "triage_report", "arguments": {"report": "{\"findings\": []}"}}),
    );
    let text = got["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("{\"findings\": []}") && text.contains("[[suppress]]"),
        "{text}"
    );
}

#[test]
fn generate_tests_returns_the_files_and_writes_them_only_when_asked() {
    let dir = project("mcp-generate");
    let mut mcp = Mcp::start(&dir, &["--allow", BIN], None);
    let server = format!("{BIN} serve");
    let dry = mcp.structured("generate_tests", json!({"server": server}));
    let files = dry["files"].as_array().expect("files");
    let echo = files
        .iter()
        .find(|f| f["name"] == "echo.yaml")
        .unwrap_or_else(|| panic!("{dry:#}"));
    assert!(
        echo["text"]
            .as_str()
            .is_some_and(|t| t.contains("tool: \"echo\"")),
        "{echo}"
    );
    assert_eq!(dry["written"], json!([]));
    assert!(
        std::fs::read_dir(&dir).expect("dir").next().is_none(),
        "a dry run writes nothing"
    );
    let wrote = mcp.structured(
        "generate_tests",
        json!({"server": server, "write_to": "gen"}),
    );
    let written = wrote["written"].as_array().expect("written");
    assert_eq!(written.len(), files.len(), "{wrote:#}");
    let on_disk = std::fs::read_to_string(dir.join("gen/echo.yaml")).expect("gen/echo.yaml");
    assert_eq!(on_disk, echo["text"].as_str().unwrap_or_default());
    // Never over an existing file.
    let said = mcp.refused(
        "generate_tests",
        json!({"server": server, "write_to": "gen"}),
    );
    assert!(
        said.contains("already exists") && said.contains("nothing was written"),
        "{said}"
    );
    // The files run: what was written is a suite that validates.
    let valid = mcp.structured("validate_suite", json!({"path": "gen"}));
    assert_eq!(valid["ok"], json!(true), "{valid:#}");
    assert_eq!(valid["files"].as_array().map(Vec::len), Some(files.len()));
}

#[test]
fn the_pure_tools_answer_as_the_commands_do() {
    let dir = project("mcp-pure");
    let mut mcp = Mcp::start(&dir, &[], None);
    // check_response: `mcpcheck check --json` on the same files.
    let expect = json!({"contains": ["hello"], "equals": "hello world"});
    let response = json!({"content": [{"type": "text", "text": "hello there"}]});
    let got = mcp.structured(
        "check_response",
        json!({"expect": expect, "response": response, "today": "2026-01-31"}),
    );
    let e = write(&dir, "expect.json", &expect.to_string());
    let r = write(&dir, "response.json", &response.to_string());
    let (code, out, _) = outcome(
        &mcpcheck()
            .args(["check", "--expect", e.to_str().expect("path")])
            .args(["--response", r.to_str().expect("path"), "--json"])
            .args(["--today", "2026-01-31"])
            .output()
            .expect("check"),
    );
    assert_eq!(code, Some(1));
    let mut printed: Value = serde_json::from_str(&out).expect("JSON");
    // Read from a file, each check also has its line there.
    for check in printed["checks"].as_array_mut().expect("checks") {
        check.as_object_mut().expect("a check").remove("line");
    }
    assert_eq!(got, printed);
    assert_eq!(got["status"], json!("fail"));
    // lint_listing: `mcpcheck lint --listing FILE --format json`.
    let listing = json!({"tools": [{"name": "read_file", "description": "Read a file and return its text.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]});
    let got = mcp.structured("lint_listing", json!({"listing": listing}));
    let l = write(&dir, "listing.json", &listing.to_string());
    let (_, out, _) = outcome(
        &mcpcheck()
            .current_dir(&dir)
            .args([
                "--no-config",
                "lint",
                "--listing",
                "listing.json",
                "--format",
                "json",
            ])
            .output()
            .expect("lint"),
    );
    let mut printed: Value = serde_json::from_str(&out).expect("JSON");
    printed["subject"] = got["subject"].clone();
    assert_eq!(got, printed);
    assert!(l.exists());
    // Its text is what `lint --format json` prints, key for key.
    let answer = mcp.call("lint_listing", json!({"listing": listing}));
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(
        text.replace("\"subject\": \"listing\"", "\"subject\": \"listing.json\""),
        out
    );
    // A rule that does not exist is a tool error naming it.
    let said = mcp.refused(
        "lint_listing",
        json!({"listing": listing, "skip_rules": ["Z999"]}),
    );
    assert!(said.contains("Z999"), "{said}");
    // explain_rule: `mcpcheck rule CODE --format json`.
    let got = mcp.structured("explain_rule", json!({"code": "S301"}));
    let (_, out, _) = outcome(
        &mcpcheck()
            .args(["rule", "S301", "--format", "json"])
            .output()
            .expect("rule"),
    );
    assert_eq!(got, serde_json::from_str::<Value>(&out).expect("JSON"));
    // validate_suite on text: the loader's diagnostics with their hints.
    let got = mcp.structured(
        "validate_suite",
        json!({"text": "name: x\nserver:\n  command: s\nassert:\n  tool: t\n  expect:\n    not_eror: true\n"}),
    );
    assert_eq!(got["ok"], json!(false), "{got:#}");
    let hint = got["files"][0]["diagnostics"][0]["hint"]
        .as_str()
        .unwrap_or_default();
    assert!(hint.contains("not_error"), "{got:#}");
}

/// `text` with every `"duration_ms": N` written as 0.
fn without_durations(text: &str) -> String {
    let key = "\"duration_ms\": ";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = rest[at + key.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('0');
    }
    out.push_str(rest);
    out
}

#[test]
fn run_suite_answers_with_the_text_run_json_prints() {
    let dir = project("mcp-run-text");
    for file in ["add.yaml", "echo.yaml", "fail.yaml"] {
        let from = root().join("examples/serve").join(file);
        std::fs::create_dir_all(dir.join("suite")).expect("mkdir");
        std::fs::copy(from, dir.join("suite").join(file)).expect("copy");
    }
    let server = format!("{BIN} serve");
    let mut mcp = Mcp::start(&dir, &["--allow", BIN], None);
    let result = mcp.call("run_suite", json!({"suite": "suite", "server": server}));
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let (code, printed, err) = outcome(
        &mcpcheck()
            .current_dir(&dir)
            .args(["run", "--suite", "suite", "--server", &server, "--json"])
            .output()
            .expect("run"),
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(without_durations(text), without_durations(&printed));
    let parsed: Value = serde_json::from_str(text).expect("JSON");
    assert_eq!(parsed, result["structuredContent"]);
}

#[test]
fn run_suite_refuses_a_suite_with_errors_and_runs_nothing() {
    let dir = project("mcp-bad-suite");
    write(
        &dir,
        "suite/bad.yaml",
        &format!(
            "name: bad\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: echo\n  expect:\n    not_eror: true\n"
        ),
    );
    let mut mcp = Mcp::start(&dir, &["--allow", BIN], None);
    let said = mcp.refused("run_suite", json!({"suite": "suite"}));
    assert!(
        said.contains("nothing was run") && said.contains("suite/bad.yaml:8"),
        "{said}"
    );
    assert!(said.contains("not_error"), "{said}");
}

#[test]
fn a_usage_error_at_start_names_the_flag() {
    let (code, _, err) = outcome(
        &mcpcheck()
            .args(["mcp", "--allow", "no-such-program-anywhere"])
            .output()
            .expect("mcp"),
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--allow no-such-program-anywhere: no such program on PATH"),
        "{err}"
    );
    let (code, _, err) = outcome(
        &mcpcheck()
            .args(["mcp", "--root", "/no/such/dir"])
            .output()
            .expect("mcp"),
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("--root /no/such/dir"), "{err}");
}

#[test]
fn the_http_transport_refuses_a_foreign_origin() {
    let dir = project("mcp-origin");
    let server = McpHttp::start(&dir, &[]);
    let reference = http_serve(&[]);
    // Both answer a rebinding Host the same way: the transport is shared.
    for url in [&server.url, &reference.url] {
        let status = reqwest_status(url, "evil.example");
        assert_eq!(status, 403, "{url}");
    }
}

/// The status of a POST of `initialize` to `url` with `Host: host`.
fn reqwest_status(url: &str, host: &str) -> u16 {
    use std::io::{Read as _, Write as _};
    let rest = url.strip_prefix("http://").expect("http URL");
    let (authority, path) = rest.split_once('/').expect("a path");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let mut stream = std::net::TcpStream::connect(authority).expect("connect");
    write!(
        stream,
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}
