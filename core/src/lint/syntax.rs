//! The small grammars lint checks: tool names (MCP 2025-11-25), absolute URIs
//! (RFC 3986, read leniently: non-ASCII is allowed as in IRIs), URI templates
//! (RFC 6570 expressions) and media types (RFC 6838 / RFC 9110).

/// Why a tool name breaks MCP 2025-11-25's naming rule (1 to 128 characters of
/// `A-Za-z0-9_-.`), if it does: INV-014's words, with the name quoted when a
/// character is the problem.
pub(super) fn tool_name_problem(name: &str) -> Option<String> {
    let problem = crate::invariants::tools::name_problem(name)?;
    Some(if problem.starts_with("contains") {
        format!("`{}` {problem}", super::quote(name, 60))
    } else {
        problem
    })
}

/// Why `uri` is not an absolute URI, if it is not: no scheme, a malformed scheme,
/// a character URIs cannot hold (space, control, `\ " < > ^ ` { | }`), or a `%`
/// not followed by two hex digits.
pub(super) fn uri_problem(uri: &str) -> Option<String> {
    if uri.is_empty() {
        return Some("is empty".to_string());
    }
    let scheme = uri.split_once(':').map(|(s, _)| s);
    let Some(scheme) = scheme.filter(|s| !s.is_empty() && !s.contains(['/', '?', '#'])) else {
        return Some(
            "has no scheme; a resource is named by an absolute URI such as file:///path or https://host/path"
                .to_string(),
        );
    };
    let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return Some(format!(
            "has `{}` where the scheme belongs",
            super::quote(scheme, 30)
        ));
    }
    let bytes = uri.as_bytes();
    for (i, c) in uri.char_indices() {
        let what = match c {
            ' ' => "a space (percent-encode it as %20)",
            '{' | '}' => "a brace (a URI with variables belongs in resourceTemplates)",
            '\\' => "a backslash (URIs separate path segments with /)",
            '"' | '<' | '>' | '^' | '`' | '|' => "a character URIs cannot hold unencoded",
            c if c.is_control() || c.is_whitespace() => "a control or whitespace character",
            '%' => {
                let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
                if hex(i + 1) && hex(i + 2) {
                    continue;
                }
                "a % that does not start a percent-encoding (%XX)"
            }
            _ => continue,
        };
        return Some(format!("contains {what}"));
    }
    None
}

/// What is malformed in a uriTemplate; the message follows "uriTemplate
/// `…`". `shown` is the expression as quoted, braces included.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum TemplateError {
    #[error("has a `}}` with no `{{` before it")]
    StrayClose,
    #[error("has a `{{` that is never closed")]
    Unclosed,
    #[error("has a `{{` inside an expression (braces do not nest)")]
    Nested,
    #[error("uses the reserved operator `{op}` in `{shown}`")]
    Reserved { op: char, shown: String },
    #[error("has an empty expression `{0}`")]
    Empty(String),
    #[error("has `{name}` in `{shown}`, not a variable name (letters, digits, _, %XX, . between)")]
    VarName { name: String, shown: String },
    #[error("has the prefix modifier `:{modifier}` in `{shown}` (1 to 9999)")]
    Prefix { modifier: String, shown: String },
}

/// A uriTemplate's expressions, or why it is malformed (RFC 6570: balanced braces,
/// no empty expression, no reserved operator, valid variable names and modifiers).
pub(super) fn template_expressions(template: &str) -> Result<usize, TemplateError> {
    let mut count = 0usize;
    let mut rest = template;
    loop {
        let open = rest.find('{');
        let close = rest.find('}');
        match (open, close) {
            (None, None) => return Ok(count),
            (None, Some(_)) => return Err(TemplateError::StrayClose),
            (Some(o), Some(c)) if c < o => {
                return Err(TemplateError::StrayClose);
            }
            (Some(_), None) => return Err(TemplateError::Unclosed),
            (Some(o), Some(c)) => {
                let inner = &rest[o + 1..c];
                if inner.contains('{') {
                    return Err(TemplateError::Nested);
                }
                expression(inner)?;
                count += 1;
                rest = &rest[c + 1..];
            }
        }
    }
}

/// One expression's content (between the braces).
fn expression(inner: &str) -> Result<(), TemplateError> {
    let shown = format!("{{{}}}", super::quote(inner, 40));
    let mut body = inner;
    if let Some(op) = inner.chars().next() {
        if matches!(op, '+' | '#' | '.' | '/' | ';' | '?' | '&') {
            body = &inner[1..];
        } else if matches!(op, '=' | ',' | '!' | '@' | '|') {
            return Err(TemplateError::Reserved { op, shown });
        }
    }
    if body.is_empty() {
        return Err(TemplateError::Empty(shown));
    }
    for varspec in body.split(',') {
        let (name, modifier) = match varspec.split_once(':') {
            Some((name, n)) => (name, Some(n)),
            None => (varspec.strip_suffix('*').unwrap_or(varspec), None),
        };
        if !valid_varname(name) {
            return Err(TemplateError::VarName {
                name: super::quote(name, 30).to_string(),
                shown,
            });
        }
        if let Some(n) = modifier {
            let ok = !n.is_empty()
                && n.len() <= 4
                && n.chars().all(|c| c.is_ascii_digit())
                && !n.starts_with('0');
            if !ok {
                return Err(TemplateError::Prefix {
                    modifier: super::quote(n, 10).to_string(),
                    shown,
                });
            }
        }
    }
    Ok(())
}

fn valid_varname(name: &str) -> bool {
    if name.is_empty() || name.starts_with('.') || name.ends_with('.') || name.contains("..") {
        return false;
    }
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
            }
            b if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' => i += 1,
            _ => return false,
        }
    }
    true
}

/// Why `mime` is not `type/subtype` with optional `; name=value` parameters, if it
/// is not.
pub(super) fn mime_problem(mime: &str) -> Option<String> {
    let tchar = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '!' | '#'
                    | '$'
                    | '%'
                    | '&'
                    | '\''
                    | '*'
                    | '+'
                    | '-'
                    | '.'
                    | '^'
                    | '_'
                    | '`'
                    | '|'
                    | '~'
            )
    };
    let token = |s: &str| !s.is_empty() && s.chars().all(tchar);
    let mut parts = mime.split(';');
    let essence = parts.next().unwrap_or("").trim();
    let shown = super::quote(mime, 60);
    match essence.split_once('/') {
        Some((t, s)) if token(t) && token(s) => {}
        _ => {
            return Some(format!(
                "`{shown}` is not type/subtype (e.g. text/plain, application/json)"
            ));
        }
    }
    for parameter in parts {
        let parameter = parameter.trim();
        if parameter.is_empty() {
            continue;
        }
        let ok = match parameter.split_once('=') {
            Some((name, value)) => {
                token(name.trim())
                    && (token(value.trim())
                        || (value.len() >= 2 && value.starts_with('"') && value.ends_with('"')))
            }
            None => false,
        };
        if !ok {
            return Some(format!(
                "`{shown}` has the parameter `{}`, not name=value",
                super::quote(parameter, 30)
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        for ok in ["getUser", "DATA_EXPORT_v2", "admin.tools.list", "a-b"] {
            assert_eq!(tool_name_problem(ok), None, "{ok}");
        }
        assert_eq!(tool_name_problem("").as_deref(), Some("is empty"));
        assert!(tool_name_problem(&"a".repeat(129)).is_some());
        assert_eq!(tool_name_problem(&"a".repeat(128)), None);
        let spaced = tool_name_problem("get user, now").unwrap_or_default();
        assert!(spaced.contains("' ', ','"), "{spaced}");
    }

    #[test]
    fn uris() {
        for ok in [
            "file:///home/user/notes.txt",
            "https://example.com/a?b=c#d",
            "test://static/resource/1",
            "urn:isbn:0451450523",
            "mailto:a@example.com",
            "file:///docs/r%C3%A9sum%C3%A9.pdf",
            "file:///docs/résumé.pdf",
            "data:text/plain;base64,SGVsbG8=",
        ] {
            assert_eq!(uri_problem(ok), None, "{ok}");
        }
        let bad = [
            ("", "empty"),
            ("/docs/readme.md", "no scheme"),
            ("readme.md", "no scheme"),
            ("://x", "no scheme"),
            ("1abc:x", "where the scheme belongs"),
            ("file:///My Documents/a.txt", "a space"),
            ("file:///a/{id}", "a brace"),
            ("C:\\Users\\a.txt", "a backslash"),
            ("file:///a%zz", "percent-encoding"),
            ("file:///a\nb", "control"),
        ];
        for (uri, want) in bad {
            let problem = uri_problem(uri).unwrap_or_default();
            assert!(problem.contains(want), "{uri}: {problem}");
        }
    }

    #[test]
    fn templates() {
        let ok = [
            ("file:///{path}", 1),
            ("users://{id}/profile", 1),
            ("https://api.example.com/{+path}{?q,limit}", 2),
            ("x://{a.b}/{c_d}/{list*}/{var:30}/{%20x}", 5),
            ("fixed://resource", 0),
        ];
        for (t, n) in ok {
            assert_eq!(template_expressions(t), Ok(n), "{t}");
        }
        let bad = [
            ("file:///{path", "never closed"),
            ("file:///path}", "no `{` before"),
            ("file:///}{x}", "no `{` before"),
            ("file:///{a{b}}", "do not nest"),
            ("file:///{}", "empty expression"),
            ("file:///{+}", "empty expression"),
            ("file:///{=x}", "reserved operator"),
            ("file:///{a b}", "not a variable name"),
            ("file:///{a-b}", "not a variable name"),
            ("file:///{a:0}", "prefix modifier"),
            ("file:///{a:10000}", "prefix modifier"),
        ];
        for (t, want) in bad {
            let problem = template_expressions(t)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(problem.contains(want), "{t}: {problem}");
        }
    }

    #[test]
    fn mime_types() {
        for ok in [
            "text/plain",
            "application/json",
            "image/svg+xml",
            "text/plain; charset=utf-8",
            "text/plain;charset=\"utf-8\"",
            "application/vnd.api+json",
            "text/x-rust",
        ] {
            assert_eq!(mime_problem(ok), None, "{ok}");
        }
        for bad in [
            "text",
            "",
            "text/",
            "/plain",
            "text plain",
            "text/plain; charset",
            "text/pla in",
        ] {
            assert!(mime_problem(bad).is_some(), "{bad}");
        }
    }
}
