//! Per-test fixture copies: each test gets a fresh copy of the fixture
//! directory in a temporary directory (the tests of a `share_server` file
//! share one), so servers may change files freely and the originals are never
//! touched. The copy keeps the fixture's base name (a fixture `test-data` is
//! copied to `/tmp/mcpcheck-fixture-k3Rb9Q/test-data`), so relative layouts
//! still hold.
//! Symbolic links never let a server reach the original: a link whose
//! target lies inside the fixture points at the same place in the copy; a
//! link that leads out of the fixture (or through `..` above it) is refused
//! before the test runs, naming the link, since a server writing through it
//! would change files outside the copy. Named pipes, sockets and devices are
//! refused too (copying a pipe would wait for ever).

use std::path::{Component, Path, PathBuf};

/// Why a fixture could not be copied, restored or pointed at; each names
/// the fixture or the copy.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("cannot create a temporary directory for the fixture: {0}")]
    TempDir(#[source] std::io::Error),
    #[error("cannot read the fixture {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot copy the fixture {}: {source}", .path.display())]
    Copy {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the fixture copy {}: {source}", .path.display())]
    ReadCopy {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot restore the fixture copy {}: {source}", .path.display())]
    Restore {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the current directory: {0}")]
    CurrentDir(#[source] std::io::Error),
    /// `what` (the server command, an argument, a variable) names the
    /// fixture inside a longer value.
    #[error(
        "{what} names the fixture {} inside a longer value, where mcpcheck cannot point it at the copy; give the path as an argument of its own (or as --flag=PATH), or write {{{{fixture}}}}. The server was not started, so the fixture stays untouched",
        .fixture.display()
    )]
    Inside { what: String, fixture: PathBuf },
}

/// A fixture copy, removed when dropped.
pub struct FixtureCopy {
    dir: tempfile::TempDir,
    pub path: PathBuf,
    /// The fixture itself (canonical), and the copy's state as made, so
    /// [`FixtureCopy::restore`] can put back what a server changed.
    original: PathBuf,
    manifest: super::restore::Manifest,
}

impl FixtureCopy {
    /// Put the copy back as it was made, in place (its path stays the
    /// same), copying again only what changed; see [`super::restore`].
    pub fn restore(&mut self) -> Result<super::restore::Restored, FixtureError> {
        self.manifest.restore(&self.original, &self.path)
    }
}

/// The temporary directories of the fixture copies alive now, so an
/// interrupted run can remove them (a signal ends the process without
/// running destructors).
fn live_copies() -> &'static std::sync::Mutex<std::collections::HashSet<PathBuf>> {
    static LIVE: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<PathBuf>>> =
        std::sync::OnceLock::new();
    LIVE.get_or_init(Default::default)
}

impl Drop for FixtureCopy {
    fn drop(&mut self) {
        if let Ok(mut live) = live_copies().lock() {
            live.remove(self.dir.path());
        }
    }
}

/// Remove every fixture copy still alive (on an interrupt).
pub fn remove_live_copies() {
    let dirs: Vec<PathBuf> = live_copies()
        .lock()
        .map(|mut l| l.drain().collect())
        .unwrap_or_default();
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Copy `src` into a new temporary directory.
pub fn copy(src: &Path) -> Result<FixtureCopy, FixtureError> {
    let dir = tempfile::Builder::new()
        .prefix("mcpcheck-fixture-")
        .tempdir()
        .map_err(FixtureError::TempDir)?;
    let name = src
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "fixture".into());
    let dest = dir.path().join(name);
    if let Ok(mut live) = live_copies().lock() {
        live.insert(dir.path().to_path_buf());
    }
    // From here on, dropping `copy` (an error below) deregisters and removes it.
    let mut copy = FixtureCopy {
        dir,
        path: dest.clone(),
        original: PathBuf::new(),
        manifest: Default::default(),
    };
    let root = src.canonicalize().map_err(|source| FixtureError::Read {
        path: src.to_path_buf(),
        source,
    })?;
    let roots = Roots {
        src: &root,
        dest: &dest,
    };
    copy_dir(&roots, &root, &dest).map_err(|source| FixtureError::Copy {
        path: src.to_path_buf(),
        source,
    })?;
    // Canonical, so servers that resolve symlinked temp dirs agree with us.
    copy.path = dest.canonicalize().unwrap_or(dest);
    copy.manifest = super::restore::Manifest::take(&root, &copy.path).map_err(|source| {
        FixtureError::ReadCopy {
            path: copy.path.clone(),
            source,
        }
    })?;
    copy.original = root;
    Ok(copy)
}

/// Copy one entry of the fixture (`from`, below the canonical `src_root`)
/// to `to`, below the copy's root `dest_root`, as [`copy`] does: a
/// directory with everything in it, a link pointed into the copy.
pub(super) fn copy_entry(
    src_root: &Path,
    dest_root: &Path,
    from: &Path,
    to: &Path,
) -> std::io::Result<()> {
    let roots = Roots {
        src: src_root,
        dest: dest_root,
    };
    let ft = std::fs::symlink_metadata(from)?.file_type();
    let dir = from.parent().unwrap_or(src_root);
    copy_one(&roots, dir, from, to, ft)
}

/// The fixture (canonical) and its copy.
struct Roots<'a> {
    src: &'a Path,
    dest: &'a Path,
}

fn copy_dir(roots: &Roots<'_>, src: &Path, dest: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dest)?;
    let perms = std::fs::metadata(src)?.permissions();
    for entry in std::fs::read_dir(src)? {
        let entry = entry?;
        let from = entry.path();
        let to = dest.join(entry.file_name());
        copy_one(roots, src, &from, &to, entry.file_type()?)?;
    }
    std::fs::set_permissions(dest, perms)?;
    Ok(())
}

/// Copy the entry `from` of the directory `src` to `to`. A file keeps its
/// modification time, so a later write to the copy always shows in its
/// time (see [`super::restore`]).
fn copy_one(
    roots: &Roots<'_>,
    src: &Path,
    from: &Path,
    to: &Path,
    ft: std::fs::FileType,
) -> std::io::Result<()> {
    if ft.is_dir() {
        copy_dir(roots, from, to)?;
    } else if ft.is_symlink() {
        let target = std::fs::read_link(from)?;
        let resolved = resolve(src, &target);
        let Ok(inside) = resolved.strip_prefix(roots.src) else {
            return Err(std::io::Error::other(format!(
                "{} links to {}, outside the fixture: a server writing through it \
                 would change that file; replace the link with a copy, or remove it",
                from.display(),
                target.display()
            )));
        };
        symlink_like(ft, &roots.dest.join(inside), to)?;
    } else if crate::files::is_special(ft) {
        return Err(std::io::Error::other(format!(
            "{} is not a regular file (a pipe, socket or device): a fixture holds \
             files, directories and links",
            from.display()
        )));
    } else {
        std::fs::copy(from, to)?;
        super::restore::keep_time(from, to)?;
    }
    Ok(())
}

/// Make a link at `link` to `target`, of the kind of the link being copied
/// (`ft`): on Windows a link to a directory and one to a file differ.
#[cfg(unix)]
fn symlink_like(_: std::fs::FileType, target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// Make a link at `link` to `target`, of the kind of the link being copied
/// (`ft`): on Windows a link to a directory and one to a file differ.
#[cfg(windows)]
fn symlink_like(ft: std::fs::FileType, target: &Path, link: &Path) -> std::io::Result<()> {
    use std::os::windows::fs::FileTypeExt as _;
    if ft.is_symlink_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}

/// Where a link in `dir` (canonical) with `target` leads: the canonical
/// path when it exists (following further links), else the path with `.`
/// and `..` worked out.
fn resolve(dir: &Path, target: &Path) -> PathBuf {
    let joined = dir.join(target);
    if let Ok(real) = joined.canonicalize() {
        return real;
    }
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The absolute path an argument (or the value of its `--flag=`) names,
/// symbolic links followed, or `None` when it names no path: a relative
/// argument names one when it starts with `./` or `../` (or is `.` or `..`)
/// or its first component exists in `cwd`.
pub fn resolve_arg(arg: &str, cwd: &Path) -> Option<String> {
    let value = mcpcheck_core::generate::path_part(arg);
    if value.is_empty() {
        return None;
    }
    let path = Path::new(value);
    let names_a_path = path.is_absolute()
        || matches!(
            path.components().next(),
            Some(Component::CurDir | Component::ParentDir)
        )
        || path
            .components()
            .next()
            .is_some_and(|first| cwd.join(first).symlink_metadata().is_ok());
    names_a_path.then(|| resolve_path(&cwd.join(path)).to_string_lossy().into_owned())
}

/// An absolute path with symbolic links followed as far as it exists, the
/// rest (`.` and `..` worked out) appended.
pub fn resolve_path(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let normal = lexical(path);
    let mut rest = Vec::new();
    let mut existing = normal.clone();
    loop {
        if let Ok(mut p) = std::fs::canonicalize(&existing) {
            p.extend(rest.iter().rev());
            return p;
        }
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_owned());
                existing.pop();
            }
            None => return normal,
        }
    }
}

/// `path` with `.` and `..` worked out, no link followed.
fn lexical(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// A stdio server's command line and environment pointed at the copy of
/// the fixture `original`: `{{fixture}}`, and every spelling of the fixture
/// directory or a path in it — relative (`fx`, `./fx`, `fx/`), absolute,
/// through a symbolic link, or the value of `--flag=PATH` — become the same
/// path in `copy` (paths are compared once resolved, links followed). A
/// value that names the fixture inside a longer text (`--roots=a:/w/fx`),
/// which cannot be pointed at the copy, is refused with why: the server
/// would otherwise work on the original. Returns how many values were
/// pointed at the copy.
pub fn point_at_copy(
    command: &mut String,
    args: &mut [String],
    env: &mut [(String, String)],
    original: &Path,
    copy: &Path,
) -> Result<usize, FixtureError> {
    let root = original
        .canonicalize()
        .map_err(|source| FixtureError::Read {
            path: original.to_path_buf(),
            source,
        })?;
    let cwd = std::env::current_dir().map_err(FixtureError::CurrentDir)?;
    // How the fixture may be written inside a longer value: canonical,
    // absolute as given, and as given when that is more than a bare name.
    let mut spellings = vec![
        root.display().to_string(),
        lexical(&cwd.join(original)).display().to_string(),
    ];
    let given = original.display().to_string();
    if given.contains('/') {
        spellings.push(given.trim_end_matches('/').to_string());
    }
    spellings.retain(|s| !s.is_empty() && s != "/");
    let copy_text = copy.display().to_string();
    let mut pointed = 0;
    let mut point = |text: &mut String, what: &str, flag_value: bool| -> Result<(), FixtureError> {
        if text.contains("{{fixture}}") {
            *text = text.replace("{{fixture}}", &copy_text);
            pointed += 1;
        }
        let value = if flag_value {
            mcpcheck_core::generate::path_part(text)
        } else {
            text.as_str()
        };
        let prefix = text[..text.len() - value.len()].to_string();
        if let Some(resolved) = resolve_arg(value, &cwd).map(PathBuf::from)
            && !resolved.starts_with(copy)
            && let Ok(rest) = resolved.strip_prefix(&root)
        {
            let mut to = copy.join(rest).display().to_string();
            if value.ends_with('/') && !to.ends_with('/') {
                to.push('/');
            }
            *text = format!("{prefix}{to}");
            pointed += 1;
            return Ok(());
        }
        let outside_copy = text.replace(&copy_text, "");
        if spellings.iter().any(|s| names_inside(&outside_copy, s)) {
            return Err(FixtureError::Inside {
                what: what.to_string(),
                fixture: original.to_path_buf(),
            });
        }
        Ok(())
    };
    let what = format!("the server command `{command}`");
    point(command, &what, false)?;
    for arg in args.iter_mut() {
        let what = format!("the server argument `{arg}`");
        point(arg, &what, true)?;
    }
    for (name, value) in env.iter_mut() {
        // Only the name: an environment value may be a secret.
        point(
            value,
            &format!("the server's environment value {name}"),
            false,
        )?;
    }
    Ok(pointed)
}

/// Whether `text` holds the path `path` followed by the end, `/`, or a
/// character no file name continues with (so `/w/fx` is not found in
/// `/w/fx2` or `/w/fx.bak`).
fn names_inside(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(at, _)| {
        text[at + path.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_found_inside_a_value_only_as_a_whole_name() {
        assert!(names_inside("--roots=/tmp:/w/fx", "/w/fx"));
        assert!(names_inside("/w/fx/a.txt,x", "/w/fx"));
        assert!(!names_inside("/w/fx2", "/w/fx"));
        assert!(!names_inside("/w/fx.bak", "/w/fx"));
    }

    #[test]
    fn the_copy_named_by_a_template_is_left_as_it_is() {
        // `{{fixture}}` already expanded by a suite: the copy lies under
        // the fixture's parent when the fixture is the temp dir itself.
        let src = tempfile::tempdir().unwrap();
        let copy = copy(src.path()).unwrap();
        let mut command = "server".to_string();
        let mut args = vec![copy.path.display().to_string(), "{{fixture}}/a".into()];
        let pointed = point_at_copy(&mut command, &mut args, &mut [], src.path(), &copy.path)
            .expect("pointed");
        assert_eq!(pointed, 1);
        assert_eq!(args[0], copy.path.display().to_string());
        assert_eq!(args[1], format!("{}/a", copy.path.display()));
    }

    #[test]
    fn copies_deeply_and_leaves_the_original_alone() {
        let src = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(src.path().join("a/b")).unwrap();
        std::fs::write(src.path().join("a/b/f.txt"), "x").unwrap();
        let copy = copy(src.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(copy.path.join("a/b/f.txt")).unwrap(),
            "x"
        );
        std::fs::write(copy.path.join("a/b/f.txt"), "changed").unwrap();
        assert_eq!(
            std::fs::read_to_string(src.path().join("a/b/f.txt")).unwrap(),
            "x"
        );
        let p = copy.path.clone();
        drop(copy);
        assert!(!p.exists());
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_the_fixture_point_into_the_copy() {
        let src = tempfile::tempdir().unwrap();
        let root = src.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f.txt"), "x").unwrap();
        std::os::unix::fs::symlink("a/b/f.txt", root.join("relative")).unwrap();
        std::os::unix::fs::symlink(root.join("a/b/f.txt"), root.join("absolute")).unwrap();
        std::os::unix::fs::symlink("a/b/not-yet.txt", root.join("dangling")).unwrap();
        let copy = copy(&root).unwrap();
        for link in ["relative", "absolute"] {
            std::fs::write(copy.path.join(link), format!("through {link}")).unwrap();
            assert_eq!(
                std::fs::read_to_string(root.join("a/b/f.txt")).unwrap(),
                "x",
                "{link} wrote to the original"
            );
        }
        assert_eq!(
            std::fs::read_to_string(copy.path.join("a/b/f.txt")).unwrap(),
            "through absolute"
        );
        std::fs::write(copy.path.join("dangling"), "new").unwrap();
        assert!(copy.path.join("a/b/not-yet.txt").exists());
        assert!(!root.join("a/b/not-yet.txt").exists());
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_fixture_and_special_files_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "keep").unwrap();
        for target in [
            outside.path().join("secret.txt"),
            PathBuf::from("../../escape.txt"),
        ] {
            let src = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(&target, src.path().join("link")).unwrap();
            let e = copy(src.path()).err().expect("refused").to_string();
            assert!(e.contains("outside the fixture"), "{e}");
            assert!(e.contains("link"), "{e}");
        }
        let src = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(&src.path().join("pipe"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = copy(src.path()).err().expect("refused").to_string();
        assert!(e.contains("not a regular file"), "{e}");
        assert_eq!(
            std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
            "keep"
        );
    }
}
