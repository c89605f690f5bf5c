//! Finding and reading suite files.

use std::path::{Path, PathBuf};

/// The YAML files of each PATH: a file is itself; a directory gives its
/// `.yaml`/`.yml` files and those of its direct subdirectories (mcp-assert's
/// rule), sorted by path so runs are reproducible.
pub fn suite_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_file() {
            out.push(p.clone());
            continue;
        }
        let mut found = Vec::new();
        collect_yaml(p, &mut found, 1)?;
        if found.is_empty() {
            return Err(format!(
                "{}: no .yaml or .yml test files here (or in its subdirectories)",
                p.display()
            ));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn is_yaml(p: &Path) -> bool {
    matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

fn collect_yaml(dir: &Path, out: &mut Vec<PathBuf>, depth: u32) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        let ft = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
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

/// Read a text file, naming it in the error. Only a regular file is read
/// (a named pipe, a socket or a device, `/dev/zero` behind a symbolic link
/// included, is an error instead of a read that never ends or never stops
/// growing), and at most [`MAX_INPUT_BYTES`] of it.
pub fn read_text(path: &Path) -> Result<String, String> {
    read_bounded(path, MAX_INPUT_BYTES).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read {}: {e}", path.display()),
        ReadError::Refused(why) => format!("cannot read {}: {why}", path.display()),
    })
}

/// Why an input could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The file system said no (absent, not permitted, …).
    Io(std::io::Error),
    /// mcpcheck refused it: not a regular file, too large, not UTF-8.
    Refused(String),
}

/// [`read_text`] with another size limit, telling an absent file apart.
pub fn read_bounded(path: &Path, max: u64) -> Result<String, ReadError> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let kind = |ft: std::fs::FileType| {
        if ft.is_dir() {
            "a directory"
        } else if ft.is_fifo() {
            "a named pipe"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_char_device() || ft.is_block_device() {
            "a device"
        } else {
            "not a regular file"
        }
    };
    let refuse_kind = |ft: std::fs::FileType| {
        ReadError::Refused(format!(
            "it is {}; mcpcheck reads its inputs from regular files only",
            kind(ft)
        ))
    };
    let too_large = |len: u64| {
        ReadError::Refused(format!(
            "it holds {} MiB, more than the {} MiB mcpcheck reads as one input",
            len.div_ceil(1024 * 1024),
            max / (1024 * 1024)
        ))
    };
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(refuse_kind(meta.file_type()));
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
        .map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(refuse_kind(meta.file_type()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        ReadError::Refused(format!(
            "it is not UTF-8 text (invalid at byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Read standard input as text, at most [`MAX_INPUT_BYTES`].
pub fn read_stdin() -> Result<String, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "cannot read standard input: more than the {} MiB mcpcheck reads as one input",
            MAX_INPUT_BYTES / (1024 * 1024)
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read standard input: not UTF-8 text (invalid at byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// A path as shown in reports: relative paths stay as the user wrote them.
pub fn display(path: &Path) -> String {
    path.display().to_string()
}
