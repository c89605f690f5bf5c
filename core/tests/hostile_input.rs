//! Property tests over the parsers that take untrusted text: the YAML suite
//! loader, the path language (through expectations, as every front end
//! reaches it) and the capture parser. Inputs are generated from a fixed
//! seed — mutations of the real suites and captures of this repository, and
//! random paths — so a failure reproduces; `MCPCHECK_FUZZ_ITERATIONS` runs
//! more of them (CI runs the default, a few seconds). The property: every
//! input ends in a result or diagnostics, never a panic.

// Tests read the repository's files; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use mcpcheck_core::{Facts, api, invariants, suite};
use serde_json::json;

/// xorshift64*: small, seeded, the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn iterations(default: usize) -> usize {
    std::env::var("MCPCHECK_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Run `f` on `input`; a panic fails the test naming the input.
fn survives(what: &str, input: &str, f: impl FnOnce(&str)) {
    if catch_unwind(AssertUnwindSafe(|| f(input))).is_err() {
        panic!("{what} panicked on this input:\n{input:?}");
    }
}

/// The text of every file under `dir` with one of `exts`.
fn corpus(dir: &Path, exts: &[&str], out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            corpus(&p, exts, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| exts.contains(&x))
            && let Ok(text) = std::fs::read_to_string(&p)
        {
            out.push(text);
        }
    }
}

const YAML_BITS: &[&str] = &[
    "-", " ", "\n", ":", "[", "]", "{", "}", ",", "&a", "*a", "<<: *a", "!!str", "'", "\"", "|",
    ">", "#", "?", "~", "null", "1e9", "expect:", "assert:", "tool:", "tests:", "\t", "\u{0}", "é",
    "- - - -", "[[[[", "{{x}}", "${X}",
];

/// One random edit of `text`: replace, insert, delete, duplicate or cut.
fn mutate(rng: &mut Rng, text: &str, bits: &[&str]) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    let head: String = chars[..at].iter().collect();
    let tail: String = chars[at..].iter().collect();
    match rng.below(5) {
        0 => format!("{head}{}{tail}", rng.pick(bits)),
        1 => {
            let skip = rng.below(8).min(tail.chars().count());
            format!("{head}{}", tail.chars().skip(skip).collect::<String>())
        }
        2 => {
            let n = rng.below(40).min(tail.chars().count());
            let dup: String = tail.chars().take(n).collect();
            format!("{head}{dup}{dup}{tail}")
        }
        3 => head,
        _ => {
            let skip = 1.min(tail.chars().count());
            format!(
                "{head}{}{}",
                rng.pick(bits),
                tail.chars().skip(skip).collect::<String>()
            )
        }
    }
}

#[test]
fn the_suite_loader_never_panics_on_mutated_suites() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seeds = Vec::new();
    corpus(
        &root.join("core/tests/suites"),
        &["yaml", "yml"],
        &mut seeds,
    );
    corpus(&root.join("examples"), &["yaml", "yml"], &mut seeds);
    assert!(seeds.len() > 20, "only {} seed suites", seeds.len());
    let mut rng = Rng(0x5EED_0001);
    for _ in 0..iterations(3000) {
        let mut text = seeds[rng.below(seeds.len())].clone();
        for _ in 0..=rng.below(4) {
            text = mutate(&mut rng, &text, YAML_BITS);
        }
        survives("suite::load", &text, |t| {
            let _ = suite::load("fuzz.yaml", t);
        });
    }
}

const PATH_BITS: &[&str] = &[
    "$", ".", "..", "[", "]", "(", ")", "?", "@", "*", "'", "\"", "=", "==", "!=", "<", ">", "&&",
    "||", "!", "0", "-1", "1:3", "::-1", ",", "a", "results", "length(", "count(", "match(",
    "search(", "value(", " ", "\\", "é", "[?@.a]", "[*]",
];

#[test]
fn paths_never_panic_or_hang_when_loaded_and_evaluated() {
    let response = json!({"content": [{"type": "text", "text": "{\"a\": [1, {\"b\": 2}], \"c\": \"x\"}"}],
                          "structuredContent": {"a": [1, {"b": [{"c": 3}]}], "results": [{"id": 1}, {"id": 2}]}});
    let mut rng = Rng(0x5EED_0002);
    for _ in 0..iterations(3000) {
        let n = 1 + rng.below(30);
        let mut path = String::new();
        if rng.below(2) == 0 {
            path.push('$');
        }
        for _ in 0..n {
            path.push_str(rng.pick(PATH_BITS));
        }
        let expect = json!({"expect": [{"target": path, "matcher": {"exists": true}},
                                       {"json_path": {"$.x": 1}}]});
        let doc = json!({"expect": {"json_path": {path.clone(): 1}}});
        survives("a path", &path, |_| {
            for e in [&expect, &doc] {
                if let Ok(d) = api::load_expect_value("<fuzz>", e) {
                    let _ = api::check_response(&d, response.clone(), &Facts::default())
                        .map(|r| r.status);
                }
            }
        });
    }
}

const JSON_BITS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "null",
    "true",
    "1",
    "-0",
    "1e999",
    "\"id\":",
    "\"method\":",
    "\"jsonrpc\":\"2.0\"",
    "\"exchanges\":",
    "\"response\":",
    "\"result\":{}",
    "\"error\":{\"code\":\"x\"}",
    "\u{fffd}",
    "\\u0000",
];

#[test]
fn the_capture_parser_never_panics_on_mutated_captures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seeds = Vec::new();
    corpus(
        &root.join("core/tests/vectors/invariants"),
        &["json"],
        &mut seeds,
    );
    if let Ok(text) = std::fs::read_to_string(root.join("web/play/data/captures.json"))
        && let Ok(serde_json::Value::Array(items)) = serde_json::from_str(&text)
    {
        for c in items {
            seeds.push(c["capture"].to_string());
        }
    }
    assert!(seeds.len() > 10, "only {} seed captures", seeds.len());
    let mut rng = Rng(0x5EED_0003);
    for _ in 0..iterations(1500) {
        let mut text = seeds[rng.below(seeds.len())].clone();
        for _ in 0..=rng.below(4) {
            text = mutate(&mut rng, &text, JSON_BITS);
        }
        survives("invariants::check_text", &text, |t| {
            let _ = invariants::check_text(t);
            let _ = api::capture_timeline("<fuzz>", t, false);
            let _ = api::capture_timeline("<fuzz>", t, true);
        });
    }
}

fn many_patterns(pattern: impl Fn(usize) -> String, n: usize) -> String {
    let mut s = String::from(
        "name: many\nserver: {command: x}\nassert:\n  tool: t\n  expect:\n    matches_regex:\n",
    );
    for i in 0..n {
        s.push_str(&format!("      - '{}'\n", pattern(i)));
    }
    s
}

#[test]
fn the_patterns_of_a_file_share_a_memory_budget() {
    // A thousand small patterns are fine.
    let small = suite::load("small.yaml", &many_patterns(|i| format!("^ok{i}$"), 1000));
    assert!(!small.has_errors(), "{:?}", small.diagnostics.first());
    // A thousand Unicode-class repetitions would take over a gigabyte: the
    // ones past the budget are refused, with a hint.
    let big = suite::load(
        "big.yaml",
        &many_patterns(|i| format!("\\w{{20}}x{i}"), 1000),
    );
    let refused: Vec<_> = big
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("take more than 64 MiB compiled"))
        .collect();
    assert!(refused.len() > 800, "{} refused", refused.len());
    // One pattern past the size limit names the limit.
    let one = suite::load("one.yaml", &many_patterns(|_| "\\w{200}".into(), 1));
    assert!(
        one.diagnostics[0].message.contains("exceeds size limit"),
        "{:?}",
        one.diagnostics
    );
}
