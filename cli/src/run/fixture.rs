//! Per-test fixture copies: each test gets a fresh copy of the fixture
//! directory in a temporary directory (the tests of a `share_server` file
//! share one), so servers may change files freely and the originals are never
//! touched. The copy keeps the fixture's base name (a fixture `test-data` is
//! copied to `/tmp/mcpcheck-fixture-k3Rb9Q/test-data`), so relative layouts
//! still hold.
//! Symbolic links are copied as links, never followed.

use std::path::{Path, PathBuf};

/// A fixture copy, removed when dropped.
pub struct FixtureCopy {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
}

/// Copy `src` into a new temporary directory.
pub fn copy(src: &Path) -> Result<FixtureCopy, String> {
    let dir = tempfile::Builder::new()
        .prefix("mcpcheck-fixture-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory for the fixture: {e}"))?;
    let name = src
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "fixture".into());
    let dest = dir.path().join(name);
    copy_dir(src, &dest).map_err(|e| format!("cannot copy the fixture {}: {e}", src.display()))?;
    // Canonical, so servers that resolve symlinked temp dirs agree with us.
    let path = dest.canonicalize().unwrap_or(dest);
    Ok(FixtureCopy { _dir: dir, path })
}

fn copy_dir(src: &Path, dest: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dest)?;
    let perms = std::fs::metadata(src)?.permissions();
    for entry in std::fs::read_dir(src)? {
        let entry = entry?;
        let from = entry.path();
        let to = dest.join(entry.file_name());
        let ft = entry.file_type()?;
        if ft.is_dir() {
            copy_dir(&from, &to)?;
        } else if ft.is_symlink() {
            let target = std::fs::read_link(&from)?;
            std::os::unix::fs::symlink(target, &to)?;
        } else {
            std::fs::copy(&from, &to)?;
        }
    }
    std::fs::set_permissions(dest, perms)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_deeply_and_leaves_the_original_alone() {
        let src = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(src.path().join("a/b")).unwrap();
        std::fs::write(src.path().join("a/b/f.txt"), "x").unwrap();
        std::os::unix::fs::symlink("a/b/f.txt", src.path().join("link")).unwrap();
        let copy = copy(src.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(copy.path.join("a/b/f.txt")).unwrap(),
            "x"
        );
        assert!(
            std::fs::symlink_metadata(copy.path.join("link"))
                .unwrap()
                .file_type()
                .is_symlink()
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
}
