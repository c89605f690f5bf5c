//! `mcpcheck run` against real MCP servers from npm
//! (`@modelcontextprotocol/server-everything` and `server-filesystem`),
//! installed into `tests/node-servers/` by `.ci/run` (`npm ci`), never
//! downloaded at test time. The suites are in mcp-assert's format; each
//! file's name says the verdict it must get (`pass_`, `fail_`, `skip_`).
//!
//! Without the servers installed these tests say so and stop, unless
//! `MCPCHECK_REQUIRE_NODE_SERVERS=1` (set by the project's test script),
//! which makes their absence a failure.

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{mcpcheck, outcome};

fn servers_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/node-servers");
    let installed = dir
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .exists()
        && dir
            .join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
            .exists();
    if installed {
        return Some(dir);
    }
    assert!(
        std::env::var("MCPCHECK_REQUIRE_NODE_SERVERS").is_err(),
        "the node servers are not installed: run `npm ci --prefix tests/node-servers`"
    );
    eprintln!("node servers not installed (npm ci --prefix tests/node-servers); not run");
    None
}

fn run_json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let o = mcpcheck()
        .arg("run")
        .args(args)
        .arg("--json")
        .current_dir(dir)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{e}\n{out}\n{}", String::from_utf8_lossy(&o.stderr)))
}

/// Every test's verdict is the one its file name announces.
fn assert_verdicts(results: &serde_json::Value) {
    let tests = results["tests"].as_array().unwrap();
    assert!(!tests.is_empty());
    let mut wrong = Vec::new();
    for t in tests {
        let file = t["file"].as_str().unwrap();
        let stem = Path::new(file)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let want = stem.split('_').next().unwrap();
        let got = t["status"].as_str().unwrap();
        if want != got {
            wrong.push(format!("{file}: want {want}, got {got}: {}", t["message"]));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn server_everything_suite_gets_its_verdicts() {
    let Some(dir) = servers_dir() else { return };
    let results = run_json(&dir, &["--suite", "everything"]);
    assert_verdicts(&results);
    assert_eq!(results["summary"]["total"], 30);
}

/// `expect_notification` against a server that sends resource updates (every
/// 5 s once `toggle-subscriber-updates` is called). Kept apart from the
/// `everything` suite, which the runner benchmark times against mcp-assert:
/// mcp-assert 0.12.3 looks for the update right after the read instead of
/// waiting, so it fails the passing case.
#[test]
fn expect_notification_waits_for_the_update_and_fails_without_one() {
    let Some(dir) = servers_dir() else { return };
    let results = run_json(&dir, &["--suite", "notifications"]);
    assert_verdicts(&results);
    assert_eq!(results["summary"]["total"], 2);
}

#[test]
fn server_filesystem_suite_gets_its_verdicts_and_leaves_the_fixture_alone() {
    let Some(dir) = servers_dir() else { return };
    let fixture = dir.join("fixture");
    let before: Vec<(PathBuf, String)> = ["hello.txt", "notes.md", "docs/readme.txt"]
        .iter()
        .map(|f| {
            (
                fixture.join(f),
                std::fs::read_to_string(fixture.join(f)).unwrap(),
            )
        })
        .collect();
    let results = run_json(&dir, &["--suite", "filesystem", "--fixture", "fixture"]);
    assert_verdicts(&results);
    for (path, text) in before {
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            text,
            "{} changed",
            path.display()
        );
    }
    assert!(!fixture.join("moved.md").exists());
    assert!(!fixture.join("docs/new.txt").exists());
}

#[test]
fn secrets_from_the_environment_never_reach_reports_or_captures() {
    let Some(dir) = servers_dir() else { return };
    // server-everything's get-env returns its whole environment, so the
    // secret comes back in the answer, the failing check's actual value and
    // the capture: all must show *** instead.
    let tmp = std::env::temp_dir().join(format!("mcpcheck-secrets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let suite = tmp.join("leak.yaml");
    std::fs::write(
        &suite,
        "name: leak\nserver:\n  command: node\n  args: [node_modules/@modelcontextprotocol/server-everything/dist/index.js, stdio]\n  env:\n    MY_API_TOKEN: \"${MCPCHECK_TEST_SECRET}\"\nassert:\n  tool: get-env\n  expect:\n    contains: [MY_API_TOKEN]\n    equals: nothing\n",
    )
    .unwrap();
    let secret = "hunter2-very-secret-value";
    let o = mcpcheck()
        .args(["run", "--json", "--suite"])
        .arg(&suite)
        .arg("--capture")
        .arg(tmp.join("cap"))
        .current_dir(&dir)
        .env("MCPCHECK_TEST_SECRET", secret)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["tests"][0]["status"], "fail", "{out}");
    assert!(!out.contains(secret), "{out}");
    let cap = std::fs::read_to_string(tmp.join("cap/leak.json")).unwrap();
    assert!(cap.contains("MY_API_TOKEN"), "the capture has the answer");
    assert!(cap.contains("***"), "the value is shown masked");
    assert!(!cap.contains(secret), "{cap}");
}

#[test]
fn conformance_finds_nothing_wrong_with_the_reference_servers() {
    let Some(dir) = servers_dir() else { return };
    let fixture = dir.join("fixture");
    for server in [
        "node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio".to_string(),
        format!(
            "node node_modules/@modelcontextprotocol/server-filesystem/dist/index.js {}",
            fixture.display()
        ),
    ] {
        let o = mcpcheck()
            .args(["conformance", "--server", &server])
            .current_dir(&dir)
            .output()
            .unwrap();
        let (code, out, err) = outcome(&o);
        assert_eq!(code, Some(0), "{server}:\n{out}\n{err}");
    }
}

#[test]
fn a_token_a_context_hook_hands_the_server_is_redacted_everywhere() {
    let Some(dir) = servers_dir() else { return };
    let tmp = std::env::temp_dir().join(format!("mcpcheck-hook-secret-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("suite")).unwrap();
    // A context hook hands the server a token through `env`; get-env
    // returns it, and the failing check would show it.
    let hook = tmp.join("hook.sh");
    std::fs::write(
        &hook,
        "#!/bin/sh\ncat > /dev/null\necho '{\"env\": {\"HOOK_TOKEN\": \"hk-9f8e7d6c5b4a\"}}'\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&hook)
        .status()
        .unwrap();
    std::fs::write(
        tmp.join("suite/suite.yaml"),
        format!(
            "name: hooked\nserver:\n  command: node\n  args: [node_modules/@modelcontextprotocol/server-everything/dist/index.js, stdio]\nhooks:\n  beforeEach:\n    - command: {}\n      mode: context\ntests:\n  - name: leak\n    tool: get-env\n    expect:\n      contains: [HOOK_TOKEN]\n      equals: nothing\n",
            hook.display()
        ),
    )
    .unwrap();
    let o = mcpcheck()
        .args(["run", "--suite"])
        .arg(tmp.join("suite"))
        .arg("--junit")
        .arg(tmp.join("junit.xml"))
        .arg("--capture")
        .arg(tmp.join("cap"))
        .current_dir(&dir)
        .output()
        .unwrap();
    let (code, out, err) = outcome(&o);
    assert_eq!(code, Some(1), "{out}\n{err}");
    let cap = std::fs::read_to_string(tmp.join("cap/leak.json")).unwrap_or_default();
    assert!(
        cap.contains("HOOK_TOKEN") && cap.contains("***"),
        "the answer, masked: {cap}"
    );
    let mut everything = out.clone();
    everything.push_str(&std::fs::read_to_string(tmp.join("junit.xml")).unwrap_or_default());
    everything.push_str(&cap);
    assert!(!everything.contains("hk-9f8e7d6c5b4a"), "{everything}");
    let json = run_json(&dir, &["--suite", tmp.join("suite").to_str().unwrap()]);
    assert!(!json.to_string().contains("hk-9f8e7d6c5b4a"), "{json}");
}
