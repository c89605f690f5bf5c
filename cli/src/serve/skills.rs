//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): two
//! skills under `skill://mcpcheck/`, each a directory of files served as
//! resources, with `skills/list` and `skills/get` giving their manifests
//! (`{uri, digest, size}` per file) and `resources/directory/read` their
//! directories (the `directoryRead` setting).
//!
//! The catalogue is a pure function of the faults in force: the same bytes,
//! digests and listings on every run. The faults that break a manifest
//! change it here, so both eras serve the same broken manifest (the
//! handshake era through rmcp, which refuses to send a manifest whose
//! structure is wrong, answering -32603 instead; docs/extensions.md).

use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::faults::{Fault, FaultSet};

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The MIME type of a directory resource.
pub const DIRECTORY_MIME: &str = "inode/directory";
const MARKDOWN: &str = "text/markdown";
const SCHEME: &str = "skill://";
/// The authority every skill of this server sits under.
const ROOT: &str = "skill://mcpcheck";
/// The most entries `skills/get` or a listing promises per skill (SEP-2640).
pub const MAX_ENTRIES: usize = 512;

const CODE_REVIEW: &str = "---
name: NAME
description: Reviews a code change for correctness, tests and readability, and drafts the review comments.
metadata:
  author: mcpcheck
  version: \"1.0\"RESERVED
---

# Code review

1. Read the change and the tests that come with it.
2. Go through references/checklist.md, item by item.
3. Draft each comment with templates/comment.md: what, where, why.

Keep each comment about the code, not about its author.
";

const CHECKLIST: &str = "# Review checklist

- Does the change do what its description says?
- Is every new branch covered by a test?
- Does each error say what went wrong and what to do about it?
- Would a reader understand each new name without the diff?
";

const COMMENT: &str = "**What:** the problem, in one sentence.
**Where:** the file and line.
**Why:** the reason it matters, and what to do instead.
";

const RELEASE_NOTES: &str = "---
name: release-notes
description: Writes release notes from a list of merged changes, grouped by what users notice.
---

# Release notes

Group the changes under Added, Changed and Fixed. Write each as one
sentence a user understands; examples/entry.md shows one.
";

const ENTRY: &str = "- Fixed: a long listing no longer stops after its first page.\n";

/// `sha256:` and the lowercase hex digest of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// One file of a skill.
#[derive(Debug, Clone)]
struct File {
    uri: String,
    bytes: Vec<u8>,
}

/// One skill: its files (SKILL.md first), frontmatter and manifest.
#[derive(Debug, Clone)]
struct Skill {
    uri: String,
    frontmatter: Value,
    files: Vec<File>,
    /// The `resources` of its entry, as served (faults included).
    manifest: Vec<Value>,
}

/// What the server serves of the extension.
#[derive(Debug, Clone)]
pub struct Catalogue {
    skills: Vec<Skill>,
    split_pages: bool,
    unknown_code: i64,
    no_get: bool,
}

fn file(skill: &str, path: &str, text: &str) -> File {
    File {
        uri: format!("{ROOT}/{skill}/{path}"),
        bytes: text.as_bytes().to_vec(),
    }
}

fn manifest_of(files: &[File]) -> Vec<Value> {
    files
        .iter()
        .map(|f| json!({ "uri": f.uri, "digest": digest(&f.bytes), "size": f.bytes.len() }))
        .collect()
}

/// The `bulk-data` skill of the `skills-oversized` fault: 512 data files of
/// 32,769 bytes beside its SKILL.md, 513 entries and just over 16 MiB.
/// Built once: hashing 16 MiB is not done on every request.
fn bulk() -> &'static Skill {
    static BULK: OnceLock<Skill> = OnceLock::new();
    BULK.get_or_init(|| {
        let text = "---\nname: bulk-data\ndescription: A skill with more files and bytes than a skill should have.\n---\n\n# Bulk data\n\nThe data files are filler.\n";
        let mut files = vec![file("bulk-data", "SKILL.md", text)];
        for i in 0..MAX_ENTRIES {
            let byte = b'a' + (i % 26) as u8;
            files.push(File {
                uri: format!("{ROOT}/bulk-data/data/part-{i:03}.txt"),
                bytes: vec![byte; 32_769],
            });
        }
        Skill {
            uri: format!("{ROOT}/bulk-data/SKILL.md"),
            frontmatter: json!({
                "name": "bulk-data",
                "description": "A skill with more files and bytes than a skill should have.",
            }),
            manifest: manifest_of(&files),
            files,
        }
    })
}

impl Catalogue {
    pub fn new(faults: &FaultSet) -> Self {
        let name = if faults.has(Fault::SkillsNameMismatch) {
            "code-reviewer"
        } else {
            "code-review"
        };
        let reserved = faults.has(Fault::SkillsReservedMetadata);
        let text = CODE_REVIEW.replace("NAME", name).replace(
            "RESERVED",
            if reserved {
                "\n  io.modelcontextprotocol/priority: high"
            } else {
                ""
            },
        );
        let mut metadata = json!({ "author": "mcpcheck", "version": "1.0" });
        if reserved {
            metadata["io.modelcontextprotocol/priority"] = json!("high");
        }
        let files = vec![
            file("code-review", "SKILL.md", &text),
            file("code-review", "references/checklist.md", CHECKLIST),
            file("code-review", "templates/comment.md", COMMENT),
        ];
        let mut manifest = manifest_of(&files);
        if faults.has(Fault::SkillsWrongDigest) {
            manifest[1]["digest"] = json!(digest(b"a checklist that was never served"));
        }
        if faults.has(Fault::SkillsWrongSize) {
            manifest[1]["size"] = json!(CHECKLIST.len() + 1);
        }
        if faults.has(Fault::SkillsOutsideRoot) {
            manifest.push(json!({
                "uri": format!("{ROOT}/shared/style.md"),
                "digest": digest(b"shared style"),
                "size": 12,
            }));
        }
        if faults.has(Fault::SkillsIncompleteManifest) {
            manifest.remove(0);
        }
        let code_review = Skill {
            uri: format!("{ROOT}/code-review/SKILL.md"),
            frontmatter: json!({
                "name": name,
                "description": "Reviews a code change for correctness, tests and readability, and drafts the review comments.",
                "metadata": metadata,
            }),
            manifest,
            files,
        };
        let files = vec![
            file("release-notes", "SKILL.md", RELEASE_NOTES),
            file("release-notes", "examples/entry.md", ENTRY),
        ];
        let release_notes = Skill {
            uri: format!("{ROOT}/release-notes/SKILL.md"),
            frontmatter: json!({
                "name": "release-notes",
                "description": "Writes release notes from a list of merged changes, grouped by what users notice.",
            }),
            manifest: manifest_of(&files),
            files,
        };
        let mut skills = vec![code_review, release_notes];
        if faults.has(Fault::SkillsOversized) {
            skills.push(bulk().clone());
        }
        Self {
            skills,
            split_pages: faults.has(Fault::SkillsSplitEntry),
            unknown_code: if faults.has(Fault::SkillsUnknownUri) {
                -32002
            } else {
                super::modern::INVALID_PARAMS
            },
            no_get: faults.has(Fault::SkillsNoGet),
        }
    }

    fn entry(skill: &Skill) -> Value {
        json!({
            "uri": skill.uri,
            "frontmatter": skill.frontmatter,
            "resources": skill.manifest,
        })
    }

    /// One page of `skills/list` (without `resultType` and cache hints).
    /// Cursors are the index of the page's first skill.
    pub fn list(
        &self,
        cursor: Option<&str>,
        page_size: Option<usize>,
    ) -> Result<Value, SkillsRefusal> {
        // The split-entry fault needs pages to split across.
        let page_size = page_size.or(self.split_pages.then_some(1));
        let entries: Vec<Value> = self.skills.iter().map(Self::entry).collect();
        let start = match cursor {
            None => 0,
            Some(c) => match c.parse::<usize>() {
                Ok(start) if start <= entries.len() && page_size.is_some() => start,
                _ => return Err(SkillsRefusal::Cursor(c.to_owned())),
            },
        };
        let (from, to) = match page_size {
            None => (0, entries.len()),
            Some(size) => (start, start.saturating_add(size.max(1)).min(entries.len())),
        };
        // Each page repeats the last entry of the page before it.
        let from = if self.split_pages {
            from.saturating_sub(1)
        } else {
            from
        };
        let mut result = json!({ "skills": entries[from..to].to_vec() });
        if to < entries.len() {
            result["nextCursor"] = json!(to.to_string());
        }
        Ok(result)
    }

    /// `skills/get` (without `resultType` and cache hints), or the error:
    /// code and message.
    pub fn get(&self, uri: &str) -> Result<Value, (i64, String)> {
        if self.no_get {
            return Err((
                super::modern::METHOD_NOT_FOUND,
                "skills/get is not served (the skills-no-get fault)".to_owned(),
            ));
        }
        match self.skills.iter().find(|s| s.uri == uri) {
            Some(skill) => Ok(json!({ "skill": Self::entry(skill) })),
            None => Err((
                self.unknown_code,
                format!("no skill at `{uri}`: skills/list names the skills served"),
            )),
        }
    }

    fn files(&self) -> impl Iterator<Item = (&Skill, &File)> {
        self.skills
            .iter()
            .flat_map(|s| s.files.iter().map(move |f| (s, f)))
    }

    /// Each SKILL.md, as `resources/list` shows it.
    pub fn resources(&self) -> Vec<Value> {
        self.skills
            .iter()
            .map(|s| {
                json!({
                    "uri": s.uri,
                    "name": s.frontmatter["name"],
                    "description": s.frontmatter["description"],
                    "mimeType": MARKDOWN,
                    "size": s.files[0].bytes.len(),
                })
            })
            .collect()
    }

    /// Whether `uri` is a file of a skill.
    pub fn has(&self, uri: &str) -> bool {
        self.files().any(|(_, f)| f.uri == uri)
    }

    /// The contents of a skill file, as `resources/read` gives them.
    pub fn read(&self, uri: &str) -> Option<Value> {
        let (_, file) = self.files().find(|(_, f)| f.uri == uri)?;
        let mime = if uri.ends_with(".md") {
            MARKDOWN
        } else {
            "text/plain"
        };
        Some(json!({
            "uri": uri,
            "mimeType": mime,
            "text": String::from_utf8_lossy(&file.bytes),
        }))
    }

    /// The directories under the skills: every ancestor of a file, below
    /// the scheme.
    fn directories(&self) -> Vec<String> {
        let mut dirs: Vec<String> = Vec::new();
        for (_, file) in self.files() {
            let mut at = file.uri.as_str();
            while let Some((parent, _)) = at.rsplit_once('/') {
                if parent.len() <= SCHEME.len() {
                    break;
                }
                if !dirs.iter().any(|d| d == parent) {
                    dirs.push(parent.to_owned());
                }
                at = parent;
            }
        }
        dirs.sort();
        dirs
    }

    /// `resources/directory/read`: one page of the direct children of a
    /// directory, or why not (a -32602 message).
    pub fn directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
        page_size: Option<usize>,
    ) -> Result<Value, SkillsRefusal> {
        let uri = uri.trim_end_matches('/');
        let dirs = self.directories();
        if !dirs.iter().any(|d| d == uri) {
            return Err(if self.has(uri) {
                SkillsRefusal::NotADirectory(uri.to_owned())
            } else {
                SkillsRefusal::NoDirectory(uri.to_owned())
            });
        }
        let parent_of = |u: &str| u.rsplit_once('/').map(|(p, _)| p.to_owned());
        let name_of = |u: &str| u.rsplit('/').next().unwrap_or(u).to_owned();
        let mut children: Vec<Value> = dirs
            .iter()
            .filter(|d| parent_of(d).as_deref() == Some(uri))
            .map(|d| json!({ "uri": d, "name": name_of(d), "mimeType": DIRECTORY_MIME }))
            .collect();
        for (_, file) in self.files() {
            if parent_of(&file.uri).as_deref() == Some(uri) {
                let mime = if file.uri.ends_with(".md") {
                    MARKDOWN
                } else {
                    "text/plain"
                };
                children.push(json!({
                    "uri": file.uri,
                    "name": name_of(&file.uri),
                    "mimeType": mime,
                    "size": file.bytes.len(),
                }));
            }
        }
        let (page, next) =
            super::catalog::paginate(children, cursor, page_size).map_err(SkillsRefusal::Paging)?;
        let mut result = json!({ "resources": page });
        if let Some(next) = next {
            result["nextCursor"] = json!(next);
        }
        Ok(result)
    }
}

/// Why a `skills/list` or `resources/directory/read` is refused (-32602),
/// in the words the client reads.
#[derive(Debug, thiserror::Error)]
pub enum SkillsRefusal {
    #[error("invalid cursor `{0}`")]
    Cursor(String),
    #[error("`{0}` is a file, not a directory: read it with resources/read")]
    NotADirectory(String),
    #[error("no directory `{0}`")]
    NoDirectory(String),
    /// The paging's own refusal, in its words.
    #[error(transparent)]
    Paging(#[from] super::catalog::InvalidCursor),
}

/// An answer of the catalogue that rmcp's type does not take (an internal
/// error: the catalogue builds every answer itself).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the answer: {0}")]
pub struct UntypedAnswer(#[from] serde_json::Error);

/// One of the catalogue's answers in rmcp's type, for the handshake era.
pub fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, UntypedAnswer> {
    Ok(serde_json::from_value(value)?)
}

/// The settings object of the extension for rmcp's capabilities.
pub fn settings() -> Map<String, Value> {
    let mut settings = Map::new();
    settings.insert("directoryRead".into(), json!(true));
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogue(faults: &[Fault]) -> Catalogue {
        Catalogue::new(&FaultSet::new(faults.iter().copied()))
    }

    #[test]
    fn every_manifest_entry_matches_the_bytes_served() {
        let catalogue = catalogue(&[]);
        let listed = catalogue.list(None, None).expect("a listing");
        for entry in listed["skills"].as_array().expect("skills") {
            let resources = entry["resources"].as_array().expect("a manifest");
            assert!(resources.iter().any(|r| r["uri"] == entry["uri"]));
            for resource in resources {
                let uri = resource["uri"].as_str().expect("a uri");
                let read = catalogue.read(uri).expect("readable");
                let bytes = read["text"].as_str().expect("text").as_bytes();
                assert_eq!(resource["digest"], digest(bytes), "{uri}");
                assert_eq!(resource["size"], bytes.len(), "{uri}");
            }
            let name = entry["frontmatter"]["name"].as_str().expect("a name");
            assert!(
                entry["uri"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(&format!("/{name}/SKILL.md")))
            );
        }
    }

    #[test]
    fn the_frontmatter_is_the_files() {
        let catalogue = catalogue(&[Fault::SkillsReservedMetadata]);
        let text = catalogue
            .read("skill://mcpcheck/code-review/SKILL.md")
            .expect("readable");
        let text = text["text"].as_str().expect("text");
        assert!(text.contains("io.modelcontextprotocol/priority: high"));
        let entry = catalogue
            .get("skill://mcpcheck/code-review/SKILL.md")
            .expect("known");
        assert_eq!(
            entry["skill"]["frontmatter"]["metadata"]["io.modelcontextprotocol/priority"],
            "high"
        );
    }

    #[test]
    fn directories_list_their_children() {
        let catalogue = catalogue(&[]);
        let dir = catalogue
            .directory("skill://mcpcheck/code-review", None, None)
            .expect("a directory");
        let kinds: Vec<(&str, &str)> = dir["resources"]
            .as_array()
            .expect("children")
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap_or(""),
                    r["mimeType"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            kinds,
            [
                ("references", DIRECTORY_MIME),
                ("templates", DIRECTORY_MIME),
                ("SKILL.md", MARKDOWN)
            ]
        );
        assert!(
            catalogue
                .directory("skill://mcpcheck/code-review/SKILL.md", None, None)
                .is_err()
        );
        assert!(catalogue.directory("skill://nowhere", None, None).is_err());
    }

    #[test]
    fn pages_and_the_split_fault() {
        let catalogue = catalogue(&[]);
        let first = catalogue.list(None, Some(1)).expect("a page");
        assert_eq!(first["nextCursor"], "1");
        let second = catalogue.list(Some("1"), Some(1)).expect("a page");
        assert_eq!(second["skills"].as_array().map(Vec::len), Some(1));
        assert_ne!(first["skills"][0]["uri"], second["skills"][0]["uri"]);
        let split = self::catalogue(&[Fault::SkillsSplitEntry]);
        let second = split.list(Some("1"), None).expect("a page");
        assert_eq!(second["skills"].as_array().map(Vec::len), Some(2));
        assert!(catalogue.list(Some("x"), Some(1)).is_err());
    }

    #[test]
    fn unknown_uris_are_invalid_params() {
        let catalogue = catalogue(&[]);
        let (code, _) = catalogue
            .get("skill://mcpcheck/none/SKILL.md")
            .expect_err("unknown");
        assert_eq!(code, -32602);
        let (code, _) = self::catalogue(&[Fault::SkillsUnknownUri])
            .get("skill://mcpcheck/none/SKILL.md")
            .expect_err("unknown");
        assert_eq!(code, -32002);
    }

    #[test]
    fn the_oversized_fault_crosses_both_limits() {
        let catalogue = catalogue(&[Fault::SkillsOversized]);
        let listed = catalogue.list(None, None).expect("a listing");
        let bulk = &listed["skills"][2]["resources"];
        let entries = bulk.as_array().expect("a manifest");
        assert!(entries.len() > MAX_ENTRIES);
        let total: u64 = entries.iter().filter_map(|e| e["size"].as_u64()).sum();
        assert!(total > 16 * 1024 * 1024);
    }
}
