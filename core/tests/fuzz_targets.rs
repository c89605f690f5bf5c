//! Property tests ("fuzz targets") of the readers and generators that take
//! untrusted input: schema-driven arguments (`valid_arguments`,
//! `arguments_within_bounds`, fuzz cases, `generate`'s example arguments),
//! the capture reader and the lockfile reader. Each property runs a fixed
//! number of cases on every `cargo test`, from a fixed seed so a failure
//! reproduces; `PROPTEST_CASES=N` runs more.

use mcpcheck_core::capture;
use mcpcheck_core::generate;
use mcpcheck_core::invariants;
use mcpcheck_core::lock::Lock;
use mcpcheck_core::probe::{self, Arguments, MAX_CASE_BYTES, MAX_TEXT, MAX_VALUES};
use mcpcheck_core::replay::{Library, Matching};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value, json};

/// A runner with a fixed seed and `cases` cases, or as many as
/// `PROPTEST_CASES` says (proptest reads it into its default config, whose
/// own default is 256).
fn runner(cases: u32) -> TestRunner {
    let default = Config::default();
    let config = Config {
        cases: if default.cases == 256 {
            cases
        } else {
            default.cases
        },
        failure_persistence: None,
        ..default
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]))
}

/// Patterns of the shapes tool schemas use, and some that multiply.
fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("^[a-z]+$".to_string()),
        Just("^[A-Z]{2}-\\d{4}$".to_string()),
        Just("^(asc|desc)$".to_string()),
        Just("^((((a{64}){64}){64}){64})$".to_string()),
        Just("(?=x)y".to_string()),
        Just("[".to_string()),
        "[a-c\\\\(){}|*+?^$0-9,]{0,24}",
    ]
}

/// Schema keywords with small and hostile values.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer", "minimum": 3, "maximum": 2})),
        Just(
            json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "multipleOf": 0.3})
        ),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"$ref": "#"})),
        Just(json!({"$ref": "#/$defs/a"})),
        Just(json!({"$ref": "#/nowhere"})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({"type": "string", "format": "date-time"})),
        Just(json!({"type": "string", "description": "e.g. 'America/New_York' (such as \"x\")"})),
        (0u64..=u64::MAX).prop_map(|n| json!({"type": "string", "minLength": n})),
        (0u64..40).prop_map(|n| json!({"type": "string", "maxLength": n, "default": "abcdef"})),
        pattern().prop_map(|p| json!({"type": "string", "pattern": p})),
        prop::collection::vec(any::<i8>(), 0..4).prop_map(|e| json!({"enum": e})),
        any::<String>().prop_map(|s| json!({"const": s})),
        any::<String>().prop_map(|s| json!({"type": "string", "description": s})),
    ]
}

/// An input schema: nested objects, arrays, compositions and references.
fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map("[a-e]{1,3}", inner.clone(), 0..6),
                prop::collection::vec("[a-e]{1,3}", 0..4),
            )
                .prop_map(|(props, required)| {
                    json!({"type": "object", "properties": props, "required": required})
                }),
            (
                inner.clone(),
                0u64..40,
                prop::option::of(0u64..40),
                any::<bool>()
            )
                .prop_map(|(items, min, max, unique)| {
                    let mut m = Map::new();
                    m.insert("type".into(), json!("array"));
                    m.insert("items".into(), items);
                    m.insert("minItems".into(), json!(min));
                    if let Some(max) = max {
                        m.insert("maxItems".into(), json!(max));
                    }
                    m.insert("uniqueItems".into(), json!(unique));
                    Value::Object(m)
                }),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|b| json!({"allOf": b})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|b| json!({"anyOf": b})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|b| json!({"oneOf": b})),
        ]
    })
}

/// A tool's input schema: an object schema with `$defs` the references
/// may point at.
fn input_schema() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-e]{1,3}", schema(), 0..6),
        prop::collection::vec("[a-e]{1,3}", 0..4),
        schema(),
    )
        .prop_map(|(props, required, def)| {
            json!({"type": "object", "properties": props, "required": required, "$defs": {"a": def}})
        })
}

fn values_and_text(v: &Value) -> (usize, usize) {
    match v {
        Value::String(s) => (1, s.len()),
        Value::Array(a) => a
            .iter()
            .map(values_and_text)
            .fold((1, 0), |x, y| (x.0 + y.0, x.1 + y.1)),
        Value::Object(o) => o.iter().fold((1, 0), |acc, (k, x)| {
            let (n, t) = values_and_text(x);
            (acc.0 + n, acc.1 + t + k.len())
        }),
        _ => (1, 0),
    }
}

#[test]
fn generated_arguments_are_objects_within_the_bounds() {
    runner(256)
        .run(&input_schema(), |schema| {
            let v = probe::valid_arguments(&schema);
            prop_assert!(v.is_object(), "{v}");
            let (values, text) = values_and_text(&v);
            // Values the schema gives (a `const`) count too; a few over the
            // bound come from one such value.
            prop_assert!(values <= MAX_VALUES + 64, "{values} values");
            prop_assert!(text <= MAX_TEXT + 64 * 1024, "{text} characters");
            match probe::arguments_within_bounds(&schema) {
                Ok(w) => prop_assert_eq!(&w, &v),
                Err(why) => {
                    prop_assert!(!why.to_string().is_empty());
                    prop_assert_eq!(&v, &json!({}));
                }
            }
            // Judged valid exactly when the schema's validator says so.
            if let Some(valid) = probe::input_valid(&schema, &Arguments::Value(v.clone())) {
                let again = probe::input_valid(&schema, &Arguments::Value(v));
                prop_assert_eq!(Some(valid), again);
            }
            let example = generate::example_args(&schema);
            prop_assert!(example.is_object(), "{example}");
            Ok(())
        })
        .expect("the property holds");
}

#[test]
fn fuzz_cases_are_bounded_lazy_and_deterministic() {
    runner(96)
        .run(
            &(input_schema(), any::<u64>(), 0usize..60),
            |(schema, seed, runs)| {
                let tool = json!({"name": "t", "inputSchema": schema});
                let cases = probe::fuzz_cases(&tool, seed, runs);
                prop_assert!(cases.len() <= runs);
                for c in &cases {
                    let bytes = c.arguments.as_value().map_or(0, |v| v.to_string().len());
                    prop_assert!(bytes <= MAX_CASE_BYTES, "{} is {bytes} bytes", c.label);
                }
                let lazy: Vec<_> = probe::fuzz_iter(&tool, seed, runs).collect();
                prop_assert_eq!(&lazy, &cases);
                Ok(())
            },
        )
        .expect("the property holds");
}

#[test]
fn the_generated_suite_of_any_listing_reads_back() {
    runner(64)
        .run(
            &prop::collection::vec(("[a-z_]{1,12}", input_schema(), any::<bool>()), 0..5),
            |tools| {
                let listed: Vec<Value> = tools
                    .iter()
                    .map(|(name, schema, writes)| {
                        json!({"name": name, "inputSchema": schema,
                               "annotations": {"destructiveHint": writes}})
                    })
                    .collect();
                let server = generate::Server::Stdio {
                    command: "server".into(),
                    args: Vec::new(),
                };
                let plan = generate::plan(&server, &listed, &[], &[], "10s");
                prop_assert_eq!(plan.files.len(), listed.len());
                for f in &plan.files {
                    let loaded = mcpcheck_core::suite::load(&f.name, &f.text);
                    prop_assert!(!loaded.has_errors(), "{}\n{:?}", f.text, loaded.diagnostics);
                }
                Ok(())
            },
        )
        .expect("the property holds");
}

/// Any JSON value, nested a few levels.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("jsonrpc".to_string()),
                    Just("id".to_string()),
                    Just("method".to_string()),
                    Just("result".to_string()),
                    Just("error".to_string()),
                    Just("params".to_string()),
                    Just("exchanges".to_string()),
                    Just("request".to_string()),
                    Just("response".to_string()),
                    Just("sessions".to_string()),
                    "[a-z_]{1,8}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Capture-like documents: a real capture's shape with random parts, then
/// cut or spliced bytes.
fn capture_text() -> impl Strategy<Value = String> {
    let exchange = (json_value(), json_value(), any::<i32>()).prop_map(|(params, result, id)| {
        json!({"request": {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params},
               "response": {"jsonrpc": "2.0", "id": id, "result": result}})
    });
    let doc = (prop::collection::vec(exchange, 0..5), json_value()).prop_map(|(xs, extra)| {
        json!({"server_label": "s", "transport": "stdio", "exchanges": xs, "extra": extra})
            .to_string()
    });
    (doc, any::<prop::sample::Index>(), ".{0,3}", 0u8..3).prop_map(|(text, at, splice, how)| {
        let mut cut = at.index(text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        match how {
            0 => text,
            1 => text[..cut].to_string(),
            _ => format!("{}{splice}{}", &text[..cut], &text[cut..]),
        }
    })
}

#[test]
fn the_capture_reader_answers_every_document() {
    runner(256)
        .run(&capture_text(), |text| {
            // A capture or its diagnostics, never a panic.
            match capture::parse(&text) {
                Ok(c) => {
                    let _ = invariants::check_text(&text);
                    prop_assert!(c.sessions.len() <= 1 + text.len());
                }
                Err(diagnostics) => prop_assert!(!diagnostics.is_empty()),
            }
            let files = vec![("c.json".to_string(), text)];
            if let Ok(lib) = Library::load(&files, Matching::Exact) {
                let mut r = mcpcheck_core::replay::Replayer::new(&lib);
                let _ = r.receive_text(
                    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
                );
            }
            Ok(())
        })
        .expect("the property holds");
}

#[test]
fn the_lock_reader_refuses_what_it_cannot_trust() {
    let tool = ("[a-z]{1,6}", json_value()).prop_map(
        |(name, schema)| json!({"name": name, "description": "d", "inputSchema": schema}),
    );
    runner(128)
        .run(
            &(
                prop::collection::vec(tool, 0..6),
                any::<prop::sample::Index>(),
                any::<u8>(),
            ),
            |(tools, at, byte)| {
                let lock = Lock::from_listing("s", &json!({"tools": tools})).expect("a listing");
                let text = lock.to_json();
                // What it wrote, it reads back as it was.
                let back = Lock::from_json(&text).ok();
                prop_assert_eq!(back.as_ref(), Some(&lock));
                prop_assert!(mcpcheck_core::lock::diff(&lock, &lock).is_empty());
                // One byte changed: refused, or read as a lock whose every
                // hash is its definition's (re-hashing gives the same lock).
                let mut bytes = text.into_bytes();
                let i = at.index(bytes.len());
                bytes[i] = byte;
                if let Ok(changed) = String::from_utf8(bytes)
                    && let Ok(read) = Lock::from_json(&changed)
                {
                    for item in read.items.iter().filter(|i| i.kind == "tool") {
                        let one = json!({"tools": [item.definition]});
                        if let Ok(again) = Lock::from_listing("s", &one) {
                            prop_assert_eq!(&item.hash, &again.items[0].hash);
                        }
                    }
                }
                Ok(())
            },
        )
        .expect("the property holds");
}
