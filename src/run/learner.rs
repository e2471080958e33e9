//! One learner's run: their cluster, their work repos, the steps asked for. The learner's own
//! run and every learner of a class go through [`run_learner`], so a class shows each learner
//! exactly what their own run shows.

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::join_all;

use super::step::unread_for_want_of_a_work_dir;
use super::{Recall, SkipReason, StepReport, WaitPolicy, WaitProgress, run_step};
use crate::checks::Context;
use crate::course::{Course, Module, Step};
use crate::outcome::{Outcome, Status};
use crate::probe::cluster::{Cluster, ClusterOptions};

/// Where a learner's work repos are, for [`run_learner`].
#[derive(Debug, Clone)]
pub enum WorkDir {
    /// The folder holding their clones.
    At(PathBuf),
    /// None to read (a learner of a class without one); the hint says how to give it.
    Missing {
        /// How to give it.
        hint: String,
    },
}

/// One learner's world: their work repos and their cluster.
pub struct LearnerWorld<'a> {
    /// The course (its reference files are read by checks).
    pub course: Arc<Course>,
    /// The module checked.
    pub module: &'a Module,
    /// The learner's track.
    pub track: &'a str,
    /// Their work repos.
    pub work_dir: WorkDir,
    /// How to reach their cluster.
    pub cluster: &'a ClusterOptions,
    /// `--argocd-namespace`, else the module's.
    pub argocd_namespace: Option<String>,
}

impl LearnerWorld<'_> {
    /// The checks' input for this world on `cluster`: connected by the caller, so watch mode
    /// keeps one connection (and its watch streams) for every round, with a fresh context (and
    /// so fresh reads of the work repos) each time.
    pub fn context(&self, cluster: Arc<Cluster>) -> Context {
        let (work_dir, no_work_dir) = match &self.work_dir {
            WorkDir::At(dir) => (dir.clone(), None),
            WorkDir::Missing { hint } => (PathBuf::new(), Some(hint.clone())),
        };
        let mut ctx = Context::new(
            self.module
                .check_facts(&self.course, self.argocd_namespace.clone()),
            self.track,
            work_dir,
            cluster,
        );
        ctx.no_work_dir = no_work_dir;
        ctx
    }
}

/// One learner's run of `steps`: connect to their cluster, read their work repos, and run the
/// steps as [`run_steps`] does (replaced steps included). The learner's own `labcheck MODULE
/// [STEP]` and every learner of a class go through here, so a class shows each learner exactly
/// what their own run shows. `recall` is what only the learner's own run knows (their progress:
/// hint levels, steps seen passing); a class has none.
pub async fn run_learner(
    world: LearnerWorld<'_>,
    recall: &Recall,
    steps: &[&Step],
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
) -> Vec<StepReport> {
    let cluster = Arc::new(Cluster::connect(world.cluster).await);
    run_learner_on(&world, cluster, recall, steps, policy, on_wait).await
}

/// [`run_learner`] on a cluster already connected: the live class page keeps one connection
/// (and its watch streams) per learner for every round, with a fresh context (and so fresh reads
/// of the work repos) each time.
pub async fn run_learner_on(
    world: &LearnerWorld<'_>,
    cluster: Arc<Cluster>,
    recall: &Recall,
    steps: &[&Step],
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
) -> Vec<StepReport> {
    let ctx = world.context(cluster);
    let module = world.module;
    let mut reports = run_steps(&ctx, recall, steps, policy, on_wait).await;
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
        reports.extend(run_steps(&ctx, recall, &later, WaitPolicy::Never, &|_| {}).await);
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
    recall: &Recall,
    steps: &[&Step],
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
) -> Vec<StepReport> {
    let mut reports: Vec<StepReport> = join_all(
        steps
            .iter()
            .map(|step| run_step(ctx, recall, step, policy, on_wait)),
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
        // A step skipped already (not on this track) keeps that reason: it is the first one.
        report.skipped = match report.status {
            Status::Skip => report
                .skipped
                .take()
                .or(Some(SkipReason::Replaced { by: later })),
            _ => None,
        };
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::fixtures::{check, step};

    /// One case: step 4 (transient) as it came out of its own run (its one check's outcome and
    /// the reason it was skipped already, if it was), step 5's outcome; what step 4 becomes.
    struct Case {
        name: &'static str,
        fourth: Outcome,
        fourth_skipped: Option<SkipReason>,
        fifth: Outcome,
        status: Status,
        skipped: Option<SkipReason>,
    }

    fn replaced() -> Option<SkipReason> {
        Some(SkipReason::Replaced {
            by: "step-5".to_string(),
        })
    }

    fn not_on_eks() -> Option<SkipReason> {
        Some(SkipReason::NotOnTrack {
            track: "eks".to_string(),
        })
    }

    #[test]
    fn a_transient_step_is_skipped_as_replaced_only_by_a_later_step_that_passes() {
        let cases = [
            Case {
                name: "failing step 4 before a passing step 5",
                fourth: Outcome::fail("synced"),
                fourth_skipped: None,
                fifth: Outcome::pass("reverted"),
                status: Status::Skip,
                skipped: replaced(),
            },
            Case {
                name: "step 4 skipped for the track keeps that reason",
                fourth: Outcome::skip("off"),
                fourth_skipped: not_on_eks(),
                fifth: Outcome::pass("reverted"),
                status: Status::Skip,
                skipped: not_on_eks(),
            },
            Case {
                name: "nothing passes after it",
                fourth: Outcome::fail("synced"),
                fourth_skipped: None,
                fifth: Outcome::fail("not yet"),
                status: Status::Fail,
                skipped: None,
            },
        ];
        let course = Course::embedded().expect("the built-in course");
        let module = course.module("module-10").expect("module 10");
        let steps = [
            module.step("step-4").expect("step 4"),
            module.step("step-5").expect("step 5"),
        ];
        for case in cases {
            let mut fourth = step("step-4", "Release", vec![check("a", case.fourth)]);
            fourth.skipped = case.fourth_skipped;
            let fifth = step("step-5", "Revert", vec![check("b", case.fifth)]);
            let mut reports = vec![fourth, fifth];
            mark_replaced_steps(&steps, &mut reports);
            assert_eq!(reports[0].status, case.status, "{}", case.name);
            assert_eq!(reports[0].skipped, case.skipped, "{}", case.name);
            assert_eq!(reports[1].skipped, None, "{}", case.name);
        }
    }
}
