//! Suppressions: a person's decision that one finding is known and accepted,
//! with the reason and, optionally, the day the decision runs out.
//!
//! A suppression names a rule (a code, a code prefix or a family) and,
//! optionally, the item (`tool:upload`, or `upload` for an item of any kind)
//! and the server. It silences every finding it matches: a silenced finding
//! is kept in the report, marked with the reason, but never fails the run.
//!
//! - A suppression needs a reason; without one it is a configuration error
//!   (the config reader refuses it).
//! - One whose `until` day has passed silences nothing and fails the run with
//!   a note naming itself: the decision has to be taken again.
//! - One that matched nothing in a run that judged its rule's family is
//!   reported as unused, so stale entries do not pile up (a note; it does not
//!   fail).

use super::{Family, Finding, ItemKind, Note, matches};

/// One suppression, as the config file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// A code (`S601`), a code prefix (`S6`) or a family (`scan`).
    pub rule: String,
    /// The item: `kind:name` (`tool:upload`) or a bare name (any kind).
    pub item: Option<String>,
    /// The server's label.
    pub server: Option<String>,
    /// Why the finding is accepted.
    pub reason: String,
    /// The last day it holds, `YYYY-MM-DD`.
    pub until: Option<String>,
    /// Where it was written (`mcpcheck.toml:12`), for the notes that name it.
    pub origin: String,
}

impl Suppression {
    /// `S601 on tool:upload (mcpcheck.toml:12)`.
    pub fn describe(&self) -> String {
        let mut s = self.rule.clone();
        if let Some(item) = &self.item {
            s.push_str(&format!(" on {item}"));
        }
        if let Some(server) = &self.server {
            s.push_str(&format!(" of server {server}"));
        }
        if !self.origin.is_empty() {
            s.push_str(&format!(" ({})", self.origin));
        }
        s
    }

    /// Whether it matches `f`.
    pub fn matches(&self, f: &Finding) -> bool {
        if !matches(&self.rule, f.rule) {
            return false;
        }
        if let Some(server) = &self.server
            && f.location.server.as_deref() != Some(server.as_str())
        {
            return false;
        }
        match &self.item {
            None => true,
            Some(want) => {
                let Some((kind, name)) = &f.location.item else {
                    return false;
                };
                match want.split_once(':') {
                    Some((k, n)) if ItemKind::parse(k).is_some() => {
                        ItemKind::parse(k) == Some(*kind) && n == name
                    }
                    _ => want == name,
                }
            }
        }
    }

    /// Whether `today` (`YYYY-MM-DD`) is after its `until` day.
    pub fn expired(&self, today: &str) -> bool {
        // ISO dates compare as text.
        self.until.as_deref().is_some_and(|until| today > until)
    }
}

/// What applying suppressions did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// The findings that still count.
    pub kept: Vec<Finding>,
    /// The findings silenced, each with the reason.
    pub suppressed: Vec<(Finding, String)>,
    /// Expired suppressions (failing) and unused ones (informing).
    pub notes: Vec<Note>,
}

/// Applies `suppressions` to `findings` on `today`; `judged` are the families
/// the run judged (an unused suppression of another family is not reported).
pub fn apply(
    findings: Vec<Finding>,
    suppressions: &[Suppression],
    today: &str,
    judged: &[Family],
) -> Applied {
    let mut out = Applied::default();
    let mut used = vec![false; suppressions.len()];
    for f in findings {
        let hit = suppressions
            .iter()
            .enumerate()
            .find(|(_, s)| !s.expired(today) && s.matches(&f));
        match hit {
            Some((i, s)) => {
                used[i] = true;
                out.suppressed.push((f, s.reason.clone()));
            }
            None => out.kept.push(f),
        }
    }
    for (s, used) in suppressions.iter().zip(used) {
        if s.expired(today) {
            out.notes.push(Note::failing(format!(
                "the suppression of {} expired on {}: fix what it silenced, or decide again and move `until` (its reason was: {})",
                s.describe(),
                s.until.as_deref().unwrap_or_default(),
                s.reason
            )));
        } else if !used && judged.iter().any(|f| rule_in_family(&s.rule, *f)) {
            out.notes.push(Note::info(format!(
                "the suppression of {} matched no finding: remove it if what it silenced is fixed",
                s.describe()
            )));
        }
    }
    out
}

/// Whether selector `rule` names a rule of `family`.
fn rule_in_family(rule: &str, family: Family) -> bool {
    family.rules().iter().any(|r| matches(rule, r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{Location, registry};

    fn finding(code: &str, kind: ItemKind, item: &str) -> Finding {
        let rule = registry::lookup(code).unwrap_or_else(|| panic!("no rule {code}"));
        Finding::new(rule, Location::item(kind, item), "m")
    }

    fn suppression(rule: &str, item: Option<&str>, until: Option<&str>) -> Suppression {
        Suppression {
            rule: rule.into(),
            item: item.map(Into::into),
            server: None,
            reason: "accepted".into(),
            until: until.map(Into::into),
            origin: "mcpcheck.toml:3".into(),
        }
    }

    #[test]
    fn a_suppression_silences_exactly_its_item() {
        let findings = vec![
            finding("S601", ItemKind::Tool, "upload"),
            finding("S601", ItemKind::Tool, "download"),
            finding("S602", ItemKind::Tool, "upload"),
        ];
        let s = [suppression("S601", Some("tool:upload"), None)];
        let applied = apply(findings, &s, "2026-11-28", &[Family::Scan]);
        assert_eq!(applied.suppressed.len(), 1);
        assert_eq!(applied.suppressed[0].1, "accepted");
        assert_eq!(applied.kept.len(), 2);
        assert!(applied.notes.is_empty());
    }

    #[test]
    fn an_expired_suppression_silences_nothing_and_fails() {
        let findings = vec![finding("S601", ItemKind::Tool, "upload")];
        let s = [suppression("S601", Some("upload"), Some("2026-11-27"))];
        let applied = apply(findings, &s, "2026-11-28", &[Family::Scan]);
        assert_eq!(applied.kept.len(), 1);
        assert_eq!(applied.notes.len(), 1);
        assert!(applied.notes[0].fails);
        assert!(
            applied.notes[0]
                .text
                .contains("S601 on upload (mcpcheck.toml:3) expired on 2026-11-27"),
            "{}",
            applied.notes[0].text
        );
        // The last day still holds.
        let applied = apply(
            vec![finding("S601", ItemKind::Tool, "upload")],
            &s,
            "2026-11-27",
            &[Family::Scan],
        );
        assert!(applied.kept.is_empty() && applied.notes.is_empty());
    }

    #[test]
    fn an_unused_suppression_is_reported_only_where_its_family_ran() {
        let s = [suppression("E103", None, None)];
        let applied = apply(Vec::new(), &s, "2026-11-28", &[Family::Lint]);
        assert_eq!(applied.notes.len(), 1);
        assert!(!applied.notes[0].fails);
        let applied = apply(Vec::new(), &s, "2026-11-28", &[Family::Scan]);
        assert!(applied.notes.is_empty());
    }

    #[test]
    fn families_and_prefixes_match() {
        let f = finding("S601", ItemKind::Tool, "upload");
        assert!(suppression("scan", None, None).matches(&f));
        assert!(suppression("S6", None, None).matches(&f));
        assert!(!suppression("S5", None, None).matches(&f));
        assert!(!suppression("lint", None, None).matches(&f));
        assert!(!suppression("S601", Some("prompt:upload"), None).matches(&f));
    }
}
