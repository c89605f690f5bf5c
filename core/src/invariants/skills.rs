//! The skills extension (INV-110 … INV-120; `io.modelcontextprotocol/skills`,
//! SEP-2640): what a server that declares it answers, judged per session.
//!
//! Skill entries come from `skills/list` pages and `skills/get` results; each
//! distinct entry is judged once. The bytes of the files come from the
//! session's `resources/read` answers (text as UTF-8, blobs base64-decoded),
//! and every manifest entry whose file was read is held to them: its digest
//! and size must describe those bytes.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::Sink;
use super::json;
use super::rules::Rule;
use super::session::{SessionCtx, has_capability};

/// The extension's identifier.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/skills";
const SKILL_MD: &str = "/SKILL.md";
/// The most entries a skill should have.
const MAX_ENTRIES: usize = 512;
/// The most bytes a skill should have.
const MAX_BYTES: u64 = 16 * 1024 * 1024;
const RESERVED: &str = "io.modelcontextprotocol/";

/// Whether capabilities declare the extension.
pub(crate) fn declares(caps: &Value) -> bool {
    caps.get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// The skill name a SKILL.md URI carries: the path segment before it.
pub(crate) fn name_of(uri: &str) -> Option<&str> {
    let dir = uri.strip_suffix(SKILL_MD)?;
    let name = dir.rsplit('/').next()?;
    (!name.is_empty() && !dir.ends_with("://")).then_some(name)
}

/// Whether a skill name follows the Agent Skills naming rules: 1 to 64
/// lowercase letters, digits and hyphens, without a leading, trailing or
/// doubled hyphen.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in Sha256::digest(bytes) {
        out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    out
}

/// Whether a digest is `sha256:` and 64 lowercase hex digits.
pub(crate) fn digest_format(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Standard base64 (padding optional, whitespace ignored) decoded; `None`
/// when it is not base64.
pub(crate) fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for b in text.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The bytes of one `resources/read` content item: text as UTF-8, a blob
/// decoded.
pub(crate) fn content_bytes(content: &Value) -> Option<Vec<u8>> {
    if let Some(text) = content.get("text").and_then(Value::as_str) {
        return Some(text.as_bytes().to_vec());
    }
    base64(content.get("blob")?.as_str()?)
}

/// The `name` of a SKILL.md's YAML frontmatter, when it has one: the value
/// of the top-level `name:` line between the leading `---` lines.
pub(crate) fn frontmatter_name(text: &str) -> Option<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    for line in lines {
        if line.trim_end() == "---" {
            return None;
        }
        if let Some(value) = line.strip_prefix("name:") {
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(value);
            return Some(value.to_string());
        }
    }
    None
}

/// INV-110 … INV-120 over one session.
pub(crate) fn skills(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    let declared = ctx.server_caps.as_ref().is_some_and(declares);
    if declared
        && let Some(caps) = &ctx.server_caps
        && !has_capability(caps, "resources")
    {
        out.push(
            Rule::SkillsResources,
            None,
            format!("the server declares {EXTENSION} but not the resources capability"),
        );
    }
    let mut reads: HashMap<String, (usize, Vec<u8>)> = HashMap::new();
    let mut judged: HashSet<String> = HashSet::new();
    let mut entries: Vec<(usize, Value)> = Vec::new();
    // The current skills/list walk: the pages so far, by skill URI.
    let mut walk: HashMap<String, usize> = HashMap::new();
    for (index, exchange) in ctx.session.exchanges.iter().enumerate() {
        let request = &exchange.request;
        if !request.is_request() {
            continue;
        }
        let method = request.method_str();
        let at = Some(index);
        let Some(response) = &exchange.response else {
            continue;
        };
        if let Some(error) = response.error() {
            let code = json::member(error, "code").and_then(json::as_f64);
            match method.as_ref() {
                "skills/list" | "skills/get" if declared && code == Some(-32601.0) => {
                    out.push(
                        Rule::SkillsMethods,
                        at,
                        format!("{method} was answered -32601 (method not found), though the server declares {EXTENSION}"),
                    );
                }
                "skills/get" if code.is_some_and(|c| c != -32602.0 && c != -32601.0) => {
                    let uri = request
                        .params()
                        .and_then(|p| json::member(p, "uri"))
                        .and_then(json::as_str)
                        .unwrap_or_default();
                    out.push(
                        Rule::SkillsUnknownUri,
                        at,
                        format!(
                            "skills/get of {uri} was refused with {}, not -32602",
                            json::snippet(json::member(error, "code").unwrap_or("null"), 20)
                        ),
                    );
                }
                _ => {}
            }
            continue;
        }
        let Some(result) = response.result().and_then(json::to_value) else {
            continue;
        };
        match method.as_ref() {
            "resources/read" => {
                for content in result
                    .get("contents")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let (Some(uri), Some(bytes)) = (
                        content.get("uri").and_then(Value::as_str),
                        content_bytes(content),
                    ) {
                        reads.insert(uri.to_string(), (index, bytes));
                    }
                }
            }
            "skills/list" => {
                let continues = request
                    .params()
                    .and_then(|p| json::member(p, "cursor"))
                    .is_some_and(|c| !json::is_null(c));
                if !continues {
                    walk.clear();
                }
                let page: Vec<Value> = result
                    .get("skills")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for entry in page {
                    if let Some(uri) = entry.get("uri").and_then(Value::as_str) {
                        if let Some(first) = walk.get(uri).filter(|first| **first != index) {
                            out.push(
                                Rule::SkillsAtomic,
                                at,
                                format!("the skill {uri} is listed on two pages of one skills/list listing (exchanges {first} and {index})"),
                            );
                        }
                        walk.entry(uri.to_string()).or_insert(index);
                    }
                    entries.push((index, entry));
                }
            }
            "skills/get" => {
                if let Some(skill) = result.get("skill") {
                    entries.push((index, skill.clone()));
                }
            }
            _ => {}
        }
    }
    for (index, entry) in &entries {
        if judged.insert(entry.to_string()) {
            judge_entry(entry, Some(*index), &reads, out);
        }
    }
}

/// What is wrong with one skill entry on its own (no file read): each
/// finding's rule and message, for lint.
pub(crate) fn entry_problems(entry: &Value) -> Vec<(&'static str, String)> {
    let mut sink = Sink::new();
    judge_entry(entry, None, &HashMap::new(), &mut sink);
    sink.into_findings()
        .into_iter()
        .map(|f| (f.code(), f.message))
        .collect()
}

/// Every rule on one skill entry; `reads` are the files the session read.
fn judge_entry(
    entry: &Value,
    at: Option<usize>,
    reads: &HashMap<String, (usize, Vec<u8>)>,
    out: &mut Sink,
) {
    let Some(uri) = entry.get("uri").and_then(Value::as_str) else {
        out.push(
            Rule::SkillsManifest,
            at,
            "a skill entry has no uri".to_string(),
        );
        return;
    };
    let mut missing: Vec<&str> = Vec::new();
    let frontmatter = entry.get("frontmatter").filter(|f| f.is_object());
    let name = frontmatter
        .and_then(|f| f.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty());
    if frontmatter.is_none() {
        missing.push("frontmatter");
    } else {
        if name.is_none() {
            missing.push("frontmatter.name");
        }
        if frontmatter
            .and_then(|f| f.get("description"))
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            missing.push("frontmatter.description");
        }
    }
    match (name_of(uri), name) {
        (None, _) => out.push(
            Rule::SkillsName,
            at,
            format!("the skill URI {uri} does not end in /NAME/SKILL.md"),
        ),
        (Some(segment), Some(name)) if segment != name => out.push(
            Rule::SkillsName,
            at,
            format!("the skill at {uri} is named {name} in its frontmatter, not {segment}"),
        ),
        (Some(segment), _) if !valid_name(segment) => out.push(
            Rule::SkillsName,
            at,
            format!("the skill name {segment} (in {uri}) breaks the naming rules: 1-64 lowercase letters, digits and single inner hyphens"),
        ),
        _ => {}
    }
    if let Some((read_at, bytes)) = reads.get(uri)
        && let Some(read_name) = frontmatter_name(&String::from_utf8_lossy(bytes))
        && name_of(uri).is_some_and(|segment| segment != read_name)
    {
        out.push(
            Rule::SkillsName,
            Some(*read_at),
            format!("the SKILL.md read at {uri} names the skill {read_name} in its frontmatter"),
        );
    }
    if let Some(metadata) = frontmatter
        .and_then(|f| f.get("metadata"))
        .and_then(Value::as_object)
    {
        for key in metadata.keys().filter(|k| k.starts_with(RESERVED)) {
            out.push(
                Rule::SkillsReservedPrefix,
                at,
                format!("the frontmatter metadata of {uri} has the key {key}, under the reserved {RESERVED} prefix"),
            );
        }
    }
    let resources = match entry.get("resources") {
        Some(Value::String(s)) if s == "dynamic" => None,
        Some(Value::Array(items)) => Some(items),
        _ => {
            missing.push("resources (an array or \"dynamic\")");
            None
        }
    };
    if !missing.is_empty() {
        out.push(
            Rule::SkillsManifest,
            at,
            format!("the skill entry {uri} lacks {}", missing.join(", ")),
        );
    }
    let Some(resources) = resources else {
        return;
    };
    manifest(uri, resources, at, reads, out);
}

/// The rules on one manifest (`resources` as an array).
fn manifest(
    uri: &str,
    resources: &[Value],
    at: Option<usize>,
    reads: &HashMap<String, (usize, Vec<u8>)>,
    out: &mut Sink,
) {
    let root = uri.strip_suffix("SKILL.md").unwrap_or(uri);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut total: u64 = 0;
    let mut incomplete: Vec<String> = Vec::new();
    for item in resources {
        let Some(file) = item.get("uri").and_then(Value::as_str) else {
            incomplete.push("an entry without a uri".to_string());
            continue;
        };
        if !seen.insert(file) {
            incomplete.push(format!("{file} twice"));
        }
        let inside = file == uri
            || (file.starts_with(root)
                && !file[root.len()..].is_empty()
                && !file[root.len()..]
                    .split('/')
                    .any(|s| s == ".." || s == "." || s.is_empty()));
        if !inside {
            out.push(
                Rule::SkillsRoot,
                at,
                format!("the manifest of {uri} names {file}, outside the skill's directory {root}"),
            );
        }
        let digest_given = item.get("digest").and_then(Value::as_str);
        match digest_given {
            Some(d) if digest_format(d) => {}
            _ => out.push(
                Rule::SkillsDigest,
                at,
                format!("the manifest of {uri} gives {file} the digest {}, not sha256: and 64 lowercase hex digits", json::snippet(&item.get("digest").map_or("none".to_string(), Value::to_string), 40)),
            ),
        }
        let size = item.get("size").and_then(Value::as_u64);
        if size.is_none() {
            out.push(
                Rule::SkillsSize,
                at,
                format!(
                    "the manifest of {uri} gives {file} the size {}, not a non-negative integer",
                    json::snippet(
                        &item
                            .get("size")
                            .map_or("none".to_string(), Value::to_string),
                        40
                    )
                ),
            );
        }
        total = total.saturating_add(size.unwrap_or(0));
        let Some((read_at, bytes)) = reads.get(file) else {
            continue;
        };
        if let Some(d) = digest_given.filter(|d| digest_format(d)) {
            let actual = digest(bytes);
            if actual != d {
                out.push(
                    Rule::SkillsDigest,
                    Some(*read_at),
                    format!(
                        "{file} as read has the digest {actual}; the manifest of {uri} says {d}"
                    ),
                );
            }
        }
        if let Some(size) = size
            && size != bytes.len() as u64
        {
            out.push(
                Rule::SkillsSize,
                Some(*read_at),
                format!(
                    "{file} as read is {} bytes; the manifest of {uri} says {size}",
                    bytes.len()
                ),
            );
        }
    }
    if !seen.contains(uri) {
        incomplete.insert(0, "no entry for the SKILL.md itself".to_string());
    }
    if !incomplete.is_empty() {
        out.push(
            Rule::SkillsManifest,
            at,
            format!(
                "the manifest of {uri} is not complete: {}",
                incomplete.join("; ")
            ),
        );
    }
    if resources.len() > MAX_ENTRIES {
        out.push(
            Rule::SkillsLimits,
            at,
            format!(
                "the skill {uri} has {} manifest entries, more than {MAX_ENTRIES}",
                resources.len()
            ),
        );
    }
    if total > MAX_BYTES {
        out.push(
            Rule::SkillsLimits,
            at,
            format!("the skill {uri} has {total} bytes of files, more than {MAX_BYTES} (16 MiB)"),
        );
    }
}

/// Whether the session asked any skills method, for the rules it exercised.
pub(crate) fn exercised(ctx: &SessionCtx<'_, '_>, rules: &mut Vec<Rule>) {
    let declared = ctx.server_caps.as_ref().is_some_and(declares);
    let asked = |m: &str| {
        ctx.session.exchanges.iter().any(|e| {
            e.request.method_is(m) && e.response.as_ref().is_some_and(|r| r.result().is_some())
        })
    };
    let listed = asked("skills/list");
    let got = asked("skills/get");
    if declared {
        rules.push(Rule::SkillsResources);
    }
    if declared && (listed || got) {
        rules.push(Rule::SkillsMethods);
    }
    if listed {
        rules.push(Rule::SkillsAtomic);
    }
    if listed || got {
        rules.extend([
            Rule::SkillsManifest,
            Rule::SkillsDigest,
            Rule::SkillsSize,
            Rule::SkillsRoot,
            Rule::SkillsLimits,
            Rule::SkillsName,
            Rule::SkillsReservedPrefix,
        ]);
    }
    if ctx.session.exchanges.iter().any(|e| {
        e.request.method_is("skills/get")
            && e.response.as_ref().is_some_and(|r| r.error().is_some())
    }) {
        rules.push(Rule::SkillsUnknownUri);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_digests() {
        assert_eq!(
            name_of("skill://a/b/code-review/SKILL.md"),
            Some("code-review")
        );
        assert_eq!(name_of("skill://SKILL.md"), None);
        assert_eq!(name_of("skill://a/README.md"), None);
        assert!(valid_name("code-review"));
        assert!(!valid_name("Code"));
        assert!(!valid_name("a--b"));
        assert!(!valid_name("-a"));
        assert!(!valid_name(""));
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(digest_format(&digest(b"")));
        assert!(!digest_format("sha256:ABC"));
        assert_eq!(base64("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert!(base64("a*b").is_none());
        assert_eq!(
            frontmatter_name("---\nname: \"x-y\"\ndescription: d\n---\nbody").as_deref(),
            Some("x-y")
        );
        assert_eq!(frontmatter_name("# no frontmatter"), None);
    }
}
