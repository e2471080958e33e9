//! A work repo's recent history as an instructor reads it: each commit's message and the paths it
//! changed (names only, never contents), for a learner's bundle.

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
        let mut out = Vec::new();
        for walked in self.walk(tip, None)?.take(limit) {
            let walked = walked?;
            let changed = self.changed_paths(walked.parent_tree()?.as_ref(), &walked.tree()?)?;
            let info = walked.info();
            out.push(LoggedCommit {
                sha: info.sha,
                message: info.message,
                changed: changed.into_iter().collect(),
            });
        }
        Ok(out)
    }
}
