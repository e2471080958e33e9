//! Every shape an operation can have (issue 22 §2), and what each `argocd_app` claim says of it.
//! The requests are written as argo-cd writes them: `SyncOperation` (`types.go:1422-1449`),
//! auto-sync and self-heal (`controller/appcontroller.go:2566-2618`), retries (`:1626-1690`); a
//! dry run's entries as the engine records them (`gitops-engine/pkg/sync/sync_context.go:1770-1776`).

use serde_json::{Value, json};

use super::tests::rows::*;
use super::tests::{OLD, PUSHED, app, entries, op, pushed, retrying, spec, succeeded_sync};
use crate::outcome::{Cause, CauseId, Outcome, Status};
use crate::probe::cluster::argocd::Application;

/// Step 3's claim: the order of the last sync, hooks included.
const STEP_3_ORDER: &str = "{name: checkout-dev, revision_of: checkout-config, order: [{kind: Job, name: checkout-migrate, phase: PreSync}, {kind: ConfigMap, name: checkout-config}, {kind: Deployment, name: checkout}, {kind: Job, name: checkout-smoke-test, phase: PostSync}]}";
/// Step 5's claims.
const SYNC_SUCCEEDED: &str =
    "{name: checkout-dev, phase: [Succeeded], revision_of: checkout-config}";
const SYNCED_HEALTHY: &str =
    "{name: checkout-dev, sync: Synced, health: Healthy, revision_of: checkout-config}";
const MIGRATE_SUCCEEDED: &str = "{name: checkout-dev, revision_of: checkout-config, hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Succeeded}}";

/// A finished operation of `PUSHED` whose request is `sync` (merged over `{revision}`).
fn with_request(mut state: Value, sync: Value) -> Value {
    if let (Some(req), Some(extra)) = (state["operation"]["sync"].as_object_mut(), sync.as_object())
    {
        for (k, v) in extra {
            req.insert(k.clone(), v.clone());
        }
    }
    state
}

fn at_push(state: Value) -> Application {
    app("Synced", "Healthy", PUSHED, Some(state))
}

fn history(app: &mut Application, revision: &str) {
    app.status.history = serde_json::from_value(json!([{"id": 3, "revision": revision,
        "deployStartedAt": "2026-05-02T10:10:00Z", "deployedAt": "2026-05-02T10:10:40Z",
        "initiatedBy": {"username": "admin"}}]))
    .unwrap_or_default();
}

fn decide(check: &str, app: &Application) -> Outcome {
    spec(check).decide(app, Some(&pushed()))
}

/// The apply strategy applies every resource and runs no hook (`controller/sync.go:386`).
fn apply_strategy_sync() -> Value {
    let state = op(
        "Succeeded",
        "successfully synced (all tasks run)",
        PUSHED,
        entries(&[CONFIG_UNCHANGED, DEPLOY_CONFIGURED]),
    );
    with_request(state, json!({"syncStrategy": {"apply": {}}}))
}

#[test]
fn an_apply_strategy_sync_ran_no_migration_so_step_3_fails_with_a_normal_sync_not_cannot_tell() {
    let app = at_push(apply_strategy_sync());
    for check in [STEP_3_ORDER, MIGRATE_SUCCEEDED] {
        let outcome = decide(check, &app);
        assert_eq!(outcome.status, Status::Fail, "{check}: {outcome:?}");
        assert_eq!(outcome.cause, Some(Cause::new(CauseId::ApplyStrategySync)));
        outcome.assert_says("did not run in it");
        outcome.assert_hint_names(&["argocd app sync checkout-dev", "without `--strategy apply`"]);
    }
    // Neighbours: what an apply sync does record still reads.
    let plain = decide(
        "{name: checkout-dev, revision_of: checkout-config, order: [{kind: ConfigMap, name: checkout-config}, {kind: Deployment, name: checkout}]}",
        &app,
    );
    assert_eq!(plain.status, Status::Pass, "{plain:?}");
    plain.assert_says("apply strategy, no hooks ran");
    assert_eq!(decide(SYNC_SUCCEEDED, &app).status, Status::Pass);
}

#[test]
fn force_replace_and_prune_are_still_full_syncs_that_ran_their_hooks() {
    for request in [
        json!({"syncStrategy": {"hook": {"force": true}}}),
        json!({"syncOptions": ["Replace=true"]}),
        json!({"prune": true, "syncStrategy": {"hook": {}}}),
    ] {
        let app = at_push(with_request(succeeded_sync(PUSHED), request.clone()));
        for check in [STEP_3_ORDER, MIGRATE_SUCCEEDED, SYNC_SUCCEEDED] {
            let outcome = decide(check, &app);
            assert_eq!(
                outcome.status,
                Status::Pass,
                "{request} {check}: {outcome:?}"
            );
        }
    }
}

/// A dry run of the push: the engine lists every task, hooks too, as Succeeded with `(dry run)`.
fn dry_run() -> Value {
    let mut rows = entries(&[MIGRATE_OK, CONFIG_UNCHANGED, DEPLOY_CONFIGURED, SMOKE_OK]);
    for row in &mut rows {
        row["hookPhase"] = json!("Succeeded");
        row["message"] = json!(format!(
            "{}/{} created (dry run)",
            row["kind"].as_str().unwrap_or_default().to_lowercase(),
            row["name"].as_str().unwrap_or_default()
        ));
    }
    with_request(
        op(
            "Succeeded",
            "successfully synced (all tasks run)",
            PUSHED,
            rows,
        ),
        json!({"dryRun": true}),
    )
}

#[test]
fn a_dry_run_is_not_a_sync_so_its_succeeded_hooks_never_pass() {
    let app = at_push(dry_run());
    for check in [STEP_3_ORDER, MIGRATE_SUCCEEDED, SYNC_SUCCEEDED] {
        let outcome = decide(check, &app);
        assert_eq!(outcome.status, Status::Fail, "{check}: {outcome:?}");
        assert_eq!(outcome.cause, Some(Cause::new(CauseId::DryRun)), "{check}");
        outcome.assert_says("a dry run");
        outcome.assert_hint_names(&["argocd app sync checkout-dev"]);
    }
}

#[test]
fn a_dry_run_after_the_real_sync_of_the_push_keeps_its_success_but_not_its_hooks() {
    let mut app = at_push(dry_run());
    history(&mut app, PUSHED);
    let phase = decide(SYNC_SUCCEEDED, &app);
    assert_eq!(phase.status, Status::Pass, "{phase:?}");
    assert!(
        phase
            .summary
            .contains("(history; the last operation is dry run)"),
        "{}",
        phase.summary
    );
    let hook = decide(MIGRATE_SUCCEEDED, &app);
    assert_eq!(hook.status, Status::Fail, "{hook:?}");
    hook.assert_says("a dry run");
    assert!(
        hook.hints
            .iter()
            .any(|h| format!("{h:?}").contains("without `--dry-run`")),
        "{hook:?}"
    );
    assert_eq!(hook.cause, Some(Cause::new(CauseId::DryRun)));
    // The history's sync is of an older revision: no sync of the push succeeded.
    history(&mut app, OLD);
    assert_eq!(decide(SYNC_SUCCEEDED, &app).status, Status::Fail);
    // Step 4 asks for a failed sync: a success in history contradicts it.
    history(&mut app, PUSHED);
    let failed = decide(
        "{name: checkout-dev, phase: [Failed, Error], revision_of: checkout-config}",
        &app,
    );
    assert_eq!(failed.status, Status::Fail);
    assert_eq!(
        failed.cause,
        Some(Cause::about(CauseId::SyncPhase, "Succeeded"))
    );
}

/// A sync of one resource by hand (`argocd app sync --resource apps:Deployment:checkout`).
fn selective_sync() -> Value {
    with_request(
        op(
            "Succeeded",
            "successfully synced (all tasks run)",
            PUSHED,
            entries(&[DEPLOY_CONFIGURED]),
        ),
        json!({"resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]}),
    )
}

#[test]
fn a_sync_of_one_resource_is_not_the_sync_of_the_push_unless_history_has_one() {
    let mut app = at_push(selective_sync());
    let outcome = decide(SYNC_SUCCEEDED, &app);
    assert_eq!(outcome.status, Status::Fail, "{outcome:?}");
    assert_eq!(outcome.cause, Some(Cause::new(CauseId::SelectiveSync)));
    outcome.assert_says("--resource");
    history(&mut app, PUSHED);
    assert_eq!(decide(SYNC_SUCCEEDED, &app).status, Status::Pass);
    assert_eq!(decide(MIGRATE_SUCCEEDED, &app).status, Status::Fail);
}

#[test]
fn when_the_push_may_have_fallen_out_of_the_history_it_could_not_check() {
    let mut app = at_push(selective_sync());
    app.spec.revision_history_limit = Some(1);
    history(&mut app, OLD);
    for check in [SYNC_SUCCEEDED, MIGRATE_SUCCEEDED] {
        let outcome = decide(check, &app);
        assert_eq!(outcome.status, Status::Error, "{check}: {outcome:?}");
        assert_eq!(outcome.cause, Some(Cause::new(CauseId::HistoryTrimmed)));
        outcome.assert_says("keeps 1 syncs");
    }
}

#[test]
fn a_sync_of_local_files_is_not_of_the_commit() {
    let app = at_push(with_request(
        succeeded_sync(PUSHED),
        json!({"manifests": ["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: checkout-config}\n"]}),
    ));
    for check in [SYNC_SUCCEEDED, MIGRATE_SUCCEEDED] {
        let outcome = decide(check, &app);
        assert_eq!(outcome.status, Status::Fail, "{outcome:?}");
        assert_eq!(outcome.cause, Some(Cause::new(CauseId::LocalSync)));
    }
}

#[test]
fn a_sync_of_another_revision_is_named_and_auto_sync_is_waited_for() {
    // `argocd app sync --revision OLD` by a user: the op carries OLD, Argo CD targets the push.
    let mut state = succeeded_sync(OLD);
    state["operation"]["initiatedBy"] = json!({"username": "admin"});
    let mut app = app("OutOfSync", "Healthy", PUSHED, Some(state));
    let manual = decide(SYNC_SUCCEEDED, &app);
    assert_eq!(manual.cause, Some(Cause::new(CauseId::SyncNotOfPush)));
    assert!(
        manual
            .summary
            .contains("ran 3f2a1c0, not your push 9b7e4d2"),
        "{}",
        manual.summary
    );
    assert!(!manual.pending);
    // With auto-sync on, the OutOfSync app gets a sync of its target by itself.
    app.spec.sync_policy = Some(json!({"automated": {}}));
    let auto = decide(SYNC_SUCCEEDED, &app);
    assert!(auto.pending, "{auto:?}");
    auto.assert_hint_names(&["argocd app wait checkout-dev"]);
}

/// An older sync (of OLD) between attempts: the window after a failed attempt (facts-2 §3.2).
fn older_sync_retrying(refresh: bool) -> Application {
    let mut state = retrying(OLD);
    state["operation"]["retry"]["refresh"] = json!(refresh);
    // The learner reverted: the push's manifests equal what runs (hooks are not compared).
    let mut app = app("Synced", "Healthy", PUSHED, Some(state));
    app.operation = Some(json!({"sync": {"revision": OLD}}));
    app
}

#[test]
fn synced_and_healthy_at_the_push_passes_while_an_older_sync_retries_and_the_sync_check_names_it() {
    let app = older_sync_retrying(false);
    let state = decide(SYNCED_HEALTHY, &app);
    assert_eq!(state.status, Status::Pass, "{state:?}");
    let sync = decide(SYNC_SUCCEEDED, &app);
    assert_eq!(sync.status, Status::Fail);
    assert_eq!(sync.cause, Some(Cause::new(CauseId::RetryingOtherRevision)));
    sync.assert_says("3f2a1c0, retry 2 of 5");
    let hint = sync.own_hint().unwrap_or_default();
    let terminate = hint.find("argocd app terminate-op checkout-dev");
    let resync = hint.find("argocd app sync checkout-dev");
    assert!(terminate.is_some() && resync > terminate, "{hint}");
    assert!(!sync.pending, "a manual app's retries never sync the push");
    // With `retry.refresh` the next attempt takes the latest revision: waiting gets there.
    let refreshed = decide(SYNC_SUCCEEDED, &older_sync_retrying(true));
    assert!(refreshed.pending);
    refreshed.assert_hint_names(&["retry.refresh"]);
}

#[test]
fn a_pruned_entry_is_not_an_applied_one() {
    // `argocd app sync --prune` after the ConfigMap left git: the engine records it `Pruned`,
    // message `pruned` (gitops-engine `sync_context.go:1495-1515`); without prune it is
    // `PruneSkipped`, `ignored (requires pruning)`.
    let check = "{name: checkout-dev, order: [{kind: ConfigMap, name: checkout-config}, {kind: Deployment, name: checkout}]}";
    for (status, message, said) in [
        ("Pruned", "pruned", "it pruned it (pruned)"),
        (
            "PruneSkipped",
            "ignored (requires pruning)",
            "it left it (ignored (requires pruning))",
        ),
    ] {
        let mut rows = entries(&[CONFIG_UNCHANGED, DEPLOY_CONFIGURED]);
        rows[0]["status"] = json!(status);
        rows[0]["message"] = json!(message);
        let state = op(
            "Succeeded",
            "successfully synced (all tasks run)",
            PUSHED,
            rows,
        );
        let outcome = spec(check).decide(&at_push(state), None);
        assert_eq!(outcome.status, Status::Fail, "{outcome:?}");
        outcome.assert_says(said);
        assert_eq!(
            outcome.cause,
            Some(Cause::about(CauseId::NotApplied, "checkout-config"))
        );
    }
}
