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

use serde_json::{Map, Value, json};

use crate::suite::{Action, PromptOp, ResourceOp, Test};

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
}

impl TestRef {
    fn of(t: &Test) -> TestRef {
        TestRef {
            name: t.name.clone(),
            file: t.file.clone(),
            line: t.line,
        }
    }

    fn to_json(&self) -> Value {
        json!({"name": self.name, "file": self.file, "line": self.line})
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

    fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("name".into(), json!(self.name));
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
}

impl Coverage {
    pub fn covered(&self) -> usize {
        self.sections.iter().map(Section::covered).sum()
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
        for s in &self.sections {
            o.insert(
                s.kind.plural().into(),
                json!({
                    "covered": s.covered(),
                    "offered": s.offered.len(),
                    "items": s.offered.iter().map(Item::to_json).collect::<Vec<_>>(),
                    "not_offered": s.not_offered.iter().map(Item::to_json).collect::<Vec<_>>(),
                }),
            );
        }
        Value::Object(o)
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
            "{}: {} of {} offered items used by {} {} ({:.0}%)\n",
            c.server,
            c.covered(),
            c.offered(),
            c.tests,
            if c.tests == 1 { "test" } else { "tests" },
            c.percent().floor()
        ));
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
            if !missing.is_empty() {
                line.push_str(&format!(" not used: {}", missing.join(", ")));
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
            "total: {covered} of {offered} offered items used ({:.0}%)\n",
            percent(covered, offered).floor()
        ));
    }
    out
}

/// The JSON report of several servers' coverage.
pub fn render_json(all: &[Coverage]) -> Value {
    let (covered, offered) = totals(all);
    json!({
        "servers": all.iter().map(Coverage::to_json).collect::<Vec<_>>(),
        "covered": covered,
        "offered": offered,
        "percent": round1(percent(covered, offered)),
    })
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
