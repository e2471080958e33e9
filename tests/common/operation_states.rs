//! Module 10's checkout-dev with its last operation rewritten as Argo CD writes each shape (issue
//! 22 §2, issue 40): shared by the tests on `labcheck serve` (tests/labcheck/operations*.rs) and
//! on the real API server (tests/real_apiserver/operations_named.rs), so both judge one state.
//! `SyncOperation` (`pkg/apis/application/v1alpha1/types.go:1422-1449`), history only for
//! successful non-dry-run non-selective syncs (`controller/sync.go:483`), a dry run's entries
//! (`gitops-engine/pkg/sync/sync_context.go:1770-1776`), an apply the API server refused
//! (`sync_context.go:700-716`, `pkg/utils/kube/kube.go:223-239`).

#![allow(dead_code, reason = "each test binary uses its part")]

use labcheck::lab::cluster::{self, Revisions};
use labcheck::snapshot::Snapshot;
use serde_json::{Value, json};

/// A syncResult entry as the engine writes it (facts a7).
pub(crate) fn entry(
    kind: &str,
    name: &str,
    phase: &str,
    hook: bool,
    result: &str,
    message: &str,
) -> Value {
    let group = match kind {
        "Job" => "batch",
        "Deployment" => "apps",
        _ => "",
    };
    let mut e = json!({"group": group, "version": "v1", "kind": kind, "namespace": "checkout-dev",
        "name": name, "syncPhase": phase, "hookPhase": result, "message": message});
    if hook {
        e["hookType"] = json!(phase);
    } else {
        e["status"] = json!("Synced");
    }
    e
}

/// A hook Job's entry that ended Succeeded, with `message`.
pub(crate) fn hook(name: &str, phase: &str, message: &str) -> Value {
    entry("Job", name, phase, true, "Succeeded", message)
}

/// A sync of checkout's Deployment alone (`argocd app sync --resource apps:Deployment:checkout`).
pub(crate) fn selective_sync() -> Value {
    json!({"resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]})
}

/// `snapshot` without its Jobs and pods (deleted by hand, or by a HookSucceeded policy).
pub(crate) fn jobs_gone(snapshot: &mut Snapshot) {
    snapshot
        .objects
        .retain(|o| o["kind"] != "Job" && o["kind"] != "Pod");
}

/// `snapshot` with its Jobs made before the learner's commit existed.
pub(crate) fn jobs_made_before_the_commit(snapshot: &mut Snapshot) {
    for job in snapshot.objects.iter_mut().filter(|o| o["kind"] == "Job") {
        job["metadata"]["creationTimestamp"] = json!("2024-12-01T00:00:00Z");
    }
}

/// An entry of the Sync phase that is no hook, ended `result` with `message`.
fn synced(kind: &str, name: &str, result: &str, message: &str) -> Value {
    entry(kind, name, "Sync", false, result, message)
}

pub(crate) fn plain_entries() -> Vec<Value> {
    vec![
        synced(
            "ConfigMap",
            "checkout-config",
            "Succeeded",
            "configmap/checkout-config unchanged",
        ),
        synced(
            "Deployment",
            "checkout",
            "Running",
            "deployment.apps/checkout unchanged",
        ),
    ]
}

/// A dry run of the push: every task listed as Succeeded, `(dry run)` in each message.
pub(crate) fn dry_run_entries() -> Vec<Value> {
    vec![
        hook(
            "checkout-migrate",
            "PreSync",
            "job.batch/checkout-migrate created (dry run)",
        ),
        synced(
            "ConfigMap",
            "checkout-config",
            "Succeeded",
            "configmap/checkout-config configured (dry run)",
        ),
        synced(
            "Deployment",
            "checkout",
            "Succeeded",
            "deployment.apps/checkout configured (dry run)",
        ),
        hook(
            "checkout-smoke-test",
            "PostSync",
            "job.batch/checkout-smoke-test created (dry run)",
        ),
    ]
}

/// The hooks alone: what a sync with `ApplyOutOfSyncOnly=true` lists when the ConfigMap and the
/// Deployment were already Synced.
pub(crate) fn hooks_only_entries() -> Vec<Value> {
    let done = "Reached expected number of succeeded pods";
    vec![
        hook("checkout-migrate", "PreSync", done),
        hook("checkout-smoke-test", "PostSync", done),
    ]
}

/// checkout-dev in the Application of `snapshot`.
pub(crate) fn app_of(snapshot: &mut Snapshot) -> &mut Value {
    snapshot
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "Application" && o["metadata"]["name"] == "checkout-dev")
        .expect("checkout-dev in the snapshot")
}

/// `point`'s solved state (as Argo CD recorded it), with checkout-dev's last operation made
/// `request` (merged over the recorded sync: a `revision` in it names the values source's
/// revision, as `argocd app sync --revision` does for a multi-source app's values) ending
/// Succeeded with `resources`, an hour after the recorded operation ended (a later operation
/// than the sync Argo CD recorded), and `history` as given.
pub(crate) fn state_with(
    revs: &Revisions,
    point: &str,
    request: Value,
    resources: Vec<Value>,
    history: Option<Value>,
) -> Snapshot {
    let mut snapshot = cluster::solved(point, revs).expect("a fixture state");
    let pushed = revs.pushed("checkout-config").expect("a push").to_string();
    let app = app_of(&mut snapshot);
    let recorded = app["status"]["operationState"].clone();
    let mut sync = recorded["operation"]["sync"].clone();
    let mut revisions = recorded["syncResult"]["revisions"].clone();
    for (k, v) in request.as_object().into_iter().flatten() {
        if k == "revision" {
            for list in [&mut sync["revisions"], &mut revisions] {
                for revision in list.as_array_mut().into_iter().flatten() {
                    if *revision == pushed.as_str() {
                        *revision = v.clone();
                    }
                }
            }
        } else {
            sync[k] = v.clone();
        }
    }
    let mut operation = recorded["operation"].clone();
    operation["sync"] = sync;
    app["status"]["operationState"] = json!({
        "phase": "Succeeded", "message": "successfully synced (all tasks run)",
        "startedAt": after(&recorded["finishedAt"], 3600), "finishedAt": after(&recorded["finishedAt"], 3605),
        "operation": operation,
        "syncResult": recorded["syncResult"]});
    // Argo CD's own fields of the result (`revision: ""` and an empty `source` beside a
    // multi-source app's `revisions`, which the CRD requires) stay as recorded.
    let result = &mut app["status"]["operationState"]["syncResult"];
    result["revisions"] = revisions;
    result["resources"] = Value::Array(resources);
    if let Some(history) = history {
        app["status"]["history"] = history;
    }
    snapshot
}

/// The RFC 3339 time `seconds` after `time`.
fn after(time: &Value, seconds: i64) -> String {
    let at: jiff::Timestamp = time
        .as_str()
        .and_then(|t| t.parse().ok())
        .expect("the recorded operation's times");
    (at + jiff::SignedDuration::from_secs(seconds)).to_string()
}

/// The time `seconds` after `point`'s recorded last operation ended.
pub(crate) fn after_the_recorded_sync(revs: &Revisions, point: &str, seconds: i64) -> String {
    let mut snapshot = cluster::solved(point, revs).expect("a fixture state");
    let finished = app_of(&mut snapshot)["status"]["operationState"]["finishedAt"].clone();
    after(&finished, seconds)
}

/// `point`'s recorded history entry of the push's sync, made a sync of `revision` of
/// checkout-config; with `seconds`, one that ran that long after the recorded operation ended.
pub(crate) fn history_entry_at(
    revs: &Revisions,
    point: &str,
    revision: &str,
    seconds: Option<i64>,
) -> Value {
    let pushed = revs.pushed("checkout-config").expect("a push");
    let mut snapshot = cluster::solved(point, revs).expect("a fixture state");
    let app = app_of(&mut snapshot);
    let finished = app["status"]["operationState"]["finishedAt"].clone();
    let history = app["status"]["history"].take();
    let mut entry = history
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| {
            e["revisions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|r| r == pushed)
        })
        .cloned()
        .expect("the recorded sync of the push");
    for r in entry["revisions"].as_array_mut().into_iter().flatten() {
        if r == pushed {
            *r = json!(revision);
        }
    }
    if let Some(seconds) = seconds {
        entry["id"] = json!(3);
        entry["deployStartedAt"] = json!(after(&finished, seconds));
        entry["deployedAt"] = json!(after(&finished, seconds + 40));
    }
    entry
}

/// `point`'s recorded history without the entries of the push: no sync of the push has
/// succeeded.
pub(crate) fn history_without_the_push(revs: &Revisions, point: &str) -> Value {
    let pushed = revs.pushed("checkout-config").expect("a push");
    let mut snapshot = cluster::solved(point, revs).expect("a fixture state");
    let history = app_of(&mut snapshot)["status"]["history"].take();
    let kept: Vec<Value> = history
        .as_array()
        .into_iter()
        .flatten()
        .filter(|entry| {
            !entry["revisions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|r| r == pushed)
        })
        .cloned()
        .collect();
    assert!(
        !kept.is_empty(),
        "{point}'s recorded history has a sync before the push"
    );
    Value::Array(kept)
}

/// The API server's refusal of a hook Job whose `backoffLimit` was quoted, as Argo CD records
/// it (kubectl's `error when creating "<file>": ` stripped).
pub(crate) const REFUSED: &str = "Job in version \"v1\" cannot be handled as a Job: json: cannot unmarshal string into Go struct field JobSpec.spec.backoffLimit of type int32";

/// The last sync of the push, ended at the PreSync hook the API server refused: the entry
/// `status: SyncFailed, hookPhase: Failed` with the apply error, the operation `Failed` with
/// `one or more objects failed to apply, reason: …`; the Jobs of an earlier sync kept or not.
pub(crate) fn refused_state(revs: &Revisions, point: &str, keep_old_jobs: bool) -> Snapshot {
    let mut refused = entry(
        "Job",
        "checkout-migrate",
        "PreSync",
        true,
        "Failed",
        REFUSED,
    );
    refused["status"] = json!("SyncFailed");
    let mut snapshot = state_with(
        revs,
        point,
        json!({}),
        vec![refused],
        Some(history_without_the_push(revs, point)),
    );
    let app = app_of(&mut snapshot);
    app["status"]["operationState"]["phase"] = json!("Failed");
    app["status"]["operationState"]["message"] = json!(format!(
        "one or more objects failed to apply, reason: {REFUSED}"
    ));
    if !keep_old_jobs {
        jobs_gone(&mut snapshot);
    }
    snapshot
}

/// Every named operation of issue 40 as (what the learner did, the step checked, the cluster):
/// a sync with the apply strategy, a dry run, a selective sync (each with the Jobs gone), a dry
/// run of an older revision, a sync with `ApplyOutOfSyncOnly=true`, a selective sync after which
/// the Jobs are older than the pushed commit, a hook the API server refused (with and without an
/// earlier sync's Jobs), a self-heal after which the Jobs are younger than the commit but no sync
/// the history holds made them, and its neighbour whose history of one may have lost that sync.
pub(crate) fn named_operations(
    revs2: &Revisions,
    revs3: &Revisions,
) -> Vec<(&'static str, &'static str, Snapshot)> {
    let without_jobs = |request: Value| {
        let mut s = state_with(
            revs2,
            "step-2",
            request,
            plain_entries(),
            Some(history_without_the_push(revs2, "step-2")),
        );
        jobs_gone(&mut s);
        s
    };
    let older = revs2
        .previous("checkout-config")
        .expect("a previous push")
        .to_string();
    vec![
        (
            "an apply-strategy sync, the Jobs gone",
            "step-2",
            without_jobs(json!({"syncStrategy": {"apply": {}}})),
        ),
        (
            "a dry run, the Jobs gone",
            "step-2",
            without_jobs(json!({"dryRun": true})),
        ),
        (
            "a selective sync, the Jobs gone",
            "step-2",
            without_jobs(selective_sync()),
        ),
        (
            "a dry run of an older revision",
            "step-2",
            state_with(
                revs2,
                "step-2",
                json!({"dryRun": true, "revision": older}),
                dry_run_entries(),
                Some(history_without_the_push(revs2, "step-2")),
            ),
        ),
        (
            "a sync with ApplyOutOfSyncOnly=true",
            "step-3",
            state_with(
                revs3,
                "step-3",
                json!({"syncOptions": ["ApplyOutOfSyncOnly=true"]}),
                hooks_only_entries(),
                None,
            ),
        ),
        (
            "a selective sync, the Jobs made before the pushed commit",
            "step-2",
            {
                let mut s = state_with(
                    revs2,
                    "step-2",
                    selective_sync(),
                    plain_entries()[1..].to_vec(),
                    Some(history_without_the_push(revs2, "step-2")),
                );
                jobs_made_before_the_commit(&mut s);
                s
            },
        ),
        (
            "a self-heal, the Jobs made after the pushed commit by no sync the history holds",
            "step-2",
            state_with(
                revs2,
                "step-2",
                json!({"autoHealAttemptsCount": 1,
                    "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]}),
                plain_entries()[1..].to_vec(),
                Some(history_without_the_push(revs2, "step-2")),
            ),
        ),
        (
            "a self-heal, a history of one that may have lost the push's sync",
            "step-2",
            {
                // A later full sync of the revision before the push (ten minutes after the
                // recorded one) is all a history of one keeps; the Jobs are older than it: the
                // push's sync may have made them.
                let mut s = state_with(
                    revs2,
                    "step-2",
                    json!({"autoHealAttemptsCount": 1,
                        "resources": [{"group": "apps", "kind": "Deployment", "name": "checkout"}]}),
                    plain_entries()[1..].to_vec(),
                    Some(json!([history_entry_at(
                        revs2,
                        "step-2",
                        &older,
                        Some(600)
                    )])),
                );
                app_of(&mut s)["spec"]["revisionHistoryLimit"] = json!(1);
                s
            },
        ),
        (
            "a hook the API server refused, no Jobs",
            "step-2",
            refused_state(revs2, "step-2", false),
        ),
        (
            "a hook the API server refused, an earlier sync's Jobs kept",
            "step-2",
            refused_state(revs2, "step-2", true),
        ),
    ]
}
