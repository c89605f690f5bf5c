//! JSON pointers (RFC 6901) for capture diagnostics.
//!
//! Two sources: the parser's current position, kept as a chain of [`Pointer`] links on
//! the stack (no allocation until a diagnostic is actually written), and a byte offset
//! in the text, for syntax errors, where serde reports only a line and column and the
//! pointer is recovered by re-reading the text up to that point.

/// One link of the parser's position: a key or an index below a parent.
#[derive(Clone, Copy)]
pub(crate) struct Pointer<'p> {
    parent: Option<&'p Pointer<'p>>,
    segment: Segment<'p>,
}

#[derive(Clone, Copy)]
enum Segment<'p> {
    Root,
    Key(&'p str),
    Index(usize),
}

impl<'p> Pointer<'p> {
    /// The document itself.
    pub(crate) const ROOT: Pointer<'static> = Pointer {
        parent: None,
        segment: Segment::Root,
    };

    /// The member `key` of this object.
    pub(crate) fn key(&'p self, key: &'p str) -> Pointer<'p> {
        Pointer {
            parent: Some(self),
            segment: Segment::Key(key),
        }
    }

    /// The element `index` of this array.
    pub(crate) fn index(&'p self, index: usize) -> Pointer<'p> {
        Pointer {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }

    /// Renders the pointer, e.g. `/exchanges/3/request`.
    pub(crate) fn render(&self) -> String {
        let mut segments = Vec::new();
        let mut at = Some(self);
        while let Some(path) = at {
            match path.segment {
                Segment::Root => {}
                Segment::Key(key) => segments.push(escape(key)),
                Segment::Index(index) => segments.push(index.to_string()),
            }
            at = path.parent;
        }
        segments.reverse();
        let mut out = String::new();
        for segment in segments {
            out.push('/');
            out.push_str(&segment);
        }
        out
    }
}

/// Escapes one reference token: `~` as `~0`, `/` as `~1`.
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Where the reader is inside one container.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a member's key or an element.
    Before,
    /// After an object key's colon, before its value.
    AfterColon,
    /// Inside a scalar value (a number or literal, which ends at a delimiter).
    InScalar,
    /// The value is complete.
    Done,
}

enum Frame {
    Array { index: usize, state: State },
    Object { key: Option<String>, state: State },
}

impl Frame {
    fn state_mut(&mut self) -> &mut State {
        match self {
            Frame::Array { state, .. } | Frame::Object { state, .. } => state,
        }
    }
}

/// The JSON pointer of the value being read at byte `offset` of `text`.
///
/// Reads `text` up to `offset` with a minimal tokenizer that tracks only nesting, keys
/// and indices, so it works on text that is malformed from `offset` on. The result
/// names the innermost value that had started, and not yet ended, before `offset`.
pub fn pointer_at_offset(text: &str, offset: usize) -> String {
    pointer_at(text, offset, false)
}

/// As [`pointer_at_offset`]; with `container_fault` the innermost container itself is
/// named even if a member's value was being read (serde's "EOF while parsing an
/// object": the value before the offset was complete, the closing bracket is missing).
pub(crate) fn pointer_at(text: &str, offset: usize, container_fault: bool) -> String {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        let byte = bytes[i];
        // A scalar ends at the first byte that cannot continue it.
        if let Some(frame) = stack.last_mut() {
            let state = frame.state_mut();
            if *state == State::InScalar
                && !(byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'+' | b'-'))
            {
                *state = State::Done;
            }
        }
        match byte {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                match stack.last_mut() {
                    Some(Frame::Object {
                        key,
                        state: State::Before,
                    }) => {
                        let stop = (i + 1).min(bytes.len());
                        let literal = text.get(start..stop).unwrap_or("");
                        let decoded = serde_json::from_str::<String>(literal)
                            .unwrap_or_else(|_| literal.trim_matches('"').to_string());
                        *key = Some(decoded);
                    }
                    Some(frame) => *frame.state_mut() = State::Done,
                    None => {}
                }
                // A string still open at `offset` is the value being read.
                if i >= end
                    && let Some(frame) = stack.last_mut()
                {
                    let state = frame.state_mut();
                    if *state == State::Done {
                        *state = State::InScalar;
                    }
                }
            }
            b':' => {
                if let Some(Frame::Object { state, .. }) = stack.last_mut() {
                    *state = State::AfterColon;
                }
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array { index, state }) => {
                    *index += 1;
                    *state = State::Before;
                }
                Some(Frame::Object { key, state }) => {
                    *key = None;
                    *state = State::Before;
                }
                None => {}
            },
            b'{' => stack.push(Frame::Object {
                key: None,
                state: State::Before,
            }),
            b'[' => stack.push(Frame::Array {
                index: 0,
                state: State::Before,
            }),
            b'}' | b']' => {
                stack.pop();
                if let Some(frame) = stack.last_mut() {
                    *frame.state_mut() = State::Done;
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                if let Some(frame) = stack.last_mut() {
                    let state = frame.state_mut();
                    if matches!(*state, State::Before | State::AfterColon) {
                        *state = State::InScalar;
                    }
                }
            }
        }
        i += 1;
    }
    if container_fault && let Some(frame) = stack.last_mut() {
        *frame.state_mut() = State::Done;
    }
    let mut out = String::new();
    for (depth, frame) in stack.iter().enumerate() {
        let innermost = depth + 1 == stack.len();
        let (segment, state) = match frame {
            Frame::Array { index, state } => (Some(index.to_string()), *state),
            Frame::Object { key, state } => (key.as_deref().map(escape), *state),
        };
        // In the innermost container, name the member only while its value is being
        // read; before it starts or after it ends, the container itself is at fault.
        if innermost && matches!(state, State::Before | State::Done) {
            break;
        }
        let Some(segment) = segment else {
            break;
        };
        out.push('/');
        out.push_str(&segment);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_nested_paths_with_escapes() {
        let root = Pointer::ROOT;
        let a = root.key("exchanges");
        let b = a.index(3);
        let c = b.key("a/b~c");
        assert_eq!(c.render(), "/exchanges/3/a~1b~0c");
        assert_eq!(Pointer::ROOT.render(), "");
    }

    #[test]
    fn finds_the_value_at_an_offset() {
        let text = r#"{"exchanges": [{"request": {"id": 1}}, {"request": tru"#;
        assert_eq!(pointer_at_offset(text, text.len()), "/exchanges/1/request");
        let text = r#"[{"a": 1}, {"b": [1, 2, x"#;
        assert_eq!(pointer_at_offset(text, text.len()), "/1/b/2");
        let text = r#"{"k\"ey": {"#;
        assert_eq!(pointer_at_offset(text, text.len()), "/k\"ey");
        assert_eq!(pointer_at_offset("", 10), "");
        // After a complete value, the error is the container's (a missing `}`).
        let text = r#"{"exchanges": [], "server_label": 5"#;
        assert_eq!(pointer_at(text, text.len(), true), "");
        assert_eq!(pointer_at(text, text.len(), false), "/server_label");
        let text = r#"{"exchanges": [{"request": {}} {"#;
        assert_eq!(pointer_at_offset(text, text.len() - 1), "/exchanges");
        // Inside an unterminated string value.
        let text = r#"{"server_label": "abc"#;
        assert_eq!(pointer_at_offset(text, text.len()), "/server_label");
    }

    #[test]
    fn never_panics_on_odd_offsets() {
        let text = "{\"é\": [\"\\";
        for offset in 0..=text.len() + 2 {
            let _ = pointer_at_offset(text, offset);
        }
    }
}
