//! Reading capture text into the borrowed model, with diagnostics instead of failure.
//!
//! The walk is a set of serde seeds over one `serde_json::Deserializer`, so the text is
//! scanned once for structure. Containers the model descends into (the capture, a
//! session, the exchange list, an exchange…) are visited by seeds that accept a value
//! of any JSON type: a wrong type becomes a diagnostic with a JSON pointer and the walk
//! goes on, so one run reports every problem. Leaves (messages, capabilities) are taken
//! as `&RawValue` slices of the input. Only a syntax error stops the walk; its pointer
//! is recovered from the byte offset.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::pointer::{Pointer, pointer_at};
use super::{
    Capture, CaptureDiagnostic, Exchange, ExchangeMore, Fields, Message, MethodKind, RawLine,
    ServerRequest, Session, Side, Span, Unmatched,
};

/// Diagnostics beyond this many are counted, not kept: a capture that is wrong
/// everywhere is wrong the same way many times.
const MAX_DIAGNOSTICS: usize = 200;

/// Shared state of one parse: the text (for offsets) and the diagnostics so far.
struct ParseCx<'a> {
    text: &'a str,
    diagnostics: RefCell<Vec<CaptureDiagnostic>>,
    dropped: Cell<usize>,
    line_starts: OnceCell<Vec<usize>>,
}

impl<'a> ParseCx<'a> {
    fn new(text: &'a str) -> Self {
        ParseCx {
            text,
            diagnostics: RefCell::new(Vec::new()),
            dropped: Cell::new(0),
            line_starts: OnceCell::new(),
        }
    }

    /// Records a problem at `path`; `at` is the offending slice of the text, if known.
    fn report(&self, path: &Pointer<'_>, at: Option<&str>, message: impl Into<String>) {
        let mut diagnostics = self.diagnostics.borrow_mut();
        if diagnostics.len() >= MAX_DIAGNOSTICS {
            self.dropped.set(self.dropped.get() + 1);
            return;
        }
        let (line, column) = match at.and_then(|slice| self.offset_of(slice)) {
            Some(offset) => {
                let (line, column) = self.line_column(offset);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        diagnostics.push(CaptureDiagnostic {
            pointer: path.render(),
            line,
            column,
            message: message.into(),
        });
    }

    /// The byte offset of `slice` in the text, when it is a slice of it.
    fn offset_of(&self, slice: &str) -> Option<usize> {
        let start = self.text.as_ptr() as usize;
        let at = slice.as_ptr() as usize;
        let offset = at.checked_sub(start)?;
        (offset <= self.text.len()).then_some(offset)
    }

    /// 1-based line and byte column of `offset`.
    fn line_column(&self, offset: usize) -> (usize, usize) {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(
                    self.text
                        .bytes()
                        .enumerate()
                        .filter(|&(_, b)| b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .collect()
        });
        let line = starts.partition_point(|&start| start <= offset);
        let line_start = line
            .checked_sub(1)
            .and_then(|i| starts.get(i))
            .copied()
            .unwrap_or(0);
        (line.max(1), offset - line_start + 1)
    }

    fn finish(self) -> Vec<CaptureDiagnostic> {
        let dropped = self.dropped.get();
        let mut diagnostics = self.diagnostics.into_inner();
        if dropped > 0 {
            diagnostics.push(CaptureDiagnostic {
                pointer: String::new(),
                line: None,
                column: None,
                message: format!("{dropped} more problems not shown"),
            });
        }
        diagnostics
    }
}

pub(super) fn parse(text: &str) -> Result<Capture<'_>, Vec<CaptureDiagnostic>> {
    let ctx = ParseCx::new(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let outcome = Tolerant(CaptureSeed { ctx: &ctx })
        .deserialize(&mut de)
        .and_then(|value| de.end().map(|()| value));
    match outcome {
        Ok(Ok(capture)) => {
            let diagnostics = ctx.finish();
            if diagnostics.is_empty() {
                Ok(capture)
            } else {
                Err(diagnostics)
            }
        }
        Ok(Err(found)) => {
            ctx.report(
                &Pointer::ROOT,
                None,
                format!(
                    "a capture is a session object or an array of session objects, found {found}"
                ),
            );
            Err(ctx.finish())
        }
        Err(error) => {
            // A syntax error (or serde_json's nesting limit) ends the walk; what was
            // reported before it is still worth showing, after it.
            let line = error.line();
            let column = error.column();
            let offset = offset_of_line_column(text, line, column);
            let message = error.to_string();
            let container_fault = message.contains("while parsing an object")
                || message.contains("while parsing a list");
            let mut diagnostics = vec![CaptureDiagnostic {
                pointer: pointer_at(text, offset, container_fault),
                line: (line > 0).then_some(line),
                column: (line > 0).then_some(column),
                message: format!("not valid JSON: {}", strip_position(&message)),
            }];
            diagnostics.extend(ctx.finish());
            Err(diagnostics)
        }
    }
}

/// serde_json appends " at line L column C" to its messages; the diagnostic carries
/// those as fields.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => message,
    }
}

fn offset_of_line_column(text: &str, line: usize, column: usize) -> usize {
    if line == 0 {
        return text.len();
    }
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(at) => start += at + 1,
            None => return text.len(),
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// The decoded value of a JSON string literal, borrowed when it has no escapes.
pub(crate) fn borrowed_str(literal: &str) -> Option<Cow<'_, str>> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(literal).ok().map(Cow::Owned)
}

/// A string that borrows from the input when it can (serde's own `Cow` impl never
/// borrows).
pub(crate) struct Str<'a>(pub(crate) Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Str<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                v: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(StrVisitor)
    }
}

/// The JSON type of a value that was not what a seed wanted, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found(&'static str);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

const NULL: Found = Found("null");

/// A seed for a container (array or object) that must not fail on the other JSON
/// types: it reports what it found instead, and drains what it did not want.
trait ContainerSeed<'de>: Sized {
    type Value;

    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<Result<Self::Value, Found>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err(Found("an array")))
    }

    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<Result<Self::Value, Found>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Err(Found("an object")))
    }
}

struct Tolerant<S>(S);

impl<'de, S: ContainerSeed<'de>> DeserializeSeed<'de> for Tolerant<S> {
    type Value = Result<S::Value, Found>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, S: ContainerSeed<'de>> Visitor<'de> for Tolerant<S> {
    type Value = Result<S::Value, Found>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err(Found("a boolean")))
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err(Found("a number")))
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err(Found("a number")))
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err(Found("a number")))
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err(Found("a string")))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err(NULL))
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err(NULL))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map)
    }
}

/// Whether a value's JSON text is `null`.
pub(crate) fn is_null(raw: &str) -> bool {
    raw.trim() == "null"
}

/// The first byte of a value's JSON text, which tells its type.
pub(crate) fn first_byte(raw: &str) -> u8 {
    raw.trim_start().as_bytes().first().copied().unwrap_or(b' ')
}

/// The JSON type of a value's text, for messages ("an object", "null" …).
pub(crate) fn json_type(raw: &str) -> &'static str {
    match first_byte(raw) {
        b'{' => "an object",
        b'[' => "an array",
        b'"' => "a string",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "a number",
    }
}

/// Reads an optional string field; `null` is absent.
fn opt_string<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<Cow<'a, str>> {
    if is_null(raw.get()) {
        return None;
    }
    let decoded = (first_byte(raw.get()) == b'"')
        .then(|| borrowed_str(raw.get().trim()))
        .flatten();
    if decoded.is_none() {
        ctx.report(
            path,
            Some(raw.get()),
            format!("must be a string, found {}", json_type(raw.get())),
        );
    }
    decoded
}

/// Reads a required string field.
fn req_string<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<Cow<'a, str>> {
    if is_null(raw.get()) {
        ctx.report(path, Some(raw.get()), "must be a string, found null");
        return None;
    }
    opt_string(ctx, path, raw)
}

/// Reads an optional object field, kept verbatim; `null` is absent.
fn opt_object<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<&'a RawValue> {
    match first_byte(raw.get()) {
        b'{' => Some(raw),
        b'n' => None,
        _ => {
            ctx.report(
                path,
                Some(raw.get()),
                format!("must be an object or null, found {}", json_type(raw.get())),
            );
            None
        }
    }
}

/// Whether `text` is plainly an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional
/// fraction, then `Z` or `±HH:MM`, with a day no later than the 28th. Every timestamp a
/// recorder writes looks like this, and every such string is valid, so chrono's full
/// parser is only needed for the rest (it decides those).
fn is_plain_rfc3339(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let number = |range: std::ops::Range<usize>| {
        b.get(range)
            .map(|d| d.iter().fold(0u32, |n, c| n * 10 + u32::from(c - b'0')))
            .unwrap_or(u32::MAX)
    };
    let shape = b.len() >= 20
        && digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && b.get(10) == Some(&b'T')
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19);
    if !shape {
        return false;
    }
    let in_range = (1..=12).contains(&number(5..7))
        && (1..=28).contains(&number(8..10))
        && number(11..13) < 24
        && number(14..16) < 60
        && number(17..19) < 60;
    let mut rest = b.get(19..).unwrap_or(&[]);
    if let [b'.', tail @ ..] = rest {
        let fraction = tail.iter().take_while(|c| c.is_ascii_digit()).count();
        if fraction == 0 {
            return false;
        }
        rest = tail.get(fraction..).unwrap_or(&[]);
    }
    let zone = match rest {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit())
                && u32::from(h1 - b'0') * 10 + u32::from(h2 - b'0') < 24
                && u32::from(m1 - b'0') * 10 + u32::from(m2 - b'0') < 60
        }
        _ => false,
    };
    in_range && zone
}

/// Reads an optional RFC 3339 timestamp; `null` is absent.
fn opt_time<'a>(ctx: &ParseCx<'a>, path: &Pointer<'_>, raw: &'a RawValue) -> Option<&'a str> {
    let text = opt_string(ctx, path, raw)?;
    match text {
        Cow::Borrowed(text)
            if is_plain_rfc3339(text) || chrono::DateTime::parse_from_rfc3339(text).is_ok() =>
        {
            Some(text)
        }
        _ => {
            ctx.report(
                path,
                Some(raw.get()),
                format!("must be an RFC 3339 date-time, found {text:?}"),
            );
            None
        }
    }
}

/// Reads an optional non-negative integer; `null` is absent.
fn opt_index(ctx: &ParseCx<'_>, path: &Pointer<'_>, raw: &RawValue) -> Option<usize> {
    if is_null(raw.get()) {
        return None;
    }
    match raw.get().trim().parse::<usize>() {
        Ok(n) => Some(n),
        Err(_) => {
            ctx.report(
                path,
                Some(raw.get()),
                format!("must be a non-negative integer, found {}", raw.get().trim()),
            );
            None
        }
    }
}

/// Reads an optional object of header names and string values; `null` is absent.
/// Names are kept lowercase, as HTTP compares them.
fn opt_headers<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<Vec<(Cow<'a, str>, Cow<'a, str>)>> {
    let raw = opt_object(ctx, path, raw)?;
    let members = object_members(ctx, path, raw, "request_headers")?;
    let mut headers = Vec::with_capacity(members.len());
    for (name, value) in members {
        let at = path.key(&name);
        if let Some(value) = req_string(ctx, &at, value) {
            let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
                Cow::Owned(name.to_ascii_lowercase())
            } else {
                name
            };
            headers.push((name, value));
        }
    }
    Some(headers)
}

/// Reads an optional HTTP status code, an integer from 100 to 599; `null` is absent.
fn opt_status(ctx: &ParseCx<'_>, path: &Pointer<'_>, raw: &RawValue) -> Option<u16> {
    if is_null(raw.get()) {
        return None;
    }
    match raw.get().trim().parse::<u16>() {
        Ok(n) if (100..=599).contains(&n) => Some(n),
        _ => {
            ctx.report(
                path,
                Some(raw.get()),
                format!(
                    "must be an HTTP status code (an integer from 100 to 599), found {}",
                    raw.get().trim()
                ),
            );
            None
        }
    }
}

/// Reads a message slot; `null` is absent.
fn opt_message<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<Message<'a>> {
    if is_null(raw.get()) {
        return None;
    }
    if u32::try_from(raw.get().len()).is_err() {
        ctx.report(
            path,
            Some(raw.get()),
            "a message of 4 GiB or more cannot be checked",
        );
        return None;
    }
    Some(message_from_raw(raw))
}

/// Reads a required message slot.
fn req_message<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<Message<'a>> {
    if is_null(raw.get()) {
        ctx.report(path, Some(raw.get()), "must be a message, found null");
        return None;
    }
    opt_message(ctx, path, raw)
}

/// Keeps track of which known keys an object has had, to report duplicates.
#[derive(Default)]
struct Seen(Vec<&'static str>);

impl Seen {
    fn check(&mut self, ctx: &ParseCx<'_>, path: &Pointer<'_>, key: &'static str) {
        if self.0.contains(&key) {
            ctx.report(
                path,
                None,
                format!("duplicate key `{key}`; the last one is used"),
            );
        } else {
            self.0.push(key);
        }
    }
}

/// Calls `element` for each element of an array field, reporting a wrong type.
struct EachElement<'p, F> {
    path: &'p Pointer<'p>,
    element: F,
}

impl<'de, F> ContainerSeed<'de> for EachElement<'_, F>
where
    F: FnMut(&Pointer<'_>, &'de RawValue),
{
    type Value = ();

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Result<(), Found>, A::Error> {
        let mut index = 0;
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            (self.element)(&self.path.index(index), raw);
            index += 1;
        }
        Ok(Ok(()))
    }
}

/// Walks an optional array field element by element (`null` is an empty list).
fn each_element<'de, M, F>(
    ctx: &ParseCx<'de>,
    path: &Pointer<'_>,
    map: &mut M,
    element: F,
) -> Result<(), M::Error>
where
    M: MapAccess<'de>,
    F: FnMut(&Pointer<'_>, &'de RawValue),
{
    match map.next_value_seed(Tolerant(EachElement { path, element }))? {
        Ok(()) | Err(NULL) => {}
        Err(found) => ctx.report(path, None, format!("must be an array, found {found}")),
    }
    Ok(())
}

struct CaptureSeed<'c, 'a> {
    ctx: &'c ParseCx<'a>,
}

impl<'de> ContainerSeed<'de> for CaptureSeed<'_, 'de> {
    type Value = Capture<'de>;

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Result<Capture<'de>, Found>, A::Error> {
        let session = SessionSeed {
            ctx: self.ctx,
            path: &Pointer::ROOT,
        }
        .visit_map(map)?;
        Ok(session.map(|session| Capture {
            sessions: vec![session],
            is_array: false,
        }))
    }

    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<Result<Capture<'de>, Found>, A::Error> {
        let mut sessions = Vec::new();
        let mut index = 0;
        loop {
            let path = Pointer::ROOT.index(index);
            let seed = Tolerant(SessionSeed {
                ctx: self.ctx,
                path: &path,
            });
            match seq.next_element_seed(seed)? {
                None => break,
                Some(Ok(session)) => sessions.push(session),
                Some(Err(found)) => {
                    self.ctx.report(
                        &path,
                        None,
                        format!("a session must be an object, found {found}"),
                    );
                }
            }
            index += 1;
        }
        if sessions.is_empty() && index == 0 {
            self.ctx
                .report(&Pointer::ROOT, None, "the capture holds no sessions");
        }
        Ok(Ok(Capture {
            sessions,
            is_array: true,
        }))
    }
}

struct SessionSeed<'c, 'a, 'p> {
    ctx: &'c ParseCx<'a>,
    path: &'p Pointer<'p>,
}

impl<'de> ContainerSeed<'de> for SessionSeed<'_, 'de, '_> {
    type Value = Session<'de>;

    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<Result<Session<'de>, Found>, A::Error> {
        let ctx = self.ctx;
        let mut session = Session::default();
        let mut seen = Seen::default();
        let mut has_exchanges = false;
        while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
            let path = self.path.key(&key);
            match key.as_ref() {
                "server_label" => {
                    seen.check(ctx, &path, "server_label");
                    session.server_label = opt_string(ctx, &path, map.next_value()?);
                }
                "server_capabilities" => {
                    seen.check(ctx, &path, "server_capabilities");
                    session.server_capabilities = opt_object(ctx, &path, map.next_value()?);
                }
                "client_capabilities" => {
                    seen.check(ctx, &path, "client_capabilities");
                    session.client_capabilities = opt_object(ctx, &path, map.next_value()?);
                }
                "protocol_version" => {
                    seen.check(ctx, &path, "protocol_version");
                    session.protocol_version = opt_string(ctx, &path, map.next_value()?);
                }
                "transport" => {
                    seen.check(ctx, &path, "transport");
                    session.transport = opt_string(ctx, &path, map.next_value()?);
                }
                "shared_transport" => {
                    seen.check(ctx, &path, "shared_transport");
                    session.shared_transport = opt_string(ctx, &path, map.next_value()?);
                }
                "exchanges" => {
                    seen.check(ctx, &path, "exchanges");
                    has_exchanges = true;
                    match map.next_value_seed(Tolerant(ExchangesSeed { ctx, path: &path }))? {
                        Ok(exchanges) => session.exchanges = exchanges,
                        Err(found) => ctx.report(
                            &path,
                            None,
                            format!("must be an array of exchanges, found {found}"),
                        ),
                    }
                }
                "unmatched" => {
                    seen.check(ctx, &path, "unmatched");
                    let mut unmatched = Vec::new();
                    each_element(ctx, &path, &mut map, |at, raw| {
                        if let Some(entry) = unmatched_from_raw(ctx, at, raw) {
                            unmatched.push(entry);
                        }
                    })?;
                    session.unmatched = unmatched;
                }
                "raw" => {
                    seen.check(ctx, &path, "raw");
                    let mut lines = Vec::new();
                    each_element(ctx, &path, &mut map, |at, raw| {
                        if let Some(line) = raw_line_from_raw(ctx, at, raw, true) {
                            lines.push(line);
                        }
                    })?;
                    session.raw = lines;
                }
                _ => {
                    let value = map.next_value::<&'de RawValue>()?;
                    session.extra.push((key, value));
                }
            }
        }
        if !has_exchanges {
            ctx.report(
                self.path,
                None,
                "a session needs `exchanges` (an array of {request, response} objects)",
            );
        }
        Ok(Ok(session))
    }
}

struct ExchangesSeed<'c, 'a, 'p> {
    ctx: &'c ParseCx<'a>,
    path: &'p Pointer<'p>,
}

impl<'de> ContainerSeed<'de> for ExchangesSeed<'_, 'de, '_> {
    type Value = Vec<Exchange<'de>>;

    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<Result<Self::Value, Found>, A::Error> {
        let mut exchanges = Vec::new();
        let mut index = 0;
        loop {
            let path = self.path.index(index);
            let seed = Tolerant(ExchangeSeed {
                ctx: self.ctx,
                path: &path,
            });
            match seq.next_element_seed(seed)? {
                None => break,
                Some(Ok(Some(exchange))) => exchanges.push(exchange),
                // Already reported; the capture will be rejected as a whole.
                Some(Ok(None)) => {}
                Some(Err(found)) => {
                    self.ctx.report(
                        &path,
                        None,
                        format!("an exchange must be an object, found {found}"),
                    );
                }
            }
            index += 1;
        }
        Ok(Ok(exchanges))
    }
}

struct ExchangeSeed<'c, 'a, 'p> {
    ctx: &'c ParseCx<'a>,
    path: &'p Pointer<'p>,
}

impl<'de> ContainerSeed<'de> for ExchangeSeed<'_, 'de, '_> {
    type Value = Option<Exchange<'de>>;

    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<Result<Self::Value, Found>, A::Error> {
        let ctx = self.ctx;
        let mut request = None;
        let mut response = None;
        let mut request_time = None;
        let mut response_time = None;
        let mut http_status = None;
        let mut more = ExchangeMore::default();
        let mut seen = Seen::default();
        let mut times_seen = false;
        while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
            let path = self.path.key(&key);
            match key.as_ref() {
                "request" => {
                    seen.check(ctx, &path, "request");
                    request = req_message(ctx, &path, map.next_value()?);
                }
                "response" => {
                    seen.check(ctx, &path, "response");
                    response = opt_message(ctx, &path, map.next_value()?);
                }
                "request_time" => {
                    seen.check(ctx, &path, "request_time");
                    request_time = opt_time(ctx, &path, map.next_value()?);
                }
                "response_time" => {
                    seen.check(ctx, &path, "response_time");
                    response_time = opt_time(ctx, &path, map.next_value()?);
                }
                "http_status" => {
                    seen.check(ctx, &path, "http_status");
                    http_status = opt_status(ctx, &path, map.next_value()?);
                }
                "protocol_version_header" => {
                    seen.check(ctx, &path, "protocol_version_header");
                    more.protocol_version_header = opt_string(ctx, &path, map.next_value()?);
                }
                "request_headers" => {
                    seen.check(ctx, &path, "request_headers");
                    more.request_headers = opt_headers(ctx, &path, map.next_value()?);
                }
                "client_gave_up" => {
                    seen.check(ctx, &path, "client_gave_up");
                    more.client_gave_up = opt_string(ctx, &path, map.next_value()?);
                }
                "notifications" => {
                    seen.check(ctx, &path, "notifications");
                    let mut list = Vec::new();
                    each_element(ctx, &path, &mut map, |at, raw| {
                        if let Some(message) = req_message(ctx, at, raw) {
                            list.push(message);
                        }
                    })?;
                    more.notifications = list;
                }
                "notification_times" => {
                    seen.check(ctx, &path, "notification_times");
                    times_seen = true;
                    let mut list = Vec::new();
                    each_element(ctx, &path, &mut map, |at, raw| {
                        if let Some(time) = opt_time(ctx, at, raw) {
                            list.push(time);
                        } else if is_null(raw.get()) {
                            ctx.report(
                                at,
                                Some(raw.get()),
                                "must be an RFC 3339 date-time, found null",
                            );
                        }
                    })?;
                    more.notification_times = list;
                }
                "server_requests" => {
                    seen.check(ctx, &path, "server_requests");
                    let mut list = Vec::new();
                    each_element(ctx, &path, &mut map, |at, raw| {
                        if let Some(entry) = server_request_from_raw(ctx, at, raw) {
                            list.push(entry);
                        }
                    })?;
                    more.server_requests = list;
                }
                "raw" => {
                    seen.check(ctx, &path, "raw");
                    let mut list = Vec::new();
                    each_element(ctx, &path, &mut map, |at, raw| {
                        if let Some(line) = raw_line_from_raw(ctx, at, raw, false) {
                            list.push(line);
                        }
                    })?;
                    more.raw = list;
                }
                _ => {
                    let value = map.next_value::<&'de RawValue>()?;
                    more.extra.push((key, value));
                }
            }
        }
        if times_seen && more.notification_times.len() != more.notifications.len() {
            let path = self.path.key("notification_times");
            ctx.report(
                &path,
                None,
                format!(
                    "has {} timestamps for {} notifications; give one per notification",
                    more.notification_times.len(),
                    more.notifications.len()
                ),
            );
        }
        let Some(request) = request else {
            if !seen.0.contains(&"request") {
                ctx.report(self.path, None, "an exchange needs a `request`");
            }
            return Ok(Ok(None));
        };
        let is_empty = more.notifications.is_empty()
            && more.notification_times.is_empty()
            && more.server_requests.is_empty()
            && more.raw.is_empty()
            && more.protocol_version_header.is_none()
            && more.request_headers.is_none()
            && more.client_gave_up.is_none()
            && more.extra.is_empty();
        Ok(Ok(Some(Exchange {
            request,
            response,
            request_time,
            response_time,
            http_status,
            more: (!is_empty).then(|| Box::new(more)),
        })))
    }
}

/// Iterates the members of an object given as a raw value, reporting a wrong type.
fn object_members<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
    what: &str,
) -> Option<Vec<(Cow<'a, str>, &'a RawValue)>> {
    if first_byte(raw.get()) != b'{' {
        ctx.report(
            path,
            Some(raw.get()),
            format!("{what} must be an object, found {}", json_type(raw.get())),
        );
        return None;
    }
    match serde_json::from_str::<Members<'a>>(raw.get()) {
        Ok(Members(members)) => Some(members),
        Err(error) => {
            ctx.report(
                path,
                Some(raw.get()),
                format!("{what} could not be read: {error}"),
            );
            None
        }
    }
}

/// The members of the JSON object `text`, in order, values verbatim (duplicates
/// kept); `None` when `text` is not an object.
pub(crate) fn raw_members(text: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<Members<'_>>(text)
        .ok()
        .map(|Members(members)| members.into_iter().map(|(k, v)| (k, v.get())).collect())
}

/// All members of an object, in order, values verbatim (duplicates kept).
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                    members.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

fn server_request_from_raw<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<ServerRequest<'a>> {
    let members = object_members(ctx, path, raw, "a server request entry")?;
    let mut request = None;
    let mut response = None;
    let mut request_time = None;
    let mut response_time = None;
    let mut extra = Fields::new();
    let mut seen = Seen::default();
    for (key, value) in members {
        let at = path.key(&key);
        match key.as_ref() {
            "request" => {
                seen.check(ctx, &at, "request");
                request = req_message(ctx, &at, value);
            }
            "response" => {
                seen.check(ctx, &at, "response");
                response = opt_message(ctx, &at, value);
            }
            "request_time" => {
                seen.check(ctx, &at, "request_time");
                request_time = opt_time(ctx, &at, value);
            }
            "response_time" => {
                seen.check(ctx, &at, "response_time");
                response_time = opt_time(ctx, &at, value);
            }
            _ => extra.push((key, value)),
        }
    }
    if request.is_none() && !seen.0.contains(&"request") {
        ctx.report(
            path,
            Some(raw.get()),
            "a server request entry needs a `request`",
        );
    }
    Some(ServerRequest {
        request: request?,
        response,
        request_time,
        response_time,
        extra,
    })
}

fn unmatched_from_raw<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
) -> Option<Unmatched<'a>> {
    let members = object_members(ctx, path, raw, "an unmatched entry")?;
    let mut message = None;
    let mut time = None;
    let mut after_exchange = None;
    let mut response = None;
    let mut response_time = None;
    let mut extra = Fields::new();
    let mut seen = Seen::default();
    for (key, value) in members {
        let at = path.key(&key);
        match key.as_ref() {
            "message" => {
                seen.check(ctx, &at, "message");
                message = req_message(ctx, &at, value);
            }
            "time" => {
                seen.check(ctx, &at, "time");
                time = opt_time(ctx, &at, value);
            }
            "after_exchange" => {
                seen.check(ctx, &at, "after_exchange");
                after_exchange = opt_index(ctx, &at, value);
            }
            "response" => {
                seen.check(ctx, &at, "response");
                response = opt_message(ctx, &at, value);
            }
            "response_time" => {
                seen.check(ctx, &at, "response_time");
                response_time = opt_time(ctx, &at, value);
            }
            _ => extra.push((key, value)),
        }
    }
    if message.is_none() && !seen.0.contains(&"message") {
        ctx.report(
            path,
            Some(raw.get()),
            "an unmatched entry needs a `message`",
        );
    }
    Some(Unmatched {
        message: message?,
        time,
        after_exchange,
        response,
        response_time,
        extra,
    })
}

fn raw_line_from_raw<'a>(
    ctx: &ParseCx<'a>,
    path: &Pointer<'_>,
    raw: &'a RawValue,
    session_level: bool,
) -> Option<RawLine<'a>> {
    let members = object_members(ctx, path, raw, "a raw line entry")?;
    let mut text = None;
    let mut from = None;
    let mut line = RawLine {
        text: Cow::Borrowed(""),
        from: Side::Server,
        time: None,
        after_exchange: None,
        extra: Fields::new(),
    };
    let mut seen = Seen::default();
    for (key, value) in members {
        let at = path.key(&key);
        match key.as_ref() {
            "text" => {
                seen.check(ctx, &at, "text");
                text = req_string(ctx, &at, value);
            }
            "from" => {
                seen.check(ctx, &at, "from");
                from = match req_string(ctx, &at, value).as_deref() {
                    Some("server") => Some(Side::Server),
                    Some("client") => Some(Side::Client),
                    Some(other) => {
                        ctx.report(
                            &at,
                            Some(value.get()),
                            format!("must be \"server\" or \"client\", found {other:?}"),
                        );
                        None
                    }
                    None => None,
                };
            }
            "time" => {
                seen.check(ctx, &at, "time");
                line.time = opt_time(ctx, &at, value);
            }
            "after_exchange" if session_level => {
                seen.check(ctx, &at, "after_exchange");
                line.after_exchange = opt_index(ctx, &at, value);
            }
            _ => line.extra.push((key, value)),
        }
    }
    for (key, present) in [("text", text.is_some()), ("from", from.is_some())] {
        if !present && !seen.0.contains(&key) {
            ctx.report(
                path,
                Some(raw.get()),
                format!("a raw line entry needs `{key}`"),
            );
        }
    }
    line.text = text?;
    line.from = from?;
    Some(line)
}

/// Picks the envelope fields out of one message (see [`Message::from_raw`]).
pub(super) fn message_from_raw(raw: &RawValue) -> Message<'_> {
    let mut message = Message {
        raw,
        id: Span::default(),
        method: Span::default(),
        params: Span::default(),
        result: Span::default(),
        error: Span::default(),
        is_object: false,
        kind: MethodKind::Absent,
    };
    let text = raw.get();
    // Spans are `u32`; a message of 4 GiB or more is reported by the caller and kept
    // as an opaque value.
    if first_byte(raw.get()) != b'{' || u32::try_from(text.len()).is_err() {
        return message;
    }
    // The slice is known to be valid JSON, so this cannot fail on syntax; it reads
    // members one level deep, the values as unparsed slices.
    let mut de = serde_json::Deserializer::from_str(text);
    let Ok(spans) = serde::Deserializer::deserialize_map(&mut de, EnvelopeVisitor { base: text })
    else {
        return message;
    };
    message.is_object = true;
    [
        message.id,
        message.method,
        message.params,
        message.result,
        message.error,
    ] = spans;
    message.kind = match message.method() {
        Some(name) => MethodKind::of(&name).unwrap_or(MethodKind::Other),
        None => MethodKind::Absent,
    };
    message
}

/// Reads an object's `id`, `method`, `params`, `result` and `error` as byte ranges of
/// `base`, skipping everything else without allocating. Later duplicates win, as they
/// do for a `serde_json::Value`, which is what the schema family falls back to.
struct EnvelopeVisitor<'b> {
    base: &'b str,
}

impl<'de> Visitor<'de> for EnvelopeVisitor<'_> {
    type Value = [Span; 5];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let base = self.base.as_ptr() as usize;
        let span_of = |value: &RawValue| -> Span {
            let slice = value.get();
            let start = (slice.as_ptr() as usize)
                .checked_sub(base)
                .and_then(|s| u32::try_from(s).ok());
            match (start, u32::try_from(slice.len()).ok()) {
                (Some(start), Some(len)) => Span { start, len },
                _ => Span::default(),
            }
        };
        let mut spans = [Span::default(); 5];
        while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
            let slot = match key.as_ref() {
                "id" => 0,
                "method" => 1,
                "params" => 2,
                "result" => 3,
                "error" => 4,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let value = map.next_value::<&'de RawValue>()?;
            if let Some(span) = spans.get_mut(slot) {
                *span = span_of(value);
            }
        }
        Ok(spans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_of_offsets() {
        let ctx = ParseCx::new("ab\ncd\n\nx");
        assert_eq!(ctx.line_column(0), (1, 1));
        assert_eq!(ctx.line_column(4), (2, 2));
        assert_eq!(ctx.line_column(7), (4, 1));
        assert_eq!(ctx.line_column(100), (4, 94));
    }

    #[test]
    fn offsets_from_serde_positions() {
        let text = "{\n  \"a\": x\n}";
        assert_eq!(offset_of_line_column(text, 2, 8), 9);
        assert_eq!(offset_of_line_column(text, 9, 1), text.len());
        assert_eq!(offset_of_line_column(text, 0, 0), text.len());
    }

    #[test]
    fn plain_timestamps_are_ones_chrono_accepts() {
        for text in [
            "2026-01-02T03:04:05Z",
            "2026-01-02T03:04:05.678Z",
            "2026-12-28T23:59:59.1+05:30",
            "1999-02-28T00:00:00-12:00",
        ] {
            assert!(is_plain_rfc3339(text), "{text}");
            assert!(chrono::DateTime::parse_from_rfc3339(text).is_ok(), "{text}");
        }
        // Not plain: left to chrono (which accepts some and rejects others).
        for text in [
            "2026-02-30T00:00:00Z",
            "2026-01-31T00:00:00Z",
            "2026-01-02 03:04:05Z",
            "2026-01-02T03:04:60Z",
            "2026-13-02T03:04:05Z",
            "2026-01-02T03:04:05.Z",
            "2026-01-02T03:04:05",
            "2026-01-02T03:04:05+0100",
            "2026-01-02T03:04:05Zjunk",
            "",
        ] {
            assert!(!is_plain_rfc3339(text), "{text}");
        }
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        assert!(matches!(
            borrowed_str("\"abc\""),
            Some(Cow::Borrowed("abc"))
        ));
        assert_eq!(borrowed_str("\"a\\nb\"").as_deref(), Some("a\nb"));
        assert_eq!(borrowed_str("12"), None);
    }
}
