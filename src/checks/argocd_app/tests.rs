//! Pure tests of the `argocd_app` verdicts on Application shapes from the facts file (a7).

use serde_json::{Value, json};

use super::{ArgocdAppSpec, Pushed};
use crate::outcome::{Cause, CauseId, Status};
use crate::probe::cluster::argocd::Application;
use crate::probe::git::OriginView;

pub(super) const PUSHED: &str = "9b7e4d2c5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c";
pub(super) const OLD: &str = "3f2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b";

pub(super) fn spec(yaml: &str) -> ArgocdAppSpec {
    crate::yaml::testing::parsed(yaml)
}

pub(super) fn pushed() -> Pushed {
    Pushed {
        dir_shown: "~/work/checkout-config".to_string(),
        repo: "checkout-config".to_string(),
        head: PUSHED.to_string(),
        upstream: Some(PUSHED.to_string()),
        upstream_name: Some("origin/main".to_string()),
        origin: Some(OriginView {
            url: Some("git@git.course.local:team-checkout/checkout-config.git".to_string()),
            default_branch: Some("main".to_string()),
            branches: vec!["main".to_string()],
            containing: vec!["main".to_string()],
        }),
    }
}

/// The entries of the module-10 story (migrate, config, rollout, smoke test, SyncFail hook).
#[rustfmt::skip]
pub(super) mod rows {
    /// A syncResult entry as a row: kind, name, sync phase, hook?, hookPhase, message.
    pub(in crate::checks::argocd_app) type Row = (&'static str, &'static str, &'static str, bool, &'static str, &'static str);

    const REACHED: &str = "Reached expected number of succeeded pods";
    const BACKOFF: &str = "Job has reached the specified backoff limit";

    pub(in crate::checks::argocd_app) const MIGRATE_OK: Row = ("Job", "checkout-migrate", "PreSync", true, "Succeeded", REACHED);
    pub(in crate::checks::argocd_app) const MIGRATE_FAILED: Row = ("Job", "checkout-migrate", "PreSync", true, "Failed", BACKOFF);
    pub(in crate::checks::argocd_app) const CONFIG_UNCHANGED: Row = ("ConfigMap", "checkout-config", "Sync", false, "Succeeded", "configmap/checkout-config unchanged");
    pub(in crate::checks::argocd_app) const DEPLOY_CONFIGURED: Row = ("Deployment", "checkout", "Sync", false, "Succeeded", "deployment.apps/checkout configured");
    pub(in crate::checks::argocd_app) const DEPLOY_UNCHANGED: Row = ("Deployment", "checkout", "Sync", false, "Succeeded", "deployment.apps/checkout unchanged");
    pub(in crate::checks::argocd_app) const DEPLOY_ROLLING: Row = ("Deployment", "checkout", "Sync", false, "Running", "deployment.apps/checkout configured");
    pub(in crate::checks::argocd_app) const SMOKE_OK: Row = ("Job", "checkout-smoke-test", "PostSync", true, "Succeeded", REACHED);
    pub(in crate::checks::argocd_app) const SMOKE_FAILED: Row = ("Job", "checkout-smoke-test", "PostSync", true, "Failed", BACKOFF);
    pub(in crate::checks::argocd_app) const SYNC_FAILED_HOOK_OK: Row = ("Job", "checkout-sync-failed", "SyncFail", true, "Succeeded", REACHED);
}
use rows::*;

/// syncResult entries in the shape Argo CD writes them (group, version, hookType for hooks).
pub(super) fn entries(rows: &[Row]) -> Vec<Value> {
    rows.iter()
        .map(|&(kind, name, phase, hook, hook_phase, message)| {
            entry(kind, name, phase, hook, hook_phase, message)
        })
        .collect()
}

pub(super) fn entry(
    kind: &str,
    name: &str,
    phase: &str,
    hook: bool,
    hook_phase: &str,
    message: &str,
) -> Value {
    let group = match kind {
        "Job" => "batch",
        "Deployment" => "apps",
        _ => "",
    };
    let mut e = json!({"group": group, "version": "v1", "kind": kind, "namespace": "checkout-dev",
        "name": name, "syncPhase": phase, "hookPhase": hook_phase, "message": message});
    if hook {
        e["hookType"] = json!(phase);
    } else {
        e["status"] = json!("Synced");
    }
    e
}

pub(super) fn app(sync: &str, health: &str, revision: &str, op: Option<Value>) -> Application {
    let mut status = json!({
        "sync": {"status": sync, "revision": revision},
        "health": {"status": health},
    });
    if let Some(op) = op {
        status["operationState"] = op;
    }
    serde_json::from_value(json!({
        "metadata": {"name": "checkout-dev", "namespace": "argocd"},
        "spec": {"destination": {"namespace": "checkout-dev"}},
        "status": status
    }))
    .unwrap_or_default()
}

pub(super) fn op(phase: &str, message: &str, revision: &str, resources: Vec<Value>) -> Value {
    json!({"phase": phase, "message": message, "startedAt": "2026-05-02T10:14:58Z",
        "operation": {"sync": {"revision": revision}},
        "syncResult": {"revision": revision, "resources": resources}})
}

pub(super) fn succeeded_sync(revision: &str) -> Value {
    op(
        "Succeeded",
        "successfully synced (no more tasks)",
        revision,
        entries(&[MIGRATE_OK, CONFIG_UNCHANGED, DEPLOY_CONFIGURED, SMOKE_OK]),
    )
}

pub(super) fn presync_failed(revision: &str) -> Value {
    op(
        "Failed",
        "one or more synchronization tasks completed unsuccessfully",
        revision,
        entries(&[MIGRATE_FAILED, SYNC_FAILED_HOOK_OK]),
    )
}

/// A sync of `revision` between attempts: its migration failed, and Argo CD retries the sync
/// (attempt 2 of 5) after a back-off.
pub(super) fn retrying(revision: &str) -> Value {
    let mut state = op(
        "Running",
        "one or more synchronization tasks completed unsuccessfully. Retrying attempt #2 at 10:16AM.",
        revision,
        entries(&[MIGRATE_FAILED]),
    );
    state["retryCount"] = json!(2);
    state["finishedAt"] = json!("2026-05-02T10:16:10Z");
    state["operation"]["retry"] = json!({"limit": 5});
    state
}

fn postsync_failed(revision: &str, sync_fail_ran: bool) -> Value {
    let mut resources = entries(&[MIGRATE_OK, CONFIG_UNCHANGED, DEPLOY_UNCHANGED, SMOKE_FAILED]);
    if sync_fail_ran {
        resources.extend(entries(&[SYNC_FAILED_HOOK_OK]));
    }
    op(
        "Failed",
        "one or more synchronization tasks completed unsuccessfully",
        revision,
        resources,
    )
}

#[test]
fn a_synced_healthy_app_at_the_pushed_revision_passes() {
    let s =
        spec("{name: checkout-dev, sync: Synced, health: Healthy, revision_of: checkout-config}");
    let outcome = s.decide(
        &app("Synced", "Healthy", PUSHED, Some(succeeded_sync(PUSHED))),
        Some(&pushed()),
    );
    assert_eq!(outcome.status, Status::Pass, "{outcome:?}");
    assert!(outcome.summary.contains("9b7e4d2"));
}

#[test]
fn pushed_but_not_seen_by_argo_cd_fails_with_a_hint_to_refresh() {
    let s = spec("{name: checkout-dev, sync: Synced, revision_of: checkout-config}");
    let outcome = s.decide(
        &app("Synced", "Healthy", OLD, Some(succeeded_sync(OLD))),
        Some(&pushed()),
    );
    assert_eq!(outcome.status, Status::Fail);
    assert!(outcome.pending, "Argo CD may still poll git");
    assert_eq!(
        outcome.summary,
        "Argo CD is still at 3f2a1c0, you pushed 9b7e4d2"
    );
    outcome.assert_hint_names(&["argocd app get checkout-dev --refresh"]);
    assert!(
        outcome
            .diagnosis_text()
            .contains("Argo CD saw it [BROKEN: at 3f2a1c0]")
    );
}

#[test]
fn committed_but_not_pushed_fails_with_a_hint_to_push() {
    let s = spec("{name: checkout-dev, sync: Synced, revision_of: checkout-config}");
    let not_pushed = Pushed {
        dir_shown: "~/work/checkout-config".to_string(),
        upstream: Some(OLD.to_string()),
        ..pushed()
    };
    let outcome = s.decide(&app("Synced", "Healthy", OLD, None), Some(&not_pushed));
    assert_eq!(outcome.status, Status::Fail);
    assert!(!outcome.pending);
    outcome.assert_hint_names(&["git push"]);
}

#[test]
fn hooks_switched_on_but_never_synced_fails_with_a_hint_to_sync() {
    // Step 2: adding hooks changes nothing Argo CD compares, so the app is Synced at the new
    // revision while the last operation is an older one.
    let s = spec("{name: checkout-dev, revision_of: checkout-config, phase: Succeeded}");
    let outcome = s.decide(
        &app("Synced", "Healthy", PUSHED, Some(succeeded_sync(OLD))),
        Some(&pushed()),
    );
    assert_eq!(outcome.status, Status::Fail);
    assert_eq!(
        outcome.summary,
        "the last sync of checkout-dev ran 3f2a1c0, not your push 9b7e4d2"
    );
    outcome.assert_hint_names(&["argocd app sync checkout-dev"]);
}

#[test]
fn a_sync_still_running_is_a_failure_in_progress() {
    let s = spec("{name: checkout-dev, phase: [Failed, Error]}");
    let running = op(
        "Running",
        "waiting for completion of hook batch/Job/checkout-migrate",
        PUSHED,
        entries(&[("Job", "checkout-migrate", "PreSync", true, "Running", "")]),
    );
    let outcome = s.decide(&app("OutOfSync", "Healthy", PUSHED, Some(running)), None);
    assert_eq!(outcome.status, Status::Fail);
    assert!(outcome.pending);
}

#[test]
fn a_failed_presync_migration_passes_step_4_through_the_hook_entry_not_the_message() {
    let s = spec(
        "{name: checkout-dev, revision_of: checkout-config, phase: [Failed, Error], hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Failed}}",
    );
    let outcome = s.decide(
        &app("OutOfSync", "Healthy", PUSHED, Some(presync_failed(PUSHED))),
        Some(&pushed()),
    );
    assert_eq!(outcome.status, Status::Pass, "{outcome:?}");
    assert!(
        outcome
            .summary
            .contains("Job has reached the specified backoff limit")
    );
}

#[test]
fn a_message_check_for_presync_explains_the_generic_message() {
    let s = spec("{name: checkout-dev, message: PreSync}");
    let outcome = s.decide(
        &app("OutOfSync", "Healthy", PUSHED, Some(presync_failed(PUSHED))),
        None,
    );
    assert_eq!(outcome.status, Status::Fail);
    let diagnosis = outcome.diagnosis.unwrap_or_default();
    assert!(
        diagnosis.contains("The sync stopped in PreSync: Job checkout-migrate (PreSync) failed"),
        "{diagnosis}"
    );
    assert!(diagnosis.contains("generic"));
}

#[test]
fn postsync_failed_while_healthy_names_the_smoke_test_and_the_syncfail_hook() {
    let s = spec("{name: checkout-dev, phase: Succeeded}");
    let outcome = s.decide(
        &app(
            "Synced",
            "Healthy",
            PUSHED,
            Some(postsync_failed(PUSHED, true)),
        ),
        None,
    );
    assert_eq!(outcome.status, Status::Fail);
    assert!(!outcome.pending);
    let diagnosis = outcome.diagnosis.unwrap_or_default();
    assert!(
        diagnosis.contains("the PostSync hook Job checkout-smoke-test (PostSync) failed"),
        "{diagnosis}"
    );
    assert!(diagnosis.contains("Synced and Healthy because hooks count for neither"));
    assert!(diagnosis.contains("The SyncFail hook checkout-sync-failed ran: Succeeded."));
}

#[test]
fn syncfail_hook_that_never_ran_fails_the_break_stage() {
    let s = spec(
        "{name: checkout-dev, phase: Failed, hook: {kind: Job, name: checkout-sync-failed, phase: SyncFail, result: Succeeded}}",
    );
    let outcome = s.decide(
        &app(
            "Synced",
            "Healthy",
            PUSHED,
            Some(postsync_failed(PUSHED, false)),
        ),
        None,
    );
    assert_eq!(outcome.status, Status::Fail);
    assert_eq!(
        outcome.summary,
        "the last sync of checkout-dev did not run Job checkout-sync-failed (SyncFail)"
    );
    assert!(outcome.diagnosis_text().contains("No SyncFail hook ran."));
}

#[test]
fn v3_4_hook_entries_with_status_synced_read_the_same() {
    let mut op = presync_failed(PUSHED);
    op["syncResult"]["resources"][0]["status"] = json!("Synced");
    let s = spec(
        "{name: checkout-dev, hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Failed}}",
    );
    assert_eq!(
        s.decide(&app("OutOfSync", "Healthy", PUSHED, Some(op)), None)
            .status,
        Status::Pass
    );
}

#[test]
fn the_order_of_the_last_sync_is_read_by_name_and_phase() {
    let s = spec(
        "{name: checkout-dev, order: [{kind: Job, name: checkout-migrate, phase: PreSync}, {kind: ConfigMap, name: checkout-config}, {kind: Deployment, name: checkout}, {kind: Job, name: checkout-smoke-test, phase: PostSync}]}",
    );
    let ok = s.decide(
        &app("Synced", "Healthy", PUSHED, Some(succeeded_sync(PUSHED))),
        None,
    );
    assert_eq!(ok.status, Status::Pass, "{ok:?}");

    let mut swapped = succeeded_sync(PUSHED);
    let resources = swapped["syncResult"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    swapped["syncResult"]["resources"] =
        json!([resources[0], resources[2], resources[1], resources[3]]);
    let bad = s.decide(&app("Synced", "Healthy", PUSHED, Some(swapped)), None);
    assert_eq!(bad.status, Status::Fail);
    assert_eq!(
        bad.summary,
        "the last sync applied Deployment checkout before ConfigMap checkout-config"
    );
}

#[test]
fn a_progressing_app_is_waited_for() {
    let s = spec("{name: checkout-dev, health: Healthy}");
    let outcome = s.decide(&app("Synced", "Progressing", PUSHED, None), None);
    assert_eq!(outcome.status, Status::Fail);
    assert!(outcome.pending);
}

#[test]
fn words_argo_cd_does_not_use_are_rejected_at_load() {
    for bad in [
        "{name: a, sync: synced}",
        "{name: a, phase: [Failed, Broken]}",
        "{name: a, hook: {kind: Job, name: b, phase: Presync}}",
        "{name: a, colour: red}",
        "{name: a, order: [{kind: Job, name: b}]}",
    ] {
        assert!(
            serde_yaml::from_str::<ArgocdAppSpec>(bad).is_err(),
            "{bad} should be rejected"
        );
    }
}

/// facts-2 §1.5 (b): chart from a Helm repo, values from the work repo (`ref: values`), after a
/// v3.2+ auto-sync; `values_first` swaps the order of the sources (and so of the revisions).
pub(super) fn multi_source(values_first: bool, values_rev: &str) -> Application {
    let (sources, revisions) =
        crate::checks::test_sources::chart_and_values(values_first, values_rev);
    serde_json::from_value(json!({
        "metadata": {"name": "checkout-dev", "namespace": "argocd"},
        "spec": {"sources": sources, "destination": {"namespace": "checkout-dev"}},
        "status": {
            "sync": {"status": "Synced", "revisions": revisions,
                     "comparedTo": {"source": {"repoURL": ""}, "sources": sources}},
            "health": {"status": "Healthy"},
            "operationState": {"phase": "Succeeded", "message": "successfully synced (all tasks run)",
                "startedAt": "2026-05-02T10:14:58Z", "finishedAt": "2026-05-02T10:15:40Z",
                "operation": {"sync": {"revisions": revisions, "sources": sources}},
                "syncResult": {"revision": "", "revisions": revisions, "source": {"repoURL": ""},
                               "sources": sources, "resources": entries(&[MIGRATE_OK])}}
        }
    }))
    .unwrap_or_default()
}

#[test]
fn a_multi_source_app_passes_whatever_the_order_of_its_sources() {
    let s = spec(
        "{name: checkout-dev, revision_of: checkout-config, sync: Synced, health: Healthy, phase: Succeeded,
          hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Succeeded}}",
    );
    for values_first in [false, true] {
        let outcome = s.decide(&multi_source(values_first, PUSHED), Some(&pushed()));
        assert_eq!(
            outcome.status,
            Status::Pass,
            "values first {values_first}: {outcome:?}"
        );
        outcome.assert_says("at 9b7e4d2");
    }
}

#[test]
fn a_multi_source_app_at_an_older_values_commit_is_not_seen_yet() {
    let s = spec("{name: checkout-dev, revision_of: checkout-config, sync: Synced}");
    for values_first in [false, true] {
        let outcome = s.decide(&multi_source(values_first, OLD), Some(&pushed()));
        assert_eq!(outcome.status, Status::Fail);
        assert_eq!(outcome.cause, Some(Cause::new(CauseId::NotSeenYet)));
        // The chart version is not mistaken for the work repo's revision.
        outcome.assert_says("still at 3f2a1c0");
    }
}

#[test]
fn revisions_that_do_not_match_the_sources_are_not_read() {
    let mut app = multi_source(true, PUSHED);
    app.status.sync.revisions.truncate(1);
    let outcome = spec("{name: checkout-dev, revision_of: checkout-config, sync: Synced}")
        .decide(&app, Some(&pushed()));
    assert_eq!(outcome.status, Status::Error);
    assert_eq!(
        outcome.cause,
        Some(Cause::new(CauseId::RevisionsUnreadable))
    );
}

#[test]
fn pushed_to_a_feature_branch_names_the_branch_argo_cd_follows() {
    let on_feature = Pushed {
        upstream_name: Some("origin/feature".to_string()),
        origin: Some(OriginView {
            url: Some("/tmp/lab/remotes/checkout-config.git".to_string()),
            default_branch: Some("main".to_string()),
            branches: vec!["feature".to_string(), "main".to_string()],
            containing: vec!["feature".to_string()],
        }),
        ..pushed()
    };
    let s = spec("{name: checkout-dev, revision_of: checkout-config, sync: Synced}");
    let mut app = app("Synced", "Healthy", OLD, Some(succeeded_sync(OLD)));
    app.spec.source = serde_json::from_value(json!({
        "repoURL": "http://git.course.local/team-checkout/checkout-config.git", "targetRevision": "HEAD"}))
    .ok();
    let outcome = s.decide(&app, Some(&on_feature));
    assert_eq!(outcome.status, Status::Fail);
    assert_eq!(
        outcome.summary,
        "pushed to `feature`, but checkout-dev follows `main`"
    );
    assert_eq!(
        outcome.cause,
        Some(Cause::about(CauseId::PushedElsewhere, "feature"))
    );
    let diagnosis = outcome.diagnosis.unwrap_or_default();
    assert!(
        diagnosis.contains("pushed [BROKEN: to `feature`, but checkout-dev follows `main`]"),
        "{diagnosis}"
    );
    // The same push to main passes that link.
    assert_eq!(
        s.decide(&app, Some(&pushed())).cause,
        Some(Cause::new(CauseId::NotSeenYet))
    );
}

#[test]
fn a_retrying_sync_is_still_going_not_failed() {
    let s = spec(
        "{name: checkout-dev, revision_of: checkout-config, phase: [Failed, Error],
                   hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Failed}}",
    );
    let outcome = s.decide(
        &app("OutOfSync", "Healthy", PUSHED, Some(retrying(PUSHED))),
        Some(&pushed()),
    );
    assert_eq!(outcome.status, Status::Fail);
    assert!(outcome.pending);
    assert_eq!(outcome.cause, Some(Cause::new(CauseId::Retrying)));
    outcome.assert_says("retry 2 of 5");
    outcome.assert_hint_names(&["terminate-op"]);
}

#[test]
fn a_terminated_sync_does_not_pass_as_the_failed_sync_of_step_4() {
    let s = spec("{name: checkout-dev, revision_of: checkout-config, phase: [Failed, Error]}");
    let state = op(
        "Failed",
        "Operation terminated",
        PUSHED,
        entries(&[(
            "Job",
            "checkout-migrate",
            "PreSync",
            true,
            "Succeeded",
            "Deleted",
        )]),
    );
    let outcome = s.decide(
        &app("OutOfSync", "Healthy", PUSHED, Some(state)),
        Some(&pushed()),
    );
    assert_eq!(outcome.status, Status::Fail);
    assert_eq!(
        outcome.cause,
        Some(Cause::new(CauseId::OperationTerminated))
    );
    assert!(
        !outcome
            .own_hint()
            .unwrap_or_default()
            .contains("delete policy")
    );
}

#[test]
fn degraded_after_a_failed_sync_names_the_resource_and_does_not_say_start_a_sync() {
    let s = spec("{name: checkout-dev, revision_of: checkout-config, health: Healthy}");
    let mut app = app(
        "Synced",
        "Degraded",
        PUSHED,
        Some(op(
            "Failed",
            "one or more synchronization tasks completed unsuccessfully",
            PUSHED,
            entries(&[DEPLOY_ROLLING]),
        )),
    );
    app.status.resources = serde_json::from_value(json!([
        {"group": "apps", "kind": "Deployment", "namespace": "checkout-dev", "name": "checkout", "status": "Synced",
         "health": {"status": "Degraded", "message": "Deployment \"checkout\" exceeded its progress deadline"}},
        {"kind": "ConfigMap", "namespace": "checkout-dev", "name": "checkout-config", "status": "Synced", "health": {"status": "Healthy"}}
    ]))
    .unwrap_or_default();
    let outcome = s.decide(&app, Some(&pushed()));
    assert_eq!(
        outcome.cause,
        Some(Cause::about(CauseId::AppDegraded, "Deployment/checkout"))
    );
    assert!(!outcome.pending);
    assert!(outcome.diagnosis.clone().unwrap_or_default().contains(
        "Deployment checkout: Degraded (Deployment \"checkout\" exceeded its progress deadline)"
    ));
    assert!(
        !outcome
            .own_hint()
            .unwrap_or_default()
            .contains("argocd app sync")
    );
}

#[test]
fn a_failed_sync_without_its_syncfail_hook_names_the_missing_hook_not_a_resync() {
    let s = spec(
        "{name: checkout-dev, hook: {kind: Job, name: checkout-sync-failed, phase: SyncFail}}",
    );
    let state = op(
        "Failed",
        "one or more synchronization tasks completed unsuccessfully",
        PUSHED,
        entries(&[SMOKE_FAILED]),
    );
    let outcome = s.decide(&app("Synced", "Healthy", PUSHED, Some(state)), None);
    assert_eq!(
        outcome.cause,
        Some(Cause::about(
            CauseId::SyncfailHookMissing,
            "checkout-sync-failed"
        ))
    );
    let hint = outcome.own_hint().unwrap_or_default();
    assert!(
        hint.contains("argocd.argoproj.io/hook: SyncFail") && !hint.contains("argocd app sync"),
        "{hint}"
    );
}

#[test]
fn while_a_sync_runs_the_hint_is_to_wait_or_terminate_never_to_sync() {
    let s = spec("{name: checkout-dev, revision_of: checkout-config, phase: Succeeded}");
    let state = op(
        "Running",
        "waiting for completion of hook batch/Job/checkout-migrate",
        PUSHED,
        vec![],
    );
    let outcome = s.decide(
        &app("OutOfSync", "Healthy", PUSHED, Some(state)),
        Some(&pushed()),
    );
    assert!(outcome.pending);
    outcome.assert_hint_names(&[
        "argocd app wait checkout-dev",
        "argocd app terminate-op checkout-dev",
    ]);
}

#[test]
fn the_app_of_apps_is_found_by_the_childs_tracking_and_name_or_parent_of_is_required() {
    let child: Application = serde_json::from_value(json!({"metadata": {"name": "projects", "namespace": "argocd",
        "annotations": {"argocd.argoproj.io/tracking-id": "platform:argoproj.io/Application:argocd/projects"}}}))
    .unwrap_or_default();
    assert_eq!(child.metadata.managed_by().as_deref(), Some("platform"));
    let by_label: Application = serde_json::from_value(json!({"metadata": {"name": "projects",
        "labels": {"app.kubernetes.io/instance": "platform"}}}))
    .unwrap_or_default();
    assert_eq!(by_label.metadata.managed_by().as_deref(), Some("platform"));
    let parsed: Result<ArgocdAppSpec, _> = serde_yaml::from_str(
        "{parent_of: projects, order: [{kind: Application, name: projects}, {kind: Application, name: checkout-dev}]}",
    );
    assert!(parsed.is_ok_and(|s| s.parent_of && s.name == "projects"));
    for bad in ["{sync: Synced}", "{name: a, parent_of: b}"] {
        assert!(serde_yaml::from_str::<ArgocdAppSpec>(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_self_heal_after_the_full_sync_fails_a_hook_check_naming_it_never_could_not_check() {
    let s = spec(
        "{name: checkout-dev, hook: {kind: Job, name: checkout-migrate, phase: PreSync, result: Succeeded}}",
    );
    let mut state = op(
        "Succeeded",
        "successfully synced (all tasks run)",
        PUSHED,
        entries(&[DEPLOY_ROLLING]),
    );
    // A self-heal as the controller builds it (`controller/appcontroller.go:2600-2618`): only the
    // drifted resources, `autoHealAttemptsCount`, initiated by the controller; it follows a
    // successful full sync of the same revision, which history keeps (`controller/sync.go:483`).
    state["operation"]["sync"]["resources"] =
        json!([{"group": "apps", "kind": "Deployment", "name": "checkout"}]);
    state["operation"]["sync"]["autoHealAttemptsCount"] = json!(1);
    state["operation"]["initiatedBy"] = json!({"automated": true});
    let mut healed = app("Synced", "Healthy", PUSHED, Some(state));
    healed.status.history = serde_json::from_value(json!([{"id": 4, "revision": PUSHED,
        "deployStartedAt": "2026-05-02T10:10:00Z", "deployedAt": "2026-05-02T10:10:40Z"}]))
    .unwrap_or_default();
    let outcome = s.decide(&healed, None);
    // Every read succeeded: the self-heal replaced the hooks' record (issue 40), a fail naming it.
    assert_eq!(outcome.status, Status::Fail, "{outcome:?}");
    assert_eq!(outcome.cause, Some(Cause::new(CauseId::SelectiveSync)));
    outcome.assert_says("a self-heal");
    assert!(
        outcome
            .summary
            .contains("started 2026-05-02T10:10:00Z, succeeded"),
        "{}",
        outcome.summary
    );
}
