//! The audit log: one JSON line per `tools/call`, appended to a file and
//! flushed line by line, so a reader (`audit_log:` in a trajectory test)
//! sees every finished call even while the server keeps running.
//!
//! Line format (keys in this order):
//! `{"time": RFC 3339 UTC, "tool": name, "args": {…redacted…}, "identity": label,
//!   "duration_ms": integer, "response_bytes": integer, "is_error": bool}`.
//! The trajectory reader relies on `tool` (a string) and `args` (an object).

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::Path;
use std::sync::Mutex;

use serde_json::{Value, json};

/// Substrings that make an argument key look secret (compared in lower case).
pub const SECRET_KEY_MARKERS: [&str; 11] = [
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "authorization",
    "credential",
    "private_key",
    "cookie",
];

/// What replaces the value of a secret-looking argument.
pub const REDACTED: &str = "***";

/// One finished `tools/call`.
#[derive(Debug)]
pub struct Entry<'a> {
    /// When the call arrived, RFC 3339 in UTC with milliseconds.
    pub time: String,
    pub tool: &'a str,
    pub args: Option<&'a serde_json::Map<String, Value>>,
    pub identity: &'a str,
    pub duration_ms: u64,
    /// Size of the serialized result (or JSON-RPC error) object.
    pub response_bytes: usize,
    /// `isError: true`, or a JSON-RPC error instead of a result.
    pub is_error: bool,
}

#[derive(Debug)]
pub struct AuditLog {
    file: Mutex<File>,
}

impl AuditLog {
    /// Opens `path` for appending, creating it if needed.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self {
            file: Mutex::new(file),
        })
    }

    /// Appends one line. The whole line goes out in one write on an
    /// append-mode file, so concurrent sessions never interleave within a
    /// line. A failed write is reported on stderr and does not fail the call.
    pub fn record(&self, entry: &Entry<'_>) {
        let args = entry
            .args
            .map_or_else(|| json!({}), |args| redact(&Value::Object(args.clone())));
        let line = json!({
            "time": entry.time,
            "tool": entry.tool,
            "args": args,
            "identity": entry.identity,
            "duration_ms": entry.duration_ms,
            "response_bytes": entry.response_bytes,
            "is_error": entry.is_error,
        });
        let mut bytes = line.to_string().into_bytes();
        bytes.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(error) = file.write_all(&bytes).and_then(|()| file.flush()) {
            eprintln!("mcpcheck serve: cannot write the audit log: {error}");
        }
    }
}

/// The current time as the audit log writes it.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A copy of `value` in which every object member whose key looks secret
/// has its value replaced by `"***"`, at any depth.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let value = if looks_secret(key) {
                        Value::String(REDACTED.to_owned())
                    } else {
                        redact(value)
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

pub fn looks_secret(key: &str) -> bool {
    let key = key.to_lowercase();
    SECRET_KEY_MARKERS.iter().any(|marker| key.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_at_any_depth_and_case() {
        let args = json!({
            "message": "hi",
            "Password": "p",
            "nested": {"x_API_KEY": "k", "list": [{"authToken": "t", "keep": 1}]},
            "credentials": {"user": "u"}
        });
        assert_eq!(
            redact(&args),
            json!({
                "message": "hi",
                "Password": "***",
                "nested": {"x_API_KEY": "***", "list": [{"authToken": "***", "keep": 1}]},
                "credentials": "***"
            })
        );
    }

    #[test]
    fn time_is_rfc3339_utc() {
        let time = now();
        assert!(time.ends_with('Z'), "{time}");
        assert!(
            chrono::DateTime::parse_from_rfc3339(&time).is_ok(),
            "{time}"
        );
    }
}
