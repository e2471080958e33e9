//! Watch streams over a snapshot's timeline: `?watch=1` answers as the API server does, so
//! `kubectl get -w`, kube's watcher and labcheck's own waiting see each `after:` state the moment
//! it begins.
//!
//! State `i` of the timeline (the initial one is 0) has resourceVersion `1000 + i`; lists carry
//! it. A watch from resourceVersion `R` replays every change after state `R - 1000`, then sends
//! each later state's changes as ADDED / MODIFIED / DELETED events when its `after:` passes (one
//! `--latency` later, as a network would deliver them), each object stamped with the version.
//! Without a resourceVersion (or with `0`) it starts with an ADDED event per object, as a real
//! server does. With `allowWatchBookmarks=true`, a state that changes nothing of this kind sends a
//! BOOKMARK, so a client's resourceVersion keeps up. A resourceVersion older than the snapshot
//! (below 1000) is answered with the API's `410 Gone` ERROR event: the client must list again.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};

use super::Shared;
use super::request::Query;
use super::selector::{FieldSelector, LabelSelector};
use super::status;
use crate::snapshot::{ClusterState, ResourceType};

/// The resourceVersion of state 0; state `i` has `FIRST_VERSION + i`.
pub(super) const FIRST_VERSION: usize = 1000;

/// What one watch follows.
struct Follow {
    shared: Arc<Shared>,
    api_version: String,
    kind: String,
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
    bookmarks: bool,
}

/// How long after a state begins the kubelet's report of a pod in it reaches a watch, beyond the
/// network: a container's last log lines are streamed as it writes them (`logs.rs`), its
/// terminated status is reported afterwards, so a follower never sees the pod end first.
const KUBELET_REPORT_LAG: Duration = Duration::from_millis(50);

impl Follow {
    fn report_lag(&self) -> Duration {
        if self.kind == "Pod" {
            KUBELET_REPORT_LAG
        } else {
            Duration::ZERO
        }
    }
}

/// Answer `?watch=1` on a collection.
pub(super) fn serve(
    shared: Arc<Shared>,
    resource: &ResourceType,
    namespace: Option<&str>,
    query: &Query,
) -> Response {
    let (labels, fields) = match query.selectors(&resource.kind) {
        Ok(selectors) => selectors,
        Err(message) => return status::bad_request(&message),
    };
    let (current, _) = shared.current();
    // Where to start: the state after which changes are sent; `None` sends the current
    // objects as ADDED first.
    let from = match query.get("resourceVersion").unwrap_or("") {
        "" | "0" => None,
        text => match text.parse::<usize>() {
            Ok(rv) if rv < FIRST_VERSION => {
                return gone(rv, FIRST_VERSION + current);
            }
            Ok(rv) => Some((rv - FIRST_VERSION).min(current)),
            Err(_) => {
                return status::bad_request(&format!(
                    "invalid resourceVersion \"{text}\": a resourceVersion from a list or an event"
                ));
            }
        },
    };
    let timeout = query
        .get("timeoutSeconds")
        .and_then(|t| t.parse::<u64>().ok())
        .map(Duration::from_secs);
    let follow = Follow {
        shared,
        api_version: resource.api_version(),
        kind: resource.kind.clone(),
        namespace: namespace.map(str::to_string),
        labels,
        fields,
        bookmarks: query.flag("allowWatchBookmarks"),
    };
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(16);
    tokio::spawn(async move {
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        let ended = async {
            let first = match from {
                Some(state) => state,
                None => {
                    for object in follow.objects(follow.state(current)).values() {
                        follow.send(&tx, "ADDED", object, current).await?;
                    }
                    current
                }
            };
            let mut at = first;
            loop {
                let next = at + 1;
                let Some(when) = follow.shared.states.get(next).map(|(after, _)| *after) else {
                    // Nothing more will change; keep the stream open until the client or the
                    // timeout ends it, as a real server does.
                    std::future::pending::<()>().await;
                    return Some(());
                };
                // Delivered one latency after the state begins, as a network would; a pod's
                // change comes from the kubelet's status report, which follows what its
                // container wrote to a followed log.
                let at_time = follow.shared.started
                    + when
                    + follow.shared.options.latency
                    + follow.report_lag();
                tokio::time::sleep_until(at_time).await;
                follow.changes(&tx, at, next).await?;
                at = next;
            }
        };
        match deadline {
            Some(deadline) => {
                let _ = tokio::time::timeout_at(deadline, ended).await;
            }
            None => {
                ended.await;
            }
        }
    });
    let stream = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
    let mut response = Response::new(Body::from_stream(stream));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

type Sender = tokio::sync::mpsc::Sender<Result<Vec<u8>, std::io::Error>>;

impl Follow {
    fn state(&self, index: usize) -> &ClusterState {
        self.shared
            .states
            .get(index)
            .map(|(_, state)| state.as_ref())
            .unwrap_or(&super::EMPTY)
    }

    /// This watch's objects in a state, by (namespace, name).
    fn objects<'a>(&'a self, state: &'a ClusterState) -> BTreeMap<(String, String), &'a Value> {
        state
            .list(&self.api_version, &self.kind, self.namespace.as_deref())
            .filter(|o| {
                self.labels
                    .matches(o.pointer("/metadata/labels").and_then(Value::as_object))
                    && self.fields.matches(o)
            })
            .map(|o| {
                let at = |p: &str| {
                    o.pointer(p)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                ((at("/metadata/namespace"), at("/metadata/name")), o)
            })
            .collect()
    }

    /// Send the events that take state `from` to state `to` (a BOOKMARK when there are none and
    /// the client allows them). `None` when the client has gone.
    async fn changes(&self, tx: &Sender, from: usize, to: usize) -> Option<()> {
        let before = self.objects(self.state(from));
        let after = self.objects(self.state(to));
        let mut sent = false;
        for (key, object) in &after {
            let kind = match before.get(key) {
                None => "ADDED",
                Some(old) if old != object => "MODIFIED",
                Some(_) => continue,
            };
            self.send(tx, kind, object, to).await?;
            sent = true;
        }
        for (key, object) in &before {
            if !after.contains_key(key) {
                self.send(tx, "DELETED", object, to).await?;
                sent = true;
            }
        }
        if !sent && self.bookmarks {
            let bookmark = json!({
                "type": "BOOKMARK",
                "object": {
                    "kind": self.kind,
                    "apiVersion": self.api_version,
                    "metadata": {"resourceVersion": (FIRST_VERSION + to).to_string()}
                }
            });
            line(tx, &bookmark).await?;
        }
        Some(())
    }

    async fn send(&self, tx: &Sender, kind: &str, object: &Value, state: usize) -> Option<()> {
        let mut object = object.clone();
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert(
                "resourceVersion".to_string(),
                json!((FIRST_VERSION + state).to_string()),
            );
        }
        line(tx, &json!({"type": kind, "object": object})).await
    }
}

async fn line(tx: &Sender, event: &Value) -> Option<()> {
    let mut bytes = serde_json::to_vec(event).ok()?;
    bytes.push(b'\n');
    tx.send(Ok(bytes)).await.ok()
}

/// The API's answer to a watch from a resourceVersion it no longer has: a 200 stream with one
/// ERROR event holding a `410 Expired` Status, then the end.
fn gone(asked: usize, current: usize) -> Response {
    let event = json!({
        "type": "ERROR",
        "object": {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": format!("too old resource version: {asked} ({current})"),
            "reason": "Expired",
            "code": 410
        }
    });
    let mut body = serde_json::to_vec(&event).unwrap_or_default();
    body.push(b'\n');
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::OK;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
