//! One stable sort for the core's short lists (findings, diagnostics, keys).
//!
//! `slice::sort_by` is compiled anew for every element type and comparison,
//! a few kilobytes each in the wasm module. These sort a list of indices
//! instead, with one compiled sort behind a `dyn` comparison, and then move
//! the elements into that order. The result is exactly the standard library's
//! stable sort: elements that compare equal keep their order.

use std::cmp::Ordering;

/// Sorts `v` like `v.sort_by_key(key)`.
pub(crate) fn by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` like `v.sort()` (or `sort_unstable()`, for elements that are
/// equal only when they are the same).
pub(crate) fn ord<T: Ord>(v: &mut Vec<T>) {
    by(v, T::cmp);
}

/// Sorts `v` like `v.sort_by(compare)`.
pub(crate) fn by<T>(v: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = indices(v.len(), &|a, b| compare(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// `0..n` sorted stably by `compare`: the one instance of the sort.
#[inline(never)]
fn indices(n: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_like_the_standard_sort() {
        let words = [
            "pear", "fig", "apple", "kiwi", "plum", "date", "lime", "fig",
        ];
        let mut ours: Vec<(usize, &str)> = words.iter().copied().enumerate().collect();
        let mut theirs = ours.clone();
        by_key(&mut ours, |(_, w)| w.len());
        theirs.sort_by_key(|(_, w)| w.len());
        assert_eq!(ours, theirs);
        let mut ours: Vec<&str> = words.to_vec();
        ord(&mut ours);
        let mut theirs = words.to_vec();
        theirs.sort();
        assert_eq!(ours, theirs);
        let mut one = vec![3];
        by(&mut one, |a: &i32, b| b.cmp(a));
        assert_eq!(one, [3]);
    }
}
