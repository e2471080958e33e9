//! Waiting for the cluster to change: a watch stream per kind and namespace read so far keeps
//! the cache current, and a followed stream each pod log read so far; what no stream keeps
//! current is read again about once a second.

use super::{Access, Cluster, WAIT_POLL, follow, watch};

impl Cluster {
    /// How many changes this run has seen so far; give it to [`Cluster::wait_for_change`].
    pub fn generation(&self) -> u64 {
        *self.changes.borrow()
    }

    /// Wait until the cluster changes after `seen` (a watch event on a kind read so far), or
    /// until `deadline`; then make the cache answer the next reads with the current state.
    ///
    /// Every kind and namespace read so far, or while it waits, gets one watch stream (list, then watch) that keeps
    /// its reads in the cache current, and every pod log read so far is followed (`kubectl logs
    /// -f`). Reads no stream keeps current (the log of a container that has terminated, a kind
    /// the server will not watch, a stream still connecting) are looked at again about once a
    /// second, as they always were. Returns the generation to give next time.
    pub async fn wait_for_change(&self, seen: u64, deadline: std::time::Instant) -> u64 {
        let deadline = tokio::time::Instant::from_std(deadline);
        let poll_at = tokio::time::Instant::now() + WAIT_POLL;
        let mut changes = self.changes.subscribe();
        let mut reads = self.reads_made.subscribe();
        loop {
            reads.mark_unchanged();
            let polled = self.start_watches();
            let until = if polled {
                deadline.min(poll_at)
            } else {
                deadline
            };
            tokio::select! {
                _ = changes.wait_for(|n| *n > seen) => break,
                // A read made while this waits (watch mode judges while its ticker waits):
                // follow it too, from now, not from the next wait.
                Ok(()) = reads.changed() => continue,
                () = tokio::time::sleep_until(until) => break,
            }
        }
        self.forget_unwatched();
        self.generation()
    }

    /// Start a stream for every collection read so far; whether some read stays polled.
    fn start_watches(&self) -> bool {
        let Access::Api {
            watch_client,
            config,
            ..
        } = &self.access
        else {
            return true;
        };
        let client = watch_client.get_or_init(|| {
            let mut config = (**config).clone();
            config.read_timeout = None;
            super::config::client(&config).ok()
        });
        // Each read with whether it is a log to follow (its cached answer says so).
        let reads: Vec<(String, bool)> = self
            .cache_lock()
            .iter()
            .map(|(url, (_, cell))| {
                let answer = cell.get().and_then(|a| a.as_ref().ok());
                (url.clone(), follow::followable(url, answer))
            })
            .collect();
        if let Some(client) = client {
            let feed = || watch::Feed {
                client: client.clone(),
                cache: self.cache.clone(),
                changes: self.changes.clone(),
                streamed: self.follows.streamed(),
                watch_seconds: self.watch_seconds,
            };
            // Every log is marked followed before any watch starts: a watch's first list,
            // answered on another thread, drops each cached pod log no stream answers, and the
            // next look would read that log again.
            for (url, _) in reads.iter().filter(|(_, log)| *log) {
                self.follows.ensure(url, feed());
            }
            for (url, _) in &reads {
                if let Some(target) = watch::target(url) {
                    self.watches.ensure(&target.collection, feed());
                }
            }
        }
        reads
            .iter()
            .any(|(url, _)| watch::target(url).is_none() || !self.kept_current(url))
    }

    /// Whether a live stream keeps the cached read at `url` current: the watch of its
    /// collection for an object or a list, the followed log for a pod's log.
    fn kept_current(&self, url: &str) -> bool {
        watch::target(url).is_some_and(|t| match t.subresource {
            None => self.watches.state(&t.collection) == Some(watch::StreamState::Live),
            Some("log") => {
                self.follows.state(url) == Some(follow::FollowState::Open)
                    || (self.follows.settled(url)
                        && self.watches.state(&t.collection) == Some(watch::StreamState::Live))
            }
            Some(_) => false,
        })
    }

    /// Drop every cached read that no live stream keeps current and that is a poll interval
    /// old, so the next look reads it anew (about once a second, as before there were streams).
    fn forget_unwatched(&self) {
        let entries: Vec<(String, std::time::Instant)> = self
            .cache_lock()
            .iter()
            .map(|(url, (sent, _))| (url.clone(), *sent))
            .collect();
        let stale: Vec<String> = entries
            .into_iter()
            .filter(|(url, sent)| sent.elapsed() >= WAIT_POLL && !self.kept_current(url))
            .map(|(url, _)| url)
            .collect();
        let mut cache = self.cache_lock();
        for url in stale {
            cache.remove(&url);
        }
    }

    /// The collections watched so far (`/apis/batch/v1/namespaces/ns/jobs`).
    pub fn watched(&self) -> Vec<String> {
        self.watches.started()
    }

    /// The pod log reads followed so far (`/api/v1/namespaces/ns/pods/p/log?container=c`).
    pub fn followed(&self) -> Vec<String> {
        self.follows.started()
    }
}
