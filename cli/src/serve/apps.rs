//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865; the client declares
//! the extension, a server needs no capability): the `dashboard` tool,
//! whose `_meta.ui.resourceUri` names the `ui://mcpcheck/dashboard.html`
//! resource, an HTML5 document a host renders in a sandboxed frame. Served in
//! both eras alike; a host without apps reads the tool's text content.
//!
//! A pure function of the faults in force, like the rest of the catalogue.

use serde_json::{Value, json};

use super::faults::{Fault, FaultSet};

/// The MIME type of an app's HTML.
pub const MIME: &str = "text/html;profile=mcp-app";
/// The dashboard's resource.
pub const DASHBOARD_URI: &str = "ui://mcpcheck/dashboard.html";
/// The resource `app-missing-resource` points the tool at.
const MISSING_URI: &str = "ui://mcpcheck/missing.html";
/// The tool with a UI.
pub const TOOL: &str = "dashboard";
/// What the dashboard tool answers, for hosts with and without apps.
const DASHBOARD_TEXT: &str = "mcpcheck serve is running: its tools, prompts and resources are what tools/list, prompts/list and resources/list return.";

const HTML: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcpcheck dashboard</title>
</head>
<body>
<main>
<h1>mcpcheck dashboard</h1>
<p id="result">Waiting for the tool result.</p>
</main>
<script>
window.addEventListener("message", (event) => {
  const message = event.data;
  if (message && message.method === "ui/notifications/tool-result") {
    const blocks = (message.params && message.params.content) || [];
    document.getElementById("result").textContent = blocks
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n");
  }
});
</script>
</body>
</html>
"#;

/// The app of one server process.
#[derive(Debug, Clone, Copy)]
pub struct App {
    missing: bool,
    wrong_mime: bool,
    not_html: bool,
    bad_csp: bool,
    bad_visibility: bool,
    flat_meta: bool,
    empty_content: bool,
}

impl App {
    pub fn new(faults: &FaultSet) -> Self {
        Self {
            missing: faults.has(Fault::AppMissingResource),
            wrong_mime: faults.has(Fault::AppWrongMime),
            not_html: faults.has(Fault::AppNotHtml),
            bad_csp: faults.has(Fault::AppBadCsp),
            bad_visibility: faults.has(Fault::AppBadVisibility),
            flat_meta: faults.has(Fault::AppFlatMeta),
            empty_content: faults.has(Fault::AppEmptyContent),
        }
    }

    /// The dashboard tool, as tools/list shows it.
    pub fn tool(&self) -> Value {
        let uri = if self.missing {
            MISSING_URI
        } else {
            DASHBOARD_URI
        };
        let visibility = if self.bad_visibility {
            json!(["model", "apps"])
        } else {
            json!(["model", "app"])
        };
        let meta = if self.flat_meta {
            json!({ "ui/resourceUri": uri })
        } else {
            json!({ "ui": { "resourceUri": uri, "visibility": visibility } })
        };
        json!({
            "name": TOOL,
            "title": "Dashboard",
            "description": "Shows that the server runs, in an interactive view (MCP Apps); a host without apps gets the same as text.",
            "inputSchema": { "type": "object", "properties": {}, "additionalProperties": false },
            "annotations": { "readOnlyHint": true },
            "_meta": meta,
        })
    }

    /// The result of a dashboard call: the same on every call, like every
    /// answer of the server.
    pub fn call(&self) -> Value {
        let content = if self.empty_content {
            json!([])
        } else {
            json!([{ "type": "text", "text": DASHBOARD_TEXT }])
        };
        json!({ "content": content, "isError": false })
    }

    fn mime(&self) -> &'static str {
        if self.wrong_mime { "text/html" } else { MIME }
    }

    fn ui_meta(&self) -> Value {
        let connect = if self.bad_csp {
            json!(["https://api.example.com/v1/counters"])
        } else {
            json!([])
        };
        json!({ "ui": {
            "csp": { "connectDomains": connect, "resourceDomains": [] },
            "prefersBorder": true,
        } })
    }

    /// The dashboard's resource, as resources/list shows it.
    pub fn resource(&self) -> Value {
        json!({
            "uri": DASHBOARD_URI,
            "name": "dashboard",
            "title": "mcpcheck dashboard",
            "description": "The dashboard tool's view: an HTML5 document for MCP Apps hosts.",
            "mimeType": self.mime(),
            "_meta": self.ui_meta(),
        })
    }

    /// The contents of `uri`, when it is the dashboard.
    pub fn read(&self, uri: &str) -> Option<Value> {
        if uri != DASHBOARD_URI {
            return None;
        }
        let text = if self.not_html {
            "<div id=\"result\">mcpcheck dashboard</div>"
        } else {
            HTML
        };
        Some(json!({
            "uri": uri,
            "mimeType": self.mime(),
            "text": text,
            "_meta": self.ui_meta(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(faults: &[Fault]) -> App {
        App::new(&FaultSet::new(faults.iter().copied()))
    }

    #[test]
    fn the_tool_points_at_its_resource() {
        let app = app(&[]);
        let tool = app.tool();
        let uri = tool["_meta"]["ui"]["resourceUri"].as_str().expect("a uri");
        assert_eq!(app.resource()["uri"], uri);
        let read = app.read(uri).expect("readable");
        assert_eq!(read["mimeType"], MIME);
        assert!(
            read["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("<!DOCTYPE html>"))
        );
        assert_eq!(tool["_meta"]["ui"]["visibility"], json!(["model", "app"]));
        assert_eq!(app.call()["content"][0]["text"], DASHBOARD_TEXT);
    }

    #[test]
    fn faults_change_what_they_name() {
        let broken = app(&[
            Fault::AppMissingResource,
            Fault::AppWrongMime,
            Fault::AppNotHtml,
            Fault::AppEmptyContent,
        ]);
        let uri = broken.tool()["_meta"]["ui"]["resourceUri"].clone();
        assert_eq!(uri, MISSING_URI);
        assert!(broken.read(MISSING_URI).is_none());
        assert_eq!(broken.resource()["mimeType"], "text/html");
        let read = broken.read(DASHBOARD_URI).expect("readable");
        assert!(!read["text"].as_str().unwrap_or("").contains("DOCTYPE"));
        assert_eq!(broken.call()["content"], json!([]));
        let flat = app(&[Fault::AppFlatMeta]).tool();
        assert_eq!(flat["_meta"]["ui/resourceUri"], DASHBOARD_URI);
        assert!(flat["_meta"].get("ui").is_none());
    }
}
