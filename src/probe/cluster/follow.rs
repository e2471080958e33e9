//! Following a waited pod's log as `kubectl logs -f` does: `GET …/pods/NAME/log?follow=true`,
//! which the API server keeps open and feeds while the container runs and closes once it has
//! terminated. What arrives replaces the cached log read, so when the watch event says the pod
//! ended, its log is already there: the check is judged in the same round trip instead of
//! reading the log again afterwards.
//!
//! While the stream is open the cache holds whole lines only (a line still being written is
//! not evidence yet) and never less than the plain read it replaces had; once the server closed
//! the stream the cache holds the whole log, kept while the pod's watch shows the container
//! terminated (a restart drops it, to be read anew). A stream that breaks, or a log whose pod
//! does not show it ended, is left to the runner's once-a-second poll, as before.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::OnceCell;

use super::api::RawResponse;
use super::streamed::{StreamedLogs, container_of, has_terminated, lock_streamed, settled};
use super::tasks::Streams;
use super::transport::{self, MAX_LOG_BYTES};
use super::watch::{self, Feed};
use super::{Cell, REQUEST_TIMEOUT};

/// The state of one followed log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowState {
    /// Asked for, no answer yet: the cached read is not kept current.
    Starting,
    /// The server streams it: the cached read is the log as it is now.
    Open,
    /// The server closed it (the container terminated) or it broke or was refused.
    Ended,
}

/// The pod of the log read at `url` as the cache holds it now (in a cached read of the pod, or
/// of a list of its collection, both of which its watch keeps current).
fn cached_pod(feed: &Feed, url: &str) -> Option<Value> {
    let target = watch::target(url)?;
    let name = target.name?;
    let cache = watch::lock(&feed.cache);
    cache.iter().find_map(|(read, (_, cell))| {
        let of = watch::target(read)?;
        if of.collection != target.collection || of.subresource.is_some() {
            return None;
        }
        let raw = cell.get()?.as_ref().ok().filter(|raw| raw.code == 200)?;
        let value: Value = serde_json::from_str(&raw.body).ok()?;
        match of.name {
            Some(pod) if pod == name => Some(value),
            Some(_) => None,
            None => value["items"]
                .as_array()?
                .iter()
                .find(|item| item.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
                .cloned(),
        }
    })
}

/// The followed logs of one run, by the URL of their plain read.
#[derive(Default)]
pub struct Follows {
    streams: Streams<FollowState>,
    streamed: StreamedLogs,
}

impl Follows {
    /// The state of the stream following `url`, if one was started.
    pub fn state(&self, url: &str) -> Option<FollowState> {
        self.streams.state(url)
    }

    /// Whether the log read at `url` is a terminated container's whole log, by its stream.
    pub(super) fn settled(&self, url: &str) -> bool {
        settled(&self.streamed, url)
    }

    /// What the streams answer, for the watch streams' feeds.
    pub(super) fn streamed(&self) -> StreamedLogs {
        self.streamed.clone()
    }

    /// The log reads followed so far, sorted (for tests).
    pub fn started(&self) -> Vec<String> {
        self.streams.started()
    }

    /// Follow the log read at `url` unless it was followed already in this run (a stream that
    /// ended is not started again: its container has terminated, and the poll covers the rest).
    pub(super) fn ensure(&self, url: &str, feed: Feed) {
        self.streams.ensure(url, FollowState::Starting, |state| {
            lock_streamed(&feed.streamed)
                .following
                .insert(url.to_string());
            tokio::spawn(follow(url.to_string(), feed, state))
        });
    }
}

/// Whether the cached read at `url` is a pod log worth following: labcheck's own plain read of
/// one container's log (no `previous`, no limits), answered 200 and ended.
pub(super) fn followable(url: &str, cached: Option<&RawResponse>) -> bool {
    let Some(target) = watch::target(url) else {
        return false;
    };
    let plain = target.query.is_none_or(|q| {
        q.split('&')
            .all(|pair| pair.split('=').next() == Some("container"))
    });
    target.subresource == Some("log")
        && plain
        && cached.is_some_and(|raw| raw.code == 200 && !raw.unended)
}

/// `url` with `follow=true`.
fn following(url: &str) -> String {
    match url.contains('?') {
        true => format!("{url}&follow=true"),
        false => format!("{url}?follow=true"),
    }
}

/// The log as cached now: its text and its length in bytes (with what was cut before it).
fn cached(feed: &Feed, url: &str) -> Option<(String, u64)> {
    let cache = watch::lock(&feed.cache);
    let raw = cache.get(url)?.1.get()?.as_ref().ok()?;
    (raw.code == 200).then(|| {
        let total = raw.body.len() as u64 + raw.skipped;
        (raw.body.clone(), total)
    })
}

/// Follow `url`'s log until the server ends the stream or the task is aborted.
async fn follow(url: String, feed: Feed, state: Arc<Mutex<FollowState>>) {
    let set = |s: FollowState| *state.lock().unwrap_or_else(|p| p.into_inner()) = s;
    let ended = stream(&url, &feed, || set(FollowState::Open)).await;
    set(FollowState::Ended);
    // Ended by the server: the container terminated, which the pod, as its watch keeps it,
    // may show already (else its next event will).
    let terminated = ended.is_some()
        && cached_pod(&feed, &url)
            .is_some_and(|pod| has_terminated(&pod, container_of(&url).as_deref()));
    {
        let mut streamed = lock_streamed(&feed.streamed);
        streamed.following.remove(&url);
        if ended.is_some() {
            match terminated {
                true => streamed.settled.insert(url.clone()),
                false => streamed.ended.insert(url.clone()),
            };
        }
    }
    if let Some(Ended::Whole(log)) = ended {
        publish(&feed, &url, log);
    }
}

/// How the server ended a followed log.
enum Ended {
    /// With more than was published (a last line without its newline): the whole log.
    Whole(Log),
    /// With nothing more than was published.
    AsPublished,
}

/// A log as read from the stream: its kept tail and the bytes cut before it.
struct Log {
    kept: Vec<u8>,
    skipped: u64,
}

impl Log {
    /// The whole lines of it, and their length with what was cut.
    fn whole_lines(&self) -> (&[u8], u64) {
        let end = self
            .kept
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        (&self.kept[..end], self.skipped + end as u64)
    }
}

/// Read the followed log, publishing whole lines as they come, until the server ends the stream
/// (`None` when it broke or was refused: nothing more is known).
async fn stream(url: &str, feed: &Feed, opened: impl FnOnce()) -> Option<Ended> {
    use http_body::Body as _;
    let request = transport::get_request(&following(url), "application/json, */*").ok()?;
    let response = tokio::time::timeout(REQUEST_TIMEOUT, feed.client.send(request))
        .await
        .ok()?
        .ok()?;
    if response.status().as_u16() != 200 {
        return None;
    }
    opened();
    // What the plain read had: a stream that has not caught up with it yet must not make the
    // cached log shorter (a check would see a line vanish and come back).
    let (before_text, mut published) = cached(feed, url).unwrap_or_default();
    let mut log = Log {
        kept: Vec::new(),
        skipped: 0,
    };
    let mut body = response.into_body();
    loop {
        let frame = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await;
        let data = match frame {
            None if log.skipped + log.kept.len() as u64 > published => {
                return Some(Ended::Whole(log));
            }
            None => return Some(Ended::AsPublished),
            Some(Err(_)) => return None,
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue, // trailers
            },
        };
        log.kept.extend_from_slice(&data);
        if log.kept.len() > MAX_LOG_BYTES {
            let cut = log.kept.len() - MAX_LOG_BYTES;
            log.kept.drain(..cut);
            log.skipped += cut as u64;
        }
        let (lines, total) = log.whole_lines();
        // Another container instance than the one read before (a restart): its log stands on
        // its own, shorter or not.
        let diverged = log.skipped == 0
            && !lines.starts_with(before_text.as_bytes())
            && !before_text.as_bytes().starts_with(lines);
        if total > published || (diverged && total > 0) {
            published = total;
            let partial = Log {
                kept: lines.to_vec(),
                skipped: log.skipped,
            };
            publish(feed, url, partial);
        }
    }
}

/// Put `log` in the cache as the answer to the plain read at `url`, and wake the waiters.
fn publish(feed: &Feed, url: &str, log: Log) {
    let Ok(body) = transport::text(url, log.kept, log.skipped) else {
        return;
    };
    let raw = RawResponse {
        code: 200,
        body,
        skipped: log.skipped,
        location: None,
        retry_after: None,
        not_retried: None,
        unended: false,
    };
    let cell: Cell = Arc::new(OnceCell::from(Ok(raw)));
    watch::lock(&feed.cache).insert(url.to_string(), (std::time::Instant::now(), cell));
    feed.changes.send_modify(|n| *n += 1);
}
