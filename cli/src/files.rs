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
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let kind = |ft: std::fs::FileType| {
        Why::NotRegular(if ft.is_dir() {
            "a directory"
        } else if ft.is_fifo() {
            "a named pipe"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_char_device() || ft.is_block_device() {
            "a device"
        } else {
            "not a regular file"
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
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
        .map_err(Why::Io)?;
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
