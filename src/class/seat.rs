//! A learner of a class, seated: their environment (cluster, work repos, names), their copy of
//! the steps (their names through the templates, see [`super::renames`]) and what in their reports
//! is theirs alone. A seat runs through the learner's own runner ([`run::run_learner`]), so a
//! class shows each learner exactly what their own run shows.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use super::own::{OwnName, Slot};
use super::renames::{Renames, for_learner, renamed};
use crate::course::{Course, Module, Step};
use crate::outcome::Status;
use crate::probe::cluster::ClusterOptions;
use crate::probe::files::PathShower;
use crate::run::{self, LearnerWorld, Recall, StepReport, WaitPolicy, WorkDir};

/// One learner's environment.
#[derive(Debug, Clone)]
pub struct Environment {
    pub learner: String,
    pub cluster: ClusterOptions,
    /// Their work repos; `None` makes every check of work repos "could not check: no work dir
    /// for this learner" (never a pass, never read from an empty path).
    pub work_dir: Option<PathBuf>,
    pub names: Renames,
}

/// One learner's reports.
#[derive(Debug, Clone, Serialize)]
pub struct LearnerRun {
    pub learner: String,
    /// Where their work repos were read (`None`: nowhere, see [`Environment::work_dir`]).
    pub work_dir: Option<PathBuf>,
    pub status: Status,
    pub steps: Vec<StepReport>,
    /// The names in their reports that are theirs alone, for showing a hint once for many
    /// learners.
    #[serde(skip)]
    pub own: Vec<OwnName>,
}

/// The hint of a learner without work repos to read.
const NO_WORK_DIRS_HINT: &str = "give each learner's work repos with --work-dirs 'DIR/{learner}' (their clones of the course's repos)";

/// What every learner of a class shares: the course, the module and steps asked for, the track,
/// the Argo CD namespace and how long to wait.
#[derive(Clone, Copy)]
pub struct Lesson<'a> {
    pub course: &'a Arc<Course>,
    pub module: &'a Module,
    pub track: &'a str,
    /// `--argocd-namespace`, else the module's.
    pub argocd_namespace: &'a Option<String>,
    pub policy: WaitPolicy,
    /// How paths are shown (`~/…` under the instructor's home).
    pub paths: &'a PathShower,
}

/// A learner of a class ready to run: their copy of the steps (their names through the
/// templates) and what in their reports is theirs alone.
#[derive(Debug, Clone)]
pub struct Seat {
    pub env: Environment,
    steps: Vec<Step>,
    own: Vec<OwnName>,
}

impl Seat {
    /// `env`'s seat for `steps` of `module`, its paths shown by `paths`.
    pub fn new(
        env: Environment,
        module: &Module,
        steps: &[&Step],
        lesson_ns: Option<&str>,
        paths: &PathShower,
    ) -> Seat {
        let argocd_ns = lesson_ns.unwrap_or(&module.manifest.argocd.namespace);
        Seat {
            steps: steps
                .iter()
                .map(|step| for_learner(step, &env.learner, &env.names, argocd_ns))
                .collect(),
            own: own_names(&env, steps, argocd_ns, paths),
            env,
        }
    }

    /// The steps as this learner sees them.
    pub fn steps(&self) -> Vec<&Step> {
        self.steps.iter().collect()
    }

    /// This learner's world for `lesson`: their cluster, and their work repos as they are now
    /// (a folder that appears later is read from the round after it does).
    pub fn world<'a>(&'a self, lesson: Lesson<'a>) -> LearnerWorld<'a> {
        LearnerWorld {
            course: lesson.course.clone(),
            module: lesson.module,
            track: lesson.track,
            work_dir: work_dir(&self.env),
            cluster: &self.env.cluster,
            argocd_namespace: lesson.argocd_namespace.clone(),
            paths: lesson.paths.clone(),
        }
    }

    /// Run this learner once through [`run::run_learner`] (connecting to their cluster), with
    /// no progress at all: a class never reads or writes anyone's progress.
    pub async fn run(&self, lesson: Lesson<'_>) -> LearnerRun {
        let mine = self.steps();
        let reports = run::run_learner(
            self.world(lesson),
            &Recall::default(),
            &mine,
            lesson.policy,
            &|_| {},
        )
        .await;
        self.learner_run(reports)
    }

    /// `reports` as this learner's run.
    pub fn learner_run(&self, reports: Vec<StepReport>) -> LearnerRun {
        LearnerRun {
            own: self.own.clone(),
            learner: self.env.learner.clone(),
            work_dir: self.env.work_dir.clone(),
            status: Status::fold(reports.iter().map(|r| r.status)),
            steps: reports,
        }
    }
}

/// Where `env`'s work repos are: a folder that is not there is no work dir either, told once
/// per learner rather than by every check of every repo.
pub fn work_dir(env: &Environment) -> WorkDir {
    match &env.work_dir {
        None => WorkDir::Missing {
            hint: NO_WORK_DIRS_HINT.to_string(),
        },
        Some(dir) if !dir.is_dir() => WorkDir::Missing {
            hint: format!(
                "{} is not a folder: put {}'s clones there, or point --work-dirs elsewhere",
                dir.display(),
                env.learner
            ),
        },
        Some(dir) => WorkDir::At(dir.clone()),
    }
}

/// What in `env`'s reports is theirs alone: their work dir (as written and as `~/…`), their
/// namespaces and Applications as the templates renamed them. Longest first, so a longer name is
/// taken whole.
fn own_names(
    env: &Environment,
    course_steps: &[&Step],
    argocd_ns: &str,
    paths: &PathShower,
) -> Vec<OwnName> {
    let mut out = Vec::new();
    if let Some(dir) = &env.work_dir {
        let shown = dir.display().to_string();
        if !shown.is_empty() {
            out.push(OwnName {
                theirs: shown,
                slot: Slot::WorkDir,
            });
        }
        let home = paths.show(dir);
        if home.starts_with('~') && home != "~/" {
            out.push(OwnName {
                theirs: home,
                slot: Slot::WorkDir,
            });
        }
    }
    for course in course_steps {
        for check in &course.checks {
            let pairs = renamed(&check.kind, &env.learner, &env.names, argocd_ns);
            for (slot, original, renamed) in pairs {
                let template = match slot {
                    "{namespace}" => env.names.namespace.as_deref(),
                    _ => env.names.app.as_deref(),
                };
                if original != renamed
                    && let Some(template) = template
                {
                    out.push(OwnName {
                        theirs: renamed,
                        slot: Slot::Renamed {
                            template: template.to_string(),
                            slot,
                            course: original,
                        },
                    });
                }
            }
        }
    }
    out.sort_by_key(|name| std::cmp::Reverse(name.theirs.len()));
    out.dedup();
    out
}
