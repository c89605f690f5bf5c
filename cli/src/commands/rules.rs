//! `mcpcheck rule CODE` and `mcpcheck rules`: the one rule registry of every
//! analysis (`mcpcheck_core::findings::registry`), explained and listed.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use mcpcheck_core::findings::render::rules as render;
use mcpcheck_core::findings::{Family, RuleInfo, examples, registry};

use crate::error::{Error, Result};
use crate::output::{out, paint_for_stdout};

/// How `rule` and `rules` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    /// For people.
    Text,
    /// A JSON document.
    Json,
    /// Markdown (the tables of the documentation).
    Markdown,
}

/// Explain a rule: what it catches, why it matters, where it comes from, an
/// example, and how to fix what it finds.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("CODE is any rule's code (E103, S301, H101, INV-022, A101, F201, L201) or \
alias (lock-breaking, tool-namespace-overlap). `mcpcheck rules` lists them all.\n\n",
    crate::help::docs_line!("rules")
)
)]
pub struct RuleArgs {
    /// The rule's code.
    #[arg(value_name = "CODE")]
    code: String,

    /// Output format.
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    format: RulesFormat,
}

/// List the rules of every analysis, or of one family.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("Families: invariants (INV-, conformance), lint (E/W/I), scan (S), http (H, \
probe), audit (A), fuzz (F), lock (L). `mcpcheck rule CODE` explains one.\n\n",
    crate::help::docs_line!("rules")
)
)]
pub struct RulesArgs {
    /// Only this family's rules.
    #[arg(long, value_name = "FAMILY", value_parser = family)]
    family: Option<Family>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    format: RulesFormat,
}

fn family(s: &str) -> std::result::Result<Family, crate::error::ValueError> {
    Family::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
        crate::error::ValueError::NotOneOf {
            given: s.to_string(),
            what: "family",
            known: names.join(", "),
        }
    })
}

/// How to see a rule fire on `mcpcheck serve`, for the families whose rules
/// have no shared vector.
fn try_it(rule: &RuleInfo) -> Option<String> {
    let fault = |fault: &str, then: &str| {
        format!("mcpcheck serve --http 127.0.0.1:8080 --fault {fault} &\n{then}\n")
    };
    let probe = "mcpcheck probe --url http://127.0.0.1:8080/mcp --fail-on low";
    let auth = "mcpcheck probe --url http://127.0.0.1:8080/mcp --auth";
    Some(match rule.code {
        "H101" | "H102" => fault("no-origin-check", probe),
        "H201" => fault("hidden-tool", probe),
        "H301" | "H302" | "H303" => fault("leaky-errors", probe),
        "H501" => fault("guessable-session-ids", probe),
        "H502" => fault("session-survives-delete", probe),
        "H402" | "H403" => format!(
            "mcpcheck serve --http 127.0.0.1:8080 --bearer s3cret --fault no-resource-metadata &\n{probe}\n"
        ),
        "H404" => format!(
            "mcpcheck serve --http 127.0.0.1:8080 --oauth --fault oauth-wrong-audience &\n{auth}\n"
        ),
        "H405" => format!(
            "mcpcheck serve --http 127.0.0.1:8080 --oauth --fault oauth-metadata-missing-fields &\n{auth}\n"
        ),
        "H406" => format!(
            "mcpcheck serve --http 127.0.0.1:8080 --oauth --fault oauth-no-pkce &\n{auth}\n"
        ),
        "H407" => format!(
            "mcpcheck serve --http 127.0.0.1:8080 --oauth --oauth-token-ttl 1 --fault oauth-expired-accepted &\n{auth}\n"
        ),
        "A101" | "A102" | "A103" | "A104" | "A105" | "A106" | "A107" => {
            "mcpcheck audit --server \"mcpcheck serve --fault buggy-tools\"\n".to_string()
        }
        "F101" | "F102" | "F103" | "F104" | "F105" | "F106" | "F107" | "F201" => {
            "mcpcheck fuzz --server \"mcpcheck serve --fault buggy-tools\"\n".to_string()
        }
        "L201" => "mcpcheck lock --server \"mcpcheck serve\" --write mcp-lock.json\n\
mcpcheck lock --server \"mcpcheck serve --fault rug-pull\" --check mcp-lock.json\n"
            .to_string(),
        _ => return None,
    })
}

/// The example of a rule: its smallest firing vector, else a command that
/// shows it on `mcpcheck serve`.
pub(crate) fn example(rule: &RuleInfo) -> Option<String> {
    examples::example(rule.code).or_else(|| try_it(rule).map(|t| format!("try it:\n{t}")))
}

pub fn rule_main(args: &RuleArgs) -> Result<ExitCode> {
    let Some(rule) = registry::lookup(&args.code) else {
        let hint = registry::suggest(&args.code)
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        return Err(Error::Usage(format!(
            "no rule `{}`{hint}; `mcpcheck rules` lists them",
            args.code
        )));
    };
    let example = example(rule);
    out(&match args.format {
        RulesFormat::Text => render::explain(rule, example.as_deref(), paint_for_stdout()),
        RulesFormat::Markdown => render::explain_markdown(rule, example.as_deref()),
        RulesFormat::Json => {
            let mut doc = render::rule_json(rule);
            doc["example"] = serde_json::json!(example);
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            )
        }
    });
    Ok(ExitCode::SUCCESS)
}

pub fn rules_main(args: &RulesArgs) -> Result<ExitCode> {
    let rules: Vec<&RuleInfo> = registry::all()
        .filter(|r| args.family.is_none_or(|f| r.family == f))
        .collect();
    out(&match args.format {
        RulesFormat::Text => render::list_text(&rules, paint_for_stdout()),
        RulesFormat::Json => render::list_json(&rules),
        RulesFormat::Markdown => render::table(&rules),
    });
    Ok(ExitCode::SUCCESS)
}
