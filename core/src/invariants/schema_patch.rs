//! The two steps that turn the embedded schema patches back into documents:
//! an RFC 7396 merge patch applied, and the `definitions` table called
//! `$defs`. Shared by the core (`schema.rs`) and `core/build.rs`, which checks
//! every patch with them; it uses nothing but `serde_json`.

use serde_json::Value;

/// RFC 7396 §2: `patch` applied to `target`.
pub(crate) fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(serde_json::Map::new());
    }
    if let Value::Object(t) = target {
        for (k, v) in patch {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// The table `definitions` called `$defs`, and every `$ref` into it with it.
pub(crate) fn rename_definitions(schema: &mut Value) {
    fn refs(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "$ref"
                        && let Some(rest) =
                            x.as_str().and_then(|r| r.strip_prefix("#/definitions/"))
                    {
                        *x = Value::String(format!("#/$defs/{rest}"));
                    } else {
                        refs(x);
                    }
                }
            }
            Value::Array(list) => list.iter_mut().for_each(refs),
            _ => {}
        }
    }
    if let Value::Object(m) = schema
        && let Some(table) = m.remove("definitions")
    {
        m.insert("$defs".into(), table);
    }
    refs(schema);
}
