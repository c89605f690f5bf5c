//! One findings model for every analysis: invariants and conformance, lint,
//! scan, the HTTP probes, audit and fuzz, and the lock check.
//!
//! Each family keeps its checks in its own folder and contributes rows to the
//! one rule table ([`registry`]): a stable code with the family's prefix, a
//! [`Level`] (a MUST-level failure, a SHOULD-level recommendation not met, or
//! a note), a [`Severity`], a title, why it matters, where it comes from and
//! how to fix it. Every check reports a [`Finding`] (the rule, where it is,
//! what happened, the evidence), and the analyses hand a [`Report`] of them to
//! the one set of renderers in [`render`]: text, JSON, SARIF, JUnit, Markdown,
//! GitHub annotations and TAP.
//!
//! Around the findings sit the decisions every analysis shares: which rules
//! run ([`Selection`], `select`/`ignore` by code, prefix or family), which
//! findings fail a run ([`Gate`]), suppressions with a reason and an optional
//! end date ([`suppress`]) and baselines of known findings ([`baseline`]).
//!
//! Adding a rule, whatever its family, is one row in the family's table, one
//! function that pushes the finding, and a vector that fires and one that
//! holds.

/// A rule's prose (title, rationale, fix, source): itself in native builds,
/// the empty string in the wasm module, which reports findings by code and
/// never shows a rule's text (the registry's prose is the CLI's: `mcpcheck
/// rule`, SARIF, the text reports). It keeps about 30 KB of text out of the
/// module.
#[cfg(not(target_family = "wasm"))]
macro_rules! prose {
    ($text:expr) => {
        $text
    };
}

/// A rule's prose: the empty string in the wasm module (see the native
/// definition).
#[cfg(target_family = "wasm")]
macro_rules! prose {
    ($text:expr) => {{
        let _ = $text;
        ""
    }};
}

pub(crate) use prose;

pub mod baseline;
pub mod examples;
pub mod registry;
pub mod render;
pub mod suppress;

use serde::{Deserialize, Serialize};

pub use registry::{Family, RuleInfo};

/// How a finding weighs on the verdict: the normative strength of its rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A requirement is broken (a MUST of the specification, an attack as it
    /// is published, a crash): fails the run.
    Error,
    /// Recommended, not met (a SHOULD, a likely problem): fails the run only
    /// when asked (`--strict`, or `--fail-on` at its severity).
    Warning,
    /// Worth knowing; never fails a run.
    Note,
}

impl Level {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }

    /// The SARIF `level` of a finding of this level (the same words).
    pub fn sarif(self) -> &'static str {
        self.as_str()
    }
}

/// How much a finding matters, most severe first: the order reports sort
/// by, and what `--fail-on` compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// An attack, a leak or a broken requirement as it is published.
    High,
    /// Likely a problem; a person should look.
    Medium,
    /// Unusual; room for a problem.
    Low,
    /// Worth knowing.
    Info,
}

impl Severity {
    /// `high`, `medium`, `low` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
            Severity::Info => "info",
        }
    }

    /// Whether a finding of this severity is at `bar` or more severe.
    pub fn at_least(self, bar: Severity) -> bool {
        self <= bar
    }

    /// The severity named `s` (`high`, `medium`, `low`, `info`).
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "high" => Some(Severity::High),
            "medium" => Some(Severity::Medium),
            "low" => Some(Severity::Low),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A tool of `tools`.
    Tool,
    /// A prompt of `prompts`.
    Prompt,
    /// A resource of `resources`.
    Resource,
    /// A template of `resourceTemplates`.
    ResourceTemplate,
    /// A whole listing (`tools`, `prompts`, …) or the document.
    Listing,
    /// A protocol method (`initialize`, `tools/call`): what a conformance
    /// finding is about.
    Method,
    /// One of the HTTP probes (`origin`, `sessions`, …).
    Probe,
    /// A server entry of a client configuration file.
    Server,
    /// The session as a whole.
    Session,
}

impl ItemKind {
    /// `tool`, `prompt`, `resource`, `resource_template`, `listing`,
    /// `method`, `probe`, `server` or `session`.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Tool => "tool",
            ItemKind::Prompt => "prompt",
            ItemKind::Resource => "resource",
            ItemKind::ResourceTemplate => "resource_template",
            ItemKind::Listing => "listing",
            ItemKind::Method => "method",
            ItemKind::Probe => "probe",
            ItemKind::Server => "server",
            ItemKind::Session => "session",
        }
    }

    /// The kind named `s` (as [`ItemKind::as_str`] writes it).
    pub fn parse(s: &str) -> Option<ItemKind> {
        [
            ItemKind::Tool,
            ItemKind::Prompt,
            ItemKind::Resource,
            ItemKind::ResourceTemplate,
            ItemKind::Listing,
            ItemKind::Method,
            ItemKind::Probe,
            ItemKind::Server,
            ItemKind::Session,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// Where a finding is: as much of it as the analysis knows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Location {
    /// The server's label (scan of several servers, doctor).
    pub server: Option<String>,
    /// The item, with its kind: a tool, a prompt, a resource URI, a method,
    /// a probe.
    pub item: Option<(ItemKind, String)>,
    /// RFC 6901 pointer to the offending field in the document as given.
    pub pointer: Option<String>,
    /// The exchange of a capture it is about (0-based).
    pub exchange: Option<usize>,
    /// Byte offsets of the evidence in the field's string value.
    pub span: Option<(usize, usize)>,
    /// What the finding was seen under: the protocol revision of a
    /// conformance session, the part of a doctor run.
    pub context: Option<String>,
    /// The file the finding is in (a listing, a lockfile, a config file).
    pub file: Option<String>,
}

impl Location {
    /// An item of a listing.
    pub fn item(kind: ItemKind, name: impl Into<String>) -> Location {
        Location {
            item: Some((kind, name.into())),
            ..Location::default()
        }
    }

    /// With this pointer.
    pub fn at(mut self, pointer: impl Into<String>) -> Location {
        self.pointer = Some(pointer.into());
        self
    }

    /// With this server label.
    pub fn on(mut self, server: impl Into<String>) -> Location {
        self.server = Some(server.into());
        self
    }

    /// The item's kind, when there is an item.
    pub fn kind(&self) -> Option<ItemKind> {
        self.item.as_ref().map(|(k, _)| *k)
    }

    /// The item's name, when there is an item.
    pub fn name(&self) -> Option<&str> {
        self.item.as_ref().map(|(_, n)| n.as_str())
    }

    /// `tool read_file`, or the empty string without an item.
    pub fn item_label(&self) -> String {
        match &self.item {
            Some((kind, name)) => format!("{} {name}", kind.as_str()),
            None => String::new(),
        }
    }
}

/// One problem found by one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule (its row in the registry).
    pub rule: &'static RuleInfo,
    /// Where.
    pub location: Location,
    /// What was found, in one line, and where it helps, what to do.
    pub message: String,
    /// The offending text, escaped and short (may be empty).
    pub evidence: String,
    /// More about it, as labelled blocks (`input`, `stderr`), shown under the
    /// finding.
    pub details: Vec<(String, String)>,
}

impl Finding {
    /// A finding of `rule` at `location`.
    pub fn new(rule: &'static RuleInfo, location: Location, message: impl Into<String>) -> Self {
        Finding {
            rule,
            location,
            message: message.into(),
            evidence: String::new(),
            details: Vec::new(),
        }
    }

    /// With this evidence.
    pub fn with_evidence(mut self, evidence: impl Into<String>) -> Self {
        self.evidence = evidence.into();
        self
    }

    /// With one more labelled detail.
    pub fn with_detail(mut self, label: impl Into<String>, text: impl Into<String>) -> Self {
        self.details.push((label.into(), text.into()));
        self
    }

    /// The rule's code.
    pub fn code(&self) -> &'static str {
        self.rule.code
    }

    /// The rule's level.
    pub fn level(&self) -> Level {
        self.rule.level
    }

    /// The rule's severity.
    pub fn severity(&self) -> Severity {
        self.rule.severity
    }

    /// The rule's family.
    pub fn family(&self) -> Family {
        self.rule.family
    }

    /// The item's name, or the empty string.
    pub fn item(&self) -> &str {
        self.location.name().unwrap_or("")
    }

    /// The item's kind, when there is an item.
    pub fn kind(&self) -> Option<ItemKind> {
        self.location.kind()
    }

    /// The pointer to the offending field, or the empty string.
    pub fn field(&self) -> &str {
        self.location.pointer.as_deref().unwrap_or("")
    }

    /// The server's label, or the empty string.
    pub fn server(&self) -> &str {
        self.location.server.as_deref().unwrap_or("")
    }
}

/// Which findings fail a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Gate {
    /// Warnings (recommendations not met) fail too.
    pub strict: bool,
    /// Every finding at this severity or more severe fails, whatever its
    /// level (notes included, when `info`).
    pub fail_on: Option<Severity>,
}

impl Gate {
    /// The default gate: errors fail, nothing else.
    pub const ERRORS: Gate = Gate {
        strict: false,
        fail_on: None,
    };

    /// Whether `f` fails the run.
    pub fn fails(&self, f: &Finding) -> bool {
        match f.level() {
            Level::Error => true,
            Level::Warning if self.strict => true,
            _ => self.fail_on.is_some_and(|bar| f.severity().at_least(bar)),
        }
    }

    /// Whether no finding fails.
    pub fn passes(&self, findings: &[Finding]) -> bool {
        !findings.iter().any(|f| self.fails(f))
    }
}

/// Which rules run: `select` (only these, when given) minus `ignore`, each a
/// code (`E103`), a family name (`lint`), or a code prefix (`S5`, `INV-04`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Selection {
    /// Only rules matching one of these (all rules when empty).
    pub select: Vec<String>,
    /// Never rules matching one of these.
    pub ignore: Vec<String>,
}

/// A `select`/`ignore` entry that matches no rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{entry}` names no rule: give a code (E103), a code prefix (S5) or a family ({families}){hint}"
)]
pub struct UnknownSelector {
    /// The entry as given.
    pub entry: String,
    /// The families, comma-separated.
    pub families: String,
    /// ` (did you mean …?)`, or empty.
    pub hint: String,
}

impl Selection {
    /// Whether `rule` runs.
    pub fn runs(&self, rule: &RuleInfo) -> bool {
        (self.select.is_empty() || self.select.iter().any(|s| matches(s, rule)))
            && !self.ignore.iter().any(|s| matches(s, rule))
    }

    /// Every entry names at least one rule.
    ///
    /// # Errors
    ///
    /// The first entry that names none, with a suggestion.
    pub fn validate(&self) -> Result<(), UnknownSelector> {
        for entry in self.select.iter().chain(&self.ignore) {
            if !registry::all().any(|r| matches(entry, r)) {
                return Err(unknown_selector(entry));
            }
        }
        Ok(())
    }

    /// The findings whose rule runs.
    pub fn filter(&self, findings: Vec<Finding>) -> Vec<Finding> {
        if self.select.is_empty() && self.ignore.is_empty() {
            return findings;
        }
        findings.into_iter().filter(|f| self.runs(f.rule)).collect()
    }

    /// This selection with `more` added (command-line entries after the
    /// config file's).
    pub fn and(&self, more: &Selection) -> Selection {
        Selection {
            select: if more.select.is_empty() {
                self.select.clone()
            } else {
                more.select.clone()
            },
            ignore: self.ignore.iter().chain(&more.ignore).cloned().collect(),
        }
    }
}

/// Whether selector `s` names `rule`: its code or an alias, its family, or a
/// code prefix (`E1`, `S5`, `INV-04`: the same letters, and digits that
/// begin the code's). Case-insensitive.
pub(crate) fn matches(s: &str, rule: &RuleInfo) -> bool {
    let s = s.trim();
    if s.is_empty() {
        return false;
    }
    if s.eq_ignore_ascii_case(rule.family.as_str())
        || rule.code.eq_ignore_ascii_case(s)
        || rule.aliases.iter().any(|a| a.eq_ignore_ascii_case(s))
    {
        return true;
    }
    let upper = s.to_ascii_uppercase();
    let letters = |c: &str| -> usize { c.find(|ch: char| ch.is_ascii_digit()).unwrap_or(c.len()) };
    let (code_letters, code_digits) = rule.code.split_at(letters(rule.code));
    let (sel_letters, sel_digits) = upper.split_at(letters(&upper));
    let sel_letters = sel_letters.trim_end_matches('-');
    sel_letters == code_letters.trim_end_matches('-') && code_digits.starts_with(sel_digits)
}

fn unknown_selector(entry: &str) -> UnknownSelector {
    let families: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
    let candidates = registry::all()
        .map(|r| r.code)
        .chain(families.iter().copied());
    let hint = crate::diag::did_you_mean(entry, candidates)
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    UnknownSelector {
        entry: entry.to_string(),
        families: families.join(", "),
        hint,
    }
}

/// A note a report carries besides its findings: a part that stopped early,
/// a rule not verified, a suppression that silenced nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Whether the note fails the run (an expired suppression, a part that
    /// could not run).
    pub fails: bool,
    /// What to say.
    pub text: String,
}

impl Note {
    /// A note that informs.
    pub fn info(text: impl Into<String>) -> Note {
        Note {
            fails: false,
            text: text.into(),
        }
    }

    /// A note that fails the run.
    pub fn failing(text: impl Into<String>) -> Note {
        Note {
            fails: true,
            text: text.into(),
        }
    }
}

/// What happened to one thing an analysis examined: an item it called, a
/// rule it judged. JUnit and TAP show one case each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The group it belongs to (a JUnit test suite, a block of the text
    /// report): a protocol revision, a part of a doctor run. Empty: the
    /// report's one group.
    pub suite: String,
    /// Its class: the item's kind, the revision.
    pub class: String,
    /// Its name: the item, `INV-001 …`.
    pub name: String,
    /// How it ended.
    pub status: CaseStatus,
    /// The word the text table shows for it (`healthy`, `crash`); empty: the
    /// status's own word.
    pub label: String,
    /// A one-line summary (`returned 1 content item`, `20/20 inputs handled`).
    pub detail: String,
    /// How long it took, when measured.
    pub duration_ms: Option<u64>,
    /// The findings about it (indices into the report's findings).
    pub findings: Vec<usize>,
}

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CaseStatus {
    /// Examined, nothing found.
    Passed,
    /// Examined, something worth saying but nothing that fails.
    Noted,
    /// Examined, something that fails.
    Failed,
    /// Not examined on purpose (a tool that may write).
    Skipped,
    /// Nothing in the session let the rule be judged.
    NotVerified,
    /// Could not be examined (the server went away).
    Error,
}

impl CaseStatus {
    /// `passed`, `noted`, `failed`, `skipped`, `not-verified` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            CaseStatus::Passed => "passed",
            CaseStatus::Noted => "noted",
            CaseStatus::Failed => "failed",
            CaseStatus::Skipped => "skipped",
            CaseStatus::NotVerified => "not-verified",
            CaseStatus::Error => "error",
        }
    }
}

/// How the text report shows the cases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CaseView {
    /// Not at all (lint, scan: the findings are the report).
    #[default]
    Hidden,
    /// A table, a row per case (audit, fuzz).
    Table,
    /// A line of counts per suite, then the failing and unverified cases
    /// (conformance).
    Counts,
}

/// How the text report orders and words the findings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// Grouped by server and item, in the order the analysis found them,
    /// each with its family's severity word.
    #[default]
    Compact,
    /// Worst first, grouped by item, each with its level, its rule's title
    /// and how to fix it, wrapped to the width (doctor).
    Triage,
}

/// Everything one analysis (or a doctor run) found, ready for any renderer.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The command that made it: `lint`, `scan`, `probe`, `conformance`,
    /// `audit`, `fuzz`, `lock`, `doctor`.
    pub command: String,
    /// What was examined: a server's label, a URL, a file.
    pub subject: String,
    /// The text report's first line, instead of `mcpcheck COMMAND:
    /// SUBJECT (facts)` (the probe's URL, as it always printed it).
    pub title: Option<String>,
    /// Facts about the run shown after the subject (`stdio`, `seed 42`), in
    /// order; a fact with an empty name is shown as its value alone.
    pub facts: Vec<(String, String)>,
    /// The file findings are located in, for code-scanning views.
    pub artifact: Option<String>,
    /// The findings that count, in report order.
    pub findings: Vec<Finding>,
    /// Findings silenced by a suppression, with its reason.
    pub suppressed: Vec<(Finding, String)>,
    /// How many findings a baseline left out as known.
    pub baselined: usize,
    /// What was examined, for JUnit and TAP (derived from the findings when
    /// empty: one case per item).
    pub cases: Vec<Case>,
    /// How the text report shows the cases.
    pub case_view: CaseView,
    /// How the text report lays out the findings.
    pub layout: Layout,
    /// Summary lines after the findings (a score, counts).
    pub summary: Vec<String>,
    /// Notes: parts that stopped early, rules not verified, stale
    /// suppressions.
    pub notes: Vec<Note>,
    /// A score from 0 to 100, where the analysis has one.
    pub score: Option<u32>,
    /// Which findings fail.
    pub gate: Gate,
    /// Fields of the command's own JSON contract, in their documented order,
    /// added to the JSON document (`url` for probe, `results` for audit, …).
    pub extra: Vec<(String, serde_json::Value)>,
}

impl Report {
    /// An empty report of `command` about `subject`.
    pub fn new(command: impl Into<String>, subject: impl Into<String>) -> Report {
        Report {
            command: command.into(),
            subject: subject.into(),
            ..Report::default()
        }
    }

    /// Adds (or replaces) a field of the command's own JSON contract.
    pub fn set_extra(&mut self, key: &str, value: serde_json::Value) {
        match self.extra.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.extra.push((key.to_string(), value)),
        }
    }

    /// A field of the command's own JSON contract.
    pub fn extra(&self, key: &str) -> Option<&serde_json::Value> {
        self.extra.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether the run passes: no finding fails the gate, no case errored,
    /// no note fails.
    pub fn passed(&self) -> bool {
        self.gate.passes(&self.findings)
            && !self.cases.iter().any(|c| c.status == CaseStatus::Error)
            && !self.notes.iter().any(|n| n.fails)
    }

    /// The parts (cases) that could not run, by name.
    pub fn unrun(&self) -> Vec<&str> {
        self.cases
            .iter()
            .filter(|c| c.status == CaseStatus::Error)
            .map(|c| c.name.as_str())
            .collect()
    }

    /// The health score of a report over parts (`doctor`): 100, minus 10
    /// per error and 2 per warning, at least 0; none when a part could not
    /// run, since what it would have found is unknown (a server that cannot
    /// be started is not a server with no findings).
    pub fn health_score(&self) -> Option<u32> {
        if !self.unrun().is_empty() {
            return None;
        }
        let cost = self.count(Level::Error) * 10 + self.count(Level::Warning) * 2;
        Some(100u32.saturating_sub(u32::try_from(cost).unwrap_or(u32::MAX)))
    }

    /// How many findings have `level`.
    pub fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level() == level).count()
    }

    /// The cases to show: the report's own, and one per item for the
    /// findings no case holds (a finding without an item is a case of its
    /// own rule); one passing case for the subject when there is nothing at
    /// all.
    pub fn cases_or_items(&self) -> Vec<Case> {
        let mut cases: Vec<Case> = self.cases.clone();
        let held: std::collections::BTreeSet<usize> = self
            .cases
            .iter()
            .flat_map(|c| c.findings.iter().copied())
            .collect();
        let first_derived = cases.len();
        for (i, f) in self.findings.iter().enumerate() {
            if held.contains(&i) {
                continue;
            }
            let (class, name) = match (&f.location.item, &f.location.server) {
                (Some((kind, item)), Some(server)) => {
                    (kind.as_str().to_string(), format!("{server} {item}"))
                }
                (Some((kind, item)), None) => (kind.as_str().to_string(), item.clone()),
                (None, _) => (f.family().as_str().to_string(), f.code().to_string()),
            };
            let suite = f.location.context.clone().unwrap_or_default();
            match cases[first_derived..]
                .iter_mut()
                .find(|c| c.class == class && c.name == name && c.suite == suite)
            {
                Some(c) => c.findings.push(i),
                None => cases.push(Case {
                    suite,
                    class,
                    name,
                    status: CaseStatus::Passed,
                    label: String::new(),
                    detail: String::new(),
                    duration_ms: None,
                    findings: vec![i],
                }),
            }
        }
        for c in &mut cases[first_derived..] {
            c.status = if c
                .findings
                .iter()
                .any(|&i| self.gate.fails(&self.findings[i]))
            {
                CaseStatus::Failed
            } else {
                CaseStatus::Noted
            };
        }
        if cases.is_empty() {
            cases.push(Case {
                suite: String::new(),
                class: self.command.clone(),
                name: if self.subject.is_empty() {
                    self.command.clone()
                } else {
                    self.subject.clone()
                },
                status: CaseStatus::Passed,
                label: String::new(),
                detail: String::new(),
                duration_ms: None,
                findings: Vec::new(),
            });
        }
        cases
    }

    /// Keeps the findings `keep` says yes to, in order; the cases' indices
    /// follow, and a case judged by its findings (passed, noted or failed) is
    /// judged again by those left.
    pub fn retain(&mut self, mut keep: impl FnMut(&Finding) -> bool) {
        let mut map = Vec::with_capacity(self.findings.len());
        let mut kept = Vec::with_capacity(self.findings.len());
        for f in std::mem::take(&mut self.findings) {
            if keep(&f) {
                map.push(Some(kept.len()));
                kept.push(f);
            } else {
                map.push(None);
            }
        }
        self.findings = kept;
        for c in &mut self.cases {
            let before = c.findings.len();
            c.findings = c
                .findings
                .iter()
                .filter_map(|&i| map.get(i).copied().flatten())
                .collect();
            if c.findings.len() == before {
                continue;
            }
            if matches!(
                c.status,
                CaseStatus::Passed | CaseStatus::Noted | CaseStatus::Failed
            ) {
                c.status = if c
                    .findings
                    .iter()
                    .any(|&i| self.gate.fails(&self.findings[i]))
                {
                    CaseStatus::Failed
                } else if c.findings.is_empty() {
                    CaseStatus::Passed
                } else {
                    CaseStatus::Noted
                };
            }
        }
    }

    /// Silences the findings `suppressions` match on `today` (`YYYY-MM-DD`)
    /// and adds the notes of expired and unused ones; `judged` are the
    /// families the run judged ([`suppress::apply`]).
    pub fn suppress(
        &mut self,
        suppressions: &[suppress::Suppression],
        today: &str,
        judged: &[Family],
    ) {
        if suppressions.is_empty() {
            return;
        }
        let applied = suppress::apply(self.findings.clone(), suppressions, today, judged);
        let mut silenced: Vec<&Finding> = applied.suppressed.iter().map(|(f, _)| f).collect();
        self.retain(|f| match silenced.iter().position(|s| *s == f) {
            Some(i) => {
                silenced.swap_remove(i);
                false
            }
            None => true,
        });
        self.suppressed.extend(applied.suppressed);
        self.notes.extend(applied.notes);
    }

    /// The findings worst first (severity, then level, then report order).
    pub fn worst_first(&self) -> Vec<&Finding> {
        let mut v: Vec<(usize, &Finding)> = self.findings.iter().enumerate().collect();
        crate::sort::by_key(&mut v, |(i, f)| (f.severity(), f.level(), *i));
        v.into_iter().map(|(_, f)| f).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_health_score_needs_every_part_to_have_run() {
        let rule = |code: &str| {
            crate::probe::rules::AUDIT
                .iter()
                .find(|r| r.code == code)
                .expect("an audit rule")
        };
        let part = |name: &str, status: CaseStatus| Case {
            suite: String::new(),
            class: String::new(),
            name: name.into(),
            status,
            label: String::new(),
            detail: String::new(),
            duration_ms: None,
            findings: Vec::new(),
        };
        let mut report = Report::new("doctor", "s");
        assert_eq!(report.health_score(), Some(100));
        // A101 is an error (10), A302 a warning (2), A301 a note (0).
        for code in ["A101", "A302", "A301"] {
            report
                .findings
                .push(Finding::new(rule(code), Location::default(), "m"));
        }
        report.cases = vec![
            part("lint", CaseStatus::Passed),
            part("audit", CaseStatus::Failed),
        ];
        assert_eq!(report.health_score(), Some(88));
        assert!(report.unrun().is_empty());
        report.cases.push(part("conformance", CaseStatus::Error));
        report.cases.insert(0, part("listing", CaseStatus::Error));
        assert_eq!(report.health_score(), None);
        assert_eq!(report.unrun(), ["listing", "conformance"]);
    }
}
