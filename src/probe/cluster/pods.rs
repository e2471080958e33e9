//! Which pod `kubectl logs job/NAME` reads, and what a stuck pod says about itself.

use std::cmp::Ordering;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::jiff::Timestamp;

/// Sort pods as kubectl's `podutils.ByLogging` does and return the one `kubectl logs job/NAME`
/// would read: scheduled first, Running > Unknown > Pending, ready first, ready longest, most
/// restarts, oldest (facts file §e).
pub fn pod_for_logs(pods: &[Pod]) -> Option<&Pod> {
    let mut sorted: Vec<&Pod> = pods.iter().collect();
    sorted.sort_by(|a, b| by_logging(a, b));
    sorted.first().copied()
}

fn by_logging(a: &Pod, b: &Pod) -> Ordering {
    let scheduled = |p: &Pod| {
        p.spec
            .as_ref()
            .and_then(|s| s.node_name.as_deref())
            .is_some_and(|n| !n.is_empty())
    };
    let phase = |p: &Pod| match p.status.as_ref().and_then(|s| s.phase.as_deref()) {
        Some("Running") => 2,
        Some("Unknown") => 1,
        _ => 0,
    };
    let ready_since = |p: &Pod| -> Option<Timestamp> {
        p.status
            .as_ref()?
            .conditions
            .as_ref()?
            .iter()
            .find(|c| c.type_ == "Ready" && c.status == "True")
            .map(|c| {
                c.last_transition_time
                    .as_ref()
                    .map(|t| t.0)
                    .unwrap_or_default()
            })
    };
    let restarts = |p: &Pod| -> i32 {
        p.status
            .as_ref()
            .and_then(|s| s.container_statuses.as_ref())
            .map(|cs| cs.iter().map(|c| c.restart_count).max().unwrap_or(0))
            .unwrap_or(0)
    };
    let created = |p: &Pod| p.metadata.creation_timestamp.as_ref().map(|t| t.0);

    scheduled(b)
        .cmp(&scheduled(a))
        .then_with(|| phase(b).cmp(&phase(a)))
        .then_with(|| ready_since(b).is_some().cmp(&ready_since(a).is_some()))
        .then_with(|| match (ready_since(a), ready_since(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => Ordering::Equal,
        })
        .then_with(|| restarts(b).cmp(&restarts(a)))
        .then_with(|| match (created(a), created(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            // kubectl puts pods without a timestamp last.
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        })
}

/// A container that cannot start, with the kubelet's reason and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckContainer {
    pub pod: String,
    pub container: String,
    pub reason: String,
    pub message: String,
    /// How the container's previous run ended (`exit code 1, Error`), for a crash loop.
    pub last_exit: Option<String>,
}

/// The first container of `pod` waiting for a reason that will not fix itself by waiting
/// (`CreateContainerConfigError`, `ImagePullBackOff`, `CrashLoopBackOff`, …).
pub fn stuck_container(pod: &Pod) -> Option<StuckContainer> {
    let statuses = pod.status.as_ref()?.container_statuses.as_ref()?;
    statuses.iter().find_map(|cs| {
        let waiting = cs.state.as_ref()?.waiting.as_ref()?;
        let reason = waiting.reason.clone()?;
        if reason == "ContainerCreating" || reason == "PodInitializing" {
            return None;
        }
        let last_exit = cs
            .last_state
            .as_ref()
            .and_then(|l| l.terminated.as_ref())
            .map(|t| match t.reason.as_deref() {
                Some(r) => format!("exit code {}, {r}", t.exit_code),
                None => format!("exit code {}", t.exit_code),
            });
        Some(StuckContainer {
            pod: pod.metadata.name.clone().unwrap_or_default(),
            container: cs.name.clone(),
            reason,
            message: waiting.message.clone().unwrap_or_default(),
            last_exit,
        })
    })
}

/// Whether `pod` is one of `kind` `name`'s: a Job's by its `job-name` label, a Deployment's by
/// its ReplicaSet (`<name>-<pod-template-hash>`, the owner the Deployment controller gives it).
pub fn belongs_to(pod: &Pod, kind: &str, name: &str) -> bool {
    let labels = pod.metadata.labels.as_ref();
    let label = |key: &str| labels.and_then(|l| l.get(key)).map(String::as_str);
    match kind {
        "Job" => [label("batch.kubernetes.io/job-name"), label("job-name")].contains(&Some(name)),
        "Deployment" => {
            let Some(hash) = label("pod-template-hash") else {
                return false;
            };
            let replica_set = format!("{name}-{hash}");
            pod.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|owner| owner.kind == "ReplicaSet" && owner.name == replica_set)
        }
        _ => false,
    }
}

/// The container `kubectl logs` reads by default: the `kubectl.kubernetes.io/default-container`
/// annotation, else the first container.
pub fn default_container(pod: &Pod) -> Option<String> {
    if let Some(name) = pod
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("kubectl.kubernetes.io/default-container"))
    {
        return Some(name.clone());
    }
    pod.spec
        .as_ref()?
        .containers
        .first()
        .map(|c| c.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_belongs_to_its_job_by_label_and_to_its_deployment_by_its_replica_set() {
        let pod = |labels: serde_json::Value, owner: &str| -> Pod {
            serde_json::from_value(
                serde_json::json!({"metadata": {"name": "p", "labels": labels,
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                     "uid": "u"}]}}),
            )
            .unwrap_or_default()
        };
        let web = pod(
            serde_json::json!({"app": "checkout", "pod-template-hash": "7b7d464cf5"}),
            "checkout-7b7d464cf5",
        );
        let migrate = pod(
            serde_json::json!({"job-name": "checkout-migrate", "batch.kubernetes.io/job-name": "checkout-migrate"}),
            "",
        );
        let cases = [
            (&web, "Deployment", "checkout", true),
            // A Deployment whose name the pod's only starts with is not its owner.
            (&web, "Deployment", "checkout-7b7d464cf5", false),
            (&web, "Deployment", "check", false),
            (&web, "Job", "checkout", false),
            (&migrate, "Job", "checkout-migrate", true),
            (&migrate, "Job", "checkout", false),
            (&migrate, "Deployment", "checkout", false),
            (&migrate, "StatefulSet", "checkout-migrate", false),
        ];
        for (pod, kind, name, belongs) in cases {
            assert_eq!(belongs_to(pod, kind, name), belongs, "{kind} {name}");
        }
    }

    fn pod(name: &str, phase: &str, created: &str, node: bool) -> Pod {
        let json = serde_json::json!({
            "metadata": {"name": name, "creationTimestamp": created},
            "spec": {"containers": [{"name": "migrate"}], "nodeName": if node { "kind-control-plane" } else { "" }},
            "status": {"phase": phase}
        });
        serde_json::from_value(json).unwrap_or_default()
    }

    #[test]
    fn kubectl_reads_the_running_scheduled_pod_else_the_oldest_failed_one() {
        let cases = [
            (
                vec![
                    pod("b", "Failed", "2026-05-02T10:15:10Z", true),
                    pod("a", "Failed", "2026-05-02T10:15:00Z", true),
                ],
                "a",
            ),
            (
                vec![
                    pod("old-failed", "Failed", "2026-05-02T10:15:00Z", true),
                    pod("pending", "Pending", "2026-05-02T10:14:00Z", false),
                    pod("running", "Running", "2026-05-02T10:16:00Z", true),
                ],
                "running",
            ),
        ];
        for (pods, expected) in cases {
            assert_eq!(
                pod_for_logs(&pods).and_then(|p| p.metadata.name.as_deref()),
                Some(expected)
            );
        }
    }

    #[test]
    fn a_missing_configmap_shows_as_a_stuck_container() {
        let json = serde_json::json!({
            "metadata": {"name": "checkout-7d9f"},
            "status": {"phase": "Pending", "containerStatuses": [{
                "name": "podinfo", "ready": false, "restartCount": 0, "image": "x", "imageID": "",
                "state": {"waiting": {"reason": "CreateContainerConfigError",
                                      "message": "configmap \"checkout-config\" not found"}}}]}
        });
        let pod: Pod = serde_json::from_value(json).unwrap_or_default();
        let stuck = stuck_container(&pod);
        assert_eq!(
            stuck.map(|s| (s.reason, s.message)),
            Some((
                "CreateContainerConfigError".to_string(),
                "configmap \"checkout-config\" not found".to_string()
            ))
        );
    }
}
