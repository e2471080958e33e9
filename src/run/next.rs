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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::Course;
    use crate::outcome::Outcome;
    use crate::run::fixtures::{check, step};
    use crate::run::{SkipReason, StepReport};

    fn module_10(passed: &[&str]) -> Vec<(String, Standing)> {
        let course = Course::embedded().expect("the built-in course");
        let module = course.module("module-10").expect("module 10");
        let standings = standings(module, |step| passed.contains(&step));
        module
            .steps
            .iter()
            .map(|s| s.name.clone())
            .zip(standings)
            .collect()
    }

    #[test]
    fn a_transient_step_a_later_passed_step_replaced_is_not_next() {
        // Step 4's failed sync is gone once step 5's revert synced.
        let standings = module_10(&["step-1", "step-2", "step-3", "step-5"]);
        assert_eq!(
            standings[3],
            (
                "step-4".to_string(),
                Standing::Replaced {
                    by: "step-5".to_string()
                }
            )
        );
        assert_eq!(
            first_open(standings).as_deref(),
            Some("break-it/break"),
            "the next step is the first one neither passed nor replaced"
        );
    }

    #[test]
    fn a_step_that_is_not_transient_is_next_whatever_passed_after_it() {
        // Step 1 (the health check) stays checkable: a later pass says nothing about it.
        let standings = module_10(&["step-2", "step-3", "step-4", "step-5"]);
        assert_eq!(standings[0].1, Standing::Open);
        assert_eq!(first_open(standings).as_deref(), Some("step-1"));
    }

    #[test]
    fn with_nothing_passed_the_first_step_is_next_and_with_everything_none_is() {
        assert_eq!(first_open(module_10(&[])).as_deref(), Some("step-1"));
        let all = [
            "step-1",
            "step-2",
            "step-3",
            "step-4",
            "step-5",
            "break-it/break",
            "break-it/fix",
        ];
        assert_eq!(first_open(module_10(&all)), None);
    }

    fn skipped(name: &str, reason: SkipReason) -> StepReport {
        let mut report = step(name, name, vec![check("c", Outcome::skip("skipped"))]);
        report.skipped = Some(reason);
        report
    }

    #[test]
    fn a_run_s_steps_stand_by_the_runner_s_decisions_never_by_skip_alone() {
        let reports = [
            step("step-1", "one", vec![check("c", Outcome::pass("ok"))]),
            skipped(
                "step-2",
                SkipReason::NotOnTrack {
                    track: "kind".to_string(),
                },
            ),
            skipped(
                "step-4",
                SkipReason::Replaced {
                    by: "step-5".to_string(),
                },
            ),
            step(
                "step-5",
                "five",
                vec![check("c", Outcome::could_not_check("no cluster"))],
            ),
            step("step-6", "six", vec![check("c", Outcome::fail("not yet"))]),
        ];
        let standings: Vec<Standing> = reports.iter().map(StepReport::standing).collect();
        assert_eq!(
            standings,
            [
                Standing::Passed,
                Standing::Skipped,
                Standing::Replaced {
                    by: "step-5".to_string()
                },
                Standing::Open,
                Standing::Open,
            ]
        );
        // Could not check is not done: it is next, before the failure after it.
        let next = first_open(reports.iter().map(|r| (r.step.as_str(), r.standing())));
        assert_eq!(next, Some("step-5"));
    }
}
