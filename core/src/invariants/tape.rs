//! A borrowed, flat JSON representation for the schema family's hot path.
//!
//! Validating every message of a large capture against the MCP schema spent most of
//! its time building (and dropping) a `serde_json::Value` per message: an allocation
//! per string, a hash map per object. jsonschema validates any representation that
//! implements its [`Json`](jsonschema::json::Json) trait, so the schema family reads
//! each message into a [`Tape`] instead: one reusable vector of entries pointing into
//! the message's own text, built without allocating once the vector has grown.
//!
//! The tape answers exactly what a `Value` would. Numbers are read by serde_json's own
//! `Number` parser and strings are decoded by serde_json when they contain escapes, so
//! the validator sees the same values. The few inputs where the two could differ are
//! refused ([`Tape::build`] returns `false`) and validated as a `Value`: an object with
//! a repeated key (a `Value` keeps one), an escaped key, or nesting deeper than
//! serde_json accepts. Only `is_valid` runs on the tape; the error messages of an
//! invalid message still come from the `Value` validator, so findings read the same.

use std::borrow::Cow;

use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object, cmp};
use jsonschema::types::JsonType;
use serde_json::Value;

/// serde_json's nesting limit: deeper messages go the `Value` way, and fail there the
/// same way they always did.
const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    True,
    False,
    Number,
    String,
    Array,
    Object,
}

/// One value of the tape. A container's children follow it; `next` is the index just
/// past its whole subtree, so siblings are reached without walking the subtree.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    kind: Kind,
    /// For strings: whether the literal has escapes (decoding then allocates).
    escaped: bool,
    /// Byte range of the value's text (strings include their quotes).
    start: u32,
    end: u32,
    next: u32,
    /// Members of an object, elements of an array.
    count: u32,
}

/// A message read into entries; both borrowed, the entries from a buffer reused
/// across messages.
#[derive(Clone, Copy)]
pub(crate) struct Tape<'a> {
    text: &'a str,
    entries: &'a [Entry],
}

/// Reusable storage for [`Tape::build`].
#[derive(Default)]
pub(crate) struct TapeBuffer {
    entries: Vec<Entry>,
    stack: Vec<(usize, u32)>,
    keys: Vec<(u32, u32)>,
}

impl<'a> Tape<'a> {
    /// Reads `text` (one JSON value, already known to be valid) into `buffer`. `None`
    /// when the tape must not be used for it (see the module docs).
    pub(crate) fn build(text: &'a str, buffer: &'a mut TapeBuffer) -> Option<Tape<'a>> {
        let TapeBuffer {
            entries,
            stack,
            keys,
        } = buffer;
        entries.clear();
        stack.clear();
        let bytes = text.as_bytes();
        // Offsets are `u32`; captures hold no message of 4 GiB (the parser refuses them).
        u32::try_from(bytes.len()).ok()?;
        let mut pos = 0usize;
        loop {
            while pos < bytes.len()
                && matches!(
                    bytes.get(pos),
                    Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b':')
                )
            {
                pos += 1;
            }
            let Some(&byte) = bytes.get(pos) else {
                break;
            };
            let start = u32::try_from(pos).ok()?;
            match byte {
                b'{' | b'[' => {
                    if stack.len() >= MAX_DEPTH {
                        return None;
                    }
                    let kind = if byte == b'{' {
                        Kind::Object
                    } else {
                        Kind::Array
                    };
                    stack.push((entries.len(), 0));
                    entries.push(Entry {
                        kind,
                        escaped: false,
                        start,
                        end: start,
                        next: 0,
                        count: 0,
                    });
                    pos += 1;
                    continue;
                }
                b'}' | b']' => {
                    let (index, children) = stack.pop()?;
                    let next = u32::try_from(entries.len()).ok()?;
                    let entry = entries.get_mut(index)?;
                    entry.end = start + 1;
                    entry.next = next;
                    let is_object = entry.kind == Kind::Object;
                    entry.count = if is_object { children / 2 } else { children };
                    if is_object && has_repeated_key(text, entries, index, keys)? {
                        return None;
                    }
                    pos += 1;
                }
                b'"' => {
                    let mut end = pos + 1;
                    let mut escaped = false;
                    loop {
                        // Most of a message is string content: jump to the next quote
                        // or backslash.
                        end += memchr::memchr2(b'"', b'\\', bytes.get(end..)?)?;
                        match bytes.get(end)? {
                            b'"' => break,
                            _ => {
                                escaped = true;
                                end += 2;
                            }
                        }
                    }
                    pos = end + 1;
                    // A key with escapes could equal another spelled differently; the
                    // `Value` path sorts that out.
                    let is_key = matches!(stack.last(), Some(&(parent, children))
                        if children % 2 == 0 && entries.get(parent).is_some_and(|p| p.kind == Kind::Object));
                    if escaped && is_key {
                        return None;
                    }
                    push_scalar(
                        entries,
                        Kind::String,
                        escaped,
                        start,
                        u32::try_from(pos).ok()?,
                    )?;
                }
                b't' | b'f' | b'n' => {
                    let (kind, word): (Kind, &[u8]) = match byte {
                        b't' => (Kind::True, b"true"),
                        b'f' => (Kind::False, b"false"),
                        _ => (Kind::Null, b"null"),
                    };
                    if bytes.get(pos..pos + word.len())? != word {
                        return None;
                    }
                    pos += word.len();
                    push_scalar(entries, kind, false, start, u32::try_from(pos).ok()?)?;
                }
                b'-' | b'0'..=b'9' => {
                    let mut end = pos + 1;
                    while matches!(
                        bytes.get(end),
                        Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                    ) {
                        end += 1;
                    }
                    // A number serde_json cannot hold (`1e999`) fails its `Value` parse;
                    // let it fail there rather than answer differently here.
                    serde_json::from_str::<serde_json::Number>(text.get(pos..end)?).ok()?;
                    pos = end;
                    push_scalar(
                        entries,
                        Kind::Number,
                        false,
                        start,
                        u32::try_from(pos).ok()?,
                    )?;
                }
                _ => return None,
            }
            // A value just ended: count it in its container; at the top level, done.
            match stack.last_mut() {
                Some((_, children)) => *children += 1,
                None => break,
            }
        }
        // A container is counted in its parent when it closes, like a scalar when it
        // ends; anything left open means the text was not one complete value.
        if !stack.is_empty() || entries.is_empty() {
            return None;
        }
        Some(Tape { text, entries })
    }

    /// The message itself.
    pub(crate) fn root(&self) -> TapeNode<'_> {
        TapeNode::Entry {
            tape: *self,
            index: 0,
        }
    }

    fn entry(&self, index: u32) -> Option<&'a Entry> {
        self.entries.get(index as usize)
    }

    fn text_of(&self, entry: &Entry) -> &'a str {
        self.text
            .get(entry.start as usize..entry.end as usize)
            .unwrap_or("")
    }
}

fn push_scalar(
    entries: &mut Vec<Entry>,
    kind: Kind,
    escaped: bool,
    start: u32,
    end: u32,
) -> Option<()> {
    let next = u32::try_from(entries.len() + 1).ok()?;
    entries.push(Entry {
        kind,
        escaped,
        start,
        end,
        next,
        count: 0,
    });
    Some(())
}

/// Whether the object at `index` (just closed) repeats a key. Keys are compared as
/// written, which is exact because escaped keys never reach here.
fn has_repeated_key(
    text: &str,
    entries: &[Entry],
    index: usize,
    keys: &mut Vec<(u32, u32)>,
) -> Option<bool> {
    let object = entries.get(index)?;
    if object.count < 2 {
        return Some(false);
    }
    keys.clear();
    let mut at = u32::try_from(index).ok()? + 1;
    for _ in 0..object.count {
        let key = entries.get(at as usize)?;
        keys.push((key.start, key.end));
        let value = entries.get(key.next as usize)?;
        at = value.next;
    }
    let slice = |&(start, end): &(u32, u32)| text.get(start as usize..end as usize).unwrap_or("");
    keys.sort_unstable_by(|a, b| slice(a).cmp(slice(b)));
    Some(keys.windows(2).any(|pair| match pair {
        [a, b] => slice(a) == slice(b),
        _ => false,
    }))
}

/// The jsonschema representation for tapes.
pub(crate) struct TapeJson;

impl Json for TapeJson {
    type Node<'a> = TapeNode<'a>;
    type PreparedKey = String;
    type StringBuffer = ();

    // Objects are scanned, as `serde_json`'s insertion-ordered maps are for small ones.
    const KEYS_PER_LOOKUP: usize = 2;
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(TapeNode<'_>) -> T) -> T {
        f(TapeNode::Str(string))
    }
}

/// A value on a tape, or a free-standing string (property names under validation).
#[derive(Clone, Copy)]
pub(crate) enum TapeNode<'a> {
    Entry { tape: Tape<'a>, index: u32 },
    Str(&'a str),
}

impl<'a> TapeNode<'a> {
    fn entry(&self) -> Option<(Tape<'a>, &'a Entry, u32)> {
        match *self {
            TapeNode::Entry { tape, index } => tape.entry(index).map(|e| (tape, e, index)),
            TapeNode::Str(_) => None,
        }
    }

    fn kind(&self) -> Kind {
        match self.entry() {
            Some((_, entry, _)) => entry.kind,
            None => Kind::String,
        }
    }

    fn string(&self) -> Option<Cow<'a, str>> {
        match *self {
            TapeNode::Str(string) => Some(Cow::Borrowed(string)),
            TapeNode::Entry { tape, index } => {
                let entry = tape.entry(index)?;
                if entry.kind != Kind::String {
                    return None;
                }
                let literal = tape.text_of(entry);
                if entry.escaped {
                    serde_json::from_str::<String>(literal).ok().map(Cow::Owned)
                } else {
                    literal
                        .get(1..literal.len().saturating_sub(1))
                        .map(Cow::Borrowed)
                }
            }
        }
    }
}

/// A number, read by serde_json's own parser and answered by jsonschema's own
/// implementation for `serde_json::Number`, so it behaves exactly as a `Value`'s.
pub(crate) struct TapeNumber(serde_json::Number);

impl JsonNumber for TapeNumber {
    fn as_u64(&self) -> Option<u64> {
        JsonNumber::as_u64(&&self.0)
    }

    fn as_i64(&self) -> Option<i64> {
        JsonNumber::as_i64(&&self.0)
    }

    fn as_f64(&self) -> Option<f64> {
        JsonNumber::as_f64(&&self.0)
    }

    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(JsonNumber::as_str(&&self.0).into_owned())
    }

    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        Cow::Borrowed(&self.0)
    }

    fn is_integer(&self) -> bool {
        JsonNumber::is_integer(&&self.0)
    }

    fn is_written_as_integer(&self) -> bool {
        JsonNumber::is_written_as_integer(&&self.0)
    }
}

impl<'a> Node<'a, TapeJson> for TapeNode<'a> {
    type Object = TapeObject<'a>;
    type Array = TapeArray<'a>;
    type Number = TapeNumber;

    fn as_object(&self) -> Option<TapeObject<'a>> {
        let (tape, entry, index) = self.entry()?;
        (entry.kind == Kind::Object).then_some(TapeObject {
            tape,
            index,
            len: entry.count,
        })
    }

    fn as_array(&self) -> Option<TapeArray<'a>> {
        let (tape, entry, index) = self.entry()?;
        (entry.kind == Kind::Array).then_some(TapeArray {
            tape,
            index,
            len: entry.count,
        })
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        self.string()
    }

    fn as_number(&self) -> Option<TapeNumber> {
        let (tape, entry, _) = self.entry()?;
        if entry.kind != Kind::Number {
            return None;
        }
        serde_json::from_str::<serde_json::Number>(tape.text_of(entry))
            .ok()
            .map(TapeNumber)
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.kind() {
            Kind::True => Some(true),
            Kind::False => Some(false),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    fn is_number(&self) -> bool {
        self.kind() == Kind::Number
    }

    fn json_type(&self) -> JsonType {
        match self.kind() {
            Kind::Null => JsonType::Null,
            Kind::True | Kind::False => JsonType::Boolean,
            Kind::Number => JsonType::Number,
            Kind::String => JsonType::String,
            Kind::Array => JsonType::Array,
            Kind::Object => JsonType::Object,
        }
    }

    fn equals_value(&self, expected: &Value) -> bool {
        // `const` and `enum` (every MCP `method` and `jsonrpc`) compare strings: do
        // that without building a `Value`.
        match (self.kind(), expected) {
            (Kind::String, Value::String(expected)) => {
                self.string().as_deref() == Some(expected.as_str())
            }
            (Kind::String, _) => false,
            (Kind::True, Value::Bool(b)) => *b,
            (Kind::False, Value::Bool(b)) => !*b,
            (Kind::Null, Value::Null) => true,
            _ => cmp::equal(&self.to_value(), expected),
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        let value = match *self {
            TapeNode::Str(string) => Value::String(string.to_owned()),
            TapeNode::Entry { tape, index } => tape
                .entry(index)
                .and_then(|entry| serde_json::from_str(tape.text_of(entry)).ok())
                .unwrap_or(Value::Null),
        };
        Cow::Owned(value)
    }

    fn identity(&self) -> Option<NodeIdentity> {
        match *self {
            TapeNode::Entry { tape, index } => {
                Some(NodeIdentity::tagged(tape.entries.as_ptr() as usize, index))
            }
            TapeNode::Str(_) => None,
        }
    }
}

/// An object on a tape.
pub(crate) struct TapeObject<'a> {
    tape: Tape<'a>,
    index: u32,
    len: u32,
}

impl<'a> TapeObject<'a> {
    fn iter(&self) -> TapeMembers<'a> {
        TapeMembers {
            tape: self.tape,
            at: self.index + 1,
            left: self.len,
        }
    }
}

impl<'a> Object<'a, TapeJson> for TapeObject<'a> {
    type Node = TapeNode<'a>;
    type MemberName = Cow<'a, str>;
    type MembersIter = TapeMembers<'a>;

    fn len(&self) -> usize {
        self.len as usize
    }

    fn get(&self, key: &String) -> Option<TapeNode<'a>> {
        // Keys are unescaped (escaped ones never make a tape), so the literal between
        // the quotes is the key.
        let mut at = self.index + 1;
        for _ in 0..self.len {
            let name = self.tape.entry(at)?;
            let literal = self.tape.text_of(name);
            let value = name.next;
            if literal.get(1..literal.len().saturating_sub(1)) == Some(key.as_str()) {
                return Some(TapeNode::Entry {
                    tape: self.tape,
                    index: value,
                });
            }
            at = self.tape.entry(value)?.next;
        }
        None
    }

    fn members(&self) -> TapeMembers<'a> {
        self.iter()
    }
}

/// The members of an object on a tape, in order.
pub(crate) struct TapeMembers<'a> {
    tape: Tape<'a>,
    at: u32,
    left: u32,
}

impl<'a> Iterator for TapeMembers<'a> {
    type Item = (Cow<'a, str>, TapeNode<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key_index = self.at;
        let value = self.tape.entry(key_index)?.next;
        self.at = self.tape.entry(value)?.next;
        let key = TapeNode::Entry {
            tape: self.tape,
            index: key_index,
        }
        .string()?;
        Some((
            key,
            TapeNode::Entry {
                tape: self.tape,
                index: value,
            },
        ))
    }
}

/// An array on a tape.
pub(crate) struct TapeArray<'a> {
    tape: Tape<'a>,
    index: u32,
    len: u32,
}

impl<'a> Array<'a, TapeJson> for TapeArray<'a> {
    type Node = TapeNode<'a>;
    type ElementsIter = TapeElements<'a>;

    fn len(&self) -> usize {
        self.len as usize
    }

    fn elements(&self) -> TapeElements<'a> {
        TapeElements {
            tape: self.tape,
            at: self.index + 1,
            left: self.len,
        }
    }
}

/// The elements of an array on a tape, in order.
pub(crate) struct TapeElements<'a> {
    tape: Tape<'a>,
    at: u32,
    left: u32,
}

impl<'a> Iterator for TapeElements<'a> {
    type Item = TapeNode<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let index = self.at;
        self.at = self.tape.entry(index)?.next;
        Some(TapeNode::Entry {
            tape: self.tape,
            index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tape_of(text: &str, buffer: &mut TapeBuffer) -> bool {
        Tape::build(text, buffer).is_some()
    }

    #[test]
    fn satisfies_the_representation_contract() {
        let text = jsonschema::json::conformance::document().to_string();
        let mut buffer = TapeBuffer::default();
        let tape = Tape::build(&text, &mut buffer).expect("the conformance document tapes");
        jsonschema::json::conformance::assert_conformance::<TapeJson>(&tape.root());
    }

    #[test]
    fn refuses_what_a_value_would_read_differently() {
        let mut buffer = TapeBuffer::default();
        assert!(tape_of(
            r#"{"a": 1, "b": [true, null, "x\n"]}"#,
            &mut buffer
        ));
        assert!(!tape_of(r#"{"a": 1, "a": 2}"#, &mut buffer), "repeated key");
        assert!(!tape_of(r#"{"\u0061": 1}"#, &mut buffer), "escaped key");
        assert!(!tape_of(r#"[1e999]"#, &mut buffer), "number out of range");
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(!tape_of(&deep, &mut buffer), "deeper than serde_json reads");
        assert!(!tape_of("[1, 2", &mut buffer), "incomplete");
        assert!(!tape_of("", &mut buffer), "empty");
    }

    #[test]
    fn reads_members_elements_and_scalars() {
        let mut buffer = TapeBuffer::default();
        let text = r#"{"s": "a\"b", "n": -1.5e2, "arr": [1, {"k": false}], "o": {}, "z": null}"#;
        let tape = Tape::build(text, &mut buffer).expect("tapes");
        let root = tape.root();
        let object = root.as_object().expect("object");
        assert_eq!(Object::len(&object), 5);
        let names: Vec<String> = object.members().map(|(k, _)| k.into_owned()).collect();
        assert_eq!(names, ["s", "n", "arr", "o", "z"]);
        let get = |k: &str| object.get(&k.to_string()).expect("member");
        assert_eq!(get("s").as_string().as_deref(), Some("a\"b"));
        assert_eq!(get("n").as_number().and_then(|n| n.as_f64()), Some(-150.0));
        let arr = get("arr").as_array().expect("array");
        let kinds: Vec<JsonType> = arr.elements().map(|e| e.json_type()).collect();
        assert_eq!(kinds, [JsonType::Number, JsonType::Object]);
        assert!(get("z").is_null());
        assert_eq!(get("o").as_object().map(|o| Object::len(&o)), Some(0));
        assert!(object.get(&"missing".to_string()).is_none());
        assert_eq!(
            root.to_value().into_owned(),
            serde_json::from_str::<Value>(text).unwrap_or(Value::Null)
        );
        assert!(get("s").equals_value(&Value::String("a\"b".into())));
        assert!(!get("s").equals_value(&Value::Bool(true)));
    }
}
