//! The check kinds. Each file holds one kind: its fields (as written in a check file) and how it
//! decides. Adding a kind means one file here, one arm in [`CheckKind`], one row in
//! `docs/check-files.md`.

pub mod argocd_app;
pub mod change;
pub mod cluster_common;
pub mod condition;
pub mod diff;
pub mod files;
pub mod git;
mod git_change;
pub mod helm_yaml;
pub mod job;
pub mod logs;
pub mod manifests;
pub mod object;
pub mod revisions;
pub mod sync_binding;
pub mod yaml_value;

use serde::de::MapAccess;

use crate::outcome::Outcome;
use crate::run::Context;

/// A check's kind with its fields.
#[derive(Debug, Clone)]
pub enum CheckKind {
    Git(git::GitSpec),
    YamlValue(yaml_value::YamlValueSpec),
    Files(files::FilesSpec),
    Diff(diff::DiffSpec),
    Object(object::ObjectSpec),
    Job(job::JobSpec),
    Logs(logs::LogsSpec),
    ArgocdApp(argocd_app::ArgocdAppSpec),
    Manifests(manifests::ManifestsSpec),
}

impl CheckKind {
    /// The key that names each kind in a check file (and `kind` in JSON reports).
    pub const NAMES: &'static [&'static str] = &[
        "git",
        "yaml_value",
        "files",
        "diff",
        "object",
        "job",
        "logs",
        "argocd_app",
        "manifests",
    ];

    /// This kind's key.
    pub fn name(&self) -> &'static str {
        match self {
            CheckKind::Git(_) => "git",
            CheckKind::YamlValue(_) => "yaml_value",
            CheckKind::Files(_) => "files",
            CheckKind::Diff(_) => "diff",
            CheckKind::Object(_) => "object",
            CheckKind::Job(_) => "job",
            CheckKind::Logs(_) => "logs",
            CheckKind::ArgocdApp(_) => "argocd_app",
            CheckKind::Manifests(_) => "manifests",
        }
    }

    /// Whether the check reads the cluster (and so may wait for it).
    pub fn reads_cluster(&self) -> bool {
        matches!(
            self,
            CheckKind::Object(_) | CheckKind::Job(_) | CheckKind::Logs(_) | CheckKind::ArgocdApp(_)
        )
    }

    /// Read the value under the kind key `name` (one of [`Self::NAMES`]).
    pub(crate) fn deserialize_named<'de, A: MapAccess<'de>>(
        name: &str,
        map: &mut A,
    ) -> Result<CheckKind, A::Error> {
        Ok(match name {
            "git" => CheckKind::Git(map.next_value()?),
            "yaml_value" => CheckKind::YamlValue(map.next_value()?),
            "files" => CheckKind::Files(map.next_value()?),
            "diff" => CheckKind::Diff(map.next_value()?),
            "object" => CheckKind::Object(map.next_value()?),
            "job" => CheckKind::Job(map.next_value()?),
            "logs" => CheckKind::Logs(map.next_value()?),
            "argocd_app" => CheckKind::ArgocdApp(map.next_value()?),
            "manifests" => CheckKind::Manifests(map.next_value()?),
            other => {
                return Err(serde::de::Error::unknown_field(other, Self::NAMES));
            }
        })
    }

    /// The work repos this check reads (validated against module.yaml at load).
    pub fn repos(&self) -> Vec<&str> {
        match self {
            CheckKind::Git(spec) => spec.repos(),
            CheckKind::YamlValue(spec) => spec.repos(),
            CheckKind::Files(spec) => spec.repos(),
            CheckKind::Diff(spec) => spec.repos(),
            CheckKind::Object(spec) => spec.repos(),
            CheckKind::Job(spec) => spec.repos(),
            CheckKind::Logs(spec) => spec.repos(),
            CheckKind::ArgocdApp(spec) => spec.repos(),
            CheckKind::Manifests(spec) => spec.repos(),
        }
    }

    /// Decide the check against the learner's world.
    pub async fn evaluate(&self, ctx: &Context) -> Outcome {
        match self {
            CheckKind::Git(spec) => spec.evaluate(ctx).await,
            CheckKind::YamlValue(spec) => spec.evaluate(ctx).await,
            CheckKind::Files(spec) => spec.evaluate(ctx).await,
            CheckKind::Diff(spec) => spec.evaluate(ctx).await,
            // A cluster check's hint is about the state it saw (a sync running, a Job from an
            // earlier sync): it adds to the course's hint, never replaces it.
            CheckKind::Object(spec) => spec.evaluate(ctx).await,
            CheckKind::Job(spec) => spec.evaluate(ctx).await,
            CheckKind::Logs(spec) => spec.evaluate(ctx).await,
            CheckKind::ArgocdApp(spec) => spec.evaluate(ctx).await,
            CheckKind::Manifests(spec) => spec.evaluate(ctx).await,
        }
    }
}
