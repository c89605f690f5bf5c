//! `--retries N`: the tests that did not pass (failed or errored) are run
//! again, up to N more times each, all of one round together as `run`
//! runs tests (hooks, shared servers, `--jobs`). A test that passes on a
//! later attempt is *flaky* ([`TestResult::retried`] folds the attempts:
//! the last one is reported, every attempt is listed); one that never
//! passes keeps its last failure. Captures and snapshots take the last
//! attempt's session and answer.

use std::sync::Arc;

use mcpcheck_core::results::{TestResult, TestStatus};
use mcpcheck_core::suite::SuiteFile;
use tokio::sync::Mutex;

use super::exec::{self, RunSettings};
use super::{Planned, Printer, run_plan};

/// What one round of a plan gave, in plan order.
pub(super) struct Round {
    pub results: Vec<TestResult>,
    pub logs: Vec<Option<exec::SessionLog>>,
    pub answers: Vec<Option<exec::Answer>>,
    /// Each test's attempts before the reported one, with their sessions
    /// when recorded (the HTML report shows how a flaky test failed).
    pub earlier: Vec<Vec<(TestResult, Option<exec::SessionLog>)>>,
}

impl Round {
    /// A round whose tests ran once.
    pub fn once(
        results: Vec<TestResult>,
        logs: Vec<Option<exec::SessionLog>>,
        answers: Vec<Option<exec::Answer>>,
    ) -> Round {
        Round {
            earlier: results.iter().map(|_| Vec::new()).collect(),
            results,
            logs,
            answers,
        }
    }
}

/// What every trial of a run gave: each trial's results, and the last
/// trial's sessions, answers and earlier attempts (captures and snapshots
/// record the last trial).
pub(super) struct Trials {
    pub runs: Vec<Vec<TestResult>>,
    pub logs: Vec<Option<exec::SessionLog>>,
    pub answers: Vec<Option<exec::Answer>>,
    pub earlier: Vec<Vec<(TestResult, Option<exec::SessionLog>)>>,
}

/// Run `plan` `trials` times, each time retrying what did not pass up to
/// `retries` times (`(trials, retries)`).
pub(super) async fn run_trials(
    plan: &[Planned],
    suites: &[SuiteFile],
    settings: &RunSettings,
    jobs: super::lanes::Jobs,
    record: bool,
    printer: &Arc<Mutex<Printer>>,
    (trials, retries): (u32, u32),
) -> Trials {
    let mut out = Trials {
        runs: Vec::new(),
        logs: Vec::new(),
        answers: Vec::new(),
        earlier: Vec::new(),
    };
    let per_trial = plan.len();
    for trial in 0..trials as usize {
        let (results, logs, answers) = run_plan(
            plan,
            suites,
            settings,
            jobs,
            record,
            printer.clone(),
            trial * per_trial,
        )
        .await;
        let mut round = Round::once(results, logs, answers);
        if retries > 0 {
            round = rerun_failures(
                plan,
                suites,
                settings,
                jobs,
                record,
                printer.clone(),
                retries,
                round,
            )
            .await;
        }
        out.runs.push(round.results);
        out.logs = round.logs;
        out.answers = round.answers;
        out.earlier = round.earlier;
    }
    out
}

/// Whether a test is run again: it failed or errored.
fn retried(status: TestStatus) -> bool {
    matches!(status, TestStatus::Fail | TestStatus::Error)
}

/// Run the tests of `first` that did not pass again, up to `retries` more
/// times each, and fold every test's attempts into one result.
#[allow(
    clippy::too_many_arguments,
    reason = "the run's own context, passed through"
)]
pub(super) async fn rerun_failures(
    plan: &[Planned],
    suites: &[SuiteFile],
    settings: &RunSettings,
    jobs: super::lanes::Jobs,
    record: bool,
    printer: Arc<Mutex<Printer>>,
    retries: u32,
    first: Round,
) -> Round {
    let Round {
        results,
        mut logs,
        mut answers,
        mut earlier,
    } = first;
    let mut attempts: Vec<Vec<TestResult>> = results.into_iter().map(|r| vec![r]).collect();
    for attempt in 1..=retries {
        let again: Vec<usize> = attempts
            .iter()
            .enumerate()
            .filter(|(_, a)| a.last().is_some_and(|r| retried(r.status)))
            .map(|(i, _)| i)
            .collect();
        if again.is_empty() {
            break;
        }
        let sub: Vec<Planned> = again
            .iter()
            .enumerate()
            .filter_map(|(k, &i)| {
                plan.get(i).map(|p| Planned {
                    index: k,
                    file: p.file,
                    test: p.test.clone(),
                })
            })
            .collect();
        printer.lock().await.retrying(sub.len(), attempt, retries);
        let (r, l, a) = run_plan(&sub, suites, settings, jobs, record, printer.clone(), 0).await;
        for (((k, &i), result), (log, answer)) in
            again.iter().enumerate().zip(r).zip(l.into_iter().zip(a))
        {
            debug_assert_eq!(sub[k].index, k);
            if let (Some(before), Some(slot), Some(kept)) =
                (attempts[i].last(), logs.get_mut(i), earlier.get_mut(i))
            {
                kept.push((before.clone(), std::mem::replace(slot, log)));
            }
            attempts[i].push(result);
            if let Some(slot) = answers.get_mut(i) {
                *slot = answer;
            }
        }
    }
    Round {
        results: attempts
            .into_iter()
            .filter_map(TestResult::retried)
            .collect(),
        logs,
        answers,
        earlier,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_failures_and_errors_are_retried() {
        assert!(retried(TestStatus::Fail) && retried(TestStatus::Error));
        assert!(!retried(TestStatus::Pass) && !retried(TestStatus::Skip));
    }
}
