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

/// Hints and solution commands that add everything in a work tree (`git add -A`, `git commit
/// -a`): followed, they commit a learner's `.env` and push its password. Each is refused at the
/// line that holds it, with the step's files to add by name instead.
fn adds_everything(course: &Course, module: &Module, step: &crate::course::Step) -> Vec<String> {
    use crate::checks::git::stray;
    use crate::course::solution::SolutionAction;
    let mut found: Vec<(String, &'static str, String)> = Vec::new();
    for check in &step.checks {
        for text in check.hint.texts() {
            if let Some(pattern) = stray::adds_everything(text) {
                found.push((
                    text.to_string(),
                    pattern,
                    format!("check `{}`'s hint", check.id),
                ));
            }
        }
    }
    for (i, action) in step.solution.iter().enumerate() {
        if let SolutionAction::Run { command, .. } = action {
            let line = command.join(" ");
            if let Some(pattern) = stray::adds_everything(&line) {
                found.push((line, pattern, format!("solution item {}", i + 1)));
            }
        }
    }
    let file_text = step
        .file
        .rsplit('/')
        .next()
        .and_then(|name| {
            course
                .read_file(&format!("modules/{}/{name}", module.manifest.module))
                .ok()
        })
        .map(|(_, text)| text);
    found
        .into_iter()
        .map(|(text, pattern, place)| {
            let at = file_text
                .as_deref()
                .and_then(|file| line_col_of(file, pattern))
                .map(|(line, col)| format!(":{line}:{col}"))
                .unwrap_or_default();
            format!(
                "{}{at}: {}: {place} adds everything (`{pattern}` in \"{text}\"): it would commit a learner's untracked .env or key and push it; add the step's files by name (`git add -- FILE…`)",
                step.file, step.name
            )
        })
        .collect()
}

/// module.yaml's `get:` texts (how to get a repo, an Application, a tool) name the work dir as
/// hints do: `${work}`, which doctor and the checks show as the learner's own work dir.
fn get_texts(course: &Course, module: &Module) -> Vec<String> {
    let manifest = &module.manifest;
    let gets = manifest
        .repos
        .iter()
        .map(|r| (format!("repo `{}`", r.name), &r.get))
        .chain(
            manifest
                .needs
                .applications
                .iter()
                .map(|a| (format!("application `{}`", a.name), &a.get)),
        )
        .chain(
            manifest
                .needs
                .tools
                .iter()
                .map(|t| (format!("tool `{}`", t.name), &t.get)),
        );
    let (shown, text) = course
        .read_file(&format!("modules/{}/module.yaml", manifest.module))
        .unwrap_or_default();
    let mut messages = Vec::new();
    for (what, get) in gets {
        // The line holding this `get:` (its first words, as written), and the column of `pattern`.
        let opening: String = get.chars().take(30).collect();
        let at = |pattern: &str| {
            text.lines()
                .enumerate()
                .find(|(_, line)| line.contains(&opening))
                .and_then(|(i, line)| {
                    line.find(pattern)
                        .map(|col| format!(":{}:{}", i + 1, col + 1))
                })
                .unwrap_or_default()
        };
        if crate::course::placeholders::literal_work_dir(get).is_some() {
            messages.push(format!(
                "{shown}{}: {what}: its `get:` writes `~/work`; write `${{work}}/REPO` so it names the learner's own work dir",
                at("~/work")
            ));
        } else if let Err(why) = crate::course::placeholders::check_hint(get) {
            messages.push(format!("{shown}{}: {what}: its `get:`: {why}", at("${")));
        }
    }
    messages
}

/// Where `pattern` first stands in `text` (1-based line and column), the way a person finds it.
fn line_col_of(text: &str, pattern: &str) -> Option<(usize, usize)> {
    let first = pattern.split(' ').next_back()?;
    text.lines().enumerate().find_map(|(i, line)| {
        let col = line.find(pattern).or_else(|| {
            // A solution's argv is written as a YAML list: `[git, add, -A]`.
            line.contains("git")
                .then(|| line.find(&format!(" {first}]")))?
                .or_else(|| {
                    line.contains("git")
                        .then(|| line.find(&format!(" {first},")))?
                })
        })?;
        Some((i + 1, col + 1))
    })
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
        messages.extend(adds_everything(course, module, step));
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
    // Every cause a check can fail with gets a hint, and the course's `default:` only where the
    // author declared it fits.
    messages.extend(super::causes::lint_module(course, module).1);
    messages.extend(super::hint_paths::lint_module(course, module));
    messages.extend(get_texts(course, module));
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
