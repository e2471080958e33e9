//! Every shape of operation Argo CD records (issue 22 §2), served as a cluster to module 10's real
//! check files: each check says what that operation means for its claim. The Application JSON is
//! the solved state with its `operationState` and `history` rewritten as argo-cd writes them:
//! `SyncOperation` (`pkg/apis/application/v1alpha1/types.go:1422-1449`), history only for
//! successful non-dry-run non-selective syncs (`controller/sync.go:483`), self-heal
//! (`controller/appcontroller.go:2600-2618`), retries (`:1626-1690`), a dry run's entries
//! (`gitops-engine/pkg/sync/sync_context.go:1770-1776`).

use labcheck::lab::cluster;
use labcheck::snapshot::Snapshot;
use serde_json::{Value, json};

use crate::harness::{Run, World};
use crate::module_10_cluster::{app_of, cause, check_with, field, hint, revisions, status};

pub(crate) use crate::operation_states::{dry_run_entries, entry, plain_entries};

/// `point`'s solved state with checkout-dev's last operation replaced (see
/// `operation_states::state_with`), the revisions of `world`.
pub(crate) fn state_with(
    world: &World,
    point: &str,
    request: Value,
    resources: Vec<Value>,
    history: Option<Value>,
) -> Snapshot {
    crate::operation_states::state_with(&revisions(world), point, request, resources, history)
}

/// `point`'s recorded history without the push's entries (see
/// `operation_states::history_without_the_push`), the revisions of `world`.
pub(crate) fn history_without_the_push(world: &World, point: &str) -> Value {
    crate::operation_states::history_without_the_push(&revisions(world), point)
}

/// The revision of checkout-config before the push, in `world`.
fn previous(world: &World) -> String {
    revisions(world)
        .previous("checkout-config")
        .expect("a previous push")
        .to_string()
}

/// `point`'s recorded history entry of the push's sync, as if it had synced `revision` of
/// checkout-config instead.
fn history_of_the_push_at(world: &World, point: &str, revision: &str) -> Value {
    json!([crate::operation_states::history_entry_at(
        &revisions(world),
        point,
        revision,
        None
    )])
}

/// The lab at `point` whose last sync was a dry run of the push, with a history that holds the
/// push's real sync or (`without_the_push`) not, checked at `point`.
fn after_a_dry_run(point: &str, without_the_push: bool) -> Run {
    let world = World::at(point);
    let history = without_the_push.then(|| history_without_the_push(&world, point));
    let snapshot = state_with(
        &world,
        point,
        json!({"dryRun": true}),
        dry_run_entries(),
        history,
    );
    check_with(&world, &snapshot, point)
}

/// The Jobs fail as an earlier sync's: the apply-strategy sync ran no hooks.
fn jobs_are_an_earlier_syncs(run: &Run) {
    for id in ["migrate-job-complete", "smoke-test-job-complete"] {
        assert_eq!(status(run, id), "fail", "{id}: {}", run.stdout);
        assert_eq!(
            cause(run, id),
            "apply-strategy-sync",
            "{id}: {}",
            run.stdout
        );
    }
}

fn exit_and_json(run: &Run) -> (i32, String) {
    (run.code, run.stdout.clone())
}

#[test]
fn after_an_apply_strategy_sync_step_3_fails_saying_no_hooks_ran_not_cannot_tell() {
    let world = World::at("step-3");
    // `argocd app sync checkout-dev --strategy apply` after the full sync of the push: it wrote
    // history too (controller/sync.go:483), the solved history keeps the full sync.
    let snapshot = state_with(
        &world,
        "step-3",
        json!({"syncStrategy": {"apply": {}}}),
        plain_entries(),
        None,
    );
    let run = check_with(&world, &snapshot, "step-3");
    assert_eq!(status(&run, "last-sync-order"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "last-sync-order"), "apply-strategy-sync");
    assert!(
        field(&run, "last-sync-order", "summary")
            .contains("Job checkout-migrate did not run in it")
    );
    assert!(
        hint(&run, "last-sync-order").contains("without `--strategy apply`"),
        "{}",
        run.stdout
    );
    assert_eq!(exit_and_json(&run).0, 1, "a fail, not could-not-check (3)");
}

#[test]
fn after_an_apply_strategy_sync_step_2s_jobs_count_when_the_sync_of_the_push_made_them() {
    let world = World::at("step-2");
    let apply = json!({"syncStrategy": {"apply": {}}});
    // The solved history has the full sync of the push that created the Jobs: they count.
    let kept = state_with(&world, "step-2", apply.clone(), plain_entries(), None);
    let run = check_with(&world, &kept, "step-2");
    for id in [
        "sync-ran",
        "migrate-job-complete",
        "smoke-test-job-complete",
    ] {
        assert_eq!(status(&run, id), "pass", "{id}: {}", run.stdout);
    }
    // Neighbour: the sync that made the Jobs (10:00:00) was of the revision before the push, so
    // they are not of a sync of the push.
    let before = history_of_the_push_at(&world, "step-2", &previous(&world));
    let old = state_with(
        &world,
        "step-2",
        apply.clone(),
        plain_entries(),
        Some(before),
    );
    let run = check_with(&world, &old, "step-2");
    assert_eq!(
        status(&run, "sync-ran"),
        "pass",
        "the apply sync of the push succeeded: {}",
        run.stdout
    );
    // The apply sync ran no hooks: the Jobs are that earlier sync's.
    jobs_are_an_earlier_syncs(&run);
    // Neighbour: no successful sync in the history ran when the Jobs were made (a failed sync
    // leaves no entry): whichever sync made them, the apply sync ran no hooks, so they are an
    // earlier sync's, never "could not check".
    let unknown = state_with(
        &world,
        "step-2",
        apply,
        plain_entries(),
        Some(history_without_the_push(&world, "step-2")),
    );
    let run = check_with(&world, &unknown, "step-2");
    jobs_are_an_earlier_syncs(&run);
}

#[test]
fn a_dry_run_of_the_push_passes_nothing_in_step_2_or_3() {
    let run = after_a_dry_run("step-2", true);
    assert_eq!(status(&run, "sync-ran"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "sync-ran"), "dry-run");
    assert!(field(&run, "sync-ran", "summary").contains("a dry run"));
    for id in ["migrate-job-complete", "smoke-test-job-complete"] {
        assert_ne!(status(&run, id), "pass", "{id}: {}", run.stdout);
    }
    let run = after_a_dry_run("step-3", true);
    assert_eq!(status(&run, "last-sync-order"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "last-sync-order"), "dry-run");
}

#[test]
fn a_dry_run_after_the_real_sync_keeps_its_success_and_its_jobs_but_not_its_order() {
    // The solved history holds the real sync of the push (10:00:00), which made the Jobs.
    let run = after_a_dry_run("step-2", false);
    for id in [
        "sync-ran",
        "migrate-job-complete",
        "smoke-test-job-complete",
    ] {
        assert_eq!(status(&run, id), "pass", "{id}: {}", run.stdout);
    }
    assert!(
        field(&run, "sync-ran", "summary").contains("history"),
        "{}",
        run.stdout
    );
    let run = after_a_dry_run("step-3", false);
    // Every read succeeded: the order is what the dry run replaced, a fail naming it (issue 40).
    assert_eq!(status(&run, "last-sync-order"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "last-sync-order"), "dry-run");
    assert!(hint(&run, "last-sync-order").contains("without `--dry-run`"));
    assert_eq!(run.code, 1);
}

#[test]
fn a_self_heal_after_the_sync_of_the_push_fails_the_order_check_naming_it_as_a_sync_of_one_resource_does()
 {
    let world = World::at("step-3");
    let heal = json!({"autoHealAttemptsCount": 1,
        "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]});
    let healed = state_with(&world, "step-3", heal, plain_entries()[1..].to_vec(), None);
    let run = check_with(&world, &healed, "step-3");
    assert_eq!(status(&run, "last-sync-order"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "last-sync-order"), "selective-sync");
    assert!(field(&run, "last-sync-order", "summary").contains("a self-heal"));
    // Neighbour: the learner synced one resource by hand, and no sync of the push ever succeeded.
    let world = World::at("step-2");
    let one = json!({"resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]});
    let by_hand = state_with(
        &world,
        "step-2",
        one,
        plain_entries()[1..].to_vec(),
        Some(history_without_the_push(&world, "step-2")),
    );
    let run = check_with(&world, &by_hand, "step-2");
    assert_eq!(status(&run, "sync-ran"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "sync-ran"), "selective-sync");
    assert!(hint(&run, "sync-ran").contains("argocd app sync checkout-dev"));
}

#[test]
fn a_sync_of_local_files_passes_nothing() {
    let world = World::at("step-2");
    let local = json!({"manifests": ["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: checkout-config}\n"]});
    let snapshot = state_with(&world, "step-2", local, plain_entries(), None);
    let run = check_with(&world, &snapshot, "step-2");
    assert_eq!(status(&run, "sync-ran"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "sync-ran"), "local-sync");
}

#[test]
fn step_5_synced_and_healthy_at_the_revert_passes_while_the_broken_sync_retries_and_the_sync_check_names_it()
 {
    let world = World::at("step-5");
    let revs = revisions(&world);
    let mut snapshot = cluster::solved("step-5", &revs).expect("a fixture state");
    let app = app_of(&mut snapshot);
    // The sync of the broken release between attempts (facts-2 §3.2); the revert's manifests equal
    // what runs, as the broken sync stopped in PreSync (hooks are not compared).
    let broken = revs.previous("checkout-config").expect("a previous push");
    let recorded = app["status"]["operationState"].clone();
    let mut sync = recorded["operation"]["sync"].clone();
    let values = sync["revisions"].as_array_mut().and_then(|r| r.last_mut());
    *values.expect("a multi-source sync: the values revision last") = json!(broken);
    let operation =
        json!({"initiatedBy": {"automated": true}, "retry": {"limit": 5}, "sync": sync});
    app["operation"] = operation.clone();
    app["status"]["operationState"] = json!({
        "phase": "Running", "retryCount": 2,
        "startedAt": recorded["finishedAt"], "finishedAt": recorded["finishedAt"],
        "message": "one or more synchronization tasks completed unsuccessfully. Retrying attempt #2 at 10:21AM.",
        "operation": operation,
        "syncResult": recorded["syncResult"]});
    let result = &mut app["status"]["operationState"]["syncResult"];
    result["revisions"] = sync["revisions"].clone();
    result["resources"] = json!([entry(
        "Job",
        "checkout-migrate",
        "PreSync",
        true,
        "Failed",
        "Job has reached the specified backoff limit"
    )]);
    let run = check_with(&world, &snapshot, "step-5");
    assert_eq!(status(&run, "synced-healthy"), "pass", "{}", run.stdout);
    assert_eq!(status(&run, "sync-succeeded"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "sync-succeeded"), "retrying-other-revision");
    let summary = field(&run, "sync-succeeded", "summary");
    assert!(
        summary.contains(&revs.previous("checkout-config").expect("a previous push")[..7])
            && summary.contains("retry 2 of 5"),
        "{summary}"
    );
    let hint = hint(&run, "sync-succeeded");
    let terminate = hint.find("argocd app terminate-op checkout-dev");
    let sync = hint.rfind("argocd app sync checkout-dev");
    assert!(terminate.is_some() && sync > terminate, "{hint}");
}
