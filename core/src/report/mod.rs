//! Renderers: results in, text out. The CLI writes what they return to the
//! terminal or to files; the playground paints the HTML variant.
//!
//! Every renderer is a pure function of a [`Results`](crate::results::Results)
//! document, so `mcpcheck report --from results.json` re-renders a saved run
//! exactly as the run itself would have: `text` (terminal and logs),
//! `junit` (CI test views), `markdown` (job summaries), `badge` (shields.io
//! endpoint JSON), `sarif` (code scanning), `github` (Actions annotations at
//! the YAML line of each failing check) and `tap` (TAP 14); `html` gives the
//! data of the HTML report, which the CLI writes beside its page. Findings reports
//! have their renderers in [`crate::findings::render`].

pub mod badge;
pub mod github;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod sarif;
pub mod tap;
pub mod text;

/// `n` and the noun agreeing with it: `1 test`, `2 tests`.
/// A test's checks in the order they were written (by line; checks without
/// one, as from expectations given as a JSON object, keep their order), so
/// a report reads top down like the suite file.
pub fn by_line<'a>(
    checks: impl IntoIterator<Item = &'a crate::results::CheckResult>,
) -> Vec<&'a crate::results::CheckResult> {
    let mut v: Vec<_> = checks.into_iter().collect();
    crate::sort::by_key(&mut v, |c| c.line.unwrap_or(0));
    v
}

pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `n` of `of` as a percentage with at most one decimal: `57.1%`, `100%`.
pub fn percent(n: usize, of: usize) -> String {
    if of == 0 {
        return "0%".into();
    }
    let p = (n as f64 * 1000.0 / of as f64).round() / 10.0;
    if p.fract() == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn percent() {
        let table = [
            (4, 7, "57.1%"),
            (3, 7, "42.9%"),
            (1, 1, "100%"),
            (0, 5, "0%"),
            (0, 0, "0%"),
            (2, 3, "66.7%"),
            (999, 1000, "99.9%"),
            (9995, 10000, "100%"),
        ];
        for (n, of, want) in table {
            assert_eq!(super::percent(n, of), want, "{n}/{of}");
        }
    }
}

#[cfg(test)]
mod by_line_tests {
    use super::*;
    use crate::results::{CheckResult, CheckStatus};

    fn check(name: &str, line: Option<u32>) -> CheckResult {
        CheckResult {
            name: name.into(),
            status: CheckStatus::Fail,
            code: "contains".into(),
            target: "text".into(),
            path: None,
            matcher: "contains".into(),
            expected: String::new(),
            actual: String::new(),
            expected_value: serde_json::Value::Null,
            actual_value: None,
            reason: String::new(),
            weight: 1.0,
            set: None,
            line,
        }
    }

    #[test]
    fn checks_are_listed_in_the_order_written() {
        let checks = [
            check("c", Some(12)),
            check("b", Some(11)),
            check("a", Some(10)),
            check("d", Some(13)),
        ];
        let names: Vec<&str> = by_line(&checks).iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        let unplaced = [check("y", None), check("x", None)];
        let names: Vec<&str> = by_line(&unplaced).iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["y", "x"], "without lines the order stays");
    }
}

/// The lookups every rule catalogue (lint's, scan's, the HTTP probes') has
/// over its `INFOS` rows (one per variant, in declaration order) and its
/// `ALL` list (catalogue order): `info`, `code`, `severity`, `from_code`,
/// `index`. `$example` is a code for the docs.
macro_rules! catalogue_lookups {
    ($rule:ident, $example:literal) => {
        impl $rule {
            /// The rule's published description.
            pub fn info(self) -> &'static $crate::findings::RuleInfo {
                // One row per variant, in declaration order (a test of each
                // catalogue holds them to it).
                &INFOS[self as usize]
            }

            #[doc = concat!("The rule's code, e.g. `", $example, "`.")]
            pub fn code(self) -> &'static str {
                self.info().code
            }

            /// The severity of the rule's findings.
            pub fn severity(self) -> $crate::findings::Severity {
                self.info().severity
            }

            /// The level of the rule's findings.
            pub fn level(self) -> $crate::findings::Level {
                self.info().level
            }

            /// The rule with this code (exact, as published).
            pub fn from_code(code: &str) -> Option<$rule> {
                ALL.iter().copied().find(|r| r.code() == code)
            }

            /// The position of the rule in the catalogue.
            #[allow(
                dead_code,
                reason = "a catalogue whose findings keep their own order does not sort by it"
            )]
            pub(crate) fn index(self) -> usize {
                self as usize
            }

            /// The rules `codes` name (case-insensitive), or the first code
            /// no rule has, with every known code comma-separated in
            /// catalogue order (for the family's own error).
            pub(crate) fn parse_skips(
                codes: &[String],
            ) -> Result<std::collections::BTreeSet<$rule>, (String, String)> {
                let mut skip = std::collections::BTreeSet::new();
                for code in codes {
                    match $rule::from_code(&code.trim().to_ascii_uppercase()) {
                        Some(rule) => {
                            skip.insert(rule);
                        }
                        None => {
                            let known: Vec<&str> = ALL.iter().map(|r| r.code()).collect();
                            return Err((code.clone(), known.join(", ")));
                        }
                    }
                }
                Ok(skip)
            }
        }

        #[cfg(test)]
        mod catalogue_order {
            use super::*;

            /// One row per variant in declaration order, `ALL` in that order
            /// too, every code unique and found again by `from_code`, every
            /// row of the family documented.
            #[test]
            fn the_catalogue_is_in_declaration_order_and_complete() {
                assert_eq!(ALL.len(), INFOS.len(), "one row per rule");
                for (index, (rule, info)) in ALL.iter().zip(INFOS.iter()).enumerate() {
                    assert_eq!(rule.info(), info, "row {index}");
                    assert_eq!(rule.index(), index, "{}", info.code);
                    assert_eq!($rule::from_code(info.code), Some(*rule));
                }
                let mut codes: Vec<&str> = INFOS.iter().map(|i| i.code).collect();
                codes.sort_unstable();
                codes.dedup();
                assert_eq!(codes.len(), INFOS.len(), "codes must be unique");
                let mut rules = ALL.to_vec();
                rules.sort();
                assert_eq!(rules, ALL.to_vec(), "ALL must list the variants in order");
                for info in INFOS {
                    assert!(info.rationale.ends_with('.'), "{}", info.code);
                    assert!(!info.rationale.contains('|'), "{}", info.code);
                    assert!(!info.source.is_empty(), "{}", info.code);
                }
            }
        }
    };
}
pub(crate) use catalogue_lookups;
