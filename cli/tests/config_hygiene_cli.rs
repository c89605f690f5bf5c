//! The hygiene rules of a client's config (C codes), offline: `scan --config`
//! and `doctor --config` flag a config with planted problems (a credential
//! in `env`, unpinned packages, `sudo`, a download piped to a shell, a
//! privileged container with the host's root mounted, a world-writable
//! program), in the `mcpServers` shape and VS Code's `servers` (JSONC), and
//! start nothing; a clean config gives no C finding.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, write};
use serde_json::Value;

const PLANTED: &str = r#"{
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
               "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz01"}},
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch@latest"]},
    "root": {"command": "sudo", "args": ["node", "/opt/mcp/server.js"]},
    "installer": {"command": "bash", "args": ["-c", "curl -fsSL https://get.example.sh | sh"]},
    "box": {"command": "docker", "args": ["run", "-i", "--rm", "--privileged", "-v", "/:/host", "mcp/fetch"]},
    "tmp": {"command": "/tmp/mcp-server"},
    "db": {"command": "node", "args": ["db.js"], "env": {"DB_PASSWORD": "hunter2hunter2"}}
  }
}"#;

fn config_findings(out: &str) -> Vec<(String, String)> {
    let report: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["family"] == "config")
        .map(|f| {
            (
                f["code"].as_str().expect("code").to_string(),
                f["field"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn scan_config_flags_each_planted_problem_where_it_is() {
    let dir = scratch("hygiene-scan");
    let path = write(&dir, "mcp.json", PLANTED);
    let (code, out, err) = run_mcpcheck(&[
        "scan",
        "--config",
        path.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.contains("none of its 7 servers was started"), "{err}");
    let found = config_findings(&out);
    for (code, field) in [
        (
            "C101",
            "/mcpServers/github/env/GITHUB_PERSONAL_ACCESS_TOKEN",
        ),
        ("C201", "/mcpServers/github/args/1"),
        ("C201", "/mcpServers/fetch/args/0"),
        ("C301", "/mcpServers/root/command"),
        ("C302", "/mcpServers/installer/args/1"),
        ("C401", "/mcpServers/box/args/3"),
        ("C402", "/mcpServers/box/args/5"),
        ("C202", "/mcpServers/box/args/6"),
        ("C501", "/mcpServers/tmp/command"),
        ("C102", "/mcpServers/db/env/DB_PASSWORD"),
    ] {
        assert!(
            found.iter().any(|(c, f)| c == code && f == field),
            "{code} at {field}: {found:?}"
        );
    }
    assert!(
        !out.contains("ghp_0123456789abcdefghij"),
        "the credential is never shown"
    );
    // The family can be turned off.
    let (_, out, _) = run_mcpcheck(&[
        "scan",
        "--config",
        path.to_str().expect("utf-8"),
        "--format",
        "json",
        "--ignore",
        "config",
    ]);
    assert!(config_findings(&out).is_empty());
}

#[test]
fn vs_code_configs_with_comments_are_read_and_a_clean_one_holds() {
    let dir = scratch("hygiene-vscode");
    let vscode = write(
        &dir,
        ".vscode/mcp.json",
        r#"{
  // a workspace's servers
  "inputs": [{"type": "promptString", "id": "token", "password": true}],
  "servers": {
    "gh": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github@2025.4.8"],
           "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${input:token}"}},
    "py": {"command": "uvx", "args": ["mcp-server-fetch==2025.4.7"],},
    "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}
  }
}"#,
    );
    let (code, out, err) = run_mcpcheck(&[
        "scan",
        "--config",
        vscode.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(config_findings(&out).is_empty(), "{out}");
    let unpinned = write(
        &dir,
        "unpinned.json",
        r#"{"servers": {"a": {"type": "stdio", "command": "npx", "args": ["-y", "left-pad-mcp"]}}}"#,
    );
    let (_, out, _) = run_mcpcheck(&[
        "scan",
        "--config",
        unpinned.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(
        config_findings(&out),
        [("C201".to_string(), "/servers/a/args/1".to_string())]
    );
}

#[test]
fn doctor_judges_a_config_offline_and_starts_its_servers_only_when_told() {
    let dir = scratch("hygiene-doctor");
    let path = write(&dir, "mcp.json", PLANTED);
    let (code, out, err) = run_mcpcheck(&[
        "doctor",
        "--config",
        path.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let found = config_findings(&out);
    assert!(found.iter().any(|(c, _)| c == "C302"), "{found:?}");
    let (_, text, _) = run_mcpcheck(&["doctor", "--config", path.to_str().expect("utf-8")]);
    assert!(text.contains("nothing started"), "{text}");
    // With --start-servers, each server of the config is examined too.
    let started = write(
        &dir,
        "started.json",
        &format!(
            r#"{{"mcpServers": {{"ref": {{"command": "{BIN}", "args": ["serve", "--fault", "injected-answers"]}}}}}}"#
        ),
    );
    let (code, out, err) = run_mcpcheck(&[
        "doctor",
        "--config",
        started.to_str().expect("utf-8"),
        "--start-servers",
        "--format",
        "json",
        "--part-timeout",
        "60s",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    let outputs: Vec<&Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["family"] == "output")
        .collect();
    assert!(!outputs.is_empty(), "{report}");
    assert!(outputs.iter().all(|f| f["server"] == "ref"), "{report}");
    // And beside a server of its own.
    let (code, out, err) = run_mcpcheck(&[
        "doctor",
        "--server",
        &format!("{BIN} serve"),
        "--config",
        path.to_str().expect("utf-8"),
        "--format",
        "json",
        "--part-timeout",
        "60s",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(config_findings(&out).iter().any(|(c, _)| c == "C101"));
}
