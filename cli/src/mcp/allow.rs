//! What `mcpcheck mcp` may start, reach and read.
//!
//! - A **program** may be started when it lies inside a root (the project
//!   directory, or the client's MCP roots when it offers them) — as written
//!   or with its links followed, so a virtualenv's `python` counts — or
//!   when `--allow` names it (by name on `PATH`, or by path) or a directory
//!   holding it. Arguments are not looked at: allowing a program allows it
//!   with any arguments.
//! - A **URL** may be reached when its host is a loopback address
//!   (`localhost`, `127.0.0.0/8`, `::1`) or `--allow` names its origin
//!   (`https://host[:port]`).
//! - A **path** a caller gives (a suite, a fixture, a lockfile, where to
//!   write) must lie inside a root once its links are followed.
//!
//! Relative programs and paths are taken from the project directory, which
//! is the working directory of the server: what is checked is what is
//! started or read.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::client::Endpoint;

/// Why a call may not start, reach, read or write what it names; each
/// message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// An `--allow` or `--root` given at start that names nothing usable.
    #[error("{0}")]
    Setting(String),
    /// The program or path named is not there (or is not a URL).
    #[error("{0}")]
    Missing(String),
    /// It is there, but outside what the policy allows.
    #[error("{0}")]
    NotAllowed(String),
}

/// The allow list and the project directory.
#[derive(Debug)]
pub struct Policy {
    /// The project directory, absolute with its links followed.
    pub root: PathBuf,
    /// Programs `--allow` names, with their links followed.
    programs: Vec<PathBuf>,
    /// Directories `--allow` names: every program inside is allowed.
    dirs: Vec<PathBuf>,
    /// URL origins `--allow` names: scheme, host (lowercase), port.
    origins: Vec<(String, String, u16)>,
}

impl Policy {
    /// The policy of a server working in `root` (already its working
    /// directory), with the `--allow` entries `allow`.
    ///
    /// # Errors
    ///
    /// An entry that names no program, directory or URL origin.
    pub fn new(root: &Path, allow: &[String]) -> Result<Policy, Refusal> {
        let root = std::fs::canonicalize(root)
            .map_err(|e| Refusal::Setting(format!("--root {}: {e}", root.display())))?;
        let mut policy = Policy {
            root,
            programs: Vec::new(),
            dirs: Vec::new(),
            origins: Vec::new(),
        };
        for entry in allow {
            policy.add(entry)?;
        }
        Ok(policy)
    }

    fn add(&mut self, entry: &str) -> Result<(), Refusal> {
        if entry.contains("://") {
            let origin =
                origin_of(entry).map_err(|e| Refusal::Setting(format!("--allow {entry}: {e}")))?;
            self.origins.push(origin);
            return Ok(());
        }
        if entry.is_empty() {
            return Err(Refusal::Setting(
                "--allow needs a program, a directory or a URL's origin".into(),
            ));
        }
        let found = if entry.contains('/') {
            let path = lexical(&self.root, Path::new(entry));
            path.exists().then_some(path)
        } else {
            on_path(entry, std::env::var_os("PATH"), &self.root)
        };
        let Some(found) = found else {
            return Err(Refusal::Setting(format!(
                "--allow {entry}: no such program{}; give a program on PATH, a path to one, a directory or a URL's origin (https://host)",
                if entry.contains('/') {
                    " or directory"
                } else {
                    " on PATH"
                }
            )));
        };
        let canonical = std::fs::canonicalize(&found).unwrap_or(found);
        if canonical.is_dir() {
            self.dirs.push(canonical);
        } else {
            self.programs.push(canonical);
        }
        Ok(())
    }

    /// Whether the server `endpoint` may be started or reached, with the
    /// roots in force; the error says why not and what to do.
    pub fn check_endpoint(&self, endpoint: &Endpoint, roots: &[PathBuf]) -> Result<(), Refusal> {
        match endpoint {
            Endpoint::Stdio { command, env, .. } => {
                let path = env
                    .iter()
                    .rev()
                    .find(|(k, _)| k == "PATH")
                    .map(|(_, v)| OsString::from(v));
                self.check_program(command, path, roots)
            }
            Endpoint::Http { url, .. } | Endpoint::Sse { url, .. } => self.check_url(url),
        }
    }

    /// Whether `program` may be started, found as the operating system
    /// would find it with the `PATH` it is started with (`path`, else the
    /// server's own).
    pub fn check_program(
        &self,
        program: &str,
        path: Option<OsString>,
        roots: &[PathBuf],
    ) -> Result<(), Refusal> {
        let found = if program.contains('/') {
            let p = lexical(&self.root, Path::new(program));
            p.is_file().then_some(p)
        } else {
            on_path(
                program,
                path.or_else(|| std::env::var_os("PATH")),
                &self.root,
            )
        };
        let Some(found) = found else {
            return Err(Refusal::Missing(format!(
                "cannot start `{program}`: no such program{}",
                if program.contains('/') {
                    format!(" (relative paths are taken from {})", self.root.display())
                } else {
                    " on PATH".to_string()
                }
            )));
        };
        let canonical = std::fs::canonicalize(&found).unwrap_or_else(|_| found.clone());
        let within = |dir: &PathBuf| found.starts_with(dir) || canonical.starts_with(dir);
        if roots.iter().any(within)
            || self.dirs.iter().any(within)
            || self.programs.contains(&canonical)
        {
            return Ok(());
        }
        Err(Refusal::NotAllowed(format!(
            "`{program}` ({}) is not allowed: mcpcheck mcp starts only programs inside {} and those given with --allow; start mcpcheck mcp with `--allow {program}` to allow it",
            found.display(),
            shown_roots(roots)
        )))
    }

    /// Whether `url` may be reached.
    pub fn check_url(&self, url: &str) -> Result<(), Refusal> {
        let parsed = reqwest::Url::parse(url)
            .map_err(|e| Refusal::Missing(format!("`{url}` is not a URL: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Refusal::NotAllowed(format!(
                "`{url}`: only http and https URLs can be reached"
            )));
        }
        let host = parsed.host_str().unwrap_or_default();
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host
                .trim_matches(['[', ']'])
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if loopback {
            return Ok(());
        }
        let origin = origin_of(url).map_err(|e| Refusal::Missing(e.to_string()))?;
        if self.origins.contains(&origin) {
            return Ok(());
        }
        let (scheme, host, port) = origin;
        let default = if scheme == "https" { 443 } else { 80 };
        let shown = if port == default {
            format!("{scheme}://{host}")
        } else {
            format!("{scheme}://{host}:{port}")
        };
        Err(Refusal::NotAllowed(format!(
            "`{url}` is not allowed: mcpcheck mcp reaches only loopback URLs and the origins given with --allow; start mcpcheck mcp with `--allow {shown}` to allow it"
        )))
    }
}

/// The roots, for messages.
fn shown_roots(roots: &[PathBuf]) -> String {
    let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    match shown.len() {
        0 => "no root".into(),
        1 => shown[0].clone(),
        _ => format!("the roots {}", shown.join(", ")),
    }
}

/// The origin of a URL: scheme, host (lowercase), port (the scheme's
/// default when none is written).
fn origin_of(url: &str) -> Result<(String, String, u16), OriginError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| OriginError::NotUrl {
        url: url.to_string(),
        detail: e.to_string(),
    })?;
    let scheme = parsed.scheme().to_ascii_lowercase();
    if !matches!(scheme.as_str(), "http" | "https") {
        return Err(OriginError::Scheme(url.to_string()));
    }
    let host = parsed
        .host_str()
        .ok_or_else(|| OriginError::NoHost(url.to_string()))?
        .to_ascii_lowercase();
    let port = parsed
        .port_or_known_default()
        .ok_or_else(|| OriginError::NoPort(url.to_string()))?;
    Ok((scheme, host, port))
}

/// Why a URL has no origin that can be allowed.
#[derive(Debug, thiserror::Error)]
enum OriginError {
    /// `detail` is the URL parser's words.
    #[error("`{url}` is not a URL: {detail}")]
    NotUrl { url: String, detail: String },
    #[error("`{0}`: only http and https origins can be allowed")]
    Scheme(String),
    #[error("`{0}` names no host")]
    NoHost(String),
    #[error("`{0}` names no port")]
    NoPort(String),
}

/// `path` made absolute against `base`, `.` and `..` worked out without
/// following links.
pub fn lexical(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The executable file `name` on `path` (its relative entries taken from
/// `base`), as a shell would find it.
fn on_path(name: &str, path: Option<OsString>, base: &Path) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(&path)
        .find_map(|dir| crate::files::program_in(&lexical(base, &dir), name))
}

/// A path the caller gives, which must exist: absolute against `base`, its
/// links followed, and inside one of `roots`; `what` names it in errors.
pub fn existing(
    path: &str,
    base: &Path,
    roots: &[PathBuf],
    what: &str,
) -> Result<PathBuf, Refusal> {
    let absolute = lexical(base, Path::new(path));
    let canonical = std::fs::canonicalize(&absolute).map_err(|e| {
        Refusal::Missing(format!(
            "{what} `{path}`: {e} (relative paths are taken from {})",
            base.display()
        ))
    })?;
    if roots.iter().any(|r| canonical.starts_with(r)) {
        Ok(canonical)
    } else {
        Err(Refusal::NotAllowed(outside(what, path, &canonical, roots)))
    }
}

/// A path the caller gives to write to, which need not exist yet: the
/// deepest part that exists with its links followed, the rest appended; it
/// must be inside one of `roots`.
pub fn writable(
    path: &str,
    base: &Path,
    roots: &[PathBuf],
    what: &str,
) -> Result<PathBuf, Refusal> {
    let absolute = lexical(base, Path::new(path));
    let mut existing = absolute.clone();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let resolved = loop {
        if let Ok(p) = std::fs::canonicalize(&existing) {
            break rest.iter().rev().fold(p, |p, part| p.join(part));
        }
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_owned());
                existing.pop();
            }
            None => break absolute.clone(),
        }
    };
    if roots.iter().any(|r| resolved.starts_with(r)) {
        Ok(resolved)
    } else {
        Err(Refusal::NotAllowed(outside(what, path, &resolved, roots)))
    }
}

fn outside(what: &str, given: &str, resolved: &Path, roots: &[PathBuf]) -> String {
    format!(
        "{what} `{given}` ({}) is outside {}: mcpcheck mcp reads and writes only there",
        resolved.display(),
        shown_roots(roots)
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcpcheck-allow-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::canonicalize(&dir).unwrap()
    }

    fn executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn programs_inside_the_root_are_allowed_and_others_are_named() {
        let root = scratch("programs");
        executable(&root.join("server"));
        let policy = Policy::new(&root, &[]).unwrap();
        let roots = [policy.root.clone()];
        assert!(policy.check_program("./server", None, &roots).is_ok());
        assert!(
            policy
                .check_program(root.join("server").to_str().unwrap(), None, &roots)
                .is_ok()
        );
        let refused = policy.check_program("sh", None, &roots).unwrap_err();
        assert!(matches!(refused, Refusal::NotAllowed(_)), "{refused:?}");
        let refused = refused.to_string();
        assert!(refused.contains("is not allowed"), "{refused}");
        assert!(refused.contains("--allow sh"), "{refused}");
        let missing = policy.check_program("./nothing", None, &roots).unwrap_err();
        assert!(matches!(missing, Refusal::Missing(_)), "{missing:?}");
        let missing = missing.to_string();
        assert!(missing.contains("no such program"), "{missing}");
        // `..` out of the root is outside it.
        let up = policy.check_program("../server", None, &roots);
        assert!(up.is_err());
    }

    #[test]
    fn allow_names_programs_directories_and_origins() {
        let root = scratch("allow");
        let elsewhere = scratch("allow-elsewhere");
        executable(&elsewhere.join("tool"));
        let policy = Policy::new(
            &root,
            &[
                "sh".into(),
                elsewhere.display().to_string(),
                "https://api.example.com".into(),
            ],
        )
        .unwrap();
        let roots = [policy.root.clone()];
        assert!(policy.check_program("sh", None, &roots).is_ok());
        assert!(
            policy
                .check_program(elsewhere.join("tool").to_str().unwrap(), None, &roots)
                .is_ok()
        );
        assert!(policy.check_url("https://api.example.com/mcp").is_ok());
        assert!(policy.check_url("https://api.example.com:443/x").is_ok());
        assert!(policy.check_url("http://api.example.com/mcp").is_err());
        assert!(
            policy
                .check_url("https://api.example.com:8443/mcp")
                .is_err()
        );
        let refused = policy.check_url("https://evil.example/mcp").unwrap_err();
        assert!(matches!(refused, Refusal::NotAllowed(_)), "{refused:?}");
        let refused = refused.to_string();
        assert!(
            refused.contains("--allow https://evil.example"),
            "{refused}"
        );
        assert!(Policy::new(&root, &["no-such-program-anywhere".into()]).is_err());
        assert!(Policy::new(&root, &["ftp://files.example".into()]).is_err());
    }

    #[test]
    fn loopback_urls_are_allowed_by_default() {
        let policy = Policy::new(&scratch("loopback"), &[]).unwrap();
        for url in [
            "http://127.0.0.1:8080/mcp",
            "http://localhost/mcp",
            "http://[::1]:9/mcp",
            "http://127.1.2.3/",
        ] {
            assert!(policy.check_url(url).is_ok(), "{url}");
        }
        assert!(policy.check_url("http://10.0.0.1/mcp").is_err());
        assert!(policy.check_url("file:///etc/passwd").is_err());
    }

    #[test]
    fn a_server_env_path_is_the_one_searched() {
        let root = scratch("env-path");
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        executable(&bin.join("inside"));
        let policy = Policy::new(&root, &[]).unwrap();
        let roots = [policy.root.clone()];
        let endpoint = Endpoint::Stdio {
            command: "inside".into(),
            args: vec![],
            env: vec![("PATH".into(), bin.display().to_string())],
        };
        assert!(policy.check_endpoint(&endpoint, &roots).is_ok());
        let endpoint = Endpoint::Stdio {
            command: "inside".into(),
            args: vec![],
            env: vec![],
        };
        assert!(policy.check_endpoint(&endpoint, &roots).is_err());
    }

    #[test]
    fn paths_stay_inside_the_roots() {
        let root = scratch("paths");
        std::fs::write(root.join("suite.yaml"), "").unwrap();
        let roots = [root.clone()];
        assert!(existing("suite.yaml", &root, &roots, "suite").is_ok());
        let outside = existing("/etc/hostname", &root, &roots, "suite");
        assert!(
            outside
                .is_err_and(|e| matches!(&e, Refusal::NotAllowed(m) if m.contains("is outside")))
        );
        std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
        assert!(existing("etc/hostname", &root, &roots, "suite").is_err());
        assert_eq!(
            writable("new/dir", &root, &roots, "write_to").unwrap(),
            root.join("new/dir")
        );
        assert!(writable("../x", &root, &roots, "write_to").is_err());
        assert!(writable("etc/x", &root, &roots, "write_to").is_err());
    }
}
