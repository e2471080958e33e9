//! `--watch` as a session: the step to watch picked from the learner's progress, then followed
//! through the runner's one follow loop ([`super::follow`]: one cluster connection and its watch
//! streams for every round, the work repos followed for changes, the step judged again on every
//! change as every run judges it), until it passes, is skipped as a whole, or the learner quits. The command line draws each round and
//! says how it ended; it decides nothing.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::follow::{Judge, Triggers};
use super::next::{Standing, first_open, standings};
use super::session::{CourseModule, History, Session, repos_followed};
use super::{LearnerWorld, Recall, StepReport, WorkDir};
use crate::course::{Module, Step};
use crate::error::Error;
use crate::outcome::Status;
use crate::probe::cluster::Cluster;
use crate::watch::{self, Mode, SharedRepoWatcher, Trigger};

/// Changes arriving this close together are one change (a commit touches many files).
const SETTLE: Duration = Duration::from_millis(300);

/// What `--watch` found to do.
pub enum Watch {
    /// Every step of the module passed, from the learner's progress: nothing to watch.
    AllPassed(CourseModule),
    /// A step to watch, its repos and cluster followed from now on.
    Step(Box<Watched>),
}

/// One step being watched.
pub struct Watched {
    module: CourseModule,
    step: usize,
    track: String,
    recall: Recall,
    session: Session,
    /// The work repos the step reads (and its `after:` stages' repos), by name.
    pub repos: BTreeSet<String>,
    /// Whether the step reads the cluster (then its changes wake the watch too).
    pub reads_cluster: bool,
    /// How changes in the repos are noticed.
    pub mode: Mode,
    triggers: Triggers,
}

/// How a watch ended.
#[derive(Debug)]
pub struct WatchEnd {
    /// The last report (`None`: the watch ended before the first round).
    pub last: Option<StepReport>,
    /// The learner quit before the step passed.
    pub quit: bool,
    /// What went wrong keeping the learner's progress (for stderr; the verdict stands).
    pub warnings: Vec<String>,
}

impl Session {
    /// Start watching: the step named (an exercise: its first stage not yet passed), else the
    /// module's first step not passed per `history` (every step when `recheck`), connected to
    /// the cluster and following the work repos.
    pub async fn watch(&self, history: &dyn History, recheck: bool) -> Result<Watch, Error> {
        let module = self.asked.course_module()?;
        let recall = history.recall(module.get());
        let Some(picked) = pick(module.get(), self.asked.step.as_deref(), &recall, recheck)? else {
            return Ok(Watch::AllPassed(module));
        };
        let step = module
            .get()
            .steps
            .iter()
            .position(|s| std::ptr::eq(s, picked))
            .unwrap_or_default();
        let track = history
            .track(module.get(), self.asked.track.as_deref())?
            .to_string();
        let repos = repos_followed(&[picked]);
        let reads_cluster = picked.checks.iter().any(|c| c.kind.reads_cluster());
        let dirs: Vec<PathBuf> = repos
            .iter()
            .map(|r| module.get().repo_dir(&self.work_dir, r))
            .collect();
        let cluster = Arc::new(Cluster::connect(&self.cluster).await);
        let force_poll = std::env::var_os(watch::POLL_ENV).is_some_and(|v| !v.is_empty());
        let files = Arc::new(SharedRepoWatcher::new(force_poll));
        let triggers = Triggers::new(cluster, dirs, reads_cluster, files, SETTLE);
        Ok(Watch::Step(Box::new(Watched {
            module,
            step,
            track,
            recall,
            session: self.clone(),
            repos,
            reads_cluster,
            mode: triggers.mode().clone(),
            triggers,
        })))
    }
}

impl Watched {
    /// The module watched.
    pub fn module(&self) -> &Module {
        self.module.get()
    }

    /// The step watched.
    pub fn step(&self) -> &Step {
        &self.module().steps[self.step]
    }

    /// Where the learner's own triggers go (the screen's q).
    pub fn triggers(&self) -> UnboundedSender<Trigger> {
        self.triggers.sender()
    }

    /// Judge the step now and again on every change (through the [`Triggers`] and [`Judge`] a
    /// class page follows its learners with), handing each report to `on_round` (with its round, counted
    /// from one, and the report before it), until it passes, is skipped as a whole, or the
    /// learner quits; then hand the last report to `history` when the session remembers.
    pub async fn follow(
        &mut self,
        history: Option<&mut dyn History>,
        mut on_round: impl FnMut(&StepReport, u32, Option<&StepReport>),
    ) -> WatchEnd {
        let mut last: Option<StepReport> = None;
        let mut round = 0u32;
        let world = LearnerWorld {
            course: self.module.course().clone(),
            module: self.module.get(),
            track: &self.track,
            work_dir: WorkDir::At(self.session.work_dir.clone()),
            cluster: &self.session.cluster,
            argocd_namespace: self.session.asked.argocd_namespace.clone(),
            paths: self.session.asked.paths.clone(),
        };
        let steps = [&self.module.get().steps[self.step]];
        let judge = Judge {
            world: &world,
            recall: &self.recall,
            steps: &steps,
        };
        let quit = loop {
            round += 1;
            let Some(report) = judge.reports(self.triggers.cluster().clone()).await.pop() else {
                break true;
            };
            on_round(&report, round, last.as_ref());
            // A step skipped as a whole (a later step replaced it, or it is not on this track)
            // can never pass: watching it longer would only wait for nothing.
            let settled = report.status == Status::Pass || report.skipped.is_some();
            last = Some(report);
            if settled {
                break false;
            }
            if !self.triggers.next_round().await {
                break true;
            }
        };
        let mut warnings = Vec::new();
        if self.session.remember
            && let (Some(history), Some(report)) = (history, &last)
            && let Err(e) = history.remember(std::slice::from_ref(report))
        {
            warnings.push(e);
        }
        WatchEnd {
            last,
            quit,
            warnings,
        }
    }
}

/// The step to watch: the one named (an exercise: its first stage not yet passed), or the
/// module's first step not passed. Passed steps, and steps a later passed step replaced, are
/// skipped unless `recheck` (the rule of `labcheck next`, see [`super::next`]).
fn pick<'a>(
    module: &'a Module,
    step: Option<&str>,
    recall: &Recall,
    recheck: bool,
) -> Result<Option<&'a Step>, Error> {
    let candidates = module.select(step)?;
    if let [one] = candidates.as_slice()
        && step.is_some()
    {
        return Ok(Some(one));
    }
    if recheck {
        return Ok(candidates.first().copied());
    }
    let standings = standings(module, |s| recall.seen_passed.contains_key(s));
    let standing_of = |step: &Step| {
        module
            .steps
            .iter()
            .position(|s| s.name == step.name)
            .map_or(Standing::Open, |i| standings[i].clone())
    };
    Ok(first_open(
        candidates.into_iter().map(|s| (s, standing_of(s))),
    ))
}

#[cfg(test)]
mod tests;
