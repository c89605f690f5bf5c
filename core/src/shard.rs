//! Spreading one suite over several machines (`mcpcheck run --shard i/n`)
//! and putting the pieces back together (`mcpcheck report --merge`).
//!
//! ## The split
//!
//! The tests are grouped into *units*, the pieces the split moves around:
//!
//! - a file in mcp-assert's per-file form is one unit (it holds one test);
//! - a file in the composed form (`tests:`) gives one unit per test, so one
//!   big suite file spreads over the machines too;
//! - a composed file that sets `share_server` is one unit: its tests run one
//!   after another on one server session and stay together.
//!
//! A unit's key is its file's path as the run names it (`./` and `\` are
//! normalised away), followed by `::` and the test's name for a test of a
//! composed file (and `#k` for the k-th repeat of a name within one file).
//! Every machine must therefore name the suite with the same relative path.
//!
//! Without timings, a unit goes to shard `1 + h(key) mod n`, where `h` is
//! 64-bit FNV-1a followed by the MurmurHash3 finaliser: fixed, the same on
//! every platform and in every release. A unit's shard depends on its key and
//! `n` only, so adding, removing or renaming a test moves no other test.
//!
//! With timings (the results document of an earlier run), the units that
//! have a duration in it are dealt longest first, each to the shard with the
//! least time so far (ties to the lowest shard number, equal durations in key
//! order). Units the timings do not know (added since) still go by their
//! hash, and are not counted in the dealing, so they too move nothing else.
//! The timings must be the same file on every machine.
//!
//! ## The record
//!
//! A shard's results document carries `shard`: which one it is, how many
//! there are, a fingerprint of the timings used (if any), and the `plan`:
//! every test of the whole run, in the order a single run gives them. The
//! merge checks the pieces against it and puts the tests back in that order.
//!
//! ## The merge
//!
//! [`merge`] takes the documents and gives one document equal to a single
//! run's: the same tests in the same order, so the same counts and gate. It
//! refuses a test present twice, shards of different suites, runs split in
//! different ways (another `n`, other timings) and missing shards, naming the
//! documents. Documents without a record (runs split by hand, e.g. one per
//! directory) are concatenated in the order given, and still refused when a
//! test is in two of them. The merged `summary.duration_ms` is the sum of
//! the pieces' (the time the suite took, as a single machine would report
//! it); each test keeps its own duration.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::results::{Results, TestResult};

/// Which piece of the split a run is: shard `index` of `total`, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub total: u32,
}

/// Why a `--shard` value was refused; each names the value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error(
        "`{0}` is not a shard: write i/n, this machine's number and the number of machines, with 1 <= i <= n (e.g. 2/4)"
    )]
    Syntax(String),
    #[error("`{0}`: the number of shards must be at least 1")]
    NoShards(String),
    #[error(
        "`{given}`: the shard number must be between 1 and {total} (shards are counted from 1)"
    )]
    OutOfRange { given: String, total: u32 },
}

impl Shard {
    /// Read `i/n` (1 ≤ i ≤ n).
    pub fn parse(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Syntax(s.to_string());
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let total: u32 = n.trim().parse().map_err(|_| bad())?;
        if total == 0 {
            return Err(ShardError::NoShards(s.to_string()));
        }
        if index == 0 || index > total {
            return Err(ShardError::OutOfRange {
                given: s.to_string(),
                total,
            });
        }
        Ok(Shard { index, total })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.total)
    }
}

/// One test of the run, as the split sees it.
#[derive(Clone, Copy, Debug)]
pub struct PlanTest<'a> {
    pub file: &'a str,
    pub name: &'a str,
    /// The test's file is in the composed (`tests:`) form.
    pub composed: bool,
    /// The test's file sets `share_server`: the whole file is one unit.
    pub share_server: bool,
}

/// A path as the split compares it: no leading `./`, `/` as separator.
pub fn normalize_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    let mut s = p.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest.trim_start_matches('/');
    }
    s.to_string()
}

/// A group of tests that goes to one shard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub key: String,
    /// Indices into the plan, in plan order.
    pub tests: Vec<usize>,
}

/// The units of a plan, in the order their first test appears.
pub fn units(plan: &[PlanTest<'_>]) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    let mut repeats: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for (i, t) in plan.iter().enumerate() {
        let file = normalize_path(t.file);
        let key = if t.composed && !t.share_server {
            let seen = repeats.entry((file.clone(), t.name)).or_insert(0);
            let key = match *seen {
                0 => format!("{file}::{}", t.name),
                k => format!("{file}::{}#{k}", t.name),
            };
            *seen += 1;
            key
        } else {
            file
        };
        match at.get(&key) {
            Some(&u) => out[u].tests.push(i),
            None => {
                at.insert(key.clone(), out.len());
                out.push(Unit {
                    key,
                    tests: vec![i],
                });
            }
        }
    }
    out
}

/// 64-bit FNV-1a with the MurmurHash3 finaliser (so that `mod n` spreads
/// keys that differ in their last characters only).
pub fn stable_hash(key: &str) -> u64 {
    fmix64(fnv1a64(key.as_bytes()))
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The shard (1-based) a key goes to without timings.
pub fn hashed_shard(key: &str, total: u32) -> u32 {
    let n = u64::from(total.max(1));
    // The remainder is below `total`, so it fits.
    u32::try_from(stable_hash(key) % n).unwrap_or(0) + 1
}

/// Test durations from an earlier run, by file and name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// (normalised file, name) → the durations of the tests of that name in
    /// that file, in document order.
    by_test: BTreeMap<(String, String), Vec<u64>>,
}

impl Timings {
    /// The durations of an earlier results document's tests (skipped tests
    /// carry none).
    pub fn from_results(r: &Results) -> Timings {
        let mut by_test: BTreeMap<(String, String), Vec<u64>> = BTreeMap::new();
        for t in &r.tests {
            if t.status == crate::results::TestStatus::Skip {
                continue;
            }
            by_test
                .entry((normalize_path(&t.file), t.name.clone()))
                .or_default()
                .push(t.duration_ms);
        }
        Timings { by_test }
    }

    /// How many tests have a duration.
    pub fn len(&self) -> usize {
        self.by_test.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.by_test.is_empty()
    }

    /// A fingerprint of the durations, so shards split with different
    /// timings can be told apart.
    pub fn fingerprint(&self) -> String {
        let mut text = String::new();
        for ((file, name), ms) in &self.by_test {
            text.push_str(&format!("{file}\u{0}{name}\u{0}{ms:?}\n"));
        }
        format!("{:016x}", stable_hash(&text))
    }

    /// A unit's duration: the sum over its tests that have one; `None` when
    /// none of them has. `occurrence[i]` says which test of its name in its
    /// file plan test i is.
    fn of_unit(&self, plan: &[PlanTest<'_>], occurrence: &[usize], unit: &Unit) -> Option<u64> {
        let mut total: Option<u64> = None;
        for &i in &unit.tests {
            let t = &plan[i];
            let ms = self
                .by_test
                .get(&(normalize_path(t.file), t.name.to_string()))
                .and_then(|v| v.get(occurrence[i]));
            if let Some(ms) = ms {
                total = Some(total.unwrap_or(0).saturating_add(*ms));
            }
        }
        total
    }
}

/// The shard (1-based) of every test of `plan`, in plan order.
pub fn split(plan: &[PlanTest<'_>], total: u32, timings: Option<&Timings>) -> Vec<u32> {
    let total = total.max(1);
    let mut shard_of = vec![1u32; plan.len()];
    let mut timed: Vec<(u64, Unit)> = Vec::new();
    let occurrence: Vec<usize> = identities(plan.iter().map(|t| (t.file, t.name)))
        .into_iter()
        .map(|(_, _, k)| k)
        .collect();
    for unit in units(plan) {
        match timings.and_then(|t| t.of_unit(plan, &occurrence, &unit)) {
            Some(ms) => timed.push((ms, unit)),
            None => {
                let s = hashed_shard(&unit.key, total);
                for &i in &unit.tests {
                    shard_of[i] = s;
                }
            }
        }
    }
    // Longest first; equal durations in key order, so every machine deals
    // the same hand.
    timed.sort_by(|(a, ua), (b, ub)| b.cmp(a).then_with(|| ua.key.cmp(&ub.key)));
    let mut load = vec![0u64; total as usize];
    for (ms, unit) in timed {
        let (least, _) = load
            .iter()
            .enumerate()
            .min_by_key(|(i, l)| (**l, *i))
            .unwrap_or((0, &0));
        load[least] = load[least].saturating_add(ms);
        let s = u32::try_from(least).unwrap_or(0) + 1;
        for &i in &unit.tests {
            shard_of[i] = s;
        }
    }
    shard_of
}

/// The indices of the tests of `plan` that `shard` runs, in plan order.
pub fn select(plan: &[PlanTest<'_>], shard: Shard, timings: Option<&Timings>) -> Vec<usize> {
    split(plan, shard.total, timings)
        .into_iter()
        .enumerate()
        .filter(|(_, s)| *s == shard.index)
        .map(|(i, _)| i)
        .collect()
}

/// A test of the whole run, as the record lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PlannedTest {
    pub file: String,
    pub name: String,
}

/// What a shard's results document says about the split (its `shard` field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardRecord {
    /// This shard's number, from 1.
    pub index: u32,
    /// How many shards the suite was split into.
    pub total: u32,
    /// The fingerprint of the `--shard-timings` used; absent when the split
    /// went by hash alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<String>,
    /// Every test of the whole run (all shards), in single-run order.
    pub plan: Vec<PlannedTest>,
}

impl ShardRecord {
    /// The record of `shard` of `plan`.
    pub fn new(shard: Shard, plan: &[PlanTest<'_>], timings: Option<&Timings>) -> ShardRecord {
        ShardRecord {
            index: shard.index,
            total: shard.total,
            timings: timings.map(Timings::fingerprint),
            plan: plan
                .iter()
                .map(|t| PlannedTest {
                    file: t.file.to_string(),
                    name: t.name.to_string(),
                })
                .collect(),
        }
    }
}

/// Why documents could not be merged. The message names the documents.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MergeError(pub String);

/// A test's identity within a run: file, name, and which occurrence of that
/// name in that file it is.
type Identity = (String, String, usize);

fn identities<'a>(tests: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Identity> {
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    tests
        .map(|(file, name)| {
            let key = (normalize_path(file), name.to_string());
            let n = seen.entry(key.clone()).or_insert(0);
            let id = (key.0, key.1, *n);
            *n += 1;
            id
        })
        .collect()
}

fn describe(id: &Identity) -> String {
    format!("`{}` ({})", id.1, id.0)
}

/// Merge results documents, each named (by its file) for the errors. See
/// the module docs.
pub fn merge(docs: &[(String, Results)]) -> Result<Results, MergeError> {
    let Some((_, first)) = docs.first() else {
        return Err(MergeError("no results documents to merge".into()));
    };
    let recorded: Vec<&(String, Results)> =
        docs.iter().filter(|(_, r)| r.shard.is_some()).collect();
    let tests = if recorded.is_empty() {
        concatenate(docs)?
    } else if recorded.len() < docs.len() {
        let plain = docs
            .iter()
            .find(|(_, r)| r.shard.is_none())
            .map_or("", |(n, _)| n.as_str());
        return Err(MergeError(format!(
            "{} is a shard of a split run (it records shard {}/{}) and {plain} is not: merge the shards of one `run --shard` together",
            recorded[0].0,
            recorded[0].1.shard.as_ref().map_or(0, |s| s.index),
            recorded[0].1.shard.as_ref().map_or(0, |s| s.total),
        )));
    } else {
        reassemble(docs)?
    };
    let duration = docs.iter().fold(0u64, |acc, (_, r)| {
        acc.saturating_add(r.summary.duration_ms)
    });
    let mut merged = Results::new(tests, duration);
    merged.tool = first.tool.clone();
    Ok(merged)
}

/// Documents without a shard record: their tests in the order given, none twice.
fn concatenate(docs: &[(String, Results)]) -> Result<Vec<TestResult>, MergeError> {
    let mut owner: BTreeMap<Identity, &str> = BTreeMap::new();
    let mut tests = Vec::new();
    for (name, r) in docs {
        let ids = identities(r.tests.iter().map(|t| (t.file.as_str(), t.name.as_str())));
        for (id, t) in ids.into_iter().zip(&r.tests) {
            if let Some(other) = owner.insert(id.clone(), name) {
                return Err(MergeError(format!(
                    "test {} is in both {other} and {name}: merge results of different tests (each test in one document)",
                    describe(&id)
                )));
            }
            tests.push(t.clone());
        }
    }
    Ok(tests)
}

/// Shards of one split run: checked against their common plan, the tests put
/// back in its order.
fn reassemble(docs: &[(String, Results)]) -> Result<Vec<TestResult>, MergeError> {
    let records: Vec<(&str, &ShardRecord, &Results)> = docs
        .iter()
        .filter_map(|(n, r)| r.shard.as_ref().map(|s| (n.as_str(), s, r)))
        .collect();
    let (first_name, first, _) = records[0];
    for &(name, rec, _) in &records[1..] {
        if rec.total != first.total {
            return Err(MergeError(format!(
                "{first_name} is shard {}/{} and {name} is shard {}/{}: merge the shards of one split (the same n)",
                first.index, first.total, rec.index, rec.total
            )));
        }
        if rec.plan != first.plan {
            let a: BTreeSet<&PlannedTest> = first.plan.iter().collect();
            let b: BTreeSet<&PlannedTest> = rec.plan.iter().collect();
            let what = match (a.difference(&b).next(), b.difference(&a).next()) {
                (Some(t), _) => format!("`{}` ({}) is only in {first_name}'s", t.name, t.file),
                (None, Some(t)) => format!("`{}` ({}) is only in {name}'s", t.name, t.file),
                (None, None) => "the tests are in another order".to_string(),
            };
            return Err(MergeError(format!(
                "{first_name} and {name} are shards of different suites ({what}): every shard must run the same suite with the same --filter"
            )));
        }
        if rec.timings != first.timings {
            return Err(MergeError(format!(
                "{first_name} and {name} were split with different --shard-timings: give every shard the same timings file (or none)"
            )));
        }
    }
    let mut by_index: BTreeMap<u32, &str> = BTreeMap::new();
    for &(name, rec, _) in &records {
        if rec.total == 0 || rec.index == 0 || rec.index > rec.total {
            return Err(MergeError(format!(
                "{name} records shard {}/{}, which no split has (shards are counted from 1 to n): the document was damaged or edited",
                rec.index, rec.total
            )));
        }
        if let Some(other) = by_index.insert(rec.index, name) {
            return Err(MergeError(format!(
                "{other} and {name} are both shard {}/{}: each shard once",
                rec.index, rec.total
            )));
        }
    }
    // Every index is within 1..=total and none is given twice, so the
    // shards missing are counted, not listed one by one: a forged total of
    // 4294967295 must not become four billion names.
    let missing_count = first.total as usize - by_index.len();
    if missing_count > 0 {
        const SHOWN: usize = 10;
        let mut missing: Vec<String> = (1..=first.total)
            .filter(|i| !by_index.contains_key(i))
            .take(SHOWN)
            .map(|i| format!("{i}/{}", first.total))
            .collect();
        if missing_count > SHOWN {
            missing.push(format!("and {} more", missing_count - SHOWN));
        }
        let given: Vec<&str> = records.iter().map(|(n, _, _)| *n).collect();
        return Err(MergeError(format!(
            "shard{} {} missing (given: {}): merge the results of all {} shards",
            if missing_count == 1 { "" } else { "s" },
            if missing_count == 1 {
                format!("{} is", missing[0])
            } else {
                format!("{} are", missing.join(", "))
            },
            given.join(", "),
            first.total
        )));
    }
    let plan_ids = identities(
        first
            .plan
            .iter()
            .map(|t| (t.file.as_str(), t.name.as_str())),
    );
    let position: BTreeMap<&Identity, usize> =
        plan_ids.iter().enumerate().map(|(i, id)| (id, i)).collect();
    let mut slots: Vec<Option<(TestResult, &str)>> = vec![None; plan_ids.len()];
    for &(name, _, r) in &records {
        let ids = identities(r.tests.iter().map(|t| (t.file.as_str(), t.name.as_str())));
        for (id, t) in ids.iter().zip(&r.tests) {
            let Some(&at) = position.get(id) else {
                return Err(MergeError(format!(
                    "{name} has test {} that its own plan does not list: the document was edited or is damaged",
                    describe(id)
                )));
            };
            if let Some((_, other)) = &slots[at] {
                return Err(MergeError(format!(
                    "test {} is in both {other} and {name}: the shards overlap (were they split with the same --shard-timings?)",
                    describe(id)
                )));
            }
            slots[at] = Some((t.clone(), name));
        }
    }
    if let Some(at) = slots.iter().position(Option::is_none) {
        let n = slots.iter().filter(|s| s.is_none()).count();
        return Err(MergeError(format!(
            "test {} {}is in none of the shards ({}): a shard stopped early, or they were split with different --shard-timings",
            describe(&plan_ids[at]),
            if n > 1 {
                format!("and {} more ", n - 1)
            } else {
                String::new()
            },
            records
                .iter()
                .map(|(n, _, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(slots.into_iter().flatten().map(|(t, _)| t).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TestStatus;

    fn per_file(names: &[String]) -> Vec<PlanTest<'_>> {
        names
            .iter()
            .map(|f| PlanTest {
                file: f,
                name: f,
                composed: false,
                share_server: false,
            })
            .collect()
    }

    fn files(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("evals/test_{i:03}.yaml")).collect()
    }

    #[test]
    fn shard_specs_are_validated() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, total: 4 }));
        assert_eq!(Shard::parse(" 1 / 1 "), Ok(Shard { index: 1, total: 1 }));
        for bad in ["0/3", "4/3", "1/0", "a/b", "3", "", "-1/2", "1/2/3"] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad.trim()), "{bad}: {e}");
        }
        assert!(
            Shard::parse("4/3")
                .unwrap_err()
                .to_string()
                .contains("between 1 and 3")
        );
        assert_eq!(Shard { index: 2, total: 5 }.to_string(), "2/5");
    }

    #[test]
    fn the_hash_is_fixed() {
        // FNV-1a's published test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        // MurmurHash3's finaliser keeps 0 at 0 and mixes the rest.
        assert_eq!(fmix64(0), 0);
        // Pinned: a release that changed these would reshuffle every split.
        let pinned: Vec<u32> = ["a.yaml", "b.yaml", "c.yaml", "d.yaml", "e.yaml"]
            .iter()
            .map(|k| hashed_shard(k, 3))
            .collect();
        assert_eq!(pinned, PINNED_A_TO_E_OF_3);
        // The key is the normalised path.
        let plan = |f| {
            [PlanTest {
                file: f,
                name: "x",
                composed: false,
                share_server: false,
            }]
        };
        assert_eq!(units(&plan("./evals/add.yaml"))[0].key, "evals/add.yaml");
        assert_eq!(units(&plan("evals\\add.yaml"))[0].key, "evals/add.yaml");
        assert_eq!(
            split(&plan("./evals/add.yaml"), 4, None),
            split(&plan("evals/add.yaml"), 4, None)
        );
    }

    const PINNED_A_TO_E_OF_3: [u32; 5] = [3, 1, 3, 3, 3];

    #[test]
    fn every_test_is_in_exactly_one_shard() {
        let names = files(57);
        let plan = per_file(&names);
        for n in 1..=6u32 {
            let mut seen = vec![0u32; plan.len()];
            for i in 1..=n {
                for t in select(&plan, Shard { index: i, total: n }, None) {
                    seen[t] += 1;
                }
            }
            assert!(seen.iter().all(|c| *c == 1), "n={n}: {seen:?}");
            let shards = split(&plan, n, None);
            assert!(shards.iter().all(|s| (1..=n).contains(s)));
        }
    }

    #[test]
    fn the_hash_spreads_the_tests() {
        let names = files(400);
        let plan = per_file(&names);
        let shards = split(&plan, 4, None);
        for s in 1..=4 {
            let count = shards.iter().filter(|x| **x == s).count();
            assert!((60..=140).contains(&count), "shard {s} has {count} of 400");
        }
    }

    #[test]
    fn adding_or_removing_a_test_moves_no_other_test() {
        let names = files(40);
        let before = split(&per_file(&names), 3, None);
        let mut more = names.clone();
        more.insert(17, "evals/new_one.yaml".into());
        let after = split(&per_file(&more), 3, None);
        let mut after_without_new = after.clone();
        after_without_new.remove(17);
        assert_eq!(before, after_without_new);
        let mut fewer = names.clone();
        fewer.remove(5);
        let mut before_without = before.clone();
        before_without.remove(5);
        assert_eq!(split(&per_file(&fewer), 3, None), before_without);
    }

    fn composed<'a>(file: &'a str, names: &'a [&'a str], share: bool) -> Vec<PlanTest<'a>> {
        names
            .iter()
            .map(|n| PlanTest {
                file,
                name: n,
                composed: true,
                share_server: share,
            })
            .collect()
    }

    #[test]
    fn a_composed_file_splits_by_test_unless_it_shares_a_server() {
        let names = ["a", "b", "a", "c"];
        let u = units(&composed("./s.yaml", &names, false));
        let keys: Vec<&str> = u.iter().map(|u| u.key.as_str()).collect();
        assert_eq!(keys, ["s.yaml::a", "s.yaml::b", "s.yaml::a#1", "s.yaml::c"]);
        let shared = units(&composed("s.yaml", &names, true));
        assert_eq!(
            shared,
            [Unit {
                key: "s.yaml".into(),
                tests: vec![0, 1, 2, 3]
            }]
        );
        let shards = split(&composed("s.yaml", &names, true), 4, None);
        assert!(shards.iter().all(|s| *s == shards[0]));
        // Adding a test to a composed file moves none of its others.
        let more = ["a", "b", "new", "a", "c"];
        let mut after = split(&composed("s.yaml", &more, false), 3, None);
        after.remove(2);
        assert_eq!(after, split(&composed("s.yaml", &names, false), 3, None));
    }

    fn timed(tests: &[(&str, u64)]) -> Timings {
        let results = tests
            .iter()
            .map(|(f, ms)| {
                let mut t = TestResult::error(f, f, Some(1), "", *ms);
                t.status = TestStatus::Pass;
                t
            })
            .collect();
        Timings::from_results(&Results::new(results, 0))
    }

    fn loads(plan: &[PlanTest<'_>], shards: &[u32], times: &[(&str, u64)], n: u32) -> Vec<u64> {
        let mut load = vec![0u64; n as usize];
        for (t, s) in plan.iter().zip(shards) {
            let ms = times.iter().find(|(f, _)| *f == t.file).map_or(0, |x| x.1);
            load[*s as usize - 1] += ms;
        }
        load
    }

    #[test]
    fn timings_balance_the_shards() {
        let times: Vec<(String, u64)> =
            [9000u64, 7000, 6000, 5000, 4000, 3000, 2000, 1000, 500, 500]
                .iter()
                .enumerate()
                .map(|(i, ms)| (format!("t{i}.yaml"), *ms))
                .collect();
        let times: Vec<(&str, u64)> = times.iter().map(|(f, ms)| (f.as_str(), *ms)).collect();
        let names: Vec<String> = times.iter().map(|(f, _)| f.to_string()).collect();
        let plan = per_file(&names);
        let t = timed(&times);
        let shards = split(&plan, 3, Some(&t));
        let load = loads(&plan, &shards, &times, 3);
        // 38,000 ms over 3: the dealing reaches 13,000 / 12,500 / 12,500.
        assert_eq!(load.iter().sum::<u64>(), 38_000);
        assert!(
            load.iter().max().unwrap() - load.iter().min().unwrap() <= 500,
            "{load:?}"
        );
        let hashed = loads(&plan, &split(&plan, 3, None), &times, 3);
        assert!(
            hashed.iter().max() >= load.iter().max(),
            "{hashed:?} vs {load:?}"
        );
        // The same timings give the same split everywhere.
        assert_eq!(shards, split(&plan, 3, Some(&timed(&times))));
    }

    #[test]
    fn a_test_without_timings_goes_by_hash_and_moves_nothing() {
        let times = [("a.yaml", 300u64), ("b.yaml", 200), ("c.yaml", 100)];
        let names: Vec<String> = ["a.yaml", "new.yaml", "b.yaml", "c.yaml"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let t = timed(&times);
        let with_new = split(&per_file(&names), 2, Some(&t));
        assert_eq!(with_new[1], hashed_shard("new.yaml", 2));
        let without: Vec<String> = names.iter().filter(|n| *n != "new.yaml").cloned().collect();
        let mut expect = with_new.clone();
        expect.remove(1);
        assert_eq!(split(&per_file(&without), 2, Some(&t)), expect);
        // Longest first to the emptiest shard: a alone, b and c together.
        assert_eq!(expect, [1, 2, 2]);
    }

    #[test]
    fn repeated_names_in_a_composed_file_get_their_own_timings() {
        let names = ["x", "x", "y"];
        let plan = composed("s.yaml", &names, false);
        let results = [("x", 1000u64), ("x", 10), ("y", 990)]
            .iter()
            .map(|(n, ms)| {
                let mut t = TestResult::error(n, "s.yaml", Some(1), "", *ms);
                t.status = TestStatus::Pass;
                t
            })
            .collect();
        let t = Timings::from_results(&Results::new(results, 0));
        // 1000 alone; the second x (10) joins y (990).
        assert_eq!(split(&plan, 2, Some(&t)), [1, 2, 2]);
    }

    #[test]
    fn timings_ignore_skipped_tests_and_fingerprint_their_content() {
        let mut r = Results::new(
            vec![
                TestResult::skip("s", "s.yaml", None, "off"),
                TestResult::error("e", "e.yaml", None, "", 40),
            ],
            0,
        );
        let t = Timings::from_results(&r);
        assert_eq!(t.len(), 1);
        r.tests[1].duration_ms = 41;
        assert_ne!(t.fingerprint(), Timings::from_results(&r).fingerprint());
    }

    // ---- merge ----

    fn result(file: &str, name: &str, status: TestStatus, ms: u64) -> TestResult {
        let mut t = TestResult::error(name, file, Some(1), "", ms);
        t.status = status;
        t
    }

    /// A single run of a suite, and its split into `n` shard documents.
    fn single_and_shards(n: u32) -> (Results, Vec<(String, Results)>) {
        let statuses = [
            TestStatus::Pass,
            TestStatus::Fail,
            TestStatus::Skip,
            TestStatus::Error,
        ];
        let tests: Vec<TestResult> = (0..23)
            .map(|i| {
                result(
                    &format!("evals/t{i:02}.yaml"),
                    &format!("test {i}"),
                    statuses[i % 4],
                    10 + i as u64,
                )
            })
            .collect();
        let single = Results::new(tests.clone(), 400);
        let plan: Vec<PlanTest<'_>> = tests
            .iter()
            .map(|t| PlanTest {
                file: &t.file,
                name: &t.name,
                composed: false,
                share_server: false,
            })
            .collect();
        let docs = (1..=n)
            .map(|i| {
                let shard = Shard { index: i, total: n };
                let mine = select(&plan, shard, None)
                    .into_iter()
                    .map(|k| tests[k].clone())
                    .collect();
                let mut r = Results::new(mine, 100);
                r.shard = Some(ShardRecord::new(shard, &plan, None));
                (format!("results-{i}.json"), r)
            })
            .collect();
        (single, docs)
    }

    #[test]
    fn merged_shards_equal_the_single_run() {
        for n in [1, 2, 3, 4, 7] {
            let (single, mut docs) = single_and_shards(n);
            // The order of the documents does not matter.
            docs.reverse();
            let merged = merge(&docs).unwrap();
            assert_eq!(merged.tests, single.tests, "n={n}");
            assert_eq!(
                Summary {
                    duration_ms: 0,
                    ..merged.summary.clone()
                },
                Summary {
                    duration_ms: 0,
                    ..single.summary.clone()
                }
            );
            assert_eq!(merged.summary.duration_ms, 100 * u64::from(n));
            assert_eq!(merged.shard, None);
            // Through JSON, as `report --merge` reads them.
            let read: Vec<(String, Results)> = docs
                .iter()
                .map(|(name, r)| (name.clone(), Results::from_json(&r.to_json()).unwrap()))
                .collect();
            assert_eq!(merge(&read).unwrap().tests, single.tests);
        }
    }

    use crate::results::Summary;

    #[test]
    fn merge_refuses_missing_duplicate_and_foreign_shards() {
        let (_, docs) = single_and_shards(4);
        let e = merge(&docs[..3]).unwrap_err().0;
        assert!(
            e.contains("shard 4/4 is missing") && e.contains("results-1.json"),
            "{e}"
        );
        let e = merge(&[docs[0].clone(), docs[2].clone()]).unwrap_err().0;
        assert!(e.contains("shards 2/4, 4/4 are missing"), "{e}");

        // A forged total: counted, never listed in full.
        let mut forged = vec![docs[0].clone()];
        forged[0].1.shard.as_mut().unwrap().total = u32::MAX;
        let e = merge(&forged).unwrap_err().0;
        assert!(
            e.contains("shards 2/4294967295, 3/4294967295")
                && e.contains("and 4294967284 more are missing"),
            "{e}"
        );
        forged[0].1.shard.as_mut().unwrap().index = 0;
        let e = merge(&forged).unwrap_err().0;
        assert!(
            e.contains("records shard 0/4294967295, which no split has"),
            "{e}"
        );

        let mut twice = docs.clone();
        twice[1] = (String::from("again.json"), docs[0].1.clone());
        let e = merge(&twice).unwrap_err().0;
        assert!(
            e.contains("results-1.json and again.json are both shard 1/4"),
            "{e}"
        );

        let (_, three) = single_and_shards(3);
        let mixed = vec![docs[0].clone(), three[1].clone()];
        let e = merge(&mixed).unwrap_err().0;
        assert!(e.contains("shard 1/4") && e.contains("shard 2/3"), "{e}");

        let mut other = docs.clone();
        let rec = other[2].1.shard.as_mut().unwrap();
        rec.plan[0].name = "renamed".into();
        let e = merge(&other).unwrap_err().0;
        assert!(
            e.contains("shards of different suites") && e.contains("results-3.json"),
            "{e}"
        );

        let mut timings = docs.clone();
        timings[3].1.shard.as_mut().unwrap().timings = Some("00".into());
        let e = merge(&timings).unwrap_err().0;
        assert!(e.contains("different --shard-timings"), "{e}");

        let mut plain = docs.clone();
        plain[1].1.shard = None;
        let e = merge(&plain).unwrap_err().0;
        assert!(e.contains("results-2.json is not"), "{e}");

        assert!(merge(&[]).is_err());
    }

    #[test]
    fn merge_refuses_overlapping_and_incomplete_shards() {
        let (_, docs) = single_and_shards(2);
        let mut overlap = docs.clone();
        let stolen = overlap[0].1.tests[0].clone();
        overlap[1].1.tests.push(stolen.clone());
        let e = merge(&overlap).unwrap_err().0;
        assert!(e.contains(&format!("`{}`", stolen.name)), "{e}");
        assert!(
            e.contains("in both results-1.json and results-2.json"),
            "{e}"
        );

        let mut short = docs.clone();
        let lost = short[1].1.tests.pop().unwrap();
        let e = merge(&short).unwrap_err().0;
        assert!(
            e.contains(&format!("`{}`", lost.name)) && e.contains("in none of the shards"),
            "{e}"
        );
    }

    #[test]
    fn documents_without_records_are_concatenated_but_never_overlap() {
        let a = Results::new(vec![result("a.yaml", "x", TestStatus::Pass, 5)], 5);
        let b = Results::new(
            vec![
                result("b.yaml", "y", TestStatus::Fail, 7),
                result("a.yaml", "z", TestStatus::Pass, 1),
            ],
            8,
        );
        let merged = merge(&[("a.json".into(), a.clone()), ("b.json".into(), b.clone())]).unwrap();
        let names: Vec<&str> = merged.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "z"]);
        assert_eq!((merged.summary.total, merged.summary.failed), (3, 1));
        assert_eq!(merged.summary.duration_ms, 13);
        let e = merge(&[("a.json".into(), a.clone()), ("a2.json".into(), a)])
            .unwrap_err()
            .0;
        assert!(
            e.contains("`x` (a.yaml) is in both a.json and a2.json"),
            "{e}"
        );
    }
}
