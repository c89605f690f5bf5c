//! `run --watch`: a change to a suite file runs the suite again; a file with
//! errors is reported and waited on; `ci` refuses the flag.

mod cli_support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cli_support::{BIN, mcpcheck, run_mcpcheck, scratch, write};

/// Lines of the child's stdout until one contains `want` (or 60 s pass).
fn wait_for(lines: &mpsc::Receiver<String>, want: &str, seen: &mut String) -> bool {
    let end = Instant::now() + Duration::from_secs(60);
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                seen.push_str(&line);
                seen.push('\n');
                if line.contains(want) {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

#[test]
fn a_changed_suite_runs_again() {
    let d = scratch("watch");
    let test = |word: &str| {
        format!(
            "name: echo\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    contains: [{word}]\n"
        )
    };
    write(&d, "echo.yaml", &test("hi"));
    let mut child = mcpcheck()
        .args([
            "run",
            "--suite",
            d.to_str().unwrap(),
            "--watch",
            "--watch-interval",
            "100ms",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mcpcheck");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let ok = wait_for(&lines, "1 test: 1 passed", &mut seen)
        && wait_for(&lines, "watching 1 file for changes", &mut seen)
        && {
            write(&d, "echo.yaml", &test("bye"));
            wait_for(&lines, "1 test: 0 passed, 1 failed", &mut seen)
        }
        && wait_for(&lines, "watching", &mut seen)
        && {
            // A new file with an error: reported, and still watched.
            write(&d, "bad.yaml", "name: bad\n");
            wait_for(&lines, "watching 2 files", &mut seen)
        };
    let _ = child.kill();
    let _ = child.wait();
    assert!(ok, "{seen}");
    assert_eq!(seen.matches("changed: running again").count(), 2, "{seen}");
}

#[test]
fn ci_refuses_watch() {
    let d = scratch("watch-ci");
    write(
        &d,
        "t.yaml",
        "name: t\ntrace: []\ntrajectory: [{type: presence, tools: [a]}]\n",
    );
    let (code, _, err) = run_mcpcheck(&["ci", "--suite", d.to_str().unwrap(), "--watch"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--watch is for `mcpcheck run`"), "{err}");
}
