//! The declarative check files, as a course author writes them.
//!
//! A check is a map with a few common keys (`id`, `title`, `hint`, `tracks`, `wait`) and exactly one
//! key naming its kind (`git:`, `yaml_value:`, …) whose value holds that kind's fields. Every map
//! rejects unknown keys, and serde_yaml reports the line and column of the offending key.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::checks::CheckKind;

/// The only format this labcheck reads; bump it when a change would misread older files.
pub const FORMAT_VERSION: &str = "labcheck/v1";

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
    /// Steps and exercises in course order (file names without `.yaml`).
    pub steps: Vec<String>,
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
    pub name: String,
    /// Path under the work dir; defaults to the name.
    #[serde(default)]
    pub path: Option<String>,
    /// How a learner gets the repo when it is missing (shown verbatim).
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
    /// Checks of a plain step.
    #[serde(default)]
    pub checks: Vec<CheckSpec>,
    /// Stages of a break-it exercise (`break`, then `fix`).
    #[serde(default)]
    pub stages: Vec<StageSpec>,
}

/// One stage of a break-it exercise.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    pub stage: String,
    pub title: String,
    #[serde(default)]
    pub summary: Option<String>,
    pub checks: Vec<CheckSpec>,
}

/// One check: common fields plus its kind.
#[derive(Debug, Clone)]
pub struct CheckSpec {
    pub id: String,
    pub title: String,
    /// What to do when the check fails (the check may add a cause-specific one).
    pub hint: Option<String>,
    /// Tracks the check applies to; empty = all.
    pub tracks: Vec<String>,
    /// How long the check may wait for the cluster to get there (the course's "wait about 40 seconds").
    pub wait: Option<Duration>,
    pub kind: CheckKind,
}

impl<'de> Deserialize<'de> for CheckSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(CheckVisitor)
    }
}

struct CheckVisitor;

impl<'de> Visitor<'de> for CheckVisitor {
    type Value = CheckSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a check: a map with `id`, `title` and one kind key ({})",
            CheckKind::NAMES.join(", ")
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CheckSpec, A::Error> {
        let mut id = None;
        let mut title = None;
        let mut hint = None;
        let mut tracks = Vec::new();
        let mut wait = None;
        let mut kind: Option<CheckKind> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => id = Some(map.next_value::<String>()?),
                "title" => title = Some(map.next_value::<String>()?),
                "hint" => hint = Some(map.next_value::<String>()?),
                "tracks" => tracks = map.next_value::<Vec<String>>()?,
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
            kind,
        })
    }
}

/// Every key a check may have: the common keys, then [`CheckKind::NAMES`], spelled out because
/// serde's `unknown_field` wants a `&'static` list (building one leaked memory on every error,
/// which the fuzzer reported).
const CHECK_KEYS: &[&str] = &[
    "id",
    "title",
    "hint",
    "tracks",
    "wait",
    "git",
    "yaml_value",
    "files",
    "diff",
    "object",
    "job",
    "logs",
    "argocd_app",
];

/// A path a check file names inside a repo or the course: relative, and never leaving it.
pub fn inside_path(field: &str, value: &str) -> Result<(), String> {
    if value.is_empty() || value.starts_with('/') || value.split(['/', '\\']).any(|p| p == "..") {
        return Err(format!(
            "`{field}: {value}` leaves the folder it is relative to; write a path inside it, without `..` or a leading `/`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_named_in_errors_are_the_common_keys_and_every_kind() {
        let mut all = vec!["id", "title", "hint", "tracks", "wait"];
        all.extend_from_slice(CheckKind::NAMES);
        assert_eq!(CHECK_KEYS, all.as_slice());
    }

    /// The fuzzer's input that found the leak (a check file cut mid-key): an error at a position.
    #[test]
    fn a_check_file_cut_mid_key_is_an_error_with_a_position() {
        let text = "format: labcheck/v1\ntitle: t\nchecks:\n  - id: a\n    title: b\n    yamloks only run: x\n";
        let error = crate::course::parse_yaml::<StepFile>("step.yaml", text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            error.starts_with("step.yaml:4:5: checks[0]: unknown field `yamloks only run`"),
            "{error}"
        );
    }
}
