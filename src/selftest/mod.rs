//! The course self-test (`labcheck course test`): every step's solved state must pass and each
//! broken variant must fail on exactly the checks it names. Each state is a real fixture world
//! (git repos in a temp folder) and its cluster snapshot served on loopback; the step runs
//! against them as it would against a learner's. Results are data; `report::selftest` prints them.

pub mod causes;
pub mod fresh;
mod hint_paths;
pub mod lint;
mod stray;
pub mod variants;
pub mod walk;

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::checks::Context;
use crate::course::fixtures::{Base, ModuleFixtures, State};
use crate::course::{Course, Module, Step, placeholders};
use crate::error::Error;
use crate::lab::world::LabError;
use crate::lab::world::LabWorld;
use crate::outcome::{HintPart, Status};
use crate::probe::cluster::Cluster;
use crate::probe::files::PathShower;
use crate::run::{self, StepReport, WaitPolicy};

/// What a state is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StateKind {
    Solved,
    Broken,
    /// The solved state in a clone kept as learners keep theirs (untracked `.env`, swap files):
    /// it still passes, names the `.env` in a note, and no hint adds everything.
    #[serde(rename = "solved-stray-files")]
    SolvedStrayFiles,
    /// The lab as the module starts: nothing a check's title claims may pass.
    Fresh,
    /// The walk, before a step's solution ran: its repo-side checks do not all pass yet.
    #[serde(rename = "walk-before")]
    WalkBefore,
    /// The walk, after a step's solution ran for real: its repo-side checks pass.
    Walk,
}

/// The result of one state of one step.
#[derive(Debug, Clone, Serialize)]
pub struct StateResult {
    pub step: String,
    pub state: String,
    pub kind: StateKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The checks that must fail (empty for the solved state).
    pub must_fail: Vec<String>,
    /// The checks that did fail.
    pub failed: Vec<String>,
    /// Why the state does not hold; empty when it does.
    pub problems: Vec<String>,
}

impl StateResult {
    /// The state came out as declared.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// The self-test of one module.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleResult {
    pub module: String,
    pub track: String,
    pub states: Vec<StateResult>,
}

impl ModuleResult {
    /// Every state came out as declared.
    pub fn ok(&self) -> bool {
        self.states.iter().all(StateResult::ok)
    }
}

/// Which steps of a module `course test` tests: all, or one step, exercise or stage (an
/// exercise selects its stages). The steps before it are still built, from their solutions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Only<'a>(pub Option<&'a str>);

impl Only<'_> {
    /// Whether the fixtures' step (or `exercise/stage`) `name` is tested.
    pub fn selects(&self, name: &str) -> bool {
        match self.0 {
            None => true,
            Some(only) => {
                name == only || name.strip_prefix(only).is_some_and(|r| r.starts_with('/'))
            }
        }
    }

    /// Whether every step selected comes before the fixtures' step at `index`.
    pub(crate) fn is_past(&self, fixtures: &ModuleFixtures, index: usize) -> bool {
        fixtures.steps[..index]
            .iter()
            .any(|s| self.selects(&s.step))
            && !self.selects(&fixtures.steps[index].step)
    }

    /// A name the module's fixtures have no step for is an error naming the ones they have.
    fn check(&self, module: &Module, fixtures: &ModuleFixtures) -> Result<(), Error> {
        match self.0 {
            Some(only) if !fixtures.steps.iter().any(|s| self.selects(&s.step)) => {
                let names: Vec<&str> = fixtures.steps.iter().map(|s| s.step.as_str()).collect();
                Err(Error::Usage(format!(
                    "{} has no step {only} to test; its steps: {}",
                    module.manifest.module,
                    names.join(", ")
                )))
            }
            _ => Ok(()),
        }
    }
}

/// Build and run every state of `module` in folders under `scratch`; the walk's scripts, worded
/// by `script` (the one `labcheck solution` prints), call `labcheck` (this binary) for their edits.
pub async fn test_module(
    course: &Arc<Course>,
    module: &Module,
    only: Only<'_>,
    scratch: &Path,
    labcheck: &Path,
    script: walk::ScriptWriter,
) -> Result<ModuleResult, Error> {
    let fixtures = ModuleFixtures::load(course, module)?;
    only.check(module, &fixtures)?;
    let track = module.manifest.tracks.default.clone();
    let lab = |e: LabError| Error::Environment(format!("cannot build a fixture world: {e}"));
    let mut previous =
        LabWorld::create(&scratch.join("initial"), module, &fixtures.initial).map_err(lab)?;
    let mut states = Vec::new();
    for (index, step_fixtures) in fixtures.steps.iter().enumerate() {
        if only.is_past(&fixtures, index) {
            break;
        }
        let step = module.step(&step_fixtures.step)?;
        let solved = previous
            .copy_to(&scratch.join(format!("{index:02}-solved")))
            .map_err(lab)?;
        solved.apply(&step_fixtures.solved.changes).map_err(lab)?;
        if !only.selects(&step_fixtures.step) {
            // A step before the one asked for: its solved state is only the next one's start.
            previous = solved;
            continue;
        }
        let report = run_on(course, module, step, &solved, &step_fixtures.solved, &track).await?;
        states.push(judge(&step_fixtures.solved, &report));
        // The same solved state in a clone kept as learners keep theirs (stray files).
        let kept = solved
            .copy_to(&scratch.join(format!("{index:02}-solved-stray-files")))
            .map_err(lab)?;
        kept.apply(&stray::plant(step)).map_err(lab)?;
        let report = run_on(course, module, step, &kept, &step_fixtures.solved, &track).await?;
        let mut result = judge(&step_fixtures.solved, &report);
        result.state = "stray-files".to_string();
        result.kind = StateKind::SolvedStrayFiles;
        result.problems.extend(stray::problems(step, &report));
        states.push(result);
        for (n, state) in step_fixtures.broken.iter().enumerate() {
            let from = match state.base {
                Base::Solved => &solved,
                Base::Previous => &previous,
            };
            let world = from
                .copy_to(&scratch.join(format!("{index:02}-broken-{n:02}")))
                .map_err(lab)?;
            world.apply(&state.changes).map_err(lab)?;
            let report = run_on(course, module, step, &world, state, &track).await?;
            states.push(judge(state, &report));
        }
        previous = solved;
    }
    let fresh = fresh::test_fresh(course, module, &fixtures, &scratch.join("fresh")).await?;
    states.extend(fresh.into_iter().filter(|s| only.selects(&s.step)));
    states.extend(
        walk::walk_module(
            course,
            module,
            only,
            &fixtures,
            &scratch.join("walk"),
            labcheck,
            script,
        )
        .await?,
    );
    Ok(ModuleResult {
        module: module.manifest.module.clone(),
        track,
        states,
    })
}

/// Serve the state's snapshot (revisions filled in from `world`) and run the step against both.
pub(crate) async fn run_on(
    course: &Arc<Course>,
    module: &Module,
    step: &Step,
    world: &LabWorld,
    state: &State,
    track: &str,
) -> Result<StepReport, Error> {
    let revision = |rev, repo: &str| world.revision(rev, repo);
    let text = placeholders::substitute(&state.cluster_file, &state.cluster_text, revision)?;
    let snapshot = placeholders::load_snapshot(&state.cluster_file, &text)?;
    let cluster = Cluster::serve(snapshot, &format!("fixture {}", state.cluster_file)).await;
    // A fixture world is nobody's home: its paths are shown whole, whoever runs the test.
    let paths = PathShower::default();
    let ctx = Context::new(
        module.check_facts(course, None, &paths.work_dir(&world.work_dir())),
        track,
        world.work_dir(),
        Arc::new(cluster),
        paths,
    );
    Ok(run::run_step(
        &ctx,
        &run::Recall::default(),
        step,
        WaitPolicy::Never,
        &|_| {},
    )
    .await)
}

/// Compare what the step said with what the state declares.
pub fn judge(state: &State, report: &StepReport) -> StateResult {
    let solved = state.fails.is_empty();
    let failed: Vec<String> = report
        .checks
        .iter()
        .filter(|c| c.outcome.status == Status::Fail)
        .map(|c| c.id.clone())
        .collect();
    let mut problems = Vec::new();
    for check in &report.checks {
        let declared = state.fails.contains(&check.id);
        let summary = &check.outcome.summary;
        match check.outcome.status {
            Status::Error => problems.push(format!("`{}` could not check: {summary}", check.id)),
            Status::Fail if solved => problems.push(format!("`{}` failed: {summary}", check.id)),
            Status::Fail if !declared => problems.push(format!(
                "`{}` failed too, but is not in `fails:`: {summary}",
                check.id
            )),
            Status::Fail => {
                if let Some(want) = state.causes.get(&check.id) {
                    let got = check.outcome.cause.as_ref().map(|c| c.as_str());
                    // `sync-phase` names the cause about any object; `sync-phase:Running` one.
                    let matches = got.is_some_and(|got| {
                        got == want || got.split_once(':').is_some_and(|(id, _)| id == want)
                    });
                    if !matches {
                        problems.push(format!(
                            "`{}` fails, but with cause `{}`, not the declared `{want}`: {summary}",
                            check.id,
                            got.unwrap_or("none")
                        ));
                    }
                }
                if check.outcome.hints.iter().all(HintPart::says_nothing) {
                    problems.push(format!(
                        "`{}` fails without a hint: give the check a `hint:` that names the next action",
                        check.id
                    ));
                }
            }
            Status::Pass | Status::Skip if declared => problems.push(format!(
                "`{}` must fail but {}: {summary}",
                check.id,
                if check.outcome.status == Status::Pass {
                    "passed"
                } else {
                    "was skipped"
                }
            )),
            Status::Pass | Status::Skip => {}
        }
    }
    StateResult {
        step: report.step.clone(),
        state: state.name.clone(),
        kind: if solved {
            StateKind::Solved
        } else {
            StateKind::Broken
        },
        description: state.description.clone(),
        must_fail: state.fails.clone(),
        failed,
        problems,
    }
}

#[cfg(test)]
mod only_tests {
    use super::Only;

    #[test]
    fn one_step_exercise_or_stage_selects_exactly_its_own_states() {
        let cases = [
            (None, "step-4", true),
            (Some("step-4"), "step-4", true),
            (Some("step-4"), "step-40", false),
            (Some("step-4"), "step-1", false),
            (Some("break-it"), "break-it/break", true),
            (Some("break-it"), "break-it/fix", true),
            (Some("break-it"), "break-its/fix", false),
            (Some("break-it/fix"), "break-it/fix", true),
            (Some("break-it/fix"), "break-it/break", false),
        ];
        for (only, name, selected) in cases {
            assert_eq!(Only(only).selects(name), selected, "{only:?} {name}");
        }
    }
}
