//! Capturing what a module's checks read of the cluster, for `labcheck snapshot`: the module's
//! steps run as a session whose cluster reads are recorded (see `probe::cluster::tape`), so
//! whatever a check reads, custom resources of any kind and the pod logs it follows included, is
//! in the capture because it was read. The objects the checks declare by name
//! (`cluster_reads()`) are read too, through the same recording connection, so a check that
//! stops early on this machine (a work repo missing here) still finds its objects in the file.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::Session;
use crate::error::Error;
use crate::probe::cluster::{ApiPath, Cluster, application_path};
use crate::probe::tape::Tape;

/// A capture, written as the snapshot file's YAML.
pub struct Captured {
    pub yaml: String,
    /// How many objects and pod logs it holds.
    pub objects: usize,
    pub logs: usize,
    /// The cluster it was read from, as `describe` words it.
    pub from: String,
}

/// Run `session`'s module (every step, never waiting, remembering nothing) on one recording
/// connection, read what its checks declare, and capture all that was read.
pub async fn capture(session: &Session) -> Result<Captured, Error> {
    let course = session.asked.course()?;
    let module = course.module(&session.asked.module)?;
    let tape = Arc::new(Tape::default());
    let mut session = session.recording(tape.clone());
    // Every step of the module: its checks say what to capture.
    session.asked.step = None;
    let cluster = session.connect().await;
    if let Some(reason) = cluster.unavailable_reason() {
        return Err(Error::Environment(format!(
            "cannot capture a snapshot: {reason}"
        )));
    }
    session.run_on(cluster.clone()).await?;
    let argocd_ns = session
        .asked
        .argocd_namespace
        .clone()
        .unwrap_or_else(|| module.manifest.argocd.namespace.clone());
    read_declared(&cluster, &argocd_ns, module.steps.iter()).await;
    let from = cluster.describe();
    let description = format!("{}: captured from {from}", session.asked.module);
    let snapshot = crate::probe::cluster::tape::snapshot_of(&tape, &cluster, &description).await;
    snapshot
        .check()
        .map_err(|e| Error::Environment(format!("the captured snapshot is not valid: {e}")))?;
    let yaml = snapshot
        .to_yaml()
        .map_err(|e| Error::Environment(format!("cannot write the snapshot: {e}")))?;
    Ok(Captured {
        yaml,
        objects: snapshot.objects.len(),
        logs: snapshot.logs.len(),
        from,
    })
}

/// Read what the checks of `steps` declare they read by name (objects, Applications, Jobs with
/// their pods and logs), on a recording cluster. A read that fails is simply not in the file:
/// the checks' own run already met (and recorded) the same answer.
async fn read_declared<'a>(
    cluster: &Cluster,
    argocd_ns: &str,
    steps: impl Iterator<Item = &'a crate::course::Step>,
) {
    let mut objects = BTreeSet::new();
    let mut jobs = BTreeSet::new();
    let mut apps = BTreeSet::new();
    let mut every_app = false;
    for check in steps.flat_map(|step| &step.checks) {
        let reads = check.kind.cluster_reads();
        objects.extend(reads.objects);
        jobs.extend(reads.jobs);
        apps.extend(reads.apps);
        every_app |= reads.every_app;
    }
    if every_app {
        let all = ApiPath::new("argoproj.io/v1alpha1", "applications").in_namespace(argocd_ns);
        if let Ok(found) = cluster.list(&all, "Argo CD (its Application CRD)").await {
            apps.extend(
                found
                    .iter()
                    .filter_map(|app| app.pointer("/metadata/name").and_then(Value::as_str))
                    .map(str::to_string),
            );
        }
    }
    let mut pod_namespaces = BTreeSet::new();
    for name in &apps {
        let path = application_path(argocd_ns, name);
        let Ok(Some(app)) = cluster.get(&path, "Argo CD (its Application CRD)").await else {
            continue;
        };
        if let Some(dest) = app
            .pointer("/spec/destination/namespace")
            .and_then(Value::as_str)
        {
            pod_namespaces.insert(dest.to_string());
        }
        // The hook Jobs of its last sync, which the sync checks follow.
        for entry in app
            .pointer("/status/operationState/syncResult/resources")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if entry["kind"] == "Job"
                && let (Some(ns), Some(job)) = (entry["namespace"].as_str(), entry["name"].as_str())
            {
                jobs.insert((ns.to_string(), job.to_string()));
            }
        }
    }
    for object in &objects {
        let mut path = ApiPath::new(&object.api, &object.resource);
        if let Some(ns) = &object.namespace {
            path = path.in_namespace(ns);
        }
        let _ = cluster
            .get(
                &path.named(&object.name),
                &format!("the {} API", object.api),
            )
            .await;
    }
    for (ns, name) in &jobs {
        let _ = cluster.job(ns, name).await;
        for pod in cluster.job_pods_by_name(ns, name).await.unwrap_or_default() {
            let pod_name = pod.metadata.name.clone().unwrap_or_default();
            for container in pod.spec.iter().flat_map(|s| &s.containers) {
                let _ = cluster.logs(ns, &pod_name, Some(&container.name)).await;
            }
        }
    }
    // The pods of the namespaces the Applications deploy to: the "cannot start" diagnosis reads
    // them.
    for ns in &pod_namespaces {
        let _ = cluster.pods(ns, "").await;
    }
}
