//! `mcpcheck run --list`: the tests a run would start, after `--filter` and
//! `--shard`, in suite order, without starting anything. Test runners that
//! show each suite test as one of their own (the pytest plugin) read the
//! JSON form.

use mcpcheck_core::suite::Test;
use serde_json::json;

/// The listing: `FILE:LINE  NAME` lines, or the JSON document
/// `{"version": 1, "tests": [{"name", "file", "line"}]}` (one line, with a
/// newline).
pub fn render<'a>(tests: impl Iterator<Item = &'a Test>, as_json: bool) -> String {
    let tests: Vec<&Test> = tests.collect();
    if as_json {
        let doc = json!({
            "version": 1,
            "tests": tests
                .iter()
                .map(|t| json!({"name": t.name, "file": t.file, "line": t.line}))
                .collect::<Vec<_>>(),
        });
        return format!("{doc}\n");
    }
    tests
        .iter()
        .map(|t| format!("{}:{}  {}\n", t.file, t.line, t.name))
        .collect()
}
