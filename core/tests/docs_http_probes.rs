//! `docs/http-probes.md` lists the HTTP probe rules exactly as the core's
//! catalogue defines them: the table between its markers is regenerated here
//! and compared.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::http_probe;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/http-probes.md");

fn doc() -> String {
    std::fs::read_to_string(PATH).expect("docs/http-probes.md")
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
    for rule in http_probe::rules() {
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
fn http_probe_rules_table_matches_the_catalogue() {
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
        std::fs::write(PATH, updated).expect("docs/http-probes.md written");
        return;
    }
    assert_eq!(
        section(&doc, "rules"),
        table(),
        "regenerate the rules table in docs/http-probes.md (MCPCHECK_BLESS=1)"
    );
}

#[test]
fn http_probe_json_contract_and_names_are_documented() {
    let doc = doc();
    for key in [
        "\"version\": 1",
        "\"url\"",
        "\"code\"",
        "\"severity\"",
        "\"probe\"",
        "\"message\"",
        "\"evidence\"",
        http_probe::FOREIGN_ORIGIN,
        http_probe::REBINDING_HOST,
    ] {
        assert!(doc.contains(key), "docs/http-probes.md does not show {key}");
    }
    for name in http_probe::HIDDEN_TOOL_NAMES {
        assert!(
            doc.contains(&format!("`{name}`")),
            "docs/http-probes.md does not list the hidden tool name {name}"
        );
    }
}
