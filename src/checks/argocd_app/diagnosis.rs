//! Evidence for a failed `argocd_app` check: why the last sync failed (from its entries), which
//! resources are not Healthy, and what the cluster shows (the failed hook's log, a stuck pod, a
//! rollout past its deadline).

use crate::checks::Context;
use crate::checks::cluster_common::{self, LOG_TAIL_LINES, tail};
use crate::outcome::{Cause, CauseId, DetailKind, Outcome};
use crate::probe::cluster::LogRead;
use crate::probe::cluster::argocd::{Application, ResourceResult};

/// The app's resources that are not Healthy, as `Deployment checkout: Degraded (message)`, from
/// `status.resources[].health` (persisted up to v2.x; v3.0+ keeps health in the resource tree,
/// so `enrich` reads the pods and Deployments instead).
pub(super) fn unhealthy_resources(app: &Application) -> Vec<(String, String)> {
    app.status
        .resources
        .iter()
        .filter(|r| r.hook != Some(true))
        .filter_map(|r| {
            let health = r.health.as_ref()?;
            let status = health.status.as_deref()?;
            if status == "Healthy" {
                return None;
            }
            let text = match health.message.as_deref().filter(|m| !m.is_empty()) {
                Some(m) => format!("{} {}: {status} ({m})", r.kind, r.name),
                None => format!("{} {}: {status}", r.kind, r.name),
            };
            Some((format!("{}/{}", r.kind, r.name), text))
        })
        .collect()
}

/// Why the last sync failed, from its entries: which hook failed and where, what that means,
/// whether the SyncFail hook ran. `None` when the last operation did not fail.
pub(super) fn failure_story(app: &Application) -> Option<String> {
    let op = app.last_operation()?;
    let phase = op.phase.as_deref()?;
    if phase != "Failed" && phase != "Error" {
        return None;
    }
    let entries = app.sync_results();
    let failed: Vec<&ResourceResult> = entries
        .iter()
        .filter(|e| {
            e.sync_phase.as_deref() != Some("SyncFail")
                // A hook the termination of the sync deleted did not fail: the sync was stopped.
                && !(app.operation_terminated() && crate::checks::sync_binding::ended_by_termination(e))
                && (matches!(e.hook_phase.as_deref(), Some("Failed" | "Error"))
                    || e.status.as_deref() == Some("SyncFailed"))
        })
        .collect();
    let mut parts = Vec::new();
    let generic = op.message.as_deref().unwrap_or("");
    match failed.first() {
        Some(entry) => {
            let what = format!(
                "{} failed: {}",
                entry.describe(),
                entry.message.as_deref().unwrap_or("no message")
            );
            let stage = entry.sync_phase.as_deref().or(entry.hook_type.as_deref());
            let synced = app.status.sync.status.as_deref() == Some("Synced");
            let healthy = app.status.health.status.as_deref() == Some("Healthy");
            parts.push(match stage {
                Some("PostSync") if synced && healthy => format!(
                    "The sync failed after the deploy: the PostSync hook {what}. The app still shows Synced and Healthy because hooks count for neither."
                ),
                Some("PreSync") => format!(
                    "The sync stopped in PreSync: {what}. Nothing of the Sync phase was applied, so the running version is unchanged."
                ),
                _ => format!("The sync failed: {what}."),
            });
            if !generic.is_empty() {
                parts.push(format!("(Argo CD's own message is the generic \"{generic}\"; the hook's entry says what failed.)"));
            }
        }
        None if !generic.is_empty() => {
            parts.push(format!("The last sync ended {phase}: {generic}"))
        }
        None => parts.push(format!("The last sync ended {phase}.")),
    }
    let sync_fail: Vec<&ResourceResult> = entries
        .iter()
        .filter(|e| {
            e.sync_phase.as_deref() == Some("SyncFail")
                || e.hook_type.as_deref() == Some("SyncFail")
        })
        .collect();
    parts.push(match sync_fail.as_slice() {
        [] => "No SyncFail hook ran.".to_string(),
        hooks => hooks
            .iter()
            .map(|h| {
                format!(
                    "The SyncFail hook {} ran: {}.",
                    h.name,
                    h.hook_phase.as_deref().unwrap_or("no phase")
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
    });
    Some(parts.join(" "))
}

/// Evidence for a failure, read from the cluster: the failed hook's last log lines, or the pod
/// that cannot start.
pub(super) async fn enrich(ctx: &Context, app: &Application, outcome: Outcome) -> Outcome {
    let outcome = hook_evidence(ctx, app, outcome).await;
    health_evidence(ctx, app, outcome).await
}

/// The failed hook's last log lines (or why the Job is gone), or the pod a running sync's hook
/// waits on.
async fn hook_evidence(ctx: &Context, app: &Application, outcome: Outcome) -> Outcome {
    let cluster = &ctx.cluster;
    let failed_job = app.sync_results().iter().find(|e| {
        e.kind == "Job"
            && e.is_hook()
            && !(app.operation_terminated() && crate::checks::sync_binding::ended_by_termination(e))
            && matches!(e.hook_phase.as_deref(), Some("Failed" | "Error"))
    });
    if outcome.detail.is_none()
        && let Some(entry) = failed_job
    {
        let ns = if entry.namespace.is_empty() {
            app.spec.destination.namespace.clone().unwrap_or_default()
        } else {
            entry.namespace.clone()
        };
        match cluster.job(&ns, &entry.name).await {
            Ok(Some(job)) => {
                if let Ok(Some((
                    pod,
                    LogRead::Text(text)
                    | LogRead::Tail { text, .. }
                    | LogRead::Unended { text, .. },
                ))) = cluster_common::job_log(cluster, &ns, &job, None).await
                {
                    let pod_name = pod.metadata.name.unwrap_or_default();
                    // The line the hook died on is the evidence the learner is asked to find.
                    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                    let last_line = lines
                        .iter()
                        .rev()
                        .find(|l| l.to_ascii_lowercase().contains("error"))
                        .or(lines.last())
                        .map(|l| format!(" Its log says \"{}\".", l.trim()))
                        .unwrap_or_default();
                    let diagnosis = format!(
                        "{}\n{} failed.{last_line} Last lines of {} (pod {pod_name}, `kubectl -n {ns} logs job/{}`) below.",
                        outcome.diagnosis.clone().unwrap_or_default(),
                        entry.describe(),
                        entry.name,
                        entry.name
                    );
                    return outcome
                        .with_diagnosis(diagnosis.trim_start().to_string())
                        .with_detail(DetailKind::Log, tail(&text, LOG_TAIL_LINES));
                }
            }
            Ok(None) => {
                let diagnosis = format!(
                    "{}\nThe Job {} is gone, and its log with it: {}.",
                    outcome.diagnosis.clone().unwrap_or_default(),
                    entry.name,
                    crate::checks::sync_binding::why_hook_gone(app, entry)
                );
                return outcome.with_diagnosis(diagnosis.trim_start().to_string());
            }
            Err(_) => {}
        }
    }
    // A sync waiting on a hook Job whose pod cannot start (a PreSync migration without its
    // config): say why, with the manifest rule's reason.
    let waiting_hook = app
        .last_operation()
        .filter(|_| app.operation_running())
        .and_then(|op| op.message.as_deref())
        .and_then(|m| m.split("waiting for completion of hook batch/Job/").nth(1))
        .and_then(|rest| rest.split_whitespace().next());
    if let Some(job_name) = waiting_hook
        && let Some(ns) = app.spec.destination.namespace.as_deref()
        && let Ok(Some(job)) = cluster.job(ns, job_name).await
        && let Ok(pods) = cluster.job_pods(ns, &job).await
        && let Some(stuck) = cluster_common::job_stuck_diagnosis(&job, &pods)
    {
        let diagnosis = match &outcome.diagnosis {
            Some(d) => format!("{d}\n{stuck}"),
            None => stuck,
        };
        return outcome.with_diagnosis(diagnosis);
    }
    outcome
}

/// What is not Healthy and why, wherever the app is Progressing or Degraded: a pod that cannot
/// start (with its last exit), a rollout past its progress deadline, a rollout still going. Read
/// after the hook evidence, which does not explain an unhealthy app.
async fn health_evidence(ctx: &Context, app: &Application, outcome: Outcome) -> Outcome {
    let cluster = &ctx.cluster;
    let unhealthy = matches!(
        app.status.health.status.as_deref(),
        Some("Progressing" | "Degraded")
    );
    let Some(ns) = app
        .spec
        .destination
        .namespace
        .as_deref()
        .filter(|_| unhealthy)
    else {
        return outcome;
    };
    // Named causes that waiting will not fix: a pod that cannot start, a rollout past its deadline.
    let deployments =
        crate::probe::cluster::api::ApiPath::new("apps/v1", "deployments").in_namespace(ns);
    let (pods, deployments) = futures::join!(
        cluster.pods(ns, ""),
        cluster.list(&deployments, "the apps/v1 API")
    );
    let mut found = Vec::new();
    let mut cause = None;
    // Rollouts still going: named, and waiting may still fix them.
    let going: Vec<String> = deployments
        .iter()
        .flatten()
        .filter_map(|d| {
            let message = rollout_still_going(d)?;
            Some(format!(
                "Deployment {}: Progressing ({message})",
                d["metadata"]["name"].as_str().unwrap_or("")
            ))
        })
        .collect();
    let mut awaited_pod_stuck = None;
    if let Ok(pods) = &pods {
        let awaited = awaited_by_the_running_sync(app);
        let is_awaited = |pod: &_| {
            awaited.as_ref().is_some_and(|(kind, name)| {
                crate::probe::cluster::pods::belongs_to(pod, kind, name)
            })
        };
        let stuck: Vec<_> = pods
            .iter()
            .filter_map(|pod| {
                crate::probe::cluster::pods::stuck_container(pod).map(|stuck| (pod, stuck))
            })
            .collect();
        // The pod the running sync waits for first, if one of them is stuck.
        if let Some((pod, stuck)) = stuck
            .iter()
            .find(|(pod, _)| is_awaited(pod))
            .or_else(|| stuck.first())
        {
            found.push(cluster_common::explain_stuck(stuck));
            cause = Some(Cause::about(CauseId::PodStuck, &stuck.reason));
            if is_awaited(pod) {
                awaited_pod_stuck = awaited.clone();
            }
        }
    }
    for deployment in deployments.iter().flatten() {
        let name = deployment["metadata"]["name"].as_str().unwrap_or("");
        let past_deadline = deployment["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "Progressing" && c["reason"] == "ProgressDeadlineExceeded");
        if let Some(condition) = past_deadline {
            found.push(format!(
                "Deployment {name}: ProgressDeadlineExceeded ({})",
                condition["message"].as_str().unwrap_or("")
            ));
            cause.get_or_insert_with(|| Cause::about(CauseId::ProgressDeadlineExceeded, name));
        }
    }
    if found.is_empty() {
        if going.is_empty() {
            return outcome;
        }
        let text = going.join("\n");
        return match &outcome.diagnosis {
            Some(d) => {
                let d = format!("{d}\n{text}");
                outcome.with_diagnosis(d)
            }
            None => outcome.with_diagnosis(text),
        };
    }
    let text = found.join("\n");
    let diagnosis = match &outcome.diagnosis {
        Some(d) => format!("{d}\n{text}"),
        None => text,
    };
    let mut outcome = outcome.with_diagnosis(diagnosis);
    // When Argo CD has not deployed the learner's push yet, the broken pod may be what their push
    // fixes: the next action stays "let Argo CD see / sync it", and so do the wait and the cause.
    let push_not_deployed = outcome
        .cause
        .as_ref()
        .is_some_and(|c| PUSH_NOT_DEPLOYED.contains(&c.id()));
    if let Some((kind, name)) = awaited_pod_stuck.filter(|_| !push_not_deployed) {
        // The running sync waits for exactly the object whose pod cannot start: it ends only at
        // a deadline, so waiting is no way out; a new sync applies what git holds (a ConfigMap
        // deleted by hand comes back), and what git lacks must be pushed first.
        let app_name = &app.metadata.name;
        outcome = outcome.waiting_will_not_fix(format!(
            "the running sync waits for {kind} {name}, whose pod cannot start: stop it (`argocd app terminate-op {app_name}`); if what the diagnosis names is missing or wrong in git, fix it there and push; then sync (`argocd app sync {app_name}`), which applies what git holds"
        ));
        if let Some(cause) = cause {
            outcome = outcome.with_cause(cause);
        }
    } else if !app.operation_running() && !push_not_deployed {
        // Waiting does not fix these: the change in git does. Said whatever the course's hint
        // above it says (it may well be "wait for the sync", which here would only time out).
        outcome = outcome.waiting_will_not_fix(
            "change what the diagnosis names in git, push, and let Argo CD sync it",
        );
        if let Some(cause) = cause {
            outcome = outcome.with_cause(cause);
        }
    }
    outcome
}

/// The object a running sync waits for, `(Kind, name)`, from its operation's message in
/// gitops-engine's words (`setRunningPhase`: "waiting for healthy state of apps/Deployment/checkout",
/// "waiting for completion of hook batch/Job/checkout-migrate", "… and 2 more resources").
fn awaited_by_the_running_sync(app: &Application) -> Option<(String, String)> {
    if !app.operation_running() {
        return None;
    }
    let message = app.last_operation()?.message.as_deref()?;
    let what = [
        "waiting for healthy state of ",
        "waiting for completion of hook ",
    ]
    .iter()
    .find_map(|prefix| message.strip_prefix(prefix))?;
    let object = what.split_whitespace().next()?;
    let mut parts = object.rsplit('/');
    let name = parts.next()?.to_string();
    let kind = parts.next()?.to_string();
    Some((kind, name))
}

/// Why a Deployment is still rolling out, in Argo CD's words (gitops-engine
/// `pkg/health/health_deployment.go:28-66`), or `None` when it is not (paused, done, or past its
/// deadline, which is named as a cause of its own).
fn rollout_still_going(deployment: &serde_json::Value) -> Option<String> {
    let spec = &deployment["spec"];
    let status = &deployment["status"];
    if spec["paused"].as_bool() == Some(true) {
        return None;
    }
    let int = |v: &serde_json::Value| v.as_i64().unwrap_or(0);
    let generation = int(&deployment["metadata"]["generation"]);
    if generation > int(&status["observedGeneration"]) {
        return Some(
            "Waiting for rollout to finish: observed deployment generation less than desired generation"
                .to_string(),
        );
    }
    let past_deadline = status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Progressing" && c["reason"] == "ProgressDeadlineExceeded");
    if past_deadline {
        return None;
    }
    let desired = spec["replicas"].as_i64().unwrap_or(1);
    let (updated, replicas, available) = (
        int(&status["updatedReplicas"]),
        int(&status["replicas"]),
        int(&status["availableReplicas"]),
    );
    if updated < desired {
        Some(format!(
            "Waiting for rollout to finish: {updated} out of {desired} new replicas have been updated..."
        ))
    } else if replicas > updated {
        Some(format!(
            "Waiting for rollout to finish: {} old replicas are pending termination...",
            replicas - updated
        ))
    } else if available < updated {
        Some(format!(
            "Waiting for rollout to finish: {available} of {updated} updated replicas are available..."
        ))
    } else {
        None
    }
}

/// Causes of a failure that is about the learner's push not being what Argo CD runs yet; a broken
/// pod seen then belongs to an older revision and says nothing about what to change.
const PUSH_NOT_DEPLOYED: &[CauseId] = &[
    CauseId::NotPushed,
    CauseId::PushedElsewhere,
    CauseId::NotSeenYet,
    CauseId::SyncNotOfPush,
    CauseId::RevisionsUnreadable,
];

#[cfg(test)]
mod rollout_tests {
    use super::rollout_still_going;
    use serde_json::json;

    #[test]
    fn a_rollout_still_going_is_named_in_argo_cds_words() {
        // Deployment status as the controller writes it mid-rollout (replicas 2, one new pod up).
        let mid = json!({"metadata": {"name": "checkout", "generation": 4},
            "spec": {"replicas": 2},
            "status": {"observedGeneration": 4, "replicas": 3, "updatedReplicas": 2, "availableReplicas": 1}});
        assert_eq!(
            rollout_still_going(&mid).as_deref(),
            Some("Waiting for rollout to finish: 1 old replicas are pending termination...")
        );
        let unseen = json!({"metadata": {"generation": 5}, "status": {"observedGeneration": 4}});
        assert!(
            rollout_still_going(&unseen)
                .is_some_and(|m| m.contains("observed deployment generation"))
        );
        let done = json!({"metadata": {"generation": 4}, "spec": {"replicas": 1},
            "status": {"observedGeneration": 4, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}});
        assert_eq!(rollout_still_going(&done), None);
        let deadline = json!({"metadata": {"generation": 4}, "spec": {"replicas": 1},
            "status": {"observedGeneration": 4, "replicas": 1, "updatedReplicas": 0, "availableReplicas": 0,
                       "conditions": [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]}});
        assert_eq!(
            rollout_still_going(&deadline),
            None,
            "named as a cause of its own"
        );
    }
}
