//! `mcpcheck load` and its own bounds: large answers from a healthy server
//! are no failure (each is let go of once judged), and a server that cannot
//! start is not started again and again: the waits grow, and the run stops.

mod cli_support;

use std::time::{Duration, Instant};

use cli_support::{BIN, run_mcpcheck, scratch, write};
use serde_json::Value;

#[test]
fn large_answers_over_one_long_session_are_no_failure() {
    // Each answer carries 20 MiB; nine of them pass the 160 MiB one session
    // may hold at once.
    let server = format!("{BIN} serve --fault huge-response");
    let (code, out, err) = run_mcpcheck(&[
        "load",
        "--server",
        &server,
        "--call",
        "echo",
        "--args",
        r#"{"message": "hi"}"#,
        "--requests",
        "9",
        "--concurrency",
        "1",
        "--timeout",
        "60s",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let doc: Value = serde_json::from_str(&out).expect("a JSON report");
    assert_eq!(doc["ok"], 9, "{doc}");
}

#[test]
fn a_server_that_cannot_start_is_not_started_again_and_again() {
    let d = scratch("load-no-start");
    let launches = d.join("launches");
    let script = write(
        &d,
        "server.sh",
        &format!("echo launched >> {}\nexit 1\n", launches.display()),
    );
    let server = format!("sh {}", script.display());
    let began = Instant::now();
    let (code, out, err) = run_mcpcheck(&[
        "load",
        "--server",
        &server,
        "--call",
        "echo",
        "--duration",
        "120s",
    ]);
    let took = began.elapsed();
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(err.contains("stopped early"), "{err}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
    let count = std::fs::read_to_string(&launches)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    // Ten failures in a row end the run; the four workers may each have
    // one start under way then.
    assert!((10..=14).contains(&count), "{count} launches");
}
