//! What Argo CD waits for after each step of a sync, and what it would wait for but cannot.

use super::health;
use super::{Object, Plan, Step, Task, Wait, is_application};

/// What Argo CD waits for after `step` (`GE: sync_context.go` `Sync()`):
/// * the last step ends the sync right after applying when it has no hooks (`remainingTasks`
///   is empty: "successfully synced (all tasks run)");
/// * otherwise it waits for running hooks, and — only in a multi-step sync — for every applied
///   resource with a health check to be Healthy (`(multiStep || isHook) && running`);
/// * then for pruned objects to be gone (`prunedTasksPendingDelete`).
///
/// Also the custom resources it would wait for but has no health check for, and why.
pub(super) fn waits<'o>(
    step: &Step,
    multi_step: bool,
    configured: &[(String, String)],
    object: &dyn Fn(&Task) -> &'o Object,
) -> (Vec<Wait>, Vec<(String, String)>) {
    let has_hooks = step.tasks.iter().any(|t| t.hook);
    if step.last && !has_hooks {
        return (Vec::new(), Vec::new());
    }
    let mut waits = Vec::new();
    let mut not_awaited = Vec::new();
    for task in step.tasks.iter().filter(|t| !t.prune) {
        let o = object(task);
        if !task.hook && !multi_step {
            continue;
        }
        let reference = o.reference();
        match health::check(o, configured) {
            Some(_) if task.hook => waits.push(Wait::Completes { object: reference }),
            // A hook without a health check is done once it is created.
            None if task.hook => {}
            Some(health::Check::Go(means)) => waits.push(Wait::Healthy {
                object: reference,
                means,
            }),
            Some(check) => waits.push(Wait::HealthyCustom {
                object: reference,
                means: check.means(),
            }),
            // An Application's missing check is explained once for the plan (`app_health`).
            None if is_custom(o) && !is_application(o) => {
                not_awaited.push((reference, health::unchecked_why(o)))
            }
            None => {}
        }
    }
    for task in step.tasks.iter().filter(|t| t.prune) {
        waits.push(Wait::Deleted {
            object: object(task).reference(),
        });
    }
    (waits, not_awaited)
}

/// A kind outside Kubernetes' own (its group has a dot and is not `*.k8s.io`).
fn is_custom(o: &Object) -> bool {
    let group = o.group();
    group.contains('.') && !group.ends_with(".k8s.io")
}

/// Whether plain resources with a health check are left unawaited in a one-step sync: the step's
/// objects whose health Argo CD would wait for in a multi-step sync.
pub fn unawaited_in_one_step(plan: &Plan) -> Vec<String> {
    if plan.multi_step {
        return Vec::new();
    }
    let configured = health::configured(
        &plan
            .objects
            .iter()
            .chain(plan.context.iter().map(|(o, _)| o))
            .cloned()
            .collect::<Vec<_>>(),
    );
    plan.steps
        .iter()
        .flat_map(|s| s.tasks.iter())
        .filter(|t| !t.hook && !t.prune)
        .map(|t| plan.object(t))
        .filter(|o| health::check(o, &configured).is_some())
        .map(Object::reference)
        .collect()
}
