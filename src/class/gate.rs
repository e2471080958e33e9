//! How many learners of a class are checked at once: at most [`PER_CLUSTER`] on any one API
//! server, and at most [`AT_ONCE`] in all (fewer when the process may not open enough files).
//!
//! A learner's run is mostly waiting on round trips, so a class of 200, each on their own
//! cluster, goes in one wave: its wall time is then about one learner's round trips plus the CPU
//! of the class. The bound per cluster keeps a class sharing one cluster (`--learners`) at 64 ×
//! about 5 reads, under kube-apiserver's default of 400 read requests in flight.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::probe::cluster::ClusterOptions;

/// Learners checked at once against one API server.
pub const PER_CLUSTER: usize = 64;

/// Learners checked at once in all.
pub const AT_ONCE: usize = 256;

/// Open files one learner's run may hold at once: a connection per read in flight (about 6 in
/// its first round trip), and the files of a work repo being read.
const FILES_PER_LEARNER: u64 = 12;

/// Open files kept for everything else (the course, the terminal, the runtime).
const FILES_RESERVED: u64 = 64;

/// The turns of a class's learners.
pub struct Gate {
    all: Arc<Semaphore>,
    clusters: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// A learner's turn: held while their run goes on. (A permit is `None` only if its semaphore
/// were closed, which the gate never does: no bound then, never a hang.)
pub struct Turn {
    _all: Option<OwnedSemaphorePermit>,
    _cluster: Option<OwnedSemaphorePermit>,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate::new()
    }
}

impl Gate {
    /// A gate for one class, its overall bound fitted to the open files this process may have.
    pub fn new() -> Gate {
        let files = open_files_allowed();
        let fit = (files.saturating_sub(FILES_RESERVED) / FILES_PER_LEARNER).max(1);
        Gate::bounded(AT_ONCE.min(usize::try_from(fit).unwrap_or(AT_ONCE)))
    }

    /// A gate letting `at_once` learners in at a time (and [`PER_CLUSTER`] per cluster).
    pub fn bounded(at_once: usize) -> Gate {
        Gate {
            all: Arc::new(Semaphore::new(at_once.max(1))),
            clusters: Mutex::new(HashMap::new()),
        }
    }

    /// Wait for a turn for a learner on `cluster`.
    pub async fn enter(&self, cluster: &ClusterOptions) -> Turn {
        let per_cluster = {
            let mut clusters = self.clusters.lock().unwrap_or_else(|p| p.into_inner());
            clusters
                .entry(key(cluster))
                .or_insert_with(|| Arc::new(Semaphore::new(PER_CLUSTER)))
                .clone()
        };
        let cluster = per_cluster.acquire_owned().await.ok();
        let all = self.all.clone().acquire_owned().await.ok();
        Turn {
            _all: all,
            _cluster: cluster,
        }
    }
}

/// Which API server a learner's options reach, as far as can be told without connecting: the
/// kubeconfig and context named (the learners of `--learners` share them), or the snapshot.
fn key(cluster: &ClusterOptions) -> String {
    format!(
        "{:?}|{:?}|{:?}",
        cluster.kubeconfig, cluster.context, cluster.snapshot
    )
}

/// How many files this process may open: its soft limit, raised to the hard limit first (as
/// Go's runtime does at start), since a class holds a connection per read in flight.
fn open_files_allowed() -> u64 {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let (Some(current), maximum) = (limit.current, limit.maximum) else {
        return u64::MAX; // unlimited
    };
    let wanted = maximum.unwrap_or(u64::MAX);
    if wanted > current {
        let raised = rustix::process::Rlimit {
            current: Some(wanted),
            maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return wanted;
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn on(kubeconfig: &str) -> ClusterOptions {
        ClusterOptions {
            kubeconfig: Some(PathBuf::from(kubeconfig)),
            ..ClusterOptions::default()
        }
    }

    #[tokio::test]
    async fn learners_on_their_own_clusters_go_at_once_and_a_shared_cluster_is_bounded() {
        let gate = Gate::bounded(PER_CLUSTER + 10);
        // A class sharing one cluster: the 65th learner waits for a turn.
        let mut shared = Vec::new();
        for _ in 0..PER_CLUSTER {
            shared.push(gate.enter(&on("shared.yaml")).await);
        }
        let waits = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            gate.enter(&on("shared.yaml")),
        )
        .await;
        assert!(waits.is_err(), "a 65th learner on one cluster must wait");
        // Learners on other clusters still get in, up to the overall bound.
        let mut own = Vec::new();
        for i in 0..10 {
            own.push(gate.enter(&on(&format!("learner-{i}.yaml"))).await);
        }
        let full = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            gate.enter(&on("learner-late.yaml")),
        )
        .await;
        assert!(full.is_err(), "the overall bound holds");
        drop(shared.pop());
        let next = tokio::time::timeout(
            std::time::Duration::from_millis(500),
            gate.enter(&on("learner-late.yaml")),
        )
        .await;
        assert!(next.is_ok(), "a turn given back lets the next learner in");
    }
}
