//! How a run schedules its servers: a reuse group is not dealt over
//! `--jobs` sessions when one serves it best, CPU-bound starts never
//! outnumber the cores, `share_server: false` keeps a file's tests apart,
//! `--reuse-server` says what it does not apply to, and what the servers
//! cost is remembered in the cache (without their arguments).

mod cli_support;

use std::path::Path;

use cli_support::{BIN, mcpcheck, outcome, scratch, write};
use serde_json::Value;

/// A test file for `mcpcheck serve` started through `sh -c PRELUDE`, which
/// may log and wait before the server starts.
fn test_file(dir: &Path, file: &str, prelude: &str, extra: &str) {
    write(
        dir,
        file,
        &format!(
            "name: {file}\n{extra}server:\n  command: sh\n  args: ['-c', '{prelude}; exec {BIN} serve']\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    equals: hi\n"
        ),
    );
}

fn run(dir: &Path, cache: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        &mcpcheck()
            .env("MCPCHECK_CACHE_DIR", cache)
            .args(["run", "--suite", dir.to_str().unwrap(), "--json"])
            .args(args)
            .output()
            .expect("start mcpcheck"),
    )
}

fn lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_group_of_quick_tests_gets_one_session_whatever_jobs_allows() {
    let d = scratch("one-session");
    let log = d.join("starts.log");
    // A slow start: 300 ms before the server answers.
    for i in 0..8 {
        test_file(
            &d.join("suite"),
            &format!("t{i}.yaml"),
            &format!("echo start >> {}; sleep 0.3", log.display()),
            "",
        );
    }
    let cache = d.join("cache");
    for _ in 0..2 {
        let _ = std::fs::remove_file(&log);
        let (code, out, err) = run(&d.join("suite"), &cache, &["-j", "4"]);
        assert_eq!(code, Some(0), "{out}{err}");
        // Eight 1 ms tests are not worth a second 300 ms start.
        assert_eq!(lines(&log).len(), 1, "{out}");
    }
    // What the cache holds: the command's name, never its arguments.
    let text = std::fs::read_to_string(cache.join("server-costs.json")).expect("a cache");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let servers = doc["servers"].as_object().expect("servers");
    assert_eq!(servers.len(), 1, "{text}");
    let (key, cost) = servers.iter().next().expect("one");
    assert!(key.ends_with(" sh"), "{key}");
    assert!(
        !text.contains("starts.log") && !text.contains(BIN),
        "{text}"
    );
    assert_eq!(cost["starts"], 2, "{text}");
    assert_eq!(cost["tests"], 16, "{text}");
    assert!(
        cost["start_ms"].as_f64().is_some_and(|ms| ms >= 250.0),
        "{text}"
    );
}

#[test]
fn cpu_bound_starts_never_outnumber_the_cores() {
    let d = scratch("start-slots");
    let log = d.join("starts.log");
    // Each start keeps a core busy for a while before the server answers,
    // and logs when it begins and when it is ready.
    let busy = "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done";
    for i in 0..6 {
        test_file(
            &d.join("suite"),
            &format!("t{i}.yaml"),
            &format!(
                "echo begin >> {log}; {busy}; echo ready >> {log}",
                log = log.display()
            ),
            "",
        );
    }
    let (code, out, err) = run(
        &d.join("suite"),
        &d.join("cache"),
        &["--isolate", "-j", "6"],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let (mut now, mut most) = (0usize, 0usize);
    let events = lines(&log);
    assert_eq!(events.len(), 12, "{events:?}");
    for e in &events {
        if e == "begin" {
            now += 1;
            most = most.max(now);
        } else {
            now -= 1;
        }
    }
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    assert!(
        most <= cores,
        "{most} starts at once on {cores} cores: {events:?}"
    );
}

#[test]
fn share_server_false_keeps_a_files_tests_apart_and_the_flag_says_so() {
    let d = scratch("isolated-file");
    let log = d.join("starts.log");
    let prelude = format!("echo start >> {}", log.display());
    for i in 0..3 {
        test_file(&d.join("suite"), &format!("t{i}.yaml"), &prelude, "");
    }
    test_file(
        &d.join("suite"),
        "alone.yaml",
        &prelude,
        "share_server: false\n",
    );
    let (code, out, err) = run(&d.join("suite"), &d.join("cache"), &["-j", "1"]);
    assert_eq!(code, Some(0), "{out}{err}");
    // The three share one; the one that says false has its own.
    assert_eq!(lines(&log).len(), 2);
    assert!(
        !err.contains("note"),
        "nothing asked for, nothing to say: {err}"
    );
    let _ = std::fs::remove_file(&log);
    let (code, _, err) = run(
        &d.join("suite"),
        &d.join("cache"),
        &["-j", "1", "--reuse-server"],
    );
    assert_eq!(code, Some(0));
    assert_eq!(lines(&log).len(), 2);
    assert!(
        err.contains("--reuse-server does not apply to the tests of")
            && err.contains("alone.yaml")
            && err.contains("share_server: false"),
        "{err}"
    );
    // --isolate says which files share all the same.
    test_file(
        &d.join("suite"),
        "opted.yaml",
        &prelude,
        "share_server: true\n",
    );
    let (code, _, err) = run(&d.join("suite"), &d.join("cache"), &["--isolate"]);
    assert_eq!(code, Some(0));
    // (The other lines of stderr are the progress lines, one per test.)
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("--isolate does not apply to the tests of"))
        .collect();
    assert!(notes.len() == 1 && notes[0].contains("opted.yaml"), "{err}");
    // The two cannot be asked for at once.
    let (code, _, err) = run(
        &d.join("suite"),
        &d.join("cache"),
        &["--isolate", "--reuse-server"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--isolate"), "{err}");
}

/// A shell server that logs `start` when it starts (after `sleep 0.5`) and
/// `call WORD` for each `say` call, answering WORD.
const SAYER: &str = r#"sleep 0.5
echo start >> "$LOG"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sayer","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      word=$(printf '%s' "$line" | sed -n 's/.*"word":"\([a-z0-9]*\)".*/\1/p')
      echo "call $word" >> "$LOG"
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$id" "$word" ;;
    *'"id":'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done
"#;

#[test]
fn a_re_run_starts_while_the_shared_session_goes_on() {
    let d = scratch("rerun-alongside");
    let log = d.join("calls.log");
    write(&d, "sayer.sh", SAYER);
    for (i, want) in ["nope", "w2", "w3", "w4"].iter().enumerate() {
        let word = format!("w{}", i + 1);
        write(
            &d.join("suite"),
            &format!("t{}.yaml", i + 1),
            &format!(
                "name: {word}\nserver:\n  command: sh\n  args: ['{}']\n  env: {{LOG: '{}'}}\nassert:\n  tool: say\n  args: {{word: {word}}}\n  expect:\n    equals: {want}\n",
                d.join("sayer.sh").display(),
                log.display()
            ),
        );
    }
    let (code, out, err) = run(&d.join("suite"), &d.join("cache"), &["-j", "2"]);
    assert_eq!(code, Some(1), "{out}{err}");
    let events = lines(&log);
    let at = |e: &str, nth: usize| {
        events
            .iter()
            .enumerate()
            .filter(|(_, x)| *x == e)
            .nth(nth)
            .map(|(i, _)| i)
            .unwrap_or_else(|| panic!("no {e} #{nth}: {events:?}"))
    };
    // The fresh server for w1's re-run takes half a second to start; the
    // shared session does not wait for it.
    assert_eq!(
        events.iter().filter(|e| *e == "start").count(),
        2,
        "{events:?}"
    );
    assert!(at("call w1", 1) > at("call w4", 0), "{events:?}");
    // With one lane, the re-run waits for the shared session to finish.
    let _ = std::fs::remove_file(&log);
    let (code, _, _) = run(&d.join("suite"), &d.join("cache"), &["-j", "1"]);
    assert_eq!(code, Some(1));
    let events = lines(&log);
    assert_eq!(
        events,
        [
            "start", "call w1", "call w2", "call w3", "call w4", "start", "call w1"
        ],
        "{events:?}"
    );
}

#[test]
fn a_server_that_never_exits_in_its_grace_is_killed_at_once_once_learned() {
    let d = scratch("futile-grace");
    let marker = d.join("late.txt");
    // The server exits when its input closes, but the shell around it
    // lingers: 50 ms later it writes a marker, then it waits for a kill.
    write(
        &d.join("suite"),
        "t.yaml",
        &format!(
            "name: lingers\nserver:\n  command: sh\n  args: ['-c', '{BIN} serve; sleep 0.05; echo late > {}; sleep 30']\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    equals: hi\n",
            marker.display()
        ),
    );
    let cache = d.join("cache");
    let killed = || -> Value {
        let text = std::fs::read_to_string(cache.join("server-costs.json")).expect("a cache");
        let doc: Value = serde_json::from_str(&text).expect("JSON");
        let servers = doc["servers"].as_object().expect("servers").clone();
        servers.values().next().expect("one server")["killed"].clone()
    };
    // Three shutdowns in a row end with the kill after the grace ...
    for n in 1..=3 {
        let (code, out, err) = run(&d.join("suite"), &cache, &[]);
        assert_eq!(code, Some(0), "{out}{err}");
        assert_eq!(killed(), n, "run {n}");
    }
    // ... so the fourth does not wait: the shell is killed before it writes.
    let _ = std::fs::remove_file(&marker);
    let (code, out, err) = run(&d.join("suite"), &cache, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(killed(), 4);
    assert!(
        !marker.exists(),
        "the grace was waited for although it never helped"
    );
}
