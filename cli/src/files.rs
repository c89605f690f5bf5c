//! Finding and reading suite files.

use std::path::{Path, PathBuf};

/// Why an input could not be found or read; each names the file (or
/// standard input) and says what to do where there is something to do.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A file (or standard input) that could not be read.
    #[error("cannot read {what}: {why}")]
    Read { what: String, why: Why },
    /// A directory that could not be listed.
    #[error("{path}: {source}")]
    List {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A directory given as a suite with no suite file in it.
    #[error("{path}: no .yaml or .yml test files here (or in its subdirectories)")]
    NoSuiteFiles { path: String },
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum Why {
    /// The file system said no (absent, not permitted, …).
    #[error("{0}")]
    Io(#[source] std::io::Error),
    /// Not a regular file: `a named pipe`, `a socket`, `a device`, ….
    #[error("it is {0}; mcpcheck reads its inputs from regular files only")]
    NotRegular(&'static str),
    /// Larger than the limit (`mib` rounded up; `None` when only "more" is
    /// known, as for standard input).
    #[error("it holds {} MiB, more than the {max_mib} MiB mcpcheck reads as one input", .mib.map_or_else(|| "more".to_string(), |m| m.to_string()))]
    TooLarge { mib: Option<u64>, max_mib: u64 },
    /// Bytes that are not UTF-8.
    #[error("it is not UTF-8 text (invalid at byte {0})")]
    NotUtf8(usize),
}

/// A file (or its folder) that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot create {}: {source}", .path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open {}: {source}", .path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl WriteError {
    /// `path` (a folder) could not be created.
    pub fn create(path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| Self::Create { path, source }
    }

    /// `path` could not be opened.
    pub fn open(path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| Self::Open { path, source }
    }

    /// `path` could not be written.
    pub fn write(path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| Self::Write { path, source }
    }
}

/// Writes `text` to `path`, creating its folder.
pub fn write_creating(path: &Path, text: &str) -> Result<(), WriteError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(WriteError::create(dir))?;
    }
    std::fs::write(path, text).map_err(WriteError::write(path))
}

/// The YAML files of each PATH: a file is itself; a directory gives its
/// `.yaml`/`.yml` files and those of its direct subdirectories (mcp-assert's
/// rule), sorted by path so runs are reproducible.
pub fn suite_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| list_error(p, e))?;
        if meta.is_file() {
            out.push(p.clone());
            continue;
        }
        let mut found = Vec::new();
        collect_yaml(p, &mut found, 1)?;
        if found.is_empty() {
            return Err(InputError::NoSuiteFiles { path: display(p) });
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn list_error(path: &Path, source: std::io::Error) -> InputError {
    InputError::List {
        path: display(path),
        source,
    }
}

fn is_yaml(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

fn collect_yaml(dir: &Path, out: &mut Vec<PathBuf>, depth: u32) -> Result<(), InputError> {
    let entries = std::fs::read_dir(dir).map_err(|e| list_error(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| list_error(dir, e))?;
        let path = entry.path();
        let ft = entry.file_type().map_err(|e| list_error(&path, e))?;
        if ft.is_dir() {
            if depth > 0 {
                collect_yaml(&path, out, depth - 1)?;
            }
        } else if is_yaml(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// The largest file mcpcheck reads as one input (a suite, a capture, a
/// listing, a lockfile, a results document, a baseline, snapshots).
pub const MAX_INPUT_BYTES: u64 = 128 * 1024 * 1024;

const MIB: u64 = 1024 * 1024;

/// Read a text file, naming it in the error. Only a regular file is read
/// (a named pipe, a socket or a device, `/dev/zero` behind a symbolic link
/// included, is an error instead of a read that never ends or never stops
/// growing), and at most [`MAX_INPUT_BYTES`] of it.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    read_bounded(path, MAX_INPUT_BYTES).map_err(|why| InputError::Read {
        what: display(path),
        why,
    })
}

/// [`read_text`] with another size limit; the reason alone, for a caller
/// that names the file its own way.
pub fn read_bounded(path: &Path, max: u64) -> Result<String, Why> {
    use std::io::Read;
    let kind = |ft: std::fs::FileType| {
        Why::NotRegular(if ft.is_dir() {
            "a directory"
        } else {
            special_kind(ft).unwrap_or("not a regular file")
        })
    };
    let too_large = |len: u64| Why::TooLarge {
        mib: Some(len.div_ceil(MIB)),
        max_mib: max / MIB,
    };
    let meta = std::fs::metadata(path).map_err(Why::Io)?;
    if !meta.is_file() {
        return Err(kind(meta.file_type()));
    }
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    // Opened without blocking, and looked at again: the path may have been
    // replaced by a pipe since.
    let file = open_without_blocking(path).map_err(Why::Io)?;
    let meta = file.metadata().map_err(Why::Io)?;
    if !meta.is_file() {
        return Err(kind(meta.file_type()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(Why::Io)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| Why::NotUtf8(e.utf8_error().valid_up_to()))
}

/// The program `name` in the directory `dir`, as a shell would run it: on
/// Unix a file with an execute bit; on Windows a file `name` with one of
/// the extensions of `PATHEXT` added (`.COM;.EXE;.BAT;.CMD` when unset), or
/// `name` itself when it already ends in one.
pub fn program_in(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let candidate = dir.join(name);
        std::fs::metadata(&candidate)
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .then_some(candidate)
    }
    #[cfg(windows)]
    {
        let pathext = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
        let exts: Vec<&str> = pathext.split(';').filter(|e| !e.is_empty()).collect();
        let has_ext = exts
            .iter()
            .any(|e| name.len() > e.len() && name[name.len() - e.len()..].eq_ignore_ascii_case(e));
        let own = has_ext.then(|| name.to_string());
        own.into_iter()
            .chain(exts.iter().map(|e| format!("{name}{e}")))
            .map(|n| dir.join(n))
            .find(|candidate| std::fs::metadata(candidate).is_ok_and(|m| m.is_file()))
    }
}

/// Whether a file is a named pipe, a socket or a device (never on Windows,
/// where none of these is found by walking a directory).
pub fn is_special(ft: std::fs::FileType) -> bool {
    special_kind(ft).is_some()
}

/// What a file that is neither a regular file nor a directory is, in words,
/// when the platform tells.
#[cfg(unix)]
fn special_kind(ft: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        Some("a named pipe")
    } else if ft.is_socket() {
        Some("a socket")
    } else if ft.is_char_device() || ft.is_block_device() {
        Some("a device")
    } else {
        None
    }
}

/// Windows names no other kinds: a pipe or a device is "not a regular file".
#[cfg(windows)]
fn special_kind(_: std::fs::FileType) -> Option<&'static str> {
    None
}

/// Open for reading so that opening a named pipe does not wait for a writer.
#[cfg(unix)]
fn open_without_blocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
}

/// Opening a file never waits on Windows (a pipe is not a path of the file
/// system, and a device is refused by the checks around the open).
#[cfg(windows)]
fn open_without_blocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Read standard input as text, at most [`MAX_INPUT_BYTES`].
pub fn read_stdin() -> Result<String, InputError> {
    use std::io::Read;
    let fail = |why| InputError::Read {
        what: "standard input".into(),
        why,
    };
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(Why::Io(e)))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(fail(Why::TooLarge {
            mib: None,
            max_mib: MAX_INPUT_BYTES / MIB,
        }));
    }
    String::from_utf8(bytes).map_err(|e| fail(Why::NotUtf8(e.utf8_error().valid_up_to())))
}

/// A path as shown in reports: relative paths stay as the user wrote them.
pub fn display(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_program_is_a_file_with_an_execute_bit() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        for (name, mode) in [("tool", 0o755), ("notes", 0o644)] {
            std::fs::write(dir.path().join(name), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(dir.path().join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        std::fs::create_dir(dir.path().join("folder")).unwrap();
        assert_eq!(
            program_in(dir.path(), "tool"),
            Some(dir.path().join("tool"))
        );
        assert_eq!(program_in(dir.path(), "notes"), None);
        assert_eq!(program_in(dir.path(), "folder"), None);
        assert_eq!(program_in(dir.path(), "missing"), None);
    }

    #[cfg(windows)]
    #[test]
    fn a_program_is_found_with_an_extension_of_pathext() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tool.exe"), "").unwrap();
        std::fs::write(dir.path().join("notes"), "").unwrap();
        assert_eq!(
            program_in(dir.path(), "tool"),
            Some(dir.path().join("tool.exe"))
        );
        assert_eq!(
            program_in(dir.path(), "tool.exe"),
            Some(dir.path().join("tool.exe"))
        );
        assert_eq!(program_in(dir.path(), "notes"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_named_and_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let why = read_bounded(&fifo, MIB).expect_err("refused");
        assert!(matches!(why, Why::NotRegular("a named pipe")));
    }
}
