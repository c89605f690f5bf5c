//! Suite loading, end to end from text: every fixture under `suites/bad/` has
//! a snapshot of its rendered diagnostics (what `mcpcheck validate` prints),
//! and every suite under `suites/mcp-assert/` and `suites/composed/` loads
//! without a problem, into the model summarised by its snapshot.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;

use mcpcheck_core::diag::{Paint, render};
use mcpcheck_core::expect::Item;
use mcpcheck_core::suite::{self, Action};

fn name_of(path: &std::path::Path) -> String {
    let rel = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    rel.trim_start_matches('/').to_string()
}

#[test]
fn bad_suites_render_their_diagnostics() {
    insta::glob!("suites/bad/*.yaml", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let name = name_of(path);
        let loaded = suite::load(&name, &text);
        assert!(loaded.has_errors(), "{name} should not load cleanly");
        let out = render(&loaded.diagnostics, &|_| Some(text.as_str()), Paint::Plain);
        insta::assert_snapshot!(out);
    });
}

fn summary(loaded: &suite::Loaded) -> String {
    let mut s = String::new();
    let f = &loaded.suite;
    let _ = writeln!(
        s,
        "composed={} name={:?} env={:?} share_server={} hooks(before_all={}, before_each={}, after_each={}, after_all={})",
        f.composed,
        f.name,
        f.env,
        f.share_server,
        f.hooks.before_all.len(),
        f.hooks.before_each.len(),
        f.hooks.after_each.len(),
        f.hooks.after_all.len()
    );
    for t in &f.tests {
        let server = t.server.as_ref().map(|s| {
            format!(
                "{} {:?} {:?} url={:?} caps(roots={}, sampling={}, elicitation={})",
                s.transport.as_str(),
                s.command,
                s.args,
                s.url,
                s.client.roots.is_some(),
                s.client.sampling.is_some(),
                s.client.elicitation.is_some()
            )
        });
        let action = match &t.action {
            Action::Tool { tool, args } => format!("tool {tool} {args}"),
            other => format!(
                "{} {:?}",
                other.block_name(),
                other.method().map(|m| m.name().to_string())
            ),
        };
        let _ = writeln!(s, "- {:?} (line {})", t.name, t.line);
        let _ = writeln!(s, "  server: {server:?}");
        let _ = writeln!(s, "  action: {action}");
        let _ = writeln!(
            s,
            "  setup: {:?}",
            t.setup
                .iter()
                .map(|c| (
                    c.tool.as_str(),
                    c.capture
                        .iter()
                        .map(|(v, p)| format!("{v}={}", p.as_str()))
                        .collect::<Vec<_>>()
                ))
                .collect::<Vec<_>>()
        );
        let _ = writeln!(
            s,
            "  timeout_ms={:?} skip={:?} skip_unless_env={:?} threshold={:?}",
            t.timeout_ms, t.skip, t.skip_unless_env, t.expect.threshold
        );
        for item in &t.expect.items {
            match item {
                Item::Check(c) => {
                    let _ = writeln!(
                        s,
                        "  check {} [{} on {}] w={}",
                        c.name,
                        c.matcher.kind(),
                        c.target.describe(),
                        c.weight
                    );
                }
                Item::Set(set) => {
                    let _ = writeln!(
                        s,
                        "  set {} threshold={} w={} ({} checks)",
                        set.name,
                        set.threshold,
                        set.weight,
                        set.checks.len()
                    );
                }
            }
        }
        for d in &t.expect.derived {
            let _ = writeln!(
                s,
                "  metric {} {} {:?} threshold={:?}",
                d.name,
                if d.average {
                    "weighted_average"
                } else {
                    "weighted_sum"
                },
                d.refs
                    .iter()
                    .map(|r| (r.name.as_str(), r.weight))
                    .collect::<Vec<_>>(),
                d.threshold
            );
        }
    }
    s
}

#[test]
fn good_suites_load_cleanly() {
    insta::glob!("suites/{mcp-assert,composed}/*.yaml", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let name = name_of(path);
        let loaded = suite::load(&name, &text);
        let rendered = render(&loaded.diagnostics, &|_| Some(text.as_str()), Paint::Plain);
        assert!(loaded.diagnostics.is_empty(), "{name}:\n{rendered}");
        insta::assert_snapshot!(summary(&loaded));
    });
}

#[test]
fn loading_never_panics_on_truncated_input() {
    // Every prefix of every fixture must load (with or without diagnostics).
    for dir in ["suites/bad", "suites/mcp-assert", "suites/composed"] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(dir);
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for (i, _) in text.char_indices() {
                let _ = suite::load("t.yaml", &text[..i]);
            }
        }
    }
}

#[test]
fn a_trajectory_test_with_a_server_and_setup_loads_with_warnings() {
    // mcp-assert ignores both for a trajectory; its suites must keep loading.
    let text = "name: t\nserver: {command: mcpcheck, args: [serve]}\nsetup:\n  - tool: echo\n    args: {message: hi}\ntrace: [{tool: a}]\ntrajectory:\n  - {type: presence, tools: [a]}\n";
    let loaded = suite::load("t.yaml", text);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let warnings: Vec<(u32, &str)> = loaded
        .diagnostics
        .iter()
        .map(|d| (d.span.line, d.message.as_str()))
        .collect();
    assert_eq!(
        warnings,
        [
            (
                2,
                "a trajectory test starts no server: `server` is not used"
            ),
            (3, "a trajectory test starts no server: `setup` is not run"),
        ]
    );
    let test = &loaded.suite.tests[0];
    assert!(test.server.is_none() && test.setup.is_empty());
}

/// The checks of each test of a loaded file: (test name, check keys).
fn check_keys(loaded: &suite::Loaded) -> Vec<(String, Vec<String>)> {
    loaded
        .suite
        .tests
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.expect.checks().map(|c| c.key.to_string()).collect(),
            )
        })
        .collect()
}

#[test]
fn a_test_without_expect_still_fails_on_a_json_rpc_error() {
    let one = suite::load(
        "t.yaml",
        "name: t\nserver: {command: x}\nassert: {tool: no_such_tool}\n",
    );
    assert!(one.diagnostics.is_empty(), "{:?}", one.diagnostics);
    assert_eq!(
        check_keys(&one),
        [("t".into(), vec!["no_rpc_error".into()])]
    );

    // The implicit rule comes once, whatever the default adds; a list-form
    // `expect` of the test's own still has none.
    let composed = suite::load(
        "c.yaml",
        "server: {command: x}\ndefaultTest:\n  expect: {not_empty: true}\ntests:\n  - {name: bare, tool: a}\n  - {name: empty, tool: a, expect: }\n  - {name: listed, tool: a, expect: [{target: text, matcher: {contains: x}}]}\n  - name: prompts\n    assert_prompts: {list: {}}\n",
    );
    assert!(
        composed.diagnostics.is_empty(),
        "{:?}",
        composed.diagnostics
    );
    let keys = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        check_keys(&composed),
        [
            ("bare".into(), keys(&["no_rpc_error", "not_empty"])),
            ("empty".into(), keys(&["no_rpc_error", "not_empty"])),
            (
                "listed".into(),
                keys(&["list", "no_rpc_error", "not_empty"])
            ),
            ("prompts".into(), keys(&["no_rpc_error", "not_empty"])),
        ]
    );
    let list_default = suite::load(
        "l.yaml",
        "server: {command: x}\ndefaultTest:\n  expect: [{target: duration_ms, matcher: {range: {max: 1000}}}]\ntests:\n  - {name: bare, tool: a}\n",
    );
    assert_eq!(
        check_keys(&list_default),
        [("bare".into(), keys(&["no_rpc_error", "list"]))]
    );
}

/// What mcp-assert's loader (Go structs through yaml.v3) takes that a strict
/// reading would refuse: each is read as mcp-assert reads it, with a warning
/// naming the sloppy spelling, and none stops the suite.
#[test]
fn sloppy_spellings_mcp_assert_runs_load_with_warnings() {
    let text = "name: t\ntimeout: 30 seconds\nserver: {transport: HTTP, url: \"http://127.0.0.1:1/mcp\"}\nsetup: ~\nassert:\n  tool: echo\n  args: {}\n  expect:\n    contains: ~\n    equals: ~\n    not_error: yes\n";
    let loaded = suite::load("t.yaml", text);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let warnings: Vec<&str> = loaded
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        warnings,
        [
            "`timeout` is not a duration: \"30 seconds\"; the default is used",
            "transport `HTTP` is read as `http`",
            "`setup: null` is read as if `setup` were not written, as mcp-assert reads it",
            "`contains: null` is read as if `contains` were not written, as mcp-assert reads it",
            "`equals: null` is read as if `equals` were not written, as mcp-assert reads it",
        ]
    );
    let test = &loaded.suite.tests[0];
    assert_eq!(test.timeout_ms, None);
    assert!(test.setup.is_empty());
    assert_eq!(
        test.server.as_ref().map(|s| s.transport),
        Some(suite::Transport::Http)
    );
    assert_eq!(
        check_keys(&loaded),
        [("t".into(), vec!["no_rpc_error".into(), "not_error".into()])]
    );
    // Two blocks in a test file: mcp-assert's dispatch order picks one.
    let two = suite::load(
        "two.yaml",
        "name: t\nserver: {command: x}\nassert: {tool: a}\nassert_resources: {list: {}}\n",
    );
    assert!(!two.has_errors(), "{:?}", two.diagnostics);
    assert_eq!(
        two.diagnostics[0].message,
        "`assert` is not run: a test file with two blocks runs `assert_resources`, as mcp-assert does"
    );
    assert!(matches!(
        two.suite.tests[0].action,
        Action::Resources { .. }
    ));
    // Unknown keys stay errors.
    let typo = suite::load(
        "u.yaml",
        "name: t\nserver: {command: x}\nassert: {tool: a, expect: {not_eror: true}}\n",
    );
    assert!(typo.has_errors());
}

#[test]
fn a_test_file_may_say_share_server_and_a_composed_test_may_not() {
    let file = "name: t\nshare_server: true\nserver: {command: srv}\nassert: {tool: echo, expect: {not_error: true}}\n";
    let loaded = suite::load("dir/t.yaml", file);
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    assert!(loaded.suite.share_server && !loaded.suite.composed);
    assert!(!loaded.suite.isolate);
    let off = suite::load("dir/t.yaml", &file.replace("share_server: true\n", ""));
    assert!(!off.suite.share_server && !off.suite.isolate);
    // Said false: the file opts out of a run's reuse of servers.
    let isolated = suite::load("dir/t.yaml", &file.replace("true", "false"));
    assert!(!isolated.suite.share_server && isolated.suite.isolate);
    let composed_off = suite::load(
        "c.yaml",
        "server: {command: srv}\nshare_server: false\ntests:\n  - name: a\n    tool: echo\n    expect: {not_error: true}\n",
    );
    assert!(!composed_off.has_errors(), "{:?}", composed_off.diagnostics);
    assert!(composed_off.suite.isolate);
    let wrong = suite::load("dir/t.yaml", &file.replace("true", "3"));
    assert!(
        wrong
            .diagnostics
            .iter()
            .any(|d| d.message.contains("share_server")),
        "{:?}",
        wrong.diagnostics
    );
    let composed = "server: {command: srv}\ntests:\n  - name: a\n    share_server: true\n    tool: echo\n    expect: {not_error: true}\n";
    let loaded = suite::load("c.yaml", composed);
    assert!(
        loaded.has_errors(),
        "a composed test sets share_server at the top: {:?}",
        loaded.diagnostics
    );
}
