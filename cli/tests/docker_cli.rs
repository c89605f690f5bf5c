//! `--docker IMAGE`: the stdio server runs as `ENGINE run --rm -i [-v
//! FIXTURE:FIXTURE] [-e NAME]… IMAGE CMD ARGS…`. The engine here is a shim
//! (`MCPCHECK_CONTAINER_ENGINE`) that logs its arguments and runs the
//! command it was given, so the tests see the exact command line a real
//! docker or podman would get, and the server still answers.

#![cfg(unix)]
// The engine is a shell-script shim made executable with Unix permissions.

mod cli_support;

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use cli_support::{BIN, mcpcheck, outcome, scratch, write};

/// The shim engine, and the log it appends one line of arguments to.
fn shim(dir: &Path) -> (PathBuf, PathBuf) {
    let log = dir.join("engine.log");
    let script = write(
        dir,
        "engine",
        &format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\n[ \"$1\" = run ] || exit 64\nshift\nwhile [ $# -gt 0 ]; do\n  case \"$1\" in\n    --rm|-i) shift ;;\n    -v|-e) shift 2 ;;\n    *) break ;;\n  esac\ndone\nshift\nexec \"$@\"\n",
            log.display()
        ),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    (script, log)
}

fn with_engine(engine: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    outcome(
        &mcpcheck()
            .env("MCPCHECK_CONTAINER_ENGINE", engine)
            .env("SERVER_TOKEN", "s3cret-value")
            .args(args)
            .output()
            .expect("start mcpcheck"),
    )
}

#[test]
fn run_audit_and_conformance_start_the_server_in_the_image() {
    let d = scratch("docker");
    let (engine, log) = shim(&d);
    let fixture = d.join("fixture");
    std::fs::create_dir_all(&fixture).expect("fixture dir");
    write(&fixture, "note.txt", "hello");
    let suite = write(
        &d,
        "echo.yaml",
        &format!(
            "name: echo in a container\nserver:\n  command: {BIN}\n  args: [serve]\n  env:\n    SERVER_TOKEN: ${{SERVER_TOKEN}}\nassert:\n  tool: echo\n  args: {{message: '{{{{fixture}}}}/note.txt'}}\n  expect:\n    contains: [note.txt]\n"
        ),
    );
    let (code, out, err) = with_engine(
        &engine,
        &[
            "run",
            "--suite",
            suite.to_str().unwrap(),
            "--fixture",
            fixture.to_str().unwrap(),
            "--docker",
            "example/mcp:1",
        ],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let line = std::fs::read_to_string(&log).expect("the engine ran");
    let first = line.lines().next().unwrap_or_default();
    // The fixture copy (not the original) is mounted at its own path, the
    // server's env passes by name only, then the image and the command.
    assert!(first.starts_with("run --rm -i -v "), "{first}");
    assert!(
        !first.contains(&format!("{}:", fixture.display())),
        "the original is never mounted: {first}"
    );
    assert!(first.contains(" -e SERVER_TOKEN example/mcp:1 "), "{first}");
    assert!(
        first.ends_with(&format!("example/mcp:1 {BIN} serve")),
        "{first}"
    );
    assert!(
        !line.contains("s3cret-value"),
        "a secret on the command line: {line}"
    );

    // audit and conformance take it the same way.
    std::fs::remove_file(&log).expect("reset the log");
    let server = format!("{BIN} serve");
    // (serve plants a schema mismatch, so audit finds one: exit 1.)
    let (code, out, err) = with_engine(
        &engine,
        &["audit", "--server", &server, "--docker", "example/mcp:2"],
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("healthy          tool echo"), "{out}");
    let (code, out, err) = with_engine(
        &engine,
        &[
            "conformance",
            "--server",
            &server,
            "--docker",
            "example/mcp:2",
        ],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let lines = std::fs::read_to_string(&log).expect("the engine ran");
    assert!(lines.lines().count() >= 2, "{lines}");
    assert!(
        lines
            .lines()
            .all(|l| l == format!("run --rm -i example/mcp:2 {BIN} serve")),
        "{lines}"
    );

    // A suite's own `docker:` wins over the flag.
    std::fs::remove_file(&log).expect("reset the log");
    let own = write(
        &d,
        "own.yaml",
        &format!(
            "name: own image\nserver:\n  command: {BIN}\n  args: [serve]\n  docker: example/own:3\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    contains: [hi]\n"
        ),
    );
    let (code, out, err) = with_engine(
        &engine,
        &[
            "run",
            "--suite",
            own.to_str().unwrap(),
            "--docker",
            "example/mcp:1",
        ],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let line = std::fs::read_to_string(&log).expect("the engine ran");
    assert!(
        line.contains(" example/own:3 ") && !line.contains("example/mcp:1"),
        "{line}"
    );

    // --docker needs a command to run in the image.
    let (code, _, err) = with_engine(
        &engine,
        &["audit", "--url", "http://127.0.0.1:9/mcp", "--docker", "x"],
    );
    assert_eq!(code, Some(2), "{err}");
}
