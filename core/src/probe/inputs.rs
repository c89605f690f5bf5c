//! Schema-valid arguments for `mcpcheck audit` (and the example arguments
//! of `generate` and `init`), and whether given arguments satisfy an input
//! schema.
//!
//! A listing is untrusted input: building arguments is bounded by size as
//! well as by depth ([`MAX_VALUES`], [`MAX_TEXT`], and a bound on the work),
//! and a schema that asks for more than those (`minLength: 2^40`, arrays of
//! 16 items 12 levels deep, a pattern that only matches 64^7 characters) is
//! reported as such ([`arguments_within_bounds`]) instead of being built.

use std::cell::{Cell, RefCell};

use serde_json::{Map, Value, json};

use super::Arguments;
use super::pattern;
use super::schema::{Checker, Node, effective, json_type, type_of};

/// How deep values are built (nesting under the arguments object, `$ref`s
/// included); a required value deeper than this cannot be built.
const MAX_DEPTH: usize = 16;

/// Optional properties (and one item for arrays without `minItems`) are
/// filled down to this depth; deeper, only what is required.
const OPTIONAL_DEPTH: usize = 3;

/// The most items a generated array holds.
const MAX_ITEMS: u64 = 16;

/// The most values (strings, numbers, arrays, objects, …) one set of
/// generated arguments holds.
pub const MAX_VALUES: usize = 20_000;

/// The most characters of text (strings and property names) one set of
/// generated arguments holds.
pub const MAX_TEXT: usize = 1024 * 1024;

/// The most schema nodes visited while building one set of arguments
/// (branches that fail are visited and then thrown away).
const MAX_VISITS: usize = 100_000;

/// Arguments that satisfy `input_schema`, with every property the schema
/// declares (required and optional) where a valid value can be built:
///
/// * a value the schema gives ([`hinted`]): its `const`, an `enum` value
///   (one that asks for a failure, `error`, only when no other is allowed),
///   an `examples` item, its `default`, an example its `description` gives
///   (`e.g. 'America/New_York'`, `such as "asc"`, a quoted value) — the
///   first that satisfies the schema's own `const`, `enum`, type, lengths,
///   pattern and bounds, never a string holding a template (`{{…}}`,
///   `${…}`), which a suite file would substitute;
/// * else by type: strings honour `format` (date, date-time, time, duration,
///   email, hostname, ipv4, ipv6, uri, uri-reference, uri-template, uuid,
///   json-pointer, regex), `pattern` (a generated match, else a few ordinary
///   strings that match; an optional property whose pattern defeats both
///   is left out) and `minLength`/`maxLength`; numbers 1 moved into
///   `minimum`/`maximum`/`exclusive*` and onto `multipleOf`; arrays
///   `minItems` items (at least one while shallow, within `maxItems`, at most
///   16, distinct for `uniqueItems` where the item type allows); objects
///   recursively;
/// * local `$ref` (`#/$defs/…`, `#/definitions/…`, any pointer) followed,
///   `allOf` merged, `anyOf`/`oneOf` by their first branch that is not only
///   `null`;
/// * nesting bounded (16 levels; optional properties to 3), and size: at
///   most [`MAX_VALUES`] values and [`MAX_TEXT`] characters of text.
///
/// The result is checked against the schema (JSON Schema 2020-12 unless
/// `$schema` says otherwise, `format` asserted). When it does not validate,
/// optional properties named in the errors are dropped (a few rounds), then
/// only required properties are tried, then the required properties with a
/// placeholder where no valid value can be built; the first that validates
/// is returned, else the fullest attempt. Always an object: `{}` when the
/// schema asks for more than the bounds allow
/// ([`arguments_within_bounds`] says why).
pub fn valid_arguments(input_schema: &Value) -> Value {
    arguments_within_bounds(input_schema).unwrap_or_else(|_| json!({}))
}

/// [`valid_arguments`], or why none can be built within the bounds: the
/// schema's required values ask for more than [`MAX_VALUES`] values,
/// [`MAX_TEXT`] characters, or a pattern's shortest match is longer than
/// 4,096 characters. A schema that is merely unsatisfiable (a pattern no
/// string matches) still gives the fullest attempt, as
/// [`valid_arguments`] does.
pub fn arguments_within_bounds(input_schema: &Value) -> Result<Value, OverBounds> {
    let checker = Checker::new(input_schema);
    let mut attempts: Vec<Value> = Vec::new();
    let mut over: Option<OverBounds> = None;
    for mode in [Mode::Full, Mode::Required, Mode::Lenient] {
        let g = Gen::new(input_schema, mode);
        let built = g.value(input_schema, 0, 0).filter(Value::is_object);
        if let Some(why) = g.over.into_inner() {
            over.get_or_insert(why);
        }
        let Some(mut v) = built else {
            continue;
        };
        if checker.valid(&v) != Some(false) {
            return Ok(v);
        }
        if mode == Mode::Full && drop_failing_optionals(&checker, input_schema, &mut v) {
            return Ok(v);
        }
        attempts.push(v);
    }
    match (attempts.into_iter().next(), over) {
        (Some(v), _) => Ok(v),
        (None, Some(why)) => Err(why),
        (None, None) => Ok(json!({})),
    }
}

/// The example arguments of `generate` and `init`: every required property
/// (at any depth) with a value as [`valid_arguments`] picks it, a
/// placeholder (`"example"`) where none can be built; or why the schema
/// asks for more than the bounds allow.
pub(crate) fn required_arguments(input_schema: &Value) -> Result<Value, OverBounds> {
    let g = Gen::new(input_schema, Mode::Lenient);
    let built = g.value(input_schema, 0, 0);
    if let Some(why) = g.over.into_inner() {
        return Err(why);
    }
    Ok(built.filter(Value::is_object).unwrap_or_else(|| json!({})))
}

/// Why no arguments can be built within mcpcheck's bounds: the part of
/// the schema that asks for more.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverBounds {
    #[error(
        "its values would number more than {MAX_VALUES} (nesting, `minItems` and `$ref`s multiply)"
    )]
    Values,
    #[error("its strings would hold more than {MAX_TEXT} characters")]
    Text,
    #[error(
        "building them visits more than {MAX_VISITS} schema nodes (`$ref`s, `allOf` and nesting multiply)"
    )]
    Visits,
    #[error(
        "an array of at least {0} items (`minItems`) is longer than the {MAX_ITEMS} items mcpcheck builds"
    )]
    Items(u64),
    #[error(
        "a string of at least {0} characters (`minLength`) is longer than the {MAX_TEXT} characters mcpcheck builds"
    )]
    Length(u64),
    /// `0` is the pattern, cut to 80 characters.
    #[error("`pattern` {0} matches no string shorter than {max} characters", max = pattern::MAX_CHARS)]
    Pattern(String),
}

/// An example for one schema, as [`required_arguments`] builds each value
/// (`None` past the bounds).
pub(crate) fn example_for(schema: &Value) -> Option<Value> {
    let g = Gen::new(schema, Mode::Lenient);
    let v = g.value(schema, 0, 0);
    if g.over.into_inner().is_some() {
        return None;
    }
    v
}

/// A valid value for one (sub)schema of `root`, required parts only beyond
/// the shallow levels; `None` when none can be built within the bounds.
pub(crate) fn valid_value<'a>(schema: &'a Value, root: &'a Value) -> Option<Value> {
    Gen::new(root, Mode::Full).value(schema, 1, 0)
}

/// Remove optional top-level properties named by validation errors until
/// the object validates (true) or nothing more can be dropped (false).
fn drop_failing_optionals(checker: &Checker, schema: &Value, v: &mut Value) -> bool {
    let top = effective(schema, schema);
    let required: Vec<String> = top.required().iter().map(|r| (*r).to_string()).collect();
    for _ in 0..8 {
        let roots = checker.error_roots(v);
        let Some(obj) = v.as_object_mut() else {
            return false;
        };
        let before = obj.len();
        for name in roots.iter().filter(|n| !required.contains(n)) {
            obj.remove(name.as_str());
        }
        if obj.len() == before {
            return false;
        }
        if checker.valid(v) != Some(false) {
            return true;
        }
    }
    false
}

/// Whether `arguments` satisfy `input_schema` as a `tools/call` would send
/// them: omitted arguments are the empty object, `null` and non-objects
/// never satisfy it (MCP's `arguments` is an object). `None` when the schema
/// cannot be compiled.
pub fn input_valid(input_schema: &Value, arguments: &Arguments) -> Option<bool> {
    let checker = Checker::new(input_schema);
    valid_with(&checker, arguments)
}

pub(crate) fn valid_with(checker: &Checker, arguments: &Arguments) -> Option<bool> {
    if !checker.compiled() {
        return None;
    }
    match arguments {
        Arguments::Omitted => checker.valid(&json!({})),
        Arguments::Null => Some(false),
        Arguments::Value(v) if !v.is_object() => Some(false),
        Arguments::Value(v) => checker.valid(v),
    }
}

/// A string for a `format`, when it is one we know.
pub(crate) fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "date" => "2025-01-15",
        "date-time" => "2025-01-15T10:30:00Z",
        "time" => "10:30:00Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uri" | "iri" | "uri-reference" | "iri-reference" | "url" => "https://example.com/",
        "uri-template" => "https://example.com/{id}",
        "uuid" => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "json-pointer" => "/example",
        "relative-json-pointer" => "0",
        "regex" => "^example$",
        _ => return None,
    })
}

/// Whether a value from the schema (`default`, `examples`, `enum`) can be
/// used as it is: no string in it holds a template.
pub(crate) fn usable(v: &Value) -> bool {
    match v {
        Value::String(s) => !(s.contains("{{") || s.contains("${")),
        Value::Array(a) => a.iter().all(usable),
        Value::Object(o) => o.iter().all(|(k, x)| usable(&json!(k)) && usable(x)),
        _ => true,
    }
}

/// How much of a schema [`Gen`] builds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Required and optional properties (optional ones while shallow).
    Full,
    /// Required properties only.
    Required,
    /// Required properties only, a placeholder where no valid value can be
    /// built.
    Lenient,
}

struct Gen<'a> {
    root: &'a Value,
    mode: Mode,
    /// Values built and text characters written so far, and schema nodes
    /// visited.
    values: Cell<usize>,
    text: Cell<usize>,
    visits: Cell<usize>,
    /// Why building stopped at a bound; once set, nothing more is built.
    over: RefCell<Option<OverBounds>>,
}

impl<'a> Gen<'a> {
    fn new(root: &'a Value, mode: Mode) -> Self {
        Gen {
            root,
            mode,
            values: Cell::new(0),
            text: Cell::new(0),
            visits: Cell::new(0),
            over: RefCell::new(None),
        }
    }

    fn optional(&self) -> bool {
        self.mode == Mode::Full
    }

    fn is_over(&self) -> bool {
        self.over.borrow().is_some()
    }

    fn stop(&self, why: OverBounds) -> Option<Value> {
        self.over.borrow_mut().get_or_insert(why);
        None
    }

    /// Count `v` against the bounds; `None` (and the reason kept) past them.
    fn charge(&self, v: Value) -> Option<Value> {
        let (values, text) = measure(&v);
        self.charge_counts(values, text)?;
        Some(v)
    }

    fn charge_counts(&self, values: usize, text: usize) -> Option<()> {
        let values = self.values.get().saturating_add(values);
        let text = self.text.get().saturating_add(text);
        self.values.set(values);
        self.text.set(text);
        if values > MAX_VALUES {
            self.stop(OverBounds::Values);
            return None;
        }
        if text > MAX_TEXT {
            self.stop(OverBounds::Text);
            return None;
        }
        Some(())
    }

    /// A valid value for `schema`; `variant` asks for a different one (the
    /// items of a `uniqueItems` array). `None` when none can be built.
    fn value(&self, schema: &'a Value, depth: usize, variant: usize) -> Option<Value> {
        if self.is_over() {
            return None;
        }
        let visits = self.visits.get() + 1;
        self.visits.set(visits);
        if visits > MAX_VISITS {
            return self.stop(OverBounds::Visits);
        }
        if depth > MAX_DEPTH {
            return None;
        }
        match schema {
            Value::Bool(false) => return None,
            Value::Bool(true) => {
                return self.charge(json!(format!("example{}", suffix(variant))));
            }
            _ => {}
        }
        let obj = effective(schema, self.root);
        if let Some(v) = obj.get("const") {
            return self.charge(v.clone());
        }
        if let Some(choices) = obj.get("enum").and_then(Value::as_array) {
            // Those that ask for a failure last: a sensible call asks for the
            // ordinary outcome.
            let (failing, mut usable): (Vec<&Value>, Vec<&Value>) = choices
                .iter()
                .filter(|v| usable(v))
                .partition(|v| asks_for_failure(v));
            usable.extend(failing);
            let pick = if usable.is_empty() {
                choices.first()
            } else {
                usable.get(variant % usable.len()).copied()
            };
            return pick.and_then(|v| self.charge(v.clone()));
        }
        if variant == 0
            && let Some(v) = hinted(&obj)
        {
            return self.charge(v);
        }
        let ty = type_of(&obj);
        match ty {
            Some("string") => self.string_value(&obj, variant),
            Some("integer") => self.charge(number_value(&obj, true, variant)?),
            Some("number") => self.charge(number_value(&obj, false, variant)?),
            Some("boolean") => self.charge(json!(variant.is_multiple_of(2))),
            Some("null") => self.charge(Value::Null),
            Some("array") => self.array_value(&obj, depth, variant),
            Some("object") => self.object_value(&obj, depth, variant),
            _ => self.charge(json!(format!("example{}", suffix(variant)))),
        }
    }

    /// A required value that cannot be built: in [`Mode::Lenient`], a
    /// placeholder (unless a bound was reached).
    fn placeholder(&self) -> Option<Value> {
        if self.mode == Mode::Lenient && !self.is_over() {
            self.charge(json!(crate::generate::EXAMPLE_STRING))
        } else {
            None
        }
    }

    fn object_value(&self, obj: &Node<'a>, depth: usize, variant: usize) -> Option<Value> {
        let required = obj.required();
        let mut out = Map::new();
        self.charge_counts(1, 0)?;
        for (name, s) in obj.properties() {
            let is_required = required.contains(name);
            if !(is_required || self.optional() && depth < OPTIONAL_DEPTH) {
                continue;
            }
            match self.value(s, depth + 1, variant) {
                Some(v) => {
                    self.charge_counts(0, name.chars().count())?;
                    out.insert((*name).to_string(), v);
                }
                None if is_required => {
                    out.insert((*name).to_string(), self.placeholder()?);
                }
                None if self.is_over() => return None,
                None => {}
            }
        }
        for name in required {
            if !out.contains_key(*name) {
                let extra = obj.get("additionalProperties").filter(|a| a.is_object());
                let v = match extra {
                    Some(s) => match self.value(s, depth + 1, variant) {
                        Some(v) => v,
                        None => self.placeholder()?,
                    },
                    None => self.charge(json!(crate::generate::EXAMPLE_STRING))?,
                };
                self.charge_counts(0, name.chars().count())?;
                out.insert((*name).to_string(), v);
            }
        }
        Some(Value::Object(out))
    }

    fn array_value(&self, obj: &Node<'a>, depth: usize, variant: usize) -> Option<Value> {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = obj
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        if min > MAX_ITEMS && min <= max {
            return self.stop(OverBounds::Items(min));
        }
        let shallow = self.optional() && depth < OPTIONAL_DEPTH;
        let want = min.max(u64::from(shallow)).min(max).min(MAX_ITEMS) as usize;
        // A tuple (2020-12 `prefixItems`, or `items` as a list in older drafts).
        let prefix = obj
            .get("prefixItems")
            .or_else(|| obj.get("items").filter(|i| i.is_array()))
            .and_then(Value::as_array);
        let rest = match obj.get("items") {
            Some(i) if !i.is_array() => Some(i),
            _ => obj.get("additionalItems"),
        };
        self.charge_counts(1, 0)?;
        let mut out = Vec::new();
        if let Some(prefix) = prefix {
            for (i, s) in prefix.iter().enumerate() {
                if i >= want.max(min as usize) && i >= 1 {
                    break;
                }
                out.push(self.value(s, depth + 1, variant + i)?);
            }
        }
        while out.len() < want {
            let i = out.len();
            let item = match rest {
                Some(Value::Bool(false)) => return None,
                Some(s) => self.value(s, depth + 1, variant + i)?,
                None => self.charge(json!(format!("example{}", suffix(variant + i))))?,
            };
            out.push(item);
        }
        Some(Value::Array(out))
    }

    fn string_value(&self, obj: &Node<'a>, variant: usize) -> Option<Value> {
        let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = obj
            .get("maxLength")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        if min > MAX_TEXT as u64 && min <= max {
            return self.stop(OverBounds::Length(min));
        }
        let (min, max) = (min as usize, usize::try_from(max).unwrap_or(usize::MAX));
        let fits = |s: &str| {
            let n = s.chars().count();
            min <= n && n <= max
        };
        if let Some(f) = obj
            .get("format")
            .and_then(Value::as_str)
            .and_then(format_example)
        {
            return self.charge(json!(f));
        }
        if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
            let (found, too_long) = pattern::examples_within(p);
            if too_long {
                return self.stop(OverBounds::Pattern(crate::truncate(p, 80).to_string()));
            }
            let found: Vec<String> = found.into_iter().filter(|s| fits(s)).collect();
            if found.is_empty() {
                return None;
            }
            return found
                .get(variant % found.len())
                .and_then(|s| self.charge(json!(s)));
        }
        let mut s = format!("example{}", suffix(variant));
        let n = s.chars().count();
        if n < min {
            self.charge_counts(0, min - n)?;
            s.extend(std::iter::repeat_n('x', min - n));
        }
        if s.chars().count() > max {
            s = s.chars().take(max).collect();
        }
        self.charge(json!(s))
    }
}

/// How many values and characters of text `v` holds (a few thousand
/// levels at most are walked; schema values are bounded by the listing).
fn measure(v: &Value) -> (usize, usize) {
    let mut values = 0usize;
    let mut text = 0usize;
    let mut stack = vec![v];
    while let Some(x) = stack.pop() {
        values += 1;
        match x {
            Value::String(s) => text += s.len(),
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => {
                for (k, x) in o {
                    text += k.len();
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
    (values, text)
}

/// `""`, `"2"`, `"3"`, … so variants of a string differ.
fn suffix(variant: usize) -> String {
    if variant == 0 {
        String::new()
    } else {
        (variant + 1).to_string()
    }
}

/// A value the schema itself gives, and that satisfies it: the first of its
/// `const`, `enum` values, `examples` items (and OpenAPI's `example`),
/// `default`, and examples its `description` gives ([`described`]) that
/// passes [`admissible`]. A string with a `format` mcpcheck knows takes no
/// example from its description (a quoted word there is rarely a valid
/// date or address): the format's example is built instead. `None` when it
/// gives none.
pub(crate) fn hinted(obj: &Node<'_>) -> Option<Value> {
    let listed = |k: &str| {
        obj.get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().take(64).cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let mut candidates: Vec<Value> = Vec::new();
    candidates.extend(obj.get("const").cloned());
    // An enum's values in order, but those that ask for a failure last: a
    // sensible call asks for the ordinary outcome.
    let (failing, ordinary): (Vec<Value>, Vec<Value>) =
        listed("enum").into_iter().partition(asks_for_failure);
    candidates.extend(ordinary);
    candidates.extend(failing);
    candidates.extend(listed("examples"));
    // OpenAPI's singular `example`, as some servers write it.
    candidates.extend(obj.get("example").cloned());
    candidates.extend(obj.get("default").cloned());
    let formatted = obj
        .get("format")
        .and_then(Value::as_str)
        .and_then(format_example)
        .is_some();
    if let Some(d) = obj
        .get("description")
        .and_then(Value::as_str)
        .filter(|_| !formatted)
    {
        let ty = type_of(obj);
        for s in described(d) {
            match ty {
                Some("integer" | "number") => {
                    if let Ok(n) = s.parse::<f64>()
                        && n.is_finite()
                    {
                        candidates.push(number(n));
                    }
                }
                Some("string") | None => candidates.push(json!(s)),
                _ => {}
            }
        }
    }
    candidates
        .into_iter()
        .find(|v| usable(v) && admissible(obj, v))
}

/// Whether `v` is an enum value that asks a tool for a failure (`error`,
/// `fail`, `invalid`, …, in any case): the answer to it reads as an error.
fn asks_for_failure(v: &Value) -> bool {
    const WORDS: [&str; 7] = [
        "error",
        "fail",
        "failed",
        "failure",
        "invalid",
        "exception",
        "crash",
    ];
    v.as_str()
        .is_some_and(|s| WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)))
}

/// Whether `v` satisfies the keywords of `obj` that matter for one value:
/// `const`, `enum`, the type (`null` only where the type says so), string
/// lengths and `pattern`, number bounds and `multipleOf`.
pub(crate) fn admissible(obj: &Node<'_>, v: &Value) -> bool {
    if obj.get("const").is_some_and(|c| c != v) {
        return false;
    }
    if let Some(choices) = obj.get("enum").and_then(Value::as_array)
        && !choices.contains(v)
    {
        return false;
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => type_of(obj).into_iter().collect(),
    };
    let have = json_type(v);
    let type_ok = types.is_empty() && !v.is_null()
        || types
            .iter()
            .any(|t| *t == have || (*t == "number" && have == "integer"));
    if !type_ok {
        return false;
    }
    match v {
        Value::String(s) => {
            let n = s.chars().count() as u64;
            let count = |k: &str| obj.get(k).and_then(Value::as_u64);
            if count("minLength").is_some_and(|m| n < m)
                || count("maxLength").is_some_and(|m| n > m)
            {
                return false;
            }
            if let Some(p) = obj.get("pattern").and_then(Value::as_str)
                && pattern::compiled(p).is_some_and(|r| !r.is_match(s))
            {
                return false;
            }
            true
        }
        Value::Number(n) => {
            let Some(x) = n.as_f64() else {
                return false;
            };
            let Bounds { lo, hi } = bounds(obj);
            let lo_ok = lo.is_none_or(|(l, e)| if e { x > l } else { x >= l });
            let hi_ok = hi.is_none_or(|(h, e)| if e { x < h } else { x <= h });
            let step_ok = obj
                .get("multipleOf")
                .and_then(Value::as_f64)
                .filter(|m| *m > 0.0 && m.is_finite())
                .is_none_or(|m| ((x / m) - (x / m).round()).abs() < 1e-9);
            lo_ok && hi_ok && step_ok
        }
        _ => true,
    }
}

/// Examples a description gives, in the order written: the value after
/// `e.g.`, `for example`, `for instance`, `such as`, `example:` (a quoted
/// value, or a word up to a comma, a closing parenthesis or the end of the
/// sentence), the format a pattern word names (`HH:MM`, `YYYY-MM-DD`),
/// then every quoted value ('…', "…", `…`, ‘…’, “…”). At most 16, each
/// at most 200 characters.
pub(crate) fn described(description: &str) -> Vec<String> {
    const MARKERS: &[&str] = &[
        "e.g.",
        "eg.",
        "e.g,",
        "for example",
        "for instance",
        "such as",
        "example:",
        "examples:",
        "ex:",
    ];
    let text: &str = &description[..floor_char_boundary(description, 4096)];
    let lower = text.to_ascii_lowercase();
    let mut out: Vec<String> = Vec::new();
    let push = |s: &str, out: &mut Vec<String>| {
        let s = s.trim();
        if !s.is_empty()
            && s.chars().count() <= 200
            && out.len() < 16
            && !out.iter().any(|o| o == s)
        {
            out.push(s.to_string());
        }
    };
    let mut marked: Vec<(usize, usize)> = Vec::new();
    for m in MARKERS {
        let mut from = 0;
        while let Some(at) = lower[from..].find(m) {
            let start = from + at;
            let before = lower[..start].chars().next_back();
            from = start + m.len();
            if before.is_some_and(char::is_alphanumeric) {
                continue;
            }
            marked.push((start, from));
        }
    }
    marked.sort_unstable();
    for (_, end) in marked {
        let rest = text[end..].trim_start_matches([' ', ',', ':', '(', '\t']);
        if let Some((q, _)) = quoted(rest) {
            push(q, &mut out);
            continue;
        }
        let word: String = rest
            .chars()
            .take_while(|c| !matches!(c, ',' | ')' | ';' | '\n' | ' ' | '\t'))
            .collect();
        let word = word.strip_suffix('.').unwrap_or(&word);
        push(word, &mut out);
    }
    for (shape, example) in [
        ("YYYY-MM-DDTHH:MM:SS", "2025-01-15T10:30:00"),
        ("YYYY-MM-DD", "2025-01-15"),
        ("HH:MM:SS", "10:30:00"),
        ("HH:MM", "10:30"),
    ] {
        if text.contains(shape) {
            push(example, &mut out);
            break;
        }
    }
    let mut rest = text;
    while let Some(i) = rest.find(['\'', '"', '`', '‘', '“']) {
        let from = &rest[i..];
        // An apostrophe inside a word (`don't`) opens nothing.
        let inside_word = rest[..i]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        match quoted(from) {
            Some((q, used)) if !inside_word => {
                push(q, &mut out);
                rest = &from[used..];
            }
            _ => rest = &from[from.chars().next().map_or(1, char::len_utf8)..],
        }
    }
    out
}

/// The value of a quotation at the start of `s` and the bytes it takes.
fn quoted(s: &str) -> Option<(&str, usize)> {
    let open = s.chars().next()?;
    let close = match open {
        '\'' | '"' | '`' => open,
        '‘' => '’',
        '“' => '”',
        _ => return None,
    };
    let body = &s[open.len_utf8()..];
    let end = body.find(close)?;
    let inner = &body[..end];
    (!inner.is_empty() && !inner.contains('\n'))
        .then_some((inner, open.len_utf8() + end + close.len_utf8()))
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A bound of the schema, with draft-04's boolean `exclusiveMinimum`/
/// `exclusiveMaximum` read as making `minimum`/`maximum` exclusive.
struct Bounds {
    lo: Option<(f64, bool)>,
    hi: Option<(f64, bool)>,
}

fn bounds(obj: &Node<'_>) -> Bounds {
    let num = |k: &str| obj.get(k).and_then(Value::as_f64);
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool) == Some(true);
    let pick = |inclusive: Option<f64>, exclusive: Option<f64>, old_flag: bool, lower: bool| {
        let a = inclusive.map(|v| (v, old_flag));
        let b = exclusive.map(|v| (v, true));
        match (a, b) {
            (Some(x), Some(y)) => {
                let tighter = if lower { x.0 >= y.0 } else { x.0 <= y.0 };
                Some(if tighter && x.0 != y.0 { x } else { y })
            }
            (x, y) => x.or(y),
        }
    };
    Bounds {
        lo: pick(
            num("minimum"),
            num("exclusiveMinimum"),
            flag("exclusiveMinimum"),
            true,
        ),
        hi: pick(
            num("maximum"),
            num("exclusiveMaximum"),
            flag("exclusiveMaximum"),
            false,
        ),
    }
}

fn number_value(obj: &Node<'_>, integer: bool, variant: usize) -> Option<Value> {
    let Bounds { lo, hi } = bounds(obj);
    let step = obj
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|m| *m > 0.0 && m.is_finite());
    let mut n = 1.0 + variant as f64;
    if let Some((l, exclusive)) = lo
        && (n < l || (exclusive && n <= l))
    {
        n = if exclusive {
            match hi {
                Some((h, _)) if !integer && h - l < 2.0 => l + (h - l) / 2.0,
                _ => l + 1.0,
            }
        } else {
            l
        } + variant as f64;
    }
    if let Some((h, exclusive)) = hi
        && (n > h || (exclusive && n >= h))
    {
        n = if exclusive {
            match lo {
                Some((l, _)) if !integer && h - l < 2.0 => l + (h - l) / 2.0,
                _ => h - 1.0,
            }
        } else {
            h
        };
    }
    if integer {
        n = n.ceil();
        if let Some((h, exclusive)) = hi
            && (n > h || (exclusive && n >= h))
        {
            n = if exclusive { h.ceil() - 1.0 } else { h.floor() };
        }
    }
    if let Some(m) = step {
        let k = (n / m).ceil();
        let up = k * m;
        let fits_hi = |x: f64| hi.is_none_or(|(h, e)| if e { x < h } else { x <= h });
        n = if fits_hi(up) { up } else { (n / m).floor() * m };
        // Keep the decimal form short: 0.30000000000000004 → 0.3.
        n = (n * 1e9).round() / 1e9;
    }
    Some(number(n))
}

/// A finite `f64` as JSON: an integer when it is whole and exact.
pub(crate) fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        json!(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(json!(0), Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(schema: Value) -> Value {
        let v = valid_arguments(&schema);
        assert_eq!(
            Checker::new(&schema).valid(&v),
            Some(true),
            "{v} for {schema}"
        );
        v
    }

    #[test]
    fn required_and_optional_with_constraints() {
        let v = ok(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 10},
                "mode": {"type": "string", "enum": ["r", "w"]},
                "n": {"type": "integer", "minimum": 5, "maximum": 9, "multipleOf": 3},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "when": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "pattern": "^[A-Z]{2}-\\d{3}$"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 3, "uniqueItems": true},
                "short": {"type": "string", "maxLength": 3}
            },
            "required": ["path"],
            "additionalProperties": false
        }));
        assert_eq!(v["path"], "examplexxx");
        assert_eq!(v["mode"], "r");
        assert_eq!(v["n"], 6);
        assert_eq!(v["ratio"], 0.5);
        assert_eq!(v["id"], "AA-111");
        assert_eq!(v["tags"], json!(["example", "example2", "example3"]));
        assert_eq!(v["short"], "exa");
    }

    #[test]
    fn refs_compositions_and_depth() {
        let v = ok(json!({
            "type": "object",
            "$defs": {"Edit": {"type": "object", "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}}, "required": ["oldText", "newText"]}},
            "properties": {
                "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
                "either": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 2}]},
                "one": {"oneOf": [{"type": "string", "format": "email"}, {"type": "integer"}]},
                "both": {"allOf": [{"properties": {"a": {"type": "boolean"}}}, {"required": ["a"]}]}
            },
            "required": ["edits"]
        }));
        assert_eq!(
            v["edits"][0],
            json!({"oldText": "example", "newText": "example"})
        );
        assert_eq!(v["either"], 2);
        assert_eq!(v["one"], "user@example.com");
        assert_eq!(v["both"], json!({"a": true}));
        // A schema that recurses through an optional property ends.
        ok(
            json!({"type": "object", "properties": {"child": {"$ref": "#"}, "name": {"type": "string"}}}),
        );
    }

    /// The schema bombs of a hostile listing, each a one-line schema.
    pub(crate) fn bombs() -> Vec<(&'static str, Value)> {
        let mut chain = Map::new();
        for i in 0..12 {
            chain.insert(
                format!("L{i}"),
                json!({"type": "array", "minItems": 16, "items": {"$ref": format!("#/$defs/L{}", i + 1)}}),
            );
        }
        chain.insert("L12".into(), json!({"type": "string"}));
        vec![
            (
                "minLength 2^40",
                json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 1_u64 << 40}}, "required": ["s"]}),
            ),
            (
                "a pattern of 64^7 characters",
                json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^((((((a{64}){64}){64}){64}){64}){64}){64}$"}}, "required": ["s"]}),
            ),
            (
                "minItems 16, 12 deep through $ref",
                json!({"type": "object", "$defs": chain, "properties": {"a": {"$ref": "#/$defs/L0"}}, "required": ["a"]}),
            ),
            (
                "a self-recursive node with required children",
                json!({"type": "object", "properties": {"a": {"$ref": "#"}, "b": {"$ref": "#"}}, "required": ["a", "b"]}),
            ),
        ]
    }

    #[test]
    fn schema_bombs_are_refused_within_the_bounds() {
        for (what, schema) in bombs() {
            let why = arguments_within_bounds(&schema)
                .expect_err(what)
                .to_string();
            assert!(!why.is_empty(), "{what}");
            // The other entry points end too, and small.
            let v = valid_arguments(&schema);
            assert!(v.to_string().len() < 2 * MAX_TEXT, "{what}");
            assert!(required_arguments(&schema).is_err(), "{what}");
        }
        let (_, s) = &bombs()[0];
        assert!(
            arguments_within_bounds(s)
                .unwrap_err()
                .to_string()
                .contains("minLength"),
        );
        let (_, s) = &bombs()[1];
        assert!(
            arguments_within_bounds(s)
                .unwrap_err()
                .to_string()
                .contains("pattern")
        );
        // `allOf` doubling through `$ref`: resolved within the step bound.
        let doubling = json!({"type": "object", "allOf": [{"$ref": "#"}, {"$ref": "#"}], "properties": {"x": {"$ref": "#"}}, "required": ["x"]});
        assert!(valid_arguments(&doubling).is_object());
        // Large but within the bounds: built.
        let v = ok(
            json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 100_000}}, "required": ["s"]}),
        );
        assert_eq!(v["s"].as_str().map(str::len), Some(100_000));
    }

    #[test]
    fn values_the_schema_gives_come_first() {
        // mcp-server-time's parameter: the description's example, not "example".
        let v = ok(json!({
            "type": "object",
            "properties": {
                "timezone": {"type": "string", "description": "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local timezone if no timezone provided by the user."},
                "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
                "order": {"type": "string", "description": "Sort order, such as \"desc\"", "pattern": "^(asc|desc)$"},
                "n": {"type": "integer", "description": "How many, e.g. 25", "maximum": 100},
                "big": {"type": "integer", "description": "e.g. 500", "maximum": 100},
                "pick": {"type": "string", "examples": ["x"], "default": "d", "enum": ["d", "e"]},
                "kind": {"type": "string", "enum": ["error", "FAIL", "success", "debug"]},
                "outcome": {"type": "string", "enum": ["error", "invalid"]},
                "lang": {"type": "string", "default": "en"},
                "said": {"type": "string", "example": "hello"},
                "plain": {"type": "string", "description": "Don't use it"},
                "when": {"type": "string", "format": "date", "description": "the 'start' date"}
            },
            "required": ["timezone", "time", "order", "n", "big", "pick", "kind", "outcome", "lang", "said", "plain", "when"]
        }));
        assert_eq!(v["timezone"], "America/New_York");
        assert_eq!(v["time"], "10:30");
        assert_eq!(v["order"], "desc");
        assert_eq!(v["n"], 25);
        assert_eq!(v["big"], 1, "500 is past the maximum");
        assert_eq!(v["pick"], "d", "the first enum value the schema allows");
        assert_eq!(v["kind"], "success", "an ordinary outcome before a failure");
        assert_eq!(
            v["outcome"], "error",
            "a failure when there is nothing else"
        );
        assert_eq!(v["lang"], "en");
        assert_eq!(v["said"], "hello");
        assert_eq!(v["plain"], "example");
        assert_eq!(
            v["when"], "2025-01-15",
            "a format's example, not a quoted word"
        );
        assert_eq!(
            described("A path (for example `/tmp/x`), or 'a b'. Such as: c."),
            ["/tmp/x", "c", "a b"]
        );
    }

    #[test]
    fn unsatisfiable_optionals_are_dropped() {
        let v = ok(json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "pattern": "^(?=x)y$"},
                "b": {"type": "string"},
                "c": {"oneOf": [{"type": "number"}, {"type": "integer"}]}
            }
        }));
        assert_eq!(v, json!({"b": "example"}));
        assert_eq!(valid_arguments(&json!("nonsense")), json!({}));
        assert_eq!(valid_arguments(&json!({"type": "object"})), json!({}));
    }

    #[test]
    fn validity_of_arguments() {
        let s =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        assert_eq!(input_valid(&s, &Arguments::Omitted), Some(false));
        assert_eq!(
            input_valid(&json!({"type": "object"}), &Arguments::Omitted),
            Some(true)
        );
        assert_eq!(
            input_valid(&json!({"type": "object"}), &Arguments::Null),
            Some(false)
        );
        assert_eq!(
            input_valid(&s, &Arguments::Value(json!({"a": "x"}))),
            Some(true)
        );
        assert_eq!(
            input_valid(&s, &Arguments::Value(json!(["x"]))),
            Some(false)
        );
    }
}
