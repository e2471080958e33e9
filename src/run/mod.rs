//! The runner: walks a step's checks concurrently, waits where the course says to, and returns
//! results as data (it never prints).

pub mod sequence;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;
use serde::Serialize;

use crate::checks::Context;
use crate::checks::context::NO_WORK_DIR_CAUSE;
use crate::course::schema::CheckSpec;
use crate::course::{Course, Module, Step};
use crate::outcome::{Cause, HintLevel, Outcome, Status, WaitEnd, Waited};
use crate::probe::cluster::{Cluster, ClusterOptions};

/// How long the runner may wait for checks that are not there yet.
#[derive(Debug, Clone, Copy, Default)]
pub enum WaitPolicy {
    /// Use each check's own `wait:`, and only while its failure is "still in progress".
    #[default]
    CourseDefault,
    /// Wait up to this long for every failing cluster check (`--wait`).
    UpTo(Duration),
    /// Never wait (`--no-wait`).
    Never,
}

/// How often a waiting check looks again when the cluster offers no watch stream for what it
/// reads: about once a second, so the API is not flooded.
pub const WAIT_INTERVAL: Duration = Duration::from_secs(1);

/// How long a failure that turned final while waited for must stay final before the runner
/// stops for it (see `Waiter::decide`).
pub const SETTLE: Duration = Duration::from_millis(500);

/// Progress while waiting, for a reporter to show. Sent after every look at the checks waited
/// for; the last one of a step has `done` set.
#[derive(Debug, Clone)]
pub struct WaitProgress<'a> {
    pub step: &'a str,
    pub elapsed: Duration,
    pub limit: Duration,
    /// Titles of the checks still waited for.
    pub waiting_for: Vec<&'a str>,
    /// Checks whose observed state changed since the last progress, in the step's order.
    pub changes: Vec<StateChange<'a>>,
    /// The runner stopped waiting for this step (everything got there, timed out or is final).
    pub done: bool,
}

/// One check's observed state changed while the runner waited ("Running → Failed").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange<'a> {
    pub check: &'a str,
    pub from: String,
    pub to: String,
}

/// The result of one check in a step.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub id: String,
    pub kind: &'static str,
    pub title: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The result of one step.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    pub module: String,
    pub step: String,
    pub title: String,
    pub track: String,
    pub status: Status,
    pub checks: Vec<CheckReport>,
}

/// Run every check of `step` concurrently; report in the file's order.
pub async fn run_step(
    ctx: &Context,
    step: &Step,
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
) -> StepReport {
    let started = Instant::now();
    let mut seen = ctx.cluster.generation();
    let mut outcomes: Vec<Outcome> =
        join_all(step.checks.iter().map(|c| evaluate(ctx, step, c))).await;
    let mut waiter = Waiter::new(step.checks.len());

    loop {
        let elapsed = started.elapsed();
        let frozen = ctx.cluster.frozen();
        let waiting = waiter.decide(&step.checks, &mut outcomes, policy, elapsed, frozen);
        let limit = waiting
            .iter()
            .map(|&i| wait_limit(&step.checks[i], policy))
            .max()
            .unwrap_or_default();
        if waiter.any_waited() {
            on_wait(&WaitProgress {
                step: &step.name,
                elapsed,
                limit,
                waiting_for: waiting
                    .iter()
                    .map(|&i| step.checks[i].title.as_str())
                    .collect(),
                changes: std::mem::take(&mut waiter.changes)
                    .into_iter()
                    .map(|(i, from, to)| StateChange {
                        check: step.checks[i].id.as_str(),
                        from,
                        to,
                    })
                    .collect(),
                done: waiting.is_empty(),
            });
        }
        if waiting.is_empty() {
            break;
        }
        // Look again when the cluster changes (a watch event, or the next poll where there is
        // no watch), or at the earliest limit, for a last look before giving up.
        let deadline = waiting
            .iter()
            .map(|&i| waiter.deadline(i, started, wait_limit(&step.checks[i], policy)))
            .min()
            .unwrap_or_else(Instant::now);
        seen = ctx.cluster.wait_for_change(seen, deadline).await;
        let again = join_all(
            waiting
                .iter()
                .map(|&i| evaluate(ctx, step, &step.checks[i])),
        )
        .await;
        for (i, outcome) in waiting.into_iter().zip(again) {
            waiter.looked(i, &outcomes[i], &outcome);
            outcomes[i] = outcome;
        }
    }

    point_blocked_checks_at_their_cause(&step.checks, &mut outcomes);

    let mut checks: Vec<CheckReport> = step
        .checks
        .iter()
        .zip(outcomes)
        .map(|(spec, outcome)| CheckReport {
            id: spec.id.clone(),
            kind: spec.kind.name(),
            title: spec.title.clone(),
            outcome,
        })
        .collect();
    if step.after.is_some() {
        // A short blocking read of one repo's history, after every async check is done.
        checks.extend(sequence::after_check(ctx, step));
    }
    for check in &mut checks {
        give_generic_cause(&mut check.outcome);
    }
    StepReport {
        module: ctx.module.clone(),
        step: step.name.clone(),
        title: step.title.clone(),
        track: ctx.track.clone(),
        status: Status::fold(checks.iter().map(|c| c.outcome.status)),
        checks,
    }
}

/// Where a learner's work repos are, for [`run_learner`].
#[derive(Debug, Clone)]
pub enum WorkDir {
    /// The folder holding their clones.
    At(PathBuf),
    /// None to read (a learner of a class without one); the hint says how to give it.
    Missing { hint: String },
}

/// One learner's world: their work repos and their cluster.
pub struct LearnerWorld<'a> {
    pub course: Arc<Course>,
    pub module: &'a Module,
    pub track: &'a str,
    pub work_dir: WorkDir,
    pub cluster: &'a ClusterOptions,
    pub argocd_namespace: Option<String>,
}

/// One learner's run of `steps`: connect to their cluster, read their work repos, and run the
/// steps as [`run_steps`] does (replaced steps included). The learner's own `labcheck MODULE
/// [STEP]` and every learner of a class go through here, so a class shows each learner exactly
/// what their own run shows. `prepare` adds what only the learner's own run knows (their
/// progress: hint levels, steps seen passing).
pub async fn run_learner(
    world: LearnerWorld<'_>,
    steps: &[&Step],
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
    prepare: impl FnOnce(&mut Context),
) -> Vec<StepReport> {
    let cluster = Arc::new(Cluster::connect(world.cluster).await);
    let (work_dir, no_work_dir) = match world.work_dir {
        WorkDir::At(dir) => (dir, None),
        WorkDir::Missing { hint } => (PathBuf::new(), Some(hint)),
    };
    let mut ctx = Context::new(
        world
            .module
            .check_facts(&world.course, world.argocd_namespace),
        world.track,
        work_dir,
        cluster,
    );
    ctx.no_work_dir = no_work_dir;
    prepare(&mut ctx);
    let module = world.module;
    let mut reports = run_steps(&ctx, steps, policy, on_wait).await;
    // A transient step checked on its own (`labcheck module-10 step-4`) that does not pass may
    // have been replaced by the next step, which the learner already did (step 5's revert): its
    // hint would then undo their work. Look at that one step, without waiting, and judge as a
    // module run would. Only the next step: it builds on this one (step 5 needs step 4's commit
    // to undo), so its passing says this one was done; a step further on says less.
    let later: Vec<&Step> = steps
        .last()
        .and_then(|last| module.steps.iter().position(|s| s.name == last.name))
        .and_then(|i| module.steps.get(i + 1))
        .into_iter()
        .collect();
    let unsettled = steps
        .iter()
        .zip(&reports)
        .any(|(step, report)| step.transient && report.status != Status::Pass);
    if unsettled && !later.is_empty() {
        let asked = reports.len();
        let mut all: Vec<&Step> = steps.to_vec();
        all.extend(&later);
        reports.extend(run_steps(&ctx, &later, WaitPolicy::Never, &|_| {}).await);
        mark_replaced_steps(&all, &mut reports);
        reports.truncate(asked);
    }
    reports
}

/// Run several steps side by side (and each step's checks concurrently); reports come back in
/// course order. Steps only read, and share one cache, so a module costs about what its slowest
/// step costs, not the sum.
pub async fn run_steps(
    ctx: &Context,
    steps: &[&Step],
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
) -> Vec<StepReport> {
    let mut reports: Vec<StepReport> = join_all(
        steps
            .iter()
            .map(|step| run_step(ctx, step, policy, on_wait)),
    )
    .await;
    mark_replaced_steps(steps, &mut reports);
    reports
}

/// In a run over several steps, a transient step that does not pass while a later step does is no
/// longer judged: its state was replaced by the later step (step 4's failed sync is gone once step
/// 5's revert synced). It is reported as skipped with the reason — never as passed, since nothing
/// left shows it was done, and never as failed, since nothing shows it was not.
fn mark_replaced_steps(steps: &[&Step], reports: &mut [StepReport]) {
    for i in 0..reports.len() {
        if !steps[i].transient || reports[i].status == Status::Pass {
            continue;
        }
        let Some(later) = reports[i + 1..].iter().find(|r| passes_as_far_as_read(r)) else {
            continue;
        };
        let passes = if later.status == Status::Pass {
            "which passes"
        } else {
            "whose checks pass as far as they were read (not its work repos)"
        };
        let later = later.step.clone();
        let report = &mut reports[i];
        for check in &mut report.checks {
            // What was not read stays "could not check": replaced or not, it was never seen.
            if matches!(check.outcome.status, Status::Fail | Status::Error)
                && !unread_for_want_of_a_work_dir(&check.outcome)
            {
                let was = std::mem::take(&mut check.outcome.summary);
                check.outcome = Outcome::skip(format!(
                    "replaced by {later}, {passes}: this looked at the state right after {} (now: {was}); run `labcheck {} {}` right after doing it",
                    report.step, report.module, report.step
                ));
            }
        }
        // Skipped, unless checks left unread keep it "could not check".
        report.status = match Status::fold(report.checks.iter().map(|c| c.outcome.status)) {
            Status::Error => Status::Error,
            _ => Status::Skip,
        };
    }
}

/// A failure or could-not-check whose check did not name its cause gets a generic, stable one, so
/// a class still groups learners by it: `in-progress` (the cluster is still moving), `failed`,
/// `could-not-check`. A check's own cause always wins.
fn give_generic_cause(outcome: &mut Outcome) {
    if outcome.cause.is_some() {
        return;
    }
    outcome.cause = match outcome.status {
        Status::Fail if outcome.pending => Some(Cause::new("in-progress")),
        Status::Fail => Some(Cause::new("failed")),
        Status::Error => Some(Cause::new("could-not-check")),
        Status::Pass | Status::Skip => None,
    };
}

/// Whether `outcome` is "could not check" only because the run has no work repos to read.
fn unread_for_want_of_a_work_dir(outcome: &Outcome) -> bool {
    outcome.status == Status::Error
        && outcome.cause.as_ref().map(Cause::as_str) == Some(NO_WORK_DIR_CAUSE)
}

/// A step passes, or would as far as it could be read: every check it read passed and the rest
/// were left unread for want of a work dir (a learner of a class without one). Such a step still
/// shows "could not check", but the cluster has moved past earlier transient steps all the same.
fn passes_as_far_as_read(report: &StepReport) -> bool {
    report.status == Status::Pass
        || (report.status == Status::Error
            && report
                .checks
                .iter()
                .any(|c| c.outcome.status == Status::Pass)
            && report.checks.iter().all(|c| {
                matches!(c.outcome.status, Status::Pass | Status::Skip)
                    || unread_for_want_of_a_work_dir(&c.outcome)
            }))
}

async fn evaluate(ctx: &Context, step: &Step, spec: &CheckSpec) -> Outcome {
    if !spec.tracks.is_empty() && !spec.tracks.contains(&ctx.track) {
        return Outcome::skip(format!(
            "not on the {} track (only {})",
            ctx.track,
            spec.tracks.join(", ")
        ));
    }
    if !spec.kind.repos().is_empty()
        && let Some(unchecked) = ctx.unchecked_repos()
    {
        return unchecked;
    }
    let mut outcome = spec.kind.evaluate(ctx).await;
    if outcome.status == Status::Fail {
        let of = spec.hint_levels();
        let level = ctx
            .hint_levels
            .get(&(step.name.clone(), spec.id.clone()))
            .copied()
            .unwrap_or(1)
            .clamp(1, of.max(1));
        let course = spec.hint_at(level).map(str::to_string);
        // The course's words first; what the check saw in this state is added below them, never
        // instead (unless one already says the other).
        let seen = outcome.hint.take();
        outcome.hint = match (course, seen) {
            (Some(course), Some(seen)) if course.contains(seen.trim()) => Some(course),
            (Some(course), Some(seen)) if seen.trim_start().starts_with(course.trim()) => {
                Some(seen)
            }
            (Some(course), Some(seen)) => Some(format!("{course}\n{seen}")),
            (course, seen) => seen.or(course),
        };
        if of > 1 && spec.hint_at(level).is_some() {
            outcome.hint_level = Some(HintLevel { level, of });
        }
    }
    outcome
}

/// A failed check whose `after:` checks do not pass yet is still reported as failed (the step is not
/// done), but its hint starts with the earliest check in that chain to fix first, and an explanation
/// that only repeats that check's own is dropped: one cause, told once.
fn point_blocked_checks_at_their_cause(specs: &[CheckSpec], outcomes: &mut [Outcome]) {
    let gated = gate_on_events(specs, outcomes);
    // A check left unread for want of a work dir is not known to block anything: pointing at
    // it would send the learner to fix what may be done.
    let blocker_of = |i: usize, outcomes: &[Outcome]| {
        specs[i].after.iter().find_map(|id| {
            let j = specs.iter().position(|s| s.id == *id)?;
            (matches!(outcomes[j].status, Status::Fail | Status::Error)
                && !unread_for_want_of_a_work_dir(&outcomes[j]))
            .then_some(j)
        })
    };
    let roots: Vec<Option<usize>> = (0..specs.len())
        .map(|i| {
            if outcomes[i].status != Status::Fail {
                return None;
            }
            let mut root = blocker_of(i, outcomes)?;
            // `after:` only names checks above, so this walk ends.
            while let Some(earlier) = blocker_of(root, outcomes) {
                root = earlier;
            }
            Some(root)
        })
        .collect();
    let diagnoses: Vec<Option<String>> = outcomes.iter().map(|o| o.diagnosis.clone()).collect();
    for (i, root) in roots.into_iter().enumerate() {
        let Some(root) = root else { continue };
        let first = format!("first: {} (see above)", specs[root].title);
        // Without a cause of its own, the check failed because of the one it waits for.
        if outcomes[i].cause.is_none() {
            outcomes[i].cause = Some(Cause::about("blocked-by", &specs[root].id));
        }
        let own = outcomes[i].hint.take();
        let root_hint = outcomes[root].hint.clone();
        outcomes[i].hint = Some(match own {
            // The event this check depends on did not happen: its hint is the one to follow.
            _ if gated[i] => match &root_hint {
                Some(hint) => format!("first: {}: {hint}", specs[root].title),
                None => first,
            },
            Some(own) if Some(&own) != root_hint.as_ref() => format!("{first}; then: {own}"),
            _ => first,
        });
        let repeats = |j: usize| diagnoses[j] == diagnoses[i];
        if repeats(root)
            || specs[i]
                .after
                .iter()
                .filter_map(|id| specs.iter().position(|s| s.id == *id))
                .any(repeats)
        {
            outcomes[i].diagnosis = None;
        }
    }
}

/// A check that depends on an event with `after:` ("the sync stopped before the Sync phase"
/// depends on the sync failing) means nothing when the event did not happen: it never passes
/// then. It fails when the event's check fails, and cannot be checked when the event's check
/// could not be. Returns which checks were turned (in file order, so chains carry on down).
fn gate_on_events(specs: &[CheckSpec], outcomes: &mut [Outcome]) -> Vec<bool> {
    let mut gated = vec![false; specs.len()];
    for i in 0..specs.len() {
        if outcomes[i].status != Status::Pass {
            continue;
        }
        // An event left unread for want of a work dir (a class run without `--work-dirs`) is
        // not known to be missing: the check is judged on its own, as the class runner wants.
        let blocker = specs[i].after.iter().find_map(|id| {
            let j = specs.iter().position(|s| s.id == *id)?;
            (matches!(outcomes[j].status, Status::Fail | Status::Error)
                && !unread_for_want_of_a_work_dir(&outcomes[j]))
            .then_some(j)
        });
        let Some(j) = blocker else { continue };
        let was = std::mem::take(&mut outcomes[i].summary);
        let event = &specs[j].title;
        outcomes[i] = if outcomes[j].status == Status::Fail {
            Outcome::fail(format!(
                "not yet: this counts only after \"{event}\", which has not happened (what is there now: {was})"
            ))
            .with_cause(crate::outcome::Cause::about("event-missing", &specs[j].id))
        } else {
            Outcome::could_not_check(format!(
                "cannot tell: this counts only after \"{event}\", which could not be checked (what is there now: {was})"
            ))
            .with_cause(crate::outcome::Cause::about("event-unknown", &specs[j].id))
        };
        gated[i] = true;
    }
    gated
}

fn wait_limit(spec: &CheckSpec, policy: WaitPolicy) -> Duration {
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
    if !outcome.pending && !tell {
        return Decision::NoWait;
    }
    if !outcome.pending {
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
struct Waiter {
    settled: Vec<bool>,
    waited: Vec<bool>,
    /// When a check waited for first looked final (elapsed since the step started).
    final_since: Vec<Option<Duration>>,
    changes: Vec<(usize, String, String)>,
}

impl Waiter {
    fn new(checks: usize) -> Waiter {
        Waiter {
            settled: vec![false; checks],
            waited: vec![false; checks],
            final_since: vec![None; checks],
            changes: Vec::new(),
        }
    }

    /// When to look at check `i` again at the latest: its limit, or the end of its settle time.
    fn deadline(&self, i: usize, started: Instant, limit: Duration) -> Instant {
        let limit = started + limit;
        match self.final_since[i] {
            Some(since) => limit.min(started + since + SETTLE),
            None => limit,
        }
    }

    fn any_waited(&self) -> bool {
        self.waited.iter().any(|w| *w)
    }

    /// Decide for every check not yet settled; record how a wait ended on the outcome. Returns
    /// the checks to look at again.
    fn decide(
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
    fn looked(&mut self, i: usize, before: &Outcome, now: &Outcome) {
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
