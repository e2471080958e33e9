//! What the cluster check kinds share: turning probe errors into "could not check", the Job a
//! sync is about, and log tails.

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::jiff::Timestamp;

use crate::checks::Context;
use crate::outcome::{Cause, CauseId, Outcome};
use crate::probe::cluster::argocd::{Application, ResourceResult};
use crate::probe::cluster::pods::{self, StuckContainer};
use crate::probe::cluster::{Cluster, LogRead, ProbeError};

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
            return Err(Box::new(app_not_found(ctx, name).await));
        }
        Ok(None) => None,
        Err(e) => return Err(Box::new(could_not_check(&e))),
    };
    let job = job.map_err(|e| Box::new(could_not_check(&e)))?;
    Ok((app, job))
}

/// "Could not check", with the probe's reason and what to do about it.
pub fn could_not_check(error: &ProbeError) -> Outcome {
    let outcome =
        Outcome::could_not_check(error.to_string()).with_cause(Cause::new(error.cause_id()));
    let fix = error.fix();
    if fix.is_empty() {
        outcome
    } else {
        outcome.with_hint(fix)
    }
}

/// The failure for an Application missing from the Argo CD namespace: when it lives in another
/// namespace (Argo CD's "apps in any namespace"), say where and how to point labcheck at it. One
/// cluster-wide list, on this not-found path only.
pub async fn app_not_found(ctx: &Context, name: &str) -> Outcome {
    let ns = &ctx.argocd_namespace;
    let path = crate::probe::cluster::api::ApiPath::new("argoproj.io/v1alpha1", "applications");
    if let Ok(items) = ctx
        .cluster
        .list(
            &path,
            "Argo CD (its Application CRD, applications.argoproj.io)",
        )
        .await
    {
        let elsewhere: Vec<String> = items
            .iter()
            .filter(|item| item["metadata"]["name"].as_str() == Some(name))
            .filter_map(|item| item["metadata"]["namespace"].as_str().map(str::to_string))
            .filter(|found| found != ns)
            .collect();
        if let Some(found) = elsewhere.first() {
            return Outcome::fail(format!(
                "Application {name} is in namespace {found}, not in {ns} where labcheck looked"
            ))
            .with_expected(format!("Application {ns}/{name}"))
            .with_actual(format!("Application {found}/{name}"))
            .with_hint(format!(
                "it is an app in another namespace: run labcheck with `--argocd-namespace {found}` (and `argocd app get {found}/{name}`)"
            ))
            .with_cause(Cause::about(CauseId::AppInOtherNamespace, found));
        }
    }
    app_missing(ns, name)
}

/// The failure for an Application that does not exist.
pub fn app_missing(ns: &str, name: &str) -> Outcome {
    Outcome::fail(format!("Argo CD has no Application {name} in namespace {ns}"))
        .with_cause(Cause::about(CauseId::AppMissing, name))
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
    let last = match &stuck.last_exit {
        Some(exit) => format!(" (its last run ended with {exit})"),
        None => String::new(),
    };
    format!(
        "pod {} cannot start: {}{message}{meaning}{last}",
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
