//! gitops-engine's task order (`pkg/sync/sync_tasks.go`): phase, then wave, then kind rank, then
//! name; then a Namespace or CRD that sorted after the first object needing it moves in front of
//! that object and takes its phase and wave. Prune waves are mirrored (`sync_context.go`).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::plan::object::{Object, Phase};

/// Kinds in the order Argo CD applies them within one wave (Helm's install order). Any other kind,
/// custom resources included, comes after all of these.
pub const KIND_ORDER: [&str; 35] = [
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
];

/// A kind's rank: −35 for Namespace up to −1 for APIService, 0 for every other kind.
pub fn kind_rank(kind: &str) -> i64 {
    KIND_ORDER
        .iter()
        .position(|k| *k == kind)
        .map_or(0, |i| i as i64 - KIND_ORDER.len() as i64)
}

/// One thing Argo CD does in a sync: apply an object in a phase, or prune a live one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Index into the plan's objects (or pruned objects, for a prune).
    pub object: usize,
    pub phase: Phase,
    pub wave: i64,
    pub hook: bool,
    /// Deletes a live object that is no longer in git.
    pub prune: bool,
    /// Set when the task was moved in front of an object that needs it.
    pub moved: Option<Moved>,
}

/// A Namespace or CRD moved in front of the first object that needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// `Kind/name` of the object it now precedes.
    pub before: String,
    /// Its own phase and wave before the move.
    pub from: (Phase, i64),
}

fn compare<'o>(a: &Task, b: &Task, object: &dyn Fn(&Task) -> &'o Object) -> Ordering {
    let (oa, ob) = (object(a), object(b));
    a.phase
        .cmp(&b.phase)
        .then(a.wave.cmp(&b.wave))
        .then(kind_rank(&oa.kind).cmp(&kind_rank(&ob.kind)))
        .then_with(|| oa.name.cmp(&ob.name))
}

/// Sort `tasks` as gitops-engine does. `object` finds a task's object; `destination` is the
/// namespace gitops-engine gives every object without one, cluster-scoped ones included
/// (`GE: sync_context.go:1038-1051`), so a Namespace of that name moves in front of them too.
/// The sort is stable where Argo CD's is not (same phase, wave, kind and name): input order then
/// decides.
pub fn sort<'o>(tasks: &mut [Task], object: &dyn Fn(&Task) -> &'o Object, destination: &str) {
    tasks.sort_by(|a, b| compare(a, b, object));
    // Namespaces before the objects in them.
    adjust_deps(
        tasks,
        object,
        &|o| (o.kind == "Namespace" && o.group().is_empty()).then(|| o.name.clone()),
        &|o| {
            let namespace = if o.namespace.is_empty() {
                destination
            } else {
                o.namespace.as_str()
            };
            (!namespace.is_empty()).then(|| namespace.to_string())
        },
    );
    // CRDs before their custom resources.
    adjust_deps(
        tasks,
        object,
        &|o| {
            if !(o.kind == "CustomResourceDefinition" && o.group() == "apiextensions.k8s.io") {
                return None;
            }
            let group = o.get(&["spec", "group"])?.as_str()?;
            let kind = o.get(&["spec", "names", "kind"])?.as_str()?;
            Some(format!("{group}/{kind}"))
        },
        &|o| Some(format!("{}/{}", o.group(), o.kind)),
    );
}

type Key<'a> = &'a dyn Fn(&Object) -> Option<String>;

/// Move each dependency that sorted after the first task referring to it in front of that task,
/// giving it that task's phase and wave (gitops-engine's `adjustDeps`).
fn adjust_deps<'o>(
    tasks: &mut [Task],
    object: &dyn Fn(&Task) -> &'o Object,
    is_dep: Key,
    refers_to: Key,
) {
    let mut first_index: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..tasks.len() {
        if tasks[i].prune {
            continue;
        }
        let current = object(&tasks[i]);
        if let Some(key) = is_dep(current) {
            if let Some(&index) = first_index.get(&key) {
                let (phase, wave) = (tasks[index].phase, tasks[index].wave);
                let before = object(&tasks[index]).reference();
                let mut moved = tasks[i].clone();
                moved.moved = Some(Moved {
                    before,
                    from: (moved.phase, moved.wave),
                });
                moved.phase = phase;
                moved.wave = wave;
                tasks[index..=i].rotate_right(1);
                tasks[index] = moved;
                for position in first_index.values_mut() {
                    if *position >= index {
                        *position += 1;
                    }
                }
            }
        } else if let Some(key) = refers_to(current) {
            first_index.entry(key).or_insert(i);
        }
    }
}

/// Prune waves mirrored: the highest wave is pruned first (gitops-engine swaps the sorted distinct
/// prune waves end for end). Tasks with `PruneLast=true` then go one wave after the last Sync wave.
pub fn mirror_prune_waves(tasks: &mut [Task], prune_last: &dyn Fn(&Task) -> bool) {
    let mut waves: Vec<i64> = tasks.iter().filter(|t| t.prune).map(|t| t.wave).collect();
    waves.sort();
    waves.dedup();
    let mirrored: BTreeMap<i64, i64> = waves
        .iter()
        .zip(waves.iter().rev())
        .map(|(from, to)| (*from, *to))
        .collect();
    for task in tasks.iter_mut().filter(|t| t.prune) {
        if let Some(to) = mirrored.get(&task.wave) {
            task.wave = *to;
        }
    }
    let last_sync_wave = tasks
        .iter()
        .filter(|t| t.phase == Phase::Sync)
        .map(|t| t.wave)
        .fold(0, i64::max)
        + 1;
    for task in tasks.iter_mut() {
        if task.prune && prune_last(task) {
            task.wave = last_sync_wave;
        }
    }
}
