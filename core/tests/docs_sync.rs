//! `docs/invariants.md` lists the rules and hazards exactly as the core defines them:
//! the tables between its markers are regenerated here and compared.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::invariants;

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

#[test]
fn the_hazards_table_matches_the_catalogue() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/invariants.md");
    let doc = std::fs::read_to_string(path).expect("docs/invariants.md");

    let mut hazards = String::from("| Kind | Property | Source |\n|---|---|---|\n");
    for kind in invariants::HAZARDS {
        let info = kind.info();
        hazards.push_str(&format!(
            "| {} | {} | {} |\n",
            info.kind, info.property, info.citation
        ));
    }
    assert_eq!(
        section(&doc, "hazards"),
        hazards,
        "regenerate the hazards table in docs/invariants.md"
    );
}
