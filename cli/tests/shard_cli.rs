//! `mcpcheck run --shard i/n` and `mcpcheck report --merge`, end to end
//! against `mcpcheck serve`: a suite split 1, 2 and 4 ways (and by the
//! timings of an earlier run) merges back into the single run's document —
//! the same tests, verdicts, order and counts — and every way of putting
//! the wrong pieces together is refused with exit 2.

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{BIN, mcpcheck, outcome, scratch, write};
use serde_json::Value;

/// `mcpcheck ARGS` run in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        &mcpcheck()
            .current_dir(dir)
            .args(args)
            .output()
            .expect("start mcpcheck"),
    )
}

fn server() -> String {
    format!("server:\n  command: {BIN}\n  args: [serve]\n")
}

/// A suite in `dir/s` with every kind of outcome and every kind of unit:
/// per-file tests that pass, fail, are skipped or cannot start their
/// server; a composed file whose tests are split one by one; a
/// `share_server` file whose tests depend on running in order on one
/// session (so it must stay whole).
fn suite(dir: &Path) {
    let s = server();
    for i in 0..6 {
        write(
            dir,
            &format!("s/echo_{i}.yaml"),
            &format!(
                "name: echo {i}\n{s}assert:\n  tool: echo\n  args: {{message: m{i}}}\n  expect:\n    equals: m{i}\n"
            ),
        );
    }
    write(
        dir,
        "s/wrong.yaml",
        &format!(
            "name: add is checked against a wrong sum\n{s}assert:\n  tool: add\n  args: {{a: 2, b: 2}}\n  expect:\n    equals: \"5\"\n"
        ),
    );
    write(
        dir,
        "s/skipped.yaml",
        &format!(
            "name: not today\nskip: switched off\n{s}assert:\n  tool: echo\n  args: {{message: x}}\n"
        ),
    );
    write(
        dir,
        "s/no_server.yaml",
        "name: the server cannot start\nserver:\n  command: /nonexistent/mcp-server\nassert:\n  tool: echo\n  args: {message: x}\n  expect:\n    not_error: true\n",
    );
    let mut many = format!("{s}tests:\n");
    for i in 0..8 {
        let expect = if i % 3 == 2 { "nope" } else { "ok" };
        many.push_str(&format!(
            "  - name: many {i}\n    tool: echo\n    args: {{message: ok}}\n    expect: {{equals: {expect}}}\n"
        ));
    }
    write(dir, "s/many.yaml", &many);
    write(
        dir,
        "s/shared.yaml",
        &format!(
            "share_server: true\n{s}tests:\n  - name: first\n    tool: add_tool\n    expect: {{equals: added tool dynamic_1}}\n  - name: second\n    tool: add_tool\n    expect: {{equals: added tool dynamic_2}}\n  - name: third\n    tool: add_tool\n    expect: {{equals: added tool dynamic_3}}\n"
        ),
    );
}

const TESTS: usize = 6 + 3 + 8 + 3;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// What must be equal between a single run and the merged shards: every
/// test's identity, verdict, message and check verdicts, in order, and the
/// counts.
fn verdicts(doc: &Value) -> (Vec<Value>, Value) {
    let tests = doc["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            let checks: Vec<Value> = t["checks"]
                .as_array()
                .expect("checks")
                .iter()
                .map(|c| serde_json::json!([c["name"], c["status"], c["actual"]]))
                .collect();
            serde_json::json!([t["file"], t["name"], t["status"], t["message"], checks])
        })
        .collect();
    let mut summary = doc["summary"].clone();
    summary
        .as_object_mut()
        .expect("summary")
        .remove("duration_ms");
    (tests, summary)
}

/// Run shard i of n for every i into `dir/out/{tag}-{i}.json`; the files.
fn run_shards(dir: &Path, n: u32, tag: &str, extra: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut ran = 0;
    for i in 1..=n {
        let spec = format!("{i}/{n}");
        let (code, out, err) = run_in(
            dir,
            &[&["run", "--suite", "s", "--json", "--shard", &spec], extra].concat(),
        );
        assert!(matches!(code, Some(0 | 1)), "shard {spec}: {code:?}\n{err}");
        let doc = json(&out);
        assert_eq!(doc["shard"]["index"], i, "{out}");
        assert_eq!(doc["shard"]["total"], n, "{out}");
        assert_eq!(doc["shard"]["plan"].as_array().map(Vec::len), Some(TESTS));
        let here = doc["tests"].as_array().expect("tests").len();
        assert!(
            err.contains(&format!("shard {spec}: {here} of {TESTS} tests")),
            "{err}"
        );
        ran += here;
        let path = dir.join("out").join(format!("{tag}-{i}.json"));
        write(dir, &format!("out/{tag}-{i}.json"), &out);
        files.push(path);
    }
    assert_eq!(ran, TESTS, "every test runs on exactly one shard");
    files
}

fn merge_json(dir: &Path, files: &[PathBuf]) -> Value {
    let mut args: Vec<&str> = vec!["report", "--format", "json", "--merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let (code, out, err) = run_in(dir, &args);
    assert_eq!(code, Some(0), "{err}");
    json(&out)
}

#[test]
fn one_two_and_four_shards_merge_into_the_single_run() {
    let d = scratch("shard-merge");
    suite(&d);
    let (code, out, err) = run_in(&d, &["run", "--suite", "s", "--json"]);
    assert_eq!(code, Some(1), "a test fails\n{err}");
    let single = json(&out);
    assert!(single.get("shard").is_none(), "{out}");
    write(&d, "single.json", &out);
    let (want_tests, want_summary) = verdicts(&single);
    assert_eq!(want_tests.len(), TESTS);
    assert_eq!(
        want_summary,
        serde_json::json!({"total": TESTS, "passed": 15, "failed": 3, "errored": 1, "skipped": 1})
    );

    let timings = d.join("single.json");
    let timings = timings.to_str().unwrap();
    for (n, tag, extra) in [
        (1, "one", &[][..]),
        (2, "two", &[][..]),
        (4, "four", &[][..]),
        (3, "timed", &["--shard-timings", timings][..]),
    ] {
        let files = run_shards(&d, n, tag, extra);
        let mut shuffled = files.clone();
        shuffled.reverse();
        let merged = merge_json(&d, &shuffled);
        assert!(merged.get("shard").is_none(), "n={n}");
        let (tests, summary) = verdicts(&merged);
        assert_eq!(tests, want_tests, "{n} shards ({tag})");
        assert_eq!(summary, want_summary, "{n} shards ({tag})");
        let sum: u64 = files
            .iter()
            .map(|f| {
                json(&std::fs::read_to_string(f).unwrap())["summary"]["duration_ms"]
                    .as_u64()
                    .unwrap()
            })
            .sum();
        assert_eq!(merged["summary"]["duration_ms"], sum);
    }

    // The gate, the baseline and every format apply to the merged run.
    let two: Vec<PathBuf> = (1..=2)
        .map(|i| d.join("out").join(format!("two-{i}.json")))
        .collect();
    let two: Vec<&str> = two.iter().map(|p| p.to_str().unwrap()).collect();
    let report =
        |extra: &[&str]| run_in(&d, &[&["report"], extra, &["--merge"], &two[..]].concat());
    let (code, out, _) = report(&[]);
    assert_eq!(code, Some(0), "rendering alone passes");
    assert!(
        out.contains("20 tests: 15 passed, 3 failed, 1 error, 1 skipped"),
        "{out}"
    );
    let (code, out, _) = report(&["--json"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        verdicts(&json(&out)),
        (want_tests.clone(), want_summary.clone())
    );
    let (code, _, _) = report(&["--threshold", "100"]);
    assert_eq!(code, Some(1));
    let (code, _, _) = report(&["--threshold", "70"]);
    assert_eq!(code, Some(0), "15 of 19 that ran is 78.9%");
    let (code, out, _) = report(&["--format", "junit"]);
    assert_eq!(code, Some(0));
    assert_eq!(out.matches("<testcase ").count(), TESTS, "{out}");

    // A baseline in which the wrong sum passed: the merged run regresses.
    let mut base = single.clone();
    for t in base["tests"].as_array_mut().unwrap() {
        if t["file"] == "s/wrong.yaml" {
            t["status"] = "pass".into();
        }
    }
    write(&d, "base.json", &base.to_string());
    let (code, out, err) = report(&[
        "--threshold",
        "0",
        "--baseline",
        "base.json",
        "--fail-on-regression",
    ]);
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(out.contains("add is checked against a wrong sum"), "{out}");
    let (code, out, err) = report(&[
        "--threshold",
        "0",
        "--baseline",
        "single.json",
        "--fail-on-regression",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
}

#[test]
fn a_shard_with_no_tests_writes_an_empty_part() {
    let d = scratch("shard-empty");
    write(
        &d,
        "s/only.yaml",
        &format!(
            "name: only\n{}assert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    equals: hi\n",
            server()
        ),
    );
    let mut files = Vec::new();
    let mut ran = 0;
    for i in 1..=3 {
        let spec = format!("{i}/3");
        let (code, out, err) = run_in(&d, &["run", "--suite", "s", "--json", "--shard", &spec]);
        assert_eq!(code, Some(0), "{err}");
        ran += json(&out)["summary"]["total"].as_u64().unwrap();
        files.push(write(&d, &format!("r{i}.json"), &out));
    }
    assert_eq!(ran, 1);
    let merged = merge_json(&d, &files);
    assert_eq!(merged["summary"]["total"], 1);
    assert_eq!(merged["tests"][0]["name"], "only");
}

#[test]
fn bad_shards_and_pieces_that_do_not_fit_are_refused() {
    let d = scratch("shard-refuse");
    suite(&d);
    for bad in ["0/2", "3/2", "2", "a/b", "1/0"] {
        let (code, _, err) = run_in(&d, &["run", "--suite", "s", "--shard", bad]);
        assert_eq!(code, Some(2), "{bad}: {err}");
        assert!(err.contains(bad) && err.contains("--shard"), "{bad}: {err}");
    }
    let (code, _, err) = run_in(&d, &["run", "--suite", "s", "--shard-timings", "x.json"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--shard"), "{err}");
    let (code, _, err) = run_in(
        &d,
        &[
            "run",
            "--suite",
            "s",
            "--shard",
            "1/2",
            "--shard-timings",
            "missing.json",
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("missing.json"), "{err}");
    write(&d, "garbage.json", "{\"not\": \"results\"}");
    let (code, _, err) = run_in(
        &d,
        &[
            "run",
            "--suite",
            "s",
            "--shard",
            "1/2",
            "--shard-timings",
            "garbage.json",
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("garbage.json") && err.contains("results document"),
        "{err}"
    );

    let files = run_shards(&d, 3, "three", &[]);
    let f: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let merge = |names: &[&str]| run_in(&d, &[&["report", "--merge"], names].concat());

    let (code, _, err) = merge(&[f[0], f[2]]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("shard 2/3 is missing") && err.contains("three-1.json"),
        "{err}"
    );

    let (code, _, err) = merge(&[f[0], f[1], f[2], f[1]]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("both shard 2/3"), "{err}");

    // A shard of another suite: one more test in it.
    let other = scratch("shard-refuse-other");
    suite(&other);
    write(
        &other,
        "s/extra.yaml",
        &format!(
            "name: extra\n{}assert:\n  tool: echo\n  args: {{message: e}}\n",
            server()
        ),
    );
    let (_, out, err) = run_in(&other, &["run", "--suite", "s", "--json", "--shard", "2/3"]);
    let foreign = write(&d, "foreign-2.json", &out);
    let (code, _, err2) = merge(&[f[0], foreign.to_str().unwrap(), f[2]]);
    assert_eq!(code, Some(2), "{err}\n{err2}");
    assert!(
        err2.contains("different suites") && err2.contains("`extra`"),
        "{err2}"
    );

    // The same test in two documents.
    let (_, single, _) = run_in(&d, &["run", "--suite", "s", "--json", "--filter", "echo*"]);
    let a = write(&d, "a.json", &single);
    let (code, _, err) = merge(&[a.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is in both"), "{err}");

    // A shard and a whole run.
    let (code, _, err) = merge(&[f[0], a.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("three-1.json is a shard") && err.contains("a.json is not"),
        "{err}"
    );
}
