//! `labcheck snapshot MODULE --out FILE`: capture, read-only, what a module's checks read of the
//! cluster into a snapshot file that `--snapshot` and `labcheck serve` replay.
//!
//! The module's steps run as a session whose cluster reads are recorded (see
//! `probe::cluster::tape`): whatever a check reads, custom resources of any kind and the pod logs
//! it follows included, is in the file, because it was read. The objects the checks declare by
//! name (`cluster_reads()`) are read too, through the same recording, so a check that stops early
//! on this machine (a work repo missing here) still finds its objects in the file.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use serde_json::Value;

use crate::error::{Error, exit};
use crate::probe::cluster::{ApiPath, Cluster, ClusterOptions, application_path};
use crate::probe::tape::{Mode, Tape};
use crate::progress::workdir::WorkDir;
use crate::run::{Asked, Session, WaitPolicy};

use super::{ClusterArgs, SetupArgs, emit};

/// Arguments of `labcheck snapshot`.
#[derive(Debug, Args, Clone)]
pub struct SnapshotArgs {
    /// The module whose checks say what to capture, e.g. module-10 (some read the cluster after
    /// your work repos, so --work-dir counts too).
    pub module: String,
    /// Where to write the snapshot (YAML).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,

    #[command(flatten)]
    pub setup: SetupArgs,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// Capture the snapshot and write it; returns the exit code.
pub async fn run(args: &SnapshotArgs) -> Result<u8, Error> {
    if args.cluster.snapshot.is_some() {
        return Err(Error::Usage(
            "`labcheck snapshot` reads a live cluster; drop --snapshot (use --kubeconfig/--context)"
                .to_string(),
        ));
    }
    let course = args.setup.course.load()?;
    let module = course.module(&args.module)?;
    let live = Cluster::connect(&args.cluster.options()).await;
    if let Some(reason) = live.unavailable_reason() {
        return Err(Error::Environment(format!(
            "cannot capture a snapshot: {reason}"
        )));
    }
    // Without a work dir here (no HOME), the repo checks cannot look; the cluster is still read
    // by every check that reads it.
    let work_dir = match &args.setup.work_dir {
        Some(given) => WorkDir::resolve(Some(given))?.path,
        None => WorkDir::resolve(None).map(|w| w.path).unwrap_or_default(),
    };
    let tape = Arc::new(Tape::default());
    let session = Session {
        asked: Asked {
            course_dir: args.setup.course.course_dir.clone(),
            module: args.module.clone(),
            step: None,
            track: args.setup.track.clone(),
            argocd_namespace: args.cluster.argocd_namespace.clone(),
            policy: WaitPolicy::Never,
            paths: crate::probe::files::PathShower::from_env(),
        },
        work_dir,
        cluster: args.cluster.options(),
        log_reads: false,
        remember: false,
        tape: Mode::Record(tape.clone()),
    };
    session.run(None, &|_| {}).await?;
    let recording = Cluster::connect(&ClusterOptions {
        tape: Mode::Record(tape.clone()),
        ..args.cluster.options()
    })
    .await;
    let argocd_ns = args
        .cluster
        .argocd_namespace
        .clone()
        .unwrap_or_else(|| module.manifest.argocd.namespace.clone());
    read_declared(&recording, &argocd_ns, module.steps.iter()).await;
    let description = format!("{}: captured from {}", args.module, live.describe());
    let snapshot = crate::probe::cluster::tape::snapshot_of(&tape, &live, &description).await;
    snapshot
        .check()
        .map_err(|e| Error::Environment(format!("the captured snapshot is not valid: {e}")))?;
    let yaml = snapshot
        .to_yaml()
        .map_err(|e| Error::Environment(format!("cannot write the snapshot: {e}")))?;
    std::fs::write(&args.out, yaml)
        .map_err(|e| Error::Environment(format!("cannot write {}: {e}", args.out.display())))?;
    emit(&format!(
        "wrote {} objects and {} logs from {} to {}\n",
        snapshot.objects.len(),
        snapshot.logs.len(),
        live.describe(),
        args.out.display()
    ));
    Ok(exit::PASS)
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
