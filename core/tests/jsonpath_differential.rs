//! mcpcheck's JSONPath engine against `serde_json_path` 0.7.2, the engine it
//! replaced and the reference for every verdict: for a committed corpus of
//! queries over a handful of documents (`data/jsonpath_corpus.json`), and for
//! a few thousand queries generated from the grammar by a seeded PRNG, both
//! refuse, or both select the same nodes at the same locations in the same
//! order.
//!
//! Where `serde_json_path` departs from RFC 9535, the engine departs the same
//! way (verdicts must not change); [`departures_from_the_rfc_are_kept`] lists
//! each one.
//!
//! The JSONPath Compliance Test Suite is not committed; to run it against
//! both engines, put its `cts.json` at `/tmp/cts.json` (or name it in
//! `MCPCHECK_CTS`) and run the ignored test `compliance_test_suite`.

#![allow(clippy::disallowed_methods)]

use mcpcheck_core::jsonpath::{self, Step};
use serde_json::{Value, json};
use serde_json_path::{JsonPath, PathElement};

/// What a query gave: `None` when refused, else each node (by address in
/// the document) with its location.
type Outcome = Option<Vec<(usize, Vec<String>)>>;

fn ours(q: &str, doc: &Value) -> Outcome {
    let compiled = jsonpath::parse(q).ok()?;
    let nodes = compiled.located(doc);
    // The unlocated entry points agree with the located one.
    let values: Vec<&Value> = nodes.iter().map(|(v, _)| *v).collect();
    assert!(
        compiled
            .all(doc)
            .iter()
            .map(|v| std::ptr::from_ref(*v))
            .eq(values.iter().map(|v| std::ptr::from_ref(*v))),
        "{q}: all() and located() differ"
    );
    assert_eq!(
        compiled.first(doc).map(std::ptr::from_ref),
        values.first().map(|v| std::ptr::from_ref(*v)),
        "{q}: first()"
    );
    Some(
        nodes
            .into_iter()
            .map(|(v, loc)| {
                let steps = loc
                    .into_iter()
                    .map(|s| match s {
                        Step::Name(n) => format!("n:{n}"),
                        Step::Index(i) => format!("i:{i}"),
                    })
                    .collect();
                (std::ptr::from_ref(v) as usize, steps)
            })
            .collect(),
    )
}

fn theirs(q: &str, doc: &Value) -> Outcome {
    let compiled = JsonPath::parse(q).ok()?;
    Some(
        compiled
            .query_located(doc)
            .into_iter()
            .map(|n| {
                let steps = n
                    .location()
                    .iter()
                    .map(|s| match s {
                        PathElement::Name(n) => format!("n:{n}"),
                        PathElement::Index(i) => format!("i:{i}"),
                    })
                    .collect();
                (std::ptr::from_ref(n.node()) as usize, steps)
            })
            .collect(),
    )
}

/// Compare the two engines on `q` over every document; the disagreements.
fn disagreements(q: &str, docs: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        let (a, b) = (ours(q, doc), theirs(q, doc));
        if a != b {
            let show = |o: &Outcome| match o {
                None => "refused".to_string(),
                Some(n) => format!(
                    "{:?}",
                    n.iter().map(|(_, l)| l.join(".")).collect::<Vec<_>>()
                ),
            };
            out.push(format!(
                "{q:?} on document {d}: ours {} ({:?}), serde_json_path {}",
                show(&a),
                jsonpath::parse(q).err().map(|e| e.to_string()),
                show(&b)
            ));
        }
        if a.is_none() {
            // A refusal does not depend on the document.
            break;
        }
    }
    out
}

fn corpus() -> (Vec<Value>, Vec<String>) {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/jsonpath_corpus.json"
    ))
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let docs = v["documents"].as_array().unwrap().clone();
    let queries = v["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q.as_str().unwrap().to_string())
        .collect();
    (docs, queries)
}

#[test]
fn the_corpus_gives_the_same_nodes_in_both_engines() {
    let (docs, queries) = corpus();
    assert!(queries.len() > 500, "{} queries", queries.len());
    let mut bad = Vec::new();
    let (mut valid, mut selected) = (0, 0);
    for q in &queries {
        bad.extend(disagreements(q, &docs));
        if let Ok(c) = jsonpath::parse(q) {
            valid += 1;
            selected += docs.iter().map(|d| c.all(d).len()).sum::<usize>();
        }
    }
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
    // The corpus exercises both sides: refusals, and queries that select.
    assert!(
        valid > 300 && queries.len() - valid > 100,
        "{valid} valid of {}",
        queries.len()
    );
    assert!(selected > 1000, "{selected} nodes selected");
}

/// A small deterministic PRNG (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const NAMES: &[&str] = &[
    "a", "b", "x", "y", "z", "n", "v", "t", "o", "k", "p", "items", "store", "book", "price",
    "author", "ü", "_u", "A1", "missing",
];
const QUOTED: &[&str] = &[
    "'a'",
    "\"b\"",
    "'x'",
    "''",
    "'with space'",
    "'1'",
    "'\\'q\\''",
    "'a\\\\b'",
    "'\\u00fc'",
    "\"\\\"d\\\"\"",
    "'tab\\there'",
    "'\\uD83D\\uDE00'",
    "'n'",
    "'v'",
    "'items'",
];
const INTS: &[&str] = &["0", "1", "2", "3", "-1", "-2", "-3", "5", "-10", "10", "21"];
const LITERALS: &[&str] = &[
    "1",
    "1.0",
    "2",
    "2.5",
    "0",
    "-1",
    "100",
    "1e2",
    "0.1",
    "-0",
    "'a'",
    "'ab'",
    "''",
    "\"b\"",
    "'2'",
    "'x'",
    "true",
    "false",
    "null",
    "'apple'",
    "'a\\r\\nb'",
];
const PATTERNS: &[&str] = &[
    "'a.*'",
    "'[0-9]+'",
    "'b'",
    "'('",
    "'\\\\d'",
    "'^a'",
    "'a|b'",
    "'.'",
    "'a.b'",
    "'(?i)A'",
    "''",
    "'\\\\p{Lu}+'",
    "@.p",
    "$.pat",
    "1",
];
const OPS: &[&str] = &["==", "!=", "<", "<=", ">", ">="];
const SPACE: &[&str] = &["", "", "", " ", "  ", "\t", "\n"];

fn ws(r: &mut Rng) -> &'static str {
    r.pick(SPACE)
}

fn selector(r: &mut Rng, depth: usize) -> String {
    match r.below(if depth < 2 { 7 } else { 6 }) {
        0 => r.pick(QUOTED).to_string(),
        1 | 2 => r.pick(INTS).to_string(),
        3 => "*".to_string(),
        4 => {
            let mut s = String::new();
            if r.chance(60) {
                s.push_str(r.pick(INTS));
                s.push_str(ws(r));
            }
            s.push(':');
            s.push_str(ws(r));
            if r.chance(60) {
                s.push_str(r.pick(INTS));
            }
            if r.chance(50) {
                s.push(':');
                if r.chance(70) {
                    s.push_str(ws(r));
                    s.push_str(r.pick(&["1", "2", "-1", "-2", "0", "3"]));
                }
            }
            s
        }
        5 => r.pick(QUOTED).to_string(),
        _ => format!("?{}{}", ws(r), logical(r, depth + 1)),
    }
}

fn segment(r: &mut Rng, depth: usize) -> String {
    let lead = if r.chance(10) { ws(r) } else { "" };
    let body = match r.below(10) {
        0..=3 => format!(".{}", r.pick(NAMES)),
        4 => ".*".to_string(),
        5 => format!("..{}", r.pick(NAMES)),
        6 => "..*".to_string(),
        _ => {
            let n = 1 + r.below(3) * usize::from(r.chance(30));
            let sels: Vec<String> = (0..n).map(|_| selector(r, depth)).collect();
            let sep = format!("{},{}", ws(r), ws(r));
            let desc = if r.chance(20) { ".." } else { "" };
            format!("{desc}[{}{}{}]", ws(r), sels.join(&sep), ws(r))
        }
    };
    format!("{lead}{body}")
}

fn query(r: &mut Rng, root: &str, depth: usize, max: usize) -> String {
    let mut s = root.to_string();
    for _ in 0..r.below(max + 1) {
        s.push_str(&segment(r, depth));
    }
    s
}

/// A singular query: names and indices only.
fn singular(r: &mut Rng) -> String {
    let mut s = r.pick(&["@", "@", "@", "$"]).to_string();
    for _ in 0..r.below(3) {
        match r.below(4) {
            0 | 1 => {
                s.push('.');
                s.push_str(r.pick(NAMES));
            }
            2 => s.push_str(&format!("[{}]", r.pick(INTS))),
            _ => s.push_str(&format!("[{}]", r.pick(QUOTED))),
        }
    }
    s
}

fn nodes_arg(r: &mut Rng, depth: usize) -> String {
    if r.chance(50) {
        singular(r)
    } else {
        let root = r.pick(&["@", "$"]);
        query(r, root, depth, 3)
    }
}

fn comparable(r: &mut Rng, depth: usize) -> String {
    match r.below(10) {
        0..=3 => r.pick(LITERALS).to_string(),
        4..=6 => singular(r),
        7 => format!("length({})", value_arg(r, depth)),
        8 => format!("count({})", nodes_arg(r, depth)),
        _ => format!("value({})", nodes_arg(r, depth)),
    }
}

fn value_arg(r: &mut Rng, depth: usize) -> String {
    match r.below(8) {
        0 | 1 => r.pick(LITERALS).to_string(),
        2..=5 => singular(r),
        6 => format!("value({})", nodes_arg(r, depth)),
        // Not a value: refused.
        _ => nodes_arg(r, depth),
    }
}

fn basic(r: &mut Rng, depth: usize) -> String {
    let not = if r.chance(20) { "!" } else { "" };
    match r.below(10) {
        0..=2 => {
            let root = r.pick(&["@", "@", "$"]);
            format!("{not}{}", query(r, root, depth, 3))
        }
        3..=6 => {
            let (a, b) = (comparable(r, depth), comparable(r, depth));
            format!("{a}{}{}{}{b}", ws(r), r.pick(OPS), ws(r))
        }
        7 if depth < 3 => format!("{not}({}{}{})", ws(r), logical(r, depth + 1), ws(r)),
        _ => {
            let f = r.pick(&["match", "search"]);
            let s = value_arg(r, depth);
            let p = r.pick(PATTERNS);
            format!("{not}{f}({}{s},{}{p}{})", ws(r), ws(r), ws(r))
        }
    }
}

fn logical(r: &mut Rng, depth: usize) -> String {
    let mut s = basic(r, depth);
    for _ in 0..r.below(3) * usize::from(r.chance(40)) {
        let op = r.pick(&["&&", "||"]);
        s.push_str(&format!("{}{op}{}{}", ws(r), ws(r), basic(r, depth)));
    }
    s
}

/// Break a query in a small way: drop, repeat or insert a character.
fn mutate(r: &mut Rng, q: &str) -> String {
    let chars: Vec<char> = q.chars().collect();
    let at = r.below(chars.len() + 1);
    let mut out: Vec<char> = chars[..at].to_vec();
    match r.below(3) {
        0 => {}
        1 => out.extend(chars.get(at)),
        _ => out.push(
            r.pick(&[
                "[", "]", "(", ")", "'", "\"", ".", ",", "?", "@", "$", "!", "=", "-", "0", ":",
                " ", "\\", "*", "a", "|", "&",
            ])
            .chars()
            .next()
            .unwrap_or('x'),
        ),
    }
    out.extend(
        chars
            .get(at..)
            .unwrap_or_default()
            .iter()
            .skip(usize::from(at < chars.len() && r.chance(50))),
    );
    out.into_iter().collect()
}

#[test]
fn generated_queries_give_the_same_nodes_in_both_engines() {
    let (docs, _) = corpus();
    let mut r = Rng(0x005E_ED0F_9535);
    let mut bad = Vec::new();
    let (mut valid, mut refused, mut selecting) = (0, 0, 0);
    for _ in 0..4000 {
        let mut q = if r.chance(50) {
            // A filter over a collection of the documents.
            let base = r.pick(&["$", "$.store.book", "$.items", "$.k", "$.*", "$..*", "$[*]"]);
            let filter = logical(&mut r, 1);
            let tail = query(&mut r, "", 1, 2);
            format!("{base}[?{}{filter}]{tail}", ws(&mut r))
        } else {
            query(&mut r, "$", 0, 4)
        };
        if r.chance(25) {
            q = mutate(&mut r, &q);
        }
        match jsonpath::parse(&q) {
            Ok(c) => {
                valid += 1;
                selecting += usize::from(docs.iter().any(|d| !c.all(d).is_empty()));
            }
            Err(_) => refused += 1,
        }
        bad.extend(disagreements(&q, &docs));
    }
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(
        valid > 2000 && refused > 400 && selecting > 1000,
        "{valid} valid ({selecting} selecting something), {refused} refused"
    );
}

/// Where serde_json_path 0.7.2 departs from RFC 9535: kept, so that no
/// verdict changed. Each case: the query, the document, and what both engines
/// select (`None`: the query is refused), which the RFC would not.
#[test]
fn departures_from_the_rfc_are_kept() {
    let cases: &[(&str, Value, Option<Vec<Value>>)] = &[
        // A singular query used as a value does not select with a negative
        // index (the RFC counts from the end): nothing is compared.
        ("$[?@[-1] == 3]", json!([[1, 2, 3]]), Some(vec![])),
        ("$[?count(@[-1]) == 1]", json!([[1, 2, 3]]), Some(vec![])),
        ("$[?value(@[-1]) == 3]", json!([[1, 2, 3]]), Some(vec![])),
        // ... while a filter query used as a test does.
        (
            "$[?@[-1]]",
            json!([[1, 2, 3]]),
            Some(vec![json!([1, 2, 3])]),
        ),
        // `>` is "not < and not ==", `>=` is "not <", for any two values of one
        // type: arrays, objects, booleans and null compare (the RFC orders only
        // numbers and strings).
        (
            "$[?@[0] > @[1]]",
            json!([[[1], [2]]]),
            Some(vec![json!([[1], [2]])]),
        ),
        (
            "$[?@[0] >= @[1]]",
            json!([[{"a": 1}, {"b": 2}]]),
            Some(vec![json!([{"a": 1}, {"b": 2}])]),
        ),
        ("$[?true >= false]", json!([1]), Some(vec![json!(1)])),
        ("$[?@ > null]", json!([null]), Some(vec![])),
        ("$[?@ >= null]", json!([null]), Some(vec![json!(null)])),
        // Whitespace before a descendant segment is refused (the RFC allows
        // whitespace before any segment).
        ("$ ..a", json!({"a": 1}), None),
        ("$[?@ ..a]", json!([{"a": 1}]), None),
        // A high surrogate escape is read only with an upper-case D and
        // second digit.
        ("$['\\ud83d\\ude00']", json!({"😀": 1}), None),
        ("$['\\uDa00\\uDC00']", json!({"\u{90000}": 1}), None),
        (
            "$['\\uD83D\\ude00']",
            json!({"😀": 1}),
            Some(vec![json!(1)]),
        ),
        // Numbers compare as f64: integers beyond 2^53 meet their neighbours.
        (
            "$[?@ == 9007199254740992]",
            json!([9007199254740993u64]),
            Some(vec![json!(9007199254740993u64)]),
        ),
    ];
    for (q, doc, want) in cases {
        let got = jsonpath::parse(q)
            .ok()
            .map(|c| c.all(doc).into_iter().cloned().collect::<Vec<_>>());
        assert_eq!(&got, want, "{q}");
        let reference = JsonPath::parse(q)
            .ok()
            .map(|c| c.query(doc).all().into_iter().cloned().collect::<Vec<_>>());
        assert_eq!(got, reference, "{q}: serde_json_path");
    }
}

/// RFC 9535's normalized path: `$['a'][0]`.
fn normalized(loc: &[String]) -> String {
    let mut s = String::from("$");
    for step in loc {
        if let Some(i) = step.strip_prefix("i:") {
            s.push_str(&format!("[{i}]"));
            continue;
        }
        s.push_str("['");
        for c in step.trim_start_matches("n:").chars() {
            match c {
                '\'' => s.push_str("\\'"),
                '\\' => s.push_str("\\\\"),
                '\u{8}' => s.push_str("\\b"),
                '\u{c}' => s.push_str("\\f"),
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' => s.push_str("\\t"),
                c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
                c => s.push(c),
            }
        }
        s.push_str("']");
    }
    s
}

/// The JSONPath Compliance Test Suite against both engines: prints each
/// one's pass count and failures, and holds that they fail the same tests.
#[test]
#[ignore = "needs the suite's cts.json at /tmp/cts.json or $MCPCHECK_CTS"]
fn compliance_test_suite() {
    let file = std::env::var("MCPCHECK_CTS").unwrap_or_else(|_| "/tmp/cts.json".into());
    let cts: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let tests = cts["tests"].as_array().unwrap();
    let passes = |engine: fn(&str, &Value) -> Outcome, t: &Value| -> bool {
        let doc = &t["document"];
        let Some(sel) = t["selector"].as_str() else {
            return false;
        };
        let got = engine(sel, doc);
        if t["invalid_selector"] == json!(true) {
            return got.is_none();
        }
        let Some(got) = got else { return false };
        let values: Vec<Value> = got
            .iter()
            .map(|(addr, loc)| {
                // Find the node again by its location (the address is only
                // for comparing the engines).
                let _ = addr;
                let mut v = doc;
                for step in loc {
                    v = match step.strip_prefix("i:") {
                        Some(i) => &v[i.parse::<usize>().unwrap()],
                        None => &v[step.trim_start_matches("n:")],
                    };
                }
                v.clone()
            })
            .collect();
        let paths: Vec<Value> = got
            .iter()
            .map(|(_, l)| Value::String(normalized(l)))
            .collect();
        let one = |res: &Value, paths_key: &Value| {
            res.as_array() == Some(&values) && paths_key.as_array().is_none_or(|p| p == &paths)
        };
        if let Some(all) = t["results"].as_array() {
            let ps = t["results_paths"].as_array();
            all.iter()
                .enumerate()
                .any(|(i, r)| one(r, ps.map_or(&Value::Null, |p| &p[i])))
        } else {
            one(&t["result"], &t["result_paths"])
        }
    };
    let (mut ours_pass, mut theirs_pass) = (0, 0);
    let mut differ = Vec::new();
    let mut failed = Vec::new();
    for t in tests {
        let (a, b) = (passes(ours, t), passes(theirs, t));
        ours_pass += usize::from(a);
        theirs_pass += usize::from(b);
        if a != b {
            differ.push(t["name"].to_string());
        }
        if !a {
            failed.push(format!("{} {}", t["name"], t["selector"]));
        }
    }
    println!(
        "CTS: {} tests; mcpcheck passes {ours_pass}, serde_json_path passes {theirs_pass}",
        tests.len()
    );
    println!("failed by both:\n  {}", failed.join("\n  "));
    assert!(differ.is_empty(), "the engines differ on: {differ:?}");
}

/// Hostile text (multibyte characters, broken escapes, huge numbers and
/// slices, any mix of the grammar's tokens) is refused or evaluated, never a
/// panic; what parses selects the same nodes through every entry point.
#[test]
fn any_text_is_parsed_or_refused_without_a_panic() {
    const TOKENS: &[&str] = &[
        "$",
        "@",
        ".",
        "..",
        "[",
        "]",
        "(",
        ")",
        "?",
        "*",
        ":",
        ",",
        "'",
        "\"",
        "\\",
        "\\u",
        "\\uD83D",
        "\\uDE00",
        "D8",
        "0",
        "-",
        "-0",
        "1",
        "9007199254740991",
        "9007199254740992",
        "-9007199254740991",
        "1e400",
        "a",
        "é",
        "😀",
        "\u{2028}",
        "\u{0}",
        " ",
        "\t",
        "==",
        "<",
        "&&",
        "||",
        "!",
        "length(",
        "count(",
        "match(",
        "search(",
        "value(",
        "true",
        "null",
    ];
    let (docs, _) = corpus();
    let mut r = Rng(0x0BAD_F00D);
    let mut parsed = 0;
    for _ in 0..20_000 {
        let n = 1 + r.below(12);
        let q: String = (0..n).map(|_| r.pick(TOKENS)).collect();
        for doc in &docs {
            if ours(&q, doc).is_some() {
                parsed += 1;
            }
        }
    }
    assert!(
        parsed > 0,
        "nothing parsed: the test exercises only refusals"
    );
}
