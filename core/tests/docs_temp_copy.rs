//! `docs/snapshot.md` lists the temporary copies snapshots and replay
//! normalize exactly as `mcpcheck_core::temp_copy::KINDS` has them.

// Tests read their fixture files; the no-I/O rule is for the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::temp_copy;

#[test]
fn the_table_of_temporary_copies_matches_the_core() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/snapshot.md");
    let doc = std::fs::read_to_string(path).expect("docs/snapshot.md");
    let start = doc
        .find("<!-- temp-copies:start -->\n")
        .expect("a temp-copies:start marker")
        + "<!-- temp-copies:start -->\n".len();
    let end = doc
        .find("<!-- temp-copies:end -->")
        .expect("a temp-copies:end marker");
    let mut table = String::from("| made by | the temporary directory |\n| --- | --- |\n");
    for (who, what) in temp_copy::KINDS {
        table.push_str(&format!("| {who} | {what} |\n"));
    }
    assert_eq!(
        &doc[start..end],
        table,
        "regenerate the table in docs/snapshot.md"
    );
}
