//! Reused servers (the default; `--reuse-server` says it again, `--isolate`
//! turns it off): tests with the same server share sessions, the fixture
//! copy is restored between them, and a test that does not pass on a shared
//! session is run again on a fresh one, so the verdicts are those of a run
//! where every test has its own. The servers log each start, so the tests
//! see how many were started.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, write};
use serde_json::Value;

fn statuses(doc: &Value) -> Vec<(String, String)> {
    doc["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_string(),
                t["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn shared_sessions_start_fewer_servers_and_never_change_a_verdict() {
    let d = scratch("reuse");
    let suite = d.join("suite");
    std::fs::create_dir_all(&suite).expect("suite dir");
    let log = d.join("starts.log");
    // `session-state` numbers the echo answers of a session: `hi #1` is
    // right on a fresh server only, so a shared session fails such a test
    // and the re-run on a fresh one must pass it.
    let test = |file: &str, name: &str, fault: bool, message: &str, want: &str| {
        let tag = if fault { "stateful" } else { "plain" };
        let fault = if fault { " --fault session-state" } else { "" };
        write(
            &suite,
            file,
            &format!(
                "name: {name}\nserver:\n  command: sh\n  args: ['-c', 'echo {tag} >> {log}; exec {BIN} serve{fault}']\nassert:\n  tool: echo\n  args: {{message: '{message}'}}\n  expect:\n    equals: '{want}'\n",
                log = log.display()
            ),
        );
    };
    test("a.yaml", "stateful a", true, "a", "a #1");
    test("b.yaml", "stateful b", true, "b", "b #1");
    test("c.yaml", "stateful wrong", true, "c", "c #2");
    for i in 1..=5 {
        test(
            &format!("p{i}.yaml"),
            &format!("plain {i}"),
            false,
            "hi",
            "hi",
        );
    }
    test("p6.yaml", "plain wrong", false, "hi", "bye");
    let run = |extra: &[&str]| {
        let _ = std::fs::remove_file(&log);
        let mut args = vec![
            "run",
            "--suite",
            suite.to_str().unwrap(),
            "--json",
            "-j",
            "1",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = run_mcpcheck(&args);
        assert_eq!(code, Some(1), "two tests fail: {out}{err}");
        let doc: Value = serde_json::from_str(&out).expect("results JSON");
        let starts = std::fs::read_to_string(&log).unwrap_or_default();
        let count = |tag: &str| starts.lines().filter(|l| *l == tag).count();
        (doc, count("plain"), count("stateful"))
    };
    let (isolated, plain, stateful) = run(&["--isolate"]);
    assert_eq!((plain, stateful), (6, 3));
    let (default, plain_default, stateful_default) = run(&[]);
    assert_eq!(statuses(&default), statuses(&isolated));
    assert_eq!((plain_default, stateful_default), (2, 3));
    let (reused, plain_shared, stateful_shared) = run(&["--reuse-server"]);
    assert_eq!(statuses(&reused), statuses(&isolated));
    assert_eq!(reused["summary"]["passed"], 7);
    // Plain: one shared server, and one more for the failing test's re-run.
    assert_eq!(plain_shared, 2);
    // Stateful: one shared server; `b` and the wrong one fail there and are
    // run again on their own.
    assert_eq!(stateful_shared, 3);
    let warnings = |name: &str| -> Vec<String> {
        reused["tests"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == name))
            .and_then(|t| t["warnings"].as_array())
            .map(|w| {
                w.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        warnings("stateful b")
            .iter()
            .any(|w| w.contains("re-run on a fresh server") && w.contains("b #2")),
        "{:?}",
        warnings("stateful b")
    );
    assert!(warnings("stateful a").is_empty());
    assert!(warnings("plain wrong").iter().any(|w| w.contains("re-run")));
}

#[test]
fn test_files_that_say_share_server_share_with_their_directory_only() {
    let d = scratch("share-dir");
    let log = d.join("starts.log");
    let test = |dir: &str, file: &str, share: bool, want: &str| {
        let dir = d.join(dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let share = if share { "share_server: true\n" } else { "" };
        write(
            &dir,
            file,
            &format!(
                "name: {dir}/{file}\n{share}server:\n  command: sh\n  args: ['-c', 'echo {name} >> {log}; exec {BIN} serve']\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    equals: '{want}'\n",
                dir = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default(),
                name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default(),
                log = log.display()
            ),
        );
    };
    for i in 1..=4 {
        test("shared", &format!("t{i}.yaml"), true, "hi");
    }
    test("shared", "wrong.yaml", true, "bye");
    test("shared", "alone.yaml", false, "hi");
    test("other", "t1.yaml", true, "hi");
    test("other", "t2.yaml", true, "hi");
    let (code, out, err) =
        run_mcpcheck(&["run", "--suite", d.to_str().unwrap(), "--json", "-j", "1"]);
    assert_eq!(code, Some(1), "{out}{err}");
    let doc: Value = serde_json::from_str(&out).expect("results JSON");
    assert_eq!(doc["summary"]["passed"], 7);
    assert_eq!(doc["summary"]["failed"], 1);
    let starts = std::fs::read_to_string(&log).unwrap_or_default();
    let count = |tag: &str| starts.lines().filter(|l| *l == tag).count();
    // shared/: one session for the four that opted in and the wrong one,
    // the wrong one again on its own, and the one that did not opt in;
    // other/: a session of its own.
    assert_eq!((count("shared"), count("other")), (3, 1), "{starts}");
}
