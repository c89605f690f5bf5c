//! Reading what the extensions bring, for `scan`, `lint`, `audit` and
//! `doctor` (docs/extensions.md): the skills of a live server (SEP-2640:
//! `skills/list`, then each skill's files through `resources/read`), the
//! views its tools name (SEP-1865: `ui://` resources), and skills kept as
//! folders (`scan --skill`). Every read is bounded; what could not be read
//! is said, never taken as nothing to judge.

use std::path::{Path, PathBuf};

use mcpcheck_core::invariants::apps;
use mcpcheck_core::probe::{self, Arguments, AuditResult, ClassifyCx, ItemKind, Request};
use serde_json::{Value, json};

use crate::client::listing::Listings;
use crate::files::{Why, read_bounded};
use crate::probe::Prober;

/// The most skills read from one server.
const MAX_SKILLS: usize = 50;
/// The most files read of one skill.
const MAX_FILES: usize = 64;
/// The largest file read (a skill file, a folder's file, an app's HTML).
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The most views read from one server.
const MAX_VIEWS: usize = 20;
/// How deep `--skill DIR` is searched for SKILL.md files.
const MAX_DEPTH: usize = 8;
/// The most files `--skill DIR` reads in all.
const MAX_FOLDER_FILES: usize = 4_096;
/// The most pages of `skills/list` followed.
const MAX_PAGES: usize = 50;
/// The Skills extension's identifier.
const SKILLS: &str = "io.modelcontextprotocol/skills";

/// What a server serves of the extensions.
#[derive(Debug, Default)]
pub struct Surface {
    /// The skill entries of `skills/list` (with `skills/get`'s where it
    /// answered), as served.
    pub skills: Vec<Value>,
    /// Each skill file read: (URI, text).
    pub files: Vec<(String, String)>,
    /// Each `ui://` view read: (URI, HTML).
    pub views: Vec<(String, String)>,
    /// What could not be read, in words.
    pub notes: Vec<String>,
}

/// The text of a `resources/read` answer: its first text content, or its
/// first blob decoded as UTF-8; `None` without either.
fn read_text(response: &Value) -> Option<String> {
    let contents = response.pointer("/result/contents")?.as_array()?;
    contents.iter().find_map(|c| {
        if let Some(text) = c.get("text").and_then(Value::as_str) {
            return Some(text.to_string());
        }
        use base64::Engine as _;
        let blob = c.get("blob")?.as_str()?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .ok()?;
        String::from_utf8(bytes).ok()
    })
}

/// Reads what the server of `prober` serves of the extensions: its skills
/// (when it declares Skills: each entry as `skills/get` gives it, and its
/// files) and the `ui://` views its tools name or it lists.
pub async fn read_server(prober: &mut Prober, listings: &Listings) -> Surface {
    let mut surface = Surface {
        skills: lint_skills(prober).await,
        ..Surface::default()
    };
    for entry in &surface.skills {
        let Some(uri) = entry.get("uri").and_then(Value::as_str) else {
            continue;
        };
        let mut wanted = vec![uri.to_string()];
        for file in entry
            .get("resources")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(file_uri) = file.get("uri").and_then(Value::as_str) else {
                continue;
            };
            let small = file
                .get("size")
                .and_then(Value::as_u64)
                .is_none_or(|s| s <= MAX_FILE_BYTES);
            if small && !wanted.iter().any(|w| w == file_uri) {
                wanted.push(file_uri.to_string());
            }
        }
        for file_uri in wanted.into_iter().take(MAX_FILES) {
            let observed = prober
                .call("resources/read", json!({"uri": file_uri}))
                .await;
            match observed.response.as_ref().and_then(read_text) {
                Some(text) => surface.files.push((file_uri, text)),
                None => surface.notes.push(format!(
                    "the skill file {file_uri} could not be read as text"
                )),
            }
        }
    }
    let listed = listings
        .resources
        .iter()
        .filter_map(|r| r.get("uri").and_then(Value::as_str));
    for uri in views(listings, listed) {
        let observed = prober.call("resources/read", json!({"uri": uri})).await;
        match observed.response.as_ref().and_then(read_text) {
            Some(html) => surface.views.push((uri, html)),
            None => surface
                .notes
                .push(format!("the app view {uri} could not be read")),
        }
    }
    surface
}

/// The skill entries of `skills/list`, through its pages (at most
/// [`MAX_SKILLS`]); none when the server answers it with an error.
async fn list_skills(prober: &mut Prober) -> Vec<Value> {
    let mut skills = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let observed = prober.call("skills/list", params).await;
        let Some(result) = observed.response.as_ref().and_then(|r| r.get("result")) else {
            break;
        };
        let page = result.get("skills").and_then(Value::as_array);
        skills.extend(page.into_iter().flatten().cloned());
        cursor = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_string);
        if cursor.is_none() || skills.len() >= MAX_SKILLS {
            break;
        }
    }
    skills.truncate(MAX_SKILLS);
    skills
}

/// Each skill entry replaced by `skills/get`'s, where it answered one.
async fn fetch_each(prober: &mut Prober, skills: &mut [Value]) {
    for entry in skills {
        let Some(uri) = entry.get("uri").and_then(Value::as_str) else {
            continue;
        };
        let observed = prober.call("skills/get", json!({"uri": uri})).await;
        if let Some(skill) = observed
            .response
            .as_ref()
            .and_then(|r| r.pointer("/result/skill"))
        {
            *entry = skill.clone();
        }
    }
}

/// Whether the server of `prober` declares the Skills extension.
fn declares_skills(prober: &Prober) -> bool {
    prober
        .capabilities()
        .get("extensions")
        .and_then(|e| e.get(SKILLS))
        .is_some_and(|v| !v.is_null())
}

/// The skills `lint` judges: when the server declares Skills, each entry
/// of `skills/list` as `skills/get` gives it (with its manifest); none
/// otherwise.
pub async fn lint_skills(prober: &mut Prober) -> Vec<Value> {
    if !declares_skills(prober) {
        return Vec::new();
    }
    let mut skills = list_skills(prober).await;
    fetch_each(prober, &mut skills).await;
    skills
}

/// The `ui://` views the tools of `listings` name, and those of `also`,
/// sorted, once each, at most [`MAX_VIEWS`].
fn views<'a>(listings: &'a Listings, also: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut views: Vec<String> = listings
        .tools
        .iter()
        .filter_map(apps::resource_uri)
        .chain(also)
        .filter(|uri| uri.starts_with("ui://"))
        .map(str::to_string)
        .collect();
    views.sort();
    views.dedup();
    views.truncate(MAX_VIEWS);
    views
}

/// `audit`'s calls for the extensions: `skills/get` of each skill the
/// server lists (when it declares Skills), and a `resources/read` of each
/// `ui://` view its tools name that `resources/list` did not list (the
/// listed ones were read with the other resources). Each is classified
/// like any other call, as a resource.
pub async fn audit_calls(prober: &mut Prober, listings: &Listings, results: &mut Vec<AuditResult>) {
    let skills = if declares_skills(prober) {
        list_skills(prober).await
    } else {
        Vec::new()
    };
    let timeout_ms = Some(prober.timeout_ms());
    let mut calls: Vec<(Request, String)> = skills
        .iter()
        .filter_map(|s| s.get("uri").and_then(Value::as_str))
        .map(|uri| (Request::SkillsGet, uri.to_string()))
        .collect();
    calls.extend(
        views(listings, std::iter::empty())
            .into_iter()
            .filter(|uri| !listings.resources.iter().any(|r| r["uri"] == uri.as_str()))
            .map(|uri| (Request::ResourcesRead, uri)),
    );
    for (request, uri) in calls {
        let observed = prober.call(request.as_str(), json!({"uri": uri})).await;
        let cx = ClassifyCx {
            timeout_ms,
            ..ClassifyCx::new(request)
        };
        let outcome = probe::classify(&observed, &cx);
        results.push(AuditResult::from_call(
            ItemKind::Resource,
            &uri,
            &Arguments::Omitted,
            &outcome,
            &observed,
        ));
    }
}

/// Why `--skill PATH` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SkillFolderError {
    /// The file system said no.
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file given on its own that is no text mcpcheck reads.
    #[error("{}: not UTF-8 text, or larger than {MAX_FILE_BYTES} bytes", .0.display())]
    NotText(PathBuf),
    #[error("{}: no SKILL.md in this folder or below it (a skill is a folder with a SKILL.md)", .0.display())]
    NoSkill(PathBuf),
    #[error("{}: more than {MAX_FOLDER_FILES} files; give a smaller folder", .0.display())]
    TooMany(PathBuf),
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> SkillFolderError + '_ {
    move |source| SkillFolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The files of the skills at `path`: a file is itself (a SKILL.md, or any
/// file of a skill); a folder gives every skill under it (a folder with a
/// SKILL.md), each with its SKILL.md and the text files beside and below it.
/// Files are named as given on the command line, joined with their path.
pub fn read_folder(path: &Path) -> Result<Vec<(String, String)>, SkillFolderError> {
    let meta = std::fs::metadata(path).map_err(io_at(path))?;
    if meta.is_file() {
        let text = read_one(path)?.ok_or_else(|| SkillFolderError::NotText(path.to_path_buf()))?;
        return Ok(vec![(path.display().to_string(), text)]);
    }
    let mut skills = Vec::new();
    find_skills(path, 0, &mut skills)?;
    if skills.is_empty() {
        return Err(SkillFolderError::NoSkill(path.to_path_buf()));
    }
    skills.sort();
    let mut out = Vec::new();
    for skill in skills {
        let mut files = Vec::new();
        collect_files(&skill, 0, &mut files)?;
        files.sort_by_key(|f| (f.file_name().is_none_or(|n| n != "SKILL.md"), f.clone()));
        for file in files {
            if out.len() >= MAX_FOLDER_FILES {
                return Err(SkillFolderError::TooMany(path.to_path_buf()));
            }
            // Binary files (images, archives) are no text for a model.
            if let Some(text) = read_one(&file)? {
                out.push((file.display().to_string(), text));
            }
        }
    }
    Ok(out)
}

/// A file as text: `None` when it is not UTF-8 or too large.
fn read_one(path: &Path) -> Result<Option<String>, SkillFolderError> {
    match read_bounded(path, MAX_FILE_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(Why::Io(e)) => Err(io_at(path)(e)),
        Err(_) => Ok(None),
    }
}

/// The folders under `dir` (itself included) that hold a SKILL.md.
fn find_skills(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), SkillFolderError> {
    if dir.join("SKILL.md").is_file() {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    if depth >= MAX_DEPTH {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).map_err(io_at(dir))? {
        let entry = entry.map_err(io_at(dir))?;
        // Symbolic links are not followed: a loop would never end.
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            find_skills(&entry.path(), depth + 1, out)?;
        }
    }
    Ok(())
}

/// The regular files of a skill folder, below it too.
fn collect_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), SkillFolderError> {
    if depth > MAX_DEPTH || out.len() > MAX_FOLDER_FILES {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir).map_err(io_at(dir))? {
        let entry = entry.map_err(io_at(dir))?;
        let kind = entry.file_type().map_err(io_at(&entry.path()))?;
        if kind.is_dir() {
            collect_files(&entry.path(), depth + 1, out)?;
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gives_each_skill_with_its_files() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path();
        std::fs::create_dir_all(root.join("skills/review/references")).expect("folders");
        std::fs::write(
            root.join("skills/review/SKILL.md"),
            "---\nname: review\n---\n",
        )
        .expect("w");
        std::fs::write(root.join("skills/review/references/list.md"), "- one\n").expect("w");
        std::fs::write(root.join("skills/review/logo.png"), [0xff, 0xfe, 0x00]).expect("w");
        std::fs::write(root.join("README.md"), "not a skill\n").expect("w");
        let files = read_folder(root).expect("skills");
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names[0].ends_with("skills/review/SKILL.md"), "{names:?}");
        assert!(names[1].ends_with("references/list.md"), "{names:?}");
        let empty = tempfile::tempdir().expect("a temporary folder");
        assert!(
            read_folder(empty.path())
                .expect_err("no skill")
                .to_string()
                .contains("no SKILL.md")
        );
        let one = read_folder(&root.join("skills/review/SKILL.md")).expect("a file");
        assert_eq!(one.len(), 1);
    }
}
