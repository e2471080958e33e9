//! `GET …/pods/{name}/log`: the snapshot's log text, with the parameters and the 400/404 answers
//! of a real API server (messages from kubelet and the pod log REST storage). With
//! `follow=true` the answer stays open as kubelet's does (`kubectl logs -f`): what the log holds
//! now, then what each later state of the timeline appends, until the container has terminated.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::Shared;
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

/// What a log request asks for, its parameters checked against the pod.
struct Asked {
    container: String,
    /// Whether `container` is the pod's first (a `<ns>/<pod>` log belongs to it).
    first: bool,
    previous: bool,
    tail: Option<usize>,
    limit: Option<usize>,
    follow: bool,
}

/// The container and parameters of a log request, or the message of the API's 400 for them.
fn asked(pod: &Value, pod_name: &str, query: &Query) -> Result<Asked, String> {
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
                return Err(message);
            }
        },
    };
    let known = containers.is_empty()
        || containers.contains(&container)
        || init.contains(&container)
        || ephemeral.contains(&container);
    if !known {
        return Err(format!(
            "container {container} is not valid for pod {pod_name}"
        ));
    }
    let (tail, limit) = match (number(query, "tailLines"), number(query, "limitBytes")) {
        (Ok(t), Ok(l)) => (t, l),
        (Err(message), _) | (_, Err(message)) => return Err(message),
    };
    Ok(Asked {
        first: containers.first().is_none_or(|c| *c == container) || container.is_empty(),
        container,
        previous: query.flag("previous"),
        tail,
        limit,
        follow: query.flag("follow"),
    })
}

/// Answer a log request for `namespace/pod` in state `index` of the timeline.
pub(super) fn serve(
    shared: &Arc<Shared>,
    index: usize,
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
    let asked = match asked(pod, pod_name, query) {
        Ok(asked) => asked,
        Err(message) => return status::bad_request(&message),
    };
    let container = &asked.container;
    let text = state.log(namespace, pod_name, container, asked.first, asked.previous);
    if text.is_none() {
        if asked.previous {
            return status::bad_request(&format!(
                "previous terminated container \"{container}\" in pod \"{pod_name}\" not found"
            ));
        }
        if let Some(reason) = waiting_reason(pod, container) {
            return status::bad_request(&format!(
                "container \"{container}\" in pod \"{pod_name}\" is waiting to start: {reason}"
            ));
        }
    }
    // A container that ran without printing anything has an empty log.
    let text = text.unwrap_or_default();
    let mut body = match asked.tail {
        Some(n) => {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            lines[lines.len().saturating_sub(n)..].concat()
        }
        None => text.to_string(),
    }
    .into_bytes();
    if let Some(limit) = asked.limit {
        body.truncate(limit);
    }
    // kubelet follows the current container until it exits; a previous one has ended already.
    if asked.follow && !asked.previous && !terminated(pod, container) {
        let followed = Followed {
            shared: shared.clone(),
            namespace: namespace.to_string(),
            pod: pod_name.to_string(),
            restarts: restart_count(pod, container),
            text: text.to_string(),
            asked,
        };
        return followed.answer(index, body);
    }
    if text.is_empty() && body.is_empty() {
        return Plain(StatusCode::OK, String::new()).into_response();
    }
    (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], body).into_response()
}

/// A log followed along the timeline.
struct Followed {
    shared: Arc<Shared>,
    namespace: String,
    pod: String,
    /// The container's restart count when the stream began: a restart ends the instance followed.
    restarts: i64,
    /// The whole log as last sent from (before `tailLines`).
    text: String,
    asked: Asked,
}

type Sender = tokio::sync::mpsc::Sender<Result<Bytes, std::io::Error>>;

impl Followed {
    /// A chunked 200 that sends `first` now and the log's growth as the timeline moves on.
    fn answer(self, index: usize, first: Vec<u8>) -> Response {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(16);
        tokio::spawn(self.run(index, first, tx));
        let stream = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
        let mut response = Response::new(Body::from_stream(stream));
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        response
    }

    /// Send the log from state `at` on; return when the container terminated, the pod went,
    /// the log stopped growing from what was sent (another instance), `limitBytes` was reached
    /// or the client left. Past the timeline's last state the stream stays open, as a running
    /// container's does.
    async fn run(mut self, mut at: usize, first: Vec<u8>, tx: Sender) {
        let mut sent = 0;
        if !self.send(&tx, first, &mut sent).await {
            return;
        }
        loop {
            let next = at + 1;
            let Some((after, state)) = self.shared.states.get(next).cloned() else {
                // Nothing more will change: open until the client leaves.
                tx.closed().await;
                return;
            };
            // Delivered one latency after the state begins, as watch events are.
            let when = self.shared.started + after + self.shared.options.latency;
            tokio::select! {
                () = tokio::time::sleep_until(when) => {}
                () = tx.closed() => return,
            }
            let Some(pod) = state.get("v1", "Pod", &self.namespace, &self.pod) else {
                return;
            };
            let container = self.asked.container.as_str();
            if restart_count(pod, container) != self.restarts {
                return;
            }
            let now = state
                .log(
                    &self.namespace,
                    &self.pod,
                    container,
                    self.asked.first,
                    false,
                )
                .unwrap_or_default();
            let Some(more) = now.strip_prefix(self.text.as_str()) else {
                return;
            };
            let more = more.as_bytes().to_vec();
            if !self.send(&tx, more, &mut sent).await || terminated(pod, container) {
                return;
            }
            self.text = now.to_string();
            at = next;
        }
    }

    /// Send `bytes` within `limitBytes`; whether the stream goes on.
    async fn send(&self, tx: &Sender, mut bytes: Vec<u8>, sent: &mut usize) -> bool {
        if let Some(limit) = self.asked.limit {
            bytes.truncate(limit.saturating_sub(*sent));
        }
        *sent += bytes.len();
        if !bytes.is_empty() && tx.send(Ok(Bytes::from(bytes))).await.is_err() {
            return false;
        }
        self.asked.limit.is_none_or(|limit| *sent < limit)
    }
}

/// The status of `container` in `pod` (regular, init or ephemeral).
fn container_status<'a>(pod: &'a Value, container: &str) -> Option<&'a Value> {
    [
        "containerStatuses",
        "initContainerStatuses",
        "ephemeralContainerStatuses",
    ]
    .iter()
    .filter_map(|field| pod.pointer(&format!("/status/{field}"))?.as_array())
    .flatten()
    .find(|s| s["name"] == container)
}

/// Whether `container` has exited: its status says so, or, without one, the pod has ended.
fn terminated(pod: &Value, container: &str) -> bool {
    match container_status(pod, container) {
        Some(status) => status.pointer("/state/terminated").is_some(),
        None => matches!(
            pod.pointer("/status/phase").and_then(Value::as_str),
            Some("Succeeded" | "Failed")
        ),
    }
}

fn restart_count(pod: &Value, container: &str) -> i64 {
    container_status(pod, container)
        .and_then(|s| s["restartCount"].as_i64())
        .unwrap_or(0)
}

fn waiting_reason<'a>(pod: &'a Value, container: &str) -> Option<&'a str> {
    container_status(pod, container)
        .and_then(|s| s.pointer("/state/waiting/reason"))
        .and_then(Value::as_str)
}
