//! Following a learner: their steps judged now and again on every change, on one cluster
//! connection (and its watch streams) for every round, with a fresh read of their work repos each
//! time. The learner's `--watch` ([`super::watched`]) and every learner of a live class page
//! follow through these [`Triggers`] and this [`Judge`]:
//!
//! ```text
//! loop { judge.reports(cluster) → the caller's use of them (stop?) ; triggers.next_round() }
//! ```
//!
//! They differ only in what they do with each round's reports and when they stop.
//!
//! What wakes a follower ([`Triggers`]): a change in a work repo the steps read (file events, or
//! polling where there are none; a repo cloned later is followed from the round after it
//! appears), a change of the cluster (a watch event on what the last round read, and a re-read
//! every [`watch::CLUSTER_INTERVAL`] for what no stream follows), and a quit. A burst of changes
//! (a commit touches many files) settles into one round.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::{LearnerWorld, Recall, StepReport, WaitPolicy, run_judged};
use crate::course::Step;
use crate::probe::cluster::Cluster;
use crate::watch::{self, Mode, SharedRepoWatcher, Trigger};

/// What wakes one follower, and the cluster connection its rounds share.
pub struct Triggers {
    cluster: Arc<Cluster>,
    files: Arc<SharedRepoWatcher>,
    /// The folders of the work repos the steps read, whether they are there yet or not.
    dirs: Vec<PathBuf>,
    /// Those watched now (the ones that were there at the last round).
    watched: Vec<PathBuf>,
    mode: Mode,
    reads_cluster: bool,
    settle: Duration,
    tx: UnboundedSender<Trigger>,
    rx: UnboundedReceiver<Trigger>,
    ticks: Option<tokio::task::JoinHandle<()>>,
}

impl Triggers {
    /// Triggers for a learner whose steps read the repos in `dirs` (and the cluster, when
    /// `reads_cluster`), connected through `cluster`, their repos watched by `files` (a class
    /// shares one watcher for every learner), a burst of changes settling for `settle`.
    pub fn new(
        cluster: Arc<Cluster>,
        dirs: Vec<PathBuf>,
        reads_cluster: bool,
        files: Arc<SharedRepoWatcher>,
        settle: Duration,
    ) -> Triggers {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut triggers = Triggers {
            cluster,
            files,
            dirs,
            watched: Vec::new(),
            mode: Mode::Events,
            reads_cluster,
            settle,
            tx,
            rx,
            ticks: None,
        };
        let there = triggers.repos_there_now();
        triggers.mode = triggers.files.watch(&there, &triggers.tx);
        triggers.watched = there;
        triggers
    }

    /// The cluster connection every round uses.
    pub fn cluster(&self) -> &Arc<Cluster> {
        &self.cluster
    }

    /// How changes in the repos are noticed (as of the last round).
    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// Where a trigger of the learner's own goes (the screen's q).
    pub fn sender(&self) -> UnboundedSender<Trigger> {
        self.tx.clone()
    }

    /// Watch the repos that are there now: a learner who clones later is watched from then.
    fn watch_repos_there_now(&mut self) {
        let there = self.repos_there_now();
        if there != self.watched {
            self.mode = self.files.watch(&there, &self.tx);
            self.watched = there;
        }
    }

    fn repos_there_now(&self) -> Vec<PathBuf> {
        self.dirs.iter().filter(|d| d.is_dir()).cloned().collect()
    }

    /// Start following the cluster (its watch streams, and a tick at least every
    /// [`watch::CLUSTER_INTERVAL`]), once: after the first round, so the streams follow what
    /// that round read and do not compete with it. Nothing is missed: a stream's first list
    /// wakes the follower when it says something the round did not read.
    fn follow_cluster(&mut self) {
        if self.reads_cluster && self.ticks.is_none() {
            self.ticks = Some(watch::spawn_cluster_changes(
                self.cluster.clone(),
                self.tx.clone(),
            ));
        }
    }

    /// Wait until the next round is due: start following the cluster after the first round,
    /// wait for a change (a burst settles into one round), and watch the repos that are there
    /// by then. `false` when following ends: the learner quit, or no trigger can come any more.
    pub async fn next_round(&mut self) -> bool {
        self.follow_cluster();
        match self.next().await {
            Some(Trigger::Quit) | None => false,
            // The streams keep the cache current; what they do not follow is dropped when stale.
            Some(Trigger::ClusterTick | Trigger::RepoChanged) => {
                self.watch_repos_there_now();
                true
            }
        }
    }

    /// Wait for a trigger, then let a burst of changes settle into one round; a quit wins.
    /// `None` when no trigger can come any more.
    async fn next(&mut self) -> Option<Trigger> {
        let first = self.rx.recv().await?;
        if first == Trigger::Quit {
            return Some(first);
        }
        let mut seen = first;
        tokio::time::sleep(self.settle).await;
        while let Ok(more) = self.rx.try_recv() {
            match more {
                Trigger::Quit => return Some(Trigger::Quit),
                Trigger::ClusterTick => seen = Trigger::ClusterTick,
                Trigger::RepoChanged => {}
            }
        }
        Some(seen)
    }
}

impl Drop for Triggers {
    fn drop(&mut self) {
        if let Some(ticks) = self.ticks.take() {
            ticks.abort();
        }
    }
}

/// One round's judging: a fresh context for `world` on the followed cluster (the work repos are
/// read again), the steps judged as every run judges them ([`run_judged`]), never waiting: a
/// follower runs again the moment something changes.
pub struct Judge<'a> {
    /// The learner's world.
    pub world: &'a LearnerWorld<'a>,
    /// What their past runs say (a class has none).
    pub recall: &'a Recall,
    /// The steps followed, as this learner sees them.
    pub steps: &'a [&'a Step],
}

impl Judge<'_> {
    /// The steps judged now.
    pub async fn reports(&self, cluster: Arc<Cluster>) -> Vec<StepReport> {
        let ctx = self.world.context(cluster);
        run_judged(
            &ctx,
            self.recall,
            self.world.module,
            self.steps,
            WaitPolicy::Never,
            &|_| {},
        )
        .await
    }
}
