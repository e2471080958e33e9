//! A work repo's recent history as an instructor reads it: each commit's message and the paths it
//! changed (names only, never contents), for a learner's bundle.

use git2::{Oid, Sort};
use serde::Serialize;

use super::error::GitProbeError;
use super::reader::RepoReader;

/// One commit of `git log --name-only`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoggedCommit {
    pub sha: String,
    pub message: String,
    /// Paths changed against the first parent (all paths of a root commit), sorted.
    pub changed: Vec<String>,
}

impl RepoReader {
    /// The `limit` newest commits reachable from `tip`, newest first, with the paths each changed.
    pub fn log_with_paths(
        &self,
        tip: &str,
        limit: usize,
    ) -> Result<Vec<LoggedCommit>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let mut walk = self.repo.revwalk().map_err(&err)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
            .map_err(&err)?;
        walk.push(Oid::from_str(tip).map_err(&err)?).map_err(&err)?;
        let mut out = Vec::new();
        for oid in walk.take(limit) {
            let commit = self.repo.find_commit(oid.map_err(&err)?).map_err(&err)?;
            let tree = commit.tree().map_err(&err)?;
            let parent = match commit.parent(0) {
                Ok(parent) => Some(parent.tree().map_err(&err)?),
                Err(_) => None,
            };
            let diff = self
                .repo
                .diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
                .map_err(&err)?;
            let mut changed: Vec<String> = diff
                .deltas()
                .filter_map(|d| d.new_file().path().or_else(|| d.old_file().path()))
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            changed.sort();
            changed.dedup();
            out.push(LoggedCommit {
                sha: commit.id().to_string(),
                message: String::from_utf8_lossy(commit.message_bytes()).into_owned(),
                changed,
            });
        }
        Ok(out)
    }
}
