//! Offline inputs that attack the reader: a named pipe nobody writes to,
//! a symbolic link to `/dev/zero`, a file too large to hold, and a forged
//! shard record. Every command ends at once with exit 2 and a message
//! naming the file and what is wrong with it.

mod cli_support;

use std::time::{Duration, Instant};

use cli_support::{BIN, outcome, scratch, write};

/// `mcpcheck ARGS` under a 2 GB address-space cap and a 60 s wall clock
/// (`timeout` kills a read that never ends): (exit code, stdout, stderr).
fn capped(args: &[&str]) -> (Option<i32>, String, String, Duration) {
    let started = Instant::now();
    let o = std::process::Command::new("timeout")
        .args(["60", "prlimit", "--as=2147483648", "--", BIN])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run timeout and prlimit");
    let (code, out, err) = outcome(&o);
    (code, out, err, started.elapsed())
}

#[cfg(unix)]
#[test]
fn pipes_devices_and_huge_files_are_refused_by_every_offline_reader() {
    let d = scratch("offline-inputs");
    let fifo = d.join("pipe.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let zero = d.join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("a symbolic link");
    let huge = d.join("huge.json");
    let f = std::fs::File::create(&huge).expect("create");
    f.set_len(200 * 1024 * 1024).expect("a sparse 200 MiB file");
    let lock = write(
        &d,
        "ok.lock.json",
        r#"{"version": 1, "server": "s", "items": []}"#,
    );
    for input in [&fifo, &zero, &huge] {
        let p = input.to_str().unwrap();
        let runs: Vec<Vec<&str>> = vec![
            vec!["scan", "--listing", p],
            vec!["lint", "--listing", p],
            vec!["lock", "--listing", p, "--check", lock.to_str().unwrap()],
            vec!["invariants", "--capture", p],
            vec!["report", "--merge", p],
            vec!["replay", p],
            vec!["check", "--expect", p, "--response", p],
        ];
        for args in runs {
            let (code, out, err, took) = capped(&args);
            assert_eq!(code, Some(2), "{args:?}: {out}\n{err}");
            let why = if input == &huge {
                "more than the 128 MiB mcpcheck reads as one input"
            } else if input == &fifo {
                "it is a named pipe; mcpcheck reads its inputs from regular files only"
            } else {
                "it is a device; mcpcheck reads its inputs from regular files only"
            };
            assert!(err.contains(why) && err.contains(p), "{args:?}: {err}");
            assert!(took < Duration::from_secs(30), "{args:?} took {took:?}");
        }
    }
}

#[test]
fn a_forged_shard_total_is_refused_not_counted_out() {
    let d = scratch("forged-shard");
    let suite = write(
        &d,
        "suite.yaml",
        &format!(
            "name: echo\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect: {{equals: hi}}\n"
        ),
    );
    let (_, out, err, _) = capped(&[
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--shard",
        "1/2",
        "--json",
    ]);
    let mut doc: serde_json::Value = serde_json::from_str(&out).expect(&err);
    doc["shard"]["total"] = serde_json::json!(u32::MAX);
    let p = write(&d, "part.json", &doc.to_string());
    let (code, out, err, _) = capped(&["report", "--merge", p.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(err.contains("and 4294967284 more are missing"), "{err}");
}
