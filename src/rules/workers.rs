//! Rule `workers-with-web`: queue workers and schedulers rolled out no later than the web
//! Deployment.

use std::sync::LazyLock;

use regex::Regex;

use crate::plan::{Object, Phase, Plan};
use crate::rules::{Finding, Rule, Severity};

/// The rule.
pub const RULE: Rule = Rule {
    id: "workers-with-web",
    severity: Severity::Note,
    about: "a worker, Horizon or scheduler Deployment not in a later wave than the web Deployment",
};

static WORKER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)worker|horizon|scheduler|queue").ok());

fn is_worker(o: &Object) -> bool {
    WORKER.as_ref().is_some_and(|r| r.is_match(&o.name))
}

/// Note each worker whose wave is not after every web Deployment's.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    let deployments: Vec<(&Object, i64)> = plan
        .steps
        .iter()
        .filter(|s| s.phase == Phase::Sync)
        .flat_map(|s| s.tasks.iter().map(move |t| (t, s.wave)))
        .filter(|(t, _)| !t.prune && !t.hook)
        .map(|(t, wave)| (plan.object(t), wave))
        .filter(|(o, _)| o.group() == "apps" && o.kind == "Deployment")
        .collect();
    let web: Vec<&(&Object, i64)> = deployments.iter().filter(|(o, _)| !is_worker(o)).collect();
    for (worker, wave) in deployments.iter().filter(|(o, _)| is_worker(o)) {
        let Some((first_web, web_wave)) = web.iter().find(|(_, w)| w >= wave).map(|x| **x) else {
            continue;
        };
        findings.push(RULE.found(
            worker,
            format!(
                "{} is in wave {wave} and {} in wave {web_wave}: the workers start on the new code without waiting for the new web pods to be healthy, so a web rollout that fails its readiness probe does not stop them",
                worker.reference(),
                first_web.reference()
            ),
            format!(
                "put the workers one wave after web: `argocd.argoproj.io/sync-wave: \"{}\"` on {}",
                web_wave + 1,
                worker.reference()
            ),
        ));
    }
}
