//! Errors are typed (see ARCHITECTURE.md, "Errors"): a function that fails
//! returns an error enum whose variants carry the data, not a `String`. The
//! few `Result<_, String>` left are listed here, each with why; a new one
//! fails this test, and so does a listed one that is gone (so the list
//! shrinks with the code).

use std::path::{Path, PathBuf};

/// The sites where a `String` error is allowed: the file, a piece of the
/// line that names the site, and why.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "web/src/runner.rs",
        "fn input_of(",
        "the message is handed to JavaScript as the step's error text",
    ),
    (
        "core/src/api.rs",
        "-> Result<TestResult, String>",
        "the public check API: its reason is the text the wasm module hands to JavaScript",
    ),
];

/// The lines (1-based) of `text` where a `Result<…, String>` type begins:
/// the last argument of a `Result<` at the top level of its angle brackets
/// is `String`. A type written over several lines (rustfmt breaks long
/// ones, with a trailing comma) counts at the line of its `Result<`.
fn string_error_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("Result<").map(|i| from + i) {
        from = at + "Result<".len();
        let args = &text[from..];
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut end = None;
        for (i, c) in args.char_indices() {
            match c {
                '<' | '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                '>' if depth == 0 => {
                    end = Some(i);
                    break;
                }
                '>' => depth -= 1,
                ',' if depth == 0 => commas.push(i),
                // A signature or a field ends here: this `Result<` is not a type.
                '{' | ';' if depth == 0 => break,
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        // The last argument, before a trailing comma if there is one.
        let mut last = None;
        for &comma in commas.iter().rev() {
            let after = args[comma + 1..last.unwrap_or(end)].trim();
            if !after.is_empty() || last.is_some() {
                if after == "String" {
                    lines.push(text[..at].matches('\n').count() + 1);
                }
                break;
            }
            last = Some(comma);
        }
    }
    lines
}

/// Whether `line` holds a `Result<…, String>` type.
fn has_string_error(line: &str) -> bool {
    !string_error_lines(line).is_empty()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn string_errors_stay_at_the_listed_sites() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found: Vec<(String, String)> = Vec::new();
    for dir in ["cli/src", "core/src", "web/src"] {
        let mut files = Vec::new();
        rust_files(&root.join(dir), &mut files);
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            let name = file
                .strip_prefix(&root)
                .expect("under the workspace")
                .display()
                .to_string();
            let lines: Vec<&str> = text.lines().collect();
            for n in string_error_lines(&text) {
                found.push((name.clone(), lines[n - 1].trim().to_string()));
            }
        }
    }
    let allowed = |(file, line): &(String, String)| {
        ALLOWED
            .iter()
            .any(|(f, piece, _)| f == file && line.contains(piece))
    };
    let new: Vec<String> = found
        .iter()
        .filter(|site| !allowed(site))
        .map(|(f, l)| format!("{f}: {l}"))
        .collect();
    assert!(
        new.is_empty(),
        "a `Result<_, String>` outside the listed sites: give it a typed error \
         (a thiserror enum whose Display is the message) instead:\n{}",
        new.join("\n")
    );
    let gone: Vec<String> = ALLOWED
        .iter()
        .filter(|(f, piece, _)| !found.iter().any(|(ff, l)| ff == f && l.contains(piece)))
        .map(|(f, piece, why)| format!("{f}: {piece} ({why})"))
        .collect();
    assert!(
        gone.is_empty(),
        "listed sites that no longer return a String error: take them off ALLOWED:\n{}",
        gone.join("\n")
    );
}

#[test]
fn the_scanner_sees_nested_and_qualified_results() {
    assert!(has_string_error("fn f() -> Result<(), String> {"));
    assert!(has_string_error(
        "fn f() -> std::result::Result<Vec<(String, u32)>, String> {"
    ));
    assert!(has_string_error("x: Option<Result<Option<Fast>, String>>,"));
    assert!(!has_string_error(
        "fn f() -> Result<BTreeMap<String, String>, PatchError> {"
    ));
    assert!(!has_string_error("fn f() -> Result<String, ToolError> {"));
    assert!(!has_string_error("fn f() -> Result<String> {"));
    // A long type broken over lines, as rustfmt writes it.
    let broken = "fn f()\n-> std::result::Result<\n    (\n        Sequence,\n        Vec<Value>,\n    ),\n    String,\n> {\n";
    assert_eq!(string_error_lines(broken), vec![2]);
    let typed = "fn f() -> Result<\n    (Sequence, Vec<Value>),\n    FuzzError,\n> {\n";
    assert!(string_error_lines(typed).is_empty());
    // Not a type: a `Result<` with no closing bracket before the body.
    assert!(string_error_lines("// Result<T, String { x }> String>").is_empty());
}
