//! The fresh lab as a state of every step: the repos as the module starts (nothing committed,
//! nothing pushed, nothing reverted) and the cluster before any of the module's syncs. A ✓ is a
//! claim that something happened, so on the fresh lab no check whose title claims an action may
//! pass, and no step may pass. `course test` runs it as one more state of every step; `course
//! lint` runs only this rule.

use std::path::Path;
use std::sync::Arc;

use regex::Regex;

use super::{StateKind, StateResult, run_on};
use crate::course::fixtures::{ModuleFixtures, State};
use crate::course::{Course, Module};
use crate::error::Error;
use crate::lab::world::LabError;
use crate::lab::world::LabWorld;
use crate::outcome::Status;
use crate::run::StepReport;

/// Words in a check's title that claim something was done (or happened in the cluster): such a
/// check must fail on the fresh lab. Matched as whole words, case-insensitively.
const ACTION_WORDS: &str = r"(?i)\b(pushed|committed|commit|reverts?|reverted|undoes|undone|undo|ran|failed|succeeded|synced|stopped|logged|completed|applied|created|deleted|changed|shows|back)\b";

/// The word of `title` that claims an action, if any.
pub fn claims_action(title: &str) -> Option<String> {
    // A constant, valid pattern: compiling it cannot fail; a failure would only mean no claim.
    let words = Regex::new(ACTION_WORDS).ok()?;
    words.find(title).map(|m| m.as_str().to_string())
}

/// Judge a step's run on the fresh lab: the step must not pass, and every check whose title
/// claims an action must fail (a pass is a false ✓; "could not check" is reported too, since the
/// fresh fixture is complete and every check can look).
pub fn judge(state: &State, report: &StepReport) -> StateResult {
    let mut problems = Vec::new();
    if report.status == Status::Pass {
        problems.push(format!(
            "the step passes on the fresh lab, where nothing was done yet: {} must fail there",
            report.step
        ));
    }
    let mut failed = Vec::new();
    for check in &report.checks {
        let summary = &check.outcome.summary;
        match check.outcome.status {
            Status::Fail => failed.push(check.id.clone()),
            Status::Pass => {
                if let Some(word) = claims_action(&check.title) {
                    problems.push(format!(
                        "`{}` (\"{}\") claims an action (`{word}`) but passes on the fresh lab, where it never happened: {summary}; make it name what must exist (e.g. `made:` / `undoes:` in a git check) or depend on the event with `after:`",
                        check.id, check.title
                    ));
                }
            }
            Status::Error => {
                problems.push(format!("`{}` could not check: {summary}", check.id));
            }
            Status::Skip => {}
        }
    }
    StateResult {
        step: report.step.clone(),
        state: state.name.clone(),
        kind: StateKind::Fresh,
        description: state.description.clone(),
        must_fail: Vec::new(),
        failed,
        problems,
    }
}

/// Run every step of `module` on its fresh lab (built under `scratch`) and judge it.
pub async fn test_fresh(
    course: &Arc<Course>,
    module: &Module,
    fixtures: &ModuleFixtures,
    scratch: &Path,
) -> Result<Vec<StateResult>, Error> {
    let lab = |e: LabError| Error::Environment(format!("cannot build a fixture world: {e}"));
    let world = LabWorld::create(scratch, module, &fixtures.initial).map_err(lab)?;
    let track = module.manifest.tracks.default.clone();
    let mut results = Vec::new();
    for step_fixtures in &fixtures.steps {
        let step = module.step(&step_fixtures.step)?;
        let report = run_on(course, module, step, &world, &fixtures.fresh, &track).await?;
        results.push(judge(&fixtures.fresh, &report));
    }
    Ok(results)
}

/// `course lint`'s rule: the problems of every step on the fresh lab, as lint lines.
pub async fn lint_fresh(course: &Arc<Course>, scratch: &Path) -> Vec<super::lint::LintProblem> {
    let mut problems = Vec::new();
    for module in &course.modules {
        let name = module.manifest.module.clone();
        // A fixture that does not load is already a lint problem of its own.
        let Ok(fixtures) = ModuleFixtures::load(course, module) else {
            continue;
        };
        match test_fresh(course, module, &fixtures, &scratch.join(&name)).await {
            Ok(results) => {
                for result in results {
                    for problem in result.problems {
                        problems.push(super::lint::LintProblem {
                            module: name.clone(),
                            message: format!(
                                "{}: {} on the fresh lab ({}): {problem}",
                                fixtures.fresh.cluster_file, result.step, fixtures.fresh.name
                            ),
                        });
                    }
                }
            }
            Err(e) => problems.push(super::lint::LintProblem {
                module: name.clone(),
                message: format!("cannot run the fresh lab: {e}"),
            }),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_that_claim_an_action_are_told_from_titles_about_a_state() {
        for (title, word) in [
            ("checkout-config: the revert is pushed", Some("revert")),
            (
                "checkout-config: committed on main and pushed",
                Some("committed"),
            ),
            ("your commits undo the broken release", Some("undo")),
            (
                "Deployment checkout still runs 6.7.1 (the sync stopped before the Sync phase)",
                Some("stopped"),
            ),
            ("the SyncFail hook ran and completed", Some("ran")),
            ("helm/dev.yaml sets image.tag to \"6.7.0\"", None),
            ("the smoke test asks Laravel's /up route", None),
        ] {
            assert_eq!(claims_action(title).as_deref(), word, "{title}");
        }
    }
}
