//! `mcpcheck generate` against the built-in server: the files it writes load,
//! run and cover every tool; existing files are never overwritten without
//! `--force`; a credential given as a header is written as a placeholder.

mod cli_support;

use std::collections::BTreeMap;
use std::path::Path;

use cli_support::{BIN, http_serve, mcpcheck, outcome, run_mcpcheck, scratch, write};
use serde_json::Value;

/// The built-in server's tools, prompts and resources, as it lists them.
const TOOLS: usize = 15;
const PROMPTS: usize = 3;
const RESOURCES: usize = 3;

fn serve_cmd() -> String {
    format!("{BIN} serve")
}

/// Every file of `dir` with its content.
fn contents(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn generated_suite_validates_runs_and_covers_every_tool() {
    let d = scratch("generate-suite").join("new/tests");
    let dir = d.to_str().unwrap();
    let (code, out, err) = run_mcpcheck(&["generate", "--server", &serve_cmd(), "--output", dir]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let files = contents(&d);
    assert_eq!(files.len(), TOOLS + PROMPTS + RESOURCES, "{files:?}");
    for name in [
        "echo.yaml",
        "add.yaml",
        "prompt_greeting.yaml",
        "resource_mcpcheck_static_text.yaml",
    ] {
        assert!(
            files.contains_key(name),
            "{name} missing: {:?}",
            files.keys()
        );
        assert!(out.contains(&format!("wrote {dir}/{name}")), "{out}");
    }
    assert!(
        out.contains(&format!("mcpcheck validate {dir}"))
            && out.contains(&format!("mcpcheck run --suite {dir}"))
            && out.contains(&format!("mcpcheck coverage --suite {dir}")),
        "next steps: {out}"
    );
    assert!(
        files["add.yaml"].contains(r#"args: {"a": 1, "b": 1}"#),
        "{}",
        files["add.yaml"]
    );
    assert!(
        files["prompt_greeting.yaml"]
            .contains(r#"get: {"name": "greeting", "arguments": {"name": "example"}}"#),
        "{}",
        files["prompt_greeting.yaml"]
    );

    let (code, out, err) = run_mcpcheck(&["validate", dir]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("0 errors"), "{out}");

    let (code, json, err) =
        run_mcpcheck(&["run", "--suite", dir, "--server", &serve_cmd(), "--json"]);
    // `fail` always fails; `sample`, `elicit` and `roots` need client
    // capabilities a generated test does not mock.
    assert_eq!(code, Some(1), "{err}");
    let v: Value = serde_json::from_str(&json).expect("JSON results");
    assert_eq!(v["summary"]["total"], TOOLS + PROMPTS + RESOURCES);
    assert_eq!(v["summary"]["errored"], 0, "{json}");
    let status = |name: &str| {
        v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["status"].as_str().unwrap_or_default().to_string())
    };
    for name in [
        "echo returns expected result",
        "add returns expected result",
        "prompt greeting renders",
        "resource mcpcheck://static/text can be read",
    ] {
        assert_eq!(status(name).as_deref(), Some("pass"), "{name}: {json}");
    }
    assert_eq!(
        status("fail returns expected result").as_deref(),
        Some("fail")
    );
    assert!(v["summary"]["passed"].as_u64().unwrap() >= 17, "{json}");

    let (code, out, err) = run_mcpcheck(&["coverage", "--suite", dir]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let line = |kind: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(kind))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        line("tools").contains(&format!("{TOOLS} of {TOOLS}")),
        "{out}"
    );
    assert!(!line("tools").contains("not used"), "{out}");
    assert!(line("prompts").contains("3 of 3"), "{out}");
    assert!(line("resources").contains("3 of 3"), "{out}");
}

#[test]
fn existing_files_are_kept_unless_forced() {
    let d = scratch("generate-force");
    let dir = d.to_str().unwrap();
    let mine = "# my own test, edited by hand\n";
    write(&d, "echo.yaml", mine);
    let (code, out, err) = run_mcpcheck(&["generate", "--server", &serve_cmd(), "--output", dir]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(
        err.contains(&format!("{dir}/echo.yaml already exists")),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        contents(&d).len(),
        1,
        "nothing is written when a file exists"
    );
    assert_eq!(contents(&d)["echo.yaml"], mine);

    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--output",
        dir,
        "--force",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let first = contents(&d);
    assert_eq!(first.len(), TOOLS + PROMPTS + RESOURCES);
    assert!(first["echo.yaml"].contains("tool: \"echo\""));

    // A second run without --force changes nothing.
    write(&d, "add.yaml", mine);
    let (code, _, err) = run_mcpcheck(&["generate", "--server", &serve_cmd(), "--output", dir]);
    assert_eq!(code, Some(2), "{err}");
    let second = contents(&d);
    assert_eq!(second["add.yaml"], mine);
    assert_eq!(second["echo.yaml"], first["echo.yaml"]);
}

#[test]
fn usage_errors_and_an_unreachable_server() {
    let d = scratch("generate-errors");
    let dir = d.join("out");
    let dir = dir.to_str().unwrap();
    let (code, _, err) = run_mcpcheck(&["generate", "--output", dir]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = run_mcpcheck(&["generate", "--server", &serve_cmd()]);
    assert_eq!(code, Some(2), "{err}");
    let file = write(&d, "plain", "x");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        &serve_cmd(),
        "--output",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a directory"), "{err}");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--server",
        "mcpcheck-no-such-server",
        "--output",
        dir,
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot list what it offers"), "{err}");
    assert!(!Path::new(dir).exists(), "nothing is created on failure");
}

#[test]
fn http_headers_that_carry_credentials_become_placeholders() {
    let server = http_serve(&["--bearer", "s3cret"]);
    let d = scratch("generate-http");
    let dir = d.to_str().unwrap();
    let (code, out, err) = run_mcpcheck(&[
        "generate",
        "--url",
        &server.url,
        "--header",
        "Authorization: Bearer s3cret",
        "--header",
        "Accept-Language: en",
        "--output",
        dir,
        "--timeout",
        "10s",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("${MCPCHECK_HEADER_AUTHORIZATION}")
            && err.contains("set MCPCHECK_HEADER_AUTHORIZATION"),
        "{err}"
    );
    let files = contents(&d);
    assert_eq!(files.len(), TOOLS + PROMPTS + RESOURCES);
    for (name, text) in &files {
        assert!(!text.contains("s3cret"), "{name}: {text}");
    }
    let whoami = &files["whoami.yaml"];
    assert!(
        whoami.contains(&format!(
            "server:\n  transport: \"http\"\n  url: \"{}\"\n  headers:\n    \"Authorization\": \"${{MCPCHECK_HEADER_AUTHORIZATION}}\"\n    \"Accept-Language\": \"en\"\n",
            server.url
        )),
        "{whoami}"
    );
    assert!(whoami.contains("timeout: 10s"), "{whoami}");

    // Legacy SSE is written as such.
    let sse = d.join("sse");
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--url",
        &server.url.replace("/mcp", "/sse"),
        "--transport",
        "sse",
        "--output",
        sse.to_str().unwrap(),
    ]);
    assert_eq!(
        code,
        Some(1),
        "without the bearer token nothing is listed: {err}"
    );
    let (code, _, err) = run_mcpcheck(&[
        "generate",
        "--url",
        &server.url.replace("/mcp", "/sse"),
        "--transport",
        "sse",
        "--header",
        "Authorization: Bearer s3cret",
        "--output",
        sse.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let echo = std::fs::read_to_string(sse.join("echo.yaml")).unwrap();
    assert!(echo.contains("transport: \"sse\""), "{echo}");
    std::fs::remove_dir_all(&sse).unwrap();

    // With the variable set, the generated tests reach the server.
    let (code, _, err) = run_mcpcheck(&["validate", dir]);
    assert_eq!(code, Some(0), "{err}");
    let o = mcpcheck()
        .args(["run", "--suite", &format!("{dir}/whoami.yaml"), "--json"])
        .env("MCPCHECK_HEADER_AUTHORIZATION", "Bearer s3cret")
        .output()
        .unwrap();
    let (code, json, err) = outcome(&o);
    assert_eq!(code, Some(0), "{json}\n{err}");
    assert!(!json.contains("s3cret"), "{json}");
}
