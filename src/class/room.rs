//! The instructor's room: every learner's latest run and what is known about it (is their
//! cluster answering, since when their runs say what they say), and a counter that moves on each
//! change for the page's events. The followers ([`super::follow`](mod@super::follow)) fill it; the page reads it.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use super::causes::{ClassCauses, group};
use super::seat::LearnerRun;
use crate::causes::CauseId;
use crate::outcome::Status;
use crate::run::StepReport;

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

/// A learner shown from a file (their bundle): read once, never followed.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Where they come from ([`Origin::Bundle`]).
    pub origin: Origin,
    /// Their run as the file records it.
    pub run: LearnerRun,
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
pub fn causes(desks: &[Desk]) -> ClassCauses {
    let runs: Vec<LearnerRun> = desks.iter().filter_map(|d| d.run.clone()).collect();
    group(&runs)
}

/// The step each learner is at: the first one neither passed nor replaced (`None`: every step
/// done), as `labcheck next` picks it.
pub fn at_step(run: &LearnerRun) -> Option<&str> {
    crate::run::next::first_open(run.steps.iter().map(|r| (r.step.as_str(), r.standing())))
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
            own: Vec::new(),
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
