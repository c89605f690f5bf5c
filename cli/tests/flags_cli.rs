//! Flags that would be silently ignored in some company are refused (a
//! usage error naming both) or warned about on stderr: each combination
//! found, one row.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, write};

#[test]
fn flags_that_would_do_nothing_together_are_refused() {
    let d = scratch("flags-refused");
    let listing = write(&d, "listing.json", r#"{"tools": []}"#);
    let listing = listing.to_str().unwrap();
    let suite = write(
        &d,
        "s.yaml",
        "name: t\nserver: {command: srv}\nassert: {tool: echo}\n",
    );
    let suite = suite.to_str().unwrap();
    let capture = d.join("c.json");
    let capture = capture.to_str().unwrap();
    let rows: &[&[&str]] = &[
        // HTTP-only flags of a stdio server.
        &["serve", "--stdio", "--path", "/x"],
        &["serve", "--stdio", "--max-sessions", "3"],
        &["serve", "--stdio", "--oauth"],
        &["serve", "--stdio", "--request-timeout", "5s"],
        &["replay", listing, "--stdio", "--path", "/x"],
        &[
            "intercept",
            "--capture",
            capture,
            "--url",
            "http://127.0.0.1:9/mcp",
            "--",
            "true",
        ],
        &[
            "intercept",
            "--capture",
            capture,
            "--duration",
            "1s",
            "--",
            "true",
        ],
        // Connection flags with a saved listing.
        &["lint", "--listing", listing, "--timeout", "3s"],
        &[
            "lint",
            "--listing",
            listing,
            "--protocol-version",
            "2024-11-05",
        ],
        &[
            "lock",
            "--listing",
            listing,
            "--timeout",
            "3s",
            "--write",
            "x.lock",
        ],
        &["scan", "--listing", listing, "--timeout", "3s"],
        // A flag of another flag, without it.
        &["lint", "--server", "true", "--include-writes"],
        &["load", "--server", "true", "--suite", suite, "--args", "{}"],
        &[
            "load", "--server", "true", "--suite", suite, "--expect", suite,
        ],
        &["load", "--server", "true", "--call", "x", "--allow-remote"],
        &["audit", "--url", "http://127.0.0.1:9/mcp", "--fixture", "."],
        // Nothing to connect to: init writes the starter suite.
        &["init", "--timeout", "5s"],
        &["init", "--protocol-version", "2024-11-05"],
    ];
    for args in rows {
        let (code, out, err) = run_mcpcheck(args);
        assert_eq!(code, Some(2), "{args:?} is refused\n{out}{err}");
        assert!(
            err.contains("cannot be used with")
                || err.contains("required arguments were not provided"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn flags_that_turn_out_to_do_nothing_are_warned_about() {
    let d = scratch("flags-warned");
    // Only an HTTP server in the suite: --server and --docker replace stdio
    // servers, and there is none.
    let suite = write(
        &d,
        "http.yaml",
        "name: t\nserver: {transport: http, url: 'http://127.0.0.1:9/mcp'}\nassert: {tool: echo}\ntimeout: 2s\n",
    );
    let (_, out, err) = run_mcpcheck(&[
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--server",
        "node x.js",
        "--docker",
        "img",
    ]);
    for flag in ["--server", "--docker"] {
        assert!(
            err.contains(&format!(
                "mcpcheck: warning: {flag} applies to stdio servers, and no test of these suites has one: it is not used"
            )),
            "{out}{err}"
        );
    }
    // --fixture that the server's command line never names.
    let fixture = d.join("fx");
    write(&fixture, "a.txt", "a");
    let (_, _, err) = run_mcpcheck(&[
        "audit",
        "--server",
        &format!("{BIN} serve"),
        "--fixture",
        fixture.to_str().unwrap(),
    ]);
    assert!(
        err.contains("--server names neither {{fixture}} nor"),
        "{err}"
    );
}
