//! Waiting where the course says to: whether to look at a failing check again, and how its wait
//! ended. The runner decides; the outcome carries the decision ([`Waited`]) for reporters.

use std::time::{Duration, Instant};

use super::WaitPolicy;
use crate::course::schema::CheckSpec;
use crate::outcome::{Outcome, Status, WaitEnd, Waited};

/// How often a waiting check looks again when the cluster offers no watch stream for what it
/// reads: about once a second, so the API is not flooded.
pub const WAIT_INTERVAL: Duration = Duration::from_secs(1);

/// How long a failure that turned final while waited for must stay final before the runner
/// stops for it (see `Waiter::decide`).
pub const SETTLE: Duration = Duration::from_millis(500);

/// The longest the runner may wait for `spec` under `policy`.
pub(super) fn wait_limit(spec: &CheckSpec, policy: WaitPolicy) -> Duration {
    match policy {
        WaitPolicy::CourseDefault => spec.wait.unwrap_or_default(),
        WaitPolicy::UpTo(limit) => limit,
        WaitPolicy::Never => Duration::ZERO,
    }
}

/// What the runner does with one check after a look at it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Decision {
    /// Nothing to wait for (it passed at once, does not read the cluster, or may not wait).
    NoWait,
    /// Look again when the cluster changes.
    Wait,
    /// Stop waiting, for this reason.
    End(WaitEnd),
}

/// Whether to wait for a check, from its latest outcome. A check that fails, reads the cluster
/// and may wait is waited for only while its failure is "still in progress": a failure that is
/// not is final (an operation that finished at the learner's revision changes only with a new
/// push or sync), and so is anything read from a snapshot that has no change left to come.
fn decide(
    spec: &CheckSpec,
    outcome: &Outcome,
    policy: WaitPolicy,
    elapsed: Duration,
    frozen: Option<&str>,
    waited: bool,
) -> Decision {
    let limit = wait_limit(spec, policy);
    if outcome.status != Status::Fail || !spec.kind.reads_cluster() || limit.is_zero() {
        return if waited {
            Decision::End(WaitEnd::Reached)
        } else {
            Decision::NoWait
        };
    }
    // Told only to a learner who asked to wait, or about a check already waited for: a
    // definitive failure under the course's own waits ends at once, as it always did.
    let tell = waited || matches!(policy, WaitPolicy::UpTo(_));
    let moving = outcome.may_change_by_waiting();
    if !moving && !tell {
        return Decision::NoWait;
    }
    if !moving {
        return Decision::End(WaitEnd::Final(format!(
            "{}; that is final: waiting cannot change it, only a new push or sync can",
            outcome.summary
        )));
    }
    if let Some(frozen) = frozen {
        return Decision::End(WaitEnd::Final(format!(
            "{frozen}: waiting cannot change what it shows"
        )));
    }
    if elapsed >= limit {
        return Decision::End(WaitEnd::TimedOut);
    }
    Decision::Wait
}

/// The runner's memory of a step's wait: which checks are settled, which were waited for, and
/// the state changes not yet reported.
pub(super) struct Waiter {
    settled: Vec<bool>,
    waited: Vec<bool>,
    /// When a check waited for first looked final (elapsed since the step started).
    final_since: Vec<Option<Duration>>,
    pub(super) changes: Vec<(usize, String, String)>,
}

impl Waiter {
    pub(super) fn new(checks: usize) -> Waiter {
        Waiter {
            settled: vec![false; checks],
            waited: vec![false; checks],
            final_since: vec![None; checks],
            changes: Vec::new(),
        }
    }

    /// When to look at check `i` again at the latest: its limit, or the end of its settle time.
    pub(super) fn deadline(&self, i: usize, started: Instant, limit: Duration) -> Instant {
        let limit = started + limit;
        match self.final_since[i] {
            Some(since) => limit.min(started + since + SETTLE),
            None => limit,
        }
    }

    pub(super) fn any_waited(&self) -> bool {
        self.waited.iter().any(|w| *w)
    }

    /// Decide for every check not yet settled; record how a wait ended on the outcome. Returns
    /// the checks to look at again.
    pub(super) fn decide(
        &mut self,
        specs: &[CheckSpec],
        outcomes: &mut [Outcome],
        policy: WaitPolicy,
        elapsed: Duration,
        frozen: Option<String>,
    ) -> Vec<usize> {
        let mut waiting = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            if self.settled[i] {
                continue;
            }
            match decide(
                spec,
                &outcomes[i],
                policy,
                elapsed,
                frozen.as_deref(),
                self.waited[i],
            ) {
                Decision::NoWait => self.settled[i] = true,
                Decision::Wait => {
                    self.waited[i] = true;
                    self.final_since[i] = None;
                    waiting.push(i);
                }
                // Kinds arrive on separate streams: the Application may show the sync ended a
                // moment before the Job stream shows its hook. A failure that just turned final
                // is confirmed by a look one settle time later before labcheck stops for it.
                Decision::End(WaitEnd::Final(_))
                    if self.waited[i]
                        && frozen.is_none()
                        && elapsed < wait_limit(spec, policy)
                        && self.final_since[i].is_none_or(|since| elapsed < since + SETTLE) =>
                {
                    self.final_since[i].get_or_insert(elapsed);
                    waiting.push(i);
                }
                Decision::End(end) => {
                    self.settled[i] = true;
                    outcomes[i].waited = Some(Waited {
                        waited: elapsed,
                        end,
                    });
                }
            }
        }
        waiting
    }

    /// Check `i` was looked at again: remember a change of what it shows.
    pub(super) fn looked(&mut self, i: usize, before: &Outcome, now: &Outcome) {
        if before.status != now.status || before.observed() != now.observed() {
            self.changes.push((i, state_of(before), state_of(now)));
        }
    }
}

/// A check's state in a progress line: what it observed; "passed" once it passes.
fn state_of(outcome: &Outcome) -> String {
    match outcome.status {
        Status::Pass => "passed".to_string(),
        Status::Error => format!("could not check ({})", outcome.summary),
        Status::Fail | Status::Skip => outcome.observed().to_string(),
    }
}
