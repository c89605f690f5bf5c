//! Recorded sessions served again: the decisions of `mcpcheck replay`, a mock
//! MCP server that answers from captures (the format of [`crate::capture`]).
//!
//! A [`Library`] holds the recorded sessions of one or more capture files. A
//! [`Replayer`] is one client session against it: each message the client
//! sends goes to [`Replayer::receive`], which says what to send back
//! ([`Out`]): the recorded server notifications, server→client requests and
//! non-JSON lines of the matching exchange, in the order they were recorded,
//! then its response. The front end only moves these bytes.
//!
//! **Matching.** A request matches a recorded one when their `method`s are
//! equal and their `params` are equal under the [`Matching`] chosen. The
//! JSON-RPC `id` and `params._meta.progressToken` never matter, nor does the
//! name of a temporary fixture copy (`…/mcpcheck-fixture-` and six random
//! characters, which `mcpcheck run` makes afresh for every test; mcp-assert's
//! `mcp-assert-fixture-NNN`; `mkdtemp`-style directories under the temporary
//! directory: [`crate::temp_copy`]): the recorded one is replaced by the
//! client's in what is sent back. With `name` matching, among the recorded
//! requests of the same name the one whose arguments are closest to the
//! client's answers, the recorded order deciding only between equals.
//!
//! **Which recording answers.** Every recorded session starts as a
//! candidate. A request is answered by the first candidate (in library
//! order) that has an equal request not yet used, and the candidates narrow
//! to those that had one; each recorded exchange answers once, in order, so a
//! session that read a counter twice gets both of its answers back. A request
//! repeated more often than recorded gets the last recorded answer again. A
//! request no candidate has, but another session has, moves the candidates
//! there. So a directory of captures (one per test) serves each test's client
//! from that test's capture, found by the requests it makes.
//!
//! `initialize` is always answered: from an equal recorded one, else from the
//! closest recorded one, else (a capture without a handshake) from the
//! capture's `server_capabilities` and `protocol_version`. `ping` is answered
//! `{}` when it was not recorded. Anything else that matches nothing gets a
//! JSON-RPC error naming the closest recorded request and where they differ:
//! `-32601` when no recording has the method, `-32602` otherwise.
//! Client notifications and answers are taken without a reply.

use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;

use crate::capture::{self, Message};

/// How requests are compared with recorded ones. In every mode the JSON-RPC
/// `id`, `_meta.progressToken` and fixture-copy names are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matching {
    /// `method` and every other part of `params` equal.
    Exact,
    /// As `exact`, but all of `params._meta` is ignored, and so is, at any
    /// depth of `params`, every member named `id` or ending in `Id` or `_id`
    /// (`requestId`, `session_id`…): for clients that put fresh identifiers
    /// in their requests.
    IgnoreIds,
    /// Only the `method` and what the request is about: the `name`, `uri`
    /// and `ref` members of `params` when present (the tool, prompt or
    /// resource). Among those, the recorded request whose arguments are
    /// closest to the client's answers; recorded order decides between
    /// equally close ones.
    Name,
}

impl Matching {
    /// Every mode: its name on the command line, and what it compares.
    pub const ALL: [(Matching, &'static str, &'static str); 3] = [
        (
            Matching::Exact,
            "exact",
            "method and params equal (ids, progress tokens and fixture copies aside)",
        ),
        (
            Matching::IgnoreIds,
            "ignore-ids",
            "as exact, ignoring params._meta and every member named id, *Id or *_id",
        ),
        (
            Matching::Name,
            "name",
            "method and the tool, prompt or resource named (name, uri, ref); the closest arguments answer",
        ),
    ];

    /// The mode's name on the command line.
    pub fn as_str(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(m, _, _)| *m == self)
            .map_or("exact", |(_, n, _)| n)
    }

    /// The mode of a name.
    pub fn parse(name: &str) -> Option<Matching> {
        Self::ALL
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(m, _, _)| *m)
    }
}

/// What to send the client, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Out {
    /// A JSON-RPC message (a notification, a response, an error).
    Send(Value),
    /// A line that was not JSON when it was recorded, sent as it was.
    Raw(String),
    /// A server→client request: send it, then wait for the client's answer
    /// (a response with this `id`) before sending what follows.
    Ask { id: Value, request: Value },
}

/// The answer to one client message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    pub outs: Vec<Out>,
    /// When nothing recorded matched: why, for the server's log.
    pub unmatched: Option<String>,
}

/// A capture file that could not be used, with its diagnostics.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub source: String,
    pub problems: Vec<String>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}: {p}", self.source)?;
        }
        Ok(())
    }
}

/// One step of an exchange before its response.
#[derive(Clone, Debug)]
/// Recorded server messages are kept as their text and read when they are
/// played: a library holds its captures' text, not every message as JSON
/// values (which take many times their size).
enum Step {
    Send(String),
    Raw(String),
    Ask(String),
}

/// One recorded request and what answered it.
#[derive(Clone, Debug)]
struct Entry {
    /// Its index in the session's `exchanges`.
    index: usize,
    request: Value,
    /// The normalized request, as text: equal keys, equal requests.
    key: String,
    /// The response as its text (read when it is played).
    response: Option<String>,
    steps: Vec<Step>,
    /// What arrived after the response and before the next request.
    after: Vec<Step>,
}

/// One recorded session.
#[derive(Clone, Debug)]
struct Recorded {
    /// The file it came from, and its place in the file when the file holds
    /// several sessions.
    source: String,
    /// Exchanges whose request is nested deeper than JSON values are read:
    /// they cannot be matched, and loading says so.
    deep_requests: Vec<usize>,
    entries: Vec<Entry>,
    server_capabilities: Option<Value>,
    protocol_version: Option<String>,
    label: Option<String>,
}

/// The recorded sessions of a set of captures, ready to answer from.
#[derive(Clone, Debug)]
pub struct Library {
    sessions: Vec<Recorded>,
    matching: Matching,
    /// key -> its slot in `keyed`.
    index: BTreeMap<String, usize>,
    /// Per key: each session that has it, with its entries of that key in
    /// order; sessions in library order.
    keyed: Vec<Vec<(usize, Vec<usize>)>>,
}

/// What temporary fixture copies are normalized to for matching.
const FIXTURE_PLACEHOLDER: &str = crate::temp_copy::PLACEHOLDER;

/// Requests with a method and an id: what a client waits an answer for.
fn is_request(v: &Value) -> bool {
    v.get("method").is_some_and(Value::is_string) && v.get("id").is_some()
}

fn parse_raw(m: &Message<'_>) -> Value {
    serde_json::from_str(m.text()).unwrap_or(Value::Null)
}

/// The step of a recorded server message.
fn step_of(m: &Message<'_>, ask: bool) -> Step {
    let text = m.text().to_string();
    if ask {
        Step::Ask(text)
    } else {
        Step::Send(text)
    }
}

/// Whether a JSON text is nested deeper than JSON values are read.
fn too_deep(text: &str) -> bool {
    matches!(
        serde_json::from_str::<serde::de::IgnoredAny>(text),
        Err(e) if e.to_string().contains("recursion limit")
    ) || serde_json::from_str::<Value>(text)
        .is_err_and(|e| e.to_string().contains("recursion limit"))
}

/// A message's text with its top-level `id` set to `id` (the other members
/// as written, never read as values) and, with a live fixture, recorded
/// fixture copies replaced by it.
fn with_id(text: &str, id: Option<&Value>, live_fixture: Option<&str>) -> String {
    let text = match live_fixture {
        Some(live) => {
            // The path as it stands inside a JSON string.
            let escaped = serde_json::to_string(live).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            crate::temp_copy::replace_known(text, escaped, &[]).into_owned()
        }
        None => text.to_string(),
    };
    let Some(id) = id else {
        return text;
    };
    match serde_json::from_str::<BTreeMap<String, Box<serde_json::value::RawValue>>>(&text) {
        Ok(mut members) => {
            if let Ok(raw) = serde_json::value::RawValue::from_string(id.to_string()) {
                members.insert("id".into(), raw);
            }
            serde_json::to_string(&members).unwrap_or(text)
        }
        Err(_) => text,
    }
}

/// Recorded messages longer than this are played as their text (the id and
/// fixture paths replaced in it), never read as JSON values: a 100 MB
/// answer of small objects would take gigabytes as values.
const AS_TEXT_ABOVE: usize = 256 * 1024;

/// A recorded message as JSON values, when it is short enough and nested
/// within the 128 levels values are read to; `Err` when it is played as
/// text.
fn as_values(text: &str) -> Result<Value, ()> {
    if text.len() > AS_TEXT_ABOVE {
        return Err(());
    }
    serde_json::from_str(text).map_err(|_| ())
}

/// The `id` of a message too deep to read as values, from its top level.
fn top_level_id(text: &str) -> Option<Value> {
    let members =
        serde_json::from_str::<BTreeMap<String, Box<serde_json::value::RawValue>>>(text).ok()?;
    serde_json::from_str(members.get("id")?.get()).ok()
}

impl Library {
    /// The library of `captures`, each `(name, text)`: a file's name (as the
    /// user gave it, for messages) and its content. Every unusable file is
    /// reported, with what is wrong at which JSON pointer.
    pub fn load(
        captures: &[(String, String)],
        matching: Matching,
    ) -> Result<Library, Vec<LoadError>> {
        let mut sessions = Vec::new();
        let mut errors = Vec::new();
        for (name, text) in captures {
            match capture::parse(text) {
                Ok(c) => {
                    let many = c.sessions.len() > 1;
                    for (i, s) in c.sessions.iter().enumerate() {
                        let source = if many {
                            format!("{name} (session {i})")
                        } else {
                            name.clone()
                        };
                        let r = recorded(source, s, matching);
                        if !r.deep_requests.is_empty() {
                            let at = if many {
                                format!("/sessions/{i}/exchanges")
                            } else {
                                "/exchanges".to_string()
                            };
                            errors.push(LoadError {
                                source: name.clone(),
                                problems: r
                                    .deep_requests
                                    .iter()
                                    .map(|x| format!(
                                        "{at}/{x}/request: nested deeper than the 128 levels replay reads, so no request could be matched with it; remove the exchange or record it again"
                                    ))
                                    .collect(),
                            });
                        }
                        sessions.push(r);
                    }
                }
                Err(diags) => errors.push(LoadError {
                    source: name.clone(),
                    problems: diags.iter().map(ToString::to_string).collect(),
                }),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        if sessions.iter().all(|s| s.entries.is_empty()) {
            return Err(vec![LoadError {
                source: captures
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                problems: vec![
                    "no recorded request to answer from (the captures hold no request with an id)"
                        .into(),
                ],
            }]);
        }
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        let mut keyed: Vec<Vec<(usize, Vec<usize>)>> = Vec::new();
        for (si, s) in sessions.iter().enumerate() {
            for (ei, e) in s.entries.iter().enumerate() {
                let k = *index.entry(e.key.clone()).or_insert_with(|| {
                    keyed.push(Vec::new());
                    keyed.len() - 1
                });
                match keyed[k].last_mut() {
                    Some((last, entries)) if *last == si => entries.push(ei),
                    _ => keyed[k].push((si, vec![ei])),
                }
            }
        }
        Ok(Library {
            sessions,
            matching,
            index,
            keyed,
        })
    }

    /// How many recorded sessions and requests the library holds.
    pub fn size(&self) -> (usize, usize) {
        (
            self.sessions.len(),
            self.sessions.iter().map(|s| s.entries.len()).sum(),
        )
    }

    pub fn matching(&self) -> Matching {
        self.matching
    }
}

/// A session of a capture as a list of answerable entries.
fn recorded(source: String, s: &capture::Session<'_>, matching: Matching) -> Recorded {
    let mut entries: Vec<Entry> = Vec::new();
    // Exchange index -> entry index, for what arrived after an exchange.
    let mut entry_of: Vec<Option<usize>> = Vec::new();
    let mut deep_requests = Vec::new();
    for (i, x) in s.exchanges.iter().enumerate() {
        let request = parse_raw(&x.request);
        if !is_request(&request) {
            if too_deep(x.request.text()) {
                deep_requests.push(i);
            }
            entry_of.push(entries.len().checked_sub(1));
            continue;
        }
        entry_of.push(Some(entries.len()));
        entries.push(Entry {
            index: i,
            key: key(&request, matching),
            response: x.response.as_ref().map(|r| r.text().to_string()),
            steps: steps_of(x),
            after: Vec::new(),
            request,
        });
    }
    let after_of = |after: Option<usize>| after.and_then(|a| entry_of.get(a).copied().flatten());
    for u in &s.unmatched {
        let ask = u.response.is_some() && is_request(&parse_raw(&u.message));
        let step = step_of(&u.message, ask);
        if let Some(e) = after_of(u.after_exchange) {
            entries[e].after.push(step);
        }
    }
    for r in s.raw.iter().filter(|r| r.from == capture::Side::Server) {
        if let Some(e) = after_of(r.after_exchange) {
            entries[e].after.push(Step::Raw(r.text.to_string()));
        }
    }
    Recorded {
        source,
        deep_requests,
        entries,
        server_capabilities: s
            .server_capabilities
            .and_then(|c| serde_json::from_str(c.get()).ok()),
        protocol_version: s.protocol_version.as_deref().map(str::to_string),
        label: s.server_label.as_deref().map(str::to_string),
    }
}

/// What happened while an exchange was open, in the order it happened: by
/// time where every step has one, else non-JSON lines, notifications, then
/// server requests.
fn steps_of(x: &capture::Exchange<'_>) -> Vec<Step> {
    let mut timed: Vec<(Option<&str>, Step)> = Vec::new();
    for r in x
        .raw_lines()
        .iter()
        .filter(|r| r.from == capture::Side::Server)
    {
        timed.push((r.time, Step::Raw(r.text.to_string())));
    }
    let times = x.more.as_ref().map_or(&[][..], |m| &m.notification_times);
    for (i, n) in x.notifications().iter().enumerate() {
        timed.push((times.get(i).copied(), step_of(n, false)));
    }
    for r in x.server_requests() {
        timed.push((r.request_time, step_of(&r.request, true)));
    }
    if timed.iter().all(|(t, _)| t.is_some()) {
        // RFC 3339 instants, checked when the capture was parsed.
        timed.sort_by_key(|(t, _)| t.and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok()));
    }
    timed.into_iter().map(|(_, s)| s).collect()
}

/// The request's `_meta.progressToken`, if any.
fn progress_token(request: &Value) -> Option<&Value> {
    request.get("params")?.get("_meta")?.get("progressToken")
}

/// Strings with every temporary fixture copy replaced by `to`.
fn map_fixture(v: &Value, to: &str) -> Value {
    map_strings(v, &|s| crate::temp_copy::replace(s, to).into_owned())
}

/// `v` with `f` applied to every string.
fn map_strings(v: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match v {
        Value::String(s) => Value::String(f(s)),
        Value::Array(a) => Value::Array(a.iter().map(|x| map_strings(x, f)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), map_strings(x, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The first temporary fixture copy a value names.
fn fixture_in(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => crate::temp_copy::find(s).map(str::to_string),
        Value::Array(a) => a.iter().find_map(fixture_in),
        Value::Object(o) => o.values().find_map(fixture_in),
        _ => None,
    }
}

fn is_id_name(k: &str) -> bool {
    k == "id" || k.ends_with("Id") || k.ends_with("_id")
}

fn without_ids(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(without_ids).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !is_id_name(k))
                .map(|(k, x)| (k.clone(), without_ids(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The parts of a request that matching compares, as a JSON object.
fn normalized(request: &Value, matching: Matching) -> Value {
    let method = request.get("method").cloned().unwrap_or(Value::Null);
    let mut params = request
        .get("params")
        .map(|p| map_fixture(p, FIXTURE_PLACEHOLDER))
        .unwrap_or(Value::Null);
    if let Some(p) = params.as_object_mut() {
        match matching {
            Matching::Exact => {
                if let Some(Value::Object(meta)) = p.get_mut("_meta") {
                    meta.remove("progressToken");
                    if meta.is_empty() {
                        p.remove("_meta");
                    }
                }
            }
            Matching::IgnoreIds => {
                p.remove("_meta");
                params = without_ids(&params);
            }
            Matching::Name => {
                let kept: Map<String, Value> = ["name", "uri", "ref"]
                    .iter()
                    .filter_map(|k| p.get(*k).map(|v| ((*k).to_string(), v.clone())))
                    .collect();
                params = Value::Object(kept);
            }
        }
    }
    if params.as_object().is_some_and(Map::is_empty) {
        params = Value::Null;
    }
    json!({"method": method, "params": params})
}

fn key(request: &Value, matching: Matching) -> String {
    normalized(request, matching).to_string()
}

/// Up to `limit` JSON pointers where `a` and `b` differ.
fn differences(a: &Value, b: &Value, at: &str, out: &mut Vec<String>, limit: usize) {
    if out.len() >= limit || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) => differences(v, w, &p, out, limit),
                    _ => out.push(p),
                }
                if out.len() >= limit {
                    return;
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                differences(v, w, &format!("{at}/{i}"), out, limit);
            }
        }
        _ => out.push(if at.is_empty() { "/".into() } else { at.into() }),
    }
}

/// How many leaves differ between two values (a missing member counts its
/// leaves): the distance of [`closest`].
fn distance(a: &Value, b: &Value) -> usize {
    fn leaves(v: &Value) -> usize {
        match v {
            Value::Array(a) => a.iter().map(leaves).sum::<usize>().max(1),
            Value::Object(o) => o.values().map(leaves).sum::<usize>().max(1),
            _ => 1,
        }
    }
    match (a, b) {
        _ if a == b => 0,
        (Value::Object(x), Value::Object(y)) => {
            let mut d = 0;
            for (k, v) in x {
                d += y.get(k).map_or_else(|| leaves(v), |w| distance(v, w));
            }
            for (k, w) in y {
                if !x.contains_key(k) {
                    d += leaves(w);
                }
            }
            d
        }
        (Value::Array(x), Value::Array(y)) => {
            let common: usize = x.iter().zip(y).map(|(v, w)| distance(v, w)).sum();
            let extra: usize = x
                .iter()
                .skip(y.len())
                .chain(y.iter().skip(x.len()))
                .map(leaves)
                .sum();
            common + extra
        }
        _ => leaves(a).max(leaves(b)),
    }
}

/// A request cut to one readable line.
fn short(v: &Value) -> String {
    let text = v.to_string();
    crate::value::truncate(&text, 300)
}

/// The recorded exchange that answers a client's request.
struct Answer<'l> {
    entry: &'l Entry,
}

/// One client session against a [`Library`].
#[derive(Debug)]
pub struct Replayer<'l> {
    lib: &'l Library,
    /// Per session: still a candidate.
    candidates: Vec<bool>,
    /// Per key, per session that has it: which of its entries of that key
    /// have answered.
    used: Vec<Vec<Vec<bool>>>,
    /// The fixture copy the client names, once it has named one.
    fixture: Option<String>,
    next_ask: u64,
}

impl<'l> Replayer<'l> {
    pub fn new(lib: &'l Library) -> Replayer<'l> {
        Replayer {
            lib,
            candidates: vec![true; lib.sessions.len()],
            used: lib
                .keyed
                .iter()
                .map(|k| k.iter().map(|(_, es)| vec![false; es.len()]).collect())
                .collect(),
            fixture: None,
            next_ask: 0,
        }
    }

    /// The reply to one line the client sent (a JSON-RPC message).
    pub fn receive_text(&mut self, text: &str) -> Reply {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => self.receive(&v),
            Err(e) if e.to_string().contains("recursion limit") => {
                // Answered, not dropped: the client waits for its id.
                let id = top_level_id(text).unwrap_or(Value::Null);
                let why = "a request nested deeper than the 128 levels replay reads";
                Reply {
                    outs: vec![Out::Send(error_response(
                        &id,
                        -32600,
                        &format!("Invalid Request: {why}"),
                        None,
                    ))],
                    unmatched: Some(why.to_string()),
                }
            }
            Err(e) => Reply {
                outs: vec![Out::Send(error_response(
                    &Value::Null,
                    -32700,
                    &format!("Parse error: {e}"),
                    None,
                ))],
                unmatched: Some(format!("a message that is not JSON: {e}")),
            },
        }
    }

    /// The reply to one message the client sent.
    pub fn receive(&mut self, message: &Value) -> Reply {
        if !message.is_object() {
            return Reply {
                outs: vec![Out::Send(error_response(
                    &Value::Null,
                    -32600,
                    "Invalid Request: a JSON-RPC message is an object (batches are not supported)",
                    None,
                ))],
                unmatched: Some(format!("not a JSON-RPC object: {}", short(message))),
            };
        }
        if !is_request(message) {
            // A notification, or the client's answer to a server request.
            return Reply::default();
        }
        if let Some(root) = fixture_in(message.get("params").unwrap_or(&Value::Null)) {
            self.fixture = Some(root);
        }
        let key = key(message, self.lib.matching);
        if let Some(a) = self.find(&key, message) {
            return Reply {
                outs: self.play(a, message),
                unmatched: None,
            };
        }
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        match method {
            "initialize" => Reply {
                outs: self.initialize(message),
                unmatched: None,
            },
            "ping" => Reply {
                outs: vec![Out::Send(json!({"jsonrpc": "2.0", "id": id, "result": {}}))],
                unmatched: None,
            },
            _ => self.no_match(message, &id),
        }
    }

    /// The recorded exchange that answers `key`, as the module doc says;
    /// narrows the candidates and marks it used. With `name` matching, each
    /// session offers its unused entry of the key whose request is closest
    /// to `request` (the first of equals), and the closest of those answers
    /// (the first session of equals); in the other modes every entry of a
    /// key is equal, so this is each session's next one.
    fn find(&mut self, key: &str, request: &Value) -> Option<Answer<'l>> {
        let lib = self.lib;
        let k = *lib.index.get(key)?;
        let groups = &lib.keyed[k];
        let used = &self.used[k];
        let wanted = (lib.matching == Matching::Name).then(|| normalized(request, Matching::Exact));
        let far = |s: usize, e: usize| {
            wanted.as_ref().map_or(0, |w| {
                distance(
                    &normalized(&lib.sessions[s].entries[e].request, Matching::Exact),
                    w,
                )
            })
        };
        // (slot, session, entry, distance): per session its closest unused
        // entry of this key; when no session has one, its closest entry
        // again (the last of equals, so an exact repeat gets the last answer).
        let pick = |pool: &dyn Fn(usize) -> bool| {
            let mut fresh = Vec::new();
            let mut repeat = Vec::new();
            for (slot, (s, entries)) in groups.iter().enumerate() {
                if !pool(*s) {
                    continue;
                }
                let scored = entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (i, *e, far(*s, *e)));
                let unused = scored
                    .clone()
                    .filter(|(i, _, _)| !used[slot][*i])
                    .min_by_key(|(_, _, d)| *d);
                match unused {
                    Some((_, e, d)) => fresh.push((slot, *s, e, d)),
                    None => repeat.extend(
                        scored
                            .rev()
                            .min_by_key(|(_, _, d)| *d)
                            .map(|(_, e, d)| (slot, *s, e, d)),
                    ),
                }
            }
            if fresh.is_empty() { repeat } else { fresh }
        };
        let mut chosen = pick(&|s| self.candidates[s]);
        if chosen.is_empty() {
            chosen = pick(&|_| true);
        }
        let &(_, first_s, first_e, _) = chosen.iter().min_by_key(|(_, _, _, d)| *d)?;
        self.candidates = vec![false; lib.sessions.len()];
        for &(slot, s, e, _) in &chosen {
            self.candidates[s] = true;
            if let Some(i) = groups[slot].1.iter().position(|x| *x == e) {
                self.used[k][slot][i] = true;
            }
        }
        Some(Answer {
            entry: &lib.sessions[first_s].entries[first_e],
        })
    }

    /// The messages of a recorded exchange, rewritten for the live request:
    /// its id, its progress token, its fixture copy.
    fn play(&mut self, a: Answer<'l>, request: &Value) -> Vec<Out> {
        let live_token = progress_token(request).cloned();
        let recorded_token = progress_token(&a.entry.request).cloned();
        let recorded_fixture = fixture_in(&a.entry.request);
        let mut outs = Vec::new();
        for step in &a.entry.steps {
            self.push_step(
                &mut outs,
                step,
                recorded_token.as_ref(),
                live_token.as_ref(),
                recorded_fixture.as_deref(),
            );
        }
        if let Some(text) = &a.entry.response {
            let id = request.get("id").cloned().unwrap_or(Value::Null);
            match as_values(text) {
                Ok(r) => {
                    let mut r = self.localize(&r, recorded_fixture.as_deref());
                    if let Some(o) = r.as_object_mut() {
                        o.insert("id".into(), id);
                    }
                    outs.push(Out::Send(r));
                }
                // Nested deeper than values are read: as written, with
                // the live id.
                Err(_) => outs.push(Out::Raw(with_id(text, Some(&id), self.fixture.as_deref()))),
            }
        }
        for step in &a.entry.after {
            self.push_step(
                &mut outs,
                step,
                recorded_token.as_ref(),
                live_token.as_ref(),
                recorded_fixture.as_deref(),
            );
        }
        outs
    }

    fn push_step(
        &mut self,
        outs: &mut Vec<Out>,
        step: &Step,
        recorded: Option<&Value>,
        live: Option<&Value>,
        fixture: Option<&str>,
    ) {
        match step {
            Step::Raw(line) => outs.push(Out::Raw(line.clone())),
            Step::Send(text) => {
                let Ok(m) = as_values(text) else {
                    outs.push(Out::Raw(with_id(text, None, self.fixture.as_deref())));
                    return;
                };
                let is_progress =
                    m.get("method").and_then(Value::as_str) == Some("notifications/progress");
                let names_recorded =
                    recorded.is_some() && m.pointer("/params/progressToken") == recorded;
                if is_progress && names_recorded && live.is_none() {
                    // The live request asked for no progress.
                    return;
                }
                let mut m = self.localize(&m, fixture);
                retoken(&mut m, "/params/progressToken", recorded, live);
                outs.push(Out::Send(m));
            }
            Step::Ask(text) => {
                let Ok(m) = as_values(text) else {
                    outs.push(Out::Raw(with_id(text, None, self.fixture.as_deref())));
                    return;
                };
                let mut m = self.localize(&m, fixture);
                retoken(&mut m, "/params/_meta/progressToken", recorded, live);
                let id = json!(self.next_ask);
                self.next_ask += 1;
                if let Some(o) = m.as_object_mut() {
                    o.insert("id".into(), id.clone());
                }
                outs.push(Out::Ask { id, request: m });
            }
        }
    }

    /// `v` with the recorded fixture copies replaced by the client's: a
    /// known test runner's copy anywhere, another temporary directory only
    /// where it is the one the recorded request named.
    fn localize(&self, v: &Value, recorded_fixture: Option<&str>) -> Value {
        match &self.fixture {
            Some(live) => {
                let also: Vec<&str> = recorded_fixture.into_iter().collect();
                map_strings(v, &|s| {
                    crate::temp_copy::replace_known(s, live, &also).into_owned()
                })
            }
            None => v.clone(),
        }
    }

    /// The answer to an `initialize` nothing recorded equals: the closest
    /// recorded one's, else one made from the capture's capabilities.
    fn initialize(&mut self, request: &Value) -> Vec<Out> {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let wanted = normalized(request, self.lib.matching);
        let candidates = (0..self.lib.sessions.len()).filter(|s| self.candidates[*s]);
        let recorded = candidates
            .chain(0..self.lib.sessions.len())
            .flat_map(|s| self.lib.sessions[s].entries.iter())
            .filter(|e| {
                e.request.get("method").and_then(Value::as_str) == Some("initialize")
                    && e.response.is_some()
            })
            .min_by_key(|e| distance(&normalized(&e.request, self.lib.matching), &wanted));
        if let Some(entry) = recorded {
            return self.play(Answer { entry }, request);
        }
        let first = self.candidates.iter().position(|c| *c).unwrap_or(0);
        let s = self.lib.sessions.get(first);
        let version = s
            .and_then(|s| s.protocol_version.clone())
            .or_else(|| {
                request
                    .pointer("/params/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "2025-11-25".into());
        let result = json!({
            "protocolVersion": version,
            "capabilities": s.and_then(|s| s.server_capabilities.clone()).unwrap_or_else(|| json!({})),
            "serverInfo": {
                "name": s.and_then(|s| s.label.clone()).unwrap_or_else(|| "mcpcheck replay".into()),
                "version": crate::VERSION,
            },
        });
        vec![Out::Send(
            json!({"jsonrpc": "2.0", "id": id, "result": result}),
        )]
    }

    /// The error for a request nothing recorded matches, naming the closest.
    fn no_match(&self, request: &Value, id: &Value) -> Reply {
        let matching = self.lib.matching;
        let wanted = normalized(request, matching);
        let method = request.get("method").and_then(Value::as_str).unwrap_or("");
        let closest = self
            .lib
            .sessions
            .iter()
            .flat_map(|s| s.entries.iter().map(move |e| (s, e)))
            .min_by_key(|(_, e)| {
                let same = e.request.get("method").and_then(Value::as_str) == Some(method);
                (!same, distance(&normalized(&e.request, matching), &wanted))
            });
        let Some((session, entry)) = closest else {
            let message = "no recorded request to answer from".to_string();
            return Reply {
                outs: vec![Out::Send(error_response(id, -32601, &message, None))],
                unmatched: Some(message),
            };
        };
        let same_method = entry.request.get("method") == request.get("method");
        let mut diffs = Vec::new();
        differences(
            &normalized(&entry.request, matching),
            &wanted,
            "",
            &mut diffs,
            3,
        );
        let mut shown = entry.request.clone();
        if let Some(o) = shown.as_object_mut() {
            o.remove("jsonrpc");
            o.remove("id");
        }
        let mut asked = request.clone();
        if let Some(o) = asked.as_object_mut() {
            o.remove("jsonrpc");
            o.remove("id");
        }
        let message = format!(
            "no recorded request matches {} (matching: {}); the closest recorded request is {} in {}, exchange {}, which differs at {}",
            short(&asked),
            matching.as_str(),
            short(&shown),
            session.source,
            entry.index,
            diffs.join(", ")
        );
        let data = json!({
            "matching": matching.as_str(),
            "closest": {
                "request": entry.request,
                "capture": session.source,
                "exchange": entry.index,
                "differs_at": diffs,
            },
        });
        let code = if same_method { -32602 } else { -32601 };
        Reply {
            outs: vec![Out::Send(error_response(id, code, &message, Some(data)))],
            unmatched: Some(message),
        }
    }
}

/// Replace a recorded progress token at `pointer` by the live one (or
/// remove it when the live request has none).
fn retoken(m: &mut Value, pointer: &str, recorded: Option<&Value>, live: Option<&Value>) {
    let Some(recorded) = recorded else { return };
    if m.pointer(pointer) != Some(recorded) {
        return;
    }
    match live {
        Some(live) => {
            if let Some(slot) = m.pointer_mut(pointer) {
                *slot = live.clone();
            }
        }
        None => {
            let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
            if let Some(Value::Object(o)) = m.pointer_mut(parent) {
                o.remove(last);
            }
        }
    }
}

fn error_response(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let (Some(data), Some(o)) = (data, error.as_object_mut()) {
        o.insert("data".into(), data);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn init(id: u64, client: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": client, "version": "1"}}})
    }

    fn call(id: u64, tool: &str, args: Value, token: Option<Value>) -> Value {
        let mut params = json!({"name": tool, "arguments": args});
        if let Some(t) = token {
            params["_meta"] = json!({"progressToken": t});
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    }

    fn text_result(id: u64, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}], "isError": false}})
    }

    /// A session as `mcpcheck run --capture` writes one: the handshake, then
    /// `exchanges` of (request, response, notifications, server requests).
    fn session(label: &str, exchanges: Vec<Value>) -> String {
        let mut all = vec![
            json!({"request": init(0, "mcpcheck"), "response": {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": label, "version": "1"}}}}),
            json!({"request": {"jsonrpc": "2.0", "method": "notifications/initialized"}}),
        ];
        all.extend(exchanges);
        json!({"server_label": label, "transport": "stdio", "exchanges": all}).to_string()
    }

    fn library(files: &[(&str, String)], matching: Matching) -> Library {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(n, t)| ((*n).to_string(), t.clone()))
            .collect();
        Library::load(&files, matching).expect("a library")
    }

    fn sent(reply: &Reply) -> Vec<Value> {
        reply
            .outs
            .iter()
            .filter_map(|o| match o {
                Out::Send(v) => Some(v.clone()),
                _ => None,
            })
            .collect()
    }

    fn echo_session() -> String {
        session(
            "echo",
            vec![
                json!({"request": call(1, "echo", json!({"message": "hi"}), Some(json!(0))),
                       "response": text_result(1, "hi")}),
                json!({"request": call(2, "progress", json!({"steps": 2}), Some(json!(1))),
                       "notifications": [
                           {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1, "total": 2}},
                           {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 2, "total": 2}}],
                       "response": text_result(2, "completed 2 steps")}),
            ],
        )
    }

    #[test]
    fn a_recorded_request_gets_its_answer_with_the_live_id_and_token() {
        let lib = library(&[("echo.json", echo_session())], Matching::Exact);
        let mut r = Replayer::new(&lib);
        let hello = r.receive(&init(7, "mcpcheck"));
        assert_eq!(sent(&hello)[0]["id"], 7);
        assert_eq!(sent(&hello)[0]["result"]["serverInfo"]["name"], "echo");
        assert_eq!(
            r.receive(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Reply::default()
        );
        // Another id and another progress token: neither matters.
        let echo = r.receive(&call(
            41,
            "echo",
            json!({"message": "hi"}),
            Some(json!("t")),
        ));
        assert_eq!(sent(&echo), vec![text_result(41, "hi")]);
        let progress = r.receive(&call(42, "progress", json!({"steps": 2}), Some(json!("p"))));
        let out = sent(&progress);
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0]["params"]["progressToken"], "p");
        assert_eq!(out[1]["params"]["progress"], 2);
        assert_eq!(out[2], text_result(42, "completed 2 steps"));
        // Without a token, no progress is sent.
        let quiet = r.receive(&call(43, "progress", json!({"steps": 2}), None));
        assert_eq!(sent(&quiet), vec![text_result(43, "completed 2 steps")]);
    }

    #[test]
    fn an_unknown_request_gets_an_error_naming_the_closest() {
        let lib = library(&[("echo.json", echo_session())], Matching::Exact);
        let mut r = Replayer::new(&lib);
        let reply = r.receive(&call(5, "echo", json!({"message": "bye"}), None));
        let out = sent(&reply);
        assert_eq!(out[0]["id"], 5);
        assert_eq!(out[0]["error"]["code"], -32602);
        let message = out[0]["error"]["message"].as_str().unwrap();
        assert!(message.contains(r#"the closest recorded request is {"method":"tools/call","params":{"_meta":{"progressToken":0},"arguments":{"message":"hi"},"name":"echo"}} in echo.json, exchange 2, which differs at /params/arguments/message"#), "{message}");
        assert_eq!(out[0]["error"]["data"]["closest"]["exchange"], 2);
        assert_eq!(reply.unmatched.as_deref(), Some(message));

        let reply = r.receive(&json!({"jsonrpc": "2.0", "id": 6, "method": "prompts/list"}));
        assert_eq!(
            sent(&reply)[0]["error"]["code"],
            -32601,
            "no recording has the method"
        );
        // ping is always answered.
        let reply = r.receive(&json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
        assert_eq!(
            sent(&reply),
            vec![json!({"jsonrpc": "2.0", "id": 8, "result": {}})]
        );
        // Bytes that are not JSON, and a batch.
        assert_eq!(sent(&r.receive_text("{oops"))[0]["error"]["code"], -32700);
        assert_eq!(sent(&r.receive(&json!([1])))[0]["error"]["code"], -32600);
    }

    #[test]
    fn recorded_answers_are_used_in_order_then_the_last_one_repeats() {
        let counter = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": "mcpcheck://calls"}});
        let answer = |id: u64, n: &str| json!({"jsonrpc": "2.0", "id": id, "result": {"contents": [{"uri": "mcpcheck://calls", "text": n}]}});
        let s = session(
            "calls",
            vec![
                json!({"request": counter(1), "response": answer(1, "0")}),
                json!({"request": call(2, "echo", json!({"message": "x"}), None), "response": text_result(2, "x")}),
                json!({"request": counter(3), "response": answer(3, "1")}),
            ],
        );
        let lib = library(&[("calls.json", s)], Matching::Exact);
        let mut r = Replayer::new(&lib);
        let texts: Vec<Value> = (10..13)
            .map(|id| sent(&r.receive(&counter(id)))[0]["result"]["contents"][0]["text"].clone())
            .collect();
        assert_eq!(texts, [json!("0"), json!("1"), json!("1")]);
    }

    #[test]
    fn a_directory_of_captures_serves_each_client_from_its_own() {
        let a = session(
            "a",
            vec![
                json!({"request": call(1, "echo", json!({"message": "a"}), None), "response": text_result(1, "from a")}),
                json!({"request": call(2, "add", json!({"a": 1, "b": 1}), None), "response": text_result(2, "2 in a")}),
            ],
        );
        let b = session(
            "b",
            vec![
                json!({"request": call(1, "echo", json!({"message": "b"}), None), "response": text_result(1, "from b")}),
                json!({"request": call(2, "add", json!({"a": 1, "b": 1}), None), "response": text_result(2, "2 in b")}),
            ],
        );
        let lib = library(&[("a.json", a), ("b.json", b)], Matching::Exact);
        assert_eq!(lib.size(), (2, 6));
        let mut r = Replayer::new(&lib);
        r.receive(&init(0, "mcpcheck"));
        assert_eq!(
            sent(&r.receive(&call(1, "echo", json!({"message": "b"}), None)))[0]["result"]["content"]
                [0]["text"],
            "from b"
        );
        assert_eq!(
            sent(&r.receive(&call(2, "add", json!({"a": 1, "b": 1}), None)))[0]["result"]["content"]
                [0]["text"],
            "2 in b",
            "b's session answers"
        );
    }

    #[test]
    fn matching_modes() {
        let s = session(
            "m",
            vec![
                json!({"request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lookup", "arguments": {"requestId": "r-1", "q": "x"}, "_meta": {"trace": "a"}}},
                                          "response": text_result(1, "found")}),
            ],
        );
        let ask = |args: Value, meta: Value| json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "lookup", "arguments": args, "_meta": meta}});
        let other_id = ask(json!({"requestId": "r-2", "q": "x"}), json!({"trace": "b"}));
        let other_q = ask(json!({"requestId": "r-2", "q": "y"}), json!({}));
        for (mode, id_ok, q_ok) in [
            (Matching::Exact, false, false),
            (Matching::IgnoreIds, true, false),
            (Matching::Name, true, true),
        ] {
            let lib = library(&[("m.json", s.clone())], mode);
            let mut r = Replayer::new(&lib);
            assert_eq!(
                sent(&r.receive(&other_id))[0].get("result").is_some(),
                id_ok,
                "{mode:?}"
            );
            let mut r = Replayer::new(&lib);
            assert_eq!(
                sent(&r.receive(&other_q))[0].get("result").is_some(),
                q_ok,
                "{mode:?}"
            );
            assert_eq!(Matching::parse(mode.as_str()), Some(mode));
        }
    }

    #[test]
    fn initialize_is_answered_from_the_capture_whoever_asks() {
        let lib = library(&[("echo.json", echo_session())], Matching::Exact);
        let mut r = Replayer::new(&lib);
        let out = sent(&r.receive(&init(3, "inspector")));
        assert_eq!(out[0]["id"], 3);
        assert_eq!(out[0]["result"]["serverInfo"]["name"], "echo");
        // A capture without a handshake: made from its capabilities.
        let bare = json!({"server_label": "bare", "protocol_version": "2025-06-18", "server_capabilities": {"prompts": {}},
            "exchanges": [{"request": call(1, "echo", json!({}), None), "response": text_result(1, "")}]}).to_string();
        let lib = library(&[("bare.json", bare)], Matching::Exact);
        let out = sent(&Replayer::new(&lib).receive(&init(1, "x")));
        assert_eq!(out[0]["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(out[0]["result"]["capabilities"], json!({"prompts": {}}));
        assert_eq!(out[0]["result"]["serverInfo"]["name"], "bare");
    }

    #[test]
    fn fixture_copies_never_matter_and_answers_name_the_live_one() {
        let rec = "/tmp/mcpcheck-fixture-AbC123/data";
        let s = session(
            "fs",
            vec![
                json!({"request": call(1, "read", json!({"path": format!("{rec}/a.txt")}), None),
                                           "response": text_result(1, &format!("read {rec}/a.txt"))}),
            ],
        );
        let lib = library(&[("fs.json", s)], Matching::Exact);
        let mut r = Replayer::new(&lib);
        let live = "/var/tmp/x/mcpcheck-fixture-zz99Yy/data";
        let out = sent(&r.receive(&call(
            4,
            "read",
            json!({"path": format!("{live}/a.txt")}),
            None,
        )));
        assert_eq!(
            out[0]["result"]["content"][0]["text"],
            format!("read {live}/a.txt")
        );
    }

    #[test]
    fn every_runners_temporary_copies_match_and_answers_name_the_live_one() {
        for (rec, live) in [
            (
                "/tmp/mcp-assert-fixture-2817361/data",
                "/tmp/mcp-assert-fixture-99/data",
            ),
            ("/tmp/tmpab3_x9yz/data", "/tmp/tmpqq7_k2ww/data"),
            (
                "/tmp/mcp-assert-fixture-5/data",
                "/tmp/mcpcheck-fixture-Zz9Yy8/data",
            ),
        ] {
            let s = session(
                "fs",
                vec![
                    json!({"request": call(1, "read", json!({"path": format!("{rec}/a.txt")}), None),
                            "response": text_result(1, &format!("read {rec}/a.txt"))}),
                ],
            );
            let lib = library(&[("fs.json", s)], Matching::Exact);
            let mut r = Replayer::new(&lib);
            let out = sent(&r.receive(&call(
                4,
                "read",
                json!({"path": format!("{live}/a.txt")}),
                None,
            )));
            assert_eq!(
                out[0]["result"]["content"][0]["text"],
                format!("read {live}/a.txt"),
                "{rec} -> {live}"
            );
        }
    }

    #[test]
    fn name_matching_answers_from_the_closest_arguments() {
        let read = |id: u64, path: &str| call(id, "read_file", json!({"path": path}), None);
        let s = session(
            "fs",
            vec![
                json!({"request": read(1, "/data/a.txt"), "response": text_result(1, "contents of a")}),
                json!({"request": read(2, "/data/../outside.txt"), "response": text_result(2, "Access denied: outside")}),
                json!({"request": read(3, "/data/b.txt"), "response": text_result(3, "contents of b")}),
            ],
        );
        let lib = library(&[("fs.json", s)], Matching::Name);
        let text = |r: &mut Replayer<'_>, path: &str| {
            sent(&r.receive(&read(9, path)))[0]["result"]["content"][0]["text"].clone()
        };
        let mut r = Replayer::new(&lib);
        assert_eq!(
            text(&mut r, "/data/../outside.txt"),
            "Access denied: outside"
        );
        assert_eq!(text(&mut r, "/data/b.txt"), "contents of b");
        // Arguments never recorded: the closest unused, then the order.
        assert_eq!(text(&mut r, "/data/c.txt"), "contents of a");
        // Everything used: the closest again.
        assert_eq!(
            text(&mut r, "/data/../outside.txt"),
            "Access denied: outside"
        );
        // Equal arguments answer in recorded order.
        let twice = session(
            "calls",
            vec![
                json!({"request": read(1, "/n"), "response": text_result(1, "first")}),
                json!({"request": read(2, "/n"), "response": text_result(2, "second")}),
            ],
        );
        let lib = library(&[("calls.json", twice)], Matching::Name);
        let mut r = Replayer::new(&lib);
        let texts: Vec<Value> = (0..3).map(|_| text(&mut r, "/n")).collect();
        assert_eq!(texts, [json!("first"), json!("second"), json!("second")]);
    }

    #[test]
    fn server_requests_are_asked_in_order_with_fresh_ids() {
        let s = session(
            "sampling",
            vec![
                json!({"request": call(1, "sample", json!({}), Some(json!(0))),
            "server_requests": [{"request": {"jsonrpc": "2.0", "id": 0, "method": "sampling/createMessage", "params": {"_meta": {"progressToken": 0}, "messages": []}},
                                 "response": {"jsonrpc": "2.0", "id": 0, "result": {}}}],
            "response": text_result(1, "Paris")}),
            ],
        );
        let lib = library(&[("s.json", s)], Matching::Exact);
        let mut r = Replayer::new(&lib);
        let reply = r.receive(&call(9, "sample", json!({}), Some(json!(5))));
        match &reply.outs[..] {
            [Out::Ask { id, request }, Out::Send(response)] => {
                assert_eq!(id, &json!(0));
                assert_eq!(request["id"], 0);
                assert_eq!(request["params"]["_meta"]["progressToken"], 5);
                assert_eq!(response["id"], 9);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn what_arrived_after_a_response_follows_it() {
        let mut doc: Value = serde_json::from_str(&session(
            "late",
            vec![
                json!({"request": call(1, "add_tool", json!({"name": "x"}), None),
                        "response": text_result(1, "added tool x"),
                        "raw": [{"text": "debug: adding", "from": "server"}]}),
            ],
        ))
        .unwrap();
        doc["unmatched"] = json!([
            {"message": {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, "after_exchange": 2},
            {"message": {"jsonrpc": "2.0", "id": 1000001, "result": {}}, "after_exchange": 2}
        ]);
        doc["raw"] = json!([{"text": "late line", "from": "server", "after_exchange": 2}]);
        let lib = library(&[("late.json", doc.to_string())], Matching::Exact);
        let mut r = Replayer::new(&lib);
        let reply = r.receive(&call(5, "add_tool", json!({"name": "x"}), None));
        assert_eq!(
            reply.outs,
            vec![
                Out::Raw("debug: adding".into()),
                Out::Send(text_result(5, "added tool x")),
                Out::Send(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
                Out::Send(json!({"jsonrpc": "2.0", "id": 1000001, "result": {}})),
                Out::Raw("late line".into()),
            ],
            "a recorded stray answer keeps its recorded id"
        );
    }

    #[test]
    fn unusable_captures_are_named_with_what_is_wrong() {
        let files = vec![
            ("good.json".to_string(), echo_session()),
            ("package.json".to_string(), r#"{"name": "x"}"#.to_string()),
            ("broken.json".to_string(), "{".to_string()),
        ];
        let errors = Library::load(&files, Matching::Exact).unwrap_err();
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].source, "package.json");
        assert!(
            errors[0].to_string().starts_with("package.json: "),
            "{}",
            errors[0]
        );
        assert!(errors[0].to_string().contains("exchanges"), "{}", errors[0]);
        assert_eq!(errors[1].source, "broken.json");
        let empty = vec![("n.json".to_string(), r#"{"exchanges": []}"#.to_string())];
        let errors = Library::load(&empty, Matching::Exact).unwrap_err();
        assert!(
            errors[0].to_string().contains("no recorded request"),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn deep_messages_are_played_as_text_answered_or_named_never_dropped() {
        let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        // A recorded result nested 300 levels: played as written, with the
        // live id, not as `null`.
        let call =
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "deep"}});
        let response = format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{{"structuredContent":{}}}}}"#,
            deep(300)
        );
        let text = session("s", vec![json!({"request": call, "response": "RESPONSE"})])
            .replace("\"RESPONSE\"", &response);
        let lib = library(&[("deep.json", text)], Matching::IgnoreIds);
        let mut r = Replayer::new(&lib);
        let live =
            json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "deep"}});
        let reply = r.receive(&live);
        let [Out::Raw(played)] = reply.outs.as_slice() else {
            panic!("{:?}", reply.outs);
        };
        assert!(played.contains(r#""id":77"#), "{played}");
        assert!(played.contains(&deep(300)), "the result as recorded");
        assert!(!played.contains(r#""id":5"#));

        // A live request nested 300 levels: an error with its id.
        let asked = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"x":{}}}}}"#,
            deep(300)
        );
        let reply = r.receive_text(&asked);
        let answer = sent(&reply);
        assert_eq!(answer[0]["id"], 9, "{answer:?}");
        assert_eq!(answer[0]["error"]["code"], -32600);
        assert!(reply.unmatched.is_some());

        // A recorded request nested 300 levels cannot be matched: loading
        // says where it is.
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"x":{}}}}}"#,
            deep(300)
        );
        let text = session("s", vec![json!({"request": "REQUEST", "response": {"jsonrpc": "2.0", "id": 6, "result": {}}})])
            .replace("\"REQUEST\"", &request);
        let files = vec![("deep-request.json".to_string(), text)];
        let e = Library::load(&files, Matching::Exact).expect_err("named");
        assert!(
            e[0].problems[0].contains("/exchanges/2/request: nested deeper than the 128 levels"),
            "{e:?}"
        );
    }
}
