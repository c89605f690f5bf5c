//! Reading the arguments of vocabulary keys: paths, regexes, `{path, …}`
//! objects, value lists.

use regex::Regex;
use serde_json::Value;

use crate::check::{Each, Target};
use crate::diag::Span;
use crate::path::Path;
use crate::read::{Entries, LoadCx};
use crate::yaml::{Node, NodeKind};

/// A path into the Observation that is known to be valid.
pub(crate) fn doc_path(p: &str) -> Path {
    Path::fixed(p)
}

/// The most memory one compiled pattern may take (the regex crate's default
/// is 10 MiB).
const REGEX_SIZE_LIMIT: usize = 2 << 20;
/// The most memory one pattern's lazy DFA cache may take while matching.
const REGEX_DFA_LIMIT: usize = 2 << 20;
/// The most memory the compiled patterns of one file may take together: a
/// thousand patterns like `\w{20}` would otherwise take gigabytes (and
/// their compiling, minutes).
pub(crate) const REGEX_FILE_BUDGET: usize = 64 << 20;
/// The same for all the files of one suite together.
pub(crate) const REGEX_SUITE_BUDGET: usize = 256 << 20;

pub(super) fn compile_regex(
    cx: &mut LoadCx,
    pattern: &str,
    span: Span,
    key: &str,
) -> Option<Regex> {
    if cx.regex_bytes > REGEX_FILE_BUDGET {
        cx.error_hint(
            span,
            format!(
                "`{key}`: the regular expressions of this file take more than {} MiB compiled; {pattern:?} was not compiled",
                REGEX_FILE_BUDGET >> 20
            ),
            "use fewer or smaller patterns: `(?-u:\\w)` is the ASCII `\\w` (as RE2 reads it) and takes a fraction of the Unicode one",
        );
        return None;
    }
    if cx.suite_regex_bytes.saturating_add(cx.regex_bytes) > REGEX_SUITE_BUDGET {
        cx.error_hint(
            span,
            format!(
                "`{key}`: the regular expressions of this suite's files take more than {} MiB compiled together; {pattern:?} was not compiled",
                REGEX_SUITE_BUDGET >> 20
            ),
            "run the suite's directories one at a time, or use fewer or smaller patterns",
        );
        return None;
    }
    let measured = regex_automata::meta::Regex::builder()
        .configure(regex_automata::meta::Config::new().nfa_size_limit(Some(REGEX_SIZE_LIMIT)))
        .build(pattern)
        .map(|r| r.memory_usage());
    let compiled = match measured {
        Ok(bytes) => {
            cx.regex_bytes += bytes;
            regex::RegexBuilder::new(pattern)
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_DFA_LIMIT)
                .build()
        }
        Err(e) => {
            // A pattern past the size limit cost the work of compiling that
            // much: it counts against the budget too.
            if e.size_limit().is_some() {
                cx.regex_bytes += REGEX_SIZE_LIMIT;
            }
            regex::RegexBuilder::new(pattern)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
        }
    };
    match compiled {
        Ok(r) => Some(r),
        Err(e) => {
            let detail = e.to_string();
            // The regex crate ends its multi-line report with "error: <what>";
            // the diagnostic is already an error, so keep only <what>.
            let last = detail.lines().last().unwrap_or("invalid pattern").trim();
            let last = last.strip_prefix("error: ").unwrap_or(last).to_string();
            let hint = if matches!(e, regex::Error::CompiledTooBig(_)) {
                "a Unicode class repeated many times is large: `(?-u:\\w)` is the ASCII `\\w` (as RE2 reads it), `\\w+` instead of `\\w{50}`"
            } else {
                "patterns use RE2 syntax (`\\d`, `\\b`, `(?m)`); escape literal brackets and dots with `\\`"
            };
            cx.error_hint(
                span,
                format!("`{key}`: invalid regular expression {pattern:?}: {last}"),
                hint,
            );
            None
        }
    }
}

pub(super) fn json_path(cx: &mut LoadCx, written: &str, span: Span, key: &str) -> Option<Path> {
    match Path::parse_under(&["json"], written) {
        Ok(p) => Some(p),
        Err(e) => {
            cx.error_hint(
                span,
                format!("`{key}`: invalid path {written:?}: {e}"),
                "write a dotted path like `results[*].metadata.type`, or JSONPath starting with `$`",
            );
            None
        }
    }
}

/// The target of a quantifier over `path`. A path with `[*]` is taken apart
/// at its first `[*]` into the array and the field of each element (see
/// `Target::Each`); other paths select as written.
pub(super) fn each_target(path: Path) -> Target {
    let written = path.as_str();
    let Some(at) = written.find("[*]") else {
        return Target::Doc(path);
    };
    let (items, rest) = (&written[..at], &written[at + 3..]);
    let simple_rest = rest.is_empty() || rest.starts_with('.') || rest.starts_with('[');
    if items.is_empty() || items == "$" || !simple_rest {
        return Target::Doc(path);
    }
    match (
        Path::parse_under(&["json"], items),
        Path::parse(&format!("${rest}")),
    ) {
        (Ok(items), Ok(field)) => Target::Each(Box::new(Each { path, items, field })),
        _ => Target::Doc(path),
    }
}

pub(super) fn text_target() -> Target {
    Target::Doc(doc_path("text"))
}

/// Read `{path, …}` objects of the JSON vocabulary: returns the compiled path
/// and the entries other than `path`.
pub(super) fn path_arg<'n>(
    cx: &mut LoadCx,
    v: &'n Node,
    key: &str,
    others: &[&str],
) -> Option<(Path, Entries<'n>)> {
    let mut allowed = vec!["path"];
    allowed.extend_from_slice(others);
    let entries = cx.entries(v, key, &allowed);
    let path_node = entries
        .iter()
        .find(|(k, _, _)| *k == "path")
        .map(|(_, _, n)| *n);
    let Some(path_node) = path_node else {
        if v.as_map().is_some() {
            cx.error_hint(
                v.span,
                format!("`{key}` needs a `path`"),
                format!("e.g. `{key}: {{path: \"results[*].type\", …}}`"),
            );
        }
        return None;
    };
    let written = cx.string(path_node, "path")?;
    let path = json_path(cx, &written, path_node.span, key)?;
    for o in others {
        if !entries.iter().any(|(k, _, _)| k == o) && *o != "name" {
            cx.error(v.span, format!("`{key}` needs `{o}`"));
            return None;
        }
    }
    Some((path, entries))
}

pub(super) fn field<'n>(entries: &[(&'n str, &'n Node, &'n Node)], name: &str) -> Option<&'n Node> {
    entries
        .iter()
        .find(|(k, _, _)| *k == name)
        .map(|(_, _, v)| *v)
}

pub(super) fn values_of(cx: &mut LoadCx, n: &Node, key: &str) -> Option<Vec<Value>> {
    match &n.kind {
        NodeKind::Seq(items) => Some(items.iter().map(Node::to_json).collect()),
        _ => {
            cx.error(
                n.span,
                format!("`{key}` must be a list of values, not {}", n.type_name()),
            );
            None
        }
    }
}

/// A check's name: `key[i]` when a key makes several, else `key`.
pub(super) fn indexed(key: &str, i: usize, many: bool) -> String {
    if many {
        format!("{key}[{i}]")
    } else {
        key.to_string()
    }
}
