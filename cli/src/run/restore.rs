//! Putting a fixture copy back the way it was made, in place, between the
//! tests of a reused server session: only what changed is copied again.
//!
//! When the copy is made, every entry's state is noted in a [`Manifest`]:
//! its kind, size, modification time, inode and permissions (a link's
//! target). On Windows, the permissions are the read-only bit and there is
//! no inode: size and modification time tell a change. Files in the copy keep the original's modification time (as
//! `cp -p` does), so a server's write, which sets the time to now, always
//! shows, even within the clock tick of the copy. Before the next test,
//! [`Manifest::restore`] walks the copy: an entry whose state differs is
//! copied again from the original, an entry the original does not have is
//! removed, and one the server removed is copied back. The copy's root
//! directory stays where it is, so a server started in it (or holding it
//! open) keeps working in the same place.
//!
//! A file whose original was modified in the last few seconds (a fixture
//! written just before the run) is compared by content instead: its time
//! alone could not tell a server's same-size write from the copy.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How recent an original's modification time must be for the copy of it
/// to be compared by content rather than by its time.
const RECENT: Duration = Duration::from_secs(5);

/// What an entry of the copy looked like when it was made or restored.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Dir {
        mode: u32,
    },
    File {
        len: u64,
        modified: Option<SystemTime>,
        inode: u64,
        mode: u32,
        /// The original changed so recently that only its content tells.
        by_content: bool,
    },
    Link {
        target: PathBuf,
    },
}

/// The state of every entry of a fixture copy, by path relative to the
/// copy's root (the root itself is `""`).
#[derive(Debug, Default)]
pub struct Manifest {
    entries: BTreeMap<PathBuf, State>,
}

/// What one restore did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Restored {
    /// Entries copied again from the original (changed or removed).
    pub copied: usize,
    /// Entries the server added, removed from the copy.
    pub removed: usize,
}

#[cfg(all(test, unix))]
impl Restored {
    fn nothing(&self) -> bool {
        self.copied == 0 && self.removed == 0
    }
}

/// Set a copied file's modification time to its original's.
pub fn keep_time(from: &Path, to: &Path) -> std::io::Result<()> {
    let modified = std::fs::metadata(from)?.modified()?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(to)
        .or_else(|_| {
            // A read-only original is copied read-only: its time is set
            // through a handle opened for reading.
            std::fs::File::open(to)
        })?;
    file.set_times(std::fs::FileTimes::new().set_modified(modified))
}

fn state_of(path: &Path, original_modified: Option<SystemTime>) -> std::io::Result<State> {
    let meta = std::fs::symlink_metadata(path)?;
    let ft = meta.file_type();
    Ok(if ft.is_symlink() {
        State::Link {
            target: std::fs::read_link(path)?,
        }
    } else if ft.is_dir() {
        State::Dir {
            mode: platform::mode(&meta),
        }
    } else {
        let by_content = original_modified.is_none_or(|m| {
            SystemTime::now()
                .duration_since(m)
                .map_or(true, |age| age < RECENT)
        });
        State::File {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode: platform::inode(&meta),
            mode: platform::mode(&meta),
            by_content,
        }
    })
}

impl Manifest {
    /// The state of the copy `copy` of `original` (canonical), just made.
    pub fn take(original: &Path, copy: &Path) -> std::io::Result<Manifest> {
        let mut m = Manifest::default();
        m.note(original, copy, Path::new(""))?;
        Ok(m)
    }

    /// Note `rel` and, for a directory, everything below it.
    fn note(&mut self, original: &Path, copy: &Path, rel: &Path) -> std::io::Result<()> {
        let at = copy.join(rel);
        let from = original.join(rel);
        let original_modified = std::fs::symlink_metadata(&from)
            .ok()
            .and_then(|m| m.modified().ok());
        let state = state_of(&at, original_modified)?;
        let is_dir = matches!(state, State::Dir { .. });
        self.entries.insert(rel.to_path_buf(), state);
        if is_dir {
            for entry in std::fs::read_dir(&at)? {
                let entry = entry?;
                self.note(original, copy, &rel.join(entry.file_name()))?;
            }
        }
        Ok(())
    }

    /// Forget `rel` and everything below it.
    fn forget(&mut self, rel: &Path) {
        let below: Vec<PathBuf> = self
            .entries
            .range(rel.to_path_buf()..)
            .map(|(p, _)| p.clone())
            .take_while(|p| p.starts_with(rel))
            .collect();
        for p in below {
            self.entries.remove(&p);
        }
    }

    /// Put `copy` back as the copy of `original` (canonical) was made,
    /// changing only what differs. An error leaves the copy unusable: the
    /// caller makes a new one.
    pub fn restore(
        &mut self,
        original: &Path,
        copy: &Path,
    ) -> Result<Restored, super::fixture::FixtureError> {
        let mut done = Restored::default();
        self.restore_dir(original, copy, Path::new(""), &mut done)
            .map_err(|source| super::fixture::FixtureError::Restore {
                path: copy.to_path_buf(),
                source,
            })?;
        Ok(done)
    }

    fn restore_dir(
        &mut self,
        original: &Path,
        copy: &Path,
        rel: &Path,
        done: &mut Restored,
    ) -> std::io::Result<()> {
        let at = copy.join(rel);
        // The root, or a directory the walk below reached: still a
        // directory with the same permissions? (A server may have made it
        // unreadable; its permissions come back before it is read.)
        let want = self.entries.get(rel).cloned();
        let now = std::fs::symlink_metadata(&at);
        match (&want, &now) {
            (Some(State::Dir { mode }), Ok(meta)) if meta.is_dir() => {
                if platform::mode(meta) != *mode {
                    platform::set_mode(&at, *mode)?;
                    done.copied += 1;
                }
            }
            _ => {
                // Replaced by a file or a link, or removed: copied again.
                self.recopy(original, copy, rel, done)?;
                return Ok(());
            }
        }
        // What the copy holds now, against what it should.
        let mut seen: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(&at)? {
            let entry = entry?;
            let child = rel.join(entry.file_name());
            seen.insert(child.clone());
            match self.entries.get(&child).cloned() {
                None => {
                    remove_any(&copy.join(&child))?;
                    done.removed += 1;
                }
                Some(State::Dir { .. }) => self.restore_dir(original, copy, &child, done)?,
                Some(state) => {
                    if !self.unchanged(original, copy, &child, &state) {
                        self.recopy(original, copy, &child, done)?;
                    }
                }
            }
        }
        // What the server removed.
        let missing: Vec<PathBuf> = self
            .entries
            .range(rel.to_path_buf()..)
            .map(|(p, _)| p)
            .take_while(|p| p.starts_with(rel))
            .filter(|p| p.parent() == Some(rel) && !seen.contains(*p))
            .cloned()
            .collect();
        for child in missing {
            self.recopy(original, copy, &child, done)?;
        }
        Ok(())
    }

    /// Whether the entry `rel` of the copy is as it was noted.
    fn unchanged(&self, original: &Path, copy: &Path, rel: &Path, want: &State) -> bool {
        let at = copy.join(rel);
        let Ok(now) = state_of(&at, None) else {
            return false;
        };
        match (want, now) {
            (State::Link { target }, State::Link { target: t }) => *target == t,
            (
                State::File {
                    len,
                    modified,
                    inode,
                    mode,
                    by_content,
                },
                State::File {
                    len: l,
                    modified: m,
                    inode: i,
                    mode: md,
                    ..
                },
            ) => {
                let same = *len == l && *modified == m && *inode == i && *mode == md;
                if same && *by_content {
                    same_content(&original.join(rel), &at)
                } else {
                    same
                }
            }
            _ => false,
        }
    }

    /// Replace the entry `rel` of the copy (whatever it is now, if
    /// anything) with a fresh copy of the original's, and note it.
    fn recopy(
        &mut self,
        original: &Path,
        copy: &Path,
        rel: &Path,
        done: &mut Restored,
    ) -> std::io::Result<()> {
        let to = copy.join(rel);
        if std::fs::symlink_metadata(&to).is_ok() {
            remove_any(&to)?;
        }
        let from = original.join(rel);
        super::fixture::copy_entry(original, copy, &from, &to)?;
        self.forget(rel);
        self.note(original, copy, rel)?;
        done.copied += 1;
        Ok(())
    }
}

/// Remove a file, link or whole directory, whatever its permissions.
fn remove_any(path: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        // A directory the server made unwritable or unreadable cannot be
        // emptied until its permissions allow it.
        make_removable(path);
        std::fs::remove_dir_all(path)
    } else {
        platform::make_file_removable(path);
        std::fs::remove_file(path)
    }
}

fn make_removable(dir: &Path) {
    let _ = platform::set_mode(dir, platform::OPEN_DIR);
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                make_removable(&e.path());
            }
        }
    }
}

/// The permissions and identity of an entry, as each platform has them.
#[cfg(unix)]
mod platform {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;

    /// A directory its owner may read, write and enter.
    pub const OPEN_DIR: u32 = 0o700;

    /// The mode bits.
    pub fn mode(meta: &std::fs::Metadata) -> u32 {
        meta.permissions().mode()
    }

    pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }

    pub fn inode(meta: &std::fs::Metadata) -> u64 {
        meta.ino()
    }

    /// A read-only file is removed like any other.
    pub fn make_file_removable(_: &Path) {}
}

/// The permissions and identity of an entry, as each platform has them.
#[cfg(windows)]
mod platform {
    use std::path::Path;

    /// Not read-only.
    pub const OPEN_DIR: u32 = 0;

    /// The read-only bit: 1 when set.
    pub fn mode(meta: &std::fs::Metadata) -> u32 {
        u32::from(meta.permissions().readonly())
    }

    pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
        let mut perms = std::fs::symlink_metadata(path)?.permissions();
        perms.set_readonly(mode != 0);
        std::fs::set_permissions(path, perms)
    }

    /// Stable Rust has no file id on Windows: size and time tell a change.
    pub fn inode(_: &std::fs::Metadata) -> u64 {
        0
    }

    /// A read-only file cannot be removed until the bit is cleared.
    pub fn make_file_removable(path: &Path) {
        let _ = set_mode(path, 0);
    }
}

/// Whether two files hold the same bytes (unreadable: not the same).
fn same_content(a: &Path, b: &Path) -> bool {
    use std::io::Read;
    let (Ok(fa), Ok(fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ra, mut rb) = (
        std::io::BufReader::with_capacity(64 * 1024, fa),
        std::io::BufReader::with_capacity(64 * 1024, fb),
    );
    let (mut ba, mut bb) = ([0u8; 8192], [0u8; 8192]);
    loop {
        let Ok(na) = read_full(&mut ra, &mut ba) else {
            return false;
        };
        let Ok(nb) = read_full(&mut rb, &mut bb) else {
            return false;
        };
        if na != nb || ba[..na] != bb[..nb] {
            return false;
        }
        if na == 0 {
            return true;
        }
    }

    fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match r.read(&mut buf[n..])? {
                0 => break,
                k => n += k,
            }
        }
        Ok(n)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::fixture;
    use std::path::Path;
    use std::time::{Duration, SystemTime};

    /// A fixture whose files are an hour old, as a checked-out one is.
    fn old_fixture() -> tempfile::TempDir {
        let src = tempfile::tempdir().unwrap();
        let root = src.path();
        std::fs::create_dir_all(root.join("docs/deep")).unwrap();
        std::fs::write(root.join("a.txt"), "alpha").unwrap();
        std::fs::write(root.join("docs/b.txt"), "bravo").unwrap();
        std::fs::write(root.join("docs/deep/c.txt"), "charlie").unwrap();
        std::os::unix::fs::symlink("docs/b.txt", root.join("link")).unwrap();
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        for f in ["a.txt", "docs/b.txt", "docs/deep/c.txt"] {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(root.join(f))
                .unwrap();
            file.set_times(std::fs::FileTimes::new().set_modified(hour_ago))
                .unwrap();
        }
        src
    }

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap_or_else(|e| format!("<{e}>"))
    }

    /// Every path below `dir`, relative, with each file's content.
    fn tree(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                let ft = e.file_type().unwrap();
                if ft.is_symlink() {
                    out.push((
                        rel,
                        format!("-> {}", std::fs::read_link(&p).unwrap().display()),
                    ));
                } else if ft.is_dir() {
                    out.push((rel, "/".into()));
                    stack.push(p);
                } else {
                    out.push((rel, read(&p)));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn an_untouched_copy_is_left_alone() {
        let src = old_fixture();
        let mut copy = fixture::copy(src.path()).unwrap();
        let done = copy.restore().unwrap();
        assert!(done.nothing(), "{done:?}");
    }

    #[test]
    fn what_a_server_changed_is_put_back_and_only_that() {
        let src = old_fixture();
        let mut copy = fixture::copy(src.path()).unwrap();
        let want = tree(&copy.path);
        let root = copy.path.clone();
        let untouched_inode = |p: &str| {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(root.join(p)).unwrap().ino()
        };
        let c_inode = untouched_inode("docs/deep/c.txt");
        // Same size, written right after the copy: only the time tells.
        std::fs::write(root.join("a.txt"), "ALPHA").unwrap();
        std::fs::remove_file(root.join("docs/b.txt")).unwrap();
        std::fs::write(root.join("new.txt"), "added").unwrap();
        std::fs::create_dir_all(root.join("made/inside")).unwrap();
        std::fs::write(root.join("made/inside/x"), "x").unwrap();
        std::fs::remove_file(root.join("link")).unwrap();
        std::os::unix::fs::symlink("a.txt", root.join("link")).unwrap();
        let done = copy.restore().unwrap();
        assert_eq!(tree(&root), want);
        // a.txt, b.txt and the link again; new.txt and made/ removed.
        assert_eq!((done.copied, done.removed), (3, 2), "{done:?}");
        assert_eq!(untouched_inode("docs/deep/c.txt"), c_inode);
        assert_eq!(read(&src.path().join("a.txt")), "alpha");
        // And the next restore has nothing to do.
        assert!(copy.restore().unwrap().nothing());
    }

    #[test]
    fn a_directory_replaced_or_locked_is_restored() {
        use std::os::unix::fs::PermissionsExt;
        let src = old_fixture();
        let mut copy = fixture::copy(src.path()).unwrap();
        let want = tree(&copy.path);
        let root = copy.path.clone();
        std::fs::remove_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs"), "now a file").unwrap();
        copy.restore().unwrap();
        assert_eq!(tree(&root), want);
        std::fs::set_permissions(root.join("docs"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        copy.restore().unwrap();
        assert_eq!(tree(&root), want);
        // Permissions of a file changed, content not.
        std::fs::set_permissions(root.join("a.txt"), std::fs::Permissions::from_mode(0o400))
            .unwrap();
        assert_eq!(copy.restore().unwrap().copied, 1);
        assert_eq!(tree(&root), want);
    }

    #[test]
    fn a_freshly_written_fixture_is_compared_by_content() {
        // Written now: the copy's time is the original's, and a server's
        // same-size write within the same clock tick keeps it.
        let src = tempfile::tempdir().unwrap();
        std::fs::write(src.path().join("f.txt"), "12345").unwrap();
        let mut copy = fixture::copy(src.path()).unwrap();
        let f = copy.path.join("f.txt");
        let before = std::fs::metadata(&f).unwrap().modified().unwrap();
        std::fs::write(&f, "54321").unwrap();
        // Put the time back, as a coarse clock could leave it.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_times(std::fs::FileTimes::new().set_modified(before))
            .unwrap();
        assert_eq!(copy.restore().unwrap().copied, 1);
        assert_eq!(read(&f), "12345");
    }

    #[test]
    fn copies_keep_the_original_times() {
        let src = old_fixture();
        let copy = fixture::copy(src.path()).unwrap();
        let time = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        assert_eq!(
            time(&copy.path.join("docs/deep/c.txt")),
            time(&src.path().join("docs/deep/c.txt"))
        );
    }
}
