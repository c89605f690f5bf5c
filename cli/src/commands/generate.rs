//! `mcpcheck generate`: connect to a server once, list its tools, prompts and
//! resources, and write one starter test per item in mcp-assert's
//! one-test-per-file format. What the files say is decided by
//! `mcpcheck_core::generate`; this command connects, lists and writes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::generate::{self, MAX_RESOURCES, Server};
use mcpcheck_core::report::plural;

use crate::client::Endpoint;
use crate::client::listing::list_everything;
use crate::error::{Result, verdict};
use crate::output::{duration_text, err, out};
use crate::target::TargetArgs;

/// Write a starter test for every tool, prompt and resource a server lists.
#[derive(Debug, Args)]
#[command(
    after_help = "One file per tool (`<tool>.yaml`: its required arguments with example values, \
expecting no error), per prompt (`prompt_<name>.yaml`) and per resource (`resource_<uri>.yaml`, \
at most 20), each with a `server:` block that reaches the server the same way. Header values \
other than plain ones (Accept, Content-Type, User-Agent, …) are written as \
${MCPCHECK_HEADER_<NAME>} placeholders. An existing file is never overwritten without \
--force.\n\nExit status: 0 written; 1 the server could not be reached or listed nothing; 2 a \
usage error, or a file exists (without --force) or cannot be written."
)]
pub struct GenerateArgs {
    #[command(flatten)]
    target: TargetArgs,

    /// The directory to write the tests to (created when missing).
    #[arg(long, value_name = "DIR")]
    output: PathBuf,

    /// Overwrite files that already exist.
    #[arg(long)]
    force: bool,

    /// How long connecting and listing may take; also each test's `timeout:`.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    timeout: Duration,

    /// The protocol version to ask for at initialize.
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25")]
    protocol_version: String,
}

pub fn main(args: &GenerateArgs) -> Result<ExitCode> {
    let endpoint = args.target.endpoint()?;
    let server = server_of(&endpoint)?;
    if args.output.exists() && !args.output.is_dir() {
        return Err(format!(
            "--output {} exists and is not a directory",
            args.output.display()
        )
        .into());
    }
    let runtime = crate::error::runtime()?;
    let listed = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let listed = list_everything(&endpoint, &args.protocol_version, args.timeout).await;
        crate::client::stdio::reap_all().await;
        listed
    });
    let listings = match listed {
        Ok(l) => l,
        Err(e) => {
            err(&format!(
                "mcpcheck generate: {}: cannot list what it offers: {e}\n",
                endpoint.label()
            ));
            return Ok(verdict(false));
        }
    };
    let plan = generate::plan(
        &server,
        &listings.tools,
        &listings.prompts,
        &listings.resources,
        &duration_text(args.timeout),
    );
    if plan.files.is_empty() {
        err(&format!(
            "mcpcheck generate: {} lists no tools, prompts or resources: nothing to write\n",
            endpoint.label()
        ));
        return Ok(verdict(false));
    }
    write_plan(args, &plan)
}

/// The core's view of the endpoint; a header given twice cannot be one
/// mapping key, so it is refused.
fn server_of(endpoint: &Endpoint) -> Result<Server, String> {
    let remote = |transport: &str, url: &str, headers: &[(String, String)]| {
        let mut seen: Vec<String> = Vec::new();
        for (name, _) in headers {
            let lower = name.to_ascii_lowercase();
            if seen.contains(&lower) {
                return Err(format!("--header {name} is given twice; give it once"));
            }
            seen.push(lower);
        }
        Ok(Server::Remote {
            transport: transport.to_string(),
            url: url.to_string(),
            headers: headers.to_vec(),
        })
    };
    match endpoint {
        Endpoint::Stdio { command, args, .. } => Ok(Server::Stdio {
            command: command.clone(),
            args: args.clone(),
        }),
        Endpoint::Http { url, headers } => remote("http", url, headers),
        Endpoint::Sse { url, headers } => remote("sse", url, headers),
    }
}

fn write_plan(args: &GenerateArgs, plan: &generate::Plan) -> Result<ExitCode> {
    let dir = &args.output;
    if !args.force {
        let existing: Vec<PathBuf> = plan
            .files
            .iter()
            .map(|f| dir.join(&f.name))
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        if !existing.is_empty() {
            let mut message = String::new();
            for p in &existing {
                message.push_str(&format!("{} already exists\n", p.display()));
            }
            message.push_str(
                "nothing was written; pass --force to overwrite, or choose another --output",
            );
            return Err(message.into());
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (mut tools, mut prompts, mut resources) = (0, 0, 0);
    for f in &plan.files {
        let path = dir.join(&f.name);
        write_file(&path, &f.text, args.force)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        out(&format!("wrote {}\n", path.display()));
        match f.kind {
            generate::Kind::Tool => tools += 1,
            generate::Kind::Prompt => prompts += 1,
            generate::Kind::Resource => resources += 1,
        }
    }
    for p in &plan.placeholders {
        err(&format!(
            "mcpcheck generate: header {} is written as ${{{}}}, not its value: set {} before running the tests\n",
            p.header, p.variable, p.variable
        ));
    }
    if plan.resources_left_out > 0 {
        err(&format!(
            "mcpcheck generate: {} more resources listed; only the first {MAX_RESOURCES} got a test\n",
            plan.resources_left_out
        ));
    }
    if plan.unnamed > 0 {
        err(&format!(
            "mcpcheck generate: {} listed items have no name or URI and got no test\n",
            plan.unnamed
        ));
    }
    let shown = shown(dir);
    out(&format!(
        "\n{} written ({}, {}, {}).\n\
         Next steps:\n  \
         1. replace the example arguments and add expectations to each test\n  \
         2. mcpcheck validate {shown}\n  \
         3. mcpcheck run --suite {shown}\n  \
         4. mcpcheck coverage --suite {shown}\n",
        plural(plan.files.len(), "test", "tests"),
        plural(tools, "tool", "tools"),
        plural(prompts, "prompt", "prompts"),
        plural(resources, "resource", "resources"),
    ));
    Ok(ExitCode::SUCCESS)
}

/// Write a file; without `force`, only if it does not exist yet (checked
/// again at the moment of creation).
fn write_file(path: &Path, text: &str, force: bool) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut f = options.open(path)?;
    f.write_all(text.as_bytes())
}

/// A path as a shell would need it written.
fn shown(dir: &Path) -> String {
    let s = dir.display().to_string();
    shlex::try_quote(&s).map_or(s.clone(), |q| q.into_owned())
}
