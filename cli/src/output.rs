//! Terminal output: colour decisions and writing that survives a closed pipe.

use std::io::{IsTerminal, Write};

use clap::ValueEnum;

use mcpcheck_core::diag::Paint;

/// How a report command prints (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    Text,
    /// The versioned JSON document.
    Json,
}

/// ANSI colour on a terminal, plain text otherwise; `NO_COLOR` (any value)
/// and `TERM=dumb` turn colour off.
pub fn paint_for_stdout() -> Paint {
    paint_for(std::io::stdout().is_terminal())
}

pub fn paint_for_stderr() -> Paint {
    paint_for(std::io::stderr().is_terminal())
}

fn paint_for(tty: bool) -> Paint {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
    if tty && !no_color && !dumb {
        Paint::Ansi
    } else {
        Paint::Plain
    }
}

/// Set once stdout carries a protocol (`mcpcheck mcp` on stdio): from then
/// on [`out`] writes to stderr, so no report can corrupt the messages.
static STDOUT_IS_PROTOCOL: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// From now on, stdout belongs to a protocol: [`out`] goes to stderr.
pub fn stdout_is_protocol() {
    STDOUT_IS_PROTOCOL.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Write to stdout; a closed pipe (`mcpcheck … | head`) is not an error.
pub fn out(text: &str) {
    if STDOUT_IS_PROTOCOL.load(std::sync::atomic::Ordering::SeqCst) {
        err(text);
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Write to stderr.
pub fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// A `--timeout`-style argument: `30s`, `1m30s`, `500ms` (core's duration syntax).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, crate::error::ValueError> {
    mcpcheck_core::parse_duration_ms(s)
        .map(std::time::Duration::from_millis)
        .ok_or_else(|| crate::error::ValueError::Duration(s.to_string()))
}

/// A duration the way a suite writes one: `1s`, `1500ms`, `2m`.
pub fn duration_text(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms > 0 && ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms > 0 && ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}
