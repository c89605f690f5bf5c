//! `mcpcheck run --list`: the tests a run would start, after `--filter` and
//! `--shard`, without starting a server (the pytest plugin reads the JSON).

mod cli_support;

use cli_support::{run_mcpcheck, scratch, write};
use serde_json::{Value, json};

/// A composed file whose names need escaping in a glob, and a single test
/// whose server does not exist: listing must not start it.
fn suite(dir: &std::path::Path) -> String {
    write(
        dir,
        "evals/composed.yaml",
        "servers:\n  s:\n    command: /nonexistent/server\ntests:\n  - name: 'weird [a] {b,c} *? x'\n    server: s\n    assert: {tool: echo}\n  - name: plain\n    server: s\n    skip: true\n    assert: {tool: echo}\n",
    );
    write(
        dir,
        "evals/single.yaml",
        "name: single\nserver:\n  command: /nonexistent/server\nassert:\n  tool: echo\n",
    );
    dir.join("evals")
        .to_str()
        .expect("a UTF-8 path")
        .to_string()
}

#[test]
fn lists_every_test_in_suite_order_without_starting_servers() {
    let d = scratch("list");
    let evals = suite(&d);
    let (code, out, err) = run_mcpcheck(&["run", "--suite", &evals, "--list", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let file = |f: &str| format!("{evals}/{f}");
    assert_eq!(
        doc,
        json!({"version": 1, "tests": [
            {"name": "weird [a] {b,c} *? x", "file": file("composed.yaml"), "line": 5},
            {"name": "plain", "file": file("composed.yaml"), "line": 8},
            {"name": "single", "file": file("single.yaml"), "line": 1},
        ]})
    );

    let (code, out, _) = run_mcpcheck(&["run", "--suite", &evals, "--list"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        format!(
            "{}:5  weird [a] {{b,c}} *? x\n{}:8  plain\n{}:1  single\n",
            file("composed.yaml"),
            file("composed.yaml"),
            file("single.yaml")
        )
    );
}

#[test]
fn the_listing_follows_filter_and_shard() {
    let d = scratch("list-filter");
    let evals = suite(&d);
    // The glob escapes select exactly one name, as the pytest plugin selects.
    let exact = format!("{evals}/composed.yaml:weird [[]a[]] [{{]b,c[}}] [*][?] x");
    let (code, out, err) = run_mcpcheck(&[
        "run", "--suite", &evals, "--list", "--json", "--filter", &exact,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let names: Vec<&str> = doc["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["weird [a] {b,c} *? x"]);

    // The shards' listings partition the suite.
    let mut seen: Vec<String> = Vec::new();
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let (code, out, err) =
            run_mcpcheck(&["run", "--suite", &evals, "--list", "--shard", &shard]);
        assert_eq!(code, Some(0), "{err}");
        seen.extend(out.lines().map(str::to_string));
    }
    seen.sort();
    assert_eq!(seen.len(), 3, "{seen:?}");

    let (code, _, err) = run_mcpcheck(&["run", "--suite", &evals, "--list", "--filter", "none*"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no tests to run"), "{err}");
}

#[test]
fn list_refuses_flags_that_only_mean_something_when_tests_run() {
    let d = scratch("list-conflicts");
    let evals = suite(&d);
    for flag in [
        &["--watch"][..],
        &["--update-snapshots"],
        &["--capture", "caps"],
    ] {
        let (code, _, err) =
            run_mcpcheck(&[&["run", "--suite", evals.as_str(), "--list"][..], flag].concat());
        assert_eq!(code, Some(2), "{flag:?}");
        assert!(err.contains("cannot be used with"), "{err}");
    }
}
