//! `mcpcheck scan`: saved listings from the poisoned and benign corpus of
//! the core's vectors, a client config of several live servers (shadowing),
//! the JSON contract and the exit codes.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, write};
use serde_json::Value;

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/vectors/scan");

/// A corpus vector's listing, written alone to a file.
fn listing_file(dir: &std::path::Path, vector: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(format!("{VECTORS}/{vector}")).expect("vector");
    let v: Value = serde_json::from_str(&text).expect("vector JSON");
    write(dir, vector, &v["listing"].to_string())
}

#[test]
fn poisoned_listings_fail_and_benign_ones_pass() {
    let d = scratch("scan-corpus");
    let names: Vec<String> = std::fs::read_dir(VECTORS)
        .expect("vectors")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("corpus-"))
        .collect();
    assert!(names.len() >= 15, "{names:?}");
    for name in names {
        let text = std::fs::read_to_string(format!("{VECTORS}/{name}")).expect("vector");
        let v: Value = serde_json::from_str(&text).expect("JSON");
        if v.get("listing").is_none() {
            continue;
        }
        let file = listing_file(&d, &name);
        let (code, out, err) = run_mcpcheck(&[
            "scan",
            "--listing",
            file.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let report: Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{name}: {e}: {out}{err}"));
        assert_eq!(report["version"], 1);
        let high = report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["severity"] == "high");
        if name.starts_with("corpus-poisoned") {
            assert_eq!(code, Some(1), "{name}: {out}");
            assert!(high, "{name}: {out}");
            let first = &report["findings"][0];
            for key in [
                "code", "severity", "server", "item", "field", "message", "evidence",
            ] {
                assert!(first.get(key).is_some(), "{name}: no {key} in {first}");
            }
        } else {
            assert_eq!(code, Some(0), "{name}: {out}");
            assert!(!high, "{name}: {out}");
        }
    }
}

#[test]
fn a_client_config_of_live_servers_shows_shadowing() {
    let d = scratch("scan-config");
    let config = write(
        &d,
        "mcp.json",
        &serde_json::json!({"mcpServers": {
            "plain": {"command": BIN, "args": ["serve"]},
            "buggy": {"command": BIN, "args": ["serve", "--fault", "buggy-tools"]},
        }})
        .to_string(),
    );
    let (code, out, err) = run_mcpcheck(&[
        "scan",
        "--config",
        config.to_str().unwrap(),
        "--start-servers",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    let echo = report["findings"]
        .as_array()
        .and_then(|f| {
            f.iter()
                .find(|x| x["code"] == "S901" && x["item"] == "echo")
        })
        .unwrap_or_else(|| panic!("no S901 for echo: {out}"));
    assert!(["plain", "buggy"].contains(&echo["server"].as_str().unwrap_or_default()));
    // One server alone shadows nothing; --fail-on and --skip-rules gate.
    let (code, out, _) = run_mcpcheck(&["scan", "--server", &format!("{BIN} serve")]);
    assert_eq!(code, Some(0), "{out}");
    let (code, _, _) = run_mcpcheck(&[
        "scan",
        "--config",
        config.to_str().unwrap(),
        "--start-servers",
        "--skip-rules",
        "S901,S902",
    ]);
    assert_eq!(code, Some(0));
    let (code, _, err) = run_mcpcheck(&[
        "scan",
        "--config",
        config.to_str().unwrap(),
        "--skip-rules",
        "S999",
    ]);
    assert_eq!(code, Some(2), "{err}");
    // (VS Code's `servers` is a config too.)
    let bad = write(&d, "bad.json", "{\"tools\": {}}");
    let (code, _, err) = run_mcpcheck(&["scan", "--config", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no `mcpServers` object"), "{err}");
}

#[test]
fn a_config_entry_gets_its_env_and_unknown_keys_are_refused() {
    let d = scratch("scan-config-env");
    // The server starts only when the entry's env reaches it.
    let gated = format!("[ \"$SCAN_GATE\" = open ] && exec {BIN} serve");
    let config = |env: Value| {
        write(
            &d,
            "mcp.json",
            &serde_json::json!({"mcpServers": {
                "gated": {"command": "sh", "args": ["-c", gated], "env": env},
            }})
            .to_string(),
        )
    };
    let open = config(serde_json::json!({"SCAN_GATE": "open"}));
    let (code, out, err) = run_mcpcheck(&[
        "scan",
        "--config",
        open.to_str().unwrap(),
        "--start-servers",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let closed = config(serde_json::json!({"SCAN_GATE": "shut"}));
    let (code, out, err) = run_mcpcheck(&[
        "scan",
        "--config",
        closed.to_str().unwrap(),
        "--start-servers",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.contains("gated"), "{err}");
    // `${VAR}` is expanded from mcpcheck's environment, as clients do.
    let expanded = config(serde_json::json!({"SCAN_GATE": "${SCAN_GATE_FROM_ENV:-open}"}));
    let (code, out, err) = run_mcpcheck(&[
        "scan",
        "--config",
        expanded.to_str().unwrap(),
        "--start-servers",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let unset = config(serde_json::json!({"SCAN_GATE": "${SCAN_GATE_NEVER_SET}"}));
    let (code, _, err) = run_mcpcheck(&[
        "scan",
        "--config",
        unset.to_str().unwrap(),
        "--start-servers",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("SCAN_GATE_NEVER_SET"), "{err}");
    let typo = write(
        &d,
        "typo.json",
        &serde_json::json!({"mcpServers": {"x": {"command": BIN, "enviroment": {}}}}).to_string(),
    );
    let (code, _, err) = run_mcpcheck(&["scan", "--config", typo.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("unknown key `enviroment`") && err.contains("server `x`"),
        "{err}"
    );
}
