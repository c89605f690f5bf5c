//! The floor for `bench/invariants.sh`: read a capture file and parse it with
//! serde_json, nothing else. `mcpcheck invariants` is measured against this.
//!
//! Usage: `parse_floor FILE [value|validate]`. `value` (the default) builds a
//! `serde_json::Value`, what a plain "parse the capture" does; `validate` only checks
//! the syntax (serde's `IgnoredAny`), the least any JSON reader must do.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(path), mode) = (args.next(), args.next()) else {
        eprintln!("usage: parse_floor FILE [value|validate]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("cannot read {path}: {error}");
            return ExitCode::from(2);
        }
    };
    let parsed = match mode.as_deref().unwrap_or("value") {
        "value" => serde_json::from_str::<serde_json::Value>(&text).map(|value| match &value {
            serde_json::Value::Array(items) => items.len(),
            serde_json::Value::Object(members) => members.len(),
            _ => 1,
        }),
        "validate" => serde_json::from_str::<serde::de::IgnoredAny>(&text).map(|_| 1),
        other => {
            eprintln!("unknown mode {other}: use value or validate");
            return ExitCode::from(2);
        }
    };
    match parsed {
        Ok(members) => {
            println!("parsed {} bytes ({members} top-level entries)", text.len());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("not JSON: {error}");
            ExitCode::from(1)
        }
    }
}
