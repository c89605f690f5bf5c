//! The vocabulary tables of `docs/suites.md` and `README.md` are the
//! vocabulary registry (`mcpcheck_core::expect::registry`), row for row: a
//! key added to the registry fails here until it is documented, and a
//! documented key that the registry lacks fails too. On a mismatch the
//! message prints the table as the registry renders it.

// A test reads the documents it holds to the registry.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;

use mcpcheck_core::expect::registry::{self, Family};

fn read(rel: &str) -> String {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The body rows of the first table after the line `heading`.
fn table_after(doc: &str, heading: &str) -> Vec<String> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != heading);
    assert!(lines.next().is_some(), "docs/suites.md has no `{heading}`");
    lines
        .skip_while(|l| !l.starts_with("| ---"))
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(str::to_string)
        .collect()
}

/// The rows the registry gives a family, in its order.
fn rendered(family: Family) -> Vec<String> {
    registry::family(family)
        .map(|k| {
            if family == Family::Trajectory {
                format!("| `{}` | {} |", k.name, k.doc)
            } else {
                format!("| `{}` | {} | {} |", k.name, k.value, k.doc)
            }
        })
        .collect()
}

#[test]
fn suites_md_tables_are_the_registry() {
    let doc = read("docs/suites.md");
    let sections = [
        (Family::McpAssert, "### Map form: text and files"),
        (Family::Events, "### Map form: logging and notifications"),
        (Family::Json, "### Map form: JSON assertions"),
        (Family::Matcher, "#### Matchers"),
        (Family::Trajectory, "#### Assertion types"),
    ];
    let mut problems = Vec::new();
    for (family, heading) in sections {
        let written = table_after(&doc, heading);
        let want = rendered(family);
        if written != want {
            problems.push(format!(
                "docs/suites.md `{heading}` differs from the registry; it should read:\n{}\n",
                want.join("\n")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn readme_vocabulary_table_names_every_key() {
    let readme = read("README.md");
    let rows = [
        (Family::McpAssert, "| mcp-assert |"),
        (Family::Events, "| logging / notifications |"),
        (Family::Json, "| JSON assertions"),
        (Family::Matcher, "| list-form matchers |"),
        (Family::Trajectory, "| trajectory |"),
    ];
    for (family, label) in rows {
        let line = readme
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("README.md has no vocabulary row `{label}`"));
        let written: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        let want: Vec<&str> = registry::family(family).map(|k| k.name).collect();
        assert_eq!(
            written.iter().collect::<BTreeSet<_>>(),
            want.iter().collect::<BTreeSet<_>>(),
            "README.md row `{label}` should list: {}",
            want.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
}
