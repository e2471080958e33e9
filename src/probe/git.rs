//! Reading the learner's work repositories with git2 (read-only).
//!
//! Nothing here writes to a repository: no fetch, no checkout, and status is computed without
//! writing the refreshed index back (the `git` CLI's `git status` would). "Pushed" is judged
//! offline against the remote-tracking ref that `git push` updates (`refs/remotes/origin/main`).
//!
//! The repo reader and its snapshot are in `reader`, history walking (log, touching commits,
//! reverts, blobs) in `history`, what `origin` holds in `origin`, the per-run cache in `cache`,
//! and why an odd repo cannot be read (with its fix) in `error`.

mod cache;
mod error;
mod history;
mod log;
mod origin;
mod reader;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use cache::GitCache;
pub use error::{GitProbeError, NEW_BUNDLE, RecordedGitError};
pub use history::{RevertFinding, reverted_sha};
pub use log::LoggedCommit;
pub use origin::{OriginView, origin_view, without_credentials};
pub use reader::{RepoReader, RevisionKind};

/// What labcheck knows about a work repo at the moment it looked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoSnapshot {
    /// The work repo's folder (not kept on a tape: a replay puts its own back).
    #[serde(skip)]
    pub path: PathBuf,
    /// The current branch; `None` when HEAD is detached.
    pub branch: Option<String>,
    /// The commit HEAD points at; `None` on an unborn branch (no commit yet).
    pub head: Option<CommitInfo>,
    /// The branch's remote-tracking upstream, if it has one and it exists locally.
    pub upstream: Option<UpstreamInfo>,
    /// Tracked files changed in the working tree or the index, and files staged to be added,
    /// named as `git status --porcelain` names them: what a commit would (or should) record.
    pub dirty: Vec<String>,
    /// Files git neither tracks nor ignores (an untracked folder as `dir/`, as porcelain shows
    /// it). No commit holds them until someone adds them by name; a learner's `.env`, an
    /// editor's swap file. Older bundles recorded these in `dirty`.
    #[serde(default)]
    pub untracked: Vec<String>,
    /// The entries of `dirty` that are unmerged (a conflict of a merge, rebase or cherry-pick).
    #[serde(default)]
    pub conflicted: Vec<String>,
    /// An operation left half done: "merge", "rebase", "cherry-pick", "revert", "bisect", "am".
    pub operation: Option<String>,
    /// Whether the repo has a remote named `origin` (a clone always has one).
    pub has_origin: bool,
    /// The entries of `dirty` that are submodules (changes inside them, or a new commit there).
    pub dirty_submodules: Vec<String>,
}

/// One commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitInfo {
    /// The full 40-character sha.
    pub sha: String,
    /// The first line of the message.
    pub summary: String,
    /// The whole message.
    pub message: String,
}

impl CommitInfo {
    /// The 7-character abbreviation people see in `git log --oneline`.
    pub fn short(&self) -> &str {
        short_sha(&self.sha)
    }
}

/// The 7-character abbreviation of a sha (or the whole thing if it is shorter).
pub fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// The remote-tracking branch a local branch is compared with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpstreamInfo {
    /// As git shows it, e.g. `origin/main`.
    pub name: String,
    /// The sha the remote-tracking ref points at.
    pub sha: String,
    /// Local commits not on the upstream (to push).
    pub ahead: usize,
    /// Upstream commits not in the local branch (to pull).
    pub behind: usize,
}

/// Read a work repo's state: branch, HEAD, upstream, dirty paths, operation in progress.
pub fn read_repo(path: &Path) -> Result<RepoSnapshot, GitProbeError> {
    let reader = RepoReader::open(path)?;
    reader.snapshot()
}

#[cfg(test)]
mod tests;
