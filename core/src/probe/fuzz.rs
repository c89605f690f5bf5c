//! Fuzz cases for one tool: systematic cases from its input schema, then
//! seeded random mutations. See [`fuzz_cases`] for the exact order.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Arguments;
use super::inputs::{number, valid_arguments, valid_value, valid_with};
use super::mutate;
use super::rng::{Rng, fnv1a, mix};
use super::schema::{Checker, Node, effective, type_of};

/// The length of the huge string of a `huge_string` case (100 KiB).
pub const HUGE_STRING_BYTES: usize = 100 * 1024;
/// The items of a `long_array` case (fewer when the items are large, see
/// [`MAX_CASE_BYTES`]).
pub const LONG_ARRAY_ITEMS: usize = 10_000;
/// The levels of a `deep_nesting` case.
pub const DEEP_NESTING: usize = 64;
/// The most bytes one case's arguments take as JSON; a case that would be
/// larger is not generated (a long array gets fewer items instead).
pub const MAX_CASE_BYTES: usize = 256 * 1024;
/// The most bytes all of one tool's cases take together; generation stops
/// there, so fewer than `runs` cases may come back.
pub const MAX_TOTAL_BYTES: usize = 32 * 1024 * 1024;
/// The name of the property the `extra_property` and `deep_nesting` cases
/// add (tools do not declare it).
pub const EXTRA_PROPERTY: &str = "mcpcheck_unexpected";

/// What a fuzz case tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Valid arguments (required and optional): the baseline.
    Valid,
    /// No `arguments` key.
    ArgumentsMissing,
    /// `"arguments": null`.
    ArgumentsNull,
    /// `"arguments": []`.
    ArgumentsWrongType,
    /// One required property left out.
    RequiredOmitted,
    /// A property with a value of another type.
    WrongType,
    /// A property set to `null`.
    NullValue,
    /// A property outside its `enum`/`const`.
    EnumViolation,
    /// Numbers at and past their bounds and at the edges of JSON numbers;
    /// strings and arrays one past their length bounds.
    Boundary,
    /// `""`, `[]`, `{}`.
    EmptyValue,
    /// A 100 KiB string.
    HugeString,
    /// A string holding a NUL character.
    NulString,
    /// Right-to-left override, combining marks, emoji, BOM.
    Unicode,
    /// `../../../../etc/passwd`.
    PathTraversal,
    /// A value breaking the declared `format`, else format specifiers,
    /// quotes, markup and shell syntax.
    FormatBreaking,
    /// An array of 10,000 items.
    LongArray,
    /// A value nested 64 levels deep.
    DeepNesting,
    /// A property the schema does not declare.
    ExtraProperty,
    /// A seeded random mutation of the valid arguments.
    Random,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Valid => "valid",
            Category::ArgumentsMissing => "arguments_missing",
            Category::ArgumentsNull => "arguments_null",
            Category::ArgumentsWrongType => "arguments_wrong_type",
            Category::RequiredOmitted => "required_omitted",
            Category::WrongType => "wrong_type",
            Category::NullValue => "null_value",
            Category::EnumViolation => "enum_violation",
            Category::Boundary => "boundary",
            Category::EmptyValue => "empty_value",
            Category::HugeString => "huge_string",
            Category::NulString => "nul_string",
            Category::Unicode => "unicode",
            Category::PathTraversal => "path_traversal",
            Category::FormatBreaking => "format_breaking",
            Category::LongArray => "long_array",
            Category::DeepNesting => "deep_nesting",
            Category::ExtraProperty => "extra_property",
            Category::Random => "random",
        }
    }
}

/// One input to send to a tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FuzzCase {
    /// What the case tries, in words; the same for the same case every time.
    pub label: String,
    pub category: Category,
    /// The `arguments` to send (or to leave out).
    #[serde(default, skip_serializing_if = "Arguments::is_omitted")]
    pub arguments: Arguments,
    /// Whether the arguments satisfy the tool's `inputSchema` (JSON Schema
    /// 2020-12 unless `$schema` says otherwise, `format` asserted; omitted
    /// arguments count as `{}`, `null` and non-objects never do). A valid
    /// input should succeed or fail as a tool error; an invalid one should be
    /// rejected (a tool error, or JSON-RPC -32602). When the schema cannot be
    /// compiled, only the `valid` case counts as valid.
    pub schema_valid: bool,
}

/// The cases for one tool (an item of `tools/list`: `name`, `inputSchema`),
/// exactly `runs` of them unless the byte budget ([`MAX_TOTAL_BYTES`]) runs
/// out first (or the valid arguments alone pass [`MAX_CASE_BYTES`]). The same tool, seed and runs give the same cases in the same
/// order, and a smaller `runs` gives a prefix of a larger one's cases.
///
/// First the systematic cases, category by category (so a small `runs`
/// still touches every property), each category over the properties in the
/// order of the schema's `properties` object as parsed (serde_json keeps
/// objects sorted by key, so: by name):
///
/// 1. `valid`: valid arguments ([`valid_arguments`](super::valid_arguments));
/// 2. `arguments_missing`, `arguments_null`, `arguments_wrong_type` (`[]`);
/// 3. `required_omitted`: each required property left out, in the order of
///    `required`;
/// 4. `wrong_type`: each property given a value of another type (a string
///    gets `12345`, a number `"not a number"`, a boolean `"true"`, an array
///    `"not an array"`, an object `"not an object"`);
/// 5. `null_value`: each property `null`;
/// 6. `enum_violation`: each property with `enum`/`const`, outside it;
/// 7. `boundary`: per number, `minimum − 1`, `exclusiveMinimum`,
///    `maximum + 1`, `exclusiveMaximum`, 0, −1, 1.5 (integers), i64::MAX,
///    i64::MIN, 1e308, −0.0 (duplicates dropped); per string `maxLength + 1`
///    and `minLength − 1` characters; per array `minItems − 1` and
///    `maxItems + 1` items. JSON has no NaN or infinity, and serde_json
///    cannot hold a number past f64 (1e309 would be infinity), so 1e308
///    stands for "huge"; random cases send `"1e309"`, `"NaN"` and
///    `"Infinity"` as strings;
/// 8. `empty_value`: each string `""`, array `[]`, object `{}`;
/// 9. `huge_string`, `nul_string`, `unicode`, `path_traversal`,
///    `format_breaking`: each string property, one category after another;
/// 10. `long_array`: each array property with 10,000 items;
/// 11. `deep_nesting`: each object and array property nested 64 levels,
///     then an extra property nested 64 levels;
/// 12. `extra_property`: the valid arguments plus [`EXTRA_PROPERTY`].
///
/// Every per-property case starts from the valid arguments and changes one
/// property. Then `random` cases until there are `runs`: each a mutation of
/// the valid arguments at a node chosen at random (any depth), drawn from a
/// SplitMix64 stream seeded with `seed` mixed with the FNV-1a hash of the
/// tool's name (so a tool's cases do not depend on the other tools, nor on
/// their order). A case larger than [`MAX_CASE_BYTES`] is not generated.
pub fn fuzz_cases(tool: &Value, seed: u64, runs: usize) -> Vec<FuzzCase> {
    fuzz_iter(tool, seed, runs).collect()
}

/// [`fuzz_cases`], one case at a time: each case is built when the
/// iterator reaches it, so a tool of 2,000 properties holds one case in
/// memory, not every systematic case at once. The cases, their order and
/// the bounds are those of [`fuzz_cases`].
pub fn fuzz_iter(tool: &Value, seed: u64, runs: usize) -> FuzzCases<'_> {
    let fuzzer = Fuzzer::new(tool);
    let specs = fuzzer.specs();
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    FuzzCases {
        rng: Rng::new(mix(seed ^ fnv1a(name))),
        fuzzer,
        specs: specs.into_iter(),
        pending: std::collections::VecDeque::new(),
        runs,
        given: 0,
        total: 0,
        random: 0,
        attempts: 0,
        done: false,
    }
}

/// The cases of one tool, built one at a time ([`fuzz_iter`]).
pub struct FuzzCases<'a> {
    fuzzer: Fuzzer<'a>,
    specs: std::vec::IntoIter<Spec>,
    /// Cases of one spec not given yet (a property's boundary values).
    pending: std::collections::VecDeque<Raw>,
    rng: Rng,
    runs: usize,
    given: usize,
    total: usize,
    random: usize,
    attempts: usize,
    done: bool,
}

impl std::fmt::Debug for FuzzCases<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FuzzCases")
            .field("runs", &self.runs)
            .field("given", &self.given)
            .finish_non_exhaustive()
    }
}

impl Iterator for FuzzCases<'_> {
    type Item = FuzzCase;

    fn next(&mut self) -> Option<FuzzCase> {
        while !self.done && self.given < self.runs {
            let raw = match self.pending.pop_front() {
                Some(raw) => raw,
                None => match self.specs.next() {
                    Some(spec) => {
                        self.pending.extend(self.fuzzer.build(spec));
                        continue;
                    }
                    None => {
                        let limit = self.runs.saturating_mul(4).saturating_add(16);
                        if self.attempts >= limit {
                            self.done = true;
                            break;
                        }
                        self.attempts += 1;
                        let (what, arguments) = mutate::random(&self.fuzzer.base, &mut self.rng);
                        let label = format!("random {}: {what}", self.random + 1);
                        (label, Category::Random, arguments)
                    }
                },
            };
            let (label, category, arguments) = raw;
            match self
                .fuzzer
                .admit(label, category, arguments, &mut self.total)
            {
                Admit::Case(c) => {
                    if c.category == Category::Random {
                        self.random += 1;
                    }
                    self.given += 1;
                    return Some(c);
                }
                Admit::TooLarge => {}
                Admit::BudgetSpent => self.done = true,
            }
        }
        None
    }
}

/// How many systematic cases [`fuzz_cases`] makes for a tool before its
/// random ones (a `runs` below it cuts the systematic cases short).
pub fn systematic_count(tool: &Value) -> usize {
    let f = Fuzzer::new(tool);
    f.specs()
        .into_iter()
        .flat_map(|spec| f.build(spec))
        .filter(|(_, _, a)| bytes(a) <= MAX_CASE_BYTES)
        .count()
}

enum Admit {
    Case(FuzzCase),
    TooLarge,
    BudgetSpent,
}

fn bytes(a: &Arguments) -> usize {
    match a {
        Arguments::Omitted => 0,
        Arguments::Null => 4,
        Arguments::Value(v) => serde_json::to_string(v).map_or(usize::MAX, |s| s.len()),
    }
}

/// A property of the tool's top-level schema.
struct Prop<'a> {
    name: &'a str,
    schema: Node<'a>,
    ty: Option<&'static str>,
}

pub(crate) struct Fuzzer<'a> {
    /// The input schema (an object), or `None` when the tool has none.
    schema: Option<&'a Value>,
    checker: Checker,
    pub(crate) base: Value,
    props: Vec<Prop<'a>>,
    required: Vec<&'a str>,
}

type Raw = (String, Category, Arguments);

/// One systematic case (or, for boundaries, a few), before it is built.
#[derive(Clone, Copy)]
enum Spec {
    Valid,
    Missing,
    Null,
    WrongArguments,
    RequiredOmitted(usize),
    WrongType(usize),
    NullValue(usize),
    EnumViolation(usize),
    Boundaries(usize),
    Empty(usize),
    Text(Category, usize),
    LongArray(usize),
    Deep(usize),
    DeepExtra,
    Extra,
}

impl<'a> Fuzzer<'a> {
    fn new(tool: &'a Value) -> Self {
        let Some(schema) = tool.get("inputSchema").filter(|s| s.is_object()) else {
            return Fuzzer {
                schema: None,
                checker: Checker::new(&json!({"type": "object"})),
                base: json!({}),
                props: Vec::new(),
                required: Vec::new(),
            };
        };
        let top = effective(schema, schema);
        let props = top
            .properties()
            .iter()
            .map(|(name, s)| {
                let eff = effective(s, schema);
                Prop {
                    name,
                    ty: type_of(&eff),
                    schema: eff,
                }
            })
            .collect();
        let required = top.required().to_vec();
        Fuzzer {
            checker: Checker::new(schema),
            base: valid_arguments(schema),
            schema: Some(schema),
            props,
            required,
        }
    }

    fn admit(
        &self,
        label: String,
        category: Category,
        arguments: Arguments,
        total: &mut usize,
    ) -> Admit {
        let size = bytes(&arguments);
        if size > MAX_CASE_BYTES {
            return Admit::TooLarge;
        }
        if total.saturating_add(size) > MAX_TOTAL_BYTES {
            return Admit::BudgetSpent;
        }
        *total += size;
        let schema_valid =
            valid_with(&self.checker, &arguments).unwrap_or(category == Category::Valid);
        Admit::Case(FuzzCase {
            label,
            category,
            arguments,
            schema_valid,
        })
    }

    /// The valid arguments with `name` set to `v`.
    fn with(&self, name: &str, v: Value) -> Arguments {
        let mut base = self.base.clone();
        if let Some(o) = base.as_object_mut() {
            o.insert(name.to_string(), v);
        }
        Arguments::Value(base)
    }

    fn of_type<'s>(&'s self, types: &'s [&str]) -> impl Iterator<Item = usize> + 's {
        self.props
            .iter()
            .enumerate()
            .filter(move |(_, p)| p.ty.is_some_and(|t| types.contains(&t)))
            .map(|(i, _)| i)
    }

    /// Every systematic case, in order, as specs (nothing built yet).
    fn specs(&self) -> Vec<Spec> {
        let n = self.props.len();
        let mut out = vec![Spec::Valid, Spec::Missing, Spec::Null, Spec::WrongArguments];
        out.extend((0..self.required.len()).map(Spec::RequiredOmitted));
        out.extend((0..n).map(Spec::WrongType));
        out.extend((0..n).map(Spec::NullValue));
        out.extend(
            (0..n)
                .filter(|i| {
                    let s = &self.props[*i].schema;
                    s.contains_key("enum") || s.contains_key("const")
                })
                .map(Spec::EnumViolation),
        );
        out.extend((0..n).map(Spec::Boundaries));
        out.extend(
            (0..n)
                .filter(|i| matches!(self.props[*i].ty, Some("string" | "array" | "object")))
                .map(Spec::Empty),
        );
        // An enum's other strings are tried by `enum_violation`.
        let free: Vec<usize> = self
            .of_type(&["string"])
            .filter(|i| {
                let s = &self.props[*i].schema;
                !s.contains_key("enum") && !s.contains_key("const")
            })
            .collect();
        for category in [
            Category::HugeString,
            Category::NulString,
            Category::Unicode,
            Category::PathTraversal,
            Category::FormatBreaking,
        ] {
            out.extend(free.iter().map(|i| Spec::Text(category, *i)));
        }
        out.extend(self.of_type(&["array"]).map(Spec::LongArray));
        out.extend(self.of_type(&["object", "array"]).map(Spec::Deep));
        out.push(Spec::DeepExtra);
        out.push(Spec::Extra);
        out
    }

    /// The cases of one spec (several for boundaries, none for a spec with
    /// nothing to try).
    fn build(&self, spec: Spec) -> Vec<Raw> {
        let one = |label: String, category, arguments| vec![(label, category, arguments)];
        match spec {
            Spec::Valid => one(
                "valid arguments".into(),
                Category::Valid,
                Arguments::Value(self.base.clone()),
            ),
            Spec::Missing => one(
                "`arguments` omitted".into(),
                Category::ArgumentsMissing,
                Arguments::Omitted,
            ),
            Spec::Null => one(
                "`arguments` is null".into(),
                Category::ArgumentsNull,
                Arguments::Null,
            ),
            Spec::WrongArguments => one(
                "`arguments` is an array, not an object".into(),
                Category::ArgumentsWrongType,
                Arguments::Value(json!([])),
            ),
            Spec::RequiredOmitted(i) => {
                let name = self.required[i];
                let mut base = self.base.clone();
                if let Some(o) = base.as_object_mut() {
                    o.remove(name);
                }
                one(
                    format!("required property `{name}` omitted"),
                    Category::RequiredOmitted,
                    Arguments::Value(base),
                )
            }
            Spec::WrongType(i) => {
                let p = &self.props[i];
                let (v, what) = wrong_type(p.ty);
                one(
                    format!("`{}` is {what}", p.name),
                    Category::WrongType,
                    self.with(p.name, v),
                )
            }
            Spec::NullValue(i) => {
                let p = &self.props[i];
                one(
                    format!("`{}` is null", p.name),
                    Category::NullValue,
                    self.with(p.name, Value::Null),
                )
            }
            Spec::EnumViolation(i) => {
                let p = &self.props[i];
                match enum_violation(&p.schema) {
                    Some((v, what)) => one(
                        format!("`{}` = {what}", p.name),
                        Category::EnumViolation,
                        self.with(p.name, v),
                    ),
                    None => Vec::new(),
                }
            }
            Spec::Boundaries(i) => {
                let p = &self.props[i];
                self.boundaries(p)
                    .into_iter()
                    .map(|(v, what)| {
                        (
                            format!("`{}` = {what}", p.name),
                            Category::Boundary,
                            self.with(p.name, v),
                        )
                    })
                    .collect()
            }
            Spec::Empty(i) => {
                let p = &self.props[i];
                let (v, what) = match p.ty {
                    Some("string") => (json!(""), "an empty string"),
                    Some("array") => (json!([]), "an empty array"),
                    _ => (json!({}), "an empty object"),
                };
                one(
                    format!("`{}` is {what}", p.name),
                    Category::EmptyValue,
                    self.with(p.name, v),
                )
            }
            Spec::Text(category, i) => {
                let p = &self.props[i];
                let (v, what) = text_case(category, p);
                one(
                    format!("`{}` is {what}", p.name),
                    category,
                    self.with(p.name, v),
                )
            }
            Spec::LongArray(i) => {
                let p = &self.props[i];
                let (v, n) = self.long_array(p);
                one(
                    format!("`{}` has {n} items", p.name),
                    Category::LongArray,
                    self.with(p.name, v),
                )
            }
            Spec::Deep(i) => {
                let p = &self.props[i];
                let v = mutate::nested(p.ty == Some("array"), DEEP_NESTING);
                one(
                    format!("`{}` is nested {DEEP_NESTING} levels deep", p.name),
                    Category::DeepNesting,
                    self.with(p.name, v),
                )
            }
            Spec::DeepExtra => one(
                format!("extra property `{EXTRA_PROPERTY}` nested {DEEP_NESTING} levels deep"),
                Category::DeepNesting,
                self.with(EXTRA_PROPERTY, mutate::nested(false, DEEP_NESTING)),
            ),
            Spec::Extra => one(
                format!("extra property `{EXTRA_PROPERTY}`"),
                Category::ExtraProperty,
                self.with(EXTRA_PROPERTY, json!("unexpected")),
            ),
        }
    }

    /// A property's boundary values, each with how a label says it.
    fn boundaries(&self, p: &Prop) -> Vec<(Value, String)> {
        let s = &p.schema;
        let num = |k: &str| s.get(k).and_then(Value::as_f64);
        let count = |k: &str| s.get(k).and_then(Value::as_u64).map(|n| n as usize);
        let mut out: Vec<(Value, String)> = Vec::new();
        let mut push = |v: Value, why: &str| {
            let what = match &v {
                Value::String(s) => format!("{} characters ({why})", s.chars().count()),
                Value::Array(a) => format!("{} items ({why})", a.len()),
                other => format!("{other} ({why})"),
            };
            out.push((v, what));
        };
        match p.ty {
            Some(t @ ("integer" | "number")) => {
                if let Some(m) = num("minimum") {
                    push(number(m - 1.0), "minimum - 1");
                }
                if let Some(m) = num("exclusiveMinimum") {
                    push(number(m), "exclusiveMinimum");
                }
                if let Some(m) = num("maximum") {
                    push(number(m + 1.0), "maximum + 1");
                }
                if let Some(m) = num("exclusiveMaximum") {
                    push(number(m), "exclusiveMaximum");
                }
                push(json!(0), "zero");
                push(json!(-1), "minus one");
                if t == "integer" {
                    push(json!(1.5), "not a whole number");
                }
                push(json!(i64::MAX), "i64::MAX");
                push(json!(i64::MIN), "i64::MIN");
                push(json!(1e308), "huge");
                push(json!(-0.0), "negative zero");
            }
            Some("string") => {
                if let Some(m) = count("maxLength").filter(|m| *m < HUGE_STRING_BYTES) {
                    push(json!("a".repeat(m + 1)), "maxLength + 1");
                }
                if let Some(m) = count("minLength").filter(|m| *m > 0 && *m <= HUGE_STRING_BYTES) {
                    push(json!("a".repeat(m - 1)), "minLength - 1");
                }
            }
            Some("array") => {
                let item = self.array_item(p);
                // Built only when it fits in a case.
                let item_bytes = serde_json::to_string(&item).map_or(usize::MAX, |s| s.len() + 1);
                let fits = |n: usize| n.saturating_mul(item_bytes) <= MAX_CASE_BYTES;
                if let Some(m) =
                    count("minItems").filter(|m| *m > 0 && *m <= LONG_ARRAY_ITEMS && fits(*m - 1))
                {
                    push(Value::Array(vec![item.clone(); m - 1]), "minItems - 1");
                }
                if let Some(m) = count("maxItems").filter(|m| *m < LONG_ARRAY_ITEMS && fits(*m + 1))
                {
                    push(Value::Array(vec![item; m + 1]), "maxItems + 1");
                }
            }
            _ => {}
        }
        // The same value twice (minimum 1: minimum - 1 is zero) is tried once.
        let mut seen: Vec<Value> = Vec::new();
        out.retain(|(v, _)| {
            let dup = seen.contains(v);
            seen.push(v.clone());
            !dup
        });
        out
    }

    /// One valid item of an array property (its first valid item, else one
    /// built from `items`, else `"example"`).
    fn array_item(&self, p: &Prop) -> Value {
        if let Some(first) = self
            .base
            .get(p.name)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return first.clone();
        }
        self.schema
            .zip(p.schema.get("items").filter(|i| !i.is_array()))
            .and_then(|(root, i)| valid_value(i, root))
            .unwrap_or_else(|| json!("example"))
    }

    /// A long array of valid items: [`LONG_ARRAY_ITEMS`], fewer when that
    /// would pass [`MAX_CASE_BYTES`].
    fn long_array(&self, p: &Prop) -> (Value, usize) {
        let item = self.array_item(p);
        let item_bytes = serde_json::to_string(&item).map_or(16, |s| s.len()) + 1;
        let base_bytes = serde_json::to_string(&self.base).map_or(0, |s| s.len());
        let room = MAX_CASE_BYTES.saturating_sub(base_bytes + 64);
        let n = LONG_ARRAY_ITEMS.min(room / item_bytes).max(1);
        (Value::Array(vec![item; n]), n)
    }
}

/// The value of a string category's case for one property, and how a
/// label says it.
fn text_case(category: Category, p: &Prop<'_>) -> (Value, String) {
    match category {
        Category::HugeString => (
            json!("A".repeat(HUGE_STRING_BYTES)),
            format!("a {} KiB string", HUGE_STRING_BYTES / 1024),
        ),
        Category::NulString => (
            json!("before\u{0}after"),
            "a string holding a NUL character".into(),
        ),
        Category::Unicode => (
            json!(mutate::UNICODE),
            "a string of RTL override, combining marks, emoji and BOM".into(),
        ),
        Category::PathTraversal => (
            json!(mutate::TRAVERSAL),
            format!("{:?} (path traversal)", mutate::TRAVERSAL),
        ),
        _ => format_breaker(&p.schema),
    }
}

/// A value of another type than `ty`, and how a label says it.
fn wrong_type(ty: Option<&str>) -> (Value, &'static str) {
    match ty {
        Some("string") => (json!(12345), "a number (12345), not a string"),
        Some("integer" | "number") => (
            json!("not a number"),
            "a string (\"not a number\"), not a number",
        ),
        Some("boolean") => (json!("true"), "a string (\"true\"), not a boolean"),
        Some("array") => (json!("not an array"), "a string, not an array"),
        Some("object") => (json!("not an object"), "a string, not an object"),
        Some("null") => (json!("not null"), "a string, not null"),
        _ => (
            json!({"unexpected": [1]}),
            "an object of an undeclared shape",
        ),
    }
}

/// A value outside a property's `enum` or `const`, of the same type where
/// it can be.
fn enum_violation(s: &Node<'_>) -> Option<(Value, String)> {
    let allowed: Vec<Value> = match (s.get("enum"), s.get("const")) {
        (Some(Value::Array(a)), _) => a.clone(),
        (_, Some(c)) => vec![c.clone()],
        _ => return None,
    };
    let v = if allowed.iter().any(Value::is_string) {
        let mut s = "mcpcheck-not-an-option".to_string();
        while allowed.contains(&json!(s)) {
            s.push('_');
        }
        json!(s)
    } else if let Some(max) = allowed.iter().filter_map(Value::as_f64).reduce(f64::max) {
        number(max.floor() + 1.0)
    } else if let [Value::Bool(b)] = allowed.as_slice() {
        json!(!b)
    } else {
        json!("mcpcheck-not-an-option")
    };
    Some((v.clone(), format!("{v} (not one of the allowed values)")))
}

/// A string breaking the property's `format`, or, without one, a string of
/// format specifiers, quotes, markup and shell syntax.
fn format_breaker(s: &Node<'_>) -> (Value, String) {
    let format = s.get("format").and_then(Value::as_str);
    let broken = format.and_then(|f| {
        Some(match f {
            "date" => "2025-02-30",
            "date-time" => "2025-13-45T25:61:00",
            "time" => "25:61:00",
            "email" | "idn-email" => "not-an-email@",
            "uri" | "iri" | "url" | "uri-reference" | "iri-reference" => "ht tp://exa mple/%zz",
            "uuid" => "not-a-uuid",
            "ipv4" => "999.1.1.1",
            "ipv6" => "2001:db8:::1::",
            "hostname" | "idn-hostname" => "-bad-.host_name-",
            "duration" => "P1Y2X",
            _ => return None,
        })
    });
    match (broken, format) {
        (Some(b), Some(f)) => (json!(b), format!("{b:?} (not a valid {f})")),
        _ => (
            json!(mutate::FORMAT_BREAKING),
            "a string of format specifiers, quotes, markup and shell syntax".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_node<T>(v: Value, f: impl FnOnce(&Node<'_>) -> T) -> T {
        let m = v.as_object().cloned().unwrap_or_default();
        f(&Node::plain(&m))
    }

    #[test]
    fn values_outside_enums_and_formats() {
        let (v, _) = with_node(
            json!({"enum": ["a", "mcpcheck-not-an-option"]}),
            enum_violation,
        )
        .unwrap_or((Value::Null, String::new()));
        assert_eq!(v, json!("mcpcheck-not-an-option_"));
        let (v, _) = with_node(json!({"enum": [1, 5.5]}), enum_violation).unwrap_or_default();
        assert_eq!(v, json!(6));
        let (v, _) = with_node(json!({"const": true}), enum_violation).unwrap_or_default();
        assert_eq!(v, json!(false));
        assert!(with_node(json!({"type": "string"}), enum_violation).is_none());
        let (v, what) = with_node(json!({"format": "date"}), format_breaker);
        assert_eq!(
            (v, what.as_str()),
            (json!("2025-02-30"), "\"2025-02-30\" (not a valid date)")
        );
        let (v, _) = with_node(json!({"format": "unknown-format"}), format_breaker);
        assert_eq!(v, json!(mutate::FORMAT_BREAKING));
        assert_eq!(wrong_type(Some("integer")).0, json!("not a number"));
        assert_eq!(wrong_type(None).0, json!({"unexpected": [1]}));
    }

    #[test]
    fn no_schema_means_an_empty_object() {
        let cases = fuzz_cases(&json!({"name": "t"}), 1, 10);
        assert_eq!(cases.len(), 10);
        assert_eq!(cases[0].arguments, Arguments::Value(json!({})));
        assert!(cases[0].schema_valid && cases[1].schema_valid, "{cases:?}");
        assert!(!cases[2].schema_valid);
        assert_eq!(systematic_count(&json!({"name": "t"})), 6);
        assert!(fuzz_cases(&json!({"name": "t"}), 1, 0).is_empty());
    }
}
