//! `labcheck doctor`: can this machine and cluster run a module? Each prerequisite is a check
//! with an outcome and, when it is missing, the fix; the result is an ordinary [`StepReport`], so
//! every reporter (human, JSON, JUnit, TAP) and the exit codes work unchanged.
//!
//! What a module needs comes from its `module.yaml` (`repos:`, `argocd:`, `needs:`), never from a
//! list in code.

mod cluster;
mod local;

use std::ffi::OsString;
use std::path::PathBuf;

use crate::course::Module;
use crate::course::schema::ToolNeed;
use crate::outcome::Outcome;
use crate::probe::cluster::ClusterOptions;
use crate::run::{CheckReport, StepReport};

pub use cluster::{MAX_CLOCK_SKEW, clock_outcome, workload_outcome};
pub use local::all_tools;

/// The step name doctor reports under.
pub const STEP: &str = "doctor";

/// What doctor examines.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The module whose needs are checked; `None` checks only what every module needs.
    pub module: Option<Module>,
    /// The programs to look for (the module's, or every module's without one).
    pub tools: Vec<ToolNeed>,
    pub work_dir: PathBuf,
    pub cluster: ClusterOptions,
    /// Where Argo CD runs.
    pub argocd_namespace: String,
    /// The PATH to search for tools.
    pub path: OsString,
    /// The learner's track, for the report.
    pub track: String,
    /// Whose needs: a learner at their machine, or CI running the course's solutions.
    pub audience: Audience,
}

/// Who runs the course on this machine (`labcheck doctor --for`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Audience {
    /// A learner: their own git identity in git's config, the module's tools.
    #[default]
    Learner,
    /// CI doing the steps with `labcheck solution … | bash`: also bash and awk (what the scripts
    /// run); a git identity may come from the environment (`GIT_AUTHOR_*`, `GIT_COMMITTER_*`).
    Ci,
}

impl Setup {
    /// A course's `get:` text with `${work}` as this learner's work dir, as hints show it.
    fn get_text(&self, get: &str) -> String {
        crate::course::placeholders::render_work(
            get,
            &crate::probe::files::PathShower::from_env().work_dir(&self.work_dir),
        )
    }
}

/// Examine everything; never prints.
pub async fn examine(setup: &Setup) -> StepReport {
    let mut checks = cluster::checks(setup).await;
    checks.extend(local::checks(setup).await);
    let (module, title) = match &setup.module {
        Some(m) => (
            m.manifest.module.clone(),
            format!("Can this machine and cluster run {}?", m.manifest.module),
        ),
        None => (
            "labcheck".to_string(),
            "Can this machine and cluster run the course?".to_string(),
        ),
    };
    StepReport::new(module, STEP, title, &setup.track, checks)
}

/// One prerequisite's result.
fn report(
    id: impl Into<String>,
    kind: &'static str,
    title: String,
    outcome: Outcome,
) -> CheckReport {
    CheckReport {
        id: id.into(),
        kind,
        title,
        outcome,
    }
}

/// A hint only when there is one: an empty fix says nothing.
fn with_fix(outcome: Outcome, fix: &str) -> Outcome {
    if fix.is_empty() {
        outcome
    } else {
        outcome.with_hint(fix)
    }
}

#[cfg(test)]
mod tests {
    use crate::course::Course;

    #[test]
    fn every_application_a_built_in_module_checks_is_one_it_declares_it_needs() {
        let course = Course::embedded().expect("the built-in course loads");
        for module in &course.modules {
            let needed: Vec<&str> = module
                .manifest
                .needs
                .applications
                .iter()
                .map(|a| a.name.as_str())
                .collect();
            for step in &module.steps {
                for check in &step.checks {
                    for app in check.kind.cluster_reads().apps {
                        assert!(
                            needed.contains(&app.as_str()),
                            "{}: {} checks Application {} but needs.applications lacks it",
                            module.manifest.module,
                            step.name,
                            app
                        );
                    }
                }
            }
        }
    }
}
