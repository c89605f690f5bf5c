//! Finding and applying `mcpcheck.toml` (parsed by `mcpcheck_core::config`).
//!
//! The file is `--config-file FILE`, else the first `mcpcheck.toml` found
//! walking up from the working directory (for `mcpcheck mcp --root DIR`,
//! from DIR, the directory it works in); `--no-config` uses none. Before
//! the command line is parsed, the defaults of the command's table are put in
//! front of the user's arguments as the flags they name, unless the user gave
//! that flag: the command line wins, and a default goes through the same
//! checks as a typed flag. A table or key that names no command or flag is an
//! error at its line. The selection and the suppressions are kept for the
//! analyses ([`loaded`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::CommandFactory;
use mcpcheck_core::config::{self, Config, DefaultValue};
use mcpcheck_core::diag::{self, Diagnostic};

use crate::error::Error;
use crate::output::paint_for_stderr;

/// The configuration in use and where it came from.
#[derive(Debug)]
pub struct Loaded {
    /// The file.
    pub path: PathBuf,
    /// What it says.
    pub config: Config,
}

static LOADED: OnceLock<Option<Loaded>> = OnceLock::new();

/// The configuration in use, if any.
pub fn loaded() -> Option<&'static Loaded> {
    LOADED.get().and_then(Option::as_ref)
}

/// `mcpcheck.toml` in `dir` or the closest folder above it.
pub fn find(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(config::FILE_NAME))
        .find(|p| p.is_file())
}

/// The value of `--NAME VALUE` or `--NAME=VALUE` in `argv`, and whether
/// `--no-config` is there.
fn config_flags(argv: &[OsString]) -> (Option<PathBuf>, bool) {
    let mut file = None;
    let mut none = false;
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        let Some(s) = a.to_str() else { continue };
        if s == "--" {
            break;
        }
        if s == "--no-config" {
            none = true;
        } else if s == "--config-file" {
            file = it.next().map(PathBuf::from);
        } else if let Some(v) = s.strip_prefix("--config-file=") {
            file = Some(PathBuf::from(v));
        }
    }
    (file, none)
}

/// The subcommand's name and position in `argv` (the first word that is not
/// a flag or a global flag's value).
fn subcommand(argv: &[OsString]) -> Option<(usize, String)> {
    let mut i = 1;
    while i < argv.len() {
        let s = argv[i].to_str()?;
        if s == "--config-file" {
            i += 2;
            continue;
        }
        if s.starts_with('-') {
            i += 1;
            continue;
        }
        return Some((i, s.to_string()));
    }
    None
}

/// The `--root DIR` of `mcpcheck mcp`, which works in DIR, so its
/// configuration is looked for there.
fn project_root(argv: &[OsString]) -> Option<PathBuf> {
    let (at, command) = subcommand(argv)?;
    if command != "mcp" {
        return None;
    }
    let mut it = argv.iter().skip(at + 1);
    while let Some(a) = it.next() {
        let s = a.to_str()?;
        if s == "--" {
            break;
        }
        if s == "--root" {
            return it.next().map(PathBuf::from);
        }
        if let Some(v) = s.strip_prefix("--root=") {
            return Some(PathBuf::from(v));
        }
    }
    None
}

fn render(diagnostics: &[Diagnostic], path: &Path, text: &str) -> Error {
    let name = path.display().to_string();
    let lookup = |file: &str| (file == name).then_some(text);
    Error::Diagnostics(diag::render(diagnostics, &lookup, paint_for_stderr()))
}

/// Reads the configuration that applies, keeps it for [`loaded`], and
/// returns `argv` with the command's defaults put in.
///
/// # Errors
///
/// The file's diagnostics, rendered: TOML that does not parse, keys that
/// name nothing, a suppression without a reason, a default of a flag the
/// command does not have.
pub fn prepare(argv: Vec<OsString>) -> Result<Vec<OsString>, Error> {
    let (explicit, none) = config_flags(&argv);
    let path = match (explicit, none) {
        (_, true) => None,
        (Some(p), false) => {
            if !p.is_file() {
                return Err(Error::Usage(format!(
                    "--config-file {}: no such file",
                    p.display()
                )));
            }
            Some(p)
        }
        (None, false) => std::env::current_dir()
            .ok()
            .map(|cwd| match project_root(&argv) {
                Some(root) => cwd.join(root),
                None => cwd,
            })
            .and_then(|d| find(&d)),
    };
    let Some(path) = path else {
        let _ = LOADED.set(None);
        return Ok(argv);
    };
    let text = crate::files::read_text(&path)?;
    let shown = path.display().to_string();
    let parsed = config::parse(&shown, &text).map_err(|d| render(&d, &path, &text))?;
    let argv = apply_defaults(argv, &parsed, &shown).map_err(|d| render(&d, &path, &text))?;
    let _ = LOADED.set(Some(Loaded {
        path,
        config: parsed,
    }));
    Ok(argv)
}

/// `argv` with the defaults of its command's table put in after the command
/// word; every table and key checked against the command line's definition.
fn apply_defaults(
    mut argv: Vec<OsString>,
    parsed: &Config,
    file: &str,
) -> Result<Vec<OsString>, Vec<Diagnostic>> {
    let cli = crate::Cli::command();
    let mut problems = Vec::new();
    let commands: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for (name, table) in &parsed.commands {
        let Some(command) = cli.find_subcommand(name) else {
            let mut d = Diagnostic::error(
                file,
                diag::Span::new(table.line, 1, table.line, 1),
                format!("[{name}] names no command"),
            );
            d.hint = diag::did_you_mean(name, commands.iter().map(String::as_str));
            problems.push(d);
            continue;
        };
        for default in &table.values {
            let arg = command
                .get_arguments()
                .find(|a| a.get_long() == Some(default.key.as_str()));
            let Some(arg) = arg else {
                let longs: Vec<&str> = command
                    .get_arguments()
                    .filter_map(|a| a.get_long())
                    .collect();
                let mut d = Diagnostic::error(
                    file,
                    default.span,
                    format!("`mcpcheck {name}` has no flag --{}", default.key),
                );
                d.hint = diag::did_you_mean(&default.key, longs);
                problems.push(d);
                continue;
            };
            let takes_value = arg.get_action().takes_values();
            if takes_value == matches!(default.value, DefaultValue::Switch(_)) {
                let what = if takes_value {
                    format!(
                        "--{} takes a value: give it as a string or a number",
                        default.key
                    )
                } else {
                    format!("--{} is a switch: write true or false", default.key)
                };
                problems.push(Diagnostic::error(file, default.span, what));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some((at, name)) = subcommand(&argv) else {
        return Ok(argv);
    };
    let Some(table) = parsed.commands.get(&name) else {
        return Ok(argv);
    };
    let Some(command) = cli.find_subcommand(&name) else {
        return Ok(argv);
    };
    let given = |long: &str, short: Option<char>| {
        argv[at + 1..].iter().filter_map(|a| a.to_str()).any(|a| {
            a == format!("--{long}")
                || a.starts_with(&format!("--{long}="))
                || short.is_some_and(|c| a == format!("-{c}"))
        })
    };
    let mut inserted: Vec<OsString> = Vec::new();
    for default in &table.values {
        let short = command
            .get_arguments()
            .find(|a| a.get_long() == Some(default.key.as_str()))
            .and_then(clap::Arg::get_short);
        if given(&default.key, short) {
            continue;
        }
        let flag = format!("--{}", default.key);
        match &default.value {
            DefaultValue::Switch(true) => inserted.push(flag.into()),
            DefaultValue::Switch(false) => {}
            DefaultValue::One(v) => inserted.push(format!("{flag}={v}").into()),
            DefaultValue::Many(values) => {
                for v in values {
                    inserted.push(format!("{flag}={v}").into());
                }
            }
        }
    }
    let tail = argv.split_off(at + 1);
    argv.extend(inserted);
    argv.extend(tail);
    Ok(argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn mcp_looks_for_its_configuration_in_its_root() {
        assert_eq!(
            project_root(&os(&["mcpcheck", "mcp", "--root", "/p", "--allow", "x"])),
            Some(PathBuf::from("/p"))
        );
        assert_eq!(
            project_root(&os(&["mcpcheck", "--no-config", "mcp", "--root=/p"])),
            Some(PathBuf::from("/p"))
        );
        assert_eq!(project_root(&os(&["mcpcheck", "mcp"])), None);
        assert_eq!(
            project_root(&os(&["mcpcheck", "doctor", "--root", "/p"])),
            None
        );
    }

    #[test]
    fn defaults_go_in_after_the_command_unless_given() {
        let parsed = config::parse(
            "mcpcheck.toml",
            "[scan]\nfail-on = \"medium\"\nskip-rules = [\"S501\", \"S504\"]\n",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        let argv = apply_defaults(
            os(&["mcpcheck", "scan", "--listing", "x.json"]),
            &parsed,
            "f",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(
            argv,
            os(&[
                "mcpcheck",
                "scan",
                "--fail-on=medium",
                "--skip-rules=S501",
                "--skip-rules=S504",
                "--listing",
                "x.json"
            ])
        );
        let argv = apply_defaults(
            os(&[
                "mcpcheck",
                "scan",
                "--fail-on",
                "low",
                "--listing",
                "x.json",
            ]),
            &parsed,
            "f",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        assert!(!argv.iter().any(|a| a == "--fail-on=medium"));
    }

    #[test]
    fn unknown_commands_and_flags_are_errors_at_their_line() {
        let parsed = config::parse(
            "f",
            "[scna]\nx = 1\n\n[lint]\nstrictt = true\nformat = true\n",
        )
        .unwrap_or_else(|d| panic!("{d:?}"));
        let errors = apply_defaults(os(&["mcpcheck", "lint"]), &parsed, "f")
            .err()
            .unwrap_or_default();
        let lines: Vec<String> = errors.iter().map(Diagnostic::one_line).collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines.iter().any(|l| l.starts_with(
                "f:5:1: error: `mcpcheck lint` has no flag --strictt (did you mean `strict`?)"
            )),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("f:6:1: error: --format takes a value")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l
                    .starts_with("f:1:1: error: [scna] names no command (did you mean `scan`?)")),
            "{lines:?}"
        );
    }
}
