//! The fleet: a step (or module) run for every learner of a class, concurrently (bounded), each
//! against their own cluster (a context, a kubeconfig file) or their own namespaces on a shared
//! cluster, and their own work repos, through the same runner as the learner's own run
//! ([`run::run_learner`]). Results are data; [`causes`] groups them, `report::matrix` prints them.
//!
//! Namespaces on a shared cluster: rather than teach every cluster check kind about renaming, each
//! learner gets a copy of the step whose checks name that learner's namespaces and Applications.
//! Summaries then show the learner's real names; `hint:` texts of check files stay as written.

pub mod causes;
pub mod gate;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::checks::CheckKind;
use crate::course::{Course, Module, Step};
use crate::error::Error;
use crate::outcome::Status;
use crate::probe::cluster::{Cluster, ClusterOptions};
use crate::probe::files::PathShower;
use crate::run::{self, Recall, StepReport, WaitPolicy, WorkDir};

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

/// A template with `{learner}` and a placeholder for the name it replaces (`{namespace}`, `{app}`).
#[derive(Debug, Clone, Default)]
pub struct Renames {
    pub namespace: Option<String>,
    pub app: Option<String>,
}

/// `name` through `template`: `{learner}` becomes the learner, `slot` the course's name; a
/// template without `slot` stands for the whole name.
fn rename(template: Option<&str>, slot: &str, learner: &str, name: &str) -> String {
    match template {
        Some(t) => t.replace("{learner}", learner).replace(slot, name),
        None => name.to_string(),
    }
}

/// One learner's reports.
#[derive(Debug, Clone, Serialize)]
pub struct LearnerRun {
    pub learner: String,
    /// Where their work repos were read (`None`: nowhere, see [`Environment::work_dir`]).
    pub work_dir: Option<PathBuf>,
    pub status: Status,
    pub steps: Vec<StepReport>,
    /// Text that is theirs alone and its placeholder, for showing a hint once for many learners.
    #[serde(skip)]
    pub placeholders: Vec<(String, String)>,
}

/// The namespaces a step's cluster checks name (Argo CD's excluded), sorted.
pub fn namespaces(steps: &[&Step], argocd_namespace: &str) -> BTreeSet<String> {
    steps
        .iter()
        .flat_map(|s| &s.checks)
        .flat_map(|check| {
            let reads = check.kind.cluster_reads();
            reads
                .namespaces()
                .filter(|n| *n != argocd_namespace)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The Applications a step's checks read, sorted.
pub fn applications(steps: &[&Step]) -> BTreeSet<String> {
    steps
        .iter()
        .flat_map(|s| &s.checks)
        .flat_map(|check| check.kind.cluster_reads().apps)
        .collect()
}

/// Renames a check's names through a learner's templates and remembers each change as
/// (placeholder slot, course name, learner's name).
struct Renaming<'a> {
    learner: &'a str,
    renames: &'a Renames,
    argocd_ns: &'a str,
    changed: Vec<(&'static str, String, String)>,
}

impl Renaming<'_> {
    fn apply(&mut self, slot: &'static str, template: Option<&str>, name: &mut String) {
        let renamed = rename(template, slot, self.learner, name);
        if renamed != *name {
            self.changed.push((slot, name.clone(), renamed.clone()));
            *name = renamed;
        }
    }
}

impl crate::checks::LearnerNames for Renaming<'_> {
    fn namespace(&mut self, namespace: &mut String) {
        // Argo CD's own namespace is shared by the whole class.
        if namespace != self.argocd_ns {
            let template = self.renames.namespace.clone();
            self.apply("{namespace}", template.as_deref(), namespace);
        }
    }

    fn app(&mut self, app: &mut String) {
        let template = self.renames.app.clone();
        self.apply("{app}", template.as_deref(), app);
    }
}

/// Check a `--namespace-template`/`--app-template`: it needs `{learner}`, and without the name
/// placeholder it can only stand for one name.
pub fn check_template(
    flag: &str,
    template: &str,
    slot: &str,
    names: &BTreeSet<String>,
) -> Result<(), Error> {
    if !template.contains("{learner}") {
        return Err(Error::Usage(format!(
            "{flag} `{template}` has no {{learner}}: every learner would get the same names (e.g. '{{learner}}-{}')",
            &slot[1..slot.len() - 1]
        )));
    }
    if !template.contains(slot) && names.len() > 1 {
        return Err(Error::Usage(format!(
            "{flag} `{template}` names one {}, but the step reads {}: write {slot} where the course's name goes, e.g. '{{learner}}-{slot}'",
            &slot[1..slot.len() - 1],
            names.iter().cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// `step` as `learner` sees it: namespaces and Application names through the templates. Without
/// `{namespace}` (`{app}`) a template replaces every name, which [`check_template`] allows only
/// when the step names one.
pub fn for_learner(step: &Step, learner: &str, renames: &Renames, argocd_ns: &str) -> Step {
    let mut renaming = Renaming {
        learner,
        renames,
        argocd_ns,
        changed: Vec::new(),
    };
    let mut step = step.clone();
    for check in &mut step.checks {
        check.kind.rename_for_learner(&mut renaming);
    }
    step
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
    placeholders: Vec<(String, String)>,
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
            placeholders: placeholders(&env, steps, argocd_ns, paths),
            env,
        }
    }

    /// The steps as this learner sees them.
    pub fn steps(&self) -> Vec<&Step> {
        self.steps.iter().collect()
    }

    /// Run this learner through [`run::run_learner`] (connecting to their cluster), or through
    /// [`run::run_learner_on`] on `cluster` when one is kept between runs (the live page).
    pub async fn run(&self, lesson: Lesson<'_>, cluster: Option<Arc<Cluster>>) -> LearnerRun {
        let mine = self.steps();
        let world = run::LearnerWorld {
            course: lesson.course.clone(),
            module: lesson.module,
            track: lesson.track,
            work_dir: work_dir(&self.env),
            cluster: &self.env.cluster,
            argocd_namespace: lesson.argocd_namespace.clone(),
            paths: lesson.paths.clone(),
        };
        let recall = Recall::default();
        let reports = match cluster {
            Some(cluster) => {
                run::run_learner_on(&world, cluster, &recall, &mine, lesson.policy, &|_| {}).await
            }
            None => run::run_learner(world, &recall, &mine, lesson.policy, &|_| {}).await,
        };
        LearnerRun {
            placeholders: self.placeholders.clone(),
            learner: self.env.learner.clone(),
            work_dir: self.env.work_dir.clone(),
            status: Status::fold(reports.iter().map(|r| r.status)),
            steps: reports,
        }
    }
}

/// Run every seat, as many at once as [`gate::Gate`] lets in (every learner of a class of 200 on
/// their own clusters, 64 of a class sharing one); results in input order. Each learner goes
/// through [`run::run_learner`], the runner of a learner's own run, with no progress at all: a
/// class never reads or writes anyone's progress, so hint levels are the first and "the break
/// came first" is read from the learner's own history.
///
/// Each learner is a task of its own, so every worker thread of the runtime runs learners (their
/// checks, the answers they parse), not only the thread waiting for the class.
pub async fn run(lesson: Lesson<'_>, seats: &[Seat]) -> Vec<LearnerRun> {
    let shared = Arc::new((
        lesson.course.clone(),
        lesson.module.clone(),
        lesson.track.to_string(),
        lesson.argocd_namespace.clone(),
        lesson.paths.clone(),
    ));
    let policy = lesson.policy;
    let gate = Arc::new(gate::Gate::new());
    let tasks: Vec<_> = seats
        .iter()
        .map(|seat| {
            let (seat, shared, gate) = (seat.clone(), shared.clone(), gate.clone());
            tokio::spawn(async move {
                let _turn = gate.enter(&seat.env.cluster).await;
                let (course, module, track, argocd_namespace, paths) = &*shared;
                let lesson = Lesson {
                    course,
                    module,
                    track,
                    argocd_namespace,
                    policy,
                    paths,
                };
                seat.run(lesson, None).await
            })
        })
        .collect();
    let mut runs = Vec::with_capacity(tasks.len());
    for task in tasks {
        match task.await {
            Ok(run) => runs.push(run),
            // A learner's run that panicked is a bug: let it surface as it would have unspawned.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => panic!("a learner's run was cancelled: {e}"),
        }
    }
    runs
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

/// What in `env`'s reports is theirs alone, with the placeholder a class view shows instead:
/// their work dir as `<work-dir>` (as written and as `~/…`), their namespaces and Applications
/// as the template with `<learner>`. Longest first, so a longer name is replaced whole.
fn placeholders(
    env: &Environment,
    course_steps: &[&Step],
    argocd_ns: &str,
    paths: &PathShower,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(dir) = &env.work_dir {
        let shown = dir.display().to_string();
        if !shown.is_empty() {
            out.push((shown, "<work-dir>".to_string()));
        }
        let home = paths.show(dir);
        if home.starts_with('~') && home != "~/" {
            out.push((home, "<work-dir>".to_string()));
        }
    }
    let shown_as = |template: Option<&str>, slot: &str, name: &str| {
        template.map(|t| t.replace("{learner}", "<learner>").replace(slot, name))
    };
    for course in course_steps {
        for check in &course.checks {
            let pairs = renamed(&check.kind, env, argocd_ns);
            for (slot, original, renamed) in pairs {
                let template = match slot {
                    "{namespace}" => env.names.namespace.as_deref(),
                    _ => env.names.app.as_deref(),
                };
                if original != renamed
                    && let Some(shown) = shown_as(template, slot, &original)
                {
                    out.push((renamed, shown));
                }
            }
        }
    }
    out.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    out.dedup();
    out
}

/// The names [`for_learner`] changes in `course` for `env`.
fn renamed(
    course: &CheckKind,
    env: &Environment,
    argocd_ns: &str,
) -> Vec<(&'static str, String, String)> {
    let mut renaming = Renaming {
        learner: &env.learner,
        renames: &env.names,
        argocd_ns,
        changed: Vec::new(),
    };
    course.clone().rename_for_learner(&mut renaming);
    renaming.changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step_4_for(template: &str, app: Option<&str>) -> Step {
        let course = Course::embedded().expect("the built-in course loads");
        let module = course.module("module-10").expect("module 10");
        let step = module.step("step-4").expect("step 4");
        let renames = Renames {
            namespace: Some(template.to_string()),
            app: app.map(str::to_string),
        };
        for_learner(step, "alice", &renames, "argocd")
    }

    /// What the step's checks read of the cluster, by name: `ns` of an object, `Job ns/name`,
    /// `app NAME` of an Application (through each kind's own declaration).
    fn names(step: &Step) -> std::collections::BTreeSet<String> {
        let mut names = std::collections::BTreeSet::new();
        for check in &step.checks {
            let reads = check.kind.cluster_reads();
            names.extend(reads.objects.iter().filter_map(|o| o.namespace.clone()));
            names.extend(
                reads
                    .jobs
                    .iter()
                    .map(|(ns, name)| format!("Job {ns}/{name}")),
            );
            names.extend(reads.apps.iter().map(|app| format!("app {app}")));
        }
        names
    }

    #[test]
    fn a_learner_reads_their_own_namespace_and_the_shared_application_by_default() {
        let step = step_4_for("{learner}-checkout-dev", None);
        assert_eq!(
            names(&step),
            [
                "Job alice-checkout-dev/checkout-migrate",
                "Job alice-checkout-dev/checkout-sync-failed",
                "alice-checkout-dev",
                "app checkout-dev",
            ]
            .map(String::from)
            .into()
        );
    }

    #[test]
    fn templates_with_the_course_name_rename_namespaces_and_applications() {
        let step = step_4_for("{learner}-{namespace}", Some("{learner}-{app}"));
        assert_eq!(
            names(&step),
            [
                "Job alice-checkout-dev/checkout-migrate",
                "Job alice-checkout-dev/checkout-sync-failed",
                "alice-checkout-dev",
                "app alice-checkout-dev",
            ]
            .map(String::from)
            .into()
        );
    }
}
