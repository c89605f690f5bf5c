//! Prepares the MCP schemas that `src/invariants/schema.rs` embeds.
//!
//! The vendored `schemas/mcp/<revision>/schema.json` files stay byte for byte as
//! published; what the binary embeds is each one with its `description`
//! annotations removed and without whitespace. Descriptions are prose for
//! readers: no validation result and no finding depends on them, and they are
//! four fifths of the text (about 57 KB of the gzipped wasm module).
//!
//! Only the first revision is embedded whole; each later one is embedded as
//! the JSON Merge Patch (RFC 7396) that makes it from the one before, both
//! read with their definitions table called `definitions` (a revision that
//! calls it `$defs`, and points its `$ref`s there, is renamed back after the
//! patch). Consecutive revisions share most of their text, which gzip, with
//! its 32 KB window, does not find between documents of 20 to 40 KB: about
//! 2.6 KB of the gzipped module. Every patch is checked here: applied, it
//! gives the revision exactly, or the build stops.
//!
//! Only the `description` *keyword* goes. Where a schema declares a property
//! named `description` (`Tool.properties.description`), that declaration stays:
//! the walk knows which members hold subschemas and which hold names or data.

// A build script reads its inputs from the package; the core's ban on I/O is
// for the library.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use serde_json::Value;

// The core's own reading of the patches, so what is checked here is what runs.
#[path = "src/invariants/schema_patch.rs"]
mod schema_patch;
use schema_patch::{merge_patch as apply_merge_patch, rename_definitions as denormalize};

const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

fn main() {
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let write = |name: String, text: String| {
        let target = Path::new(&out).join(name);
        std::fs::write(&target, text)
            .unwrap_or_else(|e| panic!("writing {}: {e}", target.display()));
    };
    let mut before: Option<Value> = None;
    for revision in REVISIONS {
        let source = format!("schemas/mcp/{revision}/schema.json");
        println!("cargo::rerun-if-changed={source}");
        let text =
            std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("reading {source}: {e}"));
        let mut schema: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{source} is not JSON: {e}"));
        strip_schema(&mut schema);
        // The whole document, for the core's tests to compare with.
        write(format!("schema-{revision}.json"), schema.to_string());
        let uses_defs = schema.get("$defs").is_some();
        let normal = normalize(&schema);
        let mut back = normal.clone();
        if uses_defs {
            denormalize(&mut back);
        }
        assert!(
            back == schema,
            "{source}: its definitions cannot be renamed and back"
        );
        match &before {
            None => write(format!("schema-{revision}.base.json"), normal.to_string()),
            Some(previous) => {
                let patch = merge_patch(previous, &normal);
                let mut applied = previous.clone();
                apply_merge_patch(&mut applied, &patch);
                assert!(
                    applied == normal,
                    "{source}: the merge patch does not give it back"
                );
                let step = serde_json::json!({ "uses_defs": uses_defs, "patch": patch });
                write(format!("schema-{revision}.patch.json"), step.to_string());
            }
        }
        before = Some(normal);
    }
    examples(Path::new(&out));
}

/// The document with its `$defs` table called `definitions`, and every
/// `$ref` into it pointing there.
fn normalize(schema: &Value) -> Value {
    fn refs(v: &mut Value, from: &str, to: &str) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "$ref"
                        && let Some(rest) = x.as_str().and_then(|r| r.strip_prefix(from))
                    {
                        *x = Value::String(format!("{to}{rest}"));
                    } else {
                        refs(x, from, to);
                    }
                }
            }
            Value::Array(list) => list.iter_mut().for_each(|x| refs(x, from, to)),
            _ => {}
        }
    }
    let mut out = schema.clone();
    if let Some(Value::Object(m)) = Some(&mut out)
        && let Some(table) = m.remove("$defs")
    {
        m.insert("definitions".into(), table);
        refs(&mut out, "#/$defs/", "#/definitions/");
    }
    out
}

/// The RFC 7396 merge patch that makes `to` from `from` (neither holds a
/// `null`, which a merge patch cannot write: checked by the caller applying
/// it).
fn merge_patch(from: &Value, to: &Value) -> Value {
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => {
            let mut patch = serde_json::Map::new();
            for k in a.keys().filter(|k| !b.contains_key(*k)) {
                patch.insert(k.clone(), Value::Null);
            }
            for (k, v) in b {
                match a.get(k) {
                    None => {
                        patch.insert(k.clone(), v.clone());
                    }
                    Some(old) if old != v => {
                        patch.insert(k.clone(), merge_patch(old, v));
                    }
                    Some(_) => {}
                }
            }
            Value::Object(patch)
        }
        _ => to.clone(),
    }
}

/// The example `mcpcheck rule CODE` shows for the rules with shared vectors:
/// per code, the smallest vector that fires it (lint and scan: its listing;
/// invariants: what the capture holds and the message it gives). Written as
/// `examples.rs`, a table `findings::examples` includes.
fn examples(out: &Path) {
    let mut rows: std::collections::BTreeMap<String, (u64, String)> = Default::default();
    for (family, fires) in [
        ("lint", "-fires-"),
        ("scan", "-fires-"),
        ("invariants", "-breaks"),
    ] {
        let dir = format!("tests/vectors/{family}");
        println!("cargo::rerun-if-changed={dir}");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if !name.ends_with(".json") || !name.contains(fires) {
                continue;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let v: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
            let Some(code) = v["rule"].as_str() else {
                continue;
            };
            let title = v["name"].as_str().unwrap_or_default();
            let row = if family == "invariants" {
                let message = v["expect"]["findings"]
                    .as_array()
                    .and_then(|f| f.iter().find(|f| f["id"] == code))
                    .and_then(|f| f["message"].as_str())
                    .unwrap_or_default();
                format!(
                    "Example {{ code: {code:?}, title: {title:?}, family: {family:?}, input: \"\", message: {message:?} }}"
                )
            } else {
                let listing = serde_json::to_string_pretty(&v["listing"]).unwrap_or_default();
                format!(
                    "Example {{ code: {code:?}, title: {title:?}, family: {family:?}, input: {listing:?}, message: \"\" }}"
                )
            };
            let better = rows.get(code).is_none_or(|(s, _)| size < *s);
            if better {
                rows.insert(code.to_string(), (size, row));
            }
        }
    }
    let mut text = String::from("&[\n");
    for (_, (_, row)) in rows {
        text.push_str(&format!("    {row},\n"));
    }
    text.push_str("]\n");
    let target = out.join("examples.rs");
    std::fs::write(&target, text).unwrap_or_else(|e| panic!("writing {}: {e}", target.display()));
}

/// Remove the annotations from a schema and from every subschema in it.
fn strip_schema(schema: &mut Value) {
    let Value::Object(members) = schema else {
        return; // `true`, `false`
    };
    members.remove("description");
    members.remove("$comment");
    for (keyword, value) in members.iter_mut() {
        match keyword.as_str() {
            // Maps from a name to a subschema.
            "properties" | "patternProperties" | "definitions" | "$defs" | "dependentSchemas" => {
                if let Value::Object(named) = value {
                    named.values_mut().for_each(strip_schema);
                }
            }
            // One subschema, or (`items` in draft 7) an array of them.
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contains"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else" => match value {
                Value::Array(list) => list.iter_mut().for_each(strip_schema),
                other => strip_schema(other),
            },
            // Arrays of subschemas.
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(list) = value {
                    list.iter_mut().for_each(strip_schema);
                }
            }
            // Data (`const`, `enum`, `default`, `examples`), names (`required`)
            // and numbers are kept as they are.
            _ => {}
        }
    }
}
