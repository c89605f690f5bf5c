//! The notes of `--fault notes` and `--fault notes-delete-keeps`: five tools
//! over one in-memory store of notes per process, for `fuzz --stateful` to
//! chain (create → read, update, delete, list). With `notes-delete-keeps`,
//! `delete_note` reports success and keeps the note: the stateful bug a
//! read after the delete shows.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::tools::{Args, ToolError, tool};

/// One note.
#[derive(Clone, Debug)]
struct Note {
    title: String,
    body: String,
}

/// The store: notes by id (`n1`, `n2`, … in creation order) and the next
/// number.
#[derive(Default)]
struct Store {
    notes: BTreeMap<u64, Note>,
    next: u64,
}

static STORE: Mutex<Option<Store>> = Mutex::new(None);

fn with_store<T>(f: impl FnOnce(&mut Store) -> T) -> T {
    let mut guard = STORE.lock().unwrap_or_else(PoisonError::into_inner);
    f(guard.get_or_insert_with(Store::default))
}

/// The tool names.
pub const TOOLS: [&str; 5] = [
    "create_note",
    "get_note",
    "update_note",
    "delete_note",
    "list_notes",
];

/// Whether `name` is one of the notes tools.
pub fn is_tool(name: &str) -> bool {
    TOOLS.contains(&name)
}

fn annotated(mut t: Tool, read_only: bool, destructive: bool) -> Tool {
    t.annotations = Some(
        ToolAnnotations::new()
            .read_only(read_only)
            .destructive(destructive),
    );
    t
}

fn note_schema() -> serde_json::Map<String, Value> {
    match json!({"type": "object",
        "properties": {"id": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}},
        "required": ["id", "title", "body"]})
    {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// The `tools/list` entries.
pub fn tools() -> Vec<Tool> {
    let id =
        json!({"id": {"type": "string", "description": "the note's id, as create_note gave it"}});
    let mut create = annotated(
        tool(
            "create_note",
            "Creates a note and answers with it, its id included.",
            json!({
                "title": {"type": "string", "description": "the note's title"},
                "body": {"type": "string", "description": "the note's text"}
            }),
            &["title"],
        ),
        false,
        false,
    );
    create.output_schema = Some(std::sync::Arc::new(note_schema()));
    let mut get = annotated(
        tool(
            "get_note",
            "Answers with the note of this id.",
            id.clone(),
            &["id"],
        ),
        true,
        false,
    );
    get.output_schema = Some(std::sync::Arc::new(note_schema()));
    let update = annotated(
        tool(
            "update_note",
            "Replaces the body of the note of this id.",
            json!({
                "id": {"type": "string", "description": "the note's id"},
                "body": {"type": "string", "description": "the new text"}
            }),
            &["id", "body"],
        ),
        false,
        false,
    );
    let delete = annotated(
        tool("delete_note", "Deletes the note of this id.", id, &["id"]),
        false,
        true,
    );
    let list = annotated(
        tool("list_notes", "Lists every note.", json!({}), &[]),
        true,
        false,
    );
    vec![create, get, update, delete, list]
}

fn note_json(id: u64, n: &Note) -> Value {
    json!({"id": format!("n{id}"), "title": n.title, "body": n.body})
}

fn missing(id: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("no note {id}"))])
}

fn number(id: &str) -> Option<u64> {
    id.strip_prefix('n')?.parse().ok()
}

/// Runs one notes tool; `keeps_deleted` is the planted bug.
pub fn call(
    name: &str,
    args: Option<&rmcp::model::JsonObject>,
    keeps_deleted: bool,
) -> Result<CallToolResult, ToolError> {
    match name {
        "create_note" => {
            let a = Args::new(args, &["title", "body"])?;
            let note = Note {
                title: a.string("title", None)?,
                body: a.string("body", Some(""))?,
            };
            Ok(with_store(|s| {
                s.next += 1;
                let id = s.next;
                let out = note_json(id, &note);
                s.notes.insert(id, note);
                CallToolResult::structured(out)
            }))
        }
        "get_note" => {
            let a = Args::new(args, &["id"])?;
            let id = a.string("id", None)?;
            Ok(with_store(|s| {
                match number(&id).and_then(|n| s.notes.get(&n).map(|note| (n, note))) {
                    Some((n, note)) => CallToolResult::structured(note_json(n, note)),
                    None => missing(&id),
                }
            }))
        }
        "update_note" => {
            let a = Args::new(args, &["id", "body"])?;
            let id = a.string("id", None)?;
            let body = a.string("body", None)?;
            Ok(with_store(|s| {
                match number(&id).and_then(|n| s.notes.get_mut(&n).map(|note| (n, note))) {
                    Some((n, note)) => {
                        note.body = body;
                        CallToolResult::success(vec![ContentBlock::text(
                            note_json(n, note).to_string(),
                        )])
                    }
                    None => missing(&id),
                }
            }))
        }
        "delete_note" => {
            let a = Args::new(args, &["id"])?;
            let id = a.string("id", None)?;
            Ok(with_store(|s| {
                let n = number(&id).filter(|n| s.notes.contains_key(n));
                match n {
                    Some(n) => {
                        if !keeps_deleted {
                            s.notes.remove(&n);
                        }
                        CallToolResult::success(vec![ContentBlock::text(format!(
                            "deleted note {id}"
                        ))])
                    }
                    None => missing(&id),
                }
            }))
        }
        "list_notes" => {
            Args::new(args, &[])?;
            Ok(with_store(|s| {
                let notes: Vec<Value> = s
                    .notes
                    .iter()
                    .map(|(n, note)| note_json(*n, note))
                    .collect();
                CallToolResult::success(vec![ContentBlock::text(
                    json!({"notes": notes}).to_string(),
                )])
            }))
        }
        other => Err(ToolError::NotNotes(other.to_owned())),
    }
}
