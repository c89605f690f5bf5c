//! The faults `mcpcheck intercept --fault SPEC` injects into a live session
//! between a client and a server: which request a fault applies to (a tool,
//! a method, every one, the nth, with a probability), decided from a seed,
//! and what it makes of the server's answer. The proxy moves the bytes;
//! every decision is here.
//!
//! # A spec
//!
//! `KIND[:KEY=VALUE[,KEY=VALUE…]]`, or the name of a preset ([`PRESETS`]).
//! Kinds: `latency` (`ms=`, default 1000), `error` (`code=`, default
//! -32603), `is-error`, `invalid-json`, `schema`, `drop`, `duplicate`,
//! `reorder`, `disconnect`. Keys that choose: `tool=NAME` (a `tools/call`
//! of that tool), `method=M` (any request of that method), `nth=N` (the
//! Nth request it matches, from 1), `p=P` (each matching request with
//! probability P, 0 to 1, drawn from the seed). Without `tool` or `method`
//! a fault applies to `tools/call`.
//!
//! # What is recorded
//!
//! Each injection is an [`Injected`]: the request's id, method and tool,
//! the fault's kind and spec, and what was done, in words. The capture
//! carries them as the session's `injected` member (`docs/capture.md`),
//! each with the index of the exchange it changed, and [`attributed`]
//! tells the invariant findings those injections caused from the server's
//! own.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::probe::rng_stream;

/// What a fault does to the answer of a request it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// The answer is held `ms` milliseconds before it goes on.
    Latency,
    /// The answer is replaced by a JSON-RPC error with `code`.
    Error,
    /// The answer is replaced by a tool result with `isError: true`.
    IsError,
    /// The answer is cut in half: what the client gets is not JSON.
    InvalidJson,
    /// The answer is replaced by a result of the wrong shape (`content` not
    /// a list; for other methods a result without its required member).
    Schema,
    /// The answer never reaches the client.
    Drop,
    /// The answer reaches the client twice.
    Duplicate,
    /// Notifications sent while the request is open are held, and sent
    /// after the answer in reverse order.
    Reorder,
    /// Instead of the answer, the connection is cut.
    Disconnect,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::Latency,
        Kind::Error,
        Kind::IsError,
        Kind::InvalidJson,
        Kind::Schema,
        Kind::Drop,
        Kind::Duplicate,
        Kind::Reorder,
        Kind::Disconnect,
    ];

    /// `latency`, `error`, `is-error`, …
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Latency => "latency",
            Kind::Error => "error",
            Kind::IsError => "is-error",
            Kind::InvalidJson => "invalid-json",
            Kind::Schema => "schema",
            Kind::Drop => "drop",
            Kind::Duplicate => "duplicate",
            Kind::Reorder => "reorder",
            Kind::Disconnect => "disconnect",
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether it changes what the answer says (rather than when, how often
    /// or whether it arrives).
    pub fn rewrites(self) -> bool {
        matches!(
            self,
            Kind::Error | Kind::IsError | Kind::InvalidJson | Kind::Schema
        )
    }
}

/// Which requests a fault applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "name")]
pub enum Target {
    /// A `tools/call` of this tool.
    Tool(String),
    /// Any request of this method.
    Method(String),
}

/// Of the requests it matches, which it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "when", content = "value")]
pub enum When {
    /// Every one.
    Always,
    /// The nth (from 1).
    Nth(u64),
    /// Each with this probability, from the seed.
    Probability(f64),
}

/// One fault, as a spec gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fault {
    pub kind: Kind,
    pub target: Target,
    pub when: When,
    /// For `latency`: how long, in milliseconds.
    pub ms: u64,
    /// For `error`: the JSON-RPC error code.
    pub code: i64,
    /// The spec it came from (a preset's own spec for each of its faults).
    pub spec: String,
}

/// The presets: a name, what it is for, its specs.
pub const PRESETS: [(&str, &str, &[&str]); 5] = [
    (
        "flaky-tools",
        "a fifth of tool calls fail with -32603, a fifth take 2 s longer",
        &["error:p=0.2", "latency:ms=2000,p=0.2"],
    ),
    (
        "slow-tools",
        "every tool call takes 3 s longer",
        &["latency:ms=3000"],
    ),
    (
        "broken-answers",
        "a tenth of tool answers are not JSON, a tenth have the wrong shape, a tenth are tool errors",
        &["invalid-json:p=0.1", "schema:p=0.1", "is-error:p=0.1"],
    ),
    (
        "lossy",
        "a tenth of tool answers are lost, a tenth arrive twice",
        &["drop:p=0.1", "duplicate:p=0.1"],
    ),
    (
        "chaos",
        "a little of everything but a disconnect, each 5% of tool calls",
        &[
            "latency:ms=1500,p=0.05",
            "error:p=0.05",
            "is-error:p=0.05",
            "invalid-json:p=0.05",
            "schema:p=0.05",
            "drop:p=0.05",
            "duplicate:p=0.05",
            "reorder:p=0.05",
        ],
    ),
];

/// The faults of one `--fault` value: a preset's, or the one the spec
/// says.
///
/// # Errors
///
/// What is wrong with the spec, naming the kinds, keys and presets there
/// are.
pub fn parse(spec: &str) -> Result<Vec<Fault>, SpecError> {
    let spec = spec.trim();
    if let Some((_, _, specs)) = PRESETS.iter().find(|(name, _, _)| *name == spec) {
        return specs.iter().map(|s| one(s)).collect();
    }
    one(spec).map(|f| vec![f])
}

fn kinds() -> String {
    Kind::ALL
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn presets() -> String {
    PRESETS
        .iter()
        .map(|(n, _, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A `--fault` spec that could not be read: the spec and what is wrong in it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{spec}`: {problem}")]
pub struct SpecError {
    pub spec: String,
    pub problem: SpecProblem,
}

/// What is wrong in a `--fault` spec.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecProblem {
    /// `hint` is empty or ` (did you mean …)`.
    #[error("`{word}` is no fault kind and no preset{hint}; kinds: {kinds}; presets: {presets}")]
    UnknownKind {
        word: String,
        hint: String,
        kinds: String,
        presets: String,
    },
    #[error("`{0}` is not KEY=VALUE")]
    NotPair(String),
    #[error("{key}={value}: {expected}")]
    BadValue {
        key: String,
        value: String,
        expected: &'static str,
    },
    #[error("give one of tool= and method=")]
    BothTargets,
    #[error("nth counts from 1")]
    NthZero,
    #[error("`{key}` is not a key of {kind} (keys: {keys})")]
    UnknownKey {
        key: String,
        kind: &'static str,
        keys: String,
    },
}

fn one(spec: &str) -> Result<Fault, SpecError> {
    let fail = |problem| SpecError {
        spec: spec.to_string(),
        problem,
    };
    let (kind_word, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let Some(kind) = Kind::parse(kind_word.trim()) else {
        let hint = crate::diag::did_you_mean(
            kind_word,
            Kind::ALL
                .iter()
                .map(|k| k.as_str())
                .chain(PRESETS.iter().map(|(n, _, _)| *n)),
        )
        .map(|h| format!(" ({h})"))
        .unwrap_or_default();
        return Err(fail(SpecProblem::UnknownKind {
            word: kind_word.to_string(),
            hint,
            kinds: kinds(),
            presets: presets(),
        }));
    };
    let mut fault = Fault {
        kind,
        target: Target::Method("tools/call".into()),
        when: When::Always,
        ms: 1000,
        code: -32603,
        spec: spec.to_string(),
    };
    let mut chosen = false;
    for pair in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(fail(SpecProblem::NotPair(pair.to_string())));
        };
        let (key, value) = (key.trim(), value.trim());
        let bad = |expected| {
            fail(SpecProblem::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                expected,
            })
        };
        let number = |expected| value.parse::<u64>().map_err(|_| bad(expected));
        match key {
            "tool" | "method" if chosen => {
                return Err(fail(SpecProblem::BothTargets));
            }
            "tool" if !value.is_empty() => {
                fault.target = Target::Tool(value.to_string());
                chosen = true;
            }
            "method" if !value.is_empty() => {
                fault.target = Target::Method(value.to_string());
                chosen = true;
            }
            "nth" => match number("a count from 1")? {
                0 => return Err(fail(SpecProblem::NthZero)),
                n => fault.when = When::Nth(n),
            },
            "p" => match value.parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => fault.when = When::Probability(p),
                _ => return Err(bad("a probability from 0 to 1")),
            },
            "ms" if kind == Kind::Latency => {
                fault.ms = number("milliseconds")?;
                if fault.ms > 600_000 {
                    return Err(bad("at most 600000 (10 minutes)"));
                }
            }
            "code" if kind == Kind::Error => {
                fault.code = value
                    .parse::<i64>()
                    .map_err(|_| bad("a JSON-RPC error code such as -32603"))?;
            }
            _ => {
                let mut keys = vec!["tool", "method", "nth", "p"];
                if kind == Kind::Latency {
                    keys.push("ms");
                }
                if kind == Kind::Error {
                    keys.push("code");
                }
                return Err(fail(SpecProblem::UnknownKey {
                    key: key.to_string(),
                    kind: kind.as_str(),
                    keys: keys.join(", "),
                }));
            }
        }
    }
    Ok(fault)
}

/// Decides, request by request, which faults apply: the same seed and the
/// same requests in the same order, the same decisions.
#[derive(Debug, Clone)]
pub struct Injector {
    faults: Vec<Fault>,
    /// How many requests each fault matched so far.
    matched: Vec<u64>,
    seed: u64,
}

impl Injector {
    pub fn new(faults: Vec<Fault>, seed: u64) -> Injector {
        let matched = vec![0; faults.len()];
        Injector {
            faults,
            matched,
            seed,
        }
    }

    pub fn faults(&self) -> &[Fault] {
        &self.faults
    }

    pub fn is_empty(&self) -> bool {
        self.faults.is_empty()
    }

    /// The faults that apply to a request of `method` (a `tools/call` of
    /// `tool`), as indices: at most one `latency`, one `reorder`, and one of
    /// the others (the first given), so an answer is changed in one way.
    pub fn decide(&mut self, method: &str, tool: Option<&str>) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            let matches = match &f.target {
                Target::Tool(t) => method == "tools/call" && tool == Some(t.as_str()),
                Target::Method(m) => m == method,
            };
            if !matches {
                continue;
            }
            self.matched[i] += 1;
            let n = self.matched[i];
            let applies = match f.when {
                When::Always => true,
                When::Nth(k) => n == k,
                When::Probability(p) => {
                    // One draw per fault and match: a fixed stream per fault.
                    let draw = rng_stream(self.seed, i as u64, n);
                    (draw as f64 / u64::MAX as f64) < p
                }
            };
            if !applies {
                continue;
            }
            let taken = |k: Kind| out.iter().any(|&j| self.faults[j].kind == k);
            let main_taken = out
                .iter()
                .any(|&j| !matches!(self.faults[j].kind, Kind::Latency | Kind::Reorder));
            let ok = match f.kind {
                Kind::Latency => !taken(Kind::Latency),
                Kind::Reorder => !taken(Kind::Reorder),
                _ => !main_taken,
            };
            if ok {
                out.push(i);
            }
        }
        out
    }

    pub fn fault(&self, i: usize) -> &Fault {
        &self.faults[i]
    }
}

/// What a rewriting fault makes of an answer (the JSON-RPC response text
/// `original` to the request with id `id` of `method`).
pub fn rewrite(fault: &Fault, method: &str, id: &Value, original: &str) -> String {
    let id = id.to_string();
    match fault.kind {
        Kind::Error => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{},\"message\":\"injected by mcpcheck intercept --fault {}\"}}}}",
            fault.code,
            escape(&fault.spec)
        ),
        Kind::IsError => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"injected tool error (mcpcheck intercept --fault {})\"}}],\"isError\":true}}}}",
            escape(&fault.spec)
        ),
        Kind::Schema => {
            let result = match method {
                "tools/call" => json!({"content": "injected: content that is not a list"}),
                "prompts/get" => json!({"description": "injected: no messages"}),
                "resources/read" => json!({"injected": "no contents"}),
                _ => json!("injected: a result that is not an object"),
            };
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}")
        }
        Kind::InvalidJson => {
            // Half of it, at a character boundary, and never less than a
            // cut object: what a writer killed mid-message leaves.
            let mut at = (original.len() / 2).max(1).min(original.len());
            while !original.is_char_boundary(at) {
                at -= 1;
            }
            let cut = &original[..at];
            if serde_json::from_str::<Value>(cut).is_ok() || cut.is_empty() {
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{")
            } else {
                cut.to_string()
            }
        }
        _ => original.to_string(),
    }
}

fn escape(s: &str) -> String {
    let quoted = Value::String(s.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

/// One injection, as the capture records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Injected {
    /// The index of the exchange whose answer was changed (filled in when
    /// the capture is made).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<usize>,
    /// The request's id.
    pub id: Value,
    pub method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub fault: Kind,
    pub spec: String,
    /// What was done, in words.
    pub detail: String,
}

/// What was done, in words, for a fault applied to a request.
pub fn detail(fault: &Fault) -> String {
    match fault.kind {
        Kind::Latency => format!("the answer was held {} ms", fault.ms),
        Kind::Error => format!("the answer was replaced by JSON-RPC error {}", fault.code),
        Kind::IsError => "the answer was replaced by a tool result with isError: true".into(),
        Kind::InvalidJson => "the answer was cut in half (not JSON)".into(),
        Kind::Schema => "the answer was replaced by a result of the wrong shape".into(),
        Kind::Drop => "the answer was not passed on".into(),
        Kind::Duplicate => "the answer was passed on twice".into(),
        Kind::Reorder => {
            "the notifications sent while it was open were held and passed on after the answer, last first".into()
        }
        Kind::Disconnect => "the connection was cut instead of passing the answer on".into(),
    }
}

/// The exchange index of each injection in a capture session's text (the
/// exchange whose request has the injection's id), as the capture's
/// `injected` member: JSON text to add to the session object.
pub fn capture_member(session: &str, injected: &[Injected]) -> Value {
    let parsed = crate::capture::parse(session).ok();
    let exchanges = parsed.as_ref().and_then(|c| c.sessions.first());
    let list: Vec<Value> = injected
        .iter()
        .map(|inj| {
            let mut e = inj.clone();
            let wanted = inj.id.to_string();
            e.exchange = exchanges.and_then(|s| {
                s.exchanges.iter().position(|x| {
                    x.request.id().is_some_and(|id| id.to_string() == wanted)
                        && x.request.method_str() == inj.method.as_str()
                })
            });
            serde_json::to_value(e).unwrap_or(Value::Null)
        })
        .collect();
    Value::Array(list)
}

/// The session text with its `injected` member added (before its closing
/// brace), when there is anything injected.
pub fn with_member(session: &str, member: &Value) -> String {
    if member.as_array().is_none_or(Vec::is_empty) {
        return session.to_string();
    }
    let trimmed = session.trim_end();
    match trimmed.strip_suffix('}') {
        Some(body) => format!("{},\n  \"injected\": {member}\n}}", body.trim_end()),
        None => session.to_string(),
    }
}

/// The exchange indices a session's `injected` member names.
pub fn injected_exchanges(session: &Value) -> Vec<usize> {
    session
        .get("injected")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|e| e.get("exchange").and_then(Value::as_u64))
                .map(|n| n as usize)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether an invariant finding at `exchange` (its location's) was caused
/// by an injection: the exchange itself was changed, or (a message that
/// arrived after it) the one it follows. A finding with no exchange is the
/// server's own.
pub fn attributed(exchange: Option<usize>, injected: &[usize]) -> bool {
    exchange.is_some_and(|e| injected.contains(&e))
}

/// The injections each session of a capture records (its `injected`
/// member), in session order; a session without one has none.
pub fn recorded(capture: &str) -> Vec<Vec<Injected>> {
    let Ok(parsed) = crate::capture::parse(capture) else {
        return Vec::new();
    };
    parsed
        .sessions
        .iter()
        .map(|s| {
            s.extra
                .iter()
                .find(|(k, _)| k == "injected")
                .and_then(|(_, raw)| serde_json::from_str::<Vec<Injected>>(raw.get()).ok())
                .unwrap_or_default()
        })
        .collect()
}

/// Tells the invariant findings the injections of `capture` caused from the
/// server's own: each finding of `checked` (the invariants of `capture`)
/// located at an exchange an injection changed is moved from `findings`
/// (built from `checked` by [`crate::invariants::report`], in the same
/// order) to its suppressed findings, with the fault as the reason, and the
/// summary says how many. Returns how many were moved.
pub fn attribute(
    findings: &mut crate::findings::Report,
    checked: &crate::invariants::Report,
    capture: &str,
) -> usize {
    let sessions = recorded(capture);
    if sessions.iter().all(Vec::is_empty) {
        return 0;
    }
    let mut reasons: Vec<Option<String>> = Vec::new();
    for (si, session) in checked.sessions.iter().enumerate() {
        let injected = sessions.get(si).map(Vec::as_slice).unwrap_or_default();
        let at: Vec<usize> = injected.iter().filter_map(|i| i.exchange).collect();
        for f in &session.findings {
            let e = f.location.exchange;
            reasons.push(attributed(e, &at).then(|| {
                let spec = injected
                    .iter()
                    .find(|i| i.exchange == e)
                    .map(|i| i.spec.as_str())
                    .unwrap_or_default();
                format!(
                    "injected by --fault {spec} at exchange {}",
                    e.unwrap_or_default()
                )
            }));
        }
    }
    let mut reasons = reasons.into_iter();
    let mut moved = Vec::new();
    findings.retain(|f| {
        if f.family() != crate::findings::Family::Invariants {
            return true;
        }
        match reasons.next().flatten() {
            Some(reason) => {
                moved.push((f.clone(), reason));
                false
            }
            None => true,
        }
    });
    let n = moved.len();
    findings.suppressed.extend(moved);
    if n > 0 {
        let own = findings
            .findings
            .iter()
            .filter(|f| f.family() == crate::findings::Family::Invariants)
            .count();
        findings.summary = vec![if own == 0 {
            format!(
                "passed: the server's own messages break no invariant; {} caused by injected faults",
                crate::report::plural(n, "finding was", "findings were")
            )
        } else {
            format!(
                "failed: {} of the server's own; {} caused by injected faults",
                crate::report::plural(own, "finding", "findings"),
                crate::report::plural(n, "more was", "more were")
            )
        }];
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_and_presets() {
        let f = parse("latency:ms=250,tool=search,p=0.5").expect("spec");
        assert_eq!(f[0].kind, Kind::Latency);
        assert_eq!(f[0].ms, 250);
        assert_eq!(f[0].target, Target::Tool("search".into()));
        assert_eq!(f[0].when, When::Probability(0.5));
        let f = parse("error:code=-32000,method=prompts/get,nth=2").expect("spec");
        assert_eq!((f[0].code, f[0].when), (-32000, When::Nth(2)));
        assert_eq!(
            parse("drop").expect("bare")[0].target,
            Target::Method("tools/call".into())
        );
        assert_eq!(parse("chaos").expect("preset").len(), 8);
        let e = parse("latncy").expect_err("typo").to_string();
        assert!(e.contains("latency") && e.contains("presets"), "{e}");
        assert!(
            parse("error:ms=5")
                .expect_err("key")
                .to_string()
                .contains("keys: tool, method, nth, p, code")
        );
        assert!(parse("drop:p=2").is_err());
        assert!(parse("drop:nth=0").is_err());
        assert!(parse("drop:tool=a,method=b").is_err());
    }

    #[test]
    fn decisions_follow_the_seed_and_the_count() {
        let faults = vec![
            parse("error:nth=2").expect("f").remove(0),
            parse("latency:ms=5,p=0.5").expect("f").remove(0),
            parse("is-error:tool=t").expect("f").remove(0),
        ];
        let mut a = Injector::new(faults.clone(), 9);
        let mut b = Injector::new(faults, 9);
        let run = |i: &mut Injector| -> Vec<Vec<usize>> {
            (0..20).map(|_| i.decide("tools/call", Some("t"))).collect()
        };
        let (x, y) = (run(&mut a), run(&mut b));
        assert_eq!(x, y);
        // The 2nd call: the error, not also the tool error.
        assert!(x[1].contains(&0) && !x[1].contains(&2));
        assert!(x[0].contains(&2));
        let latencies = x.iter().filter(|d| d.contains(&1)).count();
        assert!((3..=17).contains(&latencies), "{latencies}");
        assert!(a.decide("prompts/get", None).is_empty());
    }

    #[test]
    fn rewrites() {
        let f = parse("invalid-json").expect("f").remove(0);
        let cut = rewrite(
            &f,
            "tools/call",
            &json!(3),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}",
        );
        assert!(serde_json::from_str::<Value>(&cut).is_err(), "{cut}");
        let f = parse("error:code=-32001").expect("f").remove(0);
        let e: Value =
            serde_json::from_str(&rewrite(&f, "tools/call", &json!("a"), "{}")).expect("json");
        assert_eq!(e["error"]["code"], -32001);
        assert_eq!(e["id"], "a");
        let f = parse("schema").expect("f").remove(0);
        let s: Value =
            serde_json::from_str(&rewrite(&f, "tools/call", &json!(1), "{}")).expect("json");
        assert!(s["result"]["content"].is_string());
    }

    #[test]
    fn the_capture_member_names_exchanges() {
        let session = json!({"exchanges": [
            {"request": {"jsonrpc": "2.0", "id": 1, "method": "initialize"}},
            {"request": {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t"}}}
        ]})
        .to_string();
        let inj = Injected {
            exchange: None,
            id: json!(2),
            method: "tools/call".into(),
            tool: Some("t".into()),
            fault: Kind::Drop,
            spec: "drop".into(),
            detail: "the answer was not passed on".into(),
        };
        let member = capture_member(&session, &[inj]);
        assert_eq!(member[0]["exchange"], 1);
        let text = with_member(&session, &member);
        let doc: Value = serde_json::from_str(&text).expect("still JSON");
        assert_eq!(injected_exchanges(&doc), [1]);
        assert!(attributed(Some(1), &[1]));
        assert!(!attributed(None, &[1]));
    }
}
