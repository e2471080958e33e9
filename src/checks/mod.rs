//! The check kinds. Each file holds one kind: its fields (as written in a check file), how it
//! decides, and what it reads of the cluster. Adding a kind means one file here, one line in
//! `check_kinds!`'s list below (which also declares the file as a module), and one section in
//! `docs/check-files.md` (see `docs/adding-a-check-kind.md`). The other modules here are what
//! several kinds share.

pub mod can_fail;
pub mod change;
pub mod cluster_common;
pub mod condition;
pub mod context;
mod git_change;
pub mod hook_refused;
pub mod operation;
pub mod revisions;
pub mod sync_binding;
#[cfg(test)]
pub mod test_sources;

use serde::de::MapAccess;

mod reads;
pub use reads::{ClusterReads, LearnerNames, ObjectRead};

use crate::outcome::Outcome;
pub use context::Context;

/// Everything the rest of labcheck needs from a check kind, besides `repos()` and `evaluate()`.
/// No method has a default: a new kind must say what it reads of the cluster and how its names
/// change for a learner of a class, or it does not compile.
pub trait KindReads {
    /// The cluster objects this check reads by name (what a snapshot must capture; empty for a
    /// kind that reads only the learner's repos).
    fn cluster_reads(&self) -> ClusterReads;

    /// Give this check a learner's own namespaces and Application names on a shared cluster.
    fn rename_for_learner(&mut self, names: &mut dyn LearnerNames);

    /// The causes this check can fail with, for its settings, and which of them the kind gives
    /// a hint of its own for (`course lint` shows the course's hints against them).
    fn can_fail(&self) -> can_fail::Causes;
}

/// Declares every check kind once: its variant, the file that holds it (declared here as a
/// module), and its key in a check file. The enum, [`CheckKind::NAMES`], `name()`, deserialisation and the dispatch of every
/// per-kind method are derived from this one list, so no `match` over kinds is written by hand.
macro_rules! check_kinds {
    ($($variant:ident($module:ident::$spec:ident) = $key:literal),+ $(,)?) => {
        $(pub mod $module;)+

        /// A check's kind with its fields.
        #[derive(Debug, Clone)]
        pub enum CheckKind {
            $(
                #[doc = concat!("`", $key, ":` (see `", stringify!($module), ".rs`)")]
                $variant($module::$spec),
            )+
        }

        impl CheckKind {
            /// The key that names each kind in a check file (and `kind` in JSON reports).
            pub const NAMES: &'static [&'static str] = &[$($key),+];

            /// This kind's key.
            pub fn name(&self) -> &'static str {
                match self {
                    $(CheckKind::$variant(_) => $key,)+
                }
            }

            /// Read the value under the kind key `name` (one of [`Self::NAMES`]).
            pub(crate) fn deserialize_named<'de, A: MapAccess<'de>>(
                name: &str,
                map: &mut A,
            ) -> Result<CheckKind, A::Error> {
                Ok(match name {
                    $($key => CheckKind::$variant(map.next_value()?),)+
                    other => {
                        return Err(serde::de::Error::unknown_field(other, Self::NAMES));
                    }
                })
            }

            /// The work repos this check reads (validated against module.yaml at load).
            pub fn repos(&self) -> Vec<&str> {
                match self {
                    $(CheckKind::$variant(spec) => spec.repos(),)+
                }
            }

            /// The cluster objects this check reads by name.
            pub fn cluster_reads(&self) -> ClusterReads {
                match self {
                    $(CheckKind::$variant(spec) => spec.cluster_reads(),)+
                }
            }

            /// This check with a learner's own names (see [`KindReads::rename_for_learner`]).
            pub fn rename_for_learner(&mut self, names: &mut dyn LearnerNames) {
                match self {
                    $(CheckKind::$variant(spec) => spec.rename_for_learner(names),)+
                }
            }

            /// The causes this check can fail with (see [`KindReads::can_fail`]).
            pub fn can_fail(&self) -> can_fail::Causes {
                match self {
                    $(CheckKind::$variant(spec) => spec.can_fail(),)+
                }
            }

            /// Decide the check against the learner's world.
            pub async fn evaluate(&self, ctx: &Context) -> Outcome {
                match self {
                    $(CheckKind::$variant(spec) => spec.evaluate(ctx).await,)+
                }
            }
        }
    };
}

check_kinds! {
    Git(git::GitSpec) = "git",
    YamlValue(yaml_value::YamlValueSpec) = "yaml_value",
    Files(files::FilesSpec) = "files",
    Diff(diff::DiffSpec) = "diff",
    Object(object::ObjectSpec) = "object",
    Job(job::JobSpec) = "job",
    Logs(logs::LogsSpec) = "logs",
    ArgocdApp(argocd_app::ArgocdAppSpec) = "argocd_app",
    Manifests(manifests::ManifestsSpec) = "manifests",
}

impl CheckKind {
    /// Whether the check reads the cluster (and so may wait for it).
    pub fn reads_cluster(&self) -> bool {
        !self.cluster_reads().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::CheckKind;

    /// A kind a course author cannot read about does not exist for them.
    #[test]
    fn every_check_kind_has_its_section_in_the_check_file_docs() {
        let docs = include_str!("../../docs/check-files.md");
        let undocumented: Vec<&str> = CheckKind::NAMES
            .iter()
            .copied()
            .filter(|name| !docs.lines().any(|line| line == format!("## {name}")))
            .collect();
        assert!(
            undocumented.is_empty(),
            "docs/check-files.md has no `## <kind>` section for: {undocumented:?}"
        );
    }
}
