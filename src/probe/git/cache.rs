//! The per-run cache of repository snapshots.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

use super::RepoSnapshot;
use super::error::GitProbeError;
use crate::probe::repos::Repos;

type Shared = Arc<Result<RepoSnapshot, GitProbeError>>;

/// Per-run cache: each repo is read once however many checks ask about it, and checks asking
/// at the same time share the one read.
#[derive(Default)]
pub struct GitCache {
    cells: Mutex<HashMap<PathBuf, Arc<OnceCell<Shared>>>>,
}

impl GitCache {
    /// An empty cache.
    pub fn new() -> GitCache {
        GitCache::default()
    }

    /// The snapshot of the repo at `path`, read through `repos` on first use.
    pub async fn get(&self, repos: &Repos, path: &Path) -> Shared {
        let cell = {
            // A poisoned lock only means another check panicked; the map is still sound.
            let mut cells = self.cells.lock().unwrap_or_else(|p| p.into_inner());
            cells.entry(path.to_path_buf()).or_default().clone()
        };
        cell.get_or_init(|| async {
            // A replay answers from memory, in the asking check's task (where a miss is noted).
            if repos.replaying() {
                return Arc::new(repos.snapshot(path));
            }
            let (owned, reader) = (path.to_path_buf(), repos.clone());
            match tokio::task::spawn_blocking(move || reader.snapshot(&owned)).await {
                Ok(result) => Arc::new(result),
                // The blocking read panicked or was cancelled: read again on this thread so the
                // check still gets an answer rather than a hang.
                Err(_) => Arc::new(repos.snapshot(path)),
            }
        })
        .await
        .clone()
    }
}

impl std::fmt::Debug for GitCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitCache").finish_non_exhaustive()
    }
}
