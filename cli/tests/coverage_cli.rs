//! `mcpcheck coverage` against the built-in server: what a suite uses, what it
//! leaves out, what it names that the server does not offer, and `--min`.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, write};

fn suite(name: &str) -> std::path::PathBuf {
    let d = scratch(name);
    let server = format!("server:\n  command: {BIN}\n  args: [serve]\n");
    write(
        &d,
        "echo.yaml",
        &format!(
            "name: echo\n{server}setup:\n  - tool: add\n    args: {{a: 1, b: 2}}\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect: {{not_error: true}}\n"
        ),
    );
    write(
        &d,
        "typo.yaml",
        &format!("name: typo\n{server}assert:\n  tool: ecoh\n  expect: {{not_error: true}}\n"),
    );
    write(
        &d,
        "template.yaml",
        &format!(
            "name: template\n{server}assert_resources:\n  read: mcpcheck://echo/hello\n  expect: {{not_error: true}}\n"
        ),
    );
    write(
        &d,
        "skipped.yaml",
        &format!(
            "name: skipped\n{server}skip: not today\nassert:\n  tool: lorem\n  expect: {{not_error: true}}\n"
        ),
    );
    d
}

#[test]
fn coverage_lists_what_the_suite_uses_and_misses() {
    let d = suite("coverage-lists");
    let (code, out, err) = run_mcpcheck(&["coverage", "--suite", d.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!("stdio://{BIN} serve: 2 of "))
            && first.contains("used by 3 tests"),
        "{out}"
    );
    let tools = out
        .lines()
        .find(|l| l.trim_start().starts_with("tools"))
        .unwrap_or_default();
    assert!(tools.contains("add (setup only)"), "{out}");
    assert!(
        tools.contains("lorem"),
        "a skipped test uses nothing: {out}"
    );
    assert!(!tools.contains("echo"), "{out}");
    assert!(
        out.contains("not offered by the server: tool `ecoh` (test \"typo\""),
        "{out}"
    );
    let templates = out
        .lines()
        .find(|l| l.trim_start().starts_with("templates"))
        .unwrap_or_default();
    // serve's own template and the conformance fixtures' one.
    assert!(
        templates.contains("1 of 2"),
        "the read expands the template: {out}"
    );

    let (code, json, _) = run_mcpcheck(&[
        "coverage",
        "--suite",
        d.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["covered"], 2);
    assert_eq!(v["servers"][0]["tools"]["not_offered"][0]["name"], "ecoh");
}

#[test]
fn min_fails_below_the_share_and_an_unreachable_server_fails() {
    let d = suite("coverage-min");
    let (code, _, err) = run_mcpcheck(&["coverage", "--suite", d.to_str().unwrap(), "--min", "90"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("below --min 90%"), "{err}");
    // 2 of serve's 44 items (conformance fixtures included) are used: 4.5%.
    let (code, _, err) = run_mcpcheck(&["coverage", "--suite", d.to_str().unwrap(), "--min", "4%"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) =
        run_mcpcheck(&["coverage", "--suite", d.to_str().unwrap(), "--min", "150"]);
    assert_eq!(code, Some(2), "{err}");

    let (code, _, err) = run_mcpcheck(&[
        "coverage",
        "--suite",
        d.to_str().unwrap(),
        "--server",
        "mcpcheck-no-such-server",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("cannot list what it offers") && err.contains("was not found"),
        "{err}"
    );
}

#[test]
fn results_mark_the_items_a_passing_test_uses() {
    let d = suite("coverage-results");
    // echo passes; the template's read fails (its expectation is made false).
    write(
        &d,
        "template.yaml",
        &format!(
            "name: template\nserver:\n  command: {BIN}\n  args: [serve]\nassert_resources:\n  read: mcpcheck://echo/hello\n  expect: {{contains: [no such text]}}\n"
        ),
    );
    let (_, results, _) = run_mcpcheck(&["run", "--suite", d.to_str().unwrap(), "--json"]);
    let file = d.join("results.json.out");
    std::fs::write(&file, &results).expect("write results");
    let (code, out, err) = run_mcpcheck(&[
        "coverage",
        "--suite",
        d.to_str().unwrap(),
        "--results",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.lines()
            .next()
            .unwrap_or_default()
            .contains(", 1 by a passing test ("),
        "{out}"
    );
    let templates = out
        .lines()
        .find(|l| l.trim_start().starts_with("templates"))
        .unwrap_or_default();
    assert!(
        templates.contains("0 passing")
            && templates.contains("no passing test: mcpcheck://echo/{text}"),
        "{out}"
    );
    // The typo's test failed with an error, and every test is in the results.
    assert!(!err.contains("is not in"), "{err}");

    let (code, _, err) = run_mcpcheck(&[
        "coverage",
        "--suite",
        d.to_str().unwrap(),
        "--results",
        file.to_str().unwrap(),
        "--min-passing",
        "50",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("below --min-passing 50%"), "{err}");

    // A test the results lack is named, and --min-passing needs --results.
    write(
        &d,
        "new.yaml",
        &format!(
            "name: new\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: lorem\n  expect: {{not_error: true}}\n"
        ),
    );
    let (code, _, err) = run_mcpcheck(&[
        "coverage",
        "--suite",
        d.to_str().unwrap(),
        "--results",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("test \"new\" is not in"), "{err}");
    let (code, _, err) = run_mcpcheck(&[
        "coverage",
        "--suite",
        d.to_str().unwrap(),
        "--min-passing",
        "5",
    ]);
    assert_eq!(code, Some(2), "{err}");
}
