//! MCP Apps (INV-130 … INV-136; `io.modelcontextprotocol/ui`, SEP-1865): the
//! tools that name a UI, and the `ui://` resources that are one, judged per
//! session from its `tools/list`, `resources/list`, `resources/read` and
//! `tools/call` answers.
//!
//! The checks of one tool or resource are shared with `lint` and the
//! runner ([`tool_problems`], [`resource_problems`], [`payload_problem`]),
//! so a listing, a suite and a capture agree on what a broken app is.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::Sink;
use super::json;
use super::rules::Rule;
use super::session::SessionCtx;

/// The MIME type of an app's HTML.
pub const MIME: &str = "text/html;profile=mcp-app";
/// The deprecated flat key of a tool's UI resource.
pub const FLAT_KEY: &str = "ui/resourceUri";
const CSP_LISTS: [&str; 4] = [
    "connectDomains",
    "resourceDomains",
    "frameDomains",
    "baseUriDomains",
];

/// The UI resource a tool names: `_meta.ui.resourceUri`, else the flat key.
pub fn resource_uri(tool: &Value) -> Option<&str> {
    let meta = tool.get("_meta")?;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get(FLAT_KEY))
        .and_then(Value::as_str)
}

/// What is wrong with one tool's app metadata, by rule (not whether the
/// resource exists: that needs the server's resources).
pub fn tool_problems(tool: &Value) -> Vec<(Rule, String)> {
    let mut found = Vec::new();
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
    let Some(meta) = tool.get("_meta") else {
        return found;
    };
    if meta.get(FLAT_KEY).is_some() {
        found.push((
            Rule::AppFlatMeta,
            format!("the tool {name} names its UI with the deprecated _meta[\"{FLAT_KEY}\"]"),
        ));
    }
    if let Some(uri) = resource_uri(tool)
        && !uri.starts_with("ui://")
    {
        found.push((
            Rule::AppResource,
            format!("the tool {name} names the UI resource {uri}, not a ui:// URI"),
        ));
    }
    if let Some(visibility) = meta.get("ui").and_then(|ui| ui.get("visibility")) {
        let bad: Vec<String> = match visibility.as_array() {
            Some(items) => items
                .iter()
                .filter(|v| !matches!(v.as_str(), Some("model" | "app")))
                .map(|v| json::snippet(&v.to_string(), 30))
                .collect(),
            None => vec![json::snippet(&visibility.to_string(), 30)],
        };
        if !bad.is_empty() {
            found.push((
                Rule::AppVisibility,
                format!(
                    "the tool {name} has the visibility {}: only \"model\" and \"app\" are defined",
                    bad.join(", ")
                ),
            ));
        }
    }
    found
}

/// Whether a CSP source is an origin: `scheme://host[:port]`, the host
/// possibly a `*.` wildcard of subdomains, nothing after it but one `/`.
pub fn is_origin(source: &str) -> bool {
    let Some((scheme, rest)) = source.split_once("://") else {
        return false;
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !host.contains(']') || host.ends_with(']') => (host, Some(port)),
        _ => (rest, None),
    };
    let host = host.strip_prefix("*.").unwrap_or(host);
    !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
        && !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'[' | b']' | b':'))
        && port.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// What is wrong with a `ui://` resource's mimeType and `_meta.ui.csp`, as
/// listed or read (`what` names it in messages).
pub fn resource_problems(resource: &Value, what: &str) -> Vec<(Rule, String)> {
    let mut found = Vec::new();
    let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("?");
    match resource.get("mimeType").and_then(Value::as_str) {
        Some(MIME) => {}
        other => found.push((
            Rule::AppMimeType,
            format!(
                "{what} {uri} has the mimeType {}, not {MIME}",
                other.map_or("none".to_string(), |m| format!("\"{m}\""))
            ),
        )),
    }
    if let Some(csp) = resource
        .get("_meta")
        .and_then(|m| m.get("ui"))
        .and_then(|ui| ui.get("csp"))
    {
        for list in CSP_LISTS {
            let Some(items) = csp.get(list) else { continue };
            let bad: Vec<String> = match items.as_array() {
                Some(items) => items
                    .iter()
                    .filter(|i| !i.as_str().is_some_and(is_origin))
                    .map(|i| json::snippet(&i.to_string(), 60))
                    .collect(),
                None => vec![format!(
                    "{} (not a list)",
                    json::snippet(&items.to_string(), 30)
                )],
            };
            if !bad.is_empty() {
                found.push((
                    Rule::AppCsp,
                    format!(
                        "{what} {uri} lists {} in csp.{list}, not origins",
                        bad.join(", ")
                    ),
                ));
            }
        }
    }
    found
}

/// Why the bytes of an app are not an HTML5 document, if they are not: it
/// must begin (after a byte order mark, white space and comments) with
/// `<!DOCTYPE html>`.
pub fn payload_problem(html: &str) -> Option<String> {
    let mut rest = html.strip_prefix('\u{feff}').unwrap_or(html).trim_start();
    while let Some(after) = rest.strip_prefix("<!--") {
        rest = after.split_once("-->").map_or("", |(_, r)| r).trim_start();
    }
    let head: String = rest
        .chars()
        .take(40)
        .collect::<String>()
        .to_ascii_lowercase();
    let doctype = head.strip_prefix("<!doctype").is_some_and(|r| {
        let r = r.trim_start();
        r.starts_with("html") && r[4..].trim_start().starts_with('>')
    });
    (!doctype).then(|| {
        format!(
            "it begins {:?}, not <!DOCTYPE html>",
            rest.chars().take(30).collect::<String>()
        )
    })
}

/// INV-130 … INV-136 over one session.
#[allow(
    clippy::too_many_lines,
    reason = "the seven rules in one pass over the session's exchanges, each a few lines"
)]
pub(crate) fn apps(ctx: &SessionCtx<'_, '_>, out: &mut Sink) {
    // Tools with a UI, by name: the URI they name, and where they were listed.
    let mut ui_tools: HashMap<String, String> = HashMap::new();
    let mut listed: HashSet<String> = HashSet::new();
    let mut listing_complete = false;
    let mut judged: HashSet<String> = HashSet::new();
    // The ui:// URIs named by tools, with the exchange of the first listing.
    let mut named: Vec<(usize, String, String)> = Vec::new();
    let mut read_ok: HashSet<String> = HashSet::new();
    let mut read_failed: HashMap<String, usize> = HashMap::new();
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
        if response.error().is_some() {
            if method == "resources/read"
                && let Some(uri) = request
                    .params()
                    .and_then(|p| json::member(p, "uri"))
                    .and_then(json::as_str)
            {
                read_failed.insert(uri.into_owned(), index);
            }
            continue;
        }
        let Some(result) = response.result().and_then(json::to_value) else {
            continue;
        };
        match method.as_ref() {
            "tools/list" => {
                for tool in result
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let Some(uri) = resource_uri(tool) else {
                        continue;
                    };
                    let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                    ui_tools.insert(name.to_string(), uri.to_string());
                    if uri.starts_with("ui://") && !named.iter().any(|(_, n, _)| n == name) {
                        named.push((index, name.to_string(), uri.to_string()));
                    }
                    if judged.insert(tool.to_string()) {
                        for (rule, message) in tool_problems(tool) {
                            out.push(rule, at, message);
                        }
                    }
                }
            }
            "resources/list" => {
                let continues = request
                    .params()
                    .and_then(|p| json::member(p, "cursor"))
                    .is_some_and(|c| !json::is_null(c));
                if !continues {
                    listing_complete = false;
                }
                if result.get("nextCursor").is_none_or(Value::is_null) {
                    listing_complete = true;
                }
                for resource in result
                    .get("resources")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let Some(uri) = resource.get("uri").and_then(Value::as_str) else {
                        continue;
                    };
                    listed.insert(uri.to_string());
                    if uri.starts_with("ui://") && judged.insert(resource.to_string()) {
                        for (rule, message) in resource_problems(resource, "the listed resource") {
                            out.push(rule, at, message);
                        }
                    }
                }
            }
            "resources/read" => {
                for content in result
                    .get("contents")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let Some(uri) = content.get("uri").and_then(Value::as_str) else {
                        continue;
                    };
                    read_ok.insert(uri.to_string());
                    if !uri.starts_with("ui://") {
                        continue;
                    }
                    for (rule, message) in resource_problems(content, "the content read of") {
                        out.push(rule, at, message);
                    }
                    let html = super::skills::content_bytes(content)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default();
                    if let Some(why) = payload_problem(&html) {
                        out.push(
                            Rule::AppHtml,
                            at,
                            format!("the content of {uri} is not an HTML5 document: {why}"),
                        );
                    }
                }
            }
            "tools/call" => {
                let name = request
                    .params()
                    .and_then(|p| json::member(p, "name"))
                    .and_then(json::as_str)
                    .unwrap_or_default();
                let interim = result
                    .get("resultType")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t != "complete");
                if !interim
                    && ui_tools.contains_key(name.as_ref())
                    && result
                        .get("content")
                        .and_then(Value::as_array)
                        .is_none_or(|c| c.is_empty())
                {
                    out.push(
                        Rule::AppContent,
                        at,
                        format!("the tool {name} has a UI, and its result has no content for a host without one"),
                    );
                }
            }
            _ => {}
        }
    }
    for (index, name, uri) in named {
        let missing = if let Some(failed) = read_failed.get(&uri) {
            Some(format!("reading it failed (exchange {failed})"))
        } else if listing_complete && !listed.contains(&uri) && !read_ok.contains(&uri) {
            Some("resources/list does not list it".to_string())
        } else {
            None
        };
        if let Some(why) = missing {
            out.push(
                Rule::AppResource,
                Some(index),
                format!("the tool {name} names the UI resource {uri}, which the server does not serve: {why}"),
            );
        }
    }
}

/// The rules the session gave something to judge.
pub(crate) fn exercised(ctx: &SessionCtx<'_, '_>, rules: &mut Vec<Rule>) {
    let mut ui_tool = false;
    let mut ui_resource = false;
    let mut ui_read = false;
    let mut ui_call = false;
    let mut names: HashSet<String> = HashSet::new();
    for exchange in &ctx.session.exchanges {
        let Some(result) = exchange
            .response
            .as_ref()
            .and_then(|r| r.result())
            .and_then(json::to_value)
        else {
            continue;
        };
        let method = exchange.request.method_str();
        match method.as_ref() {
            "tools/list" => {
                for tool in result
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if resource_uri(tool).is_some() {
                        ui_tool = true;
                        if let Some(n) = tool.get("name").and_then(Value::as_str) {
                            names.insert(n.to_string());
                        }
                    }
                }
            }
            "resources/list" => {
                ui_resource |= names_ui_uri(&result, "resources");
            }
            "resources/read" => {
                ui_read |= names_ui_uri(&result, "contents");
            }
            "tools/call" => {
                ui_call |= exchange
                    .request
                    .params()
                    .and_then(|p| json::member(p, "name"))
                    .and_then(json::as_str)
                    .is_some_and(|n| names.contains(n.as_ref()));
            }
            _ => {}
        }
    }
    if ui_tool {
        rules.extend([Rule::AppResource, Rule::AppVisibility, Rule::AppFlatMeta]);
    }
    if ui_resource || ui_read {
        rules.extend([Rule::AppMimeType, Rule::AppCsp]);
    }
    if ui_read {
        rules.push(Rule::AppHtml);
    }
    if ui_call {
        rules.push(Rule::AppContent);
    }
}

/// Whether an item of the array `key` of `result` has a `ui://` URI.
fn names_ui_uri(result: &Value, key: &str) -> bool {
    result
        .get(key)
        .and_then(Value::as_array)
        .is_some_and(|items| {
            items.iter().any(|i| {
                i.get("uri")
                    .and_then(Value::as_str)
                    .is_some_and(|u| u.starts_with("ui://"))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn origins() {
        for ok in [
            "https://api.example.com",
            "https://api.example.com/",
            "https://*.example.com",
            "http://localhost:8080",
            "wss://live.example.com:443",
        ] {
            assert!(is_origin(ok), "{ok}");
        }
        for bad in [
            "https://api.example.com/v1",
            "*",
            "api.example.com",
            "https://",
            "https://a.example.com?x=1",
            "https://user@a.example.com",
            "'unsafe-inline'",
            "https://a.example.com:x",
        ] {
            assert!(!is_origin(bad), "{bad}");
        }
    }

    #[test]
    fn html5_documents() {
        assert!(payload_problem("<!DOCTYPE html>\n<html></html>").is_none());
        assert!(payload_problem("\u{feff}  <!-- x --> <!doctype HTML ><html>").is_none());
        assert!(payload_problem("<div>fragment</div>").is_some());
        assert!(payload_problem("").is_some());
        assert!(payload_problem("<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\">").is_some());
    }

    #[test]
    fn tool_metadata() {
        let good = json!({"name": "t", "_meta": {"ui": {"resourceUri": "ui://a/b", "visibility": ["model", "app"]}}});
        assert!(tool_problems(&good).is_empty());
        let bad = json!({"name": "t", "_meta": {"ui/resourceUri": "https://x", "ui": {"visibility": ["apps"]}}});
        let rules: Vec<Rule> = tool_problems(&bad).into_iter().map(|(r, _)| r).collect();
        assert_eq!(
            rules,
            [Rule::AppFlatMeta, Rule::AppResource, Rule::AppVisibility]
        );
    }
}
