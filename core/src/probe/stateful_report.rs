//! What `fuzz --stateful` reports: one finding per broken sequence (its
//! shortest form, every call and answer in its details), the JSON of the
//! stateful part, and a regression test per broken sequence: a composed
//! suite file whose `setup` steps replay the sequence's calls and whose
//! block makes the judged call, expecting what the oracle expects, so it
//! fails while the bug is there.

use serde_json::{Value, json};

use super::regression::{NotWritten, comment, server_block};
use super::stateful::{Oracle, Origin, Sequence, StepAnswer, Violation, find_field, resolve_key};
use crate::findings::{Finding, ItemKind, Location, Note, Report};
use crate::generate::{File, Kind, Server, flow, quote, sanitize};

/// One broken sequence, in its shortest form, as it was run.
#[derive(Debug, Clone)]
pub struct Broken {
    /// The sequence after shrinking.
    pub sequence: Sequence,
    /// How many calls it had before shrinking.
    pub original_steps: usize,
    /// The arguments each step was sent.
    pub sent: Vec<Value>,
    /// The answers.
    pub answers: Vec<StepAnswer>,
    pub violation: Violation,
    /// Whether a second run on a fresh server broke the same way with the
    /// same keys (so the keys the server made can be written literally).
    pub stable: bool,
}

/// What the stateful part of a fuzz run did.
#[derive(Debug, Clone, Default)]
pub struct StatefulSummary {
    pub seed: u64,
    /// Sequences run.
    pub sequences: usize,
    /// Sequences whose oracle held.
    pub held: usize,
    /// Sequences that could not judge their oracle, with why (the first few).
    pub inconclusive: Vec<String>,
    /// How many inconclusive in all.
    pub inconclusive_count: usize,
    /// Sequences not made because they write and writes were not allowed.
    pub skipped_writes: usize,
    /// The links the model found, as `producer.field → consumer.prop`.
    pub links: Vec<String>,
    pub broken: Vec<Broken>,
}

/// A step's answer in one line.
fn said(a: &StepAnswer) -> String {
    let Some(r) = &a.response else {
        return format!("{}: {}", a.status.as_str(), crate::truncate(&a.detail, 120));
    };
    if let Some(e) = r.get("error") {
        return format!("error {}", crate::truncate(&e.to_string(), 120));
    }
    let result = r.get("result").cloned().unwrap_or(Value::Null);
    let text = crate::observation::text_view(&crate::observation::Method::ToolsCall, &result);
    let flag = if result.get("isError") == Some(&Value::Bool(true)) {
        "isError: "
    } else {
        ""
    };
    format!("{flag}{}", crate::truncate(text.trim(), 120))
}

/// The calls of a broken sequence, one line each.
fn transcript(b: &Broken) -> String {
    b.sequence
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let sent = b
                .sent
                .get(i)
                .map(|v| crate::truncate(&v.to_string(), 200))
                .unwrap_or_default();
            let answer = b
                .answers
                .get(i)
                .map(said)
                .unwrap_or_else(|| "not sent".into());
            format!("{}. {} {sent} → {answer}", i + 1, s.tool)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One finding per broken sequence, at the judged step's tool.
pub fn stateful_findings(summary: &StatefulSummary) -> Vec<Finding> {
    summary
        .broken
        .iter()
        .map(|b| {
            let tool = b
                .sequence
                .steps
                .get(b.violation.step)
                .map(|s| s.tool.clone())
                .unwrap_or_default();
            let mut location = Location::item(ItemKind::Tool, tool);
            location.context = Some("stateful".into());
            let shrunk = if b.original_steps > b.sequence.steps.len() {
                format!(", shrunk from {} calls", b.original_steps)
            } else {
                String::new()
            };
            Finding::new(
                b.violation.rule,
                location,
                format!(
                    "{} ({}: {}{shrunk})",
                    b.violation.message,
                    b.sequence.oracle.as_str(),
                    b.sequence.summary()
                ),
            )
            .with_evidence(b.sequence.summary())
            .with_detail("sequence", transcript(b))
        })
        .collect()
}

/// The stateful part of the fuzz JSON report.
pub fn stateful_json(summary: &StatefulSummary) -> Value {
    let broken: Vec<Value> = summary
        .broken
        .iter()
        .map(|b| {
            json!({
                "rule": b.violation.rule.code,
                "oracle": b.sequence.oracle.as_str(),
                "message": b.violation.message,
                "sequence": b.sequence.number,
                "calls": b.sequence.steps.len(),
                "shrunk_from": b.original_steps,
                "steps": b.sequence.steps.iter().enumerate().map(|(i, s)| json!({
                    "tool": s.tool,
                    "role": s.role.as_str(),
                    "arguments": b.sent.get(i).cloned().unwrap_or(Value::Null),
                    "status": b.answers.get(i).map(|a| a.status.as_str()),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "seed": summary.seed,
        "sequences": summary.sequences,
        "held": summary.held,
        "inconclusive": summary.inconclusive_count,
        "skipped_writes": summary.skipped_writes,
        "links": summary.links,
        "broken": broken,
    })
}

/// The findings report of a stateful fuzz run of `server` (its transport
/// as a fact): one finding per broken sequence, the counts as summary
/// lines, the sequences that could not judge their oracle and those left
/// out as notes, and the `stateful` member of the JSON contract.
pub fn stateful_report(summary: &StatefulSummary, server: &str, transport: &str) -> Report {
    let mut out = Report::new("fuzz", server);
    out.facts.push((String::new(), transport.to_string()));
    out.facts.push(("seed".into(), summary.seed.to_string()));
    out.facts.push((String::new(), "stateful".into()));
    out.findings = stateful_findings(summary);
    out.summary.push(format!(
        "stateful: {} run, {} held, {} broken, {} could not judge their oracle",
        crate::report::plural(summary.sequences, "sequence", "sequences"),
        summary.held,
        summary.broken.len(),
        summary.inconclusive_count
    ));
    if summary.links.is_empty() {
        out.notes.push(Note::info(
            "no producer → consumer link was found (a create whose answer or arguments give the key a read, update or delete takes): only read-only oracles ran",
        ));
    }
    if summary.skipped_writes > 0 {
        out.notes.push(Note::info(format!(
            "{} that write {} not run: give --allow-writes (with --fixture DIR for a stdio server)",
            crate::report::plural(summary.skipped_writes, "oracle", "oracles"),
            if summary.skipped_writes == 1 {
                "was"
            } else {
                "were"
            }
        )));
    }
    for why in &summary.inconclusive {
        out.notes
            .push(Note::info(format!("could not judge: {why}")));
    }
    if summary.inconclusive_count > summary.inconclusive.len() {
        out.notes.push(Note::info(format!(
            "… and {} more sequences that could not judge their oracle",
            summary.inconclusive_count - summary.inconclusive.len()
        )));
    }
    out.set_extra("stateful", stateful_json(summary));
    out
}

/// What a step's bound key is written as in the test: a literal, or a
/// captured variable with the producer's capture path.
enum Written {
    Literal,
    Captured { var: String },
}

/// The regression test of one broken sequence (`number` makes its file
/// name unique): `regression_stateful_<tool>_<rule>.yaml`. `Err` when the
/// suite format cannot replay it exactly: a repeated read (a suite cannot
/// compare two answers of one test), or a key the server makes that is not
/// a string and differs from run to run (a suite sends captured values as
/// text).
pub fn stateful_regression(server: &Server, b: &Broken, timeout: &str) -> Result<File, NotWritten> {
    let seq = &b.sequence;
    if matches!(seq.oracle, Oracle::RepeatedRead { .. }) {
        return Err(NotWritten(
            "a suite cannot compare two answers within one test; the finding stays in the report"
                .into(),
        ));
    }
    let last = b.violation.step;
    // Each bound key: literal or captured.
    let mut written: Vec<Option<Written>> = Vec::new();
    let mut captures: Vec<Vec<(String, String)>> = vec![Vec::new(); seq.steps.len()];
    for (i, s) in seq.steps.iter().enumerate().take(last + 1) {
        let Some(bind) = &s.bind else {
            written.push(None);
            continue;
        };
        let value = b
            .sent
            .get(i)
            .and_then(|v| v.get(&bind.prop))
            .cloned()
            .unwrap_or(Value::Null);
        let origin = resolve_key(&b.sent, &b.answers, bind).map(|(_, o)| o);
        let w = match (origin, &value) {
            (Some(Origin::Argument), _) => Written::Literal,
            (Some(Origin::Answer(path)), Value::String(_)) => {
                let var = format!("key{}", bind.from + 1);
                if !captures[bind.from].iter().any(|(v, _)| *v == var) {
                    captures[bind.from].push((var.clone(), capture_path(b, bind.from, &path)));
                }
                Written::Captured { var }
            }
            _ if b.stable => Written::Literal,
            _ => {
                return Err(NotWritten(format!(
                    "the key `{}` is a {} the server makes anew on each run{}; the finding stays in the report",
                    bind.prop,
                    crate::value::type_name(&value),
                    if value.is_string() {
                        ", found in the answer's text, where a suite cannot capture it"
                    } else {
                        ", and a suite sends captured values as text"
                    }
                )));
            }
        };
        written.push(Some(w));
    }
    let args_of = |i: usize| -> Value {
        let mut args = b.sent.get(i).cloned().unwrap_or_else(|| json!({}));
        if let (Some(Some(Written::Captured { var, .. })), Some(bind)) =
            (written.get(i), &seq.steps[i].bind)
            && let Value::Object(m) = &mut args
        {
            m.insert(bind.prop.clone(), Value::String(format!("{{{{{var}}}}}")));
        }
        args
    };
    let target = &seq.steps[last];
    let mut text =
        String::from("# A regression test written by mcpcheck fuzz --stateful from a sequence:\n");
    text.push_str(&format!(
        "#   rule:   {} {}\n",
        b.violation.rule.code, b.violation.rule.title
    ));
    text.push_str(&format!("#   found:  {}\n", comment(&b.violation.message)));
    text.push_str(&format!(
        "#   oracle: {}, sequence {} ({} calls",
        seq.oracle.as_str(),
        seq.number,
        seq.steps.len()
    ));
    if b.original_steps > seq.steps.len() {
        text.push_str(&format!(", shrunk from {}", b.original_steps));
    }
    text.push_str(")\n");
    for line in transcript(b).lines() {
        text.push_str(&format!("#   {}\n", comment(line)));
    }
    text.push_str("# Each test gets a fresh server; the setup steps replay the calls before the judged one.\n");
    text.push_str(
        "# It fails while the bug is there and passes once the server answers properly.\n",
    );
    text.push_str(&server_block(server));
    let title = format!(
        "stateful regression: {} {} ({})",
        b.violation.rule.code,
        seq.oracle.as_str().replace('_', " "),
        seq.summary()
    );
    text.push_str(&format!("tests:\n  - name: {}\n", quote(&title)));
    if last > 0 {
        text.push_str("    setup:\n");
        for (i, (s, captured)) in seq.steps.iter().zip(&captures).take(last).enumerate() {
            text.push_str(&format!("      - tool: {}\n", quote(&s.tool)));
            text.push_str(&format!("        args: {}\n", flow(&args_of(i))));
            if !captured.is_empty() {
                text.push_str("        capture:\n");
                for (var, path) in captured {
                    text.push_str(&format!("          {var}: {}\n", quote(path)));
                }
            }
        }
    }
    text.push_str(&format!(
        "    assert:\n      tool: {}\n      args: {}\n      expect:\n",
        quote(&target.tool),
        flow(&args_of(last))
    ));
    let (name, target_path, matcher) = expectation(b)?;
    text.push_str(&format!(
        "        - name: {}\n          target: {}\n          matcher:\n            {matcher}\n",
        quote(name),
        quote(target_path)
    ));
    let timeout = if !timeout.is_empty()
        && timeout
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.')
    {
        timeout.to_string()
    } else {
        quote(timeout)
    };
    text.push_str(&format!("    timeout: {timeout}\n"));
    Ok(File {
        name: format!(
            "regression_stateful_{}_{}_{}.yaml",
            sanitize(&target.tool),
            b.violation.rule.code.to_ascii_lowercase(),
            seq.number
        ),
        kind: Kind::Tool,
        item: target.tool.clone(),
        text,
    })
}

/// What the judged call of a broken sequence must answer, as a list-form
/// check: its name, its target and its matcher (one line of YAML).
fn expectation(b: &Broken) -> Result<(&'static str, &'static str, String), NotWritten> {
    let seq = &b.sequence;
    let key = key_literal(b);
    // The Observation always has `result` and `error` (one null): each
    // branch says its member is an object.
    let refused = json!({"anyOf": [
        {"required": ["result"], "properties": {"result": {"type": "object", "required": ["isError"], "properties": {"isError": {"const": true}}}}},
        {"required": ["error"], "properties": {"error": {"type": "object", "required": ["code"], "properties": {"code": {
            "type": "integer", "not": {"enum": [-32700, -32600, -32601, -32603]}}}}}}
    ]});
    Ok(match (&seq.oracle, b.violation.rule.code) {
        (_, "F301" | "F306") => (
            "the missing key is refused (isError: true, or a JSON-RPC error other than -32603)",
            "$",
            format!("schema: {}", flow(&refused)),
        ),
        (Oracle::ListAfterCreate { .. }, "F302") => (
            "the created item is listed",
            "result",
            format!(
                "contains: {}",
                quote(&plain(key.as_ref().map_err(Clone::clone)?))
            ),
        ),
        (Oracle::ListAfterDelete { .. }, "F304") => (
            "the deleted item is not listed",
            "result",
            format!(
                "not_contains: {}",
                quote(&plain(key.as_ref().map_err(Clone::clone)?))
            ),
        ),
        (Oracle::GetAfterUpdate { marker, .. }, "F303") => (
            "the update is read back",
            "result",
            format!("contains: {}", quote(marker)),
        ),
        _ => (
            "answers with a result (a tool error counts)",
            "$",
            format!(
                "schema: {}",
                flow(&json!({"required": ["result"], "properties": {"result": {
                    "type": "object", "required": ["content"], "properties": {"content": {"type": "array"}}}}}))
            ),
        ),
    })
}

fn no_key() -> NotWritten {
    NotWritten("the sequence gave no key to look for; the finding stays in the report".into())
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The path a setup capture reads the key at: the capture reads the text
/// as JSON first, then `structuredContent`, so a key found in
/// `structuredContent` is looked for in the text's JSON first.
fn capture_path(b: &Broken, from: usize, found: &str) -> String {
    let field = found.rsplit('.').next().unwrap_or("id");
    let text_json = b.answers.get(from).and_then(|a| {
        let result = a.response.as_ref()?.get("result")?;
        let text = crate::observation::text_view(&crate::observation::Method::ToolsCall, result);
        crate::observation::parse_text_json(&text)
    });
    text_json
        .and_then(|j| find_field(&j, field))
        .map(|(_, p)| p)
        .unwrap_or_else(|| found.to_string())
}

/// The key a list oracle looks for, as the test writes it: a string, or a
/// number that was the same on two fresh runs.
fn key_literal(b: &Broken) -> Result<Value, NotWritten> {
    let seq = &b.sequence;
    let create = match seq.oracle {
        Oracle::ListAfterCreate { create, .. } | Oracle::ListAfterDelete { create, .. } => create,
        _ => return Err(no_key()),
    };
    // The marker the create was given (what the oracle looked for first),
    // the key the delete was given, or the first key-like field of the
    // create's answer, or the first key-like argument of the create.
    if let Some(m) = super::stateful::created_marker(&b.sent, create) {
        return Ok(m);
    }
    let from_bind = seq.steps.iter().enumerate().find_map(|(i, s)| {
        let bind = s.bind.as_ref()?;
        (bind.from == create).then(|| b.sent.get(i)?.get(&bind.prop).cloned())?
    });
    let found = from_bind.or_else(|| {
        let r = b.answers.get(create)?.response.as_ref()?;
        let result = r.get("result")?;
        let json = result
            .get("structuredContent")
            .filter(|v| !v.is_null())
            .cloned()
            .or_else(|| {
                let text =
                    crate::observation::text_view(&crate::observation::Method::ToolsCall, result);
                crate::observation::parse_text_json(&text)
            })?;
        ["id", "uuid", "uri", "key", "slug", "name", "title"]
            .iter()
            .find_map(|f| find_field(&json, f).map(|(v, _)| v))
    });
    let found = found.or_else(|| {
        let sent = b.sent.get(create)?.as_object()?;
        ["id", "uri", "key", "slug", "name", "title"]
            .iter()
            .find_map(|k| sent.get(*k).cloned())
    });
    match found {
        Some(v @ Value::String(_)) => Ok(v),
        Some(v) if b.stable => Ok(v),
        Some(_) => Err(NotWritten(
            "the key the list must show is a number the server makes anew on each run; the finding stays in the report".into(),
        )),
        None => Err(no_key()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Status;
    use super::super::stateful::{Next, SequenceRun, sequences, shrink_sequence};
    use super::*;

    fn tools() -> Vec<Value> {
        let id =
            json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]});
        vec![
            json!({"name": "create_note", "inputSchema": {"type": "object",
                "properties": {"title": {"type": "string"}}, "required": ["title"]}}),
            json!({"name": "get_note", "inputSchema": id, "annotations": {"readOnlyHint": true}}),
            json!({"name": "delete_note", "inputSchema": id, "annotations": {"destructiveHint": true}}),
        ]
    }

    #[test]
    fn a_read_after_delete_becomes_a_composed_test_with_setup_steps() {
        let plan = sequences(&tools(), 3, 10, true);
        let seq = plan
            .sequences
            .iter()
            .find(|s| matches!(s.oracle, Oracle::ReadAfterDelete { .. }))
            .expect("sequence")
            .clone();
        let mut run = SequenceRun::new(&seq);
        while let Next::Call { tool, .. } = run.next_call() {
            let text = if tool == "create_note" {
                "{\"id\": \"n-1\"}"
            } else {
                "a note"
            };
            run.record(StepAnswer {
                status: Status::Healthy,
                response: Some(json!({"result": {"content": [{"type": "text", "text": text}]}})),
                detail: String::new(),
            });
        }
        let violation = run.verdict().expect("judged").expect("broken");
        let broken = Broken {
            sequence: seq.clone(),
            original_steps: 5,
            sent: run.sent.clone(),
            answers: run.answers.clone(),
            violation,
            stable: true,
        };
        let server = Server::Stdio {
            command: "node".into(),
            args: vec!["notes.js".into()],
        };
        let file = stateful_regression(&server, &broken, "30s").expect("written");
        assert!(
            file.name.starts_with("regression_stateful_get_note_f301_"),
            "{}",
            file.name
        );
        let t = &file.text;
        assert!(t.contains("tests:\n  - name:"), "{t}");
        assert!(
            t.contains("    setup:\n      - tool: \"create_note\""),
            "{t}"
        );
        assert!(
            t.contains("        capture:\n          key1: \"$.id\""),
            "{t}"
        );
        assert!(
            t.contains("      - tool: \"delete_note\"\n        args: {\"id\": \"{{key1}}\"}"),
            "{t}"
        );
        assert!(
            t.contains("    assert:\n      tool: \"get_note\"\n      args: {\"id\": \"{{key1}}\"}"),
            "{t}"
        );
        assert!(t.contains("\"const\": true"), "{t}");
        let loaded = crate::suite::load("r.yaml", t);
        assert!(!loaded.has_errors(), "{:?}\n{t}", loaded.diagnostics);
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let findings = stateful_findings(&StatefulSummary {
            broken: vec![broken],
            ..StatefulSummary::default()
        });
        assert_eq!(findings[0].code(), "F301");
        assert!(
            findings[0].message.contains("shrunk from 5 calls"),
            "{}",
            findings[0].message
        );
        let _ = shrink_sequence(&seq);
    }
}
