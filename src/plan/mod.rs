//! `labcheck plan`: the order Argo CD will apply a set of manifests in, as gitops-engine computes
//! it, with the steps it waits between and what it waits for. Pure: objects in, a plan out.
//!
//! Sources: gitops-engine `pkg/sync/sync_tasks.go` (order), `sync_task.go`, `sync_phase.go`,
//! `sync_context.go` (tasks, prune waves), `hook/` (hook types, Helm translation, delete
//! policies), `syncwaves/` (waves), `health/` (what it waits for).

pub mod load;
pub mod object;
pub mod order;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use load::{LoadError, parse_manifests};
pub use object::{DeletePolicy, DeletionHook, Object, Phase, Source};
pub use order::{Moved, Task};

/// How to plan.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// The Application's destination namespace: Argo CD puts objects that name none there (and
    /// so a Namespace of that name moves in front of them).
    pub namespace: Option<String>,
}

/// What Argo CD waits for before it goes on from a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "until", rename_all = "snake_case")]
pub enum Wait {
    /// A hook that must finish (Job complete, Pod succeeded).
    Completes { object: String },
    /// A resource with a health check that must become Healthy.
    Healthy { object: String, means: &'static str },
    /// A custom resource: Argo CD waits only if it has a health check for the kind (many are
    /// built in as Lua scripts); labcheck cannot tell.
    MaybeHealthy { object: String },
}

/// One (phase, wave) step: Argo CD applies all its tasks, then waits before the next step.
#[derive(Debug, Clone)]
pub struct Step {
    pub phase: Phase,
    pub wave: i64,
    pub tasks: Vec<Task>,
    pub waits: Vec<Wait>,
    /// The last step of the sync.
    pub last: bool,
}

/// An object the sync will not apply, and why.
#[derive(Debug, Clone)]
pub struct NotApplied {
    pub object: usize,
    pub why: String,
}

/// The whole plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub objects: Vec<Object>,
    /// Live objects that are no longer in git (`--pruned`), referred to by prune tasks.
    pub pruned: Vec<Object>,
    /// PreSync, Sync and PostSync steps in order.
    pub steps: Vec<Step>,
    /// SyncFail hooks: run only after the sync has failed, in this order.
    pub on_failure: Vec<Task>,
    /// PreDelete/PostDelete hooks: run only when the Application is deleted.
    pub on_deletion: Vec<(usize, DeletionHook)>,
    pub not_applied: Vec<NotApplied>,
}

/// Seconds Argo CD pauses between steps by default (`ARGOCD_SYNC_WAVE_DELAY`).
pub const WAVE_DELAY_SECONDS: u64 = 2;

impl Plan {
    /// Plan the sync of `objects` (what git holds), pruning `pruned` (live, no longer in git).
    pub fn new(mut objects: Vec<Object>, pruned: Vec<Object>, options: &PlanOptions) -> Plan {
        if let Some(ns) = &options.namespace {
            for object in objects.iter_mut().filter(|o| o.namespace.is_empty()) {
                // gitops-engine sets it even on cluster-scoped objects before sorting.
                object.namespace = ns.clone();
            }
        }
        let mut tasks = Vec::new();
        let mut on_deletion = Vec::new();
        let mut not_applied = Vec::new();
        for (index, object) in objects.iter().enumerate() {
            let phases = object.sync_phases();
            for phase in &phases {
                tasks.push(Task {
                    object: index,
                    phase: *phase,
                    wave: object.wave(),
                    hook: object.is_hook(),
                    prune: false,
                    moved: None,
                });
            }
            let deletion = object.deletion_hooks();
            for hook in &deletion {
                on_deletion.push((index, *hook));
            }
            if phases.is_empty() && deletion.is_empty() {
                let why = if object.skipped() {
                    "`argocd.argoproj.io/hook: Skip`: Argo CD never applies it and leaves it out of sync and health".to_string()
                } else {
                    let words = object.unknown_hook_words();
                    format!(
                        "a hook without a phase Argo CD knows ({}): it is never applied",
                        if words.is_empty() {
                            "no hook type".to_string()
                        } else {
                            words.join(", ")
                        }
                    )
                };
                not_applied.push(NotApplied { object: index, why });
            }
        }
        for (index, object) in pruned.iter().enumerate() {
            // A live hook is not pruned by the sync; Skip'd objects are not managed.
            if object.is_hook() || object.skipped() {
                continue;
            }
            tasks.push(Task {
                object: index,
                phase: Phase::Sync,
                wave: object.wave(),
                hook: false,
                prune: true,
                moved: None,
            });
        }
        let lookup = |t: &Task| pick(&objects, &pruned, t);
        order::mirror_prune_waves(&mut tasks[..], &|t| {
            t.prune && lookup(t).has_sync_option("PruneLast=true")
        });
        order::sort(&mut tasks, &lookup);

        let (on_failure, main): (Vec<Task>, Vec<Task>) =
            tasks.into_iter().partition(|t| t.phase == Phase::SyncFail);
        let mut steps: Vec<Step> = Vec::new();
        for task in main {
            match steps.last_mut() {
                Some(step) if step.phase == task.phase && step.wave == task.wave => {
                    step.tasks.push(task)
                }
                _ => steps.push(Step {
                    phase: task.phase,
                    wave: task.wave,
                    tasks: vec![task],
                    waits: Vec::new(),
                    last: false,
                }),
            }
        }
        let count = steps.len();
        for (i, step) in steps.iter_mut().enumerate() {
            step.last = i + 1 == count;
            step.waits = waits(step, &lookup);
        }
        Plan {
            objects,
            pruned,
            steps,
            on_failure,
            on_deletion,
            not_applied,
        }
    }

    /// The object a task applies or prunes.
    pub fn object(&self, task: &Task) -> &Object {
        pick(&self.objects, &self.pruned, task)
    }

    /// The step (index) in which the object `Kind/name` is first applied in the sync.
    pub fn step_of(&self, reference: &str) -> Option<usize> {
        self.steps.iter().position(|s| {
            s.tasks
                .iter()
                .any(|t| !t.prune && self.object(t).reference() == reference)
        })
    }
}

fn pick<'o>(objects: &'o [Object], pruned: &'o [Object], task: &Task) -> &'o Object {
    if task.prune {
        &pruned[task.object]
    } else {
        &objects[task.object]
    }
}

/// What Argo CD waits for after `step`. The last step of plain resources only ends the sync right
/// after applying; otherwise every hook must finish and every resource with a health check must
/// be Healthy.
fn waits<'o>(step: &Step, object: &dyn Fn(&Task) -> &'o Object) -> Vec<Wait> {
    let only_plain = step.tasks.iter().all(|t| !t.hook);
    if step.last && only_plain {
        return Vec::new();
    }
    let mut waits = Vec::new();
    for task in step.tasks.iter().filter(|t| !t.prune) {
        let o = object(task);
        let reference = o.reference();
        match health_check(o) {
            Health::None => {}
            Health::Some(_) if task.hook => waits.push(Wait::Completes { object: reference }),
            Health::Some(means) => waits.push(Wait::Healthy {
                object: reference,
                means,
            }),
            Health::Unknown => waits.push(Wait::MaybeHealthy { object: reference }),
        }
    }
    waits
}

enum Health {
    None,
    Some(&'static str),
    Unknown,
}

/// gitops-engine's built-in health checks (`pkg/health/health.go`), in the words a learner needs.
fn health_check(o: &Object) -> Health {
    let service_type = o
        .get(&["spec", "type"])
        .and_then(|v| v.as_str())
        .unwrap_or("ClusterIP");
    match (o.group(), o.kind.as_str()) {
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet") => {
            Health::Some("its rollout has finished (new pods ready)")
        }
        ("batch", "Job") => Health::Some("it has completed"),
        ("", "Pod") => Health::Some("it is running and ready (a hook pod: it has succeeded)"),
        ("", "PersistentVolumeClaim") => Health::Some("it is Bound"),
        ("", "Service") if service_type == "LoadBalancer" => {
            Health::Some("it has a load-balancer address")
        }
        ("networking.k8s.io" | "extensions", "Ingress") => {
            Health::Some("it has a load-balancer address")
        }
        ("autoscaling", "HorizontalPodAutoscaler") => Health::Some("it is healthy"),
        ("apiregistration.k8s.io", "APIService") => Health::Some("it is Available"),
        ("argoproj.io", "Workflow") => Health::Some("it has finished"),
        // No built-in check since Argo CD 1.8: an app of apps does not wait for its children
        // unless argocd-cm adds one.
        ("argoproj.io", "Application") => Health::None,
        _ if order::kind_rank(&o.kind) == 0 => Health::Unknown,
        _ => Health::None,
    }
}
