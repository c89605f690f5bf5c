//! The vocabulary `mcpcheck mcp` offers an agent as resources — every
//! rule's explanation (`mcpcheck://rules/CODE`), the list of rules
//! (`mcpcheck://rules`) and the suite format (`mcpcheck://docs/suites`) —
//! and its three prompts.

use mcpcheck_core::findings::registry;
use mcpcheck_core::findings::render::rules as render;
use rmcp::model::{
    Prompt, PromptArgument, PromptMessage, Resource, ResourceContents, ResourceTemplate, Role,
};

/// The suite format: docs/suites.md, as the documentation has it.
pub const SUITES: &str = include_str!("suites.md");

pub const SUITES_URI: &str = "mcpcheck://docs/suites";
pub const RULES_URI: &str = "mcpcheck://rules";
const RULE_PREFIX: &str = "mcpcheck://rules/";
pub const RULE_TEMPLATE: &str = "mcpcheck://rules/{code}";
const MARKDOWN: &str = "text/markdown";

/// Every resource: the suite format, the list of rules, then each rule.
pub fn resources() -> Vec<Resource> {
    let mut out = vec![
        Resource::new(SUITES_URI, "suite-format")
            .with_title("The suite format")
            .with_description(
                "How suite files are written: the blocks, the server block, every expectation key, composed files, hooks and templates.",
            )
            .with_mime_type(MARKDOWN)
            .with_size(SUITES.len() as u64),
        Resource::new(RULES_URI, "rules")
            .with_title("Every rule")
            .with_description(
                "The rules of every analysis in one table: code, level, severity, title, what each catches, how to fix it, its source.",
            )
            .with_mime_type(MARKDOWN),
    ];
    out.extend(registry::all().map(|r| {
        Resource::new(format!("{RULE_PREFIX}{}", r.code), r.code)
            .with_title(format!("{} {}", r.code, r.title))
            .with_description(format!(
                "The {} rule {}: what it catches, why, its source, an example and the fix.",
                r.family.as_str(),
                r.code
            ))
            .with_mime_type(MARKDOWN)
    }));
    out
}

/// The template every rule's URI fits.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(RULE_TEMPLATE, "rule")
            .with_title("A rule, by code")
            .with_description(
                "One rule explained, by its code (E103, S301, INV-022) or alias: what it catches, why, its source, an example and the fix.",
            )
            .with_mime_type(MARKDOWN),
    ]
}

/// The text of the resource at `uri`, or `None` when there is none.
pub fn read(uri: &str) -> Option<ResourceContents> {
    let text = match uri {
        SUITES_URI => SUITES.to_string(),
        RULES_URI => {
            let rules: Vec<_> = registry::all().collect();
            format!(
                "# Rules\n\nEvery rule of every analysis; `mcpcheck://rules/CODE` explains one.\n\n{}",
                render::table(&rules)
            )
        }
        _ => {
            let code = uri.strip_prefix(RULE_PREFIX)?;
            let rule = registry::lookup(code)?;
            let example = crate::commands::rules::example(rule);
            render::explain_markdown(rule, example.as_deref())
        }
    };
    Some(ResourceContents::text(text, uri).with_mime_type(MARKDOWN))
}

/// Why a prompt cannot be given.
pub enum PromptError {
    Unknown(String),
    Missing(&'static str),
}

/// The three prompts.
pub fn prompts() -> Vec<Prompt> {
    vec![
        Prompt::new(
            "write_suite",
            Some("Write a test suite for an MCP server: starter tests from what it lists, expectations that say what each answer must hold, validated and run until they pass."),
            Some(vec![
                PromptArgument::new("server")
                    .with_description("The server: its command line (node dist/index.js) or its URL.")
                    .with_required(true),
                PromptArgument::new("directory")
                    .with_description("Where the suite goes (default: mcp-tests).")
                    .with_required(false),
            ]),
        )
        .with_title("Write a suite for this server"),
        Prompt::new(
            "fix_failing_check",
            Some("Work out why a check of a test run failed, decide whether the server or the expectation is wrong, fix that one, and run the test again."),
            Some(vec![
                PromptArgument::new("test")
                    .with_description("The failing test: its entry of a run's results document, as JSON, or the text the run printed for it.")
                    .with_required(true),
                PromptArgument::new("suite")
                    .with_description("The suite file or directory the test belongs to.")
                    .with_required(false),
            ]),
        )
        .with_title("Fix this failing check"),
        Prompt::new(
            "triage_report",
            Some("Sort the findings of a report (doctor, lint or scan) by what to fix first, explain each rule, and fix, or record why a finding is accepted."),
            Some(vec![
                PromptArgument::new("report")
                    .with_description("The report: the JSON document a doctor, lint or scan call returned, or the text mcpcheck printed.")
                    .with_required(true),
            ]),
        )
        .with_title("Triage this report"),
    ]
}

/// The messages of prompt `name` with `arguments`, and its description.
pub fn get_prompt(
    name: &str,
    arguments: &serde_json::Map<String, serde_json::Value>,
) -> Result<(String, Vec<PromptMessage>), PromptError> {
    let arg = |key: &str| {
        arguments
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let prompt = prompts()
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| PromptError::Unknown(name.to_string()))?;
    let description = prompt.description.clone().unwrap_or_default();
    let text = match name {
        "write_suite" => {
            let server = arg("server").ok_or(PromptError::Missing("server"))?;
            let directory = arg("directory").unwrap_or_else(|| "mcp-tests".to_string());
            write_suite(&server, &directory)
        }
        "fix_failing_check" => {
            let test = arg("test").ok_or(PromptError::Missing("test"))?;
            fix_failing_check(&test, arg("suite").as_deref())
        }
        _ => {
            let report = arg("report").ok_or(PromptError::Missing("report"))?;
            triage_report(&report)
        }
    };
    Ok((description, vec![PromptMessage::new_text(Role::User, text)]))
}

/// `server` as a tool argument: `url` when it is one, else `server`.
fn target(server: &str) -> String {
    let key = if server.starts_with("http://") || server.starts_with("https://") {
        "url"
    } else {
        "server"
    };
    format!("{key}: {}", serde_json::json!(server))
}

fn write_suite(server: &str, directory: &str) -> String {
    let target = target(server);
    format!(
        "Write a test suite for the MCP server `{server}` with the mcpcheck tools, in `{directory}`.\n\
\n\
1. Read the resource {SUITES_URI} for the suite format: the `assert` block, the server block and the expectation keys.\n\
2. Call `doctor` with {target} first. Fix, or note, what it reports before writing tests: a test suite cannot make up for a tool whose schema clients reject.\n\
3. Call `generate_tests` with {target} (no write_to) and read the starter files it returns: one per tool, prompt and resource, each expecting only that the call succeeds.\n\
4. For each tool, replace the example arguments with realistic ones and add expectations that say what a correct answer holds: `contains`, `equals`, `json_path`, a `schema` for structured content, `not_error`. Add a test with invalid input that expects a tool error (`is_error: true`) and a useful message. Keep tools that may write skipped unless they run on a fixture (`{{{{fixture}}}}`).\n\
5. Write the files into `{directory}` (call `generate_tests` again with write_to, then edit them), and call `validate_suite` on `{directory}` until it reports no error.\n\
6. Call `run_suite` with suite `{directory}`. For each failing test, decide whether the server or the expectation is wrong, from the check's expected, actual and reason; fix that one and run again, until every test passes.\n\
\n\
Report the tests written, what each checks, and anything in the server that looks wrong.\n"
    )
}

fn fix_failing_check(test: &str, suite: Option<&str>) -> String {
    let suite_line = match suite {
        Some(s) => format!("The test belongs to the suite `{s}`."),
        None => "Find the test's file from its `file` and `line`.".to_string(),
    };
    format!(
        "This test of an mcpcheck run failed:\n\
\n\
```\n{test}\n```\n\
\n\
{suite_line}\n\
\n\
1. Read each failing check: `code` is the expectation key, `target` and `path` where it looked, `expected` and `actual` what it wanted and saw, `reason` why they differ. A test with status `error` never got an answer to check: read its `message` (the server did not start, crashed or timed out).\n\
2. Read the test's file and the server code that answers the call. Decide which is wrong: the server (it broke its contract), or the expectation (it asks for something the server never promised, or is too strict, such as an exact text where a part would do). Read {SUITES_URI} when unsure what a key means.\n\
3. Fix that one. Do not loosen an expectation only to make it pass: if the server is wrong, fix the server.\n\
4. Call `validate_suite` on the file if you changed it, then `run_suite` on it (filter to this test's name) until it passes, then once on the whole suite.\n\
\n\
Say what was wrong, which side you fixed and why.\n"
    )
}

fn triage_report(report: &str) -> String {
    format!(
        "Triage this mcpcheck report:\n\
\n\
```\n{report}\n```\n\
\n\
1. Group the findings by level: `error` fails the report (a requirement broken), `warning` fails only with strict (a recommendation not met), `note` never fails. Within a level, higher severity first.\n\
2. For each rule code, read `mcpcheck://rules/CODE` (or call `explain_rule`): what it catches, why it matters and how to fix it. The report's `rules` member has the same fix in short.\n\
3. Fix the errors first, at the place each finding names (`item`, `field`, `context`), then the warnings. Notes are worth a look, not a fix each.\n\
4. A finding that is right but deliberate (a test fixture, a tool that fails on purpose) is not fixed: record it in mcpcheck.toml as a [[suppress]] entry with rule, item and a reason.\n\
5. Check again with the call that made the report (`doctor` for a server) until no error is left.\n\
\n\
Answer with the list of what you fixed, what you suppressed and why, and what is left.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_resource_can_be_read() {
        let listed = resources();
        assert_eq!(listed.len(), registry::all().count() + 2);
        for r in &listed {
            let contents = read(&r.uri).unwrap_or_else(|| panic!("{} cannot be read", r.uri));
            let ResourceContents::TextResourceContents { text, .. } = contents else {
                panic!("{} is not text", r.uri);
            };
            assert!(!text.trim().is_empty(), "{}", r.uri);
        }
        assert!(read("mcpcheck://rules/NOPE").is_none());
        assert!(read("mcpcheck://elsewhere").is_none());
        // An alias reads as its rule.
        assert!(read("mcpcheck://rules/lock-breaking").is_some());
    }

    #[test]
    fn a_rule_reads_as_the_explanation_rule_prints() {
        let Some(ResourceContents::TextResourceContents { text, .. }) =
            read("mcpcheck://rules/E103")
        else {
            panic!("E103");
        };
        assert!(
            text.starts_with("# E103 Required parameter without description"),
            "{text}"
        );
        assert!(text.contains("## How to fix it"), "{text}");
        assert!(text.contains("## Example"), "{text}");
    }

    #[test]
    fn prompts_need_their_required_arguments() {
        let mut args = serde_json::Map::new();
        assert!(matches!(
            get_prompt("write_suite", &args),
            Err(PromptError::Missing("server"))
        ));
        args.insert(
            "server".into(),
            serde_json::json!("http://127.0.0.1:8080/mcp"),
        );
        let (_, messages) = get_prompt("write_suite", &args).unwrap_or_else(|_| panic!());
        let text = serde_json::to_string(&messages).unwrap_or_default();
        assert!(
            text.contains(r#"url: \"http://127.0.0.1:8080/mcp\""#),
            "{text}"
        );
        assert!(matches!(
            get_prompt("nope", &args),
            Err(PromptError::Unknown(_))
        ));
    }
}
