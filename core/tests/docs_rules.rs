//! Every rule table of the documentation is the registry's own: each family's
//! page carries its family's table between `<!-- rules:start … -->` and
//! `<!-- rules:end -->` (audit and fuzz share docs/probe.md, under
//! `audit-rules` and `fuzz-rules`), and docs/rules.md carries every family.
//! The tables are regenerated here and compared; `MCPCHECK_BLESS=1 cargo test
//! -p mcpcheck-core --test docs_rules` rewrites them.

// Tests read and (when blessing) write their documents; the no-I/O rule is for
// the library itself.
#![allow(clippy::disallowed_methods)]

use mcpcheck_core::findings::render::rules::table;
use mcpcheck_core::findings::{Family, RuleInfo};

fn path(doc: &str) -> String {
    format!("{}/../docs/{doc}", env!("CARGO_MANIFEST_DIR"))
}

/// The byte range of the section `name` of `doc` (after its start marker's
/// line, up to its end marker).
fn section(doc: &str, name: &str) -> std::ops::Range<usize> {
    let start = doc
        .find(&format!("<!-- {name}:start"))
        .and_then(|at| doc[at..].find('\n').map(|nl| at + nl + 1))
        .unwrap_or_else(|| panic!("no {name}:start marker"));
    let end = doc
        .find(&format!("<!-- {name}:end -->"))
        .unwrap_or_else(|| panic!("no {name}:end marker"));
    start..end
}

fn family(f: Family) -> Vec<&'static RuleInfo> {
    f.rules().iter().collect()
}

/// Checks (or, blessing, rewrites) the sections of one document.
fn hold(doc: &str, sections: &[(&str, String)]) {
    let file = path(doc);
    let mut text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let bless = std::env::var_os("MCPCHECK_BLESS").is_some();
    for (name, want) in sections {
        let range = section(&text, name);
        if bless {
            text.replace_range(range, want);
        } else {
            assert_eq!(
                &text[range],
                want.as_str(),
                "docs/{doc} section {name} differs from the registry; MCPCHECK_BLESS=1 cargo test -p mcpcheck-core --test docs_rules"
            );
        }
    }
    if bless {
        std::fs::write(&file, text).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
}

#[test]
fn each_family_page_carries_its_table() {
    hold(
        "invariants.md",
        &[("rules", table(&family(Family::Invariants)))],
    );
    hold("lint.md", &[("rules", table(&family(Family::Lint)))]);
    hold(
        "scan.md",
        &[
            ("rules", table(&family(Family::Scan))),
            ("config-rules", table(&family(Family::Config))),
            ("output-rules", table(&family(Family::Output))),
        ],
    );
    hold(
        "contract.md",
        &[("rules", table(&family(Family::Contract)))],
    );
    hold("http-probes.md", &[("rules", table(&family(Family::Http)))]);
    hold(
        "probe.md",
        &[
            ("audit-rules", table(&family(Family::Audit))),
            ("fuzz-rules", table(&family(Family::Fuzz))),
        ],
    );
    hold("lock.md", &[("rules", table(&family(Family::Lock)))]);
}

#[test]
fn the_rules_page_carries_every_family() {
    let sections: Vec<(String, String)> = Family::ALL
        .into_iter()
        .map(|f| (format!("rules-{}", f.as_str()), table(&family(f))))
        .collect();
    let sections: Vec<(&str, String)> = sections
        .iter()
        .map(|(n, t)| (n.as_str(), t.clone()))
        .collect();
    hold("rules.md", &sections);
}
