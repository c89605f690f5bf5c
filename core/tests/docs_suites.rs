//! `docs/suites.md` is the reference of the suite format, held to the loader:
//!
//! * every ```yaml block in it loads without an error (a ```yaml error block
//!   must produce one);
//! * for every place of the format that has a fixed set of keys, a probe file
//!   with an unknown key there makes the loader list the keys it accepts, and
//!   each of them must be named in the section that documents that place
//!   (where the section has a `| key |` table, the table must name exactly
//!   those keys);
//! * every place where the loader reads a fixed set of keys has a probe.

// Tests read the document and the loader's sources; the no-I/O rule is for
// the library itself.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeSet;

use mcpcheck_core::diag::{Paint, render};
use mcpcheck_core::suite;

const DOC: &str = "docs/suites.md";

fn read(rel: &str) -> String {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// A fenced block: its info string, its first line number (1-based) and text.
struct Fence {
    info: String,
    line: usize,
    text: String,
}

fn fences(doc: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut open: Option<Fence> = None;
    for (i, line) in doc.lines().enumerate() {
        match open.take() {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some(Fence {
                        info: info.trim().to_string(),
                        line: i + 2,
                        text: String::new(),
                    });
                }
            }
            Some(mut f) => {
                if line.trim_end() == "```" {
                    out.push(f);
                } else {
                    f.text.push_str(line);
                    f.text.push('\n');
                    open = Some(f);
                }
            }
        }
    }
    assert!(open.is_none(), "{DOC}: a code fence is never closed");
    out
}

/// The lines of `doc` outside code fences, with their text.
fn prose_lines(doc: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            out.push(line);
        }
    }
    out
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (hashes > 0 && line[hashes..].starts_with(' ')).then_some(hashes)
}

/// The prose of the section under `heading` (a whole heading line, e.g.
/// "### `assert`"), up to the next heading of the same or a higher level.
fn section(doc: &str, heading: &str) -> String {
    let lines = prose_lines(doc);
    let level = heading_level(heading).unwrap_or_else(|| panic!("not a heading: {heading}"));
    let start = lines
        .iter()
        .position(|l| l.trim_end() == heading)
        .unwrap_or_else(|| panic!("{DOC} has no heading `{heading}`"));
    let mut out = String::new();
    for l in &lines[start + 1..] {
        if heading_level(l).is_some_and(|n| n <= level) {
            break;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The backticked words of a piece of Markdown.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The first cell of a table row, if `line` is one.
fn first_cell(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('|')?;
    rest.split('|').next()
}

/// The keys in the first column of the first table of `section` whose header
/// starts with `| key |`.
fn key_table(section: &str) -> Option<BTreeSet<String>> {
    let mut lines = section
        .lines()
        .skip_while(|l| first_cell(l).map(str::trim) != Some("key"));
    lines.next()?;
    let mut keys = BTreeSet::new();
    // After the header, the delimiter row, then the rows.
    for cell in lines.skip(1).map_while(first_cell) {
        keys.extend(code_spans(cell).into_iter().map(str::to_string));
    }
    Some(keys)
}

#[test]
fn every_yaml_block_loads() {
    let doc = read(DOC);
    let mut clean = 0;
    let mut failing = 0;
    for f in fences(&doc) {
        let name = format!("{DOC} (the block from line {})", f.line);
        let loaded = suite::load(&name, &f.text);
        let shown = || {
            render(
                &loaded.diagnostics,
                &|_| Some(f.text.as_str()),
                Paint::Plain,
            )
        };
        match f.info.as_str() {
            "yaml" => {
                assert!(
                    !loaded.has_errors(),
                    "the yaml block in {name} does not load:\n{}",
                    shown()
                );
                clean += 1;
            }
            "yaml error" => {
                assert!(
                    loaded.has_errors(),
                    "the `yaml error` block in {name} loads without an error"
                );
                failing += 1;
            }
            other => assert!(
                !other.starts_with("yaml") && !other.starts_with("yml"),
                "the block in {name} has the info string `{other}`: use `yaml` or `yaml error`"
            ),
        }
    }
    assert!(clean >= 20, "only {clean} yaml blocks in {DOC}");
    assert!(failing >= 1, "no `yaml error` block in {DOC}");
}

/// A place of the format with a fixed set of keys.
struct Probe {
    /// How the loader names the place in its messages.
    what: &'static str,
    /// A file with the unknown key `zzqx` at that place.
    yaml: &'static str,
    /// The heading of the section that documents the place.
    section: &'static str,
    /// Whether that section's `| key |` table lists exactly these keys.
    table: bool,
}

const PROBES: &[Probe] = &[
    Probe {
        what: "test file",
        yaml: "name: t\nserver: {command: x}\nassert: {tool: echo}\nzzqx: 1\n",
        section: "## Tests",
        table: true,
    },
    Probe {
        what: "test",
        yaml: "tests:\n  - {name: t, server: {command: x}, tool: echo, zzqx: 1}\n",
        section: "## Tests",
        table: false,
    },
    Probe {
        what: "suite",
        yaml: "zzqx: 1\ntests:\n  - {name: t, server: {command: x}, tool: echo}\n",
        section: "## Composed files",
        table: true,
    },
    Probe {
        what: "defaultTest",
        yaml: "defaultTest: {zzqx: 1}\ntests:\n  - {name: t, server: {command: x}, tool: echo}\n",
        section: "### `defaultTest`",
        table: true,
    },
    Probe {
        what: "server",
        yaml: "name: t\nserver: {command: x, zzqx: 1}\nassert: {tool: echo}\n",
        section: "## The `server` block",
        table: true,
    },
    Probe {
        what: "server",
        yaml: "servers:\n  s: {command: x, zzqx: 1}\ntests:\n  - {name: t, server: s, tool: echo}\n",
        section: "## The `server` block",
        table: true,
    },
    Probe {
        what: "auth",
        yaml: "name: t\nserver: {transport: http, url: \"http://h/mcp\", auth: {zzqx: 1}}\nassert: {tool: echo}\n",
        section: "### `auth`",
        table: true,
    },
    Probe {
        what: "client_capabilities",
        yaml: "name: t\nserver: {command: x, client_capabilities: {zzqx: 1}}\nassert: {tool: echo}\n",
        section: "### `client_capabilities`",
        table: true,
    },
    Probe {
        what: "sampling",
        yaml: "name: t\nserver: {command: x, client_capabilities: {sampling: {zzqx: 1}}}\nassert: {tool: echo}\n",
        section: "### `client_capabilities`",
        table: false,
    },
    Probe {
        what: "hooks",
        yaml: "hooks: {zzqx: 1}\ntests:\n  - {name: t, server: {command: x}, tool: echo}\n",
        section: "## Hooks",
        table: true,
    },
    Probe {
        what: "beforeAll",
        yaml: "hooks:\n  beforeAll: [{command: x, mode: context, zzqx: 1}]\ntests:\n  - {name: t, server: {command: x}, tool: echo}\n",
        section: "### Steps",
        table: true,
    },
    Probe {
        what: "beforeEach",
        yaml: "hooks:\n  beforeEach: {command: x, mode: context, zzqx: 1}\ntests:\n  - {name: t, server: {command: x}, tool: echo}\n",
        section: "### Steps",
        table: true,
    },
    Probe {
        what: "afterEach",
        yaml: "hooks:\n  afterEach: [{command: x, mode: context, zzqx: 1}]\ntests:\n  - {name: t, server: {command: x}, tool: echo}\n",
        section: "### Steps",
        table: true,
    },
    Probe {
        what: "afterAll",
        yaml: "hooks:\n  afterAll: [{command: x, mode: context, zzqx: 1}]\ntests:\n  - {name: t, server: {command: x}, tool: echo}\n",
        section: "### Steps",
        table: true,
    },
    Probe {
        what: "setup step",
        yaml: "name: t\nserver: {command: x}\nsetup:\n  - {tool: a, zzqx: 1}\nassert: {tool: echo}\n",
        section: "## `setup`",
        table: true,
    },
    Probe {
        what: "assert",
        yaml: "name: t\nserver: {command: x}\nassert: {tool: echo, zzqx: 1}\n",
        section: "### `assert`",
        table: true,
    },
    Probe {
        what: "assert_prompts",
        yaml: "name: t\nserver: {command: x}\nassert_prompts: {list: {}, zzqx: 1}\n",
        section: "### `assert_prompts`",
        table: true,
    },
    Probe {
        what: "get",
        yaml: "name: t\nserver: {command: x}\nassert_prompts: {get: {name: p, zzqx: 1}}\n",
        section: "### `assert_prompts`",
        table: false,
    },
    Probe {
        what: "list",
        yaml: "name: t\nserver: {command: x}\nassert_prompts: {list: {zzqx: 1}}\n",
        section: "### `assert_prompts`",
        table: false,
    },
    Probe {
        what: "assert_resources",
        yaml: "name: t\nserver: {command: x}\nassert_resources: {read: u, zzqx: 1}\n",
        section: "### `assert_resources`",
        table: true,
    },
    Probe {
        what: "list",
        yaml: "name: t\nserver: {command: x}\nassert_resources: {list: {zzqx: 1}}\n",
        section: "### `assert_resources`",
        table: false,
    },
    Probe {
        what: "templates",
        yaml: "name: t\nserver: {command: x}\nassert_resources: {templates: {zzqx: 1}}\n",
        section: "### `assert_resources`",
        table: false,
    },
    Probe {
        what: "assert_completion",
        yaml: "name: t\nserver: {command: x}\nassert_completion:\n  ref: {type: ref/prompt, name: p}\n  argument: {name: a}\n  zzqx: 1\n",
        section: "### `assert_completion`",
        table: true,
    },
    Probe {
        what: "ref",
        yaml: "name: t\nserver: {command: x}\nassert_completion:\n  ref: {type: ref/prompt, name: p, zzqx: 1}\n  argument: {name: a}\n",
        section: "### `assert_completion`",
        table: false,
    },
    Probe {
        what: "argument",
        yaml: "name: t\nserver: {command: x}\nassert_completion:\n  ref: {type: ref/prompt, name: p}\n  argument: {name: a, zzqx: 1}\n",
        section: "### `assert_completion`",
        table: false,
    },
    Probe {
        what: "assert_sampling",
        yaml: "name: t\nserver: {command: x}\nassert_sampling: {tool: s, zzqx: 1}\n",
        section: "### `assert_sampling`",
        table: true,
    },
    Probe {
        what: "assert_logging",
        yaml: "name: t\nserver: {command: x}\nassert_logging: {set_level: info, zzqx: 1}\n",
        section: "### `assert_logging`",
        table: true,
    },
    Probe {
        what: "assert_notifications",
        yaml: "name: t\nserver: {command: x}\nassert_notifications: {tool: t, zzqx: 1}\n",
        section: "### `assert_notifications`",
        table: true,
    },
    Probe {
        what: "trace entry",
        yaml: "name: t\ntrace:\n  - {tool: a, zzqx: 1}\ntrajectory:\n  - {type: presence, tools: [a]}\n",
        section: "### `trajectory`",
        table: false,
    },
    Probe {
        what: "trajectory assertion",
        yaml: "name: t\ntrace: [{tool: a}]\ntrajectory:\n  - {type: presence, tools: [a], zzqx: 1}\n",
        section: "### `trajectory`",
        table: true,
    },
    Probe {
        what: "expect",
        yaml: "name: t\nserver: {command: x}\nassert: {tool: echo, expect: {zzqx: 1}}\n",
        section: "## Expectations",
        table: false,
    },
    Probe {
        what: "field_contains",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {field_contains: {path: a, text: b, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "all_match",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {all_match: {path: a, value: b, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "all_match_one_of",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {all_match_one_of: {path: a, values: [b], zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "all_match_pattern",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {all_match_pattern: {path: a, regex: b, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "none_match_pattern",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {none_match_pattern: {path: a, regex: b, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "all_dates_between",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {all_dates_between: {path: a, start: 2026-01-01, end: 2026-01-02, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "dates_within_days",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {dates_within_days: {path: a, days: 1, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "all_in_range",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {all_in_range: {path: a, min: 0, max: 1, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "range_check",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {range_check: {path: a, min: 0, max: 1, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "sorted_desc",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {sorted_desc: {path: a, zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "array_contains",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect: {array_contains: {path: a, values: [1], zzqx: 1}}\n",
        section: "### Map form: JSON assertions",
        table: false,
    },
    Probe {
        what: "expect item",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect:\n    - {target: text, matcher: {contains: a}, zzqx: 1}\n",
        section: "### List form",
        table: true,
    },
    Probe {
        what: "expect item",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect:\n    - {assert-set: {assertions: []}, zzqx: 1}\n",
        section: "### assert-set",
        table: false,
    },
    Probe {
        what: "assert-set",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect:\n    - {assert-set: {assertions: [], zzqx: 1}}\n",
        section: "### assert-set",
        table: true,
    },
    Probe {
        what: "matcher",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect:\n    - {target: text, matcher: {zzqx: 1}}\n",
        section: "#### Matchers",
        table: true,
    },
    Probe {
        what: "length",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect:\n    - {target: text, matcher: {length: {min: 1, zzqx: 1}}}\n",
        section: "#### Matchers",
        table: false,
    },
    Probe {
        what: "range",
        yaml: "name: t\nserver: {command: x}\nassert:\n  tool: echo\n  expect:\n    - {target: text, matcher: {range: {min: 1, zzqx: 1}}}\n",
        section: "#### Matchers",
        table: false,
    },
    Probe {
        what: "derivedMetrics item",
        yaml: "name: t\nserver: {command: x}\nassert: {tool: echo}\nderivedMetrics:\n  - {name: m, value: {weighted_sum: []}, zzqx: 1}\n",
        section: "### derivedMetrics",
        table: true,
    },
    Probe {
        what: "value",
        yaml: "name: t\nserver: {command: x}\nassert: {tool: echo}\nderivedMetrics:\n  - {name: m, value: {weighted_sum: [], zzqx: 1}}\n",
        section: "### derivedMetrics",
        table: false,
    },
    Probe {
        what: "weighted_sum",
        yaml: "name: t\nserver: {command: x}\nassert: {tool: echo}\nderivedMetrics:\n  - {name: m, value: {weighted_sum: [{ref: a, zzqx: 1}]}}\n",
        section: "### derivedMetrics",
        table: false,
    },
    Probe {
        what: "weighted_average",
        yaml: "name: t\nserver: {command: x}\nassert: {tool: echo}\nderivedMetrics:\n  - {name: m, value: {weighted_average: [{ref: a, zzqx: 1}]}}\n",
        section: "### derivedMetrics",
        table: false,
    },
];

/// The keys the loader accepts at the probe's place, read from the hint of
/// its "unknown key" error. Panics when the probe no longer produces a list.
fn accepted(p: &Probe) -> Vec<String> {
    let loaded = suite::load("probe.yaml", p.yaml);
    let message = format!("unknown key `zzqx` in `{}`", p.what);
    let shown = || render(&loaded.diagnostics, &|_| Some(p.yaml), Paint::Plain);
    let d = loaded
        .diagnostics
        .iter()
        .find(|d| d.is_error() && d.message == message)
        .unwrap_or_else(|| {
            panic!(
                "the probe for `{}` no longer reports \"{message}\"; update the probe:\n{}\n{}",
                p.what,
                p.yaml,
                shown()
            )
        });
    let prefix = format!("`{}` accepts: ", p.what);
    let hint = d.hint.as_deref().unwrap_or_default();
    let list = hint.strip_prefix(&prefix).unwrap_or_else(|| {
        panic!(
            "the probe for `{}` no longer lists the accepted keys (hint: {hint:?}):\n{}",
            p.what, p.yaml
        )
    });
    let keys: Vec<String> = list
        .split(", ")
        .map(|k| {
            k.strip_prefix('`')
                .and_then(|k| k.strip_suffix('`'))
                .unwrap_or_else(|| panic!("`{}`: cannot read the key list {list:?}", p.what))
                .to_string()
        })
        .collect();
    assert!(
        !keys.is_empty() && keys.iter().all(|k| !k.is_empty()),
        "`{}`: empty key list in {hint:?}",
        p.what
    );
    keys
}

#[test]
fn every_accepted_key_is_documented_where_it_belongs() {
    let doc = read(DOC);
    let mut problems = Vec::new();
    for p in PROBES {
        let keys = accepted(p);
        let text = section(&doc, p.section);
        let spans: BTreeSet<&str> = code_spans(&text).into_iter().collect();
        for k in &keys {
            if !spans.contains(k.as_str()) {
                problems.push(format!(
                    "`{k}` (accepted in `{}`) is not named in `{}`",
                    p.what, p.section
                ));
            }
        }
        if p.table {
            let Some(table) = key_table(&text) else {
                problems.push(format!("`{}` has no `| key |` table", p.section));
                continue;
            };
            let accepted: BTreeSet<String> = keys.iter().cloned().collect();
            for extra in table.difference(&accepted) {
                problems.push(format!(
                    "the key table of `{}` lists `{extra}`, which `{}` does not accept",
                    p.section, p.what
                ));
            }
            for missing in accepted.difference(&table) {
                problems.push(format!(
                    "the key table of `{}` lacks `{missing}` (accepted in `{}`)",
                    p.section, p.what
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{DOC} is behind the loader:\n{}",
        problems.join("\n")
    );
}

/// The second argument of every `.entries(…)` / `.entries_placed(…)` call in
/// a source text: the place name when it is a string literal, else the
/// expression as written.
fn entries_places(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for call in [".entries(", ".entries_placed("] {
        for (at, _) in src.match_indices(call) {
            let args = &src[at + call.len()..];
            let Some(comma) = args.find(',') else {
                continue;
            };
            let second = args[comma + 1..].trim_start();
            let place = match second.strip_prefix('"') {
                Some(rest) => rest.split('"').next().unwrap_or_default().to_string(),
                None => second
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            };
            out.push(place);
        }
    }
    out
}

#[test]
fn every_place_the_loader_reads_keys_is_probed() {
    let probed: BTreeSet<&str> = PROBES.iter().map(|p| p.what).collect();
    // Places named at run time, and the probes that cover them: `what` is a
    // cursor's `list` or `templates`; `key` a JSON assertion's mapping;
    // `phase` a hook phase; `agg` a derived metric's aggregation.
    let dynamic: &[(&str, &[&str])] = &[
        ("what", &["list", "templates"]),
        (
            "key",
            &[
                "field_contains",
                "all_match",
                "all_match_one_of",
                "all_match_pattern",
                "none_match_pattern",
                "all_dates_between",
                "dates_within_days",
                "all_in_range",
                "range_check",
                "sorted_desc",
                "array_contains",
            ],
        ),
        (
            "phase",
            &["beforeAll", "beforeEach", "afterEach", "afterAll"],
        ),
        ("agg", &["weighted_sum", "weighted_average"]),
    ];
    let mut problems = Vec::new();
    let mut files = vec![
        "core/src/suite.rs".to_string(),
        "core/src/trajectory.rs".to_string(),
    ];
    let expect_dir = format!("{}/src/expect", env!("CARGO_MANIFEST_DIR"));
    let mut expect_files: Vec<String> = std::fs::read_dir(&expect_dir)
        .unwrap_or_else(|e| panic!("cannot list {expect_dir}: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| format!("core/src/expect/{}", e.file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".rs"))
        .collect();
    expect_files.sort();
    files.extend(expect_files);
    for file in &files {
        for place in entries_places(&read(file)) {
            match dynamic.iter().find(|(expr, _)| *expr == place) {
                Some((_, covered)) => {
                    for c in *covered {
                        if !probed.contains(c) {
                            problems.push(format!("{file}: `{c}` ({place}) has no probe"));
                        }
                    }
                }
                None if probed.contains(place.as_str()) => {}
                None => problems.push(format!(
                    "{file}: the loader reads the keys of `{place}`, which has no probe: \
                     add one to PROBES and document its keys in {DOC}"
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
