//! What is next: one rule for `labcheck status`, `labcheck next`, `--watch` and a module run's
//! overview. A step is next when it is neither passed nor replaced: a transient step (see
//! `transient:` in docs/check-files.md) is replaced once a later step passed, since nothing left
//! can show it either way (step 4's failed sync is gone once step 5's revert synced).

use super::StepReport;
use crate::course::Module;
use crate::outcome::Status;

/// How one step stands for the learner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// Passed: in the learner's progress, or in this run.
    Passed,
    /// Not passed, but a later step that replaces it passed.
    Replaced {
        /// The later step.
        by: String,
    },
    /// Skipped by this run for a reason of its own (not on this track, nothing to judge): there
    /// is nothing for the learner to do about it.
    Skipped,
    /// Still to do (failed, could not be checked, or not passed yet).
    Open,
}

/// How each step of `module` stands, in course order, from which steps passed (`passed` gets a
/// step's name).
pub fn standings(module: &Module, passed: impl Fn(&str) -> bool) -> Vec<Standing> {
    let steps = &module.steps;
    (0..steps.len())
        .map(|i| {
            if passed(&steps[i].name) {
                return Standing::Passed;
            }
            let later = steps[i]
                .transient
                .then(|| steps[i + 1..].iter().find(|later| passed(&later.name)))
                .flatten();
            match later {
                Some(later) => Standing::Replaced {
                    by: later.name.clone(),
                },
                None => Standing::Open,
            }
        })
        .collect()
}

impl StepReport {
    /// How this step stands after this run: the runner already decided which steps a later
    /// one replaced ([`StepReport::skipped`]).
    pub fn standing(&self) -> Standing {
        match (self.status, &self.skipped) {
            (Status::Pass, _) => Standing::Passed,
            (Status::Skip, Some(super::SkipReason::Replaced { by })) => {
                Standing::Replaced { by: by.clone() }
            }
            (Status::Skip, _) => Standing::Skipped,
            (Status::Fail | Status::Error, _) => Standing::Open,
        }
    }
}

/// The first of `steps` still open: what is next.
pub fn first_open<T>(steps: impl IntoIterator<Item = (T, Standing)>) -> Option<T> {
    steps
        .into_iter()
        .find(|(_, standing)| *standing == Standing::Open)
        .map(|(step, _)| step)
}
