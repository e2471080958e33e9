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
    /// A pruned object that must be gone before the next step starts.
    Deleted { object: String },
}

/// One (phase, wave) step: Argo CD applies all its tasks, then waits before the next step.
#[derive(Debug, Clone)]
pub struct Step {
    pub phase: Phase,
    pub wave: i64,
    /// In the order Argo CD runs them (`runTasks`): prunes first, then the applies in sort order.
    pub tasks: Vec<Task>,
    pub waits: Vec<Wait>,
    /// The last step of the sync.
    pub last: bool,
}

impl Step {
    /// Hooks Argo CD deletes before it creates them again (delete policy `BeforeHookCreation`,
    /// when a copy from an earlier sync still exists). They go after the prunes and before any
    /// apply of the step; the step's applies wait until they are gone.
    pub fn deleted_before_creation<'p>(&'p self, plan: &'p Plan) -> Vec<&'p Task> {
        self.tasks
            .iter()
            .filter(|t| {
                t.hook
                    && !t.prune
                    && plan
                        .object(t)
                        .delete_policies()
                        .contains(&DeletePolicy::BeforeHookCreation)
            })
            .collect()
    }

    /// The applies, grouped by consecutive kind: each group is applied at once, and the next kind
    /// starts only when the whole group is applied.
    pub fn apply_groups<'p>(&'p self, plan: &'p Plan) -> Vec<Vec<&'p Task>> {
        let mut groups: Vec<Vec<&Task>> = Vec::new();
        for task in self.tasks.iter().filter(|t| !t.prune) {
            let kind = &plan.object(task).kind;
            match groups.last_mut() {
                Some(group) if group.first().is_some_and(|t| &plan.object(t).kind == kind) => {
                    group.push(task)
                }
                _ => groups.push(vec![task]),
            }
        }
        groups
    }
}

/// An object the sync will not apply, and why.
#[derive(Debug, Clone)]
pub struct NotApplied {
    pub object: usize,
    pub why: String,
}

/// The same group/kind/namespace/name more than once in the manifests: Argo CD keeps the last
/// and sets a `RepeatedResourceWarning` condition (`AC: controller/state.go`,
/// `NormalizeTargetObjects`, formerly `DeduplicateTargetObjects`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// `group/kind/namespace/name`, as Argo CD prints it.
    pub key: String,
    /// Where each copy was written, in input order; the last one is planned.
    pub sources: Vec<Source>,
}

impl Duplicate {
    /// Argo CD's condition message, byte for byte.
    pub fn message(&self) -> String {
        format!(
            "Resource {} appeared {} times among application resources.",
            self.key,
            self.sources.len()
        )
    }
}

/// Whether Argo CD waits for child Applications' health, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppHealth {
    /// An `argocd-cm` in the input adds a health check for `argoproj.io/Application`.
    Checked { source: Source, key: &'static str },
    /// No such `argocd-cm` in the input: Applications have no health check (Argo CD 1.8+).
    NotChecked,
}

/// The `argocd-cm` key that gives Applications a health check (Argo CD's health docs).
pub const APP_HEALTH_KEY: &str = "resource.customizations.health.argoproj.io_Application";

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
    /// gitops-engine's `multiStep`: the first and the last task (SyncFail hooks and prunes
    /// included) differ in phase or wave. Only then does it wait for plain resources' health.
    pub multi_step: bool,
    /// Objects written more than once; only the last copy is in `objects`' tasks.
    pub duplicates: Vec<Duplicate>,
    /// Set when the manifests hold an `Application`: whether a wave of them waits for health.
    pub app_health: Option<AppHealth>,
}

/// Seconds Argo CD pauses between steps by default (`ARGOCD_SYNC_WAVE_DELAY`).
pub const WAVE_DELAY_SECONDS: u64 = 2;

/// Built-in kinds that are cluster-scoped: Argo CD drops their namespace before it compares keys.
/// Any other kind (custom resources too) counts as namespaced, as `IsNamespacedOrUnknown` does.
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("networking.k8s.io", "IngressClass"),
    ("apiregistration.k8s.io", "APIService"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("node.k8s.io", "RuntimeClass"),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    ("policy", "PodSecurityPolicy"),
];

fn cluster_scoped(o: &Object) -> bool {
    CLUSTER_SCOPED
        .iter()
        .any(|(g, k)| *g == o.group() && *k == o.kind)
}

/// Argo CD's de-duplication: key group/kind/namespace/name after the namespace is normalised; the
/// last copy of a key wins; an object named only by `generateName` never collides. Returns the
/// indexes of the copies that lose, and the duplicates found.
fn duplicates(objects: &[Object], destination: &str) -> (Vec<usize>, Vec<Duplicate>) {
    let mut by_key: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        if o.generate_name {
            continue;
        }
        let namespace = if cluster_scoped(o) {
            ""
        } else if o.namespace.is_empty() {
            destination
        } else {
            o.namespace.as_str()
        };
        let key = format!("{}/{}/{namespace}/{}", o.group(), o.kind, o.name);
        match by_key.iter_mut().find(|(k, _)| *k == key) {
            Some((_, copies)) => copies.push(i),
            None => by_key.push((key, vec![i])),
        }
    }
    let mut losers = Vec::new();
    let mut found = Vec::new();
    for (key, copies) in by_key.into_iter().filter(|(_, c)| c.len() > 1) {
        losers.extend(copies[..copies.len() - 1].iter().copied());
        found.push(Duplicate {
            key,
            sources: copies.iter().map(|i| objects[*i].source.clone()).collect(),
        });
    }
    (losers, found)
}

/// An `argocd-cm` in the input that gives `argoproj.io/Application` a health check: the key
/// `resource.customizations.health.argoproj.io_Application`, or the older single
/// `resource.customizations` key with an `argoproj.io/Application` entry holding `health.lua`.
fn app_health(objects: &[Object]) -> AppHealth {
    for o in objects {
        if !(o.kind == "ConfigMap" && o.group().is_empty() && o.name == "argocd-cm") {
            continue;
        }
        if o.get(&["data", APP_HEALTH_KEY])
            .and_then(|v| v.as_str())
            .is_some_and(|lua| !lua.trim().is_empty())
        {
            return AppHealth::Checked {
                source: o.source.clone(),
                key: APP_HEALTH_KEY,
            };
        }
        if let Some(old) = o
            .get(&["data", "resource.customizations"])
            .and_then(|v| v.as_str())
            && let Ok(parsed) = serde_yaml::from_str::<serde_yaml::Value>(old)
            && parsed
                .get("argoproj.io/Application")
                .and_then(|a| a.get("health.lua"))
                .and_then(|v| v.as_str())
                .is_some_and(|lua| !lua.trim().is_empty())
        {
            return AppHealth::Checked {
                source: o.source.clone(),
                key: "resource.customizations",
            };
        }
    }
    AppHealth::NotChecked
}

impl Plan {
    /// Plan the sync of `objects` (what git holds), pruning `pruned` (live, no longer in git).
    pub fn new(mut objects: Vec<Object>, pruned: Vec<Object>, options: &PlanOptions) -> Plan {
        let destination = options.namespace.clone().unwrap_or_default();
        let (losers, duplicates) = duplicates(&objects, &destination);
        for object in objects.iter_mut() {
            if cluster_scoped(object) {
                // Argo CD drops it; gitops-engine then sets the destination on every object
                // without one, cluster-scoped or not, before it sorts.
                object.namespace = destination.clone();
            } else if object.namespace.is_empty() {
                object.namespace = destination.clone();
            }
        }
        let app_health = objects
            .iter()
            .any(is_application)
            .then(|| app_health(&objects));
        let apps_checked = matches!(app_health, Some(AppHealth::Checked { .. }));
        let mut tasks = Vec::new();
        let mut on_deletion = Vec::new();
        let mut not_applied = Vec::new();
        for (index, object) in objects.iter().enumerate() {
            if losers.contains(&index) {
                not_applied.push(NotApplied {
                    object: index,
                    why: "written again later in the input: Argo CD keeps only the last copy"
                        .to_string(),
                });
                continue;
            }
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
        // `syncTasks.multiStep()` looks at the whole sorted list, SyncFail hooks included.
        let multi_step = match (tasks.first(), tasks.last()) {
            (Some(first), Some(last)) => first.phase != last.phase || first.wave != last.wave,
            _ => false,
        };

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
            // runTasks prunes first, then creates; each part keeps the sorted order.
            let (prunes, applies): (Vec<Task>, Vec<Task>) = std::mem::take(&mut step.tasks)
                .into_iter()
                .partition(|t| t.prune);
            step.tasks = prunes.into_iter().chain(applies).collect();
            step.last = i + 1 == count;
            step.waits = waits(step, multi_step, apps_checked, &lookup);
        }
        Plan {
            objects,
            pruned,
            steps,
            on_failure,
            on_deletion,
            not_applied,
            multi_step,
            duplicates,
            app_health,
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

    /// Whether the object at `index` is applied (not a losing duplicate, not skipped).
    pub fn applies(&self, index: usize) -> bool {
        self.steps
            .iter()
            .flat_map(|s| s.tasks.iter())
            .chain(self.on_failure.iter())
            .any(|t| !t.prune && t.object == index)
    }

    /// Objects the sync applies (each once, the last copy of a duplicate), in input order.
    pub fn applied_objects(&self) -> impl Iterator<Item = &Object> {
        self.objects
            .iter()
            .enumerate()
            .filter(|(i, _)| self.applies(*i))
            .map(|(_, o)| o)
    }
}

fn is_application(o: &Object) -> bool {
    o.group() == "argoproj.io" && o.kind == "Application"
}

fn pick<'o>(objects: &'o [Object], pruned: &'o [Object], task: &Task) -> &'o Object {
    if task.prune {
        &pruned[task.object]
    } else {
        &objects[task.object]
    }
}

/// What Argo CD waits for after `step` (`GE: sync_context.go` `Sync()`):
/// * the last step ends the sync right after applying when it has no hooks (`remainingTasks`
///   is empty: "successfully synced (all tasks run)");
/// * otherwise it waits for running hooks, and — only in a multi-step sync — for every applied
///   resource with a health check to be Healthy (`(multiStep || isHook) && running`);
/// * then for pruned objects to be gone (`prunedTasksPendingDelete`).
fn waits<'o>(
    step: &Step,
    multi_step: bool,
    apps_checked: bool,
    object: &dyn Fn(&Task) -> &'o Object,
) -> Vec<Wait> {
    let has_hooks = step.tasks.iter().any(|t| t.hook);
    if step.last && !has_hooks {
        return Vec::new();
    }
    let mut waits = Vec::new();
    for task in step.tasks.iter().filter(|t| !t.prune) {
        let o = object(task);
        if !task.hook && !multi_step {
            continue;
        }
        let reference = o.reference();
        match health_check(o, apps_checked) {
            Health::None => {}
            Health::Some(_) if task.hook => waits.push(Wait::Completes { object: reference }),
            Health::Some(means) => waits.push(Wait::Healthy {
                object: reference,
                means,
            }),
            Health::Unknown => waits.push(Wait::MaybeHealthy { object: reference }),
        }
    }
    for task in step.tasks.iter().filter(|t| t.prune) {
        waits.push(Wait::Deleted {
            object: object(task).reference(),
        });
    }
    waits
}

/// Whether plain resources with a health check are left unawaited in a one-step sync: the step's
/// objects whose health Argo CD would wait for in a multi-step sync.
pub fn unawaited_in_one_step(plan: &Plan) -> Vec<String> {
    if plan.multi_step {
        return Vec::new();
    }
    let apps_checked = matches!(plan.app_health, Some(AppHealth::Checked { .. }));
    plan.steps
        .iter()
        .flat_map(|s| s.tasks.iter())
        .filter(|t| !t.hook && !t.prune)
        .map(|t| plan.object(t))
        .filter(|o| !matches!(health_check(o, apps_checked), Health::None))
        .map(Object::reference)
        .collect()
}

enum Health {
    None,
    Some(&'static str),
    Unknown,
}

/// gitops-engine's built-in health checks (`pkg/health/health.go`), in the words a learner needs.
fn health_check(o: &Object, apps_checked: bool) -> Health {
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
        // unless argocd-cm adds one (module 10, step 1).
        ("argoproj.io", "Application") if apps_checked => {
            Health::Some("its health is Healthy (the argocd-cm health check)")
        }
        ("argoproj.io", "Application") => Health::None,
        _ if order::kind_rank(&o.kind) == 0 => Health::Unknown,
        _ => Health::None,
    }
}
