//! Shrinking a failing input to a smaller one that fails the same way.
//!
//! Worth shrinking: a serious failure ([`Status::is_serious`](super::Status::is_serious));
//! an accepted invalid input would shrink to the smallest invalid input the
//! server accepts, which says less than the case's own.
//!
//! The caller's loop: take [`shrink_candidates`] of the current input, send
//! them in order, classify each answer (with the candidate's own validity,
//! [`input_valid`](super::input_valid)), and keep the first candidate whose
//! status is the same as the original's; repeat from it until no candidate
//! keeps the status (or a call budget runs out). Every candidate has a
//! strictly smaller [`size`] than its input, so the loop ends: after at most
//! `size(original)` rounds.

use serde_json::{Map, Value};

use super::Arguments;

/// The most candidates offered for one input (the first ones in order).
pub const MAX_CANDIDATES: usize = 64;

/// Deeper than this, a value's insides are not visited for candidates.
const MAX_VISIT_DEPTH: usize = 128;

/// The measure shrinking decreases: omitted 0, `null` arguments 1, else 1 +
/// the value's size, where `null` is 1, a boolean 2, a number 2 when it is
/// zero and 3 otherwise, a string 2 + its characters, an array 2 + its items'
/// sizes, an object 2 + for each property 1 + its name's characters + its
/// value's size.
pub fn size(arguments: &Arguments) -> usize {
    match arguments {
        Arguments::Omitted => 0,
        Arguments::Null => 1,
        Arguments::Value(v) => 1 + value_size(v),
    }
}

fn value_size(v: &Value) -> usize {
    match v {
        Value::Null => 1,
        Value::Bool(_) => 2,
        Value::Number(n) => {
            if is_zero(n) {
                2
            } else {
                3
            }
        }
        Value::String(s) => 2 + s.chars().count(),
        Value::Array(a) => 2 + a.iter().map(value_size).sum::<usize>(),
        Value::Object(o) => {
            2 + o
                .iter()
                .map(|(k, x)| 1 + k.chars().count() + value_size(x))
                .sum::<usize>()
        }
    }
}

fn is_zero(n: &serde_json::Number) -> bool {
    n.as_f64() == Some(0.0)
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Smaller inputs to try, in this order (the first [`MAX_CANDIDATES`]):
///
/// 1. each property of the arguments object dropped (keys in order);
/// 2. each non-empty array cut to its first half, then (two items or more)
///    to its second half (arrays in pre-order);
/// 3. each non-empty string cut to its first half (in characters);
/// 4. each property of a nested object dropped;
/// 5. each array or object below the top replaced by `null`;
/// 6. each number other than zero replaced by `0`.
///
/// Big cuts come first, so a long array or string shrinks in a logarithmic
/// number of rounds. Omitted and `null` arguments, and anything already
/// minimal, give none. Every candidate's [`size`] is strictly below the
/// input's. [`shrink_iter`] gives the same candidates one at a time, each
/// built only when asked for.
pub fn shrink_candidates(arguments: &Arguments) -> Vec<Arguments> {
    shrink_iter(arguments).collect()
}

/// [`shrink_candidates`], lazily: a candidate is built when the iterator
/// reaches it, so a caller that stops at the first one that reproduces
/// does not copy a large input [`MAX_CANDIDATES`] times.
pub fn shrink_iter(arguments: &Arguments) -> impl Iterator<Item = Arguments> + '_ {
    let edits = match arguments {
        Arguments::Value(root) => edits(root),
        _ => Vec::new(),
    };
    edits.into_iter().filter_map(move |(steps, edit)| {
        let Arguments::Value(root) = arguments else {
            return None;
        };
        let mut v = root.clone();
        let slot = at(&mut v, &steps)?;
        *slot = apply(slot, &edit)?;
        Some(Arguments::Value(v))
    })
}

/// One way to make a node smaller.
enum Edit {
    DropKey(String),
    FirstHalf,
    SecondHalf,
    HalfString,
    Null,
    Zero,
}

fn apply(v: &Value, edit: &Edit) -> Option<Value> {
    match edit {
        Edit::DropKey(k) => drop_key(v, k),
        Edit::FirstHalf => half_array(v, true),
        Edit::SecondHalf => half_array(v, false),
        Edit::HalfString => half_string(v),
        Edit::Null => Some(Value::Null),
        Edit::Zero => Some(Value::from(0)),
    }
}

/// The edits one phase of [`shrink_candidates`] makes at a node.
type Phase<'a> = &'a dyn Fn(&[Step], &Value) -> Vec<Edit>;

/// The edits of [`shrink_candidates`], in order, at most [`MAX_CANDIDATES`].
fn edits(root: &Value) -> Vec<(Vec<Step>, Edit)> {
    let mut nodes: Vec<(Vec<Step>, &Value)> = Vec::new();
    visit(root, &mut Vec::new(), &mut nodes);
    let mut out: Vec<(Vec<Step>, Edit)> = Vec::new();
    let phases: [Phase<'_>; 6] = [
        &|steps, v| match v {
            Value::Object(o) if steps.is_empty() => {
                o.keys().map(|k| Edit::DropKey(k.clone())).collect()
            }
            _ => Vec::new(),
        },
        &|_, v| match v {
            Value::Array(a) if a.len() >= 2 => vec![Edit::FirstHalf, Edit::SecondHalf],
            Value::Array(a) if !a.is_empty() => vec![Edit::FirstHalf],
            _ => Vec::new(),
        },
        &|_, v| match v {
            Value::String(s) if !s.is_empty() => vec![Edit::HalfString],
            _ => Vec::new(),
        },
        &|steps, v| match v {
            Value::Object(o) if !steps.is_empty() => {
                o.keys().map(|k| Edit::DropKey(k.clone())).collect()
            }
            _ => Vec::new(),
        },
        &|steps, v| {
            if !steps.is_empty() && (v.is_array() || v.is_object()) {
                vec![Edit::Null]
            } else {
                Vec::new()
            }
        },
        &|_, v| match v {
            Value::Number(n) if !is_zero(n) => vec![Edit::Zero],
            _ => Vec::new(),
        },
    ];
    for phase in phases {
        for (steps, v) in &nodes {
            for e in phase(steps, v) {
                if out.len() == MAX_CANDIDATES {
                    return out;
                }
                out.push((steps.clone(), e));
            }
        }
    }
    out
}

/// Every node in pre-order with the steps to it (a few thousand at most).
fn visit<'a>(v: &'a Value, steps: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, &'a Value)>) {
    if out.len() >= 4096 {
        return;
    }
    out.push((steps.clone(), v));
    if steps.len() >= MAX_VISIT_DEPTH {
        return;
    }
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                steps.push(Step::Key(k.clone()));
                visit(x, steps, out);
                steps.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                steps.push(Step::Index(i));
                visit(x, steps, out);
                steps.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let mut cur = v;
    for s in steps {
        cur = match (s, cur) {
            (Step::Key(k), Value::Object(o)) => o.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn drop_key(v: &Value, k: &str) -> Option<Value> {
    let o = v.as_object()?;
    let m: Map<String, Value> = o
        .iter()
        .filter(|(key, _)| key.as_str() != k)
        .map(|(key, x)| (key.clone(), x.clone()))
        .collect();
    Some(Value::Object(m))
}

fn half_array(v: &Value, first: bool) -> Option<Value> {
    let a = v.as_array()?;
    let (head, tail) = a.split_at(a.len() / 2);
    Some(Value::Array(if first { head } else { tail }.to_vec()))
}

fn half_string(v: &Value) -> Option<Value> {
    let s = v.as_str()?;
    let n = s.chars().count();
    Some(Value::String(s.chars().take(n / 2).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shrink_to_fixpoint(
        start: Arguments,
        keeps: impl Fn(&Arguments) -> bool,
    ) -> (Arguments, usize) {
        let mut cur = start;
        let mut rounds = 0;
        loop {
            let before = size(&cur);
            let next = shrink_candidates(&cur).into_iter().find(|c| {
                assert!(size(c) < before, "{c:?} is not smaller than {cur:?}");
                keeps(c)
            });
            match next {
                Some(n) => {
                    cur = n;
                    rounds += 1;
                }
                None => return (cur, rounds),
            }
        }
    }

    #[test]
    fn every_candidate_is_smaller_and_the_loop_ends() {
        let deep = super::super::mutate::nested(false, 64);
        let start = Arguments::Value(json!({
            "path": "A".repeat(100_000),
            "deep": deep,
            "list": vec![json!("item"); 10_000],
            "n": 12345,
            "flag": true
        }));
        // Everything reproduces: shrinks to the smallest input reachable.
        let (end, rounds) = shrink_to_fixpoint(start.clone(), |_| true);
        assert_eq!(end, Arguments::Value(json!({})));
        assert!(rounds < 10, "{rounds}");
        // Only inputs whose `path` holds an `A` reproduce.
        let (end, rounds) = shrink_to_fixpoint(start, |c| {
            c.as_value()
                .and_then(|v| {
                    v.get("path")
                        .and_then(Value::as_str)
                        .map(|s| s.contains('A'))
                })
                .unwrap_or(false)
        });
        assert_eq!(end, Arguments::Value(json!({"path": "A"})));
        assert!(rounds < 40, "{rounds}");
        // A deep value whose depth must stay above 60.
        let start = Arguments::Value(json!({"x": super::super::mutate::nested(true, 64)}));
        let (end, _) = shrink_to_fixpoint(start, |c| {
            c.as_value()
                .is_some_and(|v| super::super::mutate::depth_of(&v) > 60)
        });
        assert_eq!(
            super::super::mutate::depth_of(end.as_value().as_ref().unwrap_or(&Value::Null)),
            61
        );
    }

    #[test]
    fn order_and_edges() {
        let c = shrink_candidates(&Arguments::Value(json!({"a": "xy", "b": [1, 2, 3]})));
        let shown: Vec<String> = c.iter().map(|a| a.to_json().to_string()).collect();
        assert_eq!(
            shown,
            [
                r#"{"b":[1,2,3]}"#,
                r#"{"a":"xy"}"#,
                r#"{"a":"xy","b":[1]}"#,
                r#"{"a":"xy","b":[2,3]}"#,
                r#"{"a":"x","b":[1,2,3]}"#,
                r#"{"a":"xy","b":null}"#,
                r#"{"a":"xy","b":[0,2,3]}"#,
                r#"{"a":"xy","b":[1,0,3]}"#,
                r#"{"a":"xy","b":[1,2,0]}"#,
            ]
        );
        assert!(shrink_candidates(&Arguments::Omitted).is_empty());
        assert!(shrink_candidates(&Arguments::Null).is_empty());
        assert!(shrink_candidates(&Arguments::Value(json!({}))).is_empty());
        assert_eq!(size(&Arguments::Omitted), 0);
        assert_eq!(size(&Arguments::Value(json!({"a": 0}))), 1 + 2 + 1 + 1 + 2);
        assert_eq!(size(&Arguments::Value(json!(-0.0))), 1 + 2);
    }
}
