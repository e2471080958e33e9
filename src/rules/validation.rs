//! What the API server's validation refuses in an object it could decode: the checks of
//! `k8s.io/kubernetes pkg/apis/core/validation` and `pkg/apis/batch/validation` that learners'
//! manifests trip over, in its words (`field.Error`: `<path>: Required value`, `<path>:
//! Unsupported value: "X": supported values: "A", "B"`), and in its order for these fields.
//!
//! Read at `k8s.io/kubernetes` v1.37.0: `validateContainers` (`validation.go:4146`) refuses an
//! empty `containers` list, then per container `validateContainerCommon` (`:3998`) a missing
//! `name`, then a missing `image`; init containers come after the containers
//! (`ValidatePodSpec`, `:4778`). A Job's pod template is checked by the pod rules first and then
//! by the Job's own (`batch/validation/validation.go:297-310`): `restartPolicy` left out (which
//! the defaults make `Always`) or `Always` is `Required value: valid values: "OnFailure",
//! "Never"`, any other word but those two is `Unsupported value`. A CronJob's Job template is read
//! the same way. Everything else validation checks is not read here (named in docs/plan.md).

use serde_json::Value as Json;

/// One field validation refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The field's path, as the server writes it (`spec.template.spec.containers[0].image`).
    pub path: String,
    /// The server's words after the path (`Required value`).
    pub says: String,
}

impl Invalid {
    /// `<path>: <words>`, as `field.Error.Error()` writes it.
    pub fn error(&self) -> String {
        format!("{}: {}", self.path, self.says)
    }
}

/// Where the pod spec of an object of `kind` lies (`None`: a kind without one).
fn pod_spec_path(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "Pod" => &["spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        "Job" | "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" => {
            &["spec", "template", "spec"]
        }
        _ => return None,
    })
}

fn text<'v>(value: &'v Json, key: &str) -> &'v str {
    value.get(key).and_then(Json::as_str).unwrap_or_default()
}

/// Every field of `object` (of `kind`, as Argo CD sends it) the server's validation refuses,
/// among those read here, in the server's order.
pub fn invalid(kind: &str, object: &Json) -> Vec<Invalid> {
    let Some(path) = pod_spec_path(kind) else {
        return Vec::new();
    };
    // A Deployment without `spec`, say, is refused for other fields this file does not read.
    let Some(spec) = path.iter().try_fold(object, |at, key| at.get(key)) else {
        return Vec::new();
    };
    let at = path.join(".");
    let mut found = Vec::new();
    let containers = spec.get("containers").and_then(Json::as_array);
    match containers {
        None => found.push(required(format!("{at}.containers"), "")),
        Some(list) if list.is_empty() => found.push(required(format!("{at}.containers"), "")),
        Some(list) => containers_refused(&format!("{at}.containers"), list, &mut found),
    }
    if let Some(list) = spec.get("initContainers").and_then(Json::as_array) {
        containers_refused(&format!("{at}.initContainers"), list, &mut found);
    }
    // The pod's own rule (`validateRestartPolicy`, after the containers), then the Job's.
    let policy = text(spec, "restartPolicy");
    if !matches!(policy, "" | "Always" | "OnFailure" | "Never") {
        found.push(unsupported(
            format!("{at}.restartPolicy"),
            policy,
            &["Always", "OnFailure", "Never"],
        ));
    }
    if matches!(kind, "Job" | "CronJob") {
        match policy {
            "OnFailure" | "Never" => {}
            // Left out, the defaults make it `Always` before validation runs.
            "" | "Always" => found.push(required(
                format!("{at}.restartPolicy"),
                "valid values: \"OnFailure\", \"Never\"",
            )),
            other => found.push(unsupported(
                format!("{at}.restartPolicy"),
                other,
                &["OnFailure", "Never"],
            )),
        }
    }
    found
}

fn required(path: String, detail: &str) -> Invalid {
    let says = if detail.is_empty() {
        "Required value".to_string()
    } else {
        format!("Required value: {detail}")
    };
    Invalid { path, says }
}

/// `field.NotSupported`: `Unsupported value: "X": supported values: "A", "B"` (Go's `%q`).
fn unsupported(path: String, value: &str, supported: &[&str]) -> Invalid {
    let quoted: Vec<String> = supported.iter().map(|v| format!("{v:?}")).collect();
    Invalid {
        path,
        says: format!(
            "Unsupported value: {value:?}: supported values: {}",
            quoted.join(", ")
        ),
    }
}

fn containers_refused(at: &str, list: &[Json], found: &mut Vec<Invalid>) {
    for (i, container) in list.iter().enumerate() {
        if text(container, "name").is_empty() {
            found.push(required(format!("{at}[{i}].name"), ""));
        }
        if text(container, "image").is_empty() {
            found.push(required(format!("{at}[{i}].image"), ""));
        }
    }
}
