//! Coverage: which of the tools, prompts, resources and resource templates a
//! server offers the tests of a suite exercise, and which names the tests use
//! that the server does not offer.
//!
//! An item is *covered* when a test's action uses it (the call its checks look
//! at): `assert`, `assert_sampling`, `assert_logging` and
//! `assert_notifications` use their `tool`; `assert_prompts.get` its prompt;
//! `assert_resources.read` and `subscribe` their URI (a URI that matches a
//! resource template covers the template, also when the URI is listed as a
//! resource); `assert_completion` its `ref`. A
//! tool called only by `setup` steps is reported as such and not counted.
//! Names that still hold a `{{var}}` are matched after nothing: they are
//! listed as not offered, with the template visible.
//!
//! Given the results of a run of the same suites ([`Coverage::apply_results`]),
//! an item is also *passing* when at least one of the tests that use it
//! passed: used says a test calls it, passing says a test shows it works.

use serde_json::{Map, Value, json};

use crate::results::{Results, TestStatus};
use crate::suite::{Action, AppSource, ExtensionOp, PromptOp, ResourceOp, SkillsOp, Test};

/// What a server offers, read from its list results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Offered {
    pub tools: Vec<String>,
    pub prompts: Vec<String>,
    /// Resource URIs.
    pub resources: Vec<String>,
    /// Resource URI templates (RFC 6570).
    pub templates: Vec<String>,
}

impl Offered {
    /// From the items of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` (every page). Items without their name or
    /// URI are left out; duplicates count once.
    pub fn from_lists(
        tools: &[Value],
        prompts: &[Value],
        resources: &[Value],
        templates: &[Value],
    ) -> Offered {
        let field = |items: &[Value], key: &str| {
            let mut out: Vec<String> = Vec::new();
            for item in items {
                if let Some(s) = item.get(key).and_then(Value::as_str)
                    && !out.iter().any(|o| o == s)
                {
                    out.push(s.to_string());
                }
            }
            out
        };
        Offered {
            tools: field(tools, "name"),
            prompts: field(prompts, "name"),
            resources: field(resources, "uri"),
            templates: field(templates, "uriTemplate"),
        }
    }
}

/// The four kinds of item a server offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
    Template,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Tool, Kind::Prompt, Kind::Resource, Kind::Template];

    /// The plural, as reports name the section (`tools`, …, `templates`).
    pub fn plural(self) -> &'static str {
        match self {
            Kind::Tool => "tools",
            Kind::Prompt => "prompts",
            Kind::Resource => "resources",
            Kind::Template => "templates",
        }
    }

    fn singular(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
            Kind::Template => "resource template",
        }
    }
}

/// A test, as coverage reports name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestRef {
    pub name: String,
    pub file: String,
    pub line: u32,
    /// Its status in the results applied, if they hold it.
    pub status: Option<TestStatus>,
}

impl TestRef {
    fn of(t: &Test) -> TestRef {
        TestRef {
            name: t.name.clone(),
            file: t.file.clone(),
            line: t.line,
            status: None,
        }
    }

    fn to_json(&self) -> Value {
        let mut o = json!({"name": self.name, "file": self.file, "line": self.line});
        if let Some(s) = self.status {
            o["status"] = json!(s.as_str());
        }
        o
    }

    fn same_test(&self, other: &TestRef) -> bool {
        (&self.name, &self.file, self.line) == (&other.name, &other.file, other.line)
    }
}

/// One offered (or used but not offered) item and the tests that use it.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub name: String,
    /// Tests whose action uses it.
    pub tests: Vec<TestRef>,
    /// Tests that call it in `setup` only (tools).
    pub setup: Vec<TestRef>,
}

impl Item {
    fn new(name: &str) -> Item {
        Item {
            name: name.to_string(),
            tests: Vec::new(),
            setup: Vec::new(),
        }
    }

    /// Whether a test that uses it passed (in the results applied).
    pub fn passing(&self) -> bool {
        self.tests
            .iter()
            .any(|t| t.status == Some(TestStatus::Pass))
    }

    fn to_json(&self, with_results: bool) -> Value {
        let mut o = Map::new();
        o.insert("name".into(), json!(self.name));
        if with_results {
            o.insert("passing".into(), json!(self.passing()));
        }
        o.insert(
            "tests".into(),
            self.tests.iter().map(TestRef::to_json).collect(),
        );
        if !self.setup.is_empty() {
            o.insert(
                "setup".into(),
                self.setup.iter().map(TestRef::to_json).collect(),
            );
        }
        Value::Object(o)
    }
}

/// One kind's coverage.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub kind: Kind,
    /// What the server offers, in its order.
    pub offered: Vec<Item>,
    /// What tests use that the server does not offer.
    pub not_offered: Vec<Item>,
}

impl Section {
    pub fn covered(&self) -> usize {
        self.offered.iter().filter(|i| !i.tests.is_empty()).count()
    }

    /// Offered items a passing test uses.
    pub fn passing(&self) -> usize {
        self.offered.iter().filter(|i| i.passing()).count()
    }
}

/// The coverage of one server by the tests that use it.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// The server, as reports name it (`stdio://…`, a URL).
    pub server: String,
    /// How many tests use this server.
    pub tests: usize,
    /// Tools, prompts, resources, templates.
    pub sections: Vec<Section>,
    /// Whether a run's results were applied (and the passing counts mean
    /// something).
    pub with_results: bool,
}

impl Coverage {
    pub fn covered(&self) -> usize {
        self.sections.iter().map(Section::covered).sum()
    }

    pub fn passing(&self) -> usize {
        self.sections.iter().map(Section::passing).sum()
    }

    /// Mark every test with its status in `results`, found by file and name
    /// (and line, when two tests of a file share a name), or by name alone
    /// when exactly one result has it (the file was named differently, e.g.
    /// from another directory). Returns the tests the results do not hold,
    /// once each.
    pub fn apply_results(&mut self, results: &Results) -> Vec<TestRef> {
        self.with_results = true;
        let mut missing: Vec<TestRef> = Vec::new();
        for section in &mut self.sections {
            for item in section.offered.iter_mut().chain(&mut section.not_offered) {
                for t in item.tests.iter_mut().chain(&mut item.setup) {
                    t.status = status_in(results, t);
                    if t.status.is_none() && !missing.iter().any(|m| m.same_test(t)) {
                        missing.push(t.clone());
                    }
                }
            }
        }
        missing
    }

    pub fn offered(&self) -> usize {
        self.sections.iter().map(|s| s.offered.len()).sum()
    }

    /// The covered share in percent; 100 when the server offers nothing.
    pub fn percent(&self) -> f64 {
        percent(self.covered(), self.offered())
    }

    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("server".into(), json!(self.server));
        o.insert("tests".into(), json!(self.tests));
        o.insert("covered".into(), json!(self.covered()));
        o.insert("offered".into(), json!(self.offered()));
        o.insert("percent".into(), json!(round1(self.percent())));
        let with = self.with_results;
        if with {
            o.insert("passing".into(), json!(self.passing()));
            o.insert(
                "passing_percent".into(),
                json!(round1(percent(self.passing(), self.offered()))),
            );
        }
        for s in &self.sections {
            let mut section = json!({
                "covered": s.covered(),
                "offered": s.offered.len(),
                "items": s.offered.iter().map(|i| i.to_json(with)).collect::<Vec<_>>(),
                "not_offered": s.not_offered.iter().map(|i| i.to_json(with)).collect::<Vec<_>>(),
            });
            if with {
                section["passing"] = json!(s.passing());
            }
            o.insert(s.kind.plural().into(), section);
        }
        Value::Object(o)
    }
}

/// A test's status in `results` (see [`Coverage::apply_results`]).
fn status_in(results: &Results, t: &TestRef) -> Option<TestStatus> {
    let same_file: Vec<_> = results
        .tests
        .iter()
        .filter(|r| r.name == t.name && r.file == t.file)
        .collect();
    match same_file.as_slice() {
        [one] => return Some(one.status),
        [] => {}
        several => {
            return several
                .iter()
                .find(|r| r.line == Some(t.line))
                .map(|r| r.status);
        }
    }
    let mut by_name = results.tests.iter().filter(|r| r.name == t.name);
    match (by_name.next(), by_name.next()) {
        (Some(one), None) => Some(one.status),
        _ => None,
    }
}

fn percent(covered: usize, offered: usize) -> f64 {
    if offered == 0 {
        100.0
    } else {
        covered as f64 * 100.0 / offered as f64
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// What one test uses, per kind; `setup` holds tools called by setup steps.
fn uses(t: &Test) -> (Vec<(Kind, String)>, Vec<String>) {
    let mut used = Vec::new();
    match &t.action {
        Action::Tool { tool, .. }
        | Action::Sampling { tool, .. }
        | Action::Notifications { tool, .. }
        | Action::Logging {
            tool: Some(tool), ..
        } => used.push((Kind::Tool, tool.clone())),
        Action::Logging { tool: None, .. } | Action::Trajectory(_) => {}
        Action::Prompts(PromptOp::Get { name, .. }) => used.push((Kind::Prompt, name.clone())),
        Action::Prompts(PromptOp::List { .. }) => {}
        Action::Resources { op, subscribe, .. } => {
            if let ResourceOp::Read { uri } = op {
                used.push((Kind::Resource, uri.clone()));
            }
            if let Some(uri) = subscribe
                && !used.iter().any(|(_, u)| u == uri)
            {
                used.push((Kind::Resource, uri.clone()));
            }
        }
        Action::Completion {
            ref_type, ref_name, ..
        } => match ref_type.as_str() {
            "ref/prompt" => used.push((Kind::Prompt, ref_name.clone())),
            "ref/resource" => used.push((Kind::Template, ref_name.clone())),
            _ => {}
        },
        Action::Extension(ExtensionOp::Task { tool, .. })
        | Action::Extension(ExtensionOp::App(AppSource::Tool(tool))) => {
            used.push((Kind::Tool, tool.clone()));
        }
        Action::Extension(ExtensionOp::App(AppSource::Read(uri)))
        | Action::Extension(ExtensionOp::Skills {
            op: SkillsOp::Get { uri },
            ..
        }) => used.push((Kind::Resource, uri.clone())),
        Action::Extension(ExtensionOp::Skills { .. }) => {}
    }
    let setup = t.setup.iter().map(|s| s.tool.clone()).collect();
    (used, setup)
}

/// Whether `uri` is an expansion of the RFC 6570 `template`: the literal
/// parts in order, each `{…}` standing for any text (`{+…}` and `{#…}` may
/// hold `/`, the other operators may not).
pub fn template_matches(template: &str, uri: &str) -> bool {
    let mut pattern = String::from("^");
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        pattern.push_str(&regex::escape(&rest[..open]));
        let Some(close) = rest[open..].find('}') else {
            return false;
        };
        let expr = &rest[open + 1..open + close];
        pattern.push_str(if expr.starts_with(['+', '#']) {
            ".*"
        } else {
            "[^/]*"
        });
        rest = &rest[open + close + 1..];
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    regex::Regex::new(&pattern).is_ok_and(|r| r.is_match(uri))
}

/// The coverage of `offered` by `tests` (the tests that use this server).
pub fn compute(server: &str, offered: &Offered, tests: &[&Test]) -> Coverage {
    let list = |names: &[String]| names.iter().map(|n| Item::new(n)).collect::<Vec<_>>();
    let mut sections: Vec<Section> = Kind::ALL
        .iter()
        .map(|&kind| Section {
            kind,
            offered: list(match kind {
                Kind::Tool => &offered.tools,
                Kind::Prompt => &offered.prompts,
                Kind::Resource => &offered.resources,
                Kind::Template => &offered.templates,
            }),
            not_offered: Vec::new(),
        })
        .collect();
    let index = |k: Kind| Kind::ALL.iter().position(|&x| x == k).unwrap_or(0);
    for t in tests {
        let who = TestRef::of(t);
        let (used, setup) = uses(t);
        for (kind, name) in used {
            // A resource URI that is not listed may be a template's expansion.
            let (kind, slot) = match (kind, find(&sections[index(kind)], &name)) {
                (_, Some(i)) => (kind, Some(i)),
                (Kind::Resource, None) => {
                    let templates = &sections[index(Kind::Template)].offered;
                    match templates
                        .iter()
                        .position(|i| template_matches(&i.name, &name))
                    {
                        Some(i) => (Kind::Template, Some(i)),
                        None => (kind, None),
                    }
                }
                (_, None) => (kind, None),
            };
            // A listed resource whose URI a template also expands to (a
            // template without variables, say) uses the template too.
            if kind == Kind::Resource && slot.is_some() {
                let templates = &mut sections[index(Kind::Template)].offered;
                if let Some(item) = templates
                    .iter_mut()
                    .find(|i| template_matches(&i.name, &name))
                    && !item.tests.contains(&who)
                {
                    item.tests.push(who.clone());
                }
            }
            let section = &mut sections[index(kind)];
            let item = match slot {
                Some(i) => &mut section.offered[i],
                None => not_offered(section, &name),
            };
            if !item.tests.contains(&who) {
                item.tests.push(who.clone());
            }
        }
        for tool in setup {
            let section = &mut sections[index(Kind::Tool)];
            let item = match find(section, &tool) {
                Some(i) => &mut section.offered[i],
                None => not_offered(section, &tool),
            };
            if !item.setup.contains(&who) {
                item.setup.push(who.clone());
            }
        }
    }
    Coverage {
        server: server.to_string(),
        tests: tests.len(),
        sections,
        with_results: false,
    }
}

fn find(section: &Section, name: &str) -> Option<usize> {
    section.offered.iter().position(|i| i.name == name)
}

fn not_offered<'a>(section: &'a mut Section, name: &str) -> &'a mut Item {
    let at = match section.not_offered.iter().position(|i| i.name == name) {
        Some(i) => i,
        None => {
            section.not_offered.push(Item::new(name));
            section.not_offered.len() - 1
        }
    };
    &mut section.not_offered[at]
}

/// The text report of several servers' coverage.
pub fn render_text(all: &[Coverage]) -> String {
    let mut out = String::new();
    for c in all {
        out.push_str(&format!(
            "{}: {} of {} offered items used by {} {} ({:.0}%)",
            c.server,
            c.covered(),
            c.offered(),
            c.tests,
            if c.tests == 1 { "test" } else { "tests" },
            c.percent().floor()
        ));
        if c.with_results {
            out.push_str(&format!(
                ", {} by a passing test ({:.0}%)",
                c.passing(),
                percent(c.passing(), c.offered()).floor()
            ));
        }
        out.push('\n');
        for s in &c.sections {
            if s.offered.is_empty() && s.not_offered.is_empty() {
                continue;
            }
            let mut line = format!(
                "  {:<10} {:>3} of {:<3}",
                s.kind.plural(),
                s.covered(),
                s.offered.len()
            );
            let missing: Vec<String> = s
                .offered
                .iter()
                .filter(|i| i.tests.is_empty())
                .map(|i| {
                    if i.setup.is_empty() {
                        i.name.clone()
                    } else {
                        format!("{} (setup only)", i.name)
                    }
                })
                .collect();
            if c.with_results {
                line.push_str(&format!(" {:>3} passing", s.passing()));
            }
            if !missing.is_empty() {
                line.push_str(&format!(" not used: {}", missing.join(", ")));
            }
            if c.with_results {
                let failing: Vec<&str> = s
                    .offered
                    .iter()
                    .filter(|i| !i.tests.is_empty() && !i.passing())
                    .map(|i| i.name.as_str())
                    .collect();
                if !failing.is_empty() {
                    line.push_str(&format!(
                        "{}no passing test: {}",
                        if missing.is_empty() { " " } else { "; " },
                        failing.join(", ")
                    ));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
            for i in &s.not_offered {
                let first = i.tests.first().or(i.setup.first());
                let by = first.map_or(String::new(), |t| {
                    let more = i.tests.len() + i.setup.len() - 1;
                    let more = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    format!(" (test \"{}\", {}:{}{more})", t.name, t.file, t.line)
                });
                out.push_str(&format!(
                    "    not offered by the server: {} `{}`{by}\n",
                    s.kind.singular(),
                    i.name
                ));
            }
        }
    }
    if all.len() > 1 {
        let (covered, offered) = totals(all);
        out.push_str(&format!(
            "total: {covered} of {offered} offered items used ({:.0}%)",
            percent(covered, offered).floor()
        ));
        if all.iter().any(|c| c.with_results) {
            let passing: usize = all.iter().map(Coverage::passing).sum();
            out.push_str(&format!(
                ", {passing} by a passing test ({:.0}%)",
                percent(passing, offered).floor()
            ));
        }
        out.push('\n');
    }
    out
}

/// The JSON report of several servers' coverage.
pub fn render_json(all: &[Coverage]) -> Value {
    let (covered, offered) = totals(all);
    let mut o = json!({
        "servers": all.iter().map(Coverage::to_json).collect::<Vec<_>>(),
        "covered": covered,
        "offered": offered,
        "percent": round1(percent(covered, offered)),
    });
    if all.iter().any(|c| c.with_results) {
        let passing: usize = all.iter().map(Coverage::passing).sum();
        o["passing"] = json!(passing);
        o["passing_percent"] = json!(round1(percent(passing, offered)));
    }
    o
}

/// [`Coverage::apply_results`] over every server; the tests the results do
/// not hold, once each however many servers they use.
pub fn apply_results(all: &mut [Coverage], results: &Results) -> Vec<TestRef> {
    let mut missing: Vec<TestRef> = Vec::new();
    for c in all {
        for t in c.apply_results(results) {
            if !missing.iter().any(|m| m.same_test(&t)) {
                missing.push(t);
            }
        }
    }
    missing
}

/// Covered and offered items over every server.
pub fn totals(all: &[Coverage]) -> (usize, usize) {
    (
        all.iter().map(Coverage::covered).sum(),
        all.iter().map(Coverage::offered).sum(),
    )
}

/// The covered share over every server, in percent.
fn total_percent(all: &[Coverage]) -> f64 {
    let (covered, offered) = totals(all);
    percent(covered, offered)
}

/// The `--min` gate: why the covered share over every server is below `min`
/// percent, or `None` when it is not.
pub fn below_min(all: &[Coverage], min: f64) -> Option<String> {
    let total = total_percent(all);
    (total < min).then(|| format!("{total:.1}% of the offered items are used, below --min {min}%"))
}

/// The `--min-passing` gate: why the share of offered items a passing test
/// uses, over every server, is below `min` percent, or `None` when it is not.
pub fn below_min_passing(all: &[Coverage], min: f64) -> Option<String> {
    let (_, offered) = totals(all);
    let passing: usize = all.iter().map(Coverage::passing).sum();
    let total = percent(passing, offered);
    (total < min).then(|| {
        format!("{total:.1}% of the offered items are used by a passing test, below --min-passing {min}%")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite;

    fn tests_of(yaml: &str) -> Vec<Test> {
        let loaded = suite::load("s.yaml", yaml);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded.suite.tests
    }

    fn offered() -> Offered {
        Offered::from_lists(
            &[
                json!({"name": "echo"}),
                json!({"name": "add"}),
                json!({"name": "write"}),
            ],
            &[json!({"name": "greet"}), json!({"name": "summarize"})],
            &[
                json!({"uri": "mem://readme"}),
                json!({"uri": "mem://readme"}),
            ],
            &[json!({"uriTemplate": "mem://items/{id}"})],
        )
    }

    const SUITE: &str = r#"
server: {command: srv}
tests:
  - name: echo works
    setup:
      - tool: write
        args: {}
    tool: echo
    args: {message: hi}
    expect: {not_error: true}
  - name: typo
    tool: ehco
    expect: {not_error: true}
  - name: greet
    assert_prompts:
      get: {name: greet}
      expect: {not_error: true}
  - name: an item
    assert_resources:
      read: mem://items/7
      expect: {not_error: true}
  - name: complete the summary
    assert_completion:
      ref: {type: ref/prompt, name: summarize}
      argument: {name: topic, value: r}
      expect: {not_error: true}
"#;

    #[test]
    fn counts_what_the_actions_use_and_names_what_is_missing() {
        let tests = tests_of(SUITE);
        let refs: Vec<&Test> = tests.iter().collect();
        let c = compute("stdio://srv", &offered(), &refs);
        // echo, greet, summarize, the template; not add, write (setup only), readme.
        assert_eq!((c.covered(), c.offered()), (4, 7));
        let tools = &c.sections[0];
        assert_eq!(tools.offered[2].name, "write");
        assert!(tools.offered[2].tests.is_empty());
        assert_eq!(tools.offered[2].setup[0].name, "echo works");
        assert_eq!(tools.not_offered[0].name, "ehco");
        assert_eq!(c.sections[3].covered(), 1, "the read matched the template");
        assert!(c.sections[2].not_offered.is_empty());

        let text = render_text(std::slice::from_ref(&c));
        assert!(
            text.starts_with("stdio://srv: 4 of 7 offered items used by 5 tests (57%)\n"),
            "{text}"
        );
        assert!(
            text.contains("tools        1 of 3   not used: add, write (setup only)\n"),
            "{text}"
        );
        assert!(
            text.contains("not offered by the server: tool `ehco` (test \"typo\", s.yaml:"),
            "{text}"
        );
        let j = render_json(std::slice::from_ref(&c));
        assert_eq!(j["percent"], json!(57.1));
        assert_eq!(
            j["servers"][0]["templates"]["items"][0]["tests"][0]["name"],
            "an item"
        );
        assert_eq!(j["servers"][0]["tools"]["not_offered"][0]["name"], "ehco");
    }

    fn results_of(statuses: &[(&str, &str)]) -> Results {
        let tests = statuses
            .iter()
            .map(|(name, status)| {
                let t = json!({"name": name, "file": "s.yaml", "status": status,
                    "duration_ms": 1, "checks": []});
                serde_json::from_value(t).expect("a test result")
            })
            .collect();
        Results::new(tests, 0)
    }

    #[test]
    fn results_add_which_items_a_passing_test_uses() {
        let tests = tests_of(SUITE);
        let refs: Vec<&Test> = tests.iter().collect();
        let mut c = compute("stdio://srv", &offered(), &refs);
        let missing = c.apply_results(&results_of(&[
            ("echo works", "fail"),
            ("typo", "fail"),
            ("greet", "pass"),
            ("an item", "pass"),
        ]));
        assert_eq!(
            missing.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["complete the summary"],
            "a test the results lack is reported"
        );
        // greet and the template pass; echo's test failed, summarize has no result.
        assert_eq!((c.covered(), c.passing()), (4, 2));
        let text = render_text(std::slice::from_ref(&c));
        assert!(
            text.starts_with(
                "stdio://srv: 4 of 7 offered items used by 5 tests (57%), 2 by a passing test (28%)\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("tools        1 of 3     0 passing not used: add, write (setup only); no passing test: echo\n"),
            "{text}"
        );
        assert!(
            text.contains("prompts      2 of 2     1 passing no passing test: summarize\n"),
            "{text}"
        );
        let j = render_json(std::slice::from_ref(&c));
        assert_eq!(j["passing"], json!(2));
        assert_eq!(j["passing_percent"], json!(28.6));
        assert_eq!(j["servers"][0]["prompts"]["passing"], json!(1));
        assert_eq!(
            j["servers"][0]["prompts"]["items"][0]["passing"],
            json!(true)
        );
        assert_eq!(
            j["servers"][0]["tools"]["items"][0]["tests"][0]["status"],
            "fail"
        );
        assert_eq!(
            below_min_passing(std::slice::from_ref(&c), 30.0).as_deref(),
            Some("28.6% of the offered items are used by a passing test, below --min-passing 30%")
        );
        assert_eq!(below_min_passing(std::slice::from_ref(&c), 28.0), None);
        // Without results, no passing figures appear anywhere.
        let plain = compute("stdio://srv", &offered(), &refs);
        assert!(!render_text(std::slice::from_ref(&plain)).contains("passing"));
        assert!(render_json(&[plain]).get("passing").is_none());
    }

    #[test]
    fn the_min_gate_compares_the_share_over_every_server() {
        let tests = tests_of(SUITE);
        let refs: Vec<&Test> = tests.iter().collect();
        let all = [compute("stdio://srv", &offered(), &refs)];
        assert_eq!(
            below_min(&all, 60.0).as_deref(),
            Some("57.1% of the offered items are used, below --min 60%")
        );
        assert_eq!(below_min(&all, 57.0), None);
        assert_eq!(below_min(&[], 100.0), None, "nothing offered is fully used");
    }

    #[test]
    fn a_server_that_offers_nothing_is_fully_covered() {
        let c = compute("x", &Offered::default(), &[]);
        assert_eq!(c.percent(), 100.0);
        assert_eq!(
            render_text(&[c]),
            "x: 0 of 0 offered items used by 0 tests (100%)\n"
        );
    }

    #[test]
    fn a_read_of_a_listed_uri_uses_the_template_that_expands_to_it_too() {
        let offered = Offered::from_lists(
            &[],
            &[],
            &[json!({"uri": "mem://readme"})],
            &[
                json!({"uriTemplate": "mem://readme"}),
                json!({"uriTemplate": "mem://items/{id}"}),
            ],
        );
        let tests = tests_of(
            "server: {command: srv}\ntests:\n  - name: readme\n    assert_resources:\n      read: mem://readme\n      expect: {not_error: true}\n",
        );
        let refs: Vec<&Test> = tests.iter().collect();
        let c = compute("x", &offered, &refs);
        assert_eq!(c.sections[2].covered(), 1, "the resource");
        assert_eq!(c.sections[3].covered(), 1, "the template without variables");
        assert!(
            c.sections[3].offered[1].tests.is_empty(),
            "not the other one"
        );
    }

    #[test]
    fn templates_match_their_expansions() {
        assert!(template_matches("mem://items/{id}", "mem://items/7"));
        assert!(!template_matches("mem://items/{id}", "mem://items/7/parts"));
        assert!(template_matches("file:///{+path}", "file:///a/b.txt"));
        assert!(template_matches("a{?q,r}", "a?q=1"));
        assert!(!template_matches("mem://items/{id}", "mem://other/7"));
        assert!(!template_matches("broken{", "broken{"));
    }
}
