//! The runner, labcheck's application layer: a [`Session`] loads the course, picks the steps
//! and the track, connects to the cluster, builds the checks' [`Context`](crate::checks::Context),
//! runs the steps and hands the reports back as data (it never prints). Below it, [`step`] walks
//! one step's checks concurrently and [`wait`] decides where the course says to wait; [`learner`]
//! runs one learner's steps, the same for a learner's own run and each learner of a class, and
//! [`follow`] judges a learner again on every change (`--watch`, each learner of the class page).
//! The class itself is a wing above the runner (`class/`), which uses only this public API.

pub mod capture;
pub mod follow;
pub mod learner;
mod mistakes;
pub mod next;
pub mod sequence;
pub mod session;
pub mod solution;
pub mod step;
pub mod wait;
pub mod watched;

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::outcome::{Outcome, Status};

pub use learner::{LearnerWorld, WorkDir, run_judged, run_learner, run_learner_on, run_steps};
pub use session::{Asked, History, Session, SessionRun};
pub use step::run_step;
pub use wait::{SETTLE, WAIT_INTERVAL};

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

/// Progress while waiting, for a reporter to show. Sent after every look at the checks waited
/// for; the last one of a step has `done` set.
#[derive(Debug, Clone)]
pub struct WaitProgress<'a> {
    /// The step waited for.
    pub step: &'a str,
    /// How long the runner has waited so far.
    pub elapsed: Duration,
    /// The longest it may wait for the checks still waited for.
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
    /// The check's id.
    pub check: &'a str,
    /// What it showed before.
    pub from: String,
    /// What it shows now.
    pub to: String,
}

/// The result of one check in a step.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The check's id in its step.
    pub id: String,
    /// Its kind's name (`git`, `argocd_app`, …; `sequence` for the runner's break-came-first).
    pub kind: &'static str,
    /// Its title, as the course words it.
    pub title: String,
    /// What it found.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The result of one step.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The module, e.g. `module-10`.
    pub module: String,
    /// The step or stage, e.g. `step-4`, `break-it/fix`.
    pub step: String,
    /// Its title, as the course words it.
    pub title: String,
    /// The track it was checked on.
    pub track: String,
    /// Its checks' statuses folded (see [`Status::fold`]), or the runner's skip.
    pub status: Status,
    /// Why the runner skipped the whole step; `None` unless [`StepReport::status`] is a skip the
    /// runner decided (added to the JSON report as `skipped`, leaving every older field as it was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<SkipReason>,
    pub checks: Vec<CheckReport>,
}

impl CheckReport {
    /// The report of check `id` (of `kind`, titled `title`) with its outcome.
    pub fn new(
        id: impl Into<String>,
        kind: &'static str,
        title: impl Into<String>,
        outcome: Outcome,
    ) -> CheckReport {
        CheckReport {
            id: id.into(),
            kind,
            title: title.into(),
            outcome,
        }
    }
}

impl StepReport {
    /// The report of one step, its status folded from its checks; not skipped for a reason
    /// (only the runner sets [`StepReport::skipped`]).
    pub fn new(
        module: impl Into<String>,
        step: impl Into<String>,
        title: impl Into<String>,
        track: impl Into<String>,
        checks: Vec<CheckReport>,
    ) -> StepReport {
        StepReport {
            module: module.into(),
            step: step.into(),
            title: title.into(),
            track: track.into(),
            status: Status::fold(checks.iter().map(|c| c.outcome.status)),
            skipped: None,
            checks,
        }
    }
}

/// The verdict of several steps: their statuses folded (what the exit code says).
pub fn verdict(reports: &[StepReport]) -> Status {
    Status::fold(reports.iter().map(|r| r.status))
}

/// Why the runner skipped a whole step. Set by the runner where it decides; reporters print it
/// and never infer it from [`Status::Skip`] or from text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum SkipReason {
    /// A later step the course declares replaces this one (`replaced_by:`) passed, or was
    /// replaced in turn: the state this one looks at is gone (step 4's failed sync once step 5's
    /// revert synced).
    Replaced {
        /// The later step.
        by: String,
    },
    /// None of its checks is on the learner's track.
    NotOnTrack {
        /// The learner's track.
        track: String,
    },
    /// Every check was skipped for reasons of its own: nothing was left to judge.
    NothingToJudge,
}

impl SkipReason {
    /// The reason in a few words, as the reports say it.
    pub fn describe(&self) -> String {
        match self {
            SkipReason::Replaced { by } => format!("replaced by {by}, a later step"),
            SkipReason::NotOnTrack { track } => format!("not on the {track} track"),
            SkipReason::NothingToJudge => "nothing to judge".to_string(),
        }
    }
}

/// What a learner's past runs tell the runner, read-only: which hint level each failing check
/// is at and which steps labcheck saw pass. The learner's progress hands it over before a run
/// (see [`History::recall`]); a class, the demo and a recheck run with the empty one.
#[derive(Debug, Clone, Default)]
pub struct Recall {
    /// Which hint level to show per `(step, check id)`; level 1 when absent.
    pub hint_levels: HashMap<(String, String), usize>,
    /// Steps labcheck saw pass before, with the day, for stages that count only after an
    /// earlier one.
    pub seen_passed: HashMap<String, String>,
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Reports for reporters' and progress's tests: one builder instead of a copy per file.

    use super::{CheckReport, StepReport};
    use crate::outcome::Outcome;

    /// Check `id` of kind `git`, titled "title of ID".
    pub fn check(id: &str, outcome: Outcome) -> CheckReport {
        CheckReport::new(id, "git", format!("title of {id}"), outcome)
    }

    /// Step `name` of module-10 on the kind track.
    pub fn step(name: &str, title: &str, checks: Vec<CheckReport>) -> StepReport {
        StepReport::new("module-10", name, title, "kind", checks)
    }

    /// A check `ok` that passed and a check `same` that failed with `summary`, `hint` and a
    /// `diff`: what every format shows of a failure.
    pub fn passed_then_differs(summary: &str, hint: &str, diff: &str) -> Vec<CheckReport> {
        vec![
            check("ok", Outcome::pass("fine")),
            check(
                "same",
                Outcome::fail(summary)
                    .with_hint(hint)
                    .with_detail(crate::outcome::DetailKind::Diff, diff),
            ),
        ]
    }

    /// Step 2 with its `synced` check not checked (`why`) and its `other` skipped off the kind
    /// track: neither may read as a failure in any format.
    pub fn unchecked_and_skipped(why: &str) -> StepReport {
        step(
            "step-2",
            "Hooks",
            vec![
                check("synced", Outcome::could_not_check(why)),
                check("other", Outcome::skip("not on the kind track")),
            ],
        )
    }
}
