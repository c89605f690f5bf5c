//! `mcpcheck init [DIR]`: start a suite. Without a server, a small working
//! starter against `mcpcheck serve` (the text is
//! `mcpcheck_core::generate::starter`); with `--server`/`--url`, the tests
//! `generate` writes, then one run with `--update-snapshots` that records
//! each tool's answer as what later runs expect.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser};
use mcpcheck_core::generate::{self, STARTER_FIXTURE, STARTER_SUITE};
use mcpcheck_core::snapshot;

use crate::commands::generate::{
    Call, Destination, PlanArgs, counts, fixture_flag, generate_into, refuse_existing, shown,
    write_file,
};
use crate::commands::run::RunArgs;
use crate::error::{Result, verdict};
use crate::output::{duration_text, err, out};
use crate::target::TargetArgs;

/// Start a suite: a working starter, or tests of a server with its answers
/// recorded.
#[derive(Debug, Args)]
#[command(
    mut_arg("server", |a| a.required_unless_present(clap::builder::Resettable::Reset)),
    // Without a server the starter suite is written: nothing connects.
    group(clap::ArgGroup::new("target").multiple(false).args(["server", "url"])),
    mut_arg("timeout", |a| a.requires("target")),
    mut_arg("protocol_version", |a| a.requires("target")),
    after_help = concat!("Without a server: DIR/mcpcheck.yaml (a composed suite of five tests against \
`mcpcheck serve`), DIR/fixture/hello.txt (a file one test reads through {{fixture}}) and \
DIR/README.md; run it with `mcpcheck run --suite DIR/mcpcheck.yaml --fixture DIR/fixture`.\n\n\
With --server CMD or --url URL: what `mcpcheck generate --output DIR` writes (tools that may \
write get `skip:` unless --include-writes), each tool test expecting the answer recorded by one \
run with --update-snapshots in DIR/.snapshots.json; later, `mcpcheck run --suite DIR \
--snapshots` fails a test whose answer changed.\n\n\
DIR (default: the current directory) is created when missing; an existing file is never \
overwritten without --force.\n\n\
A tool test whose answer is a tool error (isError: true, or text that reads as an error) fails \
the recording run and is named: the answer is recorded, but it shows the arguments are wrong, \
not what the tool does. Paths into the fixture copy are recorded as <temp-copy>, so a later run \
with a fresh copy matches them.\n\n\
Exit status: 0 written and recorded; 1 the server could not be reached, listed nothing, or the \
recording run failed (a tool error among the answers fails it); 2 a usage error, or a file \
exists (without --force) or cannot be written.\n\n",
    crate::help::docs_line!("init")
))]
pub struct InitArgs {
    /// The directory to write to (created when missing).
    #[arg(value_name = "DIR", default_value = ".")]
    dir: PathBuf,

    #[command(flatten)]
    target: TargetArgs,

    #[command(flatten)]
    plan: PlanArgs,
}

pub fn main(args: &InitArgs) -> Result<ExitCode> {
    if args.dir.exists() && !args.dir.is_dir() {
        return Err(format!("{} exists and is not a directory", args.dir.display()).into());
    }
    if args.target.server.is_some() || args.target.url.is_some() {
        return from_server(args);
    }
    if args.plan.include_writes || args.plan.fixture.is_some() {
        return Err("--include-writes and --fixture go with --server CMD or --url URL".into());
    }
    starter(&args.dir, args.plan.force)
}

/// The starter suite, its fixture and README, against `mcpcheck serve`.
fn starter(dir: &Path, force: bool) -> Result<ExitCode> {
    let (command, on_path) = mcpcheck_command()?;
    let files = generate::starter(&command);
    let paths: Vec<PathBuf> = files.iter().map(|f| dir.join(f.path)).collect();
    if !force {
        refuse_existing(paths.iter(), Destination::Dir(dir))?;
    }
    for (f, path) in files.iter().zip(&paths) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        write_file(path, &f.text, force)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        out(&format!("wrote {}\n", path.display()));
    }
    if !on_path {
        out(&format!(
            "mcpcheck is not on PATH: the suite starts the server as {command} serve\n"
        ));
    }
    let program = if on_path {
        "mcpcheck".to_string()
    } else {
        shown(Path::new(&command))
    };
    out(&format!(
        "\nA starter suite of five tests against `mcpcheck serve`. Run it:\n  \
         {program} run --suite {} --fixture {}\n\
         then read {} for what to change next.\n",
        shown(&dir.join(STARTER_SUITE)),
        shown(&dir.join(STARTER_FIXTURE)),
        shown(&dir.join("README.md")),
    ));
    Ok(ExitCode::SUCCESS)
}

/// How the starter suite starts `mcpcheck serve`: `mcpcheck` when it is on
/// PATH, else the absolute path of this executable.
fn mcpcheck_command() -> Result<(String, bool)> {
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|d| crate::files::program_in(&d, "mcpcheck").is_some())
    });
    if on_path {
        return Ok(("mcpcheck".to_string(), true));
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("mcpcheck is not on PATH and its own path is unknown: {e}"))?;
    Ok((exe.to_string_lossy().into_owned(), false))
}

/// The run that records the answers: `mcpcheck run` with its own flags.
#[derive(Debug, Parser)]
struct Recording {
    #[command(flatten)]
    run: RunArgs,
}

/// `generate` into DIR (tool tests expecting their snapshot), then one run
/// with `--update-snapshots`.
fn from_server(args: &InitArgs) -> Result<ExitCode> {
    let dir = &args.dir;
    let snapshots = [dir.join(snapshot::FILE_NAME)];
    let call = Call {
        command: "init",
        destination: Destination::Dir(dir),
        snapshots: true,
        also_refuse: &snapshots,
    };
    let Some(generated) = generate_into(&args.target, &args.plan, &call)? else {
        return Ok(verdict(false));
    };
    out(&format!("{}.\n", counts(&generated.plan)));
    let shown_dir = shown(dir);
    let fixture = fixture_flag(&args.plan);
    let again = format!("mcpcheck run --suite {shown_dir}{fixture} --update-snapshots");
    let unset: Vec<&str> = generated
        .plan
        .placeholders
        .iter()
        .map(|p| p.variable.as_str())
        .filter(|v| std::env::var_os(v).is_none_or(|x| x.is_empty()))
        .collect();
    if !unset.is_empty() {
        err(&format!(
            "mcpcheck init: the answers are not recorded: the tests send {} from the environment; set {}, then record them with `{again}`\n",
            unset.join(", "),
            if unset.len() == 1 { "it" } else { "them" },
        ));
        return Ok(verdict(false));
    }

    out(&format!("\nRecording the answers ({again}):\n"));
    // Only the files written: DIR may hold other suites.
    let mut argv: Vec<String> = vec!["run".into(), "--suite".into()];
    argv.extend(
        generated
            .written
            .iter()
            .map(|p| p.to_string_lossy().into_owned()),
    );
    argv.extend([
        "--update-snapshots".into(),
        "--timeout".into(),
        duration_text(args.plan.timeout),
        "--protocol-version".into(),
        args.plan.protocol_version.clone(),
    ]);
    if let Some(f) = &args.plan.fixture {
        argv.push("--fixture".into());
        argv.push(f.to_string_lossy().into_owned());
    }
    let mut recording =
        Recording::try_parse_from(&argv).map_err(|e| format!("cannot record: {e}"))?;
    // A starter test's answer that is an error shows its arguments are
    // wrong, not what the tool does: it is not called a pass.
    recording.run.fail_tool_errors = true;
    let outcome = crate::error::runtime()?.block_on(crate::run::run(&recording.run, false));
    let passed = match outcome {
        Ok(code) => code == ExitCode::SUCCESS,
        Err(e) => {
            err(&e.report("init"));
            return Ok(verdict(false));
        }
    };
    if !passed {
        err(&format!(
            "mcpcheck init: the recording run did not pass (the tests marked FAIL or ERROR above): a starter test fails when its answer is an error (a tool error, a prompt or resource refused), which most often means its example arguments are wrong; a tool's answer is recorded all the same, so `--snapshots` compares with it. Give the failing tests arguments the server accepts, then record again with `{again}`\n"
        ));
    }
    out(&format!(
        "\nNext steps:\n  \
         1. mcpcheck run --suite {shown_dir}{fixture} --snapshots   (fails a tool test whose answer changed)\n  \
         2. replace the example arguments and add expectations to each test, then record again with\n     \
         {again}\n  \
         3. mcpcheck coverage --suite {shown_dir}{fixture}\n"
    ));
    Ok(verdict(passed))
}
