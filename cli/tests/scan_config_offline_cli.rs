//! `scan --config` judges an untrusted client config without running
//! anything: its own text is scanned offline, and its servers are started
//! (or reached) only with `--start-servers`, which the output says. What a
//! `${VAR}` expanded to never reaches the output.

mod cli_support;

use std::net::TcpListener;
use std::time::Duration;

use cli_support::{mcpcheck, outcome, scratch, write};
use serde_json::json;

const SECRET: &str = "s3cret-config-value-42";

#[test]
fn a_config_is_judged_without_starting_or_reaching_anything() {
    let d = scratch("config-offline");
    let marker = d.join("ran");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let config = write(
        &d,
        "mcp.json",
        &json!({"mcpServers": {
            "shell": {"command": "sh", "args": ["-c", format!("touch {}", marker.display())]},
            "leaky": {"command": "npx", "args": ["server", "--token", "ghp_0123456789abcdefghijklmnopqrstuvwxyz01"]},
            "remote": {"url": url},
        }})
        .to_string(),
    );
    let (code, out, err) = outcome(
        &mcpcheck()
            .args([
                "scan",
                "--config",
                config.to_str().unwrap(),
                "--format",
                "json",
            ])
            .output()
            .expect("start mcpcheck"),
    );
    assert_eq!(
        code,
        Some(1),
        "the credential on a command line: {out}\n{err}"
    );
    let report: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    let findings = report["findings"].as_array().expect("findings");
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "S602" && f["field"] == "/mcpServers/leaky/args/2"),
        "{out}"
    );
    assert!(
        err.contains("none of its 3 servers was started or reached"),
        "says so: {err}"
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(!marker.exists(), "the config's command ran");
    assert!(listener.accept().is_err(), "the config's URL was reached");
}

#[test]
fn start_servers_starts_them_and_says_so() {
    let d = scratch("config-start");
    let marker = d.join("ran");
    let config = write(
        &d,
        "mcp.json",
        &json!({"mcpServers": {
            "shell": {"command": "sh", "args": ["-c", format!("touch {}", marker.display())]},
        }})
        .to_string(),
    );
    let (code, out, err) = outcome(
        &mcpcheck()
            .args([
                "scan",
                "--config",
                config.to_str().unwrap(),
                "--start-servers",
                "--timeout",
                "3s",
            ])
            .output()
            .expect("start mcpcheck"),
    );
    assert_eq!(code, Some(1), "not an MCP server: {out}\n{err}");
    assert!(
        err.contains("--start-servers: starting (or reaching) 1 server of"),
        "{err}"
    );
    assert!(err.contains("shell"), "{err}");
    assert!(marker.exists(), "started");
}

#[test]
fn what_a_variable_expanded_to_is_never_printed() {
    let d = scratch("config-secret");
    let config = write(
        &d,
        "mcp.json",
        &json!({"mcpServers": {
            // Prints its argument and its environment, then fails.
            "noisy": {"command": "sh",
                      "args": ["-c", "echo \"arg: $1 env: $NOISY_KEY\" >&2; echo \"not json $1\"; exit 3", "sh", "${CONFIG_SECRET}"],
                      "env": {"NOISY_KEY": "${CONFIG_SECRET}"}},
            "remote": {"url": "http://127.0.0.1:9/mcp?key=${CONFIG_SECRET}",
                       "headers": {"Authorization": "Bearer ${CONFIG_SECRET}"}},
        }})
        .to_string(),
    );
    let (code, out, err) = outcome(
        &mcpcheck()
            .env("CONFIG_SECRET", SECRET)
            .args([
                "scan",
                "--config",
                config.to_str().unwrap(),
                "--start-servers",
                "--timeout",
                "3s",
            ])
            .output()
            .expect("start mcpcheck"),
    );
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(err.contains("noisy") && err.contains("remote"), "{err}");
    assert!(
        !out.contains(SECRET) && !err.contains(SECRET),
        "{out}\n{err}"
    );
    assert!(err.contains("***"), "hidden, not dropped: {err}");
    // An unset variable is named, with no value.
    let (code, _, err) = outcome(
        &mcpcheck()
            .args([
                "scan",
                "--config",
                config.to_str().unwrap(),
                "--start-servers",
            ])
            .env_remove("CONFIG_SECRET")
            .output()
            .expect("start mcpcheck"),
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("${CONFIG_SECRET} is not set"), "{err}");
}
