//! The plan against gitops-engine's own ordering tests (`pkg/sync/sync_tasks_test.go`,
//! `sync_phase_test.go`, `hook/*_test.go`), case by case, plus the example.

use super::*;

fn objects(yaml: &str) -> Vec<Object> {
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
        obj("Job", "fail", &[("argocd.argoproj.io/hook", "SyncFail")]),
        obj("Workflow", "w1", &[("argocd.argoproj.io/sync-wave", "1")]),
        obj("Workflow", "b", &[]),
        obj("Workflow", "a", &[]),
        obj("Workflow", "wm1", &[("argocd.argoproj.io/sync-wave", "-1")]),
        obj("Job", "pre", &[("argocd.argoproj.io/hook", "PreSync")]),
        obj("Job", "post", &[("argocd.argoproj.io/hook", "PostSync")]),
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
        obj("Job", "migrate", &[("argocd.argoproj.io/hook", "PreSync")]),
        obj("Namespace", "shop", &[]),
    ]
    .concat();
    let options = PlanOptions {
        namespace: Some("shop".into()),
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
        obj(
            "ConfigMap",
            "skipped",
            &[("argocd.argoproj.io/hook", "Skip")],
        ),
        obj("Job", "typo", &[("argocd.argoproj.io/hook", "Presync")]),
        obj(
            "Job",
            "cleanup",
            &[("argocd.argoproj.io/hook", "PreDelete")],
        ),
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
        obj(
            "ConfigMap",
            "old-config",
            &[("argocd.argoproj.io/sync-wave", "-1")],
        ),
        obj(
            "Deployment",
            "old-web",
            &[("argocd.argoproj.io/sync-wave", "0")],
        ),
        obj(
            "Deployment",
            "old-worker",
            &[("argocd.argoproj.io/sync-wave", "1")],
        ),
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
    let keep = obj(
        "Deployment",
        "web",
        &[("argocd.argoproj.io/sync-wave", "2")],
    );
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
        obj("Job", "migrate", &[("argocd.argoproj.io/hook", "PreSync")]),
        obj(
            "ConfigMap",
            "env",
            &[("argocd.argoproj.io/sync-wave", "-1")],
        ),
        obj(
            "Deployment",
            "web",
            &[("argocd.argoproj.io/sync-wave", "0")],
        ),
        obj(
            "Deployment",
            "worker",
            &[("argocd.argoproj.io/sync-wave", "1")],
        ),
        obj("Job", "smoke", &[("argocd.argoproj.io/hook", "PostSync")]),
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
        obj(
            "ConfigMap",
            "env",
            &[("argocd.argoproj.io/sync-wave", "-1")],
        ),
        obj("Deployment", "web", &[]),
    ]
    .concat();
    let p = plan(&yaml);
    assert!(p.steps[1].last);
    assert!(p.steps[1].waits.is_empty());
}
