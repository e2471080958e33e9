//! Which pod-log reads a followed stream answers, shared by the log followers and the watch
//! streams (a pod's event must not drop a log its stream keeps current). Below both.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// The log reads followed streams answer, shared with the watch streams: a pod's event must not
/// drop them (their next look would read the log again, the round trip following saves).
#[derive(Debug, Default)]
pub(super) struct Streamed {
    /// Followed (the stream is open, or being opened: the plain read stands until it is).
    pub(super) following: HashSet<String>,
    /// The server ended the stream and the pod did not show the container terminated yet.
    pub(super) ended: HashSet<String>,
    /// The server ended the stream and the pod shows the container terminated: the cached read
    /// is its whole log, for as long as the pod's watch says it still is.
    pub(super) settled: HashSet<String>,
}

/// [`Streamed`], shared.
pub(super) type StreamedLogs = Arc<Mutex<Streamed>>;

pub(super) fn lock_streamed(logs: &StreamedLogs) -> std::sync::MutexGuard<'_, Streamed> {
    logs.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether the cached log read at `url` stays as a pod event about `pod` arrives: it is
/// streamed, or its stream ended and `pod` (as the event left it) shows the container
/// terminated. A log whose container runs again is forgotten here, to be read anew.
pub(super) fn survives(logs: &StreamedLogs, url: &str, pod: Option<&Value>) -> bool {
    let mut logs = lock_streamed(logs);
    if logs.following.contains(url) {
        return true;
    }
    if !logs.ended.remove(url) && !logs.settled.contains(url) {
        return false;
    }
    if pod.is_some_and(|pod| has_terminated(pod, container_of(url).as_deref())) {
        logs.settled.insert(url.to_string());
        return true;
    }
    logs.settled.remove(url);
    false
}

/// Whether the log read at `url` is a terminated container's whole log (its stream ended and
/// the pod shows the container terminated).
pub(super) fn settled(logs: &StreamedLogs, url: &str) -> bool {
    lock_streamed(logs).settled.contains(url)
}

/// The container a log read names (`?container=`).
pub(super) fn container_of(url: &str) -> Option<String> {
    let query = super::target::target(url)?.query?;
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "container")
        .map(|(_, v)| v.into_owned())
}

/// Whether `container` of `pod` (every container when none is named) has terminated, as its
/// status says; a pod that ended (Succeeded, Failed) has none running.
pub(super) fn has_terminated(pod: &Value, container: Option<&str>) -> bool {
    if matches!(
        pod.pointer("/status/phase").and_then(Value::as_str),
        Some("Succeeded" | "Failed")
    ) {
        return true;
    }
    let statuses: Vec<&Value> = ["containerStatuses", "initContainerStatuses"]
        .iter()
        .filter_map(|field| pod.pointer(&format!("/status/{field}"))?.as_array())
        .flatten()
        .filter(|s| container.is_none_or(|c| s["name"] == c))
        .collect();
    !statuses.is_empty()
        && statuses
            .iter()
            .all(|s| s.pointer("/state/terminated").is_some())
}
