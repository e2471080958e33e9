//! `labcheck course lint`: everything about a course that can be known without running it.
//! Loading the course already refuses unknown keys, bad regexes and YAML paths, undeclared repos
//! and tracks (at `file:line:col`); lint adds what loading does not look at: reference files
//! under `expected/`, empty hints, and the fixtures with every file and snapshot they name.

use serde::Serialize;

use crate::checks::CheckKind;
use crate::checks::diff::{DiffMode, Reference};
use crate::course::fixtures::ModuleFixtures;
use crate::course::{Course, Module};

/// One thing wrong with the course.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintProblem {
    pub module: String,
    /// `file[:line:col]: what is wrong and what to do`.
    pub message: String,
}

/// Lint every module of `course`; empty when nothing is wrong.
pub fn lint(course: &Course) -> Vec<LintProblem> {
    course
        .modules
        .iter()
        .flat_map(|m| lint_module(course, m))
        .collect()
}

/// Where item `index` of the solution of `step` (`step-4`, `break-it/fix`) stands in its file.
fn solution_item_at(
    course: &Course,
    module: &str,
    step: &str,
    index: usize,
) -> Option<(usize, usize)> {
    use crate::yaml::path::{Segment, YamlPath};
    let (file, stage) = match step.split_once('/') {
        Some((file, stage)) => (file, Some(stage)),
        None => (step, None),
    };
    let (_, text) = course
        .read_file(&format!("modules/{module}/{file}.yaml"))
        .ok()?;
    let mut segments = Vec::new();
    if let Some(stage) = stage {
        segments.push(Segment::Key("stages".to_string()));
        segments.push(Segment::Select {
            key: "stage".to_string(),
            value: stage.to_string(),
        });
    }
    segments.push(Segment::Key("solution".to_string()));
    segments.push(Segment::Index(index));
    crate::yaml::edit::position(&text, &YamlPath::from_segments(segments))
}

/// Lint one module.
pub fn lint_module(course: &Course, module: &Module) -> Vec<LintProblem> {
    let name = &module.manifest.module;
    let mut messages = Vec::new();
    let repos: Vec<&str> = module.manifest.repo_names().collect();
    for step in &module.steps {
        if step.solution.is_empty() {
            messages.push(format!(
                "{}: {}: has no `solution:`; write the course's own actions for it, in order (docs/course-tests.md#solutions)",
                step.file, step.name
            ));
        }
        for (i, action) in step.solution.iter().enumerate() {
            for problem in action.problems(&repos) {
                let at = solution_item_at(course, name, &step.name, i)
                    .map(|(line, col)| format!(":{line}:{col}"))
                    .unwrap_or_default();
                messages.push(format!(
                    "{}{at}: {}: solution item {}: {problem}",
                    step.file,
                    step.name,
                    i + 1
                ));
            }
        }
        for check in &step.checks {
            if check.hint.texts().any(|h| h.trim().is_empty()) {
                messages.push(format!(
                    "{}: {}: check `{}` has an empty `hint:`; say what the learner does next, or leave the key out",
                    step.file, step.name, check.id
                ));
            }
            // The learner's work dir is theirs: `~/work` is only the default.
            if let Some(text) = check
                .hint
                .texts()
                .find(|h| crate::course::placeholders::literal_work_dir(h).is_some())
            {
                messages.push(format!(
                    "{}: {}: check `{}` writes `~/work` in a hint (\"{text}\"); write `${{work}}/REPO` so it names the learner's own work dir, shell-quoted",
                    step.file, step.name, check.id
                ));
            }
            let CheckKind::Diff(diff) = &check.kind else {
                continue;
            };
            let Reference::Expected { expected } = &diff.reference else {
                continue;
            };
            let tracks: Vec<&String> = if check.tracks.is_empty() {
                module.manifest.tracks.available.iter().collect()
            } else {
                check.tracks.iter().collect()
            };
            for track in tracks {
                match course.expected_file(track, name, expected) {
                    Err(e) => messages.push(format!(
                        "{}: {}: check `{}` compares with `expected: {expected}`, and labcheck cannot read expected/{track}/{name}/{expected}: {e}",
                        step.file, step.name, check.id
                    )),
                    Ok((shown, text)) if matches!(diff.mode, DiffMode::Yaml | DiffMode::Contains) => {
                        if let Err(e) = serde_yaml::from_str::<serde_yaml::Value>(&text) {
                            let at = e
                                .location()
                                .map(|l| format!(":{}:{}", l.line(), l.column()))
                                .unwrap_or_default();
                            messages.push(format!(
                                "{shown}{at}: not valid YAML, but check `{}` of {} compares it as YAML: {e}",
                                check.id, step.name
                            ));
                        }
                    }
                    Ok(_) => {}
                }
            }
        }
    }
    if let Err(e) = ModuleFixtures::load(course, module) {
        messages.push(e.to_string());
    }
    messages
        .into_iter()
        .map(|message| LintProblem {
            module: name.clone(),
            message,
        })
        .collect()
}
