//! S201, S202 (look-alike names), S901, S902 (names across servers), and the index
//! of every server's tool names that S401 looks references up in.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::rules::Rule;
use super::{Sink, escape, hidden};
use crate::lint::Listing;

/// Names of the reference servers' tools and other widely installed ones, which a
/// look-alike name would impersonate.
const WELL_KNOWN: &[&str] = &[
    "read_file",
    "read_text_file",
    "read_media_file",
    "read_multiple_files",
    "write_file",
    "edit_file",
    "create_directory",
    "list_directory",
    "directory_tree",
    "move_file",
    "search_files",
    "get_file_info",
    "list_allowed_directories",
    "git_status",
    "git_diff",
    "git_commit",
    "git_add",
    "git_log",
    "git_show",
    "git_checkout",
    "fetch",
    "get_current_time",
    "convert_time",
    "create_entities",
    "read_graph",
    "search_nodes",
    "open_nodes",
    "echo",
    "add",
    "send_email",
    "send_message",
    "execute_command",
    "run_command",
    "run_terminal_cmd",
    "shell",
    "bash",
    "execute_sql",
    "query",
    "create_issue",
    "create_pull_request",
    "get_file_contents",
    "push_files",
    "browser_navigate",
];

/// The Latin letter a look-alike stands for (UTS #39 confusables, the common part).
fn confusable(c: char) -> Option<char> {
    let mapped = match c {
        'а' | 'α' => 'a',
        'е' => 'e',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'і' | 'ι' | 'ı' | 'ɩ' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'ԁ' => 'd',
        'ɡ' => 'g',
        'һ' => 'h',
        'ӏ' | 'ℓ' => 'l',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'ν' => 'v',
        'κ' => 'k',
        'υ' => 'u',
        'А' | 'Α' => 'a',
        'В' | 'Β' => 'b',
        'Е' | 'Ε' => 'e',
        'Ζ' => 'z',
        'К' | 'Κ' => 'k',
        'М' | 'Μ' => 'm',
        'Н' | 'Η' => 'h',
        'Ν' => 'n',
        'О' | 'Ο' => 'o',
        'Р' | 'Ρ' => 'p',
        'С' => 'c',
        'Т' | 'Τ' => 't',
        'Х' | 'Χ' => 'x',
        'Ѕ' => 's',
        'І' | 'Ι' => 'i',
        'Ј' => 'j',
        'Ү' | 'Υ' => 'y',
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0)?,
        _ => return None,
    };
    Some(mapped)
}

/// A name folded for comparison: look-alikes to Latin, invisible characters
/// dropped, lowercase, `-` and `.` as `_`.
pub(super) fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| !hidden::is_escaped(*c))
        .map(|c| confusable(c).unwrap_or(c))
        .flat_map(char::to_lowercase)
        .map(|c| if c == '-' || c == '.' { '_' } else { c })
        .collect()
}

/// Only look-alikes folded (case and punctuation kept apart).
fn fold_confusables(name: &str) -> String {
    name.chars()
        .filter(|c| !hidden::is_escaped(*c))
        .map(|c| confusable(c).unwrap_or(c))
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Cherokee,
    Fullwidth,
}

fn script(c: char) -> Option<Script> {
    match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => Some(Script::Latin),
        0x370..=0x3FF | 0x1F00..=0x1FFF => Some(Script::Greek),
        0x400..=0x52F => Some(Script::Cyrillic),
        0x530..=0x58F => Some(Script::Armenian),
        0x13A0..=0x13FF => Some(Script::Cherokee),
        0xFF21..=0xFF3A | 0xFF41..=0xFF5A => Some(Script::Fullwidth),
        _ => None,
    }
}

/// The scripts a name's letters come from, in order of first use.
fn scripts(name: &str) -> Vec<Script> {
    let mut out = Vec::new();
    for s in name.chars().filter_map(script) {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn script_name(s: Script) -> &'static str {
    match s {
        Script::Latin => "Latin",
        Script::Greek => "Greek",
        Script::Cyrillic => "Cyrillic",
        Script::Armenian => "Armenian",
        Script::Cherokee => "Cherokee",
        Script::Fullwidth => "fullwidth",
    }
}

/// Whether `name` has a character outside ASCII.
fn has_non_ascii(name: &str) -> bool {
    !name.is_ascii()
}

/// A name as evidence: every character outside ASCII as `\u{…}`, so look-alikes
/// show.
fn shown_name(name: &str) -> String {
    let escaped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii() && !c.is_ascii_control() {
                c.to_string()
            } else {
                format!("\\u{{{:X}}}", c as u32)
            }
        })
        .collect();
    crate::value::truncate(&escaped, 120)
}

/// Every server's tool names.
pub(crate) struct Index {
    labels: Vec<String>,
    /// Per server, its tool names as listed.
    tools: Vec<Vec<String>>,
    /// Lowercase name → its spelling as listed.
    lower: HashMap<String, String>,
    /// Per server, folded name → the names as listed that fold to it.
    folded: Vec<HashMap<String, Vec<String>>>,
    /// Per server, its names as a set.
    exact: Vec<HashSet<String>>,
    /// Per server, length in characters → the positions of its names of
    /// that length in `tools`.
    by_len: Vec<HashMap<usize, Vec<usize>>>,
    /// Edit-distance comparisons left for S902 in this scan.
    comparisons: Cell<usize>,
}

/// The most edit-distance comparisons one scan makes for S902 (names
/// compared only with names of about the same length, at most
/// [`MAX_COMPARED_CHARS`] long); past it, near-collisions are found by
/// look-alike folding only, so two listings of 40,000 tools take seconds,
/// not minutes.
pub(crate) const MAX_COMPARISONS: usize = 2_000_000;

/// Names longer than this are not compared by edit distance.
const MAX_COMPARED_CHARS: usize = 128;

impl Index {
    pub(crate) fn new(listings: &[(&str, Listing<'_>)]) -> Self {
        let mut index = Index {
            labels: Vec::new(),
            tools: Vec::new(),
            lower: HashMap::new(),
            folded: Vec::new(),
            exact: Vec::new(),
            by_len: Vec::new(),
            comparisons: Cell::new(MAX_COMPARISONS),
        };
        for (label, listing) in listings {
            let names: Vec<String> = listing
                .object
                .get("tools")
                .and_then(Value::as_array)
                .map(|tools| {
                    tools
                        .iter()
                        .filter_map(|t| t.get("name").and_then(Value::as_str))
                        .filter(|n| !n.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            for name in &names {
                index
                    .lower
                    .entry(name.to_lowercase())
                    .or_insert_with(|| name.clone());
            }
            let mut folded: HashMap<String, Vec<String>> = HashMap::new();
            for name in &names {
                folded.entry(fold(name)).or_default().push(name.clone());
            }
            index.folded.push(folded);
            let mut by_len: HashMap<usize, Vec<usize>> = HashMap::new();
            for (i, name) in names.iter().enumerate() {
                let n = name.chars().count();
                if n <= MAX_COMPARED_CHARS {
                    by_len.entry(n).or_default().push(i);
                }
            }
            index.by_len.push(by_len);
            index.exact.push(names.iter().cloned().collect());
            index.tools.push(names);
            index.labels.push((*label).to_string());
        }
        index
    }

    /// The tool a reference names (`send_email`, or a client's prefixed form
    /// such as `mcp_tool_send_email` or `server__send_email`), if any tool of any
    /// server has that name.
    pub(super) fn tool_named(&self, reference: &str) -> Option<&str> {
        let lower = reference.to_lowercase();
        let mut candidates = vec![lower.as_str()];
        for sep in ["__", ".", "mcp_tool_", "mcp_"] {
            if let Some((_, tail)) = lower.rsplit_once(sep) {
                candidates.push(tail);
            }
        }
        candidates
            .into_iter()
            .filter(|c| c.len() >= 3)
            .find_map(|c| self.lower.get(c).map(String::as_str))
    }
}

impl Index {
    /// Whether the server at `position` lists a tool of this name (as
    /// [`Index::tool_named`] returned it).
    pub(super) fn server_lists(&self, position: usize, name: &str) -> bool {
        self.exact
            .get(position)
            .is_some_and(|names| names.contains(name))
    }
}

/// S201 for a tool or prompt name.
pub(super) fn mixed_script(sink: &mut Sink<'_>, field: &str, name: &str) {
    let found = scripts(name);
    if found.len() < 2 {
        return;
    }
    let words: Vec<&str> = found.iter().map(|s| script_name(*s)).collect();
    let reads = fold_confusables(name);
    let shown = if reads == name {
        String::new()
    } else {
        format!("; it reads as `{reads}`")
    };
    sink.push_with(
        Rule::MixedScriptName,
        field,
        Some((0, name.len())),
        shown_name(name),
        format!("name mixes {} letters{shown}", words.join(" and ")),
    );
}

/// S202 for a tool name: look-alike characters that fold to another tool of the
/// same server or a well-known tool.
pub(super) fn confusable_name(
    sink: &mut Sink<'_>,
    field: &str,
    name: &str,
    server: usize,
    index: &Index,
) {
    if !has_non_ascii(name) || !name.chars().any(|c| confusable(c).is_some()) {
        return;
    }
    let folded = fold(name);
    let sibling = index
        .folded
        .get(server)
        .and_then(|m| m.get(&folded))
        .and_then(|names| names.iter().find(|other| other.as_str() != name));
    let target = match sibling {
        Some(other) => format!("another tool of this server, `{other}`"),
        None => match WELL_KNOWN.iter().find(|w| **w == folded) {
            Some(known) => format!("the well-known tool `{known}`"),
            None => return,
        },
    };
    sink.push_with(
        Rule::ConfusableName,
        field,
        Some((0, name.len())),
        shown_name(name),
        format!("name uses look-alike characters and reads as {target}"),
    );
}

/// S901 and S902 for a tool name of server `server` against the tools of the
/// servers listed before it.
pub(super) fn across_servers(
    sink: &mut Sink<'_>,
    field: &str,
    name: &str,
    server: usize,
    index: &Index,
) {
    let folded = fold(name);
    let len = name.chars().count();
    let mut seen = HashSet::new();
    for earlier in 0..server.min(index.tools.len()) {
        let label = index.labels.get(earlier).map_or("", String::as_str);
        let Some(names) = index.tools.get(earlier) else {
            continue;
        };
        if index
            .exact
            .get(earlier)
            .is_some_and(|set| set.contains(name))
        {
            sink.push_with(
                Rule::ToolNameCollision,
                field,
                None,
                shown_name(name),
                format!("server `{label}` also lists a tool named `{}`; one shadows the other in a client that keys tools by name", escape(name, 60)),
            );
            return;
        }
        let near = index
            .folded
            .get(earlier)
            .and_then(|m| m.get(&folded))
            .and_then(|names| names.first().cloned())
            .or_else(|| near_by_edits(name, len, names, earlier, index));
        if let Some(other) = near.filter(|o| seen.insert(o.clone())) {
            sink.push_with(
                Rule::ToolNameNearCollision,
                field,
                None,
                shown_name(name),
                format!(
                    "server `{label}` lists `{}`, close enough to be called in its place",
                    escape(&other, 60)
                ),
            );
            return;
        }
    }
}

/// A name one edit away (names of 5 to 7 characters) or two (8 or more),
/// among the names of server `earlier` of about the same length, within
/// the scan's comparison budget.
fn near_by_edits(
    name: &str,
    len: usize,
    names: &[String],
    earlier: usize,
    index: &Index,
) -> Option<String> {
    if !(5..=MAX_COMPARED_CHARS).contains(&len) {
        return None;
    }
    let budget = if len >= 8 { 2 } else { 1 };
    let buckets = index.by_len.get(earlier)?;
    for n in len.saturating_sub(budget).max(5)..=len + budget {
        for i in buckets.get(&n).map_or(&[][..], Vec::as_slice) {
            let left = index.comparisons.get();
            if left == 0 {
                return None;
            }
            index.comparisons.set(left - 1);
            let other = names.get(*i)?;
            if strsim::levenshtein(name, other) <= budget {
                return Some(other.clone());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding() {
        assert_eq!(fold("reаd_file"), "read_file");
        assert_eq!(fold("Read-File"), "read_file");
        assert_eq!(fold("ｒｅａｄ"), "read");
        assert_eq!(scripts("reаd_file"), vec![Script::Latin, Script::Cyrillic]);
        assert_eq!(scripts("прочитать").len(), 1);
    }

    #[test]
    fn edits() {
        let doc = serde_json::json!({"tools": [{"name": "read_file"}, {"name": "fetch"}]});
        let listing = Listing::read(&doc).expect("a listing");
        let index = Index::new(&[("a", listing)]);
        let names = &index.tools[0];
        assert_eq!(
            near_by_edits("read_files", 10, names, 0, &index).as_deref(),
            Some("read_file")
        );
        assert_eq!(near_by_edits("fetcher", 7, names, 0, &index), None);
        assert_eq!(near_by_edits("add", 3, names, 0, &index), None);
        // Past the budget, no more comparisons: nothing is found by edits.
        index.comparisons.set(0);
        assert_eq!(near_by_edits("read_files", 10, names, 0, &index), None);
    }
}
