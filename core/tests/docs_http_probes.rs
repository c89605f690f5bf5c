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

/// The table as the catalogue gives it.
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
