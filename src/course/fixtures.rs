//! Test fixtures of a module, as a course author writes them: for every step (and break-it stage)
//! a solved state and broken variants, each a set of work-repo changes plus a cluster snapshot.
//! `labcheck course test` builds and runs them; `labcheck course lint` validates them. The format
//! is documented in `docs/course-tests.md`.
//!
//! ```text
//! modules/<module>/fixtures/repos/<repo>/…     the work repos before the module's first step
//! modules/<module>/fixtures/<step>.yaml        a step's states (format: labcheck-fixtures/v1)
//! modules/<module>/fixtures/…                  files and snapshots those states name
//! ```

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;

use super::placeholders;
use super::{Course, Module, parse_yaml};
use crate::error::Error;

/// The only fixture format this labcheck reads.
pub const FIXTURE_FORMAT: &str = "labcheck-fixtures/v1";

/// `fixtures/<step>.yaml`: a step's states, or per stage for a break-it exercise.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureFile {
    pub format: String,
    #[serde(default)]
    pub solved: Option<StateSpec>,
    #[serde(default)]
    pub broken: Vec<BrokenSpec>,
    #[serde(default)]
    pub stages: Vec<StageFixtures>,
}

/// The states of one stage of a break-it exercise.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageFixtures {
    pub stage: String,
    pub solved: StateSpec,
    #[serde(default)]
    pub broken: Vec<BrokenSpec>,
}

/// The solved state: what the learner changes on top of the previous step's solved state, and
/// the cluster once Argo CD caught up.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateSpec {
    #[serde(default)]
    pub changes: Vec<Change>,
    /// A snapshot file, relative to `fixtures/`.
    pub cluster: String,
}

/// A broken variant: a mistake a learner makes, and the checks that must catch it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokenSpec {
    pub name: String,
    /// What the learner did, one line (shown in reports).
    #[serde(default)]
    pub description: Option<String>,
    /// Which repos the changes start from.
    #[serde(default)]
    pub base: Base,
    #[serde(default)]
    pub changes: Vec<Change>,
    /// A snapshot file, relative to `fixtures/`.
    pub cluster: String,
    /// The check ids that must fail; every other check must pass (or be skipped).
    pub fails: Vec<String>,
}

/// Where a broken variant's changes start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Base {
    /// This step's solved repos (the mistake is elsewhere, e.g. Argo CD has not synced).
    #[default]
    Solved,
    /// The previous step's solved repos (the learner did the step differently).
    Previous,
}

/// One thing a learner does to a work repo, with the real git CLI.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawChange")]
pub struct Change {
    pub repo: String,
    pub action: Action,
}

/// What a [`Change`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Write a file; the text is inline (`text:`) or a file under `fixtures/` (`from:`).
    Write { path: String, source: TextSource },
    /// Delete a file.
    Delete { path: String },
    /// `git add -A && git commit -m MESSAGE`.
    Commit { message: String },
    /// `git push`.
    Push,
    /// `git revert --no-edit HEAD`.
    RevertHead,
}

/// Where a written file's text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextSource {
    Inline(String),
    File(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChange {
    repo: String,
    #[serde(default)]
    write: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    delete: Option<String>,
    #[serde(default)]
    commit: Option<String>,
    #[serde(default)]
    push: Option<bool>,
    #[serde(default)]
    revert_head: Option<bool>,
}

const ACTIONS: &str =
    "`write` (with `text` or `from`), `delete`, `commit`, `push: true`, `revert_head: true`";

impl TryFrom<RawChange> for Change {
    type Error = String;

    fn try_from(raw: RawChange) -> Result<Self, Self::Error> {
        let mut actions = Vec::new();
        if let Some(path) = raw.write {
            check_relative(&path)?;
            let source = match (raw.text, raw.from) {
                (Some(text), None) => TextSource::Inline(text),
                (None, Some(from)) => {
                    check_relative(&from)?;
                    TextSource::File(from)
                }
                _ => {
                    return Err(format!(
                        "`write: {path}` needs exactly one of `text:` (the file's text) or `from:` (a file under fixtures/)"
                    ));
                }
            };
            actions.push(Action::Write { path, source });
        } else if raw.text.is_some() || raw.from.is_some() {
            return Err("`text:` and `from:` go with `write: PATH`".to_string());
        }
        if let Some(path) = raw.delete {
            check_relative(&path)?;
            actions.push(Action::Delete { path });
        }
        if let Some(message) = raw.commit {
            actions.push(Action::Commit { message });
        }
        match raw.push {
            Some(true) => actions.push(Action::Push),
            Some(false) => return Err("`push: false` does nothing: leave the change out".into()),
            None => {}
        }
        match raw.revert_head {
            Some(true) => actions.push(Action::RevertHead),
            Some(false) => {
                return Err("`revert_head: false` does nothing: leave the change out".into());
            }
            None => {}
        }
        match actions.len() {
            1 => Ok(Change {
                repo: raw.repo,
                action: actions.remove(0),
            }),
            0 => Err(format!("a change needs one action: {ACTIONS}")),
            _ => Err(format!(
                "a change does one thing; split it into one list item per action ({ACTIONS})"
            )),
        }
    }
}

fn check_relative(path: &str) -> Result<(), String> {
    if crate::paths::relative_inside(path).is_err() {
        Err(format!(
            "`{path}` must be a relative path inside its folder (no `..`, not absolute)"
        ))
    } else {
        Ok(())
    }
}

/// A module's fixtures, loaded and validated: every file read, every reference resolved.
#[derive(Debug, Clone)]
pub struct ModuleFixtures {
    /// Each declared repo's files before the first step: repo name → (path, text), sorted.
    pub initial: BTreeMap<String, Vec<(String, String)>>,
    /// One entry per runnable step, in course order.
    pub steps: Vec<StepFixtures>,
    /// The lab as the module starts (`fixtures/fresh.yaml`): the initial repos, nothing done,
    /// and this cluster. Every step is run on it too: nothing a title claims happened there.
    pub fresh: State,
}

/// `fixtures/fresh.yaml`: the cluster of a lab where the learner has done nothing yet.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FreshFile {
    format: String,
    /// A snapshot file, relative to `fixtures/`.
    cluster: String,
}

/// The states of one runnable step (`step-4`, `break-it/fix`).
#[derive(Debug, Clone)]
pub struct StepFixtures {
    pub step: String,
    /// The fixture file, for messages.
    pub file: String,
    pub solved: State,
    pub broken: Vec<State>,
}

/// One state, ready to build.
#[derive(Debug, Clone)]
pub struct State {
    /// `solved` or the broken variant's name.
    pub name: String,
    pub description: Option<String>,
    pub base: Base,
    /// Changes with every file text read.
    pub changes: Vec<ResolvedChange>,
    /// The snapshot file (for messages) and its text, placeholders still in.
    pub cluster_file: String,
    pub cluster_text: String,
    /// Empty for the solved state.
    pub fails: Vec<String>,
}

/// A change with its text in hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolvedChange {
    Write {
        repo: String,
        path: String,
        text: String,
    },
    Delete {
        repo: String,
        path: String,
    },
    Commit {
        repo: String,
        message: String,
    },
    Push {
        repo: String,
    },
    RevertHead {
        repo: String,
    },
}

impl ModuleFixtures {
    /// Load and validate `modules/<module>/fixtures/`. A step without a fixture file, a file
    /// that names something that is not there, or a snapshot that does not load is an error.
    pub fn load(course: &Course, module: &Module) -> Result<ModuleFixtures, Error> {
        let name = &module.manifest.module;
        let base = format!("modules/{name}/fixtures");
        let mut initial = BTreeMap::new();
        for repo in &module.manifest.repos {
            let dir = format!("{base}/repos/{}", repo.name);
            let files = course.files_under(&dir)?;
            if files.is_empty() {
                return Err(Error::CourseContent {
                    file: format!("{base}/repos/"),
                    message: format!(
                        "has no files for repo `{}`; put the repo's files as they are before the module's first step under {dir}/",
                        repo.name
                    ),
                });
            }
            let mut texts = Vec::new();
            for rel in files {
                let (_, text) = course.read_file(&format!("{dir}/{rel}"))?;
                texts.push((rel, text));
            }
            initial.insert(repo.name.clone(), texts);
        }
        let loader = Loader {
            course,
            module,
            base: &base,
        };
        let mut steps = Vec::new();
        for step_file in &module.manifest.steps {
            steps.extend(loader.step_file(step_file)?);
        }
        let fresh = loader.fresh()?;
        Ok(ModuleFixtures {
            initial,
            steps,
            fresh,
        })
    }
}

struct Loader<'a> {
    course: &'a Course,
    module: &'a Module,
    base: &'a str,
}

impl Loader<'_> {
    /// `fixtures/fresh.yaml`, required: the fresh lab is a state of every step.
    fn fresh(&self) -> Result<State, Error> {
        let relative = format!("{}/fresh.yaml", self.base);
        let (file, text) = self.course.read_file(&relative).map_err(|e| match e {
            Error::CourseIo { .. } => Error::CourseContent {
                file: relative.clone(),
                message: format!(
                    "is missing: it names the cluster of a lab where nothing is done yet (`format: {FIXTURE_FORMAT}` and `cluster: cluster/….yaml`); every step runs on it and nothing its titles claim may pass there; {e}"
                ),
            },
            other => other,
        })?;
        let fresh: FreshFile = parse_yaml(&file, &text)?;
        if fresh.format != FIXTURE_FORMAT {
            return Err(Error::CourseContent {
                file,
                message: format!(
                    "has `format: {}`, but this labcheck reads `format: {FIXTURE_FORMAT}`",
                    fresh.format
                ),
            });
        }
        Ok(State {
            name: "fresh".to_string(),
            description: Some("nothing done yet: the lab as the module starts".to_string()),
            base: Base::Previous,
            changes: Vec::new(),
            cluster_text: self.cluster(&file, "fresh", &fresh.cluster)?,
            cluster_file: format!("{}/{}", self.base, fresh.cluster),
            fails: Vec::new(),
        })
    }

    fn step_file(&self, step_file: &str) -> Result<Vec<StepFixtures>, Error> {
        let relative = format!("{}/{step_file}.yaml", self.base);
        let (file, text) = self.course.read_file(&relative).map_err(|e| match e {
            Error::CourseIo { .. } => Error::CourseContent {
                file: relative.clone(),
                message: format!(
                    "is missing: every step declares a solved state and broken variants (see docs/course-tests.md); {e}"
                ),
            },
            other => other,
        })?;
        let fixture: FixtureFile = parse_yaml(&file, &text)?;
        if fixture.format != FIXTURE_FORMAT {
            return Err(Error::CourseContent {
                file,
                message: format!(
                    "has `format: {}`, but this labcheck reads `format: {FIXTURE_FORMAT}`",
                    fixture.format
                ),
            });
        }
        let stage_names: Vec<String> = self
            .module
            .steps
            .iter()
            .filter_map(|s| s.name.strip_prefix(&format!("{step_file}/")))
            .map(str::to_string)
            .collect();
        let content_error = |message: String| Error::CourseContent {
            file: file.clone(),
            message,
        };
        if stage_names.is_empty() {
            let Some(solved) = fixture.solved else {
                return Err(content_error(
                    "declares no `solved:` state (a step's fixtures have `solved:` and `broken:`)"
                        .into(),
                ));
            };
            if !fixture.stages.is_empty() {
                return Err(content_error(format!(
                    "{step_file} is a step, not a break-it exercise: use `solved:` and `broken:`, not `stages:`"
                )));
            }
            return Ok(vec![self.step(
                &file,
                step_file,
                &solved,
                &fixture.broken,
            )?]);
        }
        if fixture.solved.is_some() || !fixture.broken.is_empty() {
            return Err(content_error(format!(
                "{step_file} has stages ({}): give each its `solved:` and `broken:` under `stages:`",
                stage_names.join(", ")
            )));
        }
        let declared: Vec<&str> = fixture.stages.iter().map(|s| s.stage.as_str()).collect();
        if declared != stage_names.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(content_error(format!(
                "`stages:` are [{}], but the step file's stages are [{}], in that order",
                declared.join(", "),
                stage_names.join(", ")
            )));
        }
        fixture
            .stages
            .iter()
            .map(|s| {
                self.step(
                    &file,
                    &format!("{step_file}/{}", s.stage),
                    &s.solved,
                    &s.broken,
                )
            })
            .collect()
    }

    fn step(
        &self,
        file: &str,
        step: &str,
        solved: &StateSpec,
        broken: &[BrokenSpec],
    ) -> Result<StepFixtures, Error> {
        let check_ids: HashSet<&str> = self
            .module
            .step(step)?
            .checks
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        let error = |message: String| Error::CourseContent {
            file: file.to_string(),
            message: format!("{step}: {message}"),
        };
        let solved_state = State {
            name: "solved".to_string(),
            description: None,
            base: Base::Previous,
            changes: self.changes(file, step, &solved.changes)?,
            cluster_text: self.cluster(file, step, &solved.cluster)?,
            cluster_file: format!("{}/{}", self.base, solved.cluster),
            fails: Vec::new(),
        };
        let mut names = HashSet::new();
        let mut states = Vec::new();
        for variant in broken {
            if variant.name == "solved" || !names.insert(variant.name.as_str()) {
                return Err(error(format!(
                    "broken variant name `{}` is used twice (or is `solved`); names are unique within a step",
                    variant.name
                )));
            }
            if variant.fails.is_empty() {
                return Err(error(format!(
                    "broken variant `{}` names no check in `fails:`; a broken state must make at least one check fail",
                    variant.name
                )));
            }
            if let Some(unknown) = variant
                .fails
                .iter()
                .find(|id| !check_ids.contains(id.as_str()))
            {
                let mut known: Vec<&str> = check_ids.iter().copied().collect();
                known.sort_unstable();
                return Err(error(format!(
                    "broken variant `{}` names check `{unknown}` in `fails:`, but the step has no such check; it has {}",
                    variant.name,
                    known.join(", ")
                )));
            }
            states.push(State {
                name: variant.name.clone(),
                description: variant.description.clone(),
                base: variant.base,
                changes: self.changes(file, step, &variant.changes)?,
                cluster_text: self.cluster(file, step, &variant.cluster)?,
                cluster_file: format!("{}/{}", self.base, variant.cluster),
                fails: variant.fails.clone(),
            });
        }
        Ok(StepFixtures {
            step: step.to_string(),
            file: file.to_string(),
            solved: solved_state,
            broken: states,
        })
    }

    fn changes(
        &self,
        file: &str,
        step: &str,
        changes: &[Change],
    ) -> Result<Vec<ResolvedChange>, Error> {
        let mut out = Vec::new();
        for change in changes {
            if !self
                .module
                .manifest
                .repos
                .iter()
                .any(|r| r.name == change.repo)
            {
                return Err(Error::CourseContent {
                    file: file.to_string(),
                    message: format!(
                        "{step}: a change names repo `{}`, which module.yaml does not list under repos:",
                        change.repo
                    ),
                });
            }
            let repo = change.repo.clone();
            out.push(match &change.action {
                Action::Write { path, source } => ResolvedChange::Write {
                    repo,
                    path: path.clone(),
                    text: match source {
                        TextSource::Inline(text) => text.clone(),
                        TextSource::File(from) => {
                            self.course.read_file(&format!("{}/{from}", self.base))?.1
                        }
                    },
                },
                Action::Delete { path } => ResolvedChange::Delete {
                    repo,
                    path: path.clone(),
                },
                Action::Commit { message } => ResolvedChange::Commit {
                    repo,
                    message: message.clone(),
                },
                Action::Push => ResolvedChange::Push { repo },
                Action::RevertHead => ResolvedChange::RevertHead { repo },
            });
        }
        Ok(out)
    }

    /// Read a snapshot and prove it loads once its placeholders are filled in.
    fn cluster(&self, file: &str, step: &str, cluster: &str) -> Result<String, Error> {
        if let Err(message) = check_relative(cluster) {
            return Err(Error::CourseContent {
                file: file.to_string(),
                message: format!("{step}: cluster: {message}"),
            });
        }
        let (shown, text) = self.course.read_file(&format!("{}/{cluster}", self.base))?;
        let repos: Vec<&str> = self
            .module
            .manifest
            .repos
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        let filled = placeholders::substitute(&shown, &text, |_, repo| {
            repos
                .contains(&repo)
                .then(|| "0".repeat(40))
                .ok_or_else(|| format!("repo `{repo}` is not listed under repos: in module.yaml"))
        })?;
        placeholders::load_snapshot(&shown, &filled)?;
        Ok(text)
    }
}
