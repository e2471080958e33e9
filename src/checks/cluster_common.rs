//! What the cluster check kinds share: turning probe errors into "could not check", the Job a
//! sync is about, and log tails.

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::jiff::Timestamp;

use crate::outcome::Outcome;
use crate::probe::cluster::argocd::{Application, ResourceResult};
use crate::probe::cluster::pods::{self, StuckContainer};
use crate::probe::cluster::{Cluster, LogRead, ProbeError};
use crate::run::Context;

/// How many log lines a failure shows.
pub const LOG_TAIL_LINES: usize = 10;

/// The Application a Job check ties it to (if any) and the Job itself, read at the same time: they
/// do not depend on each other, so the check costs one round trip, not two. `Err` is the outcome
/// that ends the check (could not check, or the Application is missing).
pub async fn app_and_job(
    ctx: &Context,
    app_name: Option<&str>,
    ns: &str,
    job_name: &str,
) -> Result<(Option<Application>, Option<Job>), Box<Outcome>> {
    let cluster = &ctx.cluster;
    let app_read = async {
        match app_name {
            Some(name) => cluster
                .application(&ctx.argocd_namespace, name)
                .await
                .map(|app| Some((name, app))),
            None => Ok(None),
        }
    };
    let (app, job) = futures::join!(app_read, cluster.job(ns, job_name));
    let app = match app {
        Ok(Some((_, Some(app)))) => Some(app),
        Ok(Some((name, None))) => {
            return Err(Box::new(app_missing(&ctx.argocd_namespace, name)));
        }
        Ok(None) => None,
        Err(e) => return Err(Box::new(could_not_check(&e))),
    };
    let job = job.map_err(|e| Box::new(could_not_check(&e)))?;
    Ok((app, job))
}

/// "Could not check", with the probe's reason and what to do about it.
pub fn could_not_check(error: &ProbeError) -> Outcome {
    let outcome = Outcome::could_not_check(error.to_string())
        .with_cause(crate::outcome::Cause::new(error.cause_id()));
    let fix = error.fix();
    if fix.is_empty() {
        outcome
    } else {
        outcome.with_hint(fix)
    }
}

/// The failure for an Application that does not exist.
pub fn app_missing(ns: &str, name: &str) -> Outcome {
    Outcome::fail(format!("Argo CD has no Application {name} in namespace {ns}"))
        .with_expected(format!("Application {ns}/{name}"))
        .with_actual("not found")
        .with_hint(format!(
            "check the name with `argocd app list` (or `kubectl -n {ns} get applications`); if it is not there, the Application that creates it has not synced yet"
        ))
}

/// Parse an RFC 3339 time as the API writes it.
pub fn parse_time(text: &str) -> Option<Timestamp> {
    text.parse::<Timestamp>().ok()
}

/// The first 7 characters of a git SHA, as Argo CD and git show it.
pub fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// The last `n` lines of a log.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(n);
    lines[start..].join("\n")
}

/// How a Job relates to an Application's last operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Belonging {
    /// Created at or after the last operation started: it is that sync's Job.
    LastSync,
    /// Left by an earlier sync.
    Earlier { created: String, started: String },
    /// The Application never ran an operation.
    NoSync,
    /// The Job or the operation carries no usable timestamp; labcheck will not guess.
    Unknown,
}

/// Whether `job` belongs to the last operation of `app` (created at or after its `startedAt`).
pub fn belonging(job: &Job, app: &Application) -> Belonging {
    let Some(op) = app.last_operation() else {
        return Belonging::NoSync;
    };
    let started_text = op.started_at.clone().unwrap_or_default();
    let (Some(created), Some(started)) = (
        job.metadata.creation_timestamp.as_ref().map(|t| t.0),
        parse_time(&started_text),
    ) else {
        return Belonging::Unknown;
    };
    if created >= started {
        Belonging::LastSync
    } else {
        Belonging::Earlier {
            created: created.to_string(),
            started: started.to_string(),
        }
    }
}

/// The failure for a Job that is not from the sync the step is about: it must neither pass nor
/// fail the step on its own state. `None` when the Job is the last sync's.
pub fn stale_job_outcome(job: &Job, app: &Application, app_name: &str) -> Option<Outcome> {
    let name = job.metadata.name.clone().unwrap_or_default();
    match belonging(job, app) {
        Belonging::LastSync => older_revision_outcome(&name, app, app_name),
        Belonging::NoSync => Some(
            Outcome::fail(format!(
                "Job {name} exists, but Argo CD has no record of a sync of {app_name}"
            ))
            .with_hint(format!("run the sync: `argocd app sync {app_name}`")),
        ),
        Belonging::Unknown => Some(Outcome::could_not_check(format!(
            "cannot tell whether Job {name} belongs to {app_name}'s last sync (a timestamp is missing)"
        ))),
        Belonging::Earlier { created, started } => {
            let ran = app
                .sync_results()
                .iter()
                .find(|r| r.kind == "Job" && r.name == name);
            let outcome = Outcome::fail(format!(
                "Job {name} is from an earlier sync (created {created}); the last sync of {app_name} started {started}"
            ))
            .with_expected(format!("a Job {name} created by the sync that started {started}"))
            .with_actual(format!("a Job created {created}"));
            if app.operation_running() {
                return Some(
                    outcome
                        .with_hint(format!(
                            "the sync is still running and has not re-created {name} yet: wait for it (`argocd app wait {app_name}`)"
                        ))
                        .still_in_progress(),
                );
            }
            let diagnosis = match ran {
                Some(entry) => format!(
                    "the last sync lists {} as {}, but the Job in the cluster is older",
                    entry.describe(),
                    entry.hook_phase.as_deref().unwrap_or("applied")
                ),
                None => format!(
                    "the last sync (phase {}) never ran {name}: {}",
                    app.last_operation()
                        .and_then(|o| o.phase.as_deref())
                        .unwrap_or("unknown"),
                    app.last_operation()
                        .and_then(|o| o.message.as_deref())
                        .unwrap_or("no message")
                ),
            };
            Some(
                outcome
                    .with_hint(format!(
                        "this Job is from an earlier sync at {created}: run the sync (`argocd app sync {app_name}`)"
                    ))
                    .with_diagnosis(diagnosis),
            )
        }
    }
}

/// A Job of the last sync still is not the step's Job when that sync ran an older revision than
/// the one Argo CD now targets (the learner pushed, the new sync has not run yet).
fn older_revision_outcome(name: &str, app: &Application, app_name: &str) -> Option<Outcome> {
    let target = app
        .status
        .sync
        .revision
        .as_deref()
        .filter(|r| !r.is_empty())?;
    let ran = app.operation_revision()?;
    if ran == target || app.operation_running() {
        return None;
    }
    let outcome = Outcome::fail(format!(
        "Job {name} is from an earlier sync of {}; Argo CD now targets {}, which no sync has run yet",
        short(ran),
        short(target)
    ))
    .with_expected(format!("a Job {name} from a sync of {}", short(target)))
    .with_actual(format!("a Job from the sync of {}", short(ran)))
    .with_hint(format!(
        "run the sync: `argocd app sync {app_name}`"
    ));
    let auto_sync_pending = app
        .spec
        .sync_policy
        .as_ref()
        .is_some_and(|p| p.get("automated").is_some())
        && app.status.sync.status.as_deref() == Some("OutOfSync")
        && !app
            .last_operation()
            .and_then(|o| o.phase.as_deref())
            .is_some_and(|p| p == "Failed" || p == "Error");
    Some(if auto_sync_pending {
        // Auto-sync starts a sync for an OutOfSync app on its own.
        outcome.still_in_progress()
    } else {
        outcome
    })
}

/// The last sync's entry for `kind`/`name`, if it ran it.
pub fn sync_entry<'a>(app: &'a Application, kind: &str, name: &str) -> Option<&'a ResourceResult> {
    app.sync_results()
        .iter()
        .find(|r| r.kind.eq_ignore_ascii_case(kind) && r.name == name)
}

/// Read the log of the pod `kubectl logs job/NAME` would pick. `Ok(None)` when the Job has no
/// pods left.
pub async fn job_log(
    cluster: &Cluster,
    ns: &str,
    job: &Job,
    container: Option<&str>,
) -> Result<Option<(Pod, LogRead)>, ProbeError> {
    let pods_of_job = cluster.job_pods(ns, job).await?;
    let Some(pod) = pods::pod_for_logs(&pods_of_job) else {
        return Ok(None);
    };
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let container = container
        .map(str::to_string)
        .or_else(|| pods::default_container(pod));
    let log = cluster.logs(ns, &pod_name, container.as_deref()).await?;
    Ok(Some((pod.clone(), log)))
}

/// "pod checkout-7d9f cannot start: CreateContainerConfigError (configmap "x" not found)", with
/// what it means for the two reasons a learner meets most.
pub fn explain_stuck(stuck: &StuckContainer) -> String {
    let meaning = match stuck.reason.as_str() {
        "CreateContainerConfigError" => {
            ": the ConfigMap or Secret it needs is missing (sync waves put configuration first)"
        }
        "ImagePullBackOff" | "ErrImagePull" => ": the image tag does not exist or cannot be pulled",
        "CrashLoopBackOff" => ": the container starts and crashes; read its log",
        _ => "",
    };
    let message = if stuck.message.is_empty() {
        String::new()
    } else {
        format!(" ({})", stuck.message)
    };
    format!(
        "pod {} cannot start: {}{message}{meaning}",
        stuck.pod, stuck.reason
    )
}

/// Whether a Job is an Argo CD PreSync hook (directly or as a translated Helm pre-install/upgrade hook).
pub fn is_presync_hook(job: &Job) -> bool {
    let object = crate::plan::Object {
        source: crate::plan::Source {
            file: String::new(),
            line: 0,
        },
        api_version: "batch/v1".to_string(),
        kind: "Job".to_string(),
        name: job.metadata.name.clone().unwrap_or_default(),
        generate_name: false,
        namespace: String::new(),
        annotations: job.metadata.annotations.clone().unwrap_or_default(),
        body: serde_yaml::Value::Null,
    };
    object.is_hook() && object.sync_phases().contains(&crate::plan::Phase::PreSync)
}

/// The first stuck container among a Job's pods, explained; for a PreSync hook waiting on its
/// config, with the manifest rule's reason and fix (`presync-config-in-sync-phase`).
pub fn job_stuck_diagnosis(job: &Job, pods_seen: &[Pod]) -> Option<String> {
    let stuck = pods_seen.iter().find_map(pods::stuck_container)?;
    let mut text = explain_stuck(&stuck);
    if stuck.reason == "CreateContainerConfigError" && is_presync_hook(job) {
        text.push_str(&format!(
            ". {}. Fix: {} (`labcheck plan --rules` finds this before you push)",
            crate::rules::config_phase::WHY_STUCK,
            crate::rules::config_phase::FIX
        ));
    }
    Some(text)
}

/// The first stuck container among `pods`, explained.
pub fn stuck_diagnosis(pods_seen: &[Pod]) -> Option<String> {
    pods_seen
        .iter()
        .find_map(pods::stuck_container)
        .map(|s| explain_stuck(&s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job_created(at: &str) -> Job {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "checkout-migrate", "creationTimestamp": at}
        }))
        .unwrap_or_default()
    }

    fn app_started(at: &str, phase: &str) -> Application {
        serde_json::from_value(serde_json::json!({
            "status": {"operationState": {"phase": phase, "startedAt": at,
                "message": "one or more synchronization tasks completed unsuccessfully",
                "syncResult": {"resources": []}}}
        }))
        .unwrap_or_default()
    }

    #[test]
    fn a_job_created_in_the_same_second_the_sync_started_belongs_to_it() {
        let job = job_created("2026-05-02T10:14:58Z");
        let app = app_started("2026-05-02T10:14:58Z", "Succeeded");
        assert_eq!(belonging(&job, &app), Belonging::LastSync);
        assert!(stale_job_outcome(&job, &app, "checkout-dev").is_none());
    }

    #[test]
    fn a_job_left_by_the_previous_sync_fails_with_a_hint_to_run_the_sync() {
        let job = job_created("2026-05-02T09:00:00Z");
        let app = app_started("2026-05-02T10:14:58Z", "Failed");
        let outcome = stale_job_outcome(&job, &app, "checkout-dev");
        let outcome = outcome.unwrap_or_else(|| Outcome::pass("wrong"));
        assert_eq!(outcome.status, crate::outcome::Status::Fail);
        assert!(!outcome.pending);
        assert!(
            outcome
                .hint
                .unwrap_or_default()
                .contains("argocd app sync checkout-dev")
        );
        assert!(
            outcome
                .diagnosis
                .unwrap_or_default()
                .contains("never ran checkout-migrate")
        );
    }

    #[test]
    fn a_stale_job_while_the_sync_runs_is_still_in_progress() {
        let job = job_created("2026-05-02T09:00:00Z");
        let app = app_started("2026-05-02T10:14:58Z", "Running");
        let outcome = stale_job_outcome(&job, &app, "checkout-dev");
        assert!(outcome.is_some_and(|o| o.pending));
    }

    #[test]
    fn a_presync_hook_stuck_on_its_config_is_explained_with_the_rule() {
        let job: Job = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "shop-migrate",
                "annotations": {"argocd.argoproj.io/hook": "PreSync"}}
        }))
        .unwrap_or_default();
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "shop-migrate-x7k2p"},
            "status": {"phase": "Pending", "containerStatuses": [{
                "name": "migrate", "ready": false, "restartCount": 0, "image": "shop", "imageID": "",
                "state": {"waiting": {"reason": "CreateContainerConfigError",
                    "message": "configmap \"shop-env\" not found"}}}]}
        }))
        .unwrap_or_default();
        let text = job_stuck_diagnosis(&job, std::slice::from_ref(&pod)).unwrap_or_default();
        assert!(text.starts_with("pod shop-migrate-x7k2p cannot start: CreateContainerConfigError (configmap \"shop-env\" not found)"), "{text}");
        assert!(
            text.contains("A PreSync hook runs before anything of the Sync phase is applied"),
            "{text}"
        );
        let plain: Job = serde_json::from_value(serde_json::json!({"metadata": {"name": "batch"}}))
            .unwrap_or_default();
        let text = job_stuck_diagnosis(&plain, &[pod]).unwrap_or_default();
        assert!(!text.contains("PreSync"), "{text}");
    }

    #[test]
    fn the_log_tail_keeps_the_last_lines() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail("a", 10), "a");
    }
}
