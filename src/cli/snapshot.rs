//! `labcheck snapshot MODULE --out FILE`: capture, read-only, what a module's cluster checks read
//! (objects, Applications, their hook Jobs, the Jobs' pods and logs) into a snapshot file that
//! `--snapshot` and `labcheck serve` replay.

use std::collections::BTreeSet;
use std::path::PathBuf;

use clap::Args;
use serde_json::Value;

use crate::error::{Error, exit};
use crate::probe::cluster::{ApiPath, Cluster, LogRead, ProbeError, application_path};
use crate::snapshot::{Snapshot, WithLogs};

use super::{ClusterArgs, RunArgs, emit, load_course};

/// Arguments of `labcheck snapshot`.
#[derive(Debug, Args, Clone)]
pub struct SnapshotArgs {
    /// The module whose cluster checks say what to capture, e.g. module-10.
    pub module: String,
    /// Where to write the snapshot (YAML).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,

    /// Read the course from this folder instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    pub course_dir: Option<PathBuf>,

    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// What the checks read.
#[derive(Debug, Default)]
pub(crate) struct Targets {
    objects: BTreeSet<(String, String, Option<String>, String)>,
    jobs: BTreeSet<(String, String)>,
    apps: BTreeSet<String>,
    /// Capture every Application (a check finds an app of apps through its child).
    every_app: bool,
}

fn environment(error: &ProbeError) -> Error {
    Error::Environment(format!(
        "cannot capture a snapshot: {error}. {}",
        error.fix()
    ))
}

/// What the checks of `steps` read of the cluster.
pub(crate) fn targets<'a>(steps: impl Iterator<Item = &'a crate::course::Step>) -> Targets {
    let mut targets = Targets::default();
    for check in steps.flat_map(|step| &step.checks) {
        let reads = check.kind.cluster_reads();
        targets.objects.extend(
            reads
                .objects
                .into_iter()
                .map(|o| (o.api, o.resource, o.namespace, o.name)),
        );
        targets.jobs.extend(reads.jobs);
        targets.apps.extend(reads.apps);
        targets.every_app |= reads.every_app;
    }
    targets
}

/// Capture the snapshot and write it; returns the exit code.
pub async fn run(args: &SnapshotArgs) -> Result<u8, Error> {
    let run = &RunArgs {
        course_dir: args.course_dir.clone(),
        cluster: args.cluster.clone(),
        ..RunArgs::default()
    };
    if run.cluster.snapshot.is_some() {
        return Err(Error::Usage(
            "`labcheck snapshot` reads a live cluster; drop --snapshot (use --kubeconfig/--context)"
                .to_string(),
        ));
    }
    let course = load_course(run)?;
    let module = course.module(&args.module)?;
    let argocd_ns = run
        .cluster
        .argocd_namespace
        .clone()
        .unwrap_or_else(|| module.manifest.argocd.namespace.clone());
    let targets = targets(module.steps.iter());
    let cluster = Cluster::connect(&run.cluster.options()).await;
    let snapshot = capture(&cluster, &argocd_ns, targets, &args.module).await?;
    let yaml = snapshot
        .to_yaml()
        .map_err(|e| Error::Environment(format!("cannot write the snapshot: {e}")))?;
    std::fs::write(&args.out, yaml)
        .map_err(|e| Error::Environment(format!("cannot write {}: {e}", args.out.display())))?;
    emit(&format!(
        "wrote {} objects and {} logs from {} to {}\n",
        snapshot.objects.len(),
        snapshot.logs.len(),
        cluster.describe(),
        args.out.display()
    ));
    Ok(exit::PASS)
}

pub(crate) async fn capture(
    cluster: &Cluster,
    argocd_ns: &str,
    mut targets: Targets,
    module: &str,
) -> Result<Snapshot, Error> {
    let mut snapshot = Snapshot::new()
        .with_description(&format!("{module}: captured from {}", cluster.describe()));
    let mut namespaces: BTreeSet<String> = BTreeSet::new();
    let mut pod_namespaces: BTreeSet<String> = BTreeSet::new();
    if !targets.apps.is_empty() {
        let crd = ApiPath::new("apiextensions.k8s.io/v1", "customresourcedefinitions")
            .named("applications.argoproj.io");
        // Reading CRDs needs a cluster-wide grant a learner may lack; the Application objects
        // alone still let the snapshot server serve them.
        match cluster.get(&crd, "the apiextensions API").await {
            Ok(Some(object)) => snapshot = snapshot.with_object(clean(object)),
            Ok(None) | Err(ProbeError::Forbidden { .. }) => {}
            Err(e) => return Err(environment(&e)),
        }
    }
    if targets.every_app {
        let all = ApiPath::new("argoproj.io/v1alpha1", "applications").in_namespace(argocd_ns);
        let apps = cluster
            .list(&all, "Argo CD (its Application CRD)")
            .await
            .map_err(|e| environment(&e))?;
        targets.apps.extend(
            apps.iter()
                .filter_map(|app| app.pointer("/metadata/name").and_then(Value::as_str))
                .map(str::to_string),
        );
    }
    for name in &targets.apps {
        let path = application_path(argocd_ns, name);
        let Some(app) = cluster
            .get(&path, "Argo CD (its Application CRD)")
            .await
            .map_err(|e| environment(&e))?
        else {
            continue;
        };
        namespaces.insert(argocd_ns.to_string());
        if let Some(dest) = app
            .pointer("/spec/destination/namespace")
            .and_then(Value::as_str)
        {
            pod_namespaces.insert(dest.to_string());
        }
        let entries = app
            .pointer("/status/operationState/syncResult/resources")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for entry in entries {
            if entry["kind"] == "Job"
                && let (Some(ns), Some(job)) = (entry["namespace"].as_str(), entry["name"].as_str())
            {
                targets.jobs.insert((ns.to_string(), job.to_string()));
            }
        }
        snapshot = snapshot.with_object(clean(app));
    }
    for (api, resource, ns, name) in &targets.objects {
        let mut path = ApiPath::new(api, resource);
        if let Some(ns) = ns {
            path = path.in_namespace(ns);
            namespaces.insert(ns.clone());
        }
        let what = format!("the {api} API");
        if let Some(object) = cluster
            .get(&path.named(name), &what)
            .await
            .map_err(|e| environment(&e))?
        {
            snapshot = snapshot.with_object(clean(object));
        }
    }
    let mut pods_seen = BTreeSet::new();
    for (ns, name) in &targets.jobs {
        namespaces.insert(ns.clone());
        let path = ApiPath::new("batch/v1", "jobs")
            .in_namespace(ns)
            .named(name);
        if let Some(job) = cluster
            .get(&path, "the batch/v1 API")
            .await
            .map_err(|e| environment(&e))?
        {
            snapshot = snapshot.with_object(clean(job));
        }
    }
    pod_namespaces.extend(targets.jobs.iter().map(|(ns, _)| ns.clone()));
    // All pods of the namespaces the checks look at: Job pods for logs, Deployment pods for the
    // "cannot start" diagnosis.
    for ns in &pod_namespaces {
        namespaces.insert(ns.clone());
        let list = ApiPath::new("v1", "pods").in_namespace(ns);
        for mut pod in cluster
            .list(&list, "the core API")
            .await
            .map_err(|e| environment(&e))?
        {
            // List items come without apiVersion and kind; a snapshot object needs both.
            pod["apiVersion"] = Value::from("v1");
            pod["kind"] = Value::from("Pod");
            let Some(pod_name) = pod
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .map(str::to_string)
            else {
                continue;
            };
            let is_job_pod = pod.pointer("/metadata/labels/job-name").is_some();
            let containers: Vec<String> = pod
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .map(|cs| {
                    cs.iter()
                        .filter_map(|c| c["name"].as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if is_job_pod && pods_seen.insert((ns.clone(), pod_name.clone())) {
                for container in &containers {
                    if let LogRead::Text(text) = cluster
                        .logs(ns, &pod_name, Some(container))
                        .await
                        .map_err(|e| environment(&e))?
                    {
                        snapshot = snapshot.with_container_log(ns, &pod_name, container, &text);
                    }
                }
            }
            snapshot = snapshot.with_object(clean(pod));
        }
    }
    for ns in namespaces {
        let path = ApiPath::new("v1", "namespaces").named(&ns);
        if let Ok(Some(object)) = cluster.get(&path, "the core API").await {
            snapshot = snapshot.with_object(clean(object));
        }
    }
    snapshot
        .check()
        .map_err(|e| Error::Environment(format!("the captured snapshot is not valid: {e}")))?;
    Ok(snapshot)
}

/// Drop `managedFields`: large, never read by a check, and noise in a file people read.
fn clean(mut object: Value) -> Value {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    object
}
