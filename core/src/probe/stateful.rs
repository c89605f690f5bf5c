//! Stateful fuzzing: bugs that take more than one call to show. From the
//! listing alone, each tool gets a role (create, read, list, update,
//! delete, by the verb of its name and its annotations) and an entity (the
//! rest of its name: `create_note` and `get_note` are about `note`); a
//! consumer's key argument (`id`, `note_id`, `uri`, `name`, …) is linked to
//! what a producer gives: a field of its answer (`id` feeds `id` and
//! `*_id`, `uri` feeds `uri`; found in `structuredContent` or a JSON text,
//! at the top or one level down) or an argument it was given (a created
//! `name` feeds a lookup by `name`). [`infer`] gives the [`Model`].
//!
//! [`sequences`] turns the model into seeded sequences of calls, each built
//! around one oracle ([`Oracle`]): a read after a delete must fail, a list
//! after a create must show the item, a read after an update must show the
//! update, a list after a delete must not show the item, a repeated
//! read-only call must give the same answer, and a lookup of a key that
//! does not exist must be refused with a tool error (or `-32602`), not an
//! internal error or a crash. Extra calls (lists, reads, other creates) are
//! mixed in by the seed; [`shrink_sequence`] offers the same sequence with
//! one extra call fewer, so a failure is reported as its shortest form.
//! Sequences that write (any step with a tool that may write: by its
//! annotations, or by its role) are only made when writes are allowed.
//!
//! The caller drives each sequence on a fresh server with a
//! [`SequenceRun`]: [`SequenceRun::next_call`] gives the next call with its
//! arguments (keys filled from earlier answers), [`SequenceRun::record`]
//! takes the answer, and [`SequenceRun::verdict`] judges the oracle. Same
//! listing, same seed: the same sequences with the same arguments.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::classify::Status;
use super::rng::{Rng, fnv1a, mix};
use super::{WriteRisks, inputs};
use crate::findings::RuleInfo;

/// The most steps one sequence has (the oracle's and the extra ones).
pub const MAX_STEPS: usize = 8;

/// The most extra calls mixed into one sequence.
pub const MAX_EXTRA: usize = 3;

/// What a tool does to the entity it is about, by the verb of its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Create,
    Read,
    List,
    Update,
    Delete,
    Other,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Create => "create",
            Role::Read => "read",
            Role::List => "list",
            Role::Update => "update",
            Role::Delete => "delete",
            Role::Other => "other",
        }
    }
}

/// One tool as the stateful model sees it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolModel {
    pub name: String,
    pub role: Role,
    /// The rest of its name, singular, `_`-joined (`note`); empty when
    /// the name has nothing besides its verb.
    pub entity: String,
    /// Whether it may change the server's state (annotations, or a create,
    /// update or delete role).
    pub writes: bool,
    /// Its key argument (a consumer's), when it has one: `id`, `note_id`,
    /// `uri`, `name`, `key`, `path`, `slug`.
    pub key: Option<String>,
    /// Whether its input schema requires any argument.
    pub requires: bool,
    /// Whether its annotations say it is read-only.
    pub read_only: bool,
    #[serde(skip)]
    pub tool: Value,
}

/// Where a consumer's key comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "name")]
pub enum Source {
    /// A field of the producer's answer (by name, at the top of its
    /// structured or JSON answer or one level down).
    Output(String),
    /// An argument the producer was given.
    Input(String),
}

/// A producer → consumer link: `consumer.prop` takes `producer`'s `source`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    pub producer: String,
    pub source: Source,
    pub consumer: String,
    pub prop: String,
}

/// The tools and their links.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Model {
    pub tools: Vec<ToolModel>,
    pub links: Vec<Link>,
}

/// A word of a tool's name and the role it gives.
fn verb(word: &str) -> Option<Role> {
    Some(match word {
        "create" | "add" | "new" | "insert" | "register" | "make" | "post" | "save" | "store"
        | "upload" | "write" => Role::Create,
        "get" | "read" | "fetch" | "show" | "describe" | "view" | "load" | "retrieve"
        | "lookup" | "open" | "inspect" | "info" => Role::Read,
        "list" | "search" | "query" | "find" | "browse" | "enumerate" | "all" => Role::List,
        "update" | "edit" | "modify" | "set" | "patch" | "rename" | "change" | "replace"
        | "put" | "append" => Role::Update,
        "delete" | "remove" | "destroy" | "drop" | "erase" | "unregister" | "purge" | "trash"
        | "del" | "rm" => Role::Delete,
        _ => return None,
    })
}

/// A name's words, lower case: split at `_`, `-`, `.`, `/`, spaces and
/// lower-to-upper case changes.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | '/' | ' ' | ':') {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `notes` → `note`, `entities` → `entity`, `boxes` → `box`.
fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies")
        && stem.len() > 1
    {
        return format!("{stem}y");
    }
    for end in ["sses", "shes", "ches", "xes"] {
        if word.ends_with(end) {
            return word[..word.len() - 2].to_string();
        }
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..word.len() - 1].to_string();
    }
    word.to_string()
}

/// The role and entity of a tool name.
fn role_of(name: &str) -> (Role, String) {
    let ws = words(name);
    let Some(at) = ws.iter().position(|w| verb(w).is_some()) else {
        return (
            Role::Other,
            ws.iter().map(|w| singular(w)).collect::<Vec<_>>().join("_"),
        );
    };
    let mut role = verb(&ws[at]).unwrap_or(Role::Other);
    let rest: Vec<&String> = ws
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            *i != at
                && !matches!(
                    w.as_str(),
                    "by" | "a" | "an" | "the" | "one" | "item" | "items" | "id"
                )
        })
        .map(|(_, w)| w)
        .collect();
    // `get_all_notes`, `get_notes`: a list (a plural after the verb;
    // `notes.get` names its namespace first).
    let plural_after = ws
        .iter()
        .skip(at + 1)
        .last()
        .is_some_and(|w| singular(w) != *w && w.len() > 3);
    if role == Role::Read && (ws.iter().any(|w| w == "all") || plural_after) {
        role = Role::List;
    }
    let entity = rest
        .iter()
        .map(|w| singular(w))
        .collect::<Vec<_>>()
        .join("_");
    (role, entity)
}

/// Whether a property name is a key: `(id, 3)`, `(uri, 2)`, `(name, 1)`,
/// with the rank used to choose between several.
fn key_rank(prop: &str) -> Option<u8> {
    let ws = words(prop);
    let last = ws.last()?.as_str();
    match last {
        "id" | "uuid" | "guid" => Some(4),
        "uri" | "url" => Some(3),
        "key" | "slug" | "handle" => Some(2),
        "name" | "title" | "path" | "filename" => Some(1),
        _ => None,
    }
}

fn object_props(schema: &Value) -> Vec<(&str, &Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default()
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn scalar_type(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
    .filter(|t| matches!(*t, "string" | "integer" | "number"))
}

/// The key argument of a consumer: the best-ranked scalar property,
/// required ones first.
fn key_of(schema: &Value) -> Option<String> {
    let req = required(schema);
    object_props(schema)
        .into_iter()
        .filter(|(_, s)| scalar_type(s).is_some() || s.get("type").is_none())
        .filter_map(|(name, _)| Some((key_rank(name)?, req.contains(&name), name)))
        .max_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0)).then_with(|| b.2.cmp(a.2)))
        .map(|(_, _, n)| n.to_string())
}

/// The model of a listing's tools: roles, entities, keys, and every
/// producer → consumer link the names and schemas support.
pub fn infer(tools: &[Value]) -> Model {
    let risks = WriteRisks::new(tools);
    let mut model = Model::default();
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let (role, entity) = role_of(name);
        let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
        let key = matches!(role, Role::Read | Role::Update | Role::Delete)
            .then(|| key_of(&schema))
            .flatten();
        let annotated_write = risks.of(tool).is_some();
        let read_only = risks.read_only(tool);
        let writes = annotated_write
            || (matches!(role, Role::Create | Role::Update | Role::Delete) && !read_only);
        model.tools.push(ToolModel {
            name: name.to_string(),
            role,
            entity,
            writes,
            key,
            requires: !required(&schema).is_empty(),
            read_only,
            tool: tool.clone(),
        });
    }
    let mut links = Vec::new();
    for producer in model.tools.iter().filter(|t| t.role == Role::Create) {
        for consumer in model.tools.iter().filter(|t| {
            matches!(t.role, Role::Read | Role::Update | Role::Delete) && same_entity(t, producer)
        }) {
            let Some(prop) = &consumer.key else { continue };
            if let Some(source) = source_for(producer, prop) {
                links.push(Link {
                    producer: producer.name.clone(),
                    source,
                    consumer: consumer.name.clone(),
                    prop: prop.clone(),
                });
            }
        }
    }
    model.links = links;
    model
}

/// Whether two tools are about the same entity (`create_note`, `get_note`;
/// `create` and `get` of a server with one kind of thing name none).
fn same_entity(a: &ToolModel, b: &ToolModel) -> bool {
    a.entity == b.entity
}

/// What of `producer` feeds a consumer's key `prop`: an argument of the
/// same name it takes (a created name), else an answer field: `prop`
/// itself, `id` for an `*_id`, `uri` for an `*_uri` (the answer decides
/// which is there; the outputSchema, when declared, must have it).
fn source_for(producer: &ToolModel, prop: &str) -> Option<Source> {
    let input = producer
        .tool
        .get("inputSchema")
        .cloned()
        .unwrap_or(json!({}));
    let rank = key_rank(prop)?;
    let takes = object_props(&input).iter().any(|(n, _)| *n == prop);
    // A name the creator is given (and no id the server makes).
    if takes && rank <= 2 {
        return Some(Source::Input(prop.to_string()));
    }
    let output = producer.tool.get("outputSchema");
    let declared = |field: &str| -> bool {
        match output {
            None => true,
            Some(schema) => has_field(schema, field),
        }
    };
    for field in output_candidates(prop) {
        if declared(&field) {
            return Some(Source::Output(field));
        }
    }
    takes.then(|| Source::Input(prop.to_string()))
}

/// The answer fields that may carry a key `prop`, best first.
fn output_candidates(prop: &str) -> Vec<String> {
    let ws = words(prop);
    let last = ws.last().map(String::as_str).unwrap_or("");
    let mut out = vec![prop.to_string()];
    let generic = matches!(
        last,
        "id" | "uuid" | "guid" | "uri" | "url" | "key" | "slug" | "handle" | "name"
    );
    if generic && !out.iter().any(|x| x == last) {
        out.push(last.to_string());
    }
    out
}

fn has_field(schema: &Value, field: &str) -> bool {
    let props = schema.get("properties").and_then(Value::as_object);
    props.is_some_and(|p| {
        p.contains_key(field)
            || p.values().any(|sub| {
                sub.get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|q| q.contains_key(field))
            })
    })
}

/// What one sequence checks, by step index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "oracle")]
pub enum Oracle {
    /// A read of a deleted key must be refused.
    ReadAfterDelete {
        create: usize,
        delete: usize,
        read: usize,
    },
    /// A list after a delete must not show the key.
    ListAfterDelete {
        create: usize,
        delete: usize,
        list: usize,
    },
    /// A list after a create must show the key.
    ListAfterCreate { create: usize, list: usize },
    /// A read after an update must show the new value.
    GetAfterUpdate {
        create: usize,
        update: usize,
        read: usize,
        marker: String,
    },
    /// A read-only call made twice must give the same answer.
    RepeatedRead { first: usize, second: usize },
    /// A lookup of a key that does not exist must be refused properly.
    MissingKey { read: usize },
}

impl Oracle {
    /// `read_after_delete`, …
    pub fn as_str(&self) -> &'static str {
        match self {
            Oracle::ReadAfterDelete { .. } => "read_after_delete",
            Oracle::ListAfterDelete { .. } => "list_after_delete",
            Oracle::ListAfterCreate { .. } => "list_after_create",
            Oracle::GetAfterUpdate { .. } => "get_after_update",
            Oracle::RepeatedRead { .. } => "repeated_read",
            Oracle::MissingKey { .. } => "missing_key",
        }
    }

    /// The step whose answer the oracle judges.
    pub fn check(&self) -> usize {
        match self {
            Oracle::ReadAfterDelete { read, .. }
            | Oracle::GetAfterUpdate { read, .. }
            | Oracle::MissingKey { read } => *read,
            Oracle::ListAfterDelete { list, .. } | Oracle::ListAfterCreate { list, .. } => *list,
            Oracle::RepeatedRead { second, .. } => *second,
        }
    }

    /// The steps the oracle needs.
    fn essential(&self) -> Vec<usize> {
        match self {
            Oracle::ReadAfterDelete {
                create,
                delete,
                read,
            } => vec![*create, *delete, *read],
            Oracle::ListAfterDelete {
                create,
                delete,
                list,
            } => vec![*create, *delete, *list],
            Oracle::ListAfterCreate { create, list } => vec![*create, *list],
            Oracle::GetAfterUpdate {
                create,
                update,
                read,
                ..
            } => vec![*create, *update, *read],
            Oracle::RepeatedRead { first, second } => vec![*first, *second],
            Oracle::MissingKey { read } => vec![*read],
        }
    }

    /// The step whose key the oracle is about (the created item's).
    fn keyed(&self) -> Option<usize> {
        match self {
            Oracle::ReadAfterDelete { create, .. }
            | Oracle::ListAfterDelete { create, .. }
            | Oracle::ListAfterCreate { create, .. }
            | Oracle::GetAfterUpdate { create, .. } => Some(*create),
            _ => None,
        }
    }

    fn shifted(&self, removed: usize) -> Oracle {
        self.with_steps(|i| if i > removed { i - 1 } else { i })
    }

    /// The oracle with each step index it names mapped by `s`.
    fn with_steps(&self, s: impl Fn(usize) -> usize) -> Oracle {
        match self {
            Oracle::ReadAfterDelete {
                create,
                delete,
                read,
            } => Oracle::ReadAfterDelete {
                create: s(*create),
                delete: s(*delete),
                read: s(*read),
            },
            Oracle::ListAfterDelete {
                create,
                delete,
                list,
            } => Oracle::ListAfterDelete {
                create: s(*create),
                delete: s(*delete),
                list: s(*list),
            },
            Oracle::ListAfterCreate { create, list } => Oracle::ListAfterCreate {
                create: s(*create),
                list: s(*list),
            },
            Oracle::GetAfterUpdate {
                create,
                update,
                read,
                marker,
            } => Oracle::GetAfterUpdate {
                create: s(*create),
                update: s(*update),
                read: s(*read),
                marker: marker.clone(),
            },
            Oracle::RepeatedRead { first, second } => Oracle::RepeatedRead {
                first: s(*first),
                second: s(*second),
            },
            Oracle::MissingKey { read } => Oracle::MissingKey { read: s(*read) },
        }
    }
}

/// A key filled in from an earlier step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bind {
    /// The argument it fills.
    pub prop: String,
    /// The step that produced it.
    pub from: usize,
    pub source: Source,
    /// The JSON type the consumer's schema gives the argument (`string`,
    /// `integer`, `number`), which a key found as another is turned into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
}

/// Where a bound key was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// In the producer's JSON answer, at this JSON path (`$.id`).
    Answer(String),
    /// In the producer's answer text (`Created note 3 (id: 3)`).
    Text,
    /// Among the arguments the producer was given.
    Argument,
}

/// The key of `b`: from the producer's answer (its JSON, else its text
/// after the field's name), else the producer's own arguments; turned into
/// the type the consumer takes.
pub fn resolve_key(sent: &[Value], answers: &[StepAnswer], b: &Bind) -> Option<(Value, Origin)> {
    let found = match &b.source {
        Source::Input(prop) => sent
            .get(b.from)?
            .get(prop)
            .cloned()
            .map(|v| (v, Origin::Argument)),
        Source::Output(field) => {
            let a = answers.get(b.from)?;
            if !succeeded(a) {
                return None;
            }
            let response = a.response.as_ref()?;
            let mut fields = output_candidates(field);
            for f in output_candidates(&b.prop) {
                if !fields.contains(&f) {
                    fields.push(f);
                }
            }
            let json = answer_json(response);
            let text = answer_text(response);
            fields
                .iter()
                .find_map(|f| json.as_ref().and_then(|j| find_field(j, f)))
                .map(|(v, path)| (v, Origin::Answer(path)))
                .or_else(|| {
                    fields
                        .iter()
                        .find_map(|f| text_field(&text, f))
                        .map(|v| (v, Origin::Text))
                })
                .or_else(|| {
                    let args = sent.get(b.from)?;
                    args.get(field)
                        .or_else(|| args.get(&b.prop))
                        .filter(|v| matches!(v, Value::String(_) | Value::Number(_)))
                        .cloned()
                        .map(|v| (v, Origin::Argument))
                })
        }
    }?;
    Some((coerce(found.0, b.ty.as_deref()), found.1))
}

/// A key turned into the type a consumer takes: a number as its decimal
/// text for a string, a decimal text as the number for an integer.
fn coerce(v: Value, ty: Option<&str>) -> Value {
    match (ty, &v) {
        (Some("string"), Value::Number(n)) => Value::String(n.to_string()),
        (Some("integer"), Value::String(s)) => s.parse::<i64>().map(Value::from).unwrap_or(v),
        (Some("number"), Value::String(s)) => s
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or(v),
        _ => v,
    }
}

/// A key written in text after its name (`id: 3`, `ID=abc-1`, `"id": "x"`),
/// for an `id`, `uuid`, `key`, `slug` or `uri`-like field: the number or
/// the string after it.
fn text_field(text: &str, field: &str) -> Option<Value> {
    if !matches!(key_rank(field), Some(2..)) {
        return None;
    }
    let chars = if matches!(key_rank(field), Some(3)) {
        r"[A-Za-z0-9_.:/?=&%~+-]"
    } else {
        r"[A-Za-z0-9_.:-]"
    };
    let pattern = format!(
        r#"(?i)(?:^|[^A-Za-z0-9_]){}["']?\s*[:=#]?\s*["']?([A-Za-z0-9]{chars}*)"#,
        regex::escape(field)
    );
    let re = regex::Regex::new(&pattern).ok()?;
    let token = re
        .captures(text)?
        .get(1)?
        .as_str()
        .trim_end_matches(['.', ':', ',']);
    if token.is_empty() {
        return None;
    }
    Some(match token.parse::<u64>() {
        Ok(n) if !token.starts_with('0') || token == "0" => Value::from(n),
        _ => Value::String(token.to_string()),
    })
}

/// One call of a sequence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub tool: String,
    pub role: Role,
    /// The arguments, but for the bound key.
    pub arguments: Map<String, Value>,
    pub bind: Option<Bind>,
    /// Whether it may write.
    pub writes: bool,
}

/// A sequence of calls around one oracle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sequence {
    /// Its number in generation order, from 1.
    pub number: usize,
    pub oracle: Oracle,
    pub steps: Vec<Step>,
}

impl Sequence {
    /// Whether any step may write.
    pub fn writes(&self) -> bool {
        self.steps.iter().any(|s| s.writes)
    }

    /// `create_note → delete_note → get_note`.
    pub fn summary(&self) -> String {
        self.steps
            .iter()
            .map(|s| s.tool.as_str())
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

/// The sequences of a listing, and what could not be made.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub model: Model,
    pub sequences: Vec<Sequence>,
    /// Sequences left out because they write and writes are not allowed.
    pub skipped_writes: usize,
}

/// An oracle instance: the tools it needs, by role.
#[derive(Debug, Clone)]
enum Pattern {
    ReadAfterDelete {
        create: usize,
        delete: usize,
        read: usize,
    },
    ListAfterDelete {
        create: usize,
        delete: usize,
        list: usize,
    },
    ListAfterCreate {
        create: usize,
        list: usize,
    },
    GetAfterUpdate {
        create: usize,
        update: usize,
        read: usize,
    },
    RepeatedRead {
        tool: usize,
    },
    MissingKey {
        tool: usize,
    },
}

fn patterns(model: &Model) -> Vec<Pattern> {
    let t = &model.tools;
    let link = |p: usize, c: usize| {
        model
            .links
            .iter()
            .any(|l| l.producer == t[p].name && l.consumer == t[c].name)
    };
    let idx = |role: Role| -> Vec<usize> { (0..t.len()).filter(|&i| t[i].role == role).collect() };
    let mut out = Vec::new();
    for c in idx(Role::Create) {
        for d in idx(Role::Delete).into_iter().filter(|&d| link(c, d)) {
            for r in idx(Role::Read).into_iter().filter(|&r| link(c, r)) {
                out.push(Pattern::ReadAfterDelete {
                    create: c,
                    delete: d,
                    read: r,
                });
            }
            for l in idx(Role::List)
                .into_iter()
                .filter(|&l| same_entity(&t[l], &t[c]) && !t[l].requires)
            {
                out.push(Pattern::ListAfterDelete {
                    create: c,
                    delete: d,
                    list: l,
                });
            }
        }
        for l in idx(Role::List)
            .into_iter()
            .filter(|&l| same_entity(&t[l], &t[c]) && !t[l].requires)
        {
            out.push(Pattern::ListAfterCreate { create: c, list: l });
        }
        for u in idx(Role::Update).into_iter().filter(|&u| link(c, u)) {
            if update_field(&t[u]).is_none() {
                continue;
            }
            for r in idx(Role::Read).into_iter().filter(|&r| link(c, r)) {
                out.push(Pattern::GetAfterUpdate {
                    create: c,
                    update: u,
                    read: r,
                });
            }
        }
    }
    for (i, tool) in t.iter().enumerate() {
        if matches!(tool.role, Role::Read | Role::List)
            && tool.read_only
            && !tool.writes
            && tool.key.is_none()
        {
            out.push(Pattern::RepeatedRead { tool: i });
        }
        if tool.role == Role::Read && tool.key.is_some() {
            out.push(Pattern::MissingKey { tool: i });
        }
    }
    out
}

/// The argument of an update tool the oracle changes: a string property,
/// not the key, without `enum`, `const`, `format` or `pattern`.
fn update_field(tool: &ToolModel) -> Option<String> {
    let schema = tool.tool.get("inputSchema")?;
    object_props(schema)
        .into_iter()
        .find(|(name, s)| Some(*name) != tool.key.as_deref() && free_string(s))
        .map(|(n, _)| n.to_string())
}

/// A string schema any short text satisfies.
fn free_string(s: &Value) -> bool {
    scalar_type(s) == Some("string")
        && ["enum", "const", "format", "pattern"]
            .iter()
            .all(|k| s.get(*k).is_none())
        && s.get("maxLength")
            .and_then(Value::as_u64)
            .is_none_or(|m| m >= 24)
        && s.get("minLength")
            .and_then(Value::as_u64)
            .is_none_or(|m| m <= 24)
}

/// A seeded marker: `mcpcheck-` and 8 hex digits.
fn marker(rng: &mut Rng) -> String {
    format!("mcpcheck-{:08x}", rng.next_u64() & 0xFFFF_FFFF)
}

/// Arguments for a tool of the model: `valid_arguments` (required ones
/// only for a list or a read), every free string argument a creator takes
/// set to a fresh marker (so the item is found again).
fn arguments_for(tool: &ToolModel, rng: &mut Rng) -> Map<String, Value> {
    let schema = tool.tool.get("inputSchema").cloned().unwrap_or(json!({}));
    let built = match tool.role {
        Role::Create | Role::Update | Role::Other => inputs::valid_arguments(&schema),
        _ => inputs::required_arguments(&schema).unwrap_or_else(|_| json!({})),
    };
    let mut args = match built {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if tool.role == Role::Create {
        for (name, s) in object_props(&schema) {
            if free_string(s) && args.contains_key(name) {
                args.insert(name.to_string(), Value::String(marker(rng)));
            }
        }
    }
    args
}

/// Seeded sequences over `tools` (a `tools/list`), at most `count`: each
/// oracle instance in turn, with up to [`MAX_EXTRA`] extra calls mixed in
/// before the step the oracle judges. With `allow_writes` false, sequences
/// that write are left out and counted.
pub fn sequences(tools: &[Value], seed: u64, count: usize, allow_writes: bool) -> Plan {
    let model = infer(tools);
    let all = patterns(&model);
    let mut plan = Plan {
        model,
        ..Plan::default()
    };
    let usable: Vec<&Pattern> = all
        .iter()
        .filter(|p| {
            let writes = pattern_writes(&plan.model, p);
            if writes && !allow_writes {
                plan.skipped_writes += 1;
                false
            } else {
                true
            }
        })
        .collect();
    if usable.is_empty() {
        return plan;
    }
    let mut rng = Rng::new(mix(seed ^ fnv1a("stateful")));
    for n in 0..count {
        let pattern = usable[n % usable.len()];
        // The first round without extra calls; later ones with some.
        let extra = if n < usable.len() {
            0
        } else {
            1 + rng.below(MAX_EXTRA)
        };
        if let Some(seq) = build(&plan.model, pattern, n + 1, extra, allow_writes, &mut rng) {
            plan.sequences.push(seq);
        }
    }
    plan
}

fn pattern_writes(model: &Model, p: &Pattern) -> bool {
    let t = &model.tools;
    match p {
        Pattern::ReadAfterDelete { .. }
        | Pattern::ListAfterDelete { .. }
        | Pattern::ListAfterCreate { .. }
        | Pattern::GetAfterUpdate { .. } => true,
        Pattern::RepeatedRead { tool } | Pattern::MissingKey { tool } => t[*tool].writes,
    }
}

fn step(tool: &ToolModel, rng: &mut Rng) -> Step {
    Step {
        tool: tool.name.clone(),
        role: tool.role,
        arguments: arguments_for(tool, rng),
        bind: None,
        writes: tool.writes,
    }
}

fn bound(
    model: &Model,
    consumer: &ToolModel,
    producer_step: usize,
    producer: &ToolModel,
    rng: &mut Rng,
) -> Option<Step> {
    let link = model
        .links
        .iter()
        .find(|l| l.producer == producer.name && l.consumer == consumer.name)?;
    let mut s = step(consumer, rng);
    s.arguments.remove(&link.prop);
    let schema = consumer
        .tool
        .get("inputSchema")
        .cloned()
        .unwrap_or(json!({}));
    let ty = object_props(&schema)
        .into_iter()
        .find(|(n, _)| *n == link.prop)
        .and_then(|(_, s)| scalar_type(s).map(str::to_string));
    s.bind = Some(Bind {
        prop: link.prop.clone(),
        from: producer_step,
        source: link.source.clone(),
        ty,
    });
    Some(s)
}

fn build(
    model: &Model,
    pattern: &Pattern,
    number: usize,
    extra: usize,
    allow_writes: bool,
    rng: &mut Rng,
) -> Option<Sequence> {
    let t = &model.tools;
    let (mut steps, oracle) = match pattern {
        Pattern::ReadAfterDelete {
            create,
            delete,
            read,
        } => {
            let c = step(&t[*create], rng);
            let d = bound(model, &t[*delete], 0, &t[*create], rng)?;
            let r = bound(model, &t[*read], 0, &t[*create], rng)?;
            (
                vec![c, d, r],
                Oracle::ReadAfterDelete {
                    create: 0,
                    delete: 1,
                    read: 2,
                },
            )
        }
        Pattern::ListAfterDelete {
            create,
            delete,
            list,
        } => {
            let c = step(&t[*create], rng);
            let d = bound(model, &t[*delete], 0, &t[*create], rng)?;
            let l = step(&t[*list], rng);
            (
                vec![c, d, l],
                Oracle::ListAfterDelete {
                    create: 0,
                    delete: 1,
                    list: 2,
                },
            )
        }
        Pattern::ListAfterCreate { create, list } => {
            let c = step(&t[*create], rng);
            let l = step(&t[*list], rng);
            (vec![c, l], Oracle::ListAfterCreate { create: 0, list: 1 })
        }
        Pattern::GetAfterUpdate {
            create,
            update,
            read,
        } => {
            let c = step(&t[*create], rng);
            let mut u = bound(model, &t[*update], 0, &t[*create], rng)?;
            let field = update_field(&t[*update])?;
            let m = marker(rng);
            u.arguments.insert(field, Value::String(m.clone()));
            let r = bound(model, &t[*read], 0, &t[*create], rng)?;
            (
                vec![c, u, r],
                Oracle::GetAfterUpdate {
                    create: 0,
                    update: 1,
                    read: 2,
                    marker: m,
                },
            )
        }
        Pattern::RepeatedRead { tool } => {
            let a = step(&t[*tool], rng);
            let b = a.clone();
            (
                vec![a, b],
                Oracle::RepeatedRead {
                    first: 0,
                    second: 1,
                },
            )
        }
        Pattern::MissingKey { tool } => {
            let mut r = step(&t[*tool], rng);
            let key = t[*tool].key.clone()?;
            let schema = t[*tool]
                .tool
                .get("inputSchema")
                .cloned()
                .unwrap_or(json!({}));
            let ty = object_props(&schema)
                .into_iter()
                .find(|(n, _)| *n == key)
                .and_then(|(_, s)| scalar_type(s).map(str::to_string));
            let missing = match ty.as_deref() {
                Some("integer" | "number") => json!(900_000_000 + rng.below(99_999_999)),
                _ => Value::String(format!("{}-missing", marker(rng))),
            };
            r.arguments.insert(key, missing);
            (vec![r], Oracle::MissingKey { read: 0 })
        }
    };
    // Extra calls, before the judged step: lists and reads that need no
    // key, and (writes allowed) other creates of anything.
    let extras: Vec<&ToolModel> = t
        .iter()
        .filter(|x| !x.requires || x.role == Role::Create)
        .filter(|x| matches!(x.role, Role::List | Role::Read | Role::Create))
        .filter(|x| allow_writes || !x.writes)
        .filter(|x| x.role != Role::Read || x.key.is_none())
        .collect();
    let mut oracle = oracle;
    if !matches!(
        oracle,
        Oracle::RepeatedRead { .. } | Oracle::MissingKey { .. }
    ) {
        for _ in 0..extra {
            let Some(x) = rng.pick(&extras).copied() else {
                break;
            };
            if steps.len() >= MAX_STEPS {
                break;
            }
            // Anywhere after the first step and before the judged one.
            let check = oracle.check();
            let at = 1 + rng.below(check);
            let s = step(x, rng);
            steps.insert(at, s);
            for st in steps.iter_mut() {
                if let Some(b) = &mut st.bind
                    && b.from >= at
                {
                    b.from += 1;
                }
            }
            // Every index at or past `at` moves one on.
            oracle = oracle.with_steps(|i| if i >= at { i + 1 } else { i });
        }
    }
    Some(Sequence {
        number,
        oracle,
        steps,
    })
}

/// The same sequence with one step the oracle does not need left out, each
/// such step in turn (from the first): what shrinking tries, keeping the
/// first that fails the same way.
pub fn shrink_sequence(seq: &Sequence) -> Vec<Sequence> {
    let essential = seq.oracle.essential();
    let mut out = Vec::new();
    for drop in 0..seq.steps.len() {
        if essential.contains(&drop) {
            continue;
        }
        // A step another binds to stays.
        if seq
            .steps
            .iter()
            .any(|s| s.bind.as_ref().is_some_and(|b| b.from == drop))
        {
            continue;
        }
        let mut steps = seq.steps.clone();
        steps.remove(drop);
        for s in &mut steps {
            if let Some(b) = &mut s.bind
                && b.from > drop
            {
                b.from -= 1;
            }
        }
        out.push(Sequence {
            number: seq.number,
            oracle: seq.oracle.shifted(drop),
            steps,
        });
    }
    out
}

/// The answer to one step.
#[derive(Debug, Clone)]
pub struct StepAnswer {
    /// How the call was classified.
    pub status: Status,
    /// The JSON-RPC response message, when one came.
    pub response: Option<Value>,
    /// What the classification said.
    pub detail: String,
}

/// What to do next in a [`SequenceRun`].
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Call `tool` with these arguments.
    Call { tool: String, arguments: Value },
    /// Every step was made: ask for the verdict.
    Done,
}

/// Why a sequence says nothing about its oracle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inconclusive(pub String);

/// A sequence that broke its oracle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: &'static RuleInfo,
    /// What went wrong, in one line.
    pub message: String,
    /// The step it was seen at (0-based).
    pub step: usize,
}

/// A sequence being run: the arguments each step was sent and the answers.
#[derive(Debug, Clone)]
pub struct SequenceRun<'s> {
    seq: &'s Sequence,
    /// The arguments sent, per step made.
    pub sent: Vec<Value>,
    /// The answers, per step made.
    pub answers: Vec<StepAnswer>,
    stuck: Option<Inconclusive>,
}

/// The JSON a tool answered: `structuredContent`, else its text parsed as
/// JSON (whole, or its first line that is).
fn answer_json(response: &Value) -> Option<Value> {
    let result = response.get("result")?;
    if let Some(sc) = result.get("structuredContent").filter(|v| !v.is_null()) {
        return Some(sc.clone());
    }
    let text = crate::observation::text_view(&crate::observation::Method::ToolsCall, result);
    crate::observation::parse_text_json(&text)
}

/// The text of an answer: its text content, and its structured content as
/// JSON.
fn answer_text(response: &Value) -> String {
    let Some(result) = response.get("result") else {
        return String::new();
    };
    let mut text = crate::observation::text_view(&crate::observation::Method::ToolsCall, result);
    if let Some(sc) = result.get("structuredContent").filter(|v| !v.is_null()) {
        text.push('\n');
        text.push_str(&sc.to_string());
    }
    text
}

/// The value of `field` in an answer's JSON: at the top, or one level down
/// (`{"note": {"id": 1}}`), or in the first item of a top-level list; with
/// the JSON path it was found at.
pub fn find_field(json: &Value, field: &str) -> Option<(Value, String)> {
    let usable = |v: &Value| matches!(v, Value::String(_) | Value::Number(_));
    if let Some(v) = json.get(field).filter(|v| usable(v)) {
        return Some((v.clone(), format!("$.{field}")));
    }
    if let Value::Object(m) = json {
        for (k, sub) in m {
            if let Some(v) = sub.get(field).filter(|v| usable(v)) {
                return Some((v.clone(), format!("$.{k}.{field}")));
            }
        }
    }
    if let Some(first) = json.as_array().and_then(|a| a.first())
        && let Some(v) = first.get(field).filter(|v| usable(v))
    {
        return Some((v.clone(), format!("$[0].{field}")));
    }
    None
}

/// Whether an answer is a success (a result without `isError: true`).
fn succeeded(a: &StepAnswer) -> bool {
    matches!(a.status, Status::Healthy | Status::AcceptedInvalid)
        && a.response
            .as_ref()
            .and_then(|r| r.get("result"))
            .is_some_and(|r| r.get("isError") != Some(&Value::Bool(true)))
}

/// Whether a successful answer still says the item is not there (a "not
/// found" text without `isError`, an empty or null answer).
fn says_missing(a: &StepAnswer) -> bool {
    let Some(r) = &a.response else { return true };
    let text = answer_text(r);
    let t = text.trim();
    if t.is_empty() || matches!(t, "null" | "{}" | "[]" | "None" | "undefined") {
        return true;
    }
    let first = t.lines().next().unwrap_or("");
    let lower = first.to_ascii_lowercase();
    super::reads_as_error(first)
        || [
            "not found",
            "no such",
            "does not exist",
            "doesn't exist",
            "no longer exists",
            "was deleted",
            "has been deleted",
            "unknown ",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// Whether an error answer is a proper refusal: a tool error, or a
/// JSON-RPC error other than a parse, request, method or internal error.
fn proper_refusal(a: &StepAnswer) -> bool {
    match a.status {
        Status::ToolError => true,
        Status::ProtocolError => a
            .response
            .as_ref()
            .and_then(|r| r.pointer("/error/code"))
            .and_then(Value::as_i64)
            .is_some_and(|c| !matches!(c, -32700 | -32600 | -32601 | -32603)),
        _ => false,
    }
}

/// Whether `answer` shows `key` (a string's text, a number as a JSON value
/// or a whole word).
fn shows(answer: &StepAnswer, key: &Value) -> bool {
    let Some(r) = &answer.response else {
        return false;
    };
    match key {
        Value::String(s) => answer_text(r).contains(s.as_str()),
        Value::Number(n) => {
            let json_has = answer_json(r).is_some_and(|j| contains_value(&j, key, 0));
            let word = n.to_string();
            json_has
                || answer_text(r)
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-')
                    .any(|w| w == word)
        }
        _ => false,
    }
}

fn contains_value(v: &Value, key: &Value, depth: usize) -> bool {
    if v == key {
        return true;
    }
    if depth > 32 {
        return false;
    }
    match v {
        Value::Array(a) => a.iter().any(|x| contains_value(x, key, depth + 1)),
        Value::Object(m) => m.values().any(|x| contains_value(x, key, depth + 1)),
        _ => false,
    }
}

/// The part of an answer a repeated call must give again: the result
/// without `_meta`.
fn comparable(a: &StepAnswer) -> Option<Value> {
    let mut r = a.response.as_ref()?.get("result")?.clone();
    if let Value::Object(m) = &mut r {
        m.remove("_meta");
    }
    Some(r)
}

fn fuzz_rule(code: &str) -> &'static RuleInfo {
    super::rules::FUZZ
        .iter()
        .find(|r| r.code == code)
        .unwrap_or(&super::rules::FUZZ[0])
}

impl<'s> SequenceRun<'s> {
    pub fn new(seq: &'s Sequence) -> Self {
        SequenceRun {
            seq,
            sent: Vec::new(),
            answers: Vec::new(),
            stuck: None,
        }
    }

    /// The sequence being run.
    pub fn sequence(&self) -> &'s Sequence {
        self.seq
    }

    /// The next call, or `Done` when every step was made or the sequence
    /// cannot go on (a producer's answer did not give the key; a step
    /// failed before the oracle could be judged).
    pub fn next_call(&mut self) -> Next {
        let i = self.answers.len();
        if i >= self.seq.steps.len() || self.stuck.is_some() {
            return Next::Done;
        }
        let step = &self.seq.steps[i];
        let mut args = step.arguments.clone();
        if let Some(b) = &step.bind {
            match resolve_key(&self.sent, &self.answers, b) {
                Some((v, _)) => {
                    args.insert(b.prop.clone(), v);
                }
                None => {
                    self.stuck = Some(Inconclusive(format!(
                        "step {} (`{}`) gave no `{}` for `{}`",
                        b.from + 1,
                        self.seq.steps[b.from].tool,
                        match &b.source {
                            Source::Output(f) | Source::Input(f) => f.as_str(),
                        },
                        step.tool
                    )));
                    return Next::Done;
                }
            }
        }
        let arguments = Value::Object(args);
        self.sent.push(arguments.clone());
        Next::Call {
            tool: step.tool.clone(),
            arguments,
        }
    }

    /// Takes the answer to the call [`next_call`](Self::next_call) gave. A serious
    /// status (a crash, a hang, a protocol error) of a step the oracle does
    /// not judge ends the sequence; so does the failure of a step the
    /// oracle needs to have succeeded.
    pub fn record(&mut self, answer: StepAnswer) {
        let i = self.answers.len();
        let check = self.seq.oracle.check();
        let needed = self.seq.oracle.essential();
        if i != check && needed.contains(&i) && !succeeded(&answer) && !answer.status.is_serious() {
            self.stuck = Some(Inconclusive(format!(
                "step {} (`{}`) did not succeed ({}): {}",
                i + 1,
                self.seq.steps[i].tool,
                answer.status.as_str(),
                crate::truncate(&answer.detail, 160)
            )));
        }
        self.answers.push(answer);
    }

    /// The oracle's verdict: `Ok(None)` it held, `Ok(Some(v))` it broke,
    /// `Err` the sequence could not judge it.
    pub fn verdict(&self) -> Result<Option<Violation>, Inconclusive> {
        if let Some(broke) = self.broken_step() {
            return Ok(Some(broke));
        }
        if let Some(why) = &self.stuck {
            return Err(why.clone());
        }
        if self.answers.len() < self.seq.steps.len() {
            return Err(Inconclusive("the sequence did not finish".into()));
        }
        self.oracle()
    }

    /// A step that broke the server (a crash, a hang, a protocol error …),
    /// whichever it is: the first.
    fn broken_step(&self) -> Option<Violation> {
        for (i, a) in self.answers.iter().enumerate() {
            if !a.status.is_serious() {
                continue;
            }
            let lookup = i == self.seq.oracle.check()
                && matches!(
                    self.seq.oracle,
                    Oracle::ReadAfterDelete { .. } | Oracle::MissingKey { .. }
                );
            // A lookup of a missing key refused with -32602 (or another
            // error that is not a parse, request, method or internal one)
            // is refused properly.
            if lookup && proper_refusal(a) {
                continue;
            }
            let lookup_refused_badly =
                lookup && matches!(a.status, Status::ProtocolError | Status::Crash);
            if lookup_refused_badly {
                let what = match self.seq.oracle {
                    Oracle::MissingKey { .. } => "a key that was never created",
                    _ => "a deleted key",
                };
                return Some(Violation {
                    rule: fuzz_rule("F306"),
                    message: format!(
                        "`{}` of {what} was answered with {}: {}",
                        self.seq.steps[i].tool,
                        a.status.as_str(),
                        crate::truncate(&a.detail, 160)
                    ),
                    step: i,
                });
            }
            let Some(rule) = super::rules::fuzz_rule(a.status) else {
                continue;
            };
            return Some(Violation {
                rule,
                message: format!(
                    "step {} (`{}`) of the sequence: {}",
                    i + 1,
                    self.seq.steps[i].tool,
                    crate::truncate(&a.detail, 160)
                ),
                step: i,
            });
        }
        None
    }

    /// The oracle's own judgement, every step having been made.
    fn oracle(&self) -> Result<Option<Violation>, Inconclusive> {
        let key = || -> Option<Value> {
            let c = self.seq.oracle.keyed()?;
            // The key the consumers were given, else the one the list must show.
            self.seq
                .steps
                .iter()
                .filter_map(|s| s.bind.as_ref())
                .find(|b| b.from == c)
                .and_then(|b| resolve_key(&self.sent, &self.answers, b))
                .map(|(v, _)| v)
                .or_else(|| self.created_key(c))
        };
        let a = |i: usize| &self.answers[i];
        let tool = |i: usize| self.seq.steps[i].tool.as_str();
        let shown = |k: &Value| match k {
            Value::String(s) => format!("`{s}`"),
            other => format!("`{other}`"),
        };
        match &self.seq.oracle {
            Oracle::ReadAfterDelete { delete, read, .. } => {
                let r = a(*read);
                if succeeded(r) && !says_missing(r) {
                    let k = key().map(|k| shown(&k)).unwrap_or_default();
                    return Ok(Some(Violation {
                        rule: fuzz_rule("F301"),
                        message: format!(
                            "`{}` of {k} still answers after `{}` reported it deleted",
                            tool(*read),
                            tool(*delete)
                        ),
                        step: *read,
                    }));
                }
                Ok(None)
            }
            Oracle::ListAfterDelete {
                create,
                delete,
                list,
            } => {
                // The text the create was given is the surest sign of the
                // item (a number may be any line's); else its key.
                let Some(k) = self.created_marker(*create).or_else(key) else {
                    return Err(Inconclusive("no key to look for".into()));
                };
                if succeeded(a(*list)) && shows(a(*list), &k) {
                    return Ok(Some(Violation {
                        rule: fuzz_rule("F304"),
                        message: format!(
                            "`{}` still lists {} after `{}` reported it deleted",
                            tool(*list),
                            shown(&k),
                            tool(*delete)
                        ),
                        step: *list,
                    }));
                }
                Ok(None)
            }
            Oracle::ListAfterCreate { create, list } => {
                let Some(k) = key() else {
                    return Err(Inconclusive(format!(
                        "`{}` gave no key to look for in the list",
                        tool(*create)
                    )));
                };
                if !succeeded(a(*list)) {
                    return Err(Inconclusive(format!("`{}` did not succeed", tool(*list))));
                }
                let marker = self.created_marker(*create);
                if !shows(a(*list), &k) && !marker.as_ref().is_some_and(|m| shows(a(*list), m)) {
                    let k = marker.unwrap_or(k);
                    return Ok(Some(Violation {
                        rule: fuzz_rule("F302"),
                        message: format!(
                            "`{}` does not list {} right after `{}` created it",
                            tool(*list),
                            shown(&k),
                            tool(*create)
                        ),
                        step: *list,
                    }));
                }
                Ok(None)
            }
            Oracle::GetAfterUpdate {
                update,
                read,
                marker,
                ..
            } => {
                if !succeeded(a(*read)) {
                    return Err(Inconclusive(format!("`{}` did not succeed", tool(*read))));
                }
                if !shows(a(*read), &Value::String(marker.clone())) {
                    return Ok(Some(Violation {
                        rule: fuzz_rule("F303"),
                        message: format!(
                            "`{}` does not show `{marker}`, which `{}` just set",
                            tool(*read),
                            tool(*update)
                        ),
                        step: *read,
                    }));
                }
                Ok(None)
            }
            Oracle::RepeatedRead { first, second } => {
                if !(succeeded(a(*first)) && succeeded(a(*second))) {
                    return Err(Inconclusive(format!("`{}` did not succeed", tool(*first))));
                }
                if comparable(a(*first)) != comparable(a(*second)) {
                    return Ok(Some(Violation {
                        rule: fuzz_rule("F305"),
                        message: format!(
                            "`{}`, read-only, answered the same arguments differently the second time",
                            tool(*first)
                        ),
                        step: *second,
                    }));
                }
                Ok(None)
            }
            Oracle::MissingKey { .. } => Ok(None),
        }
    }

    /// The key a create step made, for an oracle with no consumer bound to
    /// it (a list after a create): the first key-like field of its answer,
    /// else the first key-like argument it was given.
    fn created_key(&self, c: usize) -> Option<Value> {
        let a = self.answers.get(c)?;
        if let Some(json) = a.response.as_ref().and_then(answer_json) {
            for field in ["id", "uuid", "uri", "key", "slug", "name", "title"] {
                if let Some((v, _)) = find_field(&json, field) {
                    return Some(v);
                }
            }
        }
        if let Some(r) = &a.response
            && let Some(v) = ["id", "uuid", "uri", "key"]
                .iter()
                .find_map(|f| text_field(&answer_text(r), f))
        {
            return Some(v);
        }
        let sent = self.sent.get(c)?.as_object()?;
        let mut best: Option<(u8, &Value)> = None;
        for (k, v) in sent {
            if let Some(rank) = key_rank(k)
                && matches!(v, Value::String(_) | Value::Number(_))
                && best.is_none_or(|(r, _)| rank > r)
            {
                best = Some((rank, v));
            }
        }
        best.map(|(_, v)| v.clone())
    }

    /// The marker a create step was given (a free text argument set to
    /// `mcpcheck-…`), when it was given one.
    pub fn created_marker(&self, c: usize) -> Option<Value> {
        created_marker(&self.sent, c)
    }
}

/// The marker step `c` was given, if any: its first argument whose value is
/// a `mcpcheck-…` text.
pub fn created_marker(sent: &[Value], c: usize) -> Option<Value> {
    sent.get(c)?
        .as_object()?
        .values()
        .find(|v| v.as_str().is_some_and(|s| s.starts_with("mcpcheck-")))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notes() -> Vec<Value> {
        let id =
            json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]});
        vec![
            json!({"name": "create_note", "inputSchema": {"type": "object",
                "properties": {"title": {"type": "string"}, "body": {"type": "string"}}, "required": ["title"]},
                "annotations": {"readOnlyHint": false}}),
            json!({"name": "get_note", "inputSchema": id, "annotations": {"readOnlyHint": true}}),
            json!({"name": "update_note", "inputSchema": {"type": "object",
                "properties": {"id": {"type": "string"}, "body": {"type": "string"}}, "required": ["id", "body"]},
                "annotations": {"readOnlyHint": false}}),
            json!({"name": "delete_note", "inputSchema": id, "annotations": {"destructiveHint": true}}),
            json!({"name": "list_notes", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
        ]
    }

    #[test]
    fn roles_entities_and_keys() {
        assert_eq!(role_of("create_note"), (Role::Create, "note".into()));
        assert_eq!(role_of("deleteNote"), (Role::Delete, "note".into()));
        assert_eq!(role_of("notes.get"), (Role::Read, "note".into()));
        assert_eq!(role_of("list_notes"), (Role::List, "note".into()));
        assert_eq!(role_of("get_all_notes").0, Role::List);
        assert_eq!(role_of("search_nodes"), (Role::List, "node".into()));
        assert_eq!(role_of("echo").0, Role::Other);
        assert_eq!(key_rank("note_id"), Some(4));
        assert_eq!(key_rank("noteId"), Some(4));
        assert_eq!(key_rank("resource_uri"), Some(3));
        assert_eq!(key_rank("body"), None);
    }

    #[test]
    fn links_go_from_a_create_to_its_readers_updaters_and_deleters() {
        let m = infer(&notes());
        let linked: Vec<(&str, &str)> = m
            .links
            .iter()
            .map(|l| (l.producer.as_str(), l.consumer.as_str()))
            .collect();
        assert_eq!(
            linked,
            [
                ("create_note", "get_note"),
                ("create_note", "update_note"),
                ("create_note", "delete_note")
            ]
        );
        assert_eq!(m.links[0].source, Source::Output("id".into()));
        // A created name feeds a lookup by name.
        let by_name = infer(&[
            json!({"name": "add_user", "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}),
            json!({"name": "remove_user", "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}),
        ]);
        assert_eq!(by_name.links[0].source, Source::Input("name".into()));
    }

    #[test]
    fn sequences_are_seeded_and_respect_the_write_policy() {
        let a = sequences(&notes(), 7, 12, true);
        let b = sequences(&notes(), 7, 12, true);
        assert_eq!(a.sequences, b.sequences);
        assert_eq!(a.sequences.len(), 12);
        let oracles: Vec<&str> = a.sequences.iter().map(|s| s.oracle.as_str()).collect();
        for o in [
            "read_after_delete",
            "list_after_delete",
            "list_after_create",
            "get_after_update",
            "repeated_read",
            "missing_key",
        ] {
            assert!(oracles.contains(&o), "{o}: {oracles:?}");
        }
        assert!(
            a.sequences
                .iter()
                .any(|s| s.steps.len() > s.oracle.essential().len()),
            "extra calls mixed in"
        );
        let read_only = sequences(&notes(), 7, 12, false);
        assert!(read_only.sequences.iter().all(|s| !s.writes()));
        assert!(read_only.skipped_writes > 0);
        assert_ne!(
            sequences(&notes(), 8, 12, true).sequences,
            a.sequences,
            "another seed"
        );
    }

    fn ok(result: Value) -> StepAnswer {
        StepAnswer {
            status: Status::Healthy,
            response: Some(json!({"jsonrpc": "2.0", "id": 1, "result": result})),
            detail: String::new(),
        }
    }

    fn drive(
        seq: &Sequence,
        mut answer: impl FnMut(&str, &Value) -> StepAnswer,
    ) -> SequenceRun<'_> {
        let mut run = SequenceRun::new(seq);
        while let Next::Call { tool, arguments } = run.next_call() {
            let a = answer(&tool, &arguments);
            run.record(a);
        }
        run
    }

    #[test]
    fn a_delete_that_does_not_delete_breaks_read_after_delete_and_shrinks() {
        let plan = sequences(&notes(), 1, 40, true);
        let seq = plan
            .sequences
            .iter()
            .find(|s| matches!(s.oracle, Oracle::ReadAfterDelete { .. }) && s.steps.len() > 3)
            .expect("a read after delete with extra calls");
        // The planted bug: delete reports success, the note stays.
        let buggy = |tool: &str, args: &Value| match tool {
            "create_note" => ok(json!({"content": [{"type": "text", "text": "{\"id\": \"n1\"}"}]})),
            "get_note" => {
                ok(json!({"content": [{"type": "text", "text": format!("note {}", args["id"])}]}))
            }
            _ => ok(json!({"content": [{"type": "text", "text": "ok"}]})),
        };
        let run = drive(seq, buggy);
        let v = run.verdict().expect("judged").expect("broken");
        assert_eq!(v.rule.code, "F301");
        assert_eq!(run.sent[seq.oracle.check()]["id"], "n1");
        // Shrinking drops the extra calls one at a time down to three.
        let mut current = seq.clone();
        while let Some(smaller) = shrink_sequence(&current).into_iter().find(|c| {
            drive(c, buggy)
                .verdict()
                .ok()
                .flatten()
                .is_some_and(|v| v.rule.code == "F301")
        }) {
            current = smaller;
        }
        assert_eq!(current.summary(), "create_note → delete_note → get_note");
        // A delete that deletes holds.
        let healthy = |tool: &str, _: &Value| match tool {
            "create_note" => ok(json!({"content": [{"type": "text", "text": "{\"id\": \"n1\"}"}]})),
            "get_note" => StepAnswer {
                status: Status::ToolError,
                response: Some(
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "no note n1"}], "isError": true}}),
                ),
                detail: String::new(),
            },
            _ => ok(json!({"content": [{"type": "text", "text": "ok"}]})),
        };
        assert_eq!(drive(&current, healthy).verdict(), Ok(None));
    }

    #[test]
    fn a_missing_key_answered_with_an_internal_error_is_found() {
        let plan = sequences(&notes(), 1, 12, false);
        let seq = plan
            .sequences
            .iter()
            .find(|s| matches!(s.oracle, Oracle::MissingKey { .. }))
            .expect("missing key");
        let run = drive(seq, |_, _| StepAnswer {
            status: Status::ProtocolError,
            response: Some(
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "KeyError"}}),
            ),
            detail: "JSON-RPC error -32603".into(),
        });
        assert_eq!(
            run.verdict().ok().flatten().map(|v| v.rule.code),
            Some("F306")
        );
        // -32602 is a proper refusal of a key that does not exist.
        let run = drive(seq, |_, _| StepAnswer {
            status: Status::ProtocolError,
            response: Some(
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "no such note"}}),
            ),
            detail: "JSON-RPC error -32602".into(),
        });
        assert_eq!(run.verdict(), Ok(None));
    }

    #[test]
    fn keys_are_read_from_text_and_turned_into_the_consumers_type() {
        assert_eq!(text_field("Created note 3 (id: 3).", "id"), Some(json!(3)));
        assert_eq!(text_field("ok, ID=abc-1", "id"), Some(json!("abc-1")));
        assert_eq!(
            text_field("uri: file:///a/b.txt", "uri"),
            Some(json!("file:///a/b.txt"))
        );
        assert_eq!(text_field("no key here", "id"), None);
        assert_eq!(
            text_field("name: x", "name"),
            None,
            "names are not read from text"
        );
        assert_eq!(coerce(json!(7), Some("string")), json!("7"));
        assert_eq!(coerce(json!("7"), Some("integer")), json!(7));
        assert_eq!(coerce(json!("x"), Some("integer")), json!("x"));
    }

    #[test]
    fn a_key_the_producer_did_not_give_is_inconclusive() {
        let plan = sequences(&notes(), 1, 1, true);
        let seq = &plan.sequences[0];
        let run = drive(seq, |_, _| {
            ok(json!({"content": [{"type": "text", "text": "created"}]}))
        });
        assert!(run.verdict().is_err());
    }
}
