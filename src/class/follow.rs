//! A class followed live. Each learner is run as in a class run (their seat of the class
//! session's [`Class`], the learner's own runner) and run again whenever their work repos change
//! or their cluster does, through the runner's one follow loop ([`crate::run::follow`], the loop of a
//! learner's own `--watch`). The latest run of every learner is kept in the [`Room`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::gate::Gate;
use super::room::{Origin, Recorded, Room};
use super::seat::{Lesson, Seat};
use super::session::Class;
use crate::probe::cluster::Cluster;
use crate::run::follow::{Judge, Triggers};
use crate::run::session::repos_followed;
use crate::run::{Recall, WaitPolicy};
use crate::watch::{self, SharedRepoWatcher};

/// Changes arriving this close together are one change (a commit touches many files).
pub const SETTLE: Duration = Duration::from_millis(150);

/// A class followed live: its room, kept current by one task per learner until stopped.
pub struct Following {
    /// Every learner's latest run.
    pub room: Arc<Room>,
    /// How many learners the room holds (live and from bundles).
    pub learners: usize,
    followers: Vec<tokio::task::JoinHandle<()>>,
}

impl Following {
    /// Stop following every learner.
    pub fn stop(self) {
        for follower in self.followers {
            follower.abort();
        }
    }
}

/// Follow every learner of `class` (desk `i` is seat `i`), then show the `recorded` learners
/// (their bundles, read once: a bundle does not change) after them. Each live learner is run
/// now, then again on every change, until [`Following::stop`], as many at once as a class run
/// lets in ([`Gate`]), so the page's first render costs what a class run costs.
pub fn follow(class: Arc<Class>, recorded: Vec<Recorded>) -> Following {
    let live = class.seats().len();
    let learners = class
        .seats()
        .iter()
        .map(|s| (s.env.learner.clone(), Origin::Live))
        .chain(
            recorded
                .iter()
                .map(|r| (r.run.learner.clone(), r.origin.clone())),
        )
        .collect();
    let room = Arc::new(Room::new(class.title.clone(), class.module_run, learners));
    let limit = Arc::new(Gate::new());
    let force_poll = std::env::var_os(watch::POLL_ENV).is_some_and(|v| !v.is_empty());
    let files = Arc::new(SharedRepoWatcher::new(force_poll));
    let first_round = Arc::new(tokio::sync::Barrier::new(live));
    let followers = (0..live)
        .map(|index| {
            tokio::spawn(follow_one(
                room.clone(),
                index,
                class.clone(),
                Shared {
                    limit: limit.clone(),
                    files: files.clone(),
                    first_round: first_round.clone(),
                },
            ))
        })
        .collect();
    let count = live + recorded.len();
    for (i, learner) in recorded.into_iter().enumerate() {
        room.update(live + i, learner.run);
    }
    Following {
        room,
        learners: count,
        followers,
    }
}

/// What the followers of one room share.
struct Shared {
    /// How many learners run at once.
    limit: Arc<Gate>,
    /// The room's one file watcher.
    files: Arc<SharedRepoWatcher>,
    /// Met by every follower after its first run.
    first_round: Arc<tokio::sync::Barrier>,
}

/// How long a follower whose first run is done waits for the others' before it starts its watch
/// streams: no longer than a slow cluster should hold the rest back.
const FIRST_ROUND_WAIT: Duration = Duration::from_secs(2);

/// One learner, followed through the runner's follow loop: one cluster connection (and its watch
/// streams) for every round, a fresh read of the work repos each time, a turn of the room's gate
/// for each round.
async fn follow_one(room: Arc<Room>, index: usize, class: Arc<Class>, shared: Shared) {
    let Shared {
        limit,
        files,
        first_round,
    } = shared;
    let Some(seat) = class.seats().get(index) else {
        return;
    };
    let cluster = Arc::new(Cluster::connect(&seat.env.cluster).await);
    let steps = seat.steps();
    let reads_cluster = steps
        .iter()
        .any(|s| s.checks.iter().any(|c| c.kind.reads_cluster()));
    let dirs = repo_dirs(seat, class.module());
    let mut triggers = Triggers::new(cluster, dirs, reads_cluster, files, SETTLE);
    // The room never waits: it runs again the moment something changes.
    let lesson = Lesson {
        policy: WaitPolicy::Never,
        ..class.lesson()
    };
    let recall = Recall::default();
    let mut first_run = true;
    loop {
        let reports = {
            let _turn = limit.enter(&seat.env.cluster).await;
            // The world anew each round: a work dir that appears later is read from then.
            let world = seat.world(lesson);
            let judge = Judge {
                world: &world,
                recall: &recall,
                steps: &steps,
            };
            judge.reports(triggers.cluster().clone()).await
        };
        room.update(index, seat.learner_run(reports));
        if std::mem::take(&mut first_run) {
            // The cluster is followed (a list and a watch per kind read) once the whole room
            // has had its first run, so the streams do not compete with it: the page's first
            // render costs what a class run costs.
            let _ = tokio::time::timeout(FIRST_ROUND_WAIT, first_round.wait()).await;
        }
        if !triggers.next_round().await {
            return;
        }
    }
}

/// The folders of the work repos `seat`'s steps read (and the repos of `after:` stages).
fn repo_dirs(seat: &Seat, module: &crate::course::Module) -> Vec<PathBuf> {
    let Some(work_dir) = &seat.env.work_dir else {
        return Vec::new();
    };
    repos_followed(&seat.steps())
        .iter()
        .map(|name| module.repo_dir(work_dir, name))
        .collect()
}
