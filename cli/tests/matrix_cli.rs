//! `mcpcheck matrix` over the example suite against the built-in server three
//! ways: as it is, with a fault that breaks every tool call, and over
//! Streamable HTTP. The table must equal what separate `run`s report.

mod cli_support;

use std::collections::BTreeMap;

use cli_support::{BIN, http_serve, run_mcpcheck};
use serde_json::Value;

fn examples() -> String {
    format!("{}/../examples/serve", env!("CARGO_MANIFEST_DIR"))
}

/// Each test's status in a `run --json` of the example suite against `server`.
fn run_statuses(server: &str) -> BTreeMap<(String, String), String> {
    let suite = examples();
    let (_, out, err) = run_mcpcheck(&["run", "--suite", &suite, "--server", server, "--json"]);
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                (
                    t["file"].as_str().unwrap().to_string(),
                    t["name"].as_str().unwrap().to_string(),
                ),
                t["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_table_equals_separate_runs_and_marks_disagreements() {
    let good = format!("{BIN} serve");
    let broken = format!("{BIN} serve --fault crash-on-call");
    let http = http_serve(&[]);
    let suite = examples();
    let (code, out, err) = run_mcpcheck(&[
        "matrix",
        "--suite",
        &suite,
        "--server",
        &format!("good={good}"),
        "--server",
        &format!("broken={broken}"),
        "--url",
        &format!("http={}", http.url),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "a test fails on a server: {out}{err}");
    let table: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(
        table["servers"],
        serde_json::json!(["good", "broken", "http"])
    );
    assert_eq!(table["passed"], false);

    let runs = [run_statuses(&good), run_statuses(&broken)];
    let rows = table["tests"].as_array().unwrap();
    assert_eq!(rows.len(), runs[0].len(), "one row per test");
    let mut disagreements = 0;
    for row in rows {
        let key = (
            row["file"].as_str().unwrap().to_string(),
            row["name"].as_str().unwrap().to_string(),
        );
        let cells = row["results"].as_array().unwrap();
        for (c, run) in runs.iter().enumerate() {
            assert_eq!(
                cells[c]["status"].as_str(),
                run.get(&key).map(String::as_str),
                "{key:?} on column {c}"
            );
        }
        // The same server over Streamable HTTP gives the same verdicts.
        assert_eq!(cells[2]["status"], cells[0]["status"], "{key:?} over HTTP");
        let differ = runs[0][&key] != runs[1][&key];
        assert_eq!(row["agree"], !differ, "{key:?}");
        disagreements += usize::from(differ);
    }
    assert!(disagreements > 0, "the fault breaks the tool tests");
    assert_eq!(table["disagreements"], disagreements);
    // Prompts are unaffected by a fault on tools/call.
    let prompts = rows
        .iter()
        .find(|r| r["name"] == "prompts are listed")
        .unwrap();
    assert_eq!(prompts["agree"], true);
    let echo = rows
        .iter()
        .find(|r| r["name"] == "echo returns its message")
        .unwrap();
    assert_eq!(echo["results"][1]["status"], "error");
    assert!(
        echo["results"][1]["message"]
            .as_str()
            .unwrap()
            .contains("closed before the server answered"),
        "{echo}"
    );

    // The text table marks the disagreeing rows and explains them.
    let (code, out, _) = run_mcpcheck(&[
        "matrix",
        "--suite",
        &suite,
        "--server",
        &format!("good={good}"),
        "--server",
        &format!("broken={broken}"),
    ]);
    assert_eq!(code, Some(1));
    assert!(out.contains("≠ echo returns its message"), "{out}");
    assert!(out.contains("  prompts are listed"), "{out}");
    assert!(out.contains("disagreements:\n"), "{out}");
    assert!(
        out.contains(&format!(
            "19 tests on 2 servers: {disagreements} disagreements; failing on broken ({disagreements})"
        )),
        "{out}"
    );
}

#[test]
fn agreeing_servers_pass_and_markdown_says_so() {
    let good = format!("{BIN} serve");
    let (code, out, err) = run_mcpcheck(&[
        "matrix",
        "--suite",
        &examples(),
        "--server",
        &format!("one={good}"),
        "--server",
        &format!("two={good}"),
        "--format",
        "markdown",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.starts_with("## ✅ mcpcheck matrix: 19 tests on 2 servers\n"),
        "{out}"
    );
    assert!(out.contains("| | test | one | two |\n"), "{out}");
    assert!(!out.contains("≠"), "{out}");
}

#[test]
fn bad_columns_are_usage_errors() {
    let suite = examples();
    for (args, wanted) in [
        (vec!["--server", "no-name"], "expected NAME=CMD"),
        (
            vec!["--server", "node server.js --port=1"],
            "expected NAME=CMD",
        ),
        (vec!["--url", "x=ftp://host"], "must start with http://"),
        (
            vec!["--server", "a=x", "--url", "a=http://h/mcp"],
            "two columns are named \"a\"",
        ),
        (vec![], "name at least one server"),
        (vec!["--server", "a=\"unclosed"], "check its quotes"),
    ] {
        let mut all = vec!["matrix", "--suite", &suite];
        all.extend(args.iter().copied());
        let (code, _, err) = run_mcpcheck(&all);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
    }
}
