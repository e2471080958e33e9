//! One learner's run: their cluster, their work repos, the steps asked for. The learner's own
//! run and every learner of a class go through [`run_learner`], so a class shows each learner
//! exactly what their own run shows.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use futures::future::join_all;

use super::next::{Seen, replacements};
use super::step::unread_for_want_of_a_work_dir;
use super::{Recall, SkipReason, StepReport, WaitPolicy, WaitProgress, run_step};
use crate::checks::Context;
use crate::course::{Course, Module, Step};
use crate::outcome::{Outcome, Status};
use crate::probe::cluster::{Cluster, ClusterOptions};
use crate::probe::files::PathShower;

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
    /// How their paths are shown (`~/…` under their home).
    pub paths: PathShower,
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
        // With no folder to name, a repo's `get:` names the course's default one.
        let shown = match &self.work_dir {
            WorkDir::At(dir) => self.paths.work_dir(dir),
            WorkDir::Missing { .. } => "~/work".to_string(),
        };
        let mut ctx = Context::new(
            self.module
                .check_facts(&self.course, self.argocd_namespace.clone(), &shown),
            self.track,
            work_dir,
            cluster,
            self.paths.clone(),
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
    run_judged(&ctx, recall, world.module, steps, policy, on_wait).await
}

/// Run `steps` and judge them as a module run does, however few were asked for: a step that does
/// not pass is checked against the later steps its file declares replace it (`replaced_by:`),
/// looked at without waiting, since a hint to redo it would undo the learner's later work (step
/// 4's "push `migration.fail: true`" after step 5's revert). `labcheck MODULE STEP`, a module
/// run, a class and `--watch` all judge a step here.
pub async fn run_judged(
    ctx: &Context,
    recall: &Recall,
    module: &Module,
    steps: &[&Step],
    policy: WaitPolicy,
    on_wait: &(dyn Fn(&WaitProgress) + Sync),
) -> Vec<StepReport> {
    let mut reports = run_steps(ctx, recall, steps, policy, on_wait).await;
    let asked: HashSet<&str> = steps.iter().map(|s| s.name.as_str()).collect();
    let open: Vec<&Step> = steps
        .iter()
        .zip(&reports)
        .filter(|(_, report)| report.skipped.is_none() && report.status != Status::Pass)
        .map(|(step, _)| *step)
        .collect();
    let replacers = declared_replacers(module, &open);
    let missing: Vec<&Step> = replacers
        .into_iter()
        .filter(|s| !asked.contains(s.name.as_str()))
        .collect();
    if missing.is_empty() {
        return reports;
    }
    let asked_count = reports.len();
    reports.extend(run_steps(ctx, recall, &missing, WaitPolicy::Never, &|_| {}).await);
    // Judge every step in course order, then hand back only what was asked for, as asked.
    let all: Vec<&Step> = steps.iter().chain(&missing).copied().collect();
    let course_position = |i: &usize| module.steps.iter().position(|s| s.name == all[*i].name);
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(course_position);
    let in_order: Vec<&Step> = order.iter().map(|&i| all[i]).collect();
    let mut judged: Vec<StepReport> = order.iter().map(|&i| reports[i].clone()).collect();
    mark_replaced_steps(&in_order, &mut judged);
    for (report, i) in judged.into_iter().zip(order) {
        reports[i] = report;
    }
    reports.truncate(asked_count);
    reports
}

/// Every step that may replace one of `open`, directly or down a chain of declared replacements
/// (step 4 by step 5, step 5 by break-it's break stage), in course order.
fn declared_replacers<'a>(module: &'a Module, open: &[&Step]) -> Vec<&'a Step> {
    let mut wanted: HashSet<&str> = HashSet::new();
    let mut queue: Vec<&str> = open
        .iter()
        .flat_map(|s| s.replaced_by.iter().map(String::as_str))
        .collect();
    while let Some(name) = queue.pop() {
        if wanted.insert(name)
            && let Some(step) = module.steps.iter().find(|s| s.name == name)
        {
            queue.extend(step.replaced_by.iter().map(String::as_str));
        }
    }
    module
        .steps
        .iter()
        .filter(|s| wanted.contains(s.name.as_str()))
        .collect()
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

/// A step that does not pass while a later step its file declares (`replaced_by:`) passed is no
/// longer judged: its state was replaced (step 4's failed sync is gone once step 5's revert
/// synced). It is reported as skipped with the reason — never as passed, since nothing left
/// shows it was done, and never as failed, since nothing shows it was not. A step whose own
/// sync is still running is in progress, never replaced.
fn mark_replaced_steps(steps: &[&Step], reports: &mut [StepReport]) {
    let replaced = replacements(steps, |i| seen(&reports[i]));
    for (i, by) in replaced.into_iter().enumerate() {
        let Some(later) = by else { continue };
        let why = match reports.iter().find(|r| r.step == later) {
            Some(r) if r.status == Status::Pass => "which passes".to_string(),
            Some(r) => match &r.skipped {
                Some(SkipReason::Replaced { by }) => format!("which {by} replaced in turn"),
                _ => "whose checks pass as far as they were read (not its work repos)".to_string(),
            },
            None => "which passes".to_string(),
        };
        let report = &mut reports[i];
        for check in &mut report.checks {
            // What was not read stays "could not check": replaced or not, it was never seen.
            if matches!(check.outcome.status, Status::Fail | Status::Error)
                && !unread_for_want_of_a_work_dir(&check.outcome)
            {
                let was = std::mem::take(&mut check.outcome.summary);
                check.outcome = Outcome::skip(format!(
                    "replaced by {later}, {why}: this looked at the state right after {} (now: {was}); run `labcheck {} {}` right after doing it",
                    report.step, report.module, report.step
                ));
            }
        }
        // Skipped, unless checks left unread keep it "could not check".
        report.status = match Status::fold(report.checks.iter().map(|c| c.outcome.status)) {
            Status::Error => Status::Error,
            _ => Status::Skip,
        };
        report.skipped = match report.status {
            Status::Skip => Some(SkipReason::Replaced { by: later }),
            _ => None,
        };
    }
}

/// How a report stands for [`replacements`]: a step skipped already (not on this track) or one
/// with a check still in progress (its sync is running) keeps its own verdict.
fn seen(report: &StepReport) -> Seen {
    if passes_as_far_as_read(report) {
        Seen::Passed
    } else if report.skipped.is_some()
        || report.status == Status::Pass
        || report.checks.iter().any(|c| c.outcome.pending)
    {
        Seen::Kept
    } else {
        Seen::NotPassed
    }
}

/// A step passes, or would as far as it could be read: every check it read passed and the rest
/// were left unread for want of a work dir (a learner of a class without one). Such a step still
/// shows "could not check", but the cluster has moved past the earlier steps it replaces all the same.
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

    /// One case: module 10's steps as they came out of their own runs (one check each, by
    /// name, with the reason a step was skipped already); what the first named step becomes.
    struct Case {
        name: &'static str,
        runs: Vec<(&'static str, Outcome, Option<SkipReason>)>,
        status: Status,
        skipped: Option<SkipReason>,
    }

    fn replaced_by(step: &str) -> Option<SkipReason> {
        Some(SkipReason::Replaced {
            by: step.to_string(),
        })
    }

    fn not_on_eks() -> Option<SkipReason> {
        Some(SkipReason::NotOnTrack {
            track: "eks".to_string(),
        })
    }

    fn sync_running() -> Outcome {
        let mut outcome = Outcome::fail("the sync of your commit is still running");
        outcome.pending = true;
        outcome
    }

    #[test]
    fn a_step_is_skipped_as_replaced_only_by_a_later_step_its_file_declares_that_passes() {
        let cases = [
            Case {
                name: "failing step 4 before a passing step 5 (declared)",
                runs: vec![
                    ("step-4", Outcome::fail("synced"), None),
                    ("step-5", Outcome::pass("reverted"), None),
                ],
                status: Status::Skip,
                skipped: replaced_by("step-5"),
            },
            Case {
                name: "step 4 skipped for the track keeps that reason",
                runs: vec![
                    ("step-4", Outcome::skip("off"), not_on_eks()),
                    ("step-5", Outcome::pass("reverted"), None),
                ],
                status: Status::Skip,
                skipped: not_on_eks(),
            },
            Case {
                name: "nothing passes after it",
                runs: vec![
                    ("step-4", Outcome::fail("synced"), None),
                    ("step-5", Outcome::fail("not yet"), None),
                ],
                status: Status::Fail,
                skipped: None,
            },
            Case {
                name: "step 3 reads step 2's sync: it builds on step 2 and replaces nothing",
                runs: vec![
                    ("step-2", Outcome::fail("sync still running"), None),
                    ("step-3", Outcome::pass("order read"), None),
                ],
                status: Status::Fail,
                skipped: None,
            },
            Case {
                name: "a step whose own sync is still running is in progress, never replaced",
                runs: vec![
                    ("step-4", sync_running(), None),
                    ("step-5", Outcome::pass("reverted"), None),
                ],
                status: Status::Fail,
                skipped: None,
            },
            Case {
                name: "step 4 through step 5, which break-it's break stage replaced in turn",
                runs: vec![
                    ("step-4", Outcome::fail("synced"), None),
                    ("step-5", Outcome::fail("sync failed"), None),
                    ("break-it/break", Outcome::pass("broken"), None),
                ],
                status: Status::Skip,
                skipped: replaced_by("step-5"),
            },
            Case {
                name: "a later step that did not pass replaces nothing, whatever came after it",
                runs: vec![
                    ("step-4", Outcome::fail("synced"), None),
                    ("step-5", Outcome::fail("not reverted"), None),
                    ("break-it/fix", Outcome::pass("fixed"), None),
                ],
                status: Status::Fail,
                skipped: None,
            },
        ];
        let course = Course::embedded().expect("the built-in course");
        let module = course.module("module-10").expect("module 10");
        for case in cases {
            let steps: Vec<&Step> = case
                .runs
                .iter()
                .map(|(name, ..)| module.step(name).expect("a step of module 10"))
                .collect();
            let mut reports: Vec<StepReport> = case
                .runs
                .into_iter()
                .map(|(name, outcome, skipped)| {
                    let mut report = step(name, name, vec![check("a", outcome)]);
                    report.skipped = skipped;
                    report
                })
                .collect();
            mark_replaced_steps(&steps, &mut reports);
            assert_eq!(reports[0].status, case.status, "{}", case.name);
            assert_eq!(reports[0].skipped, case.skipped, "{}", case.name);
            assert_eq!(
                reports.last().and_then(|r| r.skipped.clone()),
                None,
                "{}: the last step is judged on its own",
                case.name
            );
        }
    }

    #[test]
    fn the_replacers_of_a_step_run_alone_follow_the_declared_chain_and_nothing_else() {
        let course = Course::embedded().expect("the built-in course");
        let module = course.module("module-10").expect("module 10");
        let names = |open: &str| -> Vec<String> {
            declared_replacers(module, &[module.step(open).expect("a step")])
                .into_iter()
                .map(|s| s.name.clone())
                .collect()
        };
        assert_eq!(
            names("step-4"),
            ["step-5", "break-it/break", "break-it/fix"]
        );
        assert_eq!(
            names("step-2"),
            ["step-4", "step-5", "break-it/break", "break-it/fix"]
        );
        assert!(names("step-1").is_empty(), "step 1 declares no replacement");
        assert!(names("break-it/fix").is_empty());
    }
}
