//! Temporary copies of a fixture, found in text: the paths that differ on
//! every run although they stand for the same thing.
//!
//! A test runner copies the fixture directory afresh for every test, into a
//! new temporary directory with a random name, and the server sees the copy's
//! path. So an answer that names a file ("wrote /tmp/mcpcheck-fixture-k3Rb9Q/
//! data/a.txt") reads differently on every run. Snapshots compare answers with
//! these paths normalized ([`normalize`]), and replay matches requests with
//! them normalized and answers with the client's own copy ([`find`],
//! [`replace`]). One list of known copies serves both:
//!
//! [`KINDS`] lists them (`docs/snapshot.md` is held to it).
//!
//! The temporary roots are `/tmp`, `/var/tmp`, `/dev/shm` and macOS's
//! `/var/folders/…/T` (each also under `/private`). A copy is the whole path
//! up to and including the temporary directory; what follows it (the
//! fixture's own name, the file) is kept.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// The temporary copies recognized: who makes them, and what the temporary
/// directory looks like.
pub const KINDS: &[(&str, &str)] = &[
    (
        "mcpcheck (`run`, `audit`, `fuzz`)",
        "`mcpcheck-fixture-` and six letters or digits, anywhere",
    ),
    ("mcp-assert", "`mcp-assert-fixture-` and digits, anywhere"),
    (
        "Python `tempfile.mkdtemp`",
        "`tmp` and eight of `a-z0-9_`, under a temporary root",
    ),
    (
        "`mktemp -d`",
        "`tmp.` and ten letters or digits, under a temporary root",
    ),
    (
        "Rust `tempfile`",
        "`.tmp` and six letters or digits, under a temporary root",
    ),
    (
        "Node `fs.mkdtemp`, Go `os.MkdirTemp` and the like",
        "a prefix, `-`, `_` or `.`, and a random part: 6 to 12 letters and digits mixing digits and letters or upper and lower case, or 6 or more digits, under a temporary root",
    ),
];

/// What a temporary copy is normalized to.
pub const PLACEHOLDER: &str = "<temp-copy>";

/// The copies other test runners make, wherever they are: the path leading
/// to the directory, and the directory.
static KNOWN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?:/[^/\s"'\\<>]+)*/(?:mcpcheck-fixture-[A-Za-z0-9]{6}|mcp-assert-fixture-[0-9]+)\b"#,
    )
    .ok()
});

/// A directory right under a temporary root (group 1: its name).
static UNDER_TEMP_ROOT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?:(?:/private)?/var/folders/[^/\s"'\\<>]+/[^/\s"'\\<>]+/T|(?:/private)?/tmp|/var/tmp|/dev/shm)/([^/\s"'\\<>]+)"#,
    )
    .ok()
});

/// Whether `name`, a directory right under a temporary root, is one a
/// `mkdtemp`-style function made (see the module's table).
fn looks_made(name: &str) -> bool {
    let alnum = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric());
    if let Some(rest) = name.strip_prefix("tmp.") {
        return rest.len() == 10 && alnum(rest);
    }
    if let Some(rest) = name.strip_prefix(".tmp") {
        return rest.len() == 6 && alnum(rest);
    }
    if let Some(rest) = name.strip_prefix("tmp")
        && rest.len() == 8
        && rest
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return true;
    }
    let Some(cut) = name.rfind(['-', '_', '.']) else {
        return false;
    };
    let (prefix, random) = (&name[..cut], &name[cut + 1..]);
    if prefix.is_empty() || !alnum(random) {
        return false;
    }
    let has = |f: fn(&u8) -> bool| random.bytes().any(|b| f(&b));
    let digits = has(u8::is_ascii_digit);
    let letters = has(u8::is_ascii_alphabetic);
    let mixed_case = has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase);
    let all_digits = !letters;
    (6..=12).contains(&random.len()) && ((digits && letters) || mixed_case)
        || (random.len() >= 6 && all_digits)
}

/// Every temporary copy in `text`, as byte ranges in order.
fn spans(text: &str) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    if let Some(re) = KNOWN.as_ref() {
        found.extend(re.find_iter(text).map(|m| (m.start(), m.end())));
    }
    if let Some(re) = UNDER_TEMP_ROOT.as_ref() {
        for c in re.captures_iter(text) {
            let (Some(whole), Some(name)) = (c.get(0), c.get(1)) else {
                continue;
            };
            let inside_known = found
                .iter()
                .any(|(s, e)| whole.start() < *e && *s < whole.end());
            if !inside_known && looks_made(name.as_str()) {
                found.push((whole.start(), whole.end()));
            }
        }
    }
    found.sort_unstable();
    found
}

/// `text` with every temporary copy replaced by `to`.
pub fn replace<'t>(text: &'t str, to: &str) -> Cow<'t, str> {
    let found = spans(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in found {
        out.push_str(&text[at..start]);
        out.push_str(to);
        at = end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// `text` with every temporary copy replaced by [`PLACEHOLDER`]: equal for
/// two runs whose copies differ.
pub fn normalize(text: &str) -> Cow<'_, str> {
    replace(text, PLACEHOLDER)
}

/// The first temporary copy `text` names, if any.
pub fn find(text: &str) -> Option<&str> {
    spans(text).first().map(|&(s, e)| &text[s..e])
}

/// `text` with copies made by a known test runner (mcpcheck, mcp-assert)
/// replaced by `to`, and any other copy only where it is one of `also`.
pub fn replace_known<'t>(text: &'t str, to: &str, also: &[&str]) -> Cow<'t, str> {
    let Some(re) = KNOWN.as_ref() else {
        return Cow::Borrowed(text);
    };
    let known = re.replace_all(text, |_: &Captures<'_>| to.to_string());
    let mut out = known;
    for a in also.iter().filter(|a| !a.is_empty()) {
        if out.contains(a) {
            out = Cow::Owned(out.replace(a, to));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runners_copy_is_found_with_the_path_to_it() {
        let table = [
            (
                "wrote /tmp/mcpcheck-fixture-vmhXv7/fs/example/a.txt",
                "wrote <temp-copy>/fs/example/a.txt",
            ),
            (
                "/private/var/folders/ab/cd/T/mcpcheck-fixture-AbC123/data",
                "<temp-copy>/data",
            ),
            (
                "Allowed: /tmp/mcp-assert-fixture-2817361/test-data",
                "Allowed: <temp-copy>/test-data",
            ),
            ("/tmp/tmpa_3kz9qx/f", "<temp-copy>/f"),
            ("/tmp/tmp.Xy12AbCd90/f", "<temp-copy>/f"),
            ("/tmp/.tmpAb12Cd/f", "<temp-copy>/f"),
            ("/tmp/mcptest-Jk2mQx/f", "<temp-copy>/f"),
            ("/var/tmp/fixture_3829104772/f", "<temp-copy>/f"),
            ("/var/folders/x1/y2/T/run-aBcDeF/f", "<temp-copy>/f"),
            (
                "file:///tmp/mcpcheck-fixture-zz99Yy/a",
                "file://<temp-copy>/a",
            ),
            (
                r#"{"path":"/tmp/mcpcheck-fixture-zz99Yy/a"}"#,
                r#"{"path":"<temp-copy>/a"}"#,
            ),
        ];
        for (text, want) in table {
            assert_eq!(normalize(text), want, "{text}");
        }
    }

    #[test]
    fn ordinary_paths_are_kept() {
        for text in [
            "/tmp/data/a.txt",
            "/tmp/my-backup/a",
            "/tmp/build-2024/a",
            "/tmp/report.tar.gz",
            "/home/me/project-abc123/a",
            "/tmp/mcpcheck-fixture-abcdefg/a",
            "mcpcheck-fixture-abc123 without a path",
        ] {
            assert_eq!(normalize(text), text, "{text}");
        }
    }

    #[test]
    fn two_runs_read_the_same_and_the_first_copy_is_found() {
        let a = "a /tmp/mcpcheck-fixture-aaaaa1/x and /tmp/mcpcheck-fixture-aaaaa1/y";
        let b = "a /tmp/mcpcheck-fixture-BBBBB2/x and /tmp/mcpcheck-fixture-BBBBB2/y";
        assert_eq!(normalize(a), normalize(b));
        assert_eq!(find(b), Some("/tmp/mcpcheck-fixture-BBBBB2"));
        assert_eq!(find("nothing"), None);
        assert!(matches!(normalize("nothing"), Cow::Borrowed(_)));
    }

    #[test]
    fn only_known_copies_and_the_named_ones_are_replaced_for_a_client() {
        let text = "/tmp/mcp-assert-fixture-1/a /tmp/tmpabcd1234/b /tmp/tmpzzzz9999/c";
        assert_eq!(
            replace_known(text, "/live", &["/tmp/tmpabcd1234"]),
            "/live/a /live/b /tmp/tmpzzzz9999/c"
        );
    }
}
