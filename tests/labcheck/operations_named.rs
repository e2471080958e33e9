//! Issue 40: every operation named. The last operation ran no hooks (an apply-strategy sync, a
//! selective sync or self-heal, a dry run, `controller/sync.go:386`), and the check names it even
//! where the hook Jobs are gone altogether; a dry run is named as one whatever revision it names
//! (`argocd app sync --dry-run --revision X`). Served as a cluster to module 10's check files.

use serde_json::json;

use crate::harness::{Run, World};
use crate::module_10_cluster::{cause, check_with, field, hint, revisions, status};
use crate::operation_states::{
    REFUSED, hooks_only_entries, jobs_gone, jobs_made_before_the_commit, selective_sync,
};
use crate::operations::{dry_run_entries, history_without_the_push, plain_entries, state_with};

/// Both hook Jobs' checks of step 2 fail with `want_cause` and a hint that says `says`.
fn both_jobs_fail(run: &Run, want_cause: &str, says: &str, what: &str) {
    for id in ["migrate-job-complete", "smoke-test-job-complete"] {
        assert_eq!(status(run, id), "fail", "{what} {id}: {}", run.stdout);
        assert_eq!(cause(run, id), want_cause, "{what} {id}: {}", run.stdout);
        assert!(
            hint(run, id).contains(says),
            "{what} {id}: {}",
            hint(run, id)
        );
    }
}

#[test]
fn jobs_missing_after_a_sync_that_ran_no_hooks_fail_naming_that_sync_and_its_option() {
    // (the operation's request, the cause, the option the hint says to leave out)
    let cases = [
        (
            json!({"syncStrategy": {"apply": {}}}),
            "apply-strategy-sync",
            "without `--strategy apply`",
        ),
        (json!({"dryRun": true}), "dry-run", "without `--dry-run`"),
        (selective_sync(), "selective-sync", "without `--resource`"),
    ];
    for (request, want_cause, option) in cases {
        let world = World::at("step-2");
        let mut snapshot = state_with(
            &world,
            "step-2",
            request.clone(),
            plain_entries(),
            Some(history_without_the_push(&world, "step-2")),
        );
        jobs_gone(&mut snapshot);
        let run = check_with(&world, &snapshot, "step-2");
        both_jobs_fail(&run, want_cause, option, &request.to_string());
        for id in ["migrate-job-complete", "smoke-test-job-complete"] {
            assert!(
                !hint(&run, id).contains("run the sync (`"),
                "{}",
                hint(&run, id)
            );
        }
        assert_ne!(run.code, 3, "never could-not-check: {}", run.stdout);
    }
}

#[test]
fn a_dry_run_of_an_older_revision_is_named_as_a_dry_run_not_as_an_older_sync() {
    let world = World::at("step-2");
    let older = revisions(&world)
        .previous("checkout-config")
        .expect("a previous push")
        .to_string();
    // `argocd app sync checkout-dev --dry-run --revision <older>`, no sync of the push yet.
    let snapshot = state_with(
        &world,
        "step-2",
        json!({"dryRun": true, "revision": older}),
        dry_run_entries(),
        Some(history_without_the_push(&world, "step-2")),
    );
    let run = check_with(&world, &snapshot, "step-2");
    assert_eq!(status(&run, "sync-ran"), "fail", "{}", run.stdout);
    assert_eq!(cause(&run, "sync-ran"), "dry-run", "{}", run.stdout);
    let summary = field(&run, "sync-ran", "summary");
    assert!(
        summary.contains("dry run") && !summary.contains("ran "),
        "{summary}"
    );
    // Neighbour: the real sync of the push is in the history; the dry run of an older
    // revision after it does not undo that success.
    let snapshot = state_with(
        &world,
        "step-2",
        json!({"dryRun": true, "revision": older}),
        dry_run_entries(),
        None,
    );
    let run = check_with(&world, &snapshot, "step-2");
    assert_eq!(status(&run, "sync-ran"), "pass", "{}", run.stdout);
}

#[test]
fn a_sync_with_apply_out_of_sync_only_names_the_option_for_what_it_skipped() {
    let world = World::at("step-3");
    let hooks_only = hooks_only_entries();
    // `argocd app sync checkout-dev --apply-out-of-sync-only`: the ConfigMap and the Deployment
    // were Synced, so the sync skipped them (controller/sync.go:401).
    let snapshot = state_with(
        &world,
        "step-3",
        json!({"syncOptions": ["ApplyOutOfSyncOnly=true"]}),
        hooks_only.clone(),
        None,
    );
    let run = check_with(&world, &snapshot, "step-3");
    assert_eq!(status(&run, "last-sync-order"), "fail", "{}", run.stdout);
    assert_eq!(
        cause(&run, "last-sync-order"),
        "apply-out-of-sync-only:checkout-config",
        "{}",
        run.stdout
    );
    assert!(field(&run, "last-sync-order", "summary").contains("ApplyOutOfSyncOnly=true"));
    assert!(
        hint(&run, "last-sync-order").contains("ApplyOutOfSyncOnly"),
        "{}",
        hint(&run, "last-sync-order")
    );
    // Neighbour: the option comes from the Application's own sync policy, which the API server
    // copies into a sync that names no options: the hint takes it out of the Application, as no
    // flag of `argocd app sync` turns it off for one sync (it has no `--sync-option`).
    let mut snapshot = state_with(
        &world,
        "step-3",
        json!({"syncOptions": ["ApplyOutOfSyncOnly=true"]}),
        hooks_only.clone(),
        None,
    );
    crate::module_10_cluster::app_of(&mut snapshot)["spec"]["syncPolicy"]["syncOptions"] =
        json!(["ApplyOutOfSyncOnly=true"]);
    let run = check_with(&world, &snapshot, "step-3");
    assert_eq!(
        cause(&run, "last-sync-order"),
        "apply-out-of-sync-only:checkout-config",
        "{}",
        run.stdout
    );
    let words = hint(&run, "last-sync-order");
    assert!(
        words.contains("take `ApplyOutOfSyncOnly=true` out of the Application")
            && words.contains("`argocd app sync checkout-dev`")
            && !words.contains("--sync-option"),
        "{words}"
    );
    // Neighbour: the same table without the option is a sync that did not apply them.
    let snapshot = state_with(&world, "step-3", json!({}), hooks_only, None);
    let run = check_with(&world, &snapshot, "step-3");
    assert_eq!(
        cause(&run, "last-sync-order"),
        "not-applied:checkout-config",
        "{}",
        run.stdout
    );
}

/// The refused-hook state with `world`'s revisions.
fn refused_state(world: &World, point: &str, keep_old_jobs: bool) -> labcheck::snapshot::Snapshot {
    crate::operation_states::refused_state(&revisions(world), point, keep_old_jobs)
}

#[test]
fn a_hook_the_api_server_refused_fails_naming_the_refusal_and_where_it_is_rendered() {
    // (the Jobs of an earlier sync are kept, or there are none)
    for keep_old_jobs in [false, true] {
        let world = World::at("step-2");
        let snapshot = refused_state(&world, "step-2", keep_old_jobs);
        let run = check_with(&world, &snapshot, "step-2");
        let id = "migrate-job-complete";
        assert_eq!(status(&run, id), "fail", "{keep_old_jobs}: {}", run.stdout);
        assert_eq!(
            cause(&run, id),
            "hook-refused:checkout-migrate",
            "{}",
            run.stdout
        );
        let summary = field(&run, id, "summary");
        assert!(
            summary.contains("could not create") && summary.contains(REFUSED),
            "{summary}"
        );
        let diagnosis = field(&run, id, "diagnosis");
        assert!(
            diagnosis.contains("one or more objects failed to apply"),
            "{diagnosis}"
        );
        // The course's hint for the cause speaks, not "run a sync".
        assert!(
            hint(&run, id).contains("refused its manifest"),
            "{}",
            hint(&run, id)
        );
        // The migration's log check names it too.
        assert_eq!(
            cause(&run, "migration-logged"),
            "hook-refused:checkout-migrate",
            "{}",
            run.stdout
        );
        assert_ne!(run.code, 3, "never could-not-check: {}", run.stdout);
    }
}

/// A selective sync or a self-heal as the controller writes each (`controller/appcontroller.go
/// :2600-2618`: a self-heal is a selective sync of what drifted, with `autoHealAttemptsCount`).
fn selective_operations() -> [(&'static str, serde_json::Value); 2] {
    [
        ("a selective sync", selective_sync()),
        (
            "a self-heal",
            json!({"autoHealAttemptsCount": 1,
                "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]}),
        ),
    ]
}

#[test]
fn jobs_older_than_the_pushed_commit_after_a_selective_sync_or_self_heal_fail_naming_it() {
    for (did, request) in selective_operations() {
        let world = World::at("step-2");
        // No successful sync of the push in the history.
        let mut snapshot = state_with(
            &world,
            "step-2",
            request.clone(),
            plain_entries()[1..].to_vec(),
            Some(history_without_the_push(&world, "step-2")),
        );
        // The Jobs were made before the learner's commit existed: no sync of the push made them.
        jobs_made_before_the_commit(&mut snapshot);
        let run = check_with(&world, &snapshot, "step-2");
        both_jobs_fail(&run, "selective-sync", "argocd app sync checkout-dev", did);
        for id in ["migrate-job-complete", "smoke-test-job-complete"] {
            let summary = field(&run, id, "summary");
            assert!(summary.contains("older than your commit"), "{summary}");
        }
        assert_ne!(run.code, 3, "{}", run.stdout);
        // The migration's log is of that Job too: named alike, never could-not-check.
        assert_eq!(status(&run, "migration-logged"), "fail", "{}", run.stdout);
        assert_eq!(
            cause(&run, "migration-logged"),
            "selective-sync",
            "{}",
            run.stdout
        );
    }
}

#[test]
fn jobs_younger_than_the_pushed_commit_after_a_selective_sync_or_self_heal_are_judged_by_the_history()
 {
    let world = World::at("step-2");
    let revs = revisions(&world);
    let previous = revs
        .previous("checkout-config")
        .expect("a previous push")
        .to_string();
    // A full sync of the revision before the push, ten minutes after the recorded sync that made
    // the push's Jobs: the only entry a history of one keeps.
    let later_sync_of_previous = json!([crate::operation_states::history_entry_at(
        &revs,
        "step-2",
        &previous,
        Some(600)
    )]);
    // Jobs made a quarter of an hour after the recorded sync: younger than that later sync.
    let younger = crate::operation_states::after_the_recorded_sync(&revs, "step-2", 900);
    // (what the history says, its limit, when the Jobs were made, the migration Job's status and
    // cause, words its summary holds)
    let cases = [
        (
            "no sync of the push in the history, which is not full",
            history_without_the_push(&world, "step-2"),
            None,
            None,
            "fail",
            "selective-sync",
            "run by no sync of checkout-dev on record",
        ),
        (
            "the push's full sync in the history made them",
            json!(null),
            None,
            None,
            "pass",
            "",
            "complete",
        ),
        (
            "a history of one that may have lost the push's sync, the Jobs older than it",
            later_sync_of_previous.clone(),
            Some(1),
            None,
            "error",
            "sync-unknown",
            "may have fallen out of the history (it keeps 1)",
        ),
        (
            "a history of one, the Jobs younger than the oldest sync it keeps",
            later_sync_of_previous,
            Some(1),
            Some(younger.clone()),
            "fail",
            "selective-sync",
            "run by no sync of checkout-dev on record",
        ),
    ];
    for (op, request) in selective_operations() {
        for (did, history, limit, made, want, want_cause, says) in cases.clone() {
            let history = (!history.is_null()).then_some(history);
            let mut snapshot = state_with(
                &world,
                "step-2",
                request.clone(),
                plain_entries()[1..].to_vec(),
                history,
            );
            if let Some(limit) = limit {
                crate::module_10_cluster::app_of(&mut snapshot)["spec"]["revisionHistoryLimit"] =
                    json!(limit);
            }
            if let Some(made) = made {
                for job in snapshot.objects.iter_mut().filter(|o| o["kind"] == "Job") {
                    job["metadata"]["creationTimestamp"] = json!(made);
                }
            }
            let run = check_with(&world, &snapshot, "step-2");
            let id = "migrate-job-complete";
            assert_eq!(status(&run, id), want, "{op}, {did}: {}", run.stdout);
            assert_eq!(cause(&run, id), want_cause, "{op}, {did}: {}", run.stdout);
            let summary = field(&run, id, "summary");
            assert!(summary.contains(says), "{op}, {did}: {summary}");
            if want == "fail" {
                // Named for what ran, with the command that runs the hooks; never a pass.
                let named = if op == "a self-heal" {
                    "a self-heal"
                } else {
                    "--resource"
                };
                assert!(summary.contains(named), "{op}, {did}: {summary}");
                assert!(
                    hint(&run, id).contains("argocd app sync checkout-dev"),
                    "{}",
                    hint(&run, id)
                );
                assert_ne!(run.code, 3, "{op}, {did}: {}", run.stdout);
            }
        }
    }
}
