//! Job ↔ operation, on states written from facts-2 §2–3 (the engine's and the controller's shapes).

use super::*;
use crate::outcome::Status;
use serde_json::{Value, json};

const NEW: &str = "9b7e4d2c0a5f41b7a3c2d1e0f9a8b7c6d5e4f3a2";
const OLD: &str = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";

fn job(name: &str, created: &str) -> Job {
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "checkout-dev", "creationTimestamp": created,
                     "annotations": {"argocd.argoproj.io/hook": "PreSync",
                                     "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation"}}
    }))
    .unwrap_or_default()
}

fn hook(name: &str, phase: &str, result: &str, message: &str) -> Value {
    json!({"group": "batch", "version": "v1", "kind": "Job", "namespace": "checkout-dev", "name": name,
           "hookType": phase, "syncPhase": phase, "hookPhase": result, "message": message})
}

/// An app whose last operation started at 10:14:58 and ran `NEW`; one successful full sync of
/// `OLD` at 10:00:00 in history.
fn app(op: Value) -> Application {
    let mut state = json!({"startedAt": "2026-05-02T10:14:58Z",
                           "operation": {"sync": {"revision": NEW}, "retry": {"limit": 5}}});
    if let (Some(state), Some(extra)) = (state.as_object_mut(), op.as_object()) {
        for (k, v) in extra {
            state.insert(k.clone(), v.clone());
        }
    }
    serde_json::from_value(json!({
        "spec": {"source": {"repoURL": "http://git.course.local/team-checkout/checkout-config.git", "targetRevision": "main"},
                 "syncPolicy": {"automated": {}}},
        "status": {
            "sync": {"status": "Synced", "revision": NEW},
            "history": [{"id": 1, "revision": OLD, "deployStartedAt": "2026-05-02T10:00:00Z",
                         "deployedAt": "2026-05-02T10:00:40Z"}],
            "operationState": state
        }
    }))
    .unwrap_or_default()
}

/// An operation that ended (or runs) in `phase` with `message`; its result, for `NEW`, lists
/// `resources`.
fn op(phase: &str, message: &str, resources: Value) -> Value {
    json!({"phase": phase, "message": message,
           "syncResult": {"revision": NEW, "resources": resources}})
}

/// The step's verdict on the Job `name` created at `created`, in the app's namespace.
fn outcome_of(name: &str, created: &str, app: &Application) -> Option<Outcome> {
    job_outcome(&job(name, created), app, "checkout-dev")
}

fn cause(outcome: &Option<Outcome>) -> Option<String> {
    outcome
        .as_ref()
        .and_then(|o| o.cause.as_ref())
        .map(|c| c.as_str().to_string())
}

#[test]
fn a_hook_listed_by_the_sync_and_created_after_it_started_counts() {
    for created in ["2026-05-02T10:14:58Z", "2026-05-02T10:14:59Z"] {
        let app = app(op(
            "Failed",
            "one or more synchronization tasks completed unsuccessfully",
            json!([hook(
                "checkout-migrate",
                "PreSync",
                "Failed",
                "Job has reached the specified backoff limit"
            )]),
        ));
        let j = job("checkout-migrate", created);
        assert_eq!(bind(&j, &app), Binding::ThisSync, "{created}");
        assert_eq!(job_outcome(&j, &app, "checkout-dev"), None);
    }
}

#[test]
fn a_job_kept_by_before_hook_creation_from_an_older_sync_fails_naming_that_sync() {
    // The new sync stopped before the hook ran; the Job is the one of the 10:00 sync of OLD.
    let app = app(op(
        "Failed",
        "one or more objects failed to apply",
        json!([]),
    ));
    let outcome = outcome_of("checkout-migrate", "2026-05-02T10:00:05Z", &app);
    assert_eq!(
        cause(&outcome).as_deref(),
        Some("job-from-earlier-sync:checkout-migrate")
    );
    let outcome = outcome.unwrap_or_else(|| Outcome::pass("wrong"));
    assert_eq!(outcome.status, Status::Fail);
    assert!(!outcome.pending);
    outcome.assert_says(
        "this Job is from an earlier sync (started 2026-05-02T10:00:00Z, revision 1a2b3c4)",
    );
    outcome.assert_hint_names(&[
        "argocd app sync checkout-dev",
        "argocd app wait checkout-dev",
    ]);
}

#[test]
fn an_older_job_the_sync_lists_was_re_applied_not_re_run() {
    let app = app(op(
        "Succeeded",
        "successfully synced (all tasks run)",
        json!([hook("checkout-migrate", "PreSync", "Succeeded", "")]),
    ));
    let outcome = outcome_of("checkout-migrate", "2026-05-02T10:00:05Z", &app)
        .unwrap_or_else(|| Outcome::pass("wrong"));
    assert_eq!(outcome.status, Status::Fail);
    assert!(outcome.diagnosis_text().contains("re-applied, not re-run"));
}

#[test]
fn last_failures_syncfail_job_while_a_new_sync_runs_is_pending_not_passed() {
    // facts-2 §2.4: the old notify Job is still there, the new operation has no SyncFail entry.
    let app = app(op(
        "Running",
        "waiting for completion of hook batch/Job/checkout-migrate",
        json!([hook("checkout-migrate", "PreSync", "Running", "")]),
    ));
    let outcome = outcome_of("checkout-sync-failed", "2026-05-02T09:40:00Z", &app);
    assert_eq!(
        cause(&outcome).as_deref(),
        Some("job-from-earlier-sync:checkout-sync-failed")
    );
    let outcome = outcome.unwrap_or_else(|| Outcome::pass("wrong"));
    assert!(outcome.pending);
    outcome.assert_hint_names(&["argocd app wait"]);
}

#[test]
fn a_retrying_operation_is_still_going_with_its_attempt_and_limit() {
    let cases = [
        // The retry window: the failed attempt's result is still shown.
        json!({"phase": "Running", "retryCount": 1, "finishedAt": "2026-05-02T10:15:40Z",
               "message": "one or more synchronization tasks completed unsuccessfully. Retrying attempt #1 at 10:15AM.",
               "syncResult": {"revision": NEW, "resources": [hook("checkout-migrate", "PreSync", "Failed", "Job has reached the specified backoff limit")]}}),
        // The next attempt started: syncResult cleared.
        json!({"phase": "Running", "retryCount": 1, "message": "Retrying operation. Attempt #1"}),
    ];
    for op in cases {
        let app = app(op);
        let j = job("checkout-migrate", "2026-05-02T10:14:59Z");
        assert_eq!(
            bind(&j, &app),
            Binding::Retrying {
                attempt: 1,
                limit: Some(5)
            }
        );
        let outcome = job_outcome(&j, &app, "checkout-dev");
        assert_eq!(cause(&outcome).as_deref(), Some("retrying"));
        let outcome = outcome.unwrap_or_else(|| Outcome::pass("wrong"));
        assert!(outcome.pending, "{outcome:?}");
        outcome.assert_says("retry 1 of 5");
        outcome.assert_hint_names(&["argocd app terminate-op checkout-dev"]);
    }
}

#[test]
fn a_selective_sync_keeps_the_evidence_of_the_full_sync_before_it() {
    // A self-heal of the Deployment at 11:00, after the full sync of NEW at 10:14:58.
    let mut app = app(
        json!({"phase": "Succeeded", "startedAt": "2026-05-02T11:00:00Z",
        "message": "successfully synced (all tasks run)",
        "operation": {"sync": {"revision": NEW, "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]}},
        "syncResult": {"revision": NEW, "resources": [
            {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "checkout-dev", "name": "checkout",
             "status": "Synced", "message": "deployment.apps/checkout configured", "hookPhase": "Running", "syncPhase": "Sync"}]}}),
    );
    let full_sync: HistoryEntry = serde_json::from_value(json!({"id": 2, "revision": NEW,
        "deployStartedAt": "2026-05-02T10:14:58Z", "deployedAt": "2026-05-02T10:15:40Z"}))
    .unwrap_or_default();
    app.status.history.push(full_sync);
    let j = job("checkout-migrate", "2026-05-02T10:14:59Z");
    assert!(matches!(bind(&j, &app), Binding::FullSyncBefore { .. }));
    assert_eq!(job_outcome(&j, &app, "checkout-dev"), None);
    // The neighbour: the last full sync in history ran OLD; the push of NEW never had one.
    app.status.history.pop();
    let old_job = job("checkout-migrate", "2026-05-02T10:00:05Z");
    let outcome = job_outcome(&old_job, &app, "checkout-dev");
    assert_eq!(
        cause(&outcome).as_deref(),
        Some("job-from-earlier-sync:checkout-migrate")
    );
    assert!(
        outcome.is_some_and(|o| o.status == Status::Fail && o.summary.contains("revision 1a2b3c4"))
    );
}

/// A sync ended before it finished, in the shapes Argo CD records: gitops-engine's `Terminate`
/// marks each hook it deleted `Succeeded`/`Deleted` (`Failed`/`Terminated` in later versions) and
/// ends the operation `Failed`/`Operation terminated` (`Error`/`Operation termination had
/// errors`); the controller's timeout first sets `Terminating`/`operation is terminating due to
/// timeout`, then appends `, triggered by controller sync timeout` (and the retries) to the end.
#[test]
fn a_sync_ended_by_terminate_op_or_the_timeout_is_named_for_what_ended_it_never_a_delete_policy() {
    let cases = [
        (
            "Failed",
            "Operation terminated",
            ("Succeeded", "Deleted"),
            "operation-terminated",
            false,
        ),
        (
            "Failed",
            "Operation terminated",
            ("Failed", "Terminated"),
            "operation-terminated",
            false,
        ),
        (
            "Error",
            "Operation termination had errors",
            ("Succeeded", "Deleted"),
            "operation-terminated",
            false,
        ),
        (
            "Terminating",
            "operation is terminating",
            ("Running", "waiting for completion of hook"),
            "operation-terminated",
            true,
        ),
        (
            "Failed",
            "Operation terminated, triggered by controller sync timeout",
            ("Succeeded", "Deleted"),
            "operation-timed-out",
            false,
        ),
        (
            "Failed",
            "Operation terminated, triggered by controller sync timeout (retried 1 times).",
            ("Failed", "Terminated"),
            "operation-timed-out",
            false,
        ),
        (
            "Terminating",
            "operation is terminating due to timeout",
            ("Running", ""),
            "operation-timed-out",
            true,
        ),
    ];
    for (phase, message, (result, entry), want, pending) in cases {
        let app = app(op(
            phase,
            message,
            json!([hook("checkout-migrate", "PreSync", result, entry)]),
        ));
        let expected = Some(want.to_string());
        let j = job("checkout-migrate", "2026-05-02T10:14:59Z");
        let outcome = job_outcome(&j, &app, "checkout-dev");
        if phase != "Terminating" {
            // A hook of this sync that the termination deleted.
            assert_eq!(cause(&outcome), expected, "{message}");
            let outcome = outcome.unwrap_or_else(|| Outcome::pass("wrong"));
            assert_eq!(
                (outcome.status, outcome.pending),
                (Status::Fail, pending),
                "{message}"
            );
            let said = format!(
                "{} {}",
                outcome.summary,
                outcome.diagnosis.unwrap_or_default()
            );
            assert!(!said.contains("delete policy"), "{message}: {said}");
        }
        // The Job gone: the termination explains it, whatever the check reads.
        let gone = missing_job_outcome(&app, "checkout-dev");
        assert_eq!(cause(&gone), expected, "{message}");
        assert_eq!(gone.map(|o| o.pending), Some(pending), "{message}");
    }
}

/// The neighbours: a sync that failed on its own, and one that succeeded, are not terminated,
/// and a hook entry saying `Deleted` of a sync nobody terminated is its delete policy's doing.
#[test]
fn a_failed_or_finished_sync_is_not_taken_for_a_terminated_one() {
    for (phase, message) in [
        (
            "Failed",
            "one or more synchronization tasks completed unsuccessfully",
        ),
        ("Succeeded", "successfully synced (no more tasks)"),
        ("Error", "one or more objects failed to apply"),
    ] {
        let app = app(op(
            phase,
            message,
            json!([hook("checkout-migrate", "PreSync", "Succeeded", "Deleted")]),
        ));
        assert_eq!(app.termination(), None, "{message}");
        assert_eq!(missing_job_outcome(&app, "checkout-dev"), None, "{message}");
        let entry = &app.sync_results()[0];
        assert!(
            why_hook_gone(&app, entry).contains("delete policy"),
            "{message}"
        );
    }
}

#[test]
fn a_job_created_during_the_sync_but_not_its_hook_says_nothing_about_it() {
    let app = app(op(
        "Succeeded",
        "successfully synced (all tasks run)",
        json!([]),
    ));
    let outcome = outcome_of("checkout-migrate", "2026-05-02T10:20:00Z", &app);
    assert_eq!(
        cause(&outcome).as_deref(),
        Some("job-not-a-hook-of-sync:checkout-migrate")
    );
}

#[test]
fn a_job_of_a_sync_of_an_older_revision_than_the_target_is_not_the_steps() {
    let mut app = app(
        json!({"phase": "Succeeded", "message": "successfully synced (all tasks run)",
        "operation": {"sync": {"revision": OLD}},
        "syncResult": {"revision": OLD, "resources": [hook("checkout-migrate", "PreSync", "Succeeded", "")]}}),
    );
    app.status.sync.status = Some("OutOfSync".to_string());
    let outcome = outcome_of("checkout-migrate", "2026-05-02T10:14:59Z", &app);
    assert_eq!(
        cause(&outcome).as_deref(),
        Some("job-from-earlier-sync:checkout-migrate")
    );
    // Auto-sync will start the sync of the target on its own: pending.
    assert!(outcome.is_some_and(|o| o.pending));
}

/// The app's last operation, started 10:14:58, carries `request` on top of `{revision: NEW}` and
/// succeeded with `resources`.
fn app_with_request(request: Value, resources: Value) -> Application {
    let mut sync = json!({"revision": NEW});
    if let (Some(sync), Some(extra)) = (sync.as_object_mut(), request.as_object()) {
        for (k, v) in extra {
            sync.insert(k.clone(), v.clone());
        }
    }
    app(
        json!({"phase": "Succeeded", "message": "successfully synced (all tasks run)",
               "operation": {"sync": sync, "retry": {"limit": 5}},
               "syncResult": {"revision": NEW, "resources": resources}}),
    )
}

#[test]
fn after_an_apply_strategy_sync_a_job_counts_only_if_a_sync_of_the_push_created_it() {
    // `argocd app sync --strategy apply` ran no hooks (controller/sync.go:386) but wrote history
    // (sync.go:483); the Job is tied to the successful sync running when it was created.
    let mut app = app_with_request(json!({"syncStrategy": {"apply": {}}}), json!([]));
    let from_old = outcome_of("checkout-migrate", "2026-05-02T10:00:05Z", &app);
    assert_eq!(cause(&from_old).as_deref(), Some("apply-strategy-sync"));
    assert!(from_old.is_some_and(|o| o.status == Status::Fail && o.summary.contains("1a2b3c4")));
    // Older than every sync the history keeps (a failed sync leaves no entry): still the apply
    // sync ran no hooks, so the Job is an earlier sync's, never "could not check".
    let before_history = outcome_of("checkout-migrate", "2026-05-02T09:00:00Z", &app);
    assert_eq!(
        cause(&before_history).as_deref(),
        Some("apply-strategy-sync")
    );
    assert_eq!(before_history.map(|o| o.status), Some(Status::Fail));
    let hook_sync_of_new: HistoryEntry = serde_json::from_value(json!({"id": 2, "revision": NEW,
        "deployStartedAt": "2026-05-02T10:10:00Z", "deployedAt": "2026-05-02T10:10:40Z"}))
    .unwrap_or_default();
    app.status.history.push(hook_sync_of_new);
    assert_eq!(
        outcome_of("checkout-migrate", "2026-05-02T10:10:02Z", &app),
        None
    );
    // Created while the apply sync ran: it is no hook of it.
    let during = outcome_of("checkout-migrate", "2026-05-02T10:15:00Z", &app);
    assert_eq!(
        cause(&during).as_deref(),
        Some("job-not-a-hook-of-sync:checkout-migrate")
    );
}

#[test]
fn a_dry_run_that_lists_the_hook_as_succeeded_created_no_job() {
    // The engine records a dry run's hooks as Succeeded (gitops-engine sync_context.go:1770-1776).
    let app = app_with_request(
        json!({"dryRun": true}),
        json!([hook(
            "checkout-migrate",
            "PreSync",
            "Succeeded",
            "job.batch/checkout-migrate created (dry run)"
        )]),
    );
    let after = outcome_of("checkout-migrate", "2026-05-02T10:15:00Z", &app);
    assert!(
        after.as_ref().is_some_and(|o| o.status == Status::Fail),
        "{after:?}"
    );
    // Older than any successful sync in the history, which holds none of NEW and is not full:
    // no sync of NEW that ran hooks is on record, so the dry run is named (issue 40).
    let before = outcome_of("checkout-migrate", "2026-05-02T09:00:00Z", &app);
    assert_eq!(cause(&before).as_deref(), Some("dry-run"));
    assert!(
        before.as_ref().is_some_and(|o| o.status == Status::Fail
            && o.diagnosis_text()
                .contains("holds no successful sync of 9b7e4d2")),
        "{before:?}"
    );
    // The history is full: the sync that created it may have fallen out.
    let mut full = app.clone();
    full.spec.revision_history_limit = Some(1);
    let trimmed = outcome_of("checkout-migrate", "2026-05-02T09:00:00Z", &full);
    assert!(trimmed.is_some_and(|o| {
        o.status == Status::Error
            && o.summary
                .contains("may have fallen out of the history (it keeps 1)")
    }));
}

#[test]
fn a_job_of_a_sync_of_local_files_is_not_of_the_commit() {
    let app = app_with_request(
        json!({"manifests": ["apiVersion: batch/v1\nkind: Job\nmetadata: {name: checkout-migrate}\n"]}),
        json!([hook(
            "checkout-migrate",
            "PreSync",
            "Succeeded",
            "Reached expected number of succeeded pods"
        )]),
    );
    let outcome = outcome_of("checkout-migrate", "2026-05-02T10:15:00Z", &app);
    assert_eq!(cause(&outcome).as_deref(), Some("local-sync"));
}

/// A self-heal (or a selective sync) at 11:00, the last operation, over a history of `entries`
/// kept up to `limit`; Argo CD targets NEW.
fn after_a_selective_operation(self_heal: bool, entries: Value, limit: Option<i64>) -> Application {
    let mut sync = json!({"revision": NEW,
        "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]});
    if self_heal {
        // `controller/appcontroller.go:2600-2618`: a self-heal is a selective sync of what drifted.
        sync["autoHealAttemptsCount"] = json!(1);
    }
    let mut app = app(
        json!({"phase": "Succeeded", "startedAt": "2026-05-02T11:00:00Z",
        "message": "successfully synced (all tasks run)",
        "operation": {"sync": sync},
        "syncResult": {"revision": NEW, "resources": [
            {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "checkout-dev", "name": "checkout",
             "status": "Synced", "message": "deployment.apps/checkout configured", "hookPhase": "Running", "syncPhase": "Sync"}]}}),
    );
    app.status.history = serde_json::from_value(entries).unwrap_or_default();
    app.spec.revision_history_limit = limit;
    app
}

fn entry(id: i64, revision: &str, started: &str, deployed: &str) -> Value {
    json!({"id": id, "revision": revision, "deployStartedAt": started, "deployedAt": deployed})
}

#[test]
fn after_a_selective_sync_or_self_heal_a_job_no_recorded_sync_of_the_push_made_fails_naming_it() {
    let old = entry(1, OLD, "2026-05-02T10:00:00Z", "2026-05-02T10:00:40Z");
    let new = entry(2, NEW, "2026-05-02T10:14:58Z", "2026-05-02T10:15:40Z");
    // (what happened, the history and its limit, when the Job was made, the status, the cause,
    // words the verdict holds)
    let cases = [
        (
            "the full sync of the push made it; the history holds that sync",
            json!([&old, &new]),
            None,
            "2026-05-02T10:14:59Z",
            None,
            None,
            "",
        ),
        (
            "made after the history's sync of the push had finished",
            json!([&old, &new]),
            None,
            "2026-05-02T10:20:00Z",
            Some(Status::Fail),
            Some("selective-sync"),
            "(started 2026-05-02T10:14:58Z, finished 2026-05-02T10:15:40Z) was not running",
        ),
        (
            "no sync of the push in the history, which is not full",
            json!([&old]),
            None,
            "2026-05-02T10:20:00Z",
            Some(Status::Fail),
            Some("selective-sync"),
            "holds no successful sync of 9b7e4d2",
        ),
        (
            "made by the full sync of the revision before the push",
            json!([&old]),
            None,
            "2026-05-02T10:00:05Z",
            Some(Status::Fail),
            Some("job-from-earlier-sync:checkout-migrate"),
            "revision 1a2b3c4",
        ),
        (
            "the history is full, and the Job is younger than the oldest sync it keeps",
            json!([&old]),
            Some(1),
            "2026-05-02T10:20:00Z",
            Some(Status::Fail),
            Some("selective-sync"),
            "no sync that fell out of the history made it",
        ),
        (
            "the history is full, and the Job is older than every sync it keeps",
            json!([&old]),
            Some(1),
            "2026-05-02T09:00:00Z",
            Some(Status::Error),
            Some("sync-unknown"),
            "may have fallen out of the history (it keeps 1)",
        ),
        (
            "made while the selective operation ran, which runs no hook",
            json!([&old, &new]),
            None,
            "2026-05-02T11:00:01Z",
            Some(Status::Fail),
            Some("job-not-a-hook-of-sync:checkout-migrate"),
            "not a hook of the last sync",
        ),
    ];
    for self_heal in [false, true] {
        for (did, history, limit, created, status, want_cause, says) in cases.clone() {
            let app = after_a_selective_operation(self_heal, history, limit);
            let outcome = outcome_of("checkout-migrate", created, &app);
            let said = |o: &Outcome| format!("{} {}", o.summary, o.diagnosis_text());
            assert_eq!(
                outcome.as_ref().map(|o| o.status),
                status,
                "{did} (self-heal {self_heal}): {outcome:?}"
            );
            assert_eq!(cause(&outcome).as_deref(), want_cause, "{did}: {outcome:?}");
            if let Some(o) = &outcome {
                assert!(said(o).contains(says), "{did}: {}", said(o));
            }
            if want_cause == Some("selective-sync") {
                let o = outcome.unwrap_or_else(|| Outcome::pass("wrong"));
                let named = if self_heal {
                    "a self-heal"
                } else {
                    "`argocd app sync --resource`"
                };
                assert!(o.summary.contains(named), "{did}: {}", o.summary);
                o.assert_hint_names(&["argocd app sync checkout-dev"]);
            }
        }
    }
}

#[test]
fn the_pushed_commits_time_settles_only_what_the_history_leaves_open() {
    // Unix seconds of the learner's commit, from their clone.
    let at = |t: &str| {
        t.parse::<k8s_openapi::jiff::Timestamp>()
            .map(|t| t.as_second())
            .unwrap_or_default()
    };
    let old = entry(1, OLD, "2026-05-02T10:00:00Z", "2026-05-02T10:00:40Z");
    // (the history's limit, when the Job was made, when the commit was made, whether the commit
    // settles it as "older than your commit")
    let cases = [
        // Not full: already a fail naming the operation; the commit words it more plainly.
        (None, "2026-05-02T10:20:00Z", "2026-05-02T10:30:00Z", true),
        (None, "2026-05-02T10:20:00Z", "2026-05-02T10:10:00Z", false),
        // Full, the Job older than every kept sync: only a commit younger than it tells.
        (
            Some(1),
            "2026-05-02T09:00:00Z",
            "2026-05-02T09:30:00Z",
            true,
        ),
        (
            Some(1),
            "2026-05-02T09:00:00Z",
            "2026-05-02T08:00:00Z",
            false,
        ),
    ];
    for (limit, created, committed, settled) in cases {
        let app = after_a_selective_operation(true, json!([&old]), limit);
        let found = older_than_the_commit(
            &job("checkout-migrate", created),
            &app,
            "checkout-dev",
            NEW,
            at(committed),
        );
        assert_eq!(found.is_some(), settled, "{limit:?} {created} {committed}");
        if let Some(o) = found {
            assert_eq!(o.status, Status::Fail);
            assert!(
                o.summary.contains("older than your commit 9b7e4d2"),
                "{}",
                o.summary
            );
        }
    }
}
