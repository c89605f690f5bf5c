//! `mcpcheck generate`: connect to a server once, list its tools, prompts and
//! resources, and write one starter test per item, in mcp-assert's
//! one-test-per-file format or as one composed file. What the files say is
//! decided by `mcpcheck_core::generate`; this command connects, lists and
//! writes. `mcpcheck init --server` writes through [`generate_into`] too.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use mcpcheck_core::generate::{self, Layout, MAX_RESOURCES, Options, Plan, Server};
use mcpcheck_core::report::plural;

use crate::client::Endpoint;
use crate::client::listing::list_everything;
use crate::error::{Result, verdict};
use crate::output::{duration_text, err, out};
use crate::target::TargetArgs;

/// Write a starter test for every tool, prompt and resource a server lists.
#[derive(Debug, Args)]
#[command(
    after_help = concat!("With --output DIR: one file per tool (`<tool>.yaml`: its required arguments with \
example values, expecting no error), per prompt (`prompt_<name>.yaml`) and per resource \
(`resource_<uri>.yaml`, at most 20), each with a `server:` block that reaches the server the \
same way. With --composed FILE: the same tests in one composed file, the server written once, \
run on one session (share_server). A tool whose annotations say it may write \
(destructiveHint: true, or readOnlyHint: false) gets `skip:` with the reason unless \
--include-writes. Header values other than plain ones (Accept, Content-Type, User-Agent, …) \
are written as ${MCPCHECK_HEADER_<NAME>} placeholders; server arguments that point into \
--fixture DIR as {{fixture}}. An existing file is never overwritten without --force.\n\n\
Exit status: 0 written; 1 the server could not be reached or listed nothing; 2 a usage error, \
or a file exists (without --force) or cannot be written.\n\n",
    crate::help::docs_line!("init")
))]
pub struct GenerateArgs {
    #[command(flatten)]
    target: TargetArgs,

    /// The directory to write one test per file to (created when missing).
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with = "composed",
        required_unless_present = "composed"
    )]
    output: Option<PathBuf>,

    /// Write every test into this one composed file instead (`tests:`, the
    /// server once, `share_server: true`).
    #[arg(long, value_name = "FILE")]
    composed: Option<PathBuf>,

    #[command(flatten)]
    plan: PlanArgs,
}

/// The flags `generate` and `init --server` share.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Write the tests of tools that may write (annotations
    /// `destructiveHint: true`, or `readOnlyHint: false`) without `skip:`.
    #[arg(long)]
    pub include_writes: bool,

    /// A fixture directory: server arguments that point into it are written
    /// as `{{fixture}}` (run the tests with `--fixture DIR`).
    #[arg(long, value_name = "DIR")]
    pub fixture: Option<PathBuf>,

    /// Overwrite files that already exist.
    #[arg(long)]
    pub force: bool,

    /// How long connecting and listing may take; also each test's `timeout:`.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::output::parse_duration)]
    pub timeout: Duration,

    /// The protocol version to ask for at initialize.
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25")]
    pub protocol_version: String,
}

/// Where the tests go.
#[derive(Clone, Copy, Debug)]
pub enum Destination<'a> {
    /// One file per item, in this directory.
    Dir(&'a Path),
    /// One composed file.
    Composed(&'a Path),
}

/// What [`generate_into`] wrote.
pub struct Generated {
    pub plan: Plan,
    /// The paths written, in order.
    pub written: Vec<PathBuf>,
}

/// How [`generate_into`] is called: by which command, and what it writes.
pub struct Call<'a> {
    /// The command's name, for messages (`generate`, `init`).
    pub command: &'a str,
    pub destination: Destination<'a>,
    /// Tool tests expect their recorded snapshot rather than no error.
    pub snapshots: bool,
    /// Files that must not exist either (without --force).
    pub also_refuse: &'a [PathBuf],
}

pub fn main(args: &GenerateArgs) -> Result<ExitCode> {
    let destination = match (&args.output, &args.composed) {
        (Some(dir), None) => Destination::Dir(dir),
        (None, Some(file)) => Destination::Composed(file),
        _ => return Err("give --output DIR or --composed FILE".into()),
    };
    let call = Call {
        command: "generate",
        destination,
        snapshots: false,
        also_refuse: &[],
    };
    let Some(generated) = generate_into(&args.target, &args.plan, &call)? else {
        return Ok(verdict(false));
    };
    let shown = shown(match destination {
        Destination::Dir(d) | Destination::Composed(d) => d,
    });
    let fixture = fixture_flag(&args.plan);
    out(&format!(
        "\n{}.\n\
         Next steps:\n  \
         1. replace the example arguments and add expectations to each test\n  \
         2. mcpcheck validate {shown}\n  \
         3. mcpcheck run --suite {shown}{fixture}\n  \
         4. mcpcheck coverage --suite {shown}{fixture}\n",
        counts(&generated.plan),
    ));
    Ok(ExitCode::SUCCESS)
}

/// ` --fixture DIR` when the tests were written with `{{fixture}}`.
pub fn fixture_flag(flags: &PlanArgs) -> String {
    match &flags.fixture {
        Some(f) => format!(" --fixture {}", shown(f)),
        None => String::new(),
    }
}

/// `21 tests written (15 tools, 3 prompts, 3 resources)`, and the skipped.
pub fn counts(plan: &Plan) -> String {
    let of = |k: generate::Kind| plan.files.iter().filter(|f| f.kind == k).count();
    let mut line = format!(
        "{} written ({}, {}, {})",
        plural(plan.files.len(), "test", "tests"),
        plural(of(generate::Kind::Tool), "tool", "tools"),
        plural(of(generate::Kind::Prompt), "prompt", "prompts"),
        plural(of(generate::Kind::Resource), "resource", "resources"),
    );
    if !plan.skipped.is_empty() {
        line.push_str(&format!("; {} skipped", plan.skipped.len()));
    }
    line
}

/// Connect, list, plan and write, printing what was written and what the
/// user must know. `Ok(None)` when the server could not be listed or listed
/// nothing (said on stderr): the command's verdict is then 1.
pub fn generate_into(
    target: &TargetArgs,
    flags: &PlanArgs,
    call: &Call<'_>,
) -> Result<Option<Generated>> {
    let endpoint = target.endpoint()?;
    let server = crate::probe::server_of(&endpoint)?;
    check_destination(call.destination)?;
    let options = options(flags, &server, call)?;
    // With --fixture, the server is listed on a copy, pointed at it as
    // `run --fixture` points its servers: what it writes while it is
    // listed never reaches the original.
    let (listed_at, copy) = match &flags.fixture {
        Some(dir) => {
            let copy = crate::run::fixture::copy(dir)?;
            let mut bare = target.bare_endpoint()?;
            if let Endpoint::Stdio { command, args, env } = &mut bare {
                crate::run::fixture::point_at_copy(command, args, env, dir, &copy.path)?;
            }
            (target.contain(bare, Some(&copy.path)), Some(copy))
        }
        None => (endpoint.clone(), None),
    };
    let runtime = crate::error::runtime()?;
    let listed = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let listed = list_everything(&listed_at, &flags.protocol_version, flags.timeout).await;
        crate::client::stdio::reap_all().await;
        listed
    });
    drop(copy);
    let listings = match listed {
        Ok(l) => {
            l.print_notes(call.command, &endpoint.label());
            l
        }
        Err(e) => {
            err(&format!(
                "mcpcheck {}: {}: cannot list what it offers: {e}\n",
                call.command,
                endpoint.label()
            ));
            return Ok(None);
        }
    };
    let plan = generate::plan_with(
        &server,
        &listings.tools,
        &listings.prompts,
        &listings.resources,
        &duration_text(flags.timeout),
        &options,
    );
    if plan.files.is_empty() {
        err(&format!(
            "mcpcheck {}: {} lists no tools, prompts or resources: nothing to write\n",
            call.command,
            endpoint.label()
        ));
        return Ok(None);
    }
    let written = write_plan(flags.force, call, &plan, &mut |path| {
        out(&format!("wrote {}\n", path.display()));
    })?;
    tell(flags, call.command, &plan);
    Ok(Some(Generated { plan, written }))
}

/// `--output` must be a directory when it exists; `--composed` must not be
/// one.
pub(crate) fn check_destination(destination: Destination<'_>) -> Result<()> {
    match destination {
        Destination::Dir(dir) if dir.exists() && !dir.is_dir() => {
            Err(format!("{} exists and is not a directory", dir.display()).into())
        }
        Destination::Composed(file) if file.is_dir() => {
            Err(format!("--composed {} is a directory: name a file", file.display()).into())
        }
        _ => Ok(()),
    }
}

/// The core's options: the fixture resolved (it must be a directory), and
/// each stdio argument that names a path resolved the same way.
pub(crate) fn options(flags: &PlanArgs, server: &Server, call: &Call<'_>) -> Result<Options> {
    let mut options = Options {
        include_writes: flags.include_writes,
        snapshots: call.snapshots,
        layout: match call.destination {
            Destination::Dir(_) => Layout::Files,
            Destination::Composed(_) => Layout::Composed,
        },
        ..Options::default()
    };
    let Some(fixture) = &flags.fixture else {
        return Ok(options);
    };
    let dir = std::fs::canonicalize(fixture)
        .ok()
        .filter(|d| d.is_dir())
        .ok_or_else(|| format!("--fixture {}: not a directory", fixture.display()))?;
    options.fixture = Some(dir.to_string_lossy().into_owned());
    if let Server::Stdio { args, .. } = server {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        options.resolved_args = args
            .iter()
            .map(|a| crate::run::fixture::resolve_arg(a, &cwd))
            .collect();
    }
    Ok(options)
}

/// Write the plan's files (or its composed file); nothing at all when one
/// of them (or of `call.also_refuse`) exists, unless `force`. Each path is
/// told to `wrote` once written; all of them are returned, in order.
pub(crate) fn write_plan(
    force: bool,
    call: &Call<'_>,
    plan: &Plan,
    wrote: &mut dyn FnMut(&Path),
) -> Result<Vec<PathBuf>> {
    let files: Vec<(PathBuf, &str)> = match call.destination {
        Destination::Dir(dir) => plan
            .files
            .iter()
            .map(|f| (dir.join(&f.name), f.text.as_str()))
            .collect(),
        Destination::Composed(file) => plan
            .composed
            .iter()
            .map(|text| (file.to_path_buf(), text.as_str()))
            .collect(),
    };
    if !force {
        let paths = files.iter().map(|(p, _)| p).chain(call.also_refuse);
        refuse_existing(paths, call.destination)?;
    }
    let dir = match call.destination {
        Destination::Dir(dir) => Some(dir),
        Destination::Composed(file) => file.parent().filter(|p| !p.as_os_str().is_empty()),
    };
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut written = Vec::new();
    for (path, text) in files {
        write_file(&path, text, force)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        wrote(&path);
        written.push(path);
    }
    Ok(written)
}

/// An error naming every path that exists, if any does.
pub fn refuse_existing<'a>(
    paths: impl Iterator<Item = &'a PathBuf>,
    destination: Destination<'_>,
) -> Result<()> {
    let existing: Vec<&PathBuf> = paths.filter(|p| p.symlink_metadata().is_ok()).collect();
    if existing.is_empty() {
        return Ok(());
    }
    let mut message = String::new();
    for p in existing {
        message.push_str(&format!("{} already exists\n", p.display()));
    }
    message.push_str(match destination {
        Destination::Dir(_) => {
            "nothing was written; pass --force to overwrite, or choose another directory"
        }
        Destination::Composed(_) => {
            "nothing was written; pass --force to overwrite, or choose another --composed FILE"
        }
    });
    Err(message.into())
}

/// What the user must know about what was written: tests skipped,
/// placeholders to set, arguments written with `{{fixture}}`, items left
/// out.
fn tell(flags: &PlanArgs, command: &str, plan: &Plan) {
    if !plan.skipped.is_empty() {
        let mut text = format!(
            "{} with `skip:` (remove `skip:` to call them; --include-writes calls the tools that may write):\n",
            plural(plan.skipped.len(), "test is written", "tests are written"),
        );
        for s in &plan.skipped {
            text.push_str(&format!("  {}: {}\n", s.tool, s.reason));
        }
        out(&text);
    }
    if let Some(fixture) = &flags.fixture {
        if plan.fixture_args == 0 {
            err(&format!(
                "mcpcheck {command}: no server argument points into --fixture {}: nothing is written as {{{{fixture}}}}\n",
                fixture.display()
            ));
        } else {
            out(&format!(
                "{} written as {{{{fixture}}}}: run the tests with --fixture {}\n",
                plural(plan.fixture_args, "server argument", "server arguments"),
                shown(fixture)
            ));
        }
    }
    for p in &plan.placeholders {
        err(&format!(
            "mcpcheck {command}: header {} is written as ${{{}}}, not its value: set {} before running the tests\n",
            p.header, p.variable, p.variable
        ));
    }
    if plan.resources_left_out > 0 {
        err(&format!(
            "mcpcheck {command}: {} more resources listed; only the first {MAX_RESOURCES} got a test\n",
            plan.resources_left_out
        ));
    }
    if plan.unnamed > 0 {
        err(&format!(
            "mcpcheck {command}: {} listed items have no name or URI and got no test\n",
            plan.unnamed
        ));
    }
}

/// Write a file; without `force`, only if it does not exist yet (checked
/// again at the moment of creation).
pub fn write_file(path: &Path, text: &str, force: bool) -> std::io::Result<()> {
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
pub fn shown(path: &Path) -> String {
    let s = path.display().to_string();
    shlex::try_quote(&s).map_or(s.clone(), |q| q.into_owned())
}
