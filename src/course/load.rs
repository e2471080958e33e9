//! Loading a module: its manifest, its step files and its quiz, each checked against the format
//! version, and the whole module validated (repos, tracks, references) before anything runs.

use std::collections::HashSet;

use super::schema::{ModuleManifest, StepFile};
use super::{Course, CourseSource, Module, Step, parse_yaml};
use crate::error::Error;
use crate::quiz::Quiz;
use crate::yaml::course_file::check_format;

impl Course {
    pub(super) fn load(source: CourseSource) -> Result<Course, Error> {
        let mut course = Course {
            source,
            modules: Vec::new(),
        };
        let mut names = course.module_dirs()?;
        names.sort();
        for name in names {
            let module = course.load_module(&name)?;
            course.modules.push(module);
        }
        Ok(course)
    }

    fn load_module(&self, dir_name: &str) -> Result<Module, Error> {
        let (file, text) = self.read_file(&format!("modules/{dir_name}/module.yaml"))?;
        let manifest: ModuleManifest = parse_yaml(&file, &text)?;
        check_format(&file, &manifest.format)?;
        if manifest.module != dir_name {
            return Err(Error::CourseContent {
                file,
                message: format!(
                    "says `module: {}` but lives in modules/{dir_name}/; make them the same",
                    manifest.module
                ),
            });
        }
        if !manifest.tracks.available.contains(&manifest.tracks.default) {
            return Err(Error::CourseContent {
                file,
                message: format!(
                    "default track `{}` is not among the available tracks ({})",
                    manifest.tracks.default,
                    manifest.tracks.available.join(", ")
                ),
            });
        }
        if let Some(quiz) = &manifest.quiz
            && let Some(step) = manifest.steps.iter().find(|step| {
                [".yaml", ".yml"]
                    .iter()
                    .any(|ext| quiz.eq_ignore_ascii_case(&format!("{step}{ext}")))
            })
        {
            // The quiz's file would be read as a step, or a step's file as the quiz.
            let (line, column) = text
                .split('\n')
                .position(|l| l.starts_with("quiz:"))
                .map_or((1, 1), |i| (i + 1, 7));
            return Err(Error::CourseFile {
                file,
                line,
                column,
                message: format!(
                    "`quiz: {quiz}` names the file of step `{step}`: a file is either a step (checks) or the quiz (questions); give the quiz its own file, e.g. `quiz: quiz.yaml`"
                ),
            });
        }
        let mut steps = Vec::new();
        for step_name in &manifest.steps {
            let (file, text) = self.read_file(&format!("modules/{dir_name}/{step_name}.yaml"))?;
            let step_file: StepFile = parse_yaml(&file, &text)?;
            check_format(&file, &step_file.format)?;
            let transient = step_file
                .transient
                .or(step_file.stages.iter().find_map(|s| s.transient));
            if transient.is_some() {
                return Err(Error::CourseContent {
                    file,
                    message: "`transient:` is no longer read: say which later steps replace what this step looks at, e.g. `replaced_by: [step-5]` (a stage of an exercise: `[break-it/fix]`)".to_string(),
                });
            }
            match (step_file.checks.is_empty(), step_file.stages.is_empty()) {
                (false, true) => steps.push(Step {
                    name: step_name.clone(),
                    title: step_file.title,
                    summary: step_file.summary,
                    file: file.clone(),
                    replaced_by: step_file.replaced_by,
                    checks: step_file.checks,
                    after: None,
                    solution: step_file.solution,
                }),
                (true, false) if !step_file.solution.is_empty() => {
                    return Err(Error::CourseContent {
                        file,
                        message: "a break-it exercise has a `solution:` per stage, under `stages:`, not one for the whole file".to_string(),
                    });
                }
                (true, false) => {
                    for stage in step_file.stages {
                        steps.push(Step {
                            name: format!("{step_name}/{}", stage.stage),
                            title: format!("{}: {}", step_file.title, stage.title),
                            summary: stage.summary,
                            file: file.clone(),
                            replaced_by: stage.replaced_by,
                            checks: stage.checks,
                            after: stage.after,
                            solution: stage.solution,
                        });
                    }
                }
                _ => {
                    return Err(Error::CourseContent {
                        file,
                        message: "a step file has either `checks:` (a step) or `stages:` (a break-it exercise), exactly one of them".to_string(),
                    });
                }
            }
        }
        for step in &mut steps {
            step.name_git_step_paths();
        }
        let quiz = match &manifest.quiz {
            Some(name) => {
                let (file, text) = self.read_file(&format!("modules/{dir_name}/{name}"))?;
                Some(Quiz::parse(&file, &text)?)
            }
            None => None,
        };
        let module = Module {
            manifest,
            steps,
            quiz,
        };
        module.validate()?;
        Ok(module)
    }
}

impl Module {
    /// `replaced_by:` names later steps of this module, each once: a step cannot be replaced by
    /// itself or by one the learner does before it.
    fn validate_replaced_by(&self, step: &Step) -> Result<(), Error> {
        let position = |name: &str| self.steps.iter().position(|s| s.name == name);
        let this = position(&step.name);
        let mut seen = HashSet::new();
        for later in &step.replaced_by {
            let problem = match position(later) {
                _ if !seen.insert(later.as_str()) => {
                    format!("`replaced_by:` names `{later}` twice")
                }
                None => format!(
                    "`replaced_by:` names `{later}`, which is not a step of this module{}; its steps are {}",
                    super::suggest::did_you_mean(later, self.step_names()),
                    self.step_names().join(", "),
                ),
                Some(at) if Some(at) <= this => format!(
                    "step `{}` says it is `replaced_by: [{later}]`, but `{later}` does not come after it: only a later step can replace what an earlier one looks at",
                    step.name
                ),
                Some(_) => continue,
            };
            return Err(Error::CourseContent {
                file: step.file.clone(),
                message: problem,
            });
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), Error> {
        let repo_names: HashSet<&str> = self.manifest.repo_names().collect();
        for step in &self.steps {
            if self.quiz.is_some() && step.name == crate::quiz::STEP_NAME {
                return Err(Error::CourseContent {
                    file: step.file.clone(),
                    message: "a step may not be called `quiz` in a module with a quiz: `labcheck MODULE quiz` runs the quiz".to_string(),
                });
            }
            self.validate_replaced_by(step)?;
            if let Some(after) = &step.after {
                let exercise = step.name.split('/').next().unwrap_or_default();
                let earlier = format!("{exercise}/{}", after.stage);
                let position = |name: &str| self.steps.iter().position(|s| s.name == name);
                let comes_first = matches!(
                    (position(&earlier), position(&step.name)),
                    (Some(before), Some(this)) if before < this
                );
                let problem = if !comes_first {
                    Some(format!(
                        "stage `{}` is `after:` stage `{}`, which is not an earlier stage of `{exercise}`",
                        step.name, after.stage
                    ))
                } else if !repo_names.contains(after.repo.as_str()) {
                    Some(format!(
                        "stage `{}` reads repo `{}` in `after:`, which module.yaml does not list under repos:",
                        step.name, after.repo
                    ))
                } else {
                    None
                };
                if let Some(message) = problem {
                    return Err(Error::CourseContent {
                        file: step.file.clone(),
                        message,
                    });
                }
            }
            let mut ids = HashSet::new();
            for check in &step.checks {
                let unknown_after = check.after.iter().find(|a| !ids.contains(a.as_str()));
                let problem = if !ids.insert(check.id.as_str()) {
                    Some(format!(
                        "two checks have the id `{}`; ids are unique within a step",
                        check.id
                    ))
                } else if let Some(after) = unknown_after {
                    Some(format!(
                        "check `{}` says `after: [{after}]`, but no check above it in this step has that id",
                        check.id
                    ))
                } else if let Some(track) = check
                    .tracks
                    .iter()
                    .find(|t| !self.manifest.tracks.available.contains(t))
                {
                    Some(format!(
                        "check `{}` names track `{track}`, which module.yaml does not offer ({})",
                        check.id,
                        self.manifest.tracks.available.join(", ")
                    ))
                } else {
                    check
                        .kind
                        .repos()
                        .into_iter()
                        .find(|r| !repo_names.contains(r))
                        .map(|r| {
                            format!(
                                "check `{}` reads repo `{r}`, which module.yaml does not list under repos:",
                                check.id
                            )
                        })
                };
                if let Some(message) = problem {
                    return Err(Error::CourseContent {
                        file: step.file.clone(),
                        message,
                    });
                }
            }
        }
        Ok(())
    }
}
