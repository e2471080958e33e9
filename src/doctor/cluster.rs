//! Doctor's cluster side: kubeconfig, API and version, clock, Argo CD, the module's Applications.

use std::time::Duration;

use jiff::Timestamp;
use serde_json::Value;

use super::{Setup, report, with_fix};
use crate::outcome::Outcome;
use crate::probe::cluster::config;
use crate::probe::cluster::server::ServerVersion;
use crate::probe::cluster::{ApiPath, Cluster, ProbeError};
use crate::run::CheckReport;

/// Clocks further apart than this fail: TLS certificates and Argo CD's tokens are checked against
/// the local clock, and timestamps in `kubectl`/`argocd` output stop matching the learner's.
pub const MAX_CLOCK_SKEW: Duration = Duration::from_secs(30);

/// Argo CD's parts the course needs running; each may be a Deployment or a StatefulSet (the
/// application controller is a StatefulSet in recent releases, a Deployment in old ones).
const COMPONENTS: [&str; 3] = [
    "argocd-server",
    "argocd-repo-server",
    "argocd-application-controller",
];

const CRD: &str = "applications.argoproj.io";

fn install_hint(ns: &str) -> String {
    format!(
        "install Argo CD: `kubectl create namespace {ns}` and `kubectl apply -n {ns} --server-side --force-conflicts -f https://raw.githubusercontent.com/argoproj/argo-cd/stable/manifests/install.yaml`; if it runs elsewhere, pass --argocd-namespace, or point labcheck at the course cluster with --kubeconfig/--context"
    )
}

/// Why the checks that need the API were not made.
const NO_API: &str = "the Kubernetes API was not reached (see `api`)";

pub(super) async fn checks(setup: &Setup) -> Vec<CheckReport> {
    let mut out = Vec::new();
    let (kubeconfig, cluster) = connect(setup).await;
    out.push(report(
        "kubeconfig",
        "kubeconfig",
        "a kubeconfig and context to reach the cluster".to_string(),
        kubeconfig,
    ));

    let version = match &cluster {
        Some(cluster) => Some(cluster.server_version().await),
        None => None,
    };
    out.push(report(
        "api",
        "cluster",
        "the Kubernetes API answers, with its version".to_string(),
        api_outcome(version.as_ref(), cluster.as_ref()),
    ));
    out.push(report(
        "clock",
        "cluster",
        format!(
            "this machine's clock agrees with the cluster's (within {}s)",
            MAX_CLOCK_SKEW.as_secs()
        ),
        match &version {
            Some(Ok(v)) => match v.date {
                Some(date) => clock_outcome(v.asked_at, v.answered_at, date),
                None => Outcome::could_not_check("the API server's answer had no Date header"),
            },
            _ => not_asked(NO_API),
        },
    ));

    // Only a cluster that answered is asked further: one unreachable API is one failure, and
    // everything after it says it was not checked.
    let reached = match (&cluster, &version) {
        (Some(cluster), Some(Ok(_))) => Some(cluster),
        _ => None,
    };
    let ns = setup.argocd_namespace.as_str();
    let (crd, crd_present) = match reached {
        Some(cluster) => {
            let path =
                ApiPath::new("apiextensions.k8s.io/v1", "customresourcedefinitions").named(CRD);
            match cluster.get(&path, "the apiextensions API").await {
                Ok(Some(_)) => (
                    Outcome::pass(format!("the CRD {CRD} is installed")),
                    Some(true),
                ),
                Ok(None) => (
                    Outcome::fail(format!(
                        "the CRD {CRD} is missing: Argo CD is not installed"
                    ))
                    .with_hint(install_hint(ns)),
                    Some(false),
                ),
                Err(e) => (could_not(&e), None),
            }
        }
        None => (not_asked(NO_API), None),
    };
    out.push(report(
        "argocd-crd",
        "argocd",
        format!("Argo CD's Application type ({CRD}) is installed"),
        crd,
    ));

    for name in COMPONENTS {
        let outcome = match reached {
            Some(cluster) => component(cluster, ns, name).await,
            None => not_asked(NO_API),
        };
        out.push(report(
            name,
            "argocd",
            format!("{name} runs in {ns} and is ready"),
            outcome,
        ));
    }

    if let Some(module) = &setup.module {
        for need in &module.manifest.needs.applications {
            let app_ns = need.namespace.as_deref().unwrap_or(ns);
            let outcome = match (reached, crd_present) {
                (Some(cluster), Some(true)) => {
                    application(cluster, app_ns, &need.name, &setup.get_text(&need.get)).await
                }
                (Some(_), Some(false)) => not_asked("Argo CD is not installed (see `argocd-crd`)"),
                (Some(_), None) => not_asked(
                    "labcheck could not tell whether Argo CD is installed (see `argocd-crd`)",
                ),
                (None, _) => not_asked(NO_API),
            };
            out.push(report(
                format!("app-{}", need.name),
                "argocd_app",
                format!("the Application {app_ns}/{} exists", need.name),
                outcome,
            ));
        }
    }
    out
}

/// Resolve the kubeconfig as every run does, and say what was found.
async fn connect(setup: &Setup) -> (Outcome, Option<Cluster>) {
    let options = &setup.cluster;
    if let Some(file) = &options.snapshot {
        let cluster = Cluster::connect(options).await;
        return (
            Outcome::skip(format!(
                "not used: the cluster is read from the snapshot {}",
                file.display()
            )),
            Some(cluster),
        );
    }
    match config::resolve(options.kubeconfig.as_deref(), options.context.as_deref()).await {
        Ok(resolved) => {
            let outcome = Outcome::pass(format!("found: {}", resolved.describe));
            (
                outcome,
                Some(Cluster::from_config(resolved.config, resolved.describe)),
            )
        }
        Err(e) => (with_fix(Outcome::fail(e.to_string()), &e.fix()), None),
    }
}

fn api_outcome(
    version: Option<&Result<ServerVersion, ProbeError>>,
    cluster: Option<&Cluster>,
) -> Outcome {
    match (version, cluster) {
        (Some(Ok(v)), Some(cluster)) => {
            let platform = v
                .platform
                .as_deref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            Outcome::pass(format!(
                "Kubernetes {}{platform} answers at {}",
                v.git_version,
                cluster.describe()
            ))
        }
        (Some(Err(e)), _) => with_fix(Outcome::fail(e.to_string()), &e.fix()),
        _ => not_asked("there is no usable kubeconfig (see `kubeconfig`)"),
    }
}

/// Compare the clocks. The server stamps its answer somewhere between `asked` and `answered`, in
/// whole seconds (rounded down), so only a difference beyond that uncertainty counts.
pub fn clock_outcome(asked: Timestamp, answered: Timestamp, server: Timestamp) -> Outcome {
    let as_ms = |t: Timestamp| t.as_millisecond();
    let server_mid = as_ms(server) + 500;
    let local_mid = (as_ms(asked) + as_ms(answered)) / 2;
    let uncertainty = (as_ms(answered) - as_ms(asked)) / 2 + 500;
    let raw = local_mid - server_mid;
    let skew = (raw.abs() - uncertainty).max(0);
    let seconds = (skew + 500) / 1000;
    let limit = i64::try_from(MAX_CLOCK_SKEW.as_millis()).unwrap_or(i64::MAX);
    if skew <= limit {
        return Outcome::pass(if seconds == 0 {
            "the clocks agree (within a second)".to_string()
        } else {
            format!("the clocks differ by about {seconds}s")
        });
    }
    let direction = if raw > 0 { "ahead of" } else { "behind" };
    let span = humantime::format_duration(Duration::from_secs(seconds.unsigned_abs()));
    Outcome::fail(format!(
        "this machine's clock is {span} {direction} the cluster's (cluster: {server})"
    ))
    .with_hint("set this machine's clock from the network (`sudo timedatectl set-ntp true`; on macOS, System Settings → General → Date & Time); with Docker Desktop, restart it: its VM's clock drifts after sleep")
}

/// `name` as a Deployment or a StatefulSet in `ns`.
async fn component(cluster: &Cluster, ns: &str, name: &str) -> Outcome {
    let get = |resource: &str| {
        let path = ApiPath::new("apps/v1", resource)
            .in_namespace(ns)
            .named(name);
        async move { cluster.get(&path, "the apps/v1 API").await }
    };
    let (deployment, statefulset) = futures::join!(get("deployments"), get("statefulsets"));
    match (deployment, statefulset) {
        (Err(ProbeError::NamespaceMissing { namespace }), _)
        | (_, Err(ProbeError::NamespaceMissing { namespace })) => Outcome::fail(format!(
            "the namespace {namespace} does not exist: Argo CD is not installed there"
        ))
        .with_hint(install_hint(ns)),
        (Err(e), _) | (_, Err(e)) => could_not(&e),
        (Ok(deployment), Ok(statefulset)) => {
            workload_outcome(ns, name, deployment.as_ref(), statefulset.as_ref())
        }
    }
}

/// Whether Argo CD's `name` runs: found as a StatefulSet or a Deployment, with every replica
/// ready.
pub fn workload_outcome(
    ns: &str,
    name: &str,
    deployment: Option<&Value>,
    statefulset: Option<&Value>,
) -> Outcome {
    let (kind, object) = match (statefulset, deployment) {
        (Some(object), _) => ("statefulset", object),
        (None, Some(object)) => ("deployment", object),
        (None, None) => {
            return Outcome::fail(format!(
                "{name} is neither a Deployment nor a StatefulSet in {ns}"
            ))
            .with_hint(install_hint(ns));
        }
    };
    let count = |v: &Value| v.as_i64().unwrap_or(0);
    let wanted = object["spec"].get("replicas").map(count).unwrap_or(1);
    let ready = count(&object["status"]["readyReplicas"]);
    if wanted == 0 {
        return Outcome::fail(format!("{kind}/{name} is scaled to 0 replicas")).with_hint(format!(
            "scale it up: `kubectl -n {ns} scale {kind}/{name} --replicas=1`"
        ));
    }
    if ready >= wanted {
        Outcome::pass(format!("{kind}/{name}: {ready}/{wanted} ready"))
    } else {
        Outcome::fail(format!("{kind}/{name}: {ready}/{wanted} ready"))
            .with_expected(format!("{wanted} ready"))
            .with_actual(format!("{ready} ready"))
            .with_hint(format!(
                "see why it is not ready: `kubectl -n {ns} describe {kind}/{name}` and `kubectl -n {ns} get pods`; wait for `kubectl -n {ns} rollout status {kind}/{name}`"
            ))
    }
}

async fn application(cluster: &Cluster, ns: &str, name: &str, get: &str) -> Outcome {
    match cluster.application(ns, name).await {
        Ok(Some(app)) => {
            let sync = app.status.sync.status.as_deref().unwrap_or("unknown");
            let health = app.status.health.status.as_deref().unwrap_or("unknown");
            Outcome::pass(format!("exists (sync: {sync}, health: {health})"))
        }
        Ok(None) => Outcome::fail(format!("there is no Application {name} in {ns}")).with_hint(get),
        Err(ProbeError::NamespaceMissing { namespace }) => {
            Outcome::fail(format!("the namespace {namespace} does not exist"))
                .with_hint(install_hint(ns))
        }
        Err(e) => could_not(&e),
    }
}

fn could_not(error: &ProbeError) -> Outcome {
    with_fix(Outcome::could_not_check(error.to_string()), &error.fix())
}

fn not_asked(why: &str) -> Outcome {
    Outcome::could_not_check(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Status;
    use serde_json::json;

    /// The clock check of a question asked at `asked` (this machine's clock), answered at
    /// `answered`, and stamped `server` by the API server: times of day on 2026-05-02, UTC.
    fn clocks(asked: &str, answered: &str, server: &str) -> Outcome {
        let at = |time: &str| -> Timestamp {
            format!("2026-05-02T{time}Z").parse().expect("a timestamp")
        };
        clock_outcome(at(asked), at(answered), at(server))
    }

    #[test]
    fn clocks_a_few_seconds_apart_pass_and_two_minutes_fail_with_the_direction() {
        let close = clocks("10:00:00.100", "10:00:00.300", "10:00:00");
        assert_eq!(close.status, Status::Pass, "{close:?}");
        assert_eq!(close.summary, "the clocks agree (within a second)");

        let ahead = clocks("10:02:05.100", "10:02:05.300", "10:00:00");
        assert_eq!(ahead.status, Status::Fail);
        assert!(
            ahead
                .summary
                .starts_with("this machine's clock is 2m 4s ahead of the cluster's"),
            "{}",
            ahead.summary
        );
        assert!(ahead.own_hint().is_some());

        let behind = clocks("09:59:00", "09:59:00.200", "10:00:00");
        behind.assert_says("behind");
    }

    #[test]
    fn a_slow_answer_widens_what_counts_as_agreeing() {
        // 40 s between question and answer: the server's stamp may be anywhere in between.
        let slow = clocks("10:00:00", "10:00:40", "10:00:39");
        assert_eq!(slow.status, Status::Pass, "{slow:?}");
    }

    #[test]
    fn the_controller_counts_as_a_statefulset_or_a_deployment() {
        let sts = json!({"spec": {"replicas": 1}, "status": {"readyReplicas": 1}});
        let ok = workload_outcome("argocd", "argocd-application-controller", None, Some(&sts));
        assert_eq!(ok.status, Status::Pass);
        assert_eq!(
            ok.summary,
            "statefulset/argocd-application-controller: 1/1 ready"
        );
        let old = workload_outcome("argocd", "argocd-application-controller", Some(&sts), None);
        assert_eq!(
            old.summary,
            "deployment/argocd-application-controller: 1/1 ready"
        );
    }

    #[test]
    fn a_component_not_ready_or_scaled_down_fails_with_a_kubectl_hint() {
        let starting = json!({"spec": {"replicas": 1}, "status": {}});
        let out = workload_outcome("argocd", "argocd-repo-server", Some(&starting), None);
        assert_eq!(out.status, Status::Fail);
        assert!(out.own_hint().as_deref().is_some_and(|h| {
            h.contains("kubectl -n argocd describe deployment/argocd-repo-server")
        }));
        let zero = json!({"spec": {"replicas": 0}, "status": {}});
        let out = workload_outcome("argocd", "argocd-server", Some(&zero), None);
        out.assert_says("scaled to 0");
        let none = workload_outcome("argocd", "argocd-server", None, None);
        assert!(
            none.own_hint()
                .as_deref()
                .is_some_and(|h| h.contains("install.yaml"))
        );
    }
}
