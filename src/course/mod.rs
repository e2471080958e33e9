//! The course: modules, their steps and the reference files, embedded in the binary or read from
//! `--course-dir`.

mod files;
pub mod fixtures;
mod load;
pub mod placeholders;
pub mod schema;
pub mod solution;
pub mod suggest;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::Error;
use crate::quiz::Quiz;
/// Course files are read with their positions by the YAML module (see its `course_file`).
pub use crate::yaml::course_file::{about_value, parse_yaml};
use schema::{AfterSpec, CheckSpec, ModuleManifest};

/// Where the course files come from.
#[derive(Debug, Clone)]
pub enum CourseSource {
    /// The course compiled into this binary.
    Embedded,
    /// A course folder on disk (holding `modules/` and `expected/`).
    Disk(PathBuf),
}

/// A loaded course.
#[derive(Debug, Clone)]
pub struct Course {
    source: CourseSource,
    pub modules: Vec<Module>,
}

/// A module with its steps, validated.
#[derive(Debug, Clone)]
pub struct Module {
    pub manifest: ModuleManifest,
    pub steps: Vec<Step>,
    /// The module's quiz (`quiz:` in module.yaml), if it has one.
    pub quiz: Option<Quiz>,
}

/// A runnable unit: a step, or one stage of a break-it exercise (named `exercise/stage`).
#[derive(Debug, Clone)]
pub struct Step {
    pub name: String,
    pub title: String,
    pub summary: Option<String>,
    /// The file it came from, for messages.
    pub file: String,
    /// Later steps whose passing replaces what this step looks at, as the course declares them
    /// (`replaced_by:` in docs/check-files.md).
    pub replaced_by: Vec<String>,
    pub checks: Vec<CheckSpec>,
    /// For a stage that counts only after an earlier one (break-it's `fix` after `break`).
    pub after: Option<AfterSpec>,
    /// The course's own actions for this step, in order (`solution:`).
    pub solution: Vec<solution::SolutionAction>,
}

impl Step {
    /// Tell each `git` check which files of its repo this step changes (the solution's edits),
    /// so `clean` counts an untracked file only where the step names it and a commit hint adds
    /// the step's files by name, never everything.
    fn name_git_step_paths(&mut self) {
        let solution = &self.solution;
        for check in &mut self.checks {
            if let crate::checks::CheckKind::Git(git) = &mut check.kind {
                let repo = git.repo.clone();
                git.name_step_paths(
                    solution
                        .iter()
                        .filter(|action| action.repo() == Some(repo.as_str()))
                        .filter_map(|action| action.file()),
                );
            }
        }
    }
}

impl Course {
    /// The course bundled with this binary.
    pub fn embedded() -> Result<Course, Error> {
        Self::load(CourseSource::Embedded)
    }

    /// A course folder on disk.
    pub fn from_dir(dir: &Path) -> Result<Course, Error> {
        if !dir.join("modules").is_dir() {
            return Err(Error::Usage(format!(
                "{} is not a course folder: it has no modules/ folder. Point --course-dir at the folder that holds modules/ and expected/",
                dir.display()
            )));
        }
        Self::load(CourseSource::Disk(dir.to_path_buf()))
    }

    /// Where the course comes from.
    pub fn source(&self) -> &CourseSource {
        &self.source
    }

    /// The module named `name`.
    pub fn module(&self, name: &str) -> Result<&Module, Error> {
        self.modules
            .iter()
            .find(|m| m.manifest.module == name)
            .ok_or_else(|| Error::UnknownModule {
                module: name.to_string(),
                suggestion: suggest::did_you_mean(
                    name,
                    self.modules.iter().map(|m| m.manifest.module.as_str()),
                ),
                available: self
                    .modules
                    .iter()
                    .map(|m| m.manifest.module.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

impl Module {
    /// What checks need to know of this module; `argocd_namespace` overrides the module's, and
    /// each repo's `get:` names the learner's work dir as hints show it (`work_dir_shown`).
    pub fn check_facts(
        &self,
        course: &Arc<Course>,
        argocd_namespace: Option<String>,
        work_dir_shown: &str,
    ) -> crate::checks::context::ModuleFacts {
        crate::checks::context::ModuleFacts {
            name: self.manifest.module.clone(),
            repos: self
                .manifest
                .repos
                .iter()
                .map(|repo| crate::checks::context::WorkRepo {
                    name: repo.name.clone(),
                    dir: repo.dir_name().to_string(),
                    get: placeholders::render_work(&repo.get, work_dir_shown),
                })
                .collect(),
            argocd_namespace: argocd_namespace
                .unwrap_or_else(|| self.manifest.argocd.namespace.clone()),
            references: course.clone(),
        }
    }

    /// The step (or `exercise/stage`) named `name`.
    pub fn step(&self, name: &str) -> Result<&Step, Error> {
        self.steps
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| Error::UnknownStep {
                module: self.manifest.module.clone(),
                step: name.to_string(),
                suggestion: suggest::did_you_mean(name, self.select_names()),
                available: self.step_names().join(", "),
            })
    }

    /// Every name a run can select: steps, stages and exercises, and the quiz.
    fn select_names(&self) -> Vec<&str> {
        let mut names = self.step_names();
        names.extend(
            self.step_names()
                .iter()
                .filter_map(|n| n.split_once('/').map(|(e, _)| e)),
        );
        if self.quiz.is_some() {
            names.push(crate::quiz::STEP_NAME);
        }
        names
    }

    /// Where work repo `name` lives under `work_dir` (its declared folder, else its name).
    pub fn repo_dir(&self, work_dir: &std::path::Path, name: &str) -> std::path::PathBuf {
        let dir = self
            .manifest
            .repos
            .iter()
            .find(|r| r.name == name)
            .map_or(name, |r| r.dir_name());
        work_dir.join(dir)
    }

    /// Every step and stage name, in course order.
    pub fn step_names(&self) -> Vec<&str> {
        self.steps.iter().map(|s| s.name.as_str()).collect()
    }

    /// Steps selected by a name: a step, an exercise (all its stages) or `None` for the whole module.
    pub fn select(&self, name: Option<&str>) -> Result<Vec<&Step>, Error> {
        let Some(name) = name else {
            return Ok(self.steps.iter().collect());
        };
        let prefix = format!("{name}/");
        let stages: Vec<&Step> = self
            .steps
            .iter()
            .filter(|s| s.name.starts_with(&prefix))
            .collect();
        if !stages.is_empty() {
            return Ok(stages);
        }
        Ok(vec![self.step(name)?])
    }

    /// The track a run uses: the one asked for, else the module's default.
    pub fn track<'a>(&'a self, asked: Option<&'a str>) -> Result<&'a str, Error> {
        let track = asked.unwrap_or(&self.manifest.tracks.default);
        if self.manifest.tracks.available.iter().any(|t| t == track) {
            Ok(track)
        } else {
            Err(Error::UnknownTrack {
                track: track.to_string(),
                module: self.manifest.module.clone(),
                available: self.manifest.tracks.available.join(", "),
            })
        }
    }
}

#[cfg(test)]
mod tests;
