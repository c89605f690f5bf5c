//! `mcpcheck lock`: pin `mcpcheck serve`'s surface, check it unchanged, and
//! classify what a changed server (or a changed lockfile) shows.

mod cli_support;

use cli_support::{BIN, run_mcpcheck, scratch, write};

#[test]
fn a_pinned_surface_checks_clean_and_changes_are_classified() {
    let d = scratch("lock");
    let lockfile = d.join("mcp-lock.json");
    let server = format!("{BIN} serve");
    let (code, _, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &server,
        "--write",
        lockfile.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    // serve's own 22 definitions (15 tools, 3 prompts, 3 resources, 1
    // template), the conformance fixtures' 22 (14, 4, 3, 1) and the
    // extensions' 4 (the dashboard tool, two skills and the dashboard's view).
    assert!(err.contains("pinned 48 definitions"), "{err}");
    let (code, out, _) = run_mcpcheck(&[
        "lock",
        "--server",
        &server,
        "--check",
        lockfile.to_str().unwrap(),
    ]);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "the surface matches the lockfile\n")
    );

    // New tools are compatible.
    let buggy = format!("{BIN} serve --fault buggy-tools");
    let (code, out, _) = run_mcpcheck(&[
        "lock",
        "--server",
        &buggy,
        "--check",
        lockfile.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["compatible"], 5);
    assert_eq!(v["breaking"], 0);

    // The pinned `echo` said something else: the server's words for the
    // model changed under the same name (the rug-pull signal), and a tool
    // the lock knew is gone from the server's point of view.
    // The old lock is written from the listing as it was (a lock whose
    // hashes do not match its definitions is refused).
    let text = std::fs::read_to_string(&lockfile).expect("lockfile");
    let lock: serde_json::Value = serde_json::from_str(&text).expect("lockfile JSON");
    let mut listing =
        serde_json::json!({"tools": [], "prompts": [], "resources": [], "resourceTemplates": []});
    for item in lock["items"].as_array().expect("items") {
        let section = match item["kind"].as_str() {
            Some("tool") => "tools",
            Some("prompt") => "prompts",
            Some("resource") => "resources",
            _ => "resourceTemplates",
        };
        let mut definition = item["definition"].clone();
        if item["name"] == "echo" {
            definition["description"] = "Returns `message`.".into();
        }
        listing[section]
            .as_array_mut()
            .expect("a section")
            .push(definition);
    }
    listing["tools"]
        .as_array_mut()
        .expect("tools")
        .push(serde_json::json!({"name": "retired"}));
    let old_listing = write(&d, "old-listing.json", &listing.to_string());
    let (code, out, err) = run_mcpcheck(&[
        "lock",
        "--listing",
        old_listing.to_str().unwrap(),
        "--write",
        d.join("changed-lock.json").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let (code, out, _) = run_mcpcheck(&[
        "lock",
        "--server",
        &server,
        "--check",
        d.join("changed-lock.json").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("tool echo\n  L201 suspicious  /description  its `description` changed"),
        "{out}"
    );
    assert!(
        out.contains("tool retired\n  L101 breaking  the tool was removed"),
        "{out}"
    );

    // Offline, from a saved listing; an unreadable lockfile is a usage error.
    let listing = write(&d, "tools.json", r#"{"tools": [{"name": "echo"}]}"#);
    let (code, out, _) = run_mcpcheck(&[
        "lock",
        "--listing",
        listing.to_str().unwrap(),
        "--check",
        lockfile.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1));
    assert!(out.contains("breaking"), "{out}");
    let junk = write(&d, "junk.json", "{}");
    let (code, _, err) = run_mcpcheck(&[
        "lock",
        "--listing",
        listing.to_str().unwrap(),
        "--check",
        junk.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a lockfile"), "{err}");
}

#[test]
fn ci_with_a_lock_fails_on_a_rug_pull_and_passes_on_the_pinned_server() {
    let d = scratch("lock-ci");
    let lockfile = d.join("mcp-lock.json");
    let server = format!("{BIN} serve");
    let (code, _, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &server,
        "--write",
        lockfile.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let suite = write(
        &d,
        "echo.yaml",
        &format!(
            "name: echo answers\nserver:\n  command: {BIN}\n  args: [serve]\nassert:\n  tool: echo\n  args: {{message: hi}}\n  expect:\n    contains: [hi]\n"
        ),
    );
    let lock = lockfile.to_str().unwrap();
    let (code, out, err) =
        run_mcpcheck(&["ci", "--suite", suite.to_str().unwrap(), "--lock", lock]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("the surface matches the lockfile"), "{out}");

    // The same tests pass against a server whose echo now carries a hidden
    // instruction; the lock is what catches it.
    let pulled = format!("{BIN} serve --fault rug-pull");
    let (code, out, err) = run_mcpcheck(&[
        "ci",
        "--suite",
        suite.to_str().unwrap(),
        "--server",
        &pulled,
        "--lock",
        lock,
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("1 passed"), "{out}");
    assert!(
        out.contains("tool echo\n  L201 suspicious  /description  its `description` changed"),
        "{out}"
    );
    assert!(err.contains("differs from the lockfile"), "{err}");
    // Without --lock the run passes: the tests alone do not see it.
    let (code, _, _) = run_mcpcheck(&[
        "ci",
        "--suite",
        suite.to_str().unwrap(),
        "--server",
        &pulled,
    ]);
    assert_eq!(code, Some(0));
    // A lockfile that is not one is a usage error before anything runs.
    let bad = write(&d, "bad-lock.json", "{\"items\": 3}");
    let (code, _, err) = run_mcpcheck(&[
        "ci",
        "--suite",
        suite.to_str().unwrap(),
        "--lock",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad-lock.json"), "{err}");
    // lock --check in SARIF: one result per change, at the lockfile.
    let (code, out, _) = run_mcpcheck(&[
        "lock", "--server", &pulled, "--check", lock, "--format", "sarif",
    ]);
    assert_eq!(code, Some(1));
    let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{out}");
    assert_eq!(results[0]["ruleId"], "L201");
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    let index = results[0]["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    // The rule's earlier SARIF id stays known as its alias.
    assert_eq!(rules[index]["properties"]["aliases"][0], "lock-suspicious");
    assert!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("mcp-lock.json")
    );
}

#[test]
fn a_2026_server_is_pinned_with_its_discover_answer_and_a_lost_capability_breaks() {
    let d = scratch("lock-2026");
    let lockfile = d.join("mcp-lock.json");
    let lock = lockfile.to_str().unwrap();
    let server = format!("{BIN} serve");
    let (code, _, err) = run_mcpcheck(&[
        "lock",
        "--server",
        &server,
        "--protocol-version",
        "2026-07-28",
        "--write",
        lock,
    ]);
    assert_eq!(code, Some(0), "{err}");
    // The 44 listed definitions, the 2026-only fixtures, and the answer to
    // server/discover.
    let pinned: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&lockfile).expect("lockfile")).expect("JSON");
    let items = pinned["items"].as_array().expect("items");
    let discover: Vec<&serde_json::Value> = items
        .iter()
        .filter(|i| i["kind"] == "server" && i["name"] == "server/discover")
        .collect();
    assert_eq!(discover.len(), 1, "{pinned}");
    let definition = &discover[0]["definition"];
    assert!(
        definition["capabilities"]["tools"].is_object(),
        "{definition}"
    );
    assert!(definition.get("resultType").is_none(), "{definition}");
    let (code, out, _) = run_mcpcheck(&[
        "lock",
        "--server",
        &server,
        "--protocol-version",
        "2026-07-28",
        "--check",
        lock,
    ]);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "the surface matches the lockfile\n")
    );
    // The same server without its tools capability: only the discover
    // answer changed, and a capability no longer offered breaks clients.
    let without = format!("{BIN} serve --fault tools-without-capability");
    let (code, out, _) = run_mcpcheck(&[
        "lock",
        "--server",
        &without,
        "--protocol-version",
        "2026-07-28",
        "--check",
        lock,
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let changes = v["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 1, "{out}");
    assert_eq!(changes[0]["class"], "breaking");
    assert_eq!(changes[0]["kind"], "server");
    assert_eq!(changes[0]["field"], "/capabilities/tools");
}
