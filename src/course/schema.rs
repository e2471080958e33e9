//! The declarative check files, as a course author writes them.
//!
//! A check is a map with a few common keys (`id`, `title`, `hint`, `tracks`, `wait`) and exactly one
//! key naming its kind (`git:`, `yaml_value:`, …) whose value holds that kind's fields. Every map
//! rejects unknown keys, and serde_yaml reports the line and column of the offending key.

use std::collections::HashSet;
use std::fmt;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use crate::causes::Cause;
use crate::checks::CheckKind;

mod hint;
mod names;

pub use hint::{CauseHint, CauseKey, CourseHint, CourseText, DefaultFor};

pub use names::{RESERVED_STEP_NAMES, inside_path};
use names::{inside_work_dir, repo_name, step_names};

pub use crate::yaml::course_file::FORMAT_VERSION;

/// `module.yaml`: what a module is and what it needs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleManifest {
    pub format: String,
    pub module: String,
    pub title: String,
    #[serde(default)]
    pub persona: Option<String>,
    pub tracks: Tracks,
    /// Work repositories by name, in the order the course introduces them.
    pub repos: Vec<RepoSpec>,
    #[serde(default)]
    pub argocd: ArgoCdSpec,
    /// What the learner's environment must have before the module starts (`labcheck doctor`).
    #[serde(default)]
    pub needs: Needs,
    /// Steps and exercises in course order (file names without `.yaml`).
    #[serde(deserialize_with = "step_names")]
    pub steps: Vec<String>,
    /// The module's quiz file, e.g. `quiz.yaml` (`labcheck MODULE quiz`).
    #[serde(default)]
    pub quiz: Option<String>,
}

impl ModuleManifest {
    /// The names of the module's work repos, in course order.
    pub fn repo_names(&self) -> impl Iterator<Item = &str> {
        self.repos.iter().map(|r| r.name.as_str())
    }
}

/// `needs:` in module.yaml: what `labcheck doctor MODULE` looks for besides the cluster, Argo CD
/// and the work repos.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Needs {
    /// Argo CD Applications that must exist when the module starts.
    #[serde(default)]
    pub applications: Vec<AppNeed>,
    /// Programs the learner runs, which must be on PATH.
    #[serde(default)]
    pub tools: Vec<ToolNeed>,
}

/// An Application the module works with.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppNeed {
    pub name: String,
    /// Where it lives; defaults to the module's Argo CD namespace.
    #[serde(default)]
    pub namespace: Option<String>,
    /// How a learner gets it when it is missing (`${work}`: their work dir, as in hints).
    pub get: String,
}

/// A program the learner runs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolNeed {
    pub name: String,
    /// The arguments that make it print its version (default `--version`).
    #[serde(default)]
    pub version: Option<Vec<String>>,
    /// How a learner installs it (`${work}`: their work dir, as in hints).
    pub get: String,
}

/// The tracks a module offers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tracks {
    pub default: String,
    pub available: Vec<String>,
}

/// A work repository the learner cloned.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoSpec {
    /// Also its folder under the work dir when `path` is not given, so it stays inside it too.
    #[serde(deserialize_with = "repo_name")]
    pub name: String,
    /// Path under the work dir; defaults to the name.
    #[serde(default, deserialize_with = "inside_work_dir")]
    pub path: Option<String>,
    /// How a learner gets the repo when it is missing (`${work}`: their work dir, as in hints).
    pub get: String,
}

impl RepoSpec {
    /// The directory under the work dir.
    pub fn dir_name(&self) -> &str {
        self.path.as_deref().unwrap_or(&self.name)
    }
}

/// Where Argo CD lives for this module.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgoCdSpec {
    #[serde(default = "default_argocd_namespace")]
    pub namespace: String,
}

impl Default for ArgoCdSpec {
    fn default() -> Self {
        ArgoCdSpec {
            namespace: default_argocd_namespace(),
        }
    }
}

fn default_argocd_namespace() -> String {
    "argocd".to_string()
}

/// A step file: a step with checks, or a break-it exercise with stages.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepFile {
    pub format: String,
    pub title: String,
    /// What the learner does in this step, one line (shown as "next: …").
    #[serde(default)]
    pub summary: Option<String>,
    /// Later steps (or `exercise/stage`s) that change the state this step looks at (a sync, a
    /// HEAD commit): once one of them passes, this one can no longer be judged from what is there
    /// now. Only what the course declares here counts; the runner never infers it.
    #[serde(default)]
    pub replaced_by: Vec<String>,
    /// The older spelling, kept only to say what replaced it (see `course::load`).
    #[serde(default)]
    pub transient: Option<bool>,
    /// Checks of a plain step.
    #[serde(default, deserialize_with = "unique_checks")]
    pub checks: Vec<CheckSpec>,
    /// Stages of a break-it exercise (`break`, then `fix`).
    #[serde(default)]
    pub stages: Vec<StageSpec>,
    /// The course's own actions for this step, in order (see `course::solution`).
    #[serde(default)]
    pub solution: Vec<crate::course::solution::SolutionAction>,
}

/// One stage of a break-it exercise.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    pub stage: String,
    pub title: String,
    #[serde(default)]
    pub summary: Option<String>,
    /// As [`StepFile::replaced_by`], for this stage.
    #[serde(default)]
    pub replaced_by: Vec<String>,
    /// As [`StepFile::transient`].
    #[serde(default)]
    pub transient: Option<bool>,
    #[serde(deserialize_with = "unique_checks")]
    pub checks: Vec<CheckSpec>,
    /// A stage that only counts after an earlier one really happened (break-it's `fix`).
    #[serde(default)]
    pub after: Option<AfterSpec>,
    /// As [`StepFile::solution`], for this stage.
    #[serde(default)]
    pub solution: Vec<crate::course::solution::SolutionAction>,
}

/// `after:` on a stage: it passes only if stage `stage` was seen passing for this learner
/// (recorded in their progress), or `repo`'s history shows the commit that made `change`
/// followed by a commit that undoes it (found by content, never by message).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AfterSpec {
    pub stage: String,
    pub repo: String,
    pub change: crate::checks::change::ChangeSpec,
}

/// One check: common fields plus its kind.
#[derive(Debug, Clone)]
pub struct CheckSpec {
    pub id: String,
    pub title: String,
    /// What to do when the check fails: one text or levels for every cause, or texts keyed by
    /// cause (see [`CourseHint`]); the check adds what it saw.
    pub hint: CourseHint,
    /// Tracks the check applies to; empty = all.
    pub tracks: Vec<String>,
    /// How long the check may wait for the cluster to get there (the course's "wait about 40 seconds").
    pub wait: Option<Duration>,
    /// Checks of the same step that must pass first (a sync cannot be right before the push is):
    /// while one of them does not pass, this check's hint points there instead.
    pub after: Vec<String>,
    pub kind: CheckKind,
}

/// The keys every check may have, whatever its kind.
const COMMON_KEYS: &[&str] = &["id", "title", "hint", "tracks", "wait", "after"];

impl<'de> Deserialize<'de> for CheckSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(CheckVisitor { seen: None })
    }
}

/// Reads a check; with `seen`, the ids of the checks above it in the same list, so a duplicate
/// id is refused at the line of the second one.
struct CheckVisitor<'a> {
    seen: Option<&'a mut HashSet<String>>,
}

impl<'de> DeserializeSeed<'de> for CheckVisitor<'_> {
    type Value = CheckSpec;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<CheckSpec, D::Error> {
        deserializer.deserialize_map(self)
    }
}

/// `checks:` of a step or a stage: ids unique within the list.
fn unique_checks<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<CheckSpec>, D::Error> {
    struct ListVisitor;
    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Vec<CheckSpec>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of checks")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut seen = HashSet::new();
            let mut checks = Vec::new();
            while let Some(check) = seq.next_element_seed(CheckVisitor {
                seen: Some(&mut seen),
            })? {
                checks.push(check);
            }
            Ok(checks)
        }
    }
    deserializer.deserialize_seq(ListVisitor)
}

impl<'de> Visitor<'de> for CheckVisitor<'_> {
    type Value = CheckSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a check: a map with `id`, `title` and one kind key ({})",
            CheckKind::NAMES.join(", ")
        )
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<CheckSpec, A::Error> {
        let mut id = None;
        let mut title = None;
        let mut hint = CourseHint::default();
        let mut tracks = Vec::new();
        let mut after = Vec::new();
        let mut wait = None;
        let mut kind: Option<CheckKind> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => {
                    let value = map.next_value::<String>()?;
                    if let Some(seen) = self.seen.as_deref_mut()
                        && !seen.insert(value.clone())
                    {
                        return Err(de::Error::custom(format!(
                            "two checks have the id `{value}`; ids are unique within a step"
                        )));
                    }
                    id = Some(value);
                }
                "title" => title = Some(map.next_value::<String>()?),
                "hint" => hint = map.next_value::<CourseHint>()?,
                "tracks" => tracks = map.next_value::<Vec<String>>()?,
                "after" => after = map.next_value::<Vec<String>>()?,
                "wait" => {
                    // Parsed here, not in a Deserialize impl, so the error keeps its line and column.
                    let text = map.next_value::<String>()?;
                    wait = Some(humantime::parse_duration(&text).map_err(|e| {
                        de::Error::custom(format!(
                            "`wait: {text}` is not a duration like 40s or 2m: {e}"
                        ))
                    })?);
                }
                other if CheckKind::NAMES.contains(&other) => {
                    if let Some(existing) = &kind {
                        return Err(de::Error::custom(format!(
                            "a check has exactly one kind, but this one has both `{}` and `{other}`",
                            existing.name()
                        )));
                    }
                    kind = Some(CheckKind::deserialize_named(other, &mut map)?);
                }
                other => return Err(de::Error::unknown_field(other, CHECK_KEYS)),
            }
        }
        let id = id.ok_or_else(|| de::Error::missing_field("id"))?;
        let title = title.ok_or_else(|| de::Error::missing_field("title"))?;
        let kind = kind.ok_or_else(|| {
            de::Error::custom(format!(
                "check `{id}` has no kind: add one of {}",
                CheckKind::NAMES.join(", ")
            ))
        })?;
        Ok(CheckSpec {
            id,
            title,
            hint,
            tracks,
            wait,
            after,
            kind,
        })
    }
}

impl CheckSpec {
    /// How many hint levels the check file gives for a failure with `cause` (0 when it has no
    /// text for it).
    pub fn hint_levels(&self, cause: Option<&Cause>) -> usize {
        self.hint.for_cause(cause).map_or(0, |t| t.levels().len())
    }

    /// Hint level `level` (from 1) for a failure with `cause`; past the last level, the last one.
    pub fn hint_at(&self, level: usize, cause: Option<&Cause>) -> Option<&str> {
        let levels = self.hint.for_cause(cause)?.levels();
        levels
            .get(level.clamp(1, levels.len().max(1)) - 1)
            .map(String::as_str)
    }
}

/// Every key a check may have: the common keys, then [`CheckKind::NAMES`], built at compile time
/// because serde's `unknown_field` wants a `&'static` list (building one on every error leaked
/// memory, which the fuzzer reported).
const CHECK_KEYS: &[&str] =
    &concat_keys::<{ COMMON_KEYS.len() + CheckKind::NAMES.len() }>(COMMON_KEYS, CheckKind::NAMES);

/// `first` then `second` as one array of `N` (their lengths' sum) keys.
const fn concat_keys<const N: usize>(
    first: &[&'static str],
    second: &[&'static str],
) -> [&'static str; N] {
    let mut keys = [""; N];
    let mut i = 0;
    while i < first.len() {
        keys[i] = first[i];
        i += 1;
    }
    while i < N {
        keys[i] = second[i - first.len()];
        i += 1;
    }
    keys
}

#[cfg(test)]
mod tests;
