//! `docs/scan.md` lists the scan rules exactly as the core's catalogue defines them:
//! the table between its markers is regenerated here and compared.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::scan;

fn doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scan.md");
    std::fs::read_to_string(path).expect("docs/scan.md")
}

fn section<'a>(doc: &'a str, name: &str) -> &'a str {
    let start = doc
        .find(&format!("<!-- {name}:start"))
        .and_then(|at| doc[at..].find('\n').map(|nl| at + nl + 1))
        .unwrap_or_else(|| panic!("no {name}:start marker"));
    let end = doc
        .find(&format!("<!-- {name}:end -->"))
        .unwrap_or_else(|| panic!("no {name}:end marker"));
    &doc[start..end]
}

/// The table as the catalogue gives it.
fn table() -> String {
    let mut table = String::from(
        "| Code | Severity | Title | What it catches | Source |\n|---|---|---|---|---|\n",
    );
    for rule in scan::rules() {
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            rule.code,
            rule.severity.as_str(),
            rule.title,
            rule.rationale.replace('<', "&lt;"),
            rule.source.replace('<', "&lt;")
        ));
    }
    table
}

#[test]
fn scan_rules_table_matches_the_catalogue() {
    let doc = doc();
    if std::env::var_os("MCPCHECK_BLESS").is_some() {
        let current = section(&doc, "rules");
        let start = current.as_ptr() as usize - doc.as_ptr() as usize;
        let updated = format!(
            "{}{}{}",
            &doc[..start],
            table(),
            &doc[start + current.len()..]
        );
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scan.md"),
            updated,
        )
        .expect("docs/scan.md written");
        return;
    }
    assert_eq!(
        section(&doc, "rules"),
        table(),
        "regenerate the rules table in docs/scan.md (MCPCHECK_BLESS=1)"
    );
}

#[test]
fn scan_json_contract_is_documented() {
    let doc = doc();
    for key in [
        "\"version\": 1",
        "\"code\"",
        "\"severity\"",
        "\"server\"",
        "\"item\"",
        "\"kind\"",
        "\"field\"",
        "\"message\"",
        "\"evidence\"",
        "\"span\"",
    ] {
        assert!(doc.contains(key), "docs/scan.md does not show {key}");
    }
}
