//! The plan against gitops-engine's own ordering tests (`pkg/sync/sync_tasks_test.go`,
//! `sync_phase_test.go`, `hook/*_test.go`), case by case, plus the example.

use super::*;

/// The objects of a manifest text; a text that does not load fails the test with its error
/// (the plan's tests in every file read their manifests through it).
pub(super) fn objects(yaml: &str) -> Vec<Object> {
    match parse_manifests("t.yaml", yaml) {
        Ok(objects) => objects,
        Err(e) => panic!("{e}"),
    }
}

fn plan(yaml: &str) -> Plan {
    Plan::new(objects(yaml), Vec::new(), &PlanOptions::default())
}

/// Every task as `phase/wave Kind/name`, in plan order (SyncFail last).
fn order(plan: &Plan) -> Vec<String> {
    plan.steps
        .iter()
        .flat_map(|s| s.tasks.iter())
        .chain(plan.on_failure.iter())
        .map(|t| {
            let prefix = if t.prune { "prune " } else { "" };
            format!(
                "{prefix}{}/{} {}",
                t.phase,
                t.wave,
                plan.object(t).reference()
            )
        })
        .collect()
}

/// `obj` in sync wave `wave`.
fn in_wave(kind: &str, name: &str, wave: i64) -> String {
    obj(
        kind,
        name,
        &[("argocd.argoproj.io/sync-wave", &wave.to_string())],
    )
}

/// `obj` as an Argo CD hook of `phase`.
fn hook(kind: &str, name: &str, phase: &str) -> String {
    obj(kind, name, &[("argocd.argoproj.io/hook", phase)])
}

fn obj(kind: &str, name: &str, annotations: &[(&str, &str)]) -> String {
    let api = match kind {
        "Job" => "batch/v1",
        "Deployment" => "apps/v1",
        "Workflow" => "argoproj.io/v1alpha1",
        "CustomResourceDefinition" => "apiextensions.k8s.io/v1",
        _ => "v1",
    };
    let mut text = format!("---\napiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n");
    if !annotations.is_empty() {
        text.push_str("  annotations:\n");
        for (k, v) in annotations {
            text.push_str(&format!("    {k}: \"{v}\"\n"));
        }
    }
    text
}

#[test]
fn kind_ranks_run_from_namespace_to_apiservice_and_unknown_kinds_last() {
    // Test_syncTasks_kindOrder
    assert_eq!(order::kind_rank("Namespace"), -35);
    assert_eq!(order::kind_rank("APIService"), -1);
    assert_eq!(order::kind_rank("MyCRD"), 0);
}

#[test]
fn tasks_sort_by_phase_then_wave_then_kind_then_name() {
    // TestSortSyncTask: the same mix of phases, waves, kinds and names, shuffled.
    let yaml = [
        obj("Pod", "p", &[]),
        obj("Service", "p", &[]),
        obj("PersistentVolume", "p", &[]),
        hook("Job", "fail", "SyncFail"),
        in_wave("Workflow", "w1", 1),
        obj("Workflow", "b", &[]),
        obj("Workflow", "a", &[]),
        in_wave("Workflow", "wm1", -1),
        hook("Job", "pre", "PreSync"),
        hook("Job", "post", "PostSync"),
        obj("ConfigMap", "p", &[]),
    ]
    .concat();
    assert_eq!(
        order(&plan(&yaml)),
        vec![
            "PreSync/0 Job/pre",
            "Sync/-1 Workflow/wm1",
            "Sync/0 ConfigMap/p",
            "Sync/0 PersistentVolume/p",
            "Sync/0 Service/p",
            "Sync/0 Pod/p",
            "Sync/0 Workflow/a",
            "Sync/0 Workflow/b",
            "Sync/1 Workflow/w1",
            "PostSync/0 Job/post",
            "SyncFail/0 Job/fail",
        ]
    );
}

#[test]
fn a_namespace_sorts_before_a_custom_resource() {
    // TestSyncNamespaceAgainstCRD
    let yaml = [obj("Workflow", "w", &[]), obj("Namespace", "ns", &[])].concat();
    assert_eq!(
        order(&plan(&yaml)),
        vec!["Sync/0 Namespace/ns", "Sync/0 Workflow/w"]
    );
}

#[test]
fn a_namespace_in_a_later_wave_moves_in_front_of_the_hook_that_needs_it() {
    // TestSyncTasksSort_NamespaceAndObjectInNamespace
    let yaml = "
apiVersion: batch/v1
kind: Job
metadata: {name: mySyncHookJob1, namespace: myNamespace1, annotations: {argocd.argoproj.io/hook: PreSync}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: mySyncHookJob2, namespace: myNamespace2, annotations: {argocd.argoproj.io/hook: PreSync}}
---
apiVersion: v1
kind: Namespace
metadata: {name: myNamespace1, annotations: {argocd.argoproj.io/sync-wave: '1'}}
---
apiVersion: v1
kind: Namespace
metadata: {name: myNamespace2, annotations: {argocd.argoproj.io/sync-wave: '2'}}
";
    let p = plan(yaml);
    assert_eq!(
        order(&p),
        vec![
            "PreSync/0 Namespace/myNamespace1",
            "PreSync/0 Job/mySyncHookJob1",
            "PreSync/0 Namespace/myNamespace2",
            "PreSync/0 Job/mySyncHookJob2",
        ]
    );
    let moved = p.steps[0].tasks[0].moved.clone();
    assert_eq!(
        moved,
        Some(Moved {
            before: "Job/mySyncHookJob1".into(),
            from: (Phase::Sync, 1)
        })
    );
}

#[test]
fn a_crd_moves_in_front_of_its_first_custom_resource() {
    // TestSyncTasksSort_CRDAndCR
    let yaml = "
apiVersion: argoproj.io/v1
kind: Workflow
metadata: {name: w, annotations: {argocd.argoproj.io/hook: PreSync}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: workflows.argoproj.io}
spec: {group: argoproj.io, names: {kind: Workflow}}
";
    assert_eq!(
        order(&plan(yaml)),
        vec![
            "PreSync/0 CustomResourceDefinition/workflows.argoproj.io",
            "PreSync/0 Workflow/w"
        ]
    );
}

#[test]
fn the_destination_namespace_makes_its_namespace_object_go_first() {
    let yaml = [
        hook("Job", "migrate", "PreSync"),
        obj("Namespace", "shop", &[]),
    ]
    .concat();
    let options = PlanOptions {
        namespace: Some("shop".into()),
        app: None,
        context: Vec::new(),
    };
    let p = Plan::new(objects(&yaml), Vec::new(), &options);
    assert_eq!(
        order(&p),
        vec!["PreSync/0 Namespace/shop", "PreSync/0 Job/migrate"]
    );
}

#[test]
fn skip_unknown_and_deletion_hooks_are_not_in_the_sync() {
    let yaml = [
        hook("ConfigMap", "skipped", "Skip"),
        hook("Job", "typo", "Presync"),
        hook("Job", "cleanup", "PreDelete"),
        obj("Job", "helm-cleanup", &[("helm.sh/hook", "post-delete")]),
        obj("ConfigMap", "kept", &[]),
    ]
    .concat();
    let p = plan(&yaml);
    assert_eq!(order(&p), vec!["Sync/0 ConfigMap/kept"]);
    let not_applied: Vec<String> = p
        .not_applied
        .iter()
        .map(|n| p.objects[n.object].reference())
        .collect();
    assert_eq!(not_applied, vec!["ConfigMap/skipped", "Job/typo"]);
    let deletion: Vec<(String, DeletionHook)> = p
        .on_deletion
        .iter()
        .map(|(i, h)| (p.objects[*i].reference(), *h))
        .collect();
    assert_eq!(
        deletion,
        vec![
            ("Job/cleanup".to_string(), DeletionHook::PreDelete),
            ("Job/helm-cleanup".to_string(), DeletionHook::PostDelete)
        ]
    );
}

#[test]
fn a_hook_of_two_types_is_two_tasks() {
    let yaml = obj(
        "Job",
        "both",
        &[("argocd.argoproj.io/hook", "PreSync,PostSync")],
    );
    assert_eq!(
        order(&plan(&yaml)),
        vec!["PreSync/0 Job/both", "PostSync/0 Job/both"]
    );
}

#[test]
fn helm_hooks_become_argo_hooks_with_their_weight_as_wave() {
    let yaml = [
        obj(
            "Job",
            "db-init",
            &[
                ("helm.sh/hook", "pre-install,pre-upgrade"),
                ("helm.sh/hook-weight", "-5"),
            ],
        ),
        obj("Job", "notify", &[("helm.sh/hook", "post-install")]),
        obj(
            "CustomResourceDefinition",
            "old-crd",
            &[("helm.sh/hook", "crd-install")],
        ),
    ]
    .concat();
    assert_eq!(
        order(&plan(&yaml)),
        vec![
            "PreSync/-5 Job/db-init",
            "Sync/0 CustomResourceDefinition/old-crd",
            "PostSync/0 Job/notify"
        ]
    );
}

#[test]
fn prune_waves_are_mirrored_and_prune_last_goes_after_the_last_sync_wave() {
    // sync_context.go: pruning reverses the waves; PruneLast → last Sync wave + 1.
    let live = [
        in_wave("ConfigMap", "old-config", -1),
        in_wave("Deployment", "old-web", 0),
        in_wave("Deployment", "old-worker", 1),
        obj(
            "Secret",
            "old-secret",
            &[
                ("argocd.argoproj.io/sync-wave", "-1"),
                ("argocd.argoproj.io/sync-options", "PruneLast=true"),
            ],
        ),
    ]
    .concat();
    let keep = in_wave("Deployment", "web", 2);
    let p = Plan::new(objects(&keep), objects(&live), &PlanOptions::default());
    assert_eq!(
        order(&p),
        vec![
            "prune Sync/-1 Deployment/old-worker",
            "prune Sync/0 Deployment/old-web",
            "prune Sync/1 ConfigMap/old-config",
            "Sync/2 Deployment/web",
            "prune Sync/3 Secret/old-secret",
        ]
    );
}

#[test]
fn argo_waits_for_hooks_and_healthy_rollouts_but_not_for_config() {
    // The example: PreSync Job, wave −1 ConfigMap, Deployments in waves 0 and 1, PostSync Job.
    let yaml = [
        hook("Job", "migrate", "PreSync"),
        in_wave("ConfigMap", "env", -1),
        in_wave("Deployment", "web", 0),
        in_wave("Deployment", "worker", 1),
        hook("Job", "smoke", "PostSync"),
    ]
    .concat();
    let p = plan(&yaml);
    let steps: Vec<(Phase, i64, Vec<Wait>)> = p
        .steps
        .iter()
        .map(|s| (s.phase, s.wave, s.waits.clone()))
        .collect();
    assert_eq!(
        steps,
        vec![
            (
                Phase::PreSync,
                0,
                vec![Wait::Completes {
                    object: "Job/migrate".into()
                }]
            ),
            (Phase::Sync, -1, vec![]),
            (
                Phase::Sync,
                0,
                vec![Wait::Healthy {
                    object: "Deployment/web".into(),
                    means: "its rollout has finished (new pods ready)"
                }]
            ),
            (
                Phase::Sync,
                1,
                vec![Wait::Healthy {
                    object: "Deployment/worker".into(),
                    means: "its rollout has finished (new pods ready)"
                }]
            ),
            (
                Phase::PostSync,
                0,
                vec![Wait::Completes {
                    object: "Job/smoke".into()
                }]
            ),
        ]
    );
}

#[test]
fn a_last_step_of_plain_resources_ends_the_sync_at_once() {
    let yaml = [
        in_wave("ConfigMap", "env", -1),
        obj("Deployment", "web", &[]),
    ]
    .concat();
    let p = plan(&yaml);
    assert!(p.steps[1].last);
    assert!(p.steps[1].waits.is_empty());
}

fn pod(name: &str, wave: Option<&str>, options: Option<&str>) -> String {
    let mut annotations = Vec::new();
    if let Some(w) = wave {
        annotations.push(("argocd.argoproj.io/sync-wave", w));
    }
    if let Some(o) = options {
        annotations.push(("argocd.argoproj.io/sync-options", o));
    }
    obj("Pod", name, &annotations)
}

/// Each task's wave by name, as `TestWaveReorderingOfPruneTasks` asserts them.
fn waves(p: &Plan) -> Vec<(String, i64)> {
    let mut found: Vec<(String, i64)> = p
        .steps
        .iter()
        .flat_map(|s| s.tasks.iter().map(move |t| (t, s.wave)))
        .map(|(t, wave)| (p.object(t).name.clone(), wave))
        .collect();
    found.sort();
    found
}

/// (name, target manifests, live manifests, expected wave of each task by name).
type PruneCase = (&'static str, String, String, Vec<(&'static str, i64)>);

#[test]
fn prune_waves_are_mirrored_as_gitops_engines_own_cases_expect() {
    // sync_context_test.go TestWaveReorderingOfPruneTasks: (target, live, expected waves).
    let ns = |w: &str| obj("Namespace", "ns", &[("argocd.argoproj.io/sync-wave", w)]);
    let cases: Vec<PruneCase> = vec![
        (
            "sameWave_mixedTasks",
            [ns("0"), pod("pod-2", None, None)].concat(),
            [
                pod("pod-1", None, None),
                pod("pod-3", None, None),
                pod("pod-4", None, None),
            ]
            .concat(),
            vec![
                ("ns", 0),
                ("pod-1", 0),
                ("pod-2", 0),
                ("pod-3", 0),
                ("pod-4", 0),
            ],
        ),
        (
            "differentWave_allPruneTasks",
            String::new(),
            [
                ns("0"),
                pod("pod-1", Some("1"), None),
                pod("pod-2", Some("2"), None),
                pod("pod-3", Some("3"), None),
                pod("pod-4", Some("4"), None),
            ]
            .concat(),
            vec![
                ("ns", 4),
                ("pod-1", 3),
                ("pod-2", 2),
                ("pod-3", 1),
                ("pod-4", 0),
            ],
        ),
        (
            "differentWave_mixedTasks",
            [ns("0"), pod("pod-2", Some("2"), None)].concat(),
            [
                pod("pod-1", Some("1"), None),
                pod("pod-3", Some("3"), None),
                pod("pod-4", Some("4"), None),
            ]
            .concat(),
            vec![
                ("ns", 0),
                ("pod-1", 4),
                ("pod-2", 2),
                ("pod-3", 3),
                ("pod-4", 1),
            ],
        ),
        (
            "pruneLastIndividualResources",
            ns("0"),
            [
                pod("pod-1", Some("1"), None),
                pod("pod-2", Some("2"), Some("PruneLast=true")),
                pod("pod-3", Some("3"), None),
                pod("pod-4", Some("4"), None),
            ]
            .concat(),
            vec![
                ("ns", 0),
                ("pod-1", 4),
                ("pod-2", 5),
                ("pod-3", 2),
                ("pod-4", 1),
            ],
        ),
        (
            "mixedTasks",
            [
                ns("-1"),
                pod("pod-2", Some("3"), None),
                pod("pod-6", Some("5"), None),
            ]
            .concat(),
            [
                pod("pod-1", Some("1"), None),
                pod("pod-3", Some("3"), None),
                pod("pod-4", Some("3"), None),
                pod("pod-5", Some("4"), None),
                pod("pod-7", Some("5"), None),
            ]
            .concat(),
            vec![
                ("ns", -1),
                ("pod-1", 5),
                ("pod-2", 3),
                ("pod-3", 4),
                ("pod-4", 4),
                ("pod-5", 3),
                ("pod-6", 5),
                ("pod-7", 1),
            ],
        ),
    ];
    for (name, target, live, expected) in cases {
        let p = Plan::new(objects(&target), objects(&live), &PlanOptions::default());
        let expected: Vec<(String, i64)> = expected
            .into_iter()
            .map(|(n, w)| (n.to_string(), w))
            .collect();
        assert_eq!(waves(&p), expected, "{name}");
    }
}

#[test]
fn prune_last_goes_one_wave_after_the_last_sync_wave_of_any_task() {
    // TestPruneLast/pruneLastIndividualResources: pod-1 applied in wave 2; pod-2 (1) and pod-3
    // (7) pruned with PruneLast → the last wave is 7 + 1.
    let p = Plan::new(
        objects(&pod("pod-1", Some("2"), None)),
        objects(
            &[
                pod("pod-2", Some("1"), Some("PruneLast=true")),
                pod("pod-3", Some("7"), Some("PruneLast=true")),
            ]
            .concat(),
        ),
        &PlanOptions::default(),
    );
    assert_eq!(p.steps.last().map(|s| s.wave), Some(8));
}

#[test]
fn pruned_objects_are_awaited_before_the_next_wave_but_not_after_the_last() {
    // TestWaitForCleanUpBeforeNextWave: prune order pod-3, pod-2, pod-1; the sync waits for
    // each deletion before the next wave, and succeeds right after the last prune.
    let live = [
        pod("pod-1", Some("1"), None),
        pod("pod-2", Some("2"), None),
        pod("pod-3", Some("3"), None),
    ]
    .concat();
    let p = Plan::new(Vec::new(), objects(&live), &PlanOptions::default());
    assert_eq!(
        order(&p),
        vec![
            "prune Sync/1 Pod/pod-3",
            "prune Sync/2 Pod/pod-2",
            "prune Sync/3 Pod/pod-1"
        ]
    );
    let waits: Vec<Vec<Wait>> = p.steps.iter().map(|s| s.waits.clone()).collect();
    assert_eq!(
        waits,
        vec![
            vec![Wait::Deleted {
                object: "Pod/pod-3".into()
            }],
            vec![Wait::Deleted {
                object: "Pod/pod-2".into()
            }],
            vec![],
        ]
    );
}

#[test]
fn inside_a_step_prunes_go_first_then_the_applies_by_kind() {
    // runTasks: prune first, then BeforeHookCreation deletions, then creates grouped by kind.
    let target = [
        obj("Deployment", "web", &[]),
        obj("ConfigMap", "env", &[]),
        obj("ConfigMap", "extra", &[]),
        hook("Job", "migrate", "Sync"),
    ]
    .concat();
    let live = [obj("ConfigMap", "a-old", &[]), obj("Service", "z-old", &[])].concat();
    let p = Plan::new(objects(&target), objects(&live), &PlanOptions::default());
    assert_eq!(
        order(&p),
        vec![
            "prune Sync/0 ConfigMap/a-old",
            "prune Sync/0 Service/z-old",
            "Sync/0 ConfigMap/env",
            "Sync/0 ConfigMap/extra",
            "Sync/0 Deployment/web",
            "Sync/0 Job/migrate",
        ]
    );
    let step = &p.steps[0];
    let deleted: Vec<String> = step
        .deleted_before_creation(&p)
        .iter()
        .map(|t| p.object(t).reference())
        .collect();
    assert_eq!(deleted, vec!["Job/migrate"]);
    let groups: Vec<Vec<String>> = step
        .apply_groups(&p)
        .iter()
        .map(|g| g.iter().map(|t| p.object(t).reference()).collect())
        .collect();
    assert_eq!(
        groups,
        vec![
            vec!["ConfigMap/env".to_string(), "ConfigMap/extra".to_string()],
            vec!["Deployment/web".to_string()],
            vec!["Job/migrate".to_string()],
        ]
    );
}

#[test]
fn a_one_step_sync_waits_for_its_hooks_but_not_for_plain_resources() {
    // sync_context.go: `(multiStep || t.isHook()) && t.running()`; argo-cd PR #2217.
    let yaml = [obj("Deployment", "web", &[]), hook("Job", "seed", "Sync")].concat();
    let p = plan(&yaml);
    assert!(!p.multi_step);
    assert_eq!(
        p.steps[0].waits,
        vec![Wait::Completes {
            object: "Job/seed".into()
        }]
    );
    assert_eq!(unawaited_in_one_step(&p), vec!["Deployment/web"]);
}

#[test]
fn a_one_step_sync_without_hooks_ends_right_after_applying() {
    let p = plan(&[obj("Deployment", "web", &[]), obj("ConfigMap", "env", &[])].concat());
    assert!(!p.multi_step);
    assert!(p.steps[0].waits.is_empty());
}

#[test]
fn a_syncfail_hook_makes_a_one_wave_sync_multi_step_and_plain_health_is_awaited() {
    // multiStep() compares the first and last task of the whole sorted list, SyncFail included.
    let yaml = [
        obj("Deployment", "web", &[]),
        hook("Job", "seed", "Sync"),
        hook("Job", "notify", "SyncFail"),
    ]
    .concat();
    let p = plan(&yaml);
    assert!(p.multi_step);
    assert_eq!(
        p.steps[0].waits,
        vec![
            Wait::Healthy {
                object: "Deployment/web".into(),
                means: "its rollout has finished (new pods ready)"
            },
            Wait::Completes {
                object: "Job/seed".into()
            },
        ]
    );
    assert!(unawaited_in_one_step(&p).is_empty());
}

#[test]
fn the_same_object_twice_is_planned_once_from_its_last_copy() {
    // controller/state.go NormalizeTargetObjects; state_test.go expects
    // "Resource /Pod/fake-dest-ns/my-pod appeared 2 times among application resources."
    let yaml = "
apiVersion: v1
kind: Pod
metadata: {name: my-pod, namespace: fake-dest-ns, annotations: {argocd.argoproj.io/sync-wave: '1'}}
---
apiVersion: v1
kind: Pod
metadata: {name: my-pod, annotations: {argocd.argoproj.io/sync-wave: '2'}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader, namespace: somewhere}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
apiVersion: batch/v1
kind: Job
metadata: {generateName: seed-}
---
apiVersion: batch/v1
kind: Job
metadata: {generateName: seed-}
";
    let options = PlanOptions {
        namespace: Some("fake-dest-ns".into()),
        app: None,
        context: Vec::new(),
    };
    let p = Plan::new(objects(yaml), Vec::new(), &options);
    let messages: Vec<String> = p.duplicates.iter().map(Duplicate::message).collect();
    assert_eq!(
        messages,
        vec![
            "Resource /Pod/fake-dest-ns/my-pod appeared 2 times among application resources.",
            "Resource rbac.authorization.k8s.io/ClusterRole//reader appeared 2 times among application resources.",
        ]
    );
    assert_eq!(
        order(&p),
        vec![
            "Sync/0 ClusterRole/reader",
            "Sync/0 Job/seed-",
            "Sync/0 Job/seed-",
            "Sync/2 Pod/my-pod"
        ]
    );
    assert_eq!(p.duplicates[0].sources.len(), 2);
}

const APP: &str = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: child, annotations: {argocd.argoproj.io/sync-wave: '1'}}\n---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: second, annotations: {argocd.argoproj.io/sync-wave: '2'}}\n";

#[test]
fn waves_of_applications_wait_only_when_argocd_cm_gives_them_a_health_check() {
    let without = plan(APP);
    assert_eq!(without.app_health, Some(AppHealth::NotChecked));
    assert!(without.steps[0].waits.is_empty());
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: argocd}\ndata:\n  resource.customizations.health.argoproj.io_Application: |\n    hs = {}\n    hs.status = \"Progressing\"\n    return hs\n---\n";
    let with = plan(&format!("{cm}{APP}"));
    assert!(matches!(with.app_health, Some(AppHealth::Checked { .. })));
    let first_app_step = with
        .steps
        .iter()
        .find(|s| s.wave == 1)
        .map(|s| s.waits.clone());
    assert_eq!(
        first_app_step,
        Some(vec![Wait::HealthyCustom {
            object: "Application/child".into(),
            means: "its health is Healthy (the argocd-cm check `resource.customizations.health.argoproj.io_Application`)"
                .to_string()
        }])
    );
    let old_style = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  resource.customizations: |\n    argoproj.io/Application:\n      health.lua: |\n        return {status = \"Healthy\"}\n---\n";
    assert!(matches!(
        plan(&format!("{old_style}{APP}")).app_health,
        Some(AppHealth::Checked {
            key: "resource.customizations",
            ..
        })
    ));
    assert_eq!(plan(&obj("ConfigMap", "x", &[])).app_health, None);
}
