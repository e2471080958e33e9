//! Rule `migration-outside-presync`: a migration that does not run before the new code. The
//! article's rule: a PreSync hook (Argo CD stops the sync when it fails, the old release keeps
//! running), or its option 2 — a plain Job in the Sync phase, after its config and before the
//! Deployments, with a unique versioned name or `Replace=true` (a Job cannot be changed).

use crate::plan::{Object, Phase, Plan};
use crate::rules::config_phase::{config_refs, provides};
use crate::rules::{Finding, Rule, Severity, is_migration};

/// The rule.
pub const RULE: Rule = Rule {
    id: "migration-outside-presync",
    severity: Severity::Warning,
    about: "a migration in a PostSync hook, or a Sync-phase migration Job without the article's option-2 shape",
};

fn is_workload(o: &Object) -> bool {
    o.group() == "apps" && matches!(o.kind.as_str(), "Deployment" | "StatefulSet" | "DaemonSet")
}

/// The step index each of the object's tasks in `phase` runs in.
fn step_of(plan: &Plan, object: &Object, phase: Phase) -> Option<usize> {
    plan.steps.iter().position(|s| {
        s.phase == phase
            && s.tasks
                .iter()
                .any(|t| !t.prune && std::ptr::eq(plan.object(t), object))
    })
}

/// Why a Sync-phase migration Job does not have option 2's shape (empty: it has it).
fn option_two_gaps(plan: &Plan, job: &Object) -> Vec<String> {
    let mut gaps = Vec::new();
    let Some(job_step) = step_of(plan, job, Phase::Sync) else {
        return gaps;
    };
    let wave = plan.steps[job_step].wave;
    for wanted in config_refs(job) {
        let provider = plan
            .applied_objects()
            .find(|o| provides(o, &wanted))
            .and_then(|o| {
                let step = plan.steps.iter().position(|s| {
                    s.tasks
                        .iter()
                        .any(|t| !t.prune && std::ptr::eq(plan.object(t), o))
                })?;
                Some((o, step))
            });
        if let Some((o, step)) = provider
            && step >= job_step
        {
            gaps.push(format!(
                "{} is applied in {} wave {}, not before the Job (wave {wave})",
                o.reference(),
                plan.steps[step].phase,
                plan.steps[step].wave
            ));
        }
    }
    for workload in plan.applied_objects().filter(|o| is_workload(o)) {
        if let Some(step) = step_of(plan, workload, Phase::Sync)
            && step <= job_step
        {
            gaps.push(format!(
                "{} rolls out in wave {}, not after the Job (wave {wave}): the new code can start before the schema is migrated",
                workload.reference(),
                plan.steps[step].wave
            ));
        }
    }
    let versioned = job.name.chars().any(|c| c.is_ascii_digit());
    // A Sync hook is deleted and created anew each sync (BeforeHookCreation): no name problem.
    // `Replace=true` counts from the Application as from the annotation: the plan shows both.
    if !versioned && !job.is_hook() && plan.in_force(job).replace.is_none() {
        gaps.push(format!(
            "its name `{}` is the same every release and it has no `Replace=true`: a Job's pod template cannot be changed, so the next release's apply fails (or, unchanged, the finished Job is not run again)",
            job.name
        ));
    }
    gaps
}

/// Warn on migrations that run after the new code, or in a Sync-phase Job of the wrong shape.
pub fn check(plan: &Plan, findings: &mut Vec<Finding>) {
    for job in plan.applied_objects().filter(|o| is_migration(o)) {
        let phases = job.sync_phases();
        if phases.contains(&Phase::PreSync) || phases.is_empty() {
            continue;
        }
        if phases.contains(&Phase::PostSync) {
            findings.push(RULE.found(
                job,
                format!(
                    "{} migrates the database in a PostSync hook: it runs only after every Deployment of the Sync phase has rolled out and is Healthy, so the new code serves requests against the old schema, and a failed migration no longer stops the release",
                    job.reference()
                ),
                "make it `argocd.argoproj.io/hook: PreSync` (with its ConfigMap/Secret as PreSync hooks in a lower wave), or a plain Sync-phase Job after the config and before the Deployments with a per-release name or `Replace=true`".to_string(),
            ));
            continue;
        }
        if !phases.contains(&Phase::Sync) {
            continue;
        }
        let gaps = option_two_gaps(plan, job);
        if !gaps.is_empty() {
            findings.push(RULE.found(
                job,
                format!(
                    "{} migrates in the Sync phase, which is safe only in the article's option 2 (config in an earlier wave, the Job, then the Deployments in a later wave, a per-release name or `Replace=true`); here {}",
                    job.reference(),
                    gaps.join("; ")
                ),
                "give the config `argocd.argoproj.io/sync-wave: \"-1\"`, the Job wave 0, the Deployments wave 1, and the Job a name with the release in it (`shop-migrate-1-42-0`) or `argocd.argoproj.io/sync-options: Replace=true`; or make it a PreSync hook".to_string(),
            ));
        }
    }
}
