//! The one rule table: every rule of every family, in family order, each
//! with a stable code whose prefix names its family.
//!
//! | family | prefix | what it judges |
//! |---|---|---|
//! | `invariants` | `INV-` | a captured session against the specification (`invariants`, `conformance`) |
//! | `lint` | `E`, `W`, `I` | what a server lists, for clients and models (`lint`) |
//! | `scan` | `S` | listings against published attacks (`scan`) |
//! | `http` | `H` | an HTTP endpoint's security (`probe`) |
//! | `audit` | `A` | one call of each tool, prompt and resource (`audit`) |
//! | `fuzz` | `F` | systematic and random inputs to each tool (`fuzz`) |
//! | `lock` | `L` | a surface against its lockfile (`lock --check`) |
//! | `config` | `C` | a client's config file, offline (`scan --config`) |
//! | `output` | `O` | what a server answers: tool results, prompt messages, resource contents, its instructions |
//! | `contract` | `K` | a server against the contracts its consumers recorded (`contract verify`) |
//!
//! Each family keeps its rows in its own `rules.rs` (or next to its checks)
//! as [`RuleInfo`] values; this module chains them, looks codes up, and is
//! what `mcpcheck rule` and `mcpcheck rules` print. The documentation's rule
//! tables are held to these rows by tests.

use serde::Serialize;

use super::{Level, Severity};

/// A family of rules: one analysis, one code prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Conformance invariants over captured sessions, `INV-NNN`.
    Invariants,
    /// Lint rules over listings, `E`/`W`/`I` and three digits.
    Lint,
    /// The security scan of listings, `S` and three digits.
    Scan,
    /// The active HTTP probes, `H` and three digits.
    Http,
    /// The classes of an audit call, `A` and three digits.
    Audit,
    /// The classes of a fuzz input, `F` and three digits.
    Fuzz,
    /// Changes against a lockfile, `L` and three digits.
    Lock,
    /// The hygiene of a client's config file, `C` and three digits.
    Config,
    /// Scan's text rules over what a server answers, `O` and the digits of
    /// the scan rule it applies.
    Output,
    /// A server against recorded consumer contracts, `K` and three digits.
    Contract,
}

impl Family {
    /// Every family, in registry order.
    pub const ALL: [Family; 10] = [
        Family::Invariants,
        Family::Lint,
        Family::Scan,
        Family::Http,
        Family::Audit,
        Family::Fuzz,
        Family::Lock,
        Family::Config,
        Family::Output,
        Family::Contract,
    ];

    /// `invariants`, `lint`, `scan`, `http`, `audit`, `fuzz`, `lock`,
    /// `config`, `output` or `contract`.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Invariants => "invariants",
            Family::Lint => "lint",
            Family::Scan => "scan",
            Family::Http => "http",
            Family::Audit => "audit",
            Family::Fuzz => "fuzz",
            Family::Lock => "lock",
            Family::Config => "config",
            Family::Output => "output",
            Family::Contract => "contract",
        }
    }

    /// The family named `s`.
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// The command whose findings the family's rules are.
    pub fn command(self) -> &'static str {
        match self {
            Family::Invariants => "conformance",
            Family::Lint => "lint",
            Family::Scan => "scan",
            Family::Http => "probe",
            Family::Audit => "audit",
            Family::Fuzz => "fuzz",
            Family::Lock => "lock",
            Family::Config => "scan",
            Family::Output => "doctor",
            Family::Contract => "contract",
        }
    }

    /// The family's rows, in catalogue order.
    pub fn rules(self) -> &'static [RuleInfo] {
        match self {
            Family::Invariants => &crate::invariants::rules::INFOS,
            Family::Lint => &crate::lint::rules::INFOS,
            Family::Scan => &crate::scan::rules::INFOS,
            Family::Http => &crate::http_probe::rules::INFOS,
            Family::Audit => &crate::probe::rules::AUDIT,
            Family::Fuzz => &crate::probe::rules::FUZZ,
            Family::Lock => &crate::lock::RULES,
            Family::Config => &crate::scan::hygiene::RULES,
            Family::Output => &crate::scan::output::RULES,
            Family::Contract => &crate::contract::RULES,
        }
    }
}

/// The published description of one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleInfo {
    /// Stable code with the family's prefix: `INV-001`, `E103`, `S301`.
    pub code: &'static str,
    /// The family.
    pub family: Family,
    /// How a finding weighs on the verdict.
    pub level: Level,
    /// How much a finding matters.
    pub severity: Severity,
    /// A short name (for invariants, the property that must hold).
    pub title: &'static str,
    /// Why it matters: the problem, the attack or the failure it catches.
    pub rationale: &'static str,
    /// Where it comes from: the specification section, the RFC, the
    /// published attack, the peer tool's code.
    pub source: &'static str,
    /// How to fix what it finds.
    pub fix: &'static str,
    /// A group within the family (`lifecycle`, `schema`), or empty.
    pub category: &'static str,
    /// Other names it was published under (`lock-breaking`).
    pub aliases: &'static [&'static str],
}

impl RuleInfo {
    /// A row of `family` with nothing filled in yet: what each family's
    /// table completes (`RuleInfo { code: "E103", ..RuleInfo::of(Family::Lint) }`).
    pub const fn of(family: Family) -> RuleInfo {
        RuleInfo {
            code: "",
            family,
            level: Level::Error,
            severity: Severity::High,
            title: "",
            rationale: "",
            source: "",
            fix: "",
            category: "",
            aliases: &[],
        }
    }

    /// The word a family's own reports use for a finding's weight: lint (and
    /// the invariants, audit and fuzz) speak of `error`, `warning` and `info`
    /// (mcp-assert's words), scan and the HTTP probes of `high`, `medium`,
    /// `low` and `info`, the lock check of `breaking`, `suspicious` and
    /// `compatible`.
    pub fn severity_word(&self) -> &'static str {
        match self.family {
            // A lock change is named by its class: breaking, suspicious,
            // compatible.
            Family::Lock => self.category,
            Family::Lint | Family::Invariants | Family::Audit | Family::Fuzz | Family::Contract => {
                match self.level {
                    Level::Error => "error",
                    Level::Warning => "warning",
                    Level::Note => "info",
                }
            }
            Family::Scan | Family::Http | Family::Config | Family::Output => self.severity.as_str(),
        }
    }
}

/// Every rule of every family, in registry order.
pub fn all() -> impl Iterator<Item = &'static RuleInfo> {
    Family::ALL.into_iter().flat_map(|f| f.rules().iter())
}

/// The rule with this code or alias (case-insensitive).
pub fn lookup(code: &str) -> Option<&'static RuleInfo> {
    let code = code.trim();
    all().find(|r| {
        r.code.eq_ignore_ascii_case(code) || r.aliases.iter().any(|a| a.eq_ignore_ascii_case(code))
    })
}

/// The closest codes to `code`, for an error that names an unknown one.
pub fn suggest(code: &str) -> Option<String> {
    crate::diag::did_you_mean(code, all().map(|r| r.code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_carry_their_family_prefix() {
        let mut seen = std::collections::BTreeSet::new();
        for r in all() {
            assert!(seen.insert(r.code), "{} twice", r.code);
            let ok = match r.family {
                Family::Invariants => r.code.starts_with("INV-"),
                Family::Lint => r.code.starts_with(['E', 'W', 'I']) && !r.code.starts_with("INV"),
                Family::Scan => r.code.starts_with('S'),
                Family::Http => r.code.starts_with('H'),
                Family::Audit => r.code.starts_with('A'),
                Family::Fuzz => r.code.starts_with('F'),
                Family::Lock => r.code.starts_with('L'),
                Family::Config => r.code.starts_with('C'),
                Family::Output => r.code.starts_with('O'),
                Family::Contract => r.code.starts_with('K'),
            };
            assert!(ok, "{} is not a {} code", r.code, r.family.as_str());
            let digits = r.code.trim_start_matches(|c: char| !c.is_ascii_digit());
            assert_eq!(digits.len(), 3, "{}", r.code);
            assert!(digits.chars().all(|c| c.is_ascii_digit()), "{}", r.code);
        }
    }

    #[test]
    fn every_rule_is_documented() {
        for r in all() {
            assert!(!r.title.is_empty(), "{} has no title", r.code);
            assert!(!r.rationale.is_empty(), "{} has no rationale", r.code);
            assert!(!r.source.is_empty(), "{} has no source", r.code);
            assert!(!r.fix.is_empty(), "{} has no fix", r.code);
        }
    }

    #[test]
    fn lint_words_follow_the_level_and_scan_words_the_severity() {
        let e103 = lookup("E103").map(RuleInfo::severity_word);
        assert_eq!(e103, Some("error"));
        let s101 = lookup("s101").map(RuleInfo::severity_word);
        assert_eq!(s101, Some("high"));
    }
}
