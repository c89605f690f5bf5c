//! The data of the HTML report (`--html DIR`, `--report html=DIR`): what
//! the page shows, as JSON. The page's own script (the CLI writes it next to
//! this data, from `cli/assets/report/`) only lays it out; every decision
//! about what a report says — a test's outcome, which message a failing check
//! looked at and where in it, what differs between an expected and an actual
//! value, how findings group by item and what their rules say — is made here.
//!
//! Two kinds of page, one shape of index:
//!
//! - a run of tests ([`run_index`]): the summary, and per test its outcome
//!   (`pass`, `flaky`, `fail`, `error`, `skip`), file, line, tags, server,
//!   timings, attempts and every check with expected and actual as values
//!   and a [`diff`] where both are structured (or multi-line text); each
//!   test that was recorded names its session file, which holds the
//!   timeline of its capture ([`run_session`]) and is loaded only when the
//!   test is opened;
//! - a findings report ([`findings_index`]): the JSON document of
//!   [`crate::findings::render::json`], the rules that have a finding with
//!   their explanation and fix, and the findings grouped by item (the
//!   report's cases).
//!
//! ```json
//! { "kind": "run", "version": 1, "title": "mcpcheck run", "summary": { … },
//!   "tests": [ { "id": 0, "outcome": "fail", "name": "…", "file": "…", "line": 3,
//!                "checks": [ { …, "diff": [ {"path": "$.a", "op": "changed",
//!                                            "expected": 1, "actual": 2} ] } ],
//!                "session": "sessions/0.js" } ] }
//! ```

use serde_json::{Map, Value, json};

use crate::findings::{Report, render::json as findings_json};
use crate::results::{CheckResult, CheckStatus, Results, TestResult};

/// The version of the page's data; fields are only ever added.
pub const DATA_VERSION: u32 = 1;

/// The most rows a [`diff`] lists; the rest are counted.
pub const MAX_DIFF_ROWS: usize = 200;

/// The most lines a line diff compares on either side (it is quadratic).
const MAX_DIFF_LINES: usize = 2000;

/// The index of a run's report. `sessions[i]` is the path (relative to the
/// report's folder) of test i's session file, or `None` when the test has
/// no recorded session. `title` heads the page.
pub fn run_index(r: &Results, sessions: &[Option<String>], title: &str) -> Value {
    let tests: Vec<Value> = r
        .tests
        .iter()
        .enumerate()
        .map(|(i, t)| test_entry(i, t, sessions.get(i).cloned().flatten()))
        .collect();
    let mut doc = json!({
        "kind": "run",
        "version": DATA_VERSION,
        "title": title,
        "tool": r.tool,
        "summary": r.summary,
        "passed": r.ok(),
        "tests": tests,
    });
    if let Some(rel) = &r.reliability {
        doc["reliability"] = json!(rel);
    }
    if !r.metric_rollups.is_empty() {
        doc["metric_rollups"] = json!(r.metric_rollups);
    }
    doc
}

fn test_entry(id: usize, t: &TestResult, session: Option<String>) -> Value {
    let mut v = serde_json::to_value(t).unwrap_or(Value::Null);
    let Some(m) = v.as_object_mut() else {
        return Value::Null;
    };
    m.insert("id".into(), json!(id));
    m.insert("outcome".into(), json!(t.outcome()));
    if let Some(Value::Array(checks)) = m.get_mut("checks") {
        for (c, out) in t.checks.iter().zip(checks.iter_mut()) {
            let rows = check_diff(c);
            if !rows.is_empty()
                && let Some(o) = out.as_object_mut()
            {
                o.insert("diff".into(), Value::Array(rows));
            }
        }
    }
    m.insert("session".into(), session.map_or(Value::Null, Value::String));
    v
}

/// The diff shown under a check that did not pass, when its expected and
/// actual values are both there and at least one is structured (or both are
/// text of several lines).
fn check_diff(c: &CheckResult) -> Vec<Value> {
    if c.status == CheckStatus::Pass {
        return Vec::new();
    }
    let Some(actual) = &c.actual_value else {
        return Vec::new();
    };
    if c.expected_value.is_null() {
        return Vec::new();
    }
    diff(&c.expected_value, actual)
}

/// What differs between `expected` and `actual`, as rows for people:
///
/// - when either is an object or an array, one row per leaf that differs
///   (`{"path": "$.a[0]", "op": "changed" | "added" | "removed",
///   "expected", "actual"}`), arrays compared index by index;
/// - when both are strings of several lines, a line diff (`{"op": "same" |
///   "added" | "removed", "text"}`, `added` being in the actual text only);
/// - otherwise nothing (the two values, side by side, say it all).
///
/// At most [`MAX_DIFF_ROWS`] rows; a last `{"op": "more", "count": n}` row
/// says how many were left out.
pub fn diff(expected: &Value, actual: &Value) -> Vec<Value> {
    let structured = |v: &Value| v.is_object() || v.is_array();
    let mut rows = Vec::new();
    if structured(expected) || structured(actual) {
        walk("$", expected, actual, &mut rows);
    } else if let (Some(a), Some(b)) = (expected.as_str(), actual.as_str())
        && (a.contains('\n') || b.contains('\n'))
        && a != b
    {
        rows = line_diff(a, b);
    }
    if rows.len() > MAX_DIFF_ROWS {
        let more = rows.len() - MAX_DIFF_ROWS;
        rows.truncate(MAX_DIFF_ROWS);
        rows.push(json!({"op": "more", "count": more}));
    }
    rows
}

/// `$.name`, or `$["odd key"]` for a key that is not a plain name.
fn member(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

fn walk(path: &str, expected: &Value, actual: &Value, rows: &mut Vec<Value>) {
    // Past the limit the rows are only counted, never built in full.
    if rows.len() > MAX_DIFF_ROWS * 4 {
        return;
    }
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    Some(vb) => walk(&member(path, k), va, vb, rows),
                    None => {
                        rows.push(json!({"path": member(path, k), "op": "removed", "expected": va}))
                    }
                }
            }
            for (k, vb) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                rows.push(json!({"path": member(path, k), "op": "added", "actual": vb}));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let p = format!("{path}[{i}]");
                match (a.get(i), b.get(i)) {
                    (Some(va), Some(vb)) => walk(&p, va, vb, rows),
                    (Some(va), None) => {
                        rows.push(json!({"path": p, "op": "removed", "expected": va}))
                    }
                    (None, Some(vb)) => rows.push(json!({"path": p, "op": "added", "actual": vb})),
                    (None, None) => {}
                }
            }
        }
        (a, b) if a == b => {}
        (a, b) => rows.push(json!({"path": path, "op": "changed", "expected": a, "actual": b})),
    }
}

/// A line diff of two texts (longest common subsequence), `added` lines
/// being the actual text's own. Texts longer than [`MAX_DIFF_LINES`] lines
/// are compared as one changed block.
fn line_diff(expected: &str, actual: &str) -> Vec<Value> {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let row = |op: &str, text: &str| json!({"op": op, "text": text});
    if a.len() > MAX_DIFF_LINES || b.len() > MAX_DIFF_LINES {
        let mut rows: Vec<Value> = a.iter().map(|l| row("removed", l)).collect();
        rows.extend(b.iter().map(|l| row("added", l)));
        return rows;
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut rows = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            rows.push(row("same", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            rows.push(row("added", b[j]));
            j += 1;
        } else {
            rows.push(row("removed", a[i]));
            i += 1;
        }
    }
    rows
}

/// One test's session, for its page: the timeline of its capture (every
/// message as the capture holds it), the exchange its checks looked at (the
/// last one of `method`, the request the test is about) with, for each
/// check that did not pass, the JSON pointer of what it looked at inside
/// that exchange's response, the server's stderr, and how long the test
/// took. A capture that cannot be read gives `{"error": why}` beside the
/// rest.
pub fn run_session(capture: &str, method: Option<&str>, test: &TestResult, stderr: &str) -> Value {
    let mut doc = Map::new();
    doc.insert("version".into(), json!(DATA_VERSION));
    doc.insert("duration_ms".into(), json!(test.duration_ms));
    doc.insert("stderr".into(), json!(stderr));
    match crate::capture::parse(capture) {
        Err(problems) => {
            let why = problems
                .first()
                .map_or_else(|| "it is not a capture".to_string(), |p| p.message.clone());
            doc.insert(
                "error".into(),
                json!(format!("the capture cannot be read: {why}")),
            );
        }
        Ok(parsed) => {
            let timeline = crate::capture::timeline::timeline_verbatim(&parsed);
            let value = serde_json::to_value(&timeline).unwrap_or(Value::Null);
            let focus = focus(&value, method, &test.checks);
            doc.insert("timeline".into(), value);
            if let Some(f) = focus {
                doc.insert("focus".into(), f);
            }
        }
    }
    Value::Object(doc)
}

/// The session of an attempt before the reported one (`--retries`): as
/// [`run_session`] gives it (nothing but the error when no capture was
/// recorded), with the attempt's status, message and checks that did not
/// pass, since they are not in the index.
pub fn attempt_session(
    capture: &str,
    method: Option<&str>,
    attempt: &TestResult,
    stderr: &str,
) -> Value {
    let mut doc = if capture.is_empty() {
        json!({"version": DATA_VERSION, "duration_ms": attempt.duration_ms, "stderr": stderr})
    } else {
        run_session(capture, method, attempt, stderr)
    };
    doc["status"] = json!(attempt.status);
    doc["message"] = json!(attempt.message);
    let failing: Vec<Value> = attempt
        .checks
        .iter()
        .filter(|c| c.status != CheckStatus::Pass)
        .map(|c| {
            let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
            let rows = check_diff(c);
            if !rows.is_empty() {
                v["diff"] = Value::Array(rows);
            }
            v
        })
        .collect();
    doc["checks"] = Value::Array(failing);
    doc
}

/// Where the checks looked: `{"session", "exchange", "checks": [{"name",
/// "status", "pointer"}]}`, the pointer `null` when the check did not look
/// inside the response (a file, the duration).
fn focus(timeline: &Value, method: Option<&str>, checks: &[CheckResult]) -> Option<Value> {
    let method = method?;
    let sessions = timeline.as_array()?;
    let (si, xi, x) = sessions
        .iter()
        .enumerate()
        .flat_map(|(si, s)| {
            s["exchanges"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(xi, x)| (si, xi, x))
        })
        .filter(|(_, _, x)| x["method"] == method)
        .last()?;
    let response: Value = x["response"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null);
    let looked: Vec<Value> = checks
        .iter()
        .filter(|c| c.status != CheckStatus::Pass)
        .map(|c| {
            let pointer = c
                .path
                .as_deref()
                .and_then(|p| focus_pointer(p, method, &response));
            json!({"name": c.name, "status": c.status, "pointer": pointer})
        })
        .collect();
    Some(json!({"session": si, "exchange": xi, "checks": looked}))
}

fn escape_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The RFC 6901 pointer, into the response of the test's request, of what a
/// check's `path` (steps from the observation's root) looked at:
///
/// - `result…` and `error…` are the response's own members, step by step
///   up to the first wildcard;
/// - `text` is the content the text view joins: the result's `content`
///   (`messages` of `prompts/get`, `contents` of `resources/read`, the whole
///   result for another method);
/// - `json…` is in `structuredContent` when the result has it, else the
///   text content it was parsed from;
/// - anything else (`notifications`, `duration_ms`, a file) has none.
pub fn focus_pointer(path: &[Value], method: &str, response: &Value) -> Option<String> {
    let (first, rest) = path.split_first()?;
    let steps = |root: &str, steps: &[Value]| -> String {
        let mut p = root.to_string();
        for s in steps {
            match s {
                Value::String(k) if k == "*" => break,
                Value::String(k) => {
                    p.push('/');
                    p.push_str(&escape_token(k));
                }
                Value::Number(n) => {
                    p.push('/');
                    p.push_str(&n.to_string());
                }
                _ => break,
            }
        }
        p
    };
    let text_root = || -> String {
        match method {
            "tools/call" => "/result/content",
            "prompts/get" => "/result/messages",
            "resources/read" => "/result/contents",
            _ => "/result",
        }
        .to_string()
    };
    match first.as_str()? {
        "result" => Some(steps("/result", rest)),
        "error" => Some(steps("/error", rest)),
        "text" => Some(text_root()),
        "json" => {
            if response.pointer("/result/structuredContent").is_some() {
                Some(steps("/result/structuredContent", rest))
            } else {
                Some(text_root())
            }
        }
        _ => None,
    }
}

/// The index of a findings report: its JSON document, the rules that have a
/// finding (title, rationale, fix, source), `cases` (what was examined: an
/// item, a part of a doctor run, a protocol revision — how it ended, the
/// indices of its findings) and `groups`: the findings by item (`tool
/// echo`; a finding about no item by what it is about: the listing, the
/// session, its family), each on its server, in the order found.
pub fn findings_index(report: &Report, title: &str) -> Value {
    let mut doc = findings_json::value(report);
    let cases: Vec<Value> = report
        .cases_or_items()
        .iter()
        .map(|c| {
            json!({
                "suite": c.suite,
                "class": c.class,
                "name": c.name,
                "status": c.status.as_str(),
                "label": crate::findings::render::case_word(c),
                "detail": c.detail,
                "duration_ms": c.duration_ms,
                "findings": c.findings,
            })
        })
        .collect();
    let mut groups: Vec<(String, String, Vec<usize>)> = Vec::new();
    for (i, f) in report.findings.iter().enumerate() {
        let item = match &f.location.item {
            Some(_) => f.location.item_label(),
            None => f
                .location
                .context
                .clone()
                .unwrap_or_else(|| f.family().as_str().to_string()),
        };
        let server = f.server().to_string();
        match groups
            .iter_mut()
            .find(|(s, n, _)| *s == server && *n == item)
        {
            Some((_, _, list)) => list.push(i),
            None => groups.push((server, item, vec![i])),
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(server, name, findings)| {
            let worst = findings
                .iter()
                .map(|&i| report.findings[i].level())
                .min()
                .map_or("note", crate::findings::Level::as_str);
            json!({"server": server, "name": name, "level": worst, "findings": findings})
        })
        .collect();
    if let Some(m) = doc.as_object_mut() {
        m.insert("kind".into(), json!("findings"));
        m.insert(
            "tool".into(),
            json!({"name": "mcpcheck", "version": crate::VERSION}),
        );
        m.insert("data_version".into(), json!(DATA_VERSION));
        m.insert("title".into(), json!(title));
        m.insert(
            "facts".into(),
            Value::Array(
                report
                    .facts
                    .iter()
                    .map(|(k, v)| json!({"name": k, "value": v}))
                    .collect(),
            ),
        );
        m.insert("rules".into(), findings_json::rules_member(report));
        m.insert("cases".into(), Value::Array(cases));
        m.insert("groups".into(), Value::Array(groups));
        m.insert("summary_lines".into(), json!(report.summary));
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TestStatus;

    fn check(path: Option<Value>, expected: Value, actual: Option<Value>) -> CheckResult {
        CheckResult {
            name: "c".into(),
            status: CheckStatus::Fail,
            code: "exact".into(),
            target: "json".into(),
            path: path.and_then(|p| p.as_array().cloned()),
            matcher: "exact".into(),
            expected: String::new(),
            actual: String::new(),
            expected_value: expected,
            actual_value: actual,
            reason: "r".into(),
            weight: 1.0,
            set: None,
            line: Some(4),
        }
    }

    #[test]
    fn structured_values_differ_leaf_by_leaf() {
        let rows = diff(
            &json!({"a": 1, "b": [1, 2], "gone": true, "odd key": "x"}),
            &json!({"a": 2, "b": [1], "new": null, "odd key": "x"}),
        );
        assert_eq!(
            rows,
            vec![
                json!({"path": "$.a", "op": "changed", "expected": 1, "actual": 2}),
                json!({"path": "$.b[1]", "op": "removed", "expected": 2}),
                json!({"path": "$.gone", "op": "removed", "expected": true}),
                json!({"path": "$.new", "op": "added", "actual": null}),
            ]
        );
        assert_eq!(
            diff(&json!({"x y": 1}), &json!({"x y": 2}))[0]["path"],
            "$[\"x y\"]"
        );
        // A scalar against a structure is one change at the root.
        assert_eq!(
            diff(&json!("a"), &json!(["a"])),
            vec![json!({"path": "$", "op": "changed", "expected": "a", "actual": ["a"]})]
        );
        // Two scalars, or one-line strings: nothing to add to side by side.
        assert!(diff(&json!(1), &json!(2)).is_empty());
        assert!(diff(&json!("a"), &json!("b")).is_empty());
    }

    #[test]
    fn text_of_several_lines_differs_line_by_line() {
        let rows = diff(&json!("one\ntwo\nthree"), &json!("one\n2\nthree\nfour"));
        let ops: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r["op"].as_str().unwrap(), r["text"].as_str().unwrap()))
            .collect();
        assert_eq!(
            ops,
            [
                ("same", "one"),
                ("added", "2"),
                ("removed", "two"),
                ("same", "three"),
                ("added", "four")
            ]
        );
    }

    #[test]
    fn a_long_diff_is_cut_and_counted() {
        let a: Vec<u32> = (0..500).collect();
        let b: Vec<u32> = (1..501).collect();
        let rows = diff(&json!(a), &json!(b));
        assert_eq!(rows.len(), MAX_DIFF_ROWS + 1);
        assert_eq!(rows[MAX_DIFF_ROWS]["op"], "more");
        assert_eq!(rows[MAX_DIFF_ROWS]["count"], 300);
    }

    #[test]
    fn a_checks_path_points_into_the_response_it_looked_at() {
        let plain = json!({"result": {"content": [{"type": "text", "text": "hi"}]}});
        let structured = json!({"result": {"structuredContent": {"a": [1]}}});
        let p = |v: Value| v.as_array().cloned().unwrap();
        let table: Vec<(Value, &str, &Value, Option<&str>)> = vec![
            (
                json!(["text"]),
                "tools/call",
                &plain,
                Some("/result/content"),
            ),
            (
                json!(["text"]),
                "prompts/get",
                &plain,
                Some("/result/messages"),
            ),
            (
                json!(["text"]),
                "resources/read",
                &plain,
                Some("/result/contents"),
            ),
            (
                json!(["text"]),
                "completion/complete",
                &plain,
                Some("/result"),
            ),
            (
                json!(["result", "content", 0, "text"]),
                "tools/call",
                &plain,
                Some("/result/content/0/text"),
            ),
            (
                json!(["result", "isError"]),
                "tools/call",
                &plain,
                Some("/result/isError"),
            ),
            (
                json!(["json", "a", "*", "b"]),
                "tools/call",
                &structured,
                Some("/result/structuredContent/a"),
            ),
            (
                json!(["json", "a"]),
                "tools/call",
                &plain,
                Some("/result/content"),
            ),
            (
                json!(["error", "code"]),
                "tools/call",
                &plain,
                Some("/error/code"),
            ),
            (
                json!(["result", "a/b~c"]),
                "tools/call",
                &plain,
                Some("/result/a~1b~0c"),
            ),
            (json!(["notifications"]), "tools/call", &plain, None),
            (json!(["file", "out.txt"]), "tools/call", &plain, None),
        ];
        for (path, method, response, want) in table {
            assert_eq!(
                focus_pointer(&p(path.clone()), method, response).as_deref(),
                want,
                "{path} {method}"
            );
        }
    }

    #[test]
    fn a_session_names_the_last_exchange_of_the_tests_method_and_where_checks_looked() {
        let capture = r#"{"server_label": "s", "exchanges": [
            {"request": {"jsonrpc": "2.0", "id": 0, "method": "initialize"},
             "response": {"jsonrpc": "2.0", "id": 0, "result": {}}},
            {"request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "setup"}},
             "response": {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}},
            {"request": {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo"}},
             "response": {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "x"}]}},
             "request_time": "2026-01-02T03:04:05.000Z", "response_time": "2026-01-02T03:04:05.120Z"}
        ]}"#;
        let mut t = TestResult::fail("t", "a.yaml", Some(1), "no", 12);
        t.checks = vec![
            check(Some(json!(["text"])), json!("y"), Some(json!("x"))),
            check(Some(json!(["duration_ms"])), json!(1), Some(json!(2))),
        ];
        let s = run_session(capture, Some("tools/call"), &t, "boom\n");
        assert_eq!(s["focus"]["session"], 0);
        assert_eq!(s["focus"]["exchange"], 2);
        assert_eq!(s["focus"]["checks"][0]["pointer"], "/result/content");
        assert_eq!(s["focus"]["checks"][1]["pointer"], Value::Null);
        assert_eq!(s["stderr"], "boom\n");
        assert_eq!(s["duration_ms"], 12);
        let x = &s["timeline"][0]["exchanges"][2];
        assert_eq!(x["request_time"], "2026-01-02T03:04:05.000Z");
        assert_eq!(x["response_time"], "2026-01-02T03:04:05.120Z");
        // The messages are the capture's text.
        assert!(x["response"].as_str().unwrap().contains("\"text\": \"x\""));
        // No exchange of the method: no focus, the timeline still.
        let none = run_session(capture, Some("prompts/get"), &t, "");
        assert!(none.get("focus").is_none() && none["timeline"].is_array());
        let bad = run_session("{", Some("tools/call"), &t, "");
        assert!(
            bad["error"]
                .as_str()
                .unwrap()
                .starts_with("the capture cannot be read")
        );
    }

    #[test]
    fn the_index_says_each_tests_outcome_and_session() {
        let mut flaky = TestResult::fail("f", "a.yaml", Some(1), "", 3);
        flaky.status = TestStatus::Pass;
        flaky.flaky = true;
        let mut failing = TestResult::fail("x", "a.yaml", Some(5), "no", 3);
        failing.checks = vec![check(None, json!({"a": 1}), Some(json!({"a": 2})))];
        let r = Results::new(vec![flaky, failing], 6);
        let doc = run_index(&r, &[None, Some("sessions/1.js".into())], "mcpcheck run");
        assert_eq!(doc["kind"], "run");
        assert_eq!(doc["tests"][0]["outcome"], "flaky");
        assert_eq!(doc["tests"][0]["status"], "pass");
        assert_eq!(doc["tests"][0]["session"], Value::Null);
        assert_eq!(doc["tests"][1]["outcome"], "fail");
        assert_eq!(doc["tests"][1]["session"], "sessions/1.js");
        assert_eq!(doc["tests"][1]["checks"][0]["diff"][0]["path"], "$.a");
        assert_eq!(doc["summary"]["flaky"], 1);
    }

    #[test]
    fn findings_group_by_item_with_their_rules() {
        use crate::findings::{Finding, ItemKind, Location, registry};
        let rule = registry::lookup("E103").unwrap_or_else(|| panic!("E103"));
        let mut r = Report::new("lint", "listing.json");
        for (item, msg) in [("read", "a"), ("write", "b"), ("read", "c")] {
            r.findings.push(Finding::new(
                rule,
                Location::item(ItemKind::Tool, item),
                msg,
            ));
        }
        let mut about_nothing = Finding::new(rule, Location::default(), "d");
        about_nothing.location.context = Some("2025-11-25".into());
        r.findings.push(about_nothing);
        let doc = findings_index(&r, "mcpcheck lint");
        assert_eq!(doc["kind"], "findings");
        let groups: Vec<(String, Vec<u64>)> = doc["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["name"].as_str().unwrap().to_string(),
                    g["findings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|i| i.as_u64().unwrap())
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            groups,
            [
                ("tool read".to_string(), vec![0, 2]),
                ("tool write".to_string(), vec![1]),
                ("2025-11-25".to_string(), vec![3]),
            ]
        );
        assert_eq!(doc["groups"][0]["level"], "error");
        assert_eq!(doc["rules"]["E103"]["fix"], rule.fix);
        assert_eq!(doc["findings"][1]["message"], "b");
        assert!(doc["cases"].as_array().is_some_and(|c| !c.is_empty()));
    }
}
