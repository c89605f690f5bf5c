//! The rules that need what the CLI observes in a session: a tool's answer
//! (E301) and two listings taken one after the other (W609, W610).

use std::collections::HashMap;

use serde_json::Value;

use super::rules::Rule;
use super::{
    Finding, ItemKind, LintInputError, LintOptions, Listing, Out, SECTIONS, describe_non_object,
    describe_object, ptr, ptr_index, quote, skipped, thousands,
};
use crate::value::{json_eq, show_json};

/// mcp-assert's default response budget (`--max-response-kb 100`), in bytes.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 100 * 1024;

/// A tool's answer, as [`lint_response`] measures it.
#[derive(Debug, Clone, Copy)]
pub enum Response<'a> {
    /// The length in bytes of the answer's text, measured by the caller.
    TextBytes(usize),
    /// A tools/call result, or a JSON-RPC response whose result is one. Measured:
    /// the text of its text blocks and embedded text resources, joined by newlines
    /// as mcp-assert joins them; its structuredContent's JSON when it has no text.
    Result(&'a Value),
}

/// E301: `tool`'s answer over `max_bytes` ([`DEFAULT_MAX_RESPONSE_BYTES`] is
/// mcp-assert's budget).
///
/// # Errors
///
/// [`LintInputError::NotAToolResult`] when a [`Response::Result`] is no tools/call
/// result, [`LintInputError::UnknownRule`] for an unknown code in `skip_rules`.
pub fn lint_response(
    tool: &str,
    response: Response<'_>,
    max_bytes: usize,
    options: &LintOptions,
) -> Result<Vec<Finding>, LintInputError> {
    let skip = skipped(options)?;
    let (bytes, field) = match response {
        Response::TextBytes(bytes) => (bytes, String::new()),
        Response::Result(value) => measure(value)?,
    };
    let mut out = Out::new(&skip);
    if bytes > max_bytes {
        let budget = if max_bytes.is_multiple_of(1024) {
            format!("the {} KiB budget", thousands(max_bytes / 1024))
        } else {
            format!("the budget of {} bytes", thousands(max_bytes))
        };
        let mut item = out.item(ItemKind::Tool, tool.to_string());
        item.push(
            Rule::ResponseTooLarge,
            field,
            format!(
                "the answer is {} bytes (about {} tokens), over {budget}; page, filter or summarize large results",
                thousands(bytes),
                thousands(bytes / 4)
            ),
        );
        out.finish(item);
    }
    Ok(out.findings)
}

/// The measured size of a tools/call result and the pointer to what was measured.
fn measure(value: &Value) -> Result<(usize, String), LintInputError> {
    let not = |got: String| Err(LintInputError::NotAToolResult { got });
    let Value::Object(object) = value else {
        return not(describe_non_object(value));
    };
    let is_result = |o: &serde_json::Map<String, Value>| {
        o.contains_key("content") || o.contains_key("structuredContent")
    };
    let (result, base) =
        if is_result(object) {
            (object, "")
        } else {
            match object.get("result") {
                Some(Value::Object(inner)) if is_result(inner) => (inner, "/result"),
                Some(_) => return not(
                    "a JSON-RPC response whose result has neither content nor structuredContent"
                        .to_string(),
                ),
                None => return not(describe_object(object)),
            }
        };
    let mut parts: Vec<usize> = Vec::new();
    if let Some(Value::Array(blocks)) = result.get("content") {
        for block in blocks {
            let text = match block.get("type").and_then(Value::as_str) {
                Some("text") => block.get("text"),
                Some("resource") => block.get("resource").and_then(|r| r.get("text")),
                _ => None,
            };
            if let Some(Value::String(text)) = text {
                parts.push(text.len());
            }
        }
    }
    let text: usize = parts.iter().sum::<usize>() + parts.len().saturating_sub(1);
    if text == 0
        && let Some(structured) = result.get("structuredContent")
    {
        let bytes = serde_json::to_string(structured).map_or(0, |s| s.len());
        return Ok((bytes, format!("{base}/structuredContent")));
    }
    Ok((text, format!("{base}/content")))
}

/// W609 and W610: two listings taken in one session (`first`, then `second`) that
/// list their items in another order, or list other items or other definitions.
/// Sections present in both are compared; items are matched by name (URI for
/// resources, uriTemplate for templates), and `_meta` is not compared.
///
/// # Errors
///
/// [`LintInputError::NotAListing`] when either is not a listing,
/// [`LintInputError::UnknownRule`] for an unknown code in `skip_rules`.
pub fn lint_nondeterminism(
    first: &Value,
    second: &Value,
    options: &LintOptions,
) -> Result<Vec<Finding>, LintInputError> {
    let skip = skipped(options)?;
    let a = Listing::read(first)?;
    let b = Listing::read(second)?;
    let mut out = Out::new(&skip);
    for (section, kind) in SECTIONS {
        let (Some(Value::Array(xs)), Some(Value::Array(ys))) =
            (a.object.get(section), b.object.get(section))
        else {
            continue;
        };
        let at_a = format!("{}/{section}", a.base);
        let at_b = format!("{}/{section}", b.base);
        compare(&mut out, section, kind, (xs, &at_a), (ys, &at_b));
    }
    Ok(out.findings)
}

/// An item's identity within its section: its name (URI, uriTemplate) and which
/// occurrence of that name it is.
fn keys(section: &str, items: &[Value]) -> Vec<(String, usize)> {
    let field = match section {
        "resources" => "uri",
        "resourceTemplates" => "uriTemplate",
        _ => "name",
    };
    let mut count: HashMap<String, usize> = HashMap::new();
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let id = item
                .get(field)
                .and_then(Value::as_str)
                .map_or_else(|| format!("{section}[{i}]"), str::to_string);
            let n = count.entry(id.clone()).or_insert(0);
            *n += 1;
            (id, *n)
        })
        .collect()
}

fn compare(
    out: &mut Out<'_>,
    section: &str,
    kind: ItemKind,
    first: (&[Value], &str),
    second: (&[Value], &str),
) {
    let (xs, at_a) = first;
    let (ys, at_b) = second;
    let ka = keys(section, xs);
    let kb = keys(section, ys);
    let index_a: HashMap<&(String, usize), usize> =
        ka.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let index_b: HashMap<&(String, usize), usize> =
        kb.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let common_a: Vec<&(String, usize)> = ka.iter().filter(|k| index_b.contains_key(k)).collect();
    let common_b: Vec<&(String, usize)> = kb.iter().filter(|k| index_a.contains_key(k)).collect();
    if let Some(at) = (0..common_a.len()).find(|&i| common_a[i] != common_b[i]) {
        let mut item = out.item(ItemKind::Listing, section.to_string());
        item.push(
            Rule::ListingOrderUnstable,
            at_b.to_string(),
            format!(
                "the second listing orders {section} differently: `{}` came where `{}` had been (position {at} of the items in both); clients cache the listing as sent",
                quote(&common_b[at].0, 60),
                quote(&common_a[at].0, 60)
            ),
        );
        out.finish(item);
    }
    let noun = match kind {
        ItemKind::Prompt => "prompt",
        ItemKind::Resource => "resource",
        ItemKind::ResourceTemplate => "resource template",
        _ => "tool",
    };
    for (j, key) in kb.iter().enumerate() {
        let mut item = out.item(kind, key.0.clone());
        match index_a.get(key) {
            None => item.push(
                Rule::ListingContentUnstable,
                ptr_index(at_b, j),
                format!("the {noun} is in the second listing but not the first"),
            ),
            Some(&i) => {
                if let Some(path) = difference(&xs[i], &ys[j], "", true) {
                    let shown = |v: &Value| {
                        v.pointer(&path)
                            .map_or_else(|| "absent".to_string(), |v| show_json(v, 60))
                    };
                    item.push(
                        Rule::ListingContentUnstable,
                        format!("{}{path}", ptr_index(at_b, j)),
                        format!(
                            "the {noun}'s definition changed between the two listings at {}: {} then, {} now",
                            if path.is_empty() { "its root" } else { &path },
                            shown(&xs[i]),
                            shown(&ys[j])
                        ),
                    );
                }
            }
        }
        out.finish(item);
    }
    for (i, key) in ka.iter().enumerate() {
        if index_b.contains_key(key) {
            continue;
        }
        let mut item = out.item(kind, key.0.clone());
        item.push(
            Rule::ListingContentUnstable,
            ptr_index(at_a, i),
            format!("the {noun} is in the first listing but not the second (the pointer is into the first)"),
        );
        out.finish(item);
    }
}

/// The pointer (relative to `a` and `b`) of the first place they differ, in
/// key order; `_meta` of the item itself is not compared.
fn difference(a: &Value, b: &Value, at: &str, top: bool) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            crate::sort::ord(&mut keys);
            keys.dedup();
            keys.into_iter()
                .filter(|k| !(top && k.as_str() == "_meta"))
                .find_map(|k| match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) => difference(v, w, &ptr(at, k), false),
                    _ => Some(ptr(at, k)),
                })
        }
        (Value::Array(x), Value::Array(y)) => {
            (0..x.len().max(y.len())).find_map(|i| match (x.get(i), y.get(i)) {
                (Some(v), Some(w)) => difference(v, w, &ptr_index(at, i), false),
                _ => Some(ptr_index(at, i)),
            })
        }
        _ => (!json_eq(a, b)).then(|| at.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_measured_like_mcp_assert() {
        let result = json!({"content": [{"type": "text", "text": "abc"}, {"type": "image", "data": "xxxx"}, {"type": "text", "text": "de"}]});
        assert_eq!(measure(&result).ok(), Some((6, "/content".to_string())));
        let envelope = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [], "structuredContent": {"a": 1}}});
        assert_eq!(
            measure(&envelope).ok(),
            Some((7, "/result/structuredContent".to_string()))
        );
        let resource =
            json!({"content": [{"type": "resource", "resource": {"uri": "x:/", "text": "hello"}}]});
        assert_eq!(measure(&resource).ok(), Some((5, "/content".to_string())));
        for bad in [
            json!([]),
            json!({"tools": []}),
            json!({"result": {"tools": []}}),
        ] {
            assert!(measure(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn budgets() {
        let options = LintOptions::default();
        let under = lint_response(
            "t",
            Response::TextBytes(DEFAULT_MAX_RESPONSE_BYTES),
            DEFAULT_MAX_RESPONSE_BYTES,
            &options,
        );
        assert_eq!(under.map(|f| f.len()).ok(), Some(0));
        let over = lint_response(
            "t",
            Response::TextBytes(DEFAULT_MAX_RESPONSE_BYTES + 1),
            DEFAULT_MAX_RESPONSE_BYTES,
            &options,
        )
        .unwrap_or_default();
        assert_eq!(over.len(), 1);
        assert_eq!(over[0].code(), "E301");
        assert!(
            over[0].message.contains("102,401 bytes"),
            "{}",
            over[0].message
        );
        assert!(
            over[0].message.contains("100 KiB budget"),
            "{}",
            over[0].message
        );
    }

    #[test]
    fn first_differences() {
        let a = json!({"name": "x", "description": "a", "_meta": {"t": 1}, "inputSchema": {"required": ["p"]}});
        let b = json!({"name": "x", "description": "a", "_meta": {"t": 2}, "inputSchema": {"required": ["p", "q"]}});
        assert_eq!(
            difference(&a, &b, "", true).as_deref(),
            Some("/inputSchema/required/1")
        );
        assert_eq!(difference(&a, &a, "", true), None);
        assert_eq!(
            difference(&json!({"n": 1}), &json!({"n": 1.0}), "", true),
            None
        );
    }
}
