//! Builders for the Kubernetes and Argo CD objects of module 10, in the shapes the API returns
//! (facts file a7, e). Deterministic: the same inputs give the same objects, uids included.

use serde_json::{Value, json};

/// Namespace of the team's app.
pub const NS: &str = "checkout-dev";
/// Namespace Argo CD runs in.
pub const ARGOCD_NS: &str = "argocd";
/// The Application of module 10.
pub const APP: &str = "checkout-dev";
/// The node every pod runs on (kind's single node).
const NODE: &str = "kind-control-plane";

/// A uuid-shaped id derived from `seed` (FNV-1a), so snapshots are reproducible.
pub fn uid(seed: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut second: u64 = 0x8422_2325_cbf2_9ce4;
    for byte in seed.bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        second = (second ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let hex = format!("{hash:016x}{second:016x}");
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// A 5-character pod suffix as the Job controller makes them, from `seed`.
fn suffix(seed: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let id = uid(seed);
    id.bytes()
        .filter(u8::is_ascii_hexdigit)
        .take(5)
        .map(|b| ALPHABET[usize::from(b) % ALPHABET.len()] as char)
        .collect()
}

/// A Namespace.
pub fn namespace(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": name, "uid": uid(name), "creationTimestamp": "2026-05-02T09:00:00Z"},
        "status": {"phase": "Active"}})
}

/// Argo CD's Application CRD (trimmed to what discovery needs).
pub fn application_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "applications.argoproj.io", "uid": uid("crd-applications")},
        "spec": {"group": "argoproj.io", "scope": "Namespaced",
            "names": {"kind": "Application", "listKind": "ApplicationList", "plural": "applications",
                      "singular": "application", "shortNames": ["app", "apps"]},
            "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                "additionalPrinterColumns": [
                    {"name": "Sync Status", "type": "string", "jsonPath": ".status.sync.status"},
                    {"name": "Health Status", "type": "string", "jsonPath": ".status.health.status"},
                    {"name": "Revision", "type": "string", "jsonPath": ".status.sync.revision", "priority": 10}]}]}})
}

/// The Lua health check step 1 adds to `argocd-cm`.
pub const HEALTH_LUA: &str = "hs = {}\nhs.status = \"Progressing\"\nhs.message = \"\"\nif obj.status ~= nil and obj.status.health ~= nil then\n  hs.status = obj.status.health.status\n  if obj.status.health.message ~= nil then\n    hs.message = obj.status.health.message\n  end\nend\nreturn hs\n";

/// `argocd-cm`, with or without step 1's health key.
pub fn argocd_cm(with_health_check: bool) -> Value {
    let mut data = json!({
        "ui.bannercontent": "Course cluster: every change goes through git",
        "ui.bannerpermanent": "true",
        "timeout.reconciliation": "60s",
    });
    if with_health_check {
        data["resource.customizations.health.argoproj.io_Application"] = json!(HEALTH_LUA);
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": ARGOCD_NS, "uid": uid("argocd-cm"),
            "creationTimestamp": "2026-05-02T09:00:10Z",
            "labels": {"app.kubernetes.io/name": "argocd-cm", "app.kubernetes.io/part-of": "argocd"}},
        "data": data})
}

/// The ConfigMap `checkout-config` (wave -1).
pub fn checkout_config() -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "checkout-config", "namespace": NS, "uid": uid("checkout-config"),
            "creationTimestamp": "2026-05-02T09:20:00Z",
            "annotations": {"argocd.argoproj.io/sync-wave": "-1"}},
        "data": {"PODINFO_UI_MESSAGE": "checkout (dev)"}})
}

/// The Deployment `checkout` running podinfo `tag`.
pub fn deployment(tag: &str, ready: bool) -> Value {
    let image = format!("ghcr.io/stefanprodan/podinfo:{tag}");
    let available = i32::from(ready);
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "checkout", "namespace": NS, "uid": uid("deploy-checkout"), "generation": 3,
            "creationTimestamp": "2026-05-02T09:20:00Z", "labels": {"app.kubernetes.io/name": "checkout"}},
        "spec": {"replicas": 1, "progressDeadlineSeconds": 600,
            "selector": {"matchLabels": {"app.kubernetes.io/name": "checkout"}},
            "template": {"metadata": {"labels": {"app.kubernetes.io/name": "checkout"}},
                "spec": {"containers": [{"name": "podinfo", "image": image,
                    "ports": [{"containerPort": 9898, "name": "http"}],
                    "envFrom": [{"configMapRef": {"name": "checkout-config"}}]}]}}},
        "status": {"observedGeneration": 3, "replicas": 1, "updatedReplicas": 1,
            "readyReplicas": available, "availableReplicas": available}})
}

/// A pod of the Deployment; `waiting` = (reason, message) for a container that cannot start.
pub fn deployment_pod(tag: &str, created: &str, waiting: Option<(&str, &str)>) -> Value {
    let name = format!(
        "checkout-6d8f7b9c5-{}",
        suffix(&format!("checkout-{tag}-{created}"))
    );
    let image = format!("ghcr.io/stefanprodan/podinfo:{tag}");
    let (phase, state, ready) = match waiting {
        Some((reason, message)) => (
            "Pending",
            json!({"waiting": {"reason": reason, "message": message}}),
            false,
        ),
        None => ("Running", json!({"running": {"startedAt": created}}), true),
    };
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "uid": uid(&name), "creationTimestamp": created,
            "labels": {"app.kubernetes.io/name": "checkout", "pod-template-hash": "6d8f7b9c5"}},
        "spec": {"nodeName": NODE, "containers": [{"name": "podinfo", "image": image}]},
        "status": {"phase": phase,
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }, "lastTransitionTime": created}],
            "containerStatuses": [{"name": "podinfo", "ready": ready, "restartCount": 0, "image": image,
                "imageID": "", "state": state}]}})
}

/// How a Job ended (or not yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobEnd {
    Complete,
    /// `backoffLimit: 0` and the only pod failed.
    Failed,
    Running,
}

/// A hook Job of the checkout chart.
pub struct HookJob<'a> {
    pub name: &'a str,
    /// `PreSync`, `PostSync`, `SyncFail`.
    pub hook: &'a str,
    pub container: &'a str,
    pub tag: &'a str,
    /// `creationTimestamp` (also the pod's); the end is 10 s later.
    pub created: &'a str,
    pub end: JobEnd,
    pub log: &'a str,
}

/// The Job, its pod and the pod's log key and text.
pub fn hook_job(h: &HookJob) -> (Value, Value, String, String) {
    let job_uid = uid(&format!("{}-{}", h.name, h.created));
    let labels = json!({"batch.kubernetes.io/controller-uid": job_uid, "batch.kubernetes.io/job-name": h.name,
        "controller-uid": job_uid, "job-name": h.name});
    let image = format!("ghcr.io/stefanprodan/podinfo:{}", h.tag);
    let finished = plus_seconds(h.created, 10);
    let (status, pod_phase, state) = match h.end {
        JobEnd::Complete => (
            json!({"succeeded": 1, "startTime": h.created, "completionTime": finished, "conditions": [
                {"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached", "message": "Reached expected number of succeeded pods"},
                {"type": "Complete", "status": "True", "reason": "CompletionsReached", "message": "Reached expected number of succeeded pods"}]}),
            "Succeeded",
            json!({"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": finished}}),
        ),
        JobEnd::Failed => (
            json!({"failed": 1, "startTime": h.created, "conditions": [
                {"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"},
                {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}]}),
            "Failed",
            json!({"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": finished}}),
        ),
        JobEnd::Running => (
            json!({"active": 1, "ready": 1, "startTime": h.created}),
            "Running",
            json!({"running": {"startedAt": h.created}}),
        ),
    };
    let job = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": h.name, "namespace": NS, "uid": job_uid, "creationTimestamp": h.created, "labels": labels,
            "annotations": {"argocd.argoproj.io/hook": h.hook, "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation"}},
        "spec": {"backoffLimit": 0, "completions": 1, "parallelism": 1,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": job_uid}},
            "template": {"metadata": {"labels": labels},
                "spec": {"restartPolicy": "Never", "containers": [{"name": h.container, "image": image}]}}},
        "status": status});
    let pod_name = format!("{}-{}", h.name, suffix(&job_uid));
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": pod_name, "namespace": NS, "uid": uid(&pod_name), "creationTimestamp": h.created, "labels": labels,
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": h.name, "uid": job_uid,
                "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"restartPolicy": "Never", "nodeName": NODE, "containers": [{"name": h.container, "image": image}]},
        "status": {"phase": pod_phase, "startTime": h.created,
            "containerStatuses": [{"name": h.container, "ready": h.end == JobEnd::Running, "restartCount": 0,
                "image": image, "imageID": "", "state": state}]}});
    (job, pod, format!("{NS}/{pod_name}"), h.log.to_string())
}

/// `at` plus `seconds`, for the fixed timestamps of the lab (`2026-05-02T10:14:58Z`).
pub fn plus_seconds(at: &str, seconds: i64) -> String {
    match at.parse::<jiff::Timestamp>() {
        Ok(t) => (t + jiff::SignedDuration::from_secs(seconds)).to_string(),
        Err(_) => at.to_string(),
    }
}

/// One `syncResult.resources` entry as Argo CD v3.1–v3.3 writes it.
pub fn entry(
    kind: &str,
    name: &str,
    sync_phase: &str,
    hook: bool,
    hook_phase: &str,
    message: &str,
) -> Value {
    let group = match kind {
        "Job" => "batch",
        "Deployment" => "apps",
        _ => "",
    };
    let mut e = json!({"group": group, "version": "v1", "kind": kind, "namespace": NS, "name": name,
        "syncPhase": sync_phase, "hookPhase": hook_phase, "message": message});
    if hook {
        // ≤ v3.3 clears `status` on finished hooks (facts file, version differences).
        e["hookType"] = json!(sync_phase);
    } else {
        e["status"] = json!("Synced");
    }
    e
}

/// `status.operationState` of a sync of `revision`.
pub fn operation_state(
    phase: &str,
    message: &str,
    revision: &str,
    started: &str,
    finished: Option<&str>,
    resources: Vec<Value>,
) -> Value {
    let mut op = json!({"phase": phase, "message": message, "startedAt": started,
        "operation": {"initiatedBy": {"username": "admin"}, "retry": {},
            "sync": {"revision": revision, "syncStrategy": {"hook": {}}}},
        "syncResult": {"revision": revision, "resources": resources}});
    if let Some(finished) = finished {
        op["finishedAt"] = json!(finished);
    }
    op
}

/// The Application `checkout-dev`.
pub struct AppState<'a> {
    pub sync: &'a str,
    /// The revision Argo CD compared against last.
    pub revision: &'a str,
    pub health: &'a str,
    pub operation_state: Option<Value>,
    /// Revisions of successful syncs, oldest first (`status.history`).
    pub history: Vec<(&'a str, &'a str)>,
}

/// The Application object.
pub fn application(s: &AppState) -> Value {
    let history: Vec<Value> = s
        .history
        .iter()
        .enumerate()
        .map(|(i, (rev, at))| json!({"id": i + 1, "revision": rev, "deployStartedAt": at, "deployedAt": plus_seconds(at, 40),
            "initiatedBy": {"username": "admin"}}))
        .collect();
    let mut status = json!({"sync": {"status": s.sync, "revision": s.revision,
            "comparedTo": {"source": {"repoURL": "http://git.course.local/team-checkout/checkout-config.git", "targetRevision": "main", "path": "helm"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": NS}}},
        "health": {"status": s.health}, "history": history, "resourceHealthSource": "appTree",
        "sourceType": "Helm", "reconciledAt": "2026-05-02T11:30:00Z"});
    let mut app = json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": APP, "namespace": ARGOCD_NS, "uid": uid("app-checkout-dev"), "creationTimestamp": "2026-05-02T09:10:00Z",
            "annotations": {"argocd.argoproj.io/tracking-id": format!("{ROOT_APP}:argoproj.io/Application:{ARGOCD_NS}/{APP}")}},
        "spec": {"project": "team-checkout",
            "source": {"repoURL": "http://git.course.local/team-checkout/checkout-config.git", "targetRevision": "main", "path": "helm"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": NS},
            "syncPolicy": {"automated": {}}}});
    if let Some(op) = &s.operation_state {
        if op.get("phase").and_then(Value::as_str) == Some("Running") {
            // `.operation` exists only while an operation is pending or running (facts a).
            app["operation"] = op.get("operation").cloned().unwrap_or(Value::Null);
        }
        status["operationState"] = op.clone();
    }
    app["status"] = status;
    app
}

/// The platform's app of apps (module 1): it manages `apps/*.yaml` of argocd-platform.
pub const ROOT_APP: &str = "platform";

/// The platform's child Applications with their waves, in the order a sync applies them.
const PLATFORM_CHILDREN: &[(&str, &str)] = &[("projects", "-2"), ("namespaces", "-1")];

/// The app of apps and its wave -2/-1 children (annotation tracking, v3.0+ default), its last
/// sync having applied them in wave order before checkout-dev (wave 0).
pub fn platform_apps() -> Vec<Value> {
    let entry = |name: &str| {
        json!({"group": "argoproj.io", "version": "v1alpha1", "kind": "Application", "namespace": ARGOCD_NS,
            "name": name, "status": "Synced", "message": format!("application.argoproj.io/{name} configured"),
            "hookPhase": "Running", "syncPhase": "Sync"})
    };
    let mut entries: Vec<Value> = PLATFORM_CHILDREN.iter().map(|(n, _)| entry(n)).collect();
    entries.push(entry(APP));
    let mut objects = vec![
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": ROOT_APP, "namespace": ARGOCD_NS, "uid": uid("app-platform"), "creationTimestamp": "2026-05-02T09:00:20Z"},
        "spec": {"project": "platform",
            "source": {"repoURL": "http://git.course.local/platform/argocd-platform.git", "targetRevision": "main", "path": "apps"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": ARGOCD_NS},
            "syncPolicy": {"automated": {}}},
        "status": {"sync": {"status": "Synced"}, "health": {"status": "Healthy"},
            "operationState": {"phase": "Succeeded", "message": "successfully synced (all tasks run)",
                "startedAt": "2026-05-02T09:05:00Z", "finishedAt": "2026-05-02T09:05:30Z",
                "operation": {"sync": {}},
                "syncResult": {"resources": entries}}}}),
    ];
    for (name, wave) in PLATFORM_CHILDREN {
        objects.push(json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {"name": name, "namespace": ARGOCD_NS, "uid": uid(&format!("app-{name}")),
                "creationTimestamp": "2026-05-02T09:05:01Z",
                "annotations": {"argocd.argoproj.io/sync-wave": wave,
                    "argocd.argoproj.io/tracking-id": format!("{ROOT_APP}:argoproj.io/Application:{ARGOCD_NS}/{name}")}},
            "spec": {"project": "platform",
                "source": {"repoURL": "http://git.course.local/platform/argocd-platform.git", "targetRevision": "main", "path": name},
                "destination": {"server": "https://kubernetes.default.svc"}},
            "status": {"sync": {"status": "Synced"}, "health": {"status": "Healthy"}}}));
    }
    objects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uids_are_reproducible_and_distinct() {
        assert_eq!(uid("a"), uid("a"));
        assert_ne!(uid("a"), uid("b"));
        assert_eq!(uid("a").len(), 36);
    }

    #[test]
    fn timestamps_add_up() {
        assert_eq!(
            plus_seconds("2026-05-02T10:14:58Z", 10),
            "2026-05-02T10:15:08Z"
        );
    }
}
