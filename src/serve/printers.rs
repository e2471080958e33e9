//! The columns the real server's printers give the kinds the course shows
//! (k8s `pkg/printers/internalversion/printers.go`), for `kubectl get`.

use jiff::Timestamp;
use serde_json::{Value, json};

pub(super) struct Column {
    pub(super) name: &'static str,
    pub(super) kind: &'static str,
    pub(super) format: &'static str,
    pub(super) priority: i64,
}

/// Computes a row's cells after the name.
pub(super) type Cells = fn(&Value, Timestamp) -> Vec<Value>;

const fn col(name: &'static str, kind: &'static str, priority: i64) -> Column {
    Column {
        name,
        kind,
        format: "",
        priority,
    }
}

pub(super) const NAME: Column = Column {
    name: "Name",
    kind: "string",
    format: "name",
    priority: 0,
};

/// The columns after NAME and the function computing them, for objects of `kind`.
pub(super) fn for_kind(kind: &str) -> (&'static [Column], Cells) {
    match kind {
        "Job" => (JOB, job_cells),
        "Pod" => (POD, pod_cells),
        "Deployment" => (DEPLOYMENT, deployment_cells),
        "ConfigMap" => (CONFIGMAP, configmap_cells),
        "Secret" => (SECRET, secret_cells),
        "Namespace" => (NAMESPACE, namespace_cells),
        _ => (GENERIC, generic_cells),
    }
}

fn int(o: &Value, pointer: &str) -> i64 {
    o.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

fn text<'a>(o: &'a Value, pointer: &str) -> &'a str {
    o.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn timestamp(o: &Value, pointer: &str) -> Option<Timestamp> {
    o.pointer(pointer)?.as_str()?.parse().ok()
}

fn age(o: &Value, now: Timestamp) -> Value {
    match timestamp(o, "/metadata/creationTimestamp") {
        Some(created) => json!(human_duration(now.as_second() - created.as_second())),
        None => json!("<unknown>"),
    }
}

/// kubectl's `duration.HumanDuration`: `45s`, `3m20s`, `5h`, `2d3h`, `400d`.
pub fn human_duration(seconds: i64) -> String {
    if seconds < 0 {
        return "0s".to_string();
    }
    let minutes = seconds / 60;
    let hours = minutes / 60;
    let days = hours / 24;
    if seconds < 60 * 2 {
        format!("{seconds}s")
    } else if minutes < 10 {
        match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        }
    } else if minutes < 60 * 3 {
        format!("{minutes}m")
    } else if hours < 8 {
        match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        }
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        match hours % 24 {
            0 => format!("{days}d"),
            h => format!("{days}d{h}h"),
        }
    } else if hours < 24 * 365 * 2 {
        format!("{days}d")
    } else if hours < 24 * 365 * 8 {
        match days % 365 {
            0 => format!("{}y", days / 365),
            d => format!("{}y{d}d", days / 365),
        }
    } else {
        format!("{}y", days / 365)
    }
}

const GENERIC: &[Column] = &[col("Age", "string", 0)];

fn generic_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    vec![age(o, now)]
}

const JOB: &[Column] = &[
    col("Status", "string", 0),
    col("Completions", "string", 0),
    col("Duration", "string", 0),
    col("Age", "string", 0),
    col("Containers", "string", 1),
    col("Images", "string", 1),
    col("Selector", "string", 1),
];

fn has_true_condition(o: &Value, kind: &str) -> bool {
    o.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|conditions| {
            conditions
                .iter()
                .any(|c| c["type"] == kind && c["status"] == "True")
        })
}

fn job_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    let status = if has_true_condition(o, "Complete") {
        "Complete"
    } else if has_true_condition(o, "Failed") {
        "Failed"
    } else if o.pointer("/metadata/deletionTimestamp").is_some() {
        "Terminating"
    } else if has_true_condition(o, "Suspended") {
        "Suspended"
    } else if has_true_condition(o, "FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    let succeeded = int(o, "/status/succeeded");
    let completions = match o.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(c) => format!("{succeeded}/{c}"),
        None => match o.pointer("/spec/parallelism").and_then(Value::as_i64) {
            Some(p) if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    let duration = match timestamp(o, "/status/startTime") {
        Some(start) => {
            let end = timestamp(o, "/status/completionTime").unwrap_or(now);
            human_duration(end.as_second() - start.as_second())
        }
        None => String::new(),
    };
    let (containers, images) = containers_and_images(o, "/spec/template/spec/containers");
    vec![
        json!(status),
        json!(completions),
        json!(duration),
        age(o, now),
        json!(containers),
        json!(images),
        json!(selector(o)),
    ]
}

fn containers_and_images(o: &Value, pointer: &str) -> (String, String) {
    let containers = o.pointer(pointer).and_then(Value::as_array);
    let list = |field: &str| {
        containers
            .map(|cs| {
                cs.iter()
                    .filter_map(|c| c[field].as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default()
    };
    (list("name"), list("image"))
}

fn selector(o: &Value) -> String {
    o.pointer("/spec/selector/matchLabels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

const POD: &[Column] = &[
    col("Ready", "string", 0),
    col("Status", "string", 0),
    col("Restarts", "string", 0),
    col("Age", "string", 0),
    col("IP", "string", 1),
    col("Node", "string", 1),
    col("Nominated Node", "string", 1),
    col("Readiness Gates", "string", 1),
];

fn pod_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    let total = o
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let statuses = o
        .pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ready = statuses.iter().filter(|s| s["ready"] == true).count();
    let restarts: i64 = statuses
        .iter()
        .filter_map(|s| s["restartCount"].as_i64())
        .sum();
    let mut reason = match text(o, "/status/reason") {
        "" => text(o, "/status/phase").to_string(),
        r => r.to_string(),
    };
    for s in statuses.iter().rev() {
        if let Some(r) = s.pointer("/state/waiting/reason").and_then(Value::as_str) {
            reason = r.to_string();
        } else if let Some(t) = s.pointer("/state/terminated") {
            reason = match t["reason"].as_str() {
                Some(r) => r.to_string(),
                None => format!("ExitCode:{}", t["exitCode"].as_i64().unwrap_or(0)),
            };
        }
    }
    if o.pointer("/metadata/deletionTimestamp").is_some() {
        reason = "Terminating".to_string();
    }
    vec![
        json!(format!("{ready}/{total}")),
        json!(reason),
        json!(restarts.to_string()),
        age(o, now),
        json!(match text(o, "/status/podIP") {
            "" => "<none>",
            ip => ip,
        }),
        json!(match text(o, "/spec/nodeName") {
            "" => "<none>",
            node => node,
        }),
        json!(match text(o, "/status/nominatedNodeName") {
            "" => "<none>",
            node => node,
        }),
        json!(readiness_gates(o)),
    ]
}

/// `true/total` of the pod's readiness gates (the first condition of each gate's type counts), or
/// `<none>` (`printPod` in `pkg/printers/internalversion/printers.go`).
fn readiness_gates(o: &Value) -> String {
    let gates = o
        .pointer("/spec/readinessGates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if gates.is_empty() {
        return "<none>".to_string();
    }
    let conditions = o
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ready = gates
        .iter()
        .filter(|gate| {
            conditions
                .iter()
                .find(|c| c["type"] == gate["conditionType"])
                .is_some_and(|c| c["status"] == "True")
        })
        .count();
    format!("{ready}/{}", gates.len())
}

const DEPLOYMENT: &[Column] = &[
    col("Ready", "string", 0),
    col("Up-to-date", "integer", 0),
    col("Available", "integer", 0),
    col("Age", "string", 0),
    col("Containers", "string", 1),
    col("Images", "string", 1),
    col("Selector", "string", 1),
];

fn deployment_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    let desired = o
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let (containers, images) = containers_and_images(o, "/spec/template/spec/containers");
    vec![
        json!(format!("{}/{desired}", int(o, "/status/readyReplicas"))),
        json!(int(o, "/status/updatedReplicas")),
        json!(int(o, "/status/availableReplicas")),
        age(o, now),
        json!(containers),
        json!(images),
        json!(selector(o)),
    ]
}

fn data_count(o: &Value) -> i64 {
    let count = |key: &str| o.get(key).and_then(Value::as_object).map_or(0, |m| m.len());
    (count("data") + count("binaryData")) as i64
}

const CONFIGMAP: &[Column] = &[col("Data", "integer", 0), col("Age", "string", 0)];

fn configmap_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    vec![json!(data_count(o)), age(o, now)]
}

const SECRET: &[Column] = &[
    col("Type", "string", 0),
    col("Data", "integer", 0),
    col("Age", "string", 0),
];

fn secret_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    vec![json!(text(o, "/type")), json!(data_count(o)), age(o, now)]
}

const NAMESPACE: &[Column] = &[col("Status", "string", 0), col("Age", "string", 0)];

fn namespace_cells(o: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(match text(o, "/status/phase") {
            "" => "Active",
            phase => phase,
        }),
        age(o, now),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        assert_eq!(human_duration(45), "45s");
        assert_eq!(human_duration(200), "3m20s");
        assert_eq!(human_duration(30 * 60), "30m");
        assert_eq!(human_duration(5 * 3600 + 60), "5h1m");
        assert_eq!(human_duration(3 * 86400 + 3600), "3d1h");
        assert_eq!(human_duration(400 * 86400), "400d");
    }

    #[test]
    fn a_failed_job_shows_failed_and_zero_of_one() {
        let job = json!({
            "metadata": {"name": "checkout-migrate", "creationTimestamp": "2026-05-02T10:00:00Z"},
            "spec": {"completions": 1},
            "status": {"failed": 1, "startTime": "2026-05-02T10:00:00Z",
                       "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}
        });
        let now: Timestamp = "2026-05-02T10:00:40Z".parse().expect("valid");
        let cells = job_cells(&job, now);
        assert_eq!(cells[0], "Failed");
        assert_eq!(cells[1], "0/1");
        assert_eq!(cells[2], "40s");
    }
}
