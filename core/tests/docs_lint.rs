//! `docs/lint.md` lists the lint rules exactly as the core's catalogue defines them:
//! the table between its markers is regenerated here and compared. Its section on
//! mcp-assert accounts for every mcp-assert lint code.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

fn doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/lint.md");
    std::fs::read_to_string(path).expect("docs/lint.md")
}

#[test]
fn every_mcp_assert_code_is_accounted_for() {
    let doc = doc();
    let differences = doc
        .split("## Where we differ from mcp-assert")
        .nth(1)
        .expect("a section on mcp-assert");
    // mcp-assert's lint codes (internal/report/codes.go; W113 is unused there).
    let codes = [
        "E101", "E102", "E103", "E105", "E107", "E112", "E113", "E301", "W101", "W102", "W103",
        "W104", "W105", "W106", "W107", "W108", "W109", "W110", "W111", "W112", "W114", "W115",
        "W116",
    ];
    for code in codes {
        assert!(
            differences.contains(&format!("**{code}**")),
            "docs/lint.md does not say what became of mcp-assert's {code}"
        );
    }
}
