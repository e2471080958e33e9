//! What is next: one rule for `labcheck status`, `labcheck next`, `--watch`, a class and a module
//! run. A step is next when it is neither passed nor replaced. A step is replaced only where the
//! course says so (`replaced_by:` in docs/check-files.md): one of the later steps it names passed,
//! or was itself replaced, since nothing left can show the step either way (step 4's failed sync
//! is gone once step 5's revert synced). A later step that merely builds on it (step 3 reads step
//! 2's sync) replaces nothing.

use super::session::{Asked, History, Session};
use super::{SkipReason, StepReport};
use crate::course::{Module, Step};
use crate::error::Error;
use crate::outcome::Status;

/// How a step stands before replacement is decided, for [`replacements`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// It passed (or passes as far as it could be read).
    Passed,
    /// It did not pass and nothing of it is still moving: a declared later step may replace it.
    NotPassed,
    /// It did not pass, or was not looked at, and may not be replaced: its own sync is still
    /// running (in progress is never replaced), or it is outside this run.
    Kept,
}

/// For each of `steps` (in course order), the later step that replaced it, if one did: the first
/// of its declared `replaced_by:` that passed, or that was itself replaced (step 4 by step 5,
/// which break-it's break stage replaced). `seen` says how each step stands.
pub fn replacements(steps: &[&Step], seen: impl Fn(usize) -> Seen) -> Vec<Option<String>> {
    let mut replaced: Vec<Option<String>> = vec![None; steps.len()];
    // Replacers come later in course order (course lint holds to it), so deciding from the last
    // step back settles every chain in one pass.
    for i in (0..steps.len()).rev() {
        if seen(i) != Seen::NotPassed {
            continue;
        }
        replaced[i] = steps[i]
            .replaced_by
            .iter()
            .find(|later| {
                steps[i + 1..]
                    .iter()
                    .position(|s| &s.name == *later)
                    .map(|j| i + 1 + j)
                    .is_some_and(|j| seen(j) == Seen::Passed || replaced[j].is_some())
            })
            .cloned();
    }
    replaced
}

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
    let steps: Vec<&Step> = module.steps.iter().collect();
    let passed: Vec<bool> = steps.iter().map(|s| passed(&s.name)).collect();
    let replaced = replacements(&steps, |i| match passed[i] {
        true => Seen::Passed,
        false => Seen::NotPassed,
    });
    passed
        .into_iter()
        .zip(replaced)
        .map(|(passed, replaced)| match (passed, replaced) {
            (true, _) => Standing::Passed,
            (false, Some(by)) => Standing::Replaced { by },
            (false, None) => Standing::Open,
        })
        .collect()
}

impl StepReport {
    /// How this step stands after this run: the runner already decided which steps a later
    /// one replaced ([`StepReport::skipped`]).
    pub fn standing(&self) -> Standing {
        match (self.status, &self.skipped) {
            (Status::Pass, _) => Standing::Passed,
            (Status::Skip, Some(SkipReason::Replaced { by })) => {
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

/// Why `labcheck next` passed over a step before the one it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PassedOver {
    /// Checked again (`--recheck`): it still passes.
    StillPasses,
    /// Checked again (`--recheck`): the run skipped it, for this reason.
    Skipped(SkipReason),
    /// From the learner's progress: a later step that replaces it passed.
    Replaced {
        /// The later step.
        by: String,
    },
}

/// What `labcheck next` found in one module.
#[derive(Debug, Clone, Default)]
pub struct NextInModule {
    /// The steps before the next one worth a word, in course order, and why each was passed over.
    pub passed_over: Vec<(String, PassedOver)>,
    /// The first step neither passed nor replaced, with its title; `None`: the module is done.
    pub next: Option<(String, String)>,
}

impl Session {
    /// The first step of this session's module the learner has not finished: from their
    /// progress (`history`), or, with `recheck`, from a run of the whole module that trusts none
    /// of it (a step a later passing step replaced comes back as skipped, with the reason).
    pub async fn next_in_module(
        &self,
        history: &dyn History,
        recheck: bool,
    ) -> Result<NextInModule, Error> {
        let module = self.asked.course_module()?;
        let module = module.get();
        let standings: Vec<(Standing, Option<PassedOver>)> = if recheck {
            let whole = Session {
                asked: Asked {
                    step: None,
                    ..self.asked.clone()
                },
                log_reads: false,
                ..self.clone()
            };
            let reports = whole.run(None, &|_| {}).await?.reports;
            module
                .steps
                .iter()
                .map(|step| match reports.iter().find(|r| r.step == step.name) {
                    Some(report) => {
                        let why = match (report.standing(), &report.skipped) {
                            (Standing::Passed, _) => Some(PassedOver::StillPasses),
                            (_, Some(reason)) => Some(PassedOver::Skipped(reason.clone())),
                            _ => None,
                        };
                        (report.standing(), why)
                    }
                    None => (Standing::Open, None),
                })
                .collect()
        } else {
            let recall = history.recall(module);
            standings(module, |step| recall.seen_passed.contains_key(step))
                .into_iter()
                .map(|standing| {
                    let why = match &standing {
                        Standing::Replaced { by } => Some(PassedOver::Replaced { by: by.clone() }),
                        _ => None,
                    };
                    (standing, why)
                })
                .collect()
        };
        let next = first_open(
            standings
                .iter()
                .enumerate()
                .map(|(i, (s, _))| (i, s.clone())),
        );
        let before = next.unwrap_or(standings.len());
        Ok(NextInModule {
            passed_over: module
                .steps
                .iter()
                .zip(standings)
                .take(before)
                .filter_map(|(step, (_, why))| Some((step.name.clone(), why?)))
                .collect(),
            next: next
                .and_then(|i| module.steps.get(i))
                .map(|s| (s.name.clone(), s.title.clone())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::Course;
    use crate::outcome::Outcome;
    use crate::run::StepReport;
    use crate::run::fixtures::{check, step};

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
    fn a_step_is_replaced_only_by_a_step_its_file_names() {
        // Step 3 reads the sync step 2 started: it builds on step 2 and replaces nothing, so
        // step 2 stays open however step 3 went.
        let standings = module_10(&["step-1", "step-3"]);
        assert_eq!(standings[1].1, Standing::Open);
        assert_eq!(first_open(standings).as_deref(), Some("step-2"));
        // Step 4's release (declared `replaced_by` on step 2 and step 3) replaces both.
        let standings = module_10(&["step-1", "step-4"]);
        let by_4 = Standing::Replaced {
            by: "step-4".to_string(),
        };
        assert_eq!(standings[1].1, by_4);
        assert_eq!(standings[2].1, by_4);
    }

    #[test]
    fn replacement_follows_a_chain_of_declared_steps() {
        // Break-it's break stage replaced step 5, which replaces step 4: step 4 was done too.
        let standings = module_10(&["step-1", "step-2", "step-3", "break-it/break"]);
        assert_eq!(
            standings[4].1,
            Standing::Replaced {
                by: "break-it/break".to_string()
            }
        );
        assert_eq!(
            standings[3].1,
            Standing::Replaced {
                by: "step-5".to_string()
            }
        );
        assert_eq!(first_open(standings).as_deref(), Some("break-it/fix"));
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
    fn a_step_that_declares_no_replacement_is_next_whatever_passed_after_it() {
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
