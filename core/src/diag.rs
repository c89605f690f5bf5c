//! Diagnostics: problems found while loading suites, expectations and traces.
//!
//! A diagnostic is data (file, span, message, hint), never a panic and never a
//! printed line. One renderer turns a list of them into text; the caller picks
//! the paint (plain, ANSI for a terminal, HTML for the playground), so the words
//! are the same everywhere.

use std::fmt::Write as _;

/// A position range in a source text. Lines and columns are 1-based and count
/// characters (not bytes), the way editors show them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl Span {
    pub fn new(line: u32, col: u32, end_line: u32, end_col: u32) -> Self {
        Span {
            line,
            col,
            end_line,
            end_col,
        }
    }

    /// A span that points at no text (values built from JSON, not YAML).
    pub fn none() -> Self {
        Span::default()
    }

    pub fn is_none(&self) -> bool {
        self.line == 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The file name as the caller named it (a path, or a label like `<expect>`).
    pub file: String,
    pub span: Span,
    pub message: String,
    /// What to do about it, e.g. "did you mean `not_error`?".
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(file: &str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.to_string(),
            span,
            message: message.into(),
            hint: None,
        }
    }

    pub fn warning(file: &str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, span, message)
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col`, or just the file when there is no position.
    pub fn location(&self) -> String {
        if self.span.is_none() {
            self.file.clone()
        } else {
            format!("{}:{}:{}", self.file, self.span.line, self.span.col)
        }
    }

    /// One line: `file:line:col: error: message (hint)`.
    pub fn one_line(&self) -> String {
        let mut s = format!(
            "{}: {}: {}",
            self.location(),
            self.severity.as_str(),
            self.message
        );
        if let Some(h) = &self.hint {
            let _ = write!(s, " ({h})");
        }
        s
    }
}

/// How rendered text is decorated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// No decoration at all (pipes, files, `NO_COLOR`).
    Plain,
    /// ANSI escape codes for a colour terminal.
    Ansi,
    /// HTML: text escaped, styled parts wrapped in `<span class="…">`.
    Html,
}

/// The styles the renderers use; each paint maps them to its own markup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Error,
    Warning,
    Pass,
    Skip,
    Dim,
    Bold,
    Accent,
}

impl Paint {
    /// Decorate `text` with `style`. HTML-escapes under [`Paint::Html`].
    pub fn paint(self, style: Style, text: &str) -> String {
        match self {
            Paint::Plain => terminal_safe(text).into_owned(),
            Paint::Ansi => {
                let text = terminal_safe(text);
                let code = match style {
                    Style::Error => "1;31",
                    Style::Warning => "1;33",
                    Style::Pass => "1;32",
                    Style::Skip => "33",
                    Style::Dim => "2",
                    Style::Bold => "1",
                    Style::Accent => "36",
                };
                format!("\x1b[{code}m{text}\x1b[0m")
            }
            Paint::Html => {
                let class = match style {
                    Style::Error => "err",
                    Style::Warning => "warn",
                    Style::Pass => "pass",
                    Style::Skip => "skip",
                    Style::Dim => "dim",
                    Style::Bold => "bold",
                    Style::Accent => "accent",
                };
                format!("<span class=\"{class}\">{}</span>", html_escape(text))
            }
        }
    }

    /// Undecorated text, escaped when the paint is HTML.
    pub fn text(self, text: &str) -> String {
        match self {
            Paint::Html => html_escape(text),
            _ => terminal_safe(text).into_owned(),
        }
    }
}

/// Text with every control character but newline and tab shown escaped
/// (`\x1b`, `\r`, `\u{9b}`), and the bidirectional overrides too: what a
/// server sent must not clear the screen, move the cursor, write the
/// clipboard, or print a fake `PASS` line over a real one.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if unsafe_char(c) && (c as u32) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Escape the five HTML-significant characters.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Render diagnostics with a source excerpt under each, like:
///
/// ```text
/// error: unknown key `not_eror` in `expect`
///   --> evals/read.yaml:7:5
///    |
///  7 |     not_eror: true
///    |     ^^^^^^^^
///    = hint: did you mean `not_error`?
/// ```
///
/// `source` returns the text of a file by name, when the caller has it.
pub fn render<'a>(
    diags: &[Diagnostic],
    source: &dyn Fn(&str) -> Option<&'a str>,
    paint: Paint,
) -> String {
    let mut out = String::new();
    for d in diags {
        render_one(&mut out, d, source(&d.file), paint);
    }
    out
}

fn render_one(out: &mut String, d: &Diagnostic, source: Option<&str>, paint: Paint) {
    let style = match d.severity {
        Severity::Error => Style::Error,
        Severity::Warning => Style::Warning,
    };
    let _ = writeln!(
        out,
        "{}{}",
        paint.paint(style, &format!("{}:", d.severity.as_str())),
        paint.paint(Style::Bold, &format!(" {}", d.message))
    );
    let line_text = source.and_then(|s| {
        if d.span.is_none() {
            None
        } else {
            s.lines().nth(d.span.line as usize - 1)
        }
    });
    let gutter = if d.span.is_none() {
        1
    } else {
        d.span.line.to_string().len()
    };
    let pad = " ".repeat(gutter);
    let _ = writeln!(
        out,
        "{pad}{} {}",
        paint.paint(Style::Accent, "-->"),
        paint.text(&d.location())
    );
    if let Some(text) = line_text {
        let text = text.trim_end_matches('\r');
        let bar = paint.paint(Style::Accent, "|");
        let _ = writeln!(out, "{pad} {bar}");
        let _ = writeln!(
            out,
            "{} {bar} {}",
            paint.paint(Style::Accent, &d.span.line.to_string()),
            paint.text(text)
        );
        let start = d.span.col.saturating_sub(1) as usize;
        let width = if d.span.end_line == d.span.line && d.span.end_col > d.span.col {
            (d.span.end_col - d.span.col) as usize
        } else {
            text.chars().count().saturating_sub(start).max(1)
        };
        let indent: String = text
            .chars()
            .take(start)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let _ = writeln!(
            out,
            "{pad} {bar} {indent}{}",
            paint.paint(style, &"^".repeat(width.max(1)))
        );
    }
    if let Some(h) = &d.hint {
        let _ = writeln!(
            out,
            "{pad} {} {}",
            paint.paint(Style::Accent, "="),
            paint.text(&format!("hint: {h}"))
        );
    }
}

/// "did you mean `x`?" for the closest of `candidates` to `word`, if any is close.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(word, c);
        if score > 0.8 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_text_cannot_drive_the_terminal() {
        let hostile = "ok\x1b[2J\x1b]52;c;aGk=\x07\rPASS  fake\u{9b}31m\u{202e}txt\nnext\tcol";
        let shown = Paint::Ansi.paint(Style::Error, hostile);
        assert_eq!(
            shown,
            "\x1b[1;31mok\\x1b[2J\\x1b]52;c;aGk=\\x07\\rPASS  fake\\u{9b}31m\\u{202e}txt\nnext\tcol\x1b[0m"
        );
        assert_eq!(Paint::Plain.text("\x1b[31m"), "\\x1b[31m");
        assert_eq!(Paint::Plain.text("plain é ✓"), "plain é ✓", "untouched");
        assert_eq!(Paint::Html.text("\x1b"), "\x1b", "HTML shows it as it is");
    }

    #[test]
    fn renders_excerpt_with_caret_and_hint() {
        let src = "name: x\nassert:\n  expect:\n    not_eror: true\n";
        let d = Diagnostic::error("t.yaml", Span::new(4, 5, 4, 13), "unknown key `not_eror`")
            .with_hint("did you mean `not_error`?");
        let out = render(&[d], &|_| Some(src), Paint::Plain);
        assert_eq!(
            out,
            "error: unknown key `not_eror`\n --> t.yaml:4:5\n  |\n4 |     not_eror: true\n  |     ^^^^^^^^\n  = hint: did you mean `not_error`?\n"
        );
    }

    #[test]
    fn html_paint_escapes() {
        let d = Diagnostic::error("<x>", Span::none(), "bad <script>");
        let out = render(&[d], &|_| None, Paint::Html);
        assert!(out.contains("bad &lt;script&gt;"));
        assert!(!out.contains("<script>"));
    }

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("not_eror", ["not_error", "is_error", "contains"]).as_deref(),
            Some("did you mean `not_error`?")
        );
        assert_eq!(did_you_mean("zzz", ["not_error"]), None);
    }
}
