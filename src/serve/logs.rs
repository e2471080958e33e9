//! `GET …/pods/{name}/log`: the snapshot's log text, with the parameters and the 400/404 answers
//! of a real API server (messages from kubelet and the pod log REST storage).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::request::Query;
use super::status::{self, Plain, Qualified};
use crate::snapshot::ClusterState;

fn names(pod: &Value, field: &str) -> Vec<String> {
    pod.pointer(&format!("/spec/{field}"))
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A numeric parameter; the error is the 400 message.
fn number(query: &Query, key: &str) -> Result<Option<usize>, String> {
    match query.get(key) {
        None | Some("") => Ok(None),
        Some(text) => text.parse::<usize>().map(Some).map_err(|_| {
            format!("{key}: Invalid value: \"{text}\": must be a non-negative integer")
        }),
    }
}

/// Answer a log request for `namespace/pod`.
pub(super) fn serve(
    state: &ClusterState,
    namespace: &str,
    pod_name: &str,
    query: &Query,
) -> Response {
    let Some(pod) = state.get("v1", "Pod", namespace, pod_name) else {
        return status::not_found(
            &Qualified {
                group: "",
                plural: "pods",
            },
            pod_name,
        );
    };
    let containers = names(pod, "containers");
    let init = names(pod, "initContainers");
    let ephemeral = names(pod, "ephemeralContainers");
    let container = match query.get("container").filter(|c| !c.is_empty()) {
        Some(c) => c.to_string(),
        None => match containers.as_slice() {
            [only] if init.is_empty() => only.clone(),
            // A pod written without spec.containers: its `<ns>/<pod>` log is the one to serve.
            [] => String::new(),
            _ => {
                let mut message = format!(
                    "a container name must be specified for pod {pod_name}, choose one of: [{}]",
                    containers.join(" ")
                );
                if !init.is_empty() {
                    message.push_str(&format!(
                        " or one of the init containers: [{}]",
                        init.join(" ")
                    ));
                }
                return status::bad_request(&message);
            }
        },
    };
    let known = containers.is_empty()
        || containers.contains(&container)
        || init.contains(&container)
        || ephemeral.contains(&container);
    if !known {
        return status::bad_request(&format!(
            "container {container} is not valid for pod {pod_name}"
        ));
    }
    let (tail, limit) = match (number(query, "tailLines"), number(query, "limitBytes")) {
        (Ok(t), Ok(l)) => (t, l),
        (Err(message), _) | (_, Err(message)) => return status::bad_request(&message),
    };
    let previous = query.flag("previous");
    let first = containers.first().is_none_or(|c| *c == container) || container.is_empty();
    let Some(text) = state.log(namespace, pod_name, &container, first, previous) else {
        if previous {
            return status::bad_request(&format!(
                "previous terminated container \"{container}\" in pod \"{pod_name}\" not found"
            ));
        }
        if let Some(reason) = waiting_reason(pod, &container) {
            return status::bad_request(&format!(
                "container \"{container}\" in pod \"{pod_name}\" is waiting to start: {reason}"
            ));
        }
        // A container that ran without printing anything.
        return Plain(StatusCode::OK, String::new()).into_response();
    };
    let mut body = match tail {
        Some(n) => {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            lines[lines.len().saturating_sub(n)..].concat()
        }
        None => text.to_string(),
    }
    .into_bytes();
    if let Some(limit) = limit {
        body.truncate(limit);
    }
    (
        StatusCode::OK,
        [(axum::http::header::CONTENT_TYPE, "text/plain")],
        body,
    )
        .into_response()
}

fn waiting_reason<'a>(pod: &'a Value, container: &str) -> Option<&'a str> {
    ["containerStatuses", "initContainerStatuses"]
        .iter()
        .filter_map(|field| pod.pointer(&format!("/status/{field}"))?.as_array())
        .flatten()
        .find(|s| s["name"] == container)
        .and_then(|s| s.pointer("/state/waiting/reason"))
        .and_then(Value::as_str)
}
