//! The fleet: one step run for every learner of a class, concurrently (bounded), each against their
//! own cluster (a context, a kubeconfig file) or their own namespaces on a shared cluster, and
//! their own work repos. Results are data; `report::matrix` prints them.
//!
//! Namespaces on a shared cluster: rather than teach every cluster check kind about renaming, each
//! learner gets a copy of the step whose checks name that learner's namespaces and Applications.
//! Summaries then show the learner's real names; `hint:` texts of check files stay as written.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use futures::stream::{self, StreamExt};
use serde::Serialize;

use crate::checks::CheckKind;
use crate::course::{Course, Module, Step};
use crate::error::Error;
use crate::outcome::{Outcome, Status};
use crate::probe::cluster::{Cluster, ClusterOptions};
use crate::run::{self, CheckReport, Context, StepReport, WaitPolicy};

/// How many learners are checked at once. The reads wait on the network, not the CPU, so a whole
/// class goes in one wave; 64 learners × about 5 reads a step stays under kube-apiserver's default
/// of 400 read requests in flight, so even one shared cluster is not pushed into throttling.
pub const CONCURRENCY: usize = 64;

/// One learner's environment.
#[derive(Debug, Clone)]
pub struct Environment {
    pub learner: String,
    pub cluster: ClusterOptions,
    /// Their work repos; `None` leaves the checks of work repos unchecked (skipped).
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
    pub status: Status,
    pub steps: Vec<StepReport>,
}

/// The namespaces a step's cluster checks name (Argo CD's excluded), sorted.
pub fn namespaces(steps: &[&Step], argocd_namespace: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for check in steps.iter().flat_map(|s| &s.checks) {
        let ns = match &check.kind {
            CheckKind::Object(o) => o.namespace.clone(),
            CheckKind::Job(j) => Some(j.namespace.clone()),
            CheckKind::Logs(l) => Some(l.namespace.clone()),
            _ => None,
        };
        out.extend(ns.filter(|n| n != argocd_namespace));
    }
    out
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
    let ns = |name: &str| {
        if name == argocd_ns {
            name.to_string()
        } else {
            rename(renames.namespace.as_deref(), "{namespace}", learner, name)
        }
    };
    let app = |name: &str| rename(renames.app.as_deref(), "{app}", learner, name);
    let mut step = step.clone();
    for check in &mut step.checks {
        match &mut check.kind {
            CheckKind::Object(o) => o.namespace = o.namespace.as_deref().map(ns),
            CheckKind::Job(j) => {
                j.namespace = ns(&j.namespace);
                j.app = j.app.as_deref().map(app);
            }
            CheckKind::Logs(l) => {
                l.namespace = ns(&l.namespace);
                l.app = l.app.as_deref().map(app);
            }
            CheckKind::ArgocdApp(a) => a.name = app(&a.name),
            _ => {}
        }
    }
    step
}

/// Run `steps` for every environment, at most [`CONCURRENCY`] at once; results in input order.
pub async fn run(
    course: Arc<Course>,
    module: &Module,
    steps: &[&Step],
    track: &str,
    argocd_namespace: Option<String>,
    environments: Vec<Environment>,
) -> Vec<LearnerRun> {
    let argocd_ns = argocd_namespace
        .clone()
        .unwrap_or_else(|| module.manifest.argocd.namespace.clone());
    stream::iter(environments)
        .map(|env| {
            let course = course.clone();
            let argocd_namespace = argocd_namespace.clone();
            let argocd_ns = argocd_ns.clone();
            async move {
                let cluster = Arc::new(Cluster::connect(&env.cluster).await);
                // No work dir: a folder that cannot exist, and the repo checks are skipped below.
                let work_dir = env.work_dir.clone().unwrap_or_default();
                let ctx = Context::new(course, module, track, work_dir, cluster, argocd_namespace);
                let mut reports = Vec::new();
                for step in steps {
                    let mut mine = for_learner(step, &env.learner, &env.names, &argocd_ns);
                    if env.work_dir.is_none() {
                        mine.checks.retain(|c| c.kind.reads_cluster());
                    }
                    let report = run::run_step(&ctx, &mine, WaitPolicy::Never, &|_| {}).await;
                    reports.push(with_unchecked_repos(step, report, env.work_dir.is_none()));
                }
                LearnerRun {
                    learner: env.learner,
                    status: Status::fold(reports.iter().map(|r| r.status)),
                    steps: reports,
                }
            }
        })
        .buffered(CONCURRENCY)
        .collect()
        .await
}

/// Put the checks left out for want of work repos back, as skipped, in the file's order.
fn with_unchecked_repos(step: &Step, mut report: StepReport, left_out: bool) -> StepReport {
    if !left_out {
        return report;
    }
    let mut ran = std::mem::take(&mut report.checks).into_iter();
    report.checks = step
        .checks
        .iter()
        .filter_map(|spec| {
            if spec.kind.reads_cluster() {
                ran.next()
            } else {
                Some(CheckReport {
                    id: spec.id.clone(),
                    kind: spec.kind.name(),
                    title: spec.title.clone(),
                    outcome: Outcome::skip(
                        "work repos not checked: give each learner's with --work-dirs 'DIR/{learner}'",
                    ),
                })
            }
        })
        .collect();
    report
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

    fn names(step: &Step) -> Vec<String> {
        step.checks
            .iter()
            .filter_map(|c| match &c.kind {
                CheckKind::Job(j) => Some(format!("{}/{:?}", j.namespace, j.app)),
                CheckKind::Object(o) => o.namespace.clone(),
                CheckKind::ArgocdApp(a) => Some(a.name.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_learner_reads_their_own_namespace_and_the_shared_application_by_default() {
        let step = step_4_for("{learner}-checkout-dev", None);
        assert_eq!(
            names(&step),
            [
                "checkout-dev",
                "checkout-dev",
                "alice-checkout-dev",
                "alice-checkout-dev/Some(\"checkout-dev\")",
                "alice-checkout-dev/Some(\"checkout-dev\")",
            ]
        );
    }

    #[test]
    fn templates_with_the_course_name_rename_namespaces_and_applications() {
        let step = step_4_for("{learner}-{namespace}", Some("{learner}-{app}"));
        assert_eq!(
            names(&step),
            [
                "alice-checkout-dev",
                "alice-checkout-dev",
                "alice-checkout-dev",
                "alice-checkout-dev/Some(\"alice-checkout-dev\")",
                "alice-checkout-dev/Some(\"alice-checkout-dev\")",
            ]
        );
    }
}
