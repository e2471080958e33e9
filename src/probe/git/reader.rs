//! Opening a work repository (exactly that folder, never a parent) and reading its state:
//! branch, HEAD, upstream, dirty paths, an operation left half done.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use git2::{
    BranchType, ErrorCode, Oid, Repository, RepositoryOpenFlags, RepositoryState, StatusOptions,
};

use super::error::{GitProbeError, gone_gitdir};
use super::{CommitInfo, RepoSnapshot, UpstreamInfo};

/// `GIT_INDEX_ENTRY_SKIP_WORKTREE`, in an index entry's extended flags (libgit2's index.h).
const SKIP_WORKTREE: u16 = 1 << 14;

/// A status read, sorted as porcelain sorts.
#[derive(Default)]
struct StatusSets {
    dirty: BTreeSet<String>,
    untracked: BTreeSet<String>,
    conflicted: BTreeSet<String>,
}

/// The status split the snapshot keeps.
struct Status {
    dirty: Vec<String>,
    untracked: Vec<String>,
    conflicted: Vec<String>,
}

impl From<StatusSets> for Status {
    fn from(sets: StatusSets) -> Self {
        Status {
            dirty: sets.dirty.into_iter().collect(),
            untracked: sets.untracked.into_iter().collect(),
            conflicted: sets.conflicted.into_iter().collect(),
        }
    }
}

/// An open repository for the history questions the `git` check asks. Opened read-only in
/// spirit: every method only reads.
pub struct RepoReader {
    pub(super) path: PathBuf,
    pub(super) repo: Repository,
}

impl RepoReader {
    /// Open the repository whose work tree is exactly `path` (no search upwards, so a plain
    /// folder inside some other repository is not mistaken for a work repo).
    pub fn open(path: &Path) -> Result<RepoReader, GitProbeError> {
        if !path.exists() {
            return Err(GitProbeError::Missing {
                path: path.to_path_buf(),
            });
        }
        if let Some(gitdir) = gone_gitdir(path) {
            return Err(GitProbeError::GitdirGone {
                path: path.to_path_buf(),
                gitdir,
            });
        }
        let repo = Repository::open_ext(
            path,
            RepositoryOpenFlags::NO_SEARCH,
            std::iter::empty::<&std::ffi::OsStr>(),
        )
        .map_err(|source| {
            if source.code() == ErrorCode::NotFound {
                GitProbeError::NotARepo {
                    path: path.to_path_buf(),
                }
            } else {
                GitProbeError::git(path)(source)
            }
        })?;
        if repo.is_bare() {
            return Err(GitProbeError::Bare {
                path: path.to_path_buf(),
            });
        }
        Ok(RepoReader {
            path: path.to_path_buf(),
            repo,
        })
    }

    /// The repository's state now.
    pub fn snapshot(&self) -> Result<RepoSnapshot, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let head_ref = self.repo.find_reference("HEAD").map_err(&err)?;
        let branch_ref = head_ref
            .symbolic_target_bytes()
            .map(|r| String::from_utf8_lossy(r).into_owned());
        let branch = branch_ref
            .as_deref()
            .map(|r| r.strip_prefix("refs/heads/").unwrap_or(r).to_string());
        let head = match self.repo.head() {
            Ok(reference) => {
                let commit = reference.peel_to_commit().map_err(&err)?;
                // libgit2's status treats a missing HEAD tree as an empty one and reports every
                // file as changed: a false verdict. Load it here, so damage is "could not check".
                commit.tree().map_err(&err)?;
                Some(commit_info(&commit))
            }
            Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => {
                None
            }
            Err(e) => return Err(err(e)),
        };
        let upstream = match (&branch, &head) {
            (Some(branch), Some(head)) => self.upstream(branch, &head.sha)?,
            _ => None,
        };
        let Status {
            dirty,
            untracked,
            conflicted,
        } = self.status()?;
        let submodules = self.submodule_paths();
        let dirty_submodules = dirty
            .iter()
            .filter(|d| submodules.iter().any(|s| s == d.trim_end_matches('/')))
            .cloned()
            .collect();
        Ok(RepoSnapshot {
            path: self.path.clone(),
            branch,
            head,
            upstream,
            dirty,
            untracked,
            conflicted,
            dirty_submodules,
            operation: operation(self.repo.state()),
            has_origin: self.repo.find_remote("origin").is_ok(),
        })
    }

    /// The branch's configured upstream; failing that, `origin/<branch>`, which `git push origin
    /// <branch>` updates even without `-u`. `None` when neither ref exists locally.
    fn upstream(&self, branch: &str, head: &str) -> Result<Option<UpstreamInfo>, GitProbeError> {
        let err = GitProbeError::git(&self.path);
        let configured = self
            .repo
            .find_branch(branch, BranchType::Local)
            .and_then(|b| b.upstream())
            .ok()
            .and_then(|u| {
                let name = u.name().ok().flatten()?.to_string();
                let oid = u.get().peel_to_commit().ok()?.id();
                Some((name, oid))
            });
        let found = match configured {
            Some(found) => Some(found),
            None => self
                .repo
                .find_reference(&format!("refs/remotes/origin/{branch}"))
                .ok()
                .and_then(|r| r.peel_to_commit().ok())
                .map(|c| (format!("origin/{branch}"), c.id())),
        };
        let Some((name, upstream)) = found else {
            return Ok(None);
        };
        let local = Oid::from_str(head).map_err(&err)?;
        let (ahead, behind) = self
            .repo
            .graph_ahead_behind(local, upstream)
            .map_err(&err)?;
        Ok(Some(UpstreamInfo {
            name,
            sha: upstream.to_string(),
            ahead,
            behind,
        }))
    }

    /// Paths `git status --porcelain --untracked-files=all` would list, split into what git
    /// tracks (or has staged) and what it does not. Every untracked file is listed by itself, not
    /// its folder: a step's new file in a new folder must be added by name, never as the folder
    /// (`git add -- db` would add a `db/.env` beside it), and a secret-looking file inside an
    /// untracked folder must be seen. `update_index(false)`: libgit2 may refresh stat data in memory, but must
    /// not write `.git/index` (labcheck never writes).
    fn status(&self) -> Result<Status, GitProbeError> {
        let mut options = StatusOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(false)
            .exclude_submodules(false)
            .update_index(false);
        let statuses = self
            .repo
            .statuses(Some(&mut options))
            .map_err(GitProbeError::git(&self.path))?;
        // A sparse checkout (`git sparse-checkout set …`) leaves files out of the working tree on
        // purpose and marks them skip-worktree in the index; `git status` ignores them, libgit2
        // reports them deleted. Read the marks so a clean sparse checkout is clean.
        let skip_worktree: BTreeSet<Vec<u8>> = match self.repo.index() {
            Ok(index) => index
                .iter()
                .filter(|e| e.flags_extended & SKIP_WORKTREE != 0)
                .map(|e| e.path)
                .collect(),
            Err(_) => BTreeSet::new(),
        };
        let mut found = StatusSets::default();
        for entry in statuses.iter() {
            let status = entry.status();
            if status.is_ignored() || status.is_empty() {
                continue;
            }
            if status == git2::Status::WT_DELETED && skip_worktree.contains(entry.path_bytes()) {
                continue;
            }
            let path = entry
                .path()
                .map(str::to_string)
                .unwrap_or_else(|_| String::from_utf8_lossy(entry.path_bytes()).into_owned());
            // Only in the working tree and unknown to the index: git does not track it.
            if status == git2::Status::WT_NEW {
                found.untracked.insert(path);
                continue;
            }
            if status.is_conflicted() {
                found.conflicted.insert(path.clone());
            }
            found.dirty.insert(path);
        }
        Ok(found.into())
    }

    /// The paths of the repo's submodules (as `.gitmodules` lists them).
    fn submodule_paths(&self) -> Vec<String> {
        self.repo
            .submodules()
            .map(|subs| {
                subs.iter()
                    .map(|s| s.path().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}

pub(super) fn commit_info(commit: &git2::Commit<'_>) -> CommitInfo {
    let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    CommitInfo {
        sha: commit.id().to_string(),
        summary: message.lines().next().unwrap_or_default().to_string(),
        message,
    }
}

fn operation(state: RepositoryState) -> Option<String> {
    let name = match state {
        RepositoryState::Clean => return None,
        RepositoryState::Merge => "merge",
        RepositoryState::Revert | RepositoryState::RevertSequence => "revert",
        RepositoryState::CherryPick | RepositoryState::CherryPickSequence => "cherry-pick",
        RepositoryState::Bisect => "bisect",
        RepositoryState::Rebase
        | RepositoryState::RebaseInteractive
        | RepositoryState::RebaseMerge
        | RepositoryState::ApplyMailboxOrRebase => "rebase",
        RepositoryState::ApplyMailbox => "am",
    };
    Some(name.to_string())
}

/// What a `targetRevision` word names in a clone, as far as its refs know (a remote may have
/// more: the clone knows the remote's branches as of its last fetch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevisionKind {
    /// A tag: pinned.
    Tag,
    /// A local or remote-tracking branch: floats with every push.
    Branch,
    /// Neither a tag nor a branch this clone knows.
    Unknown,
}

impl RepoReader {
    /// Whether `name` is a tag or a branch here (`refs/tags/NAME`, `refs/heads/NAME`, or
    /// `refs/remotes/*/NAME`), as Argo CD's `ls-remote` would match a short ref.
    pub fn revision_kind(&self, name: &str) -> RevisionKind {
        let has = |r: String| self.repo.find_reference(&r).is_ok();
        if has(format!("refs/tags/{name}")) {
            return RevisionKind::Tag;
        }
        if has(format!("refs/heads/{name}")) {
            return RevisionKind::Branch;
        }
        let remotes: Vec<String> = match self.repo.remotes() {
            Ok(list) => list
                .iter()
                .flatten()
                .flatten()
                .map(str::to_string)
                .collect(),
            Err(_) => Vec::new(),
        };
        let remote_branch = remotes
            .iter()
            .any(|r| has(format!("refs/remotes/{r}/{name}")));
        if remote_branch {
            RevisionKind::Branch
        } else {
            RevisionKind::Unknown
        }
    }
}
