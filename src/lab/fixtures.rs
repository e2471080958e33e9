//! The course's own fixtures (`modules/<module>/fixtures`, embedded in the binary) as the one
//! source of every lab world: the repos before the first step, what the learner changes in each
//! step and in each broken variant, and the cluster of each state. `labcheck course test` already
//! proves that every solved state passes and every broken one fails where it says, so a world
//! built from them is a world the course vouches for. The demo and the tests build their worlds
//! here; nothing of a state is written twice.

use std::sync::OnceLock;

use super::repo::{LabError, LabRepo};
use crate::course::Course;
use crate::course::fixtures::{ModuleFixtures, ResolvedChange, State, StepFixtures};

/// The built-in course and each module's fixtures, loaded once per process.
struct Loaded {
    course: Course,
    modules: Vec<(String, ModuleFixtures)>,
}

static LOADED: OnceLock<Result<Loaded, String>> = OnceLock::new();

fn loaded() -> Result<&'static Loaded, LabError> {
    LOADED
        .get_or_init(|| {
            let course = Course::embedded().map_err(|e| e.to_string())?;
            let mut modules = Vec::new();
            for module in &course.modules {
                let fixtures = ModuleFixtures::load(&course, module).map_err(|e| e.to_string())?;
                modules.push((module.manifest.module.clone(), fixtures));
            }
            Ok(Loaded { course, modules })
        })
        .as_ref()
        .map_err(|e| LabError::Fixtures(e.clone()))
}

/// The built-in course, loaded once per process.
pub fn course() -> Result<&'static Course, LabError> {
    Ok(&loaded()?.course)
}

/// The fixtures of `module` in the built-in course.
pub fn module(module: &str) -> Result<&'static ModuleFixtures, LabError> {
    loaded()?
        .modules
        .iter()
        .find(|(name, _)| name == module)
        .map(|(_, fixtures)| fixtures)
        .ok_or_else(|| LabError::Fixtures(format!("the course has no module `{module}`")))
}

/// The fixtures of one step (`step-4`, `break-it/fix`) of `module`.
pub fn step(module_name: &str, step: &str) -> Result<&'static StepFixtures, LabError> {
    module(module_name)?
        .steps
        .iter()
        .find(|s| s.step == step)
        .ok_or_else(|| {
            LabError::Fixtures(format!("{module_name} declares no fixtures for `{step}`"))
        })
}

/// One state of a step: `solved` or a broken variant's name.
pub fn state(module_name: &str, step_name: &str, name: &str) -> Result<&'static State, LabError> {
    let fixtures = step(module_name, step_name)?;
    std::iter::once(&fixtures.solved)
        .chain(&fixtures.broken)
        .find(|s| s.name == name)
        .ok_or_else(|| {
            LabError::Fixtures(format!(
                "{module_name} {step_name} has no state `{name}`; it has solved{}",
                fixtures
                    .broken
                    .iter()
                    .map(|s| format!(", {}", s.name))
                    .collect::<String>()
            ))
        })
}

/// The text of a file under `modules/<module>/fixtures/` (`cluster/step-4-solved.yaml`), with
/// its placeholders still in; `(name for messages, text)`.
pub fn file(module: &str, relative: &str) -> Result<(String, String), LabError> {
    loaded()?
        .course
        .read_file(&format!("modules/{module}/fixtures/{relative}"))
        .map_err(|e| LabError::Fixtures(e.to_string()))
}

/// The cluster state `relative` under `modules/<module>/fixtures/` (`cluster/step-4-running.yaml`):
/// its snapshot text, a derived state's with its changes applied, placeholders still in.
pub fn cluster_file(module: &str, relative: &str) -> Result<(String, String), LabError> {
    crate::course::fixtures::cluster_text(
        &loaded()?.course,
        &format!("modules/{module}/fixtures/{relative}"),
    )
    .map_err(|e| LabError::Fixtures(e.to_string()))
}

/// The files under `modules/<module>/fixtures/<dir>/`, relative to it, sorted.
pub fn files_under(module: &str, dir: &str) -> Result<Vec<String>, LabError> {
    loaded()?
        .course
        .files_under(&format!("modules/{module}/fixtures/{dir}"))
        .map_err(|e| LabError::Fixtures(e.to_string()))
}

/// Do what the learner does, in order; `repo` finds a clone by its repo name. A commit records
/// the files the changes before it wrote or deleted in that repo, by name (`git add -- FILE…`),
/// as the course tells learners to: a file planted beside them (a `.env`) stays untracked.
pub fn apply(
    changes: &[ResolvedChange],
    repo: impl Fn(&str) -> Result<LabRepo, LabError>,
) -> Result<(), LabError> {
    let mut changed: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for change in changes {
        match change {
            ResolvedChange::Write {
                repo: r,
                path,
                text,
            } => {
                repo(r)?.write(path, text)?;
                changed.entry(r).or_default().push(path);
            }
            ResolvedChange::Delete { repo: r, path } => {
                repo(r)?.delete(path)?;
                changed.entry(r).or_default().push(path);
            }
            ResolvedChange::Solution { actions } => super::solve::run(actions, &repo)?,
            ResolvedChange::SolutionEdits {
                repo: r,
                path,
                actions,
            } => {
                super::solve::run(actions, &repo)?;
                changed.entry(r).or_default().push(path);
            }
            ResolvedChange::Commit { repo: r, message } => {
                let paths = changed.remove(r.as_str()).unwrap_or_default();
                repo(r)?.commit_paths(&paths, message)?;
            }
            ResolvedChange::Push { repo: r } => repo(r)?.push()?,
            ResolvedChange::RevertHead { repo: r } => repo(r)?.revert_head()?,
        }
    }
    Ok(())
}
