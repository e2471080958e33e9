//! The background streams of one run (the watch streams, the followed logs), by the URL each
//! one serves: each with the state it reports and its task, started once and aborted when the
//! run's cluster is dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::task::JoinHandle;

/// A running stream: the state its task reports, and the task.
type Stream<S> = (Arc<Mutex<S>>, JoinHandle<()>);

/// The streams of one run, by key (a collection URL, a log read's URL).
pub(super) struct Streams<S> {
    streams: Mutex<HashMap<String, Stream<S>>>,
}

impl<S> Default for Streams<S> {
    fn default() -> Self {
        Streams {
            streams: Mutex::new(HashMap::new()),
        }
    }
}

impl<S> Drop for Streams<S> {
    fn drop(&mut self) {
        let streams = self.streams.get_mut().unwrap_or_else(|p| p.into_inner());
        for (_, (_, task)) in streams.drain() {
            task.abort();
        }
    }
}

impl<S: Copy> Streams<S> {
    /// Lock the map; a panic elsewhere leaves it a map of started streams, still valid.
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Stream<S>>> {
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The state of the stream for `key`, if one was started.
    pub(super) fn state(&self, key: &str) -> Option<S> {
        self.lock()
            .get(key)
            .map(|(state, _)| *state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The keys of the streams started so far, sorted.
    pub(super) fn started(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.lock().keys().cloned().collect();
        keys.sort();
        keys
    }

    /// Start the stream for `key` with `spawn`, its state at `initial`, unless one was started
    /// already (a stream that ended included: `spawn` runs at most once per key).
    pub(super) fn ensure(
        &self,
        key: &str,
        initial: S,
        spawn: impl FnOnce(Arc<Mutex<S>>) -> JoinHandle<()>,
    ) {
        let mut streams = self.lock();
        if streams.contains_key(key) {
            return;
        }
        let state = Arc::new(Mutex::new(initial));
        let task = spawn(state.clone());
        streams.insert(key.to_string(), (state, task));
    }
}
