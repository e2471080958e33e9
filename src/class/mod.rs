//! The instructor's room: a class followed live. Each learner is run as in a class run (their
//! seat of the class session's [`Class`], the learner's own runner) and run again whenever their work repos change
//! (file events) or their cluster does (the watch streams of `--wait`, and a re-read every
//! [`watch::CLUSTER_INTERVAL`] for what no stream follows). The latest run of every learner is
//! kept in a [`Room`]; `server` serves it as one page updated over server-sent events. Results
//! are data here; the page's HTML is a reporter's (handed in as a [`server::Renderer`]).

pub mod bundles;
pub mod server;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::causes::CauseId;
use crate::error::Error;
use crate::fleet::{self, LearnerRun, Seat};
use crate::outcome::Status;
use crate::probe::cluster::Cluster;
use crate::run::{Class, StepReport, WaitPolicy};
use crate::watch;

/// Changes arriving this close together are one change (a commit touches many files).
pub const SETTLE: Duration = Duration::from_millis(150);

/// The causes of a cluster that does not answer at all (as opposed to one that answers "no").
const NOT_ANSWERING: [CauseId; 2] = [CauseId::ClusterUnreachable, CauseId::ApiStalled];

/// Whether a learner's cluster answered their last run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Not run yet.
    Checking,
    /// It answered (or the steps read no cluster).
    Answering,
    /// It did not answer, since `since`; `why` in the words of their report.
    NotAnswering { since: jiff::Timestamp, why: String },
}

/// Where a learner comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Followed live: their cluster and work repos.
    Live,
    /// Read once from a bundle file (nothing there changes), with the bundle's `report.txt`.
    Bundle { file: PathBuf, report: String },
}

/// One learner's place in the room: their latest run and what is known about it.
#[derive(Debug, Clone)]
pub struct Desk {
    pub learner: String,
    pub origin: Origin,
    /// The latest run; `None` until the first one finished.
    pub run: Option<LearnerRun>,
    pub reach: Reach,
    /// When the latest run finished.
    pub checked: Option<jiff::Timestamp>,
    /// Since when the runs have said what the latest says (the page shows this, not every
    /// round: a learner who changed nothing does not move the page).
    pub since: Option<jiff::Timestamp>,
    /// What the latest run said, as the page compares it (its JSON).
    said: String,
    /// How many runs so far.
    pub rounds: u64,
}

/// Every learner's latest run, and a counter that moves on each change (for the page's events).
pub struct Room {
    /// What is checked, as a heading (`module-10 step-4`).
    pub title: String,
    /// Whether more than one step is checked (the learner's report is then a module report).
    pub module_run: bool,
    desks: Mutex<Vec<Desk>>,
    changes: tokio::sync::watch::Sender<u64>,
}

impl Room {
    /// A room with a desk for each of `learners` (name, origin), nobody checked yet.
    pub fn new(title: String, module_run: bool, learners: Vec<(String, Origin)>) -> Room {
        Room {
            title,
            module_run,
            desks: Mutex::new(
                learners
                    .into_iter()
                    .map(|(learner, origin)| Desk {
                        learner,
                        origin,
                        run: None,
                        reach: Reach::Checking,
                        checked: None,
                        since: None,
                        said: String::new(),
                        rounds: 0,
                    })
                    .collect(),
            ),
            changes: tokio::sync::watch::Sender::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Desk>> {
        // A poisoned lock holds whole desks: each is replaced at once.
        self.desks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every desk as it is now.
    pub fn desks(&self) -> Vec<Desk> {
        self.lock().clone()
    }

    /// Subscribe to changes: the receiver sees the counter move on every update.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Keep `run` as desk `index`'s latest, and tell the subscribers when it says something
    /// the desk's last run did not (a learner re-checked every few seconds with nothing new
    /// moves nothing: a class of 200 would otherwise re-render the page dozens of times a second).
    pub fn update(&self, index: usize, run: LearnerRun) {
        let now = jiff::Timestamp::now();
        let said = serde_json::to_string(&run).unwrap_or_default();
        let changed = {
            let mut desks = self.lock();
            let Some(desk) = desks.get_mut(index) else {
                return;
            };
            let reach = match (not_answering(&run.steps), &desk.reach) {
                (None, _) => Reach::Answering,
                (Some(why), Reach::NotAnswering { since, .. }) => {
                    Reach::NotAnswering { since: *since, why }
                }
                (Some(why), _) => Reach::NotAnswering { since: now, why },
            };
            let changed = desk.run.is_none() || reach != desk.reach || said != desk.said;
            if changed {
                desk.since = Some(now);
                desk.said = said;
            }
            desk.reach = reach;
            desk.run = Some(run);
            desk.checked = Some(now);
            desk.rounds += 1;
            changed
        };
        if changed {
            self.changes.send_modify(|n| *n += 1);
        }
    }
}

/// What a learner's checks said when their cluster did not answer (the first such check's
/// summary), or `None` when it answered every read.
pub fn not_answering(steps: &[StepReport]) -> Option<String> {
    steps
        .iter()
        .flat_map(|s| &s.checks)
        .find(|c| {
            c.outcome.status == Status::Error
                && c.outcome
                    .cause
                    .as_ref()
                    .is_some_and(|cause| NOT_ANSWERING.iter().any(|id| cause.is(*id)))
        })
        .map(|c| c.outcome.summary.clone())
}

/// The failures of every desk's latest run, grouped by cause (for the page to show).
pub fn causes(desks: &[Desk]) -> fleet::causes::ClassCauses {
    let runs: Vec<LearnerRun> = desks.iter().filter_map(|d| d.run.clone()).collect();
    fleet::causes::group(&runs)
}

/// The step each learner is at: the first one neither passed nor replaced (`None`: every step
/// done), as `labcheck next` picks it.
pub fn at_step(run: &LearnerRun) -> Option<&str> {
    crate::run::next::first_open(run.steps.iter().map(|r| (r.step.as_str(), r.standing())))
}

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

/// Follow every learner of `class` (desk `i` is seat `i`), then show the learners of the bundles
/// in `bundles` after them (read once: a bundle does not change). Each live learner is run now,
/// then again on every change, until [`Following::stop`], as many at once as a class run lets in
/// ([`fleet::gate::Gate`]), so the page's first render costs what a class run costs.
pub fn follow(class: Arc<Class>, bundles: Option<&Path>) -> Result<Following, Error> {
    let from_bundles = match bundles {
        Some(dir) => bundles::read_dir(dir).map_err(Error::Usage)?,
        None => Vec::new(),
    };
    let live = class.seats().len();
    let learners = class
        .seats()
        .iter()
        .map(|s| (s.env.learner.clone(), Origin::Live))
        .chain(from_bundles.iter().map(|b| {
            (
                b.learner.clone(),
                Origin::Bundle {
                    file: b.file.clone(),
                    report: b.report.clone(),
                },
            )
        }))
        .collect();
    let room = Arc::new(Room::new(class.title.clone(), class.module_run, learners));
    let limit = Arc::new(fleet::gate::Gate::new());
    let force_poll = std::env::var_os(watch::POLL_ENV).is_some_and(|v| !v.is_empty());
    let files = Arc::new(watch::SharedRepoWatcher::new(force_poll));
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
    let count = live + from_bundles.len();
    for (i, bundle) in from_bundles.into_iter().enumerate() {
        room.update(live + i, bundle.run);
    }
    Ok(Following {
        room,
        learners: count,
        followers,
    })
}

/// What the followers of one room share.
struct Shared {
    /// How many learners run at once.
    limit: Arc<fleet::gate::Gate>,
    /// The room's one file watcher.
    files: Arc<watch::SharedRepoWatcher>,
    /// Met by every follower after its first run.
    first_round: Arc<tokio::sync::Barrier>,
}

/// How long a follower whose first run is done waits for the others' before it starts its watch
/// streams: no longer than a slow cluster should hold the rest back.
const FIRST_ROUND_WAIT: Duration = Duration::from_secs(2);

/// One learner, followed: one cluster connection (and its watch streams) for every round, a
/// fresh read of the work repos each time.
async fn follow_one(room: Arc<Room>, index: usize, class: Arc<Class>, shared: Shared) {
    let Shared {
        limit,
        files,
        first_round,
    } = shared;
    let Some(seat) = class.seats().get(index) else {
        return;
    };
    let module = class.module();
    let cluster = Arc::new(Cluster::connect(&seat.env.cluster).await);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut watched: Vec<PathBuf> = Vec::new();
    let mut first_run = true;
    loop {
        // Watch the repos that are there now: a learner who clones later is watched from then.
        let dirs: Vec<PathBuf> = repo_dirs(seat, module)
            .into_iter()
            .filter(|d| d.is_dir())
            .collect();
        if dirs != watched {
            files.watch(&dirs, &tx);
            watched = dirs;
        }
        let run = {
            let _turn = limit.enter(&seat.env.cluster).await;
            // The room never waits: it runs again the moment something changes.
            let lesson = fleet::Lesson {
                policy: WaitPolicy::Never,
                ..class.lesson()
            };
            seat.run(lesson, Some(cluster.clone())).await
        };
        room.update(index, run);
        if std::mem::take(&mut first_run) {
            // The streams start (a list and a watch per kind read) once the whole room has had
            // its first run, so they do not compete with it: the page's first render costs what
            // a class run costs. Nothing is missed: a stream's first list wakes the learner when
            // it says something their run did not read.
            let _ = tokio::time::timeout(FIRST_ROUND_WAIT, first_round.wait()).await;
        }
        let seen = cluster.generation();
        tokio::select! {
            trigger = rx.recv() => {
                if trigger.is_none() {
                    return;
                }
                // Let a burst of file events (a commit) settle into one run.
                tokio::time::sleep(SETTLE).await;
                while rx.try_recv().is_ok() {}
            }
            () = cluster_change(&cluster, seen) => {}
        }
    }
}

/// Wait until the cluster changes (a watch event on what the last run read), or until
/// [`watch::CLUSTER_INTERVAL`] passed, for what no stream follows (pod logs) and for a cluster
/// that stopped answering (a broken stream sends no event).
async fn cluster_change(cluster: &Cluster, seen: u64) {
    let since = Instant::now();
    loop {
        let now = cluster
            .wait_for_change(seen, since + watch::CLUSTER_INTERVAL)
            .await;
        if now > seen || since.elapsed() >= watch::CLUSTER_INTERVAL {
            return;
        }
    }
}

/// The folders of the work repos `seat`'s steps read (and the repos of `after:` stages).
fn repo_dirs(seat: &Seat, module: &crate::course::Module) -> Vec<PathBuf> {
    let Some(work_dir) = &seat.env.work_dir else {
        return Vec::new();
    };
    crate::run::session::repos_followed(&seat.steps())
        .iter()
        .map(|name| module.repo_dir(work_dir, name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{Cause, Outcome};
    use crate::run::fixtures::{check, step};

    fn run_of(outcomes: Vec<Outcome>) -> LearnerRun {
        let checks = outcomes
            .into_iter()
            .enumerate()
            .map(|(i, o)| check(&format!("c{i}"), o))
            .collect();
        LearnerRun {
            learner: "erin".to_string(),
            work_dir: None,
            status: Status::Error,
            steps: vec![step("step-4", "Release", checks)],
            placeholders: Vec::new(),
        }
    }

    fn unreachable() -> Outcome {
        Outcome::could_not_check("cannot reach the Kubernetes API")
            .with_cause(Cause::new(CauseId::ClusterUnreachable))
    }

    #[test]
    fn a_cluster_that_stops_answering_is_shown_from_the_first_run_that_saw_it_until_it_answers() {
        let room = Room::new(
            "module-10 step-4".into(),
            false,
            vec![("erin".into(), Origin::Live)],
        );
        let reach = || room.desks()[0].reach.clone();
        assert_eq!(reach(), Reach::Checking);
        room.update(0, run_of(vec![Outcome::pass("synced")]));
        assert_eq!(reach(), Reach::Answering);
        room.update(0, run_of(vec![Outcome::pass("repo"), unreachable()]));
        let Reach::NotAnswering { since, why } = reach() else {
            panic!("not answering: {:?}", reach());
        };
        assert_eq!(why, "cannot reach the Kubernetes API");
        room.update(0, run_of(vec![unreachable()]));
        assert!(
            matches!(reach(), Reach::NotAnswering { since: again, .. } if again == since),
            "the first round that saw it stays the time shown"
        );
        room.update(0, run_of(vec![Outcome::fail("not synced")]));
        assert_eq!(reach(), Reach::Answering);
        assert_eq!(room.desks()[0].rounds, 4);
    }

    #[test]
    fn a_learner_checked_again_with_nothing_new_moves_nothing_and_a_new_verdict_moves_the_page() {
        let room = Room::new("m".into(), false, vec![("erin".into(), Origin::Live)]);
        let mut changes = room.subscribe();
        room.update(0, run_of(vec![Outcome::fail("not synced")]));
        assert!(changes.has_changed().unwrap_or(false), "the first run");
        changes.borrow_and_update();
        let since = room.desks()[0].since;
        room.update(0, run_of(vec![Outcome::fail("not synced")]));
        assert!(!changes.has_changed().unwrap_or(true), "the same run again");
        let desk = &room.desks()[0];
        assert_eq!((desk.rounds, desk.since), (2, since), "counted, not shown");
        room.update(0, run_of(vec![Outcome::pass("synced")]));
        assert!(changes.has_changed().unwrap_or(false), "a new verdict");
        changes.borrow_and_update();
        room.update(0, run_of(vec![unreachable()]));
        assert!(
            changes.has_changed().unwrap_or(false),
            "a cluster that stops answering"
        );
    }

    #[test]
    fn a_cluster_that_answers_no_is_answering() {
        let forbidden =
            Outcome::could_not_check("forbidden").with_cause(Cause::new(CauseId::ClusterForbidden));
        assert_eq!(not_answering(&run_of(vec![forbidden]).steps), None);
    }

    #[test]
    fn every_update_moves_the_counter_the_page_listens_to() {
        let room = Room::new("m".into(), false, vec![("erin".into(), Origin::Live)]);
        let mut changes = room.subscribe();
        room.update(0, run_of(vec![Outcome::pass("ok")]));
        assert!(changes.has_changed().unwrap_or(false));
        changes.borrow_and_update();
        room.update(7, run_of(vec![Outcome::pass("ok")]));
        assert!(
            !changes.has_changed().unwrap_or(true),
            "no desk 7, no change"
        );
    }
}
